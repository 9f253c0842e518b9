//! A cluster of real `quorate node run` processes on 127.0.0.1 for the process tests.
//!
//! * [`Cluster::init`] creates `n` node directories (`--id 1..=n`, free loopback ports, the
//!   cheap test KDF) and their roster; [`Cluster::start`] also spawns every node and waits
//!   until each API answers `/health`.
//! * Nodes are addressed by node id (1-based). Each child's stderr goes to `DIR/node.log`
//!   ([`Cluster::log`]), which failing assertions can print.
//! * [`Cluster::kill9`] (SIGKILL), [`Cluster::term`] (SIGTERM, returns the exit status),
//!   [`Cluster::pause`]/[`Cluster::resume`] (SIGSTOP/SIGCONT) act on one child by its PID;
//!   [`Cluster::spawn`] (re)starts a node on the same directory and ports,
//!   [`Cluster::start_all`] every node; [`Cluster::reinit`] re-creates a lost node directory
//!   (same id and ports, new identity key).
//! * [`ecdsa_keygen`] runs `quorate ecdsa keygen` and returns the public key, [`ecdsa_sign`]
//!   `quorate ecdsa sign`, [`sign_and_verify`] signs and checks the signature twice;
//!   [`abort_error`] checks a protocol abort's exit code and culprits.
//! * [`Cluster::api`] calls a node's operator API with its token; [`Cluster::session`]
//!   submits a session; [`Cluster::waiting`] and [`Cluster::metrics`] read its state.
//! * Every wait is bounded ([`BOUND`]); dropping the cluster kills every child still running.
//!
//! Use it from a test module with `use crate::common::cluster::Cluster;`.

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use quorate_node::api_client::{call, Response};
use serde_json::Value;

/// The passphrase of every test node (`QUORATE_PASSPHRASE`).
pub const PASS: &str = "node-test-passphrase";

/// Upper bound of every wait in the harness.
pub const BOUND: Duration = Duration::from_secs(60);

/// `quorate` with the test passphrase and quiet logs.
pub fn quorate() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_quorate"));
    c.env("QUORATE_PASSPHRASE", PASS).env("QUORATE_LOG", "warn");
    c
}

/// `quorate ecdsa <args[0]> --node <dir of node via> <args[1..]> --json --timeout 60`.
pub fn ecdsa(c: &Cluster, via: u16, args: &[&str]) -> Output {
    quorate()
        .arg("ecdsa")
        .arg(args[0])
        .arg("--node")
        .arg(c.dir(via))
        .args(&args[1..])
        .args(["--json", "--timeout", "60"])
        .output()
        .expect("quorate ecdsa")
}

/// The JSON on stdout of a command that must have succeeded.
pub fn json_ok(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "failed: {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json on stdout")
}

/// The stdout of a successful command (panics with its stderr otherwise).
pub fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The next test port of this process that is free for both UDP and TCP on 127.0.0.1.
///
/// Ports come from below the kernel's ephemeral range (32768 and up on Linux), one block of
/// 2000 per test process: a port the OS picked with `bind(:0)` is in the ephemeral range, so
/// while a killed node is down the kernel may give that port to an outgoing connection and
/// the node's restart fails with "address in use". A port below the range is never handed
/// out that way, and the per-process counter keeps the tests of one binary apart.
fn next_free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = 12_000 + (std::process::id() % 10) * 2_000;
    loop {
        let offset = NEXT.fetch_add(1, Ordering::Relaxed) % 2_000;
        let port = u16::try_from(base + offset).expect("below 32000");
        let udp_free = UdpSocket::bind(("127.0.0.1", port)).is_ok();
        if udp_free && TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// A free UDP port on 127.0.0.1 (free when asked; see [`next_free_port`]).
pub fn free_udp() -> u16 {
    next_free_port()
}

/// A free TCP port on 127.0.0.1 (free when asked; see [`next_free_port`]).
pub fn free_tcp() -> u16 {
    next_free_port()
}

/// Polls `f` every 50 ms until it returns `Some`, panicking with `what` after [`BOUND`].
pub fn wait_for<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < BOUND, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Sends `sig` (`"KILL"`, `"TERM"`, `"STOP"`, ...) to one process by PID.
pub fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{sig} {pid} failed");
}

