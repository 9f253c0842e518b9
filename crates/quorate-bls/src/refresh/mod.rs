//! Proactive refresh, in three steps, one module each:
//!
//! 1. [`deal`]: [`Client::refresh`](crate::Client::refresh) deals a [`Refresh`].
//! 2. [`check`]: the record maintainer (combiner, auditor) checks **all** of it once
//!    ([`GroupPublic::refreshed`](crate::GroupPublic::refreshed)); each hot party checks
//!    what protects its own share and accountability (the authorisation, its own opening
//!    and `Δvs_i`; nothing that grows with `n`) in
//!    [`HotParty::refresh`](crate::HotParty::refresh), which returns a
//!    [`PendingRefresh`], the next state, not yet in use.
//! 3. [`commit`]: the pending refresh's [`RefreshConfirmation`] goes to every other hot
//!    party; each received one is added with [`PendingRefresh::add_confirmation`], and the
//!    maintainer's accepted record with [`PendingRefresh::accept_record`]. Once `t`
//!    parties (this one included) confirmed the same refresh and the record is accepted,
//!    [`HotParty::commit`](crate::HotParty::commit) replaces the current state with the new
//!    one; the old hot share is wiped as it is dropped.
//!
//! Dropping a [`PendingRefresh`] abandons it (its secret is wiped). A confirmation that
//! names another refresh of the same record and epoch, signed by the client, stops the
//! commit for good: the client equivocated
//! ([`BlsError::ClientEquivocated`](crate::BlsError::ClientEquivocated), with evidence
//! anyone can check). Waiting for `t` confirmations means a party only erases its old share
//! once the new state is held by enough parties to sign.
//!
//! A refresh is **bound and authenticated**: [`RefreshPublic`] names the digest of the
//! record it applies to (so it cannot be replayed on another key, another epoch or another
//! CRS) and carries the client's BLS signature over all of its contents under a dedicated
//! DST ([`DST_REFRESH`]), so nobody but the key owner can deal one. (Otherwise an attacker
//! who stole a hot share could deal the next refresh itself, learn every `δ_i`, and keep
//! the share current: proactive security would be void.) Its contents are checked in full
//! all the same: all of them by the record maintainer, the ones that protect its own share
//! by every hot party. No hot party commits a refresh without the maintainer's
//! [`AcceptedRecord`](crate::group::AcceptedRecord), which only
//! [`GroupPublic::refreshed`](crate::GroupPublic::refreshed) makes. So a faulty or
//! malicious client cannot break the sharing through a refresh **as long as the
//! maintainer is honest** (or each party is its own maintainer, as a node is); a corrupt
//! maintainer colluding with the client can make honest parties commit a refresh that
//! breaks a global property, which costs the availability of the client's own key, never
//! the secrecy of a share or the blame of an honest party (notes §Refresh, "Who checks
//! what").

pub mod check;
pub mod commit;
pub mod deal;
#[cfg(feature = "test-faults")]
pub mod faults;
pub(crate) mod messages;

pub use commit::PendingRefresh;
pub use messages::{
    Refresh, RefreshConfirmation, RefreshEquivocation, RefreshPublic, RefreshShare, DST_REFRESH,
};
