//! Fixed-size (without replacement) DP-SGD under substitution: `fixed_size_gaussian_rdp` against
//! a direct 1024-bit evaluation of Wang–Balle–Kasiviswanathan 2019 Theorem 9's sum (plain
//! terms, no log-sum-exp, no crate code); the PLD route `dpsgd_fixed_size_pld_epsilon` at
//! γ = 1 against Corollary 8 (the Gaussian with sensitivity 2) inverted by bisection, at one
//! step against the one-step pair's hockey-stick closed form inverted by bisection, below the
//! RDP route and above the Poisson substitution pair; bad input on the CLI.
mod common;
use common::{f, rational, typed, REF};
use dpcert::num::Precision;
use dpcert::theorems::fixed_size::*;
use dpcert::theorems::pld_accountant::{
    dpsgd_fixed_size_pld_epsilon, dpsgd_substitution_pld_epsilon, PldOptions,
};
use dpcert::validated::{Delta, Rate, Sigma, Steps};
use proptest::prelude::*;
use rug::{Float, Integer, Rational};

/// Theorem 9 for the Gaussian with sensitivity 2 (ε(j) = 2j/σ², ε(∞) = ∞), one step, at
/// integer α, straight from the statement:
/// ln(1 + γ²C(α,2)·min{4(e^{ε(2)}−1), e^{ε(2)}·2} + Σ_{j≥3} γ^j C(α,j) e^{(j−1)ε(j)}·2)/(α−1),
/// then min with the unsampled Gaussian's 2α/σ², times T.
fn theorem9(gamma: &Rational, sigma: &Rational, alpha: u32, steps: u32) -> Float {
    let g = f(gamma);
    let s2 = f(&Rational::from(sigma * sigma));
    let eps = |j: u32| Float::with_val(REF, 2 * j) / &s2;
    let e2 = eps(2);
    let m2 = {
        let a = Float::with_val(REF, e2.exp_m1_ref()) * 4u32;
        let b = Float::with_val(REF, e2.exp_ref()) * 2u32;
        if a < b {
            a
        } else {
            b
        }
    };
    let mut sum = Float::with_val(REF, 1);
    let binom = |j: u32| Float::with_val(REF, &Integer::from(Integer::binomial_u(alpha, j)));
    sum += Float::with_val(REF, g.clone().square_ref()) * binom(2) * &m2;
    for j in 3..=alpha {
        let pow = Float::with_val(REF, rug::ops::Pow::pow(&g, j));
        let ex = Float::with_val(REF, &eps(j) * (j - 1)).exp();
        sum += pow * binom(j) * ex * 2u32;
    }
    let thm = sum.ln() / (alpha - 1);
    // the unsampled Gaussian's T·2α/σ² from the exact rational: when it is representable (γ = 1,
    // σ = 3/10, α = 9 gives exactly 200·T) the reference is exact, as the enclosure may be
    let gauss = Rational::from(2 * alpha) / Rational::from(sigma * sigma);
    if thm < Float::with_val(REF, &gauss) {
        thm * steps
    } else {
        Float::with_val(REF, gauss * steps)
    }
}

/// (a) containment: the reference lies in our enclosure, and the enclosure is within 1e-10
/// relative of it (so +∞ or a bound on the wrong side fails).
#[test]
fn rdp_matches_theorem_nine_sum() {
    let cases = [
        ("256/60000", "1.1", 2u32, 1u32),
        ("256/60000", "1.1", 8, 14063),
        ("1/100", "2", 32, 1000),
        ("1/2", "3", 5, 1),
        ("3/4", "0.7", 12, 7),
        ("1/1000", "0.5", 64, 1),
        ("1", "1.5", 6, 3),
    ];
    for (gs, ss, alpha, t) in cases {
        let e = fixed_size_gaussian_rdp(
            &rational(gs),
            &rational(ss),
            &Integer::from(t),
            alpha,
            Precision::Auto,
        )
        .unwrap();
        let r = theorem9(&rational(gs), &rational(ss), alpha, t);
        let (lo, hi) = (e.lower().to_float(), e.upper().to_float());
        assert!(
            lo <= r && r <= hi,
            "γ={gs} σ={ss} α={alpha}: {r} ∉ [{lo}, {hi}]"
        );
        let rel = Float::with_val(REF, &hi - &r) / &r;
        assert!(
            rel < 1e-10,
            "γ={gs} σ={ss} α={alpha}: upper {hi} vs ref {r}, rel {rel}"
        );
    }
}

