//! Thread-single-thread CPU medians of the BLS rows that issue 19 tracks (hot refresh, client
//! refresh, ClientRegister, Π_EKS verify), for a loaded machine where wall time is noise.
//! Run with `cargo run --release -p quorate-bls --example cpu_profile`.
//! CPU time is this thread's `/proc/thread-self/schedstat` (nanoseconds on CPU; Linux
//! only); rayon runs on this thread alone (a one-thread pool that uses the current thread),
//! so every operation is measured single-threaded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use quorate_bls::kzg::ceremony;
use quorate_bls::proofs::{verify_hot, ProofContext};
use quorate_bls::{Client, ColdParty, HotParty, VerifiedColdKeys};
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

fn thread_cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().unwrap().parse().unwrap()
}

fn median_ms<T>(samples: usize, mut f: impl FnMut() -> T) -> f64 {
    std::hint::black_box(f());
    let mut v: Vec<u64> = (0..samples)
        .map(|_| {
            let start = thread_cpu_ns();
            std::hint::black_box(f());
            thread_cpu_ns() - start
        })
        .collect();
    v.sort_unstable();
    v[v.len() / 2] as f64 / 1e6
}

fn main() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let sets: Vec<(u16, u16)> = std::env::args()
        .nth(1)
        .map(|a| {
            a.split(',')
                .map(|p| {
                    let (t, n) = p.split_once('/').unwrap();
                    (t.parse().unwrap(), n.parse().unwrap())
                })
                .collect()
        })
        .unwrap_or_else(|| vec![(3, 5), (5, 20), (67, 100)]);
    for (t, n) in sets {
        let crs = ceremony::run_in_process(n, 2, &SessionId::new(b"cpu".to_vec())).unwrap();
        let params = ThresholdParams::new(t, n).unwrap();
        let mut cold: Vec<ColdParty> = PartyId::range(n)
            .map(|i| ColdParty::register(i, &mut rng))
            .collect();
        let regs: Vec<_> = cold.iter().map(|c| c.registration(&mut rng)).collect();
        let eks = VerifiedColdKeys::verify(&regs, &mut rng).unwrap();
        let client = Client::generate(&mut rng);
        let heavy = if n > 50 { 5 } else { 20 };
        let register = median_ms(heavy, || {
            client.register(&crs, params, &eks, &mut rng).unwrap()
        });
        let reg = client.register(&crs, params, &eks, &mut rng).unwrap();
        let pad = cold[0]
            .add_client(&client.public_key(), &client.proof_of_possession())
            .unwrap();
        let hot = HotParty::register(
            &crs,
            PartyId::new(1).unwrap(),
            &reg.public,
            &reg.payloads[0],
            &pad,
            &mut rng,
        )
        .unwrap();
        let client_refresh = median_ms(heavy, || {
            let r = client.refresh(&crs, &reg.public, &mut rng).unwrap();
            reg.public.refreshed(&crs, &r.public, &mut rng).unwrap()
        });
        let refresh = client.refresh(&crs, &reg.public, &mut rng).unwrap();
        let hot_refresh = median_ms(50, || {
            hot.refresh(&crs, &refresh.public, &refresh.shares[0], &mut rng)
                .unwrap()
        });
        let ctx = ProofContext {
            session: SessionId::new(b"cpu".to_vec()),
            block_id: 1,
        };
        let proof = hot.prove(&crs, &ctx, &mut rng);
        let hot_verify = median_ms(50, || {
            verify_hot(&crs, &reg.public, hot.index(), &ctx, &proof).unwrap()
        });
        println!(
            "(t,n)=({t},{n}) single-thread CPU medians: ClientRegister {register:.2} ms | client refresh (deal + combiner check) {client_refresh:.2} ms | hot refresh {hot_refresh:.3} ms | Hot Verify {hot_verify:.3} ms"
        );
    }
}
