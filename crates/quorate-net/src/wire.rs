//! Message sizes on the wire.

use std::rc::Rc;
use std::sync::Arc;

/// The number of bytes a message occupies on the wire.
///
/// Protocols implement this from their real canonical encodings (for quorate messages,
/// the length of the `quorate_core::encoding::Writer` output: type tag, version and
/// body), so that the simulator's bandwidth model and byte counters see production
/// sizes. Computing the length without encoding is fine as long as it is exact; a test
/// comparing `wire_size()` with the encoded length is recommended.
///
/// Transport framing (length prefixes, TLS records, TCP/IP headers) is not part of the
/// message; model it with [`NetworkModel::with_overhead`](crate::NetworkModel::with_overhead).
pub trait WireSize {
    /// The encoded length in bytes.
    fn wire_size(&self) -> usize;
}

impl WireSize for Vec<u8> {
    fn wire_size(&self) -> usize {
        self.len()
    }
}

impl WireSize for [u8] {
    fn wire_size(&self) -> usize {
        self.len()
    }
}

impl<const N: usize> WireSize for [u8; N] {
    fn wire_size(&self) -> usize {
        N
    }
}

impl WireSize for () {
    fn wire_size(&self) -> usize {
        0
    }
}

impl<T: WireSize + ?Sized> WireSize for &T {
    fn wire_size(&self) -> usize {
        (**self).wire_size()
    }
}

impl<T: WireSize + ?Sized> WireSize for Box<T> {
    fn wire_size(&self) -> usize {
        (**self).wire_size()
    }
}

impl<T: WireSize + ?Sized> WireSize for Rc<T> {
    fn wire_size(&self) -> usize {
        (**self).wire_size()
    }
}

impl<T: WireSize + ?Sized> WireSize for Arc<T> {
    fn wire_size(&self) -> usize {
        (**self).wire_size()
    }
}

macro_rules! fixed_width {
    ($($t:ty),*) => {$(
        impl WireSize for $t {
            fn wire_size(&self) -> usize {
                core::mem::size_of::<$t>()
            }
        }
    )*};
}
fixed_width!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(vec![0u8; 17].wire_size(), 17);
        assert_eq!([0u8; 32].wire_size(), 32);
        assert_eq!(7u64.wire_size(), 8);
        assert_eq!(Box::new(3u16).wire_size(), 2);
        assert_eq!(().wire_size(), 0);
        let s: &[u8] = &[1, 2, 3];
        assert_eq!(s.wire_size(), 3);
    }
}
