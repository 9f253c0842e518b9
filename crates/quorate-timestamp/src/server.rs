//! The timestamping HTTP server (axum on tokio). Its OpenAPI 3 document is
//! `docs/timestamp-api.json` (checked against this router by `tests/timestamp/openapi.rs`).
//!
//! | method and path | answer |
//! |---|---|
//! | `POST /v1/submit` | body: 64 hex characters (surrounding whitespace allowed) or 32 raw bytes. `200 {"ticket":"R-I-N","round":R,"index":I}` |
//! | `GET /v1/receipt/R-I-N[?wait=1]` | `200` receipt JSON once round R is signed and stored. Before that, `202 {"status":"pending"}`, or with `wait`, a long poll until it is signed (at most `max_wait`). `404` for an unknown ticket |
//! | `GET /v1/lookup/HASH` | `200` the receipt of the earliest signed leaf that is HASH (64 hex characters), for a client that lost its ticket. `404` if no signed round holds it (yet) |
//! | `GET /v1/roster` | the roster as a JSON array of hex roster entries, key ‖ proof of possession (the `--roster` file of `verify`) |
//! | `GET /v1/head` | the last signed round header with its signature, or `404` before the first |
//! | `GET /v1/round/N` | round N's header with its signature |
//!
//! **Cheap submits.** A submit parses the hash, appends it to the open batch under a mutex,
//! and answers at once with its ticket: the round number and its index in that round's
//! tree, and N, the 16-hex-digit nonce of this server run. No hashing and no signing happen
//! on the request path.
//!
//! **Tickets survive restarts, unacknowledged hashes do not.** A ticket is handed out before
//! its hash is durable: if the process dies before the round is sealed, that hash is lost
//! (the client gets no receipt and resubmits). The next run hands out the same round numbers
//! again, but under a new random nonce, and each stored round records the nonce of the run
//! that sealed it, so a ticket from the dead run is `404`, never another hash's receipt.
//!
//! **Rounds.** A sealer task wakes every `round_interval`, or as soon as the batch reaches
//! `max_batch`. It takes the batch (the next submit opens round R+1) and, on the blocking
//! pool, builds the tree, has the roster cosign the header and appends the round to the store
//! in one transaction. Only then is the round published to receipt readers. A failed round
//! (signing or store error) is retried with the same hashes and round number, so tickets stay
//! valid, and with the same header while its time is fresh (a witness that cosigned it must
//! not be asked for a conflicting one). The header is stored as the store's pending round
//! before the witnesses see it, so a server killed mid-signing asks for that same header
//! again at start (its tickets then get receipts too). An empty interval produces no round.
//!
//! **Back-pressure.** If more than `max_pending` hashes are waiting (the sealer has fallen
//! behind), submits get `503` until it catches up.
//!
//! **Shutdown** stops accepting connections, seals what is still in the batch (later submits
//! get `503`), then returns.

use super::store::{PendingRound, Store};
use anyhow::Context as _;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use quorate_cosi::timestamp::{
    build_tree, parse_hash_hex_bytes, ChainHead, Hash, IssuedRound, RootCosigner, RoundHeader,
    SignedRound,
};
use serde::Deserialize;
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

/// Tunables of the server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// How often a round is sealed (if anything was submitted).
    pub round_interval: Duration,
    /// Seal early once the open batch holds this many hashes.
    pub max_batch: usize,
    /// Refuse submits (503) while more hashes than this wait for a round.
    pub max_pending: usize,
    /// How many recent rounds (with their trees) are kept in memory for receipts.
    pub cache_rounds: usize,
    /// The longest a `?wait=1` receipt request is held.
    pub max_wait: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            round_interval: Duration::from_millis(250),
            max_batch: 100_000,
            max_pending: 2_000_000,
            cache_rounds: 16,
            max_wait: Duration::from_secs(30),
        }
    }
}

/// The batch being collected.
struct Pending {
    /// The round number the batch will get.
    round: u64,
    hashes: Vec<Hash>,
    /// Set when the sealer took the final batch at shutdown: later submits are refused, since
    /// no round would ever include them.
    closed: bool,
}

