//! DB-RSM, the distributed proof of *reverse* set membership (paper Fig. 9, as rebuilt in
//! the design notes): for a set `I` of inputs, the mix-servers prove to the querier `Q`, for
//! every output `j`, whether its value `v′_j` opens one of the commitments `γ_i`, `i ∈ I`
//! (output `j` came from `I`) or not, without revealing which one. [`run`] is the servers'
//! side (an in-process driver over the per-server stage functions, like
//! [`crate::membership::run`]); [`verify`] is the querier's side and uses public data only: every
//! message it checks is published, every commitment it uses comes with a proof.
//!
//! # Protocol (Fig. 9 steps, as implemented here)
//! 1. **Quasi-signatures** (steps 2–3, [`querier_quasi_sign`], [`check_quasi_signatures`]).
//! 2. **Signature track** (steps 5–7 for `S_i`): forward shuffle with TW proofs against the
//!    Mix permutation commitments, blinding `D_{k,j} = Enc(1; ρ)·F_m[j]^{b_{k,j}}` with the
//!    **published** Pedersen commitment `B_{k,j} = g^{b_{k,j}} h^{s_{k,j}}` and one proof that
//!    both use the same `b_{k,j}` ([`RsmBlindProof`]), threshold decryption to
//!    `S̃_j = S_{π(j)}^{b_j}`; non-members (`S̃_j = 1`) open their blinding to show `b_j ≠ 0`
//!    ([`NonMemberOpening`]).
//! 3. **Witness track** (steps 4–7 for `c`, `r + r̂`, [`crate::witness`]): the packed list
//!    `Enc(c_i + 2^K (r_i + r̂_i))` shuffled forward and converted, for the members only, to
//!    additive shares with hiding per-server commitments `C_k` (of `c`) and `R_k` (of
//!    `ρ = r + r̂`).
//! 4. **Beaver** (step 8): `r′ = ρ·b` from the committed shares of `ρ` (`R_k`) and `b`
//!    (`B_{k,j}`) with a dealer's Pedersen-committed triple; the product shares come with
//!    publicly computable Pedersen commitments `Z_k`.
//! 5. **DPK_BBS+** (step 8) on the statement commitments `(C_k, B_{k,j}, Z_k)`.
//!
//! # BBS+ quasi-signatures (Fig. 9 step 2)
//! The querier `Q` picks a fresh key `x`, publishes `y = f2^x` (`f2` the G2 generator) and,
//! for every queried input `i ∈ I` with commitment `γ_i = g^{v_i} h^{r_i}`, draws `c_i, r̂_i`
//! and publishes
//!
//! `S_i = (f1 · h^{r̂_i} · γ_i)^{1/(c_i + x)}`,
//!
//! a BBS+ signature on `v_i` with randomness `(c_i, r_i + r̂_i)` that `Q` computes without
//! knowing `v_i` or `r_i` ("quasi"). `f1` is a hash-to-curve generator independent of
//! `g, h` ([`bbs_f1`]).
//!
//! # Batched check (Fig. 9 step 3)
//! `S^{c+x} = f1 h^{r̂} γ` is `e(S, y)·e(S^c·γ⁻¹·h^{−r̂}·f1⁻¹, f2) = 1`. Every server and the
//! querier check all of them at once with independent 128-bit weights `δ_i`:
//!
//! `e(Σ δ_i S_i, y) · e(Σ δ_i (c_i S_i − γ_i − r̂_i h) − (Σ δ_i) f1, f2) = 1`
//!
//! (one two-term pairing product and three MSMs). A false signature survives with
//! probability ≤ 2^{-128}. Degenerate cases are typed errors: `y = 1`, `S_i = 1` (would make
//! the blinded signature carry no information: the artifact never checked it, defect 11),
//! `c_i + x = 0` is avoided by the signer, repeated or out-of-range indices.
//!
//! # Beaver multiplication on hiding commitments (Fig. 9 step 8)
//! DPK_BBS+ needs additive shares of `r′ = ρ·b`. A dealer (a preprocessing assumption, like
//! the threshold-Paillier dealer; the artifact used one too, defect 4) hands out triples
//! `(a, b, c = ab)` in additive shares with per-server Pedersen commitments
//! `A_k = g^{a_k} h^{α_k}`, `B_k = g^{b_k} h^{β_k}`, `C_k = g^{c_k} h^{γ_k}` and a Σ-proof
//! that the sums multiply: knowledge of `(b, β, τ)` with `B = g^b h^β`, `C = A^b h^τ`
//! ([`TripleProof`], [`verify_triples`]: all triples in one MSM with 128-bit weights), so a
//! dealer whose triples do not multiply is caught before use. Each server checks its own
//! shares against its commitments ([`TripleShares::check_against`]). No commitment to
//! `a`, `b` other than the hiding `A_k`, `B_k` is published.
//!
//! To multiply `x = Σx_k` and `w = Σw_k` with published commitments `X_k = g^{x_k} h^{ξ_k}`,
//! `W_k = g^{w_k} h^{ω_k}`, server `k` opens `d_k = x_k − a_k`, `e_k = w_k − b_k` and the
//! randomness differences `δ_k = ξ_k − α_k`, `ε_k = ω_k − β_k` ([`beaver_open`]). Everybody
//! checks `X_k − A_k = g^{d_k} h^{δ_k}` and `W_k − B_k = g^{e_k} h^{ε_k}`, which **names** a
//! server that opens wrongly ([`beaver_check_openings`]; opening another `d_k` would need
//! `log_g h`), sums `d = Σd_k`, `e = Σe_k`, and then `z_k = c_k + e·a_k + d·b_k (+ d·e for
//! k = 1)` are additive shares of `xw` with randomness `γ_k + e·α_k + d·β_k` and publicly
//! computable commitments `Z_k = C_k + e·A_k + d·B_k (+ de·g)`
//! ([`beaver_product_commitments`]); DPK_BBS+ uses `Z_k` as the `r′` commitments, so a
//! server using a wrong product share fails its DPK share check and is named.
//!
//! **What the openings hide, and from whom.** `d_k = x_k − a_k` and `e_k = w_k − b_k` are
//! one-time pads with `a_k, b_k, α_k, β_k` that the **dealer knows**. They hide `x` and `w`
//! only from parties that do not know the pads. A dealer colluding with the querier (or
//! with all servers) learns `x = d + a` and `w = e + b`, the witness randomness and the
//! blindings `b_j`; with `b_j` the querier unblinds `S_{π(j)} = S̃_j^{1/b_j}` and links
//! every output to its queried input. **DB-RSM's privacy therefore rests on a dealer that
//! does not collude with the querier.** The public checks ([`verify_triples`],
//! [`TripleShares::check_against`]) prove only that the triples multiply, not that the
//! dealer forgot them.
//!
//! **One query, one use.** Two uses of a triple open `x − a` and `x′ − a`, whose difference
//! publishes `x − x′` to everybody. So the querier draws a fresh [`QueryId`] with its
//! query ([`BbsQuery::query_id`]), the dealer deals for that id ([`deal_triples`]; each
//! triple carries it and its proof's challenge binds it), and: [`verify_triples`] refuses
//! a triple of another query ([`MixnetError::TripleForOtherQuery`]); a server's
//! [`TripleShares`] (not `Clone`) refuse another query's id and are marked used by
//! [`beaver_open`], which refuses a second opening ([`MixnetError::TripleReused`], naming
//! the server and the query); [`run`] checks both before any work.

use crate::elgamal::batch_weight;
use crate::error::MixnetError;
use crate::params::GENERATOR_DST;
pub use crate::query::{BbsQuery, QuasiSignature, QueryId};
use crate::setup::MixnetPublic;
use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_core::bls12_381::hash::hash_to_g1;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::bls12_381::pairing::pairing_product_is_identity;
use quorate_core::{Blame, ParamError, PartyId};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

/// `f1`, the BBS+ base of the quasi-signatures: hash-to-curve, independent of `g`, `h`.
pub fn bbs_f1() -> G1Projective {
    hash_to_g1(b"f1", GENERATOR_DST)
}

fn f2() -> G2Projective {
    G2Projective::generator()
}

/// The querier's BBS+ secret key (wiped on drop, redacted in `Debug`).
pub struct BbsQuerierKey {
    x: Scalar,
}

impl Drop for BbsQuerierKey {
    fn drop(&mut self) {
        self.x = Scalar::ZERO;
    }
}

impl core::fmt::Debug for BbsQuerierKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("BbsQuerierKey(<redacted>)")
    }
}

fn check_index_set(set: &[usize], n: usize) -> bool {
    set.windows(2).all(|w| w[0] < w[1]) && set.last().is_none_or(|&l| l < n)
}

/// Fig. 9 step 2: the querier quasi-signs the commitments `γ_i`, `i ∈ I` (`gammas` are the
/// accepted inputs' commitments, in input order) under a fresh [`QueryId`]; the dealer then
/// deals this query's triples ([`deal_triples`] with [`BbsQuery::query_id`]).
pub fn querier_quasi_sign<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    gammas: &[G1Projective],
    inputs_i: &[usize],
    rng: &mut R,
) -> Result<(BbsQuerierKey, BbsQuery), MixnetError> {
    if gammas.len() != public.n || !check_index_set(inputs_i, public.n) {
        return Err(MixnetError::InvalidQuery(
            "index set must be strictly increasing and below n",
        ));
    }
    let f1 = bbs_f1();
    let h = public.gens.h;
    let mut x = Scalar::random(&mut *rng);
    while bool::from(x.is_zero()) {
        x = Scalar::random(&mut *rng);
    }
    let key = BbsQuerierKey { x };
    let query_id = QueryId::random(&mut *rng);
    let draws: Vec<(Scalar, Scalar)> = inputs_i
        .iter()
        .map(|_| loop {
            let c = Scalar::random(&mut *rng);
            // c + x = 0 has probability 2^{-255}; redraw rather than fail.
            if !bool::from((c + key.x).is_zero()) {
                break (c, Scalar::random(&mut *rng));
            }
        })
        .collect();
    let xk = key.x;
    let sigs: Vec<QuasiSignature> = inputs_i
        .par_iter()
        .zip(draws.par_iter())
        .map(|(&i, &(c, r_hat))| {
            // c + x ≠ 0 by construction, so the inverse exists.
            let inv = Option::<Scalar>::from((c + xk).invert()).unwrap_or(Scalar::ZERO);
            QuasiSignature {
                s: (f1 + h * r_hat + gammas[i]) * inv,
                c,
                r_hat,
            }
        })
        .collect();
    if sigs.iter().any(|s| bool::from(s.s.is_identity())) {
        // f1 h^{r̂} γ = 1 would need a discrete-log relation among hash-to-curve points.
        return Err(MixnetError::InvalidQuery("degenerate quasi-signature"));
    }
    let y = f2() * key.x;
    Ok((
        key,
        BbsQuery {
            query_id,
            inputs: inputs_i.to_vec(),
            y,
            sigs,
        },
    ))
}

