//! A query as a JSON request (`request::query_envelope_json`, `request::calibrate_envelope_json`, what
//! the Python package calls) gives the envelope `dpcert ARGS --json` prints, byte for byte, for
//! every single-value command and `calibrate`; a bad request is an error naming its key.
mod common;
use common::run;
use dpcert::request::{calibrate_envelope_json, query_envelope_json, subsample_envelope_json};
use dpcert::Error;
use serde_json::{json, Value};

/// The request for a command line: the command words as `command` (and `subcommand`), each
/// flag's long name with underscores as a key, its text as the value (`true` for a switch, a
/// list for `--phase`).
fn request(args: &[&str]) -> Value {
    let words: Vec<&str> = args
        .iter()
        .take_while(|a| !a.starts_with("--"))
        .copied()
        .collect();
    let mut v = json!({"command": words[0]});
    if let Some(s) = words.get(1) {
        v["subcommand"] = json!(s);
    }
    let mut rest = args[words.len()..].iter().peekable();
    while let Some(flag) = rest.next() {
        let key = flag.trim_start_matches("--").replace('-', "_");
        match rest.peek() {
            Some(x) if !x.starts_with("--") => {
                let x = rest.next().unwrap().to_string();
                if key == "phase" {
                    let list = v.get_mut("phase").and_then(Value::as_array_mut);
                    match list {
                        Some(l) => l.push(json!(x)),
                        None => v["phase"] = json!([x]),
                    }
                } else {
                    v[key] = json!(x);
                }
            }
            _ => v[key] = json!(true),
        }
    }
    v
}

