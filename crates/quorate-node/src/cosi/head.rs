//! What a timestamp witness node checks before it cosigns, and the chain head it keeps.
//!
//! [`HeadValidator`] is the node's [`quorate_cosi::Validator`] for timestamp rounds. It
//! accepts a round header of its roster only if
//! 1. it is the round this witness last cosigned, byte for byte (the leader re-asks after a
//!    restart of the round; re-signing the same statement forks nothing), or
//! 2. it extends that round: the next round number, `prev` = the last header's hash, a time
//!    no earlier than the last one and within the skew bound of this node's clock (round 0
//!    with the genesis `prev` when it has cosigned nothing).
//!
//! A witness that missed rounds (it was down, or its subleader was) has a head behind the
//! chain. The leader then sends it the signed rounds it missed ([`HeadValidator::catch_up`]):
//! each must link to the one before, starting right after this witness's head, and carry a
//! collective signature of a majority of the roster. The witness moves its *known* head to
//! the last of them, and then accepts the round that extends it.
//!
//! The first of them may also **replace** the round this witness last cosigned: a different
//! header for the same round with the same parent, signed by a majority (the round this
//! witness signed fell short of its threshold, and the leader sealed that round again with
//! other witnesses). The witness never signs the replacement itself (that would be two
//! signatures on one round), but takes it as its head and cosigns the round after it. A
//! second majority-signed header for a round already taken is refused: two majorities
//! overlap, so some witness signed both. A witness therefore never cosigns a round that
//! does not descend from what it cosigned itself or from a majority-signed replacement of
//! it, through rounds a majority of witnesses cosigned.
//!
//! Anything else **conflicts** with what this witness cosigned: it is refused, the refusal
//! carries the last cosigned header, and the service keeps the leader's signed request as
//! evidence. When a response is made the new head is written to `cosi-head-<roster>.json`
//! in the node directory durably (temporary file, fsync, rename, fsync of the directory)
//! before the response is released ([`HeadValidator::take_persist_error`]).

use crate::fsutil::{self, Overwrite};
use quorate_cosi::timestamp::{ChainHead, Hash, RoundHeader, SignedRound, GENESIS_PREV};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// The chain state of one witness for one roster.
#[derive(Debug)]
struct State {
    roster_id: Hash,
    path: PathBuf,
    last: Option<RoundHeader>,
    /// The latest round verified by [`HeadValidator::catch_up`]: a later round than `last`,
    /// or a majority-signed replacement of it at the same round (`None` once a later round
    /// is cosigned).
    known: Option<RoundHeader>,
    max_skew_ms: u64,
    persist_error: Option<String>,
}

impl State {
    /// The head the next round must extend: the caught-up round, unless this witness has
    /// since cosigned a later one.
    fn head(&self) -> Option<RoundHeader> {
        match (self.known, self.last) {
            (Some(k), Some(l)) if l.round > k.round => Some(l),
            (Some(k), _) => Some(k),
            (None, l) => l,
        }
    }
}

