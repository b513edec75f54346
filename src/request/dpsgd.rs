//! `dpcert dpsgd`: ε at δ of DP-SGD (Poisson-subsampled Gaussian steps), by the PLD accountant
//! or the RDP route; the run given as q/σ/T, in the ML vocabulary (batch size, dataset size,
//! epochs), or as a schedule of phases.
use super::batch::{conflict, Batch, BatchArgs};
use super::{form, num, Common, QueryCmd};
use crate::dpsgd::{
    self, Accounting, Delta, Method, Phase, Rate, Relation, Route, Run, Sampling, Sigma, Steps,
    UserSampling,
};
use crate::reference::query::{Answer, Dpsgd, Query};
use crate::theorems::random_allocation::{Allocation, TruncatedPoisson};
use crate::validate::echo;
use crate::Error;
use clap::Args;
use rug::{Integer, Rational};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Args, Debug, Deserialize)]
#[command(after_help = super::EXIT_CODES)]
#[serde(deny_unknown_fields)]
pub struct DpsgdArgs {
    #[command(flatten)]
    #[serde(flatten)]
    batch: BatchArgs,
    /// Noise multiplier σ = noise standard deviation / clipping norm (per-example gradient
    /// L2 bound), > 0.
    #[arg(
        long,
        visible_alias = "noise-multiplier",
        value_name = "S",
        allow_hyphen_values = true
    )]
    #[serde(alias = "noise_multiplier")]
    sigma: Option<String>,
    /// One phase of a training schedule as Q,S,T: sampling rate q (e.g. 256/60000), noise
    /// multiplier σ, steps T. Repeat the flag for each phase (e.g. a warm-up at another batch
    /// size or noise); the phases are composed by the PLD accountant (Poisson sampling,
    /// add/remove). Instead of --rate/--batch-size/--dataset-size/--steps/--epochs/--sigma.
    #[arg(long = "phase", value_name = "Q,S,T", allow_hyphen_values = true)]
    #[serde(default)]
    phase: Vec<String>,
    /// Target δ in (0, 1), per example (the privacy unit is one example), e.g. 1e-5; usually
    /// below 1 / dataset size.
    #[arg(
        long,
        value_name = "D",
        allow_hyphen_values = true,
        required_unless_present = "epsilon",
        conflicts_with = "epsilon"
    )]
    delta: Option<String>,
    /// Instead of --delta: the ε ≥ 0 at which to report δ(ε), the smallest δ with (ε, δ)-DP
    /// (the privacy profile read the other way; certified PLD accountant, two-sided; Poisson
    /// sampling, add/remove neighbours, example level; a single run or --phase schedules).
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    epsilon: Option<String>,
    /// pld = the certified PLD accountant (two-sided bracket, both neighbour directions);
    /// rdp = Rényi DP (an upper bound resting on a cited result); best = pld, or rdp where
    /// pld cannot run on automatic settings. --sampling fixed-size: best only (it uses RDP for
    /// the upper end and the PLD accountant for the lower end).
    #[arg(long, value_name = "METHOD", default_value = form::BEST)]
    #[serde(default = "form::best")]
    method: String,
    /// PLD grid width h (privacy losses on the grid i·h; smaller = tighter and slower).
    /// Default: chosen from the composed spread.
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    grid: Option<String>,
    /// PLD tail mass one truncation may move, in (0, 1e-3]. Default: δ·10⁻⁴/(2·steps) (δ·10⁻⁶/(2·steps) with --tight).
    #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
    tail: Option<String>,
    /// The PLD accountant's tight preset: refine the automatic grid (one step to the grid the
    /// first run's width asks for, then halvings, at most three runs) until the bracket is
    /// within 2·10⁻⁵ relative; about 5–7× the default time. Poisson add/remove runs only; not
    /// with --grid or --method rdp.
    #[arg(long)]
    #[serde(default)]
    tight: bool,
    /// poisson (default) | shuffled: each example once per epoch, accounted without
    /// amplification as one Gaussian release per pass over the data (⌈epochs⌉ passes, or
    /// ⌈T/⌊1/q⌋⌉ when given as steps; an upper bound, the Poisson figure printed beside it) |
    /// fixed-size: each step draws exactly B of the N examples without replacement (the rate
    /// q = B/N, from --batch-size/--dataset-size or --rate); --relation substitution only;
    /// two-sided by the PLD accountant: upper from the symmetric dominating pair of one step
    /// (replace-one sensitivity 2), lower from the pairs datasets realise (Poisson add/remove
    /// at σ/2); --method rdp: upper only, Wang–Balle–Kasiviswanathan 2019 Theorem 9.
    ///
    /// balls-and-bins: each epoch every example goes to one of the t steps, uniformly
    /// (t = --steps-per-epoch, or ⌊N/B⌋ from --batch-size/--dataset-size, or ⌊1/q⌋ from
    /// --rate; epochs = --epochs, or ⌈T/t⌉ from --steps); two-sided: upper from a certified
    /// dominating PLD of one epoch composed over the epochs, lower from an explicit
    /// distinguishing event | random-allocation: each example in K of the t steps of every
    /// epoch (--uses-per-epoch K, default 1 = balls-and-bins; K > 1: upper without
    /// amplification) | truncated-poisson: Poisson batches cut at --max-batch-size B (needs
    /// --dataset-size N); the Poisson accountant ± the probability that any batch is cut.
    /// These three: add/remove neighbours, example level; ε at δ, or δ at ε (--epsilon).
    #[arg(long, value_name = "KIND", default_value = form::POISSON)]
    #[serde(default = "form::poisson")]
    sampling: String,
    /// --sampling balls-and-bins / random-allocation: steps per epoch t (an integer ≥ 1).
    #[arg(long = "steps-per-epoch", value_name = "T", allow_hyphen_values = true)]
    steps_per_epoch: Option<String>,
    /// --sampling random-allocation: the K of the t steps of each epoch every example takes
    /// part in, uniformly at random (1 ≤ K ≤ t; default 1).
    #[arg(long = "uses-per-epoch", value_name = "K", allow_hyphen_values = true)]
    uses_per_epoch: Option<String>,
    /// --sampling truncated-poisson: the maximum batch size B (an integer ≥ 1); a step that
    /// draws more than B examples keeps at most B of them.
    #[arg(long = "max-batch-size", value_name = "B", allow_hyphen_values = true)]
    max_batch_size: Option<String>,
    /// Neighbouring datasets: add-remove (default: one example added or removed) |
    /// substitution (one example replaced by another; clipped gradients may then differ by 2).
    /// Poisson + substitution: two-sided, both ends from the certified PLD of the pair
    /// gradient +1 vs −1, which dominates every step and is realised; PLD only. --sampling
    /// fixed-size requires substitution (N is fixed).
    #[arg(long, value_name = "REL", default_value = form::ADD_REMOVE)]
    #[serde(default = "form::add_remove")]
    relation: String,
    /// User-level privacy: the privacy unit is a user who contributes up to K examples to the
    /// training set (K ≥ 1 examples per user, at most 4096; 1 = example-level, the default).
    /// δ and ε are then per user. See --user-sampling for how batches draw the users' examples.
    /// Poisson sampling, add/remove neighbours (one user's examples added or removed) only.
    #[arg(long = "group-size", value_name = "K", default_value = form::ONE)]
    #[serde(rename = "group_size", default = "form::one")]
    group: String,
    /// With --group-size K > 1, how each batch is drawn: users (default) = each USER is
    /// Poisson-sampled at rate q and brings all of their examples (the user's summed clipped
    /// gradient has norm ≤ K: exact, the add/remove run at noise multiplier σ/K) | examples =
    /// each EXAMPLE is Poisson-sampled at rate q on its own, as in ordinary DP-SGD (certified
    /// upper bound by group privacy over K add/remove hops of the PLD accountant; the lower
    /// end is one example's, so the bracket is wide). PLD only for examples.
    #[arg(long = "user-sampling", value_name = "HOW", default_value = form::USERS)]
    #[serde(default = "form::users")]
    user_sampling: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub(super) common: Common,
}

