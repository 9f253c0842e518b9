//! quorate-verenc: CS03 keys, auxiliary parameters, ciphertexts and proofs (checked by
//! `cs03::verify`), TZ21 parameters, keys, ciphertexts, proofs (checked by `tz21::verify`)
//! and compressed ciphertexts (checked by `check_compressed`), and the escrow key wrapper
//! the CLI decodes.

use crate::{re, rng, Case};
use ff::Field;
use group::Group;
use quorate_verenc::backup::{CurveId, EscrowPublicKey, EscrowSecretKey, Scheme};
use quorate_verenc::cs03::{self, AuxParams, Cs03Params};
use quorate_verenc::group::{Bls12381G1, Curve, Ed25519, Secp256k1, P256};
use quorate_verenc::tz21::{self, Tz21Curve, Tz21Params};
use std::rc::Rc;

const LABEL: &[u8] = b"quorate-fuzz label";

fn statement<C: Tz21Curve>(seed: u64) -> (C::Scalar, C::Point) {
    let x = C::Scalar::random(&mut rng(seed));
    (x, C::Point::generator() * x)
}

/// A TZ21 proof case on curve `C` with parameters `params` (strict: the proof binds all).
fn tz21_cases<C: Tz21Curve>(name: &'static str, params: Tz21Params, seed: u64) -> Vec<Case> {
    let mut r = rng(seed);
    let (ek, dk) = tz21::keygen::<C>(&mut r);
    let (x, big_x) = statement::<C>(seed + 1);
    let proof = tz21::prove::<C>(&mut r, &params, &ek, &x, &big_x, LABEL).expect("prove");
    let compressed =
        tz21::compress::<C>(&mut r, &params, &ek, &big_x, LABEL, &proof).expect("compress");
    assert!(tz21::Proof::<C>::from_bytes(&proof.to_bytes()).expect("proof") == proof);
    assert!(
        tz21::CompressedCiphertext::<C>::from_bytes(&compressed.to_bytes()).expect("ct")
            == compressed
    );
    assert!(tz21::EncryptionKey::<C>::from_bytes(&ek.to_bytes()).expect("ek") == ek);
    let proof = Rc::new(proof);
    let p2 = Rc::clone(&proof);
    vec![
        Case::new(name, proof.to_bytes(), |b| {
            re(tz21::Proof::<C>::from_bytes(b), tz21::Proof::to_bytes)
        })
        .with_check(true, move |b| {
            let p = tz21::Proof::<C>::from_bytes(b).expect("decoded before");
            tz21::verify::<C>(&params, &ek, &big_x, LABEL, &p).is_ok()
        }),
        Case::new("tz21::CompressedCiphertext", compressed.to_bytes(), |b| {
            re(
                tz21::CompressedCiphertext::<C>::from_bytes(b),
                tz21::CompressedCiphertext::to_bytes,
            )
        })
        .with_check(false, move |b| {
            let c = tz21::CompressedCiphertext::<C>::from_bytes(b).expect("decoded before");
            let ok = tz21::check_compressed::<C>(&params, &p2, &c).is_ok();
            if ok {
                // Whatever passes the check recovers the right scalar.
                let got = tz21::recover::<C>(&params, &dk, &big_x, LABEL, &c).expect("recover");
                assert!(
                    got == x,
                    "a checked compressed ciphertext recovers another scalar"
                );
            }
            ok
        }),
    ]
}

