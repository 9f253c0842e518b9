//! A quick, deterministic fuzz of every public decoder: truncations of valid encodings,
//! appended bytes, bit flips, byte overwrites and random strings. Each decoder must return
//! (an `Ok` or) a typed error and never panic; whatever still decodes is then fed to the
//! verifier or decryptor of its scheme, which must not panic either. A panic anywhere fails
//! the test (the harness reports it).
#![allow(clippy::unwrap_used)]

use ff::Field;
use group::Group;
use quorate_verenc::backup::{self, Backup, CurveId, Scheme as BackupScheme};
use quorate_verenc::cs03::{self, AuxParams, Cs03Params};
use quorate_verenc::group::{Bls12381G1, Curve, Ed25519, Secp256k1, P256};
use quorate_verenc::tz21::{self, Tz21Curve, Tz21Params};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// Malformed variants of `valid`: every short prefix (and a sample of long ones), the whole
/// with bytes appended, `flips` single-bit flips, `flips / 2` random byte overwrites, and
/// random strings of the same and of random lengths.
fn mutations(valid: &[u8], rng: &mut ChaCha20Rng, flips: usize) -> Vec<Vec<u8>> {
    mutations_with(valid, rng, flips, 48)
}

/// [`mutations`] with `prefixes` short prefixes and as many random ones.
fn mutations_with(
    valid: &[u8],
    rng: &mut ChaCha20Rng,
    flips: usize,
    prefixes: usize,
) -> Vec<Vec<u8>> {
    let len = valid.len();
    let mut out = Vec::new();
    let mut cuts: Vec<usize> = (0..len.min(prefixes)).collect();
    for _ in 0..prefixes.min(16) {
        if len > 0 {
            cuts.push(rng.next_u32() as usize % len);
        }
    }
    cuts.extend([len / 2, len.saturating_sub(1)]);
    for c in cuts {
        out.push(valid[..c.min(len)].to_vec());
    }
    for extra in [1usize, 2, 33] {
        let mut v = valid.to_vec();
        v.extend(vec![0xa5u8; extra]);
        out.push(v);
    }
    if len > 0 {
        for _ in 0..flips {
            let mut v = valid.to_vec();
            let i = rng.next_u32() as usize % len;
            v[i] ^= 1 << (rng.next_u32() % 8);
            out.push(v);
        }
        for _ in 0..flips / 2 {
            let mut v = valid.to_vec();
            let i = rng.next_u32() as usize % len;
            v[i] = rng.next_u32() as u8;
            out.push(v);
        }
        // The header (first bytes) gets every value of its first byte and a few of the next.
        for b in [0u8, 1, 2, 3, 0x7f, 0x80, 0xff] {
            for i in 0..len.min(8) {
                let mut v = valid.to_vec();
                v[i] = b;
                out.push(v);
            }
        }
    }
    for l in [0usize, 1, 7, 8, 31, 32, 33, 64, 65, 97, len] {
        let mut v = vec![0u8; l];
        rng.fill_bytes(&mut v);
        out.push(v);
        out.push(vec![0xff; l]);
        out.push(vec![0; l]);
    }
    out
}

fn point_and_scalar_decoders<C: Curve>(rng: &mut ChaCha20Rng) {
    let x = C::Scalar::random(&mut *rng);
    let p = C::Point::generator() * x;
    for m in mutations(&C::point_to_bytes(&p), rng, 64) {
        let _ = C::point_from_bytes("fuzz", &m);
    }
    for m in mutations(&C::scalar_to_be_bytes(&x), rng, 64) {
        if let Ok(b) = <[u8; 32]>::try_from(m.as_slice()) {
            let _ = C::scalar_from_be_bytes(&b);
        }
    }
}

#[test]
fn curve_decoders_never_panic() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xf022_0001);
    point_and_scalar_decoders::<P256>(&mut rng);
    point_and_scalar_decoders::<Secp256k1>(&mut rng);
    point_and_scalar_decoders::<Bls12381G1>(&mut rng);
    point_and_scalar_decoders::<Ed25519>(&mut rng);
}

