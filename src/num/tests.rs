//! The certified number: rounding direction, exact parsing, outward printing, the normal CDF.
//! These tests fail if any endpoint is rounded the wrong way.
//! (Unit tests: they build enclosures from raw interval kernels, which only the crate may do.)
#[path = "../../tests/common/mod.rs"]
mod common;
use common::*;
use dpcert::num::{Enclosure, F64Interval, MpfrInterval, Real, Tri};
use proptest::prelude::*;
use rug::ops::Pow;
use rug::{Float, Rational};

/// At 8 bits every rounding is visible: wrong direction ⇒ the exact rational falls outside.
fn contains_exact(e: &MpfrInterval, x: &Rational) -> bool {
    *e.lo() <= *x && *e.hi() >= *x
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn field_ops_enclose_exact_results(a in rational_in(-50.0, 50.0), b in rational_in(-50.0, 50.0)) {
        let (x, y) = (MpfrInterval::from_rational(&a, 8), MpfrInterval::from_rational(&b, 8));
        prop_assert!(contains_exact(&x.add(&y), &Rational::from(&a + &b)));
        prop_assert!(contains_exact(&x.sub(&y), &Rational::from(&a - &b)));
        prop_assert!(contains_exact(&x.mul(&y), &Rational::from(&a * &b)));
        prop_assert!(contains_exact(&x.sqr(), &Rational::from(&a * &a)));
        if b != 0 {
            prop_assert!(contains_exact(&x.div(&y), &Rational::from(&a / &b)));
        }
        // the f64 backend too
        let (fx, fy) = (F64Interval::from_rational(&a, 53), F64Interval::from_rational(&b, 53));
        let s = Enclosure::from_real(&fx.mul(&fy)).unwrap();
        prop_assert!(s.contains_rational(&Rational::from(&a * &b)));
    }

    #[test]
    fn elementary_functions_enclose_1024_bit_values(a in rational_in(0.001, 30.0)) {
        prop_assume!(a > 0); // few-digit rounding can produce 0, outside ln's domain
        let r = f(&a);
        for (name, lo8, fi, reference) in [
            ("exp", MpfrInterval::from_rational(&a, 8).exp(), F64Interval::from_rational(&a, 53).exp(), r.clone().exp()),
            ("expm1", MpfrInterval::from_rational(&a, 8).expm1(), F64Interval::from_rational(&a, 53).expm1(), r.clone().exp_m1()),
            ("ln", MpfrInterval::from_rational(&a, 8).ln(), F64Interval::from_rational(&a, 53).ln(), r.clone().ln()),
            ("ln1p", MpfrInterval::from_rational(&a, 8).ln1p(), F64Interval::from_rational(&a, 53).ln1p(), r.clone().ln_1p()),
            ("sqrt", MpfrInterval::from_rational(&a, 8).sqrt(), F64Interval::from_rational(&a, 53).sqrt(), r.clone().sqrt()),
        ] {
            let e8 = Enclosure::from_real(&lo8).unwrap();
            let ef = Enclosure::from_real(&fi).unwrap();
            prop_assert!(e8.contains(&reference), "{name} at 8 bits");
            prop_assert!(ef.contains(&reference), "{name} in f64 intervals");
        }
    }

    /// Φ in both backends against MPFR erfc at 1024 bits, including far tails.
    #[test]
    fn normal_cdf_contains_and_is_tight(x in -40.0f64..12.0) {
        let xr = Rational::from_f64(x).unwrap();
        let reference = phi(&f(&xr));
        let fast = Enclosure::from_real(&F64Interval::from_rational(&xr, 53).normal_cdf()).unwrap();
        prop_assert!(fast.contains(&reference));
        if x > -37.0 {
            check(&fast, &reference, 1e-12, "fast Φ");
        }
        let slow = Enclosure::from_real(&MpfrInterval::from_rational(&xr, 128).normal_cdf()).unwrap();
        check(&slow, &reference, 1e-30, "MPFR Φ");
    }

    /// Φ over a narrow interval and Φ of its negation (one shared evaluation) contain the
    /// 1024-bit values at both ends, and stay tight.
    #[test]
    fn normal_cdf_pair_contains_both_ends(x in -37.0f64..12.0, ulps in 0u32..2000) {
        let mut y = x;
        for _ in 0..ulps {
            y = y.next_up();
        }
        let (fwd, back) = dpcert::num::normal_cdf_pair(dpcert::num::Interval::try_from((x, y)).unwrap());
        for (v, sign) in [(fwd, 1.0), (back, -1.0)] {
            let e = Enclosure::from_real(&F64Interval(v)).unwrap();
            for end in [x, y] {
                let reference = phi(&f(&Rational::from_f64(sign * end).unwrap()));
                prop_assert!(e.contains(&reference), "Φ({}) outside", sign * end);
            }
            if x > -30.0 && x < 7.0 {
                let mid = phi(&f(&Rational::from_f64(sign * x).unwrap()));
                check(&e, &mid, 1e-9, "Φ pair");
            }
        }
    }

    /// Printed decimals are outward: lower string ≤ value ≤ upper string, read back exactly.
    #[test]
    fn printing_is_outward(a in rational_in(-1e6, 1e6), k in 0u32..400) {
        let x = a / Rational::from(rug::Integer::from(10).pow(k));
        let e = Enclosure::from_real(&MpfrInterval::from_rational(&x, 128)).unwrap();
        let lo = dpcert::num::parse_exact(&e.lower().to_decimal()).unwrap();
        let hi = dpcert::num::parse_exact(&e.upper().to_decimal()).unwrap();
        prop_assert!(lo <= x && x <= hi);
        // the safe-side f64 of each bound stays on its side (±inf when out of range)
        prop_assert!(Rational::from_f64(e.lower().to_f64()).is_none_or(|l| l <= x));
        prop_assert!(Rational::from_f64(e.upper().to_f64()).is_none_or(|u| u >= x));
    }
}

