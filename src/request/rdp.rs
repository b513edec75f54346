//! `dpcert rdp subsampled-gaussian`: Rényi DP of the Poisson-subsampled Gaussian.
use super::{count, num, Common, QueryCmd};
use crate::reference::query::Query;
use crate::Error;
use clap::{Args, Subcommand};
use serde::Deserialize;
use serde_json::{json, Value};

/// DP-SGD's three parameters, shared by `rdp subsampled-gaussian` and `dpsgd`.
#[derive(Args, Debug, Deserialize)]
pub struct SgmArgs {
    /// Sampling rate q = batch size / dataset size, in (0, 1] (each example is in a batch
    /// independently with probability q: Poisson sampling).
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    pub(super) rate: String,
    /// Noise multiplier σ = noise standard deviation / clipping norm, > 0.
    #[arg(
        long,
        visible_alias = "noise-multiplier",
        value_name = "S",
        allow_hyphen_values = true
    )]
    #[serde(alias = "noise_multiplier")]
    pub(super) sigma: String,
    /// Number of training steps T = epochs · dataset size / batch size (an integer ≥ 1).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub(super) steps: String,
}

#[derive(Subcommand, Debug, Deserialize)]
#[serde(tag = "subcommand", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RdpCmd {
    /// Composed RDP ε(α) of T Poisson-subsampled Gaussian steps (removal direction, MTZ19).
    #[command(after_help = super::EXIT_CODES)]
    SubsampledGaussian {
        #[command(flatten)]
        #[serde(flatten)]
        sgm: SgmArgs,
        /// Rényi order α in (1, 20000] (integer or fraction).
        #[arg(long, value_name = "A", allow_hyphen_values = true)]
        order: String,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
}

impl QueryCmd for RdpCmd {
    fn command(&self) -> &'static str {
        "rdp subsampled-gaussian"
    }
    fn common(&self) -> &Common {
        let RdpCmd::SubsampledGaussian { common, .. } = self;
        common
    }
    fn input(&self) -> Value {
        let RdpCmd::SubsampledGaussian { sgm, order, .. } = self;
        json!({"rate": sgm.rate, "sigma": sgm.sigma, "steps": sgm.steps, "order": order,
               "precision": self.common().precision})
    }
    fn to_query(&self) -> Result<Query, Error> {
        let RdpCmd::SubsampledGaussian { sgm, order, .. } = self;
        Ok(Query::RdpSubsampledGaussian {
            rate: num("--rate", &sgm.rate)?,
            sigma: num("--sigma", &sgm.sigma)?,
            steps: count("--steps", &sgm.steps)?,
            order: num("--order", order)?,
        })
    }
    fn asked(&self) -> String {
        let RdpCmd::SubsampledGaussian { sgm, order, .. } = self;
        format!(
            "The RDP ε at order α = {order} of {} Poisson-subsampled Gaussian steps (q = {}, σ = {})",
            sgm.steps, sgm.rate, sgm.sigma
        )
    }
}
