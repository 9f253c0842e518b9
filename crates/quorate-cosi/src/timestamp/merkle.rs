//! RFC 6962 / RFC 9162 Merkle trees over SHA-256: leaf and node hashing, the tree root,
//! audit paths (inclusion proofs) and their verification.
//!
//! * `leaf_hash(d) = SHA-256(0x00 ‖ d)` and `node_hash(l, r) = SHA-256(0x01 ‖ l ‖ r)`. The two
//!   prefixes separate the leaf and interior-node domains, so an interior node can never be
//!   presented as a leaf (the second-preimage attack on unprefixed trees).
//! * For `n > 1` leaves, `MTH(D[0..n]) = node_hash(MTH(D[0..k]), MTH(D[k..n]))` with `k` the
//!   largest power of two strictly below `n`: the tree is *left-balanced*, and an odd node is
//!   never duplicated (Bitcoin's duplication makes `[a, b, c]` and `[a, b, c, c]` collide).
//!   Built bottom-up, this is the same as pairing nodes level by level and carrying a lone last
//!   node up unchanged; [`MerkleTree`] stores those levels so that every audit path is a
//!   lookup.
//! * An audit path lists the sibling hashes from the leaf up; verification is the algorithm of
//!   RFC 9162 §2.1.3.2, which also rejects a path that is too short or too long for the
//!   claimed `(index, size)`.

use sha2::{Digest, Sha256};

/// A 32-byte SHA-256 hash.
pub type Hash = [u8; 32];

/// Domain prefix of leaf hashes.
pub const LEAF_PREFIX: u8 = 0x00;
/// Domain prefix of interior-node hashes.
pub const NODE_PREFIX: u8 = 0x01;

/// `SHA-256(0x00 ‖ data)`: the hash of one leaf.
pub fn leaf_hash(data: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([LEAF_PREFIX]);
    h.update(data);
    h.finalize().into()
}

/// `SHA-256(0x01 ‖ left ‖ right)`: the hash of an interior node.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([NODE_PREFIX]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The root of the empty tree, `SHA-256("")` (RFC 6962 §2.1).
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// A complete Merkle tree: every level from the leaf hashes up to the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MerkleTree {
    /// `levels[0]` are the leaf hashes; each next level pairs the previous one, carrying a
    /// lone last node up unchanged; the last level holds the root alone.
    levels: Vec<Vec<Hash>>,
}

impl MerkleTree {
    /// Builds the tree whose leaves are the given data items (each hashed with
    /// [`leaf_hash`]).
    pub fn from_data<T: AsRef<[u8]>>(items: &[T]) -> MerkleTree {
        Self::from_leaf_hashes(items.iter().map(|d| leaf_hash(d.as_ref())).collect())
    }

    /// Builds the tree over already-computed leaf hashes.
    pub fn from_leaf_hashes(leaves: Vec<Hash>) -> MerkleTree {
        let mut levels = vec![leaves];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let prev = &levels[levels.len() - 1];
            let mut next = Vec::with_capacity(prev.len().div_ceil(2));
            for pair in prev.chunks(2) {
                match pair {
                    [l, r] => next.push(node_hash(l, r)),
                    [lone] => next.push(*lone),
                    _ => {}
                }
            }
            levels.push(next);
        }
        MerkleTree { levels }
    }

    /// The number of leaves.
    pub fn size(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    /// The leaf hashes.
    pub fn leaves(&self) -> &[Hash] {
        self.levels.first().map_or(&[], |l| l.as_slice())
    }

    /// The tree head: `MTH` of all leaves ([`empty_root`] for no leaves).
    pub fn root(&self) -> Hash {
        match self.levels.last() {
            Some(top) if top.len() == 1 => top[0],
            _ => empty_root(),
        }
    }

    /// The audit path of leaf `index` (siblings from the leaf up), or `None` if out of range.
    pub fn audit_path(&self, index: u64) -> Option<Vec<Hash>> {
        let mut i = usize::try_from(index).ok()?;
        if i >= self.leaves().len() {
            return None;
        }
        let mut path = Vec::with_capacity(self.levels.len());
        for level in &self.levels[..self.levels.len() - 1] {
            let sibling = i ^ 1;
            if sibling < level.len() {
                path.push(level[sibling]);
            }
            i >>= 1;
        }
        Some(path)
    }
}

/// Why an inclusion proof was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InclusionError {
    /// The leaf index is not below the tree size.
    #[error("leaf index {index} is not below tree size {size}")]
    IndexOutOfRange {
        /// The claimed leaf index.
        index: u64,
        /// The claimed tree size.
        size: u64,
    },
    /// The path has the wrong number of hashes for `(index, size)`.
    #[error("audit path has the wrong length for this leaf index and tree size")]
    WrongPathLength,
    /// The recomputed root differs from the expected one.
    #[error("recomputed root does not match")]
    RootMismatch,
}

