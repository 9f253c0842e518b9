//! Threshold Paillier decryption (Shoup's RSA technique as adapted by Damgård–Jurik, `s = 1`)
//! with a **trusted dealer**.
//!
//! # Setup assumption
//!
//! One dealer generates the key, hands each party its share over a private channel and
//! forgets everything. The dealer learns the factorisation of `n` and could decrypt alone;
//! the scheme protects against up to `t − 1` corrupted *share holders* only. (A distributed
//! generation of safe-prime RSA moduli is out of scope.)
//!
//! # Key generation (dealer)
//!
//! * Fresh safe primes `p = 2p' + 1`, `q = 2q' + 1`, `n = pq`, `m = p'q'`; the group
//!   `QR_{n²}` of squares is cyclic of order `n·m`.
//! * The decryption exponent `d` with `d ≡ 0 (mod m)` and `d ≡ 1 (mod n)`, i.e.
//!   `d = m·(m^{-1} mod n)`. For `c = Enc(M; r) = (1 + n)^M·r^n`,
//!   `c^{4Δ²d} = (1 + n)^{4Δ²dM}·(r^n)^{4Δ²d} = 1 + 4Δ²M·n (mod n²)`: `d ≡ 1 (mod n)` fixes
//!   the first factor, and `λ(n) = 2m` (the exponent of the group of `n`-th residues)
//!   divides `4Δ²d`, which kills the second.
//! * Shamir sharing modulo `n·m`: `f(X) = d + a_1 X + … + a_{t−1} X^{t−1}` with `a_k`
//!   uniform in `[0, n·m)`, share `s_i = f(i) mod n·m`. Reconstruction happens in the
//!   exponent with the *integer* Lagrange coefficients `μ_i = Δ·λ_{0,i}^S` (`Δ = ℓ!` for `ℓ`
//!   parties), so nobody needs to invert modulo the secret `n·m`.
//! * Verification keys: `v` a random square generating `QR_{n²}` (the dealer checks its
//!   order), `v_i = v^{Δ·s_i} mod n²`.
//!
//! # Decryption
//!
//! * Share: `c_i = c^{2Δ·s_i} mod n²`, with a proof that `log_{c⁴}(c_i²) = log_v(v_i)`
//!   (= `Δ·s_i`): Chaum–Pedersen over the integers. The prover picks
//!   `r ∈ [0, 2^{|n²| + |Δ| + 256 + 128})`, sends `a = c^{4r}`, `b = v^r`; the challenge `e`
//!   (256 bits) comes from a `merlin` transcript that binds the protocol name and version,
//!   the session id, a fingerprint of the whole threshold public key (n, v, every v_j, t, ℓ),
//!   the party id, `c`, `c_i`, `v_i`, `a` and `b`; the response is `z = r + e·Δ·s_i` over the
//!   integers. Since `e·Δ·s_i < 2^{|n²| + |Δ| + 256}`, the 128 extra bits of `r` make `z`
//!   statistically independent of `s_i`. The proof is sent as `(e, z)`; the verifier
//!   recomputes `a = c^{4z}·c_i^{−2e}`, `b = v^z·v_i^{−e}` and the challenge.
//! * Combination over a set `S` of `t` verified shares:
//!   `c' = Π_{i∈S} c_i^{2μ_i} = c^{4Δ²·d} = 1 + 4Δ²·M·n (mod n²)`, so
//!   `M = L(c')·(4Δ²)^{-1} mod n` with `L(x) = (x − 1)/n`.
//!
//! The squarings (`c⁴`, `c_i²`) confine everything to `QR_{n²}`, removing the sign ambiguity
//! of elements of order 2; soundness of the proof needs the challenge to be shorter than the
//! smallest prime factor of the group order (256 bits ≪ |p'|, |q'|).
//!
//! # Constant time
//!
//! `c^{2Δs_i}`, `c^{4r}` and `v^r` use `mpz_powm_sec`; verification and combination only
//! touch public exponents and use `mpz_powm`.

use crate::bigint::{
    self, from_be_bytes, is_unit_in_range, mul_mod, pow_mod_secret, pow_mod_vartime, random_below,
    random_bits, random_unit, short_hex, to_be_bytes_padded, SecretInteger,
};
use crate::error::PaillierError;
use crate::fixed_base::FixedBase;
use crate::paillier::{read_public_key, Ciphertext, PublicKey};
use crate::primes::{generate_safe_prime, is_safe_prime};
use merlin::Transcript;
use quorate_core::encoding::{Reader, Writer};
use quorate_core::party::check_distinct;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{Blame, DecodeError, ParamError, PartyId, ThresholdParams};
use rand_core::{CryptoRng, RngCore};
use rug::Integer;
use std::sync::{Arc, OnceLock};
use zeroize::Zeroizing;

