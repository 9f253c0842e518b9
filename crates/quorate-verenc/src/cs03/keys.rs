//! CS03 key generation, the public/secret key types with their encodings and cached
//! fixed-base tables, the ciphertext hash `H`, and CRT decryption (§3 of ePrint 2002/161).

use super::{mulm, put_uint, Cs03Error, Cs03Params, Reader, VERSION};
use quorate_paillier::bigint::{
    self, inv_mod, pow_mod_secret, pow_mod_vartime, random_below, random_unit, SecretInteger,
};
use quorate_paillier::fixed_base::{FixedBase, FixedBaseCt};
use quorate_paillier::primes::{generate_safe_prime, has_small_factor, is_safe_prime};
use quorate_paillier::rug::Integer;
use rand_core::{CryptoRng, RngCore};
use std::sync::{Arc, OnceLock};
use subtle::Choice;
use zeroize::Zeroizing;

/// Length of the hash key `hk`.
const HASH_KEY_LEN: usize = 32;

/// The escrow's public key `(hk, n, g, y1, y2, y3)`, plus lazily built fixed-base tables
/// (shared by clones).
#[derive(Clone)]
pub struct PublicKey {
    pub(super) params: Cs03Params,
    pub(super) hash_key: [u8; HASH_KEY_LEN],
    pub(super) n: Integer,
    pub(super) n2: Integer,
    pub(super) g: Integer,
    pub(super) y1: Integer,
    pub(super) y2: Integer,
    pub(super) y3: Integer,
    prover: OnceLock<Result<Arc<ProverTables>, Cs03Error>>,
    verifier: OnceLock<Result<Arc<VerifierTables>, Cs03Error>>,
}

/// Constant-time comb tables for the prover's secret exponents, and the public corrections
/// for the offset `r' + (B_r − 1) ≥ 0` (see the module notes).
pub(super) struct ProverTables {
    pub(super) g: FixedBaseCt,
    pub(super) y1: FixedBaseCt,
    pub(super) y2: FixedBaseCt,
    pub(super) y3: FixedBaseCt,
    /// `g^{−2(B_r−1)}`, `y1^{−2(B_r−1)}`, `y2^{−2(B_r−1)}` mod `n²`.
    pub(super) g_corr: Integer,
    pub(super) y1_corr: Integer,
    pub(super) y2_corr: Integer,
    /// Table of `z3 = y3^{−2(B_r−1)}` for the public exponent `H` (`k` bits).
    pub(super) z3: FixedBase,
}

/// Variable-time Yao tables for the verifier's public exponents.
pub(super) struct VerifierTables {
    pub(super) g: FixedBase,
    pub(super) y1: FixedBase,
    pub(super) y2: FixedBase,
    pub(super) y3: FixedBase,
}

impl PublicKey {
    /// The parameters of this key.
    pub fn params(&self) -> &Cs03Params {
        &self.params
    }

    /// The modulus `n`.
    pub fn modulus(&self) -> &Integer {
        &self.n
    }

    /// `B_r = n·2^{k+k'−2}`: the blinding `r'` is drawn from `(−B_r, B_r)`.
    pub(super) fn blinding_bound_r(&self) -> Integer {
        Integer::from(&self.n << (self.params.challenge_bits + self.params.slack_bits - 2))
    }

    /// `|r̃| < n·2^{k+k'−1}` for every honest proof (the encoding bound of `r̃`).
    pub(super) fn response_bound_r(&self) -> Integer {
        Integer::from(&self.n << (self.params.challenge_bits + self.params.slack_bits - 1))
    }

    /// Builds the prover's and the verifier's fixed-base tables now instead of on first use
    /// (about 50 MB and half a second at `|n| = 3072` for the prover's; little for the
    /// verifier's).
    pub fn precompute(&self) -> Result<(), Cs03Error> {
        let (a, b) = rayon::join(
            || self.prover_tables().map(|_| ()),
            || self.verifier_tables().map(|_| ()),
        );
        a.and(b)
    }

