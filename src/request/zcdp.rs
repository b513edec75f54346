//! `dpcert zcdp delta|epsilon`: conversions from ρ-zCDP to (ε, δ)-DP.
use super::{num, Common, QueryCmd};
use crate::reference::query::Query;
use crate::Error;
use clap::Subcommand;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Subcommand, Debug, Deserialize)]
#[serde(tag = "subcommand", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ZcdpCmd {
    /// A valid δ at ε for every ρ-zCDP mechanism (Proposition 14, Remark 15).
    #[command(after_help = super::EXIT_CODES)]
    Delta {
        /// zCDP parameter ρ > 0 (Gaussian noise σ on sensitivity Δ has ρ = Δ²/(2σ²); ρ adds up
        /// under composition).
        #[arg(long, value_name = "R", allow_hyphen_values = true)]
        rho: String,
        /// The ε at which δ is asked (≥ 0).
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: String,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
    /// A valid ε at δ for every ρ-zCDP mechanism (Proposition 14, Remark 15).
    #[command(after_help = super::EXIT_CODES)]
    Epsilon {
        /// zCDP parameter ρ > 0 (Gaussian noise σ on sensitivity Δ has ρ = Δ²/(2σ²); ρ adds up
        /// under composition).
        #[arg(long, value_name = "R", allow_hyphen_values = true)]
        rho: String,
        /// Target δ in (0, 1).
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
}

impl QueryCmd for ZcdpCmd {
    fn command(&self) -> &'static str {
        match self {
            ZcdpCmd::Delta { .. } => "zcdp delta",
            ZcdpCmd::Epsilon { .. } => "zcdp epsilon",
        }
    }
    fn common(&self) -> &Common {
        match self {
            ZcdpCmd::Delta { common, .. } | ZcdpCmd::Epsilon { common, .. } => common,
        }
    }
    fn input(&self) -> Value {
        let (rho, epsilon, delta) = match self {
            ZcdpCmd::Delta { rho, epsilon, .. } => (rho, Some(epsilon), None),
            ZcdpCmd::Epsilon { rho, delta, .. } => (rho, None, Some(delta)),
        };
        json!({"rho": rho, "epsilon": epsilon, "delta": delta,
               "precision": self.common().precision})
    }
    fn to_query(&self) -> Result<Query, Error> {
        Ok(match self {
            ZcdpCmd::Delta { rho, epsilon, .. } => Query::ZcdpDelta {
                rho: num("--rho", rho)?,
                epsilon: num("--epsilon", epsilon)?,
            },
            ZcdpCmd::Epsilon { rho, delta, .. } => Query::ZcdpEpsilon {
                rho: num("--rho", rho)?,
                delta: num("--delta", delta)?,
            },
        })
    }
    fn asked(&self) -> String {
        match self {
            ZcdpCmd::Delta { rho, epsilon, .. } => {
                format!("A valid δ at ε = {epsilon} for every {rho}-zCDP mechanism")
            }
            ZcdpCmd::Epsilon { rho, delta, .. } => {
                format!("A valid ε at δ = {delta} for every {rho}-zCDP mechanism")
            }
        }
    }
}
