//! Shared harness of the quorate fuzz targets (issue 18).
//!
//! Every crate contributes a list of [`Case`]s: one per public decoder, each with a *valid*
//! encoding built by really running the protocol (seeded, so every process sees the same
//! bytes), the decoder (returning the canonical re-encoding of what it accepted) and, where
//! the crate has one, the semantic check that comes after decoding (group membership,
//! proofs, signatures).
//!
//! Two drivers use the cases:
//! * [`run_decode`] (the `decode_*` targets): byte 0 picks the case, the rest is the input.
//!   An accepted input must re-encode to exactly the same bytes (canonical encodings). The
//!   seed corpus holds `case ‖ valid encoding` for every case, so libFuzzer starts inside
//!   the valid messages and mutates from there.
//! * [`run_mutate`] (the `mutate_*` targets, structure-aware with `arbitrary`): starts from
//!   the case's valid encoding, applies a list of [`Mutation`]s (bit flips, byte and integer
//!   overwrites, insertions, deletions, and transplants of byte ranges from other valid
//!   messages, which carry valid points, scalars and length fields), decodes, checks the
//!   canonical re-encoding and then runs the semantic check. For `strict` cases (signatures
//!   and proofs, where every byte is bound) a changed message that still decodes must fail
//!   the check.
//!
//! Both drivers also check the round trip of the valid message once per process:
//! `decode(encode(x))` re-encodes to `encode(x)`, the decoded value equals `x` where the
//! type has `PartialEq`, and the semantic check accepts it.

#![forbid(unsafe_code)]

use arbitrary::Arbitrary;

pub mod bls;
pub mod core;
pub mod cosi;
pub mod ecdsa;
pub mod json;
pub mod mixnet;
pub mod node;
pub mod paillier;
pub mod roundtrip;
pub mod verenc;

/// Decodes, and on success returns the canonical re-encoding.
pub type Decoder = Box<dyn Fn(&[u8]) -> Option<Vec<u8>>>;
/// Decodes and runs the semantic checks; `true` if the message is accepted.
pub type Checker = Box<dyn Fn(&[u8]) -> bool>;

/// One decoder under test.
pub struct Case {
    /// Stable name (`crate::Type`), used in panics and the corpus.
    pub name: &'static str,
    /// A valid encoding produced by the protocol.
    pub good: Vec<u8>,
    /// The decoder.
    pub decode: Decoder,
    /// The checks after decoding, if any.
    pub check: Option<Checker>,
    /// Every byte of the message is bound by `check`: a different message must fail it.
    pub strict: bool,
}

impl Case {
    /// A case without semantic checks.
    pub fn new(
        name: &'static str,
        good: Vec<u8>,
        decode: impl Fn(&[u8]) -> Option<Vec<u8>> + 'static,
    ) -> Self {
        Case {
            name,
            good,
            decode: Box::new(decode),
            check: None,
            strict: false,
        }
    }

    /// Adds the semantic check (`strict`: see [`Case::strict`]).
    pub fn with_check(mut self, strict: bool, check: impl Fn(&[u8]) -> bool + 'static) -> Self {
        self.check = Some(Box::new(check));
        self.strict = strict;
        self
    }

    /// The once-per-process round trip of the valid message.
    pub fn self_test(&self) {
        let re = (self.decode)(&self.good)
            .unwrap_or_else(|| panic!("{}: the valid encoding is rejected", self.name));
        assert_eq!(
            re, self.good,
            "{}: decode(encode(x)) re-encodes differently",
            self.name
        );
        if let Some(check) = &self.check {
            assert!(
                check(&self.good),
                "{}: the valid message fails its check",
                self.name
            );
        }
    }
}

/// Runs `f` on every case list once, checking each valid message first.
pub fn checked(cases: Vec<Case>) -> &'static [Case] {
    assert!(cases.len() <= 256, "one selector byte per case");
    for c in &cases {
        c.self_test();
    }
    Box::leak(cases.into_boxed_slice())
}

/// The plain decoder driver: `data[0]` picks the case, `data[1..]` is the message.
pub fn run_decode(cases: &[Case], data: &[u8]) {
    let Some((&sel, msg)) = data.split_first() else {
        return;
    };
    let case = &cases[usize::from(sel) % cases.len()];
    if let Some(re) = (case.decode)(msg) {
        assert_eq!(re, msg, "{}: accepted a non-canonical encoding", case.name);
    }
}

