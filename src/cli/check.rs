//! `dpcert check FILE`: judge values printed by another library (the library does the
//! judging: [`dpcert::reference::judge`]).
use super::{fail, out};
use clap::Args;
use dpcert::json as contract;
use dpcert::reference::judge::{check_records, parse_records};
use dpcert::request::query_of_form;
use serde_json::{json, Value};

#[derive(Args)]
#[command(after_help = dpcert::request::EXIT_CODES)]
pub(super) struct CheckArgs {
    /// JSON list of {"query": [...], "value": "..."}: `query` is the argument list one would
    /// pass to dpcert (e.g. ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"]) or the
    /// same question as a request object ({"command": "gaussian", "subcommand": "delta",
    /// "sigma": "1", "epsilon": "0.5"}: the flags' long names with underscores). At
    /// most 16 MiB, UTF-8 (a byte-order mark and CRLF line ends are fine); a record may not
    /// repeat a key.
    file: std::path::PathBuf,
    /// Print one JSON object (the dpcert/1 envelope; full digits).
    #[arg(long)]
    pub(super) json: bool,
}

/// One record as a line of text.
fn record_line(r: &Value) -> String {
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
    let b = &r["bracket"];
    let bracket = match (b["lower"].as_str(), b["upper"].as_str()) {
        (None, None) => String::new(),
        (l, u) => format!(
            "  smallest valid value ∈ [{}, {}] ({})",
            l.unwrap_or("?"),
            u.unwrap_or("?"),
            b["kind"].as_str().unwrap_or("")
        ),
    };
    format!(
        "{:<9}  #{}  {q}  value={value}{bracket}  — {}",
        r["verdict"].as_str().unwrap_or(""),
        r["record"],
        r["reason"].as_str().unwrap_or("")
    )
}

pub(super) fn run_check(a: &CheckArgs) -> i32 {
    let input = json!({"file": a.file.display().to_string()});
    let name = a.file.display().to_string();
    let list = dpcert::input::read_text(&a.file).and_then(|text| parse_records(&text, &name));
    let list = match list {
        Ok(l) => l,
        Err(e) => return fail("check", input, &e, a.json),
    };
    let progress = dpcert::progress::stderr_lines();
    let started = std::time::Instant::now();
    let (results, summary) = check_records(&list, &query_of_form, |i| {
        if progress && started.elapsed().as_secs() >= 2 {
            out::progress(&format!("\rdpcert check: record {}/{} ", i + 1, list.len()));
        }
    });
    if progress && started.elapsed().as_secs() >= 2 {
        out::progress("\n");
    }
    if a.json {
        let result = json!({"records": results, "summary": summary.to_json(results.len())});
        out::println(&contract::envelope("check", input, result).to_string());
    } else {
        for r in &results {
            out::println(&record_line(r));
        }
        out::println(&format!(
            "{} records: {} sound, {} unsound, {} undecided, {} invalid",
            results.len(),
            summary.sound,
            summary.unsound,
            summary.undecided,
            summary.invalid
        ));
    }
    // a file of nothing but invalid records is bad input as a whole
    if !results.is_empty() && summary.invalid == results.len() {
        return dpcert::exit::BAD_INPUT;
    }
    summary.exit_code()
}
