//! DB-SM (Fig. 8): end to end against the ground-truth permutation, and blame for every
//! per-server proof type.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_core::error::Culprits;
use quorate_mixnet::membership::{self, BbQuery, DbSmProof};
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::SenderInput;
use quorate_mixnet::setup::{MixServer, MixnetPublic};
use quorate_mixnet::sharing::{self, MixerShares, SharingRecord};
use quorate_mixnet::MixnetError;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

struct World {
    public: MixnetPublic,
    servers: Vec<MixServer>,
    inputs: Vec<SenderInput>,
    record: MixRecord,
    sharing: SharingRecord,
    shares: Vec<MixerShares>,
    coms: Vec<Vec<G1Projective>>,
    rng: ChaCha20Rng,
}

fn world(n: usize, t: u16, m: u16, seed: u64) -> World {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mixed = crate::common::mixed(format!("dbsm-test-{seed}").as_bytes(), n, t, m, &mut rng);
    let crate::common::Mixed {
        public,
        servers,
        inputs,
        record,
    } = mixed;
    let (sharing, shares, coms) =
        crate::common::share(&public, &servers, &inputs, &record, &mut rng);
    World {
        public,
        servers,
        inputs,
        record,
        sharing,
        shares,
        coms,
        rng,
    }
}

/// `out[i]` = the output position input `i` went to.
fn forward(servers: &[MixServer]) -> Vec<usize> {
    let comp = mix::composed_permutation(servers);
    let mut out = vec![0; comp.len()];
    for (j, &i) in comp.iter().enumerate() {
        out[i] = j;
    }
    out
}

fn query(w: &mut World, inputs: &[usize], outputs: &[usize]) -> (BbQuery, DbSmProof) {
    let (_key, q) =
        membership::querier_sign(&w.public, &w.record.outputs, inputs, outputs, &mut w.rng)
            .unwrap();
    let proof = membership::run(
        &w.public, &w.servers, &w.inputs, &w.record, &w.shares, &w.coms, &q, &mut w.rng,
    )
    .unwrap();
    (q, proof)
}

fn verify(w: &World, q: &BbQuery, p: &DbSmProof) -> Result<Vec<bool>, MixnetError> {
    membership::verify(&w.public, &w.inputs, &w.record, &w.coms, q, p)
}

fn check_against_truth(n: usize, t: u16, m: u16, seed: u64) {
    let mut w = world(n, t, m, seed);
    mix::verify_record(&w.public, &w.inputs, &w.record).unwrap();
    let fwd = forward(&w.servers);
    let all: Vec<usize> = (0..n).collect();
    let j_set: Vec<usize> = (0..n).filter(|j| j % 3 != 1).collect();
    let (q, p) = query(&mut w, &all, &j_set);
    let answers = verify(&w, &q, &p).unwrap();
    let truth: Vec<bool> = (0..n).map(|i| j_set.contains(&fwd[i])).collect();
    assert_eq!(answers, truth);
    assert!(answers.iter().any(|a| *a) && answers.iter().any(|a| !*a));
}

#[test]
fn dbsm_end_to_end_10_2() {
    check_against_truth(10, 2, 2, 11);
}

#[test]
fn dbsm_end_to_end_50_3() {
    check_against_truth(50, 2, 3, 12);
}

fn blamed(r: Result<Vec<bool>, MixnetError>) -> Vec<u16> {
    let e = r.unwrap_err();
    e.culprits().iter().map(|p| p.get()).collect()
}

