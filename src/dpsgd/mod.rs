//! One DP-SGD run and the one dispatch that accounts it.
//!
//! A [`Run`] is a training run as the user states it: the sampling rate (or batch and dataset
//! sizes), the noise multiplier σ, the steps (or epochs), how batches are drawn ([`Sampling`]),
//! which neighbours ([`Relation`]), how many examples a user contributes, and which accountant
//! ([`Method`]) certifies it. [`route()`] reads the run once and names the theorem that answers
//! it ([`Route`]); [`epsilon`] evaluates that theorem for ε at δ ([`delta`]: δ at ε where the
//! route reads both ways), and [`schedule_epsilon`] /
//! [`schedule_delta`] account a schedule of [`Phase`]s. Calibration (`calibrate`), the audit's
//! DP-SGD routes, the reference queries (`reference::query`), the command line and the Python
//! package all go through here: none of them chooses a theorem for a sampler itself.
//!
//! **Adding a sampler.** Its theorem function under `theorems/` with its proof note and
//! tests; here, a variant of [`Sampling`] (`sampling.rs`), its parameters as fields of
//! [`Run`] if it has new ones, a variant of [`Route`] with the theorem it rests on and the
//! facts its answer reports ([`Route::facts`]), one arm in [`route()`] (with the refusals of
//! what the theorem does not cover) and one in [`epsilon`] (and in [`delta`] if the theorem
//! reads δ at ε). Outside this module only the faces change: the command line's flags for new
//! parameters (`cli/dpsgd.rs`, which a request reads too) and the sentence it prints.
//!
//! Layering: `num` → `theorems` → `dpsgd` → `calibrate` / `audit` / `reference` → `cli` /
//! python. This module imports the theorem functions and nothing above them.
pub mod route;
mod sampling;

pub use crate::theorems::sampling::{Relation, UserSampling};
pub use crate::theorems::schedule::Phase;
pub use crate::validated::{Delta, Rate, Sigma, Steps};
pub use route::{
    delta, epsilon, route, schedule_delta, schedule_epsilon, Accountant, Epsilon, Route,
};
pub use sampling::Sampling;

use crate::num::Precision;
use crate::theorems::pld_accountant::PldOptions;
use crate::theorems::random_allocation::{Allocation, TruncatedPoisson};
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
    /// Random allocation: the steps per epoch t (the run then has `epochs` whole epochs).
    pub steps_per_epoch: Option<Integer>,
    /// Random allocation: the K of the t steps of each epoch every example takes part in.
    pub uses_per_epoch: Option<Integer>,
    /// Truncated Poisson: the maximum batch size B (with `dataset` = N).
    pub max_batch: Option<Integer>,
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
            steps_per_epoch: None,
            uses_per_epoch: None,
            max_batch: None,
        }
    }

    /// A random-allocation run (each example in `a.selected` of the `a.steps` steps of each
    /// of `a.epochs` epochs; balls-and-bins when one), add/remove, example level, checked
    /// (the errors name the allocation's fields). Its rate is K/t, its steps t·epochs.
    pub fn allocation(a: Allocation) -> Result<Run> {
        a.validate()?;
        let rate = Rational::from((a.selected.clone(), a.steps.clone()));
        let steps = Integer::from(&a.steps * &a.epochs);
        Ok(Run {
            sampling: if a.selected == 1 {
                Sampling::BallsAndBins
            } else {
                Sampling::RandomAllocation
            },
            epochs: Some(Rational::from(&a.epochs)),
            steps_per_epoch: Some(a.steps),
            uses_per_epoch: Some(a.selected),
            ..Run::checked(rate, a.sigma, steps)?
        })
    }

    /// A truncated-Poisson run, add/remove, example level, checked.
    pub fn truncated(t: TruncatedPoisson) -> Result<Run> {
        t.validate()?;
        Ok(Run {
            sampling: Sampling::TruncatedPoisson,
            dataset: Some(t.dataset_size),
            max_batch: Some(t.max_batch),
            ..Run::checked(t.rate, t.sigma, t.steps)?
        })
    }

    /// The random allocation this run states (`Sampling::BallsAndBins` or
    /// `RandomAllocation`: t steps per epoch, K uses per epoch, default 1, whole epochs).
    pub fn as_allocation(&self) -> Result<Allocation> {
        let missing = |what: &str| Error::arg(what, "is missing for a random-allocation run");
        let epochs = self.epochs.as_ref().ok_or_else(|| missing("epochs"))?;
        if epochs.denom() != &1 {
            return Err(Error::arg("epochs", "random allocation runs whole epochs"));
        }
        Ok(Allocation {
            sigma: Rational::from(&*self.sigma),
            steps: self
                .steps_per_epoch
                .clone()
                .ok_or_else(|| missing("steps-per-epoch"))?,
            selected: self
                .uses_per_epoch
                .clone()
                .unwrap_or_else(|| Integer::from(1)),
            epochs: epochs.numer().clone(),
        })
    }

    /// The truncated-Poisson run this run states (`Sampling::TruncatedPoisson`).
    pub fn as_truncated(&self) -> Result<TruncatedPoisson> {
        let missing = |what: &str| Error::arg(what, "is missing for a truncated-Poisson run");
        Ok(TruncatedPoisson {
            rate: Rational::from(&*self.rate),
            sigma: Rational::from(&*self.sigma),
            steps: Integer::from(&*self.steps),
            dataset_size: self
                .dataset
                .clone()
                .ok_or_else(|| missing("dataset-size"))?,
            max_batch: self
                .max_batch
                .clone()
                .ok_or_else(|| missing("max-batch-size"))?,
        })
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
