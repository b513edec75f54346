//! Cost of a certified `gaussian_delta` (Corollary 8) over a grid of realistic inputs.
//! Run: `cargo bench --bench gaussian_delta`. Prints the median over the grid of per-call times.
use criterion::{black_box, Criterion};
use dpcert::num::{parse_exact, Precision};
use dpcert::theorems::gaussian::gaussian_delta;
use dpcert::theorems::pld::gaussian_pld;
use std::time::Instant;

fn grid() -> Vec<(String, String)> {
    let sigmas = ["0.5", "0.8", "1", "1.1", "2", "4", "10", "50"];
    let epss = ["0.01", "0.1", "0.5", "1", "2", "5", "10"];
    sigmas
        .iter()
        .flat_map(|s| epss.iter().map(move |e| (s.to_string(), e.to_string())))
        .collect()
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let one = parse_exact("1").unwrap();
    let pld = gaussian_pld(&parse_exact("1.1").unwrap(), &one).unwrap();
    let eps = parse_exact("1").unwrap();
    c.bench_function("gaussian_delta sigma=1.1 eps=1", |b| {
        b.iter(|| gaussian_delta(black_box(&pld), black_box(&eps), Precision::Auto).unwrap())
    });
    // median over the grid, each point timed over many calls
    let mut per_call = Vec::new();
    for (s, e) in grid() {
        let pld = gaussian_pld(&parse_exact(&s).unwrap(), &one).unwrap();
        let eps = parse_exact(&e).unwrap();
        let n = 2000;
        let t = Instant::now();
        for _ in 0..n {
            black_box(gaussian_delta(&pld, &eps, Precision::Auto).unwrap());
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        let path = gaussian_delta(&pld, &eps, Precision::Auto)
            .unwrap()
            .arithmetic();
        per_call.push(us);
        println!("sigma={s:>4} eps={e:>4}: {us:8.2} µs  ({path:?})");
    }
    per_call.sort_by(|a, b| a.total_cmp(b));
    let med = per_call[per_call.len() / 2];
    println!(
        "median certified gaussian_delta over {} grid points: {med:.2} µs (max {:.2} µs)",
        per_call.len(),
        per_call.last().unwrap()
    );
    c.final_summary();
}
