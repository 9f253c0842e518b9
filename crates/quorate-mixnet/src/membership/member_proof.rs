//! Step 5 (Fig. 8): the distributed membership proof DPK_BB
//! `PK{(v, r, b): γ = g^v h^r ∧ e(S, y·f2^v) = e(g, f2)^b}`. Each server commits
//! ([`DpkCommit`] with its well-formedness proof [`DpkShareProof`]) and responds
//! ([`DpkResponseStage`]); [`MemberProofs`] is the one fold of every server's share proof
//! and responses that both verifiers (the joint check and the blame path) use.

use super::query::f2;
use crate::elgamal::{
    self, append_ciphertexts_affine, batch_affine, BatchCheck, ElGamalCiphertext, LinCheck,
};
use crate::setup::{MixServer, MixnetPublic};
use blstrs::{G1Affine, G1Projective, G2Affine, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use merlin::Transcript;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::bls12_381::pairing::pairing_product_is_identity;
use quorate_core::transcript::ProtocolTranscript;
use quorate_core::PartyId;
use rand_core::OsRng;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

/// Proof that a DPK commitment share is well formed (`R_k, M_k` share `ρ_v`; `M_k, A_k`
/// share `ρ_b`), in commitment form (batch-verifiable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DpkShareProof {
    /// First message `R′ = g^{α_v} h^{α_r}`.
    pub r1: G1Projective,
    /// First message `M′ = S^{α_v}·g^{−β_b}`.
    pub m1: G1Projective,
    /// First message `A′ = (g^{β_τ} a^{β_b}, pk^{β_τ} b^{β_b})`.
    pub a1: ElGamalCiphertext,
    /// `s_v = α_v + c ρ_v`.
    pub s_v: Scalar,
    /// `s_r = α_r + c ρ_r`.
    pub s_r: Scalar,
    /// `s_b = β_b + c ρ_b`.
    pub s_b: Scalar,
    /// `s_τ = β_τ + c τ`.
    pub s_tau: Scalar,
}

/// One server's DPK_BB commitment share for one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DpkCommit {
    /// `R_k = g^{ρ_v} h^{ρ_r}`.
    pub r_k: G1Projective,
    /// `M_k = S^{ρ_v}·g^{−ρ_b}`: only this combination is published, never `S^{ρ_v}` and
    /// `g^{ρ_b}` apart (together with the responses they would reveal `v·S` and `b·g`, and
    /// `S^{x+v} = g^b` would link the input to its output; issue 13).
    pub m_k: G1Projective,
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
    /// `z_{v,k}`.
    pub z_v: Vec<Scalar>,
    /// `z_{r,k}`.
    pub z_r: Vec<Scalar>,
    /// `z_{b,k}`.
    pub z_b: Vec<Scalar>,
    /// `z_{τ,k}`.
    pub z_tau: Vec<Scalar>,
}

pub(super) struct DpkSecrets {
    pub(super) rho_v: Vec<Scalar>,
    pub(super) rho_r: Vec<Scalar>,
    pub(super) rho_b: Vec<Scalar>,
    pub(super) tau: Vec<Scalar>,
}

impl Drop for DpkSecrets {
    fn drop(&mut self) {
        for v in [
            &mut self.rho_v,
            &mut self.rho_r,
            &mut self.rho_b,
            &mut self.tau,
        ] {
            v.iter_mut().for_each(|x| *x = Scalar::ZERO);
        }
    }
}

/// The public points of the DPK layer in affine form, computed once per stage
/// ([`batch_affine`]) so that hashing does not invert per point.
pub(super) struct AffineGens {
    pub(super) g: G1Affine,
    pub(super) h: G1Affine,
    pub(super) pk: G1Affine,
    pub(super) f2: G2Affine,
    pub(super) y: G2Affine,
}

impl AffineGens {
    pub(super) fn new(public: &MixnetPublic, y: &G2Projective) -> Self {
        let a = batch_affine(&[public.gens.g, public.gens.h, public.elgamal.pk]);
        AffineGens {
            g: a[0],
            h: a[1],
            pk: a[2],
            f2: f2().to_affine(),
            y: y.to_affine(),
        }
    }
}

