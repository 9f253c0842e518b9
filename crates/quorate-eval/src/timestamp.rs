//! `bench_timestamp`: how many timestamp requests per second the service sustains on this
//! machine, measured with real HTTP over loopback.
//!
//! The server (a multi-threaded tokio runtime) and the load generator (a single-threaded
//! runtime on the calling thread) run in one process but talk only through TCP on
//! 127.0.0.1, exactly as separate processes would. The server seals, signs (16 in-process
//! witnesses) and stores rounds while the load runs, so the measurement includes that
//! cost. Each timed sample is a fixed number of submits spread over many keep-alive
//! connections, so the median sample time converts directly into requests per second. After
//! the load, sampled receipts are fetched and verified, so the measured requests produced
//! valid receipts.

use crate::bench::{BenchSuite, PaperFigure};
use anyhow::{ensure, Context as _};
use quorate_cosi::timestamp::{
    leaf_hash, seal_round, system_clock, ChainHead, Hash, InProcessCosigner, Receipt,
    RootCosigner as _,
};
use quorate_timestamp::loadgen::{run_load_blocking, LoadConfig};
use quorate_timestamp::{ServerConfig, Service, Store};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The paper (§VI-G): "each physical machine effectively handled an aggregate client load of
/// about 20,000 timestamp requests per second".
pub const PAPER_REQUESTS_PER_SECOND: f64 = 20_000.0;
/// Where [`PAPER_REQUESTS_PER_SECOND`] comes from.
pub const PAPER_SOURCE: &str = "paper §VI-G (~20,000 req/s per machine)";
/// The target: at least 50,000 requests per second on loopback.
pub const TARGET_REQUESTS_PER_SECOND: f64 = 50_000.0;
/// Witnesses in the benchmark's roster.
const WITNESSES: usize = 16;
/// Concurrent client connections.
pub const CONNECTIONS: usize = 256;

fn temp_db_path() -> std::path::PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!(
        "quorate-timestamp-bench-{}-{nanos}.sqlite",
        std::process::id()
    ))
}

fn remove_db(path: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
}

/// Adds the timestamp service's rows to `suite`: sustained HTTP submits per second (the
/// ≥ 50,000 req/s target), round sealing cost by batch size, and receipt verification.
pub fn bench_timestamp(suite: &mut BenchSuite, quick: bool) -> anyhow::Result<()> {
    let db = temp_db_path();
    let result = bench_with_db(suite, quick, &db);
    remove_db(&db);
    result
}

fn bench_with_db(suite: &mut BenchSuite, quick: bool, db: &std::path::Path) -> anyhow::Result<()> {
    let round_ms = 250;
    let config = ServerConfig {
        round_interval: Duration::from_millis(round_ms),
        ..ServerConfig::default()
    };
    let server = Service::start_with_threads(
        "127.0.0.1:0".parse()?,
        Store::open(db)?,
        WITNESSES,
        config,
        Some(2),
    )?;
    let verifier = server.verifier();
    let addr = server.local_addr();

    let load = match sustained_submits(
        suite,
        addr,
        "submit over HTTP/1.1 (loopback)",
        &format!("{WITNESSES} in-process witnesses"),
    ) {
        Ok(load) => load,
        Err(e) => {
            server.shutdown()?;
            return Err(e);
        }
    };
    let sampled = &load.sampled;

    // The measured requests were real: fetch sampled receipts and verify them.
    let checked = (|| {
        let mut checked = 0usize;
        for (hash, ticket) in sampled.iter().take(40) {
            let (status, body) =
                server.call("GET", &format!("/v1/receipt/{ticket}?wait=1"), b"")?;
            ensure!(status == 200, "receipt {ticket}: HTTP {status}");
            let receipt = Receipt::from_json(std::str::from_utf8(&body)?)?;
            receipt
                .verify(&verifier, Some(hash))
                .with_context(|| format!("receipt {ticket}"))?;
            checked += 1;
        }
        Ok::<usize, anyhow::Error>(checked)
    })();
    let (status, head) = server.call("GET", "/v1/head", b"")?;
    server.shutdown()?;
    let checked = checked?;
    let rounds = if status == 200 {
        serde_json::from_slice::<serde_json::Value>(&head)?["round"]
            .as_u64()
            .map_or(0, |r| r + 1)
    } else {
        0
    };
    suite.note(load.summary());
    suite.note(format!(
        "server sealed {rounds} rounds ({round_ms} ms interval, {WITNESSES} in-process witnesses, \
         SQLite WAL synchronous=FULL) during the load; {checked} sampled receipts fetched and verified"
    ));

    // Round sealing cost (tree + collective signature + store append) by batch size.
    let sizes: &[usize] = if quick {
        &[1_000, 25_000]
    } else {
        &[1_000, 25_000, 100_000]
    };
    let mut store = Store::in_memory()?;
    let mut head = ChainHead::genesis();
    // Fresh witnesses for a fresh chain (the server's witnesses are at the server's head); they
    // check round times against the system clock.
    let cosigner = std::sync::Arc::new(InProcessCosigner::from_seed([3; 32], WITNESSES, head)?);
    let verifier = cosigner.verifier();
    let clock = system_clock();
    let mut counter = 0u64;
    for &size in sizes {
        let mut seal_error = None;
        suite.time_with_setup(
            "seal round: tree + cosign + store",
            &format!("{size} leaves, {WITNESSES} witnesses"),
            None,
            suite.samples(10, 3),
            || {
                (0..size)
                    .map(|_| {
                        counter += 1;
                        leaf_hash(&counter.to_be_bytes())
                    })
                    .collect::<Vec<Hash>>()
            },
            |hashes| {
                let sealed = seal_round(&head, hashes, clock(), cosigner.as_ref())
                    .map_err(anyhow::Error::from)
                    .and_then(|issued| store.append(&issued, b"bench").map(|()| issued));
                match sealed {
                    Ok(issued) => head = ChainHead::after(issued.header()),
                    Err(e) => seal_error = Some(e),
                }
            },
        );
        if let Some(e) = seal_error {
            return Err(e);
        }
    }

    // Offline receipt verification.
    let issued = seal_round(
        &head,
        (0..1000u64).map(|i| leaf_hash(&i.to_be_bytes())).collect(),
        clock(),
        cosigner.as_ref(),
    )?;
    let receipt = issued.receipt(500).context("receipt")?;
    receipt.verify(&verifier, None)?;
    suite.time(
        "verify receipt (path + CoSi signature)",
        &format!("1000 leaves, {WITNESSES} witnesses"),
        None,
        suite.samples(200, 50),
        || receipt.verify(&verifier, None).is_ok(),
    );
    suite.size(
        "receipt JSON",
        &format!("1000 leaves, {WITNESSES} witnesses"),
        None,
        receipt.to_json().len(),
    );
    suite.note(format!(
        "roster id {}; receipts carry R ‖ s ‖ mask ({} bytes)",
        hex::encode(cosigner.roster_id()),
        receipt.signature.len()
    ));
    Ok(())
}

