//! Key-generation round 1: sample the polynomial, commit to the opening, announce the
//! identity key of the new share, sign the broadcast digest, and send the base-OT sender message of every pair where this party is the
//! higher index.

use super::agreement::{broadcast_digest, sign_digest};
use super::messages::DkgMsg1;
use super::setup::{
    commitment, encode_reveal, others, Mode, PROOF_LABEL, RESTORE_PROOF_LABEL, TAG_KEY_ID,
    TAG_PAIR, TAG_SETUP,
};
use crate::curve::{base_mul, tagged_hash, DlogProof};
use crate::error::Result;
use crate::evidence::SignedDigest;
use crate::keyshare::{pair_sid, KeyShare};
use crate::ot::base::{self, BaseOtSender};
use ed25519_dalek::{SigningKey, VerifyingKey};
use k256::elliptic_curve::Field;
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::Writer;
use quorate_core::poly::SecretPolynomial;
use quorate_core::transcript::SessionId;
use quorate_core::ParamError;
use quorate_core::{PartyId, ThresholdParams};
use rand_core::CryptoRngCore;
use std::collections::BTreeMap;

/// State after round 1.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub struct DkgRound1 {
    pub(crate) params: ThresholdParams,
    pub(crate) me: PartyId,
    pub(crate) mode: Mode,
    pub(crate) setup_sid: [u8; 32],
    pub(crate) key_id: [u8; 32],
    pub(crate) poly: SecretPolynomial<Scalar>,
    pub(crate) feldman: Vec<ProjectivePoint>,
    pub(crate) proof: Option<DlogProof>,
    pub(crate) chain: [u8; 32],
    pub(crate) salt: [u8; 32],
    pub(crate) ot_senders: BTreeMap<PartyId, BaseOtSender>,
    pub(crate) session: SessionId,
    /// The key that signs this run's broadcasts and acknowledgement (the keygen identity
    /// key, or the current epoch's key in a refresh).
    pub(crate) signer: SigningKey,
    /// The keys that sign this run (`roster[k]` is party `k + 1`'s).
    pub(crate) roster: Vec<VerifyingKey>,
    /// The identity key of the new share (the same as `signer` in key generation).
    pub(crate) next_identity: SigningKey,
    /// This party's signed broadcast digest.
    pub(crate) own_digest: SignedDigest,
    /// The parties restored from an escrowed share (see [`super::restore`]), whose roster
    /// slot carries their roster key instead of their lost epoch identity key.
    pub(crate) restored: Vec<PartyId>,
}

impl core::fmt::Debug for DkgRound1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DkgRound1")
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

/// Fault injection (feature `test-faults`): how a malicious party deviates in key generation.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DkgFault {
    /// Honest.
    None,
    /// Commits to (and reveals) a Feldman vector one longer than `t` (raising the degree).
    #[cfg(any(test, feature = "test-faults"))]
    LongVector,
    /// Commits to (and reveals) an invalid proof of knowledge.
    #[cfg(any(test, feature = "test-faults"))]
    BadProof,
    /// A restored party ([`super::restore_round1_faulty`]) sends no proof of knowledge of
    /// its old share (what a restored party sent before the proof existed).
    #[cfg(any(test, feature = "test-faults"))]
    RestoreNoProof,
    /// A restored party proves knowledge of another scalar than its old share `x_j` (an
    /// impostor holding the roster key but not `x_j`).
    #[cfg(any(test, feature = "test-faults"))]
    RestoreWrongSecret,
}

fn key_id(params: ThresholdParams, session: &SessionId) -> [u8; 32] {
    tagged_hash(
        TAG_KEY_ID,
        &[
            session.as_bytes(),
            &params.t().to_be_bytes(),
            &params.n().to_be_bytes(),
        ],
    )
}

/// Starts key generation for party `me` of `params`. `session` must be agreed by all
/// parties and unique per run, never reused even to retry a failed run: a party whose
/// identity key signed two runs under one session id can be framed as an equivocator
/// (it determines the key id). `identity` is this party's Ed25519
/// identity key (the node's own or one made for this key) and `roster` every party's
/// identity verifying key (`roster[k]` is party `k + 1`'s, agreed beforehand): they sign the
/// broadcasts and the agreement step, identify an equivocator, and stay in the share for
/// signing and the next refresh.
pub fn round1(
    params: ThresholdParams,
    me: PartyId,
    session: &SessionId,
    identity: SigningKey,
    roster: &[VerifyingKey],
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    round1_with(params, me, session, identity, roster, DkgFault::None, rng)
}

