//! Where an MCP server is: a URL (streamable HTTP) or a command (stdio).

use std::fmt;

/// Where an MCP server is.
#[derive(Clone, PartialEq, Eq)]
pub enum McpTarget {
    /// Streamable HTTP at this URL, with a bearer token when given.
    Http {
        /// The endpoint (`https://host/mcp`).
        url: url::Url,
        /// Sent as `Authorization: Bearer ...`; never shown.
        token: Option<String>,
    },
    /// A server started as a child process, spoken to on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
}

/// Why a target cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid MCP server {url}: {reason}")]
pub struct TargetError {
    /// The URL as given.
    pub url: String,
    /// What is wrong with it.
    pub reason: String,
}

impl McpTarget {
    /// Streamable HTTP at `url` (`https://`, or `http://` on a loopback address); the
    /// `mcp+` prefix of a source spec is accepted.
    pub fn http(url: &str) -> Result<Self, TargetError> {
        let fail = |reason: &str| TargetError {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        let bare = url.strip_prefix("mcp+").unwrap_or(url);
        let parsed = url::Url::parse(bare).map_err(|e| fail(&e.to_string()))?;
        let credentials = !parsed.username().is_empty() || parsed.password().is_some();
        skills_core::url::check_remote(parsed.scheme(), parsed.host_str(), credentials)
            .map_err(|reason| fail(reason.unwrap_or("expected mcp+https:// (or mcp+http:// on loopback)")))?;
        Ok(Self::Http {
            url: parsed,
            token: None,
        })
    }

    /// A server started as `command args...`.
    pub fn stdio<I: IntoIterator<Item = S>, S: Into<String>>(command: impl Into<String>, args: I) -> Self {
        Self::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }

    /// With this bearer token (HTTP only; ignored for stdio).
    pub fn with_token(self, token: Option<String>) -> Self {
        match self {
            Self::Http { url, .. } => Self::Http { url, token },
            other => other,
        }
    }
}

impl fmt::Display for McpTarget {
    /// The URL or the command line; never the token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Http { url, .. } => f.write_str(url.as_str()),
            Self::Stdio { command, args } => {
                f.write_str(command)?;
                for arg in args {
                    write!(f, " {arg}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for McpTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "McpTarget({self})")
    }
}
