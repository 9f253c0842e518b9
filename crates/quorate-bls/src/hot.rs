//! The hot party `P_i^hot`: its state (hot share, opening, pad commitment, public record)
//! and Π_EKS.
//!
//! A [`HotParty`] only exists after its registration payload passed its own checks
//! ([`crate::register::hot`]). Its other steps live with their phase: signing in
//! [`crate::sign::round2`], refresh (check, then commit after `t` confirmations) in
//! [`crate::refresh`].

use crate::group::GroupPublic;
use crate::kzg::Crs;
use crate::proofs::{prove_hot, HotProof, ProofContext};
use crate::register::messages::HotRegistration;
use blstrs::{G1Projective, G2Prepared, Scalar};
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::PartyId;
use rand_core::{CryptoRng, RngCore};
use std::fmt;

/// Hot party `i`: the hot share `hx_i`, its KZG opening `π_i`, the cold partner's pad
/// commitment `K_i` and the public record.
pub struct HotParty {
    pub(crate) index: PartyId,
    pub(crate) public: GroupPublic,
    pub(crate) hot_share: Scalar,
    pub(crate) opening: G1Projective,
    pub(crate) pad_commitment: G2Prepared,
    /// The record's `vk`, prepared once for the refresh check (it never changes across
    /// refreshes).
    pub(crate) vk_prepared: G2Prepared,
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
    /// The party index.
    pub fn index(&self) -> PartyId {
        self.index
    }

    /// The public record this party holds (current epoch).
    pub fn public(&self) -> &GroupPublic {
        &self.public
    }

    /// Π_EKS: proves that this party's hot share opens `com_T` at `z_i`, bound to `ctx`
    /// and to this party's record digest.
    pub fn prove<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        ctx: &ProofContext,
        rng: &mut R,
    ) -> HotProof {
        prove_hot(
            crs,
            &self.public,
            self.index,
            &self.hot_share,
            &self.opening,
            ctx,
            rng,
        )
    }

    /// This party's private state `(i, hx_i, π_i)` as a registration payload, for a node
    /// that seals it at rest. [`HotParty::restore`] with the current record
    /// ([`HotParty::public`]) and the cold partner's `K_i` rebuilds the party from it,
    /// re-running the party's own checks (they hold after any committed refresh too:
    /// `π_i` opens the refreshed `com_T` and `hx_i·g2 = vs_i + K_i`). **Contains a secret.**
    pub fn to_payload(&self) -> HotRegistration {
        HotRegistration {
            index: self.index,
            hot_share: self.hot_share,
            opening: self.opening,
        }
    }
}
