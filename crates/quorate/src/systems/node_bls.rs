//! `quorate bench node`, hot/cold BLS rows (issue 16 §3): the deployment measured as
//! deployed. The hot parties are `quorate node run` processes on 127.0.0.1 (the
//! [`LocalCluster`] of the ECDSA rows), reached through their operator API by the same
//! functions `quorate bls register | audit | sign` use, so every call to the `n` nodes goes
//! out concurrently ([`super::bls::deploy`]'s fan-out, at most 32 at once). The cold
//! custodians run in process: they are offline file flows, not part of a round trip.
//!
//! Rows, each with the in-process figure of the same work beside it (one thread):
//! - registration: ClientRegister plus delivery to the `n` nodes, each of which checks its
//!   payload and seals it durably (target: within 1.5× of ClientRegister in process);
//! - audit: Π_EKS from every hot node, each checked by the auditor (in process: `n` proofs
//!   and `n` checks);
//! - recovery signing: `t` hot partials from the nodes, each node checking its cold
//!   partner's partial, then the client's checks and combination (in process: the same `t`
//!   partial signatures and `combine`).
//!
//! `(3,5)` and `(5,20)` run by default; `(67,100)` (100 node processes) with `--large`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use quorate_bls::kzg::ceremony;
use quorate_bls::proofs::verify_hot;
use quorate_bls::{
    combine, Client, ColdPartial, ColdParty, Crs, HotParty, HotRegistration, PadCommitment,
    PartyRecord, VerifiedColdKeys,
};
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use quorate_eval::bench::{BenchSuite, PaperFigure, Stats};
use quorate_node::identity::Passphrase;
use quorate_node::keystore::KdfParams;
use quorate_node::session::bls::audit_context;

use super::bls::deploy::audit::audit_nodes;
use super::bls::deploy::client::{deliver, register_to, sign_with_nodes, Failure};
use super::bls::deploy::files::{ClientKeys, KeyFile};
use super::node::LocalCluster;
use crate::common::os_rng;
use crate::systems::ecdsa::node_client::NodeClient;

/// Registration over the network must stay within this factor of ClientRegister in process.
const TARGET_FACTOR: f64 = 1.5;

fn failure(e: Failure) -> anyhow::Error {
    match e {
        Failure::Input(e) => e,
        Failure::Failed { error, culprits } => anyhow!("{error} (culprits {culprits:?})"),
        Failure::Report(v) => anyhow!("{v}"),
    }
}

fn stats(d: &[Duration]) -> anyhow::Result<Stats> {
    Stats::from_durations(d).ok_or_else(|| anyhow!("no samples"))
}

fn median_ms(d: &[Duration]) -> anyhow::Result<f64> {
    Ok(stats(d)?.median.as_secs_f64() * 1e3)
}

/// The 1-minute load average (`/proc/loadavg`), if readable.
fn load_average() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

/// The nodes' own account of their registrations (the `bls key registered` log line of
/// each `bench-<k>` key): per-phase medians over every node and sample of the wall time
/// and of the node thread's CPU time, or nothing when the logs do not have them.
fn node_breakdown(cluster: &LocalCluster, order: &[u16]) -> String {
    const PHASES: [&str; 7] = [
        "decode_us",
        "crs_us",
        "check_us",
        "store_us",
        "decode_cpu_us",
        "check_cpu_us",
        "store_cpu_us",
    ];
    let mut values: [Vec<u64>; 7] = Default::default();
    for id in order {
        let log = cluster.root().join(format!("n{id}")).join("node.log");
        let Ok(text) = std::fs::read_to_string(log) else {
            continue;
        };
        for line in text.lines() {
            if !line.contains("bls key registered") || line.contains("key_id=bench-first") {
                continue;
            }
            for (phase, out) in PHASES.iter().zip(values.iter_mut()) {
                let field = line
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix(phase)?.strip_prefix('='))
                    .and_then(|v| v.parse().ok());
                if let Some(v) = field {
                    out.push(v);
                }
            }
        }
    }
    if values.iter().any(Vec::is_empty) {
        return String::new();
    }
    let med = |v: &mut Vec<u64>| {
        v.sort_unstable();
        v[v.len() / 2] as f64 / 1e3
    };
    let [d, c, k, s, dc, kc, sc] = &mut values;
    format!(
        "; per node (median over nodes and samples, from its log), wall: decode {:.2} ms, \
         CRS {:.2} ms, checks {:.2} ms, keystore writes {:.2} ms; the node thread's CPU: \
         decode {:.2} ms, checks {:.2} ms, keystore writes {:.2} ms (wall − CPU: waiting for \
         the disk's fsync or for a core)",
        med(d),
        med(c),
        med(k),
        med(s),
        med(dc),
        med(kc),
        med(sc)
    )
}

