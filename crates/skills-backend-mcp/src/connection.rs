//! The MCP session a backend reads through: where the server is ([`McpTarget`]), the
//! connection (made on first use, made again after a failure, at most once per backoff
//! step), and the requests with their timeouts and bounds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientConfig, Implementation, PaginatedRequestParams, ReadResourceDirectoryRequestParams,
    ReadResourceRequestParams, ResourceContents, Skill,
};
use rmcp::model::{ProtocolVersion, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::sync::Notify;

use crate::target::McpTarget;

/// The first wait before connecting again after a failure; it doubles up to
/// [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
/// The longest wait before connecting again.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// The most pages of one `resources/directory/read`.
const MAX_DIRECTORY_PAGES: usize = 100;

/// Hears the server's list-changed notifications.
#[derive(Clone)]
pub(crate) struct Handler {
    pub(crate) changed: Arc<Notify>,
}

impl ClientHandler for Handler {
    fn on_resource_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        self.changed.notify_one();
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("skills-runtime", env!("CARGO_PKG_VERSION"));
        info
    }
}

/// A connected session, and the task that forwards its list-changed notifications on
/// a 2026-07-28 session (which sends them only on a `subscriptions/listen` stream).
pub(crate) struct Session {
    service: RunningService<RoleClient, Handler>,
    listen: Option<tokio::task::AbortHandle>,
}

impl Session {
    fn peer(&self) -> &rmcp::Peer<RoleClient> {
        self.service.peer()
    }

    fn is_closed(&self) -> bool {
        self.service.is_closed()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(listen) = &self.listen {
            listen.abort();
        }
    }
}

/// How a session starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum McpLifecycle {
    /// `server/discover` (protocol 2026-07-28) first, `initialize` for a server that does
    /// not know it (the default).
    #[default]
    Auto,
    /// `initialize` only (protocols before 2026-07-28).
    Initialize,
    /// `server/discover` only: a server that does not know it is an error.
    Discover,
}

impl McpLifecycle {
    fn mode(self) -> ClientLifecycleMode {
        let modern = vec![ProtocolVersion::V_2026_07_28];
        match self {
            Self::Auto => ClientLifecycleMode::Auto {
                preferred_versions: modern,
                legacy_version: None,
            },
            Self::Initialize => ClientLifecycleMode::Initialize,
            Self::Discover => ClientLifecycleMode::Discover {
                preferred_versions: modern,
            },
        }
    }
}

/// The connection of a backend and its clones.
#[derive(Clone)]
pub(crate) struct Connector {
    target: McpTarget,
    timeout: Duration,
    lifecycle: McpLifecycle,
    shared: Arc<Shared>,
}

struct Shared {
    session: tokio::sync::Mutex<Option<Arc<Session>>>,
    /// When a failed connection may be tried again, and the next wait.
    backoff: std::sync::Mutex<(Option<Instant>, Duration)>,
    changed: Arc<Notify>,
    /// The protocol version of the last session.
    protocol: std::sync::Mutex<Option<String>>,
}

impl Connector {
    pub(crate) fn new(target: McpTarget, timeout: Duration) -> Self {
        Self {
            target,
            timeout,
            lifecycle: McpLifecycle::Auto,
            shared: Arc::new(Shared {
                session: tokio::sync::Mutex::new(None),
                backoff: std::sync::Mutex::new((None, FIRST_BACKOFF)),
                changed: Arc::new(Notify::new()),
                protocol: std::sync::Mutex::new(None),
            }),
        }
    }

    pub(crate) fn with_timeout(&self, timeout: Duration) -> Self {
        Self {
            lifecycle: self.lifecycle,
            ..Self::new(self.target.clone(), timeout)
        }
    }

    pub(crate) fn with_lifecycle(&self, lifecycle: McpLifecycle) -> Self {
        Self {
            lifecycle,
            ..Self::new(self.target.clone(), self.timeout)
        }
    }

