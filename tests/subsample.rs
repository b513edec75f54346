//! Amplification by subsampling: containment, and the tight randomized-response examples.
mod common;
use common::{check, f, log_uniform, rational, rational_in, REF};
use dpcert::num::Precision;
use dpcert::theorems::subsample::*;
use proptest::prelude::*;
use rug::{Float, Rational};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// (was: q < 1 only, ε < 10, tolerance 1e-12 against a documented 2⁻⁴³)
    #[test]
    fn formulas_contain_references(eps in rational_in(0.0, 10.0), dn in 0u32..1000, rate in prop_oneof![1 => Just(Rational::from(1)), 5 => rational_in(0.0001, 1.0)]) {
        prop_assume!(rate > 0 && rate <= 1);
        let delta = Rational::from((dn, 100_000u32));
        let (e, qq) = (f(&eps), f(&rate));
        let ep = (Float::with_val(REF, e.clone().exp_m1() * &qq)).ln_1p();
        for a in [poisson_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap(), without_replacement_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap()] {
            check(&a.epsilon, &ep, W, "ε'");
            check(&a.delta, &f(&Rational::from(&rate * &delta)), DELTA_W, "δ'");
        }
        let num = Float::with_val(REF, 1 - &qq) + Float::with_val(REF, &qq * e.clone().exp());
        let den = Float::with_val(REF, 1 - &qq) + Float::with_val(REF, &qq * (-e.clone()).exp());
        let es = Float::with_val(REF, &num / &den).ln();
        // δ' is capped at 1 (a δ of 1 holds for every pair)
        let ds = (f(&Rational::from(&rate * &delta)) * (Float::with_val(REF, &es - &e).exp() + 1u32)).min(&Float::with_val(REF, 1)).clone();
        let s = poisson_substitution_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap();
        check(&s.epsilon, &es, W, "substitution ε'");
        check(&s.delta, &ds, W, "substitution δ'");
        prop_assert!(s.epsilon.upper().to_float() >= poisson_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap().epsilon.lower().to_float());
    }
}

/// Tightness: (ln 2, δ)-randomized response on the inclusion bit. With e^ε = 2 every probability
/// is rational, so the hockey stick at e^{ε'} = 1 + q is computed exactly: it equals qδ, and at
/// any smaller ε'' it exceeds qδ.
#[test]
fn randomized_response_on_the_inclusion_bit_is_tight() {
    for (qs, ds) in [("0.1", "1e-6"), ("0.5", "0.01"), ("1/3", "0")] {
        let (qq, d) = (rational(qs), rational(ds));
        let third = Rational::from((1, 3));
        let one = Rational::from(1);
        // outcomes: ⊤in, ⊤out, 1, 0 ; dist(bit) for the (ln 2, δ)-RR of the inclusion bit
        let dist = |bit: bool| -> Vec<Rational> {
            let keep = Rational::from(&one - &d);
            let (hi, lo) = (
                Rational::from(&keep * 2u32) * &third,
                Rational::from(&keep * &third),
            );
            if bit {
                vec![d.clone(), Rational::new(), hi, lo]
            } else {
                vec![Rational::new(), d.clone(), lo, hi]
            }
        };
        let (d1, d0) = (dist(true), dist(false));
        let p: Vec<Rational> = d1
            .iter()
            .zip(&d0)
            .map(|(a, b)| Rational::from(a * &qq) + (b * Rational::from(&one - &qq)))
            .collect();
        let hockey = |t: &Rational| -> Rational {
            p.iter()
                .zip(&d0)
                .map(|(a, b)| a - Rational::from(b * t))
                .filter(|x| *x > 0)
                .sum()
        };
        let target = Rational::from(&qq * &d);
        assert_eq!(hockey(&Rational::from(&one + &qq)), target);
        assert!(
            hockey(&(Rational::from(&one + &qq) * Rational::from((999_999, 1_000_000)))) > target
        );
        // the theorem's ε' at ε = ln 2 is ln(1 + q): ε = ln 2 is irrational, so use its
        // 16-digit decimal (ε' moves by less than |Δε|)
        let via = poisson_subsampling(
            &rational("0.6931471805599453"),
            &d,
            &qq,
            Precision::Bits(256),
        )
        .unwrap();
        let approx = Float::with_val(256, f(&qq) + 1u32).ln();
        assert!((via.epsilon.upper().to_f64() - approx.to_f64()).abs() < 1e-15);
    }
}

