//! KZG polynomial commitments over BLS12-381 G1, on a radix-2 evaluation domain.
//!
//! * [`Domain`]: the multiplicative subgroup `{ω^0, …, ω^(N−1)}` with `N` the next power of
//!   two `≥ n`. Party `i` (1-based) sits at `z_i = ω^(i−1)`. Unlike the reference
//!   (defect 2 in the design notes) the opening domain and the share domain are the same
//!   object, so every `N` works, powers of two included.
//! * [`Crs`]: `[τ^j]_1` and `[τ^j]_2` for `j = 0..=D` with `D = N − 1`, built by a
//!   verifiable multi-party powers-of-tau ceremony ([`ceremony`]). Nobody learns `τ` unless
//!   every contributor colludes. There is no local-τ constructor at all.
//! * Openings at every domain point at once by the Feist–Khovratovich method
//!   ([`Crs::open_all_ct`]): one Toeplitz product through a size-`2N` circulant and one
//!   G1 FFT, with the FFT of the SRS precomputed once per CRS; [`Crs::open_parties_ct`]
//!   takes one quotient per party instead when that needs fewer multiplications (a
//!   refresh polynomial of low degree `t−1`).
//! * Single and batched (random linear combination) opening checks, zero openings and the
//!   degree proof used by share refresh.
//!
//! Secret polynomials (hot shares, refresh polynomials) are only multiplied into group
//! elements in constant time: commitments and direct openings by interleaved windows over
//! per-CRS tables of the powers ([`quorate_core::bls12_381::msm::WindowTablesCt`]), the
//! Feist–Khovratovich products by `blst`'s constant-time multiplication. The G1 FFT
//! multiplies secret-derived *points* by public twiddle factors only, with a GLV ladder
//! that is variable time in the public twiddle and constant time in the point
//! ([`quorate_core::bls12_381::glv::PublicScalarVartime`]).

use crate::error::BlsError;
use blstrs::{G1Affine, G1Projective, G2Affine, G2Prepared, G2Projective, Scalar};
use ff::{BatchInvert, Field, PrimeField};
use group::prime::PrimeCurveAffine;
use group::{Curve, Group};
use quorate_core::bls12_381::glv::PublicScalarVartime;
use quorate_core::bls12_381::msm::{g1_msm_vartime, g2_msm_vartime, WindowTablesCt};
use quorate_core::bls12_381::pairing::prepared_product_is_identity;
use quorate_core::transcript::{ProtocolTranscript, SessionId};
use quorate_core::{ParamError, PartyId};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use std::fmt;
use std::ops::{Add, Sub};

/// A radix-2 evaluation domain of size `N = 2^k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    log_size: u32,
    omega: Scalar,
    omega_inv: Scalar,
    size_inv: Scalar,
}

impl Domain {
    /// The smallest domain holding `n` parties (at least size 2).
    pub fn for_parties(n: u16) -> Result<Self, ParamError> {
        if n == 0 {
            return Err(ParamError::Invalid("a domain needs at least one party"));
        }
        let log_size = (n.max(2) as u32).next_power_of_two().trailing_zeros();
        Self::with_log_size(log_size)
    }

    /// The domain of size `2^log_size`.
    pub fn with_log_size(log_size: u32) -> Result<Self, ParamError> {
        if log_size == 0 || log_size > Scalar::S {
            return Err(ParamError::Invalid("domain size out of range"));
        }
        // ROOT_OF_UNITY has order 2^S; square it down to order 2^log_size.
        let mut omega = Scalar::ROOT_OF_UNITY;
        for _ in log_size..Scalar::S {
            omega = omega.square();
        }
        let omega_inv = omega.invert().unwrap_or(Scalar::ZERO);
        let size_inv = Scalar::from(1u64 << log_size)
            .invert()
            .unwrap_or(Scalar::ZERO);
        Ok(Domain {
            log_size,
            omega,
            omega_inv,
            size_inv,
        })
    }

    /// `N`.
    pub fn size(&self) -> usize {
        1usize << self.log_size
    }

    /// The generator `ω` (order exactly `N`).
    pub fn omega(&self) -> Scalar {
        self.omega
    }

    /// `ω^k`.
    pub fn element(&self, k: usize) -> Scalar {
        self.omega.pow_vartime([k as u64])
    }

    /// Party `id`'s evaluation point `z_id = ω^(id−1)`.
    pub fn party_point(&self, id: PartyId) -> Scalar {
        self.element(id.position())
    }

    /// The evaluation points of parties `1..=n`.
    pub fn party_points(&self, n: u16) -> Vec<Scalar> {
        let mut out = Vec::with_capacity(n as usize);
        let mut z = Scalar::ONE;
        for _ in 0..n {
            out.push(z);
            z *= self.omega;
        }
        out
    }

    /// Coefficients → values at `ω^0..ω^(N−1)`. The input length must be `N`; any other
    /// length is a typed error and leaves `values` untouched.
    pub fn fft(&self, values: &mut [Scalar]) -> Result<(), ParamError> {
        self.check_len(values.len())?;
        fft_in_place(values, self.omega, false);
        Ok(())
    }

    /// Values at `ω^0..ω^(N−1)` → coefficients. The input length must be `N`; any other
    /// length is a typed error and leaves `values` untouched.
    pub fn ifft(&self, values: &mut [Scalar]) -> Result<(), ParamError> {
        self.check_len(values.len())?;
        fft_in_place(values, self.omega_inv, false);
        for v in values.iter_mut() {
            *v *= self.size_inv;
        }
        Ok(())
    }

    /// The coefficients of the unique polynomial of degree `< len` with value `values[i]`
    /// at `ω^i` for `i < len = values.len() ≤ N` (one inverse FFT when `len = N`). The
    /// values may be **secret**: the sequence of field operations depends on `len` only
    /// (Newton's divided differences over the public nodes `ω^i`, whose differences
    /// `ω^i − ω^(i−j) = ω^(i−j)(ω^j − 1)` need only the `len − 1` public inverses
    /// `(ω^j − 1)^(−1)`, then the Newton form expanded into coefficients): about
    /// `1.5·len²` multiplications.
    pub fn interpolate_prefix(&self, values: &[Scalar]) -> Result<Vec<Scalar>, ParamError> {
        let len = values.len();
        if len > self.size() {
            return Err(ParamError::LengthMismatch {
                what: "interpolation values",
                expected: self.size(),
                got: len,
            });
        }
        if len == 0 {
            return Ok(Vec::new());
        }
        if len == self.size() {
            let mut coeffs = values.to_vec();
            self.ifft(&mut coeffs)?;
            return Ok(coeffs);
        }
        // Public: ω^(−k) for k < len and (ω^j − 1)^(−1) for 1 ≤ j < len (non-zero: ω has
        // order N > j).
        let mut inv_pow = Vec::with_capacity(len);
        let mut w = Scalar::ONE;
        for _ in 0..len {
            inv_pow.push(w);
            w *= self.omega_inv;
        }
        let mut inv_gap: Vec<Scalar> = (0..len)
            .map(|j| self.omega.pow_vartime([j as u64]) - Scalar::ONE)
            .collect();
        inv_gap[0] = Scalar::ONE;
        inv_gap.iter_mut().batch_invert();
        // Divided differences: d[i] = f[x_0..x_i].
        let mut d = values.to_vec();
        for j in 1..len {
            for i in (j..len).rev() {
                d[i] = (d[i] - d[i - 1]) * inv_pow[i - j] * inv_gap[j];
            }
        }
        // p = d_(len−1); p ← p·(X − x_k) + d_k for k = len−2 … 0, with x_k = ω^k.
        let mut coeffs = vec![Scalar::ZERO; len];
        let mut x_k = self.omega.pow_vartime([len.saturating_sub(2) as u64]);
        coeffs[0] = d[len - 1];
        for (top, k) in (0..len.saturating_sub(1)).rev().enumerate() {
            // p has degree `top`; multiply by (X − x_k) in place, from the top down.
            coeffs[top + 1] = coeffs[top];
            for i in (1..=top).rev() {
                coeffs[i] = coeffs[i - 1] - x_k * coeffs[i];
            }
            coeffs[0] = d[k] - x_k * coeffs[0];
            x_k *= self.omega_inv;
        }
        quorate_core::secret::wipe_fields(&mut d);
        Ok(coeffs)
    }

    fn check_len(&self, len: usize) -> Result<(), ParamError> {
        if len != self.size() {
            return Err(ParamError::LengthMismatch {
                what: "FFT input",
                expected: self.size(),
                got: len,
            });
        }
        Ok(())
    }
}

/// An element of a `Z_r`-module an FFT runs over, and how it is multiplied by a **public**
/// twiddle factor.
trait FftElement: Copy + Send + Sync + Add<Output = Self> + Sub<Output = Self> {
    /// A twiddle factor prepared for repeated multiplications.
    type Twiddle: Send + Sync;
    fn prepare(w: Scalar) -> Self::Twiddle;
    fn times(self, w: &Self::Twiddle) -> Self;
}

