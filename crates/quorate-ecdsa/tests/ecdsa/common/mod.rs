//! The one in-process runner the integration tests share: key generation (or refresh) and
//! signing through the canonical byte encodings, with fault injection (feature
//! `test-faults`, enabled for the tests by the crate's dev-dependency on itself).
#![allow(clippy::unwrap_used, dead_code)]

use ed25519_dalek::SigningKey;
use k256::ecdsa::{RecoveryId, VerifyingKey};
use k256::{ProjectivePoint, Scalar};
use quorate_core::{PartyId, ThresholdParams};
use quorate_ecdsa::keygen::{
    self, DkgFault, DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4, DkgRound4, EpochCertificate, PendingRefresh,
};
use quorate_ecdsa::sign::{
    self, blame, dispute, BlameMsg, Combined, DisputeMsg, Round1Fault, Round2Fault, Round3Fault,
    SignMsg1, SignMsg2, SignMsg3, SignRound3, Signature,
};
use quorate_ecdsa::{EcdsaError, KeyShare, SessionId};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use sha2::{Digest, Sha256};

pub fn pid(i: u16) -> PartyId {
    PartyId::new(i).unwrap()
}

pub fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// The same message from `i` to every other signer in `ids`.
pub fn to_others<M: Clone>(ids: &[PartyId], i: PartyId, m: &M) -> Vec<(PartyId, M)> {
    ids.iter()
        .filter(|j| **j != i)
        .map(|j| (*j, m.clone()))
        .collect()
}

/// Delivers `(from, [(to, msg)])` into per-party inboxes (`inbox[k]` is party `k + 1`'s).
pub fn route<M>(outs: Vec<(PartyId, Vec<(PartyId, M)>)>, n: usize) -> Vec<Vec<(PartyId, M)>> {
    let mut inbox: Vec<Vec<(PartyId, M)>> = (0..n).map(|_| Vec::new()).collect();
    for (from, msgs) in outs {
        for (to, m) in msgs {
            inbox[to.position()].push((from, m));
        }
    }
    inbox
}

/// How a key generation deviates: one party's round-1 fault, and hooks on the round-2 and
/// round-3 messages `(from, to, msg)` and the round-4 broadcast `(from, msg)`.
pub struct DkgRun<'a> {
    pub fault: Option<(PartyId, DkgFault)>,
    pub tamper2: &'a dyn Fn(PartyId, PartyId, &mut DkgMsg2),
    pub tamper3: &'a dyn Fn(PartyId, PartyId, &mut DkgMsg3),
    /// On the round-4 broadcast of a party.
    pub tamper4: &'a dyn Fn(PartyId, &mut DkgMsg4),
}

impl Default for DkgRun<'_> {
    fn default() -> Self {
        DkgRun {
            fault: None,
            tamper2: &|_, _, _| {},
            tamper3: &|_, _, _| {},
            tamper4: &|_, _| {},
        }
    }
}

/// Deterministic identity keys for a test run: party `i`'s key is `identity(seed, i)`.
pub fn identity(seed: u64, i: PartyId) -> SigningKey {
    let d: [u8; 32] = Sha256::digest(format!("test identity {seed} {}", i.get())).into();
    SigningKey::from_bytes(&d)
}

/// The roster of `identity(seed, ·)` for `n` parties.
pub fn roster(seed: u64, n: u16) -> Vec<ed25519_dalek::VerifyingKey> {
    PartyId::range(n)
        .map(|i| identity(seed, i).verifying_key())
        .collect()
}

/// What one party holds after round 4: its state and the round-4 messages it received.
pub type AtAgreement = Result<(DkgRound4, Vec<(PartyId, DkgMsg4)>), EcdsaError>;

