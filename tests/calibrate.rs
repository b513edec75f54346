//! Certified calibration (`dpcert::calibrate`): every answer is checked against a reference
//! computed here, independently of the crate — Corollary 8/10 at 1024 bits inverted by
//! bisection where the run is a Gaussian composition (q = 1, shuffled epochs), and direct
//! re-evaluations by the accountant plus the RDP route on the MNIST setting.
mod common;
use common::{f, rational, typed, REF};
use dpcert::calibrate::{
    calibrate, evaluate, gap, steps_from_epochs, value, Calibration, Method, Parameter, Run,
};
use dpcert::dpsgd::{Relation, Sampling};
use dpcert::theorems::pld_accountant::{dpsgd_pld_epsilon, PldOptions};
use dpcert::theorems::rdp::dpsgd_rdp_epsilon;
use dpcert::Precision;
use rug::{Float, Integer, Rational};

/// Corollary 8 at a Float ε (1024 bits): Φ((ρ − ε)/√(2ρ)) − e^ε Φ((−ρ − ε)/√(2ρ)).
fn gauss_delta(rho: &Float, eps: &Float) -> Float {
    let s = Float::with_val(REF, rho * 2u32).sqrt();
    let a = Float::with_val(REF, rho - eps) / &s;
    let b = Float::with_val(REF, -rho.clone() - eps) / &s;
    common::phi(&a) - Float::with_val(REF, eps.exp_ref()) * common::phi(&b)
}

/// Is the Gaussian composition with ρ (ε, δ)-DP? (1024-bit Corollary 8; the margin 2⁻⁹⁰⁰ is
/// far below any certified width, so a decision here is never a rounding artefact.)
fn gauss_ok(rho: &Float, eps: &Rational, delta: &Rational) -> bool {
    gauss_delta(rho, &f(eps)) <= f(delta)
}

/// σ* = min{σ : ρ = c/σ² is (ε, δ)-DP} by bisection in σ (δ(ε) decreases as σ grows).
fn sigma_star(c: &Rational, eps: &Rational, delta: &Rational) -> Float {
    let rho = |s: &Float| Float::with_val(REF, f(c) / Float::with_val(REF, s * s));
    let (mut a, mut b) = (Float::with_val(REF, 1e-3), Float::with_val(REF, 1e4));
    for _ in 0..200 {
        let m = Float::with_val(REF, &a + &b) / 2u32;
        if gauss_ok(&rho(&m), eps, delta) {
            b = m;
        } else {
            a = m;
        }
    }
    b
}

fn sigma_of(c: &Calibration) -> Rational {
    value(&c.feasible.run, Parameter::Sigma)
}

fn infeasible_sigma(c: &Calibration) -> Rational {
    value(
        &c.infeasible
            .as_ref()
            .expect("a two-sided route certifies infeasibility")
            .run,
        Parameter::Sigma,
    )
}

/// The shape every two-sided calibration must have: certified feasible upper ≤ target,
/// infeasible lower > target, the two points exactly a relative 10⁻³ apart (σ).
fn check_sigma_certificates(c: &Calibration, target: &Rational) {
    assert!(*c.feasible.epsilon.upper().as_float() <= *target);
    let inf = c.infeasible.as_ref().unwrap();
    assert!(*inf.epsilon.lower().unwrap().as_float() > *target);
    assert_eq!(infeasible_sigma(c), sigma_of(c) * (1 - gap()));
}

