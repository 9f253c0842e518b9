//! quorate-ecdsa: the four DKG messages and the three signing messages of a 2-of-2 run.
//! Each check gives the mutated message to the receiving party in the state the valid
//! message was made for (deterministic RNGs): the round must either succeed or fail naming
//! the sender and nobody else, and a signature that comes out must verify. The key
//! generation states are built once and copied per input (`Clone` from quorate-ecdsa's
//! `fuzzing` feature); the signing checks replay the earlier signing rounds from a fresh
//! copy of the share, because signing changes the share's pairwise OT store.

use crate::{re, rng, Case};
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use ed25519_dalek::{SigningKey, VerifyingKey};
use quorate_ecdsa::keygen::{
    self as dkg, DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4, DkgRound1, DkgRound2, DkgRound3, DkgRound4,
};
use quorate_ecdsa::sign::{
    self, Combined, SignMsg1, SignMsg2, SignMsg3, SignRound1, SignRound2, SignRound3,
};
use quorate_ecdsa::{EcdsaError, KeyShare};
use rand_chacha::ChaCha20Rng;

const DIGEST: [u8; 32] = [0x5a; 32];

fn sign_session() -> SessionId {
    SessionId::new(b"quorate-fuzz sign".to_vec())
}

/// An independent copy of a share: clones share one pairwise OT store (and its bans), so
/// each check restores the share from its bytes and a ban in one run never reaches the next.
fn independent(share: &KeyShare) -> KeyShare {
    KeyShare::from_bytes(&share.to_bytes()).expect("a share's own encoding decodes")
}

fn pid(i: u16) -> PartyId {
    PartyId::new(i).expect("party id")
}

fn session() -> SessionId {
    SessionId::new(b"quorate-fuzz dkg".to_vec())
}

/// Party `k + 1`'s fixed identity key.
fn identity(k: usize) -> SigningKey {
    SigningKey::from_bytes(&[k as u8 + 1; 32])
}

fn roster() -> Vec<VerifyingKey> {
    (0..2).map(|k| identity(k).verifying_key()).collect()
}

fn params() -> ThresholdParams {
    ThresholdParams::new(2, 2).expect("params")
}

/// The one message `from` sends to `to` in a list of addressed messages.
fn to<M: Clone>(msgs: &[(PartyId, M)], to: PartyId) -> M {
    msgs.iter()
        .find(|(t, _)| *t == to)
        .expect("addressed")
        .1
        .clone()
}

/// A round's outcome is acceptable: success, or an error naming only `sender`.
fn blames_only<T>(r: &Result<T, EcdsaError>, sender: PartyId) -> bool {
    match r {
        Ok(_) => true,
        Err(e) => {
            assert!(
                e.culprits().iter().all(|c| *c == sender),
                "an error blames an honest party: {e:?}"
            );
            false
        }
    }
}

/// The whole valid run, replayable party by party.
struct Run {
    m1: [Vec<(PartyId, DkgMsg1)>; 2],
    m2: [Vec<(PartyId, DkgMsg2)>; 2],
    m3: [Vec<(PartyId, DkgMsg3)>; 2],
    m4: [DkgMsg4; 2],
    shares: [KeyShare; 2],
    s1: [Vec<(PartyId, SignMsg1)>; 2],
    s2: [Vec<(PartyId, SignMsg2)>; 2],
    s3: [SignMsg3; 2],
}

fn dkg_rng(k: usize) -> ChaCha20Rng {
    rng(100 + k as u64)
}

fn sign_rng(k: usize) -> ChaCha20Rng {
    rng(200 + k as u64)
}

