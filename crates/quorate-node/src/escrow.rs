//! Verifiable escrow backup of node shares (issue 16 §2): the escrow key a node is
//! configured with, the label every backup binds, the backup's wire form, and the verified
//! backups a node keeps for the escrow.
//!
//! The cryptography is `quorate-verenc`'s ([`quorate_verenc::backup`]): a holder encrypts
//! its new share `x_j` to the escrow with a proof that it is the discrete log of its public
//! share `T_j`; the other holders check the proof, and that its `X` is the `T_j` the DKG
//! agreed, before they sign the epoch certificate (the round is in
//! [`crate::session::ecdsa::escrow`]).
//!
//! | file in the node directory | mode | contents |
//! |---|---|---|
//! | [`ESCROW_KEY_FILE`] (`escrow.json`) | 0644 | the escrow's public key, in `quorate verenc keygen --public-out` form |
//! | [`BACKUP_DIR`]`/key-<key id>/epoch-<e>.json` | 0644 | every other holder's verified backup of epoch `e` (public: ciphertexts under the escrow key) |
//!
//! **Label.** `"quorate/node/escrow-backup/v1"` ‖ session id (32) ‖ `u16` length ‖
//! protocol name ‖ `u16` protocol version ‖ `u16` length ‖ key id ‖ `u64` epoch ‖ `u16`
//! node id, integers big-endian. The verifier computes it and never reads it from the
//! sender, so a backup made for another session, key, epoch or node does not verify.
//!
//! **Wire form** (one payload of the backup round): empty (no backup), or `u32` length ‖
//! params ‖ `u32` length ‖ public share ‖ `u32` length ‖ ciphertext ‖ `u32` length ‖ proof.
//! Scheme, curve, escrow key and label are the verifier's own.

use std::path::{Path, PathBuf};

use quorate_verenc::backup::{Backup, BackupError, EscrowPublicKey};
use serde_json::{json, Value};

use crate::fsutil::{self, FileError, Overwrite};
use crate::keystore::KeyId;

/// The escrow public key file in the node directory.
pub const ESCROW_KEY_FILE: &str = "escrow.json";
/// The directory (in the node directory) of the verified backups the node keeps.
pub const BACKUP_DIR: &str = "escrow";
/// Largest escrow key file read (a CS03 key with its auxiliary parameters is a few KiB).
pub const MAX_KEY_FILE: u64 = 256 * 1024;
/// Largest backup payload accepted in the backup round (an RDKGitH proof is about 10 KiB,
/// a CS03 proof at |n| = 4096 a few KiB).
pub const MAX_WIRE: usize = 128 * 1024;
/// Largest stored backups file read.
const MAX_STORED: u64 = 64 * 1024 * 1024;
const LABEL_DOMAIN: &[u8] = b"quorate/node/escrow-backup/v1";

/// An escrow configuration or storage failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EscrowError {
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The key or a stored backup is malformed.
    #[error("{0}")]
    Backup(#[from] BackupError),
    /// A file is not the expected JSON.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No stored backup matches the request.
    #[error("{0}")]
    NotFound(String),
    /// The requested epoch is older than a stored one: its backups were deleted when the
    /// newer epoch committed.
    #[error("{0}")]
    Retired(String),
}

/// The node's escrow: its public key and the node directory the verified backups go to.
#[derive(Clone, Debug)]
pub struct Escrow {
    /// The escrow public key (CS03, or TZ21 on secp256k1).
    pub key: EscrowPublicKey,
    /// The node directory.
    pub dir: PathBuf,
}

fn parse_json(path: &Path, text: &str) -> Result<Value, EscrowError> {
    serde_json::from_str(text).map_err(|e| EscrowError::Parse {
        path: path.to_path_buf(),
        message: format!("not JSON: {e}"),
    })
}

/// Reads and checks an escrow public key file (`quorate verenc keygen --public-out`).
pub fn read_key_file(path: &Path) -> Result<EscrowPublicKey, EscrowError> {
    let text = fsutil::read_text_bounded(path, MAX_KEY_FILE)?;
    let key = EscrowPublicKey::from_json(&parse_json(path, &text)?)?;
    if key.curve() != quorate_verenc::CurveId::Secp256k1 {
        return Err(EscrowError::Parse {
            path: path.to_path_buf(),
            message: format!(
                "an escrow key for {} cannot back up threshold-ECDSA shares (secp256k1)",
                key.curve()
            ),
        });
    }
    Ok(key)
}

