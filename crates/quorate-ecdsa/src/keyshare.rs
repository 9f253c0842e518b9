//! The long-lived key share: a Shamir share of the signing key, every party's public share,
//! the BIP32 chain code, this epoch's identity keys, and the pairwise OT state.
//!
//! # Why `KeyShare` is `Clone`, and what a clone shares
//!
//! Concurrent signing sessions, BIP32 children ([`KeyShare::derive_child`]) and the
//! refresh all start from a copy of the share. What must never diverge between copies is
//! the **pairwise OT state**: every failed consistency check against a counterparty can leak
//! about one bit of the long-term OT correlation `Δ` shared with it (selective failure), so
//! after one failure the counterparty must be refused by *every* copy, or an attacker who
//! probes one bit per session, alternating between copies, learns `Δ` and then the key
//! share. The OT seeds, the bans and the record of signed session ids therefore live in one
//! [`PairStore`] behind an [`Arc`]: `clone()` and `derive_child` share it (they are handles
//! to the same state), a ban through any handle is seen by all, and the consistency check
//! and the ban happen under the pair's lock, so two concurrent sessions cannot both observe
//! a check against the same pair after a failure. [`KeyShare::from_bytes`] creates a new
//! store: load a share once per process and clone the loaded value.
//!
//! # Persisting
//!
//! [`KeyShare::to_bytes`] is a versioned, checksummed encoding of everything above (secret
//! bytes in a [`Zeroizing`] buffer; encrypting it at rest is the caller's job), and
//! [`KeyShare::from_bytes`] checks it (checksum, lengths, canonical scalars, valid points,
//! `x_i·G = T_i`, the public shares interpolate to the public key, the identity key matches).
//! A ban is a state change: an error with [`EcdsaError::newly_banned`] non-empty means the
//! share must be persisted again before it is used.

use crate::curve::{
    base_mul, point_bytes, read_point, read_scalar, scalar_bytes, tagged_hash, write_point,
};
use crate::error::{EcdsaError, Result};
use crate::fixed_base::FixedBaseTable;
use crate::ot::ext::{OteReceiverSeeds, OteSenderSeeds};
use ed25519_dalek::{SigningKey, VerifyingKey};
use k256::elliptic_curve::group::Group;
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, PartyId, ThresholdParams};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};
use zeroize::{Zeroize, Zeroizing};

const SHARE_TAG: u8 = 0xE8;
const SHARE_VERSION: u8 = 1;
const TAG_CHECKSUM: &[u8] = b"quorate/ecdsa/key-share-checksum/v1";

/// Seeds for both directions of one pair: as multiplication sender (OTE sender, holds `Δ`)
/// and as multiplication receiver (OTE receiver, holds both base keys). Wiped on drop.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub(crate) struct PairSeeds {
    /// We are Alice (multiplication sender) towards the counterparty.
    pub(crate) sender: OteSenderSeeds,
    /// We are Bob (multiplication receiver) towards the counterparty.
    pub(crate) receiver: OteReceiverSeeds,
}

/// Pairwise OT state with one counterparty.
pub(crate) enum PairState {
    /// Usable seeds (shared by the sessions that read them).
    Ready(Arc<PairSeeds>),
    /// A consistency check failed; the seeds were dropped (and wiped) and the counterparty
    /// is refused until a refresh sets up new OT state.
    Banned,
}

/// The pairwise OT state of a key share and everything derived from it (clones, BIP32
/// children): one lock per counterparty, and the signed-session record.
pub struct PairStore {
    pairs: BTreeMap<PartyId, Mutex<PairState>>,
    signed_sessions: Mutex<BTreeSet<[u8; 32]>>,
    /// Memo of this party's `pk_i = λ_i·T_i` per `(λ_i, T_i)` (see
    /// [`KeyShare::own_additive_public`]); public values only, never persisted.
    own_publics: Mutex<Vec<OwnPublic>>,
    /// Memo of the tables of the public keys signed under (see
    /// [`KeyShare::public_key_table`]); public values only, never persisted.
    key_tables: Mutex<Vec<(ProjectivePoint, Arc<FixedBaseTable>)>>,
}

/// One memoised `(λ_i, T_i, λ_i·T_i)`.
type OwnPublic = (Scalar, ProjectivePoint, ProjectivePoint);

/// How many signing sets' `pk_i` a store remembers (oldest dropped first).
const OWN_PUBLICS: usize = 16;

