//! The certified PLD accountant against the exact answers that exist: k Gaussians
//! (Corollary 10), k-fold randomized response and (ε, δ) black boxes (optimal composition),
//! one Laplace mechanism (closed form); monotonicity in the grid width; bad input.
mod common;
use common::{f, gaussian_delta, q, rr_delta, REF};
use dpcert::num::Precision;
use dpcert::theorems::{gaussian, pld, pld_accountant::*, rdp};
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

fn term(mechanism: PldMechanism, k: u32) -> PldTerm {
    PldTerm {
        mechanism,
        count: Integer::from(k),
    }
}
fn grid(h: Option<&str>) -> PldOptions {
    PldOptions {
        grid: h.map(q),
        ..Default::default()
    }
}
fn sgm(qr: &str, s: &str, direction: Direction) -> PldMechanism {
    PldMechanism::SubsampledGaussian {
        sigma: q(s),
        rate: q(qr),
        direction,
    }
}

/// lower ≤ exact ≤ upper, and upper − lower ≤ rel·exact.
fn brackets(r: &PldReport, exact: &Float, rel: f64, what: &str) {
    let e = &r.enclosure;
    assert!(
        e.lower().to_float() <= *exact && *exact <= e.upper().to_float(),
        "{what}: exact {} outside [{}, {}]",
        exact.to_string_radix(10, Some(20)),
        e.lower().to_decimal(),
        e.upper().to_decimal()
    );
    let w = Float::with_val(REF, &e.upper().to_float() - &e.lower().to_float());
    assert!(
        w <= Float::with_val(REF, exact * rel),
        "{what}: bracket [{}, {}] wider than {rel} of {}",
        e.lower().to_decimal(),
        e.upper().to_decimal(),
        exact.to_string_radix(10, Some(20))
    );
}

#[test]
fn k_gaussians_bracket_corollary_10() {
    for (rho, k, eps) in [
        ("1/8", 10u32, "1"),
        ("1/200", 1000, "2"),
        ("2", 3, "1/2"),
        ("1/50", 64, "3"),
    ] {
        let r = pld_delta(
            &[term(PldMechanism::Gaussian { rho: q(rho) }, k)],
            &q(eps),
            &grid(None),
        )
        .unwrap();
        let exact = gaussian_delta(&Rational::from(q(rho) * k), &q(eps));
        brackets(&r, &exact, 1e-2, &format!("ρ={rho} k={k} ε={eps}"));
    }
}

#[test]
fn k_gaussians_epsilon_brackets_the_exact_inverse() {
    let (rho, k, d) = ("1/100", 400u32, "1e-6");
    let r = pld_epsilon(
        &[term(PldMechanism::Gaussian { rho: q(rho) }, k)],
        &q(d),
        &grid(None),
    )
    .unwrap();
    let g = pld::GaussianPld {
        rho: Rational::from(q(rho) * k),
    };
    let exact = gaussian::gaussian_epsilon(&g, &q(d), Precision::Bits(256)).unwrap();
    assert!(r.enclosure.lower().to_float() <= exact.lower().to_float() && exact.upper().to_float() <= r.enclosure.upper().to_float());
    brackets(&r, &exact.upper().to_float(), 5e-3, "Gaussian ε(δ)");
}

#[test]
fn k_fold_randomized_response_brackets_optimal_composition() {
    // (ε0, δ0, k, ε): pure and approximate black boxes; the automatic grid divides ε0
    for (e0, d0, k, eps) in [
        ("0.1", "0", 50u32, "0.5"),
        ("0.5", "0.0001", 20, "2"),
        ("1", "0", 7, "1.3"),
    ] {
        let m = if d0 == "0" {
            PldMechanism::RandomizedResponse { eps: q(e0) }
        } else {
            PldMechanism::ApproxDp {
                eps: q(e0),
                delta: q(d0),
            }
        };
        let r = pld_delta(&[term(m, k)], &q(eps), &grid(None)).unwrap();
        let exact = rr_delta(&q(e0), &q(d0), k, &q(eps));
        brackets(
            &r,
            &exact,
            1e-9,
            &format!("RR ε0={e0} δ0={d0} k={k} ε={eps}"),
        );
    }
}

