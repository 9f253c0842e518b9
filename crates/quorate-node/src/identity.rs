//! Node ids, the Ed25519 identity key and the keystore passphrase.
//!
//! # Node ids
//!
//! A node id ([`NodeId`]) is a non-zero `u16`, fixed at `quorate node init` and never
//! changed. It names the node in the roster, in signed envelopes, in blame and bans, and it
//! is bound into every sealed keystore value. Operators should choose ids themselves with
//! `--id N`, conventionally `1..=n` for an `n`-node deployment. Without `--id`, init derives
//! one from the identity public key ([`NodeId::derive_from_key`]: the first two bytes of
//! `SHA-256("quorate/node-id/v1" ‖ public key)`, mapped into `1..=65535`), so independent
//! operators need no coordination; two derived ids collide with probability about
//! `n²/131070`, and a roster with duplicate ids is refused, naming both entries.
//!
//! Protocols with party indices `1..=n` (threshold ECDSA's `ThresholdParams`) do not use node
//! ids as indices directly: a session's participants, sorted by node id, take indices
//! `1..=n` in that order ([`crate::roster::party_indices`]). When the ids are already
//! `1..=n`, the two coincide.
//!
//! # Identity key
//!
//! [`Identity`] holds the node's Ed25519 signing key (ed25519-dalek, zeroized on drop,
//! redacted in `Debug`). It lives sealed in the keystore under the reserved key id
//! [`crate::keystore::KeyId::identity`]; the transport and envelope layers take the plain
//! [`SigningKey`] / [`VerifyingKey`] from it.

use crate::fsutil::{self, FileError};
use ed25519_dalek::{SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};
use std::fmt;
use std::num::NonZeroU16;
use std::path::Path;
use std::str::FromStr;
use zeroize::Zeroizing;

/// The environment variable holding the keystore passphrase.
pub const PASSPHRASE_ENV: &str = "QUORATE_PASSPHRASE";

/// Errors about node ids, public keys and passphrases.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IdentityError {
    /// A node id was zero, negative, too large or not a number.
    #[error("invalid node id {0:?}: a node id is an integer in 1..=65535")]
    InvalidNodeId(String),
    /// A public key was not 64 hex digits of a valid Ed25519 point.
    #[error("invalid Ed25519 public key: {0}")]
    InvalidPublicKey(&'static str),
    /// Neither `--passphrase-file` nor `QUORATE_PASSPHRASE` was given.
    #[error("no passphrase: set QUORATE_PASSPHRASE or pass --passphrase-file FILE")]
    MissingPassphrase,
    /// The passphrase was empty.
    #[error("the passphrase is empty")]
    EmptyPassphrase,
    /// `QUORATE_PASSPHRASE` was not valid UTF-8.
    #[error("QUORATE_PASSPHRASE is not valid UTF-8")]
    PassphraseNotUtf8,
    /// The passphrase file could not be read.
    #[error("passphrase file: {0}")]
    PassphraseFile(#[source] FileError),
}

/// A node id: a non-zero `u16` (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(NonZeroU16);

impl NodeId {
    /// A node id from a non-zero integer.
    pub fn new(id: u16) -> Result<NodeId, IdentityError> {
        NonZeroU16::new(id)
            .map(NodeId)
            .ok_or_else(|| IdentityError::InvalidNodeId(id.to_string()))
    }

    /// The id as an integer (never zero).
    pub fn get(self) -> u16 {
        self.0.get()
    }

    /// The id derived from an identity public key when the operator gave none.
    pub fn derive_from_key(key: &VerifyingKey) -> NodeId {
        let digest = Sha256::new()
            .chain_update(b"quorate/node-id/v1")
            .chain_update(key.as_bytes())
            .finalize();
        let x = u16::from_be_bytes([digest[0], digest[1]]);
        let id = x % u16::MAX + 1; // 1..=65535
        NodeId(NonZeroU16::new(id).unwrap_or(NonZeroU16::MIN))
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for NodeId {
    type Err = IdentityError;
    fn from_str(s: &str) -> Result<NodeId, IdentityError> {
        let n: u16 = s
            .trim()
            .parse()
            .map_err(|_| IdentityError::InvalidNodeId(s.to_string()))?;
        NodeId::new(n).map_err(|_| IdentityError::InvalidNodeId(s.to_string()))
    }
}

impl TryFrom<u16> for NodeId {
    type Error = IdentityError;
    fn try_from(v: u16) -> Result<NodeId, IdentityError> {
        NodeId::new(v)
    }
}

impl From<NodeId> for u16 {
    fn from(id: NodeId) -> u16 {
        id.get()
    }
}

impl serde::Serialize for NodeId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(self.get())
    }
}

impl<'de> serde::Deserialize<'de> for NodeId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<NodeId, D::Error> {
        let n = i64::deserialize(d)?;
        u16::try_from(n)
            .ok()
            .and_then(|n| NodeId::new(n).ok())
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "invalid node id {n}: a node id is an integer in 1..=65535"
                ))
            })
    }
}