#[test]
fn every_cheating_server_is_named() {
    let mut w = world(10, 2, 2, 13);
    let (q, p) = query(&mut w, &[0, 2, 3, 5, 7, 9], &[0, 1, 4, 5, 6, 8]);
    assert!(verify(&w, &q, &p).is_ok());
    let g = w.public.gens.g;

    // Reverse shuffle: server 2 (the first to reverse) swaps two outputs.
    let mut bad = p.clone();
    bad.reverse[0].outputs.swap(1, 2);
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![2]);

    // Blinding: server 2 multiplies a contribution by Enc(g).
    let mut bad = p.clone();
    bad.blinding[1].contributions[3].b += g;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![2]);

    // Decryption share: server 1 publishes a wrong share.
    let mut bad = p.clone();
    bad.decryption[0].shares[0].d += g;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![1]);

    // DPK commitment share: server 2 changes R_k.
    let mut bad = p.clone();
    bad.dpk_commits[1].commits[0].r_k += g;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![2]);

    // DPK response share: server 1 changes z_b.
    let mut bad = p.clone();
    bad.dpk_responses[0].z_b[0] += Scalar::ONE;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![1]);

    // DPK response share on the opening: server 2 changes z_v.
    let mut bad = p.clone();
    bad.dpk_responses[1].z_v[0] += Scalar::ONE;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![2]);

    // Input sharing (preprocessing): a bad mask proof or decryption share names the server.
    let sv = |s: &SharingRecord| sharing::verify_sharing(&w.public, &w.inputs, &w.record, s);
    let mut bad = w.sharing.clone();
    bad.commits[1].commits[4].a_k += g;
    assert_eq!(
        sv(&bad)
            .unwrap_err()
            .culprits()
            .iter()
            .map(|p| p.get())
            .collect::<Vec<_>>(),
        vec![2]
    );
    let mut bad = w.sharing.clone();
    let mut v = bad.decryptions[0].shares.values().to_vec();
    v[3] = v[2].clone();
    bad.decryptions[0].shares = bad.decryptions[0].shares.with_values(v);
    assert_eq!(
        sv(&bad)
            .unwrap_err()
            .culprits()
            .iter()
            .map(|p| p.get())
            .collect::<Vec<_>>(),
        vec![1]
    );
}

/// Issue 17: the mask link proofs carry their first messages and are checked with one
/// random linear combination over every server's proofs; a failing batch falls back to
/// one-by-one checks that name exactly the servers with a false proof.
#[test]
fn batched_mask_proof_check_names_exactly_the_cheating_servers() {
    use quorate_mixnet::sharing::ShareCommitStage;
    use quorate_paillier::bigint::mul_mod;
    let w = world(10, 2, 3, 21);
    let sv = |s: &SharingRecord| sharing::verify_sharing(&w.public, &w.inputs, &w.record, s);
    sv(&w.sharing).unwrap();
    let pk = w.public.paillier.encryption_key();
    let n_hat = &w.public.ring_pedersen.n_hat;
    let g = w.public.gens.g;
    // E′ times (1 + N): the Paillier equation fails.
    let bump_e1 = |st: &mut ShareCommitStage, i: usize| {
        let p = &mut st.commits[i].proof;
        let one_plus_n = quorate_paillier::rug::Integer::from(pk.n() + 1u32);
        let x = mul_mod(p.e1.as_integer(), &one_plus_n, pk.n_squared());
        p.e1 = pk.ciphertext_from_integer(x).unwrap();
    };
    // D_a′ times 4 (a unit of Z_Ñ): the ring-Pedersen equation fails.
    let bump_d_b = |st: &mut ShareCommitStage, i: usize| {
        let p = &mut st.commits[i].proof;
        p.d_b = mul_mod(&p.d_b, &quorate_paillier::rug::Integer::from(4), n_hat);
    };
    let culprits = |s: &SharingRecord| -> Vec<u16> {
        sv(s)
            .unwrap_err()
            .culprits()
            .iter()
            .map(|p| p.get())
            .collect()
    };
    let mut bad = w.sharing.clone();
    bump_e1(&mut bad.commits[1], 7);
    assert_eq!(culprits(&bad), vec![2]);
    let mut bad = w.sharing.clone();
    bump_d_b(&mut bad.commits[0], 0);
    assert_eq!(culprits(&bad), vec![1]);
    let mut bad = w.sharing.clone();
    bad.commits[2].commits[9].proof.a1 += g;
    assert_eq!(culprits(&bad), vec![3]);
    let mut bad = w.sharing.clone();
    bad.commits[2].commits[3].proof.z_alpha += 1u32;
    assert_eq!(culprits(&bad), vec![3]);
    // Two cheaters at once, the honest server in between is not named.
    let mut bad = w.sharing.clone();
    bump_e1(&mut bad.commits[0], 2);
    bump_d_b(&mut bad.commits[2], 5);
    assert_eq!(culprits(&bad), vec![1, 3]);
    // A proof moved to another position no longer matches its challenge.
    let mut bad = w.sharing.clone();
    bad.commits[1].commits.swap(0, 1);
    assert_eq!(culprits(&bad), vec![2]);
}

