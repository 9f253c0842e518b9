//! Participant policy: whether this node takes part in a proposed session.
//!
//! The runtime always checks the structural rules (this node and the coordinator are
//! participants, every participant is in the roster, the protocol is known at this version,
//! the deadline is within bounds, enough participants); a [`Policy`] adds the operator's own
//! rules on top. The operator's rules are the `[policy]` section of `node.toml`
//! ([`PolicyConfig`], enforced by [`OperatorPolicy`]):
//!
//! ```toml
//! [policy]
//! protocols = ["ping", "ecdsa-keygen", "ecdsa-sign", "ecdsa-refresh", "ecdsa-epoch-status"]
//! coordinators = [1, 2]         # nodes whose proposals are accepted (this node's own id
//!                               # too, or its own operator cannot start sessions)
//! refuse_nodes = [7]            # never in a session with these nodes
//! max_sessions_per_minute = 120 # per coordinator, over the last 60 s
//!
//! [policy.protocol.ecdsa-sign]  # extra rules for one protocol
//! key_ids = ["treasury-*", "cold-1"] # exact ids, or a prefix ending in `*`
//! coordinators = [1]
//! participant_sets = [[1, 2], [1, 3]] # the participants must be exactly one of these
//! min_participants = 2
//! ```
//!
//! Every entry is optional and an absent list allows everything, so a node without a
//! `[policy]` section accepts every structurally valid proposal. A refusal's reason starts
//! with `policy: `; the coordinator names the refusing node in its abort (see
//! `docs/operations/README.md`, "Session policy").

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::Proposal;

/// The protocols a `[policy]` section may name (a misspelt name is a configuration error).
pub const KNOWN_PROTOCOLS: &[&str] = &[
    super::ping::NAME,
    super::ecdsa::keygen::NAME,
    super::ecdsa::sign::NAME,
    super::ecdsa::refresh::NAME,
    super::ecdsa::recovery::NAME,
];

/// Window of [`PolicyConfig::max_sessions_per_minute`].
const RATE_WINDOW: Duration = Duration::from_secs(60);

/// Most entries in any one list of a `[policy]` section.
const MAX_LIST: usize = 1024;

/// An operator's acceptance rule.
pub trait Policy: Send + Sync {
    /// `Ok` to take part, `Err(reason)` to refuse (the reason is sent to the participants).
    fn check(&self, proposal: &Proposal) -> Result<(), String>;
}

/// Accepts every structurally valid proposal.
#[derive(Clone, Copy, Debug, Default)]
pub struct AcceptAll;

impl Policy for AcceptAll {
    fn check(&self, _proposal: &Proposal) -> Result<(), String> {
        Ok(())
    }
}

/// Accepts what every one of its policies accepts (the first refusal is the reason).
pub struct AllOf(pub Vec<std::sync::Arc<dyn Policy>>);

impl Policy for AllOf {
    fn check(&self, proposal: &Proposal) -> Result<(), String> {
        self.0.iter().try_for_each(|p| p.check(proposal))
    }
}

/// The `[policy]` section of `node.toml` (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyConfig {
    /// Protocols accepted (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocols: Option<Vec<String>>,
    /// Nodes whose proposals are accepted (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinators: Option<Vec<u16>>,
    /// Nodes this node never runs a session with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refuse_nodes: Vec<u16>,
    /// Most proposals accepted from one coordinator in any 60 s (no limit when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sessions_per_minute: Option<u32>,
    /// Per-protocol rules, by protocol name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub protocol: BTreeMap<String, ProtocolRules>,
}

/// The rules of one protocol (`[policy.protocol.<name>]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolRules {
    /// Key ids accepted: exact ids, or prefixes ending in `*` (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_ids: Option<Vec<String>>,
    /// Coordinators accepted for this protocol (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinators: Option<Vec<u16>>,
    /// The participants must be exactly one of these sets (any set when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participant_sets: Option<Vec<Vec<u16>>>,
    /// Fewest participants accepted (on top of the protocol's own minimum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_participants: Option<usize>,
}

impl PolicyConfig {
    /// Whether the section is absent or empty (accepts everything).
    pub fn is_empty(&self) -> bool {
        self == &PolicyConfig::default()
    }

