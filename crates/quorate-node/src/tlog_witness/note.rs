//! Signed notes ([C2SP signed-note]) and note verifier keys: parsing with size bounds and
//! typed errors, and Ed25519 verification.
//!
//! A signed note is UTF-8 text (no control characters but newline) ending in a newline, a
//! blank line, then one or more signature lines `— <key name> <base64(key ID ‖ signature)>`.
//! The text is separated from the signatures by the *last* blank line. A verifier key
//! ("vkey") is `<name>+<key ID, 8 hex digits>+<base64(signature type ‖ public key)>`, and the
//! key ID is `SHA-256(name ‖ "\n" ‖ type ‖ public key)[:4]`.
//!
//! Two signature types are supported: `0x01`, Ed25519 over the note text (what logs sign
//! checkpoints with), and `0x04`, the timestamped Ed25519 cosignature of
//! [C2SP tlog-cosignature] (what this witness makes; see [`super::key`]).
//!
//! [C2SP signed-note]: https://c2sp.org/signed-note
//! [C2SP tlog-cosignature]: https://c2sp.org/tlog-cosignature

use base64ct::{Base64, Encoding};
use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};
use std::fmt;

/// Largest signed note accepted, in bytes (a checkpoint with 16 or more Ed25519 signatures
/// fits many times over).
pub const MAX_NOTE_BYTES: usize = 16 * 1024;
/// Most signature lines accepted in one note (the spec requires at least 16).
pub const MAX_SIGNATURES: usize = 64;
/// Longest key name accepted, in bytes.
pub const MAX_KEY_NAME_BYTES: usize = 256;
/// Longest verifier key accepted, in bytes.
pub const MAX_VKEY_BYTES: usize = 512;
/// Signature type `0x01`: Ed25519 over the note text.
pub const SIG_TYPE_ED25519: u8 = 0x01;
/// Signature type `0x04`: timestamped Ed25519 cosignatures (cosignature/v1).
pub const SIG_TYPE_COSIGNATURE_V1: u8 = 0x04;
/// The em dash that starts a signature line.
const DASH: &str = "\u{2014} ";

/// Why a note, signature line or verifier key was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoteError {
    /// The input is larger than its bound.
    #[error("{what} is longer than {max} bytes")]
    TooLarge {
        /// What was too large.
        what: &'static str,
        /// The bound.
        max: usize,
    },
    /// The input is not in the format.
    #[error("malformed {0}")]
    Malformed(&'static str),
    /// A verifier key uses a signature type this witness does not support.
    #[error("unsupported signature type 0x{0:02x}")]
    UnsupportedType(u8),
    /// A verifier key's key ID does not match its name and key.
    #[error("the verifier key's key ID does not match its name and public key")]
    KeyIdMismatch,
    /// A signature from a known key did not verify.
    #[error("a signature by {0} does not verify")]
    BadSignature(String),
    /// No signature is from a known key.
    #[error("no signature from a known key")]
    NoKnownSignature,
}

/// Checks a note key name: non-empty, at most [`MAX_KEY_NAME_BYTES`], no Unicode spaces, no
/// `+`, no control characters.
pub fn validate_key_name(name: &str) -> Result<(), NoteError> {
    if name.is_empty() {
        return Err(NoteError::Malformed("key name (empty)"));
    }
    if name.len() > MAX_KEY_NAME_BYTES {
        return Err(NoteError::TooLarge {
            what: "a key name",
            max: MAX_KEY_NAME_BYTES,
        });
    }
    if name
        .chars()
        .any(|c| c.is_whitespace() || c == '+' || c.is_control())
    {
        return Err(NoteError::Malformed(
            "key name (spaces, '+' and control characters are not allowed)",
        ));
    }
    Ok(())
}

/// The key ID `SHA-256(name ‖ "\n" ‖ sig_type ‖ key)[:4]`.
pub fn key_id(name: &str, sig_type: u8, key: &[u8]) -> [u8; 4] {
    let mut h = Sha256::new();
    h.update(name.as_bytes());
    h.update(b"\n");
    h.update([sig_type]);
    h.update(key);
    let d = h.finalize();
    [d[0], d[1], d[2], d[3]]
}

/// The message a cosignature/v1 signs: the header line, the time line, then the
/// checkpoint's note text.
pub fn cosigned_message(text: &str, timestamp: u64) -> String {
    format!("cosignature/v1\ntime {timestamp}\n{text}")
}

fn decode_base64(s: &str, what: &'static str) -> Result<Vec<u8>, NoteError> {
    Base64::decode_vec(s).map_err(|_| NoteError::Malformed(what))
}

