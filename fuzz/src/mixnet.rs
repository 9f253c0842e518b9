//! quorate-mixnet: every wire codec of the Mix, DB-SM and DB-RSM messages, from one small
//! real run (n = 4, t = m = 2, 1024-bit test moduli). The composite decoders (`MixRecord`,
//! `DbSmProof`, `DbRsmProof`, `SharingRecord`) reach every inner decoder; the stage
//! decoders are also fuzzed on their own. Checks: `verify_record` for the Mix record,
//! `membership::verify` / `reverse_membership::verify` for the query proofs and for each stage substituted
//! into them, `verify_sharing`, `verify_broadcast`, `check_query`.

use crate::{rng, Case};
use blstrs::{G1Projective, Scalar};
use ff::Field;
use quorate_core::transcript::SessionId;
use quorate_core::PartyId;
use quorate_mixnet::reverse_membership::{self, BbsQuery, DbRsmProof};
use quorate_mixnet::beaver::{self, TriplePublic};
use quorate_mixnet::membership::{self, BbQuery, DbSmProof};
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::{self, SenderInput};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixnetPublic};
use quorate_mixnet::sharing::{self, Layout, SharingRecord};
use quorate_mixnet::wire::{self, NativeShuffleCodec, WireLimits};
use quorate_mixnet::wire_rsm;
use quorate_mixnet::{dkg, MixnetError};
use std::rc::Rc;

const N: usize = 4;
const M: u16 = 2;
const CODEC: NativeShuffleCodec = NativeShuffleCodec;

/// The run every case draws from.
pub struct World {
    public: MixnetPublic,
    inputs: Vec<SenderInput>,
    record: MixRecord,
    coms: Vec<Vec<G1Projective>>,
    sharing: SharingRecord,
    query: BbQuery,
    proof: DbSmProof,
    rsm_query: BbsQuery,
    triples: Vec<TriplePublic>,
    rsm_proof: DbRsmProof,
    members: usize,
}

impl World {
    fn new() -> World {
        let mut r = rng(0x4d69);
        let sid = SessionId::new(b"quorate-fuzz mixnet".to_vec());
        let (public, servers) = keygen_with_test_moduli(sid, N, M, M, &mut r).expect("keygen");
        let inputs: Vec<SenderInput> = (0..N)
            .map(|i| {
                let v = Scalar::random(&mut r);
                sender::encrypt_for(&public, i as u64, v, &mut r)
                    .expect("encrypt")
                    .0
            })
            .collect();
        let record = mix::run(&public, &servers, &inputs, &mut r).expect("mix");
        let (sharing, shares) =
            sharing::run_sharing(&public, &servers, &inputs, &record, &mut r).expect("sharing");
        let coms =
            sharing::verify_sharing(&public, &inputs, &record, &sharing).expect("verify sharing");
        let comp = mix::composed_permutation(&servers);
        let fwd = |i: usize| comp.iter().position(|&x| x == i).expect("permutation");
        let mut j = vec![fwd(0), fwd(1)];
        j.sort_unstable();
        let (_key, query) =
            membership::querier_sign(&public, &record.outputs, &[0, 1, 2], &j, &mut r).expect("query");
        let proof = membership::run(
            &public, &servers, &inputs, &record, &shares, &coms, &query, &mut r,
        )
        .expect("dbsm");
        let gammas: Vec<G1Projective> = inputs.iter().map(|s| s.gamma).collect();
        let i_set = vec![1, 3];
        let (_key, rsm_query) =
            reverse_membership::querier_quasi_sign(&public, &gammas, &i_set, &mut r).expect("quasi-sign");
        let (triples, mut tshares) =
            beaver::deal_triples(&public, &rsm_query.query_id, i_set.len(), &mut r);
        let rsm_proof = reverse_membership::run(
            &public,
            &servers,
            &inputs,
            &record,
            &triples,
            &mut tshares,
            &rsm_query,
            &mut r,
        )
        .expect("dbrsm");
        let answer = reverse_membership::verify(&public, &inputs, &record, &triples, &rsm_query, &rsm_proof)
            .expect("verify");
        let members = answer.iter().filter(|&&b| b).count();
        World {
            public,
            inputs,
            record,
            coms,
            sharing,
            query,
            proof,
            rsm_query,
            triples,
            rsm_proof,
            members,
        }
    }

