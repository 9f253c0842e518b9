//! DB-SM timing harness (paper Fig. 8):
//! `RAYON_NUM_THREADS=1 taskset -c 0 cargo run --release -p quorate-mixnet --example dbsm_profile -- N M T REPS`.
//!
//! Builds a world with the 1024-bit test moduli (DB-SM itself only works in G1/G2/GT, so the
//! Paillier size does not change its figures), queries `I = J = [n]` (every element a
//! member, the worst case) and prints every step per element, per mixer and for the querier,
//! as the demo's rows. Each of `REPS` runs is verified; the minimum over runs is printed.
#![allow(clippy::unwrap_used)]

use blstrs::Scalar;
use ff::Field;
use quorate_mixnet::membership;
use quorate_mixnet::timing::StepTimes;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[path = "../tests/mixnet/common/mod.rs"]
mod common;

fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Per-step rows (own work: mean over mixers; checks: total), in first-seen order.
fn rows(t: &StepTimes) -> Vec<(String, Duration)> {
    t.steps()
        .into_iter()
        .map(|step| {
            let own = t.entries.iter().any(|(s, w, _)| *s == step && w.is_some());
            if own {
                (format!("{step} (per mixer)"), t.mean_per_server(step))
            } else {
                (step.to_string(), t.total(step))
            }
        })
        .collect()
}

/// Costs of the group operations DB-SM is built from (µs each).
fn micro() {
    use blstrs::G1Projective;
    use group::{Curve, Group};
    use quorate_core::bls12_381::msm::g1_msm_vartime;
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let k = 2000;
    let p: Vec<G1Projective> = (0..k).map(|_| G1Projective::random(&mut rng)).collect();
    let s: Vec<Scalar> = (0..k).map(|_| Scalar::random(&mut rng)).collect();
    let us = |d: Duration, cnt: usize| d.as_secs_f64() * 1e6 / cnt as f64;
    let t = Instant::now();
    let mut acc = G1Projective::identity();
    for (a, b) in p.iter().zip(&s).take(200) {
        acc += a * b;
    }
    println!(
        "{:>8.2} us  G1 scalar mult (blst, constant time)",
        us(t.elapsed(), 200)
    );
    let t = Instant::now();
    let aff: Vec<_> = p.iter().map(|x| x.to_affine()).collect();
    println!("{:>8.2} us  G1 to_affine", us(t.elapsed(), k));
    let t = Instant::now();
    let mut sink = 0u8;
    for x in &aff {
        sink ^= group::GroupEncoding::to_bytes(x).as_ref()[0];
    }
    println!("{:>8.2} us  G1Affine compress", us(t.elapsed(), k));
    let t = Instant::now();
    for x in &p {
        sink ^= group::GroupEncoding::to_bytes(x).as_ref()[0];
    }
    println!("{:>8.2} us  G1Projective compress", us(t.elapsed(), k));
    for size in [2usize, 4, 64, 2000] {
        let reps = (4000 / size).max(1);
        let t = Instant::now();
        for r in 0..reps {
            let o = r % (k - size + 1);
            acc += g1_msm_vartime(&p[o..o + size], &s[o..o + size]);
        }
        println!(
            "{:>8.2} us  per point, MSM of {size}",
            us(t.elapsed(), reps * size)
        );
    }
    let t = Instant::now();
    for x in p.iter().take(1000) {
        acc += x.double();
    }
    println!("{:>8.3} us  G1 double", us(t.elapsed(), 1000));
    println!("(sink {sink} {})", bool::from(acc.is_identity()));
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("micro") {
        micro();
        return;
    }
    let n: usize = arg(1, 100);
    let m: u16 = arg(2, 4);
    let t: u16 = arg(3, m);
    let reps: usize = arg(4, 3);
    let mut rng = ChaCha20Rng::seed_from_u64(2024);
    let t0 = Instant::now();
    let common::Mixed {
        public,
        servers,
        inputs,
        record,
    } = common::mixed(b"dbsm-profile", n, t, m, &mut rng);
    let (_sharing_record, shares, coms) =
        common::share(&public, &servers, &inputs, &record, &mut rng);
    println!(
        "setup (keygen, Enc, Mix, sharing) {:.1} s; n = {n}, m = {m}, t = {t}, rayon threads = {}",
        t0.elapsed().as_secs_f64(),
        rayon::current_num_threads()
    );
    let all: Vec<usize> = (0..n).collect();
    let mut best_m: BTreeMap<String, (usize, Duration)> = BTreeMap::new();
    let mut best_q: BTreeMap<String, (usize, Duration)> = BTreeMap::new();
    let keep = |map: &mut BTreeMap<String, (usize, Duration)>, rs: Vec<(String, Duration)>| {
        for (pos, (k, d)) in rs.into_iter().enumerate() {
            let e = map.entry(k).or_insert((pos, d));
            e.1 = e.1.min(d);
        }
    };
    for _ in 0..reps {
        let (_key, q) =
            membership::querier_sign(&public, &record.outputs, &all, &all, &mut rng).unwrap();
        let mut mt = StepTimes::default();
        let proof = membership::run_timed(
            &public, &servers, &inputs, &record, &shares, &coms, &q, &mut rng, &mut mt,
        )
        .unwrap();
        let mut qt = StepTimes::default();
        let t0 = Instant::now();
        let ans = membership::verify_timed(&public, &inputs, &record, &coms, &q, &proof, &mut qt)
            .unwrap();
        let q_total = t0.elapsed();
        assert!(ans.iter().all(|a| *a));
        let mut mr = rows(&mt);
        let m_total: Duration = mr.iter().map(|(_, d)| *d).sum();
        mr.push(("M_k total".into(), m_total));
        keep(&mut best_m, mr);
        let mut qr = rows(&qt);
        qr.push(("Q total".into(), q_total));
        keep(&mut best_q, qr);
    }
    let per = |d: Duration| d.as_secs_f64() * 1e3 / n as f64;
    for (title, map) in [("mixer", &best_m), ("querier", &best_q)] {
        println!("== DB-SM {title}, ms per element (min of {reps})");
        let mut v: Vec<_> = map.iter().collect();
        v.sort_by_key(|(_, (pos, _))| *pos);
        for (k, (_, d)) in v {
            println!("{:>8.3}  {k}", per(*d));
        }
    }
}
