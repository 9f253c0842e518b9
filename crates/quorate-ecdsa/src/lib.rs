//! # quorate-ecdsa
//!
//! Threshold ECDSA on secp256k1 for any `t` of `n` parties: DKLs23's three-round signing
//! over DKLs19's OT-based two-party multiplication, with a dealerless key generation,
//! proactive refresh, non-hardened BIP32 derivation and identifiable abort.
//!
//! # The front door
//!
//! Every protocol is a sequence of sans-I/O round functions: each consumes the previous
//! state by value and returns the next state and the messages to send, addressed by
//! [`PartyId`]. Every message has a canonical `to_bytes`/`from_bytes` encoding whose decoder
//! names the sender on failure. Both protocols take one [`SessionId`], agreed by the
//! parties and unique per run.
//!
//! * [`keygen`]: `keygen::{round1, round2, round3, round4, finish}` gives every party its
//!   [`KeyShare`]. Every party passes its Ed25519 identity key and the roster of all
//!   parties' identity keys; round 4 is the agreement step: a share is output only when
//!   every party signed the same hash of all broadcasts, and an equivocating party is named
//!   with transferable evidence ([`keygen::EquivocationEvidence`]).
//!   [`keygen::refresh_round1`] starts a proactive refresh (same rounds 2 to 4), which ends
//!   in a [`keygen::PendingRefresh`] and an [`keygen::EpochCertificate`]
//!   ([`keygen::certify`]); [`keygen::PendingRefresh::commit`] makes the new epoch current
//!   and wipes the old share, [`keygen::PendingRefresh::abandon`] drops it. Refresh rotates
//!   the identity keys.
//!   A holder that lost its share can be rebuilt from an escrowed secret share
//!   ([`keygen::restore`]): the [`keygen::RestoredShare`] cannot sign, only join a refresh,
//!   whose commit gives it a full share of the next epoch.
//! * [`sign`]: `sign::{round1, round2, round3, combine}` gives a low-S [`Signature`] with
//!   recovery id for a 32-byte digest. If it cannot, [`sign::combine`] hands over to the
//!   [`sign::blame`] or [`sign::dispute`] round, which names the culprits.
//! * [`KeyShare::derive_child`]: non-hardened BIP32 children, derived locally.
//!
//! **Channels.** The library does no I/O and does not encrypt: the key-generation round-2
//! messages carry each recipient's share `f_i(j)` in clear, and signing's p2p parts are
//! secret too. Every message must travel over a confidential, authenticated channel
//! between its sender and its recipient (the node provides them); broadcast parts are
//! checked by the library (signed, echoed and agreed).
//!
//! Every abort caused by a counterparty names it ([`EcdsaError::culprits`]). Secrets are
//! wiped on drop and redacted in `Debug`. The lower layers ([`ot`], [`mul`], [`curve`])
//! are public for review and testing; [`notes`] maps the code to the papers.
//!
//! # Example: 2-of-3 key generation, then signing by parties 1 and 3
//!
//! ```
//! use quorate_core::{PartyId, ThresholdParams};
//! use ed25519_dalek::SigningKey;
//! use quorate_ecdsa::{keygen, sign, sign::Combined, KeyShare, SessionId};
//! use rand_core::OsRng;
//! use std::collections::BTreeMap;
//!
//! /// Delivers `(from, [(to, msg)])` to per-recipient inboxes.
//! fn route<M>(out: Vec<(PartyId, Vec<(PartyId, M)>)>) -> BTreeMap<PartyId, Vec<(PartyId, M)>> {
//!     let mut inbox: BTreeMap<_, Vec<_>> = BTreeMap::new();
//!     for (from, msgs) in out {
//!         for (to, m) in msgs {
//!             inbox.entry(to).or_default().push((from, m));
//!         }
//!     }
//!     inbox
//! }
//!
//! # fn main() -> quorate_ecdsa::Result<()> {
//! let params = ThresholdParams::new(2, 3)?;
//! let session = SessionId::new(b"example keygen".to_vec());
//! let mut rng = OsRng;
//!
//! // Every party's identity key (the node's own, say) and the roster of all of them.
//! let ids: Vec<SigningKey> = params.parties().map(|_| SigningKey::generate(&mut rng)).collect();
//! let roster: Vec<_> = ids.iter().map(|k| k.verifying_key()).collect();
//!
//! // Key generation: four message rounds (the last is the agreement step) and a finish.
//! let (mut st1, mut out) = (Vec::new(), Vec::new());
//! for i in params.parties() {
//!     let id = ids[i.position()].clone();
//!     let (st, msgs) = keygen::round1(params, i, &session, id, &roster, &mut rng)?;
//!     st1.push((i, st));
//!     out.push((i, msgs));
//! }
//! let mut inbox = route(out);
//! let (mut st2, mut out) = (Vec::new(), Vec::new());
//! for (i, st) in st1 {
//!     let (st, msgs) = keygen::round2(st, &inbox.remove(&i).unwrap_or_default(), &mut rng)?;
//!     st2.push((i, st));
//!     out.push((i, msgs));
//! }
//! let mut inbox = route(out);
//! let (mut st3, mut out) = (Vec::new(), Vec::new());
//! for (i, st) in st2 {
//!     let (st, msgs) = keygen::round3(st, &inbox.remove(&i).unwrap_or_default(), &mut rng)?;
//!     st3.push((i, st));
//!     out.push((i, msgs));
//! }
//! let mut inbox = route(out);
//! let (mut st4, mut out) = (Vec::new(), Vec::new());
//! for (i, st) in st3 {
//!     let (st, m) = keygen::round4(st, &inbox.remove(&i).unwrap_or_default())?;
//!     st4.push((i, st));
//!     // The round-4 message is a broadcast to every other party.
//!     out.push((i, params.parties().filter(|j| *j != i).map(|j| (j, m.clone())).collect()));
//! }
//! let mut inbox = route(out);
//! let mut shares: Vec<KeyShare> = Vec::new();
//! for (i, st) in st4 {
//!     shares.push(keygen::finish(st, &inbox.remove(&i).unwrap_or_default())?);
//! }
//! let public_key = shares[0].public_key();
//!
//! // Signing by parties 1 and 3: three rounds, then combine.
//! let signers = [PartyId::new(1)?, PartyId::new(3)?];
//! let sign_session = SessionId::new(b"example signing 1".to_vec());
//! let digest = [7u8; 32]; // the caller hashes the message
//! let (mut st1, mut out) = (Vec::new(), Vec::new());
//! for &i in &signers {
//!     let (st, msgs) = sign::round1(&shares[i.position()], &sign_session, &signers, &mut rng)?;
//!     st1.push((i, st));
//!     out.push((i, msgs));
//! }
//! let mut inbox = route(out);
//! let (mut st2, mut out) = (Vec::new(), Vec::new());
//! for (i, st) in st1 {
//!     let msgs = inbox.remove(&i).unwrap_or_default();
//!     let (st, msgs) = sign::round2(st, &mut shares[i.position()], &msgs, &mut rng)?;
//!     st2.push((i, st));
//!     out.push((i, msgs));
//! }
//! let mut inbox = route(out);
//! let (mut st3, mut out) = (Vec::new(), Vec::new());
//! for (i, st) in st2 {
//!     let msgs = inbox.remove(&i).unwrap_or_default();
//!     let (st, m) = sign::round3(st, &mut shares[i.position()], &digest, &msgs)?;
//!     st3.push((i, st));
//!     // The round-3 message is a broadcast to every other signer.
//!     out.push((i, signers.iter().filter(|j| **j != i).map(|j| (*j, m)).collect()));
//! }
//! let mut inbox = route(out);
//! for (i, st) in st3 {
//!     match sign::combine(st, &inbox.remove(&i).unwrap_or_default())? {
//!         Combined::Signature(sig) => {
//!             let k = sig.to_k256()?;
//!             assert!(sign::verify_prehash(&public_key, &digest, &k));
//!         }
//!         // On failure: run the blame or dispute round, which names the culprits.
//!         other => panic!("honest run: {other:?}"),
//!     }
//! }
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::unwrap_used)]

pub mod bip32;
pub mod curve;
pub mod error;
mod evidence;
mod fixed_base;
pub mod keygen;
pub mod keyshare;
pub mod mul;
pub mod notes;
pub mod ot;
pub mod sign;

pub use error::{EcdsaError, Result};
pub use keyshare::KeyShare;
pub use quorate_core::transcript::SessionId;
pub use quorate_core::PartyId;
pub use sign::Signature;
