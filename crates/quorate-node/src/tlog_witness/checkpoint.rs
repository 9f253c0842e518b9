//! Checkpoints ([C2SP tlog-checkpoint]): the note text `origin\nsize\nbase64(root hash)\n`
//! followed by optional non-empty extension lines.
//!
//! [C2SP tlog-checkpoint]: https://c2sp.org/tlog-checkpoint

use super::note::NoteError;
use base64ct::{Base64, Encoding};

/// A parsed checkpoint body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint<'a> {
    /// The origin line (the log's identity), without its newline.
    pub origin: &'a str,
    /// The tree size.
    pub size: u64,
    /// The RFC 6962 root hash at that size.
    pub root: [u8; 32],
}

/// Parses an ASCII decimal with no leading zeroes (`0` alone for zero) and no sign.
pub fn parse_decimal(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 20 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.len() > 1 && s.starts_with('0') {
        return None;
    }
    s.parse().ok()
}

impl<'a> Checkpoint<'a> {
    /// Parses a checkpoint's note text (as [`super::note::SignedNote::text`] gives it: ending
    /// in a newline). At least three lines; every line non-empty.
    pub fn parse(text: &'a str) -> Result<Checkpoint<'a>, NoteError> {
        let body = text
            .strip_suffix('\n')
            .ok_or(NoteError::Malformed("checkpoint (no final newline)"))?;
        let mut lines = body.split('\n');
        let (Some(origin), Some(size), Some(root)) = (lines.next(), lines.next(), lines.next())
        else {
            return Err(NoteError::Malformed("checkpoint (fewer than three lines)"));
        };
        if origin.is_empty() {
            return Err(NoteError::Malformed("checkpoint (empty origin)"));
        }
        if lines.any(str::is_empty) {
            return Err(NoteError::Malformed("checkpoint (empty extension line)"));
        }
        let size = parse_decimal(size).ok_or(NoteError::Malformed("checkpoint (tree size)"))?;
        let root: [u8; 32] = Base64::decode_vec(root)
            .ok()
            .and_then(|r| r.try_into().ok())
            .ok_or(NoteError::Malformed("checkpoint (root hash)"))?;
        Ok(Checkpoint { origin, size, root })
    }
}

/// A checkpoint body (without extension lines).
pub fn format_checkpoint(origin: &str, size: u64, root: &[u8; 32]) -> String {
    format!("{origin}\n{size}\n{}\n", Base64::encode_string(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_parse_strictly() {
        let root = [3u8; 32];
        let text = format_checkpoint("example.com/log", 42, &root);
        let cp = Checkpoint::parse(&text).expect("parse");
        assert_eq!((cp.origin, cp.size, cp.root), ("example.com/log", 42, root));
        let with_ext = format!("{text}ext line\n");
        assert_eq!(Checkpoint::parse(&with_ext).expect("ext").size, 42);
        let b64 = Base64::encode_string(&root);
        for bad in [
            String::new(),
            format!("o\n42\n{b64}"),
            format!("\n42\n{b64}\n"),
            format!("o\n042\n{b64}\n"),
            format!("o\n+42\n{b64}\n"),
            format!("o\n-1\n{b64}\n"),
            format!("o\n18446744073709551616\n{b64}\n"),
            format!("o\n42\n{}\n", Base64::encode_string(&[1u8; 31])),
            format!("o\n42\n{b64}\n\n"),
            "o\n42\n".to_string(),
        ] {
            assert!(Checkpoint::parse(&bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_decimal("0"), Some(0));
        assert_eq!(parse_decimal("00"), None);
        assert_eq!(parse_decimal("18446744073709551615"), Some(u64::MAX));
    }
}