impl FftElement for Scalar {
    type Twiddle = Scalar;
    fn prepare(w: Scalar) -> Scalar {
        w
    }
    fn times(self, w: &Scalar) -> Scalar {
        self * w
    }
}

/// G1 points (which may be derived from secrets) times public twiddles: the GLV ladder,
/// variable time in the twiddle only ([`PublicScalarVartime`]).
impl FftElement for G1Projective {
    type Twiddle = PublicScalarVartime;
    fn prepare(w: Scalar) -> PublicScalarVartime {
        PublicScalarVartime::new(&w)
    }
    fn times(self, w: &PublicScalarVartime) -> G1Projective {
        w.mul_vartime(&self)
    }
}

/// In-place radix-2 decimation-in-time FFT over any `Z_r`-module (scalars or points).
/// `omega` must have order `values.len()`. With `parallel`, butterflies run on rayon.
fn fft_in_place<T: FftElement>(values: &mut [T], omega: Scalar, parallel: bool) {
    let n = values.len();
    if n <= 1 {
        return;
    }
    let log_n = n.trailing_zeros();
    for k in 0..n {
        let rk = k.reverse_bits() >> (usize::BITS - log_n);
        if k < rk {
            values.swap(k, rk);
        }
    }
    let mut m = 2;
    while m <= n {
        let half = m / 2;
        let w_m = omega.pow_vartime([(n / m) as u64]);
        let mut twiddles = Vec::with_capacity(half);
        let mut w = Scalar::ONE;
        for _ in 0..half {
            twiddles.push(T::prepare(w));
            w *= w_m;
        }
        let butterfly = |j: usize, lo: &mut T, hi: &mut T| {
            // Twiddle factors are public; skipping the multiplication by one is safe.
            let t = if j == 0 { *hi } else { hi.times(&twiddles[j]) };
            let u = *lo;
            *lo = u + t;
            *hi = u - t;
        };
        if parallel {
            values.par_chunks_mut(m).for_each(|chunk| {
                let (lo, hi) = chunk.split_at_mut(half);
                lo.par_iter_mut()
                    .zip(hi.par_iter_mut())
                    .enumerate()
                    .for_each(|(j, (a, b))| butterfly(j, a, b));
            });
        } else {
            for chunk in values.chunks_mut(m) {
                let (lo, hi) = chunk.split_at_mut(half);
                for (j, (a, b)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                    butterfly(j, a, b);
                }
            }
        }
        m *= 2;
    }
}

/// The public parameters of KZG: powers of a secret `τ` nobody knows.
#[derive(Clone)]
pub struct Crs {
    domain: Domain,
    g1_powers: Vec<G1Affine>,
    g2_powers: Vec<G2Affine>,
    /// FFT (size 2N) of the reversed SRS `([τ^(N−2)], …, [τ^0], 0, …)`: the circulant
    /// column of the Feist–Khovratovich Toeplitz product, computed once per CRS.
    fk_srs_fft: Vec<G1Projective>,
    /// For each power of two `B < N` (indexed by `log B`): the FFT (size `2B`) of
    /// `([τ^(B−1)], …, [τ^0], 0, …)`, the circulant column of the size-`B` Toeplitz block
    /// of [`Crs::open_all_block_ct`], built on first use (public data).
    fk_block_columns: Vec<std::sync::OnceLock<Vec<G1Projective>>>,
    g2_prepared: G2Prepared,
    neg_tau_g2_prepared: G2Prepared,
    /// Prepared `z_j·g2 − [τ]_2` for each domain point, built on first use
    /// ([`Crs::opening_base_prepared`]).
    opening_bases: Vec<std::sync::OnceLock<G2Prepared>>,
    /// Prepared `[τ^k]_2` for each power, built on first use
    /// ([`Crs::g2_power_prepared`]: the degree proof's shift).
    g2_powers_prepared: Vec<std::sync::OnceLock<G2Prepared>>,
    /// Window tables of `g1_powers` for constant-time commitments to secret polynomials,
    /// built on first use (public data; ≈ 1.5 KiB per power).
    g1_power_tables: std::sync::OnceLock<WindowTablesCt<G1Projective>>,
    id: [u8; 32],
}

impl fmt::Debug for Crs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Crs")
            .field("domain_size", &self.domain.size())
            .field("max_degree", &self.max_degree())
            .finish_non_exhaustive()
    }
}

impl PartialEq for Crs {
    fn eq(&self, other: &Self) -> bool {
        self.g1_powers == other.g1_powers && self.g2_powers == other.g2_powers
    }
}

impl Crs {
    /// Verifies a ceremony transcript ([`ceremony::Transcript`]) and builds the CRS it
    /// produced. This is the only way to obtain a [`Crs`]: powers of unknown origin are
    /// not accepted. Checks, besides every contribution ([`ceremony::verify`]):
    /// * at least [`ceremony::MIN_CONTRIBUTIONS`] contributions, none of them trivial
    ///   (`τ_k = ±1`) and no two with the same `U = τ_k·g1`, so one contributor alone does
    ///   not make a CRS;
    /// * the final `τ` is not trivial: `τ ≠ 0` and `τ^N ≠ 1`, i.e.
    ///   `e([τ^(N−1)]_1, [τ]_2) ≠ e(g1, g2)`. That excludes `τ = ±1` and every point of the
    ///   evaluation domain, where KZG openings would break down.
    ///
    /// The CRS id ([`Crs::id`]) is the SHA-256 of the whole transcript, so a record names
    /// the ceremony that made its CRS, not just the powers.
    pub fn from_transcript<R: RngCore + CryptoRng>(
        transcript: &ceremony::Transcript,
        rng: &mut R,
    ) -> Result<Self, BlsError> {
        let powers = ceremony::verify_transcript(transcript, rng)?;
        Ok(Self::from_checked_powers(powers, transcript.id()))
    }

    fn from_checked_powers(powers: PowersOfTau, id: [u8; 32]) -> Self {
        let n = powers.g1.len();
        let domain = Domain::with_log_size(n.trailing_zeros()).expect("checked length");
        let mut g1_powers = vec![G1Affine::identity(); n];
        G1Projective::batch_normalize(&powers.g1, &mut g1_powers);
        let mut g2_powers = vec![G2Affine::identity(); n];
        G2Projective::batch_normalize(&powers.g2, &mut g2_powers);

        // Circulant column for FK with polynomials of degree d = N − 1.
        let d = n - 1;
        let mut column = vec![G1Projective::identity(); 2 * n];
        for (m, slot) in column.iter_mut().enumerate().take(d) {
            *slot = powers.g1[d - 1 - m];
        }
        let big = Domain::with_log_size(domain.log_size + 1).expect("size 2N fits");
        fft_in_place(&mut column, big.omega, true);

        let g2_prepared = G2Prepared::from(G2Affine::generator());
        let neg_tau_g2_prepared = G2Prepared::from(-g2_powers[1]);
        let fk_block_columns = (0..domain.log_size)
            .map(|_| std::sync::OnceLock::new())
            .collect();
        Crs {
            domain,
            g1_powers,
            g2_powers,
            fk_srs_fft: column,
            fk_block_columns,
            g2_prepared,
            neg_tau_g2_prepared,
            opening_bases: (0..n).map(|_| std::sync::OnceLock::new()).collect(),
            g2_powers_prepared: (0..n).map(|_| std::sync::OnceLock::new()).collect(),
            g1_power_tables: std::sync::OnceLock::new(),
            id,
        }
    }

    /// A 32-byte identifier of this CRS: the id of the ceremony transcript that produced
    /// it ([`ceremony::Transcript::id`]). Registrations record it, so a record is only
    /// ever used with its own CRS.
    pub fn id(&self) -> [u8; 32] {
        self.id
    }

    /// The evaluation domain.
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// `D`: the largest degree this CRS can commit to (`N − 1`).
    pub fn max_degree(&self) -> usize {
        self.g1_powers.len() - 1
    }

    /// Whether this CRS serves `n` parties.
    pub fn check_parties(&self, n: u16) -> Result<(), ParamError> {
        if n as usize > self.domain.size() {
            return Err(ParamError::Invalid(
                "CRS domain is smaller than the party count",
            ));
        }
        Ok(())
    }

    /// `[τ^j]_1`.
    pub fn g1_powers(&self) -> &[G1Affine] {
        &self.g1_powers
    }

    /// `[τ^j]_2`.
    pub fn g2_powers(&self) -> &[G2Affine] {
        &self.g2_powers
    }

    /// `[τ]_2`.
    pub fn tau_g2(&self) -> G2Affine {
        self.g2_powers[1]
    }

    /// Prepared `g2` (for multi-Miller loops).
    pub fn g2_prepared(&self) -> &G2Prepared {
        &self.g2_prepared
    }

    /// Prepared `−[τ]_2`.
    pub fn neg_tau_g2_prepared(&self) -> &G2Prepared {
        &self.neg_tau_g2_prepared
    }

