//! `timestamp serve --roster FILE --node DIR`: this process is the leader node, and the
//! roster's CoSi witness nodes cosign every round over the node transport
//! ([`quorate_node::cosi`]).

use super::ServeArgs;
use anyhow::Context as _;
use quorate_cosi::timestamp::{RosterVerifier, SignedRound, DEFAULT_MAX_SKEW_MS};
use quorate_cosi::Policy;
use quorate_node::cosi::{
    load_witness_key, CosiService, LeaderConfig, RemoteCosigner, WitnessSetup,
};
use quorate_node::nodedir::{DirLock, NodeDir};
use quorate_node::roster::Roster as NodeRoster;
use quorate_node::transport::{Transport, TransportConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The leader node, running on its own runtime for as long as this value lives.
pub struct Leader {
    /// The cosigner handed to the timestamp server.
    pub cosigner: Arc<RemoteCosigner>,
    /// Verifies what it produces.
    pub verifier: RosterVerifier,
    id: u16,
    witnesses: usize,
    policy: Policy,
    transport: Arc<Transport>,
    runtime: tokio::runtime::Runtime,
    _lock: DirLock,
}

impl Leader {
    /// Opens the node directory, binds the node's transport and sets up the CoSi leader;
    /// `recent` are the store's last signed rounds (sent to witnesses that missed them).
    pub fn start(
        args: &ServeArgs,
        roster: &Path,
        node: &Path,
        recent: Vec<SignedRound>,
    ) -> anyhow::Result<Leader> {
        let passphrase = args.passphrase.passphrase()?;
        let dir = NodeDir::open(node)?;
        let lock = dir.lock()?;
        let loaded = dir.load(&passphrase)?;
        let nodes = NodeRoster::load(roster)?;
        let key = load_witness_key(&loaded.keystore)?
            .context("the node has no CoSi witness key (initialised before the witness role)")?;
        let peers = quorate_node::cli_run::peers_of(&nodes)?;
        let id = loaded.config.id.get();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let guard = runtime.enter();
        let (transport, rx) = Transport::bind(
            loaded.identity.signing_key(),
            id,
            peers,
            loaded.config.listen,
            TransportConfig::default(),
        )?;
        let service = CosiService::new(
            id,
            loaded.identity.signing_key().clone(),
            transport.clone(),
            WitnessSetup {
                key,
                roster: nodes,
                state_dir: node.to_path_buf(),
                max_skew_ms: DEFAULT_MAX_SKEW_MS,
            },
        )
        .map_err(anyhow::Error::msg)?;
        service.spawn_inbound(rx);
        drop(guard);
        for round in recent {
            service.remember(round);
        }
        let n = service.roster().len();
        let policy = Policy::Threshold(args.threshold.unwrap_or(n - (n - 1) / 3));
        policy
            .validate(n)
            .context("--threshold must be between 1 and the number of witnesses")?;
        let verifier = RosterVerifier::new(service.roster().clone(), policy.clone());
        let cosigner = Arc::new(RemoteCosigner::new(
            service,
            runtime.handle().clone(),
            LeaderConfig {
                policy: policy.clone(),
                level_timeout: Duration::from_millis(args.level_timeout_ms),
                max_attempts: 4,
            },
        ));
        Ok(Leader {
            cosigner,
            verifier,
            id,
            witnesses: n,
            policy,
            transport,
            runtime,
            _lock: lock,
        })
    }

    /// For the start-up line.
    pub fn describe(&self) -> String {
        let t = match self.policy {
            Policy::Threshold(t) => t,
            _ => self.witnesses,
        };
        format!(
            "leader node {}, {} witness nodes (at least {t} must sign)",
            self.id, self.witnesses
        )
    }
}

impl Drop for Leader {
    fn drop(&mut self) {
        let transport = self.transport.clone();
        self.runtime
            .block_on(async move { transport.shutdown().await });
    }
}
