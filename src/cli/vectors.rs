//! `dpcert vectors`: certified test vectors for other implementations.
use super::{evaluate, lower_dec, parse_query};
use crate::Error;
use clap::Args;
use serde_json::json;

#[derive(Args)]
pub(super) struct VectorsArgs {
    #[arg(long)]
    pub(super) json: bool,
}

pub(super) fn run_vectors(a: &VectorsArgs) -> Result<i32, Error> {
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
    if a.json {
        println!("{}", json!({ "vectors": recs }));
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
