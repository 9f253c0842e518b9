//! The epoch certificate of a threshold-ECDSA key: every holder's Ed25519 signature (with
//! its roster identity key) over (key id, epoch, `t`, holders, public key, setup transcript,
//! session id). It is what `commit_epoch` stores, and anyone with the roster can check it.
//!
//! Signed message: `"quorate/ecdsa/epoch-cert/v1"` ‖ `u16` length ‖ key id ‖ `u64` epoch ‖
//! `u16` t ‖ `u16` count ‖ holders (`u16` each) ‖ public key (33) ‖ transcript (32) ‖
//! session id (32), integers big-endian. Version 2 (every certificate made since session
//! 11) signs under `"quorate/ecdsa/epoch-cert/v2"` and appends the public-data digest (32,
//! [`public_digest`]): SHA-256 of the library's `EpochPublic` encoding, which holds the
//! library key id, every public share, the chain code and every holder's epoch identity
//! key, so that the public data a restored node imports is certified as a whole (review
//! finding F2). Version 1 certificates still verify. Stored as JSON (at most
//! [`MAX_CERT_LEN`] bytes; `"v": 2` with `"public_digest"`).

use std::collections::BTreeMap;

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};

use super::KeyInfo;

/// Largest stored certificate accepted.
pub const MAX_CERT_LEN: usize = 64 * 1024;
const DOMAIN: &[u8] = b"quorate/ecdsa/epoch-cert/v1";
const DOMAIN_V2: &[u8] = b"quorate/ecdsa/epoch-cert/v2";
const PUBLIC_DIGEST_TAG: &[u8] = b"quorate/ecdsa/epoch-public-digest/v1";

/// The digest a version-2 certificate signs of the epoch's public data: SHA-256 of a
/// domain tag and `quorate_ecdsa::keygen::EpochPublic::to_bytes`.
pub fn public_digest(public: &quorate_ecdsa::keygen::EpochPublic) -> [u8; 32] {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(PUBLIC_DIGEST_TAG);
    h.update(public.to_bytes());
    h.finalize().into()
}

/// What every holder signs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertStatement {
    /// Key id.
    pub key_id: String,
    /// Epoch.
    pub epoch: u64,
    /// Threshold.
    pub t: u16,
    /// Holders' node ids, ascending.
    pub holders: Vec<u16>,
    /// Group public key (33-byte compressed).
    pub public_key: [u8; 33],
    /// The library's setup transcript hash of the DKG or refresh.
    pub transcript: [u8; 32],
    /// The session id of the keygen or refresh.
    pub session_id: [u8; 32],
    /// The digest of the epoch's public data ([`public_digest`]); `None` in a version-1
    /// certificate.
    pub public_digest: Option<[u8; 32]>,
}

impl CertStatement {
    /// The bytes each holder signs.
    pub fn message(&self) -> Vec<u8> {
        let mut m = Vec::with_capacity(DOMAIN.len() + 192 + self.key_id.len());
        m.extend_from_slice(if self.public_digest.is_some() {
            DOMAIN_V2
        } else {
            DOMAIN
        });
        m.extend_from_slice(&(self.key_id.len() as u16).to_be_bytes());
        m.extend_from_slice(self.key_id.as_bytes());
        m.extend_from_slice(&self.epoch.to_be_bytes());
        m.extend_from_slice(&self.t.to_be_bytes());
        m.extend_from_slice(&(self.holders.len() as u16).to_be_bytes());
        for h in &self.holders {
            m.extend_from_slice(&h.to_be_bytes());
        }
        m.extend_from_slice(&self.public_key);
        m.extend_from_slice(&self.transcript);
        m.extend_from_slice(&self.session_id);
        if let Some(d) = &self.public_digest {
            m.extend_from_slice(d);
        }
        m
    }

    /// This node's signature over the statement.
    pub fn sign(&self, key: &SigningKey) -> [u8; 64] {
        key.sign(&self.message()).to_bytes()
    }

    /// Whether `sig` is `key`'s signature over the statement.
    pub fn verify(&self, key: &VerifyingKey, sig: &[u8]) -> bool {
        let Ok(sig) = Signature::from_slice(sig) else {
            return false;
        };
        key.verify(&self.message(), &sig).is_ok()
    }
}

/// A certified epoch: the statement and every holder's signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpochCertificate {
    /// Key id.
    pub key_id: String,
    /// Epoch.
    pub epoch: u64,
    /// Threshold.
    pub t: u16,
    /// Holders, ascending.
    pub holders: Vec<u16>,
    /// Public key.
    pub public_key: [u8; 33],
    /// Setup transcript.
    pub transcript: [u8; 32],
    /// Session id.
    pub session_id: [u8; 32],
    /// The digest of the epoch's public data (version 2; `None` in version 1).
    pub public_digest: Option<[u8; 32]>,
    /// Signature of every holder, by node id.
    pub signatures: BTreeMap<u16, [u8; 64]>,
    /// For a refresh: the library's epoch certificate (every holder's acknowledgement of the
    /// new transcript under the previous epoch's identity keys), as encoded by
    /// `quorate_ecdsa::keygen::EpochCertificate::to_bytes`.
    pub library: Option<Vec<u8>>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    v: u8,
    key_id: String,
    epoch: u64,
    t: u16,
    holders: Vec<u16>,
    public_key: String,
    transcript: String,
    session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    public_digest: Option<String>,
    signatures: BTreeMap<u16, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    library_certificate: Option<String>,
}

fn unhex<const N: usize>(what: &str, s: &str) -> Result<[u8; N], String> {
    let v = hex::decode(s).map_err(|_| format!("certificate: {what} is not hex"))?;
    v.try_into()
        .map_err(|_| format!("certificate: {what} must be {N} bytes"))
}

