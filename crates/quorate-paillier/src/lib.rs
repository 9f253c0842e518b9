//! # quorate-paillier
#![forbid(unsafe_code)]
#![deny(missing_docs)]
