//! `quorate cosi timestamp …`: serve, verify a receipt offline, the client (`submit`,
//! `fetch`, `check-chain`, in [`client`]), generate load, benchmark.
//!
//! `verify` is offline and needs only `quorate-cosi`. `serve`, `load` and `bench` are thin
//! glue over the `quorate-timestamp` crate (HTTP server, SQLite store, load generator) and
//! exist only with the `timestamp-server` feature (on by default); without it the binary
//! links no web server.

#[cfg(feature = "timestamp-server")]
mod bench_remote;
#[cfg(feature = "timestamp-server")]
pub mod client;
#[cfg(feature = "timestamp-server")]
mod remote;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use quorate_cosi::timestamp::{parse_hash_hex, Receipt, RosterVerifier};
use quorate_cosi::{Policy, Roster};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
#[cfg(feature = "timestamp-server")]
use {
    quorate_eval::bench::BenchSuite,
    quorate_timestamp::loadgen::{run_load_blocking, LoadConfig},
    quorate_timestamp::{roster_json, ServerConfig, Service, Store},
    std::net::SocketAddr,
    std::time::Duration,
};

/// The `timestamp` subcommands.
#[derive(Debug, Subcommand)]
pub enum TimestampCommand {
    #[cfg(feature = "timestamp-server")]
    /// Run the timestamp server (until Ctrl-C).
    Serve(ServeArgs),
    /// Check a receipt offline: exit 0 if valid, 1 if invalid, 2 for malformed input.
    Verify(VerifyArgs),
    #[cfg(feature = "timestamp-server")]
    /// Submit a hash (or a file's SHA-256); with --wait, get its receipt. Exit 0 accepted,
    /// 1 refused or still pending, 2 malformed input or no server.
    Submit(client::SubmitArgs),
    #[cfg(feature = "timestamp-server")]
    /// Get a receipt by ticket or by hash, optionally verified. Exit 0 found (and valid),
    /// 1 not found, pending or invalid, 2 malformed input or no server.
    Fetch(client::FetchArgs),
    #[cfg(feature = "timestamp-server")]
    /// Verify the whole round chain offline (downloaded from a server, or from a rounds
    /// file): every link and every signature. Exit 0 valid, 1 invalid, 2 malformed input.
    CheckChain(client::CheckChainArgs),
    #[cfg(feature = "timestamp-server")]
    /// Send a bounded HTTP load to a running server and report requests per second.
    Load(LoadArgs),
    #[cfg(feature = "timestamp-server")]
    /// Benchmark sustained submits per second (server and load generator on loopback), with
    /// in-process witnesses and with 8 witness node processes.
    Bench(TimestampBenchArgs),
}

/// Caps on the parameters of `serve` and `load` that size memory, threads or sockets
/// (issue 18, item 5): beyond them the parser exits 2 naming the permitted range.
#[cfg(feature = "timestamp-server")]
const MAX_SERVE_WITNESSES: u64 = 1024;
#[cfg(feature = "timestamp-server")]
const MAX_ROUND_MS: u64 = 60_000;
#[cfg(feature = "timestamp-server")]
const MAX_WAIT_MS: u64 = 60_000;
#[cfg(feature = "timestamp-server")]
const MAX_BATCH: u64 = 1_000_000;
#[cfg(feature = "timestamp-server")]
const MAX_LOAD_CONNECTIONS: u64 = 1024;
#[cfg(feature = "timestamp-server")]
const MAX_LOAD_PIPELINE: u64 = 64;
#[cfg(feature = "timestamp-server")]
const MAX_LOAD_REQUESTS: u64 = 10_000_000;

/// A `usize` argument in `lo..=hi`; clap's error names the range.
#[cfg(feature = "timestamp-server")]
fn usize_in(lo: u64, hi: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(lo..=hi)
}

