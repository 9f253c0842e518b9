//! Key-generation round 3: verify every opening, vector length, proof and share (a failure
//! names its sender), finish the base OTs, aggregate the share, and send the OT-extension
//! message that bootstraps the reverse direction of each pair to the lower-index party.

use super::agreement::{broadcast_digest, digest_signed_by};
use super::messages::{DkgMsg2, DkgMsg3};
use super::round1::DkgRound1;
use super::round2::DkgRound2;
use super::setup::{
    collect, commitment, encode_reveal, eval_commitment, others, per_party_rngs, Mode, PROOF_LABEL,
    RESTORE_PROOF_LABEL, TAG_BOOT, TAG_CHAIN, TAG_TRANSCRIPT,
};
use crate::curve::{base_mul, tagged_hash, write_point};
use crate::error::{EcdsaError, Result};
use crate::evidence::SignedDigest;
use crate::keyshare::{pair_sid, KeyShare, PairSeeds, PairStore};
use crate::ot::base;
use crate::ot::ext::{self, OteReceiverSeeds, OteSenderSeeds};
use ed25519_dalek::{SigningKey, VerifyingKey};
use k256::{ProjectivePoint, Scalar};
use quorate_core::encoding::Writer;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use rand_core::CryptoRngCore;
use rayon::prelude::*;
use std::collections::BTreeMap;
use subtle::ConstantTimeEq;

/// State after round 3: the verified share, waiting for the bootstrap messages of the
/// higher-index parties.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub struct DkgRound3 {
    pub(crate) share: KeyShare,
    pub(crate) setup_sid: [u8; 32],
    /// For `j > me`: our extension-sender seeds towards `j` (from the base OTs).
    pub(crate) forward: BTreeMap<PartyId, OteSenderSeeds>,
    /// For `j < me`: the finished seeds of both directions.
    pub(crate) ready: BTreeMap<PartyId, PairSeeds>,
    /// What the agreement step needs.
    pub(crate) agree: AgreeData,
}

/// The agreement data carried from round 3 to the end of the run.
#[cfg_attr(feature = "fuzzing", derive(Clone))]
pub(crate) struct AgreeData {
    pub(crate) session: SessionId,
    pub(crate) signer: SigningKey,
    pub(crate) roster: Vec<VerifyingKey>,
    /// The signed broadcast digest of every party (own included), in party order.
    pub(crate) digests: Vec<SignedDigest>,
    pub(crate) refresh: bool,
    /// The restored parties of a refresh (see [`super::restore`]).
    pub(crate) restored: Vec<PartyId>,
}

impl core::fmt::Debug for DkgRound3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DkgRound3")
            .field("me", &self.share.id)
            .finish_non_exhaustive()
    }
}

