//! The hot party of hot/cold threshold BLS (quorate-bls) as a node role.
//!
//! A client registers its key with `n` hot nodes (`POST /v1/bls/keys`); each node decodes
//! only its own part of the record (`PartyRecord`: `vk`, `com_T`, `vs_i`, and the digest
//! of the exact bytes), runs only the checks that protect its own share and accountability
//! (`HotParty::check_registration`: its KZG opening and the client's BLS authorisation of
//! the record digest in one multi-pairing, `hx_i·g2 = vs_i + K_i`; quorate-bls notes
//! §ClientRegister, "Who checks what at registration"), refuses a bad payload naming the
//! client and the record digest, and seals its state in its own
//! encrypted keystore (`bls-hot.db` in the node directory, its KEK derived by HKDF from
//! `keystore.db`'s: one Argon2id per start, see [`Keystore::open_derived`]). Then, through the operator API ([`routes`]):
//!
//! | request | what the node does |
//! |---|---|
//! | `GET /v1/bls/keys/{key_id}` | public facts: index, epoch, holders, record |
//! | `POST …/audit` | Π_EKS for the auditor's `block_id` (`HotParty::prove`) |
//! | `POST …/sign` | the partial `σ_i = hx_i·H(m) − σ_i^cold`, only for an authorised request |
//! | `POST …/refresh` | every KZG check (`HotParty::refresh`), seals the pending epoch, answers a signed confirmation |
//! | `POST …/commit` | checks `t` signed confirmations, commits the refresh (pending → active) |
//!
//! * **Signing policy.** A hot node gives its partial only for a request signed by the
//!   client's Ed25519 authorisation key, registered with the key:
//!   `Ed25519(auth, "quorate/bls/hot-sign/v1" ‖ u16 len ‖ key id ‖ u32 len ‖ message ‖
//!   cold partial)`. The cold partial is checked against the cold partner's `K_i`; a bad one
//!   is refused naming the cold party. A replayed request yields the same message's partial
//!   again, nothing more.
//! * **Refresh.** The client deals it; every hot node runs all of the library's checks
//!   (`HotParty::refresh`, and `GroupPublic::refreshed` as its own record maintainer,
//!   passed to `PendingRefresh::accept_record`: client authorisation, `δ(0) = 0`, `deg δ ≤ t−1`, every `Δvs_j`, its own `δ_i`), seals
//!   the refresh under epoch `e + 1` (`begin_epoch`, `put_secret`) *before* answering, and
//!   answers a confirmation signed with its roster identity key. The client relays `t`
//!   confirmations; each node checks every signature against the roster and the holder list,
//!   feeds them to `PendingRefresh::add_confirmation`, commits in the library, seals the new
//!   state and calls `commit_epoch`, which destroys epoch `e`'s data key in the same
//!   transaction. A node killed anywhere in between restarts with epoch `e` active and `e + 1`
//!   pending; a repeated `refresh` or `commit` finishes it (both are idempotent).
//! * **Cold keys** never reach a hot node; refresh never touches them.
//! * **The record's global checks** (PoP of `vk`, SCRAPE check of all `vs_j`) are not the
//!   node's: `quorate bls audit` runs `GroupPublic::validate` before it asks any node, and
//!   the combiner checks every partial against `vs_i` and the signature under `vk`. The
//!   node decodes the whole record only for a refresh, and keeps its checked hot party in
//!   memory per record, so signing and audits neither decode the record nor re-run the
//!   checks per request.

pub mod routes;
pub mod state;

#[cfg(feature = "test-faults")]
pub mod faults;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use ed25519_dalek::{Signature as EdSignature, Signer as _, SigningKey, VerifyingKey};
use quorate_bls::kzg::ceremony::Transcript;
use quorate_bls::proofs::ProofContext;
use quorate_bls::{
    BlsError, ColdPartial, Crs, HotParty, HotRegistration, PadCommitment, PartyRecord,
    RefreshConfirmation, RefreshPublic, RefreshShare, Signature,
};
use quorate_core::error::Culprits as _;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use rand_core::OsRng;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::identity::Passphrase;
use crate::keystore::{DerivedOpen, KeyId, Keystore, KeystoreError, Kind};
use state::{HotState, PendingMaterial, MAX_HOLDERS};

