//! Change detectors (never the oracle): tables of every theorem's enclosures with both
//! endpoints' exact bits (hexadecimal) and the precision. Every row is also checked, in the
//! same test, against a reference computed independently of the crate (plain MPFR at 1024
//! bits straight from the formula, in `tests/common`); each table says which:
//!
//! | table | reference |
//! |---|---|
//! | gaussian_delta | Corollary 8 at 1024 bits (`common::gaussian_delta`), 1e-12 relative |
//! | gaussian_inverse | Corollary 8 at 1024 bits evaluated at both ends of the bracket (δ(lo) ≥ δ ≥ δ(hi)); widths 1e-15 (ε) and 1e-12 (σ) as documented |
//! | zcdp | closed forms at 1024 bits; the optimised forms against a 1024-bit golden-section minimum over t (≥ it, within 1e-6) and against the exact δ/ε of the Gaussian with that ρ (a ρ-zCDP mechanism: never below it) |
//! | composition | Theorem 18 / 22 and the Laplace scales at 1024 bits |
//! | discrete_pld | k-fold randomized response, exact binomial sum at 1024 bits (`common::rr_delta`) |
//! | optimal_composition | `common::rr_delta` (δ, 1e-9) and at both ends of the ε bracket |
//! | subsampling_rdp | the amplification formulas at 1024 bits; MTZ19 binomial sums / 1024-bit quadrature for the RDP rows; CKS20's conversion at the order used |
//! | dpsgd_pld | q = 1 row against the exact Gaussian composition (Corollary 10 at 1024 bits at both ends); every row's lower end ≤ the RDP bound (an independent sound upper bound of the same ε), width ≤ 1 % |
mod common;
use common::{check, check_root_bracket, f, golden_min, rational, typed, REF};
use dpcert::num::Precision;
use dpcert::theorems::{approx, gaussian, pld, zcdp};
use rug::{Float, Integer, Rational};
use serde_json::{json, Value};

fn bits(e: &impl common::Formula) -> Value {
    let e = e.enclosure();
    json!({
        "lower": e.lower().to_float().to_string_radix(16, None),
        "upper": e.upper().to_float().to_string_radix(16, None),
        "lower_decimal": e.lower().to_decimal(),
        "upper_decimal": e.upper().to_decimal(),
        "precision_bits": e.precision_bits(),
        "arithmetic": e.arithmetic().name(),
    })
}

fn snap(name: &str, v: Value) {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        // text snapshot of pretty JSON: independent of serde_json's number representation
        insta::assert_snapshot!(name, serde_json::to_string_pretty(&v).unwrap());
    });
}

#[test]
fn gaussian_delta_table() {
    let mut rows = vec![];
    for (s, e) in [
        ("0.1", "200"),
        ("0.5", "1"),
        ("1", "0"),
        ("1", "0.5"),
        ("1", "3"),
        ("2", "1"),
        ("4", "0.1"),
        ("10", "0.01"),
        ("0.05", "1000"),
    ] {
        let g = pld::gaussian_pld(&rational(s), &rational("1")).unwrap();
        for p in [Precision::Auto, Precision::Bits(128)] {
            let enc = gaussian::gaussian_delta(&g, &rational(e), p).unwrap();
            check(
                &enc,
                &common::gaussian_delta(&g.rho, &rational(e)),
                1e-12,
                s,
            );
            rows.push(
                json!({"sigma": s, "epsilon": e, "mode": format!("{p:?}"), "delta": bits(&enc)}),
            );
        }
    }
    snap("gaussian_delta", Value::Array(rows));
}

#[test]
fn gaussian_inverse_table() {
    let mut rows = vec![];
    for (s, d) in [("1", "1e-5"), ("0.5", "1e-10"), ("3", "1e-300")] {
        let g = pld::gaussian_pld(&rational(s), &rational("1")).unwrap();
        let enc = gaussian::gaussian_epsilon(&g, &rational(d), Precision::Auto).unwrap();
        let delta_at = |e: &Rational| common::gaussian_delta(&g.rho, e);
        check_root_bracket(
            &enc.lower().to_float(),
            &enc.upper().to_float(),
            delta_at,
            &rational(d),
            1e-15,
            s,
        );
        rows.push(json!({"sigma": s, "delta": d, "epsilon": bits(&enc)}));
    }
    for (e, d, k) in [
        ("1", "1e-5", 1u32),
        ("0.5", "1e-6", 100),
        ("8", "1e-200", 1),
    ] {
        let enc = gaussian::gaussian_sigma(
            &rational(e),
            &rational(d),
            &rational("1"),
            &Integer::from(k),
            Precision::Auto,
        )
        .unwrap();
        // δ at ε for σ: ρ = k/(2σ²), non-increasing in σ
        let delta_at = |sig: &Rational| {
            let rho = Rational::from(k) / (Rational::from(sig * sig) * 2u32);
            common::gaussian_delta(&rho, &rational(e))
        };
        check_root_bracket(
            &enc.lower().to_float(),
            &enc.upper().to_float(),
            delta_at,
            &rational(d),
            1e-12,
            e,
        );
        rows.push(json!({"epsilon": e, "delta": d, "k": k, "sigma": bits(&enc)}));
    }
    snap("gaussian_inverse", Value::Array(rows));
}