/// What [`sustained_submits`] measured.
#[derive(Debug)]
pub struct Sustained {
    /// Timed samples.
    pub samples: usize,
    /// Requests answered 200 in the timed samples.
    pub ok: u64,
    /// Failed requests in the timed samples.
    pub errors: u64,
    /// Load time of the timed samples.
    pub time: Duration,
    /// Wall time of the whole row, warm-up included.
    pub wall: Duration,
    /// Median over samples of the per-sample latency p50 and p99.
    pub p50: Duration,
    /// See `p50`.
    pub p99: Duration,
    /// Some submitted (hash, ticket) pairs, for fetching and verifying receipts.
    pub sampled: Vec<(Hash, String)>,
}

impl Sustained {
    /// Requests per second over the timed samples.
    pub fn requests_per_second(&self) -> f64 {
        self.ok as f64 / self.time.as_secs_f64().max(1e-9)
    }

    /// The row's note: rate, counts, target, paper figure, latency.
    pub fn summary(&self) -> String {
        format!(
            "sustained {:.0} requests/s over the {} timed samples ({} ok, {} errors, {:.1} s of \
             load in all with the warm-up; target ≥ {TARGET_REQUESTS_PER_SECOND:.0}, paper ≈ \
             {PAPER_REQUESTS_PER_SECOND:.0} per machine); latency p50 {:?}, p99 {:?}",
            self.requests_per_second(),
            self.samples,
            self.ok,
            self.errors,
            self.wall.as_secs_f64(),
            self.p50,
            self.p99,
        )
    }
}

/// The sustained-submit row against the server at `addr` (in this process or another): each
/// timed sample is a fixed number of `POST /v1/submit` over [`CONNECTIONS`] keep-alive
/// connections, against the paper's figure and the ≥ 50,000 req/s target. Fails if no
/// request succeeded or the load generator failed.
pub fn sustained_submits(
    suite: &mut BenchSuite,
    addr: std::net::SocketAddr,
    operation: &str,
    witnesses: &str,
) -> anyhow::Result<Sustained> {
    let per_sample: u64 = if suite.is_quick() { 50_000 } else { 100_000 };
    let samples = suite.samples(6, 2);
    let (mut ok, mut errors, mut time) = (0u64, 0u64, Duration::ZERO);
    let (mut p50, mut p99, mut sampled) = (Vec::new(), Vec::new(), Vec::new());
    let mut failure: Option<anyhow::Error> = None;
    let mut run = 0u64;
    let started = Instant::now();
    suite
        .time(
            operation,
            &format!("{per_sample} requests, {CONNECTIONS} connections, {witnesses}"),
            Some(PaperFigure::new(
                per_sample as f64 / PAPER_REQUESTS_PER_SECOND * 1e3,
                PAPER_SOURCE,
            )),
            samples,
            || {
                run += 1;
                let load = LoadConfig {
                    max_requests: Some(per_sample),
                    seed: run,
                    ..LoadConfig::new(addr, CONNECTIONS, Duration::from_secs(60))
                };
                match run_load_blocking(&load) {
                    // The first call is the harness's untimed warm-up: not counted.
                    Ok(_) if run == 1 => {}
                    Ok(report) => {
                        ok += report.ok;
                        errors += report.errors;
                        time += report.elapsed;
                        p50.push(report.latency_p50);
                        p99.push(report.latency_p99);
                        sampled.extend(report.samples);
                    }
                    Err(e) => failure = Some(e),
                }
            },
        )
        .target_ms(per_sample as f64 / TARGET_REQUESTS_PER_SECOND * 1e3);
    let wall = started.elapsed();
    if let Some(e) = failure {
        return Err(e.context("load generator failed"));
    }
    ensure!(ok > 0, "no request succeeded");
    let median = |mut v: Vec<Duration>| {
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or_default()
    };
    Ok(Sustained {
        samples,
        ok,
        errors,
        time,
        wall,
        p50: median(p50),
        p99: median(p99),
        sampled,
    })
}
