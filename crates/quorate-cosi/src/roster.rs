//! The witness roster: an ordered list of registered keys.
//!
//! The order defines the mask bits. [`Roster::new`] admits only keys with a valid proof of
//! possession (rogue-key defence, so the plain sum `A = ΣA_i` is safe), no duplicates and
//! only prime-order keys. It caches the full aggregate `A` and computes participant
//! aggregates `A'` incrementally (see [`Roster::aggregate_for_mask`]).

use crate::error::{witness_id, CosiError};
use crate::hash::{batch_weight, roster_id};
use crate::keys::{identity, PublicKey, RosterEntry};
use crate::mask::Mask;
use core::fmt;
use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::edwards::EdwardsPoint;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, VartimeMultiscalarMul};
use quorate_core::{DecodeError, ParamError, PartyId};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// `SHA-256("quorate/cosi/roster/v1" ‖ u32_be(n) ‖ A_0 ‖ … ‖ A_{n−1})`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RosterId(pub [u8; 32]);

impl fmt::Debug for RosterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RosterId({})", hex::encode(self.0))
    }
}

impl fmt::Display for RosterId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

/// How many recent mask aggregates [`Roster::cached_aggregate_for_mask`] remembers.
const MEMO_CAPACITY: usize = 8;

/// A cached participant aggregate: mask bytes, `A'` and its encoding.
type MemoEntry = (Vec<u8>, EdwardsPoint, [u8; 32]);

/// An ordered, validated set of witness keys.
pub struct Roster {
    entries: Vec<RosterEntry>,
    aggregate: EdwardsPoint,
    aggregate_bytes: [u8; 32],
    id: RosterId,
    memo: Mutex<Vec<MemoEntry>>,
}

impl Clone for Roster {
    fn clone(&self) -> Self {
        Roster {
            entries: self.entries.clone(),
            aggregate: self.aggregate,
            aggregate_bytes: self.aggregate_bytes,
            id: self.id,
            memo: Mutex::new(Vec::new()),
        }
    }
}

impl fmt::Debug for Roster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Roster")
            .field("n", &self.entries.len())
            .field("id", &self.id)
            .field("aggregate", &hex::encode(self.aggregate_bytes))
            .finish_non_exhaustive()
    }
}

impl PartialEq for Roster {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Roster {}

impl Roster {
    /// The largest roster: witness `i` is blamed as `PartyId(i + 1)`, a non-zero `u16`.
    pub const MAX_WITNESSES: usize = u16::MAX as usize - 1;

    /// Validates registrations and builds the roster.
    ///
    /// Rejects an empty or oversized roster ([`CosiError::Param`]), repeated keys
    /// ([`CosiError::DuplicateKey`]) and invalid proofs of possession
    /// ([`CosiError::InvalidProofOfPossession`], naming every bad entry). Keys themselves are
    /// already validated by [`PublicKey::from_bytes`].
    ///
    /// The proofs are checked in one batch, `[8](Σ z_i(s_i·B − c_i·A_i − R_i)) = 0`, with
    /// 128-bit weights `z_i` derived by hashing all entries (the entries are fixed before the
    /// weights are known), falling back to individual checks to name the culprits.
    pub fn new(entries: Vec<RosterEntry>) -> Result<Self, CosiError> {
        let n = entries.len();
        if n == 0 {
            return Err(ParamError::Invalid("a roster needs at least one witness").into());
        }
        if n > Self::MAX_WITNESSES {
            return Err(ParamError::Invalid("too many witnesses for one roster").into());
        }
        let mut seen: HashMap<[u8; 32], usize> = HashMap::with_capacity(n);
        for (i, e) in entries.iter().enumerate() {
            if let Some(&first) = seen.get(e.public_key.as_bytes()) {
                return Err(CosiError::DuplicateKey {
                    first: witness_id(first),
                    second: witness_id(i),
                });
            }
            seen.insert(e.public_key.to_bytes(), i);
        }
        verify_pops(&entries)?;
        let aggregate: EdwardsPoint = entries.iter().map(|e| e.public_key.point()).sum();
        let id = RosterId(roster_id(
            n as u32,
            entries.iter().map(|e| e.public_key.as_bytes()),
        ));
        Ok(Roster {
            aggregate_bytes: aggregate.compress().to_bytes(),
            aggregate,
            entries,
            id,
            memo: Mutex::new(Vec::new()),
        })
    }

