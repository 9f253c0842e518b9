//! Paillier: round trips, homomorphisms, CRT vs textbook, checked decoding.
#![allow(clippy::unwrap_used)]

use quorate_core::DecodeError;
use quorate_paillier::bigint::{random_below, random_unit, to_be_bytes_padded};
use quorate_paillier::paillier::{PublicKey, SecretKey};
use quorate_paillier::PaillierError;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use rug::Integer;
use std::sync::OnceLock;

fn key_512() -> &'static SecretKey {
    static KEY: OnceLock<SecretKey> = OnceLock::new();
    KEY.get_or_init(|| SecretKey::generate(512, &mut ChaCha20Rng::seed_from_u64(20)).unwrap())
}

fn key_1024() -> &'static SecretKey {
    static KEY: OnceLock<SecretKey> = OnceLock::new();
    KEY.get_or_init(|| SecretKey::generate(1024, &mut ChaCha20Rng::seed_from_u64(21)).unwrap())
}

fn safe_key_512() -> &'static SecretKey {
    static KEY: OnceLock<SecretKey> = OnceLock::new();
    KEY.get_or_init(|| {
        SecretKey::generate_with_safe_primes(512, &mut ChaCha20Rng::seed_from_u64(22)).unwrap()
    })
}

#[test]
fn round_trip() {
    let mut rng = ChaCha20Rng::seed_from_u64(23);
    for sk in [key_512(), key_1024(), safe_key_512()] {
        let pk = sk.public_key();
        assert_eq!(pk.n().significant_bits(), pk.modulus_bits());
        let n_minus_1 = Integer::from(pk.n() - 1u32);
        let mut msgs = vec![Integer::new(), Integer::from(1), n_minus_1];
        for _ in 0..5 {
            msgs.push(random_below(&mut rng, pk.n()));
        }
        for m in &msgs {
            let c = pk.encrypt(m, &mut rng).unwrap();
            assert_eq!(sk.decrypt(&c).unwrap(), *m);
            assert_eq!(sk.decrypt_textbook(&c).unwrap(), *m);
        }
    }
    assert!(safe_key_512().has_safe_primes());
    assert!(!key_512().has_safe_primes());
}

#[test]
fn encryption_matches_the_formula() {
    let mut rng = ChaCha20Rng::seed_from_u64(24);
    let sk = key_512();
    let pk = sk.public_key();
    let m = random_below(&mut rng, pk.n());
    let (c, r) = pk.encrypt_returning_nonce(&m, &mut rng).unwrap();
    let g = Integer::from(pk.n() + 1u32);
    let gm = Integer::from(g.pow_mod_ref(&m, pk.n_squared()).unwrap());
    let rn = Integer::from(r.expose().pow_mod_ref(pk.n(), pk.n_squared()).unwrap());
    let want = Integer::from(&gm * &rn) % pk.n_squared();
    assert_eq!(*c.as_integer(), want);
    assert_eq!(pk.encrypt_with_nonce(&m, &r).unwrap(), c);
    // Fresh randomness gives a different ciphertext of the same plaintext.
    let c2 = pk.encrypt(&m, &mut rng).unwrap();
    assert_ne!(c, c2);
}

#[test]
fn homomorphic_operations() {
    let mut rng = ChaCha20Rng::seed_from_u64(25);
    let sk = key_1024();
    let pk = sk.public_key();
    let n = pk.n().clone();
    for _ in 0..3 {
        let a = random_below(&mut rng, &n);
        let b = random_below(&mut rng, &n);
        let ca = pk.encrypt(&a, &mut rng).unwrap();
        let cb = pk.encrypt(&b, &mut rng).unwrap();
        let sum = Integer::from(&a + &b) % &n;
        assert_eq!(sk.decrypt(&pk.add(&ca, &cb)).unwrap(), sum);
        let mut diff = Integer::from(&a - &b) % &n;
        if diff < 0 {
            diff += &n;
        }
        assert_eq!(sk.decrypt(&pk.sub(&ca, &cb).unwrap()).unwrap(), diff);
        assert_eq!(sk.decrypt(&pk.add_plain(&ca, &b).unwrap()).unwrap(), sum);
        for k in [
            Integer::from(0),
            Integer::from(7),
            Integer::from(-3),
            random_below(&mut rng, &n),
        ] {
            let mut want = Integer::from(&a * &k) % &n;
            if want < 0 {
                want += &n;
            }
            assert_eq!(
                sk.decrypt(&pk.mul_plain_vartime(&ca, &k).unwrap()).unwrap(),
                want
            );
        }
        let re = pk.rerandomize(&ca, &mut rng).unwrap();
        assert_ne!(re, ca);
        assert_eq!(sk.decrypt(&re).unwrap(), a);
    }
    // Signed view.
    let minus_one = Integer::from(&n - 1u32);
    assert_eq!(pk.to_signed(&minus_one), -1);
    assert_eq!(pk.to_signed(&Integer::from(5)), 5);
}