/// Fig. 9 step 3: every server's (and the querier's) check of a DB-RSM query: shapes,
/// degenerate elements, and all quasi-signatures batch-verified with 128-bit weights.
pub fn check_quasi_signatures(
    public: &MixnetPublic,
    gammas: &[G1Projective],
    q: &BbsQuery,
) -> Result<(), MixnetError> {
    if gammas.len() != public.n || !check_index_set(&q.inputs, public.n) {
        return Err(MixnetError::InvalidQuery(
            "index set must be strictly increasing and below n",
        ));
    }
    if q.sigs.len() != q.inputs.len() {
        return Err(MixnetError::InvalidQuery("one quasi-signature per input"));
    }
    if bool::from(q.y.is_identity()) {
        return Err(MixnetError::InvalidQuery("BBS+ public key is the identity"));
    }
    if q.sigs.iter().any(|s| bool::from(s.s.is_identity())) {
        return Err(MixnetError::InvalidQuery(
            "quasi-signature S_i is the identity",
        ));
    }
    if q.sigs.is_empty() {
        return Ok(());
    }
    let mut rng = OsRng;
    let delta: Vec<Scalar> = q.sigs.iter().map(|_| batch_weight(&mut rng)).collect();
    let pts_s: Vec<G1Projective> = q.sigs.iter().map(|s| s.s).collect();
    let a = g1_msm_vartime(&pts_s, &delta);
    // Σ δ_i (c_i S_i − γ_i − r̂_i h) − (Σ δ_i) f1, as one MSM.
    let k = q.sigs.len();
    let mut pts = Vec::with_capacity(2 * k + 2);
    let mut sc = Vec::with_capacity(2 * k + 2);
    let (mut hsum, mut dsum) = (Scalar::ZERO, Scalar::ZERO);
    for ((&i, s), d) in q.inputs.iter().zip(&q.sigs).zip(&delta) {
        pts.extend([s.s, gammas[i]]);
        sc.extend([*d * s.c, -*d]);
        hsum += *d * s.r_hat;
        dsum += d;
    }
    pts.extend([public.gens.h, bbs_f1()]);
    sc.extend([-hsum, -dsum]);
    let b = g1_msm_vartime(&pts, &sc);
    if !pairing_product_is_identity(&[
        (a.to_affine(), q.y.to_affine()),
        (b.to_affine(), f2().to_affine()),
    ]) {
        return Err(MixnetError::InvalidQuery("quasi-signatures do not verify"));
    }
    Ok(())
}

/// The public part of one Beaver triple: the query it was dealt for, per-server Pedersen
/// commitments and the dealer's proof that the committed values multiply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriplePublic {
    /// The query this triple was dealt for (bound by the proof's challenge).
    pub query: QueryId,
    /// `A_k = g^{a_k} h^{α_k}`, one per server.
    pub a: Vec<G1Projective>,
    /// `B_k = g^{b_k} h^{β_k}`.
    pub b: Vec<G1Projective>,
    /// `C_k = g^{c_k} h^{γ_k}`.
    pub c: Vec<G1Projective>,
    /// The dealer's proof that `c = ab` for the sums.
    pub proof: TripleProof,
}

/// The dealer's proof for one triple, in commitment form (batch-verifiable): knowledge of
/// `(b, β, τ)` with `B = g^b h^β` and `C = A^b h^τ` (`A, B, C` the sums over the servers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TripleProof {
    /// `T_B = g^{u_b} h^{u_β}`.
    pub t_b: G1Projective,
    /// `T_C = A^{u_b} h^{u_τ}`.
    pub t_c: G1Projective,
    /// `z_b = u_b + e b`.
    pub z_b: Scalar,
    /// `z_β = u_β + e β`.
    pub z_beta: Scalar,
    /// `z_τ = u_τ + e τ`.
    pub z_tau: Scalar,
}

/// One server's shares of a list of triples dealt for one query, with their Pedersen
/// randomness (wiped on drop, redacted in `Debug`). Single-use: [`beaver_open`] marks them
/// used and refuses a second opening ([`MixnetError::TripleReused`]); the type is not
/// `Clone`.
pub struct TripleShares {
    /// The server.
    pub mixer: PartyId,
    /// The query the triples were dealt for.
    query: QueryId,
    /// Whether [`beaver_open`] has opened them.
    used: bool,
    /// `(a_k, b_k, c_k)` per triple.
    v: Vec<[Scalar; 3]>,
    /// `(α_k, β_k, γ_k)` per triple.
    r: Vec<[Scalar; 3]>,
}

impl Drop for TripleShares {
    fn drop(&mut self) {
        for x in self.v.iter_mut().chain(self.r.iter_mut()) {
            *x = [Scalar::ZERO; 3];
        }
    }
}

impl core::fmt::Debug for TripleShares {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "TripleShares({:?}, {:?}, {} triples, used: {}, <redacted>)",
            self.mixer,
            self.query,
            self.v.len(),
            self.used
        )
    }
}

impl TripleShares {
    /// Number of triples held.
    pub fn len(&self) -> usize {
        self.v.len()
    }

    /// Whether no triple is held.
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }

    /// The query the triples were dealt for.
    pub fn query(&self) -> &QueryId {
        &self.query
    }

    /// Whether they have been opened ([`beaver_open`]); used triples are never opened again.
    pub fn is_used(&self) -> bool {
        self.used
    }

    /// Refuses shares that are used or dealt for another query than `query`.
    pub fn check_usable(&self, query: &QueryId) -> Result<(), MixnetError> {
        if self.query != *query {
            return Err(MixnetError::TripleForOtherQuery {
                holder: Some(self.mixer),
                query: *query,
                dealt_for: self.query,
            });
        }
        if self.used {
            return Err(MixnetError::TripleReused {
                mixer: self.mixer,
                query: self.query,
            });
        }
        Ok(())
    }

    /// The server's check of its own shares against the dealer's commitments
    /// (`g^{a_k} h^{α_k} = A_k`, …), so a dealer handing a server inconsistent shares is
    /// caught, and that the triples were dealt for the same query as the shares. All
    /// relations in one MSM with 128-bit weights.
    pub fn check_against(&self, public: &MixnetPublic, triples: &[TriplePublic]) -> bool {
        let (g, h) = (public.gens.g, public.gens.h);
        let pos = self.mixer.position();
        if triples.len() != self.v.len() || triples.iter().any(|t| t.query != self.query) {
            return false;
        }
        let one = -Scalar::ONE;
        let batch: Option<BatchCheck> = triples
            .par_iter()
            .enumerate()
            .map(|(t, tp)| {
                let (v, r) = (&self.v[t], &self.r[t]);
                let (a, b, c) = (tp.a.get(pos)?, tp.b.get(pos)?, tp.c.get(pos)?);
                let mut bc = BatchCheck::default();
                bc.add(&[
                    &[(g, v[0]), (h, r[0]), (*a, one)],
                    &[(g, v[1]), (h, r[1]), (*b, one)],
                    &[(g, v[2]), (h, r[2]), (*c, one)],
                ]);
                Some(bc)
            })
            .try_reduce(BatchCheck::default, |mut x, y| {
                x.extend(y);
                Some(x)
            });
        batch.is_some_and(|b| b.holds())
    }
}

fn triple_challenge(
    public: &MixnetPublic,
    index: usize,
    tp: &TriplePublic,
    t_b: &G1Projective,
    t_c: &G1Projective,
) -> Scalar {
    let mut t = Transcript::for_protocol(b"quorate/mixnet/beaver-triple", 2, &public.sid);
    t.append_message(b"query", tp.query.as_bytes());
    t.append_u64_be(b"triple", index as u64);
    t.append_point(b"g", &public.gens.g);
    t.append_point(b"h", &public.gens.h);
    t.append_points(b"A_k", &tp.a);
    t.append_points(b"B_k", &tp.b);
    t.append_points(b"C_k", &tp.c);
    t.append_point(b"T_B", t_b);
    t.append_point(b"T_C", t_c);
    t.challenge_scalar(b"e")
}

/// The triple dealer (a preprocessing assumption, see the module docs): `count` triples for
/// the query `query` and every server of `public` (in order), each with its multiplication
/// proof, which binds `query`. Triples are single-use: every query needs fresh ones, and
/// servers and verifiers refuse triples dealt for another query.
pub fn deal_triples<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    query: &QueryId,
    count: usize,
    rng: &mut R,
) -> (Vec<TriplePublic>, Vec<TripleShares>) {
    let (g, h) = (public.gens.g, public.gens.h);
    let parties: Vec<PartyId> = public.params.parties().collect();
    let m = parties.len();
    let mut shares: Vec<TripleShares> = parties
        .iter()
        .map(|&p| TripleShares {
            mixer: p,
            query: *query,
            used: false,
            v: Vec::with_capacity(count),
            r: Vec::with_capacity(count),
        })
        .collect();
    let mut publics = Vec::with_capacity(count);
    let draw = |rng: &mut R| Scalar::random(&mut *rng);
    for t in 0..count {
        let a: Vec<Scalar> = (0..m).map(|_| draw(rng)).collect();
        let b: Vec<Scalar> = (0..m).map(|_| draw(rng)).collect();
        let al: Vec<Scalar> = (0..m).map(|_| draw(rng)).collect();
        let be: Vec<Scalar> = (0..m).map(|_| draw(rng)).collect();
        let (asum, bsum): (Scalar, Scalar) = (a.iter().sum(), b.iter().sum());
        let (alsum, besum): (Scalar, Scalar) = (al.iter().sum(), be.iter().sum());
        let split = |total: Scalar, rng: &mut R| {
            let mut v: Vec<Scalar> = (0..m.saturating_sub(1)).map(|_| draw(rng)).collect();
            let rest: Scalar = v.iter().sum();
            v.push(total - rest);
            v
        };
        let c = split(asum * bsum, rng);
        // Any γ works; the proof's τ = Σγ − (Σα)·b.
        let ga: Vec<Scalar> = (0..m).map(|_| draw(rng)).collect();
        let tau = ga.iter().sum::<Scalar>() - alsum * bsum;
        let com = |x: &[Scalar], r: &[Scalar]| -> Vec<G1Projective> {
            x.iter().zip(r).map(|(x, r)| g * x + h * r).collect()
        };
        let mut tp = TriplePublic {
            query: *query,
            a: com(&a, &al),
            b: com(&b, &be),
            c: com(&c, &ga),
            proof: TripleProof {
                t_b: G1Projective::identity(),
                t_c: G1Projective::identity(),
                z_b: Scalar::ZERO,
                z_beta: Scalar::ZERO,
                z_tau: Scalar::ZERO,
            },
        };
        let a_pt: G1Projective = tp.a.iter().sum();
        let (u_b, u_be, u_t) = (draw(rng), draw(rng), draw(rng));
        let (t_b, t_c) = (g * u_b + h * u_be, a_pt * u_b + h * u_t);
        let e = triple_challenge(public, t, &tp, &t_b, &t_c);
        tp.proof = TripleProof {
            t_b,
            t_c,
            z_b: u_b + e * bsum,
            z_beta: u_be + e * besum,
            z_tau: u_t + e * tau,
        };
        publics.push(tp);
        for (k, sh) in shares.iter_mut().enumerate() {
            sh.v.push([a[k], b[k], c[k]]);
            sh.r.push([al[k], be[k], ga[k]]);
        }
    }
    (publics, shares)
}

