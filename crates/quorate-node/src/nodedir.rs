//! The node directory: its layout, `init`, and loading a node.
//!
//! | file | mode | written by |
//! |---|---|---|
//! | [`KEYSTORE_FILE`] (`keystore.db`, with `-wal`/`-shm`) | 0600 | init: the sealed identity key; then the node |
//! | [`TOKEN_FILE`] (`api.token`) | 0600 | init: the operator API bearer token, 64 hex digits |
//! | [`PUBLIC_ENTRY_FILE`] (`public.toml`) | 0644 | init: the node's public entry ([`RosterEntry`]) |
//! | [`CONFIG_FILE`] (`node.toml`) | 0600 | init, last: the node config ([`NodeConfig`]) |
//!
//! The directory itself is created `0700`. While `quorate node run` serves a directory it
//! holds an exclusive lock on [`LOCK_FILE`] (`node.lock`, see [`NodeDir::lock`]), so a second
//! `node run` on the same directory is refused instead of sharing its keystore and session
//! records. The lock is the operating system's file lock (taken through SQLite): it goes away
//! with the process, even after `kill -9`.
//!
//! # Crash model of `init`
//!
//! Init writes the keystore, the token, the public entry and finally the config, each
//! durably (see [`crate::fsutil`]); `node.toml` existing is what "initialised" means. A
//! crash before it leaves a partial directory, which every later command (including a new
//! `init`) refuses with [`NodeDirError::PartialInit`] naming the files found: the operator
//! removes the directory and starts again, and nothing was ever published from it.

use crate::config::{ConfigError, NodeConfig, FORMAT as CONFIG_FORMAT};
use crate::faults::crash_point;
use crate::fsutil::{self, FileError, Overwrite};
use crate::identity::{Identity, NodeId, Passphrase};
use crate::keystore::{KdfParams, Keystore, KeystoreError};
use crate::roster::{validate_address, validate_name, RosterEntry, RosterError};
use crate::tlog_witness::{note::validate_key_name, WitnessKey};
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use zeroize::Zeroizing;

pub use crate::roster::PUBLIC_ENTRY_FILE;

/// The node config file.
pub const CONFIG_FILE: &str = "node.toml";
/// The operator API token file.
pub const TOKEN_FILE: &str = "api.token";
/// The keystore database.
pub const KEYSTORE_FILE: &str = "keystore.db";
/// The lock file held by a running node.
pub const LOCK_FILE: &str = "node.lock";
/// Every file init writes, in order (the config last).
const INIT_FILES: [&str; 4] = [KEYSTORE_FILE, TOKEN_FILE, PUBLIC_ENTRY_FILE, CONFIG_FILE];

/// A node-directory failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeDirError {
    /// `init` on an initialised directory.
    #[error("{dir}: already an initialised node directory (refusing to overwrite it)")]
    AlreadyInitialised {
        /// The directory.
        dir: PathBuf,
    },
    /// An interrupted `init` left some files but no config.
    #[error("{dir}: holds a partial initialisation ({files} but no {CONFIG_FILE}); remove the directory and run `quorate node init` again")]
    PartialInit {
        /// The directory.
        dir: PathBuf,
        /// The files found.
        files: String,
    },
    /// The directory has no node config.
    #[error("{dir}: not a node directory (no {CONFIG_FILE}; run `quorate node init`)")]
    NotInitialised {
        /// The directory.
        dir: PathBuf,
    },
    /// An init option is invalid.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The keystore, config or public entry disagree (a mixed-up directory).
    #[error("{dir}: inconsistent node directory: {message}")]
    Inconsistent {
        /// The directory.
        dir: PathBuf,
        /// What disagrees.
        message: String,
    },
    /// Another process holds the directory's lock.
    #[error("{dir}: in use by another `quorate node run` (one process per node directory)")]
    InUse {
        /// The directory.
        dir: PathBuf,
    },
    /// The lock file could not be opened or locked.
    #[error("{path}: cannot take the node directory lock: {message}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The token file is malformed.
    #[error("{path}: malformed API token (expected 64 hex digits)")]
    BadToken {
        /// The token file.
        path: PathBuf,
    },
    /// A file operation failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// The config is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The public entry is invalid.
    #[error(transparent)]
    Roster(#[from] RosterError),
    /// The keystore failed.
    #[error(transparent)]
    Keystore(#[from] KeystoreError),
}

/// The operator API bearer token (zeroized on drop, redacted in `Debug`).
pub struct ApiToken(Zeroizing<String>);

impl ApiToken {
    fn generate() -> ApiToken {
        let mut bytes = Zeroizing::new([0u8; 32]);
        rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut *bytes);
        ApiToken(Zeroizing::new(hex::encode(*bytes)))
    }

    /// The token text (64 hex digits), for a client's `Authorization: Bearer` header.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `presented` equals the token, compared in constant time.
    pub fn matches(&self, presented: &str) -> bool {
        use subtle::ConstantTimeEq;
        let a = self.0.as_bytes();
        let b = presented.as_bytes();
        a.len() == b.len() && bool::from(a.ct_eq(b))
    }
}

