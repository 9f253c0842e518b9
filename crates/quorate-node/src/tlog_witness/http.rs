//! The node's public HTTP listener: `POST /add-checkpoint` (C2SP tlog-witness), served by
//! axum. Request bodies above [`MAX_REQUEST_BYTES`] are refused with 413 before they are
//! read in full; other methods get 405 and other paths 404.

use super::request::MAX_REQUEST_BYTES;
use super::service::Witness;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;

/// The public listener's routes.
pub fn router(witness: Arc<Witness>) -> Router {
    Router::new()
        .route("/add-checkpoint", post(add_checkpoint))
        .layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES))
        .with_state(witness)
}

async fn add_checkpoint(State(w): State<Arc<Witness>>, body: Bytes) -> Response {
    let reply = w.add_checkpoint(&body).await;
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        [(header::CONTENT_TYPE, reply.content_type)],
        reply.body,
    )
        .into_response()
}

/// Binds the public listener.
pub async fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr).await
}

/// Serves the public listener until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    witness: Arc<Witness>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(witness))
        .with_graceful_shutdown(shutdown)
        .await
}
