//! Composition of the mechanisms' own (ε, δ) guarantees by the bound theorems: basic
//! composition (Theorem 1) and advanced composition (Theorem 18 for pure DP, Theorem 22 for
//! (ε, δ)-DP). Upper bounds.
use super::ledger::Ledger;
use super::route::{answer, exact_rational, shift, Outcome, Route, RouteId, Step, WhyNot};
use crate::num::{Certified, Precision};
use crate::theorems::{approx, basic, zcdp};
use crate::validate::show;
use crate::Result;
use rug::{Integer, Rational};

/// Basic composition, Theorem 1.
///
/// # Guarantee
/// Upper bounds ([`crate::Certified::UpperBound`]) by Theorem 1: ε ≤ Σ repeat·εⱼ when
/// Σ repeat·δⱼ ≤ the budget δ, and δ ≤ Σ repeat·δⱼ when Σ repeat·εⱼ ≤ the budget ε. The sums
/// are exact rationals, rounded outward once. No value (a note instead) when the condition
/// fails or a per-entry repeat·δⱼ ≥ 1.
pub struct Basic;
/// Advanced composition, Theorem 18 (all pure) or Theorem 22.
///
/// # Guarantee
/// Upper bounds ([`crate::Certified::UpperBound`]): ε at a budget δ > Σδⱼ by Theorem 18 (every
/// mechanism pure) or Theorem 22; δ at a budget ε ≥ ½Σεⱼ² as Σδⱼ plus the closed form of
/// Proposition 14 at ρ = ½Σεⱼ² (kept only below 1); all arithmetic in intervals rounded outward. No value (a note
/// instead) outside those ranges.
pub struct Advanced;

/// Both routes need every mechanism to have an (ε, δ) guarantee.
fn all_approx(l: &Ledger) -> std::result::Result<(), WhyNot> {
    match l.first_without(|m| m.approx().is_some()) {
        None => Ok(()),
        Some(e) => Err(WhyNot(format!(
            "`{}` ({}) has no (ε, δ) guarantee of its own",
            e.name,
            e.mechanism.type_name()
        ))),
    }
}

/// (Σε, Σδ, Σε², all pure) over the ledger.
fn totals(l: &Ledger) -> (Rational, Rational, Rational, bool) {
    l.approx_totals().expect("checked by applies")
}

/// Theorem 1 on the per-entry totals (repeat·εⱼ, repeat·δⱼ); `None` when it refuses a
/// per-entry repeat·δⱼ ≥ 1 (the route then certifies nothing).
fn sums(l: &Ledger) -> Option<(Rational, Rational)> {
    let per_entry: Vec<(Rational, Rational)> = l
        .entries
        .iter()
        .filter_map(|m| {
            m.mechanism.approx().map(|(e, dj)| {
                let k = Rational::from(&m.repeat);
                (e * &k, dj * k)
            })
        })
        .collect();
    basic::basic_composition(&per_entry).ok()
}

const REPEATED_DELTA: &str = "a mechanism's repeated δ reaches 1";

impl Route for Basic {
    fn id(&self) -> RouteId {
        RouteId::Basic
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        all_approx(l)
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let (se, sd, _, _) = totals(l);
        Ok(vec![Step::new(
            "Theorem 1 (basic composition)",
            format!("(Σε, Σδ) = ({}, {})", show(&se), show(&sd)),
        )])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        Ok(match sums(l) {
            None => Outcome::none(REPEATED_DELTA),
            Some((se, sd)) if sd <= *delta => Outcome::of(Some(answer(exact_rational(&se), false))),
            Some((_, sd)) => Outcome::none(format!("Σδⱼ = {} exceeds the budget δ", show(&sd))),
        })
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        Ok(match sums(l) {
            None => Outcome::none(REPEATED_DELTA),
            Some((se, sd)) if se <= *epsilon && sd < 1 => {
                Outcome::of(Some(answer(exact_rational(&sd), false)))
            }
            Some((se, _)) => Outcome::none(format!("Σεⱼ = {} exceeds the budget ε", show(&se))),
        })
    }
}

impl Route for Advanced {
    fn id(&self) -> RouteId {
        RouteId::Advanced
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        all_approx(l)?;
        if totals(l).2 > 0 {
            Ok(())
        } else {
            Err(WhyNot("Σεⱼ² = 0: every mechanism is (0, δ)-DP".into()))
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let (_, sd, s2, pure) = totals(l);
        let thm = if pure {
            "Theorem 18 (advanced composition)"
        } else {
            "Theorem 22 (advanced composition of (ε, δ)-DP)"
        };
        Ok(vec![
            Step::new(
                "Proposition 16 (εⱼ-DP ⇒ εⱼ²/2-zCDP on the good event)",
                format!("Σεⱼ² = {}", show(&s2)),
            ),
            Step::new(thm, format!("Σδⱼ = {}", show(&sd))),
        ])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        let (_, sd, _, pure) = totals(l);
        if *delta <= sd {
            return Ok(Outcome::none(format!(
                "Σδⱼ = {} is not below the budget δ",
                show(&sd)
            )));
        }
        let list: Vec<(Rational, Rational, Integer)> = l
            .entries
            .iter()
            .filter_map(|m| {
                m.mechanism
                    .approx()
                    .map(|(e, dj)| (e, dj, m.repeat.clone()))
            })
            .collect();
        let enc = if pure {
            let pure_list: Vec<(Rational, Integer)> =
                list.into_iter().map(|(e, _, k)| (e, k)).collect();
            zcdp::advanced_composition(&pure_list, delta, Precision::Auto)?
        } else {
            approx::approx_advanced_composition(&list, delta, Precision::Auto)?
        };
        Ok(Outcome::of(Some(Certified::UpperBound(enc))))
    }
    /// Σδⱼ + exp(−(ε − S/2)²/(2S)) for ε ≥ S/2 (the same Proposition 14 step with ρ = S/2).
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let (_, sd, s2, _) = totals(l);
        let half = s2 / 2u32;
        if *epsilon < half {
            return Ok(Outcome::none("budget ε is below ½Σεⱼ²"));
        }
        let c = zcdp::zcdp_delta_closed_form(&half, epsilon, Precision::Auto)?;
        let enc = shift(c.formula(), &sd);
        Ok(Outcome::of(
            (enc.upper().0 < 1).then_some(answer(enc, false)),
        ))
    }
}
