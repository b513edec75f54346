//! The Gaussian mechanism, exactly: Corollaries 8 and 10 (with Theorem 9), the interpretable
//! bound after Corollary 8, and the inverse queries.
use super::pld::{gaussian_tails, gaussian_tails_iv, GaussianPld};
use crate::num::{
    certify, Arithmetic, Enclosure, F64Interval, MpfrInterval, Precision, Real, UpperBound,
};
use crate::search::{invert_nonincreasing, Bracket, SEARCH_BITS};
use crate::validate;
use crate::{Error, Result};
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// One kind of Gaussian mechanism in a composition: noise σ, L2 sensitivity Δ, used `count` times.
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianMechanism {
    /// Noise standard deviation σ > 0.
    pub sigma: Rational,
    /// L2 sensitivity Δ > 0.
    pub sensitivity: Rational,
    /// Number of uses k ≥ 1.
    pub count: Integer,
}

impl GaussianMechanism {
    /// Checked constructor: errors (naming the argument) unless σ > 0, Δ > 0, count ≥ 1.
    pub fn new(sigma: Rational, sensitivity: Rational, count: Integer) -> Result<Self> {
        validate::positive("sigma", &sigma)?;
        validate::positive("sensitivity", &sensitivity)?;
        validate::count("compositions", &count)?;
        Ok(GaussianMechanism {
            sigma,
            sensitivity,
            count,
        })
    }
}

/// Corollary 10 with Theorem 9: the composition of Gaussian mechanisms has PLD N(ρ, 2ρ) with
/// ρ = Σⱼ countⱼ·Δⱼ²/(2σⱼ²), exact.
///
/// # Guarantee
/// Exact rational ρ. Errors on an empty list or a non-positive σ, Δ or count.
/// Note: `proofs-notes/gaussian_composition.md`.
pub fn gaussian_composition(mechanisms: &[GaussianMechanism]) -> Result<GaussianPld> {
    validate::nonempty("mechanisms", mechanisms)?;
    let mut rho = Rational::new();
    for m in mechanisms {
        let m = GaussianMechanism::new(m.sigma.clone(), m.sensitivity.clone(), m.count.clone())?;
        let d2 = Rational::from(&m.sensitivity * &m.sensitivity);
        let s2 = Rational::from(&m.sigma * &m.sigma);
        rho += d2 / s2 / 2u32 * Rational::from(m.count);
    }
    Ok(GaussianPld { rho })
}

/// Corollary 8 / Corollary 10: the exact, optimal δ(ε) of a Gaussian mechanism (or of a
/// composition, through [`gaussian_composition`]):
/// δ = Φ((ρ−ε)/√(2ρ)) − e^ε Φ((−ρ−ε)/√(2ρ)).
///
/// # Guarantee
/// Encloses δ of Steinke 2022, Corollary 8, two-sided (the value is exact and optimal), for
/// ρ > 0 and ε ≥ 0; errors otherwise. Note: `proofs-notes/gaussian_delta.md`.
pub fn gaussian_delta(pld: &GaussianPld, eps: &Rational, prec: Precision) -> Result<Enclosure> {
    validate::positive("rho", &pld.rho)?;
    validate::nonnegative("epsilon", eps)?;
    if prec == Precision::Auto {
        if let Some(e) = gaussian_delta_mills(&pld.rho, eps) {
            return Ok(e);
        }
    }
    certify(
        prec,
        || gaussian_tails::<F64Interval>(&pld.rho, eps, 53),
        |p| gaussian_tails_iv(&pld.rho, eps, p),
    )
    .map(super::pld::probability)
}

/// π ∈ [π₆₄, next f64 above π₆₄] with π₆₄ = `f64::consts::PI` < π (exact rationals), so
/// √(π/2) is enclosed in any backend without a built-in π.
fn sqrt_half_pi<R: Real>(prec: u32) -> R {
    let pi = std::f64::consts::PI;
    let lo = Rational::from_f64(pi).expect("finite");
    let hi = Rational::from_f64(f64::from_bits(pi.to_bits() + 1)).expect("finite");
    let half = |r: Rational| R::from_rational(&(r / 2u32), prec);
    half(lo).hull(&half(hi)).sqrt()
}

/// 2^−(2²⁹): an upper end below this is accepted at any width (the exact δ is below it).
fn below_reporting_floor(x: &Float) -> bool {
    *x <= Float::with_val(64, 1) >> (1i32 << 29)
}

