//! Negative tests: rogue keys, malleability, malformed signatures, wrong masks, lying
//! leaders, misbehaving children (named by the sans-I/O aggregator), and many concurrent
//! sessions on the same witnesses with nonce-reuse refusal.

use crate::common::{accept_any, dalek_verify_strict, setup, witnesses};
use curve25519_dalek::edwards::EdwardsPoint;
use curve25519_dalek::scalar::Scalar;
use quorate_core::error::Culprits;
use quorate_core::DecodeError;
use quorate_cosi::error::witness_id;
use quorate_cosi::*;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::HashSet;
use std::sync::Arc;

const MSG: &[u8] = b"release v1.2.3 sha256:abcd";

fn signed(n: usize, seed: u64, absent: &[usize]) -> (Arc<Roster>, Vec<SecretKey>, Signature) {
    let (roster, keys, mut rng) = setup(n, seed);
    let tree = Tree::three_level(n).expect("tree");
    let (sig, _) = sign_in_process(
        &roster,
        &mut witnesses(&roster, &keys),
        &tree,
        MSG,
        &Policy::Threshold(1),
        &Scenario::default().with_absent(absent.iter().copied()),
        &mut rng,
    )
    .expect("signs");
    (roster, keys, sig)
}

#[test]
fn rogue_keys_are_rejected_at_registration() {
    let (_, keys, mut rng) = setup(5, 1);
    let mut entries: Vec<RosterEntry> = keys.iter().map(|k| k.roster_entry(&mut rng)).collect();
    // The attacker knows `a` and registers A_evil = a·B − ΣA_honest, so that the aggregate
    // would be a·B and it alone could sign "for everyone".
    let a = Scalar::random(&mut rng);
    let honest: EdwardsPoint = entries.iter().map(|e| e.public_key.point()).sum();
    let evil_point = EdwardsPoint::mul_base(&a) - honest;
    let evil = PublicKey::from_bytes(&evil_point.compress().to_bytes()).expect("a valid point");
    // Why the proof of possession matters: the aggregate with the rogue key is a·B.
    let aggregate: EdwardsPoint = honest + evil.point();
    assert_eq!(aggregate, EdwardsPoint::mul_base(&a));

    // 1. A proof made with `a` (the attacker's real knowledge) is not a proof for A_evil.
    let attacker = SecretKey::from_bytes(&a.to_bytes()).expect("key");
    let forged = attacker.prove_possession(&mut rng);
    let mut rogue = entries.clone();
    rogue.push(RosterEntry {
        public_key: evil,
        pop: forged,
    });
    assert_eq!(
        Roster::new(rogue),
        Err(CosiError::InvalidProofOfPossession {
            witnesses: vec![witness_id(5)]
        })
    );
    // 2. Replaying another witness's proof.
    let mut replay = entries.clone();
    replay.push(RosterEntry {
        public_key: evil,
        pop: entries[2].pop,
    });
    assert_eq!(
        Roster::new(replay),
        Err(CosiError::InvalidProofOfPossession {
            witnesses: vec![witness_id(5)]
        })
    );
    // 3. An honest key with a proof for another key.
    entries[1].pop = entries[0].pop;
    assert_eq!(
        Roster::new(entries.clone()),
        Err(CosiError::InvalidProofOfPossession {
            witnesses: vec![witness_id(1)]
        })
    );
    // 4. Byte-level registration naming the bad key.
    entries[1] = keys[1].roster_entry(&mut rng);
    let mut bytes: Vec<[u8; 96]> = entries.iter().map(|e| e.to_bytes()).collect();
    assert!(Roster::from_entry_bytes(&bytes).is_ok());
    bytes[3][..32].copy_from_slice(
        &curve25519_dalek::edwards::EdwardsPoint::default()
            .compress()
            .to_bytes(),
    );
    assert!(matches!(
        Roster::from_entry_bytes(&bytes),
        Err(CosiError::InvalidKey {
            witness,
            source: DecodeError::Identity { .. }
        }) if witness == witness_id(3)
    ));
    // Small-order and mixed-order keys, and a non-canonical encoding.
    let torsion = curve25519_dalek::constants::EIGHT_TORSION[3];
    bytes[3] = entries[3].to_bytes();
    bytes[2][..32].copy_from_slice(&torsion.compress().to_bytes());
    assert!(matches!(
        Roster::from_entry_bytes(&bytes),
        Err(CosiError::InvalidKey {
            witness,
            source: DecodeError::NotInSubgroup { .. }
        }) if witness == witness_id(2)
    ));
    let mixed = entries[2].public_key.point() + torsion;
    bytes[2][..32].copy_from_slice(&mixed.compress().to_bytes());
    assert!(matches!(
        Roster::from_entry_bytes(&bytes),
        Err(CosiError::InvalidKey {
            witness,
            source: DecodeError::NotInSubgroup { .. }
        }) if witness == witness_id(2)
    ));
    bytes[2] = entries[2].to_bytes();
    let mut y1p = [0xffu8; 32];
    y1p[0] = 0xee;
    y1p[31] = 0x7f;
    bytes[4][..32].copy_from_slice(&y1p);
    assert!(matches!(
        Roster::from_entry_bytes(&bytes),
        Err(CosiError::InvalidKey {
            witness,
            source: DecodeError::NonCanonical { .. }
        }) if witness == witness_id(4)
    ));
    bytes[4] = entries[4].to_bytes();
    assert!(Roster::from_entry_bytes(&bytes).is_ok());
    // Duplicates are named too.
    bytes[0] = bytes[4];
    assert_eq!(
        Roster::from_entry_bytes(&bytes),
        Err(CosiError::DuplicateKey {
            first: witness_id(0),
            second: witness_id(4)
        })
    );
}

