//! Distributed key generation without a dealer, proactive refresh, and the pairwise OT setup.
//!
//! Three message rounds (every message is addressed to one party; the parts marked
//! *broadcast* are identical for all recipients and must travel over a reliable broadcast,
//! or be echoed — [`KeyShare::setup_transcript`] is the hash to compare):
//!
//! 1. **Round 1** `i → j`: *broadcast* `H(sid, i, C_i, π_i, ρ_i, salt_i)` — a commitment to
//!    the Feldman vector `C_i = (a_{i,0}·G, …, a_{i,t−1}·G)`, the Schnorr proof `π_i` of
//!    `a_{i,0}` and the chain-code contribution `ρ_i`, and the Ed25519 identity verifying
//!    key of `i` (which signs `i`'s round-2 bodies in signing, see [`crate::sign`]; a refresh
//!    keeps it and a different key is blamed on its sender); *p2p*, for `j < i` only, the
//!    base-OT sender message of the pair `{j, i}`.
//! 2. **Round 2** `i → j`: *broadcast* the opening `(C_i, π_i, ρ_i, salt_i)`; *p2p* the share
//!    `f_i(j)` and, for `j > i`, the base-OT receiver message of the pair `{i, j}`.
//! 3. **Round 3**: every opening, vector length, proof and share is checked and a failure
//!    names its sender. `p(i) = Σ_j f_j(i)`, `pk = Σ_j C_{j,0}`, `T_k = Σ_j C_j(k)`, chain
//!    code `= H(ρ_1, …, ρ_n)`; the setup transcript hashes every opening and identity
//!    key. Then `i → j` for `j < i`: the OT-extension message that bootstraps the reverse
//!    direction of the pair (below).
//! 4. **Finish**: checks the bootstrap extensions (naming the sender) and outputs the share.
//!
//! **One base-OT batch per pair.** For `a < b`, `κ = 128` base OTs (verified simplest OT,
//! [`crate::ot::base`]) make `a` the extension sender (`Δ_a`) and `b` the extension receiver:
//! the direction in which `a` is the multiplication sender (Alice). The reverse direction
//! is bootstrapped from it rather than from a second batch of base OTs: `b` extends `κ`
//! random OTs with random choice bits `Δ_b` (with the revised KOS check), and the hashed
//! rows are the reverse base OTs (`b` learns one key per OT, `a` both). This is the
//! standard use of extended OTs as base OTs; it halves the public-key work of the setup
//! (about `3κ` scalar multiplications per pair instead of `6κ`) for one more message round.
//!
//! **Refresh** runs the same rounds with `a_{i,0} = 0` (the Feldman vector omits `C_{i,0}`,
//! which must be the identity, and carries no proof), adds the zero-sharing to the old share,
//! keeps the public key and chain code, increments the epoch and replaces every pairwise OT
//! seed with fresh base OTs (which also re-establishes banned pairs).
//!
//! Session ids: `setup_sid = H(tag, key_id, epoch, caller session)`; each pairwise base OT
//! uses `H(tag, setup_sid, alice, bob)`; proofs bind `setup_sid` and the prover.

use crate::curve::{
    base_mul, malformed, mul_small, read_point, read_scalar, tagged_hash, write_point,
    write_scalar, DlogProof,
};
use crate::error::{EcdsaError, Result};
use crate::keyshare::{pair_sid, KeyShare, PairState};
use crate::ot::base::{self, BaseOtMsg1, BaseOtMsg2, BaseOtReceiverOutput, BaseOtSender};
use crate::ot::ext::{self, OteMsg, OteReceiverSeeds, OteSenderSeeds};
use ed25519_dalek::{SigningKey, VerifyingKey};
use k256::elliptic_curve::Field;
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::poly::SecretPolynomial;
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRngCore, SeedableRng};
use rayon::prelude::*;
use std::collections::BTreeMap;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

