//! S3: `s3://bucket/prefix` locations and a builder that reads the `AWS_*` environment.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::client::HttpConnector;
use object_store::{BackoffConfig, ClientConfigKey, RetryConfig};
use skills_core::path;

use crate::backend::ObjectStoreBackend;

/// Request timeout applied unless `AWS_TIMEOUT` or [`S3BackendBuilder::timeout`] sets one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Connect timeout applied unless `AWS_CONNECT_TIMEOUT` or
/// [`S3BackendBuilder::connect_timeout`] sets one.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why an S3 backend could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum S3Error {
    /// The location is not `s3://bucket[/prefix]`.
    #[error("invalid S3 location {url:?}: {reason}")]
    InvalidUrl {
        /// The location as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The client could not be configured (bad endpoint, bad option value).
    #[error("cannot configure S3 client for {location}: {message}")]
    Config {
        /// `s3://bucket/prefix`.
        location: String,
        /// The client's explanation.
        message: String,
    },
}

/// A parsed `s3://bucket/prefix` location.
///
/// ```
/// use skills_backend_s3::S3Location;
/// let location: S3Location = "s3://team-skills/library/".parse().unwrap();
/// assert_eq!(location.bucket(), "team-skills");
/// assert_eq!(location.prefix(), "library");
/// assert_eq!(location.to_string(), "s3://team-skills/library");
/// assert!("s3://Bad_Bucket".parse::<S3Location>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct S3Location {
    bucket: String,
    prefix: String,
}

impl S3Location {
    /// The bucket name.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// The key prefix (no leading or trailing `/`; empty for the whole bucket).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

impl FromStr for S3Location {
    type Err = S3Error;

    fn from_str(url: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: &str| S3Error::InvalidUrl {
            url: url.to_owned(),
            reason: reason.to_owned(),
        };
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| invalid("expected s3://bucket/prefix"))?;
        if rest.contains(['?', '#']) {
            return Err(invalid("query strings and fragments are not supported"));
        }
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let bucket_ok = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
            && bucket.starts_with(|c: char| c.is_ascii_alphanumeric())
            && bucket.ends_with(|c: char| c.is_ascii_alphanumeric());
        if !bucket_ok {
            return Err(invalid(
                "a bucket name is 3-63 lowercase letters, digits, dots and hyphens",
            ));
        }
        let prefix = path::normalize(&format!("/{prefix}")).map_err(|e| invalid(&e.to_string()))?;
        Ok(Self {
            bucket: bucket.to_owned(),
            prefix: prefix.trim_start_matches('/').to_owned(),
        })
    }
}

impl fmt::Display for S3Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s3://{}", self.bucket)?;
        if !self.prefix.is_empty() {
            write!(f, "/{}", self.prefix)?;
        }
        Ok(())
    }
}

/// Builds an [`ObjectStoreBackend`] on S3 or an S3-compatible server.
///
/// [`new`](Self::new) starts from the environment, as the AWS tools do:
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` /
/// `AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` (an S3-compatible server), `AWS_ALLOW_HTTP`,
/// `AWS_SKIP_SIGNATURE` (public buckets), `AWS_TIMEOUT`, `AWS_CONNECT_TIMEOUT`, and the
/// container and web-identity credential variables. Methods override the environment.
/// A plain-`http://` endpoint on a loopback address (`127.0.0.1`, `localhost`, `[::1]`)
/// is allowed without `AWS_ALLOW_HTTP`; any other needs it.
///
/// Credentials never appear in `Debug`, `Display` or error messages.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use skills_backend_s3::S3BackendBuilder;
/// use skills_core::BackendProtocol;
///
/// let backend = S3BackendBuilder::new("s3://team-skills/library")?
///     .endpoint("http://127.0.0.1:9000")
///     .build()?;
/// for entry in backend.ls_info("/").await? {
///     println!("{}", entry.path);
/// }
/// # Ok(()) }
/// ```
pub struct S3BackendBuilder {
    location: S3Location,
    inner: AmazonS3Builder,
    retry: RetryConfig,
    /// Set by [`allow_http`](Self::allow_http); `None` leaves it to the environment and
    /// the loopback rule.
    allow_http: Option<bool>,
}

