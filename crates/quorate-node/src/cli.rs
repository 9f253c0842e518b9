//! `quorate node …`: the node's subcommands (clap), for the `quorate` binary.
//!
//! The binary adds one variant, `Node { #[command(subcommand)] command: NodeCommand }`, and
//! dispatches it to [`run_node_command`]. Exit codes: 0 on success, 2 for bad input or
//! configuration (every error of these subcommands), printed to stderr as `error: …`.
//!
//! * `quorate node init --dir DIR --listen HOST:PORT --api HOST:PORT [--id N] [--name NAME]
//!   [--address HOST:PORT] [--public-http HOST:PORT] [--passphrase-file FILE]` creates a
//!   node directory ([`crate::nodedir`]) and prints one JSON object: `id`, `name`,
//!   `public_key`, `listen`, `address`, `api`, `public_http`, `witness_vkey` (the note
//!   verifier key of the node's tlog-witness cosignature/v1 key, named NAME), `dir`,
//!   `public_entry`. NAME must be a note key name (no spaces, no `+`). `--escrow-key FILE`
//!   also configures the escrow ([`crate::cli_escrow`]).
//! * `quorate node roster --out FILE [--force] DIR_OR_ENTRY...` merges node directories,
//!   public entry files and rosters into a roster ([`crate::roster`]) and prints a JSON
//!   summary (`roster`, `digest`, `nodes`); `--replace DIR_OR_ENTRY` replaces one node's
//!   entry (same id, new key: a node re-initialised after losing its directory).
//! * `quorate node show --dir DIR` prints the node's public information as JSON (no
//!   passphrase needed).
//!
//! The passphrase comes from `--passphrase-file FILE` or else `QUORATE_PASSPHRASE`
//! ([`crate::identity::PassphraseArgs`], reusable by other subcommands).

use crate::fsutil::Overwrite;
use crate::identity::{IdentityError, NodeId, PassphraseArgs};
use crate::keystore::KdfParams;
use crate::nodedir::{InitOptions, InitReport, NodeDir, NodeDirError};
use crate::roster::{merge_inputs, RosterError};
use clap::{Args, Subcommand};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;

/// The `quorate node` subcommands.
#[derive(Debug, Subcommand)]
#[non_exhaustive]
pub enum NodeCommand {
    /// Create a node directory: Ed25519 identity key sealed in an encrypted keystore, node
    /// config, public entry and operator API token. Prints one JSON object.
    Init(InitArgs),
    /// Merge node directories, public entry files or rosters into a roster file.
    Roster(RosterArgs),
    /// Print a node directory's public information as JSON (no passphrase needed).
    Show(ShowArgs),
    /// Run the node in the foreground until SIGTERM or SIGINT.
    Run(crate::cli_run::RunArgs),
    /// Test that every roster node is reachable and authenticated; prints a table or JSON.
    Check(crate::cli_run::CheckArgs),
    /// The escrow backup of node shares: configure the escrow key, export backups.
    Escrow {
        /// The escrow subcommand.
        #[command(subcommand)]
        command: crate::cli_escrow::EscrowCommand,
    },
    /// The tlog-witness role: register, list, disable or enable the logs it cosigns.
    Witness {
        /// The witness subcommand.
        #[command(subcommand)]
        command: crate::cli_witness::WitnessCommand,
    },
}

fn parse_socket_addr(s: &str) -> Result<SocketAddr, String> {
    if let Ok(sa) = s.parse::<SocketAddr>() {
        return Ok(sa);
    }
    s.to_socket_addrs()
        .ok()
        .and_then(|mut it| it.next())
        .ok_or_else(|| format!("{s:?} is not HOST:PORT"))
}

fn parse_node_id(s: &str) -> Result<NodeId, String> {
    s.parse::<NodeId>().map_err(|e| e.to_string())
}

