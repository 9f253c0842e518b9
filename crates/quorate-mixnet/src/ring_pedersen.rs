//! Ring-Pedersen (Fujisaki–Okamoto / Damgård–Fujisaki) integer commitments
//! `Com(x; μ) = s^x t^μ mod Ñ`, used inside the Paillier parts of the sender's linking proof,
//! the Enc-to-shares mask proofs and the shuffle proof so that their extractors work over the
//! integers.
//!
//! **Why.** From two accepting transcripts a Σ-protocol over `Z_N` only gives
//! `Δe·x ≡ Δz (mod N)`; to conclude that the Paillier plaintext *is* the integer `Δz/Δe` (the
//! same number as the G1 exponent, below `q`) one needs `Δe | Δz`. With a ring-Pedersen
//! commitment `S = s^x t^μ` in the proof, `s^{Δz} t^{Δz_μ} = S^{Δe}` forces `Δe | Δz` under
//! the strong-RSA assumption (Fujisaki–Okamoto '97, Damgård–Fujisaki '02), so the extracted
//! witness is an integer in range and equals the G1 opening.
//!
//! **Parameters: an auxiliary modulus, not the Paillier `N`.** Binding holds only against a
//! committer who cannot factor the modulus. The threshold-Paillier modulus `N` does not
//! qualify: any `t` Paillier shareholders together hold a multiple of `λ(N)` (the shared
//! decryption exponent) and can factor `N`, so a coalition of `t` mix-servers could open a
//! commitment over `N` two ways and forge the Paillier part of a shuffle proof (or help a
//! sender past the linking proof). So the keygen dealer ([`crate::setup::keygen`], the
//! documented setup assumption) generates an **independent** modulus `Ñ = p̃ q̃` from two
//! fresh safe primes of the same size as the Paillier primes, `t` a random square and
//! `s = t^λ` with `λ ∈ [0, p̃′q̃′)` ([`RingPedersenParams::from_safe_primes`]), and erases
//! `p̃, q̃, λ`. No shareholder ever sees `p̃, q̃`, so binding holds even if **all** servers
//! collude (public verifiability); only the dealer, who is trusted anyway, could break it.
//! If `Ñ` were factored, commitments over it would no longer bind: the extracted plaintexts
//! of the linking, mask and shuffle proofs would no longer be pinned to integers, and a
//! prover could replace messages in a shuffle undetectably (the hashed vector-commitment
//! bases of [`RingPedersenVectorKey`] depend on `Ñ` alone, so their binding falls with it).
//! Public checks ([`RingPedersenParams::check_auxiliary`]): `s, t` units other than `±1`,
//! `s ≠ t`, `Ñ` odd, `Ñ ≠ N`, `gcd(Ñ, N) = 1` and `|N| ≤ |Ñ| ≤` [`MAX_RING_PEDERSEN_BITS`].
//! A dealer-free setup would add the Πprm proof that `s ∈ ⟨t⟩` and a proof that `Ñ` is a
//! product of safe primes.

use crate::error::MixnetError;
use crate::params::{CHALLENGE_BITS, MIN_PAILLIER_BITS, SLACK_BITS};
use merlin::Transcript;
use quorate_core::hash::expand_message_xmd_sha256;
use quorate_core::ParamError;
use quorate_paillier::bigint::{
    eq_up_to_order_two, from_be_bytes, inv_mod, is_unit_in_range, modulo, mul_mod,
    multi_pow_secret, multi_pow_vartime, pow_mod_secret, pow_mod_vartime, random_below,
    random_bits, random_unit, to_be_bytes_minimal, to_be_bytes_padded, wipe_integer, SecretInteger,
};
use quorate_paillier::fixed_base::{FixedBase, FixedBaseCt};
use quorate_paillier::rug::Integer;
use quorate_paillier::PaillierError;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use std::sync::{Arc, Mutex};

/// The largest ring-Pedersen modulus accepted (bits): bounds the work of decoders that read
/// `Ñ` from untrusted bytes.
pub const MAX_RING_PEDERSEN_BITS: u32 = 16384;

/// Public ring-Pedersen parameters `(Ñ, s, t)` (the field keeps the historical name `n_hat`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingPedersenParams {
    /// `Ñ`.
    pub n_hat: Integer,
    /// `s = t^λ`.
    pub s: Integer,
    /// `t`, a random square.
    pub t: Integer,
}

