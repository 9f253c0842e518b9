//! Baselines from the paper's evaluation (§ "Computation costs", Figs. 4–5), for comparison
//! with CoSi. **Not** collective signatures; they exist to be measured.
//!
//! * **Naive**: every witness signs the message separately with Ed25519 (RFC 8032
//!   verification equation, hedged random nonce); the leader collects all `n` signatures and
//!   verifies each one ([`naive_sign_in_process`]).
//! * **NTree**: the same individual signatures, but collected up a tree: each node forwards
//!   the list of its subtree's signatures, and each interior node verifies the signatures of
//!   its *direct children* ([`ntree_sign_in_process`]). The root receives `O(n)` bytes but
//!   verifies only its children's signatures.
//! * **JVSS**: joint Schnorr signatures with a threshold key from a joint (Feldman) VSS, and
//!   **per-round dealing**: every signing round, every one of the `n` members deals a fresh
//!   degree-`t−1` sharing of a nonce to all `n` members, who each verify the `n` shares they
//!   receive against the dealers' commitments — `O(n²)` messages and `O(n·t)` group work per
//!   member per round. The result is an Ed25519 signature under the joint key
//!   ([`JvssGroup`], [`jvss_sign_in_process`]).
//!
//! Individual signatures use each witness's **baseline key** ([`BaselineKey`]), never its
//! roster key: CoSi signatures are plain Ed25519 signatures under the participants'
//! aggregate key, so an Ed25519 signature under a roster key `A_i` would also be a valid
//! CoSi signature with the one-bit mask `{i}`. The baseline key `b_i` is derived from the
//! roster key under its own domain tag ([`DOMAIN_BASELINE_KEY`]), so `B_i = b_i·B` is an
//! unrelated key that no roster contains. Verification is strict (canonical `s`, canonical
//! `R`, no small-order `R` or key), like `ed25519_dalek::VerifyingKey::verify_strict`.
//! Nothing here is used by CoSi itself.
//!
//! Simplifications (documented, they only make the baselines *cheaper*): JVSS shares are
//! sent in the clear (the paper encrypts each share to its recipient, which adds one
//! Diffie–Hellman per share); JVSS has no complaint round (all members are honest in the
//! benchmarks); the leader combines the first `t` partial signatures and verifies the result
//! instead of checking each partial.

use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, VartimeMultiscalarMul};
use quorate_core::ParamError;
use quorate_cosi::hash::ed25519_challenge;
use quorate_cosi::{CosiError, SecretKey, Tree};
use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha512};
use std::fmt;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Tag of the baseline key derivation `b_i = SHA-512(tag ‖ a_i) mod L`.
pub const DOMAIN_BASELINE_KEY: &[u8] = b"quorate/cosi/baseline-key/v1";
/// Tag of the baselines' hedged nonces `r = SHA-512(tag ‖ fresh ‖ b_i ‖ M) mod L`.
pub const DOMAIN_BASELINE_NONCE: &[u8] = b"quorate/cosi/baseline-nonce/v1";

/// A witness's key for the individual-signature baselines (Naive, NTree): `b_i`, derived
/// from the roster key `a_i` under [`DOMAIN_BASELINE_KEY`], and its public key
/// `B_i = b_i·B`. Zeroized on drop; `Debug` shows only the public key.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct BaselineKey {
    scalar: Scalar,
    #[zeroize(skip)]
    public: BaselinePublicKey,
}

/// The public half of a [`BaselineKey`]: `B_i` and its compressed encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BaselinePublicKey {
    point: EdwardsPoint,
    bytes: [u8; 32],
}

impl BaselineKey {
    /// Derives witness `key`'s baseline key (deterministic; never equal to the roster key).
    pub fn derive(key: &SecretKey) -> Self {
        let a = key.to_bytes();
        let mut h = Sha512::new();
        h.update(DOMAIN_BASELINE_KEY);
        h.update(a.as_ref());
        let scalar = Scalar::from_hash(h);
        let point = EdwardsPoint::mul_base(&scalar);
        BaselineKey {
            scalar,
            public: BaselinePublicKey {
                point,
                bytes: point.compress().to_bytes(),
            },
        }
    }

    /// The public key `B_i`.
    pub fn public_key(&self) -> &BaselinePublicKey {
        &self.public
    }
}

