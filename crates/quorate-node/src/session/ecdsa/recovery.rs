//! Resolving a pending epoch whose share is sealed: commit it if some holder can show the
//! epoch certificate (or every holder's signature), abandon it only when provably nobody
//! can ever commit it.
//!
//! * **What is sealed.** A keygen or refresh seals the new share together with the
//!   epoch certificate carrying only this holder's signature ([`KIND_EPOCH_CERT`]), in one
//!   transaction, before that signature is sent. A pending epoch without it was never
//!   signed here, and since a certificate needs every holder's signature, nobody can commit
//!   it: such an epoch is abandoned.
//! * **Never abandon after signing.** A driver whose signature may be out leaves its pending
//!   epoch alone when it fails (a round-6 timeout, a bad signature) and wakes the resolver.
//! * **Status.** The resolver asks every other holder, one two-party
//!   [`NAME`] (`ecdsa-epoch-status`) session each, for its [`HolderStatus`] of (key id,
//!   epoch, session id): `certified` with its certificate, `pending` with its signature,
//!   `running` (its driver still runs), or `absent`.
//! * **Decision** ([`EcdsaNode::resolve`]): a valid certificate over our own statement, or
//!   valid signatures of every holder, commits; otherwise one `absent` holder abandons (it
//!   sent its round-4 message, or we could not have sealed our share, so it ran the session;
//!   absent and not running, it never signed and never will: attempts never rerun — or an
//!   operator abandoned the epoch there, see below, and it will never commit it); anything
//!   else (a holder running, unreachable, or answering nonsense) is retried with backoff.
//! * **Operator** ([`operator_resolve`], `POST /v1/keys/{key_id}/resolve`, `quorate ecdsa
//!   resolve`): a silent holder (its machine gone) leaves the epoch undecided forever. The
//!   operator's request asks every holder now and decides as above; if that stays undecided
//!   it abandons only when asked to explicitly, with no holder still running, and records
//!   who, when, why and the silent holders in the keystore in the same transaction. The
//!   node then answers `absent`, so the other live holders follow. Only a silent holder can
//!   have committed such an epoch (docs/decisions.md, "operator resolve of a pending ECDSA
//!   epoch"); the answer warns what that costs.
//!
//! Start-up runs the same resolver over every pending epoch before any session could touch
//! it. The gauge `quorate_ecdsa_pending_epochs` counts the pending epochs of this node.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::task::JoinHandle;
use tracing::{info, warn};

use super::cert::{EpochCertificate, MAX_CERT_LEN};
use super::{failed, EcdsaNode};
use crate::keystore::{EpochStatus, KeyId, Kind};
use crate::metrics::Metrics;
use crate::session::driver::{
    DriverError, Incoming, Outgoing, Protocol, ProtocolDriver, Recipient, SessionContext, Step,
};
use crate::session::{Runtime, SessionRequest};

/// Protocol name of the status exchange.
pub const NAME: &str = "ecdsa-epoch-status";
/// Kind of the sealed certificate-to-be (our signature only) beside a pending share.
pub const KIND_EPOCH_CERT: &str = "ecdsa-epoch-cert";
const GAUGE: &str = "quorate_ecdsa_pending_epochs";
/// Largest status payload: a hex certificate and the JSON around it.
const MAX_STATUS_LEN: usize = 2 * MAX_CERT_LEN + 256;
/// Longest wait between two rounds of status queries while an epoch stays undecided.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// The kind [`KIND_EPOCH_CERT`].
pub(crate) fn epoch_cert_kind() -> Result<Kind, String> {
    Kind::new(KIND_EPOCH_CERT).map_err(|e| e.to_string())
}

/// One holder's view of (key id, epoch, session id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case", deny_unknown_fields)]
pub enum HolderStatus {
    /// The epoch is committed (or already retired) here with this certificate (hex of its
    /// stored form).
    Certified {
        /// The certificate.
        certificate: String,
    },
    /// Pending here, our certificate signature is out: the signature (hex).
    Pending {
        /// This holder's Ed25519 signature over the statement.
        signature: String,
    },
    /// The session's keygen or refresh still runs here: ask again later.
    Running,
    /// Nothing signed for this session here, and nothing ever will be.
    Absent,
}

/// What [`EcdsaNode::resolve`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The epoch was committed with a complete certificate.
    Committed,
    /// The epoch was abandoned (nobody can commit it).
    Abandoned,
    /// Not decidable from these answers; ask again.
    Undecided,
}