/// How many public keys' tables a store remembers (the share's key and BIP32 children;
/// about 76 KiB each; oldest dropped first).
const KEY_TABLES: usize = 4;

impl core::fmt::Debug for PairStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PairStore")
            .field("counterparties", &self.pairs.len())
            .finish_non_exhaustive()
    }
}

/// Locks a pair, failing closed: a lock poisoned by a panic while the pair was in use is
/// treated as banned.
fn lock(m: &Mutex<PairState>) -> Option<MutexGuard<'_, PairState>> {
    m.lock().ok()
}

impl PairStore {
    pub(crate) fn new(pairs: BTreeMap<PartyId, PairSeeds>) -> Self {
        PairStore {
            pairs: pairs
                .into_iter()
                .map(|(j, s)| (j, Mutex::new(PairState::Ready(Arc::new(s)))))
                .collect(),
            signed_sessions: Mutex::new(BTreeSet::new()),
            own_publics: Mutex::new(Vec::new()),
            key_tables: Mutex::new(Vec::new()),
        }
    }
}

/// One party's share of a threshold ECDSA key. Secrets are wiped on drop; `Debug` is
/// redacted. Clones share the pairwise OT state (see the module documentation).
#[derive(Clone)]
pub struct KeyShare {
    pub(crate) params: ThresholdParams,
    pub(crate) id: PartyId,
    pub(crate) key_id: [u8; 32],
    pub(crate) epoch: u64,
    pub(crate) secret: Scalar,
    pub(crate) public_key: ProjectivePoint,
    pub(crate) public_shares: Vec<ProjectivePoint>,
    pub(crate) chain_code: [u8; 32],
    pub(crate) transcript: [u8; 32],
    pub(crate) pairs: Arc<PairStore>,
    /// This party's Ed25519 identity key for this epoch (signs its round-2 broadcast bodies
    /// in signing, and its broadcasts and acknowledgement in the next refresh, which
    /// announces the next one); `ed25519-dalek` wipes it on drop.
    pub(crate) identity: SigningKey,
    /// Every party's identity verifying key for this epoch (`identities[k]` belongs to party
    /// `k + 1`), agreed in the DKG or refresh that produced the share.
    pub(crate) identities: Vec<VerifyingKey>,
}

impl Drop for KeyShare {
    fn drop(&mut self) {
        self.secret.zeroize();
    }
}

impl core::fmt::Debug for KeyShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyShare")
            .field("id", &self.id)
            .field("params", &self.params)
            .field("epoch", &self.epoch)
            .field("public_key", &hex::encode(self.public_key_bytes()))
            .field("secret", &quorate_core::secret::REDACTED)
            .finish_non_exhaustive()
    }
}

impl KeyShare {
    /// This party.
    pub fn id(&self) -> PartyId {
        self.id
    }

    /// The `(t, n)` parameters.
    pub fn params(&self) -> ThresholdParams {
        self.params
    }

    /// The key identifier (bound into every sub-protocol's session id).
    pub fn key_id(&self) -> [u8; 32] {
        self.key_id
    }

    /// How many refreshes this share has been through.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The group public key.
    pub fn public_key(&self) -> ProjectivePoint {
        self.public_key
    }

    /// The group public key, 33-byte compressed SEC1.
    pub fn public_key_bytes(&self) -> [u8; 33] {
        point_bytes(&self.public_key)
    }

    /// The verification share `T_j = p(j)·G` of party `j`.
    pub fn public_share(&self, j: PartyId) -> Option<ProjectivePoint> {
        self.public_shares.get(j.position()).copied()
    }

    /// The verification share `T_j` of party `j`, 33-byte compressed SEC1.
    pub fn public_share_bytes(&self, j: PartyId) -> Option<[u8; 33]> {
        self.public_share(j).map(|t| point_bytes(&t))
    }

    /// This party's secret share `x_i = p(i)`, 32 bytes big-endian (wiped on drop), for a
    /// verifiable escrow backup of the share (`quorate-verenc`): the only use outside this
    /// crate. Never log or store it in clear.
    pub fn expose_secret_share(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(scalar_bytes(&self.secret))
    }

    /// The BIP32 chain code agreed in key generation.
    pub fn chain_code(&self) -> [u8; 32] {
        self.chain_code
    }

    /// The agreed hash of every broadcast value of the DKG or refresh that produced this
    /// share (every party signed it in the agreement step).
    pub fn setup_transcript(&self) -> [u8; 32] {
        self.transcript
    }