    /// Prepared `z_i·g2 − [τ]_2` for party `i`, the G2 side of an opening at `z_i` once
    /// `z_i·π` is moved there: `e(C − y·g1, g2) · e(π, z_i·g2 − [τ]_2) = 1` is the
    /// opening equation of [`Crs::verify_opening`] without the G1 multiplication
    /// `z_i·π`. Computed on first use per party and kept with the CRS (public data).
    /// `None` if `index` is outside the domain.
    pub(crate) fn opening_base_prepared(&self, index: PartyId) -> Option<&G2Prepared> {
        let slot = self.opening_bases.get(index.position())?;
        Some(slot.get_or_init(|| {
            let z = self.domain.party_point(index);
            let base = G2Projective::generator() * z - self.g2_powers[1];
            G2Prepared::from(base.to_affine())
        }))
    }

    /// Prepared `[τ^k]_2` (the G2 side of the degree proof at shift `k`), computed on
    /// first use and kept with the CRS (public data). `None` if `k > D`.
    pub(crate) fn g2_power_prepared(&self, k: usize) -> Option<&G2Prepared> {
        let slot = self.g2_powers_prepared.get(k)?;
        Some(slot.get_or_init(|| G2Prepared::from(self.g2_powers[k])))
    }

    fn check_degree(&self, len: usize) -> Result<(), ParamError> {
        if len > self.g1_powers.len() {
            return Err(ParamError::Invalid("polynomial degree exceeds the CRS"));
        }
        Ok(())
    }

    /// Window tables of the G1 powers (built once per CRS, on first use).
    fn g1_power_tables(&self) -> &WindowTablesCt<G1Projective> {
        self.g1_power_tables.get_or_init(|| {
            let powers: Vec<G1Projective> = self.g1_powers.iter().map(Into::into).collect();
            WindowTablesCt::new(&powers)
        })
    }

    /// Commits to a **secret** polynomial, in constant time (interleaved windows over the
    /// CRS's window tables, [`WindowTablesCt::lincomb_ct`]).
    pub fn commit_ct(&self, coeffs: &[Scalar]) -> Result<G1Projective, ParamError> {
        self.check_degree(coeffs.len())?;
        Ok(self.g1_power_tables().lincomb_ct(0, coeffs))
    }

    /// `[p(τ)·τ^shift]_1` for a **secret** `p`: the degree proof of refresh. Fails if
    /// `deg p + shift > D`, which is exactly what makes the proof sound.
    pub fn commit_shifted_ct(
        &self,
        coeffs: &[Scalar],
        shift: usize,
    ) -> Result<G1Projective, ParamError> {
        self.check_degree(coeffs.len() + shift)?;
        Ok(self.g1_power_tables().lincomb_ct(shift, coeffs))
    }

    /// KZG openings of a **secret** polynomial at every domain point `ω^0..ω^(N−1)` by the
    /// Feist–Khovratovich method (notes §KZG). `coeffs.len() ≤ N`.
    ///
    /// With `d = N − 1`, `s_k = [τ^k]_1` and `L = 2N`, the quotient at `z` is
    /// `π(z) = Σ_{i<N} h_i z^i` with `h_i = Σ_{k=0}^{d−1−i} c_{i+1+k}·s_k`: entries `d..d+N`
    /// of the size-`L` cyclic convolution `y = IFFT_L(P)`, `P_m = C_m·S_m`, `C = FFT_L(c)`,
    /// `S = FFT_L(s_{d−1}, …, s_0, 0, …)` (precomputed per CRS). Instead of an inverse
    /// size-`L` G1 FFT followed by a size-`N` one, the two are fused: summing the
    /// geometric series over `i` leaves, with `ω = ω_L`,
    ///
    /// `π_k = ½ ω^(−2kd) P_{2k} + ½ Σ_i ω^(−i) ω_N^(ik) R_i`,
    /// `R_i = Σ_l ω_N^(−il) Q_l`, `Q_l = ω^(−d(2l+1)) P_{2l+1} / N`
    ///
    /// (even frequencies contribute directly; odd ones through `1/(1 − x) = ½ Σ_{i<N} x^i`
    /// on the roots of `X^N = −1`). Cost: `2N` constant-time G1 multiplications with secret
    /// scalars, two size-`N` G1 FFTs and `N − 1` twists by public scalars: about
    /// `2N + N·log N` multiplications instead of `2N + (3N/2)·log N`.
    pub fn open_all_ct(&self, coeffs: &[Scalar]) -> Result<Vec<G1Projective>, ParamError> {
        self.open_first_ct(coeffs, self.domain.size())
    }

    /// [`Crs::open_all_ct`] for the first `count ≤ N` domain points only. An even
    /// frequency `P_2k` enters the opening `π_k` alone (no FFT), so only the `count` even
    /// products with `k < count` are formed: `N + count` constant-time products instead
    /// of `2N` (at `(67, 100)`, `N = 128`: 228 instead of 256).
    fn open_first_ct(
        &self,
        coeffs: &[Scalar],
        count: usize,
    ) -> Result<Vec<G1Projective>, ParamError> {
        self.check_degree(coeffs.len())?;
        let n = self.domain.size();
        if count > n {
            return Err(ParamError::Invalid("more openings than domain points"));
        }
        let d = n - 1;
        let big = Domain::with_log_size(self.domain.log_size + 1)?;
        let mut c = vec![Scalar::ZERO; 2 * n];
        c[..coeffs.len()].copy_from_slice(coeffs);
        big.fft(&mut c)?;
        // Public factors, folded into the (secret) scalars so every secret enters G1 once.
        // ω^(−d·m) for m = 0..2N, and ½, 1/(2N).
        let w_inv_d = big.omega_inv.pow_vartime([d as u64]);
        let half = Scalar::from(2u64).invert().unwrap_or(Scalar::ZERO);
        let half_over_n = half * self.domain.size_inv;
        let mut factor = Scalar::ONE;
        let mut scalars = Vec::with_capacity(2 * n);
        for (m, cm) in c.iter().enumerate() {
            let scale = if m % 2 == 0 { half } else { half_over_n };
            scalars.push(*cm * factor * scale);
            factor *= w_inv_d;
        }
        quorate_core::secret::wipe_fields(&mut c);
        // Products P_m = scalar_m·S_m: every odd m, and the even m = 2k with k < count.
        // The set of m is fixed by (N, count), public; the scalars stay secret.
        let wanted: Vec<usize> = (0..2 * n).filter(|m| m % 2 == 1 || m / 2 < count).collect();
        let products: Vec<G1Projective> = wanted
            .par_iter()
            .map(|&m| self.fk_srs_fft[m] * scalars[m])
            .collect();
        quorate_core::secret::wipe_fields(&mut scalars);
        let mut even = Vec::with_capacity(count);
        let mut odd = Vec::with_capacity(n);
        for (m, p) in wanted.into_iter().zip(products) {
            if m % 2 == 0 {
                even.push(p);
            } else {
                odd.push(p);
            }
        }
        // R = unscaled inverse FFT of Q; twist by ω^(−i); forward FFT.
        fft_in_place(&mut odd, self.domain.omega_inv, true);
        let twists: Vec<Scalar> = {
            let mut t = Vec::with_capacity(n);
            let mut w = Scalar::ONE;
            for _ in 0..n {
                t.push(w);
                w *= big.omega_inv;
            }
            t
        };
        odd.par_iter_mut()
            .zip(twists.par_iter())
            .skip(1)
            .for_each(|(r, w)| *r = PublicScalarVartime::new(w).mul_vartime(r));
        fft_in_place(&mut odd, self.domain.omega, true);
        Ok(even.into_iter().zip(odd).map(|(e, f)| e + f).collect())
    }