    /// The protocol version of the last session, once one was made.
    pub(crate) fn protocol(&self) -> Option<String> {
        self.shared
            .protocol
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn target(&self) -> &McpTarget {
        &self.target
    }

    /// Signalled when the server says its resources changed.
    pub(crate) fn changed(&self) -> Arc<Notify> {
        self.shared.changed.clone()
    }

    /// The session, connected if there is none (unless a failed attempt's backoff has
    /// not passed).
    async fn session(&self) -> Result<Arc<Session>, String> {
        let mut session = self.shared.session.lock().await;
        if let Some(open) = session.as_ref().filter(|s| !s.is_closed()) {
            return Ok(open.clone());
        }
        {
            let backoff = self
                .shared
                .backoff
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(not_before) = backoff.0
                && Instant::now() < not_before
            {
                return Err("not connected (waiting before trying again)".to_owned());
            }
        }
        match tokio::time::timeout(self.timeout, self.connect()).await {
            Ok(Ok(open)) => {
                let open = Arc::new(open);
                *session = Some(open.clone());
                *self
                    .shared
                    .backoff
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = (None, FIRST_BACKOFF);
                Ok(open)
            }
            failed => {
                let mut backoff = self
                    .shared
                    .backoff
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let wait = backoff.1;
                *backoff = (Some(Instant::now() + wait), (wait * 2).min(MAX_BACKOFF));
                *session = None;
                Err(match failed {
                    Ok(Err(message)) => message,
                    _ => format!("no answer to initialize within {:?}", self.timeout),
                })
            }
        }
    }

    async fn connect(&self) -> Result<Session, String> {
        let handler = Handler {
            changed: self.shared.changed.clone(),
        };
        let session = match &self.target {
            McpTarget::Http { url, token } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                if let Some(token) = token {
                    config = config.auth_header(token.clone());
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                handler
                    .serve_with_lifecycle(transport, self.lifecycle.mode())
                    .await
                    .map_err(|e| redact(crate::failure::why(&e), token))?
            }
            McpTarget::Stdio { command, args } => {
                let mut child = tokio::process::Command::new(command);
                child.args(args);
                let (transport, _stderr) = TokioChildProcess::builder(child)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map_err(|e| format!("cannot start `{command}`: {e}"))?;
                handler
                    .serve_with_lifecycle(transport, self.lifecycle.mode())
                    .await
                    .map_err(|e| crate::failure::why(&e))?
            }
        };
        let info = session.peer_info();
        if !info.as_ref().is_some_and(|info| info.capabilities.supports_skills()) {
            return Err("the server does not offer the skills extension (io.modelcontextprotocol/skills)".to_owned());
        }
        *self
            .shared
            .protocol
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            info.as_ref().map(|info| info.protocol_version.to_string());
        let modern = info.is_some_and(|info| info.protocol_version == ProtocolVersion::V_2026_07_28);
        let listen = modern.then(|| {
            let peer = session.peer().clone();
            let changed = self.shared.changed.clone();
            tokio::spawn(async move {
                let filter = SubscriptionFilter::builder().resources_list_changed().build();
                let Ok(mut subscription) = peer.listen(filter).await else {
                    return;
                };
                while let Ok(Some(_)) = subscription.next().await {
                    changed.notify_one();
                }
            })
            .abort_handle()
        });
        Ok(Session {
            service: session,
            listen,
        })
    }

    /// Forgets a session after a failure, so the next request connects again.
    async fn drop_session(&self) {
        *self.shared.session.lock().await = None;
    }

    /// Every page of `skills/list`, at most `max_pages` pages and `max_skills` skills,
    /// and the freshness the server gave the first page (`ttlMs`).
    pub(crate) async fn list_skills(
        &self,
        max_pages: usize,
        max_skills: usize,
    ) -> Result<(Vec<Skill>, Option<Duration>), String> {
        let session = self.session().await?;
        let mut skills = Vec::new();
        let mut cursor = None;
        let mut ttl = None;
        for page in 0..max_pages {
            let params = cursor
                .take()
                .map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
            let result = match tokio::time::timeout(self.timeout, session.peer().list_skills(params)).await {
                Ok(Ok(result)) => result,
                Ok(Err(error)) => {
                    self.drop_session().await;
                    return Err(format!("skills/list failed: {error}"));
                }
                Err(_) => {
                    self.drop_session().await;
                    return Err(format!("skills/list took longer than {:?}", self.timeout));
                }
            };
            if page == 0 {
                ttl = result.ttl_ms.map(Duration::from_millis);
            }
            skills.extend(result.skills);
            if skills.len() > max_skills {
                return Err(format!("the server lists more than {max_skills} skills"));
            }
            match result.next_cursor {
                Some(next) if !next.is_empty() => cursor = Some(next),
                _ => return Ok((skills, ttl)),
            }
        }
        Err(format!("skills/list goes on past {max_pages} pages"))
    }

    /// Whether the server serves `resources/directory/read`.
    pub(crate) async fn reads_directories(&self) -> bool {
        match self.session().await {
            Ok(session) => session
                .service
                .peer_info()
                .is_some_and(|info| info.capabilities.supports_directory_read()),
            Err(_) => false,
        }
    }

    /// The direct children of the directory resource `uri` (every page, at most
    /// `max_entries`): each one's URI, whether it is a directory, and its size if known.
    pub(crate) async fn read_directory(
        &self,
        uri: &str,
        max_entries: usize,
    ) -> Result<Vec<(String, bool, Option<u64>)>, String> {
        let session = self.session().await?;
        let mut entries = Vec::new();
        let mut cursor = None;
        for _ in 0..MAX_DIRECTORY_PAGES {
            let mut params = ReadResourceDirectoryRequestParams::new(uri);
            params.cursor = cursor.take();
            let request = session.peer().read_resource_directory(params);
            let result = match tokio::time::timeout(self.timeout, request).await {
                Ok(Ok(result)) => result,
                Ok(Err(error)) => return Err(format!("resources/directory/read failed: {error}")),
                Err(_) => return Err(format!("resources/directory/read took longer than {:?}", self.timeout)),
            };
            entries.extend(
                result
                    .resources
                    .into_iter()
                    .map(|r| (r.uri.clone(), r.is_directory(), r.size)),
            );
            if entries.len() > max_entries {
                return Err(format!("{uri} holds more than {max_entries} entries"));
            }
            match result.next_cursor {
                Some(next) if !next.is_empty() => cursor = Some(next),
                _ => return Ok(entries),
            }
        }
        Err(format!(
            "resources/directory/read of {uri} goes on past {MAX_DIRECTORY_PAGES} pages"
        ))
    }

    /// The bytes of the resource `uri`.
    pub(crate) async fn read(&self, uri: &str) -> Result<Vec<u8>, String> {
        let session = self.session().await?;
        let request = session.peer().read_resource(ReadResourceRequestParams::new(uri));
        let result = match tokio::time::timeout(self.timeout, request).await {
            Ok(Ok(result)) => result,
            Ok(Err(error)) => {
                if session.is_closed() {
                    self.drop_session().await;
                }
                return Err(format!("resources/read failed: {error}"));
            }
            Err(_) => return Err(format!("resources/read took longer than {:?}", self.timeout)),
        };
        let contents = result
            .contents
            .into_iter()
            .find(|c| content_uri(c) == uri)
            .ok_or_else(|| "the server answered with another resource".to_owned())?;
        match contents {
            ResourceContents::TextResourceContents { text, .. } => Ok(text.into_bytes()),
            ResourceContents::BlobResourceContents { blob, .. } => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| format!("the server's base64 is not valid: {e}")),
            _ => Err("resource contents of an unknown form".to_owned()),
        }
    }
}

fn content_uri(contents: &ResourceContents) -> &str {
    match contents {
        ResourceContents::TextResourceContents { uri, .. } | ResourceContents::BlobResourceContents { uri, .. } => uri,
        _ => "",
    }
}

/// `message` without the token, in case a transport error repeats a header.
fn redact(message: String, token: &Option<String>) -> String {
    match token.as_deref().filter(|t| !t.is_empty()) {
        Some(token) => message.replace(token, "[token]"),
        None => message,
    }
}