const TAG_KEY_ID: &[u8] = b"quorate/ecdsa/key-id/v1";
const TAG_SETUP: &[u8] = b"quorate/ecdsa/setup-sid/v1";
const TAG_PAIR: &[u8] = b"quorate/ecdsa/base-ot-pair/v1";
const TAG_COMMIT: &[u8] = b"quorate/ecdsa/dkg-commit/v1";
const TAG_CHAIN: &[u8] = b"quorate/ecdsa/chain-code/v1";
const TAG_TRANSCRIPT: &[u8] = b"quorate/ecdsa/dkg-transcript/v1";
const PROOF_LABEL: &[u8] = b"dkg constant term";
const MSG1_TAG: u8 = 0xE1;
const MSG2_TAG: u8 = 0xE2;
const MSG3_TAG: u8 = 0xE3;
const TAG_BOOT: &[u8] = b"quorate/ecdsa/ote-bootstrap-pair/v1";
const VERSION: u8 = 1;

enum Mode {
    Keygen,
    Refresh(Box<KeyShare>),
}

/// Round-1 message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgMsg1 {
    commitment: [u8; 32],
    /// *Broadcast*: the sender's Ed25519 identity verifying key (kept by a refresh).
    identity: VerifyingKey,
    /// Present exactly when the recipient has the lower index.
    base_ot: Option<BaseOtMsg1>,
}

/// Round-3 message (to lower-index parties only): the OT-extension message that bootstraps
/// the reverse direction of the pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgMsg3 {
    ote: OteMsg,
}

/// Round-2 message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgMsg2 {
    feldman: Vec<ProjectivePoint>,
    proof: Option<DlogProof>,
    chain: [u8; 32],
    salt: [u8; 32],
    share: Scalar,
    /// Present exactly when the recipient has the higher index.
    base_ot: Option<BaseOtMsg2>,
}

impl Drop for DkgMsg2 {
    fn drop(&mut self) {
        self.share.zeroize();
    }
}

/// State after round 1.
pub struct DkgRound1 {
    params: ThresholdParams,
    me: PartyId,
    mode: Mode,
    setup_sid: [u8; 32],
    key_id: [u8; 32],
    poly: SecretPolynomial<Scalar>,
    feldman: Vec<ProjectivePoint>,
    proof: Option<DlogProof>,
    chain: [u8; 32],
    salt: [u8; 32],
    ot_senders: BTreeMap<PartyId, BaseOtSender>,
    identity: SigningKey,
}

/// State after round 2.
pub struct DkgRound2 {
    r1: DkgRound1,
    commitments: BTreeMap<PartyId, [u8; 32]>,
    identities: BTreeMap<PartyId, VerifyingKey>,
    ot_receivers: BTreeMap<PartyId, BaseOtReceiverOutput>,
}

/// State after round 3: the verified share, waiting for the bootstrap messages of the
/// higher-index parties.
pub struct DkgRound3 {
    share: KeyShare,
    setup_sid: [u8; 32],
    /// For `j > me`: our extension-sender seeds towards `j` (from the base OTs).
    forward: BTreeMap<PartyId, OteSenderSeeds>,
}

impl core::fmt::Debug for DkgRound3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DkgRound3")
            .field("me", &self.share.id)
            .finish_non_exhaustive()
    }
}

impl core::fmt::Debug for DkgRound1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DkgRound1")
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}
impl core::fmt::Debug for DkgRound2 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DkgRound2")
            .field("me", &self.r1.me)
            .finish_non_exhaustive()
    }
}

fn commitment(
    setup_sid: &[u8; 32],
    from: PartyId,
    feldman: &[ProjectivePoint],
    proof: &Option<DlogProof>,
    chain: &[u8; 32],
    salt: &[u8; 32],
) -> [u8; 32] {
    let mut w = Writer::new();
    encode_reveal(&mut w, feldman, proof, chain, salt);
    tagged_hash(TAG_COMMIT, &[setup_sid, &from.to_bytes(), &w.into_bytes()])
}