    /// KZG openings of a **secret** polynomial `p` at every domain point, for `deg p = m`
    /// with `B ≤ m < 2B` (`B = 2^log_block`, `2B ≤ N`): Feist–Khovratovich on a size-`B`
    /// Toeplitz block instead of the full size-`N` one. Cheaper than
    /// [`Crs::open_all_ct`] when `m` is just above a power of two well below `N` (a
    /// refresh polynomial of degree `t − 1 = 66` at `N = 128`).
    ///
    /// With `s_k = [τ^k]_1`, the quotient at `z` is `π(z) = Σ_{i<m} h_i z^i`,
    /// `h_i = Σ_{k=0}^{m−1−i} c_{i+1+k}·s_k` (as in [`Crs::open_all_ct`]), so
    /// `(π(ω^0), …, π(ω^(N−1)))` is the size-`N` FFT of `(h_0, …, h_(m−1), 0, …)`. Split
    /// `h_i` at `i < B`, `k < B` (the block) and the rest:
    ///
    /// * block: with `L = 2B`, `a = (0, c_1, …, c_m, 0, …)` and
    ///   `b = (s_(B−1), …, s_0, 0, …)` (both of length `L`), `Σ_{k<B} c_{i+1+k} s_k` is
    ///   entry `B + i` of the cyclic convolution `a ∗ b` (its indices `i + B − u` for
    ///   `u < B` stay in `1..L`, so nothing wraps), i.e. of `IFFT_L(FFT_L(a) ⊙ FFT_L(b))`,
    ///   with `FFT_L(b)` precomputed per CRS: `L` constant-time G1 multiplications with
    ///   secret scalars and one size-`L` G1 FFT;
    /// * the rest, with `r = m − B`: for `i < r` the terms `k = B..m−1−i`, and for
    ///   `B ≤ i < m` all of `h_i` (`k < r`): `r(r+1)` terms, each a windowed constant-time
    ///   sum over the CRS's power tables.
    ///
    /// Then one size-`N` G1 FFT. At `m = 66`, `N = 128`: 128 products, 6 window terms and
    /// two size-128 FFTs (≈ 642 twiddles), against 256 products and ≈ 769 twiddles.
    /// Every secret meets G1 only through constant-time multiplications; the FFTs multiply
    /// secret-derived points by public twiddles ([`PublicScalarVartime`]).
    fn open_all_block_ct(
        &self,
        coeffs: &[Scalar],
        log_block: u32,
    ) -> Result<Vec<G1Projective>, ParamError> {
        let n = self.domain.size();
        let block = 1usize << log_block;
        let m = coeffs.len().saturating_sub(1);
        if m < block || m >= 2 * block || 2 * block > n {
            return Err(ParamError::Invalid(
                "block size does not fit the polynomial degree",
            ));
        }
        let big = Domain::with_log_size(log_block + 1)?;
        let mut a = vec![Scalar::ZERO; 2 * block];
        a[1..=m].copy_from_slice(&coeffs[1..=m]);
        big.fft(&mut a)?;
        // 1/L of the inverse FFT, folded into the secret scalars.
        for x in a.iter_mut() {
            *x *= big.size_inv;
        }
        let mut y: Vec<G1Projective> = self
            .fk_block_column(log_block)
            .par_iter()
            .zip(a.par_iter())
            .map(|(s, x)| *s * x)
            .collect();
        quorate_core::secret::wipe_fields(&mut a);
        fft_in_place(&mut y, big.omega_inv, true);
        let mut h = vec![G1Projective::identity(); n];
        h[..block].copy_from_slice(&y[block..]);
        let tables = self.g1_power_tables();
        let r = m - block;
        let rest: Vec<(usize, G1Projective)> = (0..r)
            .map(|i| (i, block, i + 1 + block))
            .chain((block..m).map(|i| (i, 0, i + 1)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(i, offset, first)| (i, tables.lincomb_ct_one_thread(offset, &coeffs[first..=m])))
            .collect();
        for (i, p) in rest {
            h[i] += p;
        }
        fft_in_place(&mut h, self.domain.omega, true);
        Ok(h)
    }

    /// `FFT_2B([τ^(B−1)], …, [τ^0], 0, …)` for `B = 2^log_block` (built once per CRS).
    fn fk_block_column(&self, log_block: u32) -> &[G1Projective] {
        self.fk_block_columns[log_block as usize].get_or_init(|| {
            let block = 1usize << log_block;
            let mut column = vec![G1Projective::identity(); 2 * block];
            for (u, slot) in column.iter_mut().enumerate().take(block) {
                *slot = self.g1_powers[block - 1 - u].into();
            }
            let big = Domain::with_log_size(log_block + 1).expect("2B ≤ N fits");
            fft_in_place(&mut column, big.omega, true);
            column
        })
    }

    /// KZG openings of a **secret** polynomial at the parties' points `z_1..z_n` (the
    /// first `n` domain points), by whichever of three methods costs less: Feist–Khovratovich
    /// ([`Crs::open_all_ct`]: `2N` constant-time G1 multiplications and about
    /// `N·log N − N` GLV multiplications by public twiddles, whatever the degree), the same
    /// on the largest power-of-two Toeplitz block below the degree
    /// ([`Crs::open_all_block_ct`]), or one
    /// quotient per party (`q_j = (p − p(z_j))/(X − z_j)` by synthetic division,
    /// `π_j = [q_j(τ)]_1`, one windowed constant-time sum of `deg p` terms per party). A
    /// refresh polynomial has degree `t−1`, so for small `t` the direct quotients are
    /// several times cheaper; so is registration's `T` at `(3, 5)`; larger full-degree
    /// polynomials go through FK. All give the same (unique) openings.
    pub fn open_parties_ct(
        &self,
        coeffs: &[Scalar],
        n: u16,
    ) -> Result<Vec<G1Projective>, ParamError> {
        self.check_degree(coeffs.len())?;
        self.check_parties(n)?;
        // Costs in hundredths of one `blst` constant-time G1 multiplication (unit costs
        // measured in docs/benchmarks.md §1, session 11): a GLV twiddle ≈ 88, a windowed
        // term ≈ 51, a windowed sum's shared doublings ≈ 80 (below 3 terms, one `blst`
        // multiplication per term).
        let window_sum = |terms: usize| {
            if terms < 3 {
                100 * terms
            } else {
                80 + 51 * terms
            }
        };
        // Twiddles of one size-L FFT: L/2·log L butterflies, L − 1 of them by one.
        let twiddles = |log: u32| {
            let len = 1usize << log;
            (len / 2) * log as usize - (len - 1)
        };
        let size = self.domain.size();
        let log = self.domain.log_size;
        // Fused FK: N + n products, two size-N FFTs and N − 1 twists.
        let fk_cost = 100 * (size + usize::from(n)) + 88 * (2 * twiddles(log) + size - 1);
        let m = coeffs.len().saturating_sub(1);
        // Block FK (`open_all_block_ct`): B = 2^⌊log2 m⌋, 2B products, a size-2B and a
        // size-N FFT, and r(r+1) window terms in 2r sums (r = m − B).
        let block = (m > 0)
            .then(|| m.ilog2())
            .filter(|lb| 2usize << lb <= size)
            .map(|lb| {
                let (b, r) = (1usize << lb, m - (1usize << lb));
                let rest: usize = (1..=r).map(|len| 2 * window_sum(len)).sum();
                (
                    lb,
                    100 * 2 * b + 88 * (twiddles(lb + 1) + twiddles(log)) + rest,
                )
            });
        let direct_cost = usize::from(n) * window_sum(m);
        // The block path only replaces the fused FK: where the direct quotients were the
        // cheaper of the two (small t, measured in session 11) they stay.
        if direct_cost >= fk_cost {
            let mut all = match block {
                Some((lb, cost)) if cost < fk_cost => self.open_all_block_ct(coeffs, lb)?,
                _ => self.open_first_ct(coeffs, usize::from(n))?,
            };
            all.truncate(usize::from(n));
            return Ok(all);
        }
        let tables = self.g1_power_tables();
        Ok(self
            .domain
            .party_points(n)
            .par_iter()
            .map(|z| {
                let mut q = quorate_core::poly::quotient_by_linear(coeffs, z);
                let opening = tables.lincomb_ct_one_thread(0, &q);
                quorate_core::secret::wipe_fields(&mut q);
                opening
            })
            .collect())
    }

    /// Checks one opening: `p(z) = y` for the committed `p`, i.e.
    /// `e(C − y·g1 + z·π, g2) · e(π, −[τ]_2) = 1`.
    pub fn verify_opening(
        &self,
        commitment: &G1Projective,
        z: &Scalar,
        y: &Scalar,
        proof: &G1Projective,
    ) -> bool {
        let lhs = commitment - G1Projective::generator() * y + proof * z;
        prepared_product_is_identity(&[
            (lhs.to_affine(), &self.g2_prepared),
            (proof.to_affine(), &self.neg_tau_g2_prepared),
        ])
    }

    /// Checks many openings of one commitment at once with random 128-bit coefficients
    /// `r_k`: `e(Σ r_k(C − y_k·g1 + z_k·π_k), g2) · e(Σ r_k·π_k, −[τ]_2) = 1`.
    /// Returns `false` if any single check would fail (except with probability `≤ 2^-128`).
    pub fn batch_verify_openings<R: RngCore + CryptoRng>(
        &self,
        commitment: &G1Projective,
        openings: &[(Scalar, Scalar, G1Projective)],
        rng: &mut R,
    ) -> bool {
        if openings.is_empty() {
            return true;
        }
        let r: Vec<Scalar> = openings.iter().map(|_| random_u128_scalar(rng)).collect();
        let r_sum: Scalar = r.iter().sum();
        let ry_sum: Scalar = r.iter().zip(openings).map(|(r, (_, y, _))| r * y).sum();
        let proofs: Vec<G1Projective> = openings.iter().map(|(_, _, p)| *p).collect();
        let rz: Vec<Scalar> = r.iter().zip(openings).map(|(r, (z, _, _))| r * z).collect();
        let lhs =
            commitment * r_sum - G1Projective::generator() * ry_sum + g1_msm_vartime(&proofs, &rz);
        let rhs = g1_msm_vartime(&proofs, &r);
        prepared_product_is_identity(&[
            (lhs.to_affine(), &self.g2_prepared),
            (rhs.to_affine(), &self.neg_tau_g2_prepared),
        ])
    }

    /// Checks a degree bound: `deg p ≤ bound` for the committed `p`, given
    /// `dcom = [p(τ)·τ^(D−bound)]_1`: `e(dcom, g2) = e(C, [τ^(D−bound)]_2)`.
    pub fn verify_degree(
        &self,
        commitment: &G1Projective,
        bound: usize,
        dcom: &G1Projective,
    ) -> Result<bool, ParamError> {
        let shift = self
            .max_degree()
            .checked_sub(bound)
            .ok_or(ParamError::Invalid("degree bound exceeds the CRS"))?;
        Ok(
            quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
                (dcom.to_affine(), -G2Affine::generator()),
                (commitment.to_affine(), self.g2_powers[shift]),
            ]),
        )
    }
}

