//! Timestamping: Merkle inclusion proofs, receipts, round signatures and the hash chain.
#![allow(clippy::unwrap_used)]

use quorate_cosi::timestamp::{
    build_tree, leaf_hash, seal_round, verify_inclusion, ChainHead, Clock, Hash, InProcessCosigner,
    InclusionError, IssuedRound, MerkleTree, Receipt, ReceiptError, RootCosigner, RosterVerifier,
    RoundHeader, RoundVerifier, TimestampValidator, DEFAULT_MAX_SKEW_MS, GENESIS_PREV,
};
use quorate_cosi::{CosiError, Policy, Roster, RosterEntry, SecretKey, Validator};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

const SEAL_TIME: u64 = 1_700_000_000_000;

/// Seven witnesses from `seed`, at the start of a new chain, whose clocks read `SEAL_TIME`.
/// Witnesses are stateful (they remember the last round they cosigned), so every chain gets
/// fresh ones; the roster is the same for the same seed.
fn cosigner_from(seed: u8) -> InProcessCosigner {
    let mut rng = ChaCha20Rng::from_seed([seed; 32]);
    let keys = (0..7).map(|_| SecretKey::generate(&mut rng)).collect();
    let clock: Clock = Arc::new(|| SEAL_TIME);
    InProcessCosigner::new(
        keys,
        Policy::Complete,
        ChainHead::genesis(),
        clock,
        DEFAULT_MAX_SKEW_MS,
    )
    .unwrap()
}

fn cosigner() -> InProcessCosigner {
    cosigner_from(7)
}

fn other_cosigner() -> InProcessCosigner {
    cosigner_from(8)
}

/// A verifier loaded the way a receipt checker does: from the roster file (entries with
/// their proofs of possession, checked on load).
fn file_verifier(c: &InProcessCosigner, policy: Policy) -> RosterVerifier {
    let entries: Vec<String> = c.roster_entries().iter().map(hex::encode).collect();
    let json = serde_json::to_string(&entries).unwrap();
    RosterVerifier::new(Arc::new(Roster::from_json(&json).unwrap()), policy)
}

fn entries_verifier(entries: Vec<RosterEntry>) -> Result<RosterVerifier, CosiError> {
    Ok(RosterVerifier::new(
        Arc::new(Roster::new(entries)?),
        Policy::Complete,
    ))
}

fn hashes(n: usize, salt: u8) -> Vec<Hash> {
    (0..n)
        .map(|i| {
            let mut h = leaf_hash(&(i as u64).to_be_bytes());
            h[31] ^= salt;
            h
        })
        .collect()
}

fn issued(n: usize) -> IssuedRound {
    seal_round(&ChainHead::genesis(), hashes(n, 0), SEAL_TIME, &cosigner()).unwrap()
}

#[test]
fn inclusion_proofs_for_every_leaf_of_sizes_1_to_33() {
    for size in 1..=33u64 {
        let tree = MerkleTree::from_data(&hashes(size as usize, 1));
        let root = tree.root();
        for index in 0..size {
            let leaf = tree.leaves()[index as usize];
            let path = tree.audit_path(index).unwrap();
            assert!(path.len() <= 6);
            verify_inclusion(&leaf, index, size, &path, &root).unwrap();

            // Tampered leaf.
            let mut bad_leaf = leaf;
            bad_leaf[0] ^= 1;
            assert_eq!(
                verify_inclusion(&bad_leaf, index, size, &path, &root),
                Err(InclusionError::RootMismatch)
            );
            // Tampered root.
            let mut bad_root = root;
            bad_root[31] ^= 0x80;
            assert_eq!(
                verify_inclusion(&leaf, index, size, &path, &bad_root),
                Err(InclusionError::RootMismatch)
            );
            // Every single tampered path element, a dropped element and an extra one.
            for j in 0..path.len() {
                let mut bad = path.clone();
                bad[j][5] ^= 4;
                assert!(verify_inclusion(&leaf, index, size, &bad, &root).is_err());
                let mut short = path.clone();
                short.remove(j);
                assert!(verify_inclusion(&leaf, index, size, &short, &root).is_err());
            }
            let mut long = path.clone();
            long.push(root);
            assert!(verify_inclusion(&leaf, index, size, &long, &root).is_err());
            // Another index (in range or not) or another size with the same path.
            for other in 0..size + 2 {
                if other != index {
                    assert!(
                        verify_inclusion(&leaf, other, size, &path, &root).is_err(),
                        "size {size}: leaf {index}'s proof accepted at index {other}"
                    );
                }
            }
        }
    }
}