/// Points of one server's DPK commitment, in hashing order:
/// `[R_k, M_k, A_k.a, A_k.b, R′, M′, A′.a, A′.b]`.
pub(super) const COMMIT_PTS: usize = 8;

pub(super) fn commit_points(c: &DpkCommit) -> [G1Projective; COMMIT_PTS] {
    let p = &c.proof;
    [c.r_k, c.m_k, c.a_k.a, c.a_k.b, p.r1, p.m1, p.a1.a, p.a1.b]
}

/// Step 5 (Fig. 8) for one member and server `k`, as both batched verifiers fold it: the
/// share proof `g^{s_v} h^{s_r} = R′ R_k^c`, `S^{s_v} g^{−s_b} = M′ M_k^c`,
/// `g^{s_τ} a^{s_b} = A′_a A_{k,a}^c`, `pk^{s_τ} b^{s_b} = A′_b A_{k,b}^c` (weights w0…w4;
/// w2 unused),
/// the responses `g^{z_v} h^{z_r} V_k^e = R_k`, `g^{z_τ} a^{z_b} D_{k,a}^e = A_{k,a}`,
/// `pk^{z_τ} b^{z_b} D_{k,b}^e = A_{k,b}` (w5…w7) and this server's part of the aggregate
/// opening (weight `λ` on `z_v`, `z_r`, `R_k`). `lc`'s fixed slots 0, 1, 2 are `g`, `h`,
/// `pk`; the member's `S`, `base.a`, `base.b` scalars go to `sums`. Returns the exponents
/// `(w6·e, w7·e)` of `D_{k,a}`, `D_{k,b}`, which the callers place differently (summed per
/// server, or pushed on the contribution directly). All inputs are public.
#[allow(clippy::too_many_arguments)]
fn fold_share_step5(
    lc: &mut LinCheck,
    wt: &mut impl FnMut() -> Scalar,
    com: &DpkCommit,
    c: Scalar,
    (zv, zr, zb, zt): (Scalar, Scalar, Scalar, Scalar),
    (lam, e): (Scalar, Scalar),
    v_com: G1Projective,
    (s_sc, ba_sc, bb_sc): (&mut Scalar, &mut Scalar, &mut Scalar),
) -> (Scalar, Scalar) {
    let p = &com.proof;
    let w: [Scalar; 8] = core::array::from_fn(|_| wt());
    lc.fixed[0] += w[0] * p.s_v - w[1] * p.s_b + w[3] * p.s_tau + w[5] * zv + w[6] * zt + lam * zv;
    lc.fixed[1] += w[0] * p.s_r + w[5] * zr + lam * zr;
    lc.fixed[2] += w[4] * p.s_tau + w[7] * zt;
    *s_sc += w[1] * p.s_v;
    *ba_sc += w[3] * p.s_b + w[6] * zb;
    *bb_sc += w[4] * p.s_b + w[7] * zb;
    lc.push(com.r_k, -(w[0] * c) - w[5] - lam);
    lc.push(p.r1, -w[0]);
    lc.push(com.m_k, -(w[1] * c));
    lc.push(p.m1, -w[1]);
    lc.push(com.a_k.a, -(w[3] * c) - w[6]);
    lc.push(p.a1.a, -w[3]);
    lc.push(com.a_k.b, -(w[4] * c) - w[7]);
    lc.push(p.a1.b, -w[4]);
    lc.push(v_com, w[5] * e);
    (w[6] * e, w[7] * e)
}

