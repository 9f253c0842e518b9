//! `quorate bench witness`: the C2SP tlog-witness `add-checkpoint` endpoint measured as
//! deployed: one `quorate node run --public-http` process on 127.0.0.1 (started by the bench,
//! stopped by its PID), driven over HTTP/1.1 keep-alive connections by many logs at once, like
//! the logs of the public witness network would drive it.
//!
//! Rows:
//! - where the time of one cosignature goes, in this process: the log signature check
//!   (request parse + Ed25519 `verify_strict`), the cosignature (Ed25519 sign), and the
//!   durable compare-and-swap for one update and for a batch of [`LOGS`] updates (SQLite WAL,
//!   `synchronous=FULL`: one fsync per transaction);
//! - the same witness service in this process without HTTP, [`LOGS`] concurrent logs;
//! - the node process: one log (latency p50/p99, sequential requests), and [`LOGS`] concurrent
//!   logs (cosignatures per second against the issue's ≥ 5,000/s target, p50/p99).
//!
//! Every log's requests are signed before the clock starts (the log's work is not the
//! witness's), every answer must be 200, and every cosignature returned is verified with
//! the witness's note verifier key after the timed run.

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};
use ed25519_dalek::SigningKey;
use quorate_eval::bench::{BenchSuite, Stats};
use quorate_node::tlog_witness::checkpoint::format_checkpoint;
use quorate_node::tlog_witness::client::WitnessClient;
use quorate_node::tlog_witness::note::sign_note_ed25519;
use quorate_node::tlog_witness::proof::MemoryLog;
use quorate_node::tlog_witness::request::{format_request, AddCheckpoint};
use quorate_node::tlog_witness::store::{Update, WitnessStore, WITNESS_DB};
use quorate_node::tlog_witness::{Verifier, Witness, WitnessKey};
use rand_core::RngCore as _;

use super::node::{quorate_cmd, run_ok, PortPool};
use crate::common::os_rng;

/// The target (issue 15 §4): at least 5,000 cosignatures per second on loopback.
const TARGET_COSIGS_PER_S: f64 = 5_000.0;
/// Concurrent logs (one keep-alive connection each).
const LOGS: usize = 64;
/// Leaves each new checkpoint adds.
const STEP: u64 = 4;
/// The witness's key name.
const NAME: &str = "bench.witness/w1";
const STARTUP: Duration = Duration::from_secs(60);

/// One log: its key and its pre-signed requests, in order (request `k` moves the witness from
/// size `k·STEP` to `(k+1)·STEP`).
struct Feed {
    origin: String,
    vkey: Verifier,
    /// (request body, checkpoint note text).
    requests: Vec<(String, String)>,
}

fn feeds(logs: usize, per_log: usize) -> Vec<Feed> {
    let mut rng = os_rng();
    (0..logs)
        .map(|i| {
            let origin = format!("bench.example/log{i}");
            let mut seed = [0u8; 32];
            rng.fill_bytes(&mut seed);
            let key = SigningKey::from_bytes(&seed);
            let mut log = MemoryLog::new();
            let mut requests = Vec::with_capacity(per_log);
            for k in 0..per_log as u64 {
                for j in 0..STEP {
                    log.append(&(k * STEP + j).to_be_bytes());
                }
                let (old, new) = (k * STEP, (k + 1) * STEP);
                let text = format_checkpoint(&origin, new, &log.root(new));
                let note = sign_note_ed25519(&text, &origin, &key);
                let body = format_request(old, &log.consistency_proof(old, new), &note);
                requests.push((body, text));
            }
            Feed {
                vkey: Verifier::ed25519(&origin, key.verifying_key()),
                origin,
                requests,
            }
        })
        .collect()
}

fn register(db: &Path, feeds: &[Feed]) -> anyhow::Result<()> {
    let mut store = WitnessStore::open(db)?;
    for f in feeds {
        store.add_log(&f.origin, &f.vkey)?;
    }
    Ok(())
}