/// Recomputes the root from a leaf hash and its audit path (RFC 9162 §2.1.3.2).
pub fn root_from_path(
    leaf: &Hash,
    index: u64,
    size: u64,
    path: &[Hash],
) -> Result<Hash, InclusionError> {
    if index >= size {
        return Err(InclusionError::IndexOutOfRange { index, size });
    }
    let mut fnode = index;
    let mut snode = size - 1;
    let mut r = *leaf;
    for p in path {
        if snode == 0 {
            return Err(InclusionError::WrongPathLength);
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            while fnode & 1 == 0 && fnode != 0 {
                fnode >>= 1;
                snode >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    if snode != 0 {
        return Err(InclusionError::WrongPathLength);
    }
    Ok(r)
}

/// Checks that `leaf` is the leaf at `index` of the tree of `size` leaves with head `root`.
pub fn verify_inclusion(
    leaf: &Hash,
    index: u64,
    size: u64,
    path: &[Hash],
    root: &Hash,
) -> Result<(), InclusionError> {
    let computed = root_from_path(leaf, index, size, path)?;
    if bool::from(subtle::ConstantTimeEq::ct_eq(&computed[..], &root[..])) {
        Ok(())
    } else {
        Err(InclusionError::RootMismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn largest_power_of_two_below(n: usize) -> usize {
        let mut k = 1;
        while k * 2 < n {
            k *= 2;
        }
        k
    }

    /// RFC 6962 §2.1 `MTH`, written recursively as in the RFC.
    fn reference_root(leaves: &[Hash]) -> Hash {
        match leaves.len() {
            0 => empty_root(),
            1 => leaves[0],
            n => {
                let k = largest_power_of_two_below(n);
                node_hash(&reference_root(&leaves[..k]), &reference_root(&leaves[k..]))
            }
        }
    }

    /// RFC 6962 §2.1.1 `PATH(m, D[n])`, recursively.
    fn reference_path(m: usize, leaves: &[Hash]) -> Vec<Hash> {
        let n = leaves.len();
        if n <= 1 {
            return Vec::new();
        }
        let k = largest_power_of_two_below(n);
        if m < k {
            let mut p = reference_path(m, &leaves[..k]);
            p.push(reference_root(&leaves[k..]));
            p
        } else {
            let mut p = reference_path(m - k, &leaves[k..]);
            p.push(reference_root(&leaves[..k]));
            p
        }
    }

    fn items(n: usize) -> Vec<[u8; 4]> {
        (0..n as u32).map(|i| i.to_be_bytes()).collect()
    }

    #[test]
    fn matches_the_rfc_recursion() {
        for n in 0..=70 {
            let tree = MerkleTree::from_data(&items(n));
            let leaves: Vec<Hash> = items(n).iter().map(|d| leaf_hash(d)).collect();
            assert_eq!(tree.root(), reference_root(&leaves), "root n={n}");
            for m in 0..n {
                let path = tree.audit_path(m as u64).expect("in range");
                assert_eq!(path, reference_path(m, &leaves), "path n={n} m={m}");
            }
            assert_eq!(tree.audit_path(n as u64), None);
        }
    }

    #[test]
    fn rfc6962_test_vectors() {
        // The 8-leaf test vector of certificate-transparency-go (merkle tree tests): inputs
        // "", 00, 10, 2021, 3031, 40414243, 5051525354555657, 606162636465666768696a6b6c6d6e6f.
        let data: Vec<Vec<u8>> = [
            "",
            "00",
            "10",
            "2021",
            "3031",
            "40414243",
            "5051525354555657",
            "606162636465666768696a6b6c6d6e6f",
        ]
        .iter()
        .map(|h| hex::decode(h).expect("hex"))
        .collect();
        let roots = [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        ];
        for (n, want) in roots.iter().enumerate() {
            let tree = MerkleTree::from_data(&data[..=n]);
            assert_eq!(hex::encode(tree.root()), *want, "size {}", n + 1);
        }
        // Published inclusion proof for leaf 0 of the 8-leaf tree.
        let tree = MerkleTree::from_data(&data);
        let path: Vec<String> = tree
            .audit_path(0)
            .expect("in range")
            .iter()
            .map(hex::encode)
            .collect();
        assert_eq!(
            path,
            [
                "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
            ]
        );
        assert_eq!(
            hex::encode(empty_root()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn verify_rejects_bad_lengths() {
        let tree = MerkleTree::from_data(&items(5));
        let leaf = tree.leaves()[4];
        let path = tree.audit_path(4).expect("in range");
        assert_eq!(path.len(), 1);
        assert!(verify_inclusion(&leaf, 4, 5, &path, &tree.root()).is_ok());
        let mut long = path.clone();
        long.push([0; 32]);
        assert_eq!(
            verify_inclusion(&leaf, 4, 5, &long, &tree.root()),
            Err(InclusionError::WrongPathLength)
        );
        assert_eq!(
            verify_inclusion(&leaf, 4, 5, &[], &tree.root()),
            Err(InclusionError::WrongPathLength)
        );
        assert_eq!(
            verify_inclusion(&leaf, 5, 5, &path, &tree.root()),
            Err(InclusionError::IndexOutOfRange { index: 5, size: 5 })
        );
    }
}