/// Bits of the Fiat–Shamir challenge of a decryption-share proof.
pub const CHALLENGE_BITS: u32 = 256;

/// Bits of each batching weight of the batched decryption proofs (`ρ_j` in a party's proof,
/// `β_i`, `γ_i` across parties; [`crate::batch`]).
pub const WEIGHT_BITS: u32 = 128;

/// Statistical zero-knowledge slack (bits) of the proof's mask.
pub const STATISTICAL_BITS: u32 = 128;

/// Largest number of parties supported (`Δ = ℓ!` grows with `ℓ`; 1024! has 8770 bits).
pub const MAX_PARTIES: u16 = 1024;

const PROOF_PROTOCOL: &[u8] = b"quorate/paillier/threshold-decryption-share";
const PROOF_VERSION: u16 = 1;
const FINGERPRINT_PROTOCOL: &[u8] = b"quorate/paillier/threshold-public-key";
const FINGERPRINT_VERSION: u16 = 1;

const TPK_TAG: u8 = 0x52;
const KEY_SHARE_TAG: u8 = 0x53;
const DEC_SHARE_TAG: u8 = 0x54;
const FORMAT_VERSION: u8 = 1;
const CHALLENGE_BYTES: usize = (CHALLENGE_BITS / 8) as usize;

/// The public side of a threshold Paillier key.
#[derive(Clone, PartialEq, Eq)]
pub struct ThresholdPublicKey {
    pk: PublicKey,
    params: ThresholdParams,
    v: Integer,
    verification_keys: Vec<Integer>,
    delta: Integer,
    fingerprint: [u8; 32],
    v_table: VTable,
}

/// A Yao table of `v` for the verifiers' public responses (issue 17), built on first use by
/// [`ThresholdPublicKey::v_pow_vartime`] and shared by clones. A cache, a function of `v`
/// alone: it never takes part in equality.
#[derive(Clone, Default)]
struct VTable(Arc<OnceLock<Option<FixedBase>>>);

impl PartialEq for VTable {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for VTable {}

/// One party's secret share `s_i` of the decryption exponent, wiped on drop.
#[derive(Clone)]
pub struct KeyShare {
    id: PartyId,
    s: SecretInteger,
}

/// A decryption share `c_i = c^{2Δs_i}` with its proof `(e, z)`, as sent on the wire.
#[derive(Clone, PartialEq, Eq)]
pub struct DecryptionShare {
    id: PartyId,
    c_i: Integer,
    e: Integer,
    z: Integer,
}

/// A decryption share whose proof has been checked against a specific ciphertext; only
/// [`ThresholdPublicKey::verify_share`] creates these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedDecryptionShare {
    id: PartyId,
    c_i: Integer,
    ciphertext: Ciphertext,
}

fn delta_for(parties: u16) -> Integer {
    Integer::from(Integer::factorial(u32::from(parties)))
}

fn check_params(params: &ThresholdParams) -> Result<(), PaillierError> {
    if params.n() > MAX_PARTIES {
        // The message states the value; the assertion keeps the two in step.
        const _: () = assert!(MAX_PARTIES == 1024);
        return Err(ParamError::Invalid("more than 1024 parties (MAX_PARTIES)").into());
    }
    Ok(())
}

/// Runs the trusted dealer with fresh safe primes of `modulus_bits / 2` bits each and returns
/// the public key and the `ℓ` key shares (share `i` belongs to party `i`).
///
/// Safe-prime generation dominates: seconds at `modulus_bits = 2048`, tens of seconds at
/// 3072 (see [`crate::primes`]).
pub fn deal<R: RngCore + CryptoRng>(
    params: ThresholdParams,
    modulus_bits: u32,
    rng: &mut R,
) -> Result<(ThresholdPublicKey, Vec<KeyShare>), PaillierError> {
    check_params(&params)?;
    crate::paillier::check_keygen_bits("threshold paillier modulus", modulus_bits)?;
    loop {
        let p = SecretInteger::new(generate_safe_prime(modulus_bits / 2, rng)?);
        let q = SecretInteger::new(generate_safe_prime(modulus_bits / 2, rng)?);
        match deal_with_primes(params, p.expose(), q.expose(), rng) {
            // Equal primes or a Cunningham pair (p = 2q + 1): draw again.
            Err(PaillierError::InvalidKey(_)) => continue,
            other => return other,
        }
    }
}

