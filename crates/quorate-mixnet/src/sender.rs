//! Enc: a sender's submission and the proof linking its components.
//!
//! Sender `i` holds a value `v ∈ Z_q` and commitment randomness `r ∈ Z_q` and publishes
//!
//! * `c = Enc_N(v; ρ₁)`, `c′ = Enc_N(r; ρ₂)` under the mix-servers' threshold Paillier key;
//! * `γ = g^v h^r` in G1;
//! * a proof (Σ-protocol over the integers, Fiat–Shamir) that the plaintexts of `c, c′`
//!   open `γ`: masks `α_v, α_r` of `|q| + 128 + 40` bits, `μ₁, μ₂ ∈ Z_N^*`;
//!   `A₁ = Enc(α_v; μ₁)`, `A₂ = Enc(α_r; μ₂)`, `Γ = g^{α_v} h^{α_r}`; 128-bit challenge `e`;
//!   `z_v = α_v + e·v`, `z_r = α_r + e·r` (integers), `w_j = μ_j ρ_j^e mod N`. The verifier
//!   checks `Enc(z_v; w₁) = A₁ c^e`, `Enc(z_r; w₂) = A₂ c′^e`, `g^{z_v} h^{z_r} = Γ γ^e` and the
//!   ranges of `z_v, z_r`.
//!
//! The artifact had no such proof (defect 13), so a sender could make tracing fail. Here an
//! inconsistent submission is rejected at input checking ([`check_input`]).
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

use crate::error::MixnetError;
use crate::params::{
    int_to_scalar, scalar_to_int, Generators, CHALLENGE_BITS, SCALAR_BITS, SLACK_BITS,
};
use crate::ring_pedersen::RingPedersenParams;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use merlin::Transcript;
use quorate_bls::msm::g1_msm_vartime;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_paillier::bigint::{
    modulo, mul_mod, pow_mod_secret, pow_mod_vartime, random_bits, random_unit, to_be_bytes_padded,
};
use quorate_paillier::rug::Integer;
use quorate_paillier::{Ciphertext, PublicKey};
use rand_core::{CryptoRng, RngCore};

/// Bits of the masks `α` (witness `|q|` + challenge + slack).
pub const MASK_BITS: u32 = SCALAR_BITS + CHALLENGE_BITS + SLACK_BITS;

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
    /// `w₁`.
    pub w1: Integer,
    /// `w₂`.
    pub w2: Integer,
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

#[allow(clippy::too_many_arguments)]
fn challenge(
    sid: &SessionId,
    index: u64,
    gens: &Generators,
    pk: &PublicKey,
    c: &Ciphertext,
    c_prime: &Ciphertext,
    gamma: &G1Projective,
    a1: &Ciphertext,
    a2: &Ciphertext,
    big_gamma: &G1Projective,
    rp: &RingPedersenParams,
    rp_coms: [&Integer; 4],
) -> Integer {
    let mut t = Transcript::for_protocol(b"quorate/mixnet/sender-link", 1, sid);
    t.append_u64_be(b"sender index", index);
    t.append_point(b"g", &gens.g);
    t.append_point(b"h", &gens.h);
    t.append_message(b"N", &pk.to_bytes());
    t.append_message(b"c", &ct_bytes(pk, c.as_integer()));
    t.append_message(b"c'", &ct_bytes(pk, c_prime.as_integer()));
    t.append_point(b"gamma", gamma);
    t.append_message(b"A1", &ct_bytes(pk, a1.as_integer()));
    t.append_message(b"A2", &ct_bytes(pk, a2.as_integer()));
    t.append_point(b"Gamma", big_gamma);
    rp.append_to(&mut t);
    for (label, x) in [b"S_v".as_slice(), b"S_r", b"D_v", b"D_r"]
        .into_iter()
        .zip(rp_coms)
    {
        t.append_message(b"rp commitment", label);
        t.append_message(b"value", &rp.element_bytes(x));
    }
    let mut e = [0u8; (CHALLENGE_BITS / 8) as usize];
    t.challenge_bytes(b"e", &mut e);
    Integer::from_digits(&e, quorate_paillier::rug::integer::Order::Msf)
}

