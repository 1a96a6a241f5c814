//! Signatures of a lockfile (minisign, Ed25519): `skills lock --sign KEY` writes
//! `FILE.minisig`; `--trusted-key PUB` refuses a lockfile without a good one. A digest
//! says the files are the ones pinned; a signature says who pinned them.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// The environment variable holding the password of an encrypted secret key (never
/// prompted for: commands run in scripts and CI).
pub const PASSWORD_VAR: &str = "SKILLS_SIGN_PASSWORD";

/// The signature file of a lockfile: `skills.lock.minisig`.
pub fn signature_path(lockfile: &Path) -> PathBuf {
    let mut name = lockfile.as_os_str().to_owned();
    name.push(".minisig");
    PathBuf::from(name)
}

/// Signs `text` (the lockfile at `lockfile`) with the minisign secret key in `key_file`
/// and writes the signature next to it.
pub fn sign(lockfile: &Path, text: &str, key_file: &Path) -> anyhow::Result<PathBuf> {
    let boxed = std::fs::read_to_string(key_file).with_context(|| format!("cannot read {}", key_file.display()))?;
    let boxed = minisign::SecretKeyBox::from_string(&boxed)
        .map_err(|e| anyhow::anyhow!("{} is not a minisign secret key: {e}", key_file.display()))?;
    let key = match boxed.clone().into_unencrypted_secret_key() {
        Ok(key) => key,
        Err(_) => {
            let Ok(password) = std::env::var(PASSWORD_VAR) else {
                bail!(
                    "{} is encrypted: set {PASSWORD_VAR} to its password",
                    key_file.display()
                );
            };
            boxed
                .into_secret_key(Some(password))
                .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", key_file.display()))?
        }
    };
    let signature = minisign::sign(None, &key, text.as_bytes(), Some("skills.lock"), None)
        .map_err(|e| anyhow::anyhow!("cannot sign {}: {e}", lockfile.display()))?;
    let path = signature_path(lockfile);
    std::fs::write(&path, signature.into_string()).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// Checks the signature of `text` (the lockfile at `lockfile`) against the minisign
/// public key in `key_file`: an unsigned or wrongly signed lockfile is an error.
pub fn check_signature(lockfile: &Path, text: &str, key_file: &Path) -> anyhow::Result<()> {
    let key_text = std::fs::read_to_string(key_file).with_context(|| format!("cannot read {}", key_file.display()))?;
    let key = minisign_verify::PublicKey::decode(&key_text)
        .or_else(|_| minisign_verify::PublicKey::from_base64(key_text.trim()))
        .map_err(|e| anyhow::anyhow!("{} is not a minisign public key: {e}", key_file.display()))?;
    let sig_path = signature_path(lockfile);
    let sig_text = std::fs::read_to_string(&sig_path).with_context(|| {
        format!(
            "{} is not signed ({} is missing; `skills lock --sign KEY` writes it)",
            lockfile.display(),
            sig_path.display()
        )
    })?;
    let signature = minisign_verify::Signature::decode(&sig_text)
        .map_err(|e| anyhow::anyhow!("{} is not a minisign signature: {e}", sig_path.display()))?;
    key.verify(text.as_bytes(), &signature, false).map_err(|e| {
        anyhow::anyhow!(
            "the signature of {} does not verify with {}: {e}",
            lockfile.display(),
            key_file.display()
        )
    })
}
