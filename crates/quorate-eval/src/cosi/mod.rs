//! CoSi evaluation: the protocol and the paper's baselines as nodes of the network simulator
//! ([`sim`]), and the baselines themselves ([`baselines`]: Naive, NTree, JVSS).

pub mod baselines;
pub mod sim;
