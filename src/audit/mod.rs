//! Audit of a deployment: every applicable route, the best certified (ε, δ), and a verdict on
//! the deployment's claim.
//!
//! The audit flattens the deployment's [`Event`] tree into a [`Ledger`],
//! asks every [`Route`] whether it applies, runs the budget queries (and δ at the claimed ε)
//! on those that do, keeps the tightest certified answer, and decides the claim from the same
//! results. Each route is a chain of the chapter's theorems; a route's number is a rigorous
//! upper bound, and only exact routes (all-Gaussian, Corollary 10; optimal composition without
//! Laplace; the PLD accountant) also give a certified lower bound of the mechanisms' true
//! privacy (for black boxes: of the worst case in their class).
//!
//! ```
//! use dpcert::audit::{audit, Verdict};
//! use dpcert::deploy::Deployment;
//! use dpcert::event::Event;
//! // 104 Gaussian counts with σ = 8, claimed (2, 1e-6)-DP
//! let event = Event::gaussian(8)?.self_composed(104)?;
//! let d = Deployment::new(event).at_delta("1e-6")?.with_claim(2, "1e-6")?;
//! let report = audit(&d)?;
//! assert_eq!(report.verdict(), Some(Verdict::Fails));
//! println!("{report}");
//! # Ok::<(), dpcert::Error>(())
//! ```
pub mod basic;
pub mod claim;
pub mod exact_gaussian;
pub mod ledger;
pub mod optimal;
pub mod pld;
pub mod rdp;
mod report;
pub mod route;
pub mod split;
pub mod substitution;
pub mod zcdp;

pub use claim::{exit_code, verdict_word, ClaimCheck, Verdict};
pub use ledger::{Entry, Ledger, Mechanism};
pub use route::{Outcome, Route, RouteId, Step, WhyNot};

use crate::event::{Event, Exact};
use crate::num::Certified;
use crate::validate::{self, show};
use crate::{Error, Result};
use rug::{Integer, Rational};

/// A deployment: budget queries, optional claim, and the released event tree — the question the
/// audit answers. Built here ([`Deployment::new`] and its builders) or read from a deployment
/// file ([`crate::deploy`], which also writes one back).
#[derive(Clone, Debug, PartialEq)]
pub struct Deployment {
    /// δ at which to certify ε.
    pub budget_delta: Option<Rational>,
    /// ε at which to certify δ.
    pub budget_epsilon: Option<Rational>,
    /// The claimed (ε, δ), if any.
    pub claim: Option<(Rational, Rational)>,
    /// What was released.
    pub event: Event,
}

impl Deployment {
    /// Without a budget query, the claim's: ε at the claimed δ (when it is > 0) and δ at the
    /// claimed ε. Unchanged when a budget is set or there is no claim.
    pub fn with_default_budget(mut self) -> Deployment {
        if let (None, None, Some((e, d))) = (&self.budget_delta, &self.budget_epsilon, &self.claim)
        {
            self.budget_delta = (*d > 0).then(|| d.clone());
            self.budget_epsilon = Some(e.clone());
        }
        self
    }

    /// A deployment of `event` with no budget query or claim yet (add them with
    /// [`Deployment::at_delta`], [`Deployment::at_epsilon`], [`Deployment::with_claim`]).
    pub fn new(event: Event) -> Deployment {
        Deployment {
            budget_delta: None,
            budget_epsilon: None,
            claim: None,
            event,
        }
    }
    /// Ask for the certified ε at δ ∈ (0, 1).
    pub fn at_delta(mut self, delta: impl Exact) -> Result<Deployment> {
        let d = delta.exact().map_err(|e| Error::arg("budget delta", e))?;
        validate::open_unit("budget delta", &d)?;
        self.budget_delta = Some(d);
        Ok(self)
    }
    /// Ask for the certified δ at ε ≥ 0.
    pub fn at_epsilon(mut self, epsilon: impl Exact) -> Result<Deployment> {
        let e = epsilon
            .exact()
            .map_err(|e| Error::arg("budget epsilon", e))?;
        validate::nonnegative("budget epsilon", &e)?;
        self.budget_epsilon = Some(e);
        Ok(self)
    }
    /// Claim (ε, δ)-DP, to be verified or refuted.
    pub fn with_claim(mut self, epsilon: impl Exact, delta: impl Exact) -> Result<Deployment> {
        let e = epsilon
            .exact()
            .map_err(|e| Error::arg("claim epsilon", e))?;
        validate::nonnegative("claim epsilon", &e)?;
        let d = delta.exact().map_err(|e| Error::arg("claim delta", e))?;
        validate::unit_from_zero("claim delta", &d)?;
        self.claim = Some((e, d));
        Ok(self)
    }
}

