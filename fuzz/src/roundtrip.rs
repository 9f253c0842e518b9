//! Round trips from typed values (the `roundtrip` target): a value built with `arbitrary`
//! from valid parts must encode, decode to an equal value and re-encode to the same bytes
//! (a decoder must accept everything its encoder produces from valid parts, and the
//! encoding must be a function of the value).

use arbitrary::Arbitrary;
use group::Group;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_cosi::{Announcement, Mask, Mode};
use quorate_paillier::paillier::SecretKey as PaillierKey;
use quorate_paillier::rug::Integer;
use std::sync::OnceLock;

/// One value to round-trip; scalars come as 32 bytes reduced into the group order.
#[derive(Arbitrary, Debug)]
pub enum Value {
    /// quorate-core party id.
    PartyId(u16),
    /// CoSi participation mask.
    CosiMask {
        /// Roster size (mod 300, plus 1).
        n: u16,
        /// Members (mod n).
        members: Vec<u16>,
    },
    /// CoSi signature `R ‖ s ‖ mask`.
    CosiSignature {
        /// Nonce scalar (`R = r·B`).
        r: [u8; 32],
        /// Response.
        s: [u8; 32],
        /// Roster size (mod 300, plus 1).
        n: u16,
        /// Members (mod n).
        members: Vec<u16>,
    },
    /// CoSi announcement.
    CosiAnnouncement {
        /// Session id (valid: 1..=1024 bytes).
        session: Vec<u8>,
        /// Legacy mode.
        legacy: bool,
        /// Announced message.
        message: Vec<u8>,
    },
    /// BLS secret key, public key and signature.
    Bls {
        /// Secret scalar.
        sk: [u8; 32],
        /// Signed message.
        msg: Vec<u8>,
    },
    /// Mixnet ElGamal ciphertext from two scalars.
    ElGamal {
        /// `a = x·g`.
        a: [u8; 32],
        /// `b = y·g`.
        b: [u8; 32],
    },
    /// TZ21 parameters.
    Tz21Params {
        /// RDKGitH instead of DKGitH.
        rdkgith: bool,
        /// N.
        parties: u16,
        /// τ or t.
        rt: u16,
        /// n.
        compressed: u16,
    },
    /// Paillier: encryption with a chosen nonce, encoding, decoding, decryption.
    Paillier {
        /// Plaintext (reduced mod n).
        m: Vec<u8>,
        /// Nonce (reduced mod n).
        r: Vec<u8>,
    },
}

fn bls_scalar(b: &[u8; 32]) -> blstrs::Scalar {
    // Below 2^254 < r: always canonical.
    let mut be = *b;
    be[0] &= 0x3f;
    blstrs::Scalar::from_bytes_be(&be).expect("below the group order")
}

fn ed_scalar(b: &[u8; 32]) -> curve25519_dalek::Scalar {
    curve25519_dalek::Scalar::from_bytes_mod_order(*b)
}

fn mask(n: u16, members: &[u16]) -> Mask {
    let n = usize::from(n % 300) + 1;
    Mask::from_indices(n, members.iter().map(|&i| usize::from(i) % n)).expect("indices < n")
}

fn paillier_key() -> &'static PaillierKey {
    static K: OnceLock<PaillierKey> = OnceLock::new();
    K.get_or_init(|| PaillierKey::generate(512, &mut crate::rng(0x5254)).expect("keygen"))
}

