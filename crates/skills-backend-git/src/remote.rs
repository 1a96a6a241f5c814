//! Remotes: a bare cache clone per URL, fetched with credentials from the environment or
//! git's credential helpers.

use std::fmt;
use std::path::Path;

use git2::{AutotagOption, Cred, CredentialType, FetchOptions, FetchPrune, RemoteCallbacks, Repository};

use crate::GitError;
use skills_core::url::redact_url as redact;

/// Variables read for https credentials (a token is the password).
pub const USERNAME_ENV: &str = "SKILLS_GIT_USERNAME";
/// See [`USERNAME_ENV`].
pub const TOKEN_ENV: &str = "SKILLS_GIT_TOKEN";
/// A private key file for ssh remotes, used when no ssh agent offers a key.
pub const SSH_KEY_ENV: &str = "SKILLS_GIT_SSH_KEY";

/// What is fetched: every branch, every tag, and the remote's HEAD.
const REFSPECS: &[&str] = &[
    "+refs/heads/*:refs/remotes/origin/*",
    "+refs/tags/*:refs/tags/*",
    "+HEAD:refs/remotes/origin/HEAD",
];

/// A remote URL; `Debug` hides any password in it.
#[derive(Clone)]
pub(crate) struct Remote {
    url: String,
}

impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Remote({})", redact(&self.url))
    }
}

/// Opens (or creates) the bare cache clone of `url` under `cache_dir`.
pub(crate) fn open_cache(url: &str, cache_dir: &Path) -> Result<(Repository, Remote), GitError> {
    let dir = cache_dir.join(cache_name(url));
    let shown = redact(url);
    let repo = match Repository::open_bare(&dir) {
        Ok(repo) => repo,
        Err(_) => {
            std::fs::create_dir_all(cache_dir).map_err(|e| GitError::Io {
                path: cache_dir.to_path_buf(),
                message: e.to_string(),
            })?;
            Repository::init_bare(&dir).map_err(|e| GitError::git(&shown, &e))?
        }
    };
    Ok((repo, Remote { url: url.to_owned() }))
}

/// Fetches every branch and tag (pruning deleted ones) and the remote's HEAD.
pub(crate) fn fetch(repo: &Repository, remote: &Remote) -> Result<(), GitError> {
    certificates::load_if_put_off();
    let shown = redact(&remote.url);
    let mut anonymous = repo
        .remote_anonymous(&remote.url)
        .map_err(|e| GitError::git(&shown, &e))?;
    let config = repo.config().ok();
    let mut attempts = 0;
    let mut callbacks = RemoteCallbacks::new();
    callbacks.credentials(move |url, username, allowed| {
        attempts += 1;
        if attempts > 3 {
            return Err(git2::Error::from_str(
                "authentication failed (credentials were refused)",
            ));
        }
        credentials(config.as_ref(), url, username, allowed)
    });
    let mut options = FetchOptions::new();
    options
        .remote_callbacks(callbacks)
        .prune(FetchPrune::On)
        .download_tags(AutotagOption::None);
    anonymous
        .fetch(REFSPECS, Some(&mut options), None)
        .map_err(|e| GitError::git(&shown, &e))
}

/// Credentials for one attempt: the environment first, then git's own sources.
fn credentials(
    config: Option<&git2::Config>,
    url: &str,
    username: Option<&str>,
    allowed: CredentialType,
) -> Result<Cred, git2::Error> {
    if allowed.contains(CredentialType::USER_PASS_PLAINTEXT) {
        if let Ok(token) = std::env::var(TOKEN_ENV) {
            let user = std::env::var(USERNAME_ENV)
                .ok()
                .or_else(|| username.map(str::to_owned))
                .unwrap_or_else(|| "x-access-token".to_owned());
            return Cred::userpass_plaintext(&user, &token);
        }
        if let Some(config) = config {
            if let Ok(cred) = Cred::credential_helper(config, url, username) {
                return Ok(cred);
            }
        }
    }
    let user = username.unwrap_or("git");
    if allowed.contains(CredentialType::SSH_KEY) {
        if let Some(key) = std::env::var_os(SSH_KEY_ENV) {
            return Cred::ssh_key(user, None, Path::new(&key), None);
        }
        return Cred::ssh_key_from_agent(user);
    }
    if allowed.contains(CredentialType::USERNAME) {
        return Cred::username(user);
    }
    Cred::default()
}

/// A directory name for a URL's cache: readable part + a stable hash (FNV-1a).
fn cache_name(url: &str) -> String {
    let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let readable: String = redact(url)
        .rsplit('/')
        .find(|part| !part.is_empty())
        .unwrap_or("repo")
        .trim_end_matches(".git")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    format!("{readable}-{hash:016x}.git")
}

/// Sets libgit2's network timeouts for the whole process: `connect` to open a
/// connection, `io` for each read or write on it. A remote that accepts a connection and
/// then stalls fails the fetch (and the backend keeps serving its last good commit)
/// instead of holding it forever. libgit2's defaults are no limit.
///
/// # Safety
/// libgit2 keeps these in process-wide C globals without synchronization
/// ([`git2::opts::set_server_timeout_in_milliseconds`]): call this before any thread
/// that may use libgit2 exists, at the top of `main`.
#[allow(unsafe_code)]
pub unsafe fn set_network_timeouts(connect: std::time::Duration, io: std::time::Duration) -> Result<(), GitError> {
    let millis = |d: std::time::Duration| std::ffi::c_int::try_from(d.as_millis()).unwrap_or(std::ffi::c_int::MAX);
    let failed = |e: git2::Error| GitError::git("libgit2 options", &e);
    // SAFETY: the caller guarantees no other thread uses libgit2 yet.
    unsafe {
        git2::opts::set_server_connect_timeout_in_milliseconds(millis(connect)).map_err(failed)?;
        git2::opts::set_server_timeout_in_milliseconds(millis(io)).map_err(failed)
    }
}

