//! Privacy amplification by subsampling (Steinke 2022 §6; Balle–Barthe–Gaboardi 2018).
use crate::num::{certify, Enclosure, F64Interval, MpfrInterval, Precision, Real, UpperBound};
use crate::validate;
use crate::{Error, Result};
use rug::Rational;

/// (ε', δ') of a subsampled mechanism: two enclosures.
#[derive(Clone, Debug, PartialEq)]
pub struct Amplified {
    /// ε of the amplified mechanism, enclosed.
    pub epsilon: Enclosure,
    /// δ of the amplified mechanism, enclosed.
    pub delta: Enclosure,
}

/// (ε', δ') of a subsampled mechanism from a theorem that is not claimed tight: upper bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct AmplifiedBound {
    /// Upper bound on ε of the amplified mechanism.
    pub epsilon: UpperBound,
    /// Upper bound on δ of the amplified mechanism.
    pub delta: UpperBound,
}

/// `(ε', δ') ∈ ([…], […])`, each enclosure rounded outward (`{:.N}`: N significant digits).
impl std::fmt::Display for Amplified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(ε', δ') ∈ (")?;
        std::fmt::Display::fmt(&self.epsilon, f)?;
        f.write_str(", ")?;
        std::fmt::Display::fmt(&self.delta, f)?;
        f.write_str(")")
    }
}

/// `ε' ≤ …, δ' ≤ …`, rounded up (`{:.N}`: N significant digits).
impl std::fmt::Display for AmplifiedBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ε' ")?;
        std::fmt::Display::fmt(&self.epsilon, f)?;
        f.write_str(", δ' ")?;
        std::fmt::Display::fmt(&self.delta, f)
    }
}

fn check(eps: &Rational, delta: &Rational, rate: &Rational) -> Result<()> {
    validate::nonnegative("epsilon", eps)?;
    validate::unit_from_zero("delta", delta)?;
    if *rate <= 0 || *rate > 1 {
        return Err(Error::arg(
            "rate",
            format!("must lie in (0, 1], got {}", validate::show(rate)),
        ));
    }
    Ok(())
}

/// ε above this (exact comparison) also use the log forms, which never overflow.
const LOG_FORM_ABOVE: u32 = 64;

/// ln(1 + q(e^ε − 1)) = ln1p(q·expm1(ε)), which keeps relative accuracy as ε → 0 or q → 0.
/// For ε > 64 also the log form ε + ln(q + (1 − q)e^{−ε}) (the same number: factor e^ε out of
/// 1 − q + qe^ε), where e^{−ε} ∈ (0, 1] cannot overflow, and the intersection of the two
/// enclosures is returned (both contain ε', so their intersection does).
fn amplified_eps<R: Real>(eps: &Rational, q: &Rational, p: u32) -> R {
    let e = R::from_rational(eps, p);
    let qq = R::from_rational(q, p);
    let direct = qq.mul(&e.expm1()).ln1p();
    if *eps <= LOG_FORM_ABOVE {
        return direct;
    }
    let rest = R::from_rational(&(1 - q.clone()), p);
    let log_form = e.add(&qq.add(&rest.mul(&e.neg().exp())).ln());
    direct.intersect(&log_form)
}

/// (ln1p(r·expm1(ε)), r·δ): the common form of the Poisson and without-replacement theorems.
fn amplify(eps: &Rational, delta: &Rational, r: &Rational, prec: Precision) -> Result<Amplified> {
    check(eps, delta, r)?;
    Ok(Amplified {
        epsilon: certify(
            prec,
            || amplified_eps::<F64Interval>(eps, r, 53),
            |p| amplified_eps::<MpfrInterval>(eps, r, p),
        )?,
        delta: exact_product(r, delta)?,
    })
}

fn exact_product(a: &Rational, b: &Rational) -> Result<Enclosure> {
    Ok(Enclosure::rational(
        &Rational::from(a * b),
        crate::num::DEFAULT_PREC,
    ))
}

/// Poisson subsampling with rate q of an (ε, δ)-DP mechanism, add/remove neighbours
/// (Steinke 2022 §6, = Balle–Barthe–Gaboardi 2018; Li–Qardaji–Su 2012):
/// ε' = ln(1 + q(e^ε − 1)), δ' = qδ.
///
/// # Guarantee
/// Encloses (ε', δ'); the bound is attained (randomized response on the inclusion bit), so both
/// ends are meaningful. ε ≥ 0, δ ∈ [0, 1), q ∈ (0, 1]. Note: `proofs-notes/poisson_subsampling.md`.
pub fn poisson_subsampling(
    eps: &Rational,
    delta: &Rational,
    q: &Rational,
    prec: Precision,
) -> Result<Amplified> {
    amplify(eps, delta, q, prec)
}

