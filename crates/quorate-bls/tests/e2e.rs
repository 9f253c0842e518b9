//! End-to-end tests of hot/cold threshold BLS: registration, refresh, signing, proofs,
//! and every rejection path with its culprit.
#![allow(clippy::unwrap_used)]

use ff::Field;
use group::Group;
use quorate_bls::ciphersuite::verify_with_blst;
use quorate_bls::client::{generate_refresh, Client, Refresh};
use quorate_bls::cold::ColdParty;
use quorate_bls::group::GroupPublic;
use quorate_bls::hot::HotParty;
use quorate_bls::kzg::{ceremony, Crs};
use quorate_bls::proofs::ProofContext;
use quorate_bls::tsign::{combine, PartialSignature};
use quorate_bls::BlsError;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::{ParamError, PartyId, ThresholdParams};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

struct System {
    crs: Crs,
    public: GroupPublic,
    cold: Vec<ColdParty>,
    hot: Vec<HotParty>,
}

fn id(i: u16) -> PartyId {
    PartyId::new(i).unwrap()
}

fn setup(t: u16, n: u16, rng: &mut ChaCha20Rng) -> System {
    let crs = ceremony::run(n, 2, &SessionId::new(b"e2e".to_vec()), rng).unwrap();
    let params = ThresholdParams::new(t, n).unwrap();
    let mut cold: Vec<ColdParty> = PartyId::range(n)
        .map(|i| ColdParty::register(i, rng))
        .collect();
    let client = Client::generate(rng);
    let eks: Vec<_> = cold.iter().map(|c| c.public_key()).collect();
    let reg = client.register(&crs, params, &eks, rng).unwrap();
    for c in &mut cold {
        c.add_client(&client.public_key(), &client.proof_of_possession())
            .unwrap();
    }
    let hot: Vec<HotParty> = PartyId::range(n)
        .map(|i| {
            HotParty::register(&crs, i, &reg.public, &reg.payloads[i.position()], rng).unwrap()
        })
        .collect();
    System {
        crs,
        public: reg.public,
        cold,
        hot,
    }
}

impl System {
    fn partial(&self, i: PartyId, msg: &[u8]) -> PartialSignature {
        let vk = self.public.public_key();
        let cold = self.cold[i.position()].partial_sign(vk, msg).unwrap();
        self.hot[i.position()].partial_sign(msg, &cold).unwrap()
    }

    fn sign_with(
        &self,
        ids: &[PartyId],
        msg: &[u8],
        rng: &mut ChaCha20Rng,
    ) -> Result<quorate_bls::Signature, BlsError> {
        let partials: Vec<_> = ids.iter().map(|i| self.partial(*i, msg)).collect();
        combine(&self.crs, &self.public, msg, &partials, rng)
    }

    fn refresh(&mut self, rng: &mut ChaCha20Rng) {
        let Refresh { public, shares } = generate_refresh(&self.crs, &self.public, rng).unwrap();
        self.public = self.public.refreshed(&self.crs, &public, rng).unwrap();
        self.hot = self
            .hot
            .iter()
            .map(|h| {
                h.refreshed(&self.crs, &public, &shares[h.index().position()], rng)
                    .unwrap()
            })
            .collect();
        for h in &self.hot {
            assert_eq!(h.public(), &self.public);
        }
    }
}

fn assert_standard_signature(public: &GroupPublic, msg: &[u8], sig: &quorate_bls::Signature) {
    assert!(public.public_key().verify(msg, sig));
    assert!(verify_with_blst(
        &public.public_key().to_bytes(),
        msg,
        &sig.to_bytes()
    ));
}

