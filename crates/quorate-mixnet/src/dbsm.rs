//! DB-SM, the distributed proof of set membership (paper Fig. 8, with the malicious-security
//! steps of Appendix B): for every queried input `i ∈ I`, the mix-servers prove to the
//! querier `Q` whether the value committed in `γ_i` is one of the outputs `{v′_j : j ∈ J}`,
//! without revealing which one, and `Q` verifies **every** proof.
//!
//! # Protocol (Fig. 8 steps, as implemented here)
//! 1. **Signatures.** `Q` picks a fresh BB key `x`, `y = f2^x` (`f2` the G2 generator) and
//!    signs every queried output: `σ_j = g^{1/(v′_j + x)}` ([`querier_sign`]). The signatures
//!    are published as the trivial ElGamal encryptions `(1, σ_j)`; positions `j ∉ J` hold
//!    `(1, 1)`. Every server batch-verifies the signatures with one two-term pairing product
//!    and 128-bit weights ([`check_query`]).
//! 2. **Reverse shuffle.** Servers `k = m … 1` re-encrypt the list and move it back through
//!    `π_k⁻¹` (`R_{k−1}[π_k(i)] = R_k[i]·Enc(1; s_i)`) and prove it with the Terelius–Wikström
//!    ElGamal shuffle proof against the *same* permutation commitment as in Mix (input and
//!    output lists swapped). After server 1, `R_0[i] = Enc(σ_{π(i)})` for the composed `π`.
//! 3. **Blinding.** For each `i ∈ I` every server publishes `D_{k,i} = Enc(1; ρ)·R_0[i]^{b}`
//!    with a proof of knowledge of `(ρ, b)` ([`BlindProof`]); `Π_k D_{k,i} = Enc(σ^{Σ_k b_k})`.
//! 4. **Decryption.** Threshold ElGamal decryption with a DLEQ proof per element and server
//!    gives `S_i = σ_{π(i)}^{b_i}`. `S_i = 1` means `π(i) ∉ J` (the slot held `(1, 1)`): the
//!    answer *not a member*, publicly checkable from the verified decryption. Otherwise
//!    `S_i ≠ 1` (the artifact never checked this: defect 11) and step 5 runs.
//! 5. **DPK_BB** `PK{(v, r, b): γ_i = g^v h^r ∧ e(S_i, y·f2^v) = e(g, f2)^b}`, distributed.
//!    The witnesses `v, r` exist only inside the sender's threshold-Paillier ciphertexts
//!    `c_i, c′_i`, and `b = Σ b_k` is additively shared. Server `k` commits
//!    `E_k = Enc_N(ρ_{v,k} + 2^K ρ_{r,k})`, `R_k = g^{ρ_v} h^{ρ_r}`, `P_k = S^{ρ_v}`,
//!    `W_k = g^{ρ_b}`, `A_k = (g^τ a^{ρ_b}, pk^τ b^{ρ_b})` (with `(a, b) = R_0[i]`) plus a proof
//!    that these share their exponents ([`DpkShareProof`]). The challenge `e` hashes the whole
//!    statement and every commitment. Responses: `z_{b,k} = ρ_b − e b_k`, `z_{τ,k} = τ − e ρ_k`
//!    (checked per server against `A_k` and `D_{k,i}`, so a bad share names its server), and
//!    `Z = (Σρ_v + e(q − v)) + 2^K (Σρ_r + e(q − r))` obtained by threshold-Paillier decryption
//!    (proof per share) of `Π_k E_k · c_i^{−e} · c′_i^{−e·2^K} · Enc(e q (1 + 2^K); 1)`.
//!    `Q` splits `Z` into `z_v, z_r` and checks, with `R, P, W` the products of the shares:
//!    `g^{z_v} h^{z_r} γ^e = R` and `e(g^{z_b} S^{−z_v} W^{−1} P, f2)·e(S^e, y) = 1`; over all
//!    elements both are batched with 128-bit weights (one MSM and one 2-pairing product).
//!
//! Because the per-server checks pin down every aggregate, an aggregate failure with all
//! per-server checks passing means the statement is false; it is reported as
//! [`MixnetError::DpkFailed`] without blame.
//!
//! # Security notes
//! * The per-server share proof carries ring-Pedersen commitments to `ρ_v, ρ_r`
//!   ([`crate::ring_pedersen`]), so its extractor yields integers and the packed Paillier
//!   plaintext of `E_k` has the two slots the G1 parts use.
//! * Commitments are published before the challenge is derived from all of them (no
//!   commit-then-reveal round is needed for soundness of a proof of knowledge; an adversary
//!   who sees honest commitments first still faces a hash challenge).
//! * The in-process driver [`run`] simulates all servers; the messages are the stage structs.

use crate::elgamal::{self, append_ciphertexts, ElGamalCiphertext, ElGamalDecShare};
use crate::error::{blame, MixnetError};
use crate::mix::MixRecord;
use crate::params::{int_to_scalar, scalar_modulus, CHALLENGE_BITS, SLACK_BITS};
use crate::sender::{enc_raw, SenderInput, MASK_BITS};
use crate::setup::{MixServer, MixnetPublic};
use crate::shuffle::{self, ElGamalShuffle, ShuffleProof};
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use merlin::Transcript;
use quorate_bls::msm::g1_msm_vartime;
use quorate_bls::pairing::pairing_product_is_identity;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{Blame, ParamError, PartyId};
use quorate_paillier::bigint::{
    inv_mod, is_unit_in_range, mul_mod, pow_mod_secret, pow_mod_vartime, random_bits, random_unit,
    to_be_bytes_padded, wipe_integer,
};
use quorate_paillier::rug::integer::Order;
use quorate_paillier::rug::Integer;
use quorate_paillier::threshold::DecryptionShare;
use quorate_paillier::{Ciphertext, PaillierError, PublicKey};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// Bits of one slot of the packed response `Z` (room for `m < 2^16` masks of
/// [`MASK_BITS`] bits plus `e·q`).
pub const PACK_BITS: u32 = MASK_BITS + 18;
/// Bits of the masks in the per-server share proof.
pub const SHARE_MASK_BITS: u32 = MASK_BITS + CHALLENGE_BITS + SLACK_BITS;

/// The querier's BB secret key (wiped on drop, redacted in `Debug`).
pub struct QuerierKey {
    x: Scalar,
}

impl Drop for QuerierKey {
    fn drop(&mut self) {
        self.x = Scalar::ZERO;
    }
}

impl core::fmt::Debug for QuerierKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("QuerierKey(<redacted>)")
    }
}

/// The querier's published query: sets `I`, `J`, BB key and signatures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BbQuery {
    /// `I`: queried input positions (strictly increasing).
    pub inputs: Vec<usize>,
    /// `J`: output positions forming the set (strictly increasing).
    pub outputs: Vec<usize>,
    /// `y = f2^x`.
    pub y: G2Projective,
    /// `σ_j` for `j ∈ J`, in the order of `outputs`.
    pub sigs: Vec<G1Projective>,
}

/// One server's reverse re-encryption shuffle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReverseStage {
    /// The server.
    pub mixer: PartyId,
    /// `R_{k−1}`.
    pub outputs: Vec<ElGamalCiphertext>,
    /// TW ElGamal shuffle proof (statement: `R_k[i] = R_{k−1}[π_k(i)]·Enc(1; −s_i)`).
    pub proof: ShuffleProof,
}

