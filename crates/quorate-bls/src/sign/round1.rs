//! Round 1: the cold party's partial `k_i·H(m)`.

use crate::ciphersuite::{hash_message, PublicKey};
use crate::cold::ColdParty;
use crate::error::BlsError;
use crate::sign::messages::ColdPartial;

impl ColdParty {
    /// The cold partial signature `σ_i^cold = k_i·H(m)` for client `vk`.
    pub fn partial_sign(&self, vk: &PublicKey, msg: &[u8]) -> Result<ColdPartial, BlsError> {
        let pad = self
            .pads
            .get(&vk.to_bytes())
            .ok_or(BlsError::InvalidRegistration {
                check: "cold party does not serve this client",
            })?;
        Ok(ColdPartial {
            index: self.index,
            point: hash_message(msg) * pad,
        })
    }
}
