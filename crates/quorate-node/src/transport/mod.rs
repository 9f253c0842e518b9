//! The node-to-node transport: QUIC (quinn) with TLS 1.3 mutual authentication (rustls),
//! peers pinned to their roster keys.
//!
//! - **Identity.** A node's certificate is self-signed with its Ed25519 identity key
//!   ([`tls::TlsIdentity`]). The dialling side accepts the server only if the certificate
//!   key is the roster key of the node it dialled; the accepting side accepts any roster key
//!   and learns the peer's id from it. Unknown keys and another node's certificate are
//!   refused during the handshake.
//! - **Version.** The protocol version is negotiated with ALPN ([`ALPN_V1`]). Every node also
//!   offers the version-less [`ALPN_ANY_VERSION`] after its own: two nodes of one version
//!   agree on that version (the server's preference), two of different versions agree on
//!   the marker, complete the authenticated handshake, and the accepting node closes the
//!   connection at once with [`CLOSE_VERSION`] and its own version as the reason. The
//!   dialling node's error ([`TransportError::VersionMismatch`]) thus names the peer and
//!   both versions, at connection time, instead of a handshake failure that says nothing
//!   of the peer's version (a peer that does not offer the marker still fails the handshake
//!   with TLS `no_application_protocol`, reported without its version).
//! - **Framing.** One message per bidirectional QUIC stream: the sender writes the bytes and
//!   finishes, the receiver reads at most [`TransportConfig::max_message`] bytes (a longer
//!   stream is refused before anything is decoded) and answers one acknowledgement byte, so a
//!   successful [`Transport::send`] means the peer's node accepted the bytes.
//! - **Reconnects.** Connections are cached per peer and re-dialled when closed; every dial
//!   and every send has a timeout.
//! - **Dead connections.** A send first waits for the peer's QUIC stack to acknowledge
//!   every byte of the message, which a live peer does within a round trip whatever its
//!   load. If that takes longer than [`TransportConfig::stall_timeout`] (plus a margin for
//!   the round trip and the message size), the connection is taken for dead (the peer
//!   crashed, possibly restarted on the same address): it is closed and the message goes
//!   out on a fresh connection. Without this, a connection to a crashed peer lives until
//!   QUIC's idle timeout, and every later message to that peer (of any session) queues
//!   behind the dead session's unacknowledged packets, sent only at QUIC's backed-off
//!   probe times. Dials likewise restart their handshake after a stall (attempts of
//!   `stall_timeout`, doubling), so a peer that comes back is reached promptly.

pub mod tls;

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use ed25519_dalek::{SigningKey, VerifyingKey};
use quinn::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use tokio::sync::{mpsc, Mutex};
use tracing::{debug, warn};

use tls::{PinnedServerVerifier, RosterClientVerifier, TlsIdentity};

/// ALPN identifier of version 1 of the node-to-node protocol.
pub const ALPN_V1: &[u8] = b"quorate/1";
/// The version-less ALPN identifier every node offers after its own version (see the
/// module docs): only ever negotiated between nodes of different versions.
pub const ALPN_ANY_VERSION: &[u8] = b"quorate";
/// Connection close code: we speak another protocol version (the reason is ours).
pub const CLOSE_VERSION: u32 = 4;

/// Acknowledgement byte: the message was accepted for processing.
const ACK_OK: u8 = 1;
/// Stream error code: the message exceeded the size limit.
const STOP_TOO_LARGE: u32 = 1;
/// Stream error code: the node is shutting down or overloaded.
const STOP_UNAVAILABLE: u32 = 2;
/// Connection close code: the peer acknowledged nothing in time (taken for dead).
const CLOSE_STALLED: u32 = 3;

/// One peer of the roster as the transport needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerInfo {
    /// Party id (unique in the roster).
    pub id: u16,
    /// Ed25519 identity key.
    pub key: VerifyingKey,
    /// Address the node listens on.
    pub addr: SocketAddr,
}

/// The set of nodes a node talks to (its roster, including itself).
#[derive(Clone, Debug, Default)]
pub struct Peers {
    by_id: BTreeMap<u16, PeerInfo>,
}

