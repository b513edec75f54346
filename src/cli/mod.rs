//! The `dpcert` command line: parse, call the library, print. One file per command group; each
//! adds a variant to `Cmd` and a hook in [`run`]. A single-value query maps its flags to a
//! [`Query`] (`QueryCmd`), evaluates it and prints one sentence (8 significant digits by
//! default, outward rounded) or, with `--json`, one `dpcert/1` envelope ([`crate::json`]).
//! Exit codes follow [`crate::exit`]. Every byte goes through `out` (no `println!`: a closed
//! pipe or a full disk is an exit code, never a panic).
#![deny(clippy::print_stdout, clippy::print_stderr)]
mod audit;
mod batch;
mod calibrate;
mod check;
mod compose;
mod dpsgd;
mod gaussian;
mod gdp;
pub(crate) mod out;
mod plot;
mod rdp;
mod request;
mod subsample;
mod tradeoff;
mod vectors;
mod zcdp;

use crate::num::{parse_exact, parse_positive_integer, Certified, Lower, Precision, Upper};
use crate::reference::judge::QueryForm;
use crate::reference::query::{Answer, Query};
use crate::{exit, json as contract, validate, Error};
use clap::{Args, Parser, Subcommand};
use rug::{Integer, Rational};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Parser)]
#[command(
    name = "dpcert",
    version,
    about = "Certified differential-privacy accounting (Steinke 2022).",
    long_about = "Certified differential-privacy accounting (Steinke 2022). Every number printed is a \
rigorous bound: upper ends rounded up, lower ends down. Inputs are exact decimals or fractions \
(0.1 is exactly 1/10; 256/60000 is allowed).",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// The commands; the single-value queries, `subsample` and `calibrate` are also read from a request's JSON
/// (`request`: `{"command": "gaussian", "subcommand": "delta", "sigma": "1", ...}`).
#[derive(Subcommand, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
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
    Dpsgd(Box<dpsgd::DpsgdArgs>),
    /// Amplification by subsampling of an (ε, δ)-DP mechanism.
    Subsample(subsample::SubsampleArgs),
    /// Certified calibration: the σ (steps, rate) meeting an ε target.
    #[command(subcommand)]
    Calibrate(calibrate::CalibrateCmd),
    /// Audit a deployment file (TOML or JSON): best certified (ε, δ), routes, claim verdict.
    #[serde(skip_deserializing)]
    Audit(audit::AuditArgs),
    /// Plot a deployment's privacy profile δ(ε) as SVG: the audit's best route (upper and lower
    /// bounds), the other routes faint, the budget and the claim.
    #[serde(skip_deserializing)]
    Plot(plot::PlotArgs),
    /// Print certified test vectors for other implementations.
    #[serde(skip_deserializing)]
    Vectors(vectors::VectorsArgs),
    /// Check values printed by another library: each record is sound, unsound, undecided or
    /// invalid, with a reason and the certified bracket of the smallest valid value.
    ///
    /// A value is unsound when it is below the exact value or impossible (NaN, −∞, a negative
    /// ε or δ, σ ≤ 0); +∞ and any δ ≥ 1 are sound but vacuous. A record whose query or value is
    /// malformed is invalid; the other records are still judged. Bare NaN / Infinity tokens
    /// (as Python's json prints them) are accepted. Exit status: 1 when any record is unsound
    /// or invalid, else 4 when any is undecided, else 0; 2 when FILE cannot be read, is not
    /// a JSON list, or holds only invalid records.
    #[serde(skip_deserializing)]
    Check(check::CheckArgs),
    /// f-DP: the best membership-inference attack's TPR at a given FPR, certified.
    #[command(subcommand)]
    Tradeoff(tradeoff::TradeoffCmd),
    /// Gaussian differential privacy: the μ of μ-GDP, certified.
    #[command(subcommand)]
    Gdp(gdp::GdpCmd),
}