    pub(super) fn prover_tables(&self) -> Result<&ProverTables, Cs03Error> {
        self.prover
            .get_or_init(|| self.build_prover_tables().map(Arc::new))
            .as_ref()
            .map(|a| &**a)
            .map_err(Clone::clone)
    }

    pub(super) fn verifier_tables(&self) -> Result<&VerifierTables, Cs03Error> {
        self.verifier
            .get_or_init(|| self.build_verifier_tables().map(Arc::new))
            .as_ref()
            .map(|a| &**a)
            .map_err(Clone::clone)
    }

    fn build_prover_tables(&self) -> Result<ProverTables, Cs03Error> {
        let k = self.params.challenge_bits;
        let kp = self.params.slack_bits;
        let nb = self.params.modulus_bits;
        // 2(r' + B_r − 1) < 4·B_r = n·2^{k+k'}; r < n/4; r·H and 2(r' + B_r − 1)·H < n·2^{2k+k'}.
        let short = nb + k + kp;
        let long = nb + 2 * k + kp;
        let n2 = &self.n2;
        let mut it = rayon_build(
            vec![
                (self.g.clone(), short),
                (self.y1.clone(), short),
                (self.y2.clone(), short),
                (self.y3.clone(), long),
            ],
            n2,
        )?
        .into_iter();
        let neg = -((self.blinding_bound_r() - 1u32) * 2u32);
        let corr = |b: &Integer| pow_mod_vartime(b, &neg, n2);
        let z3 = corr(&self.y3)?;
        let (g, y1, y2, y3) = match (it.next(), it.next(), it.next(), it.next()) {
            (Some(a), Some(b), Some(c), Some(d)) => (a, b, c, d),
            _ => return Err(Cs03Error::Params("internal: table count")),
        };
        Ok(ProverTables {
            g,
            y1,
            y2,
            y3,
            g_corr: corr(&self.g)?,
            y1_corr: corr(&self.y1)?,
            y2_corr: corr(&self.y2)?,
            z3: FixedBase::new(&z3, n2, k)?,
        })
    }

    fn build_verifier_tables(&self) -> Result<VerifierTables, Cs03Error> {
        let k = self.params.challenge_bits;
        let kp = self.params.slack_bits;
        let nb = self.params.modulus_bits;
        let short = nb + k + kp;
        let long = nb + 2 * k + kp;
        let n2 = &self.n2;
        let ((g, y1), (y2, y3)) = rayon::join(
            || {
                rayon::join(
                    || FixedBase::new(&self.g, n2, short),
                    || FixedBase::new(&self.y1, n2, short),
                )
            },
            || {
                rayon::join(
                    || FixedBase::new(&self.y2, n2, short),
                    || FixedBase::new(&self.y3, n2, long),
                )
            },
        );
        Ok(VerifierTables {
            g: g?,
            y1: y1?,
            y2: y2?,
            y3: y3?,
        })
    }

    /// The keyed ciphertext hash `H(u, e, L) ∈ [0, 2^k)` (§3), from a merlin transcript
    /// keyed with `hk`.
    pub(super) fn hash_h(&self, u: &Integer, e: &Integer, label: &[u8]) -> Integer {
        let mut t = merlin::Transcript::new(b"quorate-cs03-H");
        t.append_message(b"version", &[VERSION]);
        t.append_message(b"hk", &self.hash_key);
        let len = self.params.n2_len();
        let mut buf = Vec::with_capacity(len);
        put_uint(&mut buf, u, len);
        t.append_message(b"u", &buf);
        buf.clear();
        put_uint(&mut buf, e, len);
        t.append_message(b"e", &buf);
        t.append_message(b"label", label);
        let mut out = vec![0u8; (self.params.challenge_bits / 8) as usize];
        t.challenge_bytes(b"H", &mut out);
        bigint::from_be_bytes(&out)
    }