/// One structural change to a valid encoding. Positions and lengths wrap around the
/// current message length, so every mutation applies.
#[derive(Arbitrary, Debug, Clone)]
pub enum Mutation {
    /// Flips one bit.
    Flip {
        /// Byte position.
        pos: u32,
        /// Bit (mod 8).
        bit: u8,
    },
    /// Overwrites one byte.
    Set {
        /// Byte position.
        pos: u32,
        /// New value.
        val: u8,
    },
    /// Overwrites a big-endian u16 (length and count fields).
    SetU16 {
        /// Byte position.
        pos: u32,
        /// New value.
        val: u16,
    },
    /// Overwrites a big-endian u32 (length and count fields).
    SetU32 {
        /// Byte position.
        pos: u32,
        /// New value.
        val: u32,
    },
    /// Inserts bytes.
    Insert {
        /// Byte position.
        pos: u32,
        /// The bytes (at most 64 used).
        bytes: Vec<u8>,
    },
    /// Removes a range.
    Remove {
        /// Byte position.
        pos: u32,
        /// Length.
        len: u16,
    },
    /// Truncates.
    Truncate {
        /// New length.
        len: u32,
    },
    /// Fills a range with one byte value (0x00 gives identities and zero scalars, 0xff
    /// out-of-range values).
    Fill {
        /// Byte position.
        pos: u32,
        /// Length.
        len: u16,
        /// Value.
        val: u8,
    },
    /// Copies a range of this message over another place of it (swaps points, repeats
    /// entries).
    CopyWithin {
        /// Source position.
        from: u32,
        /// Destination position.
        to: u32,
        /// Length.
        len: u16,
    },
    /// Overwrites a range with bytes of another case's valid encoding (valid points,
    /// scalars and proofs from elsewhere in the protocol).
    Transplant {
        /// The other case.
        case: u8,
        /// Source position in it.
        from: u32,
        /// Destination position here.
        to: u32,
        /// Length.
        len: u16,
    },
}

fn at(pos: u32, len: usize) -> usize {
    if len == 0 {
        0
    } else {
        pos as usize % len
    }
}

fn overwrite(msg: &mut [u8], pos: usize, src: &[u8]) {
    let n = src.len().min(msg.len().saturating_sub(pos));
    msg[pos..pos + n].copy_from_slice(&src[..n]);
}

impl Mutation {
    /// Applies the mutation.
    pub fn apply(&self, msg: &mut Vec<u8>, cases: &[Case]) {
        let len = msg.len();
        match self {
            Mutation::Flip { pos, bit } => {
                if len > 0 {
                    msg[at(*pos, len)] ^= 1 << (bit % 8);
                }
            }
            Mutation::Set { pos, val } => {
                if len > 0 {
                    msg[at(*pos, len)] = *val;
                }
            }
            Mutation::SetU16 { pos, val } => overwrite(msg, at(*pos, len), &val.to_be_bytes()),
            Mutation::SetU32 { pos, val } => overwrite(msg, at(*pos, len), &val.to_be_bytes()),
            Mutation::Insert { pos, bytes } => {
                let p = at(*pos, len + 1);
                let b = &bytes[..bytes.len().min(64)];
                msg.splice(p..p, b.iter().copied());
            }
            Mutation::Remove { pos, len: n } => {
                let p = at(*pos, len);
                let end = (p + usize::from(*n)).min(len);
                msg.drain(p..end);
            }
            Mutation::Truncate { len: n } => msg.truncate(at(*n, len + 1)),
            Mutation::Fill { pos, len: n, val } => {
                let p = at(*pos, len);
                let end = (p + usize::from(*n)).min(len);
                msg[p..end].fill(*val);
            }
            Mutation::CopyWithin { from, to, len: n } => {
                if len > 0 {
                    let f = at(*from, len);
                    let src = msg[f..(f + usize::from(*n)).min(len)].to_vec();
                    overwrite(msg, at(*to, len), &src);
                }
            }
            Mutation::Transplant {
                case,
                from,
                to,
                len: n,
            } => {
                let other = &cases[usize::from(*case) % cases.len()].good;
                if !other.is_empty() {
                    let f = at(*from, other.len());
                    let src = &other[f..(f + usize::from(*n)).min(other.len())];
                    overwrite(msg, at(*to, len), src);
                }
            }
        }
    }
}

/// The input of the structure-aware targets.
#[derive(Arbitrary, Debug)]
pub struct MutateInput {
    /// Which case.
    pub case: u8,
    /// The mutations, applied in order (at most 8 used).
    pub mutations: Vec<Mutation>,
}

