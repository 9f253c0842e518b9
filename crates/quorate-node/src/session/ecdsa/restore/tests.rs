#![allow(clippy::unwrap_used)]
//! Export-public and import of a restored share: the success path and every refusal.

use super::*;
use crate::identity::{Identity, Passphrase};
use crate::keystore::{EpochStatus, KdfParams};
use crate::session::ecdsa::tests::Cluster;

/// A fresh keystore for `node` with its identity (the lost node's disk replaced, identity
/// kept).
fn fresh_keystore(dir: &tempfile::TempDir, ident: &Identity) -> Keystore {
    let pass = Passphrase::new("test pass".into()).unwrap();
    let path = dir.path().join(format!("fresh{}.db", ident.id().get()));
    Keystore::create(&path, ident, &pass, KdfParams::insecure_for_tests()).unwrap()
}

fn secret_of(c: &Cluster, node: u16, key: &str) -> Zeroizing<[u8; 32]> {
    let ks = c.nodes[&node].keystore();
    let stored = ks
        .get_secret(&KeyId::new(key).unwrap(), 0, &Kind::KEY_SHARE)
        .unwrap()
        .unwrap();
    KeyShare::from_bytes(stored.bytes.expose())
        .unwrap()
        .expose_secret_share()
}

#[test]
fn export_then_import_stores_a_restored_share_and_refuses_the_rest() {
    let mut c = Cluster::new(&[1, 2, 3]);
    let pk = c.keygen(2, &[1, 2, 3], "kr");
    c.keygen(2, &[1, 2, 3], "other");
    let key = KeyId::new("kr").unwrap();
    let public = export_public(&c.nodes[&1].keystore(), &key, Some(0)).unwrap();
    assert_eq!(public["epoch"], 0);
    // A wrong epoch or an unknown key is refused at export.
    assert!(matches!(
        export_public(&c.nodes[&1].keystore(), &key, Some(1)),
        Err(RestoreError::NotFound(_))
    ));
    let x2 = secret_of(&c, 2, "kr");
    let x3 = secret_of(&c, 3, "kr");
    let node2 = c.nodes[&2].clone();
    let ident2 = node2.keystore().identity().unwrap();
    let roster = node2.roster.clone();

    // The node still holding the key refuses.
    let err = import(
        &mut node2.keystore(),
        &roster,
        2,
        &node2.identity,
        &key,
        &x2,
        &public,
    )
    .unwrap_err();
    assert!(matches!(err, RestoreError::AlreadyHeld { .. }), "{err}");

    let tmp = tempfile::tempdir().unwrap();
    let mut ks = fresh_keystore(&tmp, &ident2);
    // Node 3's share is not node 2's: x·G ≠ T_2.
    let err = import(&mut ks, &roster, 2, &node2.identity, &key, &x3, &public).unwrap_err();
    assert!(matches!(err, RestoreError::Mismatch { node: 2 }), "{err}");
    // Another key's public data under this key's certificate is refused.
    let other =
        export_public(&c.nodes[&1].keystore(), &KeyId::new("other").unwrap(), None).unwrap();
    let mut mixed = public.clone();
    mixed["epoch_public"] = other["epoch_public"].clone();
    let err = import(&mut ks, &roster, 2, &node2.identity, &key, &x2, &mixed).unwrap_err();
    assert!(matches!(err, RestoreError::Invalid(_)), "{err}");
    // A certificate with a forged signature is refused.
    let mut forged = public.clone();
    forged["certificate"]["signatures"]["1"] = json!(hex::encode([7u8; 64]));
    let err = import(&mut ks, &roster, 2, &node2.identity, &key, &x2, &forged).unwrap_err();
    assert!(
        matches!(err, RestoreError::Invalid(ref m) if m.contains("holder 1")),
        "{err}"
    );
    // Another node's identity key is refused.
    let err = import(
        &mut ks,
        &roster,
        2,
        &c.nodes[&3].identity,
        &key,
        &x2,
        &public,
    )
    .unwrap_err();
    assert!(matches!(err, RestoreError::Invalid(_)), "{err}");
    // Nothing was stored by the refused imports.
    assert!(ks.epochs(&key).unwrap().is_empty());

    let out = import(&mut ks, &roster, 2, &node2.identity, &key, &x2, &public).unwrap();
    assert_eq!(out["party"], 2);
    assert_eq!(out["public_key"], pk.as_str());
    let info = ks.active_epoch(&key).unwrap().unwrap();
    assert_eq!((info.epoch, info.status), (0, EpochStatus::Active));
    let stored = ks
        .get_secret(&key, 0, &restored_share_kind().unwrap())
        .unwrap()
        .unwrap();
    let restored = RestoredShare::from_bytes(stored.bytes.expose()).unwrap();
    assert_eq!((restored.id().get(), restored.epoch()), (2, 0));
    assert_eq!(hex::encode(restored.public_key_bytes()), pk);
    // No signing share, so no export from the restored node; a second import is refused.
    assert!(ks.get_secret(&key, 0, &Kind::KEY_SHARE).unwrap().is_none());
    assert!(matches!(
        export_public(&ks, &key, None),
        Err(RestoreError::NotFound(_))
    ));
    let err = import(&mut ks, &roster, 2, &node2.identity, &key, &x2, &public).unwrap_err();
    assert!(matches!(err, RestoreError::AlreadyHeld { .. }), "{err}");
}

