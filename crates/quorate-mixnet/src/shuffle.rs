//! Permutation commitments and the Terelius–Wikström commitment-consistent shuffle proof.
//!
//! Notation (output position `i` takes input `π(i)`):
//!
//! * permutation commitment `u_j = g^{r_j} h_{π⁻¹(j)}`, fixed at keygen;
//! * challenge vector `e_j` (128-bit, from the transcript), `e′_i = e_{π(i)}`, so that
//!   `Π u_j^{e_j} = g^{⟨r,e⟩} Π h_i^{e′_i}`;
//! * chain `B_0 = h_0`, `B_i = g^{b_i} B_{i−1}^{e′_i}`, hence `B_n = g^{d} h_0^{Π e_j}`;
//! * Paillier part: outputs `w′_i = w_{π(i)}·ρ_i^N`, so `Π w′_i^{e′_i} = F·R^N` with
//!   `F = Π w_j^{e_j}`, `R = Π ρ_i^{e′_i}`.
//!
//! Prover commitments `A′ = g^α Π h_i^{ε_i}`, `B′_i = g^{β_i} B_{i−1}^{ε_i}`, `C′ = g^γ`,
//! `D′ = g^δ`, `F′ = Π w′_i^{ε_i}·Φ^N`; 128-bit challenge `v`; responses
//! `k_A = v⟨r,e⟩ + α`, `k_{B,i} = v b_i + β_i`, `k_C = v Σr_j + γ`, `k_D = v d + δ` (mod q),
//! `k_{E,i} = v e′_i + ε_i` over the integers (`ε_i` has 128 + 128 + 40 bits) and
//! `k_F = R^v Φ^{−1} mod N`. The verifier checks, with `A = Π u_j^{e_j}`,
//! `C = Π u_j / Π h_j`, `D = B_n / h_0^{Π e_j}`:
//!
//! * `A^v A′ = g^{k_A} Π h_i^{k_{E,i}}`, `B_i^v B′_i = g^{k_{B,i}} B_{i−1}^{k_{E,i}}`,
//!   `C^v C′ = g^{k_C}`, `D^v D′ = g^{k_D}` — all folded into **one** multi-scalar
//!   multiplication with random 128-bit weights (blst Pippenger);
//! * `F^v F′ k_F^N = Π w′_i^{k_{E,i}} (mod N²)` and `0 ≤ k_{E,i} < 2^{297}`.
//!
//! Without the Paillier part the same protocol is the proof of knowledge of the
//! permutation-commitment opening (TW "restricted shuffle"), run once per mix-server at
//! keygen. The transcript absorbs the session id, the prover id, every generator, the
//! commitment, both ciphertext lists and `N` before `e`, then every prover commitment
//! before `v` (the artifact's transcripts bound none of the lists: defect 6).
//!
//! # Soundness note
//! In the G1 part extraction is standard (prime order). For the Paillier part the integer
//! responses are range-checked, but the extractor's division by `Δv` in the unknown-order
//! group needs an integer (Fujisaki–Okamoto / ring-Pedersen) commitment to `e′`, which
//! Wikström's Paillier variant has and this implementation does **not yet** have (the
//! sender's proof and the DB-SM share proofs do have one: [`crate::ring_pedersen`]).

use crate::elgamal::{append_ciphertexts, ElGamalCiphertext};
use crate::error::{blame, MixnetError};
use crate::params::{
    int_to_scalar, scalar_modulus, Generators, BATCH_BITS, CHALLENGE_BITS, SLACK_BITS,
};
use blstrs::{G1Affine, G1Projective, Scalar};
use ff::Field;
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use merlin::Transcript;
use quorate_bls::msm::{g1_lincomb_ct, g1_msm_vartime};
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{ParamError, PartyId};
use quorate_paillier::bigint::{
    inv_mod, mul_mod, pow_mod_secret, pow_mod_vartime, random_bits, random_unit, to_be_bytes_padded,
};
use quorate_paillier::rug::integer::Order;
use quorate_paillier::rug::Integer;
use quorate_paillier::{Ciphertext, PublicKey};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

/// Bits of the masks `ε_i`.
pub const EPS_BITS: u32 = BATCH_BITS + CHALLENGE_BITS + SLACK_BITS;

/// A permutation commitment `u_1 … u_n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PermutationCommitment {
    /// `u_j`.
    pub u: Vec<G1Projective>,
}