impl RingPedersenParams {
    /// Dealer: parameters for `Ñ = p q` with safe primes `p = 2p′ + 1`, `q = 2q′ + 1`.
    pub fn from_safe_primes<R: RngCore + CryptoRng>(
        p: &Integer,
        q: &Integer,
        rng: &mut R,
    ) -> Result<Self, MixnetError> {
        if p == q {
            return Err(ParamError::Invalid("ring-Pedersen primes must differ").into());
        }
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

    /// Public sanity checks: `Ñ` odd and above 3, `s, t` units of `Z_Ñ` other than `±1`,
    /// `s ≠ t`.
    pub fn check(&self) -> Result<(), MixnetError> {
        if self.n_hat <= 3 || self.n_hat.is_even() {
            return Err(ParamError::Invalid("ring-Pedersen modulus must be odd").into());
        }
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

    /// The checks a mixnet's auxiliary modulus must pass against its threshold-Paillier
    /// modulus `paillier_n` (see the module docs): [`Self::check`], `Ñ ≠ N` (a modulus the
    /// Paillier shareholders can factor does not bind), `gcd(Ñ, N) = 1` (a shared prime
    /// would let them factor `Ñ` too), `|Ñ| ≥ max(|N|,` [`MIN_PAILLIER_BITS`]`)` (as hard to
    /// factor as `N`; at least [`crate::params::PRODUCTION_PAILLIER_BITS`] whenever `N` is
    /// production size) and `|Ñ| ≤` [`MAX_RING_PEDERSEN_BITS`]. Public data, variable time.
    pub fn check_auxiliary(&self, paillier_n: &Integer) -> Result<(), MixnetError> {
        self.check()?;
        check_auxiliary_modulus(&self.n_hat, paillier_n)
    }

    /// Bits of the commitment randomness `μ` (`|Ñ|` + slack).
    pub fn mu_bits(&self) -> u32 {
        self.n_hat.significant_bits() + SLACK_BITS
    }

    /// Bits of the mask of `μ` in a Σ-protocol (`|μ|` + challenge + slack).
    pub fn mu_mask_bits(&self) -> u32 {
        self.mu_bits() + CHALLENGE_BITS + SLACK_BITS
    }

    /// `s^x t^μ mod Ñ` (constant-time in `x, μ`; `μ ≥ 0`; a negative `x` commits with
    /// `s^{−1}`, time depending only on `|x|`'s bound).
    pub fn commit(&self, x: &Integer, mu: &Integer) -> Result<Integer, MixnetError> {
        let a = if *x < 0 {
            let inv = inv_mod(&self.s, &self.n_hat)
                .ok_or(ParamError::Invalid("ring-Pedersen base is not a unit"))?;
            pow_mod_secret(&inv, &Integer::from(-x), &self.n_hat)?
        } else {
            pow_mod_secret(&self.s, x, &self.n_hat)?
        };
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

    /// Verifier: recomputes the prover's first message `s^z t^{z_μ} · S^{−e} mod Ñ` from a
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

    /// Absorbs `(Ñ, s, t)` into a transcript.
    pub fn append_to(&self, t: &mut Transcript) {
        let len = (self.n_hat.significant_bits() as usize).div_ceil(8);
        t.append_message(b"rp N^", &self.bytes(&self.n_hat, len));
        t.append_message(b"rp s", &self.bytes(&self.s, len));
        t.append_message(b"rp t", &self.bytes(&self.t, len));
    }

    /// Fixed-width big-endian bytes of an element of `Z_Ñ` (for transcripts).
    pub fn element_bytes(&self, x: &Integer) -> Vec<u8> {
        self.bytes(x, (self.n_hat.significant_bits() as usize).div_ceil(8))
    }

    fn bytes(&self, x: &Integer, len: usize) -> Vec<u8> {
        to_be_bytes_padded(x, len).unwrap_or_default()
    }
}

/// Fixed-base tables for the ring-Pedersen bases `s`, `t` (issue 17): comb tables with
/// full-row scans for the provers' secret exponents ([`FixedBaseCt`]) and Yao tables for the
/// verifiers' public responses ([`FixedBase`]). Built once per [`RingPedersenParams`]
/// (about 6 MB at `|Ñ| = 3072`, [`crate::setup::MixnetPublic::ring_pedersen_tables`]).
/// Exponents outside a table's range (a negative `x`, an over-long response) take the
/// plain path, so results never depend on whether a table is used.
pub struct RingPedersenTables {
    params: RingPedersenParams,
    s_ct: FixedBaseCt,
    t_ct: FixedBaseCt,
    s_pub: FixedBase,
    t_pub: FixedBase,
}

impl core::fmt::Debug for RingPedersenTables {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RingPedersenTables").finish_non_exhaustive()
    }
}

impl RingPedersenTables {
    /// Tables for `rp` and committed values `0 ≤ x < 2^{x_bits}`.
    pub fn new(rp: &RingPedersenParams, x_bits: u32) -> Result<Self, MixnetError> {
        let n = &rp.n_hat;
        Ok(RingPedersenTables {
            params: rp.clone(),
            s_ct: FixedBaseCt::new(&rp.s, n, x_bits)?,
            t_ct: FixedBaseCt::new(&rp.t, n, rp.mu_mask_bits())?,
            s_pub: FixedBase::new(&rp.s, n, x_bits + 1)?,
            t_pub: FixedBase::new(&rp.t, n, rp.mu_mask_bits() + 1)?,
        })
    }

    /// Whether these are the tables of `rp`.
    pub fn is_for(&self, rp: &RingPedersenParams) -> bool {
        self.params == *rp
    }

    /// [`RingPedersenParams::commit`] with the comb tables (same result).
    pub fn commit(&self, x: &Integer, mu: &Integer) -> Result<Integer, MixnetError> {
        self.commit_bits(x, self.s_ct.max_exp_bits(), mu, self.t_ct.max_exp_bits())
    }

    /// [`Self::commit`] for `0 ≤ x < 2^{x_bits}`, `0 ≤ μ < 2^{mu_bits}` with **public**
    /// bounds (a mask's or a randomness' length): each comb table reads only the rows the
    /// bound needs ([`FixedBaseCt::pow_bits`]). Values outside their bound (a test fault's
    /// negative or over-long mask) or bounds beyond the tables take the plain path, with
    /// the same result.
    pub fn commit_bits(
        &self,
        x: &Integer,
        x_bits: u32,
        mu: &Integer,
        mu_bits: u32,
    ) -> Result<Integer, MixnetError> {
        let n = &self.params.n_hat;
        let fits = |e: &Integer, bits: u32, t: &FixedBaseCt| {
            bits >= 1 && bits <= t.max_exp_bits() && *e >= 0 && e.significant_bits() <= bits
        };
        if !fits(x, x_bits, &self.s_ct) || !fits(mu, mu_bits, &self.t_ct) {
            return self.params.commit(x, mu);
        }
        let a = self.s_ct.pow_bits(&SecretInteger::new(x.clone()), x_bits)?;
        let b = self
            .t_ct
            .pow_bits(&SecretInteger::new(mu.clone()), mu_bits)?;
        Ok(mul_mod(&a, &b, n))
    }

    /// [`RingPedersenParams::recompute_vartime`] with the Yao tables (same result).
    pub fn recompute_vartime(
        &self,
        z: &Integer,
        z_mu: &Integer,
        com: &Integer,
        e: &Integer,
    ) -> Option<Integer> {
        let rp = &self.params;
        if !is_unit_in_range(com, &rp.n_hat)
            || *z_mu < 0
            || z_mu.significant_bits() > rp.mu_mask_bits() + 1
            || *z < 0
            || z.significant_bits() > self.s_pub.max_exp_bits()
        {
            return rp.recompute_vartime(z, z_mu, com, e);
        }
        let a = self.s_pub.pow_vartime(z).ok()?;
        let b = self.t_pub.pow_vartime(z_mu).ok()?;
        let c = pow_mod_vartime(com, &Integer::from(-e), &rp.n_hat).ok()?;
        Some(mul_mod(&mul_mod(&a, &b, &rp.n_hat), &c, &rp.n_hat))
    }
}

/// The modulus part of [`RingPedersenParams::check_auxiliary`], for statements that carry
/// only `Ñ` (the shuffle proof's vector commitment): `Ñ` odd, `Ñ ≠ N`, `gcd(Ñ, N) = 1` and
/// `max(|N|,` [`MIN_PAILLIER_BITS`]`) ≤ |Ñ| ≤` [`MAX_RING_PEDERSEN_BITS`].
pub fn check_auxiliary_modulus(n_hat: &Integer, paillier_n: &Integer) -> Result<(), MixnetError> {
    if *n_hat <= 3 || n_hat.is_even() {
        return Err(ParamError::Invalid("ring-Pedersen modulus must be odd").into());
    }
    if n_hat == paillier_n {
        return Err(ParamError::Invalid(
            "ring-Pedersen modulus is the Paillier modulus (its shareholders can factor it)",
        )
        .into());
    }
    if Integer::from(n_hat.gcd_ref(paillier_n)) != 1 {
        return Err(ParamError::Invalid(
            "ring-Pedersen modulus shares a factor with the Paillier modulus",
        )
        .into());
    }
    let bits = n_hat.significant_bits();
    if bits < paillier_n.significant_bits().max(MIN_PAILLIER_BITS) {
        return Err(
            ParamError::Invalid("ring-Pedersen modulus shorter than the Paillier modulus").into(),
        );
    }
    if bits > MAX_RING_PEDERSEN_BITS {
        return Err(ParamError::Invalid("ring-Pedersen modulus too large").into());
    }
    Ok(())
}

/// Domain separation tag of the trapdoor-free bases of [`RingPedersenVectorKey`].
pub const VECTOR_BASES_DST: &[u8] = b"QUORATE-MIXNET-V01-RING-PEDERSEN-VECTOR-BASES";

/// A ring-Pedersen **vector** commitment key `(Ñ, t, s_1 … s_n)`:
/// `Com(x_1 … x_n; μ) = Π s_i^{x_i} · t^μ mod Ñ`.
///
/// Every base is the square of a hash output, `s_i = H(Ñ, "s", i)²`, `t = H(Ñ, "t")²`
/// (RFC 9380 `expand_message_xmd` with SHA-256, `|Ñ| + 128` bits reduced mod `Ñ`), so
/// nobody — not even the dealer who generated `Ñ` — chose them, and no relation among them
/// is known. All bases lie in `QR_Ñ`; for a product of safe primes `QR_Ñ` is cyclic of
/// order `p′q′` and a random square generates it except with probability about
/// `1/p′ + 1/q′`, so `t^μ` with `|μ| = |Ñ| + 40` is statistically close to uniform in
/// `QR_Ñ` and the commitment hides the vector statistically.
///
/// **Binding** (the property the shuffle proof's extractor needs): from
/// `Z^Δv = Π s_i^{Δk_i} t^{Δk_μ}` with `Δv ≠ 0` the committer's exponents satisfy
/// `Δv | Δk_i` and `Δv | Δk_μ`, under the strong-RSA assumption for `Ñ` in the random-oracle
/// model (Damgård–Fujisaki 2002, Lemma/Theorem on root extraction: a reduction programs
/// `H(·) = y^{r_i}` for the strong-RSA instance `y` and large random `r_i`, which is
/// statistically indistinguishable from hashed squares, and turns any non-dividing relation
/// into a non-trivial root of `y`). The factorisation of `Ñ` must be unknown to the prover
/// (see [`crate::setup`] for who generated it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingPedersenVectorKey {
    /// `Ñ`.
    pub n_hat: Integer,
    /// `t` (the randomness base).
    pub t: Integer,
    /// `s_1 … s_n` (one base per committed coordinate).
    pub s: Vec<Integer>,
}

fn hashed_square(
    n_hat: &Integer,
    digest: &[u8],
    label: &[u8],
    index: u64,
) -> Result<Integer, MixnetError> {
    let mut msg = Vec::with_capacity(digest.len() + label.len() + 8);
    msg.extend_from_slice(digest);
    msg.extend_from_slice(label);
    msg.extend_from_slice(&index.to_be_bytes());
    let len = (n_hat.significant_bits() as usize).div_ceil(8) + 16;
    let wide = expand_message_xmd_sha256(&msg, VECTOR_BASES_DST, len)
        .map_err(|_| ParamError::Invalid("ring-Pedersen modulus too large to hash into"))?;
    let x = modulo(&from_be_bytes(&wide), n_hat);
    if !is_unit_in_range(&x, n_hat) {
        // Only possible if the hash hit 0 or a factor of Ñ (negligible).
        return Err(ParamError::Invalid("hashed ring-Pedersen base is not a unit").into());
    }
    let sq = mul_mod(&x, &x, n_hat);
    if sq == 1 {
        return Err(ParamError::Invalid("hashed ring-Pedersen base is degenerate").into());
    }
    Ok(sq)
}

/// Fixed-base tables of a vector key's randomness base `t` (issue 17, session 14): a comb
/// table with full-row scans for the shuffle provers' secret `μ`, `μ′`
/// ([`FixedBaseCt`], ≈ 820 multiplications mod `Ñ` at `|μ′| = 3280` instead of ≈ 3.3k
/// constant-time squarings plus the public correction `t^{2^{|μ|}}`; the constant-time
/// status of [`FixedBaseCt`], as for [`RingPedersenTables`]) and a Yao table for the
/// verifiers' public `k_μ` ([`FixedBase`]). `t` is a function of `Ñ` alone, so the tables
/// are kept per process for the last few moduli (about 5 MB each at `|Ñ| = 3072`), built
/// on first use.
pub struct VectorKeyTables {
    n_hat: Integer,
    t: Integer,
    secret: FixedBaseCt,
    public: FixedBase,
}

/// How many moduli' tables a process keeps.
const VECTOR_TABLES_KEPT: usize = 2;

impl VectorKeyTables {
    fn get(n_hat: &Integer, t: &Integer) -> Result<Arc<Self>, MixnetError> {
        static CACHE: Mutex<Vec<Arc<VectorKeyTables>>> = Mutex::new(Vec::new());
        let lookup = |cache: &[Arc<VectorKeyTables>]| {
            cache
                .iter()
                .find(|x| x.n_hat == *n_hat && x.t == *t)
                .cloned()
        };
        if let Some(x) = lookup(&CACHE.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(x);
        }
        let bits = RingPedersenVectorKey::mu_mask_bits_for(n_hat);
        let built = Arc::new(VectorKeyTables {
            n_hat: n_hat.clone(),
            t: t.clone(),
            secret: FixedBaseCt::new(t, n_hat, bits)?,
            public: FixedBase::new(t, n_hat, bits + 1)?,
        });
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(x) = lookup(&cache) {
            return Ok(x);
        }
        if cache.len() >= VECTOR_TABLES_KEPT {
            cache.remove(0);
        }
        cache.push(built.clone());
        Ok(built)
    }
}

impl RingPedersenVectorKey {
    /// Derives the key for vectors of length `count` over the modulus `n_hat` (odd,
    /// at least 1024 bits is the caller's business). Deterministic: prover and verifier
    /// derive the same bases from the public modulus alone.
    pub fn derive(n_hat: &Integer, count: usize) -> Result<Self, MixnetError> {
        if *n_hat <= 3 || n_hat.is_even() {
            return Err(ParamError::Invalid("ring-Pedersen modulus must be odd").into());
        }
        let n_bytes = to_be_bytes_minimal(n_hat);
        let digest = expand_message_xmd_sha256(&n_bytes, VECTOR_BASES_DST, 32)
            .map_err(|_| ParamError::Invalid("ring-Pedersen modulus too large to hash"))?;
        let t = hashed_square(n_hat, &digest, b"t", 0)?;
        let s = (0..count as u64)
            .into_par_iter()
            .map(|i| hashed_square(n_hat, &digest, b"s", i + 1))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RingPedersenVectorKey {
            n_hat: n_hat.clone(),
            t,
            s,
        })
    }

