//! The `Route` interface: a chain of the chapter's theorems that certifies the privacy of a
//! whole [`Ledger`], or says why it does not apply.
use super::ledger::Ledger;
pub use super::ledger::WhyNot;
use crate::num::{Certified, Enclosure, UpperBound, DEFAULT_PREC};
use crate::validate::show;
use crate::Result;
use rug::float::Round;
use rug::{Float, Rational};

/// Which route. The audit decides by this value, never by comparing names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RouteId {
    /// All-Gaussian deployments: Corollary 10 on the merged Gaussians, exact.
    ExactGaussian,
    /// Every mechanism ρ-zCDP: Theorem 13 and Proposition 14.
    Zcdp,
    /// Every mechanism with an (ε, δ) guarantee: optimal composition (KOV15/MV16).
    Optimal,
    /// Gaussians (or zCDP) mixed with (ε, δ) black boxes: a split, then optimal composition.
    GaussianSplit,
    /// The certified PLD accountant.
    Pld,
    /// Rényi DP (deployments with subsampled Gaussians).
    Rdp,
    /// Basic composition, Theorem 1.
    Basic,
    /// Advanced composition, Theorem 18 / Theorem 22.
    Advanced,
    /// One DP-SGD run under substitution neighbours (`dpcert dpsgd --relation substitution`).
    Substitution,
}

impl RouteId {
    /// The route's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            RouteId::ExactGaussian => "exact Gaussian composition",
            RouteId::Zcdp => "zCDP",
            RouteId::Optimal => "optimal composition",
            RouteId::GaussianSplit => "Gaussian split + optimal",
            RouteId::Pld => "PLD",
            RouteId::Rdp => "Rényi DP",
            RouteId::Basic => "basic composition",
            RouteId::Advanced => "advanced composition",
            RouteId::Substitution => "substitution DP-SGD",
        }
    }
    /// A stable machine identifier (JSON).
    pub fn key(self) -> &'static str {
        match self {
            RouteId::ExactGaussian => "exact_gaussian",
            RouteId::Zcdp => "zcdp",
            RouteId::Optimal => "optimal",
            RouteId::GaussianSplit => "gaussian_split",
            RouteId::Pld => "pld",
            RouteId::Rdp => "rdp",
            RouteId::Basic => "basic",
            RouteId::Advanced => "advanced",
            RouteId::Substitution => "substitution",
        }
    }
}

/// The route's name, as reports print it ([`RouteId::name`]).
impl std::fmt::Display for RouteId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One theorem applied, with the number it produced.
#[derive(Clone, Debug)]
pub struct Step {
    /// The theorem (or computation) applied, e.g. "Corollary 10".
    pub theorem: String,
    /// What it produced, as text (bounds printed outward); may be empty.
    pub value: String,
}

impl Step {
    /// A step: the theorem applied and what it produced.
    pub fn new(theorem: impl Into<String>, value: impl Into<String>) -> Step {
        Step {
            theorem: theorem.into(),
            value: value.into(),
        }
    }
}

/// "theorem: value", or the theorem alone when it produced no value.
impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.value.is_empty() {
            f.write_str(&self.theorem)
        } else {
            write!(f, "{}: {}", self.theorem, self.value)
        }
    }
}

/// A route's answer to one budget query.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The certified value: two-sided where the route is exact (its lower end bounds the
    /// mechanisms' exact privacy), else an upper bound; `None` when the route certifies no
    /// finite ε (no δ below 1) at this query.
    pub value: Option<Certified>,
    /// Steps this query added (e.g. the Rényi order chosen, the PLD grid).
    pub steps: Vec<Step>,
    /// Why the value is missing, or how it was obtained when that is unusual.
    pub note: Option<String>,
}

impl Outcome {
    /// A value with nothing else to say.
    pub fn of(value: Option<Certified>) -> Outcome {
        Outcome {
            value,
            ..Outcome::default()
        }
    }
    /// No value, and why.
    pub fn none(note: impl Into<String>) -> Outcome {
        Outcome {
            note: Some(note.into()),
            ..Outcome::default()
        }
    }
}

