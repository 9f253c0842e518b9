//! Enc: a sender's submission and the proof linking its components.
//!
//! Sender `i` holds a value `v ∈ Z_q` and commitment randomness `r ∈ Z_q` and publishes
//!
//! * `c = (1 + N)^v·h_N^{ρ₁}`, `c′ = (1 + N)^r·h_N^{ρ₂} mod N²` under the mix-servers'
//!   threshold Paillier key, with fixed-base randomness ([`crate::djn`]: the public
//!   `h_N = h^N mod N²` and secret `ρ_j < 2^{⌈|N|/2⌉}`, the DJN variant of Paillier);
//! * `γ = g^v h^r` in G1;
//! * a proof (Σ-protocol over the integers, Fiat–Shamir) that the plaintexts of `c, c′`
//!   open `γ`: masks `α_v, α_r` of `|q| + 128 + 40` bits and `β₁, β₂` of
//!   `⌈|N|/2⌉ + 128 + 40` bits ([`crate::djn::mask_bits`]);
//!   `A₁ = (1 + N)^{α_v} h_N^{β₁}`, `A₂ = (1 + N)^{α_r} h_N^{β₂}`, `Γ = g^{α_v} h^{α_r}`;
//!   128-bit challenge `e`; `z_v = α_v + e·v`, `z_r = α_r + e·r`, `z_{ρ1} = β₁ + e·ρ₁`,
//!   `z_{ρ2} = β₂ + e·ρ₂` (all integers). The verifier checks the ranges of `z_v, z_r`
//!   (`< 2^{|α|+1}`) and `z_{ρ1}, z_{ρ2}` (`< 2^{|β|+1}`), `(1 + N)^{z_v} h_N^{z_{ρ1}} = A₁ c^e`,
//!   `(1 + N)^{z_r} h_N^{z_{ρ2}} = A₂ c′^e` (mod `N²`, `h_N^z` from the Yao table) and
//!   `g^{z_v} h^{z_r} = Γ γ^e`.
//!
//! The artifact had no such proof (defect 13), so a sender could make tracing fail. Here an
//! inconsistent submission is rejected at input checking ([`check_input`]).
//!
//! # Fixed-base randomness (issue 17, lever 3)
//! Hiding of `c, c′` rests on DCR plus DJN's short-exponent assumption, the same assumption
//! and lengths as the servers' re-randomisations ([`crate::djn`], `crate::notes`).
//! Soundness does not use it: from two accepting transcripts,
//! `c^{Δe} = (1 + N)^{Δz_v}·h_N^{Δz_{ρ1}}` and `h_N^{Δz_{ρ1}} = (h^{Δz_{ρ1}})^N` is an
//! `N`-th power whatever the integer `Δz_{ρ1}`, so with `gcd(Δe, N) = 1` and `Δe | Δz_v` (the
//! ring-Pedersen part below) `c = (1 + N)^{Δz_v/Δe}·R^N` for an explicit `R` (Bézout), as
//! with `r^N` randomness. Zero knowledge: `z_{ρj} = β_j + e·ρ_j` is within statistical
//! distance `2^{−40}` of uniform on `[0, 2^{|β|})` (`e·ρ_j < 2^{|ρ|+128}`), and `A_j` is
//! determined by the responses and `e`.
//!
//! # Integer soundness
//! The proof also carries ring-Pedersen commitments `S_v = s^v t^{μ_v}`, `S_r = s^r t^{μ_r}`
//! ([`crate::ring_pedersen`]) with first messages `D_v = s^{α_v} t^{β_v}`,
//! `D_r = s^{α_r} t^{β_r}` and responses `z_{μv} = β_v + e μ_v`, `z_{μr} = β_r + e μ_r`; the
//! verifier checks `s^{z_v} t^{z_{μv}} = D_v S_v^e` (and for `r`), all mod the auxiliary
//! modulus `Ñ` of [`crate::setup::MixnetPublic::ring_pedersen`] (independent of the Paillier
//! `N`, which `t` servers could factor and then help a sender past this check). Under strong
//! RSA for `Ñ` this forces `Δe | Δz`, so the extracted Paillier plaintexts are the integers
//! `v, r < 2^{|q|+…}` that also open `γ`.
//!
//! # Slack, not a range proof
//! The proof bounds the extracted plaintexts only by `|v|, |r| < 2^{MASK_BITS+1}`
//! (`0 ≤ z < 2^{MASK_BITS+1}` and `Δe ≥ 1`): a sender may encrypt `v + δ·2^256`, a value in
//! `[q, 2^256)` or a negative value, with `γ` committing to `v mod q`. Everything that
//! decrypts these plaintexts tolerates that slack instead of proving a range (issue 13):
//! Mix decrypts in slots of `MASK_BITS + 2` bits around a public offset and outputs
//! `v mod q` ([`crate::mix::OUTPUT_SLOT_BITS`]), and the Enc-to-shares conversion of `c`,
//! `c′` (and of the witness list) has slots wide enough for the same slack around its own
//! offset ([`crate::sharing::SLOT_BITS`]). A value beyond the slack fails this proof and
//! the submission is refused with its index ([`MixnetError::InvalidInput`]).

