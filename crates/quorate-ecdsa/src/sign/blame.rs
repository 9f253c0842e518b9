//! The blame round: run when the combined signature does not verify, it names every
//! signer whose round-3 share `(u_i, w_i)` was wrong. It runs only on failure; the honest
//! path does not pay for it.
//!
//! # Blame round: who sent a wrong `(u_i, w_i)`?
//!
//! Notation of [`crate::sign`]. In the pair where `a` is the multiplication sender (Alice,
//! inputs `r_a, sk_a`) and `b` the receiver (random input `χ^{a→b}`), `b` sends
//! `ψ_{b→a} = φ_b − χ^{a→b}`, so the pair's *effective* product is `r_a·φ_b` with Alice's
//! share `c_u^{a→b} + r_a·ψ_{b→a}` and Bob's share `d_u^{a→b}`. Its public image is
//!
//! `Γ'_u^{a→b} = Γ_u^{a→b} + ψ_{b→a}·R_a`, and likewise `Γ'_v^{a→b} = Γ_v^{a→b} + ψ_{b→a}·pk_a`,
//!
//! computable by anyone from `R_a`, `pk_a` (in `a`'s broadcast body) and the two entries
//! `(Γ^{a→b}, ψ_{a→b})`, `(Γ^{b→a}, ψ_{b→a})`. The bodies carry only the entries' hashes
//! `h_{a→b}`; the entries travel p2p in round 2, so in the blame round every signer
//! **publishes the entries it sent** ([`BlameMsg`]), and every verifier checks each
//! published entry against the hash in the publisher's body. Let
//! `Δ^u_i = Σ_j (Γ'_u^{i→j} − Γ'_u^{j→i})` and `Δ^v_i` likewise. For a signer `i` whose
//! round-3 checks passed (DKLs23 Protocol 3.6 step 3: `χ^{j→i}·R_j = d_u^{j→i}·G + Γ_u^{j→i}`
//! and the same for `pk_j`), and whose `u_i, w_i` are as in step 3's output,
//!
//! * `u_i·G = φ_i·R_i + Σ_j (Γ'_u^{i→j} + φ_i·R_j − Γ'_u^{j→i}) = φ_i·R + Δ^u_i`, using
//!   `d_u^{j→i}·G = (φ_i − ψ_{i→j})·R_j − Γ_u^{j→i}`;
//! * `w_i·G = H(m)·φ_i·G + r·v_i·G = φ_i·B + r·Δ^v_i` with `B = H(m)·G + r·pk`, using
//!   `Σ_j pk_j = pk` (checked in step 3).
//!
//! So every signer proves, with a Chaum–Pedersen proof, that
//! `log_R(u_i·G − Δ^u_i) = log_B(w_i·G − r·Δ^v_i)`. The statement is public data (the bodies,
//! which the echo check makes the same at every signer, the published entries and the
//! broadcast `u_i, w_i`), so
//! the proof reveals nothing beyond it (it is zero-knowledge for `φ_i`); `r_i`, `φ_i` and
//! the multiplication outputs are never revealed. The `Δ` double sums cancel over all `i`,
//! so if **every** proof holds, `Σ u_i·G = φ·R` and `Σ w_i·G = φ·B` for `φ = Σ φ_i`, i.e.
//! `u = φ·k`, `w = φ·(H(m) + r·sk)` and `w/u` is a valid signature (DKLs23 step 4). By
//! contraposition a signature that does not verify makes some proof fail, and that signer
//! is named ([`resolve`]). The only exception is `Σ u_i = 0` with every proof valid,
//! which requires the sum of the honest `φ_i` to be known to the adversary (negligible).
//!
//! *Why publishing the entries is sound.* The signer `a` publishes its entries, and they
//! are checked against `h_{a→b}` in `a`'s body, which `a` signed (three or more signers)
//! and which the echo check made the same at every honest signer. A published entry that
//! does not hash to `h_{a→b}` can only come from `a`, so naming the publisher never names
//! an honest party: an honest `a` publishes exactly the entries it hashed. An entry that
//! does match is, barring a SHA-256 collision, the entry `b` received and checked against
//! the same hash in round 3, so every verifier computes the statements from the values the
//! signers actually used, and all honest verifiers from the same values. (The other
//! variant, each receiver publishing what it received, is also sound — an honest receiver
//! checked its entry against the hash — but it names the receiver for a sender's data; the
//! signer variant keeps the blame with whoever signed the hash.) A statement that depends
//! on a rejected publication is not checked; its publisher is named instead. Publishing the
//! entries reveals nothing the bodies did not reveal before they were hashed (see the
//! crate notes, "Broadcast bodies").
//!
//! The proof transcript binds the protocol name and version, the key id, the epoch, the
//! signing session id, the signer set, the prover, `R`, `B`, the digest, the public key and
//! both statement points.
//!

