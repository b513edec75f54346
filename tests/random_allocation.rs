//! Random allocation (balls-and-bins) and truncated Poisson DP-SGD.
mod common;
use common::q;
use dpcert::theorems::random_allocation::*;
use dpcert::Precision;
use rug::Integer;

fn mnist(epochs: u32) -> Allocation {
    Allocation {
        sigma: q("1.1"),
        steps: Integer::from(234),
        selected: Integer::from(1),
        epochs: Integer::from(epochs),
    }
}

#[test]
fn print_mnist() {
    let e = random_allocation_epsilon(&mnist(60), &q("1e-5"), Precision::Auto).unwrap();
    eprintln!("RA eps {e}");
    let e = random_allocation_delta(&mnist(1), &q("1"), Precision::Auto).unwrap();
    eprintln!("RA delta 1 epoch at eps=1 {e}");
}

#[test]
fn print_bnb_pld() {
    use dpcert::theorems::pld_accountant::{dpsgd_balls_and_bins_pld_epsilon, dpsgd_pld_epsilon, PldOptions};
    let t0 = std::time::Instant::now();
    let u = dpsgd_balls_and_bins_pld_epsilon(&q("1.1"), &Integer::from(234), &Integer::from(60), &q("1e-5"), &PldOptions::default()).unwrap();
    eprintln!("BnB upper {} in {:?}", u.to_f64(), t0.elapsed());
    let p = dpsgd_pld_epsilon(&q("1/234"), &q("1.1"), &Integer::from(234 * 60), &q("1e-5"), &PldOptions::default()).unwrap();
    eprintln!("Poisson 1/234 {}", p.enclosure);
}
