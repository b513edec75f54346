//! The privacy profile δ(ε) of a deployment as an SVG picture: the certified upper curve, the
//! certified lower curve where the analysis is exact, the routes that certify them, and the
//! deployment's claim.
//!
//! δ(ε) is non-increasing in ε, so between two certified samples ε_i < ε_{i+1} the curves are
//! drawn as steps that stay bounds everywhere: the upper curve holds δ_up(ε_i) until ε_{i+1}
//! (δ(ε) ≤ δ(ε_i) ≤ δ_up(ε_i)), the lower curve holds δ_low(ε_{i+1}) from ε_i on
//! (δ(ε) ≥ δ(ε_{i+1}) ≥ δ_low(ε_{i+1})). So no drawn segment crosses the claim unless the
//! certified bounds do. Values below the plotting floor (δ < 1e-16) are drawn on the floor
//! and marked "▼", never silently clamped.
use crate::audit::audit_with;
use crate::deploy::Deployment;
use crate::validate::show;
use crate::Result;
use rug::Rational;
use std::fmt::Write;

/// Points of the ε axis the profile is certified at.
const SAMPLES: usize = 60;

/// log10 of the bottom of the δ axis.
const FLOOR: f64 = -16.0;

/// SVG of the profile (see the module documentation for what the curves guarantee).
///
/// # Guarantee
/// The upper curve's samples are the audit's best certified upper bounds of δ at 61 exact
/// values of ε (the audit without the PLD route), the lower curve's the lower ends of an exact
/// route's enclosures; both are rounded outward to `f64`, and the steps between samples stay
/// bounds because δ(ε) is non-increasing. Values below 1e-16 are drawn on the floor and
/// marked "▼". It is a picture (pixel coordinates rounded to 0.01): read numbers from
/// [`crate::audit::audit`]. Errors: the audit's, a non-finite ε range, or no route but the
/// PLD accountant certifying δ(ε) (never an empty chart).
pub fn profile_svg(d: &Deployment) -> Result<String> {
    profile_svg_with(d, false)
}

/// The certified samples: (ε, δ bound) pairs and the routes that gave them.
#[derive(Default)]
struct Samples {
    upper: Vec<(f64, f64)>,
    lower: Vec<(f64, f64)>,
    upper_routes: Vec<&'static str>,
    lower_routes: Vec<&'static str>,
}

fn note_route(routes: &mut Vec<&'static str>, name: &'static str) {
    if !routes.contains(&name) {
        routes.push(name);
    }
}

/// The ε range: up to twice the interesting ε (budget, claim), at least 1.
fn epsilon_range(d: &Deployment) -> Result<f64> {
    let mut top = 1.0f64;
    if let Some(e) = &d.budget_epsilon {
        top = top.max(2.0 * e.to_f64());
    }
    if let Some((e, _)) = &d.claim {
        top = top.max(2.0 * e.to_f64());
    }
    if d.budget_delta.is_some() {
        let r = audit_with(d, false)?;
        if let Some((_, a)) = &r.best_epsilon {
            top = top.max(1.5 * a.formula().upper().to_f64());
        }
    }
    if !top.is_finite() {
        return Err(crate::Error::arg(
            "FILE",
            "the ε range to plot is not finite (a budget, claim or certified ε beyond the f64 range); nothing to draw",
        ));
    }
    Ok(top)
}

