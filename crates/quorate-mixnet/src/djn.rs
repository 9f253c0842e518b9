//! Fixed-base Paillier encryption randomness (the Damgård–Jurik–Nielsen variant the
//! artifact uses; issue 17, lever 3).
//!
//! Instead of `Enc(M; r) = (1 + N)^M·r^N` with `r` uniform in `Z_N^*` (an exponentiation
//! with the `|N|`-bit exponent `N` and a secret base), a server encrypts as
//! `Enc(M; α) = (1 + N)^M·h_N^α` with the public `h_N = h^N mod N²` and a short secret
//! `α < 2^{⌈|N|/2⌉}`. `h_N` is fixed, so both directions use precomputed tables: the prover's
//! comb table with full-row scans for the secret `α` and its proof mask
//! ([`quorate_paillier::fixed_base::FixedBaseCt`]), the verifier's Yao table for the public
//! responses ([`quorate_paillier::fixed_base::FixedBase`]).
//!
//! # `h` and the assumption
//! `h = −x² mod N` with `x` derived from the Paillier public key by a `merlin` transcript
//! (nothing up anyone's sleeve; every party recomputes it). For safe primes `−1` is a
//! non-square with Jacobi symbol `+1`, so `h` generates (except with negligible
//! probability) the cyclic group of Jacobi-symbol-one units, and `h_N` the corresponding
//! subgroup of `N`-th residues, of order `2p′q′` or `p′q′`.
//!
//! Hiding rests on DCR (a random `N`-th residue looks like a random unit) **plus** the
//! short-exponent assumption of DJN (§4.1 of Damgård–Jurik–Nielsen, "A generalization of
//! Paillier's public-key system with applications to electronic voting"): `h_N^α` with `α`
//! uniform below `2^{⌈|N|/2⌉}` is indistinguishable from `h_N^{α′}` with `α′` uniform modulo
//! the group order. The best known attacks on a short exponent of `ℓ` bits in a group of
//! unknown order are generic (Pollard's kangaroo, `2^{ℓ/2}` steps), so `ℓ = ⌈|N|/2⌉`
//! (1536 bits at `|N| = 3072`) is far above the 256 bits that 128-bit security needs; this
//! is the DJN and artifact choice (1025 bits at their 2050-bit `N`), kept as the reference.
//!
//! # What does not change
//! Soundness of every proof that uses it: the proofs only need the randomness part to be
//! an `N`-th power, and `h_N^z` is one for every integer `z` (the extraction argument of
//! the Paillier Σ-protocols goes through unchanged). Decryption is untouched.
//!
//! Cost at `|N| = 3072` (6144-bit `N²`): an encryption's randomness is `⌈1536/4⌉ = 384`
//! multiplications against about 3072 squarings for `r^N` on the constant-time path;
//! a verifier's `h_N^z` is about 370 multiplications.

use crate::error::MixnetError;
use crate::params::{BATCH_BITS, CHALLENGE_BITS, MAX_SENDERS, SLACK_BITS};
use merlin::Transcript;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_paillier::bigint::{
    from_be_bytes, inv_mod, is_unit_in_range, modulo, mul_mod, pow_mod_secret, pow_mod_vartime,
    random_bits, SecretInteger,
};
use quorate_paillier::fixed_base::{FixedBase, FixedBaseCt};
use quorate_paillier::rug::Integer;
use quorate_paillier::{PaillierError, PublicKey};
use rand_core::{CryptoRng, RngCore};

const PROTOCOL: &[u8] = b"quorate/mixnet/djn-base";
const VERSION: u16 = 1;

/// The public base and both tables for one Paillier key.
pub struct DjnTables {
    h_n: Integer,
    alpha_bits: u32,
    mask_bits: u32,
    secret: FixedBaseCt,
    public: FixedBase,
}

impl core::fmt::Debug for DjnTables {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DjnTables")
            .field("alpha_bits", &self.alpha_bits)
            .finish_non_exhaustive()
    }
}

/// Bits of the randomness `α`: `⌈|N|/2⌉`.
pub fn alpha_bits(pk: &PublicKey) -> u32 {
    pk.n().significant_bits().div_ceil(2)
}

