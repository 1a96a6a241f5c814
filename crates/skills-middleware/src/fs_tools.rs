//! `read_file` and `ls` over a backend, so an agent can read the resources a loaded
//! skill points to.

use std::fmt::Write as _;
use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use skills_core::{BackendError, BackendExt, BackendProtocol, FileErrorKind};

use crate::tool::{Tool, ToolOutput, ToolRuntime, parse_args};

/// Lines `read_file` returns when the call gives no `limit`.
pub const DEFAULT_READ_LIMIT: usize = 2000;
/// Characters of one line `read_file` shows; longer lines are cut.
pub const MAX_LINE_CHARS: usize = 2000;

/// `read_file(file_path, offset?, limit?)`: a text file with numbered lines (`cat -n`
/// style), read through a backend, so every path rule of the backend applies.
#[derive(Debug, Clone)]
pub struct ReadFileTool {
    backend: Arc<dyn BackendProtocol>,
}

/// `ls(path)`: the entries of a directory, one per line, directories ending in `/`.
#[derive(Debug, Clone)]
pub struct LsTool {
    backend: Arc<dyn BackendProtocol>,
}

/// Both file tools over one backend.
pub fn filesystem_tools(backend: Arc<dyn BackendProtocol>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ReadFileTool::new(backend.clone())),
        Arc::new(LsTool::new(backend)),
    ]
}

impl ReadFileTool {
    /// A `read_file` tool reading through `backend`.
    pub fn new(backend: Arc<dyn BackendProtocol>) -> Self {
        Self { backend }
    }
}

impl LsTool {
    /// An `ls` tool listing through `backend`.
    pub fn new(backend: Arc<dyn BackendProtocol>) -> Self {
        Self { backend }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadFileArgs {
    file_path: String,
    #[serde(default)]
    offset: usize,
    #[serde(default)]
    limit: Option<usize>,
}

#[async_trait]
impl Tool for ReadFileTool {
    fn name(&self) -> &str {
        "read_file"
    }

    fn description(&self) -> &str {
        "Read a text file. Returns numbered lines. Use `offset` (first line, from 0) and \
         `limit` (number of lines) to read part of a long file."
    }

    fn parameters(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Absolute path of the file."},
                "offset": {"type": "integer", "minimum": 0, "description": "First line to read, from 0."},
                "limit": {"type": "integer", "minimum": 1, "description": "How many lines to read."}
            },
            "required": ["file_path"],
            "additionalProperties": false
        })
    }

    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput {
        let args: ReadFileArgs = match parse_args(self.name(), args, &runtime) {
            Ok(args) => args,
            Err(output) => return output,
        };
        let path = args.file_path;
        let content = match self.backend.download_file(&path).await {
            Ok(content) => content,
            Err(error) => {
                let msg = match error.kind {
                    FileErrorKind::FileNotFound => format!("Error: file '{path}' not found"),
                    FileErrorKind::IsDirectory => format!("Error: '{path}' is a directory; use ls to list it"),
                    _ => format!("Error: cannot read '{path}': {error}"),
                };
                return runtime.error(msg);
            }
        };
        let Ok(text) = std::str::from_utf8(&content) else {
            return runtime.error(format!("Error: '{path}' is not UTF-8 text"));
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.is_empty() {
            return runtime.success(format!("(the file '{path}' is empty)"));
        }
        let total = text.lines().count();
        if args.offset >= total {
            return runtime.error(format!(
                "Error: offset {} is past the end of '{path}' ({total} lines)",
                args.offset
            ));
        }
        let limit = args.limit.unwrap_or(DEFAULT_READ_LIMIT).max(1);
        runtime.success(number_lines(text, args.offset, limit))
    }
}

/// Lines `offset..offset + limit` of `text`, each prefixed with its 1-based number.
fn number_lines(text: &str, offset: usize, limit: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate().skip(offset).take(limit) {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, "{:>6}\t", i + 1);
        match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((cut, _)) => {
                out.push_str(&line[..cut]);
                out.push_str(" [line cut]");
            }
            None => out.push_str(line),
        }
    }
    out
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LsArgs {
    path: String,
}

#[async_trait]
impl Tool for LsTool {
    fn name(&self) -> &str {
        "ls"
    }

    fn description(&self) -> &str {
        "List a directory: one entry per line, directories end with `/`."
    }

    fn parameters(&self) -> serde_json::Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Absolute path of the directory."}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    async fn call(&self, args: serde_json::Value, runtime: ToolRuntime<'_>) -> ToolOutput {
        let args: LsArgs = match parse_args(self.name(), args, &runtime) {
            Ok(args) => args,
            Err(output) => return output,
        };
        match self.backend.ls_info(&args.path).await {
            Ok(entries) if entries.is_empty() => runtime.success(format!("(the directory '{}' is empty)", args.path)),
            Ok(entries) => {
                let lines: Vec<String> = entries
                    .iter()
                    .map(|e| {
                        if e.is_dir {
                            format!("{}/", e.path)
                        } else {
                            e.path.clone()
                        }
                    })
                    .collect();
                runtime.success(lines.join("\n"))
            }
            Err(BackendError::NotFound { path }) => runtime.error(format!("Error: directory '{path}' not found")),
            Err(BackendError::NotADirectory { path }) => {
                runtime.error(format!("Error: '{path}' is a file; use read_file to read it"))
            }
            Err(error) => runtime.error(format!("Error: cannot list '{}': {error}", args.path)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_lines_counts_from_one_and_honours_offset_and_limit() {
        let text = "a\nb\nc\nd";
        assert_eq!(number_lines(text, 0, 2), "     1\ta\n     2\tb");
        assert_eq!(number_lines(text, 2, 10), "     3\tc\n     4\td");
    }

    #[test]
    fn number_lines_cuts_long_lines_on_a_char_boundary() {
        let line = "é".repeat(MAX_LINE_CHARS + 5);
        let out = number_lines(&line, 0, 1);
        assert!(out.ends_with(" [line cut]"));
        assert_eq!(out.chars().filter(|c| *c == 'é').count(), MAX_LINE_CHARS);
    }
}