fn tz21_decoders<C: Tz21Curve>(params: Tz21Params, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (ek, dk) = tz21::keygen::<C>(&mut rng);
    let x = C::Scalar::random(&mut rng);
    let big_x = C::Point::generator() * x;
    let proof = tz21::prove(&mut rng, &params, &ek, &x, &big_x, b"fuzz").unwrap();
    let kept = tz21::verify_and_compress(&mut rng, &params, &ek, &big_x, b"fuzz", &proof).unwrap();
    assert_eq!(
        tz21::recover(&params, &dk, &big_x, b"fuzz", &kept).unwrap(),
        x
    );

    for m in mutations(&params.to_bytes(), &mut rng, 32) {
        let _ = Tz21Params::from_bytes(&m);
    }
    for m in mutations(&ek.to_bytes(), &mut rng, 32) {
        let _ = tz21::EncryptionKey::<C>::from_bytes(&m);
    }
    for m in mutations(&dk.to_bytes(), &mut rng, 32) {
        if let Ok(dk2) = tz21::DecryptionKey::<C>::from_bytes(&m) {
            let _ = tz21::recover(&params, &dk2, &big_x, b"fuzz", &kept);
        }
    }
    let ct = tz21::encrypt(&mut rng, &ek, &x);
    for m in mutations(&ct.to_bytes(), &mut rng, 32) {
        if let Ok(c) = tz21::Ciphertext::<C>::from_bytes(&m) {
            let _ = tz21::decrypt(&dk, &c);
        }
    }
    let valid = proof.to_bytes();
    for m in mutations(&valid, &mut rng, 48) {
        if let Ok(p) = tz21::Proof::<C>::from_bytes(&m) {
            let ok = tz21::verify(&params, &ek, &big_x, b"fuzz", &p).is_ok();
            assert!(!ok || m == valid, "a mutated proof verified");
            let _ = tz21::check_compressed(&params, &p, &kept);
            let _ = tz21::compress(&mut rng, &params, &ek, &big_x, b"fuzz", &p);
        }
    }
    for m in mutations(&kept.to_bytes(), &mut rng, 48) {
        if let Ok(k) = tz21::CompressedCiphertext::<C>::from_bytes(&m) {
            let _ = tz21::check_compressed(&params, &proof, &k);
            if let Ok(y) = tz21::recover(&params, &dk, &big_x, b"fuzz", &k) {
                assert_eq!(
                    y, x,
                    "a mutated compressed ciphertext recovered a wrong scalar"
                );
            }
        }
    }
}

#[test]
fn tz21_decoders_never_panic() {
    let dk = Tz21Params::dkgith(6, 5, 3).unwrap();
    let rdk = Tz21Params::rdkgith(12, 5, 4).unwrap();
    tz21_decoders::<P256>(dk, 1);
    tz21_decoders::<Secp256k1>(rdk, 2);
    tz21_decoders::<Bls12381G1>(dk, 3);
    tz21_decoders::<Ed25519>(rdk, 4);
    tz21_decoders::<Secp256k1>(dk, 5);
    tz21_decoders::<P256>(rdk, 6);
}

