//! Concentrated DP: Definition 11, Lemma 12, Theorem 13, Proposition 14, Remark 15,
//! Proposition 16, Theorem 18, the Laplace scale comparison, and Proposition 19 / Corollary 21.
use crate::num::{
    certify, Enclosure, F64Interval, LowerBound, MpfrInterval, Precision, Real, UpperBound,
};
use crate::validate;
use crate::{Error, Result};
use rug::{Float, Integer, Rational};

/// Lemma 12: the Gaussian mechanism N(q(x), σ²I) with L2 sensitivity Δ is Δ²/(2σ²)-zCDP.
///
/// # Guarantee
/// Exact rational ρ; errors unless σ > 0, Δ > 0. Note: `proofs-notes/gaussian_zcdp.md`.
pub fn gaussian_zcdp(sigma: &Rational, sensitivity: &Rational) -> Result<Rational> {
    validate::positive("sigma", sigma)?;
    validate::positive("sensitivity", sensitivity)?;
    Ok(Rational::from(sensitivity * sensitivity) / Rational::from(sigma * sigma) / 2u32)
}

/// Theorem 13 (and Proposition 19 for adaptive choice): composing ρⱼ-zCDP mechanisms gives
/// Σρⱼ-zCDP.
///
/// # Guarantee
/// Exact rational Σρⱼ; errors on an empty list or a negative ρⱼ. Note: `proofs-notes/zcdp_compose.md`.
pub fn zcdp_compose(rhos: &[Rational]) -> Result<Rational> {
    validate::nonempty("rho", rhos)?;
    for r in rhos {
        validate::nonnegative("rho", r)?;
    }
    Ok(rhos.iter().sum())
}

/// Proposition 16: ε-DP implies ε²/2-zCDP.
///
/// # Guarantee
/// Exact rational ε²/2; errors if ε < 0. Note: `proofs-notes/pure_to_zcdp.md`.
pub fn pure_to_zcdp(eps: &Rational) -> Result<Rational> {
    validate::nonnegative("epsilon", eps)?;
    Ok(Rational::from(eps * eps) / 2u32)
}

/// ln of Proposition 14's general form with the zCDP MGF bound e^{t(t+1)ρ}:
/// ln δ_t(ε) = t(t+1)ρ − εt − t·ln(1 + 1/t) − ln(1 + t).
fn log_delta_t<R: Real>(rho: &Rational, eps: &Rational, t: &Rational, p: u32) -> R {
    let (rho, eps, t) = (
        R::from_rational(rho, p),
        R::from_rational(eps, p),
        R::from_rational(t, p),
    );
    let one = R::from_int(1, p);
    let mgf = t.mul(&t.add(&one)).mul(&rho);
    mgf.sub(&eps.mul(&t))
        .sub(&t.mul(&one.div(&t).ln1p()))
        .sub(&t.ln1p())
}

/// ε_t(δ) = (t+1)ρ + (ln(1/δ) − t·ln(1 + 1/t) − ln(1 + t))/t, clamped at 0: the ε at which
/// Proposition 14's δ_t equals δ.
fn eps_t<R: Real>(rho: &Rational, delta: &Rational, t: &Rational, p: u32) -> R {
    let (rho, d, t) = (
        R::from_rational(rho, p),
        R::from_rational(delta, p),
        R::from_rational(t, p),
    );
    let one = R::from_int(1, p);
    let num = d.ln().neg().sub(&t.mul(&one.div(&t).ln1p())).sub(&t.ln1p());
    t.add(&one).mul(&rho).add(&num.div(&t)).max0()
}

/// Proposition 14, general form, at a given t > 0 with the ρ-zCDP MGF bound:
/// δ = e^{t(t+1)ρ − εt}·tᵗ/(t+1)^{t+1}.
///
/// # Guarantee
/// Encloses min{1, formula}, a valid δ for every ρ-zCDP mechanism at ε, for
/// ρ ≥ 0, ε ≥ 0, t > 0; errors otherwise. Note: `proofs-notes/zcdp_delta_at.md`.
pub fn zcdp_delta_at(
    rho: &Rational,
    eps: &Rational,
    t: &Rational,
    prec: Precision,
) -> Result<UpperBound> {
    validate::nonnegative("rho", rho)?;
    validate::nonnegative("epsilon", eps)?;
    validate::positive("t", t)?;
    certify(
        prec,
        || log_delta_t::<F64Interval>(rho, eps, t, 53).exp(),
        |p| log_delta_t::<MpfrInterval>(rho, eps, t, p).exp(),
    )
    .map(clamp_one)
    .map(UpperBound::new)
}

