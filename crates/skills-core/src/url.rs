//! Source URLs: as people see them (passwords hidden), and where plain HTTP may go.

/// A URL with the password of its user-info part (`https://user:token@host`) shown as
/// `***`; anything else is returned as it is. Used wherever a source URL reaches an error,
/// a log line or `Display`.
///
/// ```
/// use skills_core::url::redact_url;
/// assert_eq!(redact_url("https://me:tok3n@example.com/r.git"), "https://me:***@example.com/r.git");
/// assert_eq!(redact_url("ssh://git@example.com/r.git"), "ssh://git@example.com/r.git");
/// ```
pub fn redact_url(url: &str) -> String {
    replace_password(url, ":***")
}

/// A URL without the password of its user-info part (`https://me:tok3n@host` becomes
/// `https://me@host`), for text that is written down and opened again (a lockfile):
/// the credential comes from the environment then, never from the file.
///
/// ```
/// use skills_core::url::without_password;
/// assert_eq!(without_password("git+https://me:tok3n@example.com/r.git#ref=v1"), "git+https://me@example.com/r.git#ref=v1");
/// assert_eq!(without_password("s3://bucket/prefix"), "s3://bucket/prefix");
/// ```
pub fn without_password(url: &str) -> String {
    replace_password(url, "")
}

/// `url` with the password of its user-info part replaced by `with` (`:***`, or nothing).
fn replace_password(url: &str, with: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].rsplit_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or("");
            format!("{scheme}://{user}{with}@{host}{}", &rest[end..])
        }
        _ => url.to_owned(),
    }
}

/// Whether a URL's host (as `url::Url::host_str` gives it) is this machine:
/// `localhost` in any case, an IPv4 loopback address (`127.0.0.0/8`), or `[::1]`. Remote
/// sources accept plain `http://` only for such hosts (a test server, a local S3).
///
/// ```
/// use skills_core::url::is_loopback_host;
/// assert!(is_loopback_host("127.0.0.1") && is_loopback_host("LOCALHOST") && is_loopback_host("[::1]"));
/// assert!(!is_loopback_host("10.0.0.1") && !is_loopback_host("127.0.0.1.example.com"));
/// ```
pub fn is_loopback_host(host: &str) -> bool {
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    host.eq_ignore_ascii_case("localhost") || bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Whether a remote URL's parts are acceptable for a source: `https`, or `http` on a
/// [loopback host](is_loopback_host), and no credentials in the URL; the reason when not
/// (`Err(None)` for another scheme, which the caller names in its own terms).
///
/// ```
/// use skills_core::url::check_remote;
/// assert_eq!(check_remote("https", Some("example.com"), false), Ok(()));
/// assert_eq!(check_remote("http", Some("127.0.0.1"), false), Ok(()));
/// assert!(check_remote("http", Some("example.com"), false).unwrap_err().unwrap().contains("loopback"));
/// assert!(check_remote("https", Some("example.com"), true).unwrap_err().unwrap().contains("credentials"));
/// assert_eq!(check_remote("ftp", Some("example.com"), false), Err(None));
/// ```
pub fn check_remote(scheme: &str, host: Option<&str>, has_credentials: bool) -> Result<(), Option<&'static str>> {
    match scheme {
        "https" => {}
        "http" if host.is_some_and(is_loopback_host) => {}
        "http" => {
            return Err(Some(
                "plain http:// is allowed only on a loopback address; use https://",
            ));
        }
        _ => return Err(None),
    }
    if has_credentials {
        return Err(Some("credentials in the URL are not accepted"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_passwords_in_the_authority_are_hidden() {
        assert_eq!(
            redact_url("https://me:tok3n@example.com/r.git"),
            "https://me:***@example.com/r.git"
        );
        assert_eq!(redact_url("git+https://:tok3n@h/x"), "git+https://:***@h/x");
        assert_eq!(redact_url("ssh://git@example.com/r.git"), "ssh://git@example.com/r.git");
        assert_eq!(redact_url("https://example.com/a@b:c"), "https://example.com/a@b:c");
        assert_eq!(redact_url("team=./x"), "team=./x");
    }
}
