//! # quorate (command-line tool)
//!
//! The library half of the `quorate` binary: one module per implemented system ([`systems`]), each providing its demo, verifier and
//! benchmark entry points, and the glue for `quorate cosi timestamp` ([`timestamp`]) over the
//! `quorate-timestamp` service crate. `src/main.rs` only parses arguments and dispatches here.

pub mod systems;
pub mod timestamp;