use super::messages::{BlameMsg, Entry, SignMsg3, SignedBody};
use super::round3::SignRound3;
use super::session::{collect, SessionCtx};
use crate::curve::{base_mul, lincomb};
use crate::error::{EcdsaError, Result};
use k256::{ProjectivePoint, Scalar};
use merlin::Transcript;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{Blame, PartyId};
use rand_core::CryptoRngCore;
use std::collections::BTreeMap;
use zeroize::Zeroize;

const DLEQ_PROTOCOL: &[u8] = b"quorate/ecdsa/dkls23-blame-dleq";
const DLEQ_VERSION: u16 = 1;
/// The check named by the blame round.
pub const CHECK_BLAME: &str = "signing: blame round (published entries, proof of u_j, w_j)";

/// The blame round's state before this signer's proof: holds `φ_i` (wiped on drop,
/// redacted in `Debug`) and every signer's round-3 shares.
pub struct BlameRound {
    st: SignRound3,
    /// `(u_j, w_j)` of every signer as received (own included).
    shares: BTreeMap<PartyId, (Scalar, Scalar)>,
    /// Whether every received echo digest equals ours (see [`resolve`]).
    echoes_agree: bool,
}

impl core::fmt::Debug for BlameRound {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlameRound")
            .field("state", &self.st)
            .finish_non_exhaustive()
    }
}

/// The blame round's state after this signer's proof (public data only).
pub struct BlameState {
    ctx: SessionCtx,
    bodies: BTreeMap<PartyId, SignedBody>,
    shares: BTreeMap<PartyId, (Scalar, Scalar)>,
    /// The entries this signer sent (and published).
    own_entries: Vec<Entry>,
    /// Whether every received echo digest equals ours. If not, the bodies of some signers
    /// may differ between honest signers, and the proofs are not checked here (the
    /// dispute round names the equivocator).
    echoes_agree: bool,
}

impl core::fmt::Debug for BlameState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlameState")
            .field("me", &self.ctx.me)
            .field("signers", &self.ctx.signers)
            .finish_non_exhaustive()
    }
}

impl BlameRound {
    pub(crate) fn new(st: SignRound3, map: &BTreeMap<PartyId, &SignMsg3>) -> Self {
        let mut shares: BTreeMap<PartyId, (Scalar, Scalar)> =
            map.iter().map(|(j, m)| (*j, (m.u, m.w))).collect();
        shares.insert(st.ctx.me, (st.own.u, st.own.w));
        let echoes_agree = map.values().all(|m| m.echo == st.own.echo);
        BlameRound {
            st,
            shares,
            echoes_agree,
        }
    }

    /// Proves this signer's shares correct: `P = φ_i·R`, `Q = φ_i·B` (for an honest signer
    /// these are the points every verifier computes from public data).
    pub fn respond(self, rng: &mut impl CryptoRngCore) -> (BlameState, BlameMsg) {
        let ctx = &self.st.ctx;
        let big_r = ProjectivePoint::from(ctx.big_r);
        let b = blame_base(ctx);
        let mut phi = self.st.phi;
        let p = big_r * phi;
        let q = b * phi;
        let (c, z) = dleq_prove(ctx, ctx.me, &phi, &b, &p, &q, rng);
        phi.zeroize();
        let msg = BlameMsg {
            entries: self.st.entries.clone(),
            c,
            z,
        };
        let state = BlameState {
            ctx: ctx.clone(),
            bodies: self.st.bodies.clone(),
            shares: self.shares.clone(),
            own_entries: self.st.entries.clone(),
            echoes_agree: self.echoes_agree,
        };
        (state, msg)
    }
}