/// Waits (bounded) for a child to exit.
pub fn wait_exit(child: &mut Child) -> ExitStatus {
    wait_for("a node to exit", || child.try_wait().expect("wait"))
}

/// One node of the cluster.
#[derive(Debug)]
pub struct Node {
    /// Node id (`--id`).
    pub id: u16,
    /// Node directory.
    pub dir: PathBuf,
    /// Transport address (UDP).
    pub listen: SocketAddr,
    /// Operator API address.
    pub api: SocketAddr,
    /// Operator API token.
    pub token: String,
    /// Identity public key (hex), as printed by `init`.
    pub public_key: String,
    child: Option<Child>,
}

impl Node {
    /// The running child's PID.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

/// `quorate node init` of node `id` in `dir` (cheap test KDF); its API token and identity
/// public key (hex).
fn init_dir(dir: &Path, id: u16, listen: SocketAddr, api: SocketAddr) -> (String, String) {
    let out = ok(quorate()
        .args(["node", "init", "--insecure-test-kdf", "--id"])
        .arg(id.to_string())
        .arg("--dir")
        .arg(dir)
        .arg("--listen")
        .arg(listen.to_string())
        .arg("--api")
        .arg(api.to_string())
        .output()
        .expect("init"));
    let v: Value = serde_json::from_str(out.trim()).expect("init json");
    assert_eq!(v["id"].as_u64(), Some(u64::from(id)));
    let token = std::fs::read_to_string(dir.join("api.token"))
        .expect("token")
        .trim()
        .to_string();
    let key = v["public_key"].as_str().expect("public_key").to_string();
    (token, key)
}

/// `quorate ecdsa keygen` of `key_id` (threshold `t`, holders `parties` like `"1,2,3"`) via
/// node `via`; returns the public key (hex).
pub fn ecdsa_keygen(c: &Cluster, via: u16, t: u16, parties: &str, key_id: &str) -> String {
    let t = t.to_string();
    let kg = json_ok(&ecdsa(
        c,
        via,
        &[
            "keygen",
            "--t",
            &t,
            "--parties",
            parties,
            "--key-id",
            key_id,
        ],
    ));
    kg["public_key"].as_str().expect("public key").to_string()
}

/// `quorate ecdsa sign` of `key_id` by `signers` (like `"1,2"`) via node `via`.
pub fn ecdsa_sign(c: &Cluster, via: u16, key_id: &str, signers: &str, message: &str) -> Output {
    ecdsa(
        c,
        via,
        &[
            "sign",
            "--key-id",
            key_id,
            "--message",
            message,
            "--signers",
            signers,
        ],
    )
}

/// Signs `message` through node `via` with `signers` and checks the signature with
/// `quorate ecdsa verify` and libsecp256k1 under `pk`; returns the JSON.
pub fn sign_and_verify(
    c: &Cluster,
    via: u16,
    key_id: &str,
    message: &str,
    signers: &str,
    pk: &str,
) -> Value {
    let out = ecdsa_sign(c, via, key_id, signers, message);
    assert!(out.status.success(), "{out:?}\n{}", c.logs());
    let v = json_ok(&out);
    assert_eq!(v["public_key"], pk);
    let want: Vec<u64> = signers.split(',').map(|s| s.parse().expect("id")).collect();
    assert_eq!(v["signers"], serde_json::json!(want), "{v}");
    let out = quorate()
        .args(["ecdsa", "verify", "--public-key"])
        .arg(v["public_key"].as_str().expect("pk"))
        .arg("--digest")
        .arg(v["digest"].as_str().expect("digest"))
        .arg("--signature")
        .arg(v["signature"].as_str().expect("signature"))
        .output()
        .expect("verify");
    assert_eq!(out.status.code(), Some(0), "{v}");
    // A second implementation: libsecp256k1 (it requires low-S too).
    let bytes = |k: &str| hex::decode(v[k].as_str().expect(k)).expect("hex");
    let digest: [u8; 32] = bytes("digest").try_into().expect("32 bytes");
    let secp = secp256k1::Secp256k1::verification_only();
    let key = secp256k1::PublicKey::from_slice(&bytes("public_key")).expect("public key");
    let sig = secp256k1::ecdsa::Signature::from_compact(&bytes("signature")).expect("r||s");
    secp.verify_ecdsa(&secp256k1::Message::from_digest(digest), &sig, &key)
        .expect("libsecp256k1 accepts the signature");
    v
}

/// A protocol abort: exit 1 with JSON naming exactly `culprits`; returns its error text.
pub fn abort_error(c: &Cluster, out: &Output, culprits: &[u16]) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        c.logs()
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("abort json");
    assert_eq!(v["culprits"], serde_json::json!(culprits), "{v}");
    v["error"].as_str().expect("error").to_string()
}

