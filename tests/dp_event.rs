//! dp_accounting DpEvent JSON → dpcert's event tree (`src/dp_event.rs`).
//!
//! References: the event trees are built independently with the `Event` builders (not the
//! mapping), and the audits are compared with audits of the equivalent TOML deployment file,
//! parsed by `deploy` (no DpEvent code involved). Refusals must name the refused class.
use dpcert::audit::audit;
use dpcert::deploy::Deployment;
use dpcert::dp_event::{parse, to_event};
use dpcert::event::Event;
use dpcert::Error;
use serde_json::{json, Value};

fn gaussian(s: Value) -> Value {
    json!({"module_name": "dp_accounting.dp_event", "class_name": "GaussianDpEvent", "noise_multiplier": s})
}

fn dpsgd(q: &str, s: &str, steps: u64) -> Value {
    json!({"class_name": "SelfComposedDpEvent", "count": steps, "event":
        {"class_name": "PoissonSampledDpEvent", "sampling_probability": q, "event": gaussian(json!(s))}})
}

#[test]
fn each_class_maps_to_the_event_the_builders_make() {
    let cases: Vec<(Value, Event)> = vec![
        (gaussian(json!(1.1)), Event::gaussian("1.1").unwrap()),
        (
            json!({"class_name": "LaplaceDpEvent", "noise_multiplier": "2"}),
            Event::laplace("2").unwrap(),
        ),
        (
            json!({"class_name": "EpsilonDeltaDpEvent", "epsilon": 0.5, "delta": "1e-7"}),
            Event::epsilon_delta("0.5", "1e-7").unwrap(),
        ),
        (
            json!({"class_name": "ZCDpEvent", "rho": "0.01", "xi": 0.0}),
            Event::zcdp("0.01").unwrap(),
        ),
        (
            dpsgd("256/60000", "1.1", 14063),
            Event::gaussian("1.1")
                .unwrap()
                .poisson_sampled("256/60000")
                .unwrap()
                .self_composed(14063)
                .unwrap(),
        ),
        (json!({"class_name": "NoOpDpEvent"}), Event::NoOp),
        (
            json!({"class_name": "SampledWithoutReplacementDpEvent", "source_dataset_size": 1000,
                "sample_size": 10, "event": gaussian(json!(2))}),
            Event::gaussian("2")
                .unwrap()
                .fixed_size_sampled(10, 1000)
                .unwrap(),
        ),
        // identical events of a composition are one self-composition (composition commutes)
        (
            json!({"class_name": "ComposedDpEvent", "events": [gaussian(json!(3)), {"class_name": "NoOpDpEvent"},
                gaussian(json!("3.0")), {"class_name": "LaplaceDpEvent", "noise_multiplier": 1}]}),
            Event::Composed(vec![
                Event::gaussian("3").unwrap().self_composed(2).unwrap(),
                Event::laplace("1").unwrap(),
            ]),
        ),
    ];
    for (dp, want) in cases {
        assert_eq!(to_event(&dp).unwrap(), want, "{dp}");
    }
}

