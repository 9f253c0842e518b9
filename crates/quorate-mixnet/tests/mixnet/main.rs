//! Integration tests of quorate-mixnet: the mix, DBSM/DBRSM and their blame, tracing, wire formats.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-mixnet --release --test mixnet <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod common;

mod dbrsm;
mod dbrsm_blame;
mod dbrsm_track;
mod dbsm;
mod defects;
mod mixing;
mod trace;
mod transcript_binding;
mod wire;
mod wire_rsm;
