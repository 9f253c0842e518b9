//! The hot party `P_i^hot`: registration checks, refresh, hot partial signature and Π_EKS.
//!
//! A [`HotParty`] only exists after its registration payload passed every check
//! ([`HotParty::register`]), and it only moves to a new epoch through
//! [`HotParty::refreshed`], which runs every refresh check before building the new state.
//! Both take the old state by reference and return a new one, so a rejected payload
//! leaves the caller's state exactly as it was.

use crate::ciphersuite::hash_message;
use crate::client::{HotRegistration, RefreshShare};
use crate::cold::{ColdPartial, PadCommitment};
use crate::error::BlsError;
use crate::group::{GroupPublic, OwnShare, RefreshPublic};
use crate::kzg::Crs;
use crate::proofs::{prove_hot, HotProof, ProofContext};
use crate::tsign::PartialSignature;
use blstrs::{G1Projective, G2Projective, Scalar};
use group::Group;
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use std::fmt;

/// Hot party `i`: the hot share `hx_i`, its KZG opening `π_i` and the public record.
pub struct HotParty {
    index: PartyId,
    public: GroupPublic,
    hot_share: Scalar,
    opening: G1Projective,
}

impl fmt::Debug for HotParty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HotParty")
            .field("index", &self.index)
            .field("epoch", &self.public.epoch())
            .field("hot_share", &REDACTED)
            .finish_non_exhaustive()
    }
}

impl Drop for HotParty {
    fn drop(&mut self) {
        wipe_field(&mut self.hot_share);
    }
}

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
        if G2Projective::generator() * payload.hot_share
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
        })
    }

    /// The party index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// The public record this party holds (current epoch).
    pub fn public(&self) -> &GroupPublic {
        &self.public
    }

    /// Applies a refresh after checking **all** of it: the global checks of
    /// [`GroupPublic::refreshed`] (epoch, `δ(0) = 0`, `deg δ ≤ t−1`, `Δvs` a sharing of
    /// zero), the share is addressed to this party, its opening
    /// `e(C_δ − δ_i·g1, g2) = e(π_δ,i, [τ]_2 − z_i·g2)`, and `Δvs_i = δ_i·g2`. Then
    /// `hx_i += δ_i`, `π_i += π_δ,i`, `com_T += C_δ`, `vs_j += Δvs_j`. There is no other
    /// way to apply a refresh, and `self` is unchanged on error.
    pub fn refreshed<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        refresh: &RefreshPublic,
        share: &RefreshShare,
        rng: &mut R,
    ) -> Result<HotParty, BlsError> {
        if share.index != self.index {
            return Err(BlsError::InvalidRefresh {
                check: "refresh share is addressed to another party",
            });
        }
        let z = crs.domain().party_point(self.index);
        let public = self.public.refreshed_checking(
            crs,
            refresh,
            Some(OwnShare {
                z,
                delta: &share.delta,
                opening: &share.opening,
            }),
            rng,
        )?;
        if refresh.delta_vs[self.index.position()] != G2Projective::generator() * share.delta {
            return Err(BlsError::InvalidRefresh {
                check: "Δvs_i is not δ_i·g2",
            });
        }
        Ok(HotParty {
            index: self.index,
            public,
            hot_share: self.hot_share + share.delta,
            opening: self.opening + share.opening,
        })
    }

    /// The hot partial `σ_i^hot = hx_i·H(m)` combined with the cold partner's
    /// `σ_i^cold = k_i·H(m)` into `σ_i = x_i·H(m)`.
    pub fn partial_sign(
        &self,
        msg: &[u8],
        cold: &ColdPartial,
    ) -> Result<PartialSignature, BlsError> {
        if cold.index != self.index {
            return Err(BlsError::InvalidRegistration {
                check: "cold partial comes from another index",
            });
        }
        let hot = hash_message(msg) * self.hot_share;
        Ok(PartialSignature {
            index: self.index,
            epoch: self.public.epoch(),
            point: hot - cold.point,
        })
    }

    /// Π_EKS: proves that this party's hot share opens `com_T` at `z_i`, bound to `ctx`.
    pub fn prove<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        ctx: &ProofContext,
        rng: &mut R,
    ) -> HotProof {
        prove_hot(
            crs,
            &self.public.com_t,
            self.index,
            self.public.vk.point(),
            &self.hot_share,
            &self.opening,
            ctx,
            rng,
        )
    }
}