/// The share-proof challenge; `com` holds [`commit_points`] in affine form.
pub(super) fn share_challenge(
    public: &MixnetPublic,
    ag: &AffineGens,
    who: PartyId,
    index: usize,
    s: &G1Affine,
    base: (&G1Affine, &G1Affine),
    com: &[G1Affine],
) -> Scalar {
    let mut t = Transcript::for_protocol(b"quorate/mixnet/dbsm-dpk-share", 3, &public.sid);
    t.append_party(b"server", who);
    t.append_u64_be(b"input", index as u64);
    t.append_point(b"g", &ag.g);
    t.append_point(b"h", &ag.h);
    t.append_point(b"pk", &ag.pk);
    t.append_point(b"S", s);
    append_ciphertexts_affine(&mut t, b"base", &[(*base.0, *base.1)]);
    t.append_point(b"R_k", &com[0]);
    t.append_point(b"M_k", &com[1]);
    append_ciphertexts_affine(&mut t, b"A_k", &[(com[2], com[3])]);
    t.append_point(b"R'", &com[4]);
    t.append_point(b"M'", &com[5]);
    append_ciphertexts_affine(&mut t, b"A'", &[(com[6], com[7])]);
    t.challenge_scalar(b"c")
}

/// Everything hashed for one member's DPK_BB challenge and share proofs, in one flat list:
/// `[γ, V_1…V_v, base.a, base.b, D_1.a, D_1.b, …, D_d.b, S, (COMMIT_PTS per server)…]`.
pub(super) struct MemberLayout {
    pub(super) v: usize,
    pub(super) d: usize,
    pub(super) c: usize,
}

impl MemberLayout {
    pub(super) fn len(&self) -> usize {
        1 + self.v + 2 + 2 * self.d + 1 + COMMIT_PTS * self.c
    }
    pub(super) fn base(&self) -> usize {
        1 + self.v
    }
    pub(super) fn s(&self) -> usize {
        3 + self.v + 2 * self.d
    }
    pub(super) fn commit(&self, k: usize) -> usize {
        self.s() + 1 + COMMIT_PTS * k
    }
    pub(super) fn points(
        gamma: &G1Projective,
        coms: &[G1Projective],
        base: &ElGamalCiphertext,
        blinded: &[ElGamalCiphertext],
        s: &G1Projective,
        commits: &[&DpkCommit],
        out: &mut Vec<G1Projective>,
    ) {
        out.push(*gamma);
        out.extend_from_slice(coms);
        out.extend([base.a, base.b]);
        out.extend(blinded.iter().flat_map(|d| [d.a, d.b]));
        out.push(*s);
        for c in commits {
            out.extend(commit_points(c));
        }
    }
}

/// The DPK_BB challenge for member `index`: binds the session, the generators, both keys,
/// the sender's `γ`, the share commitments `V_k`, the blinded ciphertexts, `S` and every
/// server's commitments. `pts` is the member's [`MemberLayout`] in affine form.
pub(super) fn dpk_challenge(
    public: &MixnetPublic,
    ag: &AffineGens,
    index: usize,
    lay: &MemberLayout,
    pts: &[G1Affine],
) -> Scalar {
    let mut t = Transcript::for_protocol(b"quorate/mixnet/dbsm-dpk-bb", 3, &public.sid);
    t.append_u64_be(b"input", index as u64);
    t.append_point(b"g", &ag.g);
    t.append_point(b"h", &ag.h);
    t.append_point(b"f2", &ag.f2);
    t.append_point(b"y", &ag.y);
    t.append_point(b"pk", &ag.pk);
    t.append_point(b"gamma", &pts[0]);
    t.append_points(b"V_k", &pts[1..1 + lay.v]);
    let b = lay.base();
    append_ciphertexts_affine(&mut t, b"base", &[(pts[b], pts[b + 1])]);
    let ds: Vec<(G1Affine, G1Affine)> = (0..lay.d)
        .map(|k| (pts[b + 2 + 2 * k], pts[b + 3 + 2 * k]))
        .collect();
    append_ciphertexts_affine(&mut t, b"D", &ds);
    t.append_point(b"S", &pts[lay.s()]);
    t.append_u64_be(b"servers", lay.c as u64);
    for k in 0..lay.c {
        let o = lay.commit(k);
        t.append_point(b"R_k", &pts[o]);
        t.append_point(b"M_k", &pts[o + 1]);
        append_ciphertexts_affine(&mut t, b"A_k", &[(pts[o + 2], pts[o + 3])]);
    }
    t.challenge_scalar(b"e")
}