    /// Length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        Self::encoded_len_for(&self.params)
    }

    fn encoded_len_for(p: &Cs03Params) -> usize {
        1 + 6 + HASH_KEY_LEN + p.n_len() + 4 * p.n2_len()
    }

    /// Canonical encoding: version 1, `|n|, k, k'` as 16-bit big-endian, `hk`, then `n`
    /// (`|n|/8` bytes) and `g, y1, y2, y3` (`|n|/4` bytes each), all big-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.push(VERSION);
        self.params.write(&mut out);
        out.extend_from_slice(&self.hash_key);
        put_uint(&mut out, &self.n, self.params.n_len());
        for y in [&self.g, &self.y1, &self.y2, &self.y3] {
            put_uint(&mut out, y, self.params.n2_len());
        }
        out
    }

    /// Checked decoding: version, supported parameters (test parameters included; see
    /// [`Cs03Params::is_production`]), `n` of exactly `|n|` bits, odd, not a square, without
    /// prime factors below `2^16`; `g, y_i` units modulo `n²` other than 1.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Cs03Error> {
        let mut r = Reader::new("cs03 public key", bytes);
        r.version()?;
        let params = Cs03Params::read(&mut r)?;
        if bytes.len() != Self::encoded_len_for(&params) {
            return Err(Cs03Error::Length {
                what: "cs03 public key",
                expected: Self::encoded_len_for(&params),
                got: bytes.len(),
            });
        }
        let mut hash_key = [0u8; HASH_KEY_LEN];
        hash_key.copy_from_slice(r.take(HASH_KEY_LEN)?);
        let n = bigint::from_be_bytes(r.take(params.n_len())?);
        check_modulus(&n, params.modulus_bits).map_err(Cs03Error::InvalidKey)?;
        let n2 = Integer::from(n.square_ref());
        let mut ys = Vec::with_capacity(4);
        for what in ["g", "y1", "y2", "y3"] {
            let y = r.unit(what, params.n2_len(), &n2)?;
            if y == 1 {
                return Err(Cs03Error::InvalidKey("a public generator equals 1"));
            }
            ys.push(y);
        }
        r.finish()?;
        let mut it = ys.into_iter();
        let mut next = || {
            it.next()
                .ok_or(Cs03Error::InvalidKey("internal: element count"))
        };
        Ok(PublicKey {
            params,
            hash_key,
            n,
            n2,
            g: next()?,
            y1: next()?,
            y2: next()?,
            y3: next()?,
            prover: OnceLock::new(),
            verifier: OnceLock::new(),
        })
    }
}

/// Builds constant-time tables in parallel.
fn rayon_build(
    bases: Vec<(Integer, u32)>,
    modulus: &Integer,
) -> Result<Vec<FixedBaseCt>, Cs03Error> {
    use rayon::prelude::*;
    bases
        .into_par_iter()
        .map(|(b, bits)| FixedBaseCt::new(&b, modulus, bits).map_err(Cs03Error::from))
        .collect()
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params
            && self.hash_key == other.hash_key
            && self.n == other.n
            && self.g == other.g
            && self.y1 == other.y1
            && self.y2 == other.y2
            && self.y3 == other.y3
    }
}
impl Eq for PublicKey {}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("cs03::PublicKey")
            .field("params", &self.params)
            .field("n_bits", &self.n.significant_bits())
            .finish_non_exhaustive()
    }
}

/// Structural checks on an RSA-type modulus of exactly `bits` bits.
pub(super) fn check_modulus(n: &Integer, bits: u32) -> Result<(), &'static str> {
    if n.significant_bits() != bits {
        return Err("modulus does not have the announced length");
    }
    if n.is_even() || has_small_factor(n) || n.is_perfect_square() {
        return Err("modulus is even, a square or has a small factor");
    }
    Ok(())
}

/// One CRT half of the secret key: modulus `p²`, the order `p(p − 1)` of `Z*_{p²}`, and the
/// `x_i` reduced modulo it.
#[derive(Clone)]
struct CrtHalf {
    m2: SecretInteger,
    ord: SecretInteger,
    x: [SecretInteger; 3],
}

