//! Camenisch–Shoup verifiable encryption of a discrete log (CS03: J. Camenisch and V. Shoup,
//! *Practical Verifiable Encryption and Decryption of Discrete Logarithms*, CRYPTO 2003,
//! ePrint 2002/161), implemented to the paper: the CCA2 encryption scheme of §3 with labels
//! and `abs`, CRT decryption with every check, and the §5 proof that the plaintext is the
//! discrete log of a public point `δ = γ^m` on a prime-order curve, with the auxiliary
//! commitment `l`, the range check on `m̃` and full-size blinding.
//!
//! # Usage
//!
//! ```no_run
//! use quorate_verenc::cs03::{self, AuxParams, Cs03Params};
//! use quorate_verenc::group::{Curve, Secp256k1};
//! use ff::Field;
//! use group::Group;
//! use rand_core::OsRng;
//!
//! // The escrow, once: a key pair and the auxiliary parameters (see "Auxiliary parameters").
//! let params = Cs03Params::aggressive(); // |n| = 3072, k = 256, k' = 128
//! let (pk, sk) = cs03::keygen(&mut OsRng, &params)?;
//! let aux = AuxParams::generate(&mut OsRng, 3072)?;
//!
//! // The owner of a key share x with public share X = x·G.
//! let x = k256::Scalar::random(&mut OsRng);
//! let big_x = k256::ProjectivePoint::generator() * x;
//! let (ct, proof) = cs03::encrypt_and_prove::<Secp256k1>(&mut OsRng, &pk, &aux, &x, &big_x, b"backup #1")?;
//!
//! // Anyone holding pk and aux: the ciphertext decrypts to log_G X.
//! cs03::verify::<Secp256k1>(&pk, &aux, &big_x, b"backup #1", &ct, &proof)?;
//!
//! // The escrow, on recovery.
//! let x2 = cs03::recover::<Secp256k1>(&sk, b"backup #1", &ct, &big_x)?;
//! assert_eq!(x, x2);
//! # Ok::<(), cs03::Cs03Error>(())
//! ```
//!
//! | item | what |
//! |---|---|
//! | [`Cs03Params`] | `|n|`, `k`, `k'` (the two settings of the note, and small test-only sizes) |
//! | [`keygen`], [`PublicKey`], [`SecretKey`] | escrow keys; the public key caches fixed-base tables |
//! | [`AuxParams`] | `(N, g̃, h̃)` with a transcript proving `⟨g̃⟩ = ⟨h̃⟩` |
//! | [`encrypt_and_prove`], [`verify`] | the §5 protocol made non-interactive (Fiat–Shamir, merlin) |
//! | [`decrypt`], [`recover`] | CRT decryption with all §3 checks; `recover` also checks `x·G = X` |
//! | [`Ciphertext`], [`Proof`] | fixed-length canonical encodings, [`ciphertext_len`], [`proof_len`] |
//!
//! # Notes
//!
//! ## Mapping to the paper
//!
//! Notation as in the paper: `n = pq` with safe primes `p = 2p' + 1`, `q = 2q' + 1`,
//! `n' = p'q'`, `h = 1 + n`, `abs(a) = n² − a` if `a > n²/2`, else `a`. `k` is the challenge
//! length (and the output length of the ciphertext hash `H`), `k'` the statistical slack.
//!
//! * **§3 key generation** ([`keygen`]): safe primes `p ≠ q` of `|n|/2` bits (top two bits
//!   set, so `n` has exactly `|n|` bits); `g = g'^{2n} mod n²` for random `g' ∈ Z*_{n²}`
//!   (checked to have order `n'`); `x1, x2, x3 ←$ [0, n²/4)`; `y_i = g^{x_i}`; a random
//!   32-byte hash key `hk` selecting `H(u, e, L) = merlin("quorate-cs03-H", hk, u, e, L)`
//!   truncated to `k` bits.
//! * **§3 encryption**: `r ←$ [0, n/4)`; `u = g^r`, `e = y1^r·h^m`,
//!   `v = abs((y2·y3^{H(u,e,L)})^r)`. Here `h^m = 1 + m·n mod n²` needs no exponentiation,
//!   and `(y2·y3^H)^r` is computed as `y2^r·y3^{rH}` with fixed-base tables.
//! * **§3 decryption** ([`decrypt`]): reject unless `abs(v) = v` and
//!   `u^{2(x2 + H·x3)} = v² (mod n²)`; then `m̂ = (e·u^{−x1})^{2t}`, `t = 2^{−1} mod n`,
//!   reject unless `m̂ ≡ 1 (mod n)`, and output `m = (m̂ − 1)/n ∈ [0, n)`. Both
//!   exponentiations run modulo `p²` and `q²` (CRT) with the secret exponents reduced modulo
//!   `p(p − 1)`, `q(q − 1)`, on GMP's constant-time `mpz_powm_sec`. The verifiable-encryption
//!   plaintext is the integer `m` read in `(−n/2, n/2)` and reduced modulo `ρ`.
//! * **The `^{2t}` step is replaced by one squaring**: with `w = e·u^{−x1}` we compute `w²`,
//!   accept iff `w² ≡ 1 (mod n)` and output `m = t·L(w²) mod n`, `L(x) = (x − 1)/n`.
//!   *Derivation.* `Z*_{n²} ≅ ⟨1+n⟩ × G_{n'} × T` with `⟨1 + n⟩` of order `n`, `G_{n'}` cyclic
//!   of order `n'` and `T ≅ Z_2 × Z_2` (all of order ≤ 2). Write `w = (1+n)^a·w'·τ`. Then
//!   `w^{2t} = (1+n)^{2ta}·w'^{2t} = (1+n)^a·w'^{2t}` (as `2t ≡ 1 mod n`, `τ² = 1`) and
//!   `w² = (1+n)^{2a}·w'²`. An element is `≡ 1 (mod n)` iff it lies in `⟨1 + n⟩`, so the paper
//!   accepts iff `w'^{2t} = 1` and the squaring variant iff `w'² = 1`. Since `n'` is odd,
//!   `w'² = 1 ⟺ w' = 1`; and `w'^{2t} = 1 ⟺ w' = 1` whenever `gcd(t, n') = 1`. Both then
//!   output `a mod n` (`L(w²) = 2a`, times `t`). Now `t = (n + 1)/2 = 2p'q' + p' + q' + 1`, so
//!   `t ≡ q' + 1 (mod p')` and `t ≡ p' + 1 (mod q')`: the two decryptions agree on every
//!   ciphertext iff `p' ∤ q' + 1` and `q' ∤ p' + 1`. [`keygen`] enforces this (and
//!   [`SecretKey::from_bytes`] re-checks it). For primes of equal length with the top two
//!   bits set it can only fail if `q' + 1 = p'` or vice versa, impossible for odd primes,
//!   so the check never rejects in practice.
//! * **§5 step 1**: `s ←$ [0, N/4)`, `l = g̃^m·h̃^s mod N`.
//! * **§5 step 2(a)**: `r' ←$ (−n·2^{k+k'−2}, n·2^{k+k'−2})`,
//!   `s' ←$ (−N·2^{k+k'−2}, N·2^{k+k'−2})`, `m' ←$ (−ρ·2^{k+k'}, ρ·2^{k+k'})`;
//!   `u' = g^{2r'}`, `e' = y1^{2r'}·h^{2m'}`, `v' = (y2·y3^H)^{2r'}`, `δ' = γ^{m'}`,
//!   `l' = g̃^{m'}·h̃^{s'}`.
//! * **§5 step 2(b)**, the challenge: `c ∈ [0, 2^k)` from a merlin transcript
//!   (`"quorate-cs03-verenc"`, version 1) over the label, the curve name, the whole public
//!   key, `(N, g̃, h̃)`, `δ`, `(u, e, v)`, `l` and `(u', e', v', δ', l')`.
//! * **§5 step 2(c)**: over the integers, `r̃ = r' − c·r`, `s̃ = s' − c·s`, `m̃ = m' − c·m`.
//!   The proof is `π = (l, c, r̃, s̃, m̃)`.
//! * **§5 step 2(d)** ([`verify`]): recompute `u' = u^{2c}·g^{2r̃}`,
//!   `e' = e^{2c}·y1^{2r̃}·h^{2m̃}`, `v' = v^{2c}·(y2·y3^H)^{2r̃}`, `δ' = δ^c·γ^{m̃}`,
//!   `l' = l^c·g̃^{m̃}·h̃^{s̃}` (negative exponents invert the base; the factor 2 kills the
//!   elements of order 2), recompute `c` and compare; check **`−n/4 < m̃ < n/4`**; and check
//!   `abs(v) = v` (the squares in step 2(d) cannot see the sign of `v`, and decryption
//!   rejects a `v` that is not in `abs` form, so the verifier must check it).
//!
//! **Range and parameter condition.** An honest `m̃` satisfies
//! `|m̃| < ρ·2^{k+k'} + 2^k·ρ < ρ·2^{k+k'+1}`, so the paper's check `|m̃| < n/4` is complete
//! when `ρ·2^{k+k'+3} ≤ n`; [`Cs03Params`] checks `256 + k + k' + 3 ≤ |n| − 1` (all supported
//! curves have `ρ < 2^256`) and the prover and verifier re-check `ρ·2^{k+k'+3} < n` with the
//! actual `ρ` ([`Cs03Error::ModulusTooSmall`]). Soundness: two accepting transcripts with
//! challenges `c1 ≠ c2` give `m = (m̃1 − m̃2)/(c2 − c1)` with `|m| < n/2` (strong RSA on `N`
//! makes the division exact and pins `m` through `l`), and `e` then decrypts to `m mod n`,
//! whose representative in `(−n/2, n/2)` is `m` itself, with `γ^m = δ`. This is why the
//! decrypted integer is read in `(−n/2, n/2)` before reducing modulo `ρ`.
//!
//! **Challenge length against `ρ`.** The paper asks for `2^k` below the smallest prime
//! factor of the group orders. Modulo `n²` and `N` the factors are `|n|/2`-bit primes, far
//! above `2^256`. On the curve, `k = 256` slightly exceeds it (`ρ ≈ 2^252` for Ed25519,
//! just below `2^255` for BLS12-381 and just below `2^256` for P-256 and secp256k1): the
//! extraction above also needs `c1 ≢ c2 (mod ρ)`, so with `k = 256` the soundness error is
//! about `2^{−⌊log₂ ρ⌋}` (at worst `2^{−252}`) instead of `2^{−256}`. `k = 128` meets the
//! condition exactly. Nothing else changes.
//!
//! **Encoding bounds.** Responses are encoded in fixed-length fields sized for the honest
//! ranges `|r̃| < n·2^{k+k'−1}`, `|s̃| < N·2^{k+k'−1}`, `|m̃| < ρ·2^{k+k'+1}` (each stored as
//! `x + B` in `[0, 2B)`), and the decoder rejects anything outside them. The `m̃` bound is
//! stricter than the paper's `n/4`, which only rejects more proofs (soundness is
//! unaffected; honest proofs always fit). [`verify`] applies the paper's check as well.
//!
//! ## Auxiliary parameters: who produces `(N, g̃, h̃)`
//!
//! Soundness needs a modulus `N` (product of two safe primes) whose factorisation and
//! `log_{h̃} g̃` the **prover** does not know; zero-knowledge needs `g̃ ∈ ⟨h̃⟩` (then
//! `l = h̃^{αm + s}` is statistically independent of `m`). Our model: **the verifier side
//! generates them** — the escrow (who is the party that needs backups to be recoverable), a
//! verifier, or a trusted party acting for the verifiers — with [`AuxParams::generate`],
//! and discards `p, q`. The prover does not need to trust that party for privacy:
//! [`AuxParams`] carries a setup transcript that anyone can check ([`AuxParams::check`],
//! run by [`AuxParams::from_bytes`]):
//!
//! * `h̃ = τ² mod N` with `τ` published, so `h̃ ∈ QR_N`;
//! * a proof of knowledge of `α` with `g̃ = h̃^α` and one of `β` with `h̃ = g̃^β`, so `g̃` and
//!   `h̃` generate the same subgroup of `QR_N`. Each is 128 parallel repetitions of the
//!   binary-challenge Schnorr protocol made non-interactive (`A_i = base^{a_i}`,
//!   `z_i = a_i + e_i·x mod p'q'`, the generator knows the order `p'q'` of `QR_N`, so `z_i`
//!   is uniform and the proof is perfectly zero-knowledge; soundness error `2^{−128}`);
//! * structural checks: `N` of the announced length, odd, not a square, no prime factor
//!   below `2^16`; `g̃, h̃ ∉ {0, ±1}`, units.
//!
//! What cannot be checked efficiently is that `N` is a product of two safe primes with a
//! factorisation nobody else knows: a verifier who did not generate `N` must trust whoever
//! did (ideally itself or the escrow). A malicious generator can only hurt soundness for
//! verifiers who trust it, never the prover's privacy.
//!
//! ## Operation counts (`E(mod, bits)` = one exponentiation)
//!
//! * Encrypt + prove: mod `n²`: `u, e, v` are 4 fixed-base exponentiations with secret
//!   exponents (`g^r, y1^r, y2^r` of `|n|` bits and `y3^{rH}` of `|n|+k` bits), `u', e', v'` are
//!   4 more (`|n|+k+k'+1` bits, and `|n|+2k+k'+1` for `y3^{2r'H}`); `h^m` and `h^{2m'}` are
//!   multiplications. Mod `N`: `g̃^m, h̃^s, g̃^{m'}, h̃^{s'}` (fixed base, secret exponents),
//!   plus two public correction powers. One scalar multiplication on the curve. Independent
//!   exponentiations run in parallel (rayon).
//! * Verify: mod `n²`: `u^{2c}, e^{2c}, v^{2c}` (`k+1` bits, vartime) and
//!   `g^{2r̃}, y1^{2r̃}, y2^{2r̃}, y3^{2r̃H}` (fixed base, vartime, `|n|+k+k'` / `|n|+2k+k'` bits);
//!   mod `N`: `l^c`, `g̃^{m̃}`, `h̃^{s̃}`; on the curve `δ^c·γ^{m̃}`.
//! * Decrypt: 4 constant-time exponentiations modulo `p²`/`q²` with `|n|`-bit exponents
//!   (`u^{x1}` and `u^{2(x2+Hx3)}` for each prime), then one squaring mod `n²`.
//!
//! Secret exponents use [`FixedBaseCt`](quorate_paillier::fixed_base::FixedBaseCt) (full-scan
//! comb; see its docs for what is and is not constant time) or `mpz_powm_sec`. Signed secret
//! exponents `x ∈ (−B, B)` are handled as `b^{x + B − 1}·b^{−(B − 1)}` with a public
//! correction, so no branch depends on the sign. Public exponents go through the `_vartime`
//! paths. The fixed-base tables live in the [`PublicKey`] and [`AuxParams`] (built on first
//! use or by `precompute`).
//!
//! ## Measured (2-core shared VM, load 3–4, wall clock, median of 10, tables precomputed)
//!
//! | `|n| = |N|`, `k = 256` | P (encrypt + prove) | V | Dec (recover) | `|C|` | `|π|` |
//! |---|---|---|---|---|---|
//! | 3072 | 78 ms | 28 ms | 30 ms | 2304 B | 1361 B |
//! | 4096 | 145 ms | 50 ms | 70 ms | 3072 B | 1745 B |
//!
//! Building the tables ([`PublicKey::precompute`], [`AuxParams::precompute`]) takes 0.8 s
//! (3072) and 1.6 s (4096), once per key. `|π|` is one byte more than the sum of the
//! responses' magnitudes: the `m̃` field holds `|m̃| < ρ·2^{k+k'+1}` and its sign (642 bits,
//! 81 bytes, for 256-bit `ρ`).
//!
//! ## Deviations of other implementations that we avoid
//!
//! Hyperledger Ursa, coinbase/kryptology `camshoup` and the `verenc` crate:
//!
//! * omit the commitment `l` and the range check on `m̃` (the idemix variant): without them
//!   a prover can encrypt `m + jρ` wrapped modulo `n` and still pass, and the escrow
//!   decrypts the wrong scalar (our unit test `forged_wrapping_plaintext_is_caught` builds
//!   exactly such a proof and checks that the range check rejects it);
//! * draw the blinding `r'` from `[0, n/4)` (or `[0, n/2)`), so `r̃ = r' − c·r` reveals the top
//!   bits of `r`: we draw `r'` from `±n·2^{k+k'−2}`, `s'` from `±N·2^{k+k'−2}` and `m'` from
//!   `±ρ·2^{k+k'}` (tests check the spread of `r̃` and that `r` cannot be estimated from it);
//! * use `g = g'^{2n²}` instead of `g'^{2n}`.
//!
//! TZ21's cost estimate for CS03 treats `r', s'` as `2k`-bit; they are `|n|+k+k'` and
//! `|N|+k+k'` bits here, as in the paper.
//!
//! ## Parameters
//!
//! `|n| ∈ {3072, 4096}`, `k ∈ {128, 256}`, `k' = 128` ([`Cs03Params::new`]). Tests use
//! [`Cs03Params::insecure_test_params`] (`|n|` from 1024 to 2048 bits), which must never be
//! used for real backups; [`Cs03Params::is_production`] tells them apart after decoding.

