//! quorate-cosi: keys, proofs of possession, roster entries, masks, the four round messages
//! (the challenge checked by `ChallengeContext::derive`), the collective signature
//! (checked by `Roster::verify`) and the timestamp receipt's signature.

use crate::{re, rng, Case};
use quorate_cosi::timestamp::{
    seal_round, ChainHead, Clock, InProcessCosigner, Receipt, DEFAULT_MAX_SKEW_MS,
};
use quorate_cosi::{
    sign_in_process, Announcement, Challenge, ChallengeContext, Commitment, ExactMessage, Mask,
    Policy, ProofOfPossession, PublicKey, Response, Roster, RosterEntry, Scenario, SecretKey,
    SessionId, Signature, Tree, Witness,
};
use std::sync::Arc;

const N: usize = 5;
const MSG: &[u8] = b"quorate-fuzz cosi";

fn fixed<const L: usize>(b: &[u8]) -> Option<&[u8; L]> {
    b.try_into().ok()
}

/// A valid timestamp receipt, its verifier's roster id and the verifier.
pub fn receipt() -> (Receipt, InProcessCosigner) {
    let mut r = rng(0x5473);
    let keys = (0..4).map(|_| SecretKey::generate(&mut r)).collect();
    let clock: Clock = Arc::new(|| 1_700_000_000_000);
    let cosigner = InProcessCosigner::new(
        keys,
        Policy::Complete,
        ChainHead::genesis(),
        clock,
        DEFAULT_MAX_SKEW_MS,
    )
    .expect("cosigner");
    let hashes: Vec<[u8; 32]> = (0u8..5).map(|i| [i; 32]).collect();
    let issued =
        seal_round(&ChainHead::genesis(), hashes, 1_700_000_000_000, &cosigner).expect("seal");
    (issued.receipt(2).expect("receipt"), cosigner)
}

/// The cases.
pub fn cases() -> Vec<Case> {
    let mut r = rng(0x436f);
    let keys: Vec<SecretKey> = (0..N).map(|_| SecretKey::generate(&mut r)).collect();
    let entries: Vec<RosterEntry> = keys.iter().map(|k| k.roster_entry(&mut r)).collect();
    let roster = Arc::new(Roster::new(entries.clone()).expect("roster"));
    let tree = Tree::complete(N, 2).expect("tree");
    let mut witnesses: Vec<Witness> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            Witness::new(
                Arc::clone(&roster),
                i,
                k.clone(),
                ExactMessage(MSG.to_vec()),
            )
            .expect("witness")
        })
        .collect();
    let (sig, _) = sign_in_process(
        &roster,
        &mut witnesses,
        &tree,
        MSG,
        &Policy::Complete,
        &Scenario::default(),
        &mut r,
    )
    .expect("sign");
    assert!(Signature::from_bytes(&sig.to_bytes(), N).expect("sig") == sig);

    // One witness's rounds: announcement, commitment, challenge, response.
    let ann = Announcement::new(SessionId::new(b"fuzz session".to_vec()), MSG.to_vec());
    let w = &mut witnesses[0];
    let (state, com) = w.commit(&ann, &mut r).expect("commit");
    let chal = Challenge::new(&com, MSG.to_vec());
    let resp = w.respond(state, &chal).expect("respond");
    assert!(Announcement::from_bytes(&ann.to_bytes()).expect("ann") == ann);
    assert!(Commitment::from_bytes(&com.to_bytes(), N).expect("com") == com);
    assert!(Challenge::from_bytes(&chal.to_bytes(), N).expect("chal") == chal);
    assert!(Response::from_bytes(&resp.to_bytes(), N).expect("resp") == resp);

    let pk = keys[1].public_key();
    let mask = sig.mask().clone();
    let (receipt, cosigner) = receipt();
    let ts_sig = receipt.signature.clone();
    let ts_msg = receipt.header().message();
    let ts_roster = Arc::clone(cosigner.roster());
    let ts_policy = cosigner.policy().clone();

    let roster2 = Arc::clone(&roster);
    vec![
        Case::new("keys::SecretKey", keys[2].to_bytes().to_vec(), |b| {
            re(SecretKey::from_bytes(fixed(b)?), |k| k.to_bytes().to_vec())
        }),
        Case::new("keys::PublicKey", pk.to_bytes().to_vec(), |b| {
            re(PublicKey::from_bytes(fixed(b)?), |k| k.to_bytes().to_vec())
        }),
        Case::new(
            "keys::ProofOfPossession",
            entries[3].pop.to_bytes().to_vec(),
            |b| {
                re(ProofOfPossession::from_bytes(fixed(b)?), |p| {
                    p.to_bytes().to_vec()
                })
            },
        ),
        Case::new("keys::RosterEntry", entries[3].to_bytes().to_vec(), |b| {
            re(RosterEntry::from_bytes(fixed(b)?), |e| {
                e.to_bytes().to_vec()
            })
        })
        .with_check(true, |b| {
            let e = RosterEntry::from_bytes(fixed(b).expect("decoded")).expect("decoded");
            e.pop.verify(&e.public_key)
        }),
        Case::new("mask::Mask", mask.as_bytes().to_vec(), |b| {
            re(Mask::from_bytes(N, b), |m| m.as_bytes().to_vec())
        }),
        Case::new("protocol::Announcement", ann.to_bytes(), |b| {
            re(Announcement::from_bytes(b), Announcement::to_bytes)
        }),
        Case::new("protocol::Commitment", com.to_bytes(), |b| {
            re(Commitment::from_bytes(b, N), Commitment::to_bytes)
        }),
        Case::new("protocol::Challenge", chal.to_bytes(), |b| {
            re(Challenge::from_bytes(b, N), Challenge::to_bytes)
        })
        .with_check(false, move |b| {
            let c = Challenge::from_bytes(b, N).expect("decoded");
            ChallengeContext::derive(&roster2, &c).is_ok()
        }),
        Case::new("protocol::Response", resp.to_bytes(), |b| {
            re(Response::from_bytes(b, N), Response::to_bytes)
        }),
        Case::new("signature::Signature", sig.to_bytes(), |b| {
            re(Signature::from_bytes(b, N), Signature::to_bytes)
        })
        .with_check(true, move |b| {
            roster.verify_bytes(MSG, b, &Policy::Complete).is_ok()
        }),
        Case::new("timestamp receipt signature", ts_sig, {
            let n = ts_roster.len();
            move |b| re(Signature::from_bytes(b, n), Signature::to_bytes)
        })
        .with_check(true, move |b| {
            ts_roster.verify_bytes(&ts_msg, b, &ts_policy).is_ok()
        }),
    ]
}
