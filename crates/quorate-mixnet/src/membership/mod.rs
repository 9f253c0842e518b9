//! Membership queries (the paper's DB-SM, distributed set membership, Fig. 8, with the malicious-security
//! steps of Appendix B): for every queried input `i ∈ I`, the mix-servers prove to the
//! querier `Q` whether the value committed in `γ_i` is one of the outputs `{v′_j : j ∈ J}`,
//! without revealing which one, and `Q` verifies **every** proof.
//!
//! # Protocol (Fig. 8 steps, as implemented here)
//! 1. **Signatures.** `Q` picks a fresh BB key `x`, `y = f2^x` (`f2` the G2 generator) and
//!    signs every queried output: `σ_j = g^{1/(v′_j + x)}` ([`querier_sign`]). The signatures
//!    are published as the trivial ElGamal encryptions `(1, σ_j)`; positions `j ∉ J` hold
//!    `(1, 1)`. Every server batch-verifies the signatures with one two-term pairing product
//!    and 128-bit weights ([`check_query`]).
//! 2. **Reverse shuffle.** Servers `k = m … 1` re-encrypt the list and move it back through
//!    `π_k⁻¹` (`R_{k−1}[π_k(i)] = R_k[i]·Enc(1; s_i)`) and prove it with the Terelius–Wikström
//!    ElGamal shuffle proof against the *same* permutation commitment as in Mix (input and
//!    output lists swapped). After server 1, `R_0[i] = Enc(σ_{π(i)})` for the composed `π`.
//! 3. **Blinding.** For each `i ∈ I` every server publishes `D_{k,i} = Enc(1; ρ)·R_0[i]^{b}`
//!    and the hiding commitment `B_{k,i} = g^{b} h^{s}`, with a proof of knowledge of
//!    `(ρ, b, s)` that both use the same `b` ([`BlindProof`]);
//!    `Π_k D_{k,i} = Enc(σ^{Σ_k b_k})`.
//! 4. **Decryption.** Threshold ElGamal decryption with a DLEQ proof per element and server
//!    gives `S_i = σ_{π(i)}^{b_i}`. `S_i = 1` happens for an empty slot (`π(i) ∉ J`) **or**
//!    for `b_i = 0`, which all servers together could arrange to hide a member (issue 13);
//!    so at every `S_i = 1` each server opens `(b_{k,i}, s_{k,i})` ([`NonMemberOpening`]),
//!    the querier checks the openings against `B_{k,i}` (a wrong one names its server) and
//!    `Σ_k b_{k,i} ≠ 0` (else every server is blamed); then the answer is *not a member*.
//!    Otherwise
//!    `S_i ≠ 1` (the artifact never checked this: defect 11) and step 5 runs.
//! 5. **DPK_BB** `PK{(v, r, b): γ_i = g^v h^r ∧ e(S_i, y·f2^v) = e(g, f2)^b}`, distributed.
//!    Server `k` holds additive shares `v_k, r_k` of the sender's opening (from the
//!    preprocessing in [`crate::sharing`], public commitments `V_k = g^{v_k} h^{r_k}`,
//!    `Π V_k = γ_i`) and `b_k` from step 3. It commits `R_k = g^{ρ_v} h^{ρ_r}`,
//!    `M_k = S^{ρ_v} g^{−ρ_b}`, `A_k = (g^τ a^{ρ_b}, pk^τ b^{ρ_b})` (with
//!    `(a, b) = R_0[i]`) and proves that these share their exponents ([`DpkShareProof`]).
//!    Only the combination `M_k` that the pairing equation uses is published: `S^{ρ_v}` and
//!    `g^{ρ_b}` apart would, with the responses, give everybody `e·v·S` and `e·b·g`, and
//!    `S^{x+v} = g^b` would then link the input to its output (issue 13).
//!    The challenge `e` hashes the whole statement and every commitment. Responses
//!    `z_{v,k} = ρ_v − e v_k`, `z_{r,k} = ρ_r − e r_k`, `z_{b,k} = ρ_b − e b_k`,
//!    `z_{τ,k} = τ − e ρ_k` are checked per server (`g^{z_v} h^{z_r} V_k^e = R_k` and
//!    `A_k = (g^{z_τ} a^{z_b} D_{k,0}^e, pk^{z_τ} b^{z_b} D_{k,1}^e)`), so a bad share names its
//!    server. `Q` sums them and checks, with `R, M` the products of the shares,
//!    `g^{z_v} h^{z_r} γ^e = R` and `e(g^{z_b} S^{−z_v} M, f2)·e(S^e, y) = 1`; over all
//!    elements both are batched with 128-bit weights (one MSM and one 2-pairing product).
//!    Only group operations: the Paillier work happens once per input in preprocessing.
//!
//! **Verification.** The querier checks every reverse shuffle (TW proofs), then steps 3–5
//! together ([`verify`], `joint_check`): every server's blinding proof, every decryption
//! share's DLEQ proof and the published `S_i = b_i − Σ λ_k d_{k,i}`, and for every member
//! every server's DPK share proof (`s_v, s_r, s_b, s_τ` against `R′, M′, A′`) and
//! responses (`z_v, z_r, z_b, z_τ` against `V_k, R_k, A_k, D_k`) and the aggregate opening
//! `g^{Σz_v} h^{Σz_r} γ^e = Π R_k`, all as one random linear combination with a 128-bit
//! weight per relation, in one multi-scalar multiplication (terms on the same point merged:
//! `4 + 16m` points per element), and the aggregate pairing equations of all members in one
//! batched 2-pairing product. Nothing is checked only on failure: a changed response or
//! share-proof scalar of any server fails the joint check (issue 6). If the joint check
//! fails, the step-by-step checks run (each step batched, then per server) to name every
//! culprit; if every per-server check passes, the statement is false and is reported as
//! [`MixnetError::DpkFailed`] without blame.
//!
//! **Cost per element** (one core, `m` servers): a mixer does 2 (re-encryption) + 8
//! (blinding) + 3 (decryption share) + 16 (DPK commitments and share proof) constant-time
//! G1 multiplications (those of the fixed bases `g`, `h` and `pk`, about two thirds, by
//! fixed-base tables: [`crate::params::Generators::g_h_mul_ct`],
//! [`crate::elgamal::ElGamalTables`]; powers of ciphertexts and of the signatures `S_i` by
//! `blst`'s scalar multiplication), plus the shuffle proof and the batched checks of the others'
//! blinding and decryption proofs (`4m + 2` and `3m + 1` MSM points per element). The
//! querier does only MSM work (`4 + 16m` points per element for steps 3–5) and two
//! pairings in total. Transcript inputs are normalised to affine in batches (one field
//! inversion per list, [`crate::elgamal`]) before hashing. Measured with
//! `examples/dbsm_profile.rs`.
//!
//! # Security notes
//! * Commitments are published before the challenge is derived from all of them (no
//!   commit-then-reveal round is needed for soundness of a proof of knowledge; an adversary
//!   who sees honest commitments first still faces a hash challenge).
//! * The in-process driver [`run`] simulates all servers; the messages are the stage structs.
//!
//! # Where each step lives
//!
//! | step (Fig. 8) | module | server side | querier side |
//! |---|---|---|---|
//! | 1. signatures (BB) | `query` | [`check_query`] | [`querier_sign`], [`initial_list`] |
//! | 2. reverse shuffle | `reverse_shuffle` | `MixServer::reverse_shuffle` → [`ReverseStage`] | `verify_reverse` |
//! | 3. blinding | `blinding` | `MixServer::blind` → [`BlindingStage`] | `verify_blinding` (blame path) |
//! | 4. decryption, non-member openings | `decryption` | [`ElGamalDecStage`], [`NonMemberOpening`] | `check_non_member_openings` |
//! | 5. DPK_BB (membership proof) | `member_proof` | `MixServer::dpk_commit` → [`DpkCommitStage`], [`DpkResponseStage`] | `MemberProofs` (the one step-5 fold both verifiers use) |
//! | verification | `verify` | — | [`verify`]: one joint check, then step by step to name culprits |
//! | in-process driver | `run` | [`run`] | — |
//! | per-server stage order checks (also DB-RSM) | `stages` | — | `check_order` |
//!
//! The messages' wire encodings are in [`crate::wire`].

