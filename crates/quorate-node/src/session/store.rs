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
use crate::faults::crash_point;

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
    /// The request id was used with this key through another coordinator: a second session
    /// would be a silent duplicate (nothing written).
    Duplicate {
        /// Coordinator the request id was first submitted to.
        coordinator: u16,
        /// That session's id.
        session: [u8; 32],
    },
}

/// The operator request an attempt belongs to: its request id (unique per key id across
/// every coordinator) and the coordinator it was submitted to. A request id runs through one
/// coordinator only; that coordinator's request record makes it idempotent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestOwner {
    /// The operator's request id.
    pub request_id: String,
    /// The coordinator's node id.
    pub coordinator: u16,
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
    /// Claims `key` for `session` of `owner`'s request (atomically, durably, before any
    /// message is sent). The first claim of a (key id, request id) records its coordinator;
    /// a claim for the same pair through another coordinator is [`Claim::Duplicate`].
    fn claim_attempt(
        &self,
        key: &AttemptKey,
        session: [u8; 32],
        owner: &RequestOwner,
    ) -> Result<Claim, StoreError>;
    /// The smallest attempt number not yet claimed for (key id, epoch).
    fn next_attempt(&self, key_id: &str, epoch: u64) -> Result<u32, StoreError>;
    /// Records how a claimed attempt ended (a participant's closing write). Atomic, and
    /// durable against a crash of the node process when it returns; durable against a power
    /// loss only with the next durable write (it answers nobody: an outcome lost that way
    /// reads "interrupted" after the restart, and the claim, durable before the attempt's
    /// first message, still keeps the attempt from running again).
    fn finish_attempt(&self, key: &AttemptKey, outcome: &Outcome) -> Result<(), StoreError>;
    /// The recorded outcome of an attempt.
    fn attempt_outcome(&self, key: &AttemptKey) -> Result<Option<Outcome>, StoreError>;
    /// The coordinator's opening write, atomically and durably: claims `key` for `session`
    /// (as [`SessionStore::claim_attempt`], `coordinator` owning the record's request id)
    /// and writes `record` (which lists the attempt). With `new_request` the record is
    /// inserted, unless its request id exists: then nothing is written and the stored record
    /// is returned. Nothing is written unless the claim succeeds.
    fn begin_attempt(
        &self,
        record: &RequestRecord,
        new_request: bool,
        key: &AttemptKey,
        session: [u8; 32],
        coordinator: u16,
    ) -> Result<Begun, StoreError>;
    /// The coordinator's closing write, atomically and durably: the outcome of `key` and the
    /// request's updated `record`.
    fn end_attempt(
        &self,
        key: &AttemptKey,
        outcome: &Outcome,
        record: &RequestRecord,
    ) -> Result<(), StoreError>;
    /// Deletes finished records beyond the newest `keep`: requests of `protocol` that are no
    /// longer running, and attempts with an outcome whose key id starts with `key_prefix`
    /// (each kind counted on its own). Running requests and unfinished attempts are never
    /// touched. Returns how many records were deleted. Only for protocols whose finished
    /// sessions carry no state ([`crate::session::driver::Protocol::ephemeral`]).
    fn prune_finished(
        &self,
        protocol: &str,
        key_prefix: &str,
        keep: usize,
    ) -> Result<usize, StoreError>;
}

/// Result of [`SessionStore::begin_attempt`].
#[derive(Clone, Debug, PartialEq)]
pub enum Begun {
    /// The attempt is claimed and the record written.
    Claimed,
    /// The attempt was not free (nothing written).
    NotClaimed(Claim),
    /// A new request's id exists already (nothing written): its stored record.
    Existing(Box<RequestRecord>),
}

#[derive(Default)]
struct Inner {
    requests: Vec<RequestRecord>,
    attempts: BTreeMap<AttemptKey, ([u8; 32], Option<Outcome>)>,
    /// Claim order of each attempt (what "newest" means to `prune_finished`, like the SQLite
    /// store's rowid).
    claimed: BTreeMap<AttemptKey, u64>,
    next_claim: u64,
    /// (key id, request id) → (coordinator, first session).
    owners: BTreeMap<(String, String), (u16, [u8; 32])>,
}

impl Inner {
    /// The claim rules of [`SessionStore::claim_attempt`], writing only on success.
    fn claim(&mut self, key: &AttemptKey, session: [u8; 32], owner: &RequestOwner) -> Claim {
        match self.attempts.get(key) {
            Some((s, _)) if *s == session => return Claim::Same,
            Some(_) => return Claim::Taken,
            None => {}
        }
        let pair = (key.key_id.clone(), owner.request_id.clone());
        match self.owners.get(&pair) {
            Some(&(coordinator, first)) if coordinator != owner.coordinator => {
                return Claim::Duplicate {
                    coordinator,
                    session: first,
                }
            }
            Some(_) => {}
            None => {
                self.owners.insert(pair, (owner.coordinator, session));
            }
        }
        self.attempts.insert(key.clone(), (session, None));
        self.claimed.insert(key.clone(), self.next_claim);
        self.next_claim += 1;
        Claim::Claimed
    }
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