/// Documented relative width of the amplified ε' and of the substitution δ' (`certify`: the
/// f64 pass is kept only at ≤ 2⁻⁴³, MPFR aims at 10⁻³⁰).
const W: f64 = 1.0 / (1u64 << 43) as f64;
/// qδ is an exact rational rounded outward once at 128 bits.
const DELTA_W: f64 = 1.0 / (1u128 << 126) as f64;

/// Precision for evaluating the subsampling formulas *as written* (1 − q + qe^{±ε}, no
/// expm1/ln1p): 1024 bits plus what the cancellations 1 + (e^ε − 1) and 1 + q(…) can cost,
/// about log₂(1/ε) + log₂(1/q).
fn written_prec(eps: &Rational, q: &Rational) -> u32 {
    let lost = |x: &Rational| {
        let e = Float::with_val(64, x).get_exp().unwrap_or(0);
        (-e).max(0) as u32
    };
    REF + lost(eps) + lost(q) + 64
}

/// ε' = ln(1 + q(e^ε − 1)) at any magnitude, plain MPFR, as written (at the precision of
/// [`written_prec`]) while e^ε is far inside MPFR's range (ε ≤ 10⁶), else
/// ln q + ε + ln(1 + (1/q − 1)e^{−ε}).
fn amplified_reference(eps: &Rational, q: &Rational) -> Float {
    let p = written_prec(eps, q);
    let (e, qq) = (Float::with_val(p, eps), Float::with_val(p, q));
    if *eps <= 1_000_000 {
        let inner = Float::with_val(p, e.exp() - 1u32) * &qq + 1u32;
        return Float::with_val(p, inner).ln();
    }
    let odds = Float::with_val(p, 1 / qq.clone()) - 1u32;
    let tail = Float::with_val(p, odds * Float::with_val(p, -e.clone()).exp() + 1u32).ln();
    qq.ln() + e + tail
}

/// Substitution ε' = ln((1 − q + qe^ε)/(1 − q + qe^{−ε})), plain MPFR as written (precision
/// of [`written_prec`]) for ε ≤ 10⁶ (2ε exactly at q = 1), else [ln q + ε + ln(1 + (1/q − 1)e^{−ε})] − ln(1 − q + qe^{−ε}).
fn substitution_reference(eps: &Rational, q: &Rational) -> Float {
    if *q == 1 {
        return f(&Rational::from(eps * 2u32)); // e^ε / e^{−ε}
    }
    let p = written_prec(eps, q);
    let (e, qq) = (Float::with_val(p, eps), Float::with_val(p, q));
    let den = Float::with_val(p, 1 - qq.clone())
        + Float::with_val(p, &qq * Float::with_val(p, -e.clone()).exp());
    if *eps <= 1_000_000 {
        let num = Float::with_val(p, 1 - qq.clone()) + Float::with_val(p, &qq * e.exp());
        return Float::with_val(p, num / den).ln();
    }
    amplified_reference(eps, q) - den.ln()
}