impl fmt::Debug for BaselineKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BaselineKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl BaselinePublicKey {
    /// The compressed encoding of `B_i`.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.bytes
    }

    /// The point `B_i`.
    pub fn point(&self) -> &EdwardsPoint {
        &self.point
    }
}

impl fmt::Debug for BaselinePublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BaselinePublicKey({})", hex::encode(self.bytes))
    }
}

/// Bytes of one individual signature on the wire: witness index (u16) and `R ‖ s`.
pub const INDIVIDUAL_WIRE_BYTES: usize = 2 + 64;

/// Signs `message` as a plain Ed25519 signature `R ‖ s` under the baseline key `B_i` (random
/// nonce hedged with the key and the message; verifies with any strict RFC 8032 verifier).
pub fn sign_individual<R: RngCore + CryptoRng>(
    key: &BaselineKey,
    message: &[u8],
    rng: &mut R,
) -> [u8; 64] {
    let r = loop {
        let mut fresh = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(fresh.as_mut());
        let mut h = Sha512::new();
        h.update(DOMAIN_BASELINE_NONCE);
        h.update(fresh.as_ref());
        h.update(key.scalar.as_bytes());
        h.update(message);
        let r = Scalar::from_hash(h);
        if r != Scalar::ZERO {
            break r;
        }
    };
    let big_r = EdwardsPoint::mul_base(&r).compress().to_bytes();
    let c = ed25519_challenge(&big_r, key.public.as_bytes(), message);
    let s = r + c * key.scalar;
    let mut out = [0u8; 64];
    out[..32].copy_from_slice(&big_r);
    out[32..].copy_from_slice(s.as_bytes());
    out
}

/// Strict Ed25519 verification of `sig = R ‖ s` on `message` under the point `a` (with its
/// encoding `a_bytes`). Never panics.
pub fn verify_ed25519(
    a: &EdwardsPoint,
    a_bytes: &[u8; 32],
    message: &[u8],
    sig: &[u8; 64],
) -> bool {
    let mut r_bytes = [0u8; 32];
    r_bytes.copy_from_slice(&sig[..32]);
    let mut s_bytes = [0u8; 32];
    s_bytes.copy_from_slice(&sig[32..]);
    let Some(r) = CompressedEdwardsY(r_bytes)
        .decompress()
        .filter(|r| r.compress().as_bytes() == &r_bytes)
    else {
        return false;
    };
    let Some(s) = Option::<Scalar>::from(Scalar::from_canonical_bytes(s_bytes)) else {
        return false;
    };
    if r.is_small_order() || a.is_small_order() {
        return false;
    }
    let c = ed25519_challenge(&r_bytes, a_bytes, message);
    EdwardsPoint::vartime_double_scalar_mul_basepoint(&c, &-a, &s) == r
}

/// [`verify_ed25519`] under a baseline key.
pub fn verify_individual(key: &BaselinePublicKey, message: &[u8], sig: &[u8; 64]) -> bool {
    verify_ed25519(key.point(), key.as_bytes(), message, sig)
}

/// Encodes a list of individual signatures: `u32 count ‖ (u16 index ‖ R ‖ s)*`.
pub fn encode_signatures(sigs: &[(usize, [u8; 64])]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + sigs.len() * INDIVIDUAL_WIRE_BYTES);
    out.extend_from_slice(&(sigs.len() as u32).to_be_bytes());
    for (i, s) in sigs {
        out.extend_from_slice(&(*i as u16).to_be_bytes());
        out.extend_from_slice(s);
    }
    out
}

/// Decodes [`encode_signatures`]; `None` on any malformation or an index `≥ n`.
pub fn decode_signatures(bytes: &[u8], n: usize) -> Option<Vec<(usize, [u8; 64])>> {
    let count = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let body = bytes.get(4..)?;
    if body.len() != count.checked_mul(INDIVIDUAL_WIRE_BYTES)? {
        return None;
    }
    body.chunks_exact(INDIVIDUAL_WIRE_BYTES)
        .map(|c| {
            let i = usize::from(u16::from_be_bytes([c[0], c[1]]));
            let mut s = [0u8; 64];
            s.copy_from_slice(&c[2..]);
            (i < n).then_some((i, s))
        })
        .collect()
}

