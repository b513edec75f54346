//! f-DP: the best membership-inference attack's TPR at a given FPR.
mod common;
use common::{check, phi, q, REF};
use dpcert::num::Precision;
use dpcert::theorems::gaussian::{gaussian_composition, GaussianMechanism};
use dpcert::theorems::tradeoff::gaussian_tradeoff_tpr;
use rug::{Float, Integer, Rational};

/// Φ⁻¹(α) by Newton's method on Φ (erfc) at 1024 bits, from the f64 estimate −√(2 ln(1/α))
/// region: an algorithm independent of the crate's certified bisection.
fn quantile_ref(alpha: &Rational) -> Float {
    let a = Float::with_val(REF, alpha);
    let two_pi = Float::with_val(REF, rug::float::Constant::Pi) * 2u32;
    let mut z = if *alpha < Rational::from((1, 2)) {
        -Float::with_val(REF, -a.clone().ln() * 2u32).sqrt() + 1u32
    } else {
        Float::with_val(REF, Float::with_val(REF, 1 - a.clone()).ln() * -2i32).sqrt() - 1u32
    };
    for _ in 0..400 {
        let density = Float::with_val(REF, -Float::with_val(REF, &z * &z) / 2u32).exp()
            / Float::with_val(REF, two_pi.sqrt_ref());
        let step = Float::with_val(REF, phi(&z) - &a) / density;
        z -= &step;
        if step.is_zero() || step.clone().abs() < Float::with_val(REF, 1) >> 1000 {
            break;
        }
    }
    z
}

fn pld(sigma: &str, sens: &str, k: u64) -> dpcert::theorems::pld::GaussianPld {
    let m = GaussianMechanism::new(q(sigma), q(sens), Integer::from(k)).unwrap();
    gaussian_composition(&[m]).unwrap()
}

/// TPR = Φ(Φ⁻¹(α) + Δ√K/σ) at 1024 bits: containment and the documented width 2⁻⁶⁴.
#[test]
fn gaussian_tpr_against_newton_reference() {
    for (s, d, k) in [("1", "1", 1u64), ("4", "1", 100), ("1.1", "1", 14063), ("50", "2", 1)] {
        let g = pld(s, d, k);
        let mu = Float::with_val(REF, &q(d)) * Float::with_val(REF, k).sqrt()
            / Float::with_val(REF, &q(s));
        for a in ["1e-300", "1e-10", "0.001", "0.01", "0.1", "0.5", "0.9", "0.999999"] {
            let alpha = q(a);
            let reference = phi(&(quantile_ref(&alpha) + &mu));
            let e = gaussian_tradeoff_tpr(&g, &alpha, Precision::Auto).unwrap();
            check(&e, &reference, 2f64.powi(-64), &format!("TPR σ={s} K={k} α={a}"));
        }
    }
}

/// TPR(0) = 0 and TPR(1) = 1 exactly; bad rates are errors naming "fpr".
#[test]
fn gaussian_tpr_edges_and_errors() {
    let g = pld("1", "1", 1);
    let z = gaussian_tradeoff_tpr(&g, &q("0"), Precision::Auto).unwrap();
    assert!(z.lower().to_float() == 0 && z.upper().to_float() == 0);
    let o = gaussian_tradeoff_tpr(&g, &q("1"), Precision::Auto).unwrap();
    assert!(o.lower().to_float() == 1 && o.upper().to_float() == 1);
    for bad in ["-0.1", "1.5"] {
        let err = gaussian_tradeoff_tpr(&g, &q(bad), Precision::Auto).unwrap_err();
        assert!(err.to_string().contains("fpr"), "{err}");
    }
}

/// A second route: (ε, δ(ε))-DP for every ε gives TPR ≤ e^ε·α + δ(ε) (Corollary 8's exact δ),
/// and the minimum over ε of that bound is the TPR itself (conjugacy); at a fine ε grid the
/// certified TPR upper end lies below every such bound and within 1e-3 relative of their min.
#[test]
fn gaussian_tpr_below_privacy_profile_bounds() {
    use dpcert::theorems::gaussian::gaussian_delta;
    let g = pld("2", "1", 4); // μ = 1
    let alpha = q("0.01");
    let tpr = gaussian_tradeoff_tpr(&g, &alpha, Precision::Auto).unwrap();
    let mut best = Float::with_val(REF, 2);
    for i in 0..=400u32 {
        let eps = Rational::from((i, 100));
        let d = gaussian_delta(&g, &eps, Precision::Auto).unwrap();
        let bound = Float::with_val(REF, &eps).exp() * Float::with_val(REF, &alpha)
            + d.upper().to_float();
        assert!(tpr.upper().to_float() <= bound, "ε = {eps}");
        if bound < best {
            best = bound;
        }
    }
    let slack = Float::with_val(REF, &best * 1e-3);
    assert!(Float::with_val(REF, &best - tpr.upper().as_float()) <= slack);
}
