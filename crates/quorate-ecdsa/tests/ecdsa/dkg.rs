#![allow(clippy::unwrap_used)]
//! Key generation and refresh: outputs, faults with exact culprits, the agreement step
//! (equivocation evidence), pending/commit/abandon, identity-key rotation, BIP32.

use crate::common::*;
use k256::elliptic_curve::ops::MulByGenerator;
use k256::{ProjectivePoint, Scalar};
use quorate_core::{PartyId, ThresholdParams};
use quorate_ecdsa::keygen::{
    self, agreement, DkgFault, DkgMsg2, DkgMsg3, DkgMsg4, EpochCertificate, EquivocationEvidence,
    PendingRefresh,
};
use quorate_ecdsa::{EcdsaError, KeyShare, SessionId};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

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
    // P1 never acknowledges, so P3 outputs no share either (the agreement step).
    assert_eq!(
        res[2].as_ref().unwrap_err(),
        &EcdsaError::MissingMessage { from: pid(1) }
    );
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
    for r in &res[1..] {
        assert_eq!(
            r.as_ref().unwrap_err(),
            &EcdsaError::MissingMessage { from: pid(1) }
        );
    }
}

#[test]
fn identity_keys_are_the_roster_and_rotate_at_refresh() {
    let shares = keygen(2, 3, 60);
    for s in &shares {
        assert_eq!(s.identity_keys(), &roster(60, 3)[..]);
    }
    let fresh = refresh(&shares, 61);
    for new in &fresh {
        // The refresh announced `identity(61, ·)`: every party holds the new keys.
        assert_eq!(new.identity_keys(), &roster(61, 3)[..]);
        assert_eq!(new.setup_transcript(), fresh[0].setup_transcript());
    }
    assert_ne!(shares[0].identity_keys(), fresh[0].identity_keys());
    // The rotated keys sign: three signers use the identity signatures.
    let mut fresh = fresh;
    let d = digest("rotated");
    let sig = run_sign(&mut fresh, &[1, 2, 3], &d, 62, SignFault::None).unwrap();
    check_external(&shares[0].public_key(), &d, &sig);
}

#[test]
fn agreement_faults_name_the_sender() {
    // A broadcast signature that does not verify (P2's round-2 message to P1).
    let tamper2 = |from, to, m: &mut DkgMsg2| {
        if (from, to) == (pid(2), pid(1)) {
            m.corrupt_signature_for_test();
        }
    };
    let run = DkgRun {
        tamper2: &tamper2,
        ..Default::default()
    };
    let res = run_dkg(2, 3, 70, None, run);
    let err = res[0].as_ref().unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some("DKG: broadcast signature"));
    // An acknowledgement that does not sign the transcript (P3's round-4 broadcast).
    let tamper4 = |from, m: &mut DkgMsg4| {
        if from == pid(3) {
            m.corrupt_ack_for_test();
        }
    };
    let run = DkgRun {
        tamper4: &tamper4,
        ..Default::default()
    };
    for r in &run_dkg(2, 3, 71, None, run)[..2] {
        let err = r.as_ref().unwrap_err();
        assert_eq!(err.culprits(), &[pid(3)]);
        assert_eq!(err.check(), Some(agreement::CHECK_ACK));
    }
    // An echo of P1's digest with a broken signature, by P2: P2 is named, not P1.
    let tamper4 = |from, m: &mut DkgMsg4| {
        if from == pid(2) {
            m.corrupt_echo_for_test(pid(1));
        }
    };
    let run = DkgRun {
        tamper4: &tamper4,
        ..Default::default()
    };
    let res = run_dkg(2, 3, 72, None, run);
    for k in [0, 2] {
        let err = res[k].as_ref().unwrap_err();
        assert_eq!(err.culprits(), &[pid(2)]);
        assert_eq!(err.check(), Some(agreement::CHECK_ECHO));
    }
}

/// One protocol instance in a split run: the party it plays and, for the equivocator's
/// instances, the only party it talks to.
struct Actor {
    id: PartyId,
    only_to: Option<PartyId>,
}

