//! TSign: partial signatures and their verified combination.
//!
//! `σ_i = σ_i^hot − σ_i^cold = x_i·H(m)`. Each partial names the digest of the record
//! state (epoch, `com_T`, `vs`) its signer holds. The combiner sets aside partials made
//! under another state than its own (their senders are out of step, for example after a
//! client dealt different refreshes to different parties; checking them against the
//! combiner's `vs_i` would blame honest parties) and continues if `t` remain; otherwise it
//! returns [`BlsError::StateMismatch`] naming them, without blame. It checks every
//! remaining `σ_i` against `vs_i = x_i·g2` before combining, optimistically in one batch
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

/// A partial signature `σ_i = x_i·H(m)` of party `i`, tagged with the epoch and digest of
/// the record state its signer holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PartialSignature {
    pub(crate) index: PartyId,
    pub(crate) epoch: u64,
    pub(crate) state: [u8; 32],
    pub(crate) point: G1Projective,
}

const TAG_PARTIAL: u8 = 0x05;
const VERSION: u8 = 1;

impl PartialSignature {
    /// Encoded size in bytes (header, index, epoch, record digest, compressed G1).
    pub const BYTES: usize = 2 + 2 + 8 + 32 + G1_BYTES;

    /// The signer.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// The refresh epoch of the share that produced it.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The digest of the signer's record state ([`GroupPublic::digest`]).
    pub fn state(&self) -> [u8; 32] {
        self.state
    }

    /// The point `σ_i`.
    pub fn point(&self) -> &G1Projective {
        &self.point
    }

    /// Whether this partial declares the given epoch and record digest.
    fn is_for(&self, epoch: u64, digest: &[u8; 32]) -> bool {
        self.epoch == epoch && &self.state == digest
    }

    /// Encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TAG_PARTIAL, VERSION)
            .party(self.index)
            .u64(self.epoch)
            .bytes(&self.state)
            .bytes(&g1_to_bytes(&self.point));
        w.into_bytes()
    }

    /// Checked decoding (the identity is rejected: `x_i = 0` has negligible probability).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new("partial signature", bytes);
        r.header(TAG_PARTIAL, VERSION)?;
        let index = r.party()?;
        let epoch = r.u64()?;
        let state = r.array::<32>()?;
        let point = r.g1("partial signature point")?;
        r.finish()?;
        Ok(PartialSignature {
            index,
            epoch,
            state,
            point,
        })
    }
}

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
