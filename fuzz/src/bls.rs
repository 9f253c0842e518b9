//! quorate-bls: ciphersuite keys and signatures (checked by `verify`), registration
//! payloads, cold keys, registrations (checked by `VerifiedColdKeys::verify`), pad
//! commitments, partials (checked by `combine`), the group public key (checked by
//! `validate`), refresh messages and confirmations, both proofs (checked by
//! `verify_cold`/`verify_hot`), the powers of tau, ceremony contributions (checked by
//! `ceremony::verify`) and whole ceremony transcripts (checked by `Crs::from_transcript`).

use crate::{re, rng, Case};
use quorate_bls::client::Client;
use quorate_bls::refresh::{Refresh, RefreshConfirmation, RefreshPublic, RefreshShare};
use quorate_bls::register::{
    ColdPublicKey, ColdRegistration, HotRegistration, PadCommitment, VerifiedColdKeys,
};
use quorate_bls::cold::ColdParty;
use quorate_bls::group::GroupPublic;
use quorate_bls::hot::HotParty;
use quorate_bls::kzg::{ceremony, Crs, PowersOfTau};
use quorate_bls::proofs::{verify_cold, verify_hot, ColdProof, HotProof, ProofContext};
use quorate_bls::sign::{combine, ColdPartial, PartialSignature};
use quorate_bls::{PublicKey, SecretKey, Signature};
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use std::rc::Rc;

const MSG: &[u8] = b"quorate-fuzz bls";

