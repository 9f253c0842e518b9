//! [`Service`]: the server on its own tokio runtime, for callers that are not async.

use crate::loadgen::http_call;
use crate::server::{ServerConfig, TimestampServer};
use crate::store::Store;
use crate::witnesses::open_cosigner;
use anyhow::Context as _;
use quorate_cosi::timestamp::{RootCosigner, RosterVerifier};
use std::net::SocketAddr;
use std::sync::Arc;

/// A running timestamp service: the HTTP server, its store and its witnesses (in-process, or
/// remote witness nodes behind a [`RootCosigner`]), on a multi-threaded tokio runtime owned
/// by this value.
pub struct Service {
    runtime: tokio::runtime::Runtime,
    server: TimestampServer,
    cosigner: Arc<dyn RootCosigner>,
    verifier: RosterVerifier,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl Service {
    /// Opens the witnesses recorded in `store` (creating `witnesses` of them in a new store;
    /// see [`open_cosigner`]), binds `addr` and starts serving.
    pub fn start(
        addr: SocketAddr,
        store: Store,
        witnesses: usize,
        config: ServerConfig,
    ) -> anyhow::Result<Service> {
        Self::start_with_threads(addr, store, witnesses, config, None)
    }

    /// [`Service::start`] with `worker_threads` runtime threads (default: one per core).
    pub fn start_with_threads(
        addr: SocketAddr,
        store: Store,
        witnesses: usize,
        config: ServerConfig,
        worker_threads: Option<usize>,
    ) -> anyhow::Result<Service> {
        let cosigner = Arc::new(open_cosigner(&store, witnesses)?);
        let verifier = cosigner.verifier();
        Self::start_with_cosigner(addr, store, cosigner, verifier, config, worker_threads)
    }

    /// Starts serving with `cosigner` (e.g. remote witness nodes), whose signatures
    /// `verifier` accepts.
    pub fn start_with_cosigner(
        addr: SocketAddr,
        store: Store,
        cosigner: Arc<dyn RootCosigner>,
        verifier: RosterVerifier,
        config: ServerConfig,
        worker_threads: Option<usize>,
    ) -> anyhow::Result<Service> {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        if let Some(threads) = worker_threads {
            builder.worker_threads(threads);
        }
        let runtime = builder.enable_all().build()?;
        let server = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("binding {addr}"))?;
            TimestampServer::start(listener, store, cosigner.clone(), config).await
        })?;
        Ok(Service {
            runtime,
            server,
            cosigner,
            verifier,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.server.local_addr()
    }

    /// The witnesses that cosign the rounds.
    pub fn cosigner(&self) -> &Arc<dyn RootCosigner> {
        &self.cosigner
    }

    /// A receipt verifier for this service's roster and policy.
    pub fn verifier(&self) -> RosterVerifier {
        self.verifier.clone()
    }

    /// One HTTP request to this service: `(status, body)`. See [`http_call`].
    pub fn call(&self, method: &str, path: &str, body: &[u8]) -> anyhow::Result<(u16, Vec<u8>)> {
        self.runtime
            .block_on(http_call(self.local_addr(), method, path, body))
    }

    /// Installs handlers for SIGINT (Ctrl-C) and SIGTERM (what systemd and docker send),
    /// calls `ready` (e.g. to announce the address: a signal sent after that is handled),
    /// serves until either signal arrives, then shuts down as [`Service::shutdown`] does, so
    /// the open batch is sealed.
    pub fn serve_until_signal(self, ready: impl FnOnce(&Service)) -> anyhow::Result<()> {
        let signal = self.runtime.block_on(async {
            #[cfg(unix)]
            {
                use tokio::signal::unix::{signal, SignalKind};
                let mut interrupt = signal(SignalKind::interrupt())?;
                let mut terminate = signal(SignalKind::terminate())?;
                ready(&self);
                tokio::select! {
                    _ = interrupt.recv() => Ok::<_, std::io::Error>("SIGINT"),
                    _ = terminate.recv() => Ok("SIGTERM"),
                }
            }
            #[cfg(not(unix))]
            {
                let ctrl_c = tokio::signal::ctrl_c();
                ready(&self);
                ctrl_c.await.map(|()| "Ctrl-C")
            }
        })?;
        eprintln!("{signal}: shutting down, sealing the open batch");
        self.shutdown()
    }

    /// Stops accepting connections, seals and stores what is still in the open batch, then
    /// returns.
    pub fn shutdown(self) -> anyhow::Result<()> {
        self.runtime.block_on(self.server.shutdown())
    }
}