#[test]
fn cs03_decoders_never_panic() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xf022_0003);
    let params = Cs03Params::insecure_test_params(1024, 128).unwrap();
    let (pk, sk) = cs03::keygen(&mut rng, &params).unwrap();
    let aux = AuxParams::generate(&mut rng, 1024).unwrap();
    let x = <Secp256k1 as Curve>::Scalar::random(&mut rng);
    let big_x = <<Secp256k1 as Curve>::Point as Group>::generator() * x;
    let (ct, proof) =
        cs03::encrypt_and_prove::<Secp256k1>(&mut rng, &pk, &aux, &x, &big_x, b"fuzz").unwrap();

    for m in mutations(&pk.to_bytes(), &mut rng, 24) {
        if let Ok(pk2) = cs03::PublicKey::from_bytes(&m) {
            let _ = cs03::Ciphertext::from_bytes(&pk2, &ct.to_bytes());
        }
    }
    for m in mutations(&sk.to_bytes(), &mut rng, 24) {
        if let Ok(sk2) = cs03::SecretKey::from_bytes(&m) {
            let _ = cs03::decrypt::<Secp256k1>(&sk2, b"fuzz", &ct);
        }
    }
    // Each aux candidate that parses runs the setup-proof check: a lighter set.
    for m in mutations_with(&aux.to_bytes(), &mut rng, 8, 8) {
        let _ = AuxParams::from_bytes(&m);
    }
    for m in mutations(&ct.to_bytes(), &mut rng, 48) {
        if let Ok(c) = cs03::Ciphertext::from_bytes(&pk, &m) {
            // CCA2: any change to u, e or v fails decryption (a random overwrite can write
            // the same byte back, so compare against the original first).
            let r = cs03::decrypt::<Secp256k1>(&sk, b"fuzz", &c);
            if c != ct {
                assert!(r.is_err(), "a mutated ciphertext decrypted");
            }
            let _ = cs03::verify::<Secp256k1>(&pk, &aux, &big_x, b"fuzz", &c, &proof);
        }
    }
    for m in mutations(&proof.to_bytes(), &mut rng, 48) {
        if let Ok(p) = cs03::Proof::from_bytes::<Secp256k1>(&pk, &aux, &m) {
            let ok = cs03::verify::<Secp256k1>(&pk, &aux, &big_x, b"fuzz", &ct, &p).is_ok();
            assert!(!ok || m == proof.to_bytes(), "a mutated proof verified");
        }
        // The same bytes under another curve's layout.
        let _ = cs03::Proof::from_bytes::<Ed25519>(&pk, &aux, &m);
    }
}

/// The CLI's path: a backup whose fields are mutated one at a time goes through
/// `backup::verify` and `backup::recover` without panicking.
#[test]
fn backup_fields_never_panic() {
    let mut rng = ChaCha20Rng::seed_from_u64(0xf022_0004);
    let cs03_small = Some(Cs03Params::insecure_test_params(1024, 128).unwrap());
    for (scheme, curve) in [
        (BackupScheme::Cs03, CurveId::P256),
        (BackupScheme::Dkgith, CurveId::Ed25519),
        (BackupScheme::Rdkgith, CurveId::Bls12381G1),
    ] {
        let (epk, esk) = backup::escrow_keygen(&mut rng, scheme, curve, cs03_small).unwrap();
        let mut secret = [0u8; 32];
        rng.fill_bytes(&mut secret);
        secret[0] &= 0x0f;
        let mut b = backup::backup(&mut rng, &epk, &secret, b"fuzz").unwrap();
        b.ciphertext = backup::verify(&b, &mut rng).unwrap().escrow_ciphertext;
        assert_eq!(*backup::recover(&esk, &b).unwrap(), secret);
        type Field = fn(&mut Backup) -> &mut Vec<u8>;
        let fields: [Field; 5] = [
            |b| &mut b.public_share,
            |b| &mut b.escrow_public_key,
            |b| &mut b.ciphertext,
            |b| &mut b.proof,
            |b| &mut b.label,
        ];
        for field in fields {
            let valid = field(&mut b.clone()).clone();
            // A random sample of 8 mutations plus the empty and the one-byte-short input:
            // every sample that parses costs a full verification at the default sets (the
            // exhaustive runs are the decoder tests above, at small parameters).
            let mut ms = mutations_with(&valid, &mut rng, 16, 16);
            for i in 0..8.min(ms.len()) {
                let j = i + rng.next_u32() as usize % (ms.len() - i);
                ms.swap(i, j);
            }
            ms.truncate(8);
            ms.push(Vec::new());
            ms.push(valid[..valid.len().saturating_sub(1)].to_vec());
            for m in ms {
                let mut bad = b.clone();
                *field(&mut bad) = m;
                // An empty TZ21 ciphertext is the legitimate "not compressed yet" state.
                let changed =
                    bad != b && !(scheme != BackupScheme::Cs03 && bad.ciphertext.is_empty());
                let v = backup::verify(&bad, &mut rng);
                if let Ok(y) = backup::recover(&esk, &bad) {
                    assert_eq!(*y, secret, "a mutated backup recovered a wrong scalar");
                }
                // A changed proof, share, label or key must not verify (a changed TZ21
                // ciphertext is checked against the proof, also covered here).
                if changed {
                    assert!(v.is_err(), "a mutated backup verified");
                }
            }
        }
    }
}