use crate::djn::{self, g_pow, DjnTables};
use crate::error::MixnetError;
use crate::params::{
    int_to_scalar, scalar_to_int, Generators, BATCH_BITS, CHALLENGE_BITS, SCALAR_BITS,
};
use crate::ring_pedersen::RingPedersenParams;
use crate::setup::MixnetPublic;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use merlin::Transcript;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::transcript::ProtocolTranscript;
use quorate_paillier::bigint::{
    eq_up_to_order_two, is_unit_in_range, modulo, mul_mod, multi_pow_vartime, pow_mod_vartime,
    random_bits, to_be_bytes_padded, wipe_integer, SecretInteger,
};
use quorate_paillier::rug::Integer;
use quorate_paillier::{Ciphertext, PublicKey};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

pub use crate::params::MASK_BITS;

/// Version of the link proof's transcript. Version 2: fixed-base randomness, the
/// transcript binds `h_N`.
const LINK_VERSION: u16 = 2;

/// Bits of the responses `z_{ρ1}, z_{ρ2}` a verifier accepts (`< 2^{bits}`): one more
/// than the mask `β` ([`crate::djn::response_bits`]).
pub fn rho_response_bits(pk: &PublicKey) -> u32 {
    djn::response_bits(pk)
}

/// The proof linking `c`, `c′` and `γ`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkProof {
    /// `A₁`.
    pub a1: Ciphertext,
    /// `A₂`.
    pub a2: Ciphertext,
    /// `Γ`.
    pub big_gamma: G1Projective,
    /// `z_v`.
    pub z_v: Integer,
    /// `z_r`.
    pub z_r: Integer,
    /// `z_{ρ1} = β₁ + e·ρ₁` (integer, `< 2^{`[`rho_response_bits`]`}`).
    pub z_rho1: Integer,
    /// `z_{ρ2} = β₂ + e·ρ₂`.
    pub z_rho2: Integer,
    /// Ring-Pedersen commitment `S_v`.
    pub rp_v: Integer,
    /// Ring-Pedersen commitment `S_r`.
    pub rp_r: Integer,
    /// First message `D_v`.
    pub rp_dv: Integer,
    /// First message `D_r`.
    pub rp_dr: Integer,
    /// `z_{μv}`.
    pub z_mu_v: Integer,
    /// `z_{μr}`.
    pub z_mu_r: Integer,
}

/// A sender's public submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SenderInput {
    /// `c = Enc(v)`.
    pub c: Ciphertext,
    /// `c′ = Enc(r)`.
    pub c_prime: Ciphertext,
    /// `γ = g^v h^r`.
    pub gamma: G1Projective,
    /// The linking proof.
    pub proof: LinkProof,
}

/// What the sender keeps: the opening of `γ`.
#[derive(Clone)]
pub struct SenderOpening {
    /// `v`.
    pub v: Scalar,
    /// `r`.
    pub r: Scalar,
}

impl Drop for SenderOpening {
    fn drop(&mut self) {
        self.v = Scalar::ZERO;
        self.r = Scalar::ZERO;
    }
}

impl core::fmt::Debug for SenderOpening {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SenderOpening(<redacted>)")
    }
}

fn ct_bytes(pk: &PublicKey, c: &Integer) -> Vec<u8> {
    to_be_bytes_padded(c, pk.ciphertext_len()).unwrap_or_default()
}

/// Everything the link proof's challenge binds besides the session: the statement and the
/// prover's first messages.
struct LinkStatement<'a> {
    index: u64,
    c: &'a Ciphertext,
    c_prime: &'a Ciphertext,
    gamma: &'a G1Projective,
    a1: &'a Ciphertext,
    a2: &'a Ciphertext,
    big_gamma: &'a G1Projective,
    rp_coms: [&'a Integer; 4],
}