#[derive(Args, Clone, Debug, Deserialize)]
pub(super) struct Common {
    /// Print one JSON object (the dpcert/1 envelope; full digits).
    #[arg(long)]
    #[serde(skip_deserializing, default = "request::yes")]
    json: bool,
    /// MPFR working precision in bits, 16..=8192 (default: automatic, f64 intervals first,
    /// raised when needed).
    #[arg(long, value_name = "BITS")]
    precision: Option<String>,
    /// Significant digits printed (human output; default 8, outward rounded: lower ends down,
    /// upper ends up). JSON always has full digits.
    #[arg(long, value_name = "N", default_value = request::DIGITS)]
    #[serde(skip_deserializing, default = "request::digits")]
    digits: String,
}

/// The exit-code table, shown under every `--help`.
const EXIT_CODES: &str = "Exit codes: 0 = verified / answered; 1 = a claim refuted or a checked value unsound; \
2 = bad input; 3 = numerical failure; 4 = undecided (the certified bracket contains the claimed value); \
5 = the output could not be written (e.g. a full disk); 141 = the reader closed the pipe (as `| head`), quietly.";

/// A single-value query command: its flags as given, and the [`Query`] they ask.
trait QueryCmd {
    /// The command words, e.g. `"gaussian delta"`.
    fn command(&self) -> &'static str;
    fn common(&self) -> &Common;
    /// The parameters as data: every flag, as the exact string given (`null` if absent).
    fn input(&self) -> Value;
    /// Parse the flags (values are validated by the library).
    fn to_query(&self) -> Result<Query, Error>;
    /// The asked quantity in words, e.g. `δ at ε = 0.5 (σ = 1, Δ = 1, K = 1)`.
    fn asked(&self) -> String;
    /// A note on how the answer was computed, for the human sentence (may be empty).
    fn note(&self, _a: &Answer) -> String {
        String::new()
    }
    /// Facts worked out from the flags (e.g. q and T from batch size and epochs), added to
    /// the result's `details`.
    fn details(&self) -> Vec<(&'static str, Value)> {
        Vec::new()
    }
    /// A promise the flags asked for and whether the answer kept it (e.g. `--tight`'s width):
    /// the `details` entry, and a warning line for the human output when it was not kept.
    fn promise(&self, _a: &Answer) -> Option<(&'static str, Value, Option<String>)> {
        None
    }
}

impl Cmd {
    fn query_cmd(&self) -> Option<&dyn QueryCmd> {
        Some(match self {
            Cmd::Gaussian(g) => g,
            Cmd::Zcdp(z) => z,
            Cmd::Compose(c) => c,
            Cmd::Rdp(r) => r,
            Cmd::Dpsgd(d) => &**d,
            Cmd::Tradeoff(t) => t,
            Cmd::Gdp(g) => g,
            _ => return None,
        })
    }
}

fn num(flag: &str, text: &str) -> Result<Rational, Error> {
    parse_exact(text).map_err(|e| Error::arg(flag, e))
}

fn count(flag: &str, text: &str) -> Result<Integer, Error> {
    parse_positive_integer(text).map_err(|e| Error::arg(flag, e))
}

/// [`flagged`] for one error.
fn flagged_err(e: Error) -> Error {
    match flagged::<()>(Err(e)) {
        Err(e) => e,
        Ok(()) => unreachable!(),
    }
}

/// Re-label a library argument name with the CLI flag that carries it.
fn flagged<T>(r: Result<T, Error>) -> Result<T, Error> {
    r.map_err(|e| match e {
        Error::InvalidArgument { name, reason } if !name.starts_with("--") && name != "FILE" => {
            Error::InvalidArgument {
                name: format!("--{name}"),
                reason,
            }
        }
        other => other,
    })
}