    /// Party `j`'s Ed25519 identity verifying key for this epoch (the roster key from key
    /// generation, rotated by every refresh).
    pub fn identity_key(&self, j: PartyId) -> Option<VerifyingKey> {
        self.identities.get(j.position()).copied()
    }

    /// Every party's identity verifying key for this epoch (`[k]` is party `k + 1`'s): the
    /// roster that signs this share's signing sessions and its next refresh.
    pub fn identity_keys(&self) -> &[VerifyingKey] {
        &self.identities
    }

    /// Whether the counterparty is banned (its OT correlations were discarded) in this
    /// share's pairwise store (shared by every clone and derived child).
    pub fn is_banned(&self, j: PartyId) -> bool {
        match self.pairs.pairs.get(&j) {
            Some(m) => lock(m).is_none_or(|g| matches!(*g, PairState::Banned)),
            None => false,
        }
    }

    /// Every banned counterparty.
    pub fn banned(&self) -> Vec<PartyId> {
        self.pairs
            .pairs
            .keys()
            .copied()
            .filter(|j| self.is_banned(*j))
            .collect()
    }

    /// Bans `j` in the shared pairwise store: wipes the OT seeds shared with it, for every
    /// clone and derived child of this share. Signing with `j` then fails with
    /// [`EcdsaError::Banned`] until a refresh sets up fresh base OTs. Persist the share
    /// afterwards.
    pub fn ban(&self, j: PartyId) {
        if let Some(m) = self.pairs.pairs.get(&j) {
            match m.lock() {
                Ok(mut g) => *g = PairState::Banned,
                Err(poisoned) => *poisoned.into_inner() = PairState::Banned,
            }
        }
    }

    fn unknown(&self, j: PartyId) -> EcdsaError {
        EcdsaError::Param(quorate_core::ParamError::UnknownParty {
            id: j,
            n: self.params.n(),
        })
    }

    /// The seeds shared with `j`, or [`EcdsaError::Banned`].
    pub(crate) fn pair(&self, j: PartyId) -> Result<Arc<PairSeeds>> {
        let m = self.pairs.pairs.get(&j).ok_or_else(|| self.unknown(j))?;
        match lock(m).as_deref() {
            Some(PairState::Ready(s)) => Ok(Arc::clone(s)),
            _ => Err(EcdsaError::Banned { counterparty: j }),
        }
    }

    /// Runs a consistency check on the OT correlation with `j` under the pair's lock:
    /// refused if `j` is banned; a check that fails with [`EcdsaError::Aborted`] bans `j`
    /// before the lock is released, so no other session (through any clone or child) runs
    /// a check against `j` afterwards.
    pub(crate) fn checked<T>(
        &self,
        j: PartyId,
        check: impl FnOnce(&PairSeeds) -> Result<T>,
    ) -> Result<T> {
        let m = self.pairs.pairs.get(&j).ok_or_else(|| self.unknown(j))?;
        let mut guard = match m.lock() {
            Ok(g) => g,
            Err(_) => return Err(EcdsaError::Banned { counterparty: j }),
        };
        let seeds = match &*guard {
            PairState::Ready(s) => Arc::clone(s),
            PairState::Banned => return Err(EcdsaError::Banned { counterparty: j }),
        };
        let res = check(&seeds);
        if let Err(EcdsaError::Aborted(b)) = res {
            *guard = PairState::Banned;
            return Err(EcdsaError::AbortedAndBanned(b));
        }
        res
    }

    /// Records that this share signed a round-2 body (signing) or a refresh broadcast under
    /// `sid` (the two kinds of sid are hashes under different tags); false if it already had.
    pub(crate) fn record_signed_session(&self, sid: [u8; 32]) -> bool {
        match self.pairs.signed_sessions.lock() {
            Ok(mut g) => g.insert(sid),
            Err(_) => false,
        }
    }

    /// `sk_i = λ_i·p(i)` for this party's Lagrange coefficient `λ_i` in the signing set: an
    /// additive share of the key.
    pub(crate) fn additive_share(&self, lambda: &Scalar) -> Scalar {
        *lambda * self.secret
    }