fn scratch_dir(what: &str) -> anyhow::Result<PathBuf> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "quorate-bench-{what}-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The `q`-quantile (0..=1) of sorted durations.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// A witness node process; stopped (SIGTERM by PID, then SIGKILL) and removed on drop.
struct WitnessNode {
    root: PathBuf,
    http: SocketAddr,
    child: Option<Child>,
}

impl WitnessNode {
    /// `node init` with a public listener, the logs registered, then `node run`. Returns
    /// the node and its witness verifier key (`witness_vkey` of `node init`).
    fn start(feeds: &[Feed]) -> anyhow::Result<(WitnessNode, Verifier)> {
        let mut ports = PortPool::new();
        // QUIC listener, operator API and public HTTP: three different ports.
        let (listen, api) = (ports.pick()?, ports.pick()?);
        let mut node = WitnessNode {
            http: format!("127.0.0.1:{}", ports.pick()?).parse()?,
            root: scratch_dir("witness")?,
            child: None,
        };
        let dir = node.root.join("w");
        let init = run_ok(
            quorate_cmd()?
                .args([
                    "node",
                    "init",
                    "--insecure-test-kdf",
                    "--id",
                    "1",
                    "--name",
                    NAME,
                ])
                .arg("--dir")
                .arg(&dir)
                .arg("--listen")
                .arg(format!("127.0.0.1:{listen}"))
                .arg("--api")
                .arg(format!("127.0.0.1:{api}"))
                .arg("--public-http")
                .arg(node.http.to_string()),
            "node init",
        )?;
        let init: serde_json::Value = serde_json::from_str(init.trim())?;
        let vkey = Verifier::parse(
            init["witness_vkey"]
                .as_str()
                .context("node init printed no witness_vkey")?,
        )?;
        let roster = node.root.join("roster.toml");
        run_ok(
            quorate_cmd()?
                .args(["node", "roster", "--out"])
                .arg(&roster)
                .arg(&dir),
            "node roster",
        )?;
        register(&dir.join(WITNESS_DB), feeds)?;
        let log = std::fs::File::create(node.root.join("node.log"))?;
        ports.release();
        node.child = Some(
            quorate_cmd()?
                .args(["node", "run", "--dir"])
                .arg(&dir)
                .arg("--roster")
                .arg(&roster)
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .context("spawning quorate node run")?,
        );
        let start = Instant::now();
        while TcpStream::connect_timeout(&node.http, Duration::from_secs(1)).is_err() {
            if let Some(status) = node
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                bail!("the witness node exited ({status}): {}", node.log());
            }
            ensure!(
                start.elapsed() < STARTUP,
                "the witness node did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok((node, vkey))
    }

    /// The node's CPU time so far (user + system, from `/proc/PID/stat`; `None` elsewhere).
    fn cpu(&self) -> Option<Duration> {
        let pid = self.child.as_ref()?.id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        // Fields 14 and 15 of stat(5) (utime, stime), in clock ticks of 1/100 s on Linux.
        let ticks: u64 =
            fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Duration::from_millis(ticks * 10))
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.root.join("node.log"))
            .unwrap_or_default()
            .trim()
            .to_string()
    }
}

