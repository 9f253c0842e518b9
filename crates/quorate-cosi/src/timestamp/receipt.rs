//! Timestamp receipts: a submitted hash, its inclusion proof in one round's Merkle tree, that
//! round's header and its collective signature; JSON encoding and offline verification.
//!
//! Verification ([`Receipt::verify`]) checks, in order:
//! 1. optionally, that the receipt is for the hash the caller expects;
//! 2. `leaf_hash == SHA-256(0x00 ‖ hash)`;
//! 3. the audit path takes `leaf_hash` at `leaf_index` to `root` in a tree of `tree_size`;
//! 4. the receipt's `roster_id` is the id of the roster the caller trusts;
//! 5. the collective signature is valid on the round message rebuilt from the receipt's
//!    fields (the message itself is never taken from the receipt).

use super::cosigner::RoundVerifier;
use super::merkle::{leaf_hash, verify_inclusion, Hash, InclusionError};
use super::round::{RoundHeader, SignedRound};
use super::text::{hex32, hex32_vec, hex_bytes, rfc3339_utc};
use serde::{Deserialize, Serialize};

/// The receipt format identifier, stored in [`Receipt::scheme`].
pub const RECEIPT_SCHEME: &str = "quorate-cosi-timestamp/v2";

/// A timestamp receipt. JSON field names are those of the struct; hashes and the signature
/// are lowercase hex.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// Always [`RECEIPT_SCHEME`].
    pub scheme: String,
    /// The 32-byte hash the client submitted.
    #[serde(with = "hex32")]
    pub hash: Hash,
    /// The Merkle leaf: `SHA-256(0x00 ‖ hash)`.
    #[serde(with = "hex32")]
    pub leaf_hash: Hash,
    /// The leaf's position in the round's tree.
    pub leaf_index: u64,
    /// Number of leaves in the round's tree.
    pub tree_size: u64,
    /// Sibling hashes from the leaf up to the root (RFC 9162 inclusion proof).
    #[serde(with = "hex32_vec")]
    pub audit_path: Vec<Hash>,
    /// Round number.
    pub round: u64,
    /// Round time, milliseconds since the Unix epoch. This is the signed value.
    pub time_ms: u64,
    /// The same time for people: RFC 3339 in UTC with milliseconds
    /// (`2023-11-14T22:13:20.000Z`), derived from `time_ms` ([`rfc3339_utc`]). It is not
    /// signed and verification does not read it; receipts without it (older servers) parse
    /// with it empty. Trust `time_ms`.
    #[serde(default)]
    pub time: String,
    /// The hash of the previous round's header (all zero for round 0).
    #[serde(with = "hex32")]
    pub prev: Hash,
    /// The round's Merkle root.
    #[serde(with = "hex32")]
    pub root: Hash,
    /// The id of the roster that signed.
    #[serde(with = "hex32")]
    pub roster_id: Hash,
    /// The collective signature `R(32) ‖ s(32) ‖ mask` on the round message.
    #[serde(with = "hex_bytes")]
    pub signature: Vec<u8>,
}

/// Why a receipt is invalid (it parsed, but does not check out).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReceiptError {
    /// The `scheme` field names a format this code does not know.
    #[error("unknown receipt scheme {0:?}")]
    UnknownScheme(String),
    /// The receipt is for a different hash than the caller asked about.
    #[error("receipt is for hash {found}, not {expected}")]
    WrongHash {
        /// The hash the caller expected (hex).
        expected: String,
        /// The hash in the receipt (hex).
        found: String,
    },
    /// `leaf_hash` is not `SHA-256(0x00 ‖ hash)`.
    #[error("leaf_hash is not the RFC 6962 leaf hash of hash")]
    LeafHashMismatch,
    /// The audit path does not lead to the root.
    #[error("inclusion proof: {0}")]
    Inclusion(#[from] InclusionError),
    /// The receipt names another roster.
    #[error("receipt was signed by roster {found}, not the given roster {expected}")]
    WrongRoster {
        /// The id of the trusted roster (hex).
        expected: String,
        /// The roster id in the receipt (hex).
        found: String,
    },
    /// The collective signature does not verify.
    #[error("collective signature: {0}")]
    Signature(String),
}

impl Receipt {
    /// Builds the receipt for leaf `leaf_index` of a signed round.
    pub fn new(round: &SignedRound, hash: Hash, leaf_index: u64, audit_path: Vec<Hash>) -> Receipt {
        let h = &round.header;
        Receipt {
            scheme: RECEIPT_SCHEME.to_owned(),
            hash,
            leaf_hash: leaf_hash(&hash),
            leaf_index,
            tree_size: h.tree_size,
            audit_path,
            round: h.round,
            time_ms: h.time_ms,
            time: rfc3339_utc(h.time_ms),
            prev: h.prev,
            root: h.root,
            roster_id: h.roster_id,
            signature: round.signature.clone(),
        }
    }

    /// The round header the signature covers, rebuilt from the receipt's fields.
    pub fn header(&self) -> RoundHeader {
        RoundHeader {
            roster_id: self.roster_id,
            round: self.round,
            time_ms: self.time_ms,
            tree_size: self.tree_size,
            prev: self.prev,
            root: self.root,
        }
    }

    /// The receipt as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain strings, integers and arrays cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Parses a receipt from JSON; every field is required and every hash must be 64 hex
    /// characters.
    pub fn from_json(text: &str) -> Result<Receipt, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Checks the receipt completely (see the module documentation): for `expected_hash` if
    /// given, inclusion in the round's tree, the roster, and the collective signature.
    pub fn verify(
        &self,
        verifier: &dyn RoundVerifier,
        expected_hash: Option<&Hash>,
    ) -> Result<(), ReceiptError> {
        self.verify_inclusion(expected_hash)?;
        let roster_id = verifier.roster_id();
        if roster_id != self.roster_id {
            return Err(ReceiptError::WrongRoster {
                expected: hex::encode(roster_id),
                found: hex::encode(self.roster_id),
            });
        }
        verifier
            .verify(&self.header().message(), &self.signature)
            .map_err(ReceiptError::Signature)
    }

    /// The signature-free part of [`Receipt::verify`]: scheme, expected hash, leaf hash and
    /// inclusion proof.
    pub fn verify_inclusion(&self, expected_hash: Option<&Hash>) -> Result<(), ReceiptError> {
        if self.scheme != RECEIPT_SCHEME {
            return Err(ReceiptError::UnknownScheme(self.scheme.clone()));
        }
        if let Some(expected) = expected_hash {
            if *expected != self.hash {
                return Err(ReceiptError::WrongHash {
                    expected: hex::encode(expected),
                    found: hex::encode(self.hash),
                });
            }
        }
        if leaf_hash(&self.hash) != self.leaf_hash {
            return Err(ReceiptError::LeafHashMismatch);
        }
        verify_inclusion(
            &self.leaf_hash,
            self.leaf_index,
            self.tree_size,
            &self.audit_path,
            &self.root,
        )?;
        Ok(())
    }
}
