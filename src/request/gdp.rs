//! `dpcert gdp gaussian|dpsgd`: μ of μ-Gaussian differential privacy (Dong–Roth–Su 2022).
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
pub enum GdpCmd {
    /// The exact μ = Δ√K/σ of K compositions of N(0, σ²) noise (μ-GDP holds, and no smaller μ).
    #[command(after_help = super::EXIT_CODES)]
    Gaussian {
        #[arg(long, value_name = "S", allow_hyphen_values = true, help = super::gaussian::SIGMA_HELP)]
        sigma: String,
        #[command(flatten)]
        #[serde(flatten)]
        shape: ShapeArgs,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
    /// DP-SGD (Poisson, add/remove): the smallest μ with μ-GDP, which is √T/σ — certified
    /// μ-GDP at the upper end, certified not μ-GDP at the lower end (no amplification by
    /// subsampling at finite T).
    #[command(after_help = super::EXIT_CODES)]
    Dpsgd {
        #[command(flatten)]
        #[serde(flatten)]
        sgm: SgmArgs,
        #[command(flatten)]
        #[serde(flatten)]
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
            GdpCmd::Dpsgd { sgm, .. } => json!({
                "rate": sgm.rate, "sigma": sgm.sigma, "steps": sgm.steps,
                "precision": self.common().precision,
            }),
        }
    }
    fn to_query(&self) -> Result<Query, Error> {
        match self {
            GdpCmd::Gaussian { sigma, shape, .. } => Ok(Query::GaussianGdp {
                shape: shape.with_sigma(sigma)?,
            }),
            GdpCmd::Dpsgd { sgm, .. } => Ok(Query::DpsgdGdp {
                rate: num("--rate", &sgm.rate)?,
                sigma: num("--sigma", &sgm.sigma)?,
                steps: count("--steps", &sgm.steps)?,
            }),
        }
    }
    fn asked(&self) -> String {
        match self {
            GdpCmd::Gaussian { sigma, shape, .. } => format!(
                "The μ of μ-GDP of Gaussian noise σ = {sigma} ({})",
                shape.words()
            ),
            GdpCmd::Dpsgd { sgm, .. } => format!(
                "The μ of μ-GDP of DP-SGD with q = {}, σ = {}, {} steps",
                sgm.rate, sgm.sigma, sgm.steps
            ),
        }
    }
}