impl fmt::Debug for ApiToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(quorate_core::secret::REDACTED)
    }
}

/// What `init` needs.
#[derive(Clone, Debug)]
pub struct InitOptions {
    /// The node id (derived from the key if `None`; see [`crate::identity`]).
    pub id: Option<NodeId>,
    /// The name (`node-<id>` if `None`).
    pub name: Option<String>,
    /// The transport's bind address.
    pub listen: SocketAddr,
    /// The address peers dial (`listen` if `None`; required when `listen` is unspecified,
    /// e.g. `0.0.0.0`).
    pub address: Option<String>,
    /// The operator API's bind address (loopback).
    pub api: SocketAddr,
    /// An optional public HTTP endpoint.
    pub public_http: Option<String>,
    /// Argon2id parameters ([`KdfParams::DEFAULT`] except in tests).
    pub kdf: KdfParams,
}

/// What `init` created (printed as JSON by `quorate node init`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct InitReport {
    /// The node id.
    pub id: u16,
    /// The name.
    pub name: String,
    /// The identity public key, hex.
    pub public_key: String,
    /// The transport's bind address.
    pub listen: String,
    /// The address peers dial.
    pub address: String,
    /// The operator API address.
    pub api: String,
    /// The public HTTP endpoint, if any.
    pub public_http: Option<String>,
    /// The note verifier key of the node's tlog-witness cosignature/v1 key.
    pub witness_vkey: String,
    /// The node directory.
    pub dir: String,
    /// The public entry file to hand to the other operators.
    pub public_entry: String,
}

/// A node loaded with its passphrase: config, identity and open keystore.
#[derive(Debug)]
pub struct LoadedNode {
    /// The config.
    pub config: NodeConfig,
    /// The identity key.
    pub identity: Identity,
    /// The open keystore.
    pub keystore: Keystore,
    /// The tlog-witness cosigning key (`None` in a directory made before witness keys).
    pub witness: Option<WitnessKey>,
}

/// The exclusive lock of a node directory, held until dropped (or the process ends).
pub struct DirLock {
    _conn: rusqlite::Connection,
}

impl fmt::Debug for DirLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DirLock")
    }
}

/// A node directory (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDir {
    root: PathBuf,
}

impl NodeDir {
    /// An initialised node directory: refuses a missing config or a partial init.
    pub fn open(root: &Path) -> Result<NodeDir, NodeDirError> {
        let dir = NodeDir {
            root: root.to_path_buf(),
        };
        let present = dir.present_files();
        if present.contains(&CONFIG_FILE) {
            return Ok(dir);
        }
        if present.is_empty() {
            return Err(NodeDirError::NotInitialised {
                dir: root.to_path_buf(),
            });
        }
        Err(NodeDirError::PartialInit {
            dir: root.to_path_buf(),
            files: present.join(", "),
        })
    }

