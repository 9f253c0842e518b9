//! Persisted bans: per key id, the counterparties a protocol named as cheaters, with the
//! evidence (public bytes a third party can check, e.g. signed envelopes and the blame
//! record). Bans survive restarts; the first evidence recorded for a party is kept.

use super::error::KeystoreError;
use super::store::{check_len, Keystore};
use super::types::KeyId;
use crate::faults::crash_point;
use crate::identity::NodeId;
use rusqlite::{params, TransactionBehavior};

/// Largest evidence accepted, in bytes.
const MAX_EVIDENCE_LEN: usize = 4 << 20;
/// Longest reason accepted, in bytes.
const MAX_REASON_LEN: usize = 1024;

/// A stored ban.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ban {
    /// The key id the ban applies to.
    pub key_id: KeyId,
    /// The banned node.
    pub node: NodeId,
    /// A short human-readable reason (e.g. the failed check's name).
    pub reason: String,
    /// The evidence bytes.
    pub evidence: Vec<u8>,
}

/// The ban table of a keystore, borrowed from [`Keystore::bans`].
#[derive(Debug)]
pub struct Bans<'a> {
    ks: &'a mut Keystore,
}

impl Keystore {
    /// The persisted bans.
    pub fn bans(&mut self) -> Bans<'_> {
        Bans { ks: self }
    }
}

impl Bans<'_> {
    /// Bans `node` for `key_id` with its evidence. Returns `false` (and keeps the first
    /// evidence) if the node was already banned for this key.
    pub fn add(
        &mut self,
        key_id: &KeyId,
        node: NodeId,
        reason: &str,
        evidence: &[u8],
    ) -> Result<bool, KeystoreError> {
        check_len("ban evidence", evidence.len(), MAX_EVIDENCE_LEN)?;
        check_len("a ban reason", reason.len(), MAX_REASON_LEN)?;
        let (conn, _, _) = self.ks.parts();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let added = tx.execute(
            "INSERT OR IGNORE INTO bans (key_id, node_id, reason, evidence) VALUES (?1, ?2, ?3, ?4)",
            params![key_id.as_str(), node.get(), reason, evidence],
        )?;
        crash_point("bans.add.before_commit");
        tx.commit()?;
        crash_point("bans.add.after_commit");
        Ok(added == 1)
    }

    /// Lifts a ban (an operator decision). Returns whether there was one.
    pub fn remove(&mut self, key_id: &KeyId, node: NodeId) -> Result<bool, KeystoreError> {
        let n = self.ks.conn.execute(
            "DELETE FROM bans WHERE key_id = ?1 AND node_id = ?2",
            params![key_id.as_str(), node.get()],
        )?;
        Ok(n == 1)
    }

    /// Whether `node` is banned for `key_id`.
    pub fn is_banned(&self, key_id: &KeyId, node: NodeId) -> Result<bool, KeystoreError> {
        // Cached: every participant's policy asks this for every proposal it receives.
        let n: i64 = self
            .ks
            .conn
            .prepare_cached("SELECT count(*) FROM bans WHERE key_id = ?1 AND node_id = ?2")?
            .query_row(params![key_id.as_str(), node.get()], |r| r.get(0))?;
        Ok(n > 0)
    }

    /// Every ban for `key_id`, by node id.
    pub fn list(&self, key_id: &KeyId) -> Result<Vec<Ban>, KeystoreError> {
        let mut stmt = self.ks.conn.prepare(
            "SELECT node_id, reason, evidence FROM bans WHERE key_id = ?1 ORDER BY node_id",
        )?;
        let rows: Vec<(i64, String, Vec<u8>)> = stmt
            .query_map(params![key_id.as_str()], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<Result<_, _>>()?;
        rows.into_iter()
            .map(|(n, reason, evidence)| {
                let node = u16::try_from(n)
                    .ok()
                    .and_then(|n| NodeId::new(n).ok())
                    .ok_or_else(|| KeystoreError::Corrupt("a banned node id is invalid".into()))?;
                Ok(Ban {
                    key_id: key_id.clone(),
                    node,
                    reason,
                    evidence,
                })
            })
            .collect()
    }
}
