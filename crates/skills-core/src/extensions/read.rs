//! Reading the extension fields out of a parsed frontmatter, leniently: what cannot be
//! used is reported and dropped, never a reason to skip the skill.

use super::{
    EXTENSION_FIELDS, HookAction, HookEvent, MAX_LIST_ENTRIES, MAX_LONG_FIELD, MAX_SHORT_FIELD, MAX_SKILL_HOOKS,
    SkillContext, SkillExtensions, SkillHook, compile_matcher,
};
use crate::diagnostic::DiagnosticKind;
use crate::yaml::{ScalarKind, Yaml};

/// Reads the extension fields out of a frontmatter's fields, reporting what it cannot
/// use through `report`. `None` when the frontmatter sets none of them.
pub(crate) fn parse_extensions<'y>(
    mut take: impl FnMut(&str) -> Option<Yaml<'y>>,
    report: &mut dyn FnMut(DiagnosticKind, String),
) -> Option<Box<SkillExtensions>> {
    let mut reader = Reader { report };
    let mut ext = SkillExtensions::default();
    let mut any = false;
    for key in EXTENSION_FIELDS {
        let Some(value) = take(key) else { continue };
        any = true;
        match key {
            "disable-model-invocation" => {
                ext.disable_model_invocation = reader.boolean(key, value).unwrap_or(false);
            }
            "user-invocable" => ext.user_invocable = reader.boolean(key, value).unwrap_or(true),
            "argument-hint" => ext.argument_hint = reader.text(key, bracketed(value), MAX_SHORT_FIELD),
            "model" => ext.model = reader.text(key, value, MAX_SHORT_FIELD),
            "effort" => ext.effort = reader.text(key, value, MAX_SHORT_FIELD),
            "agent" => ext.agent = reader.text(key, value, MAX_SHORT_FIELD),
            "when_to_use" => ext.when_to_use = reader.text(key, value, MAX_LONG_FIELD),
            "context" => ext.context = reader.context(value),
            "disallowed-tools" => ext.disallowed_tools = reader.list(key, value, crate::split::split_tools),
            "paths" => ext.paths = reader.list(key, value, split_globs),
            "dependencies" => ext.dependencies = super::dependencies::read_dependencies(value, reader.report),
            "required-tools" => ext.required_tools = super::dependencies::read_required_tools(value, reader.report),
            _ => ext.hooks = reader.hooks(value),
        }
    }
    (any && ext != SkillExtensions::default()).then(|| Box::new(ext))
}

struct Reader<'a> {
    report: &'a mut dyn FnMut(DiagnosticKind, String),
}

