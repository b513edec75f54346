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
        let upper: f64 = v["upper"].as_str().unwrap().parse().unwrap();
        assert!(upper.is_finite());
        assert_eq!(v["lower"].is_string(), two_sided, "{args:?}");
        if two_sided {
            let lower: f64 = v["lower"].as_str().unwrap().parse().unwrap();
            assert!(lower <= upper);
        }
        assert!(v["theorem"].as_str().unwrap().contains("Steinke 2022"));
        if two_sided {
            let (lo, up): (f64, f64) = (
                v["lower"].as_str().unwrap().parse().unwrap(),
                v["upper"].as_str().unwrap().parse().unwrap(),
            );
            assert!(
                up - lo <= 1e-9 * up,
                "{args:?}: [{lo}, {up}] wider than 1e-9 relative"
            );
        }
        assert!(v["precision_bits"].as_u64().unwrap() >= 53);
        // the human sentence too
        let (code, out, _) = run(&args);
        assert_eq!(code, 0);
        assert_eq!(out.lines().count(), 1);
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
    assert_eq!(v["precision_bits"], 256);
    assert!(v["upper"]
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
        let num = |k: &str| v[k].as_str().map(|s| s.parse::<f64>().unwrap());
        (
            num("lower"),
            num("upper").unwrap(),
            v["method"].as_str().unwrap().to_string(),
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
        assert!(out.is_empty() && err.lines().count() == 1, "{err}");
    }
}
