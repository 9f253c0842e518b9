//! Integration tests of quorate-cosi: end to end, adversarial witnesses, rogue keys, concurrent sessions, timestamps, wire.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-cosi --release --test cosi <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod common;

mod adversarial;
mod concurrent_sessions;
mod e2e;
mod rogue_key;
mod timestamp;
mod wire;