    /// Checks names and bounds: unknown protocols, node id 0, empty or oversized lists and
    /// malformed key id patterns are errors.
    pub fn validate(&self) -> Result<(), String> {
        let known = |p: &str| -> Result<(), String> {
            if KNOWN_PROTOCOLS.contains(&p) {
                Ok(())
            } else {
                Err(format!(
                    "unknown protocol {p:?} (known: {})",
                    KNOWN_PROTOCOLS.join(", ")
                ))
            }
        };
        let nodes = |what: &str, ns: &[u16]| -> Result<(), String> {
            if ns.len() > MAX_LIST {
                return Err(format!("{what}: more than {MAX_LIST} entries"));
            }
            if ns.contains(&0) {
                return Err(format!("{what}: node ids start at 1"));
            }
            Ok(())
        };
        if let Some(ps) = &self.protocols {
            if ps.len() > MAX_LIST {
                return Err(format!("protocols: more than {MAX_LIST} entries"));
            }
            ps.iter().try_for_each(|p| known(p))?;
        }
        if let Some(cs) = &self.coordinators {
            nodes("coordinators", cs)?;
        }
        nodes("refuse_nodes", &self.refuse_nodes)?;
        if self.max_sessions_per_minute == Some(0) {
            return Err("max_sessions_per_minute: 0 refuses everything (remove the protocol from `protocols` instead)".into());
        }
        if self.protocol.len() > MAX_LIST {
            return Err(format!("protocol: more than {MAX_LIST} entries"));
        }
        for (name, r) in &self.protocol {
            known(name).map_err(|e| format!("[policy.protocol.{name}]: {e}"))?;
            let at = |e: String| format!("[policy.protocol.{name}] {e}");
            if let Some(ks) = &r.key_ids {
                if ks.len() > MAX_LIST {
                    return Err(at(format!("key_ids: more than {MAX_LIST} entries")));
                }
                for k in ks {
                    let stem = k.strip_suffix('*').unwrap_or(k);
                    let ok = stem.is_empty() && k == "*" || crate::envelope::valid_key_id(stem);
                    if !ok || stem.contains('*') {
                        return Err(at(format!(
                            "key_ids: {k:?} is neither a key id nor a prefix ending in `*`"
                        )));
                    }
                }
            }
            if let Some(cs) = &r.coordinators {
                nodes("coordinators", cs).map_err(at)?;
            }
            if let Some(sets) = &r.participant_sets {
                if sets.len() > MAX_LIST {
                    return Err(at(format!("participant_sets: more than {MAX_LIST} sets")));
                }
                for s in sets {
                    nodes("participant_sets", s).map_err(at)?;
                    if s.is_empty() {
                        return Err(at("participant_sets: an empty set".into()));
                    }
                }
            }
        }
        Ok(())
    }
}

fn key_id_matches(patterns: &[String], key_id: &str) -> bool {
    patterns.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => key_id.starts_with(prefix),
        None => p == key_id,
    })
}

fn list(ns: &[u16]) -> String {
    let v: Vec<String> = ns.iter().map(u16::to_string).collect();
    v.join(",")
}

/// Enforces a [`PolicyConfig`] (the operator's `[policy]` section).
#[derive(Debug)]
pub struct OperatorPolicy {
    config: PolicyConfig,
    /// Accepted proposals per coordinator within the last [`RATE_WINDOW`].
    recent: Mutex<HashMap<u16, VecDeque<Instant>>>,
}

impl OperatorPolicy {
    /// A policy enforcing `config` (validate it first with [`PolicyConfig::validate`]).
    pub fn new(config: PolicyConfig) -> Self {
        Self {
            config,
            recent: Mutex::new(HashMap::new()),
        }
    }