/// Proof of knowledge of `(ρ, b)` with `D = Enc(1; ρ)·(a, b_ct)^b`, in `(c, z)` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlindProof {
    /// Challenge.
    pub c: Scalar,
    /// `z_ρ = α + cρ`.
    pub z_rho: Scalar,
    /// `z_b = β + c b`.
    pub z_b: Scalar,
}

/// One server's blinding contributions `D_{k,i}` for `i ∈ I`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlindingStage {
    /// The server.
    pub mixer: PartyId,
    /// `D_{k,i}` in `I` order.
    pub contributions: Vec<ElGamalCiphertext>,
    /// Their proofs.
    pub proofs: Vec<BlindProof>,
}

/// One server's ElGamal decryption shares of the blinded list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElGamalDecStage {
    /// The server.
    pub mixer: PartyId,
    /// Shares in `I` order.
    pub shares: Vec<ElGamalDecShare>,
}

/// Proof that a DPK commitment share is well formed, in `(c, s)` form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DpkShareProof {
    /// 128-bit challenge.
    pub c: Integer,
    /// `s_v = α_v + c ρ_v` (integer).
    pub s_v: Integer,
    /// `s_r = α_r + c ρ_r` (integer).
    pub s_r: Integer,
    /// `w = ν μ^c mod N`.
    pub w: Integer,
    /// `s_b = β_b + c ρ_b`.
    pub s_b: Scalar,
    /// `s_τ = β_τ + c τ`.
    pub s_tau: Scalar,
    /// Ring-Pedersen commitment to `ρ_v` (integer soundness, see [`crate::ring_pedersen`]).
    pub rp_v: Integer,
    /// Ring-Pedersen commitment to `ρ_r`.
    pub rp_r: Integer,
    /// `z_{μv}`.
    pub z_mu_v: Integer,
    /// `z_{μr}`.
    pub z_mu_r: Integer,
}

/// One server's DPK_BB commitment share for one element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DpkCommit {
    /// `E_k = Enc_N(ρ_v + 2^K ρ_r; μ)`.
    pub e_k: Ciphertext,
    /// `R_k = g^{ρ_v} h^{ρ_r}`.
    pub r_k: G1Projective,
    /// `P_k = S^{ρ_v}`.
    pub p_k: G1Projective,
    /// `W_k = g^{ρ_b}`.
    pub w_k: G1Projective,
    /// `A_k = (g^τ a^{ρ_b}, pk^τ b^{ρ_b})`.
    pub a_k: ElGamalCiphertext,
    /// Well-formedness proof.
    pub proof: DpkShareProof,
}

/// One server's DPK commitments (members in `I` order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DpkCommitStage {
    /// The server.
    pub mixer: PartyId,
    /// One per member.
    pub commits: Vec<DpkCommit>,
}

/// One server's DPK responses (members in `I` order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DpkResponseStage {
    /// The server.
    pub mixer: PartyId,
    /// `z_{b,k}`.
    pub z_b: Vec<Scalar>,
    /// `z_{τ,k}`.
    pub z_tau: Vec<Scalar>,
    /// Threshold-Paillier decryption shares of the packed response ciphertexts.
    pub z_shares: Vec<DecryptionShare>,
}

/// Wall-clock time per protocol step (`Some(server)` for one server's own work, `None` for
/// checks done once on the whole published data), for benchmark reports.
#[derive(Clone, Debug, Default)]
pub struct StepTimes {
    /// `(step, server, duration)`.
    pub entries: Vec<(&'static str, Option<PartyId>, Duration)>,
}

impl StepTimes {
    /// Records one measurement.
    pub fn add(&mut self, step: &'static str, who: Option<PartyId>, d: Duration) {
        self.entries.push((step, who, d));
    }

    /// Runs `f`, recording its wall-clock time.
    pub fn time<T>(
        &mut self,
        step: &'static str,
        who: Option<PartyId>,
        f: impl FnOnce() -> T,
    ) -> T {
        let start = Instant::now();
        let out = f();
        self.add(step, who, start.elapsed());
        out
    }

    /// The sum over all entries of `step`.
    pub fn total(&self, step: &str) -> Duration {
        self.entries
            .iter()
            .filter(|(s, _, _)| *s == step)
            .map(|(_, _, d)| *d)
            .sum()
    }

    /// The mean over the servers' entries of `step` (zero if none).
    pub fn mean_per_server(&self, step: &str) -> Duration {
        let v: Vec<Duration> = self
            .entries
            .iter()
            .filter(|(s, w, _)| *s == step && w.is_some())
            .map(|(_, _, d)| *d)
            .collect();
        if v.is_empty() {
            return Duration::ZERO;
        }
        v.iter().sum::<Duration>() / (v.len() as u32)
    }

    /// The distinct step names in first-seen order.
    pub fn steps(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for (s, _, _) in &self.entries {
            if !out.contains(s) {
                out.push(s);
            }
        }
        out
    }
}

/// Everything the servers publish for one DB-SM query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbSmProof {
    /// Reverse shuffles, server `m` first.
    pub reverse: Vec<ReverseStage>,
    /// Blinding, server 1 first.
    pub blinding: Vec<BlindingStage>,
    /// ElGamal decryption shares.
    pub decryption: Vec<ElGamalDecStage>,
    /// `S_i` for `i ∈ I`.
    pub s: Vec<G1Projective>,
    /// DPK commitments.
    pub dpk_commits: Vec<DpkCommitStage>,
    /// DPK responses.
    pub dpk_responses: Vec<DpkResponseStage>,
}

/// A server's secrets between the blinding and DPK rounds (wiped on drop).
struct BlindSecrets {
    b: Vec<Scalar>,
    rho: Vec<Scalar>,
}

impl Drop for BlindSecrets {
    fn drop(&mut self) {
        self.b
            .iter_mut()
            .chain(self.rho.iter_mut())
            .for_each(|x| *x = Scalar::ZERO);
    }
}

struct DpkSecrets {
    rho_b: Vec<Scalar>,
    tau: Vec<Scalar>,
}

impl Drop for DpkSecrets {
    fn drop(&mut self) {
        self.rho_b
            .iter_mut()
            .chain(self.tau.iter_mut())
            .for_each(|x| *x = Scalar::ZERO);
    }
}

fn f2() -> G2Projective {
    G2Projective::generator()
}

fn invalid_query(reason: &'static str) -> MixnetError {
    MixnetError::InvalidQuery(reason)
}

fn check_index_set(set: &[usize], n: usize) -> bool {
    set.windows(2).all(|w| w[0] < w[1]) && set.last().map_or(true, |&l| l < n)
}