/// The cases (CS03 with the 1024-bit test parameters and 512-bit auxiliary parameters;
/// small TZ21 sets).
pub fn cases() -> Vec<Case> {
    let mut r = rng(0x5645);
    let params = Cs03Params::insecure_test_params(1024, 256).expect("params");
    let (pk, sk) = cs03::keygen(&mut r, &params).expect("cs03 keygen");
    // 512 bits: the smallest `N` quorate-verenc's `fuzzing` feature admits (normally 1024).
    // Decoding the auxiliary parameters verifies their two setup proofs (2 × 128 modular
    // exponentiations), which dominates these targets; the checks are the same.
    let aux = AuxParams::generate(&mut r, 512).expect("aux");
    let (x, big_x) = statement::<Secp256k1>(7);
    let (ct, proof) =
        cs03::encrypt_and_prove::<Secp256k1>(&mut r, &pk, &aux, &x, &big_x, LABEL).expect("prove");
    assert!(cs03::PublicKey::from_bytes(&pk.to_bytes()).expect("pk") == pk);
    assert!(AuxParams::from_bytes(&aux.to_bytes()).expect("aux") == aux);
    assert!(cs03::Ciphertext::from_bytes(&pk, &ct.to_bytes()).expect("ct") == ct);

    let mut escrow = (pk.to_bytes().len() as u32).to_be_bytes().to_vec();
    escrow.extend_from_slice(&pk.to_bytes());
    escrow.extend_from_slice(&aux.to_bytes());

    let pk = Rc::new(pk);
    let aux = Rc::new(aux);
    let ct = Rc::new(ct);
    let proof = Rc::new(proof);
    let mut out = vec![
        Case::new("backup::EscrowPublicKey(cs03)", escrow, |b| {
            re(
                EscrowPublicKey::from_bytes(Scheme::Cs03, CurveId::Secp256k1, b),
                |k| k.as_bytes().to_vec(),
            )
        }),
        Case::new("cs03::PublicKey", pk.to_bytes(), |b| {
            re(cs03::PublicKey::from_bytes(b), cs03::PublicKey::to_bytes)
        }),
        Case::new("cs03::AuxParams", aux.to_bytes(), |b| {
            re(AuxParams::from_bytes(b), AuxParams::to_bytes)
        }),
        Case::new("cs03::SecretKey", sk.to_bytes().to_vec(), |b| {
            re(cs03::SecretKey::from_bytes(b), |k| k.to_bytes().to_vec())
        }),
    ];
    {
        let (pk1, pk2, aux2, proof2) = (
            Rc::clone(&pk),
            Rc::clone(&pk),
            Rc::clone(&aux),
            Rc::clone(&proof),
        );
        out.push(
            Case::new("cs03::Ciphertext", ct.to_bytes(), move |b| {
                re(
                    cs03::Ciphertext::from_bytes(&pk1, b),
                    cs03::Ciphertext::to_bytes,
                )
            })
            .with_check(true, move |b| {
                let c = cs03::Ciphertext::from_bytes(&pk2, b).expect("decoded before");
                cs03::verify::<Secp256k1>(&pk2, &aux2, &big_x, LABEL, &c, &proof2).is_ok()
            }),
        );
    }
    {
        let (pk1, aux1, pk2, aux2, ct2) = (
            Rc::clone(&pk),
            Rc::clone(&aux),
            Rc::clone(&pk),
            Rc::clone(&aux),
            Rc::clone(&ct),
        );
        out.push(
            Case::new("cs03::Proof", proof.to_bytes(), move |b| {
                re(
                    cs03::Proof::from_bytes::<Secp256k1>(&pk1, &aux1, b),
                    cs03::Proof::to_bytes,
                )
            })
            .with_check(true, move |b| {
                let p =
                    cs03::Proof::from_bytes::<Secp256k1>(&pk2, &aux2, b).expect("decoded before");
                cs03::verify::<Secp256k1>(&pk2, &aux2, &big_x, LABEL, &ct2, &p).is_ok()
            }),
        );
    }

    let small_dk = Tz21Params::dkgith(6, 5, 3).expect("params");
    let small_rdk = Tz21Params::rdkgith(12, 5, 4).expect("params");
    out.push(Case::new(
        "tz21::Tz21Params",
        small_rdk.to_bytes().to_vec(),
        |b| re(Tz21Params::from_bytes(b), |p| p.to_bytes().to_vec()),
    ));
    let (ek, dk) = tz21::keygen::<Bls12381G1>(&mut r);
    out.push(Case::new("tz21::EncryptionKey", ek.to_bytes(), |b| {
        re(
            tz21::EncryptionKey::<Bls12381G1>::from_bytes(b),
            tz21::EncryptionKey::to_bytes,
        )
    }));
    out.push(Case::new(
        "tz21::DecryptionKey",
        dk.to_bytes().to_vec(),
        |b| {
            re(tz21::DecryptionKey::<Bls12381G1>::from_bytes(b), |k| {
                k.to_bytes().to_vec()
            })
        },
    ));
    out.push(Case::new(
        "backup::EscrowSecretKey(dkgith)",
        dk.to_bytes().to_vec(),
        |b| {
            re(
                EscrowSecretKey::from_bytes(Scheme::Dkgith, CurveId::Bls12381G1, b),
                |k| k.expose_bytes().to_vec(),
            )
        },
    ));
    let m = <Bls12381G1 as Curve>::Scalar::random(&mut r);
    let ct = tz21::encrypt::<Bls12381G1>(&mut r, &ek, &m);
    out.push(Case::new("tz21::Ciphertext", ct.to_bytes(), |b| {
        re(
            tz21::Ciphertext::<Bls12381G1>::from_bytes(b),
            tz21::Ciphertext::to_bytes,
        )
    }));
    out.extend(tz21_cases::<P256>("tz21::Proof(dkgith,p256)", small_dk, 11));
    out.extend(tz21_cases::<Ed25519>(
        "tz21::Proof(rdkgith,ed25519)",
        small_rdk,
        13,
    ));
    out
}
