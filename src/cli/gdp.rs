//! `dpcert gdp gaussian`: μ of μ-Gaussian differential privacy (Dong–Roth–Su 2022).
use super::gaussian::ShapeArgs;
use super::{num, Common, QueryCmd};
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
}

impl QueryCmd for GdpCmd {
    fn command(&self) -> &'static str {
        "gdp gaussian"
    }
    fn common(&self) -> &Common {
        let GdpCmd::Gaussian { common, .. } = self;
        common
    }
    fn input(&self) -> Value {
        let GdpCmd::Gaussian { sigma, shape, .. } = self;
        json!({
            "sigma": sigma, "sensitivity": shape.sensitivity, "compositions": shape.compositions,
            "precision": self.common().precision,
        })
    }
    fn to_query(&self) -> Result<Query, Error> {
        let GdpCmd::Gaussian { sigma, shape, .. } = self;
        let _ = num("--sigma", sigma)?;
        Ok(Query::GaussianGdp {
            shape: shape.with_sigma(sigma)?,
        })
    }
    fn asked(&self) -> String {
        let GdpCmd::Gaussian { sigma, shape, .. } = self;
        format!(
            "The μ of μ-GDP of Gaussian noise σ = {sigma} ({})",
            shape.words()
        )
    }
}
