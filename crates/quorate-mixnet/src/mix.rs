//! Mix: re-encryption and shuffle by every server in turn, then threshold decryption with a
//! verified share covering every element (the artifact skipped element 0: defect 7; outputs
//! are decrypted in packed groups, [`crate::packing`]), and the querier's public verification
//! of everything (defect 12).

use crate::error::{blame, MixnetError};
use crate::packing;
use crate::params::{int_to_scalar, scalar_modulus};
use crate::sender::{self, SenderInput, MASK_BITS};
use crate::setup::{MixServer, MixnetPublic};
use crate::shuffle::{self, PaillierShuffle, ShuffleProof};
use blstrs::Scalar;
use quorate_core::{Blame, ParamError, PartyId};
use quorate_paillier::bigint::{mul_mod, SecretInteger};
use quorate_paillier::rug::Integer;
use quorate_paillier::{BatchDecryptionShares, Ciphertext, PaillierError};
use rand_core::{CryptoRng, OsRng, RngCore};
use rayon::prelude::*;

/// One server's mixing output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MixStage {
    /// The server.
    pub mixer: PartyId,
    /// Re-encrypted, permuted list.
    pub outputs: Vec<Ciphertext>,
    /// Shuffle proof against the server's permutation commitment.
    pub proof: ShuffleProof,
}

/// Bits of one output slot in the packed decryption: the sender's linking proof bounds the
/// plaintext of an accepted `c` only by `|v| < 2^{MASK_BITS+1}` (integer slack; a value
/// `≥ q` or negative passes, issue 13), so the slot has [`MASK_BITS`]` + 2` bits and holds
/// `v + `[`output_offset`], and the output is `(slot − offset) mod q`: the value `γ` commits
/// to, and no sender can carry into or borrow from a neighbouring slot.
pub const OUTPUT_SLOT_BITS: u32 = MASK_BITS + 2;

/// The public offset `2^{MASK_BITS+1}` added to every Mix output slot before decryption.
pub fn output_offset() -> Integer {
    Integer::from(1) << (MASK_BITS + 1)
}

/// One server's decryption shares of the final list: one share per packed group of
/// [`OUTPUT_SLOT_BITS`]-bit outputs ([`crate::packing`]), all covered by one batched proof
/// ([`quorate_paillier::batch`]), so every element, element 0 included, is covered by a
/// verified share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecryptionStage {
    /// The server.
    pub mixer: PartyId,
    /// Shares in group order, with their batched proof.
    pub shares: BatchDecryptionShares,
}

/// Input checking (every server and the querier run it): the positions of accepted
/// submissions, and the typed errors of the rejected ones ([`sender::check_inputs`]: one
/// batched check, one by one only to name the culprits).
pub fn check_inputs(
    public: &MixnetPublic,
    inputs: &[SenderInput],
) -> (Vec<usize>, Vec<MixnetError>) {
    sender::check_inputs(public, inputs)
}

impl MixServer {
    /// Re-encrypts and permutes `inputs` by this server's committed permutation and proves it.
    pub fn mix<R: RngCore + CryptoRng>(
        &self,
        public: &MixnetPublic,
        inputs: &[Ciphertext],
        rng: &mut R,
    ) -> Result<MixStage, MixnetError> {
        if inputs.len() != public.n {
            return Err(ParamError::LengthMismatch {
                what: "mix inputs",
                expected: public.n,
                got: inputs.len(),
            }
            .into());
        }
        let pk = public.paillier.encryption_key();
        let djn = public.djn()?;
        let n2 = pk.n_squared();
        // Fixed-base re-randomisation: output i is inputs[π(i)]·h_N^{α_i} ([`crate::djn`]).
        let alpha: Vec<SecretInteger> = (0..inputs.len()).map(|_| djn.random_alpha(rng)).collect();
        let outputs: Vec<Ciphertext> = self
            .perm
            .pi()
            .par_iter()
            .zip(alpha.par_iter())
            .map(|(&j, a)| {
                let c = inputs
                    .get(j)
                    .ok_or(ParamError::Invalid("permutation index"))?;
                let r = djn.pow_randomness(a)?;
                Ok(pk.ciphertext_from_integer(mul_mod(c.as_integer(), &r, n2))?)
            })
            .collect::<Result<_, MixnetError>>()?;
        let com =
            public
                .perm_commitments
                .get(self.id.position())
                .ok_or(ParamError::UnknownParty {
                    id: self.id,
                    n: public.params.n(),
                })?;
        let stmt = PaillierShuffle {
            pk,
            djn,
            n_hat: &public.ring_pedersen.n_hat,
            inputs,
            outputs: &outputs,
        };
        let proof = shuffle::prove(
            &public.sid,
            self.id,
            &public.gens,
            com,
            &self.perm,
            Some((&stmt, &alpha)),
            rng,
        )?;
        Ok(MixStage {
            mixer: self.id,
            outputs,
            proof,
        })
    }

