//! μ-GDP (Dong–Roth–Su 2022): the Gaussian composition's exact μ = Δ√K/σ, and DP-SGD's
//! μ* = √T/σ (two-sided, the lower end by a re-checked witness).
mod common;
use common::{check, rational, REF};
use dpcert::num::Enclosure;
use dpcert::num::Precision;
use dpcert::theorems::gaussian::{gaussian_composition, GaussianMechanism};
use dpcert::theorems::gdp::{dpsgd_gdp, gaussian_gdp, DpsgdGdp};
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

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
        let m = GaussianMechanism::new(rational(s), rational(d), Integer::from(k)).unwrap();
        let g = gaussian_composition(&[m]).unwrap();
        let reference = Float::with_val(REF, &rational(d)) * Float::with_val(REF, k).sqrt()
            / Float::with_val(REF, &rational(s));
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
    let m1 = GaussianMechanism::new(rational("2"), rational("1"), Integer::from(3)).unwrap();
    let m2 = GaussianMechanism::new(rational("0.5"), rational("0.25"), Integer::from(5)).unwrap();
    let g = gaussian_composition(&[m1, m2]).unwrap();
    // μ² = 3/4 + 5/4 = 2
    let reference = Float::with_val(REF, 2).sqrt();
    let e = gaussian_gdp(&g, Precision::Bits(200)).unwrap();
    check(&e, &reference, 2f64.powi(-190), "√2");
}

#[test]
fn gdp_bad_rho_is_an_error() {
    let g = dpcert::theorems::pld::GaussianPld { rho: rational("0") };
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
    let reference = Float::with_val(REF, &rational("0.9725")).sqrt();
    assert!(
        rational(lo) <= reference && reference <= rational(hi),
        "[{lo}, {hi}]"
    );
    assert!(rug::Rational::from(&rational(hi) - &rational(lo)) < rational("1e-15"));
}

/// a = √T/σ as the exact rational a² = T/σ².
fn a_squared(sigma: &str, steps: u64) -> Rational {
    Rational::from(steps) / (rational(sigma) * rational(sigma))
}

/// lower² ≤ T/σ² ≤ upper² exactly, lower ≥ 0, and the bracket at most `rel` relative wide.
fn brackets_sqrt(e: &Enclosure, a2: &Rational, rel: f64, what: &str) {
    let lo = e.lower().as_float().to_rational().unwrap();
    let hi = e.upper().as_float().to_rational().unwrap();
    assert!(lo >= 0, "{what}: lower {lo} < 0");
    assert!(
        Rational::from(&lo * &lo) <= *a2 && *a2 <= Rational::from(&hi * &hi),
        "{what}: [{}, {}] misses √(T/σ²)",
        e.lower(),
        e.upper()
    );
    let width = Rational::from(&hi - &lo) / &hi;
    assert!(
        width <= rel,
        "{what}: relative width {} > {rel}",
        width.to_f64()
    );
}

/// q = 1 is T Gaussian steps, exactly √T/σ-GDP: the bracket contains √T/σ (exact rational
/// squares) and is ≤ 1e-11 relative wide.
#[test]
fn dpsgd_gdp_q1_is_sqrt_t_over_sigma() {
    for (s, t) in [
        ("2", 16u64),
        ("1.1", 14063),
        ("0.7", 1),
        ("1e-30", 3),
        ("3e40", 1_000_000),
    ] {
        let r = dpsgd_gdp(
            &rational("1"),
            &rational(s),
            &Integer::from(t),
            Precision::Auto,
        )
        .unwrap();
        brackets_sqrt(&r.mu, &a_squared(s, t), 1e-11, &format!("q=1 σ={s} T={t}"));
        assert!(r.witness.is_none());
    }
}

