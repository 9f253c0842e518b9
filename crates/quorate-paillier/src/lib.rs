//! # quorate-paillier
//!
//! The big-integer groups of quorate, on GMP (through `rug`, linked against the system
//! `libgmp`): safe primes, Paillier encryption with CRT decryption, threshold Paillier
//! decryption with verifiable shares, and fixed-base exponentiation tables. The verifiable
//! encryption (CS03) and traceable-mixnet crates build on it.
//!
//! | module | contents |
//! |---|---|
//! | [`primes`] | random primes and safe primes `p = 2q + 1` (sieve + GMP's BPSW/Miller–Rabin) |
//! | [`paillier`] | keys, `Enc`/`Dec` (CRT), homomorphic operations, checked encodings |
//! | [`threshold`] | trusted-dealer `t`-of-`ℓ` threshold Paillier (Shoup/Damgård–Jurik, `s = 1`) |
//! | [`batch`] | one party's decryption shares of a whole list with one batched proof (random 128-bit weights); all parties' proofs checked at once |
//! | [`fixed_base`] | Yao tables (public exponents) and full-scan comb tables (secret exponents) |
//! | [`bigint`] | sampling from a caller's RNG, fixed-length encodings, ct/vartime `pow_mod`, wiping |
//!
//! ```
//! use quorate_paillier::paillier::SecretKey;
//! use rand_core::OsRng;
//! use rug::Integer;
//!
//! let sk = SecretKey::generate(1024, &mut OsRng)?; // use ≥ 3072 bits in production
//! let pk = sk.public_key();
//! let a = pk.encrypt(&Integer::from(20), &mut OsRng)?;
//! let b = pk.encrypt(&Integer::from(22), &mut OsRng)?;
//! assert_eq!(sk.decrypt(&pk.add(&a, &b))?, 42);
//! # Ok::<(), quorate_paillier::PaillierError>(())
//! ```
//!
//! Threshold decryption, the whole protocol: a dealer shares the key `t`-of-`ℓ`, each party
//! sends a decryption share with its proof, anyone checks the shares (a bad one names its
//! sender) and combines `t` of them.
//!
//! ```
//! use quorate_core::transcript::SessionId;
//! use quorate_core::ThresholdParams;
//! use quorate_paillier::rug::Integer;
//! use quorate_paillier::threshold::deal;
//! use rand_core::OsRng;
//!
//! let (tpk, shares) = deal(ThresholdParams::new(2, 3)?, 512, &mut OsRng)?; // tests only: use ≥ 3072
//! let c = tpk.encryption_key().encrypt(&Integer::from(1234), &mut OsRng)?;
//! let sid = SessionId::new(b"decrypt ballot box 9".to_vec());
//! let verified = shares[1..]
//!     .iter()
//!     .map(|s| {
//!         let wire = tpk.encode_share(&s.decrypt_share(&tpk, &sid, &c, &mut OsRng)?);
//!         tpk.verify_share(&sid, &c, &tpk.decode_share(&wire)?)
//!     })
//!     .collect::<Result<Vec<_>, _>>()?;
//! assert_eq!(tpk.combine(&verified)?, 1234);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Math notes
//!
//! **Notation.** `n = pq`; `L(x) = (x − 1)/n`; `Z_{n²}^*` has order `nφ(n)` and splits as
//! `⟨1 + n⟩ × {n-th residues}`, where `1 + n` has order `n` and `(1 + n)^m = 1 + mn (mod n²)`.
//! For safe primes `p = 2p' + 1`, `q = 2q' + 1` write `m = p'q'`; then `φ(n) = 4m`,
//! `λ(n) = 2m`, and the squares `QR_{n²}` form a cyclic group of order `nm`.
//!
//! **Paillier.** `Enc(M; r) = (1 + n)^M·r^n`. Raising to `λ` kills the `r^n` part
//! (`r^{nλ} = 1`) and leaves `1 + λMn`, hence `M = L(c^λ)·λ^{-1} mod n`. With the CRT, work
//! modulo `p²` and `q²` separately with exponents `p − 1`, `q − 1` (see [`paillier`]):
//! two half-size exponentiations modulo half-size moduli, about 4× faster.
//!
//! **Threshold Paillier** (see [`threshold`]). The secret is `d ≡ 0 (mod m)`,
//! `d ≡ 1 (mod n)`, Shamir-shared modulo `nm`. Party `i` publishes `c_i = c^{2Δs_i}`;
//! with the integer Lagrange coefficients `μ_i = Δ·Π_{j≠i} j/(j − i)` (integers because
//! `Δ = ℓ!`), `Π c_i^{2μ_i} = c^{4Δ²d} = 1 + 4Δ²Mn`, so `M = L(·)·(4Δ²)^{-1} mod n`.
//! Each share comes with a Fiat–Shamir Chaum–Pedersen proof over the integers that
//! `log_{c⁴} c_i² = log_v v_i`, where `v_i = v^{Δs_i}` are the published verification keys;
//! a share whose proof fails names its sender ([`quorate_core::Blame`]).
//!
//! **Fixed base.** For repeated bases, precomputed powers `b^{2^{wi}}` turn an exponentiation
//! into about `bits/w + 2^w` multiplications without squarings (Yao), 4–5× faster than
//! `mpz_powm` at `|n|`-bit exponents (see [`fixed_base`]).
//!
//! # Security notes
//!
//! * **Constant time.** Operations with secret exponents or secret bases use GMP's
//!   `mpz_powm_sec` ([`bigint::pow_mod_secret`]); functions that are variable time in an
//!   exponent end in `_vartime` and take only public exponents. GMP's other `mpz`
//!   arithmetic is not constant time (see [`bigint`]); prime generation is not constant
//!   time ([`primes`]).
//! * **Zeroization.** Secrets live in [`bigint::SecretInteger`], which overwrites its GMP
//!   limbs on drop; copies made inside GMP (reallocations, scratch space) are out of reach
//!   without `unsafe` (see [`bigint`]). Secret types print as `<redacted>`.
//! * **Decoding.** Every decoder is length-checked and canonical and returns a typed error:
//!   ciphertexts must satisfy `0 < c < n²`, `gcd(c, n) = 1`.
//! * **Trusted dealer.** Threshold keys come from a dealer who knows the factorisation.
//! * **Key sizes.** Tests use 512–1024-bit `n` for speed; use ≥ 3072 bits
//!   ([`paillier::RECOMMENDED_MODULUS_BITS`]).
//!
//! # GMP linkage
//!
//! `rug` 1.19 with `gmp-mpfr-sys` 1.5 and its `use-system-libs` feature links the system's
//! `libgmp` (Debian's 6.2.1, the fastest of the GMP builds measured for this crate) instead of building GMP
//! from source (which would need `m4`). Newer `gmp-mpfr-sys` (≥ 1.6) refuse a system GMP
//! older than 6.3. The `rug` crate is re-exported as [`rug`] so that dependants use the same
//! version (only one `gmp-mpfr-sys` may be linked per build).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod batch;
pub mod bigint;
pub mod error;
pub mod fixed_base;
pub mod paillier;
pub mod primes;
pub mod threshold;

pub use batch::BatchDecryptionShares;
pub use error::PaillierError;
pub use paillier::{Ciphertext, Nonce, PublicKey, SecretKey};
pub use primes::generate_safe_prime;
pub use rug;
pub use threshold::{DecryptionShare, KeyShare, ThresholdPublicKey, VerifiedDecryptionShare};
