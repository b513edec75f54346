//! `dpcert dpsgd`: ε at δ of DP-SGD (Poisson-subsampled Gaussian steps), by the PLD accountant
//! or the RDP route.
use super::rdp::sgm_args;
use super::{lower_dec, num, precision, CliResult, Common, Output};
use crate::num::Certified;
use crate::theorems::{pld_accountant, rdp};
use crate::{validate, Error, UpperBound};
use clap::Args;
use rug::{Integer, Rational};
use serde_json::{json, Value};

#[derive(Args)]
pub(super) struct DpsgdArgs {
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    pub(super) rate: String,
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub(super) sigma: String,
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub(super) steps: String,
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    pub(super) delta: String,
    /// rdp | pld | best
    #[arg(long, value_name = "METHOD", default_value = "best")]
    pub(super) method: String,
    #[command(flatten)]
    pub(super) pld: PldArgs,
    #[command(flatten)]
    pub(super) common: Common,
}

/// Grid and truncation of the PLD accountant (automatic when absent).
#[derive(clap::Args, Debug, Clone, Default)]
pub(super) struct PldArgs {
    /// PLD grid width h (losses i·h); default: chosen from the composed spread
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    grid: Option<String>,
    /// PLD tail mass one truncation may move; default: δ·10⁻⁶/(2·steps)
    #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
    tail: Option<String>,
}

pub(super) fn pld_options(a: &PldArgs) -> Result<pld_accountant::PldOptions, Error> {
    use std::io::IsTerminal;
    Ok(pld_accountant::PldOptions {
        grid: a.grid.as_deref().map(|g| num("--grid", g)).transpose()?,
        tail: a.tail.as_deref().map(|t| num("--tail", t)).transpose()?,
        progress: std::io::stderr().is_terminal(),
    })
}

fn pld_extra(r: &pld_accountant::PldReport) -> Vec<(&'static str, Value)> {
    vec![
        ("method", json!("pld")),
        ("grid", json!(validate::show(&r.grid))),
        ("tail", json!(validate::show(&r.tail))),
        ("fixed_point_bits", json!(r.fixed_bits)),
        ("support", json!(r.support)),
    ]
}

pub(super) fn run_dpsgd(a: &DpsgdArgs) -> CliResult {
    let DpsgdArgs {
        rate,
        sigma,
        steps,
        delta,
        method,
        pld: pld_args,
        common,
    } = a;
    let method = method.as_str();
    let (q, s, t) = sgm_args(rate, sigma, steps)?;
    let d = num("--delta", delta)?;
    validate::open_unit("--delta", &d)?;
    if !["rdp", "pld", "best"].contains(&method) {
        return Err(Error::arg(
            "--method",
            format!("`{method}` is not rdp, pld or best"),
        ));
    }
    let opts = pld_options(pld_args)?;
    let pld = match method {
        "rdp" => None,
        // pld, or best with a grid or tail the user chose: their errors are the answer
        _ if method == "pld" || pld_args.grid.is_some() || pld_args.tail.is_some() => {
            Some(pld_accountant::dpsgd_pld_epsilon(&q, &s, &t, &d, &opts)?)
        }
        // best on automatic settings: a PLD failure (e.g. δ below its resolution) leaves RDP
        _ => pld_accountant::dpsgd_pld_epsilon(&q, &s, &t, &d, &opts).ok(),
    };
    let pld_output = |r: pld_accountant::PldReport, note: &str| {
        Output {
        quantity: "epsilon",
        query: "dpsgd",
        sentence: format!(
            "DP-SGD with q = {rate}, σ = {sigma}, {t} steps is (ε, δ = {delta})-DP for ε = {}, and not for any ε below {} (certified PLD, grid {}){note}",
            r.enclosure.upper().to_decimal(),
            lower_dec(r.enclosure.lower()),
            validate::show(&r.grid)
        ),
        value: Certified::TwoSided(r.enclosure.clone()),
        theorem: "Theorem 9 (composition = convolution of PLDs) on a certified grid: dominating and dominated discretisations, exact integer convolution; add and remove neighbours",
        extra: pld_extra(&r),
    }
    };
    if method == "pld" {
        return Ok(pld_output(pld.expect("computed"), ""));
    }
    // best: the PLD accountant certifies both neighbour directions; the RDP route rests on a
    // cited domination result, so it answers only when the PLD accountant cannot run
    if let Some(r) = pld {
        return Ok(pld_output(r, ""));
    }
    let (bound, alpha) = rdp::dpsgd_rdp_epsilon(&q, &s, &t, &d, precision(common)?)?;
    Ok(rdp_dpsgd_output(rate, sigma, &t, delta, bound, &alpha))
}

fn rdp_dpsgd_output(
    rate: &str,
    sigma: &str,
    t: &Integer,
    delta: &str,
    enc: UpperBound,
    alpha: &Rational,
) -> Output {
    let rests_on = enc.rests_on();
    Output {
        quantity: "epsilon",
        query: "dpsgd",
        sentence: format!(
            "DP-SGD with q = {rate}, σ = {sigma}, {t} steps is (ε, δ = {delta})-DP for ε = {} (RDP at order {}; rests on a cited result: {})",
            enc.upper().to_decimal(),
            validate::show(&alpha),
            rests_on.unwrap_or("none")
        ),
        value: Certified::UpperBound(enc),
        theorem: "RDP of the Poisson-subsampled Gaussian (Mironov–Talwar–Zhang 2019), Proposition 14 general form / Canonne–Kamath–Steinke 2020 conversion",
        extra: vec![
            ("method", json!("rdp")),
            ("order", json!(validate::show(alpha))),
            ("rests_on", json!(rests_on)),
        ],
    }
}
