//! zCDP: every mechanism ρⱼ-zCDP (Lemma 12 for Gaussians, Proposition 16 for ε-DP, or
//! declared) or (ξⱼ, ρⱼ)-zCDP (declared), composed by Theorem 13 (ξ and ρ add) and converted by
//! Proposition 14 (or the closed form of Remark 15 when smaller), shifted by ξ: both conversions
//! bound δ from the Rényi curve α ↦ ξ + αρ at each α, and raising the curve by ξ raises their ε
//! by ξ exactly (δ(ε) of the (ξ, ρ) curve is δ(ε − ξ) of the ρ curve). Upper bounds.
use super::ledger::Ledger;
use super::route::{Outcome, Route, RouteId, Step, WhyNot};
use crate::num::{Certified, Precision, UpperBound};
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
    l.total_xi_rho().expect("checked by applies").1
}

fn xi(l: &Ledger) -> Rational {
    l.total_xi_rho().expect("checked by applies").0
}

/// The bound raised by ξ (each end rounded outward at its own precision).
fn shifted(b: UpperBound, xi: &Rational) -> Result<UpperBound> {
    use rug::float::Round;
    use rug::Float;
    if *xi == 0 {
        return Ok(b);
    }
    let f = b.formula();
    let add = |x: &Float, r: Round| Float::with_val_round(x.prec().max(128), x + xi, r).0;
    let e = f.with_endpoints(add(&f.lower().0, Round::Down), add(&f.upper().0, Round::Up))?;
    Ok(UpperBound::new(e))
}

impl Route for Zcdp {
    fn id(&self) -> RouteId {
        RouteId::Zcdp
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        if let Some(e) = l.first_without(|m| m.zcdp_xi_rho().is_some()) {
            return Err(WhyNot(format!(
                "`{}` ({}) has no zCDP guarantee",
                e.name,
                e.mechanism.type_name()
            )));
        }
        match l.total_xi_rho() {
            Some((_, r)) if r > 0 => Ok(()),
            Some((x, _)) if x > 0 => Err(WhyNot(
                "ρ = 0: the Rényi curve is the constant ξ, which Proposition 14 does not convert here"
                    .into(),
            )),
            _ => Err(WhyNot("ρ = 0: every mechanism is 0-DP".into())),
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let each = l
            .entries
            .iter()
            .map(|m| {
                let (x, r) = m.mechanism.zcdp_xi_rho().unwrap_or_default();
                if x == 0 {
                    format!("{}: ρ = {} × {}", m.name, show(&r), m.repeat)
                } else {
                    format!(
                        "{}: ξ = {}, ρ = {} × {}",
                        m.name,
                        show(&x),
                        show(&r),
                        m.repeat
                    )
                }
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
                if xi(l) == 0 {
                    format!("ρ = {}", show(&rho(l)))
                } else {
                    format!("ξ = {}, ρ = {}", show(&xi(l)), show(&rho(l)))
                },
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
        Ok(Outcome::of(Some(Certified::UpperBound(shifted(
            best,
            &xi(l),
        )?))))
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let rho = rho(l);
        // δ of the (ξ, ρ) curve at ε is δ of the ρ curve at ε − ξ; below ξ no bound under 1
        let epsilon = &(epsilon - xi(l));
        if *epsilon < 0 {
            return Ok(Outcome::of(None));
        }
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