    /// `pk_i = sk_i·G` for this party's additive share `sk_i = λ_i·x_i` (`λ_i` its Lagrange
    /// coefficient in the signing set), i.e. `λ_i·T_i`. A public value that depends only on
    /// the signing set and the share, so it is memoised in the shared store per
    /// `(λ_i, T_i)` (clones and BIP32 children, whose `T_i` differ, share the store; a
    /// share's `x_i·G = T_i` is checked on creation and import): a signer that signs
    /// repeatedly with the same co-signers saves one multiplication of `G` per session.
    pub(crate) fn own_additive_public(&self, lambda: &Scalar, sk_i: &Scalar) -> ProjectivePoint {
        let Some(t_i) = self.public_share(self.id) else {
            return base_mul(sk_i);
        };
        let hit = self.pairs.own_publics.lock().ok().and_then(|m| {
            m.iter()
                .find(|(l, t, _)| l == lambda && *t == t_i)
                .map(|(_, _, p)| *p)
        });
        if let Some(p) = hit {
            return p;
        }
        let pk_i = base_mul(sk_i);
        if let Ok(mut m) = self.pairs.own_publics.lock() {
            if m.len() == OWN_PUBLICS {
                m.remove(0);
            }
            m.push((*lambda, t_i, pk_i));
        }
        pk_i
    }

    /// The table of multiples of the public key ([`FixedBaseTable`]) for the final
    /// verification of each signature, memoised in the shared store per public key (clones
    /// and BIP32 children share the store): built at the first signature under a key
    /// (about the cost of five `k256` verifications), then each verification is two table
    /// sums.
    pub(crate) fn public_key_table(&self) -> Arc<FixedBaseTable> {
        let pk = self.public_key;
        let hit = self
            .pairs
            .key_tables
            .lock()
            .ok()
            .and_then(|m| m.iter().find(|(p, _)| *p == pk).map(|(_, t)| Arc::clone(t)));
        if let Some(t) = hit {
            return t;
        }
        let table = Arc::new(FixedBaseTable::new(&pk));
        if let Ok(mut m) = self.pairs.key_tables.lock() {
            if m.len() == KEY_TABLES {
                m.remove(0);
            }
            m.push((pk, Arc::clone(&table)));
        }
        table
    }

    /// `λ_j·T_j`, the public counterpart of party `j`'s additive share, for its Lagrange
    /// coefficient `λ_j` in the signing set.
    pub(crate) fn additive_public(&self, j: PartyId, lambda: &Scalar) -> Result<ProjectivePoint> {
        let t = self.public_share(j).ok_or_else(|| self.unknown(j))?;
        Ok(t * lambda)
    }

    /// Test hook (feature `test-faults`): reveals the secret share.
    #[cfg(any(test, feature = "test-faults"))]
    pub fn secret_share_for_test(&self) -> Scalar {
        self.secret
    }

    /// The versioned, checksummed encoding of the share, its pairwise OT state (bans
    /// included) and its signed-session record. Contains every secret of the share: keep it
    /// encrypted at rest. See the module documentation.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut w = Writer::new();
        w.header(SHARE_TAG, SHARE_VERSION)
            .u16(self.params.t())
            .u16(self.params.n())
            .party(self.id)
            .bytes(&self.key_id)
            .u64(self.epoch);
        let mut secret = scalar_bytes(&self.secret);
        w.bytes(&secret);
        secret.zeroize();
        write_point(&mut w, &self.public_key);
        for t in &self.public_shares {
            write_point(&mut w, t);
        }
        w.bytes(&self.chain_code).bytes(&self.transcript);
        w.bytes(self.identity.as_bytes());
        for vk in &self.identities {
            w.bytes(vk.as_bytes());
        }
        for (j, m) in &self.pairs.pairs {
            w.party(*j);
            match lock(m).as_deref() {
                Some(PairState::Ready(s)) => {
                    w.bytes(&[1]);
                    s.sender.write_secret(&mut w);
                    s.receiver.write_secret(&mut w);
                }
                _ => {
                    w.bytes(&[0]);
                }
            }
        }
        let sessions: Vec<[u8; 32]> = match self.pairs.signed_sessions.lock() {
            Ok(g) => g.iter().copied().collect(),
            Err(p) => p.into_inner().iter().copied().collect(),
        };
        w.u32(sessions.len() as u32);
        for s in &sessions {
            w.bytes(s);
        }
        let mut out = Zeroizing::new(w.into_bytes());
        let sum = tagged_hash(TAG_CHECKSUM, &[&out]);
        out.extend_from_slice(&sum);
        out
    }

    /// Decodes and checks what [`KeyShare::to_bytes`] wrote (a fresh pairwise store).
    pub fn from_bytes(bytes: &[u8]) -> Result<KeyShare> {
        decode_share(bytes).map_err(EcdsaError::InvalidShare)
    }
}

