//! Fiat–Shamir transcripts.
//!
//! [`ProtocolTranscript`] extends `merlin::Transcript`. A transcript is always opened with
//! [`ProtocolTranscript::for_protocol`], which binds the protocol name, its version and a
//! caller-chosen session id before anything else, so proofs from different protocols,
//! versions or sessions can never be confused. Each proof then appends *every* public input
//! of its statement with a distinct label before drawing challenges.

use crate::party::PartyId;
use ff::PrimeField;
use group::GroupEncoding;
use merlin::Transcript;

/// A session identifier: bytes chosen by the application (for example a key id, an epoch and
/// a block id). It is bound into every transcript of the session.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SessionId(Vec<u8>);

impl SessionId {
    /// Wraps application-chosen bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        SessionId(bytes.into())
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Extension methods on `merlin::Transcript` used by every quorate proof.
pub trait ProtocolTranscript {
    /// Opens a transcript bound to `protocol` (a static domain separator such as
    /// `b"quorate/bls/pi-dl"`), its `version` and the `session` id.
    fn for_protocol(protocol: &'static [u8], version: u16, session: &SessionId) -> Transcript;
    /// Appends a `u64`.
    fn append_u64_be(&mut self, label: &'static [u8], v: u64);
    /// Appends a party id.
    fn append_party(&mut self, label: &'static [u8], id: PartyId);
    /// Appends a field element by its canonical representation.
    fn append_scalar<F: PrimeField>(&mut self, label: &'static [u8], x: &F);
    /// Appends a group element by its canonical encoding.
    fn append_point<G: GroupEncoding>(&mut self, label: &'static [u8], p: &G);
    /// Appends a list of group elements, length first.
    fn append_points<G: GroupEncoding>(&mut self, label: &'static [u8], ps: &[G]);
    /// Draws a challenge scalar from 64 transcript bytes reduced modulo the field order
    /// (bias below 2^-128 for fields of up to 384 bits).
    fn challenge_scalar<F: PrimeField>(&mut self, label: &'static [u8]) -> F;
    /// Draws a 128-bit challenge (for batching coefficients), as a field element.
    fn challenge_u128_scalar<F: PrimeField>(&mut self, label: &'static [u8]) -> F;
}

impl ProtocolTranscript for Transcript {
    fn for_protocol(protocol: &'static [u8], version: u16, session: &SessionId) -> Transcript {
        let mut t = Transcript::new(b"quorate");
        t.append_message(b"protocol", protocol);
        t.append_message(b"version", &version.to_be_bytes());
        t.append_message(b"session-id", session.as_bytes());
        t
    }

    fn append_u64_be(&mut self, label: &'static [u8], v: u64) {
        self.append_message(label, &v.to_be_bytes());
    }

    fn append_party(&mut self, label: &'static [u8], id: PartyId) {
        self.append_message(label, &id.to_bytes());
    }

    fn append_scalar<F: PrimeField>(&mut self, label: &'static [u8], x: &F) {
        self.append_message(label, x.to_repr().as_ref());
    }

    fn append_point<G: GroupEncoding>(&mut self, label: &'static [u8], p: &G) {
        self.append_message(label, p.to_bytes().as_ref());
    }

    fn append_points<G: GroupEncoding>(&mut self, label: &'static [u8], ps: &[G]) {
        self.append_u64_be(label, ps.len() as u64);
        for p in ps {
            self.append_message(label, p.to_bytes().as_ref());
        }
    }

    fn challenge_scalar<F: PrimeField>(&mut self, label: &'static [u8]) -> F {
        let mut buf = [0u8; 64];
        self.challenge_bytes(label, &mut buf);
        crate::hash::field_from_wide_bytes(&buf)
    }

    fn challenge_u128_scalar<F: PrimeField>(&mut self, label: &'static [u8]) -> F {
        let mut buf = [0u8; 16];
        self.challenge_bytes(label, &mut buf);
        crate::hash::field_from_wide_bytes(&buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blstrs::Scalar;

    fn challenge(protocol: &'static [u8], version: u16, sid: &[u8]) -> Scalar {
        let mut t = Transcript::for_protocol(protocol, version, &SessionId::new(sid.to_vec()));
        t.append_u64_be(b"x", 1);
        t.challenge_scalar(b"c")
    }

    #[test]
    fn protocol_version_and_session_are_bound() {
        let base = challenge(b"p", 1, b"s");
        assert_eq!(base, challenge(b"p", 1, b"s"));
        assert_ne!(base, challenge(b"q", 1, b"s"));
        assert_ne!(base, challenge(b"p", 2, b"s"));
        assert_ne!(base, challenge(b"p", 1, b"t"));
    }
}