    /// Decryption shares (each with its proof) of every element of the final list.
    pub fn decrypt(
        &self,
        public: &MixnetPublic,
        list: &[Ciphertext],
    ) -> Result<DecryptionStage, MixnetError> {
        let pk = public.paillier.encryption_key();
        let packed = packing::pack(
            pk,
            list,
            OUTPUT_SLOT_BITS,
            packing::slots_per_ciphertext(pk, OUTPUT_SLOT_BITS),
            &output_offset(),
        )?;
        let shares = self.paillier_share.decrypt_batch(
            &public.paillier,
            &public.sid,
            &packed,
            &mut OsRng,
        )?;
        Ok(DecryptionStage {
            mixer: self.id,
            shares,
        })
    }
}

/// Verifies the chain of shuffles, server 1 first; returns the final list.
///
/// All proofs are first checked at once ([`shuffle::verify_chain_batch`]: one G1 MSM, one
/// multi-exponentiation mod `Ñ` and one mod `N²` over the whole chain, 128-bit weights);
/// if that fails, or a stage is malformed, the stages are checked one by one in order and
/// the first failing server is named, exactly as without the batch.
pub fn verify_mixing<'a>(
    public: &MixnetPublic,
    inputs: &'a [Ciphertext],
    stages: &'a [MixStage],
) -> Result<&'a [Ciphertext], MixnetError> {
    if stages.len() != usize::from(public.params.n()) {
        return Err(ParamError::LengthMismatch {
            what: "mix stages",
            expected: usize::from(public.params.n()),
            got: stages.len(),
        }
        .into());
    }
    let pk = public.paillier.encryption_key();
    let djn = public.djn()?;
    let n_hat = &public.ring_pedersen.n_hat;
    let last = stages.last().map_or(inputs, |st| &st.outputs[..]);
    if let Some(links) = chain_links(public, inputs, stages) {
        if shuffle::verify_chain_batch(&public.sid, &public.gens, pk, djn, n_hat, inputs, &links) {
            return Ok(last);
        }
    }
    let mut current = inputs;
    for (k, st) in public.params.parties().zip(stages) {
        check_stage_shape(public, k, current.len(), st)?;
        let com = public
            .perm_commitments
            .get(k.position())
            .ok_or(ParamError::Invalid("missing commitment"))?;
        let stmt = PaillierShuffle {
            pk,
            djn,
            n_hat,
            inputs: current,
            outputs: &st.outputs,
        };
        shuffle::verify(&public.sid, k, &public.gens, com, Some(&stmt), &st.proof)?;
        current = &st.outputs;
    }
    Ok(current)
}

/// The order, length and ciphertext validity of one stage (server `k`, `len` inputs).
fn check_stage_shape(
    public: &MixnetPublic,
    k: PartyId,
    len: usize,
    st: &MixStage,
) -> Result<(), MixnetError> {
    let pk = public.paillier.encryption_key();
    if st.mixer != k {
        return Err(blame(st.mixer, "mix stage out of order"));
    }
    if st.outputs.len() != len {
        return Err(blame(k, "mix output length"));
    }
    for c in &st.outputs {
        pk.ciphertext_from_integer(c.as_integer().clone())
            .map_err(|_| blame(k, "mix output is not a valid ciphertext"))?;
    }
    Ok(())
}

