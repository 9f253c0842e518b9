#![allow(clippy::unwrap_used)]
//! Signing: thresholds and signing sets, bans after failed OT checks, multiplication faults, session ids.

use crate::common::*;
use k256::elliptic_curve::ops::MulByGenerator;
use k256::ProjectivePoint;
use quorate_ecdsa::sign;
use quorate_ecdsa::{EcdsaError, KeyShare, SessionId};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

#[test]
fn dkg_and_signing_for_several_thresholds() {
    for (t, n, signers) in [
        (2u16, 2u16, vec![1u16, 2]),
        (2, 3, vec![1, 3]),
        (3, 5, vec![2, 4, 5]),
        (5, 9, vec![1, 3, 4, 7, 9]),
        (8, 12, vec![1, 2, 3, 5, 6, 8, 10, 12]),
    ] {
        let mut shares = keygen(t, n, u64::from(t * 100 + n));
        let pk = shares[0].public_key();
        for s in &shares {
            assert_eq!(s.public_key(), pk);
            assert_eq!(s.setup_transcript(), shares[0].setup_transcript());
            assert_eq!(s.chain_code(), shares[0].chain_code());
        }
        assert_eq!(
            ProjectivePoint::mul_by_generator(&reconstruct(&shares, &signers)),
            pk
        );
        let d = digest(&format!("message for ({t},{n})"));
        let sig = run_sign(&mut shares, &signers, &d, 7, SignFault::None).unwrap();
        check_external(&pk, &d, &sig);
    }
}

#[test]
fn more_than_t_signers_and_every_pair_of_a_2_of_4() {
    let mut shares = keygen(2, 4, 42);
    let pk = shares[0].public_key();
    let d = digest("pairs");
    for a in 1..=4u16 {
        for b in (a + 1)..=4 {
            let sig = run_sign(
                &mut shares,
                &[a, b],
                &d,
                u64::from(a * 10 + b),
                SignFault::None,
            )
            .unwrap();
            check_external(&pk, &d, &sig);
        }
    }
    let sig = run_sign(&mut shares, &[1, 2, 4], &d, 99, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
}

#[test]
fn inconsistent_ot_extension_bans_the_sender_until_refresh() {
    let mut shares = keygen(3, 4, 8);
    let d = digest("ote fault");
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::Ote(2)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some("OT extension: KOS consistency check"));
    // Both honest counterparties banned P2; P2's pairs with them are still there (it is the
    // cheater), but honest parties refuse to sign with it.
    assert!(shares[0].is_banned(pid(2)));
    assert!(shares[2].is_banned(pid(2)));
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 2, SignFault::None).unwrap_err();
    assert_eq!(
        err,
        EcdsaError::Banned {
            counterparty: pid(2)
        }
    );
    // Without P2 signing still works.
    let pk = shares[0].public_key();
    let sig = run_sign(&mut shares, &[1, 3, 4], &d, 3, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
    // A refresh re-establishes fresh OT correlations.
    let mut fresh = refresh(&shares, 9);
    assert!(!fresh[0].is_banned(pid(2)));
    let sig = run_sign(&mut fresh, &[1, 2, 3], &d, 4, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
}

#[test]
fn two_cheaters_in_one_round_are_both_named_and_banned() {
    let mut shares = keygen(3, 4, 16);
    let d = digest("two cheaters");
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::Ote2(2, 3)).unwrap_err();
    // P1 is the first to report: it names and bans both, not only the first failure.
    assert_eq!(err.culprits(), &[pid(2), pid(3)]);
    assert_eq!(err.check(), Some("OT extension: KOS consistency check"));
    assert!(shares[0].is_banned(pid(2)) && shares[0].is_banned(pid(3)));
}

/// A repeated signing session id (same signers, same `sign_id`) still signs correctly: the
/// fresh nonce and salt of every multiplication keep the runs independent (the unit test
/// `mul::tests::reused_session_id_does_not_reveal_the_sender_input` checks the secrecy).
#[test]
fn a_repeated_session_id_still_signs() {
    let mut shares = keygen(2, 3, 17);
    let pk = shares[0].public_key();
    for text in ["first", "second"] {
        let d = digest(text);
        let sig = run_sign(&mut shares, &[1, 3], &d, 5, SignFault::None).unwrap();
        check_external(&pk, &d, &sig);
    }
}

