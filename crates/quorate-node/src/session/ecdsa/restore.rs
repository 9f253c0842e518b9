//! Restoring a lost holder's ECDSA share from the escrow (issue 16 §2), node side.
//!
//! 1. Any holder writes its active epoch's public data with [`export_public`]
//!    (`quorate node escrow export-public`): the library's [`EpochPublic`] and the node's
//!    epoch certificate, which every holder signed with its roster key.
//! 2. The escrow recovers the lost node's `x_j` (`quorate verenc recover --out`).
//! 3. The lost node — with its identity key kept, or re-initialised under the same id with
//!    a new identity key that every operator put in the roster (`quorate node roster
//!    --replace`) — imports both with [`import`] (`quorate node escrow import`): every
//!    other holder's certificate signature must verify against the roster (its own was
//!    made with the key it may have lost), and the certificate must name the same epoch,
//!    threshold, holder count, public key and setup transcript as the [`EpochPublic`] and
//!    sign its digest ([`super::cert::public_digest`]), so the public data is the one
//!    every holder certified; the library checks `x_j·G = T_j` ([`RestoredShare::new`]). The
//!    [`RestoredShare`] is stored sealed under the kind [`RESTORED_SHARE_KIND`] in a new
//!    epoch committed with that certificate. It cannot sign.
//! 4. The node runs again and an operator asks for a refresh naming it (`quorate ecdsa
//!    refresh --restored J`, params `{"n": N, "restored": J}`, [`super::refresh`]): it
//!    takes part from the [`RestoredShare`] ([`load_restored`]) and ends with a full share
//!    of the next epoch, which signs.
//!
//! Export-public file (JSON, public): `{"v": 1, "key_id", "epoch", "certificate": <the
//! stored epoch certificate>, "epoch_public": <hex of EpochPublic::to_bytes>}`.

use std::collections::BTreeMap;

use ed25519_dalek::{SigningKey, VerifyingKey};
use quorate_ecdsa::keygen::{EpochPublic, RestoredShare};
use quorate_ecdsa::{EcdsaError, KeyShare};
use serde_json::{json, Value};
use zeroize::Zeroizing;

use super::cert::{EpochCertificate, MAX_CERT_LEN};
use super::EcdsaNode;
use crate::keystore::{EpochStatus, KeyId, Keystore, KeystoreError, Kind};

/// The keystore kind of a [`RestoredShare`] (a share rebuilt from the escrow; it can only
/// join a refresh).
pub const RESTORED_SHARE_KIND: &str = "restored-share";
/// Largest export-public file read (a certificate plus the public data of 255 holders).
pub const MAX_PUBLIC_FILE: u64 = 4 * MAX_CERT_LEN as u64;
/// Largest `quorate verenc recover --out` file read (64 hex digits and white space).
pub const MAX_SHARE_FILE: u64 = 1024;

/// Why an export or an import was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RestoreError {
    /// The keystore failed.
    #[error(transparent)]
    Keystore(#[from] KeystoreError),
    /// No usable share of the requested key or epoch here.
    #[error("{0}")]
    NotFound(String),
    /// The node already holds a share (or a restored share) of the key: nothing to restore.
    #[error("node already holds key {key_id} (epochs {epochs:?}): refusing to import over it")]
    AlreadyHeld {
        /// The key id.
        key_id: String,
        /// The epochs stored here.
        epochs: Vec<u64>,
    },
    /// The recovered secret share is not the discrete log of the node's public share `T_j`.
    #[error("the recovered share does not match node {node}'s public share T_j (wrong backup, node or epoch?)")]
    Mismatch {
        /// This node.
        node: u16,
    },
    /// The public data or the share file is malformed or inconsistent.
    #[error("{0}")]
    Invalid(String),
}

fn invalid(e: impl std::fmt::Display) -> RestoreError {
    RestoreError::Invalid(e.to_string())
}

/// The restored-share keystore kind.
pub fn restored_share_kind() -> Result<Kind, KeystoreError> {
    Kind::new(RESTORED_SHARE_KIND)
}