/// `dpcert ARGS --json`'s envelope (exit 0).
fn cli(args: &[&str]) -> Value {
    let mut argv = args.to_vec();
    argv.push("--json");
    let (code, out, err) = run(&argv);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

const QUERIES: &[&[&str]] = &[
    &["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"],
    &[
        "gaussian",
        "epsilon",
        "--sigma",
        "2",
        "--delta",
        "1e-5",
        "--compositions",
        "10",
        "--sensitivity",
        "1/2",
        "--precision",
        "128",
    ],
    &["gaussian", "sigma", "--epsilon", "1", "--delta", "1e-5"],
    &["zcdp", "delta", "--rho", "0.125", "--epsilon", "1"],
    &["zcdp", "epsilon", "--rho", "0.125", "--delta", "1e-5"],
    &[
        "compose",
        "pure",
        "--epsilon",
        "0.1",
        "--count",
        "100",
        "--delta",
        "1e-6",
    ],
    &[
        "compose",
        "approx",
        "--epsilon",
        "0.1",
        "--delta-each",
        "1e-8",
        "--count",
        "100",
        "--delta",
        "1e-6",
    ],
    &[
        "rdp",
        "subsampled-gaussian",
        "--rate",
        "0.01",
        "--sigma",
        "1",
        "--steps",
        "100",
        "--order",
        "7.5",
    ],
    &[
        "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--delta", "1e-5",
    ],
    &[
        "dpsgd",
        "--batch-size",
        "256",
        "--dataset-size",
        "60000",
        "--epochs",
        "1",
        "--noise-multiplier",
        "1.1",
        "--delta",
        "1e-5",
        "--method",
        "rdp",
    ],
    &[
        "dpsgd",
        "--phase",
        "0.01,1,50",
        "--phase",
        "0.02,2,50",
        "--delta",
        "1e-5",
    ],
    &[
        "dpsgd",
        "--rate",
        "0.01",
        "--sigma",
        "1",
        "--steps",
        "100",
        "--epsilon",
        "2",
    ],
    &[
        "dpsgd",
        "--rate",
        "1/100",
        "--sigma",
        "2",
        "--steps",
        "40",
        "--delta",
        "1e-5",
        "--sampling",
        "shuffled",
    ],
    // the samplers of `theorems::random_allocation`, ε at δ and δ at ε
    &[
        "dpsgd",
        "--sampling",
        "balls-and-bins",
        "--steps-per-epoch",
        "16",
        "--epochs",
        "2",
        "--sigma",
        "1",
        "--delta",
        "1e-5",
    ],
    &[
        "dpsgd",
        "--sampling",
        "random-allocation",
        "--uses-per-epoch",
        "2",
        "--batch-size",
        "10",
        "--dataset-size",
        "100",
        "--epochs",
        "3",
        "--sigma",
        "2",
        "--epsilon",
        "1",
    ],
    &[
        "dpsgd",
        "--sampling",
        "truncated-poisson",
        "--rate",
        "0.01",
        "--dataset-size",
        "10000",
        "--steps",
        "50",
        "--sigma",
        "1",
        "--max-batch-size",
        "200",
        "--epsilon",
        "1",
    ],
    &["gdp", "gaussian", "--sigma", "2", "--compositions", "4"],
    &[
        "gdp", "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100",
    ],
    &["tradeoff", "gaussian", "--sigma", "2", "--fpr", "0.05"],
    &[
        "tradeoff", "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--fpr", "0.05",
    ],
];

const CALIBRATIONS: &[&[&str]] = &[
    &[
        "calibrate",
        "gaussian",
        "--target-epsilon",
        "1",
        "--delta",
        "1e-5",
        "--compositions",
        "3",
    ],
    &[
        "calibrate",
        "dpsgd",
        "--target-epsilon",
        "2",
        "--delta",
        "1e-5",
        "--rate",
        "0.01",
        "--steps",
        "100",
        "--method",
        "rdp",
    ],
    &[
        "calibrate",
        "dpsgd",
        "--target-epsilon",
        "2",
        "--delta",
        "1e-5",
        "--rate",
        "0.01",
        "--steps",
        "50",
    ],
];

#[test]
fn a_request_gives_the_command_lines_envelope() {
    for args in QUERIES {
        let got = query_envelope_json(&request(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(got, cli(args), "{args:?}");
    }
    for args in CALIBRATIONS {
        let got =
            calibrate_envelope_json(&request(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(got, cli(args), "{args:?}");
    }
}

#[test]
fn the_request_shape_is_the_documented_one() {
    // written out by hand: the helper above is not the only witness of the shape
    let r = json!({"command": "dpsgd", "rate": "0.01", "noise_multiplier": "1",
                   "steps": "100", "delta": "1e-5", "method": "rdp", "group_size": "1",
                   "grid": null, "phase": []});
    let args = [
        "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--delta", "1e-5", "--method",
        "rdp",
    ];
    assert_eq!(query_envelope_json(&r).unwrap(), cli(&args));
    let r = json!({"command": "compose", "subcommand": "approx", "epsilon": "0.1",
                   "delta_each": "1e-8", "count": "100", "delta": "1e-6"});
    assert_eq!(query_envelope_json(&r).unwrap(), cli(QUERIES[6]));
}

/// The key a refused request names.
fn refused(r: Value) -> String {
    match query_envelope_json(&r) {
        Err(Error::InvalidArgument { name, reason }) => {
            assert!(!reason.is_empty());
            name
        }
        other => panic!("{r}: expected an invalid argument, got {other:?}"),
    }
}

#[test]
fn a_bad_request_names_its_key() {
    let base = json!({"command": "gaussian", "subcommand": "delta", "sigma": "1",
                      "epsilon": "0.5"});
    let with = |k: &str, v: Value| {
        let mut r = base.clone();
        r[k] = v;
        r
    };
    let without = |k: &str| {
        let mut r = base.clone();
        r.as_object_mut().unwrap().remove(k);
        r
    };
    for (r, key) in [
        (with("sigmaa", json!("1")), "sigmaa"),
        (with("sigma", json!(1)), "sigma"),
        (with("sigma", json!(null)), "sigma"),
        (with("sigma", json!("abc")), "sigma"),
        (with("sigma", json!("-1")), "sigma"),
        (with("compositions", json!("2.5")), "compositions"),
        (with("sensitivity", json!(["1"])), "sensitivity"),
        (with("precision", json!("3")), "precision"),
        (with("digits", json!("4")), "digits"),
        (with("json", json!(true)), "json"),
        (with("command", json!("nope")), "command"),
        (with("command", json!(7)), "command"),
        (with("subcommand", json!("nope")), "subcommand"),
        (with("command", json!("audit")), "command"),
        (with("command", json!("calibrate")), "subcommand"),
        (without("epsilon"), "epsilon"),
        (without("command"), "command"),
        (without("subcommand"), "subcommand"),
        (json!(["gaussian", "delta"]), "request"),
    ] {
        assert_eq!(refused(r.clone()), key, "{r}");
    }
    let dpsgd = json!({"command": "dpsgd", "rate": "0.01", "sigma": "1", "steps": "10",
                       "delta": "1e-5"});
    let with = |k: &str, v: Value| {
        let mut r = dpsgd.clone();
        r[k] = v;
        r
    };
    for (r, key) in [
        (with("tight", json!("yes")), "tight"),
        (with("phase", json!("0.01,1,5")), "phase"),
        (with("phase", json!([1])), "phase"),
        (with("batch_size", json!("256")), "rate"), // conflicts with --rate
        (with("delta_each", json!("1e-8")), "delta_each"),
        (with("subcommand", json!("x")), "subcommand"),
        (with("plot", json!("x.svg")), "plot"),
        (with("epsilon", json!("1")), "delta"), // δ at ε or ε at δ, not both
        (with("method", json!("magic")), "method"),
        (with("group_size", json!("0")), "group_size"),
    ] {
        assert_eq!(refused(r.clone()), key, "{r}");
    }
    let mut neither = dpsgd.clone();
    neither.as_object_mut().unwrap().remove("delta");
    assert_eq!(refused(neither), "delta");
    // calibrate is not a single-value query, nor a query a calibration
    let cal = request(CALIBRATIONS[0]);
    assert_eq!(refused(cal.clone()), "command");
    assert!(matches!(
        calibrate_envelope_json(&base),
        Err(Error::InvalidArgument { name, .. }) if name == "command"
    ));
    let mut bad = cal;
    bad["target_epsilon"] = json!("-1");
    assert!(matches!(
        calibrate_envelope_json(&bad),
        Err(Error::InvalidArgument { name, .. }) if name == "target_epsilon"
    ));
}

#[test]
fn a_bad_value_is_refused_by_both_faces_naming_the_same_flag() {
    let args = [
        "compose",
        "approx",
        "--epsilon",
        "1",
        "--delta-each",
        "2",
        "--count",
        "3",
        "--delta",
        "1e-5",
    ];
    let (code, _, err) = run(&args);
    assert_eq!(code, 2);
    assert!(err.contains("--delta-each"), "{err}");
    assert_eq!(refused(request(&args)), "delta_each");
}

/// The refusals `dpsgd::route` gives the random-allocation and truncated-Poisson samplers name
/// the same flag on the command line and the same key in a request.
#[test]
fn a_sampler_refusal_names_the_same_flag_in_both_faces() {
    let run_flags = [
        "dpsgd",
        "--sampling",
        "balls-and-bins",
        "--steps-per-epoch",
        "8",
        "--epochs",
        "1",
        "--sigma",
        "1",
        "--delta",
        "1e-5",
    ];
    for (extra, key) in [
        (&["--relation", "substitution"][..], "relation"),
        (&["--group-size", "2"][..], "group_size"),
        (&["--grid", "0.001"][..], "grid"),
        (&["--method", "rdp"][..], "method"),
    ] {
        let args: Vec<&str> = run_flags.iter().chain(extra).copied().collect();
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains(&format!("--{}", key.replace('_', "-"))),
            "{err}"
        );
        assert_eq!(refused(request(&args)), key, "{args:?}");
    }
    let truncated = [
        "dpsgd",
        "--sampling",
        "truncated-poisson",
        "--rate",
        "0.1",
        "--steps",
        "3",
        "--dataset-size",
        "100",
        "--sigma",
        "1",
        "--epsilon",
        "1",
    ];
    assert_eq!(refused(request(&truncated)), "max_batch_size");
}

/// `dpcert subsample` (not a single-value query: two quantities) has a request form of its own,
/// `request::subsample_envelope_json`: the command line's envelope byte for byte, and a bad request
/// names its key.
#[test]
fn a_subsample_request_gives_the_command_lines_envelope() {
    let lines: &[&[&str]] = &[
        &[
            "subsample",
            "--epsilon",
            "1",
            "--delta",
            "1e-6",
            "--rate",
            "0.01",
            "--scheme",
            "poisson",
        ],
        &[
            "subsample",
            "--epsilon",
            "0.5",
            "--delta",
            "0",
            "--rate",
            "1/100",
            "--scheme",
            "without-replacement",
            "--relation",
            "substitution",
            "--precision",
            "128",
        ],
    ];
    for args in lines {
        let got =
            subsample_envelope_json(&request(args)).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert_eq!(got, cli(args), "{args:?}");
    }
    // written out by hand: the shape, with the relation left to its default
    let r = json!({"command": "subsample", "epsilon": "1", "delta": "1e-6", "rate": "0.01",
                   "scheme": "poisson", "relation": null});
    assert_eq!(subsample_envelope_json(&r).unwrap(), cli(lines[0]));
    let base = request(lines[0]);
    let with = |k: &str, v: Value| {
        let mut r = base.clone();
        r[k] = v;
        r
    };
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("scheme");
    for (r, key) in [
        (with("epsilon", json!("-1")), "epsilon"),
        (with("rate", json!("2")), "rate"),
        (with("rate", json!(0.01)), "rate"),
        (with("scheme", json!("bernoulli")), "scheme"),
        (with("relation", json!("swap")), "relation"),
        (with("steps", json!("3")), "steps"),
        (with("subcommand", json!("delta")), "subcommand"),
        (missing, "scheme"),
    ] {
        match subsample_envelope_json(&r) {
            Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, key, "{r}"),
            other => panic!("{r}: expected an invalid argument, got {other:?}"),
        }
    }
    // a subsample request is not a single-value query, nor a query a subsample request
    assert_eq!(refused(base), "command");
    assert!(matches!(
        subsample_envelope_json(&json!({"command": "gaussian", "subcommand": "delta",
                                        "sigma": "1", "epsilon": "0.5"})),
        Err(Error::InvalidArgument { name, .. }) if name == "command"
    ));
}
