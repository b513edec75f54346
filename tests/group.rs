//! User-level DP-SGD, example-level Poisson sampling (`dpsgd_group_pld_epsilon`), against
//! references independent of the chain: K = 1 is the add/remove accountant's bracket; q = 1
//! (every example of the user in every batch) is the Gaussian mechanism with sensitivity K
//! composed T times, whose exact ε(δ) is Corollary 8's at ρ = T·K²/(2σ²), found by
//! bisection at 1024 bits (tests/common); monotonicity in K; bad input.
mod common;
use common::{rational, typed};
use dpcert::theorems::pld_accountant::*;
use rug::{Float, Integer, Rational};

fn lo(r: &PldReport) -> Float {
    r.enclosure.lower().to_float()
}
fn hi(r: &PldReport) -> Float {
    r.enclosure.upper().to_float()
}
fn opts() -> PldOptions {
    PldOptions::default()
}

#[test]
fn k_one_is_the_add_remove_bracket() {
    let (r, s, t, d) = (
        rational("1/100"),
        rational("1"),
        Integer::from(50),
        rational("1e-5"),
    );
    let g = dpsgd_group_pld_epsilon(&r, &s, &t, 1, &d, &opts()).unwrap();
    let a = dpsgd_pld_epsilon(
        &typed::rate(&r),
        &typed::sigma(&s),
        &typed::steps(&t),
        &typed::delta(&d),
        &opts(),
    )
    .unwrap();
    assert_eq!(g.enclosure.lower(), a.enclosure.lower());
    assert_eq!(g.enclosure.upper(), a.enclosure.upper());
}

#[test]
fn full_batch_is_the_sensitivity_k_gaussian() {
    // q = 1: the user's K examples are in every batch; aligned gradients give sensitivity K
    let (r, s, t, d) = (rational("1"), rational("4"), 10u32, rational("1e-5"));
    for k in [2u32, 3, 4] {
        let g = dpsgd_group_pld_epsilon(&r, &s, &Integer::from(t), k, &d, &opts()).unwrap();
        let rho = Rational::from((t * k * k, 2u32)) / Rational::from(&s * &s);
        let exact = common::gaussian_epsilon_star(&rho, &d);
        let ratio = Float::with_val(64, &hi(&g) / &exact);
        println!(
            "K = {k}: exact ε* = {:.6}, bracket [{:.6}, {:.6}], upper/ε* = {:.4}",
            exact.to_f64(),
            lo(&g).to_f64(),
            hi(&g).to_f64(),
            ratio.to_f64()
        );
        assert!(hi(&g) >= exact, "upper end below the exact ε");
        assert!(lo(&g) <= exact, "lower end above the exact ε");
        assert!(ratio <= 3, "upper end more than 3× the exact ε");
        // the lower end is the one-example run: Corollary 8 at ρ = T/(2σ²)
        let one = common::gaussian_epsilon_star(
            &(Rational::from((t, 2u32)) / Rational::from(&s * &s)),
            &d,
        );
        assert!(lo(&g) <= one);
    }
}

#[test]
fn monotone_in_k() {
    let (r, s, t, d) = (
        rational("1/50"),
        rational("1"),
        Integer::from(20),
        rational("1e-5"),
    );
    let mut prev: Option<PldReport> = None;
    for k in 1u32..=4 {
        let g = dpsgd_group_pld_epsilon(&r, &s, &t, k, &d, &opts()).unwrap();
        println!("K = {k}: [{:.6}, {:.6}]", lo(&g).to_f64(), hi(&g).to_f64());
        if let Some(p) = &prev {
            assert!(hi(&g) >= hi(p), "upper({k}) < upper({})", k - 1);
            assert!(lo(&g) <= hi(&g));
        }
        prev = Some(g);
    }
}

#[test]
fn bad_group_size_is_an_error() {
    let (r, s, t, d) = (
        rational("1/50"),
        rational("1"),
        Integer::from(20),
        rational("1e-5"),
    );
    for k in [0u32, MAX_GROUP + 1] {
        let e = dpsgd_group_pld_epsilon(&r, &s, &t, k, &d, &opts()).unwrap_err();
        assert!(e.to_string().contains("group_size"), "{e}");
    }
}

