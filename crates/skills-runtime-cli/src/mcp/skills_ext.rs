//! The MCP Skills extension (SEP-2640): `skills/list`, `skills/get` with complete file
//! manifests, and `resources/directory/read`.

use rmcp::model::{
    DIRECTORY_MIME_TYPE, ErrorData, GetSkillRequestParams, GetSkillResult, JsonObject, ListSkillsResult,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, Resource, Skill,
    SkillFrontmatter,
};
use serde_json::{Value, json};
use skills_runtime::{CatalogSnapshot, SKILL_FILE, SkillMetadata, path};

use super::files::{self, SkillUri};
use super::resources::resource_page;
use super::server::{SkillsServer, cursor, page, shorten, uri_data};

/// Skills per `skills/list` page (each costs a walk of the skill's folder, and a read
/// of each file the digest cache does not know). Clients stop paging somewhere (the MCP
/// inspector after 64 pages): 500 a page lists 32,000 skills within that.
const SKILLS_PAGE: usize = 500;

impl SkillsServer {
    /// The skill's entry, or why it is not published: a skill whose complete manifest
    /// cannot be given (over the extension's limits, a file too large or unreadable) is
    /// left out, and the reason is printed on stderr once per skill and reason.
    async fn skill_entry(&self, snapshot: &CatalogSnapshot, skill: &SkillMetadata) -> Result<Skill, String> {
        let manifest = match Self::backend_of(snapshot, &skill.name) {
            Some((index, backend)) => self.inner.digests.manifest(backend.as_ref(), index, skill).await,
            None => Err("its source is gone".to_owned()),
        };
        let manifest = manifest.map_err(|reason| self.leave_out(skill, reason))?;
        // A host checks the entry's frontmatter against the file it reads, with a YAML
        // reader of its own: a frontmatter only we could read (recovered or repaired)
        // would fail that check, so the skill is not published until its file is fixed.
        let Some(written) = manifest.frontmatter.as_deref() else {
            let reason = "its frontmatter is not valid YAML as written (it loads here only because it was \
                          recovered or repaired; `skills validate` says how to fix the file)";
            return Err(self.leave_out(skill, reason.to_owned()));
        };
        if let Some(reason) = over_spec_lengths(written) {
            return Err(self.leave_out(skill, reason));
        }
        self.inner.left_out.remove(&skill.path);
        let frontmatter = verbatim_frontmatter(skill, written);
        Ok(Skill::new(
            files::skill_md_uri(skill),
            frontmatter,
            files::skill_resources(&skill.name, files::skill_file_name(skill), &manifest.files),
        ))
    }

    /// Notes that `skill` is not published, saying why on stderr once per reason.
    fn leave_out(&self, skill: &SkillMetadata, reason: String) -> String {
        let said = self.inner.left_out.insert(skill.path.clone(), reason.clone());
        if said.as_deref() != Some(reason.as_str()) {
            show_err!("warning: skill {} is not published: {reason}", skill.name);
        }
        reason
    }

    pub(super) async fn skills_list(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let servable: Vec<&SkillMetadata> = self.servable(&snapshot);
        let (chosen, next) = page(&servable, cursor(request.as_ref()), SKILLS_PAGE)?;
        let mut skills = Vec::with_capacity(chosen.len());
        for skill in chosen {
            // A skill that cannot be published whole is left out (and said on stderr).
            if let Ok(entry) = self.skill_entry(&snapshot, skill).await {
                skills.push(entry);
            }
        }
        // A page reads and digests up to 500 skills' files: give back what it freed.
        crate::heap::trim();
        let mut result = ListSkillsResult::with_all_items(skills);
        result.next_cursor = next;
        Ok(result)
    }

    pub(super) async fn skills_get(&self, request: GetSkillRequestParams) -> Result<GetSkillResult, ErrorData> {
        let snapshot = self.snapshot().await;
        let found = match files::parse_uri(&request.uri) {
            Some(SkillUri::File { skill, rel }) if rel == SKILL_FILE => self.servable_skill(&snapshot, &skill),
            _ => None,
        };
        let Some(skill) = found else {
            return Err(ErrorData::invalid_params(
                format!("no skill at {}", shorten(&request.uri)),
                Some(uri_data(&request.uri)),
            ));
        };
        let mut entry = match self.skill_entry(&snapshot, skill).await {
            Ok(entry) => entry,
            Err(reason) => {
                let msg = format!("skill {} is not published: {reason}", skill.name);
                let data = json!({ "uri": request.uri, "reason": reason });
                return Err(ErrorData::invalid_params(msg, Some(data)));
            }
        };
        // Answer under the URI asked for (the same skill, possibly spelled differently).
        entry.uri = request.uri;
        Ok(GetSkillResult::new(entry))
    }

