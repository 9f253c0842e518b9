//! Signed envelopes: every protocol message travels in one.
//!
//! The sender signs (Ed25519, strict verification) a domain-separated header that binds the
//! protocol and its version, key id, epoch, session id, attempt, round, sender, recipient and
//! the SHA-256 hash of the payload. The transport's authentication only says who sent bytes
//! over a link; the envelope says who *wrote* them, so relays stay untrusted and an exported
//! envelope is evidence that anyone holding the roster can check with [`Envelope::verify`].
//!
//! ## Wire format (version 1, all integers big-endian)
//!
//! | field | bytes |
//! |---|---|
//! | magic `QENV` | 4 |
//! | format version (1) | 1 |
//! | protocol name length `n` (1..=32), name (ASCII `[a-z0-9._-]`) | 1 + n |
//! | protocol version | 2 |
//! | key id length `k` (1..=128), key id (`[A-Za-z0-9._:-]`) | 1 + k |
//! | epoch | 8 |
//! | session id | 32 |
//! | attempt | 4 |
//! | round | 2 |
//! | sender | 2 |
//! | recipient tag (0 = everyone, 1 = one node), recipient id (0 when tag is 0) | 1 + 2 |
//! | SHA-256(payload) | 32 |
//! | signature over `DOMAIN ‖ header` (everything above) | 64 |
//! | payload length, payload | 4 + len |
//!
//! Decoding checks every length and tag, that the payload hash matches and that nothing
//! trails; it never panics on hostile bytes.

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

/// Domain separator of the signed header.
const DOMAIN: &[u8] = b"quorate/envelope/v1";
const MAGIC: &[u8; 4] = b"QENV";
/// Envelope format version written and accepted.
pub const FORMAT_VERSION: u8 = 1;
/// Longest protocol name.
pub const MAX_PROTOCOL_NAME: usize = 32;
/// Longest key id.
pub const MAX_KEY_ID: usize = 128;

/// Who an envelope is addressed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Recipient {
    /// Every participant of the session (a broadcast).
    All,
    /// One node.
    Node(u16),
}

impl Recipient {
    /// Whether node `id` is an intended recipient.
    pub fn includes(self, id: u16) -> bool {
        match self {
            Recipient::All => true,
            Recipient::Node(n) => n == id,
        }
    }
}

/// Everything an envelope binds besides the payload.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// Protocol name, e.g. `ecdsa-sign`.
    pub protocol: String,
    /// Protocol version.
    pub protocol_version: u16,
    /// Key the session is about (the keystore's key id; for keygen, the id the new key
    /// will have).
    pub key_id: String,
    /// Key epoch.
    pub epoch: u64,
    /// Session id (hash of the accepted proposal).
    pub session: [u8; 32],
    /// Attempt number within (key id, epoch).
    pub attempt: u32,
    /// Round (0 is the session's control round: proposal, accept, refuse).
    pub round: u16,
    /// Sender's node id.
    pub sender: u16,
    /// Recipient.
    pub recipient: Recipient,
}

/// A signed protocol message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// The bound fields.
    pub header: Header,
    /// SHA-256 of the payload (signed).
    pub payload_hash: [u8; 32],
    /// Sender's Ed25519 signature over the header.
    pub signature: [u8; 64],
    /// Opaque protocol payload.
    pub payload: Vec<u8>,
}

/// Why an envelope was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// Input ended early.
    #[error("envelope truncated")]
    Truncated,
    /// Bytes after the payload.
    #[error("{0} trailing bytes after the envelope")]
    Trailing(usize),
    /// Not an envelope.
    #[error("not an envelope (bad magic)")]
    BadMagic,
    /// Format version we do not speak.
    #[error("unsupported envelope format version {0}")]
    UnsupportedVersion(u8),
    /// Malformed field.
    #[error("malformed envelope field: {0}")]
    Malformed(&'static str),
    /// Payload larger than allowed.
    #[error("payload of {len} bytes exceeds the limit of {max}")]
    TooLarge {
        /// Declared length.
        len: usize,
        /// Limit.
        max: usize,
    },
    /// The payload does not match its signed hash.
    #[error("payload does not match its signed hash")]
    PayloadHashMismatch,
    /// Sender not in the roster.
    #[error("sender {0} is not in the roster")]
    UnknownSender(u16),
    /// Signature invalid for the sender's roster key.
    #[error("signature of node {0} does not verify")]
    BadSignature(u16),
}

