//! `dpcert rdp subsampled-gaussian`: Rényi DP of the Poisson-subsampled Gaussian.
use super::{count, lower_dec, num, precision, CliResult, Common, Output};
use crate::num::Certified;
use crate::theorems::rdp;
use crate::{validate, Error};
use clap::Subcommand;
use rug::{Integer, Rational};

#[derive(Subcommand)]
pub(super) enum RdpCmd {
    /// Composed RDP ε(α) of T Poisson-subsampled Gaussian steps (removal direction, MTZ19).
    SubsampledGaussian {
        #[arg(long, value_name = "Q", allow_hyphen_values = true)]
        rate: String,
        #[arg(long, value_name = "S", allow_hyphen_values = true)]
        sigma: String,
        #[arg(long, value_name = "T", allow_hyphen_values = true)]
        steps: String,
        #[arg(long, value_name = "A", allow_hyphen_values = true)]
        order: String,
        #[command(flatten)]
        common: Common,
    },
}

pub(super) fn sgm_args(
    rate: &str,
    sigma: &str,
    steps: &str,
) -> Result<(Rational, Rational, Integer), Error> {
    let q = num("--rate", rate)?;
    if q <= 0 || q > 1 {
        return Err(Error::arg(
            "--rate",
            format!("must lie in (0, 1], got {}", validate::show(&q)),
        ));
    }
    let s = num("--sigma", sigma)?;
    validate::positive("--sigma", &s)?;
    let t = count("--steps", steps)?;
    Ok((q, s, t))
}

pub(super) fn run_rdp(cmd: &RdpCmd) -> CliResult {
    let RdpCmd::SubsampledGaussian {
        rate,
        sigma,
        steps,
        order,
        common,
    } = cmd;
    let (q, s, t) = sgm_args(rate, sigma, steps)?;
    let a = num("--order", order)?;
    if a <= 1 || a > rdp::MAX_ORDER {
        return Err(Error::arg(
            "--order",
            format!(
                "must lie in (1, {}], got {}",
                rdp::MAX_ORDER,
                validate::show(&a)
            ),
        ));
    }
    let enc = rdp::subsampled_gaussian_rdp(&q, &s, &t, &a, precision(common)?)?;
    // two-sided at every order: the exact sum at integers, a series with certified remainder between
    let integer = *a.denom() == 1;
    Ok(Output {
        quantity: "rdp_epsilon",
        query: "rdp subsampled-gaussian",
        sentence: format!(
            "{t} steps of the Poisson-subsampled Gaussian (q = {rate}, σ = {sigma}) have RDP ε({order}) {} {}",
            "∈",
            format!("[{}, {}]", lower_dec(enc.lower()), enc.upper().to_decimal())
        ),
        value: Certified::TwoSided(enc),
        theorem: if integer {
            "Mironov–Talwar–Zhang 2019 (exact binomial sum at integer orders), composed additively (Mironov 2017)"
        } else {
            "Mironov–Talwar–Zhang 2019 fractional-order series with a certified remainder (capped by the convexity chord)"
        },
        extra: vec![],
    })
}

impl RdpCmd {
    pub(super) fn common(&self) -> &Common {
        match self {
            RdpCmd::SubsampledGaussian { common, .. } => common,
        }
    }
}
