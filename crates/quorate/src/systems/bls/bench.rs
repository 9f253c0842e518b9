//! `quorate bench bls`: the rows of the papers' Tables 1 and 2, timed on the demo's [`Flow`].

use super::demo::Flow;
use crate::common::os_rng;
use anyhow::{ensure, Context as _};
use quorate_bls::proofs::{batch_verify_cold, batch_verify_hot, verify_cold, verify_hot};
use quorate_bls::{combine, ColdParty, ColdProof, HotParty, HotProof, PartialSignature};
use quorate_core::bls12_381::wire::{g1_to_bytes, G1_BYTES, SCALAR_BYTES};
use quorate_eval::bench::{BenchSuite, PaperFigure};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

const PAPER_T1: &str = "paper Table 1";
const PAPER_T2: &str = "paper Table 2";
const REFERENCE: &str = "reference implementation";
/// The message signed by the benches (TSign rows use fresh random messages).
const BENCH_MESSAGE: &[u8] = b"quorate bench message";

/// Published figures for one `(t, n)` of Table 2, in milliseconds.
struct Table2 {
    t: u16,
    n: u16,
    client_register: f64,
    client_register_reference: f64,
    client_register_target: f64,
    client_refresh: f64,
    client_refresh_reference: f64,
    client_refresh_target: Option<f64>,
    hot_prove: f64,
    hot_verify: f64,
}

const TABLE2: [Table2; 3] = [
    Table2 {
        t: 3,
        n: 5,
        client_register: 10.0,
        client_register_reference: 8.9,
        client_register_target: 3.0,
        client_refresh: 11.0,
        client_refresh_reference: 3.2,
        client_refresh_target: None,
        hot_prove: 10.0,
        hot_verify: 14.0,
    },
    Table2 {
        t: 5,
        n: 20,
        client_register: 40.0,
        client_register_reference: 61.0,
        client_register_target: 10.0,
        client_refresh: 41.0,
        client_refresh_reference: 10.7,
        client_refresh_target: None,
        hot_prove: 40.0,
        hot_verify: 43.0,
    },
    Table2 {
        t: 67,
        n: 100,
        client_register: 170.0,
        client_register_reference: 352.0,
        client_register_target: 60.0,
        client_refresh: 172.0,
        client_refresh_reference: 233.0,
        client_refresh_target: Some(40.0),
        hot_prove: 170.0,
        hot_verify: 4.0,
    },
];

/// Hot-party refresh (`HotParty::refresh`), Table 1.
const PAPER_HOT_REFRESH_MS: f64 = 5.0;
/// Π_EKS prove / verify of the reference implementation (independent of `(t, n)`).
const REFERENCE_HOT_PROVE_MS: f64 = 0.87;
const REFERENCE_HOT_VERIFY_MS: f64 = 1.4;
const TARGET_HOT_VERIFY_MS: f64 = 0.9;

/// `quorate bench bls`: adds the BLS rows to `suite`. All three of the paper's parameter
/// sets, (3,5), (5,20) and (67,100), run by default; `--quick` drops (67,100) unless
/// `--large` is also given.
pub fn bench(suite: &mut BenchSuite, large: bool) -> anyhow::Result<()> {
    let mut rng = os_rng();
    let with_large = large || !suite.is_quick();
    let sets = parameter_sets(with_large);

    let mut first: Option<Flow> = None;
    for (k, figures) in sets.iter().enumerate() {
        // Untimed setup: one CRS and one full run per (t, n).
        let flow = Flow::run(figures.t, figures.n, BENCH_MESSAGE, &mut rng)
            .with_context(|| format!("bench setup at t={} n={}", figures.t, figures.n))?;
        if k == 0 {
            bench_table1(suite, &flow, &mut rng)?;
        }
        bench_table2(suite, &flow, figures, &mut rng)?;
        if k == 0 {
            first = Some(flow);
        }
    }
    if let Some(flow) = &first {
        bench_sizes(suite, flow);
    }

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if !with_large {
        suite.note(
            "(t,n) = (67,100) not run in --quick mode; drop --quick (or add --large) for the \
             paper's largest set",
        );
    }
    suite.note(format!(
        "Table 1 rows are measured at t=3 n=5 (they do not depend on t,n); ClientRegister, \
         refresh dealing and FK openings use rayon on {cores} core(s)"
    ));
    suite.note(
        "TSign per party = ColdParty::partial_sign + HotParty::partial_sign on a fresh \
         message (each hashes it to G1); combine = batch check of the t partials against vs_i, \
         Lagrange combination and verification under vk",
    );
    suite.note(
        "client refresh = Client::refresh (dealing and signing C_δ, π_0, degree proof, Δvs_j, all \
         openings) + the combiner's GroupPublic::refreshed check",
    );
    suite.note(
        "Π_DL is 128 B, not 256 B: one cold key (dk_i, ek_i) instead of the reference's two \
         (see quorate_bls::notes); the refresh's private per-party proof is the KZG opening \
         π_δ,i (48 B)",
    );
    Ok(())
}