    /// Decodes 96-byte registrations `A ‖ R ‖ s` (in parallel) and calls [`Roster::new`]. A
    /// malformed key is reported as [`CosiError::InvalidKey`] naming its witness.
    pub fn from_entry_bytes(entries: &[[u8; 96]]) -> Result<Self, CosiError> {
        if entries.len() > Self::MAX_WITNESSES {
            return Err(ParamError::Invalid("too many witnesses for one roster").into());
        }
        let decoded: Vec<Result<RosterEntry, CosiError>> = entries
            .par_iter()
            .enumerate()
            .map(|(position, bytes)| {
                RosterEntry::from_bytes(bytes).map_err(|source| CosiError::InvalidKey {
                    witness: witness_id(position),
                    source,
                })
            })
            .collect();
        Roster::new(decoded.into_iter().collect::<Result<Vec<_>, _>>()?)
    }

    /// Reads a roster file: a JSON array of hex roster entries (96 bytes each: key ‖ proof
    /// of possession, [`RosterEntry::to_bytes`]), or a JSON object whose `roster_entries`
    /// field is such an array (the CLI demo's output). Every proof is checked
    /// ([`Roster::new`]).
    ///
    /// A bare public key (32 bytes), or an object with `public_keys` but no
    /// `roster_entries`, is refused with [`CosiError::MissingProofOfPossession`]: without
    /// proofs, one rogue entry `a·B − ΣA_others` would let its owner sign for everyone. Other
    /// malformed input is [`CosiError::Decode`].
    pub fn from_json(text: &str) -> Result<Self, CosiError> {
        let bad = |reason: &'static str| {
            CosiError::Decode(DecodeError::InvalidValue {
                what: "roster file",
                reason,
            })
        };
        let value: serde_json::Value = serde_json::from_str(text).map_err(|_| bad("not JSON"))?;
        let list = match &value {
            serde_json::Value::Array(a) => a,
            serde_json::Value::Object(o) => match o.get("roster_entries") {
                Some(serde_json::Value::Array(a)) => a,
                Some(_) => return Err(bad("roster_entries is not an array")),
                None if o.contains_key("public_keys") => {
                    return Err(CosiError::MissingProofOfPossession {
                        witness: witness_id(0),
                    })
                }
                None => return Err(bad("object without roster_entries")),
            },
            _ => return Err(bad("expected a JSON array of hex roster entries")),
        };
        if list.len() > Self::MAX_WITNESSES {
            return Err(ParamError::Invalid("too many witnesses for one roster").into());
        }
        let mut entries = Vec::with_capacity(list.len());
        for (position, item) in list.iter().enumerate() {
            let text = item
                .as_str()
                .ok_or_else(|| bad("entries must be hex strings"))?;
            let bytes = hex::decode(text.trim()).map_err(|_| bad("entry is not hex"))?;
            match <[u8; RosterEntry::BYTES]>::try_from(bytes.as_slice()) {
                Ok(e) => entries.push(e),
                Err(_) if bytes.len() == 32 => {
                    return Err(CosiError::MissingProofOfPossession {
                        witness: witness_id(position),
                    })
                }
                Err(_) => {
                    return Err(DecodeError::WrongLength {
                        what: "roster entry",
                        expected: RosterEntry::BYTES,
                        got: bytes.len(),
                    }
                    .into())
                }
            }
        }
        Self::from_entry_bytes(&entries)
    }

    /// The roster file [`Roster::from_json`] reads: a JSON array of hex entries.
    pub fn to_json(&self) -> String {
        let entries: Vec<String> = self
            .entries
            .iter()
            .map(|e| hex::encode(e.to_bytes()))
            .collect();
        serde_json::Value::from(entries).to_string()
    }

    /// The number of witnesses `n`.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always `false`: rosters are non-empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The roster id (binds `n` and every key in order).
    pub fn id(&self) -> &RosterId {
        &self.id
    }

    /// The registration of witness `index`.
    pub fn entry(&self, index: usize) -> Option<&RosterEntry> {
        self.entries.get(index)
    }