fn challenge(public: &MixnetPublic, djn: &DjnTables, st: &LinkStatement<'_>) -> Integer {
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let mut t = Transcript::for_protocol(b"quorate/mixnet/sender-link", LINK_VERSION, &public.sid);
    t.append_u64_be(b"sender index", st.index);
    t.append_point(b"g", &public.gens.g);
    t.append_point(b"h", &public.gens.h);
    t.append_message(b"N", &pk.to_bytes());
    t.append_message(b"h_N", &ct_bytes(pk, djn.h_n()));
    t.append_message(b"c", &ct_bytes(pk, st.c.as_integer()));
    t.append_message(b"c'", &ct_bytes(pk, st.c_prime.as_integer()));
    t.append_point(b"gamma", st.gamma);
    t.append_message(b"A1", &ct_bytes(pk, st.a1.as_integer()));
    t.append_message(b"A2", &ct_bytes(pk, st.a2.as_integer()));
    t.append_point(b"Gamma", st.big_gamma);
    rp.append_to(&mut t);
    for (label, x) in [b"S_v".as_slice(), b"S_r", b"D_v", b"D_r"]
        .into_iter()
        .zip(st.rp_coms)
    {
        t.append_message(b"rp commitment", label);
        t.append_message(b"value", &rp.element_bytes(x));
    }
    let mut e = [0u8; (CHALLENGE_BITS / 8) as usize];
    t.challenge_bytes(b"e", &mut e);
    Integer::from_digits(&e, quorate_paillier::rug::integer::Order::Msf)
}

/// `(1 + N)^m·h_N^ρ mod N²` for a secret `0 ≤ ρ < 2^{bits}` (comb table,
/// [`DjnTables::pow_secret_bits`]; `bits` is public: the randomness' or the mask's length).
fn enc_fixed_base(
    pk: &PublicKey,
    djn: &DjnTables,
    m: &Integer,
    rho: &SecretInteger,
    bits: u32,
) -> Result<Ciphertext, MixnetError> {
    let r = djn.pow_secret_bits(rho, bits)?;
    Ok(pk.ciphertext_from_integer(mul_mod(&g_pow(pk, m), &r, pk.n_squared()))?)
}

/// Encrypts `v` for position `index` under a mixnet's published parameters (its
/// generators, threshold Paillier key with its fixed-base tables, ring-Pedersen parameters
/// and session id), returning the submission and the opening the sender keeps.
pub fn encrypt_for<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    index: u64,
    v: Scalar,
    rng: &mut R,
) -> Result<(SenderInput, SenderOpening), MixnetError> {
    let r = Scalar::random(&mut *rng);
    let (vi, ri) = (scalar_to_int(&v), scalar_to_int(&r));
    let input = encrypt_integers(public, index, vi, ri, rng)?;
    Ok((input, SenderOpening { v, r }))
}

