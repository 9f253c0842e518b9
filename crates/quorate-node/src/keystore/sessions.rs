//! Persisted session states keyed by (key id, epoch, attempt), idempotent by request id.
//!
//! The session runtime stores each protocol session's state here before any message that
//! depends on it leaves the node. Rules:
//!
//! * a request id names at most one session: [`Sessions::begin`] with a known request id
//!   returns the existing record ([`Begun::Existing`]), never a second session;
//! * an attempt never reruns: (key id, epoch, attempt) belongs to the first request that
//!   began it, and [`Sessions::begin`] with another request id is
//!   [`KeystoreError::AttemptUsed`];
//! * the state is sealed under the epoch's data key, with (node, key id, epoch, attempt,
//!   `session-state`, request id) as associated data; it is cleared when the session
//!   finishes and when its epoch is retired or abandoned;
//! * a finished session's public result (a signature, an error report) stays, so a repeated
//!   request gets the same answer.

use super::error::KeystoreError;
use super::store::{check_len, data_key, to_i64, to_u64, Keystore, MAX_SECRET_LEN};
use super::types::{KeyId, Kind, RequestId, SecretBytes};
use crate::faults::crash_point;
use crate::identity::NodeId;
use rusqlite::{params, Connection, OptionalExtension as _, TransactionBehavior};

/// Largest public result accepted, in bytes.
const MAX_RESULT_LEN: usize = 1 << 20;

/// A session's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionStatus {
    /// Begun and not finished.
    Running,
    /// Finished with a result.
    Succeeded,
    /// Finished with an error (the result holds the report).
    Failed,
}

impl SessionStatus {
    /// The status as stored and printed: `running`, `succeeded` or `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Running => "running",
            SessionStatus::Succeeded => "succeeded",
            SessionStatus::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Result<SessionStatus, KeystoreError> {
        match s {
            "running" => Ok(SessionStatus::Running),
            "succeeded" => Ok(SessionStatus::Succeeded),
            "failed" => Ok(SessionStatus::Failed),
            _ => Err(KeystoreError::Corrupt("unknown session status".into())),
        }
    }
}

/// How a session finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionOutcome {
    /// It produced its result.
    Succeeded,
    /// It aborted.
    Failed,
}

/// A stored session.
#[derive(Debug)]
pub struct SessionRecord {
    /// The operator's request id.
    pub request_id: RequestId,
    /// The key id.
    pub key_id: KeyId,
    /// The epoch.
    pub epoch: u64,
    /// The attempt.
    pub attempt: u32,
    /// Running, succeeded or failed.
    pub status: SessionStatus,
    /// The opened state while running (`None` once finished or its epoch is retired).
    pub state: Option<SecretBytes>,
    /// The public result once finished.
    pub result: Option<Vec<u8>>,
    /// How many times the state was written (1 after `begin`).
    pub version: u64,
}

/// What [`Sessions::begin`] did.
#[derive(Debug)]
pub enum Begun {
    /// A new session was stored.
    Started,
    /// The request id was already known: this is its session (compare its key id, epoch
    /// and attempt with the request before resuming or answering from it).
    Existing(SessionRecord),
}

/// The session table of a keystore, borrowed from [`Keystore::sessions`].
#[derive(Debug)]
pub struct Sessions<'a> {
    ks: &'a mut Keystore,
}

impl Keystore {
    /// The persisted session states.
    pub fn sessions(&mut self) -> Sessions<'_> {
        Sessions { ks: self }
    }
}

fn state_ad(
    node: NodeId,
    key_id: &KeyId,
    epoch: u64,
    attempt: u32,
    request_id: &RequestId,
) -> super::crypto::Ad {
    let mut ad = super::store::secret_ad(node, key_id, epoch, attempt, &Kind::SESSION_STATE);
    ad.str(request_id.as_str());
    ad
}

type Row = (
    String,
    String,
    i64,
    i64,
    String,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    i64,
);

const SELECT: &str =
    "SELECT request_id, key_id, epoch, attempt, status, state, result, version FROM sessions";

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
        r.get(6)?,
        r.get(7)?,
    ))
}

