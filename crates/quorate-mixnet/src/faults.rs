//! Fault injection for tests (cargo feature `test-faults`, off by default): cheating senders
//! and servers that stay within what their proofs can check, so the tests can show that the
//! protocol tolerates them or names them.

use crate::error::MixnetError;
use crate::mix::MixRecord;
use crate::sender::{self, SenderInput};
use crate::setup::{MixServer, MixnetPublic};
use crate::sharing::{self, MaskFault, MixerShares, SharingRecord};
use quorate_core::PartyId;
use quorate_paillier::rug::Integer;
use rand_core::{CryptoRng, RngCore};

/// A sender's submission for the arbitrary integer `v` (any sign or size; `r` random below
/// `q`) with an honestly computed linking proof: `γ` commits to `v mod q`. Within the proof's
/// slack this passes input checking; beyond it, it is refused.
pub fn encrypt_integer<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    index: u64,
    v: &Integer,
    rng: &mut R,
) -> Result<SenderInput, MixnetError> {
    let r = crate::params::scalar_to_int(&ff::Field::random(&mut *rng));
    sender::encrypt_integers(public, index, v.clone(), r, rng)
}

/// [`crate::sharing::run_sharing`] where `server` uses the integer `a` (any sign or size) as
/// its mask `a_k` for accepted input `input`, with an honestly computed mask proof.
#[allow(clippy::too_many_arguments)]
pub fn run_sharing_with_mask<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    server: PartyId,
    input: usize,
    a: &Integer,
    rng: &mut R,
) -> Result<(SharingRecord, Vec<MixerShares>), MixnetError> {
    let fault = MaskFault {
        server,
        input,
        a: a.clone(),
    };
    sharing::run_sharing_with(public, servers, submissions, record, Some(&fault), rng)
}

/// [`crate::membership::run`] where **all** servers collude to hide a member: the last server
/// picks its blinding of element `t` (position in `q.inputs`) as minus the sum of the
/// others', so `S_t = 1` whatever the slot held, with valid blinding proofs.
#[allow(clippy::too_many_arguments)]
pub fn dbsm_run_zero_blinding<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    record: &MixRecord,
    shares: &[MixerShares],
    share_coms: &[Vec<blstrs::G1Projective>],
    q: &crate::membership::BbQuery,
    t: usize,
    rng: &mut R,
) -> Result<crate::membership::DbSmProof, MixnetError> {
    crate::membership::run_with(
        public,
        servers,
        submissions,
        record,
        (shares, share_coms),
        q,
        Some(t),
        rng,
        &mut crate::timing::StepTimes::default(),
    )
}

/// The mask link-proof check of a sharing record alone (no decryption check): `batched`
/// is the production path (one random linear combination, one-by-one only to name
/// culprits), otherwise every proof on its own (the fallback; the cost of the check before
/// issue 17's batching). For the A/B in `examples/sharing_profile.rs`; returns the culprits.
pub fn check_share_links(
    public: &MixnetPublic,
    layout: sharing::Layout,
    record: &SharingRecord,
    batched: bool,
) -> Result<Vec<PartyId>, MixnetError> {
    let n = record.commits.first().map_or(0, |st| st.commits.len());
    Ok(sharing::verify_links_mode(
        public,
        public.djn()?,
        layout,
        n,
        &record.commits,
        batched,
    ))
}
