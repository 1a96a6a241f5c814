//! The one place YAML is read.
//!
//! Frontmatter is parsed from the event stream of `saphyr-parser` into a small tree that
//! keeps every scalar's source text. serde-based YAML crates resolve `1.10` to the float
//! `1.1` before any caller sees it, which would break the rule that frontmatter values
//! keep their YAML text. Building the tree ourselves also puts the hostile-input limits
//! (nesting depth, alias expansion, duplicate keys) in one visible place.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;

use saphyr_parser::{Event, Parser};

use crate::forgive;

#[path = "yaml_resolve.rs"]
mod resolve;
use resolve::{is_null, resolve_plain, resolve_scalar};
#[path = "yaml_text.rs"]
mod text;
use text::write_flow;
pub(crate) use text::write_quoted;

/// Deepest nesting of sequences and mappings accepted in frontmatter.
const MAX_DEPTH: usize = 64;

/// Most nodes one document may produce, counting every alias expansion; this is what
/// stops "billion laughs" documents.
const MAX_NODES: usize = 100_000;

/// A parsed YAML node, borrowing its scalars' text from the document where it can.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Yaml<'a> {
    /// `~`, `null`, or an empty value.
    Null,
    /// Any other scalar, with its source text and resolved type.
    Scalar(Scalar<'a>),
    /// A sequence.
    Seq(Vec<Yaml<'a>>),
    /// A mapping, in source order.
    Map(Vec<(Yaml<'a>, Yaml<'a>)>),
}

/// A scalar with the exact text it was written with: a slice of the document, or its
/// own text when reading it changed it (escapes, folded lines).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scalar<'a> {
    pub text: Cow<'a, str>,
    pub kind: ScalarKind,
}

/// The type a scalar resolves to under the YAML 1.2 core schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScalarKind {
    Str,
    Bool,
    Int,
    Float,
}

impl<'a> Yaml<'a> {
    /// A short name of the node's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Yaml::Null => "null",
            Yaml::Scalar(s) => match s.kind {
                ScalarKind::Str => "string",
                ScalarKind::Bool => "boolean",
                ScalarKind::Int => "integer",
                ScalarKind::Float => "float",
            },
            Yaml::Seq(_) => "sequence",
            Yaml::Map(_) => "mapping",
        }
    }

    /// [`to_text`](Self::to_text), taking a scalar's text rather than copying it when
    /// the scalar holds its own.
    pub fn into_text(self) -> String {
        self.into_cow().into_owned()
    }

    /// [`into_text`](Self::into_text), still borrowing a scalar's text from the
    /// document.
    pub fn into_cow(self) -> Cow<'a, str> {
        match self {
            Yaml::Scalar(s) => s.text,
            other => Cow::Owned(other.to_text()),
        }
    }

    /// The node with every text its own, free of the document.
    pub fn into_owned(self) -> Yaml<'static> {
        match self {
            Yaml::Null => Yaml::Null,
            Yaml::Scalar(s) => Yaml::Scalar(Scalar {
                text: Cow::Owned(s.text.into_owned()),
                kind: s.kind,
            }),
            Yaml::Seq(items) => Yaml::Seq(items.into_iter().map(Yaml::into_owned).collect()),
            Yaml::Map(entries) => Yaml::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect(),
            ),
        }
    }

    /// The node as YAML text: a scalar's source text, `""` for null, flow style for
    /// collections.
    pub fn to_text(&self) -> String {
        match self {
            Yaml::Null => String::new(),
            Yaml::Scalar(s) => s.text.to_string(),
            Yaml::Seq(_) | Yaml::Map(_) => {
                let mut out = String::new();
                write_flow(self, &mut out);
                out
            }
        }
    }
}

/// A string scalar holding `text`.
pub(crate) fn text_scalar(text: String) -> Yaml<'static> {
    Yaml::Scalar(Scalar {
        text: Cow::Owned(text),
        kind: ScalarKind::Str,
    })
}

/// Why a document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlError(String);

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

enum Frame<'a> {
    Seq {
        items: Vec<Yaml<'a>>,
        anchor: usize,
        nodes: usize,
    },
    Map {
        entries: Vec<(Yaml<'a>, Yaml<'a>)>,
        key: Option<Yaml<'a>>,
        /// The keys so far, once there are [`LINEAR_KEYS`] (see [`repeats`]).
        seen: Option<HashSet<String>>,
        anchor: usize,
        nodes: usize,
    },
}

/// Parses one YAML document. An empty document is [`Yaml::Null`].
pub(crate) fn parse(src: &str) -> Result<Yaml<'_>, YamlError> {
    parse_lenient(src).map(|lenient| lenient.yaml)
}

