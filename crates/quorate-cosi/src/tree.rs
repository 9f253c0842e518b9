//! Communication trees over roster indices.
//!
//! A [`Tree`] is a rooted tree whose nodes are roster indices `0..n`; it may cover only part
//! of the roster (after [`Tree::repair`] removes absent witnesses). Each node is also a
//! witness; interior nodes additionally aggregate their children (the paper's and onet's
//! layout). Constructors:
//!
//! * [`Tree::complete`]`(n, branching)`: complete `branching`-ary tree in breadth-first
//!   numbering (node `i` has children `b·i+1 ..= b·i+b`), like onet's `GenerateNaryTree`;
//! * [`Tree::with_depth`]`(n, depth)`: the complete tree with the smallest branching factor
//!   of at most that depth;
//! * [`Tree::three_level`]`(n)`: root → `⌈√(n−1)⌉` subleaders → leaves (ftcosi/blscosi);
//! * [`Tree::from_children`]: any shape.
//!
//! [`KeyTree`] binds a tree to a [`Roster`] and caches every subtree's aggregate key, so an
//! aggregator obtains a child's participant key `A'_child` with `min(present, absent)`
//! additions inside that subtree.

use crate::error::CosiError;
use crate::keys::identity;
use crate::mask::Mask;
use crate::roster::Roster;
use curve25519_dalek::edwards::EdwardsPoint;
use quorate_core::ParamError;
use std::sync::Arc;

const NONE: usize = usize::MAX;

/// A rooted tree over (a subset of) roster indices `0..n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    n: usize,
    root: usize,
    parent: Vec<usize>,
    children: Vec<Vec<usize>>,
    /// Members in preorder.
    order: Vec<usize>,
    /// Position of each member in `order` (`NONE` for non-members).
    pos: Vec<usize>,
    /// End (exclusive) of each member's subtree range in `order`.
    end: Vec<usize>,
    /// Depth of each member (root = 0).
    level: Vec<usize>,
}

/// A subleader replacement made by [`Tree::repair`]: `promoted` took the place of the absent
/// node `absent` (and adopted its other children).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Promotion {
    /// The absent interior node.
    pub absent: usize,
    /// The node that replaced it.
    pub promoted: usize,
}

