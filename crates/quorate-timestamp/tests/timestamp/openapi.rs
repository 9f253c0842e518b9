//! `docs/timestamp-api.json` (OpenAPI 3) against the real server (issue 18):
//! * the document's operations are exactly the router's `.route(…)` calls in `server.rs`;
//! * every documented operation, driven through each of its documented outcomes, answers with
//!   a documented status and a body that matches the documented schema;
//! * methods the document does not list are refused with 405.
//!
//! Schemathesis (`.ci/schemathesis`) then fuzzes the same document against `quorate cosi
//! timestamp serve` in CI.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use quorate_timestamp::loadgen::ticket_of;
use quorate_timestamp::{ServerConfig, Service, Store};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

const DOC: &str = include_str!("../../../../docs/timestamp-api.json");
const SERVER_SRC: &str = include_str!("../../src/server.rs");
const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

/// `(method, path)` of every `.route("path", method(handler)…)` in `server.rs`.
fn router_operations() -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    let mut rest = SERVER_SRC;
    while let Some(at) = rest.find(".route(\"") {
        rest = &rest[at + 8..];
        let (path, after) = rest.split_once('"').expect("route path");
        let end = after
            .find(".route(")
            .or_else(|| after.find(".with_state"))
            .expect("end of route");
        let call = &after[..end];
        for m in METHODS {
            let needle = format!("{m}(");
            let called = call.match_indices(&needle).any(|(i, _)| {
                let before = if i == 0 { b' ' } else { call.as_bytes()[i - 1] };
                !before.is_ascii_alphanumeric() && before != b'_'
            });
            if called {
                ops.insert((m.to_owned(), path.to_owned()));
            }
        }
        rest = after;
    }
    ops
}

fn doc() -> Value {
    serde_json::from_str(DOC).expect("docs/timestamp-api.json is JSON")
}

fn doc_operations(doc: &Value) -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for m in item.as_object().expect("path item").keys() {
            assert!(METHODS.contains(&m.as_str()), "{path}: unexpected key {m}");
            ops.insert((m.clone(), path.clone()));
        }
    }
    ops
}

/// Follows a local `$ref` (`#/components/…`).
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let pointer = r.strip_prefix('#').expect("local $ref");
            resolve(
                doc,
                doc.pointer(pointer)
                    .unwrap_or_else(|| panic!("dangling {r}")),
            )
        }
        None => v,
    }
}

/// The subset of JSON Schema the document uses: type, required, properties, items,
/// minItems, enum, pattern, minimum.
fn validate(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    let schema = resolve(doc, schema);
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_u64() || v.is_i64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            other => return Err(format!("{at}: schema type {other} not supported here")),
        };
        if !ok {
            return Err(format!("{at}: {v} is not of type {t}"));
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if !values.contains(v) {
            return Err(format!("{at}: {v} is not one of {values:?}"));
        }
    }
    if let (Some(p), Some(s)) = (schema.get("pattern").and_then(Value::as_str), v.as_str()) {
        if !regex::Regex::new(p).expect("pattern").is_match(s) {
            return Err(format!("{at}: {s:?} does not match {p}"));
        }
    }
    if let (Some(min), Some(n)) = (schema.get("minimum").and_then(Value::as_i64), v.as_i64()) {
        if n < min {
            return Err(format!("{at}: {n} < {min}"));
        }
    }
    if let Some(obj) = v.as_object() {
        for r in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str().expect("required name");
            if !obj.contains_key(r) {
                return Err(format!("{at}: required field {r} missing"));
            }
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (k, s) in props {
                if let Some(x) = obj.get(k) {
                    validate(doc, s, x, &format!("{at}.{k}"))?;
                }
            }
        }
    }
    if let Some(items) = v.as_array() {
        if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
            if (items.len() as u64) < min {
                return Err(format!("{at}: fewer than {min} items"));
            }
        }
        if let Some(s) = schema.get("items") {
            for (i, x) in items.iter().enumerate() {
                validate(doc, s, x, &format!("{at}[{i}]"))?;
            }
        }
    }
    Ok(())
}

struct Api {
    doc: Value,
    service: Service,
    /// Every `(operation, status)` seen, to show each documented outcome was reached.
    seen: BTreeSet<(String, String, u16)>,
}

impl Api {
    /// Calls `method path` (an instance of `template`) and checks the answer against the
    /// document. Returns the status and the JSON body.
    fn call(&mut self, method: &str, template: &str, path: &str, body: &[u8]) -> (u16, Value) {
        let op = &self.doc["paths"][template][method];
        assert!(op.is_object(), "{method} {template} is not documented");
        let (status, bytes) = self
            .service
            .call(&method.to_uppercase(), path, body)
            .unwrap();
        let response = op["responses"]
            .get(status.to_string())
            .unwrap_or_else(|| panic!("{method} {path}: status {status} is not documented"));
        let response = resolve(&self.doc, response);
        let schema = &response["content"]["application/json"]["schema"];
        assert!(
            schema.is_object(),
            "{method} {path}: {status} has no JSON schema"
        );
        let value: Value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|e| panic!("{method} {path}: {status} body is not JSON: {e}"));
        if let Err(e) = validate(&self.doc, schema, &value, "body") {
            panic!("{method} {path}: {status}: {e}\n{value}");
        }
        self.seen
            .insert((method.to_owned(), template.to_owned(), status));
        (status, value)
    }
}

#[test]
fn document_lists_exactly_the_routes_of_the_router() {
    let router = router_operations();
    assert_eq!(router.len(), 6, "parsed {router:?}");
    assert_eq!(doc_operations(&doc()), router);
}