/// The run the flags describe.
enum Spec {
    /// One (q, σ, T), with the ML quantities it was stated in.
    Single { sigma: Rational, batch: Batch },
    /// A schedule of phases.
    Phases(Vec<Phase>),
}

/// One `--phase Q,S,T`, checked: q ∈ (0, 1], σ > 0, T an integer ≥ 1.
fn parse_phase(text: &str) -> Result<Phase, Error> {
    let bad = |why: String| Error::arg("--phase", format!("`{text}`: {why}"));
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let [q, s, t] = parts[..] else {
        return Err(bad(
            "expected Q,S,T (rate, noise multiplier, steps), e.g. 256/60000,1.1,2000".into(),
        ));
    };
    let rate = crate::num::parse_exact(q).map_err(|e| bad(format!("rate Q: {e}")))?;
    if rate <= 0 || rate > 1 {
        return Err(bad(format!("rate Q must be in (0, 1], got {q}")));
    }
    let sigma = crate::num::parse_exact(s).map_err(|e| bad(format!("noise multiplier S: {e}")))?;
    if sigma <= 0 {
        return Err(bad(format!("noise multiplier S must be > 0, got {s}")));
    }
    let steps = crate::num::parse_positive_integer(t).map_err(|e| bad(format!("steps T: {e}")))?;
    Ok(Phase { rate, sigma, steps })
}

