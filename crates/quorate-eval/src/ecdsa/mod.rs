//! Threshold ECDSA (`quorate-ecdsa`) evaluation: in-process runs with byte counting
//! ([`simulate`], for demos and benchmarks) and the same rounds over `quorate-net`'s
//! simulated LAN/WAN ([`netsim`], DKLs19 §VI settings).

pub mod netsim;
pub mod simulate;