    fn dbsm_ok(&self, proof: &DbSmProof) -> bool {
        membership::verify(
            &self.public,
            &self.inputs,
            &self.record,
            &self.coms,
            &self.query,
            proof,
        )
        .is_ok()
    }

    fn dbrsm_ok(&self, proof: &DbRsmProof) -> bool {
        reverse_membership::verify(
            &self.public,
            &self.inputs,
            &self.record,
            &self.triples,
            &self.rsm_query,
            proof,
        )
        .is_ok()
    }
}

/// A case from a decoder and an encoder (which must succeed on anything decoded).
fn case<T: 'static>(
    name: &'static str,
    good: Result<Vec<u8>, MixnetError>,
    dec: impl Fn(&[u8]) -> Result<T, MixnetError> + 'static,
    enc: impl Fn(&T) -> Result<Vec<u8>, MixnetError> + 'static,
) -> Case {
    Case::new(name, good.expect("encodes"), move |b| {
        dec(b)
            .ok()
            .map(|x| enc(&x).expect("a decoded message re-encodes"))
    })
}

/// The cases.
pub fn cases() -> Vec<Case> {
    let w = Rc::new(World::new());
    let p = &w.public;
    let groups = wire::mix_decryption_groups(p);
    let count = w.query.inputs.len();
    let k = w.rsm_query.inputs.len();
    let members = w.members;
    let sgroups = wire_rsm::sharing_decryption_groups(p, w.record.accepted.len()).expect("groups");
    let n_acc = w.record.accepted.len();
    let (bc, _) = dkg::deal(
        &p.gens,
        p.params,
        &p.sid,
        PartyId::new(2).expect("id"),
        &mut rng(3),
    );
    macro_rules! w {
        () => {{
            let w2 = Rc::clone(&w);
            w2
        }};
    }
    let mut out = Vec::new();

    // Setup and Mix.
    let x = w!();
    out.push(
        case(
            "wire::MixnetPublic",
            wire::encode_mixnet_public(&CODEC, p),
            |b| wire::decode_mixnet_public(&CODEC, &WireLimits::default(), b),
            |x| wire::encode_mixnet_public(&CODEC, x),
        )
        .with_check(false, move |b| {
            let _ = x;
            wire::decode_mixnet_public(&CODEC, &WireLimits::default(), b)
                .expect("decoded")
                .verify_setup()
                .is_ok()
        }),
    );
    let (x, y) = (w!(), w!());
    out.push(case(
        "wire::SenderInput",
        wire::encode_sender_input(p, &w.inputs[1]),
        move |b| wire::decode_sender_input(&x.public, b),
        move |s| wire::encode_sender_input(&y.public, s),
    ));
    let (x, y) = (w!(), w!());
    out.push(case(
        "wire::LinkProof",
        wire::encode_link_proof(p, &w.inputs[2].proof),
        move |b| wire::decode_link_proof(&x.public, b),
        move |s| wire::encode_link_proof(&y.public, s),
    ));
    out.push(case(
        "wire::ElGamalCiphertext",
        Ok(wire::encode_elgamal_ciphertext(
            &w.proof.reverse[1].outputs[0],
        )),
        wire::decode_elgamal_ciphertext,
        |c| Ok(wire::encode_elgamal_ciphertext(c)),
    ));
    out.push(case(
        "wire::ElGamalDecShare",
        Ok(wire::encode_elgamal_dec_share(
            &w.proof.decryption[0].shares[0],
        )),
        wire::decode_elgamal_dec_share,
        |c| Ok(wire::encode_elgamal_dec_share(c)),
    ));
    let (x, y) = (w!(), w!());
    out.push(case(
        "wire::MixStage",
        wire::encode_mix_stage(p, &CODEC, &w.record.stages[1]),
        move |b| wire::decode_mix_stage(&x.public, &CODEC, b),
        move |s| wire::encode_mix_stage(&y.public, &CODEC, s),
    ));
    let (x, y) = (w!(), w!());
    out.push(case(
        "wire::DecryptionStage",
        wire::encode_decryption_stage(p, &w.record.decryptions[0]),
        move |b| wire::decode_decryption_stage(&x.public, groups, b),
        move |s| wire::encode_decryption_stage(&y.public, s),
    ));
    let (x, y, z) = (w!(), w!(), w!());
    out.push(
        case(
            "wire::MixRecord",
            wire::encode_mix_record(p, &CODEC, &w.record),
            move |b| wire::decode_mix_record(&x.public, &CODEC, b),
            move |s| wire::encode_mix_record(&y.public, &CODEC, s),
        )
        .with_check(false, move |b| {
            let rec = wire::decode_mix_record(&z.public, &CODEC, b).expect("decoded");
            mix::verify_record(&z.public, &z.inputs, &rec).is_ok()
        }),
    );
    let x = w!();
    out.push(
        case(
            "wire::DkgBroadcast",
            wire::encode_dkg_broadcast(&bc),
            {
                let params = p.params;
                move |b| wire::decode_dkg_broadcast(params, b)
            },
            wire::encode_dkg_broadcast,
        )
        .with_check(true, move |b| {
            let d = wire::decode_dkg_broadcast(x.public.params, b).expect("decoded");
            dkg::verify_broadcast(&x.public.gens, x.public.params, &x.public.sid, &d).is_ok()
        }),
    );

    // DB-SM.
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire::BbQuery",
            wire::encode_bb_query(&w.query),
            move |b| wire::decode_bb_query(&x.public, b),
            wire::encode_bb_query,
        )
        .with_check(false, move |b| {
            let q = wire::decode_bb_query(&z.public, b).expect("decoded");
            membership::check_query(&z.public, &z.record.outputs, &q).is_ok()
        }),
    );
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire::DbSmProof",
            wire::encode_dbsm_proof(&CODEC, &w.proof),
            move |b| wire::decode_dbsm_proof(&x.public, &CODEC, &x.query, b),
            |s| wire::encode_dbsm_proof(&CODEC, s),
        )
        .with_check(false, move |b| {
            z.dbsm_ok(&wire::decode_dbsm_proof(&z.public, &CODEC, &z.query, b).expect("decoded"))
        }),
    );
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire::ReverseStage",
            wire::encode_reverse_stage(&CODEC, &w.proof.reverse[0]),
            move |b| wire::decode_reverse_stage(&x.public, &CODEC, b),
            |s| wire::encode_reverse_stage(&CODEC, s),
        )
        .with_check(false, move |b| {
            let mut proof = z.proof.clone();
            proof.reverse[0] = wire::decode_reverse_stage(&z.public, &CODEC, b).expect("decoded");
            z.dbsm_ok(&proof)
        }),
    );
    out.push(case(
        "wire::BlindProof",
        Ok(wire::encode_blind_proof(&w.proof.blinding[1].proofs[0])),
        wire::decode_blind_proof,
        |s| Ok(wire::encode_blind_proof(s)),
    ));
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire::BlindingStage",
            wire::encode_blinding_stage(&w.proof.blinding[1]),
            move |b| wire::decode_blinding_stage(&x.public, count, b),
            wire::encode_blinding_stage,
        )
        .with_check(false, move |b| {
            let mut proof = z.proof.clone();
            proof.blinding[1] = wire::decode_blinding_stage(&z.public, count, b).expect("decoded");
            z.dbsm_ok(&proof)
        }),
    );
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire::ElGamalDecStage",
            wire::encode_elgamal_dec_stage(&w.proof.decryption[1]),
            move |b| wire::decode_elgamal_dec_stage(&x.public, count, b),
            wire::encode_elgamal_dec_stage,
        )
        .with_check(false, move |b| {
            let mut proof = z.proof.clone();
            proof.decryption[1] =
                wire::decode_elgamal_dec_stage(&z.public, count, b).expect("decoded");
            z.dbsm_ok(&proof)
        }),
    );
    let dbsm_members = w.proof.dpk_commits.len().max(1);
    let _ = dbsm_members;
    let x = w!();
    out.push(case(
        "wire::DpkCommitStage",
        wire::encode_dpk_commit_stage(&w.proof.dpk_commits[1]),
        move |b| wire::decode_dpk_commit_stage(&x.public, 2, b),
        wire::encode_dpk_commit_stage,
    ));
    let x = w!();
    out.push(case(
        "wire::DpkResponseStage",
        wire::encode_dpk_response_stage(&w.proof.dpk_responses[1]),
        move |b| wire::decode_dpk_response_stage(&x.public, 2, b),
        wire::encode_dpk_response_stage,
    ));

    // DB-RSM.
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire_rsm::BbsQuery",
            wire_rsm::encode_bbs_query(&w.rsm_query),
            move |b| wire_rsm::decode_bbs_query(&x.public, b),
            wire_rsm::encode_bbs_query,
        )
        .with_check(false, move |b| {
            let q = wire_rsm::decode_bbs_query(&z.public, b).expect("decoded");
            let gammas: Vec<G1Projective> = z.inputs.iter().map(|s| s.gamma).collect();
            reverse_membership::check_quasi_signatures(&z.public, &gammas, &q).is_ok()
        }),
    );
    out.push(case(
        "wire_rsm::QuasiSignature",
        Ok(wire_rsm::encode_quasi_signature(&w.rsm_query.sigs[0])),
        wire_rsm::decode_quasi_signature,
        |s| Ok(wire_rsm::encode_quasi_signature(s)),
    ));
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire_rsm::DbRsmProof",
            wire_rsm::encode_dbrsm_proof(p, &CODEC, &w.rsm_proof),
            move |b| wire_rsm::decode_dbrsm_proof(&x.public, &CODEC, b),
            {
                let y = w!();
                move |s| wire_rsm::encode_dbrsm_proof(&y.public, &CODEC, s)
            },
        )
        .with_check(false, move |b| {
            z.dbrsm_ok(&wire_rsm::decode_dbrsm_proof(&z.public, &CODEC, b).expect("decoded"))
        }),
    );
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire_rsm::SignatureTrack",
            wire_rsm::encode_signature_track(&CODEC, &w.rsm_proof.signature),
            move |b| wire_rsm::decode_signature_track(&x.public, &CODEC, b),
            |s| wire_rsm::encode_signature_track(&CODEC, s),
        )
        .with_check(false, move |b| {
            let mut proof = z.rsm_proof.clone();
            proof.signature =
                wire_rsm::decode_signature_track(&z.public, &CODEC, b).expect("decoded");
            z.dbrsm_ok(&proof)
        }),
    );
    let x = w!();
    out.push(case(
        "wire_rsm::RsmBlindingStage",
        wire_rsm::encode_rsm_blinding_stage(&w.rsm_proof.signature.blinding[0]),
        move |b| wire_rsm::decode_rsm_blinding_stage(&x.public, N, b),
        wire_rsm::encode_rsm_blinding_stage,
    ));
    out.push(case(
        "wire_rsm::RsmBlindProof",
        Ok(wire_rsm::encode_rsm_blind_proof(
            &w.rsm_proof.signature.blinding[0].proofs[0],
        )),
        wire_rsm::decode_rsm_blind_proof,
        |s| Ok(wire_rsm::encode_rsm_blind_proof(s)),
    ));
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire_rsm::NonMemberOpening",
            wire_rsm::encode_non_member_opening(&w.rsm_proof.non_members[0]),
            move |b| wire_rsm::decode_non_member_opening(&x.public, N - members, b),
            wire_rsm::encode_non_member_opening,
        )
        .with_check(false, move |b| {
            let mut proof = z.rsm_proof.clone();
            proof.non_members[0] =
                wire_rsm::decode_non_member_opening(&z.public, N - z.members, b).expect("decoded");
            z.dbrsm_ok(&proof)
        }),
    );
    let (x, y) = (w!(), w!());
    out.push(case(
        "wire_rsm::WitnessTrack",
        wire_rsm::encode_witness_track(p, &CODEC, &w.rsm_proof.witness),
        move |b| wire_rsm::decode_witness_track(&x.public, &CODEC, members, b),
        move |s| wire_rsm::encode_witness_track(&y.public, &CODEC, s),
    ));
    let x = w!();
    out.push(case(
        "wire_rsm::BeaverOpening",
        wire_rsm::encode_beaver_opening(&w.rsm_proof.beaver[0]),
        move |b| wire_rsm::decode_beaver_opening(&x.public, members, b),
        wire_rsm::encode_beaver_opening,
    ));
    let x = w!();
    out.push(case(
        "wire_rsm::BbsDpkProof",
        wire_rsm::encode_bbs_dpk_proof(&w.rsm_proof.dpk[0]),
        move |b| wire_rsm::decode_bbs_dpk_proof(&x.public, b),
        wire_rsm::encode_bbs_dpk_proof,
    ));
    let (x, z) = (w!(), w!());
    out.push(
        case(
            "wire_rsm::TriplePublic",
            wire_rsm::encode_triple_public(&w.triples[0]),
            move |b| wire_rsm::decode_triple_public(&x.public, b),
            wire_rsm::encode_triple_public,
        )
        .with_check(false, move |b| {
            let t = wire_rsm::decode_triple_public(&z.public, b).expect("decoded");
            beaver::verify_triples(&z.public, &z.rsm_query.query_id, &[t]).is_ok()
        }),
    );
    let x = w!();
    out.push(case(
        "wire_rsm::Triples",
        wire_rsm::encode_triples(&w.triples),
        move |b| wire_rsm::decode_triples(&x.public, k, b),
        |t| wire_rsm::encode_triples(t),
    ));
    let (x, y, z) = (w!(), w!(), w!());
    out.push(
        case(
            "wire_rsm::SharingRecord",
            wire_rsm::encode_sharing_record(p, Layout::Joint, &w.sharing),
            move |b| wire_rsm::decode_sharing_record(&x.public, Layout::Joint, n_acc, b),
            move |s| wire_rsm::encode_sharing_record(&y.public, Layout::Joint, s),
        )
        .with_check(false, move |b| {
            let s = wire_rsm::decode_sharing_record(&z.public, Layout::Joint, n_acc, b)
                .expect("decoded");
            sharing::verify_sharing(&z.public, &z.inputs, &z.record, &s).is_ok()
        }),
    );
    let (x, y) = (w!(), w!());
    out.push(case(
        "wire_rsm::ShareDecStage",
        wire_rsm::encode_share_dec_stage(p, &w.sharing.decryptions[0]),
        move |b| wire_rsm::decode_share_dec_stage(&x.public, sgroups, b),
        move |s| wire_rsm::encode_share_dec_stage(&y.public, s),
    ));
    let (x, y) = (w!(), w!());
    out.push(case(
        "wire_rsm::ShareCommitStage",
        wire_rsm::encode_share_commit_stage(p, Layout::Joint, &w.sharing.commits[0]),
        move |b| wire_rsm::decode_share_commit_stage(&x.public, Layout::Joint, n_acc, b),
        move |s| wire_rsm::encode_share_commit_stage(&y.public, Layout::Joint, s),
    ));
    out
}
