//! DB-RSM blame: one test per proof that the whole-protocol verifier (`reverse_membership::verify`)
//! checks from published data, each naming exactly the cheating server; Fiat–Shamir
//! binding of the extended blinding proof (`D_{k,j}` and `B_{k,j}` share `b`); and the
//! degenerate case of a blinding that sums to zero.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_mixnet::beaver;
use quorate_mixnet::elgamal::ElGamalCiphertext;
use quorate_mixnet::reverse_membership::{
    self, BbsQuery, DbRsmProof, RsmBlindProof, RsmBlindingStage,
};
use quorate_mixnet::setup::MixnetPublic;
use quorate_mixnet::MixnetError;
use rand_chacha::ChaCha20Rng;

use crate::common::RsmWorld as World;

fn world(n: usize, m: u16, seed: u64) -> World {
    crate::common::rsm_world("dbrsm-blame", n, m, seed)
}

struct Run {
    w: World,
    q: BbsQuery,
    triples: Vec<beaver::TriplePublic>,
    proof: DbRsmProof,
    ids: Vec<PartyId>,
}

/// DB-RSM at n = 10, m = 3 for `I` = the even inputs (members and non-members both occur).
fn honest_run(seed: u64) -> Run {
    let mut w = world(10, 3, seed);
    let i_set: Vec<usize> = (0..10).filter(|i| i % 2 == 0).collect();
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, &i_set, &mut w.rng).unwrap();
    let (triples, mut tshares) =
        beaver::deal_triples(&w.public, &q.query_id, i_set.len(), &mut w.rng);
    let proof = reverse_membership::run(
        &w.public,
        &w.servers,
        &w.inputs,
        &w.record,
        &triples,
        &mut tshares,
        &q,
        &mut w.rng,
    )
    .unwrap();
    reverse_membership::verify(&w.public, &w.inputs, &w.record, &triples, &q, &proof).unwrap();
    let ids = w.servers.iter().map(|s| s.id).collect();
    Run {
        w,
        q,
        triples,
        proof,
        ids,
    }
}

impl Run {
    fn blamed(&self, case: &str, proof: &DbRsmProof) -> Vec<PartyId> {
        let err = reverse_membership::verify(
            &self.w.public,
            &self.w.inputs,
            &self.w.record,
            &self.triples,
            &self.q,
            proof,
        )
        .expect_err(case);
        assert!(
            matches!(err, MixnetError::Aborted(_)),
            "{case}: expected blame, got {err:?}"
        );
        err.culprits().to_vec()
    }

    fn first_member(&self) -> usize {
        (0..10)
            .find(|&j| !bool::from(self.proof.signature.s_tilde[j].is_identity()))
            .unwrap()
    }
}

#[test]
fn every_new_proof_names_its_cheater() {
    let r = honest_run(61);
    let g = r.w.public.gens.g;
    let j = r.first_member();
    // 1. A server lying about its blinding commitment B_{k,j}.
    let mut p = r.proof.clone();
    p.signature.blinding[1].b_coms[j] += g;
    assert_eq!(r.blamed("case 1", &p), [r.ids[1]]);
    // … or about its blinding proof's new response z_s.
    let mut p = r.proof.clone();
    p.signature.blinding[2].proofs[j].z_s += Scalar::ONE;
    assert_eq!(r.blamed("case 2", &p), [r.ids[2]]);
    // 2. A wrong Beaver opening (value or randomness difference).
    let mut p = r.proof.clone();
    p.beaver[2].d[0] += Scalar::ONE;
    assert_eq!(r.blamed("case 3", &p), [r.ids[2]]);
    let mut p = r.proof.clone();
    p.beaver[0].e_rand[1] -= Scalar::ONE;
    assert_eq!(r.blamed("case 4", &p), [r.ids[0]]);
    let mut p = r.proof.clone();
    p.beaver[1].e.pop();
    assert_eq!(r.blamed("case 5", &p), [r.ids[1]]);
    // 3. A wrong DPK_BBS+ share (responses for b and r′).
    let mut p = r.proof.clone();
    p.dpk[1].responses[0].z_w[1] += Scalar::ONE;
    assert_eq!(r.blamed("case 6", &p), [r.ids[0]]);
    let mut p = r.proof.clone();
    p.dpk[0].responses[2].z_w[2] += Scalar::ONE;
    assert_eq!(r.blamed("case 7", &p), [r.ids[2]]);
    let mut p = r.proof.clone();
    p.dpk[2].responses[1].z_s[0] += Scalar::ONE;
    assert_eq!(r.blamed("DPK z_s", &p), [r.ids[1]]);
    // (A commitment changed after the fact changes the challenge for every server, so in a
    // replayed transcript it is not one server's fault; see `bbs_dpk_verify`.)
    // 4. A wrong non-member opening.
    let mut p = r.proof.clone();
    p.non_members[1].b[0] += Scalar::ONE;
    assert_eq!(r.blamed("case 9", &p), [r.ids[1]]);
    let mut p = r.proof.clone();
    p.non_members[2].s.pop();
    assert_eq!(r.blamed("case 10", &p), [r.ids[2]]);
    // 5. The witness track (conversion of the members): a wrong mask commitment.
    let mut p = r.proof.clone();
    let a = p.witness.conversion.commits[0].commits[0].a_k;
    p.witness.conversion.commits[0].commits[0].a_k = a + g;
    assert_eq!(r.blamed("case 11", &p), [r.ids[0]]);
}

