//! The typed request form of every question dpcert answers with a value: the single-value
//! queries (`gaussian`, `zcdp`, `compose`, `rdp`, `dpsgd`, `tradeoff`, `gdp`), `subsample` and
//! `calibrate`. One struct per command, which clap fills from a command line (the `dpcert`
//! binary, whose own commands — audit, plot, vectors, check — read files) and serde from a JSON
//! object ([`Request::from_json`]: the Python package, `check` records, `vectors`). A single-value
//! query maps its fields to a typed [`Query`] (`QueryCmd`); every request is answered as a
//! [`Reply`]: the `dpcert/1` envelope's parts ([`crate::json`]) and the human sentence (8
//! significant digits by default, outward rounded). Nothing here prints or exits: that is the
//! binary's.
#![deny(clippy::print_stdout, clippy::print_stderr)]
mod batch;
mod calibrate;
mod compose;
mod dpsgd;
mod form;
mod gaussian;
mod gdp;
mod rdp;
mod subsample;
mod tradeoff;
mod zcdp;

pub use calibrate::{calibration_json, calibration_text};
pub use tradeoff::PlotRequest;

use crate::num::{parse_exact, parse_positive_integer, Certified, Lower, Precision, Upper};
use crate::reference::judge::QueryForm;
use crate::reference::query::{Answer, Query};
use crate::{json as contract, validate, Error};
use clap::{Args, Parser, Subcommand};
use rug::{Integer, Rational};
use serde::Deserialize;
use serde_json::{json, Value};

/// A command line of one request (the program's name first), as clap reads it.
#[derive(Parser)]
#[command(name = "dpcert")]
struct Argv {
    #[command(subcommand)]
    request: Request,
}

/// Every question dpcert answers with a value, as clap reads it from flags and serde from a
/// request object (`{"command": "gaussian", "subcommand": "delta", "sigma": "1", ...}`). The
/// `display_order`s place these commands among the binary's own in `dpcert --help`.
#[derive(Subcommand, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
pub enum Request {
    /// The Gaussian mechanism, exactly (Corollaries 8 and 10).
    #[command(subcommand, display_order = 1)]
    Gaussian(gaussian::GaussianCmd),
    /// Zero-concentrated DP conversions (Proposition 14, Remark 15).
    #[command(subcommand, display_order = 2)]
    Zcdp(zcdp::ZcdpCmd),
    /// Composition of DP mechanisms.
    #[command(subcommand, display_order = 3)]
    Compose(compose::ComposeCmd),
    /// Rényi DP curves.
    #[command(subcommand, display_order = 4)]
    Rdp(rdp::RdpCmd),
    /// DP-SGD accounting: ε at δ for Poisson-subsampled Gaussian steps.
    #[command(display_order = 5)]
    Dpsgd(Box<dpsgd::DpsgdArgs>),
    /// Amplification by subsampling of an (ε, δ)-DP mechanism.
    #[command(display_order = 6)]
    Subsample(subsample::SubsampleArgs),
    /// Certified calibration: the σ (steps, rate) meeting an ε target.
    #[command(subcommand, display_order = 7)]
    Calibrate(calibrate::CalibrateCmd),
    /// f-DP: the best membership-inference attack's TPR at a given FPR, certified.
    #[command(subcommand, display_order = 12)]
    Tradeoff(tradeoff::TradeoffCmd),
    /// Gaussian differential privacy: the μ of μ-GDP, certified.
    #[command(subcommand, display_order = 13)]
    Gdp(gdp::GdpCmd),
}

/// The flags every request shares: `--json`, `--precision`, `--digits`.
#[derive(Args, Clone, Debug, Deserialize)]
pub struct Common {
    /// Print one JSON object (the dpcert/1 envelope; full digits).
    #[arg(long)]
    #[serde(skip_deserializing, default = "form::yes")]
    json: bool,
    /// MPFR working precision in bits, 16..=8192 (default: automatic, f64 intervals first,
    /// raised when needed).
    #[arg(long, value_name = "BITS")]
    precision: Option<String>,
    /// Significant digits printed (human output; default 8, outward rounded: lower ends down,
    /// upper ends up). JSON always has full digits.
    #[arg(long, value_name = "N", default_value = form::DIGITS)]
    #[serde(skip_deserializing, default = "form::digits")]
    digits: String,
}