fn payload_hash(payload: &[u8]) -> [u8; 32] {
    Sha256::digest(payload).into()
}

/// Whether `id` is a valid key id: 1..=128 bytes of `[A-Za-z0-9._:-]`.
pub fn valid_key_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_KEY_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}

fn valid_protocol_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_PROTOCOL_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
}

impl Header {
    fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(MAGIC);
        out.push(FORMAT_VERSION);
        // Callers construct headers through `Envelope::seal`, which checks the name.
        out.push(self.protocol.len() as u8);
        out.extend_from_slice(self.protocol.as_bytes());
        out.extend_from_slice(&self.protocol_version.to_be_bytes());
        // Checked by `Envelope::seal` (at most 128 bytes).
        out.push(self.key_id.len() as u8);
        out.extend_from_slice(self.key_id.as_bytes());
        out.extend_from_slice(&self.epoch.to_be_bytes());
        out.extend_from_slice(&self.session);
        out.extend_from_slice(&self.attempt.to_be_bytes());
        out.extend_from_slice(&self.round.to_be_bytes());
        out.extend_from_slice(&self.sender.to_be_bytes());
        match self.recipient {
            Recipient::All => {
                out.push(0);
                out.extend_from_slice(&0u16.to_be_bytes());
            }
            Recipient::Node(id) => {
                out.push(1);
                out.extend_from_slice(&id.to_be_bytes());
            }
        }
    }
}

