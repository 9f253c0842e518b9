//! A minimal client of the operator API for the CLI and tests: one HTTP/1.0 request per
//! connection on loopback, bounded response size, bearer token.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Largest response read.
pub const MAX_RESPONSE: usize = 16 << 20;

/// Client errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Connection or I/O failure.
    #[error("operator API at {addr}: {source}")]
    Io {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
    /// No answer in time.
    #[error("operator API at {0}: timed out")]
    Timeout(SocketAddr),
    /// Not an HTTP response we understand, or too large.
    #[error("operator API at {addr}: bad response: {why}")]
    BadResponse {
        /// Address.
        addr: SocketAddr,
        /// What was wrong.
        why: &'static str,
    },
}

/// A response: status code and body bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// Body.
    pub body: Vec<u8>,
}

impl Response {
    /// The body parsed as JSON.
    pub fn json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }
}

/// Sends one request (`body` as JSON when given) and returns the response.
pub async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
    timeout: Duration,
) -> Result<Response, ClientError> {
    let io = |source| ClientError::Io { addr, source };
    let bad = |why| ClientError::BadResponse { addr, why };
    let work = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.map_err(io)?;
        let mut req = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n");
        if let Some(t) = token {
            req.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        let body = body.unwrap_or_default();
        if !body.is_empty() {
            req.push_str("Content-Type: application/json\r\n");
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        stream.write_all(req.as_bytes()).await.map_err(io)?;
        stream.write_all(body).await.map_err(io)?;
        let mut buf = Vec::new();
        (&mut stream)
            .take(MAX_RESPONSE as u64 + 1)
            .read_to_end(&mut buf)
            .await
            .map_err(io)?;
        if buf.len() > MAX_RESPONSE {
            return Err(bad("response too large"));
        }
        let split = buf
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or_else(|| bad("no header terminator"))?;
        let head = std::str::from_utf8(&buf[..split]).map_err(|_| bad("non-UTF-8 header"))?;
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or_else(|| bad("no status code"))?;
        Ok(Response {
            status,
            body: buf[split + 4..].to_vec(),
        })
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| ClientError::Timeout(addr))?
}
