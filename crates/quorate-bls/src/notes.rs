//! # Math notes: hot/cold threshold BLS with key-share proofs
//!
//! Sources: the paper's evaluation section (Tables 1–3, here
//! "Table 1" = algorithms independent of `(t,n)`, "Table 2" = per-`(t,n)` algorithms,
//! "Table 3" = proof sizes) and the public reference implementation
//! (`agora-key-share-proofs`, "§1 item k" = its algorithm k: 1 ColdRegister,
//! 2 ClientRegister, 3 TSign, 4–5 trusted/untrusted refresh, 6 Π_DL, 7 Π_EKS). Which of the
//! reference's defects each choice avoids is recorded in `docs/decisions.md`.
//!
//! ## Groups and ciphersuite
//! BLS12-381, `G1` (48 B compressed), `G2` (96 B), scalars mod `r` (32 B, big-endian,
//! canonical). Signatures use `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_`: `σ ∈ G1`,
//! `vk = sk·g2`, `H = hash_to_curve_G1` (RFC 9380), verification
//! `e(σ, g2) = e(H(m), vk)`, proof of possession with the `POP` DST
//! ([`crate::ciphersuite`]). Every final signature is also checked against `blst`'s own
//! verifier in the tests.
//!
//! ## Evaluation points
//! `N = next_pow2(max(n,2))`, `ω` of order `N`, party `i` at `z_i = ω^(i−1)`. Shamir
//! sharing, Lagrange combination, KZG openings and the SCRAPE check all use these points;
//! there is one [`crate::kzg::Domain`] object, so `n` a power of two works.
//!
//! ## KZG setup (no trusted dealer)
//! [`crate::kzg::ceremony`]: a sequential powers-of-tau ceremony. Contributor `k` maps
//! `[τ^j]_{1,2} ↦ [τ^j τ_k^j]_{1,2}` and publishes `U = τ_k·g1`, `V = τ_k·g2` and a Schnorr
//! proof of knowledge of `τ_k`. Checks: `e(U,g2) = e(g1,V)`,
//! `e([τ']_1, g2) = e([τ]_1, V)`, and the structure of all powers by one random linear
//! combination per group. `τ = Π τ_k` stays unknown unless all contributors collude.
//! A CRS exists only as the output of [`crate::kzg::Crs::from_transcript`], which
//! verifies a whole ceremony transcript: at least two contributions, none trivial
//! (`τ_k = ±1`) or repeated, every step as above, and a final `τ` with `τ ≠ 0` and
//! `τ^N ≠ 1` (checked as `e([τ^{N−1}]_1, [τ]_2) ≠ e(g1, g2)`), which excludes `τ = ±1` and
//! every evaluation point. The CRS id is SHA-256 of the transcript; every
//! [`crate::group::GroupPublic`] records it and is refused under any other CRS.
//! The demo and benches call [`crate::kzg::ceremony::run_in_process`]: several contributors
//! in one process, each drawing `τ_k` from the OS RNG (never from a caller's or seeded
//! RNG, so no seed reproduces `τ`) and erasing it after contributing; `τ` itself is never
//! formed. That protects against later compromise, not against a host compromised during
//! the run; a deployment runs `contribute` on separate machines and exchanges
//! contributions. Published Ethereum KZG powers were not used: they provide only 65 G2
//! powers and 4096 G1 powers, and the degree proof below needs `D = N−1` to be the
//! largest committable degree, which a 4096-power SRS would not give for `n ≤ 100`.
//!
//! ## ColdRegister (Table 1 row 1; §1 item 1)
//! `dk_i ← Z_r^*`, `ek_i = dk_i·g2`. **One key** (32 B / 96 B, the paper's sizes), not
//! the reference's two. The pad is `k_i = H_pad(dk_i·vk ‖ vk ‖ ek_i ‖ i)` with
//! `H_pad = hash_to_field` (XMD-SHA-256, DST [`crate::cold::DST_PAD`]), instead of the
//! reference's fixed-seed universal hash of two DH values. Justification: the pad only has
//! to be pseudorandom to anyone lacking `sk` and `dk_i`; with the hash as a random oracle
//! this follows from CDH in G2, and binding `vk`, `ek_i`, `i` separates clients, parties and
//! keys. The cost: one G2 multiplication per client for the cold party, cached.
//!
//! ## ClientRegister (Table 2 row 1; §1 item 2)
//! Input: [`crate::register::VerifiedColdKeys`], built only by checking every cold party's
//! registration (`ek_i` with a Π_DL proof bound to its index and a fixed registration
//! context) and that no key repeats, so no pad is derived from a key nobody can prove
//! knowledge of or from a copy of another party's key.
//! 1. `f(X) = sk + a_1 X + … + a_{t−1} X^{t−1}`, `x_i = f(z_i)`.
//! 2. `k_i` as above from `sk·ek_i`; `hx_i = x_i + k_i`; `vs_i = x_i·g2`.
//! 3. `T` is the unique polynomial of degree `< n` with `T(z_i) = hx_i` (`i ≤ n`):
//!    Newton's divided differences over the public points `z_i = ω^(i−1)`, `O(n²)` field
//!    operations independent of the values (one inverse FFT when `n = N`; the reference
//!    interpolates in `O(n³)`). Nothing checks `T` off the party points: the hot
//!    parties check their own openings at `z_i`, Π_EKS proves an opening at `z_i`, and a
//!    refresh adds a `δ` of degree `≤ t − 1` that is not zero there either. Any fixed
//!    choice of `T` through the `hx_i` (for example degree `< N` with `T = 0` on the
//!    `N − n` unused domain points) is the same kind of deterministic linear function of
//!    `(hx_1, …, hx_n)`, so `com_T` and the openings reveal nothing more with the lowest
//!    degree; it makes the openings cheaper (the direct quotients have `n − 1` terms
//!    instead of `N − 1`, and at `(5, 20)` FK runs on a Toeplitz block of 16) and `com_T`
//!    `n` terms instead of `N`.
//! 4. `com_T = Σ T_j [τ^j]_1` (constant-time per term: `T` is secret).
//! 5. Openings at all points by Feist–Khovratovich: with `d = N−1`,
//!    `π(z) = Σ_{i<d} h_i z^i`, `h_i = Σ_{k=0}^{d−1−i} T_{i+1+k} [τ^k]_1`; `h` is a Toeplitz
//!    product computed as a size-`2N` cyclic convolution with the reversed SRS, whose FFT is
//!    stored in the [`crate::kzg::Crs`]; then `π = FFT_N(h)`, with the inverse size-`2N`
//!    and the forward size-`N` G1 FFTs fused into two size-`N` ones
//!    ([`crate::kzg::Crs::open_all_ct`]). Only the `n` parties' openings are formed: the
//!    even frequencies enter `π_k` without an FFT, so those with `k ≥ n` are skipped. Cost:
//!    `N + n` constant-time G1 multiplications plus `N·log N − N + 1` multiplications by
//!    public twiddles (GLV, variable time in the twiddle only); at `(3, 5)` the cost model
//!    picks one direct quotient per party instead ([`crate::kzg::Crs::open_parties_ct`]).
//!    No debug re-check in the hot path.
//!
//! 6. The client's **registration authorisation** `σ_reg`: a BLS signature on
//!    `"quorate/bls/register/v1" ‖ digest(record)` under its own DST
//!    ([`crate::register::DST_REGISTER`]); the digest binds the CRS id, `(t, n)`, the
//!    epoch, `vk`, the PoP, `com_T` and every `vs_j`.
//!
//! **Who checks what at registration, and why that is enough.** The paper lists no
//! hot-side registration cost at all: ClientRegister is the client's row of Table 2, and
//! Table 1's per-party rows are ColdRegister, TSign, the hot refresh (its own
//! `Π_Ref.HVrfy`) and the cold proofs. For refresh, Table 3's caption splits the checks:
//! "the element `π_z` \[is\] checked by the party maintaining the public parameters …
//! while the `i`th party's share refresh proof (i.e., `π_i`) is checked by `P_i^hot`".
//! Registration is split the same way (§Refresh, "Who checks what"), each check placed
//! with the party it protects:
//! * *Hot party `i`, for its own share and its own accountability*
//!   ([`crate::HotParty::check_registration`], [`crate::HotParty::register`]): the payload
//!   and `K_i` are addressed to `i`; the record is under this CRS; its own KZG opening
//!   `e(com_T − hx_i·g1, g2) = e(π_i, [τ]_2 − z_i·g2)` (so every Π_EKS proof it makes
//!   verifies against the record: an audit can never blame it); `hx_i·g2 = vs_i + K_i`
//!   with the cold partner's `K_i` from `ColdParty::add_client` (so the share behind
//!   `vs_i` is `hx_i − k_i` and its partial signatures verify against `vs_i`: the combiner
//!   can never blame it; a cold party that later signs with a wrong pad is still caught at
//!   signing against `K_i` and named); and the client's authorisation `σ_reg` under `vk`
//!   (so the record, hence `com_T`, `vs_i` and `vk` it just checked, is the one the key's
//!   owner dealt, not one made up by anybody else naming the client's `vk`). The opening
//!   and the authorisation are **one 3-term multi-pairing** with a random 128-bit weight
//!   `r`, written against the per-party base `z_i·g2 − [τ]_2` kept with the CRS, exactly
//!   like the hot refresh check:
//!   `e(com_T − hx_i·g1 + r·σ_reg, g2)·e(π_i, z_i·g2 − [τ]_2)·e(−r·H(reg), vk) = 1`
//!   (a failure of either equation passes with probability `≤ 2^-128`; on failure the
//!   authorisation is checked alone to say which). `hx_i·g1` and `hx_i·g2` are
//!   constant-time fixed-base multiplications (`hx_i` is secret). Nothing in it grows
//!   with `n`: the party reads only `vk`, `com_T` and its own `vs_i` of the record
//!   ([`crate::PartyRecord::from_bytes`] decodes only those points and hashes the exact
//!   bytes for the digest, so its outputs name exactly the record it checked).
//! * *The record's users, for the record and for everyone* ([`crate::GroupPublic::validate`]:
//!   the combiner, any auditor, `quorate bls audit`): the PoP of `vk` and the SCRAPE check
//!   below, i.e. that the `vs_j` are a degree-`(t−1)` sharing of `vk`. With
//!   `α_0 = 0, α_j = z_j`, `V_0 = vk, V_j = vs_j`: `Σ_j v_j f(α_j) V_j = 0` for a random
//!   `f` of degree `≤ n−t`, `v_j = Π_{k≠j}(α_j−α_k)^{-1}`. A size-`n+1` G2 MSM and
//!   `O(n²)` field operations, plus decoding all `n` points: this is what used to make
//!   every hot party's registration grow with `n`.
//! * *Why a failure of a global property cannot hurt an honest hot party.* Such a record
//!   can only come from the client (it is authorised under `vk`), who knows `sk` anyway.
//!   An inconsistent `vs` (or a bad PoP) only makes the shares not combine to a signature
//!   under `vk`: availability of the client's own key. Party `i`'s own checks still make
//!   its partials verify against its `vs_i` and its Π_EKS against `com_T`, so it is never
//!   blamed; a party whose own data is wrong refuses the registration and names the
//!   client and the record digest. Nothing inconsistent is ever **used**: partials and
//!   proofs name the record digest, and the record is checked as a whole by whoever
//!   relies on it as a whole (an auditor runs `validate` before it asks any hot party; the
//!   combiner checks each partial against `vs_i` and the final signature under `vk`, so
//!   an inconsistent `vs` yields `ProofRejected`, never a signature). Test:
//!   `bad_registrations_are_refused` (the party whose data is wrong refuses, the others
//!   accept, `validate` refuses the record).
//! * A hot party that rebuilds its state from storage ([`crate::HotParty::restore`]) runs
//!   its own checks again without the authorisation, which signed the epoch-0 record;
//!   every later record was reached by refreshes the party checked and committed.

