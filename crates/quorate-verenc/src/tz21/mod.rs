//! # TZ21: verifiable encryption from MPC-in-the-head (DKGitH and RDKGitH)
//!
//! Takahashi and Zaverucha, *Verifiable Encryption from MPC-in-the-Head* (ePrint 2021/1704,
//! IACR CiC 1(1), 2024), Protocols 4 (DKGitH) and 5 (RDKGitH), over any of the prime-order
//! groups of [`crate::group`]. A prover holding `x` with public share `X = x·G` encrypts `x`
//! to an escrow's hashed-ElGamal key `ek` and proves, non-interactively, that the escrow will
//! recover `x`. The verifier then *compresses* the proof into a short ciphertext of `n`
//! hashed-ElGamal ciphertexts; the escrow decrypts them one after another and keeps the
//! candidate `x'` with `x'·G = X`.
//!
//! ```text
//! prover:   (ek, x, X, label) --prove-->  proof            (|tr| = proof bytes)
//! verifier: proof --verify--> ok --compress--> compressed  (|C| = compressed bytes)
//! escrow:   (dk, X, label, compressed) --recover--> x
//! ```
//!
//! # Usage
//!
//! ```no_run
//! use ff::Field;
//! use group::Group;
//! use quorate_verenc::group::{Curve, Secp256k1};
//! use quorate_verenc::tz21::{self, CompressedCiphertext, Proof, Tz21Params};
//! use rand_core::OsRng;
//!
//! let params = Tz21Params::default_rdkgith(); // (N, t, n) = (132, 64, 67)
//! // The escrow, once.
//! let (ek, dk) = tz21::keygen::<Secp256k1>(&mut OsRng);
//! // The owner of a share x with public share X = x·G.
//! let x = k256::Scalar::random(&mut OsRng);
//! let big_x = k256::ProjectivePoint::generator() * x;
//! let proof = tz21::prove(&mut OsRng, &params, &ek, &x, &big_x, b"backup #1")?;
//! let wire = proof.to_bytes();
//! // The verifier keeps a short ciphertext.
//! let proof = Proof::<Secp256k1>::from_bytes(&wire)?;
//! let kept = tz21::verify_and_compress(&mut OsRng, &params, &ek, &big_x, b"backup #1", &proof)?;
//! let stored = kept.to_bytes();
//! // The escrow, on recovery.
//! let kept = CompressedCiphertext::<Secp256k1>::from_bytes(&stored)?;
//! assert_eq!(tz21::recover(&params, &dk, &big_x, b"backup #1", &kept)?, x);
//! # Ok::<(), tz21::Tz21Error>(())
//! ```
//!
//! ## Hashed ElGamal (the PKE both protocols use)
//! `ek = dk·G`; `Enc(m; r) = (c1, c2) = (r·G, H(r·ek) + m)`; `Dec(c1, c2) = c2 − H(dk·c1)`,
//! with `H` = SHA-256 (domain-separated, curve-named) of the encoding of the point, expanded
//! to a uniform scalar with ChaCha20. See [`encrypt`] and [`decrypt`].
//!
//! ## DKGitH (Protocol 4) — code map ([`dkgith`])
//! Parameters `(N, τ, n)`: `N` parties, `τ` parallel repetitions, `n` ciphertexts kept by
//! compression.
//! 1. *Share.* For each repetition `j`, a GGM seed tree (SHA-256, 16-byte seeds, per-proof
//!    32-byte salt) gives party seeds `seed_i`; each seed yields `s_i` and the encryption
//!    randomness `r_i`. Party 0's share is corrected by `Δ_j = x − Σ s_i` so that
//!    `Σ s_i = x`.
//! 2. *Commit (run the MPC in the head).* Party `i` broadcasts `Y_i = s_i·G` and the
//!    ciphertext `ct_i = Enc(ek, s_i; r_i)`. The digest of all `(Y_i, ct_i)` and `Δ_j` enters
//!    the transcript.
//! 3. *Challenge.* Fiat–Shamir gives one hidden party `i*_j` per repetition.
//! 4. *Respond.* The proof holds `Δ_j`, `ct_{i*_j}` and the `⌈log₂ N⌉` sibling seeds that
//!    open every leaf but `i*_j`.
//! 5. *Verify.* Recompute `(Y_i, ct_i)` of the `N − 1` opened parties, set
//!    `Y_{i*} = X − Σ_{i≠i*} Y_i` (this is the MPC output check `Σ Y_i = X`), and
//!    recompute the challenge.
//! 6. *Compress.* Pick `n` of the `τ` repetitions at random; for each, output
//!    `(c1, c2 + Σ_{i≠i*} s_i)`, an encryption of `Σ s_i = x`.
//! 7. *Recover.* Decrypt each and return the first `x'` with `x'·G = X`.
//!
//! ## RDKGitH (Protocol 5) — code map ([`rdkgith`])
//! Parameters `(N, t, n)`: `N` parties holding Shamir shares of a degree-`t` polynomial,
//! `t` of them opened, `n` of the `N − t` unopened ciphertexts kept by compression.
//! 1. *Share.* `f(z) = x + a_1 z + … + a_t z^t`; party `i ∈ [0, N)` holds `s_i = f(i + 1)`;
//!    commitments `A_j = a_j·G` (and `A_0 = X`).
//! 2. *Commit.* `ct_i = Enc(ek, s_i; r_i)` with `r_i` from a 16-byte seed; the transcript
//!    takes the salt, `A_1..A_t` and the digest of all `ct_i`.
//! 3. *Challenge.* A uniformly random set `I` of `t` parties to open.
//! 4. *Respond.* `(s_i, seed_i)` for `i ∈ I` and `ct_i` for `i ∉ I`.
//! 5. *Verify.* Recompute `ct_i` for `i ∈ I`, recompute the challenge, and check
//!    `s_i·G = Σ_j (i+1)^j A_j` for all `i ∈ I` at once with a random linear combination
//!    (Bellare–Garay–Rabin batching; the coefficients come from the transcript after it has
//!    absorbed the whole response).
//! 6. *Compress.* For `n` random hidden `i*`: with the Lagrange coefficients `λ_k` of the
//!    set `I ∪ {i*}` at 0, output `(c1, λ_{i*}·c2 + Σ_{k∈I} λ_k s_k)` together with
//!    `λ_{i*}`; it decrypts to `λ_{i*}·H(dk·c1) + x`.
//! 7. *Recover.* `x' = c2' − λ_{i*}·H(dk·c1)`; keep the `x'` with `x'·G = X`.
//!
//! ## Soundness
//! A cheating prover wins if the verifier accepts and every kept ciphertext decrypts to
//! something other than `x`. With `k` bad repetitions (DKGitH) the proof passes with
//! probability `N^{−k}` and compression misses every good repetition with probability
//! `C(k, n)/C(τ, n)`; with `k` bad parties (RDKGitH) these are `C(N−k, t)/C(N, t)` and
//! `C(k, n)/C(N−t, n)`. [`Tz21Params::soundness_bits`] returns `−log₂ max_k` of the product;
//! it is the cost, in hash evaluations, of a Fiat–Shamir grinding attack:
//!
//! | set | `(N, τ/t, n)` | soundness (bits) |
//! |---|---|---|
//! | [`Tz21Params::DKGITH_64_48_15`]   | (64, 48, 15)   | 130.0 |
//! | [`Tz21Params::DKGITH_85_20_20`]   | (85, 20, 20)   | 128.2 |
//! | [`Tz21Params::DKGITH_16_32_30`]   | (16, 32, 30)   | 128.0 |
//! | [`Tz21Params::DKGITH_4_64_48`]    | (4, 64, 48)    | 128.0 |
//! | [`Tz21Params::RDKGITH_132_64_67`] | (132, 64, 67)  | 128.1 |
//! | [`Tz21Params::RDKGITH_160_80_55`] | (160, 80, 55)  | 130.3 |
//! | [`Tz21Params::RDKGITH_256_226_30`]| (256, 226, 30) | 129.7 |
//! | [`Tz21Params::RDKGITH_704_684_20`]| (704, 684, 20) | 127.7 |
//!
//! Compression must use randomness the prover cannot predict: [`compress`] takes an RNG.
//! [`check_compressed`] lets a later party check that a stored compressed ciphertext is
//! made of entries the (verified) proof vouches for; it cannot check that they were chosen
//! at random.
//!
//! ## Performance notes
//! Per call, DKGitH costs about `3·N·τ` fixed-base multiplications on each side and
//! RDKGitH `t + 2N` (prover) and `2t` plus one `(t+1)`-point MSM (verifier); every
//! multiplied point is also encoded for hashing. [`ops`] supplies constant-time windowed
//! tables for the prover (secret scalars), large variable-time tables and Straus MSM for the
//! verifier, batched normalisation where the curve crate has it (secp256k1), and rayon over
//! repetitions / parties. P-256 is the slowest group here: `p256` 0.13 has no batched
//! normalisation (one ~6 µs inversion per encoded point) and ~0.34 µs additions, so the
//! multiples of `G` (`t + N` of the `t + 2N` multiplications of an RDKGitH proof, two of
//! three per DKGitH party) and the escrow's `dk·c1` go to OpenSSL's constant-time
//! assembly P-256, which returns each result already encoded; the multiples of `ek` stay
//! on a cached `p256` table, which beats OpenSSL's table-less `s·P`.
//! RDKGitH compression is `O(N + t·(N − t) + n·t)` field operations (inverses of small
//! integers and factorials from batch inversions): about a millisecond at every reference
//! set, against the reference's 34 ms to 1.5 s.
//!
//! ## Differences from the reference implementation (`akiratk0355/verenc-mpcith`, `dkgith/`)
//! - **`A_0 = X` is enforced.** The reference sends `A_0` in the RDKGitH proof and never
//!   checks it against the statement; here `A_0` is not sent and `X` takes its place in the
//!   share check, which is what the protocol intends (and 1 point shorter).
//! - **RDKGitH randomness from seeds.** Opened parties reveal a 16-byte seed instead of the
//!   32-byte `r_i`, and party indices are implied by the challenge instead of being sent.
//! - **Transcript.** A merlin transcript binds protocol name, version, scheme, `(N, τ/t, n)`,
//!   curve, `ek`, `X`, the label and all commitments; the reference hashes only the
//!   commitments, `X` and `ek` with SHA-512. Challenges are 32 bytes (the reference's 64).
//! - **Deterministic verification.** The batching coefficients of the RDKGitH share check
//!   come from the transcript rather than from `OsRng`.
//! - **Encodings** carry an 8-byte header (version, scheme, `N`, `τ/t`, `n`), included in
//!   the sizes reported by [`Proof::size`] and [`CompressedCiphertext::size`].
//! - **Recovery** returns a typed error instead of zero when no candidate matches.
//! - **PRG.** Shares and randomness are drawn with `ff::Field::random` from ChaCha20 keyed by
//!   SHA-256 of (domain, scheme, curve, salt, repetition, party, seed); the reference reduces
//!   SHA-512 outputs.
//! - **API.** [`compress`] takes the verifier's RNG explicitly (the reference uses `OsRng`
//!   inside).