/// Certify δ at `SAMPLES + 1` points of [0, top] (the audit without the PLD route).
fn sample(d: &Deployment, top: f64, progress: bool) -> Result<Samples> {
    let mut s = Samples::default();
    for i in 0..=SAMPLES {
        if progress {
            eprint!("\rdpcert plot: ε point {}/{} ", i + 1, SAMPLES + 1);
        }
        let eps = Rational::from_f64(top * i as f64 / SAMPLES as f64).unwrap_or_default();
        let mut probe = d.clone();
        probe.budget_epsilon = Some(eps.clone());
        probe.budget_delta = None;
        probe.claim = None;
        let r = audit_with(&probe, false)?;
        if let Some((_, a)) = &r.best_delta {
            s.upper.push((eps.to_f64(), a.formula().upper().to_f64()));
            if let Some(route) = r.delta_route() {
                note_route(&mut s.upper_routes, route.name);
            }
        }
        let exact = r.routes.iter().find_map(|x| {
            x.delta
                .as_ref()
                .filter(|a| a.is_two_sided())
                .map(|a| (x.name, a))
        });
        if let Some((name, a)) = exact {
            s.lower.push((eps.to_f64(), a.formula().lower().to_f64()));
            note_route(&mut s.lower_routes, name);
        }
    }
    if progress {
        eprintln!();
    }
    Ok(s)
}

/// [`profile_svg`], with a progress line on stderr when `progress` (61 audits: seconds to a
/// minute for DP-SGD deployments).
///
/// # Guarantee
/// As [`profile_svg`].
pub fn profile_svg_with(d: &Deployment, progress: bool) -> Result<String> {
    if crate::audit::Ledger::from_event(&d.event)?
        .substitution()
        .is_some()
    {
        return Err(crate::Error::arg(
            "FILE",
            "the deployment is a substitution run (relation = \"substitution\"), for which dpcert certifies ε at a δ but no δ(ε) curve; nothing to draw (use `dpcert audit`)",
        ));
    }
    let top = epsilon_range(d)?;
    let samples = sample(d, top, progress)?;
    if samples.upper.is_empty() {
        // never an empty chart silently
        return Err(crate::Error::arg(
            "FILE",
            "no route but the PLD accountant certifies δ(ε) for this deployment (e.g. an (ε, δ) black box next to a subsampled Gaussian), and the plot does not run the accountant at each of its 61 points; use `dpcert audit` for δ at a given ε",
        ));
    }
    Ok(Chart::new(top).draw(d, &samples))
}

/// The chart's geometry.
struct Chart {
    top: f64,
    w: f64,
    h: f64,
    ml: f64,
    mb: f64,
    mt: f64,
    mr: f64,
}

impl Chart {
    fn new(top: f64) -> Chart {
        Chart {
            top,
            w: 720.0,
            h: 460.0,
            ml: 70.0,
            mb: 50.0,
            mt: 48.0,
            mr: 20.0,
        }
    }
    fn x(&self, e: f64) -> f64 {
        self.ml + (self.w - self.ml - self.mr) * e / self.top
    }
    /// log10 δ on the axis [FLOOR, 0] (a bound ≥ 1 draws at the top; never NaN), and whether
    /// the value lies below the floor.
    fn y(&self, d: f64) -> (f64, bool) {
        let (l, below) = if d >= 1.0 {
            (0.0, false)
        } else if d > 0.0 && d.log10() >= FLOOR {
            (d.log10(), false)
        } else {
            (FLOOR, true)
        };
        (
            self.mt + (self.h - self.mt - self.mb) * (-l) / (-FLOOR),
            below,
        )
    }

    /// A step path through the samples: `hold_left` holds each sample's value up to the next
    /// ε (upper curve), else each value is held back to the previous ε (lower curve).
    fn steps(&self, pts: &[(f64, f64)], hold_left: bool) -> String {
        let mut out = Vec::new();
        for (i, &(e, d)) in pts.iter().enumerate() {
            let y = self.y(d).0;
            let from = if hold_left || i == 0 { e } else { pts[i - 1].0 };
            let to = match pts.get(i + 1) {
                Some(&(next, _)) if hold_left => next,
                _ => e,
            };
            out.push(format!(
                "{:.2},{y:.2} {:.2},{y:.2}",
                self.x(from),
                self.x(to)
            ));
        }
        out.join(" ")
    }

