#![allow(clippy::unwrap_used)]
//! End-to-end tests: DKG, signing, refresh, BIP32, fault injection with exact culprits.

use k256::ecdsa::{RecoveryId, VerifyingKey};
use k256::elliptic_curve::ops::MulByGenerator;
use k256::{ProjectivePoint, Scalar};
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use quorate_ecdsa::blame::{self, BlameMsg, DisputeMsg};
use quorate_ecdsa::dkg::{self, DkgFault, DkgMsg1, DkgMsg2, DkgMsg3};
use quorate_ecdsa::sign::{self, Combined, Round3Fault, SignMsg1, SignMsg2, SignMsg3, Signature};
use quorate_ecdsa::{EcdsaError, KeyShare};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::{Digest, Sha256};

fn pid(i: u16) -> PartyId {
    PartyId::new(i).unwrap()
}

/// The same message from `i` to every other signer in `ids`.
fn to_others<M: Clone>(ids: &[PartyId], i: PartyId, m: &M) -> Vec<(PartyId, M)> {
    ids.iter()
        .filter(|j| **j != i)
        .map(|j| (*j, m.clone()))
        .collect()
}

fn route<M>(outs: Vec<(PartyId, Vec<(PartyId, M)>)>, n: usize) -> Vec<Vec<(PartyId, M)>> {
    let mut inbox: Vec<Vec<(PartyId, M)>> = (0..n).map(|_| Vec::new()).collect();
    for (from, msgs) in outs {
        for (to, m) in msgs {
            inbox[to.position()].push((from, m));
        }
    }
    inbox
}

/// Runs key generation (or refresh when `old` is given) through the byte encodings,
/// applying `tamper` to each round-2 message `(from, to, msg)`.
fn run_dkg(
    t: u16,
    n: u16,
    seed: u64,
    old: Option<&[KeyShare]>,
    faults: &dyn Fn(PartyId) -> DkgFault,
    tamper: &dyn Fn(PartyId, PartyId, &mut DkgMsg2),
) -> Vec<Result<KeyShare, EcdsaError>> {
    run_dkg_full(t, n, seed, old, faults, tamper, &|_, _, _| {})
}

/// [`run_dkg`] with a hook on the round-3 (OT bootstrap) messages as well. A party whose
/// round 3 fails sends nothing in round 3.
fn run_dkg_full(
    t: u16,
    n: u16,
    seed: u64,
    old: Option<&[KeyShare]>,
    faults: &dyn Fn(PartyId) -> DkgFault,
    tamper: &dyn Fn(PartyId, PartyId, &mut DkgMsg2),
    tamper3: &dyn Fn(PartyId, PartyId, &mut DkgMsg3),
) -> Vec<Result<KeyShare, EcdsaError>> {
    let params = ThresholdParams::new(t, n).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let session = SessionId::new(format!("test-dkg-{seed}").into_bytes());
    let mut states = Vec::new();
    let mut outs = Vec::new();
    for i in params.parties() {
        let (st, msgs) = match old {
            Some(o) => dkg::refresh_round1(&o[i.position()], &session, &mut rng).unwrap(),
            None => dkg::keygen_round1_faulty(params, i, &session, faults(i), &mut rng).unwrap(),
        };
        let msgs = msgs
            .into_iter()
            .map(|(to, m)| (to, DkgMsg1::from_bytes(i, &m.to_bytes()).unwrap()))
            .collect();
        states.push(st);
        outs.push((i, msgs));
    }
    let inbox = route(outs, n as usize);
    let mut states2 = Vec::new();
    let mut outs2 = Vec::new();
    for (st, (i, msgs)) in states.into_iter().zip(params.parties().zip(inbox)) {
        let (st2, m2) = dkg::dkg_round2(st, &msgs, &mut rng).unwrap();
        let m2 = m2
            .into_iter()
            .map(|(to, mut m)| {
                tamper(i, to, &mut m);
                (to, DkgMsg2::from_bytes(i, &m.to_bytes()).unwrap())
            })
            .collect();
        states2.push(st2);
        outs2.push((i, m2));
    }
    let inbox = route(outs2, n as usize);
    let mut states3 = Vec::new();
    let mut outs3 = Vec::new();
    for (st, (i, msgs)) in states2.into_iter().zip(params.parties().zip(inbox)) {
        match dkg::dkg_round3(st, &msgs, &mut rng) {
            Ok((st3, m3)) => {
                let m3 = m3
                    .into_iter()
                    .map(|(to, mut m)| {
                        tamper3(i, to, &mut m);
                        (to, DkgMsg3::from_bytes(i, &m.to_bytes()).unwrap())
                    })
                    .collect();
                states3.push(Ok(st3));
                outs3.push((i, m3));
            }
            Err(e) => states3.push(Err(e)),
        }
    }
    let inbox = route(outs3, n as usize);
    states3
        .into_iter()
        .zip(inbox)
        .map(|(st, msgs)| dkg::dkg_finish(st?, &msgs))
        .collect()
}