#[test]
fn every_documented_outcome_matches_its_schema() {
    let config = ServerConfig {
        round_interval: Duration::from_millis(20),
        max_wait: Duration::from_secs(10),
        ..ServerConfig::default()
    };
    let service = Service::start(
        "127.0.0.1:0".parse().unwrap(),
        Store::in_memory().unwrap(),
        3,
        config,
    )
    .unwrap();
    let mut api = Api {
        doc: doc(),
        service,
        seen: BTreeSet::new(),
    };
    let (head, round, receipt, submit) = (
        "/v1/head",
        "/v1/round/{n}",
        "/v1/receipt/{ticket}",
        "/v1/submit",
    );

    // Before the first round.
    assert_eq!(api.call("get", head, head, b"").0, 404);
    assert_eq!(api.call("get", round, "/v1/round/0", b"").0, 404);
    // Beyond the store's 63-bit range: absent, not a server error (this was a 500).
    assert_eq!(
        api.call("get", round, "/v1/round/18446744073709551615", b"")
            .0,
        404
    );
    assert_eq!(api.call("get", round, "/v1/round/x", b"").0, 400);
    let (status, roster) = api.call("get", "/v1/roster", "/v1/roster", b"");
    assert_eq!((status, roster.as_array().map(Vec::len)), (200, Some(3)));

    // Submits: raw bytes, hex with whitespace, garbage.
    assert_eq!(api.call("post", submit, submit, b"not a hash").0, 400);
    let (status, first) = api.call("post", submit, submit, &[5u8; 32]);
    assert_eq!(status, 200);
    let hex_body = format!(" {}\n", "ab".repeat(32));
    let (status, second) = api.call("post", submit, submit, hex_body.as_bytes());
    assert_eq!(status, 200);
    let ticket = ticket_of(first.to_string().as_bytes()).unwrap();
    let second = ticket_of(second.to_string().as_bytes()).unwrap();
    let nonce = ticket.rsplit('-').next().unwrap().to_owned();

    // Receipts: pending or signed, then signed with a long poll; malformed and unknown.
    let (status, _) = api.call("get", receipt, &format!("/v1/receipt/{ticket}"), b"");
    assert!(status == 202 || status == 200, "{status}");
    let (status, r) = api.call("get", receipt, &format!("/v1/receipt/{ticket}?wait=1"), b"");
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["hash"], hex::encode([5u8; 32]));
    assert_eq!(api.call("get", receipt, "/v1/receipt/nonsense", b"").0, 400);
    assert_eq!(
        api.call("get", receipt, &format!("/v1/receipt/99999-0-{nonce}"), b"")
            .0,
        404
    );
    let signed = r["round"].as_u64().unwrap();
    let missing = format!("/v1/receipt/{signed}-{}-{nonce}", u64::MAX);
    assert_eq!(api.call("get", receipt, &missing, b"").0, 404);
    // Once the second submit's round is signed, the next round is open and empty, so it is
    // never sealed: its tickets are pending. A round beyond it is unknown.
    let (status, r2) = api.call("get", receipt, &format!("/v1/receipt/{second}?wait=1"), b"");
    assert_eq!(status, 200, "{r2}");
    let open = r2["round"].as_u64().unwrap() + 1;
    let pending = format!("/v1/receipt/{open}-0-{nonce}");
    assert_eq!(api.call("get", receipt, &pending, b"").0, 202);
    let beyond = format!("/v1/receipt/{}-0-{nonce}", open + 1);
    assert_eq!(api.call("get", receipt, &beyond, b"").0, 404);

    // Lookup by hash: found once signed (earliest leaf), malformed, never submitted.
    let lookup = "/v1/lookup/{hash}";
    let (status, found) = api.call(
        "get",
        lookup,
        &format!("/v1/lookup/{}", hex::encode([5u8; 32])),
        b"",
    );
    assert_eq!(status, 200, "{found}");
    assert_eq!(found, r, "the lookup gives the ticket's receipt");
    assert_eq!(api.call("get", lookup, "/v1/lookup/xyz", b"").0, 400);
    let never = format!("/v1/lookup/{}", hex::encode([6u8; 32]));
    assert_eq!(api.call("get", lookup, &never, b"").0, 404);

    // After the first round.
    let (status, _) = api.call("get", head, head, b"");
    assert_eq!(status, 200);
    let (status, r0) = api.call("get", round, &format!("/v1/round/{signed}"), b"");
    assert_eq!((status, r0["round"].as_u64()), (200, Some(signed)));

    // Undocumented methods on documented paths: 405 from the router.
    let doc = api.doc.clone();
    for (template, item) in doc["paths"].as_object().unwrap() {
        let path = template
            .replace("{ticket}", &ticket)
            .replace("{hash}", &"ab".repeat(32))
            .replace("{n}", &signed.to_string());
        for m in METHODS {
            if item.get(m).is_none() {
                let (status, _) = api.service.call(&m.to_uppercase(), &path, b"").unwrap();
                assert_eq!(status, 405, "{m} {path}");
            }
        }
    }

    // Every documented status of every operation was reached, except the ones that need
    // an overloaded or stopping server (503).
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (m, op) in item.as_object().unwrap() {
            for status in op["responses"].as_object().unwrap().keys() {
                let code: u16 = status.parse().unwrap();
                if code == 503 {
                    continue;
                }
                assert!(
                    api.seen.contains(&(m.clone(), template.clone(), code)),
                    "{m} {template} {code} never exercised"
                );
            }
        }
    }
    api.service.shutdown().unwrap();
}
