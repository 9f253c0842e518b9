//! `quorate`: demos, verifiers and benchmarks for quorate's distributed-trust systems.
//!
//! Exit codes: 0 on success, 1 when a verifier rejects its input, 2 for malformed input or
//! any other error (printed to stderr as `error: …`).

use clap::{Args, Parser, Subcommand};
use quorate::systems::bls::{self, deploy, BlsDemoArgs, BlsVerifyArgs};
use quorate::systems::cosi::{self, CosiDemoArgs, CosiVerifyArgs};
use quorate::systems::ecdsa::{self, EcdsaDemoArgs, EcdsaVerifyArgs};
use quorate::systems::mixnet::{self, MixnetDemoArgs};
use quorate::systems::verenc::{
    self, VerencBackupArgs, VerencDemoArgs, VerencKeygenArgs, VerencRecoverArgs, VerencVerifyArgs,
};
use quorate::systems::{BenchOptions, System};
use quorate_eval::bench::BenchSuite;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "quorate", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run every implemented system end to end on small defaults and print a summary.
    Demo,
    /// Hot/cold threshold BLS signatures.
    Bls {
        #[command(subcommand)]
        command: BlsCommand,
    },
    /// Threshold ECDSA on secp256k1 (DKLs23 signing over DKLs19 multiplication).
    Ecdsa {
        #[command(subcommand)]
        command: EcdsaCommand,
    },
    /// CoSi witness cosigning and its timestamping service.
    Cosi {
        #[command(subcommand)]
        command: CosiCommand,
    },
    /// Verifiable encryption of discrete logs: verifiable key-share backup to an escrow.
    Verenc {
        #[command(subcommand)]
        command: VerencCommand,
    },
    /// Traceable mixnet: keygen, mixing with shuffle proofs, DB-SM and tracing queries.
    Mixnet {
        #[command(subcommand)]
        command: MixnetCommand,
    },
    /// Benchmark one system and print a table (optionally also JSON).
    Bench(BenchArgs),
    /// The node: init a node directory, merge rosters, run.
    Node {
        #[command(subcommand)]
        command: quorate_node::cli::NodeCommand,
    },
}

#[derive(Debug, Subcommand)]
enum VerencCommand {
    /// Escrow keygen, backup, verify and recover in one process; `--json` prints the backup.
    Demo(VerencDemoArgs),
    /// Generate an escrow key pair: a public key file and a secret key file sealed under
    /// the passphrase (QUORATE_PASSPHRASE or --passphrase-file).
    Keygen(VerencKeygenArgs),
    /// Encrypt a secret scalar to an escrow with a proof that it is log_G of its public share.
    Backup(VerencBackupArgs),
    /// Verify a backup: exit 0 if valid, 1 if invalid, 2 for malformed input.
    Verify(VerencVerifyArgs),
    /// The escrow recovers the scalar (checking x·G = X) with its sealed secret key: exit 0,
    /// 1 if it fails, 2 if malformed or the passphrase is wrong.
    Recover(VerencRecoverArgs),
}

#[derive(Debug, Subcommand)]
enum MixnetCommand {
    /// Keygen, Enc, Mix, DB-SM and one BTraceIn / BTraceOut query; `--json` prints the
    /// statuses, answers, ground-truth permutation and sizes.
    Demo(MixnetDemoArgs),
}

#[derive(Debug, Subcommand)]
enum BlsCommand {
    /// Key generation, partial signing and combination for t-of-n signers.
    Demo(BlsDemoArgs),
    /// Verify a signature: exit 0 if valid, 1 if invalid, 2 for malformed input.
    Verify(BlsVerifyArgs),
    /// Write a KZG ceremony transcript (the CRS file every party of a key uses).
    Setup(deploy::SetupArgs),
    /// The offline cold custodian (files only).
    Cold {
        #[command(subcommand)]
        command: deploy::ColdCommand,
    },
    /// The client's key files.
    Client {
        #[command(subcommand)]
        command: deploy::ClientCommand,
    },
    /// ClientRegister to hot nodes (`--node DIR` each) with the cold custodians' keys.
    Register(deploy::RegisterArgs),
    /// Refresh the hot shares on every hot node (resumes an unfinished refresh).
    Refresh(deploy::RefreshArgs),
    /// Write a signing-request file for the cold custodians.
    Request(deploy::RequestArgs),
    /// Recovery signing: t hot partials from nodes, t cold partials from files.
    Sign(deploy::SignArgs),
    /// Audit: Π_EKS from every hot node and the cold Π_DL proofs; exit 1 if any fails.
    Audit(deploy::AuditArgs),
}

#[derive(Debug, Subcommand)]
enum EcdsaCommand {
    /// Key generation and a signature by a random t-subset on SHA-256(message).
    Demo(EcdsaDemoArgs),
    /// Verify a signature on a digest: exit 0 if valid, 1 if invalid, 2 for malformed input.
    Verify(EcdsaVerifyArgs),
    /// Distributed key generation between running nodes, through one node's operator API.
    Keygen(ecdsa::node::KeygenArgs),
    /// Sign SHA-256(message) with a key held by running nodes.
    Sign(ecdsa::node::SignArgs),
    /// Proactive refresh of a key by all its holders (new shares, same public key).
    Refresh(ecdsa::node::RefreshArgs),
    /// Resolve a key's pending epoch that a silent holder blocks: commit it if a complete
    /// certificate exists, abandon it only with `--abandon-pending` (recorded in the keystore).
    Resolve(ecdsa::node::ResolveArgs),
}