/// Runs the trusted dealer with given safe primes `p ≠ q` (for tests with precomputed
/// primes, or a dealer that generated them elsewhere).
pub fn deal_with_primes<R: RngCore + CryptoRng>(
    params: ThresholdParams,
    p: &Integer,
    q: &Integer,
    rng: &mut R,
) -> Result<(ThresholdPublicKey, Vec<KeyShare>), PaillierError> {
    check_params(&params)?;
    if p == q {
        return Err(PaillierError::InvalidKey("p = q"));
    }
    if !is_safe_prime(p) || !is_safe_prime(q) {
        return Err(PaillierError::InvalidKey(
            "threshold paillier needs safe primes",
        ));
    }
    let pk = PublicKey::from_modulus(Integer::from(p * q))?;
    let n = pk.n().clone();
    let n2 = pk.n_squared().clone();
    let p1 = SecretInteger::new(Integer::from(p - 1u32) >> 1u32);
    let q1 = SecretInteger::new(Integer::from(q - 1u32) >> 1u32);
    let ell = u32::from(params.n());
    if *p1.expose() <= ell || *q1.expose() <= ell {
        return Err(PaillierError::InvalidKey(
            "primes too small for the number of parties",
        ));
    }
    let m = SecretInteger::new(Integer::from(p1.expose() * q1.expose()));
    if Integer::from(m.expose().gcd_ref(&n)) != 1 {
        return Err(PaillierError::InvalidKey("p' q' shares a factor with n"));
    }
    let nm = SecretInteger::new(Integer::from(&n * m.expose()));
    let m_inv = SecretInteger::new(
        bigint::inv_mod(m.expose(), &n).ok_or(PaillierError::InvalidKey("m not invertible"))?,
    );
    // d ≡ 0 (mod m), d ≡ 1 (mod n).
    let d = SecretInteger::new(Integer::from(m.expose() * m_inv.expose()));

    // f(X) = d + a_1 X + ... + a_{t-1} X^{t-1} over Z_{nm}.
    let mut coeffs: Vec<SecretInteger> = Vec::with_capacity(usize::from(params.t()));
    coeffs.push(d);
    for _ in 1..params.t() {
        coeffs.push(SecretInteger::new(random_below(rng, nm.expose())));
    }
    let mut shares_s = Vec::with_capacity(usize::from(params.n()));
    for id in params.parties() {
        let x = u32::from(id.get());
        let mut acc = SecretInteger::new(Integer::new());
        for a in coeffs.iter().rev() {
            let next = Integer::from(acc.expose() * x) + a.expose();
            acc = SecretInteger::new(next);
        }
        shares_s.push((
            id,
            SecretInteger::new(bigint::modulo(acc.expose(), nm.expose())),
        ));
    }

    // v: a random square of full order n·m in QR_{n²}.
    let prime_factors = [p1.expose(), q1.expose(), p, q];
    let v = loop {
        let r = SecretInteger::new(random_unit(rng, &n2)?);
        let v = mul_mod(r.expose(), r.expose(), &n2);
        let mut full_order = true;
        for f in prime_factors {
            let e = SecretInteger::new(Integer::from(nm.expose() / f));
            if pow_mod_secret(&v, e.expose(), &n2)? == 1 {
                full_order = false;
            }
        }
        if full_order {
            break v;
        }
    };

    let delta = delta_for(params.n());
    let mut verification_keys = Vec::with_capacity(shares_s.len());
    for (_, s) in &shares_s {
        let e = SecretInteger::new(Integer::from(&delta * s.expose()));
        verification_keys.push(pow_mod_secret(&v, e.expose(), &n2)?);
    }
    let tpk = ThresholdPublicKey::assemble(pk, params, v, verification_keys)?;
    let shares = shares_s
        .into_iter()
        .map(|(id, s)| KeyShare { id, s })
        .collect();
    Ok((tpk, shares))
}

