//! §3 encryption and §5 verifiable encryption of a discrete log: [`encrypt_and_prove`],
//! [`verify`], [`decrypt`], [`recover`], and the [`Ciphertext`] and [`Proof`] encodings.

use super::aux::AuxParams;
use super::keys::{PublicKey, SecretKey};
use super::{mulm, put_signed, put_uint, signed_len, Cs03Error, Reader, VERSION};
use crate::group::Curve;
use group::Group;
use quorate_paillier::bigint::{
    self, pow_mod_secret, pow_mod_vartime, random_below, SecretInteger,
};
use quorate_paillier::fixed_base::{FixedBase, FixedBaseCt};
use quorate_paillier::rug::Integer;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// A CS03 ciphertext `(u, e, v)`: three elements of `Z*_{n²}`.
#[derive(Clone, PartialEq, Eq)]
pub struct Ciphertext {
    pub(super) u: Integer,
    pub(super) e: Integer,
    pub(super) v: Integer,
    /// Bytes per element (`|n|/4`).
    len: usize,
}

impl core::fmt::Debug for Ciphertext {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("cs03::Ciphertext")
            .field("bytes", &(3 * self.len))
            .finish_non_exhaustive()
    }
}

/// `|C|` in bytes for a key: `3·|n|/4` (2304 at `|n| = 3072`).
pub fn ciphertext_len(pk: &PublicKey) -> usize {
    3 * pk.params.n2_len()
}

impl Ciphertext {
    /// `u ‖ e ‖ v`, each `|n|/4` bytes big-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(3 * self.len);
        for x in [&self.u, &self.e, &self.v] {
            put_uint(&mut out, x, self.len);
        }
        out
    }

    /// Checked decoding under `pk`: exact length, each element a unit in `(0, n²)`. (Whether
    /// `v` is in `abs` form is checked by [`verify`] and [`decrypt`], so that a flipped `v`
    /// is a ciphertext that fails decryption, as in the paper.)
    pub fn from_bytes(pk: &PublicKey, bytes: &[u8]) -> Result<Self, Cs03Error> {
        let len = pk.params.n2_len();
        if bytes.len() != 3 * len {
            return Err(Cs03Error::Length {
                what: "cs03 ciphertext",
                expected: 3 * len,
                got: bytes.len(),
            });
        }
        let mut r = Reader::new("cs03 ciphertext", bytes);
        let u = r.unit("u", len, &pk.n2)?;
        let e = r.unit("e", len, &pk.n2)?;
        let v = r.unit("v", len, &pk.n2)?;
        r.finish()?;
        Ok(Ciphertext { u, e, v, len })
    }

    /// Length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        3 * self.len
    }

    /// Whether this ciphertext's elements are units below `n²` of `pk`.
    fn fits(&self, pk: &PublicKey) -> bool {
        self.len == pk.params.n2_len()
            && [&self.u, &self.e, &self.v]
                .iter()
                .all(|x| bigint::is_unit_in_range(x, &pk.n2))
    }
}

/// Field sizes of a proof for one `(pk, aux, curve)`.
#[derive(Clone, PartialEq, Eq)]
struct Layout {
    aux_len: usize,
    c_len: usize,
    /// Encoding bounds: `|r̃| < n·2^{k+k'−1}`, `|s̃| < N·2^{k+k'−1}`, `|m̃| < ρ·2^{k+k'+1}`.
    bound_r: Integer,
    bound_s: Integer,
    bound_m: Integer,
}

impl Layout {
    fn new(pk: &PublicKey, aux: &AuxParams, rho: &Integer) -> Self {
        let kk = pk.params.challenge_bits + pk.params.slack_bits;
        Layout {
            aux_len: (aux.modulus_bits() / 8) as usize,
            c_len: (pk.params.challenge_bits / 8) as usize,
            bound_r: pk.response_bound_r(),
            bound_s: Integer::from(&aux.n << (kk - 1)),
            bound_m: Integer::from(rho << (kk + 1)),
        }
    }