fn invalid(reason: &'static str) -> DecodeError {
    DecodeError::InvalidValue {
        what: "key share",
        reason,
    }
}

fn decode_share(bytes: &[u8]) -> core::result::Result<KeyShare, DecodeError> {
    let body_len = bytes
        .len()
        .checked_sub(32)
        .ok_or(DecodeError::WrongLength {
            what: "key share",
            expected: 32,
            got: bytes.len(),
        })?;
    let (body, sum) = bytes.split_at(body_len);
    let expected = tagged_hash(TAG_CHECKSUM, &[body]);
    if !bool::from(subtle::ConstantTimeEq::ct_eq(&expected[..], sum)) {
        return Err(invalid("checksum mismatch (corrupted or truncated)"));
    }
    let mut r = Reader::new("key share", body);
    r.header(SHARE_TAG, SHARE_VERSION)?;
    let (t, n) = (r.u16()?, r.u16()?);
    let params = ThresholdParams::new(t, n).map_err(|_| invalid("threshold parameters"))?;
    let id = r.party()?;
    if !params.contains(id) {
        return Err(invalid("party outside the parameters"));
    }
    let key_id = r.array()?;
    let epoch = r.u64()?;
    let secret = Zeroizing::new(read_scalar(&mut r, "secret share")?);
    let public_key = read_point(&mut r, "public key")?;
    let mut public_shares = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        public_shares.push(read_point(&mut r, "public share")?);
    }
    let chain_code = r.array()?;
    let transcript = r.array()?;
    let identity = SigningKey::from_bytes(&Zeroizing::new(r.array::<32>()?));
    let mut identities = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        identities.push(crate::evidence::read_identity(&mut r)?);
    }
    let mut pairs = BTreeMap::new();
    for j in params.parties().filter(|j| *j != id) {
        if r.party()? != j {
            return Err(invalid("pairs must list every other party in order"));
        }
        let state = match r.array::<1>()? {
            [1] => PairState::Ready(Arc::new(PairSeeds {
                sender: OteSenderSeeds::read_secret(&mut r)?,
                receiver: OteReceiverSeeds::read_secret(&mut r)?,
            })),
            [0] => PairState::Banned,
            _ => return Err(invalid("pair state flag must be 0 or 1")),
        };
        pairs.insert(j, Mutex::new(state));
    }
    let count = r.u32()? as usize;
    if count > r.remaining() / 32 {
        return Err(invalid("signed-session count beyond the data"));
    }
    let mut signed_sessions = BTreeSet::new();
    for _ in 0..count {
        signed_sessions.insert(r.array::<32>()?);
    }
    r.finish()?;
    // Consistency: own share against own public share, the public shares against the
    // public key (interpolating the first t at zero), own identity key.
    if public_shares.get(id.position()) != Some(&base_mul(&secret)) {
        return Err(invalid("secret share does not match its public share"));
    }
    let xs: Vec<Scalar> = (1..=u64::from(t)).map(Scalar::from).collect();
    let lambdas = quorate_core::lagrange::coefficients_at_zero(&xs)
        .map_err(|_| invalid("Lagrange coefficients"))?;
    let pk = public_shares
        .iter()
        .zip(&lambdas)
        .fold(ProjectivePoint::IDENTITY, |acc, (p, l)| acc + *p * l);
    if pk != public_key || bool::from(public_key.is_identity()) {
        return Err(invalid(
            "public shares do not interpolate to the public key",
        ));
    }
    if identities.get(id.position()) != Some(&identity.verifying_key()) {
        return Err(invalid("identity key does not match its verifying key"));
    }
    Ok(KeyShare {
        params,
        id,
        key_id,
        epoch,
        secret: *secret,
        public_key,
        public_shares,
        chain_code,
        transcript,
        pairs: Arc::new(PairStore {
            pairs,
            signed_sessions: Mutex::new(signed_sessions),
            own_publics: Mutex::new(Vec::new()),
            key_tables: Mutex::new(Vec::new()),
        }),
        identity,
        identities,
    })
}

/// The session id of a pairwise sub-protocol: protocol tag, outer session, multiplication
/// sender (Alice) and receiver (Bob).
pub(crate) fn pair_sid(tag: &[u8], outer: &[u8; 32], alice: PartyId, bob: PartyId) -> [u8; 32] {
    tagged_hash(tag, &[outer, &alice.to_bytes(), &bob.to_bytes()])
}
