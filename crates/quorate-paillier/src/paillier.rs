//! Paillier encryption with `g = 1 + n` and CRT decryption.
//!
//! # Scheme
//!
//! * **KeyGen:** primes `p ≠ q` of equal size (optionally safe primes), `n = pq`; the public
//!   key is `n` (with `g = 1 + n` implied).
//! * **Enc(m; r)** for `m ∈ [0, n)`, `r ∈ Z_n^*`: `c = (1 + n)^m · r^n mod n²`, where
//!   `(1 + n)^m = 1 + m·n mod n²` (binomial theorem, `n² ≡ 0`), so only `r^n` is an
//!   exponentiation. `r^n` runs on the constant-time path because `r` is secret (it alone
//!   would decrypt `c`).
//! * **Dec (CRT, Paillier 1999 §7):** with `L_p(x) = (x − 1)/p`,
//!   `m_p = L_p(c^{p−1} mod p²) · h_p mod p`, where `h_p = L_p((1+n)^{p−1} mod p²)^{-1}
//!   = (−q)^{-1} mod p` (because `(1+n)^{p−1} ≡ 1 + (p−1)n (mod p²)` and `(p−1)n/p ≡ −q`);
//!   likewise `m_q`, and `m = m_p + p·((m_q − m_p)·p^{-1} mod q)`. The two exponentiations
//!   have `|n|/2`-bit exponents modulo `|n|`-bit moduli: about 4× cheaper than textbook
//!   decryption `m = L(c^λ mod n²)·λ^{-1} mod n` (one `2|n|`-bit modulus, `|n|`-bit
//!   exponent), which [`SecretKey::decrypt_textbook`] keeps as a reference.
//! * **Homomorphisms:** `Enc(a)·Enc(b) = Enc(a + b)`, `Enc(a)^k = Enc(k·a)`,
//!   `c·r^n` re-randomises.
//!
//! # Constant time
//!
//! Secret exponents (`p − 1`, `q − 1`) and secret bases (the nonce `r`) use
//! `mpz_powm_sec`. The surrounding GMP arithmetic (reductions modulo the secret `p²`, `q²`,
//! the CRT recombination) is ordinary `mpz` code, which is not guaranteed constant time.
//!
//! # Encodings
//!
//! * ciphertext: exactly `⌈bits(n²)/8⌉` bytes big-endian, checked `0 < c < n²` and
//!   `gcd(c, n) = 1`;
//! * public key: `0x50 ‖ version ‖ u16 len ‖ n` (minimal big-endian, odd, no small factor);
//! * secret key: `0x51 ‖ version ‖ flags ‖ u16 len ‖ p ‖ u16 len ‖ q` with `p < q`, flag bit 0
//!   = safe primes; decoding re-checks primality (and safety) and recomputes everything else.

use crate::bigint::{
    self, from_be_bytes, from_be_bytes_minimal, inv_mod, is_unit_in_range, mul_mod, pow_mod_secret,
    pow_mod_vartime, random_unit, short_hex, to_be_bytes_minimal, to_be_bytes_padded,
    SecretInteger,
};
use crate::error::PaillierError;
use crate::primes::{generate_prime, generate_safe_prime, has_small_factor, is_probable_prime};
use quorate_core::encoding::{Reader, Writer};
use quorate_core::{DecodeError, ParamError};
use rand_core::{CryptoRng, RngCore};
use rug::Integer;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// Smallest accepted modulus size. Only suitable for tests; use at least
/// [`RECOMMENDED_MODULUS_BITS`] in production.
pub const MIN_MODULUS_BITS: u32 = 512;

/// Largest accepted modulus size (bounds decoding work).
pub const MAX_MODULUS_BITS: u32 = 16384;

/// 3072-bit `n`: about 128-bit security if factoring is the best attack (the CS03 note's
/// "aggressive" choice; 4096 is its "conservative" one).
pub const RECOMMENDED_MODULUS_BITS: u32 = 3072;

