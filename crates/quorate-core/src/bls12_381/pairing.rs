//! Pairing-product checks.
//!
//! Every pairing verification equation in the workspace is written as `Π e(P_i, Q_i) = 1`
//! and checked with one multi-Miller loop and a single final exponentiation.

use blstrs::{Bls12, G1Affine, G2Affine, G2Prepared};
use group::Group;
use pairing::{MillerLoopResult, MultiMillerLoop};

/// Whether `Π e(P_i, Q_i)` is the identity of the target group.
pub fn pairing_product_is_identity(terms: &[(G1Affine, G2Affine)]) -> bool {
    let prepared: Vec<(G1Affine, G2Prepared)> = terms
        .iter()
        .map(|(p, q)| (*p, G2Prepared::from(*q)))
        .collect();
    let refs: Vec<(G1Affine, &G2Prepared)> = prepared.iter().map(|(p, q)| (*p, q)).collect();
    prepared_product_is_identity(&refs)
}

/// As [`pairing_product_is_identity`] with G2 arguments already prepared (cached line
/// functions for fixed bases such as `g2` and `[τ]_2`), borrowed so that cached
/// preparations (about 20 KB of line coefficients each) are not copied per check.
pub fn prepared_product_is_identity(terms: &[(G1Affine, &G2Prepared)]) -> bool {
    let refs: Vec<(&G1Affine, &G2Prepared)> = terms.iter().map(|(p, q)| (p, *q)).collect();
    bool::from(
        Bls12::multi_miller_loop(&refs)
            .final_exponentiation()
            .is_identity(),
    )
}

/// `−g2`, prepared once per process.
pub fn neg_g2_prepared() -> &'static G2Prepared {
    use group::prime::PrimeCurveAffine;
    static NEG_G2: std::sync::OnceLock<G2Prepared> = std::sync::OnceLock::new();
    NEG_G2.get_or_init(|| G2Prepared::from(-G2Affine::generator()))
}