pub mod common;
pub mod dkgith;
pub mod ops;
mod p256_openssl;
pub mod rdkgith;

use ff::Field;
use group::GroupEncoding;
use quorate_core::secret::{wipe_field, REDACTED};
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroizing;

pub use common::Ciphertext;
pub use ops::Tz21Curve;

use crate::group::{Curve, GroupDecodeError};
use common::Reader;

/// Version byte of every encoding produced by this module.
pub const ENCODING_VERSION: u8 = 1;
/// Length of the header of proofs and compressed ciphertexts.
pub const HEADER_LEN: usize = 8;
/// Largest number of parties accepted (bounds the work an untrusted encoding can cause).
pub const MAX_PARTIES: usize = 4096;
/// Largest number of DKGitH repetitions accepted.
pub const MAX_REPETITIONS: usize = 1024;
/// Largest DKGitH `N·τ` accepted: verification costs about `3·N·τ` scalar
/// multiplications, while the proof grows only with `τ·log₂N`, so this bounds the work an
/// untrusted header can ask for (the reference sets need at most 3072).
pub const MAX_DKGITH_WORK: usize = 16384;

/// Which TZ21 protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Protocol 4: additive sharing, `τ` parallel repetitions with one hidden party each.
    Dkgith,
    /// Protocol 5: Shamir sharing of degree `t`, `t` of `N` parties opened.
    Rdkgith,
}