impl Peers {
    /// Builds the set; ids and keys must be unique.
    pub fn new(peers: impl IntoIterator<Item = PeerInfo>) -> Result<Self, TransportError> {
        let mut by_id = BTreeMap::new();
        let mut keys = BTreeMap::new();
        for p in peers {
            if keys.insert(*p.key.as_bytes(), p.id).is_some() {
                return Err(TransportError::Config(format!(
                    "node {} reuses another node's key",
                    p.id
                )));
            }
            let id = p.id;
            if by_id.insert(id, p).is_some() {
                return Err(TransportError::Config(format!("duplicate node id {id}")));
            }
        }
        Ok(Self { by_id })
    }

    /// The peer with this id.
    pub fn get(&self, id: u16) -> Option<&PeerInfo> {
        self.by_id.get(&id)
    }

    /// Roster key of node `id`.
    pub fn key(&self, id: u16) -> Option<VerifyingKey> {
        self.by_id.get(&id).map(|p| p.key)
    }

    /// All peers in id order.
    pub fn iter(&self) -> impl Iterator<Item = &PeerInfo> {
        self.by_id.values()
    }

    /// All ids in order.
    pub fn ids(&self) -> Vec<u16> {
        self.by_id.keys().copied().collect()
    }

    /// The id whose roster key is `key`.
    pub fn id_of(&self, key: &VerifyingKey) -> Option<u16> {
        self.by_id.values().find(|p| &p.key == key).map(|p| p.id)
    }
}

/// Transport limits and timeouts.
#[derive(Clone, Debug)]
pub struct TransportConfig {
    /// ALPN identifier offered and required (default [`ALPN_V1`]).
    pub alpn: Vec<u8>,
    /// Largest message accepted, in bytes; checked while reading, before decoding.
    pub max_message: usize,
    /// Time allowed for one dial (QUIC + TLS handshake).
    pub connect_timeout: Duration,
    /// Time allowed for one message to be written and acknowledged.
    pub send_timeout: Duration,
    /// Time without transport-level acknowledgement of a message (or without a handshake
    /// answer) after which the connection (or dial attempt) is taken for dead and replaced.
    pub stall_timeout: Duration,
    /// Connection idle timeout (keep-alives are sent at a third of it).
    pub idle_timeout: Duration,
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self {
            alpn: ALPN_V1.to_vec(),
            max_message: 4 << 20,
            connect_timeout: Duration::from_secs(5),
            send_timeout: Duration::from_secs(10),
            stall_timeout: Duration::from_secs(1),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

/// Transport errors. Handshake refusals say which side refused and why.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// Bad configuration (duplicate ids or keys, unknown peer, ...).
    #[error("transport configuration: {0}")]
    Config(String),
    /// Building TLS credentials failed.
    #[error("TLS setup: {0}")]
    Tls(String),
    /// Binding the UDP socket failed.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
    /// The peer is not in the roster.
    #[error("node {0} is not in the roster")]
    UnknownPeer(u16),
    /// We refused the peer's certificate (wrong or unknown key).
    #[error("node {peer}: refused its identity: {reason}")]
    PeerRejected {
        /// Node we dialled.
        peer: u16,
        /// Why.
        reason: String,
    },
    /// The peer refused our certificate (our key is not its roster key for us).
    #[error("node {peer} refused our identity (is our key in its roster?): {reason}")]
    RejectedByPeer {
        /// Node we dialled.
        peer: u16,
        /// What it said.
        reason: String,
    },
    /// No common protocol version (ALPN).
    #[error(
        "node {peer}: protocol version mismatch: we speak {ours}, node {peer} speaks {}",
        theirs.as_deref().unwrap_or("another version (it did not say which)")
    )]
    VersionMismatch {
        /// Node we dialled.
        peer: u16,
        /// Our ALPN identifier.
        ours: String,
        /// Its ALPN identifier, when it said.
        theirs: Option<String>,
    },
    /// The peer did not answer in time.
    #[error("node {peer}: timed out after {after:?} ({what})")]
    Timeout {
        /// Node.
        peer: u16,
        /// Which step.
        what: &'static str,
        /// Limit.
        after: Duration,
    },
    /// The peer refused the message because it exceeds its size limit.
    #[error("node {peer}: message of {len} bytes refused as too large")]
    TooLarge {
        /// Node.
        peer: u16,
        /// Message length.
        len: usize,
    },
    /// Any other connection failure.
    #[error("node {peer}: {reason}")]
    Connection {
        /// Node.
        peer: u16,
        /// Cause.
        reason: String,
    },
}

