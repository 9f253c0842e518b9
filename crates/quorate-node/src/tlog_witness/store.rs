//! The witness's durable state: `witness.db` in the node directory (SQLite, WAL,
//! `synchronous=FULL`, mode 0600).
//!
//! One row per log: origin, the log's note verifier key, enabled flag, and the latest
//! cosigned (size, root hash, signed checkpoint). A log is never deleted, only disabled:
//! re-adding a deleted log would reset its size to zero and let the witness cosign a split
//! view. Keys are fixed when the log is added.
//!
//! [`WitnessStore::apply`] is the compare-and-swap: in ONE `BEGIN IMMEDIATE` transaction it
//! checks each update against the stored state (enabled, old size, consistency proof, equal
//! roots at equal sizes) and writes the accepted ones; the commit (an fsync) happens before
//! any cosignature is made. SQLite's write lock makes this atomic across threads and
//! processes, so two requests can never both pass the check against the same stored size.
//!
//! Rejections by a log-signed checkpoint that contradicts the stored state (a bad
//! consistency proof, or another root at the same size) are kept in `evidence` (the request
//! body, whose log signature a third party can check; the last [`MAX_EVIDENCE_PER_LOG`] per
//! log).

use super::note::{Verifier, SIG_TYPE_ED25519};
use super::proof::{empty_root, verify_consistency, Hash};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Duration;

/// The witness database file in the node directory.
pub const WITNESS_DB: &str = "witness.db";
/// Longest origin accepted by `add-log`, in bytes.
pub const MAX_ORIGIN_BYTES: usize = 1024;
/// Evidence rows kept per log.
pub const MAX_EVIDENCE_PER_LOG: i64 = 64;
const FORMAT: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (one INTEGER PRIMARY KEY CHECK (one = 1), format INTEGER NOT NULL);
INSERT OR IGNORE INTO meta (one, format) VALUES (1, 1);
CREATE TABLE IF NOT EXISTS logs (
    origin TEXT PRIMARY KEY,
    vkey TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    size INTEGER NOT NULL,
    root BLOB NOT NULL,
    checkpoint TEXT,
    added_at INTEGER NOT NULL,
    updated_at INTEGER
);
CREATE TABLE IF NOT EXISTS evidence (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    origin TEXT NOT NULL,
    at INTEGER NOT NULL,
    reason TEXT NOT NULL,
    request BLOB NOT NULL
);
";

/// A witness store failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// SQLite failed.
    #[error("witness store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The file could not be created.
    #[error("witness store {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The origin is already registered (logs are never replaced or re-added).
    #[error("log {0:?} is already registered (a log is never replaced; disable it instead)")]
    LogExists(String),
    /// No such log.
    #[error("no log with origin {0:?}")]
    UnknownLog(String),
    /// An invalid argument.
    #[error("{0}")]
    Invalid(String),
    /// The stored data is damaged or from another version.
    #[error("witness store: {0}")]
    Corrupt(String),
}

/// A registered log.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LogRecord {
    /// The origin line.
    pub origin: String,
    /// The log's note verifier key.
    pub vkey: String,
    /// Whether the witness cosigns for it.
    pub enabled: bool,
    /// The latest cosigned tree size (0 before the first).
    pub size: u64,
    /// The latest cosigned root hash, hex.
    pub root: String,
}

/// One checked update: the log's signature has already been verified.
#[derive(Clone, Debug)]
pub struct Update {
    /// The origin.
    pub origin: String,
    /// The request's old size.
    pub old_size: u64,
    /// The request's consistency proof.
    pub proof: Vec<Hash>,
    /// The checkpoint's size.
    pub size: u64,
    /// The checkpoint's root hash.
    pub root: Hash,
    /// The request body (stored as the latest checkpoint, or as evidence).
    pub request: Vec<u8>,
    /// Where the signed checkpoint note starts in `request`.
    pub note_offset: usize,
}

/// What the compare-and-swap decided for one update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Stored: the witness may cosign.
    Cosign,
    /// Unknown or disabled log (404).
    UnknownLog,
    /// The old size is not the stored size (409, with the stored size).
    StaleSize(u64),
    /// Same size, another root hash (409, with the stored size).
    RootMismatch(u64),
    /// The consistency proof does not verify (422).
    BadProof,
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