/// `B = H(m)·G + r·pk`.
fn blame_base(ctx: &SessionCtx) -> ProjectivePoint {
    let h = crate::curve::scalar_reduce(&ctx.digest);
    base_mul(&h) + ctx.public_key * ctx.r_x
}

fn dleq_challenge(
    ctx: &SessionCtx,
    prover: PartyId,
    b: &ProjectivePoint,
    p: &ProjectivePoint,
    q: &ProjectivePoint,
    a1: &ProjectivePoint,
    a2: &ProjectivePoint,
) -> Scalar {
    let mut t = Transcript::for_protocol(
        DLEQ_PROTOCOL,
        DLEQ_VERSION,
        &SessionId::new(ctx.sid.to_vec()),
    );
    t.append_message(b"key-id", &ctx.key_id);
    t.append_u64_be(b"epoch", ctx.epoch);
    t.append_message(b"sign-id", &ctx.sign_id);
    t.append_u64_be(b"signers", ctx.signers.len() as u64);
    for s in &ctx.signers {
        t.append_party(b"signer", *s);
    }
    t.append_party(b"prover", prover);
    t.append_point(b"pk", &ctx.public_key);
    t.append_message(b"digest", &ctx.digest);
    t.append_point(b"R", &ProjectivePoint::from(ctx.big_r));
    t.append_point(b"B", b);
    t.append_point(b"P", p);
    t.append_point(b"Q", q);
    t.append_point(b"A1", a1);
    t.append_point(b"A2", a2);
    t.challenge_scalar(b"c")
}

fn dleq_prove(
    ctx: &SessionCtx,
    prover: PartyId,
    phi: &Scalar,
    b: &ProjectivePoint,
    p: &ProjectivePoint,
    q: &ProjectivePoint,
    rng: &mut impl CryptoRngCore,
) -> (Scalar, Scalar) {
    let mut k = <Scalar as k256::elliptic_curve::Field>::random(&mut *rng);
    let big_r = ProjectivePoint::from(ctx.big_r);
    let a1 = big_r * k;
    let a2 = *b * k;
    let c = dleq_challenge(ctx, prover, b, p, q, &a1, &a2);
    let z = k + c * phi;
    k.zeroize();
    (c, z)
}

/// Verifies a proof on public data: `A1 = z·R − c·P`, `A2 = z·B − c·Q`, and `c` must be the
/// transcript's challenge.
fn dleq_verify_vartime(
    ctx: &SessionCtx,
    prover: PartyId,
    b: &ProjectivePoint,
    p: &ProjectivePoint,
    q: &ProjectivePoint,
    (c, z): (&Scalar, &Scalar),
) -> bool {
    let big_r = ProjectivePoint::from(ctx.big_r);
    let a1 = lincomb(&big_r, z, p, &(-*c));
    let a2 = lincomb(b, z, q, &(-*c));
    dleq_challenge(ctx, prover, b, p, q, &a1, &a2) == *c
}

/// Whether `entries`, published by `p`, are exactly the entries whose hashes `p`'s agreed
/// body carries: one per co-signer, in order, each hashing to `h_{p→k}`.
fn published_entries_match(ctx: &SessionCtx, body: &SignedBody, entries: &[Entry]) -> bool {
    let p = body.body.from;
    entries.len() == body.body.hashes.len()
        && entries
            .iter()
            .zip(&body.body.hashes)
            .all(|(e, (k, h))| e.to == *k && e.hash(&ctx.sid, p) == *h)
}