fn encode_reveal(
    w: &mut Writer,
    feldman: &[ProjectivePoint],
    proof: &Option<DlogProof>,
    chain: &[u8; 32],
    salt: &[u8; 32],
) {
    w.u16(feldman.len() as u16);
    for c in feldman {
        write_point(w, c);
    }
    match proof {
        Some(p) => {
            w.bytes(&[1]);
            p.write(w);
        }
        None => {
            w.bytes(&[0]);
        }
    }
    w.bytes(chain).bytes(salt);
}

fn per_party_rngs(rng: &mut impl CryptoRngCore, ids: &[PartyId]) -> Vec<(PartyId, ChaCha20Rng)> {
    ids.iter()
        .map(|j| {
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            let r = ChaCha20Rng::from_seed(seed);
            seed.zeroize();
            (*j, r)
        })
        .collect()
}

fn others(params: ThresholdParams, me: PartyId) -> Vec<PartyId> {
    params.parties().filter(|p| *p != me).collect()
}

/// Fault injection for tests: how a malicious party deviates in key generation.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DkgFault {
    /// Honest.
    None,
    /// Commits to (and reveals) a Feldman vector one longer than `t` (raising the degree).
    LongVector,
    /// Commits to (and reveals) an invalid proof of knowledge.
    BadProof,
}

/// Fault-injection variant of [`keygen_round1`].
#[doc(hidden)]
pub fn keygen_round1_faulty(
    params: ThresholdParams,
    me: PartyId,
    session: &SessionId,
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    let key_id = tagged_hash(
        TAG_KEY_ID,
        &[
            session.as_bytes(),
            &params.t().to_be_bytes(),
            &params.n().to_be_bytes(),
        ],
    );
    start_inner(params, me, Mode::Keygen, key_id, 0, session, fault, rng)
}

/// Starts key generation for party `me` of `params`. `session` must be unique per run and
/// agreed by all parties (it determines the key id).
pub fn keygen_round1(
    params: ThresholdParams,
    me: PartyId,
    session: &SessionId,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    let key_id = tagged_hash(
        TAG_KEY_ID,
        &[
            session.as_bytes(),
            &params.t().to_be_bytes(),
            &params.n().to_be_bytes(),
        ],
    );
    start(params, me, Mode::Keygen, key_id, 0, session, rng)
}

/// Starts a proactive refresh of `share` (all `n` parties take part). The public key, key
/// id and chain code are kept; shares and every pairwise OT seed are replaced.
pub fn refresh_round1(
    share: &KeyShare,
    session: &SessionId,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    start(
        share.params,
        share.id,
        Mode::Refresh(Box::new(share.clone())),
        share.key_id,
        share.epoch + 1,
        session,
        rng,
    )
}

fn start(
    params: ThresholdParams,
    me: PartyId,
    mode: Mode,
    key_id: [u8; 32],
    epoch: u64,
    session: &SessionId,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    start_inner(
        params,
        me,
        mode,
        key_id,
        epoch,
        session,
        DkgFault::None,
        rng,
    )
}

