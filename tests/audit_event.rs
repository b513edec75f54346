//! The event tree: an audit of an event built in code equals the audit of the equivalent
//! deployment file, and a deployment serialised back to TOML/JSON audits to the same numbers.
mod common;
use dpcert::audit::{audit, Report};
use dpcert::deploy::Deployment;
use dpcert::event::Event;

/// Every route's (name, ε bracket, δ bracket) and the verdict, as exact decimal strings.
fn numbers(r: &Report) -> Vec<String> {
    let show = |a: &Option<dpcert::Certified>| match a {
        Some(a) => format!(
            "[{:?}, {}]",
            a.lower().map(|l| l.to_decimal()),
            a.upper().to_decimal()
        ),
        None => "none".into(),
    };
    let mut v: Vec<String> = r
        .routes
        .iter()
        .map(|x| format!("{}: ε {} δ {}", x.name, show(&x.epsilon), show(&x.delta)))
        .collect();
    v.push(format!("{:?}", r.claim.as_ref().map(|c| &c.verdict)));
    v
}

fn load(p: &str) -> Deployment {
    Deployment::load(std::path::Path::new(p)).unwrap()
}

#[test]
fn event_built_in_code_audits_like_its_file() {
    let weekly = Event::Composed(vec![
        Event::gaussian(8)
            .unwrap()
            .self_composed(52)
            .unwrap()
            .named("pre-natal benefit count"),
        Event::gaussian("8")
            .unwrap()
            .with_sensitivity(1)
            .unwrap()
            .self_composed(52)
            .unwrap()
            .named("cancer-treatment benefit count"),
    ]);
    let d = Deployment::new(weekly)
        .at_delta("1e-6")
        .unwrap()
        .at_epsilon(2)
        .unwrap()
        .with_claim(2, "1e-6")
        .unwrap();
    let file = load("examples/weekly-health-benefits.toml");
    assert_eq!(
        numbers(&audit(&d).unwrap()),
        numbers(&audit(&file).unwrap())
    );

    let mixed = Event::Composed(vec![
        Event::pure("0.5").unwrap(),
        Event::epsilon_delta("0.2", "1e-7")
            .unwrap()
            .self_composed(5)
            .unwrap(),
        Event::randomized_response(1).unwrap(),
    ]);
    let d = Deployment::new(mixed)
        .at_delta("1e-5")
        .unwrap()
        .at_epsilon(3)
        .unwrap()
        .with_claim("2.5", "1e-5")
        .unwrap();
    let file = load("examples/mixed-release.toml");
    assert_eq!(
        numbers(&audit(&d).unwrap()),
        numbers(&audit(&file).unwrap())
    );
}

/// A DP-SGD run and the builder chain of the brief: rate 256/60000 read exactly.
#[test]
fn dpsgd_event_audits_like_its_file() {
    let sgd = Event::gaussian("1.1")
        .unwrap()
        .poisson_sampled("256/60000")
        .unwrap()
        .self_composed(14063)
        .unwrap();
    let d = Deployment::new(sgd)
        .at_delta("1e-5")
        .unwrap()
        .with_claim(3, "1e-5")
        .unwrap();
    let file = load("examples/dpsgd-mnist.toml");
    assert_eq!(
        numbers(&audit(&d).unwrap()),
        numbers(&audit(&file).unwrap())
    );
}

/// Serialising a deployment back to TOML and JSON and parsing it again gives the same
/// deployment (up to labels of unnamed entries) and the same audit numbers.
#[test]
fn files_round_trip_through_the_event_tree() {
    for f in [
        "examples/gaussian-survey.json",
        "examples/mixed-release.toml",
        "examples/dpsgd-with-release.toml",
        "examples/dpsgd-shuffled.toml",
    ] {
        let d = load(f);
        let toml = Deployment::parse(&d.to_toml().unwrap(), false).unwrap();
        let json = Deployment::parse(&d.to_json().unwrap().to_string(), true).unwrap();
        assert_eq!(toml, json, "{f}");
        let ledger = |d: &Deployment| dpcert::audit::ledger::Ledger::from_event(&d.event).unwrap();
        assert_eq!(ledger(&toml), ledger(&d), "{f}");
    }
    let d = load("examples/laplace-dashboard.toml");
    let back = Deployment::parse(&d.to_toml().unwrap(), false).unwrap();
    assert_eq!(
        numbers(&audit(&back).unwrap()),
        numbers(&audit(&d).unwrap())
    );
}

/// Events no route certifies are refused by name, never skipped.
#[test]
fn uncertifiable_events_are_refused_by_name() {
    let d = Deployment::new(Event::Composed(vec![
        Event::gaussian(1).unwrap(),
        Event::laplace(1).unwrap().poisson_sampled("0.01").unwrap(),
    ]))
    .at_delta("1e-5")
    .unwrap();
    match audit(&d) {
        Err(dpcert::Error::InvalidArgument { name, reason }) => {
            assert_eq!(name, "event.composed[1].poisson_sampled");
            assert!(reason.contains("laplace"), "{reason}");
        }
        other => panic!("{:?}", other.map(|r| r.routes.len())),
    }
}

/// A file (or a deployment built in code) with a claim and no budget is audited at the claim:
/// ε at the claimed δ and δ at the claimed ε; with neither, the error names the budget.
#[test]
fn a_claim_alone_sets_the_budget() {
    let text = "[claim]\nepsilon = 1\ndelta = \"1e-6\"\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 8\nrepeat = 10\n";
    let d = Deployment::parse(text, false).unwrap();
    assert_eq!(d.budget_delta, Some(common::rational("1e-6")));
    assert_eq!(d.budget_epsilon, Some(common::rational("1")));
    let built = Deployment::new(Event::gaussian(8).unwrap().self_composed(10).unwrap())
        .with_claim(1, "1e-6")
        .unwrap();
    assert_eq!(
        numbers(&audit(&built).unwrap()),
        numbers(&audit(&d).unwrap())
    );
    let none = "[[mechanism]]\ntype = \"gaussian\"\nsigma = 8\n";
    match Deployment::parse(none, false) {
        Err(dpcert::Error::InvalidArgument { name, .. }) => assert_eq!(name, "[budget]"),
        other => panic!("{other:?}"),
    }
    match audit(&Deployment::new(Event::gaussian(8).unwrap())) {
        Err(dpcert::Error::InvalidArgument { name, .. }) => assert_eq!(name, "budget"),
        other => panic!("{:?}", other.map(|r| r.routes.len())),
    }
}