impl ThresholdPublicKey {
    fn assemble(
        pk: PublicKey,
        params: ThresholdParams,
        v: Integer,
        verification_keys: Vec<Integer>,
    ) -> Result<Self, PaillierError> {
        check_params(&params)?;
        if verification_keys.len() != usize::from(params.n()) {
            return Err(ParamError::LengthMismatch {
                what: "verification keys",
                expected: usize::from(params.n()),
                got: verification_keys.len(),
            }
            .into());
        }
        let n2 = pk.n_squared();
        if !is_unit_in_range(&v, n2) {
            return Err(PaillierError::NotAUnit {
                what: "verification base v",
            });
        }
        if verification_keys.iter().any(|vk| !is_unit_in_range(vk, n2)) {
            return Err(PaillierError::NotAUnit {
                what: "verification key",
            });
        }
        let mut tpk = ThresholdPublicKey {
            delta: delta_for(params.n()),
            pk,
            params,
            v,
            verification_keys,
            fingerprint: [0u8; 32],
            v_table: VTable::default(),
        };
        let mut t = Transcript::for_protocol(
            FINGERPRINT_PROTOCOL,
            FINGERPRINT_VERSION,
            &SessionId::new(Vec::new()),
        );
        t.append_message(b"threshold-public-key", &tpk.to_bytes());
        t.challenge_bytes(b"fingerprint", &mut tpk.fingerprint);
        Ok(tpk)
    }

    /// The Paillier public key used for encryption (`g = 1 + n`).
    pub fn encryption_key(&self) -> &PublicKey {
        &self.pk
    }

    /// The threshold `t` and number of parties `ℓ`.
    pub fn params(&self) -> ThresholdParams {
        self.params
    }

    /// `Δ = ℓ!`.
    pub fn delta(&self) -> &Integer {
        &self.delta
    }

    /// The verification base `v`.
    pub fn v(&self) -> &Integer {
        &self.v
    }

    /// Party `id`'s verification key `v^{Δ s_id}`, if `id` is a party.
    pub fn verification_key(&self, id: PartyId) -> Option<&Integer> {
        if !self.params.contains(id) {
            return None;
        }
        self.verification_keys.get(id.position())
    }

    /// A 32-byte digest of the whole public key (bound into every proof).
    pub fn fingerprint(&self) -> &[u8; 32] {
        &self.fingerprint
    }

    pub(crate) fn n2_len(&self) -> usize {
        self.pk.ciphertext_len()
    }

    /// Bits of the proof mask `r`: `|n²| + |Δ| + CHALLENGE_BITS + STATISTICAL_BITS`.
    pub(crate) fn mask_bits(&self) -> u32 {
        self.pk.n_squared().significant_bits()
            + self.delta.significant_bits()
            + CHALLENGE_BITS
            + STATISTICAL_BITS
    }

    /// Bound on the response: `z < 2^{mask_bits + 1}`.
    pub(crate) fn z_bits(&self) -> u32 {
        self.mask_bits() + 1
    }

    pub(crate) fn z_len(&self) -> usize {
        bigint::byte_len(self.z_bits())
    }

    /// `v^z mod n²` for a **public** exponent (variable time). Exponents
    /// `0 ≤ z < 2^{z_bits + 128 + 11}` (every response of an in-range proof, and the
    /// weighted sum `Σ γ_i z_i` over up to [`MAX_PARTIES`] parties of
    /// [`ThresholdPublicKey::verify_batches`]) use a Yao table of `v` built on first use
    /// (about `|z|/9` residues, 0.6 MB at `|n| = 3072`; one exponentiation to build, then
    /// about 1/6 of an `mpz_powm` per use); other exponents take `mpz_powm`. Same result
    /// either way.
    pub(crate) fn v_pow_vartime(&self, z: &Integer) -> Result<Integer, PaillierError> {
        let n2 = self.pk.n_squared();
        let bits = self.z_bits() + WEIGHT_BITS + 11;
        let table = self
            .v_table
            .0
            .get_or_init(|| FixedBase::new(&self.v, n2, bits).ok());
        match table {
            Some(t) if *z >= 0 && z.significant_bits() <= t.max_exp_bits() => t.pow_vartime(z),
            _ => pow_mod_vartime(&self.v, z, n2),
        }
    }

    pub(crate) fn element_bytes(&self, x: &Integer) -> Vec<u8> {
        // Every element passed here is reduced modulo n², so it fits.
        to_be_bytes_padded(x, self.n2_len()).unwrap_or_default()
    }

