//! The verifiable key-share backup interface: every scheme on every curve, end to end, and
//! the ways a backup must be rejected.
#![allow(clippy::unwrap_used)]

use quorate_verenc::backup::{
    self, Backup, BackupError, CurveId, EscrowPublicKey, EscrowSecretKey, Scheme,
};
use quorate_verenc::cs03::Cs03Params;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// CS03 at a small, test-only modulus so that key generation takes well under a second.
fn small_cs03() -> Option<Cs03Params> {
    Some(Cs03Params::insecure_test_params(1024, 256).unwrap())
}

fn keys(scheme: Scheme, curve: CurveId, r: &mut ChaCha20Rng) -> (EscrowPublicKey, EscrowSecretKey) {
    backup::escrow_keygen(r, scheme, curve, small_cs03()).unwrap()
}

fn secret(r: &mut ChaCha20Rng) -> [u8; 32] {
    let mut x = [0u8; 32];
    r.fill_bytes(&mut x);
    x[0] &= 0x0f; // below every supported group order
    x
}

/// backup → verify → (store the verifier's ciphertext) → recover.
fn round_trip(scheme: Scheme, curve: CurveId, seed: u64) {
    let mut r = rng(seed);
    let (epk, esk) = keys(scheme, curve, &mut r);
    let x = secret(&mut r);
    let mut b = backup::backup(&mut r, &epk, &x, b"share 3 of wallet 7").unwrap();
    assert_eq!((b.scheme, b.curve), (scheme, curve));
    let verified = backup::verify(&b, &mut r).unwrap();
    if scheme == Scheme::Cs03 {
        assert_eq!(verified.escrow_ciphertext, b.ciphertext);
    } else {
        assert!(b.ciphertext.is_empty(), "TZ21: the prover cannot compress");
        assert!(matches!(
            backup::recover(&esk, &b),
            Err(BackupError::NotCompressed)
        ));
    }
    b.ciphertext = verified.escrow_ciphertext;
    // A stored backup verifies again (for TZ21: its compressed ciphertext is checked
    // against the proof, and the verifier hands out a fresh compression of its own, which
    // recovers too).
    let again = backup::verify(&b, &mut r).unwrap();
    let got = backup::recover(&esk, &b).unwrap();
    assert_eq!(*got, x);
    let mut b2 = b.clone();
    b2.ciphertext = again.escrow_ciphertext;
    assert_eq!(*backup::recover(&esk, &b2).unwrap(), x);
}

#[test]
fn every_scheme_on_every_curve_round_trips() {
    for (i, scheme) in Scheme::ALL.into_iter().enumerate() {
        for (j, curve) in CurveId::ALL.into_iter().enumerate() {
            round_trip(scheme, curve, (10 * i + j) as u64);
        }
    }
}

fn verified_backup(scheme: Scheme, seed: u64) -> (Backup, EscrowSecretKey, [u8; 32]) {
    let mut r = rng(seed);
    let (epk, esk) = keys(scheme, CurveId::Secp256k1, &mut r);
    let x = secret(&mut r);
    let mut b = backup::backup(&mut r, &epk, &x, b"label").unwrap();
    b.ciphertext = backup::verify(&b, &mut r).unwrap().escrow_ciphertext;
    (b, esk, x)
}

#[test]
fn a_changed_label_or_public_share_is_rejected() {
    for (k, scheme) in Scheme::ALL.into_iter().enumerate() {
        let (b, _, _) = verified_backup(scheme, 100 + k as u64);
        let mut r = rng(1);

        let mut other_label = b.clone();
        other_label.label = b"other".to_vec();
        assert!(
            matches!(
                backup::verify(&other_label, &mut r),
                Err(BackupError::Invalid(_))
            ),
            "{scheme}: wrong label accepted"
        );

        // A proof for a different δ = X: the public share of another secret.
        let mut other_share = b.clone();
        let (b2, _, _) = verified_backup(scheme, 200 + k as u64);
        other_share.public_share = b2.public_share.clone();
        assert!(
            matches!(
                backup::verify(&other_share, &mut r),
                Err(BackupError::Invalid(_))
            ),
            "{scheme}: proof for another public share accepted"
        );
    }
}

