//! Proposition 7's three expressions agree, on every PLD the crate represents exactly;
//! Theorem 9's composition of discrete PLDs (k then m equals k + m).
mod common;
use common::{check, f, rational, rational_in, REF};
use dpcert::num::{Precision, Real};
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
    fn three_expressions_agree_on_randomized_response(e0 in rational_in(0.01, 3.0), k in 1u32..40, eps in rational_in(0.0, 10.0)) {
        let d = Pld::Discrete(DiscretePld::randomized_response(&e0, &Integer::from(k)).unwrap());
        let a = hockey_stick_expectation(&d, &eps, Precision::Auto).unwrap();
        let b = hockey_stick_tails(&d, &eps, Precision::Auto).unwrap();
        let c = hockey_stick_integral(&d, &eps, 1, Precision::Bits(128)).unwrap();
        let r = rr_reference(&e0, k, &eps);
        // (was also: pairwise overlap, implied by all three containing r)
        for (n, x, w) in [("expectation", &a, W), ("tails", &b, W), ("integral", &c, W128)] {
            check(x, &r, w, n);
        }
    }

    #[test]
    fn three_expressions_agree_on_gaussians(sigma in rational_in(0.3, 5.0), eps in rational_in(0.0, 6.0)) {
        prop_assume!(sigma > 0);
        let g = gaussian_pld(&sigma, &rational("1")).unwrap();
        let p = Pld::Gaussian(g.clone());
        let a = hockey_stick_expectation(&p, &eps, Precision::Auto).unwrap();
        let b = hockey_stick_tails(&p, &eps, Precision::Auto).unwrap();
        let c = hockey_stick_integral(&p, &eps, 600, Precision::Bits(128)).unwrap();
        let r = common::gaussian_delta(&g.rho, &eps);
        check(&a, &r, W, "expectation");
        check(&b, &r, W, "tails");
        // quadrature width, derived from the algorithm (see the note): panels of width h,
        // Σ (S(aᵢ) − S(bᵢ))(e^{ε−aᵢ} − e^{ε−bᵢ}) ≤ (1 − e^{−h})·S(ε) ≤ h·P[Z > ε], plus the
        // tail term S(z_N)·e^{ε−z_N}; asserted with 1e-20 relative slack for rounding
        prop_assert!(c.contains(&r));
        let (rho_f, eps_f) = (g.rho.to_f64(), eps.to_f64());
        let s_f = (2.0 * rho_f).sqrt();
        let span = ((rho_f - eps_f).max(0.0) + 40.0 * s_f + 1.0).min(60.0);
        let h = f(&Rational::from_f64(span / 600.0).unwrap());
        let sd = Float::with_val(REF, f(&Rational::from(&g.rho * 2u32)).sqrt());
        let surv = |z: &Float| common::phi(&Float::with_val(REF, -(Float::with_val(REF, z - f(&g.rho)) / &sd)));
        let s_eps = surv(&f(&eps));
        let z_n = Float::with_val(REF, f(&eps) + span);
        let tail = Float::with_val(REF, surv(&z_n) * Float::with_val(REF, -span).exp());
        let bound = Float::with_val(REF, &h * &s_eps) + tail + Float::with_val(REF, &s_eps * 1e-20);
        let width = Float::with_val(REF, &c.upper().to_float() - &c.lower().to_float());
        prop_assert!(width <= bound, "integral width {} > {}", width.to_f64(), bound.to_f64());
    }

    /// A general finite pair, including an outcome with Q = 0 (infinite loss).
    #[test]
    fn three_expressions_agree_on_pairs(w in proptest::collection::vec((1u32..20, 0u32..20), 2..6), eps in rational_in(0.0, 3.0)) {
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
        prop_assume!(r > 0);
        for (x, w) in [
            (hockey_stick_expectation(&d, &eps, Precision::Auto).unwrap(), W),
            (hockey_stick_tails(&d, &eps, Precision::Auto).unwrap(), W),
            (hockey_stick_integral(&d, &eps, 1, Precision::Bits(128)).unwrap(), W128),
        ] {
            check(&x, &r, w, "pair");
        }
    }
}

/// Relative width asserted for the `Auto` evaluations: `certify` keeps the f64 pass only at
/// ≤ 2⁻⁴³ and otherwise climbs MPFR towards 10⁻³⁰.
const W: f64 = 1.0 / (1u64 << 43) as f64;
/// Discrete `hockey_stick_integral` at 128 bits: exact Abel sum of ≤ 41 atoms, each term
/// rounded outward; the cancellation of p − e^ε q costs ≤ 40 bits in these ranges: 2⁻⁸⁰.
const W128: f64 = 1.0 / (1u128 << 80) as f64;

/// Proposition 3 exactly: ρ = Δ²/(2σ²) as a rational, against the product written out.
#[test]
fn gaussian_pld_is_exact() {
    for (s, d) in [
        ("1", "1"),
        ("0.3", "2.5"),
        ("1e-200", "7"),
        ("3/7", "1e100"),
    ] {
        let g = gaussian_pld(&rational(s), &rational(d)).unwrap();
        let (s, d) = (rational(s), rational(d));
        assert_eq!(
            g.rho * Rational::from(&s * &s) * 2u32,
            Rational::from(&d * &d)
        );
    }
}