/// The public data of `key_id`'s active epoch on this node (`epoch`, if given, must be
/// that epoch), in the export-public form.
pub fn export_public(
    ks: &Keystore,
    key_id: &KeyId,
    epoch: Option<u64>,
) -> Result<Value, RestoreError> {
    let info = ks
        .active_epoch(key_id)?
        .ok_or_else(|| RestoreError::NotFound(format!("no active epoch of key {key_id} here")))?;
    if let Some(e) = epoch.filter(|e| *e != info.epoch) {
        return Err(RestoreError::NotFound(format!(
            "key {key_id} is at epoch {} here, not {e}",
            info.epoch
        )));
    }
    let cert = info
        .certificate
        .ok_or_else(|| invalid(format!("key {key_id}: active epoch without a certificate")))?;
    let stored = ks
        .get_secret(key_id, info.epoch, &Kind::KEY_SHARE)?
        .ok_or_else(|| {
            RestoreError::NotFound(format!(
                "key {key_id} epoch {}: no share stored here",
                info.epoch
            ))
        })?;
    let share = KeyShare::from_bytes(stored.bytes.expose()).map_err(invalid)?;
    let certificate: Value = serde_json::from_slice(&cert).map_err(invalid)?;
    Ok(json!({
        "v": 1,
        "key_id": key_id.as_str(),
        "epoch": info.epoch,
        "certificate": certificate,
        "epoch_public": hex::encode(share.epoch_public().to_bytes()),
    }))
}

/// Parses `quorate verenc recover --out` text: 64 hex digits (32 bytes big-endian),
/// surrounding white space ignored.
pub fn parse_share_text(text: &str) -> Result<Zeroizing<[u8; 32]>, RestoreError> {
    let t = text.trim();
    let mut x = Zeroizing::new([0u8; 32]);
    if t.len() != 64 || hex::decode_to_slice(t, &mut x[..]).is_err() {
        return Err(invalid(
            "the share file must hold 64 hex digits (`quorate verenc recover --out`)",
        ));
    }
    Ok(x)
}

/// Checks `public` (the export-public form) against `roster` and returns its certificate
/// and public data.
fn checked_public(
    key_id: &KeyId,
    public: &Value,
    roster: &BTreeMap<u16, VerifyingKey>,
    self_id: u16,
) -> Result<(EpochCertificate, EpochPublic), RestoreError> {
    if public["v"] != 1 || public["key_id"] != key_id.as_str() {
        return Err(invalid(format!(
            "the public data is not version 1 export-public data of key {key_id}"
        )));
    }
    let cert_bytes = serde_json::to_vec(&public["certificate"]).map_err(invalid)?;
    let cert = EpochCertificate::from_bytes(&cert_bytes).map_err(invalid)?;
    let ep_hex = public["epoch_public"]
        .as_str()
        .ok_or_else(|| invalid("epoch_public: missing"))?;
    let ep = EpochPublic::from_bytes(&hex::decode(ep_hex).map_err(invalid)?).map_err(invalid)?;
    // Every other holder's signature; this node's own was made with its identity key at
    // the time, which a node that lost its whole directory no longer has (the roster now
    // lists its new key): the others certify the same statement.
    cert.verify_others(roster, self_id)
        .map_err(|e| invalid(format!("epoch certificate: {e}")))?;
    let consistent = cert.key_id == key_id.as_str()
        && public["epoch"] == cert.epoch
        && cert.epoch == ep.epoch()
        && cert.t == ep.params().t()
        && cert.holders.len() == usize::from(ep.params().n())
        && cert.public_key == ep.public_key_bytes()
        && cert.transcript == ep.setup_transcript();
    if !consistent {
        return Err(invalid(
            "the epoch public data is not the epoch its certificate certifies",
        ));
    }
    // The certificate signs a digest of the whole public data (library key id, public
    // shares, chain code, every holder's epoch identity key): review finding F2.
    match cert.public_digest {
        None => {
            return Err(invalid(format!(
                "the certificate of key {key_id} epoch {} does not certify the epoch's \
                 public data (a version-1 certificate): refresh the key once, then export \
                 again",
                cert.epoch
            )))
        }
        Some(d) if d != super::cert::public_digest(&ep) => {
            return Err(invalid(
                "the epoch public data (public shares, chain code, library key id or \
                 holders' identity keys) is not the data its certificate certifies: \
                 tampered or mixed export-public file",
            ))
        }
        Some(_) => {}
    }
    Ok((cert, ep))
}

