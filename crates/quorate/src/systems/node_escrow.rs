//! `quorate bench node`, escrow rows (issue 16 §3): what the verifiable escrow backup of
//! node shares adds to a threshold-ECDSA refresh.
//!
//! Two 2-of-3 clusters of `quorate node run` processes on loopback, one without an escrow
//! and one with every node configured with an RDKGitH escrow key on secp256k1; the same
//! refresh sessions are timed on both. The added wall time is the escrow round (each node
//! proves its backup, then verifies the `n − 1` others, in parallel across nodes) plus one
//! network round; the in-process row beside it is one node's CPU: one prove and `n − 1`
//! verifications. Target: ≤ 10 ms per node.

use std::time::Instant;

use anyhow::anyhow;
use quorate_eval::bench::{BenchSuite, PaperFigure, Stats};
use quorate_verenc::backup::{self, CurveId, Scheme};
use serde_json::{json, Value};

use super::node::LocalCluster;
use crate::common::os_rng;

/// Target: escrow backup added to a refresh, per node (ms).
const TARGET_ESCROW_PER_NODE_MS: f64 = 10.0;

/// Median refresh latency of `samples` refreshes (after one warm-up) of a fresh 2-of-3 key.
fn refresh_median_ms(c: &LocalCluster, samples: usize) -> anyhow::Result<Stats> {
    let ids = c.ids();
    let key = c.session(
        1,
        &json!({
            "request_id": c.request_id("keygen"),
            "protocol": "ecdsa-keygen",
            "params": { "t": 2, "n": ids.len() },
            "participants": ids,
        }),
    )?;
    let key_id = key["key_id"]
        .as_str()
        .ok_or_else(|| anyhow!("keygen output has no key_id: {key}"))?
        .to_string();
    let mut epoch = key["epoch"].as_u64().unwrap_or_default();
    let mut refresh = |c: &LocalCluster| -> anyhow::Result<std::time::Duration> {
        let t = Instant::now();
        let out: Value = c.session(
            1,
            &json!({
                "request_id": c.request_id("refresh"),
                "protocol": "ecdsa-refresh",
                "params": { "n": ids.len() },
                "participants": ids,
                "key_id": key_id,
                "epoch": epoch,
            }),
        )?;
        let d = t.elapsed();
        epoch = out["epoch"]
            .as_u64()
            .ok_or_else(|| anyhow!("refresh output has no epoch: {out}"))?;
        Ok(d)
    };
    refresh(c)?;
    let mut d = Vec::with_capacity(samples);
    for _ in 0..samples.max(1) {
        d.push(refresh(c)?);
    }
    Stats::from_durations(&d).ok_or_else(|| anyhow!("no samples"))
}

/// One node's escrow CPU in process: one backup and `others` verifications, median ms.
fn inproc_escrow_ms(others: usize, samples: usize) -> anyhow::Result<f64> {
    let mut rng = os_rng();
    let (epk, _) = backup::escrow_keygen(&mut rng, Scheme::Rdkgith, CurveId::Secp256k1, None)?;
    let mut x = [0u8; 32];
    x[31] = 7;
    let mut d = Vec::new();
    for _ in 0..samples.max(1) {
        let t = Instant::now();
        let b = backup::backup(&mut rng, &epk, &x, b"bench escrow")?;
        for _ in 0..others {
            backup::verify(&b, &mut rng)?;
        }
        d.push(t.elapsed());
    }
    let s = Stats::from_durations(&d).ok_or_else(|| anyhow!("no samples"))?;
    Ok(s.median.as_secs_f64() * 1e3)
}

/// The escrow rows of `quorate bench node`.
pub fn bench(suite: &mut BenchSuite) -> anyhow::Result<()> {
    let samples = suite.samples(20, 5);
    let plain = LocalCluster::start(3)?;
    let base = refresh_median_ms(&plain, samples)?;
    drop(plain);

    let (epk, _esk) =
        backup::escrow_keygen(&mut os_rng(), Scheme::Rdkgith, CurveId::Secp256k1, None)?;
    let key_file =
        std::env::temp_dir().join(format!("quorate-bench-escrow-{}.json", std::process::id()));
    std::fs::write(&key_file, epk.to_json().to_string())?;
    let escrowed = LocalCluster::start_with_escrow(3, Some(&key_file));
    let _ = std::fs::remove_file(&key_file);
    let escrowed = escrowed?;
    let with = refresh_median_ms(&escrowed, samples)?;
    drop(escrowed);

    let base_ms = base.median.as_secs_f64() * 1e3;
    let with_ms = with.median.as_secs_f64() * 1e3;
    let added = (with_ms - base_ms).max(0.0);
    let cpu = inproc_escrow_ms(2, suite.samples(20, 5))?;
    suite.record(
        "ecdsa refresh, no escrow (processes)",
        "t=2 n=3",
        None,
        base,
    );
    suite.record(
        "ecdsa refresh + escrow backup (processes)",
        "t=2 n=3, RDKGitH secp256k1",
        Some(PaperFigure::new(
            base_ms,
            "the same refresh without an escrow",
        )),
        with,
    );
    suite
        .record(
            "escrow backup added to a refresh, per node",
            "t=2 n=3, RDKGitH secp256k1",
            Some(PaperFigure::new(
                cpu,
                "one node's CPU in process: 1 prove + 2 verify",
            )),
            Stats::from_ms(added, added, added, with.samples),
        )
        .target_ms(TARGET_ESCROW_PER_NODE_MS);
    suite.note(format!(
        "escrow: 2-of-3 refresh median {base_ms:.1} ms without, {with_ms:.1} ms with an RDKGitH \
         escrow (every node proves its backup and verifies the 2 others before signing the \
         epoch certificate; nodes in parallel): +{added:.1} ms per refresh, i.e. per node; \
         one node's escrow CPU in process {cpu:.1} ms"
    ));
    Ok(())
}
