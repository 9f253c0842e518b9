//! An in-process driver: runs the sans-I/O rounds of [`crate::protocol`] over a tree with
//! all witnesses in one process, with injected faults. For tests, demos and benchmarks;
//! networked deployments move the same messages over a transport instead.
//!
//! Exception handling, as in the protocol notes ([`crate::notes`]):
//! * witnesses **absent at commitment time** are left out through the mask; an absent
//!   interior node is replaced by its first live child ([`Tree::repair`], subleader
//!   replacement);
//! * a witness that **committed but does not respond, or responds badly**, is named by its
//!   parent; the driver then **restarts** with fresh nonces (new session id, old nonce states
//!   dropped and zeroized) and the culprits excluded from the tree and the mask;
//! * with [`Scenario::stop_at_threshold`] the leader stops asking for commitments as soon as
//!   the collected mask satisfies the policy; before every attempt the driver aborts with
//!   [`CosiError::PolicyUnreachable`] if the live witnesses can no longer satisfy it.
//!
//! Work inside one round is spread over threads with rayon ([`Scenario::parallel`]); the
//! results do not depend on it (per-node RNGs are seeded from the caller's RNG in roster
//! order).

use crate::error::{witness_id, CosiError};
use crate::mask::Mask;
use crate::policy::Policy;
use crate::protocol::{
    Aggregator, AggregatorAwaitingChallenge, Announcement, Challenge, ChallengeContext, ChildCheck,
    Commitment, CommittedWitness, Mode, Response, Witness,
};
use crate::roster::Roster;
use crate::signature::Signature;
use crate::tree::{KeyTree, Promotion, Tree};
use curve25519_dalek::scalar::Scalar;
use quorate_core::transcript::SessionId;
use quorate_core::{Blame, ParamError, PartyId};
use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Faults and options of one in-process signing run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Signing mode (default [`Mode::TwoNonce`]; [`Mode::Legacy`] needs the
    /// `insecure-legacy` feature, else every witness refuses it).
    pub mode: Mode,
    /// Witnesses that are down from the start: they never commit.
    pub absent: BTreeSet<usize>,
    /// Witnesses that commit and then go silent (an interior node also stops forwarding).
    pub fail_after_commit: BTreeSet<usize>,
    /// Witnesses that send a wrong partial response (`s + 1`) to their parent (an interior
    /// node corrupts its subtree's response).
    pub bad_response: BTreeSet<usize>,
    /// Stop asking for commitments once the collected mask satisfies the policy.
    pub stop_at_threshold: bool,
    /// How aggregators check their children (default [`ChildCheck::Optimistic`]).
    pub child_check: ChildCheck,
    /// Simulation shortcut: derive the [`ChallengeContext`] once and hand it to every node,
    /// instead of every node deriving its own (the faithful default, `false`). It removes
    /// `n − 1` redundant derivations (`b`, `R = R̂1 + b·R̂2`, `c`) from the CPU total; a
    /// deployment cannot do this, each witness derives the context itself.
    pub shared_context: bool,
    /// Spread each round's work over rayon's thread pool (default `true`).
    pub parallel: bool,
    /// Give up after this many attempts (default 16).
    pub max_attempts: usize,
    /// Base session id; attempt `k` of a call uses
    /// `session ‖ "/" ‖ hex(16 random bytes) ‖ "/attempt/" ‖ u32_be(k)`.
    pub session: SessionId,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            mode: Mode::TwoNonce,
            absent: BTreeSet::new(),
            fail_after_commit: BTreeSet::new(),
            bad_response: BTreeSet::new(),
            stop_at_threshold: false,
            child_check: ChildCheck::default(),
            shared_context: false,
            parallel: true,
            max_attempts: 16,
            session: SessionId::new(b"quorate/cosi/in-process".to_vec()),
        }
    }
}

impl Scenario {
    /// Sets the absent witnesses.
    pub fn with_absent(mut self, absent: impl IntoIterator<Item = usize>) -> Self {
        self.absent = absent.into_iter().collect();
        self
    }

    /// Sets the witnesses that fail after committing.
    pub fn with_fail_after_commit(mut self, failing: impl IntoIterator<Item = usize>) -> Self {
        self.fail_after_commit = failing.into_iter().collect();
        self
    }

    /// Sets the witnesses that send a wrong partial response.
    pub fn with_bad_response(mut self, bad: impl IntoIterator<Item = usize>) -> Self {
        self.bad_response = bad.into_iter().collect();
        self
    }

    /// Sets the mode.
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
}

/// A witness excluded after being named by an aggregator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exclusion {
    /// The witness (roster position + 1, as in blame).
    pub witness: PartyId,
    /// The attempt (0-based) in which it was named.
    pub attempt: usize,
    /// The check it failed.
    pub check: &'static str,
}