    #[allow(clippy::too_many_arguments)]
    fn challenge(
        &self,
        sid: &SessionId,
        id: PartyId,
        c: &Ciphertext,
        c_i: &Integer,
        v_i: &Integer,
        a: &Integer,
        b: &Integer,
    ) -> Integer {
        let mut t = Transcript::for_protocol(PROOF_PROTOCOL, PROOF_VERSION, sid);
        t.append_message(b"key-fingerprint", &self.fingerprint);
        t.append_party(b"party", id);
        t.append_message(b"ciphertext", &self.element_bytes(c.as_integer()));
        t.append_message(b"decryption-share", &self.element_bytes(c_i));
        t.append_message(b"verification-key", &self.element_bytes(v_i));
        t.append_message(b"commitment-a", &self.element_bytes(a));
        t.append_message(b"commitment-b", &self.element_bytes(b));
        let mut e = [0u8; CHALLENGE_BYTES];
        t.challenge_bytes(b"challenge", &mut e);
        from_be_bytes(&e)
    }

    /// Checks a decryption share's proof for ciphertext `c` in session `sid`. On failure the
    /// error blames the share's sender.
    pub fn verify_share(
        &self,
        sid: &SessionId,
        c: &Ciphertext,
        share: &DecryptionShare,
    ) -> Result<VerifiedDecryptionShare, PaillierError> {
        self.pk.check_ciphertext(c)?;
        let blame = |check| PaillierError::Aborted(Blame::one(share.id, check));
        let v_i = self
            .verification_key(share.id)
            .ok_or_else(|| blame("decryption share from an unknown party"))?;
        let n2 = self.pk.n_squared();
        if !is_unit_in_range(&share.c_i, n2) {
            return Err(blame("decryption share is not a unit mod n^2"));
        }
        if share.e < 0
            || share.e.significant_bits() > CHALLENGE_BITS
            || share.z < 0
            || share.z.significant_bits() > self.z_bits()
        {
            return Err(blame("decryption share proof out of range"));
        }
        let c4 = pow_mod_vartime(c.as_integer(), &Integer::from(4), n2)?;
        let ci2 = mul_mod(&share.c_i, &share.c_i, n2);
        let neg_e = Integer::from(-&share.e);
        let a = mul_mod(
            &pow_mod_vartime(&c4, &share.z, n2)?,
            &pow_mod_vartime(&ci2, &neg_e, n2)?,
            n2,
        );
        let b = mul_mod(
            &self.v_pow_vartime(&share.z)?,
            &pow_mod_vartime(v_i, &neg_e, n2)?,
            n2,
        );
        let e = self.challenge(sid, share.id, c, &share.c_i, v_i, &a, &b);
        if e != share.e {
            return Err(blame("decryption share proof"));
        }
        Ok(VerifiedDecryptionShare {
            id: share.id,
            c_i: share.c_i.clone(),
            ciphertext: c.clone(),
        })
    }

    /// Combines `t` or more verified shares of the same ciphertext into the plaintext
    /// `M ∈ [0, n)` (uses the `t` lowest party ids given).
    pub fn combine(&self, shares: &[VerifiedDecryptionShare]) -> Result<Integer, PaillierError> {
        let ids: Vec<PartyId> = shares.iter().map(|s| s.id).collect();
        self.params.check_quorum(&ids)?;
        let c = &shares
            .first()
            .ok_or(ParamError::NotEnoughShares {
                needed: self.params.t(),
                got: 0,
            })?
            .ciphertext;
        if shares.iter().any(|s| s.ciphertext != *c) {
            return Err(PaillierError::Mismatch("shares of different ciphertexts"));
        }
        let mut chosen: Vec<&VerifiedDecryptionShare> = shares.iter().collect();
        chosen.sort_by_key(|s| s.id);
        chosen.truncate(usize::from(self.params.t()));
        let set: Vec<PartyId> = chosen.iter().map(|s| s.id).collect();

        let n = self.pk.n();
        let n2 = self.pk.n_squared();
        let mut pos = Integer::from(1);
        let mut neg = Integer::from(1);
        for s in &chosen {
            let mu = integer_lagrange_at_zero(&self.delta, s.id, &set)?;
            let exp = Integer::from(mu.abs_ref()) * 2u32;
            let term = pow_mod_vartime(&s.c_i, &exp, n2)?;
            if mu < 0 {
                neg = mul_mod(&neg, &term, n2);
            } else {
                pos = mul_mod(&pos, &term, n2);
            }
        }
        let neg_inv = bigint::inv_mod(&neg, n2)
            .ok_or(PaillierError::Combination("share product not invertible"))?;
        let c_prime = mul_mod(&pos, &neg_inv, n2);
        let x = Integer::from(&c_prime - 1u32);
        if !x.is_divisible(n) {
            return Err(PaillierError::Combination("combined value is not 1 mod n"));
        }
        let l = x.div_exact(n);
        let four_delta2 = Integer::from(self.delta.square_ref()) * 4u32;
        let inv = bigint::inv_mod(&four_delta2, n)
            .ok_or(PaillierError::Combination("4 delta^2 not invertible mod n"))?;
        Ok(mul_mod(&l, &inv, n))
    }