pub(crate) fn enc_raw(pk: &PublicKey, m: &Integer, r: &Integer) -> Result<Integer, MixnetError> {
    let n2 = pk.n_squared();
    let gm = (Integer::from(m * pk.n()) + 1u32) % n2;
    let rn = pow_mod_secret(r, pk.n(), n2)?;
    Ok(mul_mod(&gm, &rn, n2))
}

/// [`encrypt`] under a mixnet's published parameters (its generators, threshold Paillier
/// key, ring-Pedersen parameters and session id).
pub fn encrypt_for<R: RngCore + CryptoRng>(
    public: &crate::setup::MixnetPublic,
    index: u64,
    v: Scalar,
    rng: &mut R,
) -> Result<(SenderInput, SenderOpening), MixnetError> {
    encrypt(
        &public.gens,
        public.paillier.encryption_key(),
        &public.ring_pedersen,
        &public.sid,
        index,
        v,
        rng,
    )
}

/// Encrypts `v` for position `index` in session `sid`, returning the submission and the
/// opening the sender keeps.
pub fn encrypt<R: RngCore + CryptoRng>(
    gens: &Generators,
    pk: &PublicKey,
    rp: &RingPedersenParams,
    sid: &SessionId,
    index: u64,
    v: Scalar,
    rng: &mut R,
) -> Result<(SenderInput, SenderOpening), MixnetError> {
    let r = Scalar::random(&mut *rng);
    let (vi, ri) = (scalar_to_int(&v), scalar_to_int(&r));
    let input = encrypt_integers(gens, pk, rp, sid, index, vi, ri, rng)?;
    Ok((input, SenderOpening { v, r }))
}

/// The submission for the integers `v`, `r` (any sign; the honest sender's are below `q`):
/// `c = Enc(v mod N)`, `c′ = Enc(r mod N)`, `γ = g^{v mod q} h^{r mod q}` and the linking
/// proof. A value outside `[0, q)` is what a cheating sender can do within the proof's
/// slack ([`crate::mix::OUTPUT_SLOT_BITS`]); `crate::faults` uses that.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encrypt_integers<R: RngCore + CryptoRng>(
    gens: &Generators,
    pk: &PublicKey,
    rp: &RingPedersenParams,
    sid: &SessionId,
    index: u64,
    vi: Integer,
    ri: Integer,
    rng: &mut R,
) -> Result<SenderInput, MixnetError> {
    let q = crate::params::scalar_modulus();
    let rho1 = random_unit(rng, pk.n())?;
    let rho2 = random_unit(rng, pk.n())?;
    let c = pk.ciphertext_from_integer(enc_raw(pk, &modulo(&vi, pk.n()), &rho1)?)?;
    let c_prime = pk.ciphertext_from_integer(enc_raw(pk, &modulo(&ri, pk.n()), &rho2)?)?;
    let gamma = gens.g * int_to_scalar(&vi, &q) + gens.h * int_to_scalar(&ri, &q);
    let alpha_v = random_bits(rng, MASK_BITS);
    let alpha_r = random_bits(rng, MASK_BITS);
    let mu1 = random_unit(rng, pk.n())?;
    let mu2 = random_unit(rng, pk.n())?;
    let a1 = pk.ciphertext_from_integer(enc_raw(pk, &alpha_v, &mu1)?)?;
    let a2 = pk.ciphertext_from_integer(enc_raw(pk, &alpha_r, &mu2)?)?;
    let big_gamma = gens.g * int_to_scalar(&alpha_v, &q) + gens.h * int_to_scalar(&alpha_r, &q);
    let (mu_v, mu_r) = (rp.random_mu(rng), rp.random_mu(rng));
    let (beta_v, beta_r) = (rp.random_mu_mask(rng), rp.random_mu_mask(rng));
    let rp_v = rp.commit(&vi, &mu_v)?;
    let rp_r = rp.commit(&ri, &mu_r)?;
    let rp_dv = rp.commit(&alpha_v, &beta_v)?;
    let rp_dr = rp.commit(&alpha_r, &beta_r)?;
    let e = challenge(
        sid,
        index,
        gens,
        pk,
        &c,
        &c_prime,
        &gamma,
        &a1,
        &a2,
        &big_gamma,
        rp,
        [&rp_v, &rp_r, &rp_dv, &rp_dr],
    );
    let z_mu_v = Integer::from(&e * &mu_v) + &beta_v;
    let z_mu_r = Integer::from(&e * &mu_r) + &beta_r;
    let z_v = Integer::from(&e * &vi) + &alpha_v;
    let z_r = Integer::from(&e * &ri) + &alpha_r;
    let w1 = mul_mod(&mu1, &pow_mod_secret(&rho1, &e, pk.n())?, pk.n());
    let w2 = mul_mod(&mu2, &pow_mod_secret(&rho2, &e, pk.n())?, pk.n());
    let (mut vi, mut ri, mut rho1, mut rho2) = (vi, ri, rho1, rho2);
    let (mut alpha_v, mut alpha_r, mut mu1, mut mu2) = (alpha_v, alpha_r, mu1, mu2);
    let (mut mu_v, mut mu_r, mut beta_v, mut beta_r) = (mu_v, mu_r, beta_v, beta_r);
    for x in [
        &mut vi,
        &mut ri,
        &mut rho1,
        &mut rho2,
        &mut alpha_v,
        &mut alpha_r,
        &mut mu1,
        &mut mu2,
        &mut mu_v,
        &mut mu_r,
        &mut beta_v,
        &mut beta_r,
    ] {
        quorate_paillier::bigint::wipe_integer(x);
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
            w1,
            w2,
            rp_v,
            rp_r,
            rp_dv,
            rp_dr,
            z_mu_v,
            z_mu_r,
        },
    })
}

