#![allow(clippy::unwrap_used)]
//! Restoring a lost holder from its escrowed secret share (issue 16 §2): the import check
//! `x_j·G = T_j`, a refresh with the restored party, signing after it, and the runs that
//! must fail (no roster substitution by the others, wrong public data).

use crate::common::*;
use ed25519_dalek::{SigningKey, VerifyingKey};
use quorate_core::PartyId;
use quorate_ecdsa::keygen::{
    self, DkgFault, DkgMsg1, DkgMsg2, DkgMsg3, DkgMsg4, EpochCertificate, EpochPublic,
    PendingRefresh, RestoredShare,
};
use quorate_ecdsa::{EcdsaError, KeyShare, SessionId};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// Keygen seed: `identity(KEYGEN, j)` is party `j`'s roster key.
const KEYGEN: u64 = 31;

/// A 2-of-3 key refreshed once (epoch 1), and party 2's share restored from its secret.
fn setup() -> (Vec<KeyShare>, RestoredShare) {
    let shares = refresh(&keygen(2, 3, KEYGEN), 32);
    let public = EpochPublic::from_bytes(&shares[0].epoch_public().to_bytes()).unwrap();
    let x2 = shares[1].expose_secret_share();
    let restored = RestoredShare::new(&public, pid(2), &x2, identity(KEYGEN, pid(2))).unwrap();
    // Through its encoding, as the node stores it.
    let restored = RestoredShare::from_bytes(&restored.to_bytes()).unwrap();
    assert_eq!(restored.epoch(), 1);
    (shares, restored)
}

/// How the others treat party 2 in the restoring refresh.
enum Others {
    /// They substitute its roster key (the supported flow).
    Substitute(VerifyingKey),
    /// A plain refresh: they expect its (lost) epoch identity key.
    Plain,
}

/// Runs a refresh of `shares` in which party 2 takes part from `restored`; returns each
/// party's committed share of the next epoch, or its error.
fn restoring_refresh(
    shares: &[KeyShare],
    restored: &RestoredShare,
    others: Others,
    seed: u64,
) -> Vec<Result<KeyShare, EcdsaError>> {
    restoring_refresh_with(shares, restored, others, DkgFault::None, seed)
}