fn end_to_end(t: u16, n: u16, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut sys = setup(t, n, &mut rng);
    let msg = format!("e2e ({t},{n})");
    let mut ids: Vec<PartyId> = PartyId::range(n).collect();
    ids.shuffle(&mut rng);
    let sig = sys
        .sign_with(&ids[..t as usize], msg.as_bytes(), &mut rng)
        .unwrap();
    assert_standard_signature(&sys.public, msg.as_bytes(), &sig);

    sys.refresh(&mut rng);
    assert_eq!(sys.public.epoch(), 1);
    ids.shuffle(&mut rng);
    let sig2 = sys
        .sign_with(&ids[..t as usize], msg.as_bytes(), &mut rng)
        .unwrap();
    // BLS is deterministic: same key, same message, same signature after refresh.
    assert_eq!(sig, sig2);
    // More than t partials is fine too.
    let sig3 = sys.sign_with(&ids, msg.as_bytes(), &mut rng).unwrap();
    assert_eq!(sig, sig3);

    // Proofs of every party, batch-verified.
    let ctx = ProofContext {
        session: SessionId::new(b"audit".to_vec()),
        block_id: 42,
    };
    let cold_items: Vec<_> = sys
        .cold
        .iter()
        .map(|c| (c.index(), *c.public_key().point(), c.prove(&ctx, &mut rng)))
        .collect();
    quorate_bls::proofs::batch_verify_cold(&cold_items, &ctx, &mut rng).unwrap();
    let hot_items: Vec<_> = sys
        .hot
        .iter()
        .map(|h| (h.index(), h.prove(&sys.crs, &ctx, &mut rng)))
        .collect();
    quorate_bls::proofs::batch_verify_hot(
        &sys.crs,
        sys.public.hot_share_commitment(),
        sys.public.public_key().point(),
        &hot_items,
        &ctx,
        &mut rng,
    )
    .unwrap();
}

#[test]
fn end_to_end_2_of_3() {
    end_to_end(2, 3, 1);
}

#[test]
fn end_to_end_3_of_5() {
    end_to_end(3, 5, 2);
}

#[test]
fn end_to_end_5_of_20() {
    end_to_end(5, 20, 3);
}

#[test]
fn end_to_end_67_of_100() {
    end_to_end(67, 100, 4);
}

#[test]
fn end_to_end_power_of_two_party_counts() {
    // The reference's domain bug (defect 2) broke n = 4 and n = 8.
    end_to_end(2, 4, 5);
    end_to_end(4, 8, 6);
}

#[test]
fn wrong_partial_signatures_name_their_culprits() {
    let mut rng = ChaCha20Rng::seed_from_u64(10);
    let sys = setup(3, 5, &mut rng);
    let msg = b"blame";
    let mut partials: Vec<_> = PartyId::range(5).map(|i| sys.partial(i, msg)).collect();
    // Party 2 signs another message; party 4 sends a random point.
    partials[1] = sys.partial(id(2), b"something else");
    partials[3] = PartialSignature::from_bytes(&{
        let mut b = partials[3].to_bytes();
        let other = sys.partial(id(1), b"x").to_bytes();
        b[4..].copy_from_slice(&other[4..]);
        b
    })
    .unwrap();
    let err = combine(&sys.crs, &sys.public, msg, &partials, &mut rng).unwrap_err();
    assert!(matches!(err, BlsError::Aborted(_)), "{err:?}");
    assert_eq!(err.culprits(), &[id(2), id(4)]);

    // A cold party with a wrong pad makes its index fail.
    let hot3 = &sys.hot[2];
    let cold_wrong = sys.cold[0]
        .partial_sign(sys.public.public_key(), msg)
        .unwrap();
    assert!(
        hot3.partial_sign(msg, &cold_wrong).is_err(),
        "index mismatch is refused"
    );
}

#[test]
fn too_few_duplicate_or_unknown_partials_are_clear_errors() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let sys = setup(3, 5, &mut rng);
    let msg = b"quorum";
    let err = sys.sign_with(&[id(1), id(5)], msg, &mut rng).unwrap_err();
    assert_eq!(
        err,
        BlsError::Param(ParamError::NotEnoughShares { needed: 3, got: 2 })
    );
    let p1 = sys.partial(id(1), msg);
    let p2 = sys.partial(id(2), msg);
    let err = combine(&sys.crs, &sys.public, msg, &[p1, p2, p1], &mut rng).unwrap_err();
    assert!(
        matches!(err, BlsError::Param(ParamError::DuplicateIndex { .. })),
        "{err:?}"
    );
    let mut bytes = p2.to_bytes();
    bytes[3] = 9; // index 9 of 5
    let p9 = PartialSignature::from_bytes(&bytes).unwrap();
    let err = combine(&sys.crs, &sys.public, msg, &[p1, p2, p9], &mut rng).unwrap_err();
    assert!(
        matches!(err, BlsError::Param(ParamError::UnknownParty { .. })),
        "{err:?}"
    );
}