    fn claim_attempt(
        &self,
        key: &AttemptKey,
        session: [u8; 32],
        owner: &RequestOwner,
    ) -> Result<Claim, StoreError> {
        Ok(self.lock()?.claim(key, session, owner))
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

    fn begin_attempt(
        &self,
        record: &RequestRecord,
        new_request: bool,
        key: &AttemptKey,
        session: [u8; 32],
        coordinator: u16,
    ) -> Result<Begun, StoreError> {
        let mut g = self.lock()?;
        let id = &record.request.request_id;
        let pos = g.requests.iter().position(|r| &r.request.request_id == id);
        if new_request {
            if let Some(i) = pos {
                return Ok(Begun::Existing(Box::new(g.requests[i].clone())));
            }
        } else if pos.is_none() {
            return Err(StoreError::Backend(format!("unknown request id {id:?}")));
        }
        let owner = RequestOwner {
            request_id: id.clone(),
            coordinator,
        };
        match g.claim(key, session, &owner) {
            Claim::Claimed => {}
            other => return Ok(Begun::NotClaimed(other)),
        }
        match pos {
            Some(i) => g.requests[i] = record.clone(),
            None => g.requests.push(record.clone()),
        }
        Ok(Begun::Claimed)
    }

    fn end_attempt(
        &self,
        key: &AttemptKey,
        outcome: &Outcome,
        record: &RequestRecord,
    ) -> Result<(), StoreError> {
        let mut g = self.lock()?;
        let id = &record.request.request_id;
        let Some(i) = g.requests.iter().position(|r| &r.request.request_id == id) else {
            return Err(StoreError::Backend(format!("unknown request id {id:?}")));
        };
        match g.attempts.get_mut(key) {
            Some(entry) => entry.1 = Some(outcome.clone()),
            None => return Err(StoreError::Backend("finishing an unclaimed attempt".into())),
        }
        g.requests[i] = record.clone();
        Ok(())
    }
    fn prune_finished(
        &self,
        protocol: &str,
        key_prefix: &str,
        keep: usize,
    ) -> Result<usize, StoreError> {
        let mut g = self.lock()?;
        let finished = |r: &RequestRecord| {
            r.request.protocol == protocol && r.status != super::RequestStatus::Running
        };
        let mut excess = g
            .requests
            .iter()
            .filter(|r| finished(r))
            .count()
            .saturating_sub(keep);
        let before = g.requests.len();
        // Oldest first: drop the first `excess` finished ones.
        g.requests.retain(|r| {
            if excess > 0 && finished(r) {
                excess -= 1;
                false
            } else {
                true
            }
        });
        let mut removed = before - g.requests.len();
        // Finished attempts, newest claim first: the first `keep` stay.
        let mut done: Vec<(u64, AttemptKey)> = g
            .attempts
            .iter()
            .filter(|(k, (_, o))| k.key_id.starts_with(key_prefix) && o.is_some())
            .map(|(k, _)| (g.claimed.get(k).copied().unwrap_or(0), k.clone()))
            .collect();
        done.sort_unstable_by_key(|d| std::cmp::Reverse(d.0));
        for (_, k) in done.iter().skip(keep) {
            g.attempts.remove(k);
            g.claimed.remove(k);
            removed += 1;
        }
        let Inner {
            attempts, owners, ..
        } = &mut *g;
        owners.retain(|(key_id, _), _| {
            !key_id.starts_with(key_prefix) || attempts.keys().any(|k| &k.key_id == key_id)
        });
        Ok(removed)
    }
}

/// A durable [`SessionStore`] in an SQLite file (`synchronous=FULL`, WAL; the file is created
/// with mode 0600). On open, attempts and requests that were running when the node stopped
/// are recorded as aborted ("interrupted"), so they never rerun and their request id keeps
/// answering the same result.
///
/// **Group commit.** Every write is queued and runs inside a transaction of its own savepoint;
/// the caller that obtains the connection commits every write queued meanwhile in one
/// transaction (one WAL fsync), and each caller returns only after the commit that holds its
/// write: a write is durable when its call returns, as with one transaction per write, but
/// concurrent sessions share the fsync.
///
/// **Lazy writes.** [`SessionStore::finish_attempt`] alone is queued as lazy: a batch of lazy
/// writes only is committed with `synchronous=NORMAL` (the WAL is written, not fsynced: durable
/// against a process crash, and against power loss with the next FULL commit, which fsyncs
/// the WAL up to its end). Any batch with another write is committed FULL as before.
///
/// **Reads** go through a second connection: under WAL a reader sees every committed write
/// and never waits for the writer's commit (its fsync), so a coordinator's look-ups before
/// a proposal do not queue behind other sessions' durable writes.
pub struct SqliteStore {
    conn: Mutex<rusqlite::Connection>,
    reader: Mutex<rusqlite::Connection>,
    queue: Mutex<Vec<Op>>,
}

/// A queued write: runs on the connection inside the batch's transaction and returns what to
/// do once the batch's commit is known (answer its caller).
struct Op {
    run: Box<dyn FnOnce(&rusqlite::Connection) -> Reply + Send>,
    /// Durable against power loss when answered (see "Lazy writes" on [`SqliteStore`]).
    durable: bool,
}
/// Answers one queued write's caller with the batch commit's result.
type Reply = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

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
CREATE TABLE IF NOT EXISTS request_owners (
    key_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    coordinator INTEGER NOT NULL,
    session BLOB NOT NULL,
    PRIMARY KEY (key_id, request_id)
);
";

/// Prepared statements kept per connection (the write paths use 13 distinct statements).
const STATEMENT_CACHE: usize = 32;

/// Format version of `runtime.db`.
const SQLITE_FORMAT: &str = "1";

fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(format!("runtime database: {e}"))
}