    fn len(&self) -> usize {
        self.aux_len
            + self.c_len
            + signed_len(&self.bound_r)
            + signed_len(&self.bound_s)
            + signed_len(&self.bound_m)
    }
}

/// A CS03 proof `π = (l, c, r̃, s̃, m̃)` (§5, made non-interactive).
#[derive(Clone, PartialEq, Eq)]
pub struct Proof {
    l: Integer,
    c: Integer,
    r_t: Integer,
    s_t: Integer,
    m_t: Integer,
    layout: Layout,
}

impl core::fmt::Debug for Proof {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("cs03::Proof")
            .field("bytes", &self.layout.len())
            .finish_non_exhaustive()
    }
}

/// `|π|` in bytes for a key, auxiliary parameters and curve (1361 at `|n| = |N| = 3072`,
/// `k = 256` on P-256).
pub fn proof_len<C: Curve>(pk: &PublicKey, aux: &AuxParams) -> usize {
    Layout::new(pk, aux, &order::<C>()).len()
}

impl Proof {
    /// `l ‖ c ‖ r̃ ‖ s̃ ‖ m̃`: `l` in `|N|/8` bytes, `c` in `k/8` bytes, each response `x` with
    /// bound `B` stored as `x + B` in the fixed length of `2B − 1`, all big-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let ly = &self.layout;
        let mut out = Vec::with_capacity(ly.len());
        put_uint(&mut out, &self.l, ly.aux_len);
        put_uint(&mut out, &self.c, ly.c_len);
        put_signed(&mut out, &self.r_t, &ly.bound_r);
        put_signed(&mut out, &self.s_t, &ly.bound_s);
        put_signed(&mut out, &self.m_t, &ly.bound_m);
        out
    }

    /// Checked decoding for `(pk, aux, C)`: exact length, `l` a unit modulo `N`, each
    /// response inside its honest range (see "Encoding bounds" in the module notes).
    pub fn from_bytes<C: Curve>(
        pk: &PublicKey,
        aux: &AuxParams,
        bytes: &[u8],
    ) -> Result<Self, Cs03Error> {
        let layout = Layout::new(pk, aux, &order::<C>());
        if bytes.len() != layout.len() {
            return Err(Cs03Error::Length {
                what: "cs03 proof",
                expected: layout.len(),
                got: bytes.len(),
            });
        }
        let mut r = Reader::new("cs03 proof", bytes);
        let l = r.unit("l", layout.aux_len, &aux.n)?;
        let c = bigint::from_be_bytes(r.take(layout.c_len)?);
        let r_t = r.signed("r̃", &layout.bound_r)?;
        let s_t = r.signed("s̃", &layout.bound_s)?;
        let m_t = r.signed("m̃", &layout.bound_m)?;
        r.finish()?;
        Ok(Proof {
            l,
            c,
            r_t,
            s_t,
            m_t,
            layout,
        })
    }

    /// Length of [`Self::to_bytes`].
    pub fn encoded_len(&self) -> usize {
        self.layout.len()
    }

    /// The challenge `c ∈ [0, 2^k)`.
    pub fn challenge(&self) -> &Integer {
        &self.c
    }

    /// The integer responses `(r̃, s̃, m̃)` (public values; exposed for statistics and tests).
    pub fn responses(&self) -> (&Integer, &Integer, &Integer) {
        (&self.r_t, &self.s_t, &self.m_t)
    }
}

/// Production keys must be used with an auxiliary modulus of at least 3072 bits (the
/// soundness of the range argument rests on the strong RSA assumption for `N`).
fn check_aux_strength(pk: &PublicKey, aux: &AuxParams) -> Result<(), Cs03Error> {
    if pk.params.is_production() && aux.modulus_bits() < 3072 {
        return Err(Cs03Error::Params(
            "production keys need auxiliary parameters with |N| ≥ 3072",
        ));
    }
    Ok(())
}

