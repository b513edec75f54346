//! Exact Gaussian composition: every mechanism Gaussian, merged by Corollary 10 into one
//! Gaussian PLD N(ρ, 2ρ) with ρ = Σρⱼ, read exactly by Corollary 8. Two-sided.
use super::ledger::Ledger;
use super::route::{answer, Outcome, Route, RouteId, Step, WhyNot};
use crate::num::Precision;
use crate::theorems::gaussian;
use crate::theorems::pld::GaussianPld;
use crate::validate::show;
use crate::Result;
use rug::Rational;

/// The exact Gaussian route.
///
/// # Guarantee
/// Two-sided ([`crate::Certified::TwoSided`]): the enclosure contains the exact ε at δ (δ at
/// ε) of the composed Gaussians — Corollary 10 merges them into N(ρ, 2ρ), Corollary 8 gives
/// δ(ε), ε is found by certified bisection — all arithmetic in intervals rounded outward. Applies only when every
/// mechanism is Gaussian or a shuffled DP-SGD run (one Gaussian release per pass); with a
/// shuffled run the answer is an upper bound only (its lower end holds only when the batch
/// assignment is revealed, and amplification by shuffling is not claimed, nor excluded).
pub struct ExactGaussian;

fn composed(l: &Ledger) -> Result<GaussianPld> {
    let gs = l.gaussians().expect("checked by applies");
    gaussian::gaussian_composition(&gs)
}

impl Route for ExactGaussian {
    fn id(&self) -> RouteId {
        RouteId::ExactGaussian
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        // Gaussians, and shuffled DP-SGD runs (one Gaussian release per pass)
        match l.first_without(|m| m.gaussian(&rug::Integer::from(1)).is_some()) {
            None => Ok(()),
            Some(e) => Err(WhyNot(format!(
                "`{}` is not a Gaussian mechanism ({})",
                e.name,
                e.mechanism.type_name()
            ))),
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let pld = composed(l)?;
        Ok(vec![
            Step::new(
                "Proposition 3 (Gaussian PLD N(ρⱼ, 2ρⱼ), ρⱼ = Δⱼ²/2σⱼ²)",
                format!("{} mechanism kinds", l.entries.len()),
            ),
            Step::new(
                "Theorem 9 / Corollary 10 (composition: ρ = Σρⱼ)",
                format!("ρ = {}", show(&pld.rho)),
            ),
            Step::new(
                "Corollary 8 (exact δ(ε), inverted for ε by certified bisection)",
                "two-sided",
            ),
            Step::new(
                "Dong–Roth–Su 2022 Corollary 3.3 (μ-GDP, exact: μ = √(2ρ))",
                crate::theorems::gdp::gaussian_gdp(&pld, Precision::Auto)
                    .map(|m| format!("μ ∈ [{}, {}]", m.lower(), m.upper()))?,
            ),
        ])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        let e = gaussian::gaussian_epsilon(&composed(l)?, delta, Precision::Auto)?;
        Ok(Outcome::of(Some(answer(e, l.lower_bounds_hold()))))
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let d = gaussian::gaussian_delta(&composed(l)?, epsilon, Precision::Auto)?;
        Ok(Outcome::of(Some(answer(d, l.lower_bounds_hold()))))
    }
}