/// A uniformly random scalar below `2^128`, for batching coefficients.
pub(crate) fn random_u128_scalar<R: RngCore + CryptoRng>(rng: &mut R) -> Scalar {
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b);
    Scalar::from_u128(u128::from_le_bytes(b))
}

/// Powers of tau as published by a ceremony, before they are accepted as a [`Crs`].
#[derive(Clone, PartialEq, Eq)]
pub struct PowersOfTau {
    /// `[τ^j]_1`, `j = 0..=D`.
    pub g1: Vec<G1Projective>,
    /// `[τ^j]_2`, `j = 0..=D`.
    pub g2: Vec<G2Projective>,
}

impl fmt::Debug for PowersOfTau {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PowersOfTau")
            .field("len", &self.g1.len())
            .finish_non_exhaustive()
    }
}

const TAG_POWERS: u8 = 0x07;
const POWERS_VERSION: u8 = 1;

impl PowersOfTau {
    /// Encoding: header, `u16` count `N`, `N` compressed G1 powers, `N` compressed G2
    /// powers. This is how ceremony transcripts and CRS files travel.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = quorate_core::encoding::Writer::new();
        w.header(TAG_POWERS, POWERS_VERSION)
            .u16(self.g1.len() as u16);
        for g in &self.g1 {
            w.bytes(&quorate_core::bls12_381::wire::g1_to_bytes(g));
        }
        for g in &self.g2 {
            w.bytes(&quorate_core::bls12_381::wire::g2_to_bytes(g));
        }
        w.into_bytes()
    }

    /// Checked decoding: length, canonical subgroup points, no identities. The structure
    /// check is [`ceremony::verify`]'s job.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, quorate_core::DecodeError> {
        use quorate_core::bls12_381::wire::ReadBls;
        let mut r = quorate_core::encoding::Reader::new("powers of tau", bytes);
        r.header(TAG_POWERS, POWERS_VERSION)?;
        let n = usize::from(r.u16()?);
        if n < 2 || !n.is_power_of_two() {
            return Err(quorate_core::DecodeError::InvalidValue {
                what: "powers of tau",
                reason: "count must be a power of two of at least 2",
            });
        }
        if r.remaining()
            != n * (quorate_core::bls12_381::wire::G1_BYTES
                + quorate_core::bls12_381::wire::G2_BYTES)
        {
            return Err(quorate_core::DecodeError::WrongLength {
                what: "powers of tau",
                expected: 4 + n
                    * (quorate_core::bls12_381::wire::G1_BYTES
                        + quorate_core::bls12_381::wire::G2_BYTES),
                got: bytes.len(),
            });
        }
        let g1 = (0..n)
            .map(|_| r.g1("[τ^j]_1"))
            .collect::<Result<Vec<_>, _>>()?;
        let g2 = (0..n)
            .map(|_| r.g2("[τ^j]_2"))
            .collect::<Result<Vec<_>, _>>()?;
        r.finish()?;
        Ok(PowersOfTau { g1, g2 })
    }
}

fn check_powers_structure<R: RngCore + CryptoRng>(
    p: &PowersOfTau,
    contribution: Option<usize>,
    rng: &mut R,
) -> Result<(), BlsError> {
    let bad = |check| BlsError::InvalidSetup {
        check,
        contribution,
    };
    let n = p.g1.len();
    if n < 2 || !n.is_power_of_two() || p.g2.len() != n || n.trailing_zeros() > Scalar::S {
        return Err(bad("powers must be two lists of equal power-of-two length"));
    }
    if p.g1[0] != G1Projective::generator() || p.g2[0] != G2Projective::generator() {
        return Err(bad("powers must start at the generators"));
    }
    if bool::from(p.g1[1].is_identity()) || bool::from(p.g2[1].is_identity()) {
        return Err(bad("[τ] is the identity"));
    }
    let r: Vec<Scalar> = (0..n - 1).map(|_| random_u128_scalar(rng)).collect();
    let lo1 = g1_msm_vartime(&p.g1[..n - 1], &r);
    let hi1 = g1_msm_vartime(&p.g1[1..], &r);
    let lo2 = g2_msm_vartime(&p.g2[..n - 1], &r);
    let hi2 = g2_msm_vartime(&p.g2[1..], &r);
    let tau1 = p.g1[1].to_affine();
    let tau2 = p.g2[1].to_affine();
    // e(hi1, g2)·e(lo1, −[τ]_2) = 1 and e(g1, hi2)·e(−[τ]_1, lo2) = 1.
    let ok_g1 = quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
        (hi1.to_affine(), G2Affine::generator()),
        (lo1.to_affine(), -tau2),
    ]);
    let ok_g2 = quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
        (G1Affine::generator(), hi2.to_affine()),
        (-tau1, lo2.to_affine()),
    ]);
    if !ok_g1 || !ok_g2 {
        return Err(bad("powers are not consecutive powers of one τ"));
    }
    Ok(())
}

/// `τ ≠ 0` and `τ^N ≠ 1` for the final powers (see [`Crs::from_transcript`]).
fn check_tau_nontrivial(p: &PowersOfTau) -> Result<(), BlsError> {
    let n = p.g1.len();
    let bad = |check| BlsError::InvalidSetup {
        check,
        contribution: None,
    };
    if bool::from(p.g1[1].is_identity()) {
        return Err(bad("τ is zero"));
    }
    // e([τ^(N−1)]_1, [τ]_2) = e(g1, g2)  ⇔  τ^N = 1.
    let root_of_unity = quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
        (p.g1[n - 1].to_affine(), p.g2[1].to_affine()),
        (-G1Affine::generator(), G2Affine::generator()),
    ]);
    if root_of_unity {
        return Err(bad("τ is trivial: τ^N = 1 (τ = ±1 or a domain point)"));
    }
    Ok(())
}

/// A verifiable multi-party powers-of-tau ceremony.
///
/// Contributor `k` takes the current powers `[τ^j]`, picks a secret `τ_k`, publishes
/// `[τ^j·τ_k^j]`, `U = τ_k·g1`, `V = τ_k·g2` and a Schnorr proof of knowledge of `τ_k`
/// (bound to the session, its index and the previous `[τ]_1`), then erases `τ_k`. Anyone
/// can check each step; the final `τ = Π τ_k` is unknown unless every contributor
/// colludes. The checks per contribution are:
/// `e(U, g2) = e(g1, V)`, `e([τ']_1, g2) = e([τ]_1, V)`, the proof of knowledge, and the
/// structure check of the new powers (consecutive powers of one `τ`).
pub mod ceremony {
    use super::*;

    const PROTOCOL: &[u8] = b"quorate/bls/kzg-ceremony";
    const VERSION: u16 = 1;

    /// One contributor's published update.
    #[derive(Clone, Debug)]
    pub struct Contribution {
        /// The updated powers.
        pub powers: PowersOfTau,
        /// `U = τ_k·g1`.
        pub u: G1Projective,
        /// `V = τ_k·g2`.
        pub v: G2Projective,
        /// Schnorr commitment `A = a·g1`.
        pub pok_commitment: G1Projective,
        /// Schnorr response `z = a + c·τ_k`.
        pub pok_response: Scalar,
    }

    impl Contribution {
        /// Encoding for a ceremony run across machines: `U`, `V`, `A`, `z`, then the new
        /// powers ([`PowersOfTau::to_bytes`]).
        pub fn to_bytes(&self) -> Vec<u8> {
            let mut out = Vec::new();
            out.extend_from_slice(&quorate_core::bls12_381::wire::g1_to_bytes(&self.u));
            out.extend_from_slice(&quorate_core::bls12_381::wire::g2_to_bytes(&self.v));
            out.extend_from_slice(&quorate_core::bls12_381::wire::g1_to_bytes(
                &self.pok_commitment,
            ));
            out.extend_from_slice(&quorate_core::bls12_381::wire::scalar_to_bytes(
                &self.pok_response,
            ));
            out.extend_from_slice(&self.powers.to_bytes());
            out
        }

