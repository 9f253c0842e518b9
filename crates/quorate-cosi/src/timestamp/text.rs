//! Text forms shared by receipts and rounds: RFC 3339 times, 64-hex-character hashes and the
//! serde adapters that read and write them. A leaf module (it imports only
//! [`super::merkle::Hash`]), so [`super::receipt`] and [`super::round`] can both use it.

use super::merkle::Hash;

/// Milliseconds since the Unix epoch as an RFC 3339 UTC time with milliseconds, e.g.
/// `1970-01-01T00:00:00.000Z`. Dates use the proleptic Gregorian calendar (days to
/// year/month/day by the `civil_from_days` algorithm of H. Hinnant, "chrono-Compatible
/// Low-Level Date Algorithms"); years past 9999 print with more digits.
pub fn rfc3339_utc(time_ms: u64) -> String {
    let (secs, ms) = (time_ms / 1000, time_ms % 1000);
    let (days, day_secs) = (secs / 86_400, secs % 86_400);
    // Shift the epoch to 0000-03-01 so leap days end each 400-year era.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        day_secs / 3600,
        day_secs / 60 % 60,
        day_secs % 60
    )
}

/// Parses exactly 64 hex characters (either case), with optional surrounding whitespace,
/// into 32 bytes.
pub fn parse_hash_hex(text: &str) -> Option<Hash> {
    parse_hash_hex_bytes(text.as_bytes())
}

/// Value of each byte as a hex digit, or `0xff`.
const HEX_VALUES: [u8; 256] = {
    let mut table = [0xffu8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => 0xff,
        };
        c += 1;
    }
    table
};

/// [`parse_hash_hex`] on raw bytes (e.g. a request body), without a UTF-8 pass. This is on
/// the server's submit path, hence the lookup table.
pub fn parse_hash_hex_bytes(text: &[u8]) -> Option<Hash> {
    let text = text.trim_ascii();
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    let mut bad = 0u8;
    for (o, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
        let hi = HEX_VALUES[usize::from(pair[0])];
        let lo = HEX_VALUES[usize::from(pair[1])];
        bad |= hi | lo;
        *o = (hi << 4) | (lo & 0x0f);
    }
    (bad & 0xf0 == 0).then_some(out)
}

pub(super) mod hex32 {
    use super::Hash;
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(h: &Hash, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(h))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        super::parse_hash_hex(&text)
            .ok_or_else(|| D::Error::custom("expected a 32-byte hash as 64 hex characters"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_times() {
        use super::rfc3339_utc;
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_700_000_000_123), "2023-11-14T22:13:20.123Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_868_799_999), "2000-02-29T23:59:59.999Z");
        assert_eq!(rfc3339_utc(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(253_402_300_799_000), "9999-12-31T23:59:59.000Z");
        assert!(!rfc3339_utc(u64::MAX).is_empty());
    }

    use super::*;

    #[test]
    fn hash_hex_parsing() {
        let h: Hash = core::array::from_fn(|i| (i as u8).wrapping_mul(37));
        let lower = hex::encode(h);
        assert_eq!(parse_hash_hex(&lower), Some(h));
        assert_eq!(parse_hash_hex(&lower.to_uppercase()), Some(h));
        assert_eq!(parse_hash_hex(&format!(" {lower}\r\n")), Some(h));
        assert_eq!(parse_hash_hex(&lower[..62]), None);
        assert_eq!(parse_hash_hex(&format!("{lower}00")), None);
        for bad in ['g', 'G', ' ', ':', '/', '@', '`', 'é'] {
            let mut s = lower.clone();
            s.replace_range(10..11, &bad.to_string());
            assert_eq!(parse_hash_hex(&s), None, "{bad:?}");
        }
        assert_eq!(parse_hash_hex_bytes(&[0xff; 64]), None);
    }
}

pub(super) mod hex32_vec {
    use super::Hash;
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[Hash], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(hex::encode))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Hash>, D::Error> {
        let items = Vec::<String>::deserialize(d)?;
        if items.len() > 64 {
            return Err(D::Error::custom("audit path longer than 64 hashes"));
        }
        items
            .iter()
            .map(|t| {
                super::parse_hash_hex(t)
                    .ok_or_else(|| D::Error::custom("expected a 32-byte hash as 64 hex characters"))
            })
            .collect()
    }
}

pub(super) mod hex_bytes {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(v))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        hex::decode(text.trim()).map_err(|e| D::Error::custom(format!("bad hex: {e}")))
    }
}
