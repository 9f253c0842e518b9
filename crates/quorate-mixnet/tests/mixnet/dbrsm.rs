//! DB-RSM building blocks (Fig. 9): BBS+ quasi-signatures with their batched check, Beaver
//! multiplication with the dealer's triples (multiplication proofs checked), and the
//! distributed DPK_BBS+, with named cheaters and a Fiat–Shamir binding test.
#![allow(clippy::unwrap_used)]
#![allow(clippy::cloned_ref_to_slice_refs)]

use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_mixnet::beaver;
use quorate_mixnet::reverse_membership::{self, BbsQuery};
use quorate_mixnet::sender::{self, SenderOpening};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixnetPublic};
use quorate_mixnet::MixnetError;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn world(
    n: usize,
    m: u16,
    seed: u64,
) -> (
    MixnetPublic,
    Vec<G1Projective>,
    Vec<SenderOpening>,
    ChaCha20Rng,
) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sid = SessionId::new(format!("dbrsm-test-{seed}").into_bytes());
    let (public, _servers) = keygen_with_test_moduli(sid, n, m, m, &mut rng).unwrap();
    let (gammas, openings): (Vec<_>, Vec<_>) = (0..n)
        .map(|i| {
            let v = Scalar::random(&mut rng);
            let (inp, op) = sender::encrypt_for(&public, i as u64, v, &mut rng).unwrap();
            (inp.gamma, op)
        })
        .unzip();
    (public, gammas, openings, rng)
}

#[test]
fn quasi_signatures_are_bbs_plus_signatures_and_tampering_is_caught() {
    let (public, gammas, openings, mut rng) = world(6, 2, 1);
    let inputs = vec![0, 2, 3, 5];
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&public, &gammas, &inputs, &mut rng).unwrap();
    reverse_membership::check_quasi_signatures(&public, &gammas, &q).unwrap();
    // Each S_i is a BBS+ signature on v_i with randomness (c_i, r_i + r̂_i):
    // e(S, y·f2^c) = e(f1·g^v·h^{r+r̂}, f2).
    let f2 = G2Projective::generator();
    for (&i, s) in inputs.iter().zip(&q.sigs) {
        let op = &openings[i];
        let lhs = blstrs::pairing(&s.s.to_affine(), &(q.y + f2 * s.c).to_affine());
        let msg =
            reverse_membership::bbs_f1() + public.gens.g * op.v + public.gens.h * (op.r + s.r_hat);
        assert_eq!(lhs, blstrs::pairing(&msg.to_affine(), &f2.to_affine()));
    }
    let bad = |f: &dyn Fn(&mut BbsQuery)| {
        let mut q2 = q.clone();
        f(&mut q2);
        assert!(matches!(
            reverse_membership::check_quasi_signatures(&public, &gammas, &q2),
            Err(MixnetError::InvalidQuery(_))
        ));
    };
    bad(&|q| q.sigs[1].s += public.gens.g);
    bad(&|q| q.sigs[2].c += Scalar::ONE);
    bad(&|q| q.sigs[0].r_hat += Scalar::ONE);
    bad(&|q| q.y += G2Projective::generator());
    bad(&|q| q.inputs.swap(0, 1));
    bad(&|q| q.inputs[3] = 6);
    bad(&|q| {
        q.sigs.pop();
    });
    // Defect 11 regression: S_i = 1 and y = 1 are rejected as degenerate.
    bad(&|q| q.sigs[3].s = G1Projective::identity());
    bad(&|q| q.y = G2Projective::identity());
    // Signatures on other commitments do not verify against these.
    let mut other = gammas.clone();
    other[2] += public.gens.h;
    assert!(reverse_membership::check_quasi_signatures(&public, &other, &q).is_err());
    // Malformed query sets are typed errors, not panics.
    assert!(matches!(
        reverse_membership::querier_quasi_sign(&public, &gammas, &[3, 3], &mut rng),
        Err(MixnetError::InvalidQuery(_))
    ));
    assert!(matches!(
        reverse_membership::querier_quasi_sign(&public, &gammas[..5], &[0], &mut rng),
        Err(MixnetError::InvalidQuery(_))
    ));
    // The empty query is trivially fine.
    let (_k, empty) =
        reverse_membership::querier_quasi_sign(&public, &gammas, &[], &mut rng).unwrap();
    reverse_membership::check_quasi_signatures(&public, &gammas, &empty).unwrap();
}

