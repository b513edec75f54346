//! Gaussians (or zCDP mechanisms) mixed with (ε, δ) black boxes: the composed Gaussians are
//! (ε_g, δ_g(ε_g))-DP for every ε_g (Corollary 10, Corollary 8; with zCDP members, Theorem 13
//! and Proposition 14), so they enter optimal composition as one more (ε_g, δ_g) class. Any
//! ε_g gives a valid bound; an f64 search picks it. Upper bounds only.
use super::ledger::{Entry, Ledger, Mechanism};
use super::route::{answer, Outcome, Route, RouteId, Step, WhyNot};
use crate::num::{Precision, Upper};
use crate::theorems::optimal::{self, Class, SearchModel};
use crate::theorems::pld::GaussianPld;
use crate::theorems::{gaussian, zcdp};
use crate::validate::show;
use crate::Result;
use rug::{Integer, Rational};

/// The Gaussian-split route.
///
/// # Guarantee
/// Upper bounds ([`crate::Certified::UpperBound`]): the split part is (ε_g, δ_g(ε_g))-DP for
/// every ε_g, and optimal composition with the other classes bounds the whole; an `f64`
/// search only picks ε_g, all arithmetic in intervals rounded outward.
pub struct GaussianSplit;

fn is_split(m: &Mechanism) -> bool {
    matches!(
        m,
        Mechanism::Gaussian { .. }
            | Mechanism::DiscreteGaussian { .. }
            | Mechanism::Zcdp { .. }
            | Mechanism::ShuffledGaussian { .. }
    )
}

/// The split part (Gaussians and zCDP black boxes) and the other classes.
struct Parts {
    /// The composed Gaussians, when every split member is Gaussian (exact), else `None`.
    pld: Option<GaussianPld>,
    /// Σ repeat·ρⱼ of the split part.
    rho: Rational,
    /// The other mechanisms' (ε, δ) classes.
    classes: Vec<Class>,
}

fn parts(l: &Ledger) -> Result<Parts> {
    let (split, others): (Vec<&Entry>, Vec<&Entry>) =
        l.entries.iter().partition(|m| is_split(&m.mechanism));
    let gauss: Option<Vec<_>> = split
        .iter()
        .map(|m| m.mechanism.gaussian(&m.repeat))
        .collect();
    let pld = gauss
        .map(|g| gaussian::gaussian_composition(&g))
        .transpose()?;
    let rho: Rational = split
        .iter()
        .map(|m| m.mechanism.zcdp_rho().expect("Gaussian or zCDP") * Rational::from(&m.repeat))
        .sum();
    let classes = others
        .iter()
        .map(|m| {
            let (epsilon, delta) = m.mechanism.approx().expect("checked by applies");
            Class {
                epsilon,
                delta,
                count: m.repeat.clone(),
            }
        })
        .collect();
    Ok(Parts { pld, rho, classes })
}

