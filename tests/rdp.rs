//! RDP of the Poisson-subsampled Gaussian (MTZ19) and the RDP → (ε, δ) conversion.
mod common;
use common::{check, f, rational, typed, REF};
use dpcert::num::Precision;
use dpcert::theorems::rdp::*;
use proptest::prelude::*;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn integer_orders_match_exact_binomial_sums(qn in 1u32..1000, sn in 5u32..80, n in 2u32..60, t in 1u32..2000) {
        let (qr, sigma) = (Rational::from((qn, 1000u32)), Rational::from((sn, 10u32)));
        let got = subsampled_gaussian_rdp(&qr, &sigma, &Integer::from(t), &Rational::from(n), Precision::Auto).unwrap();
        let reference = common::sgm_log_a(&qr, &sigma, n) * t / (n - 1);
        check(&got, &reference, 1e-25, "RDP at an integer order");
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]
    /// Fractional orders (issue 14), including orders just above 1 and large σ: containment of
    /// the independent trapezoidal quadrature (1024 bits) at the documented 1e-7 relative width
    /// (σ ≥ 0.5, q ∈ [0.001, 0.999], α ≤ 8).
    #[test]
    fn fractional_orders_contain_quadrature(qn in 1u32..1000, se in -0.3f64..4.0, near in 0u32..8, fr in 1u32..7000) {
        let qr = Rational::from((qn, 1000u32));
        let sigma = common::rational(&format!("{:.3}", 10f64.powf(se)));
        // α = 1 + 10^-near·(fr/1000) (from 1 + 1e-10 to 8), never an integer
        let alpha = Rational::from(1) + Rational::from((fr, 1000u32)) / Rational::from(Integer::from(10).pow(near));
        prop_assume!(*alpha.denom() != 1);
        let got = subsampled_gaussian_rdp(&qr, &sigma, &Integer::from(1), &alpha, Precision::Auto).unwrap();
        let reference = common::sgm_log_a_frac_wide(&qr, &sigma, &alpha, 512) / (f(&alpha) - 1u32);
        prop_assert!(*got.lower().as_float() > 0);
        check(&got, &reference, 1e-7, "fractional order");
    }
}

/// Issue 14's examples: integer order 20 000 (e^{(k²−k)/(2σ²)} overflows MPFR), order 2000 at
/// σ = 0.05, and a fractional order just above 1 at large σ, q = 0.999 (was [0, 0.846]).
#[test]
fn issue14_examples() {
    for (qs, ss, n) in [("0.5", "0.5", 20_000u32), ("0.3", "0.05", 2000)] {
        let (qr, sigma) = (rational(qs), rational(ss));
        let got = subsampled_gaussian_rdp(
            &qr,
            &sigma,
            &Integer::from(1),
            &Rational::from(n),
            Precision::Auto,
        )
        .unwrap();
        let r = common::sgm_log_a_lse(&qr, &sigma, n) / (n - 1);
        check(&got, &r, 1e-25, qs);
    }
    let (qr, sigma, alpha) = (
        rational("0.999"),
        rational("356.90424"),
        rational("221/219"),
    );
    let got = subsampled_gaussian_rdp(
        &qr,
        &sigma,
        &Integer::from(107_975),
        &alpha,
        Precision::Auto,
    )
    .unwrap();
    let r = common::sgm_log_a_frac_wide(&qr, &sigma, &alpha, 512) * 107_975u32 / (f(&alpha) - 1u32);
    check(&got, &r, 1e-9, "221/219");
    assert!((r.to_f64() - 0.42684).abs() < 1e-4);
}