#[test]
fn zcdp_table() {
    let mut rows = vec![];
    for (r, e, d) in [
        ("0.125", "1", "1e-5"),
        ("0.5", "2", "1e-10"),
        ("1", "5", "1e-300"),
        ("0.001", "0.1", "1e-6"),
    ] {
        let (r, e, d) = (rational(r), rational(e), rational(d));
        let p = Precision::Auto;
        zcdp_row_references(&r, &e, &d);
        rows.push(json!({
            "rho": r.to_string(), "epsilon": e.to_string(), "delta": d.to_string(),
            "delta_optimised": bits(&zcdp::zcdp_delta(&r, &e, p).unwrap()),
            "delta_closed": if e >= r { bits(&zcdp::zcdp_delta_closed_form(&r, &e, p).unwrap()) } else { Value::Null },
            "epsilon_optimised": bits(&zcdp::zcdp_epsilon(&r, &d, p).unwrap()),
            "epsilon_closed": bits(&zcdp::zcdp_epsilon_closed_form(&r, &d, p).unwrap()),
            "rho_sufficient": bits(&zcdp::zcdp_rho_sufficient(&e, &d, p).unwrap()),
            "rho_exact": bits(&zcdp::zcdp_rho_exact(&e, &d, p).unwrap()),
            "sigma": bits(&zcdp::gaussian_sigma_zcdp(&e, &d, &rational("1"), p).unwrap()),
        }));
    }
    snap("zcdp", Value::Array(rows));
}

/// The zCDP row's values against their formulas at 1024 bits, and the optimised forms against a
/// golden-section minimum over t and against the Gaussian with that ρ.
fn zcdp_row_references(r: &Rational, e: &Rational, d: &Rational) {
    let p = Precision::Auto;
    let (rf, ef, l) = (f(r), f(e), common::ln_inv(d));
    let one = Float::with_val(REF, 1);
    if e >= r {
        let gap = Float::with_val(REF, &ef - &rf);
        let closed =
            (-(Float::with_val(REF, &gap * &gap) / (Float::with_val(REF, &rf * 4u32)))).exp();
        check(
            &zcdp::zcdp_delta_closed_form(r, e, p).unwrap(),
            &closed,
            1e-12,
            "δ closed form",
        );
    }
    let eps_closed = Float::with_val(REF, &rf + Float::with_val(REF, &rf * &l).sqrt() * 2u32);
    check(
        &zcdp::zcdp_epsilon_closed_form(r, d, p).unwrap(),
        &eps_closed,
        1e-12,
        "ε closed form",
    );
    let suff = Float::with_val(REF, &ef * &ef)
        / (Float::with_val(REF, &l * 4u32) + Float::with_val(REF, &ef * 4u32));
    check(
        &zcdp::zcdp_rho_sufficient(e, d, p).unwrap(),
        &suff,
        1e-12,
        "sufficient ρ",
    );
    let le = Float::with_val(REF, &l + &ef);
    let exact_rho = Float::with_val(REF, le.clone().sqrt() - l.clone().sqrt()).square();
    check(
        &zcdp::zcdp_rho_exact(e, d, p).unwrap(),
        &exact_rho,
        1e-9,
        "exact-inverse ρ",
    );
    let sigma = Float::with_val(REF, Float::with_val(REF, &le * 2u32).sqrt() / &ef);
    check(
        &zcdp::gaussian_sigma_zcdp(e, d, &rational("1"), p).unwrap(),
        &sigma,
        1e-12,
        "Gaussian σ",
    );
    // optimised δ: ln δ_t = t(t+1)ρ − εt − t ln(1 + 1/t) − ln(1 + t), minimised over u = ln t
    let ln_delta_t = |u: &Float| {
        let t = Float::with_val(REF, u.exp_ref());
        let t1 = Float::with_val(REF, &t + 1u32);
        Float::with_val(REF, &t * &t1) * &rf
            - Float::with_val(REF, &ef * &t)
            - Float::with_val(
                REF,
                &t * Float::with_val(REF, Float::with_val(REF, 1u32 / &t).ln_1p()),
            )
            - t1.ln()
    };
    let best = golden_min(ln_delta_t, -40.0, 60.0).exp().min(&one).clone();
    let got = zcdp::zcdp_delta(r, e, p).unwrap();
    let up = got.upper().to_float();
    assert!(
        up >= best && up <= Float::with_val(REF, &best * (1.0 + 1e-6)),
        "optimised δ {up} vs min_t {best}"
    );
    assert!(
        up >= common::gaussian_delta(r, e),
        "optimised δ below the Gaussian's exact δ"
    );
    // optimised ε: ε_t = (t+1)ρ + (L − t ln(1 + 1/t) − ln(1 + t))/t
    let eps_t = |u: &Float| {
        let t = Float::with_val(REF, u.exp_ref());
        let t1 = Float::with_val(REF, &t + 1u32);
        let num = Float::with_val(
            REF,
            &l - Float::with_val(
                REF,
                &t * Float::with_val(REF, Float::with_val(REF, 1u32 / &t).ln_1p()),
            ),
        ) - Float::with_val(REF, t1.ln_ref());
        Float::with_val(REF, &t1 * &rf) + num / &t
    };
    let best = golden_min(eps_t, -40.0, 60.0)
        .max(&Float::with_val(REF, 0))
        .clone();
    let got = zcdp::zcdp_epsilon(r, d, p).unwrap();
    let up = got.upper().to_float();
    assert!(
        up >= best && up <= Float::with_val(REF, &best * (1.0 + 1e-6)),
        "optimised ε {up} vs min_t {best}"
    );
    let at = up.to_rational().unwrap();
    assert!(
        common::gaussian_delta(r, &at) <= *d,
        "optimised ε below the Gaussian's exact ε"
    );
}