impl TransportError {
    /// Whether sending again cannot succeed until an operator acts: another protocol
    /// version, an identity refused by either side, a message over the peer's limit.
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            TransportError::VersionMismatch { .. }
                | TransportError::PeerRejected { .. }
                | TransportError::RejectedByPeer { .. }
                | TransportError::TooLarge { .. }
        )
    }
}

/// A message received from an authenticated peer.
#[derive(Debug)]
pub struct Received {
    /// The peer's id, established by the TLS handshake.
    pub from: u16,
    /// The message bytes (at most `max_message`).
    pub bytes: Vec<u8>,
}

/// The QUIC endpoint of one node.
pub struct Transport {
    self_id: u16,
    endpoint: quinn::Endpoint,
    peers: Arc<Peers>,
    identity: Arc<TlsIdentity>,
    config: TransportConfig,
    provider: Arc<rustls::crypto::CryptoProvider>,
    /// One slot per peer, each with its own lock so a slow dial blocks only that peer.
    conns: HashMap<u16, Arc<Mutex<Option<quinn::Connection>>>>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("self_id", &self.self_id)
            .field("local_addr", &self.endpoint.local_addr().ok())
            .finish()
    }
}

/// The QUIC stateless-reset key, derived from the identity key so that it survives a
/// restart: a restarted node answers packets of its previous life's connections with a
/// stateless reset (RFC 9000 §10.3) that peers accept, so they drop the dead connection and
/// re-dial at once instead of waiting out the send or idle timeout.
fn stateless_reset_key(identity_key: &SigningKey) -> ring::hmac::Key {
    use sha2::{Digest, Sha256};
    let seed = zeroize::Zeroizing::new(identity_key.to_bytes());
    let mut h = Sha256::new();
    h.update(b"quorate/quic-stateless-reset-key/v1");
    h.update(&seed[..]);
    let derived = zeroize::Zeroizing::new(<[u8; 32]>::from(h.finalize()));
    ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &derived[..])
}

/// Random 8-byte connection ids that every packet passes as "possibly ours" (quinn's default
/// generator keys its ids with a per-process secret, so a restarted node would drop the
/// packets of its previous life's connections instead of answering with a stateless reset).
struct RandomCids;