/// A route's answer to one budget query: two-sided (exact routes, whose lower end bounds the
/// mechanisms' exact privacy) or an upper bound only.
pub type Answer = Certified;

/// Every route, in the order reports list them (ties in the best answer go to the first).
pub static ROUTES: [&dyn Route; 9] = [
    &exact_gaussian::ExactGaussian,
    &zcdp::Zcdp,
    &optimal::Optimal,
    &split::GaussianSplit,
    &pld::Pld,
    &rdp::Rdp,
    &basic::Basic,
    &basic::Advanced,
    &substitution::Substitution,
];

/// What one applicable route certified for the deployment's queries.
#[derive(Clone, Debug)]
pub struct RouteResult {
    /// Which route.
    pub id: RouteId,
    /// The route's name (`id.name()`).
    pub name: &'static str,
    /// The theorems the route chained, with their values; the last step is the result.
    pub steps: Vec<Step>,
    /// ε at the budget δ; `None` if the route gives no finite ε there.
    pub epsilon: Option<Answer>,
    /// δ at the budget ε; `None` if the route gives no δ < 1 there.
    pub delta: Option<Answer>,
    /// Why an answer is missing.
    pub note: Option<String>,
}

/// "name: result" — the route's name and the numbers it reached (its last step), e.g.
/// "zCDP: ε(δ=1e-6) ≤ 6.4…", then its note in parentheses, if any.
///
/// ```
/// use dpcert::audit::audit;
/// use dpcert::deploy::Deployment;
/// use dpcert::event::Event;
/// let d = Deployment::new(Event::gaussian(8)?.self_composed(104)?).at_epsilon(2)?;
/// let report = audit(&d)?;
/// let exact = report.routes[0].to_string(); // the exact Gaussian route: a two-sided bracket
/// assert!(exact.starts_with("exact Gaussian composition: δ(ε=2) ∈ ["), "{exact}");
/// # Ok::<(), dpcert::Error>(())
/// ```
impl std::fmt::Display for RouteResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)?;
        if let Some(last) = self.steps.last() {
            write!(f, ": {}", last.value)?;
        }
        match &self.note {
            Some(n) => write!(f, " ({n})"),
            None => Ok(()),
        }
    }
}

/// The audit's result.
#[derive(Clone, Debug)]
pub struct Report {
    /// The deployment audited, with its default budget queries filled in
    /// ([`Deployment::with_default_budget`]).
    pub deployment: Deployment,
    /// The flat list of mechanisms the routes accounted for.
    pub ledger: Ledger,
    /// The applicable routes' results, in [`ROUTES`] order.
    pub routes: Vec<RouteResult>,
    /// The routes that do not apply, and why.
    pub not_applicable: Vec<(RouteId, WhyNot)>,
    /// The best certified ε at the budget δ: (index into `routes`, answer).
    pub best_epsilon: Option<(usize, Answer)>,
    /// The best certified δ at the budget ε: (index into `routes`, answer).
    pub best_delta: Option<(usize, Answer)>,
    /// The verdict on the deployment's claim; `None` when it makes none.
    pub claim: Option<ClaimCheck>,
    /// Sentences explaining surprising answers (ε = 0, no route, a shuffled-batches warning).
    pub notes: Vec<String>,
}

/// Which routes the audit runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Run the PLD accountant (the privacy-profile plot evaluates the audit at 61 values of ε
    /// and leaves it out).
    pub pld: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { pld: true }
    }
}

