//! `dpcert tradeoff gaussian|dpsgd`: the best membership-inference attack's true-positive rate
//! at a false-positive rate (f-DP, Dong–Roth–Su 2022); `--plot` draws the certified curve.
use super::gaussian::ShapeArgs;
use super::rdp::SgmArgs;
use super::{count, num, Common, Failure, QueryCmd, Reply};
use crate::reference::query::Query;
use crate::Error;
use clap::Subcommand;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Subcommand, Debug, Deserialize)]
#[serde(tag = "subcommand", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TradeoffCmd {
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

/// `tradeoff dpsgd --plot FILE|-`: the certified ROC curve asked for, and where it goes.
pub struct PlotRequest<'a> {
    /// The `--plot` argument: a file name, or `-` for standard output.
    pub path: &'a std::path::Path,
    /// An `--fpr` was given too: its single-value answer follows the chart.
    pub then_query: bool,
    cmd: &'a TradeoffCmd,
    sgm: &'a SgmArgs,
    grid: Option<&'a str>,
    tail: Option<&'a str>,
}

impl TradeoffCmd {
    /// The chart `tradeoff dpsgd --plot` asks for (`None` for every other form).
    pub(super) fn plot_request(&self) -> Option<PlotRequest<'_>> {
        let TradeoffCmd::Dpsgd {
            plot: Some(path),
            fpr,
            sgm,
            grid,
            tail,
            ..
        } = self
        else {
            return None;
        };
        Some(PlotRequest {
            path,
            then_query: fpr.is_some(),
            cmd: self,
            sgm,
            grid: grid.as_deref(),
            tail: tail.as_deref(),
        })
    }
}

impl PlotRequest<'_> {
    /// The certified ROC curve: its SVG and its points (`[{"fpr", "tpr"}]`, the TPR an
    /// enclosure).
    pub fn roc(&self) -> Result<(String, Value), Error> {
        let sgm = self.sgm;
        let opts = crate::theorems::pld_accountant::PldOptions {
            grid: self.grid.map(|g| num("--grid", g)).transpose()?,
            tail: self.tail.map(|t| num("--tail", t)).transpose()?,
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
        let points: Vec<Value> = roc
            .points
            .iter()
            .map(|(a, r)| json!({"fpr": crate::validate::show(a), "tpr": crate::json::enclosure(&r.enclosure)}))
            .collect();
        Ok((roc.svg(), Value::Array(points)))
    }

    /// The answer once the chart is written and no `--fpr` query follows: the curve's points
    /// in the envelope; in words, where the chart went.
    pub fn reply(&self, points: Value) -> Reply {
        Reply {
            command: self.cmd.command(),
            input: self.cmd.input(),
            result: json!({"quantity": "tpr_curve", "plot": self.path.display().to_string(), "points": points}),
            text: format!(
                "Wrote the certified tradeoff curve to {}.",
                self.path.display()
            ),
        }
    }

    /// The chart could not be drawn or written.
    pub fn failure(&self, error: Error) -> Failure {
        Failure {
            command: self.cmd.command(),
            input: self.cmd.input(),
            error,
        }
    }
}