/// Input checking: verifies one submission. `index` is its position in the input list
/// (bound into the proof, so a submission cannot be replayed at another position).
pub fn check_input(
    gens: &Generators,
    pk: &PublicKey,
    rp: &RingPedersenParams,
    sid: &SessionId,
    index: u64,
    input: &SenderInput,
) -> Result<(), MixnetError> {
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
    for w in [&p.w1, &p.w2] {
        if !quorate_paillier::bigint::is_unit_in_range(w, pk.n()) {
            return Err(bad("link proof nonce response is not a unit"));
        }
    }
    let e = challenge(
        sid,
        index,
        gens,
        pk,
        &input.c,
        &input.c_prime,
        &input.gamma,
        &p.a1,
        &p.a2,
        &p.big_gamma,
        rp,
        [&p.rp_v, &p.rp_r, &p.rp_dv, &p.rp_dr],
    );
    let rp_ok = rp
        .recompute_vartime(&p.z_v, &p.z_mu_v, &p.rp_v, &e)
        .as_ref()
        == Some(&p.rp_dv)
        && rp
            .recompute_vartime(&p.z_r, &p.z_mu_r, &p.rp_r, &e)
            .as_ref()
            == Some(&p.rp_dr);
    if !rp_ok {
        return Err(bad("link proof: ring-Pedersen equation"));
    }
    let n2 = pk.n_squared();
    let lhs1 = enc_raw(pk, &p.z_v, &p.w1)?;
    let rhs1 = mul_mod(
        p.a1.as_integer(),
        &pow_mod_vartime(input.c.as_integer(), &e, n2)?,
        n2,
    );
    let lhs2 = enc_raw(pk, &p.z_r, &p.w2)?;
    let rhs2 = mul_mod(
        p.a2.as_integer(),
        &pow_mod_vartime(input.c_prime.as_integer(), &e, n2)?,
        n2,
    );
    if lhs1 != rhs1 || lhs2 != rhs2 {
        return Err(bad("link proof: Paillier equation"));
    }
    let q = crate::params::scalar_modulus();
    let es = int_to_scalar(&e, &q);
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