/// The file of the hot role's keystore in the node directory.
pub const STORE_FILE: &str = "bls-hot.db";
/// The purpose its KEK is derived for from the node keystore's (bound by the HKDF info).
pub const STORE_PURPOSE: &str = "bls-hot";
/// Longest client key id (the keystore key id adds a 4-byte prefix).
pub const MAX_KEY_ID: usize = 100;
/// Domain of the client's signature on a signing request.
pub const SIGN_REQUEST_DOMAIN: &[u8] = b"quorate/bls/hot-sign/v1";
/// Domain of a hot node's signature on its refresh confirmation.
pub const CONFIRMATION_DOMAIN: &[u8] = b"quorate/bls/refresh-confirmation/v1";
/// Prefix of the audit session id: Π_EKS proofs are bound to `prefix ‖ key id` and the
/// auditor's `block_id`.
pub const AUDIT_SESSION_PREFIX: &[u8] = b"quorate/bls/audit/v1/";

fn kind_state() -> Kind {
    Kind::new("bls-hot-state").expect("valid kind")
}
fn kind_pending() -> Kind {
    Kind::new("bls-refresh").expect("valid kind")
}
fn kind_crs() -> Kind {
    Kind::new("bls-crs").expect("valid kind")
}

/// The message a client signs to authorise a hot partial for `message`.
pub fn sign_request_message(key_id: &str, message: &[u8], cold_partial: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(SIGN_REQUEST_DOMAIN.len() + 8 + key_id.len() + message.len());
    m.extend_from_slice(SIGN_REQUEST_DOMAIN);
    m.extend_from_slice(&(key_id.len() as u16).to_be_bytes());
    m.extend_from_slice(key_id.as_bytes());
    m.extend_from_slice(&(message.len() as u32).to_be_bytes());
    m.extend_from_slice(message);
    m.extend_from_slice(cold_partial);
    m
}

/// The message a hot node signs with its identity key over its refresh confirmation.
pub fn confirmation_message(key_id: &str, node: u16, confirmation: &[u8]) -> Vec<u8> {
    let mut m = Vec::with_capacity(CONFIRMATION_DOMAIN.len() + 4 + key_id.len() + 80);
    m.extend_from_slice(CONFIRMATION_DOMAIN);
    m.extend_from_slice(&(key_id.len() as u16).to_be_bytes());
    m.extend_from_slice(key_id.as_bytes());
    m.extend_from_slice(&node.to_be_bytes());
    m.extend_from_slice(confirmation);
    m
}

/// The Π_EKS context of an audit of `key_id` for `block_id`.
pub fn audit_context(key_id: &str, block_id: u64) -> ProofContext {
    let mut session = AUDIT_SESSION_PREFIX.to_vec();
    session.extend_from_slice(key_id.as_bytes());
    ProofContext {
        session: SessionId::new(session),
        block_id,
    }
}

/// Who is to blame for a refused request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Culprit {
    /// `hot`, `cold` or `client`.
    pub role: &'static str,
    /// Party index (for hot and cold parties).
    pub index: Option<u16>,
    /// Node id (for hot parties).
    pub node: Option<u16>,
}

/// Why a request to the hot role failed; each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BlsHotError {
    /// Malformed request (400).
    #[error("{0}")]
    BadRequest(String),
    /// A signing request not authorised by the client's key (403).
    #[error("{0}")]
    Unauthorized(String),
    /// No such key here (404).
    #[error("no BLS key {0:?} on this node")]
    NotFound(String),
    /// The request conflicts with the key's state (409).
    #[error("{0}")]
    Conflict(String),
    /// A check failed (422), naming the culprit when there is one.
    #[error("{reason}")]
    Rejected {
        /// The failed check.
        reason: String,
        /// Who is at fault.
        culprit: Option<Culprit>,
    },
    /// The request names a CRS by id that this node does not hold (412): send the
    /// transcript (`crs`) instead.
    #[error("this node does not hold the CRS {0}; send its transcript")]
    UnknownCrs(String),
    /// Keystore or other internal failure (500).
    #[error("{0}")]
    Internal(String),
}

impl From<KeystoreError> for BlsHotError {
    fn from(e: KeystoreError) -> Self {
        BlsHotError::Internal(format!("keystore: {e}"))
    }
}

fn bad(e: impl std::fmt::Display) -> BlsHotError {
    BlsHotError::BadRequest(e.to_string())
}

fn hex_field(what: &str, s: &str) -> Result<Vec<u8>, BlsHotError> {
    hex::decode(s).map_err(|_| BlsHotError::BadRequest(format!("{what}: not hex")))
}

