//! The client on the user's device: the CRS file, its keys, ClientRegister to the hot
//! nodes, refresh, signing-request files and recovery signing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context as _};
use ed25519_dalek::Signer as _;
use quorate_bls::kzg::ceremony;
use quorate_bls::{
    combine, ColdPartial, ColdRegistration, Crs, GroupPublic, PadCommitment, PartialSignature,
    RefreshPublic, RefreshShare, Registration, Signature, VerifiedColdKeys, CIPHERSUITE_ID,
};
use quorate_core::error::Culprits as _;
use quorate_core::transcript::SessionId;
use quorate_core::{PartyId, ThresholdParams};
use quorate_node::keystore::sealed::{open_with_passphrase, seal_with_passphrase};
use quorate_node::session::bls::sign_request_message;
use serde_json::{json, Value};
use zeroize::Zeroizing;

use super::fanout::on_each;
use super::files::{
    hex_field, kdf_params, key_path, load_client, load_crs, node_id, read_json, refresh_path,
    str_field, u16_field, write_json, write_sealed_json, ClientKeys, KeyFile, CLIENT_LABEL,
    REFRESH_LABEL,
};
use super::{
    ClientInitArgs, RefreshArgs, RegisterArgs, RequestArgs, SetupArgs, SignArgs, EXIT_FAILED,
};
use crate::common::{os_rng, print_json};
use crate::files::{write_new_file, Access};
use crate::systems::ecdsa::node_client::{NodeClient, CALL_TIMEOUT};

/// Time allowed for one registration or refresh call (a node verifies the CRS once).
const SLOW_CALL: std::time::Duration = std::time::Duration::from_secs(60);

/// Why a client command failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Failure {
    /// Bad input, files or configuration (exit 2).
    Input(anyhow::Error),
    /// A party misbehaved or a check failed (exit 1), with the culprits found.
    Failed {
        /// What happened.
        error: String,
        /// `{"role", "index", "node", "evidence"}` of each culprit. Printed as `culprits`
        /// (their party indices, numbers, as every `--json` failure of the CLI) and `blame`
        /// (these objects).
        culprits: Vec<Value>,
    },
    /// A complete report whose verdict is negative (exit 1), such as a failed audit.
    Report(Value),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Input(e)
    }
}

/// Prints a result (JSON or text) and returns the exit code: 0, 1 (failed, culprits
/// named), 2 (input).
pub fn finish(
    r: Result<Value, Failure>,
    as_json: bool,
    text: impl Fn(&Value) -> String,
) -> ExitCode {
    match r {
        Ok(v) => {
            if as_json {
                let _ = print_json(&v);
            } else {
                println!("{}", text(&v));
            }
            ExitCode::SUCCESS
        }
        Err(Failure::Input(e)) => crate::common::malformed(format_args!("{e:#}")),
        Err(Failure::Report(v)) => {
            if as_json {
                let _ = print_json(&v);
            } else {
                println!("{}", text(&v));
            }
            ExitCode::from(EXIT_FAILED)
        }
        Err(Failure::Failed { error, culprits }) => {
            if as_json {
                let _ = print_json(&json!({
                    "error": error,
                    "culprits": culprit_ids(&culprits),
                    "blame": culprits,
                }));
            } else {
                println!("failed: {error}");
                for c in &culprits {
                    println!("culprit: {c}");
                }
            }
            ExitCode::from(EXIT_FAILED)
        }
    }
}