/// The exit-code table, shown under every `--help`.
pub const EXIT_CODES: &str = "Exit codes: 0 = verified / answered; 1 = a claim refuted or a checked value unsound; \
2 = bad input; 3 = numerical failure; 4 = undecided (the certified bracket contains the claimed value); \
5 = the output could not be written (e.g. a full disk); 141 = the reader closed the pipe (as `| head`), quietly.";

/// A request's answer: the parts of its `dpcert/1` envelope and its human text.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The command words, e.g. `gaussian delta`.
    pub command: &'static str,
    /// The request's parameters as given (the envelope's `input`).
    pub input: Value,
    /// The envelope's `result`.
    pub result: Value,
    /// The human output at the request's `--digits`, without a final newline.
    pub text: String,
}

impl Reply {
    /// The `dpcert/1` envelope.
    pub fn envelope(&self) -> Value {
        contract::envelope(self.command, self.input.clone(), self.result.clone())
    }
}

/// A request that was not answered: its command words and parameters (the error envelope's)
/// and the error.
#[derive(Debug)]
pub struct Failure {
    /// The command words.
    pub command: &'static str,
    /// The request's parameters as given.
    pub input: Value,
    /// Why: bad input or a numerical failure.
    pub error: Error,
}

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

impl Request {
    /// The request a command line asks (`args` without the program name), or the error naming
    /// `query`.
    pub fn from_args(args: &[String]) -> Result<Request, Error> {
        if args
            .first()
            .is_some_and(|a| FILE_COMMANDS.contains(&a.as_str()))
        {
            return Err(not_single_value());
        }
        let argv = std::iter::once("dpcert".to_string()).chain(args.iter().cloned());
        Argv::try_parse_from(argv)
            .map(|c| c.request)
            .map_err(|e| Error::arg("query", one_line(&e)))
    }

    /// The request a JSON object asks (`{"command": "gaussian", "subcommand": "delta", "sigma":
    /// "1", "epsilon": "0.5"}`: the flags' long names with underscores as keys, their exact
    /// texts as values, `true`/`false` for a switch, a list for a repeatable flag), or the
    /// error naming the offending key.
    pub fn from_json(request: &Value) -> Result<Request, Error> {
        form::parse(request)
    }

    /// The request object of a command line (`args` without the program name): every flag
    /// given becomes its key. The error names `query`.
    pub fn json_of_args(args: &[String]) -> Result<Value, Error> {
        form::from_args(args)
    }

    /// The flags every command shares (`--json`, `--precision`, `--digits`).
    pub fn common(&self) -> &Common {
        match self {
            Request::Gaussian(c) => c.common(),
            Request::Zcdp(c) => c.common(),
            Request::Compose(c) => c.common(),
            Request::Rdp(c) => c.common(),
            Request::Dpsgd(c) => c.common(),
            Request::Tradeoff(c) => c.common(),
            Request::Gdp(c) => c.common(),
            Request::Subsample(a) => &a.common,
            Request::Calibrate(c) => c.common(),
        }
    }

