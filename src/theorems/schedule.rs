//! DP-SGD in phases: each phase its own Poisson rate, noise multiplier and number of steps,
//! composed in the PLD accountant (Theorem 9), add/remove neighbours.
use super::pld_accountant::{
    dpsgd_pld_epsilon, pld_epsilon, Direction, PldMechanism, PldOptions, PldReport, PldTerm,
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
    validate::nonempty("phases", phases)?;
    validate::open_unit("delta", delta)?;
    for p in phases {
        validate::positive("sigma", &p.sigma)?;
        validate::positive("rate", &p.rate)?;
        if p.rate > 1 {
            return Err(Error::arg("rate", "must be at most 1"));
        }
        validate::count("steps", &p.steps)?;
    }
    let merged = merge_equal(phases);
    // one (q, σ) after merging: the run is dpsgd_pld_epsilon's (with its refinement), so a
    // schedule of one phase, or of equal phases, prints the same bracket as the whole run
    if let [one] = &merged[..] {
        return dpsgd_pld_epsilon(&one.rate, &one.sigma, &one.steps, delta, opts);
    }
    let rem = pld_epsilon(&terms(&merged, Direction::Remove), delta, opts)?;
    let add = pld_epsilon(&terms(&merged, Direction::Add), delta, opts)?;
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
    // the report's grid and tail: the remove direction's (the add direction's if it set the
    // upper bound)
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