/// [`parse`] without the repairs of what libyaml forgives: the document as a strict
/// YAML 1.2 reader (a host checking a served `SKILL.md`) reads it, or an error.
pub(crate) fn parse_strict(src: &str) -> Result<Yaml<'_>, YamlError> {
    parse_events(src).map(|(yaml, _)| yaml).map_err(|failure| failure.error)
}

/// Most repairs one document may need before its first error is the answer: each is a
/// parse of the whole frontmatter.
const MAX_REPAIRS: usize = 64;

/// A document read as libyaml reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lenient<'a> {
    /// The document.
    pub yaml: Yaml<'a>,
    /// Keys that appeared more than once in a mapping (the last one is kept, as PyYAML).
    pub duplicates: Vec<String>,
    /// What was repaired to read it (see [`forgive`](crate::forgive)), one note per
    /// repair, in the order made.
    pub repairs: Vec<String>,
}

/// [`parse`], forgiving what libyaml forgives (see [`forgive`](crate::forgive)).
pub(crate) fn parse_lenient(src: &str) -> Result<Lenient<'_>, YamlError> {
    let Failure { error, mut scan } = match parse_events(src) {
        Ok((yaml, duplicates)) => {
            return Ok(Lenient {
                yaml,
                duplicates,
                repairs: Vec::new(),
            });
        }
        Err(failure) => failure,
    };
    // Each repair is a new text, so what is read from it is its own.
    let mut text = Cow::Borrowed(src);
    let mut repairs: Vec<String> = Vec::new();
    loop {
        let repair = scan
            .filter(|_| repairs.len() < MAX_REPAIRS)
            .and_then(|(info, at)| forgive::repair(&text, &info, at));
        let Some(repair) = repair else {
            return Err(error);
        };
        repairs.push(repair.note);
        text = Cow::Owned(repair.text);
        match parse_events(&text) {
            Ok((yaml, duplicates)) => {
                repairs.dedup();
                return Ok(Lenient {
                    yaml: yaml.into_owned(),
                    duplicates,
                    repairs,
                });
            }
            Err(failure) => scan = failure.scan,
        }
    }
}

/// Why [`parse_events`] stopped.
struct Failure {
    error: YamlError,
    /// For a scanner error, its message and the character it stopped at.
    scan: Option<(String, usize)>,
}

impl From<YamlError> for Failure {
    fn from(error: YamlError) -> Self {
        Failure { error, scan: None }
    }
}

/// Parses `src`: through [`yaml_simple`](crate::yaml_simple) when it has the common
/// shape, else through the general parser.
fn parse_events(src: &str) -> Result<(Yaml<'_>, Vec<String>), Failure> {
    let mut events = relabel(EVENTS.with_borrow_mut(std::mem::take));
    let simple = crate::yaml_simple::events_into(src, &mut events);
    let parsed = match simple {
        Some(()) => build(events.drain(..).map(Ok)),
        None => general(src),
    };
    // A frontmatter of thousands of lines does not keep its vector.
    if events.capacity() <= KEPT_EVENTS {
        EVENTS.with_borrow_mut(|kept| *kept = relabel(events));
    }
    parsed
}

thread_local! {
    /// The events' vector of [`parse_events`], kept empty between parses: a
    /// frontmatter's few dozen events take kilobytes, past the allocator's small-block
    /// caches.
    static EVENTS: std::cell::RefCell<Vec<Event<'static>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The largest events' vector a thread keeps between parses.
const KEPT_EVENTS: usize = 1024;

/// `events`, emptied, as a vector of events of another text: the same allocation (an
/// empty vector holds no event to outlive its text).
#[allow(clippy::unnecessary_filter_map)] // The empty map keeps the allocation in place.
fn relabel<'b>(mut events: Vec<Event<'_>>) -> Vec<Event<'b>> {
    events.clear();
    events.into_iter().filter_map(|_| None).collect()
}

/// Parses `src` through [`yaml_simple`](crate::yaml_simple) only: `None` when it does
/// not have the common shape.
#[cfg(test)]
fn parse_simple(src: &str) -> Option<Result<Yaml<'_>, YamlError>> {
    let events = crate::yaml_simple::events(src)?;
    Some(
        build(events.into_iter().map(Ok))
            .map(|(yaml, _)| yaml)
            .map_err(|f| f.error),
    )
}

/// [`parse_strict`] through the general parser only.
#[cfg(test)]
fn parse_general(src: &str) -> Result<Yaml<'_>, YamlError> {
    general(src).map(|(yaml, _)| yaml).map_err(|f| f.error)
}

/// Parses `src` with the general parser.
fn general(src: &str) -> Result<(Yaml<'_>, Vec<String>), Failure> {
    build(Parser::new_from_str(src).map(|next| {
        next.map(|(event, _span)| event).map_err(|e| Failure {
            error: YamlError(e.to_string()),
            scan: Some((e.info().to_owned(), e.marker().index())),
        })
    }))
}