/// Sampling m of n records without replacement, substitution neighbours (Balle–Barthe–Gaboardi
/// 2018, Theorem 9 as we recall its numbering): with γ = m/n, ε' = ln(1 + γ(e^ε − 1)), δ' = γδ, for a mechanism that is
/// (ε, δ)-DP under substitution on size-m inputs.
///
/// # Guarantee
/// Encloses (ε', δ'); tight (BBG18). ε ≥ 0, δ ∈ [0, 1), γ ∈ (0, 1].
/// Note: `proofs-notes/without_replacement_subsampling.md`.
pub fn without_replacement_subsampling(
    eps: &Rational,
    delta: &Rational,
    gamma: &Rational,
    prec: Precision,
) -> Result<Amplified> {
    amplify(eps, delta, gamma, prec)
}

/// Poisson subsampling with rate q of a mechanism that is (ε, δ)-DP under add/remove, analysed
/// for substitution neighbours (derived in the note):
/// ε' = ln((1 − q + qe^ε)/(1 − q + qe^{−ε})), δ' = qδ(1 + e^{ε' − ε}).
///
/// # Guarantee
/// Encloses (ε', min(1, δ')), a valid guarantee; not claimed optimal (only an upper bound).
/// ε ≥ 0, δ ∈ [0, 1), q ∈ (0, 1]. Note: `proofs-notes/poisson_substitution_subsampling.md`.
pub fn poisson_substitution_subsampling(
    eps: &Rational,
    delta: &Rational,
    q: &Rational,
    prec: Precision,
) -> Result<AmplifiedBound> {
    check(eps, delta, q)?;
    fn e_sub<R: Real>(eps: &Rational, q: &Rational, p: u32) -> R {
        // two exact forms of ln(1 − q + qe^{−ε}); each encloses ε', so their intersection does:
        // −ε + ln1p((1 − q)·expm1(ε)) is never −∞ (q = 1 gives 2ε), and ln1p(q·expm1(−ε)) keeps
        // relative accuracy for tiny q
        let (e, qq) = (R::from_rational(eps, p), R::from_rational(q, p));
        let em1 = e.expm1();
        let rest = R::from_rational(&(1 - q.clone()), p);
        let up = qq.mul(&em1).ln1p();
        let large_q = up.add(&e).sub(&rest.mul(&em1).ln1p());
        let small_q = up.sub(&qq.mul(&e.neg().expm1()).ln1p());
        let both = large_q.intersect(&small_q);
        if *eps <= LOG_FORM_ABOVE {
            return both;
        }
        // large ε: e^ε overflows the forms above; factor it out instead. With x = e^{−ε} ∈ (0, 1]:
        // ln(1 − q + qe^ε) = ε + ln(q + (1 − q)x), and ln(1 − q + qx) = −ε for q = 1, else
        // ln(1 − q) + ln1p(q/(1 − q)·x) (exact rational q/(1 − q))
        let x = e.neg().exp();
        let num = e.add(&qq.add(&rest.mul(&x)).ln());
        let den = if *q == 1 {
            e.neg()
        } else {
            let ratio = q / (1 - q.clone());
            rest.ln().add(&R::from_rational(&ratio, p).mul(&x).ln1p())
        };
        both.intersect(&num.sub(&den))
    }
    fn d_sub<R: Real>(eps: &Rational, delta: &Rational, q: &Rational, p: u32) -> R {
        let ep = e_sub::<R>(eps, q, p);
        let one = R::from_int(1, p);
        R::from_rational(&Rational::from(q * delta), p)
            .mul(&one.add(&ep.sub(&R::from_rational(eps, p)).exp()))
            .min(&one)
    }
    Ok(AmplifiedBound {
        epsilon: UpperBound::new(certify(
            prec,
            || e_sub::<F64Interval>(eps, q, 53),
            |p| e_sub::<MpfrInterval>(eps, q, p),
        )?),
        delta: UpperBound::new(certify(
            prec,
            || d_sub::<F64Interval>(eps, delta, q, 53),
            |p| d_sub::<MpfrInterval>(eps, delta, q, p),
        )?),
    })
}