/// The `(t, n)` sets of Table 2 to run: all three, or only (3,5) and (5,20).
fn parameter_sets(with_large: bool) -> Vec<&'static Table2> {
    TABLE2
        .iter()
        .filter(|row| with_large || row.n <= 20)
        .collect()
}

/// Table 1: operations whose cost does not depend on `(t, n)`.
fn bench_table1(suite: &mut BenchSuite, flow: &Flow, rng: &mut ChaCha20Rng) -> anyhow::Result<()> {
    let params = format!("t={} n={}", flow.t(), flow.n());
    let samples = suite.samples(200, 20);
    let id = flow.cold[0].index();
    let vk = flow.vk();

    // ColdRegister.
    suite
        .time(
            "ColdRegister",
            &params,
            Some(PaperFigure::new(0.360, PAPER_T1)),
            samples,
            || ColdParty::register(id, rng),
        )
        .reference(PaperFigure::new(0.285, REFERENCE));

    // TSign per party: cold partial, then hot partial, on a fresh message.
    let (cold, hot) = (&flow.cold[0], &flow.hot[0]);
    let check = cold
        .partial_sign(&vk, BENCH_MESSAGE)
        .and_then(|c| hot.partial_sign(BENCH_MESSAGE, &c))
        .context("TSign sanity check")?;
    ensure!(check == flow.partials[0], "TSign is not deterministic");
    let mut msg_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    suite
        .time_with_setup(
            "TSign per party (cold + hot partial)",
            &params,
            Some(PaperFigure::new(0.890, PAPER_T1)),
            samples,
            || random_message(&mut msg_rng),
            |msg| {
                cold.partial_sign(&vk, &msg)
                    .and_then(|c| hot.partial_sign(&msg, &c))
            },
        )
        .reference(PaperFigure::new(0.818, REFERENCE))
        .target_ms(0.30);

    // Π_DL.
    suite
        .time(
            "Cold Prove (Π_DL)",
            &params,
            Some(PaperFigure::new(0.370, PAPER_T1)),
            samples,
            || cold.prove(&flow.ctx, rng),
        )
        .reference(PaperFigure::new(0.302, REFERENCE));
    let ek = *cold.public_key().point();
    verify_cold(&ek, id, &flow.ctx, &flow.cold_proofs[0]).context("Π_DL sanity check")?;
    let mut proof_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    suite
        .time_with_setup(
            "Cold Verify (Π_DL)",
            &params,
            Some(PaperFigure::new(0.560, PAPER_T1)),
            samples,
            || cold.prove(&flow.ctx, &mut proof_rng),
            |proof| verify_cold(&ek, id, &flow.ctx, &proof).is_ok(),
        )
        .reference(PaperFigure::new(0.586, REFERENCE))
        .target_ms(0.30);
    Ok(())
}