    /// Bits of the commitment randomness `μ` (`|Ñ|` + slack).
    pub fn mu_bits(&self) -> u32 {
        self.n_hat.significant_bits() + SLACK_BITS
    }

    /// Bits of the mask of `μ` in a Σ-protocol (`|μ|` + challenge + slack); a response
    /// `k_μ = v·μ + μ′` has at most one more bit.
    pub fn mu_mask_bits(&self) -> u32 {
        Self::mu_mask_bits_for(&self.n_hat)
    }

    /// [`Self::mu_mask_bits`] for the modulus `n_hat` without deriving the bases (decoders).
    pub fn mu_mask_bits_for(n_hat: &Integer) -> u32 {
        n_hat.significant_bits() + SLACK_BITS + CHALLENGE_BITS + SLACK_BITS
    }

    /// `Π s_i^{x_i} · t^μ mod Ñ` for **secret** `0 ≤ x_i < 2^{x_bits}`, `0 ≤ μ < 2^{mu_bits}`.
    ///
    /// Constant time in the values (not only their lengths: the bit length of a permuted
    /// public exponent `e′_i = e_{π(i)}` would leak which `j` it came from): `Π s_i^{x_i}` is
    /// one [`multi_pow_secret`] (every `x_i` gets the same number of windows), and `t^μ`
    /// reads the first `⌈mu_bits/4⌉` rows of the comb table of `t` ([`VectorKeyTables`]; the
    /// rows depend only on the public bound). A bound beyond the table takes `mpz_powm_sec`
    /// of the offset exponent `μ + 2^{mu_bits}` (its time is linear in the exponent's bit
    /// length) with the public factor `t^{2^{mu_bits}}` divided out afterwards. `xs` may be
    /// shorter than the key.
    pub fn commit_secret(
        &self,
        xs: &[Integer],
        x_bits: u32,
        mu: &Integer,
        mu_bits: u32,
    ) -> Result<Integer, MixnetError> {
        let m = &self.n_hat;
        if xs.len() > self.s.len() {
            return Err(ParamError::Invalid("vector longer than the commitment key").into());
        }
        let fits = |x: &Integer, bits: u32| *x >= 0 && x.significant_bits() <= bits;
        if !xs.iter().all(|x| fits(x, x_bits)) || !fits(mu, mu_bits) {
            return Err(ParamError::Invalid("committed value exceeds its bit bound").into());
        }
        let bases = self.s.get(..xs.len()).unwrap_or(&[]);
        let tables = self.t_tables()?;
        let (prod, tm) = rayon::join(
            || multi_pow_secret(bases, xs, x_bits, m).map(SecretInteger::new),
            || -> Result<SecretInteger, PaillierError> {
                if mu_bits <= tables.secret.max_exp_bits() {
                    // Comb table of t, the rows for a μ of mu_bits bits (public bound).
                    let e = SecretInteger::new(mu.clone());
                    return Ok(SecretInteger::new(tables.secret.pow_bits(&e, mu_bits)?));
                }
                let mut e = mu + (Integer::from(1) << mu_bits);
                let r = pow_mod_secret(&self.t, &e, m).map(SecretInteger::new);
                wipe_integer(&mut e);
                let r = r?;
                // Public correction t^{2^{mu_bits}}.
                let corr = pow_mod_vartime(&self.t, &(Integer::from(1) << mu_bits), m)?;
                let inv = inv_mod(&corr, m).ok_or(PaillierError::NotAUnit {
                    what: "ring-Pedersen base",
                })?;
                Ok(SecretInteger::new(mul_mod(r.expose(), &inv, m)))
            },
        );
        let (prod, tm): (SecretInteger, SecretInteger) = (prod?, tm?);
        Ok(mul_mod(prod.expose(), tm.expose(), m))
    }

