//! Threshold ElGamal key generation in G1 without a dealer: joint-Feldman DKG
//! (Pedersen '91) with a Schnorr proof of knowledge of each dealer's constant term.
//!
//! Round 1: mix-server `k` picks `f_k` of degree `t − 1`, broadcasts the Feldman
//! commitments `C_{k,j} = g^{a_{k,j}}` with a proof of knowledge of `a_{k,0}` (bound to the
//! session and to `k`, so commitments cannot be copied), and sends `f_k(i)` privately to each
//! `i`. Round 2: every server checks each received share against the dealer's commitments;
//! a failed check or proof names the dealer. The joint key is `pk = Π_k C_{k,0}`, server
//! `i`'s secret is `x_i = Σ_k f_k(i)`, and its verification key `X_i = g^{x_i}` is computable
//! by anyone from the commitments.
//!
//! # Security
//! The transport must be authenticated and the private shares encrypted; the broadcast must
//! be reliable (echo round, not implemented here). As in FROST's DKG, a rushing adversary can
//! bias the public key's distribution (Gennaro et al.); this does not affect ElGamal
//! IND-CPA under threshold decryption with proofs.

use crate::error::{blame, MixnetError};
use crate::params::Generators;
use blstrs::{G1Projective, Scalar};
use ff::Field;
use group::Group;
use merlin::Transcript;
use quorate_core::poly::SecretPolynomial;
use quorate_core::shamir::eval_point;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::vss::{evaluate_commitment, FeldmanCommitment};
use quorate_core::{PartyId, ThresholdParams};
use rand_core::{CryptoRng, RngCore};

/// Round-1 broadcast of one dealer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DkgBroadcast {
    /// The dealer.
    pub from: PartyId,
    /// Feldman commitments `g^{a_j}`, `t` of them.
    pub commitments: Vec<G1Projective>,
    /// Schnorr proof of knowledge of `a_0`: `(R, z)`.
    pub pok: (G1Projective, Scalar),
}

/// Round-1 private message: the share `f_k(to)`.
#[derive(Clone)]
pub struct DkgShare {
    /// The dealer.
    pub from: PartyId,
    /// The recipient.
    pub to: PartyId,
    /// `f_from(to)`.
    pub value: Scalar,
}

impl core::fmt::Debug for DkgShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DkgShare({} -> {}, <redacted>)", self.from, self.to)
    }
}

/// The public result of the DKG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElGamalPublic {
    /// Threshold parameters.
    pub params: ThresholdParams,
    /// The joint public key `pk = g^x`.
    pub pk: G1Projective,
    /// Verification keys `X_i = g^{x_i}` in party order.
    pub verification_keys: Vec<G1Projective>,
}

/// One server's secret key share (redacted in `Debug`).
#[derive(Clone)]
pub struct ElGamalKeyShare {
    /// Owner.
    pub id: PartyId,
    pub(crate) x: Scalar,
}

impl core::fmt::Debug for ElGamalKeyShare {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ElGamalKeyShare({}, <redacted>)", self.id)
    }
}

fn pok_challenge(
    sid: &SessionId,
    from: PartyId,
    commitments: &[G1Projective],
    r: &G1Projective,
) -> Scalar {
    let mut t = Transcript::for_protocol(b"quorate/mixnet/dkg-pok", 1, sid);
    t.append_party(b"dealer", from);
    t.append_points(b"commitments", commitments);
    t.append_point(b"R", r);
    t.challenge_scalar(b"c")
}

/// Round 1 for dealer `me`: the broadcast and the private shares for every party.
pub fn deal<R: RngCore + CryptoRng>(
    gens: &Generators,
    params: ThresholdParams,
    sid: &SessionId,
    me: PartyId,
    rng: &mut R,
) -> (DkgBroadcast, Vec<DkgShare>) {
    let secret = Scalar::random(&mut *rng);
    let poly = SecretPolynomial::random_with_constant(secret, usize::from(params.t()) - 1, rng);
    let com = FeldmanCommitment::commit(&poly, gens.g);
    let commitments = com.coefficients().to_vec();
    let k = Scalar::random(&mut *rng);
    let r = gens.g * k;
    let c = pok_challenge(sid, me, &commitments, &r);
    let z = k + c * poly.constant();
    let shares = params
        .parties()
        .map(|to| DkgShare {
            from: me,
            to,
            value: poly.evaluate(&eval_point(to)),
        })
        .collect();
    (
        DkgBroadcast {
            from: me,
            commitments,
            pok: (r, z),
        },
        shares,
    )
}

/// Checks one broadcast (length, non-identity constant term, proof of knowledge).
pub fn verify_broadcast(
    gens: &Generators,
    params: ThresholdParams,
    sid: &SessionId,
    b: &DkgBroadcast,
) -> Result<(), MixnetError> {
    if !params.contains(b.from) {
        return Err(blame(b.from, "DKG broadcast from an unknown party"));
    }
    if b.commitments.len() != usize::from(params.t()) {
        return Err(blame(b.from, "DKG commitment count"));
    }
    let c0 = b
        .commitments
        .first()
        .copied()
        .unwrap_or_else(G1Projective::identity);
    if bool::from(c0.is_identity()) {
        return Err(blame(b.from, "DKG constant commitment is the identity"));
    }
    let c = pok_challenge(sid, b.from, &b.commitments, &b.pok.0);
    if gens.g * b.pok.1 != b.pok.0 + c0 * c {
        return Err(blame(b.from, "DKG proof of knowledge"));
    }
    Ok(())
}