/// The atoms of k-fold randomized response: P-mass C(k,ℓ)e^{(k−ℓ)ε}/(1+e^ε)^k, Q-mass
/// C(k,ℓ)e^{ℓε}/(1+e^ε)^k, loss (k − 2ℓ)ε, against 1024-bit references (width ≤ 2⁻¹⁰⁰ at
/// 128 bits).
#[test]
fn randomized_response_atoms() {
    let (e0, k) = (rational("0.7"), 6u32);
    let d = DiscretePld::randomized_response(&e0, &Integer::from(k)).unwrap();
    assert_eq!(d.atom_count().unwrap(), 7);
    let atoms = d.atoms::<dpcert::num::MpfrInterval>(128).unwrap();
    let norm = Float::with_val(REF, f(&e0).exp() + 1u32).pow(k);
    for (l, a) in atoms.iter().enumerate() {
        let l = l as u32;
        let b = Float::with_val(REF, Integer::from(Integer::binomial_u(k, l)));
        let p = Float::with_val(REF, &b * Float::with_val(REF, f(&e0) * (k - l)).exp()) / &norm;
        let qq = Float::with_val(REF, &b * Float::with_val(REF, f(&e0) * l).exp()) / &norm;
        for (x, r) in [(&a.p, p), (&a.q, qq)] {
            let (lo, hi) = x.endpoints().unwrap();
            assert!(lo <= r && r <= hi, "atom mass misses the reference");
            let w = Float::with_val(REF, &hi - &lo);
            assert!(w <= Float::with_val(REF, &r * 1e-30), "atom mass not tight");
        }
        let (lo, hi) = a.loss.as_ref().unwrap().endpoints().unwrap();
        let want = Rational::from(&e0 * (i64::from(k) - 2 * i64::from(l)));
        assert!(lo <= want && hi >= want);
    }
}

/// Large ε and ρ: the tails form (Mills route for ε or ρ ≥ 2²⁰) and the expectation form (its
/// log-domain tilt) against the any-magnitude reference, width 2⁻⁴³; ρ = 10⁹ at ε = 10⁹ used to
/// be [0, ½] in both.
#[test]
fn gaussian_tails_at_large_epsilon() {
    for (rho, eps) in [
        (rational("1e9"), rational("1e9")),
        (rational("2e12"), rational("2000008529780.5")),
        (rational("1e6"), rational("1048576")),
        (rational("5e399"), rational("5e399") + rational("4.8e200")),
    ] {
        let p = Pld::Gaussian(GaussianPld { rho: rho.clone() });
        let b = hockey_stick_tails(&p, &eps, Precision::Auto).unwrap();
        // 2112 bits: more accurate than any enclosure the crate returns (≤ 2048 bits)
        let r = common::gaussian_delta_wide_bits(&rho, &eps, 2112);
        assert!(r > 1e-300, "{rho} {eps}");
        check(&b, &r, W, "tails at large ε");
        // the expectation form at large ε (its own route: exponent ε − (u+s)²/2 formed directly)
        let a = hockey_stick_expectation(&p, &eps, Precision::Auto).unwrap();
        check(&a, &r, W, "expectation at large ε");
    }
}

#[test]
fn k_then_m_equals_k_plus_m() {
    let e0 = rational("0.3");
    let rr =
        |k: u32| Pld::Discrete(DiscretePld::randomized_response(&e0, &Integer::from(k)).unwrap());
    let both = compose_plds(&[rr(4), rr(6)]).unwrap();
    for eps in ["0", "0.5", "1.2", "3"] {
        let a = hockey_stick_tails(&both, &rational(eps), Precision::Bits(200)).unwrap();
        let b = hockey_stick_tails(&rr(10), &rational(eps), Precision::Bits(200)).unwrap();
        assert!(overlap(&a, &b), "{eps}");
        assert!(a.contains(&rr_reference(&e0, 10, &rational(eps))));
    }
    assert!(compose_plds(&[
        rr(1),
        Pld::Gaussian(gaussian_pld(&rational("1"), &rational("1")).unwrap())
    ])
    .is_err());
}

#[test]
fn bad_pairs_are_rejected() {
    assert!(DiscretePld::from_pair(vec![rational("0.5")], vec![rational("1")]).is_err());
    assert!(DiscretePld::from_pair(
        vec![rational("1.5"), rational("-0.5")],
        vec![rational("0.5"), rational("0.5")]
    )
    .is_err());
    assert!(DiscretePld::randomized_response(&rational("1"), &Integer::from(0)).is_err());
    let huge = Pld::Discrete(
        DiscretePld::randomized_response(&rational("1"), &Integer::from(10_000_000)).unwrap(),
    );
    assert!(hockey_stick_tails(&huge, &rational("1"), Precision::Auto).is_err());
}
