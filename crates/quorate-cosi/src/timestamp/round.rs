//! The per-round statement the witnesses cosign, and the hash chain of rounds.
//!
//! A round header is encoded as a fixed-layout byte string (every field has a fixed width, so
//! the encoding is injective):
//!
//! ```text
//! ROUND_DOMAIN (32 bytes: "quorate/cosi/timestamp/round/v2" ‖ 0x00)
//! ‖ roster_id (32) ‖ round (u64 BE) ‖ time_ms (u64 BE) ‖ tree_size (u64 BE)
//! ‖ prev (32) ‖ root (32)
//! ```
//!
//! The domain tag keeps a timestamp-round signature from ever being valid as a CoSi
//! signature over some other protocol's message under the same witness keys, and the roster
//! id names the witness set that signs. `prev` is the hash of the previous round's signed
//! header, [`RoundHeader::hash`] of round `round − 1` ([`GENESIS_PREV`] for round 0), so the
//! signed rounds form a hash chain: rewriting an issued round would need new signatures on it
//! and on every later round. Linking whole headers, not just Merkle roots, keeps the links
//! distinct when two rounds carry identical batches (same root).

use super::merkle::Hash;
use super::text::{hex32, hex_bytes, rfc3339_utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The domain tag at the start of every signed round message (32 bytes, NUL-padded).
pub const ROUND_DOMAIN: &[u8; 32] = b"quorate/cosi/timestamp/round/v2\0";

/// The `prev` of round 0.
pub const GENESIS_PREV: Hash = [0u8; 32];

/// The length of an encoded round message.
pub const ROUND_MESSAGE_LEN: usize = 32 + 32 + 8 + 8 + 8 + 32 + 32;

/// Everything a round's collective signature covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoundHeader {
    /// Identifier of the witness roster that signs (its canonical hash).
    pub roster_id: Hash,
    /// Round number: 0, 1, 2, … without gaps.
    pub round: u64,
    /// When the round was sealed, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// Number of leaves in the round's Merkle tree.
    pub tree_size: u64,
    /// The hash of the previous round's header ([`RoundHeader::hash`]; [`GENESIS_PREV`] for
    /// round 0).
    pub prev: Hash,
    /// The round's Merkle tree head.
    pub root: Hash,
}

impl RoundHeader {
    /// The byte string the witnesses cosign (layout in the module documentation).
    pub fn message(&self) -> [u8; ROUND_MESSAGE_LEN] {
        let mut m = [0u8; ROUND_MESSAGE_LEN];
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            m[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(ROUND_DOMAIN);
        put(&self.roster_id);
        put(&self.round.to_be_bytes());
        put(&self.time_ms.to_be_bytes());
        put(&self.tree_size.to_be_bytes());
        put(&self.prev);
        put(&self.root);
        m
    }

    /// Parses a round message ([`RoundHeader::message`]); `None` for anything else (wrong
    /// length or domain).
    pub fn from_message(message: &[u8]) -> Option<RoundHeader> {
        if message.len() != ROUND_MESSAGE_LEN || &message[..32] != ROUND_DOMAIN {
            return None;
        }
        let hash = |at: usize| -> Option<Hash> { message.get(at..at + 32)?.try_into().ok() };
        let int = |at: usize| -> Option<u64> {
            Some(u64::from_be_bytes(
                message.get(at..at + 8)?.try_into().ok()?,
            ))
        };
        Some(RoundHeader {
            roster_id: hash(32)?,
            round: int(64)?,
            time_ms: int(72)?,
            tree_size: int(80)?,
            prev: hash(88)?,
            root: hash(120)?,
        })
    }

    /// `SHA-256(message)`: what the next round's `prev` links to.
    pub fn hash(&self) -> Hash {
        Sha256::digest(self.message()).into()
    }

    /// Whether `next` directly follows `self` in the chain: next round number, same roster,
    /// `next.prev == self.hash()`, and time not going backwards.
    pub fn is_followed_by(&self, next: &RoundHeader) -> bool {
        self.round.checked_add(1) == Some(next.round)
            && next.prev == self.hash()
            && next.roster_id == self.roster_id
            && next.time_ms >= self.time_ms
    }
}

/// A round header with its collective signature `R ‖ s ‖ mask`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedRound {
    /// The signed statement.
    pub header: RoundHeader,
    /// The CoSi signature over [`RoundHeader::message`].
    pub signature: Vec<u8>,
}

/// The JSON form of a signed round (`GET /v1/round/N`, `GET /v1/head`, and the rounds file
/// of `check-chain`): the header's fields with hashes in lowercase hex, the derived `time`
/// (RFC 3339), `message` and `hash`, and the signature.
#[derive(Serialize, Deserialize)]
struct RoundJson {
    round: u64,
    time_ms: u64,
    #[serde(default)]
    time: String,
    tree_size: u64,
    #[serde(with = "hex32")]
    prev: Hash,
    #[serde(with = "hex32")]
    root: Hash,
    #[serde(with = "hex32")]
    roster_id: Hash,
    #[serde(with = "hex_bytes")]
    message: Vec<u8>,
    #[serde(with = "hex32")]
    hash: Hash,
    #[serde(with = "hex_bytes")]
    signature: Vec<u8>,
}

