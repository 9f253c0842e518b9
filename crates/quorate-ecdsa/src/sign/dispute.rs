//! The dispute round: run when signers disagree on the round-2 broadcast bodies (an echo
//! digest differs), it names who equivocated or lied about what it received.
//!
//!
//! With three or more signers every body is signed with the sender's Ed25519 identity key
//! (agreed in the DKG) and round 3 carries an echo digest of all bodies as received. If an
//! echo differs from one's own, every signer publishes the signed bodies it holds
//! ([`DisputeMsg`]); [`resolve`] names every signer with two validly signed,
//! different bodies for the session (equivocation; the two bodies are transferable
//! evidence), and every signer whose published bodies do not hash to its echo or carry an
//! invalid signature. Two different echoes always imply one of these (or a hash collision
//! or a forged signature).

use super::messages::{echo_digest, validly_signed, DisputeMsg, SignMsg3, SignedBody};
use super::round3::SignRound3;
use super::session::{collect, echoes_differ, SessionCtx};
use crate::error::{EcdsaError, Result};
use quorate_core::{Blame, PartyId};
use std::collections::{BTreeMap, BTreeSet};

/// The check named by the dispute round.
pub const CHECK_DISPUTE: &str = "signing: round-2 broadcast (echo dispute)";

/// The dispute round's state (public data only): the bodies as received and every
/// signer's echo digest.
pub struct DisputeRound {
    ctx: SessionCtx,
    bodies: BTreeMap<PartyId, SignedBody>,
    /// Every signer's echo digest as received (own included).
    echoes: BTreeMap<PartyId, [u8; 32]>,
}

impl core::fmt::Debug for DisputeRound {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DisputeRound")
            .field("me", &self.ctx.me)
            .field("signers", &self.ctx.signers)
            .finish_non_exhaustive()
    }
}

/// The dispute round's state after publishing (the same data as [`DisputeRound`]).
#[derive(Debug)]
pub struct DisputeState(DisputeRound);

impl DisputeRound {
    pub(crate) fn new(st: &SignRound3, map: &BTreeMap<PartyId, &SignMsg3>) -> Self {
        let mut echoes: BTreeMap<PartyId, [u8; 32]> = map
            .iter()
            .filter_map(|(j, m)| m.echo.map(|e| (*j, e)))
            .collect();
        if let Some(e) = st.own.echo {
            echoes.insert(st.ctx.me, e);
        }
        DisputeRound {
            ctx: st.ctx.clone(),
            bodies: st.bodies.clone(),
            echoes,
        }
    }

    /// Publishes the bodies this signer received.
    pub fn respond(self) -> (DisputeState, DisputeMsg) {
        let msg = DisputeMsg {
            bodies: self.bodies.values().cloned().collect(),
        };
        (DisputeState(self), msg)
    }
}

/// The co-signers the dispute names (see the module documentation), in increasing order.
fn dispute_culprits(state: &DisputeState, msgs: &[(PartyId, DisputeMsg)]) -> Vec<PartyId> {
    let st = &state.0;
    let ctx = &st.ctx;
    let mut culprits = Vec::new();
    let mut got: BTreeMap<PartyId, &DisputeMsg> = BTreeMap::new();
    for (from, m) in msgs {
        if *from == ctx.me || !ctx.signers.contains(from) {
            continue;
        }
        // An identical copy (a replay) names nobody; two different messages name the sender.
        if got.insert(*from, m).is_some_and(|prev| prev != m) {
            culprits.push(*from);
        }
    }
    // Validly signed bodies per signer, from every source (own view included).
    let mut evidence: BTreeMap<PartyId, BTreeSet<&[u8]>> = BTreeMap::new();
    for (j, sb) in &st.bodies {
        if *j == ctx.me || validly_signed(*j, sb, &ctx.sid, ctx.identities.get(j)) {
            evidence.entry(*j).or_default().insert(&sb.body.bytes);
        }
    }
    for p in ctx.signers.iter().filter(|p| **p != ctx.me) {
        let Some(m) = got.get(p) else {
            culprits.push(*p);
            continue;
        };
        let mut ok = m.bodies.len() == ctx.signers.len();
        for (k, sb) in ctx.signers.iter().zip(&m.bodies) {
            if validly_signed(*k, sb, &ctx.sid, ctx.identities.get(k)) {
                evidence.entry(*k).or_default().insert(&sb.body.bytes);
            } else {
                ok = false;
            }
        }
        let echo = echo_digest(&ctx.sid, m.bodies.iter());
        if !ok || st.echoes.get(p) != Some(&echo) {
            culprits.push(*p);
        }
    }
    for (k, set) in &evidence {
        if set.len() > 1 {
            culprits.push(*k);
        }
    }
    culprits.sort_unstable();
    culprits.dedup();
    culprits
}

/// Resolves the dispute: [`EcdsaError::Aborted`] ([`CHECK_DISPUTE`]) naming every signer
/// that signed two different bodies for the session, and every co-signer whose published
/// bodies are missing, carry an invalid signature or do not hash to its echo digest.
/// [`EcdsaError::InvalidSignature`] only if nobody is at fault, which two different echo
/// digests rule out (barring a hash collision or a forged signature).
pub fn resolve(state: &DisputeState, msgs: &[(PartyId, DisputeMsg)]) -> EcdsaError {
    let culprits = dispute_culprits(state, msgs);
    if culprits.is_empty() {
        EcdsaError::InvalidSignature
    } else {
        EcdsaError::Aborted(Blame::many(culprits, CHECK_DISPUTE))
    }
}

impl SignRound3 {
    /// Enters the dispute round without combining, e.g. to answer a co-signer whose
    /// [`super::combine`] returned [`super::Combined::Dispute`].
    pub fn dispute(self, msgs: &[(PartyId, SignMsg3)]) -> Result<DisputeRound> {
        let map = collect(self.ctx.me, &self.ctx.signers, msgs)?;
        echoes_differ(self.own.echo, &map)?;
        Ok(DisputeRound::new(&self, &map))
    }
}
