//! Why an MCP session could not be set up, in words for people: rmcp's own message for a
//! transport error names the transport's Rust type (`WorkerTransport<...>`), and stops
//! before the cause that says what happened (a refused connection, an unknown host).

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;
use skills_core::with_cause;

/// What setting up a session failed on: for a transport error, its message and the
/// innermost cause it wraps; for a failed fallback, what the first attempt failed on;
/// rmcp's message otherwise.
pub(crate) fn why(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::TransportError { error, .. } => {
            // The HTTP client's error is held, not chained as a source.
            match error.error.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
                Some(StreamableHttpError::Client(client)) => with_cause(client),
                _ => with_cause(&*error.error),
            }
        }
        ClientInitializeError::LegacyFallbackFailed { discover, .. } => why(discover),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{StreamableHttpError, why};

    use rmcp::service::ClientInitializeError;
    use rmcp::transport::DynamicTransportError;

    /// A transport error wrapping another, as reqwest wraps the refused connection.
    #[derive(Debug)]
    struct Sending(std::io::Error);

    impl std::fmt::Display for Sending {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("error sending request for url (http://127.0.0.1:9/)")
        }
    }

    impl std::error::Error for Sending {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn transport(error: Box<dyn std::error::Error + Send + Sync>) -> ClientInitializeError {
        let name = "rmcp::transport::worker::WorkerTransport<Client>";
        ClientInitializeError::TransportError {
            error: DynamicTransportError::from_parts(name, std::any::TypeId::of::<()>(), error),
            context: "send discover request".into(),
        }
    }

    /// The message says what happened, in the words of the innermost cause, and names
    /// no Rust type; a failed fallback says what the first attempt failed on.
    #[test]
    fn a_failed_session_says_its_cause_without_type_names() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused");
        let error = transport(Box::new(Sending(refused)));
        assert!(error.to_string().contains("WorkerTransport"), "{error}");
        let said = why(&error);
        assert_eq!(
            said,
            "error sending request for url (http://127.0.0.1:9/): Connection refused"
        );

        let fallback = ClientInitializeError::LegacyFallbackFailed {
            discover: Box::new(error),
            fallback: Box::new(ClientInitializeError::ConnectionClosed("eof".into())),
        };
        assert_eq!(why(&fallback), said);

        // No deeper cause: the transport's message alone.
        let plain = transport("the server answered 404".into());
        assert_eq!(why(&plain), "the server answered 404");
        let closed = ClientInitializeError::ConnectionClosed("eof".into());
        assert_eq!(why(&closed), closed.to_string());
    }

    /// The HTTP client's own error, which the streamable HTTP transport holds without
    /// chaining it, is read to its cause: a real request to a loopback port nobody
    /// listens on.
    #[tokio::test]
    async fn a_refused_http_connection_says_so() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("http://127.0.0.1:{port}/");
        let refused = reqwest::Client::new().get(&url).send().await.unwrap_err();
        let error = transport(Box::new(StreamableHttpError::Client(refused)));
        let said = why(&error);
        assert!(
            said.starts_with(&format!("error sending request for url ({url})")),
            "{said}"
        );
        assert!(said.to_lowercase().contains("refused"), "{said}");
        assert!(!said.contains("rmcp::"), "{said}");
    }
}
