//! Keystore tests: sealing, binding, wrong passphrase, corruption, refresh erasure,
//! sessions and bans.

use super::store::FORMAT_V1;
use super::*;
use crate::fsutil::FileError;
use crate::identity::{Identity, NodeId, Passphrase};
use rusqlite::params;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn pass(s: &str) -> Passphrase {
    Passphrase::new(s.to_string()).expect("passphrase")
}

fn new_store(dir: &Path) -> (Keystore, Identity, PathBuf) {
    let path = dir.join("keystore.db");
    let id = Identity::generate(NodeId::new(3).ok());
    let ks = Keystore::create(
        &path,
        &id,
        &pass("correct horse"),
        KdfParams::insecure_for_tests(),
    )
    .expect("create");
    (ks, id, path)
}

fn key(s: &str) -> KeyId {
    KeyId::new(s).expect("key id")
}

fn req(s: &str) -> RequestId {
    RequestId::new(s).expect("request id")
}

/// A key with an active epoch 0 holding `share`.
fn with_active_key(ks: &mut Keystore, k: &KeyId, share: &[u8]) {
    ks.begin_epoch(k, 0).expect("begin");
    ks.put_secret(k, 0, 1, &Kind::KEY_SHARE, share)
        .expect("put");
    ks.commit_epoch(k, 0, b"cert-0").expect("commit");
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Every byte of every file in `dir` (the database, its WAL and shared-memory files).
fn all_file_bytes(dir: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("ls") {
        let path = entry.expect("entry").path();
        if path.is_file() {
            out.extend(std::fs::read(&path).expect("read"));
        }
    }
    out
}

#[test]
fn create_reopen_identity_and_secret_roundtrip() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, id, path) = new_store(dir.path());
    let k = key("ecdsa-1");
    ks.begin_epoch(&k, 0).expect("begin");
    ks.put_secret(&k, 0, 2, &Kind::KEY_SHARE, b"share bytes")
        .expect("put");
    drop(ks);

    let ks = Keystore::open(&path, &pass("correct horse")).expect("open");
    assert_eq!(ks.node_id(), id.id());
    assert_eq!(ks.kdf_params(), KdfParams::insecure_for_tests());
    assert_eq!(
        ks.identity().expect("identity").verifying_key(),
        id.verifying_key()
    );
    let s = ks
        .get_secret(&k, 0, &Kind::KEY_SHARE)
        .expect("get")
        .expect("present");
    assert_eq!(s.attempt, 2);
    assert_eq!(s.bytes.expose(), b"share bytes");
    assert!(ks
        .get_secret(&k, 0, &Kind::new("other").expect("kind"))
        .expect("get")
        .is_none());
    assert_eq!(ks.key_ids().expect("ids"), vec![k.clone()]);
    assert_eq!(ks.pending_epochs().expect("pending")[0].key_id, k);
    assert!(!format!("{ks:?}").contains("share"));
}

#[test]
fn wrong_passphrase_is_a_typed_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (ks, _, path) = new_store(dir.path());
    drop(ks);
    let err = Keystore::open(&path, &pass("wrong horse")).expect_err("wrong passphrase");
    assert!(matches!(err, KeystoreError::WrongPassphrase), "{err}");
    assert!(err.to_string().contains("wrong passphrase"));
    // The right one still works: nothing was damaged by the failed attempt.
    Keystore::open(&path, &pass("correct horse")).expect("open");
}

#[test]
fn create_refuses_an_existing_file_and_open_a_missing_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (ks, id, path) = new_store(dir.path());
    drop(ks);
    let err = Keystore::create(&path, &id, &pass("x"), KdfParams::insecure_for_tests())
        .expect_err("exists");
    assert!(
        matches!(err, KeystoreError::File(FileError::AlreadyExists { .. })),
        "{err}"
    );
    // The existing store is untouched.
    Keystore::open(&path, &pass("correct horse")).expect("open");
    let err = Keystore::open(&dir.path().join("none.db"), &pass("x")).expect_err("missing");
    assert!(
        matches!(err, KeystoreError::File(FileError::NotFound { .. })),
        "{err}"
    );
}

#[test]
fn store_files_are_private() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, _) = new_store(dir.path());
    with_active_key(&mut ks, &key("k"), b"s");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir.path()).expect("ls") {
        let entry = entry.expect("entry");
        let mode = entry.metadata().expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{:?}", entry.file_name());
        seen += 1;
    }
    assert!(seen >= 2, "expected the database and its WAL files");
}