/// q < 1: still exactly √T/σ (no amplification). The bracket contains it, is ≤ 1e-11 relative
/// wide under `Auto`, narrower under `Bits(256)`, and the lower end carries a witness.
#[test]
fn dpsgd_gdp_subsampled_brackets_sqrt_t_over_sigma() {
    for (r, s, t) in [
        ("0.5", "1", 3u64),
        ("256/60000", "1.1", 14063),
        ("0.01", "4", 10000),
        ("1e-9", "0.5", 1),
        ("0.999999", "1e-20", 1_000_000_000),
        ("1e-300", "7", 123_456_789),
    ] {
        let what = format!("q={r} σ={s} T={t}");
        let g = dpsgd_gdp(
            &rational(r),
            &rational(s),
            &Integer::from(t),
            Precision::Auto,
        )
        .unwrap();
        brackets_sqrt(&g.mu, &a_squared(s, t), 1e-11, &what);
        let w = g.witness.expect("a verified witness");
        assert_eq!(
            w.mu,
            g.mu.lower().as_float().to_rational().unwrap(),
            "{what}"
        );
        let g = dpsgd_gdp(
            &rational(r),
            &rational(s),
            &Integer::from(t),
            Precision::Bits(256),
        )
        .unwrap();
        brackets_sqrt(
            &g.mu,
            &a_squared(s, t),
            1e-70,
            &format!("{what} at 256 bits"),
        );
    }
}

/// Φ̄(x) = erfc(x/√2)/2 at `p` bits (MPFR's erfc: the far tail keeps relative accuracy).
fn normal_sf(x: &Float, p: u32) -> Float {
    let r = Float::with_val(p, x / Float::with_val(p, 2).sqrt());
    r.erfc() / 2u32
}

/// The witness, re-checked independently: at ≥ 4× the code's precision, with MPFR's erfc,
/// q^T·Φ̄(z − √T/σ) > Φ̄(z − μ_L) (the test Σx > zσ√T beats every μ_L-GDP mechanism), at
/// moderate gaps so that Φ̄(z − μ_L) stays inside MPFR's exponent range.
#[test]
fn dpsgd_gdp_witness_rechecked_with_erfc() {
    for (r, s, t, gap) in [
        ("0.5", "1", 3u64, "1/1000"),
        ("0.5", "1", 3, "1/10"),
        ("256/60000", "1.1", 14063, "1/10"),
        ("0.01", "4", 10000, "1/5"),
        ("1/3", "0.8", 50, "1/100"),
    ] {
        let what = format!("q={r} σ={s} T={t} gap={gap}");
        let g = DpsgdGdp::with_gap(
            &rational(r),
            &rational(s),
            &Integer::from(t),
            &rational(gap),
            Precision::Auto,
        )
        .unwrap();
        let w = g.witness.expect("a verified witness");
        let p = (4 * g.mu.precision_bits()).max(REF);
        // a rounded down: Φ̄(z − a) only grows with a
        let mut a = Float::with_val_round(p, &a_squared(s, t), Round::Down).0;
        a.sqrt_round(Round::Down);
        let z = Float::with_val(p, &w.z);
        let lhs = Float::with_val(p, &rational(r)).pow(u32::try_from(t).unwrap())
            * normal_sf(&Float::with_val(p, &z - &a), p);
        let rhs = normal_sf(&Float::with_val(p, &z - &Float::with_val(p, &w.mu)), p);
        assert!(lhs.is_normal() && rhs.is_normal(), "{what}: out of range");
        assert!(
            lhs > rhs,
            "{what}: q^T·Φ̄(z − a) = {lhs:.6e} ≤ Φ̄(z − μ) = {rhs:.6e}"
        );
        // the μ refuted is the lower end, below a by about the gap
        assert_eq!(w.mu, g.mu.lower().as_float().to_rational().unwrap());
        let mu = Float::with_val(p, &w.mu);
        assert!(
            mu < a && mu > Float::with_val(p, &a * (1.0 - 2.0 * rational(gap).to_f64())),
            "{what}"
        );
    }
}