#[test]
fn rdp_rejects_bad_orders_and_rates() {
    let one = Integer::from(1);
    for (g, a) in [("0", 2u32), ("5/4", 2), ("1/2", 1), ("1/2", 20001)] {
        assert!(
            fixed_size_gaussian_rdp(&rational(g), &rational("1"), &one, a, Precision::Auto)
                .is_err()
        );
    }
}

fn bracket(gs: &str, ss: &str, t: u32, ds: &str) -> (Float, Float) {
    let r = dpsgd_fixed_size_pld_epsilon(
        &Rate::new("rate", rational(gs)).unwrap(),
        &Sigma::new("sigma", rational(ss)).unwrap(),
        &Steps::new("steps", Integer::from(t)).unwrap(),
        &Delta::new("delta", rational(ds)).unwrap(),
        &PldOptions::default(),
    )
    .unwrap();
    (
        r.enclosure.lower().to_float(),
        r.enclosure.upper().to_float(),
    )
}

/// (b) γ = 1 (B = N): every step is the Gaussian with sensitivity 2, so T steps are exactly
/// Corollary 8 with ρ = 2T/σ²; ε* must lie in the PLD bracket, which is at most 10⁻⁴ wide
/// relative here (measured ≤ 6.8·10⁻⁵: at γ = 1 the dominating pair is the realised one), and
/// the RDP upper end (the Gaussian's own RDP conversion) lies within 10 % of ε*.
#[test]
fn full_batch_is_the_gaussian_with_sensitivity_two() {
    for (ss, t, ds) in [("2", 1u32, "1e-5"), ("4", 10, "1e-6"), ("10", 100, "1e-8")] {
        let rho = Rational::from(2 * t) / (rational(ss) * rational(ss));
        let exact = common::gaussian_epsilon_star(&rho, &rational(ds));
        let (lo, hi) = bracket("1", ss, t, ds);
        assert!(
            lo <= exact && exact <= hi,
            "σ={ss} T={t}: ε*={exact} ∉ [{lo}, {hi}]"
        );
        let width = Float::with_val(REF, &hi - &lo) / &exact;
        assert!(width < 1e-4, "σ={ss} T={t}: [{lo}, {hi}] {width} wide");
        let (rdp, _) = dpsgd_fixed_size_rdp_epsilon(
            &Rate::new("rate", rational("1")).unwrap(),
            &Sigma::new("sigma", rational(ss)).unwrap(),
            &Steps::new("steps", Integer::from(t)).unwrap(),
            &Delta::new("delta", rational(ds)).unwrap(),
            Precision::Auto,
        )
        .unwrap();
        let rdp = rdp.upper().to_float();
        assert!(
            exact <= rdp && rdp < Float::with_val(REF, &exact * 1.1f64),
            "σ={ss}: RDP upper {rdp} vs ε* {exact}"
        );
    }
}

