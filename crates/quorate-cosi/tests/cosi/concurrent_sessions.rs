//! A malicious leader running many concurrent sessions (critical).
//!
//! The attack is the polynomial-time ROS attack of Benhamouda, Lepoint, Loss, Orrù and
//! Raykova (ePrint 2020/945) against two-round Schnorr multi-signatures. The leader holds no
//! key. It opens `ℓ = 253` sessions at once (each announcing its own harmless message `M_i`)
//! and collects the honest commitments `R_i`. In one-nonce (legacy) CoSi the witnesses' nonce
//! is `R_i` whatever aggregate `R̂` the leader then puts in the challenge, so for each session
//! it computes two candidate challenges `c_i^b = H(R_i + α_i^b·B ‖ A ‖ M_i)`, sets
//! `w_i = 2^i / (c_i^1 − c_i^0)`, `R* = Σ w_i R_i`, `c* = H(R* ‖ A ‖ M*)` for a message `M*`
//! nobody agreed to, writes `c* − Σ w_i c_i^0` in binary as `Σ b_i 2^i`, closes session `i`
//! with candidate `b_i` and outputs `(R*, s* = Σ w_i s_i)`, a valid signature on `M*` under
//! the full roster (`Policy::Complete`).
//!
//! Default witnesses refuse a legacy announcement, so the attack cannot start; run in the
//! two-nonce mode the same script yields nothing that verifies, because each session's
//! effective nonce `R̂1 + b·R̂2` (with `b` hashed from `R̂1`, `R̂2` and the message) moves with
//! the leader's choice.

use crate::common::{accept_any, dalek_verify_strict, setup};
use curve25519_dalek::constants::ED25519_BASEPOINT_POINT as B;
use curve25519_dalek::edwards::EdwardsPoint;
use curve25519_dalek::scalar::Scalar;
use quorate_core::encoding::Writer;
use quorate_cosi::error::witness_id;
use quorate_cosi::hash::ed25519_challenge;
use quorate_cosi::{
    Announcement, Challenge, ChallengeContext, Commitment, CosiError, Mode, Policy, Roster,
    SessionId, Signature, Witness,
};
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

/// Concurrent sessions: more than `log2 L ≈ 252.0` so every target has a binary expansion.
const SESSIONS: usize = 253;
const FORGED: &[u8] = b"pay the leader 1,000,000";

/// The leader's aggregate of all witnesses' commitments, with `R̂1` shifted by `offset·B`
/// (the leader encodes it itself: it does not need an honest aggregator).
fn root_commitment(
    n: usize,
    session: &SessionId,
    mode: Mode,
    parts: &[Commitment],
    offset: Scalar,
) -> Commitment {
    let r1: EdwardsPoint = parts.iter().map(|c| c.r1()).sum::<EdwardsPoint>() + offset * B;
    let r2: EdwardsPoint = parts.iter().map(|c| c.r2()).sum();
    let mut w = Writer::new();
    w.header(0x42, 1);
    w.u16(session.as_bytes().len() as u16)
        .bytes(session.as_bytes());
    w.bytes(&[match mode {
        Mode::TwoNonce => 1,
        _ => 2,
    }])
    .u16(0)
    .bytes(r1.compress().as_bytes())
    .bytes(r2.compress().as_bytes())
    .bytes(quorate_cosi::Mask::full(n).as_bytes());
    Commitment::from_bytes(&w.into_bytes(), n).expect("the leader's own encoding")
}

