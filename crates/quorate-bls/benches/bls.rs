//! Criterion micro-benchmarks of the hot/cold threshold BLS operations.
//!
//! `cargo bench -p quorate-bls --bench bls`. Sample sizes are kept small so the whole run
//! takes well under a minute; `quorate bench bls` is the paper-comparison harness.

use criterion::measurement::WallTime;
use criterion::{criterion_main, BatchSize, BenchmarkGroup, Criterion};
use quorate_bls::kzg::ceremony;
use quorate_bls::proofs::{verify_cold, verify_hot};
use quorate_bls::{
    combine, Client, ColdParty, Crs, GroupPublic, HotParty, PartialSignature, ProofContext,
    VerifiedColdKeys,
};
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

const MESSAGE: &[u8] = b"criterion message";

/// A registered `(t, n)` system: CRS, cold and hot parties, the combiner's record.
struct Setup {
    params: ThresholdParams,
    crs: Crs,
    client: Client,
    cold: Vec<ColdParty>,
    cold_keys: VerifiedColdKeys,
    hot: Vec<HotParty>,
    public: GroupPublic,
    ctx: ProofContext,
}

impl Setup {
    fn new(t: u16, n: u16, rng: &mut ChaCha20Rng) -> Setup {
        let params = ThresholdParams::new(t, n).expect("valid (t, n)");
        let crs = ceremony::run_in_process(n, 3, &SessionId::new(b"criterion crs".to_vec()))
            .expect("ceremony");
        let mut cold: Vec<ColdParty> = PartyId::range(n)
            .map(|id| ColdParty::register(id, rng))
            .collect();
        let regs: Vec<_> = cold.iter().map(|c| c.registration(rng)).collect();
        let cold_keys = VerifiedColdKeys::verify(&regs, rng).expect("cold registrations");
        let client = Client::generate(rng);
        let registration = client
            .register(&crs, params, &cold_keys, rng)
            .expect("ClientRegister");
        let vk = client.public_key();
        let pop = client.proof_of_possession();
        let pads: Vec<_> = cold
            .iter_mut()
            .map(|party| party.add_client(&vk, &pop).expect("add client"))
            .collect();
        let hot: Vec<HotParty> = PartyId::range(n)
            .zip(&registration.payloads)
            .zip(&pads)
            .map(|((id, payload), pad)| {
                HotParty::register(
                    &crs,
                    id,
                    &registration.public,
                    &registration.authorization,
                    payload,
                    pad,
                    rng,
                )
                .expect("hot registration")
            })
            .collect();
        let ctx = ProofContext {
            session: SessionId::new(b"criterion".to_vec()),
            block_id: 1,
        };
        Setup {
            params,
            crs,
            client,
            cold,
            cold_keys,
            hot,
            public: registration.public,
            ctx,
        }
    }

    fn partials(&self, msg: &[u8]) -> Vec<PartialSignature> {
        let vk = self.client.public_key();
        self.cold
            .iter()
            .zip(&self.hot)
            .take(usize::from(self.params.t()))
            .map(|(c, h)| {
                let cold = c.partial_sign(&vk, msg).expect("cold partial");
                h.partial_sign(msg, &cold).expect("hot partial")
            })
            .collect()
    }
}

/// Small samples and short windows so the whole run stays quick.
fn configure(g: &mut BenchmarkGroup<'_, WallTime>) {
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
}

fn bench_signing(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let s = Setup::new(3, 5, &mut rng);
    let vk = s.client.public_key();
    let (cold, hot) = (&s.cold[0], &s.hot[0]);
    let cold_partial = cold.partial_sign(&vk, MESSAGE).expect("cold partial");

    let mut g = c.benchmark_group("tsign");
    configure(&mut g);
    g.bench_function("cold partial", |b| {
        b.iter(|| cold.partial_sign(black_box(&vk), black_box(MESSAGE)))
    });
    g.bench_function("hot partial", |b| {
        b.iter(|| hot.partial_sign(black_box(MESSAGE), black_box(&cold_partial)))
    });
    let mut msg_rng = ChaCha20Rng::seed_from_u64(2);
    let mut combine_rng = ChaCha20Rng::seed_from_u64(3);
    g.bench_function("combine + verify (t=3 n=5)", |b| {
        b.iter_batched(
            || {
                let mut msg = vec![0u8; 32];
                msg_rng.fill_bytes(&mut msg);
                let partials = s.partials(&msg);
                (msg, partials)
            },
            |(msg, partials)| {
                let sig =
                    combine(&s.crs, &s.public, &msg, &partials, &mut combine_rng).expect("combine");
                assert!(vk.verify(&msg, &sig));
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn bench_proofs(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let s = Setup::new(3, 5, &mut rng);
    let (cold, hot) = (&s.cold[0], &s.hot[0]);
    let id = cold.index();
    let ek = *cold.public_key().point();
    let cold_proof = cold.prove(&s.ctx, &mut rng);
    let hot_proof = hot.prove(&s.crs, &s.ctx, &mut rng);
    verify_cold(&ek, id, &s.ctx, &cold_proof).expect("Π_DL verifies");
    verify_hot(&s.crs, &s.public, id, &s.ctx, &hot_proof).expect("Π_EKS verifies");

    let mut g = c.benchmark_group("proofs");
    configure(&mut g);
    g.bench_function("Π_DL prove", |b| b.iter(|| cold.prove(&s.ctx, &mut rng)));
    g.bench_function("Π_DL verify", |b| {
        b.iter(|| verify_cold(black_box(&ek), id, &s.ctx, black_box(&cold_proof)))
    });
    g.bench_function("Π_EKS prove", |b| {
        b.iter(|| hot.prove(&s.crs, &s.ctx, &mut rng))
    });
    g.bench_function("Π_EKS verify", |b| {
        b.iter(|| verify_hot(&s.crs, &s.public, id, &s.ctx, black_box(&hot_proof)))
    });
    g.finish();
}

fn bench_registration(c: &mut Criterion) {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let s = Setup::new(5, 20, &mut rng);
    let mut g = c.benchmark_group("registration");
    configure(&mut g);
    g.bench_function("ClientRegister (t=5 n=20)", |b| {
        b.iter(|| {
            s.client
                .register(&s.crs, s.params, &s.cold_keys, &mut rng)
                .expect("ClientRegister")
        })
    });
    g.finish();
}

/// The benchmark group (`criterion_group!` generates an undocumented public function).
#[allow(missing_docs)]
mod group {
    use super::{bench_proofs, bench_registration, bench_signing};
    criterion::criterion_group!(benches, bench_signing, bench_proofs, bench_registration);
}

criterion_main!(group::benches);
