//! Registration, one module per party's step (notes §ColdRegister, §ClientRegister):
//!
//! 1. [`cold`]: each [`ColdParty`](crate::ColdParty) draws its key and publishes a
//!    [`ColdRegistration`] (key and Π_DL proof).
//! 2. [`client`]: the client checks them into [`VerifiedColdKeys`] and
//!    [`Client::register`](crate::Client::register) deals a [`Registration`]: the public
//!    record and one private [`HotRegistration`] per hot party.
//! 3. [`hot`]: each [`HotParty::register`](crate::HotParty::register) checks its payload,
//!    after [`ColdParty::add_client`](crate::ColdParty::add_client) gave it its pad.

pub mod client;
pub mod cold;
pub mod hot;
pub(crate) mod messages;

pub use client::VerifiedColdKeys;
pub use messages::{ColdPublicKey, ColdRegistration, HotRegistration, PadCommitment, Registration};
