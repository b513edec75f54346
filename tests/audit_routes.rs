//! The audit's routes one by one (every `applies` refusal names the mechanism in the way) and
//! the claim decision against references independent of the audit: Corollary 8 at 1024 bits
//! (`common::gaussian_delta`) and the optimal composition of (ε, δ)-RR at 1024 bits
//! (`common::rr_delta`).
mod common;
use common::rational;
use dpcert::audit::{audit, Ledger, RouteId, Verdict, ROUTES};
use dpcert::deploy::Deployment;
use dpcert::event::Event;
use rug::{Float, Rational};

fn ledger(events: Vec<Event>) -> Ledger {
    Ledger::from_event(&Event::Composed(events)).unwrap()
}

fn route(id: RouteId) -> &'static dyn dpcert::audit::Route {
    *ROUTES.iter().find(|r| r.id() == id).unwrap()
}

/// `route` refuses the ledger with a reason containing every needle; `ok` ledgers it accepts.
fn refuses(id: RouteId, l: &Ledger, needles: &[&str]) {
    let why = route(id).applies(l).expect_err(id.name());
    for n in needles {
        assert!(why.0.contains(n), "{}: {why}", id.name());
    }
}

#[test]
fn every_refusal_names_its_reason() {
    let g = || Event::gaussian(2).unwrap().named("g");
    let lap = || Event::laplace(3).unwrap().named("lap");
    let bx = || Event::epsilon_delta(1, "1e-6").unwrap().named("box");
    let z = || Event::zcdp("0.1").unwrap().named("z");
    let sgd = || {
        Event::gaussian(1)
            .unwrap()
            .poisson_sampled("0.01")
            .unwrap()
            .self_composed(10)
            .unwrap()
            .named("sgd")
    };
    let zero = || Event::pure(0).unwrap().named("zero");
    use RouteId::*;
    refuses(
        ExactGaussian,
        &ledger(vec![g(), lap()]),
        &["`lap`", "not a Gaussian"],
    );
    refuses(Zcdp, &ledger(vec![g(), bx()]), &["`box`", "no zCDP"]);
    refuses(Zcdp, &ledger(vec![zero()]), &["ρ = 0"]);
    refuses(Optimal, &ledger(vec![bx(), g()]), &["`g`", "(ε, δ)"]);
    refuses(
        GaussianSplit,
        &ledger(vec![bx(), lap()]),
        &["no Gaussian or zCDP"],
    );
    refuses(GaussianSplit, &ledger(vec![g(), z()]), &["nothing but"]);
    refuses(
        GaussianSplit,
        &ledger(vec![g(), sgd()]),
        &["`sgd`", "(ε, δ)"],
    );
    refuses(
        Pld,
        &ledger(vec![g(), z()]),
        &["`z`", "privacy loss distribution"],
    );
    refuses(Rdp, &ledger(vec![g(), lap()]), &["no subsampled Gaussian"]);
    refuses(Rdp, &ledger(vec![sgd(), bx()]), &["`box`", "Rényi"]);
    refuses(Basic, &ledger(vec![lap(), z()]), &["`z`", "(ε, δ)"]);
    refuses(Advanced, &ledger(vec![sgd()]), &["`sgd`", "(ε, δ)"]);
    refuses(Advanced, &ledger(vec![zero()]), &["Σεⱼ² = 0"]);
    // a substitution run (one example replaced): only the substitution route applies
    let sub = || {
        Event::gaussian(1)
            .unwrap()
            .fixed_size_sampled(1, 100)
            .unwrap()
            .self_composed(10)
            .unwrap()
            .named("sub")
    };
    for id in [
        ExactGaussian,
        Zcdp,
        Optimal,
        GaussianSplit,
        Pld,
        Rdp,
        Basic,
        Advanced,
    ] {
        refuses(
            id,
            &ledger(vec![sub()]),
            &["`sub`", "substitution neighbours"],
        );
    }
    refuses(Substitution, &ledger(vec![g()]), &["substitution"]);
    refuses(Substitution, &ledger(vec![sgd()]), &["substitution"]);
    // and each applies where it should
    for (id, l) in [
        (ExactGaussian, ledger(vec![g(), g()])),
        (Zcdp, ledger(vec![g(), z(), lap()])),
        (Optimal, ledger(vec![bx(), lap()])),
        (GaussianSplit, ledger(vec![g(), bx()])),
        (Pld, ledger(vec![g(), sgd(), bx(), lap()])),
        (Rdp, ledger(vec![sgd(), z(), lap()])),
        (Basic, ledger(vec![bx(), zero()])),
        (Advanced, ledger(vec![bx(), lap()])),
        (Substitution, ledger(vec![sub()])),
    ] {
        assert_eq!(route(id).applies(&l), Ok(()), "{}", id.name());
    }
    // the report lists the refused routes with their reasons
    let d = Deployment::new(Event::Composed(vec![g(), z()]))
        .at_delta("1e-6")
        .unwrap();
    let r = audit(&d).unwrap();
    let refused: Vec<RouteId> = r.not_applicable.iter().map(|(id, _)| *id).collect();
    assert_eq!(
        refused,
        [
            ExactGaussian,
            Optimal,
            GaussianSplit,
            Pld,
            Rdp,
            Basic,
            Advanced,
            Substitution
        ]
    );
    assert_eq!(r.routes.len(), 1);
    assert_eq!(r.routes[0].id, Zcdp);
}