fn parties(m: u16) -> Vec<PartyId> {
    (1..=m).map(|i| PartyId::new(i).unwrap()).collect()
}

fn committed(value: Scalar, rand: Scalar) -> beaver::CommittedShare {
    beaver::CommittedShare { value, rand }
}

#[test]
fn beaver_multiplication_is_correct_and_names_a_cheating_opener() {
    let (public, _, _, mut rng) = world(2, 3, 7);
    let (g, h) = (public.gens.g, public.gens.h);
    let m = 3;
    let ps = parties(m);
    let cnt = 5;
    let qid = reverse_membership::QueryId([5; 32]);
    let (triples, mut shares) = beaver::deal_triples(&public, &qid, cnt, &mut rng);
    beaver::verify_triples(&public, &qid, &triples).unwrap();
    assert!(shares.iter().all(|s| s.check_against(&public, &triples)));
    // Inputs x = Σ x_k, w = Σ w_k with hiding Pedersen commitments.
    let mut draw = || -> Vec<Vec<beaver::CommittedShare>> {
        (0..m)
            .map(|_| {
                (0..cnt)
                    .map(|_| committed(Scalar::random(&mut rng), Scalar::random(&mut rng)))
                    .collect()
            })
            .collect()
    };
    let (x, w) = (draw(), draw());
    let com = |v: &Vec<Vec<beaver::CommittedShare>>| -> Vec<Vec<G1Projective>> {
        v.iter()
            .map(|row| row.iter().map(|s| g * s.value + h * s.rand).collect())
            .collect()
    };
    let (xc, wc) = (com(&x), com(&w));
    // Inputs of the wrong length are refused before anything is opened.
    assert!(beaver::beaver_open(&mut shares[0], &qid, &x[0], &w[0][..2]).is_err());
    let openings: Vec<_> = shares
        .iter_mut()
        .zip(x.iter().zip(&w))
        .map(|(sh, (xk, wk))| beaver::beaver_open(sh, &qid, xk, wk).unwrap())
        .collect();
    let opened = beaver::beaver_check_openings(&public, &triples, &xc, &wc, &openings).unwrap();
    let z: Vec<Vec<beaver::CommittedShare>> = shares
        .iter()
        .enumerate()
        .map(|(k, sh)| beaver::beaver_product_shares(sh, k == 0, &opened).unwrap())
        .collect();
    let zc = beaver::beaver_product_commitments(&public, &triples, &opened).unwrap();
    for t in 0..cnt {
        let xs: Scalar = x.iter().map(|r| r[t].value).sum();
        let ws: Scalar = w.iter().map(|r| r[t].value).sum();
        let zs: Scalar = z.iter().map(|r| r[t].value).sum();
        assert_eq!(zs, xs * ws);
        for k in 0..m as usize {
            // The public product commitment opens to the server's product share.
            assert_eq!(zc[k][t], g * z[k][t].value + h * z[k][t].rand);
        }
    }
    // A server opening a wrong d_k, e_k or randomness difference is named.
    for (who, field) in [(1usize, 0u8), (2, 1), (0, 2), (1, 3)] {
        let mut bad = openings.clone();
        match field {
            0 => bad[who].d[3] += Scalar::ONE,
            1 => bad[who].e[0] -= Scalar::ONE,
            2 => bad[who].d_rand[1] += Scalar::ONE,
            _ => bad[who].e_rand[4] += Scalar::ONE,
        }
        let err = beaver::beaver_check_openings(&public, &triples, &xc, &wc, &bad).unwrap_err();
        assert_eq!(err.culprits(), &[ps[who]]);
    }
    // An opening against another input than the committed one is named (binding).
    let mut x2 = com(&x);
    x2[2][1] += g;
    let err = beaver::beaver_check_openings(&public, &triples, &x2, &wc, &openings).unwrap_err();
    assert_eq!(err.culprits(), &[ps[2]]);
    // Wrong lengths are typed errors.
    let mut short = openings.clone();
    short[0].d.pop();
    let err = beaver::beaver_check_openings(&public, &triples, &xc, &wc, &short).unwrap_err();
    assert_eq!(err.culprits(), &[ps[0]]);
    assert!(beaver::beaver_check_openings(&public, &triples, &xc[..2], &wc, &openings).is_err());
    assert!(beaver::beaver_check_openings(&public, &triples, &xc, &wc, &openings[..2]).is_err());
}

