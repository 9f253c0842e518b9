//! The hot role's operator-API routes (documented in `docs/node-api.yaml`). Every route
//! needs the bearer token; bodies are JSON with hex-encoded bytes; the library work runs on
//! a blocking thread.

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{BlsHot, BlsHotError};

/// The operator API's bearer-token check, supplied by the API (this module does not
/// depend on it).
pub type Authorize = Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>;

/// What the handlers share.
#[derive(Clone)]
pub struct RouteState {
    bls: Arc<BlsHot>,
    authorize: Authorize,
}

/// Largest body of a BLS route: a registration carries the CRS transcript and the record
/// (about 150 KiB at n = 100, hex-encoded).
pub const MAX_BLS_BODY: usize = 4 << 20;

/// `POST /v1/bls/keys/{key_id}/audit`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditRequest {
    /// The auditor's challenge block.
    pub block_id: u64,
}

/// The routes, merged into the operator API's router: `authorize` checks the bearer token.
pub fn router(bls: Arc<BlsHot>, authorize: Authorize) -> Router {
    Router::new()
        .route("/v1/bls/keys", post(register))
        .route("/v1/bls/keys/{key_id}", get(key))
        .route("/v1/bls/keys/{key_id}/audit", post(audit))
        .route("/v1/bls/keys/{key_id}/sign", post(sign))
        .route("/v1/bls/keys/{key_id}/refresh", post(refresh))
        .route("/v1/bls/keys/{key_id}/commit", post(commit))
        .layer(DefaultBodyLimit::max(MAX_BLS_BODY))
        .with_state(RouteState { bls, authorize })
}

fn error(status: StatusCode, body: Value) -> Response {
    (status, Json(body)).into_response()
}

fn respond(r: Result<Value, BlsHotError>) -> Response {
    let e = match r {
        Ok(v) => return Json(v).into_response(),
        Err(e) => e,
    };
    let msg = e.to_string();
    match e {
        BlsHotError::BadRequest(_) => error(StatusCode::BAD_REQUEST, json!({ "error": msg })),
        BlsHotError::Unauthorized(_) => error(StatusCode::FORBIDDEN, json!({ "error": msg })),
        BlsHotError::NotFound(_) => error(StatusCode::NOT_FOUND, json!({ "error": msg })),
        BlsHotError::Conflict(_) => error(StatusCode::CONFLICT, json!({ "error": msg })),
        BlsHotError::Rejected { culprit, .. } => {
            let culprit =
                culprit.map(|c| json!({ "role": c.role, "index": c.index, "node": c.node }));
            error(
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({ "error": msg, "culprit": culprit }),
            )
        }
        BlsHotError::UnknownCrs(id) => error(
            StatusCode::PRECONDITION_FAILED,
            json!({ "error": msg, "unknown_crs": id }),
        ),
        BlsHotError::Internal(_) => {
            error(StatusCode::INTERNAL_SERVER_ERROR, json!({ "error": msg }))
        }
    }
}

/// Authorises, parses the body and runs `f` on a blocking thread.
async fn run<T, F>(s: RouteState, headers: HeaderMap, body: &[u8], f: F) -> Response
where
    T: DeserializeOwned + Send + 'static,
    F: FnOnce(&BlsHot, T) -> Result<Value, BlsHotError> + Send + 'static,
{
    if !(s.authorize)(&headers) {
        return error(
            StatusCode::UNAUTHORIZED,
            json!({ "error": "missing or wrong bearer token" }),
        );
    }
    let req: T = match serde_json::from_slice(if body.is_empty() { b"null" } else { body }) {
        Ok(r) => r,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                json!({ "error": format!("malformed request: {e}") }),
            )
        }
    };
    let bls = s.bls.clone();
    match tokio::task::spawn_blocking(move || f(&bls, req)).await {
        Ok(r) => respond(r),
        Err(e) => respond(Err(BlsHotError::Internal(e.to_string()))),
    }
}

async fn register(
    State(s): State<RouteState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    run(s, headers, &body, |b, req| b.register(&req)).await
}

async fn key(
    State(s): State<RouteState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
) -> Response {
    run(s, headers, b"null", move |b, (): ()| b.key(&key_id)).await
}

async fn audit(
    State(s): State<RouteState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    run(s, headers, &body, move |b, req: AuditRequest| {
        b.audit(&key_id, req.block_id)
    })
    .await
}

async fn sign(
    State(s): State<RouteState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    run(s, headers, &body, move |b, req| b.sign(&key_id, &req)).await
}

async fn refresh(
    State(s): State<RouteState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    run(s, headers, &body, move |b, req| b.refresh(&key_id, &req)).await
}

async fn commit(
    State(s): State<RouteState>,
    headers: HeaderMap,
    Path(key_id): Path<String>,
    body: axum::body::Bytes,
) -> Response {
    run(s, headers, &body, move |b, req| b.commit(&key_id, &req)).await
}