impl Scheme {
    /// `"dkgith"` or `"rdkgith"` (CLI and transcript name).
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Dkgith => "dkgith",
            Scheme::Rdkgith => "rdkgith",
        }
    }

    /// Parses `"dkgith"` / `"rdkgith"` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "dkgith" => Some(Scheme::Dkgith),
            "rdkgith" => Some(Scheme::Rdkgith),
            _ => None,
        }
    }

    fn code(self) -> u8 {
        match self {
            Scheme::Dkgith => 1,
            Scheme::Rdkgith => 2,
        }
    }

    fn from_code(c: u8) -> Result<Self, Tz21Error> {
        match c {
            1 => Ok(Scheme::Dkgith),
            2 => Ok(Scheme::Rdkgith),
            other => Err(Tz21Error::UnknownScheme(other)),
        }
    }
}

/// Scheme and parameters `(N, τ, n)` (DKGitH) or `(N, t, n)` (RDKGitH).
///
/// `N` is the number of parties; `τ` the number of parallel repetitions (DKGitH) or `t`
/// the polynomial degree = number of opened parties (RDKGitH); `n` the number of
/// ciphertexts in the compressed ciphertext. Construct with [`Tz21Params::dkgith`] /
/// [`Tz21Params::rdkgith`] (validated) or use a named reference set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tz21Params {
    scheme: Scheme,
    parties: usize,
    rounds_or_threshold: usize,
    compressed: usize,
}

impl Tz21Params {
    /// DKGitH `(N, τ, n) = (64, 48, 15)`: 130.0-bit soundness.
    pub const DKGITH_64_48_15: Self = Self::raw(Scheme::Dkgith, 64, 48, 15);
    /// DKGitH `(85, 20, 20)`: 128.2-bit soundness; the CLI default.
    pub const DKGITH_85_20_20: Self = Self::raw(Scheme::Dkgith, 85, 20, 20);
    /// DKGitH `(16, 32, 30)`: 128.0-bit soundness.
    pub const DKGITH_16_32_30: Self = Self::raw(Scheme::Dkgith, 16, 32, 30);
    /// DKGitH `(4, 64, 48)`: 128.0-bit soundness.
    pub const DKGITH_4_64_48: Self = Self::raw(Scheme::Dkgith, 4, 64, 48);
    /// RDKGitH `(N, t, n) = (132, 64, 67)`: 128.1-bit soundness; the CLI default.
    pub const RDKGITH_132_64_67: Self = Self::raw(Scheme::Rdkgith, 132, 64, 67);
    /// RDKGitH `(160, 80, 55)`: 130.3-bit soundness.
    pub const RDKGITH_160_80_55: Self = Self::raw(Scheme::Rdkgith, 160, 80, 55);
    /// RDKGitH `(256, 226, 30)`: 129.7-bit soundness.
    pub const RDKGITH_256_226_30: Self = Self::raw(Scheme::Rdkgith, 256, 226, 30);
    /// RDKGitH `(704, 684, 20)`: 127.7-bit soundness.
    pub const RDKGITH_704_684_20: Self = Self::raw(Scheme::Rdkgith, 704, 684, 20);