impl DpsgdArgs {
    /// The run: --phase, or q/T from either vocabulary and σ; conflicts and gaps name the flags.
    fn spec(&self) -> Result<Spec, Error> {
        if !self.phase.is_empty() {
            if let Some(f) = self.batch.any() {
                return Err(conflict("--phase", f));
            }
            if self.sigma.is_some() {
                return Err(conflict("--phase", "--sigma"));
            }
            let phases = self
                .phase
                .iter()
                .map(|p| parse_phase(p))
                .collect::<Result<_, _>>()?;
            return Ok(Spec::Phases(phases));
        }
        let batch = self.batch.resolve()?;
        if batch.rate.is_none() {
            return Err(Error::arg(
                "--rate",
                "is missing: give --rate, or --batch-size with --dataset-size, or --phase",
            ));
        }
        if batch.steps.is_none() {
            return Err(Error::arg("--steps", "is missing: give --steps, or --epochs with --batch-size and --dataset-size, or --phase"));
        }
        let sigma = match &self.sigma {
            Some(s) => num("--sigma", s)?,
            None => {
                return Err(Error::arg(
                    "--sigma",
                    "is missing (the noise multiplier; alias --noise-multiplier)",
                ))
            }
        };
        Ok(Spec::Single { sigma, batch })
    }

    /// (q, T, σ) of a single run (after `spec` succeeded).
    fn single(&self) -> Option<(Rational, Integer, Rational, Batch)> {
        match self.spec().ok()? {
            Spec::Single { sigma, batch } => {
                Some((batch.rate.clone()?, batch.steps.clone()?, sigma, batch))
            }
            Spec::Phases(_) => None,
        }
    }

    /// --group-size K (checked: 1 ≤ K ≤ 4096) and --user-sampling (checked even when K = 1).
    fn group_size(&self) -> Result<u32, Error> {
        UserSampling::parse(&self.user_sampling)?;
        let max = crate::theorems::pld_accountant::MAX_GROUP;
        let k = super::count("--group-size", &self.group)?;
        k.to_u32().filter(|k| (1..=max).contains(k)).ok_or_else(|| {
            Error::arg(
                "--group-size",
                format!(
                    "must be an integer in [1, {max}] (examples per user), got {}",
                    self.group
                ),
            )
        })
    }

    /// The single run the flags state (sampler, relation, group, method and the numbers,
    /// each checked where it is read); user-level accounting (K > 1) is offered for Poisson
    /// sampling with add/remove neighbours only.
    fn run(&self, sigma: Rational, batch: Batch, method: Method) -> Result<Run, Error> {
        let k = self.group_size()?;
        let (sampling, relation) = self.sampler()?;
        if k > 1 && (sampling, relation) != (Sampling::Poisson, Relation::AddRemove) {
            return Err(Error::arg("--group-size", "user-level accounting (K > 1) is available for --sampling poisson --relation add-remove only"));
        }
        Ok(Run {
            rate: Rate::new("rate", batch.rate.unwrap_or_default())?,
            sigma: Sigma::new("sigma", sigma)?,
            steps: Steps::new("steps", batch.steps.unwrap_or_default())?,
            sampling,
            relation,
            method,
            epochs: batch.epochs,
            dataset: batch.dataset,
            group: Integer::from(k),
            user_sampling: UserSampling::parse(&self.user_sampling)?,
            steps_per_epoch: None,
            uses_per_epoch: None,
            max_batch: None,
        })
    }

    fn sampler(&self) -> Result<(Sampling, Relation), Error> {
        let sampling = Sampling::parse(&self.sampling).map_err(|e| relabel(e, "--sampling"))?;
        let relation = Relation::parse(&self.relation).map_err(|e| relabel(e, "--relation"))?;
        Ok((sampling, relation))
    }