/// The secret behind a permutation commitment (redacted in `Debug`).
#[derive(Clone)]
pub struct PermutationSecret {
    /// `π`: output `i` takes input `pi[i]`.
    pub(crate) pi: Vec<usize>,
    /// `r_j`.
    pub(crate) r: Vec<Scalar>,
}

impl core::fmt::Debug for PermutationSecret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("PermutationSecret(<redacted>)")
    }
}

impl PermutationSecret {
    /// Samples a uniform permutation of `n` (Fisher–Yates from the CSPRNG) and commits.
    pub fn generate<R: RngCore + CryptoRng>(
        gens: &Generators,
        n: usize,
        rng: &mut R,
    ) -> Result<(Self, PermutationCommitment), MixnetError> {
        if n > gens.n() {
            return Err(ParamError::Invalid("batch larger than the generator set").into());
        }
        let mut pi: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize; // bias < 2^-40 for n < 2^24
            pi.swap(i, j);
        }
        let r: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
        let mut inv = vec![0usize; n];
        for (i, &p) in pi.iter().enumerate() {
            inv[p] = i;
        }
        let g = gens.g;
        let u = (0..n)
            .into_par_iter()
            .map(|j| g * r[j] + gens.hs[inv[j]])
            .collect();
        Ok((PermutationSecret { pi, r }, PermutationCommitment { u }))
    }

    /// The permutation (output `i` takes input `pi()[i]`).
    pub fn pi(&self) -> &[usize] {
        &self.pi
    }
}

/// The Paillier statement of a shuffle: `outputs[i] = inputs[π(i)]·ρ_i^N`.
pub struct PaillierShuffle<'a> {
    /// Key.
    pub pk: &'a PublicKey,
    /// Input list.
    pub inputs: &'a [Ciphertext],
    /// Output list.
    pub outputs: &'a [Ciphertext],
}

/// The ElGamal statement of a shuffle (DB-SM's re-encryption of signatures):
/// `outputs[i] = inputs[π(i)]·Enc(1; ρ_i)` under the threshold ElGamal key `pk`.
pub struct ElGamalShuffle<'a> {
    /// ElGamal public key.
    pub pk: &'a G1Projective,
    /// Input list.
    pub inputs: &'a [ElGamalCiphertext],
    /// Output list.
    pub outputs: &'a [ElGamalCiphertext],
}

/// A shuffle proof (or, without the Paillier / ElGamal fields, a permutation-commitment
/// proof).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShuffleProof {
    /// `B_1 … B_n`.
    pub b: Vec<G1Projective>,
    /// `A′`.
    pub a_p: G1Projective,
    /// `B′_1 … B′_n`.
    pub b_p: Vec<G1Projective>,
    /// `C′`.
    pub c_p: G1Projective,
    /// `D′`.
    pub d_p: G1Projective,
    /// `F′` (Paillier part).
    pub f_p: Option<Integer>,
    /// `k_A`.
    pub k_a: Scalar,
    /// `k_{B,i}`.
    pub k_b: Vec<Scalar>,
    /// `k_C`.
    pub k_c: Scalar,
    /// `k_D`.
    pub k_d: Scalar,
    /// `k_{E,i}` (integers).
    pub k_e: Vec<Integer>,
    /// `k_F` (Paillier part).
    pub k_f: Option<Integer>,
    /// `F′ = Π w′_i^{ε_i}·Enc(1; φ)` (ElGamal part).
    pub f_eg: Option<ElGamalCiphertext>,
    /// `k_F = φ − v·Σ ρ_i e′_i` (ElGamal part).
    pub k_f_eg: Option<Scalar>,
}

fn ct_bytes(pk: &PublicKey, c: &Integer) -> Vec<u8> {
    to_be_bytes_padded(c, pk.ciphertext_len()).unwrap_or_default()
}

