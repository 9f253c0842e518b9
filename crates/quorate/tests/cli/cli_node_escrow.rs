//! Verifiable escrow backup of node shares through three real `quorate node run` processes
//! (issue 16 §2): every node is configured with an RDKGitH escrow key; a 2-of-3 keygen and
//! a refresh commit only after each holder checked the others' backups; a lost node's
//! backup is exported from another holder and the escrow recovers the share offline
//! (`quorate verenc recover` checks `x·G = T_j`), and the holders keep signing.

use crate::common::cluster::{ecdsa, json_ok, ok, quorate, Cluster};
use crate::common::escrow::escrow_keys;

#[test]
fn escrowed_keygen_refresh_export_and_recover() {
    let mut c = Cluster::init(3);
    let (_, secret) = escrow_keys(&c);
    c.run_args = vec!["--round-timeout-ms".into(), "5000".into()];
    for id in 1..=3 {
        c.spawn(id);
    }
    for id in 1..=3 {
        c.wait_healthy(id);
    }
    let kg = json_ok(&ecdsa(
        &c,
        1,
        &[
            "keygen",
            "--t",
            "2",
            "--parties",
            "1,2,3",
            "--key-id",
            "vault",
        ],
    ));
    assert_eq!(kg["epoch"], 0);
    let r = json_ok(&ecdsa(&c, 2, &["refresh", "--key-id", "vault"]));
    assert_eq!(r["epoch"], 1, "{r}");

    // Node 3's epoch-1 backup, as kept by nodes 1 and 2: the same public share T_3.
    let export = |from: u16, file: &str| {
        let out = c.tmp.path().join(file);
        let v: serde_json::Value = serde_json::from_str(
            ok(quorate()
                .args(["node", "escrow", "export", "--dir"])
                .arg(c.dir(from))
                .args(["--key-id", "vault", "--node", "3", "--out"])
                .arg(&out)
                .output()
                .expect("export"))
            .trim(),
        )
        .expect("export json");
        assert_eq!(v["epoch"], 1, "{v}");
        (out, v["public_share"].as_str().expect("T_3").to_string())
    };
    let (from1, t3) = export(1, "b3-from1.json");
    let (_, t3_again) = export(2, "b3-from2.json");
    assert_eq!(t3, t3_again);
    // A node does not keep its own backup.
    let own = quorate()
        .args(["node", "escrow", "export", "--dir"])
        .arg(c.dir(3))
        .args(["--key-id", "vault", "--node", "3", "--out"])
        .arg(c.tmp.path().join("own.json"))
        .output()
        .expect("export");
    assert_eq!(own.status.code(), Some(2));
    // Epoch 0 is retired: its backups were deleted when epoch 1 committed, so the old
    // share cannot be rebuilt from a holder's disk (issue 14).
    for from in 1..=3 {
        let old = quorate()
            .args(["node", "escrow", "export", "--dir"])
            .arg(c.dir(from))
            .args(["--key-id", "vault", "--node", "3", "--epoch", "0", "--out"])
            .arg(c.tmp.path().join(format!("old-{from}.json")))
            .output()
            .expect("export");
        assert_eq!(old.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&old.stderr).contains("retired"),
            "{}",
            String::from_utf8_lossy(&old.stderr)
        );
        assert!(!c.dir(from).join("escrow/key-vault/epoch-0.json").exists());
    }

    // The escrow, offline: recovery checks x·G = T_3 before writing the share.
    let share = c.tmp.path().join("share3.hex");
    ok(quorate()
        .args(["verenc", "recover", "--escrow-secret"])
        .arg(&secret)
        .arg("--input")
        .arg(&from1)
        .arg("--out")
        .arg(&share)
        .output()
        .expect("recover"));
    assert_eq!(
        std::fs::read_to_string(&share).expect("share").trim().len(),
        64
    );

    // The holders still sign at epoch 1.
    let s = json_ok(&ecdsa(
        &c,
        1,
        &[
            "sign",
            "--key-id",
            "vault",
            "--message",
            "m",
            "--signers",
            "1,3",
        ],
    ));
    assert_eq!(s["epoch"], 1, "{s}");
    for id in 1..=3 {
        assert!(c.term(id).success());
    }
}