const PUBLIC_KEY_TAG: u8 = 0x50;
const SECRET_KEY_TAG: u8 = 0x51;
const FORMAT_VERSION: u8 = 1;
const FLAG_SAFE_PRIMES: u8 = 1;

fn check_modulus_range(what: &'static str, bits: u32) -> Result<(), PaillierError> {
    if !(MIN_MODULUS_BITS..=MAX_MODULUS_BITS).contains(&bits) {
        return Err(PaillierError::BitLength {
            what,
            bits,
            min: MIN_MODULUS_BITS,
            max: MAX_MODULUS_BITS,
        });
    }
    Ok(())
}

/// Checks a requested key size: in range and even (two primes of `bits/2` bits each).
pub(crate) fn check_keygen_bits(what: &'static str, bits: u32) -> Result<(), PaillierError> {
    check_modulus_range(what, bits)?;
    if !bits.is_multiple_of(2) {
        return Err(ParamError::Invalid("modulus bit length must be even").into());
    }
    Ok(())
}

/// A Paillier public key: the modulus `n` (with `g = 1 + n`), and `n²`.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey {
    n: Integer,
    n2: Integer,
}

/// A Paillier ciphertext: an element of `Z_{n²}^*`, checked against its key when built.
#[derive(Clone, PartialEq, Eq)]
pub struct Ciphertext(Integer);

/// Encryption randomness `r ∈ Z_n^*`, wiped on drop.
#[derive(Clone)]
pub struct Nonce(SecretInteger);

/// A Paillier secret key: the factorisation of `n` and the CRT constants, wiped on drop.
#[derive(Clone)]
pub struct SecretKey {
    pk: PublicKey,
    p: SecretInteger,
    q: SecretInteger,
    p2: SecretInteger,
    q2: SecretInteger,
    p_minus_1: SecretInteger,
    q_minus_1: SecretInteger,
    /// `(−q)^{-1} mod p`.
    hp: SecretInteger,
    /// `(−p)^{-1} mod q`.
    hq: SecretInteger,
    /// `p^{-1} mod q`.
    p_inv_q: SecretInteger,
    safe_primes: bool,
}

impl PublicKey {
    /// Builds a public key from a modulus, checking that it is odd, of a supported bit
    /// length, not a perfect square and without prime factors below 2^16.
    ///
    /// This cannot check that `n` is a product of two large primes; keys from untrusted
    /// sources need a proof of well-formedness at the protocol level.
    pub fn from_modulus(n: Integer) -> Result<Self, PaillierError> {
        check_modulus_range("paillier modulus", n.significant_bits())?;
        if n.is_even() {
            return Err(PaillierError::InvalidModulus("n is even"));
        }
        if n.is_perfect_square() {
            return Err(PaillierError::InvalidModulus("n is a perfect square"));
        }
        if has_small_factor(&n) {
            return Err(PaillierError::InvalidModulus("n has a small prime factor"));
        }
        let n2 = Integer::from(n.square_ref());
        Ok(PublicKey { n, n2 })
    }

    /// The modulus `n`.
    pub fn n(&self) -> &Integer {
        &self.n
    }

    /// `n²`, the ciphertext modulus.
    pub fn n_squared(&self) -> &Integer {
        &self.n2
    }

    /// Bit length of `n`.
    pub fn modulus_bits(&self) -> u32 {
        self.n.significant_bits()
    }

    /// Length of an encoded ciphertext: `⌈bits(n²)/8⌉`.
    pub fn ciphertext_len(&self) -> usize {
        bigint::byte_len(self.n2.significant_bits())
    }

    /// A fresh uniform nonce `r ∈ Z_n^*`.
    pub fn random_nonce<R: RngCore + CryptoRng>(&self, rng: &mut R) -> Nonce {
        // n > 1 is guaranteed by construction, so this cannot fail; fall back to r = 1
        // (never reached) rather than panic.
        Nonce(SecretInteger::new(
            random_unit(rng, &self.n).unwrap_or_else(|_| Integer::from(1)),
        ))
    }

