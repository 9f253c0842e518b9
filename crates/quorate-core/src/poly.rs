//! Polynomials over a prime field.
//!
//! [`SecretPolynomial`] holds coefficients `a_0 + a_1 X + … + a_d X^d` of a secret-sharing
//! polynomial. It is wiped on drop and its `Debug` is redacted. Evaluation is Horner's rule
//! with field arithmetic only, so its running time does not depend on the coefficients.

use crate::secret::{wipe_fields, REDACTED};
use core::fmt;
use ff::PrimeField;
use rand_core::{CryptoRng, RngCore};

/// A polynomial with secret coefficients (lowest degree first), wiped on drop.
#[derive(Clone)]
pub struct SecretPolynomial<F: PrimeField> {
    coeffs: Vec<F>,
}

impl<F: PrimeField> SecretPolynomial<F> {
    /// Wraps the coefficients `a_0, a_1, …` (lowest degree first).
    pub fn from_coefficients(coeffs: Vec<F>) -> Self {
        SecretPolynomial { coeffs }
    }

    /// A uniformly random polynomial of degree at most `degree` with `f(0) = constant`.
    pub fn random_with_constant<R: RngCore + CryptoRng>(
        constant: F,
        degree: usize,
        rng: &mut R,
    ) -> Self {
        let mut coeffs = Vec::with_capacity(degree + 1);
        coeffs.push(constant);
        coeffs.extend((0..degree).map(|_| F::random(&mut *rng)));
        SecretPolynomial { coeffs }
    }

    /// A uniformly random polynomial of degree at most `degree` with `f(0) = 0`
    /// (a *zero-sharing*, used for proactive refresh).
    pub fn random_zero_sharing<R: RngCore + CryptoRng>(degree: usize, rng: &mut R) -> Self {
        Self::random_with_constant(F::ZERO, degree, rng)
    }

    /// `f(x)` by Horner's rule.
    pub fn evaluate(&self, x: &F) -> F {
        self.coeffs.iter().rev().fold(F::ZERO, |acc, c| acc * x + c)
    }

    /// The constant term `f(0)`.
    pub fn constant(&self) -> F {
        self.coeffs.first().copied().unwrap_or(F::ZERO)
    }

    /// The coefficients, lowest degree first (the length is the degree bound plus one).
    pub fn coefficients(&self) -> &[F] {
        &self.coeffs
    }

    /// Number of coefficients stored (degree bound plus one).
    pub fn len(&self) -> usize {
        self.coeffs.len()
    }

    /// Whether no coefficients are stored.
    pub fn is_empty(&self) -> bool {
        self.coeffs.is_empty()
    }
}

impl<F: PrimeField> Drop for SecretPolynomial<F> {
    fn drop(&mut self) {
        wipe_fields(&mut self.coeffs);
    }
}

impl<F: PrimeField> fmt::Debug for SecretPolynomial<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretPolynomial")
            .field("len", &self.coeffs.len())
            .field("coeffs", &REDACTED)
            .finish()
    }
}

/// Evaluates a polynomial given by public coefficients at `x` (Horner's rule).
pub fn evaluate<F: PrimeField>(coeffs: &[F], x: &F) -> F {
    coeffs.iter().rev().fold(F::ZERO, |acc, c| acc * x + c)
}

/// Divides `p(X) - p(z)` by `(X - z)` (synthetic division) and returns the quotient's
/// coefficients, lowest degree first. This is the KZG opening polynomial at `z`.
pub fn quotient_by_linear<F: PrimeField>(coeffs: &[F], z: &F) -> Vec<F> {
    let d = coeffs.len();
    if d < 2 {
        return Vec::new();
    }
    // q_{d-2} = a_{d-1}; q_{k-1} = a_k + z q_k.
    let mut q = vec![F::ZERO; d - 1];
    let mut carry = F::ZERO;
    for k in (1..d).rev() {
        carry = coeffs[k] + carry * z;
        q[k - 1] = carry;
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::Scalar;
    use ff::Field;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn quotient_satisfies_division_identity() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let p: Vec<Scalar> = (0..9).map(|_| Scalar::random(&mut rng)).collect();
        let z = Scalar::random(&mut rng);
        let x = Scalar::random(&mut rng);
        let q = quotient_by_linear(&p, &z);
        assert_eq!(q.len(), 8);
        assert_eq!(
            evaluate(&p, &x) - evaluate(&p, &z),
            evaluate(&q, &x) * (x - z)
        );
    }

    #[test]
    fn zero_sharing_has_zero_constant_and_redacted_debug() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let p = SecretPolynomial::<Scalar>::random_zero_sharing(4, &mut rng);
        assert_eq!(p.evaluate(&Scalar::ZERO), Scalar::ZERO);
        assert_eq!(p.len(), 5);
        let dbg = format!("{p:?}");
        assert!(dbg.contains("redacted"));
    }
}