    /// The reference implementation's DKGitH sets, in its order.
    pub const DKGITH_REFERENCE: [Self; 4] = [
        Self::DKGITH_64_48_15,
        Self::DKGITH_85_20_20,
        Self::DKGITH_16_32_30,
        Self::DKGITH_4_64_48,
    ];
    /// The RDKGitH sets of the TZ21 reference implementation.
    pub const RDKGITH_REFERENCE: [Self; 4] = [
        Self::RDKGITH_132_64_67,
        Self::RDKGITH_160_80_55,
        Self::RDKGITH_256_226_30,
        Self::RDKGITH_704_684_20,
    ];

    const fn raw(scheme: Scheme, parties: usize, rt: usize, compressed: usize) -> Self {
        Tz21Params {
            scheme,
            parties,
            rounds_or_threshold: rt,
            compressed,
        }
    }

    /// The CLI's DKGitH choice: `(85, 20, 20)`.
    pub fn default_dkgith() -> Self {
        Self::DKGITH_85_20_20
    }

    /// The CLI's RDKGitH choice: `(132, 64, 67)`.
    pub fn default_rdkgith() -> Self {
        Self::RDKGITH_132_64_67
    }

    /// The default set of a scheme.
    pub fn default_for(scheme: Scheme) -> Self {
        match scheme {
            Scheme::Dkgith => Self::default_dkgith(),
            Scheme::Rdkgith => Self::default_rdkgith(),
        }
    }

    /// DKGitH with `N` parties, `τ` repetitions and `n ≤ τ` kept ciphertexts.
    /// Small sets are allowed (tests); check [`Self::soundness_bits`] before using one.
    pub fn dkgith(
        parties: usize,
        repetitions: usize,
        compressed: usize,
    ) -> Result<Self, Tz21Error> {
        let p = Self::raw(Scheme::Dkgith, parties, repetitions, compressed);
        p.validate()?;
        Ok(p)
    }

    /// RDKGitH with `N` parties, degree / opened count `t < N` and `n ≤ N − t` kept
    /// ciphertexts.
    pub fn rdkgith(parties: usize, threshold: usize, compressed: usize) -> Result<Self, Tz21Error> {
        let p = Self::raw(Scheme::Rdkgith, parties, threshold, compressed);
        p.validate()?;
        Ok(p)
    }

    /// Checks the ranges of the parameters.
    pub fn validate(&self) -> Result<(), Tz21Error> {
        let (n_par, rt, n) = (self.parties, self.rounds_or_threshold, self.compressed);
        if !(2..=MAX_PARTIES).contains(&n_par) {
            return Err(Tz21Error::InvalidParams("N must be in 2..=4096"));
        }
        if n == 0 {
            return Err(Tz21Error::InvalidParams("n must be at least 1"));
        }
        match self.scheme {
            Scheme::Dkgith => {
                if !(1..=MAX_REPETITIONS).contains(&rt) {
                    return Err(Tz21Error::InvalidParams("tau must be in 1..=1024"));
                }
                if n > rt {
                    return Err(Tz21Error::InvalidParams("n must not exceed tau"));
                }
                if n_par * rt > MAX_DKGITH_WORK {
                    return Err(Tz21Error::InvalidParams("N * tau must not exceed 16384"));
                }
            }
            Scheme::Rdkgith => {
                if rt == 0 || rt >= n_par {
                    return Err(Tz21Error::InvalidParams("t must be in 1..N"));
                }
                if n > n_par - rt {
                    return Err(Tz21Error::InvalidParams("n must not exceed N - t"));
                }
            }
        }
        Ok(())
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }
    /// `N`, the number of parties.
    pub fn parties(&self) -> usize {
        self.parties
    }
    /// `τ` (DKGitH repetitions) or `t` (RDKGitH degree and opened count).
    pub fn rounds_or_threshold(&self) -> usize {
        self.rounds_or_threshold
    }
    /// `n`, the number of ciphertexts in the compressed ciphertext.
    pub fn compressed(&self) -> usize {
        self.compressed
    }

    /// `−log₂` of the best cheating probability (see the module docs).
    pub fn soundness_bits(&self) -> f64 {
        fn log2_binom(a: usize, b: usize) -> f64 {
            if b > a {
                return f64::NEG_INFINITY;
            }
            (0..b)
                .map(|i| ((a - i) as f64).log2() - ((i + 1) as f64).log2())
                .sum()
        }
        let (n_par, rt, n) = (self.parties, self.rounds_or_threshold, self.compressed);
        let best = match self.scheme {
            Scheme::Dkgith => (n..=rt)
                .map(|k| -(k as f64) * (n_par as f64).log2() + log2_binom(k, n) - log2_binom(rt, n))
                .fold(f64::NEG_INFINITY, f64::max),
            Scheme::Rdkgith => (n..=n_par - rt)
                .map(|k| {
                    log2_binom(n_par - k, rt) - log2_binom(n_par, rt) + log2_binom(k, n)
                        - log2_binom(n_par - rt, n)
                })
                .fold(f64::NEG_INFINITY, f64::max),
        };
        -best
    }