impl quinn::ConnectionIdGenerator for RandomCids {
    fn generate_cid(&mut self) -> quinn::ConnectionId {
        let mut bytes = [0u8; 8];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut bytes);
        quinn::ConnectionId::new(&bytes)
    }

    fn cid_len(&self) -> usize {
        8
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

fn quic_transport_config(cfg: &TransportConfig) -> Result<quinn::TransportConfig, TransportError> {
    let mut t = quinn::TransportConfig::default();
    let idle = quinn::IdleTimeout::try_from(cfg.idle_timeout)
        .map_err(|e| TransportError::Config(format!("idle timeout: {e}")))?;
    t.max_idle_timeout(Some(idle));
    t.keep_alive_interval(Some(cfg.idle_timeout / 3));
    t.max_concurrent_uni_streams(0u32.into());
    t.max_concurrent_bidi_streams(256u32.into());
    // Ask the peer to acknowledge within MAX_ACK_DELAY instead of QUIC's default 25 ms: the
    // probe timeout after a lost packet is RTT + 4·RTTvar + the peer's ack delay, so with
    // the default a datagram dropped on a busy host (a full receive buffer) costs ≈ 26 ms,
    // the tail of short sessions on loopback.
    let mut ack = quinn::AckFrequencyConfig::default();
    ack.max_ack_delay(Some(MAX_ACK_DELAY));
    t.ack_frequency_config(Some(ack));
    Ok(t)
}

/// Largest delay before acknowledging that a node asks of its peers (see
/// [`quic_transport_config`]).
const MAX_ACK_DELAY: Duration = Duration::from_millis(1);

/// UDP socket buffer size requested (the kernel caps it at `net.core.rmem_max` /
/// `wmem_max`): a signing round's 40 KB messages from several sessions at once overflow
/// Linux's default 208 KiB receive buffer while the node's CPU is busy, and every dropped
/// datagram waits for a probe timeout.
const SOCKET_BUFFER: usize = 4 << 20;

/// Raises the socket's buffers towards [`SOCKET_BUFFER`]; a refusal only costs speed.
fn enlarge_buffers(socket: &std::net::UdpSocket) {
    let sock = socket2::SockRef::from(socket);
    if let Err(e) = sock.set_recv_buffer_size(SOCKET_BUFFER) {
        debug!(error = %e, "could not enlarge the UDP receive buffer");
    }
    if let Err(e) = sock.set_send_buffer_size(SOCKET_BUFFER) {
        debug!(error = %e, "could not enlarge the UDP send buffer");
    }
}

impl Transport {
    /// Binds the node's endpoint on `listen` and starts accepting authenticated peers.
    /// Returns the transport and the stream of received messages.
    pub fn bind(
        identity_key: &SigningKey,
        self_id: u16,
        peers: Peers,
        listen: SocketAddr,
        config: TransportConfig,
    ) -> Result<(Arc<Self>, mpsc::Receiver<Received>), TransportError> {
        match peers.key(self_id) {
            Some(k) if k == identity_key.verifying_key() => {}
            Some(_) => {
                return Err(TransportError::Config(format!(
                    "our identity key is not the roster key of node {self_id}"
                )))
            }
            None => return Err(TransportError::UnknownPeer(self_id)),
        }
        let identity = Arc::new(TlsIdentity::new(identity_key, self_id)?);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let keys = peers.iter().map(|p| (*p.key.as_bytes(), p.id)).collect();
        let mut server = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| TransportError::Tls(e.to_string()))?
            .with_client_cert_verifier(Arc::new(RosterClientVerifier { keys }))
            .with_single_cert(vec![identity.cert.clone()], identity.key_der())
            .map_err(|e| TransportError::Tls(e.to_string()))?;
        server.alpn_protocols = vec![config.alpn.clone(), ALPN_ANY_VERSION.to_vec()];
        let quic_server =
            QuicServerConfig::try_from(server).map_err(|e| TransportError::Tls(e.to_string()))?;
        let mut server_config = quinn::ServerConfig::with_crypto(Arc::new(quic_server));
        server_config.transport_config(Arc::new(quic_transport_config(&config)?));
        let bind_err = |source| TransportError::Bind {
            addr: listen,
            source,
        };
        let socket = std::net::UdpSocket::bind(listen).map_err(bind_err)?;
        enlarge_buffers(&socket);
        let mut endpoint_config =
            quinn::EndpointConfig::new(Arc::new(stateless_reset_key(identity_key)));
        endpoint_config.cid_generator(|| Box::new(RandomCids));
        let endpoint = quinn::Endpoint::new(
            endpoint_config,
            Some(server_config),
            socket,
            Arc::new(quinn::TokioRuntime),
        )
        .map_err(bind_err)?;
        let (tx, rx) = mpsc::channel(1024);
        let conns = peers
            .ids()
            .into_iter()
            .map(|id| (id, Arc::new(Mutex::new(None))))
            .collect();
        let transport = Arc::new(Self {
            self_id,
            endpoint,
            peers: Arc::new(peers),
            identity,
            config,
            provider,
            conns,
        });
        tokio::spawn(accept_loop(
            transport.endpoint.clone(),
            transport.peers.clone(),
            transport.config.max_message,
            transport.config.alpn.clone(),
            tx,
        ));
        Ok((transport, rx))
    }

    /// Our id.
    pub fn self_id(&self) -> u16 {
        self.self_id
    }

    /// The roster the transport pins peers to.
    pub fn peers(&self) -> &Peers {
        &self.peers
    }

    /// The bound address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.endpoint.local_addr()
    }

    fn client_config(&self, peer: &PeerInfo) -> Result<quinn::ClientConfig, TransportError> {
        let mut client = rustls::ClientConfig::builder_with_provider(self.provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| TransportError::Tls(e.to_string()))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(PinnedServerVerifier {
                expected_id: peer.id,
                expected_key: peer.key,
            }))
            .with_client_auth_cert(vec![self.identity.cert.clone()], self.identity.key_der())
            .map_err(|e| TransportError::Tls(e.to_string()))?;
        client.alpn_protocols = vec![self.config.alpn.clone(), ALPN_ANY_VERSION.to_vec()];
        let quic =
            QuicClientConfig::try_from(client).map_err(|e| TransportError::Tls(e.to_string()))?;
        let mut cfg = quinn::ClientConfig::new(Arc::new(quic));
        cfg.transport_config(Arc::new(quic_transport_config(&self.config)?));
        Ok(cfg)
    }

    /// Dials `peer` within `connect_timeout`. A handshake unanswered for an attempt's time
    /// (`stall_timeout`, doubling) is restarted: QUIC backs off its handshake retransmissions
    /// exponentially, so a peer that comes up while one attempt waits would otherwise be
    /// reached only at the next backed-off retransmission.
    async fn dial(&self, peer: &PeerInfo) -> Result<quinn::Connection, TransportError> {
        let cfg = self.client_config(peer)?;
        let deadline = tokio::time::Instant::now() + self.config.connect_timeout;
        let mut attempt = self.config.stall_timeout.max(Duration::from_millis(1));
        loop {
            let connecting = self
                .endpoint
                .connect_with(cfg.clone(), peer.addr, tls::SERVER_NAME)
                .map_err(|e| TransportError::Connection {
                    peer: peer.id,
                    reason: e.to_string(),
                })?;
            let now = tokio::time::Instant::now();
            let until = deadline.min(now + attempt);
            match tokio::time::timeout_at(until, connecting).await {
                Ok(res) => {
                    let conn = res.map_err(|e| self.classify(peer.id, e))?;
                    if negotiated(&conn).as_deref() == Some(ALPN_ANY_VERSION) {
                        return Err(self.version_mismatch(peer.id, &conn).await);
                    }
                    debug!(peer = peer.id, "connected");
                    return Ok(conn);
                }
                Err(_) if until >= deadline => {
                    return Err(TransportError::Timeout {
                        peer: peer.id,
                        what: "handshake",
                        after: self.config.connect_timeout,
                    })
                }
                Err(_) => {
                    debug!(
                        peer = peer.id,
                        ?attempt,
                        "handshake unanswered; dialling again"
                    );
                    attempt = attempt.saturating_mul(2);
                }
            }
        }
    }

    fn classify(&self, peer: u16, e: quinn::ConnectionError) -> TransportError {
        classify(peer, &self.config.alpn, e)
    }

    /// The peer agreed only on [`ALPN_ANY_VERSION`]: it speaks another version and closes
    /// the connection with its own as the reason (waited for within `connect_timeout`).
    async fn version_mismatch(&self, peer: u16, conn: &quinn::Connection) -> TransportError {
        let closed = tokio::time::timeout(self.config.connect_timeout, conn.closed()).await;
        let theirs = match closed {
            Ok(quinn::ConnectionError::ApplicationClosed(c))
                if c.error_code == CLOSE_VERSION.into() =>
            {
                Some(String::from_utf8_lossy(&c.reason).into_owned())
            }
            _ => {
                conn.close(CLOSE_VERSION.into(), &self.config.alpn);
                None
            }
        };
        warn!(peer, ours = %String::from_utf8_lossy(&self.config.alpn), theirs = ?theirs, "protocol version mismatch");
        TransportError::VersionMismatch {
            peer,
            ours: String::from_utf8_lossy(&self.config.alpn).into_owned(),
            theirs,
        }
    }

    async fn connection(&self, peer: u16) -> Result<quinn::Connection, TransportError> {
        let info = self
            .peers
            .get(peer)
            .ok_or(TransportError::UnknownPeer(peer))?
            .clone();
        let slot = self
            .conns
            .get(&peer)
            .ok_or(TransportError::UnknownPeer(peer))?;
        let mut slot = slot.lock().await;
        if let Some(c) = slot.as_ref() {
            if c.close_reason().is_none() {
                return Ok(c.clone());
            }
        }
        *slot = None;
        let conn = self.dial(&info).await?;
        *slot = Some(conn.clone());
        Ok(conn)
    }

    /// Drops the cached connection to `peer` if it is still `conn` (a concurrent send may
    /// already have replaced it).
    async fn forget(&self, peer: u16, conn: &quinn::Connection) {
        if let Some(slot) = self.conns.get(&peer) {
            let mut slot = slot.lock().await;
            if slot.as_ref().map(quinn::Connection::stable_id) == Some(conn.stable_id()) {
                *slot = None;
            }
        }
    }

    /// How long a message of `len` bytes may go without transport-level acknowledgement
    /// before the connection is taken for dead: `stall_timeout`, four round trips, and a
    /// microsecond per byte (a 1 MB/s floor on the path's throughput).
    fn stall_limit(&self, conn: &quinn::Connection, len: usize) -> Duration {
        self.config.stall_timeout
            + conn.rtt().saturating_mul(4)
            + Duration::from_micros(u64::try_from(len).unwrap_or(u64::MAX))
    }

    async fn send_on(
        &self,
        conn: &quinn::Connection,
        peer: u16,
        bytes: &[u8],
    ) -> Result<(), TransportError> {
        let too_large = || TransportError::TooLarge {
            peer,
            len: bytes.len(),
        };
        // Phase 1: the peer's QUIC stack acknowledges every byte (a live peer does so
        // within a round trip, however busy its node is).
        let delivered = async {
            let (mut send, recv) = conn.open_bi().await.map_err(|e| self.classify(peer, e))?;
            send.write_all(bytes).await.map_err(|e| match e {
                quinn::WriteError::Stopped(code) if code == STOP_TOO_LARGE.into() => too_large(),
                quinn::WriteError::ConnectionLost(e) => self.classify(peer, e),
                other => TransportError::Connection {
                    peer,
                    reason: other.to_string(),
                },
            })?;
            let _ = send.finish();
            match send.stopped().await {
                Ok(None) => Ok(recv),
                Ok(Some(code)) if code == STOP_TOO_LARGE.into() => Err(too_large()),
                Ok(Some(code)) => Err(TransportError::Connection {
                    peer,
                    reason: format!("the peer stopped the stream (code {code})"),
                }),
                Err(quinn::StoppedError::ConnectionLost(e)) => Err(self.classify(peer, e)),
                Err(e) => Err(TransportError::Connection {
                    peer,
                    reason: e.to_string(),
                }),
            }
        };
        // Phase 2: the peer's node accepts the message (its acknowledgement byte).
        let io = async {
            let stall = self.stall_limit(conn, bytes.len());
            let mut recv = match tokio::time::timeout(stall, delivered).await {
                Ok(r) => r?,
                Err(_) => {
                    debug!(
                        peer,
                        ?stall,
                        "no transport acknowledgement; dropping the connection"
                    );
                    conn.close(CLOSE_STALLED.into(), b"no acknowledgement");
                    return Err(TransportError::Timeout {
                        peer,
                        what: "transport acknowledgement (connection dropped)",
                        after: stall,
                    });
                }
            };
            match recv.read_to_end(16).await {
                Ok(ack) if ack == [ACK_OK] => Ok(()),
                Ok(_) => Err(TransportError::Connection {
                    peer,
                    reason: "bad acknowledgement".into(),
                }),
                Err(quinn::ReadToEndError::Read(quinn::ReadError::Reset(code)))
                    if code == STOP_TOO_LARGE.into() =>
                {
                    Err(too_large())
                }
                Err(quinn::ReadToEndError::Read(quinn::ReadError::ConnectionLost(e))) => {
                    Err(self.classify(peer, e))
                }
                Err(e) => Err(TransportError::Connection {
                    peer,
                    reason: e.to_string(),
                }),
            }
        };
        tokio::time::timeout(self.config.send_timeout, io)
            .await
            .map_err(|_| TransportError::Timeout {
                peer,
                what: "send",
                after: self.config.send_timeout,
            })?
    }

    /// Sends one message to `peer` and waits for its acknowledgement. A closed connection is
    /// re-dialled once.
    pub async fn send(&self, peer: u16, bytes: &[u8]) -> Result<(), TransportError> {
        if bytes.len() > self.config.max_message {
            return Err(TransportError::TooLarge {
                peer,
                len: bytes.len(),
            });
        }
        let conn = self.connection(peer).await?;
        match self.send_on(&conn, peer, bytes).await {
            Ok(()) => Ok(()),
            Err(e) if e.is_permanent() => Err(e),
            Err(first) => {
                debug!(peer, error = %first, "send failed; re-dialling once");
                self.forget(peer, &conn).await;
                let conn = self.connection(peer).await?;
                self.send_on(&conn, peer, bytes).await
            }
        }
    }

    /// Dials `peer` (fresh connection), completes mutual authentication and one
    /// message round trip (an empty message). Used by `quorate node check`.
    pub async fn probe(&self, peer: u16) -> Result<Duration, TransportError> {
        let info = self
            .peers
            .get(peer)
            .ok_or(TransportError::UnknownPeer(peer))?
            .clone();
        let start = std::time::Instant::now();
        let conn = self.dial(&info).await?;
        let res = self.send_on(&conn, peer, &[]).await;
        conn.close(0u32.into(), b"probe done");
        res.map(|()| start.elapsed())
    }

    /// Closes every connection and the endpoint, waiting briefly for peers to be told.
    pub async fn shutdown(&self) {
        for slot in self.conns.values() {
            *slot.lock().await = None;
        }
        self.endpoint.close(0u32.into(), b"node shutting down");
        let _ = tokio::time::timeout(Duration::from_secs(2), self.endpoint.wait_idle()).await;
    }
}

