//! # quorate-node
//!
//! The node each party runs on its own machine: an identity key, a roster of peers pinned to
//! their keys, an authenticated and encrypted transport, a persisted session runtime that
//! drives the sans-I/O protocol crates, an encrypted crash-safe keystore and a local operator
//! API.
//!
//! Foundation modules:
//!
//! * [`identity`]: node ids, the Ed25519 identity key, the passphrase;
//! * [`keystore`]: the encrypted, crash-safe store of secrets, epochs, session states and
//!   bans (its module docs state the format, the Argon2id/AEAD parameters and the crash
//!   model);
//! * [`roster`]: public entries and rosters (pinned keys, addresses, party indices);
//! * [`config`]: the node config file;
//! * [`escrow`]: the escrow key and the verified escrow backups of node shares (issue 16);
//! * [`cosi`]: the CoSi witness role (witness key, chain-head check, tree rounds);
//! * [`nodedir`]: the node directory layout, `init` and loading a node;
//! * [`tlog_witness`]: the C2SP tlog-witness role (cosigning transparency-log checkpoints);
//! * [`cli`]: the `quorate node` subcommands ([`cli_witness`]: `quorate node witness …`);
//! * [`fsutil`]: bounded reads and durable, never-silent writes;
//! * [`faults`]: test-only crash hooks at named persist steps (feature `test-faults`).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod api;
pub mod api_client;
pub mod cli;
pub mod cli_escrow;
pub mod cli_run;
pub mod cli_witness;
pub mod config;
pub mod cosi;
pub mod daemon;
pub mod envelope;
pub mod escrow;
pub mod faults;
pub mod fsutil;
pub mod identity;
pub mod key_directory;
pub mod keystore;
pub mod metrics;
pub mod nodedir;
pub mod roster;
pub mod session;
pub mod tlog_witness;
pub mod transport;