/// The submission for the integers `v`, `r` (any sign; the honest sender's are below `q`):
/// `c = Enc(v mod N)`, `c′ = Enc(r mod N)`, `γ = g^{v mod q} h^{r mod q}` and the linking
/// proof. A value outside `[0, q)` is what a cheating sender can do within the proof's
/// slack ([`crate::mix::OUTPUT_SLOT_BITS`]); `crate::faults` uses that.
pub(crate) fn encrypt_integers<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    index: u64,
    vi: Integer,
    ri: Integer,
    rng: &mut R,
) -> Result<SenderInput, MixnetError> {
    let gens = &public.gens;
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let djn = public.djn()?;
    let q = crate::params::scalar_modulus();
    let rho1 = djn.random_alpha(rng);
    let rho2 = djn.random_alpha(rng);
    let c = enc_fixed_base(pk, djn, &modulo(&vi, pk.n()), &rho1, djn::alpha_bits(pk))?;
    let c_prime = enc_fixed_base(pk, djn, &modulo(&ri, pk.n()), &rho2, djn::alpha_bits(pk))?;
    let gamma = gens.g * int_to_scalar(&vi, &q) + gens.h * int_to_scalar(&ri, &q);
    let alpha_v = random_bits(rng, MASK_BITS);
    let alpha_r = random_bits(rng, MASK_BITS);
    let beta1 = SecretInteger::new(random_bits(rng, djn::mask_bits(pk)));
    let beta2 = SecretInteger::new(random_bits(rng, djn::mask_bits(pk)));
    let a1 = enc_fixed_base(pk, djn, &alpha_v, &beta1, djn::mask_bits(pk))?;
    let a2 = enc_fixed_base(pk, djn, &alpha_r, &beta2, djn::mask_bits(pk))?;
    let big_gamma = gens.g * int_to_scalar(&alpha_v, &q) + gens.h * int_to_scalar(&alpha_r, &q);
    let (mu_v, mu_r) = (rp.random_mu(rng), rp.random_mu(rng));
    let (beta_v, beta_r) = (rp.random_mu_mask(rng), rp.random_mu_mask(rng));
    let rpt = public.ring_pedersen_tables()?;
    // Public bounds: an honest sender's values are below q; the masks' drawn lengths.
    let commit = |x: &Integer, x_bits: u32, mu: &Integer, mu_bits: u32| match rpt {
        Some(t) => t.commit_bits(x, x_bits, mu, mu_bits),
        None => rp.commit(x, mu),
    };
    let rp_v = commit(&vi, SCALAR_BITS, &mu_v, rp.mu_bits())?;
    let rp_r = commit(&ri, SCALAR_BITS, &mu_r, rp.mu_bits())?;
    let rp_dv = commit(&alpha_v, MASK_BITS, &beta_v, rp.mu_mask_bits())?;
    let rp_dr = commit(&alpha_r, MASK_BITS, &beta_r, rp.mu_mask_bits())?;
    let e = challenge(
        public,
        djn,
        &LinkStatement {
            index,
            c: &c,
            c_prime: &c_prime,
            gamma: &gamma,
            a1: &a1,
            a2: &a2,
            big_gamma: &big_gamma,
            rp_coms: [&rp_v, &rp_r, &rp_dv, &rp_dr],
        },
    );
    let z_mu_v = Integer::from(&e * &mu_v) + &beta_v;
    let z_mu_r = Integer::from(&e * &mu_r) + &beta_r;
    let z_v = Integer::from(&e * &vi) + &alpha_v;
    let z_r = Integer::from(&e * &ri) + &alpha_r;
    // z_ρ = β + e·ρ over the integers (the 128-bit e and the |ρ|-bit ρ fill their limbs
    // except with probability 2^{−64}; the sum's length is public).
    let z_rho1 = Integer::from(
        beta1.expose() + SecretInteger::new(Integer::from(&e * rho1.expose())).expose(),
    );
    let z_rho2 = Integer::from(
        beta2.expose() + SecretInteger::new(Integer::from(&e * rho2.expose())).expose(),
    );
    let (mut vi, mut ri) = (vi, ri);
    let (mut alpha_v, mut alpha_r) = (alpha_v, alpha_r);
    let (mut mu_v, mut mu_r, mut beta_v, mut beta_r) = (mu_v, mu_r, beta_v, beta_r);
    for x in [
        &mut vi,
        &mut ri,
        &mut alpha_v,
        &mut alpha_r,
        &mut mu_v,
        &mut mu_r,
        &mut beta_v,
        &mut beta_r,
    ] {
        wipe_integer(x);
    }
    Ok(SenderInput {
        c,
        c_prime,
        gamma,
        proof: LinkProof {
            a1,
            a2,
            big_gamma,
            z_v,
            z_r,
            z_rho1,
            z_rho2,
            rp_v,
            rp_r,
            rp_dv,
            rp_dr,
            z_mu_v,
            z_mu_r,
        },
    })
}

/// A submission that passed the cheap checks (encodings, ranges, units), with its
/// challenge: what the equations of [`check_equations`] and [`check_inputs`] need.
struct Candidate<'a> {
    input: &'a SenderInput,
    e: Integer,
}

