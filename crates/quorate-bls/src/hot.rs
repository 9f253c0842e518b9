//! The hot party `P_i^hot`: registration checks, refresh with echo and commit, hot
//! partial signature and Π_EKS.
//!
//! A [`HotParty`] only exists after its registration payload passed every check
//! ([`HotParty::register`]). It moves to a new epoch in two steps:
//!
//! 1. [`HotParty::refresh`] checks **all** of a refresh and returns a [`PendingRefresh`]:
//!    the next state, not yet in use. The party keeps signing with its current state.
//! 2. The pending refresh's [`RefreshConfirmation`] goes to every other hot party; each
//!    received one is added with [`PendingRefresh::add_confirmation`]. Once `t` parties
//!    (this one included) confirmed the same refresh, [`HotParty::commit`] replaces the
//!    current state with the new one; the old hot share is wiped as it is dropped.
//!
//! Dropping a [`PendingRefresh`] abandons it (its secret is wiped). A confirmation that
//! names another refresh of the same record and epoch, signed by the client, stops the
//! commit for good: the client equivocated ([`BlsError::ClientEquivocated`], with evidence
//! anyone can check). Waiting for `t` confirmations means a party only erases its old share
//! once the new state is held by enough parties to sign.

use crate::ciphersuite::hash_message;
use crate::client::{HotRegistration, RefreshShare};
use crate::cold::{ColdPartial, PadCommitment};
use crate::error::BlsError;
use crate::group::{GroupPublic, RefreshConfirmation, RefreshEquivocation, RefreshPublic};
use crate::kzg::Crs;
use crate::pairing::{neg_g2_prepared, prepared_product_is_identity};
use crate::proofs::{prove_hot, HotProof, ProofContext};
use crate::tsign::PartialSignature;
use blstrs::{G1Projective, G2Prepared, G2Projective, Scalar};
use group::{Curve, Group};
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use std::fmt;

/// Hot party `i`: the hot share `hx_i`, its KZG opening `π_i`, the cold partner's pad
/// commitment `K_i` and the public record.
pub struct HotParty {
    index: PartyId,
    public: GroupPublic,
    hot_share: Scalar,
    opening: G1Projective,
    pad_commitment: G2Prepared,
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
            pad_commitment: G2Prepared::from(pad_commitment.point.to_affine()),
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

    /// Checks **all** of a refresh and returns the next state as a [`PendingRefresh`];
    /// `self` is not changed. The checks: the global ones of [`GroupPublic::refreshed`]
    /// (client authorisation over this record's digest, next epoch, `δ(0) = 0`,
    /// `deg δ ≤ t−1`, every `Δvs_j` opens `C_δ` at `z_j`), the share is addressed to this
    /// party, and `Δvs_i = δ_i·g2` (so `δ_i = δ(z_i)`). The next state is
    /// `hx_i + δ_i`, `π_i + π_δ,i`, and the refreshed record.
    pub fn refresh<R: RngCore + CryptoRng>(
        &self,
        crs: &Crs,
        refresh: &RefreshPublic,
        share: &RefreshShare,
        rng: &mut R,
    ) -> Result<PendingRefresh, BlsError> {
        if share.index != self.index {
            return Err(BlsError::InvalidRefresh {
                check: "refresh share is addressed to another party",
            });
        }
        self.public.check_refresh(crs, refresh, rng)?;
        let pos = self.index.position();
        if refresh.delta_vs[pos] != G2Projective::generator() * share.delta {
            return Err(BlsError::InvalidRefresh {
                check: "Δvs_i is not δ_i·g2",
            });
        }
        let next = HotParty {
            index: self.index,
            public: self.public.apply_refresh(refresh),
            hot_share: self.hot_share + share.delta,
            opening: self.opening + refresh.openings[pos],
            pad_commitment: self.pad_commitment.clone(),
        };
        let own = RefreshConfirmation::of(self.index, refresh);
        Ok(PendingRefresh {
            next,
            own,
            confirmed: vec![self.index],
            equivocation: None,
        })
    }

