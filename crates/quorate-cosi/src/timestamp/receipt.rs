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

/// Milliseconds since the Unix epoch as an RFC 3339 UTC time with milliseconds, e.g.
/// `1970-01-01T00:00:00.000Z`. Dates use the proleptic Gregorian calendar (days to
/// year/month/day by the `civil_from_days` algorithm of H. Hinnant, "chrono-Compatible
/// Low-Level Date Algorithms"); years past 9999 print with more digits.
pub fn rfc3339_utc(time_ms: u64) -> String {
    let (secs, ms) = (time_ms / 1000, time_ms % 1000);
    let (days, day_secs) = (secs / 86_400, secs % 86_400);
    // Shift the epoch to 0000-03-01 so leap days end each 400-year era.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        day_secs / 3600,
        day_secs / 60 % 60,
        day_secs % 60
    )
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

/// Parses exactly 64 hex characters (either case), with optional surrounding whitespace,
/// into 32 bytes.
pub fn parse_hash_hex(text: &str) -> Option<Hash> {
    parse_hash_hex_bytes(text.as_bytes())
}

/// Value of each byte as a hex digit, or `0xff`.
const HEX_VALUES: [u8; 256] = {
    let mut table = [0xffu8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => 0xff,
        };
        c += 1;
    }
    table
};

/// [`parse_hash_hex`] on raw bytes (e.g. a request body), without a UTF-8 pass. This is on
/// the server's submit path, hence the lookup table.
pub fn parse_hash_hex_bytes(text: &[u8]) -> Option<Hash> {
    let text = text.trim_ascii();
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    let mut bad = 0u8;
    for (o, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        let hi = HEX_VALUES[usize::from(pair[0])];
        let lo = HEX_VALUES[usize::from(pair[1])];
        bad |= hi | lo;
        *o = (hi << 4) | (lo & 0x0f);
    }
    (bad & 0xf0 == 0).then_some(out)
}

pub(super) mod hex32 {
    use super::Hash;
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(h: &Hash, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(h))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        super::parse_hash_hex(&text)
            .ok_or_else(|| D::Error::custom("expected a 32-byte hash as 64 hex characters"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_times() {
        use super::rfc3339_utc;
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_868_799_999), "2000-02-29T23:59:59.999Z");
        assert_eq!(rfc3339_utc(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(253_402_300_799_000), "9999-12-31T23:59:59.000Z");
        assert!(!rfc3339_utc(u64::MAX).is_empty());
    }

    use super::*;

    #[test]
    fn hash_hex_parsing() {
        let h: Hash = core::array::from_fn(|i| (i as u8).wrapping_mul(37));
        let lower = hex::encode(h);
        assert_eq!(parse_hash_hex(&lower), Some(h));
        assert_eq!(parse_hash_hex(&lower.to_uppercase()), Some(h));
        assert_eq!(parse_hash_hex(&format!(" {lower}\r\n")), Some(h));
        assert_eq!(parse_hash_hex(&lower[..62]), None);
        assert_eq!(parse_hash_hex(&format!("{lower}00")), None);
        for bad in ['g', 'G', ' ', ':', '/', '@', '`', 'é'] {
            let mut s = lower.clone();
            s.replace_range(10..11, &bad.to_string());
            assert_eq!(parse_hash_hex(&s), None, "{bad:?}");
        }
        assert_eq!(parse_hash_hex_bytes(&[0xff; 64]), None);
    }
}

mod hex32_vec {
    use super::Hash;
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[Hash], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(hex::encode))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Hash>, D::Error> {
        let items = Vec::<String>::deserialize(d)?;
        if items.len() > 64 {
            return Err(D::Error::custom("audit path longer than 64 hashes"));
        }
        items
            .iter()
            .map(|t| {
                super::parse_hash_hex(t)
                    .ok_or_else(|| D::Error::custom("expected a 32-byte hash as 64 hex characters"))
            })
            .collect()
    }
}

pub(super) mod hex_bytes {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(v))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        hex::decode(text.trim()).map_err(|e| D::Error::custom(format!("bad hex: {e}")))
    }
}