/// Review item (issue 17, session 11): two colluding servers shift a response by `+d` in
/// one server's link proof and `−d` in another's. `s_a` enters the G1, the Paillier and
/// the ring-Pedersen equation, `z_α` only the Paillier one and `z_{μa}` only the
/// ring-Pedersen one, so in every case the errors cancel in an unweighted sum of the
/// equations (`g^{d}·g^{−d}`, `(1 + N)^{d}·(1 + N)^{−d}`, …) and each shifted proof still
/// passes every range check. The independent 128-bit weights leave `g^{d(ρ₁−ρ₂)}` etc.,
/// so the batch fails and the fallback names exactly the two colluders (argument in
/// `quorate_paillier::batch`'s notes, which apply to every weighted check here).
#[test]
fn colluding_servers_whose_link_proof_errors_cancel_are_both_named() {
    let w = world(10, 2, 3, 22);
    let sv = |s: &SharingRecord| sharing::verify_sharing(&w.public, &w.inputs, &w.record, s);
    sv(&w.sharing).unwrap();
    let culprits = |s: &SharingRecord| -> Vec<u16> {
        sv(s)
            .unwrap_err()
            .culprits()
            .iter()
            .map(|p| p.get())
            .collect()
    };
    let d = quorate_paillier::rug::Integer::from(1) << 20u32;
    let mut bad = w.sharing.clone();
    bad.commits[0].commits[4].proof.s_a += &d;
    bad.commits[2].commits[6].proof.s_a -= &d;
    assert_eq!(culprits(&bad), vec![1, 3]);
    let mut bad = w.sharing.clone();
    bad.commits[0].commits[1].proof.z_alpha += &d;
    bad.commits[1].commits[1].proof.z_alpha -= &d;
    assert_eq!(culprits(&bad), vec![1, 2]);
    let mut bad = w.sharing.clone();
    bad.commits[1].commits[8].proof.z_mu_a -= &d;
    bad.commits[2].commits[0].proof.z_mu_a += &d;
    assert_eq!(culprits(&bad), vec![2, 3]);
}

#[test]
fn degenerate_s_and_bad_queries_are_rejected() {
    let mut w = world(10, 2, 2, 14);
    let (q, p) = query(&mut w, &[1, 4, 6], &[0, 2, 3, 7]);
    let answers = verify(&w, &q, &p).unwrap();
    // Defect 11: a published S_i = 1 for a member (or any S differing from the verified
    // decryption) is rejected; membership is never read from unverified data.
    if let Some(t) = answers.iter().position(|a| *a) {
        let mut bad = p.clone();
        bad.s[t] = G1Projective::identity();
        assert!(verify(&w, &q, &bad).is_err());
    }
    // A forged signature is caught by the batch check.
    let mut bad_q = q.clone();
    bad_q.sigs[0] += w.public.gens.g;
    assert!(matches!(
        verify(&w, &bad_q, &p),
        Err(MixnetError::InvalidQuery(_))
    ));
    // Unsorted / out-of-range index sets.
    assert!(
        membership::querier_sign(&w.public, &w.record.outputs, &[3, 1], &[0], &mut w.rng).is_err()
    );
    assert!(
        membership::querier_sign(&w.public, &w.record.outputs, &[0], &[10], &mut w.rng).is_err()
    );
    // Truncated stages give typed errors, not panics.
    let mut bad = p.clone();
    bad.dpk_responses[0].z_tau.pop();
    assert!(verify(&w, &q, &bad).is_err());
    let mut bad = p.clone();
    bad.blinding.pop();
    assert!(verify(&w, &q, &bad).is_err());
    let mut bad = p;
    bad.reverse[1].proof.k_e.pop();
    assert!(verify(&w, &q, &bad).is_err());
}

