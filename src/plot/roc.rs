//! The f-DP chart of DP-SGD as a membership-inference ROC on log–log axes (TPR against FPR, as
//! attack papers draw them): the certified upper and lower TPR of the best attack, the
//! Gaussian-DP (μ-GDP) reference at the central-limit μ, and the diagonal of a blind guess.
//!
//! The best attack's TPR*(α) is non-decreasing in α, so between two certified samples
//! α_i < α_{i+1} the curves are drawn as steps that stay bounds everywhere: the upper curve holds
//! TPR_up(α_{i+1}) back to α_i (TPR*(α) ≤ TPR*(α_{i+1})), the lower curve holds TPR_low(α_i)
//! until α_{i+1}.
use super::axis::Axis;
use super::profile::steps;
use super::svg::{x_span, y_span, Chart, Stroke, Swatch};
use crate::num::Precision;
use crate::theorems::pld::GaussianPld;
use crate::theorems::pld_accountant::{dpsgd_tradeoff_tpr, PldOptions, PldReport};
use crate::theorems::tradeoff::gaussian_tradeoff_tpr;
use crate::Result;
use rug::ops::Pow;
use rug::{Integer, Rational};

/// The lowest FPR drawn is 10^LOW_EXP.
pub const LOW_EXP: i32 = -5;
/// Certified FPR samples per decade.
pub const PER_DECADE: i32 = 40;

/// The certified ROC of DP-SGD and its reference curve.
pub struct Roc {
    /// (FPR α, the certified TPR bracket at α), α increasing from 10^LOW_EXP to 1.
    pub points: Vec<(Rational, PldReport)>,
    /// The central-limit μ = q·√(T·(e^{1/σ²} − 1)) (Bu–Dong–Long–Su 2020), an `f64` estimate;
    /// `None` when it is not finite.
    pub mu_clt: Option<f64>,
    /// (α, TPR) of the μ-GDP curve Φ(Φ⁻¹(α) + μ) at that μ (its certified upper end).
    pub reference: Vec<(f64, f64)>,
    title: String,
}

/// The FPR samples: 10^{LOW_EXP + i/PER_DECADE} to three significant digits, as exact decimal
/// rationals (any α is a valid query; these only decide where the curve is certified), from
/// 10^LOW_EXP to exactly 1.
fn fprs() -> Vec<Rational> {
    (0..=-LOW_EXP * PER_DECADE)
        .map(|i| {
            let k = LOW_EXP + i.div_euclid(PER_DECADE);
            let frac = f64::from(i.rem_euclid(PER_DECADE)) / f64::from(PER_DECADE);
            let m = (10f64.powf(frac) * 100.0).round() as u32; // 100 … 999
            let scale = Integer::from(10u32).pow((2 - k).unsigned_abs());
            if k >= 2 {
                Rational::from(Integer::from(m) * scale)
            } else {
                Rational::from((Integer::from(m), scale))
            }
        })
        .collect()
}

/// The certified ROC of `steps` DP-SGD steps (rate q, noise σ): [`dpsgd_tradeoff_tpr`] at
/// [`PER_DECADE`] FPRs per decade from 10⁻⁵ to 1, and the μ-GDP reference; `label` names the
/// run in the title (e.g. the parameters as the user wrote them).
///
/// # Guarantee
/// Each point is [`dpsgd_tradeoff_tpr`]'s certified bracket; the reference is an approximation
/// (the central-limit theorem of f-DP), not a bound, and the chart says so.
pub fn dpsgd_roc(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    opts: &PldOptions,
    label: &str,
) -> Result<Roc> {
    let alphas = fprs();
    let reports = dpsgd_tradeoff_tpr(rate, sigma, steps, &alphas, opts)?;
    let (q, s, t) = (rate.to_f64(), sigma.to_f64(), steps.to_f64());
    let mu = q * (t * (1.0 / (s * s)).exp_m1()).sqrt();
    let mu_clt = (mu.is_finite() && mu > 0.0).then_some(mu);
    let mut reference = Vec::new();
    if let Some(rho) = mu_clt.and_then(|m| Rational::from_f64(m * m / 2.0)) {
        let g = GaussianPld { rho };
        for a in &alphas {
            let tpr = gaussian_tradeoff_tpr(&g, a, Precision::Auto)?;
            reference.push((a.to_f64(), tpr.upper().to_f64()));
        }
    }
    let title = format!("Best membership-inference attack against DP-SGD ({label})");
    Ok(Roc {
        points: alphas.into_iter().zip(reports).collect(),
        mu_clt,
        reference,
        title,
    })
}

impl Roc {
    /// The chart as an SVG document (a picture: coordinates rounded to 0.01 px).
    pub fn svg(&self) -> String {
        let (x0, x1) = x_span();
        let (y0, y1) = y_span();
        let x = Axis::log(LOW_EXP, 0, x0, x1, true);
        let y = Axis::log(LOW_EXP, 0, y0, y1, false);
        let mut c = Chart::new(
            x,
            y,
            [
                &self.title,
                "certified by dpcert (f-DP from both sides of the PLD accountant; steps between certified points)",
                "false-positive rate (FPR), log scale",
                "true-positive rate (TPR), log scale",
            ],
        );
        let guess = Stroke {
            color: "#999999",
            width: 1.0,
            dash: "2 3",
            opacity: 1.0,
        };
        c.segment("diagonal", (c.x.lo, c.y.lo), (1.0, 1.0), guess);
        c.legend(Swatch::Line(guess), "blind guess (TPR = FPR)");
        let lo: Vec<(f64, f64)> = self
            .points
            .iter()
            .map(|(a, r)| (a.to_f64(), r.enclosure.lower().to_f64().max(0.0)))
            .collect();
        let up: Vec<(f64, f64)> = self
            .points
            .iter()
            .map(|(a, r)| (a.to_f64(), r.enclosure.upper().to_f64().min(1.0)))
            .collect();
        let upper = Stroke {
            color: "#c01c28",
            width: 2.2,
            dash: "",
            opacity: 1.0,
        };
        let lower = Stroke {
            color: "#1a5fb4",
            width: 2.0,
            dash: "7 4",
            opacity: 1.0,
        };
        c.polyline("upper best", &steps(&up, false), upper);
        c.polyline("lower best", &steps(&lo, true), lower);
        c.legend(
            Swatch::Line(upper),
            "certified upper TPR (no attack does better)",
        );
        c.legend(
            Swatch::Line(lower),
            "certified lower TPR (the best attack reaches it)",
        );
        if let Some(mu) = self.mu_clt {
            let s = Stroke {
                color: "#26a269",
                width: 1.2,
                dash: "5 3",
                opacity: 1.0,
            };
            c.polyline("reference", &self.reference, s);
            c.legend(
                Swatch::Line(s),
                format!("μ-GDP reference, μ ≈ {mu:.3} (CLT: q√(T(e^(1/σ²)−1)),"),
            );
            c.legend(Swatch::None, "an approximation, not a bound)");
        }
        c.finish()
    }
}
