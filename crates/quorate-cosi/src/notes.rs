//! # Math and design notes
//!
//! Sources: the public CoSi work (the CFRG draft, Bryan Ford's reference code "bford",
//! DEDIS kyber/cothority/onet, ftcosi, blscosi) and the 2016 paper "Keeping Authorities
//! Honest or Bust with Decentralized Witness Cosigning" (cited as "the paper"). Notation: `B` the Ed25519 base point, `L = 2^252 + 27742…` its prime order,
//! witness `i ∈ [0, n)` with secret `a_i` and key `A_i = a_i·B`, `A = ΣA_i`, a mask `Z` (the
//! participant set), `A' = Σ_{i∈Z} A_i`, message `M`.
//!
//! ## 1. Signature format and verification
//!
//! `sig = R (32) ‖ s (32) ‖ Z (⌈n/8⌉)`; verification
//!
//! ```text
//! c = SHA-512(R ‖ A' ‖ M) mod L,     [s]B = R + [c]A'
//! ```
//!
//! is RFC 8032 verification with public key `A'`, so `R ‖ s` is an ordinary Ed25519
//! signature under `A'` — under the roster's static key `A` when everybody signed. The test
//! suite checks every produced signature with `ed25519_dalek::VerifyingKey::verify_strict`
//! (all sizes, masked and unmasked, both modes): an Ed25519 port of MuSig2 passes RFC 8032
//! verification against the aggregated key.
//!
//! Verification needs `A'`: [`crate::Roster`] caches `A` and computes
//! `A' = A − Σ_{i∉Z} A_i` or `Σ_{i∈Z} A_i`, whichever needs fewer additions (kyber spends
//! 7.6 ms at n = 8192 on a full recomputation).
//!
//! ## 2. Disagreements between the sources and how they were resolved
//!
//! The CFRG draft, bford's code and kyber disagree in four places. We pick one answer each:
//!
//! 1. **Meaning of a mask bit.** Bit `i` = 1 means witness `i` **participated** (kyber and
//!    cothority), not "absent" (draft, bford). The verifier's policy and `A'` are both
//!    functions of the participant set, counting set bits is the natural threshold test, and
//!    kyber is the maintained code. Bit order is little-endian (all three sources agree:
//!    byte 0 bit 0 is witness 0). Padding bits must be zero so each mask has one encoding.
//! 2. **Which key is hashed.** `A'` (bford, kyber), so that the signature is a plain Ed25519
//!    signature under `A'`. The draft's generation text hashes `A` but verifies with `A'`,
//!    which cannot both hold.
//! 3. **What the challenge covers.** Exactly RFC 8032's `SHA-512(R ‖ A' ‖ M)`; the mask and
//!    roster id are *not* in `c` (that would break Ed25519 compatibility, the point of the
//!    format). They are bound in two other ways: (a) through `A'` — another mask with the same
//!    `A'` requires a linear relation between registered keys, which for honest keys is
//!    infeasible, so at most the *corrupted* witnesses' claimed participation can be
//!    reshuffled (e.g. an attacker who registered `A_x = A_y + A_z` can present `{x}` as
//!    `{y, z}`; it could sign as any of them anyway); (b) in two-nonce mode every honest
//!    response is computed for `R = R̂1 + b·R̂2` with `b` hashing the roster id and the exact
//!    mask, so honest witnesses' shares only add up for the mask they saw. This answers the
//!    draft's open "Discussions" item as far as an Ed25519-compatible format allows.
//! 4. **Verification rules.** We follow `verify_strict` (cofactorless): `s` canonical
//!    (`s < L`; kyber accepts `s + L`, and bford's top-3-bits test admits it too), `R`
//!    canonical, `R` and `A'` not of small order, plus: at least one participant (bford
//!    warns that `ThresholdPolicy(0)` accepts an empty signature) and the policy. We do not use the draft's cofactored equation: with
//!    every roster key torsion-free (checked at registration) honest signatures pass both, and
//!    the cofactored check would additionally accept `R` with a torsion component, a
//!    malleability we do not want. Decoding errors are typed ([`quorate_core::DecodeError`]):
//!    wrong length, `R` not a point / non-canonical, `s` non-canonical, mask padding.
//!
//! ## 3. Keys, proofs of possession and plain key sums
//!
//! With `A = ΣA_i`, a participant that registers `A_evil = a·B − Σ_{honest} A_i` makes the
//! aggregate `a·B` and can sign "for everyone" alone. The draft and bford require a *self
//! signature* per key; cothority's unmerged PoP service (#1794) and its switch to BDN show the
//! alternatives. We require a **proof of possession** at registration:
//! `c = SHA-512("quorate/cosi/pop/v1" ‖ R ‖ A_i)`, `s = r + c·a_i`. The tag makes the hash
//! input start with bytes that an Ed25519/CoSi challenge `SHA-512(R ‖ A ‖ M)` never has in
//! that position for an honest `R`, so a PoP is not a signature and vice versa (tested
//! against ed25519-dalek). The proof is verified cofactored (`[8](sB − cA − R) = 0`): it
//! only has to show knowledge of `a_i` (extraction from two forks works modulo torsion and
//! `A_i` is torsion-free), and it lets [`crate::Roster::new`] batch all `n` proofs exactly in
//! one multi-scalar multiplication, with per-entry checks only to name culprits.
//!
//! Why PoP and plain sums rather than MuSig/BDN key coefficients `A' = Σ H(L, A_i)·A_i`:
//! the plain sum keeps `A` identical to what every existing CoSi verifier (kyber, bford)
//! computes, keeps `A'` incremental with a simple cache, and costs only once per roster.
//! Keys must also be canonical, not the identity, not of small order and **torsion-free**,
//! so every `A'` lies in the prime-order subgroup and a cofactorless verifier is
//! deterministic on honest signatures (small-order and malleable keys were real bugs in
//! earlier CoSi code).
//!
//! ## 4. Why two nonces
//!
//! In classic two-round CoSi the aggregate nonce `R = ΣR_i` is fixed before the challenge.
//! An attacker who opens many sessions with an honest witness collects many `R_i^(k)` and
//! chooses its own nonces and messages so that a combination of the honest responses forms
//! a signature on a new message (Wagner's generalized birthday, and the polynomial-time ROS
//! attack, ePrint 2020/945). Drijvers et al. (ePrint 2018/417) show CoSi cannot be proven
//! secure and give sub-exponential concurrent attacks; DEDIS noted forgeries with "a few
//! dozen" concurrent rounds and moved to BLS.
//!
//! **Two-nonce mode** ([`crate::Mode::TwoNonce`], the default) follows MuSig2 (ePrint
//! 2020/1261): each witness commits to `R1_i = r1·B`, `R2_i = r2·B`; the nonce actually used
//! is `r1 + b·r2` with
//!
//! ```text
//! b = SHA-512("quorate/cosi/nonce-coef/v1" ‖ roster_id ‖ mask ‖ A' ‖ R̂1 ‖ R̂2 ‖ M) mod L
//! R = R̂1 + b·R̂2,   c = SHA-512(R ‖ A' ‖ M),   s_i = r1 + b·r2 + c·a_i,   s = Σ s_i
//! ```
//!
//! Any change of the attacker's nonces, of the message or of the signer set changes `b`
//! and hence moves the honest nonce contribution unpredictably, which defeats the linear
//! combinations behind Wagner/ROS. The combination "MuSig2 nonces with PoP-registered keys
//! and a plain key sum" is, to our knowledge, the SpeedyMuSig variant analysed by Crites,
//! Komlo and Maller (ePrint 2021/1375); that reference is ours.
//! Our `b` hashes more than MuSig2's (roster id, mask, `A'`), which only narrows what an
//! attacker can vary. The output is still `(R, s)` under `A'` (§1).
//!
//! Rules that go with it:
//! * **Nonces are fresh and random** (tag [`crate::hash::DOMAIN_NONCE`]: 32 RNG bytes hashed
//!   with the secret key and the session context), never RFC 8032-deterministic: other
//!   witnesses' nonces change `b` and `c`, so a deterministic nonce answered under two
//!   challenges reveals `a_i`.
//! * **Single use, by construction**: [`crate::CommittedWitness`] is consumed by value, not
//!   `Clone`, zeroized on drop — also when a response is refused; a [`crate::Witness`]
//!   refuses to commit or respond twice in a session (bford's `Secret.valid`).
//! * **Every node recomputes** `A'`, `b`, `R` and `c` from the mask and the two sums
//!   ([`crate::ChallengeContext::derive`]; there is no way to build a context from the
//!   wire). Accepting the leader's challenge made original cothority witnesses signing
//!   oracles; ftcosi fixed it the same way.
//! * Each aggregator also checks that the challenge mask agrees, inside its subtree, with
//!   what its subtree committed, and a witness refuses a challenge whose mask omits it.
//!
//! [`crate::Mode::Legacy`] keeps classic CoSi (`b = 0`, one nonce, `R = R̂1`) to reproduce
//! the paper's protocol and numbers. It is broken by concurrent sessions: with the honest
//! nonce fixed before the message, a leader that opens `ℓ ≥ 253` sessions picks, per session,
//! one of two messages so that `Σ w_i c_i = H(Σ w_i R_i ‖ A ‖ M*)` with
//! `w_i = 2^i/(c_i^1 − c_i^0)` (ROS, ePrint 2020/945, §4), and `Σ w_i s_i` signs `M*`. In
//! two-nonce mode each session's nonce `R1_i + b_i·R2_i` moves with the message, which is what
//! MuSig2's proof uses. Hence only witnesses built with `new_insecure_legacy` (feature
//! `insecure-legacy`) sign legacy sessions.
//!
//! ## 5. Trees, exceptions and restarts
//!
//! **Layouts.** [`crate::Tree::complete`] (onet's `GenerateNaryTree`),
//! [`crate::Tree::with_depth`], and [`crate::Tree::three_level`] (root → `⌈√(n−1)⌉`
//! subleaders → leaves, ftcosi/blscosi: two levels expose the root, more add round trips).
//! The paper found latency falls with the branching factor, with computation dominating at
//! depth ≤ 3 (≈ 200 ms RTT per level on DeterLab); the paper's prototype did not optimise
//! computation.
//!
//! **Absent at commitment time**: left out through the mask; nothing else changes.
//! An absent interior node is replaced by its first live child, which adopts its siblings
//! ([`crate::Tree::repair`]; ftcosi promotes "the first leaf" after a timeout).
//!
//! **Committed, then silent or wrong** — the choice that matters. The paper's prototype used
//! an exception list (`RoundException`: parents subtract the failed subtree's key and
//! commitment and the verifier adds the exception commitments back), which is **not**
//! Ed25519-compatible. bford's code and the draft restart "with an adjusted mask"; ftcosi
//! fails the round and lets the caller restart. **We restart**: the parent names the
//! culprit, the leader drops it from the tree and the mask, and a new attempt runs with a
//! new session id and **fresh nonces** — old nonce states are dropped and zeroized, never
//! reused. Reusing them is not an option in either mode: a new mask changes `b` and `c`, and
//! two responses with the same nonces under different challenges reveal the key. The price
//! is one more commit/response round trip per wave of failures; the format stays plain
//! Ed25519. [`crate::sign_in_process`] implements this.
//!
//! **Per-child checks** (draft: interior nodes SHOULD check each subtree's partial response
//! and MUST abort on failure; ftcosi does not). [`crate::AggregatorCollecting::finish`]
//! checks `s_j·B = R1_j + b·R2_j + c·A'_j` for its own witness and each child subtree
//! (`A'_j` from [`crate::KeyTree`]'s cached subtree sums) in one random-weight batch
//! (128-bit weights, three multi-scalar multiplications), then individually to name every
//! culprit ([`quorate_core::Blame`], `PartyId = index + 1`). [`crate::ChildCheck::Optimistic`]
//! (the default since issue 19) checks the node's total `(Σs_j)·B = R̂1 + b·R̂2 + c·A'`
//! exactly first, and runs that audit only when it fails. Why this keeps the properties:
//! (1) the sum a node forwards is checked exactly against what its subtree committed (`R̂1`,
//! `R̂2` are the sums of the received commitments, `A'` comes from the roster and the
//! mask, never from a child), so a subtree's response is correct under both modes, and the
//! final signature is verified by the root anyway; (2) any set of wrong contributions whose
//! errors do not cancel makes the total fail, and then every wrong one is named by the
//! individual checks, as under `Batched`; (3) errors that cancel exactly need children of
//! the same node that agree on them (an error of `δ` must meet `−δ`), and leave the sum
//! the honest one: they change nothing a verifier or the leader sees, so not naming them
//! loses no blame that matters. Missing responses are named as well. Blame is only as good as the aggregator reporting it and assumes authenticated
//! channels; signed refusals and evidence (blscosi) are not implemented.
//!
//! **Stop at threshold / abort early** (cothority PR #1264, ftcosi `quickAnswer`): the
//! driver stops asking for commitments once the collected mask satisfies the policy, and
//! aborts before an attempt if the live witnesses can no longer satisfy it.
//!
//! **Per-subtree timeouts** (ftcosi waits `Timeout/2` for a subleader before rebuilding its
//! subtree). The in-process driver is synchronous, so silence there is immediate; the
//! networked version is `quorate_eval::cosi::sim::CosiNode` on the simulator. A node whose subtree has
//! height `h` waits at most `h × step` for its children in each phase (default step: four
//! one-way latencies plus one second), so a child's deadline always expires one step
//! before its parent's and the child reports what it has in time. At commitment time the
//! late children are left out through the mask; if the root's mask then misses the policy,
//! the leader presumes the topmost missing members down and restarts without them, and
//! [`crate::Tree::repair`] re-attaches their subtrees (subleader replacement). At response
//! time the missing or wrong contributors are named, a failure report goes up the tree
//! (a child may only name members of its own subtree, else it is blamed itself) and the
//! leader restarts with a new session, fresh nonces and the culprits excluded — the same
//! restart rule as above. Root failure is not handled (as in ftcosi).
//!
//! ## 6. Policies
//!
//! [`crate::Policy`]: `Complete` (kyber's default), `Threshold(t)`, and nested
//! `Group { k, members }` (C2SP tlog-policy `group <name> <k> …`, Sigsum). Policies are
//! validated against the roster; nesting is bounded.
//!
//! ## 7. Performance notes
//!
//! Nonces use `EdwardsPoint::mul_base` (precomputed tables); all checks on public data use
//! variable-time multi-scalar multiplication; `A`, subtree sums and recent mask aggregates are
//! cached. Costs per witness in two-nonce mode: two fixed-base multiplications (commit),
//! one variable-base multiplication `b·R̂2` plus two hashes over the mask (derive), and a
//! share of its parent's batch check. The second multiplication and `b·R̂2` are the price of
//! concurrency safety over legacy CoSi. For comparison, kyber's `sign/cosi`:
//! n = 8192, all phases 1008 ms, full verify 7.64 ms on 2 shared vCPUs.
//! [`crate::Scenario::shared_context`] lets a simulation derive the challenge context once
//! instead of once per witness, which is how a single-process benchmark avoids counting the
//! same derivation `n` times; a deployment cannot share it.
//!
//! ## 8. Zeroization limits
//!
//! [`crate::SecretKey`] and nonce states are zeroized on drop and redacted in `Debug`.
//! Not wiped: SHA-512 states that absorbed the secret during hedged nonce derivation,
//! temporaries the compiler places in registers or on the stack, and anything the caller
//! copies out ([`crate::SecretKey::to_bytes`] returns a self-wiping buffer). Responses
//! `s_i` are public.
//!
//! ## 9. Not implemented
//!
//! The paper's exception-list format; signed refusals; a cofactored verification option;
//! persisting the per-witness session guard across restarts of the process (a deployment
//! must store used session ids, or derive them from a monotonic counter); the C2SP
//! per-witness cosignature and BLS back ends.
