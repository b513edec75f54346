//! `dpcert tradeoff gaussian`: the best membership-inference attack's true-positive rate at a
//! false-positive rate (f-DP, Dong–Roth–Su 2022).
use super::gaussian::ShapeArgs;
use super::{num, Common, QueryCmd};
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
}

impl QueryCmd for TradeoffCmd {
    fn command(&self) -> &'static str {
        "tradeoff gaussian"
    }
    fn common(&self) -> &Common {
        let TradeoffCmd::Gaussian { common, .. } = self;
        common
    }
    fn input(&self) -> Value {
        let TradeoffCmd::Gaussian {
            sigma, fpr, shape, ..
        } = self;
        json!({
            "sigma": sigma, "fpr": fpr, "sensitivity": shape.sensitivity,
            "compositions": shape.compositions, "precision": self.common().precision,
        })
    }
    fn to_query(&self) -> Result<Query, Error> {
        let TradeoffCmd::Gaussian {
            sigma, fpr, shape, ..
        } = self;
        Ok(Query::GaussianTpr {
            shape: shape.with_sigma(sigma)?,
            fpr: num("--fpr", fpr)?,
        })
    }
    fn asked(&self) -> String {
        let TradeoffCmd::Gaussian {
            sigma, fpr, shape, ..
        } = self;
        format!(
            "The best attack's TPR at FPR = {fpr} against Gaussian noise σ = {sigma} ({})",
            shape.words()
        )
    }
}