/// Delivers every actor's messages to every actor of the recipient party (an instance
/// with `only_to` sends to that party only). Returns one inbox per actor.
fn deliver<M: Clone>(actors: &[Actor], outs: Vec<Vec<(PartyId, M)>>) -> Vec<Vec<(PartyId, M)>> {
    let mut inbox: Vec<Vec<(PartyId, M)>> = actors.iter().map(|_| Vec::new()).collect();
    for (a, msgs) in actors.iter().zip(outs) {
        for (to, m) in msgs {
            if a.only_to.is_some_and(|o| o != to) {
                continue;
            }
            for (b, actor) in actors.iter().enumerate() {
                if actor.id == to {
                    inbox[b].push((a.id, m.clone()));
                }
            }
        }
    }
    inbox
}

/// The review's attack on a 2-of-3 key generation (or refresh of `old`): P3 runs two honest
/// instances, one towards P1 and one towards P2, so each honest party sees a consistent but
/// different P3. Returns what the honest P1 and P2 get from the agreement step, and whether
/// their pending refresh transcripts differ (refresh only).
fn split_run(seed: u64, old: Option<&[KeyShare]>) -> (Vec<EcdsaError>, bool) {
    let params = ThresholdParams::new(2, 3).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let session = SessionId::new(format!("split-{seed}").into_bytes());
    let ros = roster(seed, 3);
    let actors = [
        Actor {
            id: pid(1),
            only_to: None,
        },
        Actor {
            id: pid(2),
            only_to: None,
        },
        Actor {
            id: pid(3),
            only_to: Some(pid(1)),
        },
        Actor {
            id: pid(3),
            only_to: Some(pid(2)),
        },
    ];
    let mut st1 = Vec::new();
    let mut out = Vec::new();
    for a in &actors {
        let id = identity(seed, a.id);
        let (st, m) = match old {
            // The equivocator runs its second instance from an independent copy of its
            // share (a copy refuses a second refresh under one session id).
            Some(o) => {
                let own = KeyShare::from_bytes(&o[a.id.position()].to_bytes()).unwrap();
                keygen::refresh_round1(&own, &session, id, &mut rng)
            }
            None => keygen::round1(params, a.id, &session, id, &ros, &mut rng),
        }
        .unwrap();
        st1.push(st);
        out.push(m);
    }
    let inbox = deliver(&actors, out);
    let (mut st2, mut out) = (Vec::new(), Vec::new());
    for (st, msgs) in st1.into_iter().zip(inbox) {
        let (st, m) = keygen::round2(st, &msgs, &mut rng).unwrap();
        st2.push(st);
        out.push(m);
    }
    let inbox = deliver(&actors, out);
    let (mut st3, mut out) = (Vec::new(), Vec::new());
    for (st, msgs) in st2.into_iter().zip(inbox) {
        // Every instance's checks pass: each sees one consistent P3.
        let (st, m) = keygen::round3(st, &msgs, &mut rng).unwrap();
        st3.push(st);
        out.push(m);
    }
    let inbox = deliver(&actors, out);
    let (mut st4, mut out) = (Vec::new(), Vec::new());
    for ((st, msgs), a) in st3.into_iter().zip(inbox).zip(&actors) {
        let (st, m) = keygen::round4(st, &msgs).unwrap();
        st4.push(st);
        out.push(to_others(&[pid(1), pid(2), pid(3)], a.id, &m));
    }
    let split = match (st4[0].pending(), st4[1].pending()) {
        (Some(p1), Some(p2)) => p1.transcript() != p2.transcript(),
        _ => false,
    };
    let inbox = deliver(&actors, out);
    let errs = st4
        .into_iter()
        .zip(inbox)
        .take(2)
        .map(|(st, msgs)| match old {
            Some(_) => keygen::certify(st, &msgs).map(|_| ()),
            None => keygen::finish(st, &msgs).map(|_| ()),
        })
        .map(|r| r.expect_err("an honest party output a share despite the split"))
        .collect();
    (errs, split)
}

#[test]
fn equivocation_in_keygen_names_the_sender_and_no_share_is_output() {
    let (errs, _) = split_run(80, None);
    for err in &errs {
        assert_eq!(err.culprits(), &[pid(3)]);
        assert_eq!(err.check(), Some(agreement::CHECK_EQUIVOCATION));
        let EcdsaError::Equivocated(ev) = err else {
            panic!("expected evidence, got {err:?}");
        };
        assert_eq!(ev.verify(&roster(80, 3)).unwrap(), pid(3));
    }
}

