//! `quorate bench node`: the node measured as deployed, one `quorate node run` process per
//! party on 127.0.0.1 (QUIC + TLS 1.3 over loopback UDP, signed envelopes, persisted session
//! records and keystore), driven through the operator API like an operator would.
//!
//! Rows (each with the in-process figure of the same protocol beside it, from
//! `quorate_eval::ecdsa::simulate` on one thread, i.e. the CPU of all parties together):
//! - `ping` session latency (2 rounds, no cryptography): the runtime's floor;
//! - ECDSA keygen (2,3) and (3,5), wall time of one `POST /v1/sessions` (t = 2 of 3 target-free,
//!   3 of 5 against the 300 ms target);
//! - ECDSA signing latency p50 and p99, 2-of-3 (target p50 ≤ 5 ms) and 3-of-5;
//! - sustained 2-of-3 signatures per second with concurrent sessions spread over every
//!   coordinator (target ≥ 300/s), printed as ms per signature.
//!
//! The nodes use the cheap test KDF (`--insecure-test-kdf`): the passphrase KDF runs once at
//! start-up and is not part of any row. The client keeps one HTTP/1.1 connection per node (and
//! per client task of the sustained rows) open, as an operator's client would: no TCP
//! handshake or accept per session.

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context as _};
use quorate_core::{PartyId, ThresholdParams};
use quorate_eval::bench::{BenchSuite, PaperFigure, Stats};
use quorate_eval::ecdsa::simulate;
use quorate_node::api_client::{call, Connection, STARTUP_GRACE};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::common::os_rng;

/// 2-of-3 signing latency target (p50, ms).
const TARGET_SIGN_2_3_MS: f64 = 5.0;
/// Sustained 2-of-3 signatures per second target.
const TARGET_SIGS_PER_S: f64 = 300.0;
/// (3,5) keygen target (ms).
const TARGET_KEYGEN_3_5_MS: f64 = 300.0;

const PASSPHRASE: &str = "quorate bench node passphrase";
const STARTUP: Duration = Duration::from_secs(60);
const CALL_LIMIT: Duration = Duration::from_secs(120);

/// One node process.
struct NodeProc {
    id: u16,
    api: SocketAddr,
    token: String,
    child: Option<Child>,
    /// The client's open connection to the operator API (taken while in use).
    conn: std::sync::Mutex<Option<Connection>>,
}

/// `n` node processes on loopback in a scratch directory; killed and removed on drop.
pub struct LocalCluster {
    root: PathBuf,
    nodes: Vec<NodeProc>,
    rt: tokio::runtime::Runtime,
    next_request: AtomicU64,
}

impl std::fmt::Debug for LocalCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalCluster")
            .field("root", &self.root)
            .field("nodes", &self.nodes.len())
            .finish_non_exhaustive()
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for n in &mut self.nodes {
            if let Some(mut c) = n.child.take() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Lowest port of the scan: above the registered ports most local services use.
const PORT_SCAN_LOW: u32 = 10_000;

/// Ports for local node processes on 127.0.0.1, each free for both UDP and TCP when picked
/// (so one pick serves a QUIC listener or an HTTP listener alike).
///
/// Two rules make the picks safe to hand to processes that bind them later:
/// - every pick's UDP and TCP sockets are **held** until the pool is dropped, so no two
///   picks of one pool can be equal (binding port 0 and releasing it at once, as before,
///   gave the same port twice about once in five clusters of 100 nodes);
/// - ports come from **below the kernel's ephemeral range** (`ip_local_port_range`, 32768
///   and up by default): the kernel never hands such a port to an outgoing connection or a
///   `bind(:0)`, so the health checks' connections to the nodes already up cannot take the
///   port of a node that has not bound it yet.
///
/// The scan starts at a random port and continues, process-wide, where the last pick
/// stopped, so clusters started one after the other get fresh ports. Another program
/// binding a port between the pool's drop and the node's bind is still possible;
/// [`LocalCluster::start_with_escrow`] retries a start that fails that way.
pub(crate) struct PortPool {
    held: Vec<(UdpSocket, TcpListener)>,
}

impl PortPool {
    pub(crate) fn new() -> Self {
        PortPool { held: Vec::new() }
    }

    /// The first port of the kernel's ephemeral range (32768 if unreadable).
    fn ephemeral_low() -> u32 {
        std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok())
            .filter(|low| *low > PORT_SCAN_LOW + 1_000)
            .unwrap_or(32_768)
    }

    /// A port free for UDP and TCP on 127.0.0.1, distinct from every port this pool holds.
    pub(crate) fn pick(&mut self) -> anyhow::Result<u16> {
        use rand_core::RngCore as _;
        static NEXT: AtomicU64 = AtomicU64::new(u64::MAX);
        let span = Self::ephemeral_low() - PORT_SCAN_LOW;
        if NEXT.load(Ordering::Relaxed) == u64::MAX {
            let start = u64::from(os_rng().next_u32() % span);
            let _ = NEXT.compare_exchange(u64::MAX, start, Ordering::Relaxed, Ordering::Relaxed);
        }
        for _ in 0..span {
            let offset = NEXT.fetch_add(1, Ordering::Relaxed) % u64::from(span);
            let port = u16::try_from(PORT_SCAN_LOW + offset as u32)?;
            let Ok(udp) = UdpSocket::bind(("127.0.0.1", port)) else {
                continue;
            };
            let Ok(tcp) = TcpListener::bind(("127.0.0.1", port)) else {
                continue;
            };
            self.held.push((udp, tcp));
            return Ok(port);
        }
        bail!("no port below the ephemeral range is free for both UDP and TCP")
    }

    /// Releases every held port (for the processes about to bind them).
    pub(crate) fn release(self) {}
}

