//! Audit of a deployment: every applicable route, the best certified (ε, δ), and a verdict on
//! the deployment's claim. Each route is a chain of the chapter's theorems; a route's number is
//! a rigorous upper bound, and only exact routes (all-Gaussian, Corollary 10; optimal
//! composition without Laplace; the PLD accountant) also give a certified lower bound of the
//! mechanisms' true privacy (for black boxes: of the worst case in their class).
pub mod ledger;

use crate::deploy::Deployment;
use crate::num::{Certified, Enclosure, Precision, Upper, UpperBound, DEFAULT_PREC};
use crate::theorems::pld_accountant::{
    pld_delta, pld_epsilon, Direction, PldOptions, PldReport, PldTerm,
};
use crate::theorems::{approx, basic, gaussian, optimal, rdp, zcdp};
use crate::validate::show;
use crate::{Error, Result};
use ledger::{Ledger, Mechanism};
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// One theorem applied, with the number it produced.
#[derive(Clone, Debug)]
pub struct Step {
    pub theorem: String,
    pub value: String,
}

/// A route's answer to one budget query: two-sided (exact routes, whose lower end bounds the
/// mechanisms' exact privacy) or an upper bound only.
pub type Answer = Certified;

/// The answer of a route: two-sided when the route is exact, else an upper bound.
fn answer(enclosure: Enclosure, exact: bool) -> Answer {
    if exact {
        Certified::TwoSided(enclosure)
    } else {
        Certified::UpperBound(UpperBound::new(enclosure))
    }
}

/// A chain of theorems giving certified bounds for the whole deployment.
#[derive(Clone, Debug)]
pub struct Route {
    pub name: &'static str,
    pub steps: Vec<Step>,
    /// ε at the budget δ; `None` if the route gives no finite ε there.
    pub epsilon: Option<Answer>,
    /// δ at the budget ε; `None` if the route gives no δ < 1 there.
    pub delta: Option<Answer>,
    /// Why an answer is missing.
    pub note: Option<String>,
}

/// Verdict on a deployment's claim (ε_c, δ_c).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Verified,
    Refuted,
    Undecided,
}

#[derive(Clone, Debug)]
pub struct ClaimCheck {
    pub epsilon: Rational,
    pub delta: Rational,
    pub verdict: Verdict,
    /// Best certified δ at the claimed ε, with its lower end when exact.
    pub delta_at_claim: Option<Answer>,
    pub route: Option<&'static str>,
    pub explanation: String,
}

#[derive(Clone, Debug)]
pub struct Report {
    pub deployment: Deployment,
    /// The flat list of mechanisms the routes accounted for.
    pub ledger: Ledger,
    pub routes: Vec<Route>,
    pub best_epsilon: Option<(usize, Answer)>,
    pub best_delta: Option<(usize, Answer)>,
    pub claim: Option<ClaimCheck>,
    pub notes: Vec<String>,
}

fn exact_rational(r: &Rational) -> Enclosure {
    Enclosure::rational(r, DEFAULT_PREC)
}

