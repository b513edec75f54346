//! Mechanisms with integer outputs: the discrete Laplace (two-sided geometric) mechanism and
//! the discrete Gaussian of Canonne, Kamath & Steinke (2020), both on an integer-valued query of
//! integer sensitivity Δ. Their exact privacy profiles δ(ε) as certified sums over the integers.
//!
//! Both pairs are P = q(x) + Y and Q = q(x′) + Y with |q(x) − q(x′)| ≤ Δ; by translation and
//! reflection the worst pair is Y against Y + Δ, the one these functions evaluate.
use crate::num::{certify, Enclosure, F64Interval, MpfrInterval, Precision, Real};
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// Largest σ² the discrete Gaussian's direct sums accept: the window holds about 29σ integers
/// (at 128 bits), so 10¹⁰ is ≤ 3·10⁶ terms per evaluation.
pub const MAX_SIGMA_SQUARED: u64 = 10_000_000_000;

fn check_sensitivity(sensitivity: &Integer) -> Result<()> {
    validate::count("sensitivity", sensitivity)
}

/// The pure ε of the discrete Laplace mechanism DLap(a) (P\[Y = y\] ∝ e^{−a|y|}) on a query of
/// integer sensitivity Δ: ε = aΔ, the largest privacy loss.
///
/// # Guarantee
/// Exact rational. Errors unless a > 0 and Δ ≥ 1 is an integer.
/// Note: `proofs-notes/discrete_laplace_epsilon.md`.
pub fn discrete_laplace_epsilon(a: &Rational, sensitivity: &Integer) -> Result<Rational> {
    validate::positive("noise_parameter", a)?;
    check_sensitivity(sensitivity)?;
    Ok(Rational::from(a * sensitivity))
}

/// The exact privacy profile of the discrete Laplace mechanism: with m the largest integer with
/// a(Δ − 2m) > ε (m = ⌈(aΔ − ε)/(2a)⌉ − 1),
/// δ(ε) = (−expm1(ε − a(Δ − m)) − e^{−a}·expm1(−am)) / (1 + e^{−a}) for ε < aΔ, else 0.
///
/// # Guarantee
/// Encloses the exact and optimal δ(ε) (the hockey-stick divergence of DLap(a) against
/// Δ + DLap(a), both orders), two-sided, for a > 0, integer Δ ≥ 1, ε ≥ 0; errors otherwise.
/// Note: `proofs-notes/discrete_laplace_delta.md`.
pub fn discrete_laplace_delta(
    a: &Rational,
    sensitivity: &Integer,
    eps: &Rational,
    prec: Precision,
) -> Result<Enclosure> {
    let top = discrete_laplace_epsilon(a, sensitivity)?;
    validate::nonnegative("epsilon", eps)?;
    if *eps >= top {
        return Ok(Enclosure::rational(&Rational::new(), 64));
    }
    // m = ⌈(aΔ − ε)/(2a)⌉ − 1 ≥ 0 (ε < aΔ): outputs y ≤ m have loss a(Δ − 2y) > ε
    let m = (Rational::from(&top - eps) / Rational::from(a * 2u32)).ceil() - 1u32;
    let formula = |p: u32| -> MpfrInterval { laplace_formula(a, sensitivity, eps, &m, p) };
    certify(
        prec,
        || laplace_formula(a, sensitivity, eps, &m, 53),
        formula,
    )
    .map(super::pld::probability)
}

/// (−expm1(ε − a(Δ − m)) − e^{−a}·expm1(−am)) / (1 + e^{−a}): both terms ≥ 0, no cancellation.
fn laplace_formula<R: Real>(a: &Rational, d: &Integer, eps: &Rational, m: &Rational, p: u32) -> R {
    let r = |q: Rational| R::from_rational(&q, p);
    let ema = r(Rational::from(-a)).exp();
    let gap = eps - a * Rational::from(d - m);
    let first = r(gap).expm1().neg();
    let second = ema.mul(&r(-Rational::from(a * m)).expm1().neg());
    first.add(&second).div(&ema.add(&R::from_int(1, p)))
}

