//! Independent high-precision references (plain MPFR at 1024 bits, round-to-nearest, straight
//! from the formulas — no interval code from the crate) and proptest strategies.
#![allow(dead_code)]
use proptest::prelude::*;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

pub const REF: u32 = 1024;

pub fn q(s: &str) -> Rational {
    dpcert::num::parse_exact(s).unwrap()
}
pub fn f(r: &Rational) -> Float {
    Float::with_val(REF, r)
}
/// Φ(x) = erfc(−x/√2)/2.
pub fn phi(x: &Float) -> Float {
    let two = Float::with_val(REF, 2);
    let u = Float::with_val(REF, -x.clone()) / two.sqrt();
    u.erfc() / 2
}
/// Corollary 8: Φ(ρ−ε)/√(2ρ)) − e^ε Φ((−ρ−ε)/√(2ρ)).
pub fn gaussian_delta(rho: &Rational, eps: &Rational) -> Float {
    let (r, e) = (f(rho), f(eps));
    let s = Float::with_val(REF, &r * 2u32).sqrt();
    let a = Float::with_val(REF, &r - &e) / &s;
    let b = Float::with_val(REF, -r.clone() - &e) / &s;
    phi(&a) - e.exp() * phi(&b)
}
/// Proposition 14 at t: exp(t(t+1)ρ − εt)·tᵗ/(t+1)^{t+1}.
pub fn zcdp_delta_at(rho: &Rational, eps: &Rational, t: &Rational) -> Float {
    let (r, e, t) = (f(rho), f(eps), f(t));
    let t1 = Float::with_val(REF, &t + 1u32);
    let x = Float::with_val(REF, &t * &t1) * r - e * &t;
    let tt = t.clone().pow(&t);
    let t1p = t1.clone().pow(&t1);
    x.exp() * tt / t1p
}
pub fn ln_inv(d: &Rational) -> Float {
    -f(d).ln()
}
/// The enclosure a result carries: of the exact value (two-sided results) or of the bound's
/// formula (upper/lower bounds).
pub trait Formula {
    fn enclosure(&self) -> &dpcert::Enclosure;
}
impl Formula for dpcert::Enclosure {
    fn enclosure(&self) -> &dpcert::Enclosure {
        self
    }
}
impl Formula for dpcert::UpperBound {
    fn enclosure(&self) -> &dpcert::Enclosure {
        self.formula()
    }
}
impl Formula for dpcert::LowerBound {
    fn enclosure(&self) -> &dpcert::Enclosure {
        self.formula()
    }
}

/// Is `x` within [lo, hi] of the enclosure, and is the enclosure relatively tight?
pub fn check(e: &impl Formula, reference: &Float, rel: f64, what: &str) {
    let e = e.enclosure();
    assert!(
        e.lower().as_float() <= reference && reference <= e.upper().as_float(),
        "{what}: reference {} outside [{}, {}]",
        reference.to_string_radix(10, Some(25)),
        e.lower().to_decimal(),
        e.upper().to_decimal()
    );
    let slack = Float::with_val(REF, reference.clone().abs() * rel);
    assert!(
        Float::with_val(REF, e.upper().as_float() - reference) <= slack
            && Float::with_val(REF, reference - e.lower().as_float()) <= slack,
        "{what}: not tight: [{}, {}] vs {}",
        e.lower().to_decimal(),
        e.upper().to_decimal(),
        reference.to_string_radix(10, Some(25))
    );
}
pub fn to_f64_nearest(x: &Float) -> f64 {
    x.to_f64_round(Round::Nearest)
}

/// A random exact rational num/den in [lo, hi], written with few digits (as users do).
pub fn rational(lo: f64, hi: f64) -> impl Strategy<Value = Rational> {
    (lo..hi, 1u32..6).prop_map(|(x, digits)| {
        let s = format!("{:.*}", digits as usize, x);
        dpcert::num::parse_exact(&s).unwrap()
    })
}
/// δ = m·10^-k, exact.
pub fn small_delta() -> impl Strategy<Value = Rational> {
    (1u32..10, 1u32..300).prop_map(|(m, k)| dpcert::num::parse_exact(&format!("{m}e-{k}")).unwrap())
}