#[test]
fn malformed_proofs_are_typed_errors() {
    let r = honest_run(62);
    let verify = |p: &DbRsmProof| {
        reverse_membership::verify(&r.w.public, &r.w.inputs, &r.w.record, &r.triples, &r.q, p)
    };
    // A missing DPK, a DPK moved to another output, a changed S̃: errors, never panics.
    let mut p = r.proof.clone();
    p.dpk.pop();
    assert!(verify(&p).is_err());
    let mut p = r.proof.clone();
    p.dpk.swap(0, 1);
    assert!(verify(&p).is_err());
    // Turning a member's S̃ into the identity (a forged "not a member") is refused: pick a
    // member so the case does not depend on where the permutation put the inputs.
    let member = r
        .proof
        .signature
        .s_tilde
        .iter()
        .position(|s| !bool::from(s.is_identity()))
        .expect("the query has members");
    let mut p = r.proof.clone();
    p.signature.s_tilde[member] = G1Projective::identity();
    assert!(verify(&p).is_err());
    let mut p = r.proof.clone();
    p.non_members.pop();
    assert!(verify(&p).is_err());
    let mut p = r.proof.clone();
    p.beaver.clear();
    assert!(verify(&p).is_err());
    let mut p = r.proof.clone();
    p.witness.conversion.decryptions.swap(0, 1);
    assert!(verify(&p).is_err());
}

/// Builds `D = Enc(1; ρ)·base^b`, `B = g^b h^s` and a valid proof, for a chosen `b`.
fn blind_one(
    public: &MixnetPublic,
    who: PartyId,
    j: usize,
    base: &ElGamalCiphertext,
    b: Scalar,
    rng: &mut ChaCha20Rng,
) -> (ElGamalCiphertext, G1Projective, RsmBlindProof, Scalar) {
    let (g, h, pk) = (public.gens.g, public.gens.h, public.elgamal.pk);
    let (rho, s) = (Scalar::random(&mut *rng), Scalar::random(&mut *rng));
    let (al, be, ze) = (
        Scalar::random(&mut *rng),
        Scalar::random(&mut *rng),
        Scalar::random(&mut *rng),
    );
    let d = base.pow(&b).rerandomize(&g, &pk, &rho);
    let b_com = g * b + h * s;
    let t = base.pow(&be).rerandomize(&g, &pk, &al);
    let t_b = g * be + h * ze;
    let c = reverse_membership::rsm_blind_challenge(public, who, j, base, &d, &b_com, &t, &t_b);
    let proof = RsmBlindProof {
        t,
        t_b,
        z_rho: al + c * rho,
        z_b: be + c * b,
        z_s: ze + c * s,
    };
    (d, b_com, proof, s)
}

#[test]
fn a_blinding_that_sums_to_zero_is_caught_and_blames_every_server() {
    // All inputs queried, so every output is a member; two colluding servers make b_0 = 0
    // so that S̃_0 = 1 and output 0 would look like "not from I".
    let mut w = world(6, 2, 63);
    let all: Vec<usize> = (0..6).collect();
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, &all, &mut w.rng).unwrap();
    let mut forward = Vec::new();
    let mut cur = reverse_membership::initial_signature_list(6, &q);
    for srv in &w.servers {
        let st = srv.forward_shuffle(&w.public, &cur, &mut w.rng).unwrap();
        cur = st.outputs.clone();
        forward.push(st);
    }
    let (st1, sh1) = w.servers[0].rsm_blind(&w.public, &cur, &mut w.rng);
    let id2 = w.servers[1].id;
    let mut st2 = RsmBlindingStage {
        mixer: id2,
        contributions: Vec::new(),
        b_coms: Vec::new(),
        proofs: Vec::new(),
    };
    let mut s2 = Vec::new();
    let mut b2 = Vec::new();
    for (j, base) in cur.iter().enumerate() {
        let b = if j == 0 {
            -sh1.b(0).unwrap()
        } else {
            Scalar::random(&mut w.rng)
        };
        let (d, bc, pf, s) = blind_one(&w.public, id2, j, base, b, &mut w.rng);
        st2.contributions.push(d);
        st2.b_coms.push(bc);
        st2.proofs.push(pf);
        s2.push(s);
        b2.push(b);
    }
    let blinding = vec![st1, st2];
    // Every blinding proof is valid: the collusion is not a proof failure.
    let blinded = reverse_membership::verify_rsm_blinding(&w.public, &cur, &blinding).unwrap();
    let decryption: Vec<_> = w
        .servers
        .iter()
        .map(|s| {
            s.decrypt_signature_list(&w.public, &blinded, &mut w.rng)
                .unwrap()
        })
        .collect();
    let s_tilde =
        reverse_membership::combine_signature_decryption(&w.public, &blinded, &decryption).unwrap();
    assert!(bool::from(s_tilde[0].is_identity()));
    let track = reverse_membership::SignatureTrack {
        forward,
        blinding,
        decryption,
        s_tilde,
    };
    assert!(reverse_membership::verify_signature_track(&w.public, &q, &track).is_ok());
    // The non-member openings at output 0 expose b_0 = 0.
    let c1 = sh1.committed(0).unwrap();
    let openings = vec![
        reverse_membership::NonMemberOpening {
            mixer: w.servers[0].id,
            b: vec![c1.value],
            s: vec![c1.rand],
        },
        reverse_membership::NonMemberOpening {
            mixer: id2,
            b: vec![b2[0]],
            s: vec![s2[0]],
        },
    ];
    let err =
        reverse_membership::check_non_member_openings(&w.public, &track, &openings).unwrap_err();
    assert_eq!(err.culprits(), [w.servers[0].id, id2]);
    // Opening another b than the committed one instead names that server.
    let mut bad = openings.clone();
    bad[1].b[0] += Scalar::ONE;
    let err = reverse_membership::check_non_member_openings(&w.public, &track, &bad).unwrap_err();
    assert_eq!(err.culprits(), [id2]);
}