#[test]
fn issued_round_receipts_verify_for_every_leaf() {
    let verifier = cosigner().verifier();
    let keys = file_verifier(&cosigner(), Policy::Complete);
    assert_eq!(keys.roster_id(), cosigner().roster_id());
    for size in [1usize, 2, 3, 7, 8, 33] {
        let round = seal_round(
            &ChainHead::genesis(),
            hashes(size, 2),
            SEAL_TIME,
            &cosigner(),
        )
        .unwrap();
        for i in 0..size as u64 {
            let r = round.receipt(i).unwrap();
            assert_eq!(r.leaf_index, i);
            assert_eq!(r.tree_size, size as u64);
            r.verify(&verifier, Some(&hashes(size, 2)[i as usize]))
                .unwrap();
            r.verify(&keys, None).unwrap();
        }
        assert!(round.receipt(size as u64).is_none());
    }
}

#[test]
fn full_participation_signature_is_plain_ed25519_under_the_aggregate_key() {
    let round = issued(10);
    let key =
        ed25519_dalek::VerifyingKey::from_bytes(&cosigner().roster().aggregate_key()).unwrap();
    let sig = ed25519_dalek::Signature::from_slice(&round.signed.signature[..64]).unwrap();
    key.verify_strict(&round.header().message(), &sig).unwrap();
    // Mask: 7 witnesses, all present, little-endian bits.
    assert_eq!(&round.signed.signature[64..], &[0x7f]);
}

#[test]
fn receipt_json_round_trip() {
    let round = issued(13);
    let receipt = round.receipt(11).unwrap();
    let json = receipt.to_json();
    let back = Receipt::from_json(&json).unwrap();
    assert_eq!(back, receipt);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for field in [
        "scheme",
        "hash",
        "leaf_hash",
        "leaf_index",
        "tree_size",
        "audit_path",
        "round",
        "time_ms",
        "prev",
        "root",
        "roster_id",
        "signature",
    ] {
        assert!(v.get(field).is_some(), "{field} missing");
    }
    assert_eq!(v["signature"].as_str().unwrap().len(), 2 * (64 + 1));
    back.verify(&cosigner().verifier(), None).unwrap();
}

#[test]
fn malformed_receipt_json_is_an_error_not_a_panic() {
    let good = issued(3).receipt(1).unwrap().to_json();
    let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
    let cases: Vec<(&str, serde_json::Value)> = vec![
        ("root", "abcd".into()),
        ("root", "zz".repeat(32).into()),
        ("leaf_index", (-1).into()),
        ("audit_path", serde_json::json!(["00"])),
        ("signature", "xyz".into()),
        ("tree_size", "3".into()),
    ];
    for (field, value) in cases {
        let mut bad = v.clone();
        bad[field] = value;
        assert!(Receipt::from_json(&bad.to_string()).is_err(), "{field}");
    }
    v.as_object_mut().unwrap().remove("round");
    assert!(Receipt::from_json(&v.to_string()).is_err());
    for text in ["", "{", "[]", "null", "{\"scheme\": 1}"] {
        assert!(Receipt::from_json(text).is_err());
    }
}

