//! zCDP: every mechanism ρⱼ-zCDP (Lemma 12 for Gaussians, Proposition 16 for ε-DP, or
//! declared), composed by Theorem 13 and converted by Proposition 14 (or the closed form of
//! Remark 15 when smaller). Upper bounds.
use super::ledger::Ledger;
use super::route::{Outcome, Route, RouteId, Step, WhyNot};
use crate::num::{Certified, Precision};
use crate::theorems::zcdp;
use crate::validate::show;
use crate::Result;
use rug::Rational;

/// The zCDP route.
///
/// # Guarantee
/// Upper bounds ([`crate::Certified::UpperBound`]): ρ = Σ repeat·ρⱼ exactly (Theorem 13),
/// then the smaller of Proposition 14 (optimised over t) and the closed form of Remark 15
/// (for δ, when ε ≥ ρ), all arithmetic in intervals rounded outward.
pub struct Zcdp;

fn rho(l: &Ledger) -> Rational {
    l.total_rho().expect("checked by applies")
}

impl Route for Zcdp {
    fn id(&self) -> RouteId {
        RouteId::Zcdp
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        if let Some(e) = l.first_without(|m| m.zcdp_rho().is_some()) {
            return Err(WhyNot(format!(
                "`{}` ({}) has no zCDP guarantee",
                e.name,
                e.mechanism.type_name()
            )));
        }
        match l.total_rho() {
            Some(r) if r > 0 => Ok(()),
            _ => Err(WhyNot("ρ = 0: every mechanism is 0-DP".into())),
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let each = l
            .entries
            .iter()
            .map(|m| {
                let r = m.mechanism.zcdp_rho().map(|r| show(&r)).unwrap_or_default();
                format!("{}: ρ = {} × {}", m.name, r, m.repeat)
            })
            .collect::<Vec<_>>()
            .join("; ");
        Ok(vec![
            Step::new(
                "Lemma 12 / Proposition 16 / declared ρ (each mechanism is ρⱼ-zCDP)",
                each,
            ),
            Step::new(
                "Theorem 13 / Proposition 19 (ρ = Σρⱼ)",
                format!("ρ = {}", show(&rho(l))),
            ),
            Step::new(
                "Proposition 14 (optimised over t; closed form of Remark 15 if smaller)",
                "",
            ),
        ])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        let rho = rho(l);
        let a = zcdp::zcdp_epsilon(&rho, delta, Precision::Auto)?;
        let b = zcdp::zcdp_epsilon_closed_form(&rho, delta, Precision::Auto)?;
        let best = if b.upper().0 < a.upper().0 { b } else { a };
        Ok(Outcome::of(Some(Certified::UpperBound(best))))
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let rho = rho(l);
        let mut best = zcdp::zcdp_delta(&rho, epsilon, Precision::Auto)?;
        if *epsilon >= rho {
            let c = zcdp::zcdp_delta_closed_form(&rho, epsilon, Precision::Auto)?;
            if c.upper().0 < best.upper().0 {
                best = c;
            }
        }
        Ok(Outcome::of(Some(Certified::UpperBound(best))))
    }
}
