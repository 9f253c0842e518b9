//! A type-state, sans-I/O commit–reveal protocol run by both drivers: `run_rounds`
//! in lock step, and `Lockstep` inside the network simulator.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use quorate_core::party::PartyId;
use quorate_net::rounds::{run_rounds, Lockstep, Outgoing, RoundParty, RoundsFailure, Step};
use quorate_net::{
    ComputeModel, NetworkModel, NodeId, SimConfig, SimTime, Simulation, StopCondition, WireSize,
};
use std::collections::BTreeMap;
use std::time::Duration;

// ---- the protocol (knows nothing about drivers) ----

/// Toy binding commitment (not cryptographic; fine for a driver test).
fn commit(party: PartyId, value: u64, nonce: u64) -> u64 {
    let mut x =
        u64::from(party.get()) ^ value.rotate_left(17) ^ nonce.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^ (x >> 29)
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Msg {
    Commit(u64),
    Reveal { value: u64, nonce: u64 },
}

impl WireSize for Msg {
    fn wire_size(&self) -> usize {
        match self {
            Msg::Commit(_) => 2 + 8,
            Msg::Reveal { .. } => 2 + 16,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum SumError {
    /// These parties sent nothing (or not the expected message).
    Missing(Vec<PartyId>),
    /// These parties' reveals do not open their commitments.
    BadOpening(Vec<PartyId>),
}

struct Init {
    me: PartyId,
    n: u16,
    value: u64,
    nonce: u64,
    cheat: bool,
}

struct Committed {
    me: PartyId,
    n: u16,
    value: u64,
    nonce: u64,
    cheat: bool,
}

struct Revealed {
    me: PartyId,
    n: u16,
    value: u64,
    commitments: BTreeMap<PartyId, u64>,
}

impl Init {
    fn round1(self) -> (Committed, Msg) {
        let c = commit(self.me, self.value, self.nonce);
        let next = Committed {
            me: self.me,
            n: self.n,
            value: self.value,
            nonce: self.nonce,
            cheat: self.cheat,
        };
        (next, Msg::Commit(c))
    }
}

fn others(me: PartyId, n: u16) -> impl Iterator<Item = PartyId> {
    PartyId::range(n).filter(move |p| *p != me)
}

impl Committed {
    fn round2(self, commits: Vec<(PartyId, Msg)>) -> Result<(Revealed, Msg), SumError> {
        let mut commitments = BTreeMap::new();
        for (from, m) in commits {
            if let Msg::Commit(c) = m {
                commitments.insert(from, c);
            }
        }
        let missing: Vec<PartyId> = others(self.me, self.n)
            .filter(|p| !commitments.contains_key(p))
            .collect();
        if !missing.is_empty() {
            return Err(SumError::Missing(missing));
        }
        let shown = if self.cheat {
            self.value + 1
        } else {
            self.value
        };
        let msg = Msg::Reveal {
            value: shown,
            nonce: self.nonce,
        };
        Ok((
            Revealed {
                me: self.me,
                n: self.n,
                value: self.value,
                commitments,
            },
            msg,
        ))
    }
}

impl Revealed {
    fn finish(self, reveals: Vec<(PartyId, Msg)>) -> Result<u64, SumError> {
        let mut sum = self.value;
        let mut seen = Vec::new();
        let mut bad = Vec::new();
        for (from, m) in reveals {
            if let (Msg::Reveal { value, nonce }, Some(c)) = (m, self.commitments.get(&from)) {
                seen.push(from);
                if commit(from, value, nonce) == *c {
                    sum += value;
                } else {
                    bad.push(from);
                }
            }
        }
        let missing: Vec<PartyId> = others(self.me, self.n)
            .filter(|p| !seen.contains(p))
            .collect();
        if !missing.is_empty() {
            return Err(SumError::Missing(missing));
        }
        if !bad.is_empty() {
            return Err(SumError::BadOpening(bad));
        }
        Ok(sum)
    }
}

// ---- the driver glue: one enum over the round states ----

enum Party {
    Init(Init),
    Committed(Committed),
    Revealed(Revealed),
}

fn to_parties(inbound: Vec<(NodeId, Msg)>) -> Vec<(PartyId, Msg)> {
    inbound
        .into_iter()
        .filter_map(|(node, m)| node.to_party().map(|p| (p, m)))
        .collect()
}

impl RoundParty for Party {
    type Message = Msg;
    type Output = u64;
    type Error = SumError;

    fn expected_messages(&self, _round: u32) -> usize {
        let n = match self {
            Party::Init(s) => s.n,
            Party::Committed(s) => s.n,
            Party::Revealed(s) => s.n,
        };
        usize::from(n) - 1
    }

    fn round(
        self,
        round: u32,
        inbound: Vec<(NodeId, Msg)>,
    ) -> Result<Step<Self, Msg, u64>, SumError> {
        match (round, self) {
            (0, Party::Init(s)) => {
                let (next, msg) = s.round1();
                Ok(Step::Next(
                    Party::Committed(next),
                    vec![Outgoing::Broadcast(msg)],
                ))
            }
            (1, Party::Committed(s)) => {
                let (next, msg) = s.round2(to_parties(inbound))?;
                Ok(Step::Next(
                    Party::Revealed(next),
                    vec![Outgoing::Broadcast(msg)],
                ))
            }
            (2, Party::Revealed(s)) => Ok(Step::Done(s.finish(to_parties(inbound))?, vec![])),
            _ => Err(SumError::Missing(vec![])),
        }
    }
}

fn parties(n: u16, cheater: Option<u16>) -> Vec<Party> {
    PartyId::range(n)
        .map(|me| {
            Party::Init(Init {
                me,
                n,
                value: u64::from(me.get()) * 10,
                nonce: u64::from(me.get()).wrapping_mul(0xdead_beef),
                cheat: cheater == Some(me.get()),
            })
        })
        .collect()
}

fn expected_sum(n: u16) -> u64 {
    PartyId::range(n).map(|p| u64::from(p.get()) * 10).sum()
}

fn pid(i: u16) -> PartyId {
    PartyId::new(i).unwrap()
}

// ---- lock-step driver ----

#[test]
fn run_rounds_all_honest() {
    let n = 7u16;
    let outcome = run_rounds(parties(n, None), 10);
    assert_eq!(outcome.rounds, 3);
    assert_eq!(outcome.finished_in, vec![Some(2); 7]);
    assert_eq!(outcome.undelivered, 0);
    for s in &outcome.stats {
        assert_eq!(s.messages_sent, 2 * 6);
        assert_eq!(s.bytes_sent, 6 * 10 + 6 * 18);
        assert_eq!(s.messages_received, 2 * 6);
        assert_eq!(s.bytes_received, 6 * 10 + 6 * 18);
        assert_eq!(s.handler_calls, 3);
        assert_eq!(s.outputs, 1);
    }
    let outputs = outcome.into_outputs().unwrap();
    assert_eq!(outputs, vec![expected_sum(n); 7]);
}

#[test]
fn run_rounds_blames_the_cheater() {
    let outcome = run_rounds(parties(5, Some(3)), 10);
    let failures = outcome.failures();
    assert_eq!(failures.len(), 4);
    for (node, err) in &failures {
        assert_ne!(*node, NodeId(2));
        assert_eq!(*err, &SumError::BadOpening(vec![pid(3)]));
    }
    // The cheater itself sees only honest openings.
    assert_eq!(outcome.results[2], Some(Ok(expected_sum(5))));
    assert_eq!(
        outcome.into_outputs(),
        Err(RoundsFailure::Failed {
            node: NodeId(0),
            error: SumError::BadOpening(vec![pid(3)])
        })
    );
}

#[test]
fn run_rounds_round_limit() {
    let outcome = run_rounds(parties(4, None), 2);
    assert_eq!(outcome.rounds, 2);
    assert!(outcome.results.iter().all(Option::is_none));
    assert_eq!(
        outcome.into_outputs(),
        Err(RoundsFailure::Unfinished {
            nodes: NodeId::range(4).collect()
        })
    );
}

// ---- the same parties in the event-driven simulator ----

#[test]
fn lockstep_in_the_simulator_takes_two_latencies() {
    let n = 40u16;
    let nodes: Vec<Lockstep<Party>> = parties(n, None).into_iter().map(Lockstep::new).collect();
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .stop_when(StopCondition::AllOutputs);
    let mut sim = Simulation::new(
        nodes,
        NetworkModel::constant(Duration::from_millis(30)),
        config,
    )
    .unwrap();
    let report = sim.run();
    assert_eq!(report.completion, SimTime::from_millis(60));
    for i in 0..u32::from(n) {
        let (t, r) = &sim.outputs(NodeId(i))[0];
        assert_eq!(*t, SimTime::from_millis(60));
        assert_eq!(r, &Ok(expected_sum(n)));
    }
    // Same traffic as in lock step.
    let lockstep = run_rounds(parties(n, None), 10);
    for i in 0..usize::from(n) {
        let s = &report.nodes[i];
        assert_eq!(s.messages_sent, lockstep.stats[i].messages_sent);
        assert_eq!(s.bytes_sent, lockstep.stats[i].bytes_sent);
        assert_eq!(s.bytes_received, lockstep.stats[i].bytes_received);
    }
}

#[test]
fn lockstep_with_jitter_buffers_early_messages() {
    // Jitter larger than the latency lets reveals overtake commitments.
    let n = 25u16;
    let nodes: Vec<Lockstep<Party>> = parties(n, None).into_iter().map(Lockstep::new).collect();
    let net =
        NetworkModel::constant(Duration::from_millis(1)).with_jitter(Duration::from_millis(20));
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .with_seed(5)
        .stop_when(StopCondition::AllOutputs);
    let mut sim = Simulation::new(nodes, net, config).unwrap();
    let report = sim.run();
    assert_eq!(report.end, quorate_net::EndReason::StopCondition);
    for i in 0..u32::from(n) {
        assert_eq!(sim.outputs(NodeId(i))[0].1, Ok(expected_sum(n)));
        assert_eq!(sim.process(NodeId(i)).unwrap().late_messages(), 0);
    }
}

#[test]
fn lockstep_timeout_turns_an_offline_party_into_blame() {
    let n = 6u16;
    let nodes: Vec<Lockstep<Party>> = parties(n, None)
        .into_iter()
        .map(|p| Lockstep::new(p).with_timeout(Duration::from_millis(100)))
        .collect();
    let config = SimConfig::default()
        .with_compute(ComputeModel::Ignore)
        .stop_when(StopCondition::AllOutputs);
    let mut sim = Simulation::new(
        nodes,
        NetworkModel::constant(Duration::from_millis(30)),
        config,
    )
    .unwrap();
    sim.set_offline(NodeId(4)).unwrap();
    let report = sim.run();
    assert_eq!(report.completion, SimTime::from_millis(100));
    for i in [0u32, 1, 2, 3, 5] {
        let (t, r) = &sim.outputs(NodeId(i))[0];
        assert_eq!(*t, SimTime::from_millis(100));
        assert_eq!(r, &Err(SumError::Missing(vec![pid(5)])));
        assert!(sim.process(NodeId(i)).unwrap().is_finished());
    }
    assert!(report.node(NodeId(4)).unwrap().handler_calls == 0);
}