/// The group order `ρ` as an integer.
pub(super) fn order<C: Curve>() -> Integer {
    bigint::from_be_bytes(&C::ORDER_BE)
}

/// A scalar read as an integer in `[0, ρ)`.
fn scalar_to_int<C: Curve>(s: &C::Scalar) -> SecretInteger {
    let b = Zeroizing::new(C::scalar_to_be_bytes(s));
    SecretInteger::new(bigint::from_be_bytes(&b[..]))
}

/// `x mod ρ` as a scalar.
fn int_to_scalar<C: Curve>(x: &Integer, rho: &Integer) -> Result<C::Scalar, Cs03Error> {
    let r = SecretInteger::new(bigint::modulo(x, rho));
    let mut b = Zeroizing::new([0u8; 32]);
    if !bigint::write_be_padded(r.expose(), &mut b[..]) {
        return Err(Cs03Error::OutOfRange { what: "scalar" });
    }
    C::scalar_from_be_bytes(&b).ok_or(Cs03Error::OutOfRange { what: "scalar" })
}

/// A blinding `x' ∈ (−B, B)`, returned as the non-negative `x' + (B − 1) ∈ [0, 2B − 1)` so
/// that constant-time exponentiation never sees a sign (§5 step 2(a)).
pub(super) fn sample_blinding<R: RngCore + CryptoRng>(
    rng: &mut R,
    bound: &Integer,
) -> SecretInteger {
    let width = Integer::from(bound * 2u32) - 1u32;
    SecretInteger::new(random_below(rng, &width))
}

/// `x̃ = x' − c·x` over the integers (§5 step 2(c)), with `x' = shifted − (B − 1)`.
pub(super) fn response(
    shifted: &SecretInteger,
    bound: &Integer,
    c: &Integer,
    x: &SecretInteger,
) -> Integer {
    let off = Integer::from(bound - 1u32);
    Integer::from(shifted.expose() - &off) - Integer::from(c * x.expose())
}

/// `h^a = 1 + a·n mod n²` (`h = 1 + n` has order `n`).
fn h_pow(a: &Integer, n: &Integer, n2: &Integer) -> Integer {
    let a = bigint::modulo(a, n);
    bigint::modulo(&((a * n) + 1u32), n2)
}

/// `abs(a) = n² − a` if `a > n²/2`, else `a`.
fn abs_n2(a: Integer, n2: &Integer) -> Integer {
    if Integer::from(&a * 2u32) > *n2 {
        n2 - a
    } else {
        a
    }
}

/// A secret-exponent power: the comb table when the exponent fits, `mpz_powm_sec` otherwise
/// (only the `g̃^m` of a witness larger than `ρ` needs the latter, in tests).
fn ct_pow(
    table: &FixedBaseCt,
    base: &Integer,
    e: &SecretInteger,
    modulus: &Integer,
) -> Result<Integer, Cs03Error> {
    if e.expose().significant_bits() <= table.max_exp_bits() {
        Ok(table.pow(e)?)
    } else {
        Ok(pow_mod_secret(base, e.expose(), modulus)?)
    }
}

/// A public signed power: the Yao table when the exponent fits, `mpz_powm` otherwise.
fn vt_pow(
    table: &FixedBase,
    base: &Integer,
    e: &Integer,
    modulus: &Integer,
) -> Result<Integer, Cs03Error> {
    if e.significant_bits() <= table.max_exp_bits() {
        Ok(table.pow_signed_vartime(e)?)
    } else {
        Ok(pow_mod_vartime(base, e, modulus)?)
    }
}

type Task<'a> = Box<dyn FnOnce() -> Result<Integer, Cs03Error> + Send + 'a>;

/// Runs independent exponentiations on rayon's pool, keeping their order.
fn run_parallel(tasks: Vec<Task<'_>>) -> Result<Vec<Integer>, Cs03Error> {
    tasks.into_par_iter().map(|t| t()).collect()
}