    /// Length of [`Self::to_bytes`].
    pub const ENCODED_LEN: usize = 7;

    /// Encoding: scheme code (1 = DKGitH, 2 = RDKGitH), then `N`, `τ`/`t`, `n` as
    /// big-endian `u16`.
    pub fn to_bytes(&self) -> [u8; Self::ENCODED_LEN] {
        let mut v = Vec::with_capacity(HEADER_LEN);
        self.write_header(&mut v);
        let mut out = [0u8; Self::ENCODED_LEN];
        out.copy_from_slice(&v[1..]);
        out
    }

    /// Checked decoding (validated like [`Self::dkgith`] / [`Self::rdkgith`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Tz21Error> {
        let mut with_version = Vec::with_capacity(HEADER_LEN);
        with_version.push(ENCODING_VERSION);
        with_version.extend_from_slice(bytes);
        let mut r = Reader::new(&with_version);
        let p = Self::read_header(&mut r)?;
        r.finish()?;
        Ok(p)
    }

    fn write_header(&self, out: &mut Vec<u8>) {
        out.push(ENCODING_VERSION);
        out.push(self.scheme.code());
        out.extend_from_slice(&(self.parties as u16).to_be_bytes());
        out.extend_from_slice(&(self.rounds_or_threshold as u16).to_be_bytes());
        out.extend_from_slice(&(self.compressed as u16).to_be_bytes());
    }

    fn read_header(r: &mut Reader<'_>) -> Result<Self, Tz21Error> {
        let v = r.u8("version")?;
        if v != ENCODING_VERSION {
            return Err(Tz21Error::Version(v));
        }
        let scheme = Scheme::from_code(r.u8("scheme")?)?;
        let parties = r.u16("N")? as usize;
        let rt = r.u16("tau/t")? as usize;
        let n = r.u16("n")? as usize;
        let p = Self::raw(scheme, parties, rt, n);
        p.validate()?;
        Ok(p)
    }

    fn expect(&self, found: &Tz21Params) -> Result<(), Tz21Error> {
        if self != found {
            return Err(Tz21Error::ParamsMismatch {
                expected: *self,
                found: *found,
            });
        }
        Ok(())
    }
}

/// Errors of the TZ21 schemes.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Tz21Error {
    /// Parameters out of range.
    #[error("invalid TZ21 parameters: {0}")]
    InvalidParams(&'static str),
    /// A proof or ciphertext made for other parameters.
    #[error("parameter mismatch: expected {expected:?}, found {found:?}")]
    ParamsMismatch {
        /// The caller's parameters.
        expected: Tz21Params,
        /// The parameters in the encoding.
        found: Tz21Params,
    },
    /// The encoding ended early.
    #[error("{what}: input truncated")]
    Truncated {
        /// What was being read.
        what: &'static str,
    },
    /// Bytes left after a complete encoding.
    #[error("{extra} trailing bytes after the encoding")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// Unknown encoding version.
    #[error("unsupported TZ21 encoding version {0}")]
    Version(u8),
    /// Unknown scheme code.
    #[error("unknown TZ21 scheme code {0}")]
    UnknownScheme(u8),
    /// A point or scalar was not canonical, not in the group, or the identity.
    #[error(transparent)]
    Decode(#[from] GroupDecodeError),
    /// A non-canonical placeholder (a seed tree node with no party below it must be zero).
    #[error("{0}: non-canonical encoding")]
    NonCanonical(&'static str),
    /// `prove` was given a secret whose public share is not `X`.
    #[error("the secret is not the discrete log of the public share")]
    WitnessMismatch,
    /// The proof does not verify.
    #[error("proof rejected: {0}")]
    ProofRejected(&'static str),
    /// No ciphertext of the compressed ciphertext decrypts to `log_G X`.
    #[error("recovery failed: no candidate decrypts to the discrete log of the public share")]
    RecoveryFailed,
}

/// The escrow's public key `ek = dk·G`.
#[derive(Clone, Copy)]
pub struct EncryptionKey<C: Curve> {
    point: C::Point,
}

impl<C: Curve> PartialEq for EncryptionKey<C> {
    fn eq(&self, other: &Self) -> bool {
        self.point == other.point
    }
}
impl<C: Curve> Eq for EncryptionKey<C> {}

impl<C: Curve> core::fmt::Debug for EncryptionKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "EncryptionKey<{}>({})",
            C::NAME,
            hex::encode(self.to_bytes())
        )
    }
}

impl<C: Curve> EncryptionKey<C> {
    /// Wraps a point (it must not be the identity; checked by [`Self::from_bytes`]).
    pub fn from_point(point: C::Point) -> Result<Self, Tz21Error> {
        Self::from_bytes(point.to_bytes().as_ref())
    }
    /// The point `ek`.
    pub fn point(&self) -> &C::Point {
        &self.point
    }
    /// Canonical point encoding.
    pub fn to_bytes(&self) -> Vec<u8> {
        C::point_to_bytes(&self.point)
    }
    /// Checked decoding (length, canonical, subgroup, not the identity).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Tz21Error> {
        Ok(EncryptionKey {
            point: C::point_from_bytes("escrow key", bytes)?,
        })
    }
}

