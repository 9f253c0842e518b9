//! The ECDSA drivers run in-process (messages routed by hand, no transport): keygen
//! stores a certified share on every node, signing yields a low-S signature that k256
//! verifies, payloads stay within the per-round limits, and a cheating signer is named.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::keygen::EcdsaKeygen;
use super::recovery::{HolderStatus, Resolution};
use super::refresh::EcdsaRefresh;
use super::sign::EcdsaSign;
use super::EcdsaNode;
use crate::identity::{Identity, NodeId, Passphrase};
use crate::keystore::{EpochStatus, KdfParams, KeyId, Keystore, KeystoreError, Kind};
use crate::session::driver::{
    DriverError, Incoming, Protocol, ProtocolDriver, Recipient, SessionContext, Step,
};

/// Rewrites the payloads node `.0` sends in round `.1` (a cheating node).
type Tamper = (u16, u16, fn(&mut Vec<u8>));

pub(crate) struct Cluster {
    _dir: tempfile::TempDir,
    pub nodes: BTreeMap<u16, Arc<EcdsaNode>>,
    /// Largest payload seen per (protocol, participants, round).
    pub sizes: BTreeMap<(String, usize, u16), usize>,
    pub tamper: Option<Tamper>,
    /// Loses the messages `(from, to, round)` it returns `true` for.
    pub lose: Option<fn(u16, u16, u16) -> bool>,
}

impl Cluster {
    pub fn new(ids: &[u16]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let pass = Passphrase::new("test pass".into()).unwrap();
        let idents: Vec<Identity> = ids
            .iter()
            .map(|i| Identity::generate(NodeId::new(*i).ok()))
            .collect();
        let roster: BTreeMap<u16, _> = ids
            .iter()
            .zip(&idents)
            .map(|(i, id)| (*i, id.verifying_key()))
            .collect();
        let mut nodes = BTreeMap::new();
        for (i, ident) in ids.iter().zip(&idents) {
            let path = dir.path().join(format!("ks{i}.db"));
            let ks =
                Keystore::create(&path, ident, &pass, KdfParams::insecure_for_tests()).unwrap();
            nodes.insert(
                *i,
                EcdsaNode::new(
                    *i,
                    Arc::new(Mutex::new(ks)),
                    ident.signing_key().clone(),
                    roster.clone(),
                ),
            );
        }
        Cluster {
            _dir: dir,
            nodes,
            sizes: BTreeMap::new(),
            tamper: None,
            lose: None,
        }
    }