/// ε(δ) of one step of the remove pair (γN(2,σ²) + (1−γ)N(0,σ²) ‖ N(0,σ²)) at 1024 bits:
/// δ(ε) = P[x > x_ε] − e^ε·Q[x > x_ε] with the plain threshold
/// x_ε = (σ/2)²·ln((e^ε − 1 + γ)/γ) + ½ in units of the shift 2 (noise σ/2), Φ by erfc,
/// inverted by 200 bisection steps on [0, 60].
fn one_step_epsilon(gamma: &Rational, sigma: &Rational, delta: &Rational) -> Float {
    let (g, s) = (f(gamma), Float::with_val(REF, f(sigma) / 2u32));
    let delta_at = |e: &Float| {
        let ee = Float::with_val(REF, e.exp_ref());
        let inner = Float::with_val(REF, Float::with_val(REF, &ee - 1u32) + &g) / &g;
        let x = Float::with_val(REF, Float::with_val(REF, &s * &s) * inner.ln()) + 0.5f64;
        let q0 = common::phi(&Float::with_val(REF, Float::with_val(REF, -&x) / &s));
        let q1 = common::phi(&Float::with_val(REF, (1u32 - x) / &s));
        let p = Float::with_val(REF, Float::with_val(REF, 1u32 - &g) * &q0)
            + Float::with_val(REF, &g * q1);
        p - ee * q0
    };
    let (mut lo, mut hi) = (Float::with_val(REF, 0u32), Float::with_val(REF, 60u32));
    let d = f(delta);
    for _ in 0..200 {
        let mid = Float::with_val(REF, Float::with_val(REF, &lo + &hi) / 2u32);
        if delta_at(&mid) > d {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// (b′) one step, γ < 1: for ε ≥ 0 the dominating pair's hockey stick is the realised remove
/// pair's, so both ends discretise the same curve: the 1024-bit closed form must lie in the
/// bracket, at most 10⁻⁵ wide relative (measured ≤ 1.3·10⁻⁶).
#[test]
fn one_step_is_the_remove_pair_at_sensitivity_two() {
    for (gs, ss, ds) in [
        ("1/100", "1", "1e-3"),
        ("1/10", "2", "1e-5"),
        ("1/2", "3", "1e-6"),
    ] {
        let exact = one_step_epsilon(&rational(gs), &rational(ss), &rational(ds));
        let (lo, hi) = bracket(gs, ss, 1, ds);
        assert!(
            lo <= exact && exact <= hi,
            "γ={gs} σ={ss}: ε*={exact} ∉ [{lo}, {hi}]"
        );
        let width = Float::with_val(REF, &hi - &lo) / &exact;
        assert!(width < 1e-5, "γ={gs} σ={ss}: [{lo}, {hi}] {width} wide");
    }
}

/// (c) the bracket is consistent with the other routes: its lower end is at least the Poisson
/// substitution pair's (a fixed-size run realises that pair too, and the sensitivity-2 pair is
/// worse), its upper end is not above the RDP route's (an independent theorem), and both ends
/// move the right way with σ.
#[test]
fn bracket_consistent_and_monotone() {
    let (gs, t, ds) = ("1/100", 200u32, "1e-5");
    let mut last: Option<(Float, Float)> = None;
    for ss in ["0.8", "1.1", "2"] {
        let (lo, hi) = bracket(gs, ss, t, ds);
        assert!(lo <= hi && lo > 0, "σ={ss}: [{lo}, {hi}]");
        let (rdp, _) = dpsgd_fixed_size_rdp_epsilon(
            &Rate::new("rate", rational(gs)).unwrap(),
            &Sigma::new("sigma", rational(ss)).unwrap(),
            &Steps::new("steps", Integer::from(t)).unwrap(),
            &Delta::new("delta", rational(ds)).unwrap(),
            Precision::Auto,
        )
        .unwrap();
        let rdp = rdp.upper().to_float();
        assert!(
            hi <= rdp,
            "σ={ss}: PLD upper {hi} above the RDP upper {rdp}"
        );
        let p = dpsgd_substitution_pld_epsilon(
            &typed::rate(&rational(gs)),
            &typed::sigma(&rational(ss)),
            &typed::steps(&Integer::from(t)),
            &typed::delta(&rational(ds)),
            &PldOptions::default(),
        )
        .unwrap();
        let plo = p.enclosure.lower().to_float();
        assert!(
            lo >= plo,
            "σ={ss}: fixed-size lower {lo} below the Poisson substitution lower {plo}"
        );
        if let Some((l0, h0)) = &last {
            assert!(hi < *h0 && lo < *l0, "not decreasing in σ at σ={ss}");
        }
        last = Some((lo, hi));
    }
}

/// (d) bad input on the CLI: exit 2, the message names the flag, no number printed.
#[test]
fn cli_bad_input_names_the_flag() {
    let base = [
        "--sigma",
        "1.1",
        "--steps",
        "10",
        "--delta",
        "1e-5",
        "--sampling",
        "fixed-size",
    ];
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec![
                "--batch-size",
                "300",
                "--dataset-size",
                "200",
                "--relation",
                "substitution",
            ],
            "--batch-size",
        ),
        (
            vec![
                "--batch-size",
                "0",
                "--dataset-size",
                "200",
                "--relation",
                "substitution",
            ],
            "--batch-size",
        ),
        (
            vec![
                "--batch-size",
                "10",
                "--dataset-size",
                "200",
                "--relation",
                "add-remove",
            ],
            "--relation",
        ),
        (
            vec!["--batch-size", "10", "--dataset-size", "200"],
            "--relation",
        ),
        (vec!["--rate", "3/2", "--relation", "substitution"], "rate"),
    ];
    for (extra, flag) in cases {
        let mut args = vec!["dpsgd"];
        args.extend(base);
        args.extend(extra.iter());
        let (code, out, err) = common::run(&args);
        assert_eq!(code, 2, "{args:?}: {out} {err}");
        assert!(
            err.contains(flag),
            "{args:?}: stderr does not name {flag}: {err}"
        );
        assert!(out.trim().is_empty(), "{args:?}: printed {out}");
    }
    let mut cal = vec![
        "calibrate",
        "dpsgd",
        "--target-epsilon",
        "3",
        "--delta",
        "1e-5",
    ];
    cal.extend([
        "--batch-size",
        "10",
        "--dataset-size",
        "200",
        "--steps",
        "10",
    ]);
    cal.extend(["--sampling", "fixed-size", "--relation", "add-remove"]);
    let (code, _, err) = common::run(&cal);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("relation"), "{err}");
}

