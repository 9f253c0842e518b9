//! DB-RSM building blocks (Fig. 9): BBS+ quasi-signatures with their batched check, and
//! Beaver multiplication with publicly verified triples and named cheaters.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_mixnet::dbrsm::{self, BbsQuery};
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
    let pk = public.paillier.encryption_key();
    let (gammas, openings): (Vec<_>, Vec<_>) = (0..n)
        .map(|i| {
            let v = Scalar::random(&mut rng);
            let (inp, op) = sender::encrypt(
                &public.gens,
                pk,
                &public.ring_pedersen,
                &public.sid,
                i as u64,
                v,
                &mut rng,
            )
            .unwrap();
            (inp.gamma, op)
        })
        .unzip();
    (public, gammas, openings, rng)
}

#[test]
fn quasi_signatures_are_bbs_plus_signatures_and_tampering_is_caught() {
    let (public, gammas, openings, mut rng) = world(6, 2, 1);
    let inputs = vec![0, 2, 3, 5];
    let (_key, q) = dbrsm::querier_quasi_sign(&public, &gammas, &inputs, &mut rng).unwrap();
    dbrsm::check_quasi_signatures(&public, &gammas, &q).unwrap();
    // Each S_i is a BBS+ signature on v_i with randomness (c_i, r_i + r̂_i):
    // e(S, y·f2^c) = e(f1·g^v·h^{r+r̂}, f2).
    let f2 = G2Projective::generator();
    for (&i, s) in inputs.iter().zip(&q.sigs) {
        let op = &openings[i];
        let lhs = blstrs::pairing(&s.s.to_affine(), &(q.y + f2 * s.c).to_affine());
        let msg = dbrsm::bbs_f1() + public.gens.g * op.v + public.gens.h * (op.r + s.r_hat);
        assert_eq!(lhs, blstrs::pairing(&msg.to_affine(), &f2.to_affine()));
    }
    let bad = |f: &dyn Fn(&mut BbsQuery)| {
        let mut q2 = q.clone();
        f(&mut q2);
        assert!(matches!(
            dbrsm::check_quasi_signatures(&public, &gammas, &q2),
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
    assert!(dbrsm::check_quasi_signatures(&public, &other, &q).is_err());
    // Malformed query sets are typed errors, not panics.
    assert!(matches!(
        dbrsm::querier_quasi_sign(&public, &gammas, &[3, 3], &mut rng),
        Err(MixnetError::InvalidQuery(_))
    ));
    assert!(matches!(
        dbrsm::querier_quasi_sign(&public, &gammas[..5], &[0], &mut rng),
        Err(MixnetError::InvalidQuery(_))
    ));
    // The empty query is trivially fine.
    let (_k, empty) = dbrsm::querier_quasi_sign(&public, &gammas, &[], &mut rng).unwrap();
    dbrsm::check_quasi_signatures(&public, &gammas, &empty).unwrap();
}

fn parties(m: u16) -> Vec<PartyId> {
    (1..=m).map(|i| PartyId::new(i).unwrap()).collect()
}

#[test]
fn beaver_multiplication_is_correct_and_names_a_cheating_opener() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let g = G1Projective::generator();
    let m = 3;
    let ps = parties(m);
    let cnt = 5;
    let (triples, shares) = dbrsm::deal_triples(&g, &ps, cnt, &mut rng);
    dbrsm::verify_triples(&g, m as usize, &triples).unwrap();
    assert!(shares.iter().all(|s| s.check_against(&g, &triples)));
    // Inputs x = Σ x_k, w = Σ w_k with Feldman commitments.
    let x: Vec<Vec<Scalar>> = (0..m)
        .map(|_| (0..cnt).map(|_| Scalar::random(&mut rng)).collect())
        .collect();
    let w: Vec<Vec<Scalar>> = (0..m)
        .map(|_| (0..cnt).map(|_| Scalar::random(&mut rng)).collect())
        .collect();
    let com = |v: &Vec<Vec<Scalar>>| -> Vec<Vec<G1Projective>> {
        v.iter()
            .map(|row| row.iter().map(|s| g * s).collect())
            .collect()
    };
    let (xc, wc) = (com(&x), com(&w));
    let openings: Vec<_> = shares
        .iter()
        .zip(x.iter().zip(&w))
        .map(|(sh, (xk, wk))| dbrsm::beaver_open(sh, xk, wk).unwrap())
        .collect();
    let opened = dbrsm::beaver_check_openings(&g, &triples, &xc, &wc, &openings).unwrap();
    let z: Vec<Vec<Scalar>> = shares
        .iter()
        .enumerate()
        .map(|(k, sh)| dbrsm::beaver_product_shares(sh, k == 0, &opened).unwrap())
        .collect();
    let zc = dbrsm::beaver_product_commitments(&g, &triples, &opened).unwrap();
    for t in 0..cnt {
        let xs: Scalar = x.iter().map(|r| r[t]).sum();
        let ws: Scalar = w.iter().map(|r| r[t]).sum();
        let zs: Scalar = z.iter().map(|r| r[t]).sum();
        assert_eq!(zs, xs * ws);
        for k in 0..m as usize {
            assert_eq!(zc[k][t], g * z[k][t]);
        }
    }
    // A server opening a wrong d_k (or e_k) is named.
    for (who, field) in [(1usize, 0u8), (2, 1)] {
        let mut bad = openings.clone();
        if field == 0 {
            bad[who].d[3] += Scalar::ONE;
        } else {
            bad[who].e[0] -= Scalar::ONE;
        }
        let err = dbrsm::beaver_check_openings(&g, &triples, &xc, &wc, &bad).unwrap_err();
        assert_eq!(err.culprits(), &[ps[who]]);
    }
    // Wrong lengths are typed errors.
    let mut short = openings.clone();
    short[0].d.pop();
    assert!(dbrsm::beaver_check_openings(&g, &triples, &xc, &wc, &short).is_err());
    assert!(dbrsm::beaver_check_openings(&g, &triples, &xc[..2], &wc, &openings).is_err());
    assert!(dbrsm::beaver_open(&shares[0], &x[0], &w[0][..2]).is_err());
}

#[test]
fn wrong_triples_are_rejected() {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let g = G1Projective::generator();
    let ps = parties(2);
    let (triples, shares) = dbrsm::deal_triples(&g, &ps, 4, &mut rng);
    // c ≠ ab.
    let mut bad = triples.clone();
    bad[2].c[1] += g;
    assert!(dbrsm::verify_triples(&g, 2, &bad).is_err());
    assert!(!shares[1].check_against(&g, &bad));
    // B̂ inconsistent with the B_k.
    let mut bad = triples.clone();
    bad[0].b_hat += G2Projective::generator();
    assert!(dbrsm::verify_triples(&g, 2, &bad).is_err());
    // A and B swapped between servers' commitments keeps the sums, so it verifies; but
    // the server's own check catches the inconsistency with its shares.
    let mut swapped = triples.clone();
    swapped[1].a.swap(0, 1);
    assert!(dbrsm::verify_triples(&g, 2, &swapped).is_ok());
    assert!(!shares[0].check_against(&g, &swapped));
    // Shape errors.
    let mut bad = triples.clone();
    bad[3].c.pop();
    assert!(dbrsm::verify_triples(&g, 2, &bad).is_err());
    assert!(dbrsm::verify_triples(&g, 3, &triples).is_err());
}