#[derive(Debug, Subcommand)]
enum CosiCommand {
    /// Collective signing in one process; `--json` prints keys, aggregate keys and R‖s‖mask.
    Demo(CosiDemoArgs),
    /// Verify a collective signature: exit 0 if valid, 1 if invalid, 2 for malformed input.
    Verify(CosiVerifyArgs),
    /// The timestamping service: serve, verify a receipt offline, load, bench.
    Timestamp {
        #[command(subcommand)]
        command: quorate::timestamp::TimestampCommand,
    },
}

#[derive(Debug, Args)]
struct BenchArgs {
    /// The system to benchmark.
    #[arg(value_enum)]
    system: System,
    /// Fewer samples and smaller parameter sets.
    #[arg(long)]
    quick: bool,
    /// Also run the larger parameter sets.
    #[arg(long)]
    large: bool,
    /// Write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Problem size (mixnet: senders, 1 to 10000; default 100).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    n: Option<usize>,
    /// Number of servers (mixnet: mix-servers, 1 to 1024; default 4).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    m: Option<u16>,
    /// Worker threads, 1 to 256 (mixnet: default 1; verenc: run only the TZ21 rows, on a
    /// pool of that many threads).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    quorate::common::set_json_errors(quorate::common::wants_json(&argv));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Usage errors exit 2 like any bad input; with `--json` they are JSON on stdout too.
        Err(e) if e.use_stderr() && quorate::common::json_errors() => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("usage error");
            return quorate::common::malformed(first.trim_start_matches("error: "));
        }
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Demo => demo_all(),
        Command::Bls { command } => match command {
            BlsCommand::Demo(args) => bls::demo(&args),
            BlsCommand::Verify(args) => return bls::verify(&args),
            BlsCommand::Setup(args) => deploy::client::setup(&args),
            BlsCommand::Cold { command } => match command {
                deploy::ColdCommand::Keygen(args) => deploy::cold::keygen(&args),
                deploy::ColdCommand::Enroll(args) => deploy::cold::enroll(&args),
                deploy::ColdCommand::Sign(args) => deploy::cold::sign(&args),
            },
            BlsCommand::Client { command } => match command {
                deploy::ClientCommand::Init(args) => deploy::client::init(&args),
            },
            BlsCommand::Register(args) => {
                return deploy::client::finish(deploy::client::register(&args), args.json, |v| {
                    format!("registered key {} with nodes {}", v["key_id"], v["holders"])
                })
            }
            BlsCommand::Refresh(args) => {
                return deploy::client::finish(deploy::client::refresh(&args), args.json, |v| {
                    format!(
                        "key {} at epoch {} on nodes {}",
                        v["key_id"], v["epoch"], v["committed"]
                    )
                })
            }
            BlsCommand::Request(args) => deploy::client::request(&args),
            BlsCommand::Sign(args) => {
                return deploy::client::finish(
                    deploy::client::sign(&args),
                    args.json,
                    deploy::client::signature_text,
                )
            }
            BlsCommand::Audit(args) => {
                return deploy::client::finish(
                    deploy::audit::audit(&args),
                    args.json,
                    deploy::audit::text,
                )
            }
        },
        Command::Ecdsa { command } => match command {
            EcdsaCommand::Demo(args) => ecdsa::demo(&args),
            EcdsaCommand::Verify(args) => return ecdsa::verify(&args),
            EcdsaCommand::Keygen(args) => return ecdsa::node::keygen(&args),
            EcdsaCommand::Sign(args) => return ecdsa::node::sign(&args),
            EcdsaCommand::Refresh(args) => return ecdsa::node::refresh(&args),
            EcdsaCommand::Resolve(args) => return ecdsa::node::resolve(&args),
        },
        Command::Cosi { command } => match command {
            CosiCommand::Timestamp { command } => return quorate::timestamp::run(&command),
            CosiCommand::Demo(args) => cosi::demo(&args),
            CosiCommand::Verify(args) => return cosi::verify(&args),
        },
        Command::Verenc { command } => match command {
            VerencCommand::Demo(args) => verenc::demo(&args),
            VerencCommand::Keygen(args) => verenc::keygen(&args),
            VerencCommand::Backup(args) => verenc::backup_cmd(&args),
            VerencCommand::Verify(args) => return verenc::verify(&args),
            VerencCommand::Recover(args) => return verenc::recover(&args),
        },
        Command::Mixnet { command } => match command {
            MixnetCommand::Demo(args) => mixnet::demo(&args),
        },
        Command::Bench(args) => bench(&args),
        Command::Node { command } => return quorate_node::cli::run_node_command(&command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => quorate::common::malformed(format_args!("{e:#}")),
    }
}

/// Runs every system's default demo; keeps going after a failure and reports it at the end.
fn demo_all() -> anyhow::Result<()> {
    let mut failed = Vec::new();
    for system in System::ALL {
        println!("== {} ==", system.name());
        match system.run_default_demo() {
            Ok(summary) => println!("{}\n", summary.trim_end()),
            Err(e) => {
                eprintln!("error: {}: {e:#}", system.name());
                failed.push(system.name());
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        anyhow::bail!("demo failed for: {}", failed.join(", "))
    }
}

fn bench(args: &BenchArgs) -> anyhow::Result<()> {
    // Fail on an unwritable --json path before the (long) benchmark runs.
    if let Some(path) = &args.json {
        quorate::files::check_output_path(path)?;
    }
    let mut suite = BenchSuite::new(args.system.name(), args.quick);
    print!("{}", suite.header());
    let opts = BenchOptions {
        large: args.large,
        n: args.n,
        m: args.m,
        threads: args.threads,
    };
    let outcome = args.system.bench(&mut suite, opts);
    // Print whatever was measured, even if a later row failed.
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
