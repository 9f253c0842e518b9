//! Integration tests of quorate-net: the simulated network (rounds, trees, faults, accounting, bandwidth, scale, determinism).
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-net --release --test net <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod common;

mod accounting;
mod bandwidth;
mod determinism;
mod faults;
mod rounds;
mod scale;
mod tree;
