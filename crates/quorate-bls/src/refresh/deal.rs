//! Step 1: the client deals a refresh (notes §Refresh).
//!
//! Refresh ([`Client::refresh`](crate::Client::refresh)) is dealt and signed by the client, who plays the paper's
//! trusted functionality `F_s`; the record maintainer nevertheless checks all of it, and
//! every hot party the part that protects its own share, before anyone commits it (the
//! reference's "untrusted" checks, here mandatory). So a faulty or malicious client cannot
//! break the sharing through a refresh **while the record maintainer is honest**; a
//! corrupt maintainer together with the client can (availability of the client's own key
//! only: notes §Refresh, "Who checks what"). The signature and the digest of the current
//! record stop anyone else from dealing or replaying one.

use crate::ciphersuite::SecretKey;
use crate::client::Client;
use crate::error::BlsError;
use crate::group::GroupPublic;
use crate::kzg::Crs;
use crate::refresh::messages::{
    authorization_message, Refresh, RefreshPublic, RefreshShare, DST_REFRESH,
};
use quorate_core::bls12_381::msm::g2_generator_mul_ct;

use blstrs::{G2Projective, Scalar};
use ff::Field;
use quorate_core::poly::SecretPolynomial;
use quorate_core::secret::wipe_fields;
use quorate_core::ParamError;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

impl Client {
    /// Deals a refresh of `current` (notes §Refresh): a random `δ` with `δ(0) = 0`,
    /// `deg δ ≤ t−1`; `C_δ`, the zero opening `π_0 = [δ(τ)/τ]_1`, the degree proof
    /// `[δ(τ)·τ^(D−t+1)]_1`, `Δvs_j = δ_j·g2`, the openings `π_δ,j` ([`Crs::open_parties_ct`]), the digest of
    /// `current` and the client's authorisation signature over all of it.
    pub fn refresh<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        current: &GroupPublic,
        rng: &mut R,
    ) -> Result<Refresh, BlsError> {
        let t = usize::from(current.params.t());
        deal_refresh(
            &self.sk,
            crs,
            current,
            current.epoch.wrapping_add(1),
            SecretPolynomial::random_zero_sharing(t - 1, rng),
        )
    }
}

/// Deals a refresh from a given polynomial without checking it (the checks are the
/// receivers' job). Used by [`Client::refresh`] and by tests that play a cheating dealer.
pub(crate) fn deal_refresh(
    sk: &SecretKey,
    crs: &Crs,
    current: &GroupPublic,
    epoch: u64,
    delta: SecretPolynomial<Scalar>,
) -> Result<Refresh, BlsError> {
    let params = current.params;
    crs.check_parties(params.n())?;
    let coeffs = delta.coefficients();
    let size = crs.domain().size();
    if coeffs.len() > size {
        return Err(ParamError::Invalid("refresh polynomial exceeds the CRS").into());
    }
    let delta_commitment = crs.commit_ct(coeffs)?;
    let zero_proof = crs.commit_ct(coeffs.get(1..).unwrap_or(&[]))?;
    let shift = crs.max_degree() + 1 - usize::from(params.t());
    // A dishonest δ of higher degree cannot be shifted that far; commit what fits so the
    // receivers see (and reject) a wrong degree proof.
    let degree_proof = if coeffs.len() + shift <= size {
        crs.commit_shifted_ct(coeffs, shift)?
    } else {
        crs.commit_ct(coeffs)?
    };
    let mut values = vec![Scalar::ZERO; size];
    values[..coeffs.len()].copy_from_slice(coeffs);
    let openings = crs.open_parties_ct(coeffs, params.n())?;
    crs.domain().fft(&mut values)?;
    let delta_vs: Vec<G2Projective> = values[..usize::from(params.n())]
        .par_iter()
        .map(g2_generator_mul_ct)
        .collect();
    let shares = params
        .parties()
        .map(|id| RefreshShare {
            index: id,
            delta: values[id.position()],
        })
        .collect();
    wipe_fields(&mut values);
    let mut public = RefreshPublic::new(
        current.digest(),
        epoch,
        delta_commitment,
        zero_proof,
        degree_proof,
        delta_vs,
        openings,
    );
    sign_refresh(sk, &mut public);
    Ok(Refresh { public, shares })
}

/// Signs `refresh` (every field but the signature) with the client key.
pub(crate) fn sign_refresh(sk: &SecretKey, refresh: &mut RefreshPublic) {
    let msg = authorization_message(&refresh.group_digest, refresh.epoch, &refresh.refresh_id());
    refresh.authorization = sk.sign_with_dst(&msg, DST_REFRESH);
}
