//! Notes: where each piece sits in the paper, and which artifact defects it fixes.
//!
//! The paper text was not available; figure and step numbers follow the design notes'
//! reconstruction of Figs. 6, 8 and 9 from the artifact (see `shared/design/traceable-mixnet.md`).
//!
//! # Paper map
//! | paper | code |
//! |---|---|
//! | Fig. 6 Keygen | [`crate::setup::keygen`] (DKG in [`crate::dkg`], permutation commitments in [`crate::shuffle`]) |
//! | Fig. 6 Enc | [`crate::sender::encrypt_for`], checked by [`crate::sender::check_input`] |
//! | Fig. 6 Mix | [`crate::mix::run`], verified by [`crate::mix::verify_record`] |
//! | Fig. 8 step 1 (BB signatures) | [`crate::membership::querier_sign`], [`crate::membership::check_query`] |
//! | Fig. 8 step 2 (re-encrypt, reverse-permute, shuffle proof) | [`crate::setup::MixServer::reverse_shuffle`] |
//! | Fig. 8 step 3 (homomorphic blinding with proofs) | `MixServer::blind`, [`crate::membership::BlindProof`] |
//! | Fig. 8 step 4 (threshold decryption) | [`crate::elgamal`] |
//! | Fig. 6 Enc (the senders' per-mixer shares) | [`crate::sharing`] (verifiable Enc-to-shares by the servers) |
//! | Fig. 8 step 5 (DPK_BB, distributed Schnorr) | [`crate::membership::DpkCommit`], [`crate::membership::DpkResponseStage`] |
//! | Fig. 8 querier | [`crate::membership::verify`] |
//! | Fig. 6 BTraceIn / BTraceOut | [`crate::trace::btrace_in`] (DB-SM over all inputs against the queried outputs `J`) / [`crate::trace::btrace_out`] (DB-RSM over the queried inputs `I`); checked from the evidence alone by [`crate::trace::verify_trace_in`] / [`crate::trace::verify_trace_out`] |
//! | Fig. 9 steps 2–3 (BBS+ quasi-signatures, batched check) | [`crate::reverse_membership::querier_quasi_sign`], [`crate::reverse_membership::check_quasi_signatures`] |
//! | Fig. 9 step 8 (Beaver multiplication for DPK_BBS+) | [`crate::beaver::deal_triples`], [`crate::beaver::verify_triples`], [`crate::beaver::beaver_check_openings`] |
//! | Fig. 9 step 8 (DPK_BBS+, distributed Schnorr in GT) | [`crate::reverse_membership::bbs_dpk_prove`], [`crate::reverse_membership::bbs_dpk_verify`]; the whole of Fig. 9 is [`crate::reverse_membership::run`] (servers) and [`crate::reverse_membership::verify`] (querier, public data only) |
//! | Fig. 9 steps 5–7 for the signatures (forward shuffle, blinding, decryption) | [`crate::reverse_membership::run_signature_track`], [`crate::reverse_membership::verify_signature_track`] |
//! | Fig. 9 steps 4–5 for `c`, `r` (Paillier witness list, forward shuffle) | [`crate::reverse_membership::witness_track::run_witness_shuffle`], [`crate::reverse_membership::witness_track::verify_witness_shuffle`] |
//! | Fig. 9 steps 6–7 for `c`, `r` (conversion to per-output shares) | [`crate::reverse_membership::witness_track::run_witness_track`], [`crate::reverse_membership::witness_track::verify_witness_track`] (per-value layout of [`crate::sharing`]); used by [`crate::reverse_membership::run`] as the DPK_BBS+ witnesses `c` and (via Beaver) `r′` |
//!
//! # The 14 artifact defects
//! | # | defect | status here |
//! |---|---|---|
//! | 1 | hard-coded Paillier primes | fixed: the dealer draws fresh safe primes from the caller's CSPRNG ([`crate::setup::keygen`]) |
//! | 2 | hard-coded single-key Paillier | fixed by design: no per-mixer Paillier keys; the servers' shares of each sender's opening come from a verifiable Enc-to-shares conversion of the threshold-Paillier ciphertexts ([`crate::sharing`]) |
//! | 3 | ≤ 17-bit seeds, Mersenne Twister | fixed: every secret from `RngCore + CryptoRng`; batching weights from `OsRng` |
//! | 4 | no DKG, m-of-m only | ElGamal: fixed (t-of-m joint-Feldman DKG); Paillier: dealer kept as a documented setup assumption |
//! | 5 | single process, no commit-then-reveal | partly: stages are separate messages with wire encodings ([`crate::wire`]), each server's stage is produced from its own state, but the driver runs all servers in one process (no network layer yet) |
//! | 6 | incomplete Fiat–Shamir | fixed: every transcript absorbs session id, protocol, version, generators, all lists and commitments (the DPK_BBS+ challenge binds `v′`, `S̃`, `y`, `f1`, `f2` and every server's `Y_k`, `T_k`, `U_k`, which the artifact's omitted) |
//! | 7 | element 0 of decryption proofs skipped | fixed: every element, element 0 included, is covered by a verified share (one per packed group of outputs for Paillier, [`crate::packing`], all of a server's shares under one batched proof, see below; one per element for ElGamal) |
//! | 8 | Paillier decryption-share proof not ZK | fixed in `quorate-paillier` (mask sized from `|n²| + |Δ|` + challenge + slack); regression test `defect_8_decryption_share_proofs_are_zero_knowledge` |
//! | 9 | 20-bit statistical slack | fixed: 40 bits ([`crate::params::SLACK_BITS`]) |
//! | 10 | 80-bit challenges, 2050-bit N, BN254 | fixed: 128-bit challenges and weights, BLS12-381, production N ≥ 3072 bits |
//! | 11 | no `S_i ≠ 1` check | fixed: `S_i = 1` means "not a member" only via the verified decryption; `S_i` is recomputed by the querier; DB-RSM quasi-signatures `S_i = 1` and `y = 1` are rejected ([`crate::reverse_membership::check_quasi_signatures`]); at non-members (DB-SM `S_i = 1`, DB-RSM `S̃_j = 1`) the servers open their committed blinding shares so the querier checks `Σ_k b_k ≠ 0` (all servers colluding cannot hide a member behind a zero blinding; [`crate::membership::NonMemberOpening`]) |
//! | 12 | querier checks only the DPKs | fixed: [`crate::mix::verify_record`] and [`crate::membership::verify`] check every shuffle, blinding, decryption and DPK share |
//! | 13 | no sender consistency proof | fixed: [`crate::sender::LinkProof`] links `c`, `c′`, `γ` |
//! | 14 | no subgroup / encoding checks | fixed: every message has a versioned encoding whose decoder checks lengths against the context, subgroup membership and identity of every point, canonical scalars, Paillier ranges and units, and integer bit bounds, with typed errors ([`crate::wire`], [`crate::shuffle::ShuffleProof::from_bytes`]) |
//!
//! # Performance levers (issue 17) and why each keeps every check
//!
//! **Batched Paillier decryption shares** (`quorate_paillier::batch`, wire version 4). Each
//! server sends its shares of all packed groups of a stage (Mix outputs, Enc-to-shares) with
//! one Chaum–Pedersen proof for `log_{X⁴} Y² = log_v v_k`, where `X = Π_j c_j^{ρ_j}`,
//! `Y = Π_j c_{k,j}^{ρ_j}` and the 128-bit weights `ρ_j` come from a transcript that binds
//! the session id, protocol, version, key fingerprint, server, count, every ciphertext and
//! every share. If any single share were wrong, the weighted product hides it with
//! probability at most `2^{−128}` (the error terms live in `QR_{N²}`, whose order has no
//! prime factor below `2^{128}`; argument in that module). Since wire version 8 the proof
//! travels as `(a, b, z)` and the checker (every server and the querier) verifies **all
//! servers' proofs of a list at once** with independent 128-bit weights `β_k, γ_k` from
//! `OsRng`: one interleaved multi-exponentiation `Π_k X_k^{4β_k z_k}` over the `m` bases
//! instead of `m` full-length `X_k^{4z_k}`, one table-backed `v^{Σγ_k z_k}`. Both sides
//! are compared squared, like the single check, so the batch accepts exactly the lists the
//! one-by-one checks accept, except with probability `2^{−128}`; errors that colluding
//! servers choose to cancel in an unweighted product are caught as well (argument and
//! test in `quorate_paillier::batch`). A failing combination falls back to each server's
//! own check, which names exactly the failing servers (tests
//! `mixing::bad_decryption_share_is_named`,
//! `mixing::combined_decryption_check_names_exactly_the_bad_servers`,
//! `threshold::batches_of_all_parties_checked_at_once_name_exactly_the_bad_ones`). All of
//! this needs the dealer's safe primes (no small-order subgroups in `QR_{N²}`), the setup
//! assumption of [`crate::setup`]. The artifact uses the same Bellare–Garay–Rabin batching
//! with 80-bit weights inside one server's proof and checks the servers one by one.
//!
//! **Fixed-base encryption randomness** ([`crate::djn`], wire version 5). The servers'
//! Enc-to-shares masks are encrypted as `(1 + N)^{a + 2^K a′}·h_N^α` with the public
//! `h_N = (−x²)^N mod N²` (`x` hashed from the Paillier key) and `α < 2^{⌈|N|/2⌉}` (1536 bits
//! at `|N| = 3072`): the DJN variant of the artifact, whose 1025-bit `α` at a 2050-bit `N`
//! is the same `|N|/2` rule. Assumption: DCR plus DJN's short-exponent assumption (a
//! `⌈|N|/2⌉`-bit exponent of `h_N` looks like a full one); the best known attack on an
//! `ℓ`-bit exponent in a group of unknown order is generic, `2^{ℓ/2}` steps, so 1536 bits
//! leave a wide margin over the 256 that 128-bit security needs. Mask of the link proof
//! for `α`: `|α| + 128 + 40` bits (witness + challenge + statistical slack, not the
//! modulus); the response `z_α = β + c·α` is an integer checked against
//! `2^{|α|+128+40+1}`. Soundness does not depend on the assumption: the extractor needs
//! only that `h_N^{z}` is an `N`-th power. Prover: comb table with full-row scans
//! (`FixedBaseCt`, ≈ 384 multiplications mod `N²` instead of ≈ 3072 squarings for `r^N`);
//! verifier: Yao table (`FixedBase`) for the public `z_α`.
//!
//! **Fixed-base re-randomisation in the Paillier shuffles** (Mix and the DB-RSM witness
//! shuffle, [`crate::shuffle`], shuffle-proof version 2). Output `i` is
//! `w_{π(i)}·h_N^{α_i}` with `|α_i| = ⌈|N|/2⌉` (same tables and assumption as above)
//! instead of `w_{π(i)}·ρ_i^N`. The proof's Paillier response becomes the integer
//! `k_F = φ + v·Σ_i e′_i α_i` with the mask `|φ| = |α| + 128 + 20 + 128 + 40` bits (the
//! witness `Σ e′_i α_i` has at most `|α| + 128 + log₂ MAX_SENDERS` bits; challenge;
//! statistical slack), checked as `0 ≤ k_F < 2^{|φ|+1}` and
//! `F^v F′ h_N^{k_F} = Π w′_i^{k_{E,i}}`. Soundness: the extractor only needs
//! `h_N^{Δk_F}` to be an `N`-th power (Bézout with `gcd(Δv, N) = 1`), so the range of
//! `k_F` and the short exponents play no role in it; zero knowledge is statistical
//! (`2^{−40}`). The prover's per-element `ρ^N` (≈ 3072 squarings mod `N²`) becomes a
//! comb-table product (≈ 427 multiplications); the verifier's `k_F^N` becomes a Yao-table
//! `h_N^{k_F}`.
//!
//! **Fixed-base encryption for the senders** ([`crate::sender`], wire version 6, link-proof
//! transcript version 2). A sender encrypts as `c = (1 + N)^v·h_N^{ρ₁}`,
//! `c′ = (1 + N)^r·h_N^{ρ₂}` with `|ρ_j| = ⌈|N|/2⌉` (same tables and assumption as above:
//! DCR plus DJN's short-exponent assumption for hiding), and the link proof's Paillier
//! parts answer with integers `z_{ρj} = β_j + e·ρ_j` (mask `|β| = |ρ| + 128 + 40` bits:
//! witness, challenge, statistical slack; checked `0 ≤ z_{ρj} < 2^{|β|+1}`) instead of
//! `w_j = μ_j ρ_j^e ∈ Z_N^*`; the transcript binds `h_N`. The verifier checks
//! `(1 + N)^{z_v} h_N^{z_{ρ1}} = A₁ c^e` with the Yao table. Soundness needs only that
//! `h_N^z` is an `N`-th power for every integer `z` (argument in [`crate::sender`]), so the
//! extracted plaintexts are the same integers as before; zero knowledge is statistical
//! (`2^{−40}`). Prover: four comb-table products instead of four `r^N` (≈ 3072 squarings
//! each); verifier: two Yao-table `h_N^z` instead of two constant-time `w^N`.
//!
//! **Batch verification of the senders' proofs** ([`crate::sender::check_inputs`]). All
//! link-proof equations of a list are checked with three weighted products (G1 MSM, one
//! multi-exponentiation mod `N²`, one mod `Ñ`, 128-bit weights from `OsRng`); a failing
//! batch falls back to one-by-one checks that name every bad position. The Paillier and
//! ring-Pedersen equations hold up to a factor of order ≤ 2 on both paths (argument there),
//! so the batch accepts exactly what the single check accepts.
//!
//! **Batch verification of the Mix chain's shuffle proofs** ([`crate::shuffle::verify_chain_batch`],
//! run first by [`crate::mix::verify_mixing`], so by every server, the querier and the DB-RSM
//! witness shuffle's check; no wire or transcript change). After each proof's shapes, ranges,
//! units and challenges, the `3m` equations of the `m` proofs are three weighted products:
//! one G1 MSM over every proof's terms (their own 128-bit weights), one multi-exponentiation
//! mod `Ñ` over the shared bases `s_i` (`Σ_k β_k k_{E,k,i}`) with one `t^{Σβ_k k_{μ,k}}`, and
//! one signed multi-exponentiation mod `N²` over the `m + 1` lists, where server `k`'s
//! `F_k^{v_k}` and server `k − 1`'s `Π w′^{k_E}` share their bases (one exponent per
//! ciphertext), with one `h_N^{Σγ_k k_{F,k}}`. Independent 128-bit weights from `OsRng`,
//! both sides compared squared; a failing batch falls back to each proof in order, which
//! names the first failing server as before. The single check compares the ring-Pedersen
//! and Paillier equations squared too (argument in [`crate::shuffle`]'s soundness note,
//! "errors of order ≤ 2"), so both paths accept the same proofs. Test:
//! `mixing::chain_batch_check_agrees_with_the_single_checks` (one bad link per product,
//! cancelling errors of two links, the culprit named). Needs the dealer's safe primes for
//! `N` and `Ñ`, as every batch here.
//!
//! **Fixed-base tables in the shuffle prover** (issue 17, session 14; same proofs). The G1
//! chain terms `B_i = g^{d_i} h_0^{p_i}`, `B′_i`, `C′`, `D′` through process-wide
//! constant-time tables of the hashed `g`, `h_0` ([`crate::params::Generators::g_h0_mul_ct`]),
//! `A′` and the ElGamal `F′` by interleaved windows with constant-time selects; the vector
//! key's `t^μ`, `t^{μ′}` through a comb table of `t` kept per process
//! ([`crate::ring_pedersen::VectorKeyTables`], Yao table for the verifiers' `t^{k_μ}`); the
//! shuffle mask's `h_N^φ` through the DJN comb table, which now covers `|φ|`. The comb
//! tables have the constant-time status documented on `FixedBaseCt` (lookups constant
//! time, GMP products not promised), as the encryption randomness `h_N^α` already had.
