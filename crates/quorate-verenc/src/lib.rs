//! # quorate-verenc
#![forbid(unsafe_code)]
#![deny(missing_docs)]
