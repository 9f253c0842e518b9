//! Threshold ECDSA (quorate-ecdsa) through real nodes: key generation, signing and refresh
//! as [`ProtocolDriver`](super::driver::ProtocolDriver)s that call the library's round
//! functions and never copy protocol logic.
//!
//! | protocol | params | participants | output |
//! |---|---|---|---|
//! | [`keygen::NAME`] (`ecdsa-keygen`) | `{"t": T, "n": N}` | the `N` holders | `key_id`, `public_key`, `epoch`, `t`, `holders` |
//! | [`sign::NAME`] (`ecdsa-sign`) | `{"digest": hex32, "t": T}` | at least `T` holders | `public_key`, `digest`, `signature`, `der`, `recovery_id`, `signers` |
//! | [`refresh::NAME`] (`ecdsa-refresh`) | `{"n": N}`, or `{"n": N, "restored": J}` after node `J` imported its share from the escrow ([`restore`]) | every holder | `key_id`, `public_key`, `epoch` (the new one), `t`, `holders` |
//!
//! * **Party indices.** A key's holders are the keygen's participants; party `k` is the
//!   `k`-th smallest holder node id ([`crate::roster::party_indices`]). The mapping is fixed
//!   by the key and recorded in its epoch certificate; signing maps its signers through it.
//! * **Keystore.** Keygen seals the share under (key id, epoch 0) with
//!   `begin_epoch`/`put_secret`, then every holder signs the epoch certificate
//!   ([`cert::EpochCertificate`]: key id, epoch, `t`, holders, public key, setup transcript,
//!   session id, one Ed25519 signature per holder with its roster key), which is stored by
//!   `commit_epoch` before the session is done. A keygen that fails after `begin_epoch`
//!   abandons the pending epoch, unless its certificate signature may be out: then
//!   [`recovery`] asks the other holders and commits or abandons. A refresh seals the library's `PendingRefresh` under epoch
//!   `e + 1` before its agreement message leaves, commits it with the library's epoch
//!   certificate (`PendingRefresh::commit`), seals the new share, and its `commit_epoch`
//!   retires epoch `e`, destroying its data key, in the same transaction.
//! * **Bans.** A library ban ([`quorate_ecdsa::EcdsaError::newly_banned`]) is written to the
//!   keystore's bans table with the failed check and the session id as evidence; a loaded
//!   share re-applies the stored bans, and the node's policy refuses sessions with a banned
//!   node, so the ban survives restarts.
//! * **Blame.** A library error that names parties becomes [`DriverError::Blame`] with the
//!   culprits' node ids; the runtime attaches their signed envelopes as evidence.

/// The refresh protocol's name ([`refresh::NAME`]). It lives here because a keygen
/// driver running a refresh binds it into its escrow labels, and `refresh` builds on
/// `keygen`: naming it in `refresh` would make the two modules import each other.
pub(crate) const REFRESH_PROTOCOL: &str = "ecdsa-refresh";

pub mod cert;
pub mod escrow;
#[cfg(feature = "test-faults")]
pub mod faults;
pub mod keygen;
pub mod limits;
pub mod recovery;
pub mod refresh;
pub mod restore;
pub mod sign;

#[cfg(test)]
mod escrow_tests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ed25519_dalek::{SigningKey, VerifyingKey};
use quorate_ecdsa::{EcdsaError, KeyShare, PartyId};
use serde_json::{json, Value};
use tracing::warn;

use super::driver::DriverError;
use crate::identity::NodeId;
use crate::keystore::{KeyId, Keystore, Kind};
use cert::EpochCertificate;

/// What the ECDSA protocols of one node share: the keystore, the node's identity key (it
/// signs epoch certificates), the roster keys (they verify them) and the loaded shares.
pub struct EcdsaNode {
    self_id: u16,
    keystore: Arc<Mutex<Keystore>>,
    identity: SigningKey,
    roster: BTreeMap<u16, VerifyingKey>,
    /// Loaded shares by (key id, epoch): clones share the library's pairwise OT state, so a
    /// ban through one session is seen by every later one (the library's rule: load a share
    /// once per process and clone it).
    shares: Mutex<HashMap<(String, u64), KeyShare>>,
    /// Keygen and refresh drivers alive: session id → (key id, new epoch) ([`recovery`]).
    running: Mutex<HashMap<[u8; 32], (String, u64)>>,
    /// Wakes the pending-epoch resolver ([`recovery::spawn_resolver`]).
    recovery: tokio::sync::Notify,
    /// The node's metrics, once the resolver runs (the pending-epochs gauge).
    metrics: OnceLock<Arc<crate::metrics::Metrics>>,
    /// The escrow new shares are backed up to ([`escrow`]), if configured.
    escrow: OnceLock<crate::escrow::Escrow>,
    /// The last keystore check ([`EcdsaNode::keystore_problems`]) and when it ran.
    health: Mutex<Option<(std::time::Instant, Vec<Value>)>>,
}

