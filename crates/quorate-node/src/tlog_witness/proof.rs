//! RFC 6962 Merkle consistency proofs (verification as in RFC 9162 §2.1.4.2) and the
//! hashes they use.

use sha2::{Digest, Sha256};

/// A Merkle tree hash.
pub type Hash = [u8; 32];

/// The root hash of the empty tree: `SHA-256("")`.
pub fn empty_root() -> Hash {
    Sha256::digest(b"").into()
}

/// The leaf hash `SHA-256(0x00 ‖ data)`.
pub fn leaf_hash(data: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(data);
    h.finalize().into()
}

/// The interior node hash `SHA-256(0x01 ‖ left ‖ right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Verifies that `proof` shows the tree of size `old_size` with root `old_root` is a prefix
/// of the tree of size `new_size` with root `new_root`. Public data only (variable time).
///
/// Edge cases: `old_size == 0` is consistent with anything and needs an empty proof;
/// `old_size == new_size` needs an empty proof and equal roots; `old_size > new_size` is
/// never consistent.
pub fn verify_consistency(
    old_size: u64,
    new_size: u64,
    old_root: &Hash,
    new_root: &Hash,
    proof: &[Hash],
) -> bool {
    if old_size > new_size {
        return false;
    }
    if old_size == 0 {
        return proof.is_empty();
    }
    if old_size == new_size {
        return proof.is_empty() && old_root == new_root;
    }
    // RFC 9162 §2.1.4.2, steps 1 to 7.
    let Some((first, rest)) = proof.split_first() else {
        return false;
    };
    let mut path: Vec<&Hash> = Vec::with_capacity(proof.len() + 1);
    if old_size.is_power_of_two() {
        path.push(old_root);
    }
    path.push(first);
    path.extend(rest);
    let mut fn_ = old_size - 1;
    let mut sn = new_size - 1;
    while fn_ & 1 == 1 {
        fn_ >>= 1;
        sn >>= 1;
    }
    let mut fr = *path[0];
    let mut sr = *path[0];
    for c in &path[1..] {
        if sn == 0 {
            return false;
        }
        if fn_ & 1 == 1 || fn_ == sn {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while fn_ & 1 == 0 && fn_ != 0 {
                fn_ >>= 1;
                sn >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        fn_ >>= 1;
        sn >>= 1;
    }
    &fr == old_root && &sr == new_root && sn == 0
}

/// An in-memory RFC 6962 Merkle tree that produces roots and consistency proofs: the log
/// side, for tests, benchmarks and examples (not used by the witness itself).
///
/// Complete, aligned subtrees are cached by level, so a root or a proof costs
/// O(log² n) hashes.
#[derive(Clone, Debug, Default)]
pub struct MemoryLog {
    /// `levels[k][i]` is the hash of leaves `[i·2^k, (i+1)·2^k)`.
    levels: Vec<Vec<Hash>>,
}

impl MemoryLog {
    /// An empty log.
    pub fn new() -> MemoryLog {
        MemoryLog::default()
    }

    /// The number of leaves.
    pub fn size(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    /// Appends a leaf (its data is hashed with [`leaf_hash`]).
    pub fn append(&mut self, data: &[u8]) {
        let mut h = leaf_hash(data);
        let mut level = 0;
        loop {
            if self.levels.len() == level {
                self.levels.push(Vec::new());
            }
            self.levels[level].push(h);
            let n = self.levels[level].len();
            if n % 2 == 1 {
                break;
            }
            h = node_hash(&self.levels[level][n - 2], &self.levels[level][n - 1]);
            level += 1;
        }
    }

    /// The hash of leaves `[lo, hi)` (`lo < hi ≤ size`).
    fn range_hash(&self, lo: u64, hi: u64) -> Hash {
        let n = hi - lo;
        if n.is_power_of_two() && lo.is_multiple_of(n) {
            let k = n.trailing_zeros() as usize;
            return self.levels[k][(lo / n) as usize];
        }
        let k = split_point(n);
        node_hash(&self.range_hash(lo, lo + k), &self.range_hash(lo + k, hi))
    }

    /// The root at tree size `size` (at most the current size).
    pub fn root(&self, size: u64) -> Hash {
        if size == 0 {
            empty_root()
        } else {
            self.range_hash(0, size)
        }
    }

    /// The consistency proof from `old` to `new` (`0 < old ≤ new ≤ size`; empty otherwise),
    /// RFC 6962 §2.1.2 `PROOF(m, D[n])`.
    pub fn consistency_proof(&self, old: u64, new: u64) -> Vec<Hash> {
        let mut out = Vec::new();
        if old > 0 && old < new && new <= self.size() {
            self.subproof(old, 0, new, true, &mut out);
        }
        out
    }

    /// `SUBPROOF(m, D[lo:hi], b)`.
    fn subproof(&self, m: u64, lo: u64, hi: u64, b: bool, out: &mut Vec<Hash>) {
        let n = hi - lo;
        if m == n {
            if !b {
                out.push(self.range_hash(lo, hi));
            }
            return;
        }
        let k = split_point(n);
        if m <= k {
            self.subproof(m, lo, lo + k, b, out);
            out.push(self.range_hash(lo + k, hi));
        } else {
            self.subproof(m - k, lo + k, hi, false, out);
            out.push(self.range_hash(lo, lo + k));
        }
    }
}

/// The largest power of two strictly less than `n` (`n ≥ 2`).
fn split_point(n: u64) -> u64 {
    1u64 << (63 - (n - 1).leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6962 MTH computed directly from the definition.
    fn mth(leaves: &[Vec<u8>]) -> Hash {
        match leaves.len() {
            0 => empty_root(),
            1 => leaf_hash(&leaves[0]),
            n => {
                let k = split_point(n as u64) as usize;
                node_hash(&mth(&leaves[..k]), &mth(&leaves[k..]))
            }
        }
    }

    #[test]
    fn roots_match_the_definition_and_every_proof_verifies() {
        let mut log = MemoryLog::new();
        let mut leaves = Vec::new();
        for i in 0..40u32 {
            leaves.push(i.to_be_bytes().to_vec());
            log.append(&i.to_be_bytes());
        }
        for n in 0..=40u64 {
            assert_eq!(log.root(n), mth(&leaves[..n as usize]), "root {n}");
        }
        for new in 1..=40u64 {
            for old in 0..=new {
                let proof = log.consistency_proof(old, new);
                let (r1, r2) = (log.root(old), log.root(new));
                assert!(
                    verify_consistency(old, new, &r1, &r2, &proof),
                    "{old}->{new}"
                );
                if old > 0 && old < new {
                    // Every single-hash change, a dropped or an added hash fails.
                    for i in 0..proof.len() {
                        let mut bad = proof.clone();
                        bad[i][0] ^= 1;
                        assert!(!verify_consistency(old, new, &r1, &r2, &bad));
                    }
                    assert!(!verify_consistency(old, new, &r1, &r2, &proof[1..]));
                    let mut longer = proof.clone();
                    longer.push([0; 32]);
                    assert!(!verify_consistency(old, new, &r1, &r2, &longer));
                    assert!(!verify_consistency(old, new, &r2, &r2, &proof));
                    assert!(!verify_consistency(
                        old,
                        new,
                        &r1,
                        &log.root(new - 1),
                        &proof
                    ));
                }
            }
        }
        assert!(!verify_consistency(5, 4, &log.root(5), &log.root(4), &[]));
        assert!(!verify_consistency(
            0,
            4,
            &empty_root(),
            &log.root(4),
            &[[0; 32]]
        ));
        assert!(!verify_consistency(4, 4, &log.root(4), &log.root(3), &[]));
    }
}