fn dpcert(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_dpcert"))
        .args(args)
        .output()
        .unwrap()
}

const RUN: [&str; 8] = [
    "dpsgd", "--rate", "1", "--sigma", "4", "--steps", "10", "--delta",
];

/// (lower, upper) of a `dpsgd --json` answer.
fn bracket(args: &[&str]) -> (f64, f64, serde_json::Value) {
    let out = dpcert(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let val = &v["result"]["value"];
    let f = |k: &str| val[k].as_str().unwrap().parse::<f64>().unwrap();
    (f("lower"), f("upper"), v["result"]["details"].clone())
}

#[test]
fn cli_both_user_samplings_at_full_batch_against_corollary_8() {
    // q = 1: both samplings put all K examples in every batch: ε* of sensitivity K, T-fold
    let rho = Rational::from((10u32 * 9, 2u32)) / 16u32;
    let exact = common::gaussian_epsilon_star(&rho, &rational("1e-5")).to_f64();
    let mut args: Vec<&str> = RUN.to_vec();
    args.extend(["1e-5", "--group-size", "3", "--json"]);
    let (ul, uh, d) = bracket(&args);
    println!("users: [{ul}, {uh}], ε* = {exact}");
    assert_eq!(d["user_sampling"], "users");
    // users: exact route, a PLD bracket around ε* (printed decimals: 1e-9 slack)
    assert!(ul <= exact + 1e-9 && exact <= uh + 1e-9 && uh <= exact * 1.001);
    args.extend(["--user-sampling", "examples"]);
    let (el, eh, d) = bracket(&args);
    println!("examples: [{el}, {eh}]");
    assert_eq!(d["user_sampling"], "examples");
    assert!(d["group_route"].as_str().unwrap().contains("group privacy"));
    assert!(el <= exact && exact <= eh + 1e-9 && eh <= 3.0 * exact);
}

#[test]
fn cli_bad_group_input_exits_2_naming_the_flag() {
    let cases: [(&[&str], &str); 4] = [
        (&["--group-size", "0"], "--group-size"),
        (&["--group-size", "two"], "--group-size"),
        (
            &["--group-size", "2", "--user-sampling", "bogus"],
            "--user-sampling",
        ),
        (
            &["--group-size", "2", "--relation", "substitution"],
            "--group-size",
        ),
    ];
    for (extra, flag) in cases {
        let mut args: Vec<&str> = RUN.to_vec();
        args.push("1e-5");
        args.extend(extra);
        let out = dpcert(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(flag), "{extra:?}: {err}");
        assert!(out.stdout.is_empty(), "{extra:?}: a number was printed");
    }
}

#[test]
fn cli_calibrate_examples_is_one_sided_and_above_the_exact_sigma() {
    // q = 1, T = 3, K = 2: exact ε(σ) is Corollary 8 at ρ = T·K²/(2σ²); σ* solves ε(σ*) = 8
    let (t, k, target, d) = (3u32, 2u32, 8.0f64, rational("1e-5"));
    let eps_at = |s: &Rational| {
        common::gaussian_epsilon_star(
            &(Rational::from(t * k * k) / (Rational::from(s * s) * 2u32)),
            &d,
        )
        .to_f64()
    };
    let (mut a, mut b) = (Rational::from(1), Rational::from(4));
    for _ in 0..40 {
        let m = Rational::from(&a + &b) / 2u32;
        if eps_at(&m) > target {
            a = m;
        } else {
            b = m;
        }
    }
    let star = b.to_f64();
    let out = dpcert(&[
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
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["result"];
    let sigma: f64 = r["value"].as_str().unwrap().parse().unwrap();
    println!(
        "calibrated σ = {sigma}, exact σ* = {star}, ratio {}",
        sigma / star
    );
    assert_eq!(r["user_sampling"], "examples");
    assert!(
        r["infeasible"].is_null(),
        "one-sided route claimed infeasibility"
    );
    assert!(!r["bound_exceeds"].is_null());
    // feasible: exact ε at σ ≤ target ⇔ σ ≥ σ* (a σ below σ* would be unsound)
    assert!(sigma >= star * (1.0 - 1e-12), "σ below the exact optimum");
    assert!(
        sigma <= star * 1.05,
        "σ more than 5% above the exact optimum"
    );
}
