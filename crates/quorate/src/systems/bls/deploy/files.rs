//! The deployment's files: JSON with hex fields, read bounded, written atomically.
//!
//! * `client.secret` (0600, sealed under the passphrase): `{"bls_secret_key", "auth_seed"}`;
//!   `client.pub`: `{"public_key", "pop", "auth_key"}`.
//! * `cold.secret` (0600, sealed under the passphrase): `{"index", "secret_key"}`;
//!   `cold.pub`: `{"index", "registration"}` (`ek_i` with Π_DL).
//!
//! Sealed files use the node keystore's sealing (Argon2id, XChaCha20-Poly1305;
//! [`quorate_node::keystore::sealed`]); the passphrase comes from `--passphrase-file` or
//! `QUORATE_PASSPHRASE`, as for `quorate node`.
//! * `KEY_ID.key.json` (public, rewritten after each refresh): key id, `t`, `n`, the holders'
//!   node ids, the current record, the cold registrations.
//! * `KEY_ID.refresh.json` (0600, only while a refresh is unfinished): the dealt refresh,
//!   every `δ_i` sealed under the passphrase with `client.secret`'s Argon2id parameters
//!   (`shares_sealed`), and the signed confirmations collected so far.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _};
use quorate_bls::kzg::ceremony::Transcript;
use quorate_bls::{Client, ColdRegistration, Crs, GroupPublic, SecretKey};
use quorate_node::identity::{Passphrase, PassphraseArgs};
use quorate_node::keystore::sealed::{
    kdf_params_of, open_with_passphrase, seal_with_passphrase, MAX_SEALED_BYTES,
};
use quorate_node::keystore::{KdfParams, KeystoreError};
use quorate_node::nodedir::NodeDir;
use serde_json::{json, Value};
use zeroize::Zeroizing;

use crate::common::os_rng;
use crate::files::{read_capped, read_text, write_new_file, Access, MAX_INPUT_BYTES};

/// A JSON file.
pub fn read_json(path: &Path) -> anyhow::Result<Value> {
    serde_json::from_str(&read_text(path)?).with_context(|| format!("{}: not JSON", path.display()))
}

/// Field `name` of `v` (from `path`) as a string.
pub fn str_field<'a>(v: &'a Value, name: &str, path: &Path) -> anyhow::Result<&'a str> {
    v.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| anyhow!("{}: field `{name}` missing or not a string", path.display()))
}

/// Field `name` of `v` as hex bytes.
pub fn hex_field(v: &Value, name: &str, path: &Path) -> anyhow::Result<Vec<u8>> {
    hex::decode(str_field(v, name, path)?)
        .with_context(|| format!("{}: field `{name}` is not hex", path.display()))
}

/// Field `name` of `v` as a u16.
pub fn u16_field(v: &Value, name: &str, path: &Path) -> anyhow::Result<u16> {
    v.get(name)
        .and_then(Value::as_u64)
        .and_then(|x| u16::try_from(x).ok())
        .ok_or_else(|| anyhow!("{}: field `{name}` missing or not a u16", path.display()))
}

/// Writes JSON to a new file (public or secret), never over an existing one.
pub fn write_json(path: &Path, v: &Value, access: Access) -> anyhow::Result<()> {
    let text = Zeroizing::new(v.to_string());
    write_new_file(path, text.as_bytes(), access, false)
}

/// What a sealed file holds (bound into its associated data).
pub const CLIENT_LABEL: &str = "quorate/bls/client.secret/v1";
/// What a sealed file holds (bound into its associated data).
pub const REFRESH_LABEL: &str = "quorate/bls/refresh.json/v1";
/// What a sealed file holds (bound into its associated data).
pub const COLD_LABEL: &str = "quorate/bls/cold.secret/v1";

/// The Argon2id parameters of a new sealed file: the production ones unless the hidden
/// `--insecure-test-kdf` flag (tests only) asks for cheap ones.
pub fn kdf_params(insecure_test_kdf: bool) -> KdfParams {
    if insecure_test_kdf {
        KdfParams::insecure_for_tests()
    } else {
        KdfParams::DEFAULT
    }
}

/// Seals JSON under the passphrase and writes it as a secret file (0600, atomic, durable),
/// replacing an existing file only with `force`.
pub fn write_sealed_json(
    path: &Path,
    v: &Value,
    label: &str,
    passphrase: &Passphrase,
    params: KdfParams,
    force: bool,
) -> anyhow::Result<()> {
    let text = Zeroizing::new(v.to_string());
    let sealed = seal_with_passphrase(passphrase, params, label, text.as_bytes())
        .with_context(|| format!("sealing {}", path.display()))?;
    write_new_file(path, &sealed, Access::Secret, force)
}

/// Reads and opens a sealed JSON file.
pub fn read_sealed_json(
    path: &Path,
    label: &str,
    passphrase: &Passphrase,
) -> anyhow::Result<Value> {
    let sealed = read_capped(path, MAX_SEALED_BYTES as u64)?;
    let text = open_with_passphrase(passphrase, label, &sealed).map_err(|e| match e {
        KeystoreError::WrongPassphrase => anyhow!(
            "{}: wrong passphrase (or the file was altered)",
            path.display()
        ),
        e => anyhow!("{}: {e}", path.display()),
    })?;
    serde_json::from_slice(&text).with_context(|| format!("{}: not JSON", path.display()))
}