fn statement_transcript(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    pai: Option<&PaillierShuffle<'_>>,
    eg: Option<&ElGamalShuffle<'_>>,
) -> Transcript {
    let n = com.u.len();
    let mut t = Transcript::for_protocol(
        if pai.is_some() {
            b"quorate/mixnet/tw-shuffle"
        } else if eg.is_some() {
            b"quorate/mixnet/tw-shuffle-elgamal"
        } else {
            b"quorate/mixnet/tw-permutation"
        },
        1,
        sid,
    );
    t.append_party(b"prover", prover);
    t.append_point(b"g", &gens.g);
    t.append_point(b"h0", &gens.h0);
    t.append_points(b"h_i", gens.hs.get(..n).unwrap_or(&[]));
    t.append_points(b"u", &com.u);
    if let Some(p) = pai {
        t.append_message(b"N", &p.pk.to_bytes());
        t.append_u64_be(b"inputs", p.inputs.len() as u64);
        for c in p.inputs {
            t.append_message(b"w", &ct_bytes(p.pk, c.as_integer()));
        }
        t.append_u64_be(b"outputs", p.outputs.len() as u64);
        for c in p.outputs {
            t.append_message(b"w'", &ct_bytes(p.pk, c.as_integer()));
        }
    }
    if let Some(p) = eg {
        t.append_point(b"pk", p.pk);
        append_ciphertexts(&mut t, b"inputs", p.inputs);
        append_ciphertexts(&mut t, b"outputs", p.outputs);
    }
    t
}

fn challenge_vector(t: &mut Transcript, n: usize, q: &Integer) -> (Vec<Integer>, Vec<Scalar>) {
    let mut buf = vec![0u8; n * (BATCH_BITS as usize / 8)];
    t.challenge_bytes(b"e", &mut buf);
    let ints: Vec<Integer> = buf
        .chunks(BATCH_BITS as usize / 8)
        .map(|c| Integer::from_digits(c, Order::Msf))
        .collect();
    let scalars = ints.iter().map(|x| int_to_scalar(x, q)).collect();
    (ints, scalars)
}

fn absorb_commitments(t: &mut Transcript, p: &ShuffleProof, pk: Option<&PublicKey>) -> Integer {
    t.append_points(b"B", &p.b);
    t.append_point(b"A'", &p.a_p);
    t.append_points(b"B'", &p.b_p);
    t.append_point(b"C'", &p.c_p);
    t.append_point(b"D'", &p.d_p);
    if let (Some(pk), Some(f)) = (pk, &p.f_p) {
        t.append_message(b"F'", &ct_bytes(pk, f));
    }
    if let Some(f) = &p.f_eg {
        t.append_point(b"F'_a", &f.a);
        t.append_point(b"F'_b", &f.b);
    }
    let mut v = [0u8; (CHALLENGE_BITS / 8) as usize];
    t.challenge_bytes(b"v", &mut v);
    Integer::from_digits(&v, Order::Msf)
}

fn affine(ps: &[G1Projective]) -> Vec<G1Affine> {
    let mut out = vec![G1Affine::identity(); ps.len()];
    G1Projective::batch_normalize(ps, &mut out);
    out
}

