//! Scaffolding shared by the integration tests (each includes it with `mod common;`) and
//! by `examples/dbsm_profile.rs` (through `#[path]`): the small-world builder (keygen with
//! test moduli, one `Enc` per sender, a real Mix, the input sharing) and the hostile-bytes
//! harness of the wire tests. Seeds, sizes and harness parameters stay with the callers.
//! Not every file uses every item, hence the `dead_code` allowances.
#![allow(clippy::unwrap_used)]

use blstrs::{G1Projective, Scalar};
use ff::Field;
use quorate_core::transcript::SessionId;
use quorate_core::DecodeError;
use quorate_mixnet::mix::{self, MixRecord};
use quorate_mixnet::sender::{self, SenderInput};
use quorate_mixnet::setup::{keygen_with_test_moduli, MixServer, MixnetPublic};
use quorate_mixnet::sharing::{self, MixerShares, SharingRecord};
use quorate_mixnet::MixnetError;
use quorate_paillier::bigint::to_be_bytes_padded;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;
use rand_core::SeedableRng;

/// A keyed, mixed run: the public parameters, the servers, one input per sender and the
/// Mix record.
#[allow(dead_code)]
pub struct Mixed {
    pub public: MixnetPublic,
    pub servers: Vec<MixServer>,
    pub inputs: Vec<SenderInput>,
    pub record: MixRecord,
}

/// Keygen (1024-bit test moduli) under session `sid`, sender `i` encrypting a random
/// scalar for every `i < n`, then a real Mix; all randomness from `rng`, in that order.
#[allow(dead_code)]
pub fn mixed(sid: &[u8], n: usize, t: u16, m: u16, rng: &mut ChaCha20Rng) -> Mixed {
    let sid = SessionId::new(sid.to_vec());
    let (public, servers) = keygen_with_test_moduli(sid, n, t, m, &mut *rng).unwrap();
    let inputs: Vec<SenderInput> = (0..n)
        .map(|i| {
            let v = Scalar::random(&mut *rng);
            sender::encrypt_for(&public, i as u64, v, &mut *rng)
                .unwrap()
                .0
        })
        .collect();
    let record = mix::run(&public, &servers, &inputs, &mut *rng).unwrap();
    Mixed {
        public,
        servers,
        inputs,
        record,
    }
}

/// A [`Mixed`] run with the senders' commitments `γ_i` (the DB-RSM statement) and the rng it
/// was drawn from, for the DB-RSM tests.
#[allow(dead_code)]
pub struct RsmWorld {
    pub public: MixnetPublic,
    pub servers: Vec<MixServer>,
    pub inputs: Vec<SenderInput>,
    pub gammas: Vec<G1Projective>,
    pub record: MixRecord,
    pub rng: ChaCha20Rng,
}

/// [`mixed`] with `t = m` under session `{label}-{seed}`, seeded with `seed`.
#[allow(dead_code)]
pub fn rsm_world(label: &str, n: usize, m: u16, seed: u64) -> RsmWorld {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let Mixed {
        public,
        servers,
        inputs,
        record,
    } = mixed(format!("{label}-{seed}").as_bytes(), n, m, m, &mut rng);
    let gammas = inputs.iter().map(|s| s.gamma).collect();
    RsmWorld {
        public,
        servers,
        inputs,
        gammas,
        record,
        rng,
    }
}

/// The input sharing of a mixed run, checked: the record, the servers' shares and the
/// value commitments `verify_sharing` returns.
#[allow(dead_code)]
pub fn share(
    public: &MixnetPublic,
    servers: &[MixServer],
    inputs: &[SenderInput],
    record: &MixRecord,
    rng: &mut ChaCha20Rng,
) -> (SharingRecord, Vec<MixerShares>, Vec<Vec<G1Projective>>) {
    let (rec, shares) = sharing::run_sharing(public, servers, inputs, record, rng).unwrap();
    let coms = sharing::verify_sharing(public, inputs, record, &rec).unwrap();
    (rec, shares, coms)
}

/// How hard [`hostile`] tries (each wire test keeps its own numbers).
#[allow(dead_code)]
pub struct Hostility {
    /// Messages longer than this are sampled, not exhausted.
    pub long: usize,
    /// Long messages: truncations every `len / trunc_div` bytes ...
    pub trunc_div: usize,
    /// ... and all within this many bytes of either end.
    pub trunc_edge: usize,
    /// The two trailing-byte suffixes appended after `[0]`.
    pub trailing: &'static [u8],
    /// Random multi-byte mutations.
    pub mutations: usize,
    /// One-byte flips every `len / flip_div` bytes (and all within 32 of either end).
    pub flip_div: usize,
    /// The flip masks for long messages (short ones get `0x01` and `0x80`).
    pub long_masks: &'static [u8],
}

