//! DB-RSM, the distributed proof of *reverse* set membership (paper Fig. 9, as rebuilt in
//! the design notes): building blocks. **Partial**: this module has the querier's BBS+
//! quasi-signatures with their batched check (Fig. 9 steps 2–3) and the verifiable Beaver
//! multiplication used by DPK_BBS+ (step 8, the shares of `δ1 = b_S·b_c` and
//! `δ2 = δ0·b_c`). The forward shuffle of the signature triples, the blinding, their
//! threshold decryption and the aggregated DPK_BBS+ are not implemented yet (see the crate
//! docs' "Status").
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
//! # Beaver multiplication with verifiable triples (Fig. 9 step 8)
//! DPK_BBS+ needs additive shares of products of two shared blinding exponents. A dealer
//! (the same setup assumption as the threshold-Paillier dealer; the artifact used one too,
//! defect 4) hands out triples `(a, b, c = ab)` in additive shares and publishes Feldman
//! commitments `A_k = g^{a_k}`, `B_k = g^{b_k}`, `C_k = g^{c_k}` and `B̂ = f2^{b}`.
//! [`verify_triples`] checks, for every triple, `e(ΣB_k, f2) = e(g, B̂)` and
//! `e(ΣA_k, B̂) = e(ΣC_k, f2)` — i.e. `c = ab` — all triples in one multi-pairing with
//! 128-bit weights; so a wrong dealer is caught before use and the triples' correctness
//! does not have to be trusted. Each server checks its own shares against its commitments
//! ([`TripleShares::check_against`]).
//!
//! To multiply `x = Σx_k` and `w = Σw_k` with public commitments `X_k = g^{x_k}`,
//! `W_k = g^{w_k}`, server `k` opens `d_k = x_k − a_k`, `e_k = w_k − b_k`
//! ([`beaver_open`]). Everybody checks `g^{d_k} = X_k − A_k` and `g^{e_k} = W_k − B_k`,
//! which **names** a server that opens wrongly ([`beaver_check_openings`]), sums
//! `d = Σd_k`, `e = Σe_k`, and then `z_k = c_k + e·a_k + d·b_k (+ d·e for k = 1)` are
//! additive shares of `xw` with publicly computable commitments
//! `Z_k = C_k + e·A_k + d·B_k (+ de·g)` ([`beaver_product_commitments`]), so later proofs
//! using `z_k` are checked against them. The openings leak nothing: `a_k, b_k` are uniform
//! one-time pads. The check is over group elements only, so no Fiat–Shamir challenge is
//! involved here; the DPK that consumes the products binds their commitments.

use crate::elgamal::batch_weight;
use crate::error::MixnetError;
use crate::params::GENERATOR_DST;
use crate::setup::MixnetPublic;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_bls::ciphersuite::hash_to_g1;
use quorate_bls::msm::g1_msm_vartime;
use quorate_bls::pairing::pairing_product_is_identity;
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

/// One quasi-signature `S = (f1 h^{r̂} γ)^{1/(c+x)}` with its public randomness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuasiSignature {
    /// `S`.
    pub s: G1Projective,
    /// `c`.
    pub c: Scalar,
    /// `r̂`.
    pub r_hat: Scalar,
}

/// The querier's DB-RSM query: inputs `I`, BBS+ key and one quasi-signature per input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BbsQuery {
    /// `I`: queried input positions (strictly increasing).
    pub inputs: Vec<usize>,
    /// `y = f2^x`.
    pub y: G2Projective,
    /// Quasi-signatures in `I` order.
    pub sigs: Vec<QuasiSignature>,
}

fn check_index_set(set: &[usize], n: usize) -> bool {
    set.windows(2).all(|w| w[0] < w[1]) && set.last().map_or(true, |&l| l < n)
}

/// Fig. 9 step 2: the querier quasi-signs the commitments `γ_i`, `i ∈ I` (`gammas` are the
/// accepted inputs' commitments, in input order).
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

/// The public part of one Beaver triple: per-server Feldman commitments and `B̂ = f2^b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TriplePublic {
    /// `A_k = g^{a_k}`, one per server.
    pub a: Vec<G1Projective>,
    /// `B_k = g^{b_k}`.
    pub b: Vec<G1Projective>,
    /// `C_k = g^{c_k}`.
    pub c: Vec<G1Projective>,
    /// `B̂ = f2^{Σ b_k}`.
    pub b_hat: G2Projective,
}

/// One server's shares of a list of triples (wiped on drop, redacted in `Debug`).
pub struct TripleShares {
    /// The server.
    pub mixer: PartyId,
    a: Vec<Scalar>,
    b: Vec<Scalar>,
    c: Vec<Scalar>,
}