#[test]
fn a_proof_of_possession_is_never_an_ed25519_signature() {
    let (_, keys, mut rng) = setup(1, 2);
    let pop = keys[0].prove_possession(&mut rng);
    let vk =
        ed25519_dalek::VerifyingKey::from_bytes(&keys[0].public_key().to_bytes()).expect("key");
    let sig = ed25519_dalek::Signature::from_bytes(&pop.to_bytes());
    for m in [
        &b""[..],
        b"quorate/cosi/pop/v1",
        keys[0].public_key().as_bytes(),
    ] {
        assert!(vk.verify_strict(m, &sig).is_err());
    }
    assert!(pop.verify(keys[0].public_key()));
}

#[test]
fn s_plus_l_is_rejected() {
    let (roster, _, sig) = signed(7, 3, &[]);
    let mut bytes = sig.to_bytes();
    // s + L as a 256-bit little-endian integer (s < L < 2^253, so no overflow).
    let l: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut carry = 0u16;
    for i in 0..32 {
        let v = u16::from(bytes[32 + i]) + u16::from(l[i]) + carry;
        bytes[32 + i] = v as u8;
        carry = v >> 8;
    }
    assert_eq!(carry, 0);
    assert_eq!(
        Signature::from_bytes(&bytes, 7),
        Err(DecodeError::NonCanonical { what: "s" })
    );
    assert!(matches!(
        roster.verify_bytes(MSG, &bytes, &Policy::Complete),
        Err(CosiError::Decode(DecodeError::NonCanonical { what: "s" }))
    ));
    // ed25519-dalek agrees.
    let vk = ed25519_dalek::VerifyingKey::from_bytes(&roster.aggregate_key()).expect("A");
    let mut rs = [0u8; 64];
    rs.copy_from_slice(&bytes[..64]);
    assert!(vk
        .verify_strict(MSG, &ed25519_dalek::Signature::from_bytes(&rs))
        .is_err());
    assert!(dalek_verify_strict(&roster.aggregate_key(), MSG, &sig));
}

