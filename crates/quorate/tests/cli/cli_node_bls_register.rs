//! BLS registration over hot nodes (issue 16 §3): each node runs only the checks that
//! protect its own share (quorate-bls notes §ClientRegister, "Who checks what at
//! registration"), so
//! - a registration whose payload for one party is bad is refused by **that** node, naming
//!   the client, the key and the record digest, while the other nodes accept;
//! - a record that is globally inconsistent (its `vs_j` not a degree-`(t−1)` sharing of
//!   `vk`) but passes every party's own checks is accepted by the nodes, then refused by
//!   the auditor (`bls audit` runs `GroupPublic::validate`) and never yields a signature
//!   (the combiner's checks).
//!
//! The client and cold custodians run in process (the test plays a cheating client, which
//! needs its BLS secret key); the hot nodes are `quorate node run` processes.

use std::collections::BTreeMap;

use crate::common::bls::{bls, Deployment};
use crate::common::cluster::Cluster;
use quorate::systems::bls::deploy::client::{deliver, open_nodes, sign_with_nodes, Failure};
use quorate::systems::bls::deploy::files::{load_crs, ClientKeys, KeyFile};
use quorate_bls::register::{registration_message, DST_REGISTER};
use quorate_bls::{
    Client, ColdParty, GroupPublic, HotRegistration, Registration, SecretKey, VerifiedColdKeys,
};
use quorate_core::{PartyId, ThresholdParams};
use quorate_node::identity::Passphrase;
use quorate_node::keystore::KdfParams;
use rand_core::OsRng;

fn failed(r: Result<(), Failure>) -> (String, Vec<serde_json::Value>) {
    match r {
        Err(Failure::Failed { error, culprits }) => (error, culprits),
        other => panic!("expected a refusal with culprits, got {other:?}"),
    }
}