impl Run {
    fn new() -> Run {
        let mut r = [dkg_rng(0), dkg_rng(1)];
        let ids = [pid(1), pid(2)];
        let (a, b) = r.split_at_mut(1);
        let (st1a, m1a) =
            dkg::round1(params(), ids[0], &session(), identity(0), &roster(), &mut a[0])
                .expect("r1");
        let (st1b, m1b) =
            dkg::round1(params(), ids[1], &session(), identity(1), &roster(), &mut b[0])
                .expect("r1");
        let (st2a, m2a) =
            dkg::round2(st1a, &[(ids[1], to(&m1b, ids[0]))], &mut a[0]).expect("r2");
        let (st2b, m2b) =
            dkg::round2(st1b, &[(ids[0], to(&m1a, ids[1]))], &mut b[0]).expect("r2");
        let (st3a, m3a) =
            dkg::round3(st2a, &[(ids[1], to(&m2b, ids[0]))], &mut a[0]).expect("r3");
        let (st3b, m3b) =
            dkg::round3(st2b, &[(ids[0], to(&m2a, ids[1]))], &mut b[0]).expect("r3");
        let in3 =
            |m: &[(PartyId, DkgMsg3)], from: PartyId, me: PartyId| -> Vec<(PartyId, DkgMsg3)> {
                m.iter()
                    .filter(|(t, _)| *t == me)
                    .map(|(_, x)| (from, x.clone()))
                    .collect()
            };
        let (st4a, m4a) = dkg::round4(st3a, &in3(&m3b, ids[1], ids[0])).expect("r4");
        let (st4b, m4b) = dkg::round4(st3b, &in3(&m3a, ids[0], ids[1])).expect("r4");
        let ka = dkg::finish(st4a, &[(ids[1], m4b.clone())]).expect("finish");
        let kb = dkg::finish(st4b, &[(ids[0], m4a.clone())]).expect("finish");
        let fresh = [ka.clone(), kb.clone()];
        let mut shares = [ka, kb];
        let mut r = [sign_rng(0), sign_rng(1)];
        let (a, b) = r.split_at_mut(1);
        let (sh_a, sh_b) = shares.split_at_mut(1);
        let (t1a, s1a) = sign::round1(&sh_a[0], &sign_session(), &ids, &mut a[0]).expect("s1");
        let (t1b, s1b) = sign::round1(&sh_b[0], &sign_session(), &ids, &mut b[0]).expect("s1");
        let (t2a, s2a) =
            sign::round2(t1a, &mut sh_a[0], &[(ids[1], to(&s1b, ids[0]))], &mut a[0])
                .expect("s2");
        let (t2b, s2b) =
            sign::round2(t1b, &mut sh_b[0], &[(ids[0], to(&s1a, ids[1]))], &mut b[0])
                .expect("s2");
        let (t3a, s3a) =
            sign::round3(t2a, &mut sh_a[0], &DIGEST, &[(ids[1], to(&s2b, ids[0]))])
                .expect("s3");
        let (_t3b, s3b) =
            sign::round3(t2b, &mut sh_b[0], &DIGEST, &[(ids[0], to(&s2a, ids[1]))])
                .expect("s3");
        match sign::combine(t3a, &[(ids[1], s3b.clone())]).expect("combine") {
            Combined::Signature(_) => {}
            _ => panic!("the valid run did not sign"),
        }
        // The checks start from fresh copies of the shares (signing may ban parties).
        let shares = fresh;
        Run {
            m1: [m1a, m1b],
            m2: [m2a, m2b],
            m3: [m3a, m3b],
            m4: [m4a, m4b],
            shares,
            s1: [s1a, s1b],
            s2: [s2a, s2b],
            s3: [s3a, s3b],
        }
    }

    fn dkg1(k: usize, r: &mut ChaCha20Rng) -> DkgRound1 {
        dkg::round1(params(), pid(k as u16 + 1), &session(), identity(k), &roster(), r)
            .expect("r1")
            .0
    }

    fn dkg2(&self, k: usize, r: &mut ChaCha20Rng) -> DkgRound2 {
        let st = Self::dkg1(k, r);
        let (me, other) = (pid(k as u16 + 1), pid(2 - k as u16));
        dkg::round2(st, &[(other, to(&self.m1[1 - k], me))], r)
            .expect("r2")
            .0
    }