    /// Wraps an integer as a nonce after checking `r ∈ Z_n^*`.
    pub fn nonce_from_integer(&self, r: Integer) -> Result<Nonce, PaillierError> {
        if !is_unit_in_range(&r, &self.n) {
            return Err(PaillierError::NotAUnit { what: "nonce" });
        }
        Ok(Nonce(SecretInteger::new(r)))
    }

    fn check_plaintext(&self, m: &Integer) -> Result<(), PaillierError> {
        if *m < 0 || *m >= self.n {
            return Err(PaillierError::PlaintextOutOfRange);
        }
        Ok(())
    }

    /// `1 + m·n mod n²` = `(1 + n)^m`, for `m ∈ [0, n)`.
    fn g_pow(&self, m: &Integer) -> Integer {
        Integer::from(m * &self.n) + 1u32
    }

    /// `r^n mod n²` (constant-time path: `r` is secret).
    fn nonce_power(&self, r: &Nonce) -> Result<Integer, PaillierError> {
        pow_mod_secret(r.0.expose(), &self.n, &self.n2)
    }

    /// Encrypts `m ∈ [0, n)` with a fresh nonce.
    pub fn encrypt<R: RngCore + CryptoRng>(
        &self,
        m: &Integer,
        rng: &mut R,
    ) -> Result<Ciphertext, PaillierError> {
        let r = self.random_nonce(rng);
        self.encrypt_with_nonce(m, &r)
    }

    /// Encrypts `m ∈ [0, n)` and also returns the nonce (needed by proofs about `c`).
    pub fn encrypt_returning_nonce<R: RngCore + CryptoRng>(
        &self,
        m: &Integer,
        rng: &mut R,
    ) -> Result<(Ciphertext, Nonce), PaillierError> {
        let r = self.random_nonce(rng);
        let c = self.encrypt_with_nonce(m, &r)?;
        Ok((c, r))
    }

    /// Deterministic encryption `c = (1 + m·n)·r^n mod n²` with a given nonce.
    pub fn encrypt_with_nonce(&self, m: &Integer, r: &Nonce) -> Result<Ciphertext, PaillierError> {
        self.check_plaintext(m)?;
        if r.0.expose() >= &self.n {
            return Err(PaillierError::Mismatch("nonce from a larger modulus"));
        }
        let rn = SecretInteger::new(self.nonce_power(r)?);
        Ok(Ciphertext(mul_mod(&self.g_pow(m), rn.expose(), &self.n2)))
    }

    /// Homomorphic addition: `Enc(a)·Enc(b) = Enc(a + b mod n)`.
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Ciphertext {
        Ciphertext(mul_mod(&a.0, &b.0, &self.n2))
    }