/// Maps a connection error to a clear transport error (TLS alerts arrive as QUIC
/// CRYPTO_ERROR codes 0x100 + alert).
fn classify(peer: u16, alpn: &[u8], e: quinn::ConnectionError) -> TransportError {
    const NO_APPLICATION_PROTOCOL: u8 = 120;
    match e {
        quinn::ConnectionError::TransportError(te) => {
            if te.code == quinn::TransportErrorCode::crypto(NO_APPLICATION_PROTOCOL) {
                TransportError::VersionMismatch {
                    peer,
                    ours: String::from_utf8_lossy(alpn).into_owned(),
                    theirs: None,
                }
            } else if is_crypto(&te.code) {
                TransportError::PeerRejected {
                    peer,
                    reason: tidy_tls_reason(&te.reason),
                }
            } else {
                TransportError::Connection {
                    peer,
                    reason: te.to_string(),
                }
            }
        }
        quinn::ConnectionError::ConnectionClosed(close) => {
            if close.error_code == quinn::TransportErrorCode::crypto(NO_APPLICATION_PROTOCOL) {
                TransportError::VersionMismatch {
                    peer,
                    ours: String::from_utf8_lossy(alpn).into_owned(),
                    theirs: None,
                }
            } else if is_crypto(&close.error_code) {
                TransportError::RejectedByPeer {
                    peer,
                    reason: close.to_string(),
                }
            } else {
                TransportError::Connection {
                    peer,
                    reason: close.to_string(),
                }
            }
        }
        quinn::ConnectionError::ApplicationClosed(close)
            if close.error_code == CLOSE_VERSION.into() =>
        {
            TransportError::VersionMismatch {
                peer,
                ours: String::from_utf8_lossy(alpn).into_owned(),
                theirs: Some(String::from_utf8_lossy(&close.reason).into_owned()),
            }
        }
        quinn::ConnectionError::TimedOut => TransportError::Connection {
            peer,
            reason: "connection timed out".into(),
        },
        other => TransportError::Connection {
            peer,
            reason: other.to_string(),
        },
    }
}

