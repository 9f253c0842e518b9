//! Mix profile at production size (issue 17):
//! `RAYON_NUM_THREADS=1 cargo run --release -p quorate-mixnet --example mix_profile -- N BITS [sharing]`.
//!
//! Keygen with a `BITS`-bit Paillier modulus (default 3072; fresh safe primes, so this takes
//! tens of seconds), `N` senders (default 100), then prints the costs of the big-integer
//! operations the Mix rows are made of (one `mul_mod` mod `N²`, full-length and 297-bit
//! exponentiations, one packing shift) and the Mix stages: each server's re-encryption +
//! shuffle proof, the verification of all shuffles, the packing, each server's batched
//! decryption shares and the verification of all of them (one server at a time, then all at
//! once as `mix::verify_decryption` does since session 12). Used for the interleaved A/B of
//! issue 17 session 9 (the same harness built from two commits, run alternately). Since
//! session 14 it also splits server 1's shuffle into its parts (re-encryption, the proof's
//! `Π w′_i^{ε_i}` and `h_N^φ` mod `N²`, the ring-Pedersen commitments mod `Ñ`, the rest =
//! G1 and hashing) and times the shuffle checks one by one against the chain batch of
//! `mix::verify_mixing`, interleaved, with the process CPU time (all threads) beside the
//! wall time. With
//! `sharing`, times the senders, the input checks, the input sharing (Enc-to-shares of every
//! input, all servers) and its verification instead of the Mix stages.
#![allow(clippy::unwrap_used)]
use blstrs::Scalar;
use ff::Field;
use quorate_core::transcript::SessionId;
use quorate_mixnet::djn;
use quorate_mixnet::mix::{self, OUTPUT_SLOT_BITS};
use quorate_mixnet::packing;
use quorate_mixnet::ring_pedersen::RingPedersenVectorKey;
use quorate_mixnet::sender;
use quorate_mixnet::setup::keygen;
use quorate_mixnet::sharing;
use quorate_mixnet::shuffle::{self, PaillierShuffle, EPS_BITS};
use quorate_paillier::bigint::{
    mul_mod, multi_pow_secret, pow_mod_secret, pow_mod_vartime, random_bits, SecretInteger,
};
use quorate_paillier::rug::Integer;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Instant;