#[test]
fn secrets_are_insert_only_unless_replaced_explicitly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, _) = new_store(dir.path());
    let k = key("k");
    ks.begin_epoch(&k, 0).expect("begin");
    ks.put_secret(&k, 0, 1, &Kind::KEY_SHARE, b"first")
        .expect("put");
    let err = ks
        .put_secret(&k, 0, 2, &Kind::KEY_SHARE, b"second")
        .expect_err("exists");
    assert!(matches!(err, KeystoreError::SecretExists { .. }), "{err}");
    let got = ks
        .get_secret(&k, 0, &Kind::KEY_SHARE)
        .expect("get")
        .expect("some");
    assert_eq!(got.bytes.expose(), b"first");
    ks.replace_secret(&k, 0, 2, &Kind::KEY_SHARE, b"second")
        .expect("replace");
    let got = ks
        .get_secret(&k, 0, &Kind::KEY_SHARE)
        .expect("get")
        .expect("some");
    assert_eq!((got.attempt, got.bytes.expose()), (2, &b"second"[..]));
    // Writing under an epoch that does not exist is refused.
    let err = ks
        .put_secret(&k, 9, 1, &Kind::KEY_SHARE, b"x")
        .expect_err("no epoch");
    assert!(
        matches!(err, KeystoreError::NoSuchEpoch { epoch: 9, .. }),
        "{err}"
    );
}

#[test]
fn swapping_two_sealed_secrets_fails_to_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, _) = new_store(dir.path());
    let k = key("k");
    let aux = Kind::new("aux").expect("kind");
    ks.begin_epoch(&k, 0).expect("begin");
    ks.put_secret(&k, 0, 1, &Kind::KEY_SHARE, b"share")
        .expect("put");
    ks.put_secret(&k, 0, 1, &aux, b"auxiliary").expect("put");
    // Both open before the swap.
    assert!(ks.get_secret(&k, 0, &aux).expect("get").is_some());
    let read = |ks: &Keystore, kind: &str| -> Vec<u8> {
        ks.conn
            .query_row(
                "SELECT sealed FROM secrets WHERE key_id = 'k' AND kind = ?1",
                params![kind],
                |r| r.get(0),
            )
            .expect("row")
    };
    let a = read(&ks, "key-share");
    let b = read(&ks, "aux");
    for (kind, blob) in [("key-share", &b), ("aux", &a)] {
        ks.conn
            .execute(
                "UPDATE secrets SET sealed = ?1 WHERE key_id = 'k' AND kind = ?2",
                params![blob, kind],
            )
            .expect("swap");
    }
    for kind in [&Kind::KEY_SHARE, &aux] {
        let err = ks.get_secret(&k, 0, kind).expect_err("swapped");
        assert!(
            matches!(err, KeystoreError::Tampered { what: "secret", .. }),
            "{err}"
        );
    }
}

#[test]
fn a_secret_moved_to_another_attempt_key_or_epoch_fails_to_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, _) = new_store(dir.path());
    let (k1, k2) = (key("k1"), key("k2"));
    ks.begin_epoch(&k1, 0).expect("begin");
    ks.begin_epoch(&k2, 0).expect("begin");
    ks.put_secret(&k1, 0, 1, &Kind::KEY_SHARE, b"one")
        .expect("put");
    ks.put_secret(&k2, 0, 1, &Kind::KEY_SHARE, b"two")
        .expect("put");
    // The attempt is bound: relabelling the row's attempt breaks it.
    ks.conn
        .execute("UPDATE secrets SET attempt = 5 WHERE key_id = 'k1'", [])
        .expect("relabel");
    assert!(matches!(
        ks.get_secret(&k1, 0, &Kind::KEY_SHARE),
        Err(KeystoreError::Tampered { .. })
    ));
    // Swapping the wrapped data keys of two keys breaks both.
    let wrapped = |ks: &Keystore, k: &str| -> Vec<u8> {
        ks.conn
            .query_row(
                "SELECT wrapped_key FROM epochs WHERE key_id = ?1",
                params![k],
                |r| r.get(0),
            )
            .expect("row")
    };
    let (w1, w2) = (wrapped(&ks, "k1"), wrapped(&ks, "k2"));
    ks.conn
        .execute(
            "UPDATE epochs SET wrapped_key = ?1 WHERE key_id = 'k2'",
            params![w1],
        )
        .expect("swap");
    ks.conn
        .execute(
            "UPDATE epochs SET wrapped_key = ?1 WHERE key_id = 'k1'",
            params![w2],
        )
        .expect("swap");
    let err = ks
        .get_secret(&k2, 0, &Kind::KEY_SHARE)
        .expect_err("swapped");
    assert!(
        matches!(
            err,
            KeystoreError::Tampered {
                what: "data key",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn corrupted_stores_are_clear_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = pass("correct horse");

    // Not a database at all.
    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![0x5a; 8192]).expect("write");
    let err = Keystore::open(&garbage, &p).expect_err("garbage");
    assert!(matches!(err, KeystoreError::Corrupt(_)), "{err}");

    // An empty file (a creation that never wrote its header).
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").expect("write");
    let err = Keystore::open(&empty, &p).expect_err("empty");
    assert!(
        matches!(&err, KeystoreError::Corrupt(m) if m.contains("no keystore header")),
        "{err}"
    );

    // A real store, truncated in the middle.
    let sub = dir.path().join("real");
    std::fs::create_dir(&sub).expect("mkdir");
    let (mut ks, _, path) = new_store(&sub);
    with_active_key(&mut ks, &key("k"), &[7u8; 5000]);
    drop(ks); // closing checkpoints the WAL into the database file
    let bytes = std::fs::read(&path).expect("read");
    assert!(
        bytes.len() > 8192,
        "store too small to truncate meaningfully"
    );
    std::fs::write(&path, &bytes[..bytes.len() / 2]).expect("truncate");
    let err = Keystore::open(&path, &p).expect_err("truncated");
    assert!(matches!(err, KeystoreError::Corrupt(_)), "{err}");

    // A store with one flipped bit in a sealed value.
    let sub = dir.path().join("flip");
    std::fs::create_dir(&sub).expect("mkdir");
    let (mut ks, _, _) = new_store(&sub);
    let k = key("k");
    with_active_key(&mut ks, &k, b"share");
    let mut sealed: Vec<u8> = ks
        .conn
        .query_row("SELECT sealed FROM secrets WHERE key_id = 'k'", [], |r| {
            r.get(0)
        })
        .expect("row");
    let last = sealed.len() - 1;
    sealed[last] ^= 1;
    ks.conn
        .execute(
            "UPDATE secrets SET sealed = ?1 WHERE key_id = 'k'",
            params![sealed],
        )
        .expect("flip");
    let err = ks.get_secret(&k, 0, &Kind::KEY_SHARE).expect_err("flipped");
    assert!(matches!(err, KeystoreError::Tampered { .. }), "{err}");
}

#[test]
fn an_altered_header_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (ks, _, path) = new_store(dir.path());
    // Claiming another node id (or cheaper parameters) changes what the KEK check binds.
    ks.conn
        .execute("UPDATE header SET node_id = 4", [])
        .expect("alter");
    drop(ks);
    let err = Keystore::open(&path, &pass("correct horse")).expect_err("altered");
    assert!(matches!(err, KeystoreError::WrongPassphrase), "{err}");
    let conn = rusqlite::Connection::open(&path).expect("raw");
    conn.execute("UPDATE header SET node_id = 3, format = 3", [])
        .expect("alter");
    drop(conn);
    let err = Keystore::open(&path, &pass("correct horse")).expect_err("format");
    assert!(matches!(err, KeystoreError::UnsupportedFormat(3)), "{err}");
    let conn = rusqlite::Connection::open(&path).expect("raw");
    conn.execute("UPDATE header SET format = 2, m_kib = 99999999", [])
        .expect("alter");
    drop(conn);
    let err = Keystore::open(&path, &pass("correct horse")).expect_err("params");
    assert!(matches!(err, KeystoreError::KdfParams(_)), "{err}");
}