    /// `tradeoff dpsgd --plot FILE|-`: the chart asked for (`None` for every other request).
    pub fn plot(&self) -> Option<PlotRequest<'_>> {
        match self {
            Request::Tradeoff(t) => t.plot_request(),
            _ => None,
        }
    }

    /// Answer the request. `heartbeat`: a long evaluation says on standard error that it is
    /// still running (the command line; a binding draws its own bar).
    pub fn reply(&self, heartbeat: bool) -> Result<Reply, Box<Failure>> {
        match self {
            Request::Subsample(a) => subsample::reply(a),
            Request::Calibrate(c) => calibrate::reply(c),
            Request::Gaussian(c) => query_reply(c, heartbeat),
            Request::Zcdp(c) => query_reply(c, heartbeat),
            Request::Compose(c) => query_reply(c, heartbeat),
            Request::Rdp(c) => query_reply(c, heartbeat),
            Request::Dpsgd(c) => query_reply(&**c, heartbeat),
            Request::Tradeoff(c) => query_reply(c, heartbeat),
            Request::Gdp(c) => query_reply(c, heartbeat),
        }
    }

    fn query_cmd(&self) -> Option<&dyn QueryCmd> {
        Some(match self {
            Request::Gaussian(g) => g,
            Request::Zcdp(z) => z,
            Request::Compose(c) => c,
            Request::Rdp(r) => r,
            Request::Dpsgd(d) => &**d,
            Request::Tradeoff(t) => t,
            Request::Gdp(g) => g,
            Request::Subsample(_) | Request::Calibrate(_) => return None,
        })
    }
}

impl Common {
    /// `--json`: print the envelope (always on for a request object).
    pub fn json(&self) -> bool {
        self.json
    }
}

/// The binary's own commands (they read files): not requests.
const FILE_COMMANDS: [&str; 4] = ["audit", "plot", "vectors", "check"];

fn not_single_value() -> Error {
    Error::arg(
        "query",
        "not a single-value query (gaussian, zcdp, compose, rdp or dpsgd)",
    )
}

fn num(flag: &str, text: &str) -> Result<Rational, Error> {
    parse_exact(text).map_err(|e| Error::arg(flag, e))
}

fn count(flag: &str, text: &str) -> Result<Integer, Error> {
    parse_positive_integer(text).map_err(|e| Error::arg(flag, e))
}

/// [`flagged`] for one error.
pub(crate) fn flagged_err(e: Error) -> Error {
    match flagged::<()>(Err(e)) {
        Err(e) => e,
        Ok(()) => unreachable!(),
    }
}