/// The party indices of `culprits` (`{"index": i, …}` objects), ascending, each once:
/// the `culprits` list of a `--json` failure. A culprit without an index (the client)
/// appears only in `blame`.
pub fn culprit_ids(culprits: &[Value]) -> Vec<u16> {
    let mut ids: Vec<u16> = culprits
        .iter()
        .filter_map(|c| c["index"].as_u64().and_then(|i| u16::try_from(i).ok()))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Hot party `index` on node `node`, blamed with `evidence`.
fn hot_culprit(index: u16, node: u16, evidence: impl Into<String>) -> Value {
    json!({ "role": "hot", "index": index, "node": node, "evidence": evidence.into() })
}

/// `quorate bls setup`.
pub fn setup(args: &SetupArgs) -> anyhow::Result<()> {
    crate::files::ensure_writable(&args.out, args.force)?;
    let transcript = ceremony::run_transcript_in_process(
        args.parties,
        usize::from(args.contributors),
        &SessionId::new(b"quorate/bls/setup".to_vec()),
    )?;
    write_new_file(
        &args.out,
        &transcript.to_bytes(),
        Access::Public,
        args.force,
    )?;
    println!(
        "CRS for up to {} hot parties: {} (id {})",
        args.parties,
        args.out.display(),
        hex::encode(transcript.id())
    );
    Ok(())
}

/// `quorate bls client init`.
pub fn init(args: &ClientInitArgs) -> anyhow::Result<()> {
    let secret_path = args.dir.join("client.secret");
    let public_path = args.dir.join("client.pub");
    crate::files::ensure_writable(&secret_path, args.force)?;
    crate::files::ensure_writable(&public_path, args.force)?;
    let passphrase = args.passphrase.passphrase()?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    let mut rng = os_rng();
    let sk = quorate_bls::SecretKey::random(&mut rng);
    let client_sk = Zeroizing::new(sk.to_bytes());
    let client = quorate_bls::Client::from_secret_key(sk);
    let auth = ed25519_dalek::SigningKey::generate(&mut rng);
    write_sealed_json(
        &secret_path,
        &json!({
            "bls_secret_key": hex::encode(*client_sk),
            "auth_seed": hex::encode(Zeroizing::new(auth.to_bytes())),
        }),
        CLIENT_LABEL,
        &passphrase,
        kdf_params(args.insecure_test_kdf),
        args.force,
    )?;
    write_new_file(
        &public_path,
        json!({
            "public_key": hex::encode(client.public_key().to_bytes()),
            "pop": hex::encode(client.proof_of_possession().to_bytes()),
            "auth_key": hex::encode(auth.verifying_key().to_bytes()),
        })
        .to_string()
        .as_bytes(),
        Access::Public,
        args.force,
    )?;
    println!(
        "client key {} (secret {}, public {})",
        hex::encode(client.public_key().to_bytes()),
        secret_path.display(),
        public_path.display()
    );
    Ok(())
}

/// The hot nodes given on the command line, by node id.
pub fn open_nodes(dirs: &[PathBuf]) -> anyhow::Result<BTreeMap<u16, NodeClient>> {
    let mut out = BTreeMap::new();
    for d in dirs {
        let id = node_id(d)?;
        let client = NodeClient::open(d).map_err(|e| anyhow!("{}: {e:?}", d.display()))?;
        if out.insert(id, client).is_some() {
            bail!("node {id} is given twice");
        }
    }
    Ok(out)
}

/// One API call; `Err` is a transport failure (node unreachable) as text.
fn call(
    node: &NodeClient,
    method: &str,
    path: &str,
    body: Option<&Value>,
    timeout: std::time::Duration,
) -> Result<(u16, Value), String> {
    node.call(method, path, body, timeout)
        .map_err(|e| format!("{e}"))
}

/// The culprit a node's 422 answer names, as given.
fn culprit_of(v: &Value) -> Option<Value> {
    v.get("culprit").filter(|c| !c.is_null()).cloned()
}

fn error_of(status: u16, v: &Value) -> String {
    format!(
        "HTTP {status}: {}",
        v["error"].as_str().unwrap_or("no error message")
    )
}

/// `quorate bls register`.
pub fn register(args: &RegisterArgs) -> Result<Value, Failure> {
    let keys = load_client(&args.client, &args.passphrase)?;
    let (crs, transcript) = load_crs(&args.crs)?;
    let nodes_in_order: Vec<u16> = args
        .node
        .iter()
        .map(|d| node_id(d))
        .collect::<anyhow::Result<_>>()?;
    let nodes = open_nodes(&args.node)?;
    let n = u16::try_from(args.node.len()).map_err(|_| anyhow!("too many nodes"))?;
    let params = ThresholdParams::new(args.t, n).map_err(|e| anyhow!("--t/--node: {e}"))?;
    if args.cold.len() != args.node.len() {
        return Err(anyhow!("give one --cold file per hot node ({n})").into());
    }
    let mut regs = Vec::new();
    for path in &args.cold {
        let v = read_json(path)?;
        regs.push(
            ColdRegistration::from_bytes(&hex_field(&v, "registration", path)?)
                .with_context(|| format!("{}", path.display()))?,
        );
    }
    let verified = match VerifiedColdKeys::verify(&regs, &mut os_rng()) {
        Ok(v) => v,
        Err(e) if !e.culprits().is_empty() => {
            return Err(Failure::Failed {
                error: e.to_string(),
                culprits: e
                    .culprits()
                    .iter()
                    .map(|p| json!({ "role": "cold", "index": p.get() }))
                    .collect(),
            })
        }
        Err(e) => return Err(anyhow!("--cold: {e}").into()),
    };
    let vk = keys.client.public_key();
    let mut pads: BTreeMap<u16, Vec<u8>> = BTreeMap::new();
    for path in &args.pad {
        let v = read_json(path)?;
        if hex_field(&v, "public_key", path)? != vk.to_bytes() {
            return Err(anyhow!("{}: made for another client key", path.display()).into());
        }
        let bytes = hex_field(&v, "pad", path)?;
        let pad =
            PadCommitment::from_bytes(&bytes).with_context(|| format!("{}", path.display()))?;
        pads.insert(pad.index().get(), bytes);
    }
    let public = register_to(
        &nodes,
        &nodes_in_order,
        &args.key_id,
        &keys,
        (&crs, &transcript),
        params,
        &verified,
        &pads,
    )?;
    let kf = KeyFile {
        key_id: args.key_id.clone(),
        holders: nodes_in_order.clone(),
        public,
        cold: regs,
    };
    kf.write(&key_path(&args.client, &args.key_id))?;
    let mut out = kf.to_json();
    if let Some(o) = out.as_object_mut() {
        o.remove("record");
        o.remove("cold");
    }
    Ok(out)
}

/// ClientRegister and its delivery: runs the client's registration (`params`, verified cold
/// keys, the cold custodians' `K_i` by party index in `pads`) and sends hot party `i` its
/// payload on node `holders[i - 1]`, to every node at once. A node that refuses or does
/// not answer within its timeout is named; the record is returned only when every node
/// accepted.
#[allow(clippy::too_many_arguments)]
pub fn register_to(
    nodes: &BTreeMap<u16, NodeClient>,
    holders: &[u16],
    key_id: &str,
    keys: &ClientKeys,
    (crs, crs_bytes): (&Crs, &[u8]),
    params: ThresholdParams,
    cold: &VerifiedColdKeys,
    pads: &BTreeMap<u16, Vec<u8>>,
) -> Result<GroupPublic, Failure> {
    if holders.len() != usize::from(params.n()) {
        return Err(anyhow!("{} hot nodes for n = {}", holders.len(), params.n()).into());
    }
    for index in 1..=params.n() {
        if !pads.contains_key(&index) {
            return Err(anyhow!("no --pad file for party {index}").into());
        }
        if !nodes.contains_key(&holders[usize::from(index - 1)]) {
            return Err(anyhow!("no node for party {index}").into());
        }
    }
    let reg = keys
        .client
        .register(crs, params, cold, &mut os_rng())
        .map_err(|e| anyhow!("ClientRegister: {e}"))?;
    deliver(nodes, holders, key_id, keys, crs_bytes, &reg, pads)?;
    Ok(reg.public)
}

/// The delivery half of [`register_to`]: sends hot party `i` its payload of `reg` on node
/// `holders[i - 1]`, to every node at once; `Ok` only when every node accepted. The CRS is
/// named by its id; only a node that answers that it does not hold it yet (412,
/// `unknown_crs`) gets the transcript `crs_bytes`, in a second request.
pub fn deliver(
    nodes: &BTreeMap<u16, NodeClient>,
    holders: &[u16],
    key_id: &str,
    keys: &ClientKeys,
    crs_bytes: &[u8],
    reg: &Registration,
    pads: &BTreeMap<u16, Vec<u8>>,
) -> Result<(), Failure> {
    let record = hex::encode(reg.public.to_bytes());
    let crs_hex = hex::encode(crs_bytes);
    let crs_id = hex::encode(reg.public.crs_id());
    let auth_key = hex::encode(keys.auth.verifying_key().to_bytes());
    let authorization = hex::encode(reg.authorization.to_bytes());
    if holders.len() != reg.payloads.len() {
        return Err(anyhow!("{} hot nodes for n = {}", holders.len(), reg.payloads.len()).into());
    }
    let jobs: Vec<(u16, Value)> = reg
        .payloads
        .iter()
        .zip(holders)
        .zip(1u16..)
        .map(|((payload, id), index)| {
            let pad = pads
                .get(&index)
                .ok_or_else(|| anyhow!("no --pad file for party {index}"))?;
            if !nodes.contains_key(id) {
                return Err(anyhow!("no node for party {index}"));
            }
            let body = json!({
                "key_id": key_id,
                "holders": holders,
                "auth_key": auth_key,
                "crs_id": crs_id,
                "public": record,
                "authorization": authorization,
                "payload": hex::encode(Zeroizing::new(payload.to_bytes()).as_slice()),
                "pad": hex::encode(pad),
            });
            Ok((*id, body))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut failures = Vec::new();
    let mut culprits = Vec::new();
    let answers = on_each(jobs, |id, mut body| {
        let answer = call(&nodes[&id], "POST", "/v1/bls/keys", Some(&body), SLOW_CALL);
        match answer {
            Ok((412, v)) if v["unknown_crs"].is_string() => {
                if let Some(o) = body.as_object_mut() {
                    o.remove("crs_id");
                    o.insert("crs".into(), Value::String(crs_hex.clone()));
                }
                call(&nodes[&id], "POST", "/v1/bls/keys", Some(&body), SLOW_CALL)
            }
            other => other,
        }
    });
    for (id, answer) in answers {
        match answer {
            Ok((200, _)) => {}
            Ok((status, v)) => {
                if let Some(c) = culprit_of(&v) {
                    culprits.push(c);
                }
                failures.push(format!("node {id}: {}", error_of(status, &v)));
            }
            Err(e) => {
                let evidence = format!("no answer from node {id}: {e}");
                if let Some(index) = holders.iter().position(|h| *h == id) {
                    culprits.push(hot_culprit(index as u16 + 1, id, evidence.clone()));
                }
                failures.push(evidence);
            }
        }
    }
    if !failures.is_empty() {
        return Err(Failure::Failed {
            error: format!("registration failed: {}", failures.join("; ")),
            culprits,
        });
    }
    Ok(())
}

/// The pending refresh of a key, as kept in `KEY_ID.refresh.json` (0600): the public
/// refresh and the confirmations in clear, every `δ_i` sealed under the client's passphrase
/// (`shares_sealed`, label bound to the key id and target epoch; sealed once per refresh).
struct PendingFile {
    public: RefreshPublic,
    shares: Vec<RefreshShare>,
    sealed_shares: Vec<u8>,
    confirmations: BTreeMap<u16, Value>,
}

/// The label the pending refresh's `δ_i` are sealed under.
fn shares_label(key_id: &str, epoch: u64) -> String {
    format!("{REFRESH_LABEL}/{key_id}/{epoch}")
}

impl PendingFile {
    fn new(
        public: RefreshPublic,
        shares: Vec<RefreshShare>,
        key_id: &str,
        keys: &ClientKeys,
    ) -> anyhow::Result<PendingFile> {
        let mut plain = Zeroizing::new(Vec::with_capacity(shares.len() * RefreshShare::BYTES));
        for share in &shares {
            plain.extend_from_slice(&Zeroizing::new(share.to_bytes()));
        }
        let sealed_shares = seal_with_passphrase(
            &keys.passphrase,
            keys.kdf,
            &shares_label(key_id, public.epoch()),
            &plain,
        )
        .context("sealing the refresh shares")?;
        Ok(PendingFile {
            public,
            shares,
            sealed_shares,
            confirmations: BTreeMap::new(),
        })
    }

    fn read(path: &Path, key_id: &str, keys: &ClientKeys) -> anyhow::Result<PendingFile> {
        let v = read_json(path)?;
        let public = RefreshPublic::from_bytes(&hex_field(&v, "refresh", path)?)
            .with_context(|| format!("{}", path.display()))?;
        let sealed_shares = hex_field(&v, "shares_sealed", path)?;
        let plain = open_with_passphrase(
            &keys.passphrase,
            &shares_label(key_id, public.epoch()),
            &sealed_shares,
        )
        .map_err(|e| anyhow!("{}: the sealed shares: {e}", path.display()))?;
        if plain.is_empty() || plain.len() % RefreshShare::BYTES != 0 {
            bail!("{}: the sealed shares are malformed", path.display());
        }
        let shares = plain
            .chunks(RefreshShare::BYTES)
            .map(RefreshShare::from_bytes)
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("{}: the sealed shares", path.display()))?;
        let mut confirmations = BTreeMap::new();
        if let Some(list) = v["confirmations"].as_array() {
            for c in list {
                confirmations.insert(u16_field(c, "node", path)?, c.clone());
            }
        }
        Ok(PendingFile {
            public,
            shares,
            sealed_shares,
            confirmations,
        })
    }

    /// Writes the file (0600, atomic, durable): a new one (`replace` false) never replaces
    /// an existing file; `replace` is for adding confirmations to this same refresh.
    fn write(&self, path: &Path, replace: bool) -> anyhow::Result<()> {
        let v = json!({
            "epoch": self.public.epoch(),
            "refresh": hex::encode(self.public.to_bytes()),
            "shares_sealed": hex::encode(&self.sealed_shares),
            "confirmations": self.confirmations.values().collect::<Vec<_>>(),
        });
        write_new_file(path, v.to_string().as_bytes(), Access::Secret, replace)
    }
}

/// Wipes the strings of a JSON value holding secrets (serde_json does not zeroize).
fn zeroize_json(v: Value) {
    use zeroize::Zeroize as _;
    match v {
        Value::String(mut s) => s.zeroize(),
        Value::Array(list) => list.into_iter().for_each(zeroize_json),
        Value::Object(map) => map.into_iter().for_each(|(_, v)| zeroize_json(v)),
        _ => {}
    }
}

/// What step 1 of a refresh got from one hot node.
enum Step1 {
    /// Already on the target epoch.
    Committed,
    /// Checked the refresh and confirmed it (the signed confirmation), or had confirmed
    /// before (`None`).
    Confirmed(Option<Value>),
    /// Refused or unreachable: the error, and the culprit it named.
    Behind(String, Option<Value>),
}

/// `quorate bls refresh`: deals a refresh (or resumes the unfinished one), collects the
/// hot nodes' signed confirmations, then commits on every node, each step on all nodes at
/// once. Nodes that could not finish are listed; running the command again resumes.
pub fn refresh(args: &RefreshArgs) -> Result<Value, Failure> {
    let keys = load_client(&args.client, &args.passphrase)?;
    let kpath = key_path(&args.client, &args.key_id);
    let mut kf = KeyFile::read(&kpath)?;
    let (crs, _) = load_crs(&args.crs)?;
    let nodes = open_nodes(&args.node)?;
    let ppath = refresh_path(&args.client, &args.key_id);
    let mut pending = if ppath.exists() {
        PendingFile::read(&ppath, &args.key_id, &keys)?
    } else {
        let dealt = keys
            .client
            .refresh(&crs, &kf.public, &mut os_rng())
            .map_err(|e| anyhow!("dealing the refresh: {e}"))?;
        let p = PendingFile::new(dealt.public, dealt.shares, &args.key_id, &keys)?;
        p.write(&ppath, false)?;
        p
    };
    let target = pending.public.epoch();
    let t = usize::from(kf.public.params().t());
    let refresh_hex = hex::encode(pending.public.to_bytes());
    let mut behind: BTreeMap<u16, String> = BTreeMap::new();
    let mut culprits = Vec::new();
    // Step 1: every node not yet on the target epoch checks the refresh and confirms it.
    let mut jobs = Vec::new();
    for (pos, id) in kf.holders.iter().enumerate() {
        match nodes.get(id) {
            Some(node) => jobs.push((*id, (node, pos))),
            None => {
                behind.insert(*id, "no --node directory given".into());
            }
        }
    }
    let step1 = on_each(jobs, |id, (node, pos)| {
        match call(
            node,
            "GET",
            &format!("/v1/bls/keys/{}", args.key_id),
            None,
            CALL_TIMEOUT,
        ) {
            Ok((200, v)) if v["epoch"].as_u64() == Some(target) => return Step1::Committed,
            Ok((200, _)) => {}
            Ok((status, v)) => return Step1::Behind(error_of(status, &v), None),
            Err(e) => return Step1::Behind(e, None),
        }
        if pending.confirmations.contains_key(&id) {
            return Step1::Confirmed(None);
        }
        let body = json!({
            "refresh": refresh_hex,
            "share": hex::encode(Zeroizing::new(pending.shares[pos].to_bytes()).as_slice()),
        });
        let path = format!("/v1/bls/keys/{}/refresh", args.key_id);
        let answer = call(node, "POST", &path, Some(&body), SLOW_CALL);
        zeroize_json(body);
        match answer {
            Ok((200, v)) => Step1::Confirmed(Some(json!({
                "node": id,
                "confirmation": v["confirmation"],
                "signature": v["signature"],
            }))),
            Ok((status, v)) => Step1::Behind(error_of(status, &v), culprit_of(&v)),
            Err(e) => Step1::Behind(e, None),
        }
    });
    let mut committed = Vec::new();
    let mut new_confirmations = false;
    for (id, step) in step1 {
        match step {
            Step1::Committed => committed.push(id),
            Step1::Confirmed(None) => {}
            Step1::Confirmed(Some(c)) => {
                pending.confirmations.insert(id, c);
                new_confirmations = true;
            }
            Step1::Behind(e, culprit) => {
                culprits.extend(culprit);
                behind.insert(id, e);
            }
        }
    }
    if new_confirmations {
        pending.write(&ppath, true)?;
    }
    if pending.confirmations.len() < t && committed.is_empty() {
        return Err(Failure::Failed {
            error: format!(
                "only {} of the t = {t} confirmations needed: {}",
                pending.confirmations.len(),
                describe(&behind)
            ),
            culprits,
        });
    }
    // Step 2: commit everywhere it is not committed yet.
    let confirmations: Vec<&Value> = pending.confirmations.values().collect();
    let body = json!({ "epoch": target, "confirmations": confirmations });
    let path = format!("/v1/bls/keys/{}/commit", args.key_id);
    let jobs: Vec<(u16, ())> = kf
        .holders
        .iter()
        .filter(|id| !committed.contains(id) && !behind.contains_key(id))
        .map(|id| (*id, ()))
        .collect();
    let step2 = on_each(jobs, |id, ()| {
        call(&nodes[&id], "POST", &path, Some(&body), SLOW_CALL)
    });
    for (id, answer) in step2 {
        match answer {
            Ok((200, _)) => committed.push(id),
            Ok((status, v)) => {
                culprits.extend(culprit_of(&v));
                behind.insert(id, error_of(status, &v));
            }
            Err(e) => {
                behind.insert(id, e);
            }
        }
    }
    if committed.len() >= t && kf.public.epoch() < target {
        kf.public = kf
            .public
            .refreshed(&crs, &pending.public, &mut os_rng())
            .map_err(|e| anyhow!("our own refresh does not verify: {e}"))?
            .into_record();
        kf.write(&kpath)?;
    }
    committed.sort_unstable();
    if behind.is_empty() {
        std::fs::remove_file(&ppath).with_context(|| format!("removing {}", ppath.display()))?;
        return Ok(json!({
            "key_id": args.key_id,
            "epoch": target,
            "committed": committed,
        }));
    }
    Err(Failure::Failed {
        error: format!(
            "epoch {target} committed on nodes {committed:?}; not on: {} (run the command again to resume)",
            describe(&behind)
        ),
        culprits,
    })
}

fn describe(behind: &BTreeMap<u16, String>) -> String {
    behind
        .iter()
        .map(|(id, e)| format!("node {id} ({e})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `quorate bls request`: the signing-request file the cold custodians answer.
pub fn request(args: &RequestArgs) -> anyhow::Result<()> {
    let keys = load_client(&args.client, &args.passphrase)?;
    let kf = KeyFile::read(&key_path(&args.client, &args.key_id))?;
    if kf.public.public_key() != &keys.client.public_key() {
        bail!("the key file belongs to another client key");
    }
    write_json(
        &args.out,
        &json!({
            "key_id": args.key_id,
            "public_key": hex::encode(keys.client.public_key().to_bytes()),
            "pop": hex::encode(keys.client.proof_of_possession().to_bytes()),
            "message": hex::encode(args.message.as_bytes()),
        }),
        Access::Public,
    )?;
    println!(
        "signing request for key {} in {}",
        args.key_id,
        args.out.display()
    );
    Ok(())
}

/// `quorate bls sign`: recovery signing. For each cold partial file (index `i`), hot
/// node `i` is asked for its partial under the client's authorisation
/// ([`sign_with_nodes`]).
pub fn sign(args: &SignArgs) -> Result<Value, Failure> {
    let keys = load_client(&args.client, &args.passphrase)?;
    let kf = KeyFile::read(&key_path(&args.client, &args.key_id))?;
    let (crs, _) = load_crs(&args.crs)?;
    let nodes = open_nodes(&args.node)?;
    let message = args.message.as_bytes();
    let mut cold = Vec::new();
    for path in &args.cold_partial {
        let v = read_json(path)?;
        if str_field(&v, "key_id", path)? != args.key_id {
            return Err(anyhow!("{}: made for another key", path.display()).into());
        }
        if hex_field(&v, "message", path)? != message {
            return Err(anyhow!("{}: made for another message", path.display()).into());
        }
        let index = u16_field(&v, "index", path)?;
        let party = PartyId::new(index).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        if kf.holders.get(party.position()).is_none() {
            return Err(anyhow!("{}: party {index} does not exist", path.display()).into());
        }
        cold.push((party, hex_field(&v, "cold_partial", path)?));
    }
    let (signature, signers) = sign_with_nodes(&nodes, &kf, &keys, &crs, message, &cold)?;
    Ok(json!({
        "ciphersuite": CIPHERSUITE_ID,
        "t": kf.public.params().t(),
        "n": kf.public.params().n(),
        "epoch": kf.public.epoch(),
        "public_key": hex::encode(kf.public.public_key().to_bytes()),
        "message": hex::encode(message),
        "message_text": args.message,
        "signature": hex::encode(signature.to_bytes()),
        "signers": signers,
    }))
}

/// Recovery signing over the nodes: for each cold partial (party `i`, bytes), hot node
/// `holders[i - 1]` is asked, all at once, for its partial under the client's
/// authorisation. Each partial is checked (cold ones by the hot node against `K_i`, hot
/// ones by [`combine`] against `vs_i`) and a bad one, or a node that refuses or does not
/// answer in time, is named. Returns the signature and the signers' indices.
pub fn sign_with_nodes(
    nodes: &BTreeMap<u16, NodeClient>,
    kf: &KeyFile,
    keys: &ClientKeys,
    crs: &Crs,
    message: &[u8],
    cold: &[(PartyId, Vec<u8>)],
) -> Result<(Signature, Vec<u16>), Failure> {
    // A cold partial that is not a valid point (or is labelled with another index) names
    // its cold custodian before any hot node is asked.
    let bad_cold: Vec<Value> = cold
        .iter()
        .filter(|(party, bytes)| !matches!(ColdPartial::from_bytes(bytes), Ok(p) if p.index() == *party))
        .map(|(party, _)| {
            json!({
                "role": "cold",
                "index": party.get(),
                "node": null,
                "evidence": format!("the cold partial of custodian {party} is not a valid point of party {party}"),
            })
        })
        .collect();
    if !bad_cold.is_empty() {
        return Err(Failure::Failed {
            error: format!(
                "malformed cold partials from custodians {:?}",
                culprit_ids(&bad_cold)
            ),
            culprits: bad_cold,
        });
    }
    let mut jobs = Vec::new();
    for (party, cold_partial) in cold {
        let index = party.get();
        if jobs.iter().any(|(_, (p, _))| p == party) {
            return Err(anyhow!("two cold partials of party {index}").into());
        }
        let id = *kf
            .holders
            .get(party.position())
            .ok_or_else(|| anyhow!("party {index} does not exist"))?;
        if !nodes.contains_key(&id) {
            return Err(anyhow!("party {index} is node {id}: give its --node directory").into());
        }
        let auth = keys
            .auth
            .sign(&sign_request_message(&kf.key_id, message, cold_partial));
        let body = json!({
            "message": hex::encode(message),
            "cold_partial": hex::encode(cold_partial),
            "authorization": hex::encode(auth.to_bytes()),
        });
        jobs.push((id, (*party, body)));
    }
    let route = format!("/v1/bls/keys/{}/sign", kf.key_id);
    let answers = on_each(jobs, |id, (party, body)| {
        (
            party,
            call(&nodes[&id], "POST", &route, Some(&body), CALL_TIMEOUT),
        )
    });
    let mut partials: Vec<PartialSignature> = Vec::new();
    let mut failures = Vec::new();
    let mut culprits = Vec::new();
    for (id, (party, answer)) in answers {
        match answer {
            Ok((200, v)) => {
                let bytes =
                    hex::decode(v["partial"].as_str().unwrap_or_default()).unwrap_or_default();
                match PartialSignature::from_bytes(&bytes) {
                    Ok(p) if p.index() == party => partials.push(p),
                    _ => {
                        culprits.push(hot_culprit(party.get(), id, "malformed partial"));
                        failures.push(format!("node {id}: malformed partial"));
                    }
                }
            }
            Ok((status, v)) => {
                // The node names whom it refused for (a bad cold partial); otherwise it is
                // the node that did not give its partial.
                let error = error_of(status, &v);
                culprits.push(
                    culprit_of(&v).unwrap_or_else(|| hot_culprit(party.get(), id, error.clone())),
                );
                failures.push(format!("node {id}: {error}"));
            }
            Err(e) => {
                let evidence = format!("no answer from node {id}: {e}");
                culprits.push(hot_culprit(party.get(), id, evidence.clone()));
                failures.push(evidence);
            }
        }
    }
    let t = usize::from(kf.public.params().t());
    if partials.len() < t {
        return Err(Failure::Failed {
            error: format!(
                "{} of the t = {t} partials needed: {}",
                partials.len(),
                failures.join("; ")
            ),
            culprits,
        });
    }
    let signature = combine(crs, &kf.public, message, &partials, &mut os_rng()).map_err(|e| {
        let named: Vec<Value> = e
            .culprits()
            .iter()
            .map(|p| {
                json!({
                    "role": "hot",
                    "index": p.get(),
                    "node": kf.holders.get(p.position()),
                    "evidence": "its partial does not verify against vs_i",
                })
            })
            .collect();
        Failure::Failed {
            error: e.to_string(),
            culprits: culprits.iter().cloned().chain(named).collect(),
        }
    })?;
    Ok((
        signature,
        partials.iter().map(|p| p.index().get()).collect(),
    ))
}

/// Text form of a signature result.
pub fn signature_text(v: &Value) -> String {
    format!(
        "ciphersuite: {}\npublic key:  {}\nmessage:     {}\nsignature:   {}",
        v["ciphersuite"].as_str().unwrap_or_default(),
        v["public_key"].as_str().unwrap_or_default(),
        v["message_text"].as_str().unwrap_or_default(),
        v["signature"].as_str().unwrap_or_default(),
    )
}