    fn dkg3(&self, k: usize, r: &mut ChaCha20Rng) -> DkgRound3 {
        let st = self.dkg2(k, r);
        let (me, other) = (pid(k as u16 + 1), pid(2 - k as u16));
        dkg::round3(st, &[(other, to(&self.m2[1 - k], me))], r)
            .expect("r3")
            .0
    }

    fn dkg4(&self, k: usize, r: &mut ChaCha20Rng) -> DkgRound4 {
        let st = self.dkg3(k, r);
        let (me, other) = (pid(k as u16 + 1), pid(2 - k as u16));
        // Bootstrap messages flow to the lower index only.
        let m3: Vec<(PartyId, DkgMsg3)> = self.m3[1 - k]
            .iter()
            .filter(|(t, _)| *t == me)
            .map(|(_, m)| (other, m.clone()))
            .collect();
        dkg::round4(st, &m3).expect("r4").0
    }

    fn sign1(&self, _k: usize, share: &KeyShare, r: &mut ChaCha20Rng) -> SignRound1 {
        sign::round1(share, &sign_session(), &[pid(1), pid(2)], r)
            .expect("s1")
            .0
    }

    fn sign2(&self, k: usize, share: &mut KeyShare, r: &mut ChaCha20Rng) -> SignRound2 {
        let st = self.sign1(k, share, r);
        let (me, other) = (pid(k as u16 + 1), pid(2 - k as u16));
        sign::round2(st, share, &[(other, to(&self.s1[1 - k], me))], r)
            .expect("s2")
            .0
    }

    fn sign3(&self, k: usize, share: &mut KeyShare, r: &mut ChaCha20Rng) -> SignRound3 {
        let st = self.sign2(k, share, r);
        let (me, other) = (pid(k as u16 + 1), pid(2 - k as u16));
        sign::round3(st, share, &DIGEST, &[(other, to(&self.s2[1 - k], me))])
            .expect("s3")
            .0
    }
}

/// The receiving parties' key-generation states (each with its RNG where the next round
/// draws randomness), built once by replaying the valid run.
struct Receivers {
    /// Party 2 after round 1 (receives `DkgMsg1`).
    st1: (DkgRound1, ChaCha20Rng),
    /// Party 2 after round 2 (receives `DkgMsg2`).
    st2: (DkgRound2, ChaCha20Rng),
    /// Party 1 after round 3 (receives `DkgMsg3`).
    st3: DkgRound3,
    /// Party 2 after round 4 (receives `DkgMsg4`).
    st4: DkgRound4,
}

impl Receivers {
    fn new(run: &Run) -> Receivers {
        let mut g = dkg_rng(1);
        let st1 = (Run::dkg1(1, &mut g), g);
        let mut g = dkg_rng(1);
        let st2 = (run.dkg2(1, &mut g), g);
        let st3 = run.dkg3(0, &mut dkg_rng(0));
        let st4 = run.dkg4(1, &mut dkg_rng(1));
        Receivers { st1, st2, st3, st4 }
    }
}

