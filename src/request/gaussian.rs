//! `dpcert gaussian delta|epsilon|sigma`: the Gaussian mechanism, exactly.
use super::{count, form, num, Common, QueryCmd};
use crate::reference::query::{GaussianShape, Query};
use crate::Error;
use clap::{Args, Subcommand};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Args, Debug, Deserialize)]
pub struct ShapeArgs {
    /// L2 sensitivity Δ of the query (the clipping norm in DP-SGD), > 0.
    #[arg(
        long,
        value_name = "D",
        default_value = form::ONE,
        allow_hyphen_values = true
    )]
    #[serde(default = "form::one")]
    pub(super) sensitivity: String,
    /// Number of compositions K: how many times the mechanism is run on the same data
    /// (an integer ≥ 1).
    #[arg(
        long,
        value_name = "K",
        default_value = form::ONE,
        allow_hyphen_values = true
    )]
    #[serde(default = "form::one")]
    pub(super) compositions: String,
}

/// The noise standard deviation σ, in the query's units (σ = noise multiplier × Δ).
pub(super) const SIGMA_HELP: &str = "Noise standard deviation σ (> 0), in the query's units: with sensitivity Δ, the noise multiplier is σ/Δ";

#[derive(Subcommand, Debug, Deserialize)]
#[serde(tag = "subcommand", rename_all = "kebab-case", deny_unknown_fields)]
pub enum GaussianCmd {
    /// Exact δ(ε) of K compositions of N(0, σ²) noise on a query of L2 sensitivity Δ.
    #[command(after_help = super::EXIT_CODES)]
    Delta {
        #[arg(long, value_name = "S", allow_hyphen_values = true, help = SIGMA_HELP)]
        sigma: String,
        /// The ε at which δ is asked (≥ 0; natural-log units).
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: String,
        #[command(flatten)]
        #[serde(flatten)]
        shape: ShapeArgs,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
    /// Exact optimal ε for a target δ (the smallest ε with (ε, δ)-DP).
    #[command(after_help = super::EXIT_CODES)]
    Epsilon {
        #[arg(long, value_name = "S", allow_hyphen_values = true, help = SIGMA_HELP)]
        sigma: String,
        /// Target δ in (0, 1), e.g. 1e-5 (often chosen below 1/dataset size).
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        #[serde(flatten)]
        shape: ShapeArgs,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
    /// Smallest σ achieving (ε, δ): lower = certified infeasible σ, upper = certified feasible σ.
    #[command(after_help = super::EXIT_CODES)]
    Sigma {
        /// Target ε (≥ 0).
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: String,
        /// Target δ in (0, 1).
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        #[serde(flatten)]
        shape: ShapeArgs,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
}

impl ShapeArgs {
    pub(super) fn with_sigma(&self, sigma: &str) -> Result<GaussianShape, Error> {
        Ok(GaussianShape {
            sigma: num("--sigma", sigma)?,
            sensitivity: num("--sensitivity", &self.sensitivity)?,
            compositions: count("--compositions", &self.compositions)?,
        })
    }
    pub(super) fn words(&self) -> String {
        format!("Δ = {}, K = {}", self.sensitivity, self.compositions)
    }
}

impl QueryCmd for GaussianCmd {
    fn command(&self) -> &'static str {
        match self {
            GaussianCmd::Delta { .. } => "gaussian delta",
            GaussianCmd::Epsilon { .. } => "gaussian epsilon",
            GaussianCmd::Sigma { .. } => "gaussian sigma",
        }
    }
    fn common(&self) -> &Common {
        match self {
            GaussianCmd::Delta { common, .. }
            | GaussianCmd::Epsilon { common, .. }
            | GaussianCmd::Sigma { common, .. } => common,
        }
    }
    fn input(&self) -> Value {
        let (sigma, epsilon, delta, shape) = match self {
            GaussianCmd::Delta {
                sigma,
                epsilon,
                shape,
                ..
            } => (Some(sigma), Some(epsilon), None, shape),
            GaussianCmd::Epsilon {
                sigma,
                delta,
                shape,
                ..
            } => (Some(sigma), None, Some(delta), shape),
            GaussianCmd::Sigma {
                epsilon,
                delta,
                shape,
                ..
            } => (None, Some(epsilon), Some(delta), shape),
        };
        json!({
            "sigma": sigma, "epsilon": epsilon, "delta": delta,
            "sensitivity": shape.sensitivity, "compositions": shape.compositions,
            "precision": self.common().precision,
        })
    }
    fn to_query(&self) -> Result<Query, Error> {
        Ok(match self {
            GaussianCmd::Delta {
                sigma,
                epsilon,
                shape,
                ..
            } => Query::GaussianDelta {
                shape: shape.with_sigma(sigma)?,
                epsilon: num("--epsilon", epsilon)?,
            },
            GaussianCmd::Epsilon {
                sigma,
                delta,
                shape,
                ..
            } => Query::GaussianEpsilon {
                shape: shape.with_sigma(sigma)?,
                delta: num("--delta", delta)?,
            },
            GaussianCmd::Sigma {
                epsilon,
                delta,
                shape,
                ..
            } => Query::GaussianSigma {
                epsilon: num("--epsilon", epsilon)?,
                delta: num("--delta", delta)?,
                sensitivity: num("--sensitivity", &shape.sensitivity)?,
                compositions: count("--compositions", &shape.compositions)?,
            },
        })
    }
    fn asked(&self) -> String {
        match self {
            GaussianCmd::Delta {
                sigma,
                epsilon,
                shape,
                ..
            } => format!(
                "The exact δ at ε = {epsilon} of Gaussian noise σ = {sigma} ({})",
                shape.words()
            ),
            GaussianCmd::Epsilon {
                sigma,
                delta,
                shape,
                ..
            } => format!(
                "The optimal ε at δ = {delta} of Gaussian noise σ = {sigma} ({})",
                shape.words()
            ),
            GaussianCmd::Sigma {
                epsilon,
                delta,
                shape,
                ..
            } => format!(
                "The smallest σ giving (ε = {epsilon}, δ = {delta})-DP ({})",
                shape.words()
            ),
        }
    }
}