impl Sessions<'_> {
    fn record(&self, conn: &Connection, row: Row) -> Result<SessionRecord, KeystoreError> {
        let (request_id, key_id, epoch, attempt, status, state, result, version) = row;
        let request_id = RequestId::from_stored(request_id)?;
        let key_id = KeyId::from_stored(key_id)?;
        let epoch = to_u64(epoch)?;
        let attempt = u32::try_from(attempt)
            .map_err(|_| KeystoreError::Corrupt("a stored attempt is out of range".into()))?;
        let state = match state {
            None => None,
            Some(sealed) => {
                let node = self.ks.node_id();
                let dk = data_key(conn, node, self.ks_kek(), &key_id, epoch)?;
                let ad = state_ad(node, &key_id, epoch, attempt, &request_id);
                let opened =
                    dk.open(ad.as_bytes(), &sealed)
                        .ok_or_else(|| KeystoreError::Tampered {
                            what: "session state",
                            key_id: key_id.to_string(),
                            epoch,
                        })?;
                Some(SecretBytes::new(opened))
            }
        };
        Ok(SessionRecord {
            request_id,
            key_id,
            epoch,
            attempt,
            status: SessionStatus::parse(&status)?,
            state,
            result,
            version: to_u64(version)?,
        })
    }

    fn ks_kek(&self) -> &super::crypto::SymKey {
        self.ks.kek()
    }

    fn query_one(
        &self,
        conn: &Connection,
        clause: &str,
        p: impl rusqlite::Params,
    ) -> Result<Option<SessionRecord>, KeystoreError> {
        let row = conn
            .query_row(&format!("{SELECT} WHERE {clause}"), p, read_row)
            .optional()?;
        row.map(|r| self.record(conn, r)).transpose()
    }

    /// Begins the session (key id, epoch, attempt) for `request_id` with its first state.
    /// The epoch must exist (pending or active): its data key seals the state.
    pub fn begin(
        &mut self,
        request_id: &RequestId,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        state: &[u8],
    ) -> Result<Begun, KeystoreError> {
        check_len("a session state", state.len(), MAX_SECRET_LEN)?;
        let e = to_i64(epoch)?;
        if let Some(existing) = self.get_by_request_id(request_id)? {
            return Ok(Begun::Existing(existing));
        }
        let (conn, node, kek) = self.ks.parts();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Checked again inside the write transaction: another connection may have raced us.
        let owner: Option<String> = tx
            .query_row(
                "SELECT request_id FROM sessions WHERE request_id = ?1
                 OR (key_id = ?2 AND epoch = ?3 AND attempt = ?4)",
                params![request_id.as_str(), key_id.as_str(), e, attempt],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(owner) = owner {
            drop(tx);
            if owner == request_id.as_str() {
                return match self.get_by_request_id(request_id)? {
                    Some(rec) => Ok(Begun::Existing(rec)),
                    None => Err(KeystoreError::Corrupt("a session row vanished".into())),
                };
            }
            return Err(KeystoreError::AttemptUsed {
                key_id: key_id.to_string(),
                epoch,
                attempt,
                request_id: owner,
            });
        }
        let dk = data_key(&tx, node, kek, key_id, epoch)?;
        let sealed = dk.seal(
            state_ad(node, key_id, epoch, attempt, request_id).as_bytes(),
            state,
        )?;
        tx.execute(
            "INSERT INTO sessions (key_id, epoch, attempt, request_id, status, state, result, version)
             VALUES (?1, ?2, ?3, ?4, 'running', ?5, NULL, 1)",
            params![key_id.as_str(), e, attempt, request_id.as_str(), sealed],
        )?;
        crash_point("sessions.begin.before_commit");
        tx.commit()?;
        crash_point("sessions.begin.after_commit");
        Ok(Begun::Started)
    }

    /// The next unused attempt number of (key id, epoch): one more than the largest used.
    pub fn next_attempt(&self, key_id: &KeyId, epoch: u64) -> Result<u32, KeystoreError> {
        let max: Option<i64> = self.ks.conn.query_row(
            "SELECT max(attempt) FROM sessions WHERE key_id = ?1 AND epoch = ?2",
            params![key_id.as_str(), to_i64(epoch)?],
            |r| r.get(0),
        )?;
        match max {
            None => Ok(1),
            Some(m) => u32::try_from(m + 1).map_err(|_| KeystoreError::TooLarge {
                what: "the attempt counter",
                len: usize::MAX,
                max: u32::MAX as usize,
            }),
        }
    }

    /// Replaces a running session's state (sealed afresh; the version counts up).
    pub fn update(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        state: &[u8],
    ) -> Result<(), KeystoreError> {
        check_len("a session state", state.len(), MAX_SECRET_LEN)?;
        let e = to_i64(epoch)?;
        let (conn, node, kek) = self.ks.parts();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (request_id, status) = running_row(&tx, key_id, epoch, attempt)?;
        if status != SessionStatus::Running {
            return Err(KeystoreError::SessionFinished {
                key_id: key_id.to_string(),
                epoch,
                attempt,
            });
        }
        let dk = data_key(&tx, node, kek, key_id, epoch)?;
        let sealed = dk.seal(
            state_ad(node, key_id, epoch, attempt, &request_id).as_bytes(),
            state,
        )?;
        tx.execute(
            "UPDATE sessions SET state = ?4, version = version + 1
             WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
            params![key_id.as_str(), e, attempt, sealed],
        )?;
        crash_point("sessions.update.before_commit");
        tx.commit()?;
        crash_point("sessions.update.after_commit");
        Ok(())
    }

    /// Finishes a running session with its public result and clears its state. Finishing
    /// again with the same outcome and result is a no-op; anything else is
    /// [`KeystoreError::SessionFinished`].
    pub fn finish(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        outcome: SessionOutcome,
        result: &[u8],
    ) -> Result<(), KeystoreError> {
        check_len("a session result", result.len(), MAX_RESULT_LEN)?;
        let e = to_i64(epoch)?;
        let status = match outcome {
            SessionOutcome::Succeeded => SessionStatus::Succeeded,
            SessionOutcome::Failed => SessionStatus::Failed,
        };
        let (conn, _, _) = self.ks.parts();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (_, current) = running_row(&tx, key_id, epoch, attempt)?;
        if current != SessionStatus::Running {
            let stored: Option<Vec<u8>> = tx.query_row(
                "SELECT result FROM sessions WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
                params![key_id.as_str(), e, attempt],
                |r| r.get(0),
            )?;
            if current == status && stored.as_deref() == Some(result) {
                return Ok(());
            }
            return Err(KeystoreError::SessionFinished {
                key_id: key_id.to_string(),
                epoch,
                attempt,
            });
        }
        tx.execute(
            "UPDATE sessions SET status = ?4, result = ?5, state = NULL, version = version + 1
             WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
            params![key_id.as_str(), e, attempt, status.as_str(), result],
        )?;
        crash_point("sessions.finish.before_commit");
        tx.commit()?;
        crash_point("sessions.finish.after_commit");
        Ok(())
    }

    /// The session of (key id, epoch, attempt).
    pub fn get(
        &self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
    ) -> Result<Option<SessionRecord>, KeystoreError> {
        self.query_one(
            &self.ks.conn,
            "key_id = ?1 AND epoch = ?2 AND attempt = ?3",
            params![key_id.as_str(), to_i64(epoch)?, attempt],
        )
    }

    /// The session begun for `request_id`.
    pub fn get_by_request_id(
        &self,
        request_id: &RequestId,
    ) -> Result<Option<SessionRecord>, KeystoreError> {
        self.query_one(
            &self.ks.conn,
            "request_id = ?1",
            params![request_id.as_str()],
        )
    }

    /// Every running session (what a restarted node resumes or aborts), by key, epoch and
    /// attempt.
    pub fn running(&self) -> Result<Vec<SessionRecord>, KeystoreError> {
        let conn = &self.ks.conn;
        let mut stmt = conn.prepare(&format!(
            "{SELECT} WHERE status = 'running' ORDER BY key_id, epoch, attempt"
        ))?;
        let rows: Vec<Row> = stmt.query_map([], read_row)?.collect::<Result<_, _>>()?;
        rows.into_iter().map(|r| self.record(conn, r)).collect()
    }
}

fn running_row(
    conn: &Connection,
    key_id: &KeyId,
    epoch: u64,
    attempt: u32,
) -> Result<(RequestId, SessionStatus), KeystoreError> {
    let row: Option<(String, String)> = conn
        .query_row(
            "SELECT request_id, status FROM sessions WHERE key_id = ?1 AND epoch = ?2 AND attempt = ?3",
            params![key_id.as_str(), to_i64(epoch)?, attempt],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (request_id, status) = row.ok_or_else(|| KeystoreError::NoSuchSession {
        key_id: key_id.to_string(),
        epoch,
        attempt,
    })?;
    Ok((
        RequestId::from_stored(request_id)?,
        SessionStatus::parse(&status)?,
    ))
}
