//! Step 3: confirmations are exchanged and the record maintainer's accepted record is
//! received; with `t` confirmations and that record a hot party commits.

use crate::error::BlsError;
use crate::group::{AcceptedRecord, GroupPublic};
use crate::hot::HotParty;
use crate::refresh::messages::{RefreshConfirmation, RefreshEquivocation};
use quorate_core::{ParamError, PartyId};
use std::fmt;

/// A checked refresh that is not in use yet (see the module docs). Dropping it abandons
/// the refresh and wipes its secret.
pub struct PendingRefresh {
    pub(crate) next: HotParty,
    pub(crate) own: RefreshConfirmation,
    pub(crate) confirmed: Vec<PartyId>,
    pub(crate) equivocation: Option<Box<RefreshEquivocation>>,
    /// Whether [`PendingRefresh::accept_record`] received the maintainer's record.
    pub(crate) record_accepted: bool,
}

impl fmt::Debug for PendingRefresh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingRefresh")
            .field("next", &self.next)
            .field("confirmed", &self.confirmed)
            .field("equivocation", &self.equivocation.is_some())
            .field("record_accepted", &self.record_accepted)
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

    /// Takes the record that the record maintainer (the combiner or an auditor) obtained
    /// from [`GroupPublic::refreshed`] for this refresh: its acceptance is what shows that
    /// `δ(0) = 0`, `deg δ ≤ t−1` and every `Δvs_j` opens `C_δ`, the checks of a refresh
    /// that [`HotParty::refresh`] leaves to the maintainer (notes §Refresh, "Who checks
    /// what"). A hot party that answers to no maintainer runs `refreshed` on its own
    /// current record and passes the result here. Errors with [`BlsError::StateMismatch`]
    /// (nobody blamed) if `record` is not the one this refresh leads to.
    ///
    /// The argument is an [`AcceptedRecord`], which only [`GroupPublic::refreshed`]
    /// creates: a record that passed no check, such as this refresh's own
    /// [`PendingRefresh::next_public`], is not accepted (review finding F3). This does not
    /// compile:
    ///
    /// ```compile_fail,E0308
    /// fn bypass(p: &mut quorate_bls::PendingRefresh) {
    ///     let unchecked = p.next_public().clone();
    ///     p.accept_record(&unchecked).unwrap();
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
        if record.digest() != self.next.public.digest() {
            return Err(BlsError::StateMismatch {
                parties: vec![self.next.index],
                epoch: self.next.public.epoch(),
            });
        }
        self.record_accepted = true;
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

    /// Whether [`HotParty::commit`] will accept this refresh: `t` confirmations, no
    /// equivocation seen, and the maintainer's record accepted.
    pub fn is_ready(&self) -> bool {
        self.equivocation.is_none()
            && self.record_accepted
            && self.confirmed.len() >= usize::from(self.next.public.params.t())
    }
}

impl HotParty {
    /// Replaces this party's state by the pending one, once `t` hot parties (this one
    /// included) confirmed the same refresh and the maintainer's record was accepted
    /// ([`PendingRefresh::accept_record`]). The old hot share is wiped. On error `self`
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
        if !pending.record_accepted {
            return Err(BlsError::RefreshNotAccepted);
        }
        *self = pending.next;
        Ok(())
    }
}
