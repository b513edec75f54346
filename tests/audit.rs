//! Deployment audits, the golden-reference commands (`vectors`, `check`) and bad files.
mod common;
use common::run;
use common::{rational, typed};
use dpcert::audit::ledger::Ledger;
use dpcert::audit::{audit, Answer, Report, RouteId, RouteResult as Route, Verdict};
use dpcert::deploy::{Deployment, Mechanism};
use dpcert::num::Precision;
use dpcert::theorems::{gaussian, pld_accountant, zcdp};

fn load(p: &str) -> Deployment {
    Deployment::load(std::path::Path::new(p)).unwrap()
}

fn route<'a>(r: &'a Report, name: &str) -> &'a Route {
    r.routes
        .iter()
        .find(|x| x.name == name)
        .unwrap_or_else(|| panic!("no route {name}"))
}

/// Two enclosures of the same value overlap.
fn overlap(a: &Answer, b: &Answer) -> bool {
    a.formula().lower().to_float() <= b.upper().to_float()
        && b.formula().lower().to_float() <= a.upper().to_float()
}

#[test]
fn examples_have_the_expected_verdicts() {
    for (file, verdict, route) in [
        (
            "examples/weekly-health-benefits.toml",
            Verdict::Fails,
            "exact Gaussian composition",
        ),
        ("examples/laplace-dashboard.toml", Verdict::Holds, "PLD"),
        (
            "examples/gaussian-survey.json",
            Verdict::Fails,
            "exact Gaussian composition",
        ),
        ("examples/mixed-release.toml", Verdict::Holds, "PLD"),
        (
            "examples/dpsgd-substitution.toml",
            Verdict::Holds,
            "substitution DP-SGD",
        ),
    ] {
        let r = audit(&load(file)).unwrap();
        assert_eq!(r.claim.as_ref().unwrap().verdict, verdict, "{file}");
        let (i, _) = r.best_epsilon.as_ref().or(r.best_delta.as_ref()).unwrap();
        assert_eq!(r.routes[*i].name, route, "{file}");
        // exit 1 when the claim is refuted, 0 when verified
        let (code, out, err) = run(&["audit", file]);
        assert_eq!(code, verdict.exit_code(), "{err}");
        assert!(out.contains("Routes") && out.contains("Claim"));
        let (code, out, _) = run(&["audit", file, "--json"]);
        assert_eq!(code, verdict.exit_code());
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let v = &v["result"];
        assert!(v["routes"].is_array());
        assert_eq!(
            v["claim"]["verdict"].as_str().unwrap(),
            dpcert::audit::verdict_word(Some(verdict))
        );
    }
}

