//! Restoring a node from the escrow after it lost its whole directory, end to end across
//! three real `quorate node run` processes (issue 16 §2): escrow (RDKGitH) configured, a
//! 2-of-3 keygen and a refresh that backs every share up; node 3 is stopped and its whole
//! directory is lost, identity key included. Its operator runs `quorate node init` again
//! under id 3 (a new identity key) and sets the escrow key; every operator replaces node 3's
//! roster entry (`quorate node roster --replace`) and restarts with it; the escrow recovers
//! node 3's share offline from the backup another holder kept; the share is imported into
//! the new directory (the epoch certificate checked against the other holders' roster
//! keys), node 3 runs, a refresh names it restored (in which it proves knowledge of `x_3`
//! under its new identity), and it signs with each other holder (the signatures checked by
//! `quorate ecdsa verify`). On the way: `escrow export` picks the committed epoch's backup,
//! not a newer file an abandoned refresh left, and a share that is not node 3's is refused
//! naming node 3.
//!
//! The commands are those of README.md, "Restore a node from escrow".

use std::path::Path;

use crate::common::cluster::{ecdsa, ecdsa_keygen, json_ok, ok, quorate, Cluster};
use crate::common::escrow::escrow_keys;
use serde_json::Value;

/// `quorate node escrow <args>` printing JSON.
fn escrow_cmd(args: &[&str], dir: &Path, rest: &[&std::ffi::OsStr]) -> std::process::Output {
    quorate()
        .args(["node", "escrow"])
        .args(args)
        .arg("--dir")
        .arg(dir)
        .args(rest)
        .output()
        .expect("quorate node escrow")
}

#[test]
fn a_node_that_lost_its_whole_directory_is_restored_from_the_escrow_and_signs() {
    let mut c = Cluster::init(3);
    let (escrow_public, secret) = escrow_keys(&c);
    c.run_args = vec!["--round-timeout-ms".into(), "5000".into()];
    c.start_all();
    let pk = ecdsa_keygen(&c, 1, 2, "1,2,3", "vault");
    let r = json_ok(&ecdsa(&c, 2, &["refresh", "--key-id", "vault"]));
    assert_eq!(r["epoch"], 1, "{r}");

    // Node 3 stops (SIGTERM by PID) and loses its whole directory, identity key included.
    // Its operator initialises it again under id 3 (a new identity key) and sets the escrow.
    assert!(c.term(3).success());
    let old_key = c.node_key(3);
    c.reinit(3);
    assert_ne!(c.node_key(3), old_key);
    ok(quorate()
        .args(["node", "escrow", "set-key", "--dir"])
        .arg(c.dir(3))
        .arg("--key")
        .arg(&escrow_public)
        .output()
        .expect("escrow set-key"));
    // Every operator replaces node 3's roster entry and restarts with the new roster.
    let replaced = json_ok(
        &quorate()
            .args(["node", "roster", "--force", "--out"])
            .arg(&c.roster)
            .arg("--replace")
            .arg(c.dir(3))
            .arg(&c.roster)
            .output()
            .expect("roster --replace"),
    );
    assert_eq!(replaced["nodes"][2]["public_key"], c.node_key(3).as_str());
    for id in [1, 2] {
        assert!(c.term(id).success());
        c.restart(id);
    }

    // A backups file of an epoch that never committed (what an abandoned refresh leaves):
    // `export` must still pick the committed epoch 1.
    let kept = c.dir(1).join("escrow/key-vault");
    std::fs::copy(kept.join("epoch-1.json"), kept.join("epoch-2.json")).expect("copy");
    let b3 = c.tmp.path().join("backup-3.json");
    let out = json_ok(&escrow_cmd(
        &["export"],
        c.dir(1),
        &[
            "--key-id".as_ref(),
            "vault".as_ref(),
            "--node".as_ref(),
            "3".as_ref(),
            "--out".as_ref(),
            b3.as_os_str(),
        ],
    ));
    assert_eq!(out["epoch"], 1, "{out}");
    std::fs::remove_file(kept.join("epoch-2.json")).expect("rm");

    // The escrow, offline: recovers x_3 (checked against T_3).
    let recover = |backup: &Path, out: &Path| {
        ok(quorate()
            .args(["verenc", "recover", "--escrow-secret"])
            .arg(&secret)
            .arg("--input")
            .arg(backup)
            .arg("--out")
            .arg(out)
            .output()
            .expect("recover"));
    };
    let share3 = c.tmp.path().join("share-3.hex");
    recover(&b3, &share3);

    // The public data of the committed epoch, from another holder.
    let public = c.tmp.path().join("vault-public.json");
    let p = json_ok(&escrow_cmd(
        &["export-public"],
        c.dir(1),
        &[
            "--key-id".as_ref(),
            "vault".as_ref(),
            "--out".as_ref(),
            public.as_os_str(),
        ],
    ));
    assert_eq!(p["epoch"], 1, "{p}");

    let import = |share: &Path| {
        escrow_cmd(
            &["import"],
            c.dir(3),
            &[
                "--key-id".as_ref(),
                "vault".as_ref(),
                "--share".as_ref(),
                share.as_os_str(),
                "--public".as_ref(),
                public.as_os_str(),
                "--roster".as_ref(),
                c.roster.as_os_str(),
            ],
        )
    };
    // Node 2's share is not node 3's: refused, naming node 3, and nothing is stored.
    let b2 = c.tmp.path().join("backup-2.json");
    json_ok(&escrow_cmd(
        &["export"],
        c.dir(1),
        &[
            "--key-id".as_ref(),
            "vault".as_ref(),
            "--node".as_ref(),
            "2".as_ref(),
            "--out".as_ref(),
            b2.as_os_str(),
        ],
    ));
    let share2 = c.tmp.path().join("share-2.hex");
    recover(&b2, &share2);
    let wrong = import(&share2);
    assert_eq!(wrong.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("does not match node 3's public share"),
        "{stderr}"
    );

    let imported: Value = json_ok(&import(&share3));
    assert_eq!(imported["restored"], true, "{imported}");
    assert_eq!(
        (imported["epoch"].as_u64(), imported["node"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(imported["public_key"], pk.as_str());

    // Node 3 runs again; a refresh naming it restored makes its share a signing one.
    c.restart(3);
    let r = json_ok(&ecdsa(
        &c,
        1,
        &["refresh", "--key-id", "vault", "--restored", "3"],
    ));
    assert_eq!(r["epoch"], 2, "{r}");
    assert_eq!(r["public_key"], pk.as_str());
    for (via, signers) in [(3, "1,3"), (2, "2,3")] {
        let s = json_ok(&ecdsa(
            &c,
            via,
            &[
                "sign",
                "--key-id",
                "vault",
                "--message",
                "restored",
                "--signers",
                signers,
            ],
        ));
        assert_eq!(s["epoch"], 2, "{s}");
        assert_eq!(s["public_key"], pk.as_str());
        ok(quorate()
            .args(["ecdsa", "verify"])
            .arg(format!("--public-key={pk}"))
            .arg(format!(
                "--digest={}",
                s["digest"].as_str().expect("digest")
            ))
            .arg(format!(
                "--signature={}",
                s["signature"].as_str().expect("signature")
            ))
            .output()
            .expect("verify"));
    }
    for id in 1..=3 {
        assert!(c.term(id).success(), "{}", c.logs());
    }
}
