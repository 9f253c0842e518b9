#![allow(clippy::unwrap_used)]
//! Identifiable abort after round 3: the blame round and the dispute round name exactly the culprits.

use crate::common::*;
use quorate_core::PartyId;
use quorate_ecdsa::sign::{blame, dispute, BlameMsg, DisputeMsg, Round3Fault};
use quorate_ecdsa::EcdsaError;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

#[test]
fn wrong_round3_shares_are_named_by_the_blame_round() {
    let d = digest("blame");
    // t = 3: a wrong u_j, then a wrong w_j.
    let mut shares = keygen(3, 4, 30);
    let err = run_sign(
        &mut shares,
        &[1, 2, 4],
        &d,
        1,
        SignFault::Round3(2, Round3Fault::WrongU),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some(blame::CHECK_BLAME));
    let err = run_sign(
        &mut shares,
        &[1, 2, 4],
        &d,
        2,
        SignFault::Round3(4, Round3Fault::WrongW),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(4)]);
    assert_eq!(err.check(), Some(blame::CHECK_BLAME));
    // Nothing was banned (the OT correlations are not involved): the set still signs.
    assert!(!shares[0].is_banned(pid(2)) && !shares[0].is_banned(pid(4)));
    let pk = shares[0].public_key();
    let sig = run_sign(&mut shares, &[1, 2, 4], &d, 3, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
    // t = 2 (no signatures, no echo): a wrong u_j and a wrong w_j.
    let mut shares = keygen(2, 3, 31);
    let err = run_sign(
        &mut shares,
        &[1, 3],
        &d,
        1,
        SignFault::Round3(3, Round3Fault::WrongU),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(3)]);
    assert_eq!(err.check(), Some(blame::CHECK_BLAME));
    let err = run_sign(
        &mut shares,
        &[1, 3],
        &d,
        2,
        SignFault::Round3(1, Round3Fault::WrongW),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
}

#[test]
fn in_an_honest_run_every_blame_proof_verifies() {
    for (t, n, signers) in [
        (2u16, 2u16, vec![1u16, 2]),
        (3, 5, vec![1, 3, 5]),
        (4, 4, vec![1, 2, 3, 4]),
    ] {
        let mut shares = keygen(t, n, 40 + u64::from(n));
        let d = digest("honest blame round");
        // Every proof verifies (asserted inside), so the resolution names nobody.
        let err = run_sign(&mut shares, &signers, &d, 1, SignFault::ForceBlame).unwrap_err();
        assert_eq!(err, EcdsaError::InvalidSignature);
        assert!(err.culprits().is_empty());
        let pk = shares[0].public_key();
        let sig = run_sign(&mut shares, &signers, &d, 2, SignFault::None).unwrap();
        check_external(&pk, &d, &sig);
    }
}

