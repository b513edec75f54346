//! μ-GDP (Dong–Roth–Su 2022): the Gaussian composition's exact μ = Δ√K/σ.
mod common;
use common::{check, q, REF};
use dpcert::num::Precision;
use dpcert::theorems::gaussian::{gaussian_composition, GaussianMechanism};
use dpcert::theorems::gdp::gaussian_gdp;
use rug::{Float, Integer};

/// μ = Δ·√K/σ at 1024 bits (the closed form, not √(2ρ)): containment and the documented
/// widths (Auto 2⁻⁴³, 128 bits 2⁻¹²⁰).
#[test]
fn gdp_gaussian_is_exact() {
    for (s, d, k) in [
        ("1", "1", 1u64),
        ("1.1", "1", 14063),
        ("0.7", "2", 10547),
        ("1e-200", "3", 1_000_000),
        ("1e200", "1", 7),
    ] {
        let m = GaussianMechanism::new(q(s), q(d), Integer::from(k)).unwrap();
        let g = gaussian_composition(&[m]).unwrap();
        let reference = Float::with_val(REF, &q(d)) * Float::with_val(REF, k).sqrt()
            / Float::with_val(REF, &q(s));
        for (p, w) in [
            (Precision::Auto, 2f64.powi(-43)),
            (Precision::Bits(128), 2f64.powi(-120)),
        ] {
            let e = gaussian_gdp(&g, p).unwrap();
            check(&e, &reference, w, &format!("μ σ={s} Δ={d} K={k}"));
        }
    }
}

/// Two mechanisms compose to √(μ₁² + μ₂²).
#[test]
fn gdp_composes_in_quadrature() {
    let m1 = GaussianMechanism::new(q("2"), q("1"), Integer::from(3)).unwrap();
    let m2 = GaussianMechanism::new(q("0.5"), q("0.25"), Integer::from(5)).unwrap();
    let g = gaussian_composition(&[m1, m2]).unwrap();
    // μ² = 3/4 + 5/4 = 2
    let reference = Float::with_val(REF, 2).sqrt();
    let e = gaussian_gdp(&g, Precision::Bits(200)).unwrap();
    check(&e, &reference, 2f64.powi(-190), "√2");
}

#[test]
fn gdp_bad_rho_is_an_error() {
    let g = dpcert::theorems::pld::GaussianPld { rho: q("0") };
    assert!(gaussian_gdp(&g, Precision::Auto).is_err());
}

/// The CLI: `gdp gaussian --json` is one dpcert/1 envelope whose `mu` contains Δ√K/σ.
#[test]
fn gdp_cli_json() {
    let (code, out, _) = common::run(&[
        "gdp",
        "gaussian",
        "--sigma",
        "2",
        "--compositions",
        "9",
        "--sensitivity",
        "3",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"]["quantity"], "mu");
    let lo: f64 = v["result"]["value"]["lower"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let hi: f64 = v["result"]["value"]["upper"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(lo <= 4.5 && 4.5 <= hi && hi - lo < 1e-12, "[{lo}, {hi}]");
    let (code, _, err) = common::run(&["gdp", "gaussian", "--sigma", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--sigma"), "{err}");
}

/// The audit of an all-Gaussian deployment reports μ on its exact route: for
/// examples/gaussian-survey.json, μ² = (0.02/0.05)² + (1.5/6)² + 12·(1/4)² = 0.9725.
#[test]
fn audit_reports_mu() {
    let (code, out, err) = common::run(&["audit", "examples/gaussian-survey.json", "--json"]);
    // the example's claim is refuted (exit 1); the report is printed all the same
    assert_eq!(code, 1, "{err}");
    let at = out.find("μ ∈ [").expect("μ step");
    let rest = &out[at + "μ ∈ [".len()..];
    let (lo, rest) = rest.split_once(", ").unwrap();
    let hi = &rest[..rest.find(']').unwrap()];
    let reference = Float::with_val(REF, &q("0.9725")).sqrt();
    assert!(q(lo) <= reference && reference <= q(hi), "[{lo}, {hi}]");
    assert!(rug::Rational::from(&q(hi) - &q(lo)) < q("1e-15"));
}

/// DP-SGD with q = 1 is T Gaussian steps, exactly √T/σ-GDP: the certified lower bound on the
/// smallest μ lies in [2(1 − 10⁻⁵), 2] for σ = 2, T = 16 (containment and tightness).
#[test]
fn dpsgd_gdp_lower_against_q1() {
    use dpcert::theorems::gdp::dpsgd_gdp_lower;
    use dpcert::theorems::pld_accountant::PldOptions;
    let b = dpsgd_gdp_lower(&q("1"), &q("2"), &Integer::from(16), &PldOptions::default()).unwrap();
    let l = b.lower().to_float();
    assert!(l <= 2 && l >= 2.0 * (1.0 - 1e-5), "{}", b.lower());
}