#[test]
fn wrong_masks_are_rejected() {
    let n = 20;
    let (roster, _, sig) = signed(n, 4, &[3, 11]);
    roster
        .verify(MSG, &sig, &Policy::Threshold(18))
        .expect("valid");
    let bytes = sig.to_bytes();
    // Claim witness 3 signed too.
    let mut more = bytes.clone();
    more[64] |= 1 << 3;
    assert_eq!(
        roster.verify_bytes(MSG, &more, &Policy::Threshold(18)),
        Err(CosiError::InvalidSignature(VerifyFailure::Equation))
    );
    // Drop witness 0.
    let mut fewer = bytes.clone();
    fewer[64] &= !1;
    assert_eq!(
        roster.verify_bytes(MSG, &fewer, &Policy::Threshold(17)),
        Err(CosiError::InvalidSignature(VerifyFailure::Equation))
    );
    // Empty mask.
    let mut none = bytes.clone();
    for b in &mut none[64..] {
        *b = 0;
    }
    assert_eq!(
        roster.verify_bytes(MSG, &none, &Policy::Threshold(1)),
        Err(CosiError::InvalidSignature(VerifyFailure::NoParticipants))
    );
    // Padding bits (n = 20: bits 4..7 of byte 2).
    let mut pad = bytes.clone();
    pad[66] |= 0x80;
    assert!(matches!(
        roster.verify_bytes(MSG, &pad, &Policy::Threshold(1)),
        Err(CosiError::Decode(DecodeError::InvalidValue {
            what: "mask",
            ..
        }))
    ));
    // A mask for a different roster size.
    assert!(matches!(
        Signature::from_bytes(&bytes, 25),
        Err(DecodeError::WrongLength { .. })
    ));
    let (other, _, _) = signed(30, 5, &[]);
    assert!(matches!(
        other.verify_bytes(MSG, &bytes, &Policy::Threshold(1)),
        Err(CosiError::Decode(DecodeError::WrongLength { .. }))
    ));
}

#[test]
fn every_single_byte_corruption_is_rejected_with_a_typed_error() {
    let n = 13;
    let (roster, _, sig) = signed(n, 6, &[2]);
    let bytes = sig.to_bytes();
    let policy = Policy::Threshold(1);
    roster.verify_bytes(MSG, &bytes, &policy).expect("valid");
    for pos in 0..bytes.len() {
        for flip in [0x01u8, 0x02, 0x10, 0x40, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[pos] ^= flip;
            match roster.verify_bytes(MSG, &b, &policy) {
                Err(CosiError::Decode(_)) | Err(CosiError::InvalidSignature(_)) => {}
                other => panic!("byte {pos} ^ {flip:#x}: {other:?}"),
            }
        }
    }
    // Truncations and extensions.
    for len in 0..bytes.len() {
        assert!(matches!(
            roster.verify_bytes(MSG, &bytes[..len], &policy),
            Err(CosiError::Decode(DecodeError::WrongLength { .. }))
        ));
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        roster.verify_bytes(MSG, &long, &policy),
        Err(CosiError::Decode(DecodeError::WrongLength { .. }))
    ));
    // Garbage of the right length.
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    for _ in 0..500 {
        let mut g = vec![0u8; bytes.len()];
        rng.fill_bytes(&mut g);
        assert!(roster.verify_bytes(MSG, &g, &policy).is_err());
    }
}

#[test]
fn small_order_r_is_rejected_like_verify_strict() {
    let (roster, _, sig) = signed(4, 8, &[]);
    let mut bytes = sig.to_bytes();
    let torsion = curve25519_dalek::constants::EIGHT_TORSION[4];
    bytes[..32].copy_from_slice(&torsion.compress().to_bytes());
    assert_eq!(
        roster.verify_bytes(MSG, &bytes, &Policy::Complete),
        Err(CosiError::InvalidSignature(VerifyFailure::SmallOrderNonce))
    );
    // A non-canonical encoding of R (y + p for small y) is a decode error.
    let mut nc = sig.to_bytes();
    nc[..32].copy_from_slice(&{
        let mut y = [0xffu8; 32];
        y[0] = 0xee; // y = 1 + p, the identity encoded non-canonically
        y[31] = 0x7f;
        y
    });
    assert_eq!(
        Signature::from_bytes(&nc, 4),
        Err(DecodeError::NonCanonical { what: "R" })
    );
}

/// Runs round 1 of a star (root 0, all others leaves) for `session` and returns the root's
/// aggregator, the witnesses' nonce states and the challenge.
fn star_round1(
    tree: &Arc<KeyTree>,
    witnesses: &mut [Witness],
    session: &[u8],
    message: &[u8],
    rng: &mut ChaCha20Rng,
) -> (
    AggregatorAwaitingChallenge,
    Vec<Option<CommittedWitness>>,
    Challenge,
) {
    let ann = Announcement::new(SessionId::new(session.to_vec()), message.to_vec());
    let mut agg = Aggregator::new(tree.clone(), 0, &ann).expect("aggregator");
    let mut states = Vec::new();
    for w in witnesses.iter_mut() {
        let (s, c) = w.commit(&ann, rng).expect("commit");
        agg.add_commitment(c).expect("accepted");
        states.push(Some(s));
    }
    let (aw, total) = agg.finish_commitments().expect("finish");
    let ch = Challenge::new(&total, message.to_vec());
    (aw, states, ch)
}

