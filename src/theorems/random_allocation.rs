//! Random allocation (each example in exactly k of the t steps of an epoch, the k steps uniform;
//! balls-and-bins is k = 1) with the Gaussian mechanism (noise multiplier σ, clipping norm 1),
//! over `epochs` independent epochs; and truncated Poisson sampling (Poisson batches cut at a
//! maximum size B).
//!
//! Random allocation: the upper end is the composition of the k·epochs Gaussian releases
//! without amplification (sound, loose); the lower end is an explicit distinguishing event of
//! the exact pair of one epoch, P = mean over k-subsets S of N(1_S, σ²I_t) against
//! Q = N(0, σ²I_t), counted over the epochs (`proofs-notes/random_allocation_epsilon_lower.md`).
//! Truncated Poisson: the Poisson-subsampled Gaussian accountant ± the probability that any
//! batch is truncated (a coupling; `proofs-notes/truncated_poisson_epsilon.md`).
use super::gaussian::{gaussian_composition, gaussian_delta, GaussianMechanism};
use super::pld_accountant::{
    dpsgd_balls_and_bins_pld_delta, dpsgd_balls_and_bins_pld_epsilon, dpsgd_pld_epsilon_checked,
    PldOptions,
};
use super::sampling::Relation;
use super::schedule::{dpsgd_pld_delta, Phase};
use super::shuffle::shuffled_dpsgd_epsilon;
use crate::num::{normal_cdf_pair, Arithmetic, Enclosure, Interval, LowerBound, Precision};
use crate::validate;
use crate::validated::{Delta, Sigma};
use crate::{Error, Result};
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// Largest t·epochs (and k·epochs) the lower-end search accepts: the binomial sums run over the
/// epochs and the step counts enter f64 intervals exactly.
pub const MAX_ALLOCATION_EPOCHS: u32 = 100_000;
/// Largest steps per epoch t (exact in f64, and the search's cost does not depend on it).
pub const MAX_ALLOCATION_STEPS: u64 = 1 << 40;

/// A random-allocation run: t steps per epoch, each example in k of them, `epochs` epochs.
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    /// Noise multiplier σ > 0.
    pub sigma: Rational,
    /// Steps per epoch t ≥ 1.
    pub steps: Integer,
    /// Steps each example takes part in per epoch, 1 ≤ k ≤ t.
    pub selected: Integer,
    /// Epochs ≥ 1.
    pub epochs: Integer,
}

impl Allocation {
    /// Domains; errors name the argument.
    pub fn validate(&self) -> Result<()> {
        validate::positive("sigma", &self.sigma)?;
        validate::count("steps-per-epoch", &self.steps)?;
        validate::count("selected", &self.selected)?;
        validate::count("epochs", &self.epochs)?;
        if self.selected > self.steps {
            return Err(Error::arg(
                "selected",
                format!(
                    "each example takes part in k of the t steps of an epoch, so k ≤ t; got k = {}, t = {}",
                    self.selected, self.steps
                ),
            ));
        }
        if self.steps > MAX_ALLOCATION_STEPS {
            return Err(Error::arg(
                "steps-per-epoch",
                format!("must be at most 2^40, got {}", self.steps),
            ));
        }
        if self.epochs > MAX_ALLOCATION_EPOCHS {
            return Err(Error::arg(
                "epochs",
                format!(
                    "must be at most {MAX_ALLOCATION_EPOCHS}, got {}",
                    self.epochs
                ),
            ));
        }
        Ok(())
    }
    fn tke(&self) -> (f64, f64, u32) {
        // exact: validated t ≤ 2^40, k ≤ t, epochs ≤ 10^5
        (
            self.steps.to_f64(),
            self.selected.to_f64(),
            self.epochs.to_u32().unwrap_or(MAX_ALLOCATION_EPOCHS),
        )
    }
}

fn point(x: f64) -> Interval {
    Interval::try_from((x, x)).unwrap_or(Interval::ENTIRE)
}