#[test]
fn inconsistent_multiplication_messages_name_the_sender() {
    // A Γ inconsistent with R_i: always caught by every counterparty.
    let mut shares = keygen(3, 3, 10);
    let d = digest("gamma");
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::Gamma(3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(3)]);
    assert_eq!(
        err.check(),
        Some("signing: multiplication output check (Γ)")
    );
    assert!(shares[0].is_banned(pid(3)));
    // Γ_v inconsistent with pk_i, and errors in Γ_u and Γ_v that cancel in a plain sum:
    // the randomly weighted check of round 3 catches both, with two and with three signers.
    for (fault, signers) in [
        (SignFault::GammaV(2), &[1u16, 2, 3][..]),
        (SignFault::GammaCancelling(1), &[1, 2, 3][..]),
        (SignFault::GammaV(3), &[1, 3][..]),
        (SignFault::GammaCancelling(1), &[1, 2][..]),
    ] {
        let mut shares = keygen(2, 3, 11);
        let err = run_sign(&mut shares, signers, &d, 1, fault).unwrap_err();
        let cheater = fault.cheater().unwrap();
        assert_eq!(err.culprits(), &[cheater]);
        assert_eq!(
            err.check(),
            Some("signing: multiplication output check (Γ)")
        );
        // The first honest signer (the one reporting) banned the culprit.
        let reporter = signers.iter().map(|i| pid(*i)).find(|i| *i != cheater);
        assert!(shares[reporter.unwrap().position()].is_banned(cheater));
    }
    // A wrong Γ_u sent to one recipient only: that recipient names and bans the sender;
    // the co-signer that received consistent outputs has nothing against it.
    let mut shares = keygen(3, 3, 12);
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::GammaTo(3, 2)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(3)]);
    assert_eq!(
        err.check(),
        Some("signing: multiplication output check (Γ)")
    );
    assert!(shares[1].is_banned(pid(3)));
    assert!(!shares[0].is_banned(pid(3)));
    // Two cheaters in one session (wrong Γ_u from both): the honest signer names and bans
    // each of them, not only the first failure.
    let mut shares = keygen(3, 4, 13);
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::Gamma2(2, 3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(2), pid(3)]);
    assert_eq!(
        err.check(),
        Some("signing: multiplication output check (Γ)")
    );
    assert!(shares[0].is_banned(pid(2)) && shares[0].is_banned(pid(3)));
    // A wrong public key share: Σ pk_j ≠ pk, and the per-party comparison names P2.
    let mut shares = keygen(3, 4, 15);
    let err = run_sign(&mut shares, &[1, 2, 4], &d, 2, SignFault::Pk(2)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some("signing: pk_j = λ_j·T_j"));
    // Truncated multiplication vector.
    let mut shares = keygen(2, 2, 11);
    let err = run_sign(&mut shares, &[1, 2], &d, 1, SignFault::ShortMul(1)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
    assert_eq!(err.check(), Some("multiplication: message length"));
    // Selective-failure probe on row 0: caught iff the victim's γ_0 = 1; over several
    // sessions it is caught, named, and banned.
    let mut caught = false;
    for s in 0..12u64 {
        let mut shares = keygen(2, 2, 12);
        if let Err(e) = run_sign(&mut shares, &[1, 2], &d, 100 + s, SignFault::MulRow(2)) {
            assert_eq!(e.culprits(), &[pid(2)]);
            assert_eq!(e.check(), Some("multiplication: DKLs19 consistency check"));
            assert!(shares[0].is_banned(pid(2)));
            caught = true;
            break;
        }
    }
    assert!(caught);
}

