//! The querier's verification of a whole membership proof ([`verify`]): the reverse shuffles,
//! then steps 3–5 in one joint random linear combination ([`joint_check`]); if that fails,
//! the step-by-step checks ([`verify_steps`]) name every culprit.

use super::blinding::{blind_challenge, blind_points, verify_blinding};
use super::decryption::check_dbsm_non_members;
use super::member_proof::{batch_share_proof, AffineGens, MemberProofs};
use super::query::{check_query, BbQuery};
use super::reverse_shuffle::verify_reverse;
use super::stages::{blamed, check_order};
use super::DbSmProof;
use crate::elgamal::{
    self, batch_affine, BatchCheck, ElGamalCiphertext, ElGamalDecShare, LinCheck,
};
use crate::error::{blame, MixnetError};
use crate::mix::MixRecord;
use crate::sender::SenderInput;
use crate::setup::MixnetPublic;
use crate::timing::StepTimes;
use blstrs::{G1Affine, G1Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::bls12_381::pairing::pairing_product_is_identity;
use quorate_core::{ParamError, PartyId};
use rayon::prelude::*;
use std::time::Instant;

/// The querier's verification of a whole DB-SM proof. `record` must already have been
/// verified ([`crate::mix::verify_record`]) and `share_coms` must come from
/// [`crate::sharing::verify_sharing`] on the same record; `submissions` are the published
/// sender inputs.
/// Returns, for every `i ∈ I` in order, whether the value committed in `γ_i` is one of
/// `{v′_j : j ∈ J}`. Every failing server is named.
pub fn verify(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    record: &MixRecord,
    share_coms: &[Vec<G1Projective>],
    q: &BbQuery,
    proof: &DbSmProof,
) -> Result<Vec<bool>, MixnetError> {
    verify_timed(
        public,
        submissions,
        record,
        share_coms,
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
    share_coms: &[Vec<G1Projective>],
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
    let fast = joint_check(public, &inputs, share_coms, q, proof, &bases, times);
    if let Some(answers) = fast {
        times.time("Q: non-member openings", None, || {
            check_dbsm_non_members(public, proof)
        })?;
        return Ok(answers);
    }
    // Something failed: the step-by-step checks name the culprit.
    verify_steps(public, &inputs, share_coms, q, proof, bases, times)?;
    Err(MixnetError::ProofRejected(
        "DB-SM proof fails the joint check",
    ))
}

/// The querier's optimistic check of steps 3–5 in **one** multi-scalar multiplication and
/// one two-pairing product: every blinding proof (step 3), every decryption share's DLEQ
/// proof and the published `S_i = b_i − Σ λ_k d_{k,i}` (step 4), and for every member every
/// server's DPK share proof and responses plus the aggregate DPK_BB equations (step 5).
/// Each relation has its own 128-bit weight; terms on the same point are merged (`g, h,
/// pk, X_k` once; per element `base`, `S` and each `D_{k,i}` once, the blinded product
/// `D_i = Π_k D_{k,i}` folded into its factors), so one element costs `4 + 16m` points
/// instead of `≈ 20m`. `None` on any shape error or failing relation: the caller then
/// runs [`verify_steps`] to name the culprit.
#[allow(clippy::too_many_arguments)]
pub(super) fn joint_check(
    public: &MixnetPublic,
    inputs: &[&SenderInput],
    share_coms: &[Vec<G1Projective>],
    q: &BbQuery,
    proof: &DbSmProof,
    bases: &[ElGamalCiphertext],
    times: &mut StepTimes,
) -> Option<Vec<bool>> {
    let t_ch = Instant::now();
    let n = bases.len();
    let m = usize::from(public.params.n());
    let blind = check_order(public, &proof.blinding, |s| s.mixer, false, "").ok()?;
    let dec = check_order(public, &proof.decryption, |s| s.mixer, false, "").ok()?;
    let commits = check_order(public, &proof.dpk_commits, |s| s.mixer, false, "").ok()?;
    let responses = check_order(public, &proof.dpk_responses, |s| s.mixer, false, "").ok()?;
    let s = &proof.s;
    if q.inputs.len() != n
        || inputs.len() != n
        || s.len() != n
        || blind
            .iter()
            .any(|(_, b)| b.contributions.len() != n || b.b_coms.len() != n || b.proofs.len() != n)
        || dec.iter().any(|(_, d)| d.shares.len() != n)
    {
        return None;
    }
    let members: Vec<(usize, usize)> = (0..n)
        .filter(|&t| !bool::from(s[t].is_identity()))
        .map(|t| (q.inputs[t], t))
        .collect();
    let cnt = members.len();
    if commits.iter().any(|(_, c)| c.commits.len() != cnt)
        || responses.iter().any(|(_, r)| {
            r.z_v.len() != cnt || r.z_r.len() != cnt || r.z_b.len() != cnt || r.z_tau.len() != cnt
        })
    {
        return None;
    }
    let member_coms: Vec<&[G1Projective]> = members
        .iter()
        .map(|&(idx, _)| {
            share_coms
                .get(idx)
                .filter(|c| c.len() == m)
                .map(|c| c.as_slice())
        })
        .collect::<Option<_>>()?;
    let dec_refs: Vec<(PartyId, &[ElGamalDecShare])> = dec
        .iter()
        .map(|(k, st)| (*k, st.shares.as_slice()))
        .collect();
    let lambda = elgamal::check_stages(&public.elgamal, &dec_refs).ok()?;
    let xks: Vec<G1Projective> = dec
        .iter()
        .map(|(k, _)| public.elgamal.verification_keys.get(k.position()).copied())
        .collect::<Option<_>>()?;
    // Affine forms of everything hashed (one batch normalisation per list).
    let (g, h, epk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    let ag = AffineGens::new(public, &q.y);
    let xk_aff = batch_affine(&xks);
    let base_flat: Vec<G1Projective> = bases.iter().flat_map(|b| [b.a, b.b]).collect();
    let base_aff = batch_affine(&base_flat);
    let blind_aff: Vec<Vec<G1Affine>> = blind
        .iter()
        .map(|(_, st)| batch_affine(&blind_points(st)))
        .collect();
    let gph = [ag.g, ag.pk, ag.h];
    let blinded: Vec<ElGamalCiphertext> = (0..n)
        .map(|t| {
            blind.iter().fold(
                ElGamalCiphertext::trivial(G1Projective::identity()),
                |acc, (_, st)| acc.mul(&st.contributions[t]),
            )
        })
        .collect();
    let blinded_aff = elgamal::list_affine(&blinded);
    let dec_aff: Vec<Vec<G1Affine>> = dec
        .iter()
        .map(|(_, st)| elgamal::shares_affine(&st.shares))
        .collect();
    let gammas: Vec<G1Projective> = members.iter().map(|&(_, t)| inputs[t].gamma).collect();
    let blind_lists: Vec<&[ElGamalCiphertext]> = blind
        .iter()
        .map(|(_, b)| b.contributions.as_slice())
        .collect();
    let step5 = MemberProofs::new(
        public,
        &ag,
        &members,
        gammas,
        &member_coms,
        (bases, &blind_lists, s),
        &commits,
        &responses,
    );
    let mut member_of = vec![None; n];
    for (u, &(_, t)) in members.iter().enumerate() {
        member_of[t] = Some(u);
    }
    times.add(
        "Q: steps 3-5: shapes, normalisation, all challenges",
        None,
        t_ch.elapsed(),
    );
    let t_msm = Instant::now();
    let lc = (0..n)
        .into_par_iter()
        .map(|t| -> Option<LinCheck> {
            let mut wts = elgamal::Weights::new();
            let mut wt = || wts.next();
            // Fixed bases: g, h, pk, X_1 … X_m.
            let mut lc = LinCheck::with_fixed(3 + m);
            let (mut ba_sc, mut bb_sc, mut s_sc) = (Scalar::ZERO, Scalar::ZERO, Scalar::ZERO);
            let mut da = vec![Scalar::ZERO; m];
            let mut db = vec![Scalar::ZERO; m];
            let base_pts = [base_aff[2 * t], base_aff[2 * t + 1]];
            // Step 3, server k: g^{z_ρ} a^{z_b} = T_a D_{k,a}^c, pk^{z_ρ} b^{z_b} = T_b D_{k,b}^c,
            // g^{z_b} h^{z_s} = T_B B_k^c.
            for (kp, (k, st)) in blind.iter().enumerate() {
                let p = &st.proofs[t];
                let x = &blind_aff[kp][6 * t..6 * t + 6];
                let pts = [base_pts[0], base_pts[1], x[0], x[1], x[2], x[3], x[4], x[5]];
                let c = blind_challenge(&public.sid, *k, q.inputs[t], &gph, &pts);
                let (w1, w2, w3) = (wt(), wt(), wt());
                lc.fixed[0] += w1 * p.z_rho + w3 * p.z_b;
                lc.fixed[1] += w3 * p.z_s;
                lc.fixed[2] += w2 * p.z_rho;
                ba_sc += w1 * p.z_b;
                bb_sc += w2 * p.z_b;
                da[kp] -= w1 * c;
                db[kp] -= w2 * c;
                lc.push(p.t.a, -w1);
                lc.push(p.t.b, -w2);
                lc.push(st.b_coms[t], -(w3 * c));
                lc.push(p.t_b, -w3);
            }
            // Step 4, server k on D = Π_k D_k: g^z = R1 X_k^c, D_a^z = R2 d^c; and
            // ω·(D_b − S − Σ λ_k d_k) = 0. D_a, D_b are spread over their factors D_{k,·}.
            let ct = &blinded[t];
            let omega = wt();
            let mut a_sc = Scalar::ZERO;
            for (kp, (k, st)) in dec.iter().enumerate() {
                let sh = &st.shares[t];
                if bool::from(sh.d.is_identity()) && !bool::from(ct.a.is_identity()) {
                    return None;
                }
                let x = &dec_aff[kp][3 * t..3 * t + 3];
                let c = elgamal::dleq_challenge(
                    &public.sid,
                    *k,
                    t as u64,
                    &ag.g,
                    &xk_aff[kp],
                    (&blinded_aff[2 * t], &blinded_aff[2 * t + 1]),
                    &x[0],
                    &x[1],
                    &x[2],
                );
                let (w1, w2) = (wt(), wt());
                lc.fixed[0] += w1 * sh.z;
                lc.fixed[3 + kp] -= w1 * c;
                lc.push(sh.r1, -w1);
                a_sc += w2 * sh.z;
                lc.push(sh.d, -(w2 * c) - omega * lambda[kp]);
                lc.push(sh.r2, -w2);
            }
            for kp in 0..m {
                da[kp] += a_sc;
                db[kp] += omega;
            }
            s_sc -= omega;
            // Step 5 for members: every server's share proof (w0…w4) and responses (w5…w7),
            // and the aggregate opening g^{Σz_v} h^{Σz_r} γ^e = Π R_k (λ).
            if let Some(u) = member_of[t] {
                step5.fold(
                    &mut lc,
                    &mut wt,
                    u,
                    (&mut s_sc, &mut ba_sc, &mut bb_sc),
                    &mut da,
                    &mut db,
                );
            }
            lc.push(bases[t].a, ba_sc);
            lc.push(bases[t].b, bb_sc);
            lc.push(s[t], s_sc);
            for (kp, (_, st)) in blind.iter().enumerate() {
                lc.push(st.contributions[t].a, da[kp]);
                lc.push(st.contributions[t].b, db[kp]);
            }
            Some(lc)
        })
        .try_reduce(|| LinCheck::with_fixed(3 + m), |a, b| Some(a.merge(b)))?;
    let mut fixed = vec![g, h, epk];
    fixed.extend(&xks);
    let g1_ok = lc.holds_vartime(&fixed);
    times.add(
        "Q: steps 3-5: one MSM (blinding, decryption + S, DPK_BB shares)",
        None,
        t_msm.elapsed(),
    );
    if !g1_ok {
        return None;
    }
    let t_pair = Instant::now();
    if !step5.pairing_holds(s) {
        return None;
    }
    times.add(
        "Q: aggregate DPK_BB pairing check (batched)",
        None,
        t_pair.elapsed(),
    );
    Some(s.iter().map(|x| !bool::from(x.is_identity())).collect())
}

/// The step-by-step verification (each step batched on its own, per-server checks to name
/// culprits), run when [`joint_check`] fails.
pub(super) fn verify_steps(
    public: &MixnetPublic,
    inputs: &[&SenderInput],
    share_coms: &[Vec<G1Projective>],
    q: &BbQuery,
    proof: &DbSmProof,
    bases: Vec<ElGamalCiphertext>,
    times: &mut StepTimes,
) -> Result<Vec<bool>, MixnetError> {
    let blinded = times.time("Q: verify blinding", None, || {
        verify_blinding(public, &q.inputs, &bases, &proof.blinding)
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
    // Every share proof and the published S_i = b_i − Σ λ_k d_{k,i}, in one MSM.
    elgamal::verify_published(
        &public.gens,
        &public.elgamal,
        &public.sid,
        &blinded,
        &dec_refs,
        &proof.s,
    )?;
    let s = proof.s.clone();
    times.add("Q: verify ElGamal decryption", None, t_dec.elapsed());
    check_dbsm_non_members(public, proof)?;
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
    for (k, st) in &commits {
        if st.commits.len() != members.len() {
            return Err(blame(*k, "DPK commitment count"));
        }
    }
    times.add("Q: DPK shapes", None, t_shares.elapsed());
    let t_resp = Instant::now();
    let responses = check_order(
        public,
        &proof.dpk_responses,
        |s| s.mixer,
        false,
        "DPK response stages",
    )?;
    let blind_stages = check_order(
        public,
        &proof.blinding,
        |s| s.mixer,
        false,
        "blinding stages",
    )?;
    let member_coms: Vec<&Vec<G1Projective>> = members
        .iter()
        .map(|&(idx, _)| {
            share_coms
                .get(idx)
                .ok_or(ParamError::Invalid("missing share commitments"))
        })
        .collect::<Result<_, _>>()?;
    if member_coms.iter().any(|v| v.len() != commits.len()) {
        return Err(ParamError::Invalid("share commitments per server").into());
    }
    for (k, st) in &responses {
        let cnt = members.len();
        if st.z_v.len() != cnt
            || st.z_r.len() != cnt
            || st.z_b.len() != cnt
            || st.z_tau.len() != cnt
        {
            return Err(blame(*k, "DPK response count"));
        }
    }
    let ag = AffineGens::new(public, &q.y);
    let gammas: Vec<G1Projective> = members.iter().map(|&(_, t)| inputs[t].gamma).collect();
    let coms_u: Vec<&[G1Projective]> = member_coms.iter().map(|v| v.as_slice()).collect();
    let blind_lists: Vec<&[ElGamalCiphertext]> = blind_stages
        .iter()
        .map(|(_, b)| b.contributions.as_slice())
        .collect();
    let step5 = MemberProofs::new(
        public,
        &ag,
        &members,
        gammas,
        &coms_u,
        (&bases, &blind_lists, &s),
        &commits,
        &responses,
    );
    let e_sc = &step5.e;
    let (g, h, epk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    times.add("Q: DPK challenges", None, t_resp.elapsed());
    let t_agg = Instant::now();
    // Sums over the servers per member: M and the responses.
    struct Agg {
        m: G1Projective,
        zv: Scalar,
        zb: Scalar,
    }
    let agg: Vec<Agg> = (0..members.len())
        .map(|u| {
            let mut a = Agg {
                m: G1Projective::identity(),
                zv: Scalar::ZERO,
                zb: Scalar::ZERO,
            };
            for (_, st) in &commits {
                a.m += st.commits[u].m_k;
            }
            for (_, st) in &responses {
                a.zv += st.z_v[u];
                a.zb += st.z_b[u];
            }
            a
        })
        .collect();
    let f2a = ag.f2;
    // The aggregate pairing equation for one member (used to locate a false statement).
    let check_one = |u: usize| -> bool {
        let (_, t) = members[u];
        let a = &agg[u];
        let x = g1_msm_vartime(&[g, s[t], a.m], &[a.zb, -a.zv, Scalar::ONE]);
        let zr: Scalar = responses.iter().map(|(_, st)| st.z_r[u]).sum();
        let eq1 = g1_msm_vartime(
            &[
                g,
                h,
                inputs[t].gamma,
                commits.iter().map(|(_, st)| st.commits[u].r_k).sum(),
            ],
            &[a.zv, zr, e_sc[u], -Scalar::ONE],
        );
        bool::from(eq1.is_identity())
            && pairing_product_is_identity(&[
                (x.to_affine(), f2a),
                ((s[t] * e_sc[u]).to_affine(), ag.y),
            ])
    };
    // One MSM for every relation of step 5, all members and servers, each with its own
    // 128-bit weight, terms on the same point merged (g, h, pk; per member S, base.a,
    // base.b, γ; per server and member the 11 published points):
    //   share proof of server k (weights w1…w5, w3 unused):
    //     g^{s_v} h^{s_r} = R′ R_k^c,  S^{s_v} g^{−s_b} = M′ M_k^c,
    //     g^{s_τ} a^{s_b} = A′_a A_{k,a}^c,  pk^{s_τ} b^{s_b} = A′_b A_{k,b}^c;
    //   responses of server k (w6…w8):
    //     g^{z_v} h^{z_r} V_k^e = R_k,  g^{z_τ} a^{z_b} D_{k,a}^e = A_{k,a},
    //     pk^{z_τ} b^{z_b} D_{k,b}^e = A_{k,b};
    //   aggregate opening (λ): g^{Σz_v} h^{Σz_r} γ^e = Π R_k.
    // Then the aggregate pairing equation, batched over members with μ_u:
    //   e(Σ μ_u (g^{Σz_b} S^{−Σz_v} M), f2) · e(Σ μ_u e_u S_u, y) = 1.
    let joint = members.is_empty() || {
        let m = commits.len();
        let lc = members
            .par_iter()
            .enumerate()
            .map(|(u, &(_, t))| {
                let mut wts = elgamal::Weights::new();
                let mut wt = || wts.next();
                let mut lc = LinCheck::with_fixed(3);
                let (mut s_sc, mut ba_sc, mut bb_sc) = (Scalar::ZERO, Scalar::ZERO, Scalar::ZERO);
                let (mut da, mut db) = (vec![Scalar::ZERO; m], vec![Scalar::ZERO; m]);
                step5.fold(
                    &mut lc,
                    &mut wt,
                    u,
                    (&mut s_sc, &mut ba_sc, &mut bb_sc),
                    &mut da,
                    &mut db,
                );
                for (kp, (_, bst)) in blind_stages.iter().enumerate() {
                    let d = &bst.contributions[t];
                    lc.push(d.a, da[kp]);
                    lc.push(d.b, db[kp]);
                }
                lc.push(s[t], s_sc);
                lc.push(bases[t].a, ba_sc);
                lc.push(bases[t].b, bb_sc);
                lc
            })
            .reduce(|| LinCheck::with_fixed(3), LinCheck::merge);
        lc.holds_vartime(&[g, h, epk]) && step5.pairing_holds(&s)
    };
    if !joint {
        // Name the culprits: every server's share proofs, then its responses, alone.
        let share_culprits = || -> Vec<PartyId> {
            let mut culprits = Vec::new();
            for (k, st) in &commits {
                let ok = members
                    .par_iter()
                    .zip(st.commits.par_iter())
                    .map(|(&(idx, t), c)| {
                        let mut b = BatchCheck::default();
                        batch_share_proof(public, *k, idx, &s[t], &bases[t], c, &mut b);
                        b
                    })
                    .reduce(BatchCheck::default, |mut a, b| {
                        a.extend(b);
                        a
                    })
                    .holds();
                if !ok {
                    culprits.push(*k);
                }
            }
            culprits
        };
        let response_culprits = || -> Vec<PartyId> {
            let mut culprits = Vec::new();
            for (pos, (((k, st), (_, cst)), (_, bst))) in responses
                .iter()
                .zip(&commits)
                .zip(&blind_stages)
                .enumerate()
            {
                let ok = members
                    .par_iter()
                    .enumerate()
                    .map(|(u, &(_, t))| {
                        let (base, d, c) = (&bases[t], &bst.contributions[t], &cst.commits[u]);
                        let (e, one) = (e_sc[u], -Scalar::ONE);
                        let mut b = BatchCheck::default();
                        b.add(&[
                            &[
                                (g, st.z_v[u]),
                                (h, st.z_r[u]),
                                (member_coms[u][pos], e),
                                (c.r_k, one),
                            ],
                            &[
                                (g, st.z_tau[u]),
                                (base.a, st.z_b[u]),
                                (d.a, e),
                                (c.a_k.a, one),
                            ],
                            &[
                                (epk, st.z_tau[u]),
                                (base.b, st.z_b[u]),
                                (d.b, e),
                                (c.a_k.b, one),
                            ],
                        ]);
                        b
                    })
                    .reduce(BatchCheck::default, |mut a, b| {
                        a.extend(b);
                        a
                    })
                    .holds();
                if !ok {
                    culprits.push(*k);
                }
            }
            culprits
        };
        blamed(share_culprits(), "DPK commitment share proof")?;
        blamed(response_culprits(), "DPK response share")?;
        // Every per-server check holds, so the aggregate statement is false: find it.
        let bad = (0..members.len()).find(|&u| !check_one(u)).unwrap_or(0);
        return Err(MixnetError::DpkFailed {
            input: members.get(bad).map_or(0, |m| m.0),
        });
    }
    times.add(
        "Q: aggregate DPK_BB checks (batched)",
        None,
        t_agg.elapsed(),
    );
    Ok(s.iter().map(|x| !bool::from(x.is_identity())).collect())
}
