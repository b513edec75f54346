//! dp_accounting DpEvent JSON → dpcert's event tree (`src/dp_event.rs`).
//!
//! References: the event trees are built independently with the `Event` builders (not the
//! mapping), and the audits are compared with audits of the equivalent TOML deployment file,
//! parsed by `deploy` (no DpEvent code involved). Refusals must name the refused class.
mod common;
use common::{gaussian_delta, golden_argmin, rational, REF};
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
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-dp-event-{}", std::process::id()));
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
    let rational = |s: &str| dpcert::num::parse_exact(s).unwrap();
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
    let plain = zcdp_epsilon(&rational("0.5"), &rational("1e-6"), Precision::Auto).unwrap();
    let want = rug::Float::with_val(256, plain.upper().as_float() + 0.25f64);
    assert!(
        got >= want && got.to_f64() - want.to_f64() < 1e-12,
        "{got} vs {want}"
    );
}

fn audit_event_at_epsilon(ev: Value, eps: &str) -> dpcert::audit::Report {
    let file = json!({"budget": {"epsilon": eps}, "event": ev});
    audit(&parse(&file.to_string()).unwrap()).unwrap()
}

/// Tree aggregation over [100, 30] steps with σ = 4 is 7 = ⌈log₂ 101⌉ Gaussian releases: the
/// audit's two-sided δ(ε) must contain Corollary 8's closed form at ρ = 7/(2·16), 1024 bits.
#[test]
fn tree_aggregation_is_a_gaussian_per_level() {
    let ev = json!({"class_name": "SingleEpochTreeAggregationDpEvent", "noise_multiplier": 4,
        "step_counts": [100, 30]});
    assert_eq!(
        to_event(&ev).unwrap(),
        Event::gaussian("4").unwrap().self_composed(7).unwrap()
    );
    for (t, d) in [
        (1u64, 1u32),
        (2, 2),
        (3, 2),
        (4, 3),
        (7, 3),
        (8, 4),
        (1000, 10),
    ] {
        let one = json!({"class_name": "SingleEpochTreeAggregationDpEvent",
            "noise_multiplier": "2.5", "step_counts": t});
        let want = Event::gaussian("2.5").unwrap();
        let want = if d == 1 {
            want
        } else {
            want.self_composed(d).unwrap()
        };
        assert_eq!(to_event(&one).unwrap(), want, "T = {t}");
    }
    let r = audit_event_at_epsilon(ev, "1");
    let (_, a) = r.best_delta.clone().unwrap();
    assert!(a.is_two_sided());
    let reference = gaussian_delta(&rational("7/32"), &rational("1"));
    let (lo, hi) = (a.formula().lower().to_float(), a.upper().to_float());
    assert!(
        lo <= reference && reference <= hi,
        "[{lo}, {hi}] ∌ {reference}"
    );
    let rel = rug::Float::with_val(REF, &hi - &lo) / &reference;
    assert!(rel.to_f64() < 1e-6, "width {rel}");
    // all trees empty: nothing released; a scalar 0 is refused as dp_accounting does
    let empty = json!({"class_name": "SingleEpochTreeAggregationDpEvent", "noise_multiplier": 1,
        "step_counts": [0, 0]});
    assert_eq!(to_event(&empty).unwrap(), Event::NoOp);
    for (bad, field) in [
        (
            json!({"class_name": "SingleEpochTreeAggregationDpEvent", "noise_multiplier": 1, "step_counts": 0}),
            "event.step_counts",
        ),
        (
            json!({"class_name": "SingleEpochTreeAggregationDpEvent", "noise_multiplier": 0, "step_counts": 3}),
            "event.noise_multiplier",
        ),
        (
            json!({"class_name": "SingleEpochTreeAggregationDpEvent", "noise_multiplier": 1, "step_counts": [3, "1.5"]}),
            "event.step_counts[1]",
        ),
    ] {
        match to_event(&bad) {
            Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, field, "{bad}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

/// A mixture over {0, c} is the Poisson-subsampled Gaussian (two-sided); unequal positive
/// sensitivities give the dominating subsampled Gaussian marked as a stand-in (upper bounds
/// only), never a two-sided answer.
#[test]
fn mixture_of_gaussians_maps_to_the_dominating_subsampled_gaussian() {
    let exact = json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 1,
        "sensitivities": [0, 1], "sampling_probs": [0.9, 0.1]});
    assert_eq!(
        to_event(&exact).unwrap(),
        Event::gaussian("1")
            .unwrap()
            .poisson_sampled("0.1")
            .unwrap()
    );
    let general = json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 1,
        "sensitivities": [0, 1, 2], "sampling_probs": [0.81, 0.18, 0.01]});
    let want = Event::Dominated(Box::new(
        Event::gaussian("1")
            .unwrap()
            .with_sensitivity(2)
            .unwrap()
            .poisson_sampled("0.19")
            .unwrap(),
    ));
    assert_eq!(to_event(&general).unwrap(), want);
    let r = audit_event_at_epsilon(
        json!({"class_name": "SelfComposedDpEvent", "count": 10, "event": general}),
        "2",
    );
    assert!(!r.routes.is_empty());
    for route in &r.routes {
        if let Some(a) = &route.delta {
            assert!(
                !a.is_two_sided(),
                "{}: a stand-in claims no lower bound",
                route.name
            );
        }
    }
    let r = audit_event_at_epsilon(exact, "1");
    assert!(r.best_delta.unwrap().1.is_two_sided());
    // one sensitivity only: the Gaussian itself; all zero: nothing released
    let g = json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 3,
        "sensitivities": [2], "sampling_probs": [1]});
    assert_eq!(
        to_event(&g).unwrap(),
        Event::gaussian("3").unwrap().with_sensitivity(2).unwrap()
    );
    let z = json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 3,
        "sensitivities": [0], "sampling_probs": [1]});
    assert_eq!(to_event(&z).unwrap(), Event::NoOp);
    for (bad, field) in [
        (
            json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 1, "sensitivities": [0, 1], "sampling_probs": [0.5, 0.4]}),
            "event.sampling_probs",
        ),
        (
            json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 1, "sensitivities": [0, 1], "sampling_probs": [1]}),
            "event.sampling_probs",
        ),
        (
            json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 1, "sensitivities": [-1, 1], "sampling_probs": [0.5, 0.5]}),
            "event.sensitivities",
        ),
        (
            json!({"class_name": "MixtureOfGaussiansDpEvent", "standard_deviation": 0, "sensitivities": [1], "sampling_probs": [1]}),
            "event.standard_deviation",
        ),
    ] {
        match to_event(&bad) {
            Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, field, "{bad}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

/// The exponential mechanism and permute-and-flip are ε-DP black boxes.
#[test]
fn exponential_and_permute_and_flip_are_pure_black_boxes() {
    for class in ["ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent"] {
        let ev = json!({"class_name": class, "epsilon": "0.3"});
        assert_eq!(
            to_event(&ev).unwrap(),
            Event::pure("0.3").unwrap(),
            "{class}"
        );
        let bad = json!({"class_name": class, "epsilon": -1});
        assert!(
            matches!(to_event(&bad), Err(Error::InvalidArgument { name, .. }) if name == "event.epsilon")
        );
    }
}

/// Papernot & Steinke 2022, Theorem 2 for a Gaussian (ε(α) = α/(2σ²)) repeated a geometric
/// number of times (η = 1, γ = 1/μ exactly): the reference minimises the theorem's ε′(α) over
/// λ̂ at 1024 bits; dpcert's certified bound at an order above its envelope floor must lie above
/// that infimum and within 10⁻⁴ relative of it (its λ̂ is a rounded search point).
#[test]
fn repeat_and_select_follows_papernot_steinke_theorem_2() {
    use dpcert::num::Precision;
    use dpcert::theorems::rdp::{RdpCurve, RdpTerm};
    use dpcert::theorems::repeat_select::repeat_and_select_rdp;
    use rug::Float;
    let mut inner = RdpCurve::new();
    inner
        .push(
            RdpTerm::Zcdp {
                rho: rational("1/8"),
            },
            rug::Integer::from(1),
        )
        .unwrap();
    let (mean, alpha) = (rational("10"), rational("8"));
    let got = repeat_and_select_rdp(&inner, &mean, &Some(rational("1")), &alpha, Precision::Auto)
        .unwrap();
    let ln_mu = Float::with_val(REF, 10).ln();
    // (1 + η)·min over λ̂ of ((1 − 1/λ̂)·λ̂/8 + ln(1/γ)/λ̂), γ = 1/μ
    let g = |l: &Float| {
        let a = Float::with_val(REF, l - 1u32) / 8u32;
        Float::with_val(REF, &a + Float::with_val(REF, &ln_mu / l)) * 2u32
    };
    let (_, c) = golden_argmin(g, 1.01, 200.0);
    let reference = Float::with_val(REF, 1) + c + Float::with_val(REF, &ln_mu / 7u32);
    let up = got.upper().to_float();
    assert!(
        up >= reference,
        "{up} below the theorem's infimum {reference}"
    );
    let rel = Float::with_val(REF, &up - &reference) / &reference;
    assert!(rel.to_f64() < 1e-4, "{up} vs {reference}");
    // the event: only mechanisms with an RDP curve can be repeated; the Poisson shape is refused
    let ev = json!({"class_name": "RepeatAndSelectDpEvent", "mean": 10, "shape": 1,
        "event": {"class_name": "EpsilonDeltaDpEvent", "epsilon": 1, "delta": "1e-6"}});
    let file = json!({"budget": {"delta": "1e-5"}, "event": ev});
    match audit(&parse(&file.to_string()).unwrap()) {
        Err(Error::InvalidArgument { reason, .. }) => {
            assert!(reason.contains("Papernot & Steinke"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    // shape ∞ (a Poisson number of runs, Theorem 6)
    let poisson = json!({"class_name": "RepeatAndSelectDpEvent", "mean": 10, "shape": "inf",
        "event": gaussian(json!(2))});
    assert_eq!(
        to_event(&poisson).unwrap(),
        Event::RepeatAndSelect {
            event: Box::new(Event::gaussian("2").unwrap()),
            mean: rational("10"),
            shape: None
        }
    );
    // mean 1: the event itself
    let once = json!({"class_name": "RepeatAndSelectDpEvent", "mean": 1, "shape": 0,
        "event": gaussian(json!(2))});
    let l = dpcert::audit::Ledger::from_event(&to_event(&once).unwrap()).unwrap();
    assert_eq!(
        l,
        dpcert::audit::Ledger::from_event(&Event::gaussian("2").unwrap()).unwrap()
    );
    // composed with a DP-SGD run, the RDP route certifies the whole (and only it)
    let both = json!({"budget": {"delta": "1e-5"}, "event": {"class_name": "ComposedDpEvent", "events": [
        {"class_name": "RepeatAndSelectDpEvent", "mean": 5, "shape": 0, "event": dpsgd("0.01", "1", 100)},
        dpsgd("0.01", "1", 100)]}});
    let r = audit(&parse(&both.to_string()).unwrap()).unwrap();
    assert_eq!(r.routes.len(), 1, "{:?}", r.not_applicable);
    assert!(r.best_epsilon.is_some());
}

#[test]
fn classes_without_a_theorem_are_refused_with_the_reason() {
    for (ev, needle) in [
        (
            json!({"class_name": "SampledWithReplacementDpEvent", "source_dataset_size": 100,
            "sample_size": 10, "event": gaussian(json!(1))}),
            "sampling with replacement",
        ),
        (
            json!({"class_name": "UnsupportedDpEvent"}),
            "no DP description",
        ),
    ] {
        match to_event(&ev) {
            Err(Error::InvalidArgument { reason, .. }) => {
                assert!(reason.contains(needle), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
}