/// The querier signs the outputs `J` (values from the verified mixing record) and queries
/// the inputs `I`.
pub fn querier_sign<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    outputs: &[Scalar],
    inputs_i: &[usize],
    outputs_j: &[usize],
    rng: &mut R,
) -> Result<(QuerierKey, BbQuery), MixnetError> {
    if outputs.len() != public.n
        || !check_index_set(inputs_i, public.n)
        || !check_index_set(outputs_j, public.n)
    {
        return Err(invalid_query(
            "index sets must be strictly increasing and below n",
        ));
    }
    loop {
        let x = Scalar::random(&mut *rng);
        let mut sigs = Vec::with_capacity(outputs_j.len());
        for &j in outputs_j {
            let inv: Option<Scalar> = (outputs[j] + x).invert().into();
            match inv {
                Some(inv) => sigs.push(public.gens.g * inv),
                None => break,
            }
        }
        if sigs.len() == outputs_j.len() && !bool::from(x.is_zero()) {
            let key = QuerierKey { x };
            let y = f2() * key.x;
            return Ok((
                key,
                BbQuery {
                    inputs: inputs_i.to_vec(),
                    outputs: outputs_j.to_vec(),
                    y,
                    sigs,
                },
            ));
        }
    }
}

/// Every server's (and the querier's) check of a query: shapes, and all BB signatures
/// batch-verified: `e(Σδ_jσ_j, y)·e(Σδ_j v′_j σ_j − (Σδ_j) g, f2) = 1` with 128-bit `δ_j`.
pub fn check_query(
    public: &MixnetPublic,
    outputs: &[Scalar],
    q: &BbQuery,
) -> Result<(), MixnetError> {
    if outputs.len() != public.n
        || !check_index_set(&q.inputs, public.n)
        || !check_index_set(&q.outputs, public.n)
    {
        return Err(invalid_query(
            "index sets must be strictly increasing and below n",
        ));
    }
    if q.sigs.len() != q.outputs.len() {
        return Err(invalid_query("one signature per queried output"));
    }
    if bool::from(q.y.is_identity()) {
        return Err(invalid_query("BB public key is the identity"));
    }
    if q.sigs.iter().any(|s| bool::from(s.is_identity())) {
        return Err(invalid_query("BB signature is the identity"));
    }
    if q.sigs.is_empty() {
        return Ok(());
    }
    let mut rng = OsRng;
    let delta: Vec<Scalar> = q
        .sigs
        .iter()
        .map(|_| elgamal::batch_weight(&mut rng))
        .collect();
    let a = g1_msm_vartime(&q.sigs, &delta);
    let dv: Vec<Scalar> = q
        .outputs
        .iter()
        .zip(&delta)
        .map(|(&j, d)| *d * outputs[j])
        .collect();
    let dsum: Scalar = delta.iter().sum();
    let b = g1_msm_vartime(&q.sigs, &dv) - public.gens.g * dsum;
    if !pairing_product_is_identity(&[
        (a.to_affine(), q.y.to_affine()),
        (b.to_affine(), f2().to_affine()),
    ]) {
        return Err(invalid_query("BB signatures do not verify"));
    }
    Ok(())
}

/// The list the reverse shuffle starts from: `(1, σ_j)` at `j ∈ J`, `(1, 1)` elsewhere.
pub fn initial_list(n: usize, q: &BbQuery) -> Vec<ElGamalCiphertext> {
    let mut list = vec![ElGamalCiphertext::trivial(G1Projective::identity()); n];
    for (&j, s) in q.outputs.iter().zip(&q.sigs) {
        if let Some(slot) = list.get_mut(j) {
            *slot = ElGamalCiphertext::trivial(*s);
        }
    }
    list
}

#[allow(clippy::too_many_arguments)]
fn blind_challenge(
    sid: &SessionId,
    who: PartyId,
    index: usize,
    g: &G1Projective,
    pk: &G1Projective,
    base: &ElGamalCiphertext,
    d: &ElGamalCiphertext,
    t: &ElGamalCiphertext,
) -> Scalar {
    let mut tr = Transcript::for_protocol(b"quorate/mixnet/dbsm-blinding", 1, sid);
    tr.append_party(b"server", who);
    tr.append_u64_be(b"input", index as u64);
    tr.append_point(b"g", g);
    tr.append_point(b"pk", pk);
    append_ciphertexts(&mut tr, b"base", core::slice::from_ref(base));
    append_ciphertexts(&mut tr, b"D", core::slice::from_ref(d));
    append_ciphertexts(&mut tr, b"T", core::slice::from_ref(t));
    tr.challenge_scalar(b"c")
}

fn ct_bytes(pk: &PublicKey, c: &Integer) -> Vec<u8> {
    to_be_bytes_padded(c, pk.ciphertext_len()).unwrap_or_default()
}

#[allow(clippy::too_many_arguments)]
fn share_challenge(
    sid: &SessionId,
    who: PartyId,
    index: usize,
    public: &MixnetPublic,
    s: &G1Projective,
    base: &ElGamalCiphertext,
    com: (
        &Ciphertext,
        &G1Projective,
        &G1Projective,
        &G1Projective,
        &ElGamalCiphertext,
    ),
    first: (
        &Integer,
        &G1Projective,
        &G1Projective,
        &G1Projective,
        &ElGamalCiphertext,
    ),
    rp_msgs: [&Integer; 4],
) -> Integer {
    let pk = public.paillier.encryption_key();
    let mut t = Transcript::for_protocol(b"quorate/mixnet/dbsm-dpk-share", 1, sid);
    public.ring_pedersen.append_to(&mut t);
    for x in rp_msgs {
        t.append_message(b"rp", &public.ring_pedersen.element_bytes(x));
    }
    t.append_party(b"server", who);
    t.append_u64_be(b"input", index as u64);
    t.append_message(b"N", &pk.to_bytes());
    t.append_point(b"g", &public.gens.g);
    t.append_point(b"h", &public.gens.h);
    t.append_point(b"pk", &public.elgamal.pk);
    t.append_point(b"S", s);
    append_ciphertexts(&mut t, b"base", core::slice::from_ref(base));
    t.append_message(b"E_k", &ct_bytes(pk, com.0.as_integer()));
    t.append_point(b"R_k", com.1);
    t.append_point(b"P_k", com.2);
    t.append_point(b"W_k", com.3);
    append_ciphertexts(&mut t, b"A_k", core::slice::from_ref(com.4));
    t.append_message(b"E'", &ct_bytes(pk, first.0));
    t.append_point(b"R'", first.1);
    t.append_point(b"P'", first.2);
    t.append_point(b"W'", first.3);
    append_ciphertexts(&mut t, b"A'", core::slice::from_ref(first.4));
    let mut c = [0u8; (CHALLENGE_BITS / 8) as usize];
    t.challenge_bytes(b"c", &mut c);
    Integer::from_digits(&c, Order::Msf)
}

