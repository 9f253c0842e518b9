//! Enc-to-shares profile at production size (issue 17, lever 2):
//! `RAYON_NUM_THREADS=1 cargo run --release -p quorate-mixnet --example sharing_profile -- N BITS`.
//!
//! Keygen with a `BITS`-bit Paillier modulus (default 3072; fresh safe primes), then the
//! per-value conversion ([`sharing::run_value_sharing_timed`], the DB-RSM witness
//! conversion) of `N` (default 100) packed ciphertexts, with its step rows, then the cost of
//! each operation one link-proof check and one batched decryption check are made of, so
//! that the per-element operation counts in docs/benchmarks.md §6 can be priced; then an
//! interleaved A/B of the link-proof check of the whole record (batched against one by one,
//! `ROUNDS` rounds, default 3): `... -- N BITS ROUNDS`.
#![allow(clippy::unwrap_used)]
use blstrs::G1Projective;
use group::Group;
use quorate_core::bls12_381::msm::g1_msm_vartime;
use quorate_core::transcript::SessionId;
use quorate_mixnet::djn;
use quorate_mixnet::faults;
use quorate_mixnet::packing;
use quorate_mixnet::params::{CHALLENGE_BITS, PROOF_MASK_BITS};
use quorate_mixnet::setup::keygen;
use quorate_mixnet::sharing::{self, Layout, INPUT_BITS, SLOT_BITS};
use quorate_mixnet::timing::StepTimes;
use quorate_paillier::bigint::{inv_mod, mul_mod, pow_mod_vartime, random_bits};
use quorate_paillier::rug::Integer;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let bits: u32 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3072);
    let mut rng = ChaCha20Rng::seed_from_u64(17);
    let us = |t: Instant, k: usize| t.elapsed().as_secs_f64() * 1e6 / k as f64;
    let t = Instant::now();
    let (public, servers) =
        keygen(SessionId::new(b"prof".to_vec()), n, 4, 4, bits, &mut rng).unwrap();
    println!("keygen {:.0} ms", us(t, 1000));
    let pk = public.paillier.encryption_key().clone();
    let n2 = pk.n_squared().clone();
    let tables = public.djn().unwrap();
    let rpt = public.ring_pedersen_tables().unwrap().unwrap();
    let rp = &public.ring_pedersen;
    let bases: Vec<_> = (0..n)
        .map(|_| {
            let m = random_bits(&mut rng, 255) + (random_bits(&mut rng, 255) << SLOT_BITS);
            pk.encrypt(&m, &mut rng).unwrap()
        })
        .collect();

    // Operation prices.
    let x = random_bits(&mut rng, n2.significant_bits() - 2);
    let y = random_bits(&mut rng, n2.significant_bits() - 2);
    let k = 400;
    let t = Instant::now();
    let mut acc = x.clone();
    for _ in 0..k {
        acc = mul_mod(&acc, &y, &n2);
    }
    println!("mul_mod N^2: {:.1} us", us(t, k));
    let c = random_bits(&mut rng, CHALLENGE_BITS);
    let t = Instant::now();
    for _ in 0..50 {
        let _ = pow_mod_vartime(&x, &c, &n2).unwrap();
    }
    println!("pow_vartime N^2, 128-bit exp: {:.0} us", us(t, 50));
    let t = Instant::now();
    for _ in 0..50 {
        let _ = inv_mod(&x, &n2);
    }
    println!("inv_mod N^2: {:.0} us", us(t, 50));
    let z_alpha = random_bits(&mut rng, djn::response_bits(&pk) - 1);
    let t = Instant::now();
    for _ in 0..50 {
        let _ = tables.pow_public_vartime(&z_alpha).unwrap();
    }
    println!(
        "h_N^z_alpha Yao ({}-bit): {:.0} us",
        z_alpha.significant_bits(),
        us(t, 50)
    );
    let z = random_bits(&mut rng, PROOF_MASK_BITS);
    let z_mu = random_bits(&mut rng, rp.mu_mask_bits());
    let com = rp.commit(&z, &z_mu).unwrap();
    let t = Instant::now();
    for _ in 0..50 {
        let _ = rpt.recompute_vartime(&z, &z_mu, &com, &c).unwrap();
    }
    println!("ring-Pedersen recompute: {:.0} us", us(t, 50));
    let g = G1Projective::generator();
    let sc = blstrs::Scalar::from(7u64);
    let t = Instant::now();
    for _ in 0..50 {
        let _ = g1_msm_vartime(&[g, g, g], &[sc, sc, sc]);
    }
    println!("G1 msm of 3: {:.0} us", us(t, 50));
    let full = random_bits(&mut rng, n2.significant_bits() + 400);
    let t = Instant::now();
    for _ in 0..5 {
        let _ = pow_mod_vartime(&x, &full, &n2).unwrap();
    }
    println!(
        "pow_vartime N^2, {}-bit exp: {:.0} us",
        full.significant_bits(),
        us(t, 5)
    );
    let t = Instant::now();
    let slots = packing::slots_per_ciphertext(&pk, INPUT_BITS);
    let groups = packing::pack(&pk, &bases, INPUT_BITS, slots, &Integer::new()).unwrap();
    println!(
        "pack {n} into {} groups: {:.0} ms",
        groups.len(),
        us(t, 1000)
    );

    // The conversion with its step rows.
    let mut times = StepTimes::default();
    let t = Instant::now();
    let (record, _, _) =
        sharing::run_value_sharing_timed(&public, &servers, &bases, &mut rng, &mut times).unwrap();
    println!("run_value_sharing total: {:.0} ms", us(t, 1000));
    for step in times.steps() {
        println!(
            "  {step}: total {:.0} ms, per server {:.0} ms",
            times.total(step).as_secs_f64() * 1e3,
            times.mean_per_server(step).as_secs_f64() * 1e3
        );
    }

    // A/B (issue 17, session 11): the link-proof check of the whole record (n·m proofs),
    // batched against one by one, interleaved; then the whole check of the record.
    let rounds: usize = std::env::args()
        .nth(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let (mut one, mut bat, mut whole) = (0.0, 0.0, 0.0);
    for _ in 0..rounds {
        let t = Instant::now();
        assert!(
            faults::check_share_links(&public, Layout::PerValue, &record, false)
                .unwrap()
                .is_empty()
        );
        one += us(t, 1000);
        let t = Instant::now();
        assert!(
            faults::check_share_links(&public, Layout::PerValue, &record, true)
                .unwrap()
                .is_empty()
        );
        bat += us(t, 1000);
        let t = Instant::now();
        sharing::verify_value_sharing(&public, &bases, &record).unwrap();
        whole += us(t, 1000);
    }
    let r = rounds as f64;
    let per = |x: f64| x / r / n as f64;
    println!(
        "link proofs of {} servers x {n}: one by one {:.0} ms ({:.2} ms/element), batched {:.0} ms ({:.2} ms/element), ratio {:.2}x",
        servers.len(),
        one / r,
        per(one),
        bat / r,
        per(bat),
        one / bat
    );
    println!(
        "verify_value_sharing (whole check, batched links): {:.0} ms ({:.2} ms/element)",
        whole / r,
        per(whole)
    );
}