fn json_err(e: serde_json::Error) -> StoreError {
    StoreError::Backend(format!("runtime database record: {e}"))
}

fn optional<T>(r: rusqlite::Result<T>) -> Result<Option<T>, StoreError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(db(e)),
    }
}

fn to_i64(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Backend("epoch out of range".into()))
}

// The statements of each write, on a connection inside an open transaction.

fn read_request(
    conn: &rusqlite::Connection,
    request_id: &str,
) -> Result<Option<RequestRecord>, StoreError> {
    let text: Option<String> = optional(
        conn.prepare_cached("SELECT record FROM requests WHERE request_id = ?1")
            .map_err(db)?
            .query_row([request_id], |r| r.get(0)),
    )?;
    text.map(|t| serde_json::from_str(&t).map_err(json_err))
        .transpose()
}

fn insert_request_in(
    conn: &rusqlite::Connection,
    record: &RequestRecord,
) -> Result<Option<RequestRecord>, StoreError> {
    if let Some(existing) = read_request(conn, &record.request.request_id)? {
        return Ok(Some(existing));
    }
    insert_new_request_in(conn, record)?;
    Ok(None)
}

/// Inserts `record`, whose request id the open transaction has just looked up and not found.
fn insert_new_request_in(
    conn: &rusqlite::Connection,
    record: &RequestRecord,
) -> Result<(), StoreError> {
    let text = serde_json::to_string(record).map_err(json_err)?;
    conn.prepare_cached("INSERT INTO requests (request_id, record) VALUES (?1, ?2)")
        .map_err(db)?
        .execute(rusqlite::params![record.request.request_id, text])
        .map_err(db)?;
    Ok(())
}

fn update_request_in(
    conn: &rusqlite::Connection,
    record: &RequestRecord,
) -> Result<(), StoreError> {
    let text = serde_json::to_string(record).map_err(json_err)?;
    let n = conn
        .prepare_cached("UPDATE requests SET record = ?1 WHERE request_id = ?2")
        .map_err(db)?
        .execute(rusqlite::params![text, record.request.request_id])
        .map_err(db)?;
    if n != 1 {
        return Err(StoreError::Backend(format!(
            "unknown request id {:?}",
            record.request.request_id
        )));
    }
    Ok(())
}

fn claim_in(
    conn: &rusqlite::Connection,
    key: &AttemptKey,
    session: [u8; 32],
    owner: &RequestOwner,
) -> Result<Claim, StoreError> {
    let epoch = to_i64(key.epoch)?;
    let existing: Option<Vec<u8>> = optional(
        conn.prepare_cached(
            "SELECT session FROM attempts WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
        )
        .map_err(db)?
        .query_row(rusqlite::params![key.key_id, epoch, key.attempt], |r| {
            r.get(0)
        }),
    )?;
    match existing {
        Some(s) if s == session => Ok(Claim::Same),
        Some(_) => Ok(Claim::Taken),
        None => {
            let first: Option<(i64, Vec<u8>)> = optional(
                conn.prepare_cached(
                    "SELECT coordinator, session FROM request_owners \
                     WHERE key_id = ?1 AND request_id = ?2",
                )
                .map_err(db)?
                .query_row(rusqlite::params![key.key_id, owner.request_id], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                }),
            )?;
            match first {
                Some((c, s)) if c != i64::from(owner.coordinator) => {
                    return Ok(Claim::Duplicate {
                        coordinator: u16::try_from(c).unwrap_or(u16::MAX),
                        session: <[u8; 32]>::try_from(s.as_slice()).unwrap_or([0; 32]),
                    })
                }
                Some(_) => {}
                None => {
                    conn.prepare_cached(
                        "INSERT INTO request_owners (key_id, request_id, coordinator, session) \
                         VALUES (?1, ?2, ?3, ?4)",
                    )
                    .map_err(db)?
                    .execute(rusqlite::params![
                        key.key_id,
                        owner.request_id,
                        owner.coordinator,
                        &session[..]
                    ])
                    .map_err(db)?;
                }
            }
            conn.prepare_cached(
                "INSERT INTO attempts (key_id, epoch, attempt, session) VALUES (?1, ?2, ?3, ?4)",
            )
            .map_err(db)?
            .execute(rusqlite::params![
                key.key_id,
                epoch,
                key.attempt,
                &session[..]
            ])
            .map_err(db)?;
            Ok(Claim::Claimed)
        }
    }
}

