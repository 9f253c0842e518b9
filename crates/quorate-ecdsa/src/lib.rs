//! # quorate-ecdsa
#![forbid(unsafe_code)]
#![deny(missing_docs)]