/// Public check of the dealer's triples for the query `query`: every triple dealt for it
/// ([`MixnetError::TripleForOtherQuery`] otherwise), shapes, and every triple's
/// multiplication proof
/// (`g^{z_b} h^{z_β} = T_B + e·B`, `A^{z_b} h^{z_τ} = T_C + e·C`, so by the binding of
/// Pedersen commitments `c = ab`), all in one MSM with independent 128-bit weights. No
/// commitment to the triple values in the clear is published (a `G2` commitment `f2^b`, as
/// an earlier version used, together with the opened `e = w − b` would reveal `f2^w` for
/// the multiplied witness and link outputs to inputs).
pub fn verify_triples(
    public: &MixnetPublic,
    query: &QueryId,
    triples: &[TriplePublic],
) -> Result<(), MixnetError> {
    if let Some(t) = triples.iter().find(|t| t.query != *query) {
        return Err(MixnetError::TripleForOtherQuery {
            holder: None,
            query: *query,
            dealt_for: t.query,
        });
    }
    let m = usize::from(public.params.n());
    if triples
        .iter()
        .any(|t| t.a.len() != m || t.b.len() != m || t.c.len() != m)
    {
        return Err(ParamError::Invalid("Beaver triple commitments: one per server").into());
    }
    let (g, h) = (public.gens.g, public.gens.h);
    let batch = triples
        .par_iter()
        .enumerate()
        .map(|(t, tp)| {
            let p = &tp.proof;
            let e = triple_challenge(public, t, tp, &p.t_b, &p.t_c);
            let (a, b, c): (G1Projective, G1Projective, G1Projective) =
                (tp.a.iter().sum(), tp.b.iter().sum(), tp.c.iter().sum());
            let one = -Scalar::ONE;
            let mut bc = BatchCheck::default();
            bc.add(&[
                &[(g, p.z_b), (h, p.z_beta), (b, -e), (p.t_b, one)],
                &[(a, p.z_b), (h, p.z_tau), (c, -e), (p.t_c, one)],
            ]);
            bc
        })
        .reduce(BatchCheck::default, |mut a, b| {
            a.extend(b);
            a
        });
    if batch.holds() {
        Ok(())
    } else {
        Err(MixnetError::ProofRejected(
            "Beaver triples are not multiplication triples",
        ))
    }
}

/// One server's Beaver openings for a list of products: `d_k = x_k − a_k`, `e_k = w_k − b_k`
/// and the differences of the Pedersen randomness (`X_k − A_k = g^{d_k} h^{δ_k}`,
/// `W_k − B_k = g^{e_k} h^{ε_k}`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeaverOpening {
    /// The server.
    pub mixer: PartyId,
    /// `d_k`.
    pub d: Vec<Scalar>,
    /// `δ_k = ξ_k − α_k`.
    pub d_rand: Vec<Scalar>,
    /// `e_k`.
    pub e: Vec<Scalar>,
    /// `ε_k = ω_k − β_k`.
    pub e_rand: Vec<Scalar>,
}

/// A committed input share: the value and the Pedersen randomness of its public commitment
/// `g^{value} h^{rand}` (wiped on drop).
#[derive(Clone)]
pub struct CommittedShare {
    /// The share.
    pub value: Scalar,
    /// Its commitment randomness.
    pub rand: Scalar,
}

impl Drop for CommittedShare {
    fn drop(&mut self) {
        self.value = Scalar::ZERO;
        self.rand = Scalar::ZERO;
    }
}

impl core::fmt::Debug for CommittedShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CommittedShare(<redacted>)")
    }
}

/// Server side: opens `x_k − a_k` and `w_k − b_k` (with the randomness differences) with the
/// first `x.len()` triples, for the query `query`. Refuses triples dealt for another query
/// ([`MixnetError::TripleForOtherQuery`]) and triples already opened
/// ([`MixnetError::TripleReused`]), then marks them used.
pub fn beaver_open(
    shares: &mut TripleShares,
    query: &QueryId,
    x: &[CommittedShare],
    w: &[CommittedShare],
) -> Result<BeaverOpening, MixnetError> {
    shares.check_usable(query)?;
    if x.len() != w.len() || x.len() > shares.len() {
        return Err(ParamError::Invalid("Beaver inputs: equal lengths, enough triples").into());
    }
    shares.used = true;
    let (v, r) = (&shares.v, &shares.r);
    Ok(BeaverOpening {
        mixer: shares.mixer,
        d: x.iter().zip(v).map(|(x, t)| x.value - t[0]).collect(),
        d_rand: x.iter().zip(r).map(|(x, t)| x.rand - t[0]).collect(),
        e: w.iter().zip(v).map(|(w, t)| w.value - t[1]).collect(),
        e_rand: w.iter().zip(r).map(|(w, t)| w.rand - t[1]).collect(),
    })
}

/// Public check of every server's openings against the published Pedersen commitments
/// `X_k`, `W_k` (`x_coms[k][t]`, server order) and the triples: `X_k − A_k = g^{d_k}
/// h^{δ_k}` and `W_k − B_k = g^{e_k} h^{ε_k}`. A wrong opening names its server (binding
/// of the commitments: a server that opens another `d_k` must know a discrete-log relation
/// between `g` and `h`). Returns the opened `(d, e)` per product. One MSM for all servers,
/// per-server re-checks only on failure.
pub fn beaver_check_openings(
    public: &MixnetPublic,
    triples: &[TriplePublic],
    x_coms: &[Vec<G1Projective>],
    w_coms: &[Vec<G1Projective>],
    openings: &[BeaverOpening],
) -> Result<Vec<(Scalar, Scalar)>, MixnetError> {
    let parties: Vec<PartyId> = public.params.parties().collect();
    let m = parties.len();
    let cnt = x_coms.first().map_or(0, Vec::len);
    if x_coms.len() != m || w_coms.len() != m || cnt > triples.len() {
        return Err(ParamError::Invalid("Beaver input commitments: one list per server").into());
    }
    if openings.len() != m {
        return Err(ParamError::LengthMismatch {
            what: "Beaver openings",
            expected: m,
            got: openings.len(),
        }
        .into());
    }
    let (g, h) = (public.gens.g, public.gens.h);
    let batches: Vec<Option<BatchCheck>> = (0..m)
        .map(|k| {
            let o = &openings[k];
            let shapes = o.mixer == parties[k]
                && [o.d.len(), o.d_rand.len(), o.e.len(), o.e_rand.len()]
                    .iter()
                    .all(|&l| l == cnt)
                && x_coms[k].len() == cnt
                && w_coms[k].len() == cnt;
            shapes.then(|| {
                let mut b = BatchCheck::default();
                let one = -Scalar::ONE;
                for t in 0..cnt {
                    let (Some(a), Some(bb)) = (triples[t].a.get(k), triples[t].b.get(k)) else {
                        return None;
                    };
                    b.add(&[
                        &[
                            (g, o.d[t]),
                            (h, o.d_rand[t]),
                            (*a, Scalar::ONE),
                            (x_coms[k][t], one),
                        ],
                        &[
                            (g, o.e[t]),
                            (h, o.e_rand[t]),
                            (*bb, Scalar::ONE),
                            (w_coms[k][t], one),
                        ],
                    ]);
                }
                Some(b)
            })?
        })
        .collect();
    let culprits = BatchCheck::failing(parties.iter().copied(), &batches);
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(Blame::many(
            culprits,
            "Beaver opening",
        )));
    }
    Ok((0..cnt)
        .map(|t| {
            let d: Scalar = openings.iter().map(|o| o.d[t]).sum();
            let e: Scalar = openings.iter().map(|o| o.e[t]).sum();
            (d, e)
        })
        .collect())
}

/// Server side: the product shares `z_k = c_k + e·a_k + d·b_k (+ d·e at the first server)`
/// with their Pedersen randomness `ζ_k = γ_k + e·α_k + d·β_k`, opening
/// [`beaver_product_commitments`].
pub fn beaver_product_shares(
    shares: &TripleShares,
    first: bool,
    opened: &[(Scalar, Scalar)],
) -> Result<Vec<CommittedShare>, MixnetError> {
    if opened.len() > shares.len() {
        return Err(ParamError::Invalid("more products than triples").into());
    }
    Ok(opened
        .iter()
        .zip(shares.v.iter().zip(&shares.r))
        .map(|((d, e), (v, r))| {
            let mut z = v[2] + *e * v[0] + *d * v[1];
            if first {
                z += *d * e;
            }
            CommittedShare {
                value: z,
                rand: r[2] + *e * r[0] + *d * r[1],
            }
        })
        .collect())
}

/// Public: the Pedersen commitments `Z_k = C_k + e·A_k + d·B_k (+ de·g at the first
/// server)` to the product shares, `[server][product]`.
pub fn beaver_product_commitments(
    public: &MixnetPublic,
    triples: &[TriplePublic],
    opened: &[(Scalar, Scalar)],
) -> Result<Vec<Vec<G1Projective>>, MixnetError> {
    let m = usize::from(public.params.n());
    if opened.len() > triples.len() {
        return Err(ParamError::Invalid("more products than triples").into());
    }
    let g = public.gens.g;
    (0..m)
        .map(|k| {
            opened
                .par_iter()
                .zip(triples.par_iter())
                .map(|((d, e), tp)| {
                    let (Some(a), Some(b), Some(c)) = (tp.a.get(k), tp.b.get(k), tp.c.get(k))
                    else {
                        return Err(blame_dealer());
                    };
                    let mut z = g1_msm_vartime(&[*c, *a, *b], &[Scalar::ONE, *e, *d]);
                    if k == 0 {
                        z += g * (*d * e);
                    }
                    Ok(z)
                })
                .collect()
        })
        .collect()
}

fn blame_dealer() -> MixnetError {
    ParamError::Invalid("Beaver triple commitments: one per server").into()
}

// ---------------------------------------------------------------------------------------
// DPK_BBS+ (Fig. 9 step 8), distributed Schnorr in GT with per-server blame.
// ---------------------------------------------------------------------------------------
//
// Statement for one output with public value `v′` and blinded signature `S̃ = S^b ≠ 1`
// (multiplicative blinding as in DB-SM, so an empty slot stays `1`):
//
//   `Y := e(S̃, y) = A^{c} · E^{b} · H^{r′}`,  `A = e(S̃, f2)^{-1}`, `E = e(f1 g^{v′}, f2)`,
//   `H = e(h, f2)`,
//
// with witnesses `c` (the BBS+ exponent), `b` (the blinding) and `r′ = r·b` (`r` the BBS+
// randomness; the product comes from Beaver multiplication). This is the design notes'
// `z2` equation after the substitution `r′ = r·b`: knowledge of `(c, b, r′)` with `b ≠ 0`
// gives `S* = S̃^{1/b}` with `e(S*, y·f2^{c}) = e(f1 g^{v′} h^{r′/b}, f2)`, a BBS+ signature
// on `v′`, so no separate product proof (the notes' `z1` and third equation) is needed for
// soundness; `b = 0` would force `S̃ = 1`, which is rejected. The product only has to be
// *computed* from shares, which [`beaver_open`] does.
//
// Server `k` holds additive shares `(c_k, b_k, r′_k)` with public Pedersen commitments
// `C_k = g^{c_k} h^{s_c}`, `B_k = g^{b_k} h^{s_b}`, `R_k = g^{r′_k} h^{s_r}` (from the upstream
// steps: `C_k` from the witness conversion, `B_k` from the blinding, `R_k = Z_k` from Beaver). It
// publishes `Y_k = A^{c_k} E^{b_k} H^{r′_k}` and the commitments `T_k = A^{α_c} E^{α_b}
// H^{α_r}`, `U_{c,k} = g^{α_c} h^{β_c}`, `U_{b,k}`, `U_{r,k}`; the challenge `e` hashes the
// session, protocol, generators, `y`, `S̃`, `v′`, every `C_k, B_k, R_k, Y_k, T_k, U_k`; the
// responses are `z = α − e·w` per witness and per Pedersen randomness.
//
// The querier checks every server's three Pedersen relations on every run (one MSM with
// 128-bit weights over all servers and outputs; per server only on failure, to name it),
// then the aggregate `Σ_k T_k = A^{Σz_c} E^{Σz_b} H^{Σz_r} · Y^{e}`, written with pairings as
// `e(S̃^{−Σz_c} (f1 g^{v′})^{Σz_b} h^{Σz_r}, f2) · e(e·S̃, y)`, batched over outputs with
// 128-bit weights (two pairings in all plus one 128-bit GT exponentiation per output). If
// the aggregate fails, every server's GT relation `T_k = … · Y_k^{e}` is checked: a failing
// server is named; if all pass, `Σ Y_k ≠ Y` and the statement is false
// ([`MixnetError::DpkFailed`]).

