//! `dpcert calibrate dpsgd|gaussian`: the noise (or steps, or rate) that meets an ε target,
//! certified feasible, with a certificate that a value 10⁻³ beyond is infeasible where the
//! route is two-sided.
use super::batch::{Batch, BatchArgs};
use super::{
    count, digits, flagged, form, lower_digits, num, upper_digits, Common, Failure, Reply,
};
use crate::calibrate::{self, Calibration, Evaluation, Parameter};
use crate::dpsgd::{Method, Rate, Run, Sigma, Steps};
use crate::dpsgd::{Relation, Sampling, UserSampling};
use crate::num::Certified;
use crate::{json as contract, validate, Error};
use clap::{Args, Subcommand};
use rug::{Integer, Rational};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Subcommand, Debug, Deserialize)]
#[serde(tag = "subcommand", rename_all = "kebab-case")]
pub enum CalibrateCmd {
    /// DP-SGD: the smallest σ for ε ≤ target (no --sigma); or, with --sigma, the largest number
    /// of steps (no --steps/--epochs) or the largest rate / batch size (no --rate/--batch-size).
    #[command(after_help = super::EXIT_CODES)]
    Dpsgd(Box<DpsgdCal>),
    /// The Gaussian mechanism: the smallest σ for (ε, δ) over K compositions (as `gaussian sigma`).
    #[command(after_help = super::EXIT_CODES)]
    Gaussian(GaussianCal),
}

#[derive(Args, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DpsgdCal {
    /// Target ε (> 0).
    #[arg(long = "target-epsilon", value_name = "E", allow_hyphen_values = true)]
    #[serde(rename = "target_epsilon")]
    target: String,
    /// δ in (0, 1).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: String,
    #[command(flatten)]
    #[serde(flatten)]
    batch: BatchArgs,
    /// Noise multiplier σ (alias --noise-multiplier); given, the steps or the rate is solved for.
    #[arg(
        long,
        visible_alias = "noise-multiplier",
        value_name = "S",
        allow_hyphen_values = true
    )]
    #[serde(alias = "noise_multiplier")]
    sigma: Option<String>,
    /// poisson (default) | shuffled (each example once per epoch; no amplification claimed) |
    /// fixed-size (each step draws exactly B of N without replacement; needs --relation
    /// substitution; calibrated on the Rényi DP upper bound of Wang–Balle–Kasiviswanathan 2019
    /// Theorem 9, one-sided, whatever --method).
    #[arg(long, value_name = "KIND", default_value = form::POISSON)]
    #[serde(default = "form::poisson")]
    sampling: String,
    /// Neighbouring datasets: add-remove (default: one example added or removed) | substitution
    /// (one example replaced). Poisson + substitution calibrates on the two-sided bracket of
    /// the dominating pair gradient +1 vs −1 (`dpcert dpsgd --help`); PLD only.
    #[arg(long, value_name = "REL", default_value = form::ADD_REMOVE)]
    #[serde(default = "form::add_remove")]
    relation: String,
    /// pld (two-sided, default) | rdp (an upper bound only).
    #[arg(long, value_name = "METHOD", default_value = form::PLD)]
    #[serde(default = "form::pld")]
    method: String,
    /// User-level privacy: each user contributes up to K examples (K ≥ 1; 1 = example-level).
    /// See --user-sampling for how batches draw them.
    #[arg(long = "group-size", value_name = "K", default_value = form::ONE)]
    #[serde(rename = "group_size", default = "form::one")]
    group: String,
    /// With --group-size K > 1: users (default) = each USER is Poisson-sampled with all of
    /// their examples (exact: noise multiplier σ/K in the add/remove accountant; two-sided) |
    /// examples = each EXAMPLE is Poisson-sampled on its own (upper bound by group privacy over
    /// K add/remove hops of the PLD accountant; one-sided calibration, reported as
    /// bound_exceeds). --sampling poisson --relation add-remove, --method pld only for examples.
    #[arg(long = "user-sampling", value_name = "HOW", default_value = form::USERS)]
    #[serde(default = "form::users")]
    user_sampling: String,
    #[command(flatten)]
    #[serde(flatten)]
    common: Common,
}

