//! Proposition 7's three expressions agree, on every PLD the crate represents exactly;
//! Theorem 9's composition of discrete PLDs (k then m equals k + m).
mod common;
use common::{f, q, rational, REF};
use dpcert::num::Precision;
use dpcert::theorems::pld::*;
use proptest::prelude::*;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

fn overlap(a: &dpcert::Enclosure, b: &dpcert::Enclosure) -> bool {
    a.lower().to_float() <= b.upper().to_float() && b.lower().to_float() <= a.upper().to_float()
}

/// Reference for k-fold ε0-RR: Σ_ℓ C(k,ℓ) max(0, e^{(k−ℓ)ε0} − e^ε e^{ℓε0}) / (1+e^{ε0})^k.
fn rr_reference(e0: &Rational, k: u32, eps: &Rational) -> Float {
    let (e0, e) = (f(e0), f(eps));
    let mut s = Float::with_val(REF, 0);
    for l in 0..=k {
        let b = Float::with_val(REF, Integer::from(Integer::binomial_u(k, l)));
        let t = Float::with_val(REF, &e0 * (k - l)).exp()
            - Float::with_val(REF, &e + Float::with_val(REF, &e0 * l)).exp();
        if t > 0 {
            s += b * t;
        }
    }
    s / Float::with_val(REF, e0.exp() + 1u32).pow(k)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn three_expressions_agree_on_randomized_response(e0 in rational(0.01, 3.0), k in 1u32..40, eps in rational(0.0, 10.0)) {
        let d = Pld::Discrete(DiscretePld::randomized_response(&e0, &Integer::from(k)).unwrap());
        let a = hockey_stick_expectation(&d, &eps, Precision::Auto).unwrap();
        let b = hockey_stick_tails(&d, &eps, Precision::Auto).unwrap();
        let c = hockey_stick_integral(&d, &eps, 1, 128).unwrap();
        let r = rr_reference(&e0, k, &eps);
        for (n, x) in [("expectation", &a), ("tails", &b), ("integral", &c)] {
            prop_assert!(x.contains(&r), "{} misses the reference", n);
        }
        prop_assert!(overlap(&a, &b) && overlap(&b, &c));
    }

    #[test]
    fn three_expressions_agree_on_gaussians(sigma in rational(0.3, 5.0), eps in rational(0.0, 6.0)) {
        prop_assume!(sigma > 0);
        let g = gaussian_pld(&sigma, &q("1")).unwrap();
        let p = Pld::Gaussian(g.clone());
        let a = hockey_stick_expectation(&p, &eps, Precision::Auto).unwrap();
        let b = hockey_stick_tails(&p, &eps, Precision::Auto).unwrap();
        let c = hockey_stick_integral(&p, &eps, 600, 128).unwrap();
        let r = common::gaussian_delta(&g.rho, &eps);
        prop_assert!(a.contains(&r) && b.contains(&r) && c.contains(&r));
    }

    /// A general finite pair, including an outcome with Q = 0 (infinite loss).
    #[test]
    fn three_expressions_agree_on_pairs(w in proptest::collection::vec((1u32..20, 0u32..20), 2..6), eps in rational(0.0, 3.0)) {
        let (sp, sq): (u32, u32) = (w.iter().map(|x| x.0).sum(), w.iter().map(|x| x.1).sum());
        prop_assume!(sq > 0);
        let p: Vec<Rational> = w.iter().map(|x| Rational::from((x.0, sp))).collect();
        let qv: Vec<Rational> = w.iter().map(|x| Rational::from((x.1, sq))).collect();
        // reference: Σ_y max(0, P(y) − e^ε Q(y))
        let mut r = Float::with_val(REF, 0);
        for (pi, qi) in p.iter().zip(&qv) {
            let t = f(pi) - f(&eps).exp() * f(qi);
            if t > 0 { r += t; }
        }
        let d = Pld::Discrete(DiscretePld::from_pair(p, qv).unwrap());
        for x in [
            hockey_stick_expectation(&d, &eps, Precision::Auto).unwrap(),
            hockey_stick_tails(&d, &eps, Precision::Auto).unwrap(),
            hockey_stick_integral(&d, &eps, 1, 128).unwrap(),
        ] {
            prop_assert!(x.contains(&r));
        }
    }
}

#[test]
fn k_then_m_equals_k_plus_m() {
    let e0 = q("0.3");
    let rr =
        |k: u32| Pld::Discrete(DiscretePld::randomized_response(&e0, &Integer::from(k)).unwrap());
    let both = compose_plds(&[rr(4), rr(6)]).unwrap();
    for eps in ["0", "0.5", "1.2", "3"] {
        let a = hockey_stick_tails(&both, &q(eps), Precision::Bits(200)).unwrap();
        let b = hockey_stick_tails(&rr(10), &q(eps), Precision::Bits(200)).unwrap();
        assert!(overlap(&a, &b), "{eps}");
        assert!(a.contains(&rr_reference(&e0, 10, &q(eps))));
    }
    assert!(compose_plds(&[
        rr(1),
        Pld::Gaussian(gaussian_pld(&q("1"), &q("1")).unwrap())
    ])
    .is_err());
}

#[test]
fn bad_pairs_are_rejected() {
    assert!(DiscretePld::from_pair(vec![q("0.5")], vec![q("1")]).is_err());
    assert!(DiscretePld::from_pair(vec![q("1.5"), q("-0.5")], vec![q("0.5"), q("0.5")]).is_err());
    assert!(DiscretePld::randomized_response(&q("1"), &Integer::from(0)).is_err());
    let huge = Pld::Discrete(
        DiscretePld::randomized_response(&q("1"), &Integer::from(10_000_000)).unwrap(),
    );
    assert!(hockey_stick_tails(&huge, &q("1"), Precision::Auto).is_err());
}