/// The stages as links of a chain for the batch check, if every stage is well formed.
fn chain_links<'a>(
    public: &'a MixnetPublic,
    inputs: &[Ciphertext],
    stages: &'a [MixStage],
) -> Option<Vec<shuffle::ChainLink<'a>>> {
    public
        .params
        .parties()
        .zip(stages)
        .map(|(k, st)| {
            check_stage_shape(public, k, inputs.len(), st).ok()?;
            Some(shuffle::ChainLink {
                prover: k,
                com: public.perm_commitments.get(k.position())?,
                outputs: &st.outputs,
                proof: &st.proof,
            })
        })
        .collect()
}

/// Verifies every decryption share of every element and combines them; each output is its
/// slot minus [`output_offset`], reduced mod `q` (the value the sender's `γ` opens to).
/// Failing shares name their servers.
pub fn verify_decryption(
    public: &MixnetPublic,
    list: &[Ciphertext],
    decryptions: &[DecryptionStage],
) -> Result<Vec<Scalar>, MixnetError> {
    let pk = public.paillier.encryption_key();
    let slots = packing::slots_per_ciphertext(pk, OUTPUT_SLOT_BITS);
    let q = scalar_modulus();
    let offset = output_offset();
    let packed = packing::pack(pk, list, OUTPUT_SLOT_BITS, slots, &offset)?;
    let batches: Vec<(PartyId, &BatchDecryptionShares)> =
        decryptions.iter().map(|d| (d.mixer, &d.shares)).collect();
    let plain = verify_and_combine_batches(public, &packed, &batches, "decryption share proof")?;
    let mut out = Vec::with_capacity(list.len());
    for (g, m) in plain.iter().enumerate() {
        let count = (list.len() - g * slots).min(slots);
        // Unreachable for accepted inputs (their plaintexts are below the offset in
        // absolute value) unless the linking proof's soundness fails.
        let values = packing::unpack(m, OUTPUT_SLOT_BITS, count).ok_or(
            MixnetError::ProofRejected("packed Mix plaintext outside its slots"),
        )?;
        out.extend(
            values
                .iter()
                .map(|v| int_to_scalar(&Integer::from(v - &offset), &q)),
        );
    }
    Ok(out)
}

/// Verifies every server's batched decryption shares of `cts` and combines each
/// ciphertext's verified shares into its plaintext. All servers' proofs are checked with one
/// random linear combination ([`quorate_paillier::ThresholdPublicKey::verify_batches`],
/// 128-bit weights from `OsRng`); only if it fails is each server's proof checked on its
/// own, to name the culprits. A batch under another id, with the wrong count, or with a
/// failing proof names its server; every failing server is named, with `check` as the
/// reason.
pub(crate) fn verify_and_combine_batches(
    public: &MixnetPublic,
    cts: &[Ciphertext],
    batches: &[(PartyId, &BatchDecryptionShares)],
    check: &'static str,
) -> Result<Vec<Integer>, MixnetError> {
    let ids: Vec<PartyId> = batches.iter().map(|(k, _)| *k).collect();
    quorate_core::party::check_distinct(&ids)?;
    let mut culprits = Vec::new();
    let mut shaped = Vec::with_capacity(batches.len());
    for (k, b) in batches {
        if b.id() != *k || b.values().len() != cts.len() {
            culprits.push(*k);
        } else {
            shaped.push(*b);
        }
    }
    let verified = match public
        .paillier
        .verify_batches(&public.sid, cts, &shaped, &mut OsRng)
    {
        Ok(v) => v,
        Err(PaillierError::Aborted(b)) => {
            culprits.extend_from_slice(b.culprits());
            Vec::new()
        }
        Err(e) => return Err(e.into()),
    };
    if !culprits.is_empty() {
        culprits.sort();
        culprits.dedup();
        return Err(MixnetError::Aborted(Blame::many(culprits, check)));
    }
    (0..cts.len())
        .into_par_iter()
        .map(|j| {
            let shares: Vec<_> = verified.iter().filter_map(|v| v.get(j).cloned()).collect();
            Ok(public.paillier.combine(&shares)?)
        })
        .collect()
}