#[derive(Args, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaussianCal {
    #[arg(long = "target-epsilon", value_name = "E", allow_hyphen_values = true)]
    #[serde(rename = "target_epsilon")]
    target: String,
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: String,
    #[arg(
        long,
        value_name = "D",
        default_value = form::ONE,
        allow_hyphen_values = true
    )]
    #[serde(default = "form::one")]
    sensitivity: String,
    #[arg(
        long,
        value_name = "K",
        default_value = form::ONE,
        allow_hyphen_values = true
    )]
    #[serde(default = "form::one")]
    compositions: String,
    #[command(flatten)]
    #[serde(flatten)]
    common: Common,
}

/// The run and the parameter to solve for, from the flags.
fn run_of(c: &DpsgdCal) -> Result<(Run, Parameter), Error> {
    let Batch {
        rate,
        steps,
        epochs,
        dataset,
        ..
    } = c.batch.resolve()?;
    let sigma = c.sigma.as_deref().map(|s| num("--sigma", s)).transpose()?;
    let parameter = match (&sigma, &steps, &rate) {
        (None, Some(_), Some(_)) => Parameter::Sigma,
        (Some(_), None, Some(_)) => Parameter::Steps,
        (Some(_), Some(_), None) => Parameter::Rate,
        (Some(_), Some(_), Some(_)) => {
            return Err(Error::arg(
                "--sigma",
                "with --steps and --rate there is nothing to calibrate; leave one out",
            ))
        }
        _ => {
            return Err(Error::arg(
                "--target-epsilon",
                "give two of: --sigma, --steps/--epochs, --rate/--batch-size",
            ))
        }
    };
    let sampling = flagged(Sampling::parse(&c.sampling))?;
    let relation = flagged(Relation::parse(&c.relation))?;
    let method = match c.method.as_str() {
        "pld" | "rdp" => Method::parse(&c.method)?,
        m => {
            return Err(Error::arg(
                "--method",
                format!("expected pld or rdp, got '{m}'"),
            ))
        }
    };
    let group = count("--group-size", &c.group)?;
    let user_sampling = UserSampling::parse(&c.user_sampling)?;
    // the calibrated parameter's value is a placeholder (1), replaced by the search
    let one = || Rational::from(1);
    let run = Run {
        rate: flagged(Rate::new("rate", rate.unwrap_or_else(one)))?,
        sigma: flagged(Sigma::new("sigma", sigma.unwrap_or_else(one)))?,
        steps: flagged(Steps::new(
            "steps",
            steps.unwrap_or_else(|| Integer::from(1)),
        ))?,
        sampling,
        relation,
        method,
        epochs,
        dataset,
        group,
        user_sampling,
        steps_per_epoch: None,
        uses_per_epoch: None,
        max_batch: None,
    };
    Ok((run, parameter))
}

fn input(c: &DpsgdCal) -> Value {
    let mut v = json!({"target_epsilon": c.target, "delta": c.delta, "sigma": c.sigma,
           "sampling": c.sampling, "relation": c.relation, "method": c.method,
           "group_size": c.group, "user_sampling": c.user_sampling});
    for (k, x) in c.batch.input() {
        v[k] = x;
    }
    v
}

/// One evaluation as data: the run's parameters (exact), the certified ε, route and grid.
fn evaluation_json(e: &Evaluation) -> Value {
    json!({
        "rate": validate::show(&e.run.rate),
        "sigma": validate::show(&e.run.sigma),
        "steps": e.run.steps.to_string(),
        "epsilon": contract::quantity(&e.epsilon),
        "route": e.route,
        "grid": e.grid.as_ref().map(validate::echo),
    })
}