#[cfg(feature = "timestamp-server")]
/// Arguments of `timestamp serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, alias = "listen", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// The node roster (TOML, `quorate node roster`): its CoSi witness nodes cosign the
    /// rounds. Without it the witnesses are in-process keys (a single-operator demo).
    #[arg(long, value_name = "FILE", requires = "node")]
    pub roster: Option<PathBuf>,
    /// The leader's node directory (with `--roster`): this process is that node (do not
    /// also run `quorate node run` on it) and the root of the signing tree.
    #[arg(long, value_name = "DIR", requires = "roster")]
    pub node: Option<PathBuf>,
    /// With `--roster`: a round needs at least T witnesses (default n − ⌊(n−1)/3⌋).
    #[arg(long, value_name = "T", requires = "roster")]
    pub threshold: Option<usize>,
    /// With `--roster`: how long a tree node waits for its children, per level below it,
    /// in milliseconds (10..=60000).
    #[arg(long, default_value_t = 500,
          value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub level_timeout_ms: u64,
    /// With `--node`: the node's keystore passphrase.
    #[command(flatten)]
    pub passphrase: quorate_node::identity::PassphraseArgs,
    /// Number of in-process witnesses without `--roster` (fixed for the life of the store;
    /// 1..=1024).
    #[arg(long, default_value_t = 16, value_parser = usize_in(1, MAX_SERVE_WITNESSES))]
    pub witnesses: usize,
    /// SQLite database of issued rounds (created if missing).
    #[arg(long, value_name = "PATH")]
    pub db: PathBuf,
    /// Round interval in milliseconds (1..=60000).
    #[arg(long, default_value_t = 250,
          value_parser = clap::value_parser!(u64).range(1..=MAX_ROUND_MS))]
    pub round_ms: u64,
    /// Seal a round early once this many hashes are waiting (1..=1000000).
    #[arg(long, default_value_t = 100_000, value_parser = usize_in(1, MAX_BATCH))]
    pub max_batch: usize,
    /// Longest time a `GET /v1/receipt/…?wait=1` is held, in milliseconds (1..=60000).
    #[arg(long, default_value_t = 30_000,
          value_parser = clap::value_parser!(u64).range(1..=MAX_WAIT_MS))]
    pub max_wait_ms: u64,
    /// Also write the roster (JSON array of hex roster entries: key ‖ proof of possession) to
    /// this file.
    #[arg(long, value_name = "FILE")]
    pub roster_out: Option<PathBuf>,
}

/// Arguments of `timestamp verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The receipt (JSON; at most 4 MiB).
    #[arg(long, value_name = "FILE")]
    pub receipt: PathBuf,
    /// The roster: a node roster (TOML, `quorate node roster`; its CoSi witnesses in id
    /// order), or a JSON array of hex roster entries (key ‖ proof of possession, 96 bytes
    /// each, as `GET /v1/roster` serves it); bare public keys are refused (at most 4 MiB).
    #[arg(long, value_name = "FILE")]
    pub roster: PathBuf,
    /// The hash the receipt must be for (64 hex characters).
    #[arg(long, value_name = "HEX")]
    pub hash: Option<String>,
    /// Accept signatures by at least T witnesses (default: all witnesses must have signed).
    #[arg(long, value_name = "T")]
    pub threshold: Option<usize>,
}

#[cfg(feature = "timestamp-server")]
/// Arguments of `timestamp load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// The server.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Concurrent keep-alive connections (1..=1024).
    #[arg(long, default_value_t = 128, value_parser = usize_in(1, MAX_LOAD_CONNECTIONS))]
    pub connections: usize,
    /// Requests in flight per connection (1 = no pipelining; at most 64).
    #[arg(long, default_value_t = 1, value_parser = usize_in(1, MAX_LOAD_PIPELINE))]
    pub pipeline: usize,
    /// Run for this many seconds (at most 600); responses still in flight then get at most
    /// one more second. Exits non-zero if any request or connection failed.
    #[arg(long, default_value_t = 10.0)]
    pub seconds: f64,
    /// Stop after this many requests (1..=10000000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_LOAD_REQUESTS))]
    pub requests: Option<u64>,
}