fn finish_in(
    conn: &rusqlite::Connection,
    key: &AttemptKey,
    outcome: &Outcome,
) -> Result<(), StoreError> {
    let text = serde_json::to_string(outcome).map_err(json_err)?;
    let n = conn
        .prepare_cached(
            "UPDATE attempts SET outcome = ?1 WHERE key_id = ?2 AND epoch = ?3 AND attempt = ?4",
        )
        .map_err(db)?
        .execute(rusqlite::params![
            text,
            key.key_id,
            to_i64(key.epoch)?,
            key.attempt
        ])
        .map_err(db)?;
    if n != 1 {
        return Err(StoreError::Backend("finishing an unclaimed attempt".into()));
    }
    Ok(())
}

/// Runs one parameterless statement through the connection's statement cache (the hot
/// paths run the same few statements for every session: parsing and planning them once
/// saves the CPU SQLite spends per write).
fn cached(conn: &rusqlite::Connection, sql: &str) -> Result<usize, StoreError> {
    conn.prepare_cached(sql)
        .map_err(db)?
        .execute([])
        .map_err(db)
}

/// Runs `f` inside a savepoint of the open transaction: a failing write is undone without
/// undoing the other writes of its batch.
fn in_savepoint<R>(
    conn: &rusqlite::Connection,
    f: impl FnOnce(&rusqlite::Connection) -> Result<R, StoreError>,
) -> Result<R, StoreError> {
    cached(conn, "SAVEPOINT op")?;
    match f(conn) {
        Ok(v) => {
            cached(conn, "RELEASE op")?;
            Ok(v)
        }
        Err(e) => {
            let _ = cached(conn, "ROLLBACK TO op").and_then(|_| cached(conn, "RELEASE op"));
            Err(e)
        }
    }
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
        let format: Option<String> =
            optional(conn.query_row("SELECT v FROM meta WHERE k = 'format'", [], |r| r.get(0)))?;
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
        let reader = rusqlite::Connection::open(path).map_err(db)?;
        // Room for every statement of the hot paths (see `cached`).
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        reader.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        let store = Self {
            conn: Mutex::new(conn),
            reader: Mutex::new(reader),
            queue: Mutex::new(Vec::new()),
        };
        store.close_interrupted()?;
        Ok(store)
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, rusqlite::Connection>, StoreError> {
        self.conn
            .lock()
            .map_err(|_| StoreError::Backend("store lock poisoned".into()))
    }

    /// The read connection (see the note on reads on [`SqliteStore`]).
    fn read(&self) -> Result<std::sync::MutexGuard<'_, rusqlite::Connection>, StoreError> {
        self.reader
            .lock()
            .map_err(|_| StoreError::Backend("store lock poisoned".into()))
    }

    /// Queues the write `f` and returns its result once a committed transaction holds it,
    /// fsynced (see the group commit note on [`SqliteStore`]).
    fn write<R: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        self.write_as(true, f)
    }

    /// [`Self::write`], fsynced only if `durable` (see "Lazy writes" on [`SqliteStore`]).
    fn write_as<R: Send + 'static>(
        &self,
        durable: bool,
        f: impl FnOnce(&rusqlite::Connection) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<R, StoreError>>(1);
        let op = Op {
            run: Box::new(move |conn| {
                let result = in_savepoint(conn, f);
                Box::new(move |commit: Result<(), StoreError>| {
                    let _ = tx.send(commit.and(result));
                })
            }),
            durable,
        };
        self.queue
            .lock()
            .map_err(|_| StoreError::Backend("store queue poisoned".into()))?
            .push(op);
        let answered = |rx: &std::sync::mpsc::Receiver<Result<R, StoreError>>| match rx.try_recv() {
            Ok(r) => Some(r),
            Err(std::sync::mpsc::TryRecvError::Empty) => None,
            // Dropped unrun: its batch's transaction could not begin.
            Err(std::sync::mpsc::TryRecvError::Disconnected) => Some(Err(StoreError::Backend(
                "runtime database: could not begin a transaction".into(),
            ))),
        };
        loop {
            if let Some(r) = answered(&rx) {
                return r;
            }
            // Whoever holds the connection commits a batch and answers it before letting go:
            // once we hold it, our write is either answered or still queued.
            let conn = self.lock()?;
            if let Some(r) = answered(&rx) {
                return r;
            }
            let batch = std::mem::take(
                &mut *self
                    .queue
                    .lock()
                    .map_err(|_| StoreError::Backend("store queue poisoned".into()))?,
            );
            if batch.is_empty() {
                continue;
            }
            Self::commit_batch(&conn, batch);
        }
    }

    /// One transaction for `batch`; every write's caller is answered before returning. The
    /// commit is fsynced unless every write of the batch is lazy.
    fn commit_batch(conn: &rusqlite::Connection, batch: Vec<Op>) {
        let sync = if batch.iter().any(|op| op.durable) {
            "PRAGMA synchronous = FULL"
        } else {
            "PRAGMA synchronous = NORMAL"
        };
        // Set outside the transaction (SQLite reads it at commit); on failure nothing runs.
        if let Err(e) = cached(conn, sync).and_then(|_| cached(conn, "BEGIN IMMEDIATE")) {
            // The writes are dropped unrun; their callers see it (see `write`).
            tracing::warn!(error = %e, "runtime database: could not begin a transaction");
            return;
        }
        crate::faults::timeline_mark(format_args!("store.batch {} ops", batch.len()));
        let replies: Vec<Reply> = batch.into_iter().map(|op| (op.run)(conn)).collect();
        crate::faults::timeline_mark("store.commit.begin");
        let commit = match cached(conn, "COMMIT") {
            Ok(_) => Ok(()),
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                Err(e.to_string())
            }
        };
        crate::faults::timeline_mark("store.commit.end");
        for reply in replies {
            reply(commit.clone().map_err(StoreError::Backend));
        }
    }

    fn close_interrupted(&self) -> Result<(), StoreError> {
        self.write(|conn| {
            let reason = "interrupted: the node stopped during the session";
            let aborted = Outcome::Aborted {
                reason: reason.into(),
                culprits: vec![],
                evidence: vec![],
            };
            let outcome = serde_json::to_string(&aborted).map_err(json_err)?;
            conn.execute(
                "UPDATE attempts SET outcome = ?1 WHERE outcome IS NULL",
                [&outcome],
            )
            .map_err(db)?;
            let running: Vec<(i64, String)> =
                request_rows(conn, "SELECT seq, record FROM requests")?;
            for (seq, text) in running {
                let mut rec: RequestRecord = serde_json::from_str(&text).map_err(json_err)?;
                if rec.status != super::RequestStatus::Running {
                    continue;
                }
                rec.status = super::RequestStatus::Aborted;
                rec.error = Some(reason.into());
                for a in &mut rec.attempts {
                    if a.outcome.is_none() {
                        a.outcome = Some(aborted.clone());
                    }
                }
                let text = serde_json::to_string(&rec).map_err(json_err)?;
                conn.execute(
                    "UPDATE requests SET record = ?1 WHERE seq = ?2",
                    rusqlite::params![text, seq],
                )
                .map_err(db)?;
            }
            Ok(())
        })
    }
}