/// Integer orders from tiny to huge σ (1e-200 … 1e100) and tiny q: the exact binomial sums
/// (exact rational weights; log-sum-exp where e^{(k²−k)/(2σ²)} leaves the MPFR range) at 1e-25.
#[test]
fn integer_orders_at_extreme_magnitudes() {
    for ss in ["1e-200", "1e-3", "1e6", "1e100"] {
        for qs in ["1e-12", "0.5", "1"] {
            for n in [2u32, 3, 17, 200] {
                let (qr, sigma) = (rational(qs), rational(ss));
                let got = subsampled_gaussian_rdp(
                    &qr,
                    &sigma,
                    &Integer::from(1),
                    &Rational::from(n),
                    Precision::Auto,
                )
                .unwrap();
                let r = if ss == "1e-200" || ss == "1e-3" {
                    common::sgm_log_a_lse(&qr, &sigma, n)
                } else {
                    common::sgm_log_a(&qr, &sigma, n)
                } / (n - 1);
                assert!(
                    got.upper().as_float().is_finite() && *got.lower().as_float() > 0,
                    "{qs} {ss} {n}"
                );
                check(&got, &r, 1e-25, &format!("q={qs} σ={ss} n={n}"));
            }
        }
    }
}

/// Magnitude sweep at fractional orders (slow: 48 quadratures): q from 1e-6 to 0.999, σ from 0.5
/// to 1e4, α from 1 + 1e-6 to 40.25.
#[test]
#[ignore]
fn fractional_magnitude_sweep() {
    for qs in ["1e-6", "0.01", "0.5", "0.999"] {
        for ss in ["0.5", "3", "100", "10000"] {
            for a in ["1.000001", "1.5", "40.25"] {
                let (qr, sigma, alpha) = (rational(qs), rational(ss), rational(a));
                let got = subsampled_gaussian_rdp(
                    &qr,
                    &sigma,
                    &Integer::from(1),
                    &alpha,
                    Precision::Auto,
                )
                .unwrap();
                let r = common::sgm_log_a_frac_wide(&qr, &sigma, &alpha, REF) / (f(&alpha) - 1u32);
                assert!(*got.lower().as_float() > 0);
                check(&got, &r, 1e-7, &format!("q={qs} σ={ss} α={a}"));
            }
        }
    }
}

#[test]
fn published_values() {
    // MTZ19 closed forms at p = 0.01, σ = 1: α = 2 gives log(1 + p²(e − 1)); α = 3 gives 2.6463757e-4
    let one = Integer::from(1);
    let a2 = subsampled_gaussian_rdp(
        &rational("0.01"),
        &rational("1"),
        &one,
        &rational("2"),
        Precision::Auto,
    )
    .unwrap();
    let exact = Float::with_val(
        REF,
        Float::with_val(REF, 1).exp_m1() * f(&rational("0.0001")),
    )
    .ln_1p();
    check(&a2, &exact, 1e-25, "α = 2");
    let a3 = subsampled_gaussian_rdp(
        &rational("0.01"),
        &rational("1"),
        &one,
        &rational("3"),
        Precision::Auto,
    )
    .unwrap();
    assert!((a3.upper().to_f64() - 2.6463757e-4).abs() < 1e-10);
}

/// The MNIST DP-SGD setting: no worse than dp_accounting's RDP accountant, which reports
/// 2.596655529521983 at its best default order 8.1 (and 5.017150681163232 at δ = 1e-15);
/// searching real orders with certified fractional-order RDP does better.
#[test]
fn mnist_setting() {
    let (qr, sigma, t) = (rational("256/60000"), rational("1.1"), Integer::from(14063));
    let (e, alpha) = dpsgd_rdp_epsilon(
        &typed::rate(&qr),
        &typed::sigma(&sigma),
        &typed::steps(&t),
        &typed::delta(&rational("1e-5")),
        Precision::Auto,
    )
    .unwrap();
    eprintln!(
        "MNIST δ=1e-5: ε ≤ {} at α = {}",
        e.upper().to_decimal(),
        alpha
    );
    assert!(e.upper().to_f64() <= 2.596655529521983);
    let (e15, a15) = dpsgd_rdp_epsilon(
        &typed::rate(&qr),
        &typed::sigma(&sigma),
        &typed::steps(&t),
        &typed::delta(&rational("1e-15")),
        Precision::Auto,
    )
    .unwrap();
    eprintln!(
        "MNIST δ=1e-15: ε ≤ {} at α = {}",
        e15.upper().to_decimal(),
        a15
    );
    assert!(e15.formula().is_finite() && e15.upper().to_f64() <= 5.017150681163232);
}