/// The DPK_BB challenge for member `index`: binds the session, the generators, both keys,
/// the sender's `γ, c, c′`, the blinded ciphertexts, `S` and every server's commitments.
#[allow(clippy::too_many_arguments)]
fn dpk_challenge(
    public: &MixnetPublic,
    q: &BbQuery,
    index: usize,
    input: &SenderInput,
    base: &ElGamalCiphertext,
    blinded: &[ElGamalCiphertext],
    s: &G1Projective,
    commits: &[&DpkCommit],
) -> Integer {
    let pk = public.paillier.encryption_key();
    let mut t = Transcript::for_protocol(b"quorate/mixnet/dbsm-dpk-bb", 1, &public.sid);
    t.append_u64_be(b"input", index as u64);
    t.append_point(b"g", &public.gens.g);
    t.append_point(b"h", &public.gens.h);
    t.append_point(b"f2", &f2());
    t.append_point(b"y", &q.y);
    t.append_point(b"pk", &public.elgamal.pk);
    t.append_message(b"N", &pk.to_bytes());
    t.append_point(b"gamma", &input.gamma);
    t.append_message(b"c", &ct_bytes(pk, input.c.as_integer()));
    t.append_message(b"c'", &ct_bytes(pk, input.c_prime.as_integer()));
    append_ciphertexts(&mut t, b"base", core::slice::from_ref(base));
    append_ciphertexts(&mut t, b"D", blinded);
    t.append_point(b"S", s);
    t.append_u64_be(b"servers", commits.len() as u64);
    for c in commits {
        t.append_message(b"E_k", &ct_bytes(pk, c.e_k.as_integer()));
        t.append_point(b"R_k", &c.r_k);
        t.append_point(b"P_k", &c.p_k);
        t.append_point(b"W_k", &c.w_k);
        append_ciphertexts(&mut t, b"A_k", core::slice::from_ref(&c.a_k));
    }
    let mut e = [0u8; (CHALLENGE_BITS / 8) as usize];
    t.challenge_bytes(b"e", &mut e);
    Integer::from_digits(&e, Order::Msf)
}

/// `Π_k E_k · c^{−e} · c′^{−e·2^K} · (1+N)^{e q (1 + 2^K)} mod N²`.
fn packed_response_ct(
    pk: &PublicKey,
    input: &SenderInput,
    e: &Integer,
    shares: &[&Ciphertext],
) -> Result<Ciphertext, MixnetError> {
    let n2 = pk.n_squared();
    let not_unit = || MixnetError::from(ParamError::Invalid("ciphertext is not a unit"));
    let c_inv = inv_mod(input.c.as_integer(), n2).ok_or_else(not_unit)?;
    let cp_inv = inv_mod(input.c_prime.as_integer(), n2).ok_or_else(not_unit)?;
    let e_shift = Integer::from(e << PACK_BITS);
    let mut acc = mul_mod(
        &pow_mod_vartime(&c_inv, e, n2)?,
        &pow_mod_vartime(&cp_inv, &e_shift, n2)?,
        n2,
    );
    for s in shares {
        acc = mul_mod(&acc, s.as_integer(), n2);
    }
    let q = scalar_modulus();
    let offset = Integer::from(e * &q) * (Integer::from(1) + (Integer::from(1) << PACK_BITS));
    let shift = (offset * pk.n() + 1u32) % n2;
    Ok(pk.ciphertext_from_integer(mul_mod(&acc, &shift, n2))?)
}

/// Splits a decrypted `Z` into `(z_v, z_r)`; `None` if out of range.
fn unpack(z: &Integer) -> Option<(Integer, Integer)> {
    if *z < 0 || z.significant_bits() > 2 * PACK_BITS {
        return None;
    }
    let z_r = Integer::from(z >> PACK_BITS);
    let z_v = z - Integer::from(&z_r << PACK_BITS);
    Some((z_v, z_r))
}

impl MixServer {
    /// Step 2: re-encrypts `list` (aligned with this server's Mix outputs) and moves it back
    /// through `π⁻¹`, with the TW ElGamal shuffle proof.
    pub fn reverse_shuffle<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        list: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> Result<ReverseStage, MixnetError> {
        let n = public.n;
        if list.len() != n {
            return Err(ParamError::LengthMismatch {
                what: "reverse shuffle input",
                expected: n,
                got: list.len(),
            }
            .into());
        }
        let (g, pk) = (public.gens.g, public.elgamal.pk);
        let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
        let mut out = vec![ElGamalCiphertext::trivial(G1Projective::identity()); n];
        let moved: Vec<ElGamalCiphertext> = list
            .par_iter()
            .zip(s.par_iter())
            .map(|(c, si)| c.rerandomize(&g, &pk, si))
            .collect();
        for (i, &p) in self.perm.pi().iter().enumerate() {
            if let (Some(slot), Some(c)) = (out.get_mut(p), moved.get(i)) {
                *slot = *c;
            }
        }
        let rho: Vec<Scalar> = s.iter().map(|x| -*x).collect();
        let com =
            public
                .perm_commitments
                .get(self.id.position())
                .ok_or(ParamError::UnknownParty {
                    id: self.id,
                    n: public.params.n(),
                })?;
        let stmt = ElGamalShuffle {
            pk: &pk,
            inputs: &out,
            outputs: list,
        };
        let proof = shuffle::prove_elgamal(
            &public.sid,
            self.id,
            &public.gens,
            com,
            &self.perm,
            &stmt,
            &rho,
            rng,
        )?;
        Ok(ReverseStage {
            mixer: self.id,
            outputs: out,
            proof,
        })
    }

    fn blind<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        q: &BbQuery,
        bases: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> (BlindingStage, BlindSecrets) {
        let (g, pk) = (public.gens.g, public.elgamal.pk);
        let k = bases.len();
        let secrets = BlindSecrets {
            b: (0..k).map(|_| Scalar::random(&mut *rng)).collect(),
            rho: (0..k).map(|_| Scalar::random(&mut *rng)).collect(),
        };
        let masks: Vec<(Scalar, Scalar)> = (0..k)
            .map(|_| (Scalar::random(&mut *rng), Scalar::random(&mut *rng)))
            .collect();
        let (contributions, proofs): (Vec<_>, Vec<_>) = (0..k)
            .into_par_iter()
            .map(|t| {
                let (base, b, rho, (al, be)) = (&bases[t], secrets.b[t], secrets.rho[t], masks[t]);
                let d = base.pow(&b).rerandomize(&g, &pk, &rho);
                let tt = base.pow(&be).rerandomize(&g, &pk, &al);
                let c = blind_challenge(&public.sid, self.id, q.inputs[t], &g, &pk, base, &d, &tt);
                (
                    d,
                    BlindProof {
                        c,
                        z_rho: al + c * rho,
                        z_b: be + c * b,
                    },
                )
            })
            .unzip();
        (
            BlindingStage {
                mixer: self.id,
                contributions,
                proofs,
            },
            secrets,
        )
    }