/// MNIST (q = 256/60000, 60 epochs → T = 14063, δ = 10⁻⁵, ε ≤ 3): the calibrated σ is
/// feasible and σ(1 − 10⁻³) infeasible; re-evaluating the accountant directly at both points
/// reproduces the certificates; the RDP route (an upper bound on the true ε) is never below the
/// PLD lower bound at either point.
#[test]
fn mnist_sigma_is_certified_within_a_thousandth() {
    let (rate, steps) =
        steps_from_epochs(&rational("60"), &Integer::from(256), &Integer::from(60000)).unwrap();
    let (rate, steps) = (rate.into_inner(), steps.into_inner());
    assert_eq!(
        (rate.clone(), steps.clone()),
        (rational("256/60000"), Integer::from(14063))
    );
    let (target, delta) = (rational("3"), rational("1e-5"));
    let run = Run::checked(rate.clone(), rational("1"), steps.clone()).unwrap();
    let c = calibrate(&run, Parameter::Sigma, &target, &delta).unwrap();
    check_sigma_certificates(&c, &target);
    let opts = PldOptions {
        grid: c.feasible.grid.clone(),
        ..PldOptions::default()
    };
    let (sf, si) = (sigma_of(&c), infeasible_sigma(&c));
    let at_f = dpsgd_pld_epsilon(
        &typed::rate(&rate),
        &typed::sigma(&sf),
        &typed::steps(&steps),
        &typed::delta(&delta),
        &opts,
    )
    .unwrap();
    assert!(
        *at_f.enclosure.upper().as_float() <= target,
        "direct PLD at σ_f: {}",
        at_f.enclosure
    );
    let at_i = dpsgd_pld_epsilon(
        &typed::rate(&rate),
        &typed::sigma(&si),
        &typed::steps(&steps),
        &typed::delta(&delta),
        &opts,
    )
    .unwrap();
    assert!(
        *at_i.enclosure.lower().as_float() > target,
        "direct PLD at σ_i: {}",
        at_i.enclosure
    );
    for (s, pld) in [(&sf, &at_f), (&si, &at_i)] {
        let (rdp, _) = dpsgd_rdp_epsilon(
            &typed::rate(&rate),
            &typed::sigma(s),
            &typed::steps(&steps),
            &typed::delta(&delta),
            Precision::Auto,
        )
        .unwrap();
        assert!(rdp.upper().as_float() >= pld.enclosure.lower().as_float());
    }
    // the answer sits where the float accountants put it (σ ≈ 0.9688), to the gap
    assert!(
        sf > rational("0.96") && sf < rational("0.98"),
        "σ = {}",
        sf.to_f64()
    );
}

/// q = 1: DP-SGD is the Gaussian composition with ρ = T/(2σ²); the calibrated bracket
/// (σ_i, σ_f] contains the 1024-bit σ* of Corollary 10, so σ_f is within 10⁻³ of optimal.
#[test]
fn q_one_sigma_brackets_corollary_10() {
    for (t, eps, delta) in [(10u32, "1", "1e-5"), (100, "2", "1e-6"), (3, "0.5", "1e-3")] {
        let run = Run::checked(rational("1"), rational("1"), Integer::from(t)).unwrap();
        let c = calibrate(&run, Parameter::Sigma, &rational(eps), &rational(delta)).unwrap();
        check_sigma_certificates(&c, &rational(eps));
        let star = sigma_star(&Rational::from((t, 2)), &rational(eps), &rational(delta));
        assert!(
            f(&infeasible_sigma(&c)) < star && star <= f(&sigma_of(&c)),
            "T = {t}: σ* = {} outside ({}, {}]",
            star.to_f64(),
            infeasible_sigma(&c).to_f64(),
            sigma_of(&c).to_f64()
        );
    }
}

/// q = 1, largest T: T_f meets the target and T_i (> T_f) does not, by the 1024-bit
/// reference at both integers (ρ = T/(2σ²)).
#[test]
fn q_one_steps_bracket_corollary_10() {
    let (sigma, eps, delta) = (rational("5"), rational("2"), rational("1e-5"));
    let run = Run::checked(rational("1"), sigma.clone(), Integer::from(1)).unwrap();
    let c = calibrate(&run, Parameter::Steps, &eps, &delta).unwrap();
    let tf = (*c.feasible.run.steps).clone();
    let ti = (*c.infeasible.as_ref().unwrap().run.steps).clone();
    assert!(ti > tf);
    let rho = |t: &Integer| f(&(Rational::from(t) / (Rational::from(&sigma * &sigma) * 2u32)));
    assert!(
        gauss_ok(&rho(&tf), &eps, &delta),
        "T_f = {tf} is not feasible"
    );
    assert!(!gauss_ok(&rho(&ti), &eps, &delta), "T_i = {ti} is feasible");
    // within the gap: T_i ≤ max(T_f + 1, T_f·(1 + 10⁻³))
    assert!(ti <= Rational::from(&tf + 1u32).max(Rational::from(&tf) * (1 + gap())));
}

/// Shuffled epochs: σ from the exact inversion; the bracket contains the 1024-bit σ* for
/// ρ = k·Δ²/(2σ²), Δ = 1 (add/remove) or 2 (substitution), k = ⌈epochs⌉; the two σ are
/// 6-digit decimals (relative gap ≤ 2·10⁻⁵).
#[test]
fn shuffled_sigma_brackets_corollary_10() {
    for (relation, sens) in [(Relation::AddRemove, 1u32), (Relation::Substitution, 2)] {
        let mut run =
            Run::checked(rational("256/60000"), rational("1"), Integer::from(14063)).unwrap();
        run.sampling = Sampling::Shuffled;
        run.relation = relation;
        run.epochs = Some(rational("60"));
        let c = calibrate(&run, Parameter::Sigma, &rational("3"), &rational("1e-5")).unwrap();
        // an upper-bound route: no infeasibility certificate for shuffled batches, only the
        // point where the bound exceeds the target
        assert!(c.infeasible.is_none(), "{relation:?}");
        let star = sigma_star(
            &Rational::from(60 * sens * sens / 2),
            &rational("3"),
            &rational("1e-5"),
        );
        let over = c
            .bound_exceeds
            .as_ref()
            .expect("the bound exceeds the target below");
        let (si, sf) = (value(&over.run, Parameter::Sigma), sigma_of(&c));
        assert!(
            f(&si) < star && star <= f(&sf),
            "{relation:?}: σ* = {}",
            star.to_f64()
        );
        assert!(Rational::from(&sf - &si) <= (&sf * rational("2e-5")));
    }
}