#[cfg(feature = "timestamp-server")]
/// Arguments of `timestamp bench`.
#[derive(Debug, Args)]
pub struct TimestampBenchArgs {
    /// Shorter run.
    #[arg(long)]
    pub quick: bool,
    /// Write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// Runs a `timestamp` subcommand and returns the process exit code.
pub fn run(command: &TimestampCommand) -> ExitCode {
    match command {
        TimestampCommand::Verify(args) => verify(args),
        #[cfg(feature = "timestamp-server")]
        TimestampCommand::Submit(args) => client::submit(args),
        #[cfg(feature = "timestamp-server")]
        TimestampCommand::Fetch(args) => client::fetch(args),
        #[cfg(feature = "timestamp-server")]
        TimestampCommand::CheckChain(args) => client::check_chain_command(args),
        #[cfg(feature = "timestamp-server")]
        TimestampCommand::Serve(args) => exit_code(serve(args)),
        #[cfg(feature = "timestamp-server")]
        TimestampCommand::Load(args) => exit_code(load(args)),
        #[cfg(feature = "timestamp-server")]
        TimestampCommand::Bench(args) => exit_code(bench(args)),
    }
}

/// 0 on success; otherwise prints the error and exits 2.
#[cfg(feature = "timestamp-server")]
fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(feature = "timestamp-server")]
fn serve(args: &ServeArgs) -> anyhow::Result<()> {
    let store = Store::open(&args.db)?;
    let head = store.chain_head()?;
    let config = ServerConfig {
        round_interval: Duration::from_millis(args.round_ms),
        max_batch: args.max_batch,
        max_wait: Duration::from_millis(args.max_wait_ms),
        ..ServerConfig::default()
    };
    let (service, witnesses, _node) = match (&args.roster, &args.node) {
        (Some(roster), Some(node)) => {
            let first = head
                .next_round
                .saturating_sub(quorate_node::cosi::service::HISTORY as u64);
            let recent = (first..head.next_round)
                .map(|r| store.load_round(r))
                .filter_map(Result::transpose)
                .collect::<anyhow::Result<Vec<_>>>()?;
            let leader = remote::Leader::start(args, roster, node, recent)?;
            let service = Service::start_with_cosigner(
                args.addr,
                store,
                leader.cosigner.clone(),
                leader.verifier.clone(),
                config,
                None,
            )?;
            let about = leader.describe();
            (service, about, Some(leader))
        }
        _ => {
            eprintln!(
                "single-operator demo: the {} witnesses are keys inside this process (their seed \
                 is in {}); whoever holds that file is every witness. For independent \
                 witnesses run witness nodes and pass --roster FILE --node DIR.",
                args.witnesses,
                args.db.display()
            );
            let service = Service::start(args.addr, store, args.witnesses, config)?;
            (
                service,
                format!("{} in-process witnesses", args.witnesses),
                None,
            )
        }
    };
    if let Some(path) = &args.roster_out {
        std::fs::write(path, roster_json(service.cosigner().as_ref()) + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    service.serve_until_signal(|service| {
        println!(
            "timestamp server on http://{} | {witnesses}, roster {} | next round {} | rounds every {} ms",
            service.local_addr(),
            hex::encode(service.cosigner().roster_id()),
            head.next_round,
            args.round_ms
        );
    })
}

/// Reads a roster file: a JSON array of hex roster entries (public key ‖ proof of
/// possession, as served by `GET /v1/roster` and written by `serve --roster-out`), or a node
/// roster (TOML, `quorate node roster`), whose CoSi witnesses in id order are the roster.
/// Every proof of possession is checked; bare public keys are refused.
pub fn read_roster(path: &Path) -> anyhow::Result<Roster> {
    let text = crate::files::read_text(path)?;
    if text.trim_start().starts_with('[') {
        return Roster::from_json(&text).with_context(|| format!("{}: roster", path.display()));
    }
    let nodes = quorate_node::roster::Roster::from_toml(&text, &path.display().to_string())
        .with_context(|| {
            format!(
                "{}: neither a JSON roster nor a node roster",
                path.display()
            )
        })?;
    let entries: Vec<_> = nodes.cosi_witnesses().into_iter().map(|(_, e)| e).collect();
    anyhow::ensure!(
        !entries.is_empty(),
        "{}: the node roster lists no CoSi witness (no `cosi` entries)",
        path.display()
    );
    Roster::new(entries).with_context(|| format!("{}: CoSi witnesses", path.display()))
}

/// A verifier for `roster` that accepts signatures by at least `threshold` witnesses, or by
/// all of them without one.
pub fn verifier_for(roster: Roster, threshold: Option<usize>) -> anyhow::Result<RosterVerifier> {
    let policy = match threshold {
        Some(t) => Policy::Threshold(t),
        None => Policy::Complete,
    };
    policy
        .validate(roster.len())
        .context("--threshold must be between 1 and the roster size")?;
    Ok(RosterVerifier::new(Arc::new(roster), policy))
}

/// `timestamp verify`: 0 valid, 1 invalid (with the reason), 2 malformed input.
pub fn verify(args: &VerifyArgs) -> ExitCode {
    let parsed = (|| -> anyhow::Result<(Receipt, RosterVerifier, Option<[u8; 32]>)> {
        let text = crate::files::read_text(&args.receipt)?;
        let roster = read_roster(&args.roster)?;
        let receipt = Receipt::from_json(&text)
            .with_context(|| format!("{}: not a receipt", args.receipt.display()))?;
        // A signature of the wrong length for this roster cannot be parsed: exit 2, not 1.
        if let Err(e @ quorate_core::DecodeError::WrongLength { .. }) =
            quorate_cosi::Signature::from_bytes(&receipt.signature, roster.len())
        {
            anyhow::bail!(
                "{}: signature: {e} (roster has {} witnesses)",
                args.receipt.display(),
                roster.len()
            );
        }
        let verifier = verifier_for(roster, args.threshold)?;
        let hash = match &args.hash {
            Some(h) => {
                Some(parse_hash_hex(h).context("--hash must be 64 hex characters (32 bytes)")?)
            }
            None => None,
        };
        Ok((receipt, verifier, hash))
    })();
    let (receipt, verifier, hash) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    match receipt.verify(&verifier, hash.as_ref()) {
        Ok(()) => {
            println!(
                "valid: hash {} is leaf {} of {} in round {} (time {} ms), root {}",
                hex::encode(receipt.hash),
                receipt.leaf_index,
                receipt.tree_size,
                receipt.round,
                receipt.time_ms,
                hex::encode(receipt.root)
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("invalid: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(feature = "timestamp-server")]
fn load(args: &LoadArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.seconds > 0.0 && args.seconds <= 600.0,
        "--seconds must be in (0, 600]"
    );
    let config = LoadConfig {
        pipeline: args.pipeline,
        max_requests: args.requests,
        ..LoadConfig::new(
            args.addr,
            args.connections,
            Duration::from_secs_f64(args.seconds),
        )
    };
    let report = run_load_blocking(&config)?;
    println!(
        "{} ok, {} errors in {:.2} s: {:.0} requests/s; latency p50 {:?}, p99 {:?}",
        report.ok,
        report.errors,
        report.elapsed.as_secs_f64(),
        report.requests_per_second(),
        report.latency_p50,
        report.latency_p99
    );
    anyhow::ensure!(
        report.errors == 0,
        "{} requests failed ({} connections could not be opened)",
        report.errors,
        report.connect_failures
    );
    Ok(())
}

#[cfg(feature = "timestamp-server")]
fn bench(args: &TimestampBenchArgs) -> anyhow::Result<()> {
    if let Some(path) = &args.json {
        crate::files::check_output_path(path)?;
    }
    let mut suite = BenchSuite::new("cosi-timestamp", args.quick);
    print!("{}", suite.header());
    let outcome = quorate_eval::timestamp::bench_timestamp(&mut suite, args.quick)
        .and_then(|()| bench_remote::bench_remote(&mut suite));
    if !suite.rows().is_empty() || !suite.notes().is_empty() {
        println!();
        print!("{}", suite.table());
    }
    outcome?;
    if let Some(path) = &args.json {
        suite.write_json(path)?;
        println!("\nwrote {}", path.display());
    }
    Ok(())
}