/// Parses 64 hex digits as an Ed25519 public key, refusing invalid encodings and the
/// small-order ("weak") points, which any signature would verify against.
pub fn parse_public_key_hex(s: &str) -> Result<VerifyingKey, IdentityError> {
    let s = s.trim();
    if s.len() != 64 {
        return Err(IdentityError::InvalidPublicKey("expected 64 hex digits"));
    }
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(s, &mut bytes)
        .map_err(|_| IdentityError::InvalidPublicKey("not hexadecimal"))?;
    let key = VerifyingKey::from_bytes(&bytes)
        .map_err(|_| IdentityError::InvalidPublicKey("not a valid curve point encoding"))?;
    if key.is_weak() {
        return Err(IdentityError::InvalidPublicKey("a small-order point"));
    }
    Ok(key)
}

/// The node's identity: its id and Ed25519 signing key.
pub struct Identity {
    id: NodeId,
    signing: SigningKey,
}

impl Identity {
    /// A fresh identity key for node `id` from the operating system's RNG.
    pub fn generate(id: Option<NodeId>) -> Identity {
        let signing = SigningKey::generate(&mut rand_core::OsRng);
        let id = id.unwrap_or_else(|| NodeId::derive_from_key(&signing.verifying_key()));
        Identity { id, signing }
    }

    /// An identity from its stored 32-byte secret seed.
    pub fn from_seed(id: NodeId, seed: &[u8; 32]) -> Identity {
        Identity {
            id,
            signing: SigningKey::from_bytes(seed),
        }
    }

    /// The 32-byte secret seed (for sealing it in the keystore).
    pub(crate) fn seed(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.signing.to_bytes())
    }

    /// The node id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The signing key (for the transport certificate and for signing envelopes).
    pub fn signing_key(&self) -> &SigningKey {
        &self.signing
    }

    /// The public key.
    pub fn verifying_key(&self) -> VerifyingKey {
        self.signing.verifying_key()
    }

    /// The public key as 64 lowercase hex digits.
    pub fn public_key_hex(&self) -> String {
        hex::encode(self.verifying_key().as_bytes())
    }
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("id", &self.id)
            .field("public_key", &self.public_key_hex())
            .field("signing_key", &quorate_core::secret::REDACTED)
            .finish()
    }
}

/// The keystore passphrase (zeroized on drop, redacted in `Debug`).
pub struct Passphrase(Zeroizing<String>);

impl Passphrase {
    /// A passphrase from a string; refuses the empty passphrase.
    pub fn new(s: String) -> Result<Passphrase, IdentityError> {
        let s = Zeroizing::new(s);
        if s.is_empty() {
            return Err(IdentityError::EmptyPassphrase);
        }
        Ok(Passphrase(s))
    }

    /// Reads a passphrase file (at most 4 KiB; one trailing `\n` or `\r\n` is removed).
    pub fn from_file(path: &Path) -> Result<Passphrase, IdentityError> {
        let bytes = Zeroizing::new(
            fsutil::read_bounded(path, fsutil::MAX_PASSPHRASE_BYTES)
                .map_err(IdentityError::PassphraseFile)?,
        );
        let mut text = Zeroizing::new(
            std::str::from_utf8(&bytes)
                .map_err(|_| {
                    IdentityError::PassphraseFile(FileError::NotUtf8 {
                        path: path.to_path_buf(),
                    })
                })?
                .to_string(),
        );
        if text.ends_with('\n') {
            text.pop();
            if text.ends_with('\r') {
                text.pop();
            }
        }
        Passphrase::new(std::mem::take(&mut *text))
    }

