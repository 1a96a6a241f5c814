//! Skills as MCP prompts: what a person invokes by hand (clients show prompts as slash
//! commands). Every skill a person may invoke (`user-invocable` not false) is a prompt,
//! those for people only (`disable-model-invocation: true`) included; `prompts/get`
//! answers what `skills load NAME -- ARGS` prints, as one user message.

use std::collections::{BTreeSet, HashSet};

use rmcp::model::{
    CacheScope, ErrorData, GetPromptRequestParams, GetPromptResult, ListPromptsResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, Role,
};
use skills_runtime::name::check_skill_name;
use skills_runtime::{CatalogSnapshot, Invoker, LoadRequest, SkillArguments, SkillMetadata, load_skill_with, path};

use super::server::{SkillsServer, cursor, page, shorten};

/// Prompts per page of `prompts/list`.
const PROMPTS_PAGE: usize = 500;

/// How long a client may keep a page of `prompts/list` (it is told of changes).
const PROMPTS_TTL_MS: u64 = 60_000;

/// The name of the one optional argument of a skill without an argument hint.
const ARGUMENTS: &str = "arguments";

/// One skill as a prompt: its prompt name, the skill, and its arguments' names
/// (empty: the one optional `arguments` string).
#[derive(Debug, Clone)]
pub(super) struct SkillPrompt<'a> {
    pub(super) name: String,
    pub(super) skill: &'a SkillMetadata,
    pub(super) arguments: Vec<String>,
}

/// The prompts of `snapshot`, in the catalog's order: every skill a person may invoke,
/// named after the skill, or after its folder when the skill's name is not a valid
/// skill name (a title such as `Daily Log`); a name taken by an earlier prompt gets a
/// number (`daily-log-2`).
pub(super) fn prompts<'a>(snapshot: &'a CatalogSnapshot, offered: impl Fn(&str) -> bool) -> Vec<SkillPrompt<'a>> {
    let invocable: Vec<(&SkillMetadata, bool)> = snapshot
        .skills()
        .iter()
        .filter(|s| s.user_invocable() && offered(&s.name))
        .map(|s| (&**s, check_skill_name(&s.name).is_ok()))
        .collect();
    let mut taken: HashSet<String> = invocable
        .iter()
        .filter(|(_, valid)| *valid)
        .map(|(s, _)| s.name.clone())
        .collect();
    invocable
        .into_iter()
        .map(|(skill, valid)| {
            let name = if valid {
                skill.name.clone()
            } else {
                let base = slug(path::file_name(skill.dir()), 64);
                let base = if base.is_empty() { "skill".to_owned() } else { base };
                let mut name = base.clone();
                let mut n = 2;
                while taken.contains(&name) {
                    name = format!("{base}-{n}");
                    n += 1;
                }
                taken.insert(name.clone());
                name
            };
            SkillPrompt {
                name,
                skill,
                arguments: hint_arguments(skill.argument_hint()),
            }
        })
        .collect()
}

/// The arguments an argument hint names, one per bracketed part: `[version] [channel]`
/// names `version` and `channel`. Each name is the part in lowercase letters, digits,
/// `-` and `_` (at most 64 characters); a part with none of those, or a name given twice,
/// is left out.
pub(super) fn hint_arguments(hint: Option<&str>) -> Vec<String> {
    let Some(hint) = hint else { return Vec::new() };
    let mut names: Vec<String> = Vec::new();
    let mut rest = hint;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let name = slug(&after[..close], 64);
        if !name.is_empty() && !names.contains(&name) {
            names.push(name);
        }
        rest = &after[close + 1..];
    }
    names
}

/// `text` in lowercase letters and digits of any script, `_`, and single hyphens for
/// everything else, at most `max` characters.
fn slug(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(max).collect();
    out.trim_end_matches('-').to_owned()
}