#[allow(clippy::too_many_arguments)]
fn start_inner(
    params: ThresholdParams,
    me: PartyId,
    mode: Mode,
    key_id: [u8; 32],
    epoch: u64,
    session: &SessionId,
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    if !params.contains(me) {
        return Err(quorate_core::ParamError::UnknownParty {
            id: me,
            n: params.n(),
        }
        .into());
    }
    let setup_sid = tagged_hash(
        TAG_SETUP,
        &[&key_id, &epoch.to_be_bytes(), session.as_bytes()],
    );
    let degree = usize::from(params.t()) - 1 + usize::from(fault == DkgFault::LongVector);
    let (poly, feldman, proof) = match mode {
        Mode::Keygen => {
            let poly =
                SecretPolynomial::random_with_constant(Scalar::random(&mut *rng), degree, rng);
            let feldman: Vec<_> = poly.coefficients().iter().map(base_mul).collect();
            let secret = if fault == DkgFault::BadProof {
                Scalar::ONE
            } else {
                poly.constant()
            };
            let proof = DlogProof::prove(PROOF_LABEL, &setup_sid, me, &secret, &feldman[0], rng);
            (poly, feldman, Some(proof))
        }
        Mode::Refresh(_) => {
            let poly = SecretPolynomial::random_zero_sharing(degree, rng);
            let feldman: Vec<_> = poly.coefficients().iter().skip(1).map(base_mul).collect();
            (poly, feldman, None)
        }
    };
    // The identity key signs this party's round-2 broadcast bodies in signing (see
    // `crate::sign`); a refresh keeps it.
    let identity = match &mode {
        Mode::Keygen => SigningKey::generate(&mut *rng),
        Mode::Refresh(old) => old.identity.clone(),
    };
    let identity_pub = identity.verifying_key();
    let mut chain = [0u8; 32];
    rng.fill_bytes(&mut chain);
    let mut salt = [0u8; 32];
    rng.fill_bytes(&mut salt);
    let com = commitment(&setup_sid, me, &feldman, &proof, &chain, &salt);
    let mut ot_senders = BTreeMap::new();
    let mut out = Vec::new();
    for j in others(params, me) {
        // For j < me: j is Alice (base-OT receiver), we are Bob (base-OT sender).
        let base_ot = if j < me {
            let (st, m) = base::sender_round1(pair_sid(TAG_PAIR, &setup_sid, j, me), me, rng);
            ot_senders.insert(j, st);
            Some(m)
        } else {
            None
        };
        out.push((
            j,
            DkgMsg1 {
                commitment: com,
                identity: identity_pub,
                base_ot,
            },
        ));
    }
    Ok((
        DkgRound1 {
            params,
            me,
            mode,
            setup_sid,
            key_id,
            poly,
            feldman,
            proof,
            chain,
            salt,
            ot_senders,
            identity,
        },
        out,
    ))
}

/// Checks that `msgs` holds exactly one message from every other party.
fn collect<M>(
    params: ThresholdParams,
    me: PartyId,
    msgs: &[(PartyId, M)],
) -> Result<BTreeMap<PartyId, &M>> {
    let mut map = BTreeMap::new();
    for (from, m) in msgs {
        if *from == me || !params.contains(*from) || map.insert(*from, m).is_some() {
            return Err(EcdsaError::MissingMessage { from: *from });
        }
    }
    for j in others(params, me) {
        if !map.contains_key(&j) {
            return Err(EcdsaError::MissingMessage { from: j });
        }
    }
    Ok(map)
}

/// Round 2: answers the base OTs, reveals the commitment and sends the shares.
pub fn dkg_round2(
    state: DkgRound1,
    msgs: &[(PartyId, DkgMsg1)],
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound2, Vec<(PartyId, DkgMsg2)>)> {
    let map = collect(state.params, state.me, msgs)?;
    if let Mode::Refresh(old) = &state.mode {
        for (j, m) in &map {
            if old.identity_key(*j) != Some(m.identity) {
                return Err(EcdsaError::blame(*j, "DKG: identity key (kept by refresh)"));
            }
        }
    }
    let me = state.me;
    let setup_sid = state.setup_sid;
    let ids: Vec<PartyId> = map.keys().copied().collect();
    let rngs = per_party_rngs(rng, &ids);
    // For j > me we are Alice towards j: base-OT receiver on j's message.
    type Answer = (PartyId, Option<(BaseOtReceiverOutput, BaseOtMsg2)>);
    let answers: Vec<Result<Answer>> = rngs
        .into_par_iter()
        .map(|(j, mut r)| {
            let m = map.get(&j).ok_or(EcdsaError::MissingMessage { from: j })?;
            match (&m.base_ot, j > me) {
                (Some(b), true) => {
                    let sid = pair_sid(TAG_PAIR, &setup_sid, me, j);
                    Ok((j, Some(base::receiver_round(sid, j, b, &mut r)?)))
                }
                (None, false) => Ok((j, None)),
                _ => Err(EcdsaError::blame(j, "DKG: base-OT message presence")),
            }
        })
        .collect();
    let mut ot_receivers = BTreeMap::new();
    let mut out = Vec::new();
    for a in answers {
        let (j, ans) = a?;
        let base_ot = match ans {
            Some((o, m2)) => {
                ot_receivers.insert(j, o);
                Some(m2)
            }
            None => None,
        };
        let share = state.poly.evaluate(&Scalar::from(u64::from(j.get())));
        out.push((
            j,
            DkgMsg2 {
                feldman: state.feldman.clone(),
                proof: state.proof,
                chain: state.chain,
                salt: state.salt,
                share,
                base_ot,
            },
        ));
    }
    let commitments = map.iter().map(|(j, m)| (*j, m.commitment)).collect();
    let identities = map.iter().map(|(j, m)| (*j, m.identity)).collect();
    Ok((
        DkgRound2 {
            r1: state,
            commitments,
            identities,
            ot_receivers,
        },
        out,
    ))
}

