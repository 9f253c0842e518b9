//! Transport over real QUIC sockets on 127.0.0.1: mutual authentication pinned to roster
//! keys, version negotiation, size limits.

use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

use ed25519_dalek::SigningKey;
use quorate_node::transport::{PeerInfo, Peers, Transport, TransportConfig, TransportError};
use rand_core::OsRng;

const LIMIT: Duration = Duration::from_secs(30);

/// A free loopback UDP port (bound and released; fine for tests).
fn free_addr() -> SocketAddr {
    let s = UdpSocket::bind("127.0.0.1:0").expect("bind");
    s.local_addr().expect("addr")
}

struct Party {
    key: SigningKey,
    addr: SocketAddr,
}

fn parties(n: u16) -> Vec<Party> {
    (0..n)
        .map(|_| Party {
            key: SigningKey::generate(&mut OsRng),
            addr: free_addr(),
        })
        .collect()
}

fn roster(ps: &[Party]) -> Peers {
    Peers::new(ps.iter().enumerate().map(|(i, p)| PeerInfo {
        id: i as u16 + 1,
        key: p.key.verifying_key(),
        addr: p.addr,
    }))
    .expect("roster")
}

#[tokio::test]
async fn three_nodes_exchange_authenticated_messages() {
    tokio::time::timeout(LIMIT, async {
        let ps = parties(3);
        let peers = roster(&ps);
        let mut nodes = Vec::new();
        for (i, p) in ps.iter().enumerate() {
            let (t, rx) = Transport::bind(
                &p.key,
                i as u16 + 1,
                peers.clone(),
                p.addr,
                TransportConfig::default(),
            )
            .expect("bind");
            nodes.push((t, rx));
        }
        for (from, (t, _)) in nodes.iter().enumerate() {
            for to in 0..3 {
                if from != to {
                    let msg = format!("{from}->{to}").into_bytes();
                    t.send(to as u16 + 1, &msg).await.expect("send");
                }
            }
        }
        for (to, (_, rx)) in nodes.iter_mut().enumerate() {
            let mut got = Vec::new();
            for _ in 0..2 {
                let m = rx.recv().await.expect("message");
                assert_eq!(m.bytes, format!("{}->{to}", m.from - 1).into_bytes());
                got.push(m.from);
            }
            got.sort_unstable();
            let expected: Vec<u16> = (1..=3).filter(|&i| i != to as u16 + 1).collect();
            assert_eq!(got, expected);
        }
        // A probe round-trips mutual authentication.
        nodes[0].0.probe(2).await.expect("probe");
        for (t, _) in &nodes {
            t.shutdown().await;
        }
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn an_unknown_key_is_refused_by_the_server() {
    tokio::time::timeout(LIMIT, async {
        let ps = parties(2);
        let (server, _rx) = Transport::bind(
            &ps[0].key,
            1,
            roster(&ps),
            ps[0].addr,
            TransportConfig::default(),
        )
        .expect("bind");
        // The intruder's own roster claims it is node 2; node 1's roster has another key.
        let intruder = Party {
            key: SigningKey::generate(&mut OsRng),
            addr: free_addr(),
        };
        let its_view = Peers::new([
            PeerInfo {
                id: 1,
                key: ps[0].key.verifying_key(),
                addr: ps[0].addr,
            },
            PeerInfo {
                id: 2,
                key: intruder.key.verifying_key(),
                addr: intruder.addr,
            },
        ])
        .expect("roster");
        let (client, _rx2) = Transport::bind(
            &intruder.key,
            2,
            its_view,
            intruder.addr,
            TransportConfig::default(),
        )
        .expect("bind");
        let err = client
            .send(1, b"let me in")
            .await
            .expect_err("must be refused");
        assert!(
            matches!(err, TransportError::RejectedByPeer { peer: 1, .. }),
            "unexpected error: {err}"
        );
        assert!(err.to_string().contains("refused our identity"), "{err}");
        let err = client.probe(1).await.expect_err("must be refused");
        assert!(
            matches!(err, TransportError::RejectedByPeer { peer: 1, .. }),
            "{err}"
        );
        server.shutdown().await;
        client.shutdown().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_node_presenting_another_nodes_certificate_is_refused() {
    tokio::time::timeout(LIMIT, async {
        let ps = parties(3);
        let peers = roster(&ps);
        // Node 3 (a roster member, with its own valid certificate) listens at node 2's address.
        let mut view3 = Vec::new();
        for p in peers.iter() {
            let mut p = p.clone();
            if p.id == 3 {
                p.addr = ps[1].addr;
            }
            view3.push(p);
        }
        let (impostor, _rx3) = Transport::bind(
            &ps[2].key,
            3,
            Peers::new(view3).expect("roster"),
            ps[1].addr,
            TransportConfig::default(),
        )
        .expect("bind");
        let (node1, _rx1) =
            Transport::bind(&ps[0].key, 1, peers, ps[0].addr, TransportConfig::default())
                .expect("bind");
        let err = node1
            .send(2, b"for node 2 only")
            .await
            .expect_err("refused");
        match &err {
            TransportError::PeerRejected { peer: 2, reason } => {
                let expected = hex::encode(ps[2].key.verifying_key().as_bytes());
                assert!(reason.contains(&expected), "{reason}");
                assert!(reason.contains("roster key"), "{reason}");
                // The operator reads our message, not rustls's Debug wrapper.
                assert!(!reason.contains("OtherError"), "{reason}");
            }
            other => panic!("unexpected error: {other}"),
        }
        node1.shutdown().await;
        impostor.shutdown().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn protocol_version_mismatch_is_a_clear_error() {
    tokio::time::timeout(LIMIT, async {
        let ps = parties(2);
        let peers = roster(&ps);
        let (server, _rx) = Transport::bind(
            &ps[0].key,
            1,
            peers.clone(),
            ps[0].addr,
            TransportConfig::default(),
        )
        .expect("bind");
        let future = TransportConfig {
            alpn: b"quorate/2".to_vec(),
            ..TransportConfig::default()
        };
        let (client, _rx2) =
            Transport::bind(&ps[1].key, 2, peers, ps[1].addr, future).expect("bind");
        let err = client.send(1, b"hi").await.expect_err("mismatch");
        match &err {
            TransportError::VersionMismatch { peer, ours, theirs } => {
                assert_eq!(*peer, 1);
                assert_eq!(ours, "quorate/2");
                assert_eq!(theirs.as_deref(), Some("quorate/1"));
            }
            other => panic!("unexpected error: {other}"),
        }
        assert_eq!(
            err.to_string(),
            "node 1: protocol version mismatch: we speak quorate/2, node 1 speaks quorate/1"
        );
        // The other way round, from the older node.
        let err = server.send(2, b"hi").await.expect_err("mismatch");
        assert_eq!(
            err.to_string(),
            "node 2: protocol version mismatch: we speak quorate/1, node 2 speaks quorate/2"
        );
        server.shutdown().await;
        client.shutdown().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn oversized_messages_are_refused_before_decoding() {
    tokio::time::timeout(LIMIT, async {
        let ps = parties(2);
        let peers = roster(&ps);
        let small = TransportConfig {
            max_message: 1000,
            ..TransportConfig::default()
        };
        let (server, mut rx) =
            Transport::bind(&ps[0].key, 1, peers.clone(), ps[0].addr, small).expect("bind");
        let (client, _rx2) =
            Transport::bind(&ps[1].key, 2, peers, ps[1].addr, TransportConfig::default())
                .expect("bind");
        let err = client
            .send(1, &vec![0u8; 5000])
            .await
            .expect_err("too large");
        assert!(
            matches!(err, TransportError::TooLarge { peer: 1, len: 5000 }),
            "unexpected error: {err}"
        );
        // The connection survives and a message at the limit still goes through.
        client
            .send(1, &vec![1u8; 1000])
            .await
            .expect("at the limit");
        let m = rx.recv().await.expect("message");
        assert_eq!((m.from, m.bytes.len()), (2, 1000));
        server.shutdown().await;
        client.shutdown().await;
    })
    .await
    .expect("test timed out");
}

#[tokio::test]
async fn a_restarted_peer_is_redialled() {
    tokio::time::timeout(LIMIT, async {
        let ps = parties(2);
        let peers = roster(&ps);
        let (a, _rxa) = Transport::bind(
            &ps[0].key,
            1,
            peers.clone(),
            ps[0].addr,
            TransportConfig::default(),
        )
        .expect("bind");
        let (b, mut rxb) = Transport::bind(
            &ps[1].key,
            2,
            peers.clone(),
            ps[1].addr,
            TransportConfig::default(),
        )
        .expect("bind");
        a.send(2, b"one").await.expect("send");
        assert_eq!(rxb.recv().await.expect("msg").bytes, b"one");
        b.shutdown().await;
        drop(b);
        drop(rxb);
        // The old endpoint's socket is released by its background task; retry briefly.
        let mut tries = 0;
        let (b, mut rxb) = loop {
            match Transport::bind(
                &ps[1].key,
                2,
                peers.clone(),
                ps[1].addr,
                TransportConfig::default(),
            ) {
                Ok(x) => break x,
                Err(e) if tries < 50 => {
                    tries += 1;
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("rebind: {e}"),
            }
        };
        a.send(2, b"two").await.expect("send after restart");
        assert_eq!(rxb.recv().await.expect("msg").bytes, b"two");
        a.shutdown().await;
        b.shutdown().await;
    })
    .await
    .expect("test timed out");
}