/// `POST /v1/bls/keys`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterRequest {
    /// The client's key id.
    pub key_id: String,
    /// Node ids of hot parties `1..=n`.
    pub holders: Vec<u16>,
    /// The client's Ed25519 authorisation key, hex.
    pub auth_key: String,
    /// The CRS ceremony transcript, hex: sent only to a node that does not hold the CRS yet
    /// (give exactly one of `crs` and `crs_id`).
    #[serde(default)]
    pub crs: Option<String>,
    /// The CRS id, hex: names a CRS this node already holds; a node that does not hold it
    /// refuses with [`BlsHotError::UnknownCrs`] and the client sends the transcript.
    #[serde(default)]
    pub crs_id: Option<String>,
    /// The public record (`GroupPublic`), hex. The node decodes only its own part of it
    /// (`PartyRecord`) and keeps the bytes.
    pub public: String,
    /// The client's authorisation of the record (`Registration::authorization`, a BLS
    /// signature on the record digest), hex.
    pub authorization: String,
    /// This node's private payload `(i, hx_i, π_i)`, hex.
    pub payload: String,
    /// The cold partner's `K_i`, hex.
    pub pad: String,
}

/// `POST /v1/bls/keys/{key_id}/sign`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignRequest {
    /// The message, hex.
    pub message: String,
    /// The cold partner's partial, hex.
    pub cold_partial: String,
    /// The client's Ed25519 signature over [`sign_request_message`], hex.
    pub authorization: String,
}

/// `POST /v1/bls/keys/{key_id}/refresh`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    /// The refresh's public part, hex.
    pub refresh: String,
    /// This node's share `δ_i`, hex.
    pub share: String,
}

/// One signed confirmation, as answered by `refresh` and relayed to `commit`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedConfirmation {
    /// The confirming node.
    pub node: u16,
    /// `RefreshConfirmation`, hex.
    pub confirmation: String,
    /// Ed25519 signature of the node over [`confirmation_message`], hex.
    pub signature: String,
}

/// `POST /v1/bls/keys/{key_id}/commit`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommitRequest {
    /// The epoch to commit.
    pub epoch: u64,
    /// At least `t` signed confirmations of the same refresh.
    pub confirmations: Vec<SignedConfirmation>,
}

/// The hot role of one node.
pub struct BlsHot {
    self_id: u16,
    keystore: Mutex<Keystore>,
    identity: SigningKey,
    roster: BTreeMap<u16, VerifyingKey>,
    /// Verified CRSs by id (a transcript is checked once per process).
    crs: Mutex<HashMap<[u8; 32], Arc<Crs>>>,
    /// Checked hot parties by key id, at their current record ([`BlsHot::party`]).
    parties: Mutex<HashMap<String, Arc<HotParty>>>,
}

impl std::fmt::Debug for BlsHot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlsHot")
            .field("self_id", &self.self_id)
            .field("identity", &quorate_core::secret::REDACTED)
            .finish_non_exhaustive()
    }
}

/// This thread's CPU time since [`ThreadCpu::start`] (user + system): zero where the
/// platform has no thread clock.
struct ThreadCpu(Option<cpu_time::ThreadTime>);

impl ThreadCpu {
    fn start() -> Self {
        ThreadCpu(cpu_time::ThreadTime::try_now().ok())
    }