#[test]
fn crt_decryption_equals_textbook_on_arbitrary_units() {
    let mut rng = ChaCha20Rng::seed_from_u64(26);
    for sk in [key_512(), key_1024(), safe_key_512()] {
        let pk = sk.public_key();
        for _ in 0..20 {
            // Any element of Z*_{n²}, not only honest encryptions.
            let x = random_unit(&mut rng, pk.n_squared()).unwrap();
            let c = pk.ciphertext_from_integer(x).unwrap();
            assert_eq!(sk.decrypt(&c).unwrap(), sk.decrypt_textbook(&c).unwrap());
        }
    }
}

#[test]
fn plaintexts_out_of_range_are_rejected() {
    let mut rng = ChaCha20Rng::seed_from_u64(27);
    let pk = key_512().public_key();
    let n = pk.n().clone();
    for m in [n.clone(), Integer::from(&n + 5u32), Integer::from(-1)] {
        assert_eq!(
            pk.encrypt(&m, &mut rng),
            Err(PaillierError::PlaintextOutOfRange)
        );
    }
    let c = pk.encrypt(&Integer::from(1), &mut rng).unwrap();
    assert_eq!(
        pk.add_plain(&c, &n),
        Err(PaillierError::PlaintextOutOfRange)
    );
    assert!(matches!(
        pk.nonce_from_integer(Integer::new()),
        Err(PaillierError::NotAUnit { .. })
    ));
    assert!(pk.nonce_from_integer(n).is_err());
}

#[test]
fn ciphertext_decoding_is_checked() {
    let mut rng = ChaCha20Rng::seed_from_u64(28);
    let sk = key_512();
    let pk = sk.public_key();
    let len = pk.ciphertext_len();
    assert_eq!(len, 128);
    let c = pk.encrypt(&Integer::from(99), &mut rng).unwrap();
    let bytes = pk.encode_ciphertext(&c);
    assert_eq!(bytes.len(), len);
    assert_eq!(pk.decode_ciphertext(&bytes).unwrap(), c);

    // Wrong lengths.
    assert!(matches!(
        pk.decode_ciphertext(&bytes[1..]),
        Err(PaillierError::Decode(DecodeError::WrongLength { .. }))
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        pk.decode_ciphertext(&long),
        Err(PaillierError::Decode(DecodeError::WrongLength { .. }))
    ));
    // Out of range: 0, n², all ones (> n²).
    let bad_values = [
        Integer::new(),
        pk.n_squared().clone(),
        (Integer::from(1) << (8 * len as u32)) - 1u32,
    ];
    for v in bad_values {
        let b = to_be_bytes_padded(&v, len).unwrap();
        assert!(matches!(
            pk.decode_ciphertext(&b),
            Err(PaillierError::Decode(DecodeError::InvalidValue { .. }))
        ));
    }
    // Not coprime to n: multiples of p, of q and of n.
    for v in [
        sk.p().expose().clone(),
        Integer::from(sk.q().expose() * 3u32),
        pk.n().clone(),
    ] {
        let b = to_be_bytes_padded(&v, len).unwrap();
        assert!(matches!(
            pk.decode_ciphertext(&b),
            Err(PaillierError::Decode(DecodeError::InvalidValue {
                reason: "not coprime to n",
                ..
            }))
        ));
    }
    assert!(pk.ciphertext_from_integer(Integer::from(-1)).is_err());
}

#[test]
fn public_key_encoding_round_trips_and_rejects_tampering() {
    let pk = key_512().public_key();
    let bytes = pk.to_bytes();
    assert_eq!(bytes.len(), 2 + 2 + 64);
    assert_eq!(&PublicKey::from_bytes(&bytes).unwrap(), pk);

    let mut tag = bytes.clone();
    tag[0] ^= 1;
    assert!(matches!(
        PublicKey::from_bytes(&tag),
        Err(PaillierError::Decode(DecodeError::UnknownVersion { .. }))
    ));
    let mut version = bytes.clone();
    version[1] = 2;
    assert!(PublicKey::from_bytes(&version).is_err());
    assert!(matches!(
        PublicKey::from_bytes(&bytes[..bytes.len() - 1]),
        Err(PaillierError::Decode(DecodeError::WrongLength { .. }))
    ));
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(matches!(
        PublicKey::from_bytes(&trailing),
        Err(PaillierError::Decode(DecodeError::TrailingBytes { .. }))
    ));
    // Even modulus.
    let mut even = bytes.clone();
    let last = even.len() - 1;
    even[last] ^= 1;
    assert!(matches!(
        PublicKey::from_bytes(&even),
        Err(PaillierError::InvalidModulus(_))
    ));
    // Leading zero byte (non-minimal).
    let mut padded = vec![bytes[0], bytes[1], 0, 65, 0];
    padded.extend_from_slice(&bytes[4..]);
    assert!(matches!(
        PublicKey::from_bytes(&padded),
        Err(PaillierError::Decode(DecodeError::NonCanonical { .. }))
    ));
    // Modulus with a small factor: n·3 has the wrong size anyway; use 3·(large prime) of
    // 512 bits.
    let mut rng = ChaCha20Rng::seed_from_u64(29);
    let big = quorate_paillier::primes::generate_prime(510, &mut rng).unwrap();
    let n3 = Integer::from(&big * 3u32);
    assert!(PublicKey::from_modulus(n3).is_err());
    // Perfect square.
    assert!(PublicKey::from_modulus(Integer::from(big.square_ref())).is_err());
    // An odd bit length is fine for an imported key (e.g. 256- and 257-bit primes).
    let p = quorate_paillier::primes::generate_prime(256, &mut rng).unwrap();
    let q = quorate_paillier::primes::generate_prime(257, &mut rng).unwrap();
    let sk = SecretKey::from_primes(p, q).unwrap();
    assert_eq!(sk.public_key().modulus_bits(), 513);
    let c = sk
        .public_key()
        .encrypt(&Integer::from(9), &mut rng)
        .unwrap();
    assert_eq!(sk.decrypt(&c).unwrap(), 9);
    // Key generation itself wants an even size.
    assert!(SecretKey::generate(1025, &mut rng).is_err());
}