/// The escrow's secret key: `p, q, x1, x2, x3` (wiped on drop, redacted in `Debug`), with the
/// public key and the CRT values derived from them.
#[derive(Clone)]
pub struct SecretKey {
    pk: PublicKey,
    p: SecretInteger,
    q: SecretInteger,
    x: [SecretInteger; 3],
    halves: [CrtHalf; 2],
    /// `(q²)^{−1} mod p²`.
    q2_inv: SecretInteger,
}

impl core::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("cs03::SecretKey")
            .field("public", &self.pk)
            .field("secret", &quorate_core::secret::REDACTED)
            .finish()
    }
}

/// `p' ∤ q' + 1` and `q' ∤ p' + 1`: the condition under which squaring replaces `^{2t}`
/// (module notes).
fn squaring_condition(p: &Integer, q: &Integer) -> bool {
    let pp = Integer::from(p - 1u32) >> 1u32;
    let qq = Integer::from(q - 1u32) >> 1u32;
    let a = Integer::from(&qq + 1u32) % &pp;
    let b = Integer::from(&pp + 1u32) % &qq;
    a != 0 && b != 0
}

/// Generates an escrow key pair (§3 key generation). Takes as long as two safe-prime
/// searches of `|n|/2` bits (seconds at 3072 bits; see `quorate_paillier::primes`).
pub fn keygen<R: RngCore + CryptoRng>(
    rng: &mut R,
    params: &Cs03Params,
) -> Result<(PublicKey, SecretKey), Cs03Error> {
    params.validate()?;
    let half = params.modulus_bits / 2;
    let (p, q) = loop {
        let p = generate_safe_prime(half, rng)?;
        let q = generate_safe_prime(half, rng)?;
        if p != q && squaring_condition(&p, &q) {
            break (SecretInteger::new(p), SecretInteger::new(q));
        }
    };
    let n = Integer::from(p.expose() * q.expose());
    let n2 = Integer::from(n.square_ref());
    let pp = SecretInteger::new(Integer::from(p.expose() - 1u32) >> 1u32);
    let qq = SecretInteger::new(Integer::from(q.expose() - 1u32) >> 1u32);
    let two_n = Integer::from(&n * 2u32);
    // g = g'^{2n}: a random element of the subgroup of order n' = p'q'; insist on order n'.
    let g = loop {
        let g0 = random_unit(rng, &n2)?;
        let g = pow_mod_vartime(&g0, &two_n, &n2)?;
        if g != 1
            && pow_mod_vartime(&g, pp.expose(), &n2)? != 1
            && pow_mod_vartime(&g, qq.expose(), &n2)? != 1
        {
            break g;
        }
    };
    let quarter = Integer::from(&n2 >> 2u32);
    let x = [
        SecretInteger::new(random_below(rng, &quarter)),
        SecretInteger::new(random_below(rng, &quarter)),
        SecretInteger::new(random_below(rng, &quarter)),
    ];
    let mut ys = Vec::with_capacity(3);
    for xi in &x {
        ys.push(pow_mod_secret(&g, xi.expose(), &n2)?);
    }
    let mut hash_key = [0u8; HASH_KEY_LEN];
    rng.fill_bytes(&mut hash_key);
    let mut it = ys.into_iter();
    let mut next = || {
        it.next()
            .ok_or(Cs03Error::InvalidKey("internal: element count"))
    };
    let pk = PublicKey {
        params: *params,
        hash_key,
        n,
        n2,
        g,
        y1: next()?,
        y2: next()?,
        y3: next()?,
        prover: OnceLock::new(),
        verifier: OnceLock::new(),
    };
    let sk = SecretKey::assemble(pk.clone(), p, q, x)?;
    Ok((pk, sk))
}