/// rustls reports our own certificate checks as
/// `invalid peer certificate: Other(OtherError(<message>))`; the operator gets the message.
fn tidy_tls_reason(reason: &str) -> String {
    const WRAPPED: (&str, &str) = ("invalid peer certificate: Other(OtherError(", "))");
    match reason
        .strip_prefix(WRAPPED.0)
        .and_then(|r| r.strip_suffix(WRAPPED.1))
    {
        Some(inner) => format!("invalid peer certificate: {inner}"),
        None => reason.to_string(),
    }
}

fn is_crypto(code: &quinn::TransportErrorCode) -> bool {
    let v = u64::from(*code);
    (0x100..0x200).contains(&v)
}

/// The ALPN identifier the handshake of `conn` agreed on.
fn negotiated(conn: &quinn::Connection) -> Option<Vec<u8>> {
    conn.handshake_data()?
        .downcast::<quinn::crypto::rustls::HandshakeData>()
        .ok()?
        .protocol
}

async fn accept_loop(
    endpoint: quinn::Endpoint,
    peers: Arc<Peers>,
    max_message: usize,
    alpn: Vec<u8>,
    tx: mpsc::Sender<Received>,
) {
    while let Some(incoming) = endpoint.accept().await {
        let peers = peers.clone();
        let tx = tx.clone();
        let alpn = alpn.clone();
        tokio::spawn(async move {
            let remote = incoming.remote_address();
            let conn = match incoming.await {
                Ok(c) => c,
                Err(e) => {
                    warn!(%remote, error = %e, "refused incoming connection");
                    return;
                }
            };
            let Some(from) = peer_id(&conn, &peers) else {
                warn!(%remote, "connection without a roster identity");
                conn.close(1u32.into(), b"unknown identity");
                return;
            };
            if negotiated(&conn).as_deref() == Some(ALPN_ANY_VERSION) {
                // An authenticated roster peer of another version: tell it ours.
                warn!(peer = from, %remote, ours = %String::from_utf8_lossy(&alpn),
                      "refused a connection: the peer speaks another protocol version");
                conn.close(CLOSE_VERSION.into(), &alpn);
                return;
            }
            debug!(peer = from, %remote, "peer connected");
            serve_connection(conn, from, max_message, tx).await;
        });
    }
}

