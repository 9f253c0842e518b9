//! The `add-checkpoint` request body ([C2SP tlog-witness]):
//!
//! ```text
//! old <size>\n
//! <base64 consistency proof hash>\n      (0 to 63 lines)
//! \n
//! <signed checkpoint note>
//! ```
//!
//! [C2SP tlog-witness]: https://c2sp.org/tlog-witness

use super::checkpoint::{parse_decimal, Checkpoint};
use super::note::{NoteError, SignedNote, MAX_NOTE_BYTES};
use super::proof::Hash;
use base64ct::{Base64, Encoding};

/// Most consistency proof lines a request may carry (the spec's client limit).
pub const MAX_PROOF_LINES: usize = 63;
/// Largest request body accepted, in bytes: the old-size line, 63 proof lines and a note of
/// at most [`MAX_NOTE_BYTES`].
pub const MAX_REQUEST_BYTES: usize = 32 + MAX_PROOF_LINES * 45 + 1 + MAX_NOTE_BYTES;

/// A parsed `add-checkpoint` request (signatures not yet verified).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddCheckpoint<'a> {
    /// The size of the checkpoint the client believes the witness last cosigned.
    pub old_size: u64,
    /// The consistency proof from `old_size` to the checkpoint's size.
    pub proof: Vec<Hash>,
    /// The signed checkpoint note.
    pub note: SignedNote<'a>,
    /// Where the signed note starts in the body.
    pub note_offset: usize,
    /// The checkpoint (parsed from the note's text).
    pub checkpoint: Checkpoint<'a>,
}

impl<'a> AddCheckpoint<'a> {
    /// Parses a request body of at most [`MAX_REQUEST_BYTES`]. Every failure is a typed
    /// [`NoteError`] (answered 400); nothing panics.
    pub fn parse(body: &'a [u8]) -> Result<AddCheckpoint<'a>, NoteError> {
        if body.len() > MAX_REQUEST_BYTES {
            return Err(NoteError::TooLarge {
                what: "an add-checkpoint request",
                max: MAX_REQUEST_BYTES,
            });
        }
        let (line, mut rest) =
            split_line(body).ok_or(NoteError::Malformed("request (no old size line)"))?;
        let old_size = line
            .strip_prefix(b"old ")
            .and_then(|s| std::str::from_utf8(s).ok())
            .and_then(parse_decimal)
            .ok_or(NoteError::Malformed("request (old size line)"))?;
        let mut proof = Vec::new();
        loop {
            let (line, next) =
                split_line(rest).ok_or(NoteError::Malformed("request (no blank line)"))?;
            rest = next;
            if line.is_empty() {
                break;
            }
            if proof.len() == MAX_PROOF_LINES {
                return Err(NoteError::TooLarge {
                    what: "the consistency proof",
                    max: MAX_PROOF_LINES,
                });
            }
            let hash: Hash = std::str::from_utf8(line)
                .ok()
                .and_then(|s| Base64::decode_vec(s).ok())
                .and_then(|h| h.try_into().ok())
                .ok_or(NoteError::Malformed("request (consistency proof line)"))?;
            proof.push(hash);
        }
        let note_offset = body.len() - rest.len();
        let note = SignedNote::parse(rest)?;
        let checkpoint = Checkpoint::parse(note.text)?;
        Ok(AddCheckpoint {
            old_size,
            proof,
            note,
            note_offset,
            checkpoint,
        })
    }
}

/// Splits off the first `\n`-terminated line (without the newline).
fn split_line(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = b.iter().position(|&c| c == b'\n')?;
    Some((&b[..i], &b[i + 1..]))
}

/// Formats a request body (the client side, for tests, benchmarks and examples).
pub fn format_request(old_size: u64, proof: &[Hash], signed_checkpoint: &str) -> String {
    let mut out = format!("old {old_size}\n");
    for h in proof {
        out.push_str(&Base64::encode_string(h));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(signed_checkpoint);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "example.com/log\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n\u{2014} example.com/log AAAAAAA=\n";

    #[test]
    fn requests_parse_and_malformed_ones_are_typed_errors() {
        let body = format_request(2, &[[1; 32], [2; 32]], NOTE);
        let req = AddCheckpoint::parse(body.as_bytes()).expect("parse");
        assert_eq!(req.old_size, 2);
        assert_eq!(req.proof, vec![[1; 32], [2; 32]]);
        assert_eq!(req.checkpoint.origin, "example.com/log");
        assert_eq!(req.checkpoint.size, 3);
        let empty = format_request(0, &[], NOTE);
        assert!(AddCheckpoint::parse(empty.as_bytes())
            .expect("parse")
            .proof
            .is_empty());
        let too_long = format_request(0, &[[0; 32]; 64], NOTE);
        assert!(matches!(
            AddCheckpoint::parse(too_long.as_bytes()),
            Err(NoteError::TooLarge { .. })
        ));
        assert!(AddCheckpoint::parse(format_request(0, &[[0; 32]; 63], NOTE).as_bytes()).is_ok());
        for bad in [
            String::new(),
            "old 1".into(),
            format!("old 01\n\n{NOTE}"),
            format!("new 1\n\n{NOTE}"),
            format!("old -1\n\n{NOTE}"),
            format!("old 1\nAAAA\n\n{NOTE}"),
            format!("old 1\n{NOTE}"),
            "old 1\n\nnot a note".into(),
            "old 1\n\nno\n\n\u{2014} x AAAAAAA=\n".into(),
        ] {
            assert!(AddCheckpoint::parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
        let huge = vec![b'a'; MAX_REQUEST_BYTES + 1];
        assert!(matches!(
            AddCheckpoint::parse(&huge),
            Err(NoteError::TooLarge { .. })
        ));
    }
}
