//! The keystore proper: creation, opening, epochs and sealed secrets.

use super::crypto::{derive_child_kek, derive_kek, Ad, KdfParams, SymKey, SALT_LEN};
use super::error::KeystoreError;
use super::types::{KeyId, Kind, SecretBytes};
use crate::faults::crash_point;
use crate::fsutil::{self, FileError};
use crate::identity::{Identity, NodeId, Passphrase};
use rand_core::{OsRng, RngCore};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension as _, TransactionBehavior};
use std::fmt;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The format version written in the header. Format 2 adds where the KEK comes from
/// (`kek_source`: Argon2id over the passphrase, or derived from the node keystore's KEK with
/// its `purpose`); format 1 (every store Argon2id) is upgraded in place when opened.
const FORMAT: i64 = 2;
/// The first format: no `kek_source` and `purpose` columns, every store Argon2id.
pub(super) const FORMAT_V1: i64 = 1;
/// Longest purpose label of a derived store.
const MAX_PURPOSE: usize = 64;
/// Largest secret accepted, in bytes.
pub(crate) const MAX_SECRET_LEN: usize = 16 << 20;
/// Largest epoch certificate accepted, in bytes.
const MAX_CERT_LEN: usize = 1 << 20;
/// The certificate recorded for the identity key's only epoch.
const IDENTITY_CERT: &[u8] = b"quorate node init";

const SCHEMA: &str = "
CREATE TABLE header (
    one       INTEGER PRIMARY KEY CHECK (one = 1),
    format    INTEGER NOT NULL,
    node_id   INTEGER NOT NULL,
    salt      BLOB NOT NULL,
    m_kib     INTEGER NOT NULL,
    t_cost    INTEGER NOT NULL,
    p_cost    INTEGER NOT NULL,
    kek_check BLOB NOT NULL,
    kek_source TEXT NOT NULL DEFAULT 'argon2id' CHECK (kek_source IN ('argon2id', 'derived')),
    purpose   TEXT
);
CREATE TABLE epochs (
    key_id      TEXT NOT NULL,
    epoch       INTEGER NOT NULL CHECK (epoch >= 0),
    status      TEXT NOT NULL CHECK (status IN ('pending', 'active', 'retired')),
    wrapped_key BLOB,
    certificate BLOB,
    PRIMARY KEY (key_id, epoch)
);
CREATE TABLE secrets (
    key_id  TEXT NOT NULL,
    epoch   INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    sealed  BLOB NOT NULL,
    PRIMARY KEY (key_id, epoch, kind)
);
CREATE TABLE sessions (
    key_id     TEXT NOT NULL,
    epoch      INTEGER NOT NULL,
    attempt    INTEGER NOT NULL,
    request_id TEXT NOT NULL UNIQUE,
    status     TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
    state      BLOB,
    result     BLOB,
    version    INTEGER NOT NULL,
    PRIMARY KEY (key_id, epoch, attempt)
);
CREATE TABLE bans (
    key_id   TEXT NOT NULL,
    node_id  INTEGER NOT NULL,
    reason   TEXT NOT NULL,
    evidence BLOB NOT NULL,
    PRIMARY KEY (key_id, node_id)
);
";

/// Format 1 → 2: the header learns where its KEK comes from (format 1 stores are all
/// Argon2id). One transaction with whatever else the upgrade changes.
const UPGRADE_V1: &str = "
ALTER TABLE header ADD COLUMN kek_source TEXT NOT NULL DEFAULT 'argon2id'
    CHECK (kek_source IN ('argon2id', 'derived'));
ALTER TABLE header ADD COLUMN purpose TEXT;
UPDATE header SET format = 2 WHERE one = 1;
";

/// Operator decisions about epochs (an abandoned pending epoch): added to format 1 without
/// a format change, so it is created on open when missing (an older store simply had none).
const DECISIONS: &str = "
CREATE TABLE IF NOT EXISTS epoch_decisions (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id   TEXT NOT NULL,
    epoch    INTEGER NOT NULL,
    decision TEXT NOT NULL,
    record   BLOB NOT NULL
);
";

/// Largest operator decision record accepted, in bytes.
const MAX_DECISION_LEN: usize = 64 * 1024;

/// Where an epoch is in its life (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpochStatus {
    /// Created by a keygen or refresh that has not been certified yet.
    Pending,
    /// The current, certified epoch.
    Active,
    /// Superseded by a newer certified epoch: data key destroyed.
    Retired,
}

impl EpochStatus {
    /// The status as stored and printed: `pending`, `active` or `retired`.
    pub fn as_str(self) -> &'static str {
        match self {
            EpochStatus::Pending => "pending",
            EpochStatus::Active => "active",
            EpochStatus::Retired => "retired",
        }
    }

    fn parse(s: &str) -> Result<EpochStatus, KeystoreError> {
        match s {
            "pending" => Ok(EpochStatus::Pending),
            "active" => Ok(EpochStatus::Active),
            "retired" => Ok(EpochStatus::Retired),
            _ => Err(KeystoreError::Corrupt("unknown epoch status".into())),
        }
    }
}

/// One epoch of a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpochInfo {
    /// The key id.
    pub key_id: KeyId,
    /// The epoch number.
    pub epoch: u64,
    /// Its status.
    pub status: EpochStatus,
    /// The epoch certificate, once committed.
    pub certificate: Option<Vec<u8>>,
}

/// What [`Keystore::commit_epoch`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// The epoch became active; these older epochs were retired (data keys destroyed) or,
    /// if still pending, deleted.
    Committed {
        /// The epochs retired or deleted, ascending.
        retired: Vec<u64>,
    },
    /// The epoch was already active with this certificate (a repeated commit after a crash
    /// or a retry): nothing changed.
    AlreadyCommitted,
}