        /// Checked decoding (lengths, canonical subgroup points, no identities). The
        /// contribution's validity is [`verify`]'s job.
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, quorate_core::DecodeError> {
            use quorate_core::bls12_381::wire::ReadBls;
            let head = 2 * quorate_core::bls12_381::wire::G1_BYTES
                + quorate_core::bls12_381::wire::G2_BYTES
                + quorate_core::bls12_381::wire::SCALAR_BYTES;
            if bytes.len() < head {
                return Err(quorate_core::DecodeError::WrongLength {
                    what: "ceremony contribution",
                    expected: head,
                    got: bytes.len(),
                });
            }
            let (first, rest) = bytes.split_at(head);
            let mut r = quorate_core::encoding::Reader::new("ceremony contribution", first);
            let u = r.g1("U")?;
            let v = r.g2("V")?;
            let pok_commitment = r.g1("proof-of-knowledge commitment")?;
            let pok_response = r.scalar("proof-of-knowledge response")?;
            r.finish()?;
            Ok(Contribution {
                powers: PowersOfTau::from_bytes(rest)?,
                u,
                v,
                pok_commitment,
                pok_response,
            })
        }
    }

    /// The starting point of a ceremony for `n` parties: every power is the generator.
    pub fn initial(n: u16) -> Result<PowersOfTau, ParamError> {
        let size = Domain::for_parties(n)?.size();
        Ok(PowersOfTau {
            g1: vec![G1Projective::generator(); size],
            g2: vec![G2Projective::generator(); size],
        })
    }

    fn challenge(
        session: &SessionId,
        index: usize,
        prev: &PowersOfTau,
        u: &G1Projective,
        v: &G2Projective,
        a: &G1Projective,
    ) -> Scalar {
        let mut t = merlin::Transcript::for_protocol(PROTOCOL, VERSION, session);
        t.append_u64_be(b"contribution-index", index as u64);
        t.append_u64_be(b"powers", prev.g1.len() as u64);
        t.append_point(b"previous-tau-g1", &prev.g1[1]);
        t.append_point(b"previous-tau-g2", &prev.g2[1]);
        t.append_point(b"U", u);
        t.append_point(b"V", v);
        t.append_point(b"A", a);
        t.challenge_scalar(b"c")
    }

    fn check_shape(p: &PowersOfTau, index: usize) -> Result<(), BlsError> {
        if p.g1.len() < 2 || p.g1.len() != p.g2.len() {
            return Err(BlsError::InvalidSetup {
                check: "powers must be two lists of equal length of at least 2",
                contribution: Some(index),
            });
        }
        Ok(())
    }

    /// Contributes fresh secret randomness to `prev`. `τ_k` is erased before returning.
    pub fn contribute<R: RngCore + CryptoRng>(
        prev: &PowersOfTau,
        session: &SessionId,
        index: usize,
        rng: &mut R,
    ) -> Result<Contribution, BlsError> {
        let mut tau_k = Scalar::random(&mut *rng);
        while bool::from(tau_k.is_zero()) {
            tau_k = Scalar::random(&mut *rng);
        }
        let out = contribute_with(prev, session, index, &tau_k, rng);
        quorate_core::secret::wipe_field(&mut tau_k);
        out
    }

    /// [`contribute`] with a given `τ_k` (tests play trivial contributors with it).
    pub(crate) fn contribute_with<R: RngCore + CryptoRng>(
        prev: &PowersOfTau,
        session: &SessionId,
        index: usize,
        tau_k: &Scalar,
        rng: &mut R,
    ) -> Result<Contribution, BlsError> {
        check_shape(prev, index)?;
        let tau_k = *tau_k;
        let mut pows = Vec::with_capacity(prev.g1.len());
        let mut acc = Scalar::ONE;
        for _ in 0..prev.g1.len() {
            pows.push(acc);
            acc *= tau_k;
        }
        let g1: Vec<G1Projective> = prev
            .g1
            .par_iter()
            .zip(pows.par_iter())
            .map(|(p, s)| p * s)
            .collect();
        let g2: Vec<G2Projective> = prev
            .g2
            .par_iter()
            .zip(pows.par_iter())
            .map(|(p, s)| p * s)
            .collect();
        let u = G1Projective::generator() * tau_k;
        let v = G2Projective::generator() * tau_k;
        let mut a = Scalar::random(&mut *rng);
        let pok_commitment = G1Projective::generator() * a;
        let c = challenge(session, index, prev, &u, &v, &pok_commitment);
        let pok_response = a + c * tau_k;
        quorate_core::secret::wipe_field(&mut a);
        quorate_core::secret::wipe_field(&mut acc);
        quorate_core::secret::wipe_fields(&mut pows);
        Ok(Contribution {
            powers: PowersOfTau { g1, g2 },
            u,
            v,
            pok_commitment,
            pok_response,
        })
    }