fn clamp_one(e: Enclosure) -> Enclosure {
    e.clamp_to(None, Some(1))
}

/// Working precision of the t searches (plain MPFR, round-to-nearest: they only choose t).
const SEARCH_PREC: u32 = 128;

/// Bisection for the root of an increasing `g` on `[lo, hi]` (g(lo) < 0 ≤ g(hi) expected), at
/// the geometric mean while the bracket spans more than a factor 2, then at the midpoint.
/// A search: any t it returns gives a valid bound.
fn bisect_root(g: impl Fn(&Float) -> Float, mut lo: Float, mut hi: Float) -> Float {
    for _ in 0..400 {
        let mid = if Float::with_val(SEARCH_PREC, &hi / &lo) > 2 {
            Float::with_val(SEARCH_PREC, &lo * &hi).sqrt()
        } else {
            Float::with_val(SEARCH_PREC, &lo + &hi) / 2u32
        };
        if mid <= lo || mid >= hi {
            break;
        }
        if g(&mid).is_sign_negative() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Float::with_val(SEARCH_PREC, &lo + &hi) / 2u32
}

/// The t an MPFR search picks for Proposition 14's δ at ε: the root of
/// f′(t) = (2t+1)ρ − ε − ln(1 + 1/t), inside the proven bracket [s − 1, t_hi] with
/// s = ((ρ+ε) + √((ρ+ε)² + 8ρ))/(4ρ) and t_hi = ((ε−ρ) + √((ε−ρ)² + 8ρ))/(4ρ)
/// (proofs-notes/zcdp_delta.md).
fn best_t_delta(rho: &Rational, eps: &Rational) -> Rational {
    let p = SEARCH_PREC;
    let (r, e) = (Float::with_val(p, rho), Float::with_val(p, eps));
    let sq = |x: &Float| Float::with_val(p, x * x) + Float::with_val(p, &r * 8u32);
    let d = Float::with_val(p, &e - &r);
    // t_hi, written without cancellation when ε < ρ
    let hi = if d.is_sign_negative() {
        Float::with_val(p, 2) / (Float::with_val(p, -d.clone()) + sq(&d).sqrt())
    } else {
        (Float::with_val(p, &d + sq(&d).sqrt())) / Float::with_val(p, &r * 4u32)
    };
    let sum = Float::with_val(p, &r + &e);
    let s = Float::with_val(p, &sum + sq(&sum).sqrt()) / Float::with_val(p, &r * 4u32);
    let g = |t: &Float| {
        let inv = Float::with_val(p, t.recip_ref());
        (Float::with_val(p, t * 2u32) + 1u32) * &r - &e - inv.ln_1p()
    };
    let mut lo = Float::with_val(p, &s - 1u32);
    if lo >= hi || lo <= 0 {
        lo = Float::with_val(p, &hi / 2u32);
    }
    for _ in 0..4000 {
        if g(&lo).is_sign_negative() || lo.is_zero() {
            break;
        }
        lo /= 2u32;
    }
    to_rational_t(bisect_root(g, lo, hi))
}

/// The t an MPFR search picks for Proposition 14's ε at δ: the root of
/// ρt² + ln(1 + t) = ln(1/δ), inside the proven bracket
/// [2L/(1 + √(1 + 4ρL)), min(√(L/ρ), e^L − 1)], L = ln(1/δ) (proofs-notes/zcdp_epsilon.md).
fn best_t_epsilon(rho: &Rational, delta: &Rational) -> Rational {
    let p = SEARCH_PREC;
    let r = Float::with_val(p, rho);
    let l = -Float::with_val(p, delta).ln();
    let lo = Float::with_val(p, &l * 2u32)
        / (Float::with_val(p, Float::with_val(p, &r * &l) * 4u32 + 1u32).sqrt() + 1u32);
    let a = Float::with_val(p, &l / &r).sqrt();
    let b = Float::with_val(p, l.exp_m1_ref());
    let hi = if a < b { a } else { b };
    let g = |t: &Float| Float::with_val(p, t * t) * &r + Float::with_val(p, t.ln_1p_ref()) - &l;
    if lo >= hi {
        return to_rational_t(hi);
    }
    to_rational_t(bisect_root(g, lo, hi))
}

/// A search result as an exact positive rational (any t > 0 is valid).
fn to_rational_t(t: Float) -> Rational {
    t.to_rational()
        .filter(|r| *r > 0)
        .unwrap_or_else(|| Rational::from(1))
}

/// Proposition 14, optimised: δ = inf_{t>0} e^{t(t+1)ρ−εt}·tᵗ/(t+1)^{t+1}, evaluated at the t
/// a root search picks inside a bracket proven to contain the optimal t.
///
/// # Guarantee
/// `upper` is a valid δ for every ρ-zCDP mechanism at ε (the formula at some t > 0 is a valid
/// bound; the search only picks t), within 1e-12 relative of the infimum over t for
/// ρ ∈ [1e-300, 1e8], ε ∈ {0} ∪ [1e-300, 1e12] while the infimum exceeds e^{−7e8} (below, the
/// smallest positive MPFR number). ρ > 0, ε ≥ 0. Note: `proofs-notes/zcdp_delta.md`.
pub fn zcdp_delta(rho: &Rational, eps: &Rational, prec: Precision) -> Result<UpperBound> {
    validate::positive("rho", rho)?;
    validate::nonnegative("epsilon", eps)?;
    let t = best_t_delta(rho, eps);
    zcdp_delta_at(rho, eps, &t, prec)
}

/// Proposition 14, closed form (Remark 15): δ = exp(−(ε−ρ)²/(4ρ)) for ε ≥ ρ.
///
/// # Guarantee
/// Encloses the formula's value; valid δ for ρ-zCDP at ε. Errors unless ρ > 0 and ε ≥ ρ.
/// Note: `proofs-notes/zcdp_delta_closed_form.md`.
pub fn zcdp_delta_closed_form(
    rho: &Rational,
    eps: &Rational,
    prec: Precision,
) -> Result<UpperBound> {
    validate::positive("rho", rho)?;
    if eps < rho {
        return Err(Error::arg(
            "epsilon",
            "the closed form needs ε ≥ ρ (use the optimised form)",
        ));
    }
    let gap = Rational::from(eps - rho);
    let q = Rational::from(&gap * &gap) / Rational::from(rho * 4u32);
    certify(
        prec,
        || F64Interval::from_rational(&q, 53).neg().exp(),
        |p| MpfrInterval::from_rational(&q, p).neg().exp(),
    )
    .map(UpperBound::new)
}

/// Inverse of Proposition 14, optimised: ε = inf_{t>0} (t+1)ρ + (ln(1/δ) − t ln(1+1/t) − ln(1+t))/t,
/// evaluated at the t a root search picks inside a bracket proven to contain the optimal t
/// (clamped at 0).
///
/// # Guarantee
/// `upper` is an ε such that every ρ-zCDP mechanism is (ε, δ)-DP, within 1e-12 relative of the
/// infimum over t (0 when the infimum is ≤ 0) for ρ ∈ [1e-300, 1e8], δ ∈ [1e-400, 0.9].
/// ρ > 0, δ ∈ (0, 1).
/// Note: `proofs-notes/zcdp_epsilon.md`.
pub fn zcdp_epsilon(rho: &Rational, delta: &Rational, prec: Precision) -> Result<UpperBound> {
    validate::positive("rho", rho)?;
    validate::open_unit("delta", delta)?;
    let t = best_t_epsilon(rho, delta);
    certify(
        prec,
        || eps_t::<F64Interval>(rho, delta, &t, 53),
        |p| eps_t::<MpfrInterval>(rho, delta, &t, p),
    )
    .map(UpperBound::new)
}

/// Remark 15 (= BS16 Prop 1.3): ρ-zCDP implies (ρ + 2√(ρ ln(1/δ)), δ)-DP.
///
/// # Guarantee
/// Encloses the formula's value. ρ ≥ 0, δ ∈ (0, 1). Note: `proofs-notes/zcdp_epsilon_closed_form.md`.
pub fn zcdp_epsilon_closed_form(
    rho: &Rational,
    delta: &Rational,
    prec: Precision,
) -> Result<UpperBound> {
    validate::nonnegative("rho", rho)?;
    validate::open_unit("delta", delta)?;
    fn formula<R: Real>(rho: &Rational, delta: &Rational, p: u32) -> R {
        let r = R::from_rational(rho, p);
        let l = R::from_rational(delta, p).ln().neg();
        r.add(&R::from_int(2, p).mul(&r.mul(&l).sqrt()))
    }
    certify(
        prec,
        || formula::<F64Interval>(rho, delta, 53),
        |p| formula::<MpfrInterval>(rho, delta, p),
    )
    .map(UpperBound::new)
}

/// Remark 15: ρ = ε²/(4 ln(1/δ) + 4ε) suffices for (ε, δ)-DP.
///
/// # Guarantee
/// Encloses the formula's value; any ρ ≤ `lower` is sufficient. ε > 0, δ ∈ (0, 1).
/// Note: `proofs-notes/zcdp_rho_sufficient.md`.
pub fn zcdp_rho_sufficient(
    eps: &Rational,
    delta: &Rational,
    prec: Precision,
) -> Result<LowerBound> {
    validate::positive("epsilon", eps)?;
    validate::open_unit("delta", delta)?;
    fn formula<R: Real>(eps: &Rational, delta: &Rational, p: u32) -> R {
        let e = R::from_rational(eps, p);
        let l = R::from_rational(delta, p).ln().neg();
        let four = R::from_int(4, p);
        e.sqr().div(&four.mul(&l).add(&four.mul(&e)))
    }
    certify(
        prec,
        || formula::<F64Interval>(eps, delta, 53),
        |p| formula::<MpfrInterval>(eps, delta, p),
    )
    .map(LowerBound::new)
}

/// Remark 15, exact inverse of the closed form: ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))², the
/// largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε.
///
/// # Guarantee
/// Encloses the formula's value; any ρ ≤ `lower` is sufficient. ε ≥ 0, δ ∈ (0, 1).
/// Note: `proofs-notes/zcdp_rho_exact.md`.
pub fn zcdp_rho_exact(eps: &Rational, delta: &Rational, prec: Precision) -> Result<LowerBound> {
    validate::nonnegative("epsilon", eps)?;
    validate::open_unit("delta", delta)?;
    fn formula<R: Real>(eps: &Rational, delta: &Rational, p: u32) -> R {
        // (√(L+ε) − √L)² = ε²/(√(L+ε) + √L)², free of cancellation
        let e = R::from_rational(eps, p);
        let l = R::from_rational(delta, p).ln().neg();
        e.sqr().div(&l.add(&e).sqrt().add(&l.sqrt()).sqr())
    }
    certify(
        prec,
        || formula::<F64Interval>(eps, delta, 53),
        |p| formula::<MpfrInterval>(eps, delta, p),
    )
    .map(LowerBound::new)
}

/// Remark 15, Gaussian example: σ = Δ·√(2(ln(1/δ) + ε))/ε makes the Gaussian mechanism
/// (ε, δ)-DP (via ρ = ε²/(4 ln(1/δ) + 4ε)).
///
/// # Guarantee
/// Encloses the formula's value; any σ ≥ `upper` suffices. ε > 0, δ ∈ (0, 1), Δ > 0.
/// Note: `proofs-notes/gaussian_sigma_zcdp.md`.
pub fn gaussian_sigma_zcdp(
    eps: &Rational,
    delta: &Rational,
    sensitivity: &Rational,
    prec: Precision,
) -> Result<UpperBound> {
    validate::positive("epsilon", eps)?;
    validate::open_unit("delta", delta)?;
    validate::positive("sensitivity", sensitivity)?;
    fn formula<R: Real>(eps: &Rational, delta: &Rational, sens: &Rational, p: u32) -> R {
        let e = R::from_rational(eps, p);
        let l = R::from_rational(delta, p).ln().neg();
        R::from_rational(sens, p)
            .mul(&R::from_int(2, p).mul(&l.add(&e)).sqrt())
            .div(&e)
    }
    certify(
        prec,
        || formula::<F64Interval>(eps, delta, sensitivity, 53),
        |p| formula::<MpfrInterval>(eps, delta, sensitivity, p),
    )
    .map(UpperBound::new)
}

/// Theorem 18 (advanced composition): εⱼ-DP mechanisms compose to (ε, δ)-DP for every
/// δ > 0 with ε = ½Σεⱼ² + √(2 ln(1/δ) Σεⱼ²). Mechanisms are given as (εⱼ, countⱼ).
///
/// # Guarantee
/// Encloses the formula's value. εⱼ ≥ 0, countⱼ ≥ 1, δ ∈ (0, 1).
/// Note: `proofs-notes/advanced_composition.md`.
pub fn advanced_composition(
    eps: &[(Rational, Integer)],
    delta: &Rational,
    prec: Precision,
) -> Result<UpperBound> {
    validate::nonempty("epsilon", eps)?;
    validate::open_unit("delta", delta)?;
    let mut s2 = Rational::new();
    for (e, k) in eps {
        validate::nonnegative("epsilon", e)?;
        validate::count("count", k)?;
        s2 += Rational::from(e * e) * Rational::from(k);
    }
    certify(
        prec,
        || advanced_formula::<F64Interval>(&s2, delta, 53),
        |p| advanced_formula::<MpfrInterval>(&s2, delta, p),
    )
    .map(UpperBound::new)
}

/// ½S + √(2 ln(1/δ) S) for S = Σεⱼ².
pub(crate) fn advanced_formula<R: Real>(s2: &Rational, delta: &Rational, p: u32) -> R {
    let s = R::from_rational(s2, p);
    let l = R::from_rational(delta, p).ln().neg();
    s.div(&R::from_int(2, p))
        .add(&R::from_int(2, p).mul(&l).mul(&s).sqrt())
}

/// The Laplace scale comparison for k sensitivity-1 queries at overall (ε, δ): basic
/// composition needs Laplace(k/ε) per query; the zCDP route Laplace(√(k/(2ρ))) with
/// ρ = ε²/(4 ln(1/δ) + 4ε) (Remark 15). Returns (basic, advanced).
///
/// # Guarantee
/// Encloses both formulas' values; any scale ≥ `upper` suffices for its route. ε > 0,
/// δ ∈ (0, 1), k ≥ 1. Note: `proofs-notes/laplace_scales.md`.
pub fn laplace_scales(
    k: &Integer,
    eps: &Rational,
    delta: &Rational,
    prec: Precision,
) -> Result<(UpperBound, UpperBound)> {
    validate::count("count", k)?;
    validate::positive("epsilon", eps)?;
    validate::open_unit("delta", delta)?;
    let kr = Rational::from(k);
    let basic = Rational::from(&kr / eps);
    fn adv<R: Real>(k: &Rational, eps: &Rational, delta: &Rational, p: u32) -> R {
        let e = R::from_rational(eps, p);
        let l = R::from_rational(delta, p).ln().neg();
        let four = R::from_int(4, p);
        let rho = e.sqr().div(&four.mul(&l).add(&four.mul(&e)));
        R::from_rational(k, p)
            .div(&R::from_int(2, p).mul(&rho))
            .sqrt()
    }
    Ok((
        UpperBound::new(certify(
            prec,
            || F64Interval::from_rational(&basic, 53),
            |p| MpfrInterval::from_rational(&basic, p),
        )?),
        UpperBound::new(certify(
            prec,
            || adv::<F64Interval>(&kr, eps, delta, 53),
            |p| adv::<MpfrInterval>(&kr, eps, delta, p),
        )?),
    ))
}

/// A running zCDP account (Proposition 19, Corollary 21). Mechanisms may be chosen
/// adaptively — each one after seeing the outputs of the earlier ones — provided each is
/// ρⱼ-zCDP for every fixed value of the earlier outputs; the total is then Σρⱼ-zCDP.
/// The sequence of budgets ρⱼ (and their number) must be fixed in advance: choosing ρⱼ
/// from earlier outputs makes the total a privacy odometer, which Proposition 19 does not cover.
/// Post-processing the outputs costs nothing (Corollary 21), so it has no entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZcdpLedger {
    rho: Rational,
    entries: usize,
}

