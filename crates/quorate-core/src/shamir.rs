//! Shamir secret sharing over any prime field.
//!
//! A secret `s` is shared with threshold `t` by a random polynomial `f` of degree `t − 1`
//! with `f(0) = s`; party `i` receives `f(x_i)`. By default `x_i = i` ([`eval_point`]);
//! protocols that need other points (roots of unity, for KZG) pass them explicitly.

use crate::lagrange;
use crate::party::ParamError;
use crate::party::{check_distinct, PartyId, ThresholdParams};
use crate::poly::SecretPolynomial;
use crate::secret::{wipe_field, REDACTED};
use core::fmt;
use ff::PrimeField;
use rand_core::{CryptoRng, RngCore};

/// The default evaluation point of a party: its index as a field element.
pub fn eval_point<F: PrimeField>(id: PartyId) -> F {
    F::from(u64::from(id.get()))
}

/// One party's secret share `f(x_i)`. Wiped on drop; `Debug` is redacted.
#[derive(Clone)]
pub struct Share<F: PrimeField> {
    id: PartyId,
    value: F,
}

impl<F: PrimeField> Share<F> {
    /// Wraps a share value.
    pub fn new(id: PartyId, value: F) -> Self {
        Share { id, value }
    }

    /// The owning party.
    pub fn id(&self) -> PartyId {
        self.id
    }

    /// The secret value. Callers must not log it.
    pub fn value(&self) -> &F {
        &self.value
    }
}

impl<F: PrimeField> Drop for Share<F> {
    fn drop(&mut self) {
        wipe_field(&mut self.value);
    }
}

impl<F: PrimeField> fmt::Debug for Share<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Share")
            .field("id", &self.id)
            .field("value", &REDACTED)
            .finish()
    }
}

/// Shares `secret` among `params.n()` parties at the default points, threshold `params.t()`.
/// Returns the dealing polynomial too, for commitments (Feldman, Pedersen, KZG).
pub fn split<F: PrimeField, R: RngCore + CryptoRng>(
    secret: F,
    params: ThresholdParams,
    rng: &mut R,
) -> (SecretPolynomial<F>, Vec<Share<F>>) {
    let poly = SecretPolynomial::random_with_constant(secret, usize::from(params.t()) - 1, rng);
    let shares = params
        .parties()
        .map(|id| Share::new(id, poly.evaluate(&eval_point(id))))
        .collect();
    (poly, shares)
}

/// Recovers the secret from at least `t` shares at the default points.
pub fn reconstruct<F: PrimeField>(
    params: ThresholdParams,
    shares: &[Share<F>],
) -> Result<F, ParamError> {
    let ids: Vec<PartyId> = shares.iter().map(Share::id).collect();
    params.check_quorum(&ids)?;
    check_distinct(&ids)?;
    let points: Vec<F> = ids.iter().map(|id| eval_point(*id)).collect();
    let lambdas = lagrange::coefficients_at_zero(&points)?;
    Ok(lambdas
        .iter()
        .zip(shares)
        .map(|(l, s)| *l * s.value())
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::Scalar;
    use ff::Field;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn any_t_subset_reconstructs() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let params = ThresholdParams::new(3, 5).expect("valid");
        let secret = Scalar::random(&mut rng);
        let (_poly, shares) = split(secret, params, &mut rng);
        for a in 0..5 {
            for b in (a + 1)..5 {
                for c in (b + 1)..5 {
                    let subset = vec![shares[a].clone(), shares[b].clone(), shares[c].clone()];
                    assert_eq!(reconstruct(params, &subset), Ok(secret));
                }
            }
        }
        assert_eq!(
            reconstruct(params, &shares[..2]),
            Err(ParamError::NotEnoughShares { needed: 3, got: 2 })
        );
        let dup = vec![shares[0].clone(), shares[0].clone(), shares[1].clone()];
        assert!(matches!(
            reconstruct(params, &dup),
            Err(ParamError::DuplicateIndex { .. })
        ));
    }
}