use crate::elgamal::BatchCheck;
use blstrs::{Compress, Gt};
use merlin::Transcript;
use quorate_core::transcript::ProtocolTranscript;

/// One server's public Pedersen commitments to its witness shares for one output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WitnessCommitments {
    /// `C_k = g^{c_k} h^{s_c}`.
    pub c: G1Projective,
    /// `B_k = g^{b_k} h^{s_b}`.
    pub b: G1Projective,
    /// `R_k = g^{r′_k} h^{s_r}`.
    pub r: G1Projective,
}

/// One server's witness shares for one output (wiped on drop, redacted in `Debug`).
#[derive(Clone)]
pub struct WitnessShares {
    /// `c_k`, `b_k`, `r′_k`.
    pub w: [Scalar; 3],
    /// The Pedersen randomness `s_c`, `s_b`, `s_r`.
    pub s: [Scalar; 3],
}

impl Drop for WitnessShares {
    fn drop(&mut self) {
        self.w = [Scalar::ZERO; 3];
        self.s = [Scalar::ZERO; 3];
    }
}

impl core::fmt::Debug for WitnessShares {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("WitnessShares(<redacted>)")
    }
}

/// The public statement of one DPK_BBS+.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BbsDpkStatement {
    /// Output position `j`.
    pub index: usize,
    /// The blinded signature `S̃` (must not be the identity).
    pub s_tilde: G1Projective,
    /// The output value `v′_j`.
    pub v_out: Scalar,
    /// Every server's witness commitments, in server order.
    pub coms: Vec<WitnessCommitments>,
}

/// One server's DPK_BBS+ commitment message for one output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BbsDpkCommit {
    /// `Y_k = A^{c_k} E^{b_k} H^{r′_k}`.
    pub y_k: Gt,
    /// `T_k = A^{α_c} E^{α_b} H^{α_r}`.
    pub t_k: Gt,
    /// `U_k = g^{α} h^{β}` for `c`, `b`, `r′`.
    pub u: [G1Projective; 3],
}

/// One server's responses `z_w = α − e·w` and `z_s = β − e·s` (for `c`, `b`, `r′`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BbsDpkResponse {
    /// Witness responses.
    pub z_w: [Scalar; 3],
    /// Pedersen-randomness responses.
    pub z_s: [Scalar; 3],
}

/// A distributed DPK_BBS+ for one output: every server's messages in server order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BbsDpkProof {
    /// The servers, in order.
    pub mixers: Vec<PartyId>,
    /// Their commitments.
    pub commits: Vec<BbsDpkCommit>,
    /// Their responses.
    pub responses: Vec<BbsDpkResponse>,
}

/// A server's nonces between the commit and response rounds (wiped on drop).
pub struct BbsDpkNonces {
    alpha: [Scalar; 3],
    beta: [Scalar; 3],
}

impl Drop for BbsDpkNonces {
    fn drop(&mut self) {
        self.alpha = [Scalar::ZERO; 3];
        self.beta = [Scalar::ZERO; 3];
    }
}

impl core::fmt::Debug for BbsDpkNonces {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("BbsDpkNonces(<redacted>)")
    }
}

/// Bytes of a compressed `Gt` element (the wire form, [`crate::wire_rsm::GT_BYTES`]).
pub(crate) const GT_COMPRESSED_BYTES: usize = 288;

/// The canonical compressed encoding of a `Gt` element (torus compression with canonical
/// `Fp` coordinates, as `blstrs` writes it); `None` for the identity, which has none.
pub(crate) fn gt_compressed(x: &Gt) -> Option<Vec<u8>> {
    // Torus compression divides by the `c1` coordinate, which is zero only for `±1`; `-1`
    // is outside the order-q subgroup, so excluding the identity excludes both.
    if bool::from(x.is_identity()) {
        return None;
    }
    let mut out = Vec::with_capacity(GT_COMPRESSED_BYTES);
    x.write_compressed(&mut out).ok()?;
    Some(out)
}

/// Absorbs a `Gt` element by its canonical encoding: `0x01 ‖ compressed` (288 bytes), or
/// `0x00` for the identity (issue 13: this hashed the `Debug` string before, which is not
/// a specified encoding).
pub(crate) fn append_gt(t: &mut Transcript, label: &'static [u8], x: &Gt) {
    match gt_compressed(x) {
        Some(bytes) => {
            let mut msg = Vec::with_capacity(1 + bytes.len());
            msg.push(1u8);
            msg.extend_from_slice(&bytes);
            t.append_message(label, &msg);
        }
        None => t.append_message(label, &[0u8]),
    }
}

/// `f1·g^{v′}`.
fn message_base(public: &MixnetPublic, v_out: &Scalar) -> G1Projective {
    bbs_f1() + public.gens.g * v_out
}

/// `A^{w_c} E^{w_b} H^{w_r}` as one pairing `e(S̃^{−w_c} (f1 g^{v′})^{w_b} h^{w_r}, f2)`.
fn gt_combo(public: &MixnetPublic, st: &BbsDpkStatement, w: &[Scalar; 3]) -> Gt {
    let p = g1_msm_vartime(
        &[st.s_tilde, message_base(public, &st.v_out), public.gens.h],
        &[-w[0], w[1], w[2]],
    );
    blstrs::pairing(&p.to_affine(), &f2().to_affine())
}

fn check_statement(public: &MixnetPublic, st: &BbsDpkStatement) -> Result<(), MixnetError> {
    let m = usize::from(public.params.n());
    if st.coms.len() != m {
        return Err(ParamError::LengthMismatch {
            what: "DPK_BBS+ witness commitments",
            expected: m,
            got: st.coms.len(),
        }
        .into());
    }
    if bool::from(st.s_tilde.is_identity()) {
        return Err(MixnetError::InvalidQuery(
            "blinded signature S̃ is the identity",
        ));
    }
    Ok(())
}

/// The DPK_BBS+ challenge: binds session, protocol, version, generators, the querier's key,
/// the statement and every server's commitments.
pub fn bbs_dpk_challenge(
    public: &MixnetPublic,
    y: &G2Projective,
    st: &BbsDpkStatement,
    commits: &[BbsDpkCommit],
) -> Scalar {
    let mut t = Transcript::for_protocol(b"quorate/mixnet/dbrsm-dpk-bbs+", 2, &public.sid);
    t.append_u64_be(b"output", st.index as u64);
    t.append_point(b"g", &public.gens.g);
    t.append_point(b"h", &public.gens.h);
    t.append_point(b"f1", &bbs_f1());
    t.append_point(b"f2", &f2());
    t.append_point(b"y", y);
    t.append_point(b"S~", &st.s_tilde);
    t.append_scalar(b"v'", &st.v_out);
    t.append_u64_be(b"servers", st.coms.len() as u64);
    for c in &st.coms {
        t.append_point(b"C_k", &c.c);
        t.append_point(b"B_k", &c.b);
        t.append_point(b"R_k", &c.r);
    }
    t.append_u64_be(b"commits", commits.len() as u64);
    for c in commits {
        append_gt(&mut t, b"Y_k", &c.y_k);
        append_gt(&mut t, b"T_k", &c.t_k);
        t.append_points(b"U_k", &c.u);
    }
    t.challenge_scalar(b"e")
}

impl BbsDpkNonces {
    fn draw<R: RngCore + CryptoRng>(rng: &mut R) -> Self {
        BbsDpkNonces {
            alpha: [(); 3].map(|_| Scalar::random(&mut *rng)),
            beta: [(); 3].map(|_| Scalar::random(&mut *rng)),
        }
    }
}

fn commit_with_nonces(
    public: &MixnetPublic,
    st: &BbsDpkStatement,
    shares: &WitnessShares,
    nonces: &BbsDpkNonces,
) -> Result<BbsDpkCommit, MixnetError> {
    check_statement(public, st)?;
    let (g, h) = (public.gens.g, public.gens.h);
    let u = [0, 1, 2].map(|i| g * nonces.alpha[i] + h * nonces.beta[i]);
    Ok(BbsDpkCommit {
        y_k: gt_combo(public, st, &shares.w),
        t_k: gt_combo(public, st, &nonces.alpha),
        u,
    })
}

/// Server side, round 1: `Y_k`, `T_k`, `U_k` and the nonces to keep.
pub fn bbs_dpk_commit<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    st: &BbsDpkStatement,
    shares: &WitnessShares,
    rng: &mut R,
) -> Result<(BbsDpkCommit, BbsDpkNonces), MixnetError> {
    let nonces = BbsDpkNonces::draw(rng);
    Ok((commit_with_nonces(public, st, shares, &nonces)?, nonces))
}

/// Server side, round 2: the responses for challenge `e`.
pub fn bbs_dpk_respond(
    shares: &WitnessShares,
    nonces: &BbsDpkNonces,
    e: &Scalar,
) -> BbsDpkResponse {
    BbsDpkResponse {
        z_w: [0, 1, 2].map(|i| nonces.alpha[i] - *e * shares.w[i]),
        z_s: [0, 1, 2].map(|i| nonces.beta[i] - *e * shares.s[i]),
    }
}

/// Runs the distributed DPK_BBS+ for one output in process (all servers simulated).
pub fn bbs_dpk_prove<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    y: &G2Projective,
    st: &BbsDpkStatement,
    shares: &[WitnessShares],
    rng: &mut R,
) -> Result<BbsDpkProof, MixnetError> {
    let mixers: Vec<PartyId> = public.params.parties().collect();
    if shares.len() != mixers.len() {
        return Err(ParamError::Invalid("one witness share per server").into());
    }
    let mut commits = Vec::with_capacity(shares.len());
    let mut nonces = Vec::with_capacity(shares.len());
    for sh in shares {
        let (c, n) = bbs_dpk_commit(public, st, sh, rng)?;
        commits.push(c);
        nonces.push(n);
    }
    let e = bbs_dpk_challenge(public, y, st, &commits);
    let responses = shares
        .iter()
        .zip(&nonces)
        .map(|(sh, n)| bbs_dpk_respond(sh, n, &e))
        .collect();
    Ok(BbsDpkProof {
        mixers,
        commits,
        responses,
    })
}

