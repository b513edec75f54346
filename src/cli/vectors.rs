//! `dpcert vectors`: certified test vectors for other implementations.
use super::{fail, out};
use clap::Args;
use dpcert::reference::vectors::certified_vectors;
use dpcert::request::{query_of_form, Request};
use dpcert::{exit, json as contract};
use serde_json::{json, Value};

#[derive(Args)]
#[command(after_help = dpcert::request::EXIT_CODES)]
pub(super) struct VectorsArgs {
    /// Print one JSON object (the dpcert/1 envelope; full digits).
    #[arg(long)]
    pub(super) json: bool,
}

pub(super) fn run_vectors(a: &VectorsArgs) -> i32 {
    // about 10 s of work (more on a loaded machine): a progress line on a terminal
    let progress = dpcert::progress::stderr_lines();
    let started = std::time::Instant::now();
    let shown = |i: usize, n: usize| {
        if progress && started.elapsed().as_secs() >= 1 {
            out::progress(&format!("\rdpcert vectors: {}/{n} ", i + 1));
        }
    };
    let recs = match certified_vectors(&query_of_form, shown).and_then(with_requests) {
        Ok(r) => r,
        Err(e) => return fail("vectors", json!({}), &e, a.json),
    };
    if progress && started.elapsed().as_secs() >= 1 {
        out::progress("\n");
    }
    if a.json {
        let env = contract::envelope("vectors", json!({}), json!({ "vectors": recs }));
        out::println(&env.to_string());
    } else {
        for r in &recs {
            let q: Vec<&str> = r["query"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_str())
                .collect();
            out::println(&format!(
                "{}  lower={}  upper={}",
                q.join(" "),
                r["value"]["lower"].as_str().unwrap_or("-"),
                r["value"]["upper"].as_str().unwrap_or("-")
            ));
        }
    }
    exit::OK
}

/// Each vector with its query also as a request (the typed form bindings send), right after
/// the argument list: `{"query": [...], "request": {...}, ...}`.
fn with_requests(recs: Vec<Value>) -> dpcert::Result<Vec<Value>> {
    recs.into_iter()
        .map(|r| {
            let args: Vec<String> = r["query"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect();
            let req = Request::json_of_args(&args)?;
            let mut out = serde_json::Map::new();
            for (k, v) in r.as_object().into_iter().flatten() {
                out.insert(k.clone(), v.clone());
                if k == "query" {
                    out.insert("request".into(), req.clone());
                }
            }
            Ok(Value::Object(out))
        })
        .collect()
}