fn precision(c: &Common) -> Result<Precision, Error> {
    let Some(t) = &c.precision else {
        return Ok(Precision::Auto);
    };
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

/// Most significant digits `--digits` accepts (the JSON output has all of them).
const MAX_DIGITS: usize = 100;

fn digits(c: &Common) -> Result<usize, Error> {
    digits_arg(&c.digits)
}

/// `--digits N`: 2..=MAX_DIGITS significant digits.
fn digits_arg(text: &str) -> Result<usize, Error> {
    match text.trim().parse::<usize>() {
        Ok(n) if (2..=MAX_DIGITS).contains(&n) => Ok(n),
        _ => Err(Error::arg(
            "--digits",
            format!("`{text}` is not a digit count in 2..={MAX_DIGITS}"),
        )),
    }
}

/// A lower end with `n` significant digits, rounded down (clamped at 0).
fn lower_digits(l: &Lower, n: usize) -> String {
    if *l.as_float() <= 0 {
        "0".into()
    } else {
        validate::plain_decimal(l.to_decimal_digits(n))
    }
}

/// An upper end with `n` significant digits, rounded up.
fn upper_digits(u: &Upper, n: usize) -> String {
    validate::plain_decimal(u.to_decimal_digits(n))
}

/// The human sentence of a certified value: "lies in [l, u]" or "is at most u".
fn bracket_words(v: &Certified, n: usize) -> String {
    match v.lower() {
        Some(l) => format!(
            "lies in [{}, {}]",
            lower_digits(l, n),
            upper_digits(v.upper(), n)
        ),
        None => format!("is at most {}", upper_digits(v.upper(), n)),
    }
}

/// The `result` object of a single-value query: `quantity`, `value`, `formula_value`,
/// `theorem`, `precision_bits`, `arithmetic`, `details`.
fn answer_json(query: &Query, a: &Answer) -> Value {
    let v = &a.value;
    let details: serde_json::Map<String, Value> = a
        .details
        .iter()
        .map(|(k, val)| ((*k).to_string(), val.clone()))
        .collect();
    json!({
        "quantity": query.quantity().0.key(),
        "value": contract::quantity(v),
        "formula_value": match v {
            Certified::UpperBound(b) => contract::enclosure(b.formula()),
            Certified::TwoSided(_) => Value::Null,
        },
        "theorem": a.theorem,
        "precision_bits": v.formula().precision_bits(),
        "arithmetic": v.formula().arithmetic().name(),
        "details": details,
    })
}

/// Parse a query given as the argument list one would pass to `dpcert`.
fn parse_cmd(args: &[String]) -> Result<Cmd, Error> {
    let argv = std::iter::once("dpcert".to_string()).chain(args.iter().cloned());
    Cli::try_parse_from(argv)
        .map(|c| c.cmd)
        .map_err(|e| Error::arg("query", one_line(&e)))
}

/// A record's or vector's query given as an argument list: the [`Query`] and the precision
/// it asks for.
fn parse_query(args: &[String]) -> Result<(Query, Precision), Error> {
    let cmd = parse_cmd(args)?;
    typed_query(single(&cmd)?)
}

/// A record's query in either spelling (the argument list, or the request object a binding
/// sends): both reach the same command struct, so the same [`Query`] and precision; a
/// request's error names its key.
fn parse_query_form(q: QueryForm) -> Result<(Query, Precision), Error> {
    match q {
        QueryForm::Args(args) => parse_query(args),
        QueryForm::Request(r) => {
            let cmd = request::parse(r)?;
            typed_query(single_request(&cmd)?).map_err(request::keyed)
        }
    }
}

/// The [`Query`] a single-value query command asks, and its precision.
fn typed_query(c: &dyn QueryCmd) -> Result<(Query, Precision), Error> {
    flagged(c.to_query().and_then(|q| Ok((q, precision(c.common())?))))
}

/// Library entry point for bindings (the Python package's `query(args)`): the `dpcert/1`
/// envelope that `dpcert ARGS --json` prints for a single-value query (`args` without the
/// program name), or the error it exits with.
#[doc(hidden)]
pub fn query_envelope(args: &[String]) -> Result<Value, Error> {
    let cmd = parse_cmd(args)?;
    envelope_of(single(&cmd)?)
}

/// The single-value query command `cmd` is, or the error naming `command`.
fn single(cmd: &Cmd) -> Result<&dyn QueryCmd, Error> {
    cmd.query_cmd().ok_or_else(|| {
        Error::arg(
            "query",
            "not a single-value query (gaussian, zcdp, compose, rdp or dpsgd)",
        )
    })
}

/// Library entry point for bindings: the `dpcert/1` envelope of a single-value query given as
/// a request — a JSON object `{"command": "gaussian", "subcommand": "delta", "sigma": "1",
/// "epsilon": "0.5"}` whose keys are the flags' long names with underscores and whose values
/// are their exact texts (`true`/`false` for a switch, a list for a repeatable flag). The same
/// command structs as `dpcert gaussian delta --sigma 1 --epsilon 0.5 --json`, so the same
/// envelope; an error names the offending key.
#[doc(hidden)]
pub fn query_envelope_json(request: &Value) -> Result<Value, Error> {
    let cmd = request::parse(request)?;
    envelope_of(single_request(&cmd)?).map_err(request::keyed)
}

/// The single-value query command a request names, or the error naming its `command`.
fn single_request(cmd: &Cmd) -> Result<&dyn QueryCmd, Error> {
    single(cmd).map_err(|_| {
        Error::arg(
            "command",
            "not a single-value query (gaussian, zcdp, compose, rdp, dpsgd, tradeoff or gdp)",
        )
    })
}

/// Library entry point for bindings: the `dpcert/1` envelope of `dpcert calibrate` for a
/// request (`{"command": "calibrate", "subcommand": "dpsgd", "target_epsilon": "1", ...}`,
/// as [`query_envelope_json`]), or the error naming the offending key.
#[doc(hidden)]
pub fn calibrate_envelope_json(request: &Value) -> Result<Value, Error> {
    match request::parse(request)? {
        Cmd::Calibrate(c) => calibrate::envelope(&c).map_err(request::keyed),
        _ => Err(Error::arg("command", "not a calibrate request")),
    }
}

/// Library entry point for bindings: the `dpcert/1` envelope of `dpcert subsample` for a
/// request (`{"command": "subsample", "epsilon": "1", "delta": "1e-6", "rate": "0.01",
/// "scheme": "poisson"}`, as [`query_envelope_json`]), or the error naming the offending key.
#[doc(hidden)]
pub fn subsample_envelope_json(request: &Value) -> Result<Value, Error> {
    match request::parse(request)? {
        Cmd::Subsample(a) => subsample::envelope(&a).map_err(request::keyed),
        _ => Err(Error::arg("command", "not a subsample request")),
    }
}

/// The `dpcert/1` envelope of one single-value query command.
fn envelope_of(c: &dyn QueryCmd) -> Result<Value, Error> {
    let (q, a) = flagged((|| {
        let q = c.to_query()?;
        // a binding that draws its own bar turns the library's stderr lines off
        let mut a = q.evaluate(precision(c.common())?, crate::progress::stderr_lines())?;
        a.details.extend(c.details());
        a.details.extend(c.promise(&a).map(|(k, v, _)| (k, v)));
        Ok((q, a))
    })())?;
    Ok(contract::envelope(
        c.command(),
        c.input(),
        answer_json(&q, &a),
    ))
}

/// Library entry point for bindings: `dpcert check`'s result for one record.
#[doc(hidden)]
pub fn check_record_json(index: usize, record: &Value) -> Value {
    crate::reference::judge::check_record(index, record, &parse_query_form).1
}

/// Report an error: the message on stderr, and with `--json` the error envelope on stdout.
/// Returns the exit code.
fn fail(command: &str, input: Value, e: &Error, json_mode: bool) -> i32 {
    out::warn(&format!("dpcert: {e}"));
    if json_mode {
        out::println(&contract::error_envelope(command, input, e).to_string());
    }
    match e {
        Error::InvalidArgument { .. } => exit::BAD_INPUT,
        Error::Numerical(_) => exit::NUMERICAL,
    }
}

/// Evaluate and print one single-value query.
fn run_query(c: &dyn QueryCmd) -> i32 {
    let json_mode = c.common().json;
    let evaluated = flagged((|| {
        let n = digits(c.common())?;
        let q = c.to_query()?;
        let p = precision(c.common())?;
        let mut a = crate::progress::heartbeat(&format!("dpcert {}", c.command()), || {
            q.evaluate(p, crate::progress::stderr_lines())
        })?;
        a.details.extend(c.details());
        let promise = c.promise(&a);
        a.details.extend(promise.clone().map(|(k, v, _)| (k, v)));
        Ok((q, a, n, promise.and_then(|p| p.2)))
    })());
    let (q, a, n, warning) = match evaluated {
        Ok(x) => x,
        Err(e) => return fail(c.command(), c.input(), &e, json_mode),
    };
    if json_mode {
        out::println(&contract::envelope(c.command(), c.input(), answer_json(&q, &a)).to_string());
    } else {
        let f = a.value.formula();
        let kind = match a.value {
            Certified::TwoSided(_) => "certified lower and upper bounds",
            Certified::UpperBound(_) => "a certified upper bound",
        };
        out::println(&format!(
            "{} {}{}.\n  [{kind}; {}; {} bits, {}]",
            c.asked(),
            bracket_words(&a.value, n),
            c.note(&a),
            a.theorem,
            f.precision_bits(),
            f.arithmetic().name()
        ));
        if let Some(w) = warning {
            out::println(&format!("  warning: {w}"));
        }
    }
    exit::OK
}

/// The command words (those clap knows) and `--json` of a raw argument list clap refused (for
/// the error envelope).
fn raw_command(args: &[String]) -> (String, bool) {
    let words = command_path(args).0;
    (words[1..].join(" "), args.iter().any(|a| a == "--json"))
}

/// The leading words of `args` that name commands (with the program's name first), and the
/// command they reach.
fn command_path(args: &[String]) -> (Vec<String>, clap::Command) {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut words = vec!["dpcert".to_string()];
    for a in args.iter().skip(1).take_while(|a| !a.starts_with('-')) {
        match cmd.find_subcommand(a) {
            Some(sub) => {
                words.push(a.clone());
                cmd = sub.clone();
            }
            None => break,
        }
    }
    (words, cmd)
}

/// clap's message on one line, as clap words it: its list items (a line ending in `:` is
/// followed by them) joined by commas, its "tip" in parentheses; its usage block left out.
fn one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let (mut msg, mut tips) = (String::new(), Vec::new());
    let mut listing = false;
    for line in text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
    {
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip.to_string());
        } else if msg.is_empty() {
            msg = line.trim_start_matches("error: ").to_string();
            listing = msg.ends_with(':');
        } else {
            msg += if listing && !msg.ends_with(':') {
                ", "
            } else {
                " "
            };
            msg += line;
        }
    }
    for t in tips {
        msg += &format!(" (tip: {t})");
    }
    msg
}