/// Server `k`'s three Pedersen relations of one DPK_BBS+, for a batch.
fn pedersen_relations(
    g: G1Projective,
    h: G1Projective,
    st: &BbsDpkStatement,
    pf: &BbsDpkProof,
    k: usize,
    e: &Scalar,
) -> BatchCheck {
    let (c, r, com) = (&pf.commits[k], &pf.responses[k], &st.coms[k]);
    let one = -Scalar::ONE;
    let mut b = BatchCheck::default();
    b.add(&[
        &[(g, r.z_w[0]), (h, r.z_s[0]), (com.c, *e), (c.u[0], one)],
        &[(g, r.z_w[1]), (h, r.z_s[1]), (com.b, *e), (c.u[1], one)],
        &[(g, r.z_w[2]), (h, r.z_s[2]), (com.r, *e), (c.u[2], one)],
    ]);
    b
}

/// The querier's verification of DPK_BBS+ proofs for a list of outputs: shapes; every
/// server's Pedersen relations (its responses against its published `C_k, B_k, R_k` and
/// `U_k`; one MSM for all, per server only on failure, naming it); then the aggregate GT
/// equation batched with 128-bit weights; if that fails, per-server GT checks name the
/// culprits, and [`MixnetError::DpkFailed`] (no blame) if every share checks out.
pub fn bbs_dpk_verify(
    public: &MixnetPublic,
    y: &G2Projective,
    statements: &[BbsDpkStatement],
    proofs: &[BbsDpkProof],
) -> Result<(), MixnetError> {
    if statements.len() != proofs.len() {
        return Err(ParamError::Invalid("one DPK_BBS+ proof per statement").into());
    }
    if bool::from(y.is_identity()) {
        return Err(MixnetError::InvalidQuery("BBS+ public key is the identity"));
    }
    let parties: Vec<PartyId> = public.params.parties().collect();
    for (st, pf) in statements.iter().zip(proofs) {
        check_statement(public, st)?;
        if pf.mixers != parties {
            return Err(ParamError::Invalid("DPK_BBS+ messages: every server, in order").into());
        }
        if pf.commits.len() != parties.len() || pf.responses.len() != parties.len() {
            return Err(ParamError::Invalid("DPK_BBS+ messages: one per server").into());
        }
    }
    if statements.is_empty() {
        return Ok(());
    }
    let challenges: Vec<Scalar> = statements
        .par_iter()
        .zip(proofs.par_iter())
        .map(|(st, pf)| bbs_dpk_challenge(public, y, st, &pf.commits))
        .collect();
    // Every server's Pedersen relations `g^{z_w} h^{z_s} C^{e} = U` (for `c`, `b`, `r′`),
    // checked on every run (they tie each server's responses to its published commitments):
    // all servers in one MSM with 128-bit weights, per server only on failure, to name it.
    let (g, h) = (public.gens.g, public.gens.h);
    let batches: Vec<Option<BatchCheck>> = (0..parties.len())
        .map(|k| {
            Some(
                statements
                    .par_iter()
                    .zip(proofs.par_iter())
                    .zip(challenges.par_iter())
                    .map(|((st, pf), e)| pedersen_relations(g, h, st, pf, k, e))
                    .reduce(BatchCheck::default, |mut a, b| {
                        a.extend(b);
                        a
                    }),
            )
        })
        .collect();
    let culprits = BatchCheck::failing(parties.iter().copied(), &batches);
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(Blame::many(
            culprits,
            "DPK_BBS+ share (commitment opening)",
        )));
    }
    // Σ_j λ_j (Σ_k T_{j,k}) = e(Σ_j λ_j P_j, f2) · e(Σ_j λ_j e_j S̃_j, y).
    let mut rng = OsRng;
    let lam: Vec<Scalar> = statements.iter().map(|_| batch_weight(&mut rng)).collect();
    let lhs: Gt = proofs
        .par_iter()
        .zip(lam.par_iter())
        .map(|(pf, l)| pf.commits.iter().map(|c| c.t_k).sum::<Gt>() * l)
        .sum();
    let mut pts = Vec::with_capacity(3 * statements.len());
    let mut sc = Vec::with_capacity(3 * statements.len());
    let mut pts_y = Vec::with_capacity(statements.len());
    let mut sc_y = Vec::with_capacity(statements.len());
    let mut hsum = Scalar::ZERO;
    for ((st, pf), (l, e)) in statements
        .iter()
        .zip(proofs)
        .zip(lam.iter().zip(&challenges))
    {
        let z: [Scalar; 3] = [0, 1, 2].map(|i| pf.responses.iter().map(|r| r.z_w[i]).sum());
        pts.extend([st.s_tilde, message_base(public, &st.v_out)]);
        sc.extend([-(*l * z[0]), *l * z[1]]);
        hsum += *l * z[2];
        pts_y.push(st.s_tilde);
        sc_y.push(*l * e);
    }
    pts.push(public.gens.h);
    sc.push(hsum);
    let p = g1_msm_vartime(&pts, &sc);
    let q = g1_msm_vartime(&pts_y, &sc_y);
    let rhs = blstrs::pairing(&p.to_affine(), &f2().to_affine())
        + blstrs::pairing(&q.to_affine(), &y.to_affine());
    if lhs == rhs {
        return Ok(());
    }
    // Blame: every server's GT relation of every proof (the Pedersen relations passed).
    let mut culprits = Vec::new();
    for (k, &who) in parties.iter().enumerate() {
        let ok = statements
            .par_iter()
            .zip(proofs.par_iter())
            .zip(challenges.par_iter())
            .all(|((st, pf), e)| {
                let (c, r) = (&pf.commits[k], &pf.responses[k]);
                gt_combo(public, st, &r.z_w) + c.y_k * e == c.t_k
            });
        if !ok {
            culprits.push(who);
        }
    }
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(Blame::many(
            culprits,
            "DPK_BBS+ share",
        )));
    }
    let bad = statements
        .iter()
        .zip(proofs)
        .find(|(st, pf)| {
            pf.commits.iter().map(|c| c.y_k).sum::<Gt>()
                != blstrs::pairing(&st.s_tilde.to_affine(), &y.to_affine())
        })
        .map_or(statements[0].index, |(st, _)| st.index);
    Err(MixnetError::DpkFailed { input: bad })
}

// ---------------------------------------------------------------------------------------
// Fig. 9 steps 5–7 for the signatures: forward shuffle, blinding, decryption.
// ---------------------------------------------------------------------------------------
//
// The list starts as `F_0[i] = (1, S_i)` for `i ∈ I` and `(1, 1)` elsewhere. Servers
// `k = 1 … m` re-encrypt and permute it forward, `F_k[i] = F_{k−1}[π_k(i)]·Enc(1; s_i)`,
// with the Terelius–Wikström ElGamal shuffle proof against the same permutation commitment
// as in Mix, so `F_m[j] = Enc(S_{π(j)})` for the composed `π` of the Mix outputs.
//
// Blinding (Fig. 9 step 6 for the signature). Every server blinds every slot
// multiplicatively, `D_{k,j} = Enc(1; ρ)·F_m[j]^{b_{k,j}}`, and publishes the hiding
// commitment `B_{k,j} = g^{b_{k,j}} h^{s_{k,j}}` to its blinding share, with one Σ-proof
// that the *same* `b` is used in both ([`RsmBlindProof`]):
//
//   `T = Enc(1; α)·F_m[j]^{β}`, `T_B = g^{β} h^{ζ}`, challenge `c` over session, protocol,
//   server, position, `g, h, pk`, `F_m[j]`, `D_{k,j}`, `B_{k,j}`, `T`, `T_B`;
//   `z_ρ = α + cρ`, `z_b = β + cb`, `z_s = ζ + cs`; checks `Enc(1; z_ρ)·F_m[j]^{z_b} =
//   T·D^{c}` (two G1 relations) and `g^{z_b} h^{z_s} = T_B·B^{c}`.
//
// Special soundness gives `(ρ, b, s)` from two accepting transcripts, so `B_{k,j}` commits
// to the exponent of `D_{k,j}`; from here on DPK_BBS+ and Beaver use the *published*
// `B_{k,j}`. The querier batch-verifies all proofs of all servers in one MSM with 128-bit
// weights and re-checks per server only on failure, naming the culprit.
//
// Decryption: `Π_k D_{k,j}` is threshold-decrypted with a DLEQ proof per share:
// `S̃_j = S_{π(j)}^{b_j}`, `b_j = Σ_k b_{k,j}`.
//
// Membership (Fig. 9 step 7). `S̃_j ≠ 1` means the slot held a quasi-signature (the output
// came from `I`) and DPK_BBS+ must prove it. `S̃_j = 1` happens for an empty slot **or** for
// `b_j = 0`, which colluding servers could arrange to hide a member; so for every output
// with `S̃_j = 1` every server opens `(b_{k,j}, s_{k,j})` ([`NonMemberOpening`]; harmless:
// the slot's plaintext is 1 whatever the blinding), the querier checks the openings against
// `B_{k,j}` (a wrong one names its server) and that `b_j ≠ 0`. Then `S̃_j = F_m[j]`'s
// plaintext to a non-zero power is 1, so the slot was empty: output `j` did not come from
// `I`.

use crate::elgamal::{self, append_ciphertexts, ElGamalCiphertext};
use crate::membership::{ElGamalDecStage, ReverseStage};
use crate::mix::MixRecord;
use crate::sender::SenderInput;
use crate::setup::MixServer;
use crate::sharing::{MixerShares, SharingRecord, ValueCommitments};
use crate::shuffle::{self, ElGamalShuffle};
use crate::timing::StepTimes;
use crate::witness::{self, WitnessShuffle, WitnessTrack};
use std::time::Instant;

/// Proof that `D = Enc(1; ρ)·base^{b}` and `B = g^{b} h^{s}` share `b`, in commitment form
/// (batch-verifiable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RsmBlindProof {
    /// `T = Enc(1; α)·base^{β}`.
    pub t: ElGamalCiphertext,
    /// `T_B = g^{β} h^{ζ}`.
    pub t_b: G1Projective,
    /// `z_ρ = α + cρ`.
    pub z_rho: Scalar,
    /// `z_b = β + cb`.
    pub z_b: Scalar,
    /// `z_s = ζ + cs`.
    pub z_s: Scalar,
}

/// One server's blinding of the shuffled signature list: contributions, commitments to its
/// blinding shares and proofs, one per output position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RsmBlindingStage {
    /// The server.
    pub mixer: PartyId,
    /// `D_{k,j}`.
    pub contributions: Vec<ElGamalCiphertext>,
    /// `B_{k,j} = g^{b_{k,j}} h^{s_{k,j}}`.
    pub b_coms: Vec<G1Projective>,
    /// Their proofs.
    pub proofs: Vec<RsmBlindProof>,
}