    fn elapsed_us(&self) -> u64 {
        self.0
            .as_ref()
            .and_then(|t| t.try_elapsed().ok())
            .map_or(0, |d| d.as_micros() as u64)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// A library error as a refusal: blame of party `i` names hot party `i` (node
/// `holders[i−1]`) unless the caller says the cold partner is at fault.
fn rejected(e: &BlsError, holders: &[u16], role: &'static str) -> BlsHotError {
    let culprit = e.culprits().first().map(|p| Culprit {
        role,
        index: Some(p.get()),
        node: (role == "hot")
            .then(|| holders.get(p.position()).copied())
            .flatten(),
    });
    BlsHotError::Rejected {
        reason: e.to_string(),
        culprit,
    }
}

impl BlsHot {
    /// Opens (or, on first use, creates) the hot role's keystore `dir/bls-hot.db`, its KEK
    /// derived from the node keystore's (`keystore`, already open) by HKDF for the purpose
    /// [`STORE_PURPOSE`]: no Argon2id of its own. A `bls-hot.db` made before derived keys
    /// (its own Argon2id KEK from `passphrase`) is migrated once
    /// ([`Keystore::open_derived`]); the returned [`DerivedOpen`] says which happened.
    pub fn open(
        dir: &Path,
        keystore: &Keystore,
        passphrase: &Passphrase,
        roster: BTreeMap<u16, VerifyingKey>,
    ) -> Result<(Arc<Self>, DerivedOpen), KeystoreError> {
        let identity = keystore.identity()?;
        let (hot, how) =
            Keystore::open_derived(&dir.join(STORE_FILE), keystore, STORE_PURPOSE, passphrase)?;
        Ok((
            Arc::new(Self {
                self_id: identity.id().get(),
                keystore: Mutex::new(hot),
                identity: identity.signing_key().clone(),
                roster,
                crs: Mutex::new(HashMap::new()),
                parties: Mutex::new(HashMap::new()),
            }),
            how,
        ))
    }

    fn store_key(key_id: &str) -> Result<KeyId, BlsHotError> {
        if key_id.is_empty() || key_id.len() > MAX_KEY_ID {
            return Err(bad("key id must be 1..=100 characters of [A-Za-z0-9._:-]"));
        }
        KeyId::new(&format!("key.{key_id}")).map_err(bad)
    }

    fn crs_key(id: &[u8; 32]) -> KeyId {
        KeyId::new(&format!("crs.{}", hex::encode(id))).expect("valid key id")
    }

    /// The CRS with `id`, verified once per process from its stored transcript.
    fn crs(&self, id: &[u8; 32]) -> Result<Arc<Crs>, BlsHotError> {
        self.held_crs(id)?
            .ok_or_else(|| BlsHotError::Internal("the key's CRS is not stored".into()))
    }

    /// The CRS with `id` if this node holds it (in memory, or stored by an earlier
    /// registration and verified once per process).
    fn held_crs(&self, id: &[u8; 32]) -> Result<Option<Arc<Crs>>, BlsHotError> {
        if let Some(c) = lock(&self.crs).get(id) {
            return Ok(Some(c.clone()));
        }
        let stored = lock(&self.keystore).get_secret(&Self::crs_key(id), 0, &kind_crs());
        match stored {
            Ok(Some(t)) => self.verify_crs(t.bytes.expose()).map(Some),
            Ok(None) | Err(KeystoreError::NoSuchEpoch { .. }) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn verify_crs(&self, bytes: &[u8]) -> Result<Arc<Crs>, BlsHotError> {
        let transcript = Transcript::from_bytes(bytes).map_err(bad)?;
        if let Some(c) = lock(&self.crs).get(&transcript.id()) {
            return Ok(c.clone());
        }
        let crs = Arc::new(Crs::from_transcript(&transcript, &mut OsRng).map_err(|e| {
            BlsHotError::Rejected {
                reason: format!("CRS transcript: {e}"),
                culprit: None,
            }
        })?);
        lock(&self.crs).insert(crs.id(), crs.clone());
        Ok(crs)
    }

    /// Stores a CRS transcript once (epoch 0 of `crs.<id>`, one transaction).
    fn store_crs(&self, id: &[u8; 32], transcript: &[u8]) -> Result<(), BlsHotError> {
        let key = Self::crs_key(id);
        let mut ks = lock(&self.keystore);
        if ks.active_epoch(&key)?.is_some() {
            return Ok(());
        }
        if ks.epochs(&key)?.is_empty() {
            ks.create_committed(&key, 0, 1, &[(&kind_crs(), transcript)], b"bls crs")?;
            return Ok(());
        }
        // A pending epoch left by a crash of an older version's three-step write.
        ks.replace_secret(&key, 0, 1, &kind_crs(), transcript)?;
        ks.commit_epoch(&key, 0, b"bls crs")?;
        Ok(())
    }

    /// The state of `key_id` at its active epoch, and the pending epoch if any.
    fn load(&self, key_id: &str) -> Result<(u64, HotState, Option<u64>), BlsHotError> {
        let key = Self::store_key(key_id)?;
        let ks = lock(&self.keystore);
        let active = ks
            .active_epoch(&key)?
            .ok_or_else(|| BlsHotError::NotFound(key_id.to_string()))?;
        let pending = ks
            .epochs(&key)?
            .into_iter()
            .filter(|e| e.status == crate::keystore::EpochStatus::Pending)
            .map(|e| e.epoch)
            .max();
        let stored = ks
            .get_secret(&key, active.epoch, &kind_state())?
            .ok_or_else(|| BlsHotError::Internal("active epoch without a state".into()))?;
        let state = HotState::from_bytes(stored.bytes.expose())
            .map_err(|e| BlsHotError::Internal(format!("sealed state: {e}")))?;
        Ok((active.epoch, state, pending))
    }

    /// Rebuilds the library's hot party from a sealed state: the whole record decoded and
    /// the party's own checks run again (`HotParty::restore`), so a corrupted state is
    /// never used.
    fn fresh_party(&self, state: &HotState) -> Result<(HotParty, Arc<Crs>), BlsHotError> {
        let crs = self.crs(&state.crs_id)?;
        let public = state
            .public()
            .map_err(|e| BlsHotError::Internal(format!("sealed record: {e}")))?;
        let party = HotParty::restore(
            &crs,
            state.index,
            &public,
            &state.payload,
            &state.pad,
            &mut OsRng,
        )
        .map_err(|e| BlsHotError::Internal(format!("sealed state fails its checks: {e}")))?;
        Ok((party, crs))
    }

    /// The checked hot party of `key_id` at `state`'s record: kept in memory once rebuilt
    /// ([`BlsHot::fresh_party`]), so signing and audits do not decode the record and re-run
    /// the checks on every request. An entry for another record (an older epoch) is
    /// replaced, which drops and wipes its hot share.
    fn party(
        &self,
        key_id: &str,
        state: &HotState,
    ) -> Result<(Arc<HotParty>, Arc<Crs>), BlsHotError> {
        let cached = lock(&self.parties).get(key_id).cloned();
        if let Some(p) = cached {
            if p.public().digest() == state.view.digest() && p.index() == state.index {
                return Ok((p, self.crs(&state.crs_id)?));
            }
        }
        let (party, crs) = self.fresh_party(state)?;
        let party = Arc::new(party);
        lock(&self.parties).insert(key_id.to_string(), party.clone());
        Ok((party, crs))
    }

    fn info(&self, key_id: &str, epoch: u64, state: &HotState, pending: Option<u64>) -> Value {
        let p = state.view.params();
        json!({
            "key_id": key_id,
            "protocol": "bls-hot",
            "node": self.self_id,
            "index": state.index.get(),
            "epoch": epoch,
            "pending_epoch": pending,
            "t": p.t(),
            "n": p.n(),
            "holders": state.holders,
            "public_key": hex::encode(state.view.public_key().to_bytes()),
            "record": hex::encode(&state.record),
        })
    }

    /// `GET /v1/bls/keys/{key_id}`.
    pub fn key(&self, key_id: &str) -> Result<Value, BlsHotError> {
        let (epoch, state, pending) = self.load(key_id)?;
        Ok(self.info(key_id, epoch, &state, pending))
    }

    /// `POST /v1/bls/keys`: HotRegister (idempotent for the same record and payload).
    ///
    /// Logs `bls key registered` with each phase's wall time (`decode_us`, `crs_us`,
    /// `check_us`, `store_us`) and this thread's CPU time in it (`decode_cpu_us`,
    /// `check_cpu_us`, `store_cpu_us`): the difference is time spent waiting, for the disk
    /// (the keystore's fsync) or for a core taken by other processes.
    pub fn register(&self, req: &RegisterRequest) -> Result<Value, BlsHotError> {
        let started = Instant::now();
        let cpu = ThreadCpu::start();
        let key = Self::store_key(&req.key_id)?;
        let holders = &req.holders;
        if holders.is_empty() || holders.len() > MAX_HOLDERS {
            return Err(bad("holders: 1..=1024 node ids"));
        }
        for (k, h) in holders.iter().enumerate() {
            if !self.roster.contains_key(h) {
                return Err(bad(format!("holder {h} is not in the roster")));
            }
            if holders[..k].contains(h) {
                return Err(bad(format!("holder {h} is listed twice")));
            }
        }
        let pos = holders
            .iter()
            .position(|h| *h == self.self_id)
            .ok_or_else(|| bad("this node is not among the holders"))?;
        let index = PartyId::new(u16::try_from(pos + 1).map_err(bad)?).map_err(bad)?;
        let auth: [u8; 32] = hex_field("auth_key", &req.auth_key)?
            .try_into()
            .map_err(|_| bad("auth_key: 32 bytes"))?;
        VerifyingKey::from_bytes(&auth).map_err(|_| bad("auth_key: not an Ed25519 key"))?;
        // Only this party's part of the record is decoded (vk, com_T, vs_i); the other
        // vs_j and the PoP are hashed into the digest, and their consistency is checked by
        // the record's users (quorate-bls notes §ClientRegister, "Who checks what").
        let record = hex_field("public", &req.public)?;
        let view = PartyRecord::from_bytes(&record, index).map_err(bad)?;
        if usize::from(view.params().n()) != holders.len() {
            return Err(bad("the record's n differs from the number of holders"));
        }
        if view.epoch() != 0 {
            return Err(bad("a registration record is at epoch 0"));
        }
        let authorization =
            Signature::from_bytes(&hex_field("authorization", &req.authorization)?).map_err(bad)?;
        let payload = HotRegistration::from_bytes(&zeroize::Zeroizing::new(hex_field(
            "payload",
            &req.payload,
        )?))
        .map_err(bad)?;
        let pad = PadCommitment::from_bytes(&hex_field("pad", &req.pad)?).map_err(bad)?;
        let decoded = started.elapsed();
        let decoded_cpu = cpu.elapsed_us();
        let (crs, transcript) = match (&req.crs, &req.crs_id) {
            (Some(t), None) => {
                let transcript = hex_field("crs", t)?;
                (self.verify_crs(&transcript)?, Some(transcript))
            }
            (None, Some(id)) => {
                let id: [u8; 32] = hex_field("crs_id", id)?
                    .try_into()
                    .map_err(|_| bad("crs_id: 32 bytes"))?;
                let crs = self
                    .held_crs(&id)?
                    .ok_or_else(|| BlsHotError::UnknownCrs(hex::encode(id)))?;
                (crs, None)
            }
            _ => return Err(bad("give exactly one of crs and crs_id")),
        };
        let crs_done = started.elapsed();
        let crs_cpu = cpu.elapsed_us();
        if crs.id() != view.crs_id() {
            return Err(bad("the record was made under another CRS"));
        }
        if let Some(answer) = self.registered(&req.key_id, &view.digest(), index)? {
            return Ok(answer);
        }
        HotParty::check_registration(&crs, &view, &authorization, &payload, &pad, &mut OsRng)
            .map_err(|e| BlsHotError::Rejected {
                reason: format!(
                    "key {:?}, record {}: {e}",
                    req.key_id,
                    hex::encode(view.digest())
                ),
                culprit: Some(Culprit {
                    role: "client",
                    index: None,
                    node: None,
                }),
            })?;
        let checked = started.elapsed();
        let checked_cpu = cpu.elapsed_us();
        if let Some(transcript) = &transcript {
            self.store_crs(&crs.id(), transcript)?;
        }
        let state = HotState {
            index,
            holders: holders.clone(),
            auth_key: auth,
            crs_id: crs.id(),
            pad,
            record,
            view,
            payload,
        };
        {
            let cert = json!({ "registered": hex::encode(state.view.digest()) }).to_string();
            let sealed = state.to_bytes();
            let mut ks = lock(&self.keystore);
            if ks.epochs(&key)?.is_empty() {
                // The usual case: one transaction, one fsync.
                match ks.create_committed(
                    &key,
                    0,
                    1,
                    &[(&kind_state(), sealed.as_slice())],
                    cert.as_bytes(),
                ) {
                    Ok(()) => {}
                    Err(KeystoreError::EpochExists { .. }) => {
                        // A concurrent request for the same key won the race.
                        drop(ks);
                        return self
                            .registered(&req.key_id, &state.view.digest(), index)?
                            .ok_or_else(|| BlsHotError::Internal("registration raced".into()));
                    }
                    Err(e) => return Err(e.into()),
                }
            } else {
                // A pending epoch 0 left by a crash of an older version's three-step write.
                ks.replace_secret(&key, 0, 1, &kind_state(), &sealed)?;
                ks.commit_epoch(&key, 0, cert.as_bytes())?;
            }
        }
        let stored = started.elapsed();
        let stored_cpu = cpu.elapsed_us();
        tracing::info!(
            key_id = %req.key_id,
            index = index.get(),
            decode_us = decoded.as_micros() as u64,
            crs_us = (crs_done - decoded).as_micros() as u64,
            check_us = (checked - crs_done).as_micros() as u64,
            store_us = (stored - checked).as_micros() as u64,
            decode_cpu_us = decoded_cpu,
            check_cpu_us = checked_cpu.saturating_sub(crs_cpu),
            store_cpu_us = stored_cpu.saturating_sub(checked_cpu),
            "bls key registered"
        );
        Ok(self.info(&req.key_id, 0, &state, None))
    }

    /// The answer to a repeated registration: `Some` (the key's facts) if `key_id` is
    /// already registered here with the record of digest `digest` as party `index`, `None` if it is not
    /// registered, a conflict if it is registered with another record.
    fn registered(
        &self,
        key_id: &str,
        digest: &[u8; 32],
        index: PartyId,
    ) -> Result<Option<Value>, BlsHotError> {
        match self.load(key_id) {
            Ok((epoch, existing, pending)) => {
                if existing.view.digest() == *digest && existing.index == index {
                    return Ok(Some(self.info(key_id, epoch, &existing, pending)));
                }
                Err(BlsHotError::Conflict(format!(
                    "key {key_id:?} is already registered here with another record"
                )))
            }
            Err(BlsHotError::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// `POST /v1/bls/keys/{key_id}/audit`: Π_EKS for `block_id`.
    pub fn audit(&self, key_id: &str, block_id: u64) -> Result<Value, BlsHotError> {
        let (epoch, state, _) = self.load(key_id)?;
        let (party, crs) = self.party(key_id, &state)?;
        let ctx = audit_context(key_id, block_id);
        #[cfg(feature = "test-faults")]
        let ctx = faults::audit_context(ctx);
        let proof = party.prove(&crs, &ctx, &mut OsRng);
        Ok(json!({
            "key_id": key_id,
            "node": self.self_id,
            "index": state.index.get(),
            "epoch": epoch,
            "block_id": block_id,
            "proof": hex::encode(proof.to_bytes()),
        }))
    }

    /// `POST /v1/bls/keys/{key_id}/sign`: the partial for an authorised request.
    pub fn sign(&self, key_id: &str, req: &SignRequest) -> Result<Value, BlsHotError> {
        let (epoch, state, _) = self.load(key_id)?;
        let message = hex_field("message", &req.message)?;
        let cold_bytes = hex_field("cold_partial", &req.cold_partial)?;
        let sig: [u8; 64] = hex_field("authorization", &req.authorization)?
            .try_into()
            .map_err(|_| bad("authorization: 64 bytes"))?;
        let auth = VerifyingKey::from_bytes(&state.auth_key)
            .map_err(|_| BlsHotError::Internal("stored auth key".into()))?;
        auth.verify_strict(
            &sign_request_message(key_id, &message, &cold_bytes),
            &EdSignature::from_bytes(&sig),
        )
        .map_err(|_| {
            BlsHotError::Unauthorized(
                "the request is not signed by the client's authorisation key".into(),
            )
        })?;
        let cold = ColdPartial::from_bytes(&cold_bytes).map_err(bad)?;
        if cold.index() != state.index {
            return Err(bad(format!(
                "the cold partial is from party {}, this node is party {}",
                cold.index(),
                state.index
            )));
        }
        let (party, _) = self.party(key_id, &state)?;
        let partial = party
            .partial_sign(&message, &cold)
            .map_err(|e| rejected(&e, &state.holders, "cold"))?;
        #[cfg(feature = "test-faults")]
        let partial = faults::partial(partial);
        Ok(json!({
            "key_id": key_id,
            "node": self.self_id,
            "index": state.index.get(),
            "epoch": epoch,
            "partial": hex::encode(partial.to_bytes()),
        }))
    }

    fn signed_confirmation(&self, key_id: &str, c: &RefreshConfirmation, epoch: u64) -> Value {
        let bytes = c.to_bytes();
        let sig = self
            .identity
            .sign(&confirmation_message(key_id, self.self_id, &bytes));
        json!({
            "key_id": key_id,
            "node": self.self_id,
            "epoch": epoch,
            "confirmation": hex::encode(bytes),
            "signature": hex::encode(sig.to_bytes()),
        })
    }

    /// `POST /v1/bls/keys/{key_id}/refresh`: checks the refresh, seals it under the next
    /// epoch, answers this node's signed confirmation. Repeating the same refresh answers
    /// the same confirmation.
    pub fn refresh(&self, key_id: &str, req: &RefreshRequest) -> Result<Value, BlsHotError> {
        let key = Self::store_key(key_id)?;
        let (epoch, state, pending) = self.load(key_id)?;
        let material = PendingMaterial {
            public: RefreshPublic::from_bytes(&hex_field("refresh", &req.refresh)?).map_err(bad)?,
            share: RefreshShare::from_bytes(&zeroize::Zeroizing::new(hex_field(
                "share", &req.share,
            )?))
            .map_err(bad)?,
        };
        let next = material.public.epoch();
        if next <= epoch {
            return Err(BlsHotError::Conflict(format!(
                "the key is at epoch {epoch} here; this refresh leads to epoch {next}"
            )));
        }
        if let Some(p) = pending {
            let stored = self.pending_material(&key, p)?;
            if p != next || stored.public.refresh_id() != material.public.refresh_id() {
                return Err(BlsHotError::Conflict(format!(
                    "another refresh to epoch {p} is pending here; finish it first"
                )));
            }
        }
        let (party, crs) = self.party(key_id, &state)?;
        let client_fault = |e: BlsError| BlsHotError::Rejected {
            reason: e.to_string(),
            culprit: Some(Culprit {
                role: "client",
                index: None,
                node: None,
            }),
        };
        let mut checked = party
            .refresh(&crs, &material.public, &material.share, &mut OsRng)
            .map_err(client_fault)?;
        // This node is its own record maintainer: every KZG check of the refresh,
        // including every Δvs_j against C_δ, before it confirms anything.
        let record = party
            .public()
            .refreshed(&crs, &material.public, &mut OsRng)
            .map_err(client_fault)?;
        checked.accept_record(&record).map_err(client_fault)?;
        if pending.is_none() {
            let mut ks = lock(&self.keystore);
            ks.begin_epoch(&key, next)?;
            ks.put_secret(&key, next, 1, &kind_pending(), &material.to_bytes())?;
        }
        Ok(self.signed_confirmation(key_id, &checked.confirmation(), next))
    }

    fn pending_material(&self, key: &KeyId, epoch: u64) -> Result<PendingMaterial, BlsHotError> {
        let stored = lock(&self.keystore)
            .get_secret(key, epoch, &kind_pending())?
            .ok_or_else(|| BlsHotError::Internal("pending epoch without its refresh".into()))?;
        PendingMaterial::from_bytes(stored.bytes.expose())
            .map_err(|e| BlsHotError::Internal(format!("sealed refresh: {e}")))
    }

    /// `POST /v1/bls/keys/{key_id}/commit`: with `t` signed confirmations of the pending
    /// refresh, commits it. Committing an epoch that is already active is a no-op.
    pub fn commit(&self, key_id: &str, req: &CommitRequest) -> Result<Value, BlsHotError> {
        let key = Self::store_key(key_id)?;
        let (epoch, state, pending) = self.load(key_id)?;
        if req.epoch == epoch {
            return Ok(self.info(key_id, epoch, &state, pending));
        }
        if pending != Some(req.epoch) {
            return Err(BlsHotError::Conflict(format!(
                "no refresh to epoch {} is pending here (active epoch {epoch})",
                req.epoch
            )));
        }
        let material = self.pending_material(&key, req.epoch)?;
        let (mut party, crs) = self.fresh_party(&state)?;
        let mut checked = party
            .refresh(&crs, &material.public, &material.share, &mut OsRng)
            .map_err(|e| BlsHotError::Internal(format!("sealed refresh fails its checks: {e}")))?;
        let record = party
            .public()
            .refreshed(&crs, &material.public, &mut OsRng)
            .map_err(|e| BlsHotError::Internal(format!("sealed refresh fails its checks: {e}")))?;
        checked
            .accept_record(&record)
            .map_err(|e| BlsHotError::Internal(e.to_string()))?;
        let mut evidence = Vec::new();
        for c in &req.confirmations {
            let Some(pos) = state.holders.iter().position(|h| *h == c.node) else {
                return Err(bad(format!("node {} does not hold this key", c.node)));
            };
            let blame = |reason: String| BlsHotError::Rejected {
                reason,
                culprit: Some(Culprit {
                    role: "hot",
                    index: u16::try_from(pos + 1).ok(),
                    node: Some(c.node),
                }),
            };
            let bytes = hex_field("confirmation", &c.confirmation)?;
            let sig: [u8; 64] = hex_field("signature", &c.signature)?
                .try_into()
                .map_err(|_| bad("signature: 64 bytes"))?;
            let key = self
                .roster
                .get(&c.node)
                .ok_or_else(|| bad(format!("node {} is not in the roster", c.node)))?;
            if key
                .verify_strict(
                    &confirmation_message(key_id, c.node, &bytes),
                    &EdSignature::from_bytes(&sig),
                )
                .is_err()
            {
                // Relayed by the client: a bad signature proves nothing about the node.
                return Err(bad(format!(
                    "the confirmation of node {} is not signed by its roster key",
                    c.node
                )));
            }
            let conf = RefreshConfirmation::from_bytes(&bytes)
                .map_err(|e| blame(format!("confirmation: {e}")))?;
            if conf.index().position() != pos {
                return Err(blame(format!(
                    "node {} signed a confirmation as party {}",
                    c.node,
                    conf.index()
                )));
            }
            checked
                .add_confirmation(&conf)
                .map_err(|e| rejected(&e, &state.holders, "hot"))?;
            evidence.push(
                json!({ "node": c.node, "confirmation": c.confirmation, "signature": c.signature }),
            );
        }
        if !checked.is_ready() {
            return Err(BlsHotError::Conflict(format!(
                "the refresh is confirmed by too few hot nodes (need {})",
                state.view.params().t()
            )));
        }
        party
            .commit(checked)
            .map_err(|e| BlsHotError::Internal(e.to_string()))?;
        let next = HotState {
            index: state.index,
            holders: state.holders.clone(),
            auth_key: state.auth_key,
            crs_id: state.crs_id,
            pad: state.pad,
            record: party.public().to_bytes(),
            view: PartyRecord::of(party.public(), state.index)
                .map_err(|e| BlsHotError::Internal(e.to_string()))?,
            payload: party.to_payload(),
        };
        {
            let mut ks = lock(&self.keystore);
            ks.replace_secret(&key, req.epoch, 1, &kind_state(), &next.to_bytes())?;
            let cert = json!({ "confirmations": evidence }).to_string();
            ks.commit_epoch(&key, req.epoch, cert.as_bytes())?;
            // δ_i with the new share would give the old one: erase it now that the old
            // epoch is gone (a crash before this line leaves it until the next commit).
            ks.replace_secret(&key, req.epoch, 1, &kind_pending(), &[])?;
        }
        // The committed party replaces the old epoch's in memory (which is wiped).
        lock(&self.parties).insert(key_id.to_string(), Arc::new(party));
        Ok(self.info(key_id, req.epoch, &next, None))
    }
}