/// The cases. Party 1's messages go to party 2 (party 2's to party 1 for `DkgMsg3`, which
/// only flows to lower indices).
pub fn cases() -> Vec<Case> {
    let run = std::rc::Rc::new(Run::new());
    let rx = std::rc::Rc::new(Receivers::new(&run));
    let (p1, p2) = (pid(1), pid(2));
    let mut out = Vec::new();
    let r = std::rc::Rc::clone(&run);
    let rx1 = std::rc::Rc::clone(&rx);
    out.push(
        Case::new("dkg::DkgMsg1", to(&run.m1[0], p2).to_bytes(), move |b| {
            re(DkgMsg1::from_bytes(p1, b), DkgMsg1::to_bytes)
        })
        .with_check(false, move |b| {
            let m = DkgMsg1::from_bytes(p1, b).expect("decoded");
            let (st, mut g) = rx1.st1.clone();
            blames_only(&dkg::round2(st, &[(p1, m)], &mut g), p1)
        }),
    );
    let rx2 = std::rc::Rc::clone(&rx);
    out.push(
        Case::new("dkg::DkgMsg2", to(&run.m2[0], p2).to_bytes(), move |b| {
            re(DkgMsg2::from_bytes(p1, b), DkgMsg2::to_bytes)
        })
        .with_check(false, move |b| {
            let m = DkgMsg2::from_bytes(p1, b).expect("decoded");
            let (st, mut g) = rx2.st2.clone();
            blames_only(&dkg::round3(st, &[(p1, m)], &mut g), p1)
        }),
    );
    let rx3 = std::rc::Rc::clone(&rx);
    out.push(
        Case::new("dkg::DkgMsg3", to(&run.m3[1], p1).to_bytes(), move |b| {
            re(DkgMsg3::from_bytes(p2, b), DkgMsg3::to_bytes)
        })
        .with_check(false, move |b| {
            let m = DkgMsg3::from_bytes(p2, b).expect("decoded");
            blames_only(&dkg::round4(rx3.st3.clone(), &[(p2, m)]), p2)
        }),
    );
    let rx4 = std::rc::Rc::clone(&rx);
    out.push(
        Case::new("dkg::DkgMsg4", run.m4[0].to_bytes(), move |b| {
            re(DkgMsg4::from_bytes(p1, b), DkgMsg4::to_bytes)
        })
        .with_check(false, move |b| {
            let m = DkgMsg4::from_bytes(p1, b).expect("decoded");
            blames_only(&dkg::finish(rx4.st4.clone(), &[(p1, m)]), p1)
        }),
    );
    let r4 = std::rc::Rc::clone(&r);
    out.push(
        Case::new("sign::SignMsg1", to(&run.s1[0], p2).to_bytes(), move |b| {
            re(SignMsg1::from_bytes(p1, b), SignMsg1::to_bytes)
        })
        .with_check(false, move |b| {
            let m = SignMsg1::from_bytes(p1, b).expect("decoded");
            let mut g = sign_rng(1);
            let mut share = independent(&r4.shares[1]);
            let st = r4.sign1(1, &share, &mut g);
            blames_only(&sign::round2(st, &mut share, &[(p1, m)], &mut g), p1)
        }),
    );
    let r5 = std::rc::Rc::clone(&r);
    out.push(
        Case::new("sign::SignMsg2", to(&run.s2[0], p2).to_bytes(), move |b| {
            re(SignMsg2::from_bytes(p1, b), SignMsg2::to_bytes)
        })
        .with_check(false, move |b| {
            let m = SignMsg2::from_bytes(p1, b).expect("decoded");
            let mut g = sign_rng(1);
            let mut share = independent(&r5.shares[1]);
            let st = r5.sign2(1, &mut share, &mut g);
            blames_only(&sign::round3(st, &mut share, &DIGEST, &[(p1, m)]), p1)
        }),
    );
    let r6 = std::rc::Rc::clone(&r);
    out.push(
        Case::new("sign::SignMsg3", run.s3[0].to_bytes(), move |b| {
            re(SignMsg3::from_bytes(p1, b), SignMsg3::to_bytes)
        })
        .with_check(false, move |b| {
            let m = SignMsg3::from_bytes(p1, b).expect("decoded");
            let mut g = sign_rng(1);
            let mut share = independent(&r6.shares[1]);
            let st = r6.sign3(1, &mut share, &mut g);
            match sign::combine(st, &[(p1, m)]) {
                Ok(Combined::Signature(sig)) => {
                    let k = sig.to_k256().expect("a combined signature is well formed");
                    assert!(
                        sign::verify_prehash(&share.public_key(), &DIGEST, &k),
                        "combine output a signature that does not verify"
                    );
                    true
                }
                Ok(_) => false,
                Err(e) => {
                    assert!(
                        e.culprits().iter().all(|c| *c == p1),
                        "blames an honest party: {e:?}"
                    );
                    false
                }
            }
        }),
    );
    out
}
