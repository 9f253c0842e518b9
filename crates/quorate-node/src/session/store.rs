//! Persistence of session state: operator requests (idempotency by request id) and claimed
//! attempts keyed by (key id, epoch, attempt).
//!
//! [`SessionStore`] is the interface the runtime needs; [`MemoryStore`] implements it in
//! memory (tests), [`SqliteStore`] durably in the node directory (`runtime.db`). Only public
//! bookkeeping lives here (requests, attempt claims, outcomes); a driver's secret per-attempt
//! state belongs in the keystore's sealed session table.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::{AttemptKey, Outcome, RequestRecord};

/// Storage failures.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The backend failed.
    #[error("{0}")]
    Backend(String),
}

/// Result of claiming an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Newly claimed for this session.
    Claimed,
    /// Already claimed by this same session (a duplicate proposal).
    Same,
    /// Already claimed by another session: the attempt must not run again.
    Taken,
}

/// What the session runtime persists.
pub trait SessionStore: Send + Sync {
    /// Inserts `record` unless its request id exists; returns the existing record then.
    fn insert_request(&self, record: &RequestRecord) -> Result<Option<RequestRecord>, StoreError>;
    /// Replaces the record of an existing request id.
    fn update_request(&self, record: &RequestRecord) -> Result<(), StoreError>;
    /// The record of a request id.
    fn request(&self, request_id: &str) -> Result<Option<RequestRecord>, StoreError>;
    /// Every request, oldest first.
    fn requests(&self) -> Result<Vec<RequestRecord>, StoreError>;
    /// Claims `key` for `session` (atomically, durably, before any message is sent).
    fn claim_attempt(&self, key: &AttemptKey, session: [u8; 32]) -> Result<Claim, StoreError>;
    /// The smallest attempt number not yet claimed for (key id, epoch).
    fn next_attempt(&self, key_id: &str, epoch: u64) -> Result<u32, StoreError>;
    /// Records how a claimed attempt ended.
    fn finish_attempt(&self, key: &AttemptKey, outcome: &Outcome) -> Result<(), StoreError>;
    /// The recorded outcome of an attempt.
    fn attempt_outcome(&self, key: &AttemptKey) -> Result<Option<Outcome>, StoreError>;
}

#[derive(Default)]
struct Inner {
    requests: Vec<RequestRecord>,
    attempts: BTreeMap<AttemptKey, ([u8; 32], Option<Outcome>)>,
}

/// An in-memory [`SessionStore`] (state is lost on restart).
#[derive(Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryStore")
    }
}

impl MemoryStore {
    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Inner>, StoreError> {
        self.inner
            .lock()
            .map_err(|_| StoreError::Backend("store lock poisoned".into()))
    }
}

impl SessionStore for MemoryStore {
    fn insert_request(&self, record: &RequestRecord) -> Result<Option<RequestRecord>, StoreError> {
        let mut g = self.lock()?;
        let id = &record.request.request_id;
        if let Some(r) = g.requests.iter().find(|r| &r.request.request_id == id) {
            return Ok(Some(r.clone()));
        }
        g.requests.push(record.clone());
        Ok(None)
    }

    fn update_request(&self, record: &RequestRecord) -> Result<(), StoreError> {
        let mut g = self.lock()?;
        let id = &record.request.request_id;
        match g.requests.iter_mut().find(|r| &r.request.request_id == id) {
            Some(r) => {
                *r = record.clone();
                Ok(())
            }
            None => Err(StoreError::Backend(format!("unknown request id {id:?}"))),
        }
    }

    fn request(&self, request_id: &str) -> Result<Option<RequestRecord>, StoreError> {
        Ok(self
            .lock()?
            .requests
            .iter()
            .find(|r| r.request.request_id == request_id)
            .cloned())
    }

    fn requests(&self) -> Result<Vec<RequestRecord>, StoreError> {
        Ok(self.lock()?.requests.clone())
    }

    fn claim_attempt(&self, key: &AttemptKey, session: [u8; 32]) -> Result<Claim, StoreError> {
        let mut g = self.lock()?;
        match g.attempts.get(key) {
            Some((s, _)) if *s == session => Ok(Claim::Same),
            Some(_) => Ok(Claim::Taken),
            None => {
                g.attempts.insert(key.clone(), (session, None));
                Ok(Claim::Claimed)
            }
        }
    }