#[test]
fn tampered_receipts_are_rejected() {
    let round = issued(9);
    let good = round.receipt(4).unwrap();
    let verifier = file_verifier(&cosigner(), Policy::Complete);
    good.verify(&verifier, None).unwrap();

    let check = |r: &Receipt| r.verify(&verifier, None);
    let mut r = good.clone();
    r.hash[0] ^= 1;
    assert_eq!(check(&r), Err(ReceiptError::LeafHashMismatch));

    let mut r = good.clone();
    r.hash[0] ^= 1;
    r.leaf_hash = leaf_hash(&r.hash);
    assert!(matches!(check(&r), Err(ReceiptError::Inclusion(_))));

    let mut r = good.clone();
    r.audit_path[1][0] ^= 1;
    assert!(matches!(check(&r), Err(ReceiptError::Inclusion(_))));

    let mut r = good.clone();
    r.leaf_index = 5;
    assert!(matches!(check(&r), Err(ReceiptError::Inclusion(_))));

    let mut r = good.clone();
    r.root[0] ^= 1;
    assert!(matches!(check(&r), Err(ReceiptError::Inclusion(_))));

    // Fields that only the signature protects.
    for tamper in [
        (|r: &mut Receipt| r.round += 1) as fn(&mut Receipt),
        |r| r.time_ms += 1,
        |r| r.prev[0] ^= 1,
        |r| r.signature[40] ^= 1,
        |r| r.signature[0] ^= 1,
    ] {
        let mut r = good.clone();
        tamper(&mut r);
        assert!(
            matches!(check(&r), Err(ReceiptError::Signature(_))),
            "{:?}",
            check(&r)
        );
    }
    // A tree size whose shape still accepts this path (9 → 10 leaves for leaf 4) is caught by
    // the signature, since the size is part of the signed message.
    let mut r = good.clone();
    r.tree_size = 10;
    r.verify_inclusion(None).unwrap();
    assert!(matches!(check(&r), Err(ReceiptError::Signature(_))));

    let mut r = good.clone();
    r.scheme = "something-else".into();
    assert!(matches!(check(&r), Err(ReceiptError::UnknownScheme(_))));

    // Wrong expected hash.
    assert!(matches!(
        good.verify(&verifier, Some(&[0u8; 32])),
        Err(ReceiptError::WrongHash { .. })
    ));

    // Truncated or garbage signature.
    let mut r = good.clone();
    r.signature.truncate(64);
    assert!(matches!(check(&r), Err(ReceiptError::Signature(_))));
    let mut r = good.clone();
    r.signature = vec![0xff; 65];
    assert!(matches!(check(&r), Err(ReceiptError::Signature(_))));
    // s + L (malleated) is rejected.
    let mut r = good.clone();
    add_l_to_s(&mut r.signature);
    assert!(matches!(check(&r), Err(ReceiptError::Signature(_))));
}

/// Adds the group order L to the little-endian scalar s = sig[32..64].
fn add_l_to_s(sig: &mut [u8]) {
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut carry = 0u16;
    for i in 0..32 {
        let v = u16::from(sig[32 + i]) + u16::from(L[i]) + carry;
        sig[32 + i] = v as u8;
        carry = v >> 8;
    }
}

#[test]
fn wrong_roster_is_rejected() {
    let receipt = issued(5).receipt(2).unwrap();
    // A different roster of the same size.
    let other = file_verifier(&other_cosigner(), Policy::Complete);
    assert!(matches!(
        receipt.verify(&other, None),
        Err(ReceiptError::WrongRoster { .. })
    ));
    assert!(matches!(
        receipt.verify(&other_cosigner().verifier(), None),
        Err(ReceiptError::WrongRoster { .. })
    ));
    // Same keys in another order: another roster id, and the mask would mean other keys.
    let mut entries = cosigner().roster().entries().to_vec();
    entries.swap(0, 1);
    let swapped = entries_verifier(entries.clone()).unwrap();
    assert!(matches!(
        receipt.verify(&swapped, None),
        Err(ReceiptError::WrongRoster { .. })
    ));
    // A receipt that claims the other roster's id but carries our signature.
    let mut forged = receipt.clone();
    forged.roster_id = other.roster_id();
    assert!(matches!(
        forged.verify(&other, None),
        Err(ReceiptError::Signature(_))
    ));
    // A roster with one key fewer, or a repeated one.
    entries.swap(0, 1);
    let fewer = entries_verifier(entries[..6].to_vec()).unwrap();
    assert!(receipt.verify(&fewer, None).is_err());
    assert!(entries_verifier(vec![entries[0], entries[0]]).is_err());
    assert!(entries_verifier(Vec::new()).is_err());
}

