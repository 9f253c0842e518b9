#![allow(clippy::unwrap_used)]
//! Message encodings: documented sizes, truncations, garbage and hostile fields are typed errors naming the sender, never panics.

use crate::common::*;
use quorate_core::{PartyId, ThresholdParams};
use quorate_ecdsa::keygen::{
    self, DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4, EpochCertificate, EquivocationEvidence,
    PendingRefresh,
};
use quorate_ecdsa::sign::{self, BlameMsg, DisputeMsg, SignMsg1, SignMsg2, SignMsg3};
use quorate_ecdsa::{EcdsaError, SessionId};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

#[test]
fn garbage_and_truncated_messages_are_typed_errors() {
    let shares = keygen(2, 2, 13);
    let ids = [pid(1), pid(2)];
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (_st, m1) =
        sign::round1(&shares[0], &SessionId::new(b"g".to_vec()), &ids, &mut rng).unwrap();
    let bytes = m1[0].1.to_bytes();
    for cut in [0, 1, 2, 10, 35, bytes.len() / 2, bytes.len() - 1] {
        let err = SignMsg1::from_bytes(pid(1), &bytes[..cut]).unwrap_err();
        assert!(matches!(err, EcdsaError::Malformed { from, .. } if from == pid(1)));
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(SignMsg1::from_bytes(pid(1), &long).is_err());
    let mut rng2 = ChaCha20Rng::seed_from_u64(2);
    for len in [0usize, 5, 64, 300, 20000, 60000] {
        let mut g = vec![0u8; len];
        rand_core::RngCore::fill_bytes(&mut rng2, &mut g);
        assert!(SignMsg1::from_bytes(pid(2), &g).is_err());
        assert!(SignMsg2::from_bytes(pid(2), &g).is_err());
        assert!(SignMsg3::from_bytes(pid(2), &g).is_err());
        assert!(DkgMsg1::from_bytes(pid(2), &g).is_err());
        assert!(DkgMsg2::from_bytes(pid(2), &g).is_err());
        assert!(DkgMsg4::from_bytes(pid(2), &g).is_err());
        assert!(EpochCertificate::from_bytes(&g).is_err());
        assert!(EquivocationEvidence::from_bytes(&g).is_err());
        assert!(PendingRefresh::from_bytes(&g).is_err());
        assert!(BlameMsg::from_bytes(pid(2), &g).is_err());
        assert!(DisputeMsg::from_bytes(pid(2), &g).is_err());
    }
    // Header-valid garbage.
    let mut g = vec![0xD3u8, 1];
    g.extend_from_slice(&[0xff; 64]);
    assert!(matches!(
        SignMsg3::from_bytes(pid(2), &g),
        Err(EcdsaError::Malformed { .. })
    ));
    // Protocol-level: wrong sender set.
    let (st, _m1) =
        sign::round1(&shares[0], &SessionId::new(b"g2".to_vec()), &ids, &mut rng).unwrap();
    let err = sign::round2(st, &shares[0], &[], &mut rng).unwrap_err();
    assert_eq!(err, EcdsaError::MissingMessage { from: pid(2) });
}

#[test]
fn round_messages_have_the_documented_sizes() {
    let shares = keygen(2, 2, 14);
    let ids = [pid(1), pid(2)];
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (st1, m1) =
        sign::round1(&shares[0], &SessionId::new(b"s".to_vec()), &ids, &mut rng).unwrap();
    let (st2, m2) =
        sign::round1(&shares[1], &SessionId::new(b"s".to_vec()), &ids, &mut rng).unwrap();
    let b1 = m1[0].1.to_bytes().len();
    let (_s, out1) = sign::round2(st1, &shares[0], &[(pid(2), m2[0].1.clone())], &mut rng).unwrap();
    let (_s, _out2) =
        sign::round2(st2, &shares[1], &[(pid(1), m1[0].1.clone())], &mut rng).unwrap();
    let b2 = out1[0].1.to_bytes().len();
    // Round 1: the commitment, the receiver's 32-byte extension nonce, 128 columns of
    // (416+128)/8 bytes plus the KOS check; round 2: the broadcast body (header, sender,
    // session id, R_i, salt, pk_i, one (party, 32-byte entry hash) per co-signer) with its
    // length and signature flag (no signature with two signers), the p2p entry (party, Γ_u,
    // Γ_v, ψ), then the multiplication: the sender's 32-byte pad salt, 3·416 scalars of
    // corrections, the 32-byte hash of the check vector and u.
    assert_eq!(b1, 2 + 32 + 32 + 2 + 128 * 68 + 16 + 128 * 16);
    let body = 2 + 2 + 32 + 33 + 32 + 33 + 2 + (2 + 32);
    let entry = 2 + 33 + 33 + 32;
    assert_eq!(
        b2,
        2 + 4 + body + 1 + entry + 32 + 2 + 3 * 416 * 32 + 32 + 32
    );
}

/// Prefixes of every real message type (all cuts near the ends, a stride in between), and
/// single-byte corruptions of the DKG messages, decodes to a typed error naming the sender (or, for a corruption that still
/// decodes, to a value the protocol then checks) and never panics.
#[test]
fn every_truncation_of_every_message_is_a_typed_error() {
    let params = ThresholdParams::new(2, 3).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    let session = SessionId::new(b"trunc".to_vec());
    let ros = roster(21, 3);
    let mut st1 = Vec::new();
    let mut out1 = Vec::new();
    for i in params.parties() {
        let id = identity(21, i);
        let (st, m) = keygen::round1(params, i, &session, id, &ros, &mut rng).unwrap();
        st1.push(st);
        out1.push((i, m));
    }
    let inbox1 = route(out1.clone(), 3);
    let mut st2 = Vec::new();
    let mut out2 = Vec::new();
    for (st, (i, msgs)) in st1.into_iter().zip(params.parties().zip(inbox1)) {
        let (st, m) = keygen::round2(st, &msgs, &mut rng).unwrap();
        st2.push(st);
        out2.push((i, m));
    }
    let inbox2 = route(out2.clone(), 3);
    let mut out3 = Vec::new();
    for (st, (i, msgs)) in st2.into_iter().zip(params.parties().zip(inbox2)) {
        let (_st, m) = keygen::round3(st, &msgs, &mut rng).unwrap();
        out3.push((i, m));
    }
    // P3 → P1 carries a base-OT sender message, P1 → P3 a base-OT answer, P3 → P1 the
    // bootstrap extension.
    let m1 = out1[2]
        .1
        .iter()
        .find(|(to, _)| *to == pid(1))
        .unwrap()
        .1
        .to_bytes();
    let m2 = out2[0]
        .1
        .iter()
        .find(|(to, _)| *to == pid(3))
        .unwrap()
        .1
        .to_bytes();
    let m3 = out3[2]
        .1
        .iter()
        .find(|(to, _)| *to == pid(1))
        .unwrap()
        .1
        .to_bytes();
    let shares = keygen(2, 2, 22);
    let ids = [pid(1), pid(2)];
    let (sa, s1a) =
        sign::round1(&shares[0], &SessionId::new(b"t".to_vec()), &ids, &mut rng).unwrap();
    let (_sb, s1b) =
        sign::round1(&shares[1], &SessionId::new(b"t".to_vec()), &ids, &mut rng).unwrap();
    let share0 = shares[0].clone();
    let (_s, s2a) = sign::round2(sa, &share0, &[(pid(2), s1b[0].1.clone())], &mut rng).unwrap();
    let sign1 = s1a[0].1.to_bytes();
    let sign2 = s2a[0].1.to_bytes();
    // The agreement message, a certificate and a pending refresh.
    let mut at = run_to_agreement(2, 2, 23, Some(&shares), DkgRun::default());
    let (st4, msgs4) = at.remove(0).unwrap();
    let m4 = msgs4[0].1.to_bytes();
    // Header, echo length, one (digest, signature) per party, the acknowledgement.
    assert_eq!(m4.len(), 2 + 2 + 2 * (32 + 64) + 64);
    let pending = st4.pending().unwrap().to_bytes().to_vec();
    let cert = keygen::certify(st4, &msgs4).unwrap().1.to_bytes();
    type Decoder = fn(PartyId, &[u8]) -> bool;
    let cases: [(&[u8], Decoder); 8] = [
        (&m1, |p, b| DkgMsg1::from_bytes(p, b).is_ok()),
        (&m2, |p, b| DkgMsg2::from_bytes(p, b).is_ok()),
        (&m3, |p, b| DkgMsg3::from_bytes(p, b).is_ok()),
        (&m4, |p, b| DkgMsg4::from_bytes(p, b).is_ok()),
        (&cert, |_, b| EpochCertificate::from_bytes(b).is_ok()),
        (&pending, |_, b| PendingRefresh::from_bytes(b).is_ok()),
        (&sign1, |p, b| SignMsg1::from_bytes(p, b).is_ok()),
        (&sign2, |p, b| SignMsg2::from_bytes(p, b).is_ok()),
    ];
    for (bytes, decode) in cases {
        assert!(decode(pid(3), bytes), "the untouched message decodes");
        // Every cut near both ends (headers, flags, length prefixes, trailing check values)
        // and a stride through the middle.
        let n = bytes.len();
        let cuts = (0..n).filter(|c| *c < 300 || *c + 300 > n || c % 97 == 0);
        for cut in cuts {
            assert!(!decode(pid(3), &bytes[..cut]), "prefix of {cut} bytes");
        }
        let mut long = bytes.to_vec();
        long.push(0);
        assert!(!decode(pid(3), &long));
    }
    // Typed errors name the sender.
    for cut in [0, m3.len() / 2] {
        assert!(matches!(
            DkgMsg3::from_bytes(pid(3), &m3[..cut]),
            Err(EcdsaError::Malformed { from, .. }) if from == pid(3)
        ));
    }
    // Single-byte corruptions of the DKG messages never panic (flag bytes, points, lengths).
    for (bytes, decode) in &cases[..6] {
        for pos in 0..bytes.len().min(400) {
            let mut c = bytes.to_vec();
            c[pos] ^= 0xA5;
            let _ = decode(pid(3), &c);
        }
    }
}

/// Every prefix of the new messages (signed round-2 body, round 3 with echo, blame and
/// dispute) is a typed error naming the sender, and corruptions never panic.
#[test]
fn blame_and_dispute_messages_reject_truncation_and_garbage() {
    let mut shares = keygen(3, 3, 70);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("truncation");
    let at3 = to_round3(&mut shares, &ids, &d, b"r3", 1, SignFault::None);
    let (sign2, mut st3, inbox3) = (at3.sample2, at3.states, at3.inbox);
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let (i0, s0) = st3.remove(0);
    let (i1, s1) = st3.remove(0);
    let sign3 = inbox3[i0.position()][0].1.to_bytes();
    let dispute = s0
        .dispute(&inbox3[i0.position()])
        .unwrap()
        .respond()
        .1
        .to_bytes();
    let (_st, bm) = s1.blame(&inbox3[i1.position()]).unwrap().respond(&mut rng);
    let blame_bytes = bm.to_bytes();
    type Decoder = fn(PartyId, &[u8]) -> Result<(), EcdsaError>;
    let cases: [(&[u8], Decoder); 4] = [
        (&sign2, |p, b| SignMsg2::from_bytes(p, b).map(|_| ())),
        (&sign3, |p, b| SignMsg3::from_bytes(p, b).map(|_| ())),
        (&dispute, |p, b| DisputeMsg::from_bytes(p, b).map(|_| ())),
        (&blame_bytes, |p, b| BlameMsg::from_bytes(p, b).map(|_| ())),
    ];
    for (bytes, decode) in cases {
        assert!(
            decode(pid(3), bytes).is_ok(),
            "the untouched message decodes"
        );
        let n = bytes.len();
        for cut in (0..n).filter(|c| *c < 400 || *c + 400 > n || c % 97 == 0) {
            assert!(
                matches!(
                    decode(pid(3), &bytes[..cut]),
                    Err(EcdsaError::Malformed { from, .. }) if from == pid(3)
                ),
                "prefix of {cut} bytes"
            );
        }
        let mut long = bytes.to_vec();
        long.push(0);
        assert!(matches!(
            decode(pid(3), &long),
            Err(EcdsaError::Malformed { from, .. }) if from == pid(3)
        ));
        // Single-byte corruptions never panic (lengths, flags, points, scalars).
        for pos in 0..n.min(600) {
            let mut c = bytes.to_vec();
            c[pos] ^= 0xA5;
            let _ = decode(pid(3), &c);
        }
    }
}

/// Hostile encodings of the new parts (the p2p entry of round 2, the body's hash list, the
/// entries of a blame message) are `Malformed` errors naming the sender.
#[test]
fn bad_entries_in_new_messages_are_malformed_naming_the_sender() {
    let mut shares = keygen(3, 3, 84);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("bad entries");
    let at3 = to_round3(&mut shares, &ids, &d, b"r3", 1, SignFault::None);
    let (sign2, mut st3, inbox3) = (at3.sample2, at3.states, at3.inbox);
    let malformed_from = |r: Result<(), EcdsaError>, who: PartyId| matches!(r, Err(EcdsaError::Malformed { from, .. }) if from == who);
    let dec2 = |b: &[u8]| SignMsg2::from_bytes(pid(2), b).map(|_| ());
    assert!(dec2(&sign2).is_ok());
    // Round 2 (P2 → P1): ... signed body ‖ entry (100 bytes) ‖ multiplication message.
    let mul_len = 32 + 2 + 3 * 416 * 32 + 32 + 32;
    let entry = sign2.len() - mul_len - 100;
    let mut bad = sign2.clone();
    bad[entry + 2] = 0x05; // Γ_u tag
    assert!(malformed_from(dec2(&bad), pid(2)));
    let mut bad = sign2.clone();
    bad[entry + 2 + 33 + 1..entry + 2 + 66].fill(0xFF); // Γ_v with x ≥ p
    assert!(malformed_from(dec2(&bad), pid(2)));
    let mut bad = sign2.clone();
    bad[entry + 68..entry + 100].fill(0xFF); // non-canonical ψ
    assert!(malformed_from(dec2(&bad), pid(2)));
    // The body's hash list: the first recipient is the sender itself.
    let first_to = 2 + 4 + 2 + 2 + 32 + 33 + 32 + 33 + 2;
    assert_eq!(&sign2[first_to..first_to + 2], &[0, 1]);
    let mut bad = sign2.clone();
    bad[first_to + 1] = 2;
    assert!(malformed_from(dec2(&bad), pid(2)));
    // A blame message: header ‖ count ‖ two entries ‖ c ‖ z.
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let (i1, s1) = st3.remove(1);
    let (_st, bm) = s1.blame(&inbox3[i1.position()]).unwrap().respond(&mut rng);
    let bytes = bm.to_bytes();
    assert_eq!(bytes.len(), 2 + 2 + 2 * 100 + 64);
    let decb = |b: &[u8]| BlameMsg::from_bytes(pid(2), b).map(|_| ());
    assert!(decb(&bytes).is_ok());
    let mut bad = bytes.clone();
    bad[4 + 2] = 0x05; // Γ_u tag of the first entry
    assert!(malformed_from(decb(&bad), pid(2)));
    let mut bad = bytes.clone();
    bad[4..104].copy_from_slice(&bytes[104..204]); // entries out of order
    bad[104..204].copy_from_slice(&bytes[4..104]);
    assert!(malformed_from(decb(&bad), pid(2)));
    let mut bad = bytes.clone();
    bad[3] = 3; // count beyond the entries present
    assert!(malformed_from(decb(&bad), pid(2)));
    let mut rng2 = ChaCha20Rng::seed_from_u64(4);
    for len in [0usize, 3, 100, 268, 5000] {
        let mut g = vec![0xD5u8, 3];
        g.resize(len.max(2), 0);
        rand_core::RngCore::fill_bytes(&mut rng2, &mut g[2..]);
        assert!(malformed_from(decb(&g), pid(2)));
        let mut g2 = vec![0xD2u8, 3];
        g2.extend_from_slice(&g[2..]);
        assert!(malformed_from(dec2(&g2), pid(2)));
    }
}