    /// All registrations, in roster order.
    pub fn entries(&self) -> &[RosterEntry] {
        &self.entries
    }

    /// The public key of witness `index`.
    pub fn public_key(&self, index: usize) -> Option<&PublicKey> {
        self.entries.get(index).map(|e| &e.public_key)
    }

    /// The full aggregate `A = ΣA_i`, compressed: the Ed25519 verifying key of signatures
    /// on which every witness signed.
    pub fn aggregate_key(&self) -> [u8; 32] {
        self.aggregate_bytes
    }

    /// The full aggregate `A` as a point.
    pub fn aggregate_point(&self) -> &EdwardsPoint {
        &self.aggregate
    }

    /// `A' = Σ_{i ∈ mask} A_i`, computed incrementally from the cached `A`: with `p`
    /// participants it costs `min(p, n − p)` point additions (`A − Σ absent` or
    /// `Σ present`), plus a scan of the mask bytes.
    pub fn aggregate_for_mask(&self, mask: &Mask) -> Result<EdwardsPoint, CosiError> {
        self.check_mask(mask)?;
        Ok(self.aggregate_unchecked(mask))
    }

    /// [`Roster::aggregate_for_mask`] and its compressed encoding (the Ed25519 key under
    /// which the signature with this mask verifies).
    pub fn aggregate_key_for_mask(&self, mask: &Mask) -> Result<[u8; 32], CosiError> {
        self.check_mask(mask)?;
        if mask.is_full() {
            return Ok(self.aggregate_bytes);
        }
        Ok(self.aggregate_unchecked(mask).compress().to_bytes())
    }

    /// Like [`Roster::aggregate_key_for_mask`], returning the point too, and remembering the
    /// last few masks. Signing uses this: consecutive sessions usually share a mask, and in an
    /// in-process simulation all witnesses share one roster, so `A'` is computed once per mask
    /// rather than once per witness. The memo is keyed by the full mask bytes, so it returns
    /// exactly what [`Roster::aggregate_for_mask`] would. Verification does not use it.
    pub fn cached_aggregate_for_mask(
        &self,
        mask: &Mask,
    ) -> Result<(EdwardsPoint, [u8; 32]), CosiError> {
        self.check_mask(mask)?;
        if mask.is_full() {
            return Ok((self.aggregate, self.aggregate_bytes));
        }
        if let Ok(memo) = self.memo.lock() {
            if let Some((_, p, b)) = memo
                .iter()
                .find(|(m, _, _)| m.as_slice() == mask.as_bytes())
            {
                return Ok((*p, *b));
            }
        }
        let p = self.aggregate_unchecked(mask);
        let b = p.compress().to_bytes();
        if let Ok(mut memo) = self.memo.lock() {
            if memo.len() >= MEMO_CAPACITY {
                memo.remove(0);
            }
            memo.push((mask.as_bytes().to_vec(), p, b));
        }
        Ok((p, b))
    }

    fn check_mask(&self, mask: &Mask) -> Result<(), CosiError> {
        if mask.n() != self.len() {
            return Err(crate::error::VerifyFailure::MaskLength {
                expected: self.len(),
                got: mask.n(),
            }
            .into());
        }
        Ok(())
    }

    fn aggregate_unchecked(&self, mask: &Mask) -> EdwardsPoint {
        let present = mask.count();
        if present == self.len() {
            return self.aggregate;
        }
        if 2 * present >= self.len() {
            let mut acc = self.aggregate;
            for i in mask.iter_absent() {
                if let Some(e) = self.entries.get(i) {
                    acc -= e.public_key.point();
                }
            }
            acc
        } else {
            let mut acc = identity();
            for i in mask.iter() {
                if let Some(e) = self.entries.get(i) {
                    acc += e.public_key.point();
                }
            }
            acc
        }
    }
}