#[test]
fn curve_composition_and_conversions() {
    let mut c = RdpCurve::new();
    c.push(
        RdpTerm::Zcdp {
            rho: rational("0.1"),
        },
        Integer::from(3),
    )
    .unwrap();
    c.push(
        RdpTerm::Pure {
            epsilon: rational("0.2"),
        },
        Integer::from(2),
    )
    .unwrap();
    let at = c.epsilon_at(&rational("4"), Precision::Auto).unwrap();
    // 3·4·0.1 + 2·min(0.2, 4·0.04/2) = 1.2 + 0.16 (exact rational reference)
    check(
        &at,
        &f(&rational("1.36")),
        1e-30,
        "ε(4) of a zCDP + pure curve",
    );
    // zCDP-only curve: RDP conversion equals the zCDP optimised conversion up to the order choice
    let mut z = RdpCurve::new();
    z.push(
        RdpTerm::Zcdp {
            rho: rational("0.5"),
        },
        Integer::from(1),
    )
    .unwrap();
    let (e, _) = rdp_to_dp(&z, &rational("1e-6"), Precision::Auto).unwrap();
    let zc =
        dpcert::theorems::zcdp::zcdp_epsilon(&rational("0.5"), &rational("1e-6"), Precision::Auto)
            .unwrap();
    assert!((e.upper().to_f64() - zc.upper().to_f64()).abs() < 1e-3 * zc.upper().to_f64());
    assert!(RdpCurve::new()
        .epsilon_at(&rational("2"), Precision::Auto)
        .is_err());
    assert!(subsampled_gaussian_rdp(
        &rational("0"),
        &rational("1"),
        &Integer::from(1),
        &rational("2"),
        Precision::Auto
    )
    .is_err());
    assert!(subsampled_gaussian_rdp(
        &rational("0.1"),
        &rational("1"),
        &Integer::from(1),
        &rational("1"),
        Precision::Auto
    )
    .is_err());
}

#[test]
fn fractional_orders_match_quadrature() {
    for (qs, ss, a) in [
        ("256/60000", "1.1", "8.1"),
        ("0.01", "1", "2.5"),
        ("0.1", "2", "17.3"),
        ("0.3", "0.8", "1.5"),
        ("0.9", "3", "4.25"),
    ] {
        let (qr, sigma, alpha) = (rational(qs), rational(ss), rational(a));
        let got = subsampled_gaussian_rdp(&qr, &sigma, &Integer::from(1), &alpha, Precision::Auto)
            .unwrap();
        let reference = common::sgm_log_a_frac(&qr, &sigma, &alpha) / (f(&alpha) - 1u32);
        // the documented fractional-order width (1e-7 relative for σ ≥ 0.5)
        check(&got, &reference, 1e-7, a);
    }
}

/// The conversion at the order the search picked contains the 1024-bit value of Proposition 14's
/// general form there, for ε at δ and δ at ε.
#[test]
fn conversions_contain_references() {
    for (qs, ss, t, d) in [
        ("256/60000", "1.1", 14063u32, "1e-5"),
        ("0.01", "4", 10000, "1e-15"),
        ("0.05", "0.9", 300, "1e-6"),
    ] {
        let (qr, sigma, dl) = (rational(qs), rational(ss), rational(d));
        let (e, alpha) = dpsgd_rdp_epsilon(
            &typed::rate(&qr),
            &typed::sigma(&sigma),
            &typed::steps(&Integer::from(t)),
            &typed::delta(&dl),
            Precision::Auto,
        )
        .unwrap();
        let k = reference_k_at(&qr, &sigma, &alpha) * t;
        let (a, a1) = (f(&alpha), f(&alpha) - Float::with_val(REF, 1));
        let conv = (k
            + (-f(&dl).ln())
            + Float::with_val(REF, &a1 * (-Float::with_val(REF, 1) / &a).ln_1p())
            - a.clone().ln())
            / &a1;
        check(&e, &conv.max(&Float::with_val(REF, 0)), 1e-7, qs);
        let c = sgm_curve(&qr, &sigma, t);
        let (dd, _) = rdp_to_dp_delta(
            &c,
            &Rational::from_f64(e.upper().to_f64()).unwrap(),
            Precision::Auto,
        )
        .unwrap();
        // at the certified ε the converted δ is at most the target (up to the search's order choice)
        assert!(
            dd.upper().to_f64() <= dl.to_f64() * 1.01,
            "{qs}: δ {} vs {}",
            dd.upper().to_decimal(),
            d
        );
    }
}