/// The full record of a mixing run, as published.
#[derive(Clone, Debug)]
pub struct MixRecord {
    /// Positions of accepted sender inputs.
    pub accepted: Vec<usize>,
    /// Input ciphertexts `c_i` of accepted senders.
    pub inputs: Vec<Ciphertext>,
    /// One stage per server.
    pub stages: Vec<MixStage>,
    /// Decryption shares.
    pub decryptions: Vec<DecryptionStage>,
    /// Decrypted outputs.
    pub outputs: Vec<Scalar>,
}

/// The querier's check of a whole published run: setup proofs, input checks, every shuffle,
/// every decryption share. Returns the verified outputs.
pub fn verify_record(
    public: &MixnetPublic,
    submissions: &[SenderInput],
    rec: &MixRecord,
) -> Result<Vec<Scalar>, MixnetError> {
    public.verify_setup()?;
    let (accepted, _) = check_inputs(public, submissions);
    if accepted != rec.accepted {
        return Err(ParamError::Invalid("accepted set differs").into());
    }
    let inputs: Vec<Ciphertext> = accepted
        .iter()
        .filter_map(|&i| submissions.get(i).map(|s| s.c.clone()))
        .collect();
    if inputs != rec.inputs {
        return Err(ParamError::Invalid("mix inputs differ from accepted submissions").into());
    }
    let last = verify_mixing(public, &inputs, &rec.stages)?;
    let out = verify_decryption(public, last, &rec.decryptions)?;
    if out != rec.outputs {
        return Err(ParamError::Invalid("published outputs differ").into());
    }
    Ok(out)
}

/// Runs a whole mixing in process: input checking, every server's shuffle (each checked
/// before the next server builds on it), decryption by all servers, and verification.
/// Requires exactly `public.n` accepted submissions.
pub fn run<R: RngCore + CryptoRng>(
    public: &MixnetPublic,
    servers: &[MixServer],
    submissions: &[SenderInput],
    rng: &mut R,
) -> Result<MixRecord, MixnetError> {
    let (accepted, rejected) = check_inputs(public, submissions);
    if let Some(e) = rejected.into_iter().next() {
        if accepted.len() != public.n {
            return Err(e);
        }
    }
    let inputs: Vec<Ciphertext> = accepted
        .iter()
        .filter_map(|&i| submissions.get(i).map(|s| s.c.clone()))
        .collect();
    let mut stages: Vec<MixStage> = Vec::with_capacity(servers.len());
    for s in servers {
        let prev = stages
            .last()
            .map(|st| st.outputs.as_slice())
            .unwrap_or(&inputs);
        let st = s.mix(public, prev, rng)?;
        stages.push(st);
    }
    let last = verify_mixing(public, &inputs, &stages)?;
    let decryptions = servers
        .iter()
        .map(|s| s.decrypt(public, last))
        .collect::<Result<Vec<_>, _>>()?;
    let outputs = verify_decryption(public, last, &decryptions)?;
    Ok(MixRecord {
        accepted,
        inputs,
        stages,
        decryptions,
        outputs,
    })
}

/// Ground truth for demos/tests: `result[i]` is the input position that final output `i`
/// came from.
pub fn composed_permutation(servers: &[MixServer]) -> Vec<usize> {
    let n = servers.first().map(|s| s.permutation().len()).unwrap_or(0);
    (0..n)
        .map(|i| {
            servers
                .iter()
                .rev()
                .fold(i, |pos, s| s.permutation().get(pos).copied().unwrap_or(pos))
        })
        .collect()
}
