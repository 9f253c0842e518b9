//! Round 2: the hot party's partial `σ_i = hx_i·H(m) − k_i·H(m) = x_i·H(m)`.

use crate::ciphersuite::hash_message;
use crate::error::BlsError;
use crate::hot::HotParty;
use crate::sign::messages::{ColdPartial, PartialSignature};
use group::Curve;
use quorate_core::bls12_381::pairing::{neg_g2_prepared, prepared_product_is_identity};
use quorate_core::ParamError;

impl HotParty {
    /// The hot partial `σ_i^hot = hx_i·H(m)` combined with the cold partner's
    /// `σ_i^cold = k_i·H(m)` into `σ_i = x_i·H(m)`, tagged with this party's record digest.
    /// The cold partial is checked first, `e(σ_i^cold, g2) = e(H(m), K_i)`; a bad one
    /// aborts naming the cold party `i` (the hot party has done nothing wrong).
    pub fn partial_sign(
        &self,
        msg: &[u8],
        cold: &ColdPartial,
    ) -> Result<PartialSignature, BlsError> {
        if cold.index != self.index {
            return Err(ParamError::Invalid("cold partial comes from another index").into());
        }
        let h = hash_message(msg);
        let cold_ok = prepared_product_is_identity(&[
            (cold.point.to_affine(), neg_g2_prepared()),
            (h.to_affine(), &self.pad_commitment),
        ]);
        if !cold_ok {
            return Err(BlsError::blame(
                self.index,
                "cold partial does not verify against K_i (cold party at fault)",
            ));
        }
        let hot = h * self.hot_share;
        Ok(PartialSignature {
            index: self.index,
            epoch: self.public.epoch(),
            state: self.public.digest(),
            point: hot - cold.point,
        })
    }
}