    /// [`Policy::check`] at time `now` (the rate limit's clock).
    pub fn check_at(&self, p: &Proposal, now: Instant) -> Result<(), String> {
        let c = &self.config;
        let refuse = |why: String| Err(format!("policy: {why}"));
        if let Some(ps) = &c.protocols {
            if !ps.contains(&p.protocol) {
                return refuse(format!("protocol {} is not allowed here", p.protocol));
            }
        }
        if let Some(cs) = &c.coordinators {
            if !cs.contains(&p.coordinator) {
                return refuse(format!(
                    "node {} may not coordinate sessions here",
                    p.coordinator
                ));
            }
        }
        if let Some(n) = p.participants.iter().find(|n| c.refuse_nodes.contains(n)) {
            return refuse(format!("node {n} is refused by this node's policy"));
        }
        if let Some(r) = c.protocol.get(&p.protocol) {
            if let Some(ks) = &r.key_ids {
                if !key_id_matches(ks, &p.key_id) {
                    return refuse(format!(
                        "key {} is not allowed for {} here",
                        p.key_id, p.protocol
                    ));
                }
            }
            if let Some(cs) = &r.coordinators {
                if !cs.contains(&p.coordinator) {
                    return refuse(format!(
                        "node {} may not coordinate {} here",
                        p.coordinator, p.protocol
                    ));
                }
            }
            if let Some(sets) = &r.participant_sets {
                let matches = |s: &Vec<u16>| {
                    let mut s = s.clone();
                    s.sort_unstable();
                    s.dedup();
                    s == p.participants
                };
                if !sets.iter().any(matches) {
                    return refuse(format!(
                        "participants {} are not an allowed set for {} here",
                        list(&p.participants),
                        p.protocol
                    ));
                }
            }
            if let Some(min) = r.min_participants {
                if p.participants.len() < min {
                    return refuse(format!(
                        "{} participants, this node requires at least {min} for {}",
                        p.participants.len(),
                        p.protocol
                    ));
                }
            }
        }
        if let Some(max) = c.max_sessions_per_minute {
            let mut recent = self
                .recent
                .lock()
                .map_err(|_| "policy: rate state poisoned".to_string())?;
            // Forget coordinators with nothing in the window (bounds the map by the roster).
            recent.retain(|_, q| {
                while q
                    .front()
                    .is_some_and(|&t| now.duration_since(t) >= RATE_WINDOW)
                {
                    q.pop_front();
                }
                !q.is_empty()
            });
            let q = recent.entry(p.coordinator).or_default();
            if q.len() >= max as usize {
                return refuse(format!(
                    "node {} proposed more than {max} sessions in the last minute",
                    p.coordinator
                ));
            }
            q.push_back(now);
        }
        Ok(())
    }
}

