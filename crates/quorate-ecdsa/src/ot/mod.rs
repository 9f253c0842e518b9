//! The OT stack: base OT ([`base`]) and OT extension with the revised KOS check ([`ext`]).
//! Correlated OT over the scalar field is built on the extended rows in [`crate::mul`].

pub mod base;
pub mod ext;