/// Everything the servers publish for the signature part of DB-RSM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureTrack {
    /// Forward shuffles, server 1 first (`outputs` is `F_k`).
    pub forward: Vec<ReverseStage>,
    /// Blinding of `F_m` with the commitments `B_{k,j}`, server 1 first.
    pub blinding: Vec<RsmBlindingStage>,
    /// ElGamal decryption shares of the blinded list.
    pub decryption: Vec<ElGamalDecStage>,
    /// `S̃_j` for every output position `j`.
    pub s_tilde: Vec<G1Projective>,
}

/// A server's blinding exponents `b_{k,j}` and the randomness `s_{k,j}` of `B_{k,j}`, per
/// output (wiped on drop, redacted in `Debug`): its DPK_BBS+ and Beaver shares of `b`.
pub struct BlindingShares {
    /// The server.
    pub mixer: PartyId,
    b: Vec<Scalar>,
    s: Vec<Scalar>,
}

impl BlindingShares {
    /// `b_{k,j}` for output `j`.
    pub fn b(&self, j: usize) -> Option<Scalar> {
        self.b.get(j).copied()
    }

    /// `(b_{k,j}, s_{k,j})`, the opening of `B_{k,j}`.
    pub fn committed(&self, j: usize) -> Option<CommittedShare> {
        Some(CommittedShare {
            value: *self.b.get(j)?,
            rand: *self.s.get(j)?,
        })
    }
}

impl Drop for BlindingShares {
    fn drop(&mut self) {
        self.b
            .iter_mut()
            .chain(self.s.iter_mut())
            .for_each(|x| *x = Scalar::ZERO);
    }
}

impl core::fmt::Debug for BlindingShares {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "BlindingShares({:?}, <redacted>)", self.mixer)
    }
}

/// `F_0`: `(1, S_i)` at `i ∈ I`, `(1, 1)` elsewhere.
pub fn initial_signature_list(n: usize, q: &BbsQuery) -> Vec<ElGamalCiphertext> {
    let mut list = vec![ElGamalCiphertext::trivial(G1Projective::identity()); n];
    for (&i, s) in q.inputs.iter().zip(&q.sigs) {
        if let Some(slot) = list.get_mut(i) {
            *slot = ElGamalCiphertext::trivial(s.s);
        }
    }
    list
}

/// The challenge of the blinding proof: binds session, protocol, version, server, output
/// position, generators, ElGamal key, the base `F_m[j]`, `D`, `B` and both first messages.
#[allow(clippy::too_many_arguments)]
pub fn rsm_blind_challenge(
    public: &MixnetPublic,
    who: PartyId,
    index: usize,
    base: &ElGamalCiphertext,
    d: &ElGamalCiphertext,
    b_com: &G1Projective,
    t: &ElGamalCiphertext,
    t_b: &G1Projective,
) -> Scalar {
    let mut tr = Transcript::for_protocol(b"quorate/mixnet/dbrsm-blinding", 1, &public.sid);
    tr.append_party(b"server", who);
    tr.append_u64_be(b"output", index as u64);
    tr.append_point(b"g", &public.gens.g);
    tr.append_point(b"h", &public.gens.h);
    tr.append_point(b"pk", &public.elgamal.pk);
    append_ciphertexts(&mut tr, b"base", core::slice::from_ref(base));
    append_ciphertexts(&mut tr, b"D", core::slice::from_ref(d));
    tr.append_point(b"B", b_com);
    append_ciphertexts(&mut tr, b"T", core::slice::from_ref(t));
    tr.append_point(b"T_B", t_b);
    tr.challenge_scalar(b"c")
}

impl MixServer {
    /// Step 5: re-encrypts `list` and moves it forward through `π` (`out[i] = list[π(i)]·
    /// Enc(1; s_i)`), with the TW ElGamal shuffle proof against this server's permutation
    /// commitment.
    pub fn forward_shuffle<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        list: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> Result<ReverseStage, MixnetError> {
        let n = public.n;
        if list.len() != n {
            return Err(ParamError::LengthMismatch {
                what: "forward shuffle input",
                expected: n,
                got: list.len(),
            }
            .into());
        }
        let (g, pk) = (public.gens.g, public.elgamal.pk);
        let s: Vec<Scalar> = (0..n).map(|_| Scalar::random(&mut *rng)).collect();
        let pi = self.permutation();
        let out: Vec<ElGamalCiphertext> = (0..n)
            .into_par_iter()
            .map(|i| {
                let src = pi.get(i).and_then(|&p| list.get(p)).copied();
                src.map(|c| c.rerandomize(&g, &pk, &s[i]))
            })
            .collect::<Option<_>>()
            .ok_or(ParamError::Invalid("permutation does not match n"))?;
        let proof = self.prove_elgamal_shuffle(public, list, &out, &s, rng)?;
        Ok(ReverseStage {
            mixer: self.id,
            outputs: out,
            proof,
        })
    }

    /// Step 6 for the signatures: blinds every element of `bases` (`F_m`), publishing
    /// `D_{k,j}`, `B_{k,j}` and the proofs; returns the stage and the blinding shares.
    pub fn rsm_blind<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        bases: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> (RsmBlindingStage, BlindingShares) {
        let (g, h, pk) = (public.gens.g, public.gens.h, public.elgamal.pk);
        let cnt = bases.len();
        let mut draw = |_| Scalar::random(&mut *rng);
        let secrets = BlindingShares {
            mixer: self.id,
            b: (0..cnt).map(&mut draw).collect(),
            s: (0..cnt).map(&mut draw).collect(),
        };
        let rho: Vec<Scalar> = (0..cnt).map(&mut draw).collect();
        let masks: Vec<[Scalar; 3]> = (0..cnt).map(|_| [draw(0), draw(0), draw(0)]).collect();
        let items: Vec<(ElGamalCiphertext, G1Projective, RsmBlindProof)> = (0..cnt)
            .into_par_iter()
            .map(|j| {
                let (base, b, s, r) = (&bases[j], secrets.b[j], secrets.s[j], rho[j]);
                let [al, be, ze] = masks[j];
                let d = base.pow(&b).rerandomize(&g, &pk, &r);
                let b_com = g * b + h * s;
                let t = base.pow(&be).rerandomize(&g, &pk, &al);
                let t_b = g * be + h * ze;
                let c = rsm_blind_challenge(public, self.id, j, base, &d, &b_com, &t, &t_b);
                (
                    d,
                    b_com,
                    RsmBlindProof {
                        t,
                        t_b,
                        z_rho: al + c * r,
                        z_b: be + c * b,
                        z_s: ze + c * s,
                    },
                )
            })
            .collect();
        let mut stage = RsmBlindingStage {
            mixer: self.id,
            contributions: Vec::with_capacity(cnt),
            b_coms: Vec::with_capacity(cnt),
            proofs: Vec::with_capacity(cnt),
        };
        for (d, b, p) in items {
            stage.contributions.push(d);
            stage.b_coms.push(b);
            stage.proofs.push(p);
        }
        (stage, secrets)
    }
}

fn verify_forward(
    public: &MixnetPublic,
    q: &BbsQuery,
    stages: &[ReverseStage],
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    let stages =
        crate::membership::check_order(public, stages, |s| s.mixer, false, "forward shuffles")?;
    let pk = public.elgamal.pk;
    let init = initial_signature_list(public.n, q);
    let mut current: &[ElGamalCiphertext] = &init;
    for (k, st) in stages {
        if st.outputs.len() != public.n {
            return Err(crate::error::blame(k, "forward shuffle output length"));
        }
        let com = public
            .perm_commitments
            .get(k.position())
            .ok_or(ParamError::Invalid("missing commitment"))?;
        let stmt = ElGamalShuffle {
            pk: &pk,
            inputs: current,
            outputs: &st.outputs,
        };
        shuffle::verify_elgamal(&public.sid, k, &public.gens, com, &stmt, &st.proof)?;
        current = &st.outputs;
    }
    if current.iter().any(|b| bool::from(b.a.is_identity())) {
        return Err(ParamError::Invalid("degenerate re-encrypted signature (a = 1)").into());
    }
    Ok(current.to_vec())
}

/// Verifies every server's blinding proofs (one MSM; per server on failure, naming it) and
/// returns the products `Π_k D_{k,j}`.
pub fn verify_rsm_blinding(
    public: &MixnetPublic,
    bases: &[ElGamalCiphertext],
    blinding: &[RsmBlindingStage],
) -> Result<Vec<ElGamalCiphertext>, MixnetError> {
    let stages =
        crate::membership::check_order(public, blinding, |s| s.mixer, false, "blinding stages")?;
    let (g, h, pk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    let cnt = bases.len();
    let batches: Vec<Option<BatchCheck>> = stages
        .iter()
        .map(|(k, st)| {
            (st.contributions.len() == cnt && st.b_coms.len() == cnt && st.proofs.len() == cnt)
                .then(|| {
                    (0..cnt)
                        .into_par_iter()
                        .map(|j| {
                            let (base, d, bc, p) =
                                (&bases[j], &st.contributions[j], st.b_coms[j], &st.proofs[j]);
                            let c = rsm_blind_challenge(public, *k, j, base, d, &bc, &p.t, &p.t_b);
                            let one = -Scalar::ONE;
                            let mut b = BatchCheck::default();
                            b.add(&[
                                &[(g, p.z_rho), (base.a, p.z_b), (d.a, -c), (p.t.a, one)],
                                &[(pk, p.z_rho), (base.b, p.z_b), (d.b, -c), (p.t.b, one)],
                                &[(g, p.z_b), (h, p.z_s), (bc, -c), (p.t_b, one)],
                            ]);
                            b
                        })
                        .reduce(BatchCheck::default, |mut a, b| {
                            a.extend(b);
                            a
                        })
                })
        })
        .collect();
    let culprits = BatchCheck::failing(stages.iter().map(|(k, _)| *k), &batches);
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(Blame::many(
            culprits,
            "DB-RSM blinding proof",
        )));
    }
    Ok((0..cnt)
        .map(|j| {
            stages.iter().fold(
                ElGamalCiphertext::trivial(G1Projective::identity()),
                |acc, (_, st)| acc.mul(&st.contributions[j]),
            )
        })
        .collect())
}

impl MixServer {
    /// Step 7 for the signatures: this server's ElGamal decryption shares (DLEQ proof each)
    /// of the blinded list `Π_k D_{k,j}` ([`verify_rsm_blinding`]'s output).
    pub fn decrypt_signature_list<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        blinded: &[ElGamalCiphertext],
        rng: &mut R,
    ) -> Result<ElGamalDecStage, MixnetError> {
        Ok(ElGamalDecStage {
            mixer: self.id,
            shares: self.elgamal_share.decrypt_shares(
                &public.gens,
                &public.elgamal,
                &public.sid,
                blinded,
                rng,
            )?,
        })
    }
}

/// Verifies every server's decryption shares of the blinded list (naming a failing server)
/// and combines them: `S̃_j` for every output.
pub fn combine_signature_decryption(
    public: &MixnetPublic,
    blinded: &[ElGamalCiphertext],
    decryption: &[ElGamalDecStage],
) -> Result<Vec<G1Projective>, MixnetError> {
    let stages =
        crate::membership::check_order(public, decryption, |s| s.mixer, false, "decryption")?;
    let refs: Vec<(PartyId, &[elgamal::ElGamalDecShare])> = stages
        .iter()
        .map(|(k, st)| (*k, st.shares.as_slice()))
        .collect();
    elgamal::verify_and_combine(&public.gens, &public.elgamal, &public.sid, blinded, &refs)
}

