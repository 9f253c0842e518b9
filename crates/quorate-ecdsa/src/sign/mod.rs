//! DKLs23 three-round signing (eprint 2023/765, Protocol 3.6) for any `t` of the `n`
//! parties, over the DKLs19 multiplication of [`crate::mul`].
//!
//! For signers `S` (sorted), party `i` holds `sk_i = λ_i·p(i)` (so `Σ sk_i = sk`).
//!
//! * **Round 1** (`i → j`, p2p): sample the instance-key share `r_i` and the mask `φ_i`;
//!   send `H(sid, i, R_i, salt)` with `R_i = r_i·G`, and — as multiplication receiver
//!   (Bob) of the pair `(j → i)` — the OT-extension message for a random `χ_{ji}`.
//! * **Round 2** (`i → j`): as multiplication sender (Alice) of `(i → j)` with inputs
//!   `(r_i, sk_i)`: check `j`'s extension message and compute the transfer, getting
//!   `c_u, c_v`. The message is a **broadcast body**, identical for every recipient, plus
//!   a p2p part. The body holds the sender, the session id, the opening of `R_i`,
//!   `pk_i = sk_i·G` and, for **every** co-signer `k`, the 32-byte hash
//!   `h_{i→k} = H(tag, sid, i, k, Γ_u^{i→k}, Γ_v^{i→k}, ψ_{i→k})` of the *entry*
//!   `Γ_u^{i→k} = c_u^{i→k}·G`, `Γ_v^{i→k} = c_v^{i→k}·G`, `ψ_{i→k} = φ_i − χ^{k→i}`
//!   (`χ^{k→i}` is `i`'s random receiver input in the pair where `k` is Alice). With three or
//!   more signers the body is signed with the sender's Ed25519 identity key. The p2p part
//!   to `k` is the full entry towards `k` and the multiplication message.
//! * **Round 3** (broadcast; the only message-dependent round): check each body (sender,
//!   session, entry hashes, identity signature — failures name the sender) and that the
//!   p2p entry hashes to `h_{j→i}` in `j`'s body ([`CHECK_ENTRY`], names `j`), `Σ_j pk_j = pk` (and
//!   on failure `pk_j = λ_j·T_j` for each `j`, to name the culprit); for each `j`, check the
//!   opening of `R_j`, the multiplication check (getting `d_u, d_v`), and
//!   `χ^{j→i}·R_j = d_u·G + Γ_u^{j→i}`, `χ^{j→i}·pk_j = d_v·G + Γ_v^{j→i}` (DKLs23 step 3 —
//!   failure bans `j`). Then `R = Σ R_j`, `r = x(R) mod q`, and broadcast
//!   `u_i = r_i·(φ_i + Σ_j ψ_{j→i}) + Σ_j (c_u^{i→j} + d_u^{j→i})`,
//!   `w_i = H(m)·φ_i + r·v_i` with `v_i` the same expression for `sk_i`, and (three or more
//!   signers) the **echo digest**: a hash of every signer's body as received, own included.
//! * **Combine**: if an echo digest differs from one's own, [`Combined::Dispute`] (see
//!   [`dispute`]); otherwise `s = Σ w_i / Σ u_i = (H(m) + r·sk)/k`, normalised to
//!   low-S, with the recovery id. The signature is verified; if it does not verify,
//!   [`Combined::Blame`]: every signer proves its `(u_i, w_i)` correct (a Chaum–Pedersen
//!   proof, [`blame`]) and the resolution names every signer whose proof fails.
//!
//! # Use
//!
//! [`round1`] → [`round2`] → [`round3`] → [`combine`]; on failure [`combine`] returns the
//! state of the [`blame`] round ([`blame::resolve`]) or the [`dispute`] round
//! ([`dispute::resolve`]), each ending in an error that names the culprits. Messages and
//! their codecs are re-exported here.

mod combine;
mod messages;
mod round1;
mod round2;
mod round3;
mod session;

pub mod blame;
pub mod dispute;

#[cfg(any(test, feature = "test-faults"))]
mod faults;

pub use combine::{combine, verify_prehash, Combined, Signature};
pub use messages::{BlameMsg, DisputeMsg, SignMsg1, SignMsg2, SignMsg3};
pub use round1::{round1, SignRound1};
pub use round2::{round2, SignRound2};
pub use round3::{round3, SignRound3, CHECK_ENTRY};

#[cfg(any(test, feature = "test-faults"))]
pub use round1::{round1_faulty, Round1Fault};
#[cfg(any(test, feature = "test-faults"))]
pub use round2::{round2_faulty, Round2Fault};
#[cfg(any(test, feature = "test-faults"))]
pub use round3::{round3_faulty, Round3Fault};
