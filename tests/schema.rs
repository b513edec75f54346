//! Every command's `--json` output, on success and on error, validates against the shipped
//! schema `schema/dpcert-1.schema.json`, and the exit code follows `dpcert::exit`. The
//! schema is the independent reference here: it is written by hand from the contract, not
//! generated from the code, and a negative test shows it rejects outputs that break the
//! contract (a missing key, a wrong kind, a number instead of a decimal string).
mod common;
use common::run;
use dpcert::exit;
use serde_json::Value;

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str, text: &str) -> String {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-schema-{name}-{}", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Run `args` (plus `--json`), check the exit code, validate the one envelope printed and
/// return it. On error the message is also on stderr.
fn envelope(v: &jsonschema::Validator, args: &[&str], code: i32) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (got, out, err) = run(&a);
    assert_eq!(got, code, "{args:?}: exit {got}, stderr {err}");
    assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
    let env: Value = serde_json::from_str(&out).unwrap();
    let errors = common::schema_errors(v, &env);
    assert!(errors.is_empty(), "{args:?}: {errors:#?}\n{out}");
    if code == exit::BAD_INPUT || code == exit::NUMERICAL {
        assert_eq!(env["error"]["code"], code, "{out}");
        assert!(
            err.trim().lines().count() == 1 && !err.contains("panicked"),
            "{args:?}: {err}"
        );
        assert!(env["result"].is_null());
    } else {
        assert!(env["error"].is_null() && env["result"].is_object(), "{out}");
    }
    env
}

const GD: [&str; 6] = ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"];