#[test]
fn equivocation_in_refresh_names_the_sender_and_no_share_is_output() {
    let shares = keygen(2, 3, 81);
    let (errs, split) = split_run(82, Some(&shares));
    // The attack worked up to the agreement step: the honest parties' pending shares differ.
    assert!(split);
    for err in &errs {
        assert_eq!(err.culprits(), &[pid(3)]);
        let EcdsaError::Equivocated(ev) = err else {
            panic!("expected evidence, got {err:?}");
        };
        // A refresh is signed with the keys of the epoch it refreshes.
        assert_eq!(ev.verify(shares[0].identity_keys()).unwrap(), pid(3));
        assert_eq!(ev.epoch(), 1);
    }
    // The old shares are untouched and still sign.
    let mut old = shares.clone();
    let d = digest("after a failed refresh");
    let sig = run_sign(&mut old, &[1, 2], &d, 83, SignFault::None).unwrap();
    check_external(&shares[0].public_key(), &d, &sig);
}

#[test]
fn equivocation_evidence_is_transferable_and_forgeries_are_rejected() {
    let (errs, _) = split_run(84, None);
    let EcdsaError::Equivocated(ev) = &errs[0] else {
        panic!("expected evidence");
    };
    let ros = roster(84, 3);
    // Through the encoding, a third party checks it against the roster.
    let decoded = EquivocationEvidence::from_bytes(&ev.to_bytes()).unwrap();
    assert_eq!(decoded.verify(&ros).unwrap(), pid(3));
    // Against another roster it proves nothing.
    assert!(matches!(
        decoded.verify(&roster(85, 3)),
        Err(EcdsaError::ProofRejected(_))
    ));
    // A tampered signature is rejected.
    let mut tampered = (**ev).clone();
    tampered.tamper_for_test();
    assert!(tampered.verify(&ros).is_err());
    // P1 cannot frame P2 with its own key; P2's key can (the check is meaningful).
    let framed = EquivocationEvidence::forge_for_test(
        ev.key_id(),
        ev.epoch(),
        b"split-84",
        pid(2),
        &identity(84, pid(1)),
    );
    assert!(framed.verify(&ros).is_err());
    let genuine = EquivocationEvidence::forge_for_test(
        ev.key_id(),
        ev.epoch(),
        b"split-84",
        pid(2),
        &identity(84, pid(2)),
    );
    assert_eq!(genuine.verify(&ros).unwrap(), pid(2));
}

#[test]
fn an_old_identity_key_cannot_frame_a_party_in_a_later_epoch() {
    let shares = keygen(2, 3, 90);
    let fresh = refresh(&shares, 91);
    // Evidence about the next refresh (epoch 2), forged with P2's epoch-0 key (leaked after
    // the rotation), does not verify against the epoch-1 keys that sign that refresh.
    let old_key = identity(90, pid(2));
    let forged =
        EquivocationEvidence::forge_for_test(fresh[0].key_id(), 2, b"later", pid(2), &old_key);
    assert!(forged.verify(fresh[0].identity_keys()).is_err());
    // The same statement under P2's current key would verify: rotation is what stops it.
    let current = identity(91, pid(2));
    let real =
        EquivocationEvidence::forge_for_test(fresh[0].key_id(), 2, b"later", pid(2), &current);
    assert_eq!(real.verify(fresh[0].identity_keys()).unwrap(), pid(2));
    // The next refresh runs under the rotated keys: its own honest run agrees.
    let again = refresh(&fresh, 92);
    assert_eq!(again[0].epoch(), 2);
    assert_eq!(again[0].identity_keys(), &roster(92, 3)[..]);
}