impl Policy for OperatorPolicy {
    fn check(&self, p: &Proposal) -> Result<(), String> {
        self.check_at(p, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal(protocol: &str, coordinator: u16, participants: &[u16], key: &str) -> Proposal {
        Proposal {
            protocol: protocol.into(),
            protocol_version: 1,
            params: serde_json::Value::Null,
            participants: participants.to_vec(),
            coordinator,
            request_id: "r".into(),
            key_id: key.into(),
            epoch: 0,
            attempt: 0,
            round_timeout_ms: 1000,
        }
    }

    fn config(text: &str) -> PolicyConfig {
        let c: PolicyConfig = toml::from_str(text).expect("toml");
        c.validate().expect("valid");
        c
    }

    const CUSTODY: &str = r#"
protocols = ["ping", "ecdsa-sign", "ecdsa-keygen"]
coordinators = [1, 2]
refuse_nodes = [7]

[protocol.ecdsa-sign]
key_ids = ["treasury-*", "cold-1"]
coordinators = [1]
participant_sets = [[2, 1], [1, 3]]
min_participants = 2
"#;

    #[test]
    fn an_empty_policy_accepts_everything() {
        let p = OperatorPolicy::new(config(""));
        assert!(PolicyConfig::default().is_empty());
        for protocol in KNOWN_PROTOCOLS {
            p.check(&proposal(protocol, 9, &[1, 9], "any"))
                .expect("accepted");
        }
    }

    #[test]
    fn each_rule_refuses_with_its_reason() {
        let p = OperatorPolicy::new(config(CUSTODY));
        let sign = |c, ps: &[u16], k: &str| p.check(&proposal("ecdsa-sign", c, ps, k));
        sign(1, &[1, 2], "treasury-7").expect("allowed key prefix, set and coordinator");
        sign(1, &[1, 3], "cold-1").expect("exact key id");
        let cases: Vec<(Result<(), String>, &str)> = vec![
            (
                sign(1, &[1, 2], "cold-2"),
                "key cold-2 is not allowed for ecdsa-sign",
            ),
            (sign(1, &[1, 2], "treasury"), "key treasury is not allowed"),
            (
                sign(2, &[1, 2], "cold-1"),
                "node 2 may not coordinate ecdsa-sign",
            ),
            (
                sign(3, &[1, 3], "cold-1"),
                "node 3 may not coordinate sessions",
            ),
            (
                sign(1, &[2, 3], "cold-1"),
                "participants 2,3 are not an allowed set",
            ),
            (sign(1, &[1, 7], "cold-1"), "node 7 is refused"),
            (
                p.check(&proposal("ecdsa-refresh", 1, &[1, 2], "cold-1")),
                "protocol ecdsa-refresh is not allowed",
            ),
        ];
        for (got, want) in cases {
            let e = got.expect_err(want);
            assert!(
                e.starts_with("policy: ") && e.contains(want),
                "{e} / {want}"
            );
        }
        // Rules of one protocol do not touch another: node 2 coordinates keygen.
        p.check(&proposal("ecdsa-keygen", 2, &[1, 2, 3], "new"))
            .expect("keygen from node 2");
        let min = OperatorPolicy::new(config("[protocol.ping]\nmin_participants = 3\n"));
        let e = min
            .check(&proposal("ping", 1, &[1, 2], "k"))
            .expect_err("too few");
        assert!(e.contains("requires at least 3"), "{e}");
        min.check(&proposal("ping", 1, &[1, 2, 3], "k"))
            .expect("enough");
    }

    #[test]
    fn the_rate_limit_is_per_coordinator_over_a_sliding_minute() {
        let p = OperatorPolicy::new(config("max_sessions_per_minute = 2\n"));
        let t0 = Instant::now();
        let at = |c: u16, s: u64| {
            p.check_at(
                &proposal("ping", c, &[1, 2], "k"),
                t0 + Duration::from_secs(s),
            )
        };
        at(1, 0).expect("1st");
        at(1, 10).expect("2nd");
        let e = at(1, 59).expect_err("3rd within the minute");
        assert!(e.contains("node 1 proposed more than 2"), "{e}");
        at(2, 59).expect("another coordinator has its own budget");
        at(1, 60).expect("the first one left the window");
        at(1, 65).expect_err("still two in the window (10 s and 60 s)");
        at(1, 70).expect("10 s left the window");
    }

    #[test]
    fn bad_sections_are_configuration_errors() {
        for (text, want) in [
            (
                "protocols = [\"ecdsa-sing\"]",
                "unknown protocol \"ecdsa-sing\"",
            ),
            (
                "[protocol.ecdsa-sing]\nmin_participants = 2",
                "unknown protocol",
            ),
            ("coordinators = [0]", "node ids start at 1"),
            ("max_sessions_per_minute = 0", "refuses everything"),
            (
                "[protocol.ecdsa-sign]\nkey_ids = [\"a*b\"]",
                "neither a key id",
            ),
            (
                "[protocol.ecdsa-sign]\nkey_ids = [\"a b\"]",
                "neither a key id",
            ),
            (
                "[protocol.ecdsa-sign]\nparticipant_sets = [[]]",
                "an empty set",
            ),
        ] {
            let c: PolicyConfig = toml::from_str(text).expect(text);
            let e = c.validate().expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
        let typo = toml::from_str::<PolicyConfig>("coordinator = [1]").expect_err("typo");
        assert!(typo.to_string().contains("coordinator"), "{typo}");
        let c = config("[protocol.ecdsa-sign]\nkey_ids = [\"*\"]");
        OperatorPolicy::new(c)
            .check(&proposal("ecdsa-sign", 1, &[1, 2], "anything"))
            .expect("`*` allows every key");
    }

    #[test]
    fn all_of_gives_the_first_refusal() {
        let refuse_7 = OperatorPolicy::new(config("refuse_nodes = [7]"));
        let only_ping = OperatorPolicy::new(config("protocols = [\"ping\"]"));
        let both = AllOf(vec![
            std::sync::Arc::new(AcceptAll),
            std::sync::Arc::new(refuse_7),
            std::sync::Arc::new(only_ping),
        ]);
        both.check(&proposal("ping", 1, &[1, 2], "k")).expect("ok");
        let e = both
            .check(&proposal("ecdsa-sign", 1, &[1, 7], "k"))
            .expect_err("refused");
        assert!(e.contains("node 7"), "{e}");
    }
}
