//! Running a node: transport + session runtime + operator API until a shutdown signal, and
//! the roster-wide connectivity check. Takes plain values; the CLI loads them from the node
//! directory and the roster.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use ed25519_dalek::SigningKey;
use serde::Serialize;
use tracing::info;
use zeroize::Zeroizing;

use crate::api::{self, ApiError, ApiState};
use crate::cosi::{CosiService, WitnessSetup};
use crate::key_directory::KeyDirectory;
use crate::metrics::Metrics;
use crate::session::driver::Protocol;
use crate::session::policy::Policy;
use crate::session::store::SessionStore;
use crate::session::{Runtime, RuntimeConfig};
use crate::tlog_witness::{http as tlog_http, Witness};
use crate::transport::{Peers, Transport, TransportConfig, TransportError};

/// How often the runtime prunes finished ephemeral sessions (status queries) from
/// `runtime.db` ([`Runtime::spawn_pruner`]); once at start-up too.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// Everything a running node needs.
pub struct NodeSetup {
    /// This node's id.
    pub id: u16,
    /// Identity key (its public key must be this node's roster key).
    pub key: SigningKey,
    /// The roster.
    pub peers: Peers,
    /// Transport bind address.
    pub listen: SocketAddr,
    /// Operator API address (loopback only).
    pub api: SocketAddr,
    /// Operator API bearer token.
    pub api_token: Zeroizing<String>,
    /// Session persistence.
    pub store: Arc<dyn SessionStore>,
    /// Protocols this node runs.
    pub protocols: Vec<Arc<dyn Protocol>>,
    /// Participant policy.
    pub policy: Arc<dyn Policy>,
    /// Keys served by the operator API's `/v1/keys` (none when absent).
    pub keys: Option<Arc<dyn KeyDirectory>>,
    /// The ECDSA keys whose pending epochs this node resolves at start-up and after a
    /// failed keygen or refresh ([`crate::session::ecdsa::recovery`]; none when absent).
    pub ecdsa_recovery: Option<Arc<crate::session::ecdsa::EcdsaNode>>,
    /// The BLS hot role, served under `/v1/bls/` (none when absent).
    pub bls: Option<Arc<crate::session::bls::BlsHot>>,
    /// Transport limits.
    pub transport: TransportConfig,
    /// Runtime limits.
    pub runtime: RuntimeConfig,
    /// The CoSi witness role, if this node has it ([`crate::cosi`]).
    pub cosi: Option<WitnessSetup>,
    /// The public HTTP listener and the tlog-witness it serves (none when absent).
    pub public_http: Option<PublicHttp>,
}

/// The public HTTP listener: its bind address and the tlog-witness behind
/// `POST /add-checkpoint`.
#[derive(Debug)]
pub struct PublicHttp {
    /// Where to bind.
    pub addr: SocketAddr,
    /// The witness.
    pub witness: Arc<Witness>,
}

impl std::fmt::Debug for NodeSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeSetup")
            .field("id", &self.id)
            .field("listen", &self.listen)
            .field("api", &self.api)
            .finish_non_exhaustive()
    }
}

/// Why a node could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DaemonError {
    /// Transport setup failed.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// API setup failed.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// The CoSi witness role could not start.
    #[error("CoSi witness: {0}")]
    Cosi(String),
    /// The API server failed.
    #[error("operator API: {0}")]
    Serve(std::io::Error),
    /// The public HTTP listener could not bind or failed.
    #[error("public HTTP listener {addr}: {source}")]
    PublicHttp {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// A started node.
pub struct RunningNode {
    /// The session runtime.
    pub runtime: Arc<Runtime>,
    /// The bound transport address.
    pub listen: SocketAddr,
    /// The bound API address.
    pub api: SocketAddr,
    /// The bound public HTTP address, if any.
    pub public_http: Option<SocketAddr>,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    public: Option<(
        tokio::sync::oneshot::Sender<()>,
        tokio::task::JoinHandle<std::io::Result<()>>,
    )>,
}

impl std::fmt::Debug for RunningNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningNode")
            .field("listen", &self.listen)
            .field("api", &self.api)
            .finish_non_exhaustive()
    }
}