/// The tree and the duplicated keys of one YAML event stream.
fn build<'a>(events: impl Iterator<Item = Result<Event<'a>, Failure>>) -> Result<(Yaml<'a>, Vec<String>), Failure> {
    let mut duplicates = Vec::new();
    let mut stack: Vec<Frame<'a>> = Vec::new();
    let mut anchors: HashMap<usize, (Yaml<'a>, usize)> = HashMap::new();
    let mut root: Option<Yaml<'a>> = None;
    let mut documents = 0usize;
    let mut budget = MAX_NODES;

    for next in events {
        let event = next?;
        let (node, nodes, anchor) = match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError("more than one YAML document".into()).into());
                }
                continue;
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {
                continue;
            }
            Event::Alias(id) => {
                let (node, nodes) = anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| YamlError("alias to an unknown anchor".into()))?;
                spend(&mut budget, nodes)?;
                (node, nodes, 0)
            }
            Event::Scalar(value, style, anchor, tag) => {
                spend(&mut budget, 1)?;
                let core_tag = tag
                    .as_ref()
                    .map(|t| t.is_yaml_core_schema().then_some(t.suffix.as_str()));
                (resolve_scalar(value, style, core_tag), 1, anchor)
            }
            Event::SequenceStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(YamlError(format!("nesting deeper than {MAX_DEPTH} levels")).into());
                }
                spend(&mut budget, 1)?;
                stack.push(Frame::Seq {
                    items: Vec::new(),
                    anchor,
                    nodes: 1,
                });
                continue;
            }
            Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(YamlError(format!("nesting deeper than {MAX_DEPTH} levels")).into());
                }
                spend(&mut budget, 1)?;
                stack.push(Frame::Map {
                    entries: Vec::new(),
                    key: None,
                    seen: None,
                    anchor,
                    nodes: 1,
                });
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq { items, anchor, nodes }) => (Yaml::Seq(items), nodes, anchor),
                _ => return Err(YamlError("unbalanced sequence end".into()).into()),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map {
                    entries, anchor, nodes, ..
                }) => (Yaml::Map(entries), nodes, anchor),
                _ => return Err(YamlError("unbalanced mapping end".into()).into()),
            },
        };

        if anchor != 0 {
            anchors.insert(anchor, (node.clone(), nodes));
        }
        match stack.last_mut() {
            None => {
                if root.is_some() {
                    return Err(YamlError("more than one YAML document".into()).into());
                }
                root = Some(node);
            }
            Some(Frame::Seq { items, nodes: n, .. }) => {
                items.push(node);
                *n = n.saturating_add(nodes);
            }
            Some(Frame::Map {
                entries,
                key,
                seen,
                nodes: n,
                ..
            }) => {
                *n = n.saturating_add(nodes);
                match key.take() {
                    None => {
                        if let Yaml::Scalar(s) = &node {
                            if repeats(entries, seen, &s.text) {
                                // The last one wins, as in PyYAML: drop the earlier pair.
                                entries.retain(|(k, _)| !matches!(k, Yaml::Scalar(earlier) if earlier.text == s.text));
                                duplicates.push(s.text.to_string());
                            }
                        }
                        *key = Some(node);
                    }
                    Some(k) => entries.push((k, node)),
                }
            }
        }
    }
    Ok((root.unwrap_or(Yaml::Null), duplicates))
}

/// From how many keys a mapping's keys are kept in a set to find repeated ones.
const LINEAR_KEYS: usize = 16;
/// Whether `text` is already a key of `entries` (a mapping being built; searched in
/// place below [`LINEAR_KEYS`] keys, then in `seen`); `text` counts as seen afterwards.
fn repeats(entries: &[(Yaml<'_>, Yaml<'_>)], seen: &mut Option<HashSet<String>>, text: &str) -> bool {
    fn key_text<'k>((key, _): &'k (Yaml<'_>, Yaml<'_>)) -> Option<&'k str> {
        match key {
            Yaml::Scalar(scalar) => Some(&scalar.text),
            _ => None,
        }
    }
    if seen.is_none() && entries.len() < LINEAR_KEYS {
        return entries.iter().any(|entry| key_text(entry) == Some(text));
    }
    let seen = seen.get_or_insert_with(|| entries.iter().filter_map(key_text).map(str::to_owned).collect());
    !seen.insert(text.to_owned())
}

/// Takes `nodes` from the document's node budget.
fn spend(budget: &mut usize, nodes: usize) -> Result<(), YamlError> {
    *budget = budget
        .checked_sub(nodes)
        .ok_or_else(|| YamlError("repetition limit exceeded".into()))?;
    Ok(())
}

#[cfg(test)]
#[path = "yaml_tests.rs"]
mod tests;