impl EcdsaNode {
    pub(crate) fn enter(&self, session: [u8; 32], key_id: &str, epoch: u64) {
        if let Ok(mut r) = self.running.lock() {
            r.insert(session, (key_id.to_string(), epoch));
        }
    }

    pub(crate) fn leave(&self, session: &[u8; 32]) {
        if let Ok(mut r) = self.running.lock() {
            r.remove(session);
        }
    }

    fn is_running(&self, session: &[u8; 32]) -> bool {
        self.running
            .lock()
            .map_or(true, |r| r.contains_key(session))
    }

    fn epoch_running(&self, key_id: &str, epoch: u64) -> bool {
        self.running.lock().map_or(true, |r| {
            r.values().any(|(k, e)| k == key_id && *e == epoch)
        })
    }

    /// Wakes the resolver (a driver left a signed pending epoch behind).
    pub(crate) fn wake_recovery(&self) {
        self.update_gauge();
        self.recovery.notify_one();
    }

    fn update_gauge(&self) {
        if let Some(m) = self.metrics.get() {
            let n = self.pending_epochs().map_or(0, |p| p.len());
            m.set_gauge(GAUGE, n as u64);
        }
    }

    /// Every pending epoch of a (non-reserved) key here.
    pub fn pending_epochs(&self) -> Result<Vec<(KeyId, u64)>, String> {
        Ok(self
            .keystore()
            .pending_epochs()
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter(|e| !e.key_id.is_reserved())
            .map(|e| (e.key_id, e.epoch))
            .collect())
    }

    /// The sealed certificate-to-be of a pending epoch (`None`: never signed here).
    fn own_certificate(&self, key: &KeyId, epoch: u64) -> Result<Option<EpochCertificate>, String> {
        let stored = self
            .keystore()
            .get_secret(key, epoch, &epoch_cert_kind()?)
            .map_err(|e| e.to_string())?;
        stored
            .map(|s| EpochCertificate::from_bytes(s.bytes.expose()))
            .transpose()
    }

    /// This holder's status of (key id, epoch, session).
    pub fn epoch_status(&self, key_id: &str, epoch: u64, session: &[u8; 32]) -> HolderStatus {
        match self.try_epoch_status(key_id, epoch, session) {
            Ok(s) => s,
            Err(e) => {
                // Storage trouble: say nothing that could make a peer abandon.
                warn!(key_id, epoch, error = %e, "could not read an epoch's status");
                HolderStatus::Running
            }
        }
    }

    fn try_epoch_status(
        &self,
        key_id: &str,
        epoch: u64,
        session: &[u8; 32],
    ) -> Result<HolderStatus, String> {
        if self.is_running(session) {
            return Ok(HolderStatus::Running);
        }
        let key = KeyId::new(key_id).map_err(|e| e.to_string())?;
        let row = self
            .keystore()
            .epochs(&key)
            .map_err(|e| e.to_string())?
            .into_iter()
            .find(|e| e.epoch == epoch);
        let Some(row) = row else {
            return Ok(HolderStatus::Absent);
        };
        match row.status {
            EpochStatus::Active | EpochStatus::Retired => {
                let bytes = row.certificate.unwrap_or_default();
                let cert = EpochCertificate::from_bytes(&bytes)?;
                Ok(if &cert.session_id == session {
                    HolderStatus::Certified {
                        certificate: hex::encode(bytes),
                    }
                } else {
                    HolderStatus::Absent
                })
            }
            EpochStatus::Pending => match self.own_certificate(&key, epoch)? {
                Some(c) if &c.session_id == session => {
                    let sig = c
                        .signatures
                        .get(&self.self_id)
                        .ok_or("our sealed certificate lacks our signature")?;
                    Ok(HolderStatus::Pending {
                        signature: hex::encode(sig),
                    })
                }
                _ => Ok(HolderStatus::Absent),
            },
        }
    }

