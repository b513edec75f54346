//! `dpcert tradeoff gaussian|dpsgd`: the best membership-inference attack's true-positive rate
//! at a false-positive rate (f-DP, Dong–Roth–Su 2022); `--plot` draws the certified curve.
use super::gaussian::ShapeArgs;
use super::rdp::SgmArgs;
use super::{count, num, Common, QueryCmd};
use crate::reference::query::Query;
use crate::Error;
use clap::Subcommand;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Subcommand, Debug, Deserialize)]
#[serde(tag = "subcommand", rename_all = "kebab-case", deny_unknown_fields)]
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
        #[serde(flatten)]
        shape: ShapeArgs,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
    /// Certified TPR bracket of the best attack at FPR A against DP-SGD (Poisson-subsampled
    /// Gaussian steps, add/remove neighbours), from both sides of the certified PLD accountant.
    /// With --plot OUT.svg: the certified ROC (lower and upper TPR over FPR 10⁻⁵ … 1, log–log
    /// axes, with the μ-GDP reference); with --fpr too, then the answer at A.
    #[command(after_help = super::EXIT_CODES)]
    Dpsgd {
        #[command(flatten)]
        #[serde(flatten)]
        sgm: SgmArgs,
        /// The attack's false-positive rate A in [0, 1] (optional with --plot).
        #[arg(long, value_name = "A", allow_hyphen_values = true)]
        fpr: Option<String>,
        /// Write the certified ROC as SVG to this file (*.svg; written whole or not at all), or
        /// `-` for standard output (alone: not with --json or --fpr).
        #[arg(long, value_name = "SVG")]
        #[serde(skip_deserializing)]
        plot: Option<std::path::PathBuf>,
        /// PLD grid width h (default: automatic).
        #[arg(long, value_name = "H", allow_hyphen_values = true)]
        grid: Option<String>,
        /// PLD tail mass per truncation, in (0, 1e-3] (default: automatic from the FPR).
        #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
        tail: Option<String>,
        #[command(flatten)]
        #[serde(flatten)]
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
    /// `tradeoff dpsgd --plot OUT.svg|-`: draw the certified ROC. Returns the exit code when the
    /// command is done (an error, or no --fpr to answer), `None` when the single-value query
    /// at --fpr is still to run (and for every other form).
    pub(super) fn run_plot(&self) -> Option<i32> {
        let TradeoffCmd::Dpsgd {
            plot: Some(out),
            fpr,
            ..
        } = self
        else {
            return None;
        };
        let json_mode = self.common().json;
        match self.plot(out, fpr.is_some()) {
            Ok(Some(points)) => {
                if json_mode {
                    let result = json!({"quantity": "tpr_curve", "plot": out.display().to_string(), "points": points});
                    super::out::println(&format!(
                        "{}",
                        crate::json::envelope(self.command(), self.input(), result)
                    ));
                } else if out.as_os_str() != "-" {
                    super::out::println(&format!(
                        "Wrote the certified tradeoff curve to {}.",
                        out.display()
                    ));
                }
                Some(crate::exit::OK)
            }
            Ok(None) => None,
            Err(e) => Some(super::fail(self.command(), self.input(), &e, json_mode)),
        }
    }

    /// Draw the ROC into `out`; the curve's points as JSON when no --fpr query follows
    /// (`then_query`), else `None`.
    fn plot(&self, out: &std::path::Path, then_query: bool) -> Result<Option<Value>, Error> {
        let TradeoffCmd::Dpsgd {
            sgm, grid, tail, ..
        } = self
        else {
            return Ok(None);
        };
        let target = super::out::svg_output(out, "--plot")?;
        if target == super::out::Output::Stdout && (self.common().json || then_query) {
            return Err(Error::arg(
                "--plot",
                "`--plot -` writes the SVG to standard output, so nothing else can go there: give --plot a file name (FILE.svg) to also get --json or the answer at --fpr",
            ));
        }
        let opts = crate::theorems::pld_accountant::PldOptions {
            grid: grid.as_deref().map(|g| num("--grid", g)).transpose()?,
            tail: tail.as_deref().map(|t| num("--tail", t)).transpose()?,
            ..Default::default()
        };
        let roc = crate::plot::dpsgd_roc(
            &num("--rate", &sgm.rate)?,
            &num("--sigma", &sgm.sigma)?,
            &count("--steps", &sgm.steps)?,
            &opts,
            &format!("q = {}, σ = {}, {} steps", sgm.rate, sgm.sigma, sgm.steps),
        )
        .map_err(super::flagged_err)?;
        super::out::write_svg(&target, &roc.svg(), "--plot")?;
        if then_query {
            super::out::warn(&format!("dpcert: wrote {}", out.display()));
            return Ok(None);
        }
        let points: Vec<Value> = roc
            .points
            .iter()
            .map(|(a, r)| json!({"fpr": crate::validate::show(a), "tpr": crate::json::enclosure(&r.enclosure)}))
            .collect();
        Ok(Some(Value::Array(points)))
    }
}
