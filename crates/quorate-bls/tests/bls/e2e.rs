//! End-to-end tests of hot/cold threshold BLS: registration, refresh, signing, proofs,
//! and every rejection path with its culprit.
#![allow(clippy::unwrap_used)]

use ff::Field;
use group::Group;
use quorate_bls::ciphersuite::verify_with_blst;
use quorate_bls::ciphersuite::SecretKey;
use quorate_bls::client::Client;
use quorate_bls::cold::ColdParty;
use quorate_bls::group::{GroupPublic, PartyRecord};
use quorate_bls::hot::HotParty;
use quorate_bls::kzg::{ceremony, Crs};
use quorate_bls::proofs::ProofContext;
use quorate_bls::refresh::Refresh;
use quorate_bls::register::VerifiedColdKeys;
use quorate_bls::register::{registration_message, DST_REGISTER};
use quorate_bls::sign::{combine, PartialSignature};
use quorate_bls::BlsError;
use quorate_core::error::Culprits;
use quorate_core::transcript::SessionId;
use quorate_core::{ParamError, PartyId, ThresholdParams};
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

struct System {
    client: Client,
    crs: Crs,
    public: GroupPublic,
    cold: Vec<ColdParty>,
    hot: Vec<HotParty>,
}

fn id(i: u16) -> PartyId {
    PartyId::new(i).unwrap()
}