#[test]
fn file_verifier_agrees_with_roster_verify() {
    let c = cosigner();
    let roster = c.roster();
    let keys = file_verifier(&c, Policy::Threshold(4));
    let round = issued(4);
    let msg = round.header().message();
    let good = round.signed.signature.clone();
    let mut cases = vec![good.clone()];
    let mut flipped = good.clone();
    flipped[10] ^= 1;
    cases.push(flipped);
    let mut masked = good.clone();
    masked[64] = 0x3f; // claims witness 6 absent
    cases.push(masked);
    let mut zero = good.clone();
    zero[64] = 0;
    cases.push(zero);
    let mut padded = good.clone();
    padded[64] = 0xff; // padding bit set
    cases.push(padded);
    let mut malleated = good.clone();
    add_l_to_s(&mut malleated);
    cases.push(malleated);
    cases.push(good[..64].to_vec());
    for (i, sig) in cases.iter().enumerate() {
        let ours = keys.verify(&msg, sig).is_ok();
        let theirs = roster
            .verify_bytes(&msg, sig, &Policy::Threshold(4))
            .is_ok();
        assert_eq!(ours, theirs, "case {i}");
        assert_eq!(ours, i == 0, "case {i}");
    }
}

#[test]
fn hash_chain_continuity() {
    let now = Arc::new(AtomicU64::new(1_000));
    let clock_now = now.clone();
    let clock: Clock = Arc::new(move || clock_now.load(Ordering::SeqCst));
    let mut rng = ChaCha20Rng::from_seed([7; 32]);
    let keys = (0..7).map(|_| SecretKey::generate(&mut rng)).collect();
    let c =
        InProcessCosigner::new(keys, Policy::Complete, ChainHead::genesis(), clock, 500).unwrap();
    let verifier = c.verifier();
    let mut head = ChainHead::genesis();
    let mut rounds: Vec<RoundHeader> = Vec::new();
    for r in 0..5u64 {
        // Also a clock that goes backwards: round time never decreases.
        let t = 1_000 + if r == 3 { 0 } else { r * 100 };
        now.store(t, Ordering::SeqCst);
        let issued = seal_round(&head, hashes(3 + r as usize, r as u8), t, &c).unwrap();
        let h = *issued.header();
        assert_eq!(h.round, r);
        assert_eq!(h.prev, head.prev);
        verifier
            .verify(&h.message(), &issued.signed.signature)
            .unwrap();
        head = ChainHead::after(&h);
        rounds.push(h);
    }
    assert_eq!(rounds[0].prev, GENESIS_PREV);
    for pair in rounds.windows(2) {
        assert!(pair[0].is_followed_by(&pair[1]), "{pair:?}");
        assert_eq!(pair[1].prev, pair[0].hash());
    }
    assert!(rounds[3].time_ms >= rounds[2].time_ms);
    // A broken link is detected.
    let mut forked = rounds[3];
    forked.prev = rounds[1].hash();
    assert!(!rounds[2].is_followed_by(&forked));
}

/// The chain once linked Merkle roots, so rounds with identical batches had identical
/// links and could be swapped. Each link is now the hash of the whole previous header.
#[test]
fn identical_batches_get_distinct_links() {
    let c = cosigner();
    let mut head = ChainHead::genesis();
    let mut rounds = Vec::new();
    for _ in 0..3 {
        let issued = seal_round(&head, hashes(4, 9), SEAL_TIME, &c).unwrap();
        head = ChainHead::after(issued.header());
        rounds.push(*issued.header());
    }
    assert_eq!(rounds[0].root, rounds[1].root);
    assert_eq!(rounds[1].root, rounds[2].root);
    assert_ne!(rounds[1].prev, rounds[2].prev);
    assert_ne!(rounds[0].prev, rounds[1].prev);
    // Round 2 follows round 1 only, not round 0 renumbered.
    assert!(rounds[1].is_followed_by(&rounds[2]));
    let renumbered = RoundHeader {
        round: 1,
        ..rounds[0]
    };
    assert!(!renumbered.is_followed_by(&rounds[2]));
}