/// Proves the shuffle (`pai = Some`, with nonces `rho[i]` for output `i`) or the
/// permutation-commitment opening (`pai = None`).
#[allow(clippy::too_many_arguments)]
pub fn prove<R: RngCore + CryptoRng>(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    secret: &PermutationSecret,
    pai: Option<(&PaillierShuffle<'_>, &[Integer])>,
    rng: &mut R,
) -> Result<ShuffleProof, MixnetError> {
    prove_inner(sid, prover, gens, com, secret, pai, None, rng)
}

/// Proves an ElGamal shuffle against the permutation commitment: `stmt.outputs[i] =
/// stmt.inputs[π(i)]·Enc(1; rho[i])`.
#[allow(clippy::too_many_arguments)]
pub fn prove_elgamal<R: RngCore + CryptoRng>(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    secret: &PermutationSecret,
    stmt: &ElGamalShuffle<'_>,
    rho: &[Scalar],
    rng: &mut R,
) -> Result<ShuffleProof, MixnetError> {
    prove_inner(sid, prover, gens, com, secret, None, Some((stmt, rho)), rng)
}

#[allow(clippy::too_many_arguments)]
fn prove_inner<R: RngCore + CryptoRng>(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    secret: &PermutationSecret,
    pai: Option<(&PaillierShuffle<'_>, &[Integer])>,
    eg: Option<(&ElGamalShuffle<'_>, &[Scalar])>,
    rng: &mut R,
) -> Result<ShuffleProof, MixnetError> {
    let n = com.u.len();
    if secret.pi.len() != n || secret.r.len() != n || gens.n() < n || n == 0 {
        return Err(ParamError::Invalid("shuffle size mismatch").into());
    }
    let q = scalar_modulus();
    let mut t = statement_transcript(
        sid,
        prover,
        gens,
        com,
        pai.map(|(p, _)| p),
        eg.map(|(p, _)| p),
    );
    let (e_int, e) = challenge_vector(&mut t, n, &q);
    let ep: Vec<Scalar> = secret.pi.iter().map(|&j| e[j]).collect();
    let ep_int: Vec<&Integer> = secret.pi.iter().map(|&j| &e_int[j]).collect();
    // Chain in closed form: B_i = g^{d_i} h0^{p_i}.
    let bs: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
    let mut d = Vec::with_capacity(n + 1);
    let mut pprod = Vec::with_capacity(n + 1);
    d.push(Scalar::ZERO);
    pprod.push(Scalar::ONE);
    for i in 0..n {
        d.push(bs[i] + ep[i] * d[i]);
        pprod.push(pprod[i] * ep[i]);
    }
    let (g, h0) = (gens.g, gens.h0);
    let b: Vec<G1Projective> = (1..=n)
        .into_par_iter()
        .map(|i| g * d[i] + h0 * pprod[i])
        .collect();
    let alpha = Scalar::random(&mut *rng);
    let beta: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
    let gamma = Scalar::random(&mut *rng);
    let delta = Scalar::random(&mut *rng);
    let eps_int: Vec<Integer> = (0..n).map(|_| random_bits(rng, EPS_BITS)).collect();
    let eps: Vec<Scalar> = eps_int.iter().map(|x| int_to_scalar(x, &q)).collect();
    let mut pts = vec![g];
    pts.extend_from_slice(gens.hs.get(..n).unwrap_or(&[]));
    let mut sc = vec![alpha];
    sc.extend_from_slice(&eps);
    let a_p = g1_lincomb_ct(&affine(&pts), &sc);
    let b_p: Vec<G1Projective> = (0..n)
        .into_par_iter()
        .map(|i| g * (beta[i] + eps[i] * d[i]) + h0 * (eps[i] * pprod[i]))
        .collect();
    let c_p = g * gamma;
    let d_p = g * delta;
    let (f_p, phi) = match pai {
        Some((p, rho)) => {
            if p.outputs.len() != n || p.inputs.len() != n || rho.len() != n {
                return Err(ParamError::Invalid("shuffle list lengths").into());
            }
            let n2 = p.pk.n_squared();
            let phi = random_unit(rng, p.pk.n())?;
            let terms: Result<Vec<Integer>, MixnetError> = p
                .outputs
                .par_iter()
                .zip(eps_int.par_iter())
                .map(|(w, x)| Ok(pow_mod_secret(w.as_integer(), x, n2)?))
                .collect();
            let prod = terms?
                .into_iter()
                .fold(Integer::from(1), |a, b| mul_mod(&a, &b, n2));
            let f = mul_mod(&prod, &pow_mod_secret(&phi, p.pk.n(), n2)?, n2);
            (Some(f), Some(phi))
        }
        None => (None, None),
    };
    let (f_eg, phi_eg) = match eg {
        Some((p, rho)) => {
            if p.outputs.len() != n || p.inputs.len() != n || rho.len() != n {
                return Err(ParamError::Invalid("shuffle list lengths").into());
            }
            let phi = Scalar::random(&mut *rng);
            let mut pa: Vec<G1Projective> = p.outputs.iter().map(|c| c.a).collect();
            let mut pb: Vec<G1Projective> = p.outputs.iter().map(|c| c.b).collect();
            pa.push(g);
            pb.push(*p.pk);
            let mut sc = eps.clone();
            sc.push(phi);
            let f = ElGamalCiphertext {
                a: g1_lincomb_ct(&affine(&pa), &sc),
                b: g1_lincomb_ct(&affine(&pb), &sc),
            };
            (Some(f), Some(phi))
        }
        None => (None, None),
    };
    let mut proof = ShuffleProof {
        b,
        a_p,
        b_p,
        c_p,
        d_p,
        f_p,
        k_a: Scalar::ZERO,
        k_b: Vec::new(),
        k_c: Scalar::ZERO,
        k_d: Scalar::ZERO,
        k_e: Vec::new(),
        k_f: None,
        f_eg,
        k_f_eg: None,
    };
    let v_int = absorb_commitments(&mut t, &proof, pai.map(|(p, _)| p.pk));
    let v = int_to_scalar(&v_int, &q);
    let re: Scalar = secret.r.iter().zip(&e).map(|(r, e)| *r * e).sum();
    let rsum: Scalar = secret.r.iter().sum();
    proof.k_a = v * re + alpha;
    proof.k_b = bs.iter().zip(&beta).map(|(b, be)| v * b + be).collect();
    proof.k_c = v * rsum + gamma;
    proof.k_d = v * d[n] + delta;
    proof.k_e = ep_int
        .iter()
        .zip(&eps_int)
        .map(|(e, x)| Integer::from(&v_int * *e) + x)
        .collect();
    if let (Some((p, rho)), Some(phi)) = (pai, phi) {
        let nn = p.pk.n();
        let terms: Result<Vec<Integer>, MixnetError> = rho
            .par_iter()
            .zip(ep_int.par_iter())
            .map(|(r, e)| Ok(pow_mod_secret(r, e, nn)?))
            .collect();
        let big_r = terms?
            .into_iter()
            .fold(Integer::from(1), |a, b| mul_mod(&a, &b, nn));
        let phi_inv = inv_mod(&phi, nn).ok_or(ParamError::Invalid("nonce not invertible"))?;
        proof.k_f = Some(mul_mod(&pow_mod_secret(&big_r, &v_int, nn)?, &phi_inv, nn));
    }
    if let (Some((_, rho)), Some(phi)) = (eg, phi_eg) {
        let big_r: Scalar = rho.iter().zip(&ep).map(|(r, e)| *r * e).sum();
        proof.k_f_eg = Some(phi - v * big_r);
    }
    Ok(proof)
}

/// Verifies a shuffle proof (or a permutation-commitment proof when `pai` is `None`).
/// Failure blames `prover`.
pub fn verify(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    pai: Option<&PaillierShuffle<'_>>,
    proof: &ShuffleProof,
) -> Result<(), MixnetError> {
    verify_inner(sid, prover, gens, com, pai, None, proof)
}

/// Verifies an ElGamal shuffle proof; failure blames `prover`.
pub fn verify_elgamal(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    stmt: &ElGamalShuffle<'_>,
    proof: &ShuffleProof,
) -> Result<(), MixnetError> {
    verify_inner(sid, prover, gens, com, None, Some(stmt), proof)
}

fn verify_inner(
    sid: &SessionId,
    prover: PartyId,
    gens: &Generators,
    com: &PermutationCommitment,
    pai: Option<&PaillierShuffle<'_>>,
    eg: Option<&ElGamalShuffle<'_>>,
    proof: &ShuffleProof,
) -> Result<(), MixnetError> {
    let n = com.u.len();
    let bad = |check| Err(blame(prover, check));
    if n == 0
        || gens.n() < n
        || proof.b.len() != n
        || proof.b_p.len() != n
        || proof.k_b.len() != n
        || proof.k_e.len() != n
    {
        return bad("shuffle proof has the wrong shape");
    }
    if pai.is_some() != proof.f_p.is_some()
        || pai.is_some() != proof.k_f.is_some()
        || eg.is_some() != proof.f_eg.is_some()
        || eg.is_some() != proof.k_f_eg.is_some()
    {
        return bad("shuffle proof has the wrong shape");
    }
    if let Some(p) = eg {
        if p.inputs.len() != n || p.outputs.len() != n {
            return bad("shuffle list lengths");
        }
    }
    if proof
        .k_e
        .iter()
        .any(|k| *k < 0 || k.significant_bits() > EPS_BITS + 1)
    {
        return bad("shuffle proof response out of range");
    }
    let q = scalar_modulus();
    let mut t = statement_transcript(sid, prover, gens, com, pai, eg);
    let (e_int, e) = challenge_vector(&mut t, n, &q);
    let v_int = absorb_commitments(&mut t, proof, pai.map(|p| p.pk));
    let v = int_to_scalar(&v_int, &q);
    let ke: Vec<Scalar> = proof.k_e.iter().map(|k| int_to_scalar(k, &q)).collect();
    let eprod: Scalar = e.iter().product();
    let hs = gens.hs.get(..n).unwrap_or(&[]);

    // One MSM: λ_A·(A^v A′ g^{-k_A} Π h^{-k_E}) + λ_C·(C^v C′ g^{-k_C})
    //        + λ_D·(D^v D′ g^{-k_D}) + Σ λ_i (B_i^v B′_i g^{-k_B} B_{i-1}^{-k_E}) == 0.
    let mut rng = OsRng;
    let lam = |rng: &mut OsRng| {
        let x = random_bits(rng, BATCH_BITS);
        int_to_scalar(&x, &q)
    };
    let (la, lc, ld) = (lam(&mut rng), lam(&mut rng), lam(&mut rng));
    let li: Vec<Scalar> = (0..n).map(|_| lam(&mut rng)).collect();
    let mut pts: Vec<G1Projective> = Vec::with_capacity(5 * n + 6);
    let mut sc: Vec<Scalar> = Vec::with_capacity(5 * n + 6);
    let mut g_coef = -(la * proof.k_a + lc * proof.k_c + ld * proof.k_d);
    let mut h0_coef = Scalar::ZERO;
    // A = Π u^e; C = Π u / Π h.
    for j in 0..n {
        pts.push(com.u[j]);
        sc.push(la * v * e[j] + lc * v);
        pts.push(hs[j]);
        sc.push(-(la * ke[j]) - lc * v);
    }
    pts.push(proof.a_p);
    sc.push(la);
    pts.push(proof.c_p);
    sc.push(lc);
    // D = B_n / h0^{Π e}.
    pts.push(proof.b[n - 1]);
    sc.push(ld * v);
    h0_coef -= ld * v * eprod;
    pts.push(proof.d_p);
    sc.push(ld);
    for i in 0..n {
        pts.push(proof.b[i]);
        sc.push(li[i] * v);
        pts.push(proof.b_p[i]);
        sc.push(li[i]);
        g_coef -= li[i] * proof.k_b[i];
        if i == 0 {
            h0_coef -= li[i] * ke[i];
        } else {
            pts.push(proof.b[i - 1]);
            sc.push(-(li[i] * ke[i]));
        }
    }
    // ElGamal part, both components: Σ k_{E,i} w′_i − v Σ e_j w_j − F′ + k_F·(g, pk) = 0.
    if let (Some(p), Some(f), Some(k_f)) = (eg, &proof.f_eg, &proof.k_f_eg) {
        let (l0, l1) = (lam(&mut rng), lam(&mut rng));
        for i in 0..n {
            pts.push(p.outputs[i].a);
            sc.push(l0 * ke[i]);
            pts.push(p.outputs[i].b);
            sc.push(l1 * ke[i]);
            pts.push(p.inputs[i].a);
            sc.push(-(l0 * v * e[i]));
            pts.push(p.inputs[i].b);
            sc.push(-(l1 * v * e[i]));
        }
        pts.push(f.a);
        sc.push(-l0);
        pts.push(f.b);
        sc.push(-l1);
        g_coef += l0 * k_f;
        pts.push(*p.pk);
        sc.push(l1 * k_f);
    }
    pts.push(gens.g);
    sc.push(g_coef);
    pts.push(gens.h0);
    sc.push(h0_coef);
    if !bool::from(g1_msm_vartime(&pts, &sc).is_identity()) {
        return bad("shuffle proof: commitment equations");
    }
    if let (Some(p), Some(f_p), Some(k_f)) = (pai, &proof.f_p, &proof.k_f) {
        if p.inputs.len() != n || p.outputs.len() != n {
            return bad("shuffle list lengths");
        }
        let n2 = p.pk.n_squared();
        if !quorate_paillier::bigint::is_unit_in_range(f_p, n2)
            || !quorate_paillier::bigint::is_unit_in_range(k_f, p.pk.n())
        {
            return bad("shuffle proof Paillier element out of range");
        }
        let prod = |ws: &[Ciphertext], ex: &[Integer]| -> Result<Integer, MixnetError> {
            let terms: Result<Vec<Integer>, MixnetError> = ws
                .par_iter()
                .zip(ex.par_iter())
                .map(|(w, x)| Ok(pow_mod_vartime(w.as_integer(), x, n2)?))
                .collect();
            Ok(terms?
                .into_iter()
                .fold(Integer::from(1), |a, b| mul_mod(&a, &b, n2)))
        };
        let f = prod(p.inputs, &e_int)?;
        let lhs = mul_mod(
            &mul_mod(&pow_mod_vartime(&f, &v_int, n2)?, f_p, n2),
            &pow_mod_vartime(k_f, p.pk.n(), n2)?,
            n2,
        );
        let rhs = prod(p.outputs, &proof.k_e)?;
        if lhs != rhs {
            return bad("shuffle proof: Paillier equation");
        }
    }
    Ok(())
}
