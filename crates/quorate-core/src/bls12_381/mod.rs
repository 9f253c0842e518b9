//! BLS12-381 helpers shared by the crates that work on this curve (`quorate-bls`,
//! `quorate-mixnet`), all built on `blstrs`/`blst`:
//!
//! * [`msm`]: linear combinations of points, `*_ct` for secret scalars and `*_vartime`
//!   for public data only;
//! * [`pairing`]: pairing-product checks `Π e(P_i, Q_i) = 1` with one multi-Miller loop;
//! * [`wire`]: canonical scalar and point codecs (subgroup, curve and identity checks);
//! * [`hash`]: RFC 9380 hash-to-G1;
//! * [`normalize`]: batched projective-to-affine conversion of public points;
//! * [`glv`]: G1 multiplication by a public scalar through the endomorphism (the point may
//!   be secret).

pub mod glv;
pub mod hash;
pub mod msm;
pub mod normalize;
pub mod pairing;
pub mod wire;
