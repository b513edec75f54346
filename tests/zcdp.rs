//! Definition 11 – Theorem 18 and Theorem 22: containment and tightness of every formula.
mod common;
use common::{check, f, ln_inv, rational, rational_in, small_delta, REF};
use dpcert::num::Precision;
use dpcert::theorems::approx::approx_advanced_composition;
use dpcert::theorems::basic::{basic_composition, laplace_privacy_loss};
use dpcert::theorems::zcdp::*;
use proptest::prelude::*;
use rug::{Float, Integer, Rational};

const TIGHT: f64 = 1e-12;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn zcdp_formulas(rho in rational_in(0.001, 20.0), eps in rational_in(0.0, 50.0), delta in small_delta(), t in rational_in(0.01, 100.0)) {
        prop_assume!(rho > 0 && t > 0);
        let p = Precision::Auto;
        check(&zcdp_delta_at(&rho, &eps, &t, p).unwrap(), &common::zcdp_delta_at(&rho, &eps, &t).min(&Float::with_val(REF, 1)).clone(), TIGHT, "Prop 14 at t");
        if eps >= rho {
            let g = Float::with_val(REF, f(&eps) - f(&rho));
            let r = (-(Float::with_val(REF, &g * &g) / (f(&rho) * 4u32))).exp();
            check(&zcdp_delta_closed_form(&rho, &eps, p).unwrap(), &r, TIGHT, "closed form");
            // optimised is never worse than the closed form
            prop_assert!(zcdp_delta(&rho, &eps, p).unwrap().upper().to_float() <= zcdp_delta_closed_form(&rho, &eps, p).unwrap().upper().to_float());
        }
        let l = ln_inv(&delta);
        let bs16 = f(&rho) + Float::with_val(REF, f(&rho) * &l).sqrt() * 2u32;
        check(&zcdp_epsilon_closed_form(&rho, &delta, p).unwrap(), &bs16, TIGHT, "Remark 15 ε");
        prop_assert!(zcdp_epsilon(&rho, &delta, p).unwrap().upper().to_float() <= zcdp_epsilon_closed_form(&rho, &delta, p).unwrap().upper().to_float());
        if eps > 0 {
            let e = f(&eps);
            let suff = Float::with_val(REF, &e * &e) / (Float::with_val(REF, &l * 4u32) + Float::with_val(REF, &e * 4u32));
            check(&zcdp_rho_sufficient(&eps, &delta, p).unwrap(), &suff, TIGHT, "sufficient ρ");
            let exact = (Float::with_val(REF, &l + &e).sqrt() - l.clone().sqrt()).square();
            check(&zcdp_rho_exact(&eps, &delta, p).unwrap(), &exact, TIGHT, "exact-inverse ρ");
            let sig = (Float::with_val(REF, &l + &e) * 2u32).sqrt() / &e;
            check(&gaussian_sigma_zcdp(&eps, &delta, &rational("1"), p).unwrap(), &sig, TIGHT, "Gaussian σ");
        }
    }

    /// Theorem 18 with the zCDP route it is proven by; Theorem 22 with its min.
    #[test]
    fn advanced_and_approx(e0 in rational_in(0.001, 2.0), k in 1u32..500, delta in small_delta(), dj in 0u32..5) {
        let p = Precision::Auto;
        let s2 = Float::with_val(REF, f(&e0) * f(&e0)) * k;
        let l = ln_inv(&delta);
        let r = Float::with_val(REF, &s2 / 2u32) + (Float::with_val(REF, &s2 * &l) * 2u32).sqrt();
        check(&advanced_composition(&[(e0.clone(), Integer::from(k))], &delta, p).unwrap(), &r, TIGHT, "Theorem 18");
        // Theorem 22 with δⱼ = dj·δ/(10k): δ' = δ − Σδⱼ
        let each = Rational::from(&delta * dj) / (10 * k);
        let mechs = vec![(e0.clone(), each.clone(), Integer::from(k))];
        let slack = &delta - Rational::from(&each * k);
        let l2 = ln_inv(&slack);
        let adv = Float::with_val(REF, &s2 / 2u32) + (Float::with_val(REF, &s2 * &l2) * 2u32).sqrt();
        let basic = f(&Rational::from(&e0 * k)); // exact Σε, rounded once
        check(&approx_advanced_composition(&mechs, &delta, p).unwrap(), &adv.min(&basic).clone(), TIGHT, "Theorem 22");
    }
}

