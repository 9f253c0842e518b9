//! A minimal client of the operator API for the CLI and tests: one HTTP/1.0 request per
//! connection on loopback, bounded response size, bearer token.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Largest response read.
pub const MAX_RESPONSE: usize = 16 << 20;

/// How long a refused connection is retried: a node that was just started opens its
/// keystore (Argon2id) before its operator API listens, which takes seconds on a loaded
/// machine. A node that is down fails after this grace, not after the request's timeout.
pub const STARTUP_GRACE: Duration = Duration::from_secs(10);

/// Pause between two connection attempts during [`STARTUP_GRACE`].
const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// Client errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Nothing listens at the address (after [`STARTUP_GRACE`] of retries).
    #[error(
        "operator API at {addr}: {source} (is `quorate node run` running for this node directory?)"
    )]
    NotListening {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
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
        let mut stream = connect(addr, timeout.min(STARTUP_GRACE)).await?;
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

/// Connects, retrying a refused connection for up to `grace` (see [`STARTUP_GRACE`]).
async fn connect(addr: SocketAddr, grace: Duration) -> Result<tokio::net::TcpStream, ClientError> {
    let give_up = tokio::time::Instant::now() + grace;
    loop {
        match tokio::net::TcpStream::connect(addr).await {
            Ok(stream) => return Ok(stream),
            Err(source) if source.kind() == std::io::ErrorKind::ConnectionRefused => {
                if tokio::time::Instant::now() + RETRY_PAUSE > give_up {
                    return Err(ClientError::NotListening { addr, source });
                }
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(source) => return Err(ClientError::Io { addr, source }),
        }
    }
}
