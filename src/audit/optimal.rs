//! Optimal composition (Kairouz–Oh–Viswanath 2015 / Murtagh–Vadhan 2016 via Corollary 24) of
//! every mechanism's (ε, δ) guarantee. Its lower bounds are lower bounds of the optimum for
//! mechanisms *as described*: exact for randomized response and for black boxes (the worst
//! case over their class), not for Laplace (then upper bounds only).
use super::ledger::{Ledger, Mechanism};
use super::route::{answer, below_one, Outcome, Route, RouteId, Step, WhyNot};
use crate::num::Precision;
use crate::theorems::optimal::{self, Class};
use crate::{Error, Result};
use rug::Rational;

/// The optimal-composition route.
///
/// # Guarantee
/// An upper bound of the optimal composition (KOV15/MV16) of the mechanisms' (ε, δ)
/// guarantees, all arithmetic in intervals rounded outward; two-sided ([`crate::Certified::TwoSided`]) unless a Laplace
/// mechanism is present, the lower end bounding the optimum for the mechanisms as described
/// (for black boxes, the worst case over their class). With too many distinct classes, ε is not answered (a note) and δ is bracketed by
/// grouping the classes into 4 (rounded up for the upper end, down for the lower). δ is kept
/// only below 1.
pub struct Optimal;

/// The ledger's (ε, δ) classes, identical guarantees merged by adding their counts.
fn classes(l: &Ledger) -> Vec<Class> {
    let mut classes: Vec<Class> = Vec::new();
    for m in &l.entries {
        let (e, dl) = m.mechanism.approx().expect("checked by applies");
        match classes.iter_mut().find(|c| c.epsilon == e && c.delta == dl) {
            Some(c) => c.count += &m.repeat,
            None => classes.push(Class {
                epsilon: e,
                delta: dl,
                count: m.repeat.clone(),
            }),
        }
    }
    classes
}

/// Two-sided unless a Laplace mechanism, a k-ary randomized response, or a discrete Laplace of
/// sensitivity Δ ≥ 2 is present
/// (its worst case is not (ε, 0)-RR; with Δ = 1 the discrete Laplace is a-RR itself: its outputs
/// ≤ 0 against ≥ 1).
fn exact(l: &Ledger) -> bool {
    !l.stand_in
        && !l.entries.iter().any(|m| match &m.mechanism {
            Mechanism::Laplace { .. } => true,
            Mechanism::DiscreteLaplace { sensitivity, .. } => *sensitivity > 1,
            // its rational ε is an upper end of the irrational one
            Mechanism::KaryRandomizedResponse { .. } => true,
            _ => false,
        })
}

/// The exact computation refuses too many or too large classes (naming them).
fn too_big(e: &Error) -> bool {
    matches!(e, Error::InvalidArgument { name, .. } if name == "classes" || name == "count")
}

impl Route for Optimal {
    fn id(&self) -> RouteId {
        RouteId::Optimal
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        match l.first_without(|m| m.approx().is_some()) {
            None => Ok(()),
            Some(e) => Err(WhyNot(format!(
                "`{}` ({}) has no (ε, δ) guarantee of its own",
                e.name,
                e.mechanism.type_name()
            ))),
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        Ok(vec![
            Step::new(
                "Corollary 24 (each (εⱼ, δⱼ)-DP mechanism is post-processed (εⱼ, δⱼ)-randomized response)",
                format!("{} distinct classes", classes(l).len()),
            ),
            Step::new(
                "Kairouz–Oh–Viswanath 2015 / Murtagh–Vadhan 2016 (exact hockey stick of the RR product)",
                if exact(l) {
                    "two-sided"
                } else {
                    "upper bound (Laplace is not its worst case)"
                },
            ),
        ])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        match optimal::optimal_composition_epsilon(&classes(l), delta, Precision::Auto) {
            Ok(e) => Ok(Outcome::of(Some(answer(e, exact(l))))),
            Err(e) if too_big(&e) => Ok(Outcome::none(
                "too many distinct classes for the exact ε; see δ",
            )),
            Err(Error::InvalidArgument { name, reason }) if name == "delta" => {
                Ok(Outcome::none(reason))
            }
            Err(e) => Err(e),
        }
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let cs = classes(l);
        match optimal::optimal_composition_delta(&cs, epsilon, Precision::Auto) {
            Ok(x) => Ok(Outcome::of(below_one(Some(answer(x, exact(l)))))),
            Err(err) if too_big(&err) => {
                let x = optimal::grouped_composition_delta(&cs, epsilon, 4)?;
                Ok(Outcome {
                    value: below_one(Some(answer(x, exact(l)))),
                    steps: vec![],
                    note: Some("many distinct classes: δ bracketed by grouping them into 4 classes (rounded up for the upper bound, down for the lower)".into()),
                })
            }
            Err(err) => Err(err),
        }
    }
}
