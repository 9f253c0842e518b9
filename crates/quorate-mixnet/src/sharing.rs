//! Preprocessing: turn every accepted sender's threshold-Paillier ciphertexts `c = Enc(v)`,
//! `c′ = Enc(r)` into additive shares `v = Σ_k v_k`, `r = Σ_k r_k (mod q)` held by the
//! mix-servers, with public per-server commitments `V_k = g^{v_k} h^{r_k}`, `Π_k V_k = γ`.
//!
//! This plays the role of the artifact's per-mixer sender shares (Enc in Fig. 6 of the
//! paper, where each sender encrypts `v_k, r_k` to mixer `k`), but needs nothing from the
//! sender beyond `c, c′, γ` and its linking proof, and it is publicly verifiable. It runs once
//! per input, at input-checking time, so that every later DB-SM query (and BTraceIn /
//! BTraceOut) uses group operations only.
//!
//! # Protocol (per input, `K` = [`SLOT_BITS`])
//! 1. Server `k` picks integer masks `a_k, a′_k` of `|q| + 40` bits and publishes
//!    `E_k = Enc_N(a_k + 2^K a′_k)`, `A_k = g^{a_k} h^{a′_k}` and a proof that both hold the
//!    same integers ([`ShareLinkProof`]: Σ-protocol with ring-Pedersen commitments, so the
//!    extracted `a_k, a′_k` are integers below `2^{|q|+40+128+40+1}`).
//! 2. The servers threshold-decrypt `D = c · c′^{2^K} · Π_k E_k · Enc(o + 2^K o)` (one
//!    batched proof per server over all its shares, `quorate_paillier::batch`) to `d = (v + Σa_k + o) + 2^K (r + Σa′_k + o)` with the public offset
//!    `o = 2^{K−1}` ([`slot_offset`]). The proofs bound the extracted masks only in absolute
//!    value (`|a_k| < 2^{PROOF_MASK_BITS+1}`, negative masks pass) and the sender's proof
//!    bounds `|v|, |r| < 2^{`[`crate::sender::MASK_BITS`]`+1}`; with `m < 2^16` servers
//!    `|v + Σa_k| < 2^{K−1} = o`, so both slots stay in `[0, 2^K)` and never borrow or carry
//!    (issue 13; before the offset a negative mask made the conversion abort naming nobody).
//!    `d_v, d_r` are the slots minus `o`.
//! 3. Shares: `v_1 = d_v − a_1`, `v_k = −a_k` (k > 1), likewise for `r`; commitments
//!    `V_1 = g^{d_v} h^{d_r} A_1^{−1}`, `V_k = A_k^{−1}`, computable by anyone. `d_v, d_r`
//!    hide `v, r` statistically (40 bits) as long as one server is honest.
//!
//! # Per-value layout (DB-RSM steps 6–7)
//! [`Layout::PerValue`] converts any list of packed ciphertexts `Enc(v + 2^K r)` (the
//! shuffled DB-RSM witness list, [`crate::reverse_membership::witness_track`]) the same way, but commits to each
//! value separately and hidingly: `A_k = g^{a_k} h^{σ_k}`, `A′_k = g^{a′_k} h^{σ′_k}` with
//! fresh `σ, σ′`; the link proof gains Schnorr responses `z_σ = ζ + cσ`, `z_σ′` (checked as
//! `g^{s_a} h^{z_σ} = A″ · A_k^{c}`, likewise for `A′_k`) and its own protocol name. Shares
//! `v_k, r_k` as above, Pedersen randomness `−σ_k`, `−σ′_k`, commitments `C_k = A_k^{−1}`,
//! `R_k = A′_k^{−1}` (times `g^{d_v}`, `g^{d_r}` for the first server) — see
//! [`verify_value_sharing`]. There is no `γ` to check the product against; correctness
//! comes from the verified decryption of `D_j` and the mask proofs.

use crate::djn::{self, DjnTables};
use crate::error::{blame, MixnetError};
use crate::mix::MixRecord;
use crate::packing;
use crate::params::{int_to_scalar, scalar_modulus, BATCH_BITS, CHALLENGE_BITS};
use crate::sender::SenderInput;
use crate::setup::{MixServer, MixnetPublic};
use crate::timing::StepTimes;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use merlin::Transcript;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{Blame, ParamError, PartyId};
use quorate_paillier::bigint::{
    eq_up_to_order_two, is_unit_in_range, mul_mod, multi_pow_vartime, pow_mod_vartime, random_bits,
    to_be_bytes_padded, wipe_integer, SecretInteger,
};
use quorate_paillier::rug::integer::Order;
use quorate_paillier::rug::Integer;
use quorate_paillier::{BatchDecryptionShares, Ciphertext, PublicKey};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;
use std::time::Instant;

pub use crate::params::{A_BITS, PROOF_MASK_BITS};
/// Slot width of the packed plaintexts: `v + Σa_k` for `m < 2^16` masks of the largest size
/// a proof admits (either sign) and a sender's value within its proof's slack, plus the
/// offset [`slot_offset`], stays in `[0, 2^K)`.
pub const SLOT_BITS: u32 = PROOF_MASK_BITS + 1 + 18;

/// The public per-slot offset `o = 2^{K−1}` added before the packed decryption.
pub fn slot_offset() -> Integer {
    Integer::from(1) << (SLOT_BITS - 1)
}

/// The offset of one packed input (two slots): `o + 2^K o`.
fn input_offset() -> Integer {
    slot_offset() + (slot_offset() << SLOT_BITS)
}
/// Bits per input in the packed decryption (two slots: `v + Σa`, `r + Σa′`).
pub const INPUT_BITS: u32 = 2 * SLOT_BITS;

