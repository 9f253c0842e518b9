//! Integration tests of quorate-ecdsa: DKG, signing, blame, restore, message codecs.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-ecdsa --release --test ecdsa <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod common;

mod blame;
mod codec;
mod dkg;
mod restore;
mod sign;
