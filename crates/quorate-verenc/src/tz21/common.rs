//! Pieces shared by DKGitH and RDKGitH: hashed ElGamal, seed expansion, the Fiat–Shamir
//! transcript, challenge expansion and a bounds-checked byte reader.

use ff::Field;
use group::{Group, GroupEncoding};
use merlin::Transcript;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use sha2::{Digest, Sha256};
use zeroize::{Zeroize, Zeroizing};

use super::{Scheme, Tz21Error, Tz21Params};
use crate::group::Curve;

/// Bytes of a party seed (λ = 128).
pub(crate) const SEED_LEN: usize = 16;
/// Bytes of the per-proof salt.
pub(crate) const SALT_LEN: usize = 32;
/// Bytes of the Fiat–Shamir challenge carried in a proof.
pub(crate) const CHALLENGE_LEN: usize = 32;
/// Bytes of an encoded scalar.
pub(crate) const SCALAR_LEN: usize = 32;

/// Entries of a compressed ciphertext: `(ct, λ)`.
pub(crate) type Entries<C> = Vec<(Ciphertext<C>, <C as Curve>::Scalar)>;

/// A party seed. Wiped on drop.
pub(crate) type Seed = Zeroizing<[u8; SEED_LEN]>;

/// Domain-separation prefix of every hash in this module.
const DOMAIN: &[u8] = b"quorate/tz21/v1/";

/// One hashed-ElGamal ciphertext `(c1, c2) = (r·G, H(r·ek) + m)`.
#[derive(Clone, Copy)]
pub struct Ciphertext<C: Curve> {
    /// `c1 = r·G`.
    pub c1: C::Point,
    /// `c2 = H(r·ek) + m`.
    pub c2: C::Scalar,
}

impl<C: Curve> PartialEq for Ciphertext<C> {
    fn eq(&self, other: &Self) -> bool {
        self.c1 == other.c1 && self.c2 == other.c2
    }
}
impl<C: Curve> Eq for Ciphertext<C> {}

impl<C: Curve> core::fmt::Debug for Ciphertext<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ciphertext")
            .field("c1", &hex::encode(self.c1.to_bytes()))
            .field("c2", &hex::encode(C::scalar_to_be_bytes(&self.c2)))
            .finish()
    }
}

impl<C: Curve> Ciphertext<C> {
    /// Encoding: `c1 ‖ c2` (point, then 32 big-endian bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(Self::len());
        self.write(&mut v);
        v
    }

    /// Checked decoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Tz21Error> {
        let mut r = Reader::new(bytes);
        let ct = Self::read(&mut r)?;
        r.finish()?;
        Ok(ct)
    }

    /// Encoded length: a point and a scalar.
    pub(crate) fn len() -> usize {
        C::POINT_LEN + SCALAR_LEN
    }

    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.c1.to_bytes().as_ref());
        out.extend_from_slice(&C::scalar_to_be_bytes(&self.c2));
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, Tz21Error> {
        let c1 = r.point::<C>("ciphertext c1")?;
        let c2 = r.scalar::<C>("ciphertext c2")?;
        Ok(Ciphertext { c1, c2 })
    }
}

/// The hashed-ElGamal key-derivation function `H: G → Z_ρ`, applied to the encoding of
/// the Diffie–Hellman point `r·ek = dk·c1`. SHA-256 with domain separation seeds a
/// ChaCha20 stream from which `ff::Field::random` draws a uniform scalar.
pub(crate) fn kdf<C: Curve>(shared_point_bytes: &[u8]) -> C::Scalar {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(b"kdf/");
    h.update(C::NAME.as_bytes());
    h.update([0u8]);
    h.update(shared_point_bytes);
    let mut seed: [u8; 32] = h.finalize().into();
    let mut rng = ChaCha20Rng::from_seed(seed);
    seed.zeroize();
    C::Scalar::random(&mut rng)
}

/// The per-party PRG: `(salt, repetition, party, seed)` ↦ ChaCha20 stream. Party shares
/// and encryption randomness are drawn from it with `ff::Field::random`.
pub(crate) fn party_prg<C: Curve>(
    scheme: Scheme,
    salt: &[u8; SALT_LEN],
    rep: usize,
    party: usize,
    seed: &[u8; SEED_LEN],
) -> ChaCha20Rng {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(b"party/");
    h.update(scheme.name().as_bytes());
    h.update([0u8]);
    h.update(C::NAME.as_bytes());
    h.update([0u8]);
    h.update(salt);
    h.update((rep as u32).to_be_bytes());
    h.update((party as u32).to_be_bytes());
    h.update(seed);
    let mut key: [u8; 32] = h.finalize().into();
    let rng = ChaCha20Rng::from_seed(key);
    key.zeroize();
    rng
}

/// Draws a fresh seed from the caller's RNG.
pub(crate) fn random_seed(rng: &mut impl RngCore) -> Seed {
    let mut s = Zeroizing::new([0u8; SEED_LEN]);
    rng.fill_bytes(s.as_mut());
    s
}