/// Old rounds loaded from the store, kept briefly for repeated lookups.
const OLD_CACHE: usize = 8;

struct Shared {
    config: ServerConfig,
    pending: Mutex<Pending>,
    batch_full: Notify,
    /// Recently signed rounds by number.
    recent: RwLock<BTreeMap<u64, Arc<IssuedRound>>>,
    /// Older rounds recently loaded from the store.
    old: Mutex<VecDeque<Arc<IssuedRound>>>,
    /// The highest signed and stored round (`None` before the first).
    signed: watch::Sender<Option<u64>>,
    store: Arc<Mutex<Store>>,
    cosigner: Arc<dyn RootCosigner>,
    roster_json: String,
    /// This run's random nonce, the last part of its tickets.
    instance: [u8; 8],
    /// The first round this run hands out tickets for: earlier rounds were sealed by
    /// earlier runs.
    first_round: u64,
}

/// A running server: its address, and a handle to stop it.
pub struct TimestampServer {
    addr: SocketAddr,
    shutdown: watch::Sender<bool>,
    http: JoinHandle<std::io::Result<()>>,
    sealer: JoinHandle<()>,
}

impl std::fmt::Debug for TimestampServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimestampServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding one of these locks leaves plain data behind; keep serving.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The roster as the JSON array of hex roster entries (public key ‖ proof of possession,
/// 96 bytes each) that `verify --roster` reads ([`quorate_cosi::Roster::from_json`]).
pub fn roster_json(cosigner: &dyn RootCosigner) -> String {
    let entries: Vec<String> = cosigner.roster_entries().iter().map(hex::encode).collect();
    serde_json::Value::from(entries).to_string()
}

impl TimestampServer {
    /// Starts serving on `listener` (call inside a tokio runtime). The chain continues from
    /// the last round in `store`, which must have been signed by the same roster.
    pub async fn start(
        listener: TcpListener,
        store: Store,
        cosigner: Arc<dyn RootCosigner>,
        config: ServerConfig,
    ) -> anyhow::Result<TimestampServer> {
        let addr = listener.local_addr()?;
        let last = store.last_header()?;
        if let Some(h) = &last {
            anyhow::ensure!(
                h.roster_id == cosigner.roster_id(),
                "the store's rounds were signed by roster {}, but this server's roster is {}",
                hex::encode(h.roster_id),
                hex::encode(cosigner.roster_id())
            );
        }
        let head = last
            .as_ref()
            .map_or_else(ChainHead::genesis, ChainHead::after);
        // A round the last run was cosigning when it stopped is asked for again unchanged.
        let resumed = store.pending()?.filter(|p| {
            let h = &p.header;
            h.round == head.next_round && h.prev == head.prev && h.roster_id == cosigner.roster_id()
        });
        let first_round = head.next_round + u64::from(resumed.is_some());
        let (signed, _) = watch::channel(last.map(|h| h.round));
        let mut instance = [0u8; 8];
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut instance);
        let shared = Arc::new(Shared {
            instance,
            first_round,
            pending: Mutex::new(Pending {
                round: first_round,
                hashes: Vec::new(),
                closed: false,
            }),
            batch_full: Notify::new(),
            recent: RwLock::new(BTreeMap::new()),
            old: Mutex::new(VecDeque::new()),
            signed,
            store: Arc::new(Mutex::new(store)),
            roster_json: roster_json(cosigner.as_ref()),
            cosigner,
            config,
        });
        let (shutdown, _) = watch::channel(false);

        let app = Router::new()
            .route("/v1/submit", post(submit))
            .route("/v1/receipt/{ticket}", get(receipt))
            .route("/v1/lookup/{hash}", get(lookup))
            .route("/v1/roster", get(roster))
            .route("/v1/head", get(head_round))
            .route("/v1/round/{n}", get(round_by_number))
            .with_state(shared.clone());
        let mut http_stop = shutdown.subscribe();
        let http = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = http_stop.wait_for(|s| *s).await;
                })
                .await
        });
        let sealer = tokio::spawn(sealer(shared, head, resumed, shutdown.subscribe()));
        Ok(TimestampServer {
            addr,
            shutdown,
            http,
            sealer,
        })
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting requests, seals the open batch, and waits for both to finish.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        self.shutdown.send_replace(true);
        let http = self.http.await.context("HTTP task panicked")?;
        self.sealer.await.context("sealer task panicked")?;
        http.context("HTTP server failed")
    }
}

