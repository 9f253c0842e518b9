//! Feldman and Pedersen verifiable secret sharing over any prime-order group.
//!
//! * **Feldman**: the dealer publishes `C_k = a_k·G` for each coefficient of `f`. Party `i`
//!   checks `f(x_i)·G = Σ_k x_i^k C_k`. `C_0 = f(0)·G` is public (the group public key).
//! * **Pedersen**: the dealer also picks a blinding polynomial `b` and publishes
//!   `C_k = a_k·G + b_k·H` for an `H` with unknown discrete log relative to `G`. Party `i`
//!   checks `f(x_i)·G + b(x_i)·H = Σ_k x_i^k C_k`. Nothing about `f(0)` leaks.
//!
//! Checking uses Horner's rule in the group (the point `x_i` is public).

use crate::party::ParamError;
use crate::poly::SecretPolynomial;
use group::Group;

/// Evaluates `Σ_k x^k C_k` by Horner's rule (public data only).
pub fn evaluate_commitment<G: Group>(commitments: &[G], x: &G::Scalar) -> G {
    commitments
        .iter()
        .rev()
        .fold(G::identity(), |acc, c| acc * x + c)
}

/// Feldman commitment to a sharing polynomial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeldmanCommitment<G: Group> {
    coefficients: Vec<G>,
}

impl<G: Group> FeldmanCommitment<G> {
    /// Commits to each coefficient with base `g`.
    pub fn commit(poly: &SecretPolynomial<G::Scalar>, g: G) -> Self {
        FeldmanCommitment {
            coefficients: poly.coefficients().iter().map(|a| g * a).collect(),
        }
    }

    /// Wraps received commitments, checking the expected degree bound (`t` coefficients).
    pub fn from_coefficients(coefficients: Vec<G>, t: usize) -> Result<Self, ParamError> {
        if coefficients.len() != t {
            return Err(ParamError::LengthMismatch {
                what: "Feldman commitments",
                expected: t,
                got: coefficients.len(),
            });
        }
        Ok(FeldmanCommitment { coefficients })
    }

    /// The committed coefficients `C_k`.
    pub fn coefficients(&self) -> &[G] {
        &self.coefficients
    }

    /// `f(0)·G`.
    pub fn constant(&self) -> G {
        self.coefficients
            .first()
            .copied()
            .unwrap_or_else(G::identity)
    }

    /// `f(x)·G`, the public verification key of the share at `x`.
    pub fn evaluate(&self, x: &G::Scalar) -> G {
        evaluate_commitment(&self.coefficients, x)
    }

    /// Checks a share: `share·G == Σ x^k C_k`.
    pub fn verify_share(&self, x: &G::Scalar, share: &G::Scalar, g: G) -> bool {
        g * share == self.evaluate(x)
    }
}

/// Pedersen commitment to a sharing polynomial and its blinding polynomial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PedersenCommitment<G: Group> {
    coefficients: Vec<G>,
}

impl<G: Group> PedersenCommitment<G> {
    /// Commits `C_k = a_k·g + b_k·h`. The two polynomials must have the same length.
    pub fn commit(
        poly: &SecretPolynomial<G::Scalar>,
        blinding: &SecretPolynomial<G::Scalar>,
        g: G,
        h: G,
    ) -> Result<Self, ParamError> {
        if poly.len() != blinding.len() {
            return Err(ParamError::LengthMismatch {
                what: "Pedersen blinding polynomial",
                expected: poly.len(),
                got: blinding.len(),
            });
        }
        Ok(PedersenCommitment {
            coefficients: poly
                .coefficients()
                .iter()
                .zip(blinding.coefficients())
                .map(|(a, b)| g * a + h * b)
                .collect(),
        })
    }

    /// The committed coefficients.
    pub fn coefficients(&self) -> &[G] {
        &self.coefficients
    }

    /// Checks a share and its blinding share.
    pub fn verify_share(
        &self,
        x: &G::Scalar,
        share: &G::Scalar,
        blinding_share: &G::Scalar,
        g: G,
        h: G,
    ) -> bool {
        g * share + h * blinding_share == evaluate_commitment(&self.coefficients, x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::party::ThresholdParams;
    use crate::shamir::{eval_point, split};
    use blstrs::{G1Projective, Scalar};
    use ff::Field;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn feldman_accepts_good_and_rejects_bad_shares() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let params = ThresholdParams::new(3, 6).expect("valid");
        let secret = Scalar::random(&mut rng);
        let (poly, shares) = split(secret, params, &mut rng);
        let g = G1Projective::generator();
        let com = FeldmanCommitment::commit(&poly, g);
        assert_eq!(com.constant(), g * secret);
        for s in &shares {
            assert!(com.verify_share(&eval_point(s.id()), s.value(), g));
            let bad = *s.value() + Scalar::ONE;
            assert!(!com.verify_share(&eval_point(s.id()), &bad, g));
        }
        assert!(FeldmanCommitment::from_coefficients(com.coefficients().to_vec(), 4).is_err());
    }

    #[test]
    fn pedersen_accepts_good_and_rejects_bad_shares() {
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let g = G1Projective::generator();
        let h = G1Projective::hash_to_curve(b"pedersen h", b"QUORATE-TEST-H", &[]);
        let f = SecretPolynomial::<Scalar>::random_with_constant(Scalar::from(9u64), 2, &mut rng);
        let b =
            SecretPolynomial::<Scalar>::random_with_constant(Scalar::random(&mut rng), 2, &mut rng);
        let com = PedersenCommitment::commit(&f, &b, g, h).expect("same length");
        let x = Scalar::from(4u64);
        assert!(com.verify_share(&x, &f.evaluate(&x), &b.evaluate(&x), g, h));
        assert!(!com.verify_share(&x, &f.evaluate(&x), &(b.evaluate(&x) + Scalar::ONE), g, h));
        let short = SecretPolynomial::<Scalar>::random_with_constant(Scalar::ONE, 1, &mut rng);
        assert!(PedersenCommitment::commit(&f, &short, g, h).is_err());
    }
}
