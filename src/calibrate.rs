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
use crate::num::{normal_cdf_f64, Certified, Enclosure, Precision, UpperBound};
use crate::theorems::gaussian::gaussian_sigma;
use crate::theorems::pld_accountant::{
    dpsgd_pld_epsilon, dpsgd_substitution_pld_epsilon, PldOptions,
};
use crate::theorems::rdp::dpsgd_rdp_epsilon;
use crate::theorems::sampling::{Relation, Sampling, UserSampling};
use crate::theorems::shuffle::shuffled_dpsgd_epsilon;
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// Which accountant certifies Poisson-sampled runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The two-sided PLD accountant (Theorem 9 on a certified grid).
    Pld,
    /// Rényi DP (Mironov–Talwar–Zhang 2019) converted to (ε, δ): an upper bound only.
    Rdp,
}

impl Method {
    /// The command-line spelling: `pld` or `rdp`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Pld => "pld",
            Method::Rdp => "rdp",
        }
    }
}

/// A DP-SGD run: rate q (= B/N), noise multiplier σ, T steps, how batches are drawn, which
/// neighbours, and (for user-level privacy) how many examples one user may contribute.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Sampling rate q = B/N in (0, 1], exact.
    pub rate: Rational,
    /// Noise multiplier σ (noise std / clipping norm), > 0.
    pub sigma: Rational,
    /// Number of steps T ≥ 1.
    pub steps: Integer,
    /// How batches are drawn (Poisson, shuffled or fixed-size).
    pub sampling: Sampling,
    /// The neighbouring relation (add/remove or substitution).
    pub relation: Relation,
    /// Which accountant certifies Poisson-sampled runs.
    pub method: Method,
    /// Epochs, when the run was stated in epochs (shuffled runs then count ⌈epochs⌉ passes).
    pub epochs: Option<Rational>,
    /// Dataset size N, when the run was stated by batch size (rates are then B/N).
    pub dataset: Option<Integer>,
    /// Examples per user (1: example-level privacy).
    pub group: Integer,
    /// With `group` > 1: whether users (all their examples together) or single examples are
    /// Poisson-sampled.
    pub user_sampling: UserSampling,
}

impl Run {
    /// A Poisson, add/remove, PLD-accounted run at example level.
    pub fn poisson(rate: Rational, sigma: Rational, steps: Integer) -> Run {
        Run {
            rate,
            sigma,
            steps,
            sampling: Sampling::Poisson,
            relation: Relation::AddRemove,
            method: Method::Pld,
            epochs: None,
            dataset: None,
            group: Integer::from(1),
            user_sampling: UserSampling::Users,
        }
    }
}

/// q = B/N and T = ⌈epochs·N/B⌉ from the ML vocabulary, checked: B ≥ 1, N ≥ 1, B ≤ N,
/// epochs > 0 (so T ≥ 1).
pub fn steps_from_epochs(
    epochs: &Rational,
    batch: &Integer,
    dataset: &Integer,
) -> Result<(Rational, Integer)> {
    validate::count("batch-size", batch)?;
    validate::count("dataset-size", dataset)?;
    if batch > dataset {
        return Err(Error::arg(
            "batch-size",
            format!("must be at most the dataset size {dataset}, got {batch}"),
        ));
    }
    validate::positive("epochs", epochs)?;
    let rate = Rational::from((batch.clone(), dataset.clone()));
    let steps = Rational::from(epochs / &rate).ceil().numer().clone();
    validate::count("epochs", &steps)?;
    Ok((rate, steps))
}

/// How many times one example is used by a shuffled run: once per pass, ⌈epochs⌉ passes when
/// the run was stated in epochs, else ⌈T/⌊1/q⌋⌉ (an epoch has at least ⌊N/B⌋ steps, so T
/// steps start at most that many passes).
pub fn shuffled_participations(run: &Run) -> Result<Integer> {
    if let Some(e) = &run.epochs {
        validate::positive("epochs", e)?;
        return Ok(e.clone().ceil().numer().clone());
    }
    validate::positive("rate", &run.rate)?;
    let per_epoch = Rational::from(run.rate.recip_ref()).floor().numer().clone();
    let per_epoch = per_epoch.max(Integer::from(1));
    Ok(Rational::from((run.steps.clone(), per_epoch))
        .ceil()
        .numer()
        .clone())
}

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