    /// The passphrase from `--passphrase-file` if given, else from `QUORATE_PASSPHRASE`.
    pub fn resolve(file: Option<&Path>) -> Result<Passphrase, IdentityError> {
        if let Some(path) = file {
            return Passphrase::from_file(path);
        }
        match std::env::var(PASSPHRASE_ENV) {
            Ok(s) => Passphrase::new(s),
            Err(std::env::VarError::NotPresent) => Err(IdentityError::MissingPassphrase),
            Err(std::env::VarError::NotUnicode(_)) => Err(IdentityError::PassphraseNotUtf8),
        }
    }

    /// The passphrase bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for Passphrase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(quorate_core::secret::REDACTED)
    }
}

/// Where the keystore passphrase comes from.
#[derive(Debug, Clone, clap::Args)]
pub struct PassphraseArgs {
    /// Read the keystore passphrase from FILE (default: the QUORATE_PASSPHRASE variable).
    #[arg(long, value_name = "FILE")]
    pub passphrase_file: Option<std::path::PathBuf>,
}

impl PassphraseArgs {
    /// The passphrase from the file, or else from `QUORATE_PASSPHRASE`.
    pub fn passphrase(&self) -> Result<Passphrase, IdentityError> {
        Passphrase::resolve(self.passphrase_file.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_are_nonzero_u16() {
        assert!(NodeId::new(0).is_err());
        assert_eq!(NodeId::new(7).expect("7").get(), 7);
        assert_eq!("65535".parse::<NodeId>().expect("max").get(), 65535);
        for bad in ["0", "65536", "-1", "x", ""] {
            assert!(bad.parse::<NodeId>().is_err(), "{bad}");
        }
        let de: Result<NodeId, _> = serde_json::from_str("0");
        assert!(de.is_err());
        let de: NodeId = serde_json::from_str("3").expect("3");
        assert_eq!(de.get(), 3);
    }

    #[test]
    fn derived_ids_are_deterministic_and_nonzero() {
        let a = Identity::generate(None);
        let again = NodeId::derive_from_key(&a.verifying_key());
        assert_eq!(a.id(), again);
        assert_ne!(a.id().get(), 0);
        let b = Identity::from_seed(a.id(), &a.seed());
        assert_eq!(b.verifying_key(), a.verifying_key());
    }

    #[test]
    fn public_key_parsing_rejects_bad_and_weak_keys() {
        let id = Identity::generate(NodeId::new(1).ok());
        let parsed = parse_public_key_hex(&id.public_key_hex()).expect("valid");
        assert_eq!(parsed, id.verifying_key());
        assert!(parse_public_key_hex("00").is_err());
        assert!(parse_public_key_hex(&"zz".repeat(32)).is_err());
        // The identity point (small order) encodes as 01 00..00.
        let mut weak = [0u8; 32];
        weak[0] = 1;
        let err = parse_public_key_hex(&hex::encode(weak)).expect_err("weak");
        assert!(err.to_string().contains("small-order"), "{err}");
    }

    #[test]
    fn debug_output_redacts_secrets() {
        let id = Identity::generate(None);
        let seed_hex = hex::encode(*id.seed());
        let dbg = format!("{id:?}");
        assert!(!dbg.contains(&seed_hex));
        assert!(dbg.contains("redacted"));
        let p = Passphrase::new("hunter2".into()).expect("p");
        assert!(!format!("{p:?}").contains("hunter2"));
    }

    #[test]
    fn passphrase_file_strips_one_newline_and_refuses_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("pw");
        std::fs::write(&path, "secret words\n").expect("write");
        let p = Passphrase::from_file(&path).expect("read");
        assert_eq!(p.as_bytes(), b"secret words");
        std::fs::write(&path, "\n").expect("write");
        assert!(matches!(
            Passphrase::from_file(&path),
            Err(IdentityError::EmptyPassphrase)
        ));
        assert!(matches!(
            Passphrase::from_file(&dir.path().join("none")),
            Err(IdentityError::PassphraseFile(FileError::NotFound { .. }))
        ));
    }
}
