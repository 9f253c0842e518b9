//! Step 1 (Fig. 8): the querier's BB key and signatures on the queried outputs
//! ([`querier_sign`]), every server's batched check of them ([`check_query`]) and the list
//! the reverse shuffle starts from ([`initial_list`]).

use crate::elgamal::{self, ElGamalCiphertext};
use crate::error::MixnetError;
use crate::setup::MixnetPublic;
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::bls12_381::pairing::pairing_product_is_identity;
use rand_core::{CryptoRng, OsRng, RngCore};

/// The querier's BB secret key (wiped on drop, redacted in `Debug`).
pub struct QuerierKey {
    x: Scalar,
}

impl Drop for QuerierKey {
    fn drop(&mut self) {
        self.x = Scalar::ZERO;
    }
}

impl core::fmt::Debug for QuerierKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("QuerierKey(<redacted>)")
    }
}

/// The querier's published query: sets `I`, `J`, BB key and signatures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BbQuery {
    /// `I`: queried input positions (strictly increasing).
    pub inputs: Vec<usize>,
    /// `J`: output positions forming the set (strictly increasing).
    pub outputs: Vec<usize>,
    /// `y = f2^x`.
    pub y: G2Projective,
    /// `σ_j` for `j ∈ J`, in the order of `outputs`.
    pub sigs: Vec<G1Projective>,
}

pub(super) fn f2() -> G2Projective {
    G2Projective::generator()
}

pub(super) fn invalid_query(reason: &'static str) -> MixnetError {
    MixnetError::InvalidQuery(reason)
}

pub(super) fn check_index_set(set: &[usize], n: usize) -> bool {
    set.windows(2).all(|w| w[0] < w[1]) && set.last().is_none_or(|&l| l < n)
}

/// The querier signs the outputs `J` (values from the verified mixing record) and queries
/// the inputs `I`.
pub fn querier_sign<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    outputs: &[Scalar],
    inputs_i: &[usize],
    outputs_j: &[usize],
    rng: &mut R,
) -> Result<(QuerierKey, BbQuery), MixnetError> {
    if outputs.len() != public.n
        || !check_index_set(inputs_i, public.n)
        || !check_index_set(outputs_j, public.n)
    {
        return Err(invalid_query(
            "index sets must be strictly increasing and below n",
        ));
    }
    loop {
        let x = Scalar::random(&mut *rng);
        let mut sigs = Vec::with_capacity(outputs_j.len());
        for &j in outputs_j {
            let inv: Option<Scalar> = (outputs[j] + x).invert().into();
            match inv {
                Some(inv) => sigs.push(public.gens.g * inv),
                None => break,
            }
        }
        if sigs.len() == outputs_j.len() && !bool::from(x.is_zero()) {
            let key = QuerierKey { x };
            let y = f2() * key.x;
            return Ok((
                key,
                BbQuery {
                    inputs: inputs_i.to_vec(),
                    outputs: outputs_j.to_vec(),
                    y,
                    sigs,
                },
            ));
        }
    }
}

/// Every server's (and the querier's) check of a query: shapes, and all BB signatures
/// batch-verified: `e(Σδ_jσ_j, y)·e(Σδ_j v′_j σ_j − (Σδ_j) g, f2) = 1` with 128-bit `δ_j`.
pub fn check_query(
    public: &MixnetPublic,
    outputs: &[Scalar],
    q: &BbQuery,
) -> Result<(), MixnetError> {
    if outputs.len() != public.n
        || !check_index_set(&q.inputs, public.n)
        || !check_index_set(&q.outputs, public.n)
    {
        return Err(invalid_query(
            "index sets must be strictly increasing and below n",
        ));
    }
    if q.sigs.len() != q.outputs.len() {
        return Err(invalid_query("one signature per queried output"));
    }
    if bool::from(q.y.is_identity()) {
        return Err(invalid_query("BB public key is the identity"));
    }
    if q.sigs.iter().any(|s| bool::from(s.is_identity())) {
        return Err(invalid_query("BB signature is the identity"));
    }
    if q.sigs.is_empty() {
        return Ok(());
    }
    let mut rng = OsRng;
    let delta: Vec<Scalar> = q
        .sigs
        .iter()
        .map(|_| elgamal::batch_weight(&mut rng))
        .collect();
    let a = g1_msm_vartime(&q.sigs, &delta);
    let dv: Vec<Scalar> = q
        .outputs
        .iter()
        .zip(&delta)
        .map(|(&j, d)| *d * outputs[j])
        .collect();
    let dsum: Scalar = delta.iter().sum();
    let b = g1_msm_vartime(&q.sigs, &dv) - public.gens.g * dsum;
    if !pairing_product_is_identity(&[
        (a.to_affine(), q.y.to_affine()),
        (b.to_affine(), f2().to_affine()),
    ]) {
        return Err(invalid_query("BB signatures do not verify"));
    }
    Ok(())
}

/// The list the reverse shuffle starts from: `(1, σ_j)` at `j ∈ J`, `(1, 1)` elsewhere.
pub fn initial_list(n: usize, q: &BbQuery) -> Vec<ElGamalCiphertext> {
    let mut list = vec![ElGamalCiphertext::trivial(G1Projective::identity()); n];
    for (&j, s) in q.outputs.iter().zip(&q.sigs) {
        if let Some(slot) = list.get_mut(j) {
            *slot = ElGamalCiphertext::trivial(*s);
        }
    }
    list
}
