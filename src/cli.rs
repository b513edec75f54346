//! Single-query CLI. Every query prints a short sentence, or with `--json` one object with
//! top-level `"lower"` / `"upper"` (decimal strings, outward rounded; `"lower"` is `null`
//! where no lower bound of the asked quantity is claimed), `"theorem"`, `"precision_bits"`
//! and `"arithmetic"`.
use crate::num::{
    parse_exact, parse_positive_integer, Certified, Enclosure, Precision, UpperBound, DEFAULT_PREC,
};
use crate::num::{Lower, Upper};
use crate::reference::check::{
    quote_nonfinite_tokens, screen, Bracket, Claimed, Kind, Quantity, Verdict,
};
use crate::theorems::{approx, basic, gaussian, optimal, pld, pld_accountant, rdp, zcdp};
use crate::{validate, Error};
use clap::{Args, Parser, Subcommand};
use rug::{Integer, Rational};
use serde_json::{json, Value};

#[derive(Parser)]
#[command(
    name = "dpcert",
    version,
    about = "Certified differential-privacy accounting (Steinke 2022)."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// The Gaussian mechanism, exactly (Corollaries 8 and 10).
    #[command(subcommand)]
    Gaussian(GaussianCmd),
    /// Zero-concentrated DP conversions (Proposition 14, Remark 15).
    #[command(subcommand)]
    Zcdp(ZcdpCmd),
    /// Composition of DP mechanisms.
    #[command(subcommand)]
    Compose(ComposeCmd),
    /// Rényi DP curves.
    #[command(subcommand)]
    Rdp(RdpCmd),
    /// DP-SGD accounting: ε at δ for Poisson-subsampled Gaussian steps.
    Dpsgd {
        #[arg(long, value_name = "Q", allow_hyphen_values = true)]
        rate: String,
        #[arg(long, value_name = "S", allow_hyphen_values = true)]
        sigma: String,
        #[arg(long, value_name = "T", allow_hyphen_values = true)]
        steps: String,
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        /// rdp | pld | best
        #[arg(long, value_name = "METHOD", default_value = "best")]
        method: String,
        #[command(flatten)]
        pld: PldArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Amplification by subsampling of an (ε, δ)-DP mechanism.
    Subsample {
        #[arg(long, value_name = "E", allow_hyphen_values = true)]
        epsilon: String,
        #[arg(long, value_name = "D", allow_hyphen_values = true)]
        delta: String,
        /// Sampling rate q (Poisson) or m/n (without replacement).
        #[arg(long, value_name = "Q", allow_hyphen_values = true)]
        rate: String,
        /// poisson | without-replacement
        #[arg(long, value_name = "SCHEME")]
        scheme: String,
        /// add-remove | substitution (default: add-remove for poisson, substitution without replacement)
        #[arg(long, value_name = "RELATION")]
        relation: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Audit a deployment file (TOML or JSON): best certified (ε, δ), routes, claim verdict.
    Audit {
        /// The deployment file (`.toml`, or `.json`).
        file: std::path::PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Plot a deployment's privacy profile δ(ε) as SVG.
    Plot {
        file: std::path::PathBuf,
        /// Output SVG file.
        #[arg(short = 'o', long = "output", value_name = "SVG")]
        output: std::path::PathBuf,
    },
    /// Print certified test vectors for other implementations.
    Vectors {
        #[arg(long)]
        json: bool,
    },
    /// Check values printed by another library: each record is sound, unsound, undecided or
    /// invalid, with a reason and the certified bracket of the smallest valid value.
    ///
    /// A value is unsound when it is below the exact value or impossible (NaN, −∞, a negative
    /// ε or δ, σ ≤ 0); +∞ and any δ ≥ 1 are sound but vacuous. A record whose query or value is
    /// malformed is invalid; the other records are still judged. Bare NaN / Infinity tokens
    /// (as Python's json prints them) are accepted. Exit status: 0 when no record is unsound or
    /// invalid (undecided records alone give 0), 1 when any record is unsound or invalid, 2 when
    /// FILE cannot be read or is not a JSON list.
    Check {
        /// JSON list of {"query": [...], "value": "..."}.
        file: std::path::PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Clone)]
struct Common {
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// MPFR precision in bits (default: automatic, f64 intervals first).
    #[arg(long, value_name = "BITS")]
    precision: Option<String>,
}

#[derive(Args)]
struct GaussianShape {
    /// L2 sensitivity Δ (default 1).
    #[arg(
        long,
        value_name = "D",
        default_value = "1",
        allow_hyphen_values = true
    )]
    sensitivity: String,
    /// Number of compositions K (default 1).
    #[arg(
        long,
        value_name = "K",
        default_value = "1",
        allow_hyphen_values = true
    )]
    compositions: String,
}