/// Run every applicable route for the deployment's budget queries and claim.
///
/// # Guarantee
/// Every reported ε (δ) is a rigorous upper bound of the deployment's ε at the budget δ (δ at
/// the budget ε) by the named route's theorems; two-sided answers also bound it from below.
/// A claim is verified only by a certified upper bound and refuted only by a certified lower
/// bound. Events no route certifies are refused with an error naming them.
pub fn audit(d: &Deployment) -> Result<Report> {
    audit_with_options(d, &Options::default())
}

/// [`audit`], optionally without the PLD route.
///
/// # Guarantee
/// As [`audit`], over the routes run: without the PLD route an answer may be looser (or
/// missing, e.g. for subsampled Gaussians mixed with (ε, δ) black boxes), never unsound.
pub fn audit_with(d: &Deployment, pld: bool) -> Result<Report> {
    audit_with_options(d, &Options { pld })
}

/// [`audit`] with [`Options`].
///
/// # Guarantee
/// As [`audit`] (see [`audit_with`] for `pld: false`). Errors: no budget query and no claim
/// ([`crate::Error::InvalidArgument`] naming `budget`), an event no route certifies (named),
/// or a route's numerical failure.
pub fn audit_with_options(d: &Deployment, options: &Options) -> Result<Report> {
    let d = &d.clone().with_default_budget();
    if d.budget_delta.is_none() && d.budget_epsilon.is_none() {
        return Err(Error::arg(
            "budget",
            "set a budget δ (to get a certified ε) and/or a budget ε (to get a certified δ), or a claim to check",
        ));
    }
    let ledger = Ledger::from_event(&d.event)?;
    let stage = Stage::new();
    let (mut routes, mut not_applicable, mut at_claim) = (Vec::new(), Vec::new(), Vec::new());
    for route in ROUTES
        .iter()
        .filter(|r| options.pld || r.id() != RouteId::Pld)
    {
        if let Err(why) = route.applies(&ledger) {
            not_applicable.push((route.id(), why));
            continue;
        }
        stage.enter(route.name());
        let (result, claim_delta) = run_route(*route, &ledger, d)?;
        at_claim.push((route.id(), claim_delta));
        routes.push(result);
    }
    let best_epsilon = best(routes.iter().map(|r| r.epsilon.as_ref()));
    let best_delta = best(routes.iter().map(|r| r.delta.as_ref()));
    let claim = match &d.claim {
        None => None,
        // a substitution run: no route gives δ(ε), so the claim is decided from ε at δ_c
        Some((ce, cd)) if ledger.substitution().is_some() => {
            Some(substitution_claim(&ledger, &routes, d, ce, cd)?)
        }
        Some((ce, cd)) => {
            let best_at_claim = best(at_claim.iter().map(|(_, a)| a.as_ref()));
            Some(claim::check_claim(&at_claim, best_at_claim, ce, cd))
        }
    };
    let mut report = Report {
        deployment: d.clone(),
        ledger,
        routes,
        not_applicable,
        best_epsilon,
        best_delta,
        claim,
        notes: Vec::new(),
    };
    report.notes = notes(&report);
    Ok(report)
}

/// Run one route's budget queries, and its δ at the claimed ε (the budget query's answer when
/// the claim is at the budget ε). Returns the result and δ at the claimed ε.
fn run_route(
    route: &dyn Route,
    l: &Ledger,
    d: &Deployment,
) -> Result<(RouteResult, Option<Certified>)> {
    let mut steps = route.steps(l)?;
    let mut notes: Vec<String> = Vec::new();
    let mut take = |o: Outcome, steps: &mut Vec<Step>| {
        steps.extend(o.steps);
        if let Some(n) = o.note.filter(|n| !notes.contains(n)) {
            notes.push(n);
        }
        o.value
    };
    let epsilon = match &d.budget_delta {
        Some(dl) => take(route.epsilon_at(l, dl)?, &mut steps),
        None => None,
    };
    let delta = match &d.budget_epsilon {
        Some(e) => take(route.delta_at(l, e)?, &mut steps),
        None => None,
    };
    let claim_delta = match &d.claim {
        Some((ce, _)) if d.budget_epsilon.as_ref() == Some(ce) => delta.clone(),
        Some((ce, _)) => route.delta_at(l, ce)?.value,
        None => None,
    };
    // the numbers the route reached, as its last step
    let mut parts = Vec::new();
    if let Some(dl) = &d.budget_delta {
        parts.push(route::reached("ε", "δ", dl, &epsilon));
    }
    if let Some(e) = &d.budget_epsilon {
        parts.push(route::reached("δ", "ε", e, &delta));
    }
    steps.push(Step::new("result", parts.join("; ")));
    let result = RouteResult {
        id: route.id(),
        name: route.name(),
        steps,
        epsilon,
        delta,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    };
    Ok((result, claim_delta))
}

