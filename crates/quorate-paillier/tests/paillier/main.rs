//! Integration tests of quorate-paillier: the scheme, prime generation, threshold decryption.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-paillier --release --test paillier <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod paillier;
mod primes;
mod threshold;