impl Tree {
    /// A tree given by its root and each node's ordered children (`children.len() == n`).
    /// Nodes not reachable from the root are not members and must have no children. Rejects
    /// out-of-range indices, a node listed twice, and cycles.
    pub fn from_children(
        n: usize,
        root: usize,
        children: Vec<Vec<usize>>,
    ) -> Result<Self, CosiError> {
        if children.len() != n {
            return Err(ParamError::LengthMismatch {
                what: "children lists",
                expected: n,
                got: children.len(),
            }
            .into());
        }
        if root >= n {
            return Err(ParamError::Invalid("tree root outside the roster").into());
        }
        let mut parent = vec![NONE; n];
        let mut pos = vec![NONE; n];
        let mut end = vec![NONE; n];
        let mut level = vec![NONE; n];
        let mut order = Vec::with_capacity(n);
        // Iterative preorder; a node seen twice means a repeated child or a cycle.
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        let mut visiting: Vec<usize> = Vec::new();
        pos[root] = 0;
        level[root] = 0;
        order.push(root);
        visiting.push(root);
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let kids = children.get(node).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(&child) = kids.get(*next) {
                *next += 1;
                if child >= n {
                    return Err(ParamError::Invalid("tree child outside the roster").into());
                }
                if pos[child] != NONE {
                    return Err(ParamError::Invalid("tree node listed twice or cycle").into());
                }
                parent[child] = node;
                pos[child] = order.len();
                level[child] = level[node] + 1;
                order.push(child);
                stack.push((child, 0));
            } else {
                end[node] = order.len();
                stack.pop();
            }
        }
        for (i, kids) in children.iter().enumerate() {
            if pos[i] == NONE && !kids.is_empty() {
                return Err(
                    ParamError::Invalid("children listed for a node outside the tree").into(),
                );
            }
        }
        Ok(Tree {
            n,
            root,
            parent,
            children,
            order,
            pos,
            end,
            level,
        })
    }

    /// The complete `branching`-ary tree over all `n` witnesses in breadth-first numbering
    /// (root 0; node `i` has children `b·i+1 ..= b·i+b` that exist).
    pub fn complete(n: usize, branching: usize) -> Result<Self, CosiError> {
        if n == 0 {
            return Err(ParamError::Invalid("a tree needs at least one node").into());
        }
        if branching == 0 {
            return Err(ParamError::Invalid("branching factor must be at least 1").into());
        }
        let children = (0..n)
            .map(|i| {
                let first = i.saturating_mul(branching).saturating_add(1);
                let last = first.saturating_add(branching).min(n);
                (first.min(n)..last).collect()
            })
            .collect();
        Tree::from_children(n, 0, children)
    }

    /// The complete tree with the smallest branching factor `b` such that a tree of depth
    /// `depth` holds `n` nodes (`1 + b + … + b^depth ≥ n`). `depth = 0` requires `n = 1`.
    pub fn with_depth(n: usize, depth: usize) -> Result<Self, CosiError> {
        if n == 0 {
            return Err(ParamError::Invalid("a tree needs at least one node").into());
        }
        if depth == 0 {
            if n == 1 {
                return Tree::complete(1, 1);
            }
            return Err(ParamError::Invalid("depth 0 holds a single node").into());
        }
        let capacity = |b: usize| {
            let mut total = 1usize;
            let mut layer = 1usize;
            for _ in 0..depth {
                layer = layer.saturating_mul(b);
                total = total.saturating_add(layer);
            }
            total
        };
        let mut b = 1usize;
        while capacity(b) < n {
            b += 1;
        }
        Tree::complete(n, b)
    }

    /// Root 0, subleaders `1..=m` with `m = ⌈√(n−1)⌉`, and the remaining witnesses split into
    /// `m` contiguous groups of leaves (ftcosi/blscosi's 3-level layout).
    pub fn three_level(n: usize) -> Result<Self, CosiError> {
        if n == 0 {
            return Err(ParamError::Invalid("a tree needs at least one node").into());
        }
        let mut children = vec![Vec::new(); n];
        if n > 1 {
            let others = n - 1;
            let mut m = 1usize;
            while m * m < others {
                m += 1;
            }
            let m = m.min(others);
            children[0] = (1..=m).collect();
            let leaves: Vec<usize> = (m + 1..n).collect();
            let per = leaves.len().div_ceil(m).max(1);
            for (k, chunk) in leaves.chunks(per).enumerate() {
                if let Some(list) = children.get_mut(1 + k) {
                    list.extend_from_slice(chunk);
                }
            }
        }
        Tree::from_children(n, 0, children)
    }

    /// The star: root 0 with every other witness as a direct child.
    pub fn star(n: usize) -> Result<Self, CosiError> {
        Tree::complete(n, n.saturating_sub(1).max(1))
    }

    /// The roster size the tree is defined over.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The root (leader).
    pub fn root(&self) -> usize {
        self.root
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Always `false`: a tree has a root.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Whether roster index `i` is a member.
    pub fn contains(&self, i: usize) -> bool {
        self.pos.get(i).is_some_and(|&p| p != NONE)
    }

    /// The parent of `i` (`None` for the root and non-members).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent.get(i).copied().filter(|&p| p != NONE)
    }

    /// The ordered children of `i` (empty for leaves and non-members).
    pub fn children(&self, i: usize) -> &[usize] {
        self.children.get(i).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The members in preorder.
    pub fn preorder(&self) -> &[usize] {
        &self.order
    }

    /// The members of the subtree rooted at `i`, in preorder (empty for non-members).
    pub fn subtree(&self, i: usize) -> &[usize] {
        match (self.pos.get(i), self.end.get(i)) {
            (Some(&p), Some(&e)) if p != NONE => self.order.get(p..e).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Whether `i` lies in the subtree rooted at `top`.
    pub fn in_subtree(&self, top: usize, i: usize) -> bool {
        match (self.pos.get(top), self.end.get(top), self.pos.get(i)) {
            (Some(&p), Some(&e), Some(&q)) => p != NONE && q != NONE && p <= q && q < e,
            _ => false,
        }
    }

    /// The depth of member `i` (root 0).
    pub fn level(&self, i: usize) -> Option<usize> {
        self.level.get(i).copied().filter(|&l| l != NONE)
    }

    /// The height of the tree (0 for a single node).
    pub fn depth(&self) -> usize {
        self.order
            .iter()
            .filter_map(|&i| self.level(i))
            .max()
            .unwrap_or(0)
    }

    /// Members grouped by depth: `levels()[d]` lists the nodes at depth `d` in preorder.
    pub fn levels(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.depth() + 1];
        for &i in &self.order {
            if let Some(list) = self.level(i).and_then(|l| out.get_mut(l)) {
                list.push(i);
            }
        }
        out
    }

    /// Removes the nodes for which `live` is false, keeping every live node connected:
    /// an absent node is replaced by its first live child (or, if no child is live, by the
    /// replacement of its first child subtree that still has a live node), which adopts the
    /// absent node's other (repaired) children after its own. Applies to the root too.
    /// Errors if no member is live.
    pub fn repair(
        &self,
        live: impl Fn(usize) -> bool,
    ) -> Result<(Tree, Vec<Promotion>), CosiError> {
        let mut rep = vec![NONE; self.n];
        let mut new_children: Vec<Vec<usize>> = vec![Vec::new(); self.n];
        let mut promotions = Vec::new();
        // Reverse preorder visits children before parents.
        for &v in self.order.iter().rev() {
            let resolved: Vec<usize> = self
                .children(v)
                .iter()
                .filter_map(|&c| rep.get(c).copied().filter(|&r| r != NONE))
                .collect();
            if live(v) {
                rep[v] = v;
                new_children[v] = resolved;
            } else if !resolved.is_empty() {
                let promoted = self
                    .children(v)
                    .iter()
                    .copied()
                    .find(|&c| live(c))
                    .unwrap_or(resolved[0]);
                let mut adopted = core::mem::take(&mut new_children[promoted]);
                adopted.extend(resolved.iter().copied().filter(|&r| r != promoted));
                new_children[promoted] = adopted;
                rep[v] = promoted;
                promotions.push(Promotion {
                    absent: v,
                    promoted,
                });
            }
        }
        let root = rep.get(self.root).copied().unwrap_or(NONE);
        if root == NONE {
            return Err(ParamError::Invalid("no live witness in the tree").into());
        }
        // Report promotions top-down.
        promotions.reverse();
        Ok((Tree::from_children(self.n, root, new_children)?, promotions))
    }
}

/// A [`Tree`] bound to a [`Roster`], with the aggregate key of every subtree cached.
#[derive(Debug)]
pub struct KeyTree {
    roster: Arc<Roster>,
    tree: Tree,
    sums: Vec<EdwardsPoint>,
}

impl KeyTree {
    /// Binds `tree` to `roster` (same `n`) and sums every subtree's keys (`O(n)` additions).
    pub fn new(roster: Arc<Roster>, tree: Tree) -> Result<Self, CosiError> {
        if tree.n() != roster.len() {
            return Err(ParamError::LengthMismatch {
                what: "tree size vs roster size",
                expected: roster.len(),
                got: tree.n(),
            }
            .into());
        }
        let mut sums = vec![identity(); tree.n()];
        for &v in tree.preorder().iter().rev() {
            let mut acc = roster
                .public_key(v)
                .map(|k| *k.point())
                .unwrap_or_else(identity);
            for &c in tree.children(v) {
                if let Some(s) = sums.get(c) {
                    acc += s;
                }
            }
            sums[v] = acc;
        }
        Ok(KeyTree { roster, tree, sums })
    }

    /// The roster.
    pub fn roster(&self) -> &Arc<Roster> {
        &self.roster
    }

    /// The tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The aggregate key of the whole subtree rooted at `node`.
    pub fn subtree_key(&self, node: usize) -> EdwardsPoint {
        self.sums.get(node).copied().unwrap_or_else(identity)
    }

    /// `Σ A_i` over the members of `node`'s subtree that `mask` marks present (bits outside
    /// the subtree are ignored): `min(present, absent)` additions within the subtree.
    pub fn subtree_aggregate(&self, node: usize, mask: &Mask) -> EdwardsPoint {
        let members = self.tree.subtree(node);
        let present = members.iter().filter(|&&i| mask.contains(i)).count();
        let key = |i: usize| self.roster.public_key(i).map(|k| *k.point());
        if 2 * present >= members.len() {
            let mut acc = self.subtree_key(node);
            for &i in members.iter().filter(|&&i| !mask.contains(i)) {
                if let Some(p) = key(i) {
                    acc -= p;
                }
            }
            acc
        } else {
            let mut acc = identity();
            for &i in members.iter().filter(|&&i| mask.contains(i)) {
                if let Some(p) = key(i) {
                    acc += p;
                }
            }
            acc
        }
    }

    /// Whether every participant of `mask` lies in `node`'s subtree.
    pub fn mask_within_subtree(&self, node: usize, mask: &Mask) -> bool {
        mask.iter().all(|i| self.tree.in_subtree(node, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_tree_shape() {
        let t = Tree::complete(10, 3).expect("tree");
        assert_eq!(t.children(0), &[1, 2, 3]);
        assert_eq!(t.children(2), &[7, 8, 9]);
        assert_eq!(t.children(3), &[] as &[usize]);
        assert_eq!(t.parent(9), Some(2));
        assert_eq!(t.depth(), 2);
        assert_eq!(t.subtree(1), &[1, 4, 5, 6]);
        assert!(t.in_subtree(1, 5) && !t.in_subtree(1, 7));
        assert_eq!(t.len(), 10);
        let d = Tree::with_depth(8192, 3).expect("tree");
        assert!(d.depth() <= 3);
        assert_eq!(d.children(0).len(), 20);
        let one = Tree::with_depth(1, 0).expect("tree");
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn three_level_layout() {
        for n in [1usize, 2, 3, 10, 100, 1000] {
            let t = Tree::three_level(n).expect("tree");
            assert_eq!(t.len(), n);
            assert!(t.depth() <= 2);
        }
        let t = Tree::three_level(101).expect("tree");
        assert_eq!(t.children(0).len(), 10);
        assert_eq!(t.children(1).len(), 9);
    }

    #[test]
    fn bad_shapes_are_rejected() {
        assert!(Tree::from_children(3, 0, vec![vec![1, 1], vec![], vec![]]).is_err());
        assert!(Tree::from_children(3, 0, vec![vec![1], vec![0], vec![]]).is_err());
        assert!(Tree::from_children(3, 0, vec![vec![5], vec![], vec![]]).is_err());
        assert!(Tree::from_children(3, 0, vec![vec![1], vec![], vec![1]]).is_err());
        assert!(Tree::from_children(3, 3, vec![vec![], vec![], vec![]]).is_err());
        assert!(Tree::complete(0, 2).is_err());
        assert!(Tree::complete(3, 0).is_err());
    }

    #[test]
    fn repair_promotes_first_live_child() {
        // 0 -> {1, 2}; 1 -> {3, 4}; 2 -> {5, 6}
        let t = Tree::complete(7, 2).expect("tree");
        let (r, p) = t.repair(|i| i != 1).expect("repair");
        assert_eq!(
            p,
            vec![Promotion {
                absent: 1,
                promoted: 3
            }]
        );
        assert_eq!(r.children(0), &[3, 2]);
        assert_eq!(r.children(3), &[4]);
        assert!(!r.contains(1));
        assert_eq!(r.len(), 6);
        // Root absent, and its first child absent too.
        let (r, p) = t.repair(|i| i != 0 && i != 1).expect("repair");
        assert_eq!(r.root(), 2);
        assert_eq!(p.len(), 2);
        assert_eq!(r.len(), 5);
        for i in [2, 3, 4, 5, 6] {
            assert!(r.contains(i));
        }
        // A subtree with no live node disappears.
        let (r, _) = t.repair(|i| ![1, 3, 4].contains(&i)).expect("repair");
        assert_eq!(r.children(0), &[2]);
        assert!(t.repair(|_| false).is_err());
    }
}