/// Corollary 8 in the cancellation-free Mills-moment form, `f64` intervals with the one
/// exponential e^{−A}, A = a²/2 = (ρ − ε)²/(4ρ) (exact), taken by MPFR at 53 bits (no
/// underflow): with x = |a|, a = (ρ − ε)/μ, h = 2·min(ρ, ε)/μ and v = (ρ + ε)/μ = x + h,
///   δ = E + e^{−A}·(M(x) − M(v))/√(2π),   E = Φ(a) − Φ(−a) if a > 0, else 0,
/// E = 2φ(a)S(a) (a < 2) or 1 − 2φ(a)M(a). `None` unless finite and relatively narrow
/// (≤ 2⁻⁴³), or below 2^−(2²⁹); the caller then falls back to [`certify`].
fn gaussian_delta_mills(rho: &Rational, eps: &Rational) -> Option<Enclosure> {
    use crate::num::mills::{mills_difference, mills_moments, series_s, CF_FROM};
    let p = 53;
    let r = |q: Rational| F64Interval::from_rational(&q, p);
    let shp = sqrt_half_pi::<F64Interval>(p);
    let mu = r(Rational::from(rho * 2u32)).sqrt();
    let gap = Rational::from(rho - eps);
    let x = r(gap.clone().abs()).div(&mu);
    let h = r(Rational::from(rho.min(eps) * 2u32)).div(&mu);
    let v = r(Rational::from(rho + eps)).div(&mu);
    let dm = mills_difference(&x, &h, &v, 48, p, &shp)?;
    let big_a = Rational::from(&gap * &gap) / Rational::from(rho * 4u32);
    let two = F64Interval::from_int(2, p);
    let e = if gap > 0 {
        let phi = r(big_a.clone()).neg().exp().div(&two.mul(&shp));
        if crate::num::mills::ends_f64(&x).0 < CF_FROM {
            two.mul(&phi).mul(&series_s(&x, 53, p)?)
        } else {
            let m = mills_moments(&x, 0, 53, p, &shp)?;
            F64Interval::from_int(1, p).sub(&two.mul(&phi).mul(&m[0]))
        }
    } else {
        F64Interval::from_int(0, p)
    };
    let t = dm.div(&two.mul(&shp));
    let iv = |f: &F64Interval| {
        f.endpoints()
            .map(|(a, b)| MpfrInterval::from_endpoints(a, b))
    };
    let (e, t) = (iv(&e)?, iv(&t)?);
    // A to 64 bits beyond its integer part, so e^{−A} keeps ≈ 64 relative bits
    let pa = 64
        + Float::with_val(64, &big_a)
            .get_exp()
            .unwrap_or(0)
            .clamp(0, 1 << 20) as u32;
    let a_lo = Float::with_val_round(pa, &big_a, Round::Down).0;
    let a_hi = Float::with_val_round(pa, &big_a, Round::Up).0;
    let lo = Float::with_val_round(p, (-a_hi).exp_ref(), Round::Down).0;
    let hi = Float::with_val_round(p, (-a_lo).exp_ref(), Round::Up).0;
    let d = e.add(&MpfrInterval::from_endpoints(lo, hi).mul(&t));
    let (lo, hi) = d.endpoints()?;
    let enc = super::pld::probability(Enclosure::new(lo, hi, Arithmetic::F64Interval).ok()?);
    let ok = enc.is_finite()
        && (enc.rel_width() <= crate::num::FAST_REL_TOL
            || below_reporting_floor(enc.upper().as_float()));
    ok.then_some(enc)
}

/// The "more interpretable" upper bounds after Corollary 8, for ε ≥ ρ:
/// δ ≤ P[N(0,1) > (ε−ρ)/√(2ρ)] ≤ exp(−(ε−ρ)²/(4ρ)). Returns both, in that order.
///
/// # Guarantee
/// Each enclosure contains the value of its formula, which is ≥ the exact δ. Errors unless
/// ρ > 0 and ε ≥ ρ. Note: `proofs-notes/gaussian_delta_interpretable.md`.
pub fn gaussian_delta_interpretable(
    pld: &GaussianPld,
    eps: &Rational,
    prec: Precision,
) -> Result<(UpperBound, UpperBound)> {
    validate::positive("rho", &pld.rho)?;
    if *eps < pld.rho {
        return Err(Error::arg("epsilon", "the interpretable bound needs ε ≥ ρ"));
    }
    let gap = Rational::from(eps - &pld.rho);
    fn tail<R: Real>(gap: &Rational, rho: &Rational, p: u32) -> R {
        let s = R::from_rational(&Rational::from(rho * 2u32), p).sqrt();
        R::from_rational(gap, p).div(&s).normal_sf()
    }
    fn expo<R: Real>(gap: &Rational, rho: &Rational, p: u32) -> R {
        let g = R::from_rational(gap, p);
        g.sqr()
            .div(&R::from_rational(&Rational::from(rho * 4u32), p))
            .neg()
            .exp()
    }
    Ok((
        UpperBound::new(certify(
            prec,
            || tail::<F64Interval>(&gap, &pld.rho, 53),
            |p| tail::<MpfrInterval>(&gap, &pld.rho, p),
        )?),
        UpperBound::new(certify(
            prec,
            || expo::<F64Interval>(&gap, &pld.rho, 53),
            |p| expo::<MpfrInterval>(&gap, &pld.rho, p),
        )?),
    ))
}