    #[allow(clippy::type_complexity)]
    fn dpk_commit<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        members: &[(usize, usize)],
        bases: &[ElGamalCiphertext],
        s: &[G1Projective],
        rng: &mut R,
    ) -> Result<(DpkCommitStage, DpkSecrets), MixnetError> {
        let pk = public.paillier.encryption_key();
        let (g, h, epk) = (public.gens.g, public.gens.h, public.elgamal.pk);
        let qm = scalar_modulus();
        let cnt = members.len();
        let secrets = DpkSecrets {
            rho_b: (0..cnt).map(|_| Scalar::random(&mut *rng)).collect(),
            tau: (0..cnt).map(|_| Scalar::random(&mut *rng)).collect(),
        };
        // Per-element randomness drawn sequentially from the caller's CSPRNG.
        struct Draw {
            rho_v: Integer,
            rho_r: Integer,
            mu: Integer,
            al_v: Integer,
            al_r: Integer,
            nu: Integer,
            be_b: Scalar,
            be_t: Scalar,
            mu_v: Integer,
            mu_r: Integer,
            ga_v: Integer,
            ga_r: Integer,
        }
        let rp = &public.ring_pedersen;
        let mut draws = Vec::with_capacity(cnt);
        for _ in 0..cnt {
            draws.push(Draw {
                rho_v: random_bits(rng, MASK_BITS),
                rho_r: random_bits(rng, MASK_BITS),
                mu: random_unit(rng, pk.n())?,
                al_v: random_bits(rng, SHARE_MASK_BITS),
                al_r: random_bits(rng, SHARE_MASK_BITS),
                nu: random_unit(rng, pk.n())?,
                be_b: Scalar::random(&mut *rng),
                be_t: Scalar::random(&mut *rng),
                mu_v: rp.random_mu(rng),
                mu_r: rp.random_mu(rng),
                ga_v: rp.random_mu_mask(rng),
                ga_r: rp.random_mu_mask(rng),
            });
        }
        let commits = draws
            .par_iter_mut()
            .enumerate()
            .map(|(t, d)| {
                let (idx, pos) = members[t];
                let (base, sv) = (&bases[pos], s[pos]);
                let (rho_b, tau) = (secrets.rho_b[t], secrets.tau[t]);
                let packed = &d.rho_v + Integer::from(&d.rho_r << PACK_BITS);
                let e_k = pk.ciphertext_from_integer(enc_raw(pk, &packed, &d.mu)?)?;
                let (rv, rr) = (int_to_scalar(&d.rho_v, &qm), int_to_scalar(&d.rho_r, &qm));
                let r_k = g * rv + h * rr;
                let p_k = sv * rv;
                let w_k = g * rho_b;
                let a_k = base.pow(&rho_b).rerandomize(&g, &epk, &tau);
                let packed_a = &d.al_v + Integer::from(&d.al_r << PACK_BITS);
                let e1 = enc_raw(pk, &packed_a, &d.nu)?;
                let (av, ar) = (int_to_scalar(&d.al_v, &qm), int_to_scalar(&d.al_r, &qm));
                let r1 = g * av + h * ar;
                let p1 = sv * av;
                let w1 = g * d.be_b;
                let a1 = base.pow(&d.be_b).rerandomize(&g, &epk, &d.be_t);
                let rp_v = rp.commit(&d.rho_v, &d.mu_v)?;
                let rp_r = rp.commit(&d.rho_r, &d.mu_r)?;
                let rp_dv = rp.commit(&d.al_v, &d.ga_v)?;
                let rp_dr = rp.commit(&d.al_r, &d.ga_r)?;
                let c = share_challenge(
                    &public.sid,
                    self.id,
                    idx,
                    public,
                    &sv,
                    base,
                    (&e_k, &r_k, &p_k, &w_k, &a_k),
                    (&e1, &r1, &p1, &w1, &a1),
                    [&rp_v, &rp_r, &rp_dv, &rp_dr],
                );
                let cs = int_to_scalar(&c, &qm);
                let proof = DpkShareProof {
                    s_v: Integer::from(&c * &d.rho_v) + &d.al_v,
                    s_r: Integer::from(&c * &d.rho_r) + &d.al_r,
                    w: mul_mod(&d.nu, &pow_mod_secret(&d.mu, &c, pk.n())?, pk.n()),
                    s_b: d.be_b + cs * rho_b,
                    s_tau: d.be_t + cs * tau,
                    z_mu_v: Integer::from(&c * &d.mu_v) + &d.ga_v,
                    z_mu_r: Integer::from(&c * &d.mu_r) + &d.ga_r,
                    rp_v,
                    rp_r,
                    c,
                };
                for x in [
                    &mut d.rho_v,
                    &mut d.rho_r,
                    &mut d.mu,
                    &mut d.al_v,
                    &mut d.al_r,
                    &mut d.nu,
                    &mut d.mu_v,
                    &mut d.mu_r,
                    &mut d.ga_v,
                    &mut d.ga_r,
                ] {
                    wipe_integer(x);
                }
                Ok(DpkCommit {
                    e_k,
                    r_k,
                    p_k,
                    w_k,
                    a_k,
                    proof,
                })
            })
            .collect::<Result<Vec<_>, MixnetError>>()?;
        Ok((
            DpkCommitStage {
                mixer: self.id,
                commits,
            },
            secrets,
        ))
    }
}

/// Checks one server's well-formedness proof of one DPK commitment.
fn verify_share_proof(
    public: &MixnetPublic,
    who: PartyId,
    index: usize,
    s: &G1Projective,
    base: &ElGamalCiphertext,
    com: &DpkCommit,
) -> bool {
    let pk = public.paillier.encryption_key();
    let (g, h, epk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    let p = &com.proof;
    let bound = SHARE_MASK_BITS + 1;
    if p.c < 0 || p.c.significant_bits() > CHALLENGE_BITS {
        return false;
    }
    if [&p.s_v, &p.s_r]
        .iter()
        .any(|z| **z < 0 || z.significant_bits() > bound)
    {
        return false;
    }
    if !is_unit_in_range(&p.w, pk.n())
        || pk
            .ciphertext_from_integer(com.e_k.as_integer().clone())
            .is_err()
    {
        return false;
    }
    let n2 = pk.n_squared();
    let qm = scalar_modulus();
    let packed = &p.s_v + Integer::from(&p.s_r << PACK_BITS);
    let e1 = (|| {
        let lhs = enc_raw(pk, &packed, &p.w).ok()?;
        let ec = pow_mod_vartime(com.e_k.as_integer(), &p.c, n2).ok()?;
        Some(mul_mod(&lhs, &inv_mod(&ec, n2)?, n2))
    })();
    let Some(e1) = e1 else { return false };
    let rp = &public.ring_pedersen;
    let (Some(rp_dv), Some(rp_dr)) = (
        rp.recompute_vartime(&p.s_v, &p.z_mu_v, &p.rp_v, &p.c),
        rp.recompute_vartime(&p.s_r, &p.z_mu_r, &p.rp_r, &p.c),
    ) else {
        return false;
    };
    let c = int_to_scalar(&p.c, &qm);
    let (sv, sr) = (int_to_scalar(&p.s_v, &qm), int_to_scalar(&p.s_r, &qm));
    let r1 = g1_msm_vartime(&[g, h, com.r_k], &[sv, sr, -c]);
    let p1 = g1_msm_vartime(&[*s, com.p_k], &[sv, -c]);
    let w1 = g1_msm_vartime(&[g, com.w_k], &[p.s_b, -c]);
    let a1 = ElGamalCiphertext {
        a: g1_msm_vartime(&[g, base.a, com.a_k.a], &[p.s_tau, p.s_b, -c]),
        b: g1_msm_vartime(&[epk, base.b, com.a_k.b], &[p.s_tau, p.s_b, -c]),
    };
    let c2 = share_challenge(
        &public.sid,
        who,
        index,
        public,
        s,
        base,
        (&com.e_k, &com.r_k, &com.p_k, &com.w_k, &com.a_k),
        (&e1, &r1, &p1, &w1, &a1),
        [&p.rp_v, &p.rp_r, &rp_dv, &rp_dr],
    );
    c2 == p.c
}

fn verify_blind_proof(
    public: &MixnetPublic,
    who: PartyId,
    index: usize,
    base: &ElGamalCiphertext,
    d: &ElGamalCiphertext,
    p: &BlindProof,
) -> bool {
    let (g, pk) = (public.gens.g, public.elgamal.pk);
    let t = ElGamalCiphertext {
        a: g1_msm_vartime(&[g, base.a, d.a], &[p.z_rho, p.z_b, -p.c]),
        b: g1_msm_vartime(&[pk, base.b, d.b], &[p.z_rho, p.z_b, -p.c]),
    };
    blind_challenge(&public.sid, who, index, &g, &pk, base, d, &t) == p.c
}

fn check_order<'a, T>(
    public: &MixnetPublic,
    stages: &'a [T],
    id: impl Fn(&T) -> PartyId,
    reverse: bool,
    what: &'static str,
) -> Result<Vec<(PartyId, &'a T)>, MixnetError> {
    let m = usize::from(public.params.n());
    if stages.len() != m {
        return Err(ParamError::LengthMismatch {
            what,
            expected: m,
            got: stages.len(),
        }
        .into());
    }
    let mut order: Vec<PartyId> = public.params.parties().collect();
    if reverse {
        order.reverse();
    }
    order
        .into_iter()
        .zip(stages)
        .map(|(k, st)| {
            if id(st) == k {
                Ok((k, st))
            } else {
                Err(blame(id(st), "stage out of order"))
            }
        })
        .collect()
}