/// Route names (the theorem each evaluation rests on).
pub const ROUTE_PLD: &str = "PLD accountant (Theorem 9 on a certified grid), Poisson, add/remove";
/// Route of Poisson, substitution runs: both sides of the PLD of the dominating (and realised) pair.
pub const ROUTE_PLD_SUBSTITUTION: &str = "Poisson, substitution: PLD accountant, both sides, on the dominating and realised pair ((1−q)N(0,σ²)+qN(1,σ²) ‖ (1−q)N(0,σ²)+qN(−1,σ²))";
/// Route of user-level runs with examples Poisson-sampled: a one-sided group-privacy upper bound.
pub const ROUTE_PLD_GROUP_EXAMPLES: &str = "user-level, examples Poisson-sampled: upper bound by group privacy over K add/remove hops on the PLD accountant (dpsgd_group_pld_epsilon); one-sided";
/// Route of Poisson, add/remove runs by RDP converted to (ε, δ) (an upper bound).
pub const ROUTE_RDP: &str = "RDP (Mironov–Talwar–Zhang 2019) → (ε, δ), Poisson, add/remove";
/// Route of fixed-size, substitution runs on the PLD accountant.
pub const ROUTE_FIXED_SIZE: &str = "fixed-size batches, substitution: PLD accountant, upper = symmetric dominating pair of one step (sensitivity 2), lower = the realised Poisson add/remove pairs at σ/2";
/// Route of fixed-size, substitution runs by RDP (an upper bound).
pub const ROUTE_FIXED_SIZE_RDP: &str = "fixed-size batches, substitution: RDP upper bound (Wang–Balle–Kasiviswanathan 2019 Theorem 9, sensitivity 2) → (ε, δ)";
/// Route of shuffled runs: exact Gaussian composition without amplification (an upper bound).
pub const ROUTE_SHUFFLED: &str =
    "shuffled epochs without amplification: an upper bound by exact Gaussian composition (Corollaries 8 and 10)";

/// The certified ε at δ of a run, by the route its sampling and method call for. `grid`
/// fixes the PLD grid (None: automatic).
///
/// # Guarantee
/// The returned [`Certified`] is that of the theorem function named by `route`: two-sided for
/// the PLD and shuffled routes, an upper bound for RDP. Samplers without a certified route
/// are refused with an error naming `sampling` or `relation`.
pub fn dpsgd_epsilon(run: &Run, delta: &Rational, grid: Option<&Rational>) -> Result<Evaluation> {
    validate::open_unit("delta", delta)?;
    validate::count("group", &run.group)?;
    if run.group != 1
        && run.user_sampling == UserSampling::Examples
        && (run.sampling, run.relation) != (Sampling::Poisson, Relation::AddRemove)
    {
        return Err(Error::arg(
            "user-sampling",
            "examples is available for --sampling poisson --relation add-remove only",
        ));
    }
    let done = |epsilon, grid, route| {
        Ok(Evaluation {
            run: run.clone(),
            epsilon,
            grid,
            route,
        })
    };
    match (run.sampling, run.relation) {
        (Sampling::Shuffled, relation) => {
            let k = shuffled_participations(run)?;
            let e = shuffled_dpsgd_epsilon(&run.sigma, &k, relation, &run.group, delta, Precision::Auto)?;
            done(Certified::UpperBound(e), None, ROUTE_SHUFFLED)
        }
        (Sampling::Poisson, Relation::AddRemove) => poisson_add_remove(run, delta, grid, done),
        (Sampling::Poisson, Relation::Substitution) => poisson_substitution(run, delta, grid, done),
        (Sampling::FixedSize, Relation::Substitution) => fixed_size(run, delta, done),
        (Sampling::FixedSize, Relation::AddRemove) => Err(Error::arg(
            "relation",
            "fixed-size batches are certified for substitution only (under add/remove the dataset size N, hence B/N, changes); use --relation substitution, or --sampling poisson",
        )),
    }
}

