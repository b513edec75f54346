//! Corollaries 8 and 10: exact δ(ε) of the Gaussian mechanism, its inverses, its optimality.
mod common;
use common::{check, f, q, rational, small_delta};
use dpcert::num::{Iv, Precision, Real};
use dpcert::theorems::gaussian::*;
use dpcert::theorems::pld::{gaussian_pld, hockey_stick_integral, Pld};
use dpcert::theorems::zcdp::{gaussian_zcdp, zcdp_compose, zcdp_delta, zcdp_delta_closed_form};
use proptest::prelude::*;
use rug::{Float, Integer, Rational};

fn pld(sigma: &str, sens: &str) -> dpcert::theorems::pld::GaussianPld {
    gaussian_pld(&q(sigma), &q(sens)).unwrap()
}

#[test]
fn published_values() {
    // Balle–Wang 2018 Theorem 8 values (theorems.md §7)
    for (d, s, e, v) in [
        ("1", "1", "0.5", "0.23842170813"),
        ("1", "2", "1", "0.00682959498"),
        ("2", "1", "3", "0.18381307654"),
    ] {
        let enc = gaussian_delta(&pld(s, d), &q(e), Precision::Auto).unwrap();
        let v: f64 = v.parse().unwrap();
        assert!((enc.upper().to_f64() - v).abs() < 1e-11, "{d} {s} {e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Containment and tightness (1e-12 relative) against the 1024-bit reference.
    #[test]
    fn delta_contains_reference(sigma in rational(0.05, 60.0), eps in rational(0.0, 40.0), k in 1u32..50) {
        prop_assume!(sigma > 0);
        let g = gaussian_composition(&[GaussianMechanism::new(sigma, q("1"), Integer::from(k)).unwrap()]).unwrap();
        let reference = common::gaussian_delta(&g.rho, &eps);
        prop_assume!(reference > 1e-4000);
        for p in [Precision::Auto, Precision::Bits(128)] {
            let e = gaussian_delta(&g, &eps, p).unwrap();
            check(&e, &reference, 1e-12, "gaussian_delta");
        }
    }

    /// ε(δ): the upper end is feasible and the lower end infeasible, by the 1024-bit reference.
    #[test]
    fn epsilon_brackets_the_crossing(sigma in rational(0.2, 20.0), delta in small_delta()) {
        prop_assume!(sigma > 0);
        let g = gaussian_pld(&sigma, &q("1")).unwrap();
        let e = gaussian_epsilon(&g, &delta, Precision::Auto).unwrap();
        let hi = Rational::from_f64(e.upper().to_f64()).unwrap();
        prop_assert!(common::gaussian_delta(&g.rho, &hi) <= f(&delta));
        if e.lower().to_float() > 0 {
            let lo = Rational::from_f64(e.lower().to_f64()).unwrap();
            prop_assert!(common::gaussian_delta(&g.rho, &lo) > f(&delta));
            prop_assert!(Float::with_val(64, &e.upper().to_float() - &e.lower().to_float()) <= Float::with_val(64, &e.upper().to_float() * 1e-12));
        }
    }

    /// σ for (ε, δ): the certified-feasible σ meets the target, the infeasible one does not.
    #[test]
    fn sigma_brackets_the_minimum(eps in rational(0.05, 10.0), delta in small_delta(), k in 1u32..20) {
        let s = gaussian_sigma(&eps, &delta, &q("1"), &Integer::from(k), Precision::Auto).unwrap();
        let feas = Rational::from_f64(s.upper().to_f64()).unwrap();
        let infeas = Rational::from_f64(s.lower().to_f64()).unwrap();
        let rho = |sg: &Rational| Rational::from(k) / Rational::from(sg * sg) / 2u32;
        prop_assert!(common::gaussian_delta(&rho(&feas), &eps) <= f(&delta));
        prop_assert!(common::gaussian_delta(&rho(&infeas), &eps) > f(&delta));
        prop_assert!((s.upper().to_f64() - s.lower().to_f64()) <= 1e-9 * s.upper().to_f64());
    }

    /// exact Gaussian δ ≤ Proposition 14 optimised ≤ closed form (Gaussian is ρ-zCDP).
    #[test]
    fn exact_below_zcdp_routes(sigma in rational(0.3, 10.0), eps in rational(0.0, 20.0)) {
        prop_assume!(sigma > 0);
        let g = gaussian_pld(&sigma, &q("1")).unwrap();
        let exact = gaussian_delta(&g, &eps, Precision::Auto).unwrap();
        let opt = zcdp_delta(&g.rho, &eps, Precision::Auto).unwrap();
        prop_assert!(exact.upper().to_float() <= opt.formula().lower().to_float() || exact.upper().to_float() <= opt.upper().to_float());
        prop_assert!(exact.lower().to_float() <= opt.upper().to_float());
        if eps >= g.rho {
            let closed = zcdp_delta_closed_form(&g.rho, &eps, Precision::Auto).unwrap();
            prop_assert!(opt.upper().to_float() <= closed.upper().to_float());
            let (tail, expo) = gaussian_delta_interpretable(&g, &eps, Precision::Auto).unwrap();
            prop_assert!(exact.upper().to_float() <= tail.upper().to_float() && tail.formula().lower().to_float() <= expo.upper().to_float());
        }
    }
}

/// zCDP composition of Gaussians (Lemma 12 + Theorem 13) gives the same ρ as Corollary 10;
/// k then m compositions equal k + m.
#[test]
fn composition_routes_agree() {
    let mechs = [("1", "1", 3u32), ("2.5", "0.5", 7), ("0.7", "2", 1)];
    let list: Vec<GaussianMechanism> = mechs
        .iter()
        .map(|(s, d, k)| GaussianMechanism::new(q(s), q(d), Integer::from(*k)).unwrap())
        .collect();
    let cor10 = gaussian_composition(&list).unwrap();
    let rhos: Vec<Rational> = mechs
        .iter()
        .map(|(s, d, k)| gaussian_zcdp(&q(s), &q(d)).unwrap() * Rational::from(*k))
        .collect();
    assert_eq!(cor10.rho, zcdp_compose(&rhos).unwrap());
    let k =
        gaussian_composition(&[GaussianMechanism::new(q("3"), q("1"), Integer::from(5)).unwrap()])
            .unwrap();
    let m =
        gaussian_composition(&[GaussianMechanism::new(q("3"), q("1"), Integer::from(9)).unwrap()])
            .unwrap();
    let km =
        gaussian_composition(&[GaussianMechanism::new(q("3"), q("1"), Integer::from(14)).unwrap()])
            .unwrap();
    let both = dpcert::theorems::pld::compose_plds(&[Pld::Gaussian(k), Pld::Gaussian(m)]).unwrap();
    assert_eq!(both, Pld::Gaussian(km.clone()));
    let e = q("1.5");
    let a = gaussian_delta(&km, &e, Precision::Bits(256)).unwrap();
    let Pld::Gaussian(b) = both else {
        unreachable!()
    };
    assert_eq!(a, gaussian_delta(&b, &e, Precision::Bits(256)).unwrap());
}

/// Optimality: the exact δ equals the hockey-stick divergence computed by certified quadrature
/// (Proposition 7, third expression), and a witness set S = {y > t} certifies that no δ' a
/// hair below the lower bound is valid.
#[test]
fn optimality_cases() {
    for (s, d, e) in [
        ("1", "1", "0.5"),
        ("2", "1", "1"),
        ("0.5", "1", "3"),
        ("0.1", "1", "200"),
        ("1", "3", "2"),
    ] {
        let g = pld(s, d);
        let eps = q(e);
        let exact = gaussian_delta(&g, &eps, Precision::Bits(128)).unwrap();
        let integral = hockey_stick_integral(&Pld::Gaussian(g.clone()), &eps, 4000, 128).unwrap();
        assert!(
            integral.lower().to_float() <= exact.upper().to_float() && exact.lower().to_float() <= integral.upper().to_float(),
            "{s} {d} {e}"
        );
        // witness: P = N(Δ, σ²), Q = N(0, σ²), S = {y > t}, t ≈ σ²ε/Δ + Δ/2 rounded to f64
        let (sig, del) = (q(s), q(d));
        let t = Rational::from_f64(
            (Rational::from(&sig * &sig) * &eps / &del + Rational::from(&del / 2u32)).to_f64(),
        )
        .unwrap();
        let p = 256;
        let sg = Iv::from_rational(&sig, p);
        let ps = Iv::from_rational(&Rational::from(&del - &t), p)
            .div(&sg)
            .normal_cdf(); // P(S)
        let qs = Iv::from_rational(&Rational::from(-&t), p)
            .div(&sg)
            .normal_cdf(); // Q(S)
        let witness = ps.sub(&Iv::from_rational(&eps, p).exp().mul(&qs));
        let bar = Float::with_val(p, &exact.lower().to_float() * (1.0 - 1e-9));
        assert!(*witness.lo() > bar, "witness fails for {s} {d} {e}");
    }
}

/// Tiny δ keeps relative accuracy (σ = 0.1, ε = 200 gives δ ≈ 1.46e-51; deeper tails too).
#[test]
fn tiny_delta_rows() {
    for (s, e) in [("0.1", "200"), ("0.05", "1000"), ("0.02", "3000")] {
        let g = pld(s, "1");
        let enc = gaussian_delta(&g, &q(e), Precision::Auto).unwrap();
        check(&enc, &common::gaussian_delta(&g.rho, &q(e)), 1e-12, s);
        assert!(enc.lower().to_float() > 0);
    }
}

#[test]
fn bad_inputs_are_errors() {
    assert!(gaussian_pld(&q("0"), &q("1")).is_err());
    assert!(gaussian_pld(&q("1"), &q("-1")).is_err());
    let g = pld("1", "1");
    assert!(gaussian_delta(&g, &q("-0.1"), Precision::Auto).is_err());
    assert!(gaussian_epsilon(&g, &q("0"), Precision::Auto).is_err());
    assert!(gaussian_epsilon(&g, &q("1"), Precision::Auto).is_err());
    assert!(gaussian_sigma(
        &q("1"),
        &q("1e-5"),
        &q("1"),
        &Integer::from(0),
        Precision::Auto
    )
    .is_err());
    assert!(gaussian_delta_interpretable(&g, &q("0.1"), Precision::Auto).is_err());
}

/// Beyond MPFR's exponent range (e^ε overflows, Φ underflows) the enclosure must stay sound:
/// never the false [1, 1] that a NaN swallowed by min/hull once produced.
#[test]
fn exponent_range_overflow_stays_sound() {
    let g = pld("1", "1");
    for e in ["1e9", "5e9"] {
        match gaussian_delta(&g, &q(e), Precision::Auto) {
            Ok(enc) => assert!(enc.lower().to_float() == 0, "{e}: lower {}", enc.lower().to_decimal()),
            Err(_) => {}
        }
    }
    // a public ρ ≤ 0 is refused, not evaluated
    let bad = dpcert::theorems::pld::GaussianPld { rho: q("-1") };
    assert!(dpcert::theorems::pld::hockey_stick_tails(
        &Pld::Gaussian(bad.clone()),
        &q("1"),
        Precision::Auto
    )
    .is_err());
    assert!(hockey_stick_integral(&Pld::Gaussian(bad), &q("1"), 10, 128).is_err());
    assert!(hockey_stick_integral(&Pld::Gaussian(g.clone()), &q("1"), 10, 0).is_err());
    assert!(gaussian_delta(&g, &q("1"), Precision::Bits(0)).is_err());
}