#[test]
fn aggregators_name_children_with_bad_responses() {
    let n = 9;
    let (roster, keys, mut rng) = setup(n, 9);
    let tree = Arc::new(KeyTree::new(roster.clone(), Tree::star(n).expect("star")).expect("kt"));
    for check in [ChildCheck::Batched, ChildCheck::Optimistic] {
        let mut ws: Vec<Witness> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness"))
            .collect();
        let (aw, mut states, ch) = star_round1(&tree, &mut ws, b"s", MSG, &mut rng);
        let mut col = aw.receive_challenge(&ch).expect("challenge ok");
        for (i, w) in ws.iter_mut().enumerate() {
            let r = w
                .respond(states[i].take().expect("state"), &ch)
                .expect("respond");
            let r = if i == 4 || i == 7 {
                r.with_s(r.s() + Scalar::from(3u8))
            } else {
                r
            };
            col.add_response(r).expect("accepted");
        }
        let err = col.finish(check, &mut rng).expect_err("bad partials");
        assert_eq!(
            err.culprits()
                .iter()
                .map(|p| p.position())
                .collect::<Vec<_>>(),
            vec![4, 7]
        );
        assert_eq!(
            err.culprits().iter().map(|p| p.get()).collect::<Vec<_>>(),
            vec![5, 8]
        );
    }
    // Missing responses are named too; duplicates and strangers are refused.
    let mut ws: Vec<Witness> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness"))
        .collect();
    let (aw, mut states, ch) = star_round1(&tree, &mut ws, b"t", MSG, &mut rng);
    let mut col = aw.receive_challenge(&ch).expect("ok");
    let mut first = None;
    for (i, w) in ws.iter_mut().enumerate() {
        let r = w
            .respond(states[i].take().expect("state"), &ch)
            .expect("ok");
        if i == 1 {
            first = Some(r.clone());
        }
        if i != 3 {
            col.add_response(r).expect("accepted");
        }
    }
    let dup = first.expect("response 1");
    assert_eq!(
        col.add_response(dup).map_err(|e| e
            .culprits()
            .iter()
            .map(|p| p.position())
            .collect::<Vec<_>>()),
        Err(vec![1])
    );
    let err = col
        .finish(ChildCheck::Batched, &mut rng)
        .expect_err("missing");
    assert_eq!(
        err.culprits()
            .iter()
            .map(|p| p.position())
            .collect::<Vec<_>>(),
        vec![3]
    );
}

