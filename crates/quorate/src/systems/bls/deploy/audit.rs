//! The auditor: anyone with the key's public file and the CRS. It asks every hot node for
//! Π_EKS under a fresh `block_id` and checks each proof against the record, and checks
//! the cold custodians' Π_DL proofs (their registrations) — public data alone.

use anyhow::anyhow;
use quorate_bls::proofs::verify_hot;
use quorate_bls::{HotProof, VerifiedColdKeys};
use quorate_core::error::Culprits as _;
use quorate_core::PartyId;
use quorate_node::session::bls::audit_context;
use rand_core::RngCore as _;
use serde_json::{json, Value};

use std::collections::BTreeMap;

use super::client::{culprit_ids, open_nodes, Failure};
use super::fanout::on_each;
use super::files::{load_crs, KeyFile};
use super::AuditArgs;
use crate::common::os_rng;
use crate::systems::ecdsa::node_client::{NodeClient, CALL_TIMEOUT};

/// One hot party's audit: its proof, checked.
fn audit_hot(
    node: &NodeClient,
    kf: &KeyFile,
    crs: &quorate_bls::Crs,
    index: PartyId,
    block_id: u64,
) -> Result<(), String> {
    let path = format!("/v1/bls/keys/{}/audit", kf.key_id);
    let body = json!({ "block_id": block_id });
    let (status, v) = node
        .call("POST", &path, Some(&body), CALL_TIMEOUT)
        .map_err(|e| format!("no answer from node {}: {e}", kf.holders[index.position()]))?;
    if status != 200 {
        return Err(format!(
            "HTTP {status}: {}",
            v["error"].as_str().unwrap_or("no error message")
        ));
    }
    if v["index"].as_u64() != Some(u64::from(index.get())) {
        return Err("answered as another party".into());
    }
    let bytes = hex::decode(v["proof"].as_str().unwrap_or_default())
        .map_err(|_| "proof is not hex".to_string())?;
    let proof = HotProof::from_bytes(&bytes).map_err(|e| format!("proof: {e}"))?;
    verify_hot(
        crs,
        &kf.public,
        index,
        &audit_context(&kf.key_id, block_id),
        &proof,
    )
    .map_err(|e| e.to_string())
}

/// Asks every hot party of the key for Π_EKS under `block_id`, all nodes at once, and checks
/// each proof: one `{"index", "node", "verified", "error"}` per party, in index order. A
/// node that is missing from `nodes`, refuses, or does not answer in time is not verified,
/// with the reason.
pub fn audit_nodes(
    nodes: &BTreeMap<u16, NodeClient>,
    kf: &KeyFile,
    crs: &quorate_bls::Crs,
    block_id: u64,
) -> anyhow::Result<Vec<Value>> {
    let mut jobs = Vec::new();
    for (pos, id) in kf.holders.iter().enumerate() {
        let index = PartyId::new(pos as u16 + 1).map_err(|e| anyhow!("{e}"))?;
        jobs.push((*id, index));
    }
    let results = on_each(jobs, |id, index| {
        let result = match nodes.get(&id) {
            Some(node) => audit_hot(node, kf, crs, index, block_id),
            None => Err("not asked: no --node directory given".into()),
        };
        (index, result)
    });
    Ok(results
        .into_iter()
        .map(|(id, (index, result))| {
            json!({
                "index": index.get(),
                "node": id,
                "verified": result.is_ok(),
                "error": result.err(),
            })
        })
        .collect())
}

/// `quorate bls audit`: `verified` per party; fails (exit 1) if any is not.
pub fn audit(args: &AuditArgs) -> Result<Value, Failure> {
    let kf = KeyFile::read(&args.key)?;
    let (crs, _) = load_crs(&args.crs)?;
    if crs.id() != kf.public.crs_id() {
        return Err(anyhow!("the key was registered under another CRS").into());
    }
    kf.public
        .validate(&crs, &mut os_rng())
        .map_err(|e| anyhow!("{}: the record does not verify: {e}", args.key.display()))?;
    let block_id = args.block_id.unwrap_or_else(|| os_rng().next_u64());
    let nodes = open_nodes(&args.node)?;
    let hot = audit_nodes(&nodes, &kf, &crs, block_id)?;
    let cold_result = VerifiedColdKeys::verify(&kf.cold, &mut os_rng());
    let cold: Vec<Value> = kf
        .cold
        .iter()
        .map(|c| {
            let ok = match &cold_result {
                Ok(_) => true,
                Err(e) => !e.culprits().is_empty() && !e.culprits().contains(&c.index()),
            };
            json!({ "index": c.index().get(), "verified": ok })
        })
        .collect();
    let all = hot.iter().chain(&cold).all(|p| p["verified"] == true);
    // Every party not verified, by index (a hot party with its node and the reason): the
    // `culprits` list of every `--json` failure.
    let failed = |list: &[Value], role: &str| -> Vec<Value> {
        list.iter()
            .filter(|p| p["verified"] != true)
            .map(|p| {
                json!({
                    "role": role,
                    "index": p["index"],
                    "node": p.get("node").cloned().unwrap_or(Value::Null),
                    "evidence": p
                        .get("error")
                        .cloned()
                        .unwrap_or_else(|| json!("its proof does not verify")),
                })
            })
            .collect()
    };
    let blame: Vec<Value> = failed(&hot, "hot")
        .into_iter()
        .chain(failed(&cold, "cold"))
        .collect();
    let out = json!({
        "key_id": kf.key_id,
        "epoch": kf.public.epoch(),
        "block_id": block_id,
        "verified": all,
        "culprits": culprit_ids(&blame),
        "blame": blame,
        "hot": hot,
        "cold": cold,
    });
    if all {
        Ok(out)
    } else {
        Err(Failure::Report(out))
    }
}

/// Text form of an audit.
pub fn text(v: &Value) -> String {
    let mut out = format!(
        "audit of key {} at epoch {}, block {}\n",
        v["key_id"].as_str().unwrap_or_default(),
        v["epoch"],
        v["block_id"]
    );
    for (role, list) in [("hot", &v["hot"]), ("cold", &v["cold"])] {
        for p in list.as_array().into_iter().flatten() {
            let ok = p["verified"] == true;
            out.push_str(&format!(
                "{role} {:>4}: {}{}\n",
                p["index"],
                if ok { "verified" } else { "NOT verified" },
                p["error"]
                    .as_str()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            ));
        }
    }
    out.trim_end().to_string()
}