fn to_i64(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Invalid(format!("{v} is too large")))
}

fn to_u64(v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| StoreError::Corrupt("a negative stored size".into()))
}

/// Checks an origin for `add-log`: non-empty, at most [`MAX_ORIGIN_BYTES`], no control
/// characters.
pub fn validate_origin(origin: &str) -> Result<(), StoreError> {
    if origin.is_empty() || origin.len() > MAX_ORIGIN_BYTES || origin.chars().any(char::is_control)
    {
        return Err(StoreError::Invalid(format!(
            "an origin has 1 to {MAX_ORIGIN_BYTES} bytes and no control characters"
        )));
    }
    Ok(())
}

/// An open witness store (one connection).
#[derive(Debug)]
pub struct WitnessStore {
    conn: Connection,
}

impl WitnessStore {
    /// Opens (creating it 0600 if absent) the witness database at `path`.
    pub fn open(path: &Path) -> Result<WitnessStore, StoreError> {
        let io = |source| StoreError::Io {
            path: path.display().to_string(),
            source,
        };
        if !path.exists() {
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(path)
                .and_then(|f| f.sync_all())
                .map_err(io)?;
            if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                crate::fsutil::sync_dir(dir).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            }
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(Duration::from_secs(10))?;
        let mode: String =
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Corrupt(format!(
                "could not switch the journal to WAL (got {mode})"
            )));
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(SCHEMA)?;
        let format: i64 =
            conn.query_row("SELECT format FROM meta WHERE one = 1", [], |r| r.get(0))?;
        if format != FORMAT {
            return Err(StoreError::Corrupt(format!("unsupported format {format}")));
        }
        Ok(WitnessStore { conn })
    }

    /// Registers a log at size 0. Refused if the origin was ever registered.
    pub fn add_log(&mut self, origin: &str, vkey: &Verifier) -> Result<LogRecord, StoreError> {
        validate_origin(origin)?;
        if vkey.sig_type() != SIG_TYPE_ED25519 {
            return Err(StoreError::Invalid(
                "a log's verifier key must be an Ed25519 note key (type 0x01)".into(),
            ));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let exists: Option<i64> = tx
            .query_row("SELECT 1 FROM logs WHERE origin = ?1", [origin], |r| {
                r.get(0)
            })
            .optional()?;
        if exists.is_some() {
            return Err(StoreError::LogExists(origin.to_string()));
        }
        tx.execute(
            "INSERT INTO logs (origin, vkey, enabled, size, root, checkpoint, added_at)
             VALUES (?1, ?2, 1, 0, ?3, NULL, ?4)",
            params![origin, vkey.to_string(), &empty_root()[..], now_secs()],
        )?;
        tx.commit()?;
        self.log(origin)?
            .ok_or_else(|| StoreError::Corrupt("the new log vanished".into()))
    }

    /// Enables or disables a log (it is never deleted).
    pub fn set_enabled(&mut self, origin: &str, enabled: bool) -> Result<LogRecord, StoreError> {
        let n = self.conn.execute(
            "UPDATE logs SET enabled = ?2 WHERE origin = ?1",
            params![origin, enabled],
        )?;
        if n == 0 {
            return Err(StoreError::UnknownLog(origin.to_string()));
        }
        self.log(origin)?
            .ok_or_else(|| StoreError::Corrupt("the log vanished".into()))
    }

    fn record(r: &rusqlite::Row<'_>) -> rusqlite::Result<(String, String, bool, i64, Vec<u8>)> {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    }

    fn to_record(row: (String, String, bool, i64, Vec<u8>)) -> Result<LogRecord, StoreError> {
        let (origin, vkey, enabled, size, root) = row;
        Ok(LogRecord {
            origin,
            vkey,
            enabled,
            size: to_u64(size)?,
            root: hex::encode(root),
        })
    }

    /// Every registered log, by origin.
    pub fn logs(&self) -> Result<Vec<LogRecord>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT origin, vkey, enabled, size, root FROM logs ORDER BY origin")?;
        let rows = stmt.query_map([], Self::record)?;
        rows.map(|r| Self::to_record(r?)).collect()
    }

    /// One log.
    pub fn log(&self, origin: &str) -> Result<Option<LogRecord>, StoreError> {
        self.conn
            .query_row(
                "SELECT origin, vkey, enabled, size, root FROM logs WHERE origin = ?1",
                [origin],
                Self::record,
            )
            .optional()?
            .map(Self::to_record)
            .transpose()
    }

    /// The evidence rows kept for a log: (unix time, reason, request body), oldest first.
    pub fn evidence(&self, origin: &str) -> Result<Vec<(i64, String, Vec<u8>)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT at, reason, request FROM evidence WHERE origin = ?1 ORDER BY id")?;
        let rows = stmt.query_map([origin], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The compare-and-swap of a batch of updates, in order, in one durable transaction (see
    /// the module docs). Returns one outcome per update; nothing is written on error.
    pub fn apply(&mut self, updates: &[Update]) -> Result<Vec<Outcome>, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut out = Vec::with_capacity(updates.len());
        let now = now_secs();
        for u in updates {
            let row: Option<(bool, i64, Vec<u8>)> = tx
                .query_row(
                    "SELECT enabled, size, root FROM logs WHERE origin = ?1",
                    [&u.origin],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            let Some((true, size, root)) = row else {
                out.push(Outcome::UnknownLog);
                continue;
            };
            let size = to_u64(size)?;
            let root: Hash = root
                .try_into()
                .map_err(|_| StoreError::Corrupt("a stored root hash is not 32 bytes".into()))?;
            let outcome = if u.old_size != size {
                Outcome::StaleSize(size)
            } else if u.size == size {
                if u.proof.is_empty() && u.root == root {
                    Outcome::Cosign
                } else if u.root != root {
                    Outcome::RootMismatch(size)
                } else {
                    Outcome::BadProof
                }
            } else if verify_consistency(size, u.size, &root, &u.root, &u.proof) {
                Outcome::Cosign
            } else {
                Outcome::BadProof
            };
            match outcome {
                Outcome::Cosign => {
                    let note =
                        std::str::from_utf8(&u.request[u.note_offset.min(u.request.len())..])
                            .unwrap_or("");
                    tx.execute(
                        "UPDATE logs SET size = ?2, root = ?3, checkpoint = ?4, updated_at = ?5
                         WHERE origin = ?1",
                        params![u.origin, to_i64(u.size)?, &u.root[..], note, now],
                    )?;
                }
                Outcome::BadProof | Outcome::RootMismatch(_) => {
                    let reason = if outcome == Outcome::BadProof {
                        "consistency proof does not verify"
                    } else {
                        "another root hash at the cosigned size"
                    };
                    tx.execute(
                        "INSERT INTO evidence (origin, at, reason, request) VALUES (?1, ?2, ?3, ?4)",
                        params![u.origin, now, reason, u.request],
                    )?;
                    tx.execute(
                        "DELETE FROM evidence WHERE origin = ?1 AND id NOT IN
                         (SELECT id FROM evidence WHERE origin = ?1 ORDER BY id DESC LIMIT ?2)",
                        params![u.origin, MAX_EVIDENCE_PER_LOG],
                    )?;
                }
                _ => {}
            }
            out.push(outcome);
        }
        crate::faults::crash_point("tlog_witness.apply.before_commit");
        tx.commit()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlog_witness::proof::MemoryLog;
    use ed25519_dalek::SigningKey;

    fn vkey() -> Verifier {
        Verifier::ed25519(
            "log.example",
            SigningKey::from_bytes(&[1; 32]).verifying_key(),
        )
    }

    fn update(log: &MemoryLog, old: u64, new: u64) -> Update {
        Update {
            origin: "log.example".into(),
            old_size: old,
            proof: log.consistency_proof(old, new),
            size: new,
            root: log.root(new),
            request: format!("request {old}->{new}").into_bytes(),
            note_offset: 0,
        }
    }

    #[test]
    fn the_compare_and_swap_follows_the_spec() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join(WITNESS_DB);
        let mut st = WitnessStore::open(&path).expect("open");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let mut log = MemoryLog::new();
        for i in 0..20u32 {
            log.append(&i.to_be_bytes());
        }
        assert_eq!(
            st.apply(&[update(&log, 0, 5)]).expect("apply"),
            vec![Outcome::UnknownLog]
        );
        st.add_log("log.example", &vkey()).expect("add");
        assert!(matches!(
            st.add_log("log.example", &vkey()),
            Err(StoreError::LogExists(_))
        ));
        let mut bad = update(&log, 5, 9);
        bad.old_size = 5;
        let mut wrong_root = update(&log, 0, 5);
        wrong_root.root = log.root(6);
        let mut bad_proof = update(&log, 5, 9);
        bad_proof.proof[0][0] ^= 1;
        let outcomes = st
            .apply(&[
                update(&log, 0, 5),  // cosign
                update(&log, 0, 7),  // stale: now 5
                bad_proof,           // 422
                update(&log, 5, 5),  // same size, same root: cosign again
                wrong_root,          // old 0 is stale
                update(&log, 5, 9),  // cosign
                update(&log, 9, 20), // cosign
            ])
            .expect("apply");
        assert_eq!(
            outcomes,
            vec![
                Outcome::Cosign,
                Outcome::StaleSize(5),
                Outcome::BadProof,
                Outcome::Cosign,
                Outcome::StaleSize(5),
                Outcome::Cosign,
                Outcome::Cosign,
            ]
        );
        let mut fork = update(&log, 20, 20);
        fork.root = [9; 32];
        assert_eq!(
            st.apply(&[fork]).expect("apply"),
            vec![Outcome::RootMismatch(20)]
        );
        assert_eq!(st.evidence("log.example").expect("evidence").len(), 2);
        let rec = st.log("log.example").expect("log").expect("present");
        assert_eq!(rec.size, 20);
        assert_eq!(rec.root, hex::encode(log.root(20)));
        st.set_enabled("log.example", false).expect("disable");
        assert_eq!(
            st.apply(&[update(&log, 20, 20)]).expect("apply"),
            vec![Outcome::UnknownLog]
        );
        // Disabled, never deleted: re-adding is refused and the state is kept.
        assert!(st.add_log("log.example", &vkey()).is_err());
        let rec = st.set_enabled("log.example", true).expect("enable");
        assert_eq!(rec.size, 20);
        assert!(matches!(
            st.set_enabled("other", false),
            Err(StoreError::UnknownLog(_))
        ));
        let witness_key =
            Verifier::cosignature_v1("w", SigningKey::from_bytes(&[2; 32]).verifying_key());
        assert!(
            st.add_log("other", &witness_key).is_err(),
            "0x04 is not a log key"
        );
        assert!(st.add_log("", &vkey()).is_err());
    }

    /// The race of the spec: many writers (each with its own connection, as separate
    /// processes would have) submit conflicting sizes from the same old size at once;
    /// exactly one is accepted and the stored state is the accepted one.
    #[test]
    fn concurrent_updates_are_never_both_accepted() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join(WITNESS_DB);
        WitnessStore::open(&path)
            .expect("open")
            .add_log("log.example", &vkey())
            .expect("add");
        let mut log = MemoryLog::new();
        for i in 0..40u32 {
            log.append(&i.to_be_bytes());
        }
        for round in 0..3u64 {
            let old = round * 10;
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
            let handles: Vec<_> = (1..=8u64)
                .map(|k| {
                    let (path, barrier, u) =
                        (path.clone(), barrier.clone(), update(&log, old, old + k));
                    std::thread::spawn(move || {
                        let mut st = WitnessStore::open(&path).expect("open");
                        barrier.wait();
                        (old + k, st.apply(&[u]).expect("apply")[0])
                    })
                })
                .collect();
            let results: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("join"))
                .collect();
            let won: Vec<u64> = results
                .iter()
                .filter(|(_, o)| *o == Outcome::Cosign)
                .map(|(s, _)| *s)
                .collect();
            assert_eq!(won.len(), 1, "exactly one accepted: {results:?}");
            for (_, o) in &results {
                assert!(
                    matches!(o, Outcome::Cosign | Outcome::StaleSize(_)),
                    "{o:?}"
                );
            }
            let st = WitnessStore::open(&path).expect("open");
            let rec = st.log("log.example").expect("log").expect("present");
            assert_eq!(rec.size, won[0]);
            // Move on from a known state for the next round.
            let mut st = st;
            assert_eq!(
                st.apply(&[update(&log, won[0], (round + 1) * 10)])
                    .expect("apply"),
                vec![Outcome::Cosign]
            );
        }
    }
}
