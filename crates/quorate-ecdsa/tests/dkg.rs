#![allow(clippy::unwrap_used)]
//! Key generation and refresh: outputs, faults with exact culprits, identity keys, BIP32.

mod common;

use common::*;
use k256::elliptic_curve::ops::MulByGenerator;
use k256::{ProjectivePoint, Scalar};
use quorate_ecdsa::keygen::{DkgFault, DkgMsg2, DkgMsg3};
use quorate_ecdsa::KeyShare;

#[test]
fn refresh_keeps_key_and_any_subset_signs() {
    let shares = keygen(3, 5, 5);
    let pk = shares[0].public_key();
    let mut fresh = refresh(&shares, 6);
    for (old, new) in shares.iter().zip(&fresh) {
        assert_eq!(new.public_key(), pk);
        assert_eq!(new.epoch(), 1);
        assert_ne!(new.secret_share_for_test(), old.secret_share_for_test());
    }
    let d = digest("after refresh");
    // Every one of the ten 3-subsets of the five parties.
    let mut subsets = 0;
    for a in 1u16..=5 {
        for b in a + 1..=5 {
            for c in b + 1..=5 {
                let sig = run_sign(&mut fresh, &[a, b, c], &d, 3, SignFault::None).unwrap();
                check_external(&pk, &d, &sig);
                subsets += 1;
            }
        }
    }
    assert_eq!(subsets, 10);
    // Old and new shares do not mix: a signing set with an old share fails.
    let mut mixed = fresh.clone();
    mixed[0] = shares[0].clone();
    assert!(run_sign(&mut mixed, &[1, 2, 3], &d, 4, SignFault::None).is_err());
}

#[test]
fn dkg_faults_name_the_culprit() {
    // Bad share from P2 to P1.
    let tamper2 = |from, to, m: &mut DkgMsg2| {
        if (from, to) == (pid(2), pid(1)) {
            m.corrupt_share_for_test();
        }
    };
    let res = run_dkg(
        2,
        3,
        1,
        None,
        DkgRun {
            tamper2: &tamper2,
            ..Default::default()
        },
    );
    let err = res[0].as_ref().unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some("DKG: share verification"));
    assert!(res[2].is_ok());
    // Bad proof of knowledge by P3.
    let fault = Some((pid(3), DkgFault::BadProof));
    let res = run_dkg(
        2,
        3,
        2,
        None,
        DkgRun {
            fault,
            ..Default::default()
        },
    );
    for r in &res[..2] {
        let err = r.as_ref().unwrap_err();
        assert_eq!(err.culprits(), &[pid(3)]);
        assert_eq!(err.check(), Some("DKG: proof of knowledge"));
    }
    // Wrong-length Feldman vector by P1 (committed to, so the opening is valid).
    let fault = Some((pid(1), DkgFault::LongVector));
    let res = run_dkg(
        3,
        4,
        3,
        None,
        DkgRun {
            fault,
            ..Default::default()
        },
    );
    for r in &res[1..] {
        let err = r.as_ref().unwrap_err();
        assert_eq!(err.culprits(), &[pid(1)]);
        assert_eq!(err.check(), Some("DKG: Feldman vector length"));
    }
    // Reveal that does not match the round-1 commitment.
    let tamper2 = |from, _, m: &mut DkgMsg2| {
        if from == pid(1) {
            m.extend_feldman_for_test();
        }
    };
    let res = run_dkg(
        2,
        3,
        4,
        None,
        DkgRun {
            tamper2: &tamper2,
            ..Default::default()
        },
    );
    assert_eq!(
        res[1].as_ref().unwrap_err().check(),
        Some("DKG: commitment opening")
    );
    // Wrong-length base-OT vector from P2 to P3 (base-OT answers go to the higher index).
    let tamper2 = |from, to, m: &mut DkgMsg2| {
        if (from, to) == (pid(2), pid(3)) {
            m.truncate_base_ot_for_test();
        }
    };
    let res = run_dkg(
        2,
        3,
        5,
        None,
        DkgRun {
            tamper2: &tamper2,
            ..Default::default()
        },
    );
    let err = res[2].as_ref().unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some("base OT: number of receiver points"));
    // Inconsistent OT-extension message bootstrapping the reverse direction, P3 to P1.
    let tamper3 = |from, to, m: &mut DkgMsg3| {
        if (from, to) == (pid(3), pid(1)) {
            m.corrupt_for_test();
        }
    };
    let res = run_dkg(
        2,
        3,
        6,
        None,
        DkgRun {
            tamper3: &tamper3,
            ..Default::default()
        },
    );
    let err = res[0].as_ref().unwrap_err();
    assert_eq!(err.culprits(), &[pid(3)]);
    assert_eq!(err.check(), Some("OT extension: KOS consistency check"));
    assert!(res[1].is_ok() && res[2].is_ok());
}

#[test]
fn identity_keys_are_agreed_and_kept_by_refresh() {
    let shares = keygen(2, 3, 60);
    for s in &shares {
        for j in 1..=3u16 {
            assert_eq!(s.identity_key(pid(j)), shares[0].identity_key(pid(j)));
        }
    }
    assert_ne!(
        shares[0].identity_key(pid(1)),
        shares[0].identity_key(pid(2))
    );
    let fresh = refresh(&shares, 61);
    for (old, new) in shares.iter().zip(&fresh) {
        for j in 1..=3u16 {
            assert_eq!(old.identity_key(pid(j)), new.identity_key(pid(j)));
        }
        assert_eq!(new.setup_transcript(), fresh[0].setup_transcript());
    }
}

/// Single-party BIP32 reference (CKDpriv, non-hardened) with k256 + HMAC-SHA512.
fn bip32_reference(sk: Scalar, chain: [u8; 32], index: u32) -> (Scalar, [u8; 32]) {
    use hmac::{Hmac, Mac};
    use k256::elliptic_curve::PrimeField;
    let pk = ProjectivePoint::mul_by_generator(&sk);
    let mut mac = Hmac::<sha2::Sha512>::new_from_slice(&chain).unwrap();
    mac.update(&quorate_ecdsa::curve::point_bytes(&pk));
    mac.update(&index.to_be_bytes());
    let i = mac.finalize().into_bytes();
    let il = Scalar::from_repr(*k256::FieldBytes::from_slice(&i[..32])).unwrap();
    let mut c = [0u8; 32];
    c.copy_from_slice(&i[32..]);
    (sk + il, c)
}

#[test]
fn bip32_matches_single_party_reference() {
    let shares = keygen(2, 3, 20);
    let sk = reconstruct(&shares, &[1, 2]);
    let path = [0u32, 7, 1 << 30];
    let mut ref_sk = sk;
    let mut ref_chain = shares[0].chain_code();
    for i in path {
        (ref_sk, ref_chain) = bip32_reference(ref_sk, ref_chain, i);
    }
    let mut children: Vec<KeyShare> = shares
        .iter()
        .map(|s| s.derive_path(&path).unwrap())
        .collect();
    let ref_pk = ProjectivePoint::mul_by_generator(&ref_sk);
    for c in &children {
        assert_eq!(c.public_key(), ref_pk);
        assert_eq!(c.chain_code(), ref_chain);
    }
    assert_eq!(reconstruct(&children, &[1, 3]), ref_sk);
    // Also check against k256's own BIP32-style arithmetic: the child verifying key.
    let d = digest("bip32 child");
    let sig = run_sign(&mut children, &[2, 3], &d, 5, SignFault::None).unwrap();
    check_external(&ref_pk, &d, &sig);
    assert!(shares[0].derive_child(1 << 31).is_err());
}