fn result_json(c: &Calibration, comparison: Option<&Evaluation>) -> Value {
    json!({
        "parameter": c.parameter.name(),
        "value": validate::show(&calibrate::value(&c.feasible.run, c.parameter)),
        "target_epsilon": validate::show(&c.target),
        "delta": validate::show(&c.delta),
        "feasible": evaluation_json(&c.feasible),
        "infeasible": c.infeasible.as_ref().map(evaluation_json),
        "bound_exceeds": c.bound_exceeds.as_ref().map(evaluation_json),
        "relative_gap": c.relative_gap().as_ref().map(validate::echo),
        "sampling": c.feasible.run.sampling.name(),
        "relation": c.feasible.run.relation.name(),
        "group_size": c.feasible.run.group.to_string(),
        "user_sampling": c.feasible.run.user_sampling.name(),
        "evaluations": c.evaluations,
        "comparison": comparison.map(evaluation_json),
    })
}

fn words(e: &Certified, n: usize) -> String {
    match e.lower() {
        Some(l) => format!(
            "ε ∈ [{}, {}]",
            lower_digits(l, n),
            upper_digits(e.upper(), n)
        ),
        None => format!("ε ≤ {}", upper_digits(e.upper(), n)),
    }
}

/// The calibration in words, at `n` significant digits.
fn human(c: &Calibration, comparison: Option<&Evaluation>, n: usize) -> String {
    let mut lines = Vec::new();
    let p = c.parameter;
    let f = &c.feasible;
    let show = |e: &Evaluation| validate::show(&calibrate::value(&e.run, p));
    lines.push(format!(
        "{} = {} meets ε ≤ {} at δ = {}: certified {} (q = {}, σ = {}, T = {}; {}{}).",
        p.name(),
        show(f),
        validate::show(&c.target),
        validate::show(&c.delta),
        words(&f.epsilon, n),
        validate::show(&f.run.rate),
        validate::show(&f.run.sigma),
        f.run.steps,
        f.route,
        f.grid
            .as_ref()
            .map(|g| format!(", grid {}", validate::show(g)))
            .unwrap_or_default()
    ));
    if let Some(i) = &c.infeasible {
        let g = c
            .relative_gap()
            .map(|g| validate::show(&g))
            .unwrap_or_default();
        lines.push(format!(
            "  {} = {} does not: certified {} (relative gap {g}).",
            p.name(),
            show(i),
            words(&i.epsilon, n)
        ));
    } else if let Some(i) = &c.bound_exceeds {
        lines.push(format!("  At {} = {} this route's bound exceeds the target ({}); it is an upper bound only, so the exact optimum may lie further.", p.name(), show(i), words(&i.epsilon, n)));
    } else {
        lines.push(String::from(
            "  No infeasibility certificate (end of the range, or none reached).",
        ));
    }
    if let Some(cmp) = comparison {
        lines.push(format!(
            "  For comparison, the same run with Poisson sampling: {} ({}).",
            words(&cmp.epsilon, n),
            cmp.route
        ));
    }
    lines.push(format!("  [{} accountant evaluations]", c.evaluations));
    lines.join("\n")
}

/// Solve a DP-SGD calibration; a shuffled add/remove run also gets the Poisson figure of
/// the same run, as a labelled comparison.
fn solve_dpsgd(c: &DpsgdCal) -> Result<(Calibration, Option<Evaluation>), Error> {
    let target = num("--target-epsilon", &c.target)?;
    let delta = num("--delta", &c.delta)?;
    let (run, p) = run_of(c)?;
    let cal = calibrate::calibrate(&run, p, &target, &delta)?;
    let cmp = if run.sampling == Sampling::Shuffled && run.relation == Relation::AddRemove {
        let mut r = cal.feasible.run.clone();
        r.sampling = Sampling::Poisson;
        calibrate::evaluate(&r, &delta, None).ok()
    } else {
        None
    };
    Ok((cal, cmp))
}

fn gaussian_input(c: &GaussianCal) -> Value {
    json!({"target_epsilon": c.target, "delta": c.delta, "sensitivity": c.sensitivity,
           "compositions": c.compositions})
}