#[test]
fn share_text_must_be_64_hex_digits() {
    let x = parse_share_text(&format!("{}\n", "0a".repeat(32))).unwrap();
    assert_eq!(*x, [10u8; 32]);
    for bad in ["", "0a", &"zz".repeat(32), &"0a".repeat(33)] {
        assert!(matches!(
            parse_share_text(bad),
            Err(RestoreError::Invalid(_))
        ));
    }
}

/// Node 2's disk is lost (identity kept): its share is imported from the escrowed `x_2`
/// into a fresh keystore; it cannot sign, and a plain refresh cannot run with it; a
/// refresh naming it restored commits epoch 1 on every holder, after which node 2 holds an
/// ordinary share and signs with node 1 and with node 3.
#[test]
fn a_refresh_naming_the_restored_node_gives_it_a_share_that_signs() {
    use crate::session::ecdsa::tests::k256_verify;
    use std::sync::{Arc, Mutex};

    let tmp = tempfile::tempdir().unwrap();
    let (mut c, _esk) = crate::session::ecdsa::escrow_tests::escrowed(&[1, 2, 3], &tmp);
    let pk = c.keygen(2, &[1, 2, 3], "kr");
    let key = KeyId::new("kr").unwrap();
    let public = export_public(&c.nodes[&1].keystore(), &key, None).unwrap();
    let x2 = secret_of(&c, 2, "kr");
    let old = c.nodes[&2].clone();
    let ident2 = old.keystore().identity().unwrap();
    let mut ks = fresh_keystore(&tmp, &ident2);
    import(&mut ks, &old.roster, 2, &old.identity, &key, &x2, &public).unwrap();
    let node2 = EcdsaNode::new(
        2,
        Arc::new(Mutex::new(ks)),
        old.identity.clone(),
        old.roster.clone(),
    );
    // The new directory is configured with the same escrow (`node escrow set-key`).
    let dir2 = tmp.path().join("n2-new");
    std::fs::create_dir_all(&dir2).unwrap();
    let epk = old.escrow().unwrap().key.clone();
    node2
        .set_escrow(crate::escrow::Escrow {
            key: epk,
            dir: dir2,
        })
        .unwrap();
    c.nodes.insert(2, node2.clone());
    drop(old);

    let digest = [5u8; 32];
    let sign = json!({"digest": hex::encode(digest), "t": 2});
    // The restored share cannot sign, nor run a plain refresh.
    let err = load_restored(&c.nodes[&1], "kr", 0).unwrap_err();
    assert!(err.contains("no share restored"), "{err}");
    assert!(node2.load_share("kr", 0).is_err());
    // Naming a node that is not a holder is refused by every holder.
    let ctx = |id: u16, params: Value| crate::session::driver::SessionContext {
        self_id: id,
        participants: vec![1, 2, 3],
        coordinator: 1,
        params,
        key_id: "kr".into(),
        epoch: 0,
        attempt: 0,
        session_id: [40; 32],
        request_id: "r".into(),
    };
    use crate::session::driver::Protocol;
    let refresh = |id: u16| crate::session::ecdsa::refresh::EcdsaRefresh::new(c.nodes[&id].clone());
    assert!(refresh(2).driver(&ctx(2, json!({"n": 3}))).is_err());
    assert!(refresh(1)
        .driver(&ctx(1, json!({"n": 3, "restored": 9})))
        .is_err());
    assert!(refresh(2)
        .driver(&ctx(2, json!({"n": 3, "restored": 3})))
        .is_err());

    let out = c.run(
        "refresh",
        &[1, 2, 3],
        "kr",
        0,
        json!({"n": 3, "restored": 2}),
        41,
    );
    for (i, r) in &out {
        let v = r.as_ref().unwrap_or_else(|e| panic!("node {i}: {e:?}"));
        assert_eq!(v["epoch"], 1, "node {i}");
        assert_eq!(v["public_key"], pk.as_str());
    }
    {
        let ks = node2.keystore();
        let statuses: Vec<_> = ks
            .epochs(&key)
            .unwrap()
            .iter()
            .map(|e| (e.epoch, e.status))
            .collect();
        assert_eq!(
            statuses,
            vec![(0, EpochStatus::Retired), (1, EpochStatus::Active)]
        );
        assert!(ks.get_secret(&key, 1, &Kind::KEY_SHARE).unwrap().is_some());
    }
    for (set, sid) in [([1u16, 2], 42u8), ([2, 3], 43)] {
        for (i, r) in c.run("sign", &set, "kr", 1, sign.clone(), sid) {
            let v = r.unwrap_or_else(|e| panic!("node {i}: {e:?}"));
            assert!(k256_verify(&pk, &digest, v["signature"].as_str().unwrap()));
        }
    }
}

