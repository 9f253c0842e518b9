//! Signing round 1: sample `r_i`, `φ_i`; send each co-signer a commitment to `R_i` and, as
//! multiplication receiver (Bob) of the pair where the co-signer is Alice, the
//! OT-extension message for a random `χ`.

use super::messages::SignMsg1;
use super::session::{child_rngs, commit_r, TAG_MUL, TAG_SIGN};
use crate::curve::{base_mul, point_bytes, tagged_hash, POINT_LEN};
use crate::error::Result;
use crate::keyshare::{pair_sid, KeyShare};
use crate::mul::{self, MulReceiver};
use crate::ot::ext::OteMsg;
use k256::elliptic_curve::Field;
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::Writer;
use quorate_core::party::check_distinct;
use quorate_core::transcript::SessionId;
use quorate_core::{ParamError, PartyId};
use rand_core::CryptoRngCore;
use rayon::prelude::*;
use std::collections::BTreeMap;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// How a signer deviates in round 1 (fault injection; the public hooks exist only with the
/// `test-faults` feature, a normal build always passes `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round1Fault {
    /// Honest.
    None,
    /// The OT-extension message uses inconsistent choice bits in every column (detected by
    /// the KOS check of each counterparty).
    #[cfg(any(test, feature = "test-faults"))]
    MaliciousOte,
    /// The OT-extension message towards every counterparty deviates in this one column and
    /// is otherwise honest: the counterparty's KOS check passes exactly when that bit of its
    /// `Δ` is 0 (a selective-failure probe; a pass leaves a correct multiplication).
    #[cfg(any(test, feature = "test-faults"))]
    OteColumn(u8),
    /// Equivocates `R_i`: towards the victim the signer commits to (and in round 2 opens,
    /// with a multiplication input to match) `R'_i = R_i + G`, towards everyone else to
    /// `R_i`. Every pairwise check passes; the echo digests differ and the dispute names
    /// the signer.
    #[cfg(any(test, feature = "test-faults"))]
    EquivocateR(PartyId),
}

/// State after round 1 (consumed by [`super::round2`]).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct SignRound1 {
    #[zeroize(skip)]
    pub(crate) me: PartyId,
    #[zeroize(skip)]
    pub(crate) signers: Vec<PartyId>,
    #[zeroize(skip)]
    pub(crate) sign_id: Vec<u8>,
    pub(crate) sid: [u8; 32],
    pub(crate) r_i: Scalar,
    pub(crate) phi_i: Scalar,
    /// The coefficient with which round 3 batches the two `Γ` checks of every
    /// counterparty (see [`super::round3`]): secret, never sent, drawn before any
    /// counterparty's round-2 message exists.
    pub(crate) rho: Scalar,
    #[zeroize(skip)]
    pub(crate) big_r: ProjectivePoint,
    pub(crate) big_r_bytes: [u8; POINT_LEN],
    pub(crate) salt: [u8; 32],
    #[zeroize(skip)]
    pub(crate) receivers: BTreeMap<PartyId, MulReceiver>,
    /// Fault injection only ([`Round1Fault::EquivocateR`]): the victim and `R'_i`.
    #[zeroize(skip)]
    pub(crate) alt_r: Option<(PartyId, ProjectivePoint, [u8; POINT_LEN])>,
}

impl core::fmt::Debug for SignRound1 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SignRound1")
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

/// Round 1. `session` must be agreed by the signers and should be unique per signing
/// session (it separates sessions); secrecy does not depend on its uniqueness, because every
/// OT extension and multiplication mixes in fresh randomness of the honest party (see the
/// crate notes, "Session-id reuse"). Identifiable abort does: with three or more signers
/// [`super::round2`] signs a body at most once per session id and refuses a reused one.
/// `signers` is the signing set (at least `t` distinct parties including this one).
pub fn round1(
    share: &KeyShare,
    session: &SessionId,
    signers: &[PartyId],
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    round1_inner(share, session, signers, Round1Fault::None, rng)
}

