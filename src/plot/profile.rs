//! The privacy profile δ(ε) of a deployment: what `dpcert audit` certifies, drawn. The audit
//! runs once; its best route's certified upper and lower curves are drawn bold, the other
//! applicable routes' upper curves faint, the budget δ as a horizontal line with the audit's
//! certified ε at it, and the claim as a point coloured by the audit's verdict.
//!
//! δ(ε) is non-increasing in ε, so between two certified samples ε_i < ε_{i+1} the curves are
//! drawn as steps that stay bounds everywhere: the upper curve holds δ_up(ε_i) until ε_{i+1}
//! (δ(ε) ≤ δ(ε_i) ≤ δ_up(ε_i)), the lower curve holds δ_low(ε_{i+1}) from ε_i on
//! (δ(ε) ≥ δ(ε_{i+1}) ≥ δ_low(ε_{i+1})). So no drawn segment crosses the claim unless the
//! certified bounds do.
use super::axis::{Axis, Tick};
use super::svg::{x_span, y_span, Chart, Stroke, Swatch};
use crate::audit::{audit, verdict_word, Report, RouteId, Verdict, ROUTES};
use crate::deploy::Deployment;
use crate::num::Certified;
use crate::validate::show;
use crate::{Error, Result};
use rug::Rational;

/// Intervals of the ε axis the best route is certified on: [`FINE_SAMPLES`] for a route whose
/// curve is cheap (the PLD accountant reads its whole curve off one composition; the exact
/// Gaussian and zCDP routes are closed forms), else [`SAMPLES`].
pub const SAMPLES: usize = 60;
/// See [`SAMPLES`].
pub const FINE_SAMPLES: usize = 240;
/// Intervals of the ε axis the other routes (drawn faint: steps, a dot at each certified
/// point) are certified on.
pub const FAINT_SAMPLES: usize = 10;
/// The lowest decade the δ axis reaches; smaller values are drawn on its bottom edge.
const FLOOR_EXP: i32 = -20;

/// One route's certified samples: (ε, upper bound of δ, lower bound of δ if two-sided). An
/// upper end of `1.0` stands for "no δ < 1 certified" (the trivial bound).
#[derive(Clone, Debug)]
pub struct RouteCurve {
    /// Which route.
    pub route: RouteId,
    /// (ε, δ upper, δ lower): the upper end rounded up to `f64`, the lower end down.
    pub points: Vec<(f64, f64, Option<f64>)>,
}

/// The privacy profile: the audit, and each applicable route's certified samples.
pub struct Profile {
    /// The audit the chart draws (one run of [`crate::audit::audit`]).
    pub report: Report,
    /// The route whose curves are drawn bold (the audit's best answer).
    pub best: RouteCurve,
    /// The other routes, certified at [`FAINT_SAMPLES`] + 1 points.
    pub others: Vec<RouteCurve>,
    /// The ε axis (its labelled ticks are round, its end is the last sample).
    pub x: Axis,
}

/// The deployment's audit: as given, or, without a budget or a claim, at ε = 1 (so that the
/// routes are run and ranked).
fn run_audit(d: &Deployment) -> Result<Report> {
    let probe = if d.budget_delta.is_none() && d.budget_epsilon.is_none() && d.claim.is_none() {
        d.clone().at_epsilon(1)?
    } else {
        d.clone()
    };
    audit(&probe)
}

/// The ε range to draw: up to twice the interesting ε (budget, claim) and 1.5 times the audit's
/// certified ε, at least 1.
fn epsilon_top(r: &Report) -> Result<f64> {
    let d = &r.deployment;
    let mut top = 1.0f64;
    for e in d
        .budget_epsilon
        .iter()
        .chain(d.claim.as_ref().map(|c| &c.0))
    {
        top = top.max(2.0 * e.to_f64());
    }
    if let Some((_, a)) = &r.best_epsilon {
        top = top.max(1.5 * a.upper().to_f64());
    }
    if !top.is_finite() {
        return Err(Error::arg(
            "FILE",
            "the ε range to plot is not finite (a budget, claim or certified ε beyond the f64 range); nothing to draw",
        ));
    }
    Ok(top)
}