/// The exact rational `r` enclosed by two f64 (directed rounding at 53 bits).
fn rational_iv(r: &Rational) -> Interval {
    let lo = Float::with_val_round(53, r, Round::Down).0.to_f64();
    let hi = Float::with_val_round(53, r, Round::Up).0.to_f64();
    Interval::try_from((lo, hi)).unwrap_or(Interval::ENTIRE)
}

/// Enclosures of (P(max_i x_i > τ), Q(max_i x_i > τ)) for one epoch:
/// Q = N(0, σ²I_t): 1 − Φ(τ/σ)^t; P = mean over k-subsets S of N(1_S, σ²I_t):
/// 1 − Φ((τ−1)/σ)^k Φ(τ/σ)^{t−k} (the same for every S).
fn epoch_event(a: &Allocation, tau: f64) -> (Interval, Interval) {
    let (t, k, _) = a.tke();
    let s = rational_iv(&a.sigma);
    let one = point(1.0);
    let (_, below_b) = normal_cdf_pair(point(tau) / s);
    let (_, below_a) = normal_cdf_pair((point(tau) - one) / s);
    // ln Φ(x) = ln1p(−Φ(−x)), accurate where Φ(x) is near 1
    let ln_b = (-below_b).ln1p();
    let ln_a = (-below_a).ln1p();
    let q = one - (point(t) * ln_b).exp();
    let p = one - (point(k) * ln_a + point(t - k) * ln_b).exp();
    let clamp = |x: Interval| x.intersection(Interval::try_from((0.0, 1.0)).unwrap_or(x));
    (clamp(p), clamp(q))
}

/// Enclosure of P[Binomial(e, p) ≥ n] for p in the interval `p` (every term enclosed; the
/// terms by the recurrence C(e, j+1)p^{j+1}(1−p)^{e−j−1} = term_j·(e−j)/(j+1)·p/(1−p)).
fn binomial_tail(e: u32, p: Interval, n: u32) -> Interval {
    let one = point(1.0);
    if n == 0 {
        return one;
    }
    if p.sup() >= 1.0 {
        return p
            .convex_hull(point(0.0))
            .intersection(Interval::try_from((0.0, 1.0)).unwrap_or(one));
    }
    if n == 1 {
        return one - (point(f64::from(e)) * (-p).ln1p()).exp();
    }
    let ratio = p / (one - p);
    let mut term = (point(f64::from(e)) * (-p).ln1p()).exp();
    let mut sum = point(0.0);
    for j in 0..e {
        term = term * point(f64::from(e - j)) / point(f64::from(j + 1)) * ratio;
        if j + 1 >= n {
            sum = sum + term;
        }
    }
    sum.intersection(Interval::try_from((0.0, 1.0)).unwrap_or(sum))
}

/// (P(A), Q(A)) enclosed for the event A = {at least n of the epochs have max_i x_i > τ}:
/// the epochs are independent under both P and Q.
fn event(a: &Allocation, tau: f64, n: u32) -> (Interval, Interval) {
    let (_, _, e) = a.tke();
    let (p, q) = epoch_event(a, tau);
    (binomial_tail(e, p, n), binomial_tail(e, q, n))
}

/// The float search for the event: thresholds τ on a grid over [−2σ, 1 + 12σ] (in units
/// where the sensitivity is 1) and every count n; `score` maps the midpoints (P(A), Q(A)) to
/// the objective. Where to evaluate only: the returned (τ, n) is certified by the caller.
fn search(a: &Allocation, score: impl Fn(f64, f64) -> f64) -> Option<(f64, u32)> {
    let (_, _, e) = a.tke();
    let s = a.sigma.to_f64();
    let (lo, hi) = (-2.0 * s, 1.0 + 12.0 * s);
    let mid = |x: Interval| 0.5 * (x.inf() + x.sup());
    let mut best: Option<(f64, f64, u32)> = None;
    let counts: Vec<u32> = if e <= 400 {
        (1..=e).collect()
    } else {
        (0..=400u32)
            .map(|i| 1 + (u64::from(e - 1) * u64::from(i) / 400) as u32)
            .collect()
    };
    for i in 0..=240 {
        let tau = lo + (hi - lo) * f64::from(i) / 240.0;
        let (p1, q1) = epoch_event(a, tau);
        for &n in &counts {
            let (pa, qa) = (binomial_tail(e, p1, n), binomial_tail(e, q1, n));
            let v = score(mid(pa), mid(qa));
            if v.is_finite() && best.is_none_or(|b| v > b.0) {
                best = Some((v, tau, n));
            }
        }
    }
    best.map(|(_, tau, n)| (tau, n))
}