/// Signs `text` (ending in a newline) as a log does, with a `0x01` Ed25519 note key named
/// `name`, and returns the signed note (the log side: for tests, benchmarks and examples).
pub fn sign_note_ed25519(text: &str, name: &str, key: &ed25519_dalek::SigningKey) -> String {
    use ed25519_dalek::Signer;
    let mut raw = key_id(name, SIG_TYPE_ED25519, key.verifying_key().as_bytes()).to_vec();
    raw.extend_from_slice(&key.sign(text.as_bytes()).to_bytes());
    format!("{text}\n{DASH}{name} {}\n", Base64::encode_string(&raw))
}

/// An Ed25519 note verifier key (type `0x01` or `0x04`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verifier {
    name: String,
    sig_type: u8,
    key: VerifyingKey,
    key_id: [u8; 4],
}

impl Verifier {
    /// The verifier of a log's Ed25519 (`0x01`) note signatures.
    pub fn ed25519(name: &str, key: VerifyingKey) -> Verifier {
        Verifier::new(name, SIG_TYPE_ED25519, key)
    }

    /// The verifier of cosignature/v1 (`0x04`) signatures.
    pub fn cosignature_v1(name: &str, key: VerifyingKey) -> Verifier {
        Verifier::new(name, SIG_TYPE_COSIGNATURE_V1, key)
    }

    fn new(name: &str, sig_type: u8, key: VerifyingKey) -> Verifier {
        Verifier {
            name: name.to_string(),
            sig_type,
            key_id: key_id(name, sig_type, key.as_bytes()),
            key,
        }
    }

    /// Parses a verifier key `<name>+<hex key ID>+<base64(type ‖ key)>`, checking the key ID.
    pub fn parse(vkey: &str) -> Result<Verifier, NoteError> {
        if vkey.len() > MAX_VKEY_BYTES {
            return Err(NoteError::TooLarge {
                what: "a verifier key",
                max: MAX_VKEY_BYTES,
            });
        }
        // The base64 key may itself contain '+': split at the first two only.
        let mut parts = vkey.splitn(3, '+');
        let (Some(name), Some(id_hex), Some(key_b64)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(NoteError::Malformed(
                "verifier key (expected NAME+KEYID+KEY)",
            ));
        };
        validate_key_name(name)?;
        if id_hex.len() != 8 || !id_hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(NoteError::Malformed(
                "verifier key (the key ID is 8 hex digits)",
            ));
        }
        let mut id = [0u8; 4];
        hex::decode_to_slice(id_hex, &mut id)
            .map_err(|_| NoteError::Malformed("verifier key ID"))?;
        let raw = decode_base64(key_b64, "verifier key (bad base64)")?;
        let (&sig_type, key) = raw
            .split_first()
            .ok_or(NoteError::Malformed("verifier key (empty key)"))?;
        if sig_type != SIG_TYPE_ED25519 && sig_type != SIG_TYPE_COSIGNATURE_V1 {
            return Err(NoteError::UnsupportedType(sig_type));
        }
        let key: [u8; 32] = key
            .try_into()
            .map_err(|_| NoteError::Malformed("verifier key (an Ed25519 key is 32 bytes)"))?;
        let key = VerifyingKey::from_bytes(&key)
            .map_err(|_| NoteError::Malformed("verifier key (not an Ed25519 point)"))?;
        let v = Verifier::new(name, sig_type, key);
        if v.key_id != id {
            return Err(NoteError::KeyIdMismatch);
        }
        Ok(v)
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The signature type (`0x01` or `0x04`).
    pub fn sig_type(&self) -> u8 {
        self.sig_type
    }

    /// The key ID.
    pub fn key_id(&self) -> [u8; 4] {
        self.key_id
    }

    /// The public key.
    pub fn key(&self) -> &VerifyingKey {
        &self.key
    }

    /// Whether a signature line names this key (same name and key ID).
    pub fn matches(&self, sig: &NoteSignature) -> bool {
        sig.name == self.name && sig.key_id == self.key_id
    }

    /// Verifies a `0x01` signature (the bytes after the key ID) over the note text.
    fn verify_ed25519(&self, text: &str, sig: &[u8]) -> bool {
        let Ok(sig) = Signature::from_slice(sig) else {
            return false;
        };
        self.key.verify_strict(text.as_bytes(), &sig).is_ok()
    }

    /// Verifies a `0x04` cosignature (the bytes after the key ID: timestamp ‖ signature)
    /// over the note text; returns its timestamp.
    fn verify_cosignature(&self, text: &str, sig: &[u8]) -> Option<u64> {
        if sig.len() != 8 + 64 {
            return None;
        }
        let (ts, sig) = sig.split_at(8);
        let ts = u64::from_be_bytes(ts.try_into().ok()?);
        if ts > i64::MAX as u64 {
            return None;
        }
        let sig = Signature::from_slice(sig).ok()?;
        let message = cosigned_message(text, ts);
        self.key
            .verify_strict(message.as_bytes(), &sig)
            .ok()
            .map(|()| ts)
    }