/// An import interrupted by a crash (after `begin_epoch`, or after the restored share was
/// sealed, before `commit_epoch`) leaves an unsigned pending epoch: importing again
/// resumes (the old code refused with `AlreadyHeld`). A pending epoch this node signed a
/// certificate for is never abandoned by an import.
#[test]
fn an_interrupted_import_is_resumed_by_importing_again() {
    let c = {
        let mut c = Cluster::new(&[1, 2, 3]);
        c.keygen(2, &[1, 2, 3], "kr");
        c
    };
    let key = KeyId::new("kr").unwrap();
    let public = export_public(&c.nodes[&1].keystore(), &key, None).unwrap();
    let x2 = secret_of(&c, 2, "kr");
    let node2 = c.nodes[&2].clone();
    let ident2 = node2.keystore().identity().unwrap();
    let roster = node2.roster.clone();
    let ep =
        EpochPublic::from_bytes(&hex::decode(public["epoch_public"].as_str().unwrap()).unwrap())
            .unwrap();
    let restored = RestoredShare::new(
        &ep,
        quorate_ecdsa::PartyId::new(2).unwrap(),
        &x2,
        node2.identity.clone(),
    )
    .unwrap();
    let kind = restored_share_kind().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for sealed in [false, true] {
        let mut ks = Keystore::create(
            &tmp.path().join(format!("crash-{sealed}.db")),
            &ident2,
            &Passphrase::new("test pass".into()).unwrap(),
            KdfParams::insecure_for_tests(),
        )
        .unwrap();
        // The crash's leftovers.
        ks.begin_epoch(&key, 0).unwrap();
        if sealed {
            ks.put_secret(&key, 0, 0, &kind, &restored.to_bytes())
                .unwrap();
        }
        let out = import(&mut ks, &roster, 2, &node2.identity, &key, &x2, &public).unwrap();
        assert_eq!(out["epoch"], 0);
        let info = ks.active_epoch(&key).unwrap().unwrap();
        assert_eq!((info.epoch, info.status), (0, EpochStatus::Active));
        assert!(ks.get_secret(&key, 0, &kind).unwrap().is_some());
    }
    // A signed pending epoch (its certificate-to-be sealed) is refused, and kept.
    let mut ks = fresh_keystore(&tmp, &ident2);
    ks.begin_epoch(&key, 0).unwrap();
    let cert_kind = Kind::new(crate::session::ecdsa::recovery::KIND_EPOCH_CERT).unwrap();
    ks.put_secret(&key, 0, 0, &cert_kind, b"cert").unwrap();
    let err = import(&mut ks, &roster, 2, &node2.identity, &key, &x2, &public).unwrap_err();
    assert!(matches!(err, RestoreError::AlreadyHeld { .. }), "{err}");
    assert_eq!(ks.epochs(&key).unwrap()[0].status, EpochStatus::Pending);
}

