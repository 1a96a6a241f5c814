//! `skills serve`: the skills of the sources over the Model Context Protocol, on stdio
//! or streamable HTTP bound to loopback, following the catalog as the sources change.

pub(crate) mod files;
mod instructions;
mod notify;
mod prompts;
mod resources;
mod server;
mod skills_ext;
mod tools;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

pub use server::SkillsServer;

use crate::cli::{BudgetArgs, EXIT_OK, SourceArgs};
use crate::library::Need;
use crate::output::print_diagnostics;

/// The path the streamable HTTP endpoint answers on.
pub const HTTP_PATH: &str = "/mcp";

/// How `skills serve` talks to its client.
#[derive(Debug, Clone, Copy)]
pub enum Transport {
    /// JSON-RPC on stdin and stdout (the client starts the server).
    Stdio,
    /// Streamable HTTP on this loopback address (port 0: any free port).
    Http(SocketAddr),
}

/// Runs the server until the client leaves (stdio) or the process is interrupted.
pub async fn serve(
    args: &SourceArgs,
    view: Option<&str>,
    transport: Transport,
    budget: BudgetArgs,
    instructions_budget: Option<usize>,
) -> anyhow::Result<ExitCode> {
    if let Transport::Http(addr) = transport {
        if !addr.ip().is_loopback() {
            bail!(
                "refusing to serve on {addr}: the server has no authentication, so it only binds to \
                 loopback addresses (127.0.0.1, ::1); put a proxy with authentication in front to share it"
            );
        }
    }
    // No spinner: a stdio client owns the terminal, if there is one.
    let library = crate::library::catalog(args, Need::Serve, true).await?;
    let budget = budget.budget(&library.prompt)?;
    let catalog = library.catalog.clone();
    let snapshot = catalog.snapshot();
    print_diagnostics(snapshot.diagnostics());
    let instructions_budget = instructions_budget.unwrap_or_else(|| library.serve.instructions_budget());
    let view = library.view(view)?;
    let server = SkillsServer::new(catalog.clone(), budget, instructions_budget, view);
    if let Some(selection) = server.selection(&snapshot) {
        crate::library::warn_view(&selection);
    }
    warm_up_in_background(&server, &catalog);
    let serving = serving(&snapshot, &server.unnamed(&snapshot));
    match transport {
        Transport::Stdio => {
            show_err!("{serving} over MCP on stdio");
            let running = server
                .serve(rmcp::transport::stdio())
                .await
                .context("the MCP client did not initialize")?;
            running.waiting().await.context("the MCP session failed")?;
        }
        Transport::Http(addr) => serve_http(server, addr, &serving).await?,
    }
    Ok(ExitCode::from(EXIT_OK))
}

/// What the session needs soon but the client should not wait for, one after another on
/// a task of its own, so that they do not take the cores from the client's first requests
/// (`initialize` needs the catalog only): the search index with every skill's instructions
/// (the first `search_skills`; from the persistent cache when warm), the resources the
/// `list_skills` list's full entries summarize (that tool lists them itself when asked
/// first), the heap's free memory given back, then the watch of the sources, which takes
/// a while on a large library (an inotify watch per folder: 1.3 s at 61,000 folders).
/// Once the watch is up, one reload catches what changed since discovery; the task is
/// held until the session ends.
fn warm_up_in_background(server: &SkillsServer, catalog: &std::sync::Arc<skills_runtime::SkillCatalog>) {
    let (server, catalog) = (server.clone(), catalog.clone());
    tokio::spawn(async move {
        catalog.prepare_search_off_thread().await;
        server.keep_list_fresh().await;
        // What discovery and the index's decoding freed goes back to the system here,
        // not before `initialize` is answered (10-15 ms at 40,000 skills).
        let _ = tokio::task::spawn_blocking(crate::heap::trim).await;
        let watching = catalog.clone();
        let watch = match watched(tokio::task::spawn_blocking(move || watching.watch()).await) {
            Ok(watch) => watch,
            Err(warning) => return warning.into_iter().for_each(|w| show_err!("{w}")),
        };
        for (i, reason) in watch.unwatched() {
            show_err!(
                "warning: source {} is not watched: {reason}",
                catalog.sources()[*i].label()
            );
        }
        catalog.reload().await;
        let _ = tokio::task::spawn_blocking(crate::heap::settle).await;
        std::future::pending::<()>().await;
        drop(watch);
    });
}

