//! The operator API over real loopback HTTP in front of a two-node cluster.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::Duration;

use ed25519_dalek::SigningKey;
use quorate_node::api::{self, ApiError, ApiState};
use quorate_node::api_client::call;
use quorate_node::metrics::Metrics;
use quorate_node::session::ping::Ping;
use quorate_node::session::policy::AcceptAll;
use quorate_node::session::store::MemoryStore;
use quorate_node::session::{Runtime, RuntimeConfig};
use quorate_node::transport::{PeerInfo, Peers, Transport, TransportConfig};
use rand_core::OsRng;

const LIMIT: Duration = Duration::from_secs(60);
const T: Duration = Duration::from_secs(30);
const TOKEN: &str = "test-token-0123456789";

fn free_addr() -> SocketAddr {
    UdpSocket::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
}

#[tokio::test]
async fn operator_api_end_to_end() {
    tokio::time::timeout(LIMIT, async {
        let keys: Vec<SigningKey> = (0..2).map(|_| SigningKey::generate(&mut OsRng)).collect();
        let peers = Peers::new(keys.iter().enumerate().map(|(i, k)| PeerInfo {
            id: i as u16 + 1,
            key: k.verifying_key(),
            addr: free_addr(),
        }))
        .expect("roster");
        let mut runtimes = Vec::new();
        for (i, key) in keys.into_iter().enumerate() {
            let id = i as u16 + 1;
            let addr = peers.get(id).expect("peer").addr;
            let (t, rx) =
                Transport::bind(&key, id, peers.clone(), addr, TransportConfig::default())
                    .expect("bind");
            let rt = Runtime::new(
                key,
                t,
                vec![Arc::new(Ping::default())],
                Arc::new(AcceptAll),
                Arc::new(MemoryStore::default()),
                Arc::new(Metrics::default()),
                RuntimeConfig::default(),
            );
            rt.spawn_inbound(rx);
            runtimes.push(rt);
        }
        let listener = api::bind("127.0.0.1:0".parse().expect("addr"))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(api::serve(
            listener,
            ApiState::new(runtimes[0].clone(), TOKEN),
            async {
                let _ = stop_rx.await;
            },
        ));

        let r = call(addr, "GET", "/health", None, None, T)
            .await
            .expect("health");
        assert_eq!(r.status, 200);
        assert_eq!(r.json().expect("json")["node"], 1);

        let r = call(addr, "GET", "/metrics", None, None, T)
            .await
            .expect("metrics");
        assert_eq!(r.status, 401);
        let r = call(addr, "GET", "/metrics", Some("wrong"), None, T)
            .await
            .expect("metrics");
        assert_eq!(r.status, 401);
        let r = call(addr, "GET", "/metrics", Some(TOKEN), None, T)
            .await
            .expect("metrics");
        assert_eq!(r.status, 200);
        assert!(String::from_utf8_lossy(&r.body).contains("quorate_sessions_started_total 0"));

        let body = br#"{"request_id":"api-1","protocol":"ping","participants":[1,2]}"#;
        let r = call(addr, "POST", "/v1/sessions", None, Some(body), T)
            .await
            .expect("post");
        assert_eq!(r.status, 401);
        let first = call(addr, "POST", "/v1/sessions", Some(TOKEN), Some(body), T)
            .await
            .expect("post");
        assert_eq!(
            first.status,
            200,
            "{}",
            String::from_utf8_lossy(&first.body)
        );
        let v = first.json().expect("json");
        assert_eq!(v["status"], "completed");
        assert_eq!(v["output"]["participants"], serde_json::json!([1, 2]));
        // Idempotent: the same request id returns the same record.
        let again = call(addr, "POST", "/v1/sessions", Some(TOKEN), Some(body), T)
            .await
            .expect("post");
        assert_eq!(again.json().expect("json"), v);
        // The same id for a different request: 409.
        let other = br#"{"request_id":"api-1","protocol":"ping","participants":[1,2],"epoch":5}"#;
        let r = call(addr, "POST", "/v1/sessions", Some(TOKEN), Some(other), T)
            .await
            .expect("post");
        assert_eq!(r.status, 409);
        // Malformed and invalid requests: 400.
        for bad in [
            &b"{not json"[..],
            br#"{"request_id":"x","protocol":"ping","participants":[1,2],"extra":1}"#,
            br#"{"request_id":"bad id!","protocol":"ping","participants":[1,2]}"#,
            br#"{"request_id":"x","protocol":"nope","participants":[1,2]}"#,
            br#"{"request_id":"x","protocol":"ping","participants":[1,9]}"#,
        ] {
            let r = call(addr, "POST", "/v1/sessions", Some(TOKEN), Some(bad), T)
                .await
                .expect("post");
            assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(bad));
        }
        let r = call(addr, "GET", "/v1/sessions/api-1", Some(TOKEN), None, T)
            .await
            .expect("get");
        assert_eq!(r.json().expect("json"), v);
        let r = call(addr, "GET", "/v1/sessions/none", Some(TOKEN), None, T)
            .await
            .expect("get");
        assert_eq!(r.status, 404);
        let r = call(addr, "GET", "/v1/sessions", Some(TOKEN), None, T)
            .await
            .expect("list");
        assert_eq!(r.json().expect("json")["sessions"][0], v);
        let r = call(addr, "GET", "/v1/waiting", Some(TOKEN), None, T)
            .await
            .expect("waiting");
        assert_eq!(r.json().expect("json")["waiting"], serde_json::json!([]));

        let _ = stop_tx.send(());
        server.await.expect("join").expect("serve");
        for rt in &runtimes {
            rt.transport().shutdown().await;
        }
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn the_api_refuses_non_loopback_addresses() {
    let err = api::bind("0.0.0.0:0".parse().expect("addr"))
        .await
        .expect_err("refused");
    assert!(matches!(err, ApiError::NotLoopback(_)), "{err}");
}