/// Table 2: operations whose cost grows with `(t, n)`, plus the hot-party refresh of
/// Table 1 (measured at every `(t, n)` because its checks grow with `n`).
fn bench_table2(
    suite: &mut BenchSuite,
    flow: &Flow,
    figures: &Table2,
    rng: &mut ChaCha20Rng,
) -> anyhow::Result<()> {
    let (t, n) = (flow.t(), flow.n());
    let params = format!("t={t} n={n}");
    let heavy = suite.samples(if n >= 100 { 15 } else { 30 }, 3);
    let medium = suite.samples(if n >= 100 { 30 } else { 100 }, 10);
    let fast = suite.samples(200, 20);
    let crs = &flow.crs;
    let public = &flow.public;
    let vk = flow.vk();

    // ClientRegister.
    suite
        .time(
            "ClientRegister",
            &params,
            Some(PaperFigure::new(figures.client_register, PAPER_T2)),
            heavy,
            || flow.client.register(crs, flow.params, &flow.cold_keys, rng),
        )
        .reference(PaperFigure::new(
            figures.client_register_reference,
            REFERENCE,
        ))
        .target_ms(figures.client_register_target);

    // Client refresh: dealing plus the combiner's check of the public part.
    let row = suite
        .time(
            "Client refresh (deal + combiner check)",
            &params,
            Some(PaperFigure::new(figures.client_refresh, PAPER_T2)),
            heavy,
            || {
                flow.client
                    .refresh(crs, public, rng)
                    .and_then(|r| public.refreshed(crs, &r.public, rng))
            },
        )
        .reference(PaperFigure::new(
            figures.client_refresh_reference,
            REFERENCE,
        ));
    if let Some(target) = figures.client_refresh_target {
        row.target_ms(target);
    }

    // Hot-party refresh, for party 1: its own checks (everything that does not grow with
    // n; the check of every Δvs_j is the combiner's, in the client refresh row above) plus
    // the state update.
    let refresh = flow
        .client
        .refresh(crs, public, rng)
        .context("bench refresh")?;
    let hot = &flow.hot[0];
    hot.refresh(crs, &refresh.public, &refresh.shares[0], rng)
        .context("hot refresh sanity check")?;
    suite.time(
        "Hot refresh (HotParty::refresh)",
        &params,
        Some(PaperFigure::new(PAPER_HOT_REFRESH_MS, PAPER_T1)),
        medium,
        || hot.refresh(crs, &refresh.public, &refresh.shares[0], rng),
    );

    // Π_EKS.
    suite
        .time(
            "Hot Prove (Π_EKS)",
            &params,
            Some(PaperFigure::new(figures.hot_prove, PAPER_T2)),
            fast,
            || hot.prove(crs, &flow.ctx, rng),
        )
        .reference(PaperFigure::new(REFERENCE_HOT_PROVE_MS, REFERENCE));
    let id = hot.index();
    verify_hot(crs, public, id, &flow.ctx, &flow.hot_proofs[0]).context("Π_EKS sanity check")?;
    let mut proof_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    suite
        .time_with_setup(
            "Hot Verify (Π_EKS)",
            &params,
            Some(PaperFigure::new(figures.hot_verify, PAPER_T2)),
            fast,
            || hot.prove(crs, &flow.ctx, &mut proof_rng),
            |proof| verify_hot(crs, public, id, &flow.ctx, &proof).is_ok(),
        )
        .reference(PaperFigure::new(REFERENCE_HOT_VERIFY_MS, REFERENCE))
        .target_ms(TARGET_HOT_VERIFY_MS);

    // Batch verification of all n proofs of each kind.
    let hot_items: Vec<_> = flow
        .hot
        .iter()
        .zip(&flow.hot_proofs)
        .map(|(h, p)| (h.index(), *p))
        .collect();
    suite.time(
        &format!("Hot batch verify ({n} × Π_EKS)"),
        &params,
        None,
        medium,
        || batch_verify_hot(crs, public, &hot_items, &flow.ctx, rng).is_ok(),
    );
    let cold_items: Vec<_> = flow
        .cold
        .iter()
        .zip(&flow.cold_proofs)
        .map(|(c, p)| (c.index(), *c.public_key().point(), *p))
        .collect();
    suite.time(
        &format!("Cold batch verify ({n} × Π_DL)"),
        &params,
        None,
        medium,
        || batch_verify_cold(&cold_items, &flow.ctx, rng).is_ok(),
    );

    // Combine t partials (batch-checked against vs_i) and verify the result under vk.
    let signers: Vec<(&ColdParty, &HotParty)> = flow
        .cold
        .iter()
        .zip(&flow.hot)
        .take(usize::from(t))
        .collect();
    let mut setup_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    let mut combine_rng = ChaCha20Rng::from_rng(&mut *rng)?;
    let mut failures = 0usize;
    suite.time_with_setup(
        &format!("Combine + verify ({t} partials)"),
        &params,
        None,
        medium,
        || {
            let msg = random_message(&mut setup_rng);
            let partials: Vec<PartialSignature> = signers
                .iter()
                .filter_map(|(c, h)| {
                    c.partial_sign(&vk, &msg)
                        .and_then(|cp| h.partial_sign(&msg, &cp))
                        .ok()
                })
                .collect();
            (msg, partials)
        },
        |(msg, partials)| {
            let ok = combine(crs, public, &msg, &partials, &mut combine_rng)
                .map(|sig| vk.verify(&msg, &sig))
                .unwrap_or(false);
            if !ok {
                failures += 1;
            }
            ok
        },
    );
    ensure!(
        failures == 0,
        "{failures} combine + verify samples failed at t={t} n={n}"
    );
    Ok(())
}