/// Every hostile variant of a valid encoding `good` must be rejected with a typed error or,
/// if it decodes, re-encode to exactly the same bytes (one encoding per message).
#[allow(dead_code)]
pub fn hostile<T>(
    h: &Hostility,
    name: &str,
    good: &[u8],
    dec: impl Fn(&[u8]) -> Result<T, MixnetError>,
    enc: impl Fn(&T) -> Vec<u8>,
) {
    let ok = dec(good).unwrap_or_else(|e| panic!("{name}: valid encoding rejected: {e}"));
    assert_eq!(enc(&ok), good, "{name}: not canonical");
    // Truncations: every one for short messages, a dense sample (all near both ends) else.
    let len = good.len();
    let long = len > h.long;
    let cuts: Vec<usize> = if long {
        let step = len / h.trunc_div;
        (0..len)
            .filter(|&c| c < h.trunc_edge || c + h.trunc_edge > len || c % step == 0)
            .collect()
    } else {
        (0..len).collect()
    };
    for c in cuts {
        assert!(
            dec(&good[..c]).is_err(),
            "{name}: truncation to {c} accepted"
        );
    }
    // Trailing bytes.
    for extra in [&[0u8][..], h.trailing] {
        let mut b = good.to_vec();
        b.extend_from_slice(extra);
        assert!(
            matches!(
                dec(&b),
                Err(MixnetError::Decode(DecodeError::TrailingBytes { .. }))
            ),
            "{name}: trailing bytes accepted"
        );
    }
    // Wrong tag / version.
    for (pos, delta) in [(0usize, 1u8), (0, 0x20), (1, 1), (1, 0xFF)] {
        let mut b = good.to_vec();
        b[pos] = b[pos].wrapping_add(delta);
        assert!(
            matches!(
                dec(&b),
                Err(MixnetError::Decode(DecodeError::UnknownVersion { .. }))
            ),
            "{name}: wrong header byte {pos} accepted"
        );
    }
    // Garbage of several lengths, with and without the right header.
    let mut rng = ChaCha20Rng::seed_from_u64(len as u64);
    for glen in [0usize, 1, 2, 3, 17, 100, 1000, len, len + 1] {
        for with_header in [false, true] {
            let mut b = vec![0u8; glen];
            rng.fill_bytes(&mut b);
            if with_header && glen >= 2 {
                b[..2].copy_from_slice(&good[..2]);
            }
            assert!(dec(&b).is_err(), "{name}: {glen} garbage bytes accepted");
        }
    }
    // Random multi-byte mutations (1–4 bytes overwritten, sometimes also truncated or
    // extended): typed errors or canonical re-encodings, never a panic.
    for _ in 0..h.mutations {
        let mut b = good.to_vec();
        for _ in 0..1 + rng.next_u32() % 4 {
            let pos = rng.next_u32() as usize % len;
            b[pos] = rng.next_u32() as u8;
        }
        match rng.next_u32() % 4 {
            0 => b.truncate(rng.next_u32() as usize % len),
            1 => b.extend_from_slice(&[0u8; 48]),
            _ => {}
        }
        if let Ok(x) = dec(&b) {
            assert_eq!(enc(&x), b, "{name}: mutation decodes to another encoding");
        }
    }
    // One-byte flips, always including both ends.
    let step = (len / h.flip_div).max(1);
    let positions: Vec<usize> = (0..len)
        .filter(|&p| p < 32 || p + 32 > len || p % step == 0)
        .collect();
    let masks: &[u8] = if long { h.long_masks } else { &[0x01, 0x80] };
    for p in positions {
        for &mask in masks {
            let mut b = good.to_vec();
            b[p] ^= mask;
            if let Ok(x) = dec(&b) {
                assert_eq!(
                    enc(&x),
                    b,
                    "{name}: flip at {p} decodes to another encoding"
                );
            }
        }
    }
}

/// `good` with the bytes at `offset` overwritten by `with`.
#[allow(dead_code)]
pub fn replace(good: &[u8], offset: usize, with: &[u8]) -> Vec<u8> {
    let mut b = good.to_vec();
    b[offset..offset + with.len()].copy_from_slice(with);
    b
}

/// The compressed encoding of the G1 identity.
#[allow(dead_code)]
pub fn g1_identity() -> [u8; 48] {
    let mut b = [0u8; 48];
    b[0] = 0xC0;
    b
}

/// `q` (the scalar field order) big-endian: a non-canonical scalar.
#[allow(dead_code)]
pub fn scalar_q() -> [u8; 32] {
    let q = quorate_mixnet::params::scalar_modulus();
    to_be_bytes_padded(&q, 32).unwrap().try_into().unwrap()
}

/// The servers an error blames, as raw ids.
#[allow(dead_code)]
pub fn culprits(e: &MixnetError) -> Vec<u16> {
    use quorate_core::error::Culprits;
    e.culprits().iter().map(|p| p.get()).collect()
}
