//! Sealing rounds (sans-I/O): a batch of submitted hashes becomes a Merkle tree, a round
//! header chained to the previous round, and a collective signature; receipts are then read
//! off the sealed round.

use super::cosigner::{CosignError, RootCosigner};
use super::merkle::{leaf_hash, Hash, MerkleTree};
use super::receipt::Receipt;
use super::round::{RoundHeader, SignedRound, GENESIS_PREV};

/// Where the chain continues: the next round number, the header hash it must link to, and
/// the earliest time it may carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainHead {
    /// The number the next sealed round gets.
    pub next_round: u64,
    /// The hash of the last sealed round's header ([`RoundHeader::hash`]; [`GENESIS_PREV`]
    /// before the first).
    pub prev: Hash,
    /// The time of the last sealed round (round times never go backwards).
    pub last_time_ms: u64,
}

impl ChainHead {
    /// The head of an empty chain.
    pub fn genesis() -> ChainHead {
        ChainHead {
            next_round: 0,
            prev: GENESIS_PREV,
            last_time_ms: 0,
        }
    }

    /// The head right after `header` was sealed.
    pub fn after(header: &RoundHeader) -> ChainHead {
        ChainHead {
            next_round: header.round.saturating_add(1),
            prev: header.hash(),
            last_time_ms: header.time_ms,
        }
    }
}

/// A sealed round together with its tree, so that receipts can be produced for every leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IssuedRound {
    /// The signed header.
    pub signed: SignedRound,
    /// The submitted hashes, in leaf order.
    pub hashes: Vec<Hash>,
    /// The Merkle tree over `leaf_hash(hash)` for each submitted hash.
    pub tree: MerkleTree,
}

impl IssuedRound {
    /// Rebuilds an issued round from stored data, checking that the hashes give the stored
    /// root and size (so a corrupted store is noticed rather than served).
    pub fn from_parts(signed: SignedRound, hashes: Vec<Hash>) -> Option<IssuedRound> {
        let tree = build_tree(&hashes);
        (tree.root() == signed.header.root && tree.size() == signed.header.tree_size).then_some(
            IssuedRound {
                signed,
                hashes,
                tree,
            },
        )
    }

    /// The round header.
    pub fn header(&self) -> &RoundHeader {
        &self.signed.header
    }

    /// The receipt for leaf `index`, or `None` if the round has no such leaf.
    pub fn receipt(&self, index: u64) -> Option<Receipt> {
        let hash = *self.hashes.get(usize::try_from(index).ok()?)?;
        let path = self.tree.audit_path(index)?;
        Some(Receipt::new(&self.signed, hash, index, path))
    }
}

/// The Merkle tree of a batch of submitted hashes.
pub fn build_tree(hashes: &[Hash]) -> MerkleTree {
    MerkleTree::from_leaf_hashes(hashes.iter().map(|h| leaf_hash(h)).collect())
}

/// Seals one round: builds the tree over `hashes`, chains the header to `head`, has
/// `cosigner` sign it. The round time is `max(now_ms, head.last_time_ms)`.
pub fn seal_round(
    head: &ChainHead,
    hashes: Vec<Hash>,
    now_ms: u64,
    cosigner: &dyn RootCosigner,
) -> Result<IssuedRound, CosignError> {
    let tree = build_tree(&hashes);
    let header = RoundHeader {
        roster_id: cosigner.roster_id(),
        round: head.next_round,
        time_ms: now_ms.max(head.last_time_ms),
        tree_size: tree.size(),
        prev: head.prev,
        root: tree.root(),
    };
    let signature = cosigner.cosign(&header.message())?;
    Ok(IssuedRound {
        signed: SignedRound { header, signature },
        hashes,
        tree,
    })
}
