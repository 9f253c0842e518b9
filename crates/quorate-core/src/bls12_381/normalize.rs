//! Batched conversion of projective points to affine form (one field inversion for the
//! whole batch, Montgomery's trick), for points that are **public**.
//!
//! `blstrs` leaves `Curve::batch_normalize` at the `group` crate's default, one field
//! inversion per point (≈ 3 µs in G2). These helpers compose `blstrs`'s own public field
//! operations (`Field::invert`, multiplication, squaring) over the Jacobian coordinates
//! `(X, Y, Z)` that `blst` uses (`x = X/Z²`, `y = Y/Z³`): about seven field
//! multiplications per point plus one inversion. They branch on whether a point is the
//! identity (`Z = 0`), so they are variable time and take public points only.

use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::Curve;

/// Batched affine conversion of public points, for code generic over G1 and G2.
pub trait BatchAffineVartime: Curve {
    /// `points` in affine form (variable time in which are the identity).
    fn batch_affine_vartime(points: &[Self]) -> Vec<Self::AffineRepr>;
}

impl BatchAffineVartime for G1Projective {
    fn batch_affine_vartime(points: &[Self]) -> Vec<G1Affine> {
        g1_batch_vartime(points)
    }
}

impl BatchAffineVartime for G2Projective {
    fn batch_affine_vartime(points: &[Self]) -> Vec<G2Affine> {
        g2_batch_vartime(points)
    }
}

/// `points` in affine form (public points; variable time in which are the identity).
pub fn g1_batch_vartime(points: &[G1Projective]) -> Vec<G1Affine> {
    jacobian_batch(
        points,
        |p| (p.x(), p.y(), p.z()),
        |x, y| G1Affine::from_raw_unchecked(x, y, false),
        G1Affine::identity(),
    )
}

/// `points` in affine form (public points; variable time in which are the identity).
pub fn g2_batch_vartime(points: &[G2Projective]) -> Vec<G2Affine> {
    jacobian_batch(
        points,
        |p| (p.x(), p.y(), p.z()),
        |x, y| G2Affine::from_raw_unchecked(x, y, false),
        G2Affine::identity(),
    )
}

/// The shared body: prefix products of the non-zero `Z`, one inversion, then
/// `Z^-1` for each point walking back, and `(X·Z^-2, Y·Z^-3)`.
fn jacobian_batch<P, A: Copy, F: Field>(
    points: &[P],
    coords: impl Fn(&P) -> (F, F, F),
    affine: impl Fn(F, F) -> A,
    identity: A,
) -> Vec<A> {
    let xyz: Vec<(F, F, F)> = points.iter().map(&coords).collect();
    let mut prefix = Vec::with_capacity(xyz.len());
    let mut acc = F::ONE;
    for (_, _, z) in &xyz {
        prefix.push(acc);
        if !bool::from(z.is_zero()) {
            acc *= z;
        }
    }
    // Every factor of `acc` is non-zero, so it is invertible.
    let mut inv = Option::<F>::from(acc.invert()).unwrap_or(F::ONE);
    let mut out = vec![identity; xyz.len()];
    for (k, (x, y, z)) in xyz.iter().enumerate().rev() {
        if bool::from(z.is_zero()) {
            continue;
        }
        let z_inv = inv * prefix[k];
        inv *= z;
        let z_inv2 = z_inv.square();
        out[k] = affine(*x * z_inv2, *y * z_inv2 * z_inv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::{Curve, Group};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn batched_affine_matches_one_by_one_including_identities() {
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        for pattern in [
            &[][..],
            &[true][..],
            &[false][..],
            &[false, true, false, false, true],
        ] {
            let p1: Vec<G1Projective> = pattern
                .iter()
                .map(|id| {
                    if *id {
                        G1Projective::identity()
                    } else {
                        G1Projective::random(&mut rng) + G1Projective::random(&mut rng)
                    }
                })
                .collect();
            let p2: Vec<G2Projective> = pattern
                .iter()
                .map(|id| {
                    if *id {
                        G2Projective::identity()
                    } else {
                        G2Projective::random(&mut rng) + G2Projective::random(&mut rng)
                    }
                })
                .collect();
            let one1: Vec<G1Affine> = p1.iter().map(|p| p.to_affine()).collect();
            let one2: Vec<G2Affine> = p2.iter().map(|p| p.to_affine()).collect();
            assert_eq!(g1_batch_vartime(&p1), one1);
            assert_eq!(g2_batch_vartime(&p2), one2);
            for (a, b) in g2_batch_vartime(&p2).iter().zip(&one2) {
                assert_eq!(a.to_compressed(), b.to_compressed());
                assert_eq!(bool::from(a.is_identity()), bool::from(b.is_identity()));
            }
        }
    }
}