/// Round 3: verifies everything (naming the culprit of any failure), finishes the base OTs
/// and sends the reverse-direction bootstrap message to every lower-index party.
pub fn dkg_round3(
    state: DkgRound2,
    msgs: &[(PartyId, DkgMsg2)],
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound3, Vec<(PartyId, DkgMsg3)>)> {
    let DkgRound2 {
        r1,
        commitments,
        identities,
        mut ot_receivers,
    } = state;
    let DkgRound1 {
        params,
        me,
        mode,
        setup_sid,
        key_id,
        poly,
        feldman,
        proof,
        chain,
        salt,
        mut ot_senders,
        identity,
    } = r1;
    let map = collect(params, me, msgs)?;
    let refresh = matches!(mode, Mode::Refresh(_));
    let t = usize::from(params.t());
    let expected_len = if refresh { t - 1 } else { t };
    let x_me = Scalar::from(u64::from(me.get()));
    // Per-party checks, in party order (the first failure is reported).
    for (j, m) in &map {
        let j = *j;
        let com = commitments
            .get(&j)
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        let opened = commitment(&setup_sid, j, &m.feldman, &m.proof, &m.chain, &m.salt);
        if !bool::from(opened.ct_eq(com)) {
            return Err(EcdsaError::blame(j, "DKG: commitment opening"));
        }
        if m.feldman.len() != expected_len {
            return Err(EcdsaError::blame(j, "DKG: Feldman vector length"));
        }
        match (&m.proof, refresh) {
            (Some(p), false) => {
                if !p.verify(PROOF_LABEL, &setup_sid, j, &m.feldman[0]) {
                    return Err(EcdsaError::blame(j, "DKG: proof of knowledge"));
                }
            }
            (None, true) => {}
            _ => return Err(EcdsaError::blame(j, "DKG: proof of knowledge")),
        }
        let mut full = m.feldman.clone();
        if refresh {
            full.insert(0, ProjectivePoint::IDENTITY);
        }
        if base_mul(&m.share) != eval_commitment(&full, u64::from(me.get())) {
            return Err(EcdsaError::blame(j, "DKG: share verification"));
        }
    }
    // Pairs {j, me} with j < me: we were Bob (base-OT sender); finish with j's answer, then
    // bootstrap the reverse direction (we become Alice towards j).
    let mut jobs = Vec::new();
    let mut forward = BTreeMap::new();
    for ((j, m), r) in map.iter().zip(per_party_rngs(rng, &others(params, me))) {
        if *j < me {
            let st = ot_senders
                .remove(j)
                .ok_or(EcdsaError::MissingMessage { from: *j })?;
            let b = m
                .base_ot
                .as_ref()
                .ok_or(EcdsaError::blame(*j, "DKG: base-OT message presence"))?;
            jobs.push((*j, st, b, r.1));
        } else {
            if m.base_ot.is_some() {
                return Err(EcdsaError::blame(*j, "DKG: base-OT message presence"));
            }
            let recv = ot_receivers
                .remove(j)
                .ok_or(EcdsaError::MissingMessage { from: *j })?;
            forward.insert(*j, OteSenderSeeds::from(recv));
        }
    }
    type Finished = (PartyId, PairState, DkgMsg3);
    let finished: Vec<Result<Finished>> = jobs
        .into_par_iter()
        .map(|(j, st, b, mut r)| {
            let receiver: OteReceiverSeeds = base::sender_finish(st, j, b)?.into();
            let boot = pair_sid(TAG_BOOT, &setup_sid, me, j);
            let (sender, ote) = ext::bootstrap_receiver(&receiver, &boot, &mut r);
            Ok((j, PairState::Ready { sender, receiver }, DkgMsg3 { ote }))
        })
        .collect();
    let mut pairs = BTreeMap::new();
    let mut out3 = Vec::new();
    for f in finished {
        let (j, p, m3) = f?;
        pairs.insert(j, p);
        out3.push((j, m3));
    }
    // Aggregate.
    let mut agg: Vec<ProjectivePoint> = if refresh {
        std::iter::once(ProjectivePoint::IDENTITY)
            .chain(feldman.iter().copied())
            .collect()
    } else {
        feldman.clone()
    };
    let mut secret = poly.evaluate(&x_me);
    for m in map.values() {
        secret += m.share;
        let off = usize::from(refresh);
        for (k, c) in m.feldman.iter().enumerate() {
            agg[k + off] += c;
        }
    }
    let mut th = Writer::new();
    // The transcript covers every party's opening and its identity key.
    let mut all: Vec<(PartyId, Vec<u8>)> = map
        .iter()
        .map(|(j, m)| {
            let mut w = Writer::new();
            encode_reveal(&mut w, &m.feldman, &m.proof, &m.chain, &m.salt);
            if let Some(vk) = identities.get(j) {
                w.bytes(vk.as_bytes());
            }
            (*j, w.into_bytes())
        })
        .collect();
    let mut mine = Writer::new();
    encode_reveal(&mut mine, &feldman, &proof, &chain, &salt);
    mine.bytes(identity.verifying_key().as_bytes());
    all.push((me, mine.into_bytes()));
    all.sort_by_key(|(j, _)| *j);
    for (j, b) in &all {
        th.party(*j).bytes(b);
    }
    let transcript = tagged_hash(TAG_TRANSCRIPT, &[&setup_sid, &th.into_bytes()]);
    let public_shares: Vec<ProjectivePoint> = params
        .parties()
        .map(|k| eval_commitment(&agg, u64::from(k.get())))
        .collect();
    let (secret, public_key, public_shares, chain_code, epoch) = match mode {
        Mode::Keygen => {
            let mut chains: Vec<(PartyId, [u8; 32])> =
                map.iter().map(|(j, m)| (*j, m.chain)).collect();
            chains.push((me, chain));
            chains.sort_by_key(|(j, _)| *j);
            let flat: Vec<u8> = chains.iter().flat_map(|(_, c)| c.iter().copied()).collect();
            (
                secret,
                agg[0],
                public_shares,
                tagged_hash(TAG_CHAIN, &[&key_id, &flat]),
                0,
            )
        }
        Mode::Refresh(old) => {
            let shares = old
                .public_shares
                .iter()
                .zip(&public_shares)
                .map(|(a, b)| *a + b)
                .collect();
            (
                old.secret + secret,
                old.public_key,
                shares,
                old.chain_code,
                old.epoch + 1,
            )
        }
    };
    let mut identity_keys = Vec::with_capacity(usize::from(params.n()));
    for k in params.parties() {
        if k == me {
            identity_keys.push(identity.verifying_key());
        } else {
            identity_keys.push(
                *identities
                    .get(&k)
                    .ok_or(EcdsaError::MissingMessage { from: k })?,
            );
        }
    }
    let share = KeyShare {
        params,
        id: me,
        key_id,
        epoch,
        secret,
        public_key,
        public_shares,
        chain_code,
        transcript,
        pairs,
        identity,
        identities: identity_keys,
        signed_sessions: Default::default(),
    };
    if share.public_share(me) != Some(base_mul(&share.secret))
        || bool::from(k256::elliptic_curve::group::Group::is_identity(&public_key))
    {
        return Err(EcdsaError::Param(quorate_core::ParamError::Invalid(
            "DKG output is inconsistent with its own public share",
        )));
    }
    Ok((
        DkgRound3 {
            share,
            setup_sid,
            forward,
        },
        out3,
    ))
}