impl SessionStore for SqliteStore {
    fn insert_request(&self, record: &RequestRecord) -> Result<Option<RequestRecord>, StoreError> {
        let record = record.clone();
        self.write(move |conn| insert_request_in(conn, &record))
    }

    fn update_request(&self, record: &RequestRecord) -> Result<(), StoreError> {
        let record = record.clone();
        self.write(move |conn| update_request_in(conn, &record))
    }

    fn request(&self, request_id: &str) -> Result<Option<RequestRecord>, StoreError> {
        let conn = self.read()?;
        read_request(&conn, request_id)
    }

    fn requests(&self) -> Result<Vec<RequestRecord>, StoreError> {
        let conn = self.read()?;
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

    fn claim_attempt(
        &self,
        key: &AttemptKey,
        session: [u8; 32],
        owner: &RequestOwner,
    ) -> Result<Claim, StoreError> {
        let (key, owner) = (key.clone(), owner.clone());
        let claim = self.write(move |conn| {
            let claim = claim_in(conn, &key, session, &owner)?;
            if claim == Claim::Claimed {
                crash_point("runtime.claim_attempt.before_commit");
            }
            Ok(claim)
        })?;
        if claim == Claim::Claimed {
            crash_point("runtime.claim_attempt.after_commit");
        }
        Ok(claim)
    }

    fn next_attempt(&self, key_id: &str, epoch: u64) -> Result<u32, StoreError> {
        let conn = self.read()?;
        let max: Option<i64> = conn
            .prepare_cached("SELECT max(attempt) FROM attempts WHERE key_id = ?1 AND epoch = ?2")
            .map_err(db)?
            .query_row(rusqlite::params![key_id, to_i64(epoch)?], |r| r.get(0))
            .map_err(db)?;
        match max {
            None => Ok(0),
            Some(m) => u32::try_from(m + 1)
                .map_err(|_| StoreError::Backend("attempt counter exhausted".into())),
        }
    }

    fn finish_attempt(&self, key: &AttemptKey, outcome: &Outcome) -> Result<(), StoreError> {
        let (key, outcome) = (key.clone(), outcome.clone());
        self.write_as(false, move |conn| {
            finish_in(conn, &key, &outcome)?;
            crash_point("runtime.finish_attempt.before_commit");
            Ok(())
        })?;
        // Committed (in the WAL: it survives a crash of the process), not yet fsynced.
        crash_point("runtime.finish_attempt.after_commit");
        Ok(())
    }

    fn attempt_outcome(&self, key: &AttemptKey) -> Result<Option<Outcome>, StoreError> {
        let conn = self.read()?;
        let text: Option<Option<String>> = optional(
            conn.prepare_cached(
                "SELECT outcome FROM attempts WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
            )
            .map_err(db)?
            .query_row(
                rusqlite::params![key.key_id, to_i64(key.epoch)?, key.attempt],
                |r| r.get(0),
            ),
        )?;
        text.flatten()
            .map(|t| serde_json::from_str(&t).map_err(json_err))
            .transpose()
    }

    fn begin_attempt(
        &self,
        record: &RequestRecord,
        new_request: bool,
        key: &AttemptKey,
        session: [u8; 32],
        coordinator: u16,
    ) -> Result<Begun, StoreError> {
        let (record, key) = (record.clone(), key.clone());
        let begun = self.write(move |conn| {
            if new_request {
                if let Some(existing) = read_request(conn, &record.request.request_id)? {
                    return Ok(Begun::Existing(Box::new(existing)));
                }
            }
            let owner = RequestOwner {
                request_id: record.request.request_id.clone(),
                coordinator,
            };
            match claim_in(conn, &key, session, &owner)? {
                Claim::Claimed => {}
                other => return Ok(Begun::NotClaimed(other)),
            }
            if new_request {
                // Looked up above, in this transaction: absent.
                insert_new_request_in(conn, &record)?;
            } else {
                update_request_in(conn, &record)?;
            }
            crash_point("runtime.begin_attempt.before_commit");
            Ok(Begun::Claimed)
        })?;
        if matches!(begun, Begun::Claimed) {
            crash_point("runtime.begin_attempt.after_commit");
        }
        Ok(begun)
    }

    fn end_attempt(
        &self,
        key: &AttemptKey,
        outcome: &Outcome,
        record: &RequestRecord,
    ) -> Result<(), StoreError> {
        let (key, outcome, record) = (key.clone(), outcome.clone(), record.clone());
        self.write(move |conn| {
            finish_in(conn, &key, &outcome)?;
            update_request_in(conn, &record)?;
            crash_point("runtime.end_attempt.before_commit");
            Ok(())
        })?;
        crash_point("runtime.end_attempt.after_commit");
        Ok(())
    }

    fn prune_finished(
        &self,
        protocol: &str,
        key_prefix: &str,
        keep: usize,
    ) -> Result<usize, StoreError> {
        let protocol = protocol.to_string();
        let key_prefix = key_prefix.to_string();
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        self.write(move |conn| {
            // Requests: the protocol and status live in the JSON record; newest first.
            let rows: Vec<(i64, String)> =
                request_rows(conn, "SELECT seq, record FROM requests ORDER BY seq DESC")?;
            let mut kept = 0i64;
            let mut removed = 0usize;
            for (seq, text) in rows {
                let rec: RequestRecord = serde_json::from_str(&text).map_err(json_err)?;
                if rec.request.protocol != protocol || rec.status == super::RequestStatus::Running {
                    continue;
                }
                if kept < keep {
                    kept += 1;
                    continue;
                }
                removed += conn
                    .execute("DELETE FROM requests WHERE seq = ?1", [seq])
                    .map_err(db)?;
            }
            // Attempts: finished ones under the key prefix, newest (highest rowid) kept.
            let n = i64::try_from(key_prefix.len()).unwrap_or(i64::MAX);
            removed += conn
                .execute(
                    "DELETE FROM attempts WHERE outcome IS NOT NULL \
                     AND substr(key_id, 1, ?2) = ?1 \
                     AND rowid NOT IN (SELECT rowid FROM attempts \
                         WHERE outcome IS NOT NULL AND substr(key_id, 1, ?2) = ?1 \
                         ORDER BY rowid DESC LIMIT ?3)",
                    rusqlite::params![key_prefix, n, keep],
                )
                .map_err(db)?;
            // Request owners of those keys once none of their attempts is left.
            conn.execute(
                "DELETE FROM request_owners WHERE substr(key_id, 1, ?2) = ?1 \
                 AND key_id NOT IN (SELECT key_id FROM attempts)",
                rusqlite::params![key_prefix, n],
            )
            .map_err(db)?;
            Ok(removed)
        })
    }
}

/// Every `(seq, record)` row of `requests` that `query` selects (its two columns).
fn request_rows(
    conn: &rusqlite::Connection,
    query: &str,
) -> Result<Vec<(i64, String)>, StoreError> {
    let mut stmt = conn.prepare(query).map_err(db)?;
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(db)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(db)?;
    Ok(rows)
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

    /// The owner of the test claims: request `r` through node 1.
    fn owner() -> RequestOwner {
        RequestOwner {
            request_id: "r".into(),
            coordinator: 1,
        }
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
                s.claim_attempt(&key, [5; 32], &owner()).expect("claim"),
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
        assert_eq!(
            s.claim_attempt(&key, [6; 32], &owner()).expect("claim"),
            Claim::Taken
        );
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

    #[test]
    fn finished_ephemeral_records_are_pruned_beyond_the_newest_and_nothing_else() {
        let dir = tempfile::tempdir().expect("dir");
        let sqlite = SqliteStore::open(&dir.path().join("runtime.db")).expect("open");
        for s in [&MemoryStore::default() as &dyn SessionStore, &sqlite] {
            prune_case(s);
        }
    }

    /// Five finished status queries (requests and attempts), one running, plus a finished
    /// ping and a finished attempt of another key: pruning to 2 deletes 3 requests and 3
    /// attempts of the status protocol only, and is idempotent.
    fn prune_case(s: &dyn SessionStore) {
        let status = "ecdsa-epoch-status";
        let done = Outcome::Aborted {
            reason: "x".into(),
            culprits: vec![],
            evidence: vec![],
        };
        for i in 0..6u8 {
            let mut r = record(&format!("q{i}"));
            r.request.protocol = status.into();
            if i < 5 {
                r.status = RequestStatus::Aborted;
            }
            assert!(s.insert_request(&r).expect("insert").is_none());
            let key = AttemptKey {
                key_id: format!("{status}-{i:02x}"),
                epoch: 0,
                attempt: 0,
            };
            s.claim_attempt(&key, [i; 32], &owner()).expect("claim");
            if i < 5 {
                s.finish_attempt(&key, &done).expect("finish");
            }
        }
        let mut ping = record("p");
        ping.status = RequestStatus::Aborted;
        s.insert_request(&ping).expect("ping");
        let other = AttemptKey {
            key_id: "k1".into(),
            epoch: 0,
            attempt: 0,
        };
        s.claim_attempt(&other, [9; 32], &owner())
            .expect("claim k1");
        s.finish_attempt(&other, &done).expect("finish k1");

        let prefix = format!("{status}-");
        assert_eq!(s.prune_finished(status, &prefix, 2).expect("prune"), 6);
        assert_eq!(s.prune_finished(status, &prefix, 2).expect("again"), 0);
        let left: Vec<String> = s
            .requests()
            .expect("requests")
            .into_iter()
            .map(|r| r.request.request_id)
            .collect();
        // Two finished status requests remain (the newest) beside the running one and the
        // ping.
        assert_eq!(left.len(), 4, "{left:?}");
        assert!(left.contains(&"q5".to_string()) && left.contains(&"p".to_string()));
        let running = AttemptKey {
            key_id: format!("{status}-05"),
            epoch: 0,
            attempt: 0,
        };
        // The unfinished attempt and the other key's attempt still refuse a rerun.
        assert_eq!(
            s.claim_attempt(&running, [0; 32], &owner()).expect("c"),
            Claim::Taken
        );
        assert_eq!(
            s.claim_attempt(&other, [0; 32], &owner()).expect("c"),
            Claim::Taken
        );
        assert_eq!(s.attempt_outcome(&other).expect("o"), Some(done.clone()));
        // The newest two finished attempts stay, in both stores (review finding f: the
        // in-memory store kept the first two in key order, here the oldest).
        let finished_left: Vec<u8> = (0..5u8)
            .filter(|i| {
                let k = AttemptKey {
                    key_id: format!("{status}-{i:02x}"),
                    epoch: 0,
                    attempt: 0,
                };
                s.attempt_outcome(&k).expect("o").is_some()
            })
            .collect();
        assert_eq!(finished_left, vec![3, 4]);
        assert!(left.contains(&"q3".to_string()) && left.contains(&"q4".to_string()));
    }

    fn conformance(s: &dyn SessionStore) {
        let key = AttemptKey {
            key_id: "k1".into(),
            epoch: 0,
            attempt: s.next_attempt("k1", 0).expect("next"),
        };
        assert_eq!(key.attempt, 0);
        assert_eq!(
            s.claim_attempt(&key, [7; 32], &owner()).expect("claim"),
            Claim::Claimed
        );
        assert_eq!(
            s.claim_attempt(&key, [7; 32], &owner()).expect("again"),
            Claim::Same
        );
        assert_eq!(
            s.claim_attempt(&key, [8; 32], &owner()).expect("other"),
            Claim::Taken
        );
        assert_eq!(s.next_attempt("k1", 0).expect("next"), 1);
        assert_eq!(s.next_attempt("k1", 1).expect("other epoch"), 0);
        let outcome = Outcome::Aborted {
            reason: "x".into(),
            culprits: vec![2],
            evidence: vec![],
        };
        s.finish_attempt(&key, &outcome).expect("finish");
        assert_eq!(
            s.attempt_outcome(&key).expect("read"),
            Some(outcome.clone())
        );
        // Finishing does not free the attempt for another session.
        assert_eq!(
            s.claim_attempt(&key, [8; 32], &owner()).expect("other"),
            Claim::Taken
        );

        // The coordinator's opening write: claim and record together, or nothing.
        let k2 = |attempt| AttemptKey {
            key_id: "k2".into(),
            epoch: 0,
            attempt,
        };
        let r = record("r2");
        assert_eq!(
            s.begin_attempt(&r, true, &k2(0), [1; 32], 1)
                .expect("begin"),
            Begun::Claimed
        );
        assert_eq!(s.request("r2").expect("read"), Some(r.clone()));
        // A new request whose id exists: nothing written, the attempt stays free.
        assert_eq!(
            s.begin_attempt(&r, true, &k2(1), [2; 32], 1)
                .expect("begin"),
            Begun::Existing(Box::new(r.clone()))
        );
        assert_eq!(s.next_attempt("k2", 0).expect("next"), 1);
        // A taken attempt: nothing written, the record unchanged.
        let mut changed = r.clone();
        changed.error = Some("changed".into());
        assert_eq!(
            s.begin_attempt(&changed, false, &k2(0), [3; 32], 1)
                .expect("begin"),
            Begun::NotClaimed(Claim::Taken)
        );
        assert_eq!(s.request("r2").expect("read"), Some(r.clone()));
        // The closing write: outcome and record together.
        let done = Outcome::Completed {
            output: serde_json::json!({"ok": true}),
        };
        let mut closed = r.clone();
        closed.status = RequestStatus::Completed;
        s.end_attempt(&k2(0), &done, &closed).expect("end");
        assert_eq!(s.attempt_outcome(&k2(0)).expect("read"), Some(done));
        assert_eq!(s.request("r2").expect("read"), Some(closed));
        // A request id runs through one coordinator: the same request id and key through
        // another coordinator is a duplicate naming the first session (nothing written); the
        // first coordinator's retries under new attempt numbers are claimed.
        let via = |coordinator| RequestOwner {
            request_id: "r2".into(),
            coordinator,
        };
        assert_eq!(
            s.claim_attempt(&k2(5), [4; 32], &via(2)).expect("dup"),
            Claim::Duplicate {
                coordinator: 1,
                session: [1; 32]
            }
        );
        assert_eq!(
            s.begin_attempt(&r, false, &k2(6), [5; 32], 3).expect("dup"),
            Begun::NotClaimed(Claim::Duplicate {
                coordinator: 1,
                session: [1; 32]
            })
        );
        assert_eq!(s.next_attempt("k2", 0).expect("next"), 1);
        assert_eq!(
            s.claim_attempt(&k2(5), [4; 32], &via(1)).expect("retry"),
            Claim::Claimed
        );
        // Closing an unclaimed attempt fails and writes nothing.
        let mut other = r.clone();
        other.error = Some("other".into());
        assert!(s.end_attempt(&k2(9), &outcome, &other).is_err());
        assert_eq!(
            s.request("r2").expect("read").map(|r| r.status),
            Some(RequestStatus::Completed)
        );
    }

    /// The `synchronous` setting the writer connection has now (1 NORMAL, 2 FULL).
    fn synchronous(s: &SqliteStore) -> i64 {
        s.lock()
            .expect("lock")
            .pragma_query_value(None, "synchronous", |r| r.get(0))
            .expect("pragma")
    }

    #[test]
    fn only_batches_of_lazy_writes_skip_the_fsync_and_a_lazy_outcome_never_frees_its_attempt() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("runtime.db");
        let key = |attempt| AttemptKey {
            key_id: "k".into(),
            epoch: 0,
            attempt,
        };
        let done = Outcome::Completed {
            output: serde_json::json!({"ok": true}),
        };
        {
            let s = SqliteStore::open(&path).expect("open");
            assert_eq!(
                s.claim_attempt(&key(0), [1; 32], &owner()).expect("claim"),
                Claim::Claimed
            );
            assert_eq!(synchronous(&s), 2, "a claim is committed FULL");
            s.finish_attempt(&key(0), &done).expect("finish");
            assert_eq!(synchronous(&s), 1, "a lone outcome is committed NORMAL");
            assert_eq!(
                s.claim_attempt(&key(1), [2; 32], &owner()).expect("claim"),
                Claim::Claimed
            );
            assert_eq!(synchronous(&s), 2, "the next claim is FULL again");
            // A batch mixing a lazy write with a durable one is committed FULL.
            s.finish_attempt(&key(1), &done).expect("finish");
            let conn = s.lock().expect("lock");
            let op = |durable| Op {
                run: Box::new(|_: &rusqlite::Connection| -> Reply { Box::new(|_| {}) }),
                durable,
            };
            SqliteStore::commit_batch(&conn, vec![op(false), op(true), op(false)]);
            drop(conn);
            assert_eq!(synchronous(&s), 2);
        }
        // After a restart (the process stopped, no power loss) the lazy outcome is there,
        // and a finished attempt stays claimed: it never reruns.
        let s = SqliteStore::open(&path).expect("reopen");
        assert_eq!(s.attempt_outcome(&key(0)).expect("o"), Some(done.clone()));
        assert_eq!(
            s.claim_attempt(&key(0), [3; 32], &owner()).expect("claim"),
            Claim::Taken
        );
        assert_eq!(s.next_attempt("k", 0).expect("next"), 2);
    }

    #[test]
    fn concurrent_writes_commit_in_groups_and_each_is_durable_once() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("runtime.db");
        let store = std::sync::Arc::new(SqliteStore::open(&path).expect("open"));
        // Eight threads race for the same 32 attempts: each is claimed by exactly one session.
        let threads: Vec<_> = (0u8..8)
            .map(|t| {
                let store = store.clone();
                std::thread::spawn(move || {
                    (0u32..32)
                        .filter(|&a| {
                            let key = AttemptKey {
                                key_id: "k".into(),
                                epoch: 0,
                                attempt: a,
                            };
                            store.claim_attempt(&key, [t; 32], &owner()).expect("claim")
                                == Claim::Claimed
                        })
                        .count()
                })
            })
            .collect();
        let claimed: usize = threads.into_iter().map(|h| h.join().expect("join")).sum();
        assert_eq!(claimed, 32);
        drop(store);
        let s = SqliteStore::open(&path).expect("reopen");
        assert_eq!(s.next_attempt("k", 0).expect("next"), 32);
    }
}
