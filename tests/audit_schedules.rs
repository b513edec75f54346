//! Audit files with DP-SGD schedules (`phases = [...]`) and shuffled batches, against the
//! commands that compute the same quantity another way: `dpcert dpsgd --phase ...` (the
//! schedule accountant, `dpsgd_phases_pld_epsilon`) and `dpcert dpsgd --sampling shuffled`
//! (`shuffled_dpsgd_epsilon`'s Gaussian composition), and, for the shuffled bound, Corollary 8
//! at 1024 bits for ρ = passes/(2σ²) (tests/common).
mod common;
use common::{f, rational, run};
use dpcert::audit::audit;
use dpcert::deploy::Deployment;
use rug::Rational;
use serde_json::Value;

fn temp(name: &str, text: &str) -> String {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-sched-{name}-{}.toml", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// `dpcert ARGS --json` with exit code `code`: the envelope.
fn json(args: &[&str], code: i32) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (got, out, err) = run(&a);
    assert_eq!(got, code, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// (lower, upper) as printed.
fn printed(v: &Value) -> (String, String) {
    (
        v["lower"].as_str().expect("two-sided").to_string(),
        v["upper"].as_str().unwrap().to_string(),
    )
}

const BUDGET: &str = "[budget]\ndelta = \"1e-5\"\n";

/// A shuffled entry audits to exactly the bracket `dpcert dpsgd --sampling shuffled` prints
/// (the exact Gaussian route: 61 passes of σ = 1.1), which contains Corollary 8's ε* for
/// ρ = 61/(2·1.1²); the Poisson figure is only a labelled note, below the audited ε.
#[test]
fn shuffled_entry_is_the_shuffled_bound() {
    let entry = "[[mechanism]]\nname = \"sgd\"\ntype = \"subsampled-gaussian\"\nsigma = \"1.1\"\nrate = \"256/60000\"\nsteps = 14063\nsampling = \"shuffled\"\n";
    let file = temp("shuffled", &format!("{BUDGET}{entry}"));
    let a = json(&["audit", &file], 0);
    let d = json(
        &[
            "dpsgd",
            "--rate",
            "256/60000",
            "--sigma",
            "1.1",
            "--steps",
            "14063",
            "--delta",
            "1e-5",
            "--sampling",
            "shuffled",
        ],
        0,
    );
    // the same upper end; the lower end is the Gaussian composition's, which bounds the run
    // only when the batch assignment is revealed, so the audit withholds it
    assert_eq!(
        a["result"]["epsilon"]["upper"],
        d["result"]["value"]["upper"]
    );
    assert!(
        a["result"]["epsilon"]["lower"].is_null(),
        "{}",
        a["result"]["epsilon"]
    );
    assert_eq!(a["result"]["epsilon"]["kind"], "upper-bound");
    assert_eq!(a["result"]["epsilon_route"], "exact_gaussian");
    assert!(
        d["result"]["value"]["lower"].is_null(),
        "dpsgd --sampling shuffled is an upper bound too"
    );
    let hi = d["result"]["value"]["upper"].as_str().unwrap().to_string();
    // the reference: 61 = ⌈14063/⌊60000/256⌋⌉ = ⌈14063/234⌉ passes; the bound is the revealed
    // run's exact ε*, rounded up by at most a relative 10⁻⁹
    let rho = Rational::from(61) / (rational("1.1") * rational("1.1") * Rational::from(2));
    let star = common::gaussian_epsilon_star(&rho, &rational("1e-5"));
    assert!(
        star <= f(&rational(&hi)) && f(&rational(&hi)) <= star.clone() * (1.0 + 1e-9),
        "{star} vs upper {hi}"
    );
    let notes: Vec<&str> = a["result"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let note = notes
        .iter()
        .find(|n| n.contains("For comparison only"))
        .expect("Poisson comparison note");
    assert!(
        note.contains("61 passes") && note.contains("not a bound"),
        "{note}"
    );
    assert!(!notes.iter().any(|n| n.contains("WARNING")), "{notes:?}");
    // it verifies a claim above it, and never refutes one below it
    let verdict = |eps: &str| {
        let t = format!("{BUDGET}[claim]\nepsilon = \"{eps}\"\ndelta = \"1e-5\"\n{entry}");
        json(
            &["audit", &temp(&format!("claim-{eps}"), &t)],
            if eps == "3" { 4 } else { 0 },
        )["result"]["verdict"]
            .clone()
    };
    assert_eq!(verdict("55"), "verified");
    assert_eq!(verdict("3"), "undecided");
    // accounting = "poisson" keeps the old meaning: Poisson numbers with the warning
    let old = temp(
        "as-poisson",
        &format!("{BUDGET}{entry}accounting = \"poisson\"\n"),
    );
    let p = json(&["audit", &old], 0);
    // (an upper bound only: the Poisson numbers bound nothing from below for shuffled batches)
    let poisson_hi = p["result"]["epsilon"]["upper"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        f(&rational(&poisson_hi)) < star,
        "the Poisson figure {poisson_hi} is not below the revealed run's ε* {star}"
    );
    assert!(p["result"]["notes"].to_string().contains("WARNING"));
    // the mechanism is written back as it was read
    let dep = Deployment::load(std::path::Path::new(&file)).unwrap();
    let back = Deployment::parse(&dep.to_toml().unwrap(), false).unwrap();
    assert_eq!(back, dep);
    assert!(dep.to_toml().unwrap().contains("sampling = \"shuffled\""));
}

const PHASES: &str = "[[mechanism]]\nname = \"sgd\"\ntype = \"subsampled-gaussian\"\nphases = [\n  { rate = \"1/100\", sigma = \"1.5\", steps = 300 },\n  { rate = \"1/50\", sigma = 2, steps = 200 },\n]\n";

/// A `phases` entry audits to the bracket `dpcert dpsgd --phase ...` prints (the PLD route,
/// both neighbour directions); a split into equal phases audits to the same bracket as the
/// whole; the schedule is written back as one entry per phase and audits the same.
#[test]
fn phases_entry_is_the_schedule() {
    let file = temp("phases", &format!("{BUDGET}{PHASES}"));
    let a = json(&["audit", &file], 0);
    let d = json(
        &[
            "dpsgd",
            "--delta",
            "1e-5",
            "--phase",
            "1/100,1.5,300",
            "--phase",
            "1/50,2,200",
        ],
        0,
    );
    assert_eq!(
        printed(&a["result"]["epsilon"]),
        printed(&d["result"]["value"])
    );
    assert_eq!(a["result"]["epsilon_route"], "pld");
    // equal phases: the same audit as the merged run
    let split = "[[mechanism]]\ntype = \"subsampled-gaussian\"\nphases = [{ rate = \"1/100\", sigma = 1, steps = 100 }, { rate = \"1/100\", sigma = 1, steps = 150 }]\n";
    let whole =
        "[[mechanism]]\ntype = \"subsampled-gaussian\"\nrate = \"1/100\"\nsigma = 1\nsteps = 250\n";
    let eps = |t: &str| {
        let r = audit(&Deployment::parse(&format!("{BUDGET}{t}"), false).unwrap()).unwrap();
        let e = r.best_epsilon.unwrap().1;
        (e.lower().unwrap().to_float(), e.upper().to_float())
    };
    assert_eq!(eps(split), eps(whole));
    // and so do two entries of the same run
    let entries = "[[mechanism]]\ntype = \"subsampled-gaussian\"\nrate = \"1/100\"\nsigma = 1\nsteps = 100\n[[mechanism]]\ntype = \"subsampled-gaussian\"\nrate = \"0.01\"\nsigma = \"1.0\"\nsteps = 150\n";
    assert_eq!(eps(entries), eps(whole));
    let dep = Deployment::load(std::path::Path::new(&file)).unwrap();
    let back = Deployment::parse(&dep.to_toml().unwrap(), false).unwrap();
    let r1 = audit(&dep).unwrap().best_epsilon.unwrap().1;
    let r2 = audit(&back).unwrap().best_epsilon.unwrap().1;
    assert_eq!(r1.upper().to_float(), r2.upper().to_float());
}

/// Bad schedules and sampling fields exit 2 naming the field.
#[test]
fn bad_entries_name_the_field() {
    let bad = |name: &str, entry: &str, needle: &str| {
        let file = temp(
            name,
            &format!("{BUDGET}[[mechanism]]\ntype = \"subsampled-gaussian\"\n{entry}"),
        );
        let (code, _, err) = run(&["audit", &file]);
        assert_eq!(code, 2, "{entry}: {err}");
        assert!(err.contains(needle), "{entry}: {err}");
    };
    bad(
        "both",
        "rate = \"0.1\"\nphases = [{ rate = \"0.1\", sigma = 1, steps = 3 }]\n",
        "field `rate`: conflicts with `phases`",
    );
    bad("empty", "phases = []\n", "field `phases`");
    bad(
        "key",
        "phases = [{ rate = \"0.1\", sigma = 1, steps = 3, epochs = 2 }]\n",
        "phases[0].epochs",
    );
    bad(
        "rate",
        "phases = [{ rate = 2, sigma = 1, steps = 3 }]\n",
        "phases[0].rate",
    );
    bad(
        "steps",
        "phases = [{ rate = \"0.1\", sigma = 1 }]\n",
        "phases[0].steps",
    );
    bad(
        "shuf",
        "sampling = \"shuffled\"\nphases = [{ rate = \"0.1\", sigma = 1, steps = 3 }]\n",
        "field `phases`",
    );
    bad(
        "acct",
        "rate = \"0.1\"\nsigma = 1\nsteps = 3\nsampling = \"shuffled\"\naccounting = \"magic\"\n",
        "field `accounting`",
    );
    bad(
        "samp",
        "rate = \"0.1\"\nsigma = 1\nsteps = 3\nsampling = \"fixed\"\n",
        "field `sampling`",
    );
}
