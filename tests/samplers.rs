//! Samplers and schedules: shuffled epochs without amplification (`shuffled_dpsgd_epsilon`) and
//! DP-SGD in phases (`dpsgd_phases_pld_epsilon`), against references computed here: Corollary 8
//! at 1024 bits (tests/common) inverted by bisection, for the exact Gaussian compositions these
//! reduce to.
mod common;
use common::{rational, typed, REF};
use dpcert::theorems::pld_accountant::{dpsgd_pld_epsilon, PldOptions, PldReport};
use dpcert::theorems::sampling::Relation;
use dpcert::theorems::schedule::{dpsgd_phases_pld_epsilon, Phase};
use dpcert::theorems::shuffle::shuffled_dpsgd_epsilon;
use dpcert::validated::{Delta, Sigma};
use dpcert::Precision;
use rug::{Float, Integer, Rational};

/// Shuffled epochs: ε encloses Corollary 10's ε* for ρ = k·(g·c)²/(2σ²), c = 1 (add/remove) or
/// 2 (substitution), relative width ≤ 10⁻¹²; substitution is strictly worse than add/remove.
#[test]
fn shuffled_epochs_are_the_exact_gaussian_composition() {
    for (sigma, k, g, delta) in [
        ("1.1", 60u32, 1u32, "1e-5"),
        ("10.7715", 60, 1, "1e-5"),
        ("3", 5, 4, "1e-6"),
    ] {
        let mut prev: Option<Float> = None;
        for (rel, c) in [(Relation::AddRemove, 1u32), (Relation::Substitution, 2)] {
            let e = shuffled_dpsgd_epsilon(
                &Sigma::new("sigma", rational(sigma)).unwrap(),
                &Integer::from(k),
                rel,
                &Integer::from(g),
                &Delta::new("delta", rational(delta)).unwrap(),
                Precision::Auto,
            )
            .unwrap();
            let s = rational(sigma);
            let rho = Rational::from(k * (g * c) * (g * c)) / (Rational::from(&s * &s) * 2u32);
            common::check(
                e.formula(),
                &common::gaussian_epsilon_star(&rho, &rational(delta)),
                1e-12,
                &format!("σ = {sigma}, k = {k}, {rel:?}"),
            );
            if let Some(p) = &prev {
                assert!(e.formula().lower().as_float() > p);
            }
            prev = Some(e.upper().to_float());
        }
    }
    assert!(shuffled_dpsgd_epsilon(
        &Sigma::new("sigma", rational("1")).unwrap(),
        &Integer::from(0),
        Relation::AddRemove,
        &Integer::from(1),
        &Delta::new("delta", rational("1e-5")).unwrap(),
        Precision::Auto
    )
    .is_err());
    // σ = 0 and δ = 1 cannot be stated: the types refuse them
    assert!(Sigma::new("sigma", rational("0")).is_err());
    assert!(Delta::new("delta", rational("1")).is_err());
}

fn phase(rate: &str, sigma: &str, steps: u32) -> Phase {
    Phase {
        rate: rational(rate),
        sigma: rational(sigma),
        steps: Integer::from(steps),
    }
}

fn bracket(r: &PldReport) -> (Float, Float) {
    (
        r.enclosure.lower().to_float(),
        r.enclosure.upper().to_float(),
    )
}

/// A run split into phases with equal parameters is the same run: the identical certified
/// bracket as one phase, and as `dpsgd_pld_epsilon` of the whole run.
#[test]
fn equal_phases_give_the_bracket_of_one_run() {
    let d = rational("1e-5");
    let o = PldOptions::default();
    let whole = dpsgd_phases_pld_epsilon(&[phase("0.01", "1.5", 500)], &d, &o).unwrap();
    let split = [
        phase("0.01", "1.5", 200),
        phase("0.01", "1.5", 100),
        phase("0.01", "1.5", 200),
    ];
    let parts = dpsgd_phases_pld_epsilon(&split, &d, &o).unwrap();
    assert_eq!(bracket(&whole), bracket(&parts));
    let direct = dpsgd_pld_epsilon(
        &typed::rate(&rational("0.01")),
        &typed::sigma(&rational("1.5")),
        &typed::steps(&Integer::from(500)),
        &typed::delta(&d),
        &o,
    )
    .unwrap();
    assert_eq!(bracket(&whole), bracket(&direct));
}

/// q = 1 phases with different σ are Gaussian compositions: Corollary 10 with
/// ρ = Σ T_j/(2σ_j²) lies in the bracket, relative width ≤ 10⁻⁴; the order of the phases
/// does not matter (brackets overlap).
#[test]
fn unequal_phases_at_q_one_bracket_corollary_10() {
    let d = rational("1e-5");
    let o = PldOptions::default();
    let ph = [phase("1", "4", 10), phase("1", "2", 3)];
    let r = dpsgd_phases_pld_epsilon(&ph, &d, &o).unwrap();
    let rho = Rational::from(10) / Rational::from(32) + Rational::from(3) / Rational::from(8);
    let star = common::gaussian_epsilon_star(&rho, &d);
    let (lo, hi) = bracket(&r);
    assert!(lo <= star && star <= hi, "ε* = {star} outside [{lo}, {hi}]");
    assert!(Float::with_val(REF, &hi - &lo) <= Float::with_val(REF, &star * 1e-4));
    let swapped = dpsgd_phases_pld_epsilon(&[ph[1].clone(), ph[0].clone()], &d, &o).unwrap();
    let (l2, h2) = bracket(&swapped);
    assert!(l2 <= hi && lo <= h2);
    assert!(dpsgd_phases_pld_epsilon(&[], &d, &o).is_err());
    assert!(dpsgd_phases_pld_epsilon(&[phase("1.5", "1", 1)], &d, &o).is_err());
}
