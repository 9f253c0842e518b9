//! Starting and stopping nodes in-process, and the roster-wide connectivity check.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

use ed25519_dalek::SigningKey;
use quorate_node::api_client::call;
use quorate_node::daemon::{self, check_table, NodeSetup};
use quorate_node::session::ping::Ping;
use quorate_node::session::policy::AcceptAll;
use quorate_node::session::store::MemoryStore;
use quorate_node::session::RuntimeConfig;
use quorate_node::transport::{PeerInfo, Peers, TransportConfig};
use rand_core::OsRng;
use zeroize::Zeroizing;

const LIMIT: Duration = Duration::from_secs(60);

fn free_addr() -> SocketAddr {
    UdpSocket::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
}

fn setup(id: u16, key: &SigningKey, peers: &Peers) -> NodeSetup {
    NodeSetup {
        id,
        key: key.clone(),
        peers: peers.clone(),
        listen: peers.get(id).expect("peer").addr,
        api: "127.0.0.1:0".parse().expect("addr"),
        api_token: Zeroizing::new(format!("token-{id}")),
        store: Arc::new(MemoryStore::default()),
        protocols: vec![Arc::new(Ping::default())],
        policy: Arc::new(AcceptAll),
        keys: None,
        ecdsa_recovery: None,
        bls: None,
        transport: TransportConfig::default(),
        runtime: RuntimeConfig::default(),
        public_http: None,
        cosi: None,
    }
}

#[tokio::test]
async fn check_reports_every_peer_and_nodes_stop_cleanly() {
    tokio::time::timeout(LIMIT, async {
        let keys: Vec<SigningKey> = (0..3).map(|_| SigningKey::generate(&mut OsRng)).collect();
        let peers = Peers::new(keys.iter().enumerate().map(|(i, k)| PeerInfo {
            id: i as u16 + 1,
            key: k.verifying_key(),
            addr: free_addr(),
        }))
        .expect("roster");
        // Nodes 1 and 2 run; node 3 is down.
        let n1 = daemon::start(setup(1, &keys[0], &peers))
            .await
            .expect("start 1");
        let n2 = daemon::start(setup(2, &keys[1], &peers))
            .await
            .expect("start 2");

        let rows = daemon::check(
            1,
            &keys[0],
            peers.clone(),
            "127.0.0.1".parse().expect("ip"),
            Duration::from_millis(1500),
        )
        .await
        .expect("check");
        let summary: Vec<(u16, bool, &str)> =
            rows.iter().map(|r| (r.id, r.is_self, r.status)).collect();
        assert_eq!(
            summary,
            vec![(1, true, "ok"), (2, false, "ok"), (3, false, "error")]
        );
        assert!(rows[2].error.as_deref().unwrap_or("").contains("node 3"));
        let table = check_table(&rows);
        assert!(table.contains("1*"), "{table}");
        let json = serde_json::to_value(&rows).expect("json");
        assert_eq!(json[0]["self"], true);
        assert_eq!(json[2]["status"], "error");

        // A session between the running nodes over their APIs.
        let body = br#"{"request_id":"d-1","protocol":"ping","participants":[1,2]}"#;
        let r = call(
            n1.api,
            "POST",
            "/v1/sessions",
            Some("token-1"),
            Some(body),
            Duration::from_secs(30),
        )
        .await
        .expect("post");
        assert_eq!(r.json().expect("json")["status"], "completed");

        n1.stop().await.expect("stop 1");
        n2.stop().await.expect("stop 2");
    })
    .await
    .expect("test timed out");
}