/// δ at ε: the certified value at the chosen order contains the 1024-bit value of
/// e^{K(α) − (α−1)ε}·(α−1)^{α−1}/α^α there.
#[test]
fn delta_conversion_contains_reference() {
    for (qs, ss, t, e) in [
        ("256/60000", "1.1", 14063u32, "2"),
        ("0.01", "4", 10000, "0.5"),
        ("0.05", "0.9", 300, "3"),
    ] {
        let (qr, sigma) = (rational(qs), rational(ss));
        let c = sgm_curve(&qr, &sigma, t);
        let (d, alpha) = rdp_to_dp_delta(&c, &rational(e), Precision::Auto).unwrap();
        let k = reference_k_at(&qr, &sigma, &alpha) * t;
        let (a, a1) = (f(&alpha), f(&alpha) - Float::with_val(REF, 1));
        let log_c =
            Float::with_val(REF, &a1 * a1.clone().ln()) - Float::with_val(REF, &a * a.clone().ln());
        let reference = (k - Float::with_val(REF, &a1 * f(&rational(e))) + log_c)
            .exp()
            .min(&Float::with_val(REF, 1))
            .clone();
        // K's 1e-7 relative width, times T·K(α) (about 10 here) after exp
        check(&d, &reference, 1e-6, qs);
    }
}

/// ln A_α at 1024 bits at any order: the exact sum at integers, quadrature otherwise.
fn reference_k_at(qr: &Rational, sigma: &Rational, alpha: &Rational) -> Float {
    if *alpha.denom() == 1 {
        common::sgm_log_a(qr, sigma, alpha.numer().to_u32().unwrap())
    } else {
        common::sgm_log_a_frac(qr, sigma, alpha)
    }
}

/// The RDP curve of `t` Poisson-subsampled Gaussian steps.
fn sgm_curve(qr: &Rational, sigma: &Rational, t: u32) -> RdpCurve {
    let mut c = RdpCurve::new();
    c.push(
        RdpTerm::SubsampledGaussian {
            rate: qr.clone(),
            sigma: sigma.clone(),
        },
        Integer::from(t),
    )
    .unwrap();
    c
}

/// CKS20's ε(α) at 1024 bits for a curve with (α−1)ε(α) = K: (K + ln(1/δ) + (α−1)ln(1−1/α) − ln α)/(α−1).
fn conv_eps(k: &Float, a: &Float, delta: &Rational) -> Float {
    let a1 = Float::with_val(REF, a - 1u32);
    let inv = Float::with_val(REF, -Float::with_val(REF, a.recip_ref())).ln_1p();
    (Float::with_val(REF, k + common::ln_inv(delta)) + Float::with_val(REF, &a1 * inv)
        - a.clone().ln())
        / a1
}

/// CKS20's ln δ(α) at 1024 bits: K − (α−1)ε + (α−1)ln(α−1) − α ln α.
fn conv_ln_delta(k: &Float, a: &Float, eps: &Rational) -> Float {
    let a1 = Float::with_val(REF, a - 1u32);
    Float::with_val(REF, k - Float::with_val(REF, &a1 * f(eps)))
        + Float::with_val(REF, &a1 * a1.clone().ln())
        - Float::with_val(REF, a * a.clone().ln())
}