/// Ranges, units and the challenge of one submission (no exponentiation but the hash).
fn precheck<'a>(
    public: &MixnetPublic,
    djn: &DjnTables,
    index: u64,
    input: &'a SenderInput,
) -> Result<Candidate<'a>, MixnetError> {
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let bad = |reason| MixnetError::InvalidInput {
        index: index as usize,
        reason,
    };
    // Re-validate ciphertexts (the fields are public and may have been built unchecked).
    for c in [&input.c, &input.c_prime, &input.proof.a1, &input.proof.a2] {
        pk.ciphertext_from_integer(c.as_integer().clone())
            .map_err(|_| bad("ciphertext out of range or not a unit"))?;
    }
    let p = &input.proof;
    let z_bound = MASK_BITS + 1;
    for z in [&p.z_v, &p.z_r] {
        if *z < 0 || z.significant_bits() > z_bound {
            return Err(bad("link proof response out of range"));
        }
    }
    for z in [&p.z_rho1, &p.z_rho2] {
        if *z < 0 || z.significant_bits() > rho_response_bits(pk) {
            return Err(bad("link proof randomness response out of range"));
        }
    }
    for z in [&p.z_mu_v, &p.z_mu_r] {
        if *z < 0 || z.significant_bits() > rp.mu_mask_bits() + 1 {
            return Err(bad("link proof ring-Pedersen response out of range"));
        }
    }
    for x in [&p.rp_v, &p.rp_r, &p.rp_dv, &p.rp_dr] {
        if !is_unit_in_range(x, &rp.n_hat) {
            return Err(bad("link proof ring-Pedersen value is not a unit"));
        }
    }
    let e = challenge(
        public,
        djn,
        &LinkStatement {
            index,
            c: &input.c,
            c_prime: &input.c_prime,
            gamma: &input.gamma,
            a1: &p.a1,
            a2: &p.a2,
            big_gamma: &p.big_gamma,
            rp_coms: [&p.rp_v, &p.rp_r, &p.rp_dv, &p.rp_dr],
        },
    );
    Ok(Candidate { input, e })
}

/// The three equations of one candidate, one by one (the reference check, and the
/// fallback of [`check_inputs`] that names the culprits).
fn check_equations(
    public: &MixnetPublic,
    djn: &DjnTables,
    index: u64,
    cand: &Candidate<'_>,
) -> Result<(), MixnetError> {
    let gens: &Generators = &public.gens;
    let pk = public.paillier.encryption_key();
    let rp: &RingPedersenParams = &public.ring_pedersen;
    let bad = |reason| MixnetError::InvalidInput {
        index: index as usize,
        reason,
    };
    let (input, e) = (cand.input, &cand.e);
    let p = &input.proof;
    let rpt = public.ring_pedersen_tables()?;
    // s^z t^{z_μ} = D·S^e (mod Ñ), up to a factor of order ≤ 2.
    for (z, z_mu, com, d) in [
        (&p.z_v, &p.z_mu_v, &p.rp_v, &p.rp_dv),
        (&p.z_r, &p.z_mu_r, &p.rp_r, &p.rp_dr),
    ] {
        let ok = match rpt {
            Some(t) => t.recompute_vartime(z, z_mu, com, e),
            None => rp.recompute_vartime(z, z_mu, com, e),
        }
        .is_some_and(|x| eq_up_to_order_two(&x, d, &rp.n_hat));
        if !ok {
            return Err(bad("link proof: ring-Pedersen equation"));
        }
    }
    let n2 = pk.n_squared();
    // (1 + N)^z·h_N^{z_ρ} = A·c^e (mod N²) for (c, A₁) and (c′, A₂), up to a factor of
    // order ≤ 2.
    for (z, z_rho, a, c) in [
        (&p.z_v, &p.z_rho1, &p.a1, &input.c),
        (&p.z_r, &p.z_rho2, &p.a2, &input.c_prime),
    ] {
        let lhs = mul_mod(&g_pow(pk, z), &djn.pow_public_vartime(z_rho)?, n2);
        let rhs = mul_mod(a.as_integer(), &pow_mod_vartime(c.as_integer(), e, n2)?, n2);
        if !eq_up_to_order_two(&lhs, &rhs, n2) {
            return Err(bad("link proof: Paillier equation"));
        }
    }
    let q = crate::params::scalar_modulus();
    let es = int_to_scalar(e, &q);
    let check = g1_msm_vartime(
        &[gens.g, gens.h, p.big_gamma, input.gamma],
        &[
            int_to_scalar(&p.z_v, &q),
            int_to_scalar(&p.z_r, &q),
            -Scalar::ONE,
            -es,
        ],
    );
    if !bool::from(group::Group::is_identity(&check)) {
        return Err(bad("link proof: commitment equation"));
    }
    Ok(())
}

/// Input checking: verifies one submission against a mixnet's published parameters.
/// `index` is its position in the input list (bound into the proof, so a submission cannot
/// be replayed at another position). A failure is [`MixnetError::InvalidInput`] with that
/// index. It accepts exactly what [`check_inputs`] accepts.
pub fn check_input(
    public: &MixnetPublic,
    index: u64,
    input: &SenderInput,
) -> Result<(), MixnetError> {
    let djn = public.djn()?;
    let cand = precheck(public, djn, index, input)?;
    check_equations(public, djn, index, &cand)
}

