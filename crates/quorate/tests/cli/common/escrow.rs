//! Escrow set-up for the node process tests (issue 16 §2): an RDKGitH escrow key pair on
//! secp256k1 made by `quorate verenc keygen`, configured on every node of a cluster with
//! `quorate node escrow set-key`.

use std::path::PathBuf;

use super::cluster::{ok, quorate, Cluster};

/// The escrow's key files (public, secret) in the cluster's scratch directory.
pub fn escrow_keys(c: &Cluster) -> (PathBuf, PathBuf) {
    let public = c.tmp.path().join("escrow.pub.json");
    let secret = c.tmp.path().join("escrow.sec.json");
    ok(quorate()
        .args([
            "verenc",
            "keygen",
            "--scheme",
            "rdkgith",
            "--curve",
            "secp256k1",
        ])
        .arg("--public-out")
        .arg(&public)
        .arg("--secret-out")
        .arg(&secret)
        .arg("--insecure-test-kdf")
        .output()
        .expect("verenc keygen"));
    for id in c.ids() {
        ok(quorate()
            .args(["node", "escrow", "set-key", "--dir"])
            .arg(c.dir(id))
            .arg("--key")
            .arg(&public)
            .output()
            .expect("escrow set-key"));
    }
    (public, secret)
}