fn blamed(culprits: Vec<PartyId>, check: &'static str) -> Result<(), MixnetError> {
    if culprits.is_empty() {
        Ok(())
    } else {
        Err(MixnetError::Misbehaviour(Blame::many(culprits, check)))
    }
}

/// Verifies the reverse shuffles and returns `R_0` restricted to `I` (the blinding bases).
fn verify_reverse(
    public: &MixnetPublic,
    q: &BbQuery,
    proof: &DbSmProof,
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    let stages = check_order(
        public,
        &proof.reverse,
        |s| s.mixer,
        true,
        "reverse shuffle stages",
    )?;
    let pk = public.elgamal.pk;
    let init = initial_list(public.n, q);
    let mut current: &[ElGamalCiphertext] = &init;
    for (k, st) in stages {
        if st.outputs.len() != public.n {
            return Err(blame(k, "reverse shuffle output length"));
        }
        let com = public
            .perm_commitments
            .get(k.position())
            .ok_or(ParamError::Invalid("missing commitment"))?;
        let stmt = ElGamalShuffle {
            pk: &pk,
            inputs: &st.outputs,
            outputs: current,
        };
        shuffle::verify_elgamal(&public.sid, k, &public.gens, com, &stmt, &st.proof)?;
        current = &st.outputs;
    }
    let bases: Vec<ElGamalCiphertext> = q
        .inputs
        .iter()
        .filter_map(|&i| current.get(i).copied())
        .collect();
    if bases.iter().any(|b| bool::from(b.a.is_identity())) {
        return Err(ParamError::Invalid("degenerate re-encrypted signature (a = 1)").into());
    }
    Ok(bases)
}

/// Verifies blinding; returns the products `D_i = Π_k D_{k,i}`.
fn verify_blinding(
    public: &MixnetPublic,
    q: &BbQuery,
    bases: &[ElGamalCiphertext],
    proof: &DbSmProof,
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    let stages = check_order(
        public,
        &proof.blinding,
        |s| s.mixer,
        false,
        "blinding stages",
    )?;
    let mut culprits = Vec::new();
    for (k, st) in &stages {
        let ok = st.contributions.len() == bases.len()
            && st.proofs.len() == bases.len()
            && (0..bases.len()).into_par_iter().all(|t| {
                verify_blind_proof(
                    public,
                    *k,
                    q.inputs[t],
                    &bases[t],
                    &st.contributions[t],
                    &st.proofs[t],
                )
            });
        if !ok {
            culprits.push(*k);
        }
    }
    blamed(culprits, "blinding proof")?;
    Ok((0..bases.len())
        .map(|t| {
            stages.iter().fold(
                ElGamalCiphertext::trivial(G1Projective::identity()),
                |acc, (_, st)| acc.mul(&st.contributions[t]),
            )
        })
        .collect())
}

/// The querier's verification of a whole DB-SM proof. `record` must already have been
/// verified ([`crate::mix::verify_record`]); `submissions` are the published sender inputs.
/// Returns, for every `i ∈ I` in order, whether the value committed in `γ_i` is one of
/// `{v′_j : j ∈ J}`. Every failing server is named.
pub fn verify(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbQuery,
    proof: &DbSmProof,
) -> Result<Vec<bool>, MixnetError> {
    verify_timed(
        public,
        submissions,
        record,
        q,
        proof,
        &mut StepTimes::default(),
    )
}

