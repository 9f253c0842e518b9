//! The auxiliary parameters `(N, g̃, h̃)` of the §5 commitment `l = g̃^m·h̃^s mod N`, with a
//! checkable setup transcript (see "Auxiliary parameters" in the module notes).

use super::{
    keys::check_modulus, put_uint, Cs03Error, Reader, MAX_CHALLENGE_BITS, MAX_ORDER_BITS,
    MAX_SLACK_BITS, VERSION,
};
use quorate_paillier::bigint::{
    self, inv_mod, mul_mod, pow_mod_secret, pow_mod_vartime, random_below, random_unit,
    SecretInteger,
};
use quorate_paillier::fixed_base::{FixedBase, FixedBaseCt};
use quorate_paillier::primes::generate_safe_prime;
use quorate_paillier::rug::Integer;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use std::sync::{Arc, OnceLock};
use subtle::ConstantTimeEq;

/// Repetitions of the binary-challenge proofs in the setup transcript (soundness `2^{−128}`).
const SETUP_REPS: usize = 128;
const SETUP_CHALLENGE_LEN: usize = SETUP_REPS / 8;

/// Smallest and largest supported `|N|`.
#[cfg(not(feature = "fuzzing"))]
const MIN_AUX_BITS: u32 = 1024;
/// The `fuzzing` feature also admits 512-bit `N`, so that the fuzz targets check the
/// setup proofs of many more inputs per second (the same checks on smaller numbers).
#[cfg(feature = "fuzzing")]
const MIN_AUX_BITS: u32 = 512;
const MAX_AUX_BITS: u32 = 8192;
#[cfg(not(feature = "fuzzing"))]
const BITS_RANGE: &str = "|N| must be a multiple of 128 between 1024 and 8192 bits";
#[cfg(feature = "fuzzing")]
const BITS_RANGE: &str = "|N| must be a multiple of 128 between 512 (fuzzing build) and 8192 bits";

/// A non-interactive proof of knowledge of `x` with `target = base^x mod N` (binary
/// challenges, [`SETUP_REPS`] repetitions): the challenge string and the responses.
#[derive(Clone, PartialEq, Eq)]
struct SetupProof {
    challenge: [u8; SETUP_CHALLENGE_LEN],
    z: Vec<Integer>,
}

/// `(N, g̃, h̃)`: `N` a product of two safe primes unknown to the prover, `g̃, h̃` generators
/// of the same subgroup of `QR_N`, with the setup transcript that proves the latter
/// (`h̃ = τ²`, `PoK{α: g̃ = h̃^α}`, `PoK{β: h̃ = g̃^β}`). Every value of this type has passed
/// [`AuxParams::check`] (at generation or decoding). Fixed-base tables for `g̃, h̃` are built on
/// first use and shared by clones.
#[derive(Clone)]
pub struct AuxParams {
    bits: u32,
    pub(super) n: Integer,
    pub(super) g: Integer,
    pub(super) h: Integer,
    tau: Integer,
    pok_g: SetupProof,
    pok_h: SetupProof,
    tables: OnceLock<Result<Arc<AuxTables>, Cs03Error>>,
}

/// Tables for `g̃` and `h̃`: constant-time for the prover, variable-time for the verifier.
pub(super) struct AuxTables {
    pub(super) g_ct: FixedBaseCt,
    pub(super) h_ct: FixedBaseCt,
    pub(super) g_vt: FixedBase,
    pub(super) h_vt: FixedBase,
}