/// Runs steps 5–7 for the signatures in process (all servers simulated, every stage
/// checked before the next builds on it). Returns the published track and each server's
/// blinding shares.
pub fn run_signature_track<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    q: &BbsQuery,
    rng: &mut R,
) -> Result<(SignatureTrack, Vec<BlindingShares>), MixnetError> {
    run_signature_track_timed(public, servers, q, rng, &mut StepTimes::default())
}

fn run_signature_track_timed<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    q: &BbsQuery,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<(SignatureTrack, Vec<BlindingShares>), MixnetError> {
    let mut forward: Vec<ReverseStage> = Vec::with_capacity(servers.len());
    let init = initial_signature_list(public.n, q);
    for srv in servers {
        let cur = forward
            .last()
            .map(|s| s.outputs.as_slice())
            .unwrap_or(&init);
        let st = times.time(
            "M: forward shuffle of the signatures + proof",
            Some(srv.id),
            || srv.forward_shuffle(public, cur, rng),
        )?;
        forward.push(st);
    }
    let bases = times.time("M: verify all forward shuffles", None, || {
        verify_forward(public, q, &forward)
    })?;
    let mut blinding = Vec::with_capacity(servers.len());
    let mut bshares = Vec::with_capacity(servers.len());
    for srv in servers {
        let (st, sec) = times.time(
            "M: blinding with commitments B_k + proofs",
            Some(srv.id),
            || srv.rsm_blind(public, &bases, rng),
        );
        blinding.push(st);
        bshares.push(sec);
    }
    let blinded = times.time("M: verify all signature-blinding proofs", None, || {
        verify_rsm_blinding(public, &bases, &blinding)
    })?;
    let mut decryption = Vec::with_capacity(servers.len());
    for srv in servers {
        let st = times.time(
            "M: ElGamal decryption shares of S~ + proofs",
            Some(srv.id),
            || srv.decrypt_signature_list(public, &blinded, rng),
        )?;
        decryption.push(st);
    }
    let s_tilde = times.time("M: verify all S~ decryption shares + combine", None, || {
        combine_signature_decryption(public, &blinded, &decryption)
    })?;
    Ok((
        SignatureTrack {
            forward,
            blinding,
            decryption,
            s_tilde,
        },
        bshares,
    ))
}

/// The querier's (and every server's) check of the signature track: every forward shuffle,
/// blinding proof (with the commitments `B_{k,j}`) and decryption share, naming a failing
/// server. Returns the verified `S̃_j`, which must equal the published ones.
pub fn verify_signature_track(
    public: &MixnetPublic,
    q: &BbsQuery,
    track: &SignatureTrack,
) -> Result<Vec<G1Projective>, MixnetError> {
    verify_signature_track_timed(public, q, track, &mut StepTimes::default())
}

fn verify_signature_track_timed(
    public: &MixnetPublic,
    q: &BbsQuery,
    track: &SignatureTrack,
    times: &mut StepTimes,
) -> Result<Vec<G1Projective>, MixnetError> {
    let bases = times.time("Q: verify forward shuffles of the signatures", None, || {
        verify_forward(public, q, &track.forward)
    })?;
    let blinded = times.time("Q: verify signature-blinding proofs", None, || {
        verify_rsm_blinding(public, &bases, &track.blinding)
    })?;
    let s = times.time("Q: verify S~ decryption shares + combine", None, || {
        combine_signature_decryption(public, &blinded, &track.decryption)
    })?;
    if track.s_tilde != s {
        return Err(ParamError::Invalid("published S̃ differs from the verified decryption").into());
    }
    Ok(s)
}

// ---------------------------------------------------------------------------------------
// The whole DB-RSM: run (servers) and verify (querier).
// ---------------------------------------------------------------------------------------

pub use crate::membership::NonMemberOpening;

/// Everything the servers publish for one DB-RSM query (paper Fig. 9, steps 4–8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbRsmProof {
    /// Steps 5–7 for the quasi-signatures (with the blinding commitments `B_{k,j}`).
    pub signature: SignatureTrack,
    /// Openings of the blinding at the non-members (`S̃_j = 1`), server order.
    pub non_members: Vec<NonMemberOpening>,
    /// Steps 4–7 for the Paillier witnesses; the conversion covers the members only, in
    /// increasing output order.
    pub witness: WitnessTrack,
    /// Beaver openings for `r′ = ρ·b` per member, server order.
    pub beaver: Vec<BeaverOpening>,
    /// DPK_BBS+ per member, in increasing output order.
    pub dpk: Vec<BbsDpkProof>,
}

/// The outputs with `S̃_j ≠ 1` (members) and `= 1` (non-members), increasing.
fn split_members(s_tilde: &[G1Projective]) -> (Vec<usize>, Vec<usize>) {
    (0..s_tilde.len()).partition(|&j| !bool::from(s_tilde[j].is_identity()))
}

fn accepted_gammas(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
) -> Result<Vec<G1Projective>, MixnetError> {
    let inputs = crate::sharing::accepted_inputs(submissions, record)?;
    if inputs.len() != public.n {
        return Err(ParamError::Invalid("record does not have n accepted inputs").into());
    }
    Ok(inputs.iter().map(|s| s.gamma).collect())
}

/// The check of the non-member openings against a verified signature track: at every
/// output with `S̃_j = 1`, every server's `(b_{k,j}, s_{k,j})` must open its `B_{k,j}` (a
/// wrong opening names the server) and `b_j = Σ_k b_{k,j} ≠ 0` (otherwise the blinding, not
/// an empty slot, made `S̃_j = 1`: all servers are blamed, since only all of them together
/// can arrange it).
pub fn check_non_member_openings(
    public: &MixnetPublic,
    track: &SignatureTrack,
    openings: &[NonMemberOpening],
) -> Result<(), MixnetError> {
    let (_, non) = split_members(&track.s_tilde);
    check_non_members(public, &track.blinding, &non, openings)
}

fn check_non_members(
    public: &MixnetPublic,
    blinding: &[RsmBlindingStage],
    non_members: &[usize],
    openings: &[NonMemberOpening],
) -> Result<(), MixnetError> {
    let coms: Vec<(PartyId, &[G1Projective])> = blinding
        .iter()
        .map(|st| (st.mixer, st.b_coms.as_slice()))
        .collect();
    crate::membership::check_non_member_openings(public, &coms, non_members, openings)
}

/// DPK_BBS+ statements for the members (`coms[u][k]` from the witness conversion,
/// `B_{k,j}` from the blinding, `Z_k` from Beaver).
fn statements(
    record: &MixRecord,
    track: &SignatureTrack,
    members: &[usize],
    wcoms: &[Vec<ValueCommitments>],
    pcoms: &[Vec<G1Projective>],
) -> Result<Vec<BbsDpkStatement>, MixnetError> {
    members
        .iter()
        .enumerate()
        .map(|(u, &j)| {
            let coms = wcoms
                .get(u)
                .ok_or(ParamError::Invalid("missing witness commitments"))?
                .iter()
                .zip(&track.blinding)
                .zip(pcoms)
                .map(|((wc, bl), pc)| {
                    Some(WitnessCommitments {
                        c: wc.v,
                        b: *bl.b_coms.get(j)?,
                        r: *pc.get(u)?,
                    })
                })
                .collect::<Option<Vec<_>>>()
                .ok_or(ParamError::Invalid("missing commitments"))?;
            Ok(BbsDpkStatement {
                index: j,
                s_tilde: track.s_tilde[j],
                v_out: *record
                    .outputs
                    .get(j)
                    .ok_or(ParamError::Invalid("missing output"))?,
                coms,
            })
        })
        .collect()
}

/// The Beaver input commitments: `x` = the witness-track commitment `R_k` to the share of
/// `ρ = r + r̂`, `w` = the blinding commitment `B_{k,j}`; `[server][member]`.
type InputComs = (Vec<Vec<G1Projective>>, Vec<Vec<G1Projective>>);

fn beaver_input_coms(
    track: &SignatureTrack,
    members: &[usize],
    wcoms: &[Vec<ValueCommitments>],
) -> Result<InputComs, MixnetError> {
    let m = track.blinding.len();
    let mut xs = vec![Vec::with_capacity(members.len()); m];
    let mut ws = vec![Vec::with_capacity(members.len()); m];
    for (u, &j) in members.iter().enumerate() {
        let row = wcoms
            .get(u)
            .filter(|r| r.len() == m)
            .ok_or(ParamError::Invalid("witness commitments: one per server"))?;
        for k in 0..m {
            xs[k].push(row[k].r);
            ws[k].push(
                *track.blinding[k]
                    .b_coms
                    .get(j)
                    .ok_or(ParamError::Invalid("missing blinding commitment"))?,
            );
        }
    }
    Ok((xs, ws))
}

/// Runs DB-RSM in process for the query `q` (all servers simulated, every stage checked
/// before the next builds on it) and returns the published proof. `record` is the verified
/// Mix record, `submissions` the sender inputs it was built from, and `triples` /
/// `triple_shares` the dealer's Beaver triples (at least one per queried input, dealt for
/// `q.query_id`; each server's shares are opened once and then refused,
/// [`MixnetError::TripleReused`]).
#[allow(clippy::too_many_arguments)]
pub fn run<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    triple_shares: &mut [TripleShares],
    q: &BbsQuery,
    rng: &mut R,
) -> Result<DbRsmProof, MixnetError> {
    run_timed(
        public,
        servers,
        submissions,
        record,
        triples,
        triple_shares,
        q,
        rng,
        &mut StepTimes::default(),
    )
}