#[test]
fn composition_table() {
    let mut rows = vec![];
    for (e0, k, d) in [
        ("0.1", 100u32, "1e-6"),
        ("0.01", 10000, "1e-9"),
        ("1", 10, "1e-5"),
    ] {
        let adv = zcdp::advanced_composition(
            &[(rational(e0), Integer::from(k))],
            &rational(d),
            Precision::Auto,
        )
        .unwrap();
        let mechs = vec![(rational(e0), rational("1e-13"), Integer::from(k.min(1000)))];
        let thm22 =
            approx::approx_advanced_composition(&mechs, &rational(d), Precision::Auto).unwrap();
        let (basic, adv_scale) = zcdp::laplace_scales(
            &Integer::from(k),
            &rational("1"),
            &rational(d),
            Precision::Auto,
        )
        .unwrap();
        let l = common::ln_inv(&rational(d));
        let s2 = Float::with_val(REF, f(&rational(e0)).square() * k);
        let adv_ref = |s2: &Float, l: &Float| {
            Float::with_val(REF, s2 / 2u32)
                + Float::with_val(REF, Float::with_val(REF, s2 * l) * 2u32).sqrt()
        };
        check(&adv, &adv_ref(&s2, &l), 1e-12, "Theorem 18");
        let k22 = k.min(1000);
        let slack = rational(d) - rational("1e-13") * Rational::from(k22);
        let s22 = Float::with_val(REF, f(&rational(e0)).square() * k22);
        let thm22_ref = adv_ref(&s22, &common::ln_inv(&slack))
            .min(&Float::with_val(REF, f(&rational(e0)) * k22))
            .clone();
        check(&thm22, &thm22_ref, 1e-12, "Theorem 22");
        check(&basic, &Float::with_val(REF, k), 1e-15, "Laplace k/ε");
        let rho = Float::with_val(REF, 1u32) / (Float::with_val(REF, &l * 4u32) + 4u32);
        check(
            &adv_scale,
            &Float::with_val(REF, Float::with_val(REF, k) / (rho * 2u32)).sqrt(),
            1e-12,
            "Laplace √(k/2ρ)",
        );
        rows.push(json!({"epsilon0": e0, "k": k, "delta": d, "theorem18": bits(&adv), "theorem22": bits(&thm22),
            "laplace_basic": bits(&basic), "laplace_advanced": bits(&adv_scale)}));
    }
    snap("composition", Value::Array(rows));
}