/// [`verify`], recording the querier's time per step in `times`.
pub fn verify_timed(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbQuery,
    proof: &DbSmProof,
    times: &mut StepTimes,
) -> Result<Vec<bool>, MixnetError> {
    times.time("Q: check BB signatures", None, || {
        check_query(public, &record.outputs, q)
    })?;
    if record.accepted.len() != public.n {
        return Err(ParamError::Invalid("record does not have n accepted inputs").into());
    }
    let inputs: Vec<&SenderInput> = q
        .inputs
        .iter()
        .map(|&i| {
            record
                .accepted
                .get(i)
                .and_then(|&a| submissions.get(a))
                .ok_or(ParamError::Invalid("missing submission"))
        })
        .collect::<Result<_, _>>()?;
    // Steps 2–4.
    let bases = times.time("Q: verify reverse shuffles", None, || {
        verify_reverse(public, q, proof)
    })?;
    let blinded = times.time("Q: verify blinding", None, || {
        verify_blinding(public, q, &bases, proof)
    })?;
    let t_dec = Instant::now();
    let dec = check_order(
        public,
        &proof.decryption,
        |s| s.mixer,
        false,
        "decryption stages",
    )?;
    let dec_refs: Vec<(PartyId, &[ElGamalDecShare])> = dec
        .iter()
        .map(|(k, st)| (*k, st.shares.as_slice()))
        .collect();
    let s = elgamal::verify_and_combine(
        &public.gens,
        &public.elgamal,
        &public.sid,
        &blinded,
        &dec_refs,
    )?;
    if s != proof.s {
        return Err(ParamError::Invalid("published S differs from the verified decryption").into());
    }
    times.add("Q: verify ElGamal decryption", None, t_dec.elapsed());
    let t_shares = Instant::now();
    // Step 5: members are the S ≠ 1.
    let members: Vec<(usize, usize)> = (0..s.len())
        .filter(|&t| !bool::from(s[t].is_identity()))
        .map(|t| (q.inputs[t], t))
        .collect();
    let commits = check_order(
        public,
        &proof.dpk_commits,
        |s| s.mixer,
        false,
        "DPK commitment stages",
    )?;
    let mut culprits = Vec::new();
    for (k, st) in &commits {
        let ok = st.commits.len() == members.len()
            && members
                .par_iter()
                .zip(st.commits.par_iter())
                .all(|(&(idx, t), c)| verify_share_proof(public, *k, idx, &s[t], &bases[t], c));
        if !ok {
            culprits.push(*k);
        }
    }
    blamed(culprits, "DPK commitment share proof")?;
    times.add("Q: verify DPK commitment shares", None, t_shares.elapsed());
    let t_resp = Instant::now();
    let responses = check_order(
        public,
        &proof.dpk_responses,
        |s| s.mixer,
        false,
        "DPK response stages",
    )?;
    let challenges: Vec<Integer> = members
        .par_iter()
        .enumerate()
        .map(|(u, &(idx, t))| {
            let cs: Vec<&DpkCommit> = commits
                .iter()
                .filter_map(|(_, st)| st.commits.get(u))
                .collect();
            let blinded_k: Vec<ElGamalCiphertext> = proof
                .blinding
                .iter()
                .filter_map(|b| b.contributions.get(t).copied())
                .collect();
            dpk_challenge(public, q, idx, inputs[t], &bases[t], &blinded_k, &s[t], &cs)
        })
        .collect();
    let qm = scalar_modulus();
    let e_sc: Vec<Scalar> = challenges.iter().map(|e| int_to_scalar(e, &qm)).collect();
    // Per-server responses against A_k and D_{k,i}.
    let mut culprits = Vec::new();
    let (g, epk) = (public.gens.g, public.elgamal.pk);
    for ((k, st), (_, bst)) in responses.iter().zip(&check_order(
        public,
        &proof.blinding,
        |s| s.mixer,
        false,
        "blinding stages",
    )?) {
        let cst = commits.iter().find(|(c, _)| c == k).map(|(_, c)| *c);
        let ok = st.z_b.len() == members.len()
            && st.z_tau.len() == members.len()
            && st.z_shares.len() == members.len()
            && st.z_shares.iter().all(|z| z.id() == *k)
            && cst.is_some_and(|cst| {
                members.par_iter().enumerate().all(|(u, &(_, t))| {
                    let (base, d, a) = (&bases[t], &bst.contributions[t], &cst.commits[u].a_k);
                    let (zb, zt, e) = (st.z_b[u], st.z_tau[u], e_sc[u]);
                    let lhs_a = g1_msm_vartime(&[g, base.a, d.a], &[zt, zb, e]);
                    let lhs_b = g1_msm_vartime(&[epk, base.b, d.b], &[zt, zb, e]);
                    lhs_a == a.a && lhs_b == a.b
                })
            });
        if !ok {
            culprits.push(*k);
        }
    }
    blamed(culprits, "DPK response share")?;
    times.add("Q: verify DPK response shares", None, t_resp.elapsed());
    let t_pai = Instant::now();
    // Threshold-Paillier decryption of the packed responses (a proof per share).
    let ppk = public.paillier.encryption_key();
    let zs: Vec<Result<(Integer, Integer), MixnetError>> = members
        .par_iter()
        .enumerate()
        .map(|(u, &(_, t))| {
            let e_ks: Vec<&Ciphertext> = commits
                .iter()
                .filter_map(|(_, st)| st.commits.get(u).map(|c| &c.e_k))
                .collect();
            let ct = packed_response_ct(ppk, inputs[t], &challenges[u], &e_ks)?;
            let shares: Vec<DecryptionShare> = responses
                .iter()
                .filter_map(|(_, st)| st.z_shares.get(u).cloned())
                .collect();
            let z = public
                .paillier
                .verify_and_combine(&public.sid, &ct, &shares)?;
            unpack(&z).ok_or(MixnetError::DpkFailed {
                input: inputs_index(q, t),
            })
        })
        .collect();
    let mut culprits = Vec::new();
    let mut z_vals = Vec::with_capacity(zs.len());
    for r in zs {
        match r {
            Ok(z) => z_vals.push(z),
            Err(MixnetError::Paillier(PaillierError::InvalidDecryptionShare(b))) => {
                culprits.extend_from_slice(b.culprits())
            }
            Err(e) => return Err(e),
        }
    }
    culprits.sort();
    culprits.dedup();
    blamed(culprits, "DPK response decryption share")?;
    times.add(
        "Q: verify Paillier decryption of responses",
        None,
        t_pai.elapsed(),
    );
    let t_agg = Instant::now();
    // Aggregate equations, batched over members with 128-bit weights.
    let agg: Vec<(G1Projective, G1Projective, G1Projective, Scalar)> = (0..members.len())
        .map(|u| {
            let mut r = G1Projective::identity();
            let mut p = G1Projective::identity();
            let mut w = G1Projective::identity();
            for (_, st) in &commits {
                let c = &st.commits[u];
                r += c.r_k;
                p += c.p_k;
                w += c.w_k;
            }
            let zb: Scalar = responses.iter().map(|(_, st)| st.z_b[u]).sum();
            (r, p, w, zb)
        })
        .collect();
    let check_one = |u: usize| -> bool {
        let (_, t) = members[u];
        let (r, p, w, zb) = agg[u];
        let (zv, zr) = (
            int_to_scalar(&z_vals[u].0, &qm),
            int_to_scalar(&z_vals[u].1, &qm),
        );
        let eq1 = g1_msm_vartime(
            &[public.gens.g, public.gens.h, inputs[t].gamma, r],
            &[zv, zr, e_sc[u], -Scalar::ONE],
        );
        let x = g1_msm_vartime(
            &[public.gens.g, s[t], w, p],
            &[zb, -zv, -Scalar::ONE, Scalar::ONE],
        );
        bool::from(eq1.is_identity())
            && pairing_product_is_identity(&[
                (x.to_affine(), f2().to_affine()),
                ((s[t] * e_sc[u]).to_affine(), q.y.to_affine()),
            ])
    };
    if !members.is_empty() {
        let mut rng = OsRng;
        let lam: Vec<Scalar> = members
            .iter()
            .map(|_| elgamal::batch_weight(&mut rng))
            .collect();
        let mu: Vec<Scalar> = members
            .iter()
            .map(|_| elgamal::batch_weight(&mut rng))
            .collect();
        let mut pts1 = Vec::with_capacity(4 * members.len());
        let mut sc1 = Vec::with_capacity(4 * members.len());
        let mut pts2 = Vec::with_capacity(4 * members.len());
        let mut sc2 = Vec::with_capacity(4 * members.len());
        let mut pts3 = Vec::with_capacity(members.len());
        let mut sc3 = Vec::with_capacity(members.len());
        let (mut g1c, mut hc, mut g2c) = (Scalar::ZERO, Scalar::ZERO, Scalar::ZERO);
        for (u, &(_, t)) in members.iter().enumerate() {
            let (r, p, w, zb) = agg[u];
            let (zv, zr) = (
                int_to_scalar(&z_vals[u].0, &qm),
                int_to_scalar(&z_vals[u].1, &qm),
            );
            g1c += lam[u] * zv;
            hc += lam[u] * zr;
            pts1.extend([inputs[t].gamma, r]);
            sc1.extend([lam[u] * e_sc[u], -lam[u]]);
            g2c += mu[u] * zb;
            pts2.extend([s[t], w, p]);
            sc2.extend([-(mu[u] * zv), -mu[u], mu[u]]);
            pts3.push(s[t]);
            sc3.push(mu[u] * e_sc[u]);
        }
        pts1.extend([public.gens.g, public.gens.h]);
        sc1.extend([g1c, hc]);
        pts2.push(public.gens.g);
        sc2.push(g2c);
        let eq1 = g1_msm_vartime(&pts1, &sc1);
        let x = g1_msm_vartime(&pts2, &sc2);
        let ys = g1_msm_vartime(&pts3, &sc3);
        let ok = bool::from(eq1.is_identity())
            && pairing_product_is_identity(&[
                (x.to_affine(), f2().to_affine()),
                (ys.to_affine(), q.y.to_affine()),
            ]);
        if !ok {
            // Find the first failing element (the batch can only fail if one does).
            let bad = (0..members.len()).find(|&u| !check_one(u)).unwrap_or(0);
            return Err(MixnetError::DpkFailed {
                input: members[bad].0,
            });
        }
    }
    times.add(
        "Q: aggregate DPK_BB checks (batched)",
        None,
        t_agg.elapsed(),
    );
    Ok(s.iter().map(|x| !bool::from(x.is_identity())).collect())
}

