//! `quorate node run` and `quorate node check`.
//!
//! * `quorate node run --dir DIR --roster FILE [--passphrase-file FILE]` opens the node
//!   directory (passphrase from the file or `QUORATE_PASSPHRASE`), binds the transport on
//!   the config's `listen` address and the operator API on its `api` address, and runs in
//!   the foreground until SIGTERM or SIGINT, then stops cleanly (exit 0). Logs go to stderr
//!   (`tracing`; filter with `QUORATE_LOG`, e.g. `QUORATE_LOG=debug`); they never contain
//!   a secret. Session bookkeeping is kept in `DIR/runtime.db`. With `public_http` in the
//!   config, it also serves the tlog-witness's `POST /add-checkpoint` there (state in
//!   `DIR/witness.db`; see [`crate::tlog_witness`] and `quorate node witness`).
//! * `quorate node check --roster FILE --dir DIR [--json] [--timeout-ms MS] [--wait-ms MS]`
//!   dials every roster node (this node's own running process included) with this node's
//!   identity, authenticating both ways and sending one probe message, and prints a
//!   per-peer table (or a JSON array). While a node does not answer at all it probes again,
//!   for up to `--wait-ms` (default 10 s, the grace client commands give a starting node). Exit 0 when every node answered, 1 when any did not, 2 for bad input
//!   or configuration (with `--json`, also `{"error": …}` on stdout).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use zeroize::Zeroizing;

use crate::cosi::WitnessSetup;
use crate::daemon::{self, check_table, NodeSetup};
use crate::identity::{IdentityError, NodeId, PassphraseArgs};
use crate::keystore::{KeyId, Keystore};
use crate::nodedir::{NodeDir, NodeDirError};
use crate::roster::{Roster, RosterError};
use crate::session::bls::BlsHot;
use crate::session::ecdsa::keygen::EcdsaKeygen;
use crate::session::ecdsa::recovery::EcdsaEpochStatus;
use crate::session::ecdsa::refresh::EcdsaRefresh;
use crate::session::ecdsa::sign::EcdsaSign;
use crate::session::ecdsa::EcdsaNode;
use crate::session::ping::Ping;
use crate::session::policy::{AllOf, OperatorPolicy, Policy};
use crate::session::store::{SqliteStore, StoreError};
use crate::session::{Proposal, RuntimeConfig};
use crate::transport::{PeerInfo, Peers, TransportConfig, TransportError};

/// Pause between two rounds of `node check` probes while a node does not answer.
const CHECK_RETRY_PAUSE: Duration = Duration::from_millis(250);

/// File of the runtime's session bookkeeping inside the node directory.
pub const RUNTIME_DB: &str = "runtime.db";

/// `quorate node run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The node directory.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The roster file.
    #[arg(long, value_name = "FILE")]
    pub roster: PathBuf,
    /// Default per-round deadline in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub round_timeout_ms: u64,
    /// Passphrase source.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// `quorate node check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The roster file.
    #[arg(long, value_name = "FILE")]
    pub roster: PathBuf,
    /// The node directory (its identity authenticates the probes).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Per-node time limit in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 3_000)]
    pub timeout_ms: u64,
    /// How long to keep probing again while some node does not answer at all (a node just
    /// started is still opening its keystore), in milliseconds; 0 probes once. A definite
    /// refusal (wrong key, version mismatch) is never retried.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub wait_ms: u64,
    /// Passphrase source.
    #[command(flatten)]
    pub passphrase: PassphraseArgs,
}

