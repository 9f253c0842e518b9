//! Public entries and rosters: who the nodes are, their pinned keys and addresses.
//!
//! A node's **public entry** (`public.toml` in its directory) is what its operator hands to
//! the others:
//!
//! ```toml
//! format = 1
//! id = 1
//! name = "alice"
//! public_key = "<64 hex digits: the Ed25519 identity key>"
//! address = "alice.example:7001"   # HOST:PORT the peers dial
//! public_http = "alice.example:80" # optional: a public HTTP endpoint (e.g. a CoSi witness)
//! cosi = "<192 hex digits>"        # optional: the CoSi witness role, see below
//! ```
//!
//! A **roster** lists entries under `[[node]]` tables, with the same fields. `quorate node
//! roster --out FILE DIR_OR_ENTRY...` merges node directories, entry files and rosters into
//! one; [`Roster::from_entries`] refuses duplicate ids, duplicate keys and duplicate
//! addresses, naming both sources. Peers are pinned to the roster's keys: the transport
//! accepts a connection only from the key listed for the claimed node id.
//!
//! The optional `cosi` field gives the node the **CoSi witness role**: its CoSi witness key
//! (a separate Ed25519 key in its keystore, not the identity key) followed by a **proof of
//! possession** of it, 96 bytes `A ‖ R ‖ s` ([`quorate_cosi::RosterEntry`]). The proof is
//! checked whenever an entry or roster is parsed, so an aggregate witness key can never be
//! rigged by a rogue key (a key chosen as `a·B − ΣA_honest` has no proof).
//! [`Roster::cosi_witnesses`] lists the witnesses in id order: that order is the CoSi
//! roster's, and mask bit `i` is the `i`-th witness.
//!
//! Every file is read with a size cap ([`fsutil::MAX_ROSTER_BYTES`]) and every failure is a
//! typed [`RosterError`].

use crate::fsutil::{self, FileError, Overwrite};
use crate::identity::{parse_public_key_hex, IdentityError, NodeId};
use ed25519_dalek::VerifyingKey;
use quorate_core::PartyId;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};

/// The roster and public-entry format version.
pub const FORMAT: u32 = 1;
/// Longest node name, in bytes.
pub const MAX_NAME_LEN: usize = 64;
/// Most nodes in one roster.
pub const MAX_NODES: usize = 1024;
/// The name of the public entry file in a node directory.
pub const PUBLIC_ENTRY_FILE: &str = "public.toml";

/// A roster or public-entry failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RosterError {
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// A file is not valid TOML of the expected shape.
    #[error("{source_name}: {message}")]
    Parse {
        /// The file (or other source) being read.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// An entry has an invalid field.
    #[error("{source_name}: node {id}: {message}")]
    InvalidEntry {
        /// Where the entry came from.
        source_name: String,
        /// The entry's id (as written).
        id: String,
        /// What is wrong.
        message: String,
    },
    /// Two entries have the same node id.
    #[error("duplicate node id {id}: in {first} and {second} (re-initialise one node with `quorate node init --id N`)")]
    DuplicateId {
        /// The id.
        id: NodeId,
        /// The first source.
        first: String,
        /// The second source.
        second: String,
    },
    /// Two entries have the same public key.
    #[error("nodes {first} and {second} have the same public key")]
    DuplicateKey {
        /// The first node.
        first: NodeId,
        /// The second node.
        second: NodeId,
    },
    /// Two entries have the same address.
    #[error("nodes {first} and {second} have the same address {address}")]
    DuplicateAddress {
        /// The first node.
        first: NodeId,
        /// The second node.
        second: NodeId,
        /// The address.
        address: String,
    },
    /// The roster is empty, or larger than [`MAX_NODES`].
    #[error("a roster must list between 1 and {MAX_NODES} nodes (got {0})")]
    Size(usize),
    /// A participant is not in the roster, or listed twice.
    #[error("invalid participants: {0}")]
    Participants(String),
    /// An address could not be resolved.
    #[error("node {id}: cannot resolve address {address}: {message}")]
    Resolve {
        /// The node.
        id: NodeId,
        /// The address.
        address: String,
        /// Why.
        message: String,
    },
}