    /// Replaces this party's state by the pending one, once `t` hot parties (this one
    /// included) confirmed the same refresh. The old hot share is wiped. On error `self`
    /// is unchanged and `pending` is dropped (abandoned); check
    /// [`PendingRefresh::is_ready`] first to keep collecting confirmations instead.
    pub fn commit(&mut self, pending: PendingRefresh) -> Result<(), BlsError> {
        if pending.next.index != self.index || pending.own.group_digest != self.public.digest() {
            return Err(ParamError::Invalid(
                "pending refresh was made from another party or state",
            )
            .into());
        }
        if let Some(evidence) = pending.equivocation {
            return Err(BlsError::ClientEquivocated(evidence));
        }
        let needed = usize::from(self.public.params.t());
        if pending.confirmed.len() < needed {
            return Err(BlsError::RefreshNotConfirmed {
                confirmed: pending.confirmed.len(),
                needed,
            });
        }
        *self = pending.next;
        Ok(())
    }

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
            (cold.point.to_affine(), neg_g2_prepared().clone()),
            (h.to_affine(), self.pad_commitment.clone()),
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
}

/// A checked refresh that is not in use yet (see the module docs). Dropping it abandons
/// the refresh and wipes its secret.
pub struct PendingRefresh {
    next: HotParty,
    own: RefreshConfirmation,
    confirmed: Vec<PartyId>,
    equivocation: Option<Box<RefreshEquivocation>>,
}

impl fmt::Debug for PendingRefresh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingRefresh")
            .field("next", &self.next)
            .field("confirmed", &self.confirmed)
            .field("equivocation", &self.equivocation.is_some())
            .finish()
    }
}

impl PendingRefresh {
    /// This party's confirmation, for every other hot party.
    pub fn confirmation(&self) -> RefreshConfirmation {
        self.own
    }

    /// The record this refresh leads to.
    pub fn next_public(&self) -> &GroupPublic {
        &self.next.public
    }

    /// Adds another hot party's confirmation and returns how many distinct parties (this
    /// one included) confirmed this refresh. Errors:
    /// * a sender outside `1..=n`: [`BlsError::Param`];
    /// * a confirmation for another record or epoch: [`BlsError::StateMismatch`] naming
    ///   the sender (out of step, not blamed);
    /// * another refresh id, signed by the client: [`BlsError::ClientEquivocated`], and
    ///   this pending refresh can no longer be committed;
    /// * another refresh id, not signed by the client: the sender forged it and is blamed.
    pub fn add_confirmation(&mut self, c: &RefreshConfirmation) -> Result<usize, BlsError> {
        let params = self.next.public.params;
        if !params.contains(c.index) {
            return Err(ParamError::UnknownParty {
                id: c.index,
                n: params.n(),
            }
            .into());
        }
        if c.group_digest != self.own.group_digest || c.epoch != self.own.epoch {
            return Err(BlsError::StateMismatch {
                parties: vec![c.index],
                epoch: self.own.epoch,
            });
        }
        if c.refresh_id != self.own.refresh_id {
            if !c.is_signed_by(&self.next.public.vk) {
                return Err(BlsError::blame(
                    c.index,
                    "refresh confirmation is not signed by the client",
                ));
            }
            let evidence = Box::new(RefreshEquivocation {
                first: self.own,
                second: *c,
            });
            self.equivocation = Some(evidence.clone());
            return Err(BlsError::ClientEquivocated(evidence));
        }
        if !self.confirmed.contains(&c.index) {
            self.confirmed.push(c.index);
        }
        Ok(self.confirmed.len())
    }

    /// Whether [`HotParty::commit`] will accept this refresh: `t` confirmations and no
    /// equivocation seen.
    pub fn is_ready(&self) -> bool {
        self.equivocation.is_none()
            && self.confirmed.len() >= usize::from(self.next.public.params.t())
    }
}
