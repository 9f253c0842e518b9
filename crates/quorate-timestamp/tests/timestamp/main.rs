//! Integration tests of quorate-timestamp: the service and its OpenAPI document.
//!
//! One test binary for the crate: each module is a former `tests/<module>.rs` binary, with its
//! tests and their names unchanged:
//! `cargo test -p quorate-timestamp --release --test timestamp <module>::`.
//! One binary links the crate and its dependencies once instead of once per file
//! (docs/reliability.md, "CI").

mod openapi;
mod service;