/// A prepared header is asked for again on a retry while its time is this fresh; after that a
/// retry prepares a new one (witnesses check round times against their clocks).
const REUSE_HEADER_MS: u64 = 5_000;

/// A batch to seal: its hashes, the instance nonce of the run whose tickets name it, and the
/// header already prepared for it (asked for again unchanged, so that witnesses that
/// cosigned it are not asked to cosign a conflicting one).
struct Batch {
    round: u64,
    hashes: Vec<Hash>,
    instance: [u8; 8],
    prepared: Option<RoundHeader>,
}

async fn sealer(
    shared: Arc<Shared>,
    mut head: ChainHead,
    resumed: Option<PendingRound>,
    mut shutdown: watch::Receiver<bool>,
) {
    // The first tick is one interval after start (`interval` would fire at once).
    let period = shared.config.round_interval;
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut carried = resumed.map(|p| Batch {
        round: p.header.round,
        hashes: p.hashes,
        instance: <[u8; 8]>::try_from(p.instance.as_slice()).unwrap_or_default(),
        prepared: Some(p.header),
    });
    loop {
        let (batch, stopping) = match carried.take() {
            Some(b) => (Some(b), *shutdown.borrow()),
            None => {
                let already_stopping = *shutdown.borrow();
                let stopping = already_stopping
                    || tokio::select! {
                        _ = ticker.tick() => false,
                        () = shared.batch_full.notified() => false,
                        _ = shutdown.changed() => true,
                    };
                let mut p = lock(&shared.pending);
                p.closed = stopping;
                let batch = if p.hashes.is_empty() {
                    None
                } else {
                    let hashes = std::mem::take(&mut p.hashes);
                    let round = p.round;
                    p.round += 1;
                    Some(Batch {
                        round,
                        hashes,
                        instance: shared.instance,
                        prepared: None,
                    })
                };
                (batch, stopping)
            }
        };
        if let Some(mut batch) = batch {
            debug_assert_eq!(batch.round, head.next_round);
            let mut attempt = 0u32;
            loop {
                let fixed = batch
                    .prepared
                    .filter(|h| now_ms().saturating_sub(h.time_ms) < REUSE_HEADER_MS);
                let (tried, result) = seal_and_store(&shared, head, &batch, fixed).await;
                batch.prepared = tried;
                match result {
                    Ok(issued) => {
                        head = ChainHead::after(issued.header());
                        publish(&shared, issued);
                        break;
                    }
                    Err(e) => {
                        attempt += 1;
                        eprintln!(
                            "error: sealing round {} (attempt {attempt}): {e:#}",
                            batch.round
                        );
                        if stopping && attempt >= 3 {
                            eprintln!(
                                "error: giving up on round {}; its {} tickets get no receipt",
                                batch.round,
                                batch.hashes.len()
                            );
                            return;
                        }
                        tokio::time::sleep(Duration::from_millis(100 * u64::from(attempt.min(20))))
                            .await;
                    }
                }
            }
        }
        if stopping {
            return;
        }
    }
}

/// Builds (or reuses) the round header, records it as pending, has the witnesses cosign it
/// and appends the signed round. Returns the header tried, for a retry.
async fn seal_and_store(
    shared: &Arc<Shared>,
    head: ChainHead,
    batch: &Batch,
    fixed: Option<RoundHeader>,
) -> (Option<RoundHeader>, anyhow::Result<IssuedRound>) {
    let cosigner = shared.cosigner.clone();
    let store = shared.store.clone();
    let instance = batch.instance;
    let hashes = batch.hashes.clone();
    let task = tokio::task::spawn_blocking(move || {
        let tree = build_tree(&hashes);
        let header = fixed.unwrap_or(RoundHeader {
            roster_id: cosigner.roster_id(),
            round: head.next_round,
            time_ms: now_ms().max(head.last_time_ms),
            tree_size: tree.size(),
            prev: head.prev,
            root: tree.root(),
        });
        let result = (|| {
            lock(&store).set_pending(&header, &hashes, &instance)?;
            let signature = cosigner.cosign(&header.message())?;
            let issued = IssuedRound {
                signed: SignedRound { header, signature },
                hashes,
                tree,
            };
            lock(&store).append(&issued, &instance)?;
            Ok(issued)
        })();
        (Some(header), result)
    });
    match task.await {
        Ok(r) => r,
        Err(e) => (fixed, Err(anyhow::anyhow!("sealing task panicked: {e}"))),
    }
}