/// Tightness of the conversions against the optimum of their formula over real orders
/// α ∈ [1.001, 20000]: a zCDP + pure curve (closed-form K), the optimum by an independent
/// golden-section search in ln(α − 1) at 1024 bits; the order grid (1/1024) costs < 1e-6.
#[test]
fn conversions_reach_the_optimum_over_orders() {
    let (rho, pe) = (rational("0.05"), rational("0.3"));
    let mut c = RdpCurve::new();
    c.push(RdpTerm::Zcdp { rho: rho.clone() }, Integer::from(4))
        .unwrap();
    c.push(
        RdpTerm::Pure {
            epsilon: pe.clone(),
        },
        Integer::from(3),
    )
    .unwrap();
    let k = |a: &Float| {
        let a1 = Float::with_val(REF, a - 1u32);
        let z = Float::with_val(REF, a * f(&rho)) * 4u32;
        let p = (Float::with_val(REF, a * f(&pe)) * f(&pe) / 2u32)
            .min(&f(&pe))
            .clone()
            * 3u32;
        (z + p) * a1
    };
    let alpha = |u: &Float| Float::with_val(REF, u.clone().exp() + 1u32);
    let (lo_u, hi_u) = ((1e-3f64).ln(), 19_999f64.ln());
    for d in ["1e-5", "1e-300", "1e-400"] {
        let (e, _) = rdp_to_dp(&c, &rational(d), Precision::Auto).unwrap();
        let opt = common::golden_argmin(
            |u| conv_eps(&k(&alpha(u)), &alpha(u), &rational(d)),
            lo_u,
            hi_u,
        )
        .1;
        let up = e.upper().as_float();
        assert!(
            &opt <= up && Float::with_val(REF, up - &opt) <= Float::with_val(REF, &opt * 1e-6),
            "ε at δ = {d}: {} vs {}",
            e.upper().to_decimal(),
            opt
        );
    }
    for eps in ["1", "5", "40"] {
        let (dd, _) = rdp_to_dp_delta(&c, &rational(eps), Precision::Auto).unwrap();
        let opt = common::golden_argmin(
            |u| conv_ln_delta(&k(&alpha(u)), &alpha(u), &rational(eps)),
            lo_u,
            hi_u,
        )
        .1
        .exp();
        let up = dd.upper().as_float();
        assert!(
            &opt <= up && Float::with_val(REF, up - &opt) <= Float::with_val(REF, &opt * 1e-6),
            "δ at ε = {eps}: {} vs {}",
            dd.upper().to_decimal(),
            opt
        );
    }
}

/// DP-SGD at extreme magnitudes (issue 14): steps to 1e9, δ to 1e-400, q from 1e-6 to 1: an
/// answer, finite and positive, never worse than the best integer order 2..=64 of the same
/// formula (exact binomial sums, independent of the crate's search and series).
#[test]
fn dpsgd_rdp_at_extreme_magnitudes() {
    for (qs, ss, t, d) in [
        ("0.001", "1", 1_000_000_000u32, "1e-400"),
        ("1e-6", "100", 1_000_000_000, "1e-5"),
        ("0.5", "0.1", 10, "1e-300"),
        ("1", "20", 1, "1e-10"),
    ] {
        let (qr, sigma, dl) = (rational(qs), rational(ss), rational(d));
        let (e, _) = dpsgd_rdp_epsilon(
            &typed::rate(&qr),
            &typed::sigma(&sigma),
            &typed::steps(&Integer::from(t)),
            &typed::delta(&dl),
            Precision::Auto,
        )
        .unwrap();
        let up = e.upper().as_float();
        assert!(up.is_finite() && *up > 0, "{qs} {ss} {t} {d}");
        let best = (2u32..=64)
            .map(|n| {
                conv_eps(
                    &(common::sgm_log_a_lse(&qr, &sigma, n) * t),
                    &Float::with_val(REF, n),
                    &dl,
                )
            })
            .min_by(|a, b| a.partial_cmp(b).unwrap())
            .unwrap();
        assert!(
            *up <= Float::with_val(REF, &best * (1.0 + 1e-9)),
            "{qs} {ss} {t} {d}: {} vs integer-order best {}",
            e.upper().to_decimal(),
            best
        );
    }
}