/// The commitments of §5 step 2(a), recomputed or not.
struct Commitments<C: Curve> {
    u: Integer,
    e: Integer,
    v: Integer,
    delta: C::Point,
    l: Integer,
}

/// The Fiat–Shamir challenge `c ∈ [0, 2^k)` over the whole statement and the commitments.
fn challenge<C: Curve>(
    pk: &PublicKey,
    aux: &AuxParams,
    public: &C::Point,
    label: &[u8],
    ct: &Ciphertext,
    l: &Integer,
    com: &Commitments<C>,
) -> Integer {
    let mut t = merlin::Transcript::new(b"quorate-cs03-verenc");
    t.append_message(b"version", &[VERSION]);
    t.append_message(b"label", label);
    t.append_message(b"curve", C::NAME.as_bytes());
    t.append_message(b"pk", &pk.to_bytes());
    t.append_message(b"aux", &aux.statement_bytes());
    t.append_message(b"delta", &C::point_to_bytes(public));
    t.append_message(b"ciphertext", &ct.to_bytes());
    let aux_len = (aux.modulus_bits() / 8) as usize;
    let n2_len = pk.params.n2_len();
    let mut buf = Vec::with_capacity(n2_len);
    let mut put = |t: &mut merlin::Transcript, lab: &'static [u8], x: &Integer, len: usize| {
        buf.clear();
        put_uint(&mut buf, x, len);
        t.append_message(lab, &buf);
    };
    put(&mut t, b"l", l, aux_len);
    put(&mut t, b"u'", &com.u, n2_len);
    put(&mut t, b"e'", &com.e, n2_len);
    put(&mut t, b"v'", &com.v, n2_len);
    t.append_message(b"delta'", &C::point_to_bytes(&com.delta));
    put(&mut t, b"l'", &com.l, aux_len);
    let mut c = vec![0u8; (pk.params.challenge_bits / 8) as usize];
    t.challenge_bytes(b"challenge", &mut c);
    bigint::from_be_bytes(&c)
}

/// Encrypts the secret scalar `x` (read as an integer in `[0, ρ)`) to `pk` under `label` and
/// proves that the plaintext is `log_γ X` for `X = public` (§3 encryption, §5 proof).
///
/// Fails with [`Cs03Error::InvalidStatement`] if `x·γ ≠ X` or `X` is the identity, and with
/// [`Cs03Error::ModulusTooSmall`] if `ρ·2^{k+k'+3} ≥ n`.
pub fn encrypt_and_prove<C: Curve>(
    rng: &mut (impl RngCore + CryptoRng),
    pk: &PublicKey,
    aux: &AuxParams,
    secret: &C::Scalar,
    public: &C::Point,
    label: &[u8],
) -> Result<(Ciphertext, Proof), Cs03Error> {
    let rho = order::<C>();
    pk.params.check_order(&rho, &pk.n)?;
    check_aux_strength(pk, aux)?;
    if C::Point::generator() * secret != *public || bool::from(public.is_identity()) {
        return Err(Cs03Error::InvalidStatement);
    }
    let m = scalar_to_int::<C>(secret);
    prove_integer::<C, _>(rng, pk, aux, &m, public, label, &rho)
}

