//! The `dpcert` command line: parse, dispatch, print. One file per command group; each adds a
//! variant to [`Cmd`] and a hook in [`run`]. Every single-value query prints a short sentence,
//! or with `--json` one object with top-level `"lower"` / `"upper"` (decimal strings, outward
//! rounded; `"lower"` is `null` where no lower bound of the asked quantity is claimed),
//! `"theorem"`, `"precision_bits"` and `"arithmetic"`.
mod audit;
mod check;
mod compose;
mod dpsgd;
mod gaussian;
mod plot;
mod rdp;
mod subsample;
mod vectors;
mod zcdp;

use crate::num::{parse_exact, parse_positive_integer, Certified, Precision, UpperBound};
use crate::num::{Lower, Upper};
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
    Gaussian(gaussian::GaussianCmd),
    /// Zero-concentrated DP conversions (Proposition 14, Remark 15).
    #[command(subcommand)]
    Zcdp(zcdp::ZcdpCmd),
    /// Composition of DP mechanisms.
    #[command(subcommand)]
    Compose(compose::ComposeCmd),
    /// Rényi DP curves.
    #[command(subcommand)]
    Rdp(rdp::RdpCmd),
    /// DP-SGD accounting: ε at δ for Poisson-subsampled Gaussian steps.
    Dpsgd(dpsgd::DpsgdArgs),
    /// Amplification by subsampling of an (ε, δ)-DP mechanism.
    Subsample(subsample::SubsampleArgs),
    /// Audit a deployment file (TOML or JSON): best certified (ε, δ), routes, claim verdict.
    Audit(audit::AuditArgs),
    /// Plot a deployment's privacy profile δ(ε) as SVG.
    Plot(plot::PlotArgs),
    /// Print certified test vectors for other implementations.
    Vectors(vectors::VectorsArgs),
    /// Check values printed by another library: each record is sound, unsound, undecided or
    /// invalid, with a reason and the certified bracket of the smallest valid value.
    ///
    /// A value is unsound when it is below the exact value or impossible (NaN, −∞, a negative
    /// ε or δ, σ ≤ 0); +∞ and any δ ≥ 1 are sound but vacuous. A record whose query or value is
    /// malformed is invalid; the other records are still judged. Bare NaN / Infinity tokens
    /// (as Python's json prints them) are accepted. Exit status: 0 when no record is unsound or
    /// invalid (undecided records alone give 0), 1 when any record is unsound or invalid, 2 when
    /// FILE cannot be read or is not a JSON list.
    Check(check::CheckArgs),
}

#[derive(Args, Clone)]
pub(super) struct Common {
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// MPFR precision in bits (default: automatic, f64 intervals first).
    #[arg(long, value_name = "BITS")]
    precision: Option<String>,
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

/// Evaluate a single query (the commands whose answer is one enclosure).
fn evaluate(cmd: &Cmd) -> CliResult {
    let out = flagged(evaluate_any(cmd))?;
    require_finite_upper(out.value.upper(), out.query)?;
    Ok(out)
}

fn evaluate_any(cmd: &Cmd) -> CliResult {
    match cmd {
        Cmd::Gaussian(g) => gaussian::run_gaussian(g),
        Cmd::Zcdp(z) => zcdp::run_zcdp(z),
        Cmd::Compose(c) => compose::run_compose(c),
        Cmd::Rdp(r) => rdp::run_rdp(r),
        Cmd::Dpsgd(a) => dpsgd::run_dpsgd(a),
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
        Cmd::Audit(a) => audit::run_audit(a),
        Cmd::Plot(a) => plot::run_plot(a),
        Cmd::Vectors(a) => vectors::run_vectors(a),
        Cmd::Check(a) => check::run_check(a),
        Cmd::Subsample(a) => subsample::run_subsample(a),
        _ => Err(Error::arg("query", "not a tool command")),
    }
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
        Cmd::Audit(a) => a.json,
        Cmd::Vectors(a) => a.json,
        Cmd::Check(a) => a.json,
        Cmd::Plot(_) => false,
        Cmd::Subsample(a) => a.common.json,
        Cmd::Dpsgd(a) => a.common.json,
        Cmd::Gaussian(g) => g.common().json,
        Cmd::Zcdp(z) => z.common().json,
        Cmd::Compose(c) => c.common().json,
        Cmd::Rdp(r) => r.common().json,
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
        Cmd::Audit(_) | Cmd::Plot(_) | Cmd::Vectors(_) | Cmd::Check(_) | Cmd::Subsample(_) => {
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