/// The escrow the node in `dir` is configured with, if any.
pub fn load(dir: &Path) -> Result<Option<Escrow>, EscrowError> {
    let path = dir.join(ESCROW_KEY_FILE);
    if path.symlink_metadata().is_err() {
        return Ok(None);
    }
    Ok(Some(Escrow {
        key: read_key_file(&path)?,
        dir: dir.to_path_buf(),
    }))
}

/// Configures the node in `dir` with the escrow key in `key_file` (checked first); an
/// existing key is replaced only with `replace` (backups already made stay under the old
/// key). Takes effect at the next `quorate node run`.
pub fn install(dir: &Path, key_file: &Path, replace: bool) -> Result<EscrowPublicKey, EscrowError> {
    let key = read_key_file(key_file)?;
    let text = key.to_json().to_string();
    let overwrite = if replace {
        Overwrite::Replace
    } else {
        Overwrite::Never
    };
    fsutil::write_atomic(
        &dir.join(ESCROW_KEY_FILE),
        text.as_bytes(),
        0o644,
        overwrite,
    )?;
    Ok(key)
}

/// The label of node `node`'s backup in the session (see the module docs).
pub fn label(
    session_id: &[u8; 32],
    protocol: &str,
    version: u16,
    key_id: &str,
    epoch: u64,
    node: u16,
) -> Vec<u8> {
    let mut m = Vec::with_capacity(LABEL_DOMAIN.len() + 64 + protocol.len() + key_id.len());
    m.extend_from_slice(LABEL_DOMAIN);
    m.extend_from_slice(session_id);
    for (i, s) in [protocol, key_id].into_iter().enumerate() {
        m.extend_from_slice(&(s.len() as u16).to_be_bytes());
        m.extend_from_slice(s.as_bytes());
        if i == 0 {
            m.extend_from_slice(&version.to_be_bytes());
        }
    }
    m.extend_from_slice(&epoch.to_be_bytes());
    m.extend_from_slice(&node.to_be_bytes());
    m
}

/// The wire form of a backup (see the module docs).
pub fn encode_wire(b: &Backup) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + b.params.len() + b.public_share.len() + b.proof.len());
    for part in [
        b.params.as_bytes(),
        &b.public_share,
        &b.ciphertext,
        &b.proof,
    ] {
        out.extend_from_slice(&(part.len() as u32).to_be_bytes());
        out.extend_from_slice(part);
    }
    out
}

/// Decodes a wire payload into the backup to verify: scheme, curve and escrow key from
/// `escrow`, the label the verifier expects. `Err` says what is malformed.
pub fn decode_wire(
    bytes: &[u8],
    escrow: &EscrowPublicKey,
    label: Vec<u8>,
) -> Result<Backup, String> {
    if bytes.len() > MAX_WIRE {
        return Err("backup larger than the limit".into());
    }
    let mut rest = bytes;
    let mut parts = Vec::with_capacity(4);
    for what in ["params", "public share", "ciphertext", "proof"] {
        let len_bytes: [u8; 4] = rest
            .get(..4)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| format!("backup truncated before its {what}"))?;
        let len = u32::from_be_bytes(len_bytes) as usize;
        let part = rest
            .get(4..)
            .and_then(|r| r.get(..len))
            .ok_or_else(|| format!("backup truncated in its {what}"))?;
        parts.push(part.to_vec());
        rest = &rest[4 + len..];
    }
    if !rest.is_empty() {
        return Err("trailing bytes after the backup".into());
    }
    let proof = parts.pop().unwrap_or_default();
    let ciphertext = parts.pop().unwrap_or_default();
    let public_share = parts.pop().unwrap_or_default();
    let params = String::from_utf8(parts.pop().unwrap_or_default())
        .map_err(|_| "backup params are not UTF-8".to_string())?;
    Ok(Backup {
        scheme: escrow.scheme(),
        curve: escrow.curve(),
        params,
        public_share,
        escrow_public_key: escrow.as_bytes().to_vec(),
        ciphertext,
        proof,
        label,
    })
}

fn key_dir(dir: &Path, key_id: &KeyId) -> PathBuf {
    // The prefix keeps key ids such as `..` from naming another directory.
    dir.join(BACKUP_DIR)
        .join(format!("key-{}", key_id.as_str()))
}

fn epoch_file(dir: &Path, key_id: &KeyId, epoch: u64) -> PathBuf {
    key_dir(dir, key_id).join(format!("epoch-{epoch}.json"))
}

