//! Lagrange coefficients.
//!
//! For distinct points `x_1, …, x_k` the coefficient of `x_i` at a target `x` is
//! `λ_i(x) = Π_{j≠i} (x − x_j) / (x_i − x_j)`, so that `f(x) = Σ λ_i(x) f(x_i)` for every
//! polynomial of degree below `k`. The points are public; the cost is `O(k²)` multiplications
//! and one batched inversion.

use crate::party::ParamError;
use ff::{BatchInvert, PrimeField};

/// All Lagrange coefficients `λ_i(target)` for the given distinct points.
pub fn coefficients_at<F: PrimeField>(points: &[F], target: &F) -> Result<Vec<F>, ParamError> {
    let k = points.len();
    let mut numerators = vec![F::ONE; k];
    let mut denominators = vec![F::ONE; k];
    for (i, xi) in points.iter().enumerate() {
        for (j, xj) in points.iter().enumerate() {
            if i != j {
                let diff = *xi - xj;
                if bool::from(diff.is_zero()) {
                    return Err(ParamError::RepeatedEvaluationPoint);
                }
                numerators[i] *= *target - xj;
                denominators[i] *= diff;
            }
        }
    }
    denominators.iter_mut().batch_invert();
    Ok(numerators
        .into_iter()
        .zip(denominators)
        .map(|(n, d)| n * d)
        .collect())
}

/// Lagrange coefficients at zero, the usual case for recovering a shared secret.
pub fn coefficients_at_zero<F: PrimeField>(points: &[F]) -> Result<Vec<F>, ParamError> {
    coefficients_at(points, &F::ZERO)
}

/// Interpolates `f(target)` from the points `(x_i, y_i)`.
pub fn interpolate_at<F: PrimeField>(
    points: &[F],
    values: &[F],
    target: &F,
) -> Result<F, ParamError> {
    if points.len() != values.len() {
        return Err(ParamError::LengthMismatch {
            what: "interpolation values",
            expected: points.len(),
            got: values.len(),
        });
    }
    let lambdas = coefficients_at(points, target)?;
    Ok(lambdas.iter().zip(values).map(|(l, y)| *l * y).sum())
}

/// The coefficients (lowest degree first) of the unique polynomial of degree below `k`
/// through the `k` points `(x_i, y_i)`. `O(k²)`.
pub fn interpolate_coefficients<F: PrimeField>(
    points: &[F],
    values: &[F],
) -> Result<Vec<F>, ParamError> {
    let k = points.len();
    if values.len() != k {
        return Err(ParamError::LengthMismatch {
            what: "interpolation values",
            expected: k,
            got: values.len(),
        });
    }
    // N(X) = Π (X − x_j); L_i(X) = N(X) / ((X − x_i) N'(x_i)).
    let mut master = vec![F::ONE];
    for xj in points {
        let mut next = vec![F::ZERO; master.len() + 1];
        for (d, c) in master.iter().enumerate() {
            next[d + 1] += c;
            next[d] -= *c * xj;
        }
        master = next;
    }
    let mut weights: Vec<F> = Vec::with_capacity(k);
    for (i, xi) in points.iter().enumerate() {
        let mut w = F::ONE;
        for (j, xj) in points.iter().enumerate() {
            if i != j {
                let diff = *xi - xj;
                if bool::from(diff.is_zero()) {
                    return Err(ParamError::RepeatedEvaluationPoint);
                }
                w *= diff;
            }
        }
        weights.push(w);
    }
    weights.iter_mut().batch_invert();
    let mut out = vec![F::ZERO; k];
    for ((xi, yi), wi) in points.iter().zip(values).zip(&weights) {
        // Divide the master polynomial by (X − x_i) synthetically.
        let scale = *yi * wi;
        let mut carry = F::ZERO;
        for d in (0..k).rev() {
            carry = master[d + 1] + carry * xi;
            out[d] += carry * scale;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::evaluate;
    use blstrs::Scalar;
    use ff::Field;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn interpolation_recovers_polynomial() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let coeffs: Vec<Scalar> = (0..6).map(|_| Scalar::random(&mut rng)).collect();
        let xs: Vec<Scalar> = (1..=6u64).map(|i| Scalar::from(i * 7)).collect();
        let ys: Vec<Scalar> = xs.iter().map(|x| evaluate(&coeffs, x)).collect();
        assert_eq!(
            interpolate_coefficients(&xs, &ys).expect("distinct"),
            coeffs
        );
        let target = Scalar::random(&mut rng);
        assert_eq!(
            interpolate_at(&xs, &ys, &target).expect("distinct"),
            evaluate(&coeffs, &target)
        );
        assert_eq!(
            interpolate_at(&xs, &ys, &Scalar::ZERO).expect("distinct"),
            coeffs[0]
        );
    }

    #[test]
    fn repeated_points_are_an_error() {
        let xs = [Scalar::from(1u64), Scalar::from(1u64)];
        assert_eq!(
            coefficients_at_zero(&xs),
            Err(ParamError::RepeatedEvaluationPoint)
        );
        assert_eq!(
            interpolate_coefficients(&xs, &xs),
            Err(ParamError::RepeatedEvaluationPoint)
        );
    }
}