impl Drop for WitnessNode {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SIGTERM to this child's PID only; SIGKILL if it has not exited within 10 s.
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
            let start = Instant::now();
            while c.try_wait().ok().flatten().is_none() && start.elapsed() < Duration::from_secs(10)
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// One answered request: (log, request index, latency, status, body).
type Answered = (usize, usize, Duration, u16, String);

/// Sends requests `range` of every log, each log on its own connection (sequentially within
/// a log: each request's old size is the previous one's new size), all logs at once.
async fn drive(
    clients: &mut Vec<WitnessClient>,
    feeds: &Arc<Vec<Feed>>,
    range: std::ops::Range<usize>,
) -> anyhow::Result<Vec<Answered>> {
    let mut tasks = tokio::task::JoinSet::new();
    for (i, mut client) in clients.drain(..).enumerate() {
        let (feeds, range) = (feeds.clone(), range.clone());
        tasks.spawn(async move {
            let mut out = Vec::with_capacity(range.len());
            for k in range {
                let body = feeds[i].requests[k].0.clone();
                let t = Instant::now();
                let a = client.add_checkpoint(body).await;
                let elapsed = t.elapsed();
                match a {
                    Ok(a) => out.push((i, k, elapsed, a.status, a.body)),
                    Err(e) => return (i, client, Err(anyhow::anyhow!("log {i}: {e}"))),
                }
            }
            (i, client, Ok(out))
        });
    }
    let mut back: Vec<Option<WitnessClient>> = (0..feeds.len()).map(|_| None).collect();
    let mut all = Vec::new();
    let mut failure = None;
    while let Some(joined) = tasks.join_next().await {
        let (i, client, result) = joined.context("a log task panicked")?;
        back[i] = Some(client);
        match result {
            Ok(v) => all.extend(v),
            Err(e) => failure = Some(e),
        }
    }
    clients.extend(back.into_iter().flatten());
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(all)
}

/// Checks that every answer is 200 with a cosignature that verifies under `vkey`.
fn check_cosignatures(feeds: &[Feed], vkey: &Verifier, answers: &[Answered]) -> anyhow::Result<()> {
    for (i, k, _, status, body) in answers {
        ensure!(
            *status == 200,
            "log {i} request {k}: HTTP {status}: {}",
            body.trim()
        );
        vkey.verify_cosignature_line(&feeds[*i].requests[*k].1, body)
            .with_context(|| format!("log {i} request {k}: the cosignature does not verify"))?;
    }
    Ok(())
}

/// Adds the witness rows to `suite`.
pub fn bench(suite: &mut BenchSuite) -> anyhow::Result<()> {
    components(suite)?;
    in_process(suite)?;
    node(suite)
}

/// Where one cosignature's time goes, operation by operation.
fn components(suite: &mut BenchSuite) -> anyhow::Result<()> {
    let feeds = feeds(LOGS, 64);
    let key = WitnessKey::generate(NAME).map_err(anyhow::Error::msg)?;
    let body = feeds[0].requests[1].0.clone();
    let vkey = feeds[0].vkey.clone();
    suite.time(
        "log signature check (parse + Ed25519 verify_strict)",
        "1 request",
        None,
        suite.samples(2000, 200),
        || {
            AddCheckpoint::parse(body.as_bytes())
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    r.note
                        .verify(std::slice::from_ref(&vkey))
                        .map_err(|e| e.to_string())
                })
                .is_ok()
        },
    );
    let text = feeds[0].requests[1].1.clone();
    suite.time(
        "cosignature/v1 (Ed25519 sign)",
        "1 checkpoint",
        None,
        suite.samples(2000, 200),
        || key.cosign(&text, 1_700_000_000),
    );

    // The durable compare-and-swap: one update per transaction, and LOGS per transaction.
    let root = scratch_dir("witness-store")?;
    let result = (|| {
        let db = root.join(WITNESS_DB);
        register(&db, &feeds)?;
        let mut store = WitnessStore::open(&db)?;
        let update = |f: &Feed, k: usize| -> anyhow::Result<Update> {
            let req = AddCheckpoint::parse(f.requests[k].0.as_bytes())
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(Update {
                origin: f.origin.clone(),
                old_size: req.old_size,
                proof: req.proof.clone(),
                size: req.checkpoint.size,
                root: req.checkpoint.root,
                request: f.requests[k].0.clone().into_bytes(),
                note_offset: req.note_offset,
            })
        };
        // Log 0 alone: one fsync per update.
        let mut next = 0usize;
        let mut failed = None;
        let single = suite.samples(30, 8);
        suite.time_with_setup(
            "compare-and-swap, durable (1 fsync)",
            "1 update per transaction",
            None,
            single,
            || {
                next += 1;
                update(&feeds[0], next - 1)
            },
            |u| match u.and_then(|u| Ok(store.apply(std::slice::from_ref(&u))?)) {
                Ok(o) if o == [quorate_node::tlog_witness::store::Outcome::Cosign] => {}
                other => failed = Some(format!("{other:?}")),
            },
        );
        // Logs 1.. together: one fsync for LOGS − 1 updates.
        let mut next = 0usize;
        suite.time_with_setup(
            "compare-and-swap, durable (1 fsync)",
            &format!("{} updates per transaction", LOGS - 1),
            None,
            single,
            || {
                next += 1;
                feeds[1..]
                    .iter()
                    .map(|f| update(f, next - 1))
                    .collect::<anyhow::Result<Vec<_>>>()
            },
            |u| match u.and_then(|u| Ok(store.apply(&u)?)) {
                Ok(o)
                    if o.iter()
                        .all(|o| *o == quorate_node::tlog_witness::store::Outcome::Cosign) => {}
                other => failed = Some(format!("{other:?}")),
            },
        );
        if let Some(f) = failed {
            bail!("the compare-and-swap refused a valid update: {f}");
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&root);
    result
}

/// The witness service in this process, without HTTP: LOGS concurrent logs.
fn in_process(suite: &mut BenchSuite) -> anyhow::Result<()> {
    let per_sample = if suite.is_quick() { 8 } else { 24 };
    let samples = suite.samples(5, 2);
    let feeds = Arc::new(feeds(LOGS, per_sample * (samples + 1)));
    let root = scratch_dir("witness-inproc")?;
    let result = (|| {
        let db = root.join(WITNESS_DB);
        register(&db, &feeds)?;
        let key = WitnessKey::generate(NAME).map_err(anyhow::Error::msg)?;
        let vkey = key.verifier();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let witness = {
            let _guard = rt.enter();
            Witness::open(&db, key)?
        };
        let mut sample = 0usize;
        let mut answers = Vec::new();
        let row = suite.time(
            "add-checkpoint in process (no HTTP)",
            &format!("{LOGS} concurrent logs × {per_sample} requests"),
            None,
            samples,
            || {
                let range = sample * per_sample..(sample + 1) * per_sample;
                sample += 1;
                let out = rt.block_on(async {
                    let mut tasks = tokio::task::JoinSet::new();
                    for i in 0..LOGS {
                        let (w, feeds, range) = (witness.clone(), feeds.clone(), range.clone());
                        tasks.spawn(async move {
                            let mut out = Vec::new();
                            for k in range {
                                let t = Instant::now();
                                let r = w.add_checkpoint(feeds[i].requests[k].0.as_bytes()).await;
                                out.push((i, k, t.elapsed(), r.status, r.body));
                            }
                            out
                        });
                    }
                    let mut all = Vec::new();
                    while let Some(v) = tasks.join_next().await {
                        all.extend(v.unwrap_or_default());
                    }
                    all
                });
                answers.extend(out);
            },
        );
        row.target_ms((LOGS * per_sample) as f64 / TARGET_COSIGS_PER_S * 1e3);
        let rate = rate_of(row.stats, LOGS * per_sample);
        ensure!(
            answers.len() == LOGS * per_sample * (samples + 1),
            "{} answers, {} expected",
            answers.len(),
            LOGS * per_sample * (samples + 1)
        );
        check_cosignatures(&feeds, &vkey, &answers)?;
        suite.note(format!(
            "in process, no HTTP: {rate:.0} cosignatures/s with {LOGS} concurrent logs (median \
             sample); every cosignature verified"
        ));
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&root);
    result
}

fn rate_of(stats: Option<Stats>, requests: usize) -> f64 {
    stats.map_or(0.0, |s| requests as f64 / s.median.as_secs_f64().max(1e-9))
}

/// The node process over HTTP.
fn node(suite: &mut BenchSuite) -> anyhow::Result<()> {
    let per_sample = if suite.is_quick() { 8 } else { 32 };
    let samples = suite.samples(5, 2);
    let sequential = suite.samples(400, 100);
    // Log 0 also serves the sequential latency row (after the concurrent samples).
    let total = per_sample * (samples + 1);
    let mut all = feeds(LOGS, total);
    all[0] = feeds(1, total + sequential + 1).remove(0);
    let feeds = Arc::new(all);
    let (node, vkey) = WitnessNode::start(&feeds)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut clients = rt.block_on(async {
        let mut v = Vec::new();
        for _ in 0..LOGS {
            v.push(WitnessClient::connect(node.http).await?);
        }
        Ok::<_, anyhow::Error>(v)
    })?;

    // LOGS concurrent logs.
    let cpu_before = node.cpu();
    let mut sample = 0usize;
    let mut answers = Vec::new();
    let mut latencies = Vec::new();
    let mut failure = None;
    let row = suite.time(
        "add-checkpoint over HTTP (node process)",
        &format!("{LOGS} concurrent logs × {per_sample} requests"),
        None,
        samples,
        || {
            let range = sample * per_sample..(sample + 1) * per_sample;
            let timed = sample > 0; // sample 0 is the harness's warm-up
            sample += 1;
            match rt.block_on(drive(&mut clients, &feeds, range)) {
                Ok(out) => {
                    if timed {
                        latencies.extend(out.iter().map(|a| a.2));
                    }
                    answers.extend(out);
                }
                Err(e) => failure = Some(e),
            }
        },
    );
    row.target_ms((LOGS * per_sample) as f64 / TARGET_COSIGS_PER_S * 1e3);
    let rate = rate_of(row.stats, LOGS * per_sample);
    let cpu = node.cpu().zip(cpu_before).map(|(b, a)| b.saturating_sub(a));
    if let Some(e) = failure {
        bail!("{e:#}\nwitness log: {}", node.log());
    }
    check_cosignatures(&feeds, &vkey, &answers)?;
    latencies.sort_unstable();
    if let Some(cpu) = cpu {
        let per = cpu.as_secs_f64() * 1e6 / answers.len().max(1) as f64;
        suite.note(format!(
            "node process CPU (user + system) {per:.0} µs per cosignature over the {} requests: \
             at most {:.0} cosignatures/s per fully available core",
            answers.len(),
            1e6 / per.max(1e-9)
        ));
    }
    suite.note(format!(
        "node process over HTTP/1.1 keep-alive: {rate:.0} cosignatures/s with {LOGS} concurrent \
         logs (median sample; target ≥ {TARGET_COSIGS_PER_S:.0}/s); latency p50 {:.2} ms, p99 \
         {:.2} ms over {} requests; all {} cosignatures verified with the node's vkey",
        ms(quantile(&latencies, 0.5)),
        ms(quantile(&latencies, 0.99)),
        latencies.len(),
        answers.len()
    ));

    // One log, sequential: the latency of one request (parse, verify, one fsync, sign).
    let mut one = clients.swap_remove(0);
    let out = rt
        .block_on(drive_one(&mut one, &feeds, total..total + sequential + 1))
        .with_context(|| format!("witness log: {}", node.log()))?;
    check_cosignatures(&feeds, &vkey, &out)?;
    let mut lat: Vec<Duration> = out.iter().skip(1).map(|a| a.2).collect();
    suite.record(
        "add-checkpoint over HTTP (node process)",
        "1 log, sequential requests",
        None,
        Stats::from_durations(&lat).context("no samples")?,
    );
    lat.sort_unstable();
    suite.note(format!(
        "one log, sequential: p50 {:.2} ms, p99 {:.2} ms ({} requests, each one durable commit)",
        ms(quantile(&lat, 0.5)),
        ms(quantile(&lat, 0.99)),
        lat.len()
    ));
    drop(clients);
    drop(node);
    Ok(())
}

/// [`drive`] for log 0 only.
async fn drive_one(
    c: &mut WitnessClient,
    feeds: &Arc<Vec<Feed>>,
    range: std::ops::Range<usize>,
) -> anyhow::Result<Vec<Answered>> {
    let mut out = Vec::with_capacity(range.len());
    for k in range {
        let t = Instant::now();
        let a = c.add_checkpoint(feeds[0].requests[k].0.clone()).await?;
        out.push((0, k, t.elapsed(), a.status, a.body));
    }
    Ok(out)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