/// Numbers are read exactly from the file text (a TOML float 0.1 is 1/10), and the exact
/// route agrees with the theorem functions called directly.
#[test]
fn exact_inputs_and_route_agreement() {
    let d = Deployment::parse("[budget]\ndelta = 1e-6\nepsilon = 0.3\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 0.1\nsensitivity = 0.01\nrepeat = 7\n", false).unwrap();
    assert_eq!(
        Ledger::from_event(&d.event).unwrap().entries[0].mechanism,
        Mechanism::Gaussian {
            sigma: rational("1/10"),
            sensitivity: rational("1/100")
        }
    );
    let j = Deployment::parse(r#"{"budget": {"delta": 1e-6, "epsilon": "0.3"}, "mechanism": [{"type": "gaussian", "sigma": 0.1, "sensitivity": "0.01", "repeat": 7}]}"#, true).unwrap();
    assert_eq!(d, j);
    let r = audit(&d).unwrap();
    let pld = gaussian::gaussian_composition(&[gaussian::GaussianMechanism::new(
        rational("0.1"),
        rational("0.01"),
        7.into(),
    )
    .unwrap()])
    .unwrap();
    let e = gaussian::gaussian_epsilon(&pld, &rational("1e-6"), Precision::Auto).unwrap();
    let (_, best) = r.best_epsilon.clone().unwrap();
    assert_eq!(best.upper(), e.upper());
    assert!(best.is_two_sided());
    // zCDP route is valid but never below the exact optimum
    let z = r
        .routes
        .iter()
        .find(|x| x.name == "zCDP")
        .unwrap()
        .epsilon
        .clone()
        .unwrap();
    assert!(z.upper().to_float() >= e.lower().to_float());
    assert_eq!(
        z.upper(),
        zcdp::zcdp_epsilon(&pld.rho, &rational("1e-6"), Precision::Auto)
            .unwrap()
            .upper()
    );
}

#[test]
fn undecided_claim_explains_itself() {
    // a zCDP black box: its only route is an upper bound, so a claim below it is undecided
    let d = Deployment::parse("[budget]\ndelta = \"1e-5\"\n[claim]\nepsilon = 2.4\ndelta = \"1e-5\"\n[[mechanism]]\ntype = \"zcdp\"\nrho = 0.5\n", false).unwrap();
    let r = audit(&d).unwrap();
    let c = r.claim.unwrap();
    assert_eq!(c.verdict, Verdict::Undecided);
    assert!(c.explanation.contains("does not separate"));
    // Laplace: only the PLD route is exact for it; the same guarantees as black boxes:
    // optimal composition and PLD are both exact. Either way the claim is refuted, by the
    // exact route with the largest lower bound.
    for (mechanism, routes) in [
        ("type = \"laplace\"\nscale = 2", &[RouteId::Pld][..]),
        (
            "type = \"pure\"\nepsilon = 0.5",
            &[RouteId::Pld, RouteId::Optimal][..],
        ),
    ] {
        let d = Deployment::parse(&format!("[budget]\ndelta = \"1e-5\"\n[claim]\nepsilon = 2.4\ndelta = \"1e-5\"\n[[mechanism]]\n{mechanism}\nrepeat = 5\n"), false).unwrap();
        let c = audit(&d).unwrap().claim.unwrap();
        assert_eq!(c.verdict, Verdict::Fails, "{mechanism}");
        assert!(
            routes.contains(&c.route.unwrap()),
            "{mechanism}: {:?}",
            c.route
        );
    }
}

#[test]
fn surprising_answers_are_explained() {
    let tv = Deployment::parse(
        "[budget]\ndelta = 0.9\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 2\n",
        false,
    )
    .unwrap();
    let r = audit(&tv).unwrap();
    assert!(r.best_epsilon.as_ref().unwrap().1.upper().to_float() == 0);
    assert!(r.notes.iter().any(|n| n.contains("total variation")));
    let inf = Deployment::parse("[budget]\ndelta = 1e-6\n[[mechanism]]\ntype = \"approx\"\nepsilon = 1\ndelta = 1e-6\nrepeat = 3\n", false).unwrap();
    let r = audit(&inf).unwrap();
    assert!(r.best_epsilon.is_none());
    assert!(r.notes.iter().any(|n| n.contains("ε = ∞")));
}

#[test]
fn bad_files_name_the_problem() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, needle) in [
        ("syntax.toml", "[budget]\ndelta = 1e-6\n[[mechanism]]\ntype = \"gaussian\"\nsigma = = 2\n", "line 5"),
        ("type.toml", "[budget]\ndelta = 1e-6\n[[mechanism]]\ntype = \"gausian\"\nsigma = 2\n", "valid types: gaussian, laplace"),
        ("value.toml", "[budget]\ndelta = 1e-6\n[[mechanism]]\nname = \"weekly\"\ntype = \"gaussian\"\nsigma = -2\n", "`weekly`: field `sigma`"),
        ("nan.toml", "[budget]\ndelta = 1e-6\n[[mechanism]]\ntype = \"gaussian\"\nsigma = nan\n", "field `sigma`"),
        ("delta.toml", "[budget]\ndelta = 1\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 2\n", "[budget] delta"),
        ("none.toml", "[budget]\ndelta = 1e-6\n", "at least one mechanism"),
        ("repeat.toml", "[budget]\ndelta = 1e-6\n[[mechanism]]\ntype = \"pure\"\nepsilon = 1\nrepeat = 0\n", "field `repeat`"),
        ("extra.toml", "[budget]\ndelta = 1e-6\n[[mechanism]]\ntype = \"pure\"\nepsilon = 1\nsigma = 3\n", "field `sigma`"),
        ("bad.json", "{\"budget\": {\"delta\": 1e-6}, \"mechanism\": [", "JSON syntax error at line 1"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let (code, out, err) = run(&["audit", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(out.is_empty(), "{name} printed {out}");
        assert_eq!(err.trim().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(needle), "{name}: {err}");
    }
    let (code, _, err) = run(&["audit", "no/such/file.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"));
    let svg = dir.join("p.svg");
    let (code, _, _) = run(&[
        "plot",
        "examples/weekly-health-benefits.toml",
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<polyline"));
}

#[test]
fn vectors_cover_every_query_kind() {
    let (code, out, _) = run(&["vectors", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let list = v["result"]["vectors"].as_array().unwrap();
    assert!(list.len() >= 200);
    for kind in [
        "gaussian delta",
        "gaussian epsilon",
        "gaussian sigma",
        "zcdp delta",
        "zcdp epsilon",
        "compose pure",
        "compose approx",
        "rdp subsampled-gaussian",
    ] {
        assert!(list.iter().any(|r| {
            let q: Vec<&str> = r["query"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            q[..2].join(" ") == kind
        }));
    }
    // the printed vectors are what other libraries diff against: every exact Gaussian δ vector
    // must contain Corollary 8 at 1024 bits (an independent reference), its decimal ends on
    // their sides
    let mut checked = 0;
    for r in list {
        let args: Vec<&str> = r["query"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        if args[..2] != ["gaussian", "delta"] {
            continue;
        }
        let flag = |f: &str, default: &str| -> rug::Rational {
            rational(
                args.iter()
                    .position(|a| *a == f)
                    .map_or(default, |i| args[i + 1]),
            )
        };
        let (sigma, eps) = (flag("--sigma", "1"), flag("--epsilon", "0"));
        let (sens, k) = (flag("--sensitivity", "1"), flag("--compositions", "1"));
        let rho =
            rug::Rational::from(&sens * &sens) * k / (rug::Rational::from(&sigma * &sigma) * 2u32);
        let reference = common::gaussian_delta(&rho, &eps);
        let lo = rational(r["value"]["lower"].as_str().unwrap());
        let hi = rational(r["value"]["upper"].as_str().unwrap());
        assert!(
            reference >= lo && reference <= hi,
            "{args:?}: {reference} outside [{lo}, {hi}]"
        );
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} Gaussian δ vectors");
}

/// Values 1e-15 relative from the exact value are decided, on the right side.
#[test]
fn check_decides_near_misses() {
    use rug::Float;
    let pld = gaussian::gaussian_composition(&[gaussian::GaussianMechanism::new(
        rational("1.3"),
        rational("1"),
        5.into(),
    )
    .unwrap()])
    .unwrap();
    let d = gaussian::gaussian_delta(&pld, &rational("2"), Precision::Bits(256)).unwrap();
    let mid = Float::with_val(256, &d.lower().to_float() + &d.upper().to_float()) / 2u32;
    let e = gaussian::gaussian_epsilon(&pld, &rational("1e-7"), Precision::Auto).unwrap();
    let fmt = |x: Float| x.to_string_radix(10, Some(40));
    let recs = serde_json::json!([
        {"query": ["gaussian", "delta", "--sigma", "1.3", "--epsilon", "2", "--compositions", "5"], "value": fmt(Float::with_val(256, &mid * (1.0 + 1e-15)))},
        {"query": ["gaussian", "delta", "--sigma", "1.3", "--epsilon", "2", "--compositions", "5"], "value": fmt(Float::with_val(256, &mid * (1.0 - 1e-15)))},
        {"query": ["gaussian", "epsilon", "--sigma", "1.3", "--delta", "1e-7", "--compositions", "5"], "value": fmt(Float::with_val(256, &e.upper().to_float() * (1.0 + 1e-15)))},
        {"query": ["gaussian", "epsilon", "--sigma", "1.3", "--delta", "1e-7", "--compositions", "5"], "value": fmt(Float::with_val(256, &e.lower().to_float() * (1.0 - 1e-15)))},
        {"query": ["zcdp", "delta", "--rho", "0.5", "--epsilon", "2"], "value": "1"},
        {"query": ["compose", "pure", "--epsilon", "1", "--count", "10", "--delta", "1e-6"], "value": "0.5"},
    ]);
    let (code, verdicts, _, err) = common::check_verdicts("check", &recs.to_string());
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        verdicts,
        ["sound", "unsound", "sound", "unsound", "sound", "unsound"]
    );
    // a malformed record next to a valid one is judged `invalid` (exit 1), not a reason to
    // abort the run; a file of nothing but invalid records is bad input (exit 2)
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-check-{}.json", std::process::id()));
    std::fs::write(&p, "[{\"query\": [\"gaussian\"], \"value\": \"1\"}, {\"query\": [\"zcdp\", \"delta\", \"--rho\", \"0.5\", \"--epsilon\", \"2\"], \"value\": \"1\"}]").unwrap();
    let (code, out, err) = run(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(out.starts_with("invalid"), "{out}");
    std::fs::write(&p, "[{\"query\": [\"gaussian\"], \"value\": \"1\"}]").unwrap();
    let (code, _, err) = run(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    // a malformed file is bad input (exit 2), one line
    std::fs::write(&p, "{\"query\": []}").unwrap();
    let (code, _, err) = run(&["check", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1);
}

/// Gaussians mixed with (ε, δ) black boxes: the split route is valid (never below the exact
/// Gaussian-only ε) and useful (no worse than basic composition at a split that a person would pick).
#[test]
fn gaussians_mixed_with_black_boxes() {
    let d = Deployment::parse("[budget]\ndelta = \"1e-6\"\nepsilon = 1\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 2\n[[mechanism]]\ntype = \"approx\"\nepsilon = 1\ndelta = \"1e-7\"\n", false).unwrap();
    let r = audit(&d).unwrap();
    let route = r
        .routes
        .iter()
        .find(|x| x.name == "Gaussian split + optimal")
        .unwrap();
    let e = route.epsilon.as_ref().unwrap().upper().to_f64();
    let pld = gaussian::gaussian_composition(&[gaussian::GaussianMechanism::new(
        rational("2"),
        rational("1"),
        1.into(),
    )
    .unwrap()])
    .unwrap();
    let alone = gaussian::gaussian_epsilon(&pld, &rational("1e-6"), Precision::Auto).unwrap();
    assert!(e >= alone.lower().to_f64());
    let basic_split = gaussian::gaussian_epsilon(&pld, &rational("9e-7"), Precision::Auto)
        .unwrap()
        .upper()
        .to_f64()
        + 1.0;
    assert!(e <= basic_split + 1e-9, "{e} vs {basic_split}");
    assert!(route.delta.is_some());
}

/// k identical Gaussians: the PLD route's two-sided ε and δ bracket the exact Gaussian route's
/// (both enclose the same value), to 10⁻⁴ relative on each side.
#[test]
fn pld_route_brackets_exact_gaussians() {
    let d = Deployment::parse("[budget]\ndelta = \"1e-6\"\nepsilon = 1\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 2\nrepeat = 10\n", false).unwrap();
    let r = audit(&d).unwrap();
    let (exact, pld) = (route(&r, "exact Gaussian composition"), route(&r, "PLD"));
    for (e, p) in [(&exact.epsilon, &pld.epsilon), (&exact.delta, &pld.delta)] {
        let (e, p) = (e.as_ref().unwrap(), p.as_ref().unwrap());
        assert!(p.is_two_sided() && overlap(e, p));
        let (lo, hi) = (p.formula().lower().to_f64(), p.upper().to_f64());
        assert!(
            hi <= e.upper().to_f64() * (1.0 + 1e-4)
                && lo >= e.formula().lower().to_f64() * (1.0 - 1e-4),
            "PLD [{lo}, {hi}] vs exact {:?}",
            e
        );
    }
    // the exact route stays the reported one (its bracket is the narrower)
    assert_eq!(
        r.routes[r.best_epsilon.unwrap().0].name,
        "exact Gaussian composition"
    );
}

/// Mixed deployments: the PLD route is never above the routes that compose guarantees
/// (Gaussian split, basic, advanced), and its lower bound is below every route's upper bound.
#[test]
fn pld_route_on_mixed_deployments() {
    let gauss = "[[mechanism]]\ntype = \"gaussian\"\nsigma = 5\nrepeat = 4\n";
    let rest = "[[mechanism]]\ntype = \"laplace\"\nscale = 10\nrepeat = 10\n[[mechanism]]\ntype = \"approx\"\nepsilon = 0.1\ndelta = \"1e-8\"\nrepeat = 3\n[[mechanism]]\ntype = \"pure\"\nepsilon = 0.2\n";
    for (mechanisms, beaten) in [
        (format!("{gauss}{rest}"), &["Gaussian split + optimal"][..]),
        (
            rest.to_string(),
            &["basic composition", "advanced composition"][..],
        ),
    ] {
        let d =
            Deployment::parse(&format!("[budget]\ndelta = \"1e-6\"\n{mechanisms}"), false).unwrap();
        let r = audit(&d).unwrap();
        let pld = route(&r, "PLD").epsilon.clone().unwrap();
        assert!(pld.is_two_sided() && pld.formula().lower().to_float() <= pld.upper().to_float());
        for name in beaten {
            let other = route(&r, name).epsilon.as_ref().unwrap();
            assert!(
                pld.upper().to_float() <= other.upper().to_float(),
                "{name}: {other:?} vs {pld:?}"
            );
        }
        for x in r.routes.iter().filter_map(|x| x.epsilon.as_ref()) {
            assert!(pld.formula().lower().to_float() <= x.upper().to_float());
        }
    }
}

/// Subsampled Gaussians (steps × repeat, both neighbour directions): the PLD route applies,
/// overlaps the DP-SGD accountant on the same steps, and is not above Rényi DP. A shuffled
/// run accounted as Poisson keeps its warning.
#[test]
fn pld_route_with_subsampled_gaussians() {
    let d = Deployment::parse("[budget]\ndelta = \"1e-5\"\n[[mechanism]]\ntype = \"subsampled-gaussian\"\nsigma = 1\nrate = \"1/100\"\nsteps = 500\nrepeat = 2\nsampling = \"shuffled\"\naccounting = \"poisson\"\n", false).unwrap();
    let r = audit(&d).unwrap();
    let route_pld = route(&r, "PLD");
    let pld = route_pld.epsilon.as_ref().unwrap();
    let rdp = route(&r, "Rényi DP").epsilon.as_ref().unwrap();
    assert!(pld.upper().to_float() <= rdp.upper().to_float());
    let direct = pld_accountant::dpsgd_pld_epsilon(
        &typed::rate(&rational("1/100")),
        &typed::sigma(&rational("1")),
        &typed::steps(&1000.into()),
        &typed::delta(&rational("1e-5")),
        &Default::default(),
    )
    .unwrap();
    let direct = Answer::TwoSided(direct.enclosure);
    assert!(overlap(pld, &direct), "{pld:?} vs {direct:?}");
    assert!(route_pld
        .steps
        .iter()
        .any(|s| s.value.contains("remove: ") && s.value.contains("add: ")));
    assert!(r.notes.iter().any(|n| n.contains("shuffled batches")));
    // Poisson numbers for shuffled batches bound nothing from below: a claim far below the
    // PLD lower bound is undecided, not refuted; with Poisson sampling it is refuted
    let claim = |sampling: &str| {
        let text = format!("[budget]\ndelta = \"1e-5\"\n[claim]\nepsilon = \"0.1\"\ndelta = \"1e-5\"\n[[mechanism]]\ntype = \"subsampled-gaussian\"\nsigma = 1\nrate = \"1/100\"\nsteps = 500\nsampling = \"{sampling}\"\naccounting = \"poisson\"\n");
        audit(&Deployment::parse(&text, false).unwrap())
            .unwrap()
            .claim
            .unwrap()
            .verdict
    };
    assert_eq!(claim("shuffled"), Verdict::Undecided);
    assert_eq!(claim("poisson"), Verdict::Fails);
}

/// zCDP black boxes have no PLD: the route is absent and the audit still answers. A PLD
/// failure (a budget δ below its resolution) is the route's note, not the audit's error.
#[test]
fn pld_route_absent_or_failed() {
    let d = Deployment::parse("[budget]\ndelta = \"1e-5\"\nepsilon = 2\n[[mechanism]]\ntype = \"subsampled-gaussian\"\nsigma = 1\nrate = \"1/100\"\nsteps = 100\n[[mechanism]]\ntype = \"zcdp\"\nrho = \"0.01\"\n", false).unwrap();
    let r = audit(&d).unwrap();
    assert!(r.routes.iter().all(|x| x.name != "PLD"));
    assert_eq!(r.routes[r.best_epsilon.unwrap().0].name, "Rényi DP");
    assert!(r.best_delta.is_some());
    let tiny = Deployment::parse(
        "[budget]\ndelta = \"1e-200\"\n[[mechanism]]\ntype = \"gaussian\"\nsigma = 2\n",
        false,
    )
    .unwrap();
    let r = audit(&tiny).unwrap();
    let pld = route(&r, "PLD");
    assert!(pld.epsilon.is_none());
    assert!(
        pld.note.as_ref().unwrap().starts_with("failed: ε at δ: "),
        "{:?}",
        pld.note
    );
    assert_eq!(
        r.routes[r.best_epsilon.unwrap().0].name,
        "exact Gaussian composition"
    );
}

/// The DP-SGD Rényi route rests on a cited domination result: it says so (JSON `rests_on`,
/// text `(cited)`), `dpsgd --method best` prefers the PLD accountant (both directions
/// certified) and falls back to RDP only when the accountant cannot run, and the audit never
/// picks it over an uncited route.
#[test]
fn cited_rdp_route_is_marked_and_not_preferred() {
    let json = |args: &[&str]| -> serde_json::Value {
        let (code, out, err) = run(args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let r = &v["result"];
        let mut q = r["value"].clone();
        q["method"] = r["details"]["method"].clone();
        q
    };
    let base = [
        "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--json",
    ];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    let best = json(&with(&["--delta", "1e-5"]));
    assert_eq!(best["kind"], "two-sided");
    assert_eq!(best["method"], "pld");
    assert!(best["rests_on"].is_null());
    let rdp = json(&with(&["--delta", "1e-5", "--method", "rdp"]));
    assert_eq!(rdp["kind"], "upper-bound");
    assert!(rdp["lower"].is_null());
    assert!(rdp["rests_on"].as_str().unwrap().contains("Mironov"));
    // δ below the accountant's resolution: best falls back to the (marked) RDP bound
    let tiny = json(&with(&["--delta", "1e-40"]));
    assert_eq!(tiny["method"], "rdp");
    assert!(tiny["rests_on"].as_str().unwrap().contains("Mironov"));
    // the audit: PLD is certified, the RDP route is listed as cited and not picked
    let r = audit(&load("examples/dpsgd-mnist.toml")).unwrap();
    let rdp_route = route(&r, "Rényi DP");
    assert!(rdp_route.epsilon.as_ref().unwrap().rests_on().is_some());
    let (i, best) = r.best_epsilon.clone().unwrap();
    assert_eq!(r.routes[i].name, "PLD");
    assert!(best.rests_on().is_none() && best.is_two_sided());
    let (_, out, _) = run(&["audit", "examples/dpsgd-mnist.toml"]);
    assert!(
        out.contains("(cited)") && out.contains("rests on Mironov"),
        "{out}"
    );
}

/// When no route certifies a finite ε, the JSON says `null` (never the string "inf") and the
/// notes say why.
#[test]
fn no_route_is_null_not_inf() {
    let text = "[budget]\ndelta = \"1e-5\"\n[[mechanism]]\ntype = \"approx\"\nepsilon = 65537\ndelta = \"1e-9\"\n[[mechanism]]\ntype = \"subsampled-gaussian\"\nsigma = 1\nrate = \"0.01\"\nsteps = 100\n";
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-noroute-{}.toml", std::process::id()));
    std::fs::write(&p, text).unwrap();
    let (code, out, err) = run(&["audit", p.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let v = &v["result"];
    assert!(v["epsilon"].is_null(), "{}", v["epsilon"]);
    assert!(!out.contains("\"inf\""));
    assert!(v["notes"].as_array().is_some_and(|n| !n.is_empty()));
}