    /// "▼" markers at the samples below the floor.
    fn below_floor(&self, s: &mut String, pts: &[(f64, f64)], color: &str) -> bool {
        let mut any = false;
        for &(e, d) in pts {
            let (y, below) = self.y(d);
            if below {
                any = true;
                let _ = writeln!(
                    s,
                    r#"<text x="{:.2}" y="{:.2}" fill="{color}" text-anchor="middle">▼</text>"#,
                    self.x(e),
                    y + 12.0
                );
            }
        }
        any
    }

    fn axes(&self, s: &mut String) {
        let (w, h, ml, mb, mt, mr) = (self.w, self.h, self.ml, self.mb, self.mt, self.mr);
        for k in (FLOOR as i32..=0).step_by(2) {
            let yy = self.y(10f64.powi(k)).0;
            let _ = writeln!(
                s,
                r##"<line x1="{ml}" x2="{}" y1="{yy}" y2="{yy}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">1e{k}</text>"##,
                w - mr,
                ml - 6.0,
                yy + 4.0
            );
        }
        for i in 0..=5 {
            let e = self.top * i as f64 / 5.0;
            let xx = self.x(e);
            let _ = writeln!(
                s,
                r##"<line x1="{xx}" x2="{xx}" y1="{mt}" y2="{}" stroke="#eee"/><text x="{xx}" y="{}" text-anchor="middle">{:.3}</text>"##,
                h - mb,
                h - mb + 16.0,
                e
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">ε</text><text x="16" y="{}" transform="rotate(-90 16 {})">δ (log scale)</text>"#,
            (ml + w - mr) / 2.0,
            h - 10.0,
            h / 2.0,
            h / 2.0
        );
    }

    fn legend(&self, s: &mut String, n: usize, color: &str, dash: &str, text: &str) {
        let (x0, y0) = (self.w - 330.0, self.mt + 16.0 + 18.0 * n as f64);
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" x2="{}" y1="{y0}" y2="{y0}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{text}</text>"##,
            x0 + 30.0,
            x0 + 36.0,
            y0 + 4.0
        );
    }

    fn draw(&self, d: &Deployment, smp: &Samples) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">"#,
            self.w, self.h
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="18" font-size="14">Privacy profile δ(ε) — certified by dpcert (steps between certified points)</text>"#,
            self.ml
        );
        let mut routes = format!("upper: {}", smp.upper_routes.join(", "));
        if !smp.lower_routes.is_empty() {
            routes += &format!("; lower: {}", smp.lower_routes.join(", "));
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="36">routes — {routes}</text>"#,
            self.ml
        );
        self.axes(&mut s);
        let (red, blue) = ("#c0392b", "#2471a3");
        let _ = writeln!(
            s,
            r##"<polyline fill="none" stroke="{red}" stroke-width="2" points="{}"/>"##,
            self.steps(&smp.upper, true)
        );
        self.legend(&mut s, 0, red, "none", "certified upper bound");
        let mut below = self.below_floor(&mut s, &smp.upper, red);
        if !smp.lower.is_empty() {
            let _ = writeln!(
                s,
                r##"<polyline fill="none" stroke="{blue}" stroke-width="2" stroke-dasharray="6 3" points="{}"/>"##,
                self.steps(&smp.lower, false)
            );
            self.legend(
                &mut s,
                1,
                blue,
                "6 3",
                "certified lower bound (exact route)",
            );
            below |= self.below_floor(&mut s, &smp.lower, blue);
        }
        if below {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}">▼ below 1e{} (drawn on the axis)</text>"#,
                self.w - 330.0,
                self.mt + 52.0,
                FLOOR as i32
            );
        }
        if let Some((ce, cd)) = &d.claim {
            let (cx, cy) = (self.x(ce.to_f64()), self.y(cd.to_f64()).0);
            let _ = writeln!(
                s,
                r##"<circle cx="{cx}" cy="{cy}" r="5" fill="none" stroke="black" stroke-width="2"/><text x="{}" y="{}">claim ({}, {})</text>"##,
                cx + 8.0,
                cy - 8.0,
                show(ce),
                show(cd)
            );
        }
        let _ = writeln!(s, "</svg>");
        s
    }
}