/// The p2p entry `(Γ_u, Γ_v, ψ)` must match the hash `h_{i→k}` in the sender's body: a
/// mismatch names the sender (and bans nobody: no OT correlation was used).
#[test]
fn a_p2p_entry_that_does_not_match_its_hash_names_the_sender() {
    let d = digest("entry hash");
    let mut shares = keygen(3, 4, 80);
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::BadEntry(2, 3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some(sign::CHECK_ENTRY));
    assert!(!shares[2].is_banned(pid(2)));
    let err = run_sign(&mut shares, &[1, 3, 4], &d, 2, SignFault::BadEntry(4, 1)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(4)]);
    assert_eq!(err.check(), Some(sign::CHECK_ENTRY));
    // Two signers (unsigned bodies): the same check.
    let mut two = keygen(2, 2, 81);
    let err = run_sign(&mut two, &[1, 2], &d, 3, SignFault::BadEntry(1, 2)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
    assert_eq!(err.check(), Some(sign::CHECK_ENTRY));
    // The honest set still signs.
    let pk = shares[0].public_key();
    let sig = run_sign(&mut shares, &[1, 2, 3, 4], &d, 4, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
}

/// With three or more signers a key share signs a round-2
/// body at most once per session id. Otherwise a reused `sign_id` makes an honest signer
/// sign two different bodies for one `sid`, and a co-signer could replay the first run's
/// body in the second run's dispute to get the honest signer named for equivocation. Two
/// signers (no identity signatures) may still reuse a `sign_id`.
#[test]
fn a_reused_sign_id_is_refused_before_a_second_body_is_signed() {
    let mut shares = keygen(3, 3, 93);
    let ids = [pid(1), pid(2), pid(3)];
    let mut rng = ChaCha20Rng::seed_from_u64(10);
    for run in 0..2 {
        let mut st1 = Vec::new();
        let mut outs = Vec::new();
        for i in &ids {
            let (st, m) = sign::round1(
                &shares[i.position()],
                &SessionId::new(b"reused".to_vec()),
                &ids,
                &mut rng,
            )
            .unwrap();
            st1.push((*i, st));
            outs.push((*i, m));
        }
        let mut inbox = route(outs, 3);
        for (i, st) in st1 {
            let msgs = std::mem::take(&mut inbox[i.position()]);
            let res = sign::round2(st, &shares[i.position()], &msgs, &mut rng);
            if run == 0 {
                assert!(res.is_ok());
            } else {
                let err = res.unwrap_err();
                assert!(matches!(err, EcdsaError::Param(_)), "{err:?}");
                assert!(err.culprits().is_empty());
            }
        }
    }
    // A fresh sign_id signs.
    let d = digest("fresh after reuse");
    let pk = shares[0].public_key();
    let sig = run_sign(&mut shares, &[1, 2, 3], &d, 11, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
}

/// Issue 12 §1 (selective failure across copies of a share). A malicious P2, as the
/// OT-extension receiver towards P1, tampers with one column of its round-1 extension
/// message per session; P1's KOS check then passes exactly when that bit of its long-term
/// `Δ` is 0. The sessions alternate between P1's parent share, clones of it and BIP32
/// children. The ban lives in the store that every copy shares, so P1 aborts informatively
/// at most once, and every later session with P2, through any copy, is refused at round 1.
/// (Before the shared store, the ban landed only in the copy that signed and the attack
/// kept getting one informative abort per copy.)
#[test]
fn one_tampered_column_per_session_gets_one_abort_per_pair_across_all_copies() {
    let parents = keygen(2, 3, 130);
    let d = digest("selective failure");
    let mut aborts = 0;
    let mut refused = 0;
    let mut signed = 0;
    for session in 0..24u64 {
        // P1's copy: the parent, a clone, or a derived child (P2 and P3 use the matching copy).
        let copies: Vec<KeyShare> = match session % 3 {
            0 => parents.clone(),
            1 => parents.to_vec(),
            _ => parents
                .iter()
                .map(|s| s.derive_child(session as u32).unwrap())
                .collect(),
        };
        let mut copies = copies;
        let column = (session % 128) as u8;
        match run_sign(
            &mut copies,
            &[1, 2],
            &d,
            200 + session,
            SignFault::OteColumn(2, column),
        ) {
            Ok(_) => {
                assert_eq!(aborts, 0, "no session with P2 may sign after the abort");
                signed += 1;
            }
            Err(e @ EcdsaError::AbortedAndBanned(_)) => {
                assert_eq!(e.culprits(), &[pid(2)]);
                assert_eq!(e.newly_banned(), &[pid(2)]);
                assert_eq!(e.check(), Some("OT extension: KOS consistency check"));
                aborts += 1;
            }
            Err(e) => {
                assert_eq!(
                    e,
                    EcdsaError::Banned {
                        counterparty: pid(2)
                    }
                );
                assert_eq!(aborts, 1, "refused only after the abort");
                refused += 1;
            }
        }
    }
    // With 24 probed bits of Δ, some bit is 1 (the seeds are fixed): exactly one abort.
    assert_eq!(aborts, 1, "signed {signed}, refused {refused}");
    assert!(refused > 0);
    // Every copy, including fresh clones and children, sees the ban; P3 still signs.
    assert!(parents[0].is_banned(pid(2)));
    assert!(parents[0].clone().is_banned(pid(2)));
    assert!(parents[0].derive_child(99).unwrap().is_banned(pid(2)));
    assert_eq!(parents[0].banned(), vec![pid(2)]);
    let mut shares = parents.clone();
    let pk = shares[0].public_key();
    let sig = run_sign(&mut shares, &[1, 3], &d, 300, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
    // A refresh sets up new OT state: the pair works again.
    let mut fresh = refresh(&parents, 131);
    assert!(!fresh[0].is_banned(pid(2)));
    let sig = run_sign(&mut fresh, &[1, 2], &d, 301, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
}

/// A key share survives `to_bytes`/`from_bytes` with its OT state, bans and signed-session
/// record; corrupted or truncated encodings are typed errors.
#[test]
fn key_share_bytes_round_trip_with_bans_and_reject_corruption() {
    let mut shares = keygen(3, 4, 140);
    let d = digest("persist");
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::Ote(3)).unwrap_err();
    assert_eq!(err.newly_banned(), &[pid(3)]);
    let bytes = shares[0].to_bytes();
    let restored = KeyShare::from_bytes(&bytes).unwrap();
    assert_eq!(restored.public_key(), shares[0].public_key());
    assert_eq!(restored.epoch(), shares[0].epoch());
    assert_eq!(restored.setup_transcript(), shares[0].setup_transcript());
    assert_eq!(
        restored.secret_share_for_test(),
        shares[0].secret_share_for_test()
    );
    assert!(restored.is_banned(pid(3)) && !restored.is_banned(pid(2)));
    assert_eq!(&restored.to_bytes()[..], &bytes[..], "canonical encoding");
    // The restored share signs with the others (its OT seeds came back).
    shares[0] = restored;
    let pk = shares[0].public_key();
    let sig = run_sign(&mut shares, &[1, 2, 4], &d, 2, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
    // Every truncation and a stride of byte flips are rejected (checksum, then structure).
    for cut in (0..bytes.len()).filter(|c| *c < 200 || c % 997 == 0) {
        assert!(matches!(
            KeyShare::from_bytes(&bytes[..cut]),
            Err(EcdsaError::InvalidShare(_))
        ));
    }
    for pos in (0..bytes.len()).step_by(101) {
        let mut bad = bytes.to_vec();
        bad[pos] ^= 0x10;
        assert!(matches!(
            KeyShare::from_bytes(&bad),
            Err(EcdsaError::InvalidShare(_))
        ));
    }
}

/// `pk_i` is memoised per `(λ_i, T_i)` in the store that clones and BIP32 children share:
/// signing alternately with the shares and a derived child, under every signing set and
/// repeatedly (memo hits), gives signatures that verify under the right key each time.
#[test]
fn memoised_pk_i_follows_the_signing_set_and_the_child() {
    let shares = keygen(2, 3, 140);
    let d = digest("memo");
    let mut seed = 300;
    for _ in 0..2 {
        for set in [&[1u16, 2][..], &[1, 3], &[2, 3], &[1, 2, 3]] {
            for child in [None, Some(5u32)] {
                let mut copies: Vec<KeyShare> = match child {
                    None => shares.clone(),
                    Some(i) => shares.iter().map(|s| s.derive_child(i).unwrap()).collect(),
                };
                let pk = copies[0].public_key();
                seed += 1;
                let sig = run_sign(&mut copies, set, &d, seed, SignFault::None).unwrap();
                check_external(&pk, &d, &sig);
            }
        }
    }
}