/// Certified lower bound on ε(δ) of DP-SGD with random allocation (k of t steps per epoch,
/// `epochs` epochs, noise multiplier σ, clipping norm 1, add/remove neighbours): for the event
/// A = {at least n epochs have max_i x_i > τ} of the realisable pair, ε(δ) ≥ ln((P(A) − δ)/Q(A))
/// whenever P(A) > δ; τ and n are chosen by a float search, the value at them is certified.
///
/// # Guarantee
/// `lower ≤ ε(δ)` of the run (0 when no event beats δ). Errors outside σ > 0, 1 ≤ k ≤ t ≤ 2^40,
/// 1 ≤ epochs ≤ 10^5, δ ∈ (0, 1). Note: `proofs-notes/random_allocation_epsilon_lower.md`.
pub fn random_allocation_epsilon_lower(a: &Allocation, delta: &Rational) -> Result<LowerBound> {
    a.validate()?;
    validate::open_unit("delta", delta)?;
    let d = delta.to_f64();
    let chosen = search(a, |p, q| {
        if p > d && q > 0.0 {
            ((p - d) / q).ln()
        } else {
            f64::NAN
        }
    });
    let zero = Float::with_val(53, 0);
    let Some((tau, n)) = chosen else {
        return Ok(LowerBound::new(Enclosure::new(
            zero.clone(),
            zero,
            Arithmetic::F64Interval,
        )?));
    };
    let (p, q) = event(a, tau, n);
    let v = ((p - rational_iv(delta)) / q).ln();
    let lo = v.inf();
    let lo = if lo.is_nan() || lo < 0.0 { 0.0 } else { lo };
    let hi = v.sup().max(lo);
    Ok(LowerBound::new(Enclosure::new(
        Float::with_val(53, lo),
        Float::with_val(53, if hi.is_nan() { f64::INFINITY } else { hi }),
        Arithmetic::F64Interval,
    )?))
}

/// Certified lower bound on δ(ε) of DP-SGD with random allocation: max over the events A of
/// [`random_allocation_epsilon_lower`] of P(A) − e^ε Q(A), the event chosen by a float search.
///
/// # Guarantee
/// `lower ≤ δ(ε)` of the run (0 when no event gives more). Errors outside the domain of
/// [`random_allocation_epsilon_lower`] or ε < 0. Note:
/// `proofs-notes/random_allocation_delta_lower.md`.
pub fn random_allocation_delta_lower(a: &Allocation, epsilon: &Rational) -> Result<LowerBound> {
    a.validate()?;
    validate::nonnegative("epsilon", epsilon)?;
    let w = epsilon.to_f64().exp();
    let chosen = search(a, |p, q| p - w * q);
    let zero = Float::with_val(53, 0);
    let Some((tau, n)) = chosen else {
        return Ok(LowerBound::new(Enclosure::new(
            zero.clone(),
            zero,
            Arithmetic::F64Interval,
        )?));
    };
    let (p, q) = event(a, tau, n);
    let v = p - rational_iv(epsilon).exp() * q;
    let lo = if v.inf().is_nan() {
        0.0
    } else {
        v.inf().max(0.0)
    };
    let hi = v.sup().clamp(lo, 1.0);
    Ok(LowerBound::new(Enclosure::new(
        Float::with_val(53, lo),
        Float::with_val(53, hi),
        Arithmetic::F64Interval,
    )?))
}

