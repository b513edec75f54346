//! `dpcert compose pure|approx`: composition of K (ε0, δ0)-DP mechanisms.
use super::{count, lower_dec, num, precision, CliResult, Common, Output};
use crate::num::{Certified, Enclosure, UpperBound, DEFAULT_PREC};
use crate::theorems::{approx, basic, optimal, zcdp};
use crate::{validate, Error};
use clap::Subcommand;
use rug::Rational;
use serde_json::{json, Value};

#[derive(Subcommand)]
pub(super) enum ComposeCmd {
    /// Best certified ε at δ for K mechanisms that are each ε0-DP.
    Pure {
        #[arg(long, value_name = "E0", allow_hyphen_values = true)]
        epsilon: String,
        #[arg(long, value_name = "K", allow_hyphen_values = true)]
        count: String,
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        common: Common,
    },
    /// Optimal certified ε at δ for K mechanisms that are each (ε0, δ0)-DP.
    Approx {
        #[arg(long, value_name = "E0", allow_hyphen_values = true)]
        epsilon: String,
        #[arg(long = "delta-each", value_name = "D0", allow_hyphen_values = true)]
        delta_each: String,
        #[arg(long, value_name = "K", allow_hyphen_values = true)]
        count: String,
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        #[command(flatten)]
        common: Common,
    },
}

pub(super) fn compose_classes(cmd: &ComposeCmd) -> Result<(Vec<optimal::Class>, Rational), Error> {
    let (epsilon, delta_each, k, delta) = match cmd {
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
    };
    let e0 = num("--epsilon", epsilon)?;
    validate::nonnegative("--epsilon", &e0)?;
    let d0 = match delta_each {
        None => Rational::new(),
        Some(t) => {
            let v = num("--delta-each", t)?;
            validate::unit_from_zero("--delta-each", &v)?;
            v
        }
    };
    let k = count("--count", k)?;
    let d = num("--delta", delta)?;
    validate::open_unit("--delta", &d)?;
    Ok((
        vec![optimal::Class {
            epsilon: e0,
            delta: d0,
            count: k,
        }],
        d,
    ))
}

pub(super) fn run_compose(cmd: &ComposeCmd) -> CliResult {
    let p = precision(cmd.common())?;
    let (classes, d) = compose_classes(cmd)?;
    let c = &classes[0];
    let kr = Rational::from(&c.count);
    // bound routes, for comparison; Theorem 1 on the k copies (refuses k·δ0 ≥ 1)
    let mut routes: Vec<(&str, &str, UpperBound)> = Vec::new();
    let basic_sums = basic::basic_composition(&[(
        Rational::from(&c.epsilon * &kr),
        Rational::from(&c.delta * &kr),
    )])
    .ok();
    if let Some((sum_e, _)) = basic_sums.as_ref().filter(|(_, sd)| *sd <= d) {
        routes.push((
            "basic composition",
            "Steinke 2022 Theorem 1",
            UpperBound::new(Enclosure::rational(sum_e, DEFAULT_PREC)),
        ));
    }
    if c.delta == 0 {
        routes.push((
            "advanced composition",
            "Steinke 2022 Theorem 18",
            zcdp::advanced_composition(&[(c.epsilon.clone(), c.count.clone())], &d, p)?,
        ));
        let rho = zcdp::pure_to_zcdp(&c.epsilon)? * &kr;
        if rho > 0 {
            routes.push((
                "zCDP",
                "Steinke 2022 Proposition 16, Theorem 13, Proposition 14 (optimised)",
                zcdp::zcdp_epsilon(&rho, &d, p)?,
            ));
        }
    } else if basic_sums.as_ref().is_some_and(|(_, sd)| d > *sd) {
        routes.push((
            "advanced composition",
            "Steinke 2022 Theorem 22",
            approx::approx_advanced_composition(
                &[(c.epsilon.clone(), c.delta.clone(), c.count.clone())],
                &d,
                p,
            )?,
        ));
    }
    let routes_json: Vec<Value> = routes
        .iter()
        .map(|(n, t, e)| json!({"route": n, "theorem": t, "upper": e.upper().to_decimal()}))
        .collect();
    let query = if c.delta == 0 {
        "compose pure"
    } else {
        "compose approx"
    };
    let opt_theorem = "optimal composition: Kairouz–Oh–Viswanath 2015 Thm 3.3 / Murtagh–Vadhan 2016, via Steinke 2022 Corollary 24";
    match optimal::optimal_composition_epsilon(&classes, &d, p) {
        Ok(enc) => Ok(Output {
            quantity: "epsilon",
            query,
            sentence: format!(
                "{} mechanisms, each ({}, {})-DP, are optimally (ε, δ={})-DP with ε ∈ [{}, {}]",
                c.count,
                validate::show(&c.epsilon),
                validate::show(&c.delta),
                validate::show(&d),
                lower_dec(enc.lower()),
                enc.upper().to_decimal()
            ),
            value: Certified::TwoSided(enc),
            theorem: opt_theorem,
            extra: vec![
                ("route", json!("optimal composition")),
                ("routes", Value::Array(routes_json)),
            ],
        }),
        Err(Error::InvalidArgument { .. }) if !routes.is_empty() => {
            // too many atoms for the exact computation: best bound route, one-sided
            let best = routes
                .iter()
                .min_by(|a, b| a.2.upper().0.partial_cmp(&b.2.upper().0).expect("finite"))
                .expect("routes")
                .clone();
            Ok(Output {
                quantity: "epsilon",
                query,
                sentence: format!(
                    "{} mechanisms are (ε, δ={})-DP for ε = {} (best route: {}; the exact optimum is too large to compute here)",
                    c.count,
                    validate::show(&d),
                    best.2.upper().to_decimal(),
                    best.0
                ),
                value: Certified::UpperBound(best.2.clone()),
                theorem: best.1,
                extra: vec![("route", json!(best.0)), ("routes", Value::Array(routes_json))],
            })
        }
        Err(e) => Err(e),
    }
}

impl ComposeCmd {
    pub(super) fn common(&self) -> &Common {
        match self {
            ComposeCmd::Pure { common, .. } | ComposeCmd::Approx { common, .. } => common,
        }
    }
}