/// Proof that `E_k` and `A_k` hold the same `(a, a′)`, in commitment form: the first
/// messages travel instead of the challenge `c` (recomputed by hashing them), so a checker
/// can verify all of a record's proofs with one random linear combination
/// ([`verify_value_sharing`], issue 17).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareLinkProof {
    /// `E′ = Enc_N(α + 2^K α′)` with randomness `h_N^β`.
    pub e1: Ciphertext,
    /// `A″ = g^α h^{α′}` ([`Layout::Joint`]) or `g^α h^ζ` ([`Layout::PerValue`]).
    pub a1: G1Projective,
    /// [`Layout::PerValue`] only: `A‴ = g^{α′} h^{ζ′}`.
    pub a1_b: Option<G1Projective>,
    /// `D_a = s^α t^{γ_a} mod Ñ`, the ring-Pedersen first message for `a`.
    pub d_a: Integer,
    /// `D_a′ = s^{α′} t^{γ_b} mod Ñ`.
    pub d_b: Integer,
    /// `s_a = α + c a`.
    pub s_a: Integer,
    /// `s_a′ = α′ + c a′`.
    pub s_b: Integer,
    /// `z_α = β + c·α` over the integers: the response for `E_k`'s fixed-base randomness
    /// `h_N^α` ([`crate::djn`]).
    pub z_alpha: Integer,
    /// Ring-Pedersen commitment to `a`.
    pub rp_a: Integer,
    /// Ring-Pedersen commitment to `a′`.
    pub rp_b: Integer,
    /// `z_{μa}`.
    pub z_mu_a: Integer,
    /// `z_{μa′}`.
    pub z_mu_b: Integer,
    /// [`Layout::PerValue`] only: `z_σ = ζ + cσ`, `z_σ′ = ζ′ + cσ′ (mod q)`, the responses for
    /// the Pedersen randomness of `A_k`, `A′_k`.
    pub z_sigma: Option<[Scalar; 2]>,
}

/// How the servers' shares are committed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One joint commitment `V_k = g^{v_k} h^{r_k}` per server and input, checked against
    /// the sender's `γ` (the Enc-to-shares preprocessing of DB-SM).
    Joint,
    /// A hiding Pedersen commitment per value: `C_k = g^{v_k} h^{s_k}`, `R_k = g^{r_k}
    /// h^{s′_k}` (DB-RSM steps 6–7, where `Σ_k C_k` must not reveal the public `c_{π(j)}`).
    PerValue,
}

/// One server's mask commitment for one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareCommit {
    /// `E_k = Enc_N(a + 2^K a′)`.
    pub e_k: Ciphertext,
    /// `A_k = g^a h^{a′}` ([`Layout::Joint`]) or `A_k = g^a h^{σ}` ([`Layout::PerValue`]).
    pub a_k: G1Projective,
    /// [`Layout::PerValue`] only: `A′_k = g^{a′} h^{σ′}`.
    pub a2_k: Option<G1Projective>,
    /// The link proof.
    pub proof: ShareLinkProof,
}

/// One server's round-1 message (one commit per accepted input, in input order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareCommitStage {
    /// The server.
    pub mixer: PartyId,
    /// Per input.
    pub commits: Vec<ShareCommit>,
}

/// One server's decryption shares of the packed `D_i` (one per packed group, with one
/// batched proof, [`quorate_paillier::batch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareDecStage {
    /// The server.
    pub mixer: PartyId,
    /// Per packed group, with the batched proof.
    pub shares: BatchDecryptionShares,
}

/// The published record of the conversion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharingRecord {
    /// Round 1.
    pub commits: Vec<ShareCommitStage>,
    /// Round 2.
    pub decryptions: Vec<ShareDecStage>,
}

/// A server's additive shares `(v_{i,k}, r_{i,k})` of every input (wiped on drop).
pub struct MixerShares {
    /// The server.
    pub mixer: PartyId,
    pub(crate) v: Vec<Scalar>,
    pub(crate) r: Vec<Scalar>,
    /// [`Layout::PerValue`] only: the Pedersen randomness `s_k`, `s′_k` (empty otherwise).
    pub(crate) s: Vec<[Scalar; 2]>,
}

impl MixerShares {
    /// [`Layout::PerValue`]: the shares `(v_k, r_k)` of element `j` and their Pedersen
    /// randomness `(s_k, s′_k)`, opening this server's [`ValueCommitments`].
    pub fn value_shares(&self, j: usize) -> Option<([Scalar; 2], [Scalar; 2])> {
        Some(([*self.v.get(j)?, *self.r.get(j)?], *self.s.get(j)?))
    }
}

impl Drop for MixerShares {
    fn drop(&mut self) {
        self.v
            .iter_mut()
            .chain(self.r.iter_mut())
            .chain(self.s.iter_mut().flatten())
            .for_each(|x| *x = Scalar::ZERO);
    }
}

/// One server's per-value commitments for one element ([`Layout::PerValue`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueCommitments {
    /// `C_k = g^{v_k} h^{s_k}`.
    pub v: G1Projective,
    /// `R_k = g^{r_k} h^{s′_k}`.
    pub r: G1Projective,
}

impl core::fmt::Debug for MixerShares {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "MixerShares({}, <redacted>)", self.mixer)
    }
}

fn ct_bytes(pk: &PublicKey, c: &Integer) -> Vec<u8> {
    to_be_bytes_padded(c, pk.ciphertext_len()).unwrap_or_default()
}

#[allow(clippy::too_many_arguments)]
fn link_challenge(
    public: &MixnetPublic,
    sid: &SessionId,
    layout: Layout,
    who: PartyId,
    index: usize,
    h_n: &Integer,
    e_k: &Ciphertext,
    a_k: &[G1Projective],
    e1: &Integer,
    a1: &[G1Projective],
    rp: [&Integer; 4],
) -> Integer {
    let pk = public.paillier.encryption_key();
    let proto: &'static [u8] = match layout {
        Layout::Joint => b"quorate/mixnet/enc-to-shares",
        Layout::PerValue => b"quorate/mixnet/enc-to-shares-per-value",
    };
    let mut t = Transcript::for_protocol(proto, 2, sid);
    t.append_party(b"server", who);
    t.append_u64_be(b"input", index as u64);
    t.append_message(b"N", &pk.to_bytes());
    t.append_message(b"h_N", &ct_bytes(pk, h_n));
    t.append_point(b"g", &public.gens.g);
    t.append_point(b"h", &public.gens.h);
    public.ring_pedersen.append_to(&mut t);
    t.append_message(b"E_k", &ct_bytes(pk, e_k.as_integer()));
    t.append_points(b"A_k", a_k);
    t.append_message(b"E'", &ct_bytes(pk, e1));
    t.append_points(b"A'", a1);
    for x in rp {
        t.append_message(b"rp", &public.ring_pedersen.element_bytes(x));
    }
    let mut c = [0u8; (CHALLENGE_BITS / 8) as usize];
    t.challenge_bytes(b"c", &mut c);
    Integer::from_digits(&c, Order::Msf)
}