/// [`run`], recording each server's time per step (and the checks of the published stages,
/// which every server runs once) in `times`.
#[allow(clippy::too_many_arguments)]
pub fn run_timed<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    triple_shares: &mut [TripleShares],
    q: &BbsQuery,
    rng: &mut R,
    times: &mut StepTimes,
) -> Result<DbRsmProof, MixnetError> {
    let parties: Vec<PartyId> = public.params.parties().collect();
    if servers.len() != parties.len()
        || triple_shares.len() != parties.len()
        || servers
            .iter()
            .zip(triple_shares.iter())
            .zip(&parties)
            .any(|((s, t), &p)| s.id != p || t.mixer != p)
    {
        return Err(ParamError::Invalid("one server and one triple share set per party").into());
    }
    // Each server refuses up front to answer with triples of another query or used ones.
    for ts in triple_shares.iter() {
        ts.check_usable(&q.query_id)?;
    }
    let gammas = accepted_gammas(public, submissions, record)?;
    times.time("M: check BBS+ quasi-signatures", None, || {
        check_quasi_signatures(public, &gammas, q)
    })?;
    // Steps 5–7, signatures.
    let (signature, bshares) = run_signature_track_timed(public, servers, q, rng, times)?;
    let (members, non) = split_members(&signature.s_tilde);
    if triples.len() < members.len() {
        return Err(ParamError::Invalid("not enough Beaver triples for the members").into());
    }
    let mut non_members = Vec::with_capacity(servers.len());
    for bs in &bshares {
        let t0 = Instant::now();
        let (b, s): (Vec<Scalar>, Vec<Scalar>) = non.iter().map(|&j| (bs.b[j], bs.s[j])).unzip();
        times.add(
            "M: non-member blinding openings",
            Some(bs.mixer),
            t0.elapsed(),
        );
        non_members.push(NonMemberOpening {
            mixer: bs.mixer,
            b,
            s,
        });
    }
    times.time("M: check the non-member openings", None, || {
        check_non_members(public, &signature.blinding, &non, &non_members)
    })?;
    // Steps 4–7, Paillier witnesses: forward shuffle, then conversion of the members.
    let init = witness::initial_witness_list(public, submissions, record, q)?;
    let mut forward: Vec<crate::mix::MixStage> = Vec::with_capacity(servers.len());
    for srv in servers {
        let cur = forward
            .last()
            .map(|s| s.outputs.as_slice())
            .unwrap_or(&init);
        let st = times.time("M: Paillier witness shuffle + proof", Some(srv.id), || {
            srv.mix(public, cur, rng)
        })?;
        forward.push(st);
    }
    let shuffle = WitnessShuffle { forward };
    let w_m = times.time("M: verify all witness shuffles", None, || {
        witness::verify_witness_shuffle(public, submissions, record, q, &shuffle)
    })?;
    let bases = witness::select_members(&w_m, &members)?;
    let (conversion, wshares, wcoms): (SharingRecord, Vec<MixerShares>, _) =
        crate::sharing::run_value_sharing_timed(public, servers, &bases, rng, times)?;
    // Step 8: Beaver r′ = ρ·b, then DPK_BBS+.
    let used = &triples[..members.len()];
    for ts in triple_shares.iter() {
        let ok = times.time("M: check own Beaver triple shares", Some(ts.mixer), || {
            ts.check_against(public, &triples[..ts.len().min(triples.len())])
        });
        if !ok || ts.len() < members.len() {
            return Err(ParamError::Invalid("dealer's triple shares do not match").into());
        }
    }
    times.time("M/Q: verify the dealer's Beaver triples", None, || {
        verify_triples(public, &q.query_id, used)
    })?;
    let (x_coms, w_coms) = beaver_input_coms(&signature, &members, &wcoms)?;
    let mut beaver = Vec::with_capacity(servers.len());
    for ((ts, ws), bs) in triple_shares.iter_mut().zip(&wshares).zip(&bshares) {
        let t0 = Instant::now();
        let mut xs = Vec::with_capacity(members.len());
        let mut bsv = Vec::with_capacity(members.len());
        for (u, &j) in members.iter().enumerate() {
            let (v, r) = ws
                .value_shares(u)
                .ok_or(ParamError::Invalid("missing witness share"))?;
            xs.push(CommittedShare {
                value: v[1],
                rand: r[1],
            });
            bsv.push(
                bs.committed(j)
                    .ok_or(ParamError::Invalid("missing blinding share"))?,
            );
        }
        let o = beaver_open(ts, &q.query_id, &xs, &bsv)?;
        times.add("M: Beaver openings", Some(ts.mixer), t0.elapsed());
        beaver.push(o);
    }
    let opened = times.time("M: check all Beaver openings", None, || {
        beaver_check_openings(public, used, &x_coms, &w_coms, &beaver)
    })?;
    let mut products = Vec::with_capacity(servers.len());
    for (k, ts) in triple_shares.iter().enumerate() {
        products.push(times.time("M: Beaver product shares", Some(ts.mixer), || {
            beaver_product_shares(ts, k == 0, &opened)
        })?);
    }
    let pcoms = times.time("M: Beaver product commitments", None, || {
        beaver_product_commitments(public, used, &opened)
    })?;
    let stmts = statements(record, &signature, &members, &wcoms, &pcoms)?;
    // DPK_BBS+: every server commits for every member, then responds to the challenges.
    let mut commits: Vec<Vec<BbsDpkCommit>> = Vec::with_capacity(servers.len());
    let mut nonces: Vec<Vec<BbsDpkNonces>> = Vec::with_capacity(servers.len());
    let mut witnesses: Vec<Vec<WitnessShares>> = Vec::with_capacity(servers.len());
    for (k, ((ws, bs), prod)) in wshares.iter().zip(&bshares).zip(&products).enumerate() {
        let t0 = Instant::now();
        let wit: Vec<WitnessShares> = members
            .iter()
            .enumerate()
            .map(|(u, &j)| {
                let (v, r) = ws.value_shares(u)?;
                let b = bs.committed(j)?;
                let p = prod.get(u)?;
                Some(WitnessShares {
                    w: [v[0], b.value, p.value],
                    s: [r[0], b.rand, p.rand],
                })
            })
            .collect::<Option<_>>()
            .ok_or(ParamError::Invalid("missing witness share"))?;
        let ns: Vec<BbsDpkNonces> = members
            .iter()
            .map(|_| BbsDpkNonces::draw(&mut *rng))
            .collect();
        let cs: Vec<BbsDpkCommit> = stmts
            .par_iter()
            .zip(wit.par_iter())
            .zip(ns.par_iter())
            .map(|((st, w), n)| commit_with_nonces(public, st, w, n))
            .collect::<Result<_, MixnetError>>()?;
        times.add("M: DPK_BBS+ commitments", Some(parties[k]), t0.elapsed());
        commits.push(cs);
        nonces.push(ns);
        witnesses.push(wit);
    }
    let t0 = Instant::now();
    let challenges: Vec<Scalar> = stmts
        .par_iter()
        .enumerate()
        .map(|(u, st)| {
            let cs: Vec<BbsDpkCommit> = commits.iter().map(|c| c[u]).collect();
            bbs_dpk_challenge(public, &q.y, st, &cs)
        })
        .collect();
    times.add("M: DPK_BBS+ challenges", None, t0.elapsed());
    let mut responses: Vec<Vec<BbsDpkResponse>> = Vec::with_capacity(servers.len());
    for (k, (wit, ns)) in witnesses.iter().zip(&nonces).enumerate() {
        responses.push(times.time("M: DPK_BBS+ responses", Some(parties[k]), || {
            wit.iter()
                .zip(ns)
                .zip(&challenges)
                .map(|((w, n), e)| bbs_dpk_respond(w, n, e))
                .collect()
        }));
    }
    let dpk = (0..members.len())
        .map(|u| BbsDpkProof {
            mixers: parties.clone(),
            commits: commits.iter().map(|c| c[u]).collect(),
            responses: responses.iter().map(|r| r[u]).collect(),
        })
        .collect();
    Ok(DbRsmProof {
        signature,
        non_members,
        witness: WitnessTrack {
            shuffle,
            conversion,
        },
        beaver,
        dpk,
    })
}

/// The querier's verification of a whole DB-RSM proof for the query `q`, from public data
/// only: the quasi-signatures, every forward shuffle, blinding proof (with `B_{k,j}`) and
/// decryption share of the signature track, the non-member openings, the witness track,
/// the dealer's triples, the Beaver openings and every DPK_BBS+ (batched). `record` must
/// already have been verified ([`crate::mix::verify_record`]). Returns, for every output `j`,
/// whether it came from an input in `I` (its value `v′_j` opens one of the quasi-signed
/// commitments). Every failing server is named.
pub fn verify(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    triples: &[TriplePublic],
    q: &BbsQuery,
    proof: &DbRsmProof,
) -> Result<Vec<bool>, MixnetError> {
    verify_timed(
        public,
        submissions,
        record,
        triples,
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
    triples: &[TriplePublic],
    q: &BbsQuery,
    proof: &DbRsmProof,
    times: &mut StepTimes,
) -> Result<Vec<bool>, MixnetError> {
    let gammas = accepted_gammas(public, submissions, record)?;
    if record.outputs.len() != public.n {
        return Err(ParamError::Invalid("record does not have n outputs").into());
    }
    times.time("Q: check BBS+ quasi-signatures", None, || {
        check_quasi_signatures(public, &gammas, q)
    })?;
    let s_tilde = verify_signature_track_timed(public, q, &proof.signature, times)?;
    let (members, non) = split_members(&s_tilde);
    times.time("Q: check the non-member openings", None, || {
        check_non_members(public, &proof.signature.blinding, &non, &proof.non_members)
    })?;
    let w_m = times.time("Q: verify witness shuffles", None, || {
        witness::verify_witness_shuffle(public, submissions, record, q, &proof.witness.shuffle)
    })?;
    let bases = witness::select_members(&w_m, &members)?;
    let wcoms = times.time("Q: verify the witness conversion", None, || {
        crate::sharing::verify_value_sharing(public, &bases, &proof.witness.conversion)
    })?;
    if triples.len() < members.len() {
        return Err(ParamError::Invalid("not enough Beaver triples for the members").into());
    }
    let used = &triples[..members.len()];
    times.time("Q: verify the dealer's Beaver triples", None, || {
        verify_triples(public, &q.query_id, used)
    })?;
    let t0 = Instant::now();
    let (x_coms, w_coms) = beaver_input_coms(&proof.signature, &members, &wcoms)?;
    let opened = beaver_check_openings(public, used, &x_coms, &w_coms, &proof.beaver)?;
    let pcoms = beaver_product_commitments(public, used, &opened)?;
    let stmts = statements(record, &proof.signature, &members, &wcoms, &pcoms)?;
    times.add(
        "Q: check Beaver openings + product commitments",
        None,
        t0.elapsed(),
    );
    if proof.dpk.len() != members.len() {
        return Err(ParamError::LengthMismatch {
            what: "DPK_BBS+ proofs (one per member)",
            expected: members.len(),
            got: proof.dpk.len(),
        }
        .into());
    }
    times.time("Q: verify n DPK_BBS+ (batched)", None, || {
        bbs_dpk_verify(public, &q.y, &stmts, &proof.dpk)
    })?;
    Ok(s_tilde
        .iter()
        .map(|s| !bool::from(s.is_identity()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13: `append_gt` absorbs the canonical compressed encoding (the wire form), not
    /// a `Debug` string, and distinguishes the identity.
    #[test]
    fn append_gt_hashes_the_canonical_encoding() {
        let x = blstrs::pairing(
            &G1Projective::generator().to_affine(),
            &G2Projective::generator().to_affine(),
        ) * Scalar::from(7u64);
        let challenge = |f: &dyn Fn(&mut Transcript)| {
            let mut t = Transcript::new(b"append_gt test");
            f(&mut t);
            let mut out = [0u8; 32];
            t.challenge_bytes(b"c", &mut out);
            out
        };
        let mut wire = vec![1u8];
        wire.extend(gt_compressed(&x).unwrap_or_default());
        assert_eq!(wire.len(), 1 + GT_COMPRESSED_BYTES);
        assert_eq!(
            challenge(&|t| append_gt(t, b"Y", &x)),
            challenge(&|t| t.append_message(b"Y", &wire))
        );
        let one = Gt::identity();
        assert_eq!(
            challenge(&|t| append_gt(t, b"Y", &one)),
            challenge(&|t| t.append_message(b"Y", &[0u8]))
        );
        assert_ne!(
            challenge(&|t| append_gt(t, b"Y", &x)),
            challenge(&|t| append_gt(t, b"Y", &(x + x)))
        );
    }
}