impl SignedRound {
    /// The round as one line of JSON (layout at [`SignedRound::from_json`]).
    pub fn to_json(&self) -> String {
        let h = &self.header;
        let json = RoundJson {
            round: h.round,
            time_ms: h.time_ms,
            time: rfc3339_utc(h.time_ms),
            tree_size: h.tree_size,
            prev: h.prev,
            root: h.root,
            roster_id: h.roster_id,
            message: h.message().to_vec(),
            hash: h.hash(),
            signature: self.signature.clone(),
        };
        // Serializing plain strings and integers cannot fail.
        serde_json::to_string(&json).unwrap_or_default()
    }

    /// Parses the JSON of [`SignedRound::to_json`]: `round`, `time_ms`, `tree_size`, `prev`,
    /// `root`, `roster_id`, `message`, `hash`, `signature` (hex), and an optional `time`.
    /// The header is rebuilt from its fields; `message` and `hash` must be the ones those
    /// fields give (a file whose derived fields disagree with its header is refused, not
    /// silently trusted either way). The signature is not checked here.
    pub fn from_json(text: &str) -> Result<SignedRound, String> {
        let json: RoundJson = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let header = RoundHeader {
            roster_id: json.roster_id,
            round: json.round,
            time_ms: json.time_ms,
            tree_size: json.tree_size,
            prev: json.prev,
            root: json.root,
        };
        if json.message != header.message() {
            return Err(format!(
                "round {}: message does not match the header fields",
                json.round
            ));
        }
        if json.hash != header.hash() {
            return Err(format!(
                "round {}: hash does not match the header fields",
                json.round
            ));
        }
        Ok(SignedRound {
            header,
            signature: json.signature,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> RoundHeader {
        RoundHeader {
            roster_id: [1; 32],
            round: 7,
            time_ms: 1_700_000_000_000,
            tree_size: 3,
            prev: [2; 32],
            root: [3; 32],
        }
    }

    #[test]
    fn json_round_trip_and_derived_fields_checked() {
        let signed = SignedRound {
            header: header(),
            signature: vec![5; 66],
        };
        let json = signed.to_json();
        assert_eq!(SignedRound::from_json(&json), Ok(signed.clone()));
        let mut value: serde_json::Value = serde_json::from_str(&json).expect("json");
        value["round"] = 8.into();
        let err = SignedRound::from_json(&value.to_string()).expect_err("stale message");
        assert!(err.contains("message does not match"), "{err}");
        assert!(SignedRound::from_json("{}").is_err());
    }

    #[test]
    fn message_layout() {
        let m = header().message();
        assert_eq!(&m[..32], ROUND_DOMAIN);
        assert_eq!(&m[32..64], &[1; 32]);
        assert_eq!(&m[64..72], &7u64.to_be_bytes());
        assert_eq!(&m[72..80], &1_700_000_000_000u64.to_be_bytes());
        assert_eq!(&m[80..88], &3u64.to_be_bytes());
        assert_eq!(&m[88..120], &[2; 32]);
        assert_eq!(&m[120..], &[3; 32]);
    }

    #[test]
    fn every_field_changes_the_message() {
        let base = header();
        let variants = [
            RoundHeader {
                roster_id: [9; 32],
                ..base
            },
            RoundHeader { round: 8, ..base },
            RoundHeader {
                time_ms: base.time_ms + 1,
                ..base
            },
            RoundHeader {
                tree_size: 4,
                ..base
            },
            RoundHeader {
                prev: [9; 32],
                ..base
            },
            RoundHeader {
                root: [9; 32],
                ..base
            },
        ];
        for v in variants {
            assert_ne!(v.message(), base.message());
        }
    }

    #[test]
    fn chain_links() {
        let a = header();
        let b = RoundHeader {
            round: 8,
            prev: a.hash(),
            root: [4; 32],
            time_ms: a.time_ms + 100,
            ..a
        };
        assert!(a.is_followed_by(&b));
        assert!(!b.is_followed_by(&a));
        assert!(!a.is_followed_by(&RoundHeader { round: 9, ..b }));
        assert!(!a.is_followed_by(&RoundHeader { prev: a.root, ..b }));
        assert_eq!(RoundHeader::from_message(&b.message()), Some(b));
        assert_eq!(RoundHeader::from_message(&b.message()[1..]), None);
        let mut other_domain = b.message();
        other_domain[0] ^= 1;
        assert_eq!(RoundHeader::from_message(&other_domain), None);
        assert!(!a.is_followed_by(&RoundHeader {
            roster_id: [0; 32],
            ..b
        }));
        assert!(!a.is_followed_by(&RoundHeader {
            time_ms: a.time_ms - 1,
            ..b
        }));
    }
}
