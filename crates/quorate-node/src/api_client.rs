//! A minimal client of the operator API for the CLI, tests and benchmarks: HTTP/1.1 on
//! loopback (hyper's client connection), bounded response size, bearer token. [`call`] sends
//! one request on a connection of its own; a [`Connection`] keeps one open for many.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::client::conn::http1::{handshake, SendRequest};
use hyper_util::rt::TokioIo;

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
    /// The HTTP exchange failed (the connection is not reusable).
    #[error("operator API at {addr}: {why}")]
    Http {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        why: String,
    },
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

/// Sends one request (`body` as JSON when given) on a connection of its own and returns the
/// response.
pub async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&[u8]>,
    timeout: Duration,
) -> Result<Response, ClientError> {
    let work = async {
        let mut conn = Connection::open(addr, timeout.min(STARTUP_GRACE)).await?;
        conn.send(method, path, token, body).await
    };
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| ClientError::Timeout(addr))?
}

/// One keep-alive HTTP/1.1 connection to an operator API (hyper's client connection):
/// requests go one after another on the same TCP connection, so a client that sends many
/// (the benchmark) pays for neither a TCP handshake nor the node's accept per request.
pub struct Connection {
    addr: SocketAddr,
    sender: SendRequest<Full<Bytes>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects, retrying a refused connection for up to `grace` (see [`STARTUP_GRACE`]).
    pub async fn open(addr: SocketAddr, grace: Duration) -> Result<Connection, ClientError> {
        let stream = connect(addr, grace).await?;
        let _ = stream.set_nodelay(true);
        let (sender, conn) =
            handshake(TokioIo::new(stream))
                .await
                .map_err(|e| ClientError::Http {
                    addr,
                    why: e.to_string(),
                })?;
        // The connection's I/O runs until the client side is dropped or the server closes.
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Connection { addr, sender })
    }

    /// Sends one request (`body` as JSON when given) and returns the response. After an
    /// error the connection is not reusable (open another).
    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<Response, ClientError> {
        let addr = self.addr;
        let http = |e: &dyn std::fmt::Display| ClientError::Http {
            addr,
            why: e.to_string(),
        };
        self.sender.ready().await.map_err(|e| http(&e))?;
        let body = body.unwrap_or_default();
        let mut req = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header(hyper::header::HOST, addr.to_string());
        if let Some(t) = token {
            req = req.header(hyper::header::AUTHORIZATION, format!("Bearer {t}"));
        }
        if !body.is_empty() {
            req = req.header(hyper::header::CONTENT_TYPE, "application/json");
        }
        let req = req
            .body(Full::new(Bytes::copy_from_slice(body)))
            .map_err(|e| http(&e))?;
        let resp = self.sender.send_request(req).await.map_err(|e| http(&e))?;
        let status = resp.status().as_u16();
        let body = Limited::new(resp.into_body(), MAX_RESPONSE)
            .collect()
            .await
            .map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    ClientError::BadResponse {
                        addr,
                        why: "response too large",
                    }
                } else {
                    http(&e)
                }
            })?
            .to_bytes();
        Ok(Response {
            status,
            body: body.to_vec(),
        })
    }
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