    /// A schedule runs on the PLD accountant, Poisson sampling, add/remove neighbours.
    fn phases_query(&self, phases: Vec<Phase>, delta: Rational) -> Result<Query, Error> {
        match self.sampler()? {
            (Sampling::Poisson, Relation::AddRemove) => {}
            (Sampling::Poisson, _) => {
                return Err(Error::arg(
                    "--relation",
                    "--phase schedules are accounted for add/remove neighbours only",
                ))
            }
            _ => {
                return Err(Error::arg(
                    "--sampling",
                    "--phase schedules are accounted with Poisson sampling only",
                ))
            }
        }
        if Method::parse(&self.method)? == Method::Rdp {
            return Err(Error::arg(
                "--method",
                "--phase schedules run on the PLD accountant only (pld or best)",
            ));
        }
        Ok(Query::DpsgdPhases {
            phases,
            delta: Delta::new("delta", delta)?,
            grid: self.grid()?,
            tail: self.tail()?,
        })
    }
}

fn relabel(e: Error, flag: &str) -> Error {
    match e {
        Error::InvalidArgument { reason, .. } => Error::arg(flag, reason),
        other => other,
    }
}

fn phases_json(phases: &[Phase]) -> Value {
    phases
        .iter()
        .map(|p| json!({"rate": echo(&p.rate), "sigma": echo(&p.sigma), "steps": p.steps.to_string()}))
        .collect()
}

