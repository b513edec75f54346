//! `dpcert tradeoff gaussian|dpsgd`: the best membership-inference attack's true-positive rate
//! at a false-positive rate (f-DP, Dong–Roth–Su 2022); `--plot` draws the certified curve.
use super::gaussian::ShapeArgs;
use super::rdp::SgmArgs;
use super::{count, num, Common, QueryCmd};
use crate::reference::query::Query;
use crate::Error;
use clap::Subcommand;
use serde_json::{json, Value};

#[derive(Subcommand)]
pub(super) enum TradeoffCmd {
    /// Certified TPR of the best attack at FPR A against K compositions of N(0, σ²) noise:
    /// Φ(Φ⁻¹(A) + Δ√K/σ), exact (two-sided).
    #[command(after_help = super::EXIT_CODES)]
    Gaussian {
        #[arg(long, value_name = "S", allow_hyphen_values = true, help = super::gaussian::SIGMA_HELP)]
        sigma: String,
        /// The attack's false-positive rate A in [0, 1].
        #[arg(long, value_name = "A", allow_hyphen_values = true)]
        fpr: String,
        #[command(flatten)]
        shape: ShapeArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Certified TPR bracket of the best attack at FPR A against DP-SGD (Poisson-subsampled
    /// Gaussian steps, add/remove neighbours), from both sides of the certified PLD accountant.
    /// With --plot OUT.svg: the certified tradeoff curve (lower and upper TPR over FPR).
    #[command(after_help = super::EXIT_CODES)]
    Dpsgd {
        #[command(flatten)]
        sgm: SgmArgs,
        /// The attack's false-positive rate A in [0, 1] (optional with --plot).
        #[arg(long, value_name = "A", allow_hyphen_values = true)]
        fpr: Option<String>,
        /// Write the certified tradeoff curve as SVG to this file.
        #[arg(long, value_name = "SVG")]
        plot: Option<std::path::PathBuf>,
        /// PLD grid width h (default: automatic).
        #[arg(long, value_name = "H", allow_hyphen_values = true)]
        grid: Option<String>,
        /// PLD tail mass per truncation, in (0, 1e-3] (default: automatic from the FPR).
        #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
        tail: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

impl QueryCmd for TradeoffCmd {
    fn command(&self) -> &'static str {
        match self {
            TradeoffCmd::Gaussian { .. } => "tradeoff gaussian",
            TradeoffCmd::Dpsgd { .. } => "tradeoff dpsgd",
        }
    }
    fn common(&self) -> &Common {
        match self {
            TradeoffCmd::Gaussian { common, .. } | TradeoffCmd::Dpsgd { common, .. } => common,
        }
    }
    fn input(&self) -> Value {
        match self {
            TradeoffCmd::Gaussian {
                sigma, fpr, shape, ..
            } => json!({
                "sigma": sigma, "fpr": fpr, "sensitivity": shape.sensitivity,
                "compositions": shape.compositions, "precision": self.common().precision,
            }),
            TradeoffCmd::Dpsgd {
                sgm,
                fpr,
                plot,
                grid,
                tail,
                ..
            } => json!({
                "rate": sgm.rate, "sigma": sgm.sigma, "steps": sgm.steps, "fpr": fpr,
                "plot": plot.as_ref().map(|p| p.display().to_string()), "grid": grid,
                "tail": tail, "precision": self.common().precision,
            }),
        }
    }
    fn to_query(&self) -> Result<Query, Error> {
        Ok(match self {
            TradeoffCmd::Gaussian {
                sigma, fpr, shape, ..
            } => Query::GaussianTpr {
                shape: shape.with_sigma(sigma)?,
                fpr: num("--fpr", fpr)?,
            },
            TradeoffCmd::Dpsgd {
                sgm,
                fpr,
                grid,
                tail,
                ..
            } => Query::DpsgdTpr {
                rate: num("--rate", &sgm.rate)?,
                sigma: num("--sigma", &sgm.sigma)?,
                steps: count("--steps", &sgm.steps)?,
                fpr: num(
                    "--fpr",
                    fpr.as_deref()
                        .ok_or_else(|| Error::arg("--fpr", "required (or give --plot)"))?,
                )?,
                grid: grid.as_deref().map(|g| num("--grid", g)).transpose()?,
                tail: tail.as_deref().map(|t| num("--tail", t)).transpose()?,
            },
        })
    }
    fn asked(&self) -> String {
        match self {
            TradeoffCmd::Gaussian {
                sigma, fpr, shape, ..
            } => format!(
                "The best attack's TPR at FPR = {fpr} against Gaussian noise σ = {sigma} ({})",
                shape.words()
            ),
            TradeoffCmd::Dpsgd { sgm, fpr, .. } => format!(
                "The best attack's TPR at FPR = {} against DP-SGD with q = {}, σ = {}, {} steps",
                fpr.as_deref().unwrap_or("?"),
                sgm.rate,
                sgm.sigma,
                sgm.steps
            ),
        }
    }
}

impl TradeoffCmd {
    /// `tradeoff dpsgd --plot OUT.svg` (with or without --fpr): draw the certified curve and
    /// return the exit code; `None` for every other form (a single-value query).
    pub(super) fn run_plot(&self) -> Option<i32> {
        let TradeoffCmd::Dpsgd {
            plot: Some(out), ..
        } = self
        else {
            return None;
        };
        let json_mode = self.common().json;
        Some(match self.plot(out) {
            Ok(()) => {
                if !json_mode {
                    super::out::println(&format!(
                        "Wrote the certified tradeoff curve to {}.",
                        out.display()
                    ));
                }
                crate::exit::OK
            }
            Err(e) => super::fail(self.command(), self.input(), &e, json_mode),
        })
    }

    fn plot(&self, out: &std::path::Path) -> Result<(), Error> {
        let TradeoffCmd::Dpsgd {
            sgm, grid, tail, ..
        } = self
        else {
            return Ok(());
        };
        let opts = crate::theorems::pld_accountant::PldOptions {
            tight: false,
            grid: grid.as_deref().map(|g| num("--grid", g)).transpose()?,
            tail: tail.as_deref().map(|t| num("--tail", t)).transpose()?,
            progress: false,
            ..Default::default()
        };
        // FPR 0, 10⁻⁴ … 10⁻¹ (log-spaced), then 0.02 … 1
        let mut fprs = vec![rug::Rational::new()];
        for e in 1..=4u32 {
            fprs.push(rug::Rational::from((1u32, 10u32.pow(5 - e))));
        }
        fprs.extend((1..=50u32).map(|i| rug::Rational::from((i, 50u32))));
        fprs.sort();
        let r = crate::theorems::pld_accountant::dpsgd_tradeoff_tpr(
            &num("--rate", &sgm.rate)?,
            &num("--sigma", &sgm.sigma)?,
            &count("--steps", &sgm.steps)?,
            &fprs,
            &opts,
        )
        .map_err(super::flagged_err)?;
        let pts: Vec<(f64, f64, f64)> = fprs
            .iter()
            .zip(&r)
            .map(|(a, rep)| {
                (
                    a.to_f64(),
                    rep.enclosure.lower().to_f64(),
                    rep.enclosure.upper().to_f64(),
                )
            })
            .collect();
        let title = format!(
            "Certified tradeoff: DP-SGD, q = {}, σ = {}, {} steps",
            sgm.rate, sgm.sigma, sgm.steps
        );
        std::fs::write(out, svg(&pts, &title))
            .map_err(|e| Error::arg("--plot", format!("{}: {e}", out.display())))
    }
}

/// The tradeoff curve as SVG: FPR on x, TPR on y, the certified lower (dashed) and upper
/// (solid) ends, and the diagonal of a blind guess.
fn svg(pts: &[(f64, f64, f64)], title: &str) -> String {
    let (w, h, m) = (640.0, 480.0, 60.0);
    let x = |v: f64| m + v * (w - 2.0 * m);
    let y = |v: f64| h - m - v * (h - 2.0 * m);
    let path = |sel: &dyn Fn(&(f64, f64, f64)) -> f64| {
        pts.iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "{}{:.2},{:.2}",
                    if i == 0 { "M" } else { " L" },
                    x(p.0),
                    y(sel(p))
                )
            })
            .collect::<String>()
    };
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<text x="{m}" y="24">{title}</text>
<rect x="{m}" y="{m}" width="{iw}" height="{ih}" fill="none" stroke="#888"/>
<path d="M{x0},{y0} L{x1},{y1}" stroke="#bbb" stroke-dasharray="2,3"/>
<path d="{up}" fill="none" stroke="#c22" stroke-width="1.5"/>
<path d="{lo}" fill="none" stroke="#22c" stroke-width="1.5" stroke-dasharray="5,3"/>
<text x="{cx}" y="{by}" text-anchor="middle">false-positive rate (FPR)</text>
<text x="16" y="{cy}" transform="rotate(-90 16 {cy})" text-anchor="middle">true-positive rate of the best attack</text>
<text x="{lx}" y="{ly}" fill="#c22">certified upper TPR</text>
<text x="{lx}" y="{ly2}" fill="#22c">certified lower TPR</text>
</svg>
"##,
        iw = w - 2.0 * m,
        ih = h - 2.0 * m,
        x0 = x(0.0),
        y0 = y(0.0),
        x1 = x(1.0),
        y1 = y(1.0),
        up = path(&|p| p.2),
        lo = path(&|p| p.1),
        cx = w / 2.0,
        by = h - 20.0,
        cy = h / 2.0,
        lx = x(0.55),
        ly = y(0.2),
        ly2 = y(0.2) + 16.0,
    )
}
