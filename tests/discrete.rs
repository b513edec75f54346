//! The discrete mechanisms (discrete Laplace, discrete Gaussian) against references computed
//! without dpcert's formulas: direct MPFR sums at 1024 bits of max(0, P(y) − e^ε·Q(y)) over a
//! window of integers far wider than the mass (the pmfs from their definitions, the normaliser
//! summed term by term), and for compositions the same sum over pairs of outputs. Each
//! containment assertion also bounds the width at its documented value.
mod common;
use common::{contains, rational, rr_delta, REF};
use dpcert::num::Precision;
use dpcert::theorems::discrete::*;
use dpcert::theorems::pld_accountant::*;
use dpcert::theorems::zcdp::zcdp_delta;
use rug::{Float, Integer, Rational};

fn fl(r: &Rational) -> Float {
    Float::with_val(REF, r)
}

/// P\[Y = y\] of DLap(a): tanh(a/2)·e^{−a|y|}, from its definition.
fn dlap(a: &Float, y: i64) -> Float {
    let t = Float::with_val(REF, a / 2u32).tanh();
    t * Float::with_val(REF, -(a * Float::with_val(REF, y.abs()))).exp()
}

/// Σ_{y = lo … hi} max(0, P(y) − e^ε·P(y − Δ)).
fn hockey(pmf: &dyn Fn(i64) -> Float, d: i64, eps: &Rational, lo: i64, hi: i64) -> Float {
    let ee = fl(eps).exp();
    let mut s = Float::with_val(REF, 0);
    for y in lo..=hi {
        let t = pmf(y) - Float::with_val(REF, &ee * pmf(y - d));
        if t > 0 {
            s += t;
        }
    }
    s
}

/// N_ℤ(0, σ²)'s pmf over |y| ≤ n (its normaliser summed over that window; the mass beyond is
/// below e^{−n²/(2σ²)}·σ², negligible at the n used here).
fn dgauss(s2: &Rational, n: i64) -> impl Fn(i64) -> Float {
    let two_s2 = fl(&Rational::from(s2 * 2u32));
    let w = move |y: i64| Float::with_val(REF, -Float::with_val(REF, y * y) / &two_s2).exp();
    let z = (-n..=n).fold(Float::with_val(REF, 0), |acc, y| acc + w(y));
    move |y: i64| w(y) / &z
}

fn window(s2: &Rational) -> i64 {
    (45.0 * s2.to_f64().sqrt()).ceil() as i64 + 10
}

fn within(e: &dpcert::num::Enclosure, reference: &Float, rel: f64, what: &str) {
    let (l, h) = (e.lower().as_float(), e.upper().as_float());
    assert!(
        l <= reference && reference <= h,
        "{what}: {reference} outside [{l}, {h}]"
    );
    let w = Float::with_val(REF, h - l);
    assert!(
        w <= Float::with_val(REF, reference * rel) + 1e-300,
        "{what}: [{l}, {h}] wider than {rel} relative"
    );
}

#[test]
fn discrete_laplace_delta_is_the_direct_sum() {
    for (a, d, eps) in [
        ("1/2", 1, "0"),
        ("1/2", 1, "1/4"),
        ("0.1", 5, "0.3"),
        ("2", 3, "5.9"),
        ("1/3", 7, "2"),
        ("1", 2, "1.999"),
        ("0.05", 20, "0.01"),
    ] {
        let (a, eps) = (rational(a), rational(eps));
        let af = fl(&a);
        // e^{−aN} < 10^{−150}: the terms beyond [−N, N + Δ] sum to far less than the width
        let n = (350.0 / a.to_f64()).ceil() as i64;
        let pmf = |y: i64| dlap(&af, y);
        let reference = hockey(&pmf, d, &eps, -n, n + d);
        let e = discrete_laplace_delta(&a, &Integer::from(d), &eps, Precision::Auto).unwrap();
        within(
            &e,
            &reference,
            1e-12,
            &format!("DLap({a}), Δ = {d}, ε = {eps}"),
        );
    }
    // ε at or above aΔ: δ = 0 exactly
    let e = discrete_laplace_delta(
        &rational("1/2"),
        &Integer::from(3),
        &rational("3/2"),
        Precision::Auto,
    )
    .unwrap();
    assert_eq!(e.upper().to_f64(), 0.0);
    assert_eq!(
        discrete_laplace_epsilon(&rational("0.3"), &Integer::from(4)).unwrap(),
        rational("1.2")
    );
}