#[derive(Subcommand)]
enum GaussianCmd {
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

#[derive(Subcommand)]
enum ZcdpCmd {
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

#[derive(Subcommand)]
enum RdpCmd {
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

#[derive(Subcommand)]
enum ComposeCmd {
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

type CliResult = Result<Output, Error>;

/// What a query prints.
struct Output {
    quantity: &'static str,
    query: &'static str,
    /// Two-sided enclosure of the asked quantity, or an upper bound on it.
    value: Certified,
    theorem: &'static str,
    sentence: String,
    extra: Vec<(&'static str, Value)>,
}

fn num(flag: &str, text: &str) -> Result<Rational, Error> {
    parse_exact(text).map_err(|e| Error::arg(flag, e))
}

fn count(flag: &str, text: &str) -> Result<Integer, Error> {
    parse_positive_integer(text).map_err(|e| Error::arg(flag, e))
}

/// Re-label a library argument name with the CLI flag that carries it.
fn flagged<T>(r: Result<T, Error>) -> Result<T, Error> {
    r.map_err(|e| match e {
        Error::InvalidArgument { name, reason } if !name.starts_with("--") => {
            Error::InvalidArgument {
                name: format!("--{name}"),
                reason,
            }
        }
        other => other,
    })
}

fn precision(c: &Common) -> Result<Precision, Error> {
    match &c.precision {
        None => Ok(Precision::Auto),
        Some(t) => {
            let b = t
                .trim()
                .parse::<u32>()
                .map_err(|_| Error::arg("--precision", format!("`{t}` is not a bit count")))?;
            validate::precision(b).map_err(|_| {
                Error::arg(
                    "--precision",
                    format!(
                        "{b} bits is outside {}..={} (the limit keeps every query within seconds)",
                        validate::MIN_PRECISION,
                        validate::MAX_PRECISION
                    ),
                )
            })?;
            Ok(Precision::Bits(b))
        }
    }
}

fn gaussian_pld(
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

fn run_gaussian(cmd: &GaussianCmd) -> CliResult {
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

/// A lower bound for printing, clamped to the domain: every quantity printed here (ε, δ, σ,
/// an RDP ε, a bound's formula value) is ≥ 0, so a certified lower end below 0 (interval
/// cancellation at tiny values) prints as 0, which is still a lower bound.
fn lower_dec(l: &Lower) -> String {
    if l.0 < 0 {
        "0".to_string()
    } else {
        l.to_decimal()
    }
}

/// Refuse an answer whose upper end overflowed to +∞ (an input far outside any sensible
/// range): a numerical failure with a clear message, never `inf` printed as a bound.
fn require_finite_upper(u: &Upper, what: &str) -> Result<(), Error> {
    if u.0.is_finite() {
        Ok(())
    } else {
        Err(Error::Numerical(format!(
            "the certified upper bound of {what} overflowed (beyond MPFR's exponent range); an input is too extreme for this route"
        )))
    }
}

fn formula(b: &UpperBound) -> Value {
    let enc = b.formula();
    json!({"lower": lower_dec(enc.lower()), "upper": enc.upper().to_decimal()})
}

fn run_zcdp(cmd: &ZcdpCmd) -> CliResult {
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

fn compose_classes(cmd: &ComposeCmd) -> Result<(Vec<optimal::Class>, Rational), Error> {
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

fn run_compose(cmd: &ComposeCmd) -> CliResult {
    let common = match cmd {
        ComposeCmd::Pure { common, .. } | ComposeCmd::Approx { common, .. } => common,
    };
    let p = precision(common)?;
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

/// Grid and truncation of the PLD accountant (automatic when absent).
#[derive(clap::Args, Debug, Clone, Default)]
struct PldArgs {
    /// PLD grid width h (losses i·h); default: chosen from the composed spread
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    grid: Option<String>,
    /// PLD tail mass one truncation may move; default: δ·10⁻⁶/(2·steps)
    #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
    tail: Option<String>,
}

fn pld_options(a: &PldArgs) -> Result<pld_accountant::PldOptions, Error> {
    use std::io::IsTerminal;
    Ok(pld_accountant::PldOptions {
        grid: a.grid.as_deref().map(|g| num("--grid", g)).transpose()?,
        tail: a.tail.as_deref().map(|t| num("--tail", t)).transpose()?,
        progress: std::io::stderr().is_terminal(),
        ..Default::default()
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

fn sgm_args(rate: &str, sigma: &str, steps: &str) -> Result<(Rational, Rational, Integer), Error> {
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

fn run_rdp(cmd: &RdpCmd) -> CliResult {
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

fn run_dpsgd(
    rate: &str,
    sigma: &str,
    steps: &str,
    delta: &str,
    method: &str,
    pld_args: &PldArgs,
    common: &Common,
) -> CliResult {
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

/// Evaluate a single query (the commands whose answer is one enclosure).
fn evaluate(cmd: &Cmd) -> CliResult {
    let out = flagged(evaluate_any(cmd))?;
    require_finite_upper(out.value.upper(), out.query)?;
    Ok(out)
}

fn evaluate_any(cmd: &Cmd) -> CliResult {
    match cmd {
        Cmd::Gaussian(g) => run_gaussian(g),
        Cmd::Zcdp(z) => run_zcdp(z),
        Cmd::Compose(c) => run_compose(c),
        Cmd::Rdp(r) => run_rdp(r),
        Cmd::Dpsgd {
            rate,
            sigma,
            steps,
            delta,
            method,
            pld,
            common,
        } => run_dpsgd(rate, sigma, steps, delta, method, pld, common),
        _ => Err(Error::arg("query", "not a single-value query")),
    }
}

/// Parse a query given as the argument list one would pass to `dpcert`.
fn parse_query(args: &[String]) -> Result<Cmd, Error> {
    let argv = std::iter::once("dpcert".to_string()).chain(args.iter().cloned());
    Cli::try_parse_from(argv).map(|c| c.cmd).map_err(|e| {
        let text = e.to_string();
        Error::arg(
            "query",
            text.lines()
                .next()
                .unwrap_or("invalid")
                .trim_start_matches("error: ")
                .to_string(),
        )
    })
}

fn run_tool(cmd: &Cmd) -> Result<i32, Error> {
    match cmd {
        Cmd::Audit { file, json } => {
            let d = crate::deploy::Deployment::load(file)?;
            let r = crate::audit::audit(&d)?;
            if *json {
                println!("{}", r.to_json());
            } else {
                print!("{}", r.to_table());
            }
            Ok(0)
        }
        Cmd::Plot { file, output } => {
            let d = crate::deploy::Deployment::load(file)?;
            let svg = {
                use std::io::IsTerminal;
                crate::plot::profile_svg_with(&d, std::io::stderr().is_terminal())?
            };
            std::fs::write(output, svg).map_err(|e| {
                Error::arg(
                    "--output",
                    format!("cannot write {}: {e}", output.display()),
                )
            })?;
            eprintln!("dpcert: wrote {}", output.display());
            Ok(0)
        }
        Cmd::Vectors { json } => {
            use std::io::IsTerminal;
            // about 10 s of work (more on a loaded machine): a progress line on a terminal
            let progress = std::io::stderr().is_terminal();
            let started = std::time::Instant::now();
            let queries = crate::reference::vectors::vector_queries();
            let mut recs = Vec::new();
            for (i, q) in queries.iter().enumerate() {
                if progress && started.elapsed().as_secs() >= 1 {
                    eprint!("\rdpcert vectors: {}/{} ", i + 1, queries.len());
                }
                let cmd = parse_query(q)?;
                let out = evaluate(&cmd)?;
                recs.push(json!({
                    "query": q,
                    "lower": out.value.lower().map(lower_dec),
                    "upper": out.value.upper().to_decimal(),
                    "theorem": out.theorem,
                }));
            }
            if progress && started.elapsed().as_secs() >= 1 {
                eprintln!();
            }
            if *json {
                println!("{}", json!({"vectors": recs}));
            } else {
                for r in &recs {
                    let q: Vec<&str> = r["query"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|x| x.as_str())
                        .collect();
                    println!(
                        "{}  lower={}  upper={}",
                        q.join(" "),
                        r["lower"].as_str().unwrap_or("-"),
                        r["upper"].as_str().unwrap_or("-")
                    );
                }
            }
            Ok(0)
        }
        Cmd::Check { file, json } => run_check(file, *json),
        Cmd::Subsample {
            epsilon,
            delta,
            rate,
            scheme,
            relation,
            common,
        } => run_subsample(epsilon, delta, rate, scheme, relation.as_deref(), common),
        _ => Err(Error::arg("query", "not a tool command")),
    }
}

fn run_subsample(
    epsilon: &str,
    delta: &str,
    rate: &str,
    scheme: &str,
    relation: Option<&str>,
    common: &Common,
) -> Result<i32, Error> {
    use crate::theorems::subsample;
    let e = num("--epsilon", epsilon)?;
    validate::nonnegative("--epsilon", &e)?;
    let d = num("--delta", delta)?;
    validate::unit_from_zero("--delta", &d)?;
    let q = num("--rate", rate)?;
    if q <= 0 || q > 1 {
        return Err(Error::arg(
            "--rate",
            format!("must lie in (0, 1], got {}", validate::show(&q)),
        ));
    }
    let p = precision(common)?;
    let relation = match (scheme, relation) {
        ("poisson", None) => "add-remove",
        ("without-replacement", None) => "substitution",
        (_, Some(r)) => r,
        (s, None) => s,
    };
    let certified =
        |a: subsample::Amplified| (Certified::TwoSided(a.epsilon), Certified::TwoSided(a.delta));
    let bound = |a: subsample::AmplifiedBound| {
        (
            Certified::UpperBound(a.epsilon),
            Certified::UpperBound(a.delta),
        )
    };
    let ((eps_out, delta_out), theorem) = match (scheme, relation) {
        ("poisson", "add-remove") => (
            certified(subsample::poisson_subsampling(&e, &d, &q, p)?),
            "Poisson subsampling, add/remove (Steinke 2022 §6; Balle–Barthe–Gaboardi 2018)",
        ),
        ("without-replacement", "substitution") => (
            certified(subsample::without_replacement_subsampling(&e, &d, &q, p)?),
            "sampling without replacement, substitution (Balle–Barthe–Gaboardi 2018, Theorem 9)",
        ),
        ("poisson", "substitution") => (
            bound(subsample::poisson_substitution_subsampling(&e, &d, &q, p)?),
            "Poisson subsampling analysed for substitution (derived; proofs-notes/poisson_substitution_subsampling.md)",
        ),
        ("without-replacement", "add-remove") => {
            return Err(Error::arg(
                "--relation",
                "no theorem for sampling without replacement under add/remove; use --relation substitution, or --scheme poisson for add/remove",
            ))
        }
        ("poisson" | "without-replacement", r) => {
            return Err(Error::arg("--relation", format!("`{r}` is not add-remove or substitution")))
        }
        (s, _) => return Err(Error::arg("--scheme", format!("`{s}` is not poisson or without-replacement"))),
    };
    require_finite_upper(eps_out.upper(), "the amplified ε")?;
    require_finite_upper(delta_out.upper(), "the amplified δ")?;
    let side = |c: &Certified| json!({"kind": c.kind(), "lower": c.lower().map(lower_dec), "upper": c.upper().to_decimal()});
    if common.json {
        println!(
            "{}",
            json!({
                "query": "subsample",
                "scheme": scheme,
                "relation": relation,
                "epsilon": side(&eps_out),
                "delta": side(&delta_out),
                "exact": eps_out.is_two_sided(),
                "theorem": theorem,
                "precision_bits": eps_out.formula().precision_bits(),
                "arithmetic": eps_out.formula().arithmetic().name(),
            })
        );
    } else {
        println!(
            "subsampled at rate {}: ({}, {})-DP [{theorem}]",
            validate::show(&q),
            eps_out.upper().to_decimal(),
            delta_out.upper().to_decimal()
        );
    }
    Ok(0)
}

/// Grid halvings `check` tries on a DP-SGD PLD query before calling it undecided (each about
/// doubles the time: 0.2 s … 1.6 s on the MNIST setting).
const PLD_CHECK_REFINEMENTS: usize = 4;

/// `check` halves the PLD grid only while the support is at most this many points.
const PLD_CHECK_MAX_SUPPORT: usize = 150_000;

/// Most records one `check` run judges (each may take a second or more: the work is linear).
const MAX_CHECK_RECORDS: usize = 10_000;

/// Precisions `check` climbs through when a value is not yet separated from the exact one.
const CHECK_PRECISIONS: [Precision; 4] = [
    Precision::Auto,
    Precision::Bits(256),
    Precision::Bits(1024),
    Precision::Bits(4096),
];

/// The quantity a single-value query asks for, and whether dpcert's answer to it is two-sided.
fn check_quantity(cmd: &Cmd) -> Option<(Quantity, Kind)> {
    Some(match cmd {
        Cmd::Gaussian(GaussianCmd::Delta { .. }) => (Quantity::Delta, Kind::TwoSided),
        Cmd::Gaussian(GaussianCmd::Epsilon { .. }) => (Quantity::Epsilon, Kind::TwoSided),
        Cmd::Gaussian(GaussianCmd::Sigma { .. }) => (Quantity::Sigma, Kind::TwoSided),
        Cmd::Zcdp(ZcdpCmd::Delta { .. }) => (Quantity::Delta, Kind::UpperBound),
        Cmd::Zcdp(ZcdpCmd::Epsilon { .. }) => (Quantity::Epsilon, Kind::UpperBound),
        Cmd::Compose(_) => (Quantity::Epsilon, Kind::TwoSided),
        Cmd::Rdp(_) => (Quantity::RdpEpsilon, Kind::TwoSided),
        // an upper bound (RDP) until a two-sided PLD bracket is met
        Cmd::Dpsgd { .. } => (Quantity::Epsilon, Kind::UpperBound),
        _ => return None,
    })
}

/// The reason given for a verdict read off the bracket.
fn bracket_reason(v: Verdict, b: &Bracket) -> String {
    let (l, u) = b.to_decimals();
    match v {
        Verdict::Sound => format!(
            "at or above the certified upper end {} of the smallest valid value",
            u.unwrap_or_default()
        ),
        _ => format!(
            "below the certified lower end {} of the smallest valid value",
            l.unwrap_or_default()
        ),
    }
}

/// Judge one claimed value for a parsed query. `Err` only for a malformed query (invalid) or a
/// numerical failure (undecided); the bracket is the intersection of every certified
/// evaluation made here, and the verdict is consistent with it.
fn judge(cmd: &Cmd, value: &Claimed) -> Result<(Verdict, String, Bracket), Error> {
    let (qty, kind) = check_quantity(cmd).ok_or_else(|| {
        Error::arg(
            "query",
            "not a single-value query (gaussian, zcdp, compose, rdp or dpsgd)",
        )
    })?;
    let mut b = Bracket::new(qty, kind);
    // dpcert's own answer to the query (this also validates every argument of the query)
    match cmd {
        Cmd::Dpsgd { common, .. } => {
            precision(common)?;
        }
        _ => match evaluate(cmd)?.value {
            Certified::TwoSided(e) => b.meet_enclosure(&e),
            Certified::UpperBound(u) => {
                b.set_kind(Kind::UpperBound);
                b.meet_upper(u.upper());
            }
        },
    }
    // the value: impossible → unsound, vacuous → sound, else judged against the exact one
    let v = match screen(qty, value) {
        Ok(v) => v,
        Err((verdict, why)) => {
            if let Cmd::Dpsgd { .. } = cmd {
                dpsgd_bracket(cmd, None, &mut b)?;
            }
            return Ok((verdict, why, b));
        }
    };
    if !matches!(cmd, Cmd::Dpsgd { .. }) {
        if let Some(verdict) = b.decide(&v) {
            let why = bracket_reason(verdict, &b);
            return Ok((verdict, why, b));
        }
    }
    let sound_at = |b: &mut Bracket, what: String| {
        b.meet_upper_exact(&v);
        Ok((Verdict::Sound, what, b.clone()))
    };
    let unsound_at = |b: &mut Bracket, what: String| {
        b.meet_lower_exact(&v);
        Ok((Verdict::Unsound, what, b.clone()))
    };
    match cmd {
        Cmd::Gaussian(GaussianCmd::Delta {
            sigma,
            epsilon,
            shape,
            ..
        }) => {
            let (pld, _, _) = gaussian_pld(sigma, shape)?;
            let e = num("--epsilon", epsilon)?;
            for p in &CHECK_PRECISIONS[1..] {
                b.meet_enclosure(&gaussian::gaussian_delta(&pld, &e, *p)?);
                if let Some(verdict) = b.decide(&v) {
                    let why = bracket_reason(verdict, &b);
                    return Ok((verdict, why, b));
                }
            }
        }
        Cmd::Gaussian(GaussianCmd::Epsilon {
            sigma,
            delta,
            shape,
            ..
        }) => {
            let (pld, _, _) = gaussian_pld(sigma, shape)?;
            let d = num("--delta", delta)?;
            for p in CHECK_PRECISIONS {
                let at = gaussian::gaussian_delta(&pld, &v, p)?;
                if at.upper().0 <= d {
                    return sound_at(
                        &mut b,
                        "δ(ε = value) ≤ δ, certified: (value, δ)-DP holds".into(),
                    );
                }
                if at.lower().0 > d {
                    return unsound_at(
                        &mut b,
                        "δ(ε = value) > δ, certified: (value, δ)-DP fails for this mechanism"
                            .into(),
                    );
                }
            }
        }
        Cmd::Gaussian(GaussianCmd::Sigma {
            epsilon,
            delta,
            shape,
            ..
        }) => {
            let e = num("--epsilon", epsilon)?;
            let d = num("--delta", delta)?;
            let sens = num("--sensitivity", &shape.sensitivity)?;
            let k = count("--compositions", &shape.compositions)?;
            let pld = gaussian::gaussian_composition(&[gaussian::GaussianMechanism {
                sigma: v.clone(),
                sensitivity: sens,
                count: k,
            }])?;
            for p in CHECK_PRECISIONS {
                let at = gaussian::gaussian_delta(&pld, &e, p)?;
                if at.upper().0 <= d {
                    return sound_at(
                        &mut b,
                        "with σ = value, δ(ε) ≤ δ, certified: (ε, δ)-DP holds".into(),
                    );
                }
                if at.lower().0 > d {
                    return unsound_at(
                        &mut b,
                        "with σ = value, δ(ε) > δ, certified: (ε, δ)-DP fails".into(),
                    );
                }
            }
        }
        Cmd::Zcdp(ZcdpCmd::Delta { rho, epsilon, .. }) => {
            let r = num("--rho", rho)?;
            let e = num("--epsilon", epsilon)?;
            // the Gaussian with this ρ is ρ-zCDP: a valid δ for the class is ≥ its exact δ
            let g = pld::GaussianPld { rho: r.clone() };
            for p in CHECK_PRECISIONS {
                b.meet_lower(gaussian::gaussian_delta(&g, &e, p)?.lower());
                if p != Precision::Auto {
                    b.meet_upper(zcdp::zcdp_delta(&r, &e, p)?.upper());
                }
                if let Some(verdict) = b.decide(&v) {
                    let why = match verdict {
                        Verdict::Unsound => format!(
                            "below the exact δ of the Gaussian mechanism with this ρ (≥ {}), which is ρ-zCDP",
                            b.to_decimals().0.unwrap_or_default()
                        ),
                        _ => bracket_reason(verdict, &b),
                    };
                    return Ok((verdict, why, b));
                }
            }
        }
        Cmd::Zcdp(ZcdpCmd::Epsilon { rho, delta, .. }) => {
            let r = num("--rho", rho)?;
            let d = num("--delta", delta)?;
            let g = pld::GaussianPld { rho: r.clone() };
            b.meet_lower(gaussian::gaussian_epsilon(&g, &d, Precision::Auto)?.lower());
            if let Some(verdict) = b.decide(&v) {
                let why = bracket_reason(verdict, &b);
                return Ok((verdict, why, b));
            }
            for p in CHECK_PRECISIONS {
                if zcdp::zcdp_delta(&r, &v, p)?.upper().0 <= d {
                    return sound_at(&mut b, "Proposition 14 gives δ(ε = value) ≤ δ for every ρ-zCDP mechanism, certified".into());
                }
                if gaussian::gaussian_delta(&g, &v, p)?.lower().0 > d {
                    return unsound_at(&mut b, "the Gaussian mechanism with this ρ (which is ρ-zCDP) has δ(ε = value) > δ, certified".into());
                }
            }
        }
        Cmd::Compose(c) => {
            let (classes, d) = compose_classes(c)?;
            for p in CHECK_PRECISIONS {
                // exact optimum when computable: sound iff δ_opt(value) ≤ δ
                match optimal::optimal_composition_delta(&classes, &v, p) {
                    Ok(at) if at.upper().0 <= d => {
                        return sound_at(&mut b, "the optimal composition has δ(ε = value) ≤ δ, certified".into())
                    }
                    Ok(at) if at.lower().0 > d => {
                        return unsound_at(&mut b, "the optimal composition has δ(ε = value) > δ, certified (k-fold randomized response attains it)".into())
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
        Cmd::Rdp(RdpCmd::SubsampledGaussian {
            rate,
            sigma,
            steps,
            order,
            ..
        }) => {
            let (q, s, t) = sgm_args(rate, sigma, steps)?;
            let a = num("--order", order)?;
            for p in &CHECK_PRECISIONS[1..] {
                b.meet_enclosure(&rdp::subsampled_gaussian_rdp(&q, &s, &t, &a, *p)?);
                if let Some(verdict) = b.decide(&v) {
                    let why = bracket_reason(verdict, &b);
                    return Ok((verdict, why, b));
                }
            }
        }
        Cmd::Dpsgd { .. } => {
            if let (Some(verdict), cited) = dpsgd_bracket(cmd, Some(&v), &mut b)? {
                let mut why = bracket_reason(verdict, &b);
                if let Some(c) = cited {
                    why += &format!(" (by the RDP bound, which rests on a cited result: {c})");
                }
                return Ok((verdict, why, b));
            }
        }
        _ => {}
    }
    Ok((
        Verdict::Undecided,
        "not separated from the exact value by the certified evaluations tried".into(),
        b,
    ))
}

/// DP-SGD: the RDP bound (an upper end) and the two-sided PLD bracket, halving the PLD grid
/// until `value` is decided (or `PLD_CHECK_REFINEMENTS` runs). With `value = None`, one pass.
fn dpsgd_bracket(
    cmd: &Cmd,
    value: Option<&Rational>,
    b: &mut Bracket,
) -> Result<(Option<Verdict>, Option<&'static str>), Error> {
    let Cmd::Dpsgd {
        rate,
        sigma,
        steps,
        delta,
        method,
        pld: pld_args,
        ..
    } = cmd
    else {
        return Ok((None, None));
    };
    let (q, s, t) = flagged(sgm_args(rate, sigma, steps))?;
    let d = num("--delta", delta)?;
    validate::open_unit("--delta", &d)?;
    if !["rdp", "pld", "best"].contains(&method.as_str()) {
        return Err(Error::arg(
            "--method",
            format!("`{method}` is not rdp, pld or best"),
        ));
    }
    let mut opts = pld_options(pld_args)?;
    opts.progress = false;
    let decided = |b: &Bracket| value.and_then(|v| b.decide(v));
    // the PLD accountant first: two-sided, both neighbour directions, no cited result
    let rounds = if value.is_some() {
        PLD_CHECK_REFINEMENTS
    } else {
        1
    };
    for i in 0..rounds {
        let r = match pld_accountant::dpsgd_pld_epsilon(&q, &s, &t, &d, &opts) {
            Ok(r) => r,
            // the query asked for the PLD route (or chose its grid): its errors are the answer
            Err(e) if i == 0 && (method == "pld" || opts.grid.is_some() || opts.tail.is_some()) => {
                return Err(flagged::<()>(Err(e)).unwrap_err())
            }
            Err(_) => break,
        };
        b.meet_enclosure(&r.enclosure);
        b.set_kind(Kind::TwoSided);
        if let Some(verdict) = decided(b) {
            return Ok((Some(verdict), None));
        }
        // halving the grid doubles the support: stop before a refinement costs more than
        // seconds (10¹² steps: 9 s and 1 GB for the first run; three halvings took 74 s, 2.5 GB)
        if r.support > PLD_CHECK_MAX_SUPPORT {
            break;
        }
        opts.grid = Some(Rational::from(&r.grid / 2u32));
    }
    // then the RDP bound, which rests on a cited domination result (the reason says so)
    if method != "pld" {
        if let Ok((bound, _)) = rdp::dpsgd_rdp_epsilon(&q, &s, &t, &d, Precision::Auto) {
            b.meet_upper(bound.upper());
            if let Some(verdict) = decided(b) {
                return Ok((Some(verdict), bound.rests_on()));
            }
        }
    }
    Ok((None, None))
}

/// One `check` record's JSON result.
fn check_record(i: usize, rec: &Value) -> (Verdict, Value) {
    let query_json = rec.get("query").cloned().unwrap_or(Value::Null);
    let value_json = match rec.get("value") {
        Some(Value::Number(n)) => json!(n.to_string()),
        Some(v) => v.clone(),
        None => Value::Null,
    };
    let result = |verdict: Verdict, why: String, b: Option<&Bracket>| {
        let (kind, lower, upper) = match b {
            Some(b) => {
                let (l, u) = b.to_decimals();
                (json!(b.kind().name()), json!(l), json!(u))
            }
            None => (Value::Null, Value::Null, Value::Null),
        };
        (
            verdict,
            json!({
                "record": i + 1,
                "query": query_json,
                "value": value_json,
                "verdict": verdict.name(),
                "reason": why,
                "kind": kind,
                "lower": lower,
                "upper": upper,
            }),
        )
    };
    if !rec.is_object() {
        return result(
            Verdict::Invalid,
            "a record must be an object {\"query\": [...], \"value\": ...}".into(),
            None,
        );
    }
    let query: Option<Vec<String>> = rec["query"]
        .as_array()
        .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect());
    let Some(query) = query else {
        return result(
            Verdict::Invalid,
            "`query` must be a list of strings (the arguments one would pass to dpcert)".into(),
            None,
        );
    };
    let value = match Claimed::from_json(&rec["value"]) {
        Ok(v) => v,
        Err(e) => return result(Verdict::Invalid, e, None),
    };
    let cmd = match parse_query(&query) {
        Ok(c) => c,
        Err(e) => return result(Verdict::Invalid, e.to_string(), None),
    };
    match judge(&cmd, &value) {
        Ok((verdict, why, b)) => {
            if let Claimed::Finite(v) = &value {
                debug_assert!(b.agrees(verdict, v), "verdict contradicts the bracket");
            }
            result(verdict, why, Some(&b))
        }
        Err(e @ Error::InvalidArgument { .. }) => result(Verdict::Invalid, e.to_string(), None),
        Err(e) => result(Verdict::Undecided, e.to_string(), None),
    }
}

fn run_check(file: &std::path::Path, json_mode: bool) -> Result<i32, Error> {
    use std::io::IsTerminal;
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::arg("FILE", format!("cannot read {}: {e}", file.display())))?;
    // other libraries print NaN / Infinity as bare tokens: quote them so they are judged
    let text = quote_nonfinite_tokens(&text);
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        Error::arg(
            "FILE",
            format!(
                "{}: JSON syntax error at line {}, column {}: {e}",
                file.display(),
                e.line(),
                e.column()
            ),
        )
    })?;
    let list = v.as_array().ok_or_else(|| {
        Error::arg(
            "FILE",
            format!(
                "{}: must hold a JSON list of {{\"query\": [...], \"value\": \"...\"}}",
                file.display()
            ),
        )
    })?;
    if list.len() > MAX_CHECK_RECORDS {
        return Err(Error::arg(
            "FILE",
            format!(
                "{}: {} records; at most {MAX_CHECK_RECORDS} are judged in one run (split the file)",
                file.display(),
                list.len()
            ),
        ));
    }
    let progress = std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let mut results = Vec::new();
    let mut counts = [0usize; 4];
    for (i, rec) in list.iter().enumerate() {
        if progress && started.elapsed().as_secs() >= 2 {
            eprint!("\rdpcert check: record {}/{} ", i + 1, list.len());
        }
        let (verdict, r) = check_record(i, rec);
        counts[verdict as usize] += 1;
        results.push(r);
    }
    if progress && started.elapsed().as_secs() >= 2 {
        eprintln!();
    }
    let [sound, unsound, undecided, invalid] = counts;
    if json_mode {
        println!(
            "{}",
            json!({
                "results": results,
                "summary": {"records": results.len(), "sound": sound, "unsound": unsound, "undecided": undecided, "invalid": invalid},
            })
        );
    } else {
        for r in &results {
            let q = match r["query"].as_array() {
                Some(a) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| x.to_string())
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                None => r["query"].to_string(),
            };
            let value = r["value"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| r["value"].to_string());
            let bracket = match (r["lower"].as_str(), r["upper"].as_str()) {
                (None, None) => String::new(),
                (l, u) => format!(
                    "  smallest valid value ∈ [{}, {}] ({})",
                    l.unwrap_or("?"),
                    u.unwrap_or("?"),
                    r["kind"].as_str().unwrap_or("")
                ),
            };
            println!(
                "{:<9}  #{}  {q}  value={value}{bracket}  — {}",
                r["verdict"].as_str().unwrap_or(""),
                r["record"],
                r["reason"].as_str().unwrap_or("")
            );
        }
        println!(
            "{} records: {sound} sound, {unsound} unsound, {undecided} undecided, {invalid} invalid",
            results.len()
        );
    }
    Ok(if unsound + invalid > 0 { 1 } else { 0 })
}

fn print(out: &Output, json_mode: bool) {
    let v = &out.value;
    if json_mode {
        let mut obj = serde_json::Map::new();
        obj.insert("query".into(), json!(out.query));
        obj.insert("quantity".into(), json!(out.quantity));
        obj.insert("kind".into(), json!(v.kind()));
        obj.insert("lower".into(), json!(v.lower().map(lower_dec)));
        obj.insert("upper".into(), json!(v.upper().to_decimal()));
        obj.insert("exact".into(), json!(v.is_two_sided()));
        obj.insert("theorem".into(), json!(out.theorem));
        obj.insert("precision_bits".into(), json!(v.formula().precision_bits()));
        obj.insert("arithmetic".into(), json!(v.formula().arithmetic().name()));
        obj.insert("upper_f64".into(), json!(v.upper().to_f64()));
        if let Certified::UpperBound(b) = v {
            obj.insert("formula_value".into(), formula(b));
        }
        for (k, val) in &out.extra {
            obj.insert((*k).into(), val.clone());
        }
        println!("{}", Value::Object(obj));
    } else {
        println!(
            "{} [{}; {} bits, {}]",
            out.sentence,
            out.theorem,
            v.formula().precision_bits(),
            v.formula().arithmetic().name()
        );
    }
}

fn json_flag(cmd: &Cmd) -> bool {
    match cmd {
        Cmd::Audit { json, .. } | Cmd::Vectors { json } | Cmd::Check { json, .. } => *json,
        Cmd::Subsample { common, .. } => common.json,
        Cmd::Plot { .. } => false,
        Cmd::Gaussian(GaussianCmd::Delta { common, .. })
        | Cmd::Gaussian(GaussianCmd::Epsilon { common, .. })
        | Cmd::Gaussian(GaussianCmd::Sigma { common, .. })
        | Cmd::Zcdp(ZcdpCmd::Delta { common, .. })
        | Cmd::Zcdp(ZcdpCmd::Epsilon { common, .. })
        | Cmd::Compose(ComposeCmd::Pure { common, .. })
        | Cmd::Compose(ComposeCmd::Approx { common, .. })
        | Cmd::Rdp(RdpCmd::SubsampledGaussian { common, .. })
        | Cmd::Dpsgd { common, .. } => common.json,
    }
}

pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind::*;
            if matches!(
                e.kind(),
                DisplayHelp | DisplayVersion | DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return if e.kind() == DisplayHelpOnMissingArgumentOrSubcommand {
                    2
                } else {
                    0
                };
            }
            // one line: clap's message up to its usage block
            let text = e.to_string();
            let msg: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
                .collect();
            eprintln!("dpcert: {}", msg.join(" ").trim_start_matches("error: "));
            return 2;
        }
    };
    match &cli.cmd {
        Cmd::Audit { .. }
        | Cmd::Plot { .. }
        | Cmd::Vectors { .. }
        | Cmd::Check { .. }
        | Cmd::Subsample { .. } => {
            return match run_tool(&cli.cmd) {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("dpcert: {e}");
                    if matches!(e, Error::InvalidArgument { .. }) {
                        2
                    } else {
                        3
                    }
                }
            }
        }
        _ => {}
    }
    let result = evaluate(&cli.cmd);
    match result {
        Ok(out) => {
            print(&out, json_flag(&cli.cmd));
            0
        }
        Err(e @ Error::InvalidArgument { .. }) => {
            eprintln!("dpcert: {e}");
            2
        }
        Err(e) => {
            eprintln!("dpcert: {e}");
            3
        }
    }
}