    /// Verifies every share, then combines. If any share fails, returns
    /// [`PaillierError::Aborted`] blaming **all** failing parties (so the
    /// caller can exclude them and retry); a caller that prefers to carry on with the honest
    /// shares verifies each with [`ThresholdPublicKey::verify_share`] and combines any `t`
    /// that pass.
    pub fn verify_and_combine(
        &self,
        sid: &SessionId,
        c: &Ciphertext,
        shares: &[DecryptionShare],
    ) -> Result<Integer, PaillierError> {
        let ids: Vec<PartyId> = shares.iter().map(|s| s.id).collect();
        check_distinct(&ids)?;
        let mut verified = Vec::with_capacity(shares.len());
        let mut culprits = Vec::new();
        let mut check = "decryption share proof";
        for share in shares {
            match self.verify_share(sid, c, share) {
                Ok(v) => verified.push(v),
                Err(PaillierError::Aborted(b)) => {
                    check = b.check();
                    culprits.extend_from_slice(b.culprits());
                }
                Err(other) => return Err(other),
            }
        }
        if !culprits.is_empty() {
            return Err(PaillierError::Aborted(Blame::many(culprits, check)));
        }
        self.combine(&verified)
    }

    /// Canonical encoding: `0x52 ‖ version ‖ u16 t ‖ u16 ℓ ‖ paillier public key ‖ v ‖
    /// v_1 … v_ℓ`, group elements as fixed-length `⌈|n²|/8⌉`-byte big-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(TPK_TAG, FORMAT_VERSION)
            .u16(self.params.t())
            .u16(self.params.n())
            .bytes(&self.pk.to_bytes())
            .bytes(&self.element_bytes(&self.v));
        for vk in &self.verification_keys {
            w.bytes(&self.element_bytes(vk));
        }
        w.into_bytes()
    }

    /// Decodes [`ThresholdPublicKey::to_bytes`], checking the parameters, the modulus and
    /// that `v` and every `v_i` are units in `(0, n²)`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, PaillierError> {
        let what = "threshold paillier public key";
        let mut r = Reader::new(what, bytes);
        r.header(TPK_TAG, FORMAT_VERSION)?;
        let t = r.u16()?;
        let ell = r.u16()?;
        let params = ThresholdParams::new(t, ell)?;
        check_params(&params)?;
        let pk = read_public_key(&mut r)?;
        let len = pk.ciphertext_len();
        let v = from_be_bytes(r.take(len)?);
        let mut vks = Vec::with_capacity(usize::from(ell));
        for _ in 0..ell {
            vks.push(from_be_bytes(r.take(len)?));
        }
        r.finish()?;
        Self::assemble(pk, params, v, vks)
    }

    /// Encodes a decryption share: `0x54 ‖ version ‖ party ‖ c_i ‖ e (32 B) ‖ z`, with `c_i`
    /// and `z` fixed-length for this key.
    pub fn encode_share(&self, share: &DecryptionShare) -> Vec<u8> {
        let mut w = Writer::new();
        w.header(DEC_SHARE_TAG, FORMAT_VERSION)
            .party(share.id)
            .bytes(&self.element_bytes(&share.c_i))
            .bytes(&to_be_bytes_padded(&share.e, CHALLENGE_BYTES).unwrap_or_default())
            .bytes(&to_be_bytes_padded(&share.z, self.z_len()).unwrap_or_default());
        w.into_bytes()
    }

    /// Decodes a decryption share, checking lengths, the party id, `c_i ∈ Z_{n²}^*` and the
    /// range of `z`. (The proof itself is checked by [`ThresholdPublicKey::verify_share`].)
    pub fn decode_share(&self, bytes: &[u8]) -> Result<DecryptionShare, PaillierError> {
        let what = "paillier decryption share";
        let mut r = Reader::new(what, bytes);
        r.header(DEC_SHARE_TAG, FORMAT_VERSION)?;
        let id = r.party()?;
        if !self.params.contains(id) {
            return Err(ParamError::UnknownParty {
                id,
                n: self.params.n(),
            }
            .into());
        }
        let c_i = from_be_bytes(r.take(self.n2_len())?);
        let e = from_be_bytes(r.take(CHALLENGE_BYTES)?);
        let z = from_be_bytes(r.take(self.z_len())?);
        r.finish()?;
        if !is_unit_in_range(&c_i, self.pk.n_squared()) {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "share is not a unit mod n^2",
            }
            .into());
        }
        if z.significant_bits() > self.z_bits() {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "response out of range",
            }
            .into());
        }
        Ok(DecryptionShare { id, c_i, e, z })
    }
}