    /// Verifies one signature of this key over `text`: for `0x04`, returns the cosignature's
    /// timestamp; for `0x01`, `0`.
    pub fn verify(&self, text: &str, sig: &NoteSignature) -> Result<u64, NoteError> {
        if !self.matches(sig) {
            return Err(NoteError::NoKnownSignature);
        }
        let ok = match self.sig_type {
            SIG_TYPE_ED25519 => self.verify_ed25519(text, &sig.signature).then_some(0),
            _ => self.verify_cosignature(text, &sig.signature),
        };
        ok.ok_or_else(|| NoteError::BadSignature(self.name.clone()))
    }

    /// Verifies a single signature line (as a witness returns it) over `text`.
    pub fn verify_cosignature_line(&self, text: &str, line: &str) -> Result<u64, NoteError> {
        let line = line
            .strip_suffix('\n')
            .ok_or(NoteError::Malformed("signature line (no final newline)"))?;
        self.verify(text, &NoteSignature::parse_line(line)?)
    }
}

impl fmt::Display for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut raw = Vec::with_capacity(33);
        raw.push(self.sig_type);
        raw.extend_from_slice(self.key.as_bytes());
        write!(
            f,
            "{}+{}+{}",
            self.name,
            hex::encode(self.key_id),
            Base64::encode_string(&raw)
        )
    }
}

/// One signature line of a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteSignature {
    /// The key name.
    pub name: String,
    /// The key ID.
    pub key_id: [u8; 4],
    /// The signature bytes after the key ID.
    pub signature: Vec<u8>,
}

impl NoteSignature {
    /// Parses `— <name> <base64>` (without the newline).
    pub fn parse_line(line: &str) -> Result<NoteSignature, NoteError> {
        let rest = line
            .strip_prefix(DASH)
            .ok_or(NoteError::Malformed("signature line (no leading em dash)"))?;
        let (name, b64) = rest
            .split_once(' ')
            .ok_or(NoteError::Malformed("signature line (no signature)"))?;
        validate_key_name(name)?;
        let raw = decode_base64(b64, "signature line (bad base64)")?;
        if raw.len() < 5 {
            return Err(NoteError::Malformed("signature line (too short)"));
        }
        let (id, sig) = raw.split_at(4);
        Ok(NoteSignature {
            name: name.to_string(),
            key_id: [id[0], id[1], id[2], id[3]],
            signature: sig.to_vec(),
        })
    }
}

/// A parsed signed note: its text (with the final newline) and its signature lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedNote<'a> {
    /// The note text, including its final newline.
    pub text: &'a str,
    /// The signature lines, in order.
    pub signatures: Vec<NoteSignature>,
}