/// Round 2 for party `me`: checks every broadcast and every share received, and returns the
/// joint public data and `me`'s key share. Errors name all failing dealers.
pub fn finish(
    gens: &Generators,
    params: ThresholdParams,
    sid: &SessionId,
    me: PartyId,
    broadcasts: &[DkgBroadcast],
    shares_for_me: &[DkgShare],
) -> Result<(ElGamalPublic, ElGamalKeyShare), MixnetError> {
    let public = combine_public(gens, params, sid, broadcasts)?;
    let mut culprits = Vec::new();
    let mut x = Scalar::ZERO;
    for b in broadcasts {
        let share = shares_for_me
            .iter()
            .find(|s| s.from == b.from && s.to == me);
        match share {
            Some(s) if gens.g * s.value == evaluate_commitment(&b.commitments, &eval_point(me)) => {
                x += s.value;
            }
            _ => culprits.push(b.from),
        }
    }
    if !culprits.is_empty() {
        return Err(MixnetError::Aborted(quorate_core::Blame::many(
            culprits,
            "DKG share does not match the dealer's commitments",
        )));
    }
    Ok((public, ElGamalKeyShare { id: me, x }))
}

/// The public outcome from the broadcasts alone (anyone can run this).
pub fn combine_public(
    gens: &Generators,
    params: ThresholdParams,
    sid: &SessionId,
    broadcasts: &[DkgBroadcast],
) -> Result<ElGamalPublic, MixnetError> {
    let ids: Vec<PartyId> = broadcasts.iter().map(|b| b.from).collect();
    quorate_core::party::check_distinct(&ids)?;
    if broadcasts.len() != usize::from(params.n()) {
        return Err(quorate_core::ParamError::LengthMismatch {
            what: "DKG broadcasts",
            expected: usize::from(params.n()),
            got: broadcasts.len(),
        }
        .into());
    }
    for b in broadcasts {
        verify_broadcast(gens, params, sid, b)?;
    }
    let mut sum = vec![G1Projective::identity(); usize::from(params.t())];
    for b in broadcasts {
        for (s, c) in sum.iter_mut().zip(&b.commitments) {
            *s += c;
        }
    }
    let pk = sum.first().copied().unwrap_or_else(G1Projective::identity);
    let verification_keys = params
        .parties()
        .map(|i| evaluate_commitment(&sum, &eval_point(i)))
        .collect();
    Ok(ElGamalPublic {
        params,
        pk,
        verification_keys,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quorate_core::lagrange::coefficients_at_zero;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn run(
        params: ThresholdParams,
        corrupt: Option<(u16, u16)>,
    ) -> Vec<Result<(ElGamalPublic, ElGamalKeyShare), MixnetError>> {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let gens = Generators::derive(0);
        let sid = SessionId::new(b"dkg-test".to_vec());
        let mut bs = Vec::new();
        let mut all = Vec::new();
        for k in params.parties() {
            let (b, s) = deal(&gens, params, &sid, k, &mut rng);
            bs.push(b);
            all.extend(s);
        }
        if let Some((from, to)) = corrupt {
            for s in all.iter_mut() {
                if s.from.get() == from && s.to.get() == to {
                    s.value += Scalar::ONE;
                }
            }
        }
        params
            .parties()
            .map(|me| {
                let mine: Vec<DkgShare> = all.iter().filter(|s| s.to == me).cloned().collect();
                finish(&gens, params, &sid, me, &bs, &mine)
            })
            .collect()
    }

    #[test]
    fn dkg_shares_interpolate_to_the_public_key() {
        let params = ThresholdParams::new(2, 3).expect("valid");
        let out: Vec<_> = run(params, None)
            .into_iter()
            .map(|r| r.expect("honest"))
            .collect();
        let gens = Generators::derive(0);
        let pk = out[0].0.pk;
        for (p, s) in &out {
            assert_eq!(p, &out[0].0);
            assert_eq!(gens.g * s.x, p.verification_keys[s.id.position()]);
        }
        let xs = [eval_point::<Scalar>(out[0].1.id), eval_point(out[2].1.id)];
        let l = coefficients_at_zero(&xs).expect("distinct");
        assert_eq!(gens.g * (l[0] * out[0].1.x + l[1] * out[2].1.x), pk);
    }

    #[test]
    fn bad_share_names_the_dealer() {
        let params = ThresholdParams::new(2, 3).expect("valid");
        let out = run(params, Some((2, 3)));
        assert!(out[0].is_ok() && out[1].is_ok());
        let err = out[2].as_ref().expect_err("party 3 complains");
        assert_eq!(
            quorate_core::error::Culprits::culprits(err),
            &[PartyId::new(2).expect("id")]
        );
    }
}
