//! Key-generation round 1: sample the polynomial, commit to the opening, announce the
//! identity key, and send the base-OT sender message of every pair where this party is the
//! higher index.

use super::messages::DkgMsg1;
use super::setup::{commitment, others, Mode, PROOF_LABEL, TAG_KEY_ID, TAG_PAIR, TAG_SETUP};
use crate::curve::{base_mul, tagged_hash, DlogProof};
use crate::error::Result;
use crate::keyshare::{pair_sid, KeyShare};
use crate::ot::base::{self, BaseOtSender};
use ed25519_dalek::SigningKey;
use k256::elliptic_curve::Field;
use k256::{ProjectivePoint, Scalar};
use quorate_core::poly::SecretPolynomial;
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use rand_core::CryptoRngCore;
use std::collections::BTreeMap;

/// State after round 1.
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
    pub(crate) identity: SigningKey,
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

/// Starts key generation for party `me` of `params`. `session` must be unique per run and
/// agreed by all parties (it determines the key id).
pub fn round1(
    params: ThresholdParams,
    me: PartyId,
    session: &SessionId,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    let id = key_id(params, session);
    start(
        params,
        me,
        Mode::Keygen,
        id,
        0,
        session,
        DkgFault::None,
        rng,
    )
}

/// Fault-injection variant of [`round1`] (feature `test-faults`).
#[cfg(any(test, feature = "test-faults"))]
pub fn round1_faulty(
    params: ThresholdParams,
    me: PartyId,
    session: &SessionId,
    fault: DkgFault,
    rng: &mut impl CryptoRngCore,
) -> Result<(DkgRound1, Vec<(PartyId, DkgMsg1)>)> {
    let id = key_id(params, session);
    start(params, me, Mode::Keygen, id, 0, session, fault, rng)
}

/// Starts a proactive refresh of `share` (all `n` parties take part); the following rounds
/// are [`super::round2`], [`super::round3`] and [`super::finish`]. The public key, key id
/// and chain code are kept; shares and every pairwise OT seed are replaced.
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
        DkgFault::None,
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
