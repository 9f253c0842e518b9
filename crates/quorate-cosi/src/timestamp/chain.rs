//! Sealing rounds (sans-I/O): a batch of submitted hashes becomes a Merkle tree, a round
//! header chained to the previous round, and a collective signature; receipts are then read
//! off the sealed round.

use super::cosigner::{CosignError, RootCosigner, RoundVerifier};
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

/// Why a sequence of signed rounds is not a valid chain ([`check_chain`]).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChainError {
    /// No rounds at all.
    #[error("the chain has no rounds")]
    Empty,
    /// The rounds do not run 0, 1, 2, … without gaps.
    #[error("expected round {expected}, found round {found}: the chain must start at round 0 and have no gaps")]
    OutOfOrder {
        /// The round number that should come next.
        expected: u64,
        /// The round number found.
        found: u64,
    },
    /// Round `round` does not link to the round before it, or its time goes backwards.
    #[error("round {round}: {reason}")]
    BrokenLink {
        /// The offending round.
        round: u64,
        /// What is wrong.
        reason: &'static str,
    },
    /// Round `round` names a roster other than the trusted one.
    #[error("round {round} was signed by roster {found}, not the given roster {expected}")]
    WrongRoster {
        /// The offending round.
        round: u64,
        /// The trusted roster's id (hex).
        expected: String,
        /// The roster id in the round (hex).
        found: String,
    },
    /// Round `round`'s collective signature does not verify.
    #[error("round {round}: collective signature: {reason}")]
    Signature {
        /// The offending round.
        round: u64,
        /// Why.
        reason: String,
    },
}

/// Verifies a whole round chain offline: the rounds must be 0, 1, 2, … in order; each must
/// link to the one before (`prev` is its header hash, [`GENESIS_PREV`] for round 0), carry
/// the trusted roster's id and a time no earlier than the round before, and have a
/// collective signature that `verifier` accepts. Returns the head after the last round.
pub fn check_chain<'a>(
    rounds: impl IntoIterator<Item = &'a SignedRound>,
    verifier: &dyn RoundVerifier,
) -> Result<ChainHead, ChainError> {
    let roster_id = verifier.roster_id();
    let mut head = ChainHead::genesis();
    let mut any = false;
    for signed in rounds {
        any = true;
        let h = &signed.header;
        if h.round != head.next_round {
            return Err(ChainError::OutOfOrder {
                expected: head.next_round,
                found: h.round,
            });
        }
        if h.prev != head.prev {
            return Err(ChainError::BrokenLink {
                round: h.round,
                reason: "prev is not the hash of the previous round's header",
            });
        }
        if h.time_ms < head.last_time_ms {
            return Err(ChainError::BrokenLink {
                round: h.round,
                reason: "time goes backwards",
            });
        }
        if h.roster_id != roster_id {
            return Err(ChainError::WrongRoster {
                round: h.round,
                expected: hex::encode(roster_id),
                found: hex::encode(h.roster_id),
            });
        }
        verifier
            .verify(&h.message(), &signed.signature)
            .map_err(|reason| ChainError::Signature {
                round: h.round,
                reason,
            })?;
        head = ChainHead::after(h);
    }
    if any {
        Ok(head)
    } else {
        Err(ChainError::Empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timestamp::InProcessCosigner;

    fn chain(cosigner: &InProcessCosigner, rounds: u8) -> Vec<SignedRound> {
        let mut head = ChainHead::genesis();
        let mut out = Vec::new();
        for r in 0..rounds {
            let now = crate::timestamp::system_clock()();
            let issued = seal_round(&head, vec![[r; 32]], now, cosigner).expect("sealed");
            head = ChainHead::after(issued.header());
            out.push(issued.signed);
        }
        out
    }

    #[test]
    fn check_chain_accepts_the_chain_and_names_the_first_bad_round() {
        let cosigner =
            InProcessCosigner::from_seed([3; 32], 4, ChainHead::genesis()).expect("roster");
        let verifier = cosigner.verifier();
        let rounds = chain(&cosigner, 4);
        let head = check_chain(&rounds, &verifier).expect("valid chain");
        assert_eq!(head, ChainHead::after(&rounds[3].header));
        assert_eq!(check_chain(&[], &verifier), Err(ChainError::Empty));

        // A gap, a start after 0, a tampered signature, a rewritten round.
        let gap = [rounds[0].clone(), rounds[2].clone()];
        assert_eq!(
            check_chain(&gap, &verifier),
            Err(ChainError::OutOfOrder {
                expected: 1,
                found: 2
            })
        );
        assert!(matches!(
            check_chain(&rounds[1..], &verifier),
            Err(ChainError::OutOfOrder {
                expected: 0,
                found: 1
            })
        ));
        let mut bad_sig = rounds.clone();
        bad_sig[2].signature[40] ^= 1;
        assert!(matches!(
            check_chain(&bad_sig, &verifier),
            Err(ChainError::Signature { round: 2, .. })
        ));
        // Rewriting round 1's root breaks its signature; re-linking round 2 to the rewritten
        // header would need a new signature on round 2 as well.
        let mut rewritten = rounds.clone();
        rewritten[1].header.root = [7; 32];
        assert!(matches!(
            check_chain(&rewritten, &verifier),
            Err(ChainError::Signature { round: 1, .. })
        ));
        let mut relinked = rounds.clone();
        relinked[2].header.prev = [8; 32];
        assert!(matches!(
            check_chain(&relinked, &verifier),
            Err(ChainError::BrokenLink { round: 2, .. })
        ));

        // Another roster's verifier.
        let other = InProcessCosigner::from_seed([4; 32], 4, ChainHead::genesis()).expect("roster");
        assert!(matches!(
            check_chain(&rounds, &other.verifier()),
            Err(ChainError::WrongRoster { round: 0, .. })
        ));
    }
}
