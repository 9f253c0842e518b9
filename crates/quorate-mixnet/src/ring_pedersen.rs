//! Ring-Pedersen (Fujisaki–Okamoto / Damgård–Fujisaki) integer commitments
//! `Com(x; μ) = s^x t^μ mod N̂`, used inside the Paillier parts of the sender's linking proof
//! and the DPK_BB share proofs so that their extractors work over the integers.
//!
//! **Why.** From two accepting transcripts a Σ-protocol over `Z_N` only gives
//! `Δe·x ≡ Δz (mod N)`; to conclude that the Paillier plaintext *is* the integer `Δz/Δe` (the
//! same number as the G1 exponent, below `q`) one needs `Δe | Δz`. With a ring-Pedersen
//! commitment `S = s^x t^μ` in the proof, `s^{Δz} t^{Δz_μ} = S^{Δe}` forces `Δe | Δz` under
//! the strong-RSA assumption (Fujisaki–Okamoto '97, Damgård–Fujisaki '02), so the extracted
//! witness is an integer in range and equals the G1 opening.
//!
//! **Parameters.** `N̂` is the threshold-Paillier modulus (its factorisation is known to no
//! prover), `t` a random square and `s = t^λ` with `λ ∈ [0, p′q′)`, produced by the keygen
//! dealer, who is already trusted with the factorisation (the same setup assumption as the
//! threshold-Paillier key; a dealer-free setup would add the Πprm proof that `s ∈ ⟨t⟩`).
//! The verifier checks that `s` and `t` are units other than ±1.

use crate::error::MixnetError;
use crate::params::{CHALLENGE_BITS, SLACK_BITS};
use merlin::Transcript;
use quorate_core::ParamError;
use quorate_paillier::bigint::{
    is_unit_in_range, mul_mod, pow_mod_secret, pow_mod_vartime, random_below, random_bits,
    random_unit, to_be_bytes_padded,
};
use quorate_paillier::rug::Integer;
use rand_core::{CryptoRng, RngCore};

/// Public ring-Pedersen parameters `(N̂, s, t)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingPedersenParams {
    /// `N̂`.
    pub n_hat: Integer,
    /// `s = t^λ`.
    pub s: Integer,
    /// `t`, a random square.
    pub t: Integer,
}

impl RingPedersenParams {
    /// Dealer: parameters for `N̂ = p q` with safe primes `p = 2p′ + 1`, `q = 2q′ + 1`.
    pub fn from_safe_primes<R: RngCore + CryptoRng>(
        p: &Integer,
        q: &Integer,
        rng: &mut R,
    ) -> Result<Self, MixnetError> {
        let n_hat = Integer::from(p * q);
        let order = (Integer::from(p - 1u32) >> 1u32) * (Integer::from(q - 1u32) >> 1u32);
        loop {
            let r = random_unit(rng, &n_hat)?;
            let t = mul_mod(&r, &r, &n_hat);
            let mut lambda = random_below(rng, &order);
            let s = pow_mod_secret(&t, &lambda, &n_hat)?;
            quorate_paillier::bigint::wipe_integer(&mut lambda);
            let params = RingPedersenParams {
                n_hat: n_hat.clone(),
                s,
                t,
            };
            if params.check().is_ok() {
                return Ok(params);
            }
        }
    }

    /// Public sanity checks: `s, t` units of `Z_N̂` other than `±1`, `s ≠ t`.
    pub fn check(&self) -> Result<(), MixnetError> {
        let minus_one = Integer::from(&self.n_hat - 1u32);
        for x in [&self.s, &self.t] {
            if !is_unit_in_range(x, &self.n_hat) || *x == 1 || *x == minus_one {
                return Err(ParamError::Invalid("ring-Pedersen generator is degenerate").into());
            }
        }
        if self.s == self.t {
            return Err(ParamError::Invalid("ring-Pedersen generators are equal").into());
        }
        Ok(())
    }

    /// Bits of the commitment randomness `μ` (`|N̂|` + slack).
    pub fn mu_bits(&self) -> u32 {
        self.n_hat.significant_bits() + SLACK_BITS
    }