impl QueryCmd for DpsgdArgs {
    fn command(&self) -> &'static str {
        "dpsgd"
    }
    /// `--tight`: the bracket's relative width against the preset's 2·10⁻⁵ (display only: the
    /// width is measured in f64 from the certified ends).
    fn promise(&self, a: &Answer) -> Option<(&'static str, Value, Option<String>)> {
        let lower = a.value.lower().filter(|_| self.tight)?.to_f64();
        let upper = a.value.upper().to_f64();
        let width = if upper > 0.0 {
            (upper - lower) / upper
        } else {
            f64::INFINITY
        };
        let promised = crate::theorems::pld_accountant::TIGHT_WIDTH;
        let met = width <= promised;
        let shown = format!("{width:.1e}");
        let warning = (!met).then(|| format!(
            "--tight promises a bracket within {promised:e} relative; this one is {shown} wide (the preset's work limit stopped the refinement; a finer --grid without --tight costs more time)"
        ));
        Some((
            "tight_width",
            json!({"promised": format!("{promised:e}"), "relative_width": shown, "met": met}),
            warning,
        ))
    }
    fn common(&self) -> &Common {
        &self.common
    }
    fn input(&self) -> Value {
        let mut v = json!({"sigma": self.sigma, "phase": self.phase,
               "delta": self.delta, "method": self.method, "grid": self.grid, "tail": self.tail,
               "tight": self.tight,
               "sampling": self.sampling, "relation": self.relation,
               "group_size": self.group, "user_sampling": self.user_sampling,
               "steps_per_epoch": self.steps_per_epoch, "uses_per_epoch": self.uses_per_epoch,
               "max_batch_size": self.max_batch_size,
               "precision": self.common.precision});
        for (k, x) in self.batch.input() {
            v[k] = x;
        }
        if let Some(e) = &self.epsilon {
            v["epsilon"] = json!(e);
        }
        v
    }
    fn to_query(&self) -> Result<Query, Error> {
        // clap enforces these for flags; a request (serde) is checked here
        match (&self.delta, &self.epsilon) {
            (Some(_), Some(_)) => return Err(conflict("--delta", "--epsilon")),
            (None, None) => {
                return Err(Error::arg(
                    "--delta",
                    "is missing: give --delta (ε at δ) or --epsilon (δ at ε)",
                ))
            }
            _ => {}
        }
        if let Some(run) = self.allocated_run()? {
            let accounting = Accounting {
                grid: self.grid()?,
                tail: self.tail()?,
                tight: self.tight,
                ..Accounting::default()
            };
            return Ok(match &self.epsilon {
                Some(e) => Query::DpsgdRunDelta {
                    run,
                    epsilon: num("--epsilon", e)?,
                    accounting,
                },
                None => Query::Dpsgd(Dpsgd {
                    run,
                    delta: Delta::new(
                        "delta",
                        num("--delta", self.delta.as_deref().unwrap_or_default())?,
                    )?,
                    accounting,
                }),
            });
        }
        let spec = self.spec()?;
        if let Some(e) = &self.epsilon {
            return self.delta_query(spec, num("--epsilon", e)?);
        }
        let delta = num("--delta", self.delta.as_deref().unwrap_or_default())?;
        let method = Method::parse(&self.method)?;
        let accounting = Accounting {
            grid: self.grid()?,
            tail: self.tail()?,
            tight: self.tight,
            ..Accounting::default()
        };
        match spec {
            Spec::Phases(phases) => {
                if self.group_size()? > 1 {
                    return Err(Error::arg(
                        "--group-size",
                        "--phase schedules are accounted at example level only (group size 1)",
                    ));
                }
                if self.tight {
                    return Err(Error::arg(
                        "--tight",
                        "is implemented for single Poisson add/remove runs, not --phase schedules",
                    ));
                }
                self.phases_query(phases, delta)
            }
            Spec::Single { sigma, batch } => Ok(Query::Dpsgd(Dpsgd {
                run: self.run(sigma, batch, method)?,
                delta: Delta::new("delta", delta)?,
                accounting,
            })),
        }
    }
    fn asked(&self) -> String {
        if let Ok(Some(run)) = self.allocated_run() {
            return allocated_asked(
                &run,
                &self.asked_at(),
                self.sigma.as_deref().unwrap_or_default(),
            );
        }
        let Some((q, t, s, b)) = self.single() else {
            let list: Vec<String> = self.phase.iter().map(|p| format!("({p})")).collect();
            return format!(
                "The {} of DP-SGD in {} phases (q, σ, T) = {}",
                self.asked_at(),
                self.phase.len(),
                list.join(", ")
            );
        };
        let rate = match (&b.batch, &b.dataset) {
            (Some(bs), Some(n)) => format!("q = B/N = {bs}/{n}"),
            _ => format!("q = {}", echo(&q)),
        };
        let steps = match (&b.epochs, &b.steps) {
            (Some(_), _) if self.batch.steps.is_none() => format!(
                "{} epochs (T = ⌈epochs·N/B⌉ = {t} steps)",
                self.batch.epochs.as_deref().unwrap_or_default()
            ),
            _ => format!("{t} steps"),
        };
        let sigma = self.sigma.clone().unwrap_or_else(|| echo(&s));
        format!(
            "The {} of DP-SGD with {rate}, σ = {sigma}, {steps}",
            self.asked_at()
        )
    }
    fn details(&self) -> Vec<(&'static str, Value)> {
        if let Some((q, t, _, _)) = self.single() {
            return vec![("rate", json!(echo(&q))), ("steps", json!(t.to_string()))];
        }
        match self.spec() {
            Ok(Spec::Phases(p)) => vec![("phases", phases_json(&p))],
            _ => vec![],
        }
    }
    fn note(&self, a: &Answer) -> String {
        let route = self
            .allocated_run()
            .ok()
            .flatten()
            .and_then(|run| dpsgd::route(&run, &Accounting::default()).ok());
        match route {
            Some(route @ (Route::BallsAndBins | Route::RandomAllocation)) => {
                let upper = if route == Route::BallsAndBins {
                    "upper from a certified dominating PLD of one epoch composed over the epochs"
                } else {
                    "upper without amplification (the Gaussian composition of the k·epochs releases)"
                };
                return format!(" (random allocation, add/remove: {upper}; lower from a distinguishing event of the realisable pair)");
            }
            Some(Route::TruncatedPoisson) => {
                let eta = a
                    .details
                    .iter()
                    .find(|(n, _)| *n == "truncation_probability")
                    .and_then(|(_, v)| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                return format!(" (truncated Poisson, add/remove: the certified Poisson accountant with δ moved by η(1 + e^ε), η = {eta} ≥ P[some batch is cut])");
            }
            _ => {}
        }
        if self.group.trim() != "1" {
            let route = a
                .details
                .iter()
                .find(|(n, _)| *n == "group_route")
                .and_then(|(_, v)| v.as_str().map(str::to_string))
                .unwrap_or_default();
            return format!(
                " (user-level, each user contributes up to {} examples; {route})",
                self.group.trim()
            );
        }
        if self.sampling == "fixed-size" {
            let detail = |k: &str| {
                a.details
                    .iter()
                    .find(|(n, _)| *n == k)
                    .and_then(|(_, v)| v.as_str().map(str::to_string))
            };
            return match (detail("grid"), detail("order")) {
                (Some(h), _) => format!(" (fixed-size batches, substitution neighbours: certified PLD accountant, grid {h}; upper from the symmetric dominating pair of one step, sensitivity 2; lower from the pairs datasets realise, the Poisson add/remove pairs at σ/2)"),
                (None, order) => format!(" (fixed-size batches, substitution neighbours: upper by Rényi DP at order {}, Wang–Balle–Kasiviswanathan 2019 Theorem 9 with sensitivity 2)", order.unwrap_or_default()),
            };
        }
        if self.sampling != "poisson" {
            return self.shuffled_note();
        }
        if self.relation == "substitution" {
            return " (Poisson, substitution neighbours: both ends from the certified PLD of the pair (1−q)N(0,σ²)+qN(1,σ²) vs (1−q)N(0,σ²)+qN(−1,σ²), dominating and realised)".to_string();
        }
        let detail = |k: &str| {
            a.details
                .iter()
                .find(|(n, _)| *n == k)
                .and_then(|(_, v)| v.as_str().map(str::to_string))
        };
        match (detail("grid"), detail("order")) {
            (Some(h), _) => format!(" (certified PLD accountant, grid {h})"),
            (None, Some(alpha)) => format!(
                " (RDP at order {alpha}; rests on a cited result: {})",
                a.value.rests_on().unwrap_or("none")
            ),
            _ => String::new(),
        }
    }
}