/// The escrow's secret key `dk`. Wiped on drop; redacted in `Debug`.
pub struct DecryptionKey<C: Curve> {
    scalar: C::Scalar,
}

impl<C: Curve> DecryptionKey<C> {
    /// The public key `dk·G`.
    pub fn public_key(&self) -> EncryptionKey<C> {
        EncryptionKey {
            point: C::Point::generator() * self.scalar,
        }
    }
    /// 32 big-endian bytes, wiped when dropped.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(C::scalar_to_be_bytes(&self.scalar).to_vec())
    }
    /// Parses 32 big-endian bytes (canonical, non-zero).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Tz21Error> {
        let mut r = Reader::new(bytes);
        let s = r.scalar::<C>("decryption key")?;
        r.finish()?;
        if bool::from(s.is_zero()) {
            return Err(Tz21Error::Decode(GroupDecodeError::Scalar {
                what: "decryption key",
            }));
        }
        Ok(DecryptionKey { scalar: s })
    }
}

impl<C: Curve> Drop for DecryptionKey<C> {
    fn drop(&mut self) {
        wipe_field(&mut self.scalar);
    }
}

impl<C: Curve> core::fmt::Debug for DecryptionKey<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DecryptionKey")
            .field("curve", &C::NAME)
            .field("dk", &REDACTED)
            .finish()
    }
}

use group::Group;

/// Generates an escrow key pair.
pub fn keygen<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
) -> (EncryptionKey<C>, DecryptionKey<C>) {
    loop {
        let dk = C::Scalar::random(&mut *rng);
        if bool::from(dk.is_zero()) {
            continue;
        }
        let dk = DecryptionKey { scalar: dk };
        return (
            EncryptionKey {
                point: C::mul_gen(&dk.scalar),
            },
            dk,
        );
    }
}

/// Hashed-ElGamal encryption of a scalar (the PKE inside both protocols).
pub fn encrypt<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    ek: &EncryptionKey<C>,
    m: &C::Scalar,
) -> Ciphertext<C> {
    let mut r = C::Scalar::random(&mut *rng);
    let c1 = C::mul_gen(&r);
    let k = C::mul_encoded(&ek.point, &r);
    wipe_field(&mut r);
    Ciphertext {
        c1,
        c2: common::kdf::<C>(&k) + m,
    }
}

/// Hashed-ElGamal decryption: `c2 − H(dk·c1)`.
pub fn decrypt<C: Curve>(dk: &DecryptionKey<C>, ct: &Ciphertext<C>) -> C::Scalar {
    let k = ct.c1 * dk.scalar;
    ct.c2 - common::kdf::<C>(k.to_bytes().as_ref())
}

/// A DKGitH or RDKGitH proof (the transcript `tr` of the paper). Equality compares
/// encodings.
#[derive(Clone)]
pub struct Proof<C: Curve> {
    params: Tz21Params,
    body: ProofBody<C>,
}

#[derive(Clone)]
enum ProofBody<C: Curve> {
    Dk(dkgith::DkProof<C>),
    Rdk(rdkgith::RdkProof<C>),
}

impl<C: Curve> core::fmt::Debug for Proof<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Proof")
            .field("curve", &C::NAME)
            .field("params", &self.params)
            .field("bytes", &self.size())
            .finish()
    }
}

impl<C: Curve> PartialEq for Proof<C> {
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}
impl<C: Curve> Eq for Proof<C> {}

impl<C: Tz21Curve> PartialEq for CompressedCiphertext<C> {
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}
impl<C: Tz21Curve> Eq for CompressedCiphertext<C> {}

impl<C: Curve> Proof<C> {
    /// The parameters the proof was made with.
    pub fn params(&self) -> &Tz21Params {
        &self.params
    }

    /// Encoding: 8-byte header, then the scheme's body (see [`dkgith`], [`rdkgith`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size());
        self.params.write_header(&mut out);
        match &self.body {
            ProofBody::Dk(p) => p.write(&mut out),
            ProofBody::Rdk(p) => p.write(&mut out),
        }
        out
    }

    /// Checked decoding: the exact length implied by the header, canonical points and
    /// scalars; typed errors, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Tz21Error> {
        let mut r = Reader::new(bytes);
        let params = Tz21Params::read_header(&mut r)?;
        let expected = HEADER_LEN + Self::body_len(&params);
        if bytes.len() < expected {
            return Err(Tz21Error::Truncated { what: "proof" });
        }
        if bytes.len() > expected {
            return Err(Tz21Error::TrailingBytes {
                extra: bytes.len() - expected,
            });
        }
        let body = match params.scheme {
            Scheme::Dkgith => ProofBody::Dk(dkgith::DkProof::read(&params, &mut r)?),
            Scheme::Rdkgith => ProofBody::Rdk(rdkgith::RdkProof::read(&params, &mut r)?),
        };
        r.finish()?;
        Ok(Proof { params, body })
    }

    fn body_len(params: &Tz21Params) -> usize {
        match params.scheme {
            Scheme::Dkgith => dkgith::DkProof::<C>::encoded_len(params),
            Scheme::Rdkgith => rdkgith::RdkProof::<C>::encoded_len(params),
        }
    }

    /// `|tr|`: the length of [`Self::to_bytes`].
    pub fn size(&self) -> usize {
        HEADER_LEN + Self::body_len(&self.params)
    }
}