/// Runs one round trip.
pub fn run(v: &Value) {
    match v {
        Value::PartyId(i) => {
            if let Ok(p) = PartyId::new(*i) {
                assert_eq!(PartyId::from_bytes(p.to_bytes()).expect("decodes"), p);
            }
        }
        Value::CosiMask { n, members } => {
            let m = mask(*n, members);
            assert!(Mask::from_bytes(m.n(), m.as_bytes()).expect("decodes") == m);
        }
        Value::CosiSignature { r, s, n, members } => {
            let r = ed_scalar(r);
            if r == curve25519_dalek::Scalar::ZERO {
                return;
            }
            let m = mask(*n, members);
            let mut bytes = curve25519_dalek::EdwardsPoint::mul_base(&r)
                .compress()
                .to_bytes()
                .to_vec();
            bytes.extend_from_slice(&ed_scalar(s).to_bytes());
            bytes.extend_from_slice(m.as_bytes());
            let sig =
                quorate_cosi::Signature::from_bytes(&bytes, m.n()).expect("valid parts decode");
            assert_eq!(sig.to_bytes(), bytes);
            assert!(sig.mask() == &m);
        }
        Value::CosiAnnouncement {
            session,
            legacy,
            message,
        } => {
            let a = Announcement {
                session: SessionId::new(session.clone()),
                mode: if *legacy {
                    Mode::Legacy
                } else {
                    Mode::TwoNonce
                },
                message: message.clone(),
            };
            let b = a.to_bytes();
            match Announcement::from_bytes(&b) {
                Ok(d) => {
                    assert!(session.len() <= 1024, "an oversized session decodes");
                    assert_eq!(d, a);
                    assert_eq!(d.to_bytes(), b);
                }
                Err(_) => assert!(session.len() > 1024, "a valid announcement is rejected"),
            }
        }
        Value::Bls { sk, msg } => {
            let Ok(sk) = quorate_bls::SecretKey::from_scalar(bls_scalar(sk)) else {
                return;
            };
            assert_eq!(
                quorate_bls::SecretKey::from_bytes(&sk.to_bytes())
                    .expect("decodes")
                    .to_bytes(),
                sk.to_bytes()
            );
            let pk = sk.public_key();
            assert_eq!(
                quorate_bls::PublicKey::from_bytes(&pk.to_bytes()).expect("decodes"),
                pk
            );
            let sig = sk.sign(msg);
            assert_eq!(
                quorate_bls::Signature::from_bytes(&sig.to_bytes()).expect("decodes"),
                sig
            );
            assert!(pk.verify(msg, &sig));
        }
        Value::ElGamal { a, b } => {
            let c = quorate_mixnet::elgamal::ElGamalCiphertext {
                a: blstrs::G1Projective::generator() * bls_scalar(a),
                b: blstrs::G1Projective::generator() * bls_scalar(b),
            };
            let e = quorate_mixnet::wire::encode_elgamal_ciphertext(&c);
            if bool::from(c.a.is_identity()) || bool::from(c.b.is_identity()) {
                return;
            }
            let d =
                quorate_mixnet::wire::decode_elgamal_ciphertext(&e).expect("valid parts decode");
            assert_eq!(d, c);
        }
        Value::Tz21Params {
            rdkgith,
            parties,
            rt,
            compressed,
        } => {
            use quorate_verenc::tz21::Tz21Params;
            let (p, t, n) = (
                usize::from(*parties),
                usize::from(*rt),
                usize::from(*compressed),
            );
            let params = if *rdkgith {
                Tz21Params::rdkgith(p, t, n)
            } else {
                Tz21Params::dkgith(p, t, n)
            };
            if let Ok(params) = params {
                assert_eq!(
                    Tz21Params::from_bytes(&params.to_bytes()).expect("decodes"),
                    params
                );
            }
        }
        Value::Paillier { m, r } => {
            let sk = paillier_key();
            let pk = sk.public_key();
            let m = Integer::from_digits(m, quorate_paillier::rug::integer::Order::Msf) % pk.n();
            let r = Integer::from_digits(r, quorate_paillier::rug::integer::Order::Msf) % pk.n();
            let Ok(nonce) = pk.nonce_from_integer(r) else {
                return;
            };
            let c = pk.encrypt_with_nonce(&m, &nonce).expect("encrypts");
            let e = pk.encode_ciphertext(&c);
            let d = pk.decode_ciphertext(&e).expect("decodes");
            assert!(d == c);
            assert_eq!(pk.encode_ciphertext(&d), e);
            assert_eq!(sk.decrypt(&d).expect("decrypts"), m);
        }
    }
}
