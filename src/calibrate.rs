//! Certified calibration of DP-SGD: the smallest noise multiplier σ (the largest number of
//! steps, the largest sampling rate) whose certified ε at δ meets a target.
//!
//! **What is certified.** A [`Calibration`] carries the certified ε of the run at the returned
//! value (`feasible`): its upper bound is ≤ the target, so the run with that value is
//! (target, δ)-DP by the named theorem. On a two-sided route it also carries a certificate
//! that a value a relative `gap` (10⁻³) away on the other side is *infeasible* (`infeasible`:
//! certified ε lower bound > target). Since ε is monotone in each parameter (more noise, fewer
//! steps or a smaller rate is a post-processing of the original pair of distributions), the
//! exact optimum lies between the two, so the answer is within the stated gap of optimal.
//!
//! **What is not.** The search that chooses where to evaluate runs on `f64` midpoints of
//! coarse evaluations; it only places the two certified evaluations. A search that lands badly
//! costs evaluations or tightness, never soundness: every reported number is a certified
//! evaluation at an exact rational point.
//!
//! The run and the theorem that accounts it are [`crate::dpsgd`]'s; this module only chooses
//! where to evaluate ([`evaluate`] is `dpsgd::epsilon` under calibration's grid policy).
use crate::audit::ledger::{Entry, Mechanism};
use crate::dpsgd::{self, Accounting, Delta, Route, Sampling};
use crate::num::{normal_cdf_f64, Certified, Enclosure, Precision, UpperBound};
use crate::theorems::gaussian::gaussian_sigma;
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// The run a calibration solves over (defined in [`crate::dpsgd`]).
pub use crate::dpsgd::{steps_from_epochs, Method, Run};

/// One certified evaluation of a run's ε at δ.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The run evaluated.
    pub run: Run,
    /// The certified ε at δ: two-sided or an upper bound, as `route` gives.
    pub epsilon: Certified,
    /// The PLD grid width, when the PLD accountant produced it.
    pub grid: Option<Rational>,
    /// The theorem (route) that certified it.
    pub route: &'static str,
}

/// The certified ε at δ of a run ([`dpsgd::epsilon`]) as a calibration uses it. `grid` fixes
/// the PLD grid of the Poisson add/remove route (None: automatic); the other routes run on
/// the automatic grid, since their brackets are as wide as their theorem (group privacy, the
/// gap between the dominating and the realised pairs), which no grid shrinks. The fixed-size
/// PLD route and user-level runs with examples sampled are calibrated on their upper end alone
/// (one-sided, like RDP, with no grid reported), since a certificate of infeasibility a 10⁻³
/// gap away cannot exist on brackets that wide.
///
/// # Guarantee
/// The returned [`Certified`] is that of the theorem function the route names: two-sided for
/// the PLD add/remove and Poisson substitution routes, an upper bound otherwise. Samplers
/// without a certified route are refused with an error naming `sampling` or `relation`.
pub fn evaluate(run: &Run, delta: &Rational, grid: Option<&Rational>) -> Result<Evaluation> {
    let delta = Delta::new("delta", delta.clone())?;
    let route = dpsgd::route(run, &Accounting::default())?;
    let acc = Accounting {
        grid: grid.filter(|_| route == Route::Poisson).cloned(),
        ..Accounting::default()
    };
    let e = dpsgd::epsilon(run, &delta, &acc)?;
    let (epsilon, grid) = match (e.route, &e.value) {
        (Route::GroupExamples | Route::FixedSize, Certified::TwoSided(enc)) => {
            (Certified::UpperBound(UpperBound::new(enc.clone())), None)
        }
        (Route::Poisson | Route::PoissonSubstitution, _) => {
            (e.value.clone(), e.pld.as_ref().map(|r| r.grid.clone()))
        }
        _ => (e.value.clone(), None),
    };
    Ok(Evaluation {
        run: run.clone(),
        epsilon,
        grid,
        route: e.summary(),
    })
}

/// The parameter a calibration solves for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parameter {
    /// The smallest noise multiplier.
    Sigma,
    /// The largest number of steps.
    Steps,
    /// The largest sampling rate (batch size when the run has a dataset size).
    Rate,
}

impl Parameter {
    /// The command-line spelling: `sigma`, `steps` or `rate`.
    pub fn name(self) -> &'static str {
        match self {
            Parameter::Sigma => "sigma",
            Parameter::Steps => "steps",
            Parameter::Rate => "rate",
        }
    }
    /// Does ε grow with the parameter?
    fn increasing(self) -> bool {
        self != Parameter::Sigma
    }
}

/// The answer of a calibration.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The parameter solved for.
    pub parameter: Parameter,
    /// The target ε > 0.
    pub target: Rational,
    /// Target δ in (0, 1).
    pub delta: Rational,
    /// The run at the answer: certified ε upper ≤ target.
    pub feasible: Evaluation,
    /// A run a relative gap away (smaller σ, more steps, larger rate) whose certified ε
    /// *lower* bound exceeds the target: the exact optimum lies between. None on one-sided
    /// routes, at the end of the parameter's range (q = 1), or when no certificate was reached.
    pub infeasible: Option<Evaluation>,
    /// One-sided routes: a run a relative gap away at which the route's own bound exceeds the
    /// target (so this route cannot certify more; the exact ε there is not known to exceed it).
    pub bound_exceeds: Option<Evaluation>,
    /// Accountant evaluations used (search and certification).
    pub evaluations: usize,
}