#[test]
fn published_values() {
    // cross-check values of Proposition 14 (inf form) and Bun–Steinke 2016, computed outside this repository
    for (rho, eps, v) in [
        ("0.125", "1", 0.0179854),
        ("0.5", "2", 0.0542930),
        ("1", "5", 0.0026120),
    ] {
        let d = zcdp_delta(&rational(rho), &rational(eps), Precision::Auto).unwrap();
        assert!((d.upper().to_f64() - v).abs() < 5e-7, "{rho} {eps}");
    }
    let e =
        zcdp_epsilon_closed_form(&rational("0.125"), &rational("1e-5"), Precision::Auto).unwrap();
    assert!((e.upper().to_f64() - 2.52426).abs() < 1e-5);
    let r = zcdp_rho_exact(&rational("1"), &rational("1e-5"), Precision::Auto).unwrap();
    assert!((r.formula().upper().to_f64() - 0.020820).abs() < 1e-6);
}

#[test]
fn basic_composition_and_its_optimality() {
    let (e, d) = basic_composition(&[
        (rational("0.1"), rational("1e-6")),
        (rational("0.25"), rational("0")),
        (rational("1/3"), rational("2e-7")),
    ])
    .unwrap();
    assert_eq!(e, rational("0.1") + rational("0.25") + rational("1/3"));
    assert_eq!(d, rational("1.2e-6"));
    // Laplace example: k = 5 queries, each Laplace(k/ε) with ε = 1 ⇒ εⱼ = 1/5; f(x) = f(x') + 1
    let k = 5;
    let scales = vec![rational("5"); k];
    let fxp: Vec<Rational> = (0..k).map(|j| Rational::from(j as i32)).collect();
    let fx: Vec<Rational> = fxp.iter().map(|v| Rational::from(v + 1)).collect();
    let y = vec![rational("100"); k];
    assert_eq!(
        laplace_privacy_loss(&scales, &fx, &fxp, &y).unwrap(),
        rational("1")
    );
    // below the maximum, the loss is smaller
    let y_low = vec![rational("-100"); k];
    assert_eq!(
        laplace_privacy_loss(&scales, &fx, &fxp, &y_low).unwrap(),
        rational("-1")
    );
    assert!(basic_composition(&[]).is_err());
    assert!(basic_composition(&[(rational("-1"), rational("0"))]).is_err());
}

/// inf over t > 0 of Proposition 14's ln δ_t(ε), by an independent golden-section search over
/// u = ln t ∈ [−700, 700] at 1024 bits (ln δ_t is convex in t, so unimodal in u).
fn ln_delta_opt(rho: &Rational, eps: &Rational) -> Float {
    common::golden_argmin(
        |u| common::zcdp_ln_delta_t(rho, eps, &u.clone().exp()),
        -700.0,
        700.0,
    )
    .1
}

/// inf over t > 0 of Proposition 14's ε_t(δ), clamped at 0 (golden section over u = ln t).
fn eps_opt(rho: &Rational, delta: &Rational) -> Float {
    let v = common::golden_argmin(
        |u| common::zcdp_eps_t(rho, delta, &u.clone().exp()),
        -700.0,
        700.0,
    )
    .1;
    v.max(&Float::new(REF)).clone()
}

/// `upper` of an optimised zCDP bound against the optimum of its formula: optimum ≤ upper ≤
/// optimum·(1 + rel). Where the optimum is 0 the bound must be exactly 0.
fn check_optimum(b: &dpcert::UpperBound, opt: &Float, rel: f64, what: &str) {
    let up = b.upper().as_float();
    if *opt == 0 {
        assert!(
            *up == 0,
            "{what}: optimum 0, bound {}",
            b.upper().to_decimal()
        );
        return;
    }
    assert!(
        opt <= up,
        "{what}: bound {} below the optimum {}",
        b.upper().to_decimal(),
        opt.to_string_radix(10, Some(20))
    );
    assert!(
        Float::with_val(REF, up - opt) <= Float::with_val(REF, opt * rel),
        "{what}: bound {} vs optimum {}",
        b.upper().to_decimal(),
        opt.to_string_radix(10, Some(25))
    );
}

/// The MPFR exponent range ends near e^{−7.4e8}: optimised δ's below it are reported as the
/// smallest positive float (sound), which no relative width can describe.
const LN_DELTA_FLOOR: f64 = -7.0e8;