/// Finish: checks the bootstrap extension of every higher-index party (naming it on
/// failure) and outputs the share with all pairwise OT seeds.
pub fn dkg_finish(state: DkgRound3, msgs: &[(PartyId, DkgMsg3)]) -> Result<KeyShare> {
    let DkgRound3 {
        mut share,
        setup_sid,
        mut forward,
    } = state;
    let me = share.id;
    let mut map = BTreeMap::new();
    for (from, m) in msgs {
        if *from <= me || !share.params.contains(*from) || map.insert(*from, m).is_some() {
            return Err(EcdsaError::MissingMessage { from: *from });
        }
    }
    let mut jobs = Vec::with_capacity(forward.len());
    for j in forward.keys() {
        let m = map.get(j).ok_or(EcdsaError::MissingMessage { from: *j })?;
        jobs.push((*j, *m));
    }
    let done: Vec<Result<(PartyId, OteReceiverSeeds)>> = jobs
        .into_par_iter()
        .map(|(j, m)| {
            let sender = forward_seeds(&forward, j)?;
            let boot = pair_sid(TAG_BOOT, &setup_sid, j, me);
            Ok((j, ext::bootstrap_sender(sender, &boot, j, &m.ote)?))
        })
        .collect();
    for d in done {
        let (j, receiver) = d?;
        let sender = forward
            .remove(&j)
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        share.pairs.insert(j, PairState::Ready { sender, receiver });
    }
    Ok(share)
}

