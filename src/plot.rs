//! The privacy profile δ(ε) of a deployment as an SVG picture: the certified upper curve, the
//! certified lower curve where the analysis is exact, and the deployment's claim.
use crate::audit::audit_with;
use crate::deploy::Deployment;
use crate::validate::show;
use crate::Result;
use rug::Rational;
use std::fmt::Write;

/// SVG of the profile. Curves are drawn through certified points (upper ends rounded up,
/// lower ends down); between sample points the picture interpolates and is not a bound.
pub fn profile_svg(d: &Deployment) -> Result<String> {
    profile_svg_with(d, false)
}

/// [`profile_svg`], with a progress line on stderr when `progress` (61 audits: seconds to a
/// minute for DP-SGD deployments).
pub fn profile_svg_with(d: &Deployment, progress: bool) -> Result<String> {
    // ε range: up to twice the interesting ε (budget, claim), at least 1
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
    let n = 60;
    let mut upper = Vec::new();
    let mut lower = Vec::new();
    for i in 0..=n {
        if progress {
            eprint!("\rdpcert plot: ε point {}/{} ", i + 1, n + 1);
        }
        let eps = Rational::from_f64(top * i as f64 / n as f64).unwrap_or_default();
        let mut probe = d.clone();
        probe.budget_epsilon = Some(eps.clone());
        probe.budget_delta = None;
        probe.claim = None;
        let r = audit_with(&probe, false)?;
        if let Some((_, a)) = &r.best_delta {
            upper.push((eps.to_f64(), a.formula().upper().to_f64()));
        }
        if let Some(a) = r
            .routes
            .iter()
            .find_map(|x| x.delta.as_ref().filter(|a| a.is_two_sided()))
        {
            lower.push((eps.to_f64(), a.formula().lower().to_f64()));
        }
    }
    if progress {
        eprintln!();
    }
    if upper.is_empty() {
        // never an empty chart silently
        return Err(crate::Error::arg(
            "FILE",
            "no route but the PLD accountant certifies δ(ε) for this deployment (e.g. an (ε, δ) black box next to a subsampled Gaussian), and the plot does not run the accountant at each of its 61 points; use `dpcert audit` for δ at a given ε",
        ));
    }
    let floor = -16.0f64; // log10 δ axis bottom
    let (w, h, ml, mb, mt, mr) = (720.0, 440.0, 70.0, 50.0, 30.0, 20.0);
    let x = |e: f64| ml + (w - ml - mr) * e / top;
    // log10 δ, clamped to the axis [floor, 0] (a δ bound ≥ 1 draws at the top; never NaN)
    let y = |dl: f64| {
        let l = if dl >= 1.0 {
            0.0
        } else if dl > 0.0 {
            dl.log10().max(floor)
        } else {
            floor
        };
        mt + (h - mt - mb) * (0.0 - l) / (0.0 - floor)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="18" font-size="14">Privacy profile δ(ε) — certified by dpcert</text>"#,
        ml
    );
    for k in (floor as i32..=0).step_by(2) {
        let yy = y(10f64.powi(k));
        let _ = writeln!(
            s,
            r##"<line x1="{ml}" x2="{}" y1="{yy}" y2="{yy}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">1e{k}</text>"##,
            w - mr,
            ml - 6.0,
            yy + 4.0
        );
    }
    for i in 0..=5 {
        let e = top * i as f64 / 5.0;
        let xx = x(e);
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
    let path = |pts: &[(f64, f64)]| {
        pts.iter()
            .map(|(e, d)| format!("{:.2},{:.2}", x(*e), y(*d)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if !upper.is_empty() {
        let _ = writeln!(
            s,
            r##"<polyline fill="none" stroke="#c0392b" stroke-width="2" points="{}"/>"##,
            path(&upper)
        );
    }
    if !lower.is_empty() {
        let _ = writeln!(
            s,
            r##"<polyline fill="none" stroke="#2471a3" stroke-width="2" stroke-dasharray="6 3" points="{}"/>"##,
            path(&lower)
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#c0392b" stroke-width="2"/><text x="{}" y="{}">certified upper bound</text>"##,
        w - 250.0,
        w - 220.0,
        mt + 20.0,
        mt + 20.0,
        w - 214.0,
        mt + 24.0
    );
    if !lower.is_empty() {
        let _ = writeln!(
            s,
            r##"<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#2471a3" stroke-width="2" stroke-dasharray="6 3"/><text x="{}" y="{}">certified lower bound (exact route)</text>"##,
            w - 250.0,
            w - 220.0,
            mt + 38.0,
            mt + 38.0,
            w - 214.0,
            mt + 42.0
        );
    }
    if let Some((ce, cd)) = &d.claim {
        let (cx, cy) = (x(ce.to_f64()), y(cd.to_f64()));
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
    Ok(s)
}