/// Whether an error (a node's start-up failure with its log) is a port taken meanwhile.
fn address_in_use(e: &anyhow::Error) -> bool {
    let text = format!("{e:#}");
    text.contains("Address already in use") || text.contains("os error 98")
}

/// Attempts at starting a cluster whose start failed only because a port was taken.
const START_ATTEMPTS: usize = 3;

/// Environment variable naming another `quorate` binary to run the node processes with (an
/// A/B of node code under the same bench code); default: this binary.
pub const NODE_BIN_ENV: &str = "QUORATE_BENCH_NODE_BIN";

/// The bench nodes' log filter: errors, and the per-session timing lines the BLS and escrow
/// rows read back from each node's log (`bls key registered`, `escrow round`).
const NODE_LOG_FILTER: &str =
    "error,quorate_node::session::bls=info,quorate_node::session::ecdsa::escrow=info";

pub(crate) fn quorate_cmd() -> anyhow::Result<Command> {
    let exe = match std::env::var_os(NODE_BIN_ENV) {
        Some(bin) => PathBuf::from(bin),
        None => std::env::current_exe().context("locating the quorate binary")?,
    };
    let mut c = Command::new(exe);
    c.env("QUORATE_PASSPHRASE", PASSPHRASE)
        .env("QUORATE_LOG", NODE_LOG_FILTER);
    Ok(c)
}