    /// Homomorphic subtraction: `Enc(a)·Enc(b)^{-1} = Enc(a − b mod n)`.
    pub fn sub(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext, PaillierError> {
        let inv = inv_mod(&b.0, &self.n2).ok_or(PaillierError::NotAUnit { what: "ciphertext" })?;
        Ok(Ciphertext(mul_mod(&a.0, &inv, &self.n2)))
    }

    /// Adds a public plaintext: `c·(1 + m·n) = Enc(a + m mod n)` (same nonce).
    pub fn add_plain(&self, c: &Ciphertext, m: &Integer) -> Result<Ciphertext, PaillierError> {
        self.check_plaintext(m)?;
        Ok(Ciphertext(mul_mod(&c.0, &self.g_pow(m), &self.n2)))
    }

    /// Multiplies the plaintext by a **public** scalar `k` (any sign): `c^k = Enc(k·a mod n)`.
    /// Variable time in `k`.
    pub fn mul_plain_vartime(
        &self,
        c: &Ciphertext,
        k: &Integer,
    ) -> Result<Ciphertext, PaillierError> {
        Ok(Ciphertext(pow_mod_vartime(&c.0, k, &self.n2)?))
    }

    /// Re-randomises `c` with a fresh nonce: `c·r^n`.
    pub fn rerandomize<R: RngCore + CryptoRng>(
        &self,
        c: &Ciphertext,
        rng: &mut R,
    ) -> Result<Ciphertext, PaillierError> {
        let r = self.random_nonce(rng);
        self.rerandomize_with_nonce(c, &r)
    }

    /// Re-randomises `c` with the given nonce: `c·r^n`.
    pub fn rerandomize_with_nonce(
        &self,
        c: &Ciphertext,
        r: &Nonce,
    ) -> Result<Ciphertext, PaillierError> {
        let rn = SecretInteger::new(self.nonce_power(r)?);
        Ok(Ciphertext(mul_mod(&c.0, rn.expose(), &self.n2)))
    }

    /// Maps `m ∈ [0, n)` to the centred representative in `(−n/2, n/2]`.
    pub fn to_signed(&self, m: &Integer) -> Integer {
        let half = Integer::from(&self.n >> 1u32);
        if *m > half {
            Integer::from(m - &self.n)
        } else {
            m.clone()
        }
    }

    /// A [`Ciphertext`] of another key can reach this key's functions (the type does not
    /// record its key); refuse it unless it is a unit below `n²`.
    pub(crate) fn check_ciphertext(&self, c: &Ciphertext) -> Result<(), PaillierError> {
        if !is_unit_in_range(&c.0, &self.n2) {
            return Err(PaillierError::Mismatch("ciphertext of another key"));
        }
        Ok(())
    }

    /// Checks an integer as a ciphertext of this key: `0 < c < n²` and `gcd(c, n) = 1`.
    pub fn ciphertext_from_integer(&self, c: Integer) -> Result<Ciphertext, PaillierError> {
        if c <= 0 || c >= self.n2 {
            return Err(DecodeError::InvalidValue {
                what: "paillier ciphertext",
                reason: "not in (0, n^2)",
            }
            .into());
        }
        if Integer::from(c.gcd_ref(&self.n)) != 1 {
            return Err(DecodeError::InvalidValue {
                what: "paillier ciphertext",
                reason: "not coprime to n",
            }
            .into());
        }
        Ok(Ciphertext(c))
    }

    /// The fixed-length encoding of a ciphertext of this key.
    pub fn encode_ciphertext(&self, c: &Ciphertext) -> Vec<u8> {
        // c < n² by construction, so it always fits.
        to_be_bytes_padded(&c.0, self.ciphertext_len()).unwrap_or_default()
    }

    /// Decodes a ciphertext: exactly [`PublicKey::ciphertext_len`] bytes, then the range and
    /// coprimality checks of [`PublicKey::ciphertext_from_integer`].
    pub fn decode_ciphertext(&self, bytes: &[u8]) -> Result<Ciphertext, PaillierError> {
        let len = self.ciphertext_len();
        if bytes.len() != len {
            return Err(DecodeError::WrongLength {
                what: "paillier ciphertext",
                expected: len,
                got: bytes.len(),
            }
            .into());
        }
        self.ciphertext_from_integer(from_be_bytes(bytes))
    }

    /// Canonical encoding: `0x50 ‖ version ‖ u16 len ‖ n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = to_be_bytes_minimal(&self.n);
        let mut w = Writer::new();
        // n has at most MAX_MODULUS_BITS bits, so its length fits a u16.
        w.header(PUBLIC_KEY_TAG, FORMAT_VERSION)
            .u16(n.len() as u16)
            .bytes(&n);
        w.into_bytes()
    }

    /// Decodes [`PublicKey::to_bytes`], re-running every check of
    /// [`PublicKey::from_modulus`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, PaillierError> {
        let mut r = Reader::new("paillier public key", bytes);
        let n = read_public_key(&mut r)?;
        r.finish()?;
        Ok(n)
    }
}

/// Reads a public key encoding (header included) from `r`, leaving the rest unread.
pub(crate) fn read_public_key(r: &mut Reader<'_>) -> Result<PublicKey, PaillierError> {
    r.header(PUBLIC_KEY_TAG, FORMAT_VERSION)?;
    let len = r.len_prefix(bigint::byte_len(MAX_MODULUS_BITS))?;
    let n = from_be_bytes_minimal("paillier modulus", r.take(len)?)?;
    PublicKey::from_modulus(n)
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PublicKey")
            .field("n", &short_hex(&self.n))
            .finish()
    }
}

