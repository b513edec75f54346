//! The `dpcert` command line: parse, call the library, print. The questions answered with a
//! value are the library's typed requests ([`dpcert::request::Request`]: clap reads their flags,
//! the library answers, this module prints the sentence or, with `--json`, the `dpcert/1`
//! envelope); the commands that read files — `audit`, `plot`, `vectors`, `check` — are this
//! module's own, one file each. Exit codes follow [`dpcert::exit`]. Every byte goes through
//! `out` (no `println!`: a closed pipe or a full disk is an exit code, never a panic).
#![deny(clippy::print_stdout, clippy::print_stderr)]
mod audit;
mod check;
mod out;
mod plot;
mod vectors;

use clap::{Parser, Subcommand};
use dpcert::request::{one_line, PlotRequest, Request, EXIT_CODES};
use dpcert::{exit, json as contract, Error};
use serde_json::Value;

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

/// The commands: the library's requests, and the commands that read files (their
/// `display_order`s interleave them with the requests' in `--help`, as always listed).
#[derive(Subcommand)]
enum Cmd {
    #[command(flatten)]
    Request(Request),
    /// Audit a deployment file (TOML or JSON): best certified (ε, δ), routes, claim verdict.
    #[command(display_order = 8)]
    Audit(audit::AuditArgs),
    /// Plot a deployment's privacy profile δ(ε) as SVG: the audit's best route (upper and lower
    /// bounds), the other routes faint, the budget and the claim.
    #[command(display_order = 9)]
    Plot(plot::PlotArgs),
    /// Print certified test vectors for other implementations.
    #[command(display_order = 10)]
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
    #[command(display_order = 11)]
    Check(check::CheckArgs),
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

/// Answer one request and print the answer: its sentence, or with `--json` its envelope.
fn answer(r: &Request) -> i32 {
    let json_mode = r.common().json();
    match r.reply(true) {
        Ok(a) if json_mode => out::println(&a.envelope().to_string()),
        Ok(a) => out::println(&a.text),
        Err(f) => return fail(f.command, f.input, &f.error, json_mode),
    }
    exit::OK
}

/// `tradeoff dpsgd --plot OUT.svg|-`: draw the certified ROC. Returns the exit code when the
/// command is done (an error, or no --fpr to answer), `None` when the single-value query at
/// --fpr is still to run.
fn draw(p: &PlotRequest, json_mode: bool) -> Option<i32> {
    let drawn = (|| -> Result<Option<Value>, Error> {
        let target = out::svg_output(p.path, "--plot")?;
        if target == out::Output::Stdout && (json_mode || p.then_query) {
            return Err(Error::arg(
                "--plot",
                "`--plot -` writes the SVG to standard output, so nothing else can go there: give --plot a file name (FILE.svg) to also get --json or the answer at --fpr",
            ));
        }
        let (svg, points) = p.roc()?;
        out::write_svg(&target, &svg, "--plot")?;
        if p.then_query {
            out::warn(&format!("dpcert: wrote {}", p.path.display()));
            return Ok(None);
        }
        Ok(Some(points))
    })();
    match drawn {
        Ok(Some(points)) => {
            let a = p.reply(points);
            if json_mode {
                out::println(&a.envelope().to_string());
            } else if p.path.as_os_str() != "-" {
                out::println(&a.text);
            }
            Some(exit::OK)
        }
        Ok(None) => None,
        Err(e) => {
            let f = p.failure(e);
            Some(fail(f.command, f.input, &f.error, json_mode))
        }
    }
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
    match cmd {
        Cmd::Request(r) => {
            if let Some(code) = r.plot().and_then(|p| draw(&p, r.common().json())) {
                return code;
            }
            answer(r)
        }
        Cmd::Audit(a) => audit::run_audit(a),
        Cmd::Plot(a) => plot::run_plot(a),
        Cmd::Vectors(a) => vectors::run_vectors(a),
        Cmd::Check(a) => check::run_check(a),
    }
}