fn publish(shared: &Shared, issued: IssuedRound) {
    let round = issued.header().round;
    {
        let mut recent = shared
            .recent
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        recent.insert(round, Arc::new(issued));
        while recent.len() > shared.config.cache_rounds.max(1) {
            recent.pop_first();
        }
    }
    shared.signed.send_replace(Some(round));
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn error_response(status: StatusCode, message: &str) -> Response {
    json_response(status, serde_json::json!({ "error": message }).to_string())
}

/// Parses a submitted hash: 32 raw bytes, or 64 hex characters with optional whitespace.
fn parse_submission(body: &[u8]) -> Option<Hash> {
    if body.len() == 32 {
        let mut h = [0u8; 32];
        h.copy_from_slice(body);
        return Some(h);
    }
    parse_hash_hex_bytes(body)
}

async fn submit(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let Some(hash) = parse_submission(&body) else {
        return error_response(
            StatusCode::BAD_REQUEST,
            "body must be a 32-byte hash: 64 hex characters or 32 raw bytes",
        );
    };
    let (round, index, full) = {
        let mut p = lock(&shared.pending);
        if p.closed {
            drop(p);
            return error_response(StatusCode::SERVICE_UNAVAILABLE, "server is shutting down");
        }
        if p.hashes.len() >= shared.config.max_pending {
            drop(p);
            return error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many hashes waiting for a round; retry shortly",
            );
        }
        let index = p.hashes.len();
        p.hashes.push(hash);
        (p.round, index, p.hashes.len() >= shared.config.max_batch)
    };
    if full {
        shared.batch_full.notify_one();
    }
    json_response(
        StatusCode::OK,
        format!(
            r#"{{"ticket":"{round}-{index}-{}","round":{round},"index":{index}}}"#,
            hex::encode(shared.instance)
        ),
    )
}

/// `?wait=1` (or `true`) asks for a long poll.
#[derive(Debug, Deserialize)]
struct WaitQuery {
    wait: Option<String>,
}

/// `ROUND-INDEX-INSTANCE`: two decimal numbers and the 8-byte run nonce in hex.
fn parse_ticket(ticket: &str) -> Option<(u64, u64, [u8; 8])> {
    let mut parts = ticket.split('-');
    let round = parts.next()?.parse().ok()?;
    let index = parts.next()?.parse().ok()?;
    let mut instance = [0u8; 8];
    hex::decode_to_slice(parts.next()?, &mut instance).ok()?;
    parts.next().is_none().then_some((round, index, instance))
}

/// Whether round `round`'s tickets were handed out by the run with nonce `instance`.
async fn issued_by(shared: &Arc<Shared>, round: u64, instance: [u8; 8]) -> anyhow::Result<bool> {
    if round >= shared.first_round {
        return Ok(instance == shared.instance);
    }
    let store = shared.store.clone();
    let stored = tokio::task::spawn_blocking(move || lock(&store).round_instance(round))
        .await
        .context("store task panicked")??;
    Ok(stored.is_some_and(|s| s == instance))
}

async fn issued_round(
    shared: &Arc<Shared>,
    round: u64,
) -> anyhow::Result<Option<Arc<IssuedRound>>> {
    if let Some(r) = shared
        .recent
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&round)
    {
        return Ok(Some(r.clone()));
    }
    if let Some(r) = lock(&shared.old).iter().find(|r| r.header().round == round) {
        return Ok(Some(r.clone()));
    }
    let store = shared.store.clone();
    let loaded = tokio::task::spawn_blocking(move || lock(&store).load_issued(round))
        .await
        .context("store task panicked")??;
    Ok(loaded.map(|r| {
        let r = Arc::new(r);
        let mut old = lock(&shared.old);
        old.push_back(r.clone());
        while old.len() > OLD_CACHE {
            old.pop_front();
        }
        r
    }))
}