    /// Runs one session of `protocol` between `participants`; returns each node's result.
    pub fn run(
        &mut self,
        protocol: &str,
        participants: &[u16],
        key_id: &str,
        epoch: u64,
        params: Value,
        sid: u8,
    ) -> BTreeMap<u16, Result<Value, DriverError>> {
        let mut drivers: BTreeMap<u16, Box<dyn ProtocolDriver>> = BTreeMap::new();
        for &i in participants {
            let ctx = SessionContext {
                self_id: i,
                participants: participants.to_vec(),
                coordinator: participants[0],
                params: params.clone(),
                key_id: key_id.into(),
                epoch,
                attempt: 0,
                session_id: [sid; 32],
                request_id: format!("req-{sid}"),
            };
            let node = self.nodes[&i].clone();
            let p: Box<dyn Protocol> = match protocol {
                "keygen" => Box::new(EcdsaKeygen::new(node)),
                "refresh" => Box::new(EcdsaRefresh::new(node)),
                _ => Box::new(EcdsaSign::new(node)),
            };
            drivers.insert(i, p.driver(&ctx).unwrap());
        }
        let mut results = BTreeMap::new();
        let mut outgoing: BTreeMap<u16, Vec<_>> = drivers
            .iter_mut()
            .map(|(i, d)| (*i, d.start().unwrap()))
            .collect();
        let mut round = 1u16;
        while !drivers.is_empty() {
            let mut inbox: BTreeMap<u16, BTreeMap<u16, Incoming>> = BTreeMap::new();
            for (from, out) in std::mem::take(&mut outgoing) {
                for mut o in out {
                    if let Some((who, r, f)) = self.tamper {
                        if who == from && r == round {
                            f(&mut o.payload);
                        }
                    }
                    let size = self
                        .sizes
                        .entry((protocol.into(), participants.len(), round))
                        .or_default();
                    *size = (*size).max(o.payload.len());
                    let to: Vec<u16> = match o.to {
                        Recipient::All => participants
                            .iter()
                            .copied()
                            .filter(|p| *p != from)
                            .collect(),
                        Recipient::Node(n) => vec![n],
                    };
                    for t in to {
                        if self.lose.is_some_and(|f| f(from, t, round)) {
                            continue;
                        }
                        inbox.entry(t).or_default().insert(
                            from,
                            Incoming {
                                from,
                                to: o.to,
                                payload: o.payload.clone(),
                            },
                        );
                    }
                }
            }
            let ids: Vec<u16> = drivers.keys().copied().collect();
            for i in ids {
                let d = drivers.get_mut(&i).unwrap();
                let expected = d.expected_from(round);
                let mine = inbox.remove(&i).unwrap_or_default();
                for (from, m) in &mine {
                    assert!(
                        m.payload.len() <= d.max_payload(round),
                        "{protocol} round {round}: {} bytes from {from} over the limit {}",
                        m.payload.len(),
                        d.max_payload(round)
                    );
                }
                let got: BTreeMap<u16, Incoming> = mine
                    .into_iter()
                    .filter(|(f, _)| expected.contains(f))
                    .collect();
                if got.len() != expected.len() {
                    // A peer finished or failed: this node times out and, like the runtime,
                    // names the nodes it was waiting for.
                    let missing = expected.iter().copied().filter(|e| !got.contains_key(e));
                    drivers.remove(&i);
                    results.insert(
                        i,
                        Err(DriverError::Blame {
                            culprits: missing.collect(),
                            reason: "timed out".into(),
                        }),
                    );
                    continue;
                }
                match d.handle(round, got) {
                    Ok(Step::Next(out)) => {
                        outgoing.insert(i, out);
                    }
                    Ok(Step::Done(v)) => {
                        drivers.remove(&i);
                        results.insert(i, Ok(v));
                    }
                    Err(e) => {
                        drivers.remove(&i);
                        results.insert(i, Err(e));
                    }
                }
            }
            round += 1;
            assert!(round < 10, "too many rounds");
        }
        results
    }