    pub(super) async fn directory_read(
        &self,
        request: ReadResourceDirectoryRequestParams,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let (skill_name, rel) = match files::parse_uri(&request.uri) {
            Some(SkillUri::Root { skill }) => (skill, None),
            Some(SkillUri::File { skill, rel }) => (skill, Some(rel.trim_end_matches('/').to_owned())),
            _ => {
                return Err(ErrorData::invalid_params(
                    format!("{} is not a skill directory", shorten(&request.uri)),
                    None,
                ));
            }
        };
        let snapshot = self.snapshot().await;
        let (Some(skill), Some((_, backend))) = (
            self.servable_skill(&snapshot, &skill_name),
            Self::backend_of(&snapshot, &skill_name),
        ) else {
            // SEP-2640: an unknown skill is an invalid parameter, with the URI in `data`.
            return Err(ErrorData::invalid_params(
                format!("no skill named {:?}", shorten(&skill_name)),
                Some(uri_data(&request.uri)),
            ));
        };
        let dir = match &rel {
            Some(rel) => {
                skills_runtime::contained_path(skill.dir(), rel).map_err(|e| ErrorData::invalid_params(e, None))?
            }
            None => skill.dir().to_owned(),
        };
        let entries = backend
            .ls_info(&dir)
            .await
            .map_err(|e| ErrorData::invalid_params(format!("{} cannot be listed: {e}", shorten(&request.uri)), None))?;
        let limit = backend.max_file_size();
        let children: Vec<Resource> = entries
            .into_iter()
            .filter(|e| e.is_dir || e.size <= limit)
            .filter_map(|entry| {
                let child_rel = entry.path.strip_prefix(skill.dir())?.strip_prefix('/')?;
                let name = path::file_name(&entry.path).to_owned();
                let uri = files::file_uri(&skill.name, child_rel);
                Some(if entry.is_dir {
                    Resource::new(uri, name).with_mime_type(DIRECTORY_MIME_TYPE)
                } else {
                    let resource = Resource::new(uri, name.clone()).with_size(entry.size);
                    match files::mime_type(&name) {
                        Some(mime) => resource.with_mime_type(mime),
                        None => resource,
                    }
                })
            })
            .collect();
        resource_page(&children, request.cursor.as_deref())
    }
}

/// Why a skill breaks the Agent Skills specification's length rules as written, which
/// SEP-2640 requires of a served skill; its entry must carry the frontmatter verbatim,
/// so it cannot be shortened there (`skills validate` reports it).
fn over_spec_lengths(written: &JsonObject) -> Option<String> {
    use skills_runtime::parse::{MAX_SKILL_COMPATIBILITY_LENGTH, MAX_SKILL_DESCRIPTION_LENGTH};
    for (field, max) in [
        ("description", MAX_SKILL_DESCRIPTION_LENGTH),
        ("compatibility", MAX_SKILL_COMPATIBILITY_LENGTH),
    ] {
        if let Some(Value::String(text)) = written.get(field) {
            let chars = text.chars().count();
            if chars > max {
                return Some(format!(
                    "its {field} is {chars} characters, over the {max} the Agent Skills specification allows"
                ));
            }
        }
    }
    None
}

/// The frontmatter as the author wrote it (the SEP's rule: hosts compare it with the
/// served `SKILL.md`), except that `name` and `description` are the catalog's when the
/// written ones are not plain strings.
fn verbatim_frontmatter(skill: &SkillMetadata, written: &JsonObject) -> SkillFrontmatter {
    let text = |key: &str, fallback: &str| match written.get(key) {
        Some(Value::String(text)) if key != "name" || *text == skill.name => text.clone(),
        _ => fallback.to_owned(),
    };
    let mut out = SkillFrontmatter::new(text("name", &skill.name), text("description", &skill.description));
    for (key, value) in written
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "description"))
    {
        out = out.with_field(key.as_str(), value.clone());
    }
    out
}
