//! ClientRegister: checks the cold keys ([`VerifiedColdKeys`]) and deals the hot shares.
//!
//! ClientRegister (notes §ClientRegister):
//! 1. Shamir: `f(0) = sk`, `deg f = t−1`, `x_i = f(z_i)` with `z_i = ω^(i−1)`.
//! 2. Pads `k_i` from `sk·ek_i` ([`crate::cold`]); hot shares `hx_i = x_i + k_i`.
//! 3. `T` = the polynomial of degree `< n` with `T(z_i) = hx_i` for `i ≤ n`
//!    ([`crate::kzg::Domain::interpolate_prefix`]), `com_T = [T(τ)]_1`.
//! 4. All openings `π_i` at once by Feist–Khovratovich.
//! 5. `vs_i = x_i·g2`, and a proof of possession of `vk`.
//! 6. The client's authorisation: its BLS signature on the record digest under
//!    [`DST_REGISTER`], which each hot party checks with its own opening.

use crate::client::Client;
use crate::cold::derive_pad;
use crate::error::BlsError;
use crate::group::GroupPublic;
use crate::kzg::Crs;
use crate::proofs::batch_verify_cold;
use crate::register::cold::registration_context;
use crate::register::messages::{
    registration_message, ColdPublicKey, ColdRegistration, HotRegistration, Registration,
    DST_REGISTER,
};
use blstrs::{G2Affine, G2Projective, Scalar};
use quorate_core::bls12_381::msm::g2_generator_mul_ct;
use quorate_core::bls12_381::normalize::g2_batch_vartime;
use quorate_core::bls12_381::wire::G2_BYTES;
use quorate_core::poly::SecretPolynomial;
use quorate_core::secret::{wipe_field, wipe_fields};
use quorate_core::{ParamError, ThresholdParams};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

/// Cold public keys whose Π_DL proofs the client has checked: the only input
/// [`Client::register`] accepts, so pads are never derived from a key nobody can prove
/// knowledge of (or from a copy of another party's key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedColdKeys(pub(crate) Vec<ColdPublicKey>);

impl VerifiedColdKeys {
    /// Checks registrations `regs[i−1]` of parties `1..=n`: indices in order, distinct
    /// keys, and every Π_DL proof (one batched check; on failure each proof alone, naming
    /// every culprit).
    pub fn verify<R: RngCore + CryptoRng>(
        regs: &[ColdRegistration],
        rng: &mut R,
    ) -> Result<Self, BlsError> {
        for (pos, reg) in regs.iter().enumerate() {
            if reg.index.position() != pos {
                return Err(
                    ParamError::Invalid("cold registrations must be in index order 1..=n").into(),
                );
            }
            if regs[..pos].iter().any(|other| other.ek == reg.ek) {
                return Err(BlsError::blame(
                    reg.index,
                    "cold key repeats another party's key",
                ));
            }
        }
        let items: Vec<_> = regs.iter().map(|r| (r.index, r.ek.0, r.proof)).collect();
        batch_verify_cold(&items, &registration_context(), rng)?;
        Ok(VerifiedColdKeys(regs.iter().map(|r| r.ek).collect()))
    }

    /// The keys, `ek_1..ek_n`.
    pub fn keys(&self) -> &[ColdPublicKey] {
        &self.0
    }
}

impl Client {
    /// ClientRegister for `params` with checked cold keys `ek_1..ek_n`.
    pub fn register<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        params: ThresholdParams,
        cold_keys: &VerifiedColdKeys,
        rng: &mut R,
    ) -> Result<Registration, BlsError> {
        let cold_keys = cold_keys.keys();
        let n = usize::from(params.n());
        crs.check_parties(params.n())?;
        if cold_keys.len() != n {
            return Err(ParamError::LengthMismatch {
                what: "cold public keys",
                expected: n,
                got: cold_keys.len(),
            }
            .into());
        }
        for (i, a) in cold_keys.iter().enumerate() {
            if cold_keys[..i].contains(a) {
                return Err(ParamError::Invalid(
                    "two parties use the same cold key: the pads would collide",
                )
                .into());
            }
        }
        let domain = crs.domain();
        let points = domain.party_points(params.n());
        let f = SecretPolynomial::random_with_constant(
            *self.sk.scalar(),
            usize::from(params.t()) - 1,
            rng,
        );
        let sk = self.sk.scalar();
        // The public encodings the pads hash: `vk` once, every `ek_i` in one batched
        // affine conversion (public points, so variable time is fine).
        let vk_bytes = self.vk.to_bytes();
        let ek_points: Vec<G2Projective> = cold_keys.iter().map(|ek| *ek.point()).collect();
        let ek_bytes: Vec<[u8; G2_BYTES]> = g2_batch_vartime(&ek_points)
            .iter()
            .map(G2Affine::to_compressed)
            .collect();

        // Per party: x_i, the pad k_i (one G2 multiplication), hx_i and vs_i = x_i·g2.
        let mut per_party: Vec<(Scalar, G2Projective)> = points
            .par_iter()
            .zip(cold_keys.par_iter().zip(ek_bytes.par_iter()))
            .zip(params.parties().collect::<Vec<_>>().into_par_iter())
            .map(|((z, (ek, ek_bytes)), id)| {
                let mut x = f.evaluate(z);
                let dh = ek.point() * sk;
                let mut pad = derive_pad(&dh, &vk_bytes, ek_bytes, id);
                let hx = x + pad;
                let vs = g2_generator_mul_ct(&x);
                wipe_field(&mut x);
                wipe_field(&mut pad);
                (hx, vs)
            })
            .collect();
        let mut values: Vec<Scalar> = per_party.iter().map(|(hx, _)| *hx).collect();
        let vs = per_party.iter().map(|(_, v)| *v).collect();
        let mut coeffs = domain.interpolate_prefix(&values)?;
        wipe_fields(&mut values);
        let com_t = crs.commit_ct(&coeffs)?;
        let openings = crs.open_parties_ct(&coeffs, params.n())?;
        wipe_fields(&mut coeffs);

        let payloads = per_party
            .iter()
            .zip(params.parties())
            .zip(openings)
            .map(|(((hot_share, _), index), opening)| HotRegistration {
                index,
                hot_share: *hot_share,
                opening,
            })
            .collect();
        for (hx, _) in per_party.iter_mut() {
            wipe_field(hx);
        }
        let public = GroupPublic::new(
            crs.id(),
            params,
            0,
            self.vk,
            self.proof_of_possession(),
            com_t,
            vs,
        );
        let authorization = self
            .sk
            .sign_with_dst(&registration_message(&public.digest()), DST_REGISTER);
        Ok(Registration {
            public,
            authorization,
            payloads,
        })
    }
}