async fn receipt(
    State(shared): State<Arc<Shared>>,
    Path(ticket): Path<String>,
    Query(query): Query<WaitQuery>,
) -> Response {
    let Some((round, index, instance)) = parse_ticket(&ticket) else {
        return error_response(
            StatusCode::BAD_REQUEST,
            "a ticket looks like ROUND-INDEX-INSTANCE",
        );
    };
    let open_round = lock(&shared.pending).round;
    if round > open_round {
        return error_response(StatusCode::NOT_FOUND, "no such ticket");
    }
    match issued_by(&shared, round, instance).await {
        Ok(true) => {}
        Ok(false) => return error_response(StatusCode::NOT_FOUND, "no such ticket"),
        Err(e) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
    }
    let is_signed = |s: &Option<u64>| s.is_some_and(|s| s >= round);
    if !is_signed(&shared.signed.borrow()) {
        let wait = query
            .wait
            .as_deref()
            .is_some_and(|w| !matches!(w, "0" | "false" | "no"));
        let mut rx = shared.signed.subscribe();
        let signed_in_time = wait
            && tokio::time::timeout(shared.config.max_wait, rx.wait_for(is_signed))
                .await
                .is_ok_and(|r| r.is_ok());
        if !signed_in_time {
            return json_response(StatusCode::ACCEPTED, r#"{"status":"pending"}"#.to_owned());
        }
    }
    match issued_round(&shared, round).await {
        Ok(Some(issued)) => match issued.receipt(index) {
            Some(receipt) => json_response(StatusCode::OK, receipt.to_json()),
            None => error_response(StatusCode::NOT_FOUND, "no such ticket"),
        },
        Ok(None) => error_response(StatusCode::NOT_FOUND, "no such ticket"),
        Err(e) => error_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
    }
}

async fn lookup(State(shared): State<Arc<Shared>>, Path(hash): Path<String>) -> Response {
    let Some(hash) = parse_hash_hex_bytes(hash.as_bytes()) else {
        return error_response(
            StatusCode::BAD_REQUEST,
            "the hash must be 64 hex characters",
        );
    };
    let store = shared.store.clone();
    let found = match tokio::task::spawn_blocking(move || lock(&store).find_hash(&hash)).await {
        Ok(Ok(found)) => found,
        Ok(Err(e)) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
        Err(e) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let Some((round, index)) = found else {
        return error_response(StatusCode::NOT_FOUND, "no signed round holds this hash");
    };
    match issued_round(&shared, round).await {
        Ok(Some(issued)) => match issued.receipt(index) {
            Some(receipt) => json_response(StatusCode::OK, receipt.to_json()),
            None => error_response(StatusCode::NOT_FOUND, "no signed round holds this hash"),
        },
        Ok(None) => error_response(StatusCode::NOT_FOUND, "no signed round holds this hash"),
        Err(e) => error_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
    }
}

async fn roster(State(shared): State<Arc<Shared>>) -> Response {
    json_response(StatusCode::OK, shared.roster_json.clone())
}

async fn signed_round(shared: &Arc<Shared>, round: u64) -> Response {
    match issued_round(shared, round).await {
        Ok(Some(r)) => json_response(StatusCode::OK, r.signed.to_json()),
        Ok(None) => error_response(StatusCode::NOT_FOUND, "no such round"),
        Err(e) => error_response(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
    }
}

async fn head_round(State(shared): State<Arc<Shared>>) -> Response {
    let last = *shared.signed.borrow();
    match last {
        Some(r) => signed_round(&shared, r).await,
        None => error_response(StatusCode::NOT_FOUND, "no round signed yet"),
    }
}

async fn round_by_number(State(shared): State<Arc<Shared>>, Path(n): Path<String>) -> Response {
    match n.parse::<u64>() {
        Ok(n) => signed_round(&shared, n).await,
        Err(_) => error_response(StatusCode::BAD_REQUEST, "round must be a number"),
    }
}