    fn next_attempt(&self, key_id: &str, epoch: u64) -> Result<u32, StoreError> {
        let g = self.lock()?;
        let last = g
            .attempts
            .keys()
            .filter(|k| k.key_id == key_id && k.epoch == epoch)
            .map(|k| k.attempt)
            .max();
        Ok(last.map_or(0, |a| a.saturating_add(1)))
    }

    fn finish_attempt(&self, key: &AttemptKey, outcome: &Outcome) -> Result<(), StoreError> {
        let mut g = self.lock()?;
        match g.attempts.get_mut(key) {
            Some(entry) => {
                entry.1 = Some(outcome.clone());
                Ok(())
            }
            None => Err(StoreError::Backend("finishing an unclaimed attempt".into())),
        }
    }

    fn attempt_outcome(&self, key: &AttemptKey) -> Result<Option<Outcome>, StoreError> {
        Ok(self.lock()?.attempts.get(key).and_then(|(_, o)| o.clone()))
    }
}

/// A durable [`SessionStore`] in an SQLite file: every write is one transaction with
/// `synchronous=FULL`, the file is created with mode 0600. On open, attempts and requests
/// that were running when the node stopped are recorded as aborted ("interrupted"), so they
/// never rerun and their request id keeps answering the same result.
pub struct SqliteStore {
    conn: Mutex<rusqlite::Connection>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SqliteStore")
    }
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS requests (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id TEXT NOT NULL UNIQUE,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS attempts (
    key_id TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    session BLOB NOT NULL,
    outcome TEXT,
    PRIMARY KEY (key_id, epoch, attempt)
);
";

/// Format version of `runtime.db`.
const SQLITE_FORMAT: &str = "1";

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(format!("runtime database: {e}"))
}