/// Runs key generation (or refresh when `old` is given) through rounds 1 to 4 and the byte
/// encodings. Identity keys: `identity(seed, ·)` (keygen roster, or the keys a refresh
/// rotates to). A party whose round 3 or 4 fails sends nothing in that round.
pub fn run_to_agreement(
    t: u16,
    n: u16,
    seed: u64,
    old: Option<&[KeyShare]>,
    run: DkgRun<'_>,
) -> Vec<AtAgreement> {
    let params = ThresholdParams::new(t, n).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let session = SessionId::new(format!("test-dkg-{seed}").into_bytes());
    let roster = roster(seed, n);
    let mut states = Vec::new();
    let mut outs = Vec::new();
    for i in params.parties() {
        let fault = match run.fault {
            Some((c, f)) if c == i => f,
            _ => DkgFault::None,
        };
        let id = identity(seed, i);
        let (st, msgs) = match old {
            Some(o) => keygen::refresh_round1(&o[i.position()], &session, id, &mut rng).unwrap(),
            None => {
                keygen::round1_faulty(params, i, &session, id, &roster, fault, &mut rng).unwrap()
            }
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
        let (st2, m2) = keygen::round2(st, &msgs, &mut rng).unwrap();
        let m2 = m2
            .into_iter()
            .map(|(to, mut m)| {
                (run.tamper2)(i, to, &mut m);
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
        match keygen::round3(st, &msgs, &mut rng) {
            Ok((st3, m3)) => {
                let m3 = m3
                    .into_iter()
                    .map(|(to, mut m)| {
                        (run.tamper3)(i, to, &mut m);
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
    let mut states4 = Vec::new();
    let mut outs4 = Vec::new();
    for (st, (i, msgs)) in states3.into_iter().zip(params.parties().zip(inbox)) {
        match st.and_then(|st| keygen::round4(st, &msgs)) {
            Ok((st4, mut m4)) => {
                (run.tamper4)(i, &mut m4);
                let m4 = DkgMsg4::from_bytes(i, &m4.to_bytes()).unwrap();
                outs4.push((i, to_others(&params.parties().collect::<Vec<_>>(), i, &m4)));
                states4.push(Ok(st4));
            }
            Err(e) => states4.push(Err(e)),
        }
    }
    let inbox = route(outs4, n as usize);
    states4
        .into_iter()
        .zip(inbox)
        .map(|(st, msgs)| st.map(|st| (st, msgs)))
        .collect()
}

/// Runs key generation to its end, or a refresh to its certificate and a commit onto a
/// copy of the old share.
pub fn run_dkg(
    t: u16,
    n: u16,
    seed: u64,
    old: Option<&[KeyShare]>,
    run: DkgRun<'_>,
) -> Vec<Result<KeyShare, EcdsaError>> {
    run_to_agreement(t, n, seed, old, run)
        .into_iter()
        .enumerate()
        .map(|(k, r)| {
            let (st, msgs) = r?;
            // The new share's accessors before the agreement give what the output carries.
            let me = pid(k as u16 + 1);
            let early = (st.expose_new_secret_share(), st.new_public_share_bytes(me));
            let out = match old {
                None => keygen::finish(st, &msgs),
                Some(o) => {
                    // Through the encodings, as the node persists them.
                    let stored = PendingRefresh::from_bytes(&st.pending().unwrap().to_bytes())?;
                    let (pending, cert) = keygen::certify(st, &msgs)?;
                    assert_eq!(stored.transcript(), pending.transcript());
                    let pending = stored;
                    let cert = EpochCertificate::from_bytes(&cert.to_bytes()).unwrap();
                    let mut current = o[k].clone();
                    pending.commit(&mut current, &cert)?;
                    Ok(current)
                }
            }?;
            assert_eq!(*early.0, *out.expose_secret_share());
            assert_eq!(early.1, out.public_share_bytes(me));
            Ok(out)
        })
        .collect()
}

pub fn keygen(t: u16, n: u16, seed: u64) -> Vec<KeyShare> {
    run_dkg(t, n, seed, None, DkgRun::default())
        .into_iter()
        .map(|r| r.unwrap())
        .collect()
}

pub fn refresh(shares: &[KeyShare], seed: u64) -> Vec<KeyShare> {
    let p = shares[0].params();
    run_dkg(p.t(), p.n(), seed, Some(shares), DkgRun::default())
        .into_iter()
        .map(|r| r.unwrap())
        .collect()
}

/// How one signer deviates (at most one per run; `Ote2` has two).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum SignFault {
    None,
    /// The party sends inconsistent OT-extension messages in round 1.
    Ote(u16),
    /// Both parties send inconsistent OT-extension messages in round 1.
    Ote2(u16, u16),
    /// The party's round-1 extension messages deviate in one column (a selective-failure
    /// probe of each counterparty's `Δ`; a pass leaves a correct multiplication).
    OteColumn(u16, u8),
    /// The party probes multiplication row 0 in round 2 (caught iff γ_0 = 1).
    MulRow(u16),
    /// The party sends a Γ_u inconsistent with its R_i.
    Gamma(u16),
    /// The party sends a Γ_v inconsistent with its pk_i.
    GammaV(u16),
    /// The party sends Γ_u + G and Γ_v − G (errors that cancel in a plain sum of the two
    /// Γ equations, not in the randomly weighted one).
    GammaCancelling(u16),
    /// The party sends a Γ_u inconsistent with its R_i to the second party only (and
    /// consistent entries to everyone else).
    GammaTo(u16, u16),
    /// Both parties send a Γ_u inconsistent with their R_i (two cheaters in one session).
    Gamma2(u16, u16),
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
    /// The deviating party, if any.
    pub fn cheater(self) -> Option<PartyId> {
        match self {
            SignFault::None | SignFault::ForceBlame => None,
            SignFault::Ote(i)
            | SignFault::Ote2(i, _)
            | SignFault::OteColumn(i, _)
            | SignFault::MulRow(i)
            | SignFault::Gamma(i)
            | SignFault::GammaV(i)
            | SignFault::GammaCancelling(i)
            | SignFault::GammaTo(i, _)
            | SignFault::Gamma2(i, _)
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

    fn round1(self, i: PartyId) -> Round1Fault {
        match self {
            SignFault::Ote(c) if c == i.get() => Round1Fault::MaliciousOte,
            SignFault::Ote2(a, b) if a == i.get() || b == i.get() => Round1Fault::MaliciousOte,
            SignFault::EquivocateR(c, v) if c == i.get() => Round1Fault::EquivocateR(pid(v)),
            SignFault::OteColumn(c, col) if c == i.get() => Round1Fault::OteColumn(col),
            _ => Round1Fault::None,
        }
    }

    fn round2(self, i: PartyId) -> Round2Fault {
        match self {
            SignFault::MulRow(c) if c == i.get() => Round2Fault::MulRow(0),
            _ => Round2Fault::None,
        }
    }

    /// Applies the message-level deviations of round 2 to `m` (from `i` to `to`).
    fn tamper2(self, i: PartyId, to: PartyId, m: &mut SignMsg2, key: &KeyShare) {
        let (i, to) = (i.get(), to.get());
        let g = ProjectivePoint::GENERATOR;
        match self {
            SignFault::Gamma(c) if c == i => {
                m.corrupt_gamma_for_test(key, g, ProjectivePoint::IDENTITY)
            }
            SignFault::GammaV(c) if c == i => {
                m.corrupt_gamma_for_test(key, ProjectivePoint::IDENTITY, g)
            }
            SignFault::GammaCancelling(c) if c == i => m.corrupt_gamma_for_test(key, g, -g),
            SignFault::GammaTo(c, v) if (c, v) == (i, to) => {
                m.corrupt_gamma_for_test(key, g, ProjectivePoint::IDENTITY)
            }
            SignFault::Gamma2(a, b) if a == i || b == i => {
                m.corrupt_gamma_for_test(key, g, ProjectivePoint::IDENTITY)
            }
            SignFault::ShortMul(c) if c == i => m.truncate_mul_for_test(),
            SignFault::Pk(c) if c == i => m.corrupt_pk_for_test(key),
            SignFault::Equivocate(c, v) if (c, v) == (i, to) => m.equivocate_for_test(pid(to), key),
            SignFault::BadBodySig(c, v) if (c, v) == (i, to) => m.corrupt_signature_for_test(),
            SignFault::BadEntry(c, v) if (c, v) == (i, to) => m.corrupt_entry_for_test(),
            _ => {}
        }
    }

    fn round3(self, i: PartyId) -> Round3Fault {
        match self {
            SignFault::Round3(c, f) if c == i.get() => f,
            SignFault::LiarForges(c) if c == i.get() => Round3Fault::WrongEcho,
            _ => Round3Fault::None,
        }
    }
}

/// The round-3 states and each party's round-3 inbox, plus a sample round-2 message
/// (the second signer's to the first, bytes).
pub struct AtRound3 {
    pub sample2: Vec<u8>,
    pub states: Vec<(PartyId, SignRound3)>,
    pub inbox: Vec<Vec<(PartyId, SignMsg3)>>,
}

/// Rounds 1–3 of signing through the byte encodings, with `fault`. Honest parties report
/// errors in party order; the first is returned.
pub fn sign_to_round3(
    shares: &mut [KeyShare],
    ids: &[PartyId],
    digest: &[u8; 32],
    session: &SessionId,
    rng: &mut ChaCha20Rng,
    fault: SignFault,
) -> Result<AtRound3, EcdsaError> {
    let n = shares.len();
    let mut st1 = Vec::new();
    let mut outs = Vec::new();
    for i in ids {
        let share = &shares[i.position()];
        let (st, msgs) = sign::round1_faulty(share, session, ids, fault.round1(*i), rng)?;
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
    let mut first_err = None;
    for (i, st) in st1 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let share = &shares[i.position()];
        match sign::round2_faulty(st, share, &msgs, fault.round2(i), rng) {
            Ok((st, msgs)) => {
                let key = &shares[i.position()];
                let msgs = msgs
                    .into_iter()
                    .map(|(to, mut m)| {
                        fault.tamper2(i, to, &mut m, key);
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
    let sample2 = outs
        .get(1)
        .and_then(|(_, m): &(PartyId, Vec<(PartyId, SignMsg2)>)| {
            m.iter().find(|(to, _)| *to == ids[0])
        })
        .map(|(_, m)| m.to_bytes())
        .unwrap_or_default();
    let mut inbox = route(outs, n);
    let mut st3 = Vec::new();
    let mut outs = Vec::new();
    for (i, st) in st2 {
        let msgs = std::mem::take(&mut inbox[i.position()]);
        let share = &shares[i.position()];
        match sign::round3_faulty(st, share, digest, &msgs, fault.round3(i)) {
            Ok((st, m)) => {
                let m = SignMsg3::from_bytes(i, &m.to_bytes()).unwrap();
                st3.push((i, st));
                outs.push((i, to_others(ids, i, &m)));
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_err {
        return Err(e);
    }
    Ok(AtRound3 {
        sample2,
        states: st3,
        inbox: route(outs, n),
    })
}

/// Honest rounds 1–3 under the session `session` (panics on any error).
pub fn to_round3(
    shares: &mut [KeyShare],
    ids: &[PartyId],
    d: &[u8; 32],
    session: &[u8],
    seed: u64,
    fault: SignFault,
) -> AtRound3 {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let session = SessionId::new(session.to_vec());
    sign_to_round3(shares, ids, d, &session, &mut rng, fault).unwrap()
}

/// Signs `digest` with the parties `signers` (1-based), through the byte encodings. Runs
/// the dispute or blame round when combining fails, asserts that the honest signers agree
/// on its verdict, and returns it.
pub fn run_sign(
    shares: &mut [KeyShare],
    signers: &[u16],
    digest: &[u8; 32],
    seed: u64,
    fault: SignFault,
) -> Result<Signature, EcdsaError> {
    let ids: Vec<PartyId> = signers.iter().map(|i| pid(*i)).collect();
    let n = shares.len();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let session = SessionId::new(format!("sign-{seed}").into_bytes());
    let at3 = sign_to_round3(shares, &ids, digest, &session, &mut rng, fault)?;
    let mut inbox = at3.inbox;
    let mut sigs = Vec::new();
    let mut blames = Vec::new();
    let mut disputes = Vec::new();
    for (i, st) in at3.states {
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
        let inbox = route(outs, n);
        let errs: Vec<EcdsaError> = states
            .into_iter()
            .filter(|(i, _)| Some(*i) != cheater)
            .map(|(i, st)| dispute::resolve(&st, &inbox[i.position()]))
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
        let inbox = route(outs, n);
        let errs: Vec<EcdsaError> = states
            .into_iter()
            .filter(|(i, _)| Some(*i) != cheater)
            .map(|(i, st)| blame::resolve(&st, &inbox[i.position()]))
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

/// Checks a signature with k256 and libsecp256k1: verification, low-S, DER, recovery.
pub fn check_external(pk: &ProjectivePoint, digest: &[u8; 32], sig: &Signature) {
    let pk_bytes = quorate_ecdsa::curve::point_bytes(pk);
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

/// The key reconstructed from the shares of `ids` (1-based).
pub fn reconstruct(shares: &[KeyShare], ids: &[u16]) -> Scalar {
    let xs: Vec<Scalar> = ids.iter().map(|i| Scalar::from(u64::from(*i))).collect();
    let ys: Vec<Scalar> = ids
        .iter()
        .map(|i| shares[usize::from(*i) - 1].secret_share_for_test())
        .collect();
    quorate_core::lagrange::interpolate_at(&xs, &ys, &Scalar::ZERO).unwrap()
}