/// The command group `args` stop at when it needs a subcommand (`dpcert gaussian --sigma 1`):
/// its words and its subcommands (name, one-line description).
fn group_of(args: &[String]) -> Option<(String, Vec<(String, String)>)> {
    let (words, cmd) = command_path(args);
    let known = args
        .iter()
        .skip(1)
        .take_while(|a| !a.starts_with('-'))
        .count();
    if known + 1 != words.len() {
        return None; // an unknown word: clap names it
    }
    let subs: Vec<(String, String)> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .map(|s| {
            let about = s.get_about().map(|a| a.to_string()).unwrap_or_default();
            (s.get_name().to_string(), about)
        })
        .collect();
    (!subs.is_empty()).then(|| (words.join(" "), subs))
}

/// "`dpcert gaussian` needs a subcommand: delta | epsilon | sigma; usage: …".
fn needs_subcommand(group: &str, subs: &[(String, String)]) -> String {
    let names: Vec<&str> = subs.iter().map(|(n, _)| n.as_str()).collect();
    if names.len() > 4 {
        return format!("`{group}` needs a command; usage: {group} <COMMAND> [OPTIONS]");
    }
    format!(
        "`{group}` needs a subcommand: {}; usage: {group} <{}> [OPTIONS]",
        names.join(" | "),
        names.join("|")
    )
}