    pub fn keygen(&mut self, t: u16, holders: &[u16], key_id: &str) -> String {
        let n = holders.len();
        let out = self.run("keygen", holders, key_id, 0, json!({"t": t, "n": n}), 1);
        let pks: Vec<String> = out
            .values()
            .map(|r| {
                r.as_ref().unwrap()["public_key"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert!(pks.windows(2).all(|w| w[0] == w[1]), "{pks:?}");
        pks[0].clone()
    }
}

pub(crate) fn k256_verify(pk_hex: &str, digest: &[u8; 32], sig_hex: &str) -> bool {
    use k256::ecdsa::signature::hazmat::PrehashVerifier;
    let vk = k256::ecdsa::VerifyingKey::from_sec1_bytes(&hex::decode(pk_hex).unwrap()).unwrap();
    let sig = k256::ecdsa::Signature::from_slice(&hex::decode(sig_hex).unwrap()).unwrap();
    sig.normalize_s().is_none() && vk.verify_prehash(digest, &sig).is_ok()
}

#[test]
fn keygen_then_sign_by_two_and_by_three() {
    let mut c = Cluster::new(&[3, 5, 9]);
    let pk = c.keygen(2, &[3, 5, 9], "k1");
    // Every holder has an active, certified epoch 0 and the API facts agree.
    for (i, node) in &c.nodes {
        let info = node.key_info("k1").unwrap().unwrap();
        assert_eq!(hex::encode(info.public_key), pk);
        assert_eq!(
            (info.epoch, info.t, info.holders.clone()),
            (0, 2, vec![3, 5, 9]),
            "node {i}"
        );
        let e = node
            .keystore()
            .active_epoch(&KeyId::new("k1").unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(e.status, EpochStatus::Active);
        node.certificate("k1")
            .unwrap()
            .unwrap()
            .verify(&node.roster)
            .unwrap();
    }
    let digest = [7u8; 32];
    let params = json!({"digest": hex::encode(digest), "t": 2});
    for (sid, signers) in [(2u8, vec![3u16, 9]), (3, vec![3, 5, 9])] {
        let out = c.run("sign", &signers, "k1", 0, params.clone(), sid);
        assert_eq!(out.len(), signers.len());
        for r in out.values() {
            let v = r.as_ref().unwrap();
            assert_eq!(v["public_key"], pk.as_str());
            assert_eq!(v["signers"], json!(signers));
            assert!(k256_verify(&pk, &digest, v["signature"].as_str().unwrap()));
        }
    }
    eprintln!("payload sizes: {:?}", c.sizes);
}

#[test]
fn sign_refuses_unknown_key_wrong_epoch_and_non_holders() {
    let mut c = Cluster::new(&[1, 2, 3, 4]);
    c.keygen(2, &[1, 2, 3], "k");
    let node = c.nodes[&1].clone();
    let ctx = |parts: Vec<u16>, key: &str, epoch: u64| SessionContext {
        self_id: 1,
        participants: parts,
        coordinator: 1,
        params: json!({"digest": hex::encode([1u8; 32]), "t": 2}),
        key_id: key.into(),
        epoch,
        attempt: 0,
        session_id: [9; 32],
        request_id: "r".into(),
    };
    let p = EcdsaSign::new(node);
    assert!(p.driver(&ctx(vec![1, 2], "other", 0)).is_err());
    assert!(p.driver(&ctx(vec![1, 2], "k", 1)).is_err());
    assert!(p.driver(&ctx(vec![1, 4], "k", 0)).is_err());
    assert!(p.driver(&ctx(vec![1, 2], "k", 0)).is_ok());
    // A second keygen of the same key id is refused.
    let kg = EcdsaKeygen::new(c.nodes[&1].clone());
    let mut kctx = ctx(vec![1, 2, 3], "k", 0);
    kctx.params = json!({"t": 2, "n": 3});
    assert!(kg.driver(&kctx).is_err());
}

/// Honest payloads fit the per-round limits, and every limit is within 10 % of the largest
/// honest payload of its round (the limits follow the library's message sizes).
#[test]
fn three_of_five_and_payload_limits_are_tight() {
    let mut c = Cluster::new(&[1, 2, 3, 4, 5]);
    let pk = c.keygen(3, &[1, 2, 3, 4, 5], "k35");
    let digest = [3u8; 32];
    let params = json!({"digest": hex::encode(digest), "t": 3});
    for (sid, signers) in [
        (2u8, vec![1u16, 2]),
        (3, vec![2, 4, 5]),
        (4, vec![1, 2, 3, 4, 5]),
    ] {
        // Two signers are below t = 3: refused before any message.
        if signers.len() < 3 {
            let ctx = SessionContext {
                self_id: 1,
                participants: signers.clone(),
                coordinator: 1,
                params: params.clone(),
                key_id: "k35".into(),
                epoch: 0,
                attempt: 0,
                session_id: [sid; 32],
                request_id: "r".into(),
            };
            let mut d = EcdsaSign::new(c.nodes[&1].clone()).driver(&ctx).unwrap();
            assert!(d.start().is_err());
            continue;
        }
        for r in c
            .run("sign", &signers, "k35", 0, params.clone(), sid)
            .values()
        {
            let v = r.as_ref().unwrap();
            assert!(k256_verify(&pk, &digest, v["signature"].as_str().unwrap()));
        }
    }
    eprintln!("payload sizes: {:?}", c.sizes);
    for ((proto, parts, round), size) in &c.sizes {
        let limit = match proto.as_str() {
            "keygen" if *round <= 4 => super::limits::keygen(*round, 3, 5),
            "sign" if *round <= 3 => super::limits::sign(*round, *parts),
            _ => continue,
        };
        assert!(*size <= limit, "{proto} round {round}: {size} > {limit}");
        assert!(
            limit * 10 <= *size * 11 + 1100,
            "{proto} round {round}: limit {limit} far above {size}"
        );
    }
}

/// A signer that broadcasts a wrong `u_i` in round 3 (a valid scalar, so it decodes) is
/// named by the library's blame round, through the drivers, by its node id.
#[test]
fn a_wrong_round3_share_is_blamed_on_its_node() {
    let mut c = Cluster::new(&[2, 4, 6]);
    c.keygen(2, &[2, 4, 6], "kb");
    let params = json!({"digest": hex::encode([5u8; 32]), "t": 2});
    // u_i is the scalar right after the 2-byte header: flip its lowest bit.
    c.tamper = Some((6, 3, |p: &mut Vec<u8>| p[33] ^= 1));
    let out = c.run("sign", &[2, 4, 6], "kb", 0, params.clone(), 7);
    for honest in [2u16, 4] {
        match &out[&honest] {
            Err(DriverError::Blame { culprits, .. }) => assert_eq!(culprits, &vec![6]),
            other => panic!("node {honest}: {other:?}"),
        }
    }
    // Two signers: node 2's combine fails and it enters the blame round; node 4 holds the
    // signature (its own view is consistent) and leaves, so node 2 names it at the deadline.
    c.tamper = Some((4, 3, |p: &mut Vec<u8>| p[33] ^= 1));
    let out = c.run("sign", &[2, 4], "kb", 0, params, 8);
    match &out[&2] {
        Err(DriverError::Blame { culprits, .. }) => assert_eq!(culprits, &vec![4]),
        other => panic!("node 2: {other:?}"),
    }
}

/// A signer whose OT-extension message fails the counterparty's consistency check is banned
/// by the library; the driver stores the ban in the keystore, and a share loaded again (as
/// after a restart) refuses that counterparty.
#[test]
fn a_library_ban_is_stored_and_survives_reloading() {
    let mut c = Cluster::new(&[2, 4, 6]);
    c.keygen(2, &[2, 4, 6], "kban");
    let params = json!({"digest": hex::encode([6u8; 32]), "t": 2});
    // Corrupt the OT-extension matrix of node 4's round-1 message.
    c.tamper = Some((4, 1, |p: &mut Vec<u8>| p[400] ^= 0x10));
    let out = c.run("sign", &[2, 4], "kban", 0, params.clone(), 9);
    match &out[&2] {
        Err(DriverError::Blame { culprits, .. }) => assert_eq!(culprits, &vec![4]),
        other => panic!("node 2: {other:?}"),
    }
    let node2 = c.nodes[&2].clone();
    let key = KeyId::new("kban").unwrap();
    let bans = node2.keystore().bans().list(&key).unwrap();
    assert_eq!(bans.len(), 1);
    assert_eq!(bans[0].node.get(), 4);
    // A fresh process state (new share cache) over the same keystore refuses node 4.
    let restarted = EcdsaNode::new(
        2,
        node2.keystore.clone(),
        node2.identity.clone(),
        node2.roster.clone(),
    );
    let ctx = SessionContext {
        self_id: 2,
        participants: vec![2, 4],
        coordinator: 2,
        params,
        key_id: "kban".into(),
        epoch: 0,
        attempt: 1,
        session_id: [10; 32],
        request_id: "r2".into(),
    };
    let mut d = EcdsaSign::new(restarted.clone()).driver(&ctx).unwrap();
    match d.start() {
        Err(DriverError::Blame { culprits, .. }) => assert_eq!(culprits, vec![4]),
        other => panic!("{other:?}"),
    }
    // Node 6 is still fine.
    let mut ctx6 = ctx.clone();
    ctx6.participants = vec![2, 6];
    assert!(EcdsaSign::new(restarted)
        .driver(&ctx6)
        .unwrap()
        .start()
        .is_ok());
}

/// A refresh by every holder: epoch 1 is certified and active with the same public key,
/// epoch 0 is retired and its share unreadable, signing works at epoch 1 and is refused at
/// epoch 0.
#[test]
fn refresh_commits_the_new_epoch_and_destroys_the_old_share() {
    let mut c = Cluster::new(&[1, 2, 3]);
    let pk = c.keygen(2, &[1, 2, 3], "kr");
    let out = c.run("refresh", &[1, 2, 3], "kr", 0, json!({"n": 3}), 20);
    for (i, r) in &out {
        let v = r.as_ref().unwrap();
        assert_eq!(v["epoch"], 1, "node {i}");
        assert_eq!(v["public_key"], pk.as_str());
    }
    let key = KeyId::new("kr").unwrap();
    for node in c.nodes.values() {
        let ks = node.keystore();
        let epochs = ks.epochs(&key).unwrap();
        let statuses: Vec<_> = epochs.iter().map(|e| (e.epoch, e.status)).collect();
        assert_eq!(
            statuses,
            vec![(0, EpochStatus::Retired), (1, EpochStatus::Active)]
        );
        assert!(matches!(
            ks.get_secret(&key, 0, &Kind::KEY_SHARE),
            Err(KeystoreError::EpochRetired { .. })
        ));
        // The sealed PendingRefresh went with the commit (review finding e).
        assert!(pending_refresh_gone(&ks, &key, 1));
        drop(ks);
        assert_eq!(node.key_info("kr").unwrap().unwrap().epoch, 1);
    }
    let digest = [8u8; 32];
    let params = json!({"digest": hex::encode(digest), "t": 2});
    for r in c.run("sign", &[1, 3], "kr", 1, params.clone(), 21).values() {
        let v = r.as_ref().unwrap();
        assert!(k256_verify(&pk, &digest, v["signature"].as_str().unwrap()));
    }
    let ctx = SessionContext {
        self_id: 1,
        participants: vec![1, 3],
        coordinator: 1,
        params,
        key_id: "kr".into(),
        epoch: 0,
        attempt: 0,
        session_id: [22; 32],
        request_id: "r".into(),
    };
    assert!(EcdsaSign::new(c.nodes[&1].clone()).driver(&ctx).is_err());
    // A refresh needs every holder.
    let mut rctx = ctx.clone();
    rctx.epoch = 1;
    rctx.params = json!({"n": 3});
    assert!(EcdsaRefresh::new(c.nodes[&1].clone())
        .driver(&rctx)
        .is_err());
}

/// Whether the refresh's sealed `PendingRefresh` of `epoch` is gone (the share stays).
fn pending_refresh_gone(ks: &Keystore, key: &KeyId, epoch: u64) -> bool {
    let kind = Kind::new(super::keygen::KIND_PENDING_REFRESH).unwrap();
    ks.get_secret(key, epoch, &Kind::KEY_SHARE)
        .unwrap()
        .is_some()
        && ks.get_secret(key, epoch, &kind).unwrap().is_none()
}

fn epochs_of(c: &Cluster, node: u16, key: &str) -> Vec<(u64, EpochStatus)> {
    c.nodes[&node]
        .keystore()
        .epochs(&KeyId::new(key).unwrap())
        .unwrap()
        .iter()
        .map(|e| (e.epoch, e.status))
        .collect()
}

/// Node 3's certificate signature never reaches node 1: nodes 2 and 3 commit, node 1 times
/// out in round 6 (the signature round; round 5 is the escrow backup). Having sent its own signature, node 1 must not abandon (the old
/// behaviour, which left nodes 2 and 3 holding a key node 1 had thrown away); it keeps the
/// epoch pending and commits from a peer's certificate.
#[test]
fn a_holder_that_signed_keeps_its_epoch_and_commits_from_a_peers_certificate() {
    let mut c = Cluster::new(&[1, 2, 3]);
    c.lose = Some(|from, to, round| (from, to, round) == (3, 1, 6));
    let out = c.run("keygen", &[1, 2, 3], "kp", 0, json!({"t": 2, "n": 3}), 30);
    assert!(out[&1].is_err(), "{:?}", out[&1]);
    assert!(out[&2].is_ok() && out[&3].is_ok(), "{out:?}");
    assert_eq!(epochs_of(&c, 1, "kp"), vec![(0, EpochStatus::Pending)]);
    assert_eq!(epochs_of(&c, 2, "kp"), vec![(0, EpochStatus::Active)]);

    let key = KeyId::new("kp").unwrap();
    let sid = [30u8; 32];
    let node1 = c.nodes[&1].clone();
    // A holder still running decides nothing.
    let running = BTreeMap::from([(2, HolderStatus::Running)]);
    assert_eq!(
        node1.resolve(&key, 0, &running).unwrap(),
        Resolution::Undecided
    );
    let answers: BTreeMap<u16, HolderStatus> = [2u16, 3]
        .iter()
        .map(|&i| (i, c.nodes[&i].epoch_status("kp", 0, &sid)))
        .collect();
    assert!(matches!(answers[&2], HolderStatus::Certified { .. }));
    // A certificate of another session is not ours.
    assert_eq!(
        c.nodes[&2].epoch_status("kp", 0, &[31; 32]),
        HolderStatus::Absent
    );
    assert_eq!(
        node1.resolve(&key, 0, &answers).unwrap(),
        Resolution::Committed
    );
    assert_eq!(epochs_of(&c, 1, "kp"), vec![(0, EpochStatus::Active)]);
    assert_eq!(
        node1.key_info("kp").unwrap(),
        c.nodes[&2].key_info("kp").unwrap()
    );
    node1
        .certificate("kp")
        .unwrap()
        .unwrap()
        .verify(&node1.roster)
        .unwrap();
    // The recovered node signs with a peer.
    let params = json!({"digest": hex::encode([4u8; 32]), "t": 2});
    for r in c.run("sign", &[1, 3], "kp", 0, params, 32).values() {
        assert!(r.is_ok(), "{r:?}");
    }
}

/// Node 3 never gets the round-5 messages (escrow backups), so it never seals nor signs;
/// nodes 1 and 2 got its backup, sign and time out in round 6. They keep their epochs while node 3 is unknown; node 3's `absent`
/// proves nobody can commit, so they abandon, and the retried keygen succeeds.
#[test]
fn a_pending_epoch_is_abandoned_only_when_a_holder_never_signed() {
    let mut c = Cluster::new(&[1, 2, 3]);
    c.lose = Some(|_, to, round| to == 3 && round == 5);
    let out = c.run("keygen", &[1, 2, 3], "ka", 0, json!({"t": 2, "n": 3}), 40);
    assert!(out.values().all(Result::is_err), "{out:?}");
    assert_eq!(epochs_of(&c, 1, "ka"), vec![(0, EpochStatus::Pending)]);
    assert_eq!(epochs_of(&c, 3, "ka"), vec![]);
    let key = KeyId::new("ka").unwrap();
    let sid = [40u8; 32];
    let from2 = c.nodes[&2].epoch_status("ka", 0, &sid);
    assert!(matches!(from2, HolderStatus::Pending { .. }), "{from2:?}");
    let only2 = BTreeMap::from([(2, from2.clone())]);
    assert_eq!(
        c.nodes[&1].resolve(&key, 0, &only2).unwrap(),
        Resolution::Undecided
    );
    assert_eq!(
        c.nodes[&3].epoch_status("ka", 0, &sid),
        HolderStatus::Absent
    );
    for (me, other) in [(1u16, 2u16), (2, 1)] {
        let answers = BTreeMap::from([
            (other, c.nodes[&other].epoch_status("ka", 0, &sid)),
            (3, HolderStatus::Absent),
        ]);
        assert_eq!(
            c.nodes[&me].resolve(&key, 0, &answers).unwrap(),
            Resolution::Abandoned
        );
    }
    c.lose = None;
    c.keygen(2, &[1, 2, 3], "ka");
}

/// Every round-6 (signature) message of a refresh is lost: every holder signed and timed out. Each
/// commits epoch 1 from the others' signatures alone, and epoch 0 is retired everywhere.
#[test]
fn a_refresh_everyone_signed_commits_from_signatures_alone() {
    let mut c = Cluster::new(&[1, 2, 3]);
    let pk = c.keygen(2, &[1, 2, 3], "kf");
    c.lose = Some(|_, _, round| round == 6);
    let out = c.run("refresh", &[1, 2, 3], "kf", 0, json!({"n": 3}), 50);
    assert!(out.values().all(Result::is_err), "{out:?}");
    let key = KeyId::new("kf").unwrap();
    let sid = [50u8; 32];
    let answers: BTreeMap<u16, HolderStatus> = [1u16, 2, 3]
        .iter()
        .map(|&i| (i, c.nodes[&i].epoch_status("kf", 1, &sid)))
        .collect();
    for i in [1u16, 2, 3] {
        assert_eq!(
            epochs_of(&c, i, "kf"),
            vec![(0, EpochStatus::Active), (1, EpochStatus::Pending)]
        );
        assert_eq!(
            c.nodes[&i].resolve(&key, 1, &answers).unwrap(),
            Resolution::Committed
        );
        assert_eq!(
            epochs_of(&c, i, "kf"),
            vec![(0, EpochStatus::Retired), (1, EpochStatus::Active)]
        );
        assert!(pending_refresh_gone(&c.nodes[&i].keystore(), &key, 1));
    }
    let params = json!({"digest": hex::encode([9u8; 32]), "t": 2});
    c.lose = None;
    for r in c.run("sign", &[2, 3], "kf", 1, params, 51).values() {
        assert_eq!(r.as_ref().unwrap()["public_key"], pk.as_str());
    }
}

/// Review finding d: a share blob that no longer opens makes the node's keystore check
/// (what `/health` reports) name its key; an intact keystore reports nothing.
#[test]
fn a_corrupt_share_is_reported_by_the_keystore_check() {
    let mut c = Cluster::new(&[1, 2]);
    c.keygen(2, &[1, 2], "kh");
    assert_eq!(c.nodes[&2].keystore_problems(), Vec::<Value>::new());
    c.nodes[&1]
        .keystore()
        .conn
        .execute(
            "UPDATE secrets SET sealed = zeroblob(64) WHERE key_id = 'kh' AND kind = ?1",
            [Kind::KEY_SHARE.as_str()],
        )
        .unwrap();
    let problems = c.nodes[&1].keystore_problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0]["key_id"], "kh");
    assert_eq!(problems[0]["epoch"], 0);
}
