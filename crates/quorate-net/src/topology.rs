//! Index-based tree topologies for aggregation protocols.

use crate::id::NodeId;
use quorate_core::error::ParamError;

/// A complete `b`-ary tree over nodes `0..n` in breadth-first order: node 0 is the root and
/// the children of node `i` are `b·i + 1 ..= b·i + b` (those below `n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NaryTree {
    n: u32,
    branching: u32,
}

impl NaryTree {
    /// A tree of `n >= 1` nodes with branching factor `branching >= 1`.
    pub fn new(n: u32, branching: u32) -> Result<Self, ParamError> {
        if n == 0 {
            return Err(ParamError::Invalid("a tree needs at least one node"));
        }
        if branching == 0 {
            return Err(ParamError::Invalid("branching factor must be at least 1"));
        }
        Ok(NaryTree { n, branching })
    }

    /// The number of nodes.
    pub fn len(&self) -> u32 {
        self.n
    }

    /// Always `false` (a tree has a root).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The branching factor.
    pub fn branching(&self) -> u32 {
        self.branching
    }

    /// Node 0.
    pub fn root(&self) -> NodeId {
        NodeId(0)
    }

    /// Whether `node` belongs to the tree.
    pub fn contains(&self, node: NodeId) -> bool {
        node.0 < self.n
    }

    /// The parent of `node` (`None` for the root and for ids outside the tree).
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        if node.0 == 0 || !self.contains(node) {
            return None;
        }
        Some(NodeId((node.0 - 1) / self.branching))
    }

    /// The children of `node`, in increasing order.
    pub fn children(&self, node: NodeId) -> impl Iterator<Item = NodeId> + Clone {
        let b = u64::from(self.branching);
        let first = u64::from(node.0) * b + 1;
        let end = if self.contains(node) {
            (first + b).min(u64::from(self.n))
        } else {
            first
        };
        (first..end).filter_map(|i| u32::try_from(i).ok().map(NodeId))
    }

    /// The number of children of `node`.
    pub fn num_children(&self, node: NodeId) -> usize {
        self.children(node).count()
    }

    /// Whether `node` has no children.
    pub fn is_leaf(&self, node: NodeId) -> bool {
        self.children(node).next().is_none()
    }

    /// The depth of `node` (root 0).
    pub fn depth(&self, node: NodeId) -> u32 {
        let mut d = 0;
        let mut cur = node;
        while let Some(p) = self.parent(cur) {
            d += 1;
            cur = p;
        }
        d
    }

    /// The depth of the deepest node.
    pub fn height(&self) -> u32 {
        self.depth(NodeId(self.n - 1))
    }

    /// All nodes of the subtree rooted at `node` (including it), breadth first.
    pub fn subtree(&self, node: NodeId) -> Vec<NodeId> {
        if !self.contains(node) {
            return Vec::new();
        }
        let mut out = vec![node];
        let mut i = 0;
        while let Some(&cur) = out.get(i) {
            out.extend(self.children(cur));
            i += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape() {
        let t = NaryTree::new(1000, 8).unwrap();
        assert_eq!(t.height(), 4);
        assert_eq!(t.children(NodeId(0)).collect::<Vec<_>>().len(), 8);
        assert_eq!(t.parent(NodeId(9)), Some(NodeId(1)));
        assert_eq!(t.parent(NodeId(0)), None);
        assert_eq!(t.num_children(NodeId(124)), 7); // 993..=999
        assert!(t.is_leaf(NodeId(125)));
        assert_eq!(t.subtree(NodeId(0)).len(), 1000);
        assert_eq!(t.subtree(NodeId(1)).len(), 1 + 8 + 64 + 415);
        assert!(NaryTree::new(0, 2).is_err());
        assert!(NaryTree::new(3, 0).is_err());
        let chain = NaryTree::new(5, 1).unwrap();
        assert_eq!(chain.height(), 4);
        let single = NaryTree::new(1, 4).unwrap();
        assert_eq!(single.height(), 0);
        assert!(single.is_leaf(NodeId(0)));
    }
}
