//! TSign: partial signatures and their verified combination, one module per round.
//!
//! 1. [`round1`]: [`ColdParty::partial_sign`](crate::ColdParty::partial_sign) gives the
//!    cold partial [`ColdPartial`] `k_i·H(m)`.
//! 2. [`round2`]: [`HotParty::partial_sign`](crate::HotParty::partial_sign) turns it into
//!    the [`PartialSignature`] `σ_i`.
//! 3. [`combine()`]: verifies the partials and interpolates `σ`.
//!
//! `σ_i = σ_i^hot − σ_i^cold = x_i·H(m)`. Each partial names the digest of the record
//! state (epoch, `com_T`, `vs`) its signer holds. The combiner sets aside partials made
//! under another state than its own (their senders are out of step, for example after a
//! client dealt different refreshes to different parties; checking them against the
//! combiner's `vs_i` would blame honest parties) and continues if `t` remain; otherwise it
//! returns [`BlsError::StateMismatch`](crate::BlsError::StateMismatch) naming them, without blame. It checks every
//! remaining `σ_i` against `vs_i = x_i·g2` before combining, optimistically in one batch
//! `e(Σ r_i·σ_i, g2) = e(H(m), Σ r_i·vs_i)` with random 128-bit `r_i` (two pairings). If the
//! batch fails it checks each partial alone and aborts naming every culprit. It then
//! combines `σ = Σ λ_i(0)·σ_i` over the first `t` partials (Lagrange at 0 on the points
//! `z_i`) and checks `σ` under `vk` like any standard verifier would.

pub(crate) mod combine;
pub(crate) mod messages;
pub mod round1;
pub mod round2;

pub use combine::{combine, verify_partials};
pub use messages::{ColdPartial, PartialSignature};