/// The prover on an integer witness `m ≥ 0` (an honest one is below `ρ`).
pub(super) fn prove_integer<C: Curve, R: RngCore + CryptoRng>(
    rng: &mut R,
    pk: &PublicKey,
    aux: &AuxParams,
    m: &SecretInteger,
    public: &C::Point,
    label: &[u8],
    rho: &Integer,
) -> Result<(Ciphertext, Proof), Cs03Error> {
    let pt = pk.prover_tables()?;
    let at = aux.tables()?;
    let (n, n2, nn) = (&pk.n, &pk.n2, &aux.n);
    let kk = pk.params.challenge_bits + pk.params.slack_bits;
    // §5 step 2(a) bounds: B_r = n·2^{k+k'−2}, B_s = N·2^{k+k'−2}, B_m = ρ·2^{k+k'}.
    let b_r = pk.blinding_bound_r();
    let b_s = Integer::from(nn << (kk - 2));
    let b_m = Integer::from(rho << kk);
    // §3: r ∈ [0, n/4); §5 step 1: s ∈ [0, N/4).
    let r = SecretInteger::new(random_below(rng, &Integer::from(n >> 2u32)));
    let s = SecretInteger::new(random_below(rng, &Integer::from(nn >> 2u32)));
    let rr = sample_blinding(rng, &b_r);
    let ss = sample_blinding(rng, &b_s);
    let mm = sample_blinding(rng, &b_m);
    let rr2 = SecretInteger::new(Integer::from(rr.expose() * 2u32));
    let neg_off_m = Integer::from(1u32) - &b_m;
    let neg_off_s = Integer::from(1u32) - &b_s;

    let batch_a: Vec<Task<'_>> = vec![
        Box::new(|| Ok(pt.g.pow(&r)?)),
        Box::new(|| Ok(pt.y1.pow(&r)?)),
        Box::new(|| Ok(pt.y2.pow(&r)?)),
        Box::new(|| Ok(pt.g.pow(&rr2)?)),
        Box::new(|| Ok(pt.y1.pow(&rr2)?)),
        Box::new(|| Ok(pt.y2.pow(&rr2)?)),
        Box::new(|| ct_pow(&at.g_ct, &aux.g, m, nn)),
        Box::new(|| Ok(at.h_ct.pow(&s)?)),
        Box::new(|| Ok(at.g_ct.pow(&mm)?)),
        Box::new(|| Ok(at.h_ct.pow(&ss)?)),
        Box::new(|| vt_pow(&at.g_vt, &aux.g, &neg_off_m, nn)),
        Box::new(|| vt_pow(&at.h_vt, &aux.h, &neg_off_s, nn)),
    ];
    let mut a = run_parallel(batch_a)?;
    // §3: u = g^r, e = y1^r·h^m.
    let u = a[0].clone();
    let hm = SecretInteger::new(h_pow(m.expose(), n, n2));
    let e = mulm(&a[1], hm.expose(), n2);
    let hh = pk.hash_h(&u, &e, label);
    let rh = SecretInteger::new(Integer::from(r.expose() * &hh));
    let rr2h = SecretInteger::new(Integer::from(rr2.expose() * &hh));
    let batch_b: Vec<Task<'_>> = vec![
        Box::new(|| Ok(pt.y3.pow(&rh)?)),
        Box::new(|| Ok(pt.y3.pow(&rr2h)?)),
        Box::new(|| Ok(pt.z3.pow_vartime(&hh)?)),
    ];
    let mut b = run_parallel(batch_b)?;
    // §3: v = abs((y2·y3^H)^r) = abs(y2^r·y3^{rH}).
    let v = abs_n2(mulm(&a[2], &b[0], n2), n2);
    let ct = Ciphertext {
        u,
        e,
        v,
        len: pk.params.n2_len(),
    };
    // §5 step 2(a): u' = g^{2r'}, e' = y1^{2r'}·h^{2m'}, v' = (y2·y3^H)^{2r'}, δ' = γ^{m'},
    // l' = g̃^{m'}·h̃^{s'}, each as (power of the shifted exponent)·(public correction).
    let two_m_shift = SecretInteger::new(Integer::from(mm.expose() * 2u32));
    let h2m = SecretInteger::new(mulm(
        &h_pow(two_m_shift.expose(), n, n2),
        &h_pow(&Integer::from(&neg_off_m * 2u32), n, n2),
        n2,
    ));
    let m_prime = SecretInteger::new(Integer::from(mm.expose() + &neg_off_m));
    let mut m_prime_scalar = int_to_scalar::<C>(m_prime.expose(), rho)?;
    let com = Commitments::<C> {
        u: mulm(&a[3], &pt.g_corr, n2),
        e: mulm(&mulm(&a[4], &pt.y1_corr, n2), h2m.expose(), n2),
        v: mulm(&mulm(&a[5], &pt.y2_corr, n2), &mulm(&b[1], &b[2], n2), n2),
        delta: C::Point::generator() * m_prime_scalar,
        l: mulm(&mulm(&a[8], &a[9], nn), &mulm(&a[10], &a[11], nn), nn),
    };
    quorate_core::secret::wipe_field(&mut m_prime_scalar);
    // §5 step 1: l = g̃^m·h̃^s.
    let l = mulm(&a[6], &a[7], nn);
    // Partial products such as y1^r (which with e gives h^m) are secret: wipe them all.
    for x in a.iter_mut().chain(b.iter_mut()) {
        bigint::wipe_integer(x);
    }
    let c = challenge::<C>(pk, aux, public, label, &ct, &l, &com);
    // §5 step 2(c).
    let proof = Proof {
        r_t: response(&rr, &b_r, &c, &r),
        s_t: response(&ss, &b_s, &c, &s),
        m_t: response(&mm, &b_m, &c, m),
        l,
        c,
        layout: Layout::new(pk, aux, rho),
    };
    Ok((ct, proof))
}

