//! # quorate-cosi: witness cosigning
//!
//! CoSi lets a large group of *witnesses* cosign a statement (a log head, a release, a
//! timestamp batch) so that a client can check, with one signature, that many independent
//! parties saw and approved it. Signatures are **Ed25519-compatible**: `R ‖ s` verifies with
//! any strict Ed25519 verifier under the participants' aggregate key, and under the roster's
//! static key `A = ΣA_i` when every witness signed.
//!
//! See [`notes`] for the math, the design decisions and how conflicts between the sources
//! were resolved.
//!
//! ## Public API
//!
//! **Keys and roster** ([`keys`], [`roster`])
//! * [`SecretKey::generate`], [`SecretKey::public_key`], [`SecretKey::roster_entry`]
//!   (public key + [`ProofOfPossession`]);
//! * [`Roster::new`]`(Vec<RosterEntry>) -> Result<Roster, CosiError>` (checks proofs of
//!   possession, duplicates; keys are validated by [`PublicKey::from_bytes`]);
//!   [`Roster::from_json`] / [`Roster::to_json`] (the roster file: entries with their proofs;
//!   bare keys are refused with [`CosiError::MissingProofOfPossession`]);
//!   [`Roster::aggregate_key`] (`A`), [`Roster::aggregate_for_mask`] (`A'`, incremental),
//!   [`Roster::id`].
//!
//! **Signatures and policies** ([`signature`], [`mask`], [`policy`])
//! * [`Signature`]: `R(32) ‖ s(32) ‖ mask(⌈n/8⌉)`; [`Signature::from_bytes`]`(bytes, n)`
//!   with typed [`quorate_core::DecodeError`]s, [`Signature::to_bytes`],
//!   [`Signature::ed25519_bytes`];
//! * [`Mask`]: bit `i` = 1 ⇔ witness `i` participated, little-endian bit order;
//! * [`Roster::verify`]`(message, &Signature, &Policy)` and [`Roster::verify_bytes`];
//! * [`Policy`]: `Complete`, `Threshold(t)`, nested `Group { k, members }`.
//!
//! **Signing, sans-I/O** ([`protocol`], [`tree`])
//! * [`Tree`]: [`Tree::complete`], [`Tree::with_depth`], [`Tree::three_level`],
//!   [`Tree::from_children`], [`Tree::repair`] (subleader replacement); [`KeyTree`] caches
//!   subtree aggregate keys;
//! * [`Witness::new`]`(roster, index, key, validator)`: a witness checks every message with
//!   its [`Validator`] before it commits and before it responds;
//!   [`Witness::commit`]`(&mut self, &Announcement, rng) -> (CommittedWitness, Commitment)`
//!   (the [`Announcement`] carries the message),
//!   [`Witness::respond`]`(&mut self, CommittedWitness, &Challenge) -> Response`;
//! * [`Aggregator`] → [`AggregatorAwaitingChallenge`] → [`AggregatorCollecting`] for interior
//!   nodes (sums commitments, checks each child's partial response, names culprits);
//! * [`Challenge::new`] at the root, [`ChallengeContext::derive`] at every node,
//!   [`ChallengeContext::finalize`] to obtain the verified [`Signature`];
//! * [`Mode::TwoNonce`] (default, concurrency-safe) and [`Mode::Legacy`] (classic CoSi,
//!   insecure under concurrent sessions). The leader cannot choose legacy: default witnesses
//!   and aggregators refuse it ([`CosiError::LegacyRefused`]); only
//!   `Witness::new_insecure_legacy` / `Aggregator::new_insecure_legacy`, behind the
//!   `insecure-legacy` cargo feature (off by default), sign or relay it, to reproduce the
//!   paper.
//!
//! **In-process driver** ([`driver`])
//! * [`sign_in_process`]`(roster, &mut witnesses, tree, message, policy, &Scenario, rng)
//!   -> Result<(Signature, SigningReport), CosiError>`: declining witnesses, absent witnesses, failures after
//!   commitment (restart with an adjusted mask), bad responses (named), stop at threshold,
//!   subleader replacement.
//!
//! **Errors** ([`error`]): [`CosiError`] implements [`quorate_core::error::Culprits`]. Every
//! error names a witness by one number, its [`quorate_core::PartyId`]: the witness at roster
//! position `i` (mask bit `i`) is witness `i + 1` ([`error::witness_id`]).
//!
//! ## Example
//!
//! ```
//! use quorate_cosi::{sign_in_process, Policy, Roster, Scenario, SecretKey, Tree, Witness};
//! use rand_chacha::ChaCha20Rng;
//! use rand_core::SeedableRng;
//! use std::sync::Arc;
//!
//! let mut rng = ChaCha20Rng::seed_from_u64(7);
//! let keys: Vec<SecretKey> = (0..10).map(|_| SecretKey::generate(&mut rng)).collect();
//! // Registration: every roster entry carries a proof of possession of its key.
//! let entries = keys.iter().map(|k| k.roster_entry(&mut rng)).collect();
//! let roster = Arc::new(Roster::new(entries)?);
//! let tree = Tree::complete(10, 3)?;
//!
//! // Each witness cosigns only what its validator accepts; witness 9 refuses this statement.
//! let mut witnesses = keys
//!     .into_iter()
//!     .enumerate()
//!     .map(|(i, key)| {
//!         let check = move |m: &[u8]| match i {
//!             9 => Err("I have not seen log head 42".to_string()),
//!             _ if m.starts_with(b"log head") => Ok(()),
//!             _ => Err("not a log head".to_string()),
//!         };
//!         Witness::new(roster.clone(), i, key, check)
//!     })
//!     .collect::<Result<Vec<_>, _>>()?;
//!
//! // Witness 4 is down; witness 7 commits and then goes silent (the round restarts).
//! let scenario = Scenario::default()
//!     .with_absent([4])
//!     .with_fail_after_commit([7]);
//! let policy = Policy::Threshold(7);
//! let message = b"log head 42";
//! let (sig, report) =
//!     sign_in_process(&roster, &mut witnesses, &tree, message, &policy, &scenario, &mut rng)?;
//! assert_eq!(report.attempts, 2);
//! assert_eq!(report.declined, vec![9]);
//! assert_eq!(sig.mask().count(), 7);
//!
//! // Any verifier with the roster:
//! let bytes = sig.to_bytes();
//! roster.verify_bytes(b"log head 42", &bytes, &policy)?;
//! # Ok::<(), quorate_cosi::CosiError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod driver;
pub mod error;
pub mod hash;
pub mod keys;
pub mod mask;
pub mod notes;
pub mod policy;
pub mod protocol;
pub mod roster;
pub mod signature;
pub mod timestamp;
pub mod tree;
pub mod validator;

pub use driver::{sign_in_process, Exclusion, Scenario, SigningReport};
pub use error::{CosiError, VerifyFailure};
pub use keys::{ProofOfPossession, PublicKey, RosterEntry, SecretKey};
pub use mask::Mask;
pub use policy::{Policy, PolicyMember};
pub use protocol::{
    Aggregator, AggregatorAwaitingChallenge, AggregatorCollecting, Announcement, Challenge,
    ChallengeContext, ChildCheck, Commitment, CommittedWitness, Mode, Response, Witness,
};
pub use quorate_core::transcript::SessionId;
pub use roster::{Roster, RosterId};
pub use signature::Signature;
pub use tree::{KeyTree, Promotion, Tree};
pub use validator::{ExactMessage, Validator};
