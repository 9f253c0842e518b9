//! Node metrics in the Prometheus text format, including the per-session, per-round
//! "waiting for" gauges: while a session waits in round `r`, one series
//! `quorate_session_waiting_for{session,request_id,round,node} 1` exists per peer not yet
//! heard from.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;

use serde::Serialize;

/// Counters the node exports (name, help).
pub const COUNTERS: &[(&str, &str)] = &[
    (
        "quorate_sessions_started_total",
        "Session attempts started on this node.",
    ),
    (
        "quorate_sessions_completed_total",
        "Session attempts completed.",
    ),
    (
        "quorate_sessions_aborted_total",
        "Session attempts aborted.",
    ),
    (
        "quorate_sessions_refused_total",
        "Proposals this node refused.",
    ),
    ("quorate_messages_sent_total", "Envelopes sent to peers."),
    (
        "quorate_send_failures_total",
        "Envelopes that could not be delivered.",
    ),
    (
        "quorate_messages_received_total",
        "Envelopes received and verified.",
    ),
    (
        "quorate_messages_rejected_total",
        "Received messages rejected (decoding, signature, routing).",
    ),
];

/// Gauges set by the node's roles (name, help).
pub const GAUGES: &[(&str, &str)] = &[(
    "quorate_ecdsa_pending_epochs",
    "ECDSA key epochs begun and neither committed nor abandoned yet (recovery pending).",
)];

/// What a session is waiting for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Waiting {
    /// Session id (hex).
    pub session: String,
    /// Operator request id.
    pub request_id: String,
    /// Round being waited on.
    pub round: u16,
    /// Peers not yet heard from in that round.
    pub nodes: Vec<u16>,
}

impl Waiting {
    /// "waiting for node 3 in round 2".
    pub fn describe(&self) -> String {
        describe_waiting(&self.nodes, self.round)
    }
}

/// "waiting for node 3 in round 2" / "waiting for nodes 2, 3 in round 1".
pub fn describe_waiting(nodes: &[u16], round: u16) -> String {
    let list: Vec<String> = nodes.iter().map(u16::to_string).collect();
    let noun = if nodes.len() == 1 { "node" } else { "nodes" };
    format!("waiting for {noun} {} in round {round}", list.join(", "))
}

#[derive(Default)]
struct Inner {
    counters: BTreeMap<&'static str, u64>,
    gauges: BTreeMap<&'static str, u64>,
    waiting: BTreeMap<String, Waiting>,
}

/// The node's metrics registry.
#[derive(Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Metrics {
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut g = match self.inner.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut g)
    }

    /// Adds one to a counter of [`COUNTERS`].
    pub fn inc(&self, name: &'static str) {
        self.with(|m| *m.counters.entry(name).or_default() += 1);
    }

    /// A counter's value.
    pub fn counter(&self, name: &str) -> u64 {
        self.with(|m| m.counters.get(name).copied().unwrap_or(0))
    }

    /// Sets a gauge of [`GAUGES`].
    pub fn set_gauge(&self, name: &'static str, value: u64) {
        self.with(|m| m.gauges.insert(name, value));
    }

    /// Records what a session waits for (an empty `nodes` clears it).
    pub fn set_waiting(&self, session: &[u8; 32], request_id: &str, round: u16, nodes: &[u16]) {
        let key = hex::encode(session);
        self.with(|m| {
            if nodes.is_empty() {
                m.waiting.remove(&key);
            } else {
                m.waiting.insert(
                    key.clone(),
                    Waiting {
                        session: key,
                        request_id: request_id.to_string(),
                        round,
                        nodes: nodes.to_vec(),
                    },
                );
            }
        });
    }

    /// Forgets a finished session.
    pub fn clear_session(&self, session: &[u8; 32]) {
        let key = hex::encode(session);
        self.with(|m| m.waiting.remove(&key));
    }

    /// Every session currently waiting.
    pub fn waiting(&self) -> Vec<Waiting> {
        self.with(|m| m.waiting.values().cloned().collect())
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        self.with(|m| {
            let mut out = String::new();
            for (name, help) in COUNTERS {
                let v = m.counters.get(name).copied().unwrap_or(0);
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}");
            }
            for (name, help) in GAUGES {
                let v = m.gauges.get(name).copied().unwrap_or(0);
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
            }
            let _ = writeln!(
                out,
                "# HELP quorate_sessions_waiting Sessions waiting for at least one peer.\n\
                 # TYPE quorate_sessions_waiting gauge\nquorate_sessions_waiting {}",
                m.waiting.len()
            );
            let _ = writeln!(
                out,
                "# HELP quorate_session_waiting_for 1 for each peer a session is waiting for in its current round.\n\
                 # TYPE quorate_session_waiting_for gauge"
            );
            for w in m.waiting.values() {
                for n in &w.nodes {
                    let _ = writeln!(
                        out,
                        "quorate_session_waiting_for{{session=\"{}\",request_id=\"{}\",round=\"{}\",node=\"{}\"}} 1",
                        escape(&w.session),
                        escape(&w.request_id),
                        w.round,
                        n
                    );
                }
            }
            out
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_gauges_appear_and_clear() {
        let m = Metrics::default();
        m.inc("quorate_messages_sent_total");
        m.set_waiting(&[1; 32], "req\"1", 2, &[3, 5]);
        let text = m.render();
        assert!(text.contains("quorate_messages_sent_total 1"));
        assert!(text.contains("request_id=\"req\\\"1\",round=\"2\",node=\"3\"} 1"));
        assert!(text.contains("node=\"5\"} 1"));
        assert_eq!(
            m.waiting()[0].describe(),
            "waiting for nodes 3, 5 in round 2"
        );
        m.set_waiting(&[1; 32], "req", 2, &[5]);
        assert_eq!(m.waiting()[0].describe(), "waiting for node 5 in round 2");
        m.clear_session(&[1; 32]);
        assert!(!m.render().contains("quorate_session_waiting_for{"));
    }
}