impl Drop for TripleShares {
    fn drop(&mut self) {
        for v in [&mut self.a, &mut self.b, &mut self.c] {
            v.iter_mut().for_each(|x| *x = Scalar::ZERO);
        }
    }
}

impl core::fmt::Debug for TripleShares {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "TripleShares({:?}, {} triples, <redacted>)",
            self.mixer,
            self.a.len()
        )
    }
}

impl TripleShares {
    /// Number of triples held.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether no triple is held.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// The server's check of its own shares against the dealer's commitments
    /// (`g^{a_k} = A_k`, …), so a dealer handing a server inconsistent shares is caught.
    pub fn check_against(&self, g: &G1Projective, triples: &[TriplePublic]) -> bool {
        let pos = self.mixer.position();
        triples.len() == self.a.len()
            && triples.par_iter().enumerate().all(|(t, tp)| {
                tp.a.get(pos) == Some(&(g * self.a[t]))
                    && tp.b.get(pos) == Some(&(g * self.b[t]))
                    && tp.c.get(pos) == Some(&(g * self.c[t]))
            })
    }
}

/// The triple dealer (a setup assumption, see the module docs): `count` triples for the
/// servers `parties` (in order).
pub fn deal_triples<R: RngCore + CryptoRng>(
    g: &G1Projective,
    parties: &[PartyId],
    count: usize,
    rng: &mut R,
) -> (Vec<TriplePublic>, Vec<TripleShares>) {
    let m = parties.len();
    let mut shares: Vec<TripleShares> = parties
        .iter()
        .map(|&p| TripleShares {
            mixer: p,
            a: Vec::with_capacity(count),
            b: Vec::with_capacity(count),
            c: Vec::with_capacity(count),
        })
        .collect();
    let mut publics = Vec::with_capacity(count);
    for _ in 0..count {
        let a: Vec<Scalar> = (0..m).map(|_| Scalar::random(&mut *rng)).collect();
        let b: Vec<Scalar> = (0..m).map(|_| Scalar::random(&mut *rng)).collect();
        let (asum, bsum): (Scalar, Scalar) = (a.iter().sum(), b.iter().sum());
        let prod = asum * bsum;
        let mut c: Vec<Scalar> = (0..m.saturating_sub(1))
            .map(|_| Scalar::random(&mut *rng))
            .collect();
        let rest: Scalar = c.iter().sum();
        c.push(prod - rest);
        publics.push(TriplePublic {
            a: a.iter().map(|x| g * x).collect(),
            b: b.iter().map(|x| g * x).collect(),
            c: c.iter().map(|x| g * x).collect(),
            b_hat: f2() * bsum,
        });
        for (k, sh) in shares.iter_mut().enumerate() {
            sh.a.push(a[k]);
            sh.b.push(b[k]);
            sh.c.push(c[k]);
        }
    }
    (publics, shares)
}

/// Public check of the dealer's triples: shapes, and for every triple `e(ΣB_k, f2) =
/// e(g, B̂)` and `e(ΣA_k, B̂) = e(ΣC_k, f2)` (so `c = ab`), all in one multi-pairing with
/// independent 128-bit weights.
pub fn verify_triples(
    g: &G1Projective,
    m: usize,
    triples: &[TriplePublic],
) -> Result<(), MixnetError> {
    if triples
        .iter()
        .any(|t| t.a.len() != m || t.b.len() != m || t.c.len() != m)
    {
        return Err(ParamError::Invalid("Beaver triple commitments: one per server").into());
    }
    if triples.is_empty() {
        return Ok(());
    }
    let mut rng = OsRng;
    let mut terms: Vec<(G1Affine, G2Affine)> = Vec::with_capacity(triples.len() + 2);
    let (mut left_f2, mut g_hat) = (G1Projective::identity(), G2Projective::identity());
    for t in triples {
        let (l1, l2) = (batch_weight(&mut rng), batch_weight(&mut rng));
        let a: G1Projective = t.a.iter().sum();
        let b: G1Projective = t.b.iter().sum();
        let c: G1Projective = t.c.iter().sum();
        // l1·(e(B, f2) − e(g, B̂)) + l2·(e(A, B̂) − e(C, f2)) = 0.
        terms.push(((a * l2).to_affine(), t.b_hat.to_affine()));
        left_f2 += b * l1 - c * l2;
        g_hat += t.b_hat * l1;
    }
    terms.push((left_f2.to_affine(), f2().to_affine()));
    terms.push(((-g).to_affine(), g_hat.to_affine()));
    if pairing_product_is_identity(&terms) {
        Ok(())
    } else {
        Err(ParamError::Invalid("Beaver triples are not multiplication triples").into())
    }
}