/// The compressed ciphertext the verifier keeps: `n` candidate hashed-ElGamal ciphertexts
/// of `x` (RDKGitH: each with its Lagrange coefficient `λ_{i*}`). Equality compares
/// encodings.
#[derive(Clone)]
pub struct CompressedCiphertext<C: Curve> {
    params: Tz21Params,
    /// `(ct, λ)`; `λ = 1` for DKGitH (not encoded).
    entries: Vec<(Ciphertext<C>, C::Scalar)>,
}

impl<C: Curve> core::fmt::Debug for CompressedCiphertext<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CompressedCiphertext")
            .field("curve", &C::NAME)
            .field("params", &self.params)
            .field("bytes", &self.size())
            .finish()
    }
}

impl<C: Curve> CompressedCiphertext<C> {
    /// The parameters.
    pub fn params(&self) -> &Tz21Params {
        &self.params
    }

    fn entry_len(params: &Tz21Params) -> usize {
        match params.scheme {
            Scheme::Dkgith => Ciphertext::<C>::len(),
            Scheme::Rdkgith => Ciphertext::<C>::len() + common::SCALAR_LEN,
        }
    }

    /// `|C|`: the length of [`Self::to_bytes`].
    pub fn size(&self) -> usize {
        HEADER_LEN + self.params.compressed * Self::entry_len(&self.params)
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Tz21Error> {
        let mut r = Reader::new(bytes);
        let params = Tz21Params::read_header(&mut r)?;
        let expected = HEADER_LEN + params.compressed * Self::entry_len(&params);
        if bytes.len() < expected {
            return Err(Tz21Error::Truncated {
                what: "compressed ciphertext",
            });
        }
        if bytes.len() > expected {
            return Err(Tz21Error::TrailingBytes {
                extra: bytes.len() - expected,
            });
        }
        let mut entries = Vec::with_capacity(params.compressed);
        for _ in 0..params.compressed {
            let ct = Ciphertext::read(&mut r)?;
            let l = match params.scheme {
                Scheme::Dkgith => C::Scalar::ONE,
                Scheme::Rdkgith => r.scalar::<C>("lagrange coefficient")?,
            };
            entries.push((ct, l));
        }
        r.finish()?;
        Ok(CompressedCiphertext { params, entries })
    }
}

impl<C: Tz21Curve> CompressedCiphertext<C> {
    /// Encoding: header, then `n` × (`c1`, `c2`[, `λ`]). The `c1` are encoded together
    /// ([`Tz21Curve::encode_points`]: one batched inversion where the curve crate has it).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size());
        self.params.write_header(&mut out);
        let c1: Vec<C::Point> = self.entries.iter().map(|(ct, _)| ct.c1).collect();
        let c1_enc = C::encode_points(&c1);
        for ((ct, l), c1) in self.entries.iter().zip(c1_enc.chunks_exact(C::POINT_LEN)) {
            out.extend_from_slice(c1);
            out.extend_from_slice(&C::scalar_to_be_bytes(&ct.c2));
            if self.params.scheme == Scheme::Rdkgith {
                out.extend_from_slice(&C::scalar_to_be_bytes(l));
            }
        }
        out
    }
}

/// Proves that a ciphertext under `ek` (inside the proof) encrypts `secret = log_G public`,
/// bound to `label`.
///
/// Errors: invalid parameters, or [`Tz21Error::WitnessMismatch`] if `secret·G ≠ public`.
pub fn prove<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    params: &Tz21Params,
    ek: &EncryptionKey<C>,
    secret: &C::Scalar,
    public: &C::Point,
    label: &[u8],
) -> Result<Proof<C>, Tz21Error> {
    params.validate()?;
    if !common::same_point::<C>(&C::mul_gen(secret), public) {
        return Err(Tz21Error::WitnessMismatch);
    }
    let body = match params.scheme {
        Scheme::Dkgith => {
            ProofBody::Dk(dkgith::prove(rng, params, &ek.point, secret, public, label))
        }
        Scheme::Rdkgith => ProofBody::Rdk(rdkgith::prove(
            rng, params, &ek.point, secret, public, label,
        )),
    };
    Ok(Proof {
        params: *params,
        body,
    })
}

/// Verifies a proof for `(ek, public, label)` under `params`.
pub fn verify<C: Tz21Curve>(
    params: &Tz21Params,
    ek: &EncryptionKey<C>,
    public: &C::Point,
    label: &[u8],
    proof: &Proof<C>,
) -> Result<(), Tz21Error> {
    params.validate()?;
    params.expect(&proof.params)?;
    if bool::from(public.is_identity()) {
        return Err(Tz21Error::Decode(GroupDecodeError::Identity {
            what: "public share",
        }));
    }
    match &proof.body {
        ProofBody::Dk(p) => dkgith::verify(params, &ek.point, public, label, p),
        ProofBody::Rdk(p) => rdkgith::verify(params, &ek.point, public, label, p),
    }
}

