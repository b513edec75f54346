//! `dpcert compose pure|approx`: composition of K (ε0, δ0)-DP mechanisms.
use super::{count, num, Common, QueryCmd};
use crate::reference::query::{Answer, Query};
use crate::Error;
use clap::Subcommand;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Subcommand, Debug, Deserialize)]
#[serde(tag = "subcommand", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ComposeCmd {
    /// Best certified ε at δ for K mechanisms that are each ε0-DP (optimal composition).
    #[command(after_help = super::EXIT_CODES)]
    Pure {
        /// ε0 of each mechanism (≥ 0).
        #[arg(long, value_name = "E0", allow_hyphen_values = true)]
        epsilon: String,
        /// Number K of mechanisms composed (an integer ≥ 1; e.g. queries answered).
        #[arg(long, value_name = "K", allow_hyphen_values = true)]
        count: String,
        /// Target δ of the composition, in (0, 1).
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
    /// Optimal certified ε at δ for K mechanisms that are each (ε0, δ0)-DP.
    #[command(after_help = super::EXIT_CODES)]
    Approx {
        /// ε0 of each mechanism (≥ 0).
        #[arg(long, value_name = "E0", allow_hyphen_values = true)]
        epsilon: String,
        /// δ0 of each mechanism, in [0, 1).
        #[arg(long = "delta-each", value_name = "D0", allow_hyphen_values = true)]
        delta_each: String,
        /// Number K of mechanisms composed (an integer ≥ 1).
        #[arg(long, value_name = "K", allow_hyphen_values = true)]
        count: String,
        /// Target δ of the composition, in (0, 1) (must exceed K·δ0 for a finite ε).
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        #[serde(flatten)]
        common: Common,
    },
}

impl ComposeCmd {
    fn parts(&self) -> (&String, Option<&String>, &String, &String) {
        match self {
            ComposeCmd::Pure {
                epsilon,
                count,
                delta,
                ..
            } => (epsilon, None, count, delta),
            ComposeCmd::Approx {
                epsilon,
                delta_each,
                count,
                delta,
                ..
            } => (epsilon, Some(delta_each), count, delta),
        }
    }
}

impl QueryCmd for ComposeCmd {
    fn command(&self) -> &'static str {
        match self {
            ComposeCmd::Pure { .. } => "compose pure",
            ComposeCmd::Approx { .. } => "compose approx",
        }
    }
    fn common(&self) -> &Common {
        match self {
            ComposeCmd::Pure { common, .. } | ComposeCmd::Approx { common, .. } => common,
        }
    }
    fn input(&self) -> Value {
        let (epsilon, delta_each, count, delta) = self.parts();
        json!({"epsilon": epsilon, "delta_each": delta_each, "count": count, "delta": delta,
               "precision": self.common().precision})
    }
    fn to_query(&self) -> Result<Query, Error> {
        let (epsilon, delta_each, k, delta) = self.parts();
        Ok(Query::Compose {
            epsilon: num("--epsilon", epsilon)?,
            delta_each: delta_each.map(|t| num("--delta-each", t)).transpose()?,
            count: count("--count", k)?,
            delta: num("--delta", delta)?,
        })
    }
    fn asked(&self) -> String {
        let (epsilon, delta_each, count, delta) = self.parts();
        format!(
            "The ε at δ = {delta} of {count} mechanisms, each ({epsilon}, {})-DP,",
            delta_each.map_or("0", String::as_str)
        )
    }
    fn note(&self, a: &Answer) -> String {
        match a.details.iter().find(|(k, _)| *k == "route") {
            Some((_, r)) if r != "optimal composition" => format!(
                " (by {}; the exact optimum is too large to compute here)",
                r.as_str().unwrap_or("a bound route")
            ),
            _ => String::new(),
        }
    }
}