/// Fault-injection variant of [`round1`] (feature `test-faults`).
#[cfg(any(test, feature = "test-faults"))]
pub fn round1_faulty(
    share: &KeyShare,
    session: &SessionId,
    signers: &[PartyId],
    fault: Round1Fault,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    round1_inner(share, session, signers, fault, rng)
}

fn round1_inner(
    share: &KeyShare,
    session: &SessionId,
    signers: &[PartyId],
    fault: Round1Fault,
    rng: &mut impl CryptoRngCore,
) -> Result<(SignRound1, Vec<(PartyId, SignMsg1)>)> {
    let sign_id = session.as_bytes();
    share.params.check_quorum(signers)?;
    check_distinct(signers)?;
    if !signers.contains(&share.id) {
        return Err(ParamError::Invalid("the signing set must include this party").into());
    }
    let mut signers = signers.to_vec();
    signers.sort_unstable();
    let me = share.id;
    let mut set = Writer::new();
    for s in &signers {
        set.party(*s);
    }
    let sid = tagged_hash(
        TAG_SIGN,
        &[
            &share.key_id,
            &share.epoch.to_be_bytes(),
            &share.public_key_bytes(),
            sign_id,
            &set.into_bytes(),
        ],
    );
    let others: Vec<PartyId> = signers.iter().copied().filter(|j| *j != me).collect();
    for j in &others {
        share.pair(*j)?;
    }
    let mut r_i = Scalar::random(&mut *rng);
    let mut phi_i = Scalar::random(&mut *rng);
    let mut rho = Scalar::random(&mut *rng);
    let big_r = base_mul(&r_i);
    let mut salt = [0u8; 32];
    rng.fill_bytes(&mut salt);
    let big_r_bytes = point_bytes(&big_r);
    let commitment = commit_r(&sid, me, &big_r_bytes, &salt);
    // Fault injection only: R'_i = R_i + G towards the victim.
    let alt_r = match fault {
        #[cfg(any(test, feature = "test-faults"))]
        Round1Fault::EquivocateR(v) => {
            let p = big_r + ProjectivePoint::GENERATOR;
            Some((v, p, point_bytes(&p)))
        }
        _ => None,
    };
    let rngs = child_rngs(rng, others.len());
    let results: Vec<Result<(PartyId, MulReceiver, OteMsg)>> = others
        .par_iter()
        .zip(rngs)
        .map(|(j, mut r)| {
            let seeds = share.pair(*j)?;
            let recv_seeds = &seeds.receiver;
            let psid = pair_sid(TAG_MUL, &sid, *j, me);
            let (st, ote) = match fault {
                #[cfg(any(test, feature = "test-faults"))]
                Round1Fault::MaliciousOte => {
                    mul::receiver_round1_malicious(recv_seeds, &psid, u128::MAX, &mut r)
                }
                #[cfg(any(test, feature = "test-faults"))]
                Round1Fault::OteColumn(c) => {
                    mul::receiver_round1_malicious(recv_seeds, &psid, 1u128 << (c % 128), &mut r)
                }
                _ => mul::receiver_round1(recv_seeds, &psid, &mut r),
            };
            Ok((*j, st, ote))
        })
        .collect();
    let mut receivers = BTreeMap::new();
    let mut out = Vec::with_capacity(others.len());
    for res in results {
        let (j, st, ote) = res?;
        receivers.insert(j, st);
        let commitment = match &alt_r {
            Some((v, _, bytes)) if *v == j => commit_r(&sid, me, bytes, &salt),
            _ => commitment,
        };
        out.push((j, SignMsg1 { commitment, ote }));
    }
    let state = SignRound1 {
        me,
        signers,
        sign_id: sign_id.to_vec(),
        sid,
        r_i,
        phi_i,
        rho,
        big_r,
        big_r_bytes,
        salt,
        receivers,
        alt_r,
    };
    // The state holds the secrets now (wiped on drop); wipe the locals' copies.
    r_i.zeroize();
    phi_i.zeroize();
    rho.zeroize();
    Ok((state, out))
}
