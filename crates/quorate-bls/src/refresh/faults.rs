//! Playing a misbehaving dealer, for tests and audits (cargo feature `test-faults`). Hot
//! parties check every refresh, so nothing here can hurt them; it exists to show that they
//! do.

use crate::client::Client;
use crate::error::BlsError;
use crate::group::GroupPublic;
use crate::kzg::Crs;
use crate::refresh::deal::{deal_refresh, sign_refresh};
use crate::refresh::messages::{Refresh, RefreshPublic};
use blstrs::Scalar;
use quorate_core::poly::SecretPolynomial;

/// Re-signs a (tampered) refresh with `client`'s key, so that only the content
/// checks can reject it.
pub fn resign(client: &Client, refresh: &mut RefreshPublic) {
    sign_refresh(&client.sk, refresh);
}

/// Deals a refresh from arbitrary coefficients `δ_0, δ_1, …` (even `δ(0) ≠ 0` or too
/// high a degree) for an arbitrary `epoch`, with otherwise honest openings and proofs.
/// `client` signs it, so it passes the authorisation check and only the content
/// checks can reject it.
pub fn deal_refresh_from(
    client: &Client,
    crs: &Crs,
    current: &GroupPublic,
    epoch: u64,
    coeffs: Vec<Scalar>,
) -> Result<Refresh, BlsError> {
    deal_refresh(
        &client.sk,
        crs,
        current,
        epoch,
        SecretPolynomial::from_coefficients(coeffs),
    )
}
