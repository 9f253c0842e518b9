//! Integration tests of quorate-eval: the CoSi and ECDSA simulations and the mixnet end to end.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-eval --release --test eval <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod cosi_sim;
mod ecdsa_netsim;
mod mixnet_end_to_end;
