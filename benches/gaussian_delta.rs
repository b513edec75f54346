//! Cost of a certified `gaussian_delta` (Corollary 8) over a grid of realistic inputs, and
//! over a wider one (σ up to 10⁴, ε up to 50, K compositions up to 10⁶).
//! Run: `cargo bench --bench gaussian_delta` (`-- --wide-only` skips criterion and the first
//! grid's per-point lines). Prints, per grid, the min / median / max over its points of the
//! per-call time (each point: the best of 3 batches, a batch lasting ≥ 2 ms).
use criterion::{black_box, Criterion};
use dpcert::num::{parse_exact, Precision};
use dpcert::theorems::gaussian::{gaussian_composition, gaussian_delta, GaussianMechanism};
use dpcert::theorems::pld::GaussianPld;
use rug::{Integer, Rational};
use std::time::Instant;

/// The original 56-point grid (Δ = 1, one composition).
fn grid() -> Vec<(String, String, String)> {
    let sigmas = ["0.5", "0.8", "1", "1.1", "2", "4", "10", "50"];
    let epss = ["0.01", "0.1", "0.5", "1", "2", "5", "10"];
    let mut g = Vec::new();
    for s in sigmas {
        for e in epss {
            g.push((s.to_string(), e.to_string(), "1".to_string()));
        }
    }
    g
}

/// The wider grid: σ to 10⁴, ε to 50, K to 10⁶ (Δ = 1).
fn wide_grid() -> Vec<(String, String, String)> {
    let sigmas = ["0.5", "1", "2", "4", "10", "100", "1000", "10000"];
    let epss = ["0.01", "0.1", "1", "5", "10", "20", "50"];
    let ks = ["1", "100", "10000", "1000000"];
    let mut g = Vec::new();
    for s in sigmas {
        for e in epss {
            for k in ks {
                g.push((s.to_string(), e.to_string(), k.to_string()));
            }
        }
    }
    g
}

fn pld_of(sigma: &str, k: &str) -> GaussianPld {
    let m = GaussianMechanism::new(
        parse_exact(sigma).unwrap(),
        Rational::from(1),
        k.parse::<Integer>().unwrap(),
    )
    .unwrap();
    gaussian_composition(&[m]).unwrap()
}

/// Per-call time in µs: best of 3 batches, each ≥ 2 ms (and ≥ 3 calls).
fn per_call_us(pld: &GaussianPld, eps: &Rational) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        let mut n = 0u32;
        while n < 3 || t.elapsed().as_secs_f64() < 2e-3 {
            black_box(gaussian_delta(pld, eps, Precision::Auto).unwrap());
            n += 1;
        }
        best = best.min(t.elapsed().as_secs_f64() * 1e6 / f64::from(n));
    }
    best
}

fn run_grid(name: &str, g: &[(String, String, String)], verbose: bool) {
    let mut per_call = Vec::new();
    for (s, e, k) in g {
        let pld = pld_of(s, k);
        let eps = parse_exact(e).unwrap();
        let us = per_call_us(&pld, &eps);
        let enc = gaussian_delta(&pld, &eps, Precision::Auto).unwrap();
        per_call.push(us);
        if verbose || us > 15.0 {
            println!(
                "sigma={s:>5} eps={e:>4} K={k:>7}: {us:8.2} µs  ({:?}, δ ≤ {})",
                enc.arithmetic(),
                enc.upper().to_decimal_digits(6)
            );
        }
    }
    per_call.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{name}: {} points, per-call time min {:.2} µs, median {:.2} µs, max {:.2} µs",
        per_call.len(),
        per_call[0],
        per_call[per_call.len() / 2],
        per_call.last().unwrap()
    );
}

fn main() {
    let wide_only = std::env::args().any(|a| a == "--wide-only");
    if !wide_only {
        let mut c = Criterion::default().configure_from_args();
        let pld = pld_of("1.1", "1");
        let eps = parse_exact("1").unwrap();
        c.bench_function("gaussian_delta sigma=1.1 eps=1", |b| {
            b.iter(|| gaussian_delta(black_box(&pld), black_box(&eps), Precision::Auto).unwrap())
        });
        c.final_summary();
    }
    run_grid("56-point grid", &grid(), !wide_only);
    run_grid("wide grid (σ ≤ 1e4, ε ≤ 50, K ≤ 1e6)", &wide_grid(), false);
}
