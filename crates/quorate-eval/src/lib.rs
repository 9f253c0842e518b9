//! # quorate-eval
//!
//! Everything that measures the protocols rather than implementing them: network
//! simulations over `quorate-net`, baselines from the papers, benchmark harnesses and plots.
//! The protocol crates never depend on this crate (nor on `quorate-net`), so a normal build of
//! a protocol crate carries no simulator, timer or plotting code.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
