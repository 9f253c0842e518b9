//! # quorate-verenc: verifiable encryption of discrete logs
//!
//! Reserved for CS03 (Camenisch–Shoup over `quorate-paillier`) and the TZ21
//! MPC-in-the-head schemes. Nothing is implemented yet: this crate is an empty slot in the
//! workspace layout, not a working system.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