#[test]
fn normal_cdf_far_tail_keeps_relative_accuracy() {
    // δ-sized values near 1e-300 and below: MPFR path, relative width tiny
    for x in ["-37", "-38.5", "-50", "-1000"] {
        let xr = rational(x);
        let e = Enclosure::from_real(&MpfrInterval::from_rational(&xr, 128).normal_cdf()).unwrap();
        check(&e, &phi(&f(&xr)), 1e-30, x);
        assert!(e.lower().to_float() > 0);
    }
}

#[test]
fn three_valued_comparison() {
    let e = Enclosure::from_real(&MpfrInterval::from_rational(&rational("0.1"), 64)).unwrap();
    assert_eq!(e.cmp_rational(&rational("0.1")), Tri::Undecided);
    assert_eq!(e.cmp_rational(&rational("0.1000001")), Tri::Less);
    assert_eq!(e.cmp_rational(&rational("0.0999999")), Tri::Greater);
    assert!(Float::with_val(64, 0.1) != 0);
}

/// Clamping to a quantity's domain moves only ends that lie outside it, and never empties the
/// enclosure: [−1e-30, 0.5] → [0, 0.5]; [0.2, 1.5] → [0.2, 1]; [0.3, 0.4] unchanged.
#[test]
fn clamp_to_domain_moves_only_outside_ends() {
    use crate::num::Arithmetic;
    let e = |lo: f64, hi: f64| {
        Enclosure::new(
            Float::with_val(53, lo),
            Float::with_val(53, hi),
            Arithmetic::Mpfr(53),
        )
        .unwrap()
    };
    let c = e(-1e-30, 0.5).clamp_to(Some(0), Some(1));
    assert!(c.lower().as_float().is_zero() && *c.upper().as_float() == 0.5);
    let c = e(0.2, 1.5).clamp_to(Some(0), Some(1));
    assert!(*c.lower().as_float() == 0.2 && *c.upper().as_float() == 1);
    assert_eq!(e(0.3, 0.4).clamp_to(Some(0), Some(1)), e(0.3, 0.4));
    // an empty or NaN enclosure is refused at construction
    assert!(Enclosure::new(
        Float::with_val(53, 1),
        Float::with_val(53, 0),
        Arithmetic::Mpfr(53)
    )
    .is_err());
    assert!(Enclosure::new(
        Float::with_val(53, f64::NAN),
        Float::with_val(53, 0),
        Arithmetic::Mpfr(53)
    )
    .is_err());
}