/// Runs the attack with every witness of `roster`; returns the forged signature bytes, or
/// the first refusal of an honest witness.
fn ros_attack(
    roster: &Arc<Roster>,
    witnesses: &mut [Witness],
    mode: Mode,
    rng: &mut ChaCha20Rng,
) -> Result<Vec<u8>, CosiError> {
    let n = roster.len();
    // 1. Open all sessions concurrently and collect every witness's commitment.
    let msg = |i: usize| format!("harmless statement {i}").into_bytes();
    let mut states = Vec::with_capacity(SESSIONS);
    let mut honest = Vec::with_capacity(SESSIONS);
    for i in 0..SESSIONS {
        let session = SessionId::new(format!("ros/{i}").into_bytes());
        let ann = Announcement {
            mode,
            ..Announcement::new(session.clone(), msg(i))
        };
        let mut st = Vec::with_capacity(n);
        let mut cs = Vec::with_capacity(n);
        for w in witnesses.iter_mut() {
            let (s, c) = w.commit(&ann, rng)?;
            st.push(s);
            cs.push(c);
        }
        states.push(st);
        honest.push((session, cs));
    }
    // 2. Two candidate challenges per session: the honest aggregate shifted by α_i^0 or α_i^1.
    let alpha = |i: usize, b: u64| Scalar::from(2 * i as u64 + b + 1);
    let candidate = |i: usize, b: u64| {
        let (session, cs) = &honest[i];
        Challenge::new(&root_commitment(n, session, mode, cs, alpha(i, b)), msg(i))
    };
    let mut c0 = Vec::with_capacity(SESSIONS);
    let mut w_i = Vec::with_capacity(SESSIONS);
    let mut two_pow = Scalar::ONE;
    for i in 0..SESSIONS {
        let a = ChallengeContext::derive(roster, &candidate(i, 0))?;
        let b = ChallengeContext::derive(roster, &candidate(i, 1))?;
        let d = b.c() - a.c();
        assert_ne!(d, Scalar::ZERO);
        c0.push(*a.c());
        w_i.push(two_pow * d.invert());
        two_pow += two_pow;
    }
    // 3. The forgery's nonce and challenge, fixed before any session is closed.
    let r_star: EdwardsPoint = honest
        .iter()
        .zip(&w_i)
        .map(|((_, cs), w)| cs.iter().map(|c| c.r1()).sum::<EdwardsPoint>() * w)
        .sum();
    let r_star_bytes = r_star.compress().to_bytes();
    let c_star = ed25519_challenge(&r_star_bytes, &roster.aggregate_key(), FORGED);
    let target: Scalar = c_star - w_i.iter().zip(&c0).map(|(w, c)| w * c).sum::<Scalar>();
    let bits = target.to_bytes();
    // 4. Close session i with candidate b_i and combine the responses.
    let mut s_star = Scalar::ZERO;
    for (i, st) in states.into_iter().enumerate() {
        let bit = (bits[i / 8] >> (i % 8)) & 1;
        let challenge = candidate(i, u64::from(bit));
        let mut s_i = Scalar::ZERO;
        for (w, s) in witnesses.iter_mut().zip(st) {
            s_i += w.respond(s, &challenge)?.s();
        }
        s_star += w_i[i] * s_i;
    }
    let mut sig = r_star_bytes.to_vec();
    sig.extend_from_slice(s_star.as_bytes());
    sig.extend_from_slice(quorate_cosi::Mask::full(n).as_bytes());
    Ok(sig)
}

fn witnesses(roster: &Arc<Roster>, keys: &[quorate_cosi::SecretKey]) -> Vec<Witness> {
    keys.iter()
        .enumerate()
        .map(|(i, k)| Witness::new(roster.clone(), i, k.clone(), accept_any).expect("witness"))
        .collect()
}

fn forgery_verifies(roster: &Roster, sig: &[u8]) -> bool {
    let strict = Signature::from_bytes(sig, roster.len())
        .map(|s| dalek_verify_strict(&roster.aggregate_key(), FORGED, &s))
        .unwrap_or(false);
    roster.verify_bytes(FORGED, sig, &Policy::Complete).is_ok() || strict
}

#[test]
fn concurrent_session_forgery_fails_against_default_witnesses() {
    let (roster, keys, mut rng) = setup(3, 945);
    // Legacy: the leader cannot even open a session.
    let mut ws = witnesses(&roster, &keys);
    match ros_attack(&roster, &mut ws, Mode::Legacy, &mut rng) {
        Ok(sig) => panic!(
            "legacy sessions were accepted; forgery verifies: {}",
            forgery_verifies(&roster, &sig)
        ),
        Err(e) => assert_eq!(
            e,
            CosiError::LegacyRefused {
                witness: witness_id(0)
            }
        ),
    }
    // Two-nonce: the sessions run, every response is given, and the forgery is worthless.
    let mut ws = witnesses(&roster, &keys);
    let sig = ros_attack(&roster, &mut ws, Mode::TwoNonce, &mut rng).expect("sessions run");
    assert!(!forgery_verifies(&roster, &sig));
}

/// The same script against witnesses built explicitly for the insecure legacy mode forges:
/// this shows the attack above is real, and that the feature name does not lie.
#[cfg(feature = "insecure-legacy")]
#[test]
fn concurrent_session_forgery_succeeds_against_insecure_legacy_witnesses() {
    let (roster, keys, mut rng) = setup(3, 946);
    let mut ws: Vec<Witness> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            Witness::new_insecure_legacy(roster.clone(), i, k.clone(), accept_any).expect("w")
        })
        .collect();
    let sig = ros_attack(&roster, &mut ws, Mode::Legacy, &mut rng).expect("legacy runs");
    assert!(forgery_verifies(&roster, &sig));
}
