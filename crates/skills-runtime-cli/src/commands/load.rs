//! `skills load NAME`: what the `load_skill` tool answers a fresh thread.

use std::process::ExitCode;

use serde::Serialize;
use skills_runtime::{Invoker, LoadRequest, SkillArguments, load_skill_with};

use crate::cli::{EXIT_OK, EXIT_SOURCE_ERROR, SourceArgs};
use crate::library::{self, Need};
use crate::output::{print_diagnostics, print_diagnostics_about};

#[derive(Serialize)]
struct LoadJson<'a> {
    name: &'a str,
    status: &'static str,
    content: &'a str,
}

/// `skills load NAME [-- ARG...]`: the answer of loading the skill by a person, with
/// nothing loaded yet (errors read as a model would see them; a skill for people only
/// loads too), each argument substituted as given.
pub async fn load(args: &SourceArgs, name: &str, json: bool, arguments: Vec<String>) -> anyhow::Result<ExitCode> {
    let library = library::catalog(args, Need::Agent, json).await?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    // What the library says of other skills is counted, not listed: the answer is about
    // one skill. A skill that does not load gets everything, which may say why.
    match snapshot.get(name) {
        Some(skill) => print_diagnostics_about(snapshot.diagnostics(), &[skill.dir()]),
        None => print_diagnostics(snapshot.diagnostics()),
    }
    let arguments = (!arguments.is_empty()).then_some(SkillArguments::List(arguments));
    let request = LoadRequest::new(&[])
        .with_arguments(arguments.as_ref())
        .by(Invoker::User);
    let answer = load_skill_with(&snapshot, name, request).await;
    let ok = !answer.is_error();
    let content = answer.to_string();
    if json {
        let out = LoadJson {
            name,
            status: if ok { "success" } else { "error" },
            content: &content,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else if ok {
        // What a model reads, byte for byte, unless a person's terminal would obey it.
        println!("{}", crate::terminal::for_stdout(&content));
    } else {
        eprintln!("{}", crate::terminal::for_stderr(&content));
    }
    Ok(ExitCode::from(library.finish(if ok {
        EXIT_OK
    } else {
        EXIT_SOURCE_ERROR
    })))
}
