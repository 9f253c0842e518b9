//! Participant policy: whether this node takes part in a proposed session.
//!
//! The runtime always checks the structural rules (this node and the coordinator are
//! participants, every participant is in the roster, the protocol is known at this version,
//! the deadline is within bounds, enough participants); a [`Policy`] adds the operator's own
//! rules on top (which protocols, which coordinators, banned nodes, ...).

use super::Proposal;

/// An operator's acceptance rule.
pub trait Policy: Send + Sync {
    /// `Ok` to take part, `Err(reason)` to refuse (the reason is sent to the participants).
    fn check(&self, proposal: &Proposal) -> Result<(), String>;
}

/// Accepts every structurally valid proposal.
#[derive(Clone, Copy, Debug, Default)]
pub struct AcceptAll;

impl Policy for AcceptAll {
    fn check(&self, _proposal: &Proposal) -> Result<(), String> {
        Ok(())
    }
}

/// Refuses sessions that include any of the listed nodes (e.g. banned ones) or that use a
/// protocol outside an allow-list.
#[derive(Clone, Debug, Default)]
pub struct ListPolicy {
    /// Protocols accepted (all when empty).
    pub protocols: Vec<String>,
    /// Nodes this node refuses to run sessions with.
    pub refuse_nodes: Vec<u16>,
}

impl Policy for ListPolicy {
    fn check(&self, p: &Proposal) -> Result<(), String> {
        if !self.protocols.is_empty() && !self.protocols.contains(&p.protocol) {
            return Err(format!("protocol {} is not allowed here", p.protocol));
        }
        if let Some(n) = p
            .participants
            .iter()
            .find(|n| self.refuse_nodes.contains(n))
        {
            return Err(format!("node {n} is refused by this node's policy"));
        }
        Ok(())
    }
}