impl ZcdpLedger {
    /// The empty ledger (ρ = 0).
    pub fn new() -> Self {
        Self::default()
    }
    /// Record a ρ-zCDP mechanism.
    pub fn push_zcdp(&mut self, rho: &Rational) -> Result<()> {
        validate::nonnegative("rho", rho)?;
        self.rho += rho;
        self.entries += 1;
        Ok(())
    }
    /// Record a Gaussian mechanism (Lemma 12).
    pub fn push_gaussian(&mut self, sigma: &Rational, sensitivity: &Rational) -> Result<()> {
        self.push_zcdp(&gaussian_zcdp(sigma, sensitivity)?)
    }
    /// Record an ε-DP mechanism (Proposition 16).
    pub fn push_pure(&mut self, eps: &Rational) -> Result<()> {
        self.push_zcdp(&pure_to_zcdp(eps)?)
    }
    /// The total ρ so far (exact).
    pub fn rho(&self) -> &Rational {
        &self.rho
    }
    /// Number of mechanisms recorded.
    pub fn len(&self) -> usize {
        self.entries
    }
    /// Whether no mechanism has been recorded.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }
    /// A valid δ at ε for everything recorded (Proposition 14, optimised).
    pub fn delta(&self, eps: &Rational, prec: Precision) -> Result<UpperBound> {
        zcdp_delta(&self.rho, eps, prec)
    }
    /// A valid ε at δ for everything recorded (Proposition 14, optimised).
    pub fn epsilon(&self, delta: &Rational, prec: Precision) -> Result<UpperBound> {
        zcdp_epsilon(&self.rho, delta, prec)
    }
}