/// The certified value as [`Certified`] prints it (bounds outward), or "none"; then the
/// note in parentheses, if any.
impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            Some(v) => write!(f, "{v}")?,
            None => f.write_str("none")?,
        }
        match &self.note {
            Some(n) => write!(f, " ({n})"),
            None => Ok(()),
        }
    }
}

/// A chain of theorems that certifies a whole ledger.
///
/// # Guarantee
/// When [`Route::applies`] is `Ok`, every value [`Route::epsilon_at`] / [`Route::delta_at`]
/// return is a rigorous upper bound of the ledger's ε at δ (δ at ε) — of the worst case over
/// each black box's class — and, when it is [`Certified::TwoSided`], its lower end is a
/// rigorous lower bound of that exact value.
pub trait Route: Sync {
    /// Which route this is.
    fn id(&self) -> RouteId;
    /// The route's name in reports.
    fn name(&self) -> &'static str {
        self.id().name()
    }
    /// `Ok` when the route certifies this ledger, else why not.
    fn applies(&self, ledger: &Ledger) -> std::result::Result<(), WhyNot>;
    /// The theorems the route chains and their values for this ledger (query-independent).
    fn steps(&self, ledger: &Ledger) -> Result<Vec<Step>>;
    /// ε at δ ∈ (0, 1).
    fn epsilon_at(&self, ledger: &Ledger, delta: &Rational) -> Result<Outcome>;
    /// δ at ε ≥ 0.
    fn delta_at(&self, ledger: &Ledger, epsilon: &Rational) -> Result<Outcome>;
    /// [`Route::delta_at`]'s values at every ε of `epsilons` (the privacy-profile plot's
    /// samples): one query per point unless the route shares the work (the PLD accountant
    /// composes once and reads its whole curve).
    fn delta_curve(
        &self,
        ledger: &Ledger,
        epsilons: &[Rational],
    ) -> Result<Vec<Option<Certified>>> {
        epsilons
            .iter()
            .map(|e| Ok(self.delta_at(ledger, e)?.value))
            .collect()
    }
}

/// The answer of a route: two-sided when the route is exact, else an upper bound.
pub(crate) fn answer(enclosure: Enclosure, exact: bool) -> Certified {
    if exact {
        Certified::TwoSided(enclosure)
    } else {
        Certified::UpperBound(UpperBound::new(enclosure))
    }
}

/// An exact rational as a (point) enclosure.
pub(crate) fn exact_rational(r: &Rational) -> Enclosure {
    Enclosure::rational(r, DEFAULT_PREC)
}

/// `e + r` for an exact rational `r ≥ 0`, rounded outward.
pub(crate) fn shift(e: &Enclosure, r: &Rational) -> Enclosure {
    let p = e.precision_bits().max(DEFAULT_PREC);
    let lo = Float::with_val_round(
        p,
        &e.lower().0 + Float::with_val_round(p, r, Round::Down).0,
        Round::Down,
    )
    .0;
    let hi = Float::with_val_round(
        p,
        &e.upper().0 + Float::with_val_round(p, r, Round::Up).0,
        Round::Up,
    )
    .0;
    e.with_endpoints(lo, hi)
        .expect("outward sum of an enclosure and a number")
}

/// "ε(δ=…) ∈ [lo, hi]" (exact), "ε(δ=…) ≤ hi", or "…: none": a route's answer as text.
pub(crate) fn reached(what: &str, given: &str, at: &Rational, a: &Option<Certified>) -> String {
    match a {
        Some(a) if a.is_two_sided() => format!(
            "{what}({given}={}) ∈ [{}, {}]",
            show(at),
            a.formula().lower().to_decimal(),
            a.upper().to_decimal()
        ),
        Some(a) => format!("{what}({given}={}) ≤ {}", show(at), a.upper().to_decimal()),
        None => format!("{what}({given}={}): none", show(at)),
    }
}

/// A δ answer is only useful below 1.
pub(crate) fn below_one(a: Option<Certified>) -> Option<Certified> {
    a.filter(|a| a.upper().0 < 1)
}
