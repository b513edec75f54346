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
