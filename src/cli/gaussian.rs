//! `dpcert gaussian delta|epsilon|sigma`: the Gaussian mechanism, exactly.
use super::{count, lower_dec, num, precision, CliResult, Common, Output};
use crate::num::Certified;
use crate::theorems::{gaussian, pld};
use crate::{validate, Error};
use clap::{Args, Subcommand};
use rug::{Integer, Rational};
use serde_json::json;

#[derive(Args)]
pub(super) struct GaussianShape {
    /// L2 sensitivity Δ (default 1).
    #[arg(
        long,
        value_name = "D",
        default_value = "1",
        allow_hyphen_values = true
    )]
    pub(super) sensitivity: String,
    /// Number of compositions K (default 1).
    #[arg(
        long,
        value_name = "K",
        default_value = "1",
        allow_hyphen_values = true
    )]
    pub(super) compositions: String,
}

#[derive(Subcommand)]
pub(super) enum GaussianCmd {
    /// Exact δ(ε) of K compositions of N(0, σ²) noise on a sensitivity-Δ query.
    Delta {
        #[arg(long, value_name = "S", allow_hyphen_values = true)]
        sigma: String,
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: String,
        #[command(flatten)]
        shape: GaussianShape,
        #[command(flatten)]
        common: Common,
    },
    /// Exact optimal ε for a target δ.
    Epsilon {
        #[arg(long, value_name = "S", allow_hyphen_values = true)]
        sigma: String,
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        shape: GaussianShape,
        #[command(flatten)]
        common: Common,
    },
    /// Smallest σ achieving (ε, δ): lower = certified infeasible σ, upper = certified feasible σ.
    Sigma {
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: String,
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        shape: GaussianShape,
        #[command(flatten)]
        common: Common,
    },
}

pub(super) fn gaussian_pld(
    sigma: &str,
    sh: &GaussianShape,
) -> Result<(pld::GaussianPld, Rational, Integer), Error> {
    let s = num("--sigma", sigma)?;
    validate::positive("--sigma", &s)?;
    let d = num("--sensitivity", &sh.sensitivity)?;
    validate::positive("--sensitivity", &d)?;
    let k = count("--compositions", &sh.compositions)?;
    let pld = gaussian::gaussian_composition(&[gaussian::GaussianMechanism {
        sigma: s,
        sensitivity: d.clone(),
        count: k.clone(),
    }])?;
    Ok((pld, d, k))
}

pub(super) fn run_gaussian(cmd: &GaussianCmd) -> CliResult {
    match cmd {
        GaussianCmd::Delta {
            sigma,
            epsilon,
            shape,
            common,
        } => {
            let (pld, _, _) = gaussian_pld(sigma, shape)?;
            let e = num("--epsilon", epsilon)?;
            validate::nonnegative("--epsilon", &e)?;
            let enc = gaussian::gaussian_delta(&pld, &e, precision(common)?)?;
            let sentence = format!(
                "δ(ε={epsilon}) = [{}, {}] exactly (optimal), ρ = {}",
                lower_dec(enc.lower()),
                enc.upper().to_decimal(),
                validate::echo(&pld.rho)
            );
            Ok(Output {
                quantity: "delta",
                query: "gaussian delta",
                value: Certified::TwoSided(enc),
                theorem: "Steinke 2022 Corollary 8 / Corollary 10 (Theorem 9 for compositions)",
                sentence,
                extra: vec![("rho", json!(validate::echo(&pld.rho)))],
            })
        }
        GaussianCmd::Epsilon {
            sigma,
            delta,
            shape,
            common,
        } => {
            let (pld, _, _) = gaussian_pld(sigma, shape)?;
            let d = num("--delta", delta)?;
            validate::open_unit("--delta", &d)?;
            let enc = gaussian::gaussian_epsilon(&pld, &d, precision(common)?)?;
            let sentence = format!(
                "the optimal ε at δ={delta} lies in [{}, {}]; (upper, δ)-DP is certified",
                lower_dec(enc.lower()),
                enc.upper().to_decimal()
            );
            Ok(Output {
                quantity: "epsilon",
                query: "gaussian epsilon",
                value: Certified::TwoSided(enc),
                theorem: "Steinke 2022 Corollary 8 / Corollary 10, inverted by certified bisection",
                sentence,
                extra: vec![("rho", json!(validate::echo(&pld.rho)))],
            })
        }
        GaussianCmd::Sigma {
            epsilon,
            delta,
            shape,
            common,
        } => {
            let e = num("--epsilon", epsilon)?;
            validate::nonnegative("--epsilon", &e)?;
            let d = num("--delta", delta)?;
            validate::open_unit("--delta", &d)?;
            let s = num("--sensitivity", &shape.sensitivity)?;
            validate::positive("--sensitivity", &s)?;
            let k = count("--compositions", &shape.compositions)?;
            let enc = gaussian::gaussian_sigma(&e, &d, &s, &k, precision(common)?)?;
            let sentence = format!(
                "σ = {} is certified to give (ε={epsilon}, δ={delta})-DP; σ = {} is certified not to",
                enc.upper().to_decimal(),
                lower_dec(enc.lower())
            );
            Ok(Output {
                quantity: "sigma",
                query: "gaussian sigma",
                value: Certified::TwoSided(enc),
                theorem:
                    "Steinke 2022 Corollary 8 / Corollary 10, inverted in σ by certified bisection",
                sentence,
                extra: vec![],
            })
        }
    }
}

impl GaussianCmd {
    pub(super) fn common(&self) -> &Common {
        match self {
            GaussianCmd::Delta { common, .. }
            | GaussianCmd::Epsilon { common, .. }
            | GaussianCmd::Sigma { common, .. } => common,
        }
    }
}