/// The Fiat–Shamir transcript, opened with everything public that the proof is about:
/// protocol name and version, scheme, parameters, curve, escrow key, statement, label.
pub(crate) fn transcript<C: Curve>(
    params: &Tz21Params,
    ek: &C::Point,
    public: &C::Point,
    label: &[u8],
) -> Transcript {
    let mut t = Transcript::new(b"quorate/tz21 verifiable encryption");
    t.append_message(b"version", b"1");
    t.append_message(b"scheme", params.scheme.name().as_bytes());
    t.append_u64(b"N", params.parties as u64);
    t.append_u64(b"tau-or-t", params.rounds_or_threshold as u64);
    t.append_u64(b"n", params.compressed as u64);
    t.append_message(b"curve", C::NAME.as_bytes());
    t.append_message(b"ek", ek.to_bytes().as_ref());
    t.append_message(b"X", public.to_bytes().as_ref());
    t.append_message(b"label", label);
    t
}

/// A ChaCha20 stream keyed by transcript output, for expanding challenges.
pub(crate) fn transcript_rng(t: &mut Transcript, label: &'static [u8]) -> ChaCha20Rng {
    let mut key = [0u8; 32];
    t.challenge_bytes(label, &mut key);
    ChaCha20Rng::from_seed(key)
}

/// A ChaCha20 stream keyed by the challenge bytes and a purpose tag.
pub(crate) fn challenge_rng(challenge: &[u8; CHALLENGE_LEN], purpose: &[u8]) -> ChaCha20Rng {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(b"challenge/");
    h.update(purpose);
    h.update([0u8]);
    h.update(challenge);
    ChaCha20Rng::from_seed(h.finalize().into())
}

/// Uniform index in `[0, n)` by rejection sampling on 32-bit words (`0 < n ≤ 2^16`).
pub(crate) fn uniform_index(rng: &mut impl RngCore, n: usize) -> usize {
    let n = n as u32;
    let zone = u32::MAX - (u32::MAX % n);
    loop {
        let v = rng.next_u32();
        if v < zone {
            return (v % n) as usize;
        }
    }
}

/// A uniformly random subset of `[0, n)` of size `k`, sorted (partial Fisher–Yates).
pub(crate) fn random_subset(rng: &mut impl RngCore, n: usize, k: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in 0..k {
        let j = i + uniform_index(rng, n - i);
        v.swap(i, j);
    }
    let mut s = v[..k].to_vec();
    s.sort_unstable();
    s
}

/// `SHA-256(domain ‖ tag ‖ data)`, used to digest a batch of commitments before it enters
/// the transcript.
pub(crate) fn digest(tag: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(tag);
    h.update([0u8]);
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p);
    }
    h.finalize().into()
}

/// A cursor over untrusted bytes: every read is bounds-checked and typed.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    pub(crate) fn take(&mut self, what: &'static str, n: usize) -> Result<&'a [u8], Tz21Error> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(Tz21Error::Truncated { what })?;
        if end > self.bytes.len() {
            return Err(Tz21Error::Truncated { what });
        }
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn array<const L: usize>(
        &mut self,
        what: &'static str,
    ) -> Result<[u8; L], Tz21Error> {
        let mut a = [0u8; L];
        a.copy_from_slice(self.take(what, L)?);
        Ok(a)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, Tz21Error> {
        Ok(self.take(what, 1)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, Tz21Error> {
        Ok(u16::from_be_bytes(self.array::<2>(what)?))
    }

    pub(crate) fn point<C: Curve>(&mut self, what: &'static str) -> Result<C::Point, Tz21Error> {
        let b = self.take(what, C::POINT_LEN)?;
        C::point_from_bytes(what, b).map_err(Tz21Error::from)
    }

    pub(crate) fn scalar<C: Curve>(&mut self, what: &'static str) -> Result<C::Scalar, Tz21Error> {
        let b = self.array::<32>(what)?;
        C::scalar_from_be_bytes(&b).ok_or(Tz21Error::Decode(
            crate::group::GroupDecodeError::Scalar { what },
        ))
    }

    pub(crate) fn seed(&mut self, what: &'static str) -> Result<Seed, Tz21Error> {
        let mut s = Zeroizing::new([0u8; SEED_LEN]);
        s.copy_from_slice(self.take(what, SEED_LEN)?);
        Ok(s)
    }

    pub(crate) fn finish(&self) -> Result<(), Tz21Error> {
        if self.pos != self.bytes.len() {
            return Err(Tz21Error::TrailingBytes {
                extra: self.bytes.len() - self.pos,
            });
        }
        Ok(())
    }
}

/// `P == Q` for group elements, written out for readability at call sites.
pub(crate) fn same_point<C: Curve>(a: &C::Point, b: &C::Point) -> bool {
    bool::from((*a - *b).is_identity())
}
