//! `skills list`: every skill of the sources, merged (the last source wins).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::{Read as _, Write};
use std::process::ExitCode;

use serde::Serialize;

use skills_runtime::resources::resources_from_entries;
use skills_runtime::{CatalogSnapshot, FileInfo, ResourceKind, ResourceMetadata};

use super::json_items::{ItemObject, write_json_items};
use super::{ShadowedJson, SkillJson, flags, shadowed_of};
use crate::cli::{EXIT_OK, SourceArgs};
use crate::library::{self, Need, Opened, write_view_warnings};
use crate::output::{shorten, write_diagnostics, write_table};

pub async fn list(specs: &SourceArgs, view: Option<&str>, json: bool, resources: bool) -> anyhow::Result<ExitCode> {
    // Resources are counted from each skill's folder, which the files' digests do not
    // cover: that listing is never kept.
    let library = if resources {
        library::catalog(specs, Need::Listing, json).await?
    } else {
        let question = format!("list\njson {json}\nview {view:?}");
        match library::catalog_or_answer(specs, Need::Listing, json, &question).await? {
            Opened::Answered(answer) => match replay(&answer)? {
                Some(code) => {
                    super::NOTHING_LEFT_TO_DO.store(true, std::sync::atomic::Ordering::Relaxed);
                    return Ok(code);
                }
                // Not an answer this build writes: the library is loaded after all.
                None => library::catalog(specs, Need::Listing, json).await?,
            },
            Opened::Library(library) => library,
        }
    };
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    // What goes to stderr is said before the list, whole (an answer keeps it first).
    let mut said = Vec::new();
    write_diagnostics(&mut said, snapshot.diagnostics());
    let selection = library.selection_unsaid(view)?;
    if let Some(selection) = &selection {
        write_view_warnings(&mut said, selection);
    }
    // The positions listed: every skill, or the view's.
    let shown: Vec<usize> = (0..snapshot.skills().len())
        .filter(|&i| {
            selection
                .as_ref()
                .is_none_or(|s| s.offers(&snapshot, &snapshot.skills()[i].name))
        })
        .collect();
    let counts: Option<Vec<ResourceCounts>> = if resources {
        Some(resource_counts(&snapshot).await)
    } else {
        None
    };
    if !json && shown.is_empty() {
        // An empty default chain was said in one line already.
        if catalog.sources().is_empty() {
            let _ = std::io::stderr().write_all(&said);
            return Ok(ExitCode::from(library.exit(EXIT_OK)));
        }
        let searched: Vec<_> = catalog.sources().iter().map(|s| s.location()).collect();
        let line = format!("no skills found in: {}", searched.join(", "));
        let _ = writeln!(said, "{}", crate::terminal::visible(&line));
    }
    let code = library.exit(EXIT_OK);
    let listed = Listed {
        snapshot: &snapshot,
        shown: &shown,
        counts: counts.as_deref(),
        json,
    };
    let kept = library.answer_writer().await;
    // Kept, the answer is written whole before it is printed, from the file written: a
    // closed pipe that ends the process while it prints leaves the answer whole.
    let printed = match kept {
        Some(mut writer) => {
            let head = answer_head(code, &said);
            writer.write_all(&head)?;
            listed.write(&mut writer)?;
            writer.finish().ok().map(|mut answer| {
                let _ = std::io::stderr().write_all(&said);
                // Past the head, to what was printed.
                std::io::copy(&mut (&mut answer).take(head.len() as u64), &mut std::io::sink())?;
                let mut out = std::io::stdout().lock();
                std::io::copy(&mut answer, &mut out).and_then(|_| out.flush())
            })
        }
        None => None,
    };
    match printed {
        Some(printed) => printed?,
        None => {
            let _ = std::io::stderr().write_all(&said);
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            listed.write(&mut out)?;
            out.flush()?;
        }
    }
    // The process ends with this command: freeing the library skill by skill (15 ms at
    // 10,000 skills, after the output) would only delay the exit.
    std::mem::forget((snapshot, catalog, library));
    Ok(ExitCode::from(code))
}

/// How an answer [`list`] keeps begins: its exit code, the length of what it said on
/// stderr (8 bytes, little-endian), and that; what it printed follows.
fn answer_head(code: u8, said: &[u8]) -> Vec<u8> {
    let mut head = Vec::with_capacity(9 + said.len());
    head.push(code);
    head.extend_from_slice(&(said.len() as u64).to_le_bytes());
    head.extend_from_slice(said);
    head
}

