//! Theorem 22 (approximate-DP advanced composition) and Theorem 1 (basic composition) across
//! magnitudes: ε from 1e-300 to 9e3, counts to 9e8, δ to 1e-400, against 1024-bit references
//! (plain MPFR straight from the formula) and exact rationals.
mod common;
use common::{check, f, log_uniform, rational, REF};
use dpcert::num::Precision;
use dpcert::theorems::approx::approx_advanced_composition;
use dpcert::theorems::basic::basic_composition;
use proptest::prelude::*;
use rug::{Float, Integer, Rational};

/// Documented width: `certify` keeps the f64 pass at ≤ 2⁻⁴³ relative, MPFR aims at 1e-30.
const W: f64 = 1.0 / (1u64 << 43) as f64;

/// min{Σε, ½Σε² + √(2 ln(1/δ′) Σε²)}, δ′ = δ − Σδⱼ, at 1024 bits.
fn theorem_22(mechs: &[(Rational, Rational, Integer)], delta: &Rational) -> Float {
    let (mut se, mut sd, mut s2) = (Rational::new(), Rational::new(), Rational::new());
    for (e, d, k) in mechs {
        se += Rational::from(e * k);
        sd += Rational::from(d * k);
        s2 += Rational::from(e * e) * k;
    }
    let slack = Rational::from(delta - &sd);
    let l = -f(&slack).ln();
    let adv =
        Float::with_val(REF, f(&s2) / 2u32) + (Float::with_val(REF, f(&s2) * l) * 2u32).sqrt();
    adv.min(&f(&se)).clone()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn theorem_22_magnitude_sweep(e in log_uniform(-300, 3), k in log_uniform(0, 8), delta in log_uniform(-400, -1), share in 0u32..10) {
        let k = k.numer().clone();
        // δⱼ = share·δ/(10k): Σδⱼ < δ
        let each = Rational::from(&delta * share) / (Rational::from(&k) * 10u32);
        let mechs = vec![(e.clone(), each, k), (rational("0.5"), Rational::new(), Integer::from(3))];
        let enc = approx_advanced_composition(&mechs, &delta, Precision::Auto).unwrap();
        check(&enc, &theorem_22(&mechs, &delta), W, "Theorem 22");
        prop_assert!(enc.upper().to_float() > 0);
    }

    /// Theorem 1 is exact: the sums, against sums formed independently in the test.
    #[test]
    fn basic_composition_is_exact(v in proptest::collection::vec((log_uniform(-300, 12), prop_oneof![Just(Rational::new()), log_uniform(-400, -2)]), 1..6)) {
        let (e, d) = basic_composition(&v).unwrap();
        let se: Rational = v.iter().map(|x| x.0.clone()).sum();
        let sd: Rational = v.iter().map(|x| x.1.clone()).sum();
        prop_assert_eq!(e, se);
        prop_assert_eq!(d, sd);
    }
}
