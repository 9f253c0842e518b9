//! Where the client's time goes: ClientRegister and client refresh (deal + the
//! maintainer's check) split into their dealing steps, each timed on one thread (process
//! CPU, as `cpu_profile` does) and on a two-thread rayon pool (wall clock, median), plus
//! the unit costs of the group operations they are built from, measured in the same run
//! (issue 19; docs/benchmarks.md §1, session 13).
//! Run with `cargo run --release -p quorate-bls --example client_profile [-- 3/5,5/20]`.
//! With `CLIENT_PROFILE_ONCE=1` every row runs once on one thread and the unit costs are
//! skipped: the mode for `valgrind --tool=callgrind` instruction counts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{process_cpu_ns, size_sets};

use blstrs::{G1Projective, G2Projective, Scalar};
use ff::Field;
use group::Group;
use quorate_bls::kzg::ceremony;
use quorate_bls::{Client, ColdParty, VerifiedColdKeys};
use quorate_core::bls12_381::glv::PublicScalarVartime;
use quorate_core::bls12_381::msm::{g1_generator_mul_ct, g2_generator_mul_ct};
use quorate_core::poly::SecretPolynomial;
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rayon::prelude::*;
use std::time::Instant;

/// Mean process CPU (ms) of one call over `samples` calls on a one-thread pool, and the
/// median wall clock (ms) of one call on a two-thread pool.
struct Timing {
    one: rayon::ThreadPool,
    two: rayon::ThreadPool,
    once: bool,
}

impl Timing {
    fn cpu_ms<T: Send>(&self, samples: usize, f: &(dyn Fn() -> T + Sync)) -> f64 {
        self.one.install(|| {
            std::hint::black_box(f());
            let start = process_cpu_ns();
            for _ in 0..samples {
                std::hint::black_box(f());
            }
            (process_cpu_ns() - start) as f64 / samples as f64 / 1e6
        })
    }

