//! DP-SGD in phases: each phase its own Poisson rate, noise multiplier and number of steps,
//! composed in the PLD accountant (Theorem 9), add/remove neighbours.
use super::pld_accountant::{
    dpsgd_pld_epsilon_checked, pld_delta_curve, pld_epsilon, Direction, PldMechanism, PldOptions,
    PldReport, PldTerm,
};
use crate::num::{Arithmetic, Enclosure};
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// One phase of a schedule: `steps` Poisson-subsampled Gaussian steps at rate q, noise σ.
#[derive(Clone, Debug, PartialEq)]
pub struct Phase {
    /// Poisson sampling rate q in (0, 1], exact.
    pub rate: Rational,
    /// Noise multiplier σ > 0.
    pub sigma: Rational,
    /// Number of steps in the phase, ≥ 1.
    pub steps: Integer,
}

/// Phases with the same (q, σ) merged into one (their step counts added), first-seen order:
/// the composition of T₁ and T₂ copies is that of T₁ + T₂ copies, so this changes nothing but
/// the work (and makes a run split into equal phases the same computation as the whole run).
fn merge_equal(phases: &[Phase]) -> Vec<Phase> {
    let mut out: Vec<Phase> = Vec::new();
    for p in phases {
        match out
            .iter_mut()
            .find(|o| o.rate == p.rate && o.sigma == p.sigma)
        {
            Some(o) => o.steps += &p.steps,
            None => out.push(p.clone()),
        }
    }
    out
}

/// The terms of one neighbour direction.
fn terms(phases: &[Phase], direction: Direction) -> Vec<PldTerm> {
    phases
        .iter()
        .map(|p| PldTerm {
            mechanism: PldMechanism::SubsampledGaussian {
                sigma: p.sigma.clone(),
                rate: p.rate.clone(),
                direction,
            },
            count: p.steps.clone(),
        })
        .collect()
}

/// ε(δ) of a DP-SGD run in phases (Poisson sampling, add/remove neighbours): the larger of the
/// two directions' compositions, each composed over all phases by the PLD accountant.
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact add/remove privacy curve of the run (each phase's steps
/// as in `dpsgd_pld_epsilon`); upper is the larger of the directions' upper bounds, lower the
/// larger of their lower bounds. When every phase has the same (q, σ), this is
/// `dpsgd_pld_epsilon` of the merged run (same guarantee). Errors on an empty schedule, an invalid phase, or δ ∉ (0, 1).
/// Note: `proofs-notes/dpsgd_phases_pld_epsilon.md`.
pub fn dpsgd_phases_pld_epsilon(
    phases: &[Phase],
    delta: &Rational,
    opts: &PldOptions,
) -> Result<PldReport> {
    validate::open_unit("delta", delta)?;
    validate_phases(phases)?;
    let merged = merge_equal(phases);
    // one (q, σ) after merging: the run is dpsgd_pld_epsilon's (with its refinement), so a
    // schedule of one phase, or of equal phases, prints the same bracket as the whole run
    if let [one] = &merged[..] {
        return dpsgd_pld_epsilon_checked(&one.rate, &one.sigma, &one.steps, delta, opts);
    }
    let rem = pld_epsilon(&terms(&merged, Direction::Remove), delta, opts)?;
    let add = pld_epsilon(&terms(&merged, Direction::Add), delta, opts)?;
    larger_direction(&rem, &add)
}

/// Every phase in the accountant's domain: at least one, q ∈ (0, 1], σ > 0, T ≥ 1.
fn validate_phases(phases: &[Phase]) -> Result<()> {
    validate::nonempty("phases", phases)?;
    for p in phases {
        validate::positive("sigma", &p.sigma)?;
        validate::positive("rate", &p.rate)?;
        if p.rate > 1 {
            return Err(Error::arg("rate", "must be at most 1"));
        }
        validate::count("steps", &p.steps)?;
    }
    Ok(())
}

/// The larger of the two directions' values: upper = the larger upper, lower = the larger
/// lower (each direction's lower bound is below its own value, hence below the maximum); the
/// grid and tail reported are the remove direction's, or the add direction's if it set the
/// upper bound.
fn larger_direction(rem: &PldReport, add: &PldReport) -> Result<PldReport> {
    let lo = rem
        .enclosure
        .lower()
        .to_float()
        .max(add.enclosure.lower().as_float());
    let hi = rem
        .enclosure
        .upper()
        .to_float()
        .max(add.enclosure.upper().as_float());
    let enclosure = Enclosure::new(lo, hi, Arithmetic::F64Interval)?;
    let base = if add.enclosure.upper().as_float() > rem.enclosure.upper().as_float() {
        add.clone()
    } else {
        rem.clone()
    };
    Ok(PldReport {
        enclosure,
        support: rem.support.max(add.support),
        ..base
    })
}

/// δ(ε) of a DP-SGD run in phases (Poisson sampling, add/remove neighbours) at every ε of
/// `epsilons` (in the order given): the larger of the two directions' δ, each direction composed
/// once over all phases by the PLD accountant and its curve read at every ε. A single run
/// (q, σ, T) is one phase.
///
/// # Guarantee
/// For each ε, `lower ≤ δ(ε) ≤ upper` for the exact add/remove privacy curve of the run
/// (δ(ε) = max over the directions of the hockey-stick divergence of the composed pair):
/// upper is the larger of the directions' upper bounds, lower the larger of their lower
/// bounds; both in [0, 1]. Errors on an empty schedule, an invalid phase, an empty list or
/// ε < 0. Note: `proofs-notes/dpsgd_pld_delta.md`.
pub fn dpsgd_pld_delta(
    phases: &[Phase],
    epsilons: &[Rational],
    opts: &PldOptions,
) -> Result<Vec<PldReport>> {
    validate_phases(phases)?;
    validate::nonempty("epsilon", epsilons)?;
    let merged = merge_equal(phases);
    let quiet = PldOptions {
        progress: false,
        ..opts.clone()
    };
    // the two directions on threads of their own (one progress line: the remove direction's)
    let (rem, add) = std::thread::scope(|sc| {
        let add = sc.spawn(|| pld_delta_curve(&terms(&merged, Direction::Add), epsilons, &quiet));
        let rem = pld_delta_curve(&terms(&merged, Direction::Remove), epsilons, opts);
        let add = add
            .join()
            .map_err(|_| Error::Numerical("PLD worker failed".into()))?;
        Ok::<_, Error>((rem?, add?))
    })?;
    rem.iter()
        .zip(&add)
        .map(|(r, a)| larger_direction(r, a))
        .collect()
}
