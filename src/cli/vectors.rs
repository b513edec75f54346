//! `dpcert vectors`: certified test vectors for other implementations.
use super::{fail, out, parse_query};
use crate::reference::vectors::certified_vectors;
use crate::{exit, json as contract};
use clap::Args;
use serde_json::json;

#[derive(Args)]
#[command(after_help = super::EXIT_CODES)]
pub(super) struct VectorsArgs {
    /// Print one JSON object (the dpcert/1 envelope; full digits).
    #[arg(long)]
    pub(super) json: bool,
}

pub(super) fn run_vectors(a: &VectorsArgs) -> i32 {
    // about 10 s of work (more on a loaded machine): a progress line on a terminal
    let progress = crate::progress::stderr_lines();
    let started = std::time::Instant::now();
    let shown = |i: usize, n: usize| {
        if progress && started.elapsed().as_secs() >= 1 {
            out::progress(&format!("\rdpcert vectors: {}/{n} ", i + 1));
        }
    };
    let recs = match certified_vectors(&parse_query, shown) {
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
