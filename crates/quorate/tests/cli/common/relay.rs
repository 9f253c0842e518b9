//! A test-only UDP relay between node processes, for network fault injection (issue 14).
//!
//! [`Relays::start`] puts one relay in front of every node: the relay of node `B` listens on
//! its own loopback port (the roster `address` peers dial) and forwards each datagram to
//! `B`'s real `listen` port from one upstream socket per sender, so `B`'s replies come back
//! through the same relay to the right sender. A datagram's **link** is the unordered pair
//! `{A, B}` of the two node ids (the sender is known by its `listen` address).
//!
//! Faults, changed at any time from the test thread:
//! * [`Relays::set_delay`]: every datagram of every link waits this long in each direction;
//! * [`Relays::partition`] / [`Relays::heal`]: drop every datagram of every link of a node
//!   (both directions), then forward again;
//! * [`Relays::reset`]: a relay forgets its upstream sockets (as a restarted NAT or proxy
//!   would), so the node sees its peers' existing connections arrive from new ports.
//!
//! The relay is plain tokio UDP forwarding on its own runtime; dropping [`Relays`] stops it.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::task::JoinHandle;

/// The largest datagram forwarded (QUIC's are at most about 1.5 kB on loopback here).
const MAX_DATAGRAM: usize = 65_536;

#[derive(Default)]
struct Faults {
    delay: Duration,
    /// Partitioned node ids: every link touching one of them drops everything.
    cut: HashSet<u16>,
}

struct Shared {
    /// Node id by its real `listen` address (who sent a datagram to a relay).
    ids: HashMap<SocketAddr, u16>,
    faults: Mutex<Faults>,
}

impl Shared {
    /// `None` to drop a datagram of link `{a, b}`, else its delay.
    fn fate(&self, a: u16, b: u16) -> Option<Duration> {
        let f = self.faults.lock().expect("faults");
        if f.cut.contains(&a) || f.cut.contains(&b) {
            None
        } else {
            Some(f.delay)
        }
    }
}

/// Sends `data` to `to` from `sock` after the link's delay, or drops it.
fn forward(shared: &Shared, link: (u16, u16), sock: &Arc<UdpSocket>, to: SocketAddr, data: &[u8]) {
    let Some(delay) = shared.fate(link.0, link.1) else {
        return;
    };
    if delay.is_zero() {
        let _ = sock.try_send_to(data, to);
        return;
    }
    let sock = sock.clone();
    let data = data.to_vec();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        let _ = sock.send_to(&data, to).await;
    });
}

/// One relay: its upstream sockets by sender, with the tasks reading their replies.
type Upstreams = Arc<Mutex<HashMap<SocketAddr, (Arc<UdpSocket>, JoinHandle<()>)>>>;

async fn relay(
    front: Arc<UdpSocket>,
    owner: u16,
    target: SocketAddr,
    shared: Arc<Shared>,
    ups: Upstreams,
) {
    let mut buf = vec![0u8; MAX_DATAGRAM];
    loop {
        let Ok((n, from)) = front.recv_from(&mut buf).await else {
            continue;
        };
        let peer = shared.ids.get(&from).copied().unwrap_or(0);
        let link = (peer, owner);
        let existing = ups.lock().expect("ups").get(&from).map(|(s, _)| s.clone());
        let up = match existing {
            Some(up) => up,
            None => {
                let Ok(sock) = UdpSocket::bind("127.0.0.1:0").await else {
                    continue;
                };
                let up = Arc::new(sock);
                // Replies of the node to this sender go back out of the front socket.
                let (back, front2, shared2) = (up.clone(), front.clone(), shared.clone());
                let task = tokio::spawn(async move {
                    let mut buf = vec![0u8; MAX_DATAGRAM];
                    while let Ok((n, _)) = back.recv_from(&mut buf).await {
                        forward(&shared2, link, &front2, from, &buf[..n]);
                    }
                });
                ups.lock().expect("ups").insert(from, (up.clone(), task));
                up
            }
        };
        forward(&shared, link, &up, target, &buf[..n]);
    }
}

/// One relay per node; see the module documentation.
pub struct Relays {
    shared: Arc<Shared>,
    /// Relay (front) address by node id.
    fronts: HashMap<u16, SocketAddr>,
    ups: HashMap<u16, Upstreams>,
    rt: tokio::runtime::Runtime,
}

impl std::fmt::Debug for Relays {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relays")
            .field("fronts", &self.fronts)
            .finish_non_exhaustive()
    }
}

impl Relays {
    /// Starts a relay for each `(node id, real listen address, relay address)`.
    pub fn start(nodes: &[(u16, SocketAddr, SocketAddr)]) -> Relays {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("relay runtime");
        let shared = Arc::new(Shared {
            ids: nodes.iter().map(|&(id, listen, _)| (listen, id)).collect(),
            faults: Mutex::new(Faults::default()),
        });
        let mut fronts = HashMap::new();
        let mut ups = HashMap::new();
        for &(id, listen, front) in nodes {
            let sock = rt
                .block_on(UdpSocket::bind(front))
                .unwrap_or_else(|e| panic!("relay of node {id} on {front}: {e}"));
            let u: Upstreams = Arc::default();
            rt.spawn(relay(Arc::new(sock), id, listen, shared.clone(), u.clone()));
            fronts.insert(id, front);
            ups.insert(id, u);
        }
        Relays {
            shared,
            fronts,
            ups,
            rt,
        }
    }

    /// Every datagram of every link waits `delay` in each direction.
    pub fn set_delay(&self, delay: Duration) {
        self.shared.faults.lock().expect("faults").delay = delay;
    }

    /// Drops every datagram to and from node `id` until [`Relays::heal`].
    pub fn partition(&self, id: u16) {
        self.shared.faults.lock().expect("faults").cut.insert(id);
    }

    /// Ends node `id`'s partition.
    pub fn heal(&self, id: u16) {
        self.shared.faults.lock().expect("faults").cut.remove(&id);
    }

    /// Node `id`'s relay forgets its upstream sockets (and stops their reply tasks).
    pub fn reset(&self, id: u16) {
        let _guard = self.rt.enter();
        for (_, (_, task)) in self.ups[&id].lock().expect("ups").drain() {
            task.abort();
        }
    }
}
