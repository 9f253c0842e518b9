//! # quorate-timestamp
//!
//! The CoSi timestamping service as a network service: clients submit 32-byte hashes over
//! HTTP, the service seals them into a Merkle tree every round, has the roster of witnesses
//! collectively sign the round header (chained to the previous root), stores the round in
//! SQLite and hands out receipts that anyone can check offline with the roster's keys.
//!
//! The protocol side (Merkle trees, round headers, receipts, the collective signer) is in
//! [`quorate_cosi::timestamp`]; this crate adds the I/O. The front door is [`Service`]: it
//! opens (or creates) the store, sets up the witnesses and runs the HTTP server on its own
//! tokio runtime, with blocking methods for callers that are not async.
//!
//! * [`server`]: the axum server and its API (the table of routes is in its docs).
//! * [`store`]: the SQLite store of every signed round and its leaves, written in one
//!   transaction before any receipt of the round is released.
//! * [`witnesses`]: the in-process witnesses, whose key seed is kept in the store.
//! * [`loadgen`]: a bounded HTTP/1.1 load generator for loopback benchmarks, and
//!   [`loadgen::http_call`], a minimal client.
//!
//! ```
//! use quorate_timestamp::{ServerConfig, Service, Store};
//! use quorate_cosi::timestamp::Receipt;
//!
//! # fn main() -> anyhow::Result<()> {
//! let config = ServerConfig {
//!     round_interval: std::time::Duration::from_millis(20),
//!     ..ServerConfig::default()
//! };
//! let service = Service::start("127.0.0.1:0".parse()?, Store::in_memory()?, 3, config)?;
//!
//! // Submit a hash (64 hex characters or 32 raw bytes) and get a ticket back.
//! let (status, body) = service.call("POST", "/v1/submit", &[7u8; 32])?;
//! assert_eq!(status, 200);
//! let ticket = quorate_timestamp::loadgen::ticket_of(&body).expect("a ticket");
//!
//! // Wait for the round to be signed and stored, then check the receipt offline.
//! let (status, body) = service.call("GET", &format!("/v1/receipt/{ticket}?wait=1"), b"")?;
//! assert_eq!(status, 200);
//! let receipt = Receipt::from_json(std::str::from_utf8(&body)?)?;
//! receipt.verify(&service.verifier(), Some(&[7u8; 32]))?;
//! service.shutdown()
//! # }
//! ```

pub mod loadgen;
pub mod server;
mod service;
pub mod store;
pub mod witnesses;

pub use server::{roster_json, ServerConfig, TimestampServer};
pub use service::Service;
pub use store::Store;
pub use witnesses::open_cosigner;