impl SkillPrompt<'_> {
    fn to_prompt(&self) -> Prompt {
        let arguments = if self.arguments.is_empty() {
            vec![
                PromptArgument::new(ARGUMENTS)
                    .with_description("The skill's arguments, as one line (quote an argument that holds spaces).")
                    .with_required(false),
            ]
        } else {
            let hint = self.skill.argument_hint().unwrap_or_default();
            self.arguments
                .iter()
                .map(|name| {
                    PromptArgument::new(name)
                        .with_description(format!("From the skill's argument hint: {hint}"))
                        .with_required(true)
                })
                .collect()
        };
        let mut prompt = Prompt::new(&self.name, Some(&self.skill.description), Some(arguments));
        if self.name != self.skill.name {
            prompt.title = Some(self.skill.name.clone());
        }
        prompt
    }

    /// The skill's arguments from a `prompts/get` request's, or why they do not fit.
    fn arguments(&self, given: Option<&rmcp::model::JsonObject>) -> Result<Option<SkillArguments>, String> {
        let empty = rmcp::model::JsonObject::new();
        let given = given.unwrap_or(&empty);
        let mut values: Vec<(String, String)> = Vec::with_capacity(given.len());
        for (key, value) in given {
            let Some(text) = value.as_str() else {
                return Err(format!("argument {:?} must be a string", shorten(key)));
            };
            values.push((key.clone(), text.to_owned()));
        }
        let declared: BTreeSet<&str> = if self.arguments.is_empty() {
            BTreeSet::from([ARGUMENTS])
        } else {
            self.arguments.iter().map(String::as_str).collect()
        };
        let extra: Vec<String> = values
            .iter()
            .filter(|(key, _)| !declared.contains(key.as_str()))
            .map(|(key, _)| format!("{:?}", shorten(key)))
            .collect();
        if !extra.is_empty() {
            let expected: Vec<&str> = declared.into_iter().collect();
            return Err(format!(
                "prompt {:?} takes no argument {}; its arguments: {}",
                self.name,
                extra.join(", "),
                expected.join(", ")
            ));
        }
        let value = |name: &str| values.iter().find(|(key, _)| key == name).map(|(_, v)| v.clone());
        if self.arguments.is_empty() {
            return Ok(value(ARGUMENTS)
                .filter(|text| !text.trim().is_empty())
                .map(SkillArguments::Text));
        }
        let missing: Vec<&str> = self
            .arguments
            .iter()
            .map(String::as_str)
            .filter(|name| value(name).is_none())
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "prompt {:?} needs the argument{} {}",
                self.name,
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", ")
            ));
        }
        let list = self.arguments.iter().filter_map(|name| value(name)).collect();
        Ok(Some(SkillArguments::List(list)))
    }
}

impl SkillsServer {
    pub(super) async fn prompts_list(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let (chosen, next) = page(
            &prompts(&snapshot, |name| self.offers(&snapshot, name)),
            cursor(request.as_ref()),
            PROMPTS_PAGE,
        )?;
        let chosen = chosen.iter().map(SkillPrompt::to_prompt).collect();
        let mut result = ListPromptsResult::with_all_items(chosen)
            .with_ttl_ms(PROMPTS_TTL_MS)
            .with_cache_scope(CacheScope::Private);
        result.next_cursor = next;
        Ok(result)
    }

    pub(super) async fn prompt_get(&self, request: GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let all = prompts(&snapshot, |name| self.offers(&snapshot, name));
        let Some(prompt) = all.iter().find(|p| p.name == request.name) else {
            let known: Vec<&str> = all.iter().take(20).map(|p| p.name.as_str()).collect();
            let more = if all.len() > known.len() { ", ..." } else { "" };
            return Err(ErrorData::invalid_params(
                format!(
                    "no prompt named {:?}; prompts: {}{more}",
                    shorten(&request.name),
                    known.join(", ")
                ),
                None,
            ));
        };
        let arguments = prompt
            .arguments(request.arguments.as_ref())
            .map_err(|message| ErrorData::invalid_params(message, None))?;
        let load = LoadRequest::new(&[])
            .with_arguments(arguments.as_ref())
            .by(Invoker::User);
        let answer = load_skill_with(&snapshot, &prompt.skill.name, load).await;
        if answer.is_error() {
            return Err(ErrorData::invalid_params(answer.to_string(), None));
        }
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, answer.to_string())])
                .with_description(&prompt.skill.description),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{hint_arguments, slug};

    #[test]
    fn argument_hints_name_one_argument_per_bracketed_part() {
        let hint = |text: &str| hint_arguments(Some(text));
        assert_eq!(hint("[env]"), ["env"]);
        assert_eq!(hint("[version] [channel]"), ["version", "channel"]);
        assert_eq!(hint("[Issue Number] then [issue number]"), ["issue-number"]);
        assert_eq!(hint("[]  [!!] [file_path]"), ["file_path"]);
        assert_eq!(hint("no brackets"), Vec::<String>::new());
        assert_eq!(hint("[unclosed"), Vec::<String>::new());
        assert_eq!(hint_arguments(None), Vec::<String>::new());
    }

    #[test]
    fn slugs_keep_letters_and_digits_and_join_the_rest_with_single_hyphens() {
        assert_eq!(slug("Daily Log", 64), "daily-log");
        assert_eq!(slug("  CI/CD -- helper!  ", 64), "ci-cd-helper");
        assert_eq!(slug("技能 一", 64), "技能-一");
        assert_eq!(slug("abc-def", 5), "abc-d");
        assert_eq!(slug("abcd-ef", 5), "abcd");
        assert_eq!(slug("!!!", 64), "");
    }
}
