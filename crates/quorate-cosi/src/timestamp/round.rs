//! The per-round statement the witnesses cosign, and the hash chain of rounds.
//!
//! A round header is encoded as a fixed-layout byte string (every field has a fixed width, so
//! the encoding is injective):
//!
//! ```text
//! ROUND_DOMAIN (32 bytes: "quorate/cosi/timestamp/round/v1" ‖ 0x00)
//! ‖ roster_id (32) ‖ round (u64 BE) ‖ time_ms (u64 BE) ‖ tree_size (u64 BE)
//! ‖ prev_root (32) ‖ root (32)
//! ```
//!
//! The domain tag keeps a timestamp-round signature from ever being valid as a CoSi
//! signature over some other protocol's message under the same witness keys, and the roster
//! id names the witness set that signs. `prev_root` is the root of round `round − 1`
//! ([`GENESIS_PREV_ROOT`] for round 0), so the signed rounds form a hash chain: rewriting an
//! issued round would need new signatures on it and on every later round.

use super::merkle::Hash;

/// The domain tag at the start of every signed round message (32 bytes, NUL-padded).
pub const ROUND_DOMAIN: &[u8; 32] = b"quorate/cosi/timestamp/round/v1\0";

/// The `prev_root` of round 0.
pub const GENESIS_PREV_ROOT: Hash = [0u8; 32];

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
    /// The previous round's root ([`GENESIS_PREV_ROOT`] for round 0).
    pub prev_root: Hash,
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
        put(&self.prev_root);
        put(&self.root);
        m
    }

    /// Whether `next` directly follows `self` in the chain: next round number, same roster,
    /// `next.prev_root == self.root`, and time not going backwards.
    pub fn is_followed_by(&self, next: &RoundHeader) -> bool {
        self.round.checked_add(1) == Some(next.round)
            && next.prev_root == self.root
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

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> RoundHeader {
        RoundHeader {
            roster_id: [1; 32],
            round: 7,
            time_ms: 1_700_000_000_000,
            tree_size: 3,
            prev_root: [2; 32],
            root: [3; 32],
        }
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
                prev_root: [9; 32],
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
            prev_root: a.root,
            root: [4; 32],
            time_ms: a.time_ms + 100,
            ..a
        };
        assert!(a.is_followed_by(&b));
        assert!(!b.is_followed_by(&a));
        assert!(!a.is_followed_by(&RoundHeader { round: 9, ..b }));
        assert!(!a.is_followed_by(&RoundHeader {
            prev_root: [0; 32],
            ..b
        }));
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