mod blinding;
mod decryption;
mod member_proof;
mod query;
mod reverse_shuffle;
mod run;
mod stages;
mod verify;

pub use blinding::{BlindProof, BlindingStage};
pub use decryption::{ElGamalDecStage, NonMemberOpening};
pub use member_proof::{DpkCommit, DpkCommitStage, DpkResponseStage, DpkShareProof};
pub use query::{check_query, initial_list, querier_sign, BbQuery, QuerierKey};
pub use reverse_shuffle::ReverseStage;
pub use run::{run, run_timed};
pub use verify::{verify, verify_timed};

pub(crate) use decryption::check_non_member_openings;
#[cfg(feature = "test-faults")]
pub(crate) use run::run_with;
pub(crate) use stages::check_order;

use blstrs::G1Projective;

/// Everything the servers publish for one DB-SM query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbSmProof {
    /// Reverse shuffles, server `m` first.
    pub reverse: Vec<ReverseStage>,
    /// Blinding, server 1 first.
    pub blinding: Vec<BlindingStage>,
    /// ElGamal decryption shares.
    pub decryption: Vec<ElGamalDecStage>,
    /// `S_i` for `i ∈ I`.
    pub s: Vec<G1Projective>,
    /// Every server's openings of its blinding commitments at the non-members (`S_i = 1`),
    /// server order.
    pub non_members: Vec<NonMemberOpening>,
    /// DPK commitments.
    pub dpk_commits: Vec<DpkCommitStage>,
    /// DPK responses.
    pub dpk_responses: Vec<DpkResponseStage>,
}