fn solve_gaussian(c: &GaussianCal) -> Result<crate::num::Enclosure, Error> {
    calibrate::gaussian(
        &num("--target-epsilon", &c.target)?,
        &num("--delta", &c.delta)?,
        &num("--sensitivity", &c.sensitivity)?,
        &count("--compositions", &c.compositions)?,
    )
}

fn gaussian_result(e: &crate::num::Enclosure) -> Value {
    json!({"parameter": "sigma", "value": contract::enclosure(e),
           "theorem": "Corollaries 8 and 10 inverted in σ (exact Gaussian composition)"})
}

impl CalibrateCmd {
    /// The flags every command shares.
    pub(super) fn common(&self) -> &Common {
        match self {
            CalibrateCmd::Dpsgd(d) => &d.common,
            CalibrateCmd::Gaussian(g) => &g.common,
        }
    }
}

/// `dpcert calibrate`'s answer: the calibrated parameter, certified feasible, and its
/// infeasibility certificate where the route has one.
pub(super) fn reply(c: &CalibrateCmd) -> Result<Reply, Box<Failure>> {
    match c {
        CalibrateCmd::Dpsgd(d) => {
            let solved = flagged(digits(&d.common).and_then(|n| solve_dpsgd(d).map(|r| (r, n))));
            let ((cal, cmp), n) = solved.map_err(|error| {
                Box::new(Failure {
                    command: "calibrate dpsgd",
                    input: input(d),
                    error,
                })
            })?;
            Ok(Reply {
                command: "calibrate dpsgd",
                input: input(d),
                result: result_json(&cal, cmp.as_ref()),
                text: human(&cal, cmp.as_ref(), n),
            })
        }
        CalibrateCmd::Gaussian(g) => {
            let solved = flagged(digits(&g.common).and_then(|n| solve_gaussian(g).map(|e| (e, n))));
            let (e, n) = solved.map_err(|error| {
                Box::new(Failure {
                    command: "calibrate gaussian",
                    input: gaussian_input(g),
                    error,
                })
            })?;
            Ok(Reply {
                command: "calibrate gaussian",
                input: gaussian_input(g),
                result: gaussian_result(&e),
                text: format!(
                    "σ = {} meets (ε, δ) = ({}, {}); σ = {} does not (certified; Corollaries 8 and 10).",
                    upper_digits(e.upper(), n), g.target, g.delta, lower_digits(e.lower(), n)
                ),
            })
        }
    }
}

/// `audit --calibrate sigma`'s calibration as data (as `calibrate dpsgd`'s points).
pub fn calibration_json(c: &Calibration) -> Value {
    json!({
        "parameter": c.parameter.name(),
        "value": validate::show(&c.feasible.run.sigma),
        "target_epsilon": validate::show(&c.target),
        "delta": validate::show(&c.delta),
        "feasible": evaluation_json(&c.feasible),
        "infeasible": c.infeasible.as_ref().map(evaluation_json),
        "relative_gap": c.relative_gap().as_ref().map(validate::echo),
        "evaluations": c.evaluations,
    })
}

/// `audit --calibrate sigma`'s calibration in words, at `n` significant digits (it precedes
/// the audit's report).
pub fn calibration_text(c: &Calibration, n: usize) -> String {
    let mut t = format!(
        "Calibrated: σ = {} meets the claim's ε ≤ {} at δ = {}: certified {} ({}).\n",
        validate::show(&c.feasible.run.sigma),
        validate::show(&c.target),
        validate::show(&c.delta),
        words(&c.feasible.epsilon, n),
        c.feasible.route
    );
    match &c.infeasible {
        Some(i) => t += &format!("  σ = {} does not: certified {}.\n", validate::show(&i.run.sigma), words(&i.epsilon, n)),
        None if !c.feasible.epsilon.is_two_sided() => {
            t += "  No infeasibility certificate (the route's bound is an upper bound only).\n"
        }
        None => t += "  No infeasibility certificate (the certified bracket is too wide to separate σ from σ(1 − 10⁻³)).\n",
    }
    t + "The audit of the deployment at that σ:\n\n"
}