/// Round 3: verifies everything (naming the culprit of any failure), finishes the base OTs
/// and sends the reverse-direction bootstrap message to every lower-index party.
pub fn round3(
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
        proof: _,
        chain,
        salt: _,
        mut ot_senders,
        session,
        signer,
        roster,
        next_identity,
        own_digest,
        restored,
    } = r1;
    let map = collect(params, me, msgs)?;
    let refresh = matches!(mode, Mode::Refresh(_));
    let t = usize::from(params.t());
    let expected_len = if refresh { t - 1 } else { t };
    let x_me = Scalar::from(u64::from(me.get()));
    // Per-party checks, in party order (the first failure is reported).
    let mut digests = BTreeMap::new();
    digests.insert(me, own_digest);
    for (j, m) in &map {
        let j = *j;
        let com = commitments
            .get(&j)
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        let announced = identities
            .get(&j)
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        let mut opening = Writer::new();
        encode_reveal(&mut opening, &m.feldman, &m.proof, &m.chain, &m.salt);
        let signed = SignedDigest {
            digest: broadcast_digest(&setup_sid, j, com, announced, &opening.into_bytes()),
            signature: m.signature,
        };
        let vk = roster
            .get(j.position())
            .ok_or(EcdsaError::MissingMessage { from: j })?;
        let opened = commitment(&setup_sid, j, &m.feldman, &m.proof, &m.chain, &m.salt);
        if !bool::from(opened.ct_eq(com)) {
            return Err(EcdsaError::blame(j, "DKG: commitment opening"));
        }
        if !digest_signed_by(vk, &setup_sid, j, &signed) {
            return Err(EcdsaError::blame(j, "DKG: broadcast signature"));
        }
        digests.insert(j, signed);
        if m.feldman.len() != expected_len {
            return Err(EcdsaError::blame(j, "DKG: Feldman vector length"));
        }
        match (&m.proof, &mode) {
            (Some(p), Mode::Keygen) => {
                if !p.verify(PROOF_LABEL, &setup_sid, j, &m.feldman[0]) {
                    return Err(EcdsaError::blame(j, "DKG: proof of knowledge"));
                }
            }
            (None, Mode::Refresh(_)) if !restored.contains(&j) => {}
            // A restored party proves knowledge of its old share x_j for T_j (see
            // `super::restore`): the roster key alone does not give its slot.
            (Some(p), Mode::Refresh(old)) if restored.contains(&j) => {
                let t_j = old
                    .public_share(j)
                    .ok_or(EcdsaError::MissingMessage { from: j })?;
                if !p.verify(RESTORE_PROOF_LABEL, &setup_sid, j, &t_j) {
                    return Err(EcdsaError::blame(
                        j,
                        "refresh: restored holder's proof of knowledge of x_j",
                    ));
                }
            }
            (None, Mode::Refresh(_)) => {
                return Err(EcdsaError::blame(
                    j,
                    "refresh: restored holder's proof of knowledge of x_j",
                ))
            }
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
    type Finished = (PartyId, PairSeeds, DkgMsg3);
    let finished: Vec<Result<Finished>> = jobs
        .into_par_iter()
        .map(|(j, st, b, mut r)| {
            let receiver: OteReceiverSeeds = base::sender_finish(st, j, b)?.into();
            let boot = pair_sid(TAG_BOOT, &setup_sid, me, j);
            let (sender, ote) = ext::bootstrap_receiver(&receiver, &boot, &mut r);
            Ok((j, PairSeeds { sender, receiver }, DkgMsg3 { ote }))
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
            identity_keys.push(next_identity.verifying_key());
        } else {
            identity_keys.push(
                *identities
                    .get(&k)
                    .ok_or(EcdsaError::MissingMessage { from: k })?,
            );
        }
    }
    let digests: Vec<SignedDigest> = digests.into_values().collect();
    // The transcript hash the agreement step signs: every broadcast digest and everything
    // derived from the broadcasts (public key, every public share T_j, chain code, the
    // identity keys of the new share).
    let mut th = Writer::new();
    for d in &digests {
        th.bytes(&d.digest);
    }
    write_point(&mut th, &public_key);
    for t_j in &public_shares {
        write_point(&mut th, t_j);
    }
    th.bytes(&chain_code).u64(epoch);
    for vk in &identity_keys {
        th.bytes(vk.as_bytes());
    }
    let transcript = tagged_hash(TAG_TRANSCRIPT, &[&setup_sid, &th.into_bytes()]);
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
        pairs: std::sync::Arc::new(PairStore::new(BTreeMap::new())),
        identity: next_identity,
        identities: identity_keys,
    };
    if share.public_share(me) != Some(base_mul(&share.secret))
        || bool::from(k256::elliptic_curve::group::Group::is_identity(&public_key))
    {
        return Err(EcdsaError::ProofRejected(
            "DKG output is inconsistent with its own public share",
        ));
    }
    Ok((
        DkgRound3 {
            share,
            setup_sid,
            forward,
            ready: pairs,
            agree: AgreeData {
                session,
                signer,
                roster,
                digests,
                refresh,
                restored,
            },
        },
        out3,
    ))
}