/// Issue 6: the querier checks every server's share proof and responses on every run, not
/// only when the aggregate DPK_BB equations fail. Changing any one response (`z_v, z_r,
/// z_b, z_τ`) or share-proof scalar (`s_v, s_r, s_b, s_τ`) of one server, for any member,
/// is rejected and names exactly that server.
#[test]
fn every_response_and_share_proof_scalar_is_checked() {
    let mut w = world(8, 2, 3, 15);
    let (q, p) = query(&mut w, &[0, 1, 3, 4, 6], &[0, 2, 3, 5, 6, 7]);
    let answers = verify(&w, &q, &p).unwrap();
    let members = answers.iter().filter(|a| **a).count();
    assert!(members >= 1, "the test needs at least one member");
    assert_eq!(p.dpk_responses[0].z_v.len(), members);
    for k in 0..3 {
        for u in 0..members {
            for which in 0..8 {
                let mut bad = p.clone();
                let x = match which {
                    0 => &mut bad.dpk_responses[k].z_v[u],
                    1 => &mut bad.dpk_responses[k].z_r[u],
                    2 => &mut bad.dpk_responses[k].z_b[u],
                    3 => &mut bad.dpk_responses[k].z_tau[u],
                    4 => &mut bad.dpk_commits[k].commits[u].proof.s_v,
                    5 => &mut bad.dpk_commits[k].commits[u].proof.s_r,
                    6 => &mut bad.dpk_commits[k].commits[u].proof.s_b,
                    _ => &mut bad.dpk_commits[k].commits[u].proof.s_tau,
                };
                *x += Scalar::ONE;
                assert_eq!(
                    blamed(verify(&w, &q, &bad)),
                    vec![k as u16 + 1],
                    "server {k}, member {u}, scalar {which}"
                );
            }
        }
    }
    // A published S_i that differs from the verified decryption is refused, for a member
    // (checked in the joint MSM) and for a non-member (which it would turn into a member).
    let g = w.public.gens.g;
    for t in 0..answers.len() {
        let mut bad = p.clone();
        bad.s[t] += g;
        assert!(verify(&w, &q, &bad).is_err(), "S_{t} changed");
    }
    // A first message of a share proof (not a scalar) is covered too.
    let mut bad = p.clone();
    bad.dpk_commits[2].commits[0].proof.a1.b += w.public.gens.g;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![3]);
}

/// The published top-level DPK_BB commitment points of one server for one member (the
/// proof's first messages are masks of these and carry nothing more).
fn published_commitments(c: &membership::DpkCommit) -> Vec<G1Projective> {
    vec![c.r_k, c.m_k, c.a_k.a, c.a_k.b]
}

/// Issue 13 (critical): the review's linking attack on the published transcript. Take any
/// two published commitment slots `P`, `W` (per server), sum them over the servers and
/// compute `X1 = ΣP − (Σz_v)·S`, `X2 = ΣW − (Σz_b)·g`; output `j` is "the" one if
/// `e(X1, y) = e(v′_j·(X2 − X1), f2)`. When the proof published `S^{ρ_v}` and `g^{ρ_b}`
/// separately, this singled out the true output of every member from public data. The proof
/// must publish only their combination, so no choice of slots links any member better than
/// chance (a blind guess is right for 1 of the 6 members on average).
#[test]
fn dbsm_transcript_does_not_link_inputs_to_outputs() {
    use group::Curve;
    let n = 6;
    let mut w = world(n, 2, 2, 16);
    let fwd = forward(&w.servers);
    let all: Vec<usize> = (0..n).collect();
    let (q, p) = query(&mut w, &all, &all);
    assert_eq!(verify(&w, &q, &p).unwrap(), vec![true; n]);
    let g = w.public.gens.g;
    let (y, f2) = (
        q.y.to_affine(),
        blstrs::G2Projective::generator().to_affine(),
    );
    let slots = published_commitments(&p.dpk_commits[0].commits[0]).len();
    let mut best = 0;
    for a in 0..slots {
        for b in 0..slots {
            let mut linked = 0;
            for (u, &i) in q.inputs.iter().enumerate() {
                let sum = |slot: usize| -> G1Projective {
                    p.dpk_commits
                        .iter()
                        .map(|st| published_commitments(&st.commits[u])[slot])
                        .sum()
                };
                let zv: Scalar = p.dpk_responses.iter().map(|r| r.z_v[u]).sum();
                let zb: Scalar = p.dpk_responses.iter().map(|r| r.z_b[u]).sum();
                let x1 = sum(a) - p.s[u] * zv;
                let x2 = sum(b) - g * zb;
                let hits: Vec<usize> = (0..n)
                    .filter(|&j| {
                        let rhs = (x2 - x1) * w.record.outputs[j];
                        quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
                            (x1.to_affine(), y),
                            ((-rhs).to_affine(), f2),
                        ])
                    })
                    .collect();
                if hits == [fwd[i]] {
                    linked += 1;
                }
            }
            best = best.max(linked);
        }
    }
    assert!(
        best <= 1,
        "the transcript links {best} of {n} members to their outputs"
    );
}

