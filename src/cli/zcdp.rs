//! `dpcert zcdp delta|epsilon`: conversions from ρ-zCDP to (ε, δ)-DP.
use super::{formula, num, precision, CliResult, Common, Output};
use crate::num::Certified;
use crate::theorems::zcdp;
use crate::validate;
use clap::Subcommand;

#[derive(Subcommand)]
pub(super) enum ZcdpCmd {
    /// A valid δ at ε for every ρ-zCDP mechanism.
    Delta {
        #[arg(long, value_name = "R", allow_hyphen_values = true)]
        rho: String,
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: String,
        #[command(flatten)]
        common: Common,
    },
    /// A valid ε at δ for every ρ-zCDP mechanism.
    Epsilon {
        #[arg(long, value_name = "R", allow_hyphen_values = true)]
        rho: String,
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        common: Common,
    },
}

pub(super) fn run_zcdp(cmd: &ZcdpCmd) -> CliResult {
    match cmd {
        ZcdpCmd::Delta {
            rho,
            epsilon,
            common,
        } => {
            let r = num("--rho", rho)?;
            validate::positive("--rho", &r)?;
            let e = num("--epsilon", epsilon)?;
            validate::nonnegative("--epsilon", &e)?;
            let p = precision(common)?;
            let opt = zcdp::zcdp_delta(&r, &e, p)?;
            let closed = if e >= r {
                Some(zcdp::zcdp_delta_closed_form(&r, &e, p)?)
            } else {
                None
            };
            let (best, theorem) = match &closed {
                Some(c) if c.upper().0 < opt.upper().0 => (
                    c.clone(),
                    "Steinke 2022 Proposition 14 (closed form, Remark 15)",
                ),
                _ => (
                    opt.clone(),
                    "Steinke 2022 Proposition 14 (optimised over t)",
                ),
            };
            let mut extra = vec![("optimised", formula(&opt))];
            if let Some(c) = &closed {
                extra.push(("closed_form", formula(c)));
            }
            Ok(Output {
                quantity: "delta",
                query: "zcdp delta",
                sentence: format!(
                    "every {rho}-zCDP mechanism is (ε={epsilon}, δ)-DP for δ = {}",
                    best.upper().to_decimal()
                ),
                value: Certified::UpperBound(best),
                theorem,
                extra,
            })
        }
        ZcdpCmd::Epsilon { rho, delta, common } => {
            let r = num("--rho", rho)?;
            validate::positive("--rho", &r)?;
            let d = num("--delta", delta)?;
            validate::open_unit("--delta", &d)?;
            let p = precision(common)?;
            let opt = zcdp::zcdp_epsilon(&r, &d, p)?;
            let closed = zcdp::zcdp_epsilon_closed_form(&r, &d, p)?;
            let (best, theorem) = if closed.upper().0 < opt.upper().0 {
                (
                    closed.clone(),
                    "Steinke 2022 Remark 15 (ρ + 2√(ρ log(1/δ)))",
                )
            } else {
                (
                    opt.clone(),
                    "Steinke 2022 Proposition 14 (optimised over t)",
                )
            };
            Ok(Output {
                quantity: "epsilon",
                query: "zcdp epsilon",
                sentence: format!(
                    "every {rho}-zCDP mechanism is (ε, δ={delta})-DP for ε = {}",
                    best.upper().to_decimal()
                ),
                value: Certified::UpperBound(best),
                theorem,
                extra: vec![
                    ("optimised", formula(&opt)),
                    ("closed_form", formula(&closed)),
                ],
            })
        }
    }
}

impl ZcdpCmd {
    pub(super) fn common(&self) -> &Common {
        match self {
            ZcdpCmd::Delta { common, .. } | ZcdpCmd::Epsilon { common, .. } => common,
        }
    }
}