/// The (ε, δ up, δ low) points of one route's answers.
fn points(eps: &[Rational], answers: Vec<Option<Certified>>) -> Vec<(f64, f64, Option<f64>)> {
    eps.iter()
        .zip(answers)
        .map(|(e, a)| match a {
            Some(a) => (
                e.to_f64(),
                a.upper().to_f64().min(1.0),
                a.is_two_sided()
                    .then(|| a.formula().lower().to_f64().max(0.0)),
            ),
            None => (e.to_f64(), 1.0, None),
        })
        .collect()
}

/// One route's samples at `eps`, from the route's own [`crate::audit::Route::delta_curve`].
fn route_curve(r: &Report, id: RouteId, eps: &[Rational]) -> Result<RouteCurve> {
    let route = ROUTES
        .iter()
        .find(|x| x.id() == id)
        .expect("every audited route is in ROUTES");
    Ok(RouteCurve {
        route: id,
        points: points(eps, route.delta_curve(&r.ledger, eps)?),
    })
}

/// The route drawn bold: the audit's best for its ε query, else for its δ query.
fn best_route(r: &Report) -> Option<RouteId> {
    r.best_epsilon
        .as_ref()
        .or(r.best_delta.as_ref())
        .map(|(i, _)| r.routes[*i].id)
}

/// The privacy profile of `d`: one audit, then the best route's δ(ε) at [`FINE_SAMPLES`] + 1
/// (or [`SAMPLES`] + 1) points of the ε axis and every other applicable route's at
/// [`FAINT_SAMPLES`] + 1.
///
/// # Guarantee
/// Every sample is a route's certified answer to δ at that (exact) ε, the same the audit gives
/// at a budget ε: upper ends rounded up to `f64`, lower ends down. Errors: the audit's, a
/// substitution run (no δ(ε) curve), or no route certifying δ(ε) at all.
pub fn profile(d: &Deployment) -> Result<Profile> {
    if crate::audit::Ledger::from_event(&d.event)?
        .substitution()
        .is_some()
    {
        return Err(Error::arg(
            "FILE",
            "the deployment is a substitution run (relation = \"substitution\"), for which dpcert certifies ε at a δ but no δ(ε) curve; nothing to draw (use `dpcert audit`)",
        ));
    }
    let report = run_audit(d)?;
    let (x0, x1) = x_span();
    let x = Axis::linear(0.0, epsilon_top(&report)?, x0, x1, true);
    // samples at f64 values of ε, certified exactly there (so each drawn step starts at the
    // very ε it was certified at)
    let grid = |n: usize| -> Vec<Rational> {
        (0..=n)
            .map(|i| Rational::from_f64(x.hi * i as f64 / n as f64).expect("finite"))
            .collect()
    };
    let Some(best_id) = best_route(&report) else {
        return Err(Error::arg(
            "FILE",
            "no route certifies δ(ε) for this deployment; nothing to draw (see `dpcert audit`)",
        ));
    };
    let cheap = matches!(
        best_id,
        RouteId::Pld | RouteId::ExactGaussian | RouteId::Zcdp
    );
    // the other routes on a second thread while the best route's curve is computed (the same
    // results either way; only the wall time changes)
    let others_job = || -> Result<Vec<RouteCurve>> {
        report
            .routes
            .iter()
            .filter(|r| r.id != best_id)
            .map(|r| route_curve(&report, r.id, &grid(FAINT_SAMPLES)))
            .collect()
    };
    let best_eps = grid(if cheap { FINE_SAMPLES } else { SAMPLES });
    let (best, others) = std::thread::scope(|sc| {
        let others = sc.spawn(others_job);
        let best = route_curve(&report, best_id, &best_eps);
        (best, others.join())
    });
    let best = best?;
    let others = others.map_err(|_| Error::Numerical("a route's curve panicked".into()))??;
    Ok(Profile {
        report,
        best,
        others,
        x,
    })
}