/// Enclosure `[infeasible, feasible]` from a certified search bracket (exact points).
fn bracket_enclosure(b: Bracket, arithmetic: crate::num::Arithmetic) -> Result<Enclosure> {
    let lo = b.infeasible.unwrap_or_else(|| b.feasible.clone());
    Enclosure::new(lo, b.feasible, arithmetic)
}

/// A 53-bit float from an exact rational, rounded toward zero (as `Rational::to_f64`, but
/// with MPFR's exponent range): search starting points only.
fn trunc53(r: &Rational) -> Float {
    Float::with_val_round(SEARCH_BITS, r, Round::Zero).0
}

/// Inverse of Corollary 8/10: the exact optimal ε*(δ) = min{ε ≥ 0 : δ(ε) ≤ δ}.
///
/// # Guarantee
/// `upper` is an ε whose certified δ(ε) is ≤ δ (so (upper, δ)-DP holds); `lower` is an ε whose
/// certified δ(ε) is > δ (so no ε ≤ lower works), or 0 when δ(0) ≤ δ is certified (then ε* = 0).
/// Width ≤ 1e-15 relative unless precision limits are reached. Errors unless ρ > 0 and
/// δ ∈ (0, 1). Note: `proofs-notes/gaussian_epsilon.md`.
pub fn gaussian_epsilon(pld: &GaussianPld, delta: &Rational, prec: Precision) -> Result<Enclosure> {
    validate::positive("rho", &pld.rho)?;
    validate::open_unit("delta", delta)?;
    // start = ρ + 2√(ρ ln(1/δ)) in 53-bit round-to-nearest (the f64 formula, without its
    // range limit)
    let rho = trunc53(&pld.rho);
    let l = Float::with_val(SEARCH_BITS, -crate::search::ln_f64(delta));
    let root = Float::with_val(SEARCH_BITS, &rho * &l).sqrt();
    let mut start = Float::with_val(
        SEARCH_BITS,
        &rho + Float::with_val(SEARCH_BITS, &root * 2u32),
    );
    let tiny = crate::search::point(1e-6);
    if start < tiny {
        start = tiny;
    }
    let g = |e: &Rational, p: Precision| gaussian_delta(pld, e, p);
    let b = invert_nonincreasing(g, delta, 0.0, true, start, 1e-15, prec)?;
    let at = b.feasible.to_rational().expect("finite search point");
    let arith = gaussian_delta(pld, &at, prec)?.arithmetic();
    bracket_enclosure(b, arith)
}

/// The smallest σ for which a Gaussian mechanism (L2 sensitivity Δ, composed `count` times)
/// is (ε, δ)-DP, by Corollary 8/10 (δ(ε) decreases in σ).
///
/// # Guarantee
/// `upper` is a σ certified to satisfy (ε, δ); `lower` a σ certified not to; the exact minimal
/// σ lies in (lower, upper], width ≤ 1e-12 relative. Errors unless ε ≥ 0, δ ∈ (0, 1), Δ > 0,
/// count ≥ 1. Note: `proofs-notes/gaussian_sigma.md`.
pub fn gaussian_sigma(
    eps: &Rational,
    delta: &Rational,
    sensitivity: &Rational,
    count: &Integer,
    prec: Precision,
) -> Result<Enclosure> {
    validate::nonnegative("epsilon", eps)?;
    validate::open_unit("delta", delta)?;
    validate::positive("sensitivity", sensitivity)?;
    validate::count("compositions", count)?;
    let pld_of = |sigma: &Rational| {
        gaussian_composition(&[GaussianMechanism {
            sigma: sigma.clone(),
            sensitivity: sensitivity.clone(),
            count: count.clone(),
        }])
    };
    // δ(σ) is non-increasing in σ; search on σ with the certified δ
    let g = |s: &Rational, p: Precision| gaussian_delta(&pld_of(s)?, eps, p);
    // start = Δ√k·√(2(ln(1/δ) + ε))/ε, ε ≥ 10⁻³, in 53-bit round-to-nearest (the f64 formula,
    // without its range limit)
    let n = |x: Float| Float::with_val(SEARCH_BITS, x);
    let mut e = trunc53(eps);
    if e < crate::search::point(1e-3) {
        e = crate::search::point(1e-3);
    }
    let ld = Float::with_val(SEARCH_BITS, crate::search::ln_f64(delta));
    let sqrt_k = n(trunc53(&Rational::from(count)).sqrt());
    let inner = n(Float::with_val(SEARCH_BITS, &e - &ld) * 2u32).sqrt();
    let start = n(n(n(trunc53(sensitivity) * &sqrt_k) * &inner) / &e);
    let b = invert_nonincreasing(g, delta, 0.0, false, start, 1e-12, prec)?;
    let at = b.feasible.to_rational().expect("finite search point");
    let arith = g(&at, prec)?.arithmetic();
    bracket_enclosure(b, arith)
}
