//! `dpcert audit FILE --calibrate sigma`: the smallest σ of a deployment's one DP-SGD entry
//! meeting its claim. Reference: at q = 1 (and for shuffled runs, per pass) the run is a
//! Gaussian composition, so the exact σ* solves Corollary 8's δ(ε; ρ = k/(2σ²)) = δ, found
//! here by bisection on the 1024-bit formula (tests/common), independent of the crate.
mod common;
use common::{rational, run, REF};
use rug::{Float, Rational};
use serde_json::Value;

fn temp(name: &str, text: &str) -> String {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-cal-{name}-{}.toml", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// σ* with δ(ε; ρ = k/(2σ²)) = δ, by bisection (δ(ε) decreases in σ).
fn sigma_star(k: u32, eps: &str, delta: &str) -> Float {
    let d = Float::with_val(REF, &rational(delta));
    let (mut lo, mut hi) = (Float::with_val(REF, 1e-3), Float::with_val(REF, 1e3));
    for _ in 0..200 {
        let m = Float::with_val(REF, &lo + &hi) / 2u32;
        let s = m.to_rational().unwrap();
        let rho = Rational::from(k) / (Rational::from(&s * &s) * 2u32);
        if common::gaussian_delta(&rho, &rational(eps)) > d {
            lo = m;
        } else {
            hi = m;
        }
    }
    hi
}

fn calibrated(file: &str, code: i32) -> Value {
    let (got, out, err) = run(&["audit", file, "--calibrate", "sigma", "--json"]);
    assert_eq!(got, code, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn sig(v: &Value) -> Float {
    Float::with_val(REF, &rational(v["sigma"].as_str().unwrap()))
}

/// q = 1, 20 steps, claim (1, 1e-6): infeasible σ < σ* ≤ feasible σ ≤ σ*·(1 + 2·10⁻³), and
/// the deployment audited at the feasible σ verifies the claim (exit 0).
#[test]
fn poisson_entry_sigma_brackets_the_exact_sigma() {
    let f = temp("q1", "[claim]\nepsilon = 1\ndelta = \"1e-6\"\n[[mechanism]]\nname = \"sgd\"\ntype = \"subsampled-gaussian\"\nrate = 1\nsigma = 1\nsteps = 20\n");
    let e = calibrated(&f, 0);
    let c = &e["result"]["calibration"];
    let star = sigma_star(20, "1", "1e-6");
    let (fe, inf) = (sig(&c["feasible"]), sig(&c["infeasible"]));
    assert!(inf < star && star <= fe, "{inf} < {star} ≤ {fe}");
    assert!(fe <= Float::with_val(REF, &star * 1.002), "{fe} vs {star}");
    assert_eq!(e["result"]["verdict"], "verified");
    assert_eq!(c["value"], c["feasible"]["sigma"]);
    assert_eq!(
        e["result"]["mechanisms"][0]["sigma"],
        c["feasible"]["sigma"]
    );
}

/// A shuffled entry (1000 steps at q = 1/100: 10 passes): σ* ≤ feasible σ ≤ σ*·(1 + 2·10⁻³),
/// no infeasibility certificate (the shuffled bound is an upper bound only), verified.
#[test]
fn shuffled_entry_sigma_is_feasible_only() {
    let f = temp("shuf", "[claim]\nepsilon = 2\ndelta = \"1e-5\"\n[[mechanism]]\ntype = \"subsampled-gaussian\"\nrate = \"1/100\"\nsigma = 1\nsteps = 1000\nsampling = \"shuffled\"\n");
    let e = calibrated(&f, 0);
    let c = &e["result"]["calibration"];
    let star = sigma_star(10, "2", "1e-5");
    let fe = sig(&c["feasible"]);
    assert!(
        star <= fe && fe <= Float::with_val(REF, &star * 1.002),
        "{star} ≤ {fe}"
    );
    assert!(c["infeasible"].is_null());
    assert_eq!(c["feasible"]["epsilon"]["kind"], "upper-bound");
    assert_eq!(e["result"]["verdict"], "verified");
}

/// What cannot be calibrated exits 2 naming --calibrate.
#[test]
fn refusals_name_the_flag() {
    let sgd =
        "[[mechanism]]\ntype = \"subsampled-gaussian\"\nrate = \"0.01\"\nsigma = 1\nsteps = 10\n";
    let claim = "[claim]\nepsilon = 1\ndelta = \"1e-5\"\n";
    for (name, text, param) in [
        (
            "noclaim",
            format!("[budget]\ndelta = \"1e-5\"\n{sgd}"),
            "sigma",
        ),
        (
            "two",
            format!("{claim}{sgd}[[mechanism]]\ntype = \"gaussian\"\nsigma = 3\n"),
            "sigma",
        ),
        (
            "gauss",
            format!("{claim}[[mechanism]]\ntype = \"gaussian\"\nsigma = 3\n"),
            "sigma",
        ),
        ("param", format!("{claim}{sgd}"), "steps"),
    ] {
        let f = temp(name, &text);
        let (code, _, err) = run(&["audit", &f, "--calibrate", param]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.contains("--calibrate") && !err.contains("panicked"),
            "{name}: {err}"
        );
    }
}

/// Substitution entries (relation = "substitution"): at q = 1 every sampler is the Gaussian
/// with replace-one sensitivity 2 — Poisson and fixed-size include the one example in every
/// step, shuffled makes one pass per step — so T steps are Corollary 8 at ρ = 4T/(2σ²), i.e.
/// σ*(Δ = 2) = 2·σ*(Δ = 1) of `sigma_star`. Each sampler's feasible σ is ≥ that σ* and within
/// 10⁻² of it (fixed-size and shuffled calibrate on an upper bound only: no infeasibility
/// certificate; Poisson's two-sided bracket at q = 1 may give one, below σ*), and the
/// deployment at the feasible σ is verified.
#[test]
fn substitution_entries_calibrate_by_their_route() {
    let star = Float::with_val(REF, sigma_star(5, "2", "1e-5") * 2u32);
    for sampling in ["poisson", "fixed-size", "shuffled"] {
        let f = temp(
            &format!("sub-{sampling}"),
            &format!("[claim]\nepsilon = 2\ndelta = \"1e-5\"\n[[mechanism]]\ntype = \"subsampled-gaussian\"\nrate = 1\nsigma = 1\nsteps = 5\nsampling = \"{sampling}\"\nrelation = \"substitution\"\n"),
        );
        let e = calibrated(&f, 0);
        let c = &e["result"]["calibration"];
        let fe = sig(&c["feasible"]);
        assert!(
            star <= fe && fe <= Float::with_val(REF, &star * 1.01),
            "{sampling}: σ* = {star}, feasible {fe}"
        );
        if !c["infeasible"].is_null() {
            let inf = sig(&c["infeasible"]);
            assert!(inf < star, "{sampling}: infeasible {inf} ≥ σ* {star}");
        }
        assert_eq!(e["result"]["verdict"], "verified", "{sampling}");
        assert_eq!(
            e["result"]["mechanisms"][0]["sigma"],
            c["feasible"]["sigma"]
        );
    }
}