/// Two-sided certified ε(δ) of DP-SGD with random allocation (k of t steps per epoch, `epochs`
/// epochs, noise multiplier σ, add/remove). Upper end: for k = 1 < t (balls-and-bins) the
/// certified dominating PLD of one epoch composed over the epochs
/// ([`dpsgd_balls_and_bins_pld_epsilon`]), capped by the composition of the k·epochs Gaussian
/// releases without amplification ([`shuffled_dpsgd_epsilon`]'s bound: sound for every
/// allocation, so for their mixture), which alone serves k > 1, t = 1, and runs whose lattice
/// is too coarse for δ (the PLD route's +∞ mass above δ). Lower end:
/// [`random_allocation_epsilon_lower`].
///
/// # Guarantee
/// `lower ≤ ε(δ) ≤ upper`. Errors as [`random_allocation_epsilon_lower`]. Note:
/// `proofs-notes/random_allocation_epsilon.md`.
pub fn random_allocation_epsilon(
    a: &Allocation,
    delta: &Rational,
    prec: Precision,
    opts: &PldOptions,
) -> Result<Enclosure> {
    let lower = random_allocation_epsilon_lower(a, delta)?;
    let uses = Integer::from(&a.selected * &a.epochs);
    let plain = shuffled_dpsgd_epsilon(
        &Sigma::new("sigma", a.sigma.clone())?,
        &uses,
        Relation::AddRemove,
        &Integer::from(1),
        &Delta::new("delta", delta.clone())?,
        prec,
    )?;
    let mut hi = plain.upper().to_float();
    if a.selected == 1 && a.steps > 1 {
        // a lattice too coarse for δ (its +∞ mass above δ: small t, small σ) leaves the
        // plain composition; any other error is reported
        match dpsgd_balls_and_bins_pld_epsilon(&a.sigma, &a.steps, &a.epochs, delta, opts) {
            Ok(pld) => hi = hi.min(&Float::with_val_round(64, &pld, Round::Up).0),
            Err(Error::Numerical(_)) => {}
            Err(e) => return Err(e),
        }
    }
    let lo = lower.lower().to_float();
    Enclosure::new(lo.min(&hi), hi, Arithmetic::F64Interval)
}

/// Two-sided certified δ(ε) of DP-SGD with random allocation: upper end, for k = 1 < t
/// (balls-and-bins), [`dpsgd_balls_and_bins_pld_delta`], capped by the exact δ(ε) of the
/// composition of the k·epochs Gaussian releases (no amplification), which alone serves k > 1,
/// t = 1 and lattices too coarse; lower end [`random_allocation_delta_lower`].
///
/// # Guarantee
/// `lower ≤ δ(ε) ≤ upper`. Errors as [`random_allocation_delta_lower`]. Note:
/// `proofs-notes/random_allocation_delta.md`.
pub fn random_allocation_delta(
    a: &Allocation,
    epsilon: &Rational,
    prec: Precision,
    opts: &PldOptions,
) -> Result<Enclosure> {
    let lower = random_allocation_delta_lower(a, epsilon)?;
    let uses = Integer::from(&a.selected * &a.epochs);
    let pld = gaussian_composition(&[GaussianMechanism::new(
        a.sigma.clone(),
        Rational::from(1),
        uses,
    )?])?;
    let upper = gaussian_delta(&pld, epsilon, prec)?;
    let mut hi = upper.upper().to_float().min(&Float::with_val(53, 1));
    if a.selected == 1 && a.steps > 1 {
        match dpsgd_balls_and_bins_pld_delta(&a.sigma, &a.steps, &a.epochs, epsilon, opts) {
            Ok(d) => hi = hi.min(&Float::with_val_round(64, &d, Round::Up).0),
            Err(Error::Numerical(_)) => {}
            Err(e) => return Err(e),
        }
    }
    let lo = lower.lower().to_float();
    Enclosure::new(lo.min(&hi), hi, Arithmetic::F64Interval)
}