/// `μ_i = Δ·Π_{j∈S, j≠i} j / (j − i)`, an integer because `Δ = ℓ!`.
fn integer_lagrange_at_zero(
    delta: &Integer,
    i: PartyId,
    set: &[PartyId],
) -> Result<Integer, PaillierError> {
    let xi = i64::from(i.get());
    let mut num = delta.clone();
    let mut den = Integer::from(1);
    for j in set.iter().filter(|j| **j != i) {
        let xj = i64::from(j.get());
        num *= xj;
        den *= xj - xi;
    }
    if den == 0 {
        return Err(ParamError::RepeatedEvaluationPoint.into());
    }
    if !num.is_divisible(&den) {
        return Err(
            ParamError::Invalid("lagrange coefficient is not integral (party id above l)").into(),
        );
    }
    Ok(num.div_exact(&den))
}

impl core::fmt::Debug for ThresholdPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThresholdPublicKey")
            .field("n", &short_hex(self.pk.n()))
            .field("t", &self.params.t())
            .field("parties", &self.params.n())
            .finish_non_exhaustive()
    }
}

impl KeyShare {
    /// The party holding this share.
    pub fn id(&self) -> PartyId {
        self.id
    }

    /// The secret share value `s_i`.
    pub fn secret(&self) -> &SecretInteger {
        &self.s
    }

    /// Computes this party's decryption share of `c` with its proof, bound to session `sid`.
    pub fn decrypt_share<R: RngCore + CryptoRng>(
        &self,
        tpk: &ThresholdPublicKey,
        sid: &SessionId,
        c: &Ciphertext,
        rng: &mut R,
    ) -> Result<DecryptionShare, PaillierError> {
        tpk.pk.check_ciphertext(c)?;
        let v_i = tpk
            .verification_key(self.id)
            .ok_or(ParamError::UnknownParty {
                id: self.id,
                n: tpk.params.n(),
            })?;
        let n2 = tpk.pk.n_squared();
        let x = SecretInteger::new(Integer::from(&tpk.delta * self.s.expose()));
        let two_x = SecretInteger::new(Integer::from(x.expose() * 2u32));
        let c_i = pow_mod_secret(c.as_integer(), two_x.expose(), n2)?;
        let c4 = pow_mod_vartime(c.as_integer(), &Integer::from(4), n2)?;
        let r = SecretInteger::new(random_bits(rng, tpk.mask_bits()));
        let a = pow_mod_secret(&c4, r.expose(), n2)?;
        let b = pow_mod_secret(&tpk.v, r.expose(), n2)?;
        let e = tpk.challenge(sid, self.id, c, &c_i, v_i, &a, &b);
        let z = Integer::from(&e * x.expose()) + r.expose();
        Ok(DecryptionShare {
            id: self.id,
            c_i,
            e,
            z,
        })
    }

    /// Canonical encoding: `0x53 ‖ version ‖ party ‖ s_i` (fixed `⌈|n²|/8⌉` bytes). The
    /// buffer is wiped when dropped.
    pub fn to_bytes(&self, tpk: &ThresholdPublicKey) -> Zeroizing<Vec<u8>> {
        let s =
            Zeroizing::new(to_be_bytes_padded(self.s.expose(), tpk.n2_len()).unwrap_or_default());
        let mut out = Zeroizing::new(Vec::with_capacity(4 + s.len()));
        out.extend_from_slice(&[KEY_SHARE_TAG, FORMAT_VERSION]);
        out.extend_from_slice(&self.id.to_bytes());
        out.extend_from_slice(&s);
        out
    }