#[test]
fn refresh_commit_destroys_the_old_epoch_even_in_a_disk_copy() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store_dir = dir.path().join("store");
    std::fs::create_dir(&store_dir).expect("mkdir");
    let (mut ks, _, path) = new_store(&store_dir);
    let k = key("ecdsa-k");
    let old_share = [0x11u8; 700];
    with_active_key(&mut ks, &k, &old_share);

    // Refresh: a pending epoch 1 with the new share; epoch 0 stays readable meanwhile.
    ks.begin_epoch(&k, 1).expect("begin 1");
    ks.put_secret(&k, 1, 1, &Kind::KEY_SHARE, &[0x22u8; 700])
        .expect("put 1");
    let old = ks
        .get_secret(&k, 0, &Kind::KEY_SHARE)
        .expect("old")
        .expect("some");
    assert_eq!(old.bytes.expose(), &old_share[..]);
    assert_eq!(ks.active_epoch(&k).expect("active").expect("some").epoch, 0);

    // The bytes that would let a disk thief open epoch 0: its wrapped data key and sealed
    // share, as stored before the commit.
    let old_wrapped: Vec<u8> = ks
        .conn
        .query_row(
            "SELECT wrapped_key FROM epochs WHERE key_id = 'ecdsa-k' AND epoch = 0",
            [],
            |r| r.get(0),
        )
        .expect("row");
    let old_sealed: Vec<u8> = ks
        .conn
        .query_row(
            "SELECT sealed FROM secrets WHERE key_id = 'ecdsa-k' AND epoch = 0",
            [],
            |r| r.get(0),
        )
        .expect("row");
    assert!(contains(&all_file_bytes(&store_dir), &old_wrapped[..32]));

    let outcome = ks.commit_epoch(&k, 1, b"cert-1").expect("commit 1");
    assert_eq!(outcome, CommitOutcome::Committed { retired: vec![0] });
    let err = ks.get_secret(&k, 0, &Kind::KEY_SHARE).expect_err("retired");
    assert!(
        matches!(err, KeystoreError::EpochRetired { epoch: 0, .. }),
        "{err}"
    );
    let epochs = ks.epochs(&k).expect("epochs");
    assert_eq!(epochs[0].status, EpochStatus::Retired);
    assert_eq!(epochs[0].certificate.as_deref(), Some(&b"cert-0"[..]));
    assert_eq!(epochs[1].status, EpochStatus::Active);

    // A copy of the disk taken now: no file holds the old wrapped key or sealed share, and
    // a store opened from the copy (with the passphrase) cannot read epoch 0.
    let raw = all_file_bytes(&store_dir);
    assert!(
        !contains(&raw, &old_wrapped[..32]),
        "old wrapped data key survives on disk"
    );
    assert!(
        !contains(&raw, &old_sealed[..32]),
        "old sealed share survives on disk"
    );
    let copy_dir = dir.path().join("copy");
    std::fs::create_dir(&copy_dir).expect("mkdir");
    for entry in std::fs::read_dir(&store_dir).expect("ls") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), copy_dir.join(entry.file_name())).expect("copy");
    }
    let copy =
        Keystore::open(&copy_dir.join("keystore.db"), &pass("correct horse")).expect("open copy");
    assert!(matches!(
        copy.get_secret(&k, 0, &Kind::KEY_SHARE),
        Err(KeystoreError::EpochRetired { .. })
    ));
    let new = copy
        .get_secret(&k, 1, &Kind::KEY_SHARE)
        .expect("new")
        .expect("some");
    assert_eq!(new.bytes.expose(), &[0x22u8; 700][..]);
    drop(copy);
    drop(ks);
    assert!(Keystore::open(&path, &pass("correct horse")).is_ok());
}