/// Adds the BLS rows for `(3,5)`, `(5,20)` and, with `large`, `(67,100)`.
pub fn bench(suite: &mut BenchSuite, large: bool) -> anyhow::Result<()> {
    let mut sets = vec![(3u16, 5u16)];
    if !suite.is_quick() {
        sets.push((5, 20));
    }
    if large {
        sets.push((67, 100));
    }
    suite.note(
        "bls rows: hot parties are `quorate node run` processes; the client calls the n nodes' \
         operator APIs concurrently (at most 32 at once); cold custodians in process; \
         registration excludes each node's one-time CRS check (noted separately); \
         (67,100) only with --large",
    );
    for (t, n) in sets {
        bench_one(suite, t, n)?;
    }
    Ok(())
}

fn bench_one(suite: &mut BenchSuite, t: u16, n: u16) -> anyhow::Result<()> {
    let mut rng = os_rng();
    let label = format!("t={t} n={n}");
    let started = Instant::now();
    let cluster = LocalCluster::start(n)?;
    let order = cluster.ids();
    let mut nodes = BTreeMap::new();
    for id in &order {
        let dir = cluster.root().join(format!("n{id}"));
        let client = NodeClient::open(&dir).map_err(|e| anyhow!("{}: {e:?}", dir.display()))?;
        nodes.insert(*id, client);
    }
    suite.note(format!(
        "bls {label}: {n} node processes up in {:.1} s; load average {}",
        started.elapsed().as_secs_f64(),
        load_average().unwrap_or_else(|| "unknown".into())
    ));

    // Public set-up: the CRS, the cold custodians (offline), the client's keys.
    let transcript = ceremony::run_transcript_in_process(
        n,
        2,
        &SessionId::new(b"quorate/bench/bls-node".to_vec()),
    )?;
    let crs = Crs::from_transcript(&transcript, &mut rng)?;
    let transcript = transcript.to_bytes();
    let params = ThresholdParams::new(t, n)?;
    let mut cold: Vec<ColdParty> = PartyId::range(n)
        .map(|i| ColdParty::register(i, &mut rng))
        .collect();
    let regs: Vec<_> = cold.iter().map(|c| c.registration(&mut rng)).collect();
    let verified = VerifiedColdKeys::verify(&regs, &mut rng)?;
    let client = Client::generate(&mut rng);
    let vk = client.public_key();
    let mut pads: BTreeMap<u16, PadCommitment> = BTreeMap::new();
    for c in cold.iter_mut() {
        let pad = c.add_client(&vk, &client.proof_of_possession())?;
        pads.insert(c.index().get(), pad);
    }
    let pad_bytes: BTreeMap<u16, Vec<u8>> = pads.iter().map(|(i, p)| (*i, p.to_bytes())).collect();
    let keys = ClientKeys {
        client,
        auth: ed25519_dalek::SigningKey::generate(&mut rng),
        passphrase: Passphrase::new("quorate bench node bls".into()).map_err(|e| anyhow!("{e}"))?,
        kdf: KdfParams::insecure_for_tests(),
    };
    let register = |key_id: &str| {
        register_to(
            &nodes,
            &order,
            key_id,
            &keys,
            (&crs, &transcript),
            params,
            &verified,
            &pad_bytes,
        )
        .map_err(failure)
    };

    // Registration. The first one makes every node check the CRS transcript once.
    let first = Instant::now();
    register("bench-first")?;
    suite.note(format!(
        "bls registration {label}: first registration {:.0} ms (every node checks the CRS \
         transcript once)",
        first.elapsed().as_secs_f64() * 1e3
    ));
    // Each sample is `register_to` in its two halves, timed apart: ClientRegister on the
    // client, then the delivery (send, every node's checks and durable write, answers).
    let samples = suite.samples(if n >= 100 { 5 } else { 10 }, 3);
    let mut net = Vec::new();
    let mut dealing = Vec::new();
    let mut delivery = Vec::new();
    let mut public = None;
    for s in 0..samples {
        let start = Instant::now();
        let reg = keys.client.register(&crs, params, &verified, &mut rng)?;
        let dealt = start.elapsed();
        deliver(
            &nodes,
            &order,
            &format!("bench-{s}"),
            &keys,
            &transcript,
            &reg,
            &pad_bytes,
        )
        .map_err(failure)?;
        net.push(start.elapsed());
        dealing.push(dealt);
        delivery.push(start.elapsed() - dealt);
        public = Some(reg.public);
    }
    let public = public.ok_or_else(|| anyhow!("no registration"))?;
    suite.note(format!(
        "bls registration {label}: client's ClientRegister {:.2} ms + delivery to the {n} \
         nodes {:.2} ms (medians){}",
        median_ms(&dealing)?,
        median_ms(&delivery)?,
        node_breakdown(&cluster, &order)
    ));
    let mut inproc = Vec::new();
    let mut registration = None;
    for _ in 0..samples {
        let start = Instant::now();
        registration = Some(keys.client.register(&crs, params, &verified, &mut rng)?);
        inproc.push(start.elapsed());
    }
    let inproc_reg = median_ms(&inproc)?;
    let measured = stats(&net)?;
    let measured_ms = measured.median.as_secs_f64() * 1e3;
    suite
        .record(
            "bls registration (processes)",
            &label,
            Some(PaperFigure::new(inproc_reg, "ClientRegister in process")),
            measured,
        )
        .target_ms(TARGET_FACTOR * inproc_reg);

    // The key the audit and signing rows use: the last registration, on every node.
    let kf = KeyFile {
        key_id: format!("bench-{}", samples - 1),
        holders: order.clone(),
        public,
        cold: regs.clone(),
    };

    // One hot party's registration work as a node does it, in process on this thread:
    // decode its part of the record and the payload, then its own checks
    // (`HotParty::check_registration`: KZG opening and the client's authorisation in one
    // multi-pairing, then hx_i·g2 = vs_i + K_i). Every node does this once per
    // registration, so on this machine the n node processes share its cores for it.
    let registration = registration.ok_or_else(|| anyhow!("no registration"))?;
    let record = registration.public.to_bytes();
    let authorization = registration.authorization.to_bytes();
    let mut per_node = Vec::new();
    for _ in 0..suite.samples(5, 2) {
        for (payload, i) in registration.payloads.iter().zip(PartyId::range(n)) {
            let payload = payload.to_bytes();
            let pad = pads[&i.get()].to_bytes();
            let start = Instant::now();
            let view = PartyRecord::from_bytes(&record, i)?;
            let sig = quorate_bls::Signature::from_bytes(&authorization)?;
            let payload = HotRegistration::from_bytes(&payload)?;
            let pad = PadCommitment::from_bytes(&pad)?;
            HotParty::check_registration(&crs, &view, &sig, &payload, &pad, &mut rng)?;
            per_node.push(start.elapsed());
        }
    }
    let check_ms = median_ms(&per_node)?;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get()) as f64;
    let shared = inproc_reg + f64::from(n) * check_ms / cores;
    let own = inproc_reg + check_ms;
    suite.note(format!(
        "bls registration {label}: measured {measured_ms:.2} ms = {:.2}× ClientRegister \
         ({inproc_reg:.2} ms; target {TARGET_FACTOR}×). One hot party's decode + own checks \
         (in process, one thread, median over {} parties): {check_ms:.2} ms. Floor with the \
         {n} node processes sharing this machine's {cores} cores: ClientRegister + n × check \
         / cores = {shared:.2} ms = {:.2}×; with a hot node per machine (its own cores): \
         ClientRegister + one check = {own:.2} ms = {:.2}×, plus one round trip and one \
         fsync (all from this run's measurements)",
        measured_ms / inproc_reg,
        per_node.len(),
        shared / inproc_reg,
        own / inproc_reg,
    ));

    // In-process hot parties for the audit and signing rows (same work as the nodes,
    // without their per-request reload).
    let hot: Vec<HotParty> = registration
        .payloads
        .iter()
        .zip(PartyId::range(n))
        .map(|(payload, i)| {
            HotParty::register(
                &crs,
                i,
                &registration.public,
                &registration.authorization,
                payload,
                &pads[&i.get()],
                &mut rng,
            )
        })
        .collect::<Result<_, _>>()?;

    // Audit: Π_EKS from every node, each checked.
    let audit_samples = suite.samples(10, 3);
    let mut net = Vec::new();
    for block in 0..audit_samples as u64 {
        let start = Instant::now();
        let rows = audit_nodes(&nodes, &kf, &crs, block)?;
        net.push(start.elapsed());
        if let Some(bad) = rows.iter().find(|r| r["verified"] != true) {
            return Err(anyhow!("audit failed: {bad}"));
        }
    }
    let mut inproc = Vec::new();
    for block in 0..audit_samples as u64 {
        let ctx = audit_context("bench-inproc", block);
        let start = Instant::now();
        for (party, i) in hot.iter().zip(PartyId::range(n)) {
            let proof = party.prove(&crs, &ctx, &mut rng);
            verify_hot(&crs, &registration.public, i, &ctx, &proof)?;
        }
        inproc.push(start.elapsed());
    }
    suite.record(
        "bls audit of every hot node (processes)",
        &label,
        Some(PaperFigure::new(
            median_ms(&inproc)?,
            "n proofs and n checks in process",
        )),
        stats(&net)?,
    );

    // Recovery signing: t cold partials (made offline, not timed), t hot partials from the
    // nodes, checked and combined.
    let sign_samples = suite.samples(20, 3);
    let signers = usize::from(t);
    let cold_partials = |message: &[u8]| -> anyhow::Result<Vec<ColdPartial>> {
        cold.iter()
            .take(signers)
            .map(|c| c.partial_sign(&vk, message).map_err(anyhow::Error::from))
            .collect()
    };
    let mut net = Vec::new();
    for s in 0..sign_samples {
        let message = format!("bench message {s}");
        let partials: Vec<(PartyId, Vec<u8>)> = cold_partials(message.as_bytes())?
            .iter()
            .map(|p| (p.index(), p.to_bytes()))
            .collect();
        let start = Instant::now();
        sign_with_nodes(&nodes, &kf, &keys, &crs, message.as_bytes(), &partials)
            .map_err(failure)?;
        net.push(start.elapsed());
    }
    let mut inproc = Vec::new();
    for s in 0..sign_samples {
        let message = format!("bench message {s}");
        let partials = cold_partials(message.as_bytes())?;
        let start = Instant::now();
        let sigma = hot
            .iter()
            .zip(&partials)
            .map(|(h, c)| h.partial_sign(message.as_bytes(), c))
            .collect::<Result<Vec<_>, _>>()?;
        combine(
            &crs,
            &registration.public,
            message.as_bytes(),
            &sigma,
            &mut rng,
        )?;
        inproc.push(start.elapsed());
    }
    suite.record(
        "bls recovery signing (processes)",
        &label,
        Some(PaperFigure::new(
            median_ms(&inproc)?,
            "t partials and combine in process",
        )),
        stats(&net)?,
    );
    Ok(())
}