    /// Decides a pending epoch from the other holders' answers (see the module docs).
    pub fn resolve(
        &self,
        key: &KeyId,
        epoch: u64,
        answers: &BTreeMap<u16, HolderStatus>,
    ) -> Result<Resolution, String> {
        let Some(mine) = self.own_certificate(key, epoch)? else {
            self.abandon(key, epoch, "never signed here")?;
            return Ok(Resolution::Abandoned);
        };
        let statement = mine.statement();
        let mut sigs = mine.signatures.clone();
        let mut absent = None;
        for (peer, answer) in answers {
            if !mine.holders.contains(peer) || *peer == self.self_id {
                continue;
            }
            match answer {
                HolderStatus::Certified { certificate } => {
                    let theirs = hex::decode(certificate)
                        .map_err(|e| e.to_string())
                        .and_then(|b| EpochCertificate::from_bytes(&b));
                    match theirs {
                        Ok(c) if c.statement() == statement && c.verify(&self.roster).is_ok() => {
                            return self.commit(key, epoch, mine, c.signatures);
                        }
                        _ => {
                            warn!(key_id = %key, epoch, peer, "a holder's certificate is not one of our statement")
                        }
                    }
                }
                HolderStatus::Pending { signature } => {
                    let sig = hex::decode(signature)
                        .ok()
                        .and_then(|s| <[u8; 64]>::try_from(s).ok());
                    match (sig, self.roster.get(peer)) {
                        (Some(s), Some(k)) if statement.verify(k, &s) => {
                            sigs.insert(*peer, s);
                        }
                        _ => {
                            warn!(key_id = %key, epoch, peer, "a holder's signature does not verify over our statement")
                        }
                    }
                }
                HolderStatus::Absent => absent = Some(*peer),
                HolderStatus::Running => {}
            }
        }
        if mine.holders.iter().all(|h| sigs.contains_key(h)) {
            return self.commit(key, epoch, mine, sigs);
        }
        if let Some(peer) = absent {
            self.abandon(key, epoch, &format!("holder {peer} never signed"))?;
            return Ok(Resolution::Abandoned);
        }
        Ok(Resolution::Undecided)
    }

    fn commit(
        &self,
        key: &KeyId,
        epoch: u64,
        mut cert: EpochCertificate,
        signatures: BTreeMap<u16, [u8; 64]>,
    ) -> Result<Resolution, String> {
        cert.signatures = signatures;
        cert.verify(&self.roster)?;
        self.commit_epoch(key, epoch, &cert.to_bytes())?;
        self.epoch_committed(key, epoch);
        info!(key_id = %key, epoch, "recovered a pending epoch: committed");
        self.update_gauge();
        Ok(Resolution::Committed)
    }

    fn abandon(&self, key: &KeyId, epoch: u64, why: &str) -> Result<(), String> {
        self.keystore()
            .abandon_epoch(key, epoch)
            .map_err(|e| e.to_string())?;
        self.forget(key.as_str());
        info!(key_id = %key, epoch, why, "recovered a pending epoch: abandoned");
        self.update_gauge();
        Ok(())
    }
}

/// The `ecdsa-epoch-status` protocol: every participant sends its [`HolderStatus`] of the
/// params' `{"key_id", "epoch", "session"}` in round 1; the output is every status by node id.
#[derive(Debug)]
pub struct EcdsaEpochStatus {
    node: Arc<EcdsaNode>,
}