fn setup(t: u16, n: u16, rng: &mut ChaCha20Rng) -> System {
    let crs = ceremony::run_in_process(n, 2, &SessionId::new(b"e2e".to_vec())).unwrap();
    let params = ThresholdParams::new(t, n).unwrap();
    let mut cold: Vec<ColdParty> = PartyId::range(n)
        .map(|i| ColdParty::register(i, rng))
        .collect();
    let client = Client::generate(rng);
    let regs: Vec<_> = cold.iter().map(|c| c.registration(rng)).collect();
    let eks = VerifiedColdKeys::verify(&regs, rng).unwrap();
    let reg = client.register(&crs, params, &eks, rng).unwrap();
    let pads: Vec<_> = cold
        .iter_mut()
        .map(|c| {
            c.add_client(&client.public_key(), &client.proof_of_possession())
                .unwrap()
        })
        .collect();
    let hot: Vec<HotParty> = PartyId::range(n)
        .map(|i| {
            HotParty::register(
                &crs,
                i,
                &reg.public,
                &reg.authorization,
                &reg.payloads[i.position()],
                &pads[i.position()],
                rng,
            )
            .unwrap()
        })
        .collect();
    System {
        client,
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

    /// Deals a refresh; the combiner checks all of it; every hot party checks its part,
    /// exchanges confirmations, accepts the combiner's record and commits.
    fn refresh(&mut self, rng: &mut ChaCha20Rng) {
        let Refresh { public, shares } = self.client.refresh(&self.crs, &self.public, rng).unwrap();
        let accepted = self.public.refreshed(&self.crs, &public, rng).unwrap();
        self.public = accepted.record().clone();
        let mut pending: Vec<_> = self
            .hot
            .iter()
            .map(|h| {
                h.refresh(&self.crs, &public, &shares[h.index().position()], rng)
                    .unwrap()
            })
            .collect();
        let confirmations: Vec<_> = pending.iter().map(|p| p.confirmation()).collect();
        for p in &mut pending {
            for c in &confirmations {
                p.add_confirmation(c).unwrap();
            }
            assert!(!p.is_ready(), "ready before the maintainer's record");
            p.accept_record(&accepted).unwrap();
            assert!(p.is_ready());
        }
        for (h, p) in self.hot.iter_mut().zip(pending) {
            h.commit(p).unwrap();
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
    quorate_bls::proofs::batch_verify_hot(&sys.crs, &sys.public, &hot_items, &ctx, &mut rng)
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

fn registration_error(err: BlsError) -> &'static str {
    match err {
        BlsError::InvalidRegistration { check } => check,
        other => panic!("expected InvalidRegistration, got {other:?}"),
    }
}

#[test]
fn bad_registrations_are_refused() {
    let mut rng = ChaCha20Rng::seed_from_u64(12);
    let (t, n) = (3u16, 5u16);
    let crs = ceremony::run_in_process(n, 2, &SessionId::new(b"reg".to_vec())).unwrap();
    let params = ThresholdParams::new(t, n).unwrap();
    let mut cold: Vec<ColdParty> = PartyId::range(n)
        .map(|i| ColdParty::register(i, &mut rng))
        .collect();
    let regs: Vec<_> = cold.iter().map(|c| c.registration(&mut rng)).collect();
    let eks = VerifiedColdKeys::verify(&regs, &mut rng).unwrap();
    // The test keeps the client's key to play a client that authorises a bad record.
    let sk_bytes = SecretKey::random(&mut rng).to_bytes();
    let signer = SecretKey::from_bytes(&sk_bytes).unwrap();
    let client = Client::from_secret_key(SecretKey::from_bytes(&sk_bytes).unwrap());
    let authorise = |public: &GroupPublic| {
        signer.sign_with_dst(&registration_message(&public.digest()), DST_REGISTER)
    };
    let reg = client.register(&crs, params, &eks, &mut rng).unwrap();
    assert_eq!(reg.authorization, authorise(&reg.public));
    let pads: Vec<_> = cold
        .iter_mut()
        .map(|c| {
            c.add_client(&client.public_key(), &client.proof_of_possession())
                .unwrap()
        })
        .collect();
    let register = |i: u16, public: &GroupPublic, payload, pad, rng: &mut ChaCha20Rng| {
        HotParty::register(&crs, id(i), public, &authorise(public), payload, pad, rng)
    };
    register(1, &reg.public, &reg.payloads[0], &pads[0], &mut rng).unwrap();
    reg.public.validate(&crs, &mut rng).unwrap();

    // Payload (or pad commitment) for party 2 given to party 3.
    let err = register(3, &reg.public, &reg.payloads[1], &pads[2], &mut rng).unwrap_err();
    assert_eq!(
        registration_error(err),
        "payload is addressed to another party"
    );
    let err = register(3, &reg.public, &reg.payloads[2], &pads[1], &mut rng).unwrap_err();
    assert_eq!(
        registration_error(err),
        "payload is addressed to another party"
    );

    // Hot share off by one: the opening check fails.
    let mut bytes = reg.payloads[0].to_bytes();
    bytes[4 + 31] ^= 1;
    let tampered = quorate_bls::HotRegistration::from_bytes(&bytes).unwrap();
    let err = register(1, &reg.public, &tampered, &pads[0], &mut rng).unwrap_err();
    assert_eq!(
        registration_error(err),
        "hot share does not open com_T at this party's point"
    );

    // A hot share that opens com_T but does not match vs_1: simulated by a pad
    // commitment that is not k_1·g2 (party 2's point under party 1's index).
    let mut pad_bytes = pads[1].to_bytes();
    pad_bytes[2..4].copy_from_slice(&1u16.to_be_bytes());
    let wrong_pad = quorate_bls::PadCommitment::from_bytes(&pad_bytes).unwrap();
    let err = register(1, &reg.public, &reg.payloads[0], &wrong_pad, &mut rng).unwrap_err();
    assert_eq!(
        registration_error(err),
        "hot share minus pad does not match vs_i"
    );

    // A registration not authorised by the client key: another key's signature, or the
    // client's signature on another record.
    let other_client = Client::generate(&mut rng);
    let foreign = SecretKey::random(&mut rng)
        .sign_with_dst(&registration_message(&reg.public.digest()), DST_REGISTER);
    let other_reg = client.register(&crs, params, &eks, &mut rng).unwrap();
    for auth in [foreign, other_reg.authorization] {
        let err = HotParty::register(
            &crs,
            id(1),
            &reg.public,
            &auth,
            &reg.payloads[0],
            &pads[0],
            &mut rng,
        )
        .unwrap_err();
        assert_eq!(
            registration_error(err),
            "registration is not authorised by the client key"
        );
    }

    // A client that authorises a globally inconsistent record: vs_3 and vs_4 swapped
    // (valid points, no longer a degree t−1 sharing of vk). Party 1's own data is
    // untouched, so its own checks pass; parties 3 and 4 refuse (their own share no
    // longer matches vs_i); the record's users refuse the record (SCRAPE).
    let mut public_bytes = reg.public.to_bytes();
    let vs_offset = 2 + 32 + 2 + 2 + 8 + 96 + 48 + 48;
    let other = reg.public.to_bytes();
    let (vs3, vs4) = (vs_offset + 2 * 96, vs_offset + 3 * 96);
    public_bytes[vs3..vs3 + 96].copy_from_slice(&other[vs4..vs4 + 96]);
    public_bytes[vs4..vs4 + 96].copy_from_slice(&other[vs3..vs3 + 96]);
    let bad_public = GroupPublic::from_bytes(&public_bytes).unwrap();
    register(1, &bad_public, &reg.payloads[0], &pads[0], &mut rng).unwrap();
    for i in [3u16, 4] {
        let pos = usize::from(i - 1);
        let err = register(i, &bad_public, &reg.payloads[pos], &pads[pos], &mut rng).unwrap_err();
        assert_eq!(
            registration_error(err),
            "hot share minus pad does not match vs_i"
        );
    }
    assert_eq!(
        registration_error(bad_public.validate(&crs, &mut rng).unwrap_err()),
        "verification shares do not interpolate to vk with degree t-1"
    );

    // A record whose PoP belongs to another key: the same split.
    let mut public_bytes = reg.public.to_bytes();
    let pop_offset = 2 + 32 + 2 + 2 + 8 + 96;
    public_bytes[pop_offset..pop_offset + 48]
        .copy_from_slice(&other_client.proof_of_possession().to_bytes());
    let bad_public = GroupPublic::from_bytes(&public_bytes).unwrap();
    register(1, &bad_public, &reg.payloads[0], &pads[0], &mut rng).unwrap();
    assert_eq!(
        registration_error(bad_public.validate(&crs, &mut rng).unwrap_err()),
        "client proof of possession"
    );

    // A record registered under another CRS.
    let other_crs = ceremony::run_in_process(n, 2, &SessionId::new(b"other".to_vec())).unwrap();
    let err = HotParty::register(
        &other_crs,
        id(1),
        &reg.public,
        &reg.authorization,
        &reg.payloads[0],
        &pads[0],
        &mut rng,
    )
    .unwrap_err();
    assert_eq!(
        registration_error(err),
        "record was registered under another CRS"
    );
    assert_eq!(
        registration_error(reg.public.validate(&other_crs, &mut rng).unwrap_err()),
        "record was registered under another CRS"
    );

    // A hot party that keeps the record as bytes decodes only its own part: the view
    // has the record's digest, and the same checks run on it.
    let record_bytes = reg.public.to_bytes();
    for i in PartyId::range(n) {
        let view = PartyRecord::from_bytes(&record_bytes, i).unwrap();
        assert_eq!(view, PartyRecord::of(&reg.public, i).unwrap());
        assert_eq!(view.digest(), reg.public.digest());
        let pos = i.position();
        HotParty::check_registration(
            &crs,
            &view,
            &reg.authorization,
            &reg.payloads[pos],
            &pads[pos],
            &mut rng,
        )
        .unwrap();
    }
    assert!(PartyRecord::from_bytes(&record_bytes, id(6)).is_err());
    assert!(PartyRecord::from_bytes(&record_bytes[..record_bytes.len() - 1], id(1)).is_err());
    let mut bad_own = record_bytes.clone();
    bad_own[vs_offset + 5] ^= 0x40;
    assert!(PartyRecord::from_bytes(&bad_own, id(1)).is_err());
    // Another party's unreadable vs_j is not party 1's concern, but it changes the digest.
    let view = PartyRecord::from_bytes(&bad_own, id(2)).unwrap();
    assert_ne!(view.digest(), reg.public.digest());

    // A cold party refuses a client without a valid PoP.
    let mut c = ColdParty::register(id(1), &mut rng);
    assert!(c
        .add_client(&client.public_key(), &other_client.proof_of_possession())
        .is_err());
    assert!(c.partial_sign(&client.public_key(), b"m").is_err());

    // Cold registrations: a copied key, a proof for another index, a proof under
    // another key, out-of-order indices; each rejected, naming the cold party.
    let mut copied = regs.clone();
    let mut bytes = copied[4].to_bytes();
    bytes[2..2 + 96].copy_from_slice(&regs[0].to_bytes()[2..2 + 96]);
    copied[4] = quorate_bls::ColdRegistration::from_bytes(&bytes).unwrap();
    let err = VerifiedColdKeys::verify(&copied, &mut rng).unwrap_err();
    assert_eq!(err.culprits(), &[id(5)]);
    let mut relabelled = regs.clone();
    let mut bytes = relabelled[1].to_bytes();
    let other = regs[2].to_bytes();
    bytes[2 + 96..].copy_from_slice(&other[2 + 96..]);
    relabelled[1] = quorate_bls::ColdRegistration::from_bytes(&bytes).unwrap();
    let err = VerifiedColdKeys::verify(&relabelled, &mut rng).unwrap_err();
    assert_eq!(err.culprits(), &[id(2)]);
    let mut swapped = regs.clone();
    swapped.swap(0, 1);
    assert!(matches!(
        VerifiedColdKeys::verify(&swapped, &mut rng),
        Err(BlsError::Param(_))
    ));
    // Wrong number of cold keys, a CRS too small for n.
    let four = VerifiedColdKeys::verify(&regs[..4], &mut rng).unwrap();
    assert!(client.register(&crs, params, &four, &mut rng).is_err());
    let small = ceremony::run_in_process(2, 2, &SessionId::new(b"small".to_vec())).unwrap();
    assert!(client.register(&small, params, &eks, &mut rng).is_err());
}

/// Issue 13 (Low b): the hot party checks σ_cold against K_i before using it and names
/// the cold party. (Before, the hot party combined it blindly and the combiner blamed the
/// whole index for a fault of the cold party alone.)
#[test]
fn a_bad_cold_partial_is_caught_by_the_hot_partner_naming_the_cold_party() {
    let mut rng = ChaCha20Rng::seed_from_u64(16);
    let sys = setup(3, 5, &mut rng);
    let msg = b"wrong pad";
    // Cold party 2 is replaced by an impostor with another key but the same index.
    let mut impostor = ColdParty::register(id(2), &mut rng);
    impostor
        .add_client(&sys.client.public_key(), &sys.client.proof_of_possession())
        .unwrap();
    let cold = impostor.partial_sign(sys.public.public_key(), msg).unwrap();
    let err = sys.hot[1].partial_sign(msg, &cold).unwrap_err();
    match &err {
        BlsError::Aborted(blame) => {
            assert_eq!(blame.culprits(), &[id(2)]);
            assert!(blame.check().contains("cold party"), "{}", blame.check());
        }
        other => panic!("expected blame, got {other:?}"),
    }
    // The honest cold partial of another message is caught too.
    let other_msg = sys.cold[1]
        .partial_sign(sys.public.public_key(), b"another message")
        .unwrap();
    assert_eq!(
        sys.hot[1]
            .partial_sign(msg, &other_msg)
            .unwrap_err()
            .culprits(),
        &[id(2)]
    );
    // And the honest one goes through.
    let good = sys.cold[1]
        .partial_sign(sys.public.public_key(), msg)
        .unwrap();
    assert!(sys.hot[1].partial_sign(msg, &good).is_ok());
}

/// Issue 13 (Low a): a partial declaring another epoch or record state is set aside; the
/// combiner goes on if `t` partials of its own state remain, and otherwise names the
/// senders in a typed error without blame. (Before, one such partial aborted `combine`
/// with nobody blamed even when `t` good ones remained.)
#[test]
fn a_partial_with_a_wrong_epoch_is_dropped_if_t_remain_else_named() {
    let mut rng = ChaCha20Rng::seed_from_u64(19);
    let sys = setup(3, 5, &mut rng);
    let msg = b"wrong epoch";
    let mut partials: Vec<_> = PartyId::range(4).map(|i| sys.partial(i, msg)).collect();
    // Party 2 declares epoch 7 (bytes 4..12 of the encoding).
    let mut b = partials[1].to_bytes();
    b[4..12].copy_from_slice(&7u64.to_be_bytes());
    partials[1] = PartialSignature::from_bytes(&b).unwrap();
    let sig = combine(&sys.crs, &sys.public, msg, &partials, &mut rng).unwrap();
    assert_standard_signature(&sys.public, msg, &sig);
    // With only three partials, the two good ones are not enough: party 2 is named,
    // not blamed.
    let err = combine(&sys.crs, &sys.public, msg, &partials[..3], &mut rng).unwrap_err();
    assert_eq!(
        err,
        BlsError::StateMismatch {
            parties: vec![id(2)],
            epoch: 0
        }
    );
    assert!(err.culprits().is_empty());
    // The same for a partial that keeps the epoch but names another record digest.
    let mut b = sys.partial(id(2), msg).to_bytes();
    b[12] ^= 1;
    partials[1] = PartialSignature::from_bytes(&b).unwrap();
    assert!(combine(&sys.crs, &sys.public, msg, &partials, &mut rng).is_ok());
}

#[test]
fn partials_from_another_epoch_are_a_typed_error_not_blame() {
    let mut rng = ChaCha20Rng::seed_from_u64(17);
    let mut sys = setup(3, 5, &mut rng);
    let msg = b"epochs";
    let old: Vec<_> = PartyId::range(3).map(|i| sys.partial(i, msg)).collect();
    sys.refresh(&mut rng);
    let err = combine(&sys.crs, &sys.public, msg, &old, &mut rng).unwrap_err();
    assert_eq!(
        err,
        BlsError::StateMismatch {
            parties: vec![id(1), id(2), id(3)],
            epoch: 1
        }
    );
    assert!(err.culprits().is_empty());
}

#[test]
fn secrets_are_redacted_in_debug_output() {
    let mut rng = ChaCha20Rng::seed_from_u64(18);
    let sys = setup(2, 3, &mut rng);
    let refresh = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    for text in [
        format!("{:?}", sys.hot[0]),
        format!("{:?}", sys.cold[0]),
        format!("{:?}", sys.client),
        format!("{:?}", refresh.shares[0]),
    ] {
        assert!(text.contains("redacted"), "{text}");
    }
    let sk = quorate_bls::SecretKey::random(&mut rng);
    let hex_sk = hex::encode(sk.to_bytes());
    assert!(!format!("{sk:?}").contains(&hex_sk));
}

/// Has each party in `parties` check `refresh` and returns their pending refreshes.
fn pending_for(
    sys: &System,
    refresh: &Refresh,
    parties: &[u16],
    rng: &mut ChaCha20Rng,
) -> Vec<(usize, quorate_bls::PendingRefresh)> {
    parties
        .iter()
        .map(|i| {
            let pos = usize::from(*i) - 1;
            let p = sys.hot[pos]
                .refresh(&sys.crs, &refresh.public, &refresh.shares[pos], rng)
                .unwrap();
            (pos, p)
        })
        .collect()
}

/// Issue 13 (Medium): a client that deals two valid, signed refreshes of epoch 1 to two
/// camps of hot parties. The echo detects it with evidence against the client; partials
/// and Π_EKS proofs from the other camp are typed state mismatches, never blame on an
/// honest party. (Before, partials carried only the epoch, so the combiner blamed the
/// honest parties of the other camp for "partial signature does not verify against vs_i",
/// and Π_EKS audits did the same.)
#[test]
fn equivocating_client_is_detected_and_no_honest_party_is_blamed() {
    let mut rng = ChaCha20Rng::seed_from_u64(20);
    // t = 2, n = 5: both camps can reach t confirmations if they never hear of each other.
    let mut sys = setup(2, 5, &mut rng);
    let first = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let second = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    assert_eq!(first.public.epoch(), second.public.epoch());

    // Camp A = {1, 2} got the first refresh, camp B = {3, 4, 5} the second.
    let mut camp_a = pending_for(&sys, &first, &[1, 2], &mut rng);
    let mut camp_b = pending_for(&sys, &second, &[3, 4, 5], &mut rng);
    let conf_a: Vec<_> = camp_a.iter().map(|(_, p)| p.confirmation()).collect();
    let conf_b: Vec<_> = camp_b.iter().map(|(_, p)| p.confirmation()).collect();

    // Detection: party 1 hears from party 3. The evidence verifies under vk alone and
    // nobody is blamed; party 1 can no longer commit this refresh.
    let (_, p1) = &mut camp_a[0];
    let err = p1.add_confirmation(&conf_b[0]).unwrap_err();
    assert!(err.culprits().is_empty());
    let BlsError::ClientEquivocated(evidence) = &err else {
        panic!("expected ClientEquivocated, got {err:?}");
    };
    assert!(evidence.verify(sys.public.public_key()));
    assert!(!evidence.verify(&Client::generate(&mut rng).public_key()));
    p1.add_confirmation(&conf_a[1]).unwrap();
    assert!(!p1.is_ready());
    let (_, p1) = camp_a.remove(0);
    let err = sys.hot[0].commit(p1).unwrap_err();
    assert!(matches!(err, BlsError::ClientEquivocated(_)), "{err:?}");
    assert_eq!(sys.hot[0].public().epoch(), 0);

    // A hot party cannot fake the equivocation: a confirmation for another refresh id
    // without the client's signature blames its sender.
    let mut forged = conf_b[1].to_bytes();
    forged[2 + 2 + 32 + 8] ^= 1; // refresh id
    let forged = quorate_bls::RefreshConfirmation::from_bytes(&forged).unwrap();
    let (_, p2) = &mut camp_a[0];
    assert_eq!(
        p2.add_confirmation(&forged).unwrap_err().culprits(),
        &[id(4)]
    );

    // Camp B never hears of camp A and commits (t = 2 confirmations).
    let record_b = sys
        .public
        .refreshed(&sys.crs, &second.public, &mut rng)
        .unwrap();
    for (_, p) in camp_b.iter_mut() {
        for c in &conf_b {
            p.add_confirmation(c).unwrap();
        }
        p.accept_record(&record_b).unwrap();
    }
    for (pos, p) in camp_b {
        sys.hot[pos].commit(p).unwrap();
    }
    let state_b = sys.hot[2].public().clone();
    assert_eq!(state_b.epoch(), 1);

    // The combiner follows the first refresh (camp A's). Partials from camp B are set
    // aside as out of step, not blamed; camp A alone (still at epoch 0 here: parties 1
    // and 2 did not commit) cannot sign under the combiner's record either.
    let combiner = sys
        .public
        .refreshed(&sys.crs, &first.public, &mut rng)
        .unwrap();
    let msg = b"after equivocation";
    let partials: Vec<_> = [1u16, 3, 4]
        .iter()
        .map(|i| sys.partial(id(*i), msg))
        .collect();
    let err = combine(&sys.crs, &combiner, msg, &partials, &mut rng).unwrap_err();
    assert!(err.culprits().is_empty(), "{err:?}");
    assert!(matches!(err, BlsError::StateMismatch { .. }), "{err:?}");
    // The same partials under camp B's record combine fine: the shares are sound.
    let sig = combine(&sys.crs, &state_b, msg, &partials[1..], &mut rng).unwrap();
    assert_standard_signature(&state_b, msg, &sig);

    // Π_EKS audits against the combiner's record do not blame camp B either.
    let ctx = ProofContext {
        session: SessionId::new(b"audit".to_vec()),
        block_id: 1,
    };
    let items: Vec<_> = (2..5)
        .map(|pos| {
            (
                sys.hot[pos].index(),
                sys.hot[pos].prove(&sys.crs, &ctx, &mut rng),
            )
        })
        .collect();
    let err = quorate_bls::proofs::batch_verify_hot(&sys.crs, &combiner, &items, &ctx, &mut rng)
        .unwrap_err();
    assert_eq!(
        err,
        BlsError::StateMismatch {
            parties: vec![id(3), id(4), id(5)],
            epoch: 1
        }
    );
    quorate_bls::proofs::batch_verify_hot(&sys.crs, &state_b, &items, &ctx, &mut rng).unwrap();
}

/// Issue 13 (Low e): a refresh is only committed through a pending state that needs `t`
/// confirmations of the same refresh; until then the party keeps its old share and signs
/// with it. (Before, `HotParty::refreshed(&self)` returned a new party and left erasing
/// the old share to the caller.)
#[test]
fn hot_refresh_commits_only_after_t_confirmations() {
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    let mut sys = setup(3, 5, &mut rng);
    let refresh = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let mut pending = pending_for(&sys, &refresh, &[1, 2, 3, 4, 5], &mut rng);
    let confs: Vec<_> = pending.iter().map(|(_, p)| p.confirmation()).collect();
    let (_, p1) = &mut pending[0];
    // Its own, repeated, or one other: not enough.
    assert_eq!(p1.add_confirmation(&confs[0]).unwrap(), 1);
    assert_eq!(p1.add_confirmation(&confs[1]).unwrap(), 2);
    assert_eq!(p1.add_confirmation(&confs[1]).unwrap(), 2);
    assert!(!p1.is_ready());
    let (_, p1) = pending.remove(0);
    let err = sys.hot[0].commit(p1).unwrap_err();
    assert_eq!(
        err,
        BlsError::RefreshNotConfirmed {
            confirmed: 2,
            needed: 3
        }
    );
    // Nothing changed: party 1 still signs at epoch 0 with parties 4 and 5.
    assert_eq!(sys.hot[0].public().epoch(), 0);
    let sig = sys
        .sign_with(&[id(1), id(4), id(5)], b"still", &mut rng)
        .unwrap();
    assert_standard_signature(&sys.public, b"still", &sig);

    // A pending refresh belongs to the party and state it was made from.
    let next = sys
        .public
        .refreshed(&sys.crs, &refresh.public, &mut rng)
        .unwrap();
    let (_, p2) = &mut pending[0];
    for c in &confs {
        p2.add_confirmation(c).unwrap();
    }
    p2.accept_record(&next).unwrap();
    let (_, p2) = pending.remove(0);
    assert!(p2.is_ready());
    assert!(matches!(sys.hot[2].commit(p2), Err(BlsError::Param(_))));

    // A confirmation from outside 1..=n, or for another record, is refused.
    let (_, p3) = &mut pending[0];
    let mut b = confs[2].to_bytes();
    b[3] = 9;
    let stranger = quorate_bls::RefreshConfirmation::from_bytes(&b).unwrap();
    assert!(matches!(
        p3.add_confirmation(&stranger),
        Err(BlsError::Param(_))
    ));
    let mut b = confs[2].to_bytes();
    b[4] ^= 1; // record digest
    let stale = quorate_bls::RefreshConfirmation::from_bytes(&b).unwrap();
    assert_eq!(
        p3.add_confirmation(&stale).unwrap_err(),
        BlsError::StateMismatch {
            parties: vec![id(3)],
            epoch: 1
        }
    );
    for c in &confs[..3] {
        p3.add_confirmation(c).unwrap();
    }
    p3.accept_record(&next).unwrap();
    let (pos, p3) = pending.remove(0);
    sys.hot[pos].commit(p3).unwrap();
    assert_eq!(sys.hot[pos].public().epoch(), 1);
}

/// Issue 13 (Low c): the combiner's refresh ties every Δvs_j to C_δ. Here Δvs is a valid
/// degree-(t−1) sharing of zero, so the old SCRAPE-only check of `GroupPublic::refreshed`
/// accepted it, but it shares another polynomial than the committed δ: the combiner
/// would have moved to a `vs` that no hot share matches.
#[test]
fn combiner_refresh_ties_delta_vs_to_the_committed_delta() {
    use quorate_bls::refresh::faults::resign;
    use quorate_bls::RefreshPublic;
    let mut rng = ChaCha20Rng::seed_from_u64(22);
    let sys = setup(3, 5, &mut rng);
    let good = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let other = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let mut b = good.public.to_bytes();
    let other_bytes = other.public.to_bytes();
    b[RP_DELTA_VS..RP_DELTA_VS + 5 * 96]
        .copy_from_slice(&other_bytes[RP_DELTA_VS..RP_DELTA_VS + 5 * 96]);
    let mut mixed = RefreshPublic::from_bytes(&b).unwrap();
    resign(&sys.client, &mut mixed);
    let err = sys
        .public
        .refreshed(&sys.crs, &mixed, &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "some Δvs_j is not δ(z_j)·g2 for the committed δ"
    );
    // One wrong Δvs_j is enough.
    let mut b = good.public.to_bytes();
    let at = RP_DELTA_VS + 4 * 96;
    b[at..at + 96].copy_from_slice(&other_bytes[at..at + 96]);
    let mut one_off = RefreshPublic::from_bytes(&b).unwrap();
    resign(&sys.client, &mut one_off);
    assert!(sys.public.refreshed(&sys.crs, &one_off, &mut rng).is_err());
    assert!(sys
        .public
        .refreshed(&sys.crs, &good.public, &mut rng)
        .is_ok());
}

/// Issue 19: hot parties no longer check every other party's Δvs_j (an O(n) G2 MSM each);
/// the combiner does, once. A client-signed refresh whose Δvs_5 does not open C_δ passes
/// the own checks of parties 1–4, who confirm it to each other (t = 3 reached), but none
/// of them can commit it: the combiner's `refreshed` rejects it naming the check, so there
/// is no accepted record, and a record for another refresh is refused. Party 5, the one
/// whose Δvs is wrong, rejects it itself. Nobody changes state; all still sign.
#[test]
fn an_inconsistent_delta_vs_is_caught_before_any_honest_party_commits() {
    use quorate_bls::refresh::faults::resign;
    use quorate_bls::RefreshPublic;
    let mut rng = ChaCha20Rng::seed_from_u64(23);
    let mut sys = setup(3, 5, &mut rng);
    let good = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let other = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let mut b = good.public.to_bytes();
    let at = RP_DELTA_VS + 4 * 96;
    b[at..at + 96].copy_from_slice(&other.public.to_bytes()[at..at + 96]);
    let mut bad = RefreshPublic::from_bytes(&b).unwrap();
    resign(&sys.client, &mut bad);
    let bad = Refresh {
        public: bad,
        shares: good.shares,
    };

    // Party 5 refuses; parties 1–4 pass their own checks and confirm to each other.
    let err = sys.hot[4]
        .refresh(&sys.crs, &bad.public, &bad.shares[4], &mut rng)
        .unwrap_err();
    assert_eq!(refresh_error(err), "Δvs_i is not δ_i·g2");
    let mut pending = pending_for(&sys, &bad, &[1, 2, 3, 4], &mut rng);
    let confs: Vec<_> = pending.iter().map(|(_, p)| p.confirmation()).collect();
    for (_, p) in &mut pending {
        for c in &confs {
            p.add_confirmation(c).unwrap();
        }
        assert!(!p.is_ready());
    }

    // The combiner catches it, naming the check: there is no record to accept.
    let err = sys
        .public
        .refreshed(&sys.crs, &bad.public, &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "some Δvs_j is not δ(z_j)·g2 for the committed δ"
    );
    // A record from another refresh (here the honest one) is not this refresh's record.
    let honest_next = sys
        .public
        .refreshed(&sys.crs, &good.public, &mut rng)
        .unwrap();
    for (pos, mut p) in pending {
        let err = p.accept_record(&honest_next).unwrap_err();
        assert_eq!(
            err,
            BlsError::StateMismatch {
                parties: vec![sys.hot[pos].index()],
                epoch: 1
            }
        );
        assert!(err.culprits().is_empty());
        assert_eq!(
            sys.hot[pos].commit(p).unwrap_err(),
            BlsError::RefreshNotAccepted
        );
        assert_eq!(sys.hot[pos].public().epoch(), 0);
    }
    let sig = sys
        .sign_with(&[id(1), id(2), id(5)], b"unchanged", &mut rng)
        .unwrap();
    assert_standard_signature(&sys.public, b"unchanged", &sig);
    // The honest refresh still goes through afterwards.
    sys.refresh(&mut rng);
    assert_eq!(sys.public.epoch(), 1);
}

/// Deals a refresh from an arbitrary polynomial (a cheating dealer holding the client key).
fn cheating_refresh(sys: &System, coeffs: Vec<blstrs::Scalar>, epoch: u64) -> Refresh {
    quorate_bls::refresh::faults::deal_refresh_from(
        &sys.client,
        &sys.crs,
        &sys.public,
        epoch,
        coeffs,
    )
    .unwrap()
}

fn refresh_error(err: BlsError) -> &'static str {
    match err {
        BlsError::InvalidRefresh { check } => check,
        other => panic!("expected InvalidRefresh, got {other:?}"),
    }
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
        .refresh(&sys.crs, &refresh.public, share, rng)
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

/// Offsets in the `RefreshPublic` encoding: header 2, signature 48, group digest 32,
/// epoch 8, n 2, then C_δ, π_0, dcom (48 each) and the Δvs_j (96 each).
const RP_COMMITMENT: usize = 2 + 48 + 32 + 8 + 2;
const RP_DELTA_VS: usize = RP_COMMITMENT + 3 * 48;

/// A client-signed refresh that breaks a *global* property of `δ` (`δ(0) ≠ 0`,
/// `deg δ ≥ t`, a wrong zero opening or degree proof) while every party's own opening
/// holds: each hot party's own checks pass (issue 19: they cover its own share, not the
/// global properties), and all `n` confirm it to each other, but the record maintainer's
/// `refreshed` rejects it naming `check`. With no accepted record, no party can commit
/// (`RefreshNotAccepted`): states stay at epoch 0 and the old key still signs.
fn assert_caught_by_the_maintainer_before_any_commit(
    sys: &mut System,
    refresh: &Refresh,
    check: &str,
    rng: &mut ChaCha20Rng,
) {
    let err = sys
        .public
        .refreshed(&sys.crs, &refresh.public, rng)
        .unwrap_err();
    assert_eq!(refresh_error(err), check);
    let all: Vec<u16> = (1..=sys.public.params().n()).collect();
    let mut pending = pending_for(sys, refresh, &all, rng);
    let confs: Vec<_> = pending.iter().map(|(_, p)| p.confirmation()).collect();
    for (_, p) in &mut pending {
        for c in &confs {
            p.add_confirmation(c).unwrap();
        }
        assert!(!p.is_ready());
    }
    for (pos, p) in pending {
        assert_eq!(
            sys.hot[pos].commit(p).unwrap_err(),
            BlsError::RefreshNotAccepted
        );
        assert_eq!(sys.hot[pos].public().epoch(), 0);
    }
    let sig = sys
        .sign_with(&[id(1), id(2), id(5)], b"unchanged", rng)
        .unwrap();
    assert_standard_signature(&sys.public, b"unchanged", &sig);
}

#[test]
fn bad_refreshes_are_rejected_and_change_nothing() {
    use quorate_bls::refresh::faults::resign;
    use quorate_bls::RefreshPublic;
    let mut rng = ChaCha20Rng::seed_from_u64(13);
    let mut sys = setup(3, 5, &mut rng);
    let t = 3usize;
    let all = |sys: &System, r: &Refresh, rng: &mut ChaCha20Rng| -> Vec<&'static str> {
        (0..5)
            .map(|i| refresh_error(assert_refresh_rejected_without_change(sys, r, i, rng)))
            .collect()
    };

    // δ(0) = 1, signed by the client: only the maintainer's zero-opening check stands in
    // the way.
    let mut coeffs: Vec<blstrs::Scalar> =
        (0..t).map(|_| blstrs::Scalar::random(&mut rng)).collect();
    coeffs[0] = blstrs::Scalar::ONE;
    let r = cheating_refresh(&sys, coeffs, 1);
    assert_caught_by_the_maintainer_before_any_commit(&mut sys, &r, "δ(0) is not zero", &mut rng);

    // deg δ = t (one too many), δ(0) = 0.
    let mut coeffs: Vec<blstrs::Scalar> =
        (0..=t).map(|_| blstrs::Scalar::random(&mut rng)).collect();
    coeffs[0] = blstrs::Scalar::ZERO;
    let r = cheating_refresh(&sys, coeffs, 1);
    assert_caught_by_the_maintainer_before_any_commit(
        &mut sys,
        &r,
        "δ has degree above t-1",
        &mut rng,
    );

    // δ = δ' + Z(X) with Z vanishing on all five party points (n < N = 8): every party
    // sees a valid zero-sharing of degree t−1, Δvs passes the SCRAPE check, and only the
    // maintainer's KZG zero-opening and degree checks can tell.
    let mut delta: Vec<blstrs::Scalar> = (0..t).map(|_| blstrs::Scalar::random(&mut rng)).collect();
    delta[0] = blstrs::Scalar::ZERO;
    let mut z_poly = vec![blstrs::Scalar::ONE];
    for z in sys.crs.domain().party_points(5) {
        let mut next = vec![blstrs::Scalar::ZERO; z_poly.len() + 1];
        for (k, c) in z_poly.iter().enumerate() {
            next[k + 1] += c;
            next[k] -= *c * z;
        }
        z_poly = next;
    }
    let mut coeffs = z_poly.clone();
    for (k, d) in delta.iter().enumerate() {
        coeffs[k] += d;
    }
    let r = cheating_refresh(&sys, coeffs, 1);
    assert_caught_by_the_maintainer_before_any_commit(&mut sys, &r, "δ(0) is not zero", &mut rng);

    // An all-zero δ re-randomises nothing.
    let r = cheating_refresh(&sys, vec![blstrs::Scalar::ZERO; t], 1);
    assert!(all(&sys, &r, &mut rng)
        .iter()
        .all(|c| *c == "δ is zero: the refresh would re-randomise nothing"));

    // A refresh for a later epoch.
    let mut coeffs: Vec<blstrs::Scalar> =
        (0..t).map(|_| blstrs::Scalar::random(&mut rng)).collect();
    coeffs[0] = blstrs::Scalar::ZERO;
    let r = cheating_refresh(&sys, coeffs, 2);
    assert!(all(&sys, &r, &mut rng)
        .iter()
        .all(|c| *c == "refresh is not for the next epoch"));

    // An honest refresh, but the share is addressed to another party.
    let good = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
    let err = sys.hot[0]
        .refresh(&sys.crs, &good.public, &good.shares[1], &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "refresh share is addressed to another party"
    );

    // Anyone but the client: tampered bytes break the authorisation signature.
    let mut b = good.public.to_bytes();
    b[RP_DELTA_VS..RP_DELTA_VS + 96]
        .copy_from_slice(&good.public.to_bytes()[RP_DELTA_VS + 96..RP_DELTA_VS + 192]);
    let mut tampered = RefreshPublic::from_bytes(&b).unwrap();
    let err = sys.hot[0]
        .refresh(&sys.crs, &tampered, &good.shares[0], &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "refresh is not authorised by the client key"
    );
    let other = setup(3, 5, &mut rng);
    quorate_bls::refresh::faults::resign(&other.client, &mut tampered);
    let err = sys.hot[0]
        .refresh(&sys.crs, &tampered, &good.shares[0], &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "refresh is not authorised by the client key"
    );

    // Signed by the client but with Δvs_1 replaced by Δvs_2: party 1 finds that its own
    // Δvs_i is wrong, and the combiner that some Δvs_j does not open C_δ. (The other
    // parties' own checks pass; that they still cannot commit it is
    // `an_inconsistent_delta_vs_is_caught_before_any_honest_party_commits`.)
    resign(&sys.client, &mut tampered);
    let err = sys.hot[0]
        .refresh(&sys.crs, &tampered, &good.shares[0], &mut rng)
        .unwrap_err();
    assert_eq!(refresh_error(err), "Δvs_i is not δ_i·g2");
    assert!(sys.hot[1]
        .refresh(&sys.crs, &tampered, &good.shares[1], &mut rng)
        .is_ok());
    let err = sys
        .public
        .refreshed(&sys.crs, &tampered, &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "some Δvs_j is not δ(z_j)·g2 for the committed δ"
    );

    // A refresh of another key (replay across groups).
    let foreign = other
        .client
        .refresh(&other.crs, &other.public, &mut rng)
        .unwrap();
    let err = sys.hot[0]
        .refresh(&sys.crs, &foreign.public, &foreign.shares[0], &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "refresh is for another key, epoch or record"
    );

    // A tampered δ_i does not match Δvs_i.
    let mut share_bytes = good.shares[0].to_bytes();
    share_bytes[4 + 31] ^= 1;
    let tampered_share = quorate_bls::RefreshShare::from_bytes(&share_bytes).unwrap();
    let err = sys.hot[0]
        .refresh(&sys.crs, &good.public, &tampered_share, &mut rng)
        .unwrap_err();
    assert_eq!(refresh_error(err), "Δvs_i is not δ_i·g2");
    // A wrong public opening π_δ,1 (party 2's), re-signed.
    let mut b = good.public.to_bytes();
    let openings = RP_DELTA_VS + 5 * 96;
    let second = b[openings + 48..openings + 96].to_vec();
    b[openings..openings + 48].copy_from_slice(&second);
    let mut tampered = RefreshPublic::from_bytes(&b).unwrap();
    resign(&sys.client, &mut tampered);
    let err = sys
        .public
        .refreshed(&sys.crs, &tampered, &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "some Δvs_j is not δ(z_j)·g2 for the committed δ"
    );
    // Party 1 finds it with its own opening; party 2's opening is intact.
    let err = sys.hot[0]
        .refresh(&sys.crs, &tampered, &good.shares[0], &mut rng)
        .unwrap_err();
    assert_eq!(
        refresh_error(err),
        "δ_i is not δ(z_i) for the committed δ (own opening π_δ,i)"
    );
    assert!(sys.hot[1]
        .refresh(&sys.crs, &tampered, &good.shares[1], &mut rng)
        .is_ok());

    // Honest δ, re-signed with a wrong zero opening or a wrong degree proof.
    for (slot, check) in [(1usize, "δ(0) is not zero"), (2, "δ has degree above t-1")] {
        let mut b = good.public.to_bytes();
        let start = RP_COMMITMENT + slot * 48;
        let commitment = b[RP_COMMITMENT..RP_COMMITMENT + 48].to_vec();
        b[start..start + 48].copy_from_slice(&commitment);
        let mut tampered = RefreshPublic::from_bytes(&b).unwrap();
        resign(&sys.client, &mut tampered);
        let tampered = Refresh {
            public: tampered,
            shares: good
                .shares
                .iter()
                .map(|s| quorate_bls::RefreshShare::from_bytes(&s.to_bytes()).unwrap())
                .collect(),
        };
        assert_caught_by_the_maintainer_before_any_commit(&mut sys, &tampered, check, &mut rng);
    }

    // The honest refresh still applies afterwards, and cannot be applied twice.
    let next_public = sys
        .public
        .refreshed(&sys.crs, &good.public, &mut rng)
        .unwrap();
    let mut hot = sys.hot;
    let mut pending: Vec<_> = hot
        .iter()
        .map(|h| {
            h.refresh(
                &sys.crs,
                &good.public,
                &good.shares[h.index().position()],
                &mut rng,
            )
            .unwrap()
        })
        .collect();
    let confirmations: Vec<_> = pending.iter().map(|p| p.confirmation()).collect();
    for p in &mut pending {
        for c in &confirmations {
            p.add_confirmation(c).unwrap();
        }
        p.accept_record(&next_public).unwrap();
    }
    for (h, p) in hot.iter_mut().zip(pending) {
        h.commit(p).unwrap();
        assert_eq!(h.public(), next_public.record());
    }
    for next in &hot {
        let err = next
            .refresh(
                &sys.crs,
                &good.public,
                &good.shares[next.index().position()],
                &mut rng,
            )
            .unwrap_err();
        assert_eq!(refresh_error(err), "refresh is not for the next epoch");
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
    let crs = sys.crs.clone();
    let verify = |public: &GroupPublic, i: u16, ctx: &ProofContext, proof| {
        quorate_bls::proofs::verify_hot(&crs, public, id(i), ctx, proof)
    };
    verify(&sys.public, 1, &ctx, &hot_proof).unwrap();
    assert_eq!(
        verify(&sys.public, 1, &later, &hot_proof)
            .unwrap_err()
            .culprits(),
        &[id(1)]
    );
    assert_eq!(
        verify(&sys.public, 2, &ctx, &hot_proof)
            .unwrap_err()
            .culprits(),
        &[id(2)]
    );
    // After a refresh the old proof is stale: it names the old record state, so the
    // auditor gets a typed mismatch, not blame.
    let old_public = sys.public.clone();
    sys.refresh(&mut rng);
    let err = verify(&sys.public, 1, &ctx, &hot_proof).unwrap_err();
    assert!(matches!(err, BlsError::StateMismatch { .. }), "{err:?}");
    assert!(err.culprits().is_empty());
    let fresh = sys.hot[0].prove(&sys.crs, &ctx, &mut rng);
    verify(&sys.public, 1, &ctx, &fresh).unwrap();
    assert!(verify(&old_public, 1, &ctx, &fresh).is_err());
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
    let good = sys.client.refresh(&sys.crs, &sys.public, &mut rng).unwrap();
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

    // Registration messages: a cold party's (index, ek_i, Π_DL), the pad commitment K_i it
    // sends its hot partner, and the client's private payload (i, hx_i, π_i).
    let regs: Vec<_> = sys.cold.iter().map(|c| c.registration(&mut rng)).collect();
    corrupt_every_byte(
        &regs[0].to_bytes(),
        quorate_bls::ColdRegistration::from_bytes,
        1,
    );
    let mut cold = ColdParty::register(id(1), &mut rng);
    let pad = cold
        .add_client(&sys.client.public_key(), &sys.client.proof_of_possession())
        .unwrap();
    corrupt_every_byte(&pad.to_bytes(), quorate_bls::PadCommitment::from_bytes, 1);
    let eks = VerifiedColdKeys::verify(&regs, &mut rng).unwrap();
    let reg = sys
        .client
        .register(&sys.crs, sys.public.params(), &eks, &mut rng)
        .unwrap();
    corrupt_every_byte(
        &reg.payloads[0].to_bytes(),
        |b| quorate_bls::HotRegistration::from_bytes(b).map(|p| p.to_bytes()),
        1,
    );

    // A ceremony transcript as it travels (every 7th byte: each decode checks 4N points
    // for subgroup membership).
    let transcript =
        ceremony::run_transcript_in_process(5, 2, &SessionId::new(b"t".to_vec())).unwrap();
    corrupt_every_byte(
        &transcript.to_bytes(),
        |b| ceremony::Transcript::from_bytes(b).map(|t| t.to_bytes()),
        7,
    );
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

    /// `(t, n)` with `2 ≤ t ≤ n ≤ 9` (party counts on both sides of a power of two).
    fn threshold() -> impl Strategy<Value = (u16, u16)> {
        (2u16..=9).prop_flat_map(|n| (2u16..=n, Just(n)))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 8, .. ProptestConfig::default() })]
        /// Refresh any number of times (0–4), then sign with a random quorum of any size
        /// from t to n; the result is a standard signature under the unchanged `vk`, equal
        /// to the signature before any refresh, and every hot party agrees with the
        /// combiner's record.
        #[test]
        fn refresh_then_sign_with_any_quorum(
            (t, n) in threshold(),
            seed in any::<u64>(),
            refreshes in 0usize..=4,
            subset_seed in any::<u64>(),
        ) {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let mut sys = setup(t, n, &mut rng);
            let vk = *sys.public.public_key();
            let all: Vec<PartyId> = PartyId::range(n).collect();
            let before = sys.sign_with(&all[..usize::from(t)], b"prop", &mut rng).unwrap();
            for _ in 0..refreshes {
                sys.refresh(&mut rng);
            }
            let mut ids = all.clone();
            let mut subset_rng = ChaCha20Rng::seed_from_u64(subset_seed);
            ids.shuffle(&mut subset_rng);
            let k = usize::from(t) + (subset_seed % u64::from(n - t + 1)) as usize;
            let sig = sys.sign_with(&ids[..k], b"prop", &mut rng).unwrap();
            assert_standard_signature(&sys.public, b"prop", &sig);
            prop_assert_eq!(sig, before);
            prop_assert_eq!(*sys.public.public_key(), vk);
            prop_assert_eq!(sys.public.epoch(), refreshes as u64);
            // t − 1 partials of the refreshed shares are never enough.
            let short = sys.sign_with(&ids[..usize::from(t) - 1], b"prop", &mut rng);
            prop_assert!(
                matches!(short, Err(BlsError::Param(ParamError::NotEnoughShares { .. }))),
                "t-1 partials: {:?}",
                short
            );
        }
    }
}