    fn wall_ms<T: Send>(&self, samples: usize, f: &(dyn Fn() -> T + Sync)) -> f64 {
        self.two.install(|| {
            std::hint::black_box(f());
            let mut times: Vec<f64> = (0..samples)
                .map(|_| {
                    let start = Instant::now();
                    std::hint::black_box(f());
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            times.sort_by(f64::total_cmp);
            times[times.len() / 2]
        })
    }

    /// `#[inline(never)]`: callgrind's `--dump-after` needs the call.
    #[inline(never)]
    fn row<T: Send>(&self, name: &str, samples: usize, f: &(dyn Fn() -> T + Sync)) {
        if self.once {
            self.one.install(f);
            println!("  {name}: ran once");
            return;
        }
        let cpu = self.cpu_ms(samples, f);
        let wall = self.wall_ms(samples, f);
        println!("  {name:<52} 1-thread CPU {cpu:>9.3} ms | 2-thread wall {wall:>9.3} ms");
    }
}

fn main() {
    let timing = Timing {
        one: rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap(),
        two: rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap(),
        once: std::env::var_os("CLIENT_PROFILE_ONCE").is_some(),
    };
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let s = Scalar::random(&mut rng);
    let w = Scalar::random(&mut rng);
    let p1 = G1Projective::random(&mut rng);
    let q1 = G1Projective::random(&mut rng);
    let p2 = G2Projective::random(&mut rng);
    let q2 = G2Projective::random(&mut rng);
    let twiddle = PublicScalarVartime::new(&w);
    let unit_samples = if timing.once { 0 } else { 2000 };
    println!("unit costs (one thread, process CPU, mean of 2000):");
    let unit = |name: &str, f: &(dyn Fn() -> G1Projective + Sync)| {
        println!(
            "  {name:<52} {:>9.2} µs",
            timing.cpu_ms(unit_samples, f) * 1e3
        );
    };
    unit("G1 blst constant-time multiplication", &|| p1 * s);
    unit("G1 GLV twiddle (public scalar)", &|| {
        twiddle.mul_vartime(&p1)
    });
    unit("G1 fixed-base table s·g1", &|| g1_generator_mul_ct(&s));
    unit("G1 addition (projective)", &|| p1 + q1);
    unit("G1 doubling", &|| p1.double());
    let unit2 = |name: &str, f: &(dyn Fn() -> G2Projective + Sync)| {
        println!(
            "  {name:<52} {:>9.2} µs",
            timing.cpu_ms(unit_samples / 2, f) * 1e3
        );
    };
    unit2("G2 blst constant-time multiplication", &|| p2 * s);
    unit2("G2 fixed-base table s·g2", &|| g2_generator_mul_ct(&s));
    unit2("G2 addition (projective)", &|| p2 + q2);

    let sets = size_sets();
    for (t, n) in sets {
        let crs = ceremony::run_in_process(n, 2, &SessionId::new(b"cpu".to_vec())).unwrap();
        let params = ThresholdParams::new(t, n).unwrap();
        let cold: Vec<ColdParty> = PartyId::range(n)
            .map(|i| ColdParty::register(i, &mut rng))
            .collect();
        let regs: Vec<_> = cold.iter().map(|c| c.registration(&mut rng)).collect();
        let eks = VerifiedColdKeys::verify(&regs, &mut rng).unwrap();
        let client = Client::generate(&mut rng);
        let samples = if n > 50 { 8 } else { 30 };
        let reg = client.register(&crs, params, &eks, &mut rng).unwrap();
        let size = crs.domain().size();
        println!("(t,n)=({t},{n}), N = {size}:");
        let rng_at = |seed: u64| ChaCha20Rng::seed_from_u64(seed);
        timing.row("ClientRegister", samples, &|| {
            client.register(&crs, params, &eks, &mut rng_at(2)).unwrap()
        });
        // Registration's steps.
        let full: Vec<Scalar> = (0..size).map(|_| Scalar::random(&mut rng)).collect();
        timing.row("  T's openings (full degree N−1)", samples, &|| {
            crs.open_parties_ct(&full, n).unwrap()
        });
        timing.row("  com_T (N terms)", samples, &|| {
            crs.commit_ct(&full).unwrap()
        });
        let eks_points: Vec<G2Projective> = eks.keys().iter().map(|k| *k.point()).collect();
        timing.row("  n pads sk·ek_i (G2, variable base)", samples, &|| {
            eks_points.par_iter().map(|e| e * s).collect::<Vec<_>>()
        });
        timing.row("  n vs_i = x_i·g2 (G2 table)", samples, &|| {
            eks_points
                .par_iter()
                .map(|_| g2_generator_mul_ct(&s))
                .collect::<Vec<_>>()
        });
        timing.row("client refresh (deal + maintainer check)", samples, &|| {
            let mut rng = rng_at(3);
            let r = client.refresh(&crs, &reg.public, &mut rng).unwrap();
            reg.public.refreshed(&crs, &r.public, &mut rng).unwrap()
        });
        timing.row("  deal (Client::refresh)", samples, &|| {
            client.refresh(&crs, &reg.public, &mut rng_at(4)).unwrap()
        });
        let refresh = client.refresh(&crs, &reg.public, &mut rng).unwrap();
        timing.row(
            "  maintainer check (GroupPublic::refreshed)",
            samples,
            &|| {
                reg.public
                    .refreshed(&crs, &refresh.public, &mut rng_at(5))
                    .unwrap()
            },
        );
        let delta = SecretPolynomial::random_zero_sharing(usize::from(t) - 1, &mut rng);
        let coeffs = delta.coefficients();
        timing.row("    openings of δ (deg t−1)", samples, &|| {
            crs.open_parties_ct(coeffs, n).unwrap()
        });
        timing.row(
            "    C_δ, π_0, degree proof (t terms each)",
            samples,
            &|| {
                let shift = crs.max_degree() + 1 - usize::from(t);
                (
                    crs.commit_ct(coeffs).unwrap(),
                    crs.commit_ct(&coeffs[1..]).unwrap(),
                    crs.commit_shifted_ct(coeffs, shift).unwrap(),
                )
            },
        );
        timing.row("    n Δvs_j = δ_j·g2 (G2 table)", samples, &|| {
            eks_points
                .par_iter()
                .map(|_| g2_generator_mul_ct(&s))
                .collect::<Vec<_>>()
        });
    }
}