#[test]
fn wrong_triples_are_rejected() {
    let (public, _, _, mut rng) = world(2, 2, 9);
    let (g, h) = (public.gens.g, public.gens.h);
    let qid = reverse_membership::QueryId([9; 32]);
    let (triples, shares) = beaver::deal_triples(&public, &qid, 4, &mut rng);
    beaver::verify_triples(&public, &qid, &triples).unwrap();
    // c ≠ ab (or the randomness shifted: the proof is for the original C).
    for delta in [g, h] {
        let mut bad = triples.clone();
        bad[2].c[1] += delta;
        assert!(beaver::verify_triples(&public, &qid, &bad).is_err());
        assert!(!shares[1].check_against(&public, &bad));
    }
    // A or B changed, or a proof response changed.
    let mut bad = triples.clone();
    bad[0].b[0] += g;
    assert!(beaver::verify_triples(&public, &qid, &bad).is_err());
    let mut bad = triples.clone();
    bad[1].a[1] += g;
    assert!(beaver::verify_triples(&public, &qid, &bad).is_err());
    let mut bad = triples.clone();
    bad[3].proof.z_tau += Scalar::ONE;
    assert!(beaver::verify_triples(&public, &qid, &bad).is_err());
    // A proof is bound to its triple's position and to the session.
    let mut bad = triples.clone();
    bad.swap(0, 1);
    assert!(beaver::verify_triples(&public, &qid, &bad).is_err());
    let mut other = public.clone();
    other.sid = SessionId::new(b"another session".to_vec());
    assert!(beaver::verify_triples(&other, &qid, &triples).is_err());
    // A and B swapped between servers' commitments is caught by the proof (it hashes the
    // per-server commitments) and by the server's own check.
    let mut swapped = triples.clone();
    swapped[1].a.swap(0, 1);
    assert!(beaver::verify_triples(&public, &qid, &swapped).is_err());
    assert!(!shares[0].check_against(&public, &swapped));
    // Shape errors.
    let mut bad = triples.clone();
    bad[3].c.pop();
    assert!(beaver::verify_triples(&public, &qid, &bad).is_err());
    let (p3, _, _, _) = world(2, 3, 10);
    assert!(beaver::verify_triples(&p3, &qid, &triples).is_err());
}

struct DpkCase {
    public: MixnetPublic,
    y: G2Projective,
    st: reverse_membership::BbsDpkStatement,
    shares: Vec<reverse_membership::WitnessShares>,
    rng: ChaCha20Rng,
}

