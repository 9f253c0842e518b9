//! The escrow round in-process (issue 16 §2): every holder's backup is checked against its
//! `T_j` and stored before the certificate is signed; the escrow recovers exactly the
//! share; a missing, malformed, wrong-share or invalid backup names its sender and the
//! epoch does not commit.
#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::tests::Cluster;
use crate::escrow::{self, Escrow};
use crate::keystore::KeyId;
use crate::session::driver::DriverError;
use quorate_verenc::backup::{self, CurveId, EscrowSecretKey, Scheme};
use rand_core::OsRng;

/// A cluster whose every node backs up to one (DKGitH, secp256k1) escrow; each node keeps
/// its verified backups under its own directory in `tmp`.
pub(crate) fn escrowed(ids: &[u16], tmp: &tempfile::TempDir) -> (Cluster, EscrowSecretKey) {
    let c = Cluster::new(ids);
    let (epk, esk) =
        backup::escrow_keygen(&mut OsRng, Scheme::Dkgith, CurveId::Secp256k1, None).unwrap();
    for (i, node) in &c.nodes {
        let dir = tmp.path().join(format!("n{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        node.set_escrow(Escrow {
            key: epk.clone(),
            dir,
        })
        .unwrap();
    }
    (c, esk)
}

fn blamed(r: &Result<serde_json::Value, DriverError>) -> (Vec<u16>, String) {
    match r {
        Err(DriverError::Blame { culprits, reason }) => (culprits.clone(), reason.clone()),
        other => panic!("expected a blame, got {other:?}"),
    }
}

#[test]
fn backups_are_verified_stored_and_recover_each_share() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut c, esk) = escrowed(&[1, 2, 3], &tmp);
    c.keygen(2, &[1, 2, 3], "ke");
    let out = c.run("refresh", &[1, 2, 3], "ke", 0, json!({"n": 3}), 30);
    assert!(out.values().all(Result::is_ok), "{out:?}");
    let key = KeyId::new("ke").unwrap();
    for (&j, node) in &c.nodes {
        let (share, _) = node.load_share("ke", 1).unwrap();
        for i in [1u16, 2, 3].into_iter().filter(|i| *i != j) {
            // Holder i kept j's epoch-1 backup, bound to the refresh session; the escrow
            // recovers exactly j's share from it.
            let dir = tmp.path().join(format!("n{i}"));
            let (epoch, b) = escrow::export(&dir, &key, j, None).unwrap();
            assert_eq!(epoch, 1);
            assert_eq!(
                b.label,
                escrow::label(&[30; 32], super::refresh::NAME, 1, "ke", 1, j)
            );
            let x = backup::recover(&esk, &b).unwrap();
            assert_eq!(*x, *share.expose_secret_share(), "holder {i}, node {j}");
            // Epoch 0 is retired: its backups (the keygen's) were deleted when epoch 1
            // committed, so the old share cannot be rebuilt from this disk (issue 14).
            assert!(!dir.join("escrow/key-ke/epoch-0.json").exists());
            assert!(matches!(
                escrow::export(&dir, &key, j, Some(0)),
                Err(escrow::EscrowError::Retired(_))
            ));
        }
        // A node does not keep its own backup.
        let own = tmp.path().join(format!("n{j}"));
        assert!(escrow::export(&own, &key, j, None).is_err());
    }
}

/// Node 2 tampers with its round-5 backup; the others name node 2 and nobody commits.
fn refresh_with_bad_backup(tamper: fn(&mut Vec<u8>), expect: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (mut c, _) = escrowed(&[1, 2, 3], &tmp);
    c.keygen(2, &[1, 2, 3], "kx");
    c.tamper = Some((2, 5, tamper));
    let out = c.run("refresh", &[1, 2, 3], "kx", 0, json!({"n": 3}), 31);
    for honest in [1u16, 3] {
        let (culprits, reason) = blamed(&out[&honest]);
        assert_eq!(culprits, vec![2], "node {honest}: {reason}");
        assert!(reason.contains(expect), "node {honest}: {reason}");
    }
    // No certificate was completed: every node is still at epoch 0 and signs there.
    for node in c.nodes.values() {
        assert_eq!(node.key_info("kx").unwrap().unwrap().epoch, 0);
    }
    let params = json!({"digest": hex::encode([3u8; 32]), "t": 2});
    let out = c.run("sign", &[1, 3], "kx", 0, params, 32);
    assert!(out.values().all(Result::is_ok), "{out:?}");
}

#[test]
fn a_missing_backup_is_blamed() {
    refresh_with_bad_backup(|p| p.clear(), "sent no backup");
}

#[test]
fn a_malformed_backup_is_blamed() {
    refresh_with_bad_backup(|p| p.truncate(10), "truncated");
}

#[test]
fn a_backup_of_another_point_is_blamed() {
    // The public share follows the params; replace it by the generator (a valid point that
    // is not T_2).
    refresh_with_bad_backup(
        |p| {
            let params_len = u32::from_be_bytes(p[..4].try_into().unwrap()) as usize;
            let at = 4 + params_len + 4;
            let g =
                hex::decode("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
                    .unwrap();
            p[at..at + 33].copy_from_slice(&g);
        },
        "not of its public share",
    );
}

#[test]
fn a_backup_with_a_bad_proof_is_blamed() {
    refresh_with_bad_backup(
        |p| {
            let last = p.len() - 1;
            p[last] ^= 1;
        },
        "backup",
    );
}

#[test]
fn a_keygen_with_a_bad_backup_stores_no_key() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut c, _) = escrowed(&[1, 2, 3], &tmp);
    c.tamper = Some((3, 5, |p| p.clear()));
    let out = c.run("keygen", &[1, 2, 3], "kg", 0, json!({"t": 2, "n": 3}), 33);
    for honest in [1u16, 2] {
        assert_eq!(blamed(&out[&honest]).0, vec![3]);
    }
    for node in c.nodes.values() {
        assert!(node.key_info("kg").unwrap().is_none());
    }
}