    /// Bits of the mask of `μ` in a Σ-protocol (`|μ|` + challenge + slack).
    pub fn mu_mask_bits(&self) -> u32 {
        self.mu_bits() + CHALLENGE_BITS + SLACK_BITS
    }

    /// `s^x t^μ mod N̂` (constant-time in `x, μ`; both non-negative).
    pub fn commit(&self, x: &Integer, mu: &Integer) -> Result<Integer, MixnetError> {
        let a = pow_mod_secret(&self.s, x, &self.n_hat)?;
        let b = pow_mod_secret(&self.t, mu, &self.n_hat)?;
        Ok(mul_mod(&a, &b, &self.n_hat))
    }

    /// Fresh commitment randomness.
    pub fn random_mu<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Integer {
        random_bits(rng, self.mu_bits())
    }

    /// Fresh mask for `μ`.
    pub fn random_mu_mask<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Integer {
        random_bits(rng, self.mu_mask_bits())
    }

    /// Verifier: recomputes the prover's first message `s^z t^{z_μ} · S^{−e} mod N̂` from a
    /// response `(z, z_μ)` (public, non-negative, range-checked by the caller) and the
    /// commitment `S`; `None` if `S` is not a unit or `z_μ` is out of range.
    pub fn recompute_vartime(
        &self,
        z: &Integer,
        z_mu: &Integer,
        com: &Integer,
        e: &Integer,
    ) -> Option<Integer> {
        if !is_unit_in_range(com, &self.n_hat)
            || *z_mu < 0
            || z_mu.significant_bits() > self.mu_mask_bits() + 1
        {
            return None;
        }
        let a = pow_mod_vartime(&self.s, z, &self.n_hat).ok()?;
        let b = pow_mod_vartime(&self.t, z_mu, &self.n_hat).ok()?;
        let neg_e = Integer::from(-e);
        let c = pow_mod_vartime(com, &neg_e, &self.n_hat).ok()?;
        Some(mul_mod(&mul_mod(&a, &b, &self.n_hat), &c, &self.n_hat))
    }

    /// Absorbs `(N̂, s, t)` into a transcript.
    pub fn append_to(&self, t: &mut Transcript) {
        let len = (self.n_hat.significant_bits() as usize).div_ceil(8);
        t.append_message(b"rp N^", &self.bytes(&self.n_hat, len));
        t.append_message(b"rp s", &self.bytes(&self.s, len));
        t.append_message(b"rp t", &self.bytes(&self.t, len));
    }

    /// Fixed-width big-endian bytes of an element of `Z_N̂` (for transcripts).
    pub fn element_bytes(&self, x: &Integer) -> Vec<u8> {
        self.bytes(x, (self.n_hat.significant_bits() as usize).div_ceil(8))
    }

    fn bytes(&self, x: &Integer, len: usize) -> Vec<u8> {
        to_be_bytes_padded(x, len).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quorate_paillier::primes::generate_safe_prime;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn commitment_opens_and_recompute_matches() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let p = generate_safe_prime(256, &mut rng).expect("prime");
        let q = generate_safe_prime(256, &mut rng).expect("prime");
        let rp = RingPedersenParams::from_safe_primes(&p, &q, &mut rng).expect("params");
        rp.check().expect("valid");
        let (x, mu) = (Integer::from(12345), rp.random_mu(&mut rng));
        let com = rp.commit(&x, &mu).expect("commit");
        let (a, b) = (random_bits(&mut rng, 300), rp.random_mu_mask(&mut rng));
        let first = rp.commit(&a, &b).expect("commit");
        let e = Integer::from(77);
        let z = Integer::from(&e * &x) + &a;
        let z_mu = Integer::from(&e * &mu) + &b;
        assert_eq!(
            rp.recompute_vartime(&z, &z_mu, &com, &e),
            Some(first.clone())
        );
        let z_bad = Integer::from(&z + 1u32);
        assert_ne!(rp.recompute_vartime(&z_bad, &z_mu, &com, &e), Some(first));
        let degenerate = RingPedersenParams {
            n_hat: rp.n_hat.clone(),
            s: Integer::from(1),
            t: rp.t.clone(),
        };
        assert!(degenerate.check().is_err());
    }
}