/// A quasi-signed input, blinded `S̃ = S^b` with `b = Σ b_k`, and witness shares
/// `(c_k, b_k, r′_k)` where `r′ = (r + r̂)·b` comes from Beaver multiplication on Pedersen
/// commitments. `bad_product` adds one to that server's product share (its commitment stays
/// the public `Z_k`).
fn dpk_case_with(m: u16, seed: u64, bad_product: Option<usize>) -> DpkCase {
    let (public, gammas, openings, mut rng) = world(4, m, seed);
    let g = public.gens.g;
    let h = public.gens.h;
    let (_key, q) =
        reverse_membership::querier_quasi_sign(&public, &gammas, &[1], &mut rng).unwrap();
    let sig = q.sigs[0];
    let op = &openings[1];
    let mk = m as usize;
    let split = |x: Scalar, rng: &mut ChaCha20Rng| -> Vec<Scalar> {
        let mut v: Vec<Scalar> = (1..mk).map(|_| Scalar::random(&mut *rng)).collect();
        let rest: Scalar = v.iter().sum();
        v.push(x - rest);
        v
    };
    let c = split(sig.c, &mut rng);
    let rho = split(op.r + sig.r_hat, &mut rng);
    let rho_r: Vec<Scalar> = (0..mk).map(|_| Scalar::random(&mut rng)).collect();
    let b: Vec<Scalar> = (0..mk).map(|_| Scalar::random(&mut rng)).collect();
    let b_r: Vec<Scalar> = (0..mk).map(|_| Scalar::random(&mut rng)).collect();
    let bsum: Scalar = b.iter().sum();
    let (triples, mut tshares) = beaver::deal_triples(&public, &q.query_id, 1, &mut rng);
    beaver::verify_triples(&public, &q.query_id, &triples).unwrap();
    let openings_b: Vec<_> = tshares
        .iter_mut()
        .enumerate()
        .map(|(k, sh)| {
            beaver::beaver_open(
                sh,
                &q.query_id,
                &[committed(rho[k], rho_r[k])],
                &[committed(b[k], b_r[k])],
            )
            .unwrap()
        })
        .collect();
    let xc: Vec<Vec<G1Projective>> = (0..mk).map(|k| vec![g * rho[k] + h * rho_r[k]]).collect();
    let wc: Vec<Vec<G1Projective>> = (0..mk).map(|k| vec![g * b[k] + h * b_r[k]]).collect();
    let opened = beaver::beaver_check_openings(&public, &triples, &xc, &wc, &openings_b).unwrap();
    let zc = beaver::beaver_product_commitments(&public, &triples, &opened).unwrap();
    let mut shares = Vec::new();
    let mut coms = Vec::new();
    for (k, sh) in tshares.iter().enumerate() {
        let mut rp = beaver::beaver_product_shares(sh, k == 0, &opened).unwrap()[0].clone();
        if bad_product == Some(k) {
            rp.value += Scalar::ONE;
        }
        let sc = Scalar::random(&mut rng);
        coms.push(reverse_membership::WitnessCommitments {
            c: g * c[k] + h * sc,
            b: wc[k][0],
            r: zc[k][0],
        });
        shares.push(reverse_membership::WitnessShares {
            w: [c[k], b[k], rp.value],
            s: [sc, b_r[k], rp.rand],
        });
    }
    let st = reverse_membership::BbsDpkStatement {
        index: 3,
        s_tilde: sig.s * bsum,
        v_out: op.v,
        coms,
    };
    DpkCase {
        public,
        y: q.y,
        st,
        shares,
        rng,
    }
}

fn dpk_case(m: u16, seed: u64) -> DpkCase {
    dpk_case_with(m, seed, None)
}

#[test]
fn a_wrong_beaver_product_share_in_dpk_bbs_plus_is_named() {
    // Server 2 proves with a product share that does not open its public Z_k.
    let mut k = dpk_case_with(3, 24, Some(1));
    let pf =
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &k.st, &k.shares, &mut k.rng).unwrap();
    let err =
        reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[k.st.clone()], &[pf]).unwrap_err();
    assert_eq!(err.culprits(), &[parties(3)[1]], "{err:?}");
}

#[test]
fn dpk_bbs_plus_verifies_and_names_a_server_with_a_wrong_share() {
    let mut k = dpk_case(3, 21);
    let pf =
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &k.st, &k.shares, &mut k.rng).unwrap();
    reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[k.st.clone()], &[pf.clone()]).unwrap();
    // Batched over several outputs.
    let pf2 =
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &k.st, &k.shares, &mut k.rng).unwrap();
    reverse_membership::bbs_dpk_verify(
        &k.public,
        &k.y,
        &[k.st.clone(), k.st.clone()],
        &[pf.clone(), pf2],
    )
    .unwrap();
    // Server 2 proves with a b share that is not the committed one: named.
    let ps = parties(3);
    let mut bad = k.shares.clone();
    bad[1].w[1] += Scalar::ONE;
    let pf_bad =
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &k.st, &bad, &mut k.rng).unwrap();
    let err = reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[k.st.clone()], &[pf_bad])
        .unwrap_err();
    assert_eq!(err.culprits(), &[ps[1]]);
    // Server 3 sends a response off by one: named.
    let mut pf_bad = pf.clone();
    pf_bad.responses[2].z_w[0] += Scalar::ONE;
    let err = reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[k.st.clone()], &[pf_bad])
        .unwrap_err();
    assert_eq!(err.culprits(), &[ps[2]]);
}