#[test]
fn production_size_round_trip() {
    let mut rng = ChaCha20Rng::seed_from_u64(32);
    let sk = SecretKey::generate(3072, &mut rng).unwrap();
    let pk = sk.public_key();
    assert_eq!(pk.modulus_bits(), 3072);
    assert_eq!(pk.ciphertext_len(), 768);
    let m = random_below(&mut rng, pk.n());
    let c = pk.encrypt(&m, &mut rng).unwrap();
    assert_eq!(sk.decrypt(&c).unwrap(), m);
    assert_eq!(sk.decrypt_textbook(&c).unwrap(), m);
    let back = SecretKey::from_bytes(&sk.to_bytes()).unwrap();
    assert_eq!(back.decrypt(&c).unwrap(), m);
}

#[test]
fn secret_key_encoding_round_trips_and_rejects_tampering() {
    for sk in [key_512(), safe_key_512()] {
        let bytes = sk.to_bytes();
        let back = SecretKey::from_bytes(&bytes).unwrap();
        assert_eq!(&back, sk);
        assert_eq!(back.public_key(), sk.public_key());
        assert_eq!(back.has_safe_primes(), sk.has_safe_primes());

        // Flip a bit inside p (byte 5 is p's first byte after tag, version, flags, len).
        for pos in [6usize, 20, 36] {
            let mut t = bytes.to_vec();
            t[pos] ^= 0x10;
            assert!(
                SecretKey::from_bytes(&t).is_err(),
                "tampered byte {pos} accepted"
            );
        }
        // Truncated / trailing.
        assert!(SecretKey::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        let mut t = bytes.to_vec();
        t.push(1);
        assert!(SecretKey::from_bytes(&t).is_err());
        // Unknown flag bits.
        let mut t = bytes.to_vec();
        t[2] |= 0x80;
        assert!(SecretKey::from_bytes(&t).is_err());
        // A flag that misdescribes the primes.
        let mut t = bytes.to_vec();
        t[2] ^= 1;
        assert!(SecretKey::from_bytes(&t).is_err());
    }
    // p > q is not canonical.
    let sk = key_512();
    let p = quorate_paillier::bigint::to_be_bytes_minimal(sk.p().expose());
    let q = quorate_paillier::bigint::to_be_bytes_minimal(sk.q().expose());
    let mut swapped = vec![0x51, 1, 0];
    swapped.extend_from_slice(&(q.len() as u16).to_be_bytes());
    swapped.extend_from_slice(&q);
    swapped.extend_from_slice(&(p.len() as u16).to_be_bytes());
    swapped.extend_from_slice(&p);
    assert!(matches!(
        SecretKey::from_bytes(&swapped),
        Err(PaillierError::Decode(DecodeError::NonCanonical { .. }))
    ));
}

#[test]
fn from_primes_validates() {
    let sk = key_512();
    let p = sk.p().expose().clone();
    let q = sk.q().expose().clone();
    let again = SecretKey::from_primes(q.clone(), p.clone()).unwrap();
    assert_eq!(&again, sk);
    assert!(matches!(
        SecretKey::from_primes(p.clone(), p.clone()),
        Err(PaillierError::InvalidKey(_))
    ));
    assert!(matches!(
        SecretKey::from_primes(Integer::from(&p + 2u32), q.clone()),
        Err(PaillierError::InvalidKey(_))
    ));
    assert!(SecretKey::from_primes(Integer::from(&p * 2u32), q).is_err());
    assert!(SecretKey::generate(511, &mut ChaCha20Rng::seed_from_u64(1)).is_err());
}

#[test]
fn debug_output_is_redacted() {
    let sk = key_512();
    let dbg = format!("{sk:?}");
    let p_dec = sk.p().expose().to_string();
    let p_hex = sk.p().expose().to_string_radix(16);
    assert!(!dbg.contains(&p_dec[..20]) && !dbg.contains(&p_hex[..20]));
    assert!(format!("{:?}", sk.p()).contains("redacted"));
}