/// Per member: the [`MemberLayout`] points of every member in affine form (one batch
/// normalisation) and the DPK_BB challenges. `commits[k][u]`, `blinding[k][t]`.
#[allow(clippy::too_many_arguments)]
pub(super) fn member_challenges(
    public: &MixnetPublic,
    ag: &AffineGens,
    members: &[(usize, usize)],
    gammas: &[G1Projective],
    coms: &[&[G1Projective]],
    bases: &[ElGamalCiphertext],
    blinding: &[&[ElGamalCiphertext]],
    s: &[G1Projective],
    commits: &[&[DpkCommit]],
) -> (MemberLayout, Vec<G1Affine>, Vec<Scalar>) {
    let lay = MemberLayout {
        v: coms.first().map_or(0, |c| c.len()),
        d: blinding.len(),
        c: commits.len(),
    };
    let mut flat = Vec::with_capacity(lay.len() * members.len());
    for (u, &(_, t)) in members.iter().enumerate() {
        let blinded: Vec<ElGamalCiphertext> = blinding.iter().map(|b| b[t]).collect();
        let cs: Vec<&DpkCommit> = commits.iter().map(|c| &c[u]).collect();
        MemberLayout::points(
            &gammas[u], coms[u], &bases[t], &blinded, &s[t], &cs, &mut flat,
        );
    }
    let aff = batch_affine(&flat);
    let e = members
        .par_iter()
        .enumerate()
        .map(|(u, &(idx, _))| {
            dpk_challenge(
                public,
                ag,
                idx,
                &lay,
                &aff[u * lay.len()..(u + 1) * lay.len()],
            )
        })
        .collect();
    (lay, aff, e)
}

impl MixServer {
    pub(super) fn dpk_commit<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        members: &[(usize, usize)],
        bases: &[ElGamalCiphertext],
        s: &[G1Projective],
        rng: &mut R,
    ) -> (DpkCommitStage, DpkSecrets) {
        let cnt = members.len();
        let mut draw = |_| Scalar::random(&mut *rng);
        let secrets = DpkSecrets {
            rho_v: (0..cnt).map(&mut draw).collect(),
            rho_r: (0..cnt).map(&mut draw).collect(),
            rho_b: (0..cnt).map(&mut draw).collect(),
            tau: (0..cnt).map(&mut draw).collect(),
        };
        let mut masks: Vec<[Scalar; 4]> = (0..cnt)
            .map(|_| [draw(0), draw(0), draw(0), draw(0)])
            .collect();
        // Secret exponents (ρ_v, ρ_r, ρ_b, τ and the masks): constant-time multiplications.
        let tables = public.elgamal_tables();
        let mut commits: Vec<DpkCommit> = (0..cnt)
            .into_par_iter()
            .map(|t| {
                let (_, pos) = members[t];
                let (base, sv) = (&bases[pos], s[pos]);
                let (rv, rr, rb, tau) = (
                    secrets.rho_v[t],
                    secrets.rho_r[t],
                    secrets.rho_b[t],
                    secrets.tau[t],
                );
                let [av, ar, ab, at] = masks[t];
                DpkCommit {
                    r_k: public.gens.g_h_mul_ct(&rv, &rr),
                    m_k: sv * rv - public.gens.g_mul_ct(&rb),
                    a_k: tables.rerandomize(&public.gens, &base.pow(&rb), &tau),
                    proof: DpkShareProof {
                        r1: public.gens.g_h_mul_ct(&av, &ar),
                        m1: sv * av - public.gens.g_mul_ct(&ab),
                        a1: tables.rerandomize(&public.gens, &base.pow(&ab), &at),
                        s_v: Scalar::ZERO,
                        s_r: Scalar::ZERO,
                        s_b: Scalar::ZERO,
                        s_tau: Scalar::ZERO,
                    },
                }
            })
            .collect();
        // Per member: `[S, base.a, base.b]` then the commitment points, normalised at once.
        const PER: usize = 3 + COMMIT_PTS;
        let flat: Vec<G1Projective> = members
            .iter()
            .zip(&commits)
            .flat_map(|(&(_, pos), c)| {
                let mut v = vec![s[pos], bases[pos].a, bases[pos].b];
                v.extend(commit_points(c));
                v
            })
            .collect();
        let aff = batch_affine(&flat);
        let ag = AffineGens::new(public, &G2Projective::generator());
        commits.par_iter_mut().enumerate().for_each(|(t, com)| {
            let (idx, _) = members[t];
            let x = &aff[PER * t..PER * (t + 1)];
            let c = share_challenge(public, &ag, self.id, idx, &x[0], (&x[1], &x[2]), &x[3..]);
            let [av, ar, ab, at] = masks[t];
            let p = &mut com.proof;
            p.s_v = av + c * secrets.rho_v[t];
            p.s_r = ar + c * secrets.rho_r[t];
            p.s_b = ab + c * secrets.rho_b[t];
            p.s_tau = at + c * secrets.tau[t];
        });
        // The proof nonces are secret: wipe them.
        masks.iter_mut().for_each(|m| *m = [Scalar::ZERO; 4]);
        (
            DpkCommitStage {
                mixer: self.id,
                commits,
            },
            secrets,
        )
    }
}