/// CPU time of every thread of this process (`/proc/self/task/*/schedstat`: rayon's worker
/// and `blst`'s pool included), in ms.
fn cpu_ms() -> f64 {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok())
        .map(|s| s.split_whitespace().next().unwrap().parse::<u64>().unwrap())
        .sum::<u64>() as f64
        / 1e6
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let bits: u32 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3072);
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let (public, servers) =
        keygen(SessionId::new(b"prof".to_vec()), n, 4, 4, bits, &mut rng).unwrap();
    println!("keygen {:.0} ms", ms(t));
    let t = Instant::now();
    let inputs: Vec<_> = (0..n)
        .map(|i| {
            sender::encrypt_for(&public, i as u64, Scalar::random(&mut rng), &mut rng)
                .unwrap()
                .0
        })
        .collect();
    println!("senders (all {n}): {:.0} ms", ms(t));
    let cts: Vec<_> = inputs.iter().map(|s| s.c.clone()).collect();
    if std::env::args().nth(3).as_deref() == Some("sharing") {
        let record = mix::run(&public, &servers, &inputs, &mut rng).unwrap();
        let t = Instant::now();
        let (accepted, _) = mix::check_inputs(&public, &inputs);
        println!(
            "input checks: {:.0} ms ({} accepted)",
            ms(t),
            accepted.len()
        );
        let t = Instant::now();
        let (rec, _) = sharing::run_sharing(&public, &servers, &inputs, &record, &mut rng).unwrap();
        println!("input sharing, all servers with checks: {:.0} ms", ms(t));
        let t = Instant::now();
        sharing::verify_sharing(&public, &inputs, &record, &rec).unwrap();
        println!("Q: verify the sharing record: {:.0} ms", ms(t));
        return;
    }
    let _ = public.djn().unwrap();
    let pk = public.paillier.encryption_key();
    let n2 = pk.n_squared().clone();
    // micro
    let a = random_bits(&mut rng, 2 * bits - 2);
    let b = random_bits(&mut rng, 2 * bits - 2);
    let t = Instant::now();
    let mut x = a.clone();
    for _ in 0..1000 {
        x = mul_mod(&x, &b, &n2);
    }
    println!("mul_mod n2: {:.2} us", ms(t));
    let e = random_bits(&mut rng, 2 * bits + 400);
    let t = Instant::now();
    for _ in 0..5 {
        let _ = pow_mod_vartime(&a, &e, &n2).unwrap();
    }
    println!(
        "pow_vartime n2 {}-bit exp: {:.1} ms",
        2 * bits + 400,
        ms(t) / 5.0
    );
    let t = Instant::now();
    for _ in 0..5 {
        let _ = pow_mod_secret(&a, &e, &n2).unwrap();
    }
    println!(
        "pow_secret n2 {}-bit exp: {:.1} ms",
        2 * bits + 400,
        ms(t) / 5.0
    );
    let e = random_bits(&mut rng, 297);
    let t = Instant::now();
    for _ in 0..20 {
        let _ = pow_mod_secret(&a, &e, &n2).unwrap();
    }
    println!("pow_secret n2 297-bit exp: {:.2} ms", ms(t) / 20.0);
    let sh = Integer::from(1) << OUTPUT_SLOT_BITS;
    let t = Instant::now();
    for _ in 0..20 {
        let _ = pow_mod_vartime(&a, &sh, &n2).unwrap();
    }
    println!("pow 2^{OUTPUT_SLOT_BITS} n2: {:.2} ms", ms(t) / 20.0);
    // Server 1's shuffle, part by part (same sizes as `MixServer::mix` and `shuffle::prove`).
    let djn_t = public.djn().unwrap();
    let (w0, c0) = (Instant::now(), cpu_ms());
    let alpha: Vec<SecretInteger> = (0..n).map(|_| djn_t.random_alpha(&mut rng)).collect();
    let outs: Vec<Integer> = cts
        .iter()
        .zip(&alpha)
        .map(|(c, a)| mul_mod(c.as_integer(), &djn_t.pow_randomness(a).unwrap(), &n2))
        .collect();
    println!(
        "part: re-encryption h_N^alpha (n = {n}): {:.0} ms wall, {:.0} ms cpu",
        ms(w0),
        cpu_ms() - c0
    );
    let eps: Vec<Integer> = (0..n).map(|_| random_bits(&mut rng, EPS_BITS)).collect();
    let (w0, c0) = (Instant::now(), cpu_ms());
    let _ = multi_pow_secret(&outs, &eps, EPS_BITS, &n2).unwrap();
    println!(
        "part: prod w'^eps mod N^2 ({EPS_BITS}-bit, constant time): {:.0} ms wall, {:.0} ms cpu",
        ms(w0),
        cpu_ms() - c0
    );
    let phi = SecretInteger::new(random_bits(&mut rng, djn::shuffle_mask_bits(pk)));
    let (w0, c0) = (Instant::now(), cpu_ms());
    let _ = djn_t
        .pow_secret_long(pk, &phi, djn::shuffle_mask_bits(pk))
        .unwrap();
    println!(
        "part: h_N^phi: {:.1} ms wall, {:.1} ms cpu",
        ms(w0),
        cpu_ms() - c0
    );
    let n_hat = &public.ring_pedersen.n_hat;
    let (w0, c0) = (Instant::now(), cpu_ms());
    let key = RingPedersenVectorKey::derive(n_hat, n).unwrap();
    let e_small: Vec<Integer> = (0..n).map(|_| random_bits(&mut rng, 128)).collect();
    let mu = random_bits(&mut rng, key.mu_bits());
    let mu_p = random_bits(&mut rng, key.mu_mask_bits());
    let _ = key
        .commit_secret(&e_small, 128, &mu, key.mu_bits())
        .unwrap();
    let _ = key
        .commit_secret(&eps, EPS_BITS, &mu_p, key.mu_mask_bits())
        .unwrap();
    println!(
        "part: ring-Pedersen key + Z, Z' mod N~: {:.0} ms wall, {:.0} ms cpu",
        ms(w0),
        cpu_ms() - c0
    );
    // Session-14 prover levers, old and new way alternated in this process (3 rounds, CPU ms):
    // the G1 chain terms and A′ (blst multiplications vs fixed-base / window tables), the
    // vector key's t^μ, t^μ′ (mpz_powm_sec + correction vs the comb table, inside
    // commit_secret) and h_N^φ (mpz_powm_sec + correction vs the DJN comb table).
    let gens = &public.gens;
    let sc: Vec<Scalar> = (0..=n).map(|_| Scalar::random(&mut rng)).collect();
    let mut pts = vec![gens.g];
    pts.extend_from_slice(&gens.hs[..n]);
    let t_old = |x: &Integer, bits: u32| {
        let e = x + (Integer::from(1) << bits);
        let r = pow_mod_secret(&key.t, &e, n_hat).unwrap();
        let corr = pow_mod_vartime(&key.t, &(Integer::from(1) << bits), n_hat).unwrap();
        mul_mod(&r, &Integer::from(corr.invert_ref(n_hat).unwrap()), n_hat)
    };
    let phi_bits = djn::shuffle_mask_bits(pk);
    for round in 0..3 {
        let c0 = cpu_ms();
        let _: Vec<_> = (0..2 * n)
            .map(|i| gens.g * sc[i % n] + gens.h0 * sc[(i + 1) % n])
            .collect();
        let mut affine = vec![blstrs::G1Affine::default(); pts.len()];
        group::Curve::batch_normalize(&pts[..], &mut affine);
        let _ = quorate_core::bls12_381::msm::g1_lincomb_ct(&affine, &sc);
        let c1 = cpu_ms();
        let _: Vec<_> = (0..2 * n)
            .map(|i| gens.g_h0_mul_ct(&sc[i % n], &sc[(i + 1) % n]))
            .collect();
        let _ = quorate_core::bls12_381::msm::WindowTablesCt::new(&pts).lincomb_ct(0, &sc);
        let c2 = cpu_ms();
        let _ = (t_old(&mu, key.mu_bits()), t_old(&mu_p, key.mu_mask_bits()));
        let c3 = cpu_ms();
        let _ = (
            key.commit_secret(&[Integer::from(1)], 1, &mu, key.mu_bits())
                .unwrap(),
            key.commit_secret(&[Integer::from(1)], 1, &mu_p, key.mu_mask_bits())
                .unwrap(),
        );
        let c4 = cpu_ms();
        let e = phi.expose() + (Integer::from(1) << phi_bits);
        let x = pow_mod_secret(djn_t.h_n(), &e, &n2).unwrap();
        let corr = pow_mod_vartime(djn_t.h_n(), &(Integer::from(1) << phi_bits), &n2).unwrap();
        let _ = mul_mod(&x, &Integer::from(corr.invert_ref(&n2).unwrap()), &n2);
        let c5 = cpu_ms();
        let _ = djn_t.pow_secret_long(pk, &phi, phi_bits).unwrap();
        let c6 = cpu_ms();
        println!(
            "lever round {round} (cpu ms, old → new): G1 B, B', A' {:.1} → {:.1}; t^mu, t^mu' {:.1} → {:.1}; h_N^phi {:.1} → {:.1}",
            c1 - c0,
            c2 - c1,
            c3 - c2,
            c4 - c3,
            c5 - c4,
            c6 - c5
        );
    }
    // mixing
    let mut stages = Vec::new();
    for s in &servers {
        let prev = stages
            .last()
            .map(|st: &mix::MixStage| st.outputs.clone())
            .unwrap_or(cts.clone());
        let (t, c0) = (Instant::now(), cpu_ms());
        let st = s.mix(&public, &prev, &mut rng).unwrap();
        println!(
            "mix server {}: {:.0} ms wall, {:.0} ms cpu",
            s.id,
            ms(t),
            cpu_ms() - c0
        );
        stages.push(st);
    }
    // The shuffle checks: one by one (as before session 14) and the chain batch, alternated.
    let one_by_one = || {
        let mut current = &cts[..];
        for (k, st) in public.params.parties().zip(&stages) {
            let stmt = PaillierShuffle {
                pk,
                djn: djn_t,
                n_hat,
                inputs: current,
                outputs: &st.outputs,
            };
            let com = &public.perm_commitments[k.position()];
            shuffle::verify(&public.sid, k, &public.gens, com, Some(&stmt), &st.proof).unwrap();
            current = &st.outputs;
        }
    };
    let mut last = Vec::new();
    for round in 0..2 {
        let (t, c0) = (Instant::now(), cpu_ms());
        one_by_one();
        println!(
            "verify shuffles one by one (4), round {round}: {:.0} ms wall, {:.0} ms cpu",
            ms(t),
            cpu_ms() - c0
        );
        let (t, c0) = (Instant::now(), cpu_ms());
        last = mix::verify_mixing(&public, &cts, &stages).unwrap().to_vec();
        println!(
            "verify_mixing (4, chain batch), round {round}: {:.0} ms wall, {:.0} ms cpu",
            ms(t),
            cpu_ms() - c0
        );
    }
    let t = Instant::now();
    let slots = packing::slots_per_ciphertext(pk, OUTPUT_SLOT_BITS);
    let packed = packing::pack(pk, &last, OUTPUT_SLOT_BITS, slots, &mix::output_offset()).unwrap();
    println!("pack: {:.0} ms ({} groups)", ms(t), packed.len());
    let mut decs = Vec::new();
    for s in &servers {
        let t = Instant::now();
        decs.push(s.decrypt(&public, &last).unwrap());
        println!("decrypt server: {:.0} ms", ms(t));
    }
    let t = Instant::now();
    for d in &decs {
        let _ = public
            .paillier
            .verify_batch(&public.sid, &packed, &d.shares)
            .unwrap();
    }
    println!("verify_batch x4: {:.0} ms", ms(t));
    let refs: Vec<_> = decs.iter().map(|d| &d.shares).collect();
    let t = Instant::now();
    let _ = public
        .paillier
        .verify_batches(&public.sid, &packed, &refs, &mut rng)
        .unwrap();
    println!("verify_batches (all at once): {:.0} ms", ms(t));
    let t = Instant::now();
    let _ = mix::verify_decryption(&public, &last, &decs).unwrap();
    println!("verify_decryption total: {:.0} ms", ms(t));
}