impl EpochCertificate {
    /// The certificate of `statement` with these signatures.
    pub fn new(statement: &CertStatement, signatures: BTreeMap<u16, [u8; 64]>) -> Self {
        Self {
            key_id: statement.key_id.clone(),
            epoch: statement.epoch,
            t: statement.t,
            holders: statement.holders.clone(),
            public_key: statement.public_key,
            transcript: statement.transcript,
            session_id: statement.session_id,
            public_digest: statement.public_digest,
            signatures,
            library: None,
        }
    }

    /// The signed statement.
    pub fn statement(&self) -> CertStatement {
        CertStatement {
            key_id: self.key_id.clone(),
            epoch: self.epoch,
            t: self.t,
            holders: self.holders.clone(),
            public_key: self.public_key,
            transcript: self.transcript,
            session_id: self.session_id,
            public_digest: self.public_digest,
        }
    }

    /// Checks that every holder signed, with the keys `roster` gives: `Err` names the first
    /// holder whose signature is missing or wrong.
    pub fn verify(&self, roster: &BTreeMap<u16, VerifyingKey>) -> Result<(), String> {
        let st = self.statement();
        for h in &self.holders {
            let key = roster
                .get(h)
                .ok_or_else(|| format!("holder {h} is not in the roster"))?;
            let ok = self.signatures.get(h).is_some_and(|s| st.verify(key, s));
            if !ok {
                return Err(format!(
                    "holder {h}'s certificate signature is missing or wrong"
                ));
            }
        }
        if self.signatures.len() != self.holders.len() {
            return Err("a certificate signature is not from a holder".into());
        }
        Ok(())
    }

    /// Like [`EpochCertificate::verify`], except that holder `except`'s own signature is
    /// not checked (it must be present). A node restored after losing its whole directory
    /// checks the certificate it imports this way: its own signature was made with the
    /// identity key it lost, which the roster no longer lists, and the other holders'
    /// signatures certify the same statement.
    pub fn verify_others(
        &self,
        roster: &BTreeMap<u16, VerifyingKey>,
        except: u16,
    ) -> Result<(), String> {
        let st = self.statement();
        for h in self.holders.iter().filter(|h| **h != except) {
            let key = roster
                .get(h)
                .ok_or_else(|| format!("holder {h} is not in the roster"))?;
            let ok = self.signatures.get(h).is_some_and(|s| st.verify(key, s));
            if !ok {
                return Err(format!(
                    "holder {h}'s certificate signature is missing or wrong"
                ));
            }
        }
        if self.signatures.len() != self.holders.len()
            || self
                .holders
                .iter()
                .any(|h| !self.signatures.contains_key(h))
        {
            return Err("a certificate signature is missing or not from a holder".into());
        }
        Ok(())
    }

    /// Party index of `node` (its position among the holders, from 1).
    pub fn party_of(&self, node: u16) -> Result<quorate_ecdsa::PartyId, String> {
        super::party_of(&self.holders, node)
    }

    /// Public facts about the key.
    pub fn info(&self) -> KeyInfo {
        KeyInfo {
            key_id: self.key_id.clone(),
            epoch: self.epoch,
            t: self.t,
            holders: self.holders.clone(),
            public_key: self.public_key,
        }
    }

    /// The stored form (JSON).
    pub fn to_bytes(&self) -> Vec<u8> {
        let s = Stored {
            v: if self.public_digest.is_some() { 2 } else { 1 },
            key_id: self.key_id.clone(),
            epoch: self.epoch,
            t: self.t,
            holders: self.holders.clone(),
            public_key: hex::encode(self.public_key),
            transcript: hex::encode(self.transcript),
            session_id: hex::encode(self.session_id),
            public_digest: self.public_digest.map(hex::encode),
            signatures: self
                .signatures
                .iter()
                .map(|(k, v)| (*k, hex::encode(v)))
                .collect(),
            library_certificate: self.library.as_ref().map(hex::encode),
        };
        serde_json::to_vec(&s).unwrap_or_default()
    }

    /// Parses the stored form (bounded, every field checked for shape).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() > MAX_CERT_LEN {
            return Err("certificate too large".into());
        }
        let s: Stored = serde_json::from_slice(bytes).map_err(|e| format!("certificate: {e}"))?;
        match (s.v, &s.public_digest) {
            (1, None) | (2, Some(_)) => {}
            (1 | 2, _) => {
                return Err(format!(
                    "certificate: version {} must {}carry a public-data digest",
                    s.v,
                    if s.v == 1 { "not " } else { "" }
                ))
            }
            (v, _) => return Err(format!("certificate version {v} is not supported")),
        }
        if s.holders.windows(2).any(|w| w[0] >= w[1]) || s.holders.is_empty() {
            return Err("certificate: holders must be ascending and distinct".into());
        }
        let mut signatures = BTreeMap::new();
        for (k, v) in &s.signatures {
            signatures.insert(*k, unhex::<64>("signature", v)?);
        }
        Ok(Self {
            key_id: s.key_id,
            epoch: s.epoch,
            t: s.t,
            holders: s.holders,
            public_key: unhex("public key", &s.public_key)?,
            transcript: unhex("transcript", &s.transcript)?,
            session_id: unhex("session id", &s.session_id)?,
            public_digest: s
                .public_digest
                .as_deref()
                .map(|d| unhex("public-data digest", d))
                .transpose()?,
            signatures,
            library: s
                .library_certificate
                .map(|h| hex::decode(h).map_err(|_| "certificate: library certificate is not hex"))
                .transpose()?,
        })
    }
}