/// How long a keystore check answers `/health` before it runs again (a bound on the work an
/// unauthenticated caller can cause).
const HEALTH_CACHE: std::time::Duration = std::time::Duration::from_secs(1);

impl std::fmt::Debug for EcdsaNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EcdsaNode")
            .field("self_id", &self.self_id)
            .field("identity", &quorate_core::secret::REDACTED)
            .finish_non_exhaustive()
    }
}

/// Public facts about a stored key, from its active epoch's certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    /// The key id.
    pub key_id: String,
    /// The active epoch.
    pub epoch: u64,
    /// Threshold.
    pub t: u16,
    /// Holders' node ids, ascending (party `k` is the `k`-th).
    pub holders: Vec<u16>,
    /// Group public key, 33-byte compressed SEC1.
    pub public_key: [u8; 33],
}

impl KeyInfo {
    /// The JSON form served by the operator API (`GET /v1/keys/{key_id}`).
    pub fn to_json(&self) -> Value {
        json!({
            "key_id": self.key_id,
            "protocol": "ecdsa",
            "epoch": self.epoch,
            "t": self.t,
            "n": self.holders.len(),
            "holders": self.holders,
            "public_key": hex::encode(self.public_key),
        })
    }
}

pub(crate) fn failed(e: impl std::fmt::Display) -> DriverError {
    DriverError::Failed(e.to_string())
}

impl EcdsaNode {
    /// The shared state of node `self_id`: its keystore, its identity key and the roster's
    /// keys by node id.
    pub fn new(
        self_id: u16,
        keystore: Arc<Mutex<Keystore>>,
        identity: SigningKey,
        roster: BTreeMap<u16, VerifyingKey>,
    ) -> Arc<Self> {
        Arc::new(Self {
            self_id,
            keystore,
            identity,
            roster,
            shares: Mutex::new(HashMap::new()),
            running: Mutex::new(HashMap::new()),
            recovery: tokio::sync::Notify::new(),
            metrics: OnceLock::new(),
            escrow: OnceLock::new(),
            health: Mutex::new(None),
        })
    }

    /// Configures the escrow every new share is backed up to before its epoch commits
    /// ([`escrow`]); set once, before the node serves sessions (a second call is refused).
    pub fn set_escrow(&self, escrow: crate::escrow::Escrow) -> Result<(), String> {
        self.escrow
            .set(escrow)
            .map_err(|_| "the escrow is already configured".to_string())
    }

    /// The configured escrow.
    pub(crate) fn escrow(&self) -> Option<&crate::escrow::Escrow> {
        self.escrow.get()
    }

    /// The keystore, locked (a poisoned lock is recovered: every keystore operation is one
    /// transaction, so a panic elsewhere cannot leave it half-written).
    pub(crate) fn keystore(&self) -> MutexGuard<'_, Keystore> {
        match self.keystore.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Sealed secrets of the keystore that do not open (each as `{"key_id", "epoch",
    /// "kind", "error"}`), from a check at most [`HEALTH_CACHE`] old.
    pub fn keystore_problems(&self) -> Vec<Value> {
        let mut cached = match self.health.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some((at, v)) = cached.as_ref() {
            if at.elapsed() < HEALTH_CACHE {
                return v.clone();
            }
        }
        let problems = match self.keystore().check_secrets() {
            Ok(list) => list
                .into_iter()
                .map(|p| {
                    json!({
                        "key_id": p.key_id.as_str(),
                        "epoch": p.epoch,
                        "kind": p.kind,
                        "error": p.error,
                    })
                })
                .collect(),
            Err(e) => {
                vec![json!({ "key_id": null, "epoch": null, "kind": null, "error": e.to_string() })]
            }
        };
        if !problems.is_empty() {
            warn!(?problems, "keystore check: sealed secrets do not open");
        }
        *cached = Some((std::time::Instant::now(), problems.clone()));
        problems
    }