impl S3BackendBuilder {
    /// Parses `s3://bucket[/prefix]` and reads the `AWS_*` environment.
    pub fn new(url: &str) -> Result<Self, S3Error> {
        Ok(Self::from_location(url.parse()?, AmazonS3Builder::from_env()))
    }

    /// Starts from a location and an `object_store` builder of your own (for settings
    /// this builder does not name); the bucket is set from the location.
    pub fn from_location(location: S3Location, inner: AmazonS3Builder) -> Self {
        Self {
            inner: inner.with_bucket_name(location.bucket()),
            location,
            retry: default_retry(),
            allow_http: None,
        }
    }

    /// The location being built.
    pub fn location(&self) -> &S3Location {
        &self.location
    }

    /// The server to talk to instead of AWS (`http://127.0.0.1:9000`); requests then use
    /// path-style addressing.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.inner = self.inner.with_endpoint(url);
        self
    }

    /// Allows plain-HTTP endpoints (off by default except on loopback addresses).
    pub fn allow_http(mut self, allow: bool) -> Self {
        self.inner = self.inner.with_allow_http(allow);
        self.allow_http = Some(allow);
        self
    }

    /// The bucket's region (default: `us-east-1`, or the environment's).
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.inner = self.inner.with_region(region);
        self
    }

    /// Static credentials instead of the environment's.
    pub fn credentials(mut self, access_key_id: impl Into<String>, secret_access_key: impl Into<String>) -> Self {
        self.inner = self
            .inner
            .with_access_key_id(access_key_id)
            .with_secret_access_key(secret_access_key);
        self
    }

    /// Sends unsigned requests (public buckets).
    pub fn anonymous(mut self) -> Self {
        self.inner = self.inner.with_skip_signature(true);
        self
    }

    /// Retries with backoff for transient errors (default: 3 retries within 20 s,
    /// backoff from 100 ms doubling up to 5 s).
    pub fn retry(mut self, retry: RetryConfig) -> Self {
        self.retry = retry;
        self
    }

    /// Timeout of a whole request (default [`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.inner = self
            .inner
            .with_config(client_key(ClientConfigKey::Timeout), fmt_secs(timeout));
        self
    }

    /// Timeout of connecting (default [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.inner = self
            .inner
            .with_config(client_key(ClientConfigKey::ConnectTimeout), fmt_secs(timeout));
        self
    }

    /// The HTTP client to use (a proxy, custom TLS, request metrics).
    pub fn http_connector(mut self, connector: impl HttpConnector) -> Self {
        self.inner = self.inner.with_http_connector(connector);
        self
    }

    /// Builds the backend. No request is sent: a wrong bucket or bad credentials show up
    /// as errors of the first listing. Settings of the backend itself (concurrency, poll
    /// interval, size limit) are its `with_*` methods:
    ///
    /// ```
    /// use std::time::Duration;
    /// use skills_backend_s3::S3BackendBuilder;
    /// let backend = S3BackendBuilder::new("s3://team-skills/library")?
    ///     .build()?
    ///     .with_concurrency(8)
    ///     .with_poll_interval(Duration::from_secs(60));
    /// # Ok::<(), skills_backend_s3::S3Error>(())
    /// ```
    pub fn build(self) -> Result<ObjectStoreBackend, S3Error> {
        let location = self.location.to_string();
        let config_error = |message: String| S3Error::Config {
            location: location.clone(),
            message,
        };
        let mut inner = self.inner.with_retry(self.retry);
        if let Some(endpoint) = inner.get_config_value(&AmazonS3ConfigKey::Endpoint) {
            let allowed = inner
                .get_config_value(&client_key(ClientConfigKey::AllowHttp))
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            if endpoint.starts_with("http://") && !allowed {
                let decided = self.allow_http.is_some() || std::env::var_os("AWS_ALLOW_HTTP").is_some();
                if !decided && is_loopback_http(&endpoint) {
                    inner = inner.with_allow_http(true);
                } else {
                    return Err(config_error(format!(
                        "the endpoint {endpoint} is plain HTTP: allow it with AWS_ALLOW_HTTP=true \
                         (or S3BackendBuilder::allow_http)"
                    )));
                }
            }
        }
        for (key, default) in [
            (ClientConfigKey::Timeout, DEFAULT_TIMEOUT),
            (ClientConfigKey::ConnectTimeout, DEFAULT_CONNECT_TIMEOUT),
        ] {
            if inner.get_config_value(&client_key(key)).is_none() {
                inner = inner.with_config(client_key(key), fmt_secs(default));
            }
        }
        let store = inner.build().map_err(|e| config_error(e.to_string()))?;
        let backend = ObjectStoreBackend::new(Arc::new(store))
            .with_prefix(self.location.prefix())
            .map_err(|e| config_error(e.to_string()))?;
        Ok(backend.with_name(location))
    }
}