fn json_err(e: serde_json::Error) -> StoreError {
    StoreError::Backend(format!("runtime database record: {e}"))
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path` and closes out interrupted work.
    pub fn open(path: &std::path::Path) -> Result<Self, StoreError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(path)
                .map_err(|e| StoreError::Backend(format!("{}: {e}", path.display())))?;
        }
        let conn = rusqlite::Connection::open(path).map_err(db)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(db)?;
        conn.execute_batch(SCHEMA).map_err(db)?;
        let format: Option<String> = conn
            .query_row("SELECT v FROM meta WHERE k = 'format'", [], |r| r.get(0))
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(db)?;
        match format.as_deref() {
            None => {
                conn.execute(
                    "INSERT INTO meta (k, v) VALUES ('format', ?1)",
                    [SQLITE_FORMAT],
                )
                .map_err(db)?;
            }
            Some(SQLITE_FORMAT) => {}
            Some(other) => {
                return Err(StoreError::Backend(format!(
                    "{}: unsupported runtime database format {other}",
                    path.display()
                )))
            }
        }
        let store = Self {
            conn: Mutex::new(conn),
        };
        store.close_interrupted()?;
        Ok(store)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, rusqlite::Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError::Backend("store lock poisoned".into()))
    }

    fn close_interrupted(&self) -> Result<(), StoreError> {
        let reason = "interrupted: the node stopped during the session";
        let outcome = serde_json::to_string(&Outcome::Aborted {
            reason: reason.into(),
            culprits: vec![],
            evidence: vec![],
        })
        .map_err(json_err)?;
        let mut conn = self.lock()?;
        let tx = conn.transaction().map_err(db)?;
        tx.execute(
            "UPDATE attempts SET outcome = ?1 WHERE outcome IS NULL",
            [&outcome],
        )
        .map_err(db)?;
        let running: Vec<(i64, String)> = {
            let mut stmt = tx.prepare("SELECT seq, record FROM requests").map_err(db)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(db)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(db)?;
            rows
        };
        for (seq, text) in running {
            let mut rec: RequestRecord = serde_json::from_str(&text).map_err(json_err)?;
            if rec.status != super::RequestStatus::Running {
                continue;
            }
            rec.status = super::RequestStatus::Aborted;
            rec.error = Some(reason.into());
            for a in &mut rec.attempts {
                if a.outcome.is_none() {
                    a.outcome = Some(Outcome::Aborted {
                        reason: reason.into(),
                        culprits: vec![],
                        evidence: vec![],
                    });
                }
            }
            let text = serde_json::to_string(&rec).map_err(json_err)?;
            tx.execute(
                "UPDATE requests SET record = ?1 WHERE seq = ?2",
                rusqlite::params![text, seq],
            )
            .map_err(db)?;
        }
        tx.commit().map_err(db)
    }
}

fn to_i64(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Backend("epoch out of range".into()))
}

impl SessionStore for SqliteStore {
    fn insert_request(&self, record: &RequestRecord) -> Result<Option<RequestRecord>, StoreError> {
        let text = serde_json::to_string(record).map_err(json_err)?;
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db)?;
        let existing: Option<String> = tx
            .query_row(
                "SELECT record FROM requests WHERE request_id = ?1",
                [&record.request.request_id],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(db)?;
        if let Some(text) = existing {
            return Ok(Some(serde_json::from_str(&text).map_err(json_err)?));
        }
        tx.execute(
            "INSERT INTO requests (request_id, record) VALUES (?1, ?2)",
            rusqlite::params![record.request.request_id, text],
        )
        .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(None)
    }

    fn update_request(&self, record: &RequestRecord) -> Result<(), StoreError> {
        let text = serde_json::to_string(record).map_err(json_err)?;
        let conn = self.lock()?;
        let n = conn
            .execute(
                "UPDATE requests SET record = ?1 WHERE request_id = ?2",
                rusqlite::params![text, record.request.request_id],
            )
            .map_err(db)?;
        if n != 1 {
            return Err(StoreError::Backend(format!(
                "unknown request id {:?}",
                record.request.request_id
            )));
        }
        Ok(())
    }

    fn request(&self, request_id: &str) -> Result<Option<RequestRecord>, StoreError> {
        let conn = self.lock()?;
        let text: Option<String> = conn
            .query_row(
                "SELECT record FROM requests WHERE request_id = ?1",
                [request_id],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(db)?;
        text.map(|t| serde_json::from_str(&t).map_err(json_err))
            .transpose()
    }

    fn requests(&self) -> Result<Vec<RequestRecord>, StoreError> {
        let conn = self.lock()?;
        let mut stmt = conn
            .prepare("SELECT record FROM requests ORDER BY seq")
            .map_err(db)?;
        let texts = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(db)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(db)?;
        texts
            .iter()
            .map(|t| serde_json::from_str(t).map_err(json_err))
            .collect()
    }

    fn claim_attempt(&self, key: &AttemptKey, session: [u8; 32]) -> Result<Claim, StoreError> {
        let mut conn = self.lock()?;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db)?;
        let existing: Option<Vec<u8>> = tx
            .query_row(
                "SELECT session FROM attempts WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
                rusqlite::params![key.key_id, to_i64(key.epoch)?, key.attempt],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(db)?;
        match existing {
            Some(s) if s == session => Ok(Claim::Same),
            Some(_) => Ok(Claim::Taken),
            None => {
                tx.execute(
                    "INSERT INTO attempts (key_id, epoch, attempt, session) VALUES (?1, ?2, ?3, ?4)",
                    rusqlite::params![key.key_id, to_i64(key.epoch)?, key.attempt, &session[..]],
                )
                .map_err(db)?;
                tx.commit().map_err(db)?;
                Ok(Claim::Claimed)
            }
        }
    }

    fn next_attempt(&self, key_id: &str, epoch: u64) -> Result<u32, StoreError> {
        let conn = self.lock()?;
        let max: Option<i64> = conn
            .query_row(
                "SELECT max(attempt) FROM attempts WHERE key_id = ?1 AND epoch = ?2",
                rusqlite::params![key_id, to_i64(epoch)?],
                |r| r.get(0),
            )
            .map_err(db)?;
        match max {
            None => Ok(0),
            Some(m) => u32::try_from(m + 1)
                .map_err(|_| StoreError::Backend("attempt counter exhausted".into())),
        }
    }

    fn finish_attempt(&self, key: &AttemptKey, outcome: &Outcome) -> Result<(), StoreError> {
        let text = serde_json::to_string(outcome).map_err(json_err)?;
        let conn = self.lock()?;
        let n = conn
            .execute(
                "UPDATE attempts SET outcome = ?1 WHERE key_id = ?2 AND epoch = ?3 AND attempt = ?4",
                rusqlite::params![text, key.key_id, to_i64(key.epoch)?, key.attempt],
            )
            .map_err(db)?;
        if n != 1 {
            return Err(StoreError::Backend("finishing an unclaimed attempt".into()));
        }
        Ok(())
    }

    fn attempt_outcome(&self, key: &AttemptKey) -> Result<Option<Outcome>, StoreError> {
        let conn = self.lock()?;
        let text: Option<Option<String>> = conn
            .query_row(
                "SELECT outcome FROM attempts WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
                rusqlite::params![key.key_id, to_i64(key.epoch)?, key.attempt],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(db)?;
        text.flatten()
            .map(|t| serde_json::from_str(&t).map_err(json_err))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::session::{AttemptRecord, RequestStatus, SessionRequest};

    #[test]
    fn an_attempt_is_claimed_once_and_never_reruns() {
        conformance(&MemoryStore::default());
        let dir = tempfile::tempdir().expect("dir");
        conformance(&SqliteStore::open(&dir.path().join("runtime.db")).expect("open"));
    }

    fn record(id: &str) -> RequestRecord {
        RequestRecord {
            request: SessionRequest {
                request_id: id.into(),
                protocol: "ping".into(),
                params: serde_json::Value::Null,
                participants: vec![1, 2],
                key_id: None,
                epoch: 0,
                round_timeout_ms: None,
            },
            key_id: "k1".into(),
            status: RequestStatus::Running,
            attempts: vec![AttemptRecord {
                attempt: 0,
                session_id: "00".into(),
                participants: vec![1, 2],
                outcome: None,
            }],
            output: None,
            error: None,
            culprits: vec![],
        }
    }

    #[test]
    fn sqlite_state_survives_a_restart_and_interrupted_work_is_closed() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("runtime.db");
        let key = AttemptKey {
            key_id: "k1".into(),
            epoch: 2,
            attempt: 0,
        };
        {
            let s = SqliteStore::open(&path).expect("open");
            assert_eq!(s.insert_request(&record("r1")).expect("insert"), None);
            assert_eq!(
                s.claim_attempt(&key, [5; 32]).expect("claim"),
                Claim::Claimed
            );
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let s = SqliteStore::open(&path).expect("reopen");
        // The attempt stays claimed and is closed as interrupted: it never reruns.
        assert_eq!(s.claim_attempt(&key, [6; 32]).expect("claim"), Claim::Taken);
        assert_eq!(s.next_attempt("k1", 2).expect("next"), 1);
        assert!(matches!(
            s.attempt_outcome(&key).expect("outcome"),
            Some(Outcome::Aborted { reason, .. }) if reason.contains("interrupted")
        ));
        // The request id answers the same (aborted) record from now on.
        let r = s.request("r1").expect("read").expect("present");
        assert_eq!(r.status, RequestStatus::Aborted);
        assert!(r.attempts[0].outcome.is_some());
        assert_eq!(
            s.insert_request(&record("r1"))
                .expect("insert")
                .map(|r| r.status),
            Some(RequestStatus::Aborted)
        );
        assert_eq!(s.requests().expect("list").len(), 1);
    }

    fn conformance(s: &dyn SessionStore) {
        let key = AttemptKey {
            key_id: "k1".into(),
            epoch: 0,
            attempt: s.next_attempt("k1", 0).expect("next"),
        };
        assert_eq!(key.attempt, 0);
        assert_eq!(
            s.claim_attempt(&key, [7; 32]).expect("claim"),
            Claim::Claimed
        );
        assert_eq!(s.claim_attempt(&key, [7; 32]).expect("again"), Claim::Same);
        assert_eq!(s.claim_attempt(&key, [8; 32]).expect("other"), Claim::Taken);
        assert_eq!(s.next_attempt("k1", 0).expect("next"), 1);
        assert_eq!(s.next_attempt("k1", 1).expect("other epoch"), 0);
        let outcome = Outcome::Aborted {
            reason: "x".into(),
            culprits: vec![2],
            evidence: vec![],
        };
        s.finish_attempt(&key, &outcome).expect("finish");
        assert_eq!(s.attempt_outcome(&key).expect("read"), Some(outcome));
        // Finishing does not free the attempt for another session.
        assert_eq!(s.claim_attempt(&key, [8; 32]).expect("other"), Claim::Taken);
    }
}