/// One node as the others see it (a public entry, or one `[[node]]` of a roster).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RosterEntry {
    /// The node id.
    pub id: NodeId,
    /// A human-readable name.
    pub name: String,
    /// The pinned Ed25519 identity key.
    pub public_key: VerifyingKey,
    /// `HOST:PORT` that peers dial.
    pub address: String,
    /// An optional public HTTP endpoint `HOST:PORT`.
    pub public_http: Option<String>,
    /// The CoSi witness role: the witness key with its proof of possession (checked when
    /// parsed; see the module docs).
    pub cosi: Option<quorate_cosi::RosterEntry>,
}

/// The on-disk shape of an entry.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<u32>,
    id: i64,
    name: String,
    public_key: String,
    address: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    public_http: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cosi: Option<String>,
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRoster {
    format: u32,
    node: Vec<RawEntry>,
}

/// Parses and checks a `cosi` field: 96 bytes in hex, a valid witness key and a proof of
/// possession that verifies for it.
pub fn parse_cosi_entry(hex_text: &str) -> Result<quorate_cosi::RosterEntry, String> {
    let bytes: [u8; quorate_cosi::RosterEntry::BYTES] = hex::decode(hex_text)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| "expected 96 bytes in hex (witness key, proof of possession)".to_string())?;
    let entry = quorate_cosi::RosterEntry::from_bytes(&bytes).map_err(|e| e.to_string())?;
    if !entry.pop.verify(&entry.public_key) {
        return Err("the proof of possession does not verify for the witness key".into());
    }
    Ok(entry)
}

/// Checks a node name: 1 to 64 printable characters.
pub fn validate_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(format!("a name has 1 to {MAX_NAME_LEN} bytes"));
    }
    if name.chars().any(char::is_control) {
        return Err("a name has no control characters".into());
    }
    Ok(())
}

/// Checks a `HOST:PORT` address: an IP socket address (`[v6]:port` for IPv6), or a DNS name
/// made of letters, digits, `.` and `-`, then a non-zero port.
pub fn validate_address(addr: &str) -> Result<(), String> {
    if let Ok(sa) = addr.parse::<SocketAddr>() {
        return if sa.port() == 0 {
            Err(format!("address {addr:?} has port 0"))
        } else {
            Ok(())
        };
    }
    let bad = || format!("address {addr:?} is not HOST:PORT");
    let (host, port) = addr.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    let host_ok = !host.is_empty()
        && host.len() <= 253
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        && !host.starts_with('-')
        && !host.starts_with('.');
    if !host_ok || port == 0 {
        return Err(bad());
    }
    Ok(())
}

impl RosterEntry {
    fn from_raw(raw: RawEntry, source_name: &str) -> Result<RosterEntry, RosterError> {
        let invalid = |message: String| RosterError::InvalidEntry {
            source_name: source_name.to_string(),
            id: raw.id.to_string(),
            message,
        };
        if let Some(f) = raw.format {
            if f != FORMAT {
                return Err(invalid(format!(
                    "unsupported format {f} (expected {FORMAT})"
                )));
            }
        }
        let id = u16::try_from(raw.id)
            .ok()
            .and_then(|n| NodeId::new(n).ok())
            .ok_or_else(|| invalid("a node id is an integer in 1..=65535".into()))?;
        validate_name(&raw.name).map_err(invalid)?;
        let public_key = parse_public_key_hex(&raw.public_key).map_err(|e| match e {
            IdentityError::InvalidPublicKey(m) => invalid(format!("public_key: {m}")),
            e => invalid(e.to_string()),
        })?;
        validate_address(&raw.address).map_err(invalid)?;
        if let Some(h) = &raw.public_http {
            validate_address(h).map_err(|m| invalid(format!("public_http: {m}")))?;
        }
        let cosi = match &raw.cosi {
            None => None,
            Some(h) => Some(parse_cosi_entry(h).map_err(|m| invalid(format!("cosi: {m}")))?),
        };
        Ok(RosterEntry {
            id,
            name: raw.name,
            public_key,
            address: raw.address,
            public_http: raw.public_http,
            cosi,
        })
    }