/// ρ = Δ²/(2σ²): the discrete Gaussian N_ℤ(0, σ²) on a query of sensitivity Δ is ρ-zCDP
/// (Canonne, Kamath & Steinke 2020, Theorem 4; Theorem 14 for ℓ2 sensitivity Δ of a vector of
/// independent ones), as the continuous Gaussian.
///
/// # Guarantee
/// Exact rational. Errors unless σ² > 0 and Δ > 0.
/// Note: `proofs-notes/discrete_gaussian_zcdp.md`.
pub fn discrete_gaussian_zcdp(
    sigma_squared: &Rational,
    sensitivity: &Rational,
) -> Result<Rational> {
    validate::positive("sigma_squared", sigma_squared)?;
    validate::positive("sensitivity", sensitivity)?;
    Ok(Rational::from(sensitivity * sensitivity) / Rational::from(sigma_squared * 2u32))
}

/// The exact privacy profile of the discrete Gaussian mechanism (CKS 2020, Theorem 7):
/// δ(ε) = P\[Y ≤ m\] − e^ε·P\[Y ≤ m − Δ\], Y ~ N_ℤ(0, σ²), m the largest integer with privacy loss
/// L(m) = Δ(Δ − 2m)/(2σ²) > ε; evaluated as (1/Z)·Σ_{y ≤ m} e^{−y²/(2σ²)}·(−expm1(ε − L(y))), a
/// sum of non-negative terms over a window of integers with the rest bounded by
/// Σ_{y > n} e^{−y²/(2σ²)} ≤ (σ²/n)·e^{−n²/(2σ²)}, and Z enclosed likewise.
///
/// # Guarantee
/// Encloses the exact and optimal δ(ε) of N_ℤ(0, σ²) against Δ + N_ℤ(0, σ²) (both orders),
/// two-sided, for 0 < σ² ≤ [`MAX_SIGMA_SQUARED`], integer Δ ≥ 1, ε ≥ 0; errors otherwise.
/// Note: `proofs-notes/discrete_gaussian_delta.md`.
pub fn discrete_gaussian_delta(
    sigma_squared: &Rational,
    sensitivity: &Integer,
    eps: &Rational,
    prec: Precision,
) -> Result<Enclosure> {
    check_sigma_squared(sigma_squared)?;
    check_sensitivity(sensitivity)?;
    validate::nonnegative("epsilon", eps)?;
    // L(y) > ε ⟺ y < Δ/2 − εσ²/Δ; m = ⌈Δ/2 − εσ²/Δ⌉ − 1
    let d = Rational::from(sensitivity);
    let t = Rational::from(&d / 2u32) - Rational::from(eps * sigma_squared) / &d;
    let m = t.ceil().numer().clone() - 1u32;
    let dg = DiscreteGaussian {
        sigma_squared,
        sensitivity,
    };
    certify(
        prec,
        || dg.delta::<F64Interval>(eps, &m, 53),
        |p| dg.delta::<MpfrInterval>(eps, &m, p),
    )
    .map(super::pld::probability)
}

pub(crate) fn check_sigma_squared(sigma_squared: &Rational) -> Result<()> {
    validate::positive("sigma_squared", sigma_squared)?;
    if *sigma_squared > MAX_SIGMA_SQUARED {
        return Err(Error::arg(
            "sigma_squared",
            format!(
                "{} exceeds {MAX_SIGMA_SQUARED}: the discrete Gaussian's sums would run over more than 10⁶ integers (at σ that large it behaves as the continuous Gaussian: describe it as one)",
                validate::show(sigma_squared)
            ),
        ));
    }
    Ok(())
}

/// The pair N_ℤ(0, σ²) against Δ + N_ℤ(0, σ²): weights, window and tail bounds.
pub(crate) struct DiscreteGaussian<'a> {
    pub(crate) sigma_squared: &'a Rational,
    pub(crate) sensitivity: &'a Integer,
}