/// A sealed secret that does not open ([`Keystore::check_secrets`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecretProblem {
    /// Its key id.
    pub key_id: KeyId,
    /// Its epoch.
    pub epoch: u64,
    /// Its kind.
    pub kind: String,
    /// Why it does not open.
    pub error: String,
}

/// A secret opened from the store.
#[derive(Debug)]
pub struct StoredSecret {
    /// The attempt that stored it.
    pub attempt: u32,
    /// The secret bytes.
    pub bytes: SecretBytes,
}

/// How [`Keystore::open_derived`] found the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DerivedOpen {
    /// It was created (it did not exist).
    Created,
    /// It was already derived from this node keystore.
    Opened,
    /// It had its own Argon2id KEK (a store made before derived keys): every data key was
    /// re-wrapped under the derived KEK and the header rewritten, in one transaction.
    Migrated,
}

/// Where a store's KEK comes from (the header's `kek_source` and `purpose`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum KekSource {
    /// Argon2id over the passphrase with the header's salt and parameters.
    Argon2id(KdfParams),
    /// HKDF from the node keystore's KEK, for this purpose.
    Derived(String),
}

/// The header row.
struct Header {
    format: i64,
    node: NodeId,
    salt: Vec<u8>,
    kek_check: Vec<u8>,
    source: KekSource,
}

/// An open keystore (see the module docs).
pub struct Keystore {
    pub(crate) conn: Connection,
    path: PathBuf,
    node: NodeId,
    kek: SymKey,
    params: KdfParams,
}

impl fmt::Debug for Keystore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keystore")
            .field("path", &self.path)
            .field("node", &self.node)
            .field("kdf", &self.params)
            .field("kek", &quorate_core::secret::REDACTED)
            .finish()
    }
}

pub(crate) fn to_i64(v: u64) -> Result<i64, KeystoreError> {
    i64::try_from(v).map_err(|_| KeystoreError::TooLarge {
        what: "an epoch number",
        len: usize::MAX,
        max: i64::MAX as usize,
    })
}

pub(crate) fn to_u64(v: i64) -> Result<u64, KeystoreError> {
    u64::try_from(v).map_err(|_| KeystoreError::Corrupt("a stored number is negative".into()))
}

pub(crate) fn check_len(what: &'static str, len: usize, max: usize) -> Result<(), KeystoreError> {
    if len > max {
        return Err(KeystoreError::TooLarge { what, len, max });
    }
    Ok(())
}

/// What the header's KEK check value binds: the node id, the salt, and where the KEK comes
/// from (the Argon2id parameters, or the derived store's purpose).
fn kek_check_ad(node: NodeId, salt: &[u8], source: &KekSource) -> Ad {
    match source {
        KekSource::Argon2id(p) => {
            let mut ad = Ad::new("kek-check");
            ad.u16(node.get())
                .bytes(salt)
                .u32(p.m_kib)
                .u32(p.t)
                .u32(p.p);
            ad
        }
        KekSource::Derived(purpose) => {
            let mut ad = Ad::new("derived-kek-check");
            ad.u16(node.get()).bytes(salt).str(purpose);
            ad
        }
    }
}

fn data_key_ad(node: NodeId, key_id: &str, epoch: u64) -> Ad {
    let mut ad = Ad::new("data-key");
    ad.u16(node.get()).str(key_id).u64(epoch);
    ad
}

fn validate_purpose(purpose: &str) -> Result<(), KeystoreError> {
    if purpose.is_empty()
        || purpose.len() > MAX_PURPOSE
        || !purpose
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
    {
        return Err(KeystoreError::InvalidName {
            what: "derived store purpose",
            name: purpose.chars().take(MAX_PURPOSE).collect(),
        });
    }
    Ok(())
}

/// Opens the connection and checks the file's integrity.
fn connect_checked(path: &Path) -> Result<Connection, KeystoreError> {
    let conn = connect(path)?;
    let check: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
    if check != "ok" {
        return Err(KeystoreError::Corrupt(format!(
            "integrity check failed: {check}"
        )));
    }
    Ok(conn)
}

/// Reads the header of format 1 or 2.
fn read_header(conn: &Connection) -> Result<Header, KeystoreError> {
    let has_header: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'header'",
        [],
        |r| r.get(0),
    )?;
    let format: Option<i64> = if has_header == 1 {
        conn.query_row("SELECT format FROM header WHERE one = 1", [], |r| r.get(0))
            .optional()?
    } else {
        None
    };
    let Some(format) = format else {
        return Err(KeystoreError::Corrupt(
            "no keystore header: not a quorate keystore, or its creation did not finish \
             (remove the node directory and run `quorate node init` again)"
                .into(),
        ));
    };
    let source_columns = match format {
        FORMAT_V1 => "'argon2id', NULL",
        FORMAT => "kek_source, purpose",
        other => return Err(KeystoreError::UnsupportedFormat(other)),
    };
    let (node, salt, m, t, p, kek_check, source, purpose) = conn.query_row(
        &format!(
            "SELECT node_id, salt, m_kib, t_cost, p_cost, kek_check, {source_columns}
             FROM header WHERE one = 1"
        ),
        [],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Vec<u8>>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, Vec<u8>>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, Option<String>>(7)?,
            ))
        },
    )?;
    let node = u16::try_from(node)
        .ok()
        .and_then(|n| NodeId::new(n).ok())
        .ok_or_else(|| KeystoreError::Corrupt("the header's node id is invalid".into()))?;
    if salt.len() != SALT_LEN {
        return Err(KeystoreError::Corrupt(
            "the header's salt is malformed".into(),
        ));
    }
    let source = match (source.as_str(), purpose) {
        ("argon2id", None) => {
            let param = |v: i64| {
                u32::try_from(v).map_err(|_| KeystoreError::KdfParams("stored value out of range"))
            };
            KekSource::Argon2id(KdfParams {
                m_kib: param(m)?,
                t: param(t)?,
                p: param(p)?,
            })
        }
        ("derived", Some(purpose)) => {
            validate_purpose(&purpose)
                .map_err(|_| KeystoreError::Corrupt("the header's purpose is malformed".into()))?;
            KekSource::Derived(purpose)
        }
        _ => {
            return Err(KeystoreError::Corrupt(
                "the header's key source is malformed".into(),
            ))
        }
    };
    Ok(Header {
        format,
        node,
        salt,
        kek_check,
        source,
    })
}

