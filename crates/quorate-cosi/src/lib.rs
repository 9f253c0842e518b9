//! # quorate-cosi: witness cosigning
#![forbid(unsafe_code)]
#![deny(missing_docs)]