pub(crate) fn run_ok(cmd: &mut Command, what: &str) -> anyhow::Result<String> {
    let out = cmd.output().with_context(|| what.to_string())?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

impl LocalCluster {
    /// Initialises `n` nodes (ids `1..=n`), writes their roster and starts every node.
    pub fn start(n: u16) -> anyhow::Result<LocalCluster> {
        Self::start_with_escrow(n, None)
    }

    /// [`LocalCluster::start`], every node configured with the escrow key file `escrow`
    /// (`node init --escrow-key`), if given.
    /// A start that fails because another program took a picked port between the pick and
    /// the node's bind (see [`PortPool`]) is retried with fresh ports.
    pub fn start_with_escrow(n: u16, escrow: Option<&Path>) -> anyhow::Result<LocalCluster> {
        let mut attempt = 1;
        loop {
            match Self::try_start(n, escrow) {
                Err(e) if attempt < START_ATTEMPTS && address_in_use(&e) => {
                    eprintln!("note: node cluster start hit a taken port, retrying: {e:#}");
                    attempt += 1;
                }
                done => return done,
            }
        }
    }

    fn try_start(n: u16, escrow: Option<&Path>) -> anyhow::Result<LocalCluster> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let root = std::env::temp_dir().join(format!(
            "quorate-bench-node-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&root)?;
        // The client side is light (one HTTP request per session): one thread.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let mut cluster = LocalCluster {
            root,
            nodes: Vec::new(),
            rt,
            next_request: AtomicU64::new(0),
        };
        let mut dirs = Vec::new();
        let mut ports = PortPool::new();
        for id in 1..=n {
            let dir = cluster.root.join(format!("n{id}"));
            // `node init` wants the QUIC listener and the operator API on different ports.
            let listen = ports.pick()?;
            let api: SocketAddr = format!("127.0.0.1:{}", ports.pick()?).parse()?;
            let mut init = quorate_cmd()?;
            if let Some(key) = escrow {
                init.arg("node").arg("init").arg("--escrow-key").arg(key);
            } else {
                init.args(["node", "init"]);
            }
            run_ok(
                init.args(["--insecure-test-kdf", "--id"])
                    .arg(id.to_string())
                    .arg("--dir")
                    .arg(&dir)
                    .arg("--listen")
                    .arg(format!("127.0.0.1:{listen}"))
                    .arg("--api")
                    .arg(api.to_string()),
                "node init",
            )?;
            let token = std::fs::read_to_string(dir.join("api.token"))?
                .trim()
                .to_string();
            cluster.nodes.push(NodeProc {
                id,
                api,
                token,
                child: None,
                conn: std::sync::Mutex::new(None),
            });
            dirs.push(dir);
        }
        let roster = cluster.root.join("roster.toml");
        run_ok(
            quorate_cmd()?
                .args(["node", "roster", "--out"])
                .arg(&roster)
                .args(&dirs),
            "node roster",
        )?;
        ports.release();
        for (node, dir) in cluster.nodes.iter_mut().zip(&dirs) {
            let log = std::fs::File::create(dir.join("node.log"))?;
            let child = quorate_cmd()?
                .args(["node", "run", "--dir"])
                .arg(dir)
                .arg("--roster")
                .arg(&roster)
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .context("spawning quorate node run")?;
            node.child = Some(child);
        }
        for (i, dir) in dirs.iter().enumerate() {
            cluster.wait_healthy(i, dir)?;
        }
        Ok(cluster)
    }

    fn wait_healthy(&mut self, i: usize, dir: &Path) -> anyhow::Result<()> {
        let start = Instant::now();
        loop {
            if let Some(status) = self.nodes[i]
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                let log = std::fs::read_to_string(dir.join("node.log")).unwrap_or_default();
                bail!(
                    "node {} exited ({status}): {}",
                    self.nodes[i].id,
                    log.trim()
                );
            }
            let r = self.rt.block_on(call(
                self.nodes[i].api,
                "GET",
                "/health",
                None,
                None,
                Duration::from_secs(2),
            ));
            if matches!(r, Ok(ref r) if r.status == 200) {
                return Ok(());
            }
            if start.elapsed() > STARTUP {
                bail!("node {} did not come up", self.nodes[i].id);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// CPU time (user + system) each node process used so far, in id order, from
    /// `/proc/PID/stat` (`None` where that is unavailable).
    pub fn cpu(&self) -> Option<Vec<Duration>> {
        self.nodes
            .iter()
            .map(|n| {
                let pid = n.child.as_ref()?.id();
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
                // Fields 14 and 15 of stat(5) (utime, stime), in ticks of 1/100 s on Linux.
                let ticks: u64 =
                    fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
                Some(Duration::from_millis(ticks * 10))
            })
            .collect()
    }

    /// Context switches (voluntary and involuntary) so far of each node process's threads
    /// alive now, in id order, from `/proc/PID/task/*/status` (`None` where unavailable). A
    /// thread that exits between two readings takes its count along: over a few seconds of
    /// steady load (tokio keeps idle blocking threads 10 s) the difference is close to exact.
    pub fn switches(&self) -> Option<Vec<u64>> {
        self.nodes
            .iter()
            .map(|n| {
                let pid = n.child.as_ref()?.id();
                let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
                let mut total = 0u64;
                for task in tasks.flatten() {
                    // A thread may exit while we read: it counts nothing then.
                    let Ok(status) = std::fs::read_to_string(task.path().join("status")) else {
                        continue;
                    };
                    total += status
                        .lines()
                        .filter(|l| l.contains("ctxt_switches:"))
                        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                        .sum::<u64>();
                }
                Some(total)
            })
            .collect()
    }

    /// [`Self::cpu`] and [`Self::switches`] read together.
    fn usage(&self) -> Usage {
        Usage {
            cpu: self.cpu(),
            switches: self.switches(),
        }
    }

    /// Every node id.
    pub fn ids(&self) -> Vec<u16> {
        self.nodes.iter().map(|n| n.id).collect()
    }

    /// The scratch directory holding every node directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A fresh request id.
    pub fn request_id(&self, what: &str) -> String {
        format!(
            "bench-{what}-{}",
            self.next_request.fetch_add(1, Ordering::Relaxed)
        )
    }

    fn node(&self, id: u16) -> anyhow::Result<&NodeProc> {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .ok_or_else(|| anyhow!("no node {id}"))
    }

    /// Runs one session through node `via` on the client's open connection to it; returns
    /// its output (error if it did not complete, or an attempt blamed a node).
    pub fn session(&self, via: u16, request: &Value) -> anyhow::Result<Value> {
        let n = self.node(via)?;
        let kept = n.conn.lock().map_err(|_| anyhow!("lock"))?.take();
        self.rt.block_on(async {
            let mut conn = match kept {
                Some(c) => c,
                None => Connection::open(n.api, STARTUP_GRACE).await?,
            };
            let out = session_call(&mut conn, &n.token, request.to_string()).await;
            // A connection that failed mid-request is not reused.
            if !matches!(out, Err(SessionFailed::Http(_))) {
                *n.conn.lock().map_err(|_| anyhow!("lock"))? = Some(conn);
            }
            Ok::<Value, anyhow::Error>(out?)
        })
    }

    /// Runs `make(i)` sessions from `concurrency` client tasks (task `k` submits through
    /// node `via[k % via.len()]`) for `duration`; returns (completed sessions, elapsed).
    pub fn sustained(
        &self,
        via: &[u16],
        concurrency: usize,
        duration: Duration,
        make: impl Fn(u64) -> Value + Send + Sync + 'static,
    ) -> anyhow::Result<(u64, Duration)> {
        let make = Arc::new(make);
        let done = Arc::new(AtomicU64::new(0));
        let counter = Arc::new(AtomicU64::new(0));
        let start = Instant::now();
        let deadline = tokio::time::Instant::now() + duration;
        let targets: Vec<(SocketAddr, String)> = self
            .nodes
            .iter()
            .filter(|n| via.contains(&n.id))
            .map(|n| (n.api, n.token.clone()))
            .collect();
        if targets.is_empty() {
            bail!("no coordinator among {via:?}");
        }
        let result: anyhow::Result<()> = self.rt.block_on(async {
            let mut tasks = Vec::new();
            for k in 0..concurrency {
                let (api, token) = targets[k % targets.len()].clone();
                let make = make.clone();
                let done = done.clone();
                let counter = counter.clone();
                tasks.push(tokio::spawn(async move {
                    let mut conn = Connection::open(api, STARTUP_GRACE).await?;
                    while tokio::time::Instant::now() < deadline {
                        let i = counter.fetch_add(1, Ordering::Relaxed);
                        let req = make(i).to_string();
                        session_call(&mut conn, &token, req).await?;
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    anyhow::Ok(())
                }));
            }
            for t in tasks {
                t.await??;
            }
            Ok(())
        });
        result?;
        Ok((done.load(Ordering::Relaxed), start.elapsed()))
    }
}

/// Why [`session_call`] failed.
#[derive(Debug)]
enum SessionFailed {
    /// The HTTP exchange failed or timed out (the connection is not reusable).
    Http(String),
    /// The node answered, but not a completed session.
    Outcome(String),
}

impl std::fmt::Display for SessionFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Http(why) | Self::Outcome(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SessionFailed {}

/// Submits one session on `conn` and returns its output.
async fn session_call(
    conn: &mut Connection,
    token: &str,
    body: String,
) -> Result<Value, SessionFailed> {
    let r = tokio::time::timeout(
        CALL_LIMIT,
        conn.send("POST", "/v1/sessions", Some(token), Some(body.as_bytes())),
    )
    .await
    .map_err(|_| SessionFailed::Http("no answer in time".into()))?
    .map_err(|e| SessionFailed::Http(e.to_string()))?;
    let v = r.json().unwrap_or(Value::Null);
    if r.status != 200 || v["status"] != "completed" {
        return Err(SessionFailed::Outcome(format!(
            "session did not complete ({}): {v}",
            r.status
        )));
    }
    // Attempts refused because another coordinator used their number are renumbered (part
    // of the measured time); an attempt that blamed a node is an error here.
    let blamed = v["attempts"].as_array().is_some_and(|a| {
        a.iter().any(|t| {
            t["outcome"]["culprits"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
        })
    });
    if blamed {
        return Err(SessionFailed::Outcome(format!(
            "a session attempt blamed a node: {v}"
        )));
    }
    Ok(v["output"].clone())
}

fn ping(c: &LocalCluster, participants: &[u16]) -> Value {
    json!({
        "request_id": c.request_id("ping"),
        "protocol": "ping",
        "participants": participants,
    })
}

/// Latency of `samples` sessions (after one warm-up): median/min/max and p99 in ms.
fn latencies(
    samples: usize,
    mut run: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<(Stats, f64)> {
    run()?;
    let mut d = Vec::with_capacity(samples);
    for _ in 0..samples.max(1) {
        let t = Instant::now();
        run()?;
        d.push(t.elapsed());
    }
    d.sort_unstable();
    let p99 = d[((d.len() * 99).div_ceil(100)).saturating_sub(1)];
    let stats = Stats::from_durations(&d).ok_or_else(|| anyhow!("no samples"))?;
    Ok((stats, p99.as_secs_f64() * 1e3))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// In-process keygen time (all parties on one thread), median of `samples`.
fn inproc_keygen_ms(t: u16, n: u16, samples: usize) -> anyhow::Result<f64> {
    let params = ThresholdParams::new(t, n)?;
    let mut rng = os_rng();
    let mut d = Vec::new();
    for _ in 0..samples.max(1) {
        let s = Instant::now();
        simulate::keygen(params, b"bench-node-inproc", &mut rng)?;
        d.push(s.elapsed());
    }
    Ok(ms(Stats::from_durations(&d)
        .ok_or_else(|| anyhow!("no samples"))?
        .median))
}

/// In-process signing time with the first `t` of `n` parties, median of `samples`.
fn inproc_sign_ms(t: u16, n: u16, samples: usize) -> anyhow::Result<f64> {
    let params = ThresholdParams::new(t, n)?;
    let mut rng = os_rng();
    let (mut shares, _) = simulate::keygen(params, b"bench-node-inproc", &mut rng)?;
    let signers: Vec<PartyId> = params.parties().take(usize::from(t)).collect();
    let digest: [u8; 32] = Sha256::digest(b"bench node").into();
    let mut d = Vec::new();
    for i in 0..samples.max(1) as u64 {
        let s = Instant::now();
        simulate::sign(&mut shares, &signers, &digest, &i.to_be_bytes(), &mut rng)?;
        d.push(s.elapsed());
    }
    Ok(ms(Stats::from_durations(&d)
        .ok_or_else(|| anyhow!("no samples"))?
        .median))
}

/// The node processes' CPU time and context switches at one moment.
struct Usage {
    cpu: Option<Vec<Duration>>,
    switches: Option<Vec<u64>>,
}

/// Notes the node processes' CPU time and context switches per session between two
/// [`LocalCluster::usage`] readings (CPU in 10 ms ticks: meaningful over many sessions only).
fn cpu_note(suite: &mut BenchSuite, what: &str, before: Usage, after: Usage, sessions: usize) {
    let n = sessions.max(1) as f64;
    if let (Some(before), Some(after)) = (before.cpu, after.cpu) {
        let per: Vec<String> = before
            .iter()
            .zip(&after)
            .map(|(b, a)| format!("{:.2}", ms(a.saturating_sub(*b)) / n))
            .collect();
        suite.note(format!(
            "{what}: node CPU (user + system) per signature, ms, node by node: {}",
            per.join(" / ")
        ));
    }
    if let (Some(before), Some(after)) = (before.switches, after.switches) {
        let per: Vec<String> = before
            .iter()
            .zip(&after)
            .map(|(b, a)| format!("{:.1}", a.saturating_sub(*b) as f64 / n))
            .collect();
        suite.note(format!(
            "{what}: node context switches per signature, node by node: {}",
            per.join(" / ")
        ));
    }
}

fn inproc(value_ms: f64) -> PaperFigure {
    PaperFigure::new(value_ms, "in process, one thread (quorate-eval simulate)")
}

/// A 3-node cluster and one `ping` session: the default demo of the node.
pub fn run_default_demo() -> anyhow::Result<String> {
    let c = LocalCluster::start(3)?;
    let t = Instant::now();
    let out = c.session(1, &ping(&c, &c.ids()))?;
    Ok(format!(
        "3 node processes on 127.0.0.1; ping session through node 1 in {:.1} ms; transcript {}",
        ms(t.elapsed()),
        out["transcript"].as_str().unwrap_or_default()
    ))
}

/// `quorate bench node`.
pub fn bench(suite: &mut BenchSuite) -> anyhow::Result<()> {
    let quick = suite.is_quick();
    suite.note(
        "one `quorate node run` process per party on 127.0.0.1 (QUIC/TLS 1.3 over loopback UDP), \
         every session submitted with POST /v1/sessions and timed by the client until its \
         answer; the comparison column is the same protocol in process on one thread",
    );
    for (t, n) in [(2u16, 3u16), (3, 5)] {
        let c = LocalCluster::start(n)?;
        let ids = c.ids();
        let label = format!("{t}-of-{n}");

        // Ping among the signers: the runtime's floor for a 2-round session.
        let signers: Vec<u16> = ids.iter().copied().take(usize::from(t)).collect();
        let (stats, p99) = latencies(suite.samples(100, 20), || {
            c.session(1, &ping(&c, &signers)).map(drop)
        })?;
        suite.record(
            "ping session (2 rounds)",
            &format!("{t} nodes"),
            None,
            stats,
        );
        suite.note(format!("ping {t} nodes: p99 {p99:.2} ms"));

        // Keygen.
        let keygen_req = |c: &LocalCluster| {
            json!({
                "request_id": c.request_id("keygen"),
                "protocol": "ecdsa-keygen",
                "params": { "t": t, "n": n },
                "participants": ids,
            })
        };
        let keygen_samples = suite.samples(10, 3);
        let (stats, _) = latencies(keygen_samples, || c.session(1, &keygen_req(&c)).map(drop))?;
        let row = suite.record(
            "ecdsa keygen (processes)",
            &format!("t={t} n={n}"),
            Some(inproc(inproc_keygen_ms(t, n, keygen_samples)?)),
            stats,
        );
        if (t, n) == (3, 5) {
            row.target_ms(TARGET_KEYGEN_3_5_MS);
        }

        // Signing latency.
        let key = c.session(1, &keygen_req(&c))?;
        let key_id = key["key_id"]
            .as_str()
            .ok_or_else(|| anyhow!("keygen output has no key_id: {key}"))?
            .to_string();
        let epoch = key["epoch"].clone();
        let sign_req = move |rid: String, i: u64| {
            let digest: [u8; 32] = Sha256::digest(i.to_be_bytes()).into();
            json!({
                "request_id": rid,
                "protocol": "ecdsa-sign",
                "params": { "digest": hex::encode(digest), "t": t },
                "participants": signers,
                "key_id": key_id,
                "epoch": epoch,
            })
        };
        let mut i = 0u64;
        let sign_samples = suite.samples(200, 30);
        let cpu_before = c.usage();
        let (stats, p99) = latencies(sign_samples, || {
            i += 1;
            c.session(1, &sign_req(c.request_id("sign"), i)).map(drop)
        })?;
        cpu_note(
            suite,
            &format!("{label} signing, one at a time"),
            cpu_before,
            c.usage(),
            sign_samples + 1,
        );
        let inproc_sign = inproc_sign_ms(t, n, suite.samples(50, 10))?;
        let row = suite.record(
            "ecdsa sign p50 (processes)",
            &label,
            Some(inproc(inproc_sign)),
            stats,
        );
        if (t, n) == (2, 3) {
            row.target_ms(TARGET_SIGN_2_3_MS);
        }
        suite.record(
            "ecdsa sign p99 (processes)",
            &label,
            Some(inproc(inproc_sign)),
            Stats::from_ms(p99, p99, p99, stats.samples),
        );

        // Sustained rate (2-of-3 only): concurrent sessions through every coordinator.
        if (t, n) == (2, 3) {
            let concurrency = 8;
            let secs = if quick { 2 } else { 5 };
            let base = c.request_id("rate");
            let req = sign_req.clone();
            let via = ids[..usize::from(t)].to_vec();
            let cpu_before = c.usage();
            let (done, elapsed) =
                c.sustained(&via, concurrency, Duration::from_secs(secs), move |i| {
                    req(format!("{base}-{i}"), 1_000_000 + i)
                })?;
            let per_sig = ms(elapsed) / done.max(1) as f64;
            let rate = done as f64 / elapsed.as_secs_f64();
            let row = suite.record(
                "ecdsa sign, sustained (ms per signature)",
                &format!("{label}, {concurrency} concurrent"),
                Some(inproc(inproc_sign)),
                Stats::from_ms(per_sig, per_sig, per_sig, done as usize),
            );
            row.target_ms(1e3 / TARGET_SIGS_PER_S);
            suite.note(format!(
                "sustained {label}: {done} signatures in {:.1} s = {rate:.0} signatures/s \
                 (target {TARGET_SIGS_PER_S:.0}/s); {concurrency} client sessions in flight, \
                 coordinators round-robin over the {t} signers",
                elapsed.as_secs_f64()
            ));
            cpu_note(
                suite,
                &format!("sustained {label}"),
                cpu_before,
                c.usage(),
                done as usize,
            );
        }
    }
    Ok(())
}