impl EcdsaEpochStatus {
    /// The protocol, answering from `node`'s keystore.
    pub fn new(node: Arc<EcdsaNode>) -> Self {
        Self { node }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StatusParams {
    key_id: String,
    epoch: u64,
    session: String,
}

impl Protocol for EcdsaEpochStatus {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> u16 {
        1
    }

    fn min_participants(&self, _params: &Value) -> Result<usize, String> {
        Ok(2)
    }

    /// A status answer is read from the keystore each time; an old query's record says
    /// nothing the keystore does not (and a replayed old query only re-reads the status).
    fn ephemeral(&self) -> bool {
        true
    }

    fn driver(&self, ctx: &SessionContext) -> Result<Box<dyn ProtocolDriver>, String> {
        let p: StatusParams =
            serde_json::from_value(ctx.params.clone()).map_err(|e| e.to_string())?;
        KeyId::new(&p.key_id).map_err(|e| e.to_string())?;
        let session: [u8; 32] = hex::decode(&p.session)
            .ok()
            .and_then(|s| s.try_into().ok())
            .ok_or("session must be 32 bytes of hex")?;
        let own = self.node.epoch_status(&p.key_id, p.epoch, &session);
        Ok(Box::new(StatusDriver {
            self_id: ctx.self_id,
            others: ctx.others(),
            own,
        }))
    }
}

struct StatusDriver {
    self_id: u16,
    others: Vec<u16>,
    own: HolderStatus,
}

impl ProtocolDriver for StatusDriver {
    fn start(&mut self) -> Result<Vec<Outgoing>, DriverError> {
        Ok(vec![Outgoing {
            to: Recipient::All,
            payload: serde_json::to_vec(&self.own).map_err(failed)?,
        }])
    }

    fn expected_from(&self, _round: u16) -> Vec<u16> {
        self.others.clone()
    }

    fn max_payload(&self, _round: u16) -> usize {
        MAX_STATUS_LEN
    }

    fn handle(
        &mut self,
        round: u16,
        incoming: BTreeMap<u16, Incoming>,
    ) -> Result<Step, DriverError> {
        if round != 1 {
            return Err(failed(format!("{NAME}: unexpected round {round}")));
        }
        let mut statuses = BTreeMap::new();
        statuses.insert(self.self_id, self.own.clone());
        for (from, m) in incoming {
            let s: HolderStatus =
                serde_json::from_slice(&m.payload).map_err(|e| DriverError::Blame {
                    culprits: vec![from],
                    reason: format!("malformed epoch status: {e}"),
                })?;
            statuses.insert(from, s);
        }
        Ok(Step::Done(json!({ "statuses": statuses })))
    }
}

/// Asks `peer` for its status of (key, epoch, session) over one `ecdsa-epoch-status`
/// session; `None` when it does not answer.
async fn ask(
    node: &EcdsaNode,
    runtime: &Arc<Runtime>,
    peer: u16,
    cert: &EpochCertificate,
    round_timeout: Duration,
) -> Option<HolderStatus> {
    let mut nonce = [0u8; 12];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
    let req = SessionRequest {
        request_id: format!("ecdsa-epoch-status.{}", hex::encode(nonce)),
        protocol: NAME.into(),
        params: json!({
            "key_id": cert.key_id,
            "epoch": cert.epoch,
            "session": hex::encode(cert.session_id),
        }),
        participants: vec![node.self_id, peer],
        key_id: None,
        epoch: 0,
        round_timeout_ms: Some(round_timeout.as_millis() as u64),
    };
    match runtime.submit(req).await {
        Ok(record) => record
            .output
            .and_then(|o| o["statuses"].get(peer.to_string()).cloned())
            .and_then(|s| serde_json::from_value(s).ok()),
        Err(e) => {
            info!(key_id = %cert.key_id, epoch = cert.epoch, peer, error = %e, "epoch status: no answer");
            None
        }
    }
}

/// One pass over this node's pending epochs; returns whether any stays undecided.
async fn resolve_all(node: &Arc<EcdsaNode>, runtime: &Arc<Runtime>, timeout: Duration) -> bool {
    let pending = match node.pending_epochs() {
        Ok(p) => p,
        Err(e) => {
            warn!(error = %e, "could not list pending epochs");
            return true;
        }
    };
    let mut undecided = false;
    for (key, epoch) in pending {
        if node.epoch_running(key.as_str(), epoch) {
            continue;
        }
        let answers = match node.own_certificate(&key, epoch) {
            Ok(Some(cert)) => {
                let mut answers = BTreeMap::new();
                for &peer in cert.holders.iter().filter(|h| **h != node.self_id) {
                    if let Some(a) = ask(node, runtime, peer, &cert, timeout).await {
                        answers.insert(peer, a);
                    }
                }
                answers
            }
            Ok(None) => BTreeMap::new(),
            Err(e) => {
                warn!(key_id = %key, epoch, error = %e, "unreadable sealed epoch certificate");
                undecided = true;
                continue;
            }
        };
        // A driver may have started for this epoch while we asked; it owns it then.
        if node.epoch_running(key.as_str(), epoch) {
            continue;
        }
        match node.resolve(&key, epoch, &answers) {
            Ok(Resolution::Undecided) => {
                info!(key_id = %key, epoch, ?answers, "pending epoch undecided; asking again later");
                undecided = true;
            }
            Ok(_) => {}
            Err(e) => {
                warn!(key_id = %key, epoch, error = %e, "could not resolve a pending epoch");
                undecided = true;
            }
        }
    }
    node.update_gauge();
    undecided
}

/// An operator's request to resolve a key's pending epoch
/// (`POST /v1/keys/{key_id}/resolve`, `quorate ecdsa resolve`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperatorResolve {
    /// Abandon the pending epoch if the holders' statuses cannot decide it (some holder is
    /// silent). Without it an undecided epoch is only reported.
    #[serde(default)]
    pub abandon: bool,
    /// Who decides (required with `abandon`).
    #[serde(default)]
    pub operator: Option<String>,
    /// Why (required with `abandon`).
    #[serde(default)]
    pub reason: Option<String>,
}

/// Why [`operator_resolve`] refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum OperatorResolveError {
    /// A malformed request (HTTP 400).
    BadRequest(String),
    /// This node has never held the key (HTTP 404).
    NoSuchKey,
    /// Not now: a keygen or refresh of the epoch still runs here or on a holder (HTTP 409).
    Conflict(String),
    /// Storage trouble (HTTP 500).
    Internal(String),
}

