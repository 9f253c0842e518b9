//! Plaintext packing: several short plaintexts decrypted with **one** threshold decryption.
//!
//! For ciphertexts `c_0 … c_{G−1}` of plaintexts below `2^W`, the public, deterministic
//! combination `C = Π_j c_j^{2^{W j}} mod N²` encrypts `Σ_j m_j 2^{W j}`; when
//! `G·W < |N|` there is no wrap-around and the slots are read back exactly. Anyone can
//! recompute `C` from the list, so one verified decryption share per server and group proves
//! every slot. Threshold-Paillier decryption shares dominate the cost of Mix and of the
//! input sharing (a `≈ |N²|`-bit exponent each), so packing divides that cost by `G`
//! (7 Mix outputs of [`crate::mix::OUTPUT_SLOT_BITS`] bits per 3072-bit modulus).
//!
//! # Public offset (issue 13)
//! The plaintexts of the proofs' extracted witnesses are only bounded in absolute value
//! (a Σ-protocol over the integers leaves a slack, and a negative value passes it), so
//! [`pack`] adds a public `offset` to every slot homomorphically (one multiplication by the
//! trivial encryption `1 + N·Σ_j offset·2^{Wj}`) before the decryption: with
//! `|m_j| < offset` and `offset + max|m_j| < 2^W`, every slot stays in `[0, 2^W)` and no
//! slot borrows from or carries into its neighbour. The caller subtracts the offset after
//! [`unpack`]. Anyone recomputes the offset ciphertext, so the shares still prove every slot.

use crate::error::MixnetError;
use quorate_paillier::bigint::{modulo, mul_mod, pow_mod_vartime};
use quorate_paillier::rug::Integer;
use quorate_paillier::{Ciphertext, PublicKey};
use rayon::prelude::*;

/// How many `slot_bits`-bit slots fit below `N` (at least 1).
pub fn slots_per_ciphertext(pk: &PublicKey, slot_bits: u32) -> usize {
    (((pk.modulus_bits().saturating_sub(1)) / slot_bits.max(1)) as usize).max(1)
}

/// The packed ciphertexts of `cts`, `slots` per group (the last group may be shorter),
/// with the public `offset` added to every slot (see the module notes).
pub fn pack(
    pk: &PublicKey,
    cts: &[Ciphertext],
    slot_bits: u32,
    slots: usize,
    offset: &Integer,
) -> Result<Vec<Ciphertext>, MixnetError> {
    let (n, n2) = (pk.n(), pk.n_squared());
    let shift = Integer::from(1) << slot_bits;
    cts.par_chunks(slots.max(1))
        .map(|group| {
            // Horner: C = (((c_{G−1})^{2^W} · c_{G−2})^{2^W} · …) · c_0, and the offset
            // Σ_j offset·2^{Wj} likewise.
            let mut acc = Integer::from(1);
            let mut off = Integer::new();
            for c in group.iter().rev() {
                acc = mul_mod(&pow_mod_vartime(&acc, &shift, n2)?, c.as_integer(), n2);
                off = (off << slot_bits) + offset;
            }
            // Enc(off; 1) = 1 + N·off mod N².
            let enc_off = (modulo(&off, n) * n + 1u32) % n2;
            Ok(pk.ciphertext_from_integer(mul_mod(&acc, &enc_off, n2))?)
        })
        .collect()
}

/// Splits a decrypted group plaintext into `count` slots of `slot_bits` bits (still holding
/// the offset of [`pack`]); `None` if the plaintext has bits above the last slot.
pub fn unpack(m: &Integer, slot_bits: u32, count: usize) -> Option<Vec<Integer>> {
    if *m < 0 || u64::from(m.significant_bits()) > u64::from(slot_bits) * count as u64 {
        return None;
    }
    let mask = (Integer::from(1) << slot_bits) - 1u32;
    Some(
        (0..count)
            .map(|j| {
                let shifted = Integer::from(m >> (slot_bits * j as u32));
                shifted & &mask
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use quorate_paillier::SecretKey;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn pack_decrypt_unpack_round_trip() {
        let mut rng = ChaCha20Rng::seed_from_u64(61);
        let sk = SecretKey::generate(1024, &mut rng).expect("key");
        let pk = sk.public_key();
        let slots = slots_per_ciphertext(pk, 256);
        assert_eq!(slots, 3);
        let ms: Vec<Integer> = (0..7u32).map(|i| (Integer::from(1) << 250) + i).collect();
        let cts: Vec<Ciphertext> = ms
            .iter()
            .map(|m| pk.encrypt(m, &mut rng).expect("enc"))
            .collect();
        let packed = pack(pk, &cts, 256, slots, &Integer::new()).expect("pack");
        assert_eq!(packed.len(), 3);
        let mut out = Vec::new();
        for (g, c) in packed.iter().enumerate() {
            let count = (ms.len() - g * slots).min(slots);
            out.extend(unpack(&sk.decrypt(c).expect("dec"), 256, count).expect("unpack"));
        }
        assert_eq!(out, ms);
        assert!(unpack(&(Integer::from(1) << 800), 256, 3).is_none());
        // Negative plaintexts (`N − |m|`) survive packing with an offset above `|m|`.
        let off = Integer::from(1) << 254;
        let neg: Vec<Integer> = (0..4i32).map(|i| Integer::from(-(1000 + i))).collect();
        let cts: Vec<Ciphertext> = neg
            .iter()
            .map(|m| {
                let mm = modulo(m, pk.n());
                pk.encrypt(&mm, &mut rng).expect("enc")
            })
            .collect();
        let packed = pack(pk, &cts, 256, slots, &off).expect("pack");
        let mut out = Vec::new();
        for (g, c) in packed.iter().enumerate() {
            let count = (neg.len() - g * slots).min(slots);
            let raw = unpack(&sk.decrypt(c).expect("dec"), 256, count).expect("unpack");
            out.extend(raw.into_iter().map(|x| x - &off));
        }
        assert_eq!(out, neg);
    }
}