/// Batch-verifies all proofs of possession; on failure names every bad entry.
fn verify_pops(entries: &[RosterEntry]) -> Result<(), CosiError> {
    // Weights are derived from a hash of all entries (fixed before the weights exist).
    let seed = {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for e in entries {
            h.update(e.to_bytes());
        }
        let d: [u8; 32] = h.finalize().into();
        d
    };
    let terms: Vec<Option<(EdwardsPoint, Scalar)>> = entries
        .par_iter()
        .map(|e| e.pop.terms(&e.public_key))
        .collect();
    if terms.iter().all(Option::is_some) {
        let mut scalars = Vec::with_capacity(2 * entries.len() + 1);
        let mut points = Vec::with_capacity(2 * entries.len() + 1);
        let mut s_sum = Scalar::ZERO;
        for (i, (e, t)) in entries.iter().zip(&terms).enumerate() {
            if let Some((r, c)) = t {
                let z = batch_weight(&seed, i as u64);
                s_sum += z * e.pop.s();
                scalars.push(-z);
                points.push(*r);
                scalars.push(-(z * c));
                points.push(*e.public_key.point());
            }
        }
        scalars.push(s_sum);
        points.push(ED25519_BASEPOINT_POINT);
        if EdwardsPoint::vartime_multiscalar_mul(&scalars, &points)
            .mul_by_cofactor()
            .is_identity()
        {
            return Ok(());
        }
    }
    let witnesses: Vec<PartyId> = entries
        .par_iter()
        .enumerate()
        .filter(|(_, e)| !e.pop.verify(&e.public_key))
        .map(|(i, _)| witness_id(i))
        .collect();
    if witnesses.is_empty() {
        // The batch can only fail if some individual check fails; kept for robustness.
        return Ok(());
    }
    Err(CosiError::InvalidProofOfPossession { witnesses })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::SecretKey;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn keys(n: usize, seed: u64) -> (Vec<SecretKey>, Vec<RosterEntry>) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let ks: Vec<SecretKey> = (0..n).map(|_| SecretKey::generate(&mut rng)).collect();
        let es = ks.iter().map(|k| k.roster_entry(&mut rng)).collect();
        (ks, es)
    }

    #[test]
    fn incremental_aggregate_matches_naive_sum() {
        let (_, es) = keys(37, 1);
        let roster = Roster::new(es.clone()).expect("valid");
        for present in [
            vec![],
            vec![3],
            (0..20).collect(),
            (0..37).collect::<Vec<_>>(),
            vec![0, 36, 12],
        ] {
            let mask = Mask::from_indices(37, present.iter().copied()).expect("mask");
            let naive: EdwardsPoint = present.iter().map(|&i| es[i].public_key.point()).sum();
            assert_eq!(roster.aggregate_for_mask(&mask), Ok(naive));
            assert_eq!(
                roster.aggregate_key_for_mask(&mask),
                Ok(naive.compress().to_bytes())
            );
            assert_eq!(
                roster.cached_aggregate_for_mask(&mask).map(|x| x.0),
                Ok(naive)
            );
            // Second lookup hits the memo.
            assert_eq!(
                roster.cached_aggregate_for_mask(&mask).map(|x| x.1),
                Ok(naive.compress().to_bytes())
            );
        }
        assert!(roster.aggregate_for_mask(&Mask::full(36)).is_err());
    }

    #[test]
    fn roster_rejects_bad_entries() {
        let (ks, mut es) = keys(6, 2);
        assert!(Roster::new(es.clone()).is_ok());
        // PoP of another key.
        let mut bad = es.clone();
        bad[2].pop = es[3].pop;
        bad[4].pop = es[0].pop;
        assert_eq!(
            Roster::new(bad),
            Err(CosiError::InvalidProofOfPossession {
                witnesses: vec![witness_id(2), witness_id(4)]
            })
        );
        // Duplicate.
        es[5] = es[1];
        assert_eq!(
            Roster::new(es),
            Err(CosiError::DuplicateKey {
                first: witness_id(1),
                second: witness_id(5)
            })
        );
        assert!(Roster::new(vec![]).is_err());
        drop(ks);
    }

    #[test]
    fn roster_id_binds_order() {
        let (_, es) = keys(3, 3);
        let a = Roster::new(es.clone()).expect("valid");
        let mut swapped = es;
        swapped.swap(0, 1);
        let b = Roster::new(swapped).expect("valid");
        assert_ne!(a.id(), b.id());
        assert_eq!(a.aggregate_key(), b.aggregate_key());
    }
}