#[test]
fn epoch_transitions_are_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, _) = new_store(dir.path());
    let k = key("k");
    with_active_key(&mut ks, &k, b"s0");
    // Repeating the commit is idempotent; another certificate is refused.
    assert_eq!(
        ks.commit_epoch(&k, 0, b"cert-0").expect("again"),
        CommitOutcome::AlreadyCommitted
    );
    assert!(matches!(
        ks.commit_epoch(&k, 0, b"other"),
        Err(KeystoreError::EpochState { .. })
    ));
    assert!(matches!(
        ks.begin_epoch(&k, 0),
        Err(KeystoreError::EpochExists { .. })
    ));
    assert!(matches!(
        ks.abandon_epoch(&k, 0),
        Err(KeystoreError::EpochState { .. })
    ));
    assert!(matches!(
        ks.commit_epoch(&k, 7, b"c"),
        Err(KeystoreError::NoSuchEpoch { .. })
    ));
    assert!(matches!(
        ks.commit_epoch(&k, 0, b""),
        Err(KeystoreError::EpochState { .. })
    ));

    // A failed refresh: begin, store, abandon; the epoch number can be begun again.
    ks.begin_epoch(&k, 1).expect("begin 1");
    ks.put_secret(&k, 1, 1, &Kind::KEY_SHARE, b"s1")
        .expect("put");
    ks.abandon_epoch(&k, 1).expect("abandon");
    assert!(matches!(
        ks.get_secret(&k, 1, &Kind::KEY_SHARE),
        Err(KeystoreError::NoSuchEpoch { .. })
    ));
    ks.begin_epoch(&k, 1).expect("begin 1 again");
    ks.put_secret(&k, 1, 2, &Kind::KEY_SHARE, b"s1'")
        .expect("put");
    ks.commit_epoch(&k, 1, b"cert-1").expect("commit");
    // Retired epochs cannot come back.
    assert!(matches!(
        ks.begin_epoch(&k, 0),
        Err(KeystoreError::EpochExists { .. })
    ));
    let k2 = key("k2");
    with_active_key(&mut ks, &k2, b"x");
    ks.begin_epoch(&k2, 5).expect("begin 5");
    ks.commit_epoch(&k2, 5, b"c5").expect("commit 5");
    assert!(matches!(
        ks.begin_epoch(&k2, 3),
        Err(KeystoreError::EpochNotNewer { active: 5, .. })
    ));
}

#[test]
fn names_are_validated() {
    assert!(KeyId::new("").is_err());
    assert!(KeyId::new("_identity").is_err());
    assert!(KeyId::new("a b").is_err());
    assert!(KeyId::new(&"a".repeat(129)).is_err());
    assert!(KeyId::new(&"a".repeat(128)).is_ok());
    assert!(KeyId::identity().is_reserved());
    assert!(Kind::new("key/share").is_err());
    assert!(RequestId::new("req:2026-11-26.1").is_ok());
}