    fn to_raw(&self, with_format: bool) -> RawEntry {
        RawEntry {
            format: with_format.then_some(FORMAT),
            id: i64::from(self.id.get()),
            name: self.name.clone(),
            public_key: hex::encode(self.public_key.as_bytes()),
            address: self.address.clone(),
            public_http: self.public_http.clone(),
            cosi: self.cosi.as_ref().map(|c| hex::encode(c.to_bytes())),
        }
    }

    /// The entry as a public-entry TOML file.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(&self.to_raw(true)).unwrap_or_default();
        format!("# quorate node public entry: give this file to the other operators\n{body}")
    }

    /// Parses a public-entry TOML text (`source_name` labels errors).
    pub fn from_toml(text: &str, source_name: &str) -> Result<RosterEntry, RosterError> {
        let raw: RawEntry = toml::from_str(text).map_err(|e| RosterError::Parse {
            source_name: source_name.to_string(),
            message: e.message().to_string(),
        })?;
        RosterEntry::from_raw(raw, source_name)
    }

    /// The public key as 64 hex digits.
    pub fn public_key_hex(&self) -> String {
        hex::encode(self.public_key.as_bytes())
    }

    /// Resolves the address to a socket address (IP literals need no lookup).
    pub fn socket_addr(&self) -> Result<SocketAddr, RosterError> {
        if let Ok(sa) = self.address.parse::<SocketAddr>() {
            return Ok(sa);
        }
        let err = |message: String| RosterError::Resolve {
            id: self.id,
            address: self.address.clone(),
            message,
        };
        self.address
            .to_socket_addrs()
            .map_err(|e| err(e.to_string()))?
            .next()
            .ok_or_else(|| err("no addresses".into()))
    }
}

/// A validated roster: distinct ids, keys and addresses, ordered by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roster {
    nodes: BTreeMap<NodeId, RosterEntry>,
}

impl Roster {
    /// A roster from `(source name, entry)` pairs; duplicate ids, keys or addresses are
    /// refused, naming the sources.
    pub fn from_entries<I>(entries: I) -> Result<Roster, RosterError>
    where
        I: IntoIterator<Item = (String, RosterEntry)>,
    {
        let mut nodes: BTreeMap<NodeId, RosterEntry> = BTreeMap::new();
        let mut sources: BTreeMap<NodeId, String> = BTreeMap::new();
        for (source, entry) in entries {
            if let Some(first) = sources.get(&entry.id) {
                return Err(RosterError::DuplicateId {
                    id: entry.id,
                    first: first.clone(),
                    second: source,
                });
            }
            for other in nodes.values() {
                if other.public_key == entry.public_key {
                    return Err(RosterError::DuplicateKey {
                        first: other.id,
                        second: entry.id,
                    });
                }
                if other.address.eq_ignore_ascii_case(&entry.address) {
                    return Err(RosterError::DuplicateAddress {
                        first: other.id,
                        second: entry.id,
                        address: entry.address.clone(),
                    });
                }
            }
            sources.insert(entry.id, source);
            nodes.insert(entry.id, entry);
            if nodes.len() > MAX_NODES {
                return Err(RosterError::Size(nodes.len()));
            }
        }
        if nodes.is_empty() {
            return Err(RosterError::Size(0));
        }
        Ok(Roster { nodes })
    }

    /// Parses a roster TOML text (`source_name` labels errors).
    pub fn from_toml(text: &str, source_name: &str) -> Result<Roster, RosterError> {
        let raw: RawRoster = toml::from_str(text).map_err(|e| RosterError::Parse {
            source_name: source_name.to_string(),
            message: e.message().to_string(),
        })?;
        if raw.format != FORMAT {
            return Err(RosterError::Parse {
                source_name: source_name.to_string(),
                message: format!(
                    "unsupported roster format {} (expected {FORMAT})",
                    raw.format
                ),
            });
        }
        if raw.node.len() > MAX_NODES {
            return Err(RosterError::Size(raw.node.len()));
        }
        let entries = raw
            .node
            .into_iter()
            .map(|r| {
                Ok((
                    source_name.to_string(),
                    RosterEntry::from_raw(r, source_name)?,
                ))
            })
            .collect::<Result<Vec<_>, RosterError>>()?;
        Roster::from_entries(entries)
    }