/// δ_c a relative 1e-9 above / below the exact δ(ε_c), and δ_c equal to a 1024-bit value of it.
fn claims(reference: &Float) -> [(Rational, Verdict); 3] {
    let r = reference.to_rational().unwrap();
    let up = &r * Rational::from((1_000_000_001, 1_000_000_000));
    let down = &r * Rational::from((999_999_999, 1_000_000_000));
    [
        (up, Verdict::Holds),
        (down, Verdict::Fails),
        (r, Verdict::Undecided),
    ]
}

/// Gaussians: the verdict against Corollary 8 at 1024 bits, with the claim at the budget ε
/// (the budget query's answers are reused) and at another ε (each route's δ at ε_c).
#[test]
fn gaussian_claims_against_corollary_8() {
    // 3 × σ = 2 and 2 × σ = 3 (Δ = 1): ρ = 3/8 + 2/18
    let rho = Rational::from((3, 8)) + Rational::from((1, 9));
    let ce = rational("1.5");
    let reference = common::gaussian_delta(&rho, &ce);
    for budget in ["1.5", "0.5"] {
        for (cd, verdict) in claims(&reference) {
            let event = Event::Composed(vec![
                Event::gaussian(2).unwrap().self_composed(3).unwrap(),
                Event::gaussian(3).unwrap().self_composed(2).unwrap(),
            ]);
            let d = Deployment::new(event)
                .at_epsilon(budget)
                .unwrap()
                .with_claim(ce.clone(), cd)
                .unwrap();
            let r = audit(&d).unwrap();
            assert_eq!(r.verdict(), Some(verdict), "budget ε = {budget}");
            let c = r.claim.as_ref().unwrap();
            // the deciding bracket contains the reference and is tight (1e-12 relative)
            let a = c.delta_at_claim.as_ref().unwrap();
            let (lo, hi) = (a.lower().unwrap().to_float(), a.upper().to_float());
            assert!(lo <= reference && reference <= hi, "{lo} {reference} {hi}");
            assert!(hi <= Float::with_val(1024, &reference * (1.0 + 1e-12)));
            assert!(lo >= Float::with_val(1024, &reference * (1.0 - 1e-12)));
        }
    }
}