fn inputs_index(q: &BbQuery, t: usize) -> usize {
    q.inputs.get(t).copied().unwrap_or(t)
}

/// Runs DB-SM in process for a query `q` (all servers simulated, each stage checked before
/// the next builds on it) and returns the published proof. `record` is the verified Mix
/// record and `submissions` the sender inputs it was built from.
pub fn run<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbQuery,
    rng: &mut R,
) -> Result<DbSmProof, MixnetError> {
    run_timed(
        public,
        servers,
        submissions,
        record,
        q,
        rng,
        &mut StepTimes::default(),
    )
}

/// [`run`], recording each server's time per step (and the checks of the published stages,
/// which every other server repeats) in `times`.
pub fn run_timed<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    q: &BbQuery,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<DbSmProof, MixnetError> {
    times.time("M: check BB signatures", None, || {
        check_query(public, &record.outputs, q)
    })?;
    // Step 2: reverse shuffles, server m first.
    let mut reverse: Vec<ReverseStage> = Vec::with_capacity(servers.len());
    let init = initial_list(public.n, q);
    for srv in servers.iter().rev() {
        let cur = reverse
            .last()
            .map(|s| s.outputs.as_slice())
            .unwrap_or(&init);
        let st = times.time(
            "M: re-encrypt + reverse shuffle + proof",
            Some(srv.id),
            || srv.reverse_shuffle(public, cur, rng),
        )?;
        reverse.push(st);
    }
    let mut proof = DbSmProof {
        reverse,
        blinding: Vec::new(),
        decryption: Vec::new(),
        s: Vec::new(),
        dpk_commits: Vec::new(),
        dpk_responses: Vec::new(),
    };
    let bases = times.time("M: verify all reverse shuffles", None, || {
        verify_reverse(public, q, &proof)
    })?;
    // Step 3: blinding.
    let mut blind_secrets = Vec::with_capacity(servers.len());
    for srv in servers {
        let (st, sec) = times.time("M: homomorphic blinding + proofs", Some(srv.id), || {
            srv.blind(public, q, &bases, rng)
        });
        proof.blinding.push(st);
        blind_secrets.push(sec);
    }
    let blinded = times.time("M: verify all blinding proofs", None, || {
        verify_blinding(public, q, &bases, &proof)
    })?;
    // Step 4: threshold ElGamal decryption.
    for srv in servers {
        let shares = times.time(
            "M: ElGamal decryption shares + proofs",
            Some(srv.id),
            || {
                srv.elgamal_share.decrypt_shares(
                    &public.gens,
                    &public.elgamal,
                    &public.sid,
                    &blinded,
                    rng,
                )
            },
        )?;
        proof.decryption.push(ElGamalDecStage {
            mixer: srv.id,
            shares,
        });
    }
    let dec_refs: Vec<(PartyId, &[ElGamalDecShare])> = proof
        .decryption
        .iter()
        .map(|st| (st.mixer, st.shares.as_slice()))
        .collect();
    proof.s = times.time("M: verify all decryption shares + combine", None, || {
        elgamal::verify_and_combine(
            &public.gens,
            &public.elgamal,
            &public.sid,
            &blinded,
            &dec_refs,
        )
    })?;
    let s = proof.s.clone();
    // Step 5: DPK_BB for the members.
    let members: Vec<(usize, usize)> = (0..s.len())
        .filter(|&t| !bool::from(s[t].is_identity()))
        .map(|t| (q.inputs[t], t))
        .collect();
    let mut dpk_secrets = Vec::with_capacity(servers.len());
    for srv in servers {
        let (st, sec) = times.time("M: DPK_BB commitments + share proofs", Some(srv.id), || {
            srv.dpk_commit(public, &members, &bases, &s, rng)
        })?;
        proof.dpk_commits.push(st);
        dpk_secrets.push(sec);
    }
    let inputs: Vec<&SenderInput> = q
        .inputs
        .iter()
        .map(|&i| {
            record
                .accepted
                .get(i)
                .and_then(|&a| submissions.get(a))
                .ok_or(ParamError::Invalid("missing submission"))
        })
        .collect::<Result<_, _>>()?;
    let qm = scalar_modulus();
    let ppk = public.paillier.encryption_key();
    let mut challenges = Vec::with_capacity(members.len());
    let mut packed = Vec::with_capacity(members.len());
    for (u, &(idx, t)) in members.iter().enumerate() {
        let cs: Vec<&DpkCommit> = proof
            .dpk_commits
            .iter()
            .filter_map(|st| st.commits.get(u))
            .collect();
        let blinded_k: Vec<ElGamalCiphertext> = proof
            .blinding
            .iter()
            .filter_map(|b| b.contributions.get(t).copied())
            .collect();
        let e = dpk_challenge(public, q, idx, inputs[t], &bases[t], &blinded_k, &s[t], &cs);
        let e_ks: Vec<&Ciphertext> = cs.iter().map(|c| &c.e_k).collect();
        packed.push(packed_response_ct(ppk, inputs[t], &e, &e_ks)?);
        challenges.push(e);
    }
    for ((srv, bsec), dsec) in servers.iter().zip(&blind_secrets).zip(&dpk_secrets) {
        let t_resp = Instant::now();
        let mut z_b = Vec::with_capacity(members.len());
        let mut z_tau = Vec::with_capacity(members.len());
        for (u, &(_, t)) in members.iter().enumerate() {
            let e = int_to_scalar(&challenges[u], &qm);
            z_b.push(dsec.rho_b[u] - e * bsec.b[t]);
            z_tau.push(dsec.tau[u] - e * bsec.rho[t]);
        }
        let z_shares = packed
            .par_iter()
            .map(|ct| {
                Ok(srv.paillier_share.decrypt_share(
                    &public.paillier,
                    &public.sid,
                    ct,
                    &mut OsRng,
                )?)
            })
            .collect::<Result<Vec<_>, MixnetError>>()?;
        times.add(
            "M: DPK_BB responses + Paillier decryption shares",
            Some(srv.id),
            t_resp.elapsed(),
        );
        proof.dpk_responses.push(DpkResponseStage {
            mixer: srv.id,
            z_b,
            z_tau,
            z_shares,
        });
    }
    Ok(proof)
}