pub(crate) fn secret_ad(node: NodeId, key_id: &KeyId, epoch: u64, attempt: u32, kind: &Kind) -> Ad {
    let mut ad = Ad::new("secret");
    ad.u16(node.get())
        .str(key_id.as_str())
        .u64(epoch)
        .u32(attempt)
        .str(kind.as_str());
    ad
}

/// Opens the SQLite connection with the keystore's settings (never creates a file).
fn connect(path: &Path) -> Result<Connection, KeystoreError> {
    if !path.exists() {
        return Err(KeystoreError::not_found(path.to_path_buf()));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(10))?;
    let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(KeystoreError::Corrupt(format!(
            "could not switch the journal to WAL (got {mode})"
        )));
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "secure_delete", "ON")?;
    Ok(conn)
}

/// Truncates the WAL after copying it into the database, so deleted pages survive in
/// neither file. Best effort: a concurrent reader can make it a no-op until the next one.
fn checkpoint(conn: &Connection) {
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

/// Unwraps the data key of (key id, epoch); it must be pending or active.
pub(crate) fn data_key(
    conn: &Connection,
    node: NodeId,
    kek: &SymKey,
    key_id: &KeyId,
    epoch: u64,
) -> Result<SymKey, KeystoreError> {
    let row: Option<(String, Option<Vec<u8>>)> = conn
        .query_row(
            "SELECT status, wrapped_key FROM epochs WHERE key_id = ?1 AND epoch = ?2",
            params![key_id.as_str(), to_i64(epoch)?],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let (status, wrapped) = row.ok_or_else(|| KeystoreError::NoSuchEpoch {
        key_id: key_id.to_string(),
        epoch,
    })?;
    let retired = || KeystoreError::EpochRetired {
        key_id: key_id.to_string(),
        epoch,
    };
    if EpochStatus::parse(&status)? == EpochStatus::Retired {
        return Err(retired());
    }
    let wrapped = wrapped.ok_or_else(retired)?;
    let dk = kek
        .open(
            data_key_ad(node, key_id.as_str(), epoch).as_bytes(),
            &wrapped,
        )
        .ok_or_else(|| KeystoreError::Tampered {
            what: "data key",
            key_id: key_id.to_string(),
            epoch,
        })?;
    SymKey::from_slice(&dk)
        .ok_or_else(|| KeystoreError::Corrupt("a data key has the wrong length".into()))
}

/// Re-wraps every data key of a store from its own Argon2id KEK `old` to the derived KEK
/// `new` and rewrites the header (format 2, `derived`, `purpose`, the new KEK check), in one
/// transaction: a data key that `old` does not open aborts it with nothing changed.
fn migrate(
    conn: &mut Connection,
    header: &Header,
    old: &SymKey,
    new: &SymKey,
    purpose: &str,
) -> Result<(), KeystoreError> {
    let node = header.node;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if header.format == FORMAT_V1 {
        tx.execute_batch(UPGRADE_V1)?;
    }
    let rows: Vec<(String, i64, Vec<u8>)> = {
        let mut stmt = tx.prepare(
            "SELECT key_id, epoch, wrapped_key FROM epochs WHERE wrapped_key IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    for (key_id, epoch, wrapped) in rows {
        let ad = data_key_ad(node, &key_id, to_u64(epoch)?);
        let dk = old
            .open(ad.as_bytes(), &wrapped)
            .ok_or_else(|| KeystoreError::Tampered {
                what: "data key (while migrating to a derived key)",
                key_id: key_id.clone(),
                epoch: to_u64(epoch).unwrap_or(0),
            })?;
        let rewrapped = new.seal(ad.as_bytes(), &dk)?;
        tx.execute(
            "UPDATE epochs SET wrapped_key = ?1 WHERE key_id = ?2 AND epoch = ?3",
            params![rewrapped, key_id, epoch],
        )?;
    }
    let source = KekSource::Derived(purpose.to_string());
    let check = new.seal(kek_check_ad(node, &header.salt, &source).as_bytes(), b"")?;
    tx.execute(
        "UPDATE header SET format = ?1, kek_source = 'derived', purpose = ?2,
                           m_kib = 0, t_cost = 0, p_cost = 0, kek_check = ?3
         WHERE one = 1",
        params![FORMAT, purpose, check],
    )?;
    crash_point("keystore.migrate.before_commit");
    tx.commit()?;
    crash_point("keystore.migrate.after_commit");
    Ok(())
}

impl Keystore {
    /// Creates a new keystore at `path` (which must not exist) holding `identity`, with the
    /// KEK derived from `passphrase` under a fresh salt and `params`.
    pub fn create(
        path: &Path,
        identity: &Identity,
        passphrase: &Passphrase,
        params: KdfParams,
    ) -> Result<Keystore, KeystoreError> {
        params.validate()?;
        let mut salt = [0u8; SALT_LEN];
        OsRng.fill_bytes(&mut salt);
        let kek = derive_kek(passphrase.as_bytes(), &salt, params)?;
        Self::create_with(
            path,
            identity,
            salt,
            kek,
            KekSource::Argon2id(params),
            params,
        )
    }

    /// Creates a new store at `path` (which must not exist) holding `parent`'s identity, whose
    /// KEK is derived from `parent`'s by HKDF for `purpose` (no Argon2id: see
    /// [`Keystore::open_derived`]).
    pub fn create_derived(
        path: &Path,
        parent: &Keystore,
        purpose: &str,
    ) -> Result<Keystore, KeystoreError> {
        validate_purpose(purpose)?;
        let identity = parent.identity()?;
        let mut salt = [0u8; SALT_LEN];
        OsRng.fill_bytes(&mut salt);
        let kek = derive_child_kek(&parent.kek, &salt, parent.node.get(), purpose)?;
        Self::create_with(
            path,
            &identity,
            salt,
            kek,
            KekSource::Derived(purpose.to_string()),
            parent.params,
        )
    }

    fn create_with(
        path: &Path,
        identity: &Identity,
        salt: [u8; SALT_LEN],
        kek: SymKey,
        source: KekSource,
        params: KdfParams,
    ) -> Result<Keystore, KeystoreError> {
        // Create the file ourselves, exclusively and 0600; SQLite gives its WAL and
        // shared-memory files the same mode.
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| FileError::io(path, e))?;
        file.sync_all().map_err(|e| FileError::io(path, e))?;
        drop(file);
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fsutil::sync_dir(&dir)?;

        let node = identity.id();
        let check = kek.seal(kek_check_ad(node, &salt, &source).as_bytes(), b"")?;
        // A derived store's Argon2id columns are unused (0).
        let (stored, kek_source, purpose) = match &source {
            KekSource::Argon2id(p) => (*p, "argon2id", None),
            KekSource::Derived(purpose) => (
                KdfParams {
                    m_kib: 0,
                    t: 0,
                    p: 0,
                },
                "derived",
                Some(purpose.as_str()),
            ),
        };

        let mut conn = connect(path)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute_batch(SCHEMA)?;
        tx.execute_batch(DECISIONS)?;
        tx.execute(
            "INSERT INTO header (one, format, node_id, salt, m_kib, t_cost, p_cost, kek_check,
                                 kek_source, purpose)
             VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                FORMAT,
                node.get(),
                &salt[..],
                stored.m_kib,
                stored.t,
                stored.p,
                check,
                kek_source,
                purpose
            ],
        )?;
        let id_key = KeyId::identity();
        let dk = SymKey::random();
        let wrapped = kek.seal(data_key_ad(node, id_key.as_str(), 0).as_bytes(), dk.bytes())?;
        tx.execute(
            "INSERT INTO epochs (key_id, epoch, status, wrapped_key, certificate)
             VALUES (?1, 0, 'active', ?2, ?3)",
            params![id_key.as_str(), wrapped, IDENTITY_CERT],
        )?;
        let seed = identity.seed();
        let sealed = dk.seal(
            secret_ad(node, &id_key, 0, 0, &Kind::IDENTITY).as_bytes(),
            &seed[..],
        )?;
        tx.execute(
            "INSERT INTO secrets (key_id, epoch, kind, attempt, sealed) VALUES (?1, 0, ?2, 0, ?3)",
            params![id_key.as_str(), Kind::IDENTITY.as_str(), sealed],
        )?;
        crash_point("keystore.create.before_commit");
        tx.commit()?;
        Ok(Keystore {
            conn,
            path: path.to_path_buf(),
            node,
            kek,
            params,
        })
    }

    /// Opens an existing keystore; a wrong passphrase is [`KeystoreError::WrongPassphrase`],
    /// a damaged file [`KeystoreError::Corrupt`], a store whose key is derived from the node
    /// keystore's [`KeystoreError::DerivedStore`]. A format-1 store is upgraded to format 2
    /// (one transaction, after the passphrase check).
    pub fn open(path: &Path, passphrase: &Passphrase) -> Result<Keystore, KeystoreError> {
        let mut conn = connect_checked(path)?;
        let header = read_header(&conn)?;
        let params = match &header.source {
            KekSource::Argon2id(p) => *p,
            KekSource::Derived(purpose) => {
                return Err(KeystoreError::DerivedStore {
                    purpose: purpose.clone(),
                })
            }
        };
        let kek = derive_kek(passphrase.as_bytes(), &header.salt, params)?;
        let check_ad = kek_check_ad(header.node, &header.salt, &header.source);
        if kek.open(check_ad.as_bytes(), &header.kek_check).is_none() {
            return Err(KeystoreError::WrongPassphrase);
        }
        if header.format == FORMAT_V1 {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute_batch(UPGRADE_V1)?;
            tx.commit()?;
        }
        Self::finish_open(conn, path, header.node, kek, params)
    }

    /// Opens the store at `path` whose KEK is derived from `parent`'s for `purpose` (see
    /// [`Keystore::create_derived`]), creating it if it does not exist: the node pays for one
    /// Argon2id derivation per start (its `keystore.db`), however many stores it keeps.
    ///
    /// A store with its own Argon2id KEK (made before derived keys, format 1 or 2) is
    /// migrated once: its KEK is derived from `passphrase` (the only Argon2id it costs), every
    /// wrapped data key is re-wrapped under the derived KEK, and the header says `derived`,
    /// all in one SQLite transaction. A crash at any point leaves either the old store whole
    /// (the next open migrates again) or the migrated one; nothing is overwritten unless the
    /// old KEK opened every data key. A passphrase that does not open the old store is
    /// [`KeystoreError::WrongPassphrase`] and changes nothing.
    pub fn open_derived(
        path: &Path,
        parent: &Keystore,
        purpose: &str,
        passphrase: &Passphrase,
    ) -> Result<(Keystore, DerivedOpen), KeystoreError> {
        validate_purpose(purpose)?;
        if !path.exists() {
            return Ok((
                Self::create_derived(path, parent, purpose)?,
                DerivedOpen::Created,
            ));
        }
        let mut conn = connect_checked(path)?;
        let header = read_header(&conn)?;
        if header.node != parent.node {
            return Err(KeystoreError::NodeMismatch {
                expected: parent.node.get(),
                found: header.node.get(),
            });
        }
        let kek = derive_child_kek(&parent.kek, &header.salt, parent.node.get(), purpose)?;
        let mismatch = |why: &str| KeystoreError::DerivedKeyMismatch {
            what: format!("{} ({why})", path.display()),
        };
        let how = match &header.source {
            KekSource::Derived(stored) => {
                if stored != purpose {
                    return Err(mismatch(&format!(
                        "derived for {stored:?}, opened for {purpose:?}"
                    )));
                }
                let ad = kek_check_ad(header.node, &header.salt, &header.source);
                if kek.open(ad.as_bytes(), &header.kek_check).is_none() {
                    return Err(mismatch("key check failed"));
                }
                DerivedOpen::Opened
            }
            KekSource::Argon2id(params) => {
                let old = derive_kek(passphrase.as_bytes(), &header.salt, *params)?;
                let ad = kek_check_ad(header.node, &header.salt, &header.source);
                if old.open(ad.as_bytes(), &header.kek_check).is_none() {
                    return Err(KeystoreError::WrongPassphrase);
                }
                migrate(&mut conn, &header, &old, &kek, purpose)?;
                DerivedOpen::Migrated
            }
        };
        Ok((
            Self::finish_open(conn, path, header.node, kek, parent.params)?,
            how,
        ))
    }

    fn finish_open(
        conn: Connection,
        path: &Path,
        node: NodeId,
        kek: SymKey,
        params: KdfParams,
    ) -> Result<Keystore, KeystoreError> {
        conn.execute_batch(DECISIONS)?;
        // Finish any erasure a crash interrupted between a commit and its checkpoint (and,
        // after a migration, drop the old wrapped keys' pages from the WAL).
        checkpoint(&conn);
        Ok(Keystore {
            conn,
            path: path.to_path_buf(),
            node,
            kek,
            params,
        })
    }

    /// Whether this store's KEK is derived from a node keystore's (rather than its own
    /// Argon2id over the passphrase).
    pub fn is_derived(&self) -> Result<bool, KeystoreError> {
        Ok(matches!(
            read_header(&self.conn)?.source,
            KekSource::Derived(_)
        ))
    }

    /// The node id the keystore belongs to (bound into every sealed value).
    pub fn node_id(&self) -> NodeId {
        self.node
    }

    /// The Argon2id parameters of the passphrase this store's KEK comes from (for a derived
    /// store, its parent's).
    pub fn kdf_params(&self) -> KdfParams {
        self.params
    }

    /// The path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The node's identity key.
    pub fn identity(&self) -> Result<Identity, KeystoreError> {
        let id_key = KeyId::identity();
        let secret = self
            .get_secret(&id_key, 0, &Kind::IDENTITY)?
            .ok_or_else(|| KeystoreError::Corrupt("the identity key is missing".into()))?;
        let seed: [u8; 32] =
            secret.bytes.expose().try_into().map_err(|_| {
                KeystoreError::Corrupt("the identity key has the wrong length".into())
            })?;
        let seed = zeroize::Zeroizing::new(seed);
        Ok(Identity::from_seed(self.node, &seed))
    }

    pub(crate) fn kek(&self) -> &SymKey {
        &self.kek
    }

    /// The connection, node id and KEK, borrowed separately (for transactions that also
    /// unwrap data keys).
    pub(crate) fn parts(&mut self) -> (&mut Connection, NodeId, &SymKey) {
        (&mut self.conn, self.node, &self.kek)
    }

    /// Starts a new epoch of `key_id` (a keygen's first epoch or a refresh's next one) with a
    /// fresh data key, in the pending state. It must be newer than the active epoch.
    pub fn begin_epoch(&mut self, key_id: &KeyId, epoch: u64) -> Result<(), KeystoreError> {
        let e = to_i64(epoch)?;
        let wrapped = self.kek.seal(
            data_key_ad(self.node, key_id.as_str(), epoch).as_bytes(),
            SymKey::random().bytes(),
        )?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let exists: Option<i64> = tx
            .query_row(
                "SELECT 1 FROM epochs WHERE key_id = ?1 AND epoch = ?2",
                params![key_id.as_str(), e],
                |r| r.get(0),
            )
            .optional()?;
        if exists.is_some() {
            return Err(KeystoreError::EpochExists {
                key_id: key_id.to_string(),
                epoch,
            });
        }
        let newest: Option<i64> = tx.query_row(
            "SELECT max(epoch) FROM epochs WHERE key_id = ?1 AND status != 'pending'",
            params![key_id.as_str()],
            |r| r.get(0),
        )?;
        if let Some(active) = newest {
            if e <= active {
                return Err(KeystoreError::EpochNotNewer {
                    key_id: key_id.to_string(),
                    epoch,
                    active: to_u64(active)?,
                });
            }
        }
        tx.execute(
            "INSERT INTO epochs (key_id, epoch, status, wrapped_key, certificate)
             VALUES (?1, ?2, 'pending', ?3, NULL)",
            params![key_id.as_str(), e, wrapped],
        )?;
        crash_point("keystore.begin_epoch.before_commit");
        tx.commit()?;
        crash_point("keystore.begin_epoch.after_commit");
        Ok(())
    }

    /// Creates `key_id` with one epoch committed at once: a fresh data key, `secrets`
    /// sealed under it (with `attempt` bound in, as [`Keystore::put_secrets`]) and the
    /// epoch's `certificate`, all in one transaction: one fsync instead of the three of
    /// `begin_epoch`, `put_secrets` and `commit_epoch`. Only for a key without any epoch
    /// (otherwise [`KeystoreError::EpochExists`] naming its newest epoch): nothing older
    /// exists to retire, so unlike `commit_epoch` no checkpoint is needed to erase anything.
    /// After a crash the key is either absent or active with all its secrets.
    pub fn create_committed(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        secrets: &[(&Kind, &[u8])],
        certificate: &[u8],
    ) -> Result<(), KeystoreError> {
        check_len("an epoch certificate", certificate.len(), MAX_CERT_LEN)?;
        if certificate.is_empty() {
            return Err(KeystoreError::EpochState {
                op: "commit",
                key_id: key_id.to_string(),
                epoch,
                reason: "the certificate is empty",
            });
        }
        for (_, secret) in secrets {
            check_len("a secret", secret.len(), MAX_SECRET_LEN)?;
        }
        let e = to_i64(epoch)?;
        let node = self.node;
        let dk = SymKey::random();
        let wrapped = self.kek.seal(
            data_key_ad(node, key_id.as_str(), epoch).as_bytes(),
            dk.bytes(),
        )?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let newest: Option<i64> = tx.query_row(
            "SELECT max(epoch) FROM epochs WHERE key_id = ?1",
            params![key_id.as_str()],
            |r| r.get(0),
        )?;
        if let Some(newest) = newest {
            return Err(KeystoreError::EpochExists {
                key_id: key_id.to_string(),
                epoch: to_u64(newest)?,
            });
        }
        tx.execute(
            "INSERT INTO epochs (key_id, epoch, status, wrapped_key, certificate)
             VALUES (?1, ?2, 'active', ?3, ?4)",
            params![key_id.as_str(), e, wrapped, certificate],
        )?;
        for (kind, secret) in secrets {
            let sealed = dk.seal(
                secret_ad(node, key_id, epoch, attempt, kind).as_bytes(),
                secret,
            )?;
            tx.execute(
                "INSERT INTO secrets (key_id, epoch, kind, attempt, sealed)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![key_id.as_str(), e, kind.as_str(), attempt, sealed],
            )?;
        }
        crash_point("keystore.create_committed.before_commit");
        tx.commit()?;
        Ok(())
    }

    /// Stores a secret under (key id, epoch, kind), sealed under the epoch's data key with
    /// the attempt bound in. Insert-only: an existing secret is
    /// [`KeystoreError::SecretExists`].
    pub fn put_secret(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        kind: &Kind,
        secret: &[u8],
    ) -> Result<(), KeystoreError> {
        self.write_secret(key_id, epoch, attempt, kind, secret, false)
    }

    /// Replaces (or inserts) the secret under (key id, epoch, kind): the explicit
    /// overwrite, for callers that mean it.
    pub fn replace_secret(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        kind: &Kind,
        secret: &[u8],
    ) -> Result<(), KeystoreError> {
        self.write_secret(key_id, epoch, attempt, kind, secret, true)
    }

    /// Stores several secrets under (key id, epoch) in one transaction (insert-only, like
    /// [`Keystore::put_secret`]): after a crash either all of them are durable or none.
    pub fn put_secrets(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        secrets: &[(&Kind, &[u8])],
    ) -> Result<(), KeystoreError> {
        self.write_secrets(key_id, epoch, attempt, secrets, false)
    }

    fn write_secret(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        kind: &Kind,
        secret: &[u8],
        replace: bool,
    ) -> Result<(), KeystoreError> {
        self.write_secrets(key_id, epoch, attempt, &[(kind, secret)], replace)
    }

    fn write_secrets(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        attempt: u32,
        secrets: &[(&Kind, &[u8])],
        replace: bool,
    ) -> Result<(), KeystoreError> {
        for (_, secret) in secrets {
            check_len("a secret", secret.len(), MAX_SECRET_LEN)?;
        }
        let e = to_i64(epoch)?;
        let (conn, node, kek) = self.parts();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let dk = data_key(&tx, node, kek, key_id, epoch)?;
        for (kind, secret) in secrets {
            let exists: Option<i64> = tx
                .query_row(
                    "SELECT 1 FROM secrets WHERE key_id = ?1 AND epoch = ?2 AND kind = ?3",
                    params![key_id.as_str(), e, kind.as_str()],
                    |r| r.get(0),
                )
                .optional()?;
            if exists.is_some() && !replace {
                return Err(KeystoreError::SecretExists {
                    key_id: key_id.to_string(),
                    epoch,
                    kind: kind.to_string(),
                });
            }
            let sealed = dk.seal(
                secret_ad(node, key_id, epoch, attempt, kind).as_bytes(),
                secret,
            )?;
            tx.execute(
                "INSERT OR REPLACE INTO secrets (key_id, epoch, kind, attempt, sealed)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![key_id.as_str(), e, kind.as_str(), attempt, sealed],
            )?;
        }
        crash_point("keystore.put_secret.before_commit");
        tx.commit()?;
        crash_point("keystore.put_secret.after_commit");
        Ok(())
    }

    /// Opens the secret under (key id, epoch, kind): `None` if the epoch has no such secret,
    /// [`KeystoreError::EpochRetired`] once the epoch's data key is destroyed,
    /// [`KeystoreError::Tampered`] if the stored blob does not authenticate for this row.
    pub fn get_secret(
        &self,
        key_id: &KeyId,
        epoch: u64,
        kind: &Kind,
    ) -> Result<Option<StoredSecret>, KeystoreError> {
        let dk = data_key(&self.conn, self.node, &self.kek, key_id, epoch)?;
        let row: Option<(i64, Vec<u8>)> = self
            .conn
            .query_row(
                "SELECT attempt, sealed FROM secrets WHERE key_id = ?1 AND epoch = ?2 AND kind = ?3",
                params![key_id.as_str(), to_i64(epoch)?, kind.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((attempt, sealed)) = row else {
            return Ok(None);
        };
        let attempt = u32::try_from(attempt)
            .map_err(|_| KeystoreError::Corrupt("a stored attempt is out of range".into()))?;
        let bytes = dk
            .open(
                secret_ad(self.node, key_id, epoch, attempt, kind).as_bytes(),
                &sealed,
            )
            .ok_or_else(|| KeystoreError::Tampered {
                what: "secret",
                key_id: key_id.to_string(),
                epoch,
            })?;
        Ok(Some(StoredSecret {
            attempt,
            bytes: SecretBytes::new(bytes),
        }))
    }

    /// Commits a pending epoch with its certificate and, in the same transaction, retires
    /// every older epoch of the key (destroying its data key and secrets). Repeating a
    /// commit with the same certificate is [`CommitOutcome::AlreadyCommitted`].
    pub fn commit_epoch(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        certificate: &[u8],
    ) -> Result<CommitOutcome, KeystoreError> {
        self.commit_epoch_dropping(key_id, epoch, certificate, &[])
    }

    /// [`Keystore::commit_epoch`] that also deletes the committed epoch's secrets of the
    /// `drop` kinds (state only the pending epoch needed, e.g. a refresh's sealed
    /// `PendingRefresh`) in the same transaction: after a crash either the epoch is pending
    /// with them or active without them.
    pub fn commit_epoch_dropping(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        certificate: &[u8],
        drop: &[&Kind],
    ) -> Result<CommitOutcome, KeystoreError> {
        check_len("an epoch certificate", certificate.len(), MAX_CERT_LEN)?;
        let state_err = |reason| KeystoreError::EpochState {
            op: "commit",
            key_id: key_id.to_string(),
            epoch,
            reason,
        };
        if certificate.is_empty() {
            return Err(state_err("the certificate is empty"));
        }
        let e = to_i64(epoch)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let row: Option<(String, Option<Vec<u8>>)> = tx
            .query_row(
                "SELECT status, certificate FROM epochs WHERE key_id = ?1 AND epoch = ?2",
                params![key_id.as_str(), e],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (status, stored_cert) = row.ok_or_else(|| KeystoreError::NoSuchEpoch {
            key_id: key_id.to_string(),
            epoch,
        })?;
        match EpochStatus::parse(&status)? {
            EpochStatus::Active if stored_cert.as_deref() == Some(certificate) => {
                return Ok(CommitOutcome::AlreadyCommitted)
            }
            EpochStatus::Active => {
                return Err(state_err(
                    "it is already committed with another certificate",
                ))
            }
            EpochStatus::Retired => {
                return Err(KeystoreError::EpochRetired {
                    key_id: key_id.to_string(),
                    epoch,
                })
            }
            EpochStatus::Pending => {}
        }
        tx.execute(
            "UPDATE epochs SET status = 'active', certificate = ?3 WHERE key_id = ?1 AND epoch = ?2",
            params![key_id.as_str(), e, certificate],
        )?;
        for kind in drop {
            tx.execute(
                "DELETE FROM secrets WHERE key_id = ?1 AND epoch = ?2 AND kind = ?3",
                params![key_id.as_str(), e, kind.as_str()],
            )?;
        }
        let older: Vec<(i64, String)> = {
            let mut stmt = tx.prepare(
                "SELECT epoch, status FROM epochs
                 WHERE key_id = ?1 AND epoch < ?2 AND status IN ('active', 'pending')
                 ORDER BY epoch",
            )?;
            let rows =
                stmt.query_map(params![key_id.as_str(), e], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        let mut retired = Vec::with_capacity(older.len());
        for (old, status) in older {
            tx.execute(
                "DELETE FROM secrets WHERE key_id = ?1 AND epoch = ?2",
                params![key_id.as_str(), old],
            )?;
            tx.execute(
                "UPDATE sessions SET state = NULL WHERE key_id = ?1 AND epoch = ?2",
                params![key_id.as_str(), old],
            )?;
            if EpochStatus::parse(&status)? == EpochStatus::Pending {
                tx.execute(
                    "DELETE FROM epochs WHERE key_id = ?1 AND epoch = ?2",
                    params![key_id.as_str(), old],
                )?;
            } else {
                tx.execute(
                    "UPDATE epochs SET status = 'retired', wrapped_key = NULL
                     WHERE key_id = ?1 AND epoch = ?2",
                    params![key_id.as_str(), old],
                )?;
            }
            retired.push(to_u64(old)?);
        }
        crash_point("keystore.commit_epoch.before_commit");
        tx.commit()?;
        crash_point("keystore.commit_epoch.after_commit");
        checkpoint(&self.conn);
        Ok(CommitOutcome::Committed { retired })
    }

    /// Deletes a pending epoch (a failed keygen or refresh): its data key, its secrets and
    /// its session states. Active and retired epochs cannot be abandoned.
    pub fn abandon_epoch(&mut self, key_id: &KeyId, epoch: u64) -> Result<(), KeystoreError> {
        self.abandon_epoch_inner(key_id, epoch, None)
    }

    /// [`Keystore::abandon_epoch`] on an operator's decision: `record` (who, when, why, as
    /// the caller encodes it) is stored in the same transaction, so the epoch is gone if and
    /// only if the decision is on disk ([`Keystore::decisions`]).
    pub fn abandon_epoch_recorded(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        record: &[u8],
    ) -> Result<(), KeystoreError> {
        check_len("a decision record", record.len(), MAX_DECISION_LEN)?;
        self.abandon_epoch_inner(key_id, epoch, Some(record))
    }

    /// The operator decisions recorded for `key_id` (epoch, record), oldest first.
    pub fn decisions(&self, key_id: &KeyId) -> Result<Vec<(u64, Vec<u8>)>, KeystoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT epoch, record FROM epoch_decisions WHERE key_id = ?1 ORDER BY seq")?;
        let rows: Vec<(i64, Vec<u8>)> = stmt
            .query_map(params![key_id.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        rows.into_iter().map(|(e, r)| Ok((to_u64(e)?, r))).collect()
    }

    fn abandon_epoch_inner(
        &mut self,
        key_id: &KeyId,
        epoch: u64,
        record: Option<&[u8]>,
    ) -> Result<(), KeystoreError> {
        let e = to_i64(epoch)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let status: Option<String> = tx
            .query_row(
                "SELECT status FROM epochs WHERE key_id = ?1 AND epoch = ?2",
                params![key_id.as_str(), e],
                |r| r.get(0),
            )
            .optional()?;
        let status = status.ok_or_else(|| KeystoreError::NoSuchEpoch {
            key_id: key_id.to_string(),
            epoch,
        })?;
        if EpochStatus::parse(&status)? != EpochStatus::Pending {
            return Err(KeystoreError::EpochState {
                op: "abandon",
                key_id: key_id.to_string(),
                epoch,
                reason: "only a pending epoch can be abandoned",
            });
        }
        for sql in [
            "DELETE FROM secrets WHERE key_id = ?1 AND epoch = ?2",
            "UPDATE sessions SET state = NULL WHERE key_id = ?1 AND epoch = ?2",
            "DELETE FROM epochs WHERE key_id = ?1 AND epoch = ?2",
        ] {
            tx.execute(sql, params![key_id.as_str(), e])?;
        }
        if let Some(record) = record {
            tx.execute(
                "INSERT INTO epoch_decisions (key_id, epoch, decision, record)
                 VALUES (?1, ?2, 'abandon', ?3)",
                params![key_id.as_str(), e, record],
            )?;
        }
        crash_point("keystore.abandon_epoch.before_commit");
        tx.commit()?;
        crash_point("keystore.abandon_epoch.after_commit");
        checkpoint(&self.conn);
        Ok(())
    }

    fn epoch_rows(
        &self,
        sql: &str,
        key_id: Option<&KeyId>,
    ) -> Result<Vec<EpochInfo>, KeystoreError> {
        // Cached: the active epoch is read for every signing session (`EcdsaNode::certificate`).
        let mut stmt = self.conn.prepare_cached(sql)?;
        let map = |r: &rusqlite::Row<'_>| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<Vec<u8>>>(3)?,
            ))
        };
        let rows: Vec<_> = match key_id {
            Some(k) => stmt
                .query_map(params![k.as_str()], map)?
                .collect::<Result<_, _>>()?,
            None => stmt.query_map([], map)?.collect::<Result<_, _>>()?,
        };
        rows.into_iter()
            .map(|(k, e, s, c)| {
                Ok(EpochInfo {
                    key_id: KeyId::from_stored(k)?,
                    epoch: to_u64(e)?,
                    status: EpochStatus::parse(&s)?,
                    certificate: c,
                })
            })
            .collect()
    }

    /// Every epoch of `key_id`, ascending.
    pub fn epochs(&self, key_id: &KeyId) -> Result<Vec<EpochInfo>, KeystoreError> {
        self.epoch_rows(
            "SELECT key_id, epoch, status, certificate FROM epochs WHERE key_id = ?1 ORDER BY epoch",
            Some(key_id),
        )
    }

    /// The active epoch of `key_id`, if it has one.
    pub fn active_epoch(&self, key_id: &KeyId) -> Result<Option<EpochInfo>, KeystoreError> {
        Ok(self
            .epochs(key_id)?
            .into_iter()
            .find(|e| e.status == EpochStatus::Active))
    }

    /// Every pending epoch of every key (what a restarted node must commit or abandon).
    pub fn pending_epochs(&self) -> Result<Vec<EpochInfo>, KeystoreError> {
        self.epoch_rows(
            "SELECT key_id, epoch, status, certificate FROM epochs
             WHERE status = 'pending' ORDER BY key_id, epoch",
            None,
        )
    }

    /// Abandons every pending epoch of a non-reserved key that holds no secret yet (the
    /// process stopped between `begin_epoch` and its first `put_secret`). Only for start-up,
    /// before any session runs: such an epoch holds nothing to recover and nothing anyone
    /// could have certified, and it would block a retry of the keygen or refresh that began
    /// it. Returns what was abandoned.
    pub fn abandon_empty_pending_epochs(&mut self) -> Result<Vec<(KeyId, u64)>, KeystoreError> {
        let mut abandoned = Vec::new();
        for e in self.pending_epochs()? {
            if e.key_id.is_reserved() {
                continue;
            }
            let secrets: i64 = self.conn.query_row(
                "SELECT count(*) FROM secrets WHERE key_id = ?1 AND epoch = ?2",
                params![e.key_id.as_str(), to_i64(e.epoch)?],
                |r| r.get(0),
            )?;
            if secrets == 0 {
                self.abandon_epoch(&e.key_id, e.epoch)?;
                abandoned.push((e.key_id, e.epoch));
            }
        }
        Ok(abandoned)
    }

    /// Opens every sealed secret of every pending or active epoch (the data key unwrapped,
    /// the AEAD tag checked; each plaintext is zeroized at once) and returns the ones that
    /// do not open: what `/health` reports as degraded. Reads only.
    pub fn check_secrets(&self) -> Result<Vec<SecretProblem>, KeystoreError> {
        let rows: Vec<(String, i64, String)> = {
            let mut stmt = self.conn.prepare(
                "SELECT s.key_id, s.epoch, s.kind FROM secrets s JOIN epochs e
                 ON e.key_id = s.key_id AND e.epoch = s.epoch
                 WHERE e.status IN ('pending', 'active') ORDER BY s.key_id, s.epoch, s.kind",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<Result<Vec<_>, _>>()?
        };
        let mut problems = Vec::new();
        for (key_id, epoch, kind) in rows {
            let key = KeyId::from_stored(key_id)?;
            let epoch = to_u64(epoch)?;
            let opened = Kind::new(&kind)
                .map_err(|e| e.to_string())
                .and_then(|k| self.get_secret(&key, epoch, &k).map_err(|e| e.to_string()));
            if let Err(error) = opened {
                problems.push(SecretProblem {
                    key_id: key,
                    epoch,
                    kind,
                    error,
                });
            }
        }
        Ok(problems)
    }

    /// Every key id with at least one epoch, except the node's reserved ones.
    pub fn key_ids(&self) -> Result<Vec<KeyId>, KeystoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT key_id FROM epochs ORDER BY key_id")?;
        let ids: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let id = KeyId::from_stored(id)?;
            if !id.is_reserved() {
                out.push(id);
            }
        }
        Ok(out)
    }
}