#[test]
fn a_bad_share_is_refused_by_its_node_and_an_inconsistent_record_is_never_used() {
    let c = Cluster::start(5, &[]);
    let tmp = tempfile::tempdir().expect("tempdir");
    let crs_file = tmp.path().join("crs.bin");
    let out = bls(&[
        "setup",
        "--parties",
        "5",
        "--out",
        crs_file.to_str().expect("path"),
    ]);
    assert!(out.status.success(), "{out:?}");
    let (crs, transcript) = load_crs(&crs_file).expect("crs");
    let nodes = open_nodes(
        &c.ids()
            .iter()
            .map(|i| c.dir(*i).to_path_buf())
            .collect::<Vec<_>>(),
    )
    .expect("nodes");
    let holders = c.ids();

    // A client whose BLS key the test keeps, and five cold custodians in process.
    let mut rng = OsRng;
    let sk_bytes = SecretKey::random(&mut rng).to_bytes();
    let signer = SecretKey::from_bytes(&sk_bytes).expect("key");
    let keys = ClientKeys {
        client: Client::from_secret_key(SecretKey::from_bytes(&sk_bytes).expect("key")),
        auth: ed25519_dalek::SigningKey::generate(&mut rng),
        passphrase: Passphrase::new("cli_node_bls_register".into()).expect("passphrase"),
        kdf: KdfParams::insecure_for_tests(),
    };
    let mut cold: Vec<ColdParty> = PartyId::range(5)
        .map(|i| ColdParty::register(i, &mut rng))
        .collect();
    let regs: Vec<_> = cold.iter().map(|p| p.registration(&mut rng)).collect();
    let verified = VerifiedColdKeys::verify(&regs, &mut rng).expect("cold keys");
    let (vk, pop) = (keys.client.public_key(), keys.client.proof_of_possession());
    let pads: BTreeMap<u16, Vec<u8>> = cold
        .iter_mut()
        .map(|p| {
            let pad = p.add_client(&vk, &pop).expect("pad");
            (p.index().get(), pad.to_bytes())
        })
        .collect();

    // 1. Party 2's hot share is off by one: node 2 alone refuses, naming the client and
    //    the record; the other nodes hold the key.
    let params = ThresholdParams::new(3, 5).expect("params");
    let mut reg = keys
        .client
        .register(&crs, params, &verified, &mut rng)
        .expect("register");
    let mut bytes = reg.payloads[1].to_bytes();
    bytes[4 + 31] ^= 1;
    reg.payloads[1] = HotRegistration::from_bytes(&bytes).expect("payload");
    let digest = hex::encode(reg.public.digest());
    let (error, culprits) = failed(deliver(
        &nodes,
        &holders,
        "bad-share",
        &keys,
        &transcript,
        &reg,
        &pads,
    ));
    assert_eq!(culprits.len(), 1, "{error} {culprits:?}");
    assert_eq!(culprits[0]["role"], "client", "{culprits:?}");
    assert!(error.contains("node 2:"), "{error}");
    for other in ["node 1:", "node 3:", "node 4:", "node 5:"] {
        assert!(!error.contains(other), "{error}");
    }
    assert!(
        error.contains("\"bad-share\"") && error.contains(&digest),
        "names the key and the record: {error}"
    );
    assert!(
        error.contains("hot share does not open com_T at this party's point"),
        "{error}"
    );
    for id in holders.iter().copied() {
        let (status, v) = c.api(id, "GET", "/v1/bls/keys/bad-share", None);
        assert_eq!(status, if id == 2 { 404 } else { 200 }, "node {id}: {v}");
    }

    // 2. A globally inconsistent record that every party's own checks accept: the shares
    //    of a degree-3 polynomial (dealt for t = 4) published as a record for t = 3, and
    //    authorised by the (cheating) client.
    let dealt = keys
        .client
        .register(
            &crs,
            ThresholdParams::new(4, 5).expect("params"),
            &verified,
            &mut rng,
        )
        .expect("register");
    let mut record = dealt.public.to_bytes();
    record[2 + 32..2 + 32 + 2].copy_from_slice(&3u16.to_be_bytes());
    let public = GroupPublic::from_bytes(&record).expect("record");
    assert_eq!(public.params().t(), 3);
    let bad = Registration {
        authorization: signer.sign_with_dst(&registration_message(&public.digest()), DST_REGISTER),
        public,
        payloads: dealt.payloads,
    };
    deliver(
        &nodes,
        &holders,
        "inconsistent",
        &keys,
        &transcript,
        &bad,
        &pads,
    )
    .unwrap_or_else(|e| panic!("own checks pass on every node: {e:?}"));
    let kf = KeyFile {
        key_id: "inconsistent".into(),
        holders: holders.clone(),
        public: bad.public.clone(),
        cold: regs.clone(),
    };
    let key_file = tmp.path().join("inconsistent.key.json");
    kf.write(&key_file).expect("key file");

    // The auditor refuses the record before it asks any node.
    let out = bls(&[
        "audit",
        "--key",
        key_file.to_str().expect("path"),
        "--crs",
        crs_file.to_str().expect("path"),
        "--node",
        &Deployment::nodes(&c, &holders),
        "--json",
    ]);
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        format!("{stdout}{stderr}")
            .contains("verification shares do not interpolate to vk with degree t-1"),
        "{stdout} {stderr}"
    );

    // Signing with it never yields a signature: every partial verifies against its vs_i
    // (no honest node is blamed), and the combination is refused.
    let message = b"never signed";
    let cold_partials: Vec<(PartyId, Vec<u8>)> = cold
        .iter()
        .take(3)
        .map(|p| {
            (
                p.index(),
                p.partial_sign(&vk, message)
                    .expect("cold partial")
                    .to_bytes(),
            )
        })
        .collect();
    match sign_with_nodes(&nodes, &kf, &keys, &crs, message, &cold_partials) {
        Err(Failure::Failed { error, culprits }) => {
            assert!(culprits.is_empty(), "no party is blamed: {culprits:?}");
            assert!(
                error.contains("combined signature does not verify"),
                "{error}"
            );
        }
        other => panic!("expected the combination to be refused, got {other:?}"),
    }

    // The honest registration of the same client still works on the same nodes.
    let good = keys
        .client
        .register(&crs, params, &verified, &mut rng)
        .expect("register");
    deliver(&nodes, &holders, "good", &keys, &transcript, &good, &pads).expect("registered");
}