    /// Decodes [`KeyShare::to_bytes`] and checks the share against the party's verification
    /// key (`v^{Δ s_i} = v_i`, computed on the constant-time path), so a corrupted or foreign
    /// share is rejected.
    pub fn from_bytes(tpk: &ThresholdPublicKey, bytes: &[u8]) -> Result<Self, PaillierError> {
        let what = "paillier key share";
        let mut r = Reader::new(what, bytes);
        r.header(KEY_SHARE_TAG, FORMAT_VERSION)?;
        let id = r.party()?;
        let s = SecretInteger::new(from_be_bytes(r.take(tpk.n2_len())?));
        r.finish()?;
        let v_i = tpk.verification_key(id).ok_or(ParamError::UnknownParty {
            id,
            n: tpk.params.n(),
        })?;
        if s.expose() >= tpk.pk.n_squared() {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "share out of range",
            }
            .into());
        }
        let x = SecretInteger::new(Integer::from(&tpk.delta * s.expose()));
        if pow_mod_secret(&tpk.v, x.expose(), tpk.pk.n_squared())? != *v_i {
            return Err(PaillierError::InvalidKey(
                "key share does not match its verification key",
            ));
        }
        Ok(KeyShare { id, s })
    }
}

impl core::fmt::Debug for KeyShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyShare")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl DecryptionShare {
    /// The sender.
    pub fn id(&self) -> PartyId {
        self.id
    }

    /// `c_i = c^{2Δs_i} mod n²`.
    pub fn value(&self) -> &Integer {
        &self.c_i
    }

    /// The proof's challenge `e` and response `z`.
    pub fn proof(&self) -> (&Integer, &Integer) {
        (&self.e, &self.z)
    }

    /// Builds a share from parts (for decoding in other formats and for fault-injection
    /// tests); nothing is checked until [`ThresholdPublicKey::verify_share`].
    pub fn from_parts(id: PartyId, c_i: Integer, e: Integer, z: Integer) -> Self {
        DecryptionShare { id, c_i, e, z }
    }
}

impl core::fmt::Debug for DecryptionShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DecryptionShare")
            .field("id", &self.id)
            .field("c_i", &short_hex(&self.c_i))
            .finish_non_exhaustive()
    }
}

impl VerifiedDecryptionShare {
    pub(crate) fn new(id: PartyId, c_i: Integer, ciphertext: Ciphertext) -> Self {
        VerifiedDecryptionShare {
            id,
            c_i,
            ciphertext,
        }
    }

    /// The sender.
    pub fn id(&self) -> PartyId {
        self.id
    }

    /// `c_i = c^{2Δs_i} mod n²`.
    pub fn value(&self) -> &Integer {
        &self.c_i
    }

    /// The ciphertext this share was verified against.
    pub fn ciphertext(&self) -> &Ciphertext {
        &self.ciphertext
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u16]) -> Vec<PartyId> {
        v.iter().filter_map(|&i| PartyId::new(i).ok()).collect()
    }

    #[test]
    fn integer_lagrange_interpolates_constants_and_lines() {
        let delta = delta_for(5);
        for set in [ids(&[1, 2, 3]), ids(&[2, 4, 5]), ids(&[1, 3, 5])] {
            // Σ μ_i f(i) = Δ f(0) for f(X) = 7 + 3X − 2X².
            let f = |x: i64| 7 + 3 * x - 2 * x * x;
            let mut acc = Integer::new();
            for &i in &set {
                let mu = integer_lagrange_at_zero(&delta, i, &set).expect("distinct");
                acc += mu * f(i64::from(i.get()));
            }
            assert_eq!(acc, Integer::from(&delta * 7));
        }
    }

    /// `v^z` from the table equals `mpz_powm`, inside the table's range and outside it
    /// (an over-long or negative exponent), and clones share the built table.
    #[test]
    fn v_table_matches_pow_mod() {
        use rand_chacha::ChaCha20Rng;
        use rand_core::SeedableRng;
        let mut rng = ChaCha20Rng::seed_from_u64(23);
        let params = ThresholdParams::new(2, 3).expect("params");
        let (tpk, _) = deal(params, 512, &mut rng).expect("deal");
        let n2 = tpk.encryption_key().n_squared().clone();
        for z in [
            Integer::new(),
            bigint::random_bits(&mut rng, tpk.z_bits()),
            bigint::random_bits(&mut rng, tpk.z_bits() + 130),
            Integer::from(1) << (tpk.z_bits() + 200),
            Integer::from(-5),
        ] {
            let want = pow_mod_vartime(tpk.v(), &z, &n2).expect("unit");
            assert_eq!(tpk.v_pow_vartime(&z).expect("unit"), want, "z={z}");
        }
        let copy = tpk.clone();
        assert!(copy.v_table.0.get().is_some_and(|t| t.is_some()));
        assert_eq!(copy, tpk);
    }
}