/// The structure-aware driver.
pub fn run_mutate(cases: &[Case], input: &MutateInput) {
    let index = usize::from(input.case) % cases.len();
    let case = &cases[index];
    let mut msg = case.good.clone();
    for m in input.mutations.iter().take(8) {
        m.apply(&mut msg, cases);
    }
    let changed = msg != case.good;
    if !Seen::first_time(index, changed.then_some(&msg[..])) {
        // Unchanged (no mutation, or mutations that cancel out): its decoding and check were
        // verified once per process by `Case::self_test`, and both are deterministic.
        // Short inputs are mostly no-ops, and re-verifying a DB-SM proof for each of them
        // took most of the slow targets' time.
        // Or the same changed message as an earlier input (libFuzzer's byte mutations of a
        // `MutateInput` often change only bits that the `arbitrary` decoding or the position
        // wrap-around ignore): decoded and checked already in this process.
        return;
    }
    let Some(re) = (case.decode)(&msg) else {
        return;
    };
    assert_eq!(re, msg, "{}: accepted a non-canonical encoding", case.name);
    if let Some(check) = &case.check {
        let ok = check(&msg);
        // A splice mutation can rebuild another case's valid message byte for byte (the two
        // node envelopes share their header up to the recipient): that one rightly passes.
        let another_valid_message = cases.iter().any(|c| c.good == msg);
        if case.strict && !another_valid_message {
            assert!(!ok, "{}: a changed message passed its check", case.name);
        }
    }
}

/// The changed messages [`run_mutate`] has decoded and checked in this process, per case, so
/// that a message reached again by another input is not decoded and checked again (both are
/// deterministic: the first time settled it). Bounded to 64 MiB of messages (then it starts
/// over). Every 2^16 inputs it reports to stderr how many inputs changed the message and how
/// many of those were new, so the log of a long run shows how many executions really decoded
/// and checked something.
#[derive(Default)]
struct Seen {
    messages: std::collections::HashSet<(usize, Vec<u8>)>,
    bytes: usize,
    inputs: u64,
    changed: u64,
    new: u64,
}

impl Seen {
    const MAX_BYTES: usize = 64 << 20;

    /// Records one input; `changed` is its message if the mutations changed it. True if
    /// that message is new (to be decoded and checked).
    fn first_time(case: usize, changed: Option<&[u8]>) -> bool {
        thread_local! {
            static SEEN: std::cell::RefCell<Seen> = std::cell::RefCell::default();
        }
        SEEN.with(|s| {
            let mut s = s.borrow_mut();
            s.inputs += 1;
            let mut first = false;
            if let Some(msg) = changed {
                s.changed += 1;
                let key = (case, msg.to_vec());
                if !s.messages.contains(&key) {
                    first = true;
                    s.new += 1;
                    if s.bytes + msg.len() > Self::MAX_BYTES {
                        s.messages.clear();
                        s.bytes = 0;
                    }
                    s.bytes += msg.len();
                    s.messages.insert(key);
                }
            }
            if s.inputs % (1 << 16) == 0 {
                eprintln!(
                    "quorate-fuzz: {} inputs, {} changed the message, {} new messages decoded and checked",
                    s.inputs, s.changed, s.new
                );
            }
            first
        })
    }
}

/// A deterministic RNG for fixtures and checks.
pub fn rng(seed: u64) -> rand_chacha::ChaCha20Rng {
    use rand_core::SeedableRng;
    rand_chacha::ChaCha20Rng::seed_from_u64(seed)
}

/// Helper for decoders that return `Result`: the re-encoding on success.
pub fn re<T, E>(r: Result<T, E>, enc: impl FnOnce(&T) -> Vec<u8>) -> Option<Vec<u8>> {
    r.ok().map(|x| enc(&x))
}

/// Writes the seed corpus of a target: for the `decode_*` targets `case ‖ valid encoding`,
/// for the `mutate_*` targets the one-byte input selecting each case with no mutation.
/// The targets call it from their `init` when `QUORATE_FUZZ_WRITE_SEEDS` names a directory
/// (see `fuzz/README.md`); files are named after the cases.
pub fn write_seeds(target: &str, cases: &[Case]) {
    let Some(root) = std::env::var_os("QUORATE_FUZZ_WRITE_SEEDS") else {
        return;
    };
    let dir = std::path::Path::new(&root).join(target);
    std::fs::create_dir_all(&dir).expect("seed directory");
    for (i, c) in cases.iter().enumerate() {
        let sel = u8::try_from(i).expect("at most 256 cases");
        let mut bytes = vec![sel];
        if target.starts_with("decode_") {
            bytes.extend_from_slice(&c.good);
        }
        let name: String = c
            .name
            .chars()
            .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
            .collect();
        std::fs::write(dir.join(format!("{i:02}-{name}")), bytes).expect("seed file");
    }
}