/// Every signer's statement `(P_i, Q_i) = (u_i·G − Δ^u_i, w_i·G − r·Δ^v_i)`, from the
/// agreed bodies (`R_j`, `pk_j`), the published entries and the broadcast shares.
/// `entries` holds only publishers whose entries matched their hashes; a statement that
/// depends on a missing publisher's entry is left out (that publisher is named instead).
fn statements_vartime(
    ctx: &SessionCtx,
    bodies: &BTreeMap<PartyId, SignedBody>,
    entries: &BTreeMap<PartyId, &[Entry]>,
    shares: &BTreeMap<PartyId, (Scalar, Scalar)>,
) -> BTreeMap<PartyId, (ProjectivePoint, ProjectivePoint)> {
    let find = |a: &PartyId, b: PartyId| {
        entries
            .get(a)
            .and_then(|es| es.binary_search_by_key(&b, |e| e.to).ok().map(|k| &es[k]))
    };
    // Γ'_u^{a→b} = Γ_u^{a→b} + ψ_{b→a}·R_a and Γ'_v^{a→b} likewise, for every ordered pair.
    let mut eff: BTreeMap<(PartyId, PartyId), (ProjectivePoint, ProjectivePoint)> = BTreeMap::new();
    for a in &ctx.signers {
        let Some(ba) = bodies.get(a) else {
            continue;
        };
        for b in ctx.signers.iter().filter(|b| *b != a) {
            if let (Some(fwd), Some(back)) = (find(a, *b), find(b, *a)) {
                eff.insert(
                    (*a, *b),
                    (
                        fwd.gamma_u + ba.body.big_r * back.psi,
                        fwd.gamma_v + ba.body.pk * back.psi,
                    ),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    'provers: for p in &ctx.signers {
        let Some((u, w)) = shares.get(p) else {
            continue;
        };
        let mut du = ProjectivePoint::IDENTITY;
        let mut dv = ProjectivePoint::IDENTITY;
        for k in ctx.signers.iter().filter(|k| *k != p) {
            match (eff.get(&(*p, *k)), eff.get(&(*k, *p))) {
                (Some(f), Some(g)) => {
                    du += f.0 - g.0;
                    dv += f.1 - g.1;
                }
                _ => continue 'provers,
            }
        }
        let big_p = base_mul(u) - du;
        let big_q = base_mul(w) - dv * ctx.r_x;
        out.insert(*p, (big_p, big_q));
    }
    out
}

impl BlameState {
    /// The co-signers whose blame message is missing, who sent two different blame
    /// messages, whose published entries do not match the hashes in their agreed body, or
    /// whose proof does not verify. Empty in an honest run. An identical copy of a message
    /// is ignored (a network may replay it; it names nobody).
    ///
    /// The proofs are checked only if every echo digest this signer received equals its own
    /// (always the case after [`super::combine`] returned
    /// [`super::Combined::Blame`]). Otherwise — a signer entered the round with
    /// [`SignRound3::blame`] although the echoes differ — an equivocator may
    /// have given honest signers different bodies, so an honest signer's statement computed
    /// from this signer's view of those bodies can be false and its proof fail here. Then
    /// only missing, doubled and mismatching publications are
    /// named; [`resolve`] points to the dispute round, which names the equivocator.
    fn failing_signers(&self, msgs: &[(PartyId, BlameMsg)]) -> Vec<PartyId> {
        let ctx = &self.ctx;
        let mut culprits = Vec::new();
        let mut got: BTreeMap<PartyId, &BlameMsg> = BTreeMap::new();
        for (from, m) in msgs {
            if *from == ctx.me || !ctx.signers.contains(from) {
                continue;
            }
            if got.insert(*from, m).is_some_and(|prev| prev != m) {
                culprits.push(*from);
            }
        }
        // The published entries, each checked against the signed, echoed hash in its
        // publisher's body; a mismatch names the publisher (it signed the hash).
        let mut entries: BTreeMap<PartyId, &[Entry]> = BTreeMap::new();
        entries.insert(ctx.me, &self.own_entries);
        for (p, m) in &got {
            match self.bodies.get(p) {
                Some(body) if published_entries_match(ctx, body, &m.entries) => {
                    entries.insert(*p, &m.entries);
                }
                _ => culprits.push(*p),
            }
        }
        let stmts = statements_vartime(ctx, &self.bodies, &entries, &self.shares);
        let b = blame_base(ctx);
        for p in ctx.signers.iter().filter(|p| **p != ctx.me) {
            match (got.get(p), stmts.get(p)) {
                (None, _) => culprits.push(*p),
                (Some(m), Some((big_p, big_q))) => {
                    if self.echoes_agree
                        && !dleq_verify_vartime(ctx, *p, &b, big_p, big_q, (&m.c, &m.z))
                    {
                        culprits.push(*p);
                    }
                }
                (Some(_), None) => {}
            }
        }
        culprits.sort_unstable();
        culprits.dedup();
        culprits
    }
}

/// Resolves the blame round: [`EcdsaError::Aborted`] naming every co-signer whose message is
/// missing, whose published entries do not match the hashes in its body, or whose proof
/// fails ([`CHECK_BLAME`]). [`EcdsaError::InvalidSignature`] only if every proof
/// verifies, which happens only with negligible probability when the signature failed.
/// If this signer's echo digests differed (it entered the round through
/// [`SignRound3::blame`]), the proofs are not judged and, with nobody else at fault,
/// [`EcdsaError::ProofRejected`] says to resolve the
/// session with the dispute round instead. The state is kept (a resolution can be
/// repeated, e.g. when late messages arrive).
pub fn resolve(state: &BlameState, msgs: &[(PartyId, BlameMsg)]) -> EcdsaError {
    let culprits = state.failing_signers(msgs);
    if culprits.is_empty() && !state.echoes_agree {
        EcdsaError::ProofRejected(
            "echo digests differ: resolve this session with the dispute round",
        )
    } else if culprits.is_empty() {
        EcdsaError::InvalidSignature
    } else {
        EcdsaError::Aborted(Blame::many(culprits, CHECK_BLAME))
    }
}

impl SignRound3 {
    /// Enters the blame round without combining, e.g. to answer a co-signer whose
    /// [`super::combine`] returned [`super::Combined::Blame`] (it may have received other
    /// round-3 shares).
    pub fn blame(self, msgs: &[(PartyId, SignMsg3)]) -> Result<BlameRound> {
        let map = collect(self.ctx.me, &self.ctx.signers, msgs)?;
        Ok(BlameRound::new(self, &map))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use k256::elliptic_curve::Field;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn ctx(sign_id: &[u8]) -> SessionCtx {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let big_r = base_mul(&Scalar::random(&mut rng)).to_affine();
        SessionCtx {
            me: PartyId::new(1).unwrap(),
            signers: vec![PartyId::new(1).unwrap(), PartyId::new(2).unwrap()],
            sid: [7; 32],
            key_id: [1; 32],
            epoch: 0,
            sign_id: sign_id.to_vec(),
            public_key: base_mul(&Scalar::random(&mut rng)),
            digest: [9; 32],
            big_r,
            r_x: Scalar::from(5u64),
            identities: BTreeMap::new(),
        }
    }

    /// The proof verifies for its own statement and session only.
    #[test]
    fn dleq_is_bound_to_session_prover_and_statement() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let c = ctx(b"s1");
        let p1 = PartyId::new(1).unwrap();
        let p2 = PartyId::new(2).unwrap();
        let phi = Scalar::random(&mut rng);
        let b = blame_base(&c);
        let big_p = ProjectivePoint::from(c.big_r) * phi;
        let big_q = b * phi;
        let (pc, pz) = dleq_prove(&c, p1, &phi, &b, &big_p, &big_q, &mut rng);
        let proof = (&pc, &pz);
        assert!(dleq_verify_vartime(&c, p1, &b, &big_p, &big_q, proof));
        // Another prover index.
        assert!(!dleq_verify_vartime(&c, p2, &b, &big_p, &big_q, proof));
        // Another signing session id (and another sid).
        let c2 = ctx(b"s2");
        assert!(!dleq_verify_vartime(&c2, p1, &b, &big_p, &big_q, proof));
        let mut c3 = ctx(b"s1");
        c3.sid[0] ^= 1;
        assert!(!dleq_verify_vartime(&c3, p1, &b, &big_p, &big_q, proof));
        let mut c4 = ctx(b"s1");
        c4.epoch = 1;
        assert!(!dleq_verify_vartime(&c4, p1, &b, &big_p, &big_q, proof));
        // A false statement (Q for another witness) cannot be proven with φ.
        let bad_q = b * (phi + Scalar::ONE);
        let (qc, qz) = dleq_prove(&c, p1, &phi, &b, &big_p, &bad_q, &mut rng);
        assert!(!dleq_verify_vartime(&c, p1, &b, &big_p, &bad_q, (&qc, &qz)));
        // Encoding round trip, and garbage is a typed error naming the sender.
        let msg = BlameMsg {
            entries: Vec::new(),
            c: pc,
            z: pz,
        };
        let bytes = msg.to_bytes();
        assert_eq!(BlameMsg::from_bytes(p2, &bytes).unwrap(), msg);
        for cut in 0..bytes.len() {
            assert!(matches!(
                BlameMsg::from_bytes(p2, &bytes[..cut]),
                Err(EcdsaError::Malformed { from, .. }) if from == p2
            ));
        }
    }
}