impl AuxParams {
    /// Generates `N` (two safe primes of `bits/2` bits, then discarded), `h̃ = τ²` of order
    /// `p'q'`, `g̃ = h̃^α` with `α` a unit modulo `p'q'`, and the two setup proofs. To be run by
    /// the verifier side (the escrow, a verifier, or a party the verifiers trust), never by a
    /// prover. `bits` must be a multiple of 128 in `1024..=8192`; use at least 3072.
    pub fn generate<R: RngCore + CryptoRng>(rng: &mut R, bits: u32) -> Result<Self, Cs03Error> {
        check_bits(bits)?;
        let half = bits / 2;
        let (p, q) = loop {
            let p = SecretInteger::new(generate_safe_prime(half, rng)?);
            let q = SecretInteger::new(generate_safe_prime(half, rng)?);
            if p.expose() != q.expose() {
                break (p, q);
            }
        };
        let n = Integer::from(p.expose() * q.expose());
        let pp = SecretInteger::new(Integer::from(p.expose() - 1u32) >> 1u32);
        let qq = SecretInteger::new(Integer::from(q.expose() - 1u32) >> 1u32);
        let order = SecretInteger::new(Integer::from(pp.expose() * qq.expose()));
        let (tau, h) = loop {
            let tau = random_unit(rng, &n)?;
            let h = mul_mod(&tau, &tau, &n);
            if h != 1
                && pow_mod_vartime(&h, pp.expose(), &n)? != 1
                && pow_mod_vartime(&h, qq.expose(), &n)? != 1
            {
                break (tau, h);
            }
        };
        let alpha = loop {
            let a = SecretInteger::new(random_below(rng, order.expose()));
            if Integer::from(a.expose().gcd_ref(order.expose())) == 1 {
                break a;
            }
        };
        let beta = SecretInteger::new(
            inv_mod(alpha.expose(), order.expose()).ok_or(Cs03Error::InvalidAux("α not a unit"))?,
        );
        let g = pow_mod_secret(&h, alpha.expose(), &n)?;
        let mut aux = AuxParams {
            bits,
            n,
            g,
            h,
            tau,
            pok_g: SetupProof {
                challenge: [0; SETUP_CHALLENGE_LEN],
                z: Vec::new(),
            },
            pok_h: SetupProof {
                challenge: [0; SETUP_CHALLENGE_LEN],
                z: Vec::new(),
            },
            tables: OnceLock::new(),
        };
        aux.pok_g = aux.prove_dlog(rng, b"g=h^alpha", &aux.h, &aux.g, &alpha, &order)?;
        aux.pok_h = aux.prove_dlog(rng, b"h=g^beta", &aux.g, &aux.h, &beta, &order)?;
        Ok(aux)
    }

    /// `|N|` in bits.
    pub fn modulus_bits(&self) -> u32 {
        self.bits
    }

    /// The modulus `N`.
    pub fn modulus(&self) -> &Integer {
        &self.n
    }

    fn n_len(&self) -> usize {
        (self.bits / 8) as usize
    }

    /// The transcript that the setup proofs' challenges are derived from, up to the
    /// commitments.
    fn setup_transcript(&self, tag: &'static [u8]) -> merlin::Transcript {
        let mut t = merlin::Transcript::new(b"quorate-cs03-aux-setup");
        t.append_message(b"version", &[VERSION]);
        t.append_message(b"relation", tag);
        t.append_message(b"statement", &self.statement_bytes());
        let mut tau = Vec::new();
        put_uint(&mut tau, &self.tau, self.n_len());
        t.append_message(b"tau", &tau);
        t
    }

    fn setup_challenge(
        &self,
        tag: &'static [u8],
        commitments: &[Integer],
    ) -> [u8; SETUP_CHALLENGE_LEN] {
        let mut t = self.setup_transcript(tag);
        let mut buf = Vec::with_capacity(self.n_len());
        for a in commitments {
            buf.clear();
            put_uint(&mut buf, a, self.n_len());
            t.append_message(b"A", &buf);
        }
        let mut c = [0u8; SETUP_CHALLENGE_LEN];
        t.challenge_bytes(b"challenge", &mut c);
        c
    }

    fn prove_dlog<R: RngCore + CryptoRng>(
        &self,
        rng: &mut R,
        tag: &'static [u8],
        base: &Integer,
        _target: &Integer,
        x: &SecretInteger,
        order: &SecretInteger,
    ) -> Result<SetupProof, Cs03Error> {
        let a: Vec<SecretInteger> = (0..SETUP_REPS)
            .map(|_| SecretInteger::new(random_below(rng, order.expose())))
            .collect();
        let commitments: Vec<Integer> = a
            .par_iter()
            .map(|ai| pow_mod_secret(base, ai.expose(), &self.n).map_err(Cs03Error::from))
            .collect::<Result<_, _>>()?;
        let challenge = self.setup_challenge(tag, &commitments);
        let z = a
            .iter()
            .enumerate()
            .map(|(i, ai)| {
                let mut zi = ai.expose().clone();
                if bit(&challenge, i) {
                    zi += x.expose();
                }
                bigint::modulo(&zi, order.expose())
            })
            .collect();
        Ok(SetupProof { challenge, z })
    }