/// The watch the background task set up, or the warning to print when it could not
/// (none when the client left while it was being set up: the runtime is shutting down
/// and there is nothing left to watch for).
fn watched<T>(
    joined: Result<Result<T, skills_runtime::WatchError>, tokio::task::JoinError>,
) -> Result<T, Option<String>> {
    match joined {
        Ok(Ok(watch)) => Ok(watch),
        Ok(Err(error)) => Err(Some(format!("warning: the sources are not watched: {error}"))),
        Err(stopped) if stopped.is_cancelled() => Err(None),
        Err(_) => Err(Some("warning: the sources are not watched".to_owned())),
    }
}

type Body = BoxBody<Bytes, Infallible>;

/// `serving N skills`, and how many of them only the tools and prompts reach: a
/// `skill://` URI (the skills extension, resources) needs a name that follows the Agent
/// Skills naming rules, and titles such as `Daily Log` do not.
fn serving(snapshot: &skills_runtime::CatalogSnapshot, unnamed: &[usize]) -> String {
    let count = snapshot.skills().len();
    let skills = if count == 1 {
        "1 skill".to_owned()
    } else {
        format!("{count} skills")
    };
    match unnamed.first().map(|&i| &snapshot.skills()[i].name) {
        None => format!("serving {skills}"),
        Some(first) => format!(
            "serving {skills} ({} of them through tools and prompts only: names that are not valid skill \
             names, e.g. {first:?}; `skills validate --profile spec` names each one)",
            unnamed.len()
        ),
    }
}

async fn serve_http(server: SkillsServer, addr: SocketAddr, serving: &str) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let bound = listener.local_addr().context("cannot read the bound address")?;
    let stop = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_cancellation_token(stop.child_token());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        config,
    );
    show_err!("{serving} over MCP on http://{bound}{HTTP_PATH}");
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    show_err!("warning: cannot accept a connection: {error}");
                    continue;
                }
            },
            _ = tokio::signal::ctrl_c() => break,
        };
        let service = service.clone();
        let handler = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
            let service = service.clone();
            async move {
                let response: Response<Body> = if request.uri().path() == HTTP_PATH {
                    service.handle(request).await
                } else {
                    not_found()
                };
                Ok::<_, Infallible>(response)
            }
        });
        tokio::spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), handler);
            if let Err(error) = connection.await {
                tracing::debug!(%error, "MCP HTTP connection ended with an error");
            }
        });
    }
    stop.cancel();
    Ok(())
}

fn not_found() -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(b"not found; the MCP endpoint is /mcp\n")).boxed());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

#[cfg(test)]
mod tests {
    use super::watched;

    /// A client that leaves while the watch is being set up shuts the runtime down, which
    /// cancels the task setting it up: that is no failure to warn of. A watch that failed
    /// or panicked is.
    #[tokio::test]
    async fn a_watch_cancelled_by_the_shutdown_is_not_warned_of() {
        let cancelled = tokio::spawn(std::future::pending::<Result<(), skills_runtime::WatchError>>());
        cancelled.abort();
        assert_eq!(watched(cancelled.await), Err(None));

        let panicked = tokio::spawn(async { panic!("the watch panicked") });
        let warning = watched::<()>(panicked.await).unwrap_err().unwrap();
        assert_eq!(warning, "warning: the sources are not watched");

        let failed = watched::<()>(Ok(Err(skills_runtime::WatchError::NoRuntime)))
            .unwrap_err()
            .unwrap();
        assert!(failed.starts_with("warning: the sources are not watched: "), "{failed}");

        assert_eq!(watched(Ok(Ok(7))), Ok(7));
    }
}
