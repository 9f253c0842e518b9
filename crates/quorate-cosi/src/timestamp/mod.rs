//! # Timestamping with collective signatures (the CoSi paper's application)
//!
//! Clients submit 32-byte hashes. The service collects them for one *round* (a fixed interval,
//! or until a batch is full), builds a Merkle tree over the batch, and has the witness roster
//! collectively sign one short statement about that tree. Every client then gets a
//! [`Receipt`]: its leaf, the audit path to the root, the round header and the collective
//! signature. A receipt can be checked offline with nothing but the roster's public keys.
//! This module is sans-I/O; the HTTP server, the SQLite store and the load generator live in
//! the `quorate-timestamp` crate.
//!
//! ## Why RFC 6962 hashing
//!
//! The tree is the Certificate Transparency tree of RFC 6962 (RFC 9162 §2.1), see [`merkle`]:
//! SHA-256, leaves hashed as `H(0x00 ‖ d)`, interior nodes as `H(0x01 ‖ l ‖ r)`, and for
//! `n` leaves a split at the largest power of two below `n`.
//! * The 0x00/0x01 prefixes separate leaves from interior nodes. Without them an interior
//!   node's two children, concatenated, are a valid "leaf", and a proof for a fake leaf can be
//!   built from a real tree.
//! * The left-balanced split never duplicates an odd node. Bitcoin-style duplication makes
//!   `[a, b, c]` and `[a, b, c, c]` share a root, so a root no longer pins down the batch.
//! * It is the format that transparency logs, their witnesses and verifiers already use,
//!   with published test vectors (checked in the tests), and its inclusion-proof verification
//!   algorithm (RFC 9162 §2.1.3.2) also rejects paths of the wrong length.
//!
//! A proof has at most ⌈log₂ n⌉ hashes: 16 for 50,000 leaves.
//!
//! ## What is signed
//!
//! Witnesses sign one [`RoundHeader`] per round, encoded as a fixed 152-byte string
//! ([`RoundHeader::message`]):
//!
//! ```text
//! "quorate/cosi/timestamp/round/v2\0" ‖ roster_id ‖ round ‖ time_ms ‖ tree_size ‖ prev ‖ root
//! ```
//!
//! * The **domain tag** ensures a timestamp signature cannot be replayed as a CoSi signature
//!   on another protocol's message under the same witness keys.
//! * The **roster id** names the signing witness set.
//! * The **round number** and **time** (Unix milliseconds, non-decreasing) say when the
//!   round was sealed. Every hash in the tree existed before that time. Each witness checks
//!   them before it commits and again before it responds ([`TimestampValidator`]): the round
//!   must be the one after the last round it cosigned, `prev` must be that round's header
//!   hash, and the time must not go backwards and must be within
//!   [`DEFAULT_MAX_SKEW_MS`] (or the configured skew) of the witness's own clock. A
//!   cosignature is therefore a bound on the time, and an honest witness never cosigns two
//!   rounds at the same position (a fork).
//! * The **tree size** and **root** pin the batch.
//! * **`prev`** is the hash of the previous round's header ([`RoundHeader::hash`]), with 32
//!   zero bytes for round 0. Linking headers rather than Merkle roots keeps every link
//!   distinct, even when two rounds carry identical batches.
//!
//! Signed headers therefore form a hash chain. Round `r + 1` is only valid after round `r`,
//! and rewriting an issued round means re-signing it and every later round with the
//! witnesses' help. The chain also orders receipts across rounds.
//!
//! The signature is the collective signature `R(32) ‖ s(32) ‖ mask` of this crate's CoSi
//! implementation. With all witnesses present, its first 64 bytes are a plain Ed25519
//! signature on the message under the roster's aggregate key. A receipt is therefore
//! `hash → audit path → root → header → signature`, and every arrow can be recomputed by the
//! verifier ([`Receipt::verify`]).
//!
//! ## Relation to the paper's prototype
//!
//! In the paper (§V-A, §VI-G) every witness server also accepts timestamp requests. Each
//! builds a *local* Merkle tree per round. During the commitment phase the local roots are
//! aggregated up the CoSi tree into one *global* root, which is what gets signed. A client's
//! proof is then its local-tree path joined to the path from the local root to the global
//! root (the prototype's `StoreLocalMerkleProof`).
//!
//! Here one server takes requests, so there is one local tree and it *is* the global tree.
//! The receipt carries one RFC 6962 path. Aggregating several servers' roots would add a second
//! level: the global tree's leaves would be the local roots, and each receipt would need one
//! more path. The signed statement would be unchanged. The paper's "one request every 13 ms
//! per server, about 20,000 requests/s per physical machine" shows that request intake is
//! independent of signing, as it is here. Submitting appends to a batch, and signing runs once
//! per round, not once per request.
//!
//! ## Persistence and restart (in `quorate-timestamp`)
//!
//! The server writes every signed round to the store in one transaction, before any receipt
//! for it is released: round number, time, `prev`, root, tree size, signature and the
//! leaves. The leaves are stored so that receipts can be re-served. On restart the store's
//! last round is the [`ChainHead`], so the chain continues from the last issued root.

pub mod chain;
pub mod cosigner;
pub mod merkle;
pub mod receipt;
pub mod round;
pub mod text;
pub mod validator;
pub mod witnesses;

pub use chain::{build_tree, check_chain, seal_round, ChainError, ChainHead, IssuedRound};
pub use cosigner::{CosignError, RootCosigner, RoundVerifier};
pub use merkle::{leaf_hash, node_hash, verify_inclusion, Hash, InclusionError, MerkleTree};
pub use receipt::{Receipt, ReceiptError, RECEIPT_SCHEME};
pub use round::{RoundHeader, SignedRound, GENESIS_PREV, ROUND_DOMAIN, ROUND_MESSAGE_LEN};
pub use text::{parse_hash_hex, parse_hash_hex_bytes, rfc3339_utc};
pub use validator::{system_clock, Clock, TimestampValidator, DEFAULT_MAX_SKEW_MS};
pub use witnesses::{InProcessCosigner, RosterVerifier};
