//! The encrypted, crash-safe keystore: secrets, epochs, session states and bans.
//!
//! One SQLite database per node (`keystore.db` in the node directory, mode `0600`, WAL
//! journal, `synchronous=FULL`, `secure_delete=ON`). Every state change is one SQLite
//! transaction, so after a crash each operation is either wholly durable or absent.
//!
//! A key's life, from keygen through a refresh:
//!
//! ```
//! use quorate_node::identity::{Identity, NodeId, Passphrase};
//! use quorate_node::keystore::{CommitOutcome, KdfParams, KeyId, Keystore, KeystoreError, Kind};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("keystore.db");
//! let pass = Passphrase::new("correct horse battery staple".into())?;
//! let me = Identity::generate(NodeId::new(1).ok());
//! // Tests use cheap Argon2id parameters; a node uses KdfParams::DEFAULT.
//! let mut ks = Keystore::create(&path, &me, &pass, KdfParams::insecure_for_tests())?;
//! let key = KeyId::new("ecdsa-main")?;
//!
//! // Keygen: a pending epoch 0, its share, then the certificate every holder signed.
//! ks.begin_epoch(&key, 0)?;
//! ks.put_secret(&key, 0, 1, &Kind::KEY_SHARE, b"share at epoch 0")?;
//! ks.commit_epoch(&key, 0, b"certificate of epoch 0")?;
//!
//! // Refresh: epoch 1 is pending while epoch 0 still signs; the commit retires epoch 0.
//! ks.begin_epoch(&key, 1)?;
//! ks.put_secret(&key, 1, 1, &Kind::KEY_SHARE, b"share at epoch 1")?;
//! let outcome = ks.commit_epoch(&key, 1, b"certificate of epoch 1")?;
//! assert_eq!(outcome, CommitOutcome::Committed { retired: vec![0] });
//! assert!(matches!(
//!     ks.get_secret(&key, 0, &Kind::KEY_SHARE),
//!     Err(KeystoreError::EpochRetired { .. })
//! ));
//! drop(ks);
//!
//! // A wrong passphrase is a typed error, never garbage.
//! let wrong = Passphrase::new("wrong".into())?;
//! assert!(matches!(Keystore::open(&path, &wrong), Err(KeystoreError::WrongPassphrase)));
//! let ks = Keystore::open(&path, &pass)?;
//! assert_eq!(ks.identity()?.verifying_key(), me.verifying_key());
//! let share = ks.get_secret(&key, 1, &Kind::KEY_SHARE)?.ok_or("missing")?;
//! assert_eq!(share.bytes.expose(), b"share at epoch 1");
//! # Ok(())
//! # }
//! ```
//!
//! # Envelope encryption
//!
//! ```text
//! passphrase ──Argon2id(salt, m, t, p)──▶ KEK (32 bytes, only in memory)
//! KEK  ──XChaCha20-Poly1305, AD = (node, key id, epoch)──▶ wrapped data key, one per (key id, epoch)
//! data key ──XChaCha20-Poly1305, AD = (node, key id, epoch, attempt, kind)──▶ sealed secret
//! ```
//!
//! * **KDF**: Argon2id v1.3, 16-byte random salt per store, 32-byte output. Default
//!   parameters ([`KdfParams::DEFAULT`]): `m = 65536 KiB` (64 MiB), `t = 3`, `p = 1` (RFC 9106
//!   §4's second recommended option with one lane, for a 2-core node). The parameters and
//!   salt are stored in the header; [`KdfParams::insecure_for_tests`] (`m = 64 KiB`, `t = 1`)
//!   is chosen only by tests and by the hidden `node init --insecure-test-kdf` flag. Opening
//!   refuses parameters above `m = 1 GiB`, `t = 64`, `p = 16`, so a tampered header cannot
//!   make the node allocate unbounded memory.
//! * **AEAD**: XChaCha20-Poly1305 with a fresh random 24-byte nonce per seal (random nonces
//!   are safe at this size); a blob is `nonce ‖ ciphertext ‖ tag`.
//! * **Associated data** ([`crypto`]) is a length-prefixed encoding of a domain label and
//!   (node id, key id, epoch) for a data key, (node id, key id, epoch, attempt, kind) for a
//!   secret, and additionally the request id for a session state. A blob moved to another
//!   row, key, epoch, node or kind fails authentication ([`KeystoreError::Tampered`]).
//! * **Wrong passphrase**: the header holds a KEK check value (an AEAD seal of nothing under
//!   the KEK, with the node id, salt and parameters as associated data). A wrong passphrase,
//!   or an altered header, fails it: [`KeystoreError::WrongPassphrase`], never garbage.
//!
//! # Epochs and refresh
//!
//! A key id's epochs move `pending → active → retired`:
//!
//! 1. [`Keystore::begin_epoch`] creates a pending epoch with a fresh data key;
//! 2. [`Keystore::put_secret`] stores the new share under it (insert-only; an existing
//!    (key id, epoch, kind) is [`KeystoreError::SecretExists`] unless
//!    [`Keystore::replace_secret`] is called);
//! 3. [`Keystore::commit_epoch`] stores the epoch certificate (signed by every holder) and,
//!    in the same transaction, retires every older epoch of the key: its wrapped data key is
//!    deleted, its secrets are deleted, and its session states are cleared. With
//!    `secure_delete` and a WAL checkpoint (`TRUNCATE`) right after, the old wrapped data key
//!    is gone from every file of the store, so the old share is unreadable even from a later
//!    copy of the disk (erasure cannot reach copies taken *before* the commit, nor blocks the
//!    file system or the device keep elsewhere);
//! 4. [`Keystore::abandon_epoch`] deletes a pending epoch whose refresh failed.
//!
//! # Crash model (what is durable after each step)
//!
//! | step | after a crash *before* it returns | after it returns |
//! |---|---|---|
//! | `create` | no header: opening says the creation did not finish | header, KEK check, identity key |
//! | `begin_epoch` | no epoch | pending epoch with its data key |
//! | `put_secret` / `replace_secret` | no secret (or the old one) | the sealed secret |
//! | `commit_epoch` | the old epoch active, the new one pending | new epoch active with certificate; old data key deleted (a crash before the WAL checkpoint leaves its bytes in the WAL file until the next open, which checkpoints first) |
//! | `abandon_epoch` | pending epoch intact | epoch and its secrets gone |
//! | `sessions().begin/update/finish` | the previous session row | the new row |
//! | `bans().add` | no ban | the ban with its evidence |
//!
//! A restarted node therefore finds each key with one active epoch and at most one pending
//! epoch: it either obtains the certificate for the pending epoch (from any holder, since
//! every holder signed it) and commits, or abandons it. The test-only hook
//! [`crate::faults`] aborts the process at each named step.
//!
//! # Tables (format 1)
//!
//! `header` (one row: format, node id, salt, Argon2id parameters, KEK check),
//! `epochs` (key id, epoch, status, wrapped data key or NULL, certificate),
//! `secrets` (key id, epoch, kind, attempt, sealed value),
//! `sessions` (key id, epoch, attempt, unique request id, status, sealed state, public
//! result, version) and `bans` (key id, node id, reason, evidence).

mod bans;
mod crypto;
mod error;
pub mod sealed;
mod sessions;
mod store;
mod types;

pub use bans::{Ban, Bans};
pub use crypto::KdfParams;
pub use error::KeystoreError;
pub use sessions::{Begun, SessionOutcome, SessionRecord, SessionStatus, Sessions};
pub use store::{
    CommitOutcome, DerivedOpen, EpochInfo, EpochStatus, Keystore, SecretProblem, StoredSecret,
};
pub use types::{KeyId, Kind, RequestId, SecretBytes};

#[cfg(test)]
mod tests;
