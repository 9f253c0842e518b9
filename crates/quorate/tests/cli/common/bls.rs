//! A hot/cold BLS deployment over a [`Cluster`]: the CRS file, a client directory and one
//! cold custodian directory per hot node, all driven through the real CLI.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::cluster::{ok, quorate, Cluster};

/// The client, the cold custodians and the CRS of one key.
pub struct Deployment {
    /// Holds the client's and custodians' directories.
    pub tmp: tempfile::TempDir,
    /// The key id.
    pub key_id: String,
}

/// Runs `quorate bls <args>`.
pub fn bls(args: &[&str]) -> Output {
    quorate()
        .arg("bls")
        .args(args)
        .output()
        .expect("run quorate bls")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

impl Deployment {
    /// The CRS for `n` parties, a client, `n` cold custodians (keygen + enroll).
    pub fn new(n: u16, key_id: &str) -> Deployment {
        let tmp = tempfile::tempdir().expect("tempdir");
        let d = Deployment {
            tmp,
            key_id: key_id.to_string(),
        };
        let n_s = n.to_string();
        let _ = ok(bls(&["setup", "--parties", &n_s, "--out", s(&d.crs())]));
        let _ = ok(bls(&[
            "client",
            "init",
            "--dir",
            s(&d.client()),
            "--insecure-test-kdf",
        ]));
        for i in 1..=n {
            let dir = d.cold(i);
            let _ = ok(bls(&[
                "cold",
                "keygen",
                "--dir",
                s(&dir),
                "--index",
                &i.to_string(),
                "--insecure-test-kdf",
            ]));
            let _ = ok(bls(&[
                "cold",
                "enroll",
                "--dir",
                s(&dir),
                "--client",
                s(&d.client().join("client.pub")),
                "--out",
                s(&dir.join("pad.json")),
            ]));
        }
        d
    }

    /// The CRS file.
    pub fn crs(&self) -> PathBuf {
        self.tmp.path().join("crs.bin")
    }

    /// The client's directory.
    pub fn client(&self) -> PathBuf {
        self.tmp.path().join("client")
    }

    /// Cold custodian `i`'s directory.
    pub fn cold(&self, i: u16) -> PathBuf {
        self.tmp.path().join(format!("cold-{i}"))
    }

    /// The key's public file.
    pub fn key_file(&self) -> PathBuf {
        self.client().join(format!("{}.key.json", self.key_id))
    }

    fn list(paths: impl Iterator<Item = PathBuf>) -> String {
        paths
            .map(|p| s(&p).to_string())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// `--node` value for nodes `ids`.
    pub fn nodes(c: &Cluster, ids: &[u16]) -> String {
        Self::list(ids.iter().map(|i| c.dir(*i).to_path_buf()))
    }

    /// `bls register` with threshold `t` to nodes `1..=n` of `c`.
    pub fn register(&self, c: &Cluster, t: u16) -> Output {
        let n = c.ids().len() as u16;
        bls(&[
            "register",
            "--client",
            s(&self.client()),
            "--key-id",
            &self.key_id,
            "--t",
            &t.to_string(),
            "--crs",
            s(&self.crs()),
            "--cold",
            &Self::list((1..=n).map(|i| self.cold(i).join("cold.pub"))),
            "--pad",
            &Self::list((1..=n).map(|i| self.cold(i).join("pad.json"))),
            "--node",
            &Self::nodes(c, &c.ids()),
            "--json",
        ])
    }

    /// `bls audit --json` asking nodes `ids`.
    pub fn audit(&self, c: &Cluster, ids: &[u16]) -> Output {
        bls(&[
            "audit",
            "--key",
            s(&self.key_file()),
            "--crs",
            s(&self.crs()),
            "--node",
            &Self::nodes(c, ids),
            "--json",
        ])
    }

    /// `bls refresh --json` over every node of `c`.
    pub fn refresh(&self, c: &Cluster) -> Output {
        bls(&[
            "refresh",
            "--client",
            s(&self.client()),
            "--key-id",
            &self.key_id,
            "--crs",
            s(&self.crs()),
            "--node",
            &Self::nodes(c, &c.ids()),
            "--json",
        ])
    }

    /// The request file for `message` and the cold partial files of parties `indices`.
    pub fn cold_partials(&self, message: &str, indices: &[u16]) -> String {
        let request = self
            .tmp
            .path()
            .join(format!("request-{}.json", hex::encode(message)));
        if !request.exists() {
            let _ = ok(bls(&[
                "request",
                "--client",
                s(&self.client()),
                "--key-id",
                &self.key_id,
                "--message",
                message,
                "--out",
                s(&request),
            ]));
        }
        let mut files = Vec::new();
        for i in indices {
            let out = self
                .tmp
                .path()
                .join(format!("partial-{}-{i}.json", hex::encode(message)));
            if !out.exists() {
                let _ = ok(bls(&[
                    "cold",
                    "sign",
                    "--dir",
                    s(&self.cold(*i)),
                    "--request",
                    s(&request),
                    "--out",
                    s(&out),
                ]));
            }
            files.push(out);
        }
        Self::list(files.into_iter())
    }

    /// `bls sign --json` with cold partial files `partials` and nodes `ids`.
    pub fn sign_with(&self, c: &Cluster, message: &str, partials: &str, ids: &[u16]) -> Output {
        bls(&[
            "sign",
            "--client",
            s(&self.client()),
            "--key-id",
            &self.key_id,
            "--crs",
            s(&self.crs()),
            "--message",
            message,
            "--cold-partial",
            partials,
            "--node",
            &Self::nodes(c, ids),
            "--json",
        ])
    }

    /// Recovery signing of `message` by parties (= nodes) `ids`.
    pub fn sign(&self, c: &Cluster, message: &str, ids: &[u16]) -> Output {
        let partials = self.cold_partials(message, ids);
        self.sign_with(c, message, &partials, ids)
    }
}

/// The JSON of a command that exited with code 1 (a failed check, culprits named).
pub fn json_failed(out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout {}\nstderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// Checks a signature JSON with `quorate bls verify` (ours and blst's verifier).
pub fn verify(sig: &Value) {
    assert_eq!(
        sig["ciphersuite"],
        "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_POP_"
    );
    let out = bls(&[
        "verify",
        "--public-key",
        sig["public_key"].as_str().expect("public_key"),
        "--message",
        sig["message"].as_str().expect("message"),
        "--signature",
        sig["signature"].as_str().expect("signature"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{sig}\n{out:?}");
}
