//! Combine: verify every partial (batched, then one by one to name culprits) and
//! interpolate `σ` at 0.

use crate::ciphersuite::{hash_message, Signature};
use crate::error::BlsError;
use crate::group::GroupPublic;
use crate::kzg::{random_u128_scalar, Crs};
use crate::sign::messages::PartialSignature;
use blstrs::{G1Projective, G2Affine, Scalar};
use group::prime::PrimeCurveAffine;
use group::Curve;
use quorate_core::bls12_381::msm::{g1_msm_vartime, g2_msm_vartime};
use quorate_core::bls12_381::pairing::pairing_product_is_identity;
use quorate_core::lagrange::coefficients_at_zero;
use quorate_core::{Blame, PartyId};
use rand_core::{CryptoRng, RngCore};

/// Checks each partial against its `vs_i`, in one batch; names every culprit on failure.
/// Partials made under another record state are a [`BlsError::StateMismatch`] (use
/// [`combine`], which sets them aside).
pub fn verify_partials<R: RngCore + CryptoRng>(
    public: &GroupPublic,
    msg: &[u8],
    partials: &[PartialSignature],
    rng: &mut R,
) -> Result<(), BlsError> {
    let ids: Vec<PartyId> = partials.iter().map(|p| p.index).collect();
    for id in &ids {
        public.verification_share(*id)?;
    }
    quorate_core::party::check_distinct(&ids)?;
    let digest = public.digest();
    let out_of_step: Vec<PartyId> = partials
        .iter()
        .filter(|p| !p.is_for(public.epoch, &digest))
        .map(|p| p.index)
        .collect();
    if !out_of_step.is_empty() {
        // Another record state is a synchronisation problem, not misbehaviour.
        return Err(BlsError::StateMismatch {
            parties: out_of_step,
            epoch: public.epoch,
        });
    }
    if partials.is_empty() {
        return Ok(());
    }
    let h = hash_message(msg).to_affine();
    let neg_g2 = -G2Affine::generator();
    let r: Vec<Scalar> = partials.iter().map(|_| random_u128_scalar(rng)).collect();
    let sigmas: Vec<G1Projective> = partials.iter().map(|p| p.point).collect();
    let shares: Vec<_> = partials
        .iter()
        .map(|p| public.vs[p.index.position()])
        .collect();
    let lhs = g1_msm_vartime(&sigmas, &r);
    let rhs = g2_msm_vartime(&shares, &r);
    if pairing_product_is_identity(&[(lhs.to_affine(), neg_g2), (h, rhs.to_affine())]) {
        return Ok(());
    }
    let culprits: Vec<PartyId> = partials
        .iter()
        .filter(|p| {
            !pairing_product_is_identity(&[
                (p.point.to_affine(), neg_g2),
                (h, public.vs[p.index.position()].to_affine()),
            ])
        })
        .map(|p| p.index)
        .collect();
    if culprits.is_empty() {
        // Only possible if the batch failed by chance (probability 2^-128 per call).
        return Err(BlsError::ProofRejected(
            "partial-signature batch failed but no single partial did",
        ));
    }
    Err(BlsError::Aborted(Blame::many(
        culprits,
        "partial signature does not verify against vs_i",
    )))
}

/// Verifies the partials and combines the first `t` of them into a standard BLS
/// signature on `msg` under `vk`. Fewer than `t` partials, unknown or repeated indices
/// are parameter errors. Partials tagged with another record state are set aside; if
/// fewer than `t` remain, [`BlsError::StateMismatch`] names their senders (nobody is
/// blamed). Bad partials abort with their culprits named.
pub fn combine<R: RngCore + CryptoRng>(
    crs: &Crs,
    public: &GroupPublic,
    msg: &[u8],
    partials: &[PartialSignature],
    rng: &mut R,
) -> Result<Signature, BlsError> {
    let ids: Vec<PartyId> = partials.iter().map(|p| p.index).collect();
    public.params.check_quorum(&ids)?;
    if crs.id() != public.crs_id {
        return Err(BlsError::InvalidRegistration {
            check: "record was registered under another CRS",
        });
    }
    let digest = public.digest();
    let (current, out_of_step): (Vec<PartialSignature>, Vec<PartialSignature>) = partials
        .iter()
        .partition(|p| p.is_for(public.epoch, &digest));
    let t = usize::from(public.params.t());
    if current.len() < t {
        return Err(BlsError::StateMismatch {
            parties: out_of_step.iter().map(|p| p.index).collect(),
            epoch: public.epoch,
        });
    }
    verify_partials(public, msg, &current, rng)?;
    let chosen = &current[..t];
    let points: Vec<Scalar> = chosen
        .iter()
        .map(|p| crs.domain().party_point(p.index))
        .collect();
    let lambdas = coefficients_at_zero(&points)?;
    let sigmas: Vec<G1Projective> = chosen.iter().map(|p| p.point).collect();
    let sigma = Signature(g1_msm_vartime(&sigmas, &lambdas));
    if !public.vk.verify(msg, &sigma) {
        // Unreachable when every partial verified and vs is a valid degree t−1 sharing
        // (GroupPublic::validate); kept as a last line of defence.
        return Err(BlsError::ProofRejected(
            "combined signature does not verify: inconsistent verification shares",
        ));
    }
    Ok(sigma)
}