/// The node's timestamp validator (cheap to clone: clones share one state).
#[derive(Clone, Debug)]
pub struct HeadValidator {
    state: Arc<Mutex<State>>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The head file of roster `roster_id` in `dir`.
pub fn head_path(dir: &Path, roster_id: &Hash) -> PathBuf {
    dir.join(format!("cosi-head-{}.json", hex::encode(&roster_id[..8])))
}

impl HeadValidator {
    /// Loads the head of roster `roster_id` from `dir` (none yet: a new chain).
    pub fn open(dir: &Path, roster_id: Hash, max_skew_ms: u64) -> Result<HeadValidator, String> {
        let path = head_path(dir, &roster_id);
        let last = if path.exists() {
            let text = fsutil::read_text_bounded(&path, 4096).map_err(|e| e.to_string())?;
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let message = v["message"]
                .as_str()
                .and_then(|m| hex::decode(m).ok())
                .and_then(|m| RoundHeader::from_message(&m))
                .ok_or_else(|| format!("{}: no round message", path.display()))?;
            if message.roster_id != roster_id {
                return Err(format!("{}: a head of another roster", path.display()));
            }
            Some(message)
        } else {
            None
        };
        Ok(HeadValidator {
            state: Arc::new(Mutex::new(State {
                roster_id,
                path,
                last,
                known: None,
                max_skew_ms,
                persist_error: None,
            })),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The last round header this witness cosigned.
    pub fn last(&self) -> Option<RoundHeader> {
        self.lock().last
    }

    /// Whether the new head failed to be written since the last call (the response must
    /// then not be released).
    pub fn take_persist_error(&self) -> Option<String> {
        self.lock().persist_error.take()
    }

    /// The check itself; `Err` is the refusal reason.
    fn check_header(&self, message: &[u8]) -> Result<(), String> {
        let s = self.lock();
        let h = RoundHeader::from_message(message)
            .ok_or_else(|| "not a timestamp round header".to_owned())?;
        if h.roster_id != s.roster_id {
            return Err("round header names another roster".into());
        }
        let top = s.head();
        if s.last == Some(h) && top == Some(h) {
            return Ok(());
        }
        let head = top
            .as_ref()
            .map_or_else(ChainHead::genesis, ChainHead::after);
        let conflict = |what: &str| match &s.last {
            Some(l) => format!(
                "conflict: round {} {what}; this witness last cosigned round {} (header hash {})",
                h.round,
                l.round,
                hex::encode(l.hash())
            ),
            None => format!(
                "conflict: round {} {what}; this witness has cosigned nothing",
                h.round
            ),
        };
        if h.round != head.next_round {
            return Err(conflict(&format!(
                "is not the next round ({})",
                head.next_round
            )));
        }
        if h.prev != head.prev || (h.round == 0 && h.prev != GENESIS_PREV) {
            return Err(conflict("does not extend the last cosigned round"));
        }
        if h.time_ms < head.last_time_ms {
            return Err(conflict("goes back in time"));
        }
        let now = now_ms();
        if h.time_ms.abs_diff(now) > s.max_skew_ms {
            return Err(format!(
                "round time {} ms is more than {} ms from this witness's clock ({now} ms)",
                h.time_ms, s.max_skew_ms
            ));
        }
        Ok(())
    }

    /// Verifies rounds this witness missed and moves its known head to the last of them
    /// (see the module docs). Rounds before the head are skipped, and so is the head
    /// itself; the first new one must directly follow it, or **replace** it: a different
    /// header for the round this witness last cosigned itself, with the same parent (the
    /// leader sealed that round without this witness's signature). Each taken round must
    /// carry a signature of a majority of `roster`. Returns how many rounds were taken.
    pub fn catch_up(
        &self,
        rounds: &[SignedRound],
        roster: &quorate_cosi::Roster,
    ) -> Result<usize, String> {
        let mut s = self.lock();
        let majority = quorate_cosi::Policy::Threshold(roster.len() / 2 + 1);
        let mut base = s.head();
        let mut taken = 0;
        for r in rounds {
            let h = r.header;
            if h.roster_id != s.roster_id {
                return Err(format!("catch-up round {} names another roster", h.round));
            }
            let links = match &base {
                Some(b) if h.round < b.round || h == *b => continue,
                Some(b) if h.round == b.round => {
                    if s.last != Some(*b) {
                        // Two majority signatures on one round: some witness signed both.
                        return Err(format!(
                            "catch-up round {} conflicts with the majority-signed round {} already taken (header hash {})",
                            h.round,
                            b.round,
                            hex::encode(b.hash())
                        ));
                    }
                    h.prev == b.prev
                }
                Some(b) => b.is_followed_by(&h),
                None => h.round == 0 && h.prev == GENESIS_PREV,
            };
            if !links {
                return Err(format!(
                    "catch-up round {} neither extends nor replaces round {}",
                    h.round,
                    base.map_or_else(|| "none".to_owned(), |b| b.round.to_string())
                ));
            }
            roster
                .verify_bytes(&h.message(), &r.signature, &majority)
                .map_err(|e| format!("catch-up round {}: {e}", h.round))?;
            base = Some(h);
            s.known = Some(h);
            taken += 1;
        }
        Ok(taken)
    }

    /// Records `header` as the last cosigned round, durably.
    fn persist(&self, header: RoundHeader) {
        let mut s = self.lock();
        if s.last == Some(header) {
            return;
        }
        let body = serde_json::json!({
            "round": header.round,
            "hash": hex::encode(header.hash()),
            "message": hex::encode(header.message()),
        });
        match fsutil::write_atomic(
            &s.path,
            body.to_string().as_bytes(),
            0o600,
            Overwrite::Replace,
        ) {
            Ok(()) => {
                s.last = Some(header);
                if s.known.is_some_and(|k| k.round < header.round) {
                    s.known = None;
                }
            }
            Err(e) => s.persist_error = Some(format!("storing the chain head: {e}")),
        }
    }
}

impl quorate_cosi::Validator for HeadValidator {
    fn check(&mut self, message: &[u8]) -> Result<(), String> {
        self.check_header(message)
    }

    fn cosigned(&mut self, message: &[u8]) {
        match RoundHeader::from_message(message) {
            Some(h) => self.persist(h),
            None => self.lock().persist_error = Some("cosigned a non-round message".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quorate_cosi::Validator as _;

    fn header(round: u64, prev: Hash, time_ms: u64) -> RoundHeader {
        RoundHeader {
            roster_id: [1; 32],
            round,
            time_ms,
            tree_size: 1,
            prev,
            root: [round as u8; 32],
        }
    }

    #[test]
    fn extends_the_durable_head_and_refuses_conflicts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let now = now_ms();
        let mut v = HeadValidator::open(dir.path(), [1; 32], 10_000).expect("open");
        let r0 = header(0, GENESIS_PREV, now);
        assert_eq!(v.check(&r0.message()), Ok(()));
        v.cosigned(&r0.message());
        assert_eq!(v.take_persist_error(), None);
        // The same round again is fine; a different round 0 conflicts.
        assert_eq!(v.check(&r0.message()), Ok(()));
        let fork = header(0, GENESIS_PREV, now + 1);
        let err = v.check(&fork.message()).expect_err("fork");
        assert!(err.starts_with("conflict"), "{err}");
        assert!(err.contains(&hex::encode(r0.hash())), "{err}");

        // The head survives a restart: round 1 must link to round 0.
        drop(v);
        let mut v = HeadValidator::open(dir.path(), [1; 32], 10_000).expect("reopen");
        assert_eq!(v.last(), Some(r0));
        assert!(v.check(&header(1, [9; 32], now).message()).is_err());
        assert!(v.check(&header(2, r0.hash(), now).message()).is_err());
        assert!(v.check(&header(1, r0.hash(), now - 1).message()).is_err());
        assert!(v
            .check(&header(1, r0.hash(), now + 60_000).message())
            .is_err());
        assert_eq!(v.check(&header(1, r0.hash(), now).message()), Ok(()));
        // Another roster's header.
        let mut other = header(1, r0.hash(), now);
        other.roster_id = [2; 32];
        assert!(v.check(&other.message()).is_err());
    }

    /// Five in-process witnesses that sign any round header, and a head validator for
    /// their roster in a fresh directory.
    struct Fixture {
        roster: Arc<quorate_cosi::Roster>,
        signers: Vec<quorate_cosi::Witness>,
        now: u64,
        dir: tempfile::TempDir,
    }

    impl Fixture {
        fn new() -> Fixture {
            use quorate_cosi::{SecretKey, Witness};
            let mut rng = rand_core::OsRng;
            let keys: Vec<SecretKey> = (0..5).map(|_| SecretKey::generate(&mut rng)).collect();
            let entries = keys.iter().map(|k| k.roster_entry(&mut rng)).collect();
            let roster = Arc::new(quorate_cosi::Roster::new(entries).expect("roster"));
            let signers = keys
                .into_iter()
                .enumerate()
                .map(|(i, k)| Witness::new(roster.clone(), i, k, |_: &[u8]| Ok(())).expect("w"))
                .collect();
            Fixture {
                roster,
                signers,
                now: now_ms(),
                dir: tempfile::tempdir().expect("tempdir"),
            }
        }

        fn validator(&self) -> HeadValidator {
            HeadValidator::open(self.dir.path(), self.roster.id().0, 10_000).expect("open")
        }

        /// Round `round` after `prev`; `salt` makes a different header for the same round.
        fn header(&self, round: u64, prev: Hash, salt: u8) -> RoundHeader {
            RoundHeader {
                roster_id: self.roster.id().0,
                round,
                time_ms: self.now,
                tree_size: 1,
                prev,
                root: [round as u8 ^ salt; 32],
            }
        }

        /// `h` signed by every witness except `absent`.
        fn sign(&mut self, h: &RoundHeader, absent: &[usize]) -> SignedRound {
            use quorate_cosi::{sign_in_process, Scenario, Tree};
            let tree = Tree::complete(5, 2).expect("tree");
            let scenario = Scenario::default().with_absent(absent.iter().copied());
            let policy = quorate_cosi::Policy::Threshold(1);
            let (sig, _) = sign_in_process(
                &self.roster,
                &mut self.signers,
                &tree,
                &h.message(),
                &policy,
                &scenario,
                &mut rand_core::OsRng,
            )
            .expect("signed");
            SignedRound {
                header: *h,
                signature: sig.to_bytes(),
            }
        }
    }

    /// A witness that missed rounds accepts the round after them only once it has seen
    /// them, linked to its own head and signed by a majority; a stretch with a forged or
    /// too thinly signed round is refused.
    #[test]
    fn missed_rounds_are_caught_up_only_with_majority_signed_links() {
        let mut f = Fixture::new();
        let roster = f.roster.clone();
        let (rid, now) = (roster.id().0, f.now);
        let mk = |round: u64, prev: Hash| RoundHeader {
            roster_id: rid,
            round,
            time_ms: now,
            tree_size: 1,
            prev,
            root: [round as u8; 32],
        };
        let mut v = f.validator();
        let mut sign = |h: &RoundHeader, absent: &[usize]| f.sign(h, absent);
        let r0 = mk(0, GENESIS_PREV);
        v.cosigned(&r0.message());
        let r1 = mk(1, r0.hash());
        let r2 = mk(2, r1.hash());
        let r3 = mk(3, r2.hash());
        assert!(
            v.check(&r3.message()).is_err(),
            "rounds 1 and 2 are unknown"
        );

        // Round 2 signed by 2 of 5: not a majority.
        let thin = [sign(&r1, &[]), sign(&r2, &[2, 3, 4])];
        assert!(v.catch_up(&thin, &roster).is_err());
        assert!(v.check(&r3.message()).is_err());
        // A stretch that does not link to the head (round 1 was taken above).
        let forged = mk(2, [7; 32]);
        assert!(v.catch_up(&[sign(&forged, &[])], &roster).is_err());

        let good = [sign(&r1, &[4]), sign(&r2, &[])];
        assert_eq!(
            v.catch_up(&good, &roster),
            Ok(1),
            "round 1 was already taken"
        );
        assert_eq!(v.check(&r3.message()), Ok(()));
        // A conflicting round 2 is now refused.
        let fork = RoundHeader {
            root: [9; 32],
            ..r2
        };
        assert!(v.check(&fork.message()).is_err());
        // Once round 3 is cosigned, round 4 extends it (the caught-up head is behind).
        v.cosigned(&r3.message());
        assert_eq!(v.take_persist_error(), None);
        assert_eq!(v.check(&mk(4, r3.hash()).message()), Ok(()));
    }

    /// The replacement round (issue 15): this witness cosigned `h` for round 1, the round
    /// fell short of its threshold, and the leader sealed round 1 as `h2` with a majority of
    /// other witnesses. Proven by `h2`'s majority signature, the witness moves its head to
    /// `h2` and cosigns round 2 on top of it; it never cosigns `h2` itself.
    #[test]
    fn a_majority_signed_replacement_of_the_own_last_round_is_accepted_as_head() {
        let mut f = Fixture::new();
        let mut v = f.validator();
        let r0 = f.header(0, GENESIS_PREV, 0);
        v.cosigned(&r0.message());
        let h = f.header(1, r0.hash(), 0);
        assert_eq!(v.check(&h.message()), Ok(()));
        v.cosigned(&h.message());
        assert_eq!(v.take_persist_error(), None);
        let h2 = f.header(1, r0.hash(), 0x55);
        let next = f.header(2, h2.hash(), 0);
        // Without the proof: round 2 on top of h2 is refused, and so is h2 itself.
        assert!(v.check(&next.message()).is_err());
        assert!(v
            .check(&h2.message())
            .expect_err("h2")
            .starts_with("conflict"));

        let proof = f.sign(&h2, &[0, 1]);
        assert_eq!(v.catch_up(std::slice::from_ref(&proof), &f.roster), Ok(1));
        assert_eq!(v.check(&next.message()), Ok(()));
        // The witness still refuses to sign round 1 as h2, and no longer signs h either.
        let err = v
            .check(&h2.message())
            .expect_err("h2 after the replacement");
        assert!(err.starts_with("conflict"), "{err}");
        assert!(err.contains(&hex::encode(h.hash())), "{err}");
        assert!(v.check(&h.message()).is_err());
        // Taking the same proof again changes nothing.
        assert_eq!(v.catch_up(&[proof], &f.roster), Ok(0));

        // Round 2 is stored durably before the response, and the chain goes on.
        v.cosigned(&next.message());
        assert_eq!(v.take_persist_error(), None);
        drop(v);
        let mut v = f.validator();
        assert_eq!(v.last(), Some(next));
        assert_eq!(v.check(&f.header(3, next.hash(), 0).message()), Ok(()));
    }

    /// A replacement of the own last round needs a majority signature on a header with the
    /// same parent; anything less leaves the head where it was.
    #[test]
    fn a_replacement_without_a_majority_signature_is_refused() {
        let mut f = Fixture::new();
        let mut v = f.validator();
        let r0 = f.header(0, GENESIS_PREV, 0);
        v.cosigned(&r0.message());
        let h = f.header(1, r0.hash(), 0);
        v.cosigned(&h.message());
        let h2 = f.header(1, r0.hash(), 0x55);
        let next = f.header(2, h2.hash(), 0);

        // Two of five: not a majority.
        let thin = f.sign(&h2, &[0, 1, 2]);
        assert!(v.catch_up(&[thin], &f.roster).is_err());
        // A majority signature on another message (h), presented as h2's.
        let borrowed = SignedRound {
            header: h2,
            signature: f.sign(&h, &[]).signature,
        };
        assert!(v.catch_up(&[borrowed], &f.roster).is_err());
        // A majority-signed round 1 with another parent is no replacement of h.
        let stranger = f.header(1, [7; 32], 0x55);
        let other_parent = f.sign(&stranger, &[]);
        assert!(v.catch_up(&[other_parent], &f.roster).is_err());
        assert!(v.check(&next.message()).is_err());
        assert!(v.check(&f.header(2, stranger.hash(), 0).message()).is_err());
        assert_eq!(v.last(), Some(h));

        // A second majority-signed round 1 after a first one was taken is refused: two
        // majority signatures on one round mean a witness signed both.
        assert_eq!(v.catch_up(&[f.sign(&h2, &[])], &f.roster), Ok(1));
        let h3 = f.header(1, r0.hash(), 0x66);
        assert!(v.catch_up(&[f.sign(&h3, &[])], &f.roster).is_err());
        assert!(v.check(&f.header(2, h3.hash(), 0).message()).is_err());
        assert_eq!(v.check(&next.message()), Ok(()));
    }
}