/// The in-process witnesses once signed whatever the leader asked. Now each checks the
/// round number, the link to the last round it cosigned and the time, so the leader cannot
/// fork the chain, skip or replay a round, or backdate one.
#[test]
fn timestamp_witnesses_refuse_forks_gaps_and_bad_times() {
    let c = cosigner();
    let genesis = ChainHead::genesis();
    let first = seal_round(&genesis, hashes(3, 1), SEAL_TIME, &c).unwrap();
    let head = ChainHead::after(first.header());
    let declined = |r: Result<IssuedRound, _>| {
        let e = r.map(|i| *i.header()).expect_err("witnesses must refuse");
        assert!(format!("{e}").contains("declined"), "{e}");
    };
    // A second round 0 (a fork of the chain).
    declined(seal_round(&genesis, hashes(3, 2), SEAL_TIME, &c));
    // Skipping a round.
    let gap = ChainHead {
        next_round: 2,
        ..head
    };
    declined(seal_round(&gap, hashes(3, 2), SEAL_TIME, &c));
    // Linking to something else than the last cosigned header (here: its Merkle root).
    let wrong_link = ChainHead {
        prev: first.header().root,
        ..head
    };
    declined(seal_round(&wrong_link, hashes(3, 2), SEAL_TIME, &c));
    // A time ahead of the witnesses' clocks by more than the skew (a time behind it is
    // checked on the validator below: `seal_round` never lets time go backwards).
    declined(seal_round(
        &head,
        hashes(3, 2),
        SEAL_TIME + DEFAULT_MAX_SKEW_MS + 1,
        &c,
    ));
    // The honest continuation is still accepted.
    let second = seal_round(&head, hashes(3, 2), SEAL_TIME, &c).unwrap();
    assert!(first.header().is_followed_by(second.header()));

    // The validator itself: other rosters, other messages, time going backwards.
    let roster_id = c.roster_id();
    let clock: Clock = Arc::new(|| SEAL_TIME);
    let mut v = TimestampValidator::new(roster_id, head, 1_000, clock);
    let ok = *second.header();
    assert_eq!(v.check(&ok.message()), Ok(()));
    assert!(v.check(b"not a header").is_err());
    let other_roster = RoundHeader {
        roster_id: [1; 32],
        ..ok
    };
    assert!(v.check(&other_roster.message()).is_err());
    let backwards = RoundHeader {
        time_ms: first.header().time_ms - 1,
        ..ok
    };
    assert!(v.check(&backwards.message()).is_err());
    // A time behind the witness's clock by more than the skew.
    let late: Clock = Arc::new(|| SEAL_TIME + 1_001);
    assert!(TimestampValidator::new(roster_id, head, 1_000, late)
        .check(&ok.message())
        .is_err());
    v.cosigned(&ok.message());
    assert_eq!(v.head(), &ChainHead::after(&ok));
    assert!(v.check(&ok.message()).is_err());
}

#[test]
fn issued_round_rebuilds_from_stored_parts() {
    let round = issued(21);
    let again = IssuedRound::from_parts(round.signed.clone(), round.hashes.clone()).unwrap();
    assert_eq!(again, round);
    assert_eq!(build_tree(&round.hashes).root(), round.header().root);
    let mut wrong = round.hashes.clone();
    wrong.swap(0, 1);
    assert!(IssuedRound::from_parts(round.signed.clone(), wrong).is_none());
    assert!(IssuedRound::from_parts(round.signed.clone(), round.hashes[..20].to_vec()).is_none());
}