fn round1_with(
    params: ThresholdParams,
    me: PartyId,
    session: &SessionId,
    identity: SigningKey,
    roster: &[VerifyingKey],
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    check_roster(params, me, &identity, roster)?;
    let id = key_id(params, session);
    let keys = Keys {
        signer: identity.clone(),
        roster: roster.to_vec(),
        next: identity,
    };
    start(
        params,
        me,
        Mode::Keygen,
        id,
        0,
        session,
        keys,
        Vec::new(),
        fault,
        rng,
    )
}

/// The roster has one valid, distinct key per party, and `me`'s is `identity`'s.
fn check_roster(
    params: ThresholdParams,
    me: PartyId,
    identity: &SigningKey,
    roster: &[VerifyingKey],
) -> Result<()> {
    if roster.len() != usize::from(params.n()) {
        return Err(ParamError::LengthMismatch {
            what: "identity roster",
            expected: usize::from(params.n()),
            got: roster.len(),
        }
        .into());
    }
    if roster.get(me.position()) != Some(&identity.verifying_key()) {
        return Err(ParamError::Invalid("identity key is not this party's roster key").into());
    }
    for (k, vk) in roster.iter().enumerate() {
        if vk.is_weak() || roster[..k].contains(vk) {
            return Err(
                ParamError::Invalid("identity roster keys must be valid and distinct").into(),
            );
        }
    }
    Ok(())
}

/// The signing keys of a run.
struct Keys {
    signer: SigningKey,
    roster: Vec<VerifyingKey>,
    next: SigningKey,
}

/// Fault-injection variant of [`round1`] (feature `test-faults`).
#[cfg(any(test, feature = "test-faults"))]
pub fn round1_faulty(
    params: ThresholdParams,
    me: PartyId,
    session: &SessionId,
    identity: SigningKey,
    roster: &[VerifyingKey],
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    round1_with(params, me, session, identity, roster, fault, rng)
}

/// Starts a proactive refresh of `share` (all `n` parties take part); the following rounds
/// are [`super::round2`], [`super::round3`], [`super::round4`] and [`super::certify`], and
/// the result is a [`super::PendingRefresh`] that becomes current with
/// [`super::PendingRefresh::commit`]. The public key, key id and chain code are kept;
/// shares and every pairwise OT seed are replaced. The run is signed with the share's
/// current identity key, and announces `next_identity`, this party's identity key for the
/// new epoch (the identity keys rotate at every refresh; pass a fresh key). `session` must
/// be unique per run (a retry takes a new one); the share refuses one it already used.
pub fn refresh_round1(
    share: &KeyShare,
    session: &SessionId,
    next_identity: SigningKey,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    start_refresh(
        share,
        share.identities.clone(),
        Vec::new(),
        session,
        next_identity,
        DkgFault::None,
        rng,
    )
}

/// A refresh of `share` signed under `roster` (the share's identity keys, with the roster
/// key of every `restored` party in its slot). If `share`'s own party is among `restored`,
/// its opening carries the proof of knowledge of its old share (see [`super::restore`]).
pub(crate) fn start_refresh(
    share: &KeyShare,
    roster: Vec<VerifyingKey>,
    restored: Vec<PartyId>,
    session: &SessionId,
    next_identity: SigningKey,
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    if next_identity.verifying_key().is_weak() {
        return Err(ParamError::Invalid("next identity key is weak").into());
    }
    let keys = Keys {
        signer: share.identity.clone(),
        roster,
        next: next_identity,
    };
    start(
        share.params,
        share.id,
        Mode::Refresh(Box::new(share.clone())),
        share.key_id,
        share.epoch + 1,
        session,
        keys,
        restored,
        fault,
        rng,
    )
}