fn keygen(t: u16, n: u16, seed: u64) -> Vec<KeyShare> {
    run_dkg(t, n, seed, None, &|_| DkgFault::None, &|_, _, _| {})
        .into_iter()
        .map(|r| r.unwrap())
        .collect()
}

fn refresh(shares: &[KeyShare], seed: u64) -> Vec<KeyShare> {
    run_dkg(
        shares[0].params().t(),
        shares[0].params().n(),
        seed,
        Some(shares),
        &|_| DkgFault::None,
        &|_, _, _| {},
    )
    .into_iter()
    .map(|r| r.unwrap())
    .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SignFault {
    None,
    /// The party sends inconsistent OT-extension messages in round 1.
    Ote(u16),
    /// Both parties send inconsistent OT-extension messages in round 1.
    Ote2(u16, u16),
    /// The party probes multiplication row 0 in round 2 (caught iff γ_0 = 1).
    MulRow(u16),
    /// The party sends a Γ_u inconsistent with its R_i.
    Gamma(u16),
    /// The party sends a truncated multiplication vector.
    ShortMul(u16),
    /// The party sends a public key share `pk_i` that is not `λ_i·T_i`.
    Pk(u16),
    /// The party deviates in round 3 (wrong `u_i`, `w_i` or echo digest).
    Round3(u16, Round3Fault),
    /// The party sends the second party a different (validly signed) round-2 body.
    Equivocate(u16, u16),
    /// The party's round-2 body to the second party carries a bad identity signature.
    BadBodySig(u16, u16),
    /// The party broadcasts a wrong echo digest, then publishes a body with a forged
    /// signature in the dispute.
    LiarForges(u16),
    /// The party commits to and opens `R_i + G` towards the second party (with a matching
    /// multiplication input), `R_i` towards everyone else.
    EquivocateR(u16, u16),
    /// Honest, but every signer enters the blame round instead of combining (every proof
    /// must verify).
    ForceBlame,
    /// The party's p2p entry to the second party does not match its hash in the body.
    BadEntry(u16, u16),
    /// Every signer enters the blame round; the party publishes an entry that does not
    /// match its hash in its (signed, echoed) body.
    BadBlameEntry(u16),
}

impl SignFault {
    /// The fault if `i` is the deviating party, else `None`.
    fn filter_party(self, i: u16) -> SignFault {
        if self.cheater() == Some(pid(i)) {
            self
        } else {
            SignFault::None
        }
    }

    /// The deviating party, if any.
    fn cheater(self) -> Option<PartyId> {
        match self {
            SignFault::None | SignFault::ForceBlame => None,
            SignFault::Ote(i)
            | SignFault::Ote2(i, _)
            | SignFault::MulRow(i)
            | SignFault::Gamma(i)
            | SignFault::ShortMul(i)
            | SignFault::Pk(i)
            | SignFault::Round3(i, _)
            | SignFault::Equivocate(i, _)
            | SignFault::BadBodySig(i, _)
            | SignFault::LiarForges(i)
            | SignFault::EquivocateR(i, _)
            | SignFault::BadEntry(i, _)
            | SignFault::BadBlameEntry(i) => Some(pid(i)),
        }
    }
}

/// Signs `digest` with the parties `signers` (1-based), through the byte encodings.
fn run_sign(
    shares: &mut [KeyShare],
    signers: &[u16],
    digest: &[u8; 32],
    seed: u64,
    fault: SignFault,
) -> Result<Signature, EcdsaError> {
    let ids: Vec<PartyId> = signers.iter().map(|i| pid(*i)).collect();
    let n = shares.len();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let sign_id = format!("sign-{seed}").into_bytes();
    let mut st1 = Vec::new();
    let mut outs = Vec::new();
    for i in &ids {
        let share = &shares[i.position()];
        let bad_ote = fault == SignFault::Ote(i.get())
            || matches!(fault, SignFault::Ote2(a, b) if a == i.get() || b == i.get());
        let (st, msgs) = if bad_ote {
            sign::sign_round1_malicious_ote(share, &sign_id, &ids, &mut rng)?
        } else if let SignFault::EquivocateR(c, v) = fault.filter_party(i.get()) {
            debug_assert_eq!(c, i.get());
            sign::sign_round1_equivocating_r(share, &sign_id, &ids, pid(v), &mut rng)?
        } else {
            sign::sign_round1(share, &sign_id, &ids, &mut rng)?
        };
        let msgs = msgs
            .into_iter()
            .map(|(to, m)| (to, SignMsg1::from_bytes(*i, &m.to_bytes()).unwrap()))
            .collect();
        st1.push((*i, st));
        outs.push((*i, msgs));
    }
    let mut inbox = route(outs, n);
    let mut st2 = Vec::new();
    let mut outs = Vec::new();
    // Honest parties first report errors of the malicious party's victims: process in order.
    let mut first_err = None;
    for (i, st) in st1 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let share = &mut shares[i.position()];
        let res = if fault == SignFault::MulRow(i.get()) {
            sign::sign_round2_malicious_mul(st, share, &msgs, 0, &mut rng)
        } else {
            sign::sign_round2(st, share, &msgs, &mut rng)
        };
        match res {
            Ok((st, msgs)) => {
                let msgs = msgs
                    .into_iter()
                    .map(|(to, mut m)| {
                        let key = &shares[i.position()];
                        if fault == SignFault::Gamma(i.get()) {
                            m.corrupt_gamma_for_test(key);
                        }
                        if fault == SignFault::ShortMul(i.get()) {
                            m.truncate_mul_for_test();
                        }
                        if fault == SignFault::Pk(i.get()) {
                            m.corrupt_pk_for_test(key);
                        }
                        if fault == SignFault::Equivocate(i.get(), to.get()) {
                            m.equivocate_for_test(to, key);
                        }
                        if fault == SignFault::BadBodySig(i.get(), to.get()) {
                            m.corrupt_signature_for_test();
                        }
                        if fault == SignFault::BadEntry(i.get(), to.get()) {
                            m.corrupt_entry_for_test();
                        }
                        (to, SignMsg2::from_bytes(i, &m.to_bytes()).unwrap())
                    })
                    .collect();
                st2.push((i, st));
                outs.push((i, msgs));
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    let mut inbox = route(outs, n);
    let mut st3 = Vec::new();
    let mut outs = Vec::new();
    for (i, st) in st2 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let r3 = match fault {
            SignFault::Round3(c, f) if c == i.get() => f,
            SignFault::LiarForges(c) if c == i.get() => Round3Fault::WrongEcho,
            _ => Round3Fault::None,
        };
        match sign::sign_round3_faulty(st, &mut shares[i.position()], digest, &msgs, r3) {
            Ok((st, m)) => {
                let m = SignMsg3::from_bytes(i, &m.to_bytes()).unwrap();
                st3.push((i, st));
                outs.push((i, to_others(&ids, i, &m)));
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    let mut inbox = route(outs, n);
    let mut sigs = Vec::new();
    let mut blames = Vec::new();
    let mut disputes = Vec::new();
    for (i, st) in st3 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        if matches!(fault, SignFault::ForceBlame | SignFault::BadBlameEntry(_)) {
            blames.push((i, Box::new(st.blame(&msgs)?)));
            continue;
        }
        match sign::combine(st, &msgs)? {
            Combined::Signature(s) => sigs.push(s),
            Combined::Blame(b) => blames.push((i, b)),
            Combined::Dispute(d) => disputes.push((i, d)),
        }
    }
    let cheater = fault.cheater();
    if !disputes.is_empty() {
        assert_eq!(disputes.len(), ids.len(), "every signer enters the dispute");
        let mut states = Vec::new();
        let mut outs = Vec::new();
        for (i, d) in disputes {
            let (st, mut m) = d.respond();
            if fault == SignFault::LiarForges(i.get()) {
                // Forge: a bit flipped in the signature of another signer's body.
                let other = ids.iter().copied().find(|j| *j != i).unwrap();
                m.corrupt_signature_for_test(other);
            }
            let m = DisputeMsg::from_bytes(i, &m.to_bytes()).unwrap();
            states.push((i, st));
            outs.push((i, to_others(&ids, i, &m)));
        }
        let mut inbox = route(outs, n);
        let errs: Vec<EcdsaError> = states
            .into_iter()
            .filter(|(i, _)| Some(*i) != cheater)
            .map(|(i, st)| blame::resolve_dispute(st, &std::mem::take(&mut inbox[i.position()])))
            .collect();
        for e in &errs {
            assert_eq!(e, &errs[0], "honest signers agree on the dispute's verdict");
        }
        return Err(errs[0].clone());
    }
    if !blames.is_empty() {
        assert_eq!(
            blames.len(),
            ids.len(),
            "every signer enters the blame round"
        );
        let mut states = Vec::new();
        let mut outs = Vec::new();
        for (i, b) in blames {
            let (st, mut m) = b.respond(&mut rng);
            if fault == SignFault::BadBlameEntry(i.get()) {
                m.corrupt_entry_for_test();
            }
            let m = BlameMsg::from_bytes(i, &m.to_bytes()).unwrap();
            states.push((i, st));
            outs.push((i, to_others(&ids, i, &m)));
        }
        let mut inbox = route(outs, n);
        let errs: Vec<EcdsaError> = states
            .into_iter()
            .filter(|(i, _)| Some(*i) != cheater)
            .map(|(i, st)| {
                let msgs = std::mem::take(&mut inbox[i.position()]);
                if fault == SignFault::ForceBlame {
                    assert!(st.failing_signers(&msgs).is_empty(), "honest proofs verify");
                }
                blame::resolve_blame(st, &msgs)
            })
            .collect();
        for e in &errs {
            assert_eq!(
                e, &errs[0],
                "honest signers agree on the blame round's verdict"
            );
        }
        return Err(errs[0].clone());
    }
    for s in &sigs {
        assert_eq!(s, &sigs[0]);
    }
    Ok(sigs[0])
}

fn check_external(pk: &ProjectivePoint, digest: &[u8; 32], sig: &Signature) {
    let pk_bytes = quorate_ecdsa::curve::point_bytes(pk);
    // k256
    let vk = VerifyingKey::from_sec1_bytes(&pk_bytes).unwrap();
    let k = sig.to_k256().unwrap();
    assert!(k.normalize_s().is_none(), "signature must be low-S");
    use k256::ecdsa::signature::hazmat::PrehashVerifier;
    vk.verify_prehash(digest, &k).unwrap();
    let rec = VerifyingKey::recover_from_prehash(
        digest,
        &k,
        RecoveryId::from_byte(sig.recovery_id()).unwrap(),
    )
    .unwrap();
    assert_eq!(rec, vk);
    // libsecp256k1
    let secp = secp256k1::Secp256k1::verification_only();
    let msg = secp256k1::Message::from_digest(*digest);
    let pk2 = secp256k1::PublicKey::from_slice(&pk_bytes).unwrap();
    let s2 = secp256k1::ecdsa::Signature::from_compact(&sig.to_bytes()).unwrap();
    secp.verify_ecdsa(&msg, &s2, &pk2).unwrap();
    let s3 = secp256k1::ecdsa::Signature::from_der(&sig.to_der().unwrap()).unwrap();
    assert_eq!(s2, s3);
    let rid = secp256k1::ecdsa::RecoveryId::from_i32(i32::from(sig.recovery_id())).unwrap();
    let rs = secp256k1::ecdsa::RecoverableSignature::from_compact(&sig.to_bytes(), rid).unwrap();
    assert_eq!(secp.recover_ecdsa(&msg, &rs).unwrap(), pk2);
}

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

fn reconstruct(shares: &[KeyShare], ids: &[u16]) -> Scalar {
    let xs: Vec<Scalar> = ids.iter().map(|i| Scalar::from(u64::from(*i))).collect();
    let ys: Vec<Scalar> = ids
        .iter()
        .map(|i| shares[usize::from(*i) - 1].secret_share_for_test())
        .collect();
    quorate_core::lagrange::interpolate_at(&xs, &ys, &Scalar::ZERO).unwrap()
}

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
    let res = run_dkg(2, 3, 1, None, &|_| DkgFault::None, &|from, to, m| {
        if from == pid(2) && to == pid(1) {
            m.corrupt_share_for_test();
        }
    });
    let err = res[0].as_ref().unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some("DKG: share verification"));
    assert!(res[2].is_ok());
    // Bad proof of knowledge by P3.
    let res = run_dkg(
        2,
        3,
        2,
        None,
        &|i| {
            if i == pid(3) {
                DkgFault::BadProof
            } else {
                DkgFault::None
            }
        },
        &|_, _, _| {},
    );
    for r in &res[..2] {
        let err = r.as_ref().unwrap_err();
        assert_eq!(err.culprits(), &[pid(3)]);
        assert_eq!(err.check(), Some("DKG: proof of knowledge"));
    }
    // Wrong-length Feldman vector by P1 (committed to, so the opening is valid).
    let res = run_dkg(
        3,
        4,
        3,
        None,
        &|i| {
            if i == pid(1) {
                DkgFault::LongVector
            } else {
                DkgFault::None
            }
        },
        &|_, _, _| {},
    );
    for r in &res[1..] {
        let err = r.as_ref().unwrap_err();
        assert_eq!(err.culprits(), &[pid(1)]);
        assert_eq!(err.check(), Some("DKG: Feldman vector length"));
    }
    // Reveal that does not match the round-1 commitment.
    let res = run_dkg(2, 3, 4, None, &|_| DkgFault::None, &|from, _, m| {
        if from == pid(1) {
            m.extend_feldman_for_test();
        }
    });
    assert_eq!(
        res[1].as_ref().unwrap_err().check(),
        Some("DKG: commitment opening")
    );
    // Wrong-length base-OT vector from P2 to P3 (base-OT answers go to the higher index).
    let res = run_dkg(2, 3, 5, None, &|_| DkgFault::None, &|from, to, m| {
        if from == pid(2) && to == pid(3) {
            m.truncate_base_ot_for_test();
        }
    });
    let err = res[2].as_ref().unwrap_err();
    assert_eq!(err.culprits(), &[pid(2)]);
    assert_eq!(err.check(), Some("base OT: number of receiver points"));
    // Inconsistent OT-extension message bootstrapping the reverse direction, P3 to P1.
    let res = run_dkg_full(
        2,
        3,
        6,
        None,
        &|_| DkgFault::None,
        &|_, _, _| {},
        &|from, to, m| {
            if from == pid(3) && to == pid(1) {
                m.corrupt_for_test();
            }
        },
    );
    let err = res[0].as_ref().unwrap_err();
    assert_eq!(err.culprits(), &[pid(3)]);
    assert_eq!(err.check(), Some("OT extension: KOS consistency check"));
    assert!(res[1].is_ok() && res[2].is_ok());
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

#[test]
fn garbage_and_truncated_messages_are_typed_errors() {
    let mut shares = keygen(2, 2, 13);
    let ids = [pid(1), pid(2)];
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (_st, m1) = sign::sign_round1(&shares[0], b"g", &ids, &mut rng).unwrap();
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
    let (st, _m1) = sign::sign_round1(&shares[0], b"g2", &ids, &mut rng).unwrap();
    let err = sign::sign_round2(st, &mut shares[0], &[], &mut rng).unwrap_err();
    assert_eq!(err, EcdsaError::MissingMessage { from: pid(2) });
}

#[test]
fn round_messages_have_the_documented_sizes() {
    let mut shares = keygen(2, 2, 14);
    let ids = [pid(1), pid(2)];
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (st1, m1) = sign::sign_round1(&shares[0], b"s", &ids, &mut rng).unwrap();
    let (st2, m2) = sign::sign_round1(&shares[1], b"s", &ids, &mut rng).unwrap();
    let b1 = m1[0].1.to_bytes().len();
    let (_s, out1) =
        sign::sign_round2(st1, &mut shares[0], &[(pid(2), m2[0].1.clone())], &mut rng).unwrap();
    let (_s, _out2) =
        sign::sign_round2(st2, &mut shares[1], &[(pid(1), m1[0].1.clone())], &mut rng).unwrap();
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

/// Prefixes of every real message type (all cuts near the ends, a stride in between), and
/// single-byte corruptions of the DKG messages, decodes to a typed error naming the sender (or, for a corruption that still
/// decodes, to a value the protocol then checks) and never panics.
#[test]
fn every_truncation_of_every_message_is_a_typed_error() {
    let params = ThresholdParams::new(2, 3).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    let session = SessionId::new(b"trunc".to_vec());
    let mut st1 = Vec::new();
    let mut out1 = Vec::new();
    for i in params.parties() {
        let (st, m) = dkg::keygen_round1(params, i, &session, &mut rng).unwrap();
        st1.push(st);
        out1.push((i, m));
    }
    let inbox1 = route(out1.clone(), 3);
    let mut st2 = Vec::new();
    let mut out2 = Vec::new();
    for (st, (i, msgs)) in st1.into_iter().zip(params.parties().zip(inbox1)) {
        let (st, m) = dkg::dkg_round2(st, &msgs, &mut rng).unwrap();
        st2.push(st);
        out2.push((i, m));
    }
    let inbox2 = route(out2.clone(), 3);
    let mut out3 = Vec::new();
    for (st, (i, msgs)) in st2.into_iter().zip(params.parties().zip(inbox2)) {
        let (_st, m) = dkg::dkg_round3(st, &msgs, &mut rng).unwrap();
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
    let (sa, s1a) = sign::sign_round1(&shares[0], b"t", &ids, &mut rng).unwrap();
    let (_sb, s1b) = sign::sign_round1(&shares[1], b"t", &ids, &mut rng).unwrap();
    let mut share0 = shares[0].clone();
    let (_s, s2a) =
        sign::sign_round2(sa, &mut share0, &[(pid(2), s1b[0].1.clone())], &mut rng).unwrap();
    let sign1 = s1a[0].1.to_bytes();
    let sign2 = s2a[0].1.to_bytes();
    type Decoder = fn(PartyId, &[u8]) -> bool;
    let cases: [(&[u8], Decoder); 5] = [
        (&m1, |p, b| DkgMsg1::from_bytes(p, b).is_ok()),
        (&m2, |p, b| DkgMsg2::from_bytes(p, b).is_ok()),
        (&m3, |p, b| DkgMsg3::from_bytes(p, b).is_ok()),
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
    for (bytes, decode) in &cases[..3] {
        for pos in 0..bytes.len().min(400) {
            let mut c = bytes.to_vec();
            c[pos] ^= 0xA5;
            let _ = decode(pid(3), &c);
        }
    }
}

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
    assert_eq!(err.check(), Some(blame::CHECK_DISPUTE));
    let err = run_sign(
        &mut shares,
        &[1, 2, 3, 4],
        &d,
        2,
        SignFault::Equivocate(4, 1),
    )
    .unwrap_err();
    assert_eq!(err.culprits(), &[pid(4)]);
    // Gap 2 of the audit: P1 opens R_1 + G to P3 and R_1 to P2 (each opening matches the
    // commitment its recipient got, and the multiplication with P3 used r_1 + 1, so every
    // pairwise check passes). The bodies differ only in R_1; the dispute names P1.
    let err = run_sign(&mut shares, &[1, 2, 3], &d, 7, SignFault::EquivocateR(1, 3)).unwrap_err();
    assert_eq!(err.culprits(), &[pid(1)]);
    assert_eq!(err.check(), Some(blame::CHECK_DISPUTE));
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
    assert_eq!(err.check(), Some(blame::CHECK_DISPUTE));
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

/// Runs honest rounds 1–3 and returns a round-2 message (P2 → P1, bytes), the round-3
/// states and each party's round-3 inbox.
#[allow(clippy::type_complexity)]
fn to_round3(
    shares: &mut [KeyShare],
    ids: &[PartyId],
    d: &[u8; 32],
    seed: u64,
) -> (
    Vec<u8>,
    Vec<(PartyId, sign::SignRound3)>,
    Vec<Vec<(PartyId, SignMsg3)>>,
) {
    let n = shares.len();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut st1 = Vec::new();
    let mut outs = Vec::new();
    for i in ids {
        let (st, m) = sign::sign_round1(&shares[i.position()], b"r3", ids, &mut rng).unwrap();
        st1.push((*i, st));
        outs.push((*i, m));
    }
    let mut inbox = route(outs, n);
    let mut st2 = Vec::new();
    let mut outs = Vec::new();
    for (i, st) in st1 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let (st, m) = sign::sign_round2(st, &mut shares[i.position()], &msgs, &mut rng).unwrap();
        st2.push((i, st));
        outs.push((i, m));
    }
    let sample = outs[1]
        .1
        .iter()
        .find(|(to, _)| *to == ids[0])
        .unwrap()
        .1
        .to_bytes();
    let mut inbox = route(outs, n);
    let mut st3 = Vec::new();
    let mut outs = Vec::new();
    for (i, st) in st2 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let (st, m) = sign::sign_round3(st, &mut shares[i.position()], d, &msgs).unwrap();
        st3.push((i, st));
        outs.push((i, to_others(ids, i, &m)));
    }
    (sample, st3, route(outs, n))
}

/// Every prefix of the new messages (signed round-2 body, round 3 with echo, blame and
/// dispute) is a typed error naming the sender, and corruptions never panic.
#[test]
fn blame_and_dispute_messages_reject_truncation_and_garbage() {
    let mut shares = keygen(3, 3, 70);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("truncation");
    let (sign2, mut st3, inbox3) = to_round3(&mut shares, &ids, &d, 1);
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

/// Hostile encodings of the new parts (the p2p entry of round 2, the body's hash list, the
/// entries of a blame message) are `Malformed` errors naming the sender.
#[test]
fn bad_entries_in_new_messages_are_malformed_naming_the_sender() {
    let mut shares = keygen(3, 3, 84);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("bad entries");
    let (sign2, mut st3, inbox3) = to_round3(&mut shares, &ids, &d, 1);
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

/// Like [`to_round3`], but `cheater` equivocates `R_i` towards `victim` (validly signed
/// bodies with different `R`); every round-3 check passes, the echo digests differ.
#[allow(clippy::type_complexity)]
fn to_round3_equivocating_r(
    shares: &mut [KeyShare],
    ids: &[PartyId],
    d: &[u8; 32],
    seed: u64,
    cheater: PartyId,
    victim: PartyId,
) -> (
    Vec<(PartyId, sign::SignRound3)>,
    Vec<Vec<(PartyId, SignMsg3)>>,
) {
    let n = shares.len();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut st1 = Vec::new();
    let mut outs = Vec::new();
    for i in ids {
        let share = &shares[i.position()];
        let (st, m) = if *i == cheater {
            sign::sign_round1_equivocating_r(share, b"eq", ids, victim, &mut rng).unwrap()
        } else {
            sign::sign_round1(share, b"eq", ids, &mut rng).unwrap()
        };
        st1.push((*i, st));
        outs.push((*i, m));
    }
    let mut inbox = route(outs, n);
    let mut st2 = Vec::new();
    let mut outs = Vec::new();
    for (i, st) in st1 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let (st, m) = sign::sign_round2(st, &mut shares[i.position()], &msgs, &mut rng).unwrap();
        st2.push((i, st));
        outs.push((i, m));
    }
    let mut inbox = route(outs, n);
    let mut st3 = Vec::new();
    let mut outs = Vec::new();
    for (i, st) in st2 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let (st, m) = sign::sign_round3(st, &mut shares[i.position()], d, &msgs).unwrap();
        st3.push((i, st));
        outs.push((i, to_others(ids, i, &m)));
    }
    (st3, route(outs, n))
}

/// Review of issue 4 (session 3): a signer that enters the blame round with
/// `SignRound3::blame` although the echo digests differ (e.g. on a cheater's request) must
/// not name an honest signer. Here signer 3 opens a different `R_3` to signer 1 (validly
/// signed bodies), so signers 1 and 2 hold different bodies and statements; before the fix
/// the honest signers named each other. Now they name nobody in the blame round and the
/// dispute names exactly signer 3.
#[test]
fn blame_entered_despite_differing_echoes_never_names_an_honest_signer() {
    let mut shares = keygen(3, 4, 90);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("blame after equivocation");
    let (cheater, victim) = (pid(3), pid(1));
    let (st3, inbox3) = to_round3_equivocating_r(&mut shares, &ids, &d, 5, cheater, victim);
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
    let (st3b, inbox3b) = to_round3_equivocating_r(&mut shares2, &ids, &d, 5, cheater, victim);
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
        assert_eq!(st.failing_signers(&msgs), Vec::<PartyId>::new(), "at {i}");
        let e = blame::resolve_blame(st, &msgs);
        assert!(matches!(e, EcdsaError::Param(_)), "at {i}: {e:?}");
        assert!(e.culprits().is_empty());
    }
    let mut dinbox = route(dispute_outs, 4);
    for (i, st) in dispute_states {
        if i == cheater {
            continue;
        }
        let e = blame::resolve_dispute(st, &std::mem::take(&mut dinbox[i.position()]));
        assert_eq!(e.culprits(), &[cheater], "at {i}");
        assert_eq!(e.check(), Some(blame::CHECK_DISPUTE));
    }
}

/// Review of issue 4 (session 3): an identical replayed copy of an honest blame or dispute
/// message names nobody; two different messages from one sender name it.
#[test]
fn replayed_blame_and_dispute_messages_name_nobody() {
    let mut shares = keygen(3, 3, 91);
    let ids = [pid(1), pid(2), pid(3)];
    let d = digest("replay");
    let (_, st3, inbox3) = to_round3(&mut shares, &ids, &d, 7);
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
    assert!(st1.failing_signers(&others).is_empty());
    // A replayed identical copy of signer 2's message: still nobody.
    let mut replayed = others.clone();
    replayed.push(others[0].clone());
    assert!(st1.failing_signers(&replayed).is_empty());
    // Two different messages from signer 2: signer 2.
    let mut twice = others.clone();
    let mut other = others[0].1.clone();
    other.corrupt_entry_for_test();
    twice.push((pid(2), other));
    assert_eq!(st1.failing_signers(&twice), vec![pid(2)]);

    // The dispute round: an identical replay names nobody, a different second message
    // names its sender.
    let mut shares = keygen(3, 3, 92);
    let (_, st3, inbox3) = to_round3(&mut shares, &ids, &d, 9);
    let mut dstates = Vec::new();
    let mut douts = Vec::new();
    for (i, st) in st3 {
        let (dst, dm) = st.dispute(&inbox3[i.position()]).unwrap().respond();
        dstates.push((i, dst));
        douts.push((i, dm));
    }
    let mut it = dstates.into_iter();
    let (_, d1) = it.next().unwrap();
    let (_, d1b) = {
        // A second state of signer 1 for the second check (states are consumed).
        let mut shares = keygen(3, 3, 92);
        let (_, st3, inbox3) = to_round3(&mut shares, &ids, &d, 9);
        let (i, st) = st3.into_iter().next().unwrap();
        (i, st.dispute(&inbox3[i.position()]).unwrap().respond().0)
    };
    let mut replayed: Vec<(PartyId, DisputeMsg)> = douts[1..].to_vec();
    replayed.push(douts[1].clone());
    assert_eq!(
        blame::resolve_dispute(d1, &replayed),
        EcdsaError::InvalidSignature
    );
    let mut twice: Vec<(PartyId, DisputeMsg)> = douts[1..].to_vec();
    let mut other = douts[1].1.clone();
    other.corrupt_signature_for_test(pid(3));
    twice.push((pid(2), other));
    assert_eq!(blame::resolve_dispute(d1b, &twice).culprits(), &[pid(2)]);
}

/// Review of issue 4 (session 3): with three or more signers a key share signs a round-2
/// body at most once per session id. Before the fix a reused `sign_id` made an honest signer
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
            let (st, m) =
                sign::sign_round1(&shares[i.position()], b"reused", &ids, &mut rng).unwrap();
            st1.push((*i, st));
            outs.push((*i, m));
        }
        let mut inbox = route(outs, 3);
        for (i, st) in st1 {
            let msgs = std::mem::take(&mut inbox[i.position()]);
            let res = sign::sign_round2(st, &mut shares[i.position()], &msgs, &mut rng);
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