#[test]
fn discrete_pld_table() {
    let mut rows = vec![];
    for (e0, k, e) in [("0.5", 10u32, "1"), ("0.1", 200, "2"), ("2", 3, "0")] {
        let d = pld::Pld::Discrete(
            pld::DiscretePld::randomized_response(&rational(e0), &Integer::from(k)).unwrap(),
        );
        let (ex, ta, it) = (
            pld::hockey_stick_expectation(&d, &rational(e), Precision::Bits(128)).unwrap(),
            pld::hockey_stick_tails(&d, &rational(e), Precision::Bits(128)).unwrap(),
            pld::hockey_stick_integral(&d, &rational(e), 1, Precision::Bits(128)).unwrap(),
        );
        let reference = common::rr_delta(&rational(e0), &rational("0"), k, &rational(e));
        for (enc, name) in [(&ex, "expectation"), (&ta, "tails"), (&it, "integral")] {
            check(enc, &reference, 1e-12, name);
        }
        rows.push(json!({"epsilon0": e0, "k": k, "epsilon": e,
            "expectation": bits(&ex), "tails": bits(&ta), "integral": bits(&it)}));
    }
    snap("discrete_pld", Value::Array(rows));
}

#[test]
fn optimal_composition_table() {
    use dpcert::theorems::optimal::{
        optimal_composition_delta, optimal_composition_epsilon, Class,
    };
    let mut rows = vec![];
    for (e0, d0, k, e, d) in [
        ("0.1", "0", 100u32, "1", "1e-6"),
        ("1", "1e-7", 10, "5", "1e-5"),
        ("0.01", "0", 10000, "0.5", "1e-9"),
    ] {
        let c = [Class {
            epsilon: rational(e0),
            delta: rational(d0),
            count: Integer::from(k),
        }];
        let delta = optimal_composition_delta(&c, &rational(e), Precision::Auto).unwrap();
        check(
            &delta,
            &common::rr_delta(&rational(e0), &rational(d0), k, &rational(e)),
            1e-9,
            "optimal δ",
        );
        let eps = optimal_composition_epsilon(&c, &rational(d), Precision::Auto).unwrap();
        let delta_at = |x: &Rational| common::rr_delta(&rational(e0), &rational(d0), k, x);
        check_root_bracket(
            &eps.lower().to_float(),
            &eps.upper().to_float(),
            delta_at,
            &rational(d),
            1e-9,
            "optimal ε",
        );
        rows.push(json!({"epsilon0": e0, "delta0": d0, "k": k,
            "delta_at": e, "delta": bits(&delta), "epsilon_at": d, "epsilon": bits(&eps)}));
    }
    snap("optimal_composition", Value::Array(rows));
}

#[test]
fn subsampling_and_rdp_table() {
    use dpcert::theorems::{rdp, subsample};
    let mut rows = vec![];
    for (e, d, r) in [
        ("1", "1e-6", "0.1"),
        ("0.5", "0", "256/60000"),
        ("8", "1e-9", "0.5"),
    ] {
        let (e, d, r) = (rational(e), rational(d), rational(r));
        let a = subsample::poisson_subsampling(&e, &d, &r, Precision::Auto).unwrap();
        let b = subsample::poisson_substitution_subsampling(&e, &d, &r, Precision::Auto).unwrap();
        let (ef, rf) = (f(&e), f(&r));
        let up = Float::with_val(REF, &rf * Float::with_val(REF, ef.exp_m1_ref())).ln_1p();
        check(&a.epsilon, &up, 1e-12, "Poisson ε'");
        check(
            &a.delta,
            &Float::with_val(REF, &rf * f(&d)),
            1e-30,
            "Poisson δ'",
        );
        let keep = Float::with_val(REF, 1u32 - rf.clone());
        let num = Float::with_val(
            REF,
            &keep + Float::with_val(REF, &rf * Float::with_val(REF, ef.exp_ref())),
        );
        let den = Float::with_val(
            REF,
            &keep + Float::with_val(REF, &rf * Float::with_val(REF, (-ef.clone()).exp())),
        );
        let e_sub = Float::with_val(REF, num / den).ln();
        check(&b.epsilon, &e_sub, 1e-12, "Poisson substitution ε'");
        let d_sub =
            Float::with_val(REF, &rf * f(&d)) * (Float::with_val(REF, &e_sub - &ef).exp() + 1u32);
        if d > 0 {
            check(
                &b.delta,
                &d_sub.min(&Float::with_val(REF, 1)).clone(),
                1e-12,
                "Poisson substitution δ'",
            );
        }
        rows.push(json!({"epsilon": e.to_string(), "delta": d.to_string(), "rate": r.to_string(),
            "poisson": [bits(&a.epsilon), bits(&a.delta)], "poisson_substitution": [bits(&b.epsilon), bits(&b.delta)]}));
    }
    for (r, s, t, a) in [
        ("256/60000", "1.1", 14063u32, "8"),
        ("256/60000", "1.1", 14063, "8317/1024"),
        ("0.01", "4", 10000, "33"),
    ] {
        let enc = rdp::subsampled_gaussian_rdp(
            &rational(r),
            &rational(s),
            &Integer::from(t),
            &rational(a),
            Precision::Auto,
        )
        .unwrap();
        let alpha = rational(a);
        let ln_a = if *alpha.denom() == 1 {
            common::sgm_log_a(&rational(r), &rational(s), alpha.numer().to_u32().unwrap())
        } else {
            common::sgm_log_a_frac(&rational(r), &rational(s), &alpha)
        };
        check(&enc, &(ln_a * t / (f(&alpha) - 1u32)), 1e-6, "RDP row");
        rows.push(json!({"rate": r, "sigma": s, "steps": t, "order": a, "rdp": bits(&enc)}));
    }
    let (e, a) = rdp::dpsgd_rdp_epsilon(
        &typed::rate(&rational("256/60000")),
        &typed::sigma(&rational("1.1")),
        &typed::steps(&Integer::from(14063)),
        &typed::delta(&rational("1e-5")),
        Precision::Auto,
    )
    .unwrap();
    // CKS20 at the order used: ε = (T ln A_α + ln(1/δ) + (α−1) ln(1 − 1/α) − ln α)/(α − 1)
    let (af, a1) = (f(&a), f(&a) - 1u32);
    let ln_a = if *a.denom() == 1 {
        common::sgm_log_a(
            &rational("256/60000"),
            &rational("1.1"),
            a.numer().to_u32().unwrap(),
        )
    } else {
        common::sgm_log_a_frac(&rational("256/60000"), &rational("1.1"), &a)
    };
    let inv = Float::with_val(REF, -(Float::with_val(REF, 1u32 / &af))).ln_1p();
    let eps_ref =
        (ln_a * 14063u32 + common::ln_inv(&rational("1e-5")) + Float::with_val(REF, &a1 * inv)
            - Float::with_val(REF, af.ln_ref()))
            / &a1;
    check(&e, &eps_ref, 1e-6, "DP-SGD RDP conversion");
    rows.push(json!({"dpsgd_mnist_epsilon": bits(&e), "order": a.to_string()}));
    snap("subsampling_rdp", Value::Array(rows));
}