/// One link proof that passed the cheap checks (ranges, units, layout shape), with its
/// recomputed challenge.
struct LinkCandidate<'a> {
    com: &'a ShareCommit,
    c: Integer,
}

/// Ranges, units, the layout's shape and the challenge of one link proof (no
/// exponentiation but the hash); `None` if any fails.
fn link_precheck<'a>(
    public: &MixnetPublic,
    tables: &DjnTables,
    layout: Layout,
    who: PartyId,
    index: usize,
    com: &'a ShareCommit,
) -> Option<LinkCandidate<'a>> {
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let p = &com.proof;
    if [&p.s_a, &p.s_b]
        .iter()
        .any(|z| **z < 0 || z.significant_bits() > PROOF_MASK_BITS + 1)
    {
        return None;
    }
    if p.z_alpha < 0 || p.z_alpha.significant_bits() > djn::response_bits(pk) {
        return None;
    }
    if [&p.z_mu_a, &p.z_mu_b]
        .iter()
        .any(|z| **z < 0 || z.significant_bits() > rp.mu_mask_bits() + 1)
    {
        return None;
    }
    // Re-validate the ciphertexts (the fields are public and may have been built unchecked).
    for c in [&com.e_k, &p.e1] {
        pk.ciphertext_from_integer(c.as_integer().clone()).ok()?;
    }
    if [&p.rp_a, &p.rp_b, &p.d_a, &p.d_b]
        .iter()
        .any(|x| !is_unit_in_range(x, &rp.n_hat))
    {
        return None;
    }
    let (a_k, a1) = match (layout, com.a2_k, p.a1_b, p.z_sigma) {
        (Layout::Joint, None, None, None) => (vec![com.a_k], vec![p.a1]),
        (Layout::PerValue, Some(a2), Some(a1_b), Some(_)) => (vec![com.a_k, a2], vec![p.a1, a1_b]),
        _ => return None,
    };
    let c = link_challenge(
        public,
        &public.sid,
        layout,
        who,
        index,
        tables.h_n(),
        &com.e_k,
        &a_k,
        p.e1.as_integer(),
        &a1,
        [&p.rp_a, &p.rp_b, &p.d_a, &p.d_b],
    );
    Some(LinkCandidate { com, c })
}

/// The G1 equations of one proof as `(weight-free)` MSM terms that must sum to the
/// identity: `g^{s_a} h^{s_a′} = A″ A_k^c` ([`Layout::Joint`]) or `g^{s_a} h^{z_σ} = A″
/// A_k^c` and `g^{s_a′} h^{z_σ′} = A‴ A′_k^c` ([`Layout::PerValue`]); each entry is
/// `(g-scalar, h-scalar, [(point, scalar)])`.
type G1Equation = (Scalar, Scalar, [(G1Projective, Scalar); 2]);

fn g1_equations(cand: &LinkCandidate<'_>) -> Vec<G1Equation> {
    let qm = scalar_modulus();
    let (com, p) = (cand.com, &cand.com.proof);
    let (s_a, s_b, c) = (
        int_to_scalar(&p.s_a, &qm),
        int_to_scalar(&p.s_b, &qm),
        int_to_scalar(&cand.c, &qm),
    );
    match (com.a2_k, p.a1_b, p.z_sigma) {
        (Some(a2), Some(a1_b), Some(z)) => vec![
            (s_a, z[0], [(p.a1, -Scalar::ONE), (com.a_k, -c)]),
            (s_b, z[1], [(a1_b, -Scalar::ONE), (a2, -c)]),
        ],
        _ => vec![(s_a, s_b, [(p.a1, -Scalar::ONE), (com.a_k, -c)])],
    }
}

/// The equations of one link proof, one by one (the reference check, and the fallback of
/// [`verify_links`] that names the culprits): `(1 + N)^{s_a + 2^K s_a′} h_N^{z_α} = E′·E_k^c`
/// (mod `N²`) and `s^{s} t^{z_μ} = D·S^c` (mod `Ñ`) for `a` and `a′`, each up to a factor of
/// order ≤ 2, and the G1 equations exactly.
fn check_link_equations(
    public: &MixnetPublic,
    tables: &DjnTables,
    cand: &LinkCandidate<'_>,
) -> bool {
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let (com, p, c) = (cand.com, &cand.com.proof, &cand.c);
    let g1_ok = g1_equations(cand).iter().all(|(sg, sh, terms)| {
        let (g, h) = (public.gens.g, public.gens.h);
        let check = g1_msm_vartime(
            &[g, h, terms[0].0, terms[1].0],
            &[*sg, *sh, terms[0].1, terms[1].1],
        );
        bool::from(check.is_identity())
    });
    if !g1_ok {
        return false;
    }
    let n2 = pk.n_squared();
    let packed = &p.s_a + Integer::from(&p.s_b << SLOT_BITS);
    let paillier_ok = (|| {
        let lhs = mul_mod(
            &djn::g_pow(pk, &packed),
            &tables.pow_public_vartime(&p.z_alpha).ok()?,
            n2,
        );
        let rhs = mul_mod(
            p.e1.as_integer(),
            &pow_mod_vartime(com.e_k.as_integer(), c, n2).ok()?,
            n2,
        );
        Some(eq_up_to_order_two(&lhs, &rhs, n2))
    })();
    if paillier_ok != Some(true) {
        return false;
    }
    let rpt = public.ring_pedersen_tables().ok().flatten();
    [
        (&p.s_a, &p.z_mu_a, &p.rp_a, &p.d_a),
        (&p.s_b, &p.z_mu_b, &p.rp_b, &p.d_b),
    ]
    .iter()
    .all(|(z, z_mu, s, d)| {
        match rpt {
            Some(t) => t.recompute_vartime(z, z_mu, s, c),
            None => rp.recompute_vartime(z, z_mu, s, c),
        }
        .is_some_and(|x| eq_up_to_order_two(&x, d, &rp.n_hat))
    })
}