impl Ciphertext {
    /// The ciphertext as an integer in `(0, n²)`.
    pub fn as_integer(&self) -> &Integer {
        &self.0
    }

    /// Consumes the ciphertext, returning the integer.
    pub fn into_integer(self) -> Integer {
        self.0
    }
}

impl core::fmt::Debug for Ciphertext {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Ciphertext({})", short_hex(&self.0))
    }
}

impl Nonce {
    /// Borrows the secret nonce value.
    pub fn expose(&self) -> &Integer {
        self.0.expose()
    }
}

impl core::fmt::Debug for Nonce {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Nonce(<redacted>)")
    }
}

impl SecretKey {
    /// Generates a key with a fresh `modulus_bits`-bit `n` from two random primes of
    /// `modulus_bits/2` bits each (fast: well under a second at 3072 bits).
    pub fn generate<R: RngCore + CryptoRng>(
        modulus_bits: u32,
        rng: &mut R,
    ) -> Result<Self, PaillierError> {
        check_keygen_bits("paillier modulus", modulus_bits)?;
        loop {
            let p = generate_prime(modulus_bits / 2, rng)?;
            let q = generate_prime(modulus_bits / 2, rng)?;
            if p != q {
                return Self::from_primes_inner(p, q, false);
            }
        }
    }

    /// Generates a key whose primes are safe primes (slow: seconds to minutes, see
    /// [`crate::primes`]); needed when the key is also used as a group of known structure
    /// (CS03, threshold Paillier).
    pub fn generate_with_safe_primes<R: RngCore + CryptoRng>(
        modulus_bits: u32,
        rng: &mut R,
    ) -> Result<Self, PaillierError> {
        check_keygen_bits("paillier modulus", modulus_bits)?;
        loop {
            let p = generate_safe_prime(modulus_bits / 2, rng)?;
            let q = generate_safe_prime(modulus_bits / 2, rng)?;
            if p != q {
                return Self::from_primes_inner(p, q, true);
            }
        }
    }

    /// Builds a key from given primes, checking that they are distinct odd probable primes,
    /// that `n` has a supported size and that `gcd(n, (p−1)(q−1)) = 1`. Records whether both
    /// are safe primes.
    pub fn from_primes(p: Integer, q: Integer) -> Result<Self, PaillierError> {
        let p = SecretInteger::new(p);
        let q = SecretInteger::new(q);
        if p.expose().is_even() || q.expose().is_even() {
            return Err(PaillierError::InvalidKey("even prime factor"));
        }
        if !is_probable_prime(p.expose()) || !is_probable_prime(q.expose()) {
            return Err(PaillierError::InvalidKey("factor is not prime"));
        }
        // p and q are prime; they are safe iff (p − 1)/2 and (q − 1)/2 are prime too.
        let half = |x: &SecretInteger| SecretInteger::new(Integer::from(x.expose() - 1u32) >> 1u32);
        let safe = is_probable_prime(half(&p).expose()) && is_probable_prime(half(&q).expose());
        Self::from_primes_inner(p.expose().clone(), q.expose().clone(), safe)
    }

