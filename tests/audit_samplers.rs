//! Audit files with every sampler and neighbouring relation DP-SGD supports, against the
//! command that computes the same quantity: `dpcert dpsgd --relation substitution
//! [--sampling fixed-size|shuffled]` (the theorem functions `dpsgd_substitution_pld_epsilon`,
//! `dpsgd_fixed_size_pld_epsilon`, `shuffled_dpsgd_epsilon`). The reference for each bracket is
//! that command's printed JSON; the claim thresholds are placed from it (above its upper end,
//! below its lower end, between them), so a bracket on the wrong side of a claim would flip
//! the verdict and fail the test.
mod common;
use common::{rational, run};
use dpcert::audit::{audit, RouteId};
use dpcert::deploy::Deployment;
use dpcert::event::Event;
use serde_json::{json, Value};

fn temp(name: &str, ext: &str, text: &str) -> String {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "dpcert-samplers-{name}-{}.{ext}",
        std::process::id()
    ));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// `dpcert ARGS --json` with exit code `code`: the envelope.
fn json_out(args: &[&str], code: i32) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (got, out, err) = run(&a);
    assert_eq!(got, code, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

const BUDGET: &str = "[budget]\ndelta = \"1e-5\"\n";
const RUN: &str = "[[mechanism]]\nname = \"sgd\"\ntype = \"subsampled-gaussian\"\nsigma = 1\nrate = \"0.01\"\nsteps = 100\nrelation = \"substitution\"\n";
const DPSGD: [&str; 10] = [
    "dpsgd",
    "--rate",
    "0.01",
    "--sigma",
    "1",
    "--steps",
    "100",
    "--delta",
    "1e-5",
    "--relation",
];

/// The audit's ε at the budget δ, and the dpsgd command's value, for `extra` fields / flags.
fn both(name: &str, extra_toml: &str, extra_flags: &[&str]) -> (Value, Value) {
    let file = temp(name, "toml", &format!("{BUDGET}{RUN}{extra_toml}"));
    let a = json_out(&["audit", &file], 0);
    let mut args = DPSGD.to_vec();
    args.push("substitution");
    args.extend_from_slice(extra_flags);
    let d = json_out(&args, 0);
    (a, d)
}

/// A Poisson substitution entry audits to exactly `dpsgd --relation substitution`'s bracket,
/// by the substitution route alone (every other route says why not); claims above, below
/// and inside the bracket are verified (exit 0), refuted (exit 1), undecided (exit 4).
#[test]
fn poisson_substitution_entry_is_the_dpsgd_bracket() {
    let (a, d) = both("poisson", "", &[]);
    assert_eq!(
        a["result"]["epsilon"]["lower"],
        d["result"]["value"]["lower"]
    );
    assert_eq!(
        a["result"]["epsilon"]["upper"],
        d["result"]["value"]["upper"]
    );
    assert_eq!(a["result"]["epsilon"]["kind"], "two-sided");
    assert_eq!(a["result"]["epsilon_route"], "substitution");
    let routes = a["result"]["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 1, "{routes:?}");
    let not = a["result"]["not_applicable"].as_array().unwrap();
    assert_eq!(not.len(), 8);
    for r in not {
        assert!(
            r["why_not"]
                .as_str()
                .unwrap()
                .contains("substitution neighbours"),
            "{r}"
        );
    }
    // the claim thresholds, from the command's bracket
    let lo = rational(d["result"]["value"]["lower"].as_str().unwrap());
    let hi = rational(d["result"]["value"]["upper"].as_str().unwrap());
    assert!(lo < hi);
    let above = (hi.clone() * rug::Rational::from((1001, 1000)))
        .to_f64()
        .to_string();
    let below = (lo.clone() * rug::Rational::from((999, 1000)))
        .to_f64()
        .to_string();
    let inside = ((lo + hi) / rug::Rational::from(2)).to_f64().to_string();
    for (eps, code, verdict) in [
        (&above, 0, "verified"),
        (&below, 1, "refuted"),
        (&inside, 4, "undecided"),
    ] {
        let t = format!("[claim]\nepsilon = \"{eps}\"\ndelta = \"1e-5\"\n{RUN}");
        let r = json_out(
            &["audit", &temp(&format!("claim-{code}"), "toml", &t)],
            code,
        );
        assert_eq!(
            r["result"]["verdict"], verdict,
            "claim ε = {eps}: {}",
            r["result"]["claim"]
        );
        assert_eq!(r["result"]["claim"]["route"], "substitution");
    }
    // a budget δ other than the claimed δ: the claim is still decided from ε at δ_c
    let t = format!(
        "[budget]\ndelta = \"1e-6\"\n[claim]\nepsilon = \"{above}\"\ndelta = \"1e-5\"\n{RUN}"
    );
    let r = json_out(&["audit", &temp("claim-other", "toml", &t)], 0);
    assert_eq!(r["result"]["verdict"], "verified");
    let summary = r["result"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("ε(δ=1e-5) ≤") && summary.ends_with("verified"),
        "{summary}"
    );
}

/// A fixed-size substitution entry audits to exactly `dpsgd --sampling fixed-size
/// --relation substitution`'s bracket; a claim above its upper end is verified, below its
/// lower end refuted.
#[test]
fn fixed_size_entry_is_the_dpsgd_bracket() {
    let (a, d) = both(
        "fixed",
        "sampling = \"fixed-size\"\n",
        &["--sampling", "fixed-size"],
    );
    assert_eq!(
        a["result"]["epsilon"]["lower"],
        d["result"]["value"]["lower"]
    );
    assert_eq!(
        a["result"]["epsilon"]["upper"],
        d["result"]["value"]["upper"]
    );
    assert_eq!(a["result"]["epsilon"]["kind"], "two-sided");
    assert_eq!(a["result"]["mechanisms"][0]["sampling"], "fixed-size");
    let lo = rational(d["result"]["value"]["lower"].as_str().unwrap());
    let hi = rational(d["result"]["value"]["upper"].as_str().unwrap());
    let above = (hi * rug::Rational::from((1001, 1000)))
        .to_f64()
        .to_string();
    let below = (lo * rug::Rational::from((999, 1000))).to_f64().to_string();
    for (eps, code) in [(&above, 0), (&below, 1)] {
        let t = format!(
            "[claim]\nepsilon = \"{eps}\"\ndelta = \"1e-5\"\n{RUN}sampling = \"fixed-size\"\n"
        );
        json_out(
            &["audit", &temp(&format!("fclaim-{code}"), "toml", &t)],
            code,
        );
    }
    // dp_accounting's SelfComposed(SampledWithoutReplacement(Gaussian)): the same run
    // (1 of 100 records per step, 100 steps) audits to the same bracket
    let ev = json!({"budget": {"delta": "1e-5"}, "event": {"class_name": "SelfComposedDpEvent", "count": 100,
        "event": {"class_name": "SampledWithoutReplacementDpEvent", "source_dataset_size": 100, "sample_size": 1,
            "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1}}}});
    let p = temp("dp-event", "json", &ev.to_string());
    let e = json_out(&["audit", &p, "--format", "dp-event"], 0);
    assert_eq!(e["result"]["epsilon"], a["result"]["epsilon"]);
}

/// A shuffled substitution entry: the upper end of `dpsgd --sampling shuffled --relation
/// substitution`, an upper bound only (it never refutes).
#[test]
fn shuffled_substitution_entry_is_the_shuffled_bound() {
    let (a, d) = both(
        "shuffled",
        "sampling = \"shuffled\"\n",
        &["--sampling", "shuffled"],
    );
    assert_eq!(
        a["result"]["epsilon"]["upper"],
        d["result"]["value"]["upper"]
    );
    assert!(a["result"]["epsilon"]["lower"].is_null());
    assert_eq!(a["result"]["epsilon"]["kind"], "upper-bound");
    let t =
        format!("[claim]\nepsilon = \"0.001\"\ndelta = \"1e-5\"\n{RUN}sampling = \"shuffled\"\n");
    assert_eq!(
        json_out(&["audit", &temp("sclaim", "toml", &t)], 4)["result"]["verdict"],
        "undecided"
    );
}

/// Mixing a substitution entry with another mechanism, fixed-size with add/remove, a bad
/// relation and phases under substitution are bad input (exit 2) naming the entry or field.
#[test]
fn refusals_name_the_entry_or_field() {
    let bad = |name: &str, text: &str, needles: &[&str]| {
        let (code, _, err) = run(&["audit", &temp(name, "toml", text)]);
        assert_eq!(code, 2, "{text}: {err}");
        for n in needles {
            assert!(err.contains(n), "{text}: {err} lacks {n}");
        }
    };
    let gauss = "[[mechanism]]\ntype = \"gaussian\"\nsigma = 8\n";
    bad(
        "mix",
        &format!("{BUDGET}{RUN}{gauss}"),
        &["mechanism `sgd`", "not supported yet"],
    );
    bad(
        "mix2",
        &format!("{BUDGET}{gauss}{RUN}sampling = \"fixed-size\"\n"),
        &["mechanism `sgd`", "substitution"],
    );
    let fixed = "[[mechanism]]\nname = \"fs\"\ntype = \"subsampled-gaussian\"\nsigma = 1\nrate = \"0.01\"\nsteps = 100\nsampling = \"fixed-size\"\n";
    bad(
        "fs-ar",
        &format!("{BUDGET}{fixed}"),
        &["mechanism `fs`: field `relation`", "substitution"],
    );
    bad(
        "fs-ar2",
        &format!("{BUDGET}{fixed}relation = \"add-remove\"\n"),
        &["field `relation`"],
    );
    bad(
        "rel",
        &format!("{BUDGET}{RUN}").replace("\"substitution\"", "\"swap\""),
        &["field `relation`", "swap"],
    );
    let phases = "[[mechanism]]\ntype = \"subsampled-gaussian\"\nrelation = \"substitution\"\nphases = [{ rate = \"0.1\", sigma = 1, steps = 3 }]\n";
    bad(
        "ph",
        &format!("{BUDGET}{phases}"),
        &["field `relation`", "add/remove"],
    );
    // no δ(ε) curve to plot for a substitution run: bad input, not an empty chart
    let svg = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-samplers-{}.svg", std::process::id()));
    let (code, _, err) = run(&[
        "plot",
        &temp("plot", "toml", &format!("{BUDGET}{RUN}")),
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("substitution") && err.contains("δ(ε)"),
        "{err}"
    );
    bad(
        "trunc",
        &format!("{BUDGET}{RUN}sampling = \"truncated-poisson\"\n"),
        &[
            "field `sampling`",
            "dpcert dpsgd --sampling truncated-poisson",
        ],
    );
    bad(
        "alloc",
        &format!("{BUDGET}{RUN}sampling = \"random-allocation\"\n"),
        &[
            "field `sampling`",
            "dpcert dpsgd --sampling random-allocation",
        ],
    );
    bad(
        "acc",
        &format!("{BUDGET}{RUN}sampling = \"shuffled\"\naccounting = \"poisson\"\n"),
        &["field `accounting`"],
    );
}

/// The entry is written back as it was read (TOML and JSON), and an event built in code
/// is the same deployment; a δ(ε) budget query gets no invented number.
#[test]
fn round_trip_and_delta_query() {
    for sampling in [
        "",
        "sampling = \"fixed-size\"\n",
        "sampling = \"shuffled\"\n",
    ] {
        let d = Deployment::parse(&format!("{BUDGET}{RUN}{sampling}"), false).unwrap();
        assert_eq!(Deployment::parse(&d.to_toml().unwrap(), false).unwrap(), d);
        assert_eq!(
            Deployment::parse(&d.to_json().unwrap().to_string(), true).unwrap(),
            d
        );
        assert!(d.to_toml().unwrap().contains("relation = \"substitution\""));
    }
    let built = Event::SubstitutionGaussian {
        sigma: rational("1"),
        rate: rational("1/100"),
        steps: 100.into(),
        sampling: dpcert::dpsgd::Sampling::FixedSize,
    };
    let file =
        Deployment::parse(&format!("{BUDGET}{RUN}sampling = \"fixed-size\"\n"), false).unwrap();
    assert_eq!(
        Deployment::new(Event::Composed(vec![built.named("sgd")]))
            .at_delta("1e-5")
            .unwrap(),
        file
    );
    // δ at ε: the route says it cannot answer, and no route gives a number
    let d = Deployment::parse(&format!("[budget]\nepsilon = 1\n{RUN}"), false).unwrap();
    let r = audit(&d).unwrap();
    assert!(r.best_delta.is_none());
    assert_eq!(r.routes[0].id, RouteId::Substitution);
    assert!(
        r.routes[0]
            .note
            .as_deref()
            .unwrap_or("")
            .contains("cannot answer δ"),
        "{:?}",
        r.routes[0].note
    );
    assert!(
        r.notes.iter().any(|n| n.contains("no δ(ε) for `sgd`")),
        "{:?}",
        r.notes
    );
}
