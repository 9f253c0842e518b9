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