/// Why `run` or `check` could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Passphrase.
    #[error(transparent)]
    Passphrase(#[from] IdentityError),
    /// Node directory.
    #[error(transparent)]
    NodeDir(#[from] NodeDirError),
    /// Roster.
    #[error(transparent)]
    Roster(#[from] RosterError),
    /// Session store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Transport.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// Running the node.
    #[error(transparent)]
    Daemon(#[from] daemon::DaemonError),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// The roster as the transport's peer set (addresses resolved now).
pub fn peers_of(roster: &Roster) -> Result<Peers, RunError> {
    let mut peers = Vec::new();
    for e in roster.entries() {
        peers.push(PeerInfo {
            id: e.id.get(),
            key: e.public_key,
            addr: e.socket_addr()?,
        });
    }
    Ok(Peers::new(peers)?)
}

/// Refuses another coordinator's sessions that include a node banned for the session's key
/// (bans are stored in the keystore and survive restarts). A request of this node's own
/// operator with a banned node is left to the protocol, whose driver refuses to start it and
/// names the banned node (an abort, exit 1, not a bad request).
pub struct BanPolicy {
    keystore: Arc<Mutex<Keystore>>,
    self_id: u16,
}

impl std::fmt::Debug for BanPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BanPolicy")
    }
}

impl BanPolicy {
    /// A policy reading bans from `keystore` (shared with the protocols that write them).
    pub fn new(keystore: Arc<Mutex<Keystore>>, self_id: u16) -> Self {
        Self { keystore, self_id }
    }
}

impl Policy for BanPolicy {
    fn check(&self, p: &Proposal) -> Result<(), String> {
        if p.coordinator == self.self_id {
            return Ok(());
        }
        let Ok(key_id) = KeyId::new(&p.key_id) else {
            // Not a keystore key (e.g. a derived id of a key-less protocol): nothing banned.
            return Ok(());
        };
        let mut ks = self
            .keystore
            .lock()
            .map_err(|_| "keystore lock poisoned".to_string())?;
        for &n in &p.participants {
            let node = NodeId::new(n).map_err(|e| e.to_string())?;
            if ks
                .bans()
                .is_banned(&key_id, node)
                .map_err(|e| e.to_string())?
            {
                return Err(format!("node {n} is banned for key {}", p.key_id));
            }
        }
        Ok(())
    }
}

fn init_logging() {
    use std::io::IsTerminal;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env("QUORATE_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    // Colour only on a terminal: a log redirected to a file or journald stays plain text.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}

fn tokio_runtime() -> Result<tokio::runtime::Runtime, RunError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::Other(format!("async runtime: {e}")))
}

/// The public HTTP listener of `node run`: the config's `public_http` address serving the
/// tlog-witness (`DIR/witness.db`, created if absent). A node directory made before witness
/// keys has no witness, and its listener is refused rather than serving nothing.
fn public_http_of(
    dir: &NodeDir,
    config: &crate::config::NodeConfig,
    witness: Option<crate::tlog_witness::WitnessKey>,
) -> Result<Option<daemon::PublicHttp>, RunError> {
    let Some(addr) = &config.public_http else {
        return Ok(None);
    };
    let witness = witness.ok_or_else(|| {
        RunError::Other(format!(
            "public_http {addr} is set but the node has no tlog-witness key (a directory made \
             before witness keys: run `quorate node init` again to get one)"
        ))
    })?;
    let sock = std::net::ToSocketAddrs::to_socket_addrs(addr.as_str())
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| RunError::Other(format!("public_http {addr:?}: cannot resolve")))?;
    let db = dir.root().join(crate::tlog_witness::store::WITNESS_DB);
    let witness = crate::tlog_witness::Witness::open(&db, witness)
        .map_err(|e| RunError::Other(e.to_string()))?;
    Ok(Some(daemon::PublicHttp {
        addr: sock,
        witness,
    }))
}

/// Runs `quorate node run` to completion (until SIGTERM/SIGINT).
pub fn run(args: &RunArgs) -> Result<(), RunError> {
    init_logging();
    let passphrase = args.passphrase.passphrase()?;
    let dir = NodeDir::open(&args.dir)?;
    let _lock = dir.lock()?;
    let token = dir.api_token()?;
    let loaded = dir.load(&passphrase)?;
    let roster = Roster::load(&args.roster)?;
    let peers = peers_of(&roster)?;
    let id = loaded.config.id.get();
    let store = SqliteStore::open(&args.dir.join(RUNTIME_DB))?;
    let witness_key = crate::cosi::load_witness_key(&loaded.keystore)
        .map_err(|e| RunError::Other(e.to_string()))?;
    let is_witness = roster
        .cosi_witnesses()
        .iter()
        .any(|(n, _)| n.get() == loaded.config.id.get());
    let cosi = match (witness_key, is_witness) {
        (Some(key), true) => Some(WitnessSetup {
            key,
            roster: roster.clone(),
            state_dir: args.dir.clone(),
            max_skew_ms: quorate_cosi::timestamp::DEFAULT_MAX_SKEW_MS,
        }),
        _ => None,
    };
    let roster_keys: std::collections::BTreeMap<u16, _> = roster
        .entries()
        .map(|e| (e.id.get(), e.public_key))
        .collect();
    let (bls, bls_store) = BlsHot::open(&args.dir, &loaded.keystore, &passphrase, roster_keys)
        .map_err(|e| RunError::Other(format!("BLS hot keystore: {e}")))?;
    if bls_store == crate::keystore::DerivedOpen::Migrated {
        tracing::info!(
            file = crate::session::bls::STORE_FILE,
            "migrated the BLS hot keystore to a key derived from keystore.db (one Argon2id per start from now on)"
        );
    }
    let mut keystore = loaded.keystore;
    for (key, epoch) in keystore
        .abandon_empty_pending_epochs()
        .map_err(NodeDirError::Keystore)?
    {
        tracing::info!(key_id = %key, epoch, "abandoned an empty pending epoch left by a stop mid-keygen or mid-refresh");
    }
    let keystore = Arc::new(Mutex::new(keystore));
    let ecdsa = EcdsaNode::new(
        id,
        keystore.clone(),
        loaded.identity.signing_key().clone(),
        roster
            .entries()
            .map(|e| (e.id.get(), e.public_key))
            .collect(),
    );
    if let Some(escrow) =
        crate::escrow::load(&args.dir).map_err(|e| RunError::Other(format!("escrow key: {e}")))?
    {
        tracing::info!(scheme = %escrow.key.scheme(), "new ECDSA shares are backed up to the escrow before their epoch commits");
        // Backups of epochs older than the active one are left only by a stop between a
        // commit and their deletion: delete them now.
        let pruned = {
            let ks = keystore
                .lock()
                .map_err(|_| RunError::Other("keystore lock".into()))?;
            crate::escrow::prune_retired(&args.dir, |k| {
                ks.active_epoch(k).ok().flatten().map(|e| e.epoch)
            })
            .map_err(|e| RunError::Other(format!("pruning retired escrow backups: {e}")))?
        };
        for (key, epoch) in pruned {
            tracing::info!(key_id = %key, epoch, "deleted the escrow backups of a retired epoch");
        }
        ecdsa.set_escrow(escrow).map_err(RunError::Other)?;
    }
    if !loaded.config.policy.is_empty() {
        tracing::info!(policy = ?loaded.config.policy, "session policy from node.toml (changes take effect at the next restart)");
    }
    let public_http = public_http_of(&dir, &loaded.config, loaded.witness)?;
    let setup = NodeSetup {
        id,
        key: loaded.identity.signing_key().clone(),
        peers,
        listen: loaded.config.listen,
        api: loaded.config.api,
        api_token: Zeroizing::new(token.as_str().to_string()),
        store: Arc::new(store),
        protocols: vec![
            Arc::new(Ping::default()),
            Arc::new(EcdsaKeygen::new(ecdsa.clone())),
            Arc::new(EcdsaSign::new(ecdsa.clone())),
            Arc::new(EcdsaRefresh::new(ecdsa.clone())),
            Arc::new(EcdsaEpochStatus::new(ecdsa.clone())),
        ],
        policy: Arc::new(AllOf(vec![
            Arc::new(OperatorPolicy::new(loaded.config.policy.clone())),
            Arc::new(BanPolicy::new(keystore, id)),
        ])),
        keys: Some(ecdsa.clone()),
        ecdsa_recovery: Some(ecdsa),
        bls: Some(bls),
        transport: TransportConfig {
            alpn: crate::faults::advertised_alpn(),
            ..TransportConfig::default()
        },
        runtime: RuntimeConfig {
            round_timeout: Duration::from_millis(args.round_timeout_ms),
            ..RuntimeConfig::default()
        },
        public_http,
        cosi,
    };
    tokio_runtime()?.block_on(daemon::run(setup, daemon::shutdown_signal()))?;
    Ok(())
}

/// Runs `quorate node check`; returns whether every node answered.
pub fn check(args: &CheckArgs) -> Result<bool, RunError> {
    let passphrase = args.passphrase.passphrase()?;
    let dir = NodeDir::open(&args.dir)?;
    let loaded = dir.load(&passphrase)?;
    let roster = Roster::load(&args.roster)?;
    let peers = peers_of(&roster)?;
    let id = loaded.config.id.get();
    let key = loaded.identity.signing_key().clone();
    let bind_ip = loaded.config.listen.ip();
    let timeout = Duration::from_millis(args.timeout_ms);
    let rt = tokio_runtime()?;
    let give_up = std::time::Instant::now() + Duration::from_millis(args.wait_ms);
    let rows = loop {
        let rows = rt.block_on(daemon::check(id, &key, peers.clone(), bind_ip, timeout))?;
        if !rows.iter().any(|r| r.timed_out) || std::time::Instant::now() >= give_up {
            break rows;
        }
        std::thread::sleep(CHECK_RETRY_PAUSE);
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&rows).map_err(|e| RunError::Other(e.to_string()))?
        );
    } else {
        print!("{}", check_table(&rows));
    }
    Ok(rows.iter().all(|r| r.status == "ok"))
}

/// `quorate node run` with exit codes: 0 after a clean stop, 2 for any error.
pub fn run_command(args: &RunArgs) -> ExitCode {
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `quorate node check` with exit codes: 0 all reachable, 1 some not, 2 bad input. With
/// `--json`, an exit-2 error is also one JSON object `{"error": …}` on stdout.
pub fn check_command(args: &CheckArgs) -> ExitCode {
    match check(args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            if args.json {
                println!("{}", serde_json::json!({ "error": e.to_string() }));
            }
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