/// Naive baseline in one process: each witness signs, the leader verifies all `n`
/// signatures. Returns the collected list (roster order). Fails naming the witnesses whose
/// signature does not verify.
pub fn naive_sign_in_process<R: RngCore + CryptoRng>(
    keys: &[BaselineKey],
    message: &[u8],
    rng: &mut R,
) -> Result<Vec<(usize, [u8; 64])>, CosiError> {
    let sigs: Vec<(usize, [u8; 64])> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (i, sign_individual(k, message, rng)))
        .collect();
    let bad: Vec<usize> = sigs
        .iter()
        .filter(|(i, s)| !verify_individual(keys[*i].public_key(), message, s))
        .map(|(i, _)| *i)
        .collect();
    if bad.is_empty() {
        Ok(sigs)
    } else {
        Err(CosiError::blame_many(
            &bad,
            "individual signature does not verify",
        ))
    }
}

/// NTree baseline in one process: signatures travel up `tree`; each interior node verifies
/// its direct children's own signatures and forwards its subtree's list. Returns the root's
/// list (every tree member once).
pub fn ntree_sign_in_process<R: RngCore + CryptoRng>(
    keys: &[BaselineKey],
    tree: &Tree,
    message: &[u8],
    rng: &mut R,
) -> Result<Vec<(usize, [u8; 64])>, CosiError> {
    if tree.n() != keys.len() {
        return Err(ParamError::LengthMismatch {
            what: "tree size",
            expected: keys.len(),
            got: tree.n(),
        }
        .into());
    }
    let n = keys.len();
    let mut lists: Vec<Vec<(usize, [u8; 64])>> = vec![Vec::new(); n];
    for level in tree.levels().iter().rev() {
        for &v in level {
            let own = (v, sign_individual(&keys[v], message, rng));
            let mut list = vec![own];
            for &c in tree.children(v) {
                let child = std::mem::take(&mut lists[c]);
                match child.iter().find(|(i, _)| *i == c) {
                    Some((_, s)) if verify_individual(keys[c].public_key(), message, s) => {}
                    _ => return Err(CosiError::blame(c, "child signature does not verify")),
                }
                list.extend(child);
            }
            lists[v] = list;
        }
    }
    let mut out = std::mem::take(&mut lists[tree.root()]);
    out.sort_unstable_by_key(|(i, _)| *i);
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// JVSS
// ---------------------------------------------------------------------------------------

/// One member's dealing: Feldman commitments to a degree-`t−1` polynomial and the shares
/// `f(j + 1)` for every member `j`.
#[derive(Clone, Debug)]
pub struct Dealing {
    /// The dealer's index.
    pub from: usize,
    /// `C_k = f_k·B`, `k < t`.
    pub commitments: Vec<EdwardsPoint>,
    /// `shares[j] = f(j + 1)`.
    pub shares: Vec<Scalar>,
}

impl Dealing {
    /// Deals a fresh random polynomial of degree `t − 1` to `n` members.
    pub fn new<R: RngCore + CryptoRng>(from: usize, n: usize, t: usize, rng: &mut R) -> Self {
        let coeffs: Vec<Scalar> = (0..t).map(|_| Scalar::random(rng)).collect();
        let commitments = coeffs.iter().map(EdwardsPoint::mul_base).collect();
        let shares = (0..n)
            .map(|j| {
                let x = Scalar::from((j + 1) as u64);
                coeffs.iter().rev().fold(Scalar::ZERO, |acc, a| acc * x + a)
            })
            .collect();
        Dealing {
            from,
            commitments,
            shares,
        }
    }

    /// Bytes of the message carrying member `j`'s share: dealer index, commitments, share.
    pub fn wire_bytes(t: usize) -> usize {
        2 + 32 * t + 32
    }
}

/// `share·B = Σ_k (j+1)^k C_k` (variable-time multi-scalar multiplication).
pub fn verify_share(commitments: &[EdwardsPoint], j: usize, share: &Scalar) -> bool {
    let x = Scalar::from((j + 1) as u64);
    let mut powers = Vec::with_capacity(commitments.len() + 1);
    let mut p = Scalar::ONE;
    for _ in commitments {
        powers.push(-p);
        p *= x;
    }
    powers.push(*share);
    let points = commitments.iter().copied().chain(std::iter::once(
        curve25519_dalek::constants::ED25519_BASEPOINT_POINT,
    ));
    EdwardsPoint::vartime_multiscalar_mul(powers, points).is_identity()
}

/// Lagrange coefficients at zero for the members `indices` (evaluation points `i + 1`).
pub fn lagrange_at_zero(indices: &[usize]) -> Vec<Scalar> {
    let xs: Vec<Scalar> = indices
        .iter()
        .map(|&i| Scalar::from((i + 1) as u64))
        .collect();
    xs.iter()
        .enumerate()
        .map(|(a, xa)| {
            let mut num = Scalar::ONE;
            let mut den = Scalar::ONE;
            for (b, xb) in xs.iter().enumerate() {
                if a != b {
                    num *= xb;
                    den *= xb - xa;
                }
            }
            num * den.invert()
        })
        .collect()
}

/// A JVSS group after its (joint Feldman) key generation.
#[derive(Clone, Debug)]
pub struct JvssGroup {
    n: usize,
    t: usize,
    key: EdwardsPoint,
    key_bytes: [u8; 32],
    shares: Vec<Scalar>,
}

impl JvssGroup {
    /// Joint key generation among `n` members with threshold `t` (`1 ≤ t ≤ n`): every
    /// member deals, every member verifies the `n` shares it receives. Run once, in process.
    pub fn generate<R: RngCore + CryptoRng>(
        n: usize,
        t: usize,
        rng: &mut R,
    ) -> Result<Self, CosiError> {
        if n == 0 || t == 0 || t > n || n > u16::MAX as usize {
            return Err(ParamError::Invalid("JVSS needs 1 ≤ t ≤ n ≤ 65535").into());
        }
        let dealings: Vec<Dealing> = (0..n).map(|i| Dealing::new(i, n, t, rng)).collect();
        let mut shares = vec![Scalar::ZERO; n];
        let mut key = EdwardsPoint::mul_base(&Scalar::ZERO);
        for d in &dealings {
            key += d.commitments[0];
            for (j, s) in d.shares.iter().enumerate() {
                if !verify_share(&d.commitments, j, s) {
                    return Err(CosiError::blame(d.from, "JVSS share does not verify"));
                }
                shares[j] += s;
            }
        }
        Ok(JvssGroup {
            n,
            t,
            key,
            key_bytes: key.compress().to_bytes(),
            shares,
        })
    }

    /// Members.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Threshold.
    pub fn t(&self) -> usize {
        self.t
    }

    /// The joint public key `X` (compressed): signatures are Ed25519 under it.
    pub fn public_key(&self) -> [u8; 32] {
        self.key_bytes
    }

    /// The joint public key point.
    pub fn public_point(&self) -> &EdwardsPoint {
        &self.key
    }

    /// Member `i`'s long-term share `x_i` (a benchmark model: all shares live in one value).
    pub fn share(&self, i: usize) -> Option<&Scalar> {
        self.shares.get(i)
    }

    /// Member `i`'s partial signature `s_i = v_i + c·x_i` for the round nonce share `v_i`
    /// and joint nonce `V` (compressed), with `c = SHA-512(V ‖ X ‖ M)`.
    pub fn partial(&self, i: usize, v_i: &Scalar, v_bytes: &[u8; 32], message: &[u8]) -> Scalar {
        let c = ed25519_challenge(v_bytes, &self.key_bytes, message);
        v_i + c * self.shares.get(i).copied().unwrap_or(Scalar::ZERO)
    }

    /// Combines `t` partials `(index, s_i)` into `V ‖ s` and verifies it (strict Ed25519
    /// under `X`). `None` if it does not verify.
    pub fn combine(
        &self,
        partials: &[(usize, Scalar)],
        v_bytes: &[u8; 32],
        message: &[u8],
    ) -> Option<[u8; 64]> {
        let idx: Vec<usize> = partials.iter().map(|(i, _)| *i).collect();
        let lambda = lagrange_at_zero(&idx);
        let s: Scalar = partials.iter().zip(&lambda).map(|((_, s), l)| s * l).sum();
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(v_bytes);
        sig[32..].copy_from_slice(s.as_bytes());
        verify_ed25519(&self.key, &self.key_bytes, message, &sig).then_some(sig)
    }
}

/// One JVSS signing round in process: all `n` members deal a nonce sharing to all, verify
/// the `n` shares they receive, the first `t` members answer, the leader combines.
pub fn jvss_sign_in_process<R: RngCore + CryptoRng>(
    group: &JvssGroup,
    message: &[u8],
    rng: &mut R,
) -> Result<[u8; 64], CosiError> {
    let (n, t) = (group.n, group.t);
    let dealings: Vec<Dealing> = (0..n).map(|i| Dealing::new(i, n, t, rng)).collect();
    let mut v = EdwardsPoint::mul_base(&Scalar::ZERO);
    for d in &dealings {
        v += d.commitments[0];
    }
    let v_bytes = v.compress().to_bytes();
    let mut partials = Vec::with_capacity(t);
    for j in 0..n {
        let mut v_j = Scalar::ZERO;
        for d in &dealings {
            if !verify_share(&d.commitments, j, &d.shares[j]) {
                return Err(CosiError::blame(d.from, "JVSS nonce share does not verify"));
            }
            v_j += d.shares[j];
        }
        if partials.len() < t {
            partials.push((j, group.partial(j, &v_j, &v_bytes, message)));
        }
    }
    group
        .combine(&partials, &v_bytes, message)
        .ok_or(CosiError::ProofRejected("JVSS signature does not verify"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    #[test]
    fn baselines_verify() {
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let keys: Vec<BaselineKey> = (0..13)
            .map(|_| BaselineKey::derive(&SecretKey::generate(&mut rng)))
            .collect();
        let naive = naive_sign_in_process(&keys, b"m", &mut rng).expect("naive");
        assert_eq!(naive.len(), 13);
        let tree = Tree::complete(13, 3).expect("tree");
        let nt = ntree_sign_in_process(&keys, &tree, b"m", &mut rng).expect("ntree");
        assert_eq!(nt.len(), 13);
        for (i, s) in &nt {
            assert!(verify_individual(keys[*i].public_key(), b"m", s));
            assert!(!verify_individual(keys[*i].public_key(), b"x", s));
        }
        let enc = encode_signatures(&nt);
        assert_eq!(decode_signatures(&enc, 13).as_deref(), Some(nt.as_slice()));
        assert_eq!(decode_signatures(&enc[..enc.len() - 1], 13), None);
        let g = JvssGroup::generate(7, 4, &mut rng).expect("jvss");
        let sig = jvss_sign_in_process(&g, b"m", &mut rng).expect("sign");
        assert!(verify_ed25519(
            g.public_point(),
            &g.public_key(),
            b"m",
            &sig
        ));
        assert!(!verify_ed25519(
            g.public_point(),
            &g.public_key(),
            b"n",
            &sig
        ));
    }
}

#[cfg(test)]
mod regression {
    use super::*;
    use quorate_cosi::{Policy, Roster, Signature};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    /// No baseline signature, with the one-bit mask of its signer, verifies as a CoSi
    /// signature (a baseline signature under the roster key would).
    #[test]
    fn baseline_signature_is_not_a_one_bit_cosi_signature() {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let keys: Vec<SecretKey> = (0..4).map(|_| SecretKey::generate(&mut rng)).collect();
        let roster =
            Roster::new(keys.iter().map(|k| k.roster_entry(&mut rng)).collect()).expect("roster");
        let baseline: Vec<BaselineKey> = keys.iter().map(BaselineKey::derive).collect();
        let sigs = naive_sign_in_process(&baseline, b"m", &mut rng).expect("naive");
        for (i, s) in sigs {
            assert!(verify_individual(baseline[i].public_key(), b"m", &s));
            assert_ne!(
                baseline[i].public_key().as_bytes(),
                keys[i].public_key().as_bytes()
            );
            let mut bytes = s.to_vec();
            bytes.push(1u8 << i);
            let sig = Signature::from_bytes(&bytes, 4).expect("well-formed");
            assert!(
                roster.verify(b"m", &sig, &Policy::Threshold(1)).is_err(),
                "witness {i}'s baseline signature verifies as a one-bit CoSi signature"
            );
        }
    }
}