fn signed_message(header: &Header, payload_hash: &[u8; 32]) -> Vec<u8> {
    let mut m = Vec::with_capacity(DOMAIN.len() + 160);
    m.extend_from_slice(DOMAIN);
    header.encode_into(&mut m);
    m.extend_from_slice(payload_hash);
    m
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], EnvelopeError> {
        if self.bytes.len() < n {
            return Err(EnvelopeError::Truncated);
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], EnvelopeError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, EnvelopeError> {
        Ok(self.array::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, EnvelopeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, EnvelopeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, EnvelopeError> {
        Ok(u64::from_be_bytes(self.array()?))
    }
}

impl Envelope {
    /// Signs `payload` under `header` with the sender's identity key.
    ///
    /// The caller is responsible for `header.sender` being the id of `key` in the roster;
    /// [`Envelope::verify`] checks it on the other side.
    pub fn seal(header: Header, payload: Vec<u8>, key: &SigningKey) -> Result<Self, EnvelopeError> {
        if !valid_protocol_name(&header.protocol) {
            return Err(EnvelopeError::Malformed("protocol name"));
        }
        if !valid_key_id(&header.key_id) {
            return Err(EnvelopeError::Malformed("key id"));
        }
        if payload.len() > u32::MAX as usize {
            return Err(EnvelopeError::TooLarge {
                len: payload.len(),
                max: u32::MAX as usize,
            });
        }
        let payload_hash = payload_hash(&payload);
        let signature = key.sign(&signed_message(&header, &payload_hash)).to_bytes();
        Ok(Self {
            header,
            payload_hash,
            signature,
            payload,
        })
    }

    /// Checks the sender's signature with `roster` (a lookup from node id to its roster key)
    /// and that the payload matches its signed hash. This is the third-party check: it
    /// needs nothing but the envelope and the roster.
    pub fn verify(
        &self,
        roster: impl Fn(u16) -> Option<VerifyingKey>,
    ) -> Result<(), EnvelopeError> {
        if payload_hash(&self.payload) != self.payload_hash {
            return Err(EnvelopeError::PayloadHashMismatch);
        }
        self.verify_signature(roster)
    }

    /// The signature half of [`Envelope::verify`], for an envelope whose payload was checked
    /// against its signed hash already ([`Envelope::decode`] does that): the payload is
    /// hashed once per received message, not twice.
    fn verify_signature(
        &self,
        roster: impl Fn(u16) -> Option<VerifyingKey>,
    ) -> Result<(), EnvelopeError> {
        let sender = self.header.sender;
        let key = roster(sender).ok_or(EnvelopeError::UnknownSender(sender))?;
        let sig = Signature::from_bytes(&self.signature);
        key.verify_strict(&signed_message(&self.header, &self.payload_hash), &sig)
            .map_err(|_| EnvelopeError::BadSignature(sender))
    }

    /// [`Envelope::decode`] and [`Envelope::verify`] in one: the payload is hashed once
    /// (decoding checks it against the signed hash), then the sender's signature is checked
    /// with `roster`. What a receiving node runs on every message.
    pub fn decode_verified(
        bytes: &[u8],
        max_payload: usize,
        roster: impl Fn(u16) -> Option<VerifyingKey>,
    ) -> Result<Self, EnvelopeError> {
        let env = Self::decode(bytes, max_payload)?;
        env.verify_signature(roster)?;
        Ok(env)
    }

    /// The wire encoding.
    pub fn encode(&self) -> Vec<u8> {
        // The header is at most 256 bytes (a 32-byte protocol name, a 128-byte key id): one
        // allocation, never a copy of a 40 KB payload to grow it.
        let mut out = Vec::with_capacity(256 + 32 + 64 + 4 + self.payload.len());
        self.header.encode_into(&mut out);
        out.extend_from_slice(&self.payload_hash);
        out.extend_from_slice(&self.signature);
        out.extend_from_slice(&(self.payload.len() as u32).to_be_bytes());
        out.extend_from_slice(&self.payload);
        out
    }

    /// Decodes an envelope whose payload is at most `max_payload` bytes (checked before the
    /// payload is read). Does not verify the signature: call [`Envelope::verify`].
    pub fn decode(bytes: &[u8], max_payload: usize) -> Result<Self, EnvelopeError> {
        let mut r = Reader { bytes };
        if r.take(4)? != MAGIC {
            return Err(EnvelopeError::BadMagic);
        }
        let version = r.u8()?;
        if version != FORMAT_VERSION {
            return Err(EnvelopeError::UnsupportedVersion(version));
        }
        let name_len = r.u8()? as usize;
        let name = r.take(name_len)?;
        let protocol = std::str::from_utf8(name)
            .ok()
            .filter(|n| valid_protocol_name(n))
            .ok_or(EnvelopeError::Malformed("protocol name"))?
            .to_string();
        let protocol_version = r.u16()?;
        let key_len = r.u8()? as usize;
        let key_id = std::str::from_utf8(r.take(key_len)?)
            .ok()
            .filter(|k| valid_key_id(k))
            .ok_or(EnvelopeError::Malformed("key id"))?
            .to_string();
        let epoch = r.u64()?;
        let session = r.array()?;
        let attempt = r.u32()?;
        let round = r.u16()?;
        let sender = r.u16()?;
        let recipient = match (r.u8()?, r.u16()?) {
            (0, 0) => Recipient::All,
            (1, id) => Recipient::Node(id),
            _ => return Err(EnvelopeError::Malformed("recipient")),
        };
        let payload_hash_field = r.array()?;
        let signature = r.array()?;
        let len = r.u32()? as usize;
        if len > max_payload {
            return Err(EnvelopeError::TooLarge {
                len,
                max: max_payload,
            });
        }
        let payload = r.take(len)?.to_vec();
        if !r.bytes.is_empty() {
            return Err(EnvelopeError::Trailing(r.bytes.len()));
        }
        if payload_hash(&payload) != payload_hash_field {
            return Err(EnvelopeError::PayloadHashMismatch);
        }
        Ok(Self {
            header: Header {
                protocol,
                protocol_version,
                key_id,
                epoch,
                session,
                attempt,
                round,
                sender,
                recipient,
            },
            payload_hash: payload_hash_field,
            signature,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::OsRng;

    fn header(sender: u16) -> Header {
        Header {
            protocol: "test-echo".into(),
            protocol_version: 1,
            key_id: "key-7".into(),
            epoch: 3,
            session: [9; 32],
            attempt: 2,
            round: 1,
            sender,
            recipient: Recipient::Node(2),
        }
    }

    fn roster(keys: &[(u16, VerifyingKey)]) -> impl Fn(u16) -> Option<VerifyingKey> + '_ {
        move |id| keys.iter().find(|(i, _)| *i == id).map(|(_, k)| *k)
    }

    #[test]
    fn seal_encode_decode_verify_round_trip() {
        let k1 = SigningKey::generate(&mut OsRng);
        let keys = [(1, k1.verifying_key())];
        let env = Envelope::seal(header(1), b"hello".to_vec(), &k1).expect("seal");
        let bytes = env.encode();
        let back = Envelope::decode(&bytes, 1024).expect("decode");
        assert_eq!(back, env);
        back.verify(roster(&keys)).expect("verify");
        let once = Envelope::decode_verified(&bytes, 1024, roster(&keys)).expect("decode");
        assert_eq!(once, env);
    }

    #[test]
    fn decode_verified_refuses_what_decode_then_verify_refuses() {
        let k1 = SigningKey::generate(&mut OsRng);
        let k2 = SigningKey::generate(&mut OsRng);
        let keys = [(1, k1.verifying_key()), (2, k2.verifying_key())];
        let env = Envelope::seal(header(1), b"payload".to_vec(), &k1).expect("seal");
        // Another sender's id on our signature, a changed bound field, a swapped payload, an
        // unknown sender, a payload over the limit.
        let mut other_sender = env.clone();
        other_sender.header.sender = 2;
        let mut other_round = env.clone();
        other_round.header.round += 1;
        let mut swapped = env.encode();
        let last = swapped.len() - 1;
        swapped[last] ^= 1;
        let mut unknown = env.clone();
        unknown.header.sender = 9;
        let cases = [
            (other_sender.encode(), 1024, EnvelopeError::BadSignature(2)),
            (other_round.encode(), 1024, EnvelopeError::BadSignature(1)),
            (swapped, 1024, EnvelopeError::PayloadHashMismatch),
            (unknown.encode(), 1024, EnvelopeError::UnknownSender(9)),
            (
                env.encode(),
                3,
                EnvelopeError::TooLarge {
                    len: b"payload".len(),
                    max: 3,
                },
            ),
        ];
        for (bytes, max, want) in cases {
            assert_eq!(
                Envelope::decode_verified(&bytes, max, roster(&keys)),
                Err(want)
            );
        }
    }

    type Mutation = Box<dyn Fn(&mut Header)>;

    #[test]
    fn every_bound_field_is_covered_by_the_signature() {
        let k1 = SigningKey::generate(&mut OsRng);
        let keys = [
            (1, k1.verifying_key()),
            (2, SigningKey::generate(&mut OsRng).verifying_key()),
        ];
        let env = Envelope::seal(header(1), b"payload".to_vec(), &k1).expect("seal");
        let mutations: Vec<Mutation> = vec![
            Box::new(|h| h.protocol = "test-other".into()),
            Box::new(|h| h.protocol_version = 2),
            Box::new(|h| h.key_id.push('x')),
            Box::new(|h| h.epoch += 1),
            Box::new(|h| h.session[31] ^= 1),
            Box::new(|h| h.attempt += 1),
            Box::new(|h| h.round += 1),
            Box::new(|h| h.recipient = Recipient::All),
            Box::new(|h| h.recipient = Recipient::Node(3)),
        ];
        for m in mutations {
            let mut bad = env.clone();
            m(&mut bad.header);
            assert_eq!(
                bad.verify(roster(&keys)),
                Err(EnvelopeError::BadSignature(1))
            );
        }
        // Claiming another sender: checked against that sender's key.
        let mut bad = env.clone();
        bad.header.sender = 2;
        assert_eq!(
            bad.verify(roster(&keys)),
            Err(EnvelopeError::BadSignature(2))
        );
        // A swapped payload.
        let mut bad = env.clone();
        bad.payload = b"other".to_vec();
        assert_eq!(
            bad.verify(roster(&keys)),
            Err(EnvelopeError::PayloadHashMismatch)
        );
        let mut bad = env;
        bad.header.sender = 9;
        assert_eq!(
            bad.verify(roster(&keys)),
            Err(EnvelopeError::UnknownSender(9))
        );
    }

    #[test]
    fn hostile_bytes_are_typed_errors() {
        let k1 = SigningKey::generate(&mut OsRng);
        let bytes = Envelope::seal(header(1), vec![5; 100], &k1)
            .expect("seal")
            .encode();
        // Every truncation.
        for cut in 0..bytes.len() {
            assert!(Envelope::decode(&bytes[..cut], 1024).is_err(), "cut {cut}");
        }
        // Trailing data.
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(
            Envelope::decode(&long, 1024),
            Err(EnvelopeError::Trailing(1))
        );
        // Magic, version, name, recipient tag.
        let mut b = bytes.clone();
        b[0] = b'X';
        assert_eq!(Envelope::decode(&b, 1024), Err(EnvelopeError::BadMagic));
        let mut b = bytes.clone();
        b[4] = 2;
        assert_eq!(
            Envelope::decode(&b, 1024),
            Err(EnvelopeError::UnsupportedVersion(2))
        );
        let mut b = bytes.clone();
        b[6] = b'A';
        assert_eq!(
            Envelope::decode(&b, 1024),
            Err(EnvelopeError::Malformed("protocol name"))
        );
        let mut b = bytes.clone();
        b[5] = 0;
        assert!(Envelope::decode(&b, 1024).is_err());
        let key_at = 4 + 1 + 1 + "test-echo".len() + 2;
        let mut b = bytes.clone();
        b[key_at + 1] = b' ';
        assert_eq!(
            Envelope::decode(&b, 1024),
            Err(EnvelopeError::Malformed("key id"))
        );
        let mut b = bytes.clone();
        b[key_at] = 0;
        assert!(Envelope::decode(&b, 1024).is_err());
        let tag_at = 4 + 1 + 1 + "test-echo".len() + 2 + 1 + "key-7".len() + 8 + 32 + 4 + 2 + 2;
        let mut b = bytes.clone();
        b[tag_at] = 2;
        assert_eq!(
            Envelope::decode(&b, 1024),
            Err(EnvelopeError::Malformed("recipient"))
        );
        // Payload limit is checked from the length field, before reading the payload.
        assert_eq!(
            Envelope::decode(&bytes, 99),
            Err(EnvelopeError::TooLarge { len: 100, max: 99 })
        );
        let len_at = bytes.len() - 100 - 4;
        let mut b = bytes.clone();
        b[len_at..len_at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(
            Envelope::decode(&b, usize::MAX),
            Err(EnvelopeError::Truncated)
        ));
        // A flipped payload byte no longer matches the hash.
        let mut b = bytes.clone();
        let last = b.len() - 1;
        b[last] ^= 1;
        assert_eq!(
            Envelope::decode(&b, 1024),
            Err(EnvelopeError::PayloadHashMismatch)
        );
        // Pseudo-random garbage never panics.
        let mut x = 0x1234_5678_u32;
        for len in 0..300 {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            let _ = Envelope::decode(&junk, 1024);
        }
    }

    #[test]
    fn seal_refuses_a_bad_key_id() {
        let k1 = SigningKey::generate(&mut OsRng);
        for bad in [String::new(), "a b".into(), "k".repeat(129)] {
            let mut h = header(1);
            h.key_id = bad;
            assert_eq!(
                Envelope::seal(h, vec![], &k1),
                Err(EnvelopeError::Malformed("key id"))
            );
        }
    }

    #[test]
    fn seal_refuses_a_bad_protocol_name() {
        let k1 = SigningKey::generate(&mut OsRng);
        let mut h = header(1);
        h.protocol = "x".repeat(33);
        assert_eq!(
            Envelope::seal(h, vec![], &k1),
            Err(EnvelopeError::Malformed("protocol name"))
        );
    }
}