#[test]
fn randomized_response_off_the_grid_still_brackets() {
    // a grid that does not divide ε0 = 0.3: atoms are split (upper) and merged (lower)
    let r = pld_delta(
        &[term(PldMechanism::RandomizedResponse { eps: q("0.3") }, 40)],
        &q("1"),
        &grid(Some("1/1024")),
    )
    .unwrap();
    brackets(
        &r,
        &rr_delta(&q("0.3"), &q("0"), 40, &q("1")),
        0.2,
        "RR off grid",
    );
}

#[test]
fn one_laplace_mechanism_brackets_its_closed_form() {
    // δ(ε) = 1 − e^{−(ε0 − ε)/2} for 0 ≤ ε ≤ ε0
    for (e0, eps, h) in [("1", "0.5", None), ("2", "0.3", Some("0.0007"))] {
        let r = pld_delta(
            &[term(PldMechanism::Laplace { eps: q(e0) }, 1)],
            &q(eps),
            &grid(h),
        )
        .unwrap();
        let exact = 1 - Float::with_val(REF, (f(&q(eps)) - f(&q(e0))) / 2).exp();
        brackets(&r, &exact, 1e-2, &format!("Laplace ε0={e0} ε={eps}"));
    }
}

#[test]
fn upper_bound_falls_and_bracket_narrows_as_the_grid_halves() {
    let t = [term(sgm("0.01", "1", Direction::Remove), 300)];
    let mut prev: Option<PldReport> = None;
    for h in ["1/128", "1/256", "1/512", "1/1024"] {
        let r = pld_delta(&t, &q("1"), &grid(Some(h))).unwrap();
        assert!(r.enclosure.lower().to_float() <= r.enclosure.upper().to_float());
        if let Some(p) = &prev {
            assert!(
                r.enclosure.upper().to_float() <= p.enclosure.upper().to_float(),
                "upper rose at h = {h}"
            );
            let w =
                |x: &PldReport| Float::with_val(64, &x.enclosure.upper().to_float() - &x.enclosure.lower().to_float());
            assert!(w(&r) < w(p), "bracket did not narrow at h = {h}");
            // every bracket contains the finer one's lower bound: they bound the same number
            assert!(r.enclosure.upper().to_float() >= p.enclosure.lower().to_float());
        }
        prev = Some(r);
    }
}

#[test]
fn dpsgd_pld_is_inside_the_rdp_bound_and_two_sided() {
    let (qr, s, t, d) = (q("0.01"), q("1.5"), Integer::from(500), q("1e-5"));
    let r = dpsgd_pld_epsilon(&qr, &s, &t, &d, &PldOptions::default()).unwrap();
    let (rdp_bound, _) = rdp::dpsgd_rdp_epsilon(&qr, &s, &t, &d, Precision::Auto).unwrap();
    let e = &r.enclosure;
    assert!(e.lower().to_float() <= e.upper().to_float() && e.upper().to_float() <= rdp_bound.upper().to_float());
    let w = Float::with_val(64, &e.upper().to_float() - &e.lower().to_float()) / e.upper().to_float().clone();
    assert!(w < 1e-2, "bracket {w}");
}

#[test]
fn both_directions_are_accounted() {
    // the add direction alone, through the general entry point, stays below the DP-SGD upper
    let (d, t) = (q("1e-5"), 200u32);
    let add = pld_epsilon(
        &[term(sgm("0.05", "1", Direction::Add), t)],
        &d,
        &grid(None),
    )
    .unwrap();
    let rem = pld_epsilon(
        &[term(sgm("0.05", "1", Direction::Remove), t)],
        &d,
        &grid(None),
    )
    .unwrap();
    let both = dpsgd_pld_epsilon(
        &q("0.05"),
        &q("1"),
        &Integer::from(t),
        &d,
        &PldOptions::default(),
    )
    .unwrap();
    assert!(both.enclosure.upper().to_float() >= add.enclosure.lower().to_float());
    assert!(both.enclosure.upper().to_float() >= rem.enclosure.lower().to_float());
}