/// Imports node `self_id`'s recovered secret share `x` of `key_id`, with the public data
/// `public` (the export-public form) and its roster identity key `identity`: stores the
/// [`RestoredShare`] sealed in a new epoch committed with the certificate. Refuses a key
/// the node already has any epoch of, except the unsigned pending epoch an interrupted
/// import leaves (abandoned first: importing again after a crash resumes).
pub fn import(
    ks: &mut Keystore,
    roster: &BTreeMap<u16, VerifyingKey>,
    self_id: u16,
    identity: &SigningKey,
    key_id: &KeyId,
    x: &[u8; 32],
    public: &Value,
) -> Result<Value, RestoreError> {
    if roster.get(&self_id) != Some(&identity.verifying_key()) {
        return Err(invalid(format!(
            "node {self_id}'s identity key is not its roster key"
        )));
    }
    let (cert, ep) = checked_public(key_id, public, roster, self_id)?;
    // An import interrupted by a crash leaves a pending epoch (begun, perhaps with the
    // restored share sealed, never committed). Like every pending epoch this node never
    // signed a certificate for, nobody can ever commit it (the start-up resolver abandons
    // it too, [`super::recovery`]): it is abandoned here, so that importing again resumes.
    // Anything else (an active, retired or signed pending epoch) is refused.
    let epochs = ks.epochs(key_id)?;
    let cert_kind = Kind::new(super::recovery::KIND_EPOCH_CERT)?;
    let mut leftovers = Vec::new();
    for e in &epochs {
        let unsigned = e.status == EpochStatus::Pending
            && ks.get_secret(key_id, e.epoch, &cert_kind)?.is_none();
        if !unsigned {
            return Err(RestoreError::AlreadyHeld {
                key_id: key_id.to_string(),
                epochs: epochs.iter().map(|e| e.epoch).collect(),
            });
        }
        leftovers.push(e.epoch);
    }
    let me = cert.party_of(self_id).map_err(invalid)?;
    let restored = RestoredShare::new(&ep, me, x, identity.clone()).map_err(|e| match e {
        EcdsaError::RestoredShareMismatch { .. } => RestoreError::Mismatch { node: self_id },
        e => invalid(e),
    })?;
    let kind = restored_share_kind()?;
    for e in leftovers {
        ks.abandon_epoch(key_id, e)?;
    }
    ks.begin_epoch(key_id, cert.epoch)?;
    ks.put_secret(key_id, cert.epoch, 0, &kind, &restored.to_bytes())?;
    ks.commit_epoch(key_id, cert.epoch, &cert.to_bytes())?;
    Ok(json!({
        "key_id": key_id.as_str(),
        "epoch": cert.epoch,
        "node": self_id,
        "party": me.get(),
        "public_key": hex::encode(cert.public_key),
        "holders": cert.holders,
        "restored": true,
    }))
}

/// The [`RestoredShare`] of `key_id` stored on `node` at `epoch` (its active epoch), and
/// the epoch's certificate: what a refresh naming this node as restored starts from.
pub(crate) fn load_restored(
    node: &EcdsaNode,
    key_id: &str,
    epoch: u64,
) -> Result<(RestoredShare, EpochCertificate), String> {
    let cert = node
        .certificate(key_id)?
        .ok_or_else(|| format!("no key {key_id} on node {}", node.self_id))?;
    if cert.epoch != epoch {
        return Err(format!(
            "key {key_id} is at epoch {} here, not {epoch}",
            cert.epoch
        ));
    }
    let key = KeyId::new(key_id).map_err(|e| e.to_string())?;
    let stored = node
        .keystore()
        .get_secret(
            &key,
            epoch,
            &restored_share_kind().map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?
        .ok_or_else(|| {
            format!(
                "key {key_id} epoch {epoch}: node {} holds no share restored from the escrow \
                 (`quorate node escrow import`), so it cannot be the restored holder",
                node.self_id
            )
        })?;
    let share = RestoredShare::from_bytes(stored.bytes.expose()).map_err(|e| e.to_string())?;
    let me = cert.party_of(node.self_id)?;
    if share.id() != me || share.epoch() != epoch || share.public_key_bytes() != cert.public_key {
        return Err(format!(
            "key {key_id}: the stored restored share does not match its certificate"
        ));
    }
    Ok((share, cert))
}

#[cfg(test)]
mod tests;
