//! Best-effort wiping of secrets that cannot implement `Zeroize` directly.
//!
//! Field elements from `ff` do not implement `zeroize::Zeroize`, and this crate forbids
//! `unsafe`, so volatile writes are not available for them. [`wipe_field`] overwrites the
//! value with zero and passes it through [`core::hint::black_box`], which in practice keeps
//! the compiler from eliding the store. Byte buffers use `zeroize` proper. The limits are
//! the usual ones: copies made by moves or by the caller are not reached.

use ff::Field;

/// Overwrites a field element with zero in a way the optimiser does not remove.
pub fn wipe_field<F: Field>(x: &mut F) {
    *x = F::ZERO;
    core::hint::black_box(x);
}

/// Overwrites every element of a slice of field elements with zero.
pub fn wipe_fields<F: Field>(xs: &mut [F]) {
    for x in xs.iter_mut() {
        *x = F::ZERO;
    }
    core::hint::black_box(xs);
}

/// The text printed instead of a secret by every `Debug` implementation in quorate.
pub const REDACTED: &str = "<redacted>";
