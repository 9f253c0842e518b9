//! Profiling driver: `cargo run --release -p quorate-eval --example ecdsa_profile -- sign 2 200`
//! (or `keygen 3 5 5`). Runs the in-process protocols in a loop on one thread, for `perf`,
//! and prints the minimum and median time per run.
#![allow(clippy::unwrap_used)]

use quorate_core::{PartyId, ThresholdParams};
use quorate_eval::ecdsa::simulate;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::time::Instant;

fn summary(mut times: Vec<f64>) -> String {
    times.sort_by(f64::total_cmp);
    format!(
        "min {:.3} ms, median {:.3} ms",
        times[0],
        times[times.len() / 2]
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("sign");
    let num = |i: usize, d: u16| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    pool.install(|| match what {
        "keygen" => {
            let (t, n, iters) = (num(2, 3), num(3, 5), num(4, 5));
            let params = ThresholdParams::new(t, n).unwrap();
            let mut times = Vec::new();
            let mut bytes = 0;
            for _ in 0..iters {
                let start = Instant::now();
                let (_, tr) = simulate::keygen(params, b"profile", &mut rng).unwrap();
                times.push(start.elapsed().as_secs_f64() * 1e3);
                bytes = tr.total();
            }
            println!("keygen ({t},{n}): {}, {bytes} B total", summary(times));
        }
        _ => {
            let (t, iters) = (num(2, 2), num(3, 200));
            let params = ThresholdParams::new(t, t).unwrap();
            let (mut shares, _) = simulate::keygen(params, b"profile", &mut rng).unwrap();
            let ids: Vec<PartyId> = params.parties().collect();
            let mut times = Vec::new();
            let mut bytes = 0;
            for k in 0..iters {
                let start = Instant::now();
                let (_, tr) =
                    simulate::sign(&mut shares, &ids, &[7u8; 32], &k.to_be_bytes(), &mut rng)
                        .unwrap();
                times.push(start.elapsed().as_secs_f64() * 1e3);
                bytes = tr.max_per_party();
            }
            println!("sign t={t}: {}, {bytes} B per party", summary(times));
        }
    });
}
