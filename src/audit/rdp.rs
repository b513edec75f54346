//! Rényi DP: every mechanism's RDP curve (Mironov–Talwar–Zhang 2019 for subsampled
//! Gaussians, αρ for zCDP, min(ε, αε²/2) for ε-DP), added, and converted by the general form
//! of Proposition 14 (CKS20) at an order chosen by search. Used for deployments with
//! subsampled Gaussians; upper bounds that rest on a cited domination result.
use super::ledger::Ledger;
use super::route::{below_one, Outcome, Route, RouteId, Step, WhyNot};
use crate::num::{Certified, Precision};
use crate::theorems::rdp::{self, RdpCurve};
use crate::validate::show;
use crate::Result;
use rug::Rational;

/// The Rényi-DP route.
///
/// # Guarantee
/// Upper bounds ([`crate::Certified::UpperBound`]) by the general form of Proposition 14 at
/// an order chosen by an `f64` search (any order gives a valid bound), all arithmetic in intervals rounded outward. They
/// rest on a cited result ([`crate::theorems::rdp::ADD_DIRECTION_CITATION`]), which
/// [`crate::Certified::rests_on`] names. δ is kept only below 1.
pub struct Rdp;

fn curve(l: &Ledger) -> RdpCurve {
    let terms = l
        .entries
        .iter()
        .map(|m| {
            let (t, k) = m.mechanism.rdp_term().expect("checked by applies");
            (t, k * &m.repeat)
        })
        .collect();
    RdpCurve { terms }
}

impl Route for Rdp {
    fn id(&self) -> RouteId {
        RouteId::Rdp
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        let selects = l.entries.iter().any(|m| {
            matches!(
                m.mechanism,
                super::ledger::Mechanism::RepeatAndSelect { .. }
            )
        });
        if !l.has_subsampled() && !selects {
            return Err(WhyNot(
                "no subsampled Gaussian or repeat-and-select (the other routes are tighter without one)".into(),
            ));
        }
        match l.first_without(|m| m.rdp_term().is_some()) {
            None => Ok(()),
            Some(e) => Err(WhyNot(format!(
                "`{}` ({}) has no Rényi-DP curve",
                e.name,
                e.mechanism.type_name()
            ))),
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        Ok(vec![Step::new(
            "RDP of each mechanism (Mironov–Talwar–Zhang 2019 for subsampled Gaussians; αρ for zCDP; min(ε, αε²/2) for ε-DP)",
            format!("{} terms", l.entries.len()),
        )])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        let (e, a) = rdp::rdp_to_dp(&curve(l), delta, Precision::Auto)?;
        Ok(Outcome {
            value: Some(Certified::UpperBound(
                e.resting_on(rdp::ADD_DIRECTION_CITATION),
            )),
            steps: vec![Step::new(
                "Proposition 14, general form (CKS20), order chosen by search",
                format!("ε at α = {}", show(&a)),
            )],
            note: None,
        })
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let (x, a) = rdp::rdp_to_dp_delta(&curve(l), epsilon, Precision::Auto)?;
        Ok(Outcome {
            value: below_one(Some(Certified::UpperBound(
                x.resting_on(rdp::ADD_DIRECTION_CITATION),
            ))),
            steps: vec![Step::new(
                "Proposition 14, general form (CKS20), order chosen by search",
                format!("δ at α = {}", show(&a)),
            )],
            note: None,
        })
    }
}
