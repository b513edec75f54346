//! `dpcert dpsgd`: ε at δ of DP-SGD (Poisson-subsampled Gaussian steps), by the PLD accountant
//! or the RDP route.
use super::rdp::SgmArgs;
use super::{count, num, Common, QueryCmd};
use crate::reference::query::{Answer, Dpsgd, DpsgdMethod, Query};
use crate::Error;
use clap::Args;
use serde_json::{json, Value};

#[derive(Args)]
pub(super) struct DpsgdArgs {
    #[command(flatten)]
    sgm: SgmArgs,
    /// Target δ in (0, 1), per example (the privacy unit is one example), e.g. 1e-5; usually
    /// below 1 / dataset size.
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: String,
    /// pld = the certified PLD accountant (two-sided bracket, both neighbour directions);
    /// rdp = Rényi DP (an upper bound resting on a cited result); best = pld, or rdp where
    /// pld cannot run on automatic settings.
    #[arg(long, value_name = "METHOD", default_value = "best")]
    method: String,
    /// PLD grid width h (privacy losses on the grid i·h; smaller = tighter and slower).
    /// Default: chosen from the composed spread.
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    grid: Option<String>,
    /// PLD tail mass one truncation may move, in (0, 1e-3]. Default: δ·10⁻⁶/(2·steps).
    #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
    tail: Option<String>,
    #[command(flatten)]
    pub(super) common: Common,
}

impl QueryCmd for DpsgdArgs {
    fn command(&self) -> &'static str {
        "dpsgd"
    }
    fn common(&self) -> &Common {
        &self.common
    }
    fn input(&self) -> Value {
        json!({"rate": self.sgm.rate, "sigma": self.sgm.sigma, "steps": self.sgm.steps,
               "delta": self.delta, "method": self.method, "grid": self.grid, "tail": self.tail,
               "precision": self.common.precision})
    }
    fn to_query(&self) -> Result<Query, Error> {
        Ok(Query::Dpsgd(Dpsgd {
            rate: num("--rate", &self.sgm.rate)?,
            sigma: num("--sigma", &self.sgm.sigma)?,
            steps: count("--steps", &self.sgm.steps)?,
            delta: num("--delta", &self.delta)?,
            method: DpsgdMethod::parse(&self.method)?,
            grid: self.grid.as_deref().map(|g| num("--grid", g)).transpose()?,
            tail: self.tail.as_deref().map(|t| num("--tail", t)).transpose()?,
        }))
    }
    fn asked(&self) -> String {
        format!(
            "The ε at δ = {} of DP-SGD with q = {}, σ = {}, {} steps",
            self.delta, self.sgm.rate, self.sgm.sigma, self.sgm.steps
        )
    }
    fn note(&self, a: &Answer) -> String {
        let detail = |k: &str| {
            a.details
                .iter()
                .find(|(n, _)| *n == k)
                .and_then(|(_, v)| v.as_str().map(str::to_string))
        };
        match (detail("grid"), detail("order")) {
            (Some(h), _) => format!(" (certified PLD accountant, grid {h})"),
            (None, Some(alpha)) => format!(
                " (RDP at order {alpha}; rests on a cited result: {})",
                a.value.rests_on().unwrap_or("none")
            ),
            _ => String::new(),
        }
    }
}