/// Durably stores the verified backups of epoch `epoch` of `key_id` (by node id; each with
/// the escrow ciphertext this node's verification produced). A retried attempt of the same
/// pending epoch replaces the file.
pub fn store(
    dir: &Path,
    key_id: &KeyId,
    epoch: u64,
    backups: &[(u16, Backup)],
) -> Result<(), EscrowError> {
    fsutil::create_private_dir(&dir.join(BACKUP_DIR))?;
    fsutil::create_private_dir(&key_dir(dir, key_id))?;
    let map: serde_json::Map<String, Value> = backups
        .iter()
        .map(|(n, b)| (n.to_string(), b.to_json()))
        .collect();
    let doc = json!({
        "key_id": key_id.as_str(),
        "epoch": epoch,
        "backups": map,
    });
    fsutil::write_atomic(
        &epoch_file(dir, key_id, epoch),
        doc.to_string().as_bytes(),
        0o644,
        Overwrite::Replace,
    )?;
    Ok(())
}

/// The stored backup of node `node` for `key_id` at `epoch` (default: the highest epoch
/// with stored backups) and its epoch. Only this node's verified copies are kept, so a
/// node's own backup is exported from another holder.
pub fn export(
    dir: &Path,
    key_id: &KeyId,
    node: u16,
    epoch: Option<u64>,
) -> Result<(u64, Backup), EscrowError> {
    let stored = stored_epochs(dir, key_id);
    let latest = *stored
        .last()
        .ok_or_else(|| EscrowError::NotFound(format!("no escrow backups of key {key_id} here")))?;
    let epoch = epoch.unwrap_or(latest);
    if epoch < latest && !stored.contains(&epoch) {
        return Err(EscrowError::Retired(format!(
            "epoch {epoch} of key {key_id} is retired: its escrow backups were deleted when a newer epoch committed (latest kept here: {latest})"
        )));
    }
    let path = epoch_file(dir, key_id, epoch);
    let text = fsutil::read_text_bounded(&path, MAX_STORED).map_err(|e| match e {
        FileError::NotFound { .. } => EscrowError::NotFound(format!(
            "no escrow backups of key {key_id} at epoch {epoch} here"
        )),
        other => other.into(),
    })?;
    let doc = parse_json(&path, &text)?;
    let b = doc
        .get("backups")
        .and_then(|m| m.get(node.to_string()))
        .ok_or_else(|| {
            EscrowError::NotFound(format!(
                "no backup of node {node} for key {key_id} at epoch {epoch} here (a node keeps the other holders' backups: export a node's backup from another holder)"
            ))
        })?;
    Ok((epoch, Backup::from_json(b)?))
}

/// The epochs of `key_id` with a stored backups file, ascending.
fn stored_epochs(dir: &Path, key_id: &KeyId) -> Vec<u64> {
    let Ok(entries) = std::fs::read_dir(key_dir(dir, key_id)) else {
        return Vec::new();
    };
    let mut epochs: Vec<u64> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_prefix("epoch-")?
                .strip_suffix(".json")?
                .parse::<u64>()
                .ok()
        })
        .collect();
    epochs.sort_unstable();
    epochs
}

/// Retires the backups of every epoch of `key_id` older than `active` (the epoch that just
/// committed): their files are unlinked and the directory synced, so that, like the
/// retired epoch's data key, an old share cannot be rebuilt from this node's disk even with
/// the escrow key. Returns the epochs deleted. A crash before the sync leaves old files
/// that [`prune_retired`] deletes at the next start-up.
pub fn retire_before(dir: &Path, key_id: &KeyId, active: u64) -> Result<Vec<u64>, EscrowError> {
    let old = unlink_before(dir, key_id, active)?;
    if !old.is_empty() {
        sync_backups(dir, key_id)?;
    }
    Ok(old)
}

/// The first half of [`retire_before`]: unlinks the backups of every epoch of `key_id`
/// older than `active`, without the directory sync ([`sync_backups`]). The commit of an
/// epoch calls it right after `commit_epoch` and syncs off its critical path.
pub fn unlink_before(dir: &Path, key_id: &KeyId, active: u64) -> Result<Vec<u64>, EscrowError> {
    let old: Vec<u64> = stored_epochs(dir, key_id)
        .into_iter()
        .filter(|&e| e < active)
        .collect();
    for &e in &old {
        let path = epoch_file(dir, key_id, e);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(FileError::io(&path, err).into()),
        }
    }
    Ok(old)
}

/// Makes the unlinks of [`unlink_before`] durable (syncs the key's backup directory).
pub fn sync_backups(dir: &Path, key_id: &KeyId) -> Result<(), EscrowError> {
    fsutil::sync_dir(&key_dir(dir, key_id))?;
    Ok(())
}

