//! The `skills` binary on `git+https://` sources: a git smart-HTTP server over TLS on
//! 127.0.0.1 (`tests/git_https/server.py`, `git http-backend` behind a certificate made
//! for the test). The certificates https trusts are loaded by the first fetch, not when
//! libgit2 starts: these tests show the fetch still trusts what `SSL_CERT_FILE` names,
//! and still refuses a certificate nothing vouches for.

#![allow(clippy::unwrap_used)] // Test helpers fail loudly.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::{md, stderr, strings};
use skills_backend_git::test_support::TestRepo;

/// The TLS git server, stopped when dropped.
struct HttpsGit {
    child: Child,
    port: u16,
    cert: PathBuf,
}

impl HttpsGit {
    /// Serves the repositories in `root`, with its certificate written into `dir`.
    fn start(root: &Path, dir: &Path) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/git_https/server.py");
        let mut child = Command::new(common::python())
            .arg(script)
            .args([root, dir])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("no port from the server: {line:?}"));
        Self {
            child,
            port,
            cert: dir.join("cert.pem"),
        }
    }

    fn url(&self, name: &str) -> String {
        format!("git+https://127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for HttpsGit {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `skills list --json` of `source` with its own caches under `caches`, and
/// `SSL_CERT_FILE` set to `cert` or unset.
fn list(caches: &Path, source: &str, cert: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skills"));
    command
        .args(["list", "--json", "--source", source])
        .env("SKILLS_GIT_CACHE", caches.join("git"))
        .env("SKILLS_CACHE_DIR", caches.join("catalog"))
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR");
    if let Some(cert) = cert {
        command.env("SSL_CERT_FILE", cert);
    }
    command.output().unwrap()
}

#[test]
fn a_fetch_over_https_trusts_the_certificates_of_ssl_cert_file_and_no_other() {
    let mut repo = TestRepo::new();
    repo.write("skills/web/SKILL.md", md("web", "Search the web"));
    repo.write("skills/pdf/SKILL.md", md("pdf", "Read PDFs"));
    repo.commit("main", "two skills");
    let dir = tempfile::tempdir().unwrap();
    let server = HttpsGit::start(repo.base(), dir.path());
    let source = format!("{}#path=skills", server.url("repo.git"));

    // The server's certificate is trusted through SSL_CERT_FILE: cloned, listed.
    let trusted = dir.path().join("trusted");
    let listed = list(&trusted, &source, Some(&server.cert));
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert_eq!(strings(&common::json(&listed), "name"), ["pdf", "web"]);
    // A second start, on the clone the first made, says the same.
    let again = list(&trusted, &source, Some(&server.cert));
    assert_eq!(again.stdout, listed.stdout, "{}", stderr(&again));

    // Without it, only the system's certificates are trusted, and none vouches for the
    // server's: the fetch fails on the certificate, nothing is listed.
    let refused = list(&dir.path().join("refused"), &source, None);
    assert!(!refused.status.success());
    let said = stderr(&refused);
    assert!(said.contains("certificate"), "{said}");
}
