//! The node configuration file (`node.toml`).
//!
//! ```toml
//! format = 1
//! id = 1
//! name = "alice"
//! public_key = "<64 hex digits>"   # must match the identity key in the keystore
//! listen = "0.0.0.0:7001"          # the transport binds here
//! address = "alice.example:7001"   # peers dial this (the public entry's address)
//! api = "127.0.0.1:8001"           # the operator API; loopback only
//! public_http = "alice.example:80" # optional
//! witness_vkey = "alice+…+…"      # the tlog-witness cosignature/v1 verifier key (optional:
//!                                  # absent in directories made before witness keys)
//!
//! [policy]                         # optional: which sessions this node takes part in
//! coordinators = [1, 2]            # (see `session::policy` for every rule)
//! ```
//!
//! The `[policy]` section is read when `quorate node run` starts: a change takes effect at
//! the next restart.
//!
//! Unknown fields are refused, so a misspelt setting is an error rather than silently
//! ignored.

use crate::fsutil::{self, FileError};
use crate::identity::{parse_public_key_hex, NodeId};
use crate::roster::{validate_address, validate_name};
use crate::session::policy::PolicyConfig;
use crate::tlog_witness::note::{Verifier, SIG_TYPE_COSIGNATURE_V1};
use ed25519_dalek::VerifyingKey;
use std::net::SocketAddr;
use std::path::Path;

/// The config format version.
pub const FORMAT: u32 = 1;

/// A configuration failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The file is not valid TOML of the expected shape.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A field is invalid.
    #[error("invalid node config: {0}")]
    Invalid(String),
}

/// The node's configuration.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    /// Format version ([`FORMAT`]).
    pub format: u32,
    /// The node id.
    pub id: NodeId,
    /// The node's name.
    pub name: String,
    /// The identity public key, hex.
    pub public_key: String,
    /// The transport's bind address.
    pub listen: SocketAddr,
    /// The address peers dial (`HOST:PORT`).
    pub address: String,
    /// The operator API's bind address (loopback).
    pub api: SocketAddr,
    /// An optional public HTTP endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_http: Option<String>,
    /// The note verifier key of the node's tlog-witness cosignature/v1 key (its secret half
    /// is sealed in the keystore; see [`crate::tlog_witness::key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness_vkey: Option<String>,
    /// The operator's session policy (`[policy]`; accepts everything when absent).
    #[serde(default, skip_serializing_if = "PolicyConfig::is_empty")]
    pub policy: PolicyConfig,
}

impl NodeConfig {
    /// Checks every field (see the module docs).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.format != FORMAT {
            return Err(ConfigError::Invalid(format!(
                "unsupported format {} (expected {FORMAT})",
                self.format
            )));
        }
        validate_name(&self.name).map_err(ConfigError::Invalid)?;
        self.verifying_key()?;
        if self.listen.port() == 0 {
            return Err(ConfigError::Invalid("listen: port 0".into()));
        }
        validate_address(&self.address)
            .map_err(|m| ConfigError::Invalid(format!("address: {m}")))?;
        if !self.api.ip().is_loopback() {
            return Err(ConfigError::Invalid(format!(
                "api: {} is not a loopback address (the operator API listens locally only)",
                self.api
            )));
        }
        if self.api.port() == 0 {
            return Err(ConfigError::Invalid("api: port 0".into()));
        }
        if self.api == self.listen {
            return Err(ConfigError::Invalid(
                "api and listen must be different addresses".into(),
            ));
        }
        if let Some(h) = &self.public_http {
            validate_address(h).map_err(|m| ConfigError::Invalid(format!("public_http: {m}")))?;
        }
        if let Some(v) = &self.witness_vkey {
            let v = Verifier::parse(v)
                .map_err(|e| ConfigError::Invalid(format!("witness_vkey: {e}")))?;
            if v.sig_type() != SIG_TYPE_COSIGNATURE_V1 || v.name() != self.name {
                return Err(ConfigError::Invalid(
                    "witness_vkey: not a cosignature/v1 key named after the node".into(),
                ));
            }
        }
        self.policy
            .validate()
            .map_err(|e| ConfigError::Invalid(format!("[policy]: {e}")))?;
        Ok(())
    }

    /// The identity public key.
    pub fn verifying_key(&self) -> Result<VerifyingKey, ConfigError> {
        parse_public_key_hex(&self.public_key)
            .map_err(|e| ConfigError::Invalid(format!("public_key: {e}")))
    }

    /// Parses and validates a config text.
    pub fn from_toml(text: &str, path: &str) -> Result<NodeConfig, ConfigError> {
        let cfg: NodeConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_string(),
            message: e.message().to_string(),
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads and validates a config file (at most 64 KiB).
    pub fn load(path: &Path) -> Result<NodeConfig, ConfigError> {
        let text = fsutil::read_text_bounded(path, fsutil::MAX_CONFIG_BYTES)?;
        NodeConfig::from_toml(&text, &path.display().to_string())
    }

    /// The config as TOML.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!("# quorate node config (written by `quorate node init`)\n{body}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::Identity;

    fn config() -> NodeConfig {
        let id = Identity::generate(NodeId::new(4).ok());
        NodeConfig {
            format: FORMAT,
            id: id.id(),
            name: "node-4".into(),
            public_key: id.public_key_hex(),
            listen: "0.0.0.0:7004".parse().expect("addr"),
            address: "node4.example:7004".into(),
            api: "127.0.0.1:8004".parse().expect("addr"),
            public_http: None,
            witness_vkey: None,
            policy: PolicyConfig::default(),
        }
    }

    #[test]
    fn config_roundtrips_and_validates() {
        let cfg = config();
        let back = NodeConfig::from_toml(&cfg.to_toml(), "mem").expect("parse");
        assert_eq!(back, cfg);
        let text = cfg.to_toml();
        for (from, to) in [
            ("127.0.0.1:8004", "10.0.0.1:8004"),
            ("node-4", ""),
            ("node4.example:7004", "nope"),
            ("format = 1", "format = 2"),
            ("id = 4", "id = 0"),
        ] {
            let bad = text.replace(from, to);
            assert!(
                NodeConfig::from_toml(&bad, "mem").is_err(),
                "{from} -> {to}"
            );
        }
        let typo = format!("{text}listn = \"1.2.3.4:5\"\n");
        let err = NodeConfig::from_toml(&typo, "mem").expect_err("unknown field");
        assert!(err.to_string().contains("listn"), "{err}");
        let with_policy = format!(
            "{text}\n[policy]\ncoordinators = [1, 4]\n[policy.protocol.ecdsa-sign]\nkey_ids = [\"k-*\"]\n"
        );
        let back = NodeConfig::from_toml(&with_policy, "mem").expect("policy section");
        assert_eq!(back.policy.coordinators, Some(vec![1, 4]));
        assert_eq!(
            NodeConfig::from_toml(&back.to_toml(), "mem").expect("again"),
            back
        );
        for bad in [
            "[policy]\ncoordinater = [1]\n",
            "[policy]\nprotocols = [\"ecdsa-sing\"]\n",
        ] {
            let err = NodeConfig::from_toml(&format!("{text}\n{bad}"), "mem").expect_err(bad);
            assert!(
                err.to_string().contains("coordinater") || err.to_string().contains("[policy]"),
                "{err}"
            );
        }
        let mut same = cfg;
        same.api = "127.0.0.1:7004".parse().expect("addr");
        same.listen = same.api;
        assert!(same.validate().is_err());
    }
}