/// Start-up prune: for every key with stored backups, retires the epochs older than its
/// active epoch (`active` reads it from the keystore; `None` keeps the files). Returns
/// what was deleted.
pub fn prune_retired(
    dir: &Path,
    active: impl Fn(&KeyId) -> Option<u64>,
) -> Result<Vec<(KeyId, u64)>, EscrowError> {
    let mut deleted = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir.join(BACKUP_DIR)) else {
        return Ok(deleted);
    };
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name();
        let Some(key) = name
            .to_str()
            .and_then(|n| n.strip_prefix("key-"))
            .and_then(|k| KeyId::new(k).ok())
        else {
            continue;
        };
        if let Some(a) = active(&key) {
            for e in retire_before(dir, &key, a)? {
                deleted.push((key.clone(), e));
            }
        }
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quorate_verenc::backup::{self, CurveId, Scheme};
    use rand_core::OsRng;

    #[test]
    fn labels_bind_every_field() {
        let base = label(&[1; 32], "ecdsa-refresh", 1, "k", 2, 3);
        let variants = [
            label(&[2; 32], "ecdsa-refresh", 1, "k", 2, 3),
            label(&[1; 32], "ecdsa-keygen", 1, "k", 2, 3),
            label(&[1; 32], "ecdsa-refresh", 2, "k", 2, 3),
            label(&[1; 32], "ecdsa-refresh", 1, "j", 2, 3),
            label(&[1; 32], "ecdsa-refresh", 1, "k", 3, 3),
            label(&[1; 32], "ecdsa-refresh", 1, "k", 2, 4),
        ];
        for v in variants {
            assert_ne!(base, v);
        }
    }

    #[test]
    fn wire_roundtrip_and_store_export() {
        let (epk, _) =
            backup::escrow_keygen(&mut OsRng, Scheme::Dkgith, CurveId::Secp256k1, None).unwrap();
        let mut x = [0u8; 32];
        x[31] = 9;
        let l = label(&[7; 32], "ecdsa-keygen", 1, "k", 0, 2);
        let b = backup::backup(&mut OsRng, &epk, &x, &l).unwrap();
        let wire = encode_wire(&b);
        let back = decode_wire(&wire, &epk, l.clone()).unwrap();
        assert_eq!(back, b);
        assert!(decode_wire(&wire[..wire.len() - 1], &epk, l.clone()).is_err());
        let mut long = wire.clone();
        long.push(0);
        assert!(decode_wire(&long, &epk, l).is_err());

        let tmp = tempfile::tempdir().unwrap();
        let key = KeyId::new("..").unwrap();
        store(tmp.path(), &key, 0, &[(2, b.clone())]).unwrap();
        store(tmp.path(), &key, 1, &[(2, b.clone())]).unwrap();
        let (e, got) = export(tmp.path(), &key, 2, None).unwrap();
        assert_eq!((e, &got), (1, &b));
        assert!(matches!(
            export(tmp.path(), &key, 3, None),
            Err(EscrowError::NotFound(_))
        ));
        assert!(tmp.path().join("escrow").join("key-..").is_dir());
    }

    #[test]
    fn retired_epochs_are_deleted_and_not_exported() {
        let (epk, _) =
            backup::escrow_keygen(&mut OsRng, Scheme::Dkgith, CurveId::Secp256k1, None).unwrap();
        let x = [5u8; 32];
        let b = backup::backup(&mut OsRng, &epk, &x, b"l").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let (k, other) = (KeyId::new("k").unwrap(), KeyId::new("o").unwrap());
        for e in 0..3 {
            store(tmp.path(), &k, e, &[(2, b.clone())]).unwrap();
        }
        store(tmp.path(), &other, 4, &[(2, b.clone())]).unwrap();
        assert_eq!(retire_before(tmp.path(), &k, 1).unwrap(), vec![0]);
        assert!(matches!(
            export(tmp.path(), &k, 2, Some(0)),
            Err(EscrowError::Retired(_))
        ));
        assert_eq!(export(tmp.path(), &k, 2, Some(1)).unwrap().0, 1);
        // Start-up prune: the keystore says epoch 2 of `k` is active, `o` has none.
        let pruned = prune_retired(tmp.path(), |key| (key == &k).then_some(2)).unwrap();
        assert_eq!(pruned, vec![(k.clone(), 1)]);
        assert!(matches!(
            export(tmp.path(), &k, 2, Some(1)),
            Err(EscrowError::Retired(_))
        ));
        assert_eq!(export(tmp.path(), &k, 2, None).unwrap().0, 2);
        assert_eq!(export(tmp.path(), &other, 2, None).unwrap().0, 4);
    }
}