#[test]
fn equivocation_and_lies_are_named_by_the_dispute() {
    let d = digest("equivocation");
    let mut shares = keygen(3, 4, 50);
    // P2 sends P3 a different, validly signed body (a changed ψ towards P1, which P3 does
    // not check): every pairwise check passes, the echo digests differ, and the dispute
    // names P2 from its two signed bodies.
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::Equivocate(2, 3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some(dispute::CHECK_DISPUTE));
    let err = run_sign(
        &mut shares,
        &[1, 2, 3, 4],
        &d,
        2,
        SignFault::Equivocate(4, 1),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(4)]);
    // P1 opens R_1 + G to P3 and R_1 to P2 (each opening matches the
    // commitment its recipient got, and the multiplication with P3 used r_1 + 1, so every
    // pairwise check passes). The bodies differ only in R_1; the dispute names P1.
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 7, SignFault::EquivocateR(1, 3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
    assert_eq!(err.check(), Some(dispute::CHECK_DISPUTE));
    // With two signers there is nobody to equivocate to: the victim combines for another R
    // and the blame round names the deviating signer.
    let mut two = keygen(2, 4, 51);
    let err = run_sign(&mut two, &[2, 4], &d, 8, SignFault::EquivocateR(4, 2)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(4)]);
    assert_eq!(err.check(), Some(blame::CHECK_BLAME));
    // P3 broadcasts a wrong echo digest; its published bodies do not hash to it.
    let err = run_sign(
        &mut shares,
        &[1, 2, 3],
        &d,
        3,
        SignFault::Round3(3, Round3Fault::WrongEcho),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(3)]);
    assert_eq!(err.check(), Some(dispute::CHECK_DISPUTE));
    // P2 lies with a wrong echo and publishes a body with a forged signature.
    let err = run_sign(&mut shares, &[2, 3, 4], &d, 4, SignFault::LiarForges(2)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    // A bad identity signature on a body: the recipient names the sender on receipt.
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 5, SignFault::BadBodySig(1, 3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
    assert_eq!(err.check(), Some("signing: round-2 body signature"));
    // None of this banned anyone; the honest set still signs.
    let pk = shares[0].public_key();
    let sig = run_sign(&mut shares, &[1, 2, 3, 4], &d, 6, SignFault::None).unwrap();
    check_external(&pk, &d, &sig);
}

/// In the blame round every signer publishes the entries it sent; one that does not hash to
/// `h_{i→k}` in the publisher's agreed body names the publisher, and no honest signer.
#[test]
fn a_blame_publication_that_does_not_match_the_signed_hash_names_the_publisher() {
    let d = digest("blame entry");
    let mut shares = keygen(3, 4, 82);
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 1, SignFault::BadBlameEntry(3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(3)]);
    assert_eq!(err.check(), Some(blame::CHECK_BLAME));
    let err = run_sign(
        &mut shares,
        &[1, 2, 3, 4],
        &d,
        2,
        SignFault::BadBlameEntry(1),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
    let mut two = keygen(2, 3, 83);
    let err = run_sign(&mut two, &[2, 3], &d, 3, SignFault::BadBlameEntry(2)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some(blame::CHECK_BLAME));
}

/// A signer that enters the blame round with
/// `SignRound3::blame` although the echo digests differ (e.g. on a cheater's request) must
/// not name an honest signer. Here signer 3 opens a different `R_3` to signer 1 (validly
/// signed bodies), so signers 1 and 2 hold different bodies and statements; judging the
/// proofs would make the honest signers name each other. They name nobody in the blame
/// round and the dispute names exactly signer 3.
#[test]
fn blame_entered_despite_differing_echoes_never_names_an_honest_signer() {
    let mut shares = keygen(3, 4, 90);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("blame after equivocation");
    let (cheater, victim) = (pid(3), pid(1));
    let equivocate = SignFault::EquivocateR(cheater.get(), victim.get());
    let at3 = to_round3(&mut shares, &ids, &d, b"eq", 5, equivocate);
    let (st3, inbox3) = (at3.states, at3.inbox);
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    // Everyone answers a blame request, and also publishes for the dispute.
    let mut blame_states = Vec::new();
    let mut dispute_states = Vec::new();
    let mut blame_outs = Vec::new();
    let mut dispute_outs = Vec::new();
    for (i, st) in st3 {
        let msgs = &inbox3[i.position()];
        // Combining sees the differing echoes: no signature.
        assert!(st.signature(msgs).unwrap().is_none());
        let dispute = st.dispute(msgs).unwrap();
        let (dst, dm) = dispute.respond();
        dispute_states.push((i, dst));
        dispute_outs.push((i, to_others(&ids, i, &dm)));
    }
    // A second, identical run (same seeds) gives round-3 states for the blame round
    // (the states are consumed).
    let mut shares2 = keygen(3, 4, 90);
    let at3b = to_round3(&mut shares2, &ids, &d, b"eq", 5, equivocate);
    let (st3b, inbox3b) = (at3b.states, at3b.inbox);
    for (i, st) in st3b {
        let (bst, bm) = st.blame(&inbox3b[i.position()]).unwrap().respond(&mut rng);
        blame_states.push((i, bst));
        blame_outs.push((i, to_others(&ids, i, &bm)));
    }
    let mut binbox = route(blame_outs, 4);
    for (i, st) in blame_states {
        if i == cheater {
            continue;
        }
        let msgs = std::mem::take(&mut binbox[i.position()]);
        let e = blame::resolve(&st, &msgs);
        assert!(matches!(e, EcdsaError::ProofRejected(_)), "at {i}: {e:?}");
        assert!(e.culprits().is_empty());
    }
    let mut dinbox = route(dispute_outs, 4);
    for (i, st) in dispute_states {
        if i == cheater {
            continue;
        }
        let e = dispute::resolve(&st, &std::mem::take(&mut dinbox[i.position()]));
        assert_eq!(e.culprits(), &[cheater], "at {i}");
        assert_eq!(e.check(), Some(dispute::CHECK_DISPUTE));
    }
}

/// An identical replayed copy of an honest blame or dispute
/// message names nobody; two different messages from one sender name it.
#[test]
fn replayed_blame_and_dispute_messages_name_nobody() {
    let mut shares = keygen(3, 3, 91);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("replay");
    let at3 = to_round3(&mut shares, &ids, &d, b"r3", 7, SignFault::None);
    let (st3, inbox3) = (at3.states, at3.inbox);
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let mut states = Vec::new();
    let mut outs = Vec::new();
    for (i, st) in st3 {
        let (bst, bm) = st.blame(&inbox3[i.position()]).unwrap().respond(&mut rng);
        states.push((i, bst));
        outs.push((i, bm));
    }
    let (_, st1) = states.remove(0);
    let others: Vec<(PartyId, BlameMsg)> = outs[1..].to_vec();
    // Honest, no duplicates: nobody.
    assert_eq!(blame::resolve(&st1, &others), EcdsaError::InvalidSignature);
    // A replayed identical copy of signer 2's message: still nobody.
    let mut replayed = others.clone();
    replayed.push(others[0].clone());
    assert_eq!(
        blame::resolve(&st1, &replayed),
        EcdsaError::InvalidSignature
    );
    // Two different messages from signer 2: signer 2.
    let mut twice = others.clone();
    let mut other = others[0].1.clone();
    other.corrupt_entry_for_test();
    twice.push((pid(2), other));
    assert_eq!(blame::resolve(&st1, &twice).culprits(), &[pid(2)]);

    // The dispute round: an identical replay names nobody, a different second message
    // names its sender.
    let mut shares = keygen(3, 3, 92);
    let at3 = to_round3(&mut shares, &ids, &d, b"r3", 9, SignFault::None);
    let (st3, inbox3) = (at3.states, at3.inbox);
    let mut dstates = Vec::new();
    let mut douts = Vec::new();
    for (i, st) in st3 {
        let (dst, dm) = st.dispute(&inbox3[i.position()]).unwrap().respond();
        dstates.push((i, dst));
        douts.push((i, dm));
    }
    let (_, d1) = dstates.remove(0);
    let mut replayed: Vec<(PartyId, DisputeMsg)> = douts[1..].to_vec();
    replayed.push(douts[1].clone());
    assert_eq!(
        dispute::resolve(&d1, &replayed),
        EcdsaError::InvalidSignature
    );
    let mut twice: Vec<(PartyId, DisputeMsg)> = douts[1..].to_vec();
    let mut other = douts[1].1.clone();
    other.corrupt_signature_for_test(pid(3));
    twice.push((pid(2), other));
    assert_eq!(dispute::resolve(&d1, &twice).culprits(), &[pid(2)]);
}