/// Adds the five relations of one DPK commitment-share proof to `batch` (the per-server
/// check that names a culprit after the joint check failed).
pub(super) fn batch_share_proof(
    public: &MixnetPublic,
    who: PartyId,
    index: usize,
    s: &G1Projective,
    base: &ElGamalCiphertext,
    com: &DpkCommit,
    batch: &mut BatchCheck,
) {
    let (g, h, epk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    let p = &com.proof;
    let ag = AffineGens::new(public, &G2Projective::generator());
    let mut pts = vec![*s, base.a, base.b];
    pts.extend(commit_points(com));
    let x = batch_affine(&pts);
    let c = share_challenge(public, &ag, who, index, &x[0], (&x[1], &x[2]), &x[3..]);
    let one = -Scalar::ONE;
    batch.add(&[
        &[(g, p.s_v), (h, p.s_r), (com.r_k, -c), (p.r1, one)],
        &[(*s, p.s_v), (g, -p.s_b), (com.m_k, -c), (p.m1, one)],
        &[
            (g, p.s_tau),
            (base.a, p.s_b),
            (com.a_k.a, -c),
            (p.a1.a, one),
        ],
        &[
            (epk, p.s_tau),
            (base.b, p.s_b),
            (com.a_k.b, -c),
            (p.a1.b, one),
        ],
    ]);
}

/// The published step-5 data of one query as both verifiers read it (the optimistic joint
/// check and the step-by-step blame path): the members' hashed points and DPK_BB
/// challenges, one fold of every server's share proof and responses per member
/// ([`MemberProofs::fold`]), and the batched aggregate pairing equation
/// ([`MemberProofs::pairing_holds`]). All inputs are public.
pub(super) struct MemberProofs<'a> {
    public: &'a MixnetPublic,
    ag: &'a AffineGens,
    /// `(i, t)`: the member's input index and its position in `I`.
    members: &'a [(usize, usize)],
    /// `γ_i` per member.
    gammas: Vec<G1Projective>,
    /// `V_{k}` per member, server order.
    share_coms: &'a [&'a [G1Projective]],
    commits: &'a [(PartyId, &'a DpkCommitStage)],
    responses: &'a [(PartyId, &'a DpkResponseStage)],
    lay: MemberLayout,
    aff: Vec<G1Affine>,
    /// The DPK_BB challenge `e` per member.
    pub(super) e: Vec<Scalar>,
}

