//! HotRegister: a hot party checks its payload against the public record.

use crate::error::BlsError;
use crate::group::GroupPublic;
use crate::hot::HotParty;
use crate::kzg::Crs;
use crate::register::messages::{HotRegistration, PadCommitment};
use blstrs::G2Prepared;
use group::Curve;
use quorate_core::bls12_381::msm::g2_generator_mul_ct;
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};

impl HotParty {
    /// Accepts a registration payload after checking it: addressed to `index`, `index`
    /// within `n`, the public record valid ([`GroupPublic::validate`]: CRS id, PoP, SCRAPE
    /// check that the `vs_j` interpolate to `vk` with degree `t−1`), the opening
    /// `e(com_T − hx_i·g1, g2) = e(π_i, [τ]_2 − z_i·g2)`, and, with the cold partner's
    /// `K_i = k_i·g2`, that `hx_i·g2 = vs_i + K_i` (the hot share minus the pad is the
    /// share behind `vs_i`). A failure of that last check means the client's payload or
    /// the cold partner's `K_i` is wrong; the hot party refuses either way.
    pub fn register<R: RngCore + CryptoRng>(
        crs: &Crs,
        index: PartyId,
        public: &GroupPublic,
        payload: &HotRegistration,
        pad_commitment: &PadCommitment,
        rng: &mut R,
    ) -> Result<Self, BlsError> {
        if payload.index != index || pad_commitment.index != index {
            return Err(BlsError::InvalidRegistration {
                check: "payload is addressed to another party",
            });
        }
        if !public.params.contains(index) {
            return Err(ParamError::UnknownParty {
                id: index,
                n: public.params.n(),
            }
            .into());
        }
        public.validate(crs, rng)?;
        let z = crs.domain().party_point(index);
        if !crs.verify_opening(&public.com_t, &z, &payload.hot_share, &payload.opening) {
            return Err(BlsError::InvalidRegistration {
                check: "hot share does not open com_T at this party's point",
            });
        }
        if g2_generator_mul_ct(&payload.hot_share)
            != public.vs[index.position()] + pad_commitment.point
        {
            return Err(BlsError::InvalidRegistration {
                check: "hot share minus pad does not match vs_i",
            });
        }
        Ok(HotParty {
            index,
            public: public.clone(),
            hot_share: payload.hot_share,
            opening: payload.opening,
            pad_commitment: G2Prepared::from(pad_commitment.point.to_affine()),
            vk_prepared: G2Prepared::from(public.vk.point().to_affine()),
        })
    }
}
