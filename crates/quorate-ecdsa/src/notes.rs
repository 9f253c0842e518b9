//! Protocol notes: what is implemented, with the papers' figure and step numbers, and where
//! this crate departs from them.
//!
//! # References
//!
//! * **DKLs18**: Doerner, Kondi, Lee, shelat, *Secure Two-party Threshold ECDSA from ECDSA
//!   Assumptions*, eprint 2018/499 (VSOT base OT, the multiplication encoding).
//! * **DKLs19**: the same authors, *Threshold ECDSA from ECDSA Assumptions: The Multiparty
//!   Case*, eprint 2019/523. Protocol 1 (two-party multiplication with the consistency
//!   check, random receiver input "RMUL"), §VI evaluation (2-of-n 9.52 ms over LAN; 24
//!   parties 37.6 ms; setup for `n ∈ {2,…,32}` at `t = ⌈(n+1)/2⌉`, Table III).
//! * **DKLs23**: the same authors, *Threshold ECDSA in Three Rounds*, eprint 2023/765.
//!   Protocol 3.6 (signing), Functionality 3.5 (RVOLE), Functionality 3.4 (zero-sharing).
//! * **KOS15**: Keller, Orsini, Scholl, *Actively Secure OT Extension with Optimal Overhead*,
//!   eprint 2015/546, **revised** consistency check (Fig. 10), following
//!   **SoftSpokenOT** (Roy, eprint 2022/192), which showed the original Lemma 1 false.
//! * **Simplest OT**: Chou, Orlandi, eprint 2015/267.
//! * Proactive refresh: Kondi, Magri, Orlandi, Shlomovits, *Refresh When You Wake Up*,
//!   eprint 2019/1328.
//!
//! # Parameters
//!
//! * Curve secp256k1 (`k256`, `mul_by_generator` and `lincomb` for every fixed-base and
//!   double multiplication).
//! * Base OTs / extension width `κ = 128` (computational security 128 bits, matching the
//!   curve). DKLs19's implementation used 256 columns; 128 halves the base-OT cost of the
//!   setup and the extension traffic.
//! * Multiplication batch `ℓ = 256 + 2·80 = 416` OTs (DKLs19's `κ + 2s`), plus 128 padding
//!   rows for the KOS check. Random oracle and PRG: tagged SHA-256 (`sha2`, SHA-NI).
//!
//! # Departures and their reasons
//!
//! * **No zero-sharing in signing.** DKLs23 re-randomises `sk_i = λ_i p(i) + ζ_i` with a
//!   zero-sharing `ζ`; then only `Σ pk_j = pk` can be checked. Here `sk_i = λ_i p(i)`; every
//!   receiver checks DKLs23's `Σ pk_j = pk` and, when it fails, compares each `pk_j` with
//!   `λ_j T_j` from the DKG's public shares, so a wrong `pk_j` names `j` (identifiable
//!   abort) without a variable-base multiplication per counterparty on the honest path.
//!   Why we think dropping `ζ` is sound here (our argument, not the paper's; it has not
//!   been checked by the paper's authors): `ζ` makes each signer's `pk_i` a fresh random
//!   sharing of `pk`, so a simulator that knows only `pk` can produce the honest parties'
//!   `pk_i`. Our DKG is Feldman-committed and publishes every party's public share `T_j`,
//!   so `λ_j T_j` is already public information and the simulator can output it as is;
//!   `sk_i` enters the protocol only as an input to the UC-secure RVOLE, whose messages
//!   hide it. The per-party check `pk_j = λ_j T_j` is stronger than `Σ pk_j = pk`, and it
//!   is what lets a wrong `pk_j` be *named*, which the zero-sharing would make impossible
//!   without an extra blame round. If a future change stops publishing `T_j`, the
//!   zero-sharing must come back.
//!
//!   *The argument in detail.* The simulation argument holds, and can be put
//!   more strongly: against a coalition of at most `t − 1` parties the honest `T_j` leak
//!   nothing beyond `pk`, since with `t − 1` corrupted shares and `pk` the Feldman
//!   polynomial `p(x)·G` is determined (with fewer, the simulator completes it at random),
//!   so `λ_j T_j` is simulatable from `pk` alone. The security claim is then relative to
//!   this Feldman DKG (whose public output includes every `T_j`), not to an ideal key
//!   generation that outputs `pk` only. Three conditions the argument relies on, and how
//!   they are met:
//!   1. *Fresh multiplication per signing.* Without `ζ`, `sk_i = λ_i p(i)` is the **same**
//!      RVOLE input in every signing by the same signer set, so its secrecy rests entirely
//!      on each multiplication being fresh. Without fresh randomness in every multiplication
//!      it would not be when a signing session id is reused (see "Session-id reuse" below: two runs revealed `2·sk_i`).
//!      DKLs23's `ζ_i` would not prevent it: the attack needs a repeated session
//!      id, so `ζ_i` (derived from it) repeats as well and the swap reveals the session's
//!      share `sk_i + ζ_i` of every honest signer the attacker is paired with, which sum
//!      with the attacker's own to `sk`. The fix is the fresh salt/nonce, which makes
//!      every run's pads independent whatever the session id.
//!   2. *Agreed public shares.* All honest parties must hold the same `T_j`. The DKG and
//!      every refresh now enforce it: the transcript hash that every party signs in the
//!      agreement step (round 4, [`crate::keygen::agreement`]) covers every broadcast
//!      digest *and* the derived `pk` and `T_1, …, T_n`, and a share is output (or a
//!      refresh certified) only when all `n` acknowledgements sign the same hash, so two
//!      honest parties that finish hold the same `T_j` (up to a hash collision or a forged
//!      signature). A party that sends different Feldman vectors to different parties is
//!      named with its two signed digests. BIP32 derivation updates every `T_j`
//!      consistently (`T_j + I_L·G`) from agreed values. Why this keeps the zero-sharing
//!      omission sound: the simulator's output `λ_j T_j` must be *the* public share that
//!      every honest party checks `pk_j` against; with split views an adversary could make
//!      two honest parties check against different `T_j`, and the argument above would no
//!      longer describe one execution. **Caveat:** this is our argument against the Feldman
//!      DKG as implemented; the DKLs23 proof is stated for an ideal key generation that
//!      outputs `pk` only, and must be redone against a key-generation functionality that
//!      also outputs every `T_j` (agreed as above) before the omission can claim the
//!      paper's proof.
//!   3. *What is checked.* The code runs DKLs23's `Σ pk_j = pk` and compares `pk_j` with
//!      `λ_j T_j` only when the sum fails, to name the culprit. Colluders who shift their
//!      `pk_j` by opposite amounts pass, exactly as in DKLs23 (where every `pk_j` is
//!      random); the `Γ_v` check then binds their multiplication inputs to the shifted
//!      `pk_j`, their inputs still sum to their part of `sk`, and nothing about honest
//!      inputs is revealed.
//!
//!   Verdict: dropping `ζ` is sound under these conditions; re-introducing F_Zero would
//!   cost a pairwise seed setup in the DKG and lose the per-party blame for `pk_j`.
//! * **DKLs19's check inside the multiplication** is kept (DKLs19 Protocol 1 steps 5–7;
//!   the DKLs23 RVOLE is built from that protocol with its check). Its check vector `r` is
//!   sent as a 32-byte hash instead of `ℓ = 416` scalars: the receiver recomputes the only
//!   acceptable `r` and compares hashes ([`crate::mul`]). Nothing is dropped; this saves
//!   13,280 bytes per multiplication (64,350 → 51,070 bytes per signer per counterparty;
//!   51,134 since the 32-byte extension nonce and pad salt below were added).
//! * **Base OT** is Simplest OT with a Schnorr proof of knowledge of `b` and transcript-bound
//!   key derivation, not the full VSOT verification round or endemic OT. Points are
//!   validated (canonical compressed encoding, on curve, not the identity); `k256`'s own
//!   decoder accepts any tag byte with the right parity, so tags other than 2/3 are
//!   rejected explicitly.
//! * **Blame round for the round-3 shares** (an addition; DKLs23 Protocol 3.6 step 4 only
//!   verifies the signature and aborts). The signature is always verified; when it does not
//!   verify, [`crate::sign::combine`] returns [`crate::sign::Combined::Blame`] instead of an
//!   error, and every signer proves with a Chaum–Pedersen proof that
//!   `log_R(u_i·G − Δ^u_i) = log_B(w_i·G − r·Δ^v_i)`, `B = H(m)·G + r·pk`, where `Δ^u_i`,
//!   `Δ^v_i` are computed by anyone from the agreed round-2 bodies and the entries every
//!   signer publishes in the blame round, each checked against its hash in the publisher's
//!   agreed body (a mismatch names the publisher; the derivation, from the step-3 checks,
//!   and the soundness of publishing are in [`crate::sign::blame`]). The `Δ` sums cancel over all signers, so if every
//!   proof holds then `Σ w_i / Σ u_i` is a valid signature (step 4); by contraposition a
//!   failed signature makes some proof fail and [`crate::sign::blame::resolve`] names every
//!   such signer (and every signer whose proof is missing). The statement is public data and
//!   the proof is zero-knowledge, so nothing about `r_i`, `φ_i`, `sk_i` or the multiplication
//!   outputs is revealed (revealing any of them next to a valid signature would reveal `sk`).
//!   The round runs only on failure: the honest path is unchanged apart from the broadcast
//!   bodies below. A wrong round-3 share does not ban anyone (no OT correlation is involved).
//! * **Broadcast bodies, echo and dispute.** The DKG commitments and openings are still
//!   addressed per recipient and compared out of band through
//!   [`crate::KeyShare::setup_transcript`] (which now also covers every party's Ed25519
//!   identity key). In signing, the public part of each round-2 message is a *body*
//!   identical for every recipient: sender, session id, the opening of `R_j` (point and
//!   salt), `pk_j` and, for **every** co-signer `k`, the 32-byte hash
//!   `h_{j→k} = H(tag, sid, j, k, Γ_u^{j→k}, Γ_v^{j→k}, ψ_{j→k})` of the entry towards `k`.
//!   The entry itself travels only in the p2p part of the message to `k`, who checks it
//!   against `h_{j→k}` in the body ([`crate::sign::CHECK_ENTRY`] names `j` on a mismatch;
//!   like the other pairwise checks this blame is local, since the p2p entry is not
//!   signed). In the blame round `j` publishes all its entries; what `j` broadcasts there
//!   is pinned by the agreed hashes, so a blame message sent inconsistently can differ
//!   only in its proof, which is then the round-3 case below. The hash binds the session
//!   id (key id, epoch, public key, signing session id, signer set), sender and
//!   recipient, so an entry cannot be replayed into another session or pair. Signing and echoing the hashes
//!   commits `j` to one entry per co-signer exactly as signing the entries did (SHA-256
//!   collision resistance), so the dispute below is unchanged. Revealing the entries to
//!   every co-signer in the blame round, not only to `k`, is safe: `Γ^{j→k} = c^{j→k}·G` for
//!   the sender's multiplication output `c`, a uniformly random additive share (its partner
//!   `d` stays with `k`), and `ψ_{j→k} = φ_j − χ^{k→j}` is one-time padded by `j`'s own
//!   random receiver input `χ^{k→j}` in the pair with `k`, which nobody else learns (DKLs23
//!   already sends `ψ_{j→k}` to `k`, who may be corrupt); `χ^{k→j}` enters nothing else
//!   public except through the masked `d`, `Γ` values. This is our argument, not the
//!   paper's. With three or more signers each body is signed with the sender's Ed25519
//!   identity key (generated in the DKG, kept by refresh); recipients verify the signature
//!   on receipt (a bad one names the sender), and round 3 carries an *echo digest*, a hash
//!   of every body as received (own included). In
//!   [`crate::sign::combine`], if any echo differs from one's own, the signers run a dispute
//!   instead of combining ([`crate::sign::Combined::Dispute`]): each publishes the signed
//!   bodies it received, and [`crate::sign::dispute::resolve`] names a signer with two
//!   validly signed, different bodies (equivocation; the pair is transferable evidence) and
//!   any signer whose published bodies do not hash to its echo or carry an invalid
//!   signature. This rules out that a signer opening different `R_j` (or
//!   sending different public round-2 values) to different co-signers makes every party
//!   combine for a different `R` without a culprit.
//! * **Round-1 commitment equivocation** (different `com_j` to different co-signers) needs
//!   no broadcast: `com_j` is checked against the opening in `j`'s body, which the echo
//!   makes the same for everybody, so a recipient that received a different commitment
//!   sees a failed opening and names `j` ("signing: opening of R_j"). Like every other
//!   pairwise check this blame is local (the recipient cannot prove what it received).
//! * **Round-3 shares are assumed broadcast consistently.** A signer that sends different
//!   `(u_j, w_j)` to different co-signers makes some of them combine a valid signature and
//!   others enter the blame round, where its proof fails against the wrong share. The
//!   co-signers with a valid signature must still answer the blame request: keep the
//!   [`crate::sign::SignRound3`] (use [`crate::sign::SignRound3::signature`], which does not
//!   consume it) and call [`crate::sign::SignRound3::blame`] on request.
//! * **No identity signatures with two signers** (measured). With two signers there is no
//!   third party to equivocate to, so the bodies are not signed and round 3 has no echo;
//!   the blame round still applies. Signing and verifying the two bodies would add about
//!   0.13 ms to the 1.94 ms of `t = 2`, past the 2.0 ms target; at `t = 5` the five
//!   signatures and twenty strict verifications add about 1.0 ms to 17.5 ms (measured A/B
//!   on the same machine, minimum over 60 runs).
//! * **Body size.** The body grows with the signing set by one `(index, hash)` pair per
//!   co-signer: `136 + 34·(t − 1)` bytes, plus a 64-byte signature from three signers on,
//!   sent to each of the `t − 1` co-signers; the 100-byte entry `(k, Γ_u, Γ_v, ψ)` goes only
//!   to `k`. Per party and counterparty (all three rounds, measured with
//!   `quorate-eval`'s `examples/ecdsa_profile`): `51,214 + 34·(t − 2)` bytes plus 96 (signature and 32-byte echo
//!   digest) from `t = 3` on — 51,214 at `t = 2`, 51,412 at `t = 5`, 51,786 at `t = 16`,
//!   52,330 at `t = 32`, 55,594 at `t = 128`; under sl-dkls23's 59,165 up to `t = 233`.
//!   With the full entries in the body it was `136 + 100·(t − 1)` bytes: 51,180 / 51,576 /
//!   52,676 / 54,276 / 63,876 at the same `t` (above 59,165 from `t = 81`).
//!   *Hash list or Merkle root.* A Merkle root over the entries would keep the body at
//!   `136 + 32` bytes and add a `32·⌈log₂(t − 1)⌉`-byte path to each p2p entry: per
//!   counterparty 32 + path = 32 / 96 / 160 / 192 / 256 bytes at `t` = 2 / 5 / 16 / 32 /
//!   128 against the hash list's 34 / 136 / 510 / 1,054 / 4,318. It saves 4 KB at
//!   `t = 128` but needs tree and path code (odd leaf counts, leaf/node domain separation,
//!   path checks) in round 3 and in the blame round. The hash list meets the target at
//!   every `t` the benchmark reports with 3.5 KB to spare at `t = 128`, the blame round
//!   checks each published entry against its own hash, and the per-signer hashing is
//!   `t − 1` SHA-256 calls either way; so we chose the hash list. A Merkle root is the
//!   next step if signing sets beyond about 230 parties matter. CPU is unchanged within
//!   noise (A/B with `quorate-eval`'s `examples/ecdsa_profile`, one thread, minimum per run of 120–300 signings,
//!   quiet machine, three alternating runs each): `t = 2` 1.90–1.95 ms before and
//!   1.91–1.95 ms after, `t = 5` 18.41–18.68 ms before and 18.42–18.63 ms after (the
//!   `2(t − 1)` entry hashes are small; the smaller body is cheaper to sign and echo).
//! * **Re-establishing a banned pair** is done by a full refresh (fresh base OTs for every
//!   pair), not by a dedicated two-party setup.
//! * **2-party fast path** (DKLs19's 2-message protocol for `t = 2`) is not implemented,
//!   because it would not be materially faster. With additive (Shamir-derived) key shares
//!   it computes `1/k = (1/k_a)(1/k_b)` and `sk/k = (sk_a/k_a)(1/k_b) + (1/k_a)(sk_b/k_b)`.
//!   The first two products share Bob's input `1/k_b` and fit one forced-reuse batch. The
//!   third has a different Bob input and needs a second batch. So it runs two
//!   `ℓ = 416`-OT multiplications, the same as the two RVOLEs here at `t = 2` (one per
//!   direction), which with their checks are most of the measured `t = 2` CPU; the rest
//!   is a few point multiplications per party in either protocol. It
//!   would save one message round (2 messages instead of 3 rounds, i.e. one one-way
//!   latency: 0.15 ms on the simulated LAN, 174 ms on the WAN) but not CPU or bytes, and
//!   it would be a second signing protocol to audit.
//! * **Setup rounds.** The DKG has four message rounds: the third carries the OT-extension
//!   message that bootstraps each pair's reverse direction from its one base-OT batch
//!   ([`crate::keygen`]). That halves the base-OT work (`κ = 128` simplest OTs per
//!   unordered pair instead of per ordered pair). The bootstrap extension has the same
//!   revised KOS check as every other one, and a failure names the sender. The fourth is
//!   the agreement step (issue 12): an echo of every signed broadcast digest and an
//!   acknowledgement of the transcript hash, sent only after a party has computed its
//!   share, so the acknowledgements also form the refresh's epoch certificate. It costs
//!   one latency and, per party, two Ed25519 signatures and `2(n − 1)` verifications
//!   (broadcasts and acknowledgements; echoed digests are compared, and verified only on
//!   a mismatch), plus `96n + 64` bytes to each other party; no secp256k1 work.
//!
//! # Performance work and what it did not change
//!
//! Profiled with `perf` (`quorate-eval`'s `examples/ecdsa_profile.rs`). The changes keep every check:
//!
//! * KOS check: the `κ` column hashes `h(t_i)` are computed bit-sliced from the transposed
//!   rows (XORs selected by the public challenge bits) instead of one GF(2^128)
//!   multiplication per 128-bit block. The equations are the same, and the check values
//!   are sent transposed ([`crate::ot::ext`]). This was 29% of `t = 2` signing.
//! * Transpose: Eklundh's 128×128 block transpose instead of bit by bit (8%).
//! * DKLs19 check vector sent as a hash (see above): −13 KB per multiplication.
//! * Random-OT pads: one SHA-256 compression per pad scalar on a precomputed prefix state
//!   (9 per OT row and pair: 6 for the sender, 3 for the receiver), the final block and
//!   the digest in one scratch buffer per multiplication that is wiped once on drop (wiping
//!   it after every pad, byte by byte, cost as much as the SHA-NI compression itself). The
//!   compressions are the largest single cost (about a fifth of signing); SHA-256 with
//!   SHA-NI is the fastest hash among the workspace's dependencies, and the pads are at
//!   the minimum of one compression per 256-bit scalar. See "Levers not taken" below for
//!   fixed-key AES.
//! * `Γ` checks (DKLs23 Protocol 3.6 step 3) batched per counterparty: the receiver checks
//!   `χ·R_j + (ρχ)·pk_j − ρ·Γ_v = (d_u + ρ·d_v)·G + Γ_u` for its own secret random `ρ`
//!   (drawn in round 1, never sent) instead of the two equations `χ·R_j = d_u·G + Γ_u`,
//!   `χ·pk_j = d_v·G + Γ_v` separately: one constant-time three-point `lincomb` and one
//!   multiplication of `G` instead of two variable-base and two fixed-base
//!   multiplications. *Soundness:* write `E_u = χ·R_j − d_u·G − Γ_u` and
//!   `E_v = χ·pk_j − d_v·G − Γ_v`; the batched check is `E_u + ρ·E_v = 0`. The sender's
//!   round-2 message (and with it `E_u`, `E_v`, which depend only on that message and on the
//!   receiver's state from round 1) is fixed before it could learn anything about `ρ`, a
//!   fresh draw from the receiver's CSPRNG that enters no message. If `(E_u, E_v) ≠ (0, 0)`, at most one `ρ`
//!   satisfies the equation (`E_v = 0` forces `E_u = 0`; otherwise `ρ` must equal the one
//!   discrete log `−log_{E_v} E_u`), so a deviating sender passes with probability at most
//!   `1/q` per counterparty (`(t − 1)/q` for one `ρ` shared by all counterparties of the
//!   session: all round-2 messages are processed together, before any outcome is
//!   visible). Both equations of step 3 therefore hold whenever the check passes, except
//!   with probability at most `(t − 1)/q`, and everything built on them (the blame round's
//!   statements, "Identifiable abort" below) is unchanged; a failure blames and bans the
//!   sender as before. `ρ` is wiped with the round state.
//! * KOS check values: the bit scan over the public constants `e_j` runs on two 64-bit
//!   halves (the same XORs).
//! * `pk_i = λ_i·T_i` is memoised per `(λ_i, T_i)` in the share's shared store
//!   ([`crate::KeyShare`]): a public value that depends only on the signing set, so a
//!   signer that keeps signing with the same co-signers skips one multiplication of `G`.
//! * Final verification of the combined signature (session 15): the same ECDSA predicate as
//!   `k256`'s `verify_prehash` (low `s`, `r, s ≠ 0`, `X = (z/s)·G + (r/s)·pk ≠ 0`,
//!   `x(X) mod q = r`), computed as two **variable-time** table sums — every input is
//!   public — over the table of `G` and a table of the public key memoised in the share's
//!   shared store (per public key, four at most; built at the first signature under a key,
//!   about five `k256` verifications' worth): a third of `k256`'s constant-time two-point
//!   `lincomb`. A unit test checks that it accepts exactly what `k256` accepts. The
//!   tables are `fixed_base`'s (signed 5-bit digits, 52 mixed additions at most, no
//!   doubling; tested against `k256` at the digit edges).
//! * Secret copies in the batched `Γ` check: the copies of `ρ`, `χ`, `ρχ` and
//!   `d_u + ρ·d_v` are wiped after the check (the round-1 locals of `r_i`, `φ_i`, `ρ` too).
//! * Setup: one base-OT batch per pair (above). What remains is about three scalar
//!   multiplications per base OT (receiver `a·G`, `a·B`; sender `b·A`), about 90% of the
//!   key-generation CPU.
//!
//! # Levers not taken (signing CPU)
//!
//! * *Fixed-key AES for the random-OT pads.* The pads are `H(j, q_j)`, `H(j, q_j ⊕ Δ)` with
//!   `H` a random oracle (KOS15 and DKLs19 prove security with `H` modelled as one).
//!   Fixed-key AES with AES-NI (the `aes` crate, a new dependency) computes the tweakable
//!   circular-correlation-robust hash `π(π(x) ⊕ i) ⊕ π(x)` of Guo, Katz, Wang, Yu (eprint
//!   2019/074) in a few cycles per 128-bit output, against one SHA-NI compression per
//!   256-bit scalar now. It was not adopted: it replaces the random-oracle argument by the
//!   ideal-permutation model, and against a *malicious* extension receiver the hash must
//!   stay secure when the receiver learns some bits of `Δ` (the KOS selective failure) and
//!   chooses the correlations per column; that needs its own proof (a TCCR notion with
//!   leakage) which we have not written. Writing it, and checking that the `3 × 256`-bit
//!   pad per row built from six 128-bit outputs with distinct tweaks keeps the scalars'
//!   bias at `2^-128`, is the next lever (estimated: about a sixth of signing CPU).
//! * *A constant-time fixed-base table for the secret multiples of `G`* (per signer
//!   `R_i`, `Γ_u`, `Γ_v` and the `Γ` check's right-hand side): the same table with a
//!   select over each row (as `quorate_core`'s `FixedBaseCt`) costs 27 % fewer
//!   instructions than `k256`'s `mul_by_generator` (236 K against 323 K under callgrind;
//!   `k256` also copies its 31 KB table at every call) but was no faster in wall time
//!   (timed alternately, within the noise either way: the 76 KiB table is read whole at
//!   every call, past L1). Not kept; the secret multiples of `G` stay `k256`'s.
//! * *Lazy reduction of the gadget sums and check vectors* (6,700 scalar multiplications
//!   per 2-party signature, ≈ 16 % of the instructions outside SHA-256): accumulating
//!   unreduced 512-bit products needs wide integer arithmetic modulo `q` outside `k256`
//!   (its `WideScalar` is private), i.e. our own scalar arithmetic; not done. The pad
//!   digests are reduced by `k256`'s 256-bit `reduce_bytes` (one conditional subtraction,
//!   ≈ 25 instructions each), already the cheapest reduction.
//! * *The `Γ` check's three-point `lincomb`* (now the largest point operation, ≈ 1.2 M
//!   instructions per counterparty): its scalars `χ`, `ρχ`, `ρ` are secret and its points
//!   new in every session, so neither a variable-time combination nor a fixed-base table
//!   applies.
//! * *A faster hash for `θ = H(sid, τ)`*: both parties hash the 40 KB `τ` (about a fifth of
//!   the compressions). The hash must be collision resistant (Fiat–Shamir over `τ`), and
//!   no faster collision-resistant hash is among the audited dependencies.
//!
//! # Known attacks addressed
//!
//! * *Flawed KOS check*: the revised check of KOS15 Fig. 10 on the untransposed columns
//!   ([`crate::ot::ext`]).
//! * *Selective abort / OT reuse*: any failed check (KOS, DKLs19, `Γ`) bans the counterparty
//!   and wipes the OT seeds shared with it ([`crate::KeyShare::ban`]); signing with it
//!   returns [`crate::EcdsaError::Banned`] until a refresh.
//! * *Session-id reuse* (freshness): the signing session id `sign_id` is chosen outside the
//!   protocol and nothing stops a caller, or a malicious co-signer proposing it, from
//!   reusing one. The OT-extension rows and the random-OT pads were functions of the long-
//!   lived seeds and the session id only, so two signings under one `sign_id` reused Alice's
//!   pads: a receiver that flipped its choice bits in the second run swapped her two pads
//!   and read `τ_j + τ'_j = (r_i + r'_i, 2·sk_i, …)`, i.e. the key share `sk_i = λ_i p(i)`
//!   (fixed for a signer set), from two honest-looking runs that pass every check (test
//!   `mul::tests::reused_session_id_does_not_reveal_the_sender_input`, which fails without
//!   the fix). Now the extension receiver mixes a fresh 32-byte nonce into the extension's
//!   session id and the multiplication sender a fresh 32-byte salt into the pads, `θ` and
//!   the check vector, both sent in the clear ([`crate::ot::ext`], [`crate::mul`]). Each
//!   honest party's secret-dependent values are therefore fresh whatever `sign_id` is,
//!   and `sign_id` uniqueness is no longer a *secrecy* requirement (it still separates
//!   sessions for the commitments). It is an identifiability requirement with three or
//!   more signers, enforced locally: [`crate::sign::round2`] refuses a session id
//!   under which the share already signed a body (see "Identifiable abort: design points and arguments").
//! * *Session-id binding*: every sub-protocol's session id hashes the protocol tag, the key id,
//!   the epoch, the signing session id and signing set (or the setup session), and both
//!   parties' indices in role order.
//! * *Broadcast equivocation in DKG and refresh* (review of issue 12): a party that runs two
//!   instances, one towards each honest party, passed every check, and the honest parties
//!   ended with different public keys (DKG) or shares that no longer reconstruct the key
//!   (refresh). Every broadcast is now signed with the sender's identity key and agreed in
//!   round 4; a split is named with transferable evidence (tests
//!   `equivocation_in_keygen_names_the_sender_and_no_share_is_output`,
//!   `equivocation_in_refresh_names_the_sender_and_no_share_is_output`).
//! * *Epoch split at refresh*: a refresh yields a [`crate::keygen::PendingRefresh`] that
//!   becomes current only with an [`crate::keygen::EpochCertificate`] (every party's
//!   acknowledgement, sent only after it computed its share); until then the old share
//!   signs.
//! * *Framing with an old identity key*: identity keys rotate at every refresh (the next
//!   key is announced in the signed broadcast and bound by the certified transcript), and
//!   evidence is checked against the keys of the epoch it is about. A share refuses a
//!   second refresh under one session id (two signed digests for one statement would be
//!   indistinguishable from an equivocation); key generation has no share to remember, so
//!   its session id must never be reused (the node's job).
//! * *Input validation*: vector lengths, sender sets, indices, non-canonical scalars and
//!   invalid or identity points are rejected with typed errors naming the sender.
//! * *Unhashed messages*: the API signs a 32-byte digest; hashing is the caller's choice.
//! * *Restoring a holder from an escrowed share* ([`crate::keygen::restore`]). The escrow
//!   backup holds `x_j` only, never the pairwise OT seeds or the epoch identity key, so a
//!   [`crate::keygen::RestoredShare`] cannot sign: it joins a refresh (fresh base OTs with
//!   every pair, new identity keys) and becomes a full share only when that refresh
//!   commits. Its import checks `x_j·G = T_j`. In that refresh it signs with its roster
//!   key (the node's long-term key, as in key generation), which the other holders put in
//!   its slot of the run's roster; a refresh whose other holders do not, or put another
//!   key there, names it and commits nothing. **Security note.** The escrow sees `x_j`
//!   (that is its job): the escrow plus `t − 1` holders of the same epoch rebuild the key.
//!   The refresh re-randomises every share (a zero-sharing is added), so after it commits
//!   the escrowed `x_j` is useless against the new epoch; until then the restored node is
//!   as exposed as the escrow's copy. The public data it is given ([`crate::keygen::EpochPublic`])
//!   is authenticated by the refresh itself: the certified transcript covers the public
//!   key, every new public share, the chain code and the identity keys.
//!
//! # Identifiable abort: design points and arguments
//!
//! The signed, echoed round-2 bodies with per-entry hashes, the dispute round and the
//! blame round. Points where a simpler design is wrong (each has a test):
//!
//! * *Framing through a reused `sign_id`* (completeness). The dispute treats two validly
//!   signed, different bodies of one signer for one `sid` as equivocation. A reused
//!   `sign_id` (same key, epoch and signer set), which the crate otherwise tolerates and a
//!   malicious proposer can choose, would make an honest signer sign two bodies for one `sid`;
//!   a co-signer replaying the first run's body in the second run's dispute would get the
//!   honest signer named. So a key share signs at most one body per `sid`
//!   ([`crate::KeyShare`]'s record, checked in [`crate::sign::round2`]). The record is
//!   in memory: a share restored from an older copy, or a `Clone`, does not know what the
//!   other copy signed, so applications that persist shares must also keep `sign_id`s
//!   unique. A protocol-level alternative (binding each signature to fresh values of every
//!   co-signer) needs every round-1 commitment inside the signed body and a way to blame a
//!   mismatch, which round 1's point-to-point commitments do not give.
//! * *Blame resolved with differing echoes* (completeness). [`crate::sign::SignRound3::blame`]
//!   enters the blame round without looking at the echoes (to answer a co-signer). If an
//!   equivocator gave honest signers different bodies, an honest signer's statement
//!   computed from this signer's view is false, so its valid proof fails there and it would
//!   be named. So the proofs are judged only when every received echo equals one's own
//!   (always true after [`crate::sign::combine`] returned `Blame`: two honest signers with
//!   different views see each other's differing echo and both go to the dispute); otherwise
//!   [`crate::sign::blame::resolve`] names only missing, doubled or mismatching
//!   publications (safe: an honest signer's body is unique and its entries match it) and
//!   points to the dispute round.
//! * *Replayed messages.* An identical second copy of a blame or dispute message names
//!   nobody (a network may replay it); only two *different* messages name the sender.
//!
//! Arguments:
//!
//! * *Soundness of the blame round.* With `ψ_{b→a} = φ_b − χ^{a→b}` and the step-3 check
//!   `χ^{j→i}·R_j = d_u^{j→i}·G + Γ_u^{j→i}`, `u_i·G = φ_i·R + Σ_j (Γ'_u^{i→j} − Γ'_u^{j→i})`
//!   exactly with the code's `Γ'^{a→b} = Γ^{a→b} + ψ_{b→a}·R_a` (likewise
//!   `w_i·G = φ_i·B + r·Δ^v_i` using `Σ pk_j = pk`). The `Δ` terms come from one map of
//!   effective entries, so they cancel exactly over all signers; if every statement is
//!   proven, `Σu_i·G = φ·R` and `Σw_i·G = φ·B` and the signature verifies. So a failed
//!   signature always names someone, except `Σ u_i = 0` with all proofs valid (needs
//!   `Σ φ_i = 0`; the honest `φ_i` are hidden behind `χ` pads) and `R = 0` (committed
//!   before opening). A statement that cannot be computed (a publisher's entries rejected
//!   or missing) is skipped, and that publisher is named. Arbitrary `ψ` chosen by a
//!   cheater does not matter: the same published `ψ` enters both sides.
//! * *Inconsistent round-3 shares* `(u_c, w_c)`: a signer given a wrong share names `c`
//!   (a proof for `u_c' ≠ u_c` needs `(u_c' − u_c)·G ∈ ⟨R⟩` with known exponent, i.e.
//!   `k`); a signer given the right one has a valid signature. The in-process drivers
//!   (`quorate-eval`'s `ecdsa::simulate` and `ecdsa::netsim`) do not yet let a signer that combined a
//!   valid signature answer a co-signer's blame round, so there such a signer would be
//!   named as missing; the library API supports it ([`crate::sign::SignRound3::signature`]
//!   then [`crate::sign::SignRound3::blame`]). Only a per-recipient share inconsistency,
//!   which the fault injection does not produce, reaches that path.
//! * *Zero knowledge.* The blame round publishes the entries of honest–honest pairs:
//!   `Γ = c·G` (images of uniformly random additive shares) and `ψ` (padded by the
//!   prover's own receiver input, which appears elsewhere only inside masked values). The
//!   DLEQ statement `(P_i, Q_i) = (φ_i·R, φ_i·B)` is computable from public data, and with
//!   a valid signature `s` the adversary computes itself, `B = s·R`, so `Q_i = s·P_i` adds
//!   nothing; `φ_i·R` hides `φ_i` under DDH. No scalar of `r_i`, `φ_i`, `χ` or the
//!   multiplication outputs is published; `φ_i` and the DLEQ nonce are wiped, `SignRound3`
//!   and `BlameRound` redact `φ_i` in `Debug`.
//! * *Fiat–Shamir.* The DLEQ challenge binds protocol name and version, `sid`, key id,
//!   epoch, `sign_id`, signer set, prover, `pk`, digest, `R`, `B`, `P`, `Q` and both
//!   commitments. Not binding the entries and `(u_i, w_i)` is fine: soundness needs only
//!   the statement `(R, B, P, Q)`, which every verifier derives from the agreed bodies,
//!   hash-checked entries and received shares; another proof for the same statement proves
//!   the same fact.
//! * *Encodings.* Entries: canonical compressed points (tag 0x02/0x03, on curve, not the
//!   identity), canonical `ψ`, recipients strictly increasing; bodies: validated `R_i`,
//!   `pk_i`, sorted hashes never to the sender, exact signer set checked on receipt, length
//!   ≤ 1 MiB; signature flag 0/1; Ed25519 signatures checked with `verify_strict`
//!   (canonical `s`, no small-order `R`) under identity keys parsed by the DKG with a
//!   weak-key check; every decoder ends with `finish` and has truncation and byte-flip
//!   tests. Challenges and responses of the blame proof are canonical scalars.
//! * *Two signers.* No body signatures and no echo: nothing is lost for the two signers
//!   themselves (each body has one recipient, so there is nothing to equivocate, and the
//!   blame round applies unchanged), but no verdict is transferable to a third party. The
//!   same holds for every pairwise check at any `t` (p2p entries, commitments,
//!   multiplication checks, round-3 shares): those blames are local.
