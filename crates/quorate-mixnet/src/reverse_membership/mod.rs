//! Reverse-membership queries (the paper's DB-RSM, distributed *reverse* set membership, Fig. 9, as rebuilt in
//! the design notes): for a set `I` of inputs, the mix-servers prove to the querier `Q`, for
//! every output `j`, whether its value `v′_j` opens one of the commitments `γ_i`, `i ∈ I`
//! (output `j` came from `I`) or not, without revealing which one. [`run`] is the servers'
//! side (an in-process driver over the per-server stage functions, like
//! [`crate::membership::run`]); [`verify`] is the querier's side and uses public data only: every
//! message it checks is published, every commitment it uses comes with a proof.
//!
//! # Protocol (Fig. 9 steps, as implemented here)
//! 1. **Quasi-signatures** (steps 2–3, [`querier_quasi_sign`], [`check_quasi_signatures`]).
//! 2. **Signature track** (steps 5–7 for `S_i`): forward shuffle with TW proofs against the
//!    Mix permutation commitments, blinding `D_{k,j} = Enc(1; ρ)·F_m[j]^{b_{k,j}}` with the
//!    **published** Pedersen commitment `B_{k,j} = g^{b_{k,j}} h^{s_{k,j}}` and one proof that
//!    both use the same `b_{k,j}` ([`RsmBlindProof`]), threshold decryption to
//!    `S̃_j = S_{π(j)}^{b_j}`; non-members (`S̃_j = 1`) open their blinding to show `b_j ≠ 0`
//!    ([`NonMemberOpening`]).
//! 3. **Witness track** (steps 4–7 for `c`, `r + r̂`, [`witness_track`]): the packed list
//!    `Enc(c_i + 2^K (r_i + r̂_i))` shuffled forward and converted, for the members only, to
//!    additive shares with hiding per-server commitments `C_k` (of `c`) and `R_k` (of
//!    `ρ = r + r̂`).
//! 4. **Beaver** (step 8): `r′ = ρ·b` from the committed shares of `ρ` (`R_k`) and `b`
//!    (`B_{k,j}`) with a dealer's Pedersen-committed triple; the product shares come with
//!    publicly computable Pedersen commitments `Z_k`.
//! 5. **DPK_BBS+** (step 8) on the statement commitments `(C_k, B_{k,j}, Z_k)`.
//!
//! # Where each step lives
//!
//! | step (Fig. 9) | module |
//! |---|---|
//! | 1. the query: [`QueryId`], [`QuasiSignature`], [`BbsQuery`] | `query` |
//! | 2–3. quasi-signatures and their batched check | `quasi_signatures` |
//! | 5–7 for `S_i`: forward shuffle, blinding, decryption, non-member openings | `signature_track` |
//! | 4–7 for `c`, `r + r̂`: Paillier witness list, shuffle, conversion to shares | [`witness_track`] |
//! | 8: `r′ = ρ·b` by Beaver multiplication | [`crate::beaver`] |
//! | 8: DPK_BBS+ | `signature_proof` |
//! | querier's verification | `verify` |
//! | in-process driver | `run` |
//!
//! The messages' wire encodings are in [`crate::wire_rsm`].

mod quasi_signatures;
pub mod query;
mod run;
mod signature_proof;
mod signature_track;
mod verify;
pub mod witness_track;

pub use crate::membership::NonMemberOpening;
pub use quasi_signatures::{bbs_f1, check_quasi_signatures, querier_quasi_sign, BbsQuerierKey};
pub use query::{BbsQuery, QuasiSignature, QueryId};
pub use run::{run, run_timed};
pub use signature_proof::{
    bbs_dpk_challenge, bbs_dpk_commit, bbs_dpk_prove, bbs_dpk_respond, bbs_dpk_verify,
    BbsDpkCommit, BbsDpkNonces, BbsDpkProof, BbsDpkResponse, BbsDpkStatement, WitnessCommitments,
    WitnessShares,
};
pub(crate) use signature_proof::{gt_compressed, GT_COMPRESSED_BYTES};
pub use signature_track::{
    combine_signature_decryption, initial_signature_list, rsm_blind_challenge, run_signature_track,
    verify_rsm_blinding, verify_signature_track, BlindingShares, RsmBlindProof, RsmBlindingStage,
    SignatureTrack,
};
pub use verify::{check_non_member_openings, verify, verify_timed};

use crate::beaver::BeaverOpening;
use witness_track::WitnessTrack;

/// Everything the servers publish for one DB-RSM query (paper Fig. 9, steps 4–8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbRsmProof {
    /// Steps 5–7 for the quasi-signatures (with the blinding commitments `B_{k,j}`).
    pub signature: SignatureTrack,
    /// Openings of the blinding at the non-members (`S̃_j = 1`), server order.
    pub non_members: Vec<NonMemberOpening>,
    /// Steps 4–7 for the Paillier witnesses; the conversion covers the members only, in
    /// increasing output order.
    pub witness: WitnessTrack,
    /// Beaver openings for `r′ = ρ·b` per member, server order.
    pub beaver: Vec<BeaverOpening>,
    /// DPK_BBS+ per member, in increasing output order.
    pub dpk: Vec<BbsDpkProof>,
}