#[test]
fn nodes_recompute_the_challenge_and_refuse_a_lying_leader() {
    let n = 9;
    let (roster, keys, mut rng) = setup(n, 10);
    let tree =
        Arc::new(KeyTree::new(roster.clone(), Tree::complete(n, 2).expect("tree")).expect("kt"));
    let mut ws: Vec<Witness> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness"))
        .collect();
    let ann = Announcement::new(SessionId::new(b"lying".to_vec()), MSG.to_vec());
    // Subtree of node 1 = {1, 3, 4, 7, 8}; aggregate it.
    let mut states: Vec<Option<CommittedWitness>> = (0..n).map(|_| None).collect();
    let mut commits: Vec<Option<Commitment>> = vec![None; n];
    for (i, w) in ws.iter_mut().enumerate() {
        let (s, c) = w.commit(&ann, &mut rng).expect("commit");
        states[i] = Some(s);
        commits[i] = Some(c);
    }
    let mut a3 = Aggregator::new(tree.clone(), 3, &ann).expect("agg");
    for i in [3, 7, 8] {
        a3.add_commitment(commits[i].take().expect("c"))
            .expect("ok");
    }
    let (aw3, c3) = a3.finish_commitments().expect("finish");
    // A child may not claim witnesses outside its subtree.
    let mut a1 = Aggregator::new(tree.clone(), 1, &ann).expect("agg");
    let stranger = commits[5].clone().expect("c5");
    assert_eq!(
        a1.add_commitment(stranger).map_err(|e| e
            .culprits()
            .iter()
            .map(|p| p.position())
            .collect::<Vec<_>>()),
        Err(vec![5])
    );
    // The leader drops witness 8 from the mask although it committed.
    let mut fake_mask = c3.mask().clone();
    fake_mask.remove(8).expect("in range");
    let ch = Challenge::new(&c3, MSG.to_vec());
    let lying = {
        // Re-encode the challenge with the altered mask.
        let mut bytes = ch.to_bytes();
        let sid_len = 2 + b"lying".len();
        let mask_at = 2 + sid_len + 1 + 64;
        bytes[mask_at..mask_at + fake_mask.as_bytes().len()].copy_from_slice(fake_mask.as_bytes());
        Challenge::from_bytes(&bytes, n).expect("decodes")
    };
    assert_eq!(
        aw3.receive_challenge(&lying).err(),
        Some(CosiError::InvalidChallenge {
            check: "challenge mask disagrees with this subtree's commitments"
        })
    );
    // Witness 8 itself refuses (and its nonces are gone for good).
    let s8 = states[8].take().expect("state");
    assert_eq!(
        ws[8].respond(s8, &lying).err(),
        Some(CosiError::InvalidChallenge {
            check: "challenge mask does not include this witness"
        })
    );
    // An honest witness whose session was announced with a message refuses another one.
    let ann2 = Announcement {
        session: SessionId::new(b"with message".to_vec()),
        mode: Mode::TwoNonce,
        message: MSG.to_vec(),
    };
    let (s0, c0) = ws[0].commit(&ann2, &mut rng).expect("commit");
    let other = Challenge::new(&c0, b"something else".to_vec());
    assert!(matches!(
        ws[0].respond(s0, &other),
        Err(CosiError::InvalidChallenge { .. })
    ));
}

#[test]
fn concurrent_sessions_interleaved_all_verify_and_never_reuse_nonces() {
    let n = 7;
    let sessions = 24;
    let (roster, keys, mut rng) = setup(n, 11);
    let tree = Arc::new(KeyTree::new(roster.clone(), Tree::star(n).expect("star")).expect("kt"));
    let mut ws: Vec<Witness> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness"))
        .collect();
    // Round 1 of every session first (every witness takes part in every session).
    let mut rounds = Vec::new();
    let mut nonces = HashSet::new();
    for k in 0..sessions {
        let msg = format!("message {k}").into_bytes();
        let ann = Announcement::new(
            SessionId::new(format!("session {k}").into_bytes()),
            msg.clone(),
        );
        let mut agg = Aggregator::new(tree.clone(), 0, &ann).expect("agg");
        let mut states = Vec::new();
        for w in ws.iter_mut() {
            let (s, c) = w.commit(&ann, &mut rng).expect("commit");
            assert!(nonces.insert(c.r1().compress().to_bytes()));
            assert!(nonces.insert(c.r2().compress().to_bytes()));
            agg.add_commitment(c).expect("ok");
            states.push(Some(s));
        }
        // Committing twice in a session is refused.
        assert_eq!(
            ws[2].commit(&ann, &mut rng).err(),
            Some(CosiError::SessionReused {
                witness: witness_id(2)
            })
        );
        let (aw, total) = agg.finish_commitments().expect("finish");
        let ch = Challenge::new(&total, msg.clone());
        let col = aw.receive_challenge(&ch).expect("ok");
        rounds.push((col, states, ch, msg));
    }
    // Responses in a random order across sessions and witnesses.
    let mut order: Vec<(usize, usize)> = (0..sessions)
        .flat_map(|k| (0..n).map(move |i| (k, i)))
        .collect();
    order.shuffle(&mut rng);
    for (k, i) in order {
        let (col, states, ch, _) = &mut rounds[k];
        let state = states[i].take().expect("unused state");
        let r = ws[i].respond(state, ch).expect("respond");
        col.add_response(r).expect("ok");
    }
    for (k, (col, _, _, msg)) in rounds.into_iter().enumerate() {
        let ctx = col.context().clone();
        let total = col
            .finish(ChildCheck::Batched, &mut rng)
            .expect("all valid");
        let sig = ctx
            .finalize(&roster, &total, &Policy::Complete)
            .expect("verifies");
        roster
            .verify(&msg, &sig, &Policy::Complete)
            .expect("verifies");
        assert!(
            dalek_verify_strict(&roster.aggregate_key(), &msg, &sig),
            "session {k}"
        );
    }
    // A witness refuses to commit again in any finished session.
    for k in 0..sessions {
        let ann = Announcement::new(
            SessionId::new(format!("session {k}").into_bytes()),
            MSG.to_vec(),
        );
        assert_eq!(
            ws[0].commit(&ann, &mut rng).err(),
            Some(CosiError::SessionReused {
                witness: witness_id(0)
            })
        );
    }
    // A state cannot answer another session's challenge, and is destroyed by trying.
    let (aw_a, mut sa, ch_a) = star_round1(&tree, &mut ws, b"A", MSG, &mut rng);
    let (_aw_b, _sb, ch_b) = star_round1(&tree, &mut ws, b"B", MSG, &mut rng);
    drop(aw_a);
    assert!(matches!(
        ws[1].respond(sa[1].take().expect("state"), &ch_b),
        Err(CosiError::InvalidChallenge { .. })
    ));
    // Witness 1's nonces for session A are gone, and it will not commit in A again.
    assert_eq!(
        ws[1]
            .commit(
                &Announcement::new(SessionId::new(b"A".to_vec()), MSG.to_vec()),
                &mut rng
            )
            .err(),
        Some(CosiError::SessionReused {
            witness: witness_id(1)
        })
    );
    let state = sa[2].take().expect("state");
    assert!(ws[2].respond(state, &ch_a).is_ok());
    let foreign = sa[3].take().expect("state");
    assert!(matches!(
        ws[2].respond(foreign, &ch_a),
        Err(CosiError::Misuse { .. })
    ));
}