/// Largest `operator` accepted, in characters.
const MAX_OPERATOR: usize = 128;
/// Largest `reason` accepted, in characters.
const MAX_REASON: usize = 1024;

fn decision_text(
    what: &str,
    v: &Option<String>,
    max: usize,
) -> Result<String, OperatorResolveError> {
    let v = v.as_deref().map(str::trim).unwrap_or_default();
    if v.is_empty() || v.chars().count() > max || v.chars().any(char::is_control) {
        return Err(OperatorResolveError::BadRequest(format!(
            "abandoning needs `{what}`: 1..={max} printable characters"
        )));
    }
    Ok(v.to_string())
}

impl EcdsaNode {
    /// The operator decisions recorded for `key` (JSON records, oldest first).
    pub fn decisions(&self, key: &KeyId) -> Result<Vec<Value>, String> {
        let rows = self.keystore().decisions(key).map_err(|e| e.to_string())?;
        Ok(rows
            .into_iter()
            .map(|(_, r)| serde_json::from_slice(&r).unwrap_or(Value::Null))
            .collect())
    }
}

/// Resolves the pending epoch of `key_id` on an operator's request (see docs/decisions.md,
/// "operator resolve of a pending ECDSA epoch"):
///
/// 1. every other holder is asked for its status now ([`ask`], `timeout` per round), and
///    [`EcdsaNode::resolve`] decides as the background resolver would: a certificate (or
///    every holder's signature) commits, an `absent` holder abandons;
/// 2. if that cannot decide and `abandon` is set, and no holder's keygen or refresh still
///    runs, the epoch is abandoned and the decision (operator, reason, time, the holders that
///    stayed silent and those that answered `pending`) is stored in the keystore in the same
///    transaction. Nobody but a silent holder can have committed the epoch (committing needs
///    every holder's signature, and every holder that answered is still pending); the answer
///    warns what that holder's share is worth if it did.
///
/// Output: `key_id`, `epoch` (the pending one, or null), `outcome` (`none`, `committed`,
/// `abandoned`, `undecided`), `silent`, `pending`, `running`, `decisions` (every recorded
/// decision of the key) and, when the operator abandoned, `decision` and `warning`.
pub async fn operator_resolve(
    node: &Arc<EcdsaNode>,
    runtime: &Arc<Runtime>,
    key_id: &str,
    req: &OperatorResolve,
    timeout: Duration,
) -> Result<Value, OperatorResolveError> {
    use OperatorResolveError::{BadRequest, Conflict, Internal, NoSuchKey};
    let key = KeyId::new(key_id).map_err(|e| BadRequest(e.to_string()))?;
    if key.is_reserved() {
        return Err(NoSuchKey);
    }
    let decided = if req.abandon {
        Some((
            decision_text("operator", &req.operator, MAX_OPERATOR)?,
            decision_text("reason", &req.reason, MAX_REASON)?,
        ))
    } else {
        None
    };
    let epochs = node
        .keystore()
        .epochs(&key)
        .map_err(|e| Internal(e.to_string()))?;
    let history = node.decisions(&key).map_err(Internal)?;
    let Some(epoch) = epochs
        .iter()
        .find(|e| e.status == EpochStatus::Pending)
        .map(|e| e.epoch)
    else {
        if epochs.is_empty() && history.is_empty() {
            return Err(NoSuchKey);
        }
        return Ok(json!({
            "key_id": key_id, "epoch": null, "outcome": "none",
            "silent": [], "pending": [], "running": [], "decisions": history,
        }));
    };
    let busy = || {
        Conflict(format!(
            "a keygen or refresh of epoch {epoch} still runs on this node; try again when it ends"
        ))
    };
    if node.epoch_running(key.as_str(), epoch) {
        return Err(busy());
    }
    let own = node.own_certificate(&key, epoch).map_err(Internal)?;
    let mut answers = BTreeMap::new();
    if let Some(cert) = &own {
        for &peer in cert.holders.iter().filter(|h| **h != node.self_id) {
            if let Some(a) = ask(node, runtime, peer, cert, timeout).await {
                answers.insert(peer, a);
            }
        }
    }
    if node.epoch_running(key.as_str(), epoch) {
        return Err(busy());
    }
    let outcome = node.resolve(&key, epoch, &answers).map_err(Internal)?;
    let (mut silent, mut pending, mut running) = (vec![], vec![], vec![]);
    if let Some(cert) = &own {
        let statement = cert.statement();
        for &h in cert.holders.iter().filter(|h| **h != node.self_id) {
            match answers.get(&h) {
                Some(HolderStatus::Running) => running.push(h),
                Some(HolderStatus::Pending { signature }) => {
                    let ok = hex::decode(signature).ok().is_some_and(|s| {
                        node.roster.get(&h).is_some_and(|k| statement.verify(k, &s))
                    });
                    if ok {
                        pending.push(h)
                    } else {
                        silent.push(h)
                    }
                }
                Some(HolderStatus::Absent) => {}
                // No answer, or a certificate that does not verify: nothing we can rely on.
                Some(HolderStatus::Certified { .. }) | None => silent.push(h),
            }
        }
    }
    let mut out = json!({
        "key_id": key_id, "epoch": epoch, "silent": silent, "pending": pending,
        "running": running,
    });
    match outcome {
        Resolution::Committed => out["outcome"] = json!("committed"),
        Resolution::Abandoned => out["outcome"] = json!("abandoned"),
        Resolution::Undecided => match decided {
            None => out["outcome"] = json!("undecided"),
            Some(_) if !running.is_empty() => {
                return Err(Conflict(format!(
                    "the keygen or refresh of epoch {epoch} still runs on holder(s) {running:?}; \
                     they may still complete it: try again when it ends"
                )))
            }
            Some((operator, reason)) => {
                let session = own.as_ref().map(|c| hex::encode(c.session_id));
                let at = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                let record = json!({
                    "decision": "abandon-pending",
                    "key_id": key_id,
                    "epoch": epoch,
                    "session_id": session,
                    "node": node.self_id,
                    "operator": operator,
                    "reason": reason,
                    "at_unix": at,
                    "silent": silent,
                    "pending": pending,
                });
                node.keystore()
                    .abandon_epoch_recorded(&key, epoch, record.to_string().as_bytes())
                    .map_err(|e| Conflict(format!("the epoch could not be abandoned: {e}")))?;
                node.forget(key.as_str());
                node.update_gauge();
                let warning = if epoch == 0 {
                    format!(
                        "epoch 0 of key {key_id} abandoned on this node. Every holder that answered was still \
                         pending, so none of them committed it; a silent holder ({silent:?}) may have, if it \
                         received every other holder's signature: its share of this key is then unusable. \
                         This node now answers `absent`, so the other live holders abandon it too when they \
                         next ask (check with `quorate ecdsa resolve` on each); then run the keygen again."
                    )
                } else {
                    format!(
                        "epoch {epoch} of key {key_id} abandoned on this node; epoch {} stays active. Every \
                         holder that answered was still pending, so none of them committed it; a silent \
                         holder ({silent:?}) may have, if it received every other holder's signature: it then \
                         destroyed its epoch-{} share and its share of this key is lost until it is \
                         re-provisioned (restored from escrow, or a new keygen). This node now answers \
                         `absent`, so the other live holders abandon it too when they next ask \
                         (check with `quorate ecdsa resolve` on each).",
                        epoch - 1,
                        epoch - 1
                    )
                };
                warn!(key_id, epoch, operator = %operator, reason = %reason, ?silent,
                      "operator abandoned a pending epoch");
                out["outcome"] = json!("abandoned");
                out["decision"] = record;
                out["warning"] = json!(warning);
            }
        },
    }
    out["decisions"] = json!(node.decisions(&key).map_err(Internal)?);
    Ok(out)
}

/// Starts the resolver of `node`'s pending epochs: a pass now (start-up), then one each
/// time a driver leaves a signed epoch pending, and with backoff while any stays undecided.
/// Status sessions use `round_timeout` per round.
pub fn spawn_resolver(
    node: Arc<EcdsaNode>,
    runtime: Arc<Runtime>,
    round_timeout: Duration,
) -> JoinHandle<()> {
    let metrics: Arc<Metrics> = runtime.metrics().clone();
    let _ = node.metrics.set(metrics);
    node.update_gauge();
    tokio::spawn(async move {
        let mut backoff = Duration::from_millis(200);
        loop {
            if resolve_all(&node, &runtime, round_timeout).await {
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = node.recovery.notified() => {}
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
            } else {
                node.recovery.notified().await;
                backoff = Duration::from_millis(200);
            }
        }
    })
}