#[test]
fn discrete_gaussian_delta_is_the_direct_sum() {
    for (s2, d, eps) in [
        ("1", 1, "0"),
        ("4", 1, "1/2"),
        ("1/2", 2, "1"),
        ("25", 3, "0.2"),
        ("7950", 1, "0.01"),
        ("2", 1, "6"),
        ("0.3", 1, "3"),
    ] {
        let (s2, eps) = (rational(s2), rational(eps));
        let n = window(&s2);
        let pmf = dgauss(&s2, n + d);
        let reference = hockey(&pmf, d, &eps, -n, n + d);
        let e = discrete_gaussian_delta(&s2, &Integer::from(d), &eps, Precision::Auto).unwrap();
        let what = format!("N_Z(0, {s2}), Δ = {d}, ε = {eps}");
        within(&e, &reference, 1e-12, &what);
        // ρ-zCDP (CKS Theorem 4) implies δ(ε) ≤ the zCDP conversion's δ: a sanity bound
        let rho = discrete_gaussian_zcdp(&s2, &Rational::from(d)).unwrap();
        assert_eq!(rho, Rational::from(d * d) / Rational::from(&s2 * 2u32));
        if eps > 0 {
            let z = zcdp_delta(&rho, &eps, Precision::Auto).unwrap();
            assert!(
                *e.upper().as_float() <= *z.upper().as_float(),
                "{what}: above zCDP"
            );
        }
    }
}

#[test]
fn bad_discrete_parameters_are_refused_by_name() {
    use dpcert::Error;
    let name = |r: dpcert::Result<dpcert::num::Enclosure>| match r {
        Err(Error::InvalidArgument { name, .. }) => name,
        other => panic!("{other:?}"),
    };
    let auto = Precision::Auto;
    let one = Integer::from(1);
    assert_eq!(
        name(discrete_laplace_delta(
            &rational("0"),
            &one,
            &rational("1"),
            auto
        )),
        "noise_parameter"
    );
    assert_eq!(
        name(discrete_laplace_delta(
            &rational("1"),
            &Integer::new(),
            &rational("1"),
            auto
        )),
        "sensitivity"
    );
    assert_eq!(
        name(discrete_laplace_delta(
            &rational("1"),
            &one,
            &rational("-1"),
            auto
        )),
        "epsilon"
    );
    assert_eq!(
        name(discrete_gaussian_delta(
            &rational("-2"),
            &one,
            &rational("1"),
            auto
        )),
        "sigma_squared"
    );
    assert_eq!(
        name(discrete_gaussian_delta(
            &rational("1e11"),
            &one,
            &rational("1"),
            auto
        )),
        "sigma_squared"
    );
}

fn term(mechanism: PldMechanism, k: u32) -> PldTerm {
    PldTerm {
        mechanism,
        count: Integer::from(k),
    }
}
fn discrete_laplace(a: &str, d: u32) -> PldMechanism {
    PldMechanism::DiscreteLaplace {
        parameter: rational(a),
        sensitivity: Integer::from(d),
    }
}
fn discrete_gaussian(s2: &str, d: u32) -> PldMechanism {
    PldMechanism::DiscreteGaussian {
        sigma_squared: rational(s2),
        sensitivity: Integer::from(d),
    }
}

/// DLap(a) with Δ = 1 is a-randomized response (outputs ≤ 0 against ≥ 1): k copies against the
/// exact binomial formula.
#[test]
fn pld_discrete_laplace_sensitivity_one_is_randomized_response() {
    for (a, k, eps) in [("1/2", 10u32, "1"), ("0.1", 100, "0.5"), ("1", 3, "0")] {
        let r = pld_delta(
            &[term(discrete_laplace(a, 1), k)],
            &rational(eps),
            &PldOptions::default(),
        )
        .unwrap();
        let reference = rr_delta(&rational(a), &Rational::new(), k, &rational(eps));
        contains(
            &r,
            &reference,
            1e-9,
            0.0,
            &format!("DLap({a}) × {k}, ε = {eps}"),
        );
    }
}

/// Σ over pairs of outputs of max(0, P₁P₂ − e^ε·Q₁Q₂): the two-fold composition, directly.
fn hockey2(pmf: &dyn Fn(i64) -> Float, d: i64, eps: &Rational, lo: i64, hi: i64) -> Float {
    let ee = fl(eps).exp();
    let p: Vec<Float> = (lo..=hi).map(pmf).collect();
    let qv: Vec<Float> = (lo..=hi).map(|y| pmf(y - d)).collect();
    let mut s = Float::with_val(REF, 0);
    for i in 0..p.len() {
        for j in 0..p.len() {
            let t = Float::with_val(REF, &p[i] * &p[j])
                - Float::with_val(REF, &ee * Float::with_val(REF, &qv[i] * &qv[j]));
            if t > 0 {
                s += t;
            }
        }
    }
    s
}