/// Prints an answer [`list`] kept (see [`answer_head`]): what it said on stderr, then
/// what it printed; its exit code. `None` for bytes that are not such an answer.
fn replay(answer: &[u8]) -> anyhow::Result<Option<ExitCode>> {
    let Some((&code, rest)) = answer.split_first() else {
        return Ok(None);
    };
    let Some((len, rest)) = rest.split_first_chunk::<8>() else {
        return Ok(None);
    };
    let Some((said, printed)) = usize::try_from(u64::from_le_bytes(*len))
        .ok()
        .and_then(|len| rest.split_at_checked(len))
    else {
        return Ok(None);
    };
    // A closed stderr is no reason to stop the command.
    let _ = std::io::stderr().write_all(said);
    let mut out = std::io::stdout().lock();
    out.write_all(printed)?;
    out.flush()?;
    Ok(Some(ExitCode::from(code)))
}

/// What `skills list` prints of a snapshot: the skills `shown` (positions), as JSON or
/// as a table, with their resource `counts` when counted.
struct Listed<'a> {
    snapshot: &'a CatalogSnapshot,
    shown: &'a [usize],
    counts: Option<&'a [ResourceCounts]>,
    json: bool,
}

impl Listed<'_> {
    fn write(&self, out: &mut impl Write) -> anyhow::Result<()> {
        let Self {
            snapshot,
            shown,
            counts,
            json,
        } = *self;
        let label = |name: &str| snapshot.source_for(name).map_or("", |s| s.label());
        let count = |i: usize| counts.and_then(|c| c.get(i).copied());
        let skills = snapshot.skills();
        if json {
            return write_json_items(out, shown.len(), |k, out| {
                let i = shown[k];
                ListJson {
                    skill: SkillJson::new(&skills[i], label(&skills[i].name)),
                    resources: count(i),
                    shadowed: shadowed_of(snapshot, &skills[i].name),
                }
                .write(out)
            });
        }
        if shown.is_empty() {
            return Ok(());
        }
        let row = |k: usize| {
            let i = shown[k];
            let skill = &skills[i];
            let mut source = Cow::Borrowed(label(&skill.name));
            let hidden = shadowed_of(snapshot, &skill.name);
            if !hidden.is_empty() {
                let hidden: Vec<_> = hidden.iter().map(|s| s.source).collect();
                source = Cow::Owned(format!("{source} (hides {})", hidden.join(", ")));
            }
            let mut row = vec![
                Cow::Borrowed(skill.name.as_str()),
                Cow::Owned(shorten(&skill.description, 60)),
            ];
            row.extend(count(i).map(|r| Cow::Owned(r.short())));
            row.extend([Cow::Owned(flags(skill).join(",")), source]);
            row
        };
        let header: &[&str] = if counts.is_some() {
            &["NAME", "DESCRIPTION", "RESOURCES", "FLAGS", "SOURCE"]
        } else {
            &["NAME", "DESCRIPTION", "FLAGS", "SOURCE"]
        };
        write_table(out, header, shown.len(), row)
    }
}

/// How many resources each skill of `snapshot` has, in its order; only the counts are
/// kept, so a large library costs no more memory than its skills. A source searched one
/// level deep (the default) is walked once, three levels down: one listing on object
/// stores, the same folders on disk. Deeper sources have their skill folders walked
/// [`WALKS_AT_ONCE`] at a time with one `walk_each`.
async fn resource_counts(snapshot: &CatalogSnapshot) -> Vec<ResourceCounts> {
    let mut shallow: Vec<Option<Vec<FileInfo>>> = Vec::with_capacity(snapshot.sources().len());
    for source in snapshot.sources() {
        let walked = if source.depth() <= 1 {
            source.backend().walk(source.path(), 3).await.ok().map(|w| w.entries)
        } else {
            None
        };
        shallow.push(walked);
    }
    let skills = snapshot.skills();
    let mut counts = vec![ResourceCounts::default(); skills.len()];
    // Skill folders of deeper sources, by source: (skill's position, folder).
    let mut deep: BTreeMap<usize, Vec<(usize, &str)>> = BTreeMap::new();
    for (at, skill) in skills.iter().enumerate() {
        let Some(index) = snapshot.source_of(&skill.name) else {
            continue;
        };
        let dir = skill.dir();
        match shallow.get(index) {
            Some(Some(entries)) => {
                // Entries are sorted by path: the folder's are one run of them.
                let start = format!("{dir}/");
                let from = entries.partition_point(|e| e.path.as_str() < start.as_str());
                let end = from + entries[from..].partition_point(|e| e.path.starts_with(&start));
                counts[at] = ResourceCounts::of(&resources_from_entries(dir, &skill.name, &entries[from..end]));
            }
            _ => deep.entry(index).or_default().push((at, dir)),
        }
    }
    for (index, folders) in deep {
        let backend = snapshot.sources()[index].backend();
        for batch in folders.chunks(WALKS_AT_ONCE) {
            let dirs: Vec<String> = batch.iter().map(|(_, dir)| (*dir).to_owned()).collect();
            for (&(at, dir), walk) in batch.iter().zip(backend.walk_each(&dirs, 2).await) {
                if let Ok(walk) = walk {
                    counts[at] = ResourceCounts::of(&resources_from_entries(dir, &skills[at].name, &walk.entries));
                }
            }
        }
    }
    counts
}

