//! The single-query CLI: JSON shape, bad input (one line on stderr, non-zero exit, no number).
mod common;
use common::run;

#[test]
fn json_queries() {
    for (args, two_sided) in [
        (
            vec!["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"],
            true,
        ),
        (
            vec![
                "gaussian",
                "delta",
                "--sigma",
                "0.1",
                "--epsilon",
                "200",
                "--precision",
                "256",
            ],
            true,
        ),
        (
            vec![
                "gaussian",
                "epsilon",
                "--sigma",
                "2",
                "--delta",
                "1e-5",
                "--compositions",
                "10",
                "--sensitivity",
                "0.5",
            ],
            true,
        ),
        (
            vec!["gaussian", "sigma", "--epsilon", "1", "--delta", "1e-5"],
            true,
        ),
        (
            vec!["zcdp", "delta", "--rho", "0.125", "--epsilon", "1"],
            false,
        ),
        (
            vec!["zcdp", "epsilon", "--rho", "0.125", "--delta", "1e-5"],
            false,
        ),
        (
            vec![
                "compose",
                "pure",
                "--epsilon",
                "0.1",
                "--count",
                "100",
                "--delta",
                "1e-6",
            ],
            true,
        ),
        (
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
                "1e-6",
            ],
            true,
        ),
    ] {
        let mut a = args.clone();
        a.push("--json");
        let (code, out, err) = run(&a);
        assert_eq!(code, 0, "{args:?}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let upper: f64 = v["result"]["value"]["upper"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(upper.is_finite());
        assert_eq!(
            v["result"]["value"]["lower"].is_string(),
            two_sided,
            "{args:?}"
        );
        if two_sided {
            let lower: f64 = v["result"]["value"]["lower"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(lower <= upper);
        }
        assert!(v["result"]["theorem"]
            .as_str()
            .unwrap()
            .contains("Steinke 2022"));
        if two_sided {
            let (lo, up): (f64, f64) = (
                v["result"]["value"]["lower"]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap(),
                v["result"]["value"]["upper"]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap(),
            );
            assert!(
                up - lo <= 1e-9 * up,
                "{args:?}: [{lo}, {up}] wider than 1e-9 relative"
            );
        }
        assert!(v["result"]["precision_bits"].as_u64().unwrap() >= 53);
        // the human sentence too
        let (code, out, _) = run(&args);
        assert_eq!(code, 0);
        assert_eq!(out.lines().count(), 2, "a sentence and its theorem line");
    }
    let (_, out, _) = run(&[
        "gaussian",
        "delta",
        "--sigma",
        "0.1",
        "--epsilon",
        "200",
        "--json",
        "--precision",
        "256",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"]["precision_bits"], 256);
    assert!(v["result"]["value"]["upper"]
        .as_str()
        .unwrap()
        .starts_with("1.46220517756907481"));
}

#[test]
fn bad_input_never_yields_a_number() {
    for (args, names) in [
        (
            vec!["gaussian", "delta", "--sigma", "nan", "--epsilon", "1"],
            "--sigma",
        ),
        (
            vec!["gaussian", "delta", "--sigma", "inf", "--epsilon", "1"],
            "--sigma",
        ),
        (
            vec!["gaussian", "delta", "--sigma", "-inf", "--epsilon", "1"],
            "--sigma",
        ),
        (
            vec!["gaussian", "delta", "--sigma", "0", "--epsilon", "1"],
            "--sigma",
        ),
        (
            vec!["gaussian", "delta", "--sigma", "-2", "--epsilon", "1"],
            "--sigma",
        ),
        (
            vec!["gaussian", "delta", "--sigma", "1", "--epsilon", "-1"],
            "--epsilon",
        ),
        (
            vec![
                "gaussian",
                "delta",
                "--sigma",
                "1",
                "--epsilon",
                "1",
                "--compositions",
                "0",
            ],
            "--compositions",
        ),
        (
            vec![
                "gaussian",
                "delta",
                "--sigma",
                "1",
                "--epsilon",
                "1",
                "--compositions",
                "1.5",
            ],
            "--compositions",
        ),
        (
            vec![
                "gaussian",
                "delta",
                "--sigma",
                "1",
                "--epsilon",
                "1",
                "--sensitivity",
                "0",
            ],
            "--sensitivity",
        ),
        (
            vec!["gaussian", "epsilon", "--sigma", "1", "--delta", "0"],
            "--delta",
        ),
        (
            vec!["gaussian", "epsilon", "--sigma", "1", "--delta", "1"],
            "--delta",
        ),
        (
            vec!["gaussian", "epsilon", "--sigma", "1", "--delta", "1.5"],
            "--delta",
        ),
        (
            vec!["gaussian", "sigma", "--epsilon", "1", "--delta", "-1e-5"],
            "--delta",
        ),
        (
            vec!["zcdp", "delta", "--rho", "0", "--epsilon", "1"],
            "--rho",
        ),
        (
            vec!["zcdp", "epsilon", "--rho", "1", "--delta", "2"],
            "--delta",
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
            "--count",
        ),
        (
            vec![
                "compose",
                "pure",
                "--epsilon",
                "x",
                "--count",
                "3",
                "--delta",
                "1e-5",
            ],
            "--epsilon",
        ),
        (
            vec!["gaussian", "delta", "--sigma", "1/0", "--epsilon", "1"],
            "--sigma",
        ),
        (
            vec!["gaussian", "delta", "--sigma", "", "--epsilon", "1"],
            "--sigma",
        ),
        (
            vec![
                "gaussian",
                "delta",
                "--sigma",
                "1",
                "--epsilon",
                "1",
                "--precision",
                "0",
            ],
            "--precision",
        ),
        (vec!["gaussian", "delta", "--sigma", "1"], "--epsilon"),
    ] {
        let (code, out, err) = run(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(out.is_empty(), "{args:?} printed {out}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}");
    }
}

#[test]
fn dpsgd_methods() {
    let base = [
        "dpsgd", "--rate", "0.01", "--sigma", "1.5", "--steps", "300", "--delta", "1e-5", "--json",
    ];
    let get = |extra: &[&str]| {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let num = |k: &str| {
            v["result"]["value"][k]
                .as_str()
                .map(|s| s.parse::<f64>().unwrap())
        };
        (
            num("lower"),
            num("upper").unwrap(),
            v["result"]["details"]["method"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    };
    // pld: two-sided at the top level; rdp: an upper bound only; best: the smaller upper bound
    let (pl, pu, pm) = get(&["--method", "pld"]);
    let (rl, ru, _) = get(&["--method", "rdp"]);
    let (bl, bu, _) = get(&[]);
    assert_eq!(pm, "pld");
    assert!(pl.unwrap() < pu && rl.is_none() && pu < ru);
    assert!(bu <= pu.min(ru) && bl.is_some());
    // a coarser grid: still a bracket of the same number
    let (cl, cu, _) = get(&["--method", "pld", "--grid", "1/256"]);
    assert!(cl.unwrap() <= pu && pl.unwrap() <= cu);
    for (flag, bad) in [
        ("--grid", "0"),
        ("--grid", "x"),
        ("--tail", "0.5"),
        ("--method", "fft"),
    ] {
        let args: Vec<&str> = base.iter().copied().chain([flag, bad]).collect();
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{flag} {bad}: {out}");
        assert_error_envelope(&out, 2);
        assert!(err.lines().count() == 1 && err.contains(flag), "{err}");
    }
}

/// A decimal string of `x` with 40 significant digits (round-to-nearest: the references sit far
/// from every decision boundary, so the last digit never matters).
/// `out` is exactly one dpcert/1 error envelope with this exit code.
fn assert_error_envelope(out: &str, code: i32) {
    assert_eq!(out.lines().count(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    assert_eq!(v["schema"], "dpcert/1");
    assert!(v["result"].is_null(), "{out}");
    assert_eq!(v["error"]["code"], code, "{out}");
}

fn dec(x: &rug::Float) -> String {
    x.to_string_radix(10, Some(40))
}

/// `x·(1 + rel)` at the reference precision.
fn scaled(x: &rug::Float, rel: f64) -> rug::Float {
    rug::Float::with_val(common::REF, x * (1.0 + rel))
}

fn write_temp(name: &str, text: &str) -> std::path::PathBuf {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-{name}-{}.json", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

/// `check` on a file mixing sound, unsound, impossible (negative, NaN, −∞), vacuous (+∞, δ > 1)
/// and malformed records: every record gets the right verdict, the others are still judged,
/// the exit code is 1, and each bracket agrees with its verdict. The references are the
/// 1024-bit formulas of tests/common (Corollary 8, Proposition 14 at a fixed t, k-fold
/// randomized response), and each claimed value sits 10⁻⁶ relative off the reference — far
/// above every certified width (≤ 1e-9 relative) — on the side that fixes the verdict.
#[test]
fn check_judges_every_record() {
    use common::{gaussian_delta, rational, rr_delta, zcdp_delta_at};
    use serde_json::json;
    let m = 1e-6;
    // gaussian delta, σ = 1 (ρ = 1/2), ε = 0.5
    let d_ref = gaussian_delta(&rational("0.5"), &rational("0.5"));
    // gaussian epsilon: δ is the exact δ at ε = 1.3, so the exact ε at that δ is 1.3 (to 40 digits)
    let d_at = dec(&gaussian_delta(&rational("0.5"), &rational("1.3")));
    let e_ref = rug::Float::with_val(common::REF, 1.3);
    // gaussian sigma: δ is the exact δ of σ = 2 (ρ = 1/8) at ε = 1, so the smallest σ is 2
    let d_sigma = dec(&gaussian_delta(&rational("0.125"), &rational("1")));
    let s_ref = rug::Float::with_val(common::REF, 2);
    // zcdp delta, ρ = 0.5, ε = 2: the class's smallest valid δ is at least the Gaussian's δ
    // and at most Proposition 14 at any t (here t = 1)
    let zg = gaussian_delta(&rational("0.5"), &rational("2"));
    let zt = zcdp_delta_at(&rational("0.5"), &rational("2"), &rational("1"));
    // compose pure, ε0 = 1, k = 10: δ is the optimal δ at ε = 5.5, so the optimal ε is 5.5
    let d_rr = dec(&rr_delta(
        &rational("1"),
        &rational("0"),
        10,
        &rational("5.5"),
    ));
    let c_ref = rug::Float::with_val(common::REF, 5.5);
    // RDP of the Poisson-subsampled Gaussian at integer order α (MTZ19's binomial sum, composed
    // over T steps): q = 0.01, σ = 2, T = 100, α = 8
    let rdp_ref = {
        use rug::{ops::Pow, Float, Integer};
        let (qq, a) = (common::f(&rational("0.01")), 8u32);
        let mut sum = Float::with_val(common::REF, 0);
        for k in 0..=a {
            let c = Float::with_val(common::REF, Integer::from(Integer::binomial_u(a, k)));
            let w = Float::with_val(common::REF, 1 - qq.clone()).pow(a - k)
                * Float::with_val(common::REF, qq.clone().pow(k));
            let e = Float::with_val(common::REF, (k * k - k) as f64 / 8.0).exp();
            sum += c * w * e;
        }
        sum.ln() * 100u32 / (a - 1)
    };
    // DP-SGD at q = 1 is T compositions of the Gaussian (Corollary 10): σ = 2, T = 10, so
    // ρ = 10/8; δ is the exact δ at ε = 3, so the exact ε is 3 (the PLD bracket is ~0.1% wide:
    // the margin here is 5%)
    let d_sgd = dec(&gaussian_delta(&rational("1.25"), &rational("3")));
    let sgd_ref = rug::Float::with_val(common::REF, 3);
    let rd = json!([
        "rdp",
        "subsampled-gaussian",
        "--rate",
        "0.01",
        "--sigma",
        "2",
        "--steps",
        "100",
        "--order",
        "8"
    ]);
    let sg = json!([
        "dpsgd", "--rate", "1", "--sigma", "2", "--steps", "10", "--delta", d_sgd, "--method",
        "pld"
    ]);
    let gd = json!(["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"]);
    let ge = json!(["gaussian", "epsilon", "--sigma", "1", "--delta", d_at]);
    let gs = json!(["gaussian", "sigma", "--epsilon", "1", "--delta", d_sigma]);
    let zd = json!(["zcdp", "delta", "--rho", "0.5", "--epsilon", "2"]);
    let cp = json!([
        "compose",
        "pure",
        "--epsilon",
        "1",
        "--count",
        "10",
        "--delta",
        d_rr
    ]);
    let recs: Vec<(serde_json::Value, &str)> = vec![
        (
            json!({"query": gd, "value": dec(&scaled(&d_ref, m))}),
            "sound",
        ),
        (
            json!({"query": gd, "value": dec(&scaled(&d_ref, -m))}),
            "unsound",
        ),
        (
            json!({"query": ge, "value": dec(&scaled(&e_ref, m))}),
            "sound",
        ),
        (
            json!({"query": ge, "value": dec(&scaled(&e_ref, -m))}),
            "unsound",
        ),
        (
            json!({"query": gs, "value": dec(&scaled(&s_ref, m))}),
            "sound",
        ),
        (
            json!({"query": gs, "value": dec(&scaled(&s_ref, -m))}),
            "unsound",
        ),
        (json!({"query": zd, "value": dec(&scaled(&zt, m))}), "sound"),
        (
            json!({"query": zd, "value": dec(&scaled(&zg, -m))}),
            "unsound",
        ),
        (
            json!({"query": cp, "value": dec(&scaled(&c_ref, m))}),
            "sound",
        ),
        (
            json!({"query": cp, "value": dec(&scaled(&c_ref, -m))}),
            "unsound",
        ),
        (
            json!({"query": rd, "value": dec(&scaled(&rdp_ref, m))}),
            "sound",
        ),
        (
            json!({"query": rd, "value": dec(&scaled(&rdp_ref, -m))}),
            "unsound",
        ),
        (
            json!({"query": sg, "value": dec(&scaled(&sgd_ref, 0.05))}),
            "sound",
        ),
        (
            json!({"query": sg, "value": dec(&scaled(&sgd_ref, -0.05))}),
            "unsound",
        ),
        // impossible values: unsound whatever the truth
        (json!({"query": ge, "value": -0.0048}), "unsound"),
        (json!({"query": gd, "value": "-9.3e-38"}), "unsound"),
        (json!({"query": gd, "value": "nan"}), "unsound"),
        (json!({"query": ge, "value": "-inf"}), "unsound"),
        (json!({"query": gs, "value": "0"}), "unsound"),
        // vacuous values: valid guarantees
        (json!({"query": ge, "value": "inf"}), "sound"),
        (json!({"query": gd, "value": "1.5"}), "sound"),
        (json!({"query": zd, "value": 1}), "sound"),
        // malformed records
        (
            json!({"query": ["gaussian", "frobnicate"], "value": "1"}),
            "invalid",
        ),
        (
            json!({"query": ["gaussian", "delta", "--sigma", "1", "--bogus", "1"], "value": "1"}),
            "invalid",
        ),
        (
            json!({"query": ["gaussian", "delta", "--sigma", "-1", "--epsilon", "1"], "value": "0.1"}),
            "invalid",
        ),
        (
            json!({"query": ["gaussian", "delta", "--sigma", "1e999999", "--epsilon", "1"], "value": "0.1"}),
            "invalid",
        ),
        (json!({"query": gd}), "invalid"),
        (json!({"query": gd, "value": true}), "invalid"),
        (json!({"query": gd, "value": "zero"}), "invalid"),
        (
            json!({"query": "gaussian delta --sigma 1", "value": "0.1"}),
            "invalid",
        ),
        (
            json!({"query": ["audit", "x.toml"], "value": "0.1"}),
            "invalid",
        ),
        (json!([1, 2]), "invalid"),
    ];
    let file: Vec<serde_json::Value> = recs.iter().map(|(r, _)| r.clone()).collect();
    // bare NaN / Infinity tokens, as Python's json prints them
    let mut text = serde_json::to_string(&file).unwrap();
    text.pop();
    text += r#",{"query": ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"], "value": NaN},{"query": ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"], "value": Infinity}]"#;
    let mut want: Vec<&str> = recs.iter().map(|(_, w)| *w).collect();
    want.extend(["unsound", "sound"]);
    let p = write_temp("check-mix", &text);
    let (code, out, err) = run(&["check", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = v["result"]["records"].as_array().unwrap();
    assert_eq!(results.len(), want.len());
    for (i, (r, w)) in results.iter().zip(&want).enumerate() {
        assert_eq!(r["verdict"], *w, "record {}: {r}", i + 1);
        assert_eq!(r["record"], i + 1);
        for k in ["query", "value", "reason", "bracket"] {
            assert!(r.get(k).is_some(), "record {}: no `{k}`", i + 1);
        }
        assert!(!r["reason"].as_str().unwrap().is_empty());
        if *w == "invalid" {
            assert!(r["bracket"].is_null());
            continue;
        }
        let b = &r["bracket"];
        assert!(["two-sided", "upper-bound"].contains(&b["kind"].as_str().unwrap()));
        // the bracket shown agrees with the verdict
        let Ok(val) = dpcert::num::parse_exact(r["value"].as_str().unwrap_or("x")) else {
            continue; // NaN / ±inf
        };
        let lo = b["lower"]
            .as_str()
            .map(|l| dpcert::num::parse_exact(l).unwrap());
        let up = b["upper"]
            .as_str()
            .map(|u| dpcert::num::parse_exact(u).unwrap());
        let impossible = r["reason"].as_str().unwrap().starts_with("impossible")
            || r["reason"].as_str().unwrap().starts_with("vacuous");
        match *w {
            "sound" if !impossible => assert!(up.unwrap() <= val, "record {}: {r}", i + 1),
            "unsound" => assert!(lo.unwrap() >= val, "record {}: {r}", i + 1),
            _ => {}
        }
    }
    assert_eq!(v["result"]["summary"]["records"], want.len());
    assert_eq!(v["result"]["summary"]["invalid"], 10);
    // zCDP and composition bounds are labelled as bounds, the exact Gaussian two-sided
    assert_eq!(results[0]["bracket"]["kind"], "two-sided");
    assert_eq!(results[6]["bracket"]["kind"], "upper-bound");
    // the text output: one line per record and a summary
    let (code, out, _) = run(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), want.len() + 1);
}

/// Exit codes of `check`: 4 with only sound and undecided records, 0 with only sound ones; 2
/// for a file that is not a JSON list (one line on stderr; with `--json` the error envelope on
/// stdout).
#[test]
fn check_exit_codes_and_bad_files() {
    use common::{gaussian_delta, rational, zcdp_delta_at};
    // a δ strictly between the Gaussian's exact δ and Proposition 14's bound (minimised over a
    // grid of t): the class's smallest valid δ is not located by either, so it is undecided
    let lo = gaussian_delta(&rational("0.5"), &rational("2"));
    let hi = (5..1000)
        .map(|i| {
            zcdp_delta_at(
                &rational("0.5"),
                &rational("2"),
                &rug::Rational::from((i, 100)),
            )
        })
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    let mid = rug::Float::with_val(common::REF, &lo + &hi) / 2u32;
    let ok = format!(
        r#"[{{"query": ["zcdp", "delta", "--rho", "0.5", "--epsilon", "2"], "value": "{}"}},
            {{"query": ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"], "value": "0.3"}}]"#,
        dec(&mid)
    );
    let p = write_temp("check-ok", &ok);
    let (code, out, err) = run(&["check", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 4, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"]["records"][0]["verdict"], "undecided");
    assert_eq!(v["result"]["records"][1]["verdict"], "sound");
    let sound_only = write_temp(
        "check-sound",
        r#"[{"query": ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"], "value": "0.3"}]"#,
    );
    assert_eq!(run(&["check", sound_only.to_str().unwrap()]).0, 0);
    for (name, text) in [
        ("not-json", "query: gaussian".to_string()),
        (
            "not-list",
            r#"{"query": ["gaussian"], "value": "1"}"#.to_string(),
        ),
        (
            "deep",
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        ),
        ("binary", "\u{1}\u{2}\u{7f}\u{fffd}".to_string()),
    ] {
        let p = write_temp(&format!("check-{name}"), &text);
        let (code, out, err) = run(&["check", p.to_str().unwrap(), "--json"]);
        assert_eq!(code, 2, "{name}: {err}");
        assert_error_envelope(&out, 2);
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
        assert!(
            err.contains("FILE") && !err.contains("panicked"),
            "{name}: {err}"
        );
    }
}

/// Regressions for the classes the CLI fuzzer (scripts/fuzz-cli) found: each input is refused
/// with a message naming the limit or argument, never a panic, a hang or `inf` (before the
/// limits these ran for minutes; the test would then time out rather than pass).
#[test]
fn hostile_inputs_are_refused_fast() {
    let huge_digits = "7".repeat(100_000);
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        // precision beyond the limit (was: minutes at 65 536 bits, hours at 2²⁴)
        (
            vec![
                "gaussian",
                "epsilon",
                "--sigma",
                "3",
                "--delta",
                "0.5",
                "--precision",
                "65537",
            ],
            2,
            "--precision",
        ),
        (
            vec![
                "zcdp",
                "delta",
                "--rho",
                "0.5",
                "--epsilon",
                "1",
                "--precision",
                "16777216",
            ],
            2,
            "--precision",
        ),
        // exponents and digit counts beyond the limits on exact inputs
        (
            vec![
                "gaussian",
                "delta",
                "--sigma",
                "933e-5930150",
                "--epsilon",
                "0.5",
            ],
            2,
            "--sigma",
        ),
        (
            vec![
                "compose",
                "pure",
                "--epsilon",
                "1",
                "--count",
                "10",
                "--delta",
                "380e-1554210",
            ],
            2,
            "--delta",
        ),
        (
            vec![
                "gaussian",
                "delta",
                "--sigma",
                &huge_digits,
                "--epsilon",
                "0.5",
            ],
            2,
            "--sigma",
        ),
    ];
    for (args, want, names) in cases {
        let (code, out, err) = run(&args);
        let shown: Vec<String> = args.iter().map(|a| a.chars().take(30).collect()).collect();
        assert_eq!(code, want, "{shown:?}: {err}");
        assert!(out.is_empty(), "{shown:?}: {out}");
        assert_eq!(err.trim().lines().count(), 1, "{shown:?}: {err}");
        assert!(err.contains(names), "{shown:?}: {err}");
        assert!(err.len() < 400, "{shown:?}: the message echoes the input");
        assert!(
            !err.contains("panicked") && !err.contains("inf "),
            "{shown:?}: {err}"
        );
    }
    // (moved out of the list above) RDP at σ = 10⁻¹⁰⁰⁰ is answered, finite: ε(2) of 100 steps is
    // 100·ln(1 + q²(e^{1/σ²} − 1)) = 10²⁰⁰² + 200·ln q + (terms below 10⁻¹⁰⁰⁰), i.e.
    // 10²⁰⁰² − 921.03…
    let (code, out, err) = run(&[
        "rdp",
        "subsampled-gaussian",
        "--rate",
        "0.01",
        "--sigma",
        "1/1e1000",
        "--steps",
        "100",
        "--order",
        "2",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let big = rug::Rational::from(rug::Integer::from(rug::Integer::u_pow_u(10, 2002)));
    let (lo, up) = (
        dpcert::num::parse_exact(v["result"]["value"]["lower"].as_str().unwrap()).unwrap(),
        dpcert::num::parse_exact(v["result"]["value"]["upper"].as_str().unwrap()).unwrap(),
    );
    assert!(
        lo <= rug::Rational::from(&big - 922) && up >= rug::Rational::from(&big - 921),
        "{out}"
    );
    // ε = 2.91e25840 is answered since ε' is also evaluated in log
    // form, ε + ln(q + (1 − q)e^{−ε}) = 2.91e25840 − ln 2: finite, not refused (issue 14)
    let (code, out, err) = run(&[
        "subsample",
        "--epsilon",
        "291e25838",
        "--delta",
        "0",
        "--rate",
        "1/2",
        "--scheme",
        "poisson",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let eps = &v["result"]["epsilon"];
    assert_eq!(eps["lower"], "2.9099999999999999999e25840", "{out}");
    assert_eq!(eps["upper"], "2.9100000000000000001e25840", "{out}");
}

/// Deployment files that used to panic the report printer (a 120 000-character name:
/// "Formatting argument out of range") or to run for minutes (thousands of entries) are
/// refused with a message naming the field and the limit; unknown budget keys are refused.
#[test]
fn hostile_deployments_are_refused() {
    let long_name = format!(
        "[budget]\ndelta = \"1e-5\"\n[[mechanism]]\nname = \"{}\"\ntype = \"pure\"\nepsilon = 1\n",
        "x".repeat(120_000)
    );
    let many = format!(
        "[budget]\ndelta = \"1e-5\"\n{}",
        "[[mechanism]]\ntype = \"pure\"\nepsilon = 1\n".repeat(101)
    );
    let bogus =
        "[budget]\ndelta = \"1e-5\"\nbogus = 1\n[[mechanism]]\ntype = \"pure\"\nepsilon = 1\n";
    for (name, text, names) in [
        ("long-name", long_name.as_str(), "`name`"),
        ("many", many.as_str(), "[[mechanism]]"),
        ("bogus", bogus, "[budget] bogus"),
    ] {
        let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("dpcert-deploy-{name}-{}.toml", std::process::id()));
        std::fs::write(&p, text).unwrap();
        let (code, out, err) = run(&["audit", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(out.is_empty(), "{name}");
        assert!(err.contains(names) && err.len() < 400, "{name}: {err}");
    }
    // the report printer itself copes with a long name built in code
    let d = dpcert::deploy::Deployment::new(
        dpcert::event::Event::pure(1)
            .unwrap()
            .named("y".repeat(70_000)),
    )
    .at_delta("1e-5")
    .unwrap();
    let r = dpcert::audit::audit(&d).unwrap();
    assert!(r.to_table().contains("yyyy"));
}

/// Huge counts on the PLD accountant's automatic grid (10⁹ DP-SGD steps: minutes of squarings
/// of a 10⁷-point grid before the composed-support target) now answer in seconds. A robustness
/// regression (no closed form exists at q < 1 for a reference): it fails if the run refuses,
/// errors, or prints a non-finite or inverted bracket.
#[test]
fn huge_step_counts_are_answered() {
    let (code, out, err) = run(&[
        "dpsgd", "--rate", "0.01", "--sigma", "2", "--steps", "1e9", "--delta", "1e-5", "--method",
        "pld", "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let lo = dpcert::num::parse_exact(v["result"]["value"]["lower"].as_str().unwrap()).unwrap();
    let up = dpcert::num::parse_exact(v["result"]["value"]["upper"].as_str().unwrap()).unwrap();
    assert!(lo <= up && up > 0, "[{lo}, {up}]");
}

#[test]
fn tight_is_refused_where_it_would_be_ignored() {
    let base = [
        "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "10", "--delta", "1e-5", "--tight",
    ];
    for extra in [
        &["--grid", "1e-3"][..],
        &["--method", "rdp"],
        &["--sampling", "shuffled"],
        &["--relation", "substitution"],
        &["--group-size", "2", "--user-sampling", "examples"],
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty() && err.contains("--tight"), "{args:?}: {err}");
    }
    let (code, _, err) = run(&[
        "dpsgd",
        "--phase",
        "0.01,1,10",
        "--delta",
        "1e-5",
        "--tight",
    ]);
    assert_eq!(code, 2, "{err}");
    // accepted where it applies: users sampled with all of their examples is the σ/K run
    let (code, _, err) = run(&[
        "dpsgd",
        "--rate",
        "0.01",
        "--sigma",
        "2",
        "--steps",
        "10",
        "--delta",
        "1e-5",
        "--group-size",
        "2",
        "--tight",
    ]);
    assert_eq!(code, 0, "{err}");
}
