//! Single-query CLI. Every query prints a short sentence, or with `--json` one object with
//! top-level `"lower"` / `"upper"` (decimal strings, outward rounded; `"lower"` is `null`
//! where no lower bound of the asked quantity is claimed), `"theorem"`, `"precision_bits"`
//! and `"arithmetic"`.
use clap::{Args, Parser, Subcommand};
use dpcert::num::{
    parse_exact, parse_positive_integer, Enclosure, Iv, Precision, Real, DEFAULT_PREC,
};
use dpcert::theorems::{basic, gaussian, pld, zcdp};
use dpcert::{validate, Error};
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
}

type CliResult = Result<Output, Error>;

/// What a query prints.
struct Output {
    quantity: &'static str,
    query: &'static str,
    enclosure: Enclosure,
    /// Whether `lower` is a lower bound of the asked quantity.
    two_sided: bool,
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
        Some(t) => match t.trim().parse::<u32>() {
            Ok(b) if (24..=1 << 20).contains(&b) => Ok(Precision::Bits(b)),
            _ => Err(Error::arg(
                "--precision",
                format!("`{t}` is not a bit count in 24..=1048576"),
            )),
        },
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
                enc.lower.to_decimal(),
                enc.upper.to_decimal(),
                pld.rho
            );
            Ok(Output {
                quantity: "delta",
                query: "gaussian delta",
                enclosure: enc,
                two_sided: true,
                theorem: "Steinke 2022 Corollary 8 / Corollary 10 (Theorem 9 for compositions)",
                sentence,
                extra: vec![("rho", json!(pld.rho.to_string()))],
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
                enc.lower.to_decimal(),
                enc.upper.to_decimal()
            );
            Ok(Output {
                quantity: "epsilon",
                query: "gaussian epsilon",
                enclosure: enc,
                two_sided: true,
                theorem: "Steinke 2022 Corollary 8 / Corollary 10, inverted by certified bisection",
                sentence,
                extra: vec![("rho", json!(pld.rho.to_string()))],
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
                enc.upper.to_decimal(),
                enc.lower.to_decimal()
            );
            Ok(Output {
                quantity: "sigma",
                query: "gaussian sigma",
                enclosure: enc,
                two_sided: true,
                theorem:
                    "Steinke 2022 Corollary 8 / Corollary 10, inverted in σ by certified bisection",
                sentence,
                extra: vec![],
            })
        }
    }
}

fn formula(enc: &Enclosure) -> Value {
    json!({"lower": enc.lower.to_decimal(), "upper": enc.upper.to_decimal()})
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
                Some(c) if c.upper.0 < opt.upper.0 => (
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
                    best.upper.to_decimal()
                ),
                enclosure: best,
                two_sided: false,
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
            let (best, theorem) = if closed.upper.0 < opt.upper.0 {
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
                    best.upper.to_decimal()
                ),
                enclosure: best,
                two_sided: false,
                theorem,
                extra: vec![
                    ("optimised", formula(&opt)),
                    ("closed_form", formula(&closed)),
                ],
            })
        }
    }
}

fn run_compose(cmd: &ComposeCmd) -> CliResult {
    match cmd {
        ComposeCmd::Pure {
            epsilon,
            count: k,
            delta,
            common,
        } => {
            let e0 = num("--epsilon", epsilon)?;
            validate::nonnegative("--epsilon", &e0)?;
            let k = count("--count", k)?;
            let d = num("--delta", delta)?;
            validate::open_unit("--delta", &d)?;
            let p = precision(common)?;
            let kr = Rational::from(&k);
            let (basic_e, _) =
                basic::basic_composition(&[(Rational::from(&e0 * &kr), Rational::new())])?;
            let basic_enc = Enclosure::from_real(&Iv::from_rational(&basic_e, DEFAULT_PREC))?;
            let thm18 = zcdp::advanced_composition(&[(e0.clone(), k.clone())], &d, p)?;
            let rho = zcdp::pure_to_zcdp(&e0)? * &kr;
            let via_zcdp = if rho > 0 {
                Some(zcdp::zcdp_epsilon(&rho, &d, p)?)
            } else {
                None
            };
            let mut routes = vec![
                ("basic composition", "Steinke 2022 Theorem 1", basic_enc),
                ("advanced composition", "Steinke 2022 Theorem 18", thm18),
            ];
            if let Some(z) = via_zcdp {
                routes.push((
                    "zCDP",
                    "Steinke 2022 Proposition 16, Theorem 13, Proposition 14 (optimised)",
                    z,
                ));
            }
            let best = routes
                .iter()
                .min_by(|a, b| a.2.upper.0.partial_cmp(&b.2.upper.0).expect("finite"))
                .expect("routes")
                .clone();
            let routes_json: Vec<Value> = routes
                .iter()
                .map(|(n, t, e)| json!({"route": n, "theorem": t, "upper": e.upper.to_decimal()}))
                .collect();
            Ok(Output {
                quantity: "epsilon",
                query: "compose pure",
                sentence: format!(
                    "{k} mechanisms, each {epsilon}-DP, are (ε, δ={delta})-DP for ε = {} (best route: {})",
                    best.2.upper.to_decimal(),
                    best.0
                ),
                enclosure: best.2.clone(),
                two_sided: false,
                theorem: best.1,
                extra: vec![("route", json!(best.0)), ("routes", Value::Array(routes_json))],
            })
        }
    }
}

fn print(out: &Output, json_mode: bool) {
    if json_mode {
        let mut obj = serde_json::Map::new();
        obj.insert("query".into(), json!(out.query));
        obj.insert("quantity".into(), json!(out.quantity));
        obj.insert(
            "lower".into(),
            if out.two_sided {
                json!(out.enclosure.lower.to_decimal())
            } else {
                Value::Null
            },
        );
        obj.insert("upper".into(), json!(out.enclosure.upper.to_decimal()));
        obj.insert("exact".into(), json!(out.two_sided));
        obj.insert("theorem".into(), json!(out.theorem));
        obj.insert(
            "precision_bits".into(),
            json!(out.enclosure.precision_bits()),
        );
        obj.insert("arithmetic".into(), json!(out.enclosure.arithmetic.name()));
        obj.insert("upper_f64".into(), json!(out.enclosure.upper.to_f64()));
        if !out.two_sided {
            obj.insert("formula_value".into(), formula(&out.enclosure));
        }
        for (k, v) in &out.extra {
            obj.insert((*k).into(), v.clone());
        }
        println!("{}", Value::Object(obj));
    } else {
        println!(
            "{} [{}; {} bits, {}]",
            out.sentence,
            out.theorem,
            out.enclosure.precision_bits(),
            out.enclosure.arithmetic.name()
        );
    }
}

fn json_flag(cmd: &Cmd) -> bool {
    match cmd {
        Cmd::Gaussian(GaussianCmd::Delta { common, .. })
        | Cmd::Gaussian(GaussianCmd::Epsilon { common, .. })
        | Cmd::Gaussian(GaussianCmd::Sigma { common, .. })
        | Cmd::Zcdp(ZcdpCmd::Delta { common, .. })
        | Cmd::Zcdp(ZcdpCmd::Epsilon { common, .. })
        | Cmd::Compose(ComposeCmd::Pure { common, .. }) => common.json,
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
    let result = flagged(match &cli.cmd {
        Cmd::Gaussian(g) => run_gaussian(g),
        Cmd::Zcdp(z) => run_zcdp(z),
        Cmd::Compose(c) => run_compose(c),
    });
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
