//! Persistence of session state: operator requests (idempotency by request id) and claimed
//! attempts keyed by (key id, epoch, attempt).
//!
//! [`SessionStore`] is the interface the runtime needs; [`MemoryStore`] implements it in
//! memory (tests, and nodes without a keystore). The node's SQLite keystore implements it
//! durably.

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
    fn next_attempt(&self, key_id: &[u8; 32], epoch: u64) -> Result<u32, StoreError>;
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
                g.attempts.insert(*key, (session, None));
                Ok(Claim::Claimed)
            }
        }
    }

    fn next_attempt(&self, key_id: &[u8; 32], epoch: u64) -> Result<u32, StoreError> {
        let g = self.lock()?;
        let last = g
            .attempts
            .keys()
            .filter(|k| &k.key_id == key_id && k.epoch == epoch)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_is_claimed_once_and_never_reruns() {
        let s = MemoryStore::default();
        let key = AttemptKey {
            key_id: [1; 32],
            epoch: 0,
            attempt: s.next_attempt(&[1; 32], 0).expect("next"),
        };
        assert_eq!(key.attempt, 0);
        assert_eq!(
            s.claim_attempt(&key, [7; 32]).expect("claim"),
            Claim::Claimed
        );
        assert_eq!(s.claim_attempt(&key, [7; 32]).expect("again"), Claim::Same);
        assert_eq!(s.claim_attempt(&key, [8; 32]).expect("other"), Claim::Taken);
        assert_eq!(s.next_attempt(&[1; 32], 0).expect("next"), 1);
        assert_eq!(s.next_attempt(&[1; 32], 1).expect("other epoch"), 0);
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
