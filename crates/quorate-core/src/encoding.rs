//! Canonical, length-checked encodings.
//!
//! Wire messages start with a one-byte *type tag* and a one-byte *format version*
//! ([`Writer::header`] / [`Reader::header`]). Every read checks the remaining length and
//! returns a [`DecodeError`]; [`Reader::finish`] rejects trailing bytes, so every valid
//! message has exactly one encoding.

use crate::decode::DecodeError;
use crate::party::PartyId;
use ff::PrimeField;

/// Appends canonical encodings to a byte vector.
#[derive(Default, Debug)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer::default()
    }

    /// Writes the message header: type tag then version.
    pub fn header(&mut self, tag: u8, version: u8) -> &mut Self {
        self.buf.push(tag);
        self.buf.push(version);
        self
    }

    /// Appends raw bytes of a fixed-size item.
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }

    /// Appends a big-endian `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a big-endian `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a big-endian `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a party id (2 bytes).
    pub fn party(&mut self, id: PartyId) -> &mut Self {
        self.bytes(&id.to_bytes())
    }

    /// Appends an optional item: a presence byte (0 or 1), then the item written by
    /// `write` when present. [`Reader::optional`] reads it back.
    pub fn optional<T>(
        &mut self,
        item: Option<&T>,
        write: impl FnOnce(&mut Self, &T),
    ) -> &mut Self {
        match item {
            Some(x) => {
                self.bytes(&[1]);
                write(self, x);
            }
            None => {
                self.bytes(&[0]);
            }
        }
        self
    }

    /// The finished encoding.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

/// Reads a canonical encoding, checking lengths at every step.
#[derive(Debug)]
pub struct Reader<'a> {
    what: &'static str,
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Starts reading `bytes`, naming the item for error messages.
    pub fn new(what: &'static str, bytes: &'a [u8]) -> Self {
        Reader { what, rest: bytes }
    }

    /// Checks the type tag and version written by [`Writer::header`].
    pub fn header(&mut self, tag: u8, version: u8) -> Result<(), DecodeError> {
        let [t, v] = self.array::<2>()?;
        if t != tag {
            return Err(DecodeError::UnknownVersion {
                what: self.what,
                found: t,
            });
        }
        if v != version {
            return Err(DecodeError::UnknownVersion {
                what: self.what,
                found: v,
            });
        }
        Ok(())
    }

    /// Takes exactly `len` bytes.
    pub fn take(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        if self.rest.len() < len {
            return Err(DecodeError::WrongLength {
                what: self.what,
                expected: len,
                got: self.rest.len(),
            });
        }
        let (head, tail) = self.rest.split_at(len);
        self.rest = tail;
        Ok(head)
    }

    /// Takes exactly `N` bytes as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// Reads a big-endian `u16`.
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// Reads a big-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// Reads a big-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Reads a non-zero party id.
    pub fn party(&mut self) -> Result<PartyId, DecodeError> {
        PartyId::from_bytes(self.array()?)
    }

    /// Reads a vector length prefix (`u16`) and checks it against `max`.
    pub fn len_prefix(&mut self, max: usize) -> Result<usize, DecodeError> {
        let len = usize::from(self.u16()?);
        if len > max {
            return Err(DecodeError::InvalidValue {
                what: self.what,
                reason: "vector length exceeds the permitted maximum",
            });
        }
        Ok(len)
    }

    /// Reads what [`Writer::optional`] wrote: a presence byte that must be 0 or 1 (anything
    /// else is refused, so the encoding stays canonical), then the item read by `read`.
    pub fn optional<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Option<T>, DecodeError> {
        match self.array::<1>()? {
            [0] => Ok(None),
            [1] => read(self).map(Some),
            _ => Err(DecodeError::InvalidValue {
                what: self.what,
                reason: "presence flag must be 0 or 1",
            }),
        }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// Ends reading; any bytes left over are an error.
    pub fn finish(self) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes {
                what: self.what,
                extra: self.rest.len(),
            })
        }
    }
}

/// Decodes a field element from its `PrimeField::Repr` bytes, rejecting non-canonical values.
pub fn field_from_repr_bytes<F: PrimeField>(
    what: &'static str,
    bytes: &[u8],
) -> Result<F, DecodeError> {
    let mut repr = F::Repr::default();
    let expected = repr.as_ref().len();
    if bytes.len() != expected {
        return Err(DecodeError::WrongLength {
            what,
            expected,
            got: bytes.len(),
        });
    }
    repr.as_mut().copy_from_slice(bytes);
    Option::from(F::from_repr(repr)).ok_or(DecodeError::NonCanonical { what })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_checks_lengths_and_trailing_bytes() {
        let mut w = Writer::new();
        w.header(7, 1).u16(513).u64(42);
        let bytes = w.into_bytes();
        let mut r = Reader::new("msg", &bytes);
        r.header(7, 1).expect("header");
        assert_eq!(r.u16(), Ok(513));
        assert_eq!(r.u64(), Ok(42));
        r.finish().expect("no trailing");

        let mut short = Reader::new("msg", &bytes[..5]);
        short.header(7, 1).expect("header");
        assert_eq!(short.u16(), Ok(513));
        assert!(matches!(short.u64(), Err(DecodeError::WrongLength { .. })));

        let mut extended = bytes.clone();
        extended.push(0);
        let mut r = Reader::new("msg", &extended);
        r.header(7, 1).expect("header");
        r.u16().expect("u16");
        r.u64().expect("u64");
        assert_eq!(
            r.finish(),
            Err(DecodeError::TrailingBytes {
                what: "msg",
                extra: 1
            })
        );
        let mut wrong = Reader::new("msg", &bytes);
        assert!(matches!(
            wrong.header(8, 1),
            Err(DecodeError::UnknownVersion { .. })
        ));
    }

    #[test]
    fn optional_items_round_trip_and_bad_flags_are_refused() {
        let mut w = Writer::new();
        w.optional(Some(&7u16), |w, v| {
            w.u16(*v);
        })
        .optional(None::<&u16>, |w, v| {
            w.u16(*v);
        });
        let bytes = w.into_bytes();
        assert_eq!(bytes, vec![1, 0, 7, 0]);
        let mut r = Reader::new("t", &bytes);
        assert_eq!(r.optional(|r| r.u16()), Ok(Some(7)));
        assert_eq!(r.optional(|r| r.u16()), Ok(None));
        r.finish().unwrap();
        for flag in [2u8, 0xff] {
            let bytes = [flag, 0, 7];
            let mut r = Reader::new("t", &bytes);
            assert!(matches!(
                r.optional(|r| r.u16()),
                Err(DecodeError::InvalidValue { .. })
            ));
        }
    }

    #[test]
    fn non_canonical_scalars_are_rejected() {
        // The BLS12-381 scalar modulus r in little-endian (blstrs' repr) is non-canonical.
        let mut r_le = [0u8; 32];
        let r_be = hex::decode("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")
            .expect("hex");
        for (i, b) in r_be.iter().rev().enumerate() {
            r_le[i] = *b;
        }
        assert_eq!(
            field_from_repr_bytes::<blstrs::Scalar>("s", &r_le),
            Err(DecodeError::NonCanonical { what: "s" })
        );
        assert!(field_from_repr_bytes::<blstrs::Scalar>("s", &[0u8; 31]).is_err());
        assert!(field_from_repr_bytes::<blstrs::Scalar>("s", &[0u8; 32]).is_ok());
    }
}