impl Parts {
    /// The split part's certified δ at ε_g (upper end).
    fn split_delta(&self, eg: &Rational) -> Option<Upper> {
        let prec = Precision::Auto;
        match &self.pld {
            Some(p) => gaussian::gaussian_delta(p, eg, prec)
                .ok()
                .map(|e| e.upper().clone()),
            None if self.rho > 0 => zcdp::zcdp_delta(&self.rho, eg, prec)
                .ok()
                .map(|b| b.upper().clone()),
            None => None,
        }
    }
    /// The classes with the split part at ε_g as one more class, its certified δ_g (upper
    /// end, exactly); `None` when δ_g ≥ 1.
    fn with_split(&self, eg: f64) -> Option<Vec<Class>> {
        let eg = Rational::from_f64(eg.max(0.0))?;
        let dg = self.split_delta(&eg)?.0.to_rational()?;
        if dg >= 1 {
            return None;
        }
        let mut c = self.classes.clone();
        c.push(Class {
            epsilon: eg,
            delta: dg,
            count: Integer::from(1),
        });
        Some(c)
    }
    /// Search ε_g ∈ [0, top] minimising `objective` (the `f64` model's ε or ln δ of the
    /// composition with the split part at ε_g), then certify `query` at the ε_g found.
    fn best_split(
        &self,
        top: f64,
        what: &str,
        objective: impl Fn(&SearchModel, f64, f64) -> f64,
        query: impl Fn(&[Class]) -> Result<crate::Enclosure>,
    ) -> Outcome {
        let eg = match SearchModel::new(&self.classes) {
            // δ_g in f64 from the certified upper end (a search value only)
            Some(model) => crate::search::minimize_with(
                |eg| {
                    self.with_split(eg)
                        .and_then(|c| c.last().map(|g| g.delta.to_f64()))
                        .map_or(f64::INFINITY, |dg| objective(&model, eg, dg))
                },
                0.0,
                top,
                48,
                60,
            ),
            // too many atoms for the model: the certified evaluations steer the search
            None => crate::search::minimize_with(
                |eg| {
                    self.with_split(eg)
                        .and_then(|c| query(&c).ok())
                        .map_or(f64::INFINITY, |e| e.upper().to_f64())
                },
                0.0,
                top,
                24,
                48,
            ),
        };
        match self.with_split(eg).map(|c| query(&c)) {
            Some(Ok(e)) => Outcome {
                value: Some(answer(e, false)),
                steps: vec![Step::new(
                    "split chosen by search (any ε_g gives a valid bound)",
                    format!("{what}: split at ε_g = {eg:.6}"),
                )],
                note: None,
            },
            _ => Outcome::default(),
        }
    }
}

impl Route for GaussianSplit {
    fn id(&self) -> RouteId {
        RouteId::GaussianSplit
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        if !l.entries.iter().any(|m| is_split(&m.mechanism)) {
            return Err(WhyNot("no Gaussian or zCDP mechanism to split off".into()));
        }
        let mut others = l.entries.iter().filter(|m| !is_split(&m.mechanism));
        let Some(first) = others.next() else {
            return Err(WhyNot(
                "nothing but Gaussian or zCDP mechanisms (see the exact and zCDP routes)".into(),
            ));
        };
        match std::iter::once(first)
            .chain(others)
            .find(|m| m.mechanism.approx().is_none())
        {
            None => Ok(()),
            Some(e) => Err(WhyNot(format!(
                "`{}` ({}) has no (ε, δ) guarantee of its own",
                e.name,
                e.mechanism.type_name()
            ))),
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let p = parts(l)?;
        let first = if p.pld.is_some() {
            "Theorem 9 / Corollary 10, then Corollary 8 (the Gaussians are (ε_g, δ_g(ε_g))-DP for every ε_g)"
        } else {
            "Lemma 12 / Theorem 13, then Proposition 14 (the zCDP part is (ε_g, δ_g(ε_g))-DP for every ε_g)"
        };
        Ok(vec![
            Step::new(first, format!("ρ = {}", show(&p.rho))),
            Step::new(
                "Corollary 24 + Kairouz–Oh–Viswanath / Murtagh–Vadhan (optimal composition with the other mechanisms)",
                format!("{} other classes", p.classes.len()),
            ),
        ])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        let p = parts(l)?;
        let r = p.rho.to_f64();
        let top = r + 2.0 * (r * 700.0).sqrt() + 1.0;
        let ln_delta = crate::search::ln_f64(delta);
        Ok(p.best_split(
            top,
            "ε at δ",
            |m, eg, dg| m.epsilon_with(eg, dg, ln_delta),
            |c| optimal::optimal_composition_epsilon(c, delta, Precision::Auto),
        ))
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let p = parts(l)?;
        let eps = epsilon.to_f64();
        let mut o = p.best_split(
            eps.max(1e-9),
            "δ at ε",
            |m, eg, dg| m.ln_delta_with(eg, dg, eps),
            |c| optimal::optimal_composition_delta(c, epsilon, Precision::Auto),
        );
        if o.value.as_ref().is_some_and(|a| a.upper().0 >= 1) {
            o = Outcome::default();
        }
        Ok(o)
    }
}
