//! The operator API: HTTP/JSON on a loopback address only, every endpoint but `/health`
//! behind a bearer token. Documented in `docs/node-api.yaml` (OpenAPI 3).
//!
//! | method | path | what |
//! |---|---|---|
//! | GET | `/health` | liveness (no token) |
//! | GET | `/metrics` | Prometheus text, with `quorate_session_waiting_for` gauges |
//! | POST | `/v1/sessions` | run a session as coordinator (idempotent by `request_id`) |
//! | GET | `/v1/sessions` | every request this node coordinated |
//! | GET | `/v1/sessions/{request_id}` | one request's record |
//! | GET | `/v1/waiting` | sessions waiting, with "waiting for node 3 in round 2" |
//! | GET | `/v1/keys` | the keys this node holds (public facts) |
//! | GET | `/v1/keys/{key_id}` | one key: protocol, epoch, threshold, holders, public key |
//! | POST | `/v1/keys/{key_id}/resolve` | resolve an ECDSA key's pending epoch ([`crate::session::ecdsa::recovery::operator_resolve`]) |
//! | | `/v1/bls/…` | the BLS hot role ([`crate::session::bls`]) |

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub use crate::key_directory::KeyDirectory;
use crate::session::ecdsa::recovery::{operator_resolve, OperatorResolve, OperatorResolveError};
use crate::session::ecdsa::EcdsaNode;
use crate::session::{RequestStatus, Runtime, SessionError, SessionRequest};

/// Largest request body accepted.
pub const MAX_BODY: usize = 64 * 1024;

/// What the handlers share.
#[derive(Clone)]
pub struct ApiState {
    runtime: Arc<Runtime>,
    token_hash: [u8; 32],
    keys: Option<Arc<dyn KeyDirectory>>,
    bls: Option<Arc<crate::session::bls::BlsHot>>,
    /// The ECDSA keys and the status-session round timeout, for `/v1/keys/{key_id}/resolve`.
    ecdsa: Option<(Arc<EcdsaNode>, std::time::Duration)>,
}

impl std::fmt::Debug for ApiState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiState")
            .field("token", &"<redacted>")
            .finish_non_exhaustive()
    }
}

impl ApiState {
    /// State for `runtime`, accepting `token` as the bearer token (only its hash is kept).
    pub fn new(runtime: Arc<Runtime>, token: &str) -> Self {
        Self {
            runtime,
            token_hash: Sha256::digest(token.as_bytes()).into(),
            keys: None,
            bls: None,
            ecdsa: None,
        }
    }

    /// Serves `/v1/bls/…` from `bls`.
    pub fn with_bls(mut self, bls: Option<Arc<crate::session::bls::BlsHot>>) -> Self {
        self.bls = bls;
        self
    }

    /// Serves `POST /v1/keys/{key_id}/resolve` for the ECDSA keys of `node`, whose status
    /// sessions wait `round_timeout` per round.
    pub fn with_ecdsa(
        mut self,
        node: Option<Arc<EcdsaNode>>,
        round_timeout: std::time::Duration,
    ) -> Self {
        self.ecdsa = node.map(|n| (n, round_timeout));
        self
    }

    /// Serves `/v1/keys` from `keys`.
    pub fn with_keys(mut self, keys: Option<Arc<dyn KeyDirectory>>) -> Self {
        self.keys = keys;
        self
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return false;
        };
        let Some(token) = value.to_str().ok().and_then(|v| v.strip_prefix("Bearer ")) else {
            return false;
        };
        let h: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        h.ct_eq(&self.token_hash).into()
    }
}

/// API errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// The address is not a loopback address.
    #[error("the operator API listens on loopback only, not on {0}")]
    NotLoopback(SocketAddr),
    /// Socket failure.
    #[error("operator API on {addr}: {source}")]
    Io {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
}

fn error(status: StatusCode, msg: impl Into<String>) -> Response {
    (status, Json(json!({ "error": msg.into() }))).into_response()
}

fn unauthorized() -> Response {
    error(StatusCode::UNAUTHORIZED, "missing or wrong bearer token")
}

/// The router (exposed for in-process tests).
pub fn router(state: ApiState) -> Router {
    let bls = state.bls.clone().map(|bls| {
        let auth = state.clone();
        crate::session::bls::routes::router(bls, Arc::new(move |h: &HeaderMap| auth.authorized(h)))
    });
    let api = Router::new()
        .route("/health", get(health))
        .route("/metrics", get(metrics))
        .route("/v1/sessions", get(list_sessions).post(submit))
        .route("/v1/sessions/{request_id}", get(get_session))
        .route("/v1/waiting", get(waiting))
        .route("/v1/keys", get(list_keys))
        .route("/v1/keys/{key_id}", get(get_key))
        .route("/v1/keys/{key_id}/resolve", post(resolve_key))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state);
    match bls {
        Some(bls) => api.merge(bls),
        None => api,
    }
}