/// All link proofs at once with independent 128-bit weights `ρ` from `rng`
/// (transcript-independent: no server can predict them): one G1 multi-scalar
/// multiplication over every G1 equation, one multi-exponentiation mod `N²` for
/// `[(1 + N)^{Σρ(s_a + 2^K s_a′)} h_N^{Σρz_α}]² = [Π (E′ E_k^c)^ρ]²` and one mod `Ñ` for
/// `[s^{Σρs} t^{Σρz_μ}]² = [Π (D S^c)^ρ]²` over both ring-Pedersen equations of every proof.
/// `Ok(true)` iff all three hold; the same small-exponent argument as
/// [`crate::sender::check_inputs`] (the squared errors lie in subgroups without prime
/// factors below `2^{128}`; G1 has prime order) makes a false proof pass with probability
/// at most `2^{−128}` per equation.
///
/// **Relies on the dealer's safe primes.** That bound holds because `N` and `Ñ` are
/// products of safe primes from the trusted dealer ([`crate::setup::keygen`],
/// [`crate::ring_pedersen::RingPedersenParams::from_safe_primes`]): then the squares mod
/// `N²` form a group of order `N·p′q′` and the squares mod `Ñ` one of order `p̃′q̃′`, with
/// no element of order below `2^{128}` except 1. Nobody re-checks the shape of `N` or `Ñ`
/// (that needs the factorisation, or a proof the dealer does not give): with other moduli
/// an error of small order `r` (`r | p − 1`, say) would pass the weighted product with
/// probability `1/r`, and the one-by-one equations, which would catch it, only run when
/// the batch fails. A dealer-free setup must add proofs that `N` and `Ñ` are products of
/// safe primes (or at least have no small factors in `φ`) before it can keep this batch.
/// The same holds for the senders' batch ([`crate::sender::check_inputs`]) and the batched
/// decryption proofs (`quorate_paillier::batch`).
fn batch_links<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    tables: &DjnTables,
    cands: &[LinkCandidate<'_>],
    rng: &mut R,
) -> Result<bool, MixnetError> {
    let pk = public.paillier.encryption_key();
    let rp = &public.ring_pedersen;
    let qm = scalar_modulus();
    let n2 = pk.n_squared();
    let k = cands.len();
    let mut w = || random_bits(rng, BATCH_BITS);
    // Per proof: one weight for the Paillier equation, two for the ring-Pedersen ones, two
    // for the G1 ones (the second only in the per-value layout).
    let weights: Vec<[Integer; 5]> = (0..k).map(|_| [w(), w(), w(), w(), w()]).collect();
    // G1.
    let mut points = Vec::with_capacity(4 * k + 2);
    let mut scalars = Vec::with_capacity(4 * k + 2);
    let (mut sg, mut sh) = (Scalar::ZERO, Scalar::ZERO);
    for (cand, ws) in cands.iter().zip(&weights) {
        for ((eg, eh, terms), rho) in g1_equations(cand).iter().zip(&ws[3..]) {
            let r = int_to_scalar(rho, &qm);
            sg += r * eg;
            sh += r * eh;
            for (pt, sc) in terms {
                points.push(*pt);
                scalars.push(r * sc);
            }
        }
    }
    points.extend([public.gens.g, public.gens.h]);
    scalars.extend([sg, sh]);
    if !bool::from(g1_msm_vartime(&points, &scalars).is_identity()) {
        return Ok(false);
    }
    // Paillier.
    let mut bases = Vec::with_capacity(4 * k);
    let mut exps = Vec::with_capacity(4 * k);
    let (mut zm, mut za) = (Integer::new(), Integer::new());
    for (cand, ws) in cands.iter().zip(&weights) {
        let p = &cand.com.proof;
        let rho = &ws[0];
        zm += Integer::from(rho * &(&p.s_a + Integer::from(&p.s_b << SLOT_BITS)));
        za += Integer::from(rho * &p.z_alpha);
        bases.push(p.e1.as_integer().clone());
        exps.push(rho.clone());
        bases.push(cand.com.e_k.as_integer().clone());
        exps.push(Integer::from(rho * &cand.c));
    }
    let lhs = mul_mod(
        &djn::g_pow(pk, &zm),
        &tables.pow_public_any_vartime(&za)?,
        n2,
    );
    let rhs = multi_pow_vartime(&bases, &exps, n2)?;
    if !eq_up_to_order_two(&lhs, &rhs, n2) {
        return Ok(false);
    }
    // Ring-Pedersen.
    bases.clear();
    exps.clear();
    let (mut zs, mut zt) = (Integer::new(), Integer::new());
    for (cand, ws) in cands.iter().zip(&weights) {
        let p = &cand.com.proof;
        for (rho, z, z_mu, s, d) in [
            (&ws[1], &p.s_a, &p.z_mu_a, &p.rp_a, &p.d_a),
            (&ws[2], &p.s_b, &p.z_mu_b, &p.rp_b, &p.d_b),
        ] {
            zs += Integer::from(rho * z);
            zt += Integer::from(rho * z_mu);
            bases.push(d.clone());
            exps.push(rho.clone());
            bases.push(s.clone());
            exps.push(Integer::from(rho * &cand.c));
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

/// Checks every server's link proofs of a record: the cheap checks per proof, then one
/// batch ([`batch_links`]) over all proofs that passed them; only if the batch fails, each
/// proof on its own ([`check_link_equations`]), to name exactly the failing servers.
/// Returns the culprits (empty if every proof holds).
fn verify_links(
    public: &MixnetPublic,
    tables: &DjnTables,
    layout: Layout,
    n: usize,
    stages: &[ShareCommitStage],
) -> Vec<PartyId> {
    verify_links_mode(public, tables, layout, n, stages, true)
}

/// [`verify_links`], or with `batched = false` every proof on its own (the fallback alone,
/// for the A/B of `crate::faults::check_share_links`).
pub(crate) fn verify_links_mode(
    public: &MixnetPublic,
    tables: &DjnTables,
    layout: Layout,
    n: usize,
    stages: &[ShareCommitStage],
    batched: bool,
) -> Vec<PartyId> {
    let mut culprits = Vec::new();
    let mut cands: Vec<(PartyId, LinkCandidate<'_>)> = Vec::new();
    for (k, st) in public.params.parties().zip(stages) {
        let pre: Option<Vec<LinkCandidate<'_>>> = (st.mixer == k && st.commits.len() == n)
            .then(|| {
                st.commits
                    .par_iter()
                    .enumerate()
                    .map(|(i, c)| link_precheck(public, tables, layout, k, i, c))
                    .collect()
            })
            .flatten();
        match pre {
            Some(v) => cands.extend(v.into_iter().map(|c| (k, c))),
            None => culprits.push(k),
        }
    }
    let only: Vec<LinkCandidate<'_>> = cands
        .iter()
        .map(|(_, c)| LinkCandidate {
            com: c.com,
            c: c.c.clone(),
        })
        .collect();
    if only.is_empty()
        || (batched && batch_links(public, tables, &only, &mut OsRng).unwrap_or(false))
    {
        return culprits;
    }
    let failed: Vec<PartyId> = cands
        .par_iter()
        .filter(|(_, c)| !check_link_equations(public, tables, c))
        .map(|(k, _)| *k)
        .collect();
    culprits.extend(failed);
    culprits.sort_unstable();
    culprits.dedup();
    culprits
}

impl MixServer {
    /// Round 1 for `count` inputs: mask commitments with their proofs, and the masks (with
    /// the Pedersen randomness `σ, σ′` of [`Layout::PerValue`], zero for [`Layout::Joint`]).
    fn share_commit<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        layout: Layout,
        count: usize,
        fault: Option<&MaskFault>,
        rng: &mut R,
    ) -> Result<(ShareCommitStage, Vec<Mask>), MixnetError> {
        let pk = public.paillier.encryption_key();
        let rp = &public.ring_pedersen;
        let rpt = public.ring_pedersen_tables()?;
        let tables = public.djn()?;
        let qm = scalar_modulus();
        struct Draw {
            a: Integer,
            b: Integer,
            alpha: SecretInteger,
            al: Integer,
            be: Integer,
            beta: SecretInteger,
            m_a: Integer,
            m_b: Integer,
            g_a: Integer,
            g_b: Integer,
            sigma: [Scalar; 2],
            zeta: [Scalar; 2],
        }
        let mut draws = Vec::with_capacity(count);
        for i in 0..count {
            let a = match fault {
                Some(f) if f.server == self.id && f.input == i => f.a.clone(),
                _ => random_bits(rng, A_BITS),
            };
            draws.push(Draw {
                a,
                b: random_bits(rng, A_BITS),
                alpha: tables.random_alpha(rng),
                al: random_bits(rng, PROOF_MASK_BITS),
                be: random_bits(rng, PROOF_MASK_BITS),
                beta: SecretInteger::new(random_bits(rng, djn::mask_bits(pk))),
                m_a: rp.random_mu(rng),
                m_b: rp.random_mu(rng),
                g_a: rp.random_mu_mask(rng),
                g_b: rp.random_mu_mask(rng),
                sigma: [(); 2].map(|_| Scalar::random(&mut *rng)),
                zeta: [(); 2].map(|_| Scalar::random(&mut *rng)),
            });
        }
        let commits = draws
            .par_iter_mut()
            .enumerate()
            .map(|(i, d)| {
                let n2 = pk.n_squared();
                let e_k = pk.ciphertext_from_integer(mul_mod(
                    &djn::g_pow(pk, &(&d.a + Integer::from(&d.b << SLOT_BITS))),
                    &tables.pow_randomness(&d.alpha)?,
                    n2,
                ))?;
                let (g, h) = (public.gens.g, public.gens.h);
                let (sa, sb) = (int_to_scalar(&d.a, &qm), int_to_scalar(&d.b, &qm));
                let (sal, sbe) = (int_to_scalar(&d.al, &qm), int_to_scalar(&d.be, &qm));
                let e1 = mul_mod(
                    &djn::g_pow(pk, &(&d.al + Integer::from(&d.be << SLOT_BITS))),
                    &tables.pow_secret(&d.beta)?,
                    n2,
                );
                let (a_k, a1) = match layout {
                    Layout::Joint => (vec![g * sa + h * sb], vec![g * sal + h * sbe]),
                    Layout::PerValue => (
                        vec![g * sa + h * d.sigma[0], g * sb + h * d.sigma[1]],
                        vec![g * sal + h * d.zeta[0], g * sbe + h * d.zeta[1]],
                    ),
                };
                // Public bounds: the masks' and their proof masks' drawn lengths.
                let commit = |x: &Integer, x_bits: u32, mu: &Integer, mu_bits: u32| match rpt {
                    Some(t) => t.commit_bits(x, x_bits, mu, mu_bits),
                    None => rp.commit(x, mu),
                };
                let rp_a = commit(&d.a, A_BITS, &d.m_a, rp.mu_bits())?;
                let rp_b = commit(&d.b, A_BITS, &d.m_b, rp.mu_bits())?;
                let d_a = commit(&d.al, PROOF_MASK_BITS, &d.g_a, rp.mu_mask_bits())?;
                let d_b = commit(&d.be, PROOF_MASK_BITS, &d.g_b, rp.mu_mask_bits())?;
                let c = link_challenge(
                    public,
                    &public.sid,
                    layout,
                    self.id,
                    i,
                    tables.h_n(),
                    &e_k,
                    &a_k,
                    &e1,
                    &a1,
                    [&rp_a, &rp_b, &d_a, &d_b],
                );
                let e1 = pk.ciphertext_from_integer(e1)?;
                let cs = int_to_scalar(&c, &qm);
                let z_sigma = match layout {
                    Layout::Joint => None,
                    Layout::PerValue => Some([0, 1].map(|t| d.zeta[t] + cs * d.sigma[t])),
                };
                d.zeta = [Scalar::ZERO; 2];
                let proof = ShareLinkProof {
                    s_a: Integer::from(&c * &d.a) + &d.al,
                    s_b: Integer::from(&c * &d.b) + &d.be,
                    z_alpha: Integer::from(&c * d.alpha.expose()) + d.beta.expose(),
                    z_mu_a: Integer::from(&c * &d.m_a) + &d.g_a,
                    z_mu_b: Integer::from(&c * &d.m_b) + &d.g_b,
                    rp_a,
                    rp_b,
                    e1,
                    a1: a1[0],
                    a1_b: a1.get(1).copied(),
                    d_a,
                    d_b,
                    z_sigma,
                };
                for x in [
                    &mut d.al, &mut d.be, &mut d.m_a, &mut d.m_b, &mut d.g_a, &mut d.g_b,
                ] {
                    wipe_integer(x);
                }
                Ok(ShareCommit {
                    e_k,
                    a_k: a_k[0],
                    a2_k: a_k.get(1).copied(),
                    proof,
                })
            })
            .collect::<Result<Vec<_>, MixnetError>>()?;
        let masks = draws
            .iter_mut()
            .map(|d| {
                let sigma = match layout {
                    Layout::Joint => [Scalar::ZERO; 2],
                    Layout::PerValue => d.sigma,
                };
                d.sigma = [Scalar::ZERO; 2];
                Mask {
                    a: core::mem::take(&mut d.a),
                    b: core::mem::take(&mut d.b),
                    sigma,
                }
            })
            .collect();
        Ok((
            ShareCommitStage {
                mixer: self.id,
                commits,
            },
            masks,
        ))
    }
}

/// A test fault: `server` uses the integer `a` (any sign or size) as its mask `a_k` for
/// input `input` and proves it honestly (`crate::faults`).
pub(crate) struct MaskFault {
    pub(crate) server: PartyId,
    pub(crate) input: usize,
    pub(crate) a: Integer,
}

/// A server's masks for one element (wiped by the caller).
pub(crate) struct Mask {
    a: Integer,
    b: Integer,
    sigma: [Scalar; 2],
}

impl Drop for Mask {
    fn drop(&mut self) {
        wipe_integer(&mut self.a);
        wipe_integer(&mut self.b);
        self.sigma = [Scalar::ZERO; 2];
    }
}

/// The senders' packed ciphertexts `c_i · c′_i^{2^K} = Enc(v_i + 2^K r_i)`.
fn input_bases(
    public: &MixnetPublic,
    inputs: &[&SenderInput],
) -> Result<Vec<Ciphertext>, MixnetError> {
    let pk = public.paillier.encryption_key();
    let n2 = pk.n_squared();
    let shift = Integer::from(1) << SLOT_BITS;
    inputs
        .par_iter()
        .map(|inp| {
            let acc = mul_mod(
                inp.c.as_integer(),
                &pow_mod_vartime(inp.c_prime.as_integer(), &shift, n2)?,
                n2,
            );
            Ok(pk.ciphertext_from_integer(acc)?)
        })
        .collect()
}

/// The packed ciphertexts `D_i = B_i · Π_k E_{k,i}` (`B_i = Enc(v_i + 2^K r_i)`).
fn packed_cts(
    public: &MixnetPublic,
    bases: &[Ciphertext],
    commits: &[ShareCommitStage],
) -> Result<Vec<Ciphertext>, MixnetError> {
    let pk = public.paillier.encryption_key();
    let n2 = pk.n_squared();
    bases
        .par_iter()
        .enumerate()
        .map(|(i, b)| {
            let mut acc = b.as_integer().clone();
            for st in commits {
                let e = st
                    .commits
                    .get(i)
                    .ok_or(ParamError::Invalid("missing share commitment"))?;
                acc = mul_mod(&acc, e.e_k.as_integer(), n2);
            }
            Ok(pk.ciphertext_from_integer(acc)?)
        })
        .collect()
}

pub(crate) fn accepted_inputs<'a>(
    submissions: &'a [SenderInput],
    record: &MixRecord,
) -> Result<Vec<&'a SenderInput>, MixnetError> {
    record
        .accepted
        .iter()
        .map(|&a| {
            submissions
                .get(a)
                .ok_or_else(|| ParamError::Invalid("missing submission").into())
        })
        .collect()
}

/// `(d_v, d_r)`: the two slots of one decrypted input, each minus [`slot_offset`].
fn split(d: &Integer) -> Option<(Integer, Integer)> {
    if *d < 0 || d.significant_bits() > 2 * SLOT_BITS {
        return None;
    }
    let hi = Integer::from(d >> SLOT_BITS);
    let lo = d - Integer::from(&hi << SLOT_BITS);
    let o = slot_offset();
    Some((lo - &o, hi - o))
}

/// Verifies a sharing record and returns the public share commitments `V[i][k]` (input `i`,
/// server position `k`). Every failing server is named.
pub fn verify_sharing(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    sharing: &SharingRecord,
) -> Result<Vec<Vec<G1Projective>>, MixnetError> {
    let inputs = accepted_inputs(submissions, record)?;
    let bases = input_bases(public, &inputs)?;
    let parts = verify_inner(public, Layout::Joint, &bases, sharing)?;
    joint_commitments(public, &inputs, sharing, &parts)
}

fn joint_commitments(
    public: &MixnetPublic,
    inputs: &[&SenderInput],
    sharing: &SharingRecord,
    parts: &[(Integer, Integer)],
) -> Result<Vec<Vec<G1Projective>>, MixnetError> {
    let qm = scalar_modulus();
    parts
        .par_iter()
        .enumerate()
        .map(|(i, (dv, dr))| {
            let mut v: Vec<G1Projective> = sharing
                .commits
                .iter()
                .map(|st| -st.commits[i].a_k)
                .collect();
            if let Some(first) = v.first_mut() {
                *first +=
                    public.gens.g * int_to_scalar(dv, &qm) + public.gens.h * int_to_scalar(dr, &qm);
            }
            let prod: G1Projective = v.iter().sum();
            if prod != inputs[i].gamma {
                return Err(MixnetError::ProofRejected(
                    "share commitments do not multiply to gamma",
                ));
            }
            Ok(v)
        })
        .collect()
}

/// [`Layout::PerValue`]: verifies a conversion of the packed ciphertexts `bases[j] =
/// Enc(v_j + 2^K r_j)` and returns the per-value commitments `[j][k]` (element `j`, server
/// position `k`): `C_1 = g^{d_v} A_1^{−1}`, `C_k = A_k^{−1}`, `R_1 = g^{d_r} A′_1^{−1}`,
/// `R_k = A′_k^{−1}`, so `Σ_k C_k = g^{v_j} h^{−Σσ}` and `Σ_k R_k = g^{r_j} h^{−Σσ′}`.
/// Every failing server is named.
pub fn verify_value_sharing(
    public: &MixnetPublic,
    bases: &[Ciphertext],
    sharing: &SharingRecord,
) -> Result<Vec<Vec<ValueCommitments>>, MixnetError> {
    let parts = verify_inner(public, Layout::PerValue, bases, sharing)?;
    Ok(value_commitments(public, sharing, &parts))
}

/// The per-value commitments from a verified record and its decrypted `(d_v, d_r)`.
fn value_commitments(
    public: &MixnetPublic,
    sharing: &SharingRecord,
    parts: &[(Integer, Integer)],
) -> Vec<Vec<ValueCommitments>> {
    let qm = scalar_modulus();
    parts
        .par_iter()
        .enumerate()
        .map(|(j, (dv, dr))| {
            sharing
                .commits
                .iter()
                .enumerate()
                .map(|(pos, st)| {
                    let c = &st.commits[j];
                    let mut out = ValueCommitments {
                        v: -c.a_k,
                        // `verify_link` required `A′_k` in this layout.
                        r: -c.a2_k.unwrap_or(G1Projective::identity()),
                    };
                    if pos == 0 {
                        out.v += public.gens.g * int_to_scalar(dv, &qm);
                        out.r += public.gens.g * int_to_scalar(dr, &qm);
                    }
                    out
                })
                .collect()
        })
        .collect()
}

fn verify_inner(
    public: &MixnetPublic,
    layout: Layout,
    bases: &[Ciphertext],
    sharing: &SharingRecord,
) -> Result<Vec<(Integer, Integer)>, MixnetError> {
    let m = usize::from(public.params.n());
    let n = bases.len();
    if sharing.commits.len() != m || sharing.decryptions.len() != m {
        return Err(ParamError::LengthMismatch {
            what: "sharing stages",
            expected: m,
            got: sharing.commits.len(),
        }
        .into());
    }
    let tables = public.djn()?;
    let culprits = verify_links(public, tables, layout, n, &sharing.commits);
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(Blame::many(
            culprits,
            "Enc-to-shares mask proof",
        )));
    }
    let cts = packed_cts(public, bases, &sharing.commits)?;
    let pk = public.paillier.encryption_key();
    let slots = packing::slots_per_ciphertext(pk, INPUT_BITS);
    let groups = packing::pack(pk, &cts, INPUT_BITS, slots, &input_offset())?;
    for (k, st) in public.params.parties().zip(&sharing.decryptions) {
        if st.mixer != k {
            return Err(blame(st.mixer, "Enc-to-shares decryption stage malformed"));
        }
    }
    let batches: Vec<(PartyId, &BatchDecryptionShares)> = sharing
        .decryptions
        .iter()
        .map(|d| (d.mixer, &d.shares))
        .collect();
    let plain = crate::mix::verify_and_combine_batches(
        public,
        &groups,
        &batches,
        "Enc-to-shares decryption share",
    )?;
    let mut ds = Vec::with_capacity(n);
    for (g, m) in plain.iter().enumerate() {
        let count = (n - g * slots).min(slots);
        // Unreachable once every mask proof passed (see the module notes on the offset).
        ds.extend(
            packing::unpack(m, INPUT_BITS, count).ok_or(MixnetError::ProofRejected(
                "Enc-to-shares plaintext outside its slots",
            ))?,
        );
    }
    ds.iter()
        .map(|d| {
            split(d).ok_or(MixnetError::ProofRejected(
                "Enc-to-shares plaintext outside its slots",
            ))
        })
        .collect()
}