impl Calibration {
    /// |x_f − x_i| / x_f between the feasible value and the infeasible (or bound-exceeding)
    /// one, exact; None without either.
    pub fn relative_gap(&self) -> Option<Rational> {
        let other = self.infeasible.as_ref().or(self.bound_exceeds.as_ref())?;
        let xf = value(&self.feasible.run, self.parameter);
        let xi = value(&other.run, self.parameter);
        Some(Rational::from(&xf - &xi).abs() / xf)
    }
}

/// Relative gap the search aims for between the feasible and the infeasible certificate: 10⁻³.
pub fn gap() -> Rational {
    Rational::from((1, 1000))
}

/// The value of the calibrated parameter in a run.
pub fn value(run: &Run, p: Parameter) -> Rational {
    match p {
        Parameter::Sigma => Rational::from(&*run.sigma),
        Parameter::Steps => Rational::from(&*run.steps),
        Parameter::Rate => Rational::from(&*run.rate),
    }
}

/// Certified calibration of `parameter` for ε ≤ `target` at `delta` (the other fields of
/// `run` fixed; the calibrated field's value in `run` is ignored).
///
/// # Guarantee
/// `feasible.epsilon.upper() ≤ target` (checked here on the certified value, exactly); when
/// present, `infeasible.epsilon.lower() > target`, also checked here. Errors name the bad
/// input: target ≤ 0 (`target-epsilon`), δ ∉ (0, 1), a target no value in the search range
/// reaches (`target-epsilon`), or a sampler without a certified route.
pub fn calibrate(
    run: &Run,
    parameter: Parameter,
    target: &Rational,
    delta: &Rational,
) -> Result<Calibration> {
    validate::positive("target-epsilon", target)?;
    validate::open_unit("delta", delta)?;
    if parameter != Parameter::Steps && *run.steps > MAX_CALIBRATED_STEPS {
        return Err(Error::arg(
            "steps",
            format!(
                "{} steps: calibration evaluates the accountant many times, and one evaluation at this many steps takes minutes and gigabytes; at most 10¹² steps are calibrated (the range the steps search itself covers)",
                run.steps
            ),
        ));
    }
    let mut s = bracket::Bracketing::new(run, parameter, target, delta);
    let ok = |c: Calibration| {
        debug_assert!(*c.feasible.epsilon.upper().as_float() <= *target);
        Ok(c)
    };
    let solved = if run.sampling == Sampling::Shuffled && parameter == Parameter::Sigma {
        s.shuffled_sigma()
    } else {
        s.run()
    };
    ok(solved.map_err(grid_refusal)?)
}

/// Most steps of a run whose σ or rate is calibrated: the end of the steps search's own range.
pub const MAX_CALIBRATED_STEPS: u64 = 1_000_000_000_000;

/// The accountant's refusal of a grid (too many points near the target) in words a calibration
/// can act on: it has no `--grid`, its grids are chosen automatically.
fn grid_refusal(e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, reason } if name == "grid" => {
            let why = reason
                .split("; use a coarser --grid")
                .next()
                .unwrap_or(&reason)
                .to_string();
            Error::arg(
                "target-epsilon",
                format!("the PLD accountant cannot certify ε near this target ({why}); try a larger --target-epsilon, a smaller --delta, or --method rdp"),
            )
        }
        other => other,
    }
}

/// The noise of the Gaussian mechanism for a target: Corollary 8/10 inverted in σ (an alias
/// of `gaussian sigma` for `calibrate gaussian`).
pub fn gaussian(
    target: &Rational,
    delta: &Rational,
    sensitivity: &Rational,
    compositions: &Integer,
) -> Result<Enclosure> {
    validate::positive("target-epsilon", target)?;
    gaussian_sigma(target, delta, sensitivity, compositions, Precision::Auto)
}