/// Real node processes on loopback; see the module documentation.
pub struct Cluster {
    /// Holds every directory; removed on drop.
    pub tmp: tempfile::TempDir,
    /// The roster file.
    pub roster: PathBuf,
    /// Extra arguments of every `node run` (e.g. `--round-timeout-ms 2000`).
    pub run_args: Vec<String>,
    /// Extra environment of every `node run` (e.g. a crash hook).
    pub run_env: Vec<(String, String)>,
    nodes: Vec<Node>,
    rt: tokio::runtime::Runtime,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("roster", &self.roster)
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for n in &mut self.nodes {
            if let Some(mut c) = n.child.take() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

impl Cluster {
    /// Initialises `n` node directories with ids `1..=n` and writes their roster; starts
    /// nothing.
    pub fn init(n: u16) -> Cluster {
        let tmp = tempfile::tempdir().expect("tmp");
        let mut nodes = Vec::new();
        for id in 1..=n {
            let dir = tmp.path().join(format!("n{id}"));
            let listen: SocketAddr = format!("127.0.0.1:{}", free_udp()).parse().expect("addr");
            let api: SocketAddr = format!("127.0.0.1:{}", free_tcp()).parse().expect("addr");
            let (token, public_key) = init_dir(&dir, id, listen, api);
            nodes.push(Node {
                id,
                dir,
                listen,
                api,
                token,
                public_key,
                child: None,
            });
        }
        let roster = tmp.path().join("roster.toml");
        ok(quorate()
            .args(["node", "roster", "--out"])
            .arg(&roster)
            .args(nodes.iter().map(|n| &n.dir))
            .output()
            .expect("roster"));
        // Multi-threaded so that several test threads can call APIs at once.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        Cluster {
            tmp,
            roster,
            run_args: Vec::new(),
            run_env: Vec::new(),
            nodes,
            rt,
        }
    }

    /// [`Cluster::init`], then spawns every node with `run_args` and waits until each is
    /// healthy.
    pub fn start(n: u16, run_args: &[&str]) -> Cluster {
        let mut c = Cluster::init(n);
        c.run_args = run_args.iter().map(|s| s.to_string()).collect();
        c.start_all();
        c
    }

    /// Spawns every node (with the current `run_args`) and waits until each is healthy.
    pub fn start_all(&mut self) {
        for id in self.ids() {
            self.spawn(id);
        }
        for id in self.ids() {
            self.wait_healthy(id);
        }
    }

    /// Node `id` (stopped) lost its whole directory: `quorate node init` again with the same
    /// id and addresses, a new identity key and API token. The roster is not changed (see
    /// `quorate node roster --replace`).
    pub fn reinit(&mut self, id: u16) {
        let n = self.node(id);
        assert!(n.child.is_none(), "node {id} is running");
        let (dir, listen, api) = (n.dir.clone(), n.listen, n.api);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).expect("rm node dir");
        }
        let (token, public_key) = init_dir(&dir, id, listen, api);
        let n = self.node_mut(id);
        n.token = token;
        n.public_key = public_key;
    }

    /// Every node id.
    pub fn ids(&self) -> Vec<u16> {
        self.nodes.iter().map(|n| n.id).collect()
    }

    /// Node `id`.
    pub fn node(&self, id: u16) -> &Node {
        self.nodes
            .iter()
            .find(|n| n.id == id)
            .unwrap_or_else(|| panic!("no node {id}"))
    }

    fn node_mut(&mut self, id: u16) -> &mut Node {
        self.nodes
            .iter_mut()
            .find(|n| n.id == id)
            .unwrap_or_else(|| panic!("no node {id}"))
    }

    /// Node `id`'s PID while it runs (to signal it from another thread with [`signal`]).
    pub fn pid(&self, id: u16) -> u32 {
        self.node(id)
            .pid()
            .unwrap_or_else(|| panic!("node {id} is not running"))
    }

    /// Node `id`'s identity public key (hex).
    pub fn node_key(&self, id: u16) -> String {
        self.node(id).public_key.clone()
    }

    /// Node `id`'s directory.
    pub fn dir(&self, id: u16) -> &Path {
        &self.node(id).dir
    }

    /// Node `id`'s log so far (its stderr since the cluster began).
    pub fn log(&self, id: u16) -> String {
        std::fs::read_to_string(self.dir(id).join("node.log")).unwrap_or_default()
    }

    /// Every node's log, for a failure message.
    pub fn logs(&self) -> String {
        self.ids()
            .into_iter()
            .map(|id| format!("--- node {id} ---\n{}", self.log(id)))
            .collect()
    }

    /// The `node run` command of node `id` (not spawned).
    pub fn run_command(&self, id: u16) -> Command {
        let mut c = quorate();
        c.args(["node", "run", "--dir"])
            .arg(self.dir(id))
            .arg("--roster")
            .arg(&self.roster)
            .args(&self.run_args);
        for (k, v) in &self.run_env {
            c.env(k, v);
        }
        c
    }

    /// Spawns `node run` for node `id` (appending its stderr to `DIR/node.log`); does not
    /// wait for it to be healthy.
    pub fn spawn(&mut self, id: u16) {
        assert!(
            self.node(id).child.is_none(),
            "node {id} is already running"
        );
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir(id).join("node.log"))
            .expect("log file");
        let child = self
            .run_command(id)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn node");
        self.node_mut(id).child = Some(child);
    }

    /// Waits (bounded) until node `id`'s API answers `/health` with its id.
    pub fn wait_healthy(&mut self, id: u16) {
        let addr = self.node(id).api;
        let start = Instant::now();
        loop {
            if let Some(status) = self
                .node_mut(id)
                .child
                .as_mut()
                .and_then(|c| c.try_wait().expect("wait"))
            {
                panic!("node {id} exited with {status}:\n{}", self.log(id));
            }
            let r = self.rt.block_on(call(
                addr,
                "GET",
                "/health",
                None,
                None,
                Duration::from_secs(2),
            ));
            if let Ok(r) = r {
                if r.status == 200 {
                    let v = r.json().expect("health json");
                    assert_eq!(v["node"].as_u64(), Some(u64::from(id)));
                    return;
                }
            }
            assert!(
                start.elapsed() < BOUND,
                "node {id} API never came up:\n{}",
                self.log(id)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Spawns node `id` again on the same directory and ports and waits until healthy.
    pub fn restart(&mut self, id: u16) {
        self.spawn(id);
        self.wait_healthy(id);
    }

    /// SIGKILL to node `id`, then reaps it.
    pub fn kill9(&mut self, id: u16) -> ExitStatus {
        let mut child = self
            .node_mut(id)
            .child
            .take()
            .unwrap_or_else(|| panic!("node {id} is not running"));
        signal(child.id(), "KILL");
        wait_exit(&mut child)
    }

    /// SIGTERM (or another stopping signal) to node `id`; returns its exit status.
    pub fn stop_with(&mut self, id: u16, sig: &str) -> ExitStatus {
        let mut child = self
            .node_mut(id)
            .child
            .take()
            .unwrap_or_else(|| panic!("node {id} is not running"));
        signal(child.id(), sig);
        wait_exit(&mut child)
    }

    /// SIGTERM to node `id`; returns its exit status.
    pub fn term(&mut self, id: u16) -> ExitStatus {
        self.stop_with(id, "TERM")
    }

    /// SIGSTOP to node `id` (it keeps its sockets but answers nothing).
    pub fn pause(&self, id: u16) {
        signal(self.pid(id), "STOP");
    }

    /// SIGCONT to node `id`.
    pub fn resume(&self, id: u16) {
        signal(self.pid(id), "CONT");
    }

    /// Whether node `id`'s process has exited (reaping it if so); `None` when not spawned.
    pub fn exited(&mut self, id: u16) -> Option<ExitStatus> {
        let n = self.node_mut(id);
        let status = n.child.as_mut()?.try_wait().expect("wait")?;
        n.child = None;
        Some(status)
    }

    /// Waits (bounded) until node `id`'s process exits on its own.
    pub fn wait_exit(&mut self, id: u16) -> ExitStatus {
        let mut child = self
            .node_mut(id)
            .child
            .take()
            .unwrap_or_else(|| panic!("node {id} is not running"));
        wait_exit(&mut child)
    }

    /// One call to node `id`'s operator API with its token.
    pub fn call(
        &self,
        id: u16,
        method: &str,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Response, quorate_node::api_client::ClientError> {
        let n = self.node(id);
        let body = body.map(|b| b.to_string());
        self.rt.block_on(call(
            n.api,
            method,
            path,
            Some(&n.token),
            body.as_ref().map(|b| b.as_bytes()),
            timeout,
        ))
    }

    /// [`Cluster::call`] that must succeed with a JSON body: `(status, body)`.
    pub fn api(&self, id: u16, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let r = self
            .call(id, method, path, body, BOUND)
            .unwrap_or_else(|e| panic!("node {id} {method} {path}: {e}\n{}", self.logs()));
        let v = r.json().unwrap_or_else(|e| {
            panic!(
                "node {id} {method} {path}: not JSON ({e}): {}",
                String::from_utf8_lossy(&r.body)
            )
        });
        (r.status, v)
    }

    /// Submits a session through node `id` and returns the request record.
    pub fn session(&self, id: u16, request: &Value) -> Value {
        let (status, v) = self.api(id, "POST", "/v1/sessions", Some(request));
        assert!(status == 200 || status == 202, "{status}: {v}");
        v
    }

    /// A `ping` session among `participants` through node `id`.
    pub fn ping(&self, id: u16, request_id: &str, participants: &[u16]) -> Value {
        self.session(
            id,
            &serde_json::json!({
                "request_id": request_id,
                "protocol": "ping",
                "participants": participants,
            }),
        )
    }

    /// Node `id`'s `/v1/waiting` list.
    pub fn waiting(&self, id: u16) -> Vec<Value> {
        let (status, v) = self.api(id, "GET", "/v1/waiting", None);
        assert_eq!(status, 200, "{v}");
        v["waiting"].as_array().expect("waiting").clone()
    }

    /// Node `id`'s Prometheus text.
    pub fn metrics(&self, id: u16) -> String {
        let r = self
            .call(id, "GET", "/metrics", None, BOUND)
            .expect("metrics");
        assert_eq!(r.status, 200);
        String::from_utf8(r.body).expect("utf-8")
    }

    /// A counter's value in node `id`'s metrics (0 when absent).
    pub fn counter(&self, id: u16, name: &str) -> u64 {
        self.metrics(id)
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(' ')?;
                (k == name).then(|| v.trim().parse().ok())?
            })
            .unwrap_or(0)
    }

    /// `quorate node check --json` from node `id`: (exit code, rows).
    pub fn check(&self, id: u16) -> (i32, Value) {
        let out = quorate()
            .args([
                "node",
                "check",
                "--json",
                "--timeout-ms",
                "1500",
                "--wait-ms",
                "0",
                "--roster",
            ])
            .arg(&self.roster)
            .arg("--dir")
            .arg(self.dir(id))
            .output()
            .expect("check");
        let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (out.status.code().unwrap_or(-1), v)
    }
}
