//! quorate-core: party ids (the only public decoder in the crate; the `Reader` primitives
//! are reached through every other crate's decoders).

use crate::{re, Case};
use quorate_core::PartyId;

/// The cases.
pub fn cases() -> Vec<Case> {
    vec![Case::new(
        "party::PartyId",
        PartyId::new(3).expect("id").to_bytes().to_vec(),
        |b| {
            re(PartyId::from_bytes(b.try_into().ok()?), |p| {
                p.to_bytes().to_vec()
            })
        },
    )]
}