#[test]
fn every_query_command_validates() {
    let v = common::schema_validator();
    let ok: Vec<Vec<&str>> = vec![
        GD.to_vec(),
        vec![
            "gaussian",
            "epsilon",
            "--sigma",
            "2",
            "--delta",
            "1e-5",
            "--compositions",
            "10",
        ],
        vec!["gaussian", "sigma", "--epsilon", "1", "--delta", "1e-5"],
        vec!["zcdp", "delta", "--rho", "0.125", "--epsilon", "1"],
        vec!["zcdp", "delta", "--rho", "2", "--epsilon", "1"],
        vec!["zcdp", "epsilon", "--rho", "0.125", "--delta", "1e-5"],
        vec![
            "gdp",
            "dpsgd",
            "--rate",
            "256/60000",
            "--sigma",
            "1.1",
            "--steps",
            "14063",
        ],
        vec![
            "gdp", "dpsgd", "--rate", "1", "--sigma", "2", "--steps", "16",
        ],
        vec![
            "compose",
            "pure",
            "--epsilon",
            "0.1",
            "--count",
            "100",
            "--delta",
            "1e-5",
        ],
        vec![
            "compose",
            "approx",
            "--epsilon",
            "0.1",
            "--delta-each",
            "1e-8",
            "--count",
            "100",
            "--delta",
            "1e-5",
        ],
        vec![
            "rdp",
            "subsampled-gaussian",
            "--rate",
            "0.01",
            "--sigma",
            "1",
            "--steps",
            "100",
            "--order",
            "8",
        ],
        vec![
            "dpsgd", "--rate", "0.01", "--sigma", "1.5", "--steps", "300", "--delta", "1e-5",
        ],
        vec![
            "dpsgd", "--rate", "0.01", "--sigma", "1.5", "--steps", "300", "--delta", "1e-5",
            "--method", "rdp",
        ],
        vec![
            "dpsgd",
            "--rate",
            "0.01",
            "--sigma",
            "1.5",
            "--steps",
            "300",
            "--delta",
            "1e-5",
            "--relation",
            "substitution",
        ],
        vec![
            "dpsgd",
            "--rate",
            "0.01",
            "--sigma",
            "1.5",
            "--steps",
            "30",
            "--delta",
            "1e-5",
            "--group-size",
            "2",
            "--user-sampling",
            "examples",
        ],
        vec![
            "dpsgd",
            "--rate",
            "0.01",
            "--sigma",
            "1.5",
            "--steps",
            "30",
            "--delta",
            "1e-5",
            "--group-size",
            "2",
            "--method",
            "rdp",
        ],
        vec![
            "dpsgd",
            "--batch-size",
            "10",
            "--dataset-size",
            "1000",
            "--epochs",
            "2",
            "--sigma",
            "1.5",
            "--delta",
            "1e-5",
        ],
        vec![
            "dpsgd",
            "--phase",
            "1/100,1.5,100",
            "--phase",
            "1/50,2,50",
            "--delta",
            "1e-5",
        ],
        vec![
            "dpsgd",
            "--batch-size",
            "100",
            "--dataset-size",
            "10000",
            "--sigma",
            "1.5",
            "--steps",
            "100",
            "--delta",
            "1e-5",
            "--sampling",
            "fixed-size",
            "--relation",
            "substitution",
        ],
        vec![
            "calibrate",
            "dpsgd",
            "--target-epsilon",
            "8",
            "--delta",
            "1e-5",
            "--rate",
            "1",
            "--steps",
            "3",
            "--group-size",
            "2",
            "--user-sampling",
            "examples",
        ],
        vec![
            "calibrate",
            "dpsgd",
            "--target-epsilon",
            "3",
            "--delta",
            "1e-5",
            "--batch-size",
            "100",
            "--dataset-size",
            "10000",
            "--steps",
            "100",
            "--sampling",
            "fixed-size",
            "--relation",
            "substitution",
        ],
        vec![
            "dpsgd",
            "--rate",
            "0.01",
            "--sigma",
            "1.5",
            "--steps",
            "300",
            "--epsilon",
            "0.5",
        ],
        vec![
            "dpsgd",
            "--phase",
            "0.01,1.5,100",
            "--phase",
            "0.02,1,50",
            "--epsilon",
            "1",
        ],
        vec![
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
        vec![
            "subsample",
            "--epsilon",
            "1",
            "--delta",
            "1e-6",
            "--rate",
            "0.01",
            "--scheme",
            "poisson",
            "--relation",
            "substitution",
        ],
    ];
    for args in &ok {
        let env = envelope(&v, args, exit::OK);
        // parameters as data: exactly the strings given
        let input = &env["input"];
        for w in args.windows(2).filter(|w| w[0].starts_with("--")) {
            let key = w[0].trim_start_matches("--").replace('-', "_");
            // a repeatable flag is a list of the strings given
            match &input[&key] {
                Value::Array(a) => assert!(a.iter().any(|x| x == w[1]), "{args:?}: input.{key}"),
                x => assert_eq!(x, w[1], "{args:?}: input.{key}"),
            }
        }
    }
    let bad: Vec<(Vec<&str>, i32)> = vec![
        (
            vec![
                "dpsgd", "--phase", "0.1,1,5", "--rate", "0.1", "--delta", "1e-5",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec!["gaussian", "delta", "--sigma", "-1", "--epsilon", "0.5"],
            exit::BAD_INPUT,
        ),
        (
            vec!["gaussian", "epsilon", "--sigma", "1", "--delta", "1"],
            exit::BAD_INPUT,
        ),
        (
            vec!["gaussian", "sigma", "--epsilon", "x", "--delta", "1e-5"],
            exit::BAD_INPUT,
        ),
        (
            vec!["zcdp", "delta", "--rho", "0", "--epsilon", "1"],
            exit::BAD_INPUT,
        ),
        (
            vec!["zcdp", "epsilon", "--rho", "1", "--delta", "2"],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "compose",
                "pure",
                "--epsilon",
                "1",
                "--count",
                "0",
                "--delta",
                "1e-5",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "compose",
                "approx",
                "--epsilon",
                "1",
                "--delta-each",
                "1",
                "--count",
                "2",
                "--delta",
                "1e-5",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "rdp",
                "subsampled-gaussian",
                "--rate",
                "2",
                "--sigma",
                "1",
                "--steps",
                "1",
                "--order",
                "2",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "10", "--delta", "1e-5",
                "--method", "fft",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "dpsgd",
                "--rate",
                "0.01",
                "--sigma",
                "1",
                "--steps",
                "10",
                "--epsilon",
                "1",
                "--method",
                "rdp",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "dpsgd",
                "--rate",
                "0.01",
                "--sigma",
                "1",
                "--steps",
                "10",
                "--epsilon",
                "-1",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "subsample",
                "--epsilon",
                "1",
                "--delta",
                "0",
                "--rate",
                "0.5",
                "--scheme",
                "bernoulli",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "calibrate",
                "gaussian",
                "--target-epsilon",
                "-1",
                "--delta",
                "1e-5",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "calibrate",
                "dpsgd",
                "--target-epsilon",
                "3",
                "--delta",
                "2",
                "--rate",
                "0.01",
                "--steps",
                "10",
            ],
            exit::BAD_INPUT,
        ),
        (
            vec!["tradeoff", "gaussian", "--sigma", "1", "--fpr", "2"],
            exit::BAD_INPUT,
        ),
        (
            vec![
                "tradeoff", "dpsgd", "--rate", "0", "--sigma", "1", "--steps", "3", "--fpr", "0.1",
            ],
            exit::BAD_INPUT,
        ),
        (vec!["gdp", "gaussian", "--sigma", "0"], exit::BAD_INPUT),
        (
            vec![
                "gdp", "dpsgd", "--rate", "0.01", "--sigma", "-1", "--steps", "3",
            ],
            exit::BAD_INPUT,
        ),
        // clap-level errors: unknown flag (with a suggestion), missing flag, unknown command
        (
            vec!["gaussian", "delta", "--sigma", "1", "--epsilin", "1"],
            exit::BAD_INPUT,
        ),
        (vec!["gaussian", "delta", "--sigma", "1"], exit::BAD_INPUT),
        (vec!["gausian", "delta"], exit::BAD_INPUT),
        // a numerical failure: no bracket of the optimal ε at ε0 = 10¹⁰⁰⁰⁰⁰
        (
            vec![
                "compose",
                "pure",
                "--epsilon",
                "1e100000",
                "--count",
                "2",
                "--delta",
                "0.5",
            ],
            exit::NUMERICAL,
        ),
    ];
    for (args, code) in &bad {
        envelope(&v, args, *code);
    }
    let (_, _, err) = run(&["gaussian", "delta", "--sigma", "1", "--epsilin", "1"]);
    assert!(err.contains("--epsilon"), "the suggestion is kept: {err}");
}

#[test]
fn file_commands_validate_and_audit_exits_by_verdict() {
    let v = common::schema_validator();
    // a verified claim exits 0, a refuted one 1
    let verified = envelope(&v, &["audit", &example("laplace-dashboard.toml")], exit::OK);
    let refuted = envelope(
        &v,
        &["audit", &example("weekly-health-benefits.toml")],
        exit::REFUTED,
    );
    assert_eq!(verified["result"]["verdict"], "verified");
    assert_eq!(refuted["result"]["verdict"], "refuted");
    // a shuffled DP-SGD run: the shuffled bound is an upper bound only, so the (3, 1e-5)
    // claim below it is undecided, never refuted
    let shuffled = envelope(
        &v,
        &["audit", &example("dpsgd-shuffled.toml")],
        exit::UNDECIDED,
    );
    assert_eq!(shuffled["result"]["verdict"], "undecided");
    // a substitution run: one route, a two-sided ε, the claim decided from ε at δ_c
    let sub = envelope(
        &v,
        &["audit", &example("dpsgd-substitution.toml")],
        exit::OK,
    );
    assert_eq!(sub["result"]["epsilon_route"], "substitution");
    assert_eq!(sub["result"]["mechanisms"][0]["relation"], "substitution");
    assert!(sub["result"]["claim"]["delta_at_claimed_epsilon"].is_null());
    let cal = envelope(
        &v,
        &[
            "audit",
            &example("dpsgd-shuffled.toml"),
            "--calibrate",
            "sigma",
        ],
        exit::OK,
    );
    assert_eq!(cal["result"]["calibration"]["parameter"], "sigma");
    assert_eq!(cal["input"]["calibrate"], "sigma");
    let no_claim = temp(
        "noclaim.toml",
        "[budget]\ndelta = \"1e-6\"\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 4\n",
    );
    let e = envelope(&v, &["audit", &no_claim], exit::OK);
    assert!(e["result"]["claim"].is_null() && e["result"]["verdict"] == "no-claim");
    envelope(
        &v,
        &["audit", "/nonexistent/deployment.toml"],
        exit::BAD_INPUT,
    );
    // check: sound only → 0; unsound → 1; undecided alone → 4; a bad file → 2
    let rec = |value: &str| {
        format!(
            r#"[{{"query": ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"], "value": "{value}"}}]"#
        )
    };
    let sound = temp("sound.json", &rec("0.3"));
    let unsound = temp("unsound.json", &rec("0.2"));
    let e = envelope(&v, &["check", &sound], exit::OK);
    assert_eq!(e["result"]["records"][0]["verdict"], "sound");
    let e = envelope(&v, &["check", &unsound], exit::REFUTED);
    assert_eq!(e["result"]["records"][0]["verdict"], "unsound");
    // invalid records next to valid ones: 1; nothing but invalid records: bad input (2), the
    // records still reported in the result
    let mixed = temp(
        "mixed.json",
        &format!(
            r#"[{{"query": ["audit"], "value": "1"}}, {}"#,
            &rec("0.3")[1..]
        ),
    );
    let e = envelope(&v, &["check", &mixed], exit::REFUTED);
    assert_eq!(e["result"]["records"][0]["verdict"], "invalid");
    let invalid = temp("invalid.json", r#"[{"query": ["audit"], "value": "1"}]"#);
    let (code, out, _) = run(&["check", &invalid, "--json"]);
    assert_eq!(code, exit::BAD_INPUT);
    let e: Value = serde_json::from_str(&out).unwrap();
    assert!(v.is_valid(&e), "{out}");
    assert_eq!(e["result"]["summary"]["invalid"], 1);
    let not_list = temp("notlist.json", r#"{"query": []}"#);
    envelope(&v, &["check", &not_list], exit::BAD_INPUT);
}

#[test]
fn vectors_validate() {
    let v = common::schema_validator();
    let env = envelope(&v, &["vectors"], exit::OK);
    assert!(env["result"]["vectors"].as_array().unwrap().len() >= 200);
}

/// One way to break an envelope.
type Breakage = Box<dyn Fn(&mut Value)>;

/// The schema is not vacuous: outputs that break the contract are rejected.
#[test]
fn schema_rejects_broken_outputs() {
    let v = common::schema_validator();
    let mut a = GD.to_vec();
    a.push("--json");
    let (_, out, _) = run(&a);
    let good: Value = serde_json::from_str(&out).unwrap();
    assert!(v.is_valid(&good));
    let broken: Vec<Breakage> = vec![
        Box::new(|e| {
            e["result"]["value"]
                .as_object_mut()
                .unwrap()
                .remove("lower");
        }),
        Box::new(|e| e["result"]["value"]["kind"] = "exact".into()),
        Box::new(|e| e["result"]["value"]["upper"] = 0.25.into()),
        Box::new(|e| e["schema"] = "dpcert/2".into()),
        Box::new(|e| {
            e.as_object_mut().unwrap().remove("error");
        }),
        Box::new(|e| e["input"]["sigma"] = 1.into()),
        Box::new(|e| {
            e["error"] = serde_json::json!({"code": 2, "kind": "bad-input", "message": "x"})
        }),
        Box::new(|e| e["result"]["details"] = serde_json::json!({})),
        Box::new(|e| e["command"] = "gaussian".into()),
    ];
    for (i, f) in broken.iter().enumerate() {
        let mut e = good.clone();
        f(&mut e);
        assert!(!v.is_valid(&e), "broken output {i} was accepted: {e}");
    }
}

/// The random-allocation and truncated-Poisson samplers of `dpsgd` (their input flags and result
/// details), answers and refusals, validate.
#[test]
fn allocated_samplers_validate() {
    let v = common::schema_validator();
    for (args, code) in [
        (
            vec![
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
            exit::OK,
        ),
        (
            vec![
                "dpsgd",
                "--sampling",
                "random-allocation",
                "--steps-per-epoch",
                "10",
                "--uses-per-epoch",
                "3",
                "--epochs",
                "2",
                "--sigma",
                "2",
                "--epsilon",
                "1",
            ],
            exit::OK,
        ),
        (
            vec![
                "dpsgd",
                "--sampling",
                "truncated-poisson",
                "--batch-size",
                "256",
                "--dataset-size",
                "60000",
                "--steps",
                "100",
                "--sigma",
                "1.1",
                "--max-batch-size",
                "400",
                "--delta",
                "1e-5",
            ],
            exit::OK,
        ),
        (
            vec![
                "dpsgd",
                "--sampling",
                "random-allocation",
                "--steps-per-epoch",
                "3",
                "--uses-per-epoch",
                "4",
                "--epochs",
                "2",
                "--sigma",
                "1",
                "--delta",
                "1e-5",
            ],
            exit::BAD_INPUT,
        ),
    ] {
        let env = envelope(&v, &args, code);
        if code == exit::OK {
            assert!(env["result"]["value"]["kind"] == "two-sided", "{env}");
        }
    }
}