/// Re-label a library argument name with the flag that carries it (`sigma` → `--sigma`).
pub fn flagged<T>(r: Result<T, Error>) -> Result<T, Error> {
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
pub const MAX_DIGITS: usize = 100;

fn digits(c: &Common) -> Result<usize, Error> {
    digits_arg(&c.digits)
}

/// `--digits N`: 2..=MAX_DIGITS significant digits.
pub fn digits_arg(text: &str) -> Result<usize, Error> {
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

/// A record's query in either spelling (the argument list, or the request object a binding
/// sends): both reach the same command struct, so the same [`Query`] and precision; a
/// request's error names its key.
pub fn query_of_form(q: QueryForm) -> Result<(Query, Precision), Error> {
    match q {
        QueryForm::Args(args) => {
            let r = Request::from_args(args)?;
            typed_query(single(&r)?)
        }
        QueryForm::Request(r) => {
            let r = form::parse(r)?;
            typed_query(single_request(&r)?).map_err(form::keyed)
        }
    }
}

/// The [`Query`] a single-value query command asks, and its precision.
fn typed_query(c: &dyn QueryCmd) -> Result<(Query, Precision), Error> {
    flagged(c.to_query().and_then(|q| Ok((q, precision(c.common())?))))
}

/// The single-value query command `r` is, or the error naming `query`.
fn single(r: &Request) -> Result<&dyn QueryCmd, Error> {
    r.query_cmd().ok_or_else(not_single_value)
}

/// The single-value query command a request names, or the error naming its `command`.
fn single_request(r: &Request) -> Result<&dyn QueryCmd, Error> {
    r.query_cmd().ok_or_else(|| {
        Error::arg(
            "command",
            "not a single-value query (gaussian, zcdp, compose, rdp, dpsgd, tradeoff or gdp)",
        )
    })
}

/// The `dpcert/1` envelope of a single-value query given as a request object (see
/// [`Request::from_json`]): the same command structs as `dpcert gaussian delta --sigma 1
/// --epsilon 0.5 --json`, so the same envelope; an error names the offending key.
pub fn query_envelope_json(request: &Value) -> Result<Value, Error> {
    let r = form::parse(request)?;
    envelope_of(single_request(&r)?)
}

/// The `dpcert/1` envelope of `dpcert calibrate` for a request (`{"command": "calibrate",
/// "subcommand": "dpsgd", "target_epsilon": "1", ...}`), or the error naming the offending key.
pub fn calibrate_envelope_json(request: &Value) -> Result<Value, Error> {
    match form::parse(request)? {
        r @ Request::Calibrate(_) => reply_envelope(&r),
        _ => Err(Error::arg("command", "not a calibrate request")),
    }
}

/// The `dpcert/1` envelope of `dpcert subsample` for a request (`{"command": "subsample",
/// "epsilon": "1", "delta": "1e-6", "rate": "0.01", "scheme": "poisson"}`), or the error naming
/// the offending key.
pub fn subsample_envelope_json(request: &Value) -> Result<Value, Error> {
    match form::parse(request)? {
        r @ Request::Subsample(_) => reply_envelope(&r),
        _ => Err(Error::arg("command", "not a subsample request")),
    }
}

/// A request's envelope for a binding, its error under the request's keys.
fn reply_envelope(r: &Request) -> Result<Value, Error> {
    r.reply(false)
        .map(|a| a.envelope())
        .map_err(|f| form::keyed(f.error))
}

/// The `dpcert/1` envelope of one single-value query command, for a binding.
fn envelope_of(c: &dyn QueryCmd) -> Result<Value, Error> {
    query_reply(c, false)
        .map(|a| a.envelope())
        .map_err(|f| form::keyed(f.error))
}

/// `dpcert check`'s result for one record.
pub fn check_record_json(index: usize, record: &Value) -> Value {
    crate::reference::judge::check_record(index, record, &query_of_form).1
}

/// Evaluate one single-value query: the envelope's parts and the sentence
/// "δ at ε = 0.5 (…) lies in [l, u].\n  [certified lower and upper bounds; theorem; bits, arithmetic]"
/// (and a warning line when a promise such as `--tight`'s width was not kept).
fn query_reply(c: &dyn QueryCmd, heartbeat: bool) -> Result<Reply, Box<Failure>> {
    let evaluated = flagged((|| {
        let n = digits(c.common())?;
        let q = c.to_query()?;
        let p = precision(c.common())?;
        let evaluate = || q.evaluate(p, crate::progress::stderr_lines());
        let mut a = if heartbeat {
            crate::progress::heartbeat(&format!("dpcert {}", c.command()), evaluate)
        } else {
            evaluate()
        }?;
        a.details.extend(c.details());
        let promise = c.promise(&a);
        a.details.extend(promise.clone().map(|(k, v, _)| (k, v)));
        Ok((q, a, n, promise.and_then(|p| p.2)))
    })());
    let (q, a, n, warning) = evaluated.map_err(|error| {
        Box::new(Failure {
            command: c.command(),
            input: c.input(),
            error,
        })
    })?;
    let f = a.value.formula();
    let kind = match a.value {
        Certified::TwoSided(_) => "certified lower and upper bounds",
        Certified::UpperBound(_) => "a certified upper bound",
    };
    let mut text = format!(
        "{} {}{}.\n  [{kind}; {}; {} bits, {}]",
        c.asked(),
        bracket_words(&a.value, n),
        c.note(&a),
        a.theorem,
        f.precision_bits(),
        f.arithmetic().name()
    );
    if let Some(w) = warning {
        text += &format!("\n  warning: {w}");
    }
    Ok(Reply {
        command: c.command(),
        input: c.input(),
        result: answer_json(&q, &a),
        text,
    })
}

/// clap's message on one line, as clap words it: its list items (a line ending in `:` is
/// followed by them) joined by commas, its "tip" in parentheses; its usage block left out.
pub fn one_line(e: &clap::Error) -> String {
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