/// Binds the API listener, refusing any non-loopback address.
pub async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, ApiError> {
    if !addr.ip().is_loopback() {
        return Err(ApiError::NotLoopback(addr));
    }
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ApiError::Io { addr, source })
}

/// Serves the API until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: ApiState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Liveness, and whether the keystore reads: every sealed secret of a live epoch opens
/// (checked at most once a second). `degraded` lists the ones that do not; the status code
/// stays 200 (the process is alive and serves what it can).
async fn health(State(s): State<ApiState>) -> Response {
    let problems = match &s.keys {
        Some(k) => {
            let k = k.clone();
            tokio::task::spawn_blocking(move || k.problems())
                .await
                .unwrap_or_else(|e| vec![json!({ "error": e.to_string() })])
        }
        None => Vec::new(),
    };
    let mut body = json!({
        "status": if problems.is_empty() { "ok" } else { "degraded" },
        "node": s.runtime.self_id(),
        "version": env!("CARGO_PKG_VERSION"),
    });
    if !problems.is_empty() {
        body["keystore"] = json!(problems);
    }
    Json(body).into_response()
}

async fn metrics(State(s): State<ApiState>, headers: HeaderMap) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        s.runtime.metrics().render(),
    )
        .into_response()
}

async fn waiting(State(s): State<ApiState>, headers: HeaderMap) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    let list: Vec<_> = s
        .runtime
        .metrics()
        .waiting()
        .into_iter()
        .map(|w| {
            json!({
                "session": w.session,
                "request_id": w.request_id,
                "round": w.round,
                "nodes": w.nodes,
                "description": w.describe(),
            })
        })
        .collect();
    Json(json!({ "waiting": list })).into_response()
}

async fn submit(
    State(s): State<ApiState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    let req: SessionRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return error(StatusCode::BAD_REQUEST, format!("malformed request: {e}")),
    };
    match s.runtime.submit(req).await {
        Ok(record) => {
            let status = match record.status {
                RequestStatus::Running => StatusCode::ACCEPTED,
                _ => StatusCode::OK,
            };
            (status, Json(record)).into_response()
        }
        Err(SessionError::Aborted(record)) => (StatusCode::OK, Json(*record)).into_response(),
        Err(e @ SessionError::BadRequest(_)) => error(StatusCode::BAD_REQUEST, e.to_string()),
        Err(e @ SessionError::RequestIdReused(_)) => error(StatusCode::CONFLICT, e.to_string()),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn list_sessions(State(s): State<ApiState>, headers: HeaderMap) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    match s.runtime.requests() {
        Ok(list) => Json(json!({ "sessions": list })).into_response(),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn get_session(
    State(s): State<ApiState>,
    headers: HeaderMap,
    Path(request_id): Path<String>,
) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    match s.runtime.request(&request_id) {
        Ok(Some(r)) => Json(r).into_response(),
        Ok(None) => error(StatusCode::NOT_FOUND, "no such request id"),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

async fn list_keys(State(s): State<ApiState>, headers: HeaderMap) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    let list = match &s.keys {
        Some(k) => k.keys(),
        None => Ok(vec![]),
    };
    match list {
        Ok(list) => Json(json!({ "keys": list })).into_response(),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
}

async fn get_key(
    State(s): State<ApiState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    let found = match &s.keys {
        Some(k) => k.key(&key_id),
        None => Ok(None),
    };
    match found {
        Ok(Some(v)) => Json(v).into_response(),
        Ok(None) => error(StatusCode::NOT_FOUND, "no such key on this node"),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
}

async fn resolve_key(
    State(s): State<ApiState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    if !s.authorized(&headers) {
        return unauthorized();
    }
    let req: OperatorResolve = if body.is_empty() {
        OperatorResolve::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(r) => r,
            Err(e) => return error(StatusCode::BAD_REQUEST, format!("malformed request: {e}")),
        }
    };
    let Some((node, timeout)) = &s.ecdsa else {
        return error(StatusCode::NOT_FOUND, "no such key on this node");
    };
    match operator_resolve(node, &s.runtime, &key_id, &req, *timeout).await {
        Ok(v) => Json(v).into_response(),
        Err(OperatorResolveError::BadRequest(e)) => error(StatusCode::BAD_REQUEST, e),
        Err(OperatorResolveError::NoSuchKey) => {
            error(StatusCode::NOT_FOUND, "no such key on this node")
        }
        Err(OperatorResolveError::Conflict(e)) => error(StatusCode::CONFLICT, e),
        Err(OperatorResolveError::Internal(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
}