#[test]
fn pld_discrete_mechanisms_bracket_the_direct_sums() {
    // one copy: the accountant against the direct sum
    for (m, eps, n, d, pmf) in [
        (
            discrete_laplace("0.3", 4),
            "0.5",
            1200,
            4,
            Box::new(|y: i64| dlap(&fl(&rational("0.3")), y)) as Box<dyn Fn(i64) -> Float>,
        ),
        (
            discrete_gaussian("3", 1),
            "0.2",
            window(&rational("3")),
            1,
            Box::new(dgauss(&rational("3"), 100)),
        ),
        (
            discrete_gaussian("1/2", 2),
            "1",
            window(&rational("1/2")),
            2,
            Box::new(dgauss(&rational("1/2"), 50)),
        ),
    ] {
        let r = pld_delta(
            &[term(m.clone(), 1)],
            &rational(eps),
            &PldOptions::default(),
        )
        .unwrap();
        let reference = hockey(&pmf, d, &rational(eps), -n, n + d);
        contains(&r, &reference, 1e-4, 0.0, &format!("{m:?}, ε = {eps}"));
        // two copies: the sum over pairs
        let r = pld_delta(
            &[term(m.clone(), 2)],
            &rational(eps),
            &PldOptions::default(),
        )
        .unwrap();
        let n2 = n.min(200);
        let reference = hockey2(&pmf, d, &rational(eps), -n2, n2 + d);
        contains(&r, &reference, 1e-4, 0.0, &format!("{m:?} × 2, ε = {eps}"));
    }
}

/// k-ary randomized response: ε = ln(u/v) and δ(ε) = Σ over the k outputs of max(0, P − e^ε·Q),
/// from the output probabilities u = 1 − p + p/k, v = p/k at 1024 bits.
#[test]
fn kary_randomized_response_matches_its_output_probabilities() {
    use dpcert::theorems::randomized_response::*;
    for (p, k, eps) in [
        ("1/2", 4u32, "1"),
        ("0.1", 2, "0.5"),
        ("0.9", 10, "0.01"),
        ("1/3", 3, "5"),
    ] {
        let (pr, kk) = (rational(p), Integer::from(k));
        let v = Rational::from(&pr / k);
        let u = Rational::from(1 - &pr) + &v;
        let e = randomized_response_epsilon(&pr, &kk, Precision::Auto).unwrap();
        let want = Float::with_val(REF, fl(&u) / fl(&v)).ln();
        within(&e, &want, 1e-12, &format!("ε of RR({p}, {k})"));
        let ee = fl(&rational(eps)).exp();
        let mut delta = Float::with_val(REF, 0);
        // outputs: the true bucket (u, v), the neighbour's (v, u), k − 2 others (v, v)
        for (a, b) in [(&u, &v), (&v, &u), (&v, &v)] {
            let t = fl(a) - Float::with_val(REF, &ee * fl(b));
            if t > 0 {
                delta += t;
            }
        }
        let d = randomized_response_delta(&pr, &kk, &rational(eps), Precision::Auto).unwrap();
        if delta == 0 {
            assert_eq!(d.upper().to_f64(), 0.0, "RR({p}, {k}), ε = {eps}");
        } else {
            within(&d, &delta, 1e-12, &format!("δ of RR({p}, {k}), ε = {eps}"));
        }
    }
}

/// n copies of k-ary randomized response through the accountant against the exact multinomial
/// sum over (#true-bucket outputs, #neighbour-bucket outputs) at 1024 bits. Measured: upper
/// ends within 2·10⁻⁹ relative, brackets up to 7·10⁻³ wide (the lower side moves each ±ε atom,
/// ε irrational, down to a grid point: up to h per copy); asserted ≤ 10⁻².
#[test]
fn pld_kary_randomized_response_brackets_the_multinomial_sum() {
    for (p, k, n, eps) in [
        ("1/2", 4u32, 10u32, "3"),
        ("0.8", 2, 30, "1"),
        ("0.3", 5, 5, "2"),
    ] {
        let pr = rational(p);
        let v = fl(&Rational::from(&pr / k));
        let u = Float::with_val(REF, fl(&Rational::from(1 - &pr)) + &v);
        let o = Float::with_val(REF, &v * (k - 2));
        let ee = fl(&rational(eps)).exp();
        let mut s = Float::with_val(REF, 0);
        for a in 0..=n {
            for b in 0..=(n - a) {
                let c = n - a - b;
                let mult = Integer::from(Integer::binomial_u(n, a))
                    * Integer::from(Integer::binomial_u(n - a, b));
                let pw = |x: &Float, e: u32| Float::with_val(REF, rug::ops::Pow::pow(x, e));
                // P-mass u^a v^b o^c, Q-mass v^a u^b o^c
                let pm = pw(&u, a) * pw(&v, b) * pw(&o, c);
                let qm = pw(&v, a) * pw(&u, b) * pw(&o, c);
                let t = pm - Float::with_val(REF, &ee * qm);
                if t > 0 {
                    s += t * Float::with_val(REF, &mult);
                }
            }
        }
        let m = PldMechanism::KaryRandomizedResponse {
            noise: pr.clone(),
            buckets: Integer::from(k),
        };
        let r = pld_delta(&[term(m, n)], &rational(eps), &PldOptions::default()).unwrap();
        contains(&r, &s, 1e-2, 0.0, &format!("RR({p}, {k}) × {n}, ε = {eps}"));
    }
}