impl<'a> MemberProofs<'a> {
    /// Hashes every member's statement and commitments (shapes checked by the caller).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        public: &'a MixnetPublic,
        ag: &'a AffineGens,
        members: &'a [(usize, usize)],
        gammas: Vec<G1Projective>,
        share_coms: &'a [&'a [G1Projective]],
        (bases, blinding, s): (
            &[ElGamalCiphertext],
            &[&[ElGamalCiphertext]],
            &[G1Projective],
        ),
        commits: &'a [(PartyId, &'a DpkCommitStage)],
        responses: &'a [(PartyId, &'a DpkResponseStage)],
    ) -> Self {
        let commit_lists: Vec<&[DpkCommit]> =
            commits.iter().map(|(_, c)| c.commits.as_slice()).collect();
        let (lay, aff, e) = member_challenges(
            public,
            ag,
            members,
            &gammas,
            share_coms,
            bases,
            blinding,
            s,
            &commit_lists,
        );
        MemberProofs {
            public,
            ag,
            members,
            gammas,
            share_coms,
            commits,
            responses,
            lay,
            aff,
            e,
        }
    }

    /// Step 5 of member `u` for every server `k`, folded into `lc` with fresh weights from
    /// `wt` ([`fold_share_step5`]: share proof, responses and the server's part of the
    /// aggregate opening `g^{Σz_v} h^{Σz_r} γ^e = Π R_k`). The exponents of the member's
    /// `S`, `base.a`, `base.b` are added to `sums`, those of `D_{k,a}`, `D_{k,b}` to
    /// `da[k]`, `db[k]`; the caller pushes those points.
    pub(super) fn fold(
        &self,
        lc: &mut LinCheck,
        wt: &mut impl FnMut() -> Scalar,
        u: usize,
        (s_sc, ba_sc, bb_sc): (&mut Scalar, &mut Scalar, &mut Scalar),
        da: &mut [Scalar],
        db: &mut [Scalar],
    ) {
        let (idx, _) = self.members[u];
        let e = self.e[u];
        let lam = wt();
        let lay = &self.lay;
        let row = &self.aff[u * lay.len()..(u + 1) * lay.len()];
        let (sa, ba, bb) = (&row[lay.s()], &row[lay.base()], &row[lay.base() + 1]);
        lc.push(self.gammas[u], lam * e);
        for (kp, ((k, cst), (_, rst))) in self.commits.iter().zip(self.responses).enumerate() {
            let c = share_challenge(
                self.public,
                self.ag,
                *k,
                idx,
                sa,
                (ba, bb),
                &row[lay.commit(kp)..lay.commit(kp) + COMMIT_PTS],
            );
            let (ea, eb) = fold_share_step5(
                lc,
                wt,
                &cst.commits[u],
                c,
                (rst.z_v[u], rst.z_r[u], rst.z_b[u], rst.z_tau[u]),
                (lam, e),
                self.share_coms[u][kp],
                (&mut *s_sc, &mut *ba_sc, &mut *bb_sc),
            );
            da[kp] += ea;
            db[kp] += eb;
        }
    }

    /// The aggregate pairing equation of every member, batched with 128-bit weights `μ_u`:
    /// `e(Σ μ_u (g^{Σz_b} S^{−Σz_v} M), f2) · e(Σ μ_u e_u S_u, y) = 1` (`s` indexed by
    /// position in `I`).
    pub(super) fn pairing_holds(&self, s: &[G1Projective]) -> bool {
        if self.members.is_empty() {
            return true;
        }
        let mut rng = OsRng;
        let cnt = self.members.len();
        let (mut pts2, mut sc2) = (Vec::with_capacity(2 * cnt + 1), Vec::new());
        let (mut pts3, mut sc3) = (Vec::with_capacity(cnt), Vec::new());
        let mut gc2 = Scalar::ZERO;
        for (u, &(_, t)) in self.members.iter().enumerate() {
            let mu = elgamal::batch_weight(&mut rng);
            let m_sum: G1Projective = self.commits.iter().map(|(_, st)| st.commits[u].m_k).sum();
            let zv: Scalar = self.responses.iter().map(|(_, r)| r.z_v[u]).sum();
            let zb: Scalar = self.responses.iter().map(|(_, r)| r.z_b[u]).sum();
            gc2 += mu * zb;
            pts2.extend([s[t], m_sum]);
            sc2.extend([-(mu * zv), mu]);
            pts3.push(s[t]);
            sc3.push(mu * self.e[u]);
        }
        pts2.push(self.public.gens.g);
        sc2.push(gc2);
        let x = g1_msm_vartime(&pts2, &sc2);
        let ys = g1_msm_vartime(&pts3, &sc3);
        pairing_product_is_identity(&[(x.to_affine(), self.ag.f2), (ys.to_affine(), self.ag.y)])
    }
}
