//! # quorate-node
//!
//! The node each party runs on its own machine: an identity key, a roster of peers pinned to
//! their keys, an authenticated and encrypted transport, a persisted session runtime that
//! drives the sans-I/O protocol crates, an encrypted crash-safe keystore and a local operator
//! API.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod api;
pub mod api_client;
pub mod daemon;
pub mod envelope;
pub mod metrics;
pub mod session;
pub mod transport;