/// A truncated-Poisson run (dp_accounting's `TruncatedSubsampledGaussianDpEvent`): each step
/// Poisson-samples each of the N records at rate q and, when more than B are drawn, keeps at
/// most B of them (by any rule); Gaussian noise σ, clipping norm 1.
#[derive(Clone, Debug, PartialEq)]
pub struct TruncatedPoisson {
    /// Sampling rate q ∈ (0, 1].
    pub rate: Rational,
    /// Noise multiplier σ > 0.
    pub sigma: Rational,
    /// Steps T ≥ 1.
    pub steps: Integer,
    /// Dataset size N ≥ 1 (either neighbour's; the bound uses N + 1 records).
    pub dataset_size: Integer,
    /// Maximum batch size B ≥ 1.
    pub max_batch: Integer,
}

impl TruncatedPoisson {
    /// Domains; errors name the argument.
    pub fn validate(&self) -> Result<()> {
        validate::positive("rate", &self.rate)?;
        if self.rate > 1 {
            return Err(Error::arg(
                "rate",
                format!("must be in (0, 1], got {}", self.rate),
            ));
        }
        validate::positive("sigma", &self.sigma)?;
        validate::count("steps", &self.steps)?;
        validate::count("dataset-size", &self.dataset_size)?;
        validate::count("max-batch-size", &self.max_batch)
    }
}

/// `x` as a decimal with `digits` significant digits, rounded toward +∞ (a printed "≤ η"
/// stays a bound: a round-to-nearest f64 could print below η).
pub(crate) fn show_up(x: &Rational, digits: usize) -> String {
    crate::num::Upper(Float::with_val_round(128, x, Round::Up).0).to_decimal_digits(digits)
}

/// Upper bound η on the probability that any of the T steps truncates, for either neighbour:
/// T·P[Binomial(N + 1, q) ≥ B + 1] ≤ T·exp(−(N+1)·D((B+1)/(N+1) ‖ q)) (Chernoff–Hoeffding,
/// for (B+1)/(N+1) > q; 1 otherwise), 0 when B ≥ N + 1 (no batch can exceed B). Exact rational,
/// rounded up, at most 1.
///
/// # Guarantee
/// `η ≥ P[some step truncates]` under either dataset of an add/remove pair with at most N + 1
/// records. Note: `proofs-notes/truncated_poisson_epsilon.md`.
pub fn truncation_probability(run: &TruncatedPoisson) -> Result<Rational> {
    run.validate()?;
    let n1 = Integer::from(&run.dataset_size + 1);
    if run.max_batch >= n1 {
        return Ok(Rational::from(0));
    }
    let m = Rational::from((Integer::from(&run.max_batch + 1), n1.clone()));
    if m <= run.rate {
        return Ok(Rational::from(1));
    }
    let (x, q, one) = (rational_iv(&m), rational_iv(&run.rate), point(1.0));
    // D(x‖q) = x ln(x/q) + (1 − x) ln((1 − x)/(1 − q)); x < 1 here (B + 1 ≤ N)
    let kl = x * (x / q).ln() + (one - x) * ((one - x) / (one - q)).ln();
    let bound = rational_iv(&Rational::from(&run.steps))
        * (-(rational_iv(&Rational::from(&n1)) * kl)).exp();
    let hi = bound.sup();
    if hi.is_nan() || hi >= 1.0 {
        return Ok(Rational::from(1));
    }
    Rational::from_f64(hi.max(0.0)).ok_or_else(|| Error::Numerical("truncation bound".into()))
}

/// η·(1 + e^c), exact rational above it (e^c enclosed in f64, upper end).
fn charge(eta: &Rational, c: &Rational) -> Rational {
    let e = rational_iv(c).exp().sup();
    let e = Rational::from_f64(if e.is_finite() { e } else { f64::MAX }).unwrap_or_default();
    eta * (e + 1u32)
}

