//! The keystore's error type.

use crate::fsutil::FileError;
use std::path::PathBuf;

/// A keystore failure. Every variant names what went wrong; none is a panic.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeystoreError {
    /// The passphrase does not open this keystore (or its header was altered).
    #[error("wrong passphrase: the keystore's key check failed (if the passphrase is right, the keystore header was altered)")]
    WrongPassphrase,
    /// The store is not a readable quorate keystore.
    #[error("corrupted keystore: {0}")]
    Corrupt(String),
    /// A sealed value failed authentication: altered, or moved from another row.
    #[error("keystore value failed authentication ({what} of key {key_id} epoch {epoch}): it was altered or moved from another row")]
    Tampered {
        /// What was being opened.
        what: &'static str,
        /// The key id of the row.
        key_id: String,
        /// The epoch of the row.
        epoch: u64,
    },
    /// The keystore format version is not one this build reads.
    #[error("unsupported keystore format {0} (this build reads formats 1 and 2)")]
    UnsupportedFormat(i64),
    /// The store's key-encryption key is derived from the node keystore's
    /// ([`crate::keystore::Keystore::open_derived`]); it has no passphrase of its own.
    #[error("this store's key is derived from the node keystore's (purpose {purpose:?}): the node opens it through keystore.db, not with a passphrase")]
    DerivedStore {
        /// The purpose the store was derived for.
        purpose: String,
    },
    /// A derived store does not open under the key derived from this node keystore.
    #[error("{what}: the key derived from keystore.db does not open it (it belongs to another keystore.db of this node, or its header was altered)")]
    DerivedKeyMismatch {
        /// Which store, and for what purpose.
        what: String,
    },
    /// Argon2id parameters out of bounds.
    #[error("invalid Argon2id parameters: {0}")]
    KdfParams(&'static str),
    /// The keystore belongs to another node.
    #[error("the keystore belongs to node {found}, not node {expected}")]
    NodeMismatch {
        /// The node id the caller expected.
        expected: u16,
        /// The node id in the keystore header.
        found: u16,
    },
    /// A key id, kind or request id is malformed.
    #[error("invalid {what} {name:?}: use 1 to 128 characters from [A-Za-z0-9._:-] (key ids must not start with '_')")]
    InvalidName {
        /// Which kind of name.
        what: &'static str,
        /// The offending name (truncated).
        name: String,
    },
    /// A value is larger than the keystore accepts.
    #[error("{what} is {len} bytes, more than the {max}-byte limit")]
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// A secret for (key id, epoch, kind) is already stored (use the explicit replace API).
    #[error(
        "a {kind} secret for key {key_id} epoch {epoch} already exists (refusing to overwrite it)"
    )]
    SecretExists {
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
        /// The kind.
        kind: String,
    },
    /// The epoch already exists.
    #[error("epoch {epoch} of key {key_id} already exists")]
    EpochExists {
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
    },
    /// No such epoch.
    #[error("no epoch {epoch} of key {key_id} in the keystore")]
    NoSuchEpoch {
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
    },
    /// The epoch was retired: its data key is destroyed and its secrets are unreadable.
    #[error("epoch {epoch} of key {key_id} is retired: its data key was destroyed")]
    EpochRetired {
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
    },
    /// A new epoch must be newer than the active one.
    #[error("epoch {epoch} of key {key_id} is not newer than the active epoch {active}")]
    EpochNotNewer {
        /// The key id.
        key_id: String,
        /// The requested epoch.
        epoch: u64,
        /// The active epoch.
        active: u64,
    },
    /// The operation does not apply to the epoch in its current state.
    #[error("cannot {op} epoch {epoch} of key {key_id}: {reason}")]
    EpochState {
        /// The operation.
        op: &'static str,
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
        /// Why not.
        reason: &'static str,
    },
    /// The attempt was already used by another request: an attempt never reruns.
    #[error("attempt {attempt} of key {key_id} epoch {epoch} was already used by request {request_id}: an attempt never reruns")]
    AttemptUsed {
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
        /// The attempt.
        attempt: u32,
        /// The request that used it.
        request_id: String,
    },
    /// No session with that (key id, epoch, attempt).
    #[error("no session for key {key_id} epoch {epoch} attempt {attempt}")]
    NoSuchSession {
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
        /// The attempt.
        attempt: u32,
    },
    /// The session already finished and cannot change.
    #[error("session for key {key_id} epoch {epoch} attempt {attempt} already finished")]
    SessionFinished {
        /// The key id.
        key_id: String,
        /// The epoch.
        epoch: u64,
        /// The attempt.
        attempt: u32,
    },
    /// A file operation failed (the keystore file is missing, exists already, ...).
    #[error(transparent)]
    File(#[from] FileError),
    /// Another database error.
    #[error("keystore database error: {0}")]
    Database(#[source] rusqlite::Error),
}

impl KeystoreError {
    /// A missing keystore file.
    pub(crate) fn not_found(path: PathBuf) -> KeystoreError {
        KeystoreError::File(FileError::NotFound { path })
    }
}

impl From<rusqlite::Error> for KeystoreError {
    fn from(e: rusqlite::Error) -> KeystoreError {
        use rusqlite::ErrorCode;
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => {
                KeystoreError::Corrupt("the file is not an SQLite database".into())
            }
            Some(ErrorCode::DatabaseCorrupt) => {
                KeystoreError::Corrupt(format!("the database is damaged ({e})"))
            }
            _ => match e {
                rusqlite::Error::InvalidColumnType(..)
                | rusqlite::Error::FromSqlConversionFailure(..)
                | rusqlite::Error::IntegralValueOutOfRange(..) => {
                    KeystoreError::Corrupt(format!("a stored value has the wrong type ({e})"))
                }
                e => KeystoreError::Database(e),
            },
        }
    }
}