/// Issue 13 (medium): the Enc-to-shares mask proof bounds a server's mask `a_k` only in
/// absolute value, and `a_k ≈ −2^330` made `v + Σa` borrow from the next slot: the
/// conversion aborted with an error naming nobody. With the public slot offset a negative
/// mask is just a mask (the conversion opens `γ` and DB-SM answers correctly); a mask
/// beyond the proof's bound, of either sign, is refused naming its server.
#[test]
fn negative_sharing_masks_work_and_oversized_masks_name_their_server() {
    use quorate_mixnet::faults;
    use quorate_paillier::rug::Integer;
    let n = 4;
    let mut rng = ChaCha20Rng::seed_from_u64(18);
    let crate::common::Mixed {
        public,
        servers,
        inputs,
        record,
    } = crate::common::mixed(b"dbsm-test-masks", n, 2, 2, &mut rng);
    let two = quorate_core::PartyId::new(2).unwrap();
    let neg = Integer::from(-1) << 330;
    let (sharing, shares) =
        faults::run_sharing_with_mask(&public, &servers, &inputs, &record, two, 1, &neg, &mut rng)
            .unwrap();
    let coms = sharing::verify_sharing(&public, &inputs, &record, &sharing).unwrap();
    let mut w = World {
        public,
        servers,
        inputs,
        record,
        sharing,
        shares,
        coms,
        rng,
    };
    let fwd = forward(&w.servers);
    let j_set = [fwd[1], fwd[3]];
    let mut j_sorted = j_set.to_vec();
    j_sorted.sort();
    let all: Vec<usize> = (0..n).collect();
    let (q, p) = query(&mut w, &all, &j_sorted);
    assert_eq!(verify(&w, &q, &p).unwrap(), vec![false, true, false, true]);
    for huge in [Integer::from(-1) << 470, Integer::from(1) << 470] {
        let err = faults::run_sharing_with_mask(
            &w.public, &w.servers, &w.inputs, &w.record, two, 1, &huge, &mut w.rng,
        )
        .unwrap_err();
        assert_eq!(crate::common::culprits(&err), vec![2], "{err}");
    }
}

/// Issue 13 (medium): `S_i = 1` was read as "not a member" without checking the blinding,
/// so all `m` servers together (the last one choosing `b_m = −Σ_{k<m} b_k` with a valid
/// blinding proof) could report a member as absent. Now every server commits to its
/// blinding `B_{k,i} = g^{b} h^{s}` (bound to `D_{k,i}` by the blinding proof) and opens it
/// where `S_i = 1`: the zero sum blames every server, and hiding it behind a wrong opening
/// names that server.
#[test]
fn colluding_servers_cannot_forge_a_non_member() {
    use quorate_mixnet::faults;
    let n = 5;
    let mut w = world(n, 2, 2, 19);
    let fwd = forward(&w.servers);
    let all: Vec<usize> = (0..n).collect();
    let mut j_set = vec![fwd[0], fwd[3]];
    j_set.sort();
    let (_key, q) =
        membership::querier_sign(&w.public, &w.record.outputs, &all, &j_set, &mut w.rng).unwrap();
    let honest = membership::run(
        &w.public, &w.servers, &w.inputs, &w.record, &w.shares, &w.coms, &q, &mut w.rng,
    )
    .unwrap();
    assert_eq!(
        verify(&w, &q, &honest).unwrap(),
        vec![true, false, false, true, false]
    );
    let forged = faults::dbsm_run_zero_blinding(
        &w.public, &w.servers, &w.inputs, &w.record, &w.shares, &w.coms, &q, 0, &mut w.rng,
    )
    .unwrap();
    assert!(
        bool::from(forged.s[0].is_identity()),
        "the forgery makes S_0 = 1"
    );
    assert_eq!(blamed(verify(&w, &q, &forged)), vec![1, 2]);
    // Opening a different blinding to hide the zero sum names the server that does it.
    let mut bad = forged.clone();
    bad.non_members[1].b[0] += Scalar::ONE;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![2]);
    // A wrong opening in an honest proof names its server too.
    let mut bad = honest.clone();
    bad.non_members[0].s[1] += Scalar::ONE;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![1]);
    // A changed blinding commitment fails the blinding proof and names its server.
    let mut bad = honest;
    bad.blinding[1].b_coms[2] += w.public.gens.h;
    assert_eq!(blamed(verify(&w, &q, &bad)), vec![2]);
}
