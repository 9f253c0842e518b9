//! The remote-witness row of `cosi timestamp bench` (issue 15 §4): the same sustained-submit
//! load as the in-process row, against `quorate cosi timestamp serve --roster --node` whose
//! rounds are cosigned by [`WITNESS_PROCESSES`] `quorate node run` witness processes over the
//! node transport (QUIC on loopback), plus the leader's own witness key. All processes are
//! started by the bench and stopped by their PIDs (SIGTERM: the leader seals its open batch).
//!
//! Submissions are answered when stored; witnesses cosign once per round (every 250 ms, as in
//! the in-process row), so the submit rate should not depend on where the witnesses are.
//! Sampled receipts are fetched and verified against the node roster afterwards, and the
//! number of witnesses in their masks is reported.

use super::{read_roster, verifier_for};
use crate::systems::node::{quorate_cmd, run_ok, PortPool};
use anyhow::{bail, ensure, Context as _};
use quorate_cosi::timestamp::Receipt;
use quorate_eval::bench::BenchSuite;
use quorate_eval::timestamp::sustained_submits;
use quorate_timestamp::loadgen::http_call;
use std::io::BufRead as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Witness processes besides the leader (the 8).
pub const WITNESS_PROCESSES: u16 = 8;
const ROUND_MS: u64 = 250;
const STARTUP: Duration = Duration::from_secs(60);

/// The processes, stopped by PID and removed on drop.
struct Procs {
    root: PathBuf,
    children: Vec<Child>,
}

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &self.children {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
        }
        for c in &mut self.children {
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

fn wait_healthy(
    rt: &tokio::runtime::Runtime,
    child: &mut Child,
    api: SocketAddr,
    log: &Path,
) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            bail!(
                "witness node exited ({status}): {}",
                std::fs::read_to_string(log).unwrap_or_default().trim()
            );
        }
        let r = rt.block_on(quorate_node::api_client::call(
            api,
            "GET",
            "/health",
            None,
            None,
            Duration::from_secs(2),
        ));
        if matches!(r, Ok(ref r) if r.status == 200) {
            return Ok(());
        }
        ensure!(
            start.elapsed() < STARTUP,
            "witness node at {api} did not come up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Adds the remote-witness sustained-submit row to `suite`.
pub fn bench_remote(suite: &mut BenchSuite) -> anyhow::Result<()> {
    let n = WITNESS_PROCESSES + 1;
    let threshold = usize::from(n) - (usize::from(n) - 1) / 3;
    let root = std::env::temp_dir().join(format!("quorate-bench-ts-remote-{}", std::process::id()));
    std::fs::create_dir_all(&root)?;
    let mut procs = Procs {
        root: root.clone(),
        children: Vec::new(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut dirs = Vec::new();
    let mut apis = Vec::new();
    let mut ports = PortPool::new();
    for id in 1..=n {
        let dir = root.join(format!("n{id}"));
        // `node init` wants the QUIC listener and the operator API on different ports.
        let listen = ports.pick()?;
        let api: SocketAddr = format!("127.0.0.1:{}", ports.pick()?).parse()?;
        run_ok(
            quorate_cmd()?
                .args(["node", "init", "--insecure-test-kdf", "--id"])
                .arg(id.to_string())
                .arg("--dir")
                .arg(&dir)
                .arg("--listen")
                .arg(format!("127.0.0.1:{listen}"))
                .arg("--api")
                .arg(api.to_string()),
            "node init",
        )?;
        dirs.push(dir);
        apis.push(api);
    }
    ports.release();
    let roster = root.join("roster.toml");
    run_ok(
        quorate_cmd()?
            .args(["node", "roster", "--out"])
            .arg(&roster)
            .args(&dirs),
        "node roster",
    )?;
    // Node 1 is the leader (its directory is the timestamp server's); 2..=n are witnesses.
    for (dir, api) in dirs.iter().zip(&apis).skip(1) {
        let log = dir.join("node.log");
        let mut child = quorate_cmd()?
            .args(["node", "run", "--dir"])
            .arg(dir)
            .arg("--roster")
            .arg(&roster)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log)?)
            .spawn()
            .context("spawning quorate node run")?;
        let up = wait_healthy(&rt, &mut child, *api, &log);
        procs.children.push(child);
        up?;
    }
    let leader_log = root.join("leader.log");
    let mut leader = quorate_cmd()?
        .args([
            "cosi",
            "timestamp",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--db",
        ])
        .arg(root.join("ts.sqlite"))
        .arg("--roster")
        .arg(&roster)
        .arg("--node")
        .arg(&dirs[0])
        .args(["--threshold", &threshold.to_string()])
        .args(["--round-ms", &ROUND_MS.to_string()])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&leader_log)?)
        .spawn()
        .context("spawning quorate cosi timestamp serve")?;
    let stdout = leader.stdout.take();
    procs.children.push(leader);
    let mut line = String::new();
    std::io::BufReader::new(stdout.context("leader stdout")?).read_line(&mut line)?;
    let addr: SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .with_context(|| {
            format!(
                "no address in the leader's start-up line {line:?}: {}",
                std::fs::read_to_string(&leader_log).unwrap_or_default()
            )
        })?;

    let load = sustained_submits(
        suite,
        addr,
        "submit over HTTP/1.1 (loopback), remote witnesses",
        &format!("{n} witness nodes (leader + {WITNESS_PROCESSES} processes, QUIC)"),
    )?;
    let verifier = verifier_for(read_roster(&roster)?, Some(threshold))?;
    let mut signers = Vec::new();
    for (hash, ticket) in load.sampled.iter().take(40) {
        let (status, body) = rt.block_on(http_call(
            addr,
            "GET",
            &format!("/v1/receipt/{ticket}?wait=1"),
            b"",
        ))?;
        ensure!(
            status == 200,
            "receipt {ticket}: HTTP {status}: {}",
            String::from_utf8_lossy(&body)
        );
        let receipt = Receipt::from_json(std::str::from_utf8(&body)?)?;
        receipt
            .verify(&verifier, Some(hash))
            .with_context(|| format!("receipt {ticket}"))?;
        let sig = quorate_cosi::Signature::from_bytes(&receipt.signature, usize::from(n))?;
        signers.push(
            (0..usize::from(n))
                .filter(|&i| sig.mask().contains(i))
                .count(),
        );
    }
    let (_, head) = rt.block_on(http_call(addr, "GET", "/v1/head", b""))?;
    let rounds = serde_json::from_slice::<serde_json::Value>(&head)
        .ok()
        .and_then(|v| v["round"].as_u64())
        .map_or(0, |r| r + 1);
    suite.note(format!("remote witnesses: {}", load.summary()));
    suite.note(format!(
        "remote witnesses: the leader sealed {rounds} rounds ({ROUND_MS} ms interval, threshold \
         {threshold} of {n}) during the load; {} sampled receipts verified against the node \
         roster, signed by {}–{} witnesses",
        signers.len(),
        signers.iter().min().copied().unwrap_or(0),
        signers.iter().max().copied().unwrap_or(0),
    ));
    drop(procs);
    Ok(())
}