/// Fiat–Shamir binding of the extended blinding proof: the challenge changes with every
/// statement element and first message, and a proof adjusted for a changed `B` or `T_B`
/// with the old challenge (what an unbound transcript would accept) is rejected, naming
/// the server.
#[test]
fn extended_blinding_proof_binds_every_statement_element() {
    let mut w = world(4, 2, 64);
    let all: Vec<usize> = (0..4).collect();
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&w.public, &w.gammas, &all, &mut w.rng).unwrap();
    let (track, _) =
        reverse_membership::run_signature_track(&w.public, &w.servers, &q, &mut w.rng).unwrap();
    let public = &w.public;
    let (g, h) = (public.gens.g, public.gens.h);
    let bases = &track.forward[1].outputs;
    let st = &track.blinding[0];
    let who = st.mixer;
    let j = 2;
    let (base, d, bc, p) = (&bases[j], &st.contributions[j], st.b_coms[j], &st.proofs[j]);
    let c0 = reverse_membership::rsm_blind_challenge(public, who, j, base, d, &bc, &p.t, &p.t_b);
    let shift = |c: &ElGamalCiphertext| ElGamalCiphertext { a: c.a, b: c.b + g };
    let variants = [
        reverse_membership::rsm_blind_challenge(
            public,
            w.servers[1].id,
            j,
            base,
            d,
            &bc,
            &p.t,
            &p.t_b,
        ),
        reverse_membership::rsm_blind_challenge(public, who, j + 1, base, d, &bc, &p.t, &p.t_b),
        reverse_membership::rsm_blind_challenge(public, who, j, &shift(base), d, &bc, &p.t, &p.t_b),
        reverse_membership::rsm_blind_challenge(public, who, j, base, &shift(d), &bc, &p.t, &p.t_b),
        reverse_membership::rsm_blind_challenge(public, who, j, base, d, &(bc + g), &p.t, &p.t_b),
        reverse_membership::rsm_blind_challenge(public, who, j, base, d, &bc, &shift(&p.t), &p.t_b),
        reverse_membership::rsm_blind_challenge(public, who, j, base, d, &bc, &p.t, &(p.t_b + g)),
    ];
    for (v, c) in variants.iter().enumerate() {
        assert_ne!(*c, c0, "variant {v} not bound");
    }
    let edits: [fn(&mut MixnetPublic); 4] = [
        |pb: &mut MixnetPublic| pb.sid = SessionId::new(b"another".to_vec()),
        |pb: &mut MixnetPublic| pb.gens.h += pb.gens.g,
        |pb: &mut MixnetPublic| pb.gens.g += pb.gens.h,
        |pb: &mut MixnetPublic| pb.elgamal.pk += pb.gens.g,
    ];
    for edit in edits {
        let mut other = public.clone();
        edit(&mut other);
        assert_ne!(
            reverse_membership::rsm_blind_challenge(&other, who, j, base, d, &bc, &p.t, &p.t_b),
            c0
        );
    }
    // Forgeries that keep the verification equation for the old challenge.
    let delta = Scalar::from(7u64);
    // B′ = B + δh, T_B′ = T_B − c0·δh: g^{z_b} h^{z_s} = T_B′ + c0·B′ still holds.
    let mut t1 = track.clone();
    t1.blinding[0].b_coms[j] = bc + h * delta;
    t1.blinding[0].proofs[j].t_b = p.t_b - h * (c0 * delta);
    // D′ = D + (0, δg), T′ = T − c0·(0, δg), and B unchanged.
    let mut t2 = track.clone();
    t2.blinding[0].contributions[j].b = d.b + g * delta;
    t2.blinding[0].proofs[j].t.b = p.t.b - g * (c0 * delta);
    for t in [t1, t2] {
        let err = reverse_membership::verify_signature_track(&w.public, &q, &t).unwrap_err();
        assert_eq!(err.culprits(), [who], "{err:?}");
    }
}