fn forward_seeds(
    forward: &BTreeMap<PartyId, OteSenderSeeds>,
    j: PartyId,
) -> Result<&OteSenderSeeds> {
    forward
        .get(&j)
        .ok_or(EcdsaError::MissingMessage { from: j })
}

/// `Σ_k x^k C_k` for a small public `x` (Horner with double-and-add).
fn eval_commitment(c: &[ProjectivePoint], x: u64) -> ProjectivePoint {
    c.iter()
        .rev()
        .fold(ProjectivePoint::IDENTITY, |acc, ck| mul_small(&acc, x) + ck)
}

impl DkgMsg1 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG1_TAG, VERSION).bytes(&self.commitment);
        w.bytes(self.identity.as_bytes());
        match &self.base_ot {
            Some(b) => {
                w.bytes(&[1]);
                b.write(&mut w);
            }
            None => {
                w.bytes(&[0]);
            }
        }
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("DKG round 1", bytes);
        r.header(MSG1_TAG, VERSION).map_err(&f)?;
        let commitment = r.array().map_err(&f)?;
        let identity = read_identity(&mut r).map_err(&f)?;
        let base_ot = match read_flag(&mut r, "DKG round 1").map_err(&f)? {
            true => Some(BaseOtMsg1::read(&mut r).map_err(&f)?),
            false => None,
        };
        r.finish().map_err(&f)?;
        Ok(DkgMsg1 {
            commitment,
            identity,
            base_ot,
        })
    }
}

