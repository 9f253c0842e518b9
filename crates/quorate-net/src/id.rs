//! Node and timer identifiers.
//!
//! # Mapping to production party ids
//!
//! Inside a simulation the parties are numbered by a dense, zero-based [`NodeId`]: node `i`
//! is the `i`-th process handed to the simulator, so per-node state lives in plain vectors.
//! Production code identifies parties by [`quorate_core::party::PartyId`], a non-zero
//! 16-bit index. The two are related by
//!
//! ```text
//! NodeId(i)  <->  PartyId(i + 1)        for 0 <= i < 65535
//! ```
//!
//! ([`NodeId::from_party`], [`NodeId::to_party`]), the same convention as
//! [`PartyId::position`](quorate_core::party::PartyId::position). A protocol that speaks
//! in `PartyId`s therefore runs unchanged: its adapter converts at the boundary. Node ids
//! themselves are `u32`, so simulations larger than the `PartyId` range (for example an
//! oversubscribed CoSi tree) are possible for protocols that do not need a `PartyId`.

use core::fmt;
use quorate_core::error::ParamError;
use quorate_core::party::PartyId;

/// A simulated node: a dense zero-based index into the simulation's process vector.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The node at zero-based position `index`.
    pub const fn new(index: u32) -> Self {
        NodeId(index)
    }

    /// The zero-based index as a `usize`, for indexing per-node vectors.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The node hosting `party` (`PartyId(p)` is node `p - 1`).
    pub fn from_party(party: PartyId) -> Self {
        NodeId(u32::from(party.get()) - 1)
    }

    /// The production party id of this node (`node i` is `PartyId(i + 1)`), or `None` if
    /// the index is outside the 16-bit party range (`i >= 65535`).
    pub fn to_party(self) -> Option<PartyId> {
        let p = self.0.checked_add(1)?;
        let p = u16::try_from(p).ok()?;
        PartyId::new(p).ok()
    }

    /// Nodes `0..n`.
    pub fn range(n: u32) -> impl Iterator<Item = NodeId> + Clone {
        (0..n).map(NodeId)
    }
}

impl From<PartyId> for NodeId {
    fn from(p: PartyId) -> Self {
        NodeId::from_party(p)
    }
}

impl TryFrom<NodeId> for PartyId {
    type Error = ParamError;
    fn try_from(n: NodeId) -> Result<Self, ParamError> {
        n.to_party().ok_or(ParamError::Invalid(
            "node index outside the 16-bit party id range",
        ))
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "N{}", self.0)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "N{}", self.0)
    }
}

/// A protocol-chosen timer tag. The simulator hands it back unchanged in
/// [`Process::on_timer`](crate::Process::on_timer); its meaning is up to the protocol
/// (a round number, a phase, a retry counter…).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct TimerId(pub u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn party_mapping_round_trips() {
        for p in [1u16, 2, 1000, 32768, 65535] {
            let party = PartyId::new(p).unwrap();
            let node = NodeId::from_party(party);
            assert_eq!(node.index(), party.position());
            assert_eq!(node.to_party(), Some(party));
            assert_eq!(PartyId::try_from(node), Ok(party));
        }
        assert_eq!(NodeId(0).to_party().map(PartyId::get), Some(1));
        assert_eq!(NodeId(65534).to_party().map(PartyId::get), Some(65535));
        assert_eq!(NodeId(65535).to_party(), None);
        assert_eq!(NodeId(u32::MAX).to_party(), None);
        assert!(PartyId::try_from(NodeId(70000)).is_err());
    }
}