    fn present_files(&self) -> Vec<&'static str> {
        INIT_FILES
            .into_iter()
            .filter(|f| self.root.join(f).symlink_metadata().is_ok())
            .collect()
    }

    /// Creates and initialises a node directory (see the module docs).
    pub fn init(
        root: &Path,
        opts: &InitOptions,
        passphrase: &Passphrase,
    ) -> Result<(NodeDir, InitReport), NodeDirError> {
        let dir = NodeDir {
            root: root.to_path_buf(),
        };
        if root.exists() && !root.is_dir() {
            return Err(NodeDirError::InvalidOption(format!(
                "{} exists and is not a directory",
                root.display()
            )));
        }
        let present = dir.present_files();
        if present.contains(&CONFIG_FILE) {
            return Err(NodeDirError::AlreadyInitialised {
                dir: root.to_path_buf(),
            });
        }
        if !present.is_empty() {
            return Err(NodeDirError::PartialInit {
                dir: root.to_path_buf(),
                files: present.join(", "),
            });
        }
        // Validate everything before writing anything.
        let address = match &opts.address {
            Some(a) => a.clone(),
            None if opts.listen.ip().is_unspecified() => {
                return Err(NodeDirError::InvalidOption(format!(
                    "--listen {} is a wildcard address: give the address peers dial with --address HOST:PORT",
                    opts.listen
                )))
            }
            None => opts.listen.to_string(),
        };
        validate_address(&address).map_err(NodeDirError::InvalidOption)?;
        if let Some(name) = &opts.name {
            validate_name(name).map_err(NodeDirError::InvalidOption)?;
            // The name is also the note key name of the witness's cosignatures.
            validate_key_name(name)
                .map_err(|e| NodeDirError::InvalidOption(format!("--name {name:?}: {e}")))?;
        }
        opts.kdf.validate()?;
        let identity = Identity::generate(opts.id);
        let name = opts
            .name
            .clone()
            .unwrap_or_else(|| format!("node-{}", identity.id()));
        let witness = WitnessKey::generate(&name).map_err(NodeDirError::InvalidOption)?;
        let config = NodeConfig {
            format: CONFIG_FORMAT,
            id: identity.id(),
            name: name.clone(),
            public_key: identity.public_key_hex(),
            listen: opts.listen,
            address: address.clone(),
            api: opts.api,
            public_http: opts.public_http.clone(),
            witness_vkey: Some(witness.vkey()),
            policy: Default::default(),
        };
        config.validate().map_err(|e| match e {
            ConfigError::Invalid(m) => NodeDirError::InvalidOption(m),
            e => NodeDirError::Config(e),
        })?;
        let mut entry = RosterEntry {
            id: identity.id(),
            name,
            public_key: identity.verifying_key(),
            address,
            public_http: opts.public_http.clone(),
            cosi: None,
        };

        fsutil::create_private_dir(root)?;
        let mut keystore = Keystore::create(&dir.keystore_path(), &identity, passphrase, opts.kdf)?;
        witness.store(&mut keystore)?;
        entry.cosi = Some(crate::cosi::create_witness_key(&mut keystore)?);
        drop(keystore);
        crash_point("init.after_keystore");
        let token = ApiToken::generate();
        fsutil::write_atomic(
            &dir.token_path(),
            format!("{}\n", token.as_str()).as_bytes(),
            0o600,
            Overwrite::Never,
        )?;
        crash_point("init.after_token");
        fsutil::write_atomic(
            &dir.public_entry_path(),
            entry.to_toml().as_bytes(),
            0o644,
            Overwrite::Never,
        )?;
        crash_point("init.after_public_entry");
        fsutil::write_atomic(
            &dir.config_path(),
            config.to_toml().as_bytes(),
            0o600,
            Overwrite::Never,
        )?;
        let report = InitReport {
            id: config.id.get(),
            name: config.name,
            public_key: config.public_key,
            listen: config.listen.to_string(),
            address: config.address,
            api: config.api.to_string(),
            public_http: config.public_http,
            witness_vkey: witness.vkey(),
            dir: root.display().to_string(),
            public_entry: dir.public_entry_path().display().to_string(),
        };
        Ok((dir, report))
    }

    /// The directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `node.toml`.
    pub fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// `public.toml`.
    pub fn public_entry_path(&self) -> PathBuf {
        self.root.join(PUBLIC_ENTRY_FILE)
    }

    /// `api.token`.
    pub fn token_path(&self) -> PathBuf {
        self.root.join(TOKEN_FILE)
    }

    /// `keystore.db`.
    pub fn keystore_path(&self) -> PathBuf {
        self.root.join(KEYSTORE_FILE)
    }

    /// Takes the directory's exclusive lock (without waiting): [`NodeDirError::InUse`] when
    /// another process holds it. `node run` holds it for its whole life.
    pub fn lock(&self) -> Result<DirLock, NodeDirError> {
        use rusqlite::{ffi::ErrorCode, Connection, OpenFlags};
        let path = self.root.join(LOCK_FILE);
        let fail = |e: rusqlite::Error| match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => NodeDirError::InUse {
                dir: self.root.clone(),
            },
            _ => NodeDirError::Lock {
                path: path.clone(),
                message: e.to_string(),
            },
        };
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(fail)?;
        conn.busy_timeout(std::time::Duration::ZERO).map_err(fail)?;
        // An exclusive transaction that is never committed: SQLite holds the file's exclusive
        // lock until the connection closes.
        conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
            .map_err(fail)?;
        Ok(DirLock { _conn: conn })
    }

    /// The node config (no passphrase needed).
    pub fn config(&self) -> Result<NodeConfig, NodeDirError> {
        Ok(NodeConfig::load(&self.config_path())?)
    }

    /// The node's public entry (no passphrase needed).
    pub fn public_entry(&self) -> Result<RosterEntry, NodeDirError> {
        let path = self.public_entry_path();
        let text = fsutil::read_text_bounded(&path, fsutil::MAX_CONFIG_BYTES)?;
        Ok(RosterEntry::from_toml(&text, &path.display().to_string())?)
    }

    /// The operator API token (no passphrase needed; the file is 0600).
    pub fn api_token(&self) -> Result<ApiToken, NodeDirError> {
        let path = self.token_path();
        let text = Zeroizing::new(fsutil::read_text_bounded(&path, 1024)?);
        let t = text.trim();
        if t.len() != 64 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(NodeDirError::BadToken { path });
        }
        Ok(ApiToken(Zeroizing::new(t.to_string())))
    }

    /// Opens the keystore and the identity, checking that they belong to this directory's
    /// config (node id and public key).
    pub fn load(&self, passphrase: &Passphrase) -> Result<LoadedNode, NodeDirError> {
        let config = self.config()?;
        let keystore = Keystore::open(&self.keystore_path(), passphrase)?;
        let inconsistent = |message: String| NodeDirError::Inconsistent {
            dir: self.root.clone(),
            message,
        };
        if keystore.node_id() != config.id {
            return Err(inconsistent(format!(
                "the keystore belongs to node {}, the config to node {}",
                keystore.node_id(),
                config.id
            )));
        }
        let identity = keystore.identity()?;
        if identity.public_key_hex() != config.public_key {
            return Err(inconsistent(
                "the keystore's identity key is not the config's public_key".into(),
            ));
        }
        let witness = WitnessKey::load(&keystore, &config.name)?;
        if witness.as_ref().map(WitnessKey::vkey) != config.witness_vkey {
            return Err(inconsistent(
                "the keystore's tlog-witness key is not the config's witness_vkey".into(),
            ));
        }
        Ok(LoadedNode {
            config,
            identity,
            keystore,
            witness,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn opts(id: Option<u16>, port: u16) -> InitOptions {
        InitOptions {
            id: id.and_then(|i| NodeId::new(i).ok()),
            name: None,
            listen: format!("127.0.0.1:{port}").parse().expect("addr"),
            address: None,
            api: format!("127.0.0.1:{}", port + 1000).parse().expect("addr"),
            public_http: None,
            kdf: KdfParams::insecure_for_tests(),
        }
    }

    fn pass() -> Passphrase {
        Passphrase::new("pw".into()).expect("pass")
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).expect("meta").permissions().mode() & 0o777
    }

    #[test]
    fn init_creates_the_layout_and_load_checks_it() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("n1");
        let (dir, report) = NodeDir::init(&root, &opts(Some(1), 7001), &pass()).expect("init");
        assert_eq!(report.id, 1);
        assert_eq!(report.name, "node-1");
        assert_eq!(report.listen, "127.0.0.1:7001");
        assert_eq!(report.address, "127.0.0.1:7001");
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&dir.config_path()), 0o600);
        assert_eq!(mode(&dir.token_path()), 0o600);
        assert_eq!(mode(&dir.keystore_path()), 0o600);
        assert_eq!(mode(&dir.public_entry_path()), 0o644);

        let dir = NodeDir::open(&root).expect("open");
        let entry = dir.public_entry().expect("entry");
        assert_eq!(entry.public_key_hex(), report.public_key);
        let token = dir.api_token().expect("token");
        assert!(token.matches(token.as_str()));
        assert!(!token.matches("00"));
        assert!(!format!("{token:?}").contains(token.as_str()));
        let node = dir.load(&pass()).expect("load");
        let witness = node.witness.as_ref().expect("a witness key");
        assert_eq!(witness.vkey(), report.witness_vkey);
        let v = crate::tlog_witness::Verifier::parse(&report.witness_vkey).expect("vkey");
        assert_eq!(v.name(), "node-1");
        assert_eq!(
            v.sig_type(),
            crate::tlog_witness::note::SIG_TYPE_COSIGNATURE_V1
        );
        assert_ne!(v.key(), &node.identity.verifying_key(), "its own key");
        assert_eq!(node.identity.public_key_hex(), report.public_key);
        assert_eq!(node.config.id.get(), 1);
        // No file holds the identity seed in the clear.
        let seed = node.identity.signing_key().to_bytes();
        for f in INIT_FILES {
            let bytes = std::fs::read(root.join(f)).expect("read");
            assert!(!bytes.windows(32).any(|w| w == seed), "{f}");
        }
        let err = dir
            .load(&Passphrase::new("wrong".into()).expect("p"))
            .expect_err("wrong passphrase");
        assert!(
            matches!(err, NodeDirError::Keystore(KeystoreError::WrongPassphrase)),
            "{err}"
        );
    }

    #[test]
    fn init_refuses_initialised_and_partial_directories() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("n");
        let (dir, first) = NodeDir::init(&root, &opts(Some(2), 7002), &pass()).expect("init");
        let err = NodeDir::init(&root, &opts(Some(2), 7002), &pass()).expect_err("again");
        assert!(
            matches!(err, NodeDirError::AlreadyInitialised { .. }),
            "{err}"
        );
        // Nothing changed.
        assert_eq!(
            dir.load(&pass()).expect("load").identity.public_key_hex(),
            first.public_key
        );
        std::fs::remove_file(dir.config_path()).expect("rm");
        let err = NodeDir::init(&root, &opts(Some(2), 7002), &pass()).expect_err("partial");
        assert!(
            matches!(&err, NodeDirError::PartialInit { files, .. } if files.contains("keystore.db")),
            "{err}"
        );
        assert!(matches!(
            NodeDir::open(&root),
            Err(NodeDirError::PartialInit { .. })
        ));
        assert!(matches!(
            NodeDir::open(&tmp.path().join("empty")),
            Err(NodeDirError::NotInitialised { .. })
        ));
    }

    #[test]
    fn init_validates_options_before_writing() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("n");
        let mut o = opts(None, 7003);
        o.api = "192.0.2.1:8003".parse().expect("addr");
        let err = NodeDir::init(&root, &o, &pass()).expect_err("non-loopback api");
        assert!(err.to_string().contains("loopback"), "{err}");
        for bad in ["witness one", "a+b"] {
            let mut o = opts(None, 7003);
            o.name = Some(bad.into());
            let err = NodeDir::init(&root, &o, &pass()).expect_err("not a note key name");
            assert!(err.to_string().contains("--name"), "{err}");
        }
        let mut o = opts(None, 7003);
        o.listen = "0.0.0.0:7003".parse().expect("addr");
        let err = NodeDir::init(&root, &o, &pass()).expect_err("wildcard without address");
        assert!(err.to_string().contains("--address"), "{err}");
        assert!(!root.exists(), "nothing may be written for invalid options");
        o.address = Some("node3.example:7003".into());
        let (_, report) = NodeDir::init(&root, &o, &pass()).expect("init");
        assert_eq!(report.address, "node3.example:7003");
        // Derived id: deterministic from the key, non-zero.
        let key = crate::identity::parse_public_key_hex(&report.public_key).expect("key");
        assert_eq!(report.id, NodeId::derive_from_key(&key).get());
    }

    #[test]
    fn a_mixed_up_directory_is_refused() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let a = tmp.path().join("a");
        let b = tmp.path().join("b");
        NodeDir::init(&a, &opts(Some(1), 7001), &pass()).expect("a");
        let (db, _) = NodeDir::init(&b, &opts(Some(1), 7002), &pass()).expect("b");
        // b's config with a's keystore: same node id, different identity key.
        for suffix in ["", "-wal", "-shm"] {
            let name = format!("{KEYSTORE_FILE}{suffix}");
            let _ = std::fs::remove_file(b.join(&name));
            if a.join(&name).exists() {
                std::fs::copy(a.join(&name), b.join(&name)).expect("copy");
            }
        }
        let err = db.load(&pass()).expect_err("mixed");
        assert!(matches!(err, NodeDirError::Inconsistent { .. }), "{err}");
    }
}