impl DpsgdArgs {
    /// "ε at δ = D" or, with --epsilon, "δ at ε = E".
    fn asked_at(&self) -> String {
        match (&self.epsilon, &self.delta) {
            (Some(e), _) => format!("δ at ε = {e}"),
            (None, d) => format!("ε at δ = {}", d.as_deref().unwrap_or_default()),
        }
    }

    /// `--epsilon E`: δ(E) by the PLD accountant, for Poisson add/remove runs at example level
    /// (a single run is one phase); other settings are refused naming the flag.
    fn delta_query(&self, spec: Spec, epsilon: Rational) -> Result<Query, Error> {
        let only = |flag: &str, what: &str| {
            Err(Error::arg(
                flag,
                format!("δ at ε (--epsilon) is certified for {what} only"),
            ))
        };
        if self.sampler()? != (Sampling::Poisson, Relation::AddRemove) {
            return only("--sampling", "Poisson sampling with add/remove neighbours");
        }
        if self.group_size()? > 1 {
            return only("--group-size", "example-level runs (group size 1)");
        }
        if Method::parse(&self.method)? == Method::Rdp || self.tight {
            return only(
                if self.tight { "--tight" } else { "--method" },
                "the PLD accountant on its default or given grid (--method pld or best)",
            );
        }
        let phases = match spec {
            Spec::Phases(p) => p,
            Spec::Single { sigma, batch } => vec![Phase {
                rate: batch.rate.unwrap_or_default(),
                sigma,
                steps: batch.steps.unwrap_or_default(),
            }],
        };
        Ok(Query::DpsgdDelta {
            phases,
            epsilon,
            grid: self.grid()?,
            tail: self.tail()?,
        })
    }

    /// `--grid`, exact.
    fn grid(&self) -> Result<Option<Rational>, Error> {
        self.grid.as_deref().map(|g| num("--grid", g)).transpose()
    }

    /// `--tail`, exact.
    fn tail(&self) -> Result<Option<Rational>, Error> {
        self.tail.as_deref().map(|t| num("--tail", t)).transpose()
    }

    /// The shuffled answer's note: what was counted, and the Poisson figure beside it (a
    /// labelled comparison, from the PLD accountant).
    fn shuffled_note(&self) -> String {
        let Some((q, t, s, b)) = self.single() else {
            return String::new();
        };
        let run = Run::checked(q, s, t).ok().map(|mut run| {
            run.epochs = b.epochs;
            run
        });
        let passes = run
            .as_ref()
            .map(|run| Run {
                sampling: Sampling::Shuffled,
                ..run.clone()
            })
            .and_then(|run| run.passes().ok())
            .map(|k| k.to_string())
            .unwrap_or_default();
        let d = self.delta.as_deref().and_then(|d| num("--delta", d).ok());
        let poisson = d.zip(run).and_then(|(d, run)| {
            let d = Delta::new("delta", d).ok()?;
            let r = dpsgd::epsilon(&run, &d, &Accounting::default()).ok()?;
            let e = r.pld?.enclosure;
            Some(format!(
                "; for comparison, Poisson sampling (add/remove) would give ε ∈ [{}, {}]",
                super::lower_digits(e.lower(), 8),
                super::upper_digits(e.upper(), 8)
            ))
        });
        format!(
            " (shuffled epochs without amplification, {} relation: each pass over the data is one Gaussian release per example, {passes} passes; an upper bound for shuffled batches, exact only if the batch assignment were revealed{})",
            self.relation,
            poisson.unwrap_or_default()
        )
    }
}