    /// The active epoch's certificate of `key_id`, if the key exists here.
    pub fn certificate(&self, key_id: &str) -> Result<Option<EpochCertificate>, String> {
        let key = KeyId::new(key_id).map_err(|e| e.to_string())?;
        let active = self
            .keystore()
            .active_epoch(&key)
            .map_err(|e| e.to_string())?;
        let Some(info) = active else {
            return Ok(None);
        };
        let bytes = info
            .certificate
            .ok_or_else(|| format!("key {key_id}: active epoch without a certificate"))?;
        EpochCertificate::from_bytes(&bytes).map(Some)
    }

    /// Public facts about `key_id` (from its active certificate).
    pub fn key_info(&self, key_id: &str) -> Result<Option<KeyInfo>, String> {
        Ok(self.certificate(key_id)?.map(|c| c.info()))
    }

    /// Every ECDSA key stored here.
    pub fn key_infos(&self) -> Result<Vec<KeyInfo>, String> {
        let ids = self.keystore().key_ids().map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(info) = self.key_info(id.as_str())? {
                out.push(info);
            }
        }
        Ok(out)
    }

    /// The share of `key_id` at `epoch`, loaded once per process (stored bans re-applied),
    /// and the epoch's certificate.
    pub(crate) fn load_share(
        &self,
        key_id: &str,
        epoch: u64,
    ) -> Result<(KeyShare, EpochCertificate), String> {
        let cert = self
            .certificate(key_id)?
            .ok_or_else(|| format!("no key {key_id} on node {}", self.self_id))?;
        if cert.epoch != epoch {
            return Err(format!(
                "key {key_id} is at epoch {} here, not {epoch}",
                cert.epoch
            ));
        }
        let cache_key = (key_id.to_string(), epoch);
        let mut cache = match self.shares.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some(s) = cache.get(&cache_key) {
            return Ok((s.clone(), cert));
        }
        let key = KeyId::new(key_id).map_err(|e| e.to_string())?;
        let (share, bans) = {
            let mut ks = self.keystore();
            let stored = ks
                .get_secret(&key, epoch, &Kind::KEY_SHARE)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| {
                    format!(
                        "key {key_id} epoch {epoch}: no share stored (a node restored from \
                         the escrow signs after `quorate ecdsa refresh --restored <its id>`)"
                    )
                })?;
            let share = KeyShare::from_bytes(stored.bytes.expose()).map_err(|e| e.to_string())?;
            let bans = ks.bans().list(&key).map_err(|e| e.to_string())?;
            (share, bans)
        };
        let me = cert.party_of(self.self_id)?;
        if share.id() != me || share.public_key_bytes() != cert.public_key {
            return Err(format!(
                "key {key_id}: the stored share does not match its certificate"
            ));
        }
        for b in bans {
            if let Ok(p) = cert.party_of(b.node.get()) {
                share.ban(p);
            }
        }
        cache.insert(cache_key, share.clone());
        Ok((share, cert))
    }

    /// Commits `epoch` of `key` with its certificate (the stored form), deleting in the same
    /// transaction the refresh's sealed `PendingRefresh` ([`keygen::KIND_PENDING_REFRESH`]):
    /// once the epoch is certified nothing needs it, and it must not outlive the commit.
    pub(crate) fn commit_epoch(
        &self,
        key: &KeyId,
        epoch: u64,
        certificate: &[u8],
    ) -> Result<crate::keystore::CommitOutcome, String> {
        let pending = Kind::new(keygen::KIND_PENDING_REFRESH).map_err(|e| e.to_string())?;
        self.keystore()
            .commit_epoch_dropping(key, epoch, certificate, &[&pending])
            .map_err(|e| e.to_string())
    }

    /// Drops every cached share of `key_id` (after a refresh commits).
    pub(crate) fn forget(&self, key_id: &str) {
        if let Ok(mut cache) = self.shares.lock() {
            cache.retain(|(k, _), _| k != key_id);
        }
    }

    /// After `commit_epoch(key_id, epoch)`: drops the cached shares of `key_id` and retires
    /// the escrow backups kept for its older epochs ([`crate::escrow::unlink_before`], the
    /// directory sync in the background), so that no old share can be rebuilt from this
    /// disk. A failure to delete is logged (the next start-up prunes them).
    pub(crate) fn epoch_committed(&self, key_id: &KeyId, epoch: u64) {
        self.forget(key_id.as_str());
        if let Some(esc) = self.escrow() {
            match crate::escrow::unlink_before(&esc.dir, key_id, epoch) {
                Ok(old) if !old.is_empty() => {
                    tracing::info!(key_id = %key_id, ?old, "retired the escrow backups of older epochs");
                    // The directory sync that makes the unlinks durable runs off the
                    // commit's critical path: a crash before it leaves the files, which
                    // the start-up prune deletes before the node serves again.
                    let (dir, key) = (esc.dir.clone(), key_id.clone());
                    std::thread::spawn(move || {
                        if let Err(e) = crate::escrow::sync_backups(&dir, &key) {
                            tracing::warn!(key_id = %key, error = %e, "could not sync the escrow backup directory after retiring old epochs (pruned again at the next start-up)");
                        }
                    });
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(key_id = %key_id, error = %e, "could not delete the escrow backups of older epochs (retried at the next start-up)")
                }
            }
        }
    }

    /// Stores the library's new bans (party indices of `holders`) in the keystore.
    pub(crate) fn store_bans(
        &self,
        key_id: &str,
        holders: &[u16],
        err: &EcdsaError,
        session_id: &[u8; 32],
    ) {
        let Ok(key) = KeyId::new(key_id) else {
            return;
        };
        let evidence = json!({
            "session_id": hex::encode(session_id),
            "check": err.check(),
            "error": err.to_string(),
        })
        .to_string();
        let reason = err.check().unwrap_or("ecdsa abort");
        let mut ks = self.keystore();
        for p in err.newly_banned() {
            let Some(node) = node_of(holders, *p).and_then(|n| NodeId::new(n).ok()) else {
                continue;
            };
            if let Err(e) = ks.bans().add(&key, node, reason, evidence.as_bytes()) {
                warn!(error = %e, node = node.get(), "could not store a ban");
            }
        }
    }
}