    fn from_primes_inner(p: Integer, q: Integer, safe_primes: bool) -> Result<Self, PaillierError> {
        let (p, q) = if p < q { (p, q) } else { (q, p) };
        let p = SecretInteger::new(p);
        let q = SecretInteger::new(q);
        if p.expose() == q.expose() {
            return Err(PaillierError::InvalidKey("p = q"));
        }
        let n = Integer::from(p.expose() * q.expose());
        let pk = PublicKey::from_modulus(n)?;
        let p_minus_1 = SecretInteger::new(Integer::from(p.expose() - 1u32));
        let q_minus_1 = SecretInteger::new(Integer::from(q.expose() - 1u32));
        let phi = SecretInteger::new(Integer::from(p_minus_1.expose() * q_minus_1.expose()));
        if Integer::from(pk.n.gcd_ref(phi.expose())) != 1 {
            return Err(PaillierError::InvalidKey("gcd(n, phi(n)) != 1"));
        }
        let neg_q = SecretInteger::new(Integer::from(-q.expose()));
        let neg_p = SecretInteger::new(Integer::from(-p.expose()));
        let hp = inv_mod(neg_q.expose(), p.expose())
            .ok_or(PaillierError::InvalidKey("q not invertible mod p"))?;
        let hq = inv_mod(neg_p.expose(), q.expose())
            .ok_or(PaillierError::InvalidKey("p not invertible mod q"))?;
        let p_inv_q = inv_mod(p.expose(), q.expose())
            .ok_or(PaillierError::InvalidKey("p not invertible mod q"))?;
        Ok(SecretKey {
            p2: SecretInteger::new(Integer::from(p.expose().square_ref())),
            q2: SecretInteger::new(Integer::from(q.expose().square_ref())),
            pk,
            p,
            q,
            p_minus_1,
            q_minus_1,
            hp: SecretInteger::new(hp),
            hq: SecretInteger::new(hq),
            p_inv_q: SecretInteger::new(p_inv_q),
            safe_primes,
        })
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.pk
    }

    /// The smaller prime factor `p` (secret).
    pub fn p(&self) -> &SecretInteger {
        &self.p
    }

    /// The larger prime factor `q` (secret).
    pub fn q(&self) -> &SecretInteger {
        &self.q
    }

    /// Whether both factors are safe primes.
    pub fn has_safe_primes(&self) -> bool {
        self.safe_primes
    }

    /// `m_p = L_p(c^{p−1} mod p²)·h_p mod p` for one prime.
    fn decrypt_half(
        c: &Integer,
        prime: &SecretInteger,
        prime2: &SecretInteger,
        prime_minus_1: &SecretInteger,
        h: &SecretInteger,
    ) -> Result<SecretInteger, PaillierError> {
        let reduced = SecretInteger::new(bigint::modulo(c, prime2.expose()));
        let x = SecretInteger::new(pow_mod_secret(
            reduced.expose(),
            prime_minus_1.expose(),
            prime2.expose(),
        )?);
        let l = SecretInteger::new(Integer::from(x.expose() - 1u32).div_exact(prime.expose()));
        Ok(SecretInteger::new(mul_mod(
            l.expose(),
            h.expose(),
            prime.expose(),
        )))
    }

    /// CRT decryption; the result is in `[0, n)`.
    pub fn decrypt(&self, c: &Ciphertext) -> Result<Integer, PaillierError> {
        self.pk.check_ciphertext(c)?;
        let mp = Self::decrypt_half(&c.0, &self.p, &self.p2, &self.p_minus_1, &self.hp)?;
        let mq = Self::decrypt_half(&c.0, &self.q, &self.q2, &self.q_minus_1, &self.hq)?;
        let diff = SecretInteger::new(Integer::from(mq.expose() - mp.expose()));
        let t = SecretInteger::new(mul_mod(
            diff.expose(),
            self.p_inv_q.expose(),
            self.q.expose(),
        ));
        Ok(Integer::from(t.expose() * self.p.expose()) + mp.expose())
    }

    /// Textbook decryption `m = L(c^λ mod n²)·λ^{-1} mod n` with `λ = lcm(p−1, q−1)`
    /// (constant-time exponentiation, no CRT). About 4× slower than [`SecretKey::decrypt`];
    /// kept as a reference and for benchmarks.
    pub fn decrypt_textbook(&self, c: &Ciphertext) -> Result<Integer, PaillierError> {
        self.pk.check_ciphertext(c)?;
        let lambda = SecretInteger::new(Integer::from(
            self.p_minus_1.expose().lcm_ref(self.q_minus_1.expose()),
        ));
        let mu = SecretInteger::new(
            inv_mod(lambda.expose(), &self.pk.n)
                .ok_or(PaillierError::InvalidKey("lambda not invertible mod n"))?,
        );
        let x = SecretInteger::new(pow_mod_secret(&c.0, lambda.expose(), &self.pk.n2)?);
        let l = SecretInteger::new(Integer::from(x.expose() - 1u32).div_exact(&self.pk.n));
        Ok(mul_mod(l.expose(), mu.expose(), &self.pk.n))
    }