/// Steps through samples (ε_i, v_i): `hold_right` holds each value until the next ε (an upper
/// bound of a non-increasing function), else each value is held back to the previous ε (a
/// lower bound).
pub(super) fn steps(pts: &[(f64, f64)], hold_right: bool) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(2 * pts.len());
    for (i, &(e, v)) in pts.iter().enumerate() {
        let from = if hold_right || i == 0 {
            e
        } else {
            pts[i - 1].0
        };
        let to = match pts.get(i + 1) {
            Some(&(next, _)) if hold_right => next,
            _ => e,
        };
        out.push((from, v));
        out.push((to, v));
    }
    out
}

/// Faint routes' colours.
const PALETTE: [&str; 6] = [
    "#e66100", "#26a269", "#9141ac", "#865e3c", "#c01c28", "#5e5c64",
];
const BEST: &str = "#1a5fb4";

impl Profile {
    /// The δ axis: from the decade below the smallest of the best upper curve, the budget δ and
    /// the claimed δ (at least 10⁻²⁰) up to 1.
    fn y_axis(&self) -> Axis {
        let d = &self.report.deployment;
        let least = self
            .best
            .points
            .iter()
            .map(|p| p.1)
            .chain(d.budget_delta.iter().map(Rational::to_f64))
            .chain(d.claim.iter().map(|c| c.1.to_f64()))
            .filter(|v| *v > 0.0)
            .fold(1.0f64, f64::min);
        let lo = (least.log10().floor() as i32).clamp(FLOOR_EXP, -1);
        let (y0, y1) = y_span();
        Axis::log(lo, 0, y0, y1, false)
    }

    /// The chart as an SVG document (a picture: coordinates rounded to 0.01 px; read numbers
    /// from the audit).
    pub fn svg(&self) -> String {
        let r = &self.report;
        let name = self.best.route.name();
        let kind = if self.best.points.iter().any(|p| p.2.is_some()) {
            "certified lower and upper bounds"
        } else {
            "certified upper bound"
        };
        let subtitle = format!(
            "as `dpcert audit` certifies it: {name}, {kind} at {} values of ε (steps between them)",
            self.best.points.len()
        );
        let mut c = Chart::new(
            self.x.clone(),
            self.y_axis(),
            ["Privacy profile δ(ε)", &subtitle, "ε", "δ(ε)   (log scale)"],
        );
        for (i, o) in self.others.iter().enumerate() {
            let s = Stroke {
                color: PALETTE[i % PALETTE.len()],
                width: 1.5,
                dash: "",
                opacity: 0.5,
            };
            let pts: Vec<(f64, f64)> = o.points.iter().map(|p| (p.0, p.1)).collect();
            c.polyline(
                "upper other",
                &steps(&pts, true),
                Stroke { width: 1.0, ..s },
            );
            c.dots("upper other dots", &pts, s.color, 0.8);
            c.legend(
                Swatch::Dots(s),
                format!("{}: upper bound (certified at the dots)", o.route.name()),
            );
        }
        self.draw_best(&mut c);
        self.draw_budget(&mut c);
        self.draw_claim(&mut c, r);
        self.floor_note(&mut c);
        c.finish()
    }

    fn draw_best(&self, c: &mut Chart) {
        let name = self.best.route.name();
        let up: Vec<(f64, f64)> = self.best.points.iter().map(|p| (p.0, p.1)).collect();
        let s = Stroke {
            color: BEST,
            width: 2.5,
            dash: "",
            opacity: 1.0,
        };
        c.polyline("upper best", &steps(&up, true), s);
        c.legend(Swatch::Line(s), format!("{name}: upper bound"));
        let lo: Vec<(f64, f64)> = self
            .best
            .points
            .iter()
            .filter_map(|p| p.2.map(|l| (p.0, l)))
            .collect();
        if !lo.is_empty() {
            let s = Stroke {
                color: "#62a0ea",
                dash: "6 4",
                width: 2.0,
                ..s
            };
            c.polyline("lower best", &steps(&lo, false), s);
            c.legend(Swatch::Line(s), format!("{name}: lower bound"));
        }
    }