/// What happened during [`sign_in_process`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigningReport {
    /// Attempts made (1 if nothing failed after commitment).
    pub attempts: usize,
    /// Participants in the final signature.
    pub participants: usize,
    /// Witnesses absent from the start, as roster positions (mask bits).
    pub absent: Vec<usize>,
    /// Witnesses whose validator declined the message (left out of the mask), as roster
    /// positions.
    pub declined: Vec<usize>,
    /// Witnesses named and excluded, in order.
    pub excluded: Vec<Exclusion>,
    /// Subleader replacements in the final attempt's tree.
    pub promotions: Vec<Promotion>,
    /// Live witnesses not asked to commit in the final attempt (stop at threshold), as roster
    /// positions.
    pub not_asked: Vec<usize>,
    /// Height of the final attempt's tree.
    pub depth: usize,
}

/// What one node sends up in round 2 (`None`: nothing).
type NodeOutput = Result<Option<Response>, CosiError>;

/// Round-2 work of one node.
struct RespondJob<'w> {
    node: usize,
    witness: Option<&'w mut Witness>,
    state: Option<CommittedWitness>,
    aggregator: Option<AggregatorAwaitingChallenge>,
    children: Vec<Response>,
    seed: [u8; 32],
}

fn attempt_session(base: &SessionId, attempt: usize) -> SessionId {
    let mut bytes = base.as_bytes().to_vec();
    bytes.extend_from_slice(b"/attempt/");
    bytes.extend_from_slice(&(attempt as u32).to_be_bytes());
    SessionId::new(bytes)
}

fn run<T: Send, U: Send>(
    items: Vec<T>,
    parallel: bool,
    f: impl Fn(T) -> U + Sync + Send,
) -> Vec<U> {
    if parallel {
        items.into_par_iter().map(f).collect()
    } else {
        items.into_iter().map(f).collect()
    }
}

fn seeds<R: RngCore>(rng: &mut R, n: usize) -> Vec<[u8; 32]> {
    (0..n)
        .map(|_| {
            let mut s = [0u8; 32];
            rng.fill_bytes(&mut s);
            s
        })
        .collect()
}

