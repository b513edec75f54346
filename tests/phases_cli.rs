//! `dpcert dpsgd` in the ML vocabulary (--batch-size/--dataset-size/--epochs) and as a schedule
//! (`--phase Q,S,T`), through the binary. References: T = ⌈epochs·N/B⌉ and q = B/N worked out
//! by hand here; the same run stated as --rate/--sigma/--steps; Corollary 10 + Corollary 8 at
//! 1024 bits (tests/common) for phases at q = 1, which are exact Gaussian compositions.
mod common;
use common::{f, rational, run, REF};
use rug::{Float, Rational};
use serde_json::Value;

/// `dpcert ARGS --json`, exit 0, the envelope.
fn ok(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (code, out, err) = run(&a);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// The certified bracket (lower, upper) of an envelope, exactly as printed.
fn bracket(env: &Value) -> (Rational, Rational) {
    let v = &env["result"]["value"];
    let lo = v["lower"].as_str().expect("two-sided");
    (rational(lo), rational(v["upper"].as_str().unwrap()))
}

/// `dpcert ARGS` exits 2 and its message names every flag in `names`.
fn refused(args: &[&str], names: &[&str]) {
    let (code, out, err) = run(args);
    assert_eq!(code, 2, "{args:?}: {out} {err}");
    for n in names {
        assert!(err.contains(n), "{args:?}: `{err}` does not name {n}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// Batch 256 of 60 000 examples for 2 epochs is q = 256/60000 = 8/1875 and
/// T = ⌈2·60000/256⌉ = ⌈468.75⌉ = 469 steps: the identical bracket as --rate/--steps, both
/// echoed in the result, the input keeps the flags as given, and the sentence says it.
#[test]
fn ml_vocabulary_is_the_same_run() {
    let base = ["dpsgd", "--sigma", "1.1", "--delta", "1e-5"];
    let ml = ok(&[
        &base[..],
        &[
            "--batch-size",
            "256",
            "--dataset-size",
            "60000",
            "--epochs",
            "2",
        ],
    ]
    .concat());
    let direct = ok(&[&base[..], &["--rate", "256/60000", "--steps", "469"]].concat());
    assert_eq!(bracket(&ml), bracket(&direct));
    assert_eq!(ml["result"]["details"]["rate"], "8/1875");
    assert_eq!(ml["result"]["details"]["steps"], "469");
    assert_eq!(ml["input"]["batch_size"], "256");
    assert_eq!(ml["input"]["epochs"], "2");
    assert!(ml["input"]["rate"].is_null() && ml["input"]["steps"].is_null());
    // 468 steps is a different (smaller) run: a test that T was rounded up, not down
    let fewer = ok(&[&base[..], &["--rate", "256/60000", "--steps", "468"]].concat());
    assert!(bracket(&fewer).1 < bracket(&ml).1);
    let (code, out, _) = run(&[
        &base[..],
        &[
            "--batch-size",
            "256",
            "--dataset-size",
            "60000",
            "--epochs",
            "2",
        ],
    ]
    .concat());
    assert_eq!(code, 0);
    assert!(
        out.contains("q = B/N = 256/60000") && out.contains("469 steps"),
        "{out}"
    );
    // --steps with batch/dataset sizes: q = B/N, T as given
    let bn = ok(&[
        &base[..],
        &[
            "--batch-size",
            "256",
            "--dataset-size",
            "60000",
            "--steps",
            "469",
        ],
    ]
    .concat());
    assert_eq!(bracket(&bn), bracket(&direct));
}

/// Shuffled runs stated in epochs count ⌈epochs⌉ passes: 2.5 epochs of batch 100 of 1000 are
/// 3 Gaussian releases (σ = 2, sensitivity 1): Corollary 10's ε* with ρ = 3/8 is in the bracket.
#[test]
fn shuffled_epochs_count_passes() {
    let e = ok(&[
        "dpsgd",
        "--sigma",
        "2",
        "--delta",
        "1e-5",
        "--batch-size",
        "100",
        "--dataset-size",
        "1000",
        "--epochs",
        "2.5",
        "--sampling",
        "shuffled",
    ]);
    // an upper bound (exact only with the batch assignment revealed): ε* of ρ = 3/8, rounded up
    let v = &e["result"]["value"];
    assert!(v["lower"].is_null() && v["kind"] == "upper-bound", "{v}");
    let hi = rational(v["upper"].as_str().unwrap());
    let star = common::gaussian_epsilon_star(&Rational::from((3, 8)), &rational("1e-5"));
    assert!(
        star <= f(&hi) && f(&hi) <= star.clone() * (1.0 + 1e-9),
        "{star} vs upper {hi}"
    );
    assert_eq!(e["result"]["details"]["steps"], "25");
}

/// Conflicting or incomplete flags exit 2 naming them.
#[test]
fn conflicts_name_the_flags() {
    fn with<'a>(x: &[&'a str]) -> Vec<&'a str> {
        [&["dpsgd", "--delta", "1e-5"][..], x].concat()
    }
    refused(
        &with(&[
            "--rate",
            "0.01",
            "--batch-size",
            "10",
            "--dataset-size",
            "1000",
            "--sigma",
            "1",
            "--steps",
            "5",
        ]),
        &["--rate", "--batch-size"],
    );
    refused(
        &with(&[
            "--rate", "0.01", "--sigma", "1", "--steps", "5", "--epochs", "1",
        ]),
        &["--steps", "--epochs"],
    );
    refused(
        &with(&["--rate", "0.01", "--sigma", "1", "--epochs", "1"]),
        &["--epochs", "--batch-size"],
    );
    refused(
        &with(&["--batch-size", "10", "--sigma", "1", "--steps", "5"]),
        &["--dataset-size"],
    );
    refused(
        &with(&[
            "--batch-size",
            "2000",
            "--dataset-size",
            "1000",
            "--sigma",
            "1",
            "--steps",
            "5",
        ]),
        &["--batch-size"],
    );
    refused(&with(&["--sigma", "1", "--steps", "5"]), &["--rate"]);
    refused(&with(&["--rate", "0.1", "--sigma", "1"]), &["--steps"]);
    refused(&with(&["--rate", "0.1", "--steps", "3"]), &["--sigma"]);
    refused(
        &with(&["--phase", "0.1,1,5", "--rate", "0.1"]),
        &["--phase", "--rate"],
    );
    refused(
        &with(&["--phase", "0.1,1,5", "--epochs", "1"]),
        &["--phase", "--epochs"],
    );
    refused(
        &with(&["--phase", "0.1,1,5", "--sigma", "1"]),
        &["--phase", "--sigma"],
    );
    refused(&with(&["--phase", "0.1,1"]), &["--phase", "Q,S,T"]);
    refused(&with(&["--phase", "3/2,1,5"]), &["--phase", "rate"]);
    refused(
        &with(&["--phase", "0.1,0,5"]),
        &["--phase", "noise multiplier"],
    );
    refused(&with(&["--phase", "0.1,1,2.5"]), &["--phase", "steps"]);
    refused(
        &with(&["--phase", "0.1,1,5", "--sampling", "shuffled"]),
        &["--sampling"],
    );
    refused(
        &with(&["--phase", "0.1,1,5", "--method", "rdp"]),
        &["--method"],
    );
}

/// A run split into two equal phases prints the identical bracket as the single run (as
/// --rate/--sigma/--steps and as one --phase); the phases are listed as data.
#[test]
fn equal_phases_are_the_single_run() {
    let d = ["dpsgd", "--delta", "1e-5"];
    let split = ok(&[
        &d[..],
        &[
            "--phase",
            "256/60000,1.1,300",
            "--phase",
            "256/60000,1.1,200",
        ],
    ]
    .concat());
    let one = ok(&[&d[..], &["--phase", "256/60000,1.1,500"]].concat());
    let whole = ok(&[
        &d[..],
        &["--rate", "256/60000", "--sigma", "1.1", "--steps", "500"],
    ]
    .concat());
    assert_eq!(bracket(&split), bracket(&whole));
    assert_eq!(bracket(&one), bracket(&whole));
    let phases = split["result"]["details"]["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2);
    assert_eq!(phases[0]["rate"], "8/1875");
    assert_eq!(phases[1]["steps"], "200");
    assert_eq!(split["result"]["value"]["kind"], "two-sided");
}

/// Two unequal phases at q = 1 are the Gaussian composition with ρ = Σ T_j/(2σ_j²)
/// (Corollary 10): ε* from the 1024-bit Corollary 8 lies in the printed bracket, whose
/// relative width is ≤ 10⁻³ (so returning [0, ∞) or a one-sided bound fails).
#[test]
fn unequal_phases_at_q_one_contain_corollary_10() {
    let e = ok(&[
        "dpsgd", "--delta", "1e-6", "--phase", "1,4,10", "--phase", "1,2,3",
    ]);
    let (lo, hi) = bracket(&e);
    let rho = Rational::from((10, 32)) + Rational::from((3, 8));
    let star = common::gaussian_epsilon_star(&rho, &rational("1e-6"));
    assert!(
        f(&lo) <= star && star <= f(&hi),
        "{star} outside [{lo}, {hi}]"
    );
    assert!(
        f(&Rational::from(&hi - &lo)) <= Float::with_val(REF, &star * 1e-3),
        "[{lo}, {hi}]"
    );
    // the human sentence lists the phases
    let (code, out, _) = run(&[
        "dpsgd", "--delta", "1e-6", "--phase", "1,4,10", "--phase", "1,2,3",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("2 phases") && out.contains("(1,4,10)"),
        "{out}"
    );
}