/// The CLI prints the same bracket the library certifies (fixed-size, substitution).
#[test]
fn cli_matches_library() {
    let (code, out, err) = common::run(&[
        "dpsgd",
        "--batch-size",
        "100",
        "--dataset-size",
        "10000",
        "--sigma",
        "1.5",
        "--steps",
        "100",
        "--delta",
        "1e-5",
        "--sampling",
        "fixed-size",
        "--relation",
        "substitution",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (lo, hi) = bracket("1/100", "1.5", 100, "1e-5");
    let r = &v["result"];
    assert_eq!(r["value"]["kind"], "two-sided", "{r}");
    assert_eq!(r["details"]["sampling"], "fixed-size", "{r}");
    let parse = |k: &str| {
        let s = r["value"][k].as_str().unwrap();
        Float::with_val(REF, Float::parse(s).unwrap())
    };
    let (plo, phi) = (parse("lower"), parse("upper"));
    // printed outward: lower rounded down, upper rounded up, and close to the library's
    assert!(
        plo <= lo && phi >= hi,
        "printed [{plo}, {phi}] vs [{lo}, {hi}]"
    );
    assert!(Float::with_val(REF, &lo - &plo) < 1e-15 && Float::with_val(REF, &phi - &hi) < 1e-15);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// (a) at random exact points: B of N with B ≤ N ≤ 10⁵, σ ∈ [0.3, 30], α ∈ [2, 48],
    /// T ∈ [1, 10⁴]: the 1024-bit sum lies in the enclosure, upper within 10⁻¹⁰ relative.
    #[test]
    fn rdp_contains_reference_at_random_points(
        n in 1u32..100_000, b_frac in 0.0f64..1.0, sigma in common::rational_in(0.3, 30.0),
        alpha in 2u32..=48, t in 1u32..10_000,
    ) {
        prop_assume!(sigma > 0);
        let b = ((f64::from(n) * b_frac).ceil() as u32).clamp(1, n);
        let gamma = Rational::from((b, n));
        let e = fixed_size_gaussian_rdp(&gamma, &sigma, &Integer::from(t), alpha, Precision::Auto).unwrap();
        let r = theorem9(&gamma, &sigma, alpha, t);
        let (lo, hi) = (e.lower().to_float(), e.upper().to_float());
        prop_assert!(lo <= r && r <= hi, "γ={} σ={} α={alpha}: {} ∉ [{}, {}]", gamma, sigma, r, lo, hi);
        let rel = Float::with_val(REF, &hi - &r) / &r;
        prop_assert!(rel < 1e-10, "rel {}", rel);
    }
}

/// Proposition 14's general form at order α, 1024 bits, from a (composed) RDP value ε(α):
/// ε = ε(α) + (ln(1/δ) + (α−1)ln(1 − 1/α) − ln α)/(α − 1).
fn prop14(rdp: &Float, alpha: u32, delta: &Rational) -> Float {
    let a = Float::with_val(REF, alpha);
    let a1 = Float::with_val(REF, alpha - 1);
    let inv = Float::with_val(REF, 1u32) / &a;
    let tail = -f(delta).ln() + Float::with_val(REF, -inv).ln_1p() * &a1 - a.ln();
    Float::with_val(REF, rdp + tail / a1)
}

/// The upper end is Proposition 14 at the reported order applied to the reference RDP (so the
/// conversion is checked too), and the float search's order is within 10⁻³ relative of the best
/// integer order in [2, 256] by the reference (the search costs tightness, never soundness).
#[test]
fn upper_end_is_conversion_at_a_near_best_order() {
    for (gs, ss, t, ds) in [
        ("256/60000", "1.1", 14063u32, "1e-5"),
        ("1/100", "2", 1000, "1e-6"),
        ("1/10", "5", 50, "1e-5"),
    ] {
        let (g, s, d) = (rational(gs), rational(ss), rational(ds));
        let (e, order) = dpsgd_fixed_size_rdp_epsilon(
            &Rate::new("rate", g.clone()).unwrap(),
            &Sigma::new("sigma", s.clone()).unwrap(),
            &Steps::new("steps", Integer::from(t)).unwrap(),
            &Delta::new("delta", d.clone()).unwrap(),
            Precision::Auto,
        )
        .unwrap();
        let at = prop14(&theorem9(&g, &s, order, t), order, &d);
        let hi = e.upper().to_float();
        let rel = Float::with_val(REF, &hi - &at) / &at;
        assert!(
            hi >= at && rel < 1e-10,
            "{gs} σ={ss}: upper {hi} vs reference {at} at α={order}"
        );
        let best = (2..=256u32)
            .map(|a| prop14(&theorem9(&g, &s, a, t), a, &d))
            .min_by(|x, y| x.partial_cmp(y).unwrap())
            .unwrap();
        assert!(
            hi <= Float::with_val(REF, &best * (1.0 + 1e-3f64)),
            "{gs} σ={ss}: {hi} vs best {best}"
        );
    }
}

/// (e) calibration of σ for fixed-size batches (PLD route, one-sided on its upper end): the
/// answer's certified ε is at most the target; the RDP route needs a larger σ (the PLD route is
/// the tighter one); and the exact optimum is within 10 % below it — at 0.9σ the realised pair
/// (the Poisson remove pair at 0.45σ, by the add/remove accountant) already exceeds the target.
#[test]
fn calibrated_sigma_is_feasible_and_near_the_optimum() {
    use dpcert::calibrate::{calibrate, Method, Parameter, Run};
    use dpcert::dpsgd::{Relation, Sampling};
    use dpcert::theorems::pld_accountant::dpsgd_pld_epsilon;
    let (target, delta) = (rational("2"), rational("1e-5"));
    let mut run = Run::checked(rational("1/100"), rational("1"), Integer::from(100)).unwrap();
    run.sampling = Sampling::FixedSize;
    run.relation = Relation::Substitution;
    let c = calibrate(&run, Parameter::Sigma, &target, &delta).unwrap();
    let sigma = Rational::from(&*c.feasible.run.sigma);
    let up = dpsgd_fixed_size_pld_epsilon(
        &run.rate,
        &Sigma::new("sigma", sigma.clone()).unwrap(),
        &run.steps,
        &Delta::new("delta", delta.clone()).unwrap(),
        &PldOptions::default(),
    )
    .unwrap();
    assert!(
        up.enclosure.upper().to_float() <= f(&target),
        "σ = {sigma}: certified ε {} above the target",
        up.enclosure
    );
    run.method = Method::Rdp;
    let r = calibrate(&run, Parameter::Sigma, &target, &delta).unwrap();
    assert!(
        *r.feasible.run.sigma > sigma,
        "RDP σ {} not above the PLD σ {sigma}",
        r.feasible.run.sigma
    );
    let below = &sigma * Rational::from((9, 20)); // 0.9σ/2
    let realised = dpsgd_pld_epsilon(
        &typed::rate(&run.rate),
        &typed::sigma(&below),
        &typed::steps(&run.steps),
        &typed::delta(&delta),
        &PldOptions::default(),
    )
    .unwrap();
    assert!(
        realised.enclosure.lower().to_float() > f(&target),
        "at 0.9σ the realised pair gives {} (not above the target)",
        realised.enclosure
    );
}

/// (f) a float library's value below a realised pair's ε is judged unsound: dp_accounting
/// 0.6.0's `RdpAccountant(REPLACE_ONE)` on `SampledWithoutReplacementDpEvent(10000, 100,
/// GaussianDpEvent(1))` × 100 at δ = 10⁻⁵ answers 1.482525669114427 (measured; it takes the
/// replace-one sensitivity as 1), while datasets exist whose run has ε ≥ 6.47 (the remove pair
/// at σ/2); a value above the upper end is sound.
#[test]
fn check_judges_a_sensitivity_one_value_unsound() {
    let query = r#"["dpsgd","--batch-size","100","--dataset-size","10000","--sigma","1","--steps","100","--delta","1e-5","--sampling","fixed-size","--relation","substitution"]"#;
    let records = format!(
        r#"[{{"query": {query}, "value": "1.482525669114427"}}, {{"query": {query}, "value": "6.7"}}]"#
    );
    let (code, verdicts, out, err) = common::check_verdicts("fixed-check", &records);
    assert_eq!(code, 1, "{out} {err}");
    assert_eq!(verdicts, ["unsound", "sound"], "{out}");
}