#[test]
fn legacy_announcement_is_refused_by_default_witnesses_and_aggregators() {
    let n = 3;
    let (roster, keys, mut rng) = setup(n, 13);
    let legacy = Announcement {
        session: SessionId::new(b"legacy".to_vec()),
        mode: Mode::Legacy,
        message: MSG.to_vec(),
    };
    // Whether built from a struct or decoded off the wire, the mode is refused.
    let wire = Announcement::from_bytes(&legacy.to_bytes()).expect("decodes");
    for ann in [&legacy, &wire] {
        for (i, k) in keys.iter().enumerate() {
            let mut w = Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness");
            assert_eq!(
                w.commit(ann, &mut rng).err(),
                Some(CosiError::LegacyRefused {
                    witness: witness_id(i)
                })
            );
            // The refusal used no session: the same id in two-nonce mode still commits.
            let two = Announcement {
                mode: Mode::TwoNonce,
                ..ann.clone()
            };
            assert!(w.commit(&two, &mut rng).is_ok());
        }
        let tree =
            Arc::new(KeyTree::new(roster.clone(), Tree::complete(n, 2).expect("t")).expect("kt"));
        assert_eq!(
            Aggregator::new(tree, 0, ann).err(),
            Some(CosiError::LegacyRefused {
                witness: witness_id(0)
            })
        );
    }
}

#[cfg(feature = "insecure-legacy")]
#[test]
fn legacy_and_two_nonce_states_do_not_mix() {
    let n = 3;
    let (roster, keys, mut rng) = setup(n, 12);
    let mut w = Witness::new_insecure_legacy(roster.clone(), 0, keys[0].clone(), accept_any)
        .expect("witness");
    let ann = Announcement {
        session: SessionId::new(b"legacy".to_vec()),
        mode: Mode::Legacy,
        message: MSG.to_vec(),
    };
    let (state, c) = w.commit(&ann, &mut rng).expect("commit");
    assert!(curve25519_dalek::traits::IsIdentity::is_identity(c.r2()));
    // A two-nonce challenge for the same session is refused.
    let mut bytes = c.to_bytes();
    let mode_at = 2 + 2 + b"legacy".len();
    bytes[mode_at] = 1;
    let two = Commitment::from_bytes(&bytes, n).expect("decodes");
    let ch = Challenge::new(&two, MSG.to_vec());
    assert!(matches!(
        w.respond(state, &ch),
        Err(CosiError::InvalidChallenge { .. })
    ));
    // Keys must match the roster.
    assert_eq!(
        Witness::new(roster, 1, keys[0].clone(), accept_any).err(),
        Some(CosiError::KeyMismatch {
            witness: witness_id(1)
        })
    );
}