    /// Reads a roster file (at most 1 MiB).
    pub fn load(path: &Path) -> Result<Roster, RosterError> {
        let text = fsutil::read_text_bounded(path, fsutil::MAX_ROSTER_BYTES)?;
        Roster::from_toml(&text, &path.display().to_string())
    }

    /// The roster as TOML.
    pub fn to_toml(&self) -> String {
        let raw = RawRoster {
            format: FORMAT,
            node: self.nodes.values().map(|e| e.to_raw(false)).collect(),
        };
        let body = toml::to_string(&raw).unwrap_or_default();
        format!(
            "# quorate roster: {} nodes, digest {}\n{body}",
            self.len(),
            hex::encode(self.digest())
        )
    }

    /// Writes the roster durably; an existing file is replaced only with `overwrite`.
    pub fn write(&self, path: &Path, overwrite: Overwrite) -> Result<(), RosterError> {
        fsutil::write_atomic(path, self.to_toml().as_bytes(), 0o644, overwrite)?;
        Ok(())
    }

    /// The roster with node `entry.id`'s entry replaced by `entry` (a node that lost its
    /// whole directory and was re-initialised under the same id with a new identity key,
    /// `quorate node roster --replace`). The id must be in the roster and the key must
    /// change; every other check of [`Roster::from_entries`] applies to the result. The
    /// old key is not kept: nothing verifies a signature of a lost key against the roster
    /// (docs/decisions.md, "restore after losing the whole disk").
    pub fn replace(&self, source_name: &str, entry: RosterEntry) -> Result<Roster, RosterError> {
        let refuse = |message: &str| RosterError::InvalidEntry {
            source_name: source_name.to_string(),
            id: entry.id.to_string(),
            message: message.to_string(),
        };
        let old = self
            .nodes
            .get(&entry.id)
            .ok_or_else(|| refuse("not in the roster: --replace only replaces a listed node"))?;
        if old.public_key == entry.public_key {
            return Err(refuse(
                "has the same key as in the roster: nothing to replace",
            ));
        }
        Roster::from_entries(self.nodes.values().map(|e| {
            if e.id == entry.id {
                (source_name.to_string(), entry.clone())
            } else {
                ("roster".to_string(), e.clone())
            }
        }))
    }

    /// The entry of node `id`.
    pub fn get(&self, id: NodeId) -> Option<&RosterEntry> {
        self.nodes.get(&id)
    }

    /// The entry whose pinned key is `key`.
    pub fn by_key(&self, key: &VerifyingKey) -> Option<&RosterEntry> {
        self.nodes.values().find(|e| &e.public_key == key)
    }

    /// Every entry, by ascending id.
    pub fn entries(&self) -> impl Iterator<Item = &RosterEntry> {
        self.nodes.values()
    }

    /// Every node id, ascending.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.keys().copied()
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the roster is empty (never true for a validated roster).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The CoSi witnesses (entries with a `cosi` field) in ascending id order: the CoSi
    /// roster's order (mask bit `i` is the `i`-th).
    pub fn cosi_witnesses(&self) -> Vec<(NodeId, quorate_cosi::RosterEntry)> {
        self.nodes
            .values()
            .filter_map(|e| e.cosi.map(|c| (e.id, c)))
            .collect()
    }

    /// A digest of the roster's content (ids, keys, names, addresses, CoSi witness entries,
    /// in id order), for binding sessions and handshakes to one roster.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"quorate/roster/v1");
        let field = |h: &mut Sha256, b: &[u8]| {
            h.update((b.len() as u64).to_be_bytes());
            h.update(b);
        };
        for e in self.nodes.values() {
            h.update(e.id.get().to_be_bytes());
            h.update(e.public_key.as_bytes());
            field(&mut h, e.name.as_bytes());
            field(&mut h, e.address.as_bytes());
            field(&mut h, e.public_http.as_deref().unwrap_or("").as_bytes());
            field(
                &mut h,
                &e.cosi.map(|c| c.to_bytes().to_vec()).unwrap_or_default(),
            );
        }
        h.finalize().into()
    }

    /// Checks that every participant is in the roster and maps them to party indices
    /// (see [`party_indices`]).
    pub fn party_indices(
        &self,
        participants: &[NodeId],
    ) -> Result<Vec<(NodeId, PartyId)>, RosterError> {
        if let Some(missing) = participants.iter().find(|id| !self.nodes.contains_key(id)) {
            return Err(RosterError::Participants(format!(
                "node {missing} is not in the roster"
            )));
        }
        party_indices(participants)
    }
}