#[test]
fn invalid_thresholds_are_rejected() {
    assert!(ThresholdParams::new(1, 3).is_err());
    assert!(ThresholdParams::new(4, 3).is_err());
    assert!(ThresholdParams::new(0, 0).is_err());
    assert!(PartyId::new(0).is_err());
}

#[test]
fn bad_registrations_are_refused() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let (t, n) = (3u16, 5u16);
    let crs = ceremony::run(n, 1, &SessionId::new(b"reg".to_vec()), &mut rng).unwrap();
    let params = ThresholdParams::new(t, n).unwrap();
    let cold: Vec<ColdParty> = PartyId::range(n)
        .map(|i| ColdParty::register(i, &mut rng))
        .collect();
    let eks: Vec<_> = cold.iter().map(|c| c.public_key()).collect();
    let client = Client::generate(&mut rng);
    let reg = client.register(&crs, params, &eks, &mut rng).unwrap();

    // Payload for party 2 given to party 3.
    let err = HotParty::register(&crs, id(3), &reg.public, &reg.payloads[1], &mut rng).unwrap_err();
    assert!(matches!(err, BlsError::InvalidRegistration { .. }));

    // Hot share off by one: the opening check fails.
    let mut bytes = reg.payloads[0].to_bytes();
    bytes[4 + 31] ^= 1;
    let tampered = quorate_bls::HotRegistration::from_bytes(&bytes).unwrap();
    let err = HotParty::register(&crs, id(1), &reg.public, &tampered, &mut rng).unwrap_err();
    assert!(matches!(err, BlsError::InvalidRegistration { .. }));

    // A client that publishes an inconsistent vs_j (not on a degree t−1 polynomial).
    let mut public_bytes = reg.public.to_bytes();
    let vs_offset = 2 + 2 + 2 + 8 + 96 + 48 + 48;
    let other = reg.public.to_bytes();
    // Swap vs_1 and vs_2: still valid points, no longer a consistent sharing.
    public_bytes[vs_offset..vs_offset + 96]
        .copy_from_slice(&other[vs_offset + 96..vs_offset + 192]);
    public_bytes[vs_offset + 96..vs_offset + 192]
        .copy_from_slice(&other[vs_offset..vs_offset + 96]);
    let bad_public = GroupPublic::from_bytes(&public_bytes).unwrap();
    let err = HotParty::register(&crs, id(1), &bad_public, &reg.payloads[0], &mut rng).unwrap_err();
    assert!(
        matches!(err, BlsError::InvalidRegistration { .. }),
        "{err:?}"
    );

    // A registration record whose PoP belongs to another key.
    let other_client = Client::generate(&mut rng);
    let mut public_bytes = reg.public.to_bytes();
    public_bytes[14 + 96..14 + 96 + 48]
        .copy_from_slice(&other_client.proof_of_possession().to_bytes());
    let bad_public = GroupPublic::from_bytes(&public_bytes).unwrap();
    assert!(HotParty::register(&crs, id(1), &bad_public, &reg.payloads[0], &mut rng).is_err());

    // A cold party refuses a client without a valid PoP.
    let mut c = ColdParty::register(id(1), &mut rng);
    assert!(c
        .add_client(&client.public_key(), &other_client.proof_of_possession())
        .is_err());
    assert!(c.partial_sign(&client.public_key(), b"m").is_err());

    // Wrong number of cold keys.
    assert!(client.register(&crs, params, &eks[..4], &mut rng).is_err());
    // A CRS too small for n.
    let small = ceremony::run(2, 1, &SessionId::new(b"small".to_vec()), &mut rng).unwrap();
    assert!(client.register(&small, params, &eks, &mut rng).is_err());
}