#[test]
fn bad_input_is_an_error_naming_the_problem() {
    let g = |rho: &str, k: u32| term(PldMechanism::Gaussian { rho: q(rho) }, k);
    let err = |r: dpcert::Result<PldReport>| r.unwrap_err().to_string();
    assert!(err(pld_delta(&[g("1", 0)], &q("1"), &grid(None))).contains("count"));
    assert!(err(pld_delta(&[g("-1", 1)], &q("1"), &grid(None))).contains("rho"));
    assert!(err(pld_delta(&[], &q("1"), &grid(None))).contains("terms"));
    assert!(err(pld_delta(&[g("1", 1)], &q("-1"), &grid(None))).contains("epsilon"));
    assert!(err(pld_epsilon(&[g("1", 1)], &q("1"), &grid(None))).contains("delta"));
    assert!(err(pld_epsilon(&[g("1", 1)], &q("0"), &grid(None))).contains("delta"));
    assert!(err(pld_delta(&[g("1", 1)], &q("1"), &grid(Some("0")))).contains("grid"));
    let tail = PldOptions {
        tail: Some(q("0.5")),
        ..Default::default()
    };
    assert!(err(pld_delta(&[g("1", 1)], &q("1"), &tail)).contains("tail"));
    assert!(err(pld_delta(
        &[term(sgm("3/2", "1", Direction::Remove), 1)],
        &q("1"),
        &grid(None)
    ))
    .contains("rate"));
    assert!(err(pld_delta(
        &[term(sgm("1/2", "0", Direction::Add), 1)],
        &q("1"),
        &grid(None)
    ))
    .contains("sigma"));
    let bb = term(
        PldMechanism::ApproxDp {
            eps: q("1"),
            delta: q("1"),
        },
        1,
    );
    assert!(err(pld_delta(&[bb], &q("1"), &grid(None))).contains("delta"));
    // a grid too fine for memory is refused, not attempted
    assert!(err(pld_delta(&[g("1", 1)], &q("1"), &grid(Some("1e-9")))).contains("grid"));
}

#[test]
fn extreme_epsilon_is_answered_not_panicked() {
    // far beyond the support: δ is the mass at +∞ (here that of the (ε, δ0) black box, 1e-6)
    let t = [term(
        PldMechanism::ApproxDp {
            eps: q("1"),
            delta: q("1e-6"),
        },
        3,
    )];
    let r = pld_delta(&t, &q("1e30"), &grid(None)).unwrap();
    let exact = 1 - Float::with_val(REF, 1 - f(&q("1e-6"))).pow(3u32);
    brackets(&r, &exact, 1e-6, "δ at ε = 1e30");
}

#[test]
fn lower_side_survives_an_accumulating_bulk() {
    // σ = 0.3, q = 0.001: the unsampled outputs pile up just below loss 0 (at ln(1 − q)), and
    // only far-away losses could balance them; the lower sweep moves that pool down instead of
    // merging everything into one atom (which once gave the trivial lower bound 0)
    let r = dpsgd_pld_epsilon(
        &q("0.001"),
        &q("0.3"),
        &Integer::from(100),
        &q("1e-6"),
        &PldOptions::default(),
    )
    .unwrap();
    let e = &r.enclosure;
    let w = Float::with_val(64, &e.upper().to_float() - &e.lower().to_float()) / e.upper().to_float().clone();
    assert!(
        e.lower().to_float() > 13 && w < 1e-3,
        "[{}, {}]",
        e.lower().to_decimal(),
        e.upper().to_decimal()
    );
}