    fn verify_dlog(
        &self,
        tag: &'static [u8],
        proof: &SetupProof,
        base: &Integer,
        target: &Integer,
    ) -> Result<(), Cs03Error> {
        if proof.z.len() != SETUP_REPS {
            return Err(Cs03Error::InvalidAux("setup proof has the wrong size"));
        }
        let table = FixedBase::new(base, &self.n, self.bits)?;
        let target_inv =
            inv_mod(target, &self.n).ok_or(Cs03Error::InvalidAux("element not a unit"))?;
        let commitments: Vec<Integer> = proof
            .z
            .par_iter()
            .enumerate()
            .map(|(i, zi)| {
                let a = table.pow_vartime(zi)?;
                Ok(if bit(&proof.challenge, i) {
                    mul_mod(&a, &target_inv, &self.n)
                } else {
                    a
                })
            })
            .collect::<Result<_, Cs03Error>>()?;
        let c = self.setup_challenge(tag, &commitments);
        if bool::from(c.ct_eq(&proof.challenge)) {
            Ok(())
        } else {
            Err(Cs03Error::InvalidAux("setup proof does not verify"))
        }
    }

    /// Checks everything that can be checked without the factorisation of `N`: its length,
    /// that it is odd, not a square and has no prime factor below `2^16`; that `g̃, h̃, τ` are
    /// units other than `±1`; `h̃ = τ² mod N`; and the two proofs of knowledge (so
    /// `⟨g̃⟩ = ⟨h̃⟩ ⊆ QR_N`). It cannot check that `N` is a product of two safe primes whose
    /// factorisation nobody kept: that is the trust placed in whoever generated it.
    pub fn check(&self) -> Result<(), Cs03Error> {
        check_bits(self.bits)?;
        check_modulus(&self.n, self.bits).map_err(Cs03Error::InvalidAux)?;
        let minus_one = Integer::from(&self.n - 1u32);
        for x in [&self.g, &self.h, &self.tau] {
            if !bigint::is_unit_in_range(x, &self.n) || *x == 1 || *x == minus_one {
                return Err(Cs03Error::InvalidAux(
                    "g̃, h̃ or τ is not a unit other than ±1",
                ));
            }
        }
        if mul_mod(&self.tau, &self.tau, &self.n) != self.h {
            return Err(Cs03Error::InvalidAux("h̃ ≠ τ²"));
        }
        let (a, b) = rayon::join(
            || self.verify_dlog(b"g=h^alpha", &self.pok_g, &self.h, &self.g),
            || self.verify_dlog(b"h=g^beta", &self.pok_h, &self.g, &self.h),
        );
        a.and(b)
    }

