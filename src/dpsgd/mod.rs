//! One DP-SGD run and the one dispatch that accounts it.
//!
//! A [`Run`] is a training run as the user states it: the sampling rate (or batch and dataset
//! sizes), the noise multiplier σ, the steps (or epochs), how batches are drawn ([`Sampling`]),
//! which neighbours ([`Relation`]), how many examples a user contributes, and which accountant
//! ([`Method`]) certifies it. [`route()`] reads the run once and names the theorem that answers
//! it ([`Route`]); [`epsilon`] evaluates that theorem for ε at δ, and [`schedule_epsilon`] /
//! [`schedule_delta`] account a schedule of [`Phase`]s. Calibration (`calibrate`), the audit's
//! DP-SGD routes, the reference queries (`reference::query`), the command line and the Python
//! package all go through here: none of them chooses a theorem for a sampler itself.
//!
//! **Adding a sampler.** A variant of [`Sampling`] (its name and parse, in
//! `theorems/sampling.rs`), its theorem function under `theorems/` with its proof note, a
//! variant of [`Route`] with the theorem it rests on, and one arm in [`route()`] and in
//! [`epsilon`]'s `match route` (the evaluation). Nothing outside this module changes.
//!
//! Layering: `num` → `theorems` → `dpsgd` → `calibrate` / `audit` / `reference` → `cli` /
//! python. This module imports the theorem functions and nothing above them.
mod inputs;
pub mod route;

pub use crate::theorems::sampling::{Relation, Sampling, UserSampling};
pub use crate::theorems::schedule::Phase;
pub use inputs::{Delta, Rate, Sigma, Steps};
pub use route::{epsilon, route, schedule_delta, schedule_epsilon, Accountant, Epsilon, Route};

use crate::num::Precision;
use crate::theorems::pld_accountant::PldOptions;
use crate::{validate, Error, Result};
use rug::{Integer, Rational};

/// Which accountant certifies a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The two-sided PLD accountant (Theorem 9 on a certified grid); its failures are errors.
    Pld,
    /// Rényi DP converted to (ε, δ): an upper bound resting on a cited domination result.
    Rdp,
    /// The PLD accountant, or RDP where the PLD accountant cannot run on automatic settings.
    Best,
}

impl Method {
    /// The command-line spelling: `pld`, `rdp` or `best`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Pld => "pld",
            Method::Rdp => "rdp",
            Method::Best => "best",
        }
    }
    /// `rdp`, `pld` or `best`; anything else is an error naming `method`.
    pub fn parse(text: &str) -> Result<Method> {
        match text {
            "rdp" => Ok(Method::Rdp),
            "pld" => Ok(Method::Pld),
            "best" => Ok(Method::Best),
            m => Err(Error::arg(
                "method",
                format!("`{m}` is not rdp, pld or best"),
            )),
        }
    }
}

/// A DP-SGD run: rate q (= B/N), noise multiplier σ, T steps, how batches are drawn, which
/// neighbours, which accountant, and (for user-level privacy) how many examples one user may
/// contribute.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Sampling rate q = B/N in (0, 1], exact.
    pub rate: Rate,
    /// Noise multiplier σ (noise std / clipping norm), > 0.
    pub sigma: Sigma,
    /// Number of steps T ≥ 1.
    pub steps: Steps,
    /// How batches are drawn (Poisson, shuffled or fixed-size).
    pub sampling: Sampling,
    /// The neighbouring relation (add/remove or substitution).
    pub relation: Relation,
    /// Which accountant certifies the run.
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
    pub fn poisson(rate: Rate, sigma: Sigma, steps: Steps) -> Run {
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

    /// [`Run::poisson`] from exact values, checked here (the errors name `rate`, `sigma` and
    /// `steps`).
    pub fn checked(rate: Rational, sigma: Rational, steps: Integer) -> Result<Run> {
        Ok(Run::poisson(
            Rate::new("rate", rate)?,
            Sigma::new("sigma", sigma)?,
            Steps::new("steps", steps)?,
        ))
    }

    /// How many times one example is used by a shuffled run: once per pass, ⌈epochs⌉ passes
    /// when the run was stated in epochs, else ⌈T/⌊1/q⌋⌉ (an epoch has at least ⌊N/B⌋ steps,
    /// so T steps start at most that many passes).
    pub fn passes(&self) -> Result<Integer> {
        if let Some(e) = &self.epochs {
            validate::positive("epochs", e)?;
            return Ok(e.clone().ceil().numer().clone());
        }
        let per_epoch = Rational::from(self.rate.recip_ref())
            .floor()
            .numer()
            .clone();
        let per_epoch = per_epoch.max(Integer::from(1));
        Ok(Rational::from((Integer::from(&*self.steps), per_epoch))
            .ceil()
            .numer()
            .clone())
    }

    /// Is this the plain run: Poisson sampling, add/remove neighbours, example level?
    pub fn is_plain(&self) -> bool {
        self.sampling == Sampling::Poisson
            && self.relation == Relation::AddRemove
            && self.group == 1
    }
}

/// q = B/N and T = ⌈epochs·N/B⌉ from the ML vocabulary, checked: B ≥ 1, N ≥ 1, B ≤ N,
/// epochs > 0 (so T ≥ 1).
pub fn steps_from_epochs(
    epochs: &Rational,
    batch: &Integer,
    dataset: &Integer,
) -> Result<(Rate, Steps)> {
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
    Ok((Rate::new("rate", rate)?, Steps::new("epochs", steps)?))
}

/// How the accountants run: the PLD grid and tail (automatic when `None`), the PLD
/// accountant's tight preset, progress lines on stderr, and the MPFR precision of the
/// closed-form and RDP routes.
#[derive(Clone, Debug, PartialEq)]
pub struct Accounting {
    /// PLD grid width h (automatic when `None`).
    pub grid: Option<Rational>,
    /// PLD tail mass per truncation (automatic when `None`).
    pub tail: Option<Rational>,
    /// The PLD accountant's tight preset ([`PldOptions::tight`]): Poisson add/remove runs on
    /// the automatic grid only.
    pub tight: bool,
    /// The PLD accountant may print progress lines on stderr.
    pub progress: bool,
    /// Precision of the RDP and closed-form routes.
    pub precision: Precision,
}

impl Default for Accounting {
    fn default() -> Accounting {
        Accounting {
            grid: None,
            tail: None,
            tight: false,
            progress: false,
            precision: Precision::Auto,
        }
    }
}

impl Accounting {
    /// The PLD accountant's settings.
    #[allow(
        clippy::needless_update,
        reason = "PldOptions may gain fields; a new one takes its default here"
    )]
    pub fn pld_options(&self) -> PldOptions {
        PldOptions {
            tight: self.tight,
            grid: self.grid.clone(),
            tail: self.tail.clone(),
            progress: self.progress,
            ..Default::default()
        }
    }
    /// Did the user choose a PLD setting (so the PLD accountant's errors are the answer)?
    fn chose_pld_settings(&self) -> bool {
        self.grid.is_some() || self.tail.is_some() || self.tight
    }
}