#[test]
fn sessions_are_idempotent_by_request_id_and_attempts_never_rerun() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, path) = new_store(dir.path());
    let k = key("k");
    with_active_key(&mut ks, &k, b"share");
    let mut s = ks.sessions();
    assert_eq!(s.next_attempt(&k, 0).expect("next"), 1);
    assert!(matches!(
        s.begin(&req("r1"), &k, 0, 1, b"state-1").expect("begin"),
        Begun::Started
    ));
    assert_eq!(s.next_attempt(&k, 0).expect("next"), 2);
    // The same request id returns the same session, not a second one.
    match s.begin(&req("r1"), &k, 0, 2, b"other").expect("again") {
        Begun::Existing(rec) => {
            assert_eq!((rec.attempt, rec.status), (1, SessionStatus::Running));
            assert_eq!(rec.state.expect("state").expose(), b"state-1");
        }
        Begun::Started => panic!("a second session for one request id"),
    }
    // Another request cannot take attempt 1.
    let err = s.begin(&req("r2"), &k, 0, 1, b"x").expect_err("used");
    assert!(
        matches!(&err, KeystoreError::AttemptUsed { request_id, .. } if request_id == "r1"),
        "{err}"
    );
    s.update(&k, 0, 1, b"state-2").expect("update");
    let rec = s.get(&k, 0, 1).expect("get").expect("some");
    assert_eq!(
        (rec.version, rec.state.expect("state").expose()),
        (2, &b"state-2"[..])
    );
    assert_eq!(s.running().expect("running").len(), 1);
    s.finish(&k, 0, 1, SessionOutcome::Succeeded, b"signature")
        .expect("finish");
    s.finish(&k, 0, 1, SessionOutcome::Succeeded, b"signature")
        .expect("finish is idempotent");
    assert!(matches!(
        s.finish(&k, 0, 1, SessionOutcome::Failed, b"abort"),
        Err(KeystoreError::SessionFinished { .. })
    ));
    assert!(matches!(
        s.update(&k, 0, 1, b"late"),
        Err(KeystoreError::SessionFinished { .. })
    ));
    assert!(s.running().expect("running").is_empty());
    // Sessions need an existing epoch (its data key seals the state).
    assert!(matches!(
        s.begin(&req("r3"), &k, 4, 1, b"x"),
        Err(KeystoreError::NoSuchEpoch { .. })
    ));
    drop(ks);

    // After a restart the finished session answers the repeated request.
    let mut ks = Keystore::open(&path, &pass("correct horse")).expect("reopen");
    let s = ks.sessions();
    let rec = s.get_by_request_id(&req("r1")).expect("get").expect("some");
    assert_eq!(rec.status, SessionStatus::Succeeded);
    assert_eq!(rec.result.as_deref(), Some(&b"signature"[..]));
    assert!(
        rec.state.is_none(),
        "a finished session keeps no secret state"
    );
    assert!(s.get_by_request_id(&req("nope")).expect("get").is_none());
}

#[test]
fn session_states_are_bound_to_their_row_and_cleared_on_retirement() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, _) = new_store(dir.path());
    let k = key("k");
    with_active_key(&mut ks, &k, b"share");
    let mut s = ks.sessions();
    s.begin(&req("a"), &k, 0, 1, b"state-a").expect("a");
    s.begin(&req("b"), &k, 0, 2, b"state-b").expect("b");
    let blob: Vec<u8> = ks
        .conn
        .query_row("SELECT state FROM sessions WHERE attempt = 1", [], |r| {
            r.get(0)
        })
        .expect("row");
    ks.conn
        .execute(
            "UPDATE sessions SET state = ?1 WHERE attempt = 2",
            params![blob],
        )
        .expect("swap");
    let err = ks.sessions().get(&k, 0, 2).expect_err("moved state");
    assert!(
        matches!(
            err,
            KeystoreError::Tampered {
                what: "session state",
                ..
            }
        ),
        "{err}"
    );
    // Committing epoch 1 clears the states of epoch 0's sessions.
    ks.begin_epoch(&k, 1).expect("begin");
    ks.commit_epoch(&k, 1, b"c1").expect("commit");
    let rec = ks.sessions().get(&k, 0, 1).expect("get").expect("some");
    assert!(rec.state.is_none());
}

#[test]
fn bans_persist_with_their_evidence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, path) = new_store(dir.path());
    let k = key("k");
    let n2 = NodeId::new(2).expect("id");
    let n5 = NodeId::new(5).expect("id");
    let mut bans = ks.bans();
    assert!(bans.add(&k, n5, "bad-proof", b"evidence-5").expect("add"));
    assert!(bans.add(&k, n2, "bad-share", b"evidence-2").expect("add"));
    assert!(!bans.add(&k, n5, "again", b"other").expect("dup"));
    drop(ks);
    let mut ks = Keystore::open(&path, &pass("correct horse")).expect("reopen");
    let mut bans = ks.bans();
    let list = bans.list(&k).expect("list");
    assert_eq!(
        list.iter().map(|b| b.node.get()).collect::<Vec<_>>(),
        vec![2, 5]
    );
    assert_eq!(list[1].evidence, b"evidence-5");
    assert_eq!(list[1].reason, "bad-proof");
    assert!(bans.is_banned(&k, n2).expect("q"));
    assert!(!bans.is_banned(&key("other"), n2).expect("q"));
    assert!(bans.remove(&k, n2).expect("rm"));
    assert!(!bans.is_banned(&k, n2).expect("q"));
}