/// Input checking for a whole list (every server and the querier run it): the positions of
/// the accepted submissions and the typed errors of the rejected ones, each naming its
/// position. Accepts exactly the submissions that [`check_input`] accepts.
///
/// # Batch verification (issue 17, lever 2)
/// After the per-submission ranges, units and challenges, the equations of all remaining
/// submissions are checked at once with independent 128-bit weights `ρ` drawn from `OsRng`
/// (transcript-independent: no sender can predict them): one G1 multi-scalar
/// multiplication `g^{Σρz_v} h^{Σρz_r} = Π (Γ_i γ_i^{e_i})^{ρ_i}`, one multi-exponentiation
/// mod `N²` for `[(1 + N)^{Σρz} h_N^{Σρz_ρ}]² = [Π (A c^e)^ρ]²` over both Paillier equations
/// of every submission, and one mod `Ñ` for `[s^{Σρz} t^{Σρz_μ}]² = [Π (D S^e)^ρ]²`. If all
/// three hold, every submission is accepted; otherwise each is checked on its own
/// ([`check_input`]'s equations) to name exactly the failing positions.
///
/// *Why the squares.* `Z*_{N²}` and `Z*_Ñ` have elements of order 2 (`−1` among them), so
/// a weighted product cannot see an error `τ` of order 2 whose weight is even. Both paths
/// therefore verify each equation up to such a factor (`x² = y²`), and the batch then loses
/// nothing: the squared errors lie in subgroups whose orders (`N·p′q′`, `p̃′q̃′`) have no
/// prime factor below `2^{128}`, so a submission with a non-trivial squared error passes the
/// weighted product with probability at most `2^{−128}` (Bellare–Garay–Rabin small-exponent
/// test; this needs the dealer's safe primes for `N` and `Ñ`, see the note on
/// `sharing::batch_links`). The G1 equation is in a group of prime order and is checked
/// exactly. Soundness
/// of the relaxed equations: in `Z*_{N²}` a `τ` with `τ² = 1` is an `N`-th power (`N` is odd,
/// so `τ = τ^N`), hence `c^{Δe} = (1 + N)^{Δz}·(τ h^{Δz_ρ})^N` and the extraction of
/// [`crate::sender`] goes through unchanged; in `Z*_Ñ` (`Ñ` a product of safe primes, so
/// `−1` is not a square) `τ ∉ {±1}` would factor `Ñ` (`gcd(τ − 1, Ñ)`), and `τ = −1` is
/// only possible with an odd `Δe` (otherwise both sides are squares), where `−S` opens the
/// relation exactly; either way the strong-RSA argument gives `Δe | Δz` as before.
pub fn check_inputs(
    public: &MixnetPublic,
    inputs: &[SenderInput],
) -> (Vec<usize>, Vec<MixnetError>) {
    let djn = match public.djn() {
        Ok(d) => d,
        Err(e) => return (Vec::new(), vec![e]),
    };
    let pre: Vec<Result<Candidate<'_>, MixnetError>> = inputs
        .par_iter()
        .enumerate()
        .map(|(i, inp)| precheck(public, djn, i as u64, inp))
        .collect();
    let mut cands = Vec::new();
    let mut bad = Vec::new();
    for (i, r) in pre.into_iter().enumerate() {
        match r {
            Ok(c) => cands.push((i, c)),
            Err(e) => bad.push(e),
        }
    }
    let batch_ok =
        !cands.is_empty() && batch_equations(public, djn, &cands, &mut OsRng).unwrap_or(false);
    if batch_ok || cands.is_empty() {
        return (cands.into_iter().map(|(i, _)| i).collect(), bad);
    }
    // Fallback: one by one, to name every failing position.
    let results: Vec<(usize, Result<(), MixnetError>)> = cands
        .par_iter()
        .map(|(i, c)| (*i, check_equations(public, djn, *i as u64, c)))
        .collect();
    let mut ok = Vec::new();
    for (i, r) in results {
        match r {
            Ok(()) => ok.push(i),
            Err(e) => bad.push(e),
        }
    }
    bad.sort_by_key(|e| match e {
        MixnetError::InvalidInput { index, .. } => *index,
        _ => usize::MAX,
    });
    (ok, bad)
}