/// The audit of a dp-event file equals the audit of the equivalent TOML file.
#[test]
fn dp_event_file_audits_like_the_equivalent_toml() {
    let ev = json!({"budget": {"delta": "1e-6", "epsilon": 1}, "claim": {"epsilon": "2", "delta": "1e-6"},
        "event": {"class_name": "ComposedDpEvent", "events": [
            {"class_name": "SelfComposedDpEvent", "count": 52, "event": gaussian(json!(8))},
            {"class_name": "SelfComposedDpEvent", "count": 52, "event": gaussian(json!("8"))}]}});
    let toml = r#"
        [budget]
        delta = "1e-6"
        epsilon = 1
        [claim]
        epsilon = 2
        delta = "1e-6"
        [[mechanism]]
        type = "gaussian"
        sigma = 8
        repeat = 104
    "#;
    let a = audit(&parse(&ev.to_string()).unwrap()).unwrap().to_json();
    let b = audit(&Deployment::parse(toml, false).unwrap())
        .unwrap()
        .to_json();
    for key in ["epsilon", "delta", "route", "claim"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    // and the numbers are the exact Gaussian composition's two-sided ones (refuting the claim)
    assert_eq!(a["claim"]["verdict"], "refuted");
}

#[test]
fn events_dpcert_cannot_certify_are_refused_by_name() {
    let cases = [
        (
            json!({"class_name": "NonPrivateDpEvent"}),
            "NonPrivateDpEvent",
        ),
        (
            json!({"class_name": "RandomizedResponseDpEvent", "noise_parameter": 0, "num_buckets": 2}),
            "RandomizedResponseDpEvent",
        ),
        (
            json!({"class_name": "RandomizedResponseDpEvent", "noise_parameter": 1.5, "num_buckets": 2}),
            "noise_parameter",
        ),
        (
            json!({"class_name": "DiscreteLaplaceDpEvent", "noise_parameter": 0, "sensitivity": 1}),
            "noise_parameter",
        ),
        (
            json!({"class_name": "DiscreteLaplaceDpEvent", "noise_parameter": 1, "sensitivity": 1.5}),
            "sensitivity",
        ),
        (
            json!({"class_name": "UnsupportedDpEvent"}),
            "UnsupportedDpEvent",
        ),
        // read and checked (a missing field is named), then referred to the command that
        // certifies it for a whole run
        (
            json!({"class_name": "TruncatedSubsampledGaussianDpEvent", "dataset_size": 10}),
            "sampling_probability",
        ),
        (
            json!({"class_name": "TruncatedSubsampledGaussianDpEvent", "dataset_size": 60000,
                   "sampling_probability": 0.01, "truncated_batch_size": 800, "noise_multiplier": 1.1}),
            "TruncatedSubsampledGaussianDpEvent is not supported: its certified bound adds the truncation probability as η(1 + e^ε)",
        ),
        (
            json!({"class_name": "TruncatedSubsampledGaussianDpEvent", "dataset_size": 60000,
                   "sampling_probability": 0.01, "truncated_batch_size": 800, "noise_multiplier": 1.1}),
            "dpcert dpsgd --sampling truncated-poisson --rate 0.01 --sigma 1.1 --dataset-size 60000 --max-batch-size 800",
        ),
        (
            json!({"class_name": "ComposedDpEvent", "events": [gaussian(json!(1)), {"class_name": "NonPrivateDpEvent"}]}),
            "event.events[1]",
        ),
        (gaussian(json!(0)), "noise_multiplier"),
        (gaussian(json!("NaN")), "noise_multiplier"),
        (json!({"noise_multiplier": 1}), "class_name"),
        (
            json!({"class_name": "SelfComposedDpEvent", "count": 2.5, "event": gaussian(json!(1))}),
            "count",
        ),
    ];
    for (dp, needle) in cases {
        match to_event(&dp) {
            Err(Error::InvalidArgument { name, reason }) => {
                let msg = format!("{name}: {reason}");
                assert!(msg.contains(needle), "{msg} lacks {needle}");
            }
            other => panic!("{dp} gave {other:?}"),
        }
    }
    // what maps but no route certifies is refused by the audit, by name
    for (dp, needle) in [
        (
            json!({"class_name": "PoissonSampledDpEvent", "sampling_probability": "0.1",
                "event": {"class_name": "LaplaceDpEvent", "noise_multiplier": 1}}),
            "Poisson subsampling of a laplace",
        ),
        (
            json!({"class_name": "SampledWithoutReplacementDpEvent", "source_dataset_size": 100,
                "sample_size": 10, "event": {"class_name": "LaplaceDpEvent", "noise_multiplier": 1}}),
            "fixed-size subsampling of a laplace",
        ),
    ] {
        let file = json!({"budget": {"delta": "1e-6"}, "event": dp}).to_string();
        let err = parse(&file)
            .and_then(|d| audit(&d))
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle), "{err}");
    }
}