#[test]
fn start_up_abandons_only_empty_pending_epochs_of_ordinary_keys() {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut ks, _, _) = new_store(dir.path());
    let (empty, sealed, refreshing) = (key("k-empty"), key("k-sealed"), key("k-ref"));
    let reserved = KeyId::from_stored("_node".into()).expect("reserved");
    ks.begin_epoch(&empty, 0).expect("begin");
    ks.begin_epoch(&sealed, 0).expect("begin");
    ks.put_secret(&sealed, 0, 0, &Kind::KEY_SHARE, b"share")
        .expect("put");
    with_active_key(&mut ks, &refreshing, b"share 0");
    ks.begin_epoch(&refreshing, 1).expect("begin refresh");
    ks.begin_epoch(&reserved, 0).expect("begin reserved");

    let gone = ks.abandon_empty_pending_epochs().expect("abandon");
    assert_eq!(gone, vec![(key("k-empty"), 0), (key("k-ref"), 1)]);
    assert!(ks.epochs(&empty).expect("epochs").is_empty());
    assert_eq!(
        ks.pending_epochs().expect("pending").len(),
        2,
        "sealed and reserved stay"
    );
    // The refreshed key's active epoch is untouched.
    assert_eq!(
        ks.active_epoch(&refreshing)
            .expect("active")
            .map(|e| e.epoch),
        Some(0)
    );
}

/// A commit can drop state only the pending epoch needed (in the same transaction), and an
/// operator's abandon stores its decision with the abandon, durably.
#[test]
fn commit_drops_pending_only_state_and_abandon_records_the_decision() {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut ks, _, path) = new_store(dir.path());
    let k = key("kd");
    let scratch = Kind::new("pending-scratch").expect("kind");
    ks.begin_epoch(&k, 0).expect("begin");
    ks.put_secrets(
        &k,
        0,
        1,
        &[(&Kind::KEY_SHARE, b"share"), (&scratch, b"pending only")],
    )
    .expect("put");
    ks.commit_epoch_dropping(&k, 0, b"cert-0", &[&scratch])
        .expect("commit");
    assert!(ks.get_secret(&k, 0, &scratch).expect("get").is_none());
    assert!(ks
        .get_secret(&k, 0, &Kind::KEY_SHARE)
        .expect("get")
        .is_some());

    ks.begin_epoch(&k, 1).expect("begin 1");
    ks.put_secret(&k, 1, 2, &Kind::KEY_SHARE, b"share 1")
        .expect("put 1");
    ks.abandon_epoch_recorded(&k, 1, br#"{"operator":"alice"}"#)
        .expect("abandon");
    assert!(ks.abandon_epoch_recorded(&k, 0, b"{}").is_err());
    drop(ks);
    let ks = Keystore::open(&path, &pass("correct horse")).expect("reopen");
    let statuses: Vec<_> = ks
        .epochs(&k)
        .expect("epochs")
        .iter()
        .map(|e| (e.epoch, e.status))
        .collect();
    assert_eq!(statuses, vec![(0, EpochStatus::Active)]);
    assert_eq!(
        ks.decisions(&k).expect("decisions"),
        vec![(1, br#"{"operator":"alice"}"#.to_vec())]
    );
    assert!(ks.decisions(&key("other")).expect("none").is_empty());
}

/// `check_secrets` opens every live sealed secret and names the one that does not.
#[test]
fn the_secret_check_names_a_corrupt_share() {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut ks, _, _) = new_store(dir.path());
    let k = key("kh");
    with_active_key(&mut ks, &k, b"share");
    assert_eq!(ks.check_secrets().expect("check"), vec![]);
    let sealed: Vec<u8> = ks
        .conn
        .query_row("SELECT sealed FROM secrets WHERE key_id = 'kh'", [], |r| {
            r.get(0)
        })
        .expect("read");
    let mut bad = sealed.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    ks.conn
        .execute(
            "UPDATE secrets SET sealed = ?1 WHERE key_id = 'kh'",
            params![bad],
        )
        .expect("corrupt");
    let problems = ks.check_secrets().expect("check");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].key_id, k);
    assert_eq!(problems[0].epoch, 0);
    assert_eq!(problems[0].kind, Kind::KEY_SHARE.as_str());
}

#[test]
fn create_committed_is_one_active_epoch_and_only_for_a_new_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, _, path) = new_store(dir.path());
    let k = key("bls.fresh");
    let other = Kind::new("other").expect("kind");
    ks.create_committed(
        &k,
        0,
        1,
        &[
            (&Kind::KEY_SHARE, b"share".as_slice()),
            (&other, b"x".as_slice()),
        ],
        b"cert",
    )
    .expect("create");
    let active = ks.active_epoch(&k).expect("epochs").expect("active");
    assert_eq!(active.epoch, 0);
    let got = ks
        .get_secret(&k, 0, &Kind::KEY_SHARE)
        .expect("get")
        .expect("some");
    assert_eq!(got.bytes.expose(), b"share");
    assert_eq!(got.attempt, 1);
    // A second creation, or one over a key made the long way, is refused.
    assert!(matches!(
        ks.create_committed(&k, 1, 1, &[], b"cert"),
        Err(KeystoreError::EpochExists { epoch: 0, .. })
    ));
    let long = key("bls.long");
    ks.begin_epoch(&long, 0).expect("begin");
    assert!(matches!(
        ks.create_committed(&long, 0, 1, &[], b"cert"),
        Err(KeystoreError::EpochExists { .. })
    ));
    assert!(ks
        .create_committed(&key("bls.empty-cert"), 0, 1, &[], b"")
        .is_err());
    // Durable and sealed like any other epoch: reopened, the secret still opens.
    drop(ks);
    let ks = Keystore::open(&path, &pass("correct horse")).expect("reopen");
    let got = ks.get_secret(&k, 0, &other).expect("get").expect("some");
    assert_eq!(got.bytes.expose(), b"x");
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).expect("meta").permissions().mode() & 0o777
}