impl Reader<'_> {
    fn ignored(&mut self, message: String) {
        (self.report)(DiagnosticKind::FieldIgnored, message);
    }

    fn boolean(&mut self, key: &str, value: Yaml<'_>) -> Option<bool> {
        match &value {
            Yaml::Null => None,
            Yaml::Scalar(s) if s.text.eq_ignore_ascii_case("true") => Some(true),
            Yaml::Scalar(s) if s.text.eq_ignore_ascii_case("false") => Some(false),
            other => {
                let msg = format!("ignoring `{key}`: expected true or false, got `{}`", other.to_text());
                self.ignored(cut(msg, MAX_SHORT_FIELD));
                None
            }
        }
    }

    fn text(&mut self, key: &str, value: Yaml<'_>, max: usize) -> Option<String> {
        match value {
            Yaml::Null => None,
            Yaml::Scalar(s) => {
                let text = s.text.trim();
                if text.chars().count() > max {
                    self.ignored(format!("`{key}` is longer than {max} characters; cut"));
                }
                Some(cut(text.to_owned(), max)).filter(|t| !t.is_empty())
            }
            other => {
                self.ignored(format!(
                    "ignoring `{key}`: expected a string, got a {}",
                    other.type_name()
                ));
                None
            }
        }
    }

    fn context(&mut self, value: Yaml<'_>) -> SkillContext {
        match value {
            Yaml::Null => SkillContext::Inline,
            Yaml::Scalar(s) if s.text.trim() == "fork" => SkillContext::Fork,
            Yaml::Scalar(s) if s.text.trim() == "inline" => SkillContext::Inline,
            other => {
                let msg = format!(
                    "ignoring `context: {}`: the values are `fork` and `inline`",
                    other.to_text()
                );
                self.ignored(cut(msg, MAX_SHORT_FIELD));
                SkillContext::Inline
            }
        }
    }

    /// A list field: a YAML list of strings, or one string split by `split`.
    fn list(&mut self, key: &str, value: Yaml<'_>, split: fn(&str) -> Vec<String>) -> Vec<String> {
        let mut items = match value {
            Yaml::Null => Vec::new(),
            Yaml::Scalar(s) if s.kind == ScalarKind::Str => split(&s.text),
            Yaml::Seq(entries) => {
                let mut items = Vec::with_capacity(entries.len());
                for entry in entries {
                    match entry {
                        Yaml::Scalar(s) if !s.text.trim().is_empty() => items.push(s.text.trim().to_owned()),
                        Yaml::Scalar(_) | Yaml::Null => {}
                        other => self.ignored(format!("dropped a {} entry of `{key}`", other.type_name())),
                    }
                }
                items
            }
            other => {
                let msg = format!(
                    "ignoring `{key}`: expected a string or a list, got a {}",
                    other.type_name()
                );
                self.ignored(msg);
                Vec::new()
            }
        };
        if items.len() > MAX_LIST_ENTRIES {
            self.ignored(format!(
                "`{key}` has {} entries; the first {MAX_LIST_ENTRIES} are kept",
                items.len()
            ));
            items.truncate(MAX_LIST_ENTRIES);
        }
        for item in &mut items {
            *item = cut(std::mem::take(item), MAX_LONG_FIELD);
        }
        items
    }

    /// `hooks: {Event: [{matcher, hooks: [{type, command | prompt, once, timeout}]}]}`.
    fn hooks(&mut self, value: Yaml<'_>) -> Vec<SkillHook> {
        let events = match value {
            Yaml::Null => return Vec::new(),
            Yaml::Map(events) => events,
            other => {
                self.ignored(format!(
                    "ignoring `hooks`: expected a mapping, got a {}",
                    other.type_name()
                ));
                return Vec::new();
            }
        };
        let mut hooks = Vec::new();
        for (event, groups) in events {
            let name = event.to_text();
            let Some(event) = HookEvent::from_key(&name) else {
                let msg = format!(
                    "ignoring hooks for `{}`: the events are PreToolUse, PostToolUse and Stop",
                    cut(name, MAX_SHORT_FIELD)
                );
                self.ignored(msg);
                continue;
            };
            let groups = match groups {
                Yaml::Seq(groups) => groups,
                other => vec![other],
            };
            for group in groups {
                self.hook_group(event, group, &mut hooks);
            }
        }
        if hooks.len() > MAX_SKILL_HOOKS {
            self.ignored(format!(
                "{} hooks declared; the first {MAX_SKILL_HOOKS} are kept",
                hooks.len()
            ));
            hooks.truncate(MAX_SKILL_HOOKS);
        }
        hooks
    }

    fn hook_group(&mut self, event: HookEvent, group: Yaml<'_>, hooks: &mut Vec<SkillHook>) {
        let Yaml::Map(entries) = group else {
            let msg = format!("ignoring a {} hook: expected a mapping", event.as_str());
            self.ignored(msg);
            return;
        };
        let mut matcher = None;
        let mut handlers = None;
        let mut once = false;
        for (key, value) in &entries {
            match key.to_text().as_str() {
                "matcher" => matcher = Some(value.to_text()),
                "hooks" => handlers = Some(value.clone()),
                "once" => once = value.to_text() == "true",
                _ => {}
            }
        }
        let matcher = match matcher.map(|m| m.trim().to_owned()) {
            None => None,
            Some(m) if m.is_empty() || m == "*" => None,
            Some(m) if m.chars().count() > MAX_SHORT_FIELD => {
                self.ignored(format!("dropped a {} hook: its matcher is too long", event.as_str()));
                return;
            }
            Some(m) => match compile_matcher(&m) {
                Ok(_) => Some(m),
                Err(e) => {
                    let msg = format!(
                        "dropped a {} hook: matcher `{m}` is not a valid regular expression ({})",
                        event.as_str(),
                        cut(e.to_string(), MAX_SHORT_FIELD)
                    );
                    self.ignored(msg);
                    return;
                }
            },
        };
        // A handler written directly in the event's list, without a `hooks:` group.
        let handlers = match handlers {
            Some(Yaml::Seq(handlers)) => handlers,
            Some(other) => vec![other],
            None => vec![Yaml::Map(entries)],
        };
        for handler in handlers {
            if let Some((action, handler_once)) = self.hook_action(event, handler) {
                hooks.push(SkillHook {
                    event,
                    matcher: matcher.clone(),
                    action,
                    once: once || handler_once,
                });
            }
        }
    }

    fn hook_action(&mut self, event: HookEvent, handler: Yaml<'_>) -> Option<(HookAction, bool)> {
        let Yaml::Map(entries) = handler else {
            self.ignored(format!("ignoring a {} hook: expected a mapping", event.as_str()));
            return None;
        };
        let field = |name: &str| {
            entries
                .iter()
                .find(|(k, _)| k.to_text() == name)
                .map(|(_, v)| v.to_text())
        };
        let once = field("once").is_some_and(|v| v == "true");
        // Without a `type`, the key present says which kind it is.
        let kind = field("type").or_else(|| {
            ["command", "prompt"]
                .into_iter()
                .find(|k| field(k).is_some())
                .map(str::to_owned)
        });
        let action = match kind.as_deref() {
            Some("command") => field("command").map(|command| HookAction::Command {
                command: cut(command, MAX_LONG_FIELD),
                timeout: field("timeout").and_then(|t| t.parse().ok()),
            }),
            Some("prompt") => field("prompt").map(|prompt| HookAction::Prompt {
                prompt: cut(prompt, MAX_LONG_FIELD),
            }),
            _ => None,
        };
        if action.is_none() {
            let msg = format!(
                "ignoring a {} hook: it needs `type: command` with `command`, or `type: prompt` with `prompt`",
                event.as_str()
            );
            self.ignored(msg);
        }
        action.map(|action| (action, once))
    }
}

/// `text` cut to at most `max` characters.
fn cut(mut text: String, max: usize) -> String {
    if let Some((at, _)) = text.char_indices().nth(max) {
        text.truncate(at);
    }
    text
}

/// Splits a `paths` string on commas outside braces: `"src/**/*.rs, {a,b}/*.md"` is
/// `["src/**/*.rs", "{a,b}/*.md"]`.
fn split_globs(text: &str) -> Vec<String> {
    crate::split::split_outside(text, ('{', '}'), |c| c == ',')
}

/// `argument-hint: [file] [mode]` written without quotes: YAML reads `[file]` as a list.
/// Authors mean the text, so a list of scalars is written back as `[a, b]`.
fn bracketed(value: Yaml<'_>) -> Yaml<'_> {
    match &value {
        Yaml::Seq(items) if items.iter().all(|i| matches!(i, Yaml::Scalar(_))) => {
            let items: Vec<String> = items.iter().map(Yaml::to_text).collect();
            crate::yaml::text_scalar(format!("[{}]", items.join(", ")))
        }
        _ => value,
    }
}