#[test]
fn file_errors_name_the_section() {
    let bad = [
        (r#"{"event": {"class_name": "NoOpDpEvent"}}"#, "[budget]"),
        (
            r#"{"budget": {"delta": 2}, "event": {"class_name": "NoOpDpEvent"}}"#,
            "budget delta",
        ),
        (
            r#"{"budget": {"delta": "1e-6"}, "claim": {"epsilon": 1}, "event": {"class_name": "NoOpDpEvent"}}"#,
            "[claim] delta",
        ),
        (
            r#"{"budget": {"delta": "1e-6"}, "events": []}"#,
            "unknown key",
        ),
        (r#"{"budget": {"delta": "1e-6"}}"#, "event"),
        ("[1, 2]", "FILE"),
        ("{", "JSON syntax"),
    ];
    for (text, needle) in bad {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text}: {e}");
    }
}

#[test]
fn cli_audits_a_dp_event_file() {
    let dir = std::env::temp_dir().join(format!("dpcert-dp-event-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("events.json");
    let file = json!({"budget": {"epsilon": "1"}, "claim": {"epsilon": "1", "delta": "0.5"},
        "event": {"class_name": "SelfComposedDpEvent", "count": 3, "event": gaussian(json!(2))}});
    std::fs::write(&path, file.to_string()).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dpcert"))
            .args(args)
            .output()
            .unwrap()
    };
    let p = path.to_str().unwrap();
    let out = run(&["audit", p, "--format", "dp-event", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let toml = dir.join("same.toml");
    std::fs::write(&toml, "[budget]\nepsilon = 1\n[claim]\nepsilon = 1\ndelta = 0.5\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 2\nrepeat = 3\n").unwrap();
    let w: Value =
        serde_json::from_slice(&run(&["audit", toml.to_str().unwrap(), "--json"]).stdout).unwrap();
    assert_eq!(v["result"]["delta"], w["result"]["delta"]);
    assert_eq!(v["result"]["claim"]["verdict"], "verified");
    // a deployment read as a dp-event file, or an unknown format: bad input (exit 2)
    assert_eq!(
        run(&["audit", toml.to_str().unwrap(), "--format", "dp-event"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["audit", p, "--format", "yaml"]).status.code(),
        Some(2)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The discrete and irrational-parameter classes of issue 28 map onto their events: the
/// discrete Laplace and a univariate discrete Gaussian exactly, a discrete Gaussian of unknown
/// dimension as its ρ-zCDP black box, k-ary randomized response by (p, k) (one bucket: no-op),
/// ZCDpEvent with ξ ≠ 0 as (ξ, ρ)-zCDP — whose audit is the ρ conversion raised by ξ.
#[test]
fn discrete_and_irrational_classes_map_and_audit() {
    use dpcert::num::Precision;
    use dpcert::theorems::zcdp::zcdp_epsilon;
    let q = |s: &str| dpcert::num::parse_exact(s).unwrap();
    let ev = |v: serde_json::Value| to_event(&v).unwrap();
    assert_eq!(
        ev(
            json!({"class_name": "DiscreteLaplaceDpEvent", "noise_parameter": 0.25, "sensitivity": 3})
        ),
        Event::discrete_laplace("0.25", 3).unwrap()
    );
    assert_eq!(
        ev(
            json!({"class_name": "DiscreteGaussianDpEvent", "sigma": 1.5, "sensitivity": 2, "dimension": 1})
        ),
        Event::discrete_gaussian("2.25", 2).unwrap()
    );
    assert_eq!(
        ev(json!({"class_name": "DiscreteGaussianDpEvent", "sigma": 2, "sensitivity": 1})),
        Event::zcdp("1/8").unwrap()
    );
    assert_eq!(
        ev(
            json!({"class_name": "RandomizedResponseDpEvent", "noise_parameter": 0.5, "num_buckets": 4})
        ),
        Event::kary_randomized_response("0.5", 4).unwrap()
    );
    assert_eq!(
        ev(
            json!({"class_name": "RandomizedResponseDpEvent", "noise_parameter": 0.5, "num_buckets": 1})
        ),
        Event::NoOp
    );
    assert_eq!(
        ev(json!({"class_name": "ZCDpEvent", "rho": 0.5, "xi": 0})),
        Event::zcdp("0.5").unwrap()
    );
    let shifted = json!({"budget": {"delta": "1e-6"},
        "event": {"class_name": "ZCDpEvent", "rho": 0.5, "xi": 0.25}});
    let r = audit(&parse(&shifted.to_string()).unwrap()).unwrap();
    let z = r
        .routes
        .iter()
        .find(|x| x.id == dpcert::audit::RouteId::Zcdp)
        .unwrap();
    let got = z.epsilon.as_ref().unwrap().upper().to_float();
    let plain = zcdp_epsilon(&q("0.5"), &q("1e-6"), Precision::Auto).unwrap();
    let want = rug::Float::with_val(256, plain.upper().as_float() + 0.25f64);
    assert!(
        got >= want && got.to_f64() - want.to_f64() < 1e-12,
        "{got} vs {want}"
    );
}
