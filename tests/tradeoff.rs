//! f-DP: the best membership-inference attack's TPR at a given FPR.
mod common;
use common::{check, phi, rational, REF};
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
    let m = GaussianMechanism::new(rational(sigma), rational(sens), Integer::from(k)).unwrap();
    gaussian_composition(&[m]).unwrap()
}

/// TPR = Φ(Φ⁻¹(α) + Δ√K/σ) at 1024 bits: containment and the documented width 2⁻⁶⁴.
#[test]
fn gaussian_tpr_against_newton_reference() {
    for (s, d, k) in [
        ("1", "1", 1u64),
        ("4", "1", 100),
        ("1.1", "1", 14063),
        ("50", "2", 1),
    ] {
        let g = pld(s, d, k);
        let mu = Float::with_val(REF, &rational(d)) * Float::with_val(REF, k).sqrt()
            / Float::with_val(REF, &rational(s));
        for a in [
            "1e-300", "1e-10", "0.001", "0.01", "0.1", "0.5", "0.9", "0.999999",
        ] {
            let alpha = rational(a);
            let reference = phi(&(quantile_ref(&alpha) + &mu));
            let e = gaussian_tradeoff_tpr(&g, &alpha, Precision::Auto).unwrap();
            check(
                &e,
                &reference,
                2f64.powi(-64),
                &format!("TPR σ={s} K={k} α={a}"),
            );
        }
    }
}