/// m·10^e with e in a range, as an exact rational.
fn magnitude(lo: i32, hi: i32) -> impl Strategy<Value = Rational> {
    (1u32..10, lo..=hi).prop_map(|(m, e)| common::pow10(m, e))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Issue 14 sweep: ρ from 1e-300 to 1e8, ε = 0 or from 1e-300 to 1e12, δ from 0.9 down to
    /// 1e-400. The optimised forms answer, are finite, and lie within 1e-12 relative above the
    /// optimum over t of their formula (independent golden-section reference).
    #[test]
    fn optimised_forms_reach_the_optimum(rho in magnitude(-300, 8), eps in prop_oneof![Just(Rational::new()), magnitude(-300, 12)], delta in (1u32..10, 1i32..=400).prop_map(|(m, k)| common::pow10(m, -k))) {
        let p = Precision::Auto;
        let d = zcdp_delta(&rho, &eps, p).unwrap();
        prop_assert!(d.upper().as_float().is_finite());
        let ld = ln_delta_opt(&rho, &eps);
        if ld > LN_DELTA_FLOOR {
            let opt = ld.exp().min(&Float::with_val(REF, 1)).clone();
            check_optimum(&d, &opt, 1e-12, "zcdp_delta");
            prop_assert!(*d.formula().lower().as_float() > 0);
        } else {
            prop_assert!(*d.upper().as_float() < 1e-300);
        }
        let e = zcdp_epsilon(&rho, &delta, p).unwrap();
        prop_assert!(e.upper().as_float().is_finite());
        check_optimum(&e, &eps_opt(&rho, &delta), 1e-12, "zcdp_epsilon");
    }
}

/// Issue 14's examples: ρ = 1e-300 (the optimal t ≈ 7e149 lies far beyond the old search range).
#[test]
fn tiny_rho_reaches_the_optimum() {
    let rho = rational("1e-300");
    let d = zcdp_delta(&rho, &rational("0"), Precision::Auto).unwrap();
    check_optimum(
        &d,
        &ln_delta_opt(&rho, &rational("0")).exp(),
        1e-12,
        "ρ = 1e-300, ε = 0",
    );
    assert!(d.upper().to_f64() < 8.6e-151 && d.upper().to_f64() > 8.5e-151);
    for delta in ["1e-200", "1e-300", "1e-400"] {
        let e = zcdp_epsilon(&rho, &rational(delta), Precision::Auto).unwrap();
        check_optimum(&e, &eps_opt(&rho, &rational(delta)), 1e-12, delta);
    }
}

#[test]
fn ledger_composes_adaptively() {
    let mut l = ZcdpLedger::new();
    l.push_gaussian(&rational("2"), &rational("1")).unwrap();
    l.push_pure(&rational("0.5")).unwrap();
    l.push_zcdp(&rational("0.01")).unwrap();
    assert_eq!(
        *l.rho(),
        rational("1/8") + rational("1/8") + rational("0.01")
    );
    assert_eq!(l.len(), 3);
    // the ledger's conversions against the independent optimum over t for the exact total ρ
    let total = rational("0.26");
    let a = l.epsilon(&rational("1e-6"), Precision::Auto).unwrap();
    check_optimum(&a, &eps_opt(&total, &rational("1e-6")), 1e-12, "ledger ε");
    let d = l.delta(&rational("2"), Precision::Auto).unwrap();
    check_optimum(
        &d,
        &ln_delta_opt(&total, &rational("2")).exp(),
        1e-12,
        "ledger δ",
    );
    assert!(l.push_zcdp(&rational("-1")).is_err());
}

/// Lemma 12, Theorem 13, Proposition 16: exact rationals against hand-derived values.
#[test]
fn exact_conversions() {
    assert_eq!(
        gaussian_zcdp(&rational("2"), &rational("3")).unwrap(),
        rational("9/8")
    );
    assert_eq!(
        gaussian_zcdp(&rational("1e-200"), &rational("1")).unwrap(),
        common::pow10(5, 399)
    );
    assert_eq!(
        zcdp_compose(&[rational("1/3"), rational("1e-400"), rational("0")]).unwrap(),
        rational("1/3") + common::pow10(1, -400)
    );
    assert_eq!(pure_to_zcdp(&rational("0.3")).unwrap(), rational("0.045"));
    assert_eq!(
        pure_to_zcdp(&rational("1e12")).unwrap(),
        common::pow10(5, 23)
    );
    assert!(gaussian_zcdp(&rational("0"), &rational("1")).is_err());
    assert!(zcdp_compose(&[]).is_err());
    assert!(pure_to_zcdp(&rational("-1")).is_err());
}

#[test]
fn laplace_scale_comparison() {
    let (basic, adv) = laplace_scales(
        &Integer::from(1000),
        &rational("1"),
        &rational("1e-6"),
        Precision::Auto,
    )
    .unwrap();
    assert!(basic.formula().contains_rational(&rational("1000")));
    assert!(adv.upper().to_float() < basic.formula().lower().to_float()); // Θ(√k) beats Θ(k) at k = 1000
    let rho = f(&rational("1")) / (ln_inv(&rational("1e-6")) * 4u32 + 4u32);
    let r = (Float::with_val(REF, 1000) / (rho * 2u32)).sqrt();
    check(&adv, &r, TIGHT, "advanced scale");
}
