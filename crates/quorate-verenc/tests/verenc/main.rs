//! Integration tests of quorate-verenc: CS03, TZ21, backups, decoders on hostile input.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-verenc --release --test verenc <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod backup;
mod cs03;
mod fuzz_decoders;
mod tz21;