/// The cases (2-of-3).
pub fn cases() -> Vec<Case> {
    let mut r = rng(0x424c);
    let n = 3u16;
    let session = SessionId::new(b"fuzz ceremony".to_vec());
    let p0 = ceremony::initial(n).expect("initial");
    let contribution = ceremony::contribute(&p0, &session, 0, &mut r).expect("contribute");
    let transcript = ceremony::run_transcript_in_process(n, 2, &session).expect("ceremony");
    let crs = Rc::new(Crs::from_transcript(&transcript, &mut r).expect("transcript"));
    let params = ThresholdParams::new(2, n).expect("params");
    let mut cold: Vec<ColdParty> = PartyId::range(n)
        .map(|i| ColdParty::register(i, &mut r))
        .collect();
    let client = Client::generate(&mut r);
    let regs: Vec<ColdRegistration> = cold.iter().map(|c| c.registration(&mut r)).collect();
    let eks = VerifiedColdKeys::verify(&regs, &mut r).expect("cold keys");
    let reg = client
        .register(&crs, params, &eks, &mut r)
        .expect("register");
    let pads: Vec<PadCommitment> = cold
        .iter_mut()
        .map(|c| {
            c.add_client(&client.public_key(), &client.proof_of_possession())
                .expect("pad")
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
                &mut r,
            )
            .expect("hot")
        })
        .collect();
    let vk = *reg.public.public_key();
    let colds: Vec<ColdPartial> = cold
        .iter()
        .map(|c| c.partial_sign(&vk, MSG).expect("cold partial"))
        .collect();
    let partials: Vec<PartialSignature> = hot
        .iter()
        .zip(&colds)
        .map(|(h, c)| h.partial_sign(MSG, c).expect("partial"))
        .collect();
    let sig = combine(&crs, &reg.public, MSG, &partials[..2], &mut r).expect("combine");
    let ctx = ProofContext {
        session: SessionId::new(b"fuzz audit".to_vec()),
        block_id: 7,
    };
    let cold_proof = cold[1].prove(&ctx, &mut r);
    let hot_proof = hot[1].prove(&crs, &ctx, &mut r);
    let Refresh {
        public: refresh,
        shares,
    } = client.refresh(&crs, &reg.public, &mut r).expect("refresh");
    let sk = SecretKey::random(&mut r);
    let confirmation = hot[0]
        .refresh(&crs, &refresh, &shares[0], &mut r)
        .expect("hot refresh")
        .confirmation();

    assert!(GroupPublic::from_bytes(&reg.public.to_bytes()).expect("gp") == reg.public);
    assert!(RefreshPublic::from_bytes(&refresh.to_bytes()).expect("rp") == refresh);
    assert!(PartialSignature::from_bytes(&partials[0].to_bytes()).expect("ps") == partials[0]);
    assert!(ColdRegistration::from_bytes(&regs[0].to_bytes()).expect("cr") == regs[0]);
    let powers = contribution.powers.clone();
    assert!(PowersOfTau::from_bytes(&powers.to_bytes()).expect("pot") == powers);

    let public = Rc::new(reg.public.clone());
    let id2 = PartyId::new(2).expect("id");
    let ek2 = *cold[1].public_key().point();
    let mut out = vec![
        Case::new("ciphersuite::SecretKey", sk.to_bytes().to_vec(), |b| {
            re(SecretKey::from_bytes(b), |k| k.to_bytes().to_vec())
        }),
        Case::new("ciphersuite::PublicKey", vk.to_bytes().to_vec(), |b| {
            re(PublicKey::from_bytes(b), |k| k.to_bytes().to_vec())
        }),
        Case::new("ciphersuite::Signature", sig.to_bytes().to_vec(), |b| {
            re(Signature::from_bytes(b), |s| s.to_bytes().to_vec())
        })
        .with_check(true, move |b| {
            vk.verify(MSG, &Signature::from_bytes(b).expect("decoded"))
        }),
        Case::new("client::HotRegistration", reg.payloads[0].to_bytes(), |b| {
            re(HotRegistration::from_bytes(b), HotRegistration::to_bytes)
        }),
        Case::new("client::RefreshShare", shares[0].to_bytes(), |b| {
            re(RefreshShare::from_bytes(b), RefreshShare::to_bytes)
        }),
        Case::new(
            "group::RefreshConfirmation",
            confirmation.to_bytes(),
            |b| re(RefreshConfirmation::from_bytes(b), |c| c.to_bytes()),
        )
        .with_check(false, move |b| {
            RefreshConfirmation::from_bytes(b)
                .expect("decoded")
                .is_signed_by(&vk)
        }),
        Case::new(
            "cold::ColdPublicKey",
            cold[0].public_key().to_bytes().to_vec(),
            |b| re(ColdPublicKey::from_bytes(b), |k| k.to_bytes().to_vec()),
        ),
        Case::new("cold::ColdRegistration", regs[0].to_bytes(), |b| {
            re(ColdRegistration::from_bytes(b), ColdRegistration::to_bytes)
        })
        .with_check(true, |b| {
            let reg = ColdRegistration::from_bytes(b).expect("decoded");
            VerifiedColdKeys::verify(&[reg], &mut rng(1)).is_ok()
        }),
        Case::new("cold::PadCommitment", pads[0].to_bytes(), |b| {
            re(PadCommitment::from_bytes(b), PadCommitment::to_bytes)
        }),
        Case::new("cold::ColdPartial", colds[0].to_bytes(), |b| {
            re(ColdPartial::from_bytes(b), ColdPartial::to_bytes)
        }),
    ];
    {
        let (crs1, pub1, other) = (Rc::clone(&crs), Rc::clone(&public), partials[1]);
        out.push(
            Case::new("tsign::PartialSignature", partials[0].to_bytes(), |b| {
                re(PartialSignature::from_bytes(b), PartialSignature::to_bytes)
            })
            .with_check(true, move |b| {
                let p = PartialSignature::from_bytes(b).expect("decoded");
                combine(&crs1, &pub1, MSG, &[p, other], &mut rng(2)).is_ok()
            }),
        );
    }
    {
        let crs1 = Rc::clone(&crs);
        out.push(
            Case::new("group::GroupPublic", reg.public.to_bytes(), |b| {
                re(GroupPublic::from_bytes(b), GroupPublic::to_bytes)
            })
            .with_check(false, move |b| {
                GroupPublic::from_bytes(b)
                    .expect("decoded")
                    .validate(&crs1, &mut rng(3))
                    .is_ok()
            }),
        );
    }
    {
        let (crs1, pub1) = (Rc::clone(&crs), Rc::clone(&public));
        out.push(
            Case::new("group::RefreshPublic", refresh.to_bytes(), |b| {
                re(RefreshPublic::from_bytes(b), RefreshPublic::to_bytes)
            })
            .with_check(false, move |b| {
                let rp = RefreshPublic::from_bytes(b).expect("decoded");
                pub1.refreshed(&crs1, &rp, &mut rng(4)).is_ok()
            }),
        );
    }
    {
        let ctx1 = ctx.clone();
        out.push(
            Case::new("proofs::ColdProof", cold_proof.to_bytes().to_vec(), |b| {
                re(ColdProof::from_bytes(b), |p| p.to_bytes().to_vec())
            })
            .with_check(true, move |b| {
                verify_cold(
                    &ek2,
                    id2,
                    &ctx1,
                    &ColdProof::from_bytes(b).expect("decoded"),
                )
                .is_ok()
            }),
        );
    }
    {
        let (crs1, pub1) = (Rc::clone(&crs), Rc::clone(&public));
        out.push(
            Case::new("proofs::HotProof", hot_proof.to_bytes().to_vec(), |b| {
                re(HotProof::from_bytes(b), |p| p.to_bytes().to_vec())
            })
            .with_check(true, move |b| {
                let p = HotProof::from_bytes(b).expect("decoded");
                verify_hot(&crs1, &pub1, id2, &ctx, &p).is_ok()
            }),
        );
    }
    out.push(Case::new("kzg::PowersOfTau", powers.to_bytes(), |b| {
        re(PowersOfTau::from_bytes(b), PowersOfTau::to_bytes)
    }));
    out.push(
        Case::new("kzg::ceremony::Transcript", transcript.to_bytes(), |b| {
            re(
                ceremony::Transcript::from_bytes(b),
                ceremony::Transcript::to_bytes,
            )
        })
        .with_check(true, |b| {
            let t = ceremony::Transcript::from_bytes(b).expect("decoded");
            Crs::from_transcript(&t, &mut rng(6)).is_ok()
        }),
    );
    out.push(
        Case::new(
            "kzg::ceremony::Contribution",
            contribution.to_bytes(),
            |b| {
                re(
                    ceremony::Contribution::from_bytes(b),
                    ceremony::Contribution::to_bytes,
                )
            },
        )
        .with_check(true, move |b| {
            let c = ceremony::Contribution::from_bytes(b).expect("decoded");
            ceremony::verify(&p0, &c, &session, 0, &mut rng(5)).is_ok()
        }),
    );
    out
}