/// (ε₀, δ₀)-DP black boxes: the verdict against the optimal composition of (ε₀, δ₀)-RR at
/// 1024 bits (their worst case, Corollary 24).
#[test]
fn black_box_claims_against_optimal_composition() {
    let (e0, d0, k) = (rational("0.3"), rational("1e-7"), 6u32);
    let ce = rational("1");
    let reference = common::rr_delta(&e0, &d0, k, &ce);
    for (cd, verdict) in claims(&reference) {
        let event = Event::epsilon_delta(e0.clone(), d0.clone())
            .unwrap()
            .self_composed(k)
            .unwrap();
        let d = Deployment::new(event)
            .at_delta("1e-5")
            .unwrap()
            .with_claim(ce.clone(), cd)
            .unwrap();
        let r = audit(&d).unwrap();
        assert_eq!(r.verdict(), Some(verdict));
        let a = r.claim.as_ref().unwrap().delta_at_claim.clone().unwrap();
        assert!(a.upper().to_float() >= reference);
        if verdict == Verdict::Fails {
            assert!(a.lower().unwrap().to_float() <= reference);
        }
    }
}

/// Only upper bounds (a zCDP black box): a claim above the bound is verified, one below it is
/// undecided (never refuted); no claim is `None`; the exit codes follow `dpcert::exit`.
#[test]
fn upper_bounds_verify_but_never_refute() {
    // ρ = 1/2 at ε = 3: Proposition 14 at t = 2 is a valid upper bound (reference by formula)
    let rho = rational("0.5");
    let bound = common::zcdp_delta_at(&rho, &rational("3"), &rational("2"));
    let base = || {
        Deployment::new(Event::zcdp("0.5").unwrap())
            .at_epsilon(3)
            .unwrap()
    };
    let above = Rational::from(&bound.to_rational().unwrap() * 2u32);
    let r = audit(&base().with_claim(3, above).unwrap()).unwrap();
    assert_eq!(r.verdict(), Some(Verdict::Holds));
    assert!(r.best_delta.as_ref().unwrap().1.upper().to_float() <= bound);
    let r = audit(&base().with_claim(3, "1e-30").unwrap()).unwrap();
    assert_eq!(r.verdict(), Some(Verdict::Undecided));
    let r = audit(&base()).unwrap();
    assert_eq!(r.verdict(), None);
    assert_eq!(Verdict::Fails.exit_code(), dpcert::exit::REFUTED);
    assert_eq!(Verdict::Undecided.exit_code(), dpcert::exit::UNDECIDED);
    assert_eq!(Verdict::Holds.exit_code(), dpcert::exit::OK);
    assert_eq!(dpcert::audit::exit_code(None), dpcert::exit::OK);
}

/// The `result` object: every key present, quantities as `json::quantity`, mechanisms'
/// parameters as exact strings; the text report's verdict sentence and digits option.
#[test]
fn result_json_and_text() {
    let d = Deployment::load(std::path::Path::new("examples/weekly-health-benefits.toml")).unwrap();
    let r = audit(&d).unwrap();
    let v = r.result_json();
    for key in [
        "mechanisms",
        "budget",
        "epsilon",
        "epsilon_route",
        "delta",
        "delta_route",
        "routes",
        "not_applicable",
        "claim",
        "verdict",
        "summary",
        "notes",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(
        v["mechanisms"][0],
        serde_json::json!({"name": "pre-natal benefit count", "type": "gaussian", "sigma": "8", "sensitivity": "1", "count": "52"})
    );
    assert_eq!(
        v["budget"],
        serde_json::json!({"delta": "1e-6", "epsilon": "2"})
    );
    assert_eq!(v["epsilon"]["kind"], "two-sided");
    assert_eq!(v["epsilon_route"], "exact_gaussian");
    assert_eq!(v["verdict"], "refuted");
    assert_eq!(v["claim"]["route"], "exact_gaussian");
    for route in v["routes"].as_array().unwrap() {
        for q in [&route["epsilon"], &route["delta"]] {
            assert!(q["upper"].is_string() && q.get("lower").is_some() && q["kind"].is_string());
        }
    }
    let sentence = r.summary(8).unwrap();
    assert!(
        sentence.ends_with("— refuted") && sentence.contains("claimed 2"),
        "{sentence}"
    );
    let short = format!("{r}");
    let long = format!("{r:.20}");
    assert!(short.contains("In short:") && long.len() > short.len());
}
