//! Costs of the heavier certified computations. Run: `cargo bench --bench accounting`.
use dpcert::num::{parse_exact, Precision};
use dpcert::theorems::{optimal, rdp};
use dpcert::validated::{Delta, Rate, Sigma, Steps};
use rug::Integer;
use std::time::Instant;

fn time<T>(label: &str, runs: u32, f: impl Fn() -> T) {
    let _ = f();
    let t = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(f());
    }
    println!(
        "{label}: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3 / runs as f64
    );
}

fn main() {
    let q = |s: &str| parse_exact(s).unwrap();
    for k in [1_000u32, 10_000, 100_000] {
        let c = [optimal::Class {
            epsilon: q("0.01"),
            delta: q("0"),
            count: Integer::from(k),
        }];
        time(&format!("optimal composition δ(ε=1), k = {k}"), 3, || {
            optimal::optimal_composition_delta(&c, &q("1"), Precision::Auto).unwrap()
        });
        time(
            &format!("optimal composition ε(δ=1e-6), k = {k}"),
            3,
            || optimal::optimal_composition_epsilon(&c, &q("1e-6"), Precision::Auto).unwrap(),
        );
    }
    let (r, s, t, d) = (
        Rate::new("rate", q("256/60000")).unwrap(),
        Sigma::new("sigma", q("1.1")).unwrap(),
        Steps::new("steps", Integer::from(14063)).unwrap(),
        Delta::new("delta", q("1e-5")).unwrap(),
    );
    time(
        "DP-SGD RDP ε, MNIST (q = 256/60000, σ = 1.1, 14063 steps, δ = 1e-5)",
        3,
        || rdp::dpsgd_rdp_epsilon(&r, &s, &t, &d, Precision::Auto).unwrap(),
    );
}