impl DiscreteGaussian<'_> {
    /// e^{−y²/(2σ²)}, enclosed.
    pub(crate) fn weight<R: Real>(&self, y: &Integer, p: u32) -> R {
        let e = Rational::from(y * y) / Rational::from(self.sigma_squared * 2u32);
        R::from_rational(&-e, p).exp()
    }

    /// [0, (σ²/n)·e^{−n²/(2σ²)}] ∋ Σ_{y > n} e^{−y²/(2σ²)} (n ≥ 1): the sum of a decreasing
    /// function over y ≥ n + 1 is at most its integral from n, and ∫_n^∞ e^{−t²/(2σ²)} dt ≤
    /// ∫_n^∞ (t/n)e^{−t²/(2σ²)} dt = (σ²/n)e^{−n²/(2σ²)}.
    pub(crate) fn tail<R: Real>(&self, n: &Integer, p: u32) -> R {
        let f = R::from_rational(&(Rational::from(self.sigma_squared) / n), p);
        R::from_int(0, p).hull(&f.mul(&self.weight::<R>(n, p)))
    }

    /// Half-width W of the summation window: e^{−W²/(2σ²)} ≤ 2^{−(p + 20)} (a choice in f64;
    /// any W ≥ 1 is sound, the tail bound accounts for the rest).
    pub(crate) fn window(&self, p: u32) -> Integer {
        let s = self.sigma_squared.to_f64().sqrt();
        let w = s * (2.0 * (p as f64 + 20.0) * std::f64::consts::LN_2).sqrt();
        Integer::from(w.ceil().max(1.0) as u64 + 1)
    }

    /// Z = Σ_y e^{−y²/(2σ²)} = 1 + 2Σ_{y ≥ 1}, over y ≤ W plus the tail bound beyond.
    pub(crate) fn normaliser<R: Real>(&self, p: u32) -> R {
        let w = self.window(p);
        let mut s = R::from_int(0, p);
        let mut y = Integer::from(1);
        while y <= w {
            s = s.add(&self.weight::<R>(&y, p));
            y += 1;
        }
        let two = R::from_int(2, p);
        R::from_int(1, p).add(&two.mul(&s.add(&self.tail::<R>(&w, p))))
    }

    /// Σ_{y ≤ m} e^{−y²/(2σ²)}·(−expm1(ε − L(y))) / Z, the window [lo, hi] of `bounds` summed
    /// and the rest bounded by the tails (each factor lies in [0, 1]).
    fn delta<R: Real>(&self, eps: &Rational, m: &Integer, p: u32) -> R {
        let w = self.window(p);
        let (lo, hi) = bounds(m, &w);
        let mut s = R::from_int(0, p);
        let mut y = lo.clone();
        while y <= hi {
            let gap = eps - self.loss(&y);
            s = s.add(
                &self
                    .weight::<R>(&y, p)
                    .mul(&R::from_rational(&gap, p).expm1().neg()),
            );
            y += 1;
        }
        // below lo: Σ_{y < lo} = Σ_{y > |lo|} by symmetry (lo ≤ −W ≤ −1)
        s = s.add(&self.tail::<R>(&Integer::from(-&lo), p));
        if *m > w {
            s = s.add(&self.tail::<R>(&w, p));
        }
        s.div(&self.normaliser::<R>(p))
    }

    /// The privacy loss ln(P\[y\]/Q\[y\]) = Δ(Δ − 2y)/(2σ²) at output y, exactly.
    pub(crate) fn loss(&self, y: &Integer) -> Rational {
        let d = self.sensitivity;
        Rational::from(d * (d - Integer::from(y * 2u32)))
            / Rational::from(self.sigma_squared * 2u32)
    }
}

/// The summation window for Σ_{y ≤ m}: [−W, min(m, W)] when m ≥ −W, else [m − W, m].
fn bounds(m: &Integer, w: &Integer) -> (Integer, Integer) {
    let neg_w = Integer::from(-w);
    if *m >= neg_w {
        (neg_w, m.clone().min(w.clone()))
    } else {
        (Integer::from(m - w), m.clone())
    }
}
