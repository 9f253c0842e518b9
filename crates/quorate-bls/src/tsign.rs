//! TSign: partial signatures and their verified combination.
//!
//! `σ_i = σ_i^hot − σ_i^cold = x_i·H(m)`. The combiner checks every `σ_i` against
//! `vs_i = x_i·g2` before combining, optimistically in one batch
//! `e(Σ r_i·σ_i, g2) = e(H(m), Σ r_i·vs_i)` with random 128-bit `r_i` (two pairings). If the
//! batch fails it checks each partial alone and aborts naming every culprit. It then
//! combines `σ = Σ λ_i(0)·σ_i` over the first `t` partials (Lagrange at 0 on the points
//! `z_i`) and checks `σ` under `vk` like any standard verifier would.

use crate::ciphersuite::{hash_message, Signature};
use crate::error::BlsError;
use crate::group::GroupPublic;
use crate::kzg::{random_u128_scalar, Crs};
use crate::msm::{g1_msm_vartime, g2_msm_vartime};
use crate::pairing::pairing_product_is_identity;
use crate::wire::{g1_to_bytes, ReadBls, G1_BYTES};
use blstrs::{G1Projective, G2Affine, Scalar};
use group::prime::PrimeCurveAffine;
use group::Curve;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::lagrange::coefficients_at_zero;
use quorate_core::{Blame, DecodeError, PartyId};
use rand_core::{CryptoRng, RngCore};

/// A partial signature `σ_i = x_i·H(m)` of party `i`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PartialSignature {
    pub(crate) index: PartyId,
    pub(crate) epoch: u64,
    pub(crate) point: G1Projective,
}

const TAG_PARTIAL: u8 = 0x05;
const VERSION: u8 = 1;

impl PartialSignature {
    /// Encoded size in bytes (header, index, epoch, compressed G1).
    pub const BYTES: usize = 2 + 2 + 8 + G1_BYTES;

    /// The signer.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// The refresh epoch of the share that produced it.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The point `σ_i`.
    pub fn point(&self) -> &G1Projective {
        &self.point
    }

    /// Encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_PARTIAL, VERSION)
            .party(self.index)
            .u64(self.epoch)
            .bytes(&g1_to_bytes(&self.point));
        w.into_bytes()
    }

    /// Checked decoding (the identity is rejected: `x_i = 0` has negligible probability).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("partial signature", bytes);
        r.header(TAG_PARTIAL, VERSION)?;
        let index = r.party()?;
        let epoch = r.u64()?;
        let point = r.g1("partial signature point")?;
        r.finish()?;
        Ok(PartialSignature {
            index,
            epoch,
            point,
        })
    }
}

/// Checks each partial against its `vs_i`, in one batch; names every culprit on failure.
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
    if let Some(p) = partials.iter().find(|p| p.epoch != public.epoch) {
        // A share from another epoch is a synchronisation problem, not misbehaviour.
        return Err(BlsError::EpochMismatch {
            index: p.index,
            expected: public.epoch,
            got: p.epoch,
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
        return Err(BlsError::InvalidProof {
            check: "partial-signature batch failed but no single partial did",
        });
    }
    Err(BlsError::Aborted(Blame::many(
        culprits,
        "partial signature does not verify against vs_i",
    )))
}

/// Verifies the partials and combines the first `t` of them into a standard BLS
/// signature on `msg` under `vk`. Fewer than `t` partials, unknown or repeated indices
/// are parameter errors; bad partials abort with their culprits named.
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
    verify_partials(public, msg, partials, rng)?;
    let chosen = &partials[..usize::from(public.params.t())];
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
        return Err(BlsError::InvalidRegistration {
            check: "combined signature does not verify: inconsistent verification shares",
        });
    }
    Ok(sigma)
}