/// Deals a refresh from an arbitrary polynomial (a cheating dealer).
fn cheating_refresh(sys: &System, coeffs: Vec<blstrs::Scalar>, epoch: u64) -> Refresh {
    quorate_bls::client::testing::deal_refresh_from(&sys.crs, sys.public.params(), epoch, coeffs)
        .unwrap()
}

fn assert_refresh_rejected_without_change(
    sys: &System,
    refresh: &Refresh,
    target: usize,
    rng: &mut ChaCha20Rng,
) -> BlsError {
    let before = sys.hot[target].public().clone();
    let share = &refresh.shares[target];
    let err = sys.hot[target]
        .refreshed(&sys.crs, &refresh.public, share, rng)
        .unwrap_err();
    assert!(matches!(err, BlsError::InvalidRefresh { .. }), "{err:?}");
    assert_eq!(sys.hot[target].public(), &before);
    // The party still signs correctly at the old epoch.
    let sig = sys
        .sign_with(
            &PartyId::range(sys.public.params().t()).collect::<Vec<_>>(),
            b"after",
            rng,
        )
        .unwrap();
    assert_standard_signature(&sys.public, b"after", &sig);
    err
}

#[test]
fn bad_refreshes_are_rejected_and_change_nothing() {
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let sys = setup(3, 5, &mut rng);
    let t = 3usize;

    // δ(0) = 1.
    let mut coeffs: Vec<blstrs::Scalar> =
        (0..t).map(|_| blstrs::Scalar::random(&mut rng)).collect();
    coeffs[0] = blstrs::Scalar::ONE;
    let r = cheating_refresh(&sys, coeffs, 1);
    for i in 0..5 {
        assert_refresh_rejected_without_change(&sys, &r, i, &mut rng);
    }
    assert!(sys.public.refreshed(&sys.crs, &r.public, &mut rng).is_err());

    // deg δ = t (one too many).
    let mut coeffs: Vec<blstrs::Scalar> =
        (0..=t).map(|_| blstrs::Scalar::random(&mut rng)).collect();
    coeffs[0] = blstrs::Scalar::ZERO;
    let r = cheating_refresh(&sys, coeffs, 1);
    for i in 0..5 {
        assert_refresh_rejected_without_change(&sys, &r, i, &mut rng);
    }

    // An honest refresh, but the share is addressed to another party.
    let good = generate_refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let err = sys.hot[0]
        .refreshed(&sys.crs, &good.public, &good.shares[1], &mut rng)
        .unwrap_err();
    assert!(matches!(err, BlsError::InvalidRefresh { .. }));

    // Wrong epoch (stale or replayed).
    let mut stale = good.public.to_bytes();
    stale[2..10].copy_from_slice(&0u64.to_be_bytes());
    let stale = quorate_bls::RefreshPublic::from_bytes(&stale).unwrap();
    assert!(sys.hot[0]
        .refreshed(&sys.crs, &stale, &good.shares[0], &mut rng)
        .is_err());

    // Tampered δ_i (opening fails) and tampered Δvs_i.
    let mut share_bytes = good.shares[0].to_bytes();
    share_bytes[4 + 31] ^= 1;
    let tampered = quorate_bls::RefreshShare::from_bytes(&share_bytes).unwrap();
    assert!(sys.hot[0]
        .refreshed(&sys.crs, &good.public, &tampered, &mut rng)
        .is_err());
    // Right δ_i, wrong opening π_δ,i (party 2's): only the opening check catches this.
    let mut share_bytes = good.shares[0].to_bytes();
    let other = good.shares[1].to_bytes();
    share_bytes[4 + 32..].copy_from_slice(&other[4 + 32..]);
    let tampered = quorate_bls::RefreshShare::from_bytes(&share_bytes).unwrap();
    let err = sys.hot[0]
        .refreshed(&sys.crs, &good.public, &tampered, &mut rng)
        .unwrap_err();
    assert_eq!(
        err,
        BlsError::InvalidRefresh {
            check: "δ_i does not open C_δ at this party's point"
        }
    );
    let mut pub_bytes = good.public.to_bytes();
    let dvs = 2 + 8 + 2 + 3 * 48;
    let copy = pub_bytes.clone();
    pub_bytes[dvs..dvs + 96].copy_from_slice(&copy[dvs + 96..dvs + 192]);
    let tampered = quorate_bls::RefreshPublic::from_bytes(&pub_bytes).unwrap();
    assert!(sys.hot[0]
        .refreshed(&sys.crs, &tampered, &good.shares[0], &mut rng)
        .is_err());

    // Honest δ, but a wrong zero opening or a wrong degree proof (each check on its own).
    for (slot, what) in [(1usize, "zero opening"), (2, "degree proof")] {
        let mut b = good.public.to_bytes();
        let start = 12 + slot * 48;
        let commitment = b[12..60].to_vec();
        b[start..start + 48].copy_from_slice(&commitment);
        let tampered = quorate_bls::RefreshPublic::from_bytes(&b).unwrap();
        let err = sys.hot[0]
            .refreshed(&sys.crs, &tampered, &good.shares[0], &mut rng)
            .unwrap_err();
        assert!(
            matches!(err, BlsError::InvalidRefresh { .. }),
            "{what}: {err:?}"
        );
        assert!(
            sys.public.refreshed(&sys.crs, &tampered, &mut rng).is_err(),
            "{what}"
        );
    }

    // The honest refresh still applies afterwards.
    for h in &sys.hot {
        h.refreshed(
            &sys.crs,
            &good.public,
            &good.shares[h.index().position()],
            &mut rng,
        )
        .unwrap();
    }
}