fn peer_id(conn: &quinn::Connection, peers: &Peers) -> Option<u16> {
    let identity = conn.peer_identity()?;
    let certs = identity
        .downcast::<Vec<rustls::pki_types::CertificateDer<'static>>>()
        .ok()?;
    let key = tls::cert_public_key(certs.first()?).ok()?;
    peers.id_of(&key)
}

async fn serve_connection(
    conn: quinn::Connection,
    from: u16,
    max_message: usize,
    tx: mpsc::Sender<Received>,
) {
    loop {
        let (mut send, mut recv) = match conn.accept_bi().await {
            Ok(s) => s,
            Err(e) => {
                debug!(peer = from, error = %e, "connection ended");
                return;
            }
        };
        let tx = tx.clone();
        tokio::spawn(async move {
            match recv.read_to_end(max_message).await {
                Ok(bytes) => {
                    // An empty message is a probe: acknowledged, not delivered.
                    if !bytes.is_empty() && tx.send(Received { from, bytes }).await.is_err() {
                        let _ = send.reset(STOP_UNAVAILABLE.into());
                        return;
                    }
                    let _ = send.write_all(&[ACK_OK]).await;
                    let _ = send.finish();
                    let _ = send.stopped().await;
                }
                Err(quinn::ReadToEndError::TooLong) => {
                    warn!(peer = from, max_message, "refused an oversized message");
                    let _ = recv.stop(STOP_TOO_LARGE.into());
                    let _ = send.reset(STOP_TOO_LARGE.into());
                }
                Err(e) => debug!(peer = from, error = %e, "stream failed"),
            }
        });
    }
}