/// The CRS transcript file, verified.
pub fn load_crs(path: &Path) -> anyhow::Result<(Crs, Vec<u8>)> {
    let bytes = read_capped(path, MAX_INPUT_BYTES)?;
    let transcript =
        Transcript::from_bytes(&bytes).with_context(|| format!("{}", path.display()))?;
    let crs = Crs::from_transcript(&transcript, &mut os_rng())
        .with_context(|| format!("{}: the ceremony does not verify", path.display()))?;
    Ok((crs, bytes))
}

/// The client's keys: the BLS client and the Ed25519 authorisation key.
pub struct ClientKeys {
    /// The BLS key's owner.
    pub client: Client,
    /// The authorisation key hot nodes check signing requests against.
    pub auth: ed25519_dalek::SigningKey,
    /// The passphrase `client.secret` opened with (it also seals the pending refresh).
    pub passphrase: Passphrase,
    /// `client.secret`'s Argon2id parameters (the pending refresh is sealed at that cost).
    pub kdf: KdfParams,
}

/// Reads and opens `DIR/client.secret`.
pub fn load_client(dir: &Path, passphrase: &PassphraseArgs) -> anyhow::Result<ClientKeys> {
    let path = dir.join("client.secret");
    let passphrase = passphrase.passphrase()?;
    let kdf = kdf_params_of(&read_capped(&path, MAX_SEALED_BYTES as u64)?)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let v = read_sealed_json(&path, CLIENT_LABEL, &passphrase)?;
    let sk = Zeroizing::new(hex_field(&v, "bls_secret_key", &path)?);
    let seed = Zeroizing::new(hex_field(&v, "auth_seed", &path)?);
    let seed: &[u8; 32] = seed
        .as_slice()
        .try_into()
        .map_err(|_| anyhow!("{}: auth_seed must be 32 bytes", path.display()))?;
    Ok(ClientKeys {
        client: Client::from_secret_key(
            SecretKey::from_bytes(&sk).with_context(|| format!("{}", path.display()))?,
        ),
        auth: ed25519_dalek::SigningKey::from_bytes(seed),
        passphrase,
        kdf,
    })
}

/// The public key file of `key_id` in the client's directory.
pub fn key_path(client: &Path, key_id: &str) -> PathBuf {
    client.join(format!("{key_id}.key.json"))
}

/// The pending-refresh file of `key_id`.
pub fn refresh_path(client: &Path, key_id: &str) -> PathBuf {
    client.join(format!("{key_id}.refresh.json"))
}

/// A key's public file, decoded.
pub struct KeyFile {
    /// Key id.
    pub key_id: String,
    /// Node ids of hot parties `1..=n`.
    pub holders: Vec<u16>,
    /// The current record.
    pub public: GroupPublic,
    /// The cold registrations (`ek_i` with Π_DL), index order.
    pub cold: Vec<ColdRegistration>,
}

impl KeyFile {
    /// Reads and decodes a key file.
    pub fn read(path: &Path) -> anyhow::Result<KeyFile> {
        let v = read_json(path)?;
        let key_id = str_field(&v, "key_id", path)?.to_string();
        let holders = v
            .get("holders")
            .and_then(Value::as_array)
            .ok_or_else(|| anyhow!("{}: `holders` missing", path.display()))?
            .iter()
            .map(|h| {
                h.as_u64()
                    .and_then(|x| u16::try_from(x).ok())
                    .ok_or_else(|| anyhow!("{}: a holder is not a node id", path.display()))
            })
            .collect::<anyhow::Result<Vec<u16>>>()?;
        let public = GroupPublic::from_bytes(&hex_field(&v, "record", path)?)
            .with_context(|| format!("{}: record", path.display()))?;
        let cold = v
            .get("cold")
            .and_then(Value::as_array)
            .ok_or_else(|| anyhow!("{}: `cold` missing", path.display()))?
            .iter()
            .map(|c| {
                let bytes = hex::decode(c.as_str().unwrap_or_default())
                    .with_context(|| format!("{}: cold registration", path.display()))?;
                ColdRegistration::from_bytes(&bytes)
                    .with_context(|| format!("{}: cold registration", path.display()))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        if holders.len() != usize::from(public.params().n()) || cold.len() != holders.len() {
            bail!(
                "{}: holders, record and cold keys disagree on n",
                path.display()
            );
        }
        Ok(KeyFile {
            key_id,
            holders,
            public,
            cold,
        })
    }

    /// The JSON form.
    pub fn to_json(&self) -> Value {
        json!({
            "key_id": self.key_id,
            "t": self.public.params().t(),
            "n": self.public.params().n(),
            "epoch": self.public.epoch(),
            "public_key": hex::encode(self.public.public_key().to_bytes()),
            "holders": self.holders,
            "crs_id": hex::encode(self.public.crs_id()),
            "record": hex::encode(self.public.to_bytes()),
            "cold": self.cold.iter().map(|c| hex::encode(c.to_bytes())).collect::<Vec<_>>(),
        })
    }

    /// Writes (or rewrites: the file is public and moves with each refresh) the key file.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        write_new_file(
            path,
            self.to_json().to_string().as_bytes(),
            Access::Public,
            true,
        )
    }
}

/// A hot node's id, read from its directory.
pub fn node_id(dir: &Path) -> anyhow::Result<u16> {
    let nd = NodeDir::open(dir).with_context(|| format!("{}", dir.display()))?;
    Ok(nd
        .config()
        .with_context(|| format!("{}", dir.display()))?
        .id
        .get())
}