/// Runs the conversion in process for every accepted input of `record`; returns the public
/// record and each server's secret shares (in server order).
pub fn run_sharing<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    rng: &mut R,
) -> Result<(SharingRecord, Vec<MixerShares>), MixnetError> {
    run_sharing_with(public, servers, submissions, record, None, rng)
}

/// [`run_sharing`] with an optional [`MaskFault`].
pub(crate) fn run_sharing_with<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    fault: Option<&MaskFault>,
    rng: &mut R,
) -> Result<(SharingRecord, Vec<MixerShares>), MixnetError> {
    let inputs = accepted_inputs(submissions, record)?;
    let bases = input_bases(public, &inputs)?;
    let (sharing, parts, shares) = run_inner(
        public,
        servers,
        Layout::Joint,
        &bases,
        fault,
        rng,
        &mut StepTimes::default(),
    )?;
    joint_commitments(public, &inputs, &sharing, &parts)?;
    Ok((sharing, shares))
}

/// [`Layout::PerValue`] in process: converts `bases[j] = Enc(v_j + 2^K r_j)` into additive
/// shares of `v_j` and `r_j` (mod q) with per-value Pedersen commitments
/// ([`verify_value_sharing`]); returns the public record and each server's shares.
pub fn run_value_sharing<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    bases: &[Ciphertext],
    rng: &mut R,
) -> Result<(SharingRecord, Vec<MixerShares>), MixnetError> {
    let (sharing, shares, _) =
        run_value_sharing_timed(public, servers, bases, rng, &mut StepTimes::default())?;
    Ok((sharing, shares))
}