/// How many skill folders of a deep source one `walk_each` covers: their entries are
/// held until counted.
const WALKS_AT_ONCE: usize = 512;

/// A skill as `list --json` prints it: with the copies it hides.
#[derive(Serialize)]
struct ListJson<'a> {
    #[serde(flatten)]
    skill: SkillJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<ResourceCounts>,
    shadowed: Vec<ShadowedJson<'a>>,
}

impl ListJson<'_> {
    /// The item as its `Serialize` writes it one level into a list, field by field
    /// ([`ItemObject`]).
    fn write(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let mut item = ItemObject::begin(out);
        self.skill.write_fields(&mut item)?;
        if let Some(resources) = &self.resources {
            item.value("resources", resources)?;
        }
        item.value("shadowed", &self.shadowed)?;
        item.end();
        Ok(())
    }
}

/// How many resource files of each kind a skill has.
#[derive(Serialize, Default, Clone, Copy)]
struct ResourceCounts {
    scripts: usize,
    references: usize,
    assets: usize,
    other: usize,
}

impl ResourceCounts {
    fn of(resources: &[ResourceMetadata]) -> Self {
        let mut counts = Self::default();
        for resource in resources {
            *match resource.kind {
                ResourceKind::Script => &mut counts.scripts,
                ResourceKind::Reference => &mut counts.references,
                ResourceKind::Asset => &mut counts.assets,
                ResourceKind::Other => &mut counts.other,
            } += 1;
        }
        counts
    }

    /// `2s 1r 1a 1o` (scripts, references, assets, other files), the kinds it has;
    /// `-` for none.
    fn short(&self) -> String {
        let parts: Vec<String> = [
            (self.scripts, 's'),
            (self.references, 'r'),
            (self.assets, 'a'),
            (self.other, 'o'),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, kind)| format!("{n}{kind}"))
        .collect();
        if parts.is_empty() {
            "-".to_owned()
        } else {
            parts.join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use skills_runtime::parse_skill_md;

    use super::*;

    /// A skill parsed from `skill_md`, as `list` would have it.
    fn skill(skill_md: &str) -> skills_runtime::SkillMetadata {
        let outcome = parse_skill_md(skill_md.as_bytes(), "/lib/x/SKILL.md", "x");
        outcome.skill.unwrap_or_else(|| panic!("{:?}", outcome.diagnostics))
    }

    #[test]
    fn an_item_is_written_as_its_serialize_writes_it() {
        let skills = [
            skill("---\nname: x\ndescription: Does x.\n---\n"),
            skill(concat!(
                "---\nname: x\ndescription: \"Quotes \\\" and a\\nline, a tab\\t, \\x01, \\\\ and 中文 😀\"\n",
                "license: MIT\ncompatibility: \"Needs \\\"git\\\"\"\n",
                "metadata:\n  author: \"A \\\"B\\\"\"\n  version: \"1.0\"\n",
                "allowed-tools: Read Bash(git:*)\n",
                "disable-model-invocation: true\nargument-hint: \"[env]\"\nmodel: fast\ncontext: fork\n",
                "---\nBody.\n",
            )),
            skill("---\nname: x\ndescription: For the model.\nuser-invocable: false\nmetadata: {}\n---\n"),
        ];
        let shadowed = [
            Vec::new(),
            vec![ShadowedJson {
                source: "team \"a\"",
                path: "/team/x/SKILL.md",
            }],
        ];
        let resources = [
            None,
            Some(ResourceCounts {
                scripts: 2,
                references: 1,
                assets: 0,
                other: 3,
            }),
        ];
        for skill in &skills {
            for shadowed in &shadowed {
                for resources in resources {
                    let item = ListJson {
                        skill: SkillJson::new(skill, "project\tlabel"),
                        resources,
                        shadowed: shadowed.iter().map(|s| ShadowedJson { ..*s }).collect(),
                    };
                    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                    item.write(&mut ours).unwrap_or_else(|e| panic!("{e}"));
                    super::super::json_items::serde_item(&mut theirs, &item).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&theirs));
                }
            }
        }
        // The second skill has every field the hand-written path writes itself.
        let full = SkillJson::new(&skills[1], "p");
        assert!(full.license.is_some() && full.compatibility.is_some() && full.extensions.is_some());
        assert!(!full.metadata.is_empty() && !full.allowed_tools.is_empty());
    }
}