    /// Canonical encoding: `0x51 ‖ version ‖ flags ‖ u16 len ‖ p ‖ u16 len ‖ q` (`p < q`).
    /// The buffer is wiped when dropped.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let p = Zeroizing::new(to_be_bytes_minimal(self.p.expose()));
        let q = Zeroizing::new(to_be_bytes_minimal(self.q.expose()));
        let flags = if self.safe_primes {
            FLAG_SAFE_PRIMES
        } else {
            0
        };
        let mut out = Zeroizing::new(Vec::with_capacity(7 + p.len() + q.len()));
        out.extend_from_slice(&[SECRET_KEY_TAG, FORMAT_VERSION, flags]);
        // Each prime has at most MAX_MODULUS_BITS bits, so the lengths fit a u16.
        out.extend_from_slice(&(p.len() as u16).to_be_bytes());
        out.extend_from_slice(&p);
        out.extend_from_slice(&(q.len() as u16).to_be_bytes());
        out.extend_from_slice(&q);
        out
    }

    /// Decodes [`SecretKey::to_bytes`]: checks the header, flags, minimal encodings and
    /// `p < q`, re-tests primality (and safety if flagged) and recomputes the CRT constants.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, PaillierError> {
        let what = "paillier secret key";
        let mut r = Reader::new(what, bytes);
        r.header(SECRET_KEY_TAG, FORMAT_VERSION)?;
        let [flags] = r.array::<1>()?;
        if flags & !FLAG_SAFE_PRIMES != 0 {
            return Err(DecodeError::InvalidValue {
                what,
                reason: "unknown flag bits",
            }
            .into());
        }
        let max = bigint::byte_len(MAX_MODULUS_BITS);
        let len = r.len_prefix(max)?;
        let p = SecretInteger::new(from_be_bytes_minimal(what, r.take(len)?)?);
        let len = r.len_prefix(max)?;
        let q = SecretInteger::new(from_be_bytes_minimal(what, r.take(len)?)?);
        r.finish()?;
        if p.expose() >= q.expose() {
            return Err(DecodeError::NonCanonical { what }.into());
        }
        let sk = SecretKey::from_primes(p.expose().clone(), q.expose().clone())?;
        let want_safe = flags & FLAG_SAFE_PRIMES != 0;
        if want_safe && !sk.safe_primes {
            return Err(PaillierError::InvalidKey(
                "flagged safe primes are not safe",
            ));
        }
        if !want_safe && sk.safe_primes {
            // Keep the encoding canonical: the flag must describe the primes.
            return Err(DecodeError::NonCanonical { what }.into());
        }
        Ok(sk)
    }
}

impl PartialEq for SecretKey {
    /// Constant-time in the prime values (sizes are public).
    fn eq(&self, other: &Self) -> bool {
        let a = self.to_bytes();
        let b = other.to_bytes();
        a.len() == b.len() && bool::from(a.as_slice().ct_eq(b.as_slice()))
    }
}

impl Eq for SecretKey {}

impl core::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SecretKey")
            .field("public_key", &self.pk)
            .field("safe_primes", &self.safe_primes)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn tiny_modulus_is_rejected() {
        assert!(matches!(
            PublicKey::from_modulus(Integer::from(15)),
            Err(PaillierError::BitLength { .. })
        ));
    }

    #[test]
    fn key_debug_is_redacted() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let sk = SecretKey::generate(512, &mut rng).expect("keygen");
        let dbg = format!("{sk:?}");
        assert!(dbg.contains("SecretKey"));
        let p_hex = sk.p().expose().to_string_radix(16);
        assert!(!dbg.contains(&p_hex[..16]));
        let r = sk.public_key().random_nonce(&mut rng);
        assert_eq!(format!("{r:?}"), "Nonce(<redacted>)");
    }
}
