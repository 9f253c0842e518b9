//! Wire encodings: a full signing run where every message crosses the "network" as bytes,
//! round trips, and decoders that never panic on arbitrary input.

use crate::common::{accept_any, dalek_verify_strict, setup, witnesses};
use proptest::prelude::*;
use quorate_cosi::*;
use std::sync::Arc;

const MSG: &[u8] = b"wire test";

#[test]
fn a_signing_run_over_bytes() {
    let n = 13;
    let (roster, keys, mut rng) = setup(n, 1);
    let tree = Tree::complete(n, 3).expect("tree");
    let kt = Arc::new(KeyTree::new(roster.clone(), tree.clone()).expect("kt"));
    let mut ws: Vec<Witness> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness"))
        .collect();
    let ann = Announcement {
        session: SessionId::new(b"over the wire".to_vec()),
        mode: Mode::TwoNonce,
        message: MSG.to_vec(),
    };
    let ann = Announcement::from_bytes(&ann.to_bytes()).expect("announcement");
    let absent = 7usize;

    // Round 1, bottom-up; every message is encoded and decoded.
    let mut states: Vec<Option<CommittedWitness>> = (0..n).map(|_| None).collect();
    let mut up: Vec<Option<Vec<u8>>> = vec![None; n];
    let mut aggs: Vec<Option<AggregatorAwaitingChallenge>> = (0..n).map(|_| None).collect();
    for level in tree.levels().iter().rev() {
        for &v in level {
            let own = if v == absent {
                None
            } else {
                let (s, c) = ws[v].commit(&ann, &mut rng).expect("commit");
                states[v] = Some(s);
                Some(c.to_bytes())
            };
            if tree.children(v).is_empty() {
                up[v] = own;
                continue;
            }
            let mut a = Aggregator::new(kt.clone(), v, &ann).expect("agg");
            for bytes in own
                .into_iter()
                .chain(tree.children(v).iter().filter_map(|&c| up[c].take()))
            {
                a.add_commitment(Commitment::from_bytes(&bytes, n).expect("decodes"))
                    .expect("accepted");
            }
            let (aw, out) = a.finish_commitments().expect("finish");
            aggs[v] = Some(aw);
            up[v] = Some(out.to_bytes());
        }
    }
    let root = Commitment::from_bytes(&up[0].take().expect("root"), n).expect("decodes");
    let challenge_bytes = Challenge::new(&root, MSG.to_vec()).to_bytes();

    // Round 2, bottom-up.
    let mut down: Vec<Option<Vec<u8>>> = vec![None; n];
    let mut root_ctx = None;
    for level in tree.levels().iter().rev() {
        for &v in level {
            let ch = Challenge::from_bytes(&challenge_bytes, n).expect("decodes");
            let own = states[v]
                .take()
                .map(|s| ws[v].respond(s, &ch).expect("respond"));
            match aggs[v].take() {
                None => down[v] = own.map(|r| r.to_bytes()),
                Some(aw) => {
                    let mut col = aw.receive_challenge(&ch).expect("ok");
                    let inputs = own
                        .map(|r| r.to_bytes())
                        .into_iter()
                        .chain(tree.children(v).iter().filter_map(|&c| down[c].take()));
                    for bytes in inputs {
                        col.add_response(Response::from_bytes(&bytes, n).expect("decodes"))
                            .expect("accepted");
                    }
                    if v == 0 {
                        root_ctx = Some(col.context().clone());
                    }
                    let out = col.finish(ChildCheck::Batched, &mut rng).expect("valid");
                    down[v] = Some(out.to_bytes());
                }
            }
        }
    }
    let total = Response::from_bytes(&down[0].take().expect("total"), n).expect("decodes");
    let sig = root_ctx
        .expect("root context")
        .finalize(&roster, &total, &Policy::Threshold(12))
        .expect("verifies");
    assert!(!sig.mask().contains(absent));
    let decoded = roster
        .verify_bytes(MSG, &sig.to_bytes(), &Policy::Threshold(12))
        .expect("verifies");
    assert_eq!(decoded, sig);
    let key = roster.aggregate_key_for_mask(sig.mask()).expect("A'");
    assert!(dalek_verify_strict(&key, MSG, &sig));
}

#[test]
fn wire_errors_are_typed() {
    use quorate_core::DecodeError;
    let (roster, keys, mut rng) = setup(3, 2);
    let mut w = Witness::new(roster.clone(), 1, keys[1].clone(), accept_any).expect("witness");
    let ann = Announcement::new(SessionId::new(b"s".to_vec()), MSG.to_vec());
    let (_, c) = w.commit(&ann, &mut rng).expect("commit");
    let bytes = c.to_bytes();
    assert_eq!(Commitment::from_bytes(&bytes, 3).as_ref(), Ok(&c));
    // Wrong tag, trailing bytes, truncated, wrong roster size, index out of range.
    let mut tag = bytes.clone();
    tag[0] ^= 1;
    assert!(matches!(
        Commitment::from_bytes(&tag, 3),
        Err(DecodeError::UnknownVersion { .. })
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        Commitment::from_bytes(&long, 3),
        Err(DecodeError::TrailingBytes { .. })
    ));
    assert!(matches!(
        Commitment::from_bytes(&bytes[..bytes.len() - 1], 3),
        Err(DecodeError::WrongLength { .. })
    ));
    assert!(Commitment::from_bytes(&bytes, 1).is_err());
    // Response with s ≥ L.
    let r = Response::from_bytes(
        &{
            let mut b = vec![0x44, 1, 0, 1, b's', 0, 1];
            b.extend_from_slice(&[0xff; 32]);
            b
        },
        3,
    );
    assert_eq!(r, Err(DecodeError::NonCanonical { what: "response s" }));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), n in 0usize..40) {
        let _ = Signature::from_bytes(&bytes, n);
        let _ = Commitment::from_bytes(&bytes, n);
        let _ = Challenge::from_bytes(&bytes, n);
        let _ = Response::from_bytes(&bytes, n);
        let _ = Announcement::from_bytes(&bytes);
        let _ = Mask::from_bytes(n, &bytes);
        if bytes.len() >= 96 {
            let mut e = [0u8; 96];
            e.copy_from_slice(&bytes[..96]);
            let _ = RosterEntry::from_bytes(&e);
        }
    }

    #[test]
    fn masks_round_trip(indices in proptest::collection::btree_set(0usize..50, 0..50), n in 50usize..60) {
        let m = Mask::from_indices(n, indices.iter().copied()).expect("in range");
        prop_assert_eq!(m.count(), indices.len());
        prop_assert_eq!(m.iter().collect::<Vec<_>>(), indices.iter().copied().collect::<Vec<_>>());
        prop_assert_eq!(m.iter_absent().count(), n - indices.len());
        prop_assert_eq!(Mask::from_bytes(n, m.as_bytes()), Ok(m));
    }

    #[test]
    fn signature_bit_flips_never_verify(pos in 0usize..66, bit in 0u8..8) {
        let (roster, keys, mut rng) = setup(9, 3);
        let tree = Tree::complete(9, 2).expect("tree");
        let (sig, _) = sign_in_process(&roster, &mut witnesses(&roster, &keys), &tree, MSG, &Policy::Threshold(1),
            &Scenario::default().with_absent([4]), &mut rng).expect("signs");
        let mut b = sig.to_bytes();
        b[pos] ^= 1 << bit;
        prop_assert!(roster.verify_bytes(MSG, &b, &Policy::Threshold(1)).is_err());
    }
}
