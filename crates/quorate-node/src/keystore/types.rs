//! Validated names used as keystore keys, and the secret byte buffer.

use super::error::KeystoreError;
use std::borrow::Cow;
use std::fmt;
use zeroize::Zeroizing;

/// Longest key id, kind or request id, in bytes.
pub const MAX_NAME_LEN: usize = 128;

fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_NAME_LEN
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'))
}

/// A key id: 1 to 128 characters from `[A-Za-z0-9._:-]`, not starting with `_` (reserved for
/// the node's own keys, such as [`KeyId::identity`]).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyId(String);

impl KeyId {
    /// A key id, validated.
    pub fn new(s: &str) -> Result<KeyId, KeystoreError> {
        if !valid_name(s) || s.starts_with('_') {
            return Err(KeystoreError::InvalidName {
                what: "key id",
                name: s.chars().take(MAX_NAME_LEN + 1).collect(),
            });
        }
        Ok(KeyId(s.to_string()))
    }

    /// The reserved key id under which the node's identity key is sealed.
    pub fn identity() -> KeyId {
        KeyId("_identity".to_string())
    }

    /// The reserved key id of the node's CoSi witness key ([`crate::cosi`]).
    pub fn cosi_witness() -> KeyId {
        KeyId("_cosi-witness".to_string())
    }

    /// A key id read back from the store (reserved names allowed).
    pub(crate) fn from_stored(s: String) -> Result<KeyId, KeystoreError> {
        if valid_name(&s) {
            Ok(KeyId(s))
        } else {
            Err(KeystoreError::Corrupt(
                "a stored key id is malformed".into(),
            ))
        }
    }

    /// The key id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is one of the node's reserved key ids.
    pub fn is_reserved(&self) -> bool {
        self.0.starts_with('_')
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a sealed secret is (bound into its associated data): 1 to 128 characters from
/// `[A-Za-z0-9._:-]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kind(Cow<'static, str>);

impl Kind {
    /// The node's Ed25519 identity key seed.
    pub const IDENTITY: Kind = Kind(Cow::Borrowed("identity"));
    /// A threshold key share (the serialized share of the protocol crate).
    pub const KEY_SHARE: Kind = Kind(Cow::Borrowed("key-share"));
    /// A persisted session state (used by [`super::Sessions`]).
    pub const SESSION_STATE: Kind = Kind(Cow::Borrowed("session-state"));
    /// A CoSi witness secret key ([`crate::cosi`]).
    pub const COSI_WITNESS: Kind = Kind(Cow::Borrowed("cosi-witness"));

    /// A kind, validated.
    pub fn new(s: &str) -> Result<Kind, KeystoreError> {
        if !valid_name(s) {
            return Err(KeystoreError::InvalidName {
                what: "kind",
                name: s.chars().take(MAX_NAME_LEN + 1).collect(),
            });
        }
        Ok(Kind(Cow::Owned(s.to_string())))
    }

    /// The kind as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An operator-supplied request id, the idempotency key of a session: 1 to 128 characters
/// from `[A-Za-z0-9._:-]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RequestId(String);

impl RequestId {
    /// A request id, validated.
    pub fn new(s: &str) -> Result<RequestId, KeystoreError> {
        if !valid_name(s) {
            return Err(KeystoreError::InvalidName {
                what: "request id",
                name: s.chars().take(MAX_NAME_LEN + 1).collect(),
            });
        }
        Ok(RequestId(s.to_string()))
    }

    pub(crate) fn from_stored(s: String) -> Result<RequestId, KeystoreError> {
        if valid_name(&s) {
            Ok(RequestId(s))
        } else {
            Err(KeystoreError::Corrupt(
                "a stored request id is malformed".into(),
            ))
        }
    }

    /// The request id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Secret bytes opened from the keystore: zeroized on drop, redacted in `Debug`.
pub struct SecretBytes(Zeroizing<Vec<u8>>);

impl SecretBytes {
    pub(crate) fn new(bytes: Zeroizing<Vec<u8>>) -> SecretBytes {
        SecretBytes(bytes)
    }

    /// The secret bytes.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for SecretBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SecretBytes({} bytes, {})",
            self.0.len(),
            quorate_core::secret::REDACTED
        )
    }
}