/// Fixed-size batches, substitution: `--method pld` the upper end of the PLD route
/// (`dpsgd_fixed_size_pld_epsilon`) as an upper bound, on the automatic grid and with no grid
/// reported, so the search calibrates on the upper end alone (one-sided, like RDP): the
/// bracket's width is the gap between the dominating and the realised pairs, which no grid
/// shrinks, so a certificate of infeasibility a 10⁻³ gap away cannot exist. `--method rdp`:
/// the RDP upper bound (WBK19 Theorem 9). Example level only (a user's examples could share a
/// batch).
fn fixed_size(
    run: &Run,
    delta: &Rational,
    done: impl Fn(Certified, Option<Rational>, &'static str) -> Result<Evaluation>,
) -> Result<Evaluation> {
    if run.group != 1 {
        return Err(Error::arg(
            "group-size",
            "fixed-size batches are accounted at example level only (group size 1)",
        ));
    }
    validate::positive("sigma", &run.sigma)?;
    if run.method == Method::Pld {
        let r = crate::theorems::pld_accountant::dpsgd_fixed_size_pld_epsilon(
            &run.rate,
            &run.sigma,
            &run.steps,
            delta,
            &PldOptions::default(),
        )?;
        return done(
            Certified::UpperBound(UpperBound::new(r.enclosure)),
            None,
            ROUTE_FIXED_SIZE,
        );
    }
    let (e, _) = crate::theorems::fixed_size::dpsgd_fixed_size_rdp_epsilon(
        &run.rate,
        &run.sigma,
        &run.steps,
        delta,
        Precision::Auto,
    )?;
    done(
        Certified::UpperBound(UpperBound::new(e)),
        None,
        ROUTE_FIXED_SIZE_RDP,
    )
}

/// The Poisson add/remove routes; user-level privacy with Poisson sampling of *users* (all of a
/// user's examples in or out together) is sensitivity k: σ/k in the sensitivity-1 accountant.
fn poisson_add_remove(
    run: &Run,
    delta: &Rational,
    grid: Option<&Rational>,
    done: impl Fn(Certified, Option<Rational>, &'static str) -> Result<Evaluation>,
) -> Result<Evaluation> {
    validate::positive("sigma", &run.sigma)?;
    if run.group != 1 && run.user_sampling == UserSampling::Examples {
        return group_examples(run, delta, grid, done);
    }
    let sigma = Rational::from(&run.sigma / &run.group);
    match run.method {
        Method::Pld => {
            let opts = PldOptions {
                grid: grid.cloned(),
                ..PldOptions::default()
            };
            let r = dpsgd_pld_epsilon(&run.rate, &sigma, &run.steps, delta, &opts)?;
            done(Certified::TwoSided(r.enclosure), Some(r.grid), ROUTE_PLD)
        }
        Method::Rdp => {
            let (b, _) = dpsgd_rdp_epsilon(&run.rate, &sigma, &run.steps, delta, Precision::Auto)?;
            done(Certified::UpperBound(b), None, ROUTE_RDP)
        }
    }
}

/// User-level, examples Poisson-sampled (PLD only): the upper end of
/// `dpsgd_group_pld_epsilon` as an upper bound (its lower end is one example's, far below: a
/// one-sided calibration, like RDP).
fn group_examples(
    run: &Run,
    delta: &Rational,
    grid: Option<&Rational>,
    done: impl Fn(Certified, Option<Rational>, &'static str) -> Result<Evaluation>,
) -> Result<Evaluation> {
    if run.method != Method::Pld {
        return Err(Error::arg(
            "method",
            "--user-sampling examples is certified by the PLD route only; use --method pld",
        ));
    }
    let max = crate::theorems::pld_accountant::MAX_GROUP;
    let k = run
        .group
        .to_u32()
        .filter(|k| (1..=max).contains(k))
        .ok_or_else(|| {
            Error::arg(
                "group-size",
                format!("must be an integer in [1, {max}] with --user-sampling examples"),
            )
        })?;
    // automatic grid, and no grid reported: the search then runs its one-sided certification
    // (a finer grid does not shrink the group bound's looseness)
    let _ = grid;
    let r = crate::theorems::pld_accountant::dpsgd_group_pld_epsilon(
        &run.rate,
        &run.sigma,
        &run.steps,
        k,
        delta,
        &PldOptions::default(),
    )?;
    done(
        Certified::UpperBound(UpperBound::new(r.enclosure)),
        None,
        ROUTE_PLD_GROUP_EXAMPLES,
    )
}

/// The Poisson substitution route (PLD only): `dpsgd_substitution_pld_epsilon`, users as in
/// [`poisson_add_remove`] (σ/k). Always on the automatic grid: the bracket's width is that of
/// group privacy (≈ ε_remove + ε_add), which a finer grid does not shrink, so a refinement the search
/// asks for would only cost time.
fn poisson_substitution(
    run: &Run,
    delta: &Rational,
    _grid: Option<&Rational>,
    done: impl Fn(Certified, Option<Rational>, &'static str) -> Result<Evaluation>,
) -> Result<Evaluation> {
    validate::positive("sigma", &run.sigma)?;
    if run.method != Method::Pld {
        return Err(Error::arg(
            "method",
            "substitution with Poisson sampling is certified by the PLD route only; use --method pld",
        ));
    }
    let sigma = Rational::from(&run.sigma / &run.group);
    let opts = PldOptions::default();
    let r = dpsgd_substitution_pld_epsilon(&run.rate, &sigma, &run.steps, delta, &opts)?;
    done(
        Certified::TwoSided(r.enclosure),
        Some(r.grid),
        ROUTE_PLD_SUBSTITUTION,
    )
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
        Parameter::Sigma => run.sigma.clone(),
        Parameter::Steps => Rational::from(&run.steps),
        Parameter::Rate => run.rate.clone(),
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
    if parameter != Parameter::Steps && run.steps > MAX_CALIBRATED_STEPS {
        return Err(Error::arg(
            "steps",
            format!(
                "{} steps: calibration evaluates the accountant many times, and one evaluation at this many steps takes minutes and gigabytes; at most 10¹² steps are calibrated (the range the steps search itself covers)",
                run.steps
            ),
        ));
    }
    let mut s = search::Search::new(run, parameter, target, delta);
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
    use crate::audit::ledger::{Ledger, Mechanism};
    use crate::event::Event;
    let flag = "--calibrate";
    let Some((eps, delta)) = d.claim.clone() else {
        return Err(Error::arg(flag, "needs a [claim] (ε, δ) for σ to meet"));
    };
    if delta == 0 {
        return Err(Error::arg(flag, "needs a claimed δ > 0 (no σ gives δ = 0)"));
    }
    let ledger = Ledger::from_event(&d.event)?;
    let one = "needs a deployment of exactly one subsampled-gaussian entry (DP-SGD run); with other mechanisms σ would have to be calibrated jointly, which is not implemented";
    let [entry] = &ledger.entries[..] else {
        return Err(Error::arg(flag, one));
    };
    let mut run = match &entry.mechanism {
        Mechanism::SubsampledGaussian { sigma, rate, steps, shuffled: false } => {
            Run::poisson(rate.clone(), sigma.clone(), Integer::from(steps * &entry.repeat))
        }
        Mechanism::ShuffledGaussian { sigma, rate, steps } if entry.repeat == 1 => {
            let mut r = Run::poisson(rate.clone(), sigma.clone(), steps.clone());
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
            let mut r = Run::poisson(rate.clone(), sigma.clone(), Integer::from(steps * &entry.repeat));
            r.sampling = *sampling;
            r.relation = Relation::Substitution;
            r
        }
        Mechanism::SubsampledGaussian { shuffled: true, .. } => {
            return Err(Error::arg(flag, "shuffled batches accounted as Poisson: drop `accounting` to calibrate the shuffled run, or declare Poisson sampling"))
        }
        _ => return Err(Error::arg(flag, one)),
    };
    run.method = Method::Pld;
    // (shuffled runs: `shuffled_dpsgd_epsilon` is an upper bound, so the calibration carries
    // `bound_exceeds` and no infeasibility certificate)
    let cal = calibrate(&run, Parameter::Sigma, &eps, &delta)?;
    let sigma = cal.feasible.run.sigma.clone();
    let mechanism = match entry.mechanism.clone() {
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
    };
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

mod search;