/// TPR(0) = 0 and TPR(1) = 1 exactly; bad rates are errors naming "fpr".
#[test]
fn gaussian_tpr_edges_and_errors() {
    let g = pld("1", "1", 1);
    let z = gaussian_tradeoff_tpr(&g, &rational("0"), Precision::Auto).unwrap();
    assert!(z.lower().to_float() == 0 && z.upper().to_float() == 0);
    let o = gaussian_tradeoff_tpr(&g, &rational("1"), Precision::Auto).unwrap();
    assert!(o.lower().to_float() == 1 && o.upper().to_float() == 1);
    for bad in ["-0.1", "1.5"] {
        let err = gaussian_tradeoff_tpr(&g, &rational(bad), Precision::Auto).unwrap_err();
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
    let alpha = rational("0.01");
    let tpr = gaussian_tradeoff_tpr(&g, &alpha, Precision::Auto).unwrap();
    let mut best = Float::with_val(REF, 2);
    for i in 0..=400u32 {
        let eps = Rational::from((i, 100));
        let d = gaussian_delta(&g, &eps, Precision::Auto).unwrap();
        let bound =
            Float::with_val(REF, &eps).exp() * Float::with_val(REF, &alpha) + d.upper().to_float();
        assert!(tpr.upper().to_float() <= bound, "ε = {eps}");
        if bound < best {
            best = bound;
        }
    }
    let slack = Float::with_val(REF, &best * 1e-3);
    assert!(Float::with_val(REF, &best - tpr.upper().as_float()) <= slack);
}

/// Φ(x) at 1024 bits for an f64-free Float argument (the common `phi`).
fn bisect_increasing(
    f: impl Fn(&Float) -> Float,
    target: &Float,
    mut lo: Float,
    mut hi: Float,
) -> Float {
    for _ in 0..1100 {
        let mid = Float::with_val(REF, &lo + &hi) / 2u32;
        if f(&mid) < *target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// One step of the Poisson-subsampled Gaussian (T = 1), at 1024 bits, both orders: the
/// likelihood ratio is monotone in the output x, so the Neyman–Pearson tests are thresholds.
/// Remove (H1 = (1−q)N(0,σ²) + qN(1,σ²), H0 = N(0,σ²)): t = −σΦ⁻¹(α),
/// TPR = (1−q)α + qΦ((1−t)/σ). Add (H1 = N(0,σ²), H0 = the mixture): s solves
/// (1−q)Φ(s/σ) + qΦ((s−1)/σ) = α (bisection), TPR = Φ(s/σ). The best attack: the larger.
fn one_step_tpr(qr: &Rational, sigma: &Rational, alpha: &Rational) -> Float {
    let (qf, s, a) = (
        Float::with_val(REF, qr),
        Float::with_val(REF, sigma),
        Float::with_val(REF, alpha),
    );
    let t = -Float::with_val(REF, &s * quantile_ref(alpha));
    let one_q = Float::with_val(REF, 1 - qf.clone());
    let remove = Float::with_val(REF, &one_q * &a)
        + Float::with_val(REF, &qf * phi(&(Float::with_val(REF, 1 - t) / &s)));
    let mix = |x: &Float| {
        Float::with_val(REF, &one_q * phi(&(x.clone() / &s)))
            + Float::with_val(REF, &qf * phi(&(Float::with_val(REF, x - 1u32) / &s)))
    };
    let big = Float::with_val(REF, &s * 100u32) + 100u32;
    let sol = bisect_increasing(mix, &a, -big.clone(), big);
    let add = phi(&(sol / &s));
    if remove > add {
        remove
    } else {
        add
    }
}

/// DP-SGD's tradeoff bracket (both PLD sides, both directions) against independent closed
/// forms: q = 1 (T steps are a Gaussian with μ = √T/σ) and T = 1 (the one-step threshold tests
/// above). Containment, and relative width ≤ 2·10⁻⁵ at the automatic grid (measured ≤ 7.4·10⁻⁶).
#[test]
fn dpsgd_tpr_against_closed_forms() {
    use dpcert::theorems::pld_accountant::{dpsgd_tradeoff_tpr, PldOptions};
    let alphas: Vec<Rational> = ["0.001", "0.01", "0.1", "0.5"]
        .iter()
        .map(|a| rational(a))
        .collect();
    let opts = PldOptions::default();
    // q = 1, σ = 2, T = 16: μ = 2
    let r = dpsgd_tradeoff_tpr(
        &rational("1"),
        &rational("2"),
        &Integer::from(16),
        &alphas,
        &opts,
    )
    .unwrap();
    for (a, rep) in alphas.iter().zip(&r) {
        let reference = phi(&(quantile_ref(a) + 2u32));
        check(&rep.enclosure, &reference, 2e-5, &format!("q = 1, α = {a}"));
    }
    // T = 1, q = 0.1, σ = 1
    let r = dpsgd_tradeoff_tpr(
        &rational("0.1"),
        &rational("1"),
        &Integer::from(1),
        &alphas,
        &opts,
    )
    .unwrap();
    for (a, rep) in alphas.iter().zip(&r) {
        let reference = one_step_tpr(&rational("0.1"), &rational("1"), a);
        check(&rep.enclosure, &reference, 2e-5, &format!("T = 1, α = {a}"));
    }
}

/// The CLI: `tradeoff gaussian --json` brackets Φ(Φ⁻¹(α) + μ); `check` judges a TPR claim
/// below the bracket unsound (exit 1); a bad `--fpr` exits 2 naming the flag.
#[test]
fn tradeoff_cli_and_check() {
    let (code, out, _) = common::run(&[
        "tradeoff", "gaussian", "--sigma", "1", "--fpr", "0.05", "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"]["quantity"], "tpr");
    let reference = phi(&(quantile_ref(&rational("0.05")) + 1u32));
    let lo = rational(v["result"]["value"]["lower"].as_str().unwrap());
    let hi = rational(v["result"]["value"]["upper"].as_str().unwrap());
    assert!(lo <= reference && reference <= hi);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-fdp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("claims.json");
    std::fs::write(
        &file,
        r#"[{"query": ["tradeoff", "gaussian", "--sigma", "1", "--fpr", "0.05"], "value": "0.25"}]"#,
    )
    .unwrap();
    let (code, out, _) = common::run(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("unsound"), "{out}");
    let (code, _, err) = common::run(&["tradeoff", "gaussian", "--sigma", "1", "--fpr", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--fpr"), "{err}");
}