/// Witnesses sign only what they checked. The announcement carries the message,
/// the witness's validator must accept it before the witness commits and again before it
/// responds, and the in-process driver leaves a declining witness out of the mask.
#[test]
fn witnesses_sign_only_what_their_validator_accepts() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let n = 5;
    let (roster, keys, mut rng) = setup(n, 14);
    // Commit time: another message is declined, and the session stays unused.
    let mut w = Witness::new(
        roster.clone(),
        1,
        keys[1].clone(),
        ExactMessage(MSG.to_vec()),
    )
    .expect("witness");
    let session = SessionId::new(b"checked".to_vec());
    let bad = Announcement::new(session.clone(), b"something else".to_vec());
    assert!(matches!(
        w.commit(&bad, &mut rng),
        Err(CosiError::Declined { witness, .. }) if witness == witness_id(1)
    ));
    let good = Announcement::new(session, MSG.to_vec());
    let (state, c) = w.commit(&good, &mut rng).expect("commit");
    // Response time: the validator is asked again, and told about the response.
    let willing = Arc::new(AtomicBool::new(true));
    let cosigned = Arc::new(AtomicUsize::new(0));
    struct Flag(Arc<AtomicBool>, Arc<AtomicUsize>);
    impl Validator for Flag {
        fn check(&mut self, _: &[u8]) -> Result<(), String> {
            if self.0.load(Ordering::SeqCst) {
                Ok(())
            } else {
                Err("changed my mind".into())
            }
        }
        fn cosigned(&mut self, _: &[u8]) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }
    let mut f = Witness::new(
        roster.clone(),
        2,
        keys[2].clone(),
        Flag(willing.clone(), cosigned.clone()),
    )
    .expect("witness");
    let ann = Announcement::new(SessionId::new(b"flag".to_vec()), MSG.to_vec());
    let (fs, fc) = f.commit(&ann, &mut rng).expect("commit");
    willing.store(false, Ordering::SeqCst);
    assert!(matches!(
        f.respond(fs, &Challenge::new(&fc, MSG.to_vec())),
        Err(CosiError::Declined { witness, .. }) if witness == witness_id(2)
    ));
    assert_eq!(cosigned.load(Ordering::SeqCst), 0);
    willing.store(true, Ordering::SeqCst);
    let ann = Announcement::new(SessionId::new(b"flag 2".to_vec()), MSG.to_vec());
    let (fs, fc) = f.commit(&ann, &mut rng).expect("commit");
    f.respond(fs, &Challenge::new(&fc, MSG.to_vec()))
        .expect("responds");
    assert_eq!(cosigned.load(Ordering::SeqCst), 1);
    assert!(w.respond(state, &Challenge::new(&c, MSG.to_vec())).is_ok());

    // The driver: witness 3 declines and is left out; with Policy::Complete the round fails
    // and says why.
    let tree = Tree::complete(n, 2).expect("tree");
    let mut ws: Vec<Witness> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let check = move |_: &[u8]| {
                if i == 3 {
                    Err("not what I saw".to_string())
                } else {
                    Ok(())
                }
            };
            Witness::new(roster.clone(), i, k.clone(), check).expect("witness")
        })
        .collect();
    let scenario = Scenario::default();
    let (sig, report) = sign_in_process(
        &roster,
        &mut ws,
        &tree,
        MSG,
        &Policy::Threshold(4),
        &scenario,
        &mut rng,
    )
    .expect("signs without witness 3");
    assert_eq!(report.declined, vec![3]);
    assert!(!sig.mask().contains(3) && sig.mask().count() == 4);
    roster
        .verify(MSG, &sig, &Policy::Threshold(4))
        .expect("verifies");
    let refused = sign_in_process(
        &roster,
        &mut ws,
        &tree,
        MSG,
        &Policy::Complete,
        &scenario,
        &mut rng,
    );
    assert!(
        matches!(refused, Err(CosiError::Declined { witness, ref reason }) if witness == witness_id(3) && reason == "not what I saw"),
        "{refused:?}"
    );
}