/// Two-sided certified ε(δ) of DP-SGD with truncated Poisson sampling (add/remove): the
/// certified Poisson accountant
/// ([`dpsgd_pld_epsilon`](super::pld_accountant::dpsgd_pld_epsilon)) at δ moved by the
/// truncation charge η(1 + e^ε), η from [`truncation_probability`]:
/// δ_T(ε) ≤ δ_P(ε) + η(1 + e^ε) and δ_T(ε) ≥ δ_P(ε) − η(1 + e^ε).
///
/// # Guarantee
/// `lower ≤ ε(δ) ≤ upper` of the truncated run. Errors on invalid parameters, or when the
/// truncation charge leaves no room below δ (a larger maximum batch size is needed).
/// Note: `proofs-notes/truncated_poisson_epsilon.md`.
pub fn truncated_poisson_epsilon(
    run: &TruncatedPoisson,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<Enclosure> {
    validate::open_unit("delta", delta)?;
    let eta = truncation_probability(run)?;
    let poisson =
        |d: &Rational| dpsgd_pld_epsilon_checked(&run.rate, &run.sigma, &run.steps, d, opts);
    let r0 = poisson(delta)?.enclosure;
    if eta == 0 {
        return Ok(r0);
    }
    let to_q = |f: &Float| f.to_rational().unwrap_or_default();
    // upper: Poisson at δ − η(1 + e^c), valid when its answer is ≤ c
    let c = to_q(r0.upper().as_float()) + 1u32;
    let d1 = delta - charge(&eta, &c);
    if d1 <= 0 {
        return Err(Error::arg("max-batch-size", format!(
            "the probability that some batch is truncated (≤ {}) leaves no room below δ; a larger maximum batch size is needed",
            show_up(&eta, 4)
        )));
    }
    let up = poisson(&d1)?.enclosure.upper().to_float();
    if to_q(&up) > c {
        return Err(Error::Numerical(
            "truncated Poisson: the ε guess was exceeded".into(),
        ));
    }
    // lower: min(Poisson lower at δ + η(1 + e^{c'}), c') with c' the Poisson upper at δ
    let c2 = to_q(r0.upper().as_float());
    let d2 = delta + charge(&eta, &c2);
    let lo = if d2 < 1 {
        let l = poisson(&d2)?.enclosure.lower().to_float();
        l.min(r0.upper().as_float())
    } else {
        Float::with_val(53, 0)
    };
    Enclosure::new(lo.clone().min(&up), up, Arithmetic::F64Interval)
}

/// Two-sided certified δ(ε) of DP-SGD with truncated Poisson sampling: the certified Poisson
/// δ(ε) ([`dpsgd_pld_delta`]) ± η(1 + e^ε), clamped to [0, 1].
///
/// # Guarantee
/// `lower ≤ δ(ε) ≤ upper`. Errors on invalid parameters or ε < 0. Note:
/// `proofs-notes/truncated_poisson_delta.md`.
pub fn truncated_poisson_delta(
    run: &TruncatedPoisson,
    epsilon: &Rational,
    opts: &PldOptions,
) -> Result<Enclosure> {
    validate::nonnegative("epsilon", epsilon)?;
    let eta = truncation_probability(run)?;
    let phase = Phase {
        rate: run.rate.clone(),
        sigma: run.sigma.clone(),
        steps: run.steps.clone(),
    };
    let r = dpsgd_pld_delta(&[phase], std::slice::from_ref(epsilon), opts)?
        .pop()
        .ok_or_else(|| Error::Numerical("truncated Poisson δ: no point".into()))?
        .enclosure;
    let ch = charge(&eta, epsilon);
    let to_q = |f: &Float| f.to_rational().unwrap_or_default();
    let hi = (to_q(r.upper().as_float()) + &ch).min(Rational::from(1));
    let lo = (to_q(r.lower().as_float()) - &ch).max(Rational::from(0));
    Enclosure::from_rationals(&lo, &hi, 64, Arithmetic::F64Interval)
}