    /// `t^e mod Ñ` for a **public** `e ≥ 0` of any length (variable time), through the Yao
    /// table of `t` ([`VectorKeyTables`]); the verifiers' `t^{k_μ}` and the chain batch's
    /// `t^{Σβ_k k_{μ,k}}`.
    pub fn t_pow_vartime(&self, e: &Integer) -> Result<Integer, MixnetError> {
        Ok(self.t_tables()?.public.pow_any_vartime(e)?)
    }

    /// The fixed-base tables of this key's `t` (kept per process, [`VectorKeyTables`]).
    fn t_tables(&self) -> Result<Arc<VectorKeyTables>, MixnetError> {
        VectorKeyTables::get(&self.n_hat, &self.t)
    }

    /// Verifier of a Σ-protocol opening: `Z^v · Z′ = Π s_i^{k_i} · t^{k_μ} (mod Ñ)`, up to a
    /// factor of order ≤ 2 (both sides compared squared, as the shuffle proofs' batch check
    /// [`crate::shuffle::verify_chain_batch`] must; soundness in [`crate::shuffle`]'s note), with
    /// `Z, Z′` units in `(0, Ñ)`, `0 ≤ k_μ < 2^{mu_mask_bits + 1}` and every `k_i ≥ 0`
    /// (the caller bounds `k_i` from above). All inputs are public; variable time.
    pub fn check_response_vartime(
        &self,
        z: &Integer,
        z_p: &Integer,
        v: &Integer,
        ks: &[Integer],
        k_mu: &Integer,
    ) -> bool {
        if ks.len() > self.s.len()
            || !is_unit_in_range(z, &self.n_hat)
            || !is_unit_in_range(z_p, &self.n_hat)
            || *k_mu < 0
            || k_mu.significant_bits() > self.mu_mask_bits() + 1
            || *v < 0
        {
            return false;
        }
        let Ok(rhs) = multi_pow_vartime(self.s.get(..ks.len()).unwrap_or(&[]), ks, &self.n_hat)
        else {
            return false;
        };
        let Ok(tk) = self.t_pow_vartime(k_mu) else {
            return false;
        };
        let Ok(zv) = pow_mod_vartime(z, v, &self.n_hat) else {
            return false;
        };
        eq_up_to_order_two(
            &mul_mod(&zv, z_p, &self.n_hat),
            &mul_mod(&rhs, &tk, &self.n_hat),
            &self.n_hat,
        )
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

    /// The fixed-base tables give exactly the plain results, inside their range and on the
    /// fall-back paths (negative `x`, over-long exponents, a non-unit commitment).
    #[test]
    fn tables_match_the_plain_path() {
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let p = generate_safe_prime(256, &mut rng).expect("prime");
        let q = generate_safe_prime(256, &mut rng).expect("prime");
        let rp = RingPedersenParams::from_safe_primes(&p, &q, &mut rng).expect("params");
        let tables = RingPedersenTables::new(&rp, 300).expect("tables");
        assert!(tables.is_for(&rp));
        let long = random_bits(&mut rng, 400);
        for x in [
            Integer::new(),
            random_bits(&mut rng, 300),
            Integer::from(-12345),
            long.clone(),
        ] {
            let mu = rp.random_mu_mask(&mut rng);
            assert_eq!(
                tables.commit(&x, &mu).ok(),
                rp.commit(&x, &mu).ok(),
                "x={x}"
            );
        }
        let com = rp
            .commit(&Integer::from(7), &rp.random_mu(&mut rng))
            .expect("commit");
        let e = random_bits(&mut rng, CHALLENGE_BITS);
        for (z, z_mu, c) in [
            (
                random_bits(&mut rng, 301),
                rp.random_mu_mask(&mut rng),
                com.clone(),
            ),
            (long, rp.random_mu_mask(&mut rng), com.clone()),
            (
                Integer::from(5),
                Integer::from(1) << (rp.mu_mask_bits() + 1),
                com.clone(),
            ),
            (Integer::from(5), Integer::from(9), Integer::new()),
        ] {
            assert_eq!(
                tables.recompute_vartime(&z, &z_mu, &c, &e),
                rp.recompute_vartime(&z, &z_mu, &c, &e),
                "z={z}"
            );
        }
    }

    /// The auxiliary-modulus relation: `Ñ = N`, a shared prime, a shorter `Ñ` and an even
    /// `Ñ` are refused; an independent modulus of the same size passes.
    #[test]
    fn auxiliary_modulus_must_be_independent_of_paillier() {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let primes: Vec<Integer> = (0..3)
            .map(|_| generate_safe_prime(512, &mut rng).expect("prime"))
            .collect();
        let rp =
            RingPedersenParams::from_safe_primes(&primes[0], &primes[1], &mut rng).expect("params");
        let other = Integer::from(&primes[1] * &primes[2]);
        let unrelated = Integer::from(&primes[2] * &primes[2]) + 2u32;
        assert_eq!(rp.n_hat.significant_bits(), 1024);
        rp.check_auxiliary(&unrelated).expect("independent modulus");
        assert!(rp.check_auxiliary(&rp.n_hat).is_err(), "Ñ = N");
        assert!(rp.check_auxiliary(&other).is_err(), "shared prime");
        let longer = Integer::from(&unrelated << 1u32) + 1u32;
        assert!(rp.check_auxiliary(&longer).is_err(), "Ñ shorter than N");
        let mut even = rp.clone();
        even.n_hat += 1u32;
        assert!(even.check_auxiliary(&unrelated).is_err(), "even Ñ");
        assert!(RingPedersenParams::from_safe_primes(&primes[0], &primes[0], &mut rng).is_err());
    }

    #[test]
    fn vector_commitment_is_deterministic_and_checks_responses() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let p = generate_safe_prime(256, &mut rng).expect("prime");
        let q = generate_safe_prime(256, &mut rng).expect("prime");
        let n_hat = Integer::from(&p * &q);
        let key = RingPedersenVectorKey::derive(&n_hat, 5).expect("key");
        assert_eq!(key, RingPedersenVectorKey::derive(&n_hat, 5).expect("key"));
        let longer = RingPedersenVectorKey::derive(&n_hat, 7).expect("key");
        assert_eq!(longer.s[..5], key.s[..]);
        assert_eq!(longer.t, key.t);
        let mut all = key.s.clone();
        all.push(key.t.clone());
        for (i, x) in all.iter().enumerate() {
            assert!(is_unit_in_range(x, &n_hat));
            // Squares: Jacobi symbol 1 modulo both primes.
            assert_eq!(x.legendre(&p), 1);
            assert_eq!(x.legendre(&q), 1);
            assert!(all[i + 1..].iter().all(|y| y != x));
        }
        let xs: Vec<Integer> = (0..5).map(|_| random_bits(&mut rng, 128)).collect();
        let eps: Vec<Integer> = (0..5).map(|_| random_bits(&mut rng, 296)).collect();
        let (mu, mu_p) = (
            random_bits(&mut rng, key.mu_bits()),
            random_bits(&mut rng, key.mu_mask_bits()),
        );
        let (mb, mmb) = (key.mu_bits(), key.mu_mask_bits());
        let z = key.commit_secret(&xs, 128, &mu, mb).expect("commit");
        let z_p = key.commit_secret(&eps, 296, &mu_p, mmb).expect("commit");
        // The fixed-length offsets cancel: same as the plain product.
        let plain = xs.iter().zip(&key.s).fold(
            pow_mod_vartime(&key.t, &mu, &n_hat).expect("pow"),
            |a, (x, s)| mul_mod(&a, &pow_mod_vartime(s, x, &n_hat).expect("pow"), &n_hat),
        );
        assert_eq!(z, plain);
        // Beyond the comb table of t (a bound longer than any mask): the plain path, same value.
        let long = key.commit_secret(&xs, 128, &mu, mmb + 8).expect("commit");
        assert_eq!(long, plain);
        assert_eq!(
            key.t_pow_vartime(&mu).expect("pow"),
            pow_mod_vartime(&key.t, &mu, &n_hat).expect("pow")
        );
        assert!(key.commit_secret(&eps, 128, &mu_p, mmb).is_err());
        assert!(key
            .commit_secret(&[Integer::from(-1)], 128, &mu, mb)
            .is_err());
        let v = random_bits(&mut rng, 128);
        let ks: Vec<Integer> = xs
            .iter()
            .zip(&eps)
            .map(|(x, e)| Integer::from(&v * x) + e)
            .collect();
        let k_mu = Integer::from(&v * &mu) + &mu_p;
        assert!(key.check_response_vartime(&z, &z_p, &v, &ks, &k_mu));
        let mut bad = ks.clone();
        bad[2] += 1u32;
        assert!(!key.check_response_vartime(&z, &z_p, &v, &bad, &k_mu));
        let k_mu_bad = Integer::from(&k_mu + 1u32);
        assert!(!key.check_response_vartime(&z, &z_p, &v, &ks, &k_mu_bad));
        let huge = Integer::from(1) << (key.mu_mask_bits() + 2);
        assert!(!key.check_response_vartime(&z, &z_p, &v, &ks, &huge));
        assert!(!key.check_response_vartime(&Integer::from(0), &z_p, &v, &ks, &k_mu));
        // Swapping two committed coordinates (a different permutation) is caught.
        let mut swapped = xs.clone();
        swapped.swap(0, 1);
        let z_sw = key.commit_secret(&swapped, 128, &mu, mb).expect("commit");
        assert!(!key.check_response_vartime(&z_sw, &z_p, &v, &ks, &k_mu));
        // Up to a factor of order ≤ 2 (issue 17, session 14: the single check compares
        // squares, as the shuffle chain's batch must): −Z′ passes, Z′·t does not.
        let neg = Integer::from(&n_hat - &z_p);
        assert!(key.check_response_vartime(&z, &neg, &v, &ks, &k_mu));
        let off = mul_mod(&z_p, &key.t, &n_hat);
        assert!(!key.check_response_vartime(&z, &off, &v, &ks, &k_mu));
    }
}