/// `e + r` for an exact rational `r ≥ 0`, rounded outward.
fn shift(e: &Enclosure, r: &Rational) -> Enclosure {
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

/// A one-line "audit: <route>…" on stderr while a slow audit runs (only on a terminal, and only
/// once the audit has taken a second), cleared when the audit ends.
struct Stage {
    on: bool,
    start: std::time::Instant,
    shown: std::cell::Cell<bool>,
}

impl Stage {
    fn new() -> Stage {
        Stage {
            on: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            start: std::time::Instant::now(),
            shown: std::cell::Cell::new(false),
        }
    }
    fn enter(&self, name: &str) {
        if self.on && self.start.elapsed().as_secs() >= 1 {
            eprint!("\raudit: {name}…\x1b[K");
            self.shown.set(true);
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if self.shown.get() {
            eprint!("\r\x1b[K");
        }
    }
}

struct Totals {
    /// Σ repeat·ρⱼ if every mechanism is zCDP.
    rho: Option<Rational>,
    /// (Σε, Σδ, Σε², all pure) if every mechanism has an (ε, δ) guarantee.
    approx: Option<(Rational, Rational, Rational, bool)>,
    /// The Gaussian list if every mechanism is Gaussian.
    gaussians: Option<Vec<gaussian::GaussianMechanism>>,
}

fn totals(l: &Ledger) -> Totals {
    let mut rho = Some(Rational::new());
    let mut apx = Some((Rational::new(), Rational::new(), Rational::new(), true));
    let mut gs = Some(Vec::new());
    for e in &l.entries {
        let k = Rational::from(&e.repeat);
        rho = rho.and_then(|r| e.mechanism.zcdp_rho().map(|x| r + x * &k));
        apx = apx.and_then(|(se, sd, s2, pure)| {
            e.mechanism.approx().map(|(ej, dj)| {
                let e2 = Rational::from(&ej * &ej) * &k;
                (se + ej * &k, sd + dj.clone() * &k, s2 + e2, pure && dj == 0)
            })
        });
        gs = gs.and_then(|mut v| {
            e.mechanism.gaussian(&e.repeat).map(|g| {
                v.push(g);
                v
            })
        });
    }
    Totals {
        rho,
        approx: apx,
        gaussians: gs,
    }
}

/// "ε(δ=…) ∈ [lo, hi]" (exact), "ε(δ=…) ≤ hi", or "…: none": a route's answer as text.
fn reached(what: &str, given: &str, at: &Rational, a: &Option<Answer>) -> String {
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

/// Run every applicable route for the deployment's budget queries and claim.
pub fn audit(d: &Deployment) -> Result<Report> {
    audit_with(d, true)
}

/// [`audit`], optionally without the PLD route (the privacy-profile plot evaluates the audit
/// at 61 values of ε and leaves the accountant out).
pub fn audit_with(d: &Deployment, pld: bool) -> Result<Report> {
    let prec = Precision::Auto;
    let ledger = Ledger::from_event(&d.event)?;
    let l = &ledger;
    let t = totals(l);
    let mut routes = Vec::new();
    let stage = Stage::new();

    if let Some(gs) = &t.gaussians {
        stage.enter("exact Gaussian composition");
        let pld = gaussian::gaussian_composition(gs)?;
        let steps = vec![
            Step {
                theorem: "Proposition 3 (Gaussian PLD N(ρⱼ, 2ρⱼ), ρⱼ = Δⱼ²/2σⱼ²)".into(),
                value: format!("{} mechanism kinds", gs.len()),
            },
            Step {
                theorem: "Theorem 9 / Corollary 10 (composition: ρ = Σρⱼ)".into(),
                value: format!("ρ = {}", show(&pld.rho)),
            },
            Step {
                theorem: "Corollary 8 (exact δ(ε), inverted for ε by certified bisection)".into(),
                value: "two-sided".into(),
            },
            Step {
                theorem: "Dong–Roth–Su 2022 Corollary 3.3 (μ-GDP, exact: μ = √(2ρ))".into(),
                value: crate::theorems::gdp::gaussian_gdp(&pld, prec)
                    .map(|m| format!("μ ∈ [{}, {}]", m.lower(), m.upper()))?,
            },
        ];
        routes.push(Route {
            name: "exact Gaussian composition",
            steps,
            epsilon: d
                .budget_delta
                .as_ref()
                .map(|dl| gaussian::gaussian_epsilon(&pld, dl, prec))
                .transpose()?
                .map(|e| answer(e, true)),
            delta: d
                .budget_epsilon
                .as_ref()
                .map(|e| gaussian::gaussian_delta(&pld, e, prec))
                .transpose()?
                .map(|e| answer(e, true)),
            note: None,
        });
    }

    if let Some(rho) = t.rho.as_ref().filter(|r| **r > 0) {
        stage.enter("zCDP");
        let steps = vec![
            Step {
                theorem: "Lemma 12 / Proposition 16 / declared ρ (each mechanism is ρⱼ-zCDP)"
                    .into(),
                value: l
                    .entries
                    .iter()
                    .map(|m| {
                        format!(
                            "{}: ρ = {} × {}",
                            m.name,
                            m.mechanism.zcdp_rho().map(|r| show(&r)).unwrap_or_default(),
                            m.repeat
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            },
            Step {
                theorem: "Theorem 13 / Proposition 19 (ρ = Σρⱼ)".into(),
                value: format!("ρ = {}", show(rho)),
            },
            Step {
                theorem: "Proposition 14 (optimised over t; closed form of Remark 15 if smaller)"
                    .into(),
                value: String::new(),
            },
        ];
        let epsilon = match &d.budget_delta {
            None => None,
            Some(dl) => {
                let a = zcdp::zcdp_epsilon(rho, dl, prec)?;
                let b = zcdp::zcdp_epsilon_closed_form(rho, dl, prec)?;
                Some(Certified::UpperBound(if b.upper().0 < a.upper().0 {
                    b
                } else {
                    a
                }))
            }
        };
        let delta = match &d.budget_epsilon {
            None => None,
            Some(e) => {
                let mut best = zcdp::zcdp_delta(rho, e, prec)?;
                if e >= rho {
                    let c = zcdp::zcdp_delta_closed_form(rho, e, prec)?;
                    if c.upper().0 < best.upper().0 {
                        best = c;
                    }
                }
                Some(Certified::UpperBound(best))
            }
        };
        routes.push(Route {
            name: "zCDP",
            steps,
            epsilon,
            delta,
            note: None,
        });
    }

    if t.approx.is_some() {
        stage.enter("optimal composition");
        routes.push(optimal_route(l, d)?);
    }
    stage.enter("Gaussian split + optimal");
    if let Some(r) = gaussian_split_route(l, d)? {
        routes.push(r);
    }
    stage.enter("PLD");
    if let Some(r) = pld.then(|| pld_route(l, d)).flatten() {
        routes.push(r);
    }
    stage.enter("Rényi DP and the remaining routes");

    // Rényi DP: every mechanism with an RDP curve (all but approximate-DP black boxes)
    let terms: Option<Vec<_>> = l
        .entries
        .iter()
        .map(|m| m.mechanism.rdp_term().map(|(t, k)| (t, k * &m.repeat)))
        .collect();
    if let Some(terms) = terms.filter(|_| {
        l.entries
            .iter()
            .any(|m| matches!(m.mechanism, Mechanism::SubsampledGaussian { .. }))
    }) {
        let curve = rdp::RdpCurve { terms };
        let mut steps = vec![Step {
            theorem: "RDP of each mechanism (Mironov–Talwar–Zhang 2019 for subsampled Gaussians; αρ for zCDP; min(ε, αε²/2) for ε-DP)".into(),
            value: format!("{} terms", curve.terms.len()),
        }];
        let epsilon = match &d.budget_delta {
            Some(dl) => {
                let (e, a) = rdp::rdp_to_dp(&curve, dl, prec)?;
                steps.push(Step {
                    theorem: "Proposition 14, general form (CKS20), order chosen by search".into(),
                    value: format!("ε at α = {}", show(&a)),
                });
                Some(Certified::UpperBound(
                    e.resting_on(rdp::ADD_DIRECTION_CITATION),
                ))
            }
            None => None,
        };
        let delta = match &d.budget_epsilon {
            Some(e) => {
                let (x, a) = rdp::rdp_to_dp_delta(&curve, e, prec)?;
                steps.push(Step {
                    theorem: "Proposition 14, general form (CKS20), order chosen by search".into(),
                    value: format!("δ at α = {}", show(&a)),
                });
                Some(Certified::UpperBound(
                    x.resting_on(rdp::ADD_DIRECTION_CITATION),
                ))
                .filter(|a| a.upper().0 < 1)
            }
            None => None,
        };
        routes.push(Route {
            name: "Rényi DP",
            steps,
            epsilon,
            delta,
            note: None,
        });
    }

    if let Some((se, sd, s2, pure)) = &t.approx {
        // Theorem 1 on the per-entry totals (repeat·εⱼ, repeat·δⱼ)
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
        // Theorem 1 refuses a per-entry repeat·δⱼ ≥ 1; the route then certifies nothing
        let sums = basic::basic_composition(&per_entry).ok();
        let mut note = sums
            .is_none()
            .then(|| "a mechanism's repeated δ reaches 1".to_string());
        let epsilon = match (&sums, &d.budget_delta) {
            (Some((se, sd)), Some(dl)) if sd <= dl => Some(answer(exact_rational(se), false)),
            (Some((_, sd)), Some(_)) => {
                note = Some(format!("Σδⱼ = {} exceeds the budget δ", show(sd)));
                None
            }
            _ => None,
        };
        let delta = match (&sums, &d.budget_epsilon) {
            (Some((se, sd)), Some(e)) if se <= e && *sd < 1 => {
                Some(answer(exact_rational(sd), false))
            }
            (Some((se, _)), Some(_)) => {
                note.get_or_insert(format!("Σεⱼ = {} exceeds the budget ε", show(se)));
                None
            }
            _ => None,
        };
        routes.push(Route {
            name: "basic composition",
            steps: vec![Step {
                theorem: "Theorem 1 (basic composition)".into(),
                value: format!("(Σε, Σδ) = ({}, {})", show(se), show(sd)),
            }],
            epsilon,
            delta,
            note,
        });

        // Theorem 18 (all pure) or Theorem 22
        if *s2 > 0 {
            let thm = if *pure {
                "Theorem 18 (advanced composition)"
            } else {
                "Theorem 22 (advanced composition of (ε, δ)-DP)"
            };
            let mut note = None;
            let epsilon = match &d.budget_delta {
                Some(dl) if dl > sd => {
                    let list: Vec<(Rational, Rational, Integer)> = l
                        .entries
                        .iter()
                        .filter_map(|m| {
                            m.mechanism
                                .approx()
                                .map(|(e, dj)| (e, dj, m.repeat.clone()))
                        })
                        .collect();
                    let enc = if *pure {
                        let pure_list: Vec<(Rational, Integer)> =
                            list.into_iter().map(|(e, _, k)| (e, k)).collect();
                        zcdp::advanced_composition(&pure_list, dl, prec)?
                    } else {
                        approx::approx_advanced_composition(&list, dl, prec)?
                    };
                    Some(Certified::UpperBound(enc))
                }
                Some(_) => {
                    note = Some(format!("Σδⱼ = {} is not below the budget δ", show(sd)));
                    None
                }
                None => None,
            };
            // δ at ε: Σδⱼ + exp(−(ε − S/2)²/(2S)) for ε ≥ S/2 (the same Proposition 14 step with ρ = S/2)
            let delta = match &d.budget_epsilon {
                Some(e) => {
                    let half = Rational::from(s2 / 2u32);
                    if *e >= half {
                        let c = zcdp::zcdp_delta_closed_form(&half, e, prec)?;
                        let enc = shift(c.formula(), sd);
                        (enc.upper().0 < 1).then_some(answer(enc, false))
                    } else {
                        note.get_or_insert("budget ε is below ½Σεⱼ²".to_string());
                        None
                    }
                }
                None => None,
            };
            routes.push(Route {
                name: "advanced composition",
                steps: vec![
                    Step {
                        theorem: "Proposition 16 (εⱼ-DP ⇒ εⱼ²/2-zCDP on the good event)".into(),
                        value: format!("Σεⱼ² = {}", show(s2)),
                    },
                    Step {
                        theorem: thm.into(),
                        value: format!("Σδⱼ = {}", show(sd)),
                    },
                ],
                epsilon,
                delta,
                note,
            });
        }
    }

    // the numbers each route reached, as its last step
    for r in &mut routes {
        let mut parts = Vec::new();
        if let Some(dl) = &d.budget_delta {
            parts.push(reached("ε", "δ", dl, &r.epsilon));
        }
        if let Some(e) = &d.budget_epsilon {
            parts.push(reached("δ", "ε", e, &r.delta));
        }
        r.steps.push(Step {
            theorem: "result".into(),
            value: parts.join("; "),
        });
    }
    // the smallest upper bound among routes that rest on no cited result; the others only
    // when no such route answers
    let best = |get: fn(&Route) -> Option<&Answer>| -> Option<(usize, Answer)> {
        let pick = |cited: bool| {
            routes
                .iter()
                .enumerate()
                .filter_map(|(i, r)| get(r).map(|a| (i, a.clone())))
                .filter(|(_, a)| cited || a.rests_on().is_none())
                .min_by(|a, b| a.1.upper().0.partial_cmp(&b.1.upper().0).expect("no NaN"))
        };
        pick(false).or_else(|| pick(true))
    };
    let best_epsilon = best(|r| r.epsilon.as_ref());
    let best_delta = best(|r| r.delta.as_ref());

    // δ at the claimed ε over every route: the budget query's if it is at that ε, else a probe
    let claim = match &d.claim {
        None => None,
        Some((ce, cd)) if d.budget_epsilon.as_ref() == Some(ce) => {
            Some(check_claim(&routes, best_delta.clone(), ce, cd))
        }
        Some((ce, cd)) => {
            let mut probe = d.clone();
            probe.budget_epsilon = Some(ce.clone());
            probe.budget_delta = None;
            probe.claim = None;
            let r = audit_with(&probe, pld)?;
            Some(check_claim(&r.routes, r.best_delta, ce, cd))
        }
    };
    let mut notes = Vec::new();
    for m in &l.entries {
        if matches!(
            m.mechanism,
            Mechanism::SubsampledGaussian { shuffled: true, .. }
        ) {
            notes.push(format!(
                "WARNING: `{}` declares shuffled batches but asks for Poisson accounting: every number above assumes Poisson sampling, which this deployment did not use; no theorem here certifies shuffled batches.",
                m.name
            ));
        }
    }
    if let (Some(dl), Some((i, a))) = (&d.budget_delta, &best_epsilon) {
        let zero_dp = l
            .entries
            .iter()
            .all(|m| m.mechanism.approx() == Some((Rational::new(), Rational::new())));
        if a.upper().0 == 0 && zero_dp {
            notes.push("ε = 0: every mechanism is 0-DP.".into());
        } else if a.upper().0 == 0 {
            let what = if routes[*i].name == "exact Gaussian composition" {
                "Gaussians"
            } else {
                "mechanisms"
            };
            notes.push(format!("ε = 0 because the budget δ = {} is at least the total variation distance δ(0) of the composed {what}: no ε > 0 is needed.", show(dl)));
        }
    }
    if d.budget_delta.is_some() && best_epsilon.is_none() {
        notes.push(no_route_reason(l, d, &t, true));
    }
    if d.budget_epsilon.is_some() && best_delta.is_none() {
        let n = no_route_reason(l, d, &t, false);
        if !notes.contains(&n) {
            notes.push(n);
        }
    }
    if let Some((_, a)) = &best_delta {
        if a.upper().0 == 0 {
            notes.push("δ = 0: the mechanisms are pure DP and Σεⱼ does not exceed the budget ε (Theorem 1).".into());
        }
    }
    Ok(Report {
        deployment: d.clone(),
        ledger,
        routes,
        best_epsilon,
        best_delta,
        claim,
        notes,
    })
}

/// Optimal composition (KOV15/MV16 via Corollary 24) of every mechanism's (ε, δ) guarantee.
/// Its lower bounds are lower bounds of the optimum for mechanisms *as described*: exact for
/// randomized response and for black boxes (the worst case over their class), not for Laplace.
fn optimal_route(l: &Ledger, d: &Deployment) -> Result<Route> {
    let prec = Precision::Auto;
    let mut classes: Vec<optimal::Class> = Vec::new();
    for m in &l.entries {
        let (e, dl) = m.mechanism.approx().expect("checked by the caller");
        match classes.iter_mut().find(|c| c.epsilon == e && c.delta == dl) {
            Some(c) => c.count += &m.repeat,
            None => classes.push(optimal::Class {
                epsilon: e,
                delta: dl,
                count: m.repeat.clone(),
            }),
        }
    }
    let exact = !l
        .entries
        .iter()
        .any(|m| matches!(m.mechanism, Mechanism::Laplace { .. }));
    let mut note = None;
    let too_big = |e: &crate::Error| matches!(e, crate::Error::InvalidArgument { name, .. } if name == "classes" || name == "count");
    let epsilon = match &d.budget_delta {
        None => None,
        Some(dl) => match optimal::optimal_composition_epsilon(&classes, dl, prec) {
            Ok(e) => Some(answer(e, exact)),
            Err(e) if too_big(&e) => {
                note = Some("too many distinct classes for the exact ε; see δ".to_string());
                None
            }
            Err(crate::Error::InvalidArgument { name, reason }) if name == "delta" => {
                note = Some(reason);
                None
            }
            Err(e) => return Err(e),
        },
    };
    let delta = match &d.budget_epsilon {
        None => None,
        Some(e) => match optimal::optimal_composition_delta(&classes, e, prec) {
            Ok(x) => Some(answer(x, exact)),
            Err(err) if too_big(&err) => {
                note = Some("many distinct classes: δ bracketed by grouping them into 4 classes (rounded up for the upper bound, down for the lower)".into());
                Some(answer(
                    optimal::grouped_composition_delta(&classes, e, 4)?,
                    exact,
                ))
            }
            Err(err) => return Err(err),
        },
    };
    let delta = delta.filter(|a| a.upper().0 < 1);
    Ok(Route {
        name: "optimal composition",
        steps: vec![
            Step {
                theorem: "Corollary 24 (each (εⱼ, δⱼ)-DP mechanism is post-processed (εⱼ, δⱼ)-randomized response)".into(),
                value: format!("{} distinct classes", classes.len()),
            },
            Step {
                theorem: "Kairouz–Oh–Viswanath 2015 / Murtagh–Vadhan 2016 (exact hockey stick of the RR product)".into(),
                value: if exact { "two-sided".into() } else { "upper bound (Laplace is not its worst case)".into() },
            },
        ],
        epsilon,
        delta,
        note,
    })
}

/// Gaussians (or zCDP mechanisms) mixed with (ε, δ) black boxes: the composed Gaussians are
/// (ε_g, δ_g(ε_g))-DP for every ε_g (Corollary 10, Corollary 8; with zCDP members, Theorem 13 and
/// Proposition 14), so they enter optimal composition as one more (ε_g, δ_g) class. Any ε_g
/// gives a valid bound; an f64 search picks it. Upper bounds only.
fn gaussian_split_route(l: &Ledger, d: &Deployment) -> Result<Option<Route>> {
    let is_split = |m: &Mechanism| matches!(m, Mechanism::Gaussian { .. } | Mechanism::Zcdp { .. });
    let split: Vec<_> = l
        .entries
        .iter()
        .filter(|m| is_split(&m.mechanism))
        .collect();
    let others: Vec<_> = l
        .entries
        .iter()
        .filter(|m| !is_split(&m.mechanism))
        .collect();
    if split.is_empty()
        || others.is_empty()
        || others.iter().any(|m| m.mechanism.approx().is_none())
    {
        return Ok(None);
    }
    let prec = Precision::Auto;
    // exact Gaussian composition when every split member is Gaussian, else ρ-zCDP
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
    let split_delta = |eg: &Rational| -> Option<Upper> {
        match &pld {
            Some(p) => gaussian::gaussian_delta(p, eg, prec)
                .ok()
                .map(|e| e.upper().clone()),
            None if rho > 0 => zcdp::zcdp_delta(&rho, eg, prec)
                .ok()
                .map(|b| b.upper().clone()),
            None => None,
        }
    };
    let mut classes: Vec<optimal::Class> = Vec::new();
    for m in &others {
        let (e, dl) = m.mechanism.approx().expect("checked above");
        classes.push(optimal::Class {
            epsilon: e,
            delta: dl,
            count: m.repeat.clone(),
        });
    }
    // the split part at ε_g, as a class with its certified δ_g (upper end, exactly)
    let with_split = |eg: f64| -> Option<Vec<optimal::Class>> {
        let eg = Rational::from_f64(eg.max(0.0))?;
        let dg = split_delta(&eg)?.0.to_rational()?;
        if dg >= 1 {
            return None;
        }
        let mut c = classes.clone();
        c.push(optimal::Class {
            epsilon: eg,
            delta: dg,
            count: Integer::from(1),
        });
        Some(c)
    };
    let r = rho.to_f64();
    let top = r + 2.0 * (r * 700.0).sqrt() + 1.0;
    let mut split_note = Vec::new();
    let epsilon = match &d.budget_delta {
        None => None,
        Some(dl) => {
            let f = |eg: f64| {
                with_split(eg)
                    .and_then(|c| optimal::optimal_composition_epsilon(&c, dl, prec).ok())
                    .map_or(f64::INFINITY, |e| e.upper().to_f64())
            };
            let eg = crate::search::minimize_with(f, 0.0, top, 24, 48);
            match with_split(eg).map(|c| optimal::optimal_composition_epsilon(&c, dl, prec)) {
                Some(Ok(e)) => {
                    split_note.push(format!("ε at δ: split at ε_g = {eg:.6}"));
                    Some(answer(e, false))
                }
                _ => None,
            }
        }
    };
    let delta = match &d.budget_epsilon {
        None => None,
        Some(e) => {
            let ef = e.to_f64();
            let f = |eg: f64| {
                with_split(eg)
                    .and_then(|c| optimal::optimal_composition_delta(&c, e, prec).ok())
                    .map_or(f64::INFINITY, |x| x.upper().to_f64())
            };
            let eg = crate::search::minimize_with(f, 0.0, ef.max(1e-9), 24, 48);
            match with_split(eg).map(|c| optimal::optimal_composition_delta(&c, e, prec)) {
                Some(Ok(x)) if x.upper().0 < 1 => {
                    split_note.push(format!("δ at ε: split at ε_g = {eg:.6}"));
                    Some(answer(x, false))
                }
                _ => None,
            }
        }
    };
    let first = if pld.is_some() {
        "Theorem 9 / Corollary 10, then Corollary 8 (the Gaussians are (ε_g, δ_g(ε_g))-DP for every ε_g)"
    } else {
        "Lemma 12 / Theorem 13, then Proposition 14 (the zCDP part is (ε_g, δ_g(ε_g))-DP for every ε_g)"
    };
    Ok(Some(Route {
        name: "Gaussian split + optimal",
        steps: vec![
            Step { theorem: first.into(), value: format!("ρ = {}; {}", show(&rho), split_note.join("; ")) },
            Step {
                theorem: "Corollary 24 + Kairouz–Oh–Viswanath / Murtagh–Vadhan (optimal composition with the other mechanisms)".into(),
                value: format!("{} other classes", classes.len()),
            },
        ],
        epsilon,
        delta,
        note: None,
    }))
}

/// The deployment's PLD terms for one neighbour direction (identical mechanisms merged by
/// adding their counts); `None` if a mechanism has no PLD.
fn pld_terms(l: &Ledger, direction: Direction) -> Option<Vec<PldTerm>> {
    let mut terms: Vec<PldTerm> = Vec::new();
    for m in &l.entries {
        let (mechanism, k) = m.mechanism.pld_term(direction)?;
        let count = k * &m.repeat;
        match terms.iter_mut().find(|t| t.mechanism == mechanism) {
            Some(t) => t.count += count,
            None => terms.push(PldTerm { mechanism, count }),
        }
    }
    Some(terms)
}

/// One PLD query on each neighbour direction's terms, the directions on parallel threads (a
/// failure or panic of the accountant comes back as an error).
fn pld_directions(
    sets: &[(&'static str, Vec<PldTerm>)],
    query: impl Fn(&[PldTerm]) -> Result<PldReport> + Sync,
) -> Result<Vec<PldReport>> {
    std::thread::scope(|sc| {
        let runs: Vec<_> = sets
            .iter()
            .map(|(_, terms)| sc.spawn(|| query(terms)))
            .collect();
        runs.into_iter()
            .map(|r| {
                r.join()
                    .map_err(|_| Error::Numerical("PLD accountant panicked".into()))?
            })
            .collect()
    })
}

/// The larger of the directions' values: upper = max of the uppers, lower = max of the lowers
/// (each direction's lower bound is below its own value, hence below the maximum).
fn max_over_directions(reports: &[PldReport]) -> Result<Enclosure> {
    let mut lo = reports[0].enclosure.lower().0.clone();
    let mut hi = reports[0].enclosure.upper().0.clone();
    for r in &reports[1..] {
        lo = lo.max(&r.enclosure.lower().0);
        hi = hi.max(&r.enclosure.upper().0);
    }
    reports[0].enclosure.with_endpoints(lo, hi)
}

/// The certified PLD accountant (Theorem 9 evaluated on a grid with dominating and dominated
/// discretisations): Gaussian, Laplace, randomized response and Poisson-subsampled Gaussians
/// exactly, ε-DP and (ε, δ)-DP black boxes as their worst case (ε, δ)-RR (Corollary 24); two
/// sided. `None` when a mechanism (a zCDP black box) has no PLD. The accountant's errors
/// (e.g. a budget δ below its resolution) become the route's note.
fn pld_route(l: &Ledger, d: &Deployment) -> Option<Route> {
    // only subsampled Gaussians have a PLD that depends on the neighbour direction
    let directed = l
        .entries
        .iter()
        .any(|m| matches!(m.mechanism, Mechanism::SubsampledGaussian { .. }));
    let directions: &[(&'static str, Direction)] = if directed {
        &[("remove", Direction::Remove), ("add", Direction::Add)]
    } else {
        &[("either", Direction::Remove)]
    };
    let assumes_poisson = l.entries.iter().any(|m| {
        matches!(
            m.mechanism,
            Mechanism::SubsampledGaussian { shuffled: true, .. }
        )
    });
    let sets = directions
        .iter()
        .map(|(name, dir)| pld_terms(l, *dir).map(|t| (*name, t)))
        .collect::<Option<Vec<_>>>()?;
    // long accountant runs draw a progress line on a terminal (stderr only)
    let opts = PldOptions {
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        ..PldOptions::default()
    };
    let mut grids = Vec::new();
    let mut by_direction = Vec::new();
    let mut failures = Vec::new();
    let mut answer = |what: &str, given: &str, at: &Rational, q: Result<Vec<PldReport>>| {
        let reports = match q {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{what} at {given}: {e}"));
                return None;
            }
        };
        let grid = |r: &PldReport| {
            format!(
                "h = {}, τ = {}, {} fraction bits, {} points",
                show(&r.grid),
                show(&r.tail),
                r.fixed_bits,
                r.support
            )
        };
        let named = |f: &dyn Fn(&PldReport) -> String| {
            sets.iter()
                .zip(&reports)
                .map(|((name, _), r)| format!("{name}: {}", f(r)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if reports.iter().all(|r| grid(r) == grid(&reports[0])) {
            grids.push(format!("{what} at {given}: {}", grid(&reports[0])));
        } else {
            grids.push(format!("{what} at {given}: {}", named(&grid)));
        }
        if directed {
            by_direction.push(named(&|r| {
                format!(
                    "{what}({given}={}) ∈ [{}, {}]",
                    show(at),
                    r.enclosure.lower().to_decimal(),
                    r.enclosure.upper().to_decimal()
                )
            }));
        }
        // shuffled batches accounted as Poisson: the Poisson numbers bound nothing from
        // below, so they may verify (with the warning) but never refute
        Some(answer(
            max_over_directions(&reports).ok()?,
            !assumes_poisson,
        ))
    };
    let epsilon = d.budget_delta.as_ref().and_then(|dl| {
        let q = pld_directions(&sets, |t| pld_epsilon(t, dl, &opts));
        answer("ε", "δ", dl, q)
    });
    let delta = d.budget_epsilon.as_ref().and_then(|e| {
        let q = pld_directions(&sets, |t| pld_delta(t, e, &opts));
        answer("δ", "ε", e, q)
    });
    let delta = delta.filter(|a| a.upper().0 < 1);
    let mut steps = vec![
        Step {
            theorem: "Proposition 3 / Corollary 24 (each mechanism's PLD: Gaussian N(ρⱼ, 2ρⱼ), ε-RR and Poisson-subsampled Gaussians exactly; Laplace as the one-dimensional pair (Lap(0,b), Lap(Δ,b)), exact in one dimension and the worst case for ℓ1 sensitivity Δ (Zhu–Dong–Wang 2022, cited); ε-DP and (ε, δ)-DP black boxes as (ε, δ)-RR, their worst case)".into(),
            value: format!("{} distinct terms", sets[0].1.len()),
        },
        Step {
            theorem: "Theorem 9 on a grid (certified PLD accountant: dominating and dominated discretisations, exact convolution)".into(),
            value: grids.join("; "),
        },
    ];
    steps.push(if directed {
        Step {
            theorem: "Neighbour directions: only the subsampled Gaussians' PLDs depend on them (the others are symmetric), so the composition is computed for remove and for add; the exact value is the larger, hence upper = max of the uppers, lower = max of the lowers".into(),
            value: by_direction.join("; "),
        }
    } else {
        Step {
            theorem: "Neighbour directions: every PLD here is symmetric, so one composition serves both".into(),
            value: String::new(),
        }
    });
    Some(Route {
        name: "PLD",
        steps,
        epsilon,
        delta,
        note: (!failures.is_empty()).then(|| format!("failed: {}", failures.join("; "))),
    })
}

fn no_route_reason(l: &Ledger, d: &Deployment, t: &Totals, eps_query: bool) -> String {
    let has_sgm = l
        .entries
        .iter()
        .any(|m| matches!(m.mechanism, Mechanism::SubsampledGaussian { .. }));
    let has_approx = l
        .entries
        .iter()
        .any(|m| matches!(&m.mechanism, Mechanism::Approx { delta, .. } if *delta > 0));
    let has_zcdp = l
        .entries
        .iter()
        .any(|m| matches!(m.mechanism, Mechanism::Zcdp { .. }));
    if has_sgm && has_approx && has_zcdp {
        return "no route: subsampled Gaussians are accounted in Rényi DP, which approximate-DP black boxes do not have, or by the PLD accountant, which zCDP black boxes do not have; no theorem implemented here combines all three.".into();
    }
    if has_sgm && has_approx {
        return "no route: only the PLD accountant combines subsampled Gaussians with approximate-DP black boxes, and it certified no bound here.".into();
    }
    if let Some((_, sd, _, _)) = &t.approx {
        if eps_query && d.budget_delta.as_ref().is_some_and(|b| sd >= b) {
            return format!("ε = ∞: the mechanisms' own δⱼ already sum to {} ≥ the budget δ, so no finite ε can hold at that δ.", show(sd));
        }
    }
    if eps_query {
        "ε = ∞: no implemented route certifies a finite ε at this δ.".into()
    } else {
        "δ = 1 (trivial): no implemented route certifies δ < 1 at this ε; a pure-DP bound needs ε ≥ Σεⱼ, and the advanced bound needs ε ≥ ½Σεⱼ².".into()
    }
}

/// The verdict on the claim (ε_c, δ_c) from the routes' δ at ε_c: verified by the best upper
/// bound, refuted by the largest lower bound of an exact route.
fn check_claim(
    routes: &[Route],
    best: Option<(usize, Answer)>,
    ce: &Rational,
    cd: &Rational,
) -> ClaimCheck {
    let exact = routes
        .iter()
        .enumerate()
        .filter_map(|(i, x)| {
            x.delta
                .as_ref()
                .filter(|a| a.is_two_sided())
                .map(|a| (i, a.clone()))
        })
        .fold(None, |m: Option<(usize, Answer)>, x| match m {
            Some(m) if m.1.formula().lower().0 >= x.1.formula().lower().0 => Some(m),
            _ => Some(x),
        });
    let (verdict, route, explanation) = match &best {
        Some((i, a)) if a.upper().0 <= *cd => (
            Verdict::Verified,
            Some(routes[*i].name),
            format!(
                "certified δ(ε={}) ≤ {} ≤ claimed δ = {}",
                show(ce),
                a.upper().to_decimal(),
                show(cd)
            ),
        ),
        _ => match &exact {
            Some((i, a)) if a.formula().lower().0 > *cd => (
                Verdict::Refuted,
                Some(routes[*i].name),
                format!(
                    "the exact δ(ε={}) is at least {} > claimed δ = {}",
                    show(ce),
                    a.formula().lower().to_decimal(),
                    show(cd)
                ),
            ),
            _ => (
                Verdict::Undecided,
                best.as_ref().map(|(i, _)| routes[*i].name),
                match &best {
                    Some((_, a)) => format!(
                        "best certified δ(ε={}) ∈ [{}, {}] does not separate from claimed δ = {}",
                        show(ce),
                        if a.is_two_sided() {
                            a.formula().lower().to_decimal()
                        } else {
                            "unknown".into()
                        },
                        a.upper().to_decimal(),
                        show(cd)
                    ),
                    None => format!("no route certifies any δ < 1 at ε = {}", show(ce)),
                },
            ),
        },
    };
    let delta_at_claim = match (&verdict, exact) {
        (Verdict::Refuted, Some((_, a))) => Some(a),
        _ => best.map(|b| b.1),
    };
    ClaimCheck {
        epsilon: ce.clone(),
        delta: cd.clone(),
        verdict,
        delta_at_claim,
        route,
        explanation,
    }
}

fn enc_json(a: &Answer) -> serde_json::Value {
    serde_json::json!({
        "lower": if a.is_two_sided() { serde_json::Value::from(a.formula().lower().to_decimal()) } else { serde_json::Value::Null },
        "upper": a.upper().to_decimal(),
        "exact": a.is_two_sided(),
        "kind": a.kind(),
        "rests_on": a.rests_on(),
        "precision_bits": a.formula().precision_bits(),
        "arithmetic": a.formula().arithmetic().name(),
    })
}

fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Verified => "verified",
        Verdict::Refuted => "refuted",
        Verdict::Undecided => "undecided",
    }
}

impl Report {
    /// The machine-readable report.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let d = &self.deployment;
        let l = &self.ledger;
        let mut o = Map::new();
        o.insert(
            "mechanisms".into(),
            Value::Array(
                l.entries
                    .iter()
                    .map(|m| json!({"name": m.name, "mechanism": m.mechanism.describe(), "repeat": m.repeat.to_string()}))
                    .collect(),
            ),
        );
        if let Some(dl) = &d.budget_delta {
            o.insert("budget_delta".into(), json!(show(dl)));
            o.insert(
                "epsilon".into(),
                match &self.best_epsilon {
                    Some((_, a)) => enc_json(a),
                    // no route certified a finite ε: null, never "inf" (the notes say why)
                    None => Value::Null,
                },
            );
        }
        if let Some(e) = &d.budget_epsilon {
            o.insert("budget_epsilon".into(), json!(show(e)));
            o.insert(
                "delta".into(),
                match &self.best_delta {
                    Some((_, a)) => enc_json(a),
                    // no route certified a δ below the trivial 1: null (the notes say why)
                    None => Value::Null,
                },
            );
        }
        let winner = self
            .best_epsilon
            .as_ref()
            .or(self.best_delta.as_ref())
            .map(|(i, _)| self.routes[*i].name);
        o.insert("route".into(), json!(winner));
        if let Some((i, _)) = &self.best_epsilon {
            o.insert("epsilon_route".into(), json!(self.routes[*i].name));
        }
        if let Some((i, _)) = &self.best_delta {
            o.insert("delta_route".into(), json!(self.routes[*i].name));
        }
        o.insert(
            "routes".into(),
            Value::Array(
                self.routes
                    .iter()
                    .map(|r| {
                        json!({
                            "name": r.name,
                            "theorems": r.steps.iter().map(|s| s.theorem.clone()).collect::<Vec<_>>(),
                            "steps": r.steps.iter().map(|s| json!({"theorem": s.theorem, "value": s.value})).collect::<Vec<_>>(),
                            "epsilon": r.epsilon.as_ref().map(enc_json),
                            "delta": r.delta.as_ref().map(enc_json),
                            "note": r.note,
                        })
                    })
                    .collect(),
            ),
        );
        if let Some(c) = &self.claim {
            o.insert(
                "claim".into(),
                json!({
                    "epsilon": show(&c.epsilon),
                    "delta": show(&c.delta),
                    "verdict": verdict_name(&c.verdict),
                    "delta_at_claimed_epsilon": c.delta_at_claim.as_ref().map(enc_json),
                    "route": c.route,
                    "explanation": c.explanation,
                }),
            );
        }
        o.insert("notes".into(), json!(self.notes));
        Value::Object(o)
    }

    /// The human-readable table.
    pub fn to_table(&self) -> String {
        use std::fmt::Write;
        let d = &self.deployment;
        let l = &self.ledger;
        let mut s = String::new();
        let _ = writeln!(s, "Mechanisms");
        let w = l
            .entries
            .iter()
            .map(|m| m.name.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, 60); // a width above u16::MAX panics in `format!`
        for m in &l.entries {
            let _ = writeln!(
                s,
                "  {:<w$}  {:<34} × {}",
                m.name,
                m.mechanism.describe(),
                m.repeat
            );
        }
        let _ = writeln!(s);
        let head_e = d
            .budget_delta
            .as_ref()
            .map(|x| format!("ε at δ={}", show(x)));
        let head_d = d
            .budget_epsilon
            .as_ref()
            .map(|x| format!("δ at ε={}", show(x)));
        let mut header = format!("{:<29}", "Routes");
        if let Some(h) = &head_e {
            header += &format!("  {h:<26}");
        }
        if let Some(h) = &head_d {
            header += &format!("  {h}");
        }
        let _ = writeln!(s, "{}", header.trim_end());
        let cell = |a: &Option<Answer>, inf: &str| match a {
            Some(a) if a.is_two_sided() => {
                format!(
                    "[{}, {}]",
                    a.formula().lower().to_decimal_digits(8),
                    a.upper().to_decimal_digits(8)
                )
            }
            Some(a) if a.rests_on().is_some() => {
                format!("≤ {} (cited)", a.upper().to_decimal_digits(8))
            }
            Some(a) => format!("≤ {}", a.upper().to_decimal_digits(8)),
            None => inf.to_string(),
        };
        for r in &self.routes {
            let mut line = format!("  {:<27}", r.name);
            if head_e.is_some() {
                let _ = write!(line, "  {:<26}", cell(&r.epsilon, "—"));
            }
            if head_d.is_some() {
                let _ = write!(line, "  {}", cell(&r.delta, "—"));
            }
            if let Some(n) = &r.note {
                let _ = write!(line, "   ({n})");
            }
            let _ = writeln!(s, "{}", line.trim_end());
        }
        let _ = writeln!(s);
        if let Some(dl) = &d.budget_delta {
            match &self.best_epsilon {
                Some((i, a)) => {
                    let _ = writeln!(
                        s,
                        "Certified: ({}, {})-DP   [{}]",
                        a.upper().to_decimal(),
                        show(dl),
                        self.routes[*i].name
                    );
                    if a.is_two_sided() && a.formula().lower().0 > 0 {
                        let _ = writeln!(
                            s,
                            "  exact: no ε below {} holds at this δ",
                            a.formula().lower().to_decimal()
                        );
                    }
                }
                None => {
                    let _ = writeln!(s, "Certified: no finite ε at δ = {}", show(dl));
                }
            }
        }
        if let Some(e) = &d.budget_epsilon {
            match &self.best_delta {
                Some((i, a)) => {
                    let _ = writeln!(
                        s,
                        "Certified: ({}, {})-DP   [{}]",
                        show(e),
                        a.upper().to_decimal(),
                        self.routes[*i].name
                    );
                }
                None => {
                    let _ = writeln!(s, "Certified: no δ < 1 at ε = {}", show(e));
                }
            }
        }
        if let Some(c) = &self.claim {
            let _ = writeln!(
                s,
                "Claim ({}, {})-DP: {}. {}",
                show(&c.epsilon),
                show(&c.delta),
                verdict_name(&c.verdict).to_uppercase(),
                c.explanation
            );
        }
        let cited = self
            .routes
            .iter()
            .flat_map(|r| [&r.epsilon, &r.delta])
            .find_map(|a| a.as_ref().and_then(|a| a.rests_on()));
        if let Some(c) = cited {
            let _ = writeln!(s, "(cited) rests on {c}");
        }
        for n in &self.notes {
            let _ = writeln!(s, "Note: {n}");
        }
        s
    }
}