/// Runs a complete collective signing of `message` in one process.
///
/// * `roster`, `witnesses` (`witnesses[i]` is witness `i` of `roster`, each with its own
///   [`crate::Validator`]; they keep their session guards across calls), `tree` (over the
///   roster, usually covering every witness);
/// * `policy`: the signature must satisfy it; it also drives stop-at-threshold and the
///   early abort when it becomes unreachable;
/// * `scenario`: injected faults and options;
/// * `rng`: seeds the session ids, every nonce and batch weight.
///
/// A witness whose validator declines the message does not commit: it is left out of the
/// mask and listed in [`SigningReport::declined`]. Returns the verified signature and a
/// [`SigningReport`]. Errors: parameter errors, [`CosiError::PolicyUnreachable`],
/// [`CosiError::TooManyAttempts`], or any non-attributable protocol error (e.g. a witness
/// declining at response time).
pub fn sign_in_process<R: RngCore + CryptoRng>(
    roster: &Arc<Roster>,
    witnesses: &mut [Witness],
    tree: &Tree,
    message: &[u8],
    policy: &Policy,
    scenario: &Scenario,
    rng: &mut R,
) -> Result<(Signature, SigningReport), CosiError> {
    let n = roster.len();
    if witnesses.len() != n {
        return Err(ParamError::LengthMismatch {
            what: "witnesses",
            expected: n,
            got: witnesses.len(),
        }
        .into());
    }
    if witnesses
        .iter()
        .enumerate()
        .any(|(i, w)| w.index() != i || w.roster().id() != roster.id())
    {
        return Err(CosiError::Misuse {
            check: "witnesses[i] must be witness i of this roster",
        });
    }
    if tree.n() != n {
        return Err(ParamError::LengthMismatch {
            what: "tree size",
            expected: n,
            got: tree.n(),
        }
        .into());
    }
    policy.validate(n)?;
    // The witnesses are lent to the rounds one by one and always put back.
    let mut slots: Vec<Option<&mut Witness>> = witnesses
        .iter_mut()
        .enumerate()
        .map(|(i, w)| (!scenario.absent.contains(&i)).then_some(w))
        .collect();
    // A fresh session id per call: the witnesses refuse a session they already used.
    let mut call_id = [0u8; 16];
    rng.fill_bytes(&mut call_id);
    let mut base = scenario.session.as_bytes().to_vec();
    base.push(b'/');
    base.extend_from_slice(hex::encode(call_id).as_bytes());
    let base = SessionId::new(base);
    let mut declined: BTreeSet<usize> = BTreeSet::new();
    let mut first_decline: Option<CosiError> = None;

    let mut excluded: BTreeSet<usize> =
        scenario.absent.iter().copied().filter(|&i| i < n).collect();
    let mut log: Vec<Exclusion> = Vec::new();
    let mut last_blame: Option<Blame> = None;

    for attempt in 0..scenario.max_attempts {
        let live = Mask::from_indices(n, (0..n).filter(|i| !excluded.contains(i)))?;
        if !policy.is_satisfied(&live) {
            return Err(CosiError::PolicyUnreachable {
                live: live.count(),
                n,
            });
        }
        let (rtree, promotions) = tree.repair(|i| !excluded.contains(&i))?;
        let ktree = Arc::new(KeyTree::new(roster.clone(), rtree)?);
        let t = ktree.tree();
        let announcement = Announcement {
            session: attempt_session(&base, attempt),
            mode: scenario.mode,
            message: message.to_vec(),
        };

        // Who is asked to commit (preorder: root, first subtree, …).
        let mut asked = vec![false; n];
        let mut not_asked = Vec::new();
        let mut collected = Mask::empty(n);
        for &v in t.preorder() {
            if scenario.stop_at_threshold && policy.is_satisfied(&collected) {
                not_asked.push(v);
                continue;
            }
            asked[v] = true;
            collected.insert(v)?;
        }
        not_asked.sort_unstable();

        // Round 1: commitments.
        let commit_seeds = seeds(rng, n);
        let jobs: Vec<(usize, &mut Witness)> = slots
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| asked[*i])
            .filter_map(|(i, w)| w.take().map(|w| (i, w)))
            .collect();
        let ann = &announcement;
        let committed = run(jobs, scenario.parallel, |(i, w)| {
            let mut r = ChaCha20Rng::from_seed(commit_seeds[i]);
            let out = w.commit(ann, &mut r);
            (i, w, out)
        });
        let mut states: Vec<Option<CommittedWitness>> = (0..n).map(|_| None).collect();
        let mut own: Vec<Option<Commitment>> = vec![None; n];
        for (i, w, out) in committed {
            slots[i] = Some(w);
            match out {
                Ok((s, c)) => {
                    states[i] = Some(s);
                    own[i] = Some(c);
                }
                // Declining is leaving the mask.
                Err(e @ CosiError::Declined { .. }) => {
                    declined.insert(i);
                    first_decline.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }

        // Aggregation of commitments, bottom-up.
        let levels = t.levels();
        let mut up: Vec<Option<Commitment>> = vec![None; n];
        let mut awaiting: Vec<Option<AggregatorAwaitingChallenge>> = (0..n).map(|_| None).collect();
        for level in levels.iter().rev() {
            let jobs: Vec<(usize, Vec<Commitment>)> = level
                .iter()
                .map(|&v| {
                    let mut ins: Vec<Commitment> = own[v].take().into_iter().collect();
                    ins.extend(t.children(v).iter().filter_map(|&c| up[c].take()));
                    (v, ins)
                })
                .collect();
            let kt = &ktree;
            let results = run(jobs, scenario.parallel, |(v, ins)| {
                if kt.tree().children(v).is_empty() {
                    return Ok((v, None, ins.into_iter().next()));
                }
                let mut agg = aggregator_for(kt.clone(), v, ann)?;
                for c in ins {
                    agg.add_commitment(c)?;
                }
                let (aw, out) = agg.finish_commitments()?;
                Ok::<_, CosiError>((v, Some(aw), Some(out)))
            });
            for r in results {
                let (v, aw, out) = r?;
                awaiting[v] = aw;
                up[v] = out;
            }
        }
        let root = t.root();
        let root_commitment = up[root].take().ok_or_else(|| {
            first_decline
                .clone()
                .unwrap_or(CosiError::PolicyUnreachable { live: 0, n })
        })?;
        if !policy.is_satisfied(root_commitment.mask()) {
            // Say why, when witnesses declined the message.
            return Err(first_decline
                .unwrap_or_else(|| crate::error::VerifyFailure::PolicyNotSatisfied.into()));
        }
        let challenge = Challenge::new(&root_commitment, message.to_vec());
        let shared = if scenario.shared_context {
            Some(ChallengeContext::derive(roster, &challenge)?)
        } else {
            None
        };

        // Round 2: responses, bottom-up.
        let respond_seeds = seeds(rng, n);
        let mut down: Vec<Option<Response>> = vec![None; n];
        let mut failure: Option<Vec<CosiError>> = None;
        for level in levels.iter().rev() {
            let jobs: Vec<RespondJob> = level
                .iter()
                .map(|&v| RespondJob {
                    node: v,
                    witness: slots[v].take(),
                    state: states[v].take(),
                    aggregator: awaiting[v].take(),
                    children: t
                        .children(v)
                        .iter()
                        .filter_map(|&c| down[c].take())
                        .collect(),
                    seed: respond_seeds[v],
                })
                .collect();
            let ch = &challenge;
            let sh = &shared;
            let results = run(jobs, scenario.parallel, |job| {
                respond_node(job, roster, ch, sh.as_ref(), scenario)
            });
            let mut errors = Vec::new();
            for (v, w, out) in results {
                slots[v] = w;
                match out {
                    Ok(resp) => down[v] = resp,
                    Err(e) => errors.push(e),
                }
            }
            if !errors.is_empty() {
                failure = Some(errors);
                break;
            }
        }

        let errors = match failure {
            None => match down[root].take() {
                Some(total) => {
                    let ctx = match shared {
                        Some(ctx) => ctx,
                        None => ChallengeContext::derive(roster, &challenge)?,
                    };
                    let sig = ctx.finalize(roster, &total, policy)?;
                    let report = SigningReport {
                        attempts: attempt + 1,
                        participants: sig.mask().count(),
                        absent: scenario.absent.iter().copied().collect(),
                        declined: declined.into_iter().collect(),
                        excluded: log,
                        promotions,
                        not_asked,
                        depth: t.depth(),
                    };
                    return Ok((sig, report));
                }
                // The root itself went silent: only an outside observer can tell.
                None => vec![CosiError::blame(root, "root did not produce the signature")],
            },
            Some(errors) => errors,
        };
        let mut culprits: Vec<(usize, &'static str)> = Vec::new();
        for e in errors {
            match e {
                CosiError::Aborted(b) => {
                    culprits.extend(b.culprits().iter().map(|p| (p.position(), b.check())));
                    last_blame = Some(b);
                }
                other => return Err(other),
            }
        }
        for (index, check) in culprits {
            if excluded.insert(index) {
                log.push(Exclusion {
                    witness: witness_id(index),
                    attempt,
                    check,
                });
            }
        }
    }
    Err(CosiError::TooManyAttempts {
        attempts: scenario.max_attempts,
        last: last_blame.unwrap_or_else(|| Blame::many(Vec::new(), "no attempt was made")),
    })
}

/// The aggregator for the announced mode. The driver plays the leader and every aggregator
/// in one process, so it relays a [`Mode::Legacy`] session when the `insecure-legacy` feature
/// is on (its witnesses were then built with `Witness::new_insecure_legacy` by the caller);
/// without it the aggregators refuse ([`CosiError::LegacyRefused`]).
pub(crate) fn aggregator_for(
    tree: Arc<KeyTree>,
    node: usize,
    announcement: &Announcement,
) -> Result<Aggregator, CosiError> {
    #[cfg(feature = "insecure-legacy")]
    if announcement.mode == Mode::Legacy {
        return Aggregator::new_insecure_legacy(tree, node, announcement);
    }
    Aggregator::new(tree, node, announcement)
}

/// Round 2 at one node: derive (or reuse) the context, answer as a witness, aggregate and
/// check the children as an interior node, apply injected faults.
fn respond_node<'w>(
    job: RespondJob<'w>,
    roster: &Roster,
    challenge: &Challenge,
    shared: Option<&ChallengeContext>,
    scenario: &Scenario,
) -> (usize, Option<&'w mut Witness>, NodeOutput) {
    let RespondJob {
        node,
        mut witness,
        state,
        aggregator,
        children,
        seed,
    } = job;
    if scenario.fail_after_commit.contains(&node) {
        // Silent: nonces and partial sums are dropped.
        return (node, witness, Ok(None));
    }
    let out = (|| -> NodeOutput {
        if state.is_none() && aggregator.is_none() {
            return Ok(None);
        }
        let ctx = match shared {
            Some(c) => c.clone(),
            None => ChallengeContext::derive(roster, challenge)?,
        };
        let own = match (state, witness.as_deref_mut()) {
            (Some(s), Some(w)) => Some(w.respond_with_context(s, &ctx)?),
            _ => None,
        };
        let mut out = match aggregator {
            // A relay whose subtree contributed nothing is not expected to answer.
            None => own,
            Some(aw) if aw.mask().is_none() => own,
            Some(aw) => {
                let mut collecting = aw.receive_context(ctx)?;
                if let Some(r) = own {
                    collecting.add_response(r)?;
                }
                for r in children {
                    collecting.add_response(r)?;
                }
                let mut rng = ChaCha20Rng::from_seed(seed);
                Some(collecting.finish(scenario.child_check, &mut rng)?)
            }
        };
        if scenario.bad_response.contains(&node) {
            out = out.map(|r| r.with_s(r.s() + Scalar::ONE));
        }
        Ok(out)
    })();
    (node, witness, out)
}
