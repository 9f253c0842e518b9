//! The C2SP tlog-witness role: the node cosigns transparency-log checkpoints.
//!
//! * [`note`]: signed notes and note verifier keys ([C2SP signed-note]);
//! * [`key`]: the witness's own cosignature/v1 Ed25519 key, sealed in the keystore, and the
//!   cosignatures it makes ([C2SP tlog-cosignature]).
//!
//! [C2SP signed-note]: https://c2sp.org/signed-note
//! [C2SP tlog-cosignature]: https://c2sp.org/tlog-cosignature

pub mod key;
pub mod note;

pub use key::WitnessKey;
pub use note::{NoteError, SignedNote, Verifier};