impl SecretKey {
    fn assemble(
        pk: PublicKey,
        p: SecretInteger,
        q: SecretInteger,
        x: [SecretInteger; 3],
    ) -> Result<Self, Cs03Error> {
        let half = |pr: &SecretInteger| -> CrtHalf {
            let m2 = SecretInteger::new(Integer::from(pr.expose().square_ref()));
            let ord = SecretInteger::new(Integer::from(pr.expose() - 1u32) * pr.expose());
            let red =
                |xi: &SecretInteger| SecretInteger::new(Integer::from(xi.expose() % ord.expose()));
            CrtHalf {
                x: [red(&x[0]), red(&x[1]), red(&x[2])],
                m2,
                ord,
            }
        };
        let hp = half(&p);
        let hq = half(&q);
        let q2_inv = SecretInteger::new(
            inv_mod(hq.m2.expose(), hp.m2.expose())
                .ok_or(Cs03Error::InvalidKey("p and q not coprime"))?,
        );
        Ok(SecretKey {
            pk,
            p,
            q,
            x,
            halves: [hp, hq],
            q2_inv,
        })
    }

    /// The matching public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.pk
    }

    /// Length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        Self::encoded_len_for(&self.pk.params)
    }

    fn encoded_len_for(p: &Cs03Params) -> usize {
        PublicKey::encoded_len_for(p) + p.n_len() + 3 * p.n2_len()
    }

    /// Encoding for the escrow's storage: the public key's encoding, then `p, q`
    /// (`|n|/16` bytes each) and `x1, x2, x3` (`|n|/4` bytes each). Wiped on drop.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let p = &self.pk.params;
        let mut out = Zeroizing::new(Vec::with_capacity(self.encoded_len()));
        out.extend_from_slice(&self.pk.to_bytes());
        put_uint(&mut out, self.p.expose(), p.n_len() / 2);
        put_uint(&mut out, self.q.expose(), p.n_len() / 2);
        for xi in &self.x {
            put_uint(&mut out, xi.expose(), p.n2_len());
        }
        out
    }

    /// Checked decoding: the public key as in [`PublicKey::from_bytes`], then
    /// `p·q = n` with `p ≠ q` safe primes satisfying the squaring condition (module notes),
    /// `x_i < n²/4`, and `y_i = g^{x_i}` (recomputed, constant time).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Cs03Error> {
        let mut r = Reader::new("cs03 secret key", bytes);
        r.version()?;
        let params = Cs03Params::read(&mut r)?;
        let expected = Self::encoded_len_for(&params);
        if bytes.len() != expected {
            return Err(Cs03Error::Length {
                what: "cs03 secret key",
                expected,
                got: bytes.len(),
            });
        }
        let pk_len = PublicKey::encoded_len_for(&params);
        let pk = PublicKey::from_bytes(&bytes[..pk_len])?;
        let mut r = Reader::new("cs03 secret key", &bytes[pk_len..]);
        let half = params.n_len() / 2;
        let p = SecretInteger::new(bigint::from_be_bytes(r.take(half)?));
        let q = SecretInteger::new(bigint::from_be_bytes(r.take(half)?));
        if Integer::from(p.expose() * q.expose()) != pk.n || p.expose() == q.expose() {
            return Err(Cs03Error::InvalidKey("p·q ≠ n"));
        }
        if !is_safe_prime(p.expose()) || !is_safe_prime(q.expose()) {
            return Err(Cs03Error::InvalidKey("p or q is not a safe prime"));
        }
        if !squaring_condition(p.expose(), q.expose()) {
            return Err(Cs03Error::InvalidKey("p' | q'+1 or q' | p'+1"));
        }
        let quarter = Integer::from(&pk.n2 >> 2u32);
        let mut x: [SecretInteger; 3] = Default::default();
        for xi in x.iter_mut() {
            *xi = SecretInteger::new(r.uint_below("x_i", params.n2_len(), &quarter)?);
        }
        r.finish()?;
        let sk = SecretKey::assemble(pk, p, q, x)?;
        for (i, y) in [&sk.pk.y1, &sk.pk.y2, &sk.pk.y3].into_iter().enumerate() {
            let parts = [0usize, 1].map(|h| {
                let hf = &sk.halves[h];
                pow_mod_secret(&sk.pk.g, hf.x[i].expose(), hf.m2.expose())
            });
            let [a, b] = parts;
            let yy = sk.crt(&a?, &b?);
            if yy != *y {
                return Err(Cs03Error::InvalidKey("y_i ≠ g^{x_i}"));
            }
        }
        Ok(sk)
    }

    /// Combines residues modulo `p²` and `q²` into one modulo `n²` (Garner).
    fn crt(&self, a_p: &Integer, a_q: &Integer) -> Integer {
        let p2 = self.halves[0].m2.expose();
        let q2 = self.halves[1].m2.expose();
        let d = bigint::modulo(&Integer::from(a_p - a_q), p2);
        let h = mulm(&d, self.q2_inv.expose(), p2);
        (h * q2) + a_q
    }

    /// §3 decryption with CRT: returns the plaintext in `[0, n)` or [`Cs03Error::Decryption`].
    ///
    /// Public checks first (`abs(v) = v`); then, for each prime, the constant-time
    /// exponentiations `u^{2(x2 + H·x3)}` and `u^{x1}` modulo `p²`/`q²`; both secret checks
    /// (`u^{2(x2+Hx3)} = v²` and `w² ≡ 1 mod n`) are evaluated before rejecting.
    pub(super) fn decrypt_integer(
        &self,
        label: &[u8],
        u: &Integer,
        e: &Integer,
        v: &Integer,
    ) -> Result<SecretInteger, Cs03Error> {
        let pk = &self.pk;
        if Integer::from(v * 2u32) >= pk.n2 {
            return Err(Cs03Error::Decryption);
        }
        let h = pk.hash_h(u, e, label);
        let run = |hf: &CrtHalf| -> Result<(Choice, Integer), Cs03Error> {
            // Residues of public values modulo the secret p² reveal p: keep them wiped.
            let m2 = hf.m2.expose();
            let u_h = SecretInteger::new(bigint::modulo(u, m2));
            let e_h = SecretInteger::new(bigint::modulo(e, m2));
            let v_h = SecretInteger::new(bigint::modulo(v, m2));
            let exp = SecretInteger::new(bigint::modulo(
                &((hf.x[1].expose() + Integer::from(&h * hf.x[2].expose())) * 2u32),
                hf.ord.expose(),
            ));
            let lhs = SecretInteger::new(pow_mod_secret(u_h.expose(), exp.expose(), m2)?);
            let rhs = SecretInteger::new(mulm(v_h.expose(), v_h.expose(), m2));
            let ok = lhs.ct_eq(&rhs);
            let ux1 = SecretInteger::new(pow_mod_secret(u_h.expose(), hf.x[0].expose(), m2)?);
            let inv = SecretInteger::new(inv_mod(ux1.expose(), m2).ok_or(Cs03Error::Decryption)?);
            let w = SecretInteger::new(mulm(e_h.expose(), inv.expose(), m2));
            Ok((ok, mulm(w.expose(), w.expose(), m2)))
        };
        let (a, b) = rayon::join(|| run(&self.halves[0]), || run(&self.halves[1]));
        let (ok_p, w2_p) = a?;
        let (ok_q, w2_q) = b?;
        let w2_p = SecretInteger::new(w2_p);
        let w2_q = SecretInteger::new(w2_q);
        let w2 = SecretInteger::new(self.crt(w2_p.expose(), w2_q.expose()));
        let rem = SecretInteger::new(Integer::from(w2.expose() - 1u32));
        let (quot, r) = rem.expose().clone().div_rem(pk.n.clone());
        let quot = SecretInteger::new(quot);
        let ok_one = Choice::from(u8::from(r == 0));
        let ok: bool = (ok_p & ok_q & ok_one).into();
        if !ok {
            return Err(Cs03Error::Decryption);
        }
        // m = t·L(w²) mod n with t = (n + 1)/2 = 2^{−1} mod n.
        let t = Integer::from(&pk.n + 1u32) >> 1u32;
        Ok(SecretInteger::new(mulm(quot.expose(), &t, &pk.n)))
    }
}

#[cfg(test)]
impl SecretKey {
    /// Test-only access to `(p, q, x1)` for checking decryption against the paper's formula.
    pub(super) fn test_secrets(&self) -> (Integer, Integer, Integer) {
        (
            self.p.expose().clone(),
            self.q.expose().clone(),
            self.x[0].expose().clone(),
        )
    }
}