/// Φ⁻¹(u) by bisection on MPFR's erfc at 1024 bits, to 1e-40 (test-side reference).
fn quantile(u: &Float) -> Float {
    let (mut lo, mut hi) = (Float::with_val(REF, -60), Float::with_val(REF, 60));
    for _ in 0..200 {
        let mid = Float::with_val(REF, &lo + &hi) / 2u32;
        // Φ(mid) = Φ̄(−mid)
        if normal_sf(&Float::with_val(REF, -&mid), REF) < *u {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Consistency with an independent certified algorithm: the PLD accountant's lower TPR at an
/// FPR α gives μ* ≥ Φ⁻¹(TPR̲) − Φ⁻¹(α); each such bound must be ≤ our upper end. At q = 1/2,
/// σ = 1, T = 4 the PLD bound also exceeds the CLT μ = q√(T(e^{1/σ²} − 1)) ≈ 1.31, so a
/// too-small upper end such as the CLT value would fail here.
#[test]
fn dpsgd_gdp_upper_above_pld_lower_bounds() {
    use dpcert::theorems::pld_accountant::{dpsgd_tradeoff_tpr, PldOptions};
    for (r, s, t) in [("0.5", "1", 4u64), ("0.1", "0.8", 20), ("1", "2", 16)] {
        let what = format!("q={r} σ={s} T={t}");
        let g = dpsgd_gdp(
            &rational(r),
            &rational(s),
            &Integer::from(t),
            Precision::Auto,
        )
        .unwrap();
        let up = g.mu.upper().to_float();
        let fprs: Vec<Rational> = ["1e-3", "1e-6", "1e-9"]
            .iter()
            .map(|a| rational(a))
            .collect();
        let reps = dpsgd_tradeoff_tpr(
            &rational(r),
            &rational(s),
            &Integer::from(t),
            &fprs,
            &PldOptions::default(),
        )
        .unwrap();
        let mut best = Float::with_val(REF, 0);
        for (alpha, rep) in fprs.iter().zip(&reps) {
            let tpr = rep.enclosure.lower().to_float();
            if tpr <= 0 || tpr >= 1 {
                continue;
            }
            // 1e-30 slack for the bisection
            let m = quantile(&Float::with_val(REF, &tpr))
                - quantile(&Float::with_val(REF, alpha))
                - Float::with_val(REF, 1e-30);
            assert!(m <= up, "{what}: PLD says μ* ≥ {m:.10} > upper {up}");
            if m > best {
                best = m;
            }
        }
        if r == "0.5" {
            let clt = Float::with_val(REF, 0.5)
                * Float::with_val(REF, 4 * (Float::with_val(REF, 1).exp() - 1u32)).sqrt();
            assert!(best > clt, "{what}: PLD lower {best:.6} ≤ CLT μ {clt:.6}");
        }
    }
}

/// Bad input: the theorem errors name the argument; the CLI exits 2 naming the flag; the
/// removed PLD flags are clap usage errors.
#[test]
fn dpsgd_gdp_bad_input() {
    let one = Integer::from(1);
    for (r, s, t, name) in [
        ("0", "1", 1u64, "rate"),
        ("1.5", "1", 1, "rate"),
        ("-0.5", "1", 1, "rate"),
        ("0.5", "0", 1, "sigma"),
        ("0.5", "-1", 1, "sigma"),
        ("0.5", "1", 0, "steps"),
    ] {
        let e = dpsgd_gdp(
            &rational(r),
            &rational(s),
            &Integer::from(t),
            Precision::Auto,
        )
        .unwrap_err();
        assert!(e.to_string().contains(name), "{e}");
    }
    for gap in ["0", "1", "2"] {
        assert!(DpsgdGdp::with_gap(
            &rational("0.5"),
            &rational("1"),
            &one,
            &rational(gap),
            Precision::Auto
        )
        .is_err());
    }
    assert!(dpsgd_gdp(&rational("0.5"), &rational("1"), &one, Precision::Bits(8)).is_err());
    for (args, flag) in [
        (["--rate", "0", "--sigma", "1", "--steps", "3"], "--rate"),
        (["--rate", "1.01", "--sigma", "1", "--steps", "3"], "--rate"),
        (["--rate", "0.1", "--sigma", "0", "--steps", "3"], "--sigma"),
        (
            ["--rate", "0.1", "--sigma", "-2", "--steps", "3"],
            "--sigma",
        ),
        (["--rate", "0.1", "--sigma", "1", "--steps", "0"], "--steps"),
        (
            ["--rate", "0.1", "--sigma", "1", "--steps", "2.5"],
            "--steps",
        ),
        (["--rate", "x", "--sigma", "1", "--steps", "3"], "--rate"),
        (
            ["--rate", "0.1", "--sigma", "NaN", "--steps", "3"],
            "--sigma",
        ),
    ] {
        let mut a = vec!["gdp", "dpsgd"];
        a.extend(args);
        let (code, out, err) = common::run(&a);
        assert_eq!(code, 2, "{a:?}: {out}{err}");
        assert!(err.contains(flag), "{a:?}: {err}");
    }
    for extra in [["--grid", "0.01"], ["--tail", "1e-9"]] {
        let mut a = vec![
            "gdp", "dpsgd", "--rate", "0.1", "--sigma", "1", "--steps", "3",
        ];
        a.extend(extra);
        let (code, _, err) = common::run(&a);
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(err.contains(extra[0]), "{err}");
    }
}

/// The CLI: `gdp dpsgd --json` is two-sided and its decimal ends bracket √T/σ exactly; the
/// plain output prints the 8-digit bracket.
#[test]
fn dpsgd_gdp_cli() {
    let args = [
        "gdp",
        "dpsgd",
        "--rate",
        "256/60000",
        "--sigma",
        "1.1",
        "--steps",
        "14063",
    ];
    let mut j = args.to_vec();
    j.push("--json");
    let (code, out, err) = common::run(&j);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let val = &v["result"]["value"];
    assert_eq!(v["result"]["quantity"], "mu");
    assert_eq!(val["kind"], "two-sided");
    let lo = rational(val["lower"].as_str().unwrap());
    let hi = rational(val["upper"].as_str().unwrap());
    let a2 = a_squared("1.1", 14063);
    assert!(
        Rational::from(&lo * &lo) <= a2 && a2 <= Rational::from(&hi * &hi),
        "[{lo}, {hi}]"
    );
    assert!(Rational::from(&hi - &lo) < rational("1e-9"));
    let (code, out, err) = common::run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[107.80683, 107.80684]"), "{out}");
}

/// `check` judges a claimed μ for `gdp dpsgd` against μ* = √T/σ: the CLT value and a value
/// 1e-15 relative below √T/σ are unsound, one 1e-15 above is sound.
#[test]
fn dpsgd_gdp_check() {
    let a = Float::with_val(REF, &a_squared("1.1", 14063)).sqrt();
    let fmt = |x: Float| x.to_string_radix(10, Some(40));
    let query = [
        "gdp",
        "dpsgd",
        "--rate",
        "256/60000",
        "--sigma",
        "1.1",
        "--steps",
        "14063",
    ];
    let recs = serde_json::json!([
        {"query": query, "value": "0.58"},
        {"query": query, "value": fmt(Float::with_val(REF, &a * (1.0 - 1e-15)))},
        {"query": query, "value": fmt(Float::with_val(REF, &a * (1.0 + 1e-15)))},
        {"query": query, "value": "108"},
    ]);
    let (code, verdicts, out, err) = common::check_verdicts("gdp-dpsgd", &recs.to_string());
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(verdicts, ["unsound", "unsound", "sound", "sound"]);
}