/// The samplers of `theorems::random_allocation`: their flags read and checked into a
/// `dpsgd::Run` (`dpsgd::route` refuses what their accountants do not cover).
impl DpsgdArgs {
    /// `--sampling balls-and-bins | random-allocation | truncated-poisson`: the run; other
    /// samplers: None (and these samplers' flags are refused).
    fn allocated_run(&self) -> Result<Option<Run>, Error> {
        let kind = self.sampling.trim();
        let alloc = matches!(kind, "balls-and-bins" | "random-allocation");
        let trunc = matches!(kind, "truncated-poisson" | "truncated");
        self.refuse_other_samplers_flags(kind, alloc, trunc)?;
        if !alloc && !trunc {
            return Ok(None);
        }
        if !self.phase.is_empty() {
            return Err(conflict("--phase", "--sampling"));
        }
        let relation = Relation::parse(&self.relation).map_err(|e| relabel(e, "--relation"))?;
        let group = Integer::from(self.group_size()?);
        let method = Method::parse(&self.method)?;
        let sigma = match &self.sigma {
            Some(s) => num("--sigma", s)?,
            None => {
                return Err(Error::arg(
                    "--sigma",
                    "is missing (the noise multiplier; alias --noise-multiplier)",
                ))
            }
        };
        let batch = self.allocated_batch(alloc, kind)?;
        let run = if alloc {
            self.allocation_run(sigma, batch, kind)?
        } else {
            self.truncated_run(sigma, batch)?
        };
        let sampling = match kind {
            "balls-and-bins" => Sampling::BallsAndBins,
            "random-allocation" => Sampling::RandomAllocation,
            _ => Sampling::TruncatedPoisson,
        };
        Ok(Some(Run {
            sampling,
            relation,
            method,
            group,
            user_sampling: UserSampling::parse(&self.user_sampling)?,
            ..run
        }))
    }
    /// Refuse a flag of another sampler (`--steps-per-epoch`, `--uses-per-epoch`,
    /// `--max-batch-size`).
    fn refuse_other_samplers_flags(
        &self,
        kind: &str,
        alloc: bool,
        trunc: bool,
    ) -> Result<(), Error> {
        for (flag, given, ok) in [
            ("--steps-per-epoch", self.steps_per_epoch.is_some(), alloc),
            (
                "--uses-per-epoch",
                self.uses_per_epoch.is_some(),
                kind == "random-allocation",
            ),
            ("--max-batch-size", self.max_batch_size.is_some(), trunc),
        ] {
            if given && !ok {
                return Err(Error::arg(
                    flag,
                    format!(
                        "applies to --sampling {} only",
                        match flag {
                            "--max-batch-size" => "truncated-poisson",
                            "--uses-per-epoch" => "random-allocation",
                            _ => "balls-and-bins or random-allocation",
                        }
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The run's batch flags: the steps per epoch (or what gives them) are required for random
    /// allocation, which may also be given as `--steps-per-epoch` with `--epochs` or `--steps`.
    fn allocated_batch(&self, alloc: bool, kind: &str) -> Result<Batch, Error> {
        if alloc
            && self.steps_per_epoch.is_none()
            && self.batch.rate.is_none()
            && (self.batch.batch.is_none() || self.batch.dataset.is_none())
        {
            return Err(Error::arg("--steps-per-epoch", format!("is missing: --sampling {kind} needs the steps per epoch t (or --batch-size with --dataset-size, t = ⌊N/B⌋, or --rate, t = ⌊1/q⌋)")));
        }
        // random allocation may be given as --steps-per-epoch with --epochs or --steps alone
        let plain = self.steps_per_epoch.is_some()
            && self.batch.batch.is_none()
            && self.batch.dataset.is_none()
            && self.batch.rate.is_none();
        Ok(if alloc && plain {
            if let (Some(_), Some(_)) = (&self.batch.epochs, &self.batch.steps) {
                return Err(conflict("--epochs", "--steps"));
            }
            Batch {
                epochs: self
                    .batch
                    .epochs
                    .as_deref()
                    .map(|e| num("--epochs", e))
                    .transpose()?,
                steps: self
                    .batch
                    .steps
                    .as_deref()
                    .map(|t| super::count("--steps", t))
                    .transpose()?,
                ..Batch::default()
            }
        } else {
            self.batch.resolve()?
        })
    }

    /// t, K and the epochs of a random-allocation run.
    fn allocation_run(&self, sigma: Rational, b: Batch, kind: &str) -> Result<Run, Error> {
        let steps = match (&self.steps_per_epoch, &b.batch, &b.dataset, &b.rate) {
            (Some(t), ..) => super::count("--steps-per-epoch", t)?,
            (None, Some(bs), Some(n), _) => Integer::from(n / bs),
            (None, _, _, Some(q)) => Integer::from(Rational::from(q.recip_ref()).floor_ref()),
            _ => return Err(Error::arg("--steps-per-epoch", format!("is missing: --sampling {kind} needs the steps per epoch t (or --batch-size with --dataset-size, t = ⌊N/B⌋, or --rate, t = ⌊1/q⌋)"))),
        };
        if steps < 1 {
            return Err(Error::arg(
                "--steps-per-epoch",
                format!(
                    "must be at least 1, got {steps} (the batch size exceeds the dataset size)"
                ),
            ));
        }
        let selected = match (&self.uses_per_epoch, kind) {
            (Some(k), _) => super::count("--uses-per-epoch", k)?,
            (None, _) => Integer::from(1),
        };
        let epochs = match (&b.epochs, &b.steps) {
            (Some(e), _) if self.batch.steps.is_none() => {
                if e.denom() != &1 {
                    return Err(Error::arg(
                        "--epochs",
                        format!(
                            "--sampling {kind} allocates whole epochs: give an integer, got {}",
                            crate::validate::echo(e)
                        ),
                    ));
                }
                e.numer().clone()
            }
            (_, Some(t)) => (Integer::from(t + &steps) - 1u32) / &steps,
            _ => {
                return Err(Error::arg(
                    "--epochs",
                    format!(
                        "is missing: --sampling {kind} needs --epochs E (or --steps T, E = ⌈T/t⌉)"
                    ),
                ))
            }
        };
        let allocation = Allocation {
            sigma,
            steps,
            selected,
            epochs,
        };
        Run::allocation(allocation).map_err(|e| match e {
            Error::InvalidArgument { name, reason } => Error::arg(
                &match name.as_str() {
                    "selected" => "--uses-per-epoch".to_string(),
                    n => format!("--{n}"),
                },
                reason,
            ),
            other => other,
        })
    }

    /// q, σ, T, N and B of a truncated-Poisson run.
    fn truncated_run(&self, sigma: Rational, b: Batch) -> Result<Run, Error> {
        let max_batch = match &self.max_batch_size {
            Some(m) => super::count("--max-batch-size", m)?,
            None => {
                return Err(Error::arg(
                    "--max-batch-size",
                    "is missing: --sampling truncated-poisson needs the maximum batch size B",
                ))
            }
        };
        let Some(dataset_size) = b.dataset.clone() else {
            return Err(Error::arg("--dataset-size", "is missing: --sampling truncated-poisson needs the dataset size N (the truncation probability depends on it)"));
        };
        let (Some(rate), Some(steps)) = (b.rate.clone(), b.steps.clone()) else {
            return Err(Error::arg("--steps", "is missing: give --rate (or --batch-size with --dataset-size) and --steps (or --epochs)"));
        };
        Run::truncated(TruncatedPoisson {
            rate,
            sigma,
            steps,
            dataset_size,
            max_batch,
        })
    }
}

/// The question of a random-allocation or truncated-Poisson run, in words.
fn allocated_asked(run: &Run, at: &str, sigma: &str) -> String {
    match (run.as_allocation(), run.as_truncated()) {
        (Ok(a), _) if run.sampling != Sampling::TruncatedPoisson => format!(
            "The {at} of DP-SGD with random allocation (each example in {} of the t = {} steps of each epoch), σ = {}, {} epochs",
            a.selected, a.steps, sigma.trim(), a.epochs
        ),
        (_, Ok(r)) => format!(
            "The {at} of DP-SGD with truncated Poisson sampling, q = {}, σ = {}, {} steps, N = {}, batches cut at B = {}",
            echo(&r.rate), sigma.trim(), r.steps, r.dataset_size, r.max_batch
        ),
        _ => String::new(),
    }
}