/// The claim (ε_c, δ_c) on a substitution run, from the substitution route's ε at δ_c (its
/// budget answer when the budget δ is δ_c).
fn substitution_claim(
    l: &Ledger,
    routes: &[RouteResult],
    d: &Deployment,
    ce: &Rational,
    cd: &Rational,
) -> Result<ClaimCheck> {
    let route = routes.iter().find(|r| r.id == RouteId::Substitution);
    let eps = match route {
        None => None,
        Some(r) if d.budget_delta.as_ref() == Some(cd) => r.epsilon.clone(),
        Some(_) if *cd > 0 => substitution::Substitution.epsilon_at(l, cd)?.value,
        Some(_) => None,
    };
    Ok(claim::check_claim_by_epsilon(
        eps,
        RouteId::Substitution,
        ce,
        cd,
    ))
}

/// The smallest upper bound among answers that rest on no cited result; the cited ones only
/// when no other answers (ties go to the first).
fn best<'a>(answers: impl Iterator<Item = Option<&'a Answer>> + Clone) -> Option<(usize, Answer)> {
    let pick = |cited: bool| {
        answers
            .clone()
            .enumerate()
            .filter_map(|(i, a)| a.map(|a| (i, a)))
            .filter(|(_, a)| cited || a.rests_on().is_none())
            .min_by(|a, b| a.1.upper().0.partial_cmp(&b.1.upper().0).expect("no NaN"))
            .map(|(i, a)| (i, a.clone()))
    };
    pick(false).or_else(|| pick(true))
}

/// The notes that explain surprising answers (0, ∞, a warning).
fn notes(r: &Report) -> Vec<String> {
    let (d, l) = (&r.deployment, &r.ledger);
    let mut notes = Vec::new();
    for m in &l.entries {
        if matches!(
            m.mechanism,
            Mechanism::SubsampledGaussian { shuffled: true, .. }
        ) {
            notes.push(format!(
                "WARNING: `{}` declares shuffled batches but asks for Poisson accounting: every number above assumes Poisson sampling, which this deployment did not use (without `accounting`, shuffled batches are audited by the shuffled bound: one Gaussian release per pass).",
                m.name
            ));
        }
        if matches!(m.mechanism, Mechanism::ShuffledGaussian { .. }) {
            notes.push(shuffled_note(m, d.budget_delta.as_ref()));
        }
    }
    if let (Some(dl), Some((i, a))) = (&d.budget_delta, &r.best_epsilon) {
        let zero_dp = l
            .entries
            .iter()
            .all(|m| m.mechanism.approx() == Some((Rational::new(), Rational::new())));
        if a.upper().0 == 0 && zero_dp {
            notes.push("ε = 0: every mechanism is 0-DP.".into());
        } else if a.upper().0 == 0 {
            let what = if r.routes[*i].id == RouteId::ExactGaussian {
                "Gaussians"
            } else {
                "mechanisms"
            };
            notes.push(format!("ε = 0 because the budget δ = {} is at least the total variation distance δ(0) of the composed {what}: no ε > 0 is needed.", show(dl)));
        }
    }
    if d.budget_delta.is_some() && r.best_epsilon.is_none() {
        notes.push(no_route_reason(l, d, true));
    }
    if d.budget_epsilon.is_some() && r.best_delta.is_none() {
        let n = no_route_reason(l, d, false);
        if !notes.contains(&n) {
            notes.push(n);
        }
    }
    if let Some((_, a)) = &r.best_delta {
        if a.upper().0 == 0 {
            notes.push("δ = 0: the mechanisms are pure DP and Σεⱼ does not exceed the budget ε (Theorem 1).".into());
        }
    }
    notes
}