/// [`run_value_sharing`], recording each server's time for its mask commitments and its
/// decryption shares, and the check of the whole record, in `times`; also returns the
/// per-value commitments of [`verify_value_sharing`] (from that check, not a second one).
pub fn run_value_sharing_timed<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    bases: &[Ciphertext],
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<ValueSharingOut, MixnetError> {
    let (sharing, parts, shares) =
        run_inner(public, servers, Layout::PerValue, bases, None, rng, times)?;
    let coms = value_commitments(public, &sharing, &parts);
    Ok((sharing, shares, coms))
}

/// A per-value conversion: the record, each server's shares, the commitments `[j][k]`.
pub type ValueSharingOut = (SharingRecord, Vec<MixerShares>, Vec<Vec<ValueCommitments>>);

type RunOut = (SharingRecord, Vec<(Integer, Integer)>, Vec<MixerShares>);

fn run_inner<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    layout: Layout,
    bases: &[Ciphertext],
    fault: Option<&MaskFault>,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<RunOut, MixnetError> {
    let n = bases.len();
    let mut commits = Vec::with_capacity(servers.len());
    let mut masks = Vec::with_capacity(servers.len());
    for s in servers {
        let (st, mk) = times.time("M: Enc-to-shares masks + proofs", Some(s.id), || {
            s.share_commit(public, layout, n, fault, rng)
        })?;
        commits.push(st);
        masks.push(mk);
    }
    let cts = packed_cts(public, bases, &commits)?;
    let pk = public.paillier.encryption_key();
    let cts = packing::pack(
        pk,
        &cts,
        INPUT_BITS,
        packing::slots_per_ciphertext(pk, INPUT_BITS),
        &input_offset(),
    )?;
    let decryptions: Vec<ShareDecStage> = servers
        .iter()
        .map(|s| {
            let t0 = Instant::now();
            let shares =
                s.paillier_share
                    .decrypt_batch(&public.paillier, &public.sid, &cts, &mut OsRng)?;
            times.add(
                "M: Enc-to-shares decryption shares + proofs",
                Some(s.id),
                t0.elapsed(),
            );
            Ok(ShareDecStage {
                mixer: s.id,
                shares,
            })
        })
        .collect::<Result<_, MixnetError>>()?;
    let sharing = SharingRecord {
        commits,
        decryptions,
    };
    let ds = times.time("M: verify the Enc-to-shares record", None, || {
        verify_inner(public, layout, bases, &sharing)
    })?;
    let qm = scalar_modulus();
    let mut out = Vec::with_capacity(servers.len());
    for (pos, (s, mk)) in servers.iter().zip(masks).enumerate() {
        let mut v = Vec::with_capacity(n);
        let mut r = Vec::with_capacity(n);
        let mut rand = Vec::with_capacity(n);
        for (i, m) in mk.iter().enumerate() {
            let (mut sa, mut sb) = (-int_to_scalar(&m.a, &qm), -int_to_scalar(&m.b, &qm));
            if pos == 0 {
                sa += int_to_scalar(&ds[i].0, &qm);
                sb += int_to_scalar(&ds[i].1, &qm);
            }
            v.push(sa);
            r.push(sb);
            if layout == Layout::PerValue {
                rand.push([-m.sigma[0], -m.sigma[1]]);
            }
        }
        out.push(MixerShares {
            mixer: s.id,
            v,
            r,
            s: rand,
        });
    }
    Ok((sharing, ds, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::keygen_with_test_moduli;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// The batch accepts honest proofs (so the fast path is the one taken) and each of its
    /// three products (G1, mod `N²`, mod `Ñ`) rejects a proof false in that equation alone;
    /// the one-by-one check agrees and [`verify_links`] names exactly the server.
    #[test]
    fn batch_accepts_honest_proofs_and_each_product_catches_its_equation() {
        let mut rng = ChaCha20Rng::seed_from_u64(171);
        let sid = SessionId::new(b"sharing-batch".to_vec());
        let (public, servers) = keygen_with_test_moduli(sid, 4, 2, 2, &mut rng).unwrap();
        let pk = public.paillier.encryption_key();
        let bases: Vec<Ciphertext> = (0..4)
            .map(|_| {
                let m = random_bits(&mut rng, 255) + (random_bits(&mut rng, 255) << SLOT_BITS);
                pk.encrypt(&m, &mut rng).unwrap()
            })
            .collect();
        let (record, _) = run_value_sharing(&public, &servers, &bases, &mut rng).unwrap();
        let tables = public.djn().unwrap();
        let layout = Layout::PerValue;
        let batch = |stages: &[ShareCommitStage]| {
            let cands: Vec<LinkCandidate<'_>> = public
                .params
                .parties()
                .zip(stages)
                .flat_map(|(k, st)| st.commits.iter().enumerate().map(move |(i, c)| (k, i, c)))
                .map(|(k, i, c)| link_precheck(&public, tables, layout, k, i, c).unwrap())
                .collect();
            let one_by_one = cands
                .iter()
                .all(|c| check_link_equations(&public, tables, c));
            let batched = batch_links(&public, tables, &cands, &mut rng.clone()).unwrap();
            (batched, one_by_one)
        };
        assert_eq!(batch(&record.commits), (true, true));
        assert!(verify_links(&public, tables, layout, 4, &record.commits).is_empty());
        let second = servers[1].id;
        type Tamper = fn(&mut ShareLinkProof);
        let cases: [(&str, Tamper); 3] = [
            ("G1", |p| p.z_sigma.as_mut().unwrap()[1] += Scalar::ONE),
            ("Paillier", |p| p.z_alpha += 2u32),
            ("ring-Pedersen", |p| p.z_mu_a += 1u32),
        ];
        for (what, tamper) in cases {
            let mut bad = record.commits.clone();
            tamper(&mut bad[1].commits[2].proof);
            assert_eq!(batch(&bad), (false, false), "{what}");
            assert_eq!(
                verify_links(&public, tables, layout, 4, &bad),
                vec![second],
                "{what}"
            );
        }
    }
}