#[test]
fn dpk_bbs_plus_rejects_a_false_statement_and_degenerate_input() {
    let mut k = dpk_case(2, 22);
    // A value that was never signed: every share is honest, the statement is false.
    let mut st = k.st.clone();
    st.v_out += Scalar::ONE;
    let pf =
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &st, &k.shares, &mut k.rng).unwrap();
    assert!(matches!(
        reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[st], &[pf]),
        Err(MixnetError::DpkFailed { input: 3 })
    ));
    // A different querier key.
    let pf =
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &k.st, &k.shares, &mut k.rng).unwrap();
    let y2 = k.y + G2Projective::generator();
    assert!(
        reverse_membership::bbs_dpk_verify(&k.public, &y2, &[k.st.clone()], &[pf.clone()]).is_err()
    );
    // S̃ = 1, y = 1, wrong shapes: typed errors.
    let mut st = k.st.clone();
    st.s_tilde = G1Projective::identity();
    assert!(matches!(
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &st, &k.shares, &mut k.rng),
        Err(MixnetError::InvalidQuery(_))
    ));
    assert!(reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[st], &[pf.clone()]).is_err());
    assert!(reverse_membership::bbs_dpk_verify(
        &k.public,
        &G2Projective::identity(),
        &[k.st.clone()],
        &[pf.clone()]
    )
    .is_err());
    let mut short = pf.clone();
    short.responses.pop();
    assert!(
        reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[k.st.clone()], &[short]).is_err()
    );
    let mut st = k.st.clone();
    st.coms.pop();
    assert!(reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[st], &[pf.clone()]).is_err());
    assert!(reverse_membership::bbs_dpk_verify(&k.public, &k.y, &[k.st.clone()], &[]).is_err());
    assert!(
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &k.st, &k.shares[..1], &mut k.rng)
            .is_err()
    );
}

/// Fiat–Shamir binding: changing any one statement element or any server's commitment
/// changes the DPK_BBS+ challenge.
#[test]
fn dpk_bbs_plus_challenge_binds_every_statement_element() {
    let mut k = dpk_case(2, 23);
    let pf =
        reverse_membership::bbs_dpk_prove(&k.public, &k.y, &k.st, &k.shares, &mut k.rng).unwrap();
    let e0 = reverse_membership::bbs_dpk_challenge(&k.public, &k.y, &k.st, &pf.commits);
    let g = k.public.gens.g;
    let gt1 = blstrs::pairing(&g.to_affine(), &G2Projective::generator().to_affine());
    type Edit = Box<dyn Fn(&mut reverse_membership::BbsDpkStatement)>;
    let st_variants: Vec<Edit> = vec![
        Box::new(|s| s.index += 1),
        Box::new(move |s| s.s_tilde += g),
        Box::new(|s| s.v_out += Scalar::ONE),
        Box::new(move |s| s.coms[0].c += g),
        Box::new(move |s| s.coms[1].b += g),
        Box::new(move |s| s.coms[1].r += g),
    ];
    for f in &st_variants {
        let mut st = k.st.clone();
        f(&mut st);
        assert_ne!(
            reverse_membership::bbs_dpk_challenge(&k.public, &k.y, &st, &pf.commits),
            e0
        );
    }
    let y2 = k.y + G2Projective::generator();
    assert_ne!(
        reverse_membership::bbs_dpk_challenge(&k.public, &y2, &k.st, &pf.commits),
        e0
    );
    for i in 0..2 {
        for field in 0..5 {
            let mut cs = pf.commits.clone();
            match field {
                0 => cs[i].y_k += gt1,
                1 => cs[i].t_k += gt1,
                u => cs[i].u[u - 2] += g,
            }
            assert_ne!(
                reverse_membership::bbs_dpk_challenge(&k.public, &k.y, &k.st, &cs),
                e0
            );
        }
    }
    let mut other = k.public.clone();
    other.sid = SessionId::new(b"another session".to_vec());
    assert_ne!(
        reverse_membership::bbs_dpk_challenge(&other, &k.y, &k.st, &pf.commits),
        e0
    );
}
