//! Step 3: confirmations are exchanged and the record maintainer's accepted record is
//! received; with `t` confirmations and that record a hot party commits.

use crate::ciphersuite::PublicKey;
use crate::error::BlsError;
use crate::group::{AcceptedRecord, GroupPublic};
use crate::hot::HotParty;
use crate::refresh::messages::{RefreshConfirmation, RefreshEquivocation};
use blstrs::{G1Projective, Scalar};
use quorate_core::secret::{wipe_field, REDACTED};
use quorate_core::{ParamError, PartyId, ThresholdParams};
use std::fmt;

/// A checked refresh that is not in use yet (see the module docs). Dropping it abandons
/// the refresh and wipes its secret.
///
/// It holds the party's next private state (`hx_i + δ_i`, `π_i + π_δ,i`) but not the next
/// public record: that is the maintainer's [`AcceptedRecord`], taken by
/// [`PendingRefresh::accept_record`] once it names this party's current record and this
/// refresh. So checking a refresh costs a hot party nothing that grows with `n` (no `n`
/// G2 additions, no re-encoding and hashing of the record).
pub struct PendingRefresh {
    pub(crate) index: PartyId,
    pub(crate) params: ThresholdParams,
    /// The record's `vk`, for the client's signature on conflicting confirmations.
    pub(crate) vk: PublicKey,
    /// `hx_i + δ_i`: **secret**, wiped on drop.
    pub(crate) hot_share: Scalar,
    /// `π_i + π_δ,i`.
    pub(crate) opening: G1Projective,
    pub(crate) own: RefreshConfirmation,
    pub(crate) confirmed: Vec<PartyId>,
    pub(crate) equivocation: Option<Box<RefreshEquivocation>>,
    /// The maintainer's record, once [`PendingRefresh::accept_record`] took it.
    pub(crate) record: Option<GroupPublic>,
}

impl fmt::Debug for PendingRefresh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingRefresh")
            .field("index", &self.index)
            .field("epoch", &self.own.epoch)
            .field("hot_share", &REDACTED)
            .field("confirmed", &self.confirmed)
            .field("equivocation", &self.equivocation.is_some())
            .field("record_accepted", &self.record.is_some())
            .finish()
    }
}

impl Drop for PendingRefresh {
    fn drop(&mut self) {
        wipe_field(&mut self.hot_share);
    }
}

impl PendingRefresh {
    /// This party's confirmation, for every other hot party.
    pub fn confirmation(&self) -> RefreshConfirmation {
        self.own
    }

    /// Takes the record that the record maintainer (the combiner or an auditor) obtained
    /// from [`GroupPublic::refreshed`] for this refresh: its acceptance is what shows that
    /// `δ(0) = 0`, `deg δ ≤ t−1` and every `Δvs_j` opens `C_δ`, the checks of a refresh
    /// that [`HotParty::refresh`] leaves to the maintainer (notes §Refresh, "Who checks
    /// what"). A hot party that answers to no maintainer runs `refreshed` on its own
    /// current record and passes the result here. Errors with [`BlsError::StateMismatch`]
    /// (nobody blamed) if `record` was not made from this party's current record by this
    /// refresh (its predecessor digest and refresh id, set by `refreshed`, differ).
    ///
    /// The argument is an [`AcceptedRecord`], which only [`GroupPublic::refreshed`]
    /// creates: a record that passed no check is not accepted (review finding F3). This
    /// does not compile:
    ///
    /// ```compile_fail,E0308
    /// fn bypass(p: &mut quorate_bls::PendingRefresh, unchecked: &quorate_bls::GroupPublic) {
    ///     p.accept_record(unchecked).unwrap();
    /// }
    /// ```
    ///
    /// while this does:
    ///
    /// ```
    /// fn accept(p: &mut quorate_bls::PendingRefresh, r: &quorate_bls::group::AcceptedRecord) {
    ///     p.accept_record(r).unwrap();
    /// }
    /// ```
    pub fn accept_record(&mut self, record: &AcceptedRecord) -> Result<(), BlsError> {
        if record.predecessor != self.own.group_digest || record.refresh_id != self.own.refresh_id {
            return Err(BlsError::StateMismatch {
                parties: vec![self.index],
                epoch: self.own.epoch,
            });
        }
        self.record = Some(record.record.clone());
        Ok(())
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
        let params = self.params;
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
            if !c.is_signed_by(&self.vk) {
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

    /// Whether [`HotParty::commit`] will accept this refresh: `t` confirmations, no
    /// equivocation seen, and the maintainer's record accepted.
    pub fn is_ready(&self) -> bool {
        self.equivocation.is_none()
            && self.record.is_some()
            && self.confirmed.len() >= usize::from(self.params.t())
    }
}

impl HotParty {
    /// Replaces this party's state by the pending one, once `t` hot parties (this one
    /// included) confirmed the same refresh and the maintainer's record was accepted
    /// ([`PendingRefresh::accept_record`]). The old hot share is wiped. On error `self`
    /// is unchanged and `pending` is dropped (abandoned); check
    /// [`PendingRefresh::is_ready`] first to keep collecting confirmations instead.
    pub fn commit(&mut self, mut pending: PendingRefresh) -> Result<(), BlsError> {
        if pending.index != self.index || pending.own.group_digest != self.public.digest() {
            return Err(ParamError::Invalid(
                "pending refresh was made from another party or state",
            )
            .into());
        }
        if let Some(evidence) = pending.equivocation.take() {
            return Err(BlsError::ClientEquivocated(evidence));
        }
        let needed = usize::from(self.public.params.t());
        if pending.confirmed.len() < needed {
            return Err(BlsError::RefreshNotConfirmed {
                confirmed: pending.confirmed.len(),
                needed,
            });
        }
        let Some(record) = pending.record.take() else {
            return Err(BlsError::RefreshNotAccepted);
        };
        // Overwrites (wipes) the old hot share in place; `pending`'s copy is wiped as it
        // is dropped.
        self.public = record;
        self.hot_share = pending.hot_share;
        self.opening = pending.opening;
        Ok(())
    }
}
