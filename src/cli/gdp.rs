//! `dpcert gdp gaussian|dpsgd`: μ of μ-Gaussian differential privacy (Dong–Roth–Su 2022).
use super::gaussian::ShapeArgs;
use super::rdp::SgmArgs;
use super::{count, num, Common, QueryCmd};
use crate::reference::query::Query;
use crate::Error;
use clap::Subcommand;
use serde_json::{json, Value};

#[derive(Subcommand)]
pub(super) enum GdpCmd {
    /// The exact μ = Δ√K/σ of K compositions of N(0, σ²) noise (μ-GDP holds, and no smaller μ).
    #[command(after_help = super::EXIT_CODES)]
    Gaussian {
        #[arg(long, value_name = "S", allow_hyphen_values = true, help = super::gaussian::SIGMA_HELP)]
        sigma: String,
        #[command(flatten)]
        shape: ShapeArgs,
        #[command(flatten)]
        common: Common,
    },
    /// DP-SGD: a certified μ below which it is not μ-GDP (from the certified PLD's lower
    /// tradeoff). No μ-GDP upper bound is certified.
    #[command(after_help = super::EXIT_CODES)]
    Dpsgd {
        #[command(flatten)]
        sgm: SgmArgs,
        /// PLD grid width h (default: automatic).
        #[arg(long, value_name = "H", allow_hyphen_values = true)]
        grid: Option<String>,
        /// PLD tail mass per truncation, in (0, 1e-3] (default: automatic).
        #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
        tail: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

impl QueryCmd for GdpCmd {
    fn command(&self) -> &'static str {
        match self {
            GdpCmd::Gaussian { .. } => "gdp gaussian",
            GdpCmd::Dpsgd { .. } => "gdp dpsgd",
        }
    }
    fn common(&self) -> &Common {
        match self {
            GdpCmd::Gaussian { common, .. } | GdpCmd::Dpsgd { common, .. } => common,
        }
    }
    fn input(&self) -> Value {
        match self {
            GdpCmd::Gaussian { sigma, shape, .. } => json!({
                "sigma": sigma, "sensitivity": shape.sensitivity,
                "compositions": shape.compositions, "precision": self.common().precision,
            }),
            GdpCmd::Dpsgd {
                sgm, grid, tail, ..
            } => json!({
                "rate": sgm.rate, "sigma": sgm.sigma, "steps": sgm.steps, "grid": grid,
                "tail": tail, "precision": self.common().precision,
            }),
        }
    }
    fn to_query(&self) -> Result<Query, Error> {
        match self {
            GdpCmd::Gaussian { sigma, shape, .. } => Ok(Query::GaussianGdp {
                shape: shape.with_sigma(sigma)?,
            }),
            GdpCmd::Dpsgd { .. } => Err(Error::arg(
                "query",
                "gdp dpsgd certifies only a lower bound; it is not a single-value query",
            )),
        }
    }
    fn asked(&self) -> String {
        match self {
            GdpCmd::Gaussian { sigma, shape, .. } => format!(
                "The μ of μ-GDP of Gaussian noise σ = {sigma} ({})",
                shape.words()
            ),
            GdpCmd::Dpsgd { sgm, .. } => format!(
                "DP-SGD with q = {}, σ = {}, {} steps",
                sgm.rate, sgm.sigma, sgm.steps
            ),
        }
    }
}

impl GdpCmd {
    /// `gdp dpsgd`: print the certified lower bound; `None` for `gdp gaussian`.
    pub(super) fn run_dpsgd(&self) -> Option<i32> {
        let GdpCmd::Dpsgd {
            sgm, grid, tail, ..
        } = self
        else {
            return None;
        };
        let json_mode = self.common().json;
        let run = || -> Result<crate::num::LowerBound, Error> {
            let opts = crate::theorems::pld_accountant::PldOptions {
                tight: false,
                grid: grid.as_deref().map(|g| num("--grid", g)).transpose()?,
                tail: tail.as_deref().map(|t| num("--tail", t)).transpose()?,
                progress: false,
                ..Default::default()
            };
            crate::theorems::gdp::dpsgd_gdp_lower(
                &num("--rate", &sgm.rate)?,
                &num("--sigma", &sgm.sigma)?,
                &count("--steps", &sgm.steps)?,
                &opts,
            )
            .map_err(super::flagged_err)
        };
        Some(match run() {
            Ok(b) => {
                let lo = crate::json::lower_decimal(b.lower());
                if json_mode {
                    let result = json!({
                        "quantity": "mu",
                        "value": {"lower": lo, "upper": null, "kind": "lower-bound",
                                  "upper_f64": null, "rests_on": null},
                        "theorem": "Dong–Roth–Su 2022 Definition 2.6 against the certified PLD's lower tradeoff (μ ≥ Φ⁻¹(TPR) − Φ⁻¹(FPR))",
                        "details": {"upper": "not certified: the discretised upper PLD keeps mass at +∞"},
                    });
                    println!(
                        "{}",
                        crate::json::envelope(self.command(), self.input(), result)
                    );
                } else {
                    println!(
                        "{} is not μ-GDP for any μ < {} (certified).\n  [no μ-GDP upper bound is certified: the discretised upper PLD keeps mass at +∞]",
                        self.asked(),
                        super::lower_digits(b.lower(), 8)
                    );
                }
                crate::exit::OK
            }
            Err(e) => super::fail(self.command(), self.input(), &e, json_mode),
        })
    }
}