/// Review finding F1 (node side): a holder without a verified escrow backup of the named
/// node's share refuses a refresh naming it restored (the old driver accepted it: only the
/// restored party's roster key was checked).
#[test]
fn a_holder_without_an_escrow_backup_refuses_to_restore() {
    use crate::session::driver::Protocol;
    let mut c = Cluster::new(&[1, 2, 3]);
    c.keygen(2, &[1, 2, 3], "kr");
    let ctx = crate::session::driver::SessionContext {
        self_id: 1,
        participants: vec![1, 2, 3],
        coordinator: 1,
        params: json!({"n": 3, "restored": 2}),
        key_id: "kr".into(),
        epoch: 0,
        attempt: 0,
        session_id: [44; 32],
        request_id: "r".into(),
    };
    let refresh = crate::session::ecdsa::refresh::EcdsaRefresh::new(c.nodes[&1].clone());
    let err = refresh.driver(&ctx).err().unwrap();
    assert!(err.contains("no escrow configured"), "{err}");
    // With an escrow configured but no backup of node 2's epoch-0 share (the key was
    // generated before the escrow was set): still refused.
    let tmp = tempfile::tempdir().unwrap();
    let (epk, _) = quorate_verenc::backup::escrow_keygen(
        &mut rand_core::OsRng,
        quorate_verenc::backup::Scheme::Dkgith,
        quorate_verenc::backup::CurveId::Secp256k1,
        None,
    )
    .unwrap();
    c.nodes[&1]
        .set_escrow(crate::escrow::Escrow {
            key: epk,
            dir: tmp.path().to_path_buf(),
        })
        .unwrap();
    let err = refresh.driver(&ctx).err().unwrap();
    assert!(err.contains("no verified escrow backup"), "{err}");
}

/// Review finding F2: an export-public file whose epoch public data was tampered with in
/// what the old checks did not bind (another holder's epoch identity key, the library key
/// id, the chain code) is refused at import with a clear error, and nothing is stored.
/// The old import accepted each of them (the refresh then failed naming an honest holder).
#[test]
fn a_tampered_export_public_file_is_refused_at_import() {
    let mut c = Cluster::new(&[1, 2, 3]);
    c.keygen(2, &[1, 2, 3], "kr");
    let key = KeyId::new("kr").unwrap();
    let public = export_public(&c.nodes[&1].keystore(), &key, None).unwrap();
    let x2 = secret_of(&c, 2, "kr");
    let node2 = c.nodes[&2].clone();
    let ident2 = node2.keystore().identity().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut ks = fresh_keystore(&tmp, &ident2);
    let good = hex::decode(public["epoch_public"].as_str().unwrap()).unwrap();
    // Layout (n = 3): header 2, t and n 4, key id 32, epoch 8, public key 33, shares 99,
    // chain code 32, transcript 32, identity keys 3 × 32.
    let (key_id_at, chain_at, ids_at) = (6, 178, 242);
    let other = SigningKey::from_bytes(&[9u8; 32]).verifying_key();
    let tampered: Vec<(&str, Vec<u8>)> = vec![
        ("identity key of holder 1", {
            let mut b = good.clone();
            b[ids_at..ids_at + 32].copy_from_slice(other.as_bytes());
            b
        }),
        ("library key id", {
            let mut b = good.clone();
            b[key_id_at] ^= 1;
            b
        }),
        ("chain code", {
            let mut b = good.clone();
            b[chain_at] ^= 1;
            b
        }),
    ];
    for (what, bytes) in tampered {
        // Still well-formed public data: only the certificate binding can catch it.
        EpochPublic::from_bytes(&bytes).unwrap();
        let mut file = public.clone();
        file["epoch_public"] = json!(hex::encode(&bytes));
        let err = import(&mut ks, &node2.roster, 2, &node2.identity, &key, &x2, &file).unwrap_err();
        assert!(
            matches!(err, RestoreError::Invalid(ref m) if m.contains("not the data its certificate certifies")),
            "{what}: {err}"
        );
    }
    assert!(ks.epochs(&key).unwrap().is_empty());
    // A version-1 certificate (no public-data digest) is refused with what to do.
    let mut v1 = public.clone();
    v1["certificate"]["v"] = json!(1);
    v1["certificate"]
        .as_object_mut()
        .unwrap()
        .remove("public_digest");
    let err = import(&mut ks, &node2.roster, 2, &node2.identity, &key, &x2, &v1).unwrap_err();
    assert!(matches!(err, RestoreError::Invalid(_)), "{err}");
    // The untampered file imports.
    import(
        &mut ks,
        &node2.roster,
        2,
        &node2.identity,
        &key,
        &x2,
        &public,
    )
    .unwrap();
}