#[test]
fn stale_and_forged_proofs_are_rejected() {
    let mut rng = ChaCha20Rng::seed_from_u64(14);
    let mut sys = setup(3, 5, &mut rng);
    let ctx = ProofContext {
        session: SessionId::new(b"audit".to_vec()),
        block_id: 7,
    };
    let later = ProofContext {
        session: SessionId::new(b"audit".to_vec()),
        block_id: 8,
    };
    let cold_proof = sys.cold[0].prove(&ctx, &mut rng);
    let ek = *sys.cold[0].public_key().point();
    quorate_bls::proofs::verify_cold(&ek, id(1), &ctx, &cold_proof).unwrap();
    let err = quorate_bls::proofs::verify_cold(&ek, id(1), &later, &cold_proof).unwrap_err();
    assert_eq!(err.culprits(), &[id(1)]);
    assert!(quorate_bls::proofs::verify_cold(&ek, id(2), &ctx, &cold_proof).is_err());
    let ek2 = *sys.cold[1].public_key().point();
    assert!(quorate_bls::proofs::verify_cold(&ek2, id(1), &ctx, &cold_proof).is_err());

    let hot_proof = sys.hot[0].prove(&sys.crs, &ctx, &mut rng);
    let vk = *sys.public.public_key().point();
    let com = *sys.public.hot_share_commitment();
    quorate_bls::proofs::verify_hot(&sys.crs, &com, id(1), &vk, &ctx, &hot_proof).unwrap();
    assert!(
        quorate_bls::proofs::verify_hot(&sys.crs, &com, id(1), &vk, &later, &hot_proof).is_err()
    );
    assert!(quorate_bls::proofs::verify_hot(&sys.crs, &com, id(2), &vk, &ctx, &hot_proof).is_err());
    // After a refresh the old proof is stale: com_T moved.
    sys.refresh(&mut rng);
    let new_com = *sys.public.hot_share_commitment();
    assert!(
        quorate_bls::proofs::verify_hot(&sys.crs, &new_com, id(1), &vk, &ctx, &hot_proof).is_err()
    );
    let fresh = sys.hot[0].prove(&sys.crs, &ctx, &mut rng);
    quorate_bls::proofs::verify_hot(&sys.crs, &new_com, id(1), &vk, &ctx, &fresh).unwrap();
}

/// Flips each sampled byte of `bytes` and checks the decoder never panics and never
/// returns the original value.
fn corrupt_every_byte<T: PartialEq + std::fmt::Debug, E: std::fmt::Debug>(
    bytes: &[u8],
    decode: impl Fn(&[u8]) -> Result<T, E>,
    step: usize,
) {
    let original = decode(bytes).unwrap();
    for len in 0..bytes.len() {
        assert!(decode(&bytes[..len]).is_err(), "truncated to {len} decoded");
    }
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert!(decode(&longer).is_err(), "trailing byte accepted");
    for pos in (0..bytes.len()).step_by(step) {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.to_vec();
            b[pos] ^= mask;
            if let Ok(v) = decode(&b) {
                assert_ne!(v, original, "flip at {pos} gave the original value");
            }
        }
    }
}

