//!
//! Fig. 9 steps 2–3: BBS+ quasi-signatures and their batched check.
//!
//! # BBS+ quasi-signatures (Fig. 9 step 2)
//! The querier `Q` picks a fresh key `x`, publishes `y = f2^x` (`f2` the G2 generator) and,
//! for every queried input `i ∈ I` with commitment `γ_i = g^{v_i} h^{r_i}`, draws `c_i, r̂_i`
//! and publishes
//!
//! `S_i = (f1 · h^{r̂_i} · γ_i)^{1/(c_i + x)}`,
//!
//! a BBS+ signature on `v_i` with randomness `(c_i, r_i + r̂_i)` that `Q` computes without
//! knowing `v_i` or `r_i` ("quasi"). `f1` is a hash-to-curve generator independent of
//! `g, h` ([`bbs_f1`]).
//!
//! # Batched check (Fig. 9 step 3)
//! `S^{c+x} = f1 h^{r̂} γ` is `e(S, y)·e(S^c·γ⁻¹·h^{−r̂}·f1⁻¹, f2) = 1`. Every server and the
//! querier check all of them at once with independent 128-bit weights `δ_i`:
//!
//! `e(Σ δ_i S_i, y) · e(Σ δ_i (c_i S_i − γ_i − r̂_i h) − (Σ δ_i) f1, f2) = 1`
//!
//! (one two-term pairing product and three MSMs). A false signature survives with

use super::query::{BbsQuery, QuasiSignature, QueryId};
use crate::elgamal::batch_weight;
use crate::error::MixnetError;
use crate::params::GENERATOR_DST;
use crate::setup::MixnetPublic;
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_core::bls12_381::hash::hash_to_g1;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::bls12_381::pairing::pairing_product_is_identity;
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

/// `f1`, the BBS+ base of the quasi-signatures: hash-to-curve, independent of `g`, `h`.
pub fn bbs_f1() -> G1Projective {
    hash_to_g1(b"f1", GENERATOR_DST)
}

pub(super) fn f2() -> G2Projective {
    G2Projective::generator()
}

/// The querier's BBS+ secret key (wiped on drop, redacted in `Debug`).
pub struct BbsQuerierKey {
    x: Scalar,
}

impl Drop for BbsQuerierKey {
    fn drop(&mut self) {
        self.x = Scalar::ZERO;
    }
}

impl core::fmt::Debug for BbsQuerierKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("BbsQuerierKey(<redacted>)")
    }
}

pub(super) fn check_index_set(set: &[usize], n: usize) -> bool {
    set.windows(2).all(|w| w[0] < w[1]) && set.last().is_none_or(|&l| l < n)
}

/// Fig. 9 step 2: the querier quasi-signs the commitments `γ_i`, `i ∈ I` (`gammas` are the
/// accepted inputs' commitments, in input order) under a fresh [`QueryId`]; the dealer then
/// deals this query's triples ([`deal_triples`] with [`BbsQuery::query_id`]).
pub fn querier_quasi_sign<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    gammas: &[G1Projective],
    inputs_i: &[usize],
    rng: &mut R,
) -> Result<(BbsQuerierKey, BbsQuery), MixnetError> {
    if gammas.len() != public.n || !check_index_set(inputs_i, public.n) {
        return Err(MixnetError::InvalidQuery(
            "index set must be strictly increasing and below n",
        ));
    }
    let f1 = bbs_f1();
    let h = public.gens.h;
    let mut x = Scalar::random(&mut *rng);
    while bool::from(x.is_zero()) {
        x = Scalar::random(&mut *rng);
    }
    let key = BbsQuerierKey { x };
    let query_id = QueryId::random(&mut *rng);
    let draws: Vec<(Scalar, Scalar)> = inputs_i
        .iter()
        .map(|_| loop {
            let c = Scalar::random(&mut *rng);
            // c + x = 0 has probability 2^{-255}; redraw rather than fail.
            if !bool::from((c + key.x).is_zero()) {
                break (c, Scalar::random(&mut *rng));
            }
        })
        .collect();
    let xk = key.x;
    let sigs: Vec<QuasiSignature> = inputs_i
        .par_iter()
        .zip(draws.par_iter())
        .map(|(&i, &(c, r_hat))| {
            // c + x ≠ 0 by construction, so the inverse exists.
            let inv = Option::<Scalar>::from((c + xk).invert()).unwrap_or(Scalar::ZERO);
            QuasiSignature {
                s: (f1 + h * r_hat + gammas[i]) * inv,
                c,
                r_hat,
            }
        })
        .collect();
    if sigs.iter().any(|s| bool::from(s.s.is_identity())) {
        // f1 h^{r̂} γ = 1 would need a discrete-log relation among hash-to-curve points.
        return Err(MixnetError::InvalidQuery("degenerate quasi-signature"));
    }
    let y = f2() * key.x;
    Ok((
        key,
        BbsQuery {
            query_id,
            inputs: inputs_i.to_vec(),
            y,
            sigs,
        },
    ))
}

/// Fig. 9 step 3: every server's (and the querier's) check of a DB-RSM query: shapes,
/// degenerate elements, and all quasi-signatures batch-verified with 128-bit weights.
pub fn check_quasi_signatures(
    public: &MixnetPublic,
    gammas: &[G1Projective],
    q: &BbsQuery,
) -> Result<(), MixnetError> {
    if gammas.len() != public.n || !check_index_set(&q.inputs, public.n) {
        return Err(MixnetError::InvalidQuery(
            "index set must be strictly increasing and below n",
        ));
    }
    if q.sigs.len() != q.inputs.len() {
        return Err(MixnetError::InvalidQuery("one quasi-signature per input"));
    }
    if bool::from(q.y.is_identity()) {
        return Err(MixnetError::InvalidQuery("BBS+ public key is the identity"));
    }
    if q.sigs.iter().any(|s| bool::from(s.s.is_identity())) {
        return Err(MixnetError::InvalidQuery(
            "quasi-signature S_i is the identity",
        ));
    }
    if q.sigs.is_empty() {
        return Ok(());
    }
    let mut rng = OsRng;
    let delta: Vec<Scalar> = q.sigs.iter().map(|_| batch_weight(&mut rng)).collect();
    let pts_s: Vec<G1Projective> = q.sigs.iter().map(|s| s.s).collect();
    let a = g1_msm_vartime(&pts_s, &delta);
    // Σ δ_i (c_i S_i − γ_i − r̂_i h) − (Σ δ_i) f1, as one MSM.
    let k = q.sigs.len();
    let mut pts = Vec::with_capacity(2 * k + 2);
    let mut sc = Vec::with_capacity(2 * k + 2);
    let (mut hsum, mut dsum) = (Scalar::ZERO, Scalar::ZERO);
    for ((&i, s), d) in q.inputs.iter().zip(&q.sigs).zip(&delta) {
        pts.extend([s.s, gammas[i]]);
        sc.extend([*d * s.c, -*d]);
        hsum += *d * s.r_hat;
        dsum += d;
    }
    pts.extend([public.gens.h, bbs_f1()]);
    sc.extend([-hsum, -dsum]);
    let b = g1_msm_vartime(&pts, &sc);
    if !pairing_product_is_identity(&[
        (a.to_affine(), q.y.to_affine()),
        (b.to_affine(), f2().to_affine()),
    ]) {
        return Err(MixnetError::InvalidQuery("quasi-signatures do not verify"));
    }
    Ok(())
}