#[test]
fn a_tampered_ciphertext_never_recovers_a_wrong_scalar() {
    for (k, scheme) in Scheme::ALL.into_iter().enumerate() {
        let (b, esk, x) = verified_backup(scheme, 300 + k as u64);
        let mut r = rng(2);
        for pos in [0, b.ciphertext.len() / 2, b.ciphertext.len() - 1] {
            let mut t = b.clone();
            t.ciphertext[pos] ^= 0x01;
            // The verifier rejects it (malformed or invalid, never valid) …
            assert!(
                backup::verify(&t, &mut r).is_err(),
                "{scheme}: tampered ciphertext byte {pos} verified"
            );
            // … and the escrow never returns a scalar other than x.
            if let Ok(got) = backup::recover(&esk, &t) {
                assert_eq!(*got, x, "{scheme}: wrong scalar recovered");
            }
        }
    }
}

#[test]
fn keys_of_another_scheme_or_curve_are_refused() {
    let (b, _, _) = verified_backup(Scheme::Rdkgith, 400);
    let mut r = rng(3);
    let (_, other_curve) = keys(Scheme::Rdkgith, CurveId::P256, &mut r);
    assert!(matches!(
        backup::recover(&other_curve, &b),
        Err(BackupError::KeyMismatch { .. })
    ));
    let (_, other_scheme) = keys(Scheme::Dkgith, CurveId::Secp256k1, &mut r);
    assert!(matches!(
        backup::recover(&other_scheme, &b),
        Err(BackupError::KeyMismatch { .. })
    ));
    // The right scheme and curve but another escrow: recovery fails, typed.
    let (_, stranger) = keys(Scheme::Rdkgith, CurveId::Secp256k1, &mut r);
    assert!(matches!(
        backup::recover(&stranger, &b),
        Err(BackupError::Recovery(_))
    ));
}

#[test]
fn garbage_and_truncation_give_typed_errors() {
    let mut r = rng(4);
    for (k, scheme) in Scheme::ALL.into_iter().enumerate() {
        let (b, esk, _) = verified_backup(scheme, 500 + k as u64);
        let fields: [fn(&mut Backup) -> &mut Vec<u8>; 4] = [
            |b| &mut b.public_share,
            |b| &mut b.escrow_public_key,
            |b| &mut b.ciphertext,
            |b| &mut b.proof,
        ];
        for field in fields {
            for cut in [0usize, 1, 7] {
                let mut t = b.clone();
                let f = field(&mut t);
                let keep = f.len().saturating_sub(cut + 1);
                f.truncate(keep);
                assert!(
                    backup::verify(&t, &mut r).is_err(),
                    "{scheme}: truncated field verified"
                );
                let _ = backup::recover(&esk, &t); // must not panic
            }
            let mut t = b.clone();
            let f = field(&mut t);
            let len = f.len();
            *f = vec![0xa5; len];
            assert!(
                backup::verify(&t, &mut r).is_err(),
                "{scheme}: garbage field verified"
            );
            let _ = backup::recover(&esk, &t);
        }
        for garbage in [&b""[..], &[0u8; 3][..], &[0xffu8; 64][..]] {
            assert!(EscrowPublicKey::from_bytes(scheme, CurveId::Ed25519, garbage).is_err());
            assert!(EscrowSecretKey::from_bytes(scheme, CurveId::Ed25519, garbage).is_err());
        }
    }
    assert!("rsa".parse::<Scheme>().is_err());
    assert!("curve448".parse::<CurveId>().is_err());
}

#[test]
fn secrets_outside_the_group_are_refused() {
    let mut r = rng(5);
    let (epk, _) = keys(Scheme::Rdkgith, CurveId::Secp256k1, &mut r);
    assert!(matches!(
        backup::backup(&mut r, &epk, &[0u8; 32], b"l"),
        Err(BackupError::ZeroSecret)
    ));
    assert!(matches!(
        backup::backup(&mut r, &epk, &[0xffu8; 32], b"l"),
        Err(BackupError::Malformed { .. })
    ));
}

#[test]
fn escrow_secret_keys_are_redacted() {
    let mut r = rng(6);
    for scheme in Scheme::ALL {
        let (_, esk) = keys(scheme, CurveId::Secp256k1, &mut r);
        let shown = format!("{esk:?}");
        assert!(shown.contains("redacted"), "{shown}");
        assert!(!shown.contains(&hex::encode(&esk.expose_bytes()[..8])));
    }
}