/// One server's Beaver openings `d_k = x_k − a_k`, `e_k = w_k − b_k` for a list of products.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeaverOpening {
    /// The server.
    pub mixer: PartyId,
    /// `d_k`.
    pub d: Vec<Scalar>,
    /// `e_k`.
    pub e: Vec<Scalar>,
}

/// Server side: opens `x_k − a_k` and `w_k − b_k` with the next `x.len()` triples.
pub fn beaver_open(
    shares: &TripleShares,
    x: &[Scalar],
    w: &[Scalar],
) -> Result<BeaverOpening, MixnetError> {
    if x.len() != w.len() || x.len() > shares.len() {
        return Err(ParamError::Invalid("Beaver inputs: equal lengths, enough triples").into());
    }
    Ok(BeaverOpening {
        mixer: shares.mixer,
        d: x.iter().zip(&shares.a).map(|(x, a)| x - a).collect(),
        e: w.iter().zip(&shares.b).map(|(w, b)| w - b).collect(),
    })
}

/// Public check of every server's openings against the commitments `X_k = g^{x_k}`,
/// `W_k = g^{w_k}` (`x_coms[k][t]`, server order) and the triples; a wrong opening names
/// its server. Returns the opened `(d, e)` per product. One MSM for all, with per-server
/// re-checks only on failure.
pub fn beaver_check_openings(
    g: &G1Projective,
    triples: &[TriplePublic],
    x_coms: &[Vec<G1Projective>],
    w_coms: &[Vec<G1Projective>],
    openings: &[BeaverOpening],
) -> Result<Vec<(Scalar, Scalar)>, MixnetError> {
    let m = openings.len();
    let cnt = openings.first().map_or(0, |o| o.d.len());
    if x_coms.len() != m || w_coms.len() != m || cnt > triples.len() {
        return Err(ParamError::Invalid("Beaver openings: one per server").into());
    }
    let server_ok = |k: usize| -> bool {
        let o = &openings[k];
        if o.d.len() != cnt || o.e.len() != cnt || x_coms[k].len() != cnt || w_coms[k].len() != cnt
        {
            return false;
        }
        let mut rng = OsRng;
        let mut pts = Vec::with_capacity(6 * cnt + 1);
        let mut sc = Vec::with_capacity(6 * cnt + 1);
        let mut gsum = Scalar::ZERO;
        for t in 0..cnt {
            let (l1, l2) = (batch_weight(&mut rng), batch_weight(&mut rng));
            let (Some(a), Some(b)) = (triples[t].a.get(k), triples[t].b.get(k)) else {
                return false;
            };
            // g^{d} − X + A = 0 and g^{e} − W + B = 0, weighted.
            gsum += l1 * o.d[t] + l2 * o.e[t];
            pts.extend([x_coms[k][t], *a, w_coms[k][t], *b]);
            sc.extend([-l1, l1, -l2, l2]);
        }
        pts.push(*g);
        sc.push(gsum);
        bool::from(g1_msm_vartime(&pts, &sc).is_identity())
    };
    let culprits: Vec<PartyId> = (0..m)
        .into_par_iter()
        .filter(|&k| !server_ok(k))
        .map(|k| openings[k].mixer)
        .collect();
    if !culprits.is_empty() {
        return Err(MixnetError::Misbehaviour(Blame::many(
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

/// Server side: the product shares `z_k = c_k + e·a_k + d·b_k (+ d·e at the first
/// server)` for the opened `(d, e)`.
pub fn beaver_product_shares(
    shares: &TripleShares,
    first: bool,
    opened: &[(Scalar, Scalar)],
) -> Result<Vec<Scalar>, MixnetError> {
    if opened.len() > shares.len() {
        return Err(ParamError::Invalid("more products than triples").into());
    }
    Ok(opened
        .iter()
        .enumerate()
        .map(|(t, (d, e))| {
            let z = shares.c[t] + *e * shares.a[t] + *d * shares.b[t];
            if first {
                z + *d * e
            } else {
                z
            }
        })
        .collect())
}

/// Public: the commitments `Z_k = C_k + e·A_k + d·B_k (+ de·g at the first server)` to the
/// product shares, `[server][product]`.
pub fn beaver_product_commitments(
    g: &G1Projective,
    triples: &[TriplePublic],
    opened: &[(Scalar, Scalar)],
) -> Result<Vec<Vec<G1Projective>>, MixnetError> {
    let m = triples.first().map_or(0, |t| t.a.len());
    if opened.len() > triples.len() {
        return Err(ParamError::Invalid("more products than triples").into());
    }
    (0..m)
        .map(|k| {
            opened
                .iter()
                .zip(triples)
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
