//! Integration tests of quorate-node: the API, crash recovery, the daemon, sessions, the tlog witness, the transport.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-node --release --test node <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod api;
mod crash;
mod daemon;
mod session;
mod tlog_witness;
mod transport;
