//! Distributed key generation without a dealer, proactive refresh, and the pairwise OT setup.
//!
//! Three message rounds (every message is addressed to one party; the parts marked
//! *broadcast* are identical for all recipients and must travel over a reliable broadcast,
//! or be echoed — [`KeyShare::setup_transcript`] is the hash to compare):
//!
//! 1. **Round 1** `i → j`: *broadcast* `H(sid, i, C_i, π_i, ρ_i, salt_i)` — a commitment to
//!    the Feldman vector `C_i = (a_{i,0}·G, …, a_{i,t−1}·G)`, the Schnorr proof `π_i` of
//!    `a_{i,0}` and the chain-code contribution `ρ_i`, and the Ed25519 identity verifying
//!    key of `i` (which signs `i`'s round-2 bodies in signing, see [`crate::sign`]; a refresh
//!    keeps it and a different key is blamed on its sender); *p2p*, for `j < i` only, the
//!    base-OT sender message of the pair `{j, i}`.
//! 2. **Round 2** `i → j`: *broadcast* the opening `(C_i, π_i, ρ_i, salt_i)`; *p2p* the share
//!    `f_i(j)` and, for `j > i`, the base-OT receiver message of the pair `{i, j}`.
//! 3. **Round 3**: every opening, vector length, proof and share is checked and a failure
//!    names its sender. `p(i) = Σ_j f_j(i)`, `pk = Σ_j C_{j,0}`, `T_k = Σ_j C_j(k)`, chain
//!    code `= H(ρ_1, …, ρ_n)`; the setup transcript hashes every opening and identity
//!    key. Then `i → j` for `j < i`: the OT-extension message that bootstraps the reverse
//!    direction of the pair (below).
//! 4. **Finish**: checks the bootstrap extensions (naming the sender) and outputs the share.
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
//! which must be the identity, and carries no proof), adds the zero-sharing to the old share,
//! keeps the public key and chain code, increments the epoch and replaces every pairwise OT
//! seed with fresh base OTs (which also re-establishes banned pairs).
//!
//!
//! # Use
//!
//! [`round1`] (or [`refresh_round1`]) → [`round2`] → [`round3`] → [`finish`]. Round-2
//! messages carry the share `f_i(j)` in clear: they need a confidential, authenticated
//! channel between `i` and `j`, which the caller (the node) provides.

mod finish;
mod messages;
mod round1;
mod round2;
mod round3;
mod setup;

#[cfg(any(test, feature = "test-faults"))]
mod faults;

pub use finish::finish;
pub use messages::{DkgMsg1, DkgMsg2, DkgMsg3};
pub use round1::{refresh_round1, round1, DkgRound1};
pub use round2::{round2, DkgRound2};
pub use round3::{round3, DkgRound3};

pub(crate) use messages::read_identity;

#[cfg(any(test, feature = "test-faults"))]
pub use round1::{round1_faulty, DkgFault};
