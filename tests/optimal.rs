//! Optimal composition (KOV15 / MV16 via Corollary 24).
mod common;
use common::{f, q, rational, REF};
use dpcert::num::Precision;
use dpcert::theorems::optimal::*;
use dpcert::theorems::pld::{hockey_stick_tails, DiscretePld, Pld};
use proptest::prelude::*;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

fn class(e: &str, d: &str, k: u32) -> Class {
    Class {
        epsilon: q(e),
        delta: q(d),
        count: Integer::from(k),
    }
}

use common::rr_delta as reference;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn homogeneous_contains_reference(e0 in rational(0.01, 2.0), k in 1u32..300, eps in rational(0.0, 8.0), dk in 0u32..3) {
        let d0 = Rational::from((dk, 1_000_000u32));
        let c = Class { epsilon: e0.clone(), delta: d0.clone(), count: Integer::from(k) };
        let got = optimal_composition_delta(&[c], &eps, Precision::Auto).unwrap();
        common::check(&got, &reference(&e0, &d0, k, &eps), 1e-25, "optimal δ");
    }
}

#[test]
fn brackets_the_pld_route_and_inverts() {
    // k-fold RR through the discrete PLD route equals the optimal pure composition
    let c = class("0.3", "0", 40);
    for e in ["0", "1", "2.5", "6"] {
        let opt = optimal_composition_delta(&[c.clone()], &q(e), Precision::Auto).unwrap();
        let rr =
            Pld::Discrete(DiscretePld::randomized_response(&q("0.3"), &Integer::from(40)).unwrap());
        let pld = hockey_stick_tails(&rr, &q(e), Precision::Bits(128)).unwrap();
        assert!(
            opt.lower().to_float() <= pld.upper().to_float() && pld.lower().to_float() <= opt.upper().to_float(),
            "{e}"
        );
    }
    let inv = optimal_composition_epsilon(&[c.clone()], &q("1e-6"), Precision::Auto).unwrap();
    let hi = Rational::from_f64(inv.upper().to_f64()).unwrap();
    let lo = Rational::from_f64(inv.lower().to_f64()).unwrap();
    assert!(reference(&q("0.3"), &q("0"), 40, &hi) <= 1e-6);
    assert!(reference(&q("0.3"), &q("0"), 40, &lo) > 1e-6);
    assert!(inv.upper().to_f64() - inv.lower().to_f64() <= 1e-9 * inv.upper().to_f64());
}

#[test]
fn heterogeneous_and_grouped() {
    let classes = [
        class("0.1", "1e-7", 30),
        class("0.5", "0", 4),
        class("1", "1e-6", 2),
    ];
    let e = q("1.5");
    let exact = optimal_composition_delta(&classes, &e, Precision::Auto).unwrap();
    let grouped = grouped_composition_delta(&classes, &e, 1).unwrap();
    assert!(grouped.lower().to_float() <= exact.lower().to_float() && exact.upper().to_float() <= grouped.upper().to_float());
    let same = grouped_composition_delta(&classes, &e, 3).unwrap();
    assert!(same.lower().to_float() <= exact.upper().to_float() && exact.lower().to_float() <= same.upper().to_float());
    // monotone in ε
    let e2 = optimal_composition_delta(&classes, &q("2"), Precision::Auto).unwrap();
    assert!(e2.upper().to_float() <= exact.lower().to_float());
}

#[test]
fn large_k_is_fast_and_tight() {
    let t = std::time::Instant::now();
    let c = class("0.01", "0", 100_000);
    let d = optimal_composition_delta(&[c.clone()], &q("2"), Precision::Auto).unwrap();
    let e = optimal_composition_epsilon(&[c], &q("1e-6"), Precision::Auto).unwrap();
    eprintln!(
        "k=1e5: δ(2) ∈ [{}, {}], ε(1e-6) ∈ [{}, {}] in {:?}",
        d.lower().to_decimal(),
        d.upper().to_decimal(),
        e.lower().to_decimal(),
        e.upper().to_decimal(),
        t.elapsed()
    );
    assert!(d.rel_width() < 1e-20);
    assert!(e.upper().to_f64() - e.lower().to_f64() <= 1e-9 * e.upper().to_f64());
}

/// k large enough that the binomial window drops tails (k > 350): still contains the full sum.
#[test]
fn truncated_windows_contain_the_full_sum() {
    for (e0, k, e) in [
        ("0.05", 2000u32, "3"),
        ("0.2", 1500, "10"),
        ("0.01", 3000, "0.2"),
    ] {
        let c = Class {
            epsilon: q(e0),
            delta: q("0"),
            count: Integer::from(k),
        };
        let got = optimal_composition_delta(&[c], &q(e), Precision::Auto).unwrap();
        common::check(&got, &reference(&q(e0), &q("0"), k, &q(e)), 1e-20, e0);
    }
}