/// Table 3: encoded sizes (ours from the actual encodings where the value is public).
fn bench_sizes(suite: &mut BenchSuite, flow: &Flow) {
    let vk = flow.vk().to_bytes().len();
    let ek = flow.cold_keys.keys()[0].to_bytes().len();
    let partial = g1_to_bytes(flow.partials[0].point()).len();
    let com_t = g1_to_bytes(flow.public.hot_share_commitment()).len();
    let pi_dl = flow.cold_proofs[0].to_bytes().len();
    let pi_eks = flow.hot_proofs[0].to_bytes().len();
    let sig = flow.signature.to_bytes().len();
    debug_assert_eq!(pi_dl, ColdProof::BYTES);
    debug_assert_eq!(pi_eks, HotProof::BYTES);
    let pi_eks = HotProof::PROOF_BYTES;
    suite.size("vk", "G2", Some(96), vk);
    suite.size("ek_i", "G2", Some(96), ek);
    suite.size("dk_i", "scalar", Some(32), SCALAR_BYTES);
    suite.size("hx_i", "scalar", Some(32), SCALAR_BYTES);
    suite.size("δ_i", "scalar", Some(32), SCALAR_BYTES);
    suite.size("partial signature σ_i", "G1", Some(48), partial);
    suite.size("com_T", "G1", Some(48), com_t);
    suite.size("Π_DL", "G2 + scalar", Some(256), pi_dl);
    suite.size("Π_EKS", "3 G1 + 2 scalars + G2", Some(304), pi_eks);
    suite.size(
        "Π_EKS as sent (+ record digest)",
        "proof + 32 B",
        None,
        HotProof::BYTES,
    );
    suite.size("refresh proof π_δ,i", "G1", Some(48), G1_BYTES);
    suite.size("signature σ", "G1", None, sig);
}

fn random_message(rng: &mut ChaCha20Rng) -> Vec<u8> {
    let mut msg = vec![0u8; 32];
    rng.fill_bytes(&mut msg);
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_bench_runs_the_papers_three_parameter_sets() {
        let sets = |large| {
            parameter_sets(large)
                .iter()
                .map(|row| (row.t, row.n))
                .collect::<Vec<_>>()
        };
        assert_eq!(sets(true), [(3, 5), (5, 20), (67, 100)]);
        assert_eq!(sets(false), [(3, 5), (5, 20)]);
    }

    #[test]
    fn bench_quick_rows() -> anyhow::Result<()> {
        let mut suite = BenchSuite::new("bls", true);
        suite.set_progress(false);
        bench(&mut suite, false)?;
        let ops: Vec<&str> = suite.rows().iter().map(|r| r.operation.as_str()).collect();
        for want in ["ColdRegister", "ClientRegister", "Π_DL", "Π_EKS", "com_T"] {
            assert!(
                ops.iter().any(|o| o.contains(want)),
                "{want} missing: {ops:?}"
            );
        }
        assert!(suite.rows().iter().any(|r| r.params == "t=5 n=20"));
        Ok(())
    }
}