/// `quorate node init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The node directory to create (refused if already initialised).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The transport's bind address.
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_socket_addr)]
    pub listen: SocketAddr,
    /// The operator API's bind address (loopback only).
    #[arg(long, value_name = "HOST:PORT", value_parser = parse_socket_addr)]
    pub api: SocketAddr,
    /// The node id, 1..=65535 (conventionally 1..=n); derived from the identity key if omitted.
    #[arg(long, value_name = "N", value_parser = parse_node_id)]
    pub id: Option<NodeId>,
    /// The node's name (default node-<id>), also the key name of its tlog-witness
    /// cosignatures: no spaces and no `+` (e.g. `witness.example.com/w1`).
    #[arg(long)]
    pub name: Option<String>,
    /// The address peers dial, if not the listen address (required with a wildcard listen).
    #[arg(long, value_name = "HOST:PORT")]
    pub address: Option<String>,
    /// The public HTTP listener (`POST /add-checkpoint` of the tlog-witness role), also
    /// listed in the public entry.
    #[arg(long, value_name = "HOST:PORT")]
    pub public_http: Option<String>,
    /// The escrow public key new ECDSA shares are backed up to (a `quorate verenc keygen
    /// --public-out` file on secp256k1; see `quorate node escrow`).
    #[arg(long, value_name = "FILE")]
    pub escrow_key: Option<PathBuf>,
    /// Passphrase source.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
    /// Tests only: cheap Argon2id parameters (m = 64 KiB, t = 1), which make the passphrase
    /// easy to brute-force.
    #[arg(long, hide = true)]
    pub insecure_test_kdf: bool,
}

/// `quorate node roster`.
#[derive(Debug, Args)]
pub struct RosterArgs {
    /// The roster file to write (refused if it exists, unless --force).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace an existing roster file.
    #[arg(long)]
    pub force: bool,
    /// Node directories, public entry files or roster files to merge.
    #[arg(required = true, value_name = "DIR_OR_ENTRY")]
    pub inputs: Vec<PathBuf>,
    /// A re-initialised node's directory or public entry: replaces the merged roster's entry
    /// with the same id (a node that lost its whole directory, README "Restore a node from
    /// escrow"; [`crate::roster::Roster::replace`]). Repeatable.
    #[arg(long, value_name = "DIR_OR_ENTRY")]
    pub replace: Vec<PathBuf>,
}