/// Rewrites a (format 2, Argon2id) store's header into the format-1 shape: the store a node
/// made before format 2. The exact inverse of `store::UPGRADE_V1`, which adds the two
/// columns and sets the format: the header's columns are stated once, in `store::SCHEMA`.
fn downgrade_to_format_1(path: &Path) {
    let conn = rusqlite::Connection::open(path).expect("raw");
    conn.execute_batch(
        "ALTER TABLE header DROP COLUMN kek_source;
         ALTER TABLE header DROP COLUMN purpose;",
    )
    .expect("downgrade");
    conn.execute("UPDATE header SET format = ?1", [FORMAT_V1])
        .expect("format 1");
}

fn header_format(path: &Path) -> (i64, Option<String>) {
    let conn = rusqlite::Connection::open(path).expect("raw");
    let format: i64 = conn
        .query_row("SELECT format FROM header", [], |r| r.get(0))
        .expect("format");
    let source = conn
        .query_row("SELECT kek_source FROM header", [], |r| r.get(0))
        .ok();
    (format, source)
}

#[test]
fn a_format_1_store_opens_and_is_upgraded_in_place() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut ks, id, path) = new_store(dir.path());
    with_active_key(&mut ks, &key("k"), b"share-v1");
    drop(ks);
    downgrade_to_format_1(&path);
    assert_eq!(header_format(&path), (1, None));
    // A wrong passphrase changes nothing.
    let err = Keystore::open(&path, &pass("wrong")).expect_err("wrong");
    assert!(matches!(err, KeystoreError::WrongPassphrase), "{err}");
    assert_eq!(header_format(&path), (1, None));
    let ks = Keystore::open(&path, &pass("correct horse")).expect("open v1");
    assert_eq!(
        ks.identity().expect("id").verifying_key(),
        id.verifying_key()
    );
    let share = ks
        .get_secret(&key("k"), 0, &Kind::KEY_SHARE)
        .expect("get")
        .expect("present");
    assert_eq!(share.bytes.expose(), b"share-v1");
    assert!(!ks.is_derived().expect("header"));
    drop(ks);
    assert_eq!(header_format(&path), (2, Some("argon2id".into())));
    Keystore::open(&path, &pass("correct horse")).expect("open v2");
}

#[test]
fn a_derived_store_needs_no_argon2id_and_binds_its_parent_node_and_purpose() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (parent, id, _) = new_store(dir.path());
    let child = dir.path().join("bls-hot.db");
    let (mut ks, how) =
        Keystore::open_derived(&child, &parent, "bls-hot", &pass("correct horse")).expect("new");
    assert_eq!(how, DerivedOpen::Created);
    assert!(ks.is_derived().expect("header"));
    assert_eq!(mode(&child), 0o600);
    with_active_key(&mut ks, &key("hot"), b"hot share");
    drop(ks);
    // The passphrase plays no part in opening it: the parent's KEK does.
    let (ks, how) =
        Keystore::open_derived(&child, &parent, "bls-hot", &pass("anything")).expect("open");
    assert_eq!(how, DerivedOpen::Opened);
    assert_eq!(
        ks.identity().expect("id").verifying_key(),
        id.verifying_key()
    );
    let share = ks
        .get_secret(&key("hot"), 0, &Kind::KEY_SHARE)
        .expect("get")
        .expect("present");
    assert_eq!(share.bytes.expose(), b"hot share");
    drop(ks);
    // Not with a passphrase, not for another purpose, not under another keystore.db of the
    // same node (same passphrase), not for another node.
    let err = Keystore::open(&child, &pass("correct horse")).expect_err("no passphrase");
    assert!(
        matches!(&err, KeystoreError::DerivedStore { purpose } if purpose == "bls-hot"),
        "{err}"
    );
    let err = Keystore::open_derived(&child, &parent, "other", &pass("correct horse"))
        .expect_err("purpose");
    assert!(
        matches!(err, KeystoreError::DerivedKeyMismatch { .. }),
        "{err}"
    );
    let other_dir = tempfile::tempdir().expect("tempdir");
    let twin = Keystore::create(
        &other_dir.path().join("keystore.db"),
        &id,
        &pass("correct horse"),
        KdfParams::insecure_for_tests(),
    )
    .expect("twin");
    let err = Keystore::open_derived(&child, &twin, "bls-hot", &pass("correct horse"))
        .expect_err("another parent");
    assert!(
        matches!(err, KeystoreError::DerivedKeyMismatch { .. }),
        "{err}"
    );
    let stranger = Keystore::create(
        &other_dir.path().join("other.db"),
        &Identity::generate(NodeId::new(4).ok()),
        &pass("correct horse"),
        KdfParams::insecure_for_tests(),
    )
    .expect("stranger");
    let err = Keystore::open_derived(&child, &stranger, "bls-hot", &pass("correct horse"))
        .expect_err("another node");
    assert!(
        matches!(
            err,
            KeystoreError::NodeMismatch {
                expected: 4,
                found: 3
            }
        ),
        "{err}"
    );
    assert!(matches!(
        Keystore::open_derived(&child, &parent, "bad purpose!", &pass("x")),
        Err(KeystoreError::InvalidName { .. })
    ));
}

