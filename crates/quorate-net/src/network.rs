//! The network model: latency, jitter, NIC bandwidth, loss and framing overhead.
//!
//! See the [`notes`](crate::notes) for how these combine into a delivery time.

use crate::id::NodeId;
use crate::time::duration_nanos;
use core::fmt;
use core::num::NonZeroU64;
use std::sync::Arc;
use std::time::Duration;

/// A link or NIC rate in bytes per second, or unlimited.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bandwidth(Option<NonZeroU64>);

impl Bandwidth {
    /// No serialization delay and no queueing.
    pub const UNLIMITED: Bandwidth = Bandwidth(None);

    /// `bytes` bytes per second. Zero is treated as one byte per second (a dead link is
    /// modelled with offline nodes or loss instead).
    pub fn bytes_per_sec(bytes: u64) -> Self {
        Bandwidth(Some(
            NonZeroU64::MIN.saturating_add(bytes.saturating_sub(1)),
        ))
    }

    /// `mbit` megabits (10^6 bits) per second, rounded down to whole bytes per second.
    pub fn mbit_per_sec(mbit: f64) -> Self {
        let bytes = (mbit * 125_000.0).max(1.0);
        // `as` saturates for out-of-range floats.
        Bandwidth::bytes_per_sec(bytes as u64)
    }

    /// The rate in bytes per second, or `None` if unlimited.
    pub fn get(self) -> Option<u64> {
        self.0.map(NonZeroU64::get)
    }

    /// Whether the rate is unlimited.
    pub fn is_unlimited(self) -> bool {
        self.0.is_none()
    }

    /// The time to put `bytes` on the wire at this rate, in nanoseconds (rounded up).
    pub fn serialization_nanos(self, bytes: u64) -> u64 {
        match self.0 {
            None => 0,
            Some(rate) => {
                let rate = u128::from(rate.get());
                let ns = (u128::from(bytes) * 1_000_000_000).div_ceil(rate);
                u64::try_from(ns).unwrap_or(u64::MAX)
            }
        }
    }
}

impl fmt::Debug for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => write!(f, "unlimited"),
            Some(r) => write!(f, "{} B/s", r.get()),
        }
    }
}

/// A node's network interface: independent FIFO uplink and downlink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Nic {
    /// Rate at which the node can send.
    pub up: Bandwidth,
    /// Rate at which the node can receive.
    pub down: Bandwidth,
}

impl Nic {
    /// An unlimited interface.
    pub const UNLIMITED: Nic = Nic {
        up: Bandwidth::UNLIMITED,
        down: Bandwidth::UNLIMITED,
    };

    /// The same rate in both directions.
    pub fn symmetric(rate: Bandwidth) -> Self {
        Nic {
            up: rate,
            down: rate,
        }
    }
}

type LinkFn = Arc<dyn Fn(NodeId, NodeId) -> Duration + Send + Sync>;
type NicFn = Arc<dyn Fn(NodeId) -> Nic + Send + Sync>;

/// One-way propagation latency between two distinct nodes.
#[derive(Clone)]
pub enum Latency {
    /// The same for every link.
    Constant(Duration),
    /// A function of `(from, to)`, e.g. a region matrix or coordinates. It is called once
    /// per message, so it should be cheap and must be deterministic.
    PerLink(LinkFn),
}

impl fmt::Debug for Latency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Latency::Constant(d) => f.debug_tuple("Constant").field(d).finish(),
            Latency::PerLink(_) => f.write_str("PerLink(<fn>)"),
        }
    }
}

#[derive(Clone)]
enum NicSpec {
    Uniform(Nic),
    PerNode(NicFn),
}

/// How messages travel: latency, optional jitter, per-node bandwidth, loss and per-message
/// framing overhead. Build one with [`NetworkModel::constant`], [`NetworkModel::ideal`] or
/// [`NetworkModel::per_link`] and refine it with the `with_*` methods.
///
/// ```
/// use quorate_net::{Bandwidth, NetworkModel};
/// use std::time::Duration;
///
/// let wan = NetworkModel::constant(Duration::from_millis(40))
///     .with_jitter(Duration::from_millis(5))
///     .with_bandwidth(Bandwidth::mbit_per_sec(100.0), Bandwidth::mbit_per_sec(100.0))
///     .with_overhead(40)
///     .with_loss(0.001);
/// assert_eq!(wan.loss(), 0.001);
/// ```
#[derive(Clone)]
pub struct NetworkModel {
    latency: Latency,
    jitter: u64,
    nic: NicSpec,
    loss: f64,
    overhead: u64,
}

impl Default for NetworkModel {
    fn default() -> Self {
        NetworkModel::ideal()
    }
}

impl fmt::Debug for NetworkModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nic: &dyn fmt::Debug = match &self.nic {
            NicSpec::Uniform(n) => n,
            NicSpec::PerNode(_) => &"PerNode(<fn>)",
        };
        f.debug_struct("NetworkModel")
            .field("latency", &self.latency)
            .field("jitter_ns", &self.jitter)
            .field("nic", nic)
            .field("loss", &self.loss)
            .field("overhead", &self.overhead)
            .finish()
    }
}

impl NetworkModel {
    /// Zero latency, unlimited bandwidth, no loss: messages arrive the moment they are sent.
    pub fn ideal() -> Self {
        NetworkModel::constant(Duration::ZERO)
    }