    /// `N ‖ g̃ ‖ h̃`, each `|N|/8` bytes: what the CS03 proof transcript binds.
    pub(super) fn statement_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(3 * self.n_len() + 2);
        out.extend_from_slice(&(self.bits as u16).to_be_bytes());
        for x in [&self.n, &self.g, &self.h] {
            put_uint(&mut out, x, self.n_len());
        }
        out
    }

    /// Length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        Self::encoded_len_for(self.bits)
    }

    fn encoded_len_for(bits: u32) -> usize {
        let len = (bits / 8) as usize;
        1 + 2 + 4 * len + 2 * (SETUP_CHALLENGE_LEN + SETUP_REPS * len)
    }

    /// Canonical encoding: version 1, `|N|` as 16-bit big-endian, `N, g̃, h̃, τ` (`|N|/8`
    /// bytes each), then for each of the two setup proofs its 16-byte challenge and 128
    /// responses of `|N|/8` bytes (about 100 KB at `|N| = 3072`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let len = self.n_len();
        let mut out = Vec::with_capacity(self.encoded_len());
        out.push(VERSION);
        out.extend_from_slice(&(self.bits as u16).to_be_bytes());
        for x in [&self.n, &self.g, &self.h, &self.tau] {
            put_uint(&mut out, x, len);
        }
        for pr in [&self.pok_g, &self.pok_h] {
            out.extend_from_slice(&pr.challenge);
            for z in &pr.z {
                put_uint(&mut out, z, len);
            }
        }
        out
    }

    /// Decodes and runs [`Self::check`] (a few hundred milliseconds at `|N| = 3072`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Cs03Error> {
        let mut r = Reader::new("cs03 auxiliary parameters", bytes);
        r.version()?;
        let b = r.take(2)?;
        let bits = u32::from(u16::from_be_bytes([b[0], b[1]]));
        check_bits(bits)?;
        let expected = Self::encoded_len_for(bits);
        if bytes.len() != expected {
            return Err(Cs03Error::Length {
                what: "cs03 auxiliary parameters",
                expected,
                got: bytes.len(),
            });
        }
        let len = (bits / 8) as usize;
        let n = bigint::from_be_bytes(r.take(len)?);
        check_modulus(&n, bits).map_err(Cs03Error::InvalidAux)?;
        let g = r.unit("g̃", len, &n)?;
        let h = r.unit("h̃", len, &n)?;
        let tau = r.unit("τ", len, &n)?;
        let mut proofs = Vec::with_capacity(2);
        for _ in 0..2 {
            let mut challenge = [0u8; SETUP_CHALLENGE_LEN];
            challenge.copy_from_slice(r.take(SETUP_CHALLENGE_LEN)?);
            let z = (0..SETUP_REPS)
                .map(|_| r.uint_below("setup response", len, &n))
                .collect::<Result<Vec<_>, _>>()?;
            proofs.push(SetupProof { challenge, z });
        }
        r.finish()?;
        let pok_h = proofs.pop().ok_or(Cs03Error::InvalidAux("internal"))?;
        let pok_g = proofs.pop().ok_or(Cs03Error::InvalidAux("internal"))?;
        let aux = AuxParams {
            bits,
            n,
            g,
            h,
            tau,
            pok_g,
            pok_h,
            tables: OnceLock::new(),
        };
        aux.check()?;
        Ok(aux)
    }

    /// Builds the fixed-base tables for `g̃, h̃` now instead of on first use.
    pub fn precompute(&self) -> Result<(), Cs03Error> {
        self.tables().map(|_| ())
    }

    pub(super) fn tables(&self) -> Result<&AuxTables, Cs03Error> {
        self.tables
            .get_or_init(|| self.build_tables().map(Arc::new))
            .as_ref()
            .map(|a| &**a)
            .map_err(Clone::clone)
    }

    fn build_tables(&self) -> Result<AuxTables, Cs03Error> {
        // g̃'s exponents: m < ρ, m' + B_m − 1 < 2·ρ·2^{k+k'}, |m̃| < ρ·2^{k+k'+1}.
        let g_bits = MAX_ORDER_BITS + MAX_CHALLENGE_BITS + MAX_SLACK_BITS + 2;
        // h̃'s exponents: s < N/4, s' + B_s − 1 < N·2^{k+k'−1}, |s̃| < N·2^{k+k'−1}.
        let h_bits = self.bits + MAX_CHALLENGE_BITS + MAX_SLACK_BITS;
        let ((g_ct, h_ct), (g_vt, h_vt)) = rayon::join(
            || {
                rayon::join(
                    || FixedBaseCt::new(&self.g, &self.n, g_bits),
                    || FixedBaseCt::new(&self.h, &self.n, h_bits),
                )
            },
            || {
                rayon::join(
                    || FixedBase::new(&self.g, &self.n, g_bits),
                    || FixedBase::new(&self.h, &self.n, h_bits),
                )
            },
        );
        Ok(AuxTables {
            g_ct: g_ct?,
            h_ct: h_ct?,
            g_vt: g_vt?,
            h_vt: h_vt?,
        })
    }
}

impl PartialEq for AuxParams {
    fn eq(&self, other: &Self) -> bool {
        self.bits == other.bits
            && self.n == other.n
            && self.g == other.g
            && self.h == other.h
            && self.tau == other.tau
            && self.pok_g == other.pok_g
            && self.pok_h == other.pok_h
    }
}
impl Eq for AuxParams {}

impl core::fmt::Debug for AuxParams {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("cs03::AuxParams")
            .field("modulus_bits", &self.bits)
            .finish_non_exhaustive()
    }
}

fn check_bits(bits: u32) -> Result<(), Cs03Error> {
    if !(MIN_AUX_BITS..=MAX_AUX_BITS).contains(&bits) || !bits.is_multiple_of(128) {
        return Err(Cs03Error::Params(BITS_RANGE));
    }
    Ok(())
}

/// Bit `i` of a challenge string (most significant bit of byte 0 first).
fn bit(c: &[u8; SETUP_CHALLENGE_LEN], i: usize) -> bool {
    (c[i / 8] >> (7 - i % 8)) & 1 == 1
}
