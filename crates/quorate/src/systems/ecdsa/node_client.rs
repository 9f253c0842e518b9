//! The operator-API client behind `quorate ecdsa keygen | sign | refresh --node DIR`: finds
//! the node's API address (`node.toml`) and bearer token (`api.token`) in its directory,
//! submits a session under an operator request id and waits (bounded) for its result.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use quorate_node::api_client::{call, ClientError};
use quorate_node::nodedir::NodeDir;
use serde_json::Value;
use zeroize::Zeroizing;

/// Why a client command failed; decides its exit code.
#[derive(Debug)]
#[non_exhaustive]
pub enum CmdError {
    /// Bad input or configuration (exit 2).
    Input(String),
    /// The protocol aborted (exit 1), naming culprits when it could.
    Abort {
        /// What happened.
        error: String,
        /// Culprits' node ids.
        culprits: Vec<u16>,
    },
}

impl CmdError {
    pub(crate) fn input(e: impl std::fmt::Display) -> Self {
        CmdError::Input(e.to_string())
    }
}

/// A node's operator API, as reached through its directory.
pub struct NodeClient {
    api: SocketAddr,
    token: Zeroizing<String>,
    rt: tokio::runtime::Runtime,
}

impl std::fmt::Debug for NodeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeClient")
            .field("api", &self.api)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// Time allowed for one API call that does not run a session.
pub(crate) const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// Pause between polls of a running request.
const POLL_EVERY: Duration = Duration::from_millis(200);

impl NodeClient {
    /// The API of the node in `dir`.
    pub fn open(dir: &Path) -> Result<Self, CmdError> {
        let nd = NodeDir::open(dir).map_err(CmdError::input)?;
        let config = nd.config().map_err(CmdError::input)?;
        let token = nd.api_token().map_err(CmdError::input)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| CmdError::Input(format!("async runtime: {e}")))?;
        Ok(Self {
            api: config.api,
            token: Zeroizing::new(token.as_str().to_string()),
            rt,
        })
    }

    /// One API call: the status and the JSON body (`Null` when the body is not JSON).
    pub(crate) fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<(u16, Value), ClientError> {
        let body = body.map(|b| b.to_string());
        let r = self.rt.block_on(call(
            self.api,
            method,
            path,
            Some(self.token.as_str()),
            body.as_deref().map(str::as_bytes),
            timeout,
        ))?;
        let v = r.json().unwrap_or(Value::Null);
        Ok((r.status, v))
    }

    pub(crate) fn unreachable(&self, e: ClientError) -> CmdError {
        match e {
            // Its message already asks whether the node runs.
            ClientError::NotListening { .. } => CmdError::Input(e.to_string()),
            e => CmdError::Input(format!(
                "{e} (is `quorate node run` running for this directory?)"
            )),
        }
    }

    /// `GET /v1/keys/{key_id}`: the key's public facts on this node.
    pub fn key(&self, key_id: &str) -> Result<Value, CmdError> {
        if !valid_name(key_id) {
            return Err(CmdError::Input(
                "key id must be 1..=128 characters of [A-Za-z0-9._:-]".into(),
            ));
        }
        let (status, v) = self
            .call("GET", &format!("/v1/keys/{key_id}"), None, CALL_TIMEOUT)
            .map_err(|e| self.unreachable(e))?;
        match status {
            200 => Ok(v),
            404 => Err(CmdError::Input(format!(
                "this node holds no key {key_id:?}"
            ))),
            _ => Err(api_error(status, &v)),
        }
    }

    /// Whether this node holds `key_id` (an active epoch).
    pub fn key_exists(&self, key_id: &str) -> Result<bool, CmdError> {
        match self.key(key_id) {
            Ok(_) => Ok(true),
            Err(CmdError::Input(e)) if e.starts_with("this node holds no key") => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Whether this node has a record of `request_id` (`GET /v1/sessions/{request_id}`).
    pub fn request_known(&self, request_id: &str) -> Result<bool, CmdError> {
        let (status, v) = self
            .call(
                "GET",
                &format!("/v1/sessions/{request_id}"),
                None,
                CALL_TIMEOUT,
            )
            .map_err(|e| self.unreachable(e))?;
        match status {
            200 => Ok(true),
            404 => Ok(false),
            _ => Err(api_error(status, &v)),
        }
    }

    /// `POST /v1/keys/{key_id}/resolve` with `body`, waiting up to `limit`.
    pub fn resolve(&self, key_id: &str, body: &Value, limit: Duration) -> Result<Value, CmdError> {
        let (status, v) = self
            .call(
                "POST",
                &format!("/v1/keys/{key_id}/resolve"),
                Some(body),
                limit,
            )
            .map_err(|e| self.unreachable(e))?;
        match status {
            200 => Ok(v),
            404 => Err(CmdError::Input(format!(
                "this node holds no key {key_id:?}"
            ))),
            409 => Err(CmdError::Abort {
                error: v["error"].as_str().unwrap_or("conflict").to_string(),
                culprits: vec![],
            }),
            _ => Err(api_error(status, &v)),
        }
    }

    /// Submits `request` (`POST /v1/sessions`) and waits up to `limit` for its outcome:
    /// the protocol's output, or [`CmdError::Abort`].
    pub fn run_session(&self, request: &Value, limit: Duration) -> Result<Value, CmdError> {
        let request_id = request["request_id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let start = Instant::now();
        let mut record = match self.call("POST", "/v1/sessions", Some(request), limit) {
            Ok((200 | 202, v)) => v,
            Ok((status, v)) => return Err(api_error(status, &v)),
            Err(ClientError::Timeout(_)) => Value::Null,
            Err(e) => return Err(self.unreachable(e)),
        };
        loop {
            match record["status"].as_str() {
                Some("completed") => return Ok(record["output"].clone()),
                Some("aborted") => {
                    return Err(CmdError::Abort {
                        error: record["error"].as_str().unwrap_or("aborted").to_string(),
                        culprits: record["culprits"]
                            .as_array()
                            .map(|a| {
                                a.iter()
                                    .filter_map(|c| c.as_u64())
                                    .filter_map(|c| u16::try_from(c).ok())
                                    .collect()
                            })
                            .unwrap_or_default(),
                    })
                }
                _ => {}
            }
            if start.elapsed() >= limit {
                return Err(CmdError::Abort {
                    error: format!(
                        "request {request_id} did not finish within {} s",
                        limit.as_secs()
                    ),
                    culprits: vec![],
                });
            }
            std::thread::sleep(POLL_EVERY);
            record = match self.call(
                "GET",
                &format!("/v1/sessions/{request_id}"),
                None,
                CALL_TIMEOUT,
            ) {
                Ok((200, v)) => v,
                Ok((404, _)) => Value::Null,
                Ok((status, v)) => return Err(api_error(status, &v)),
                Err(e) => return Err(self.unreachable(e)),
            };
        }
    }
}

fn api_error(status: u16, v: &Value) -> CmdError {
    let msg = v["error"].as_str().unwrap_or("no error message");
    CmdError::Input(format!("node API answered {status}: {msg}"))
}

/// Key and request ids: 1..=128 characters of `[A-Za-z0-9._:-]`.
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}