//! ## TSign (Table 1 row 2; §1 item 3)
//! Cold: `σ_i^cold = k_i·H(m)` (pad cached; the reference recomputes the two DH values and
//! the 1536-term hash on every call). Hot: first `e(σ_i^cold, g2) = e(H(m), K_i)` (a bad
//! cold partial aborts naming cold party `i`), then `σ_i = hx_i·H(m) − σ_i^cold = x_i·H(m)`,
//! tagged with the epoch and the digest of the hot party's record `(epoch, com_T, vs, …)`.
//! Combiner ([`crate::sign::combine`]): check the quorum (`≥ t` distinct known ids); set
//! aside partials tagged with another epoch or record digest (out of step, not blamed) and
//! go on if `t` remain, else a typed `StateMismatch` naming them; batch-check
//! `e(Σ r_iσ_i, −g2)·e(H(m), Σ r_i vs_i) = 1`, on failure check each and abort naming all
//! culprits; then `σ = Σ_{i∈S} λ_i(0) σ_i` over the first `t` partials, and verify `σ`
//! under `vk`.
//!
//! ## Refresh (Table 1 row 3, Table 2 row 2; §1 items 4–5)
//! The client plays the paper's trusted functionality `F_s` and deals the refresh
//! ([`crate::client::Client::refresh`]); "trusted" and "untrusted" refresh are one path
//! here: the dealer is authenticated (the client's BLS signature under a dedicated DST on
//! `(record digest, epoch, refresh id)`, the refresh id being SHA-256 of the whole public
//! part, so it cannot be forged by a thief of hot shares nor replayed on another key,
//! epoch or CRS), *and* every check of the reference's untrusted mode is mandatory.
//! Dealer: `δ` random, `δ(0) = 0`, `deg δ ≤ t−1`. Public: `C_δ = [δ(τ)]_1`, zero opening
//! `π_0 = [δ(τ)/τ]_1`, degree proof `dcom = [δ(τ)·τ^{D−t+1}]_1` (`D = N−1` the CRS maximum),
//! `Δvs_j = δ(z_j)·g2` and the openings `π_δ,j` of every party (FK, or for small `t` one
//! quotient `(δ − δ(z_j))/(X − z_j)` per party, whichever costs fewer multiplications). Private to `i`: only
//! `δ_i = δ(z_i)`. (The openings can be public: `Δvs_j` already fixes `δ(z_j)` in G2, and
//! `π_δ,j` adds nothing about it.)
//!
//! Checks of the public part ([`crate::group::GroupPublic::refreshed`], run once per
//! refresh by the record maintainer: the combiner, any auditor): next epoch; the record
//! digest; `C_δ ≠ 0`;
//! authorisation `e(σ_auth, g2) = e(H(auth), vk)`; `e(C_δ, g2) = e(π_0, [τ]_2)` (so
//! `δ(0) = 0`); `e(dcom, g2) = e(C_δ, [τ^{D−t+1}]_2)` (so `deg δ ≤ t−1`: a higher degree
//! would need `[τ^{>D}]_1`); and for every `j` the KZG opening with the value in G2 (the
//! eVSS form of Kate–Zaverucha–Goldberg 2010):
//! `e(C_δ + z_j π_δ,j, g2) = e(π_δ,j, [τ]_2)·e(g1, Δvs_j)`, so `Δvs_j = δ(z_j)·g2` for the
//! committed `δ`. This ties every `Δvs_j` to `C_δ` (the SCRAPE check alone would only show
//! that the `Δvs_j` share *some* polynomial of degree `≤ t−1` through 0). All of these are
//! one multi-pairing with independent random 128-bit weights (five pairings, a G1 MSM of
//! size `n+3`, one of size `n+1` and a G2 MSM of size `n`); soundness error `≤ 2^-128`
//! beyond KZG binding. If it fails, each equation is checked alone to say which.
//!
//! Hot party `i` ([`crate::hot::HotParty::refresh`]) checks the envelope (share addressed
//! to `i`, next epoch, CRS, record digest, `C_δ ≠ 0`), `Δvs_i = δ_i·g2`, and one 3-term
//! multi-pairing over its **own** opening with the secret value (weight 1) and the client's
//! authorisation (128-bit weight `r`):
//! `e(C_δ − δ_i g1 + r σ_auth, g2)·e(π_δ,i, z_i·g2 − [τ]_2)·e(−r H(auth), vk) = 1`
//! (the opening equation `C_δ − δ_i g1 = (τ − z_i)·π_δ,i` written against the per-party
//! base `z_i·g2 − [τ]_2` as in Π_EKS, so no `z_i·π_δ,i` is computed; all three G2
//! arguments are prepared once). `δ_i·g1` and `δ_i·g2` use constant-time fixed-base
//! tables of the generators. Nothing in it grows with `n`. The next state is `hx_i + δ_i`,
//! `π_i + π_δ,i` and the maintainer's record `com_T + C_δ`, `vs_j + Δvs_j` (below). The pads and cold keys never change.
//!
//! **Who checks what, and why that is enough.** The paper splits the refresh proof the
//! same way: "the element `π_z` \[is\] checked by the party maintaining the public
//! parameters (in our case `C`, but it could also be e.g., a blockchain smart contract),
//! while the `i`th party's share refresh proof (i.e., `π_i`) is checked by `P_i^hot`"
//! (caption of the proofs table, Table 3; Table 1's hot refresh row includes only
//! `Π_Ref.HVrfy`, the party's own refresh proof). Here each check is placed with the party
//! it protects:
//! * *Hot party `i`, for its own share and its own accountability:* the authorisation (so
//!   nobody but the client, in particular not a thief of hot shares, can make it move to
//!   a state the thief knows the update of, even together with a corrupt maintainer);
//!   its own opening (its new share `hx_i + δ_i` still opens `com_T + C_δ` at `z_i`, so
//!   its later Π_EKS proofs hold); `Δvs_i = δ_i·g2` (its own `vs_i` in the next record
//!   is right, so no record it commits to can make its honest partial signatures look
//!   wrong: partials name the signer's record digest). These are the checks whose
//!   failure would hurt party `i` itself (secrecy of its share, blame of it), so no
//!   other party can be trusted with them.
//! * *The record maintainer, for the record and for everyone:* the global properties of
//!   `δ`, which are the same for every party: `δ(0) = 0` (zero opening), `deg δ ≤ t−1`
//!   (degree proof), every `Δvs_j` against `C_δ` (a size-`n` G2 MSM: about 3 ms at
//!   `n = 100`), and all of the party checks above again, because the record it holds is
//!   what partial signatures and Π_EKS proofs are checked against. A failure of a global
//!   property cannot expose a share or frame an honest party: a refresh is dealt only by
//!   the client (authorisation, checked by every party), who knows `sk` anyway; a
//!   `δ(0) ≠ 0` or `deg δ ≥ t` only makes the new shares stop combining to a signature
//!   under `vk` (availability), and party `i`'s own checks still guarantee that its new
//!   share, opening and `vs_i` agree, so its partials verify against its record.
//!   (Issue 19 moved the zero and degree checks here from every hot party: the hot
//!   refresh had carried them as two extra Miller-loop terms; the reference's
//!   `refresh_untrusted` checks only the own opening.)
//! * *The property that a refresh leaving an inconsistent record (a `vs_j` that is not
//!   `δ(z_j)·g2` added to the old one, `δ(0) ≠ 0` or `deg δ ≥ t`) is caught before any
//!   honest party commits it* is kept by the commit rule: [`crate::HotParty::commit`]
//!   needs, besides `t` confirmations, [`crate::refresh::PendingRefresh::accept_record`]
//!   with the record the maintainer obtained from `refreshed`. That record is an
//!   [`crate::AcceptedRecord`], a type only `refreshed` creates, so the rule holds at the
//!   type level: a party cannot "accept" a record nobody checked (review finding F3; the
//!   `compile_fail` doctest on `accept_record`). `refreshed` also writes into it the
//!   digest of the record it started from and the id of the refresh it applied; the
//!   party accepts it only if they are its own current digest and the refresh it checked,
//!   so a corrupt maintainer cannot substitute another record (the next record is a
//!   deterministic function of the two, and both are SHA-256 over full encodings). The
//!   party therefore never builds the next record itself (issue 19, session 12: that was
//!   `n` G2 additions and a re-encoded, re-hashed record, the part of its refresh that
//!   grew with `n`); before, it compared the maintainer's digest with its own rebuilt one,
//!   which binds the same thing.
//!   The maintainer only has such a record if every check passed, so such a refresh never
//!   reaches a commit (`RefreshNotAccepted`; tests
//!   `an_inconsistent_delta_vs_is_caught_before_any_honest_party_commits` and
//!   `bad_refreshes_are_rejected_and_change_nothing`). A party with no maintainer to
//!   answer to runs `refreshed` itself and accepts its own result (the node does).
//!   What trusting the maintainer's acceptance can cost: a corrupt maintainer colluding
//!   with a corrupt client can make honest parties commit a refresh that breaks a global
//!   property or a `vs_j` of *another* party `j`; party `j` refuses the latter (its own
//!   `Δvs_j` check) and stays at the old record, so it is never blamed (digests differ:
//!   `StateMismatch`), and the harm is availability of the client's own key, which either
//!   of the two could deny anyway (the client by never signing, the maintainer by never
//!   combining). Secrecy of shares, unforgeability and blame of honest parties do not
//!   depend on the maintainer.
//!
//! **Echo and commit.** The checked state is a [`crate::refresh::PendingRefresh`]: the party
//! keeps signing with its old state and sends every other hot party a confirmation
//! `(i, record digest, epoch, refresh id, σ_auth)`. It commits (the old hot share is then
//! dropped and wiped) only once `t` parties, itself included, confirmed the same refresh
//! id and the maintainer's record was accepted (above). A confirmation for another
//! refresh id of the same record and epoch that carries a valid client signature is evidence that the client equivocated (checkable by anyone
//! with `vk`); the party then never commits. One without a valid signature blames its
//! sender. Waiting for `t` means no party erases its old share unless `t` parties hold the
//! new state, i.e. unless the new state can sign.
//!
//! **Equivocation cannot frame an honest party.** If a client deals two valid refreshes
//! to two camps, each camp's partials and Π_EKS proofs carry its own record digest. A
//! combiner or auditor holding the other record sees a digest mismatch and sets them aside
//! (typed `StateMismatch`, no blame) instead of checking them against the wrong `vs_i`.
//!
//! ## Π_DL: cold proof (Table 1 rows 4–5, Table 3 row 1; §1 item 6)
//! Schnorr in G2 for `ek_i = dk_i·g2`: `A = a·g2`, `c = FS(…)`, `z = a + c·dk_i`
//! (the nonce `a` is hedged: drawn from a merlin transcript RNG keyed by the statement,
//! the witness and fresh randomness; Π_EKS does the same); verify
//! `z·g2 = A + c·ek_i`. 96 + 32 = 128 B (the paper's 256 B is the two-key variant). The
//! merlin transcript binds protocol name and version, session id, `block_id`, party index,
//! `ek_i` and `A`. Batch verification: one G2 MSM with random 128-bit weights.
//!
//! ## Π_EKS: hot proof (Table 2 rows 3–4, Table 3 row 2; §1 item 7)
//! Statement `(record digest, com_T, i, z_i, vk)`, witness `(hx_i, π_i)`. Pedersen `P = hx_i·g1 + ρ·h`,
//! Schnorr `A = s_1 g1 + s_2 h`, `t_1 = s_1 + c·hx_i`, `t_2 = s_2 + c·ρ`; blinded opening
//! `π' = π_i + s·h` and `S = (s z_i − ρ)·g2 − s·[τ]_2`. Verify `A + cP = t_1 g1 + t_2 h` and
//! `e(com_T − P + z_i π', g2)·e(π', −[τ]_2)·e(h, −S) = 1`, which holds because
//! `com_T − hx_i g1 = (τ − z_i)·π_i`. A single verification evaluates it as
//! `e(com_T − P, g2)·e(π', z_i·g2 − [τ]_2)·e(h, −S) = 1` (the same product by
//! bilinearity), with `z_i·g2 − [τ]_2` prepared once per party and kept with the CRS, so
//! no `z_i·π'` is computed per proof. The challenge binds every statement element and every
//! proof element. 304 B, sent with the 32-byte record digest it is stated against, so an
//! auditor holding another record state gets a typed `StateMismatch`, not blame.
//! Batch verification of `n` proofs: one G1 MSM and one 3-pairing
//! product.
//!
//! ## Constant time
//! Secret scalars (shares, pads, polynomial coefficients, nonces) are only multiplied with
//! `blst`'s constant-time scalar multiplication ([`quorate_core::bls12_381::msm`] `*_ct`), never with
//! Pippenger. `*_vartime` functions touch public data only.
//!
//! ## Known answers and interoperability (`tests/bls/kat.rs`)
//! Hash-to-curve: RFC 9380 Appendix J.9.1 (`BLS12381G1_XMD:SHA-256_SSWU_RO_`) and, in
//! `quorate-core`, the `expand_message_xmd` vectors of Appendix K. Point decoding: the
//! Ethereum consensus `deserialization_G1`/`deserialization_G2` vectors. Signatures: the IETF
//! draft publishes no vectors and the Ethereum consensus ones are for the min-pk variant, so
//! `CoreVerify` is checked on a published min-sig signature (drand quicknet, round 1000,
//! basic-scheme tag), `KeyGen` on the EIP-2333 master-key vectors, and `CoreSign`/`PopProve`
//! byte for byte against `blst`'s independent `min_sig` implementation. Every threshold
//! signature in the end-to-end tests is also verified by `blst`.