/// Bits of a proof mask for `α`: `|α| + CHALLENGE_BITS + SLACK_BITS`, so that the response
/// `β + c·α` hides `α` statistically (40 bits).
pub fn mask_bits(pk: &PublicKey) -> u32 {
    alpha_bits(pk) + CHALLENGE_BITS + SLACK_BITS
}

/// Largest response `z = β + c·α` a verifier accepts: below `2^{mask_bits + 1}`.
pub fn response_bits(pk: &PublicKey) -> u32 {
    mask_bits(pk) + 1
}

/// Bits of `A = Σ_i e′_i·α_i`, the randomness a shuffle's outputs add in the direction of
/// the challenge vector (`n ≤` [`MAX_SENDERS`] terms of `BATCH_BITS + |α|` bits).
pub fn shuffle_witness_bits(pk: &PublicKey) -> u32 {
    alpha_bits(pk) + BATCH_BITS + MAX_SENDERS.ilog2()
}

/// Bits of the shuffle proof's mask `φ` for `A`: `|A| + CHALLENGE_BITS + SLACK_BITS`, so
/// that `k_F = φ + v·A` hides `A` statistically ([`crate::shuffle`]).
pub fn shuffle_mask_bits(pk: &PublicKey) -> u32 {
    shuffle_witness_bits(pk) + CHALLENGE_BITS + SLACK_BITS
}

/// Largest `k_F` a shuffle verifier accepts: below `2^{shuffle_mask_bits + 1}`.
pub fn shuffle_response_bits(pk: &PublicKey) -> u32 {
    shuffle_mask_bits(pk) + 1
}

/// `h_N = (−x²)^N mod N²` for the `x` derived from `pk`.
pub fn derive_h_n(pk: &PublicKey) -> Result<Integer, MixnetError> {
    let n = pk.n();
    let mut t = Transcript::for_protocol(PROTOCOL, VERSION, &SessionId::new(Vec::new()));
    t.append_message(b"paillier-public-key", &pk.to_bytes());
    let mut counter = 0u64;
    loop {
        // |N| + 128 bits reduced mod N: statistically uniform.
        let mut buf = vec![0u8; pk.n().significant_bits().div_ceil(8) as usize + 16];
        t.append_u64_be(b"attempt", counter);
        t.challenge_bytes(b"x", &mut buf);
        let x = modulo(&from_be_bytes(&buf), n);
        let h = modulo(&(-mul_mod(&x, &x, n)), n);
        if is_unit_in_range(&h, n) {
            let h_n = pow_mod_vartime(&h, n, pk.n_squared())?;
            return Ok(h_n);
        }
        counter += 1;
    }
}

impl DjnTables {
    /// Builds the tables for `pk` (about 5.7 MB for the comb table at `|N| = 3072`). The
    /// comb table covers the longest secret exponent, the shuffle proof's mask `φ`
    /// ([`shuffle_mask_bits`], 1852 bits at `|N| = 3072`); shorter exponents with a public
    /// bound read only the rows they need ([`FixedBaseCt::pow_bits`]).
    pub fn new(pk: &PublicKey) -> Result<Self, MixnetError> {
        let h_n = derive_h_n(pk)?;
        let n2 = pk.n_squared();
        let secret = FixedBaseCt::new(&h_n, n2, mask_bits(pk).max(shuffle_mask_bits(pk)))?;
        // One Yao table for every public response: the shuffle's `k_F` is the longest.
        let public = FixedBase::new(&h_n, n2, response_bits(pk).max(shuffle_response_bits(pk)))?;
        Ok(DjnTables {
            h_n,
            alpha_bits: alpha_bits(pk),
            mask_bits: mask_bits(pk),
            secret,
            public,
        })
    }

    /// Whether these are the tables of `pk` (same `N²`).
    pub fn is_for(&self, pk: &PublicKey) -> bool {
        self.public.modulus() == pk.n_squared()
    }

    /// `h_N`.
    pub fn h_n(&self) -> &Integer {
        &self.h_n
    }