impl fmt::Debug for S3BackendBuilder {
    /// Location and endpoint only: never the credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3BackendBuilder")
            .field("location", &self.location.to_string())
            .field("endpoint", &self.inner.get_config_value(&AmazonS3ConfigKey::Endpoint))
            .field("region", &self.inner.get_config_value(&AmazonS3ConfigKey::Region))
            .finish_non_exhaustive()
    }
}

fn client_key(key: ClientConfigKey) -> AmazonS3ConfigKey {
    AmazonS3ConfigKey::Client(key)
}

fn fmt_secs(duration: Duration) -> String {
    format!("{}ms", duration.as_millis())
}

fn default_retry() -> RetryConfig {
    RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(20),
        backoff: BackoffConfig {
            max_backoff: Duration::from_secs(5),
            ..BackoffConfig::default()
        },
    }
}

/// `http://127.0.0.1...`, `http://localhost...`, `http://[::1]...`.
fn is_loopback_http(endpoint: &str) -> bool {
    url::Url::parse(endpoint)
        .is_ok_and(|url| url.scheme() == "http" && url.host_str().is_some_and(skills_core::url::is_loopback_host))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_and_print() {
        for (url, bucket, prefix) in [
            ("s3://skills", "skills", ""),
            ("s3://skills/", "skills", ""),
            ("s3://team.skills-1/a/b/", "team.skills-1", "a/b"),
            ("s3://abc//a//b", "abc", "a/b"),
        ] {
            let location: S3Location = url.parse().unwrap();
            assert_eq!((location.bucket(), location.prefix()), (bucket, prefix), "{url}");
        }
        for url in [
            "skills",
            "s3:/skills",
            "s3://",
            "s3://ab",
            "s3://UPPER",
            "s3://-lead",
            "s3://under_score",
            "s3://bucket/../x",
            "s3://bucket/a%2f",
            "s3://bucket/a?versionId=1",
            "s3://bucket/a#b",
            "s3://bucket/a\0",
        ] {
            assert!(url.parse::<S3Location>().is_err(), "{url} was accepted");
        }
    }

    #[test]
    fn only_loopback_http_is_allowed_implicitly() {
        assert!(is_loopback_http("http://127.0.0.1:9000"));
        assert!(is_loopback_http("http://localhost:9000/"));
        assert!(is_loopback_http("http://[::1]:9000"));
        assert!(!is_loopback_http("https://127.0.0.1:9000"));
        assert!(!is_loopback_http("http://10.0.0.1:9000"));
        assert!(!is_loopback_http("http://127.0.0.1.example.com"));
    }

    #[test]
    fn plain_http_is_refused_clearly_unless_allowed_or_loopback() {
        let remote = || {
            S3BackendBuilder::new("s3://team/lib")
                .unwrap()
                .endpoint("http://10.1.2.3:9000")
        };
        let error = remote().build().unwrap_err().to_string();
        assert!(error.contains("AWS_ALLOW_HTTP"), "{error}");
        assert!(remote().allow_http(true).build().is_ok());
        let local = || {
            S3BackendBuilder::new("s3://team/lib")
                .unwrap()
                .endpoint("http://127.0.0.1:9000")
        };
        assert!(local().build().is_ok());
        assert!(local().allow_http(false).build().is_err());
    }

    #[test]
    fn debug_never_shows_credentials() {
        let builder = S3BackendBuilder::new("s3://team-skills/lib")
            .unwrap()
            .credentials("AKIDEXAMPLEKEYID", "very-secret-access-key")
            .endpoint("http://127.0.0.1:1");
        let debug = format!("{builder:?}");
        assert!(debug.contains("s3://team-skills/lib"), "{debug}");
        let backend = builder.build().unwrap();
        for text in [debug, format!("{backend:?}"), backend.to_string()] {
            assert!(!text.contains("very-secret"), "{text}");
            assert!(!text.contains("AKIDEXAMPLE"), "{text}");
        }
    }
}
