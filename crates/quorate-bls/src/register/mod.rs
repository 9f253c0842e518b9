//! Registration, one module per party's step (notes §ColdRegister, §ClientRegister):
//!
//! 1. [`cold`]: each [`ColdParty`](crate::ColdParty) draws its key and publishes a
//!    [`ColdRegistration`] (key and Π_DL proof).
//! 2. [`client`]: the client checks them into [`VerifiedColdKeys`] and
//!    [`Client::register`](crate::Client::register) deals a [`Registration`]: the public
//!    record, the client's authorisation of it and one private [`HotRegistration`] per
//!    hot party.
//! 3. [`hot`]: each [`HotParty::register`](crate::HotParty::register) checks its payload,
//!    after [`ColdParty::add_client`](crate::ColdParty::add_client) gave it its pad: only
//!    what protects that party (its own opening, `hx_i·g2 = vs_i + K_i`, the client's
//!    authorisation). The record's global checks (PoP, SCRAPE) are
//!    [`GroupPublic::validate`](crate::GroupPublic::validate)'s, run by the record's users
//!    (combiner, auditor) before they rely on it as a whole.

pub mod client;
pub mod cold;
pub mod hot;
pub(crate) mod messages;

pub use client::VerifiedColdKeys;
pub use messages::{
    registration_message, ColdPublicKey, ColdRegistration, HotRegistration, PadCommitment,
    Registration, DST_REGISTER,
};