/// The start of every migration test: a node's `keystore.db` and, beside it, the
/// `bls-hot.db` store the node made before derived keys (its own Argon2id KEK, same identity
/// and passphrase). Returns (parent, identity, child path, the old child store).
fn parent_and_old_child(dir: &Path) -> (Keystore, Identity, PathBuf, Keystore) {
    let (parent, id, _) = new_store(dir);
    let child = dir.join("bls-hot.db");
    let old = Keystore::create(
        &child,
        &id,
        &pass("correct horse"),
        KdfParams::insecure_for_tests(),
    )
    .expect("old");
    (parent, id, child, old)
}

#[test]
fn an_argon2id_store_is_migrated_once_to_a_derived_key() {
    for v1 in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let (parent, id, child, mut old) = parent_and_old_child(dir.path());
        with_active_key(&mut old, &key("hot"), b"hot share 0");
        old.begin_epoch(&key("hot"), 1).expect("begin 1");
        old.put_secret(&key("hot"), 1, 2, &Kind::KEY_SHARE, b"hot share 1")
            .expect("put 1");
        drop(old);
        if v1 {
            downgrade_to_format_1(&child);
        }
        // A wrong passphrase (keystore.db opened with another one) changes nothing.
        let err = Keystore::open_derived(&child, &parent, "bls-hot", &pass("wrong"))
            .expect_err("wrong passphrase");
        assert!(matches!(err, KeystoreError::WrongPassphrase), "{err}");
        Keystore::open(&child, &pass("correct horse")).expect("still the old store");
        if v1 {
            downgrade_to_format_1(&child);
        }

        let (ks, how) = Keystore::open_derived(&child, &parent, "bls-hot", &pass("correct horse"))
            .expect("migrate");
        assert_eq!(how, DerivedOpen::Migrated, "v1 {v1}");
        assert!(ks.is_derived().expect("header"));
        for (epoch, want) in [(0, &b"hot share 0"[..]), (1, b"hot share 1")] {
            let s = ks
                .get_secret(&key("hot"), epoch, &Kind::KEY_SHARE)
                .expect("get")
                .expect("present");
            assert_eq!(s.bytes.expose(), want);
        }
        assert_eq!(
            ks.identity().expect("id").verifying_key(),
            id.verifying_key()
        );
        drop(ks);
        assert_eq!(header_format(&child), (2, Some("derived".into())));
        // The passphrase alone no longer opens it, and the next open is a plain one.
        assert!(matches!(
            Keystore::open(&child, &pass("correct horse")),
            Err(KeystoreError::DerivedStore { .. })
        ));
        let (_, how) =
            Keystore::open_derived(&child, &parent, "bls-hot", &pass("wrong")).expect("reopen");
        assert_eq!(how, DerivedOpen::Opened);
    }
}

#[test]
fn a_migration_that_meets_a_tampered_data_key_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (parent, _, child, mut old) = parent_and_old_child(dir.path());
    with_active_key(&mut old, &key("a"), b"a share");
    with_active_key(&mut old, &key("b"), b"b share");
    // Swap the two wrapped data keys: each fails authentication in the other's row.
    old.conn
        .execute_batch(
            "UPDATE epochs SET wrapped_key = (SELECT wrapped_key FROM epochs WHERE key_id = 'b')
             WHERE key_id = 'a';",
        )
        .expect("swap");
    drop(old);
    let err = Keystore::open_derived(&child, &parent, "bls-hot", &pass("correct horse"))
        .expect_err("tampered");
    assert!(matches!(err, KeystoreError::Tampered { .. }), "{err}");
    // Rolled back: still the Argon2id store, 'b' still opens with the passphrase.
    assert_eq!(header_format(&child), (2, Some("argon2id".into())));
    let ks = Keystore::open(&child, &pass("correct horse")).expect("old store");
    let b = ks
        .get_secret(&key("b"), 0, &Kind::KEY_SHARE)
        .expect("get")
        .expect("present");
    assert_eq!(b.bytes.expose(), b"b share");
}