/// Verifies `proof` that `ct` encrypts, under `pk` and `label`, the discrete log of `public`
/// (§5 step 2(d) with the range check `−n/4 < m̃ < n/4`, plus `abs(v) = v`).
pub fn verify<C: Curve>(
    pk: &PublicKey,
    aux: &AuxParams,
    public: &C::Point,
    label: &[u8],
    ct: &Ciphertext,
    proof: &Proof,
) -> Result<(), Cs03Error> {
    let rho = order::<C>();
    pk.params.check_order(&rho, &pk.n)?;
    check_aux_strength(pk, aux)?;
    if bool::from(public.is_identity()) {
        return Err(Cs03Error::ProofRejected("the public point is the identity"));
    }
    if !ct.fits(pk) {
        return Err(Cs03Error::ProofRejected(
            "ciphertext does not belong to this key",
        ));
    }
    if proof.layout != Layout::new(pk, aux, &rho) {
        return Err(Cs03Error::ProofRejected("proof made for other parameters"));
    }
    // The squares below cannot see the sign of v; decryption rejects v ≠ abs(v).
    if Integer::from(&ct.v * 2u32) >= pk.n2 {
        return Err(Cs03Error::ProofRejected("v is not in abs form"));
    }
    // The paper's range check, −n/4 < m̃ < n/4, i.e. 4·|m̃| < n.
    if Integer::from(proof.m_t.abs_ref()) * 4u32 >= pk.n {
        return Err(Cs03Error::ProofRejected("m̃ outside (−n/4, n/4)"));
    }
    let ly = &proof.layout;
    if Integer::from(proof.r_t.abs_ref()) >= ly.bound_r
        || Integer::from(proof.s_t.abs_ref()) >= ly.bound_s
        || Integer::from(proof.m_t.abs_ref()) >= ly.bound_m
    {
        return Err(Cs03Error::ProofRejected(
            "response outside its honest range",
        ));
    }
    verify_equations::<C>(pk, aux, public, label, ct, proof, &rho)
}