impl<'a> SignedNote<'a> {
    /// Parses a signed note of at most [`MAX_NOTE_BYTES`] with 1 to [`MAX_SIGNATURES`]
    /// signatures. Signatures are not verified here (see [`SignedNote::verify`]).
    pub fn parse(bytes: &'a [u8]) -> Result<SignedNote<'a>, NoteError> {
        if bytes.len() > MAX_NOTE_BYTES {
            return Err(NoteError::TooLarge {
                what: "a signed note",
                max: MAX_NOTE_BYTES,
            });
        }
        let s = std::str::from_utf8(bytes).map_err(|_| NoteError::Malformed("note (not UTF-8)"))?;
        if s.bytes().any(|b| b < 0x20 && b != b'\n') {
            return Err(NoteError::Malformed("note (control character)"));
        }
        let split = s.rfind("\n\n").ok_or(NoteError::Malformed(
            "note (no blank line before the signatures)",
        ))?;
        let text = &s[..split + 1];
        let sigs = &s[split + 2..];
        let body = sigs
            .strip_suffix('\n')
            .ok_or(NoteError::Malformed("note (no signature lines)"))?;
        let mut signatures = Vec::new();
        for line in body.split('\n') {
            if signatures.len() == MAX_SIGNATURES {
                return Err(NoteError::TooLarge {
                    what: "the signature list",
                    max: MAX_SIGNATURES,
                });
            }
            signatures.push(NoteSignature::parse_line(line)?);
        }
        Ok(SignedNote { text, signatures })
    }

    /// Verifies the note against trusted verifiers: signatures from unknown keys are
    /// ignored, a known key's signature that fails rejects the note
    /// ([`NoteError::BadSignature`]), and at least one must verify
    /// ([`NoteError::NoKnownSignature`]).
    pub fn verify(&self, trusted: &[Verifier]) -> Result<(), NoteError> {
        let mut verified = false;
        for sig in &self.signatures {
            for v in trusted.iter().filter(|v| v.matches(sig)) {
                v.verify(self.text, sig)?;
                verified = true;
            }
        }
        if verified {
            Ok(())
        } else {
            Err(NoteError::NoKnownSignature)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

    fn signed(text: &str, name: &str, key: &SigningKey) -> String {
        sign_note_ed25519(text, name, key)
    }

    /// The signed-note reference implementation's documented example (golang.org/x/mod
    /// sumdb/note): its verifier key, note and signature, and its private key (`0x01` ‖
    /// seed): our parser, verifier and signer agree with it byte for byte.
    #[test]
    fn the_reference_example_verifies_and_signs_identically() {
        let vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
        let text = "If you think cryptography is the answer to your problem,\n\
                    then you don't know what your problem is.\n";
        let sig = "\u{2014} PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
        let msg = format!("{text}\n{sig}");
        let v = Verifier::parse(vkey).expect("vkey");
        assert_eq!(v.to_string(), vkey);
        let note = SignedNote::parse(msg.as_bytes()).expect("note");
        assert_eq!(note.text, text);
        note.verify(std::slice::from_ref(&v)).expect("verifies");
        let skey = Base64::decode_vec("AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz").expect("b64");
        assert_eq!(skey[0], SIG_TYPE_ED25519);
        let seed: [u8; 32] = skey[1..].try_into().expect("32 bytes");
        let key = SigningKey::from_bytes(&seed);
        assert_eq!(key.verifying_key(), *v.key());
        assert_eq!(sign_note_ed25519(text, "PeterNeumann", &key), msg);
    }

    #[test]
    fn vkeys_roundtrip_and_are_checked() {
        // Keys whose base64 holds a '+' too.
        for seed in 0..16u8 {
            let key = SigningKey::from_bytes(&[seed; 32]);
            let v = Verifier::cosignature_v1("w.example/1", key.verifying_key());
            assert_eq!(Verifier::parse(&v.to_string()).expect("parse"), v);
        }
        let key = SigningKey::from_bytes(&[7; 32]);
        let v = Verifier::ed25519("example.com/log", key.verifying_key());
        let text = v.to_string();
        assert_eq!(Verifier::parse(&text).expect("parse"), v);
        let (name, rest) = text.split_once('+').expect("plus");
        let wrong_name = format!("{name}x+{rest}");
        assert_eq!(Verifier::parse(&wrong_name), Err(NoteError::KeyIdMismatch));
        for bad in [
            "",
            "a+b",
            "a+0000000+AQ==",
            "a b+00000000+AQ==",
            "a+00000000+!!",
            "a+00000000+BQ==",
            "a+00000000+AQ==+x",
        ] {
            assert!(Verifier::parse(bad).is_err(), "{bad:?}");
        }
        let long = "a".repeat(MAX_VKEY_BYTES + 1);
        assert!(matches!(
            Verifier::parse(&long),
            Err(NoteError::TooLarge { .. })
        ));
    }

    #[test]
    fn notes_parse_and_verify() {
        let key = SigningKey::from_bytes(&[9; 32]);
        let other = SigningKey::from_bytes(&[10; 32]);
        let v = Verifier::ed25519("log.example", key.verifying_key());
        let text = "hello\n\nworld\n";
        let note = signed(text, "log.example", &key);
        let parsed = SignedNote::parse(note.as_bytes()).expect("parse");
        assert_eq!(parsed.text, text, "the text ends at the LAST blank line");
        parsed.verify(std::slice::from_ref(&v)).expect("verifies");
        // An unknown key alone: nothing verifies.
        let by_other = signed(text, "log.example", &other);
        let p = SignedNote::parse(by_other.as_bytes()).expect("parse");
        assert_eq!(
            p.verify(std::slice::from_ref(&v)),
            Err(NoteError::NoKnownSignature)
        );
        // A known key whose signature fails rejects the note.
        let tampered = note.replace("world", "worle");
        let p = SignedNote::parse(tampered.as_bytes()).expect("parse");
        assert!(matches!(
            p.verify(std::slice::from_ref(&v)),
            Err(NoteError::BadSignature(_))
        ));
        for bad in [
            "no blank line\n\u{2014} a AAAAAAA=\n",
            "text\n\n",
            "text\n\n\u{2014} a AAAAAAA=",
            "text\n\n- a AAAAAAA=\n",
            "te\u{7}xt\n\n\u{2014} a AAAAAAA=\n",
            "text\n\n\u{2014} a AAAA\n",
            "text\n\n\u{2014} a+b AAAAAAA=\n",
        ] {
            assert!(SignedNote::parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
        assert!(SignedNote::parse(&[0xff, b'\n', b'\n']).is_err());
        let many = format!("t\n\n{}", format!("{DASH}a AAAAAAA=\n").repeat(65));
        assert!(matches!(
            SignedNote::parse(many.as_bytes()),
            Err(NoteError::TooLarge { .. })
        ));
    }
}
