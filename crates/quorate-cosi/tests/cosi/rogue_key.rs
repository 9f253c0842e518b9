//! Rosters carry proofs of possession, and every load checks them .
//!
//! With a plain key sum `A = ΣA_i`, one roster entry `A_x = a·B − ΣA_others` makes
//! `A = a·B`: the holder of `a` alone signs "for everyone" under `Policy::Complete`. The
//! rogue key has no proof of possession (its owner does not know its discrete log), so a
//! roster that insists on proofs refuses it, and a roster of bare keys is refused outright.

use crate::common::setup;
use curve25519_dalek::constants::ED25519_BASEPOINT_POINT as B;
use curve25519_dalek::edwards::EdwardsPoint;
use curve25519_dalek::scalar::Scalar;
use quorate_cosi::error::witness_id;
use quorate_cosi::hash::ed25519_challenge;
use quorate_cosi::{CosiError, ProofOfPossession, PublicKey, Roster, RosterEntry};

#[test]
fn rogue_key_roster_is_refused() {
    let (honest, _keys, _rng) = setup(3, 77);
    let others: EdwardsPoint = honest.entries().iter().map(|e| e.public_key.point()).sum();
    let a = Scalar::from_bytes_mod_order([5; 32]);
    let rogue = PublicKey::from_bytes(&(a * B - others).compress().to_bytes()).expect("valid");

    // The attack is real: a·B is the sum of all four keys, and a plain Schnorr signature by
    // `a` is a "complete" signature of the four.
    let total = (a * B).compress().to_bytes();
    let sum: EdwardsPoint = others + rogue.point();
    assert_eq!(sum.compress().to_bytes(), total);
    let r = Scalar::from_bytes_mod_order([6; 32]);
    let big_r = (r * B).compress().to_bytes();
    let c = ed25519_challenge(&big_r, &total, b"forged");
    let mut sig = [0u8; 64];
    sig[..32].copy_from_slice(&big_r);
    sig[32..].copy_from_slice((r + c * a).as_bytes());
    let vk = ed25519_dalek::VerifyingKey::from_bytes(&total).expect("key");
    assert!(vk
        .verify_strict(b"forged", &ed25519_dalek::Signature::from_bytes(&sig))
        .is_ok());

    // Bare keys (the old roster file format): refused, naming the first entry.
    let mut bare: Vec<String> = honest
        .entries()
        .iter()
        .map(|e| hex::encode(e.public_key.as_bytes()))
        .collect();
    bare.push(hex::encode(rogue.as_bytes()));
    let json = serde_json::to_string(&bare).expect("json");
    assert_eq!(
        Roster::from_json(&json).err(),
        Some(CosiError::MissingProofOfPossession {
            witness: witness_id(0)
        })
    );
    let object = format!("{{\"public_keys\": {json}}}");
    assert_eq!(
        Roster::from_json(&object).err(),
        Some(CosiError::MissingProofOfPossession {
            witness: witness_id(0)
        })
    );

    // Entries: whatever proof the rogue entry carries, it does not verify.
    for pop in [
        honest.entries()[0].pop,
        ProofOfPossession::from_bytes(&[[7u8; 32], r.to_bytes()].concat().try_into().expect("64"))
            .expect("canonical s"),
    ] {
        let mut entries = honest.entries().to_vec();
        entries.push(RosterEntry {
            public_key: rogue,
            pop,
        });
        assert_eq!(
            Roster::new(entries.clone()),
            Err(CosiError::InvalidProofOfPossession {
                witnesses: vec![witness_id(3)]
            })
        );
        let hexes: Vec<String> = entries.iter().map(|e| hex::encode(e.to_bytes())).collect();
        assert_eq!(
            Roster::from_json(&serde_json::to_string(&hexes).expect("json")).err(),
            Some(CosiError::InvalidProofOfPossession {
                witnesses: vec![witness_id(3)]
            })
        );
    }

    // The honest roster round-trips through its file.
    let again = Roster::from_json(&honest.to_json()).expect("loads");
    assert_eq!(again.id(), honest.id());
    for bad in [
        "",
        "{",
        "[1]",
        "[\"zz\"]",
        "{\"roster_entries\": 3}",
        "[\"00\"]",
    ] {
        assert!(
            matches!(Roster::from_json(bad), Err(CosiError::Decode(_))),
            "{bad}"
        );
    }
}