/// Maps a session's participants to protocol party indices `1..=n`: sorted by node id, the
/// smallest is party 1. Duplicates and an empty list are refused.
pub fn party_indices(participants: &[NodeId]) -> Result<Vec<(NodeId, PartyId)>, RosterError> {
    let mut sorted = participants.to_vec();
    sorted.sort();
    sorted.dedup();
    if sorted.len() != participants.len() {
        return Err(RosterError::Participants("a node is listed twice".into()));
    }
    if sorted.is_empty() {
        return Err(RosterError::Participants("no participants".into()));
    }
    sorted
        .into_iter()
        .enumerate()
        .map(|(i, id)| {
            let index = u16::try_from(i + 1)
                .ok()
                .and_then(|i| PartyId::new(i).ok())
                .ok_or_else(|| RosterError::Participants("too many participants".into()))?;
            Ok((id, index))
        })
        .collect()
}

/// Where `quorate node roster` reads one input: the `public.toml` of a node directory, or
/// a file holding a public entry or a whole roster.
pub fn load_input(path: &Path) -> Result<Vec<(String, RosterEntry)>, RosterError> {
    let file: PathBuf = if path.is_dir() {
        path.join(PUBLIC_ENTRY_FILE)
    } else {
        path.to_path_buf()
    };
    let name = file.display().to_string();
    let text = fsutil::read_text_bounded(&file, fsutil::MAX_ROSTER_BYTES)?;
    // A roster has `[[node]]` tables; anything else is read as a single entry.
    let is_roster = toml::from_str::<toml::Table>(&text)
        .map(|t| t.contains_key("node"))
        .unwrap_or(false);
    if is_roster {
        let roster = Roster::from_toml(&text, &name)?;
        Ok(roster
            .nodes
            .into_values()
            .map(|e| (name.clone(), e))
            .collect())
    } else {
        Ok(vec![(name.clone(), RosterEntry::from_toml(&text, &name)?)])
    }
}

