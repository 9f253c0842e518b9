//! Distributed key generation without a dealer, proactive refresh, and the pairwise OT setup.
//!
//! Four message rounds. Every message is addressed to one party; the parts marked
//! *broadcast* are identical for all recipients, **signed** with the sender's identity key
//! and **agreed** in round 4, so a party that sends different values to different parties
//! is caught and named with transferable evidence ([`agreement`]).
//!
//! 1. **Round 1** `i → j`: *broadcast* `H(sid, i, C_i, π_i, ρ_i, salt_i)` — a commitment to
//!    the Feldman vector `C_i = (a_{i,0}·G, …, a_{i,t−1}·G)`, the Schnorr proof `π_i` of
//!    `a_{i,0}` and the chain-code contribution `ρ_i` — and the Ed25519 identity verifying
//!    key `i` holds in the new share (in key generation its roster key, checked; a refresh
//!    announces a fresh one); *p2p*, for `j < i` only, the base-OT sender message of the
//!    pair `{j, i}`.
//! 2. **Round 2** `i → j`: *broadcast* the opening `(C_i, π_i, ρ_i, salt_i)` and `i`'s
//!    identity signature on the digest of its round-1 and round-2 broadcast values; *p2p*
//!    the share `f_i(j)` and, for `j > i`, the base-OT receiver message of the pair `{i, j}`.
//! 3. **Round 3**: every signature, opening, vector length, proof and share is checked and
//!    a failure names its sender. `p(i) = Σ_j f_j(i)`, `pk = Σ_j C_{j,0}`,
//!    `T_k = Σ_j C_j(k)`, chain code `= H(ρ_1, …, ρ_n)`; the transcript hash covers every
//!    broadcast digest, `pk`, every `T_k`, the chain code, the epoch and the new identity
//!    keys. Then `i → j` for `j < i`: the OT-extension message that bootstraps the reverse
//!    direction of the pair (below).
//! 4. **Round 4** (agreement): checks the bootstrap extensions (naming the sender), then
//!    *broadcast* the signed digest received from every party (echo) and `i`'s
//!    acknowledgement, an identity signature on the transcript hash.
//! 5. **Finish** ([`finish`], or [`certify`] for a refresh): a share is output only if
//!    every acknowledgement signs this party's transcript hash. Two validly signed,
//!    different digests of one sender are an [`EquivocationEvidence`]
//!    ([`crate::EcdsaError::Equivocated`]); an echo or acknowledgement that does not verify
//!    names its sender. All `n` acknowledgements form the [`EpochCertificate`].
//!
//! **One base-OT batch per pair.** For `a < b`, `κ = 128` base OTs (simplest OT with a proof of knowledge,
//! [`crate::ot::base`]) make `a` the extension sender (`Δ_a`) and `b` the extension receiver:
//! the direction in which `a` is the multiplication sender (Alice). The reverse direction
//! is bootstrapped from it rather than from a second batch of base OTs: `b` extends `κ`
//! random OTs with random choice bits `Δ_b` (with the revised KOS check), and the hashed
//! rows are the reverse base OTs (`b` learns one key per OT, `a` both). This is the
//! standard use of extended OTs as base OTs; it halves the public-key work of the setup
//! (about `3κ` scalar multiplications per pair instead of `6κ`) for one more message round.
//!
//! **Refresh** runs the same rounds with `a_{i,0} = 0` (the Feldman vector omits `C_{i,0}`,
//! which must be the identity, and carries no proof, except from a party restored from the
//! escrow, which proves knowledge of its old share: [`restore`]), adds the zero-sharing to the old share,
//! keeps the public key and chain code, increments the epoch, replaces every pairwise OT
//! seed with fresh base OTs (which also re-establishes banned pairs) and rotates the
//! identity keys: the run is signed with the current epoch's keys and announces the next
//! ones, which the transcript hash (and so the certificate) binds. Evidence from a later
//! epoch is checked against that epoch's keys, so a key that leaks after its epoch cannot
//! frame its former holder.
//!
//! # Use
//!
//! Key generation: [`round1`] → [`round2`] → [`round3`] → [`round4`] → [`finish`].
//! Refresh: [`refresh_round1`] → [`round2`] → [`round3`] → [`round4`] → [`certify`], then
//! [`PendingRefresh::commit`] (or [`PendingRefresh::abandon`]).
//!
//! **Channels.** Round-2 messages carry the share `f_i(j)` in clear: every message needs a
//! confidential, authenticated channel between its sender and recipient, which the caller
//! (the node) provides. Round-4 messages are broadcasts (send the same one to every party).
//!
//! # Refresh: pending, commit, abandon, and what to persist
//!
//! A refresh never replaces the current share by itself. [`round4`] yields a
//! [`PendingRefresh`] ([`DkgRound4::pending`]); the current share stays the one to sign with
//! until [`PendingRefresh::commit`] is given the [`EpochCertificate`] — every party's
//! acknowledgement of the new transcript hash, under the current identity keys — and
//! replaces it, wiping the old share. Crash semantics, for the node:
//!
//! * **Before sending the round-4 message**, persist the pending share
//!   ([`PendingRefresh::to_bytes`], encrypted, atomically) next to the current one. Once
//!   the message is out, other parties may complete a certificate; a party that lost its
//!   pending share would be left behind on the old epoch. A crash before this point loses
//!   nothing: the refresh failed, the current share is untouched.
//! * **After [`certify`]** returns the certificate, persist it (it is public, and it lets
//!   any party that missed an acknowledgement commit: send it to them), then call
//!   [`PendingRefresh::commit`] and atomically replace the stored current share by the new
//!   one, then delete the pending file. A crash in between is recovered by committing again
//!   from the stored pending share and certificate; if the stored current share already
//!   has the pending epoch, the pending file is stale: delete it.
//! * **Until a certificate is known**, keep the pending share and keep signing with the
//!   current one; ask the other parties for the certificate. [`PendingRefresh::abandon`]
//!   only when no certificate can exist: this party did not send its round-4 message, or
//!   some party is known not to have sent its own to anybody (for example all parties
//!   agree to abandon the run). Abandoning after a certificate formed leaves this party on
//!   an epoch the others have erased.
//!
//! Key generation has no old share: [`finish`] outputs the share after the agreement
//! check; persist it then. A party that crashes earlier lost the run; the key must not be
//! used until every party reports a finished share.

pub mod agreement;
mod messages;
mod pending;
pub mod restore;
mod round1;
mod round2;
mod round3;
mod round4;
mod setup;

#[cfg(any(test, feature = "test-faults"))]
mod faults;

pub use crate::evidence::EquivocationEvidence;
pub use agreement::EpochCertificate;
pub use messages::{DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4};
pub use pending::PendingRefresh;
#[cfg(any(test, feature = "test-faults"))]
pub use restore::restore_round1_faulty;
pub use restore::{refresh_round1_restoring, restore_round1, EpochPublic, RestoredShare};
pub use round1::{refresh_round1, round1, DkgRound1};
pub use round2::{round2, DkgRound2};
pub use round3::{round3, DkgRound3};
pub use round4::{certify, finish, round4, DkgRound4};

#[cfg(any(test, feature = "test-faults"))]
pub use round1::{round1_faulty, DkgFault};