/// Run the `dpcert` binary: (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let o = std::process::Command::new(option_env!("CARGO_BIN_EXE_dpcert").expect("integration tests only"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// δ_opt(ε) = 1 − (1−δ0)^k (1 − Σ_ℓ C(k,ℓ) max(0, e^{(k−ℓ)ε0} − e^{ε+ℓε0})/(1+e^{ε0})^k), at 1024 bits.
pub fn rr_delta(e0: &Rational, d0: &Rational, k: u32, eps: &Rational) -> Float {
    let (e0f, e) = (f(e0), f(eps));
    let mut s = Float::with_val(REF, 0);
    for l in 0..=k {
        let t = Float::with_val(REF, &e0f * (k - l)).exp()
            - Float::with_val(REF, &e + Float::with_val(REF, &e0f * l)).exp();
        if t > 0 {
            s += Float::with_val(REF, Integer::from(Integer::binomial_u(k, l))) * t;
        }
    }
    let rr = s / Float::with_val(REF, e0f.exp() + 1u32).pow(k);
    let keep = Float::with_val(REF, 1 - f(d0)).pow(k);
    1 - keep * (1 - rr)
}

/// ln A_n = ln Σ_k C(n,k)(1−q)^{n−k} q^k exp((k²−k)/(2σ²)) for the Poisson-subsampled Gaussian
/// at an integer order n: exact rational weights, exp at 1024 bits.
pub fn sgm_log_a(qr: &Rational, sigma: &Rational, n: u32) -> Float {
    let mut s = Float::with_val(REF, 0);
    for k in 0..=n {
        let c = Rational::from(Integer::from(Integer::binomial_u(n, k)))
            * Rational::from(1 - qr.clone()).pow(n - k)
            * Rational::from(qr.clone()).pow(k);
        let e = Rational::from((Integer::from(k) * k - k, Integer::from(1)))
            / (Rational::from(sigma * sigma) * 2u32);
        s += f(&c) * f(&e).exp();
    }
    s.ln()
}

/// ln A_α at a real order: E_{z~N(0,σ²)}[((1−q) + q·e^{(2z−1)/(2σ²)})^α] by the trapezoidal
/// rule on ±60σ at 1024 bits (exponentially convergent for this smooth Gaussian-decaying
/// integrand).
pub fn sgm_log_a_frac(qr: &Rational, sigma: &Rational, alpha: &Rational) -> Float {
    let (qf, s, a) = (f(qr), f(sigma), f(alpha));
    let h = Float::with_val(REF, &s / 64u32);
    let two_pi = Float::with_val(REF, rug::float::Constant::Pi) * 2u32;
    let norm = Float::with_val(REF, &s * two_pi.sqrt());
    let mut sum = Float::with_val(REF, 0);
    let n = 64 * 60;
    for i in -n..=n {
        let z = Float::with_val(REF, &h * i);
        let dens =
            (-Float::with_val(REF, &z * &z) / (Float::with_val(REF, &s * &s) * 2u32)).exp() / &norm;
        let l = ((Float::with_val(REF, &z * 2u32) - 1u32) / (Float::with_val(REF, &s * &s) * 2u32))
            .exp();
        let x = Float::with_val(REF, 1 - qf.clone()) + Float::with_val(REF, &qf * &l);
        sum += dens * (x.ln() * &a).exp();
    }
    (sum * h).ln()
}

/// An enclosure `[lo, hi]` of the root x* of a non-increasing g with g(x*) = target, checked
/// with the reference g at its endpoints: g(lo) ≥ target ≥ g(hi), and hi − lo ≤ rel·hi.
pub fn check_root_bracket(
    lo: &Float,
    hi: &Float,
    g: impl Fn(&Rational) -> Float,
    target: &Rational,
    rel: f64,
    what: &str,
) {
    let (l, h) = (lo.to_rational().unwrap(), hi.to_rational().unwrap());
    assert!(g(&l) >= *target, "{what}: reference at the lower end {} is below the target", lo);
    assert!(g(&h) <= *target, "{what}: reference at the upper end {} is above the target", hi);
    let w = Float::with_val(REF, hi - lo);
    assert!(w <= Float::with_val(REF, hi * rel), "{what}: width {w} above {rel} relative");
}

/// min over u ∈ [a, b] of a unimodal g, by golden-section search at 1024 bits.
pub fn golden_min(g: impl Fn(&Float) -> Float, a: f64, b: f64) -> Float {
    let r = (Float::with_val(REF, 5).sqrt() - 1u32) / 2u32;
    let (mut a, mut b) = (Float::with_val(REF, a), Float::with_val(REF, b));
    for _ in 0..300 {
        let d = Float::with_val(REF, &b - &a) * &r;
        let (x1, x2) = (Float::with_val(REF, &b - &d), Float::with_val(REF, &a + &d));
        if g(&x1) < g(&x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    g(&Float::with_val(REF, (a + b) / 2u32))
}