/// §5 step 2(d) without the range checks: recompute the commitments and the challenge.
pub(super) fn verify_equations<C: Curve>(
    pk: &PublicKey,
    aux: &AuxParams,
    public: &C::Point,
    label: &[u8],
    ct: &Ciphertext,
    proof: &Proof,
    rho: &Integer,
) -> Result<(), Cs03Error> {
    if !bigint::is_unit_in_range(&proof.l, &aux.n) {
        return Err(Cs03Error::ProofRejected("l is not a unit modulo N"));
    }
    let vt = pk.verifier_tables()?;
    let at = aux.tables()?;
    let (n, n2, nn) = (&pk.n, &pk.n2, &aux.n);
    let hh = pk.hash_h(&ct.u, &ct.e, label);
    let c = &proof.c;
    let two_c = Integer::from(c * 2u32);
    let two_r = Integer::from(&proof.r_t * 2u32);
    let two_rh = Integer::from(&two_r * &hh);
    let tasks: Vec<Task<'_>> = vec![
        Box::new(|| Ok(pow_mod_vartime(&ct.u, &two_c, n2)?)),
        Box::new(|| vt_pow(&vt.g, &pk.g, &two_r, n2)),
        Box::new(|| Ok(pow_mod_vartime(&ct.e, &two_c, n2)?)),
        Box::new(|| vt_pow(&vt.y1, &pk.y1, &two_r, n2)),
        Box::new(|| Ok(pow_mod_vartime(&ct.v, &two_c, n2)?)),
        Box::new(|| vt_pow(&vt.y2, &pk.y2, &two_r, n2)),
        Box::new(|| vt_pow(&vt.y3, &pk.y3, &two_rh, n2)),
        Box::new(|| Ok(pow_mod_vartime(&proof.l, c, nn)?)),
        Box::new(|| vt_pow(&at.g_vt, &aux.g, &proof.m_t, nn)),
        Box::new(|| vt_pow(&at.h_vt, &aux.h, &proof.s_t, nn)),
    ];
    let x = run_parallel(tasks)?;
    let h2m = h_pow(&Integer::from(&proof.m_t * 2u32), n, n2);
    let c_s = int_to_scalar::<C>(c, rho)?;
    let m_s = int_to_scalar::<C>(&proof.m_t, rho)?;
    let com = Commitments::<C> {
        u: mulm(&x[0], &x[1], n2),
        e: mulm(&mulm(&x[2], &x[3], n2), &h2m, n2),
        v: mulm(&x[4], &mulm(&x[5], &x[6], n2), n2),
        delta: *public * c_s + C::Point::generator() * m_s,
        l: mulm(&x[7], &mulm(&x[8], &x[9], nn), nn),
    };
    let c2 = challenge::<C>(pk, aux, public, label, ct, &proof.l, &com);
    let len = (pk.params.challenge_bits / 8) as usize;
    let (a, b) = (
        bigint::to_be_bytes_padded(c, len),
        bigint::to_be_bytes_padded(&c2, len),
    );
    match (a, b) {
        (Some(a), Some(b)) if bool::from(a.ct_eq(&b)) => Ok(()),
        _ => Err(Cs03Error::ProofRejected("challenge mismatch")),
    }
}

/// Decrypts `ct` under `label` (§3, CRT, all checks) and returns the plaintext integer read
/// in `(−n/2, n/2)` and reduced modulo `ρ`. Any failed check gives
/// [`Cs03Error::Decryption`]: a changed `u`, `e`, `v` or label is rejected (CCA2).
pub fn decrypt<C: Curve>(
    sk: &SecretKey,
    label: &[u8],
    ct: &Ciphertext,
) -> Result<C::Scalar, Cs03Error> {
    let pk = sk.public_key();
    if !ct.fits(pk) {
        return Err(Cs03Error::Decryption);
    }
    let m = sk.decrypt_integer(label, &ct.u, &ct.e, &ct.v)?;
    let centred = if Integer::from(m.expose() * 2u32) > pk.n {
        SecretInteger::new(Integer::from(m.expose() - &pk.n))
    } else {
        m
    };
    int_to_scalar::<C>(centred.expose(), &order::<C>())
}

/// [`decrypt`], then checks `x·γ = X` ([`Cs03Error::WrongPublicShare`] otherwise): the
/// escrow's recovery of a backed-up key share.
pub fn recover<C: Curve>(
    sk: &SecretKey,
    label: &[u8],
    ct: &Ciphertext,
    public: &C::Point,
) -> Result<C::Scalar, Cs03Error> {
    let mut x = decrypt::<C>(sk, label, ct)?;
    if C::Point::generator() * x == *public {
        Ok(x)
    } else {
        quorate_core::secret::wipe_field(&mut x);
        Err(Cs03Error::WrongPublicShare)
    }
}