    /// The same one-way latency on every link, unlimited bandwidth, no loss.
    pub fn constant(latency: Duration) -> Self {
        NetworkModel {
            latency: Latency::Constant(latency),
            jitter: 0,
            nic: NicSpec::Uniform(Nic::UNLIMITED),
            loss: 0.0,
            overhead: 0,
        }
    }

    /// One-way latency given by `f(from, to)` (unlimited bandwidth, no loss).
    pub fn per_link<F>(f: F) -> Self
    where
        F: Fn(NodeId, NodeId) -> Duration + Send + Sync + 'static,
    {
        NetworkModel {
            latency: Latency::PerLink(Arc::new(f)),
            ..NetworkModel::ideal()
        }
    }

    /// Adds a uniformly random extra delay in `[0, jitter]` to every message, drawn from
    /// the simulation's seeded generator. Jitter can reorder messages on one link.
    pub fn with_jitter(mut self, jitter: Duration) -> Self {
        self.jitter = duration_nanos(jitter);
        self
    }

    /// Gives every node the same uplink and downlink rate.
    pub fn with_bandwidth(mut self, up: Bandwidth, down: Bandwidth) -> Self {
        self.nic = NicSpec::Uniform(Nic { up, down });
        self
    }

    /// Gives each node its own interface, `f(node)`, evaluated once per node when the
    /// simulation is built.
    pub fn with_nic<F>(mut self, f: F) -> Self
    where
        F: Fn(NodeId) -> Nic + Send + Sync + 'static,
    {
        self.nic = NicSpec::PerNode(Arc::new(f));
        self
    }

    /// Drops each message independently with probability `p` (clamped to `[0, 1]`; NaN
    /// means no loss). Lost messages still use the sender's uplink.
    pub fn with_loss(mut self, p: f64) -> Self {
        self.loss = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        self
    }

    /// Adds `bytes` of framing to every message on the wire (counted in the byte totals
    /// and the bandwidth model), e.g. 40 for TCP/IPv4 headers or 66 for a TLS 1.3 record
    /// plus TCP/IPv6. Default 0.
    pub fn with_overhead(mut self, bytes: u64) -> Self {
        self.overhead = bytes;
        self
    }

    /// The latency model.
    pub fn latency_model(&self) -> &Latency {
        &self.latency
    }

    /// The one-way latency from `from` to `to`, without jitter (zero to oneself).
    pub fn latency(&self, from: NodeId, to: NodeId) -> Duration {
        if from == to {
            return Duration::ZERO;
        }
        match &self.latency {
            Latency::Constant(d) => *d,
            Latency::PerLink(f) => f(from, to),
        }
    }

    /// The maximum jitter.
    pub fn jitter(&self) -> Duration {
        Duration::from_nanos(self.jitter)
    }

    /// The interface of `node`.
    pub fn nic(&self, node: NodeId) -> Nic {
        match &self.nic {
            NicSpec::Uniform(n) => *n,
            NicSpec::PerNode(f) => f(node),
        }
    }

    /// The loss probability.
    pub fn loss(&self) -> f64 {
        self.loss
    }

    /// Framing bytes added to every message.
    pub fn overhead(&self) -> u64 {
        self.overhead
    }

    pub(crate) fn latency_nanos(&self, from: NodeId, to: NodeId) -> u64 {
        match &self.latency {
            Latency::Constant(d) => duration_nanos(*d),
            Latency::PerLink(f) => duration_nanos(f(from, to)),
        }
    }

    pub(crate) fn jitter_nanos(&self) -> u64 {
        self.jitter
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_delay_rounds_up() {
        let b = Bandwidth::bytes_per_sec(1_000_000);
        assert_eq!(b.serialization_nanos(1_000_000), 1_000_000_000);
        assert_eq!(b.serialization_nanos(1), 1_000);
        assert_eq!(
            Bandwidth::bytes_per_sec(3).serialization_nanos(1),
            333_333_334
        );
        assert_eq!(Bandwidth::UNLIMITED.serialization_nanos(u64::MAX), 0);
        assert_eq!(Bandwidth::bytes_per_sec(0).get(), Some(1));
        assert_eq!(Bandwidth::mbit_per_sec(8.0).get(), Some(1_000_000));
        assert_eq!(
            Bandwidth::bytes_per_sec(1).serialization_nanos(u64::MAX),
            u64::MAX
        );
    }

    #[test]
    fn model_accessors() {
        let m = NetworkModel::per_link(|a, b| Duration::from_millis(u64::from(a.0 + b.0)))
            .with_loss(f64::NAN)
            .with_nic(|n| Nic::symmetric(Bandwidth::bytes_per_sec(u64::from(n.0) + 1)));
        assert_eq!(m.latency(NodeId(1), NodeId(2)), Duration::from_millis(3));
        assert_eq!(m.latency(NodeId(2), NodeId(2)), Duration::ZERO);
        assert_eq!(m.loss(), 0.0);
        assert_eq!(m.nic(NodeId(4)).up.get(), Some(5));
        assert_eq!(NetworkModel::ideal().with_loss(7.0).loss(), 1.0);
        assert!(format!("{m:?}").contains("PerLink"));
    }
}