/// Stops libgit2 from hashing each object it reads again to check it against its id,
/// for the whole process. git itself does not check objects on reads: a fetch checks
/// every object it receives when it indexes the pack, and zlib's checksum still catches
/// a damaged object. The check was a fifth of a first `skills list` of a 40,304-skill
/// repository (SHA-1 of every `SKILL.md` read) and a tenth of a warm one (of every tree).
///
/// # Safety
/// As [`set_network_timeouts`]: libgit2's options are process-wide C globals; call this
/// before any thread that may use libgit2 exists.
#[allow(unsafe_code)]
pub unsafe fn skip_hash_checks_on_reads() {
    git2::opts::strict_hash_verification(false);
}

/// Puts off loading the certificates https trusts until the first fetch. Initializing
/// libgit2 loads the system's whole certificate file into OpenSSL (about 140 certificates,
/// 20-25 ms of CPU), which a command that reads a repository already fetched, or a local
/// one, never uses: half of a warm `skills list` of a 7,000-skill git source. The file is
/// then loaded, with the same precedence as before (`SSL_CERT_FILE`, else the file a probe
/// of the usual places finds, else OpenSSL's own default), before the first fetch begins.
/// The certificate directory is still set up at initialization (it is read lazily).
///
/// On systems where libgit2 does not use OpenSSL it does nothing.
///
/// # Safety
/// It changes the process's environment for a moment and initializes libgit2: call it
/// before any other thread exists and before any other use of libgit2 (first, at the top
/// of `main`).
#[allow(unsafe_code)]
pub unsafe fn load_certificates_on_first_fetch() {
    // SAFETY: passed on to the caller.
    unsafe { certificates::put_off() }
}

#[cfg(all(unix, not(target_os = "macos"), not(target_os = "ios")))]
mod certificates {
    use std::ffi::{CStr, OsStr};
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, Ordering};

    const CERT_FILE: &str = "SSL_CERT_FILE";

    /// Whether the load was put off: the first fetch then makes it (once, in `LOADED`).
    static PUT_OFF: AtomicBool = AtomicBool::new(false);
    static LOADED: Once = Once::new();

    #[allow(unsafe_code)]
    pub(super) unsafe fn put_off() {
        let set = std::env::var_os(CERT_FILE);
        // An empty file that exists: git2's probe keeps it, and OpenSSL loads nothing from
        // it (its failure to find a certificate is not an error of the initialization).
        // SAFETY: no other thread exists (the caller's promise).
        unsafe { std::env::set_var(CERT_FILE, "/dev/null") };
        // Any option initializes libgit2; this one reads a value and changes nothing.
        // SAFETY: no other thread uses libgit2 (the caller's promise).
        let _ = unsafe { git2::opts::get_mwindow_size() };
        // SAFETY: as above.
        unsafe {
            match &set {
                Some(value) => std::env::set_var(CERT_FILE, value),
                None => std::env::remove_var(CERT_FILE),
            }
        }
        PUT_OFF.store(true, Ordering::Release);
    }

    /// The file OpenSSL would have loaded at initialization: what git2's probe makes of
    /// the environment (`SSL_CERT_FILE` when it names a file, else the first certificate
    /// file in the usual places), else OpenSSL's compiled-in default.
    fn file() -> Option<PathBuf> {
        openssl_probe::probe().cert_file.or_else(|| {
            // SAFETY: OpenSSL returns a static, NUL-terminated string (or null).
            #[allow(unsafe_code)]
            let default = unsafe { openssl_sys::X509_get_default_cert_file() };
            (!default.is_null()).then(|| {
                #[allow(unsafe_code)]
                let text = unsafe { CStr::from_ptr(default) };
                PathBuf::from(OsStr::from_bytes(text.to_bytes()))
            })
        })
    }

    /// Loads the certificate file once, before the first fetch, when it was put off.
    /// Every fetch goes through here first, so no connection is made while it loads.
    pub(super) fn load_if_put_off() {
        if !PUT_OFF.load(Ordering::Acquire) {
            return;
        }
        LOADED.call_once(|| {
            if let Some(file) = file().filter(|f| f.is_file()) {
                // SAFETY: this adds the file to the TLS context libgit2 keeps, which only
                // a connection reads; no fetch makes one before this `Once` completes.
                #[allow(unsafe_code)]
                let loaded = unsafe { git2::opts::set_ssl_cert_file(&file) };
                if let Err(error) = loaded {
                    tracing::debug!(file = %file.display(), %error, "certificates not loaded");
                }
            }
        });
    }
}

#[cfg(not(all(unix, not(target_os = "macos"), not(target_os = "ios"))))]
mod certificates {
    #[allow(unsafe_code)]
    pub(super) unsafe fn put_off() {}

    pub(super) fn load_if_put_off() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_names_are_stable_safe_and_distinct() {
        let a = cache_name("https://example.com/team/skills.git");
        assert!(a.starts_with("skills-") && a.ends_with(".git"), "{a}");
        assert_eq!(a, cache_name("https://example.com/team/skills.git"));
        assert_ne!(a, cache_name("https://example.com/other/skills.git"));
        let odd = cache_name("file:///tmp/../we ird/");
        assert!(!odd.contains(['/', ' ', '.']) || odd.ends_with(".git"), "{odd}");
        assert!(!cache_name("https://me:tok3n@example.com/r.git").contains("tok3n"));
    }
}