/// The one-line message for arguments clap refused, with a hint where one helps.
fn refusal(e: &clap::Error, args: &[String]) -> String {
    use clap::error::ErrorKind::*;
    let group = group_of(args);
    match (e.kind(), &group) {
        (DisplayHelpOnMissingArgumentOrSubcommand | MissingSubcommand, Some((g, subs))) => {
            needs_subcommand(g, subs)
        }
        (UnknownArgument, Some((g, subs))) => {
            format!("{} (tip: {})", one_line(e), needs_subcommand(g, subs))
        }
        (InvalidUtf8, _) => match args.iter().position(|a| a.contains('\u{fffd}')) {
            Some(i) => format!(
                "{} (argument {i}, `{}`; arguments must be UTF-8 text)",
                one_line(e),
                args[i].chars().take(40).collect::<String>()
            ),
            None => one_line(e),
        },
        _ => one_line(e),
    }
}

/// The arguments, each as a `String` (non-UTF-8 ones lossily: only for messages).
fn lossy(args: &[std::ffi::OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

fn parse_args() -> Result<Cli, i32> {
    let raw: Vec<std::ffi::OsString> = std::env::args_os().collect();
    Cli::try_parse_from(&raw).map_err(|e| {
        use clap::error::ErrorKind::*;
        if matches!(e.kind(), DisplayHelp | DisplayVersion) {
            let text = e.render().to_string();
            out::print(&text);
            if !text.ends_with('\n') {
                out::print("\n");
            }
            return exit::OK;
        }
        let args = lossy(&raw);
        let (command, json_mode) = raw_command(&args);
        let msg = refusal(&e, &args);
        out::warn(&format!("dpcert: {msg}"));
        if json_mode {
            let e = Error::arg("arguments", msg);
            out::println(&contract::error_envelope(&command, Value::Null, &e).to_string());
        } else if let (DisplayHelpOnMissingArgumentOrSubcommand, Some((_, subs))) =
            (e.kind(), group_of(&args))
        {
            let w = subs.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
            for (name, about) in subs {
                out::warn(&format!("  {name:<w$}  {about}"));
            }
        }
        exit::BAD_INPUT
    })
}

/// Parse the arguments, run the command and return the process exit code (an output failure
/// is one too: `out::finish`).
pub fn run() -> i32 {
    let code = match parse_args() {
        Ok(cli) => run_cmd(&cli.cmd),
        Err(code) => code,
    };
    out::finish(code)
}

fn run_cmd(cmd: &Cmd) -> i32 {
    if let Cmd::Tradeoff(t) = cmd {
        if let Some(code) = t.run_plot() {
            return code;
        }
    }
    if let Some(c) = cmd.query_cmd() {
        return run_query(c);
    }
    match cmd {
        Cmd::Audit(a) => audit::run_audit(a),
        Cmd::Plot(a) => plot::run_plot(a),
        Cmd::Vectors(a) => vectors::run_vectors(a),
        Cmd::Check(a) => check::run_check(a),
        Cmd::Subsample(a) => subsample::run_subsample(a),
        Cmd::Calibrate(a) => calibrate::run_calibrate(a),
        _ => unreachable!("every single-value query is handled above"),
    }
}
