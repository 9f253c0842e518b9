//! Beaver multiplication on hiding commitments with a dealer's triples (DB-RSM, paper Fig. 9
//! step 8: the product `r′ = ρ·b` of two secret-shared, Pedersen-committed values).
//!
//! the blinded signature carry no information: the artifact never checked it, defect 11),
//! `c_i + x = 0` is avoided by the signer, repeated or out-of-range indices.
//!
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

use crate::elgamal::BatchCheck;
use crate::error::MixnetError;
use crate::reverse_membership::query::QueryId;
use crate::setup::MixnetPublic;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use merlin::Transcript;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::transcript::ProtocolTranscript;
use quorate_core::{Blame, ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

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

pub(crate) fn triple_challenge(
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

pub(crate) fn blame_dealer() -> MixnetError {
    ParamError::Invalid("Beaver triple commitments: one per server").into()
}
