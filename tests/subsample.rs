//! Amplification by subsampling: containment, and the tight randomized-response examples.
mod common;
use common::{check, f, q, rational, REF};
use dpcert::num::Precision;
use dpcert::theorems::subsample::*;
use proptest::prelude::*;
use rug::{Float, Rational};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn formulas_contain_references(eps in rational(0.0, 10.0), dn in 0u32..1000, rate in rational(0.0001, 1.0)) {
        prop_assume!(rate > 0 && rate <= 1);
        let delta = Rational::from((dn, 100_000u32));
        let (e, qq) = (f(&eps), f(&rate));
        let ep = (Float::with_val(REF, e.clone().exp_m1() * &qq)).ln_1p();
        for a in [poisson_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap(), without_replacement_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap()] {
            check(&a.epsilon, &ep, 1e-12, "ε'");
            prop_assert!(a.delta.contains_rational(&Rational::from(&rate * &delta)));
        }
        let num = Float::with_val(REF, 1 - &qq) + Float::with_val(REF, &qq * e.clone().exp());
        let den = Float::with_val(REF, 1 - &qq) + Float::with_val(REF, &qq * (-e.clone()).exp());
        let es = Float::with_val(REF, &num / &den).ln();
        // δ' is capped at 1 (a δ of 1 holds for every pair)
        let ds = (f(&Rational::from(&rate * &delta)) * (Float::with_val(REF, &es - &e).exp() + 1u32)).min(&Float::with_val(REF, 1)).clone();
        let s = poisson_substitution_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap();
        check(&s.epsilon, &es, 1e-12, "substitution ε'");
        check(&s.delta, &ds, 1e-12, "substitution δ'");
        prop_assert!(s.epsilon.upper().to_float() >= poisson_subsampling(&eps, &delta, &rate, Precision::Auto).unwrap().epsilon.lower().to_float());
    }
}

/// Tightness: (ln 2, δ)-randomized response on the inclusion bit. With e^ε = 2 every probability
/// is rational, so the hockey stick at e^{ε'} = 1 + q is computed exactly: it equals qδ, and at
/// any smaller ε'' it exceeds qδ.
#[test]
fn randomized_response_on_the_inclusion_bit_is_tight() {
    for (qs, ds) in [("0.1", "1e-6"), ("0.5", "0.01"), ("1/3", "0")] {
        let (qq, d) = (q(qs), q(ds));
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
            .map(|(a, b)| Rational::from(a * &qq) + Rational::from(b * Rational::from(&one - &qq)))
            .collect();
        let hockey = |t: &Rational| -> Rational {
            p.iter()
                .zip(&d0)
                .map(|(a, b)| Rational::from(a - Rational::from(b * t)))
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
        let via =
            poisson_subsampling(&q("0.6931471805599453"), &d, &qq, Precision::Bits(256)).unwrap();
        let approx = Float::with_val(256, f(&qq) + 1u32).ln();
        assert!((via.epsilon.upper().to_f64() - approx.to_f64()).abs() < 1e-15);
    }
}

#[test]
fn bad_inputs() {
    assert!(poisson_subsampling(&q("1"), &q("0"), &q("0"), Precision::Auto).is_err());
    assert!(poisson_subsampling(&q("1"), &q("0"), &q("1.5"), Precision::Auto).is_err());
    assert!(poisson_subsampling(&q("-1"), &q("0"), &q("0.5"), Precision::Auto).is_err());
    assert!(without_replacement_subsampling(&q("1"), &q("1"), &q("0.5"), Precision::Auto).is_err());
}