    /// Checks contribution `index` against the previous powers and returns the new ones.
    pub fn verify<R: RngCore + CryptoRng>(
        prev: &PowersOfTau,
        contribution: &Contribution,
        session: &SessionId,
        index: usize,
        rng: &mut R,
    ) -> Result<PowersOfTau, BlsError> {
        let bad = |check| BlsError::InvalidSetup {
            check,
            contribution: Some(index),
        };
        check_shape(prev, index)?;
        let next = &contribution.powers;
        if next.g1.len() != prev.g1.len() || next.g2.len() != prev.g2.len() {
            return Err(bad("contribution changes the number of powers"));
        }
        if bool::from(contribution.u.is_identity()) {
            return Err(bad("contribution τ_k is zero"));
        }
        let c = challenge(
            session,
            index,
            prev,
            &contribution.u,
            &contribution.v,
            &contribution.pok_commitment,
        );
        if G1Projective::generator() * contribution.pok_response
            != contribution.pok_commitment + contribution.u * c
        {
            return Err(bad("proof of knowledge of τ_k"));
        }
        let g2 = G2Affine::generator();
        let ok_uv = quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
            (contribution.u.to_affine(), -g2),
            (G1Affine::generator(), contribution.v.to_affine()),
        ]);
        let ok_step = quorate_core::bls12_381::pairing::pairing_product_is_identity(&[
            (next.g1[1].to_affine(), -g2),
            (prev.g1[1].to_affine(), contribution.v.to_affine()),
        ]);
        if !ok_uv || !ok_step {
            return Err(bad("new [τ] is not the old [τ] times τ_k"));
        }
        check_powers_structure(next, Some(index), rng)?;
        Ok(next.clone())
    }

    /// The fewest contributions [`Crs::from_transcript`] accepts: one contributor alone
    /// would know `τ`.
    pub const MIN_CONTRIBUTIONS: usize = 2;
    /// The most contributions a decoded transcript may hold.
    pub const MAX_CONTRIBUTIONS: usize = 256;

    /// A whole ceremony: its session, the party count it serves (which fixes the number of
    /// powers `N`) and every contribution in order, starting from [`initial`].
    #[derive(Clone, Debug)]
    pub struct Transcript {
        /// The ceremony's session id, bound into every proof of knowledge.
        pub session: SessionId,
        /// The party count `n` the CRS serves.
        pub parties: u16,
        /// The contributions, in order.
        pub contributions: Vec<Contribution>,
    }

    const TAG_TRANSCRIPT: u8 = 0x0a;
    const TRANSCRIPT_VERSION: u8 = 1;

    impl Transcript {
        /// SHA-256 over a domain tag, the session, `n`, and every contribution's encoding
        /// (its `U`, `V`, proof of knowledge and powers): the id of the CRS it yields.
        pub fn id(&self) -> [u8; 32] {
            use sha2::{Digest, Sha256};
            let mut h = Sha256::new();
            h.update(b"quorate/bls/kzg-ceremony-transcript/v1");
            h.update((self.session.as_bytes().len() as u64).to_be_bytes());
            h.update(self.session.as_bytes());
            h.update(self.parties.to_be_bytes());
            h.update((self.contributions.len() as u64).to_be_bytes());
            for c in &self.contributions {
                h.update(c.to_bytes());
            }
            h.finalize().into()
        }

        /// Encoding: header, `u16` session length and session, `u16` n, `u16` count, then
        /// each contribution ([`Contribution::to_bytes`], all of one length).
        pub fn to_bytes(&self) -> Vec<u8> {
            let mut w = quorate_core::encoding::Writer::new();
            w.header(TAG_TRANSCRIPT, TRANSCRIPT_VERSION)
                .u16(self.session.as_bytes().len() as u16)
                .bytes(self.session.as_bytes())
                .u16(self.parties)
                .u16(self.contributions.len() as u16);
            for c in &self.contributions {
                w.bytes(&c.to_bytes());
            }
            w.into_bytes()
        }

        /// Checked decoding (lengths and points; the checks are
        /// [`Crs::from_transcript`]'s job).
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, quorate_core::DecodeError> {
            let mut r = quorate_core::encoding::Reader::new("ceremony transcript", bytes);
            r.header(TAG_TRANSCRIPT, TRANSCRIPT_VERSION)?;
            let session_len = usize::from(r.u16()?);
            let session = SessionId::new(r.take(session_len)?.to_vec());
            let parties = r.u16()?;
            let size = Domain::for_parties(parties)
                .map_err(|_| quorate_core::DecodeError::InvalidValue {
                    what: "ceremony transcript",
                    reason: "party count out of range",
                })?
                .size();
            let count = r.len_prefix(MAX_CONTRIBUTIONS)?;
            let each = 2 * quorate_core::bls12_381::wire::G1_BYTES
                + quorate_core::bls12_381::wire::G2_BYTES
                + quorate_core::bls12_381::wire::SCALAR_BYTES
                + 4
                + size
                    * (quorate_core::bls12_381::wire::G1_BYTES
                        + quorate_core::bls12_381::wire::G2_BYTES);
            let contributions = (0..count)
                .map(|_| Contribution::from_bytes(r.take(each)?))
                .collect::<Result<Vec<_>, _>>()?;
            r.finish()?;
            Ok(Transcript {
                session,
                parties,
                contributions,
            })
        }
    }

    /// Checks a whole transcript (see [`Crs::from_transcript`]) and returns the final
    /// powers.
    pub(crate) fn verify_transcript<R: RngCore + CryptoRng>(
        transcript: &Transcript,
        rng: &mut R,
    ) -> Result<PowersOfTau, BlsError> {
        let k = transcript.contributions.len();
        if k < MIN_CONTRIBUTIONS {
            return Err(BlsError::InvalidSetup {
                check: "a CRS needs at least two contributions",
                contribution: None,
            });
        }
        let g1 = G1Projective::generator();
        let mut powers = initial(transcript.parties)?;
        for (index, c) in transcript.contributions.iter().enumerate() {
            if c.u == g1 || c.u == -g1 {
                return Err(BlsError::InvalidSetup {
                    check: "trivial contribution τ_k = ±1",
                    contribution: Some(index),
                });
            }
            if transcript.contributions[..index].iter().any(|o| o.u == c.u) {
                return Err(BlsError::InvalidSetup {
                    check: "contribution repeats an earlier τ_k",
                    contribution: Some(index),
                });
            }
            powers = verify(&powers, c, &transcript.session, index, rng)?;
        }
        check_tau_nontrivial(&powers)?;
        Ok(powers)
    }

    /// Runs a ceremony with `contributors ≥ 2` contributors inside this process and
    /// returns the verified transcript.
    ///
    /// Each contributor draws `τ_k` from the operating system's RNG (never from a
    /// caller-supplied or seeded generator, so no seed can reproduce `τ`) and erases it as
    /// soon as it has contributed; the final `τ = Π τ_k` is never formed. Because all
    /// contributors run in one process, this protects against later compromise but not
    /// against a compromised host *during* the run: deployments that need that run
    /// [`contribute`] on separate machines, exchange [`Contribution::to_bytes`], and check
    /// the assembled [`Transcript`] with [`Crs::from_transcript`]. The demo and the benches
    /// use this function.
    pub fn run_transcript_in_process(
        n: u16,
        contributors: usize,
        session: &SessionId,
    ) -> Result<Transcript, BlsError> {
        if contributors < MIN_CONTRIBUTIONS {
            return Err(ParamError::Invalid("a ceremony needs at least two contributors").into());
        }
        let mut os = rand_core::OsRng;
        let mut powers = initial(n)?;
        let mut contributions = Vec::with_capacity(contributors);
        for k in 0..contributors {
            let c = contribute(&powers, session, k, &mut os)?;
            powers = c.powers.clone();
            contributions.push(c);
        }
        Ok(Transcript {
            session: session.clone(),
            parties: n,
            contributions,
        })
    }

    /// [`run_transcript_in_process`], then [`Crs::from_transcript`].
    pub fn run_in_process(
        n: u16,
        contributors: usize,
        session: &SessionId,
    ) -> Result<Crs, BlsError> {
        let transcript = run_transcript_in_process(n, contributors, session)?;
        Crs::from_transcript(&transcript, &mut rand_core::OsRng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quorate_core::poly::{evaluate, quotient_by_linear};
    use rand_chacha::ChaCha20Rng;
    use rand_core::SeedableRng;

    fn crs(n: u16, _seed: u64) -> Crs {
        ceremony::run_in_process(n, 2, &SessionId::new(b"test".to_vec())).unwrap()
    }

    #[test]
    fn fft_roundtrip_and_matches_evaluation() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let d = Domain::with_log_size(3).unwrap();
        let coeffs: Vec<Scalar> = (0..8).map(|_| Scalar::random(&mut rng)).collect();
        let mut v = coeffs.clone();
        d.fft(&mut v).unwrap();
        for (k, vk) in v.iter().enumerate() {
            assert_eq!(*vk, evaluate(&coeffs, &d.element(k)));
        }
        d.ifft(&mut v).unwrap();
        assert_eq!(v, coeffs);
        // A wrong length is an error, not a silently wrong transform.
        let mut short = coeffs[..7].to_vec();
        assert!(d.fft(&mut short).is_err());
        assert!(d.ifft(&mut short).is_err());
        assert_eq!(short, coeffs[..7]);
        assert_eq!(d.omega().pow_vartime([8u64]), Scalar::ONE);
        assert_ne!(d.omega().pow_vartime([4u64]), Scalar::ONE);
    }

    #[test]
    fn prefix_interpolation_has_degree_below_len_and_hits_every_value() {
        let mut rng = ChaCha20Rng::seed_from_u64(14);
        for log in [1u32, 3, 5, 7] {
            let d = Domain::with_log_size(log).unwrap();
            let size = d.size();
            for len in [0, 1, 2, 3, 5, size / 2 + 1, size - 1, size] {
                if len > size {
                    continue;
                }
                let values: Vec<Scalar> = (0..len).map(|_| Scalar::random(&mut rng)).collect();
                let coeffs = d.interpolate_prefix(&values).unwrap();
                assert_eq!(coeffs.len(), len, "N={size} len={len}");
                for (i, v) in values.iter().enumerate() {
                    assert_eq!(
                        evaluate(&coeffs, &d.element(i)),
                        *v,
                        "N={size} len={len} i={i}"
                    );
                }
            }
            // len = N is the inverse FFT; more values than points is a typed error.
            let mut all: Vec<Scalar> = (0..size).map(|_| Scalar::random(&mut rng)).collect();
            let coeffs = d.interpolate_prefix(&all).unwrap();
            d.ifft(&mut all).unwrap();
            assert_eq!(coeffs, all);
            assert!(d.interpolate_prefix(&vec![Scalar::ONE; size + 1]).is_err());
        }
    }

    #[test]
    fn fk_openings_match_naive_quotients_for_every_size() {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        for n in [2u16, 3, 4, 5, 8, 9] {
            let crs = crs(n, 3);
            let size = crs.domain().size();
            for len in [1, size / 2, size] {
                let coeffs: Vec<Scalar> = (0..len).map(|_| Scalar::random(&mut rng)).collect();
                let c = crs.commit_ct(&coeffs).unwrap();
                let proofs = crs.open_all_ct(&coeffs).unwrap();
                assert_eq!(proofs.len(), size);
                let mut batch = Vec::new();
                for (k, pi) in proofs.iter().enumerate() {
                    let z = crs.domain().element(k);
                    let y = evaluate(&coeffs, &z);
                    let q = quotient_by_linear(&coeffs, &z);
                    assert_eq!(*pi, crs.commit_ct(&q).unwrap(), "n={n} len={len} k={k}");
                    assert!(crs.verify_opening(&c, &z, &y, pi));
                    assert!(!crs.verify_opening(&c, &z, &(y + Scalar::ONE), pi));
                    batch.push((z, y, *pi));
                }
                assert!(crs.batch_verify_openings(&c, &batch, &mut rng));
                batch[size - 1].1 += Scalar::ONE;
                assert!(!crs.batch_verify_openings(&c, &batch, &mut rng));
            }
        }
    }

    #[test]
    fn block_fk_matches_full_fk_for_every_block_and_remainder() {
        let mut rng = ChaCha20Rng::seed_from_u64(13);
        for n in [4u16, 9, 33] {
            let crs = crs(n, 3);
            let size = crs.domain().size();
            // Every degree m with B ≤ m < 2B and 2B ≤ N, for every block B (remainders
            // r = m − B from 0 to B − 1), including c_0 ≠ 0.
            for log_block in 0..crs.domain().log_size {
                let block = 1usize << log_block;
                for m in block..(2 * block).min(size) {
                    let coeffs: Vec<Scalar> = (0..=m).map(|_| Scalar::random(&mut rng)).collect();
                    assert_eq!(
                        crs.open_all_block_ct(&coeffs, log_block).unwrap(),
                        crs.open_all_ct(&coeffs).unwrap(),
                        "n={n} B={block} m={m}"
                    );
                }
                // A degree outside [B, 2B) is a typed error.
                let short = vec![Scalar::ONE; block];
                assert!(crs.open_all_block_ct(&short, log_block).is_err());
            }
        }
    }

    #[test]
    fn party_openings_match_fk_on_every_path() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        // (n, degree + 1) over the direct quotients, FK on a block (e.g. (100, 67), a
        // refresh at t = 67) and the fused FK (e.g. (20, 32)): the openings must be the
        // same whichever the cost model picks.
        for (n, len) in [
            (5u16, 3usize),
            (20, 5),
            (5, 8),
            (20, 32),
            (9, 1),
            (9, 16),
            (100, 67),
            (33, 35),
        ] {
            let crs = crs(n, 3);
            let coeffs: Vec<Scalar> = (0..len).map(|_| Scalar::random(&mut rng)).collect();
            let mut fk = crs.open_all_ct(&coeffs).unwrap();
            fk.truncate(usize::from(n));
            assert_eq!(
                crs.open_parties_ct(&coeffs, n).unwrap(),
                fk,
                "n={n} len={len}"
            );
        }
        let crs = crs(5, 3);
        assert!(crs.open_parties_ct(&[Scalar::ONE; 9], 5).is_err());
        assert!(crs.open_parties_ct(&[Scalar::ONE; 3], 9).is_err());
    }

    #[test]
    fn degree_proof_accepts_bound_and_rejects_higher_degree() {
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let crs = crs(8, 5);
        let d = crs.max_degree();
        let p: Vec<Scalar> = (0..3).map(|_| Scalar::random(&mut rng)).collect();
        let c = crs.commit_ct(&p).unwrap();
        let dcom = crs.commit_shifted_ct(&p, d - 2).unwrap();
        assert!(crs.verify_degree(&c, 2, &dcom).unwrap());
        // Claiming a smaller bound needs a shift the CRS cannot provide.
        assert!(crs.commit_shifted_ct(&p, d - 1).is_err());
        let wrong = crs.commit_shifted_ct(&p, d - 3).unwrap();
        assert!(!crs.verify_degree(&c, 1, &wrong).unwrap());
    }

    #[test]
    fn ceremony_rejects_tampered_contributions_and_names_them() {
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let session = SessionId::new(b"ceremony".to_vec());
        let start = ceremony::initial(5).unwrap();
        let good = ceremony::contribute(&start, &session, 0, &mut rng).unwrap();
        let next = ceremony::verify(&start, &good, &session, 0, &mut rng).unwrap();
        assert!(check_powers_structure(&next, None, &mut rng).is_ok());

        // Break one middle G1 power.
        let mut bad = ceremony::contribute(&next, &session, 1, &mut rng).unwrap();
        bad.powers.g1[3] += G1Projective::generator();
        let err = ceremony::verify(&next, &bad, &session, 1, &mut rng).unwrap_err();
        assert!(matches!(
            err,
            BlsError::InvalidSetup {
                contribution: Some(1),
                ..
            }
        ));

        // Break one G2 power.
        let mut bad = ceremony::contribute(&next, &session, 1, &mut rng).unwrap();
        bad.powers.g2[5] += G2Projective::generator();
        let err = ceremony::verify(&next, &bad, &session, 1, &mut rng).unwrap_err();
        assert!(matches!(
            err,
            BlsError::InvalidSetup {
                contribution: Some(1),
                ..
            }
        ));

        // Replay a contribution under another index: the proof of knowledge fails.
        let replay = ceremony::contribute(&next, &session, 1, &mut rng).unwrap();
        let err = ceremony::verify(&next, &replay, &session, 2, &mut rng).unwrap_err();
        assert!(matches!(
            err,
            BlsError::InvalidSetup {
                contribution: Some(2),
                ..
            }
        ));

        // Short or mismatched powers are errors, not panics.
        let short = PowersOfTau {
            g1: vec![G1Projective::generator()],
            g2: vec![G2Projective::generator()],
        };
        assert!(ceremony::contribute(&short, &session, 0, &mut rng).is_err());
        assert!(ceremony::verify(&short, &replay, &session, 0, &mut rng).is_err());

        // A contribution travels as checked bytes and still verifies.
        let bytes = replay.to_bytes();
        let decoded = ceremony::Contribution::from_bytes(&bytes).unwrap();
        assert!(ceremony::verify(&next, &decoded, &session, 1, &mut rng).is_ok());
        for len in [0, 10, 224, bytes.len() - 1] {
            assert!(ceremony::Contribution::from_bytes(&bytes[..len]).is_err());
        }

        // Powers travel as checked bytes and come back identical.
        let bytes = next.to_bytes();
        assert_eq!(PowersOfTau::from_bytes(&bytes).unwrap(), next);
        for len in [0, 3, 4, bytes.len() - 1] {
            assert!(PowersOfTau::from_bytes(&bytes[..len]).is_err());
        }
        let mut flipped = bytes.clone();
        flipped[10] ^= 0x01;
        assert!(PowersOfTau::from_bytes(&flipped).is_err());

        // Imported powers are checked too.
        let mut forged = next;
        forged.g1[2] = forged.g1[1];
        assert!(check_powers_structure(&forged, None, &mut rng).is_err());
    }

    fn setup_check(err: BlsError) -> (&'static str, Option<usize>) {
        match err {
            BlsError::InvalidSetup {
                check,
                contribution,
            } => (check, contribution),
            other => panic!("expected InvalidSetup, got {other:?}"),
        }
    }

    #[test]
    fn crs_needs_two_real_contributions_and_a_nontrivial_tau() {
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let session = SessionId::new(b"trivial".to_vec());
        let n = 5u16;
        let chain = |taus: &[Scalar], rng: &mut ChaCha20Rng| {
            let mut powers = ceremony::initial(n).unwrap();
            let mut contributions = Vec::new();
            for (k, tau) in taus.iter().enumerate() {
                let c = ceremony::contribute_with(&powers, &session, k, tau, rng).unwrap();
                powers = c.powers.clone();
                contributions.push(c);
            }
            ceremony::Transcript {
                session: session.clone(),
                parties: n,
                contributions,
            }
        };
        let omega = Domain::for_parties(n).unwrap().omega();
        let three = Scalar::from(3u64);
        let inv3 = three.invert().unwrap();

        // Two real contributions make a CRS.
        let good = chain(&[three, Scalar::from(11u64)], &mut rng);
        let crs = Crs::from_transcript(&good, &mut rng).unwrap();
        assert_eq!(crs.id(), good.id());

        // One contribution alone does not, however good.
        let single = chain(&[three], &mut rng);
        let (check, _) = setup_check(Crs::from_transcript(&single, &mut rng).unwrap_err());
        assert_eq!(check, "a CRS needs at least two contributions");

        // A contribution of ±1 adds nothing and is named.
        for trivial in [Scalar::ONE, -Scalar::ONE] {
            let t = chain(&[three, trivial], &mut rng);
            let (_, who) = setup_check(Crs::from_transcript(&t, &mut rng).unwrap_err());
            assert_eq!(who, Some(1));
        }
        // So is a contributor that replays an earlier τ_k.
        let t = chain(&[three, three], &mut rng);
        let (_, who) = setup_check(Crs::from_transcript(&t, &mut rng).unwrap_err());
        assert_eq!(who, Some(1));

        // Contributions that cancel into τ = 1, τ = −1 or τ = ω (a domain point) are
        // caught on the final powers: the old `from_powers` accepted all three.
        for final_tau in [Scalar::ONE, -Scalar::ONE, omega, omega.square()] {
            let t = chain(&[three, final_tau * inv3], &mut rng);
            let (check, who) = setup_check(Crs::from_transcript(&t, &mut rng).unwrap_err());
            assert_eq!(check, "τ is trivial: τ^N = 1 (τ = ±1 or a domain point)");
            assert_eq!(who, None);
        }

        // The id is bound to the whole transcript: the same final τ reached through other
        // contributions, or under another session, is another CRS.
        let other = chain(&[Scalar::from(99u64), inv3], &mut rng);
        let other_crs = Crs::from_transcript(&other, &mut rng).unwrap();
        assert_eq!(other_crs.g1_powers(), crs.g1_powers());
        assert_ne!(other_crs.id(), crs.id());

        // Transcripts travel as checked bytes.
        let bytes = good.to_bytes();
        let decoded = ceremony::Transcript::from_bytes(&bytes).unwrap();
        assert_eq!(decoded.id(), good.id());
        assert_eq!(
            Crs::from_transcript(&decoded, &mut rng).unwrap().id(),
            crs.id()
        );
        for len in [0, 5, bytes.len() - 1] {
            assert!(ceremony::Transcript::from_bytes(&bytes[..len]).is_err());
        }
        let mut tampered = good.clone();
        tampered.contributions[1].powers.g1[2] += G1Projective::generator();
        let (_, who) = setup_check(Crs::from_transcript(&tampered, &mut rng).unwrap_err());
        assert_eq!(who, Some(1));
    }
}