/// Merges inputs (see [`load_input`]) into one roster.
pub fn merge_inputs(paths: &[PathBuf]) -> Result<Roster, RosterError> {
    let mut all = Vec::new();
    for p in paths {
        all.extend(load_input(p)?);
    }
    Roster::from_entries(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::Identity;

    #[test]
    fn replace_swaps_one_nodes_key_and_refuses_the_rest() {
        let (a, b) = (entry(1, 7001), entry(2, 7002));
        let roster = Roster::from_entries([src(a.clone()), src(b.clone())]).unwrap();
        let mut fresh = entry(2, 7002);
        fresh.name = "node-2-new".into();
        let replaced = roster.replace("n2/public.toml", fresh.clone()).unwrap();
        assert_eq!(replaced.get(b.id), Some(&fresh));
        assert_eq!(replaced.get(a.id), Some(&a));
        assert_ne!(replaced.digest(), roster.digest());
        // Unknown id, unchanged key, and a key another node has: refused.
        assert!(roster.replace("x", entry(3, 7003)).is_err());
        assert!(roster.replace("x", b.clone()).is_err());
        let mut stolen = fresh.clone();
        stolen.public_key = a.public_key;
        assert!(matches!(
            roster.replace("x", stolen),
            Err(RosterError::DuplicateKey { .. })
        ));
    }

    fn entry(id: u16, port: u16) -> RosterEntry {
        let ident = Identity::generate(NodeId::new(id).ok());
        RosterEntry {
            id: ident.id(),
            name: format!("node-{id}"),
            public_key: ident.verifying_key(),
            address: format!("127.0.0.1:{port}"),
            public_http: None,
            cosi: None,
        }
    }

    fn witness_entry(rng: &mut rand_core::OsRng) -> quorate_cosi::RosterEntry {
        quorate_cosi::SecretKey::generate(rng).roster_entry(rng)
    }

    fn src(e: RosterEntry) -> (String, RosterEntry) {
        (format!("entry-{}", e.id), e)
    }

    #[test]
    fn roster_roundtrips_through_toml_with_optional_fields() {
        let mut a = entry(2, 7002);
        a.public_http = Some("witness.example:8080".into());
        a.cosi = Some(witness_entry(&mut rand_core::OsRng));
        let b = entry(1, 7001);
        let roster = Roster::from_entries([src(a.clone()), src(b.clone())]).expect("roster");
        assert_eq!(
            roster.ids().map(NodeId::get).collect::<Vec<_>>(),
            vec![1, 2]
        );
        let text = roster.to_toml();
        let back = Roster::from_toml(&text, "mem").expect("parse");
        assert_eq!(back, roster);
        assert_eq!(back.digest(), roster.digest());
        assert_eq!(back.get(a.id), Some(&a));
        assert_eq!(back.by_key(&b.public_key).map(|e| e.id), Some(b.id));
        let single = RosterEntry::from_toml(&a.to_toml(), "entry").expect("entry");
        assert_eq!(single, a);
        // The digest covers the content.
        let mut c = a.clone();
        c.address = "127.0.0.1:9999".into();
        let other = Roster::from_entries([src(c), src(b)]).expect("roster");
        assert_ne!(other.digest(), roster.digest());
    }

    #[test]
    fn duplicates_are_refused_with_names() {
        let a = entry(1, 7001);
        let mut same_id = entry(1, 7002);
        same_id.name = "other".into();
        let err = Roster::from_entries([("a.toml".into(), a.clone()), ("b.toml".into(), same_id)])
            .expect_err("dup id");
        assert!(
            matches!(&err, RosterError::DuplicateId { first, second, .. } if first == "a.toml" && second == "b.toml"),
            "{err}"
        );
        let mut same_key = entry(2, 7002);
        same_key.public_key = a.public_key;
        let err = Roster::from_entries([src(a.clone()), src(same_key)]).expect_err("dup key");
        assert!(matches!(err, RosterError::DuplicateKey { .. }), "{err}");
        let same_addr = entry(3, 7001);
        let err = Roster::from_entries([src(a), src(same_addr)]).expect_err("dup address");
        assert!(matches!(err, RosterError::DuplicateAddress { .. }), "{err}");
        assert!(matches!(
            Roster::from_entries(Vec::new()),
            Err(RosterError::Size(0))
        ));
    }

    /// A rogue witness key (e.g. `a·B − ΣA_honest`) has no proof of possession: an entry
    /// whose proof belongs to another key, or is altered, is refused when parsed.
    #[test]
    fn cosi_witness_entries_need_a_valid_proof_of_possession() {
        let mut rng = rand_core::OsRng;
        let mut a = entry(1, 7001);
        a.cosi = Some(witness_entry(&mut rng));
        let parsed = RosterEntry::from_toml(&a.to_toml(), "a").expect("valid proof");
        assert_eq!(parsed, a);
        let roster = Roster::from_entries([src(a.clone()), src(entry(2, 7002))]).expect("roster");
        assert_eq!(roster.cosi_witnesses().len(), 1);

        let (own, other) = (a.cosi.expect("set"), witness_entry(&mut rng));
        let mut swapped = own.to_bytes();
        swapped[32..].copy_from_slice(&other.to_bytes()[32..]);
        let mut tampered = own.to_bytes();
        tampered[40] ^= 1;
        for bad in [swapped, tampered] {
            let text = a
                .to_toml()
                .replace(&hex::encode(own.to_bytes()), &hex::encode(bad));
            let err = RosterEntry::from_toml(&text, "rogue").expect_err("bad proof");
            assert!(err.to_string().contains("cosi"), "{err}");
        }
    }

    #[test]
    fn invalid_entries_are_typed_errors() {
        let good = entry(1, 7001).to_toml();
        let cases = [
            good.replace("id = 1", "id = 0"),
            good.replace("id = 1", "id = 70000"),
            good.replace("127.0.0.1:7001", "no-port"),
            good.replace("127.0.0.1:7001", "127.0.0.1:0"),
            good.replace("node-1", ""),
            format!("{good}extra = 1\n"),
            format!("{good}pop = \"ab\"\n"),
            format!("{good}cosi = \"zz\"\n"),
            format!("{good}cosi = \"{}\"\n", "ab".repeat(95)),
            "not toml at all [".to_string(),
        ];
        for text in cases {
            let err = RosterEntry::from_toml(&text, "case").expect_err(&text);
            assert!(
                matches!(
                    err,
                    RosterError::InvalidEntry { .. } | RosterError::Parse { .. }
                ),
                "{err}"
            );
        }
        let mut weak = entry(1, 7001);
        let text = weak
            .to_toml()
            .replace(&weak.public_key_hex(), &format!("01{}", "00".repeat(31)));
        let err = RosterEntry::from_toml(&text, "weak").expect_err("weak key");
        assert!(err.to_string().contains("small-order"), "{err}");
        weak.name = "x".repeat(65);
        assert!(RosterEntry::from_toml(&weak.to_toml(), "long").is_err());
    }

    #[test]
    fn addresses_are_validated_and_resolved() {
        for ok in [
            "127.0.0.1:1",
            "[::1]:7001",
            "node-1.example.org:443",
            "localhost:80",
        ] {
            validate_address(ok).expect(ok);
        }
        for bad in [
            "",
            "host",
            ":80",
            "host:0",
            "ho st:80",
            "-x:80",
            "host:99999",
        ] {
            assert!(validate_address(bad).is_err(), "{bad}");
        }
        let e = entry(1, 7001);
        assert_eq!(
            e.socket_addr().expect("literal"),
            "127.0.0.1:7001".parse::<SocketAddr>().expect("addr")
        );
    }

    #[test]
    fn party_indices_follow_node_id_order() {
        let ids: Vec<NodeId> = [7, 3, 42]
            .into_iter()
            .map(|i| NodeId::new(i).expect("id"))
            .collect();
        let map = party_indices(&ids).expect("map");
        let got: Vec<(u16, u16)> = map.iter().map(|(n, p)| (n.get(), p.get())).collect();
        assert_eq!(got, vec![(3, 1), (7, 2), (42, 3)]);
        assert!(party_indices(&[ids[0], ids[0]]).is_err());
        assert!(party_indices(&[]).is_err());
        let roster = Roster::from_entries([src(entry(3, 7003)), src(entry(7, 7007))]).expect("r");
        assert!(
            roster.party_indices(&ids).is_err(),
            "42 is not in the roster"
        );
        assert_eq!(roster.party_indices(&ids[..2]).expect("ok").len(), 2);
    }

    #[test]
    fn roster_files_are_bounded_and_never_silently_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("roster.toml");
        let roster = Roster::from_entries([src(entry(1, 7001))]).expect("r");
        roster.write(&path, Overwrite::Never).expect("write");
        let err = roster.write(&path, Overwrite::Never).expect_err("exists");
        assert!(
            matches!(err, RosterError::File(FileError::AlreadyExists { .. })),
            "{err}"
        );
        roster.write(&path, Overwrite::Replace).expect("replace");
        assert_eq!(Roster::load(&path).expect("load"), roster);
        let big = dir.path().join("big.toml");
        std::fs::write(&big, vec![b'#'; (fsutil::MAX_ROSTER_BYTES + 1) as usize]).expect("w");
        assert!(matches!(
            Roster::load(&big),
            Err(RosterError::File(FileError::TooLarge { .. }))
        ));
        // A roster file is also accepted as a merge input, with the entries it holds.
        let merged = merge_inputs(std::slice::from_ref(&path)).expect("merge");
        assert_eq!(merged, roster);
        let dup = merge_inputs(&[path.clone(), path]).expect_err("same roster twice");
        assert!(matches!(dup, RosterError::DuplicateId { .. }), "{dup}");
    }
}