/// The weighted products of [`check_inputs`]: `Ok(true)` if all three hold.
fn batch_equations<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    djn: &DjnTables,
    cands: &[(usize, Candidate<'_>)],
    rng: &mut R,
) -> Result<bool, MixnetError> {
    let gens = &public.gens;
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let q = crate::params::scalar_modulus();
    let n2 = pk.n_squared();
    // Two weights per submission for the Paillier equations, two for the ring-Pedersen
    // ones, one for the G1 equation.
    let k = cands.len();
    let mut w = || random_bits(rng, BATCH_BITS);
    let weights: Vec<[Integer; 5]> = (0..k).map(|_| [w(), w(), w(), w(), w()]).collect();
    // G1: g^{Σρz_v} h^{Σρz_r} Π Γ^{−ρ} γ^{−ρe} = 1.
    let mut points = Vec::with_capacity(2 * k + 2);
    let mut scalars = Vec::with_capacity(2 * k + 2);
    let (mut sg, mut sh) = (Scalar::ZERO, Scalar::ZERO);
    for ((_, c), ws) in cands.iter().zip(&weights) {
        let p = &c.input.proof;
        let r = int_to_scalar(&ws[4], &q);
        sg += r * int_to_scalar(&p.z_v, &q);
        sh += r * int_to_scalar(&p.z_r, &q);
        points.push(p.big_gamma);
        scalars.push(-r);
        points.push(c.input.gamma);
        scalars.push(-(r * int_to_scalar(&c.e, &q)));
    }
    points.extend([gens.g, gens.h]);
    scalars.extend([sg, sh]);
    if !bool::from(group::Group::is_identity(&g1_msm_vartime(
        &points, &scalars,
    ))) {
        return Ok(false);
    }
    // Paillier: [(1 + N)^{Σρz} h_N^{Σρz_ρ}]² = [Π A^ρ c^{ρe}]² (mod N²).
    let mut bases = Vec::with_capacity(4 * k);
    let mut exps = Vec::with_capacity(4 * k);
    let (mut zm, mut zr) = (Integer::new(), Integer::new());
    for ((_, c), ws) in cands.iter().zip(&weights) {
        let p = &c.input.proof;
        for (rho, z, z_rho, a, ct) in [
            (&ws[0], &p.z_v, &p.z_rho1, &p.a1, &c.input.c),
            (&ws[1], &p.z_r, &p.z_rho2, &p.a2, &c.input.c_prime),
        ] {
            zm += Integer::from(rho * z);
            zr += Integer::from(rho * z_rho);
            bases.push(a.as_integer().clone());
            exps.push(rho.clone());
            bases.push(ct.as_integer().clone());
            exps.push(Integer::from(rho * &c.e));
        }
    }
    let lhs = mul_mod(&g_pow(pk, &zm), &djn.pow_public_any_vartime(&zr)?, n2);
    let rhs = multi_pow_vartime(&bases, &exps, n2)?;
    if !eq_up_to_order_two(&lhs, &rhs, n2) {
        return Ok(false);
    }
    // Ring-Pedersen: [s^{Σρz} t^{Σρz_μ}]² = [Π D^ρ S^{ρe}]² (mod Ñ).
    bases.clear();
    exps.clear();
    let (mut zs, mut zt) = (Integer::new(), Integer::new());
    for ((_, c), ws) in cands.iter().zip(&weights) {
        let p = &c.input.proof;
        for (rho, z, z_mu, com, d) in [
            (&ws[2], &p.z_v, &p.z_mu_v, &p.rp_v, &p.rp_dv),
            (&ws[3], &p.z_r, &p.z_mu_r, &p.rp_r, &p.rp_dr),
        ] {
            zs += Integer::from(rho * z);
            zt += Integer::from(rho * z_mu);
            bases.push(d.clone());
            exps.push(rho.clone());
            bases.push(com.clone());
            exps.push(Integer::from(rho * &c.e));
        }
    }
    let lhs = mul_mod(
        &pow_mod_vartime(&rp.s, &zs, &rp.n_hat)?,
        &pow_mod_vartime(&rp.t, &zt, &rp.n_hat)?,
        &rp.n_hat,
    );
    let rhs = multi_pow_vartime(&bases, &exps, &rp.n_hat)?;
    Ok(eq_up_to_order_two(&lhs, &rhs, &rp.n_hat))
}
