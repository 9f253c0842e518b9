//! The two seams between the timestamping service and collective signing: something that
//! cosigns round messages ([`RootCosigner`]) and something that verifies them under a roster
//! ([`RoundVerifier`]).

use super::merkle::Hash;

/// A failure to produce a collective signature for a round.
#[derive(Debug, thiserror::Error)]
#[error("collective signing failed: {0}")]
pub struct CosignError(pub String);

/// Collectively signs round messages with a fixed witness roster.
pub trait RootCosigner: Send + Sync {
    /// The canonical id of the signing roster (bound into every round message).
    fn roster_id(&self) -> Hash;
    /// The roster entries (public key ‖ proof of possession, 96 bytes each) in roster order
    /// (mask bit `i` is witness `i`): what a receipt verifier loads.
    fn roster_entries(&self) -> Vec<[u8; 96]>;
    /// A collective signature `R ‖ s ‖ mask` on `message`.
    fn cosign(&self, message: &[u8]) -> Result<Vec<u8>, CosignError>;
}

/// Checks collective signatures on round messages under one roster and policy.
pub trait RoundVerifier {
    /// The canonical id of the roster signatures are checked against.
    fn roster_id(&self) -> Hash;
    /// `Ok(())` if `signature` is a valid collective signature on `message` that satisfies
    /// the policy; otherwise the reason.
    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), String>;
}