/// One magnitude-sweep case: ε' and δ' of all three theorems against the references, with
/// the documented widths; ε' > 0 (lower end) whenever ε > 0.
fn sweep_case(eps: &Rational, delta: &Rational, rate: &Rational) {
    let ep = amplified_reference(eps, rate);
    for a in [
        poisson_subsampling(eps, delta, rate, Precision::Auto).unwrap(),
        without_replacement_subsampling(eps, delta, rate, Precision::Auto).unwrap(),
    ] {
        assert!(a.epsilon.is_finite() && a.delta.is_finite());
        check(&a.epsilon, &ep, W, "ε'");
        check(&a.delta, &f(&Rational::from(rate * delta)), DELTA_W, "δ'");
        assert!(*eps == 0 || a.epsilon.lower().to_float() > 0, "ε' lower 0");
    }
    let s = poisson_substitution_subsampling(eps, delta, rate, Precision::Auto).unwrap();
    assert!(s.epsilon.formula().is_finite() && s.delta.formula().is_finite());
    let es = substitution_reference(eps, rate);
    check(&s.epsilon, &es, W, "substitution ε'");
    let ds = Float::with_val(
        REF,
        f(&Rational::from(rate * delta)) * (Float::with_val(REF, &es - f(eps)).exp() + 1u32),
    );
    // δ' = min(1, qδ(1 + e^{ε'−ε})); 0 when δ = 0 (e^{ε'−ε} may overflow the reference)
    let ds = if *delta == 0 {
        Float::with_val(REF, 0)
    } else if ds > 1 {
        Float::with_val(REF, 1)
    } else {
        ds
    };
    check(&s.delta, &ds, W, "substitution δ'");
    assert!(
        *eps == 0 || s.epsilon.formula().lower().to_float() > 0,
        "substitution ε' lower 0"
    );
}

fn eps_strategy() -> impl Strategy<Value = Rational> {
    prop_oneof![1 => Just(Rational::new()), 6 => log_uniform(-300, 12)]
}
fn rate_strategy() -> impl Strategy<Value = Rational> {
    prop_oneof![1 => Just(Rational::from(1)), 4 => log_uniform(-300, -1)]
}
fn delta_strategy() -> impl Strategy<Value = Rational> {
    prop_oneof![1 => Just(Rational::new()), 4 => log_uniform(-400, -1)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Magnitude sweep (issue 14): ε from 1e-300 to 9e12 and 0, q from 1e-300 to 1, δ from
    /// 1e-400 and 0; no refusal, finite bounds, documented widths, lower > 0 where ε' > 0.
    #[test]
    fn magnitude_sweep(e in eps_strategy(), d in delta_strategy(), r in rate_strategy()) {
        sweep_case(&e, &d, &r);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    #[ignore]
    fn magnitude_sweep_long(e in eps_strategy(), d in delta_strategy(), r in rate_strategy()) {
        sweep_case(&e, &d, &r);
    }
}

/// Issue 14: `subsample --epsilon 1e9 --delta 0.5 --rate 0.5 --scheme poisson` gave
/// [7.4e8, ∞]; ε' = 10⁹ + ln ½ + ln1p(e^{−10⁹}) = 999999999.3068528194…
#[test]
fn large_epsilon_example() {
    let a = poisson_subsampling(
        &rational("1e9"),
        &rational("0.5"),
        &rational("0.5"),
        Precision::Auto,
    )
    .unwrap();
    check(
        &a.epsilon,
        &amplified_reference(&rational("1e9"), &rational("0.5")),
        W,
        "ε'",
    );
    assert!(
        a.epsilon.lower().to_float() > rational("999999999.306852")
            && a.epsilon.upper().to_float() < rational("999999999.306853")
    );
    // q = 1 under substitution at ε = 10⁹: ε' = 2ε exactly
    let s = poisson_substitution_subsampling(
        &rational("1e9"),
        &rational("0"),
        &rational("1"),
        Precision::Auto,
    )
    .unwrap();
    assert!(s.epsilon.formula().contains(&Float::with_val(64, 2e9)));
    check(&s.epsilon, &Float::with_val(64, 2e9), W, "2ε");
}

#[test]
fn bad_inputs() {
    assert!(poisson_subsampling(
        &rational("1"),
        &rational("0"),
        &rational("0"),
        Precision::Auto
    )
    .is_err());
    assert!(poisson_subsampling(
        &rational("1"),
        &rational("0"),
        &rational("1.5"),
        Precision::Auto
    )
    .is_err());
    assert!(poisson_subsampling(
        &rational("-1"),
        &rational("0"),
        &rational("0.5"),
        Precision::Auto
    )
    .is_err());
    assert!(without_replacement_subsampling(
        &rational("1"),
        &rational("1"),
        &rational("0.5"),
        Precision::Auto
    )
    .is_err());
}