/// The smallest noise multiplier σ for a deployment's one DP-SGD entry (a Poisson or shuffled
/// `subsampled-gaussian`, any `repeat` for Poisson runs, under add/remove or — with
/// `relation = "substitution"` or fixed-size sampling — substitution neighbours, by the route
/// `calibrate dpsgd` takes for that sampling and relation) such that the run meets the
/// deployment's claim (ε, δ): [`calibrate`] for σ at target ε and δ, and the deployment with
/// that σ substituted (to be audited).
///
/// # Guarantee
/// As [`calibrate`]: the returned run's certified ε at the claimed δ has upper bound ≤ the
/// claimed ε; `infeasible`, when present, certifies σ(1 − 10⁻³) cannot meet it (absent for
/// shuffled and fixed-size runs, calibrated on an upper bound only, and where the two-sided
/// bracket is too wide to separate a 10⁻³ gap). Errors name
/// `--calibrate` when the deployment has no claim with δ > 0, or is not exactly one DP-SGD
/// entry (other mechanisms would need a joint calibration, not implemented).
pub fn deployment_sigma(
    d: &crate::deploy::Deployment,
) -> Result<(Calibration, crate::deploy::Deployment)> {
    use crate::event::Event;
    let flag = "--calibrate";
    let Some((eps, delta)) = d.claim.clone() else {
        return Err(Error::arg(flag, "needs a [claim] (ε, δ) for σ to meet"));
    };
    if delta == 0 {
        return Err(Error::arg(flag, "needs a claimed δ > 0 (no σ gives δ = 0)"));
    }
    let ledger = crate::audit::ledger::Ledger::from_event(&d.event)?;
    let one = "needs a deployment of exactly one subsampled-gaussian entry (DP-SGD run); with other mechanisms σ would have to be calibrated jointly, which is not implemented";
    let [entry] = &ledger.entries[..] else {
        return Err(Error::arg(flag, one));
    };
    let mut run = entry_run(entry, one)?;
    run.method = Method::Pld;
    // (shuffled runs: `shuffled_dpsgd_epsilon` is an upper bound, so the calibration carries
    // `bound_exceeds` and no infeasibility certificate)
    let cal = calibrate(&run, Parameter::Sigma, &eps, &delta)?;
    let sigma = Rational::from(&*cal.feasible.run.sigma);
    let mechanism = with_sigma(entry.mechanism.clone(), sigma);
    let mut event = mechanism.to_event();
    if entry.repeat != 1 {
        event = Event::SelfComposed {
            event: Box::new(event),
            count: entry.repeat.clone(),
        };
    }
    let mut out = d.clone();
    out.event = Event::Composed(vec![event.named(entry.name.clone())]);
    Ok((cal, out))
}

/// The DP-SGD run of a deployment's one entry (its `repeat` folded into the steps), with its
/// sampling and relation; errors name `--calibrate` (`not_a_run`: the entry is no DP-SGD run).
fn entry_run(entry: &Entry, not_a_run: &str) -> Result<Run> {
    let flag = "--calibrate";
    Ok(match &entry.mechanism {
        Mechanism::SubsampledGaussian { sigma, rate, steps, shuffled: false } => {
            Run::checked(rate.clone(), sigma.clone(), Integer::from(steps * &entry.repeat))?
        }
        Mechanism::ShuffledGaussian { sigma, rate, steps } if entry.repeat == 1 => {
            let mut r = Run::checked(rate.clone(), sigma.clone(), steps.clone())?;
            r.sampling = Sampling::Shuffled;
            r
        }
        Mechanism::ShuffledGaussian { .. } => {
            return Err(Error::arg(flag, "a shuffled run with `repeat` > 1: state it as one run of repeat·steps steps"))
        }
        Mechanism::SubstitutionGaussian { sampling: Sampling::Shuffled, .. } if entry.repeat != 1 => {
            return Err(Error::arg(flag, "a shuffled run with `repeat` > 1: state it as one run of repeat·steps steps"))
        }
        Mechanism::SubstitutionGaussian { sigma, rate, steps, sampling } => {
            let mut r = Run::checked(rate.clone(), sigma.clone(), Integer::from(steps * &entry.repeat))?;
            r.sampling = *sampling;
            r.relation = dpsgd::Relation::Substitution;
            r
        }
        Mechanism::SubsampledGaussian { shuffled: true, .. } => {
            return Err(Error::arg(flag, "shuffled batches accounted as Poisson: drop `accounting` to calibrate the shuffled run, or declare Poisson sampling"))
        }
        _ => return Err(Error::arg(flag, not_a_run)),
    })
}

/// The entry's mechanism with σ replaced by the calibrated one.
fn with_sigma(mechanism: Mechanism, sigma: Rational) -> Mechanism {
    match mechanism {
        Mechanism::SubsampledGaussian {
            rate,
            steps,
            shuffled,
            ..
        } => Mechanism::SubsampledGaussian {
            sigma,
            rate,
            steps,
            shuffled,
        },
        Mechanism::ShuffledGaussian { rate, steps, .. } => {
            Mechanism::ShuffledGaussian { sigma, rate, steps }
        }
        Mechanism::SubstitutionGaussian {
            rate,
            steps,
            sampling,
            ..
        } => Mechanism::SubstitutionGaussian {
            sigma,
            rate,
            steps,
            sampling,
        },
        other => other,
    }
}

/// μ of the Gaussian (μ-GDP) curve with ε at δ, in plain `f64` (bisection on Corollary 8 in
/// μ form): a search starting point only.
fn gdp_mu(eps: f64, delta: f64) -> f64 {
    let d = |mu: f64| {
        normal_cdf_f64(-eps / mu + mu / 2.0) - eps.exp() * normal_cdf_f64(-eps / mu - mu / 2.0)
    };
    let (mut lo, mut hi) = (1e-6f64, 1e3f64);
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if d(mid) > delta {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo
}

mod bracket;