/// Party index of `node` among `holders` (ascending node ids; party 1 is the smallest).
pub(crate) fn party_of(holders: &[u16], node: u16) -> Result<PartyId, String> {
    let pos = holders
        .iter()
        .position(|h| *h == node)
        .ok_or_else(|| format!("node {node} does not hold this key"))?;
    u16::try_from(pos + 1)
        .ok()
        .and_then(|i| PartyId::new(i).ok())
        .ok_or_else(|| "too many holders".to_string())
}

/// Node id of party `p` among `holders`.
pub(crate) fn node_of(holders: &[u16], p: PartyId) -> Option<u16> {
    holders.get(p.position()).copied()
}

/// A library error as a driver error: culprits (party indices of `holders`) become node
/// ids; an error nobody can be blamed for is [`DriverError::Failed`].
pub(crate) fn driver_error(holders: &[u16], e: &EcdsaError) -> DriverError {
    let culprits: Vec<u16> = e
        .culprits()
        .iter()
        .filter_map(|p| node_of(holders, *p))
        .collect();
    if culprits.is_empty() {
        DriverError::Failed(e.to_string())
    } else {
        DriverError::Blame {
            culprits,
            reason: e.to_string(),
        }
    }
}

/// Reads a required unsigned integer parameter.
pub(crate) fn param_u16(params: &Value, name: &str) -> Result<u16, String> {
    params
        .get(name)
        .and_then(Value::as_u64)
        .and_then(|v| u16::try_from(v).ok())
        .ok_or_else(|| format!("parameter {name:?} must be an integer in 0..=65535"))
}

impl crate::key_directory::KeyDirectory for EcdsaNode {
    fn key(&self, key_id: &str) -> Result<Option<Value>, String> {
        if KeyId::new(key_id).is_err() {
            return Ok(None);
        }
        Ok(self.key_info(key_id)?.map(|k| k.to_json()))
    }

    fn keys(&self) -> Result<Vec<Value>, String> {
        Ok(self.key_infos()?.iter().map(KeyInfo::to_json).collect())
    }

    fn problems(&self) -> Vec<Value> {
        self.keystore_problems()
    }
}
