//! # quorate-mixnet: a traceable mixnet (work in progress)
//!
//! Mix-servers `M_1 … M_m` mix senders' threshold-Paillier ciphertexts with a publicly
//! verifiable, commitment-consistent shuffle and decrypt them with verifiable shares, so that
//! later tracing queries (DB-SM / DB-RSM, not implemented yet) can prove set membership
//! against the same permutation commitments.
//!
//! | module | contents |
//! |---|---|
//! | [`params`] | security constants, hash-to-curve generators, integer ↔ scalar |
//! | [`dkg`] | threshold ElGamal key in G1 by joint-Feldman DKG (t-of-m) |
//! | [`setup`] | keygen: DKG, threshold Paillier (dealer, a setup assumption), permutation commitments with proofs |
//! | [`sender`] | Enc with the proof linking `c`, `c′`, `γ`; input checking |
//! | [`shuffle`] | permutation commitments and the Terelius–Wikström shuffle proof |
//! | [`mix`] | re-encryption + shuffle per server, threshold decryption, querier verification |
//!
//! # Setup assumption
//! The threshold Paillier key comes from a trusted dealer (fresh safe primes, verifiable
//! shares; `quorate_paillier::threshold::deal`) who must erase the factorisation. Production
//! moduli have ≥ 3072 bits; tests use 1024.
//!
//! # Status
//! Done: keygen, Enc with linking proof, Mix with TW shuffle proofs, threshold decryption
//! with a proof for every element, public verification by the querier with blame.
//! Not done: an integer (ring-Pedersen) commitment inside the Paillier parts of the proofs
//! (see the soundness notes in [`sender`] and [`shuffle`]), DB-SM, DB-RSM, BTraceIn/Out.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod dkg;
pub mod error;
pub mod mix;
pub mod params;
pub mod sender;
pub mod setup;
pub mod shuffle;

pub use error::MixnetError;