mod aux;
mod keys;
mod proof;
#[cfg(test)]
mod tests;

pub use aux::AuxParams;
pub use keys::{keygen, PublicKey, SecretKey};
pub use proof::{
    ciphertext_len, decrypt, encrypt_and_prove, proof_len, recover, verify, Ciphertext, Proof,
};

use crate::group::GroupDecodeError;
use quorate_paillier::bigint;
use quorate_paillier::rug::Integer;
use quorate_paillier::PaillierError;

/// Everything that can go wrong in CS03.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Cs03Error {
    /// Parameters outside what this module supports.
    #[error("unsupported parameters: {0}")]
    Params(&'static str),
    /// `ρ·2^{k+k'+3} < n` does not hold, so honest responses could fail the range check.
    #[error("|n| = {modulus_bits} bits is too small for k + k' and the group order: need at least {needed_bits} bits")]
    ModulusTooSmall {
        /// `|n|`.
        modulus_bits: u32,
        /// The smallest `|n|` that satisfies the condition.
        needed_bits: u32,
    },
    /// An encoding has the wrong length.
    #[error("{what}: expected {expected} bytes, got {got}")]
    Length {
        /// What was being decoded.
        what: &'static str,
        /// The required length.
        expected: usize,
        /// The length received.
        got: usize,
    },
    /// An encoding starts with an unknown version byte.
    #[error("{what}: unsupported encoding version {got}")]
    Version {
        /// What was being decoded.
        what: &'static str,
        /// The version byte received.
        got: u8,
    },
    /// An encoded integer is outside its range.
    #[error("{what}: value out of range")]
    OutOfRange {
        /// What was being decoded.
        what: &'static str,
    },
    /// An encoded group element is not a unit modulo its modulus.
    #[error("{what}: not a unit modulo the modulus")]
    NotAUnit {
        /// What was being decoded.
        what: &'static str,
    },
    /// Key material that is inconsistent or malformed.
    #[error("invalid key: {0}")]
    InvalidKey(&'static str),
    /// Auxiliary parameters that fail their checks.
    #[error("invalid auxiliary parameters: {0}")]
    InvalidAux(&'static str),
    /// A curve point or scalar encoding was rejected.
    #[error(transparent)]
    Group(#[from] GroupDecodeError),
    /// The secret does not match the public point of the statement.
    #[error("the secret scalar is not the discrete log of the public point")]
    InvalidStatement,
    /// The proof does not verify.
    #[error("proof rejected: {0}")]
    ProofRejected(&'static str),
    /// The ciphertext was rejected by decryption (all of the paper's checks give this one
    /// error, so a decryption oracle reveals nothing more than "reject").
    #[error("ciphertext rejected by decryption")]
    Decryption,
    /// The decrypted scalar `x` does not satisfy `x·G = X`.
    #[error("the decrypted scalar does not match the public share")]
    WrongPublicShare,
    /// A big-integer operation failed (cannot happen with valid keys).
    #[error(transparent)]
    Arithmetic(#[from] PaillierError),
}

/// Encoding version byte of every CS03 object that has a header.
const VERSION: u8 = 1;
/// The largest group order supported, in bits (all four curves have `ρ < 2^256`).
const MAX_ORDER_BITS: u32 = 256;
/// The largest `k` and `k'` any parameter set uses (sizes the auxiliary tables).
const MAX_CHALLENGE_BITS: u32 = 256;
const MAX_SLACK_BITS: u32 = 128;

/// CS03 parameters: `|n|` in bits, the challenge length `k` (also the length of the
/// ciphertext hash `H`) and the statistical slack `k'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cs03Params {
    /// `|n|` (the Paillier-type modulus; ciphertexts live mod `n²`).
    pub modulus_bits: u32,
    /// `k`: challenge bits (128 or 256).
    pub challenge_bits: u32,
    /// `k'`: statistical zero-knowledge slack bits (128).
    pub slack_bits: u32,
}

impl Cs03Params {
    /// Production parameters: `|n| ∈ {3072, 4096}`, `k ∈ {128, 256}`, `k' = 128`.
    pub fn new(modulus_bits: u32, challenge_bits: u32, slack_bits: u32) -> Result<Self, Cs03Error> {
        if modulus_bits != 3072 && modulus_bits != 4096 {
            return Err(Cs03Error::Params("|n| must be 3072 or 4096 bits"));
        }
        let p = Cs03Params {
            modulus_bits,
            challenge_bits,
            slack_bits,
        };
        p.validate()?;
        Ok(p)
    }

    /// The "aggressive" setting: `|n| = 3072`, `k = 256`, `k' = 128`.
    pub fn aggressive() -> Self {
        Cs03Params {
            modulus_bits: 3072,
            challenge_bits: 256,
            slack_bits: 128,
        }
    }

    /// The "conservative" setting: `|n| = 4096`, `k = 256`, `k' = 128`.
    pub fn conservative() -> Self {
        Cs03Params {
            modulus_bits: 4096,
            challenge_bits: 256,
            slack_bits: 128,
        }
    }

    /// **Insecure, for tests only**: `|n|` from 1024 to 2048 bits (a multiple of 128),
    /// `k ∈ {128, 256}`, `k' = 128`. Keys this small are fast to generate and offer no
    /// real security.
    pub fn insecure_test_params(modulus_bits: u32, challenge_bits: u32) -> Result<Self, Cs03Error> {
        if !(1024..=2048).contains(&modulus_bits) || !modulus_bits.is_multiple_of(128) {
            return Err(Cs03Error::Params(
                "test |n| must be a multiple of 128 between 1024 and 2048 bits",
            ));
        }
        let p = Cs03Params {
            modulus_bits,
            challenge_bits,
            slack_bits: 128,
        };
        p.validate()?;
        Ok(p)
    }

    /// Whether these are production parameters (not [`Self::insecure_test_params`]).
    pub fn is_production(&self) -> bool {
        (self.modulus_bits == 3072 || self.modulus_bits == 4096) && self.validate().is_ok()
    }

    /// Checks `k`, `k'`, `|n|` and the condition `2^256·2^{k+k'+3} ≤ 2^{|n|−1}` (so that
    /// `ρ·2^{k+k'+3} < n` for every supported curve).
    pub fn validate(&self) -> Result<(), Cs03Error> {
        if self.challenge_bits != 128 && self.challenge_bits != 256 {
            return Err(Cs03Error::Params("k must be 128 or 256"));
        }
        if self.slack_bits != 128 {
            return Err(Cs03Error::Params("k' must be 128"));
        }
        if !(1024..=4096).contains(&self.modulus_bits) || !self.modulus_bits.is_multiple_of(128) {
            return Err(Cs03Error::Params(
                "|n| must be a multiple of 128 between 1024 and 4096 bits",
            ));
        }
        let needed = MAX_ORDER_BITS + self.challenge_bits + self.slack_bits + 3 + 1;
        if self.modulus_bits < needed {
            return Err(Cs03Error::ModulusTooSmall {
                modulus_bits: self.modulus_bits,
                needed_bits: needed,
            });
        }
        Ok(())
    }

    /// `ρ·2^{k+k'+3} < n` for a concrete group order and modulus.
    fn check_order(&self, rho: &Integer, n: &Integer) -> Result<(), Cs03Error> {
        let lhs = Integer::from(rho << (self.challenge_bits + self.slack_bits + 3));
        if lhs >= *n {
            return Err(Cs03Error::ModulusTooSmall {
                modulus_bits: self.modulus_bits,
                needed_bits: lhs.significant_bits() + 1,
            });
        }
        Ok(())
    }

    fn write(&self, out: &mut Vec<u8>) {
        for x in [self.modulus_bits, self.challenge_bits, self.slack_bits] {
            // Every accepted value is at most 4096, so it fits in 16 bits.
            out.extend_from_slice(&(x as u16).to_be_bytes());
        }
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, Cs03Error> {
        let mut v = [0u32; 3];
        for x in v.iter_mut() {
            let b = r.take(2)?;
            *x = u32::from(u16::from_be_bytes([b[0], b[1]]));
        }
        let p = Cs03Params {
            modulus_bits: v[0],
            challenge_bits: v[1],
            slack_bits: v[2],
        };
        p.validate()?;
        Ok(p)
    }

    /// Bytes of an element of `Z_{n²}`.
    fn n2_len(&self) -> usize {
        (self.modulus_bits as usize) / 4
    }

    /// Bytes of an element of `Z_n`.
    fn n_len(&self) -> usize {
        (self.modulus_bits as usize) / 8
    }
}

/// A cursor over untrusted bytes: every read is length-checked.
struct Reader<'a> {
    what: &'static str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(what: &'static str, bytes: &'a [u8]) -> Self {
        Reader {
            what,
            bytes,
            pos: 0,
        }
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], Cs03Error> {
        let end = self.pos.checked_add(len).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(Cs03Error::Length {
                what: self.what,
                expected: self.pos.saturating_add(len),
                got: self.bytes.len(),
            }),
        }
    }

    fn version(&mut self) -> Result<(), Cs03Error> {
        let b = self.take(1)?[0];
        if b != VERSION {
            return Err(Cs03Error::Version {
                what: self.what,
                got: b,
            });
        }
        Ok(())
    }

    /// A fixed-length unsigned integer below `bound`.
    fn uint_below(
        &mut self,
        what: &'static str,
        len: usize,
        bound: &Integer,
    ) -> Result<Integer, Cs03Error> {
        let x = bigint::from_be_bytes(self.take(len)?);
        if x >= *bound {
            return Err(Cs03Error::OutOfRange { what });
        }
        Ok(x)
    }

    /// A fixed-length unit of `Z_m` (`0 < x < m`, `gcd(x, m) = 1`).
    fn unit(&mut self, what: &'static str, len: usize, m: &Integer) -> Result<Integer, Cs03Error> {
        let x = self.uint_below(what, len, m)?;
        if !bigint::is_unit_in_range(&x, m) {
            return Err(Cs03Error::NotAUnit { what });
        }
        Ok(x)
    }

    /// A signed integer `|x| < bound`, stored as `x + bound` in `[0, 2·bound)`.
    fn signed(&mut self, what: &'static str, bound: &Integer) -> Result<Integer, Cs03Error> {
        let len = signed_len(bound);
        let y = bigint::from_be_bytes(self.take(len)?);
        let x = y - bound;
        if Integer::from(x.abs_ref()) >= *bound {
            return Err(Cs03Error::OutOfRange { what });
        }
        Ok(x)
    }

    fn finish(self) -> Result<(), Cs03Error> {
        if self.pos != self.bytes.len() {
            return Err(Cs03Error::Length {
                what: self.what,
                expected: self.pos,
                got: self.bytes.len(),
            });
        }
        Ok(())
    }
}

/// Bytes of a signed field with bound `B` (values `x + B ∈ [0, 2B)`).
fn signed_len(bound: &Integer) -> usize {
    let top = Integer::from(bound * 2u32) - 1u32;
    bigint::byte_len(top.significant_bits())
}

/// Appends `x` (`0 ≤ x < 2^{8·len}`) as exactly `len` big-endian bytes. Callers only pass
/// values that fit (reduced residues, in-range responses); a value that does not fit would
/// be written as zeros, which no decoder accepts as a valid object.
fn put_uint(out: &mut Vec<u8>, x: &Integer, len: usize) {
    let start = out.len();
    out.resize(start + len, 0);
    let _fits = bigint::write_be_padded(x, &mut out[start..]);
}

/// Appends a signed value `|x| < bound` as `x + bound`.
fn put_signed(out: &mut Vec<u8>, x: &Integer, bound: &Integer) {
    let y = Integer::from(x + bound);
    put_uint(out, &y, signed_len(bound));
}

/// `a·b mod m`.
fn mulm(a: &Integer, b: &Integer, m: &Integer) -> Integer {
    bigint::mul_mod(a, b, m)
}