/// The RDP route is one-sided: no infeasibility certificate, but the RDP bound itself exceeds
/// the target a gap below; and its σ is never below the PLD route's infeasible σ (RDP ≥ the
/// true ε, so a σ the RDP route certifies is truly feasible).
#[test]
fn rdp_calibration_is_one_sided_and_above_the_pld_bracket() {
    let mut run = Run::checked(rational("0.01"), rational("1"), Integer::from(1000)).unwrap();
    run.method = Method::Rdp;
    let (target, delta) = (rational("2"), rational("1e-5"));
    let c = calibrate(&run, Parameter::Sigma, &target, &delta).unwrap();
    assert!(c.infeasible.is_none());
    assert!(*c.feasible.epsilon.upper().as_float() <= target);
    let over = c
        .bound_exceeds
        .as_ref()
        .expect("the RDP bound exceeds the target a gap below");
    assert!(*over.epsilon.upper().as_float() > target);
    run.method = Method::Pld;
    let p = calibrate(&run, Parameter::Sigma, &target, &delta).unwrap();
    assert!(sigma_of(&c) > infeasible_sigma(&p));
}

/// Bad input never yields a number: each error names the problem.
#[test]
fn bad_input_is_refused_naming_the_argument() {
    let run = Run::checked(rational("0.01"), rational("1"), Integer::from(100)).unwrap();
    let name = |r: dpcert::Result<Calibration>| match r {
        Err(dpcert::Error::InvalidArgument { name, .. }) => name,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(
        name(calibrate(
            &run,
            Parameter::Sigma,
            &rational("0"),
            &rational("1e-5")
        )),
        "target-epsilon"
    );
    assert_eq!(
        name(calibrate(
            &run,
            Parameter::Sigma,
            &rational("-1"),
            &rational("1e-5")
        )),
        "target-epsilon"
    );
    assert_eq!(
        name(calibrate(
            &run,
            Parameter::Sigma,
            &rational("1"),
            &rational("1")
        )),
        "delta"
    );
    assert_eq!(
        name(calibrate(
            &run,
            Parameter::Sigma,
            &rational("1"),
            &rational("0")
        )),
        "delta"
    );
    // ε ≤ 10⁻³ over 100 steps at q = 0.01, δ = 10⁻¹⁰ needs σ far beyond 10⁶? no: out of reach
    // is tested where it is certain: one step of q = 1, σ = 1 already exceeds ε = 10⁻³
    let one = Run::checked(rational("1"), rational("1"), Integer::from(1)).unwrap();
    assert_eq!(
        name(calibrate(
            &one,
            Parameter::Steps,
            &rational("1e-3"),
            &rational("1e-5")
        )),
        "target-epsilon"
    );
    let e = |b: u32, n: u32, ep: &str| {
        steps_from_epochs(&rational(ep), &Integer::from(b), &Integer::from(n))
    };
    assert!(
        matches!(e(300, 200, "1"), Err(dpcert::Error::InvalidArgument { ref name, .. }) if name == "batch-size")
    );
    assert!(
        matches!(e(0, 200, "1"), Err(dpcert::Error::InvalidArgument { ref name, .. }) if name == "batch-size")
    );
    assert!(
        matches!(e(10, 200, "0"), Err(dpcert::Error::InvalidArgument { ref name, .. }) if name == "epochs")
    );
    let mut fixed = run.clone();
    fixed.sampling = Sampling::FixedSize;
    // fixed-size with add/remove stays refused, naming the relation (N changes)
    assert_eq!(fixed.relation, Relation::AddRemove);
    assert_eq!(
        name(calibrate(
            &fixed,
            Parameter::Sigma,
            &rational("1"),
            &rational("1e-5")
        )),
        "relation"
    );
    assert!(evaluate(&fixed, &rational("1e-5"), None).is_err());
}

/// The command line: conflicting or bad flags exit 2 naming the flag; the shuffled calibration
/// prints one dpcert/1 envelope whose feasible σ meets the target by the 1024-bit reference
/// (ρ = 60/(2σ²)) and whose infeasible σ does not; `dpsgd --sampling shuffled` encloses the
/// reference ε of ⌈T/⌊1/q⌋⌉ = 61 Gaussian releases.
#[test]
fn command_line_calibrate_and_shuffled_dpsgd() {
    let base = [
        "calibrate",
        "dpsgd",
        "--target-epsilon",
        "3",
        "--delta",
        "1e-5",
    ];
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        common::run(&a)
    };
    for (extra, flag) in [
        (
            &[
                "--rate",
                "0.01",
                "--batch-size",
                "3",
                "--dataset-size",
                "10",
                "--steps",
                "9",
            ][..],
            "--rate",
        ),
        (
            &["--rate", "0.01", "--steps", "9", "--epochs", "1"][..],
            "--steps",
        ),
        (
            &[
                "--batch-size",
                "300",
                "--dataset-size",
                "200",
                "--steps",
                "9",
            ][..],
            "--batch-size",
        ),
        (
            &[
                "--batch-size",
                "3",
                "--dataset-size",
                "200",
                "--epochs",
                "0",
            ][..],
            "--epochs",
        ),
        (
            &["--rate", "0.01", "--steps", "9", "--sampling", "fixed-size"][..],
            "--relation",
        ),
        (
            &["--rate", "0.01", "--steps", "9", "--sigma", "1"][..],
            "--sigma",
        ),
    ] {
        let (code, out, err) = with(extra);
        assert_eq!(code, 2, "{extra:?}: {out} {err}");
        assert!(err.contains(flag), "{extra:?}: {err}");
    }
    let (code, out, _) = with(&[
        "--batch-size",
        "256",
        "--dataset-size",
        "60000",
        "--epochs",
        "60",
        "--sampling",
        "shuffled",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "dpcert/1");
    valid(&v);
    let r = &v["result"];
    assert_eq!(r["parameter"], "sigma");
    let sig = |s: &serde_json::Value| rational(s.as_str().unwrap());
    let rho = |s: &Rational| f(&(Rational::from(30) / Rational::from(s * s)));
    assert!(gauss_ok(
        &rho(&sig(&r["feasible"]["sigma"])),
        &rational("3"),
        &rational("1e-5")
    ));
    assert!(r["infeasible"].is_null());
    assert!(!gauss_ok(
        &rho(&sig(&r["bound_exceeds"]["sigma"])),
        &rational("3"),
        &rational("1e-5")
    ));
    assert!(r["comparison"]["epsilon"]["upper"].is_string());
    let (code, out, _) = common::run(&[
        "dpsgd",
        "--rate",
        "256/60000",
        "--noise-multiplier",
        "1.1",
        "--steps",
        "14063",
        "--delta",
        "1e-5",
        "--sampling",
        "shuffled",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    valid(&v);
    let e = &v["result"]["value"];
    // reference: ε*(δ) of ρ = 61/(2·1.21) by bisection on the 1024-bit Corollary 8
    let b =
        common::gaussian_epsilon_star(&(Rational::from(61) / rational("2.42")), &rational("1e-5"));
    // an upper bound for shuffled batches (exact only with the assignment revealed)
    assert!(e["lower"].is_null() && e["kind"] == "upper-bound", "{e}");
    let hi = f(&rational(e["upper"].as_str().unwrap()));
    assert!(b <= hi, "{b} above {hi}");
    assert!(Float::with_val(REF, &hi - &b) <= Float::with_val(REF, &b * 1e-12));
    // Poisson + substitution: answered (two-sided, the pair and adjacency named); RDP refused
    let (code, out, err) = common::run(&[
        "dpsgd",
        "--rate",
        "0.01",
        "--sigma",
        "1",
        "--steps",
        "9",
        "--delta",
        "1e-5",
        "--relation",
        "substitution",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    valid(&v);
    assert_eq!(v["result"]["details"]["relation"], "substitution");
    assert!(v["result"]["details"]["pair"]
        .as_str()
        .unwrap()
        .contains("N(−1,σ²)"));
    let (lo, hi) = (
        rational(v["result"]["value"]["lower"].as_str().unwrap()),
        rational(v["result"]["value"]["upper"].as_str().unwrap()),
    );
    assert!(lo > 0 && lo < hi, "[{lo}, {hi}]");
    let (code, _, err) = common::run(&[
        "dpsgd",
        "--rate",
        "0.01",
        "--sigma",
        "1",
        "--steps",
        "9",
        "--delta",
        "1e-5",
        "--relation",
        "substitution",
        "--method",
        "rdp",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("method"), "{err}");
}

/// The shipped schema accepts the envelope.
fn valid(v: &serde_json::Value) {
    let errors = common::schema_errors(&common::schema_validator(), v);
    assert!(errors.is_empty(), "{errors:#?}");
}
