//! A minimal `add-checkpoint` client over one keep-alive HTTP/1.1 connection (hyper): the
//! log side, for the process tests, the benchmark and operators' smoke tests.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::client::conn::http1::{handshake, SendRequest};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;

/// Largest response body read, in bytes.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// A client failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The connection failed.
    #[error("connect {addr}: {source}")]
    Connect {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The HTTP exchange failed.
    #[error("http: {0}")]
    Http(String),
}

/// An answer: status, content type, body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The `Content-Type` header (empty if absent).
    pub content_type: String,
    /// The body (lossy UTF-8).
    pub body: String,
}

/// One connection to a witness.
#[derive(Debug)]
pub struct WitnessClient {
    addr: SocketAddr,
    sender: SendRequest<Full<Bytes>>,
}

impl WitnessClient {
    /// Connects to the witness's public listener.
    pub async fn connect(addr: SocketAddr) -> Result<WitnessClient, ClientError> {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .map_err(|source| ClientError::Connect { addr, source })?;
        let _ = stream.set_nodelay(true);
        let (sender, conn) = handshake(TokioIo::new(stream))
            .await
            .map_err(|e| ClientError::Http(e.to_string()))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(WitnessClient { addr, sender })
    }

    /// Sends one `POST /add-checkpoint` with `body`.
    pub async fn add_checkpoint(&mut self, body: impl Into<Bytes>) -> Result<Answer, ClientError> {
        let http = |e: &dyn std::fmt::Display| ClientError::Http(e.to_string());
        self.sender.ready().await.map_err(|e| http(&e))?;
        let req = hyper::Request::post("/add-checkpoint")
            .header(hyper::header::HOST, self.addr.to_string())
            .body(Full::new(body.into()))
            .map_err(|e| http(&e))?;
        let resp = self.sender.send_request(req).await.map_err(|e| http(&e))?;
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = Limited::new(resp.into_body(), MAX_RESPONSE_BYTES)
            .collect()
            .await
            .map_err(|e| http(&e))?
            .to_bytes();
        Ok(Answer {
            status,
            content_type,
            body: String::from_utf8_lossy(&body).into_owned(),
        })
    }
}
