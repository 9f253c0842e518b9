//! Integration tests of quorate-bls: end to end, known-answer tests, persistence.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-bls --release --test bls <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod e2e;
mod kat;
mod persist;