/// Binds the transport and the API and starts serving.
pub async fn start(setup: NodeSetup) -> Result<RunningNode, DaemonError> {
    let listener = api::bind(setup.api).await?;
    let public_listener = match &setup.public_http {
        Some(p) => {
            let fail = |source| DaemonError::PublicHttp {
                addr: p.addr,
                source,
            };
            let l = tlog_http::bind(p.addr).await.map_err(fail)?;
            let bound = l.local_addr().map_err(fail)?;
            Some((l, bound, p.witness.clone()))
        }
        None => None,
    };
    let api_addr = listener.local_addr().map_err(|source| ApiError::Io {
        addr: setup.api,
        source,
    })?;
    let (transport, rx) = Transport::bind(
        &setup.key,
        setup.id,
        setup.peers,
        setup.listen,
        setup.transport,
    )?;
    let listen = transport
        .local_addr()
        .map_err(|source| TransportError::Bind {
            addr: setup.listen,
            source,
        })?;
    let round_timeout = setup.runtime.round_timeout;
    let runtime = Runtime::new(
        setup.key.clone(),
        transport,
        setup.protocols,
        setup.policy,
        setup.store,
        Arc::new(Metrics::default()),
        setup.runtime,
    );
    if let Some(witness) = setup.cosi {
        let service = CosiService::new(
            setup.id,
            setup.key.clone(),
            runtime.transport().clone(),
            witness,
        )
        .map_err(DaemonError::Cosi)?;
        let (tx, mut cosi_rx) = tokio::sync::mpsc::channel(1024);
        runtime.route_protocol(crate::cosi::PROTOCOL, tx);
        tokio::spawn(async move {
            while let Some(env) = cosi_rx.recv().await {
                service.handle(env);
            }
        });
        info!(node = setup.id, "CoSi witness role on");
    }
    runtime.spawn_inbound(rx);
    runtime.spawn_pruner(PRUNE_EVERY);
    if let Some(node) = setup.ecdsa_recovery.clone() {
        crate::session::ecdsa::recovery::spawn_resolver(node, runtime.clone(), round_timeout);
    }
    let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(api::serve(
        listener,
        ApiState::new(runtime.clone(), &setup.api_token)
            .with_keys(setup.keys)
            .with_ecdsa(setup.ecdsa_recovery, round_timeout)
            .with_bls(setup.bls),
        async {
            let _ = stop_rx.await;
        },
    ));
    let mut public_http = None;
    let public = public_listener.map(|(l, bound, witness)| {
        public_http = Some(bound);
        info!(public_http = %bound, vkey = %witness.vkey(), "tlog-witness: POST /add-checkpoint");
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(tlog_http::serve(l, witness, async {
            let _ = rx.await;
        }));
        (tx, task)
    });
    info!(node = setup.id, %listen, api = %api_addr, "node running");
    Ok(RunningNode {
        runtime,
        listen,
        api: api_addr,
        public_http,
        stop,
        server,
        public,
    })
}

impl RunningNode {
    /// Stops the API and the transport (peers are told the connection closes).
    pub async fn stop(self) -> Result<(), DaemonError> {
        if let Some((tx, task)) = self.public {
            let _ = tx.send(());
            let _ = task.await;
        }
        let _ = self.stop.send(());
        let served = self.server.await;
        self.runtime.transport().shutdown().await;
        info!(node = self.runtime.self_id(), "node stopped");
        match served {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(DaemonError::Serve(e)),
            Err(e) => Err(DaemonError::Serve(std::io::Error::other(e.to_string()))),
        }
    }
}

/// Resolves on SIGTERM or SIGINT.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => info!("SIGTERM: stopping"),
                    _ = tokio::signal::ctrl_c() => info!("SIGINT: stopping"),
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Runs a node until `shutdown` resolves, then stops it cleanly.
pub async fn run(
    setup: NodeSetup,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), DaemonError> {
    let node = start(setup).await?;
    shutdown.await;
    node.stop().await
}

/// One row of `quorate node check`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeerCheck {
    /// Node id.
    pub id: u16,
    /// Its roster address.
    pub address: String,
    /// Whether it is this node (then the check reaches this node's own running process).
    #[serde(rename = "self")]
    pub is_self: bool,
    /// `ok` or `error`.
    pub status: &'static str,
    /// Round-trip time of dial + mutual authentication + one message, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// What failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether it failed by timing out (nothing answered: maybe a node still starting),
    /// rather than by a definite refusal.
    #[serde(skip)]
    pub timed_out: bool,
}

/// Dials every roster node (including this node's own running process) from a fresh
/// endpoint on an ephemeral port, authenticating both ways with this node's identity.
pub async fn check(
    id: u16,
    key: &SigningKey,
    peers: Peers,
    bind_ip: std::net::IpAddr,
    timeout: Duration,
) -> Result<Vec<PeerCheck>, TransportError> {
    let config = TransportConfig {
        connect_timeout: timeout,
        send_timeout: timeout,
        ..TransportConfig::default()
    };
    let (transport, _rx) =
        Transport::bind(key, id, peers.clone(), SocketAddr::new(bind_ip, 0), config)?;
    let probes = peers.iter().map(|p| {
        let t = transport.clone();
        let p = p.clone();
        async move {
            let res = t.probe(p.id).await;
            PeerCheck {
                id: p.id,
                address: p.addr.to_string(),
                is_self: p.id == id,
                status: if res.is_ok() { "ok" } else { "error" },
                rtt_ms: res.as_ref().ok().map(|d| d.as_secs_f64() * 1e3),
                timed_out: matches!(res, Err(TransportError::Timeout { .. })),
                error: res.err().map(|e| e.to_string()),
            }
        }
    });
    let rows = futures_join_all(probes).await;
    transport.shutdown().await;
    Ok(rows)
}

async fn futures_join_all<F: std::future::Future + Send + 'static>(
    futs: impl Iterator<Item = F>,
) -> Vec<F::Output>
where
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futs.map(tokio::spawn).collect();
    let mut out = Vec::with_capacity(handles.len());
    for h in handles {
        if let Ok(v) = h.await {
            out.push(v);
        }
    }
    out
}

/// The check as a fixed-width table.
pub fn check_table(rows: &[PeerCheck]) -> String {
    let mut out = format!(
        "{:>5}  {:<24} {:<6} {:>9}  {}\n",
        "node", "address", "status", "rtt_ms", "error"
    );
    for r in rows {
        let id = if r.is_self {
            format!("{}*", r.id)
        } else {
            r.id.to_string()
        };
        let rtt = r
            .rtt_ms
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "{:>5}  {:<24} {:<6} {:>9}  {}\n",
            id,
            r.address,
            r.status,
            rtt,
            r.error.as_deref().unwrap_or("")
        ));
    }
    out
}