impl DkgMsg2 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG2_TAG, VERSION);
        encode_reveal(&mut w, &self.feldman, &self.proof, &self.chain, &self.salt);
        write_scalar(&mut w, &self.share);
        match &self.base_ot {
            Some(b) => {
                w.bytes(&[1]);
                b.write(&mut w);
            }
            None => {
                w.bytes(&[0]);
            }
        }
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("DKG round 2", bytes);
        r.header(MSG2_TAG, VERSION).map_err(&f)?;
        let len = r.len_prefix(1024).map_err(&f)?;
        let mut feldman = Vec::with_capacity(len);
        for _ in 0..len {
            feldman.push(read_point(&mut r, "Feldman commitment").map_err(&f)?);
        }
        let [flag] = r.array().map_err(&f)?;
        let proof = match flag {
            0 => None,
            1 => Some(DlogProof::read(&mut r).map_err(&f)?),
            _ => {
                return Err(f(quorate_core::DecodeError::InvalidValue {
                    what: "DKG round 2",
                    reason: "proof flag must be 0 or 1",
                }))
            }
        };
        let chain = r.array().map_err(&f)?;
        let salt = r.array().map_err(&f)?;
        let share = read_scalar(&mut r, "DKG share").map_err(&f)?;
        let base_ot = match read_flag(&mut r, "DKG round 2").map_err(&f)? {
            true => Some(BaseOtMsg2::read(&mut r).map_err(&f)?),
            false => None,
        };
        r.finish().map_err(&f)?;
        Ok(DkgMsg2 {
            feldman,
            proof,
            chain,
            salt,
            share,
            base_ot,
        })
    }

    /// Fault-injection hook: adds one to the share (a bad DKG share).
    #[doc(hidden)]
    pub fn corrupt_share_for_test(&mut self) {
        self.share += Scalar::ONE;
    }

    /// Fault-injection hook: appends a commitment (a wrong-length Feldman vector; the
    /// commitment opening then fails unless the round-1 commitment was made to it).
    #[doc(hidden)]
    pub fn extend_feldman_for_test(&mut self) {
        self.feldman.push(ProjectivePoint::GENERATOR);
    }

    /// Fault-injection hook: drops a base-OT point (a wrong-length vector), if the message
    /// carries a base-OT answer.
    #[doc(hidden)]
    pub fn truncate_base_ot_for_test(&mut self) {
        if let Some(b) = self.base_ot.as_mut() {
            b.truncate_for_test();
        }
    }
}

impl DkgMsg3 {
    /// Canonical encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(MSG3_TAG, VERSION);
        self.ote.write(&mut w);
        w.into_bytes()
    }

    /// Decodes a message from `from` (errors name `from`).
    pub fn from_bytes(from: PartyId, bytes: &[u8]) -> Result<Self> {
        let f = malformed(from);
        let mut r = Reader::new("DKG round 3", bytes);
        r.header(MSG3_TAG, VERSION).map_err(&f)?;
        let ote = OteMsg::read(&mut r, 64).map_err(&f)?;
        r.finish().map_err(&f)?;
        Ok(DkgMsg3 { ote })
    }

    /// Fault-injection hook: flips a bit of the bootstrap extension (an inconsistent OT
    /// extension message).
    #[doc(hidden)]
    pub fn corrupt_for_test(&mut self) {
        self.ote.corrupt_for_test(7, 3);
    }
}

/// Reads an Ed25519 verifying key: a valid point encoding, not of small order.
pub(crate) fn read_identity(
    r: &mut Reader<'_>,
) -> core::result::Result<VerifyingKey, quorate_core::DecodeError> {
    let what = "Ed25519 identity key";
    let bytes: [u8; 32] = r.array()?;
    let vk = VerifyingKey::from_bytes(&bytes)
        .map_err(|_| quorate_core::DecodeError::InvalidPoint { what })?;
    if vk.is_weak() {
        return Err(quorate_core::DecodeError::Identity { what });
    }
    Ok(vk)
}

fn read_flag(
    r: &mut Reader<'_>,
    what: &'static str,
) -> core::result::Result<bool, quorate_core::DecodeError> {
    match r.array::<1>()? {
        [0] => Ok(false),
        [1] => Ok(true),
        _ => Err(quorate_core::DecodeError::InvalidValue {
            what,
            reason: "presence flag must be 0 or 1",
        }),
    }
}