/// `quorate node show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The node directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// A failed `quorate node` subcommand.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// No usable passphrase.
    #[error(transparent)]
    Passphrase(#[from] IdentityError),
    /// The node directory failed.
    #[error(transparent)]
    NodeDir(#[from] NodeDirError),
    /// The roster failed.
    #[error(transparent)]
    Roster(#[from] RosterError),
    /// The escrow key is unusable.
    #[error("escrow key: {0}")]
    Escrow(#[from] crate::escrow::EscrowError),
}

impl CliError {
    /// The process exit code: 2 (bad input or configuration) for every error here.
    pub fn exit_code(&self) -> u8 {
        2
    }
}

/// The summary `quorate node roster` prints.
#[derive(Debug, serde::Serialize)]
pub struct RosterReport {
    /// The roster file written.
    pub roster: String,
    /// The roster digest, hex.
    pub digest: String,
    /// The nodes, by id.
    pub nodes: Vec<serde_json::Value>,
}

/// Runs `quorate node init`.
pub fn init(args: &InitArgs) -> Result<InitReport, CliError> {
    let passphrase = args.passphrase.passphrase()?;
    // Checked before anything is written, installed once the directory exists.
    if let Some(key) = &args.escrow_key {
        crate::escrow::read_key_file(key)?;
    }
    let opts = InitOptions {
        id: args.id,
        name: args.name.clone(),
        listen: args.listen,
        address: args.address.clone(),
        api: args.api,
        public_http: args.public_http.clone(),
        kdf: if args.insecure_test_kdf {
            KdfParams::insecure_for_tests()
        } else {
            KdfParams::DEFAULT
        },
    };
    let (_, report) = NodeDir::init(&args.dir, &opts, &passphrase)?;
    if let Some(key) = &args.escrow_key {
        crate::escrow::install(&args.dir, key, false)?;
    }
    Ok(report)
}

/// Runs `quorate node roster`.
pub fn roster(args: &RosterArgs) -> Result<RosterReport, CliError> {
    let mut roster = merge_inputs(&args.inputs)?;
    for path in &args.replace {
        for (name, entry) in crate::roster::load_input(path)? {
            roster = roster.replace(&name, entry)?;
        }
    }
    let overwrite = if args.force {
        Overwrite::Replace
    } else {
        Overwrite::Never
    };
    roster.write(&args.out, overwrite)?;
    Ok(RosterReport {
        roster: args.out.display().to_string(),
        digest: hex::encode(roster.digest()),
        nodes: roster
            .entries()
            .map(|e| {
                serde_json::json!({
                    "id": e.id.get(),
                    "name": e.name,
                    "public_key": e.public_key_hex(),
                    "address": e.address,
                })
            })
            .collect(),
    })
}

/// Runs `quorate node show`.
pub fn show(args: &ShowArgs) -> Result<serde_json::Value, CliError> {
    let dir = NodeDir::open(&args.dir)?;
    let cfg = dir.config()?;
    Ok(serde_json::json!({
        "id": cfg.id.get(),
        "name": cfg.name,
        "public_key": cfg.public_key,
        "listen": cfg.listen.to_string(),
        "address": cfg.address,
        "api": cfg.api.to_string(),
        "public_http": cfg.public_http,
        "witness_vkey": cfg.witness_vkey,
        "dir": args.dir.display().to_string(),
    }))
}

fn print_json<T: serde::Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("error: cannot encode the output: {e}"),
    }
}

/// Runs one `quorate node` subcommand, printing its JSON output or `error: …`, and returns
/// the exit code.
pub fn run_node_command(cmd: &NodeCommand) -> ExitCode {
    let result = match cmd {
        NodeCommand::Init(args) => init(args).map(|r| print_json(&r)),
        NodeCommand::Roster(args) => roster(args).map(|r| print_json(&r)),
        NodeCommand::Show(args) => show(args).map(|r| print_json(&r)),
        NodeCommand::Run(args) => return crate::cli_run::run_command(args),
        NodeCommand::Check(args) => return crate::cli_run::check_command(args),
        NodeCommand::Witness { command } => return crate::cli_witness::run_command(command),
        NodeCommand::Escrow { command } => return crate::cli_escrow::run_command(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct TestCli {
        #[command(subcommand)]
        node: NodeCommand,
    }

    fn parse(args: &[&str]) -> NodeCommand {
        TestCli::try_parse_from(std::iter::once("node").chain(args.iter().copied()))
            .expect("parse")
            .node
    }

    fn init_node(dir: &std::path::Path, id: u16, pw: &std::path::Path) -> InitReport {
        let port = 7000 + id;
        let cmd = parse(&[
            "init",
            "--dir",
            dir.to_str().expect("utf8"),
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--api",
            &format!("localhost:{}", port + 1000),
            "--id",
            &id.to_string(),
            "--passphrase-file",
            pw.to_str().expect("utf8"),
            "--insecure-test-kdf",
        ]);
        let NodeCommand::Init(args) = cmd else {
            panic!("not init")
        };
        init(&args).expect("init")
    }

    #[test]
    fn init_then_roster_then_show() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let pw = tmp.path().join("pw");
        std::fs::write(&pw, "passphrase\n").expect("pw");
        let a = init_node(&tmp.path().join("a"), 1, &pw);
        let b = init_node(&tmp.path().join("b"), 2, &pw);
        assert_eq!((a.id, b.id), (1, 2));
        assert_eq!(a.api, "127.0.0.1:8001");
        let out = tmp.path().join("roster.toml");
        let args = |force: bool, inputs: Vec<PathBuf>| RosterArgs {
            out: out.clone(),
            force,
            inputs,
            replace: Vec::new(),
        };
        let entries = vec![
            tmp.path().join("b"),
            tmp.path().join("a").join("public.toml"),
        ];
        let report = roster(&args(false, entries.clone())).expect("roster");
        assert_eq!(report.nodes.len(), 2);
        assert_eq!(report.nodes[0]["public_key"], a.public_key);
        let err = roster(&args(false, entries.clone())).expect_err("exists");
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("refusing to overwrite"), "{err}");
        roster(&args(true, entries)).expect("forced");
        let err = roster(&args(
            true,
            vec![tmp.path().join("a"), tmp.path().join("a")],
        ))
        .expect_err("duplicate");
        assert!(err.to_string().contains("duplicate node id 1"), "{err}");
        let shown = show(&ShowArgs {
            dir: tmp.path().join("a"),
        })
        .expect("show");
        assert_eq!(shown["public_key"], a.public_key);
    }

    #[test]
    fn bad_arguments_are_rejected_by_the_parser() {
        for args in [
            &[
                "init",
                "--dir",
                "d",
                "--listen",
                "nohost",
                "--api",
                "127.0.0.1:1",
            ][..],
            &[
                "init",
                "--dir",
                "d",
                "--listen",
                "127.0.0.1:1",
                "--api",
                "127.0.0.1:2",
                "--id",
                "0",
            ],
            &["roster", "--out", "r.toml"],
        ] {
            let full = std::iter::once("node").chain(args.iter().copied());
            assert!(TestCli::try_parse_from(full).is_err(), "{args:?}");
        }
    }
}
