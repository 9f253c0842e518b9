//! CPU-time means of the BLS rows that issue 19 tracks (hot refresh, client refresh,
//! ClientRegister, Π_EKS verify), for a loaded machine where wall time is noise.
//! Run with `cargo run --release -p quorate-bls --example cpu_profile [-- 3/5,5/20 [hot,verify]]`
//! (the second argument picks rows among `register`, `client`, `hot`, `verify`; all by
//! default).
//! CPU time is the process's, summed over its threads' `/proc/self/task/*/schedstat`
//! (nanoseconds on CPU; Linux only); rayon runs on the measuring thread alone (a
//! one-thread pool that uses the current thread), and what `blst` hands to its own pool
//! is counted as well, so each figure is the total CPU an operation costs.
//!
//! It also times, as a same-machine anchor for the hot refresh, the group operations that
//! the reference implementation's per-party refresh (`refresh_untrusted` and the state
//! update) performs: `y·g1`, `z·g2`, two G2 preparations, a 2-term Miller loop with one
//! final exponentiation, and one G2 multiplication (issue 19); and Hot Verify's pairing
//! floor (its 3-term product with one fresh G2 preparation).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{process_cpu_ns, size_sets};

use blstrs::{G1Projective, G2Affine, G2Prepared, G2Projective, Scalar};
use ff::Field;
use group::{Curve, Group};
use quorate_bls::kzg::ceremony;
use quorate_bls::proofs::{verify_hot, ProofContext};
use quorate_bls::{Client, ColdParty, HotParty, VerifiedColdKeys};
use quorate_core::bls12_381::pairing::prepared_product_is_identity;
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// Mean CPU time of one call over a loop of `samples` calls (after one warm-up call):
/// the scheduler updates the thread's CPU clock at ticks, so one call of about a
/// millisecond cannot be timed alone, but a loop of many can.
fn mean_ms<T>(samples: usize, mut f: impl FnMut() -> T) -> f64 {
    std::hint::black_box(f());
    let start = process_cpu_ns();
    for _ in 0..samples {
        std::hint::black_box(f());
    }
    (process_cpu_ns() - start) as f64 / samples as f64 / 1e6
}

fn main() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (y, z) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
    let (c, pi) = (
        G1Projective::random(&mut rng),
        G1Projective::random(&mut rng),
    );
    let (tau2, vs) = (
        G2Projective::random(&mut rng),
        G2Projective::random(&mut rng),
    );
    let reference_ops = mean_ms(300, || {
        let lhs = c - G1Projective::generator() * y;
        let rhs = tau2 - G2Projective::generator() * z;
        let neg_g2 = G2Prepared::from(-G2Affine::from(G2Projective::generator()));
        let ok = prepared_product_is_identity(&[
            (lhs.to_affine(), &neg_g2),
            (pi.to_affine(), &G2Prepared::from(rhs.to_affine())),
        ]);
        (ok, vs * y)
    });
    println!("reference hot refresh op sequence (same machine): {reference_ops:.3} ms");
    // Hot Verify's pairing floor: its 3-term product with two G2 arguments prepared once
    // and one (−S) prepared per proof, and one final exponentiation.
    let g2_prepared = G2Prepared::from(G2Affine::from(G2Projective::generator()));
    let base_prepared = G2Prepared::from(tau2.to_affine());
    let (a1, a2, a3) = (c.to_affine(), pi.to_affine(), (c + pi).to_affine());
    let pairing_floor = mean_ms(300, || {
        let fresh = G2Prepared::from(vs.to_affine());
        prepared_product_is_identity(&[(a1, &g2_prepared), (a2, &base_prepared), (a3, &fresh)])
    });
    println!("Hot Verify pairing floor (3-term Miller loop, 1 final exp., 1 G2 preparation): {pairing_floor:.3} ms");
    let sets = size_sets();
    let rows = std::env::args()
        .nth(2)
        .unwrap_or_else(|| "register,client,hot,verify".into());
    let wanted = |row: &str| rows.split(',').any(|r| r == row);
    // A row left out prints as NaN.
    let timed = |row: &str, samples: usize, f: &mut dyn FnMut()| {
        if wanted(row) {
            mean_ms(samples, f)
        } else {
            f64::NAN
        }
    };
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
        let register = timed("register", heavy, &mut || {
            client.register(&crs, params, &eks, &mut rng).unwrap();
        });
        let reg = client.register(&crs, params, &eks, &mut rng).unwrap();
        let pad = cold[0]
            .add_client(&client.public_key(), &client.proof_of_possession())
            .unwrap();
        let hot = HotParty::register(
            &crs,
            PartyId::new(1).unwrap(),
            &reg.public,
            &reg.authorization,
            &reg.payloads[0],
            &pad,
            &mut rng,
        )
        .unwrap();
        let client_refresh = timed("client", heavy, &mut || {
            let r = client.refresh(&crs, &reg.public, &mut rng).unwrap();
            std::hint::black_box(
                reg.public
                    .refreshed(&crs, &r.public, &mut rng)
                    .unwrap()
                    .into_record(),
            );
        });
        let refresh = client.refresh(&crs, &reg.public, &mut rng).unwrap();
        let hot_refresh = timed("hot", 200, &mut || {
            std::hint::black_box(
                hot.refresh(&crs, &refresh.public, &refresh.shares[0], &mut rng)
                    .unwrap(),
            );
        });
        let ctx = ProofContext {
            session: SessionId::new(b"cpu".to_vec()),
            block_id: 1,
        };
        let proof = hot.prove(&crs, &ctx, &mut rng);
        let hot_verify = timed("verify", 200, &mut || {
            verify_hot(&crs, &reg.public, hot.index(), &ctx, &proof).unwrap();
        });
        println!(
            "(t,n)=({t},{n}) single-thread CPU means: ClientRegister {register:.2} ms | client refresh (deal + combiner check) {client_refresh:.2} ms | hot refresh {hot_refresh:.3} ms | Hot Verify {hot_verify:.3} ms"
        );
    }
}