    /// Fresh randomness `α < 2^{⌈|N|/2⌉}`.
    pub fn random_alpha<R: RngCore + CryptoRng>(&self, rng: &mut R) -> SecretInteger {
        SecretInteger::new(random_bits(rng, self.alpha_bits))
    }

    /// `h_N^e` for a secret `0 ≤ e < 2^{mask_bits}` (a proof mask; full-row scans, see
    /// [`FixedBaseCt`]).
    pub fn pow_secret(&self, e: &SecretInteger) -> Result<Integer, PaillierError> {
        self.secret.pow_bits(e, self.mask_bits)
    }

    /// `h_N^e` for a secret `0 ≤ e < 2^{bits}` with a public bound `bits ≤ mask_bits`: only
    /// the comb table's first `⌈bits/4⌉` rows ([`FixedBaseCt::pow_bits`]).
    pub fn pow_secret_bits(&self, e: &SecretInteger, bits: u32) -> Result<Integer, PaillierError> {
        self.secret.pow_bits(e, bits)
    }

    /// `h_N^α` for encryption randomness `α < 2^{⌈|N|/2⌉}` ([`Self::random_alpha`]): 384
    /// table rows at `|N| = 3072` instead of the 426 a proof mask needs.
    pub fn pow_randomness(&self, alpha: &SecretInteger) -> Result<Integer, PaillierError> {
        self.secret.pow_bits(alpha, self.alpha_bits)
    }

    /// `h_N^e mod N²` for a secret `0 ≤ e < 2^{bits}` with a public bound `bits`: the comb
    /// table's first `⌈bits/4⌉` rows when `bits` fits it (the shuffle proof's mask `φ`,
    /// once per proof: 463 rows instead of ≈ 3.7k squarings, issue 17 session 14), else
    /// GMP's constant-time path with the exponent offset to the fixed length `bits + 1`
    /// (`e + 2^{bits}`, the public `h_N^{2^{bits}}` divided out), so the running time does
    /// not depend on `|e|` either way.
    pub fn pow_secret_long(
        &self,
        pk: &PublicKey,
        e: &SecretInteger,
        bits: u32,
    ) -> Result<Integer, MixnetError> {
        let n2 = pk.n_squared();
        if *e.expose() < 0 || e.expose().significant_bits() > bits {
            return Err(PaillierError::ExponentOutOfRange {
                what: "fixed-base exponent",
            }
            .into());
        }
        if bits >= 1 && bits <= self.secret.max_exp_bits() {
            return Ok(self.secret.pow_bits(e, bits)?);
        }
        let off = Integer::from(1) << bits;
        let shifted = SecretInteger::new(Integer::from(e.expose() + &off));
        let x = pow_mod_secret(&self.h_n, shifted.expose(), n2)?;
        let corr = inv_mod(&pow_mod_vartime(&self.h_n, &off, n2)?, n2)
            .ok_or(PaillierError::NotAUnit { what: "h_N" })?;
        Ok(mul_mod(&x, &corr, n2))
    }

    /// `h_N^z` for a public response `0 ≤ z < 2^{response_bits}` (or a shuffle's
    /// `k_F < 2^{shuffle_response_bits}`; variable time).
    pub fn pow_public_vartime(&self, z: &Integer) -> Result<Integer, PaillierError> {
        self.public.pow_vartime(z)
    }

    /// `h_N^z` for any public `z ≥ 0` (variable time; a batch verifier's weighted sum of
    /// responses): the Yao table for the low bits, one short exponentiation for the bits
    /// beyond it ([`FixedBase::pow_any_vartime`]).
    pub fn pow_public_any_vartime(&self, z: &Integer) -> Result<Integer, PaillierError> {
        self.public.pow_any_vartime(z)
    }
}

/// `(1 + N)^m mod N²` (`= 1 + mN`) for any integer `m`.
pub fn g_pow(pk: &PublicKey, m: &Integer) -> Integer {
    let n2 = pk.n_squared();
    modulo(&(Integer::from(m * pk.n()) + 1u32), n2)
}