#[allow(clippy::too_many_arguments)]
fn start(
    params: ThresholdParams,
    me: PartyId,
    mode: Mode,
    key_id: [u8; 32],
    epoch: u64,
    session: &SessionId,
    keys: Keys,
    restored: Vec<PartyId>,
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
    if session.as_bytes().len() > crate::evidence::MAX_SESSION {
        return Err(ParamError::Invalid("session id longer than 4096 bytes").into());
    }
    let setup_sid = tagged_hash(
        TAG_SETUP,
        &[&key_id, &epoch.to_be_bytes(), session.as_bytes()],
    );
    // A refresh signs its broadcasts under `setup_sid` with the current identity key: two
    // runs under one session id would give two signed, different digests for one statement,
    // which another party could present as an equivocation. The share refuses a reuse.
    if let Mode::Refresh(old) = &mode {
        if !old.record_signed_session(setup_sid) {
            return Err(ParamError::Invalid(
                "this share already ran a refresh with this session id",
            )
            .into());
        }
    }
    #[cfg(any(test, feature = "test-faults"))]
    let extra = usize::from(fault == DkgFault::LongVector);
    #[cfg(not(any(test, feature = "test-faults")))]
    let extra = usize::from(fault != DkgFault::None);
    let degree = usize::from(params.t()) - 1 + extra;
    let (poly, feldman, proof) = match mode {
        Mode::Keygen => {
            let poly =
                SecretPolynomial::random_with_constant(Scalar::random(&mut *rng), degree, rng);
            let feldman: Vec<_> = poly.coefficients().iter().map(base_mul).collect();
            #[cfg(any(test, feature = "test-faults"))]
            let secret = if fault == DkgFault::BadProof {
                Scalar::ONE
            } else {
                poly.constant()
            };
            #[cfg(not(any(test, feature = "test-faults")))]
            let secret = poly.constant();
            let proof = DlogProof::prove(PROOF_LABEL, &setup_sid, me, &secret, &feldman[0], rng);
            (poly, feldman, Some(proof))
        }
        Mode::Refresh(ref old) => {
            let poly = SecretPolynomial::random_zero_sharing(degree, rng);
            let feldman: Vec<_> = poly.coefficients().iter().skip(1).map(base_mul).collect();
            // A restored party proves that it knows its old share `x_me` for `T_me`: the
            // roster key alone must not be enough to take its slot (see `super::restore`).
            let proof = if restored.contains(&me) {
                restore_proof(old, &setup_sid, fault, rng)?
            } else {
                None
            };
            (poly, feldman, proof)
        }
    };
    let identity_pub = keys.next.verifying_key();
    let mut chain = [0u8; 32];
    rng.fill_bytes(&mut chain);
    let mut salt = [0u8; 32];
    rng.fill_bytes(&mut salt);
    let com = commitment(&setup_sid, me, &feldman, &proof, &chain, &salt);
    let mut opening = Writer::new();
    encode_reveal(&mut opening, &feldman, &proof, &chain, &salt);
    let digest = broadcast_digest(&setup_sid, me, &com, &identity_pub, &opening.into_bytes());
    let own_digest = sign_digest(&keys.signer, &setup_sid, me, digest);
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
            session: session.clone(),
            signer: keys.signer,
            roster: keys.roster,
            next_identity: keys.next,
            own_digest,
            restored,
        },
        out,
    ))
}

/// The restored party's Schnorr proof of knowledge of its old share `x_me` for
/// `T_me = x_me·G`, Fiat–Shamir bound (merlin, [`DlogProof`]) to the protocol and its
/// version, `setup_sid` (which hashes the key id, the new epoch and the session id), the
/// label [`RESTORE_PROOF_LABEL`], the prover's party id and `T_me`.
fn restore_proof(
    old: &KeyShare,
    setup_sid: &[u8; 32],
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<Option<DlogProof>> {
    let me = old.id;
    let t_me = old.public_share(me).ok_or(ParamError::UnknownParty {
        id: me,
        n: old.params.n(),
    })?;
    #[allow(unused_mut)]
    let mut x = old.secret;
    #[cfg(any(test, feature = "test-faults"))]
    match fault {
        DkgFault::RestoreNoProof => {
            zeroize::Zeroize::zeroize(&mut x);
            return Ok(None);
        }
        DkgFault::RestoreWrongSecret => x += Scalar::ONE,
        _ => {}
    }
    #[cfg(not(any(test, feature = "test-faults")))]
    let _ = fault;
    let proof = DlogProof::prove(RESTORE_PROOF_LABEL, setup_sid, me, &x, &t_me, rng);
    zeroize::Zeroize::zeroize(&mut x);
    Ok(Some(proof))
}