#[test]
fn corrupted_encodings_give_typed_errors() {
    let mut rng = ChaCha20Rng::seed_from_u64(15);
    let sys = setup(3, 5, &mut rng);
    let msg = b"enc";
    corrupt_every_byte(&sys.public.to_bytes(), GroupPublic::from_bytes, 1);
    let good = generate_refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    corrupt_every_byte(
        &good.public.to_bytes(),
        quorate_bls::RefreshPublic::from_bytes,
        1,
    );
    corrupt_every_byte(
        &good.shares[0].to_bytes(),
        |b| quorate_bls::RefreshShare::from_bytes(b).map(|s| s.to_bytes()),
        1,
    );
    let p = sys.partial(id(1), msg);
    corrupt_every_byte(&p.to_bytes(), PartialSignature::from_bytes, 1);
    let c = sys.cold[0]
        .partial_sign(sys.public.public_key(), msg)
        .unwrap();
    corrupt_every_byte(&c.to_bytes(), quorate_bls::ColdPartial::from_bytes, 1);
    corrupt_every_byte(
        &sys.cold[0].public_key().to_bytes(),
        quorate_bls::ColdPublicKey::from_bytes,
        1,
    );
    let ctx = ProofContext {
        session: SessionId::new(b"enc".to_vec()),
        block_id: 1,
    };
    let cp = sys.cold[0].prove(&ctx, &mut rng);
    corrupt_every_byte(
        &cp.to_bytes(),
        |b| quorate_bls::ColdProof::from_bytes(b).map(|p| p.to_bytes()),
        1,
    );
    let hp = sys.hot[0].prove(&sys.crs, &ctx, &mut rng);
    corrupt_every_byte(
        &hp.to_bytes(),
        |b| quorate_bls::HotProof::from_bytes(b).map(|p| p.to_bytes()),
        1,
    );
    corrupt_every_byte(
        &sys.public.public_key().to_bytes(),
        quorate_bls::PublicKey::from_bytes,
        1,
    );
    let sig = sys
        .sign_with(&[id(1), id(2), id(3)], msg, &mut rng)
        .unwrap();
    corrupt_every_byte(&sig.to_bytes(), quorate_bls::Signature::from_bytes, 1);
}

#[test]
fn no_identity_partial_or_key_is_accepted() {
    let mut id_g1 = [0u8; 48];
    id_g1[0] = 0xc0;
    let mut bytes = vec![0x05, 1, 0, 1];
    bytes.extend_from_slice(&id_g1);
    assert!(PartialSignature::from_bytes(&bytes).is_err());
    let mut id_g2 = [0u8; 96];
    id_g2[0] = 0xc0;
    assert!(quorate_bls::ColdPublicKey::from_bytes(&id_g2).is_err());
    assert!(quorate_bls::PublicKey::from_bytes(&id_g2).is_err());
    let _ = blstrs::G1Projective::identity();
}

mod property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 6, .. ProptestConfig::default() })]
        #[test]
        fn refresh_then_sign_with_any_quorum(seed in any::<u64>(), refreshes in 0usize..4, subset_seed in any::<u64>()) {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let mut sys = setup(3, 6, &mut rng);
            for _ in 0..refreshes {
                sys.refresh(&mut rng);
            }
            let mut ids: Vec<PartyId> = PartyId::range(6).collect();
            ids.shuffle(&mut ChaCha20Rng::seed_from_u64(subset_seed));
            let k = 3 + (subset_seed % 4) as usize;
            let sig = sys.sign_with(&ids[..k], b"prop", &mut rng).unwrap();
            assert_standard_signature(&sys.public, b"prop", &sig);
            prop_assert_eq!(sys.public.epoch(), refreshes as u64);
        }
    }
}