#[test]
fn a_refresh_that_fails_at_one_party_leaves_everyone_on_the_old_epoch() {
    let shares = keygen(2, 3, 100);
    // P3's bootstrap extension to P1 is inconsistent: P1 fails in round 4 and never
    // acknowledges, so no party gets a certificate.
    let tamper3 = |from, to, m: &mut DkgMsg3| {
        if (from, to) == (pid(3), pid(1)) {
            m.corrupt_for_test();
        }
    };
    let run = DkgRun {
        tamper3: &tamper3,
        ..Default::default()
    };
    let at = run_to_agreement(2, 3, 101, Some(&shares), run);
    assert_eq!(at[0].as_ref().unwrap_err().culprits(), &[pid(3)]);
    let mut pendings = Vec::new();
    for r in at.into_iter().skip(1) {
        let (st, msgs) = r.unwrap();
        pendings.push(PendingRefresh::from_bytes(&st.pending().unwrap().to_bytes()).unwrap());
        let err = keygen::certify(st, &msgs).unwrap_err();
        assert_eq!(err, EcdsaError::MissingMessage { from: pid(1) });
    }
    // Without a certificate nobody moves; the pending shares are abandoned.
    for p in pendings {
        assert_eq!(p.epoch(), 1);
        p.abandon();
    }
    let mut old = shares.clone();
    for s in &old {
        assert_eq!(s.epoch(), 0);
    }
    // A retry must take a new session id: the shares refuse the old one (two signed
    // broadcasts under one statement would let a party frame this one).
    let session = SessionId::new(b"test-dkg-101".to_vec());
    let mut rng = ChaCha20Rng::seed_from_u64(103);
    let reuse = keygen::refresh_round1(&shares[1], &session, identity(104, pid(2)), &mut rng);
    assert!(matches!(reuse, Err(EcdsaError::Param(_))));
    let d = digest("still epoch 0");
    for set in [[1u16, 2], [2, 3], [1, 3]] {
        let sig = run_sign(&mut old, &set, &d, 102, SignFault::None).unwrap();
        check_external(&shares[0].public_key(), &d, &sig);
    }
}

#[test]
fn a_certified_refresh_moves_everyone_and_bad_certificates_are_refused() {
    let shares = keygen(2, 3, 110);
    let pk = shares[0].public_key();
    let at = run_to_agreement(2, 3, 111, Some(&shares), DkgRun::default());
    let mut pendings = Vec::new();
    let mut certs = Vec::new();
    for r in at {
        let (st, msgs) = r.unwrap();
        pendings.push(PendingRefresh::from_bytes(&st.pending().unwrap().to_bytes()).unwrap());
        certs.push(keygen::certify(st, &msgs).unwrap().1);
    }
    // Every party certified the same thing; one certificate serves all (transferable).
    assert!(certs.iter().all(|c| *c == certs[0]));
    let cert = EpochCertificate::from_bytes(&certs[0].to_bytes()).unwrap();
    let mut current = shares.clone();
    // Incomplete: one acknowledgement missing.
    let mut short = cert.clone();
    short.truncate_for_test();
    // Forged: P2's acknowledgement made with a key outside the roster (P2's next key).
    let mut forged = cert.clone();
    forged.forge_for_test(pid(2), &identity(111, pid(2)));
    for (p, cur) in pendings.iter().zip(current.iter_mut()) {
        for bad in [&short, &forged] {
            assert!(matches!(
                p.commit(cur, bad),
                Err(EcdsaError::ProofRejected(_))
            ));
            assert_eq!(cur.epoch(), 0, "a refused commit leaves the old share");
        }
    }
    // The old shares still sign before the commit.
    let d = digest("before commit");
    let sig = run_sign(&mut current, &[1, 3], &d, 112, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
    for (p, cur) in pendings.iter().zip(current.iter_mut()) {
        p.commit(cur, &cert).unwrap();
        assert_eq!(cur.epoch(), 1);
        assert_eq!(cur.public_key(), pk);
        // Committing again (a replay after a crash) onto the new share is refused.
        assert!(p.commit(cur, &cert).is_err());
    }
    for (old, new) in shares.iter().zip(&current) {
        assert_ne!(old.secret_share_for_test(), new.secret_share_for_test());
    }
    let d = digest("after commit");
    for set in [[1u16, 2], [2, 3]] {
        let sig = run_sign(&mut current, &set, &d, 113, SignFault::None).unwrap();
        check_external(&pk, &d, &sig);
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
