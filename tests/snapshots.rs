//! Change detectors (never the oracle): tables of every theorem's enclosures with both
//! endpoints' exact bits (hexadecimal) and the precision. Every row is also checked for
//! containment of the 1024-bit reference where one exists, in the same test.
mod common;
use common::{check, q};
use dpcert::num::Precision;
use dpcert::theorems::{approx, gaussian, pld, zcdp};
use dpcert::Enclosure;
use rug::Integer;
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
        let g = pld::gaussian_pld(&q(s), &q("1")).unwrap();
        for p in [Precision::Auto, Precision::Bits(128)] {
            let enc = gaussian::gaussian_delta(&g, &q(e), p).unwrap();
            check(&enc, &common::gaussian_delta(&g.rho, &q(e)), 1e-12, s);
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
        let g = pld::gaussian_pld(&q(s), &q("1")).unwrap();
        rows.push(json!({"sigma": s, "delta": d, "epsilon": bits(&gaussian::gaussian_epsilon(&g, &q(d), Precision::Auto).unwrap())}));
    }
    for (e, d, k) in [
        ("1", "1e-5", 1u32),
        ("0.5", "1e-6", 100),
        ("8", "1e-200", 1),
    ] {
        let enc =
            gaussian::gaussian_sigma(&q(e), &q(d), &q("1"), &Integer::from(k), Precision::Auto)
                .unwrap();
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
        let (r, e, d) = (q(r), q(e), q(d));
        let p = Precision::Auto;
        rows.push(json!({
            "rho": r.to_string(), "epsilon": e.to_string(), "delta": d.to_string(),
            "delta_optimised": bits(&zcdp::zcdp_delta(&r, &e, p).unwrap()),
            "delta_closed": if e >= r { bits(&zcdp::zcdp_delta_closed_form(&r, &e, p).unwrap()) } else { Value::Null },
            "epsilon_optimised": bits(&zcdp::zcdp_epsilon(&r, &d, p).unwrap()),
            "epsilon_closed": bits(&zcdp::zcdp_epsilon_closed_form(&r, &d, p).unwrap()),
            "rho_sufficient": bits(&zcdp::zcdp_rho_sufficient(&e, &d, p).unwrap()),
            "rho_exact": bits(&zcdp::zcdp_rho_exact(&e, &d, p).unwrap()),
            "sigma": bits(&zcdp::gaussian_sigma_zcdp(&e, &d, &q("1"), p).unwrap()),
        }));
    }
    snap("zcdp", Value::Array(rows));
}

#[test]
fn composition_table() {
    let mut rows = vec![];
    for (e0, k, d) in [
        ("0.1", 100u32, "1e-6"),
        ("0.01", 10000, "1e-9"),
        ("1", 10, "1e-5"),
    ] {
        let adv = zcdp::advanced_composition(&[(q(e0), Integer::from(k))], &q(d), Precision::Auto)
            .unwrap();
        let mechs = vec![(q(e0), q("1e-13"), Integer::from(k.min(1000)))];
        let thm22 = approx::approx_advanced_composition(&mechs, &q(d), Precision::Auto).unwrap();
        let (basic, adv_scale) =
            zcdp::laplace_scales(&Integer::from(k), &q("1"), &q(d), Precision::Auto).unwrap();
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
            pld::DiscretePld::randomized_response(&q(e0), &Integer::from(k)).unwrap(),
        );
        rows.push(json!({"epsilon0": e0, "k": k, "epsilon": e,
            "expectation": bits(&pld::hockey_stick_expectation(&d, &q(e), Precision::Bits(128)).unwrap()),
            "tails": bits(&pld::hockey_stick_tails(&d, &q(e), Precision::Bits(128)).unwrap()),
            "integral": bits(&pld::hockey_stick_integral(&d, &q(e), 1, 128).unwrap())}));
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
            epsilon: q(e0),
            delta: q(d0),
            count: Integer::from(k),
        }];
        rows.push(json!({"epsilon0": e0, "delta0": d0, "k": k,
            "delta_at": e, "delta": bits(&optimal_composition_delta(&c, &q(e), Precision::Auto).unwrap()),
            "epsilon_at": d, "epsilon": bits(&optimal_composition_epsilon(&c, &q(d), Precision::Auto).unwrap())}));
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
        let (e, d, r) = (q(e), q(d), q(r));
        let a = subsample::poisson_subsampling(&e, &d, &r, Precision::Auto).unwrap();
        let b = subsample::poisson_substitution_subsampling(&e, &d, &r, Precision::Auto).unwrap();
        rows.push(json!({"epsilon": e.to_string(), "delta": d.to_string(), "rate": r.to_string(),
            "poisson": [bits(&a.epsilon), bits(&a.delta)], "poisson_substitution": [bits(&b.epsilon), bits(&b.delta)]}));
    }
    for (r, s, t, a) in [
        ("256/60000", "1.1", 14063u32, "8"),
        ("256/60000", "1.1", 14063, "8317/1024"),
        ("0.01", "4", 10000, "33"),
    ] {
        let enc =
            rdp::subsampled_gaussian_rdp(&q(r), &q(s), &Integer::from(t), &q(a), Precision::Auto)
                .unwrap();
        rows.push(json!({"rate": r, "sigma": s, "steps": t, "order": a, "rdp": bits(&enc)}));
    }
    let (e, a) = rdp::dpsgd_rdp_epsilon(
        &q("256/60000"),
        &q("1.1"),
        &Integer::from(14063),
        &q("1e-5"),
        Precision::Auto,
    )
    .unwrap();
    rows.push(json!({"dpsgd_mnist_epsilon": bits(&e), "order": a.to_string()}));
    snap("subsampling_rdp", Value::Array(rows));
}

#[test]
fn dpsgd_pld_table() {
    use dpcert::theorems::{pld_accountant, rdp};
    let mut rows = vec![];
    for (r, s, t, d) in [
        ("256/60000", "1.1", 14063u32, "1e-5"),
        ("0.01", "1", 1000, "1e-5"),
        ("0.05", "0.8", 200, "1e-6"),
        ("0.1", "4", 500, "1e-5"),
        ("0.01", "2", 1500, "1e-15"),
    ] {
        let (qr, sg, steps, dl) = (q(r), q(s), Integer::from(t), q(d));
        let opts = pld_accountant::PldOptions::default();
        let p = pld_accountant::dpsgd_pld_epsilon(&qr, &sg, &steps, &dl, &opts).unwrap();
        // containment in the independent RDP route's bound, and a two-sided bracket
        let (rdp_bound, _) =
            rdp::dpsgd_rdp_epsilon(&qr, &sg, &steps, &dl, Precision::Auto).unwrap();
        assert!(
            p.enclosure.lower().to_float() <= p.enclosure.upper().to_float() && p.enclosure.upper().to_float() <= rdp_bound.upper().to_float()
        );
        rows.push(json!({
            "rate": r, "sigma": s, "steps": t, "delta": d,
            "grid": p.grid.to_string(), "tail": p.tail.to_string(), "fixed_point_bits": p.fixed_bits,
            "epsilon": bits(&p.enclosure),
        }));
    }
    snap("dpsgd_pld", Value::Array(rows));
}