/// [`restoring_refresh`] with the restored party deviating as `fault` says.
fn restoring_refresh_with(
    shares: &[KeyShare],
    restored: &RestoredShare,
    others: Others,
    fault: DkgFault,
    seed: u64,
) -> Vec<Result<KeyShare, EcdsaError>> {
    let n = shares.len();
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let session = SessionId::new(format!("restore-{seed}").into_bytes());
    let next = |i: PartyId| SigningKey::from_bytes(&digest(&format!("next {seed} {}", i.get())));
    let mut st1 = Vec::new();
    let mut outs = Vec::new();
    for (k, share) in shares.iter().enumerate() {
        let i = pid(k as u16 + 1);
        let (st, m) = if i == pid(2) {
            keygen::restore_round1_faulty(restored, &session, next(i), fault, &mut rng).unwrap()
        } else {
            match &others {
                Others::Substitute(vk) => keygen::refresh_round1_restoring(
                    share,
                    &session,
                    next(i),
                    &[(pid(2), *vk)],
                    &mut rng,
                )
                .unwrap(),
                Others::Plain => {
                    keygen::refresh_round1(share, &session, next(i), &mut rng).unwrap()
                }
            }
        };
        let m = m
            .into_iter()
            .map(|(to, m)| (to, DkgMsg1::from_bytes(i, &m.to_bytes()).unwrap()))
            .collect();
        st1.push(st);
        outs.push((i, m));
    }
    let inbox = route(outs, n);
    let (mut st2, mut outs) = (Vec::new(), Vec::new());
    for (k, (st, msgs)) in st1.into_iter().zip(inbox).enumerate() {
        let i = pid(k as u16 + 1);
        let (st, m) = keygen::round2(st, &msgs, &mut rng).unwrap();
        let m = m
            .into_iter()
            .map(|(to, m)| (to, DkgMsg2::from_bytes(i, &m.to_bytes()).unwrap()))
            .collect();
        st2.push(st);
        outs.push((i, m));
    }
    let inbox = route(outs, n);
    let (mut st3, mut outs) = (Vec::new(), Vec::new());
    for (k, (st, msgs)) in st2.into_iter().zip(inbox).enumerate() {
        let i = pid(k as u16 + 1);
        match keygen::round3(st, &msgs, &mut rng) {
            Ok((st, m)) => {
                let m = m
                    .into_iter()
                    .map(|(to, m)| (to, DkgMsg3::from_bytes(i, &m.to_bytes()).unwrap()))
                    .collect();
                st3.push(Ok(st));
                outs.push((i, m));
            }
            Err(e) => st3.push(Err(e)),
        }
    }
    let inbox = route(outs, n);
    let (mut st4, mut outs) = (Vec::new(), Vec::new());
    let all: Vec<PartyId> = (1..=n as u16).map(pid).collect();
    for (k, (st, msgs)) in st3.into_iter().zip(inbox).enumerate() {
        let i = pid(k as u16 + 1);
        match st.and_then(|st| keygen::round4(st, &msgs)) {
            Ok((st, m)) => {
                let m = DkgMsg4::from_bytes(i, &m.to_bytes()).unwrap();
                outs.push((i, to_others(&all, i, &m)));
                st4.push(Ok(st));
            }
            Err(e) => st4.push(Err(e)),
        }
    }
    let inbox = route(outs, n);
    st4.into_iter()
        .zip(inbox)
        .enumerate()
        .map(|(k, (st, msgs))| {
            let st = st?;
            // Through the encodings, as the node persists them.
            let stored = PendingRefresh::from_bytes(&st.pending().unwrap().to_bytes())?;
            let (pending, cert) = keygen::certify(st, &msgs)?;
            assert_eq!(stored.transcript(), pending.transcript());
            assert_eq!(stored.restored(), [pid(2)]);
            let cert = EpochCertificate::from_bytes(&cert.to_bytes()).unwrap();
            if k == 1 {
                stored.commit_restored(restored, &cert)
            } else {
                let mut current = shares[k].clone();
                stored.commit(&mut current, &cert)?;
                Ok(current)
            }
        })
        .collect()
}

#[test]
fn restored_party_refreshes_and_signs() {
    let (shares, restored) = setup();
    let pk = shares[0].public_key();
    let roster_key = identity(KEYGEN, pid(2)).verifying_key();
    let mut fresh: Vec<KeyShare> =
        restoring_refresh(&shares, &restored, Others::Substitute(roster_key), 33)
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
    for s in &fresh {
        assert_eq!(s.epoch(), 2);
        assert_eq!(s.public_key(), pk);
        assert_eq!(s.identity_keys(), fresh[0].identity_keys());
    }
    // The refresh re-randomised party 2's share: the escrowed x_2 is not the new one.
    assert_ne!(
        fresh[1].secret_share_for_test(),
        shares[1].secret_share_for_test()
    );
    let d = digest("signed by a restored holder");
    for set in [[2u16, 3], [1, 2]] {
        let sig = run_sign(&mut fresh, &set, &d, 34, SignFault::None).unwrap();
        check_external(&pk, &d, &sig);
    }
    // The restored node's new share round-trips like any share.
    let again = KeyShare::from_bytes(&fresh[1].to_bytes()).unwrap();
    assert_eq!(again.epoch(), 2);
}

#[test]
fn import_refuses_a_share_that_does_not_match_t_j() {
    let shares = refresh(&keygen(2, 3, KEYGEN), 32);
    let public = shares[0].epoch_public();
    // Party 3's secret presented as party 2's.
    let x3 = shares[2].expose_secret_share();
    let err = RestoredShare::new(&public, pid(2), &x3, identity(KEYGEN, pid(2))).unwrap_err();
    assert_eq!(err, EcdsaError::RestoredShareMismatch { party: pid(2) });
    assert!(err.culprits().is_empty());
    // A non-canonical scalar is a decoding error, not a mismatch.
    let err =
        RestoredShare::new(&public, pid(2), &[0xff; 32], identity(KEYGEN, pid(2))).unwrap_err();
    assert!(matches!(err, EcdsaError::InvalidShare(_)), "{err:?}");
    // Unknown party.
    assert!(RestoredShare::new(&public, pid(4), &x3, identity(KEYGEN, pid(4))).is_err());
}