/// A shuffled entry: how it was audited, and (a comparison, not a bound for this deployment)
/// the Poisson figure of the same run alone at the budget δ, from the PLD accountant.
fn shuffled_note(m: &Entry, delta: Option<&Rational>) -> String {
    let Mechanism::ShuffledGaussian { sigma, rate, steps } = &m.mechanism else {
        return String::new();
    };
    let steps = Integer::from(steps * &m.repeat);
    let poisson = delta.and_then(|dl| {
        let opts = crate::theorems::pld_accountant::PldOptions::default();
        let r = crate::theorems::pld_accountant::dpsgd_pld_epsilon_checked(rate, sigma, &steps, dl, &opts).ok()?;
        Some(format!(
            " For comparison only (not a bound for this deployment): Poisson sampling at the same q, σ and {steps} steps would give ε ∈ [{}, {}] at δ = {} (PLD accountant, this entry alone).",
            r.enclosure.lower().to_decimal(),
            r.enclosure.upper().to_decimal(),
            show(dl)
        ))
    });
    format!(
        "`{}` used shuffled batches: audited without amplification, each of its {} passes over the data being one Gaussian release per example (σ = {}, sensitivity 1), as `dpcert dpsgd --sampling shuffled`. That is an upper bound for shuffled batches (exact only if the batch assignment were revealed; amplification by shuffling is neither claimed nor excluded), so it may verify a claim but never refutes one.{}",
        m.name,
        m.mechanism.passes() * &m.repeat,
        show(sigma),
        poisson.unwrap_or_default()
    )
}

/// Why no route answered a query.
fn no_route_reason(l: &Ledger, d: &Deployment, eps_query: bool) -> String {
    let has = |f: fn(&Mechanism) -> bool| l.entries.iter().any(|m| f(&m.mechanism));
    if let Some(e) = l.substitution() {
        return if eps_query {
            format!("ε = ∞: the substitution route certified no finite ε for `{}` at this δ (see its note).", e.name)
        } else {
            format!("no δ(ε) for `{}`: it is audited under substitution neighbours, where dpcert certifies ε at a budget δ only (set [budget] delta).", e.name)
        };
    }
    let has_sgm = l.has_subsampled();
    let has_approx = has(|m| matches!(m, Mechanism::Approx { delta, .. } if *delta > 0));
    let has_zcdp = has(|m| matches!(m, Mechanism::Zcdp { .. }));
    if has_sgm && has_approx && has_zcdp {
        return "no route: subsampled Gaussians are accounted in Rényi DP, which approximate-DP black boxes do not have, or by the PLD accountant, which zCDP black boxes do not have; no theorem implemented here combines all three.".into();
    }
    if has_sgm && has_approx {
        return "no route: only the PLD accountant combines subsampled Gaussians with approximate-DP black boxes, and it certified no bound here.".into();
    }
    if let Some((_, sd, _, _)) = l.approx_totals() {
        if eps_query && d.budget_delta.as_ref().is_some_and(|b| sd >= *b) {
            return format!("ε = ∞: the mechanisms' own δⱼ already sum to {} ≥ the budget δ, so no finite ε can hold at that δ.", show(&sd));
        }
    }
    if eps_query {
        "ε = ∞: no implemented route certifies a finite ε at this δ.".into()
    } else {
        "δ = 1 (trivial): no implemented route certifies δ < 1 at this ε; a pure-DP bound needs ε ≥ Σεⱼ, and the advanced bound needs ε ≥ ½Σεⱼ².".into()
    }
}

/// A one-line "audit: <route>…" on stderr while a slow audit runs (only on a terminal, and only
/// once the audit has taken a second), cleared when the audit ends.
struct Stage {
    on: bool,
    start: std::time::Instant,
    shown: std::cell::Cell<bool>,
}

impl Stage {
    fn new() -> Stage {
        Stage {
            on: crate::progress::stderr_lines(),
            start: std::time::Instant::now(),
            shown: std::cell::Cell::new(false),
        }
    }
    fn enter(&self, name: &str) {
        if self.on && self.start.elapsed().as_secs() >= 1 {
            crate::progress::show(&format!("\raudit: {name}…\x1b[K"));
            self.shown.set(true);
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if self.shown.get() {
            crate::progress::show("\r\x1b[K");
        }
    }
}