/// Compresses a proof **that has been verified** into the ciphertext the verifier keeps.
///
/// The `n` kept ciphertexts are chosen with `rng`, which the prover must not be able to
/// predict (soundness rests on it). `ek`, `public` and `label` are not used by the
/// computation itself; they are taken so that the call site names what was verified.
/// Use [`verify_and_compress`] unless the proof was just verified.
pub fn compress<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    params: &Tz21Params,
    ek: &EncryptionKey<C>,
    public: &C::Point,
    label: &[u8],
    proof: &Proof<C>,
) -> Result<CompressedCiphertext<C>, Tz21Error> {
    let _ = (ek, public, label);
    params.validate()?;
    params.expect(&proof.params)?;
    let entries = match &proof.body {
        ProofBody::Dk(p) => dkgith::compress(rng, params, p)?,
        ProofBody::Rdk(p) => rdkgith::compress(rng, params, p)?,
    };
    Ok(CompressedCiphertext {
        params: *params,
        entries,
    })
}

/// [`verify`] followed by [`compress`].
pub fn verify_and_compress<C: Tz21Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    params: &Tz21Params,
    ek: &EncryptionKey<C>,
    public: &C::Point,
    label: &[u8],
    proof: &Proof<C>,
) -> Result<CompressedCiphertext<C>, Tz21Error> {
    verify(params, ek, public, label, proof)?;
    compress(rng, params, ek, public, label, proof)
}

/// Checks that a compressed ciphertext comes from `proof`: every kept entry is the
/// compression of a distinct repetition (DKGitH) or unopened party (RDKGitH) of the proof,
/// with the right `c2` (and `λ`). Use it, after [`verify`], when the compressed
/// ciphertext was produced elsewhere; it cannot tell whether the entries were chosen at
/// random, which is the compressing verifier's responsibility.
pub fn check_compressed<C: Tz21Curve>(
    params: &Tz21Params,
    proof: &Proof<C>,
    compressed: &CompressedCiphertext<C>,
) -> Result<(), Tz21Error> {
    params.validate()?;
    params.expect(&proof.params)?;
    params.expect(&compressed.params)?;
    if compressed.entries.len() != params.compressed {
        return Err(Tz21Error::ProofRejected(
            "wrong number of compressed entries",
        ));
    }
    let pl = C::POINT_LEN;
    let dk_enc;
    let candidates: &[u8] = match &proof.body {
        ProofBody::Dk(p) => {
            dk_enc = dkgith::hidden_c1_encodings(p);
            &dk_enc
        }
        ProofBody::Rdk(p) => rdkgith::hidden_c1_encodings(p),
    };
    let index: std::collections::HashMap<&[u8], usize> = candidates
        .chunks_exact(pl)
        .enumerate()
        .map(|(k, b)| (b, k))
        .collect();
    let entry_pts: Vec<C::Point> = compressed.entries.iter().map(|(ct, _)| ct.c1).collect();
    let entry_enc = C::encode_points(&entry_pts);
    let mut chosen = Vec::with_capacity(params.compressed);
    let mut seen = std::collections::HashSet::new();
    for b in entry_enc.chunks_exact(pl) {
        let k = *index.get(b).ok_or(Tz21Error::ProofRejected(
            "compressed entry not from this proof",
        ))?;
        if !seen.insert(k) {
            return Err(Tz21Error::ProofRejected("compressed entry repeated"));
        }
        chosen.push(k);
    }
    let expected = match &proof.body {
        ProofBody::Dk(p) => dkgith::compress_chosen(params, p, &chosen)?,
        ProofBody::Rdk(p) => rdkgith::compress_chosen(params, p, &chosen)?,
    };
    let same = expected
        .iter()
        .zip(compressed.entries.iter())
        .all(|((a, la), (b, lb))| a.c2 == b.c2 && la == lb);
    if !same {
        return Err(Tz21Error::ProofRejected(
            "compressed entry does not match the proof",
        ));
    }
    Ok(())
}

/// The escrow's recovery: decrypts each kept ciphertext and returns the candidate `x` with
/// `x·G = public`, or [`Tz21Error::RecoveryFailed`]. It never returns any other value.
///
/// `label` is not needed to decrypt (it is bound by the proof the verifier checked); it is
/// taken so that the call names the context.
pub fn recover<C: Tz21Curve>(
    params: &Tz21Params,
    dk: &DecryptionKey<C>,
    public: &C::Point,
    label: &[u8],
    compressed: &CompressedCiphertext<C>,
) -> Result<C::Scalar, Tz21Error> {
    let _ = label;
    params.validate()?;
    params.expect(&compressed.params)?;
    for (ct, lambda) in &compressed.entries {
        // x' = c2' − λ·H(dk·c1)   (λ = 1 for DKGitH)
        let k = C::mul_encoded(&ct.c1, &dk.scalar);
        let mut h = common::kdf::<C>(&k);
        let mut candidate = ct.c2 - *lambda * h;
        wipe_field(&mut h);
        if common::same_point::<C>(&C::mul_gen(&candidate), public) {
            return Ok(candidate);
        }
        wipe_field(&mut candidate);
    }
    Err(Tz21Error::RecoveryFailed)
}
