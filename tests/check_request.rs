//! `check` and `vectors` speak the typed query's serde form: a `check` record's `query` may be
//! the argument list or the request object a binding sends (both reach the same typed query
//! and the same judge), and every `vectors` record carries its request beside its argument
//! list. The witness for "the same question" is the request written here from the argument
//! list by plain text rules (not the crate's converter), and the envelope the request gets
//! through `query_envelope_json` (the Python package's path).
mod common;
use common::run;
use dpcert::request::{check_record_json, query_envelope_json};
use serde_json::{json, Value};

/// The request for an argument list, by text rules: the leading words are `command` (and
/// `subcommand`), each `--flag text` pair a key with underscores (vectors have no switches
/// and no repeated flags).
fn request(args: &[String]) -> Value {
    let words: Vec<&String> = args.iter().take_while(|a| !a.starts_with("--")).collect();
    let mut v = json!({"command": words[0]});
    if let Some(s) = words.get(1) {
        v["subcommand"] = json!(s);
    }
    for pair in args[words.len()..].chunks(2) {
        let key = pair[0].trim_start_matches("--").replace('-', "_");
        v[key] = json!(pair[1]);
    }
    v
}

/// `dpcert vectors --json`'s records (exit 0).
fn vectors() -> Vec<Value> {
    let (code, out, err) = run(&["vectors", "--json"]);
    assert_eq!(code, 0, "{err}");
    let env: Value = serde_json::from_str(&out).unwrap();
    env["result"]["vectors"].as_array().unwrap().clone()
}

fn args_of(rec: &Value) -> Vec<String> {
    rec["query"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// A `check` result without its echo of the query (the one field the two forms differ in).
fn judged(i: usize, query: &Value, value: &Value) -> Value {
    let mut r = check_record_json(i, &json!({"query": query, "value": value}));
    assert_eq!(&r["query"], query);
    r.as_object_mut().unwrap().remove("query");
    r
}

#[test]
fn vectors_carry_their_request_and_it_asks_the_same_question() {
    let recs = vectors();
    assert!(recs.len() > 200, "{}", recs.len());
    for rec in &recs {
        let args = args_of(rec);
        // the request sits right after the unchanged argument list
        let keys: Vec<&String> = rec.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["query", "request", "command", "value", "theorem"]);
        assert_eq!(rec["request"], request(&args), "{args:?}");
        // evaluated as a binding would: the same certified numbers as the argument list
        let env = query_envelope_json(&rec["request"]).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(env["command"], rec["command"], "{args:?}");
        for end in ["lower", "upper", "kind"] {
            assert_eq!(
                env["result"]["value"][end], rec["value"][end],
                "{args:?}: {end}"
            );
        }
    }
}

#[test]
fn check_judges_both_forms_of_every_vector_alike() {
    let recs = vectors();
    let mut verdicts = std::collections::BTreeMap::new();
    for (i, rec) in recs.iter().enumerate() {
        let args = json!(args_of(rec));
        let req = &rec["request"];
        // the certified upper end is always a valid value; the f64 a library would print
        // from it, and (on a sample) the certified lower end, exercise the other verdicts
        let mut values = vec![rec["value"]["upper"].clone()];
        if rec["value"]["upper_f64"].is_number() {
            values.push(json!(rec["value"]["upper_f64"].to_string()));
        }
        if i % 8 == 0 && !rec["command"].as_str().unwrap().starts_with("dpsgd") {
            values.push(rec["value"]["lower"].clone());
        }
        for v in values.iter().filter(|v| v.is_string()) {
            let a = judged(i, &args, v);
            let r = judged(i, req, v);
            assert_eq!(a, r, "{args} = {v}");
            assert_ne!(a["verdict"], "invalid", "{args} = {v}: {}", a["reason"]);
            *verdicts
                .entry(a["verdict"].as_str().unwrap().to_string())
                .or_insert(0) += 1;
        }
    }
    // both sides of the judge were reached
    assert!(
        verdicts.get("sound").is_some_and(|&n| n > 200),
        "{verdicts:?}"
    );
    assert!(verdicts.contains_key("unsound"), "{verdicts:?}");
}

#[test]
fn a_malformed_request_is_an_invalid_record_naming_its_key() {
    let base = json!({"command": "gaussian", "subcommand": "delta", "sigma": "1",
                      "epsilon": "0.5"});
    let with = |k: &str, v: Value| {
        let mut r = base.clone();
        r[k] = v;
        r
    };
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("epsilon");
    for (r, key) in [
        (with("sigmaa", json!("1")), "sigmaa"),
        (with("sigma", json!(1)), "sigma"),
        (with("sigma", json!("-1")), "sigma"),
        (with("compositions", json!("2.5")), "compositions"),
        (with("command", json!("audit")), "command"),
        (with("subcommand", json!("nope")), "subcommand"),
        (missing, "epsilon"),
    ] {
        let out = check_record_json(0, &json!({"query": r, "value": "0.3"}));
        assert_eq!(out["verdict"], "invalid", "{r}");
        let reason = out["reason"].as_str().unwrap();
        assert!(
            reason.starts_with(&format!("invalid {key}: ")),
            "{r}: {reason}"
        );
        assert!(
            !reason.contains("--"),
            "{r}: a request's error names its key: {reason}"
        );
        assert_eq!(out["bracket"], Value::Null);
    }
    // neither a list of strings nor an object
    for q in [json!("gaussian delta"), json!(7), json!(["gaussian", 1])] {
        let out = check_record_json(0, &json!({"query": q, "value": "0.3"}));
        assert_eq!(out["verdict"], "invalid", "{q}");
        let reason = out["reason"].as_str().unwrap();
        assert!(reason.starts_with("`query` must be"), "{q}: {reason}");
    }
    // the well-formed request is judged (δ(0.5) at σ = 1 ≈ 0.2384: 0.3 is valid)
    let ok = check_record_json(0, &json!({"query": base, "value": "0.3"}));
    assert_eq!(ok["verdict"], "sound", "{}", ok["reason"]);
}

#[test]
fn the_command_line_check_reads_a_file_mixing_both_forms() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-check-request-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mixed.json");
    let text = r#"[
 {"query": ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"], "value": "0.3"},
 {"query": {"command": "gaussian", "subcommand": "delta", "sigma": "1", "epsilon": "0.5"}, "value": "0.3"},
 {"query": {"command": "gaussian", "subcommand": "delta", "sigma": "1", "epsilon": "0.5"}, "value": "0.2"},
 {"query": {"command": "gaussian", "subcommand": "delta", "sigmaa": "1", "epsilon": "0.5"}, "value": "0.3"}
]"#;
    std::fs::write(&file, text).unwrap();
    let (code, out, err) = run(&["check", file.to_str().unwrap(), "--json"]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{err}");
    let env: Value = serde_json::from_str(&out).unwrap();
    let recs = env["result"]["records"].as_array().unwrap();
    let verdicts: Vec<&str> = recs
        .iter()
        .map(|r| r["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["sound", "sound", "unsound", "invalid"]);
    assert_eq!(recs[0]["bracket"], recs[1]["bracket"]);
    assert_eq!(recs[0]["reason"], recs[1]["reason"]);
    assert!(recs[3]["reason"]
        .as_str()
        .unwrap()
        .starts_with("invalid sigmaa: "));
}
