//! # quorate-net: sans-I/O driver and network simulator
#![forbid(unsafe_code)]
#![deny(missing_docs)]