#[test]
fn epoch_public_data_is_checked() {
    let shares = keygen(2, 3, KEYGEN);
    let good = shares[0].epoch_public().to_bytes();
    assert_eq!(
        EpochPublic::from_bytes(&good).unwrap(),
        shares[2].epoch_public()
    );
    // Swap T_2 and T_3: still valid points, no longer on one line through the key.
    let mut bad = good.clone();
    let off = 2 + 4 + 32 + 8 + 33;
    let (t2, t3) = (off + 33, off + 66);
    let a = bad[t2..t2 + 33].to_vec();
    let b = bad[t3..t3 + 33].to_vec();
    bad[t2..t2 + 33].copy_from_slice(&b);
    bad[t3..t3 + 33].copy_from_slice(&a);
    assert!(matches!(
        EpochPublic::from_bytes(&bad),
        Err(EcdsaError::InvalidShare(_))
    ));
    // Truncated.
    assert!(EpochPublic::from_bytes(&good[..good.len() - 1]).is_err());
}

#[test]
fn plain_refresh_names_the_restored_party_without_substitution() {
    // The others run an ordinary refresh: the restored party's broadcasts are signed with
    // its roster key, not its (lost) epoch key, so every other holder names it.
    let (shares, restored) = setup();
    let res = restoring_refresh(&shares, &restored, Others::Plain, 35);
    for k in [0usize, 2] {
        let err = res[k].as_ref().unwrap_err();
        assert_eq!(err.culprits(), [pid(2)], "party {}: {err:?}", k + 1);
    }
    assert!(res[1].is_err());
}

#[test]
fn substituting_another_key_is_refused_by_the_restored_party() {
    // The others substitute a key that is not party 2's roster key: party 2's signatures
    // do not verify for them, and nobody commits.
    let (shares, restored) = setup();
    let wrong = identity(KEYGEN + 1, pid(2)).verifying_key();
    let res = restoring_refresh(&shares, &restored, Others::Substitute(wrong), 36);
    assert!(res.iter().all(|r| r.is_err()));
    assert_eq!(res[0].as_ref().unwrap_err().culprits(), [pid(2)]);
}

/// Review finding F1: the others refuse a restored party that does not prove knowledge of
/// its old share `x_2` for `T_2` and name it (before anything is committed).
/// `RestoreNoProof` is exactly what the restored party sent before the proof existed: the
/// old round 3 accepted it and every party committed.
#[test]
fn a_restored_party_without_a_proof_of_x_j_is_named() {
    let (shares, restored) = setup();
    let roster_key = identity(KEYGEN, pid(2)).verifying_key();
    let res = restoring_refresh_with(
        &shares,
        &restored,
        Others::Substitute(roster_key),
        DkgFault::RestoreNoProof,
        37,
    );
    for k in [0usize, 2] {
        let err = res[k].as_ref().unwrap_err();
        assert_eq!(err.culprits(), [pid(2)], "party {}: {err:?}", k + 1);
        assert!(format!("{err}").contains("x_j"), "{err}");
    }
    assert!(res[1].is_err());
}

/// Review finding F1: an impostor holding party 2's roster key but not `x_2` (its proof is
/// of another scalar) is named by every other holder, and nobody commits.
#[test]
fn a_restored_party_that_does_not_know_x_j_is_named() {
    let (shares, restored) = setup();
    let roster_key = identity(KEYGEN, pid(2)).verifying_key();
    let res = restoring_refresh_with(
        &shares,
        &restored,
        Others::Substitute(roster_key),
        DkgFault::RestoreWrongSecret,
        38,
    );
    assert!(res.iter().all(|r| r.is_err()));
    for k in [0usize, 2] {
        assert_eq!(res[k].as_ref().unwrap_err().culprits(), [pid(2)]);
    }
}