    fn draw_budget(&self, c: &mut Chart) {
        let r = &self.report;
        let d = &r.deployment;
        let grey = Stroke {
            color: "#333333",
            width: 1.2,
            dash: "3 3",
            opacity: 1.0,
        };
        if let Some(dl) = &d.budget_delta {
            let v = dl.to_f64();
            c.segment("budget", (c.x.lo, v), (c.x.hi, v), grey);
            c.legend(Swatch::Line(grey), format!("budget δ = {}", show(dl)));
            if let Some((i, a)) = &r.best_epsilon {
                let mark = Stroke {
                    color: "#000000",
                    width: 4.0,
                    dash: "",
                    opacity: 0.8,
                };
                let lo = a.lower().map_or(0.0, |l| l.to_f64().max(0.0));
                let hi = a.upper().to_f64();
                c.segment("certified-epsilon", (lo, v), (hi, v), mark);
                let tick = Stroke { width: 2.0, ..mark };
                c.vtick("certified-epsilon", (lo, v), 9.0, tick);
                c.vtick("certified-epsilon", (hi, v), 9.0, tick);
                c.legend(
                    Swatch::Bracket(tick),
                    epsilon_words(a, dl, r.routes[*i].name),
                );
            }
        }
        if let Some(e) = &d.budget_epsilon {
            let v = e.to_f64();
            c.segment("budget", (v, c.y.lo), (v, c.y.hi), grey);
            c.legend(Swatch::Line(grey), format!("budget ε = {}", show(e)));
        }
    }

    fn draw_claim(&self, c: &mut Chart, r: &Report) {
        let Some(check) = &r.claim else { return };
        let color = match check.verdict {
            Verdict::Holds => "#1e8449",
            Verdict::Fails => "#c0392b",
            Verdict::Undecided => "#d68910",
        };
        let word = verdict_word(Some(check.verdict));
        c.circle(
            "claim",
            (check.epsilon.to_f64(), check.delta.to_f64()),
            color,
        );
        c.legend(
            Swatch::Circle(color),
            format!(
                "claim ({}, {}): {word}",
                show(&check.epsilon),
                show(&check.delta)
            ),
        );
    }

    /// A legend note when a drawn value lies below the δ axis (drawn on its bottom edge).
    fn floor_note(&self, c: &mut Chart) {
        let below = |v: f64| c.y.clamp(v).1;
        let any = self.best.points.iter().any(|p| below(p.1))
            || self
                .others
                .iter()
                .any(|o| o.points.iter().any(|p| below(p.1)));
        if any {
            let label =
                c.y.ticks
                    .first()
                    .map_or(String::new(), |t: &Tick| t.label.clone());
            c.legend(
                Swatch::None,
                format!("upper bounds below {label} drawn on the bottom edge"),
            );
        }
    }
}

/// "audit: ε ∈ [lo, hi] at δ = … (route)" for the legend, outward-rounded to 4 digits.
fn epsilon_words(a: &Certified, dl: &Rational, route: &str) -> String {
    let up = a.upper().to_decimal_digits(4);
    match a.lower() {
        Some(l) if a.is_two_sided() => format!(
            "audit ({route}): ε ∈ [{}, {up}] at δ = {}",
            if *l.as_float() < 0 {
                "0".into()
            } else {
                l.to_decimal_digits(4)
            },
            show(dl)
        ),
        _ => format!("audit ({route}): ε ≤ {up} at δ = {}", show(dl)),
    }
}

/// SVG of the privacy profile of `d` ([`profile`], then [`Profile::svg`]).
///
/// # Guarantee
/// As [`profile`]: every drawn sample is a certified bound; it is a picture (pixel coordinates
/// rounded to 0.01): read numbers from [`crate::audit::audit`].
pub fn profile_svg(d: &Deployment) -> Result<String> {
    Ok(profile(d)?.svg())
}