#[test]
fn dpsgd_pld_table() {
    use dpcert::theorems::{pld_accountant, rdp};
    let mut rows = vec![];
    for (r, s, t, d) in [
        ("1", "20", 10u32, "1e-5"),
        ("256/60000", "1.1", 14063u32, "1e-5"),
        ("0.01", "1", 1000, "1e-5"),
        ("0.05", "0.8", 200, "1e-6"),
        ("0.1", "4", 500, "1e-5"),
        ("0.01", "2", 1500, "1e-15"),
    ] {
        let (qr, sg, steps, dl) = (rational(r), rational(s), Integer::from(t), rational(d));
        let opts = pld_accountant::PldOptions::default();
        let p = pld_accountant::dpsgd_pld_epsilon(
            &typed::rate(&qr),
            &typed::sigma(&sg),
            &typed::steps(&steps),
            &typed::delta(&dl),
            &opts,
        )
        .unwrap();
        // containment in the independent RDP route's bound, and a two-sided bracket
        let (rdp_bound, _) = rdp::dpsgd_rdp_epsilon(
            &typed::rate(&qr),
            &typed::sigma(&sg),
            &typed::steps(&steps),
            &typed::delta(&dl),
            Precision::Auto,
        )
        .unwrap();
        let (lo, hi) = (
            p.enclosure.lower().to_float(),
            p.enclosure.upper().to_float(),
        );
        assert!(
            lo <= rdp_bound.upper().to_float(),
            "{r}: PLD lower end above the RDP bound"
        );
        assert!(
            Float::with_val(REF, &hi - &lo) <= Float::with_val(REF, &hi * 1e-2),
            "{r}: wider than 1 %"
        );
        if r == "1" {
            // q = 1: T Gaussian steps, ρ = T/(2σ²) (Corollary 10); the bracket holds ε*
            let rho = Rational::from(t) / (Rational::from(&sg * &sg) * 2u32);
            let delta_at = |e: &Rational| common::gaussian_delta(&rho, e);
            check_root_bracket(&lo, &hi, delta_at, &dl, 1e-2, "q = 1");
        }
        rows.push(json!({
            "rate": r, "sigma": s, "steps": t, "delta": d,
            "grid": p.grid.to_string(), "tail": p.tail.to_string(), "fixed_point_bits": p.fixed_bits,
            "epsilon": bits(&p.enclosure),
        }));
    }
    snap("dpsgd_pld", Value::Array(rows));
}
