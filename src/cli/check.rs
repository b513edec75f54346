//! `dpcert check FILE`: judge values printed by another library.
use super::compose::compose_classes;
use super::dpsgd::{pld_options, DpsgdArgs};
use super::gaussian::{gaussian_pld, GaussianCmd};
use super::rdp::{sgm_args, RdpCmd};
use super::zcdp::ZcdpCmd;
use super::{count, evaluate, flagged, num, parse_query, precision, Cmd};
use crate::num::{Certified, Precision};
use crate::reference::check::{
    quote_nonfinite_tokens, screen, Bracket, Claimed, Kind, Quantity, Verdict,
};
use crate::theorems::{gaussian, optimal, pld, pld_accountant, rdp, zcdp};
use crate::{validate, Error};
use clap::Args;
use rug::Rational;
use serde_json::{json, Value};

#[derive(Args)]
pub(super) struct CheckArgs {
    /// JSON list of {"query": [...], "value": "..."}.
    file: std::path::PathBuf,
    #[arg(long)]
    pub(super) json: bool,
}

/// Grid halvings `check` tries on a DP-SGD PLD query before calling it undecided (each about
/// doubles the time: 0.2 s … 1.6 s on the MNIST setting).
const PLD_CHECK_REFINEMENTS: usize = 4;

/// `check` halves the PLD grid only while the support is at most this many points.
const PLD_CHECK_MAX_SUPPORT: usize = 150_000;

/// Most records one `check` run judges (each may take a second or more: the work is linear).
const MAX_CHECK_RECORDS: usize = 10_000;

/// Precisions `check` climbs through when a value is not yet separated from the exact one.
const CHECK_PRECISIONS: [Precision; 4] = [
    Precision::Auto,
    Precision::Bits(256),
    Precision::Bits(1024),
    Precision::Bits(4096),
];

/// The quantity a single-value query asks for, and whether dpcert's answer to it is two-sided.
fn check_quantity(cmd: &Cmd) -> Option<(Quantity, Kind)> {
    Some(match cmd {
        Cmd::Gaussian(GaussianCmd::Delta { .. }) => (Quantity::Delta, Kind::TwoSided),
        Cmd::Gaussian(GaussianCmd::Epsilon { .. }) => (Quantity::Epsilon, Kind::TwoSided),
        Cmd::Gaussian(GaussianCmd::Sigma { .. }) => (Quantity::Sigma, Kind::TwoSided),
        Cmd::Zcdp(ZcdpCmd::Delta { .. }) => (Quantity::Delta, Kind::UpperBound),
        Cmd::Zcdp(ZcdpCmd::Epsilon { .. }) => (Quantity::Epsilon, Kind::UpperBound),
        Cmd::Compose(_) => (Quantity::Epsilon, Kind::TwoSided),
        Cmd::Rdp(_) => (Quantity::RdpEpsilon, Kind::TwoSided),
        // an upper bound (RDP) until a two-sided PLD bracket is met
        Cmd::Dpsgd(_) => (Quantity::Epsilon, Kind::UpperBound),
        _ => return None,
    })
}

/// The reason given for a verdict read off the bracket.
fn bracket_reason(v: Verdict, b: &Bracket) -> String {
    let (l, u) = b.to_decimals();
    match v {
        Verdict::Sound => format!(
            "at or above the certified upper end {} of the smallest valid value",
            u.unwrap_or_default()
        ),
        _ => format!(
            "below the certified lower end {} of the smallest valid value",
            l.unwrap_or_default()
        ),
    }
}

/// Judge one claimed value for a parsed query. `Err` only for a malformed query (invalid) or a
/// numerical failure (undecided); the bracket is the intersection of every certified
/// evaluation made here, and the verdict is consistent with it.
fn judge(cmd: &Cmd, value: &Claimed) -> Result<(Verdict, String, Bracket), Error> {
    let (qty, kind) = check_quantity(cmd).ok_or_else(|| {
        Error::arg(
            "query",
            "not a single-value query (gaussian, zcdp, compose, rdp or dpsgd)",
        )
    })?;
    let mut b = Bracket::new(qty, kind);
    // dpcert's own answer to the query (this also validates every argument of the query)
    match cmd {
        Cmd::Dpsgd(DpsgdArgs { common, .. }) => {
            precision(common)?;
        }
        _ => match evaluate(cmd)?.value {
            Certified::TwoSided(e) => b.meet_enclosure(&e),
            Certified::UpperBound(u) => {
                b.set_kind(Kind::UpperBound);
                b.meet_upper(u.upper());
            }
        },
    }
    // the value: impossible → unsound, vacuous → sound, else judged against the exact one
    let v = match screen(qty, value) {
        Ok(v) => v,
        Err((verdict, why)) => {
            if let Cmd::Dpsgd(_) = cmd {
                dpsgd_bracket(cmd, None, &mut b)?;
            }
            return Ok((verdict, why, b));
        }
    };
    if !matches!(cmd, Cmd::Dpsgd(_)) {
        if let Some(verdict) = b.decide(&v) {
            let why = bracket_reason(verdict, &b);
            return Ok((verdict, why, b));
        }
    }
    let sound_at = |b: &mut Bracket, what: String| {
        b.meet_upper_exact(&v);
        Ok((Verdict::Sound, what, b.clone()))
    };
    let unsound_at = |b: &mut Bracket, what: String| {
        b.meet_lower_exact(&v);
        Ok((Verdict::Unsound, what, b.clone()))
    };
    match cmd {
        Cmd::Gaussian(GaussianCmd::Delta {
            sigma,
            epsilon,
            shape,
            ..
        }) => {
            let (pld, _, _) = gaussian_pld(sigma, shape)?;
            let e = num("--epsilon", epsilon)?;
            for p in &CHECK_PRECISIONS[1..] {
                b.meet_enclosure(&gaussian::gaussian_delta(&pld, &e, *p)?);
                if let Some(verdict) = b.decide(&v) {
                    let why = bracket_reason(verdict, &b);
                    return Ok((verdict, why, b));
                }
            }
        }
        Cmd::Gaussian(GaussianCmd::Epsilon {
            sigma,
            delta,
            shape,
            ..
        }) => {
            let (pld, _, _) = gaussian_pld(sigma, shape)?;
            let d = num("--delta", delta)?;
            for p in CHECK_PRECISIONS {
                let at = gaussian::gaussian_delta(&pld, &v, p)?;
                if at.upper().0 <= d {
                    return sound_at(
                        &mut b,
                        "δ(ε = value) ≤ δ, certified: (value, δ)-DP holds".into(),
                    );
                }
                if at.lower().0 > d {
                    return unsound_at(
                        &mut b,
                        "δ(ε = value) > δ, certified: (value, δ)-DP fails for this mechanism"
                            .into(),
                    );
                }
            }
        }
        Cmd::Gaussian(GaussianCmd::Sigma {
            epsilon,
            delta,
            shape,
            ..
        }) => {
            let e = num("--epsilon", epsilon)?;
            let d = num("--delta", delta)?;
            let sens = num("--sensitivity", &shape.sensitivity)?;
            let k = count("--compositions", &shape.compositions)?;
            let pld = gaussian::gaussian_composition(&[gaussian::GaussianMechanism {
                sigma: v.clone(),
                sensitivity: sens,
                count: k,
            }])?;
            for p in CHECK_PRECISIONS {
                let at = gaussian::gaussian_delta(&pld, &e, p)?;
                if at.upper().0 <= d {
                    return sound_at(
                        &mut b,
                        "with σ = value, δ(ε) ≤ δ, certified: (ε, δ)-DP holds".into(),
                    );
                }
                if at.lower().0 > d {
                    return unsound_at(
                        &mut b,
                        "with σ = value, δ(ε) > δ, certified: (ε, δ)-DP fails".into(),
                    );
                }
            }
        }
        Cmd::Zcdp(ZcdpCmd::Delta { rho, epsilon, .. }) => {
            let r = num("--rho", rho)?;
            let e = num("--epsilon", epsilon)?;
            // the Gaussian with this ρ is ρ-zCDP: a valid δ for the class is ≥ its exact δ
            let g = pld::GaussianPld { rho: r.clone() };
            for p in CHECK_PRECISIONS {
                b.meet_lower(gaussian::gaussian_delta(&g, &e, p)?.lower());
                if p != Precision::Auto {
                    b.meet_upper(zcdp::zcdp_delta(&r, &e, p)?.upper());
                }
                if let Some(verdict) = b.decide(&v) {
                    let why = match verdict {
                        Verdict::Unsound => format!(
                            "below the exact δ of the Gaussian mechanism with this ρ (≥ {}), which is ρ-zCDP",
                            b.to_decimals().0.unwrap_or_default()
                        ),
                        _ => bracket_reason(verdict, &b),
                    };
                    return Ok((verdict, why, b));
                }
            }
        }
        Cmd::Zcdp(ZcdpCmd::Epsilon { rho, delta, .. }) => {
            let r = num("--rho", rho)?;
            let d = num("--delta", delta)?;
            let g = pld::GaussianPld { rho: r.clone() };
            b.meet_lower(gaussian::gaussian_epsilon(&g, &d, Precision::Auto)?.lower());
            if let Some(verdict) = b.decide(&v) {
                let why = bracket_reason(verdict, &b);
                return Ok((verdict, why, b));
            }
            for p in CHECK_PRECISIONS {
                if zcdp::zcdp_delta(&r, &v, p)?.upper().0 <= d {
                    return sound_at(&mut b, "Proposition 14 gives δ(ε = value) ≤ δ for every ρ-zCDP mechanism, certified".into());
                }
                if gaussian::gaussian_delta(&g, &v, p)?.lower().0 > d {
                    return unsound_at(&mut b, "the Gaussian mechanism with this ρ (which is ρ-zCDP) has δ(ε = value) > δ, certified".into());
                }
            }
        }
        Cmd::Compose(c) => {
            let (classes, d) = compose_classes(c)?;
            for p in CHECK_PRECISIONS {
                // exact optimum when computable: sound iff δ_opt(value) ≤ δ
                match optimal::optimal_composition_delta(&classes, &v, p) {
                    Ok(at) if at.upper().0 <= d => {
                        return sound_at(&mut b, "the optimal composition has δ(ε = value) ≤ δ, certified".into())
                    }
                    Ok(at) if at.lower().0 > d => {
                        return unsound_at(&mut b, "the optimal composition has δ(ε = value) > δ, certified (k-fold randomized response attains it)".into())
                    }
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
        Cmd::Rdp(RdpCmd::SubsampledGaussian {
            rate,
            sigma,
            steps,
            order,
            ..
        }) => {
            let (q, s, t) = sgm_args(rate, sigma, steps)?;
            let a = num("--order", order)?;
            for p in &CHECK_PRECISIONS[1..] {
                b.meet_enclosure(&rdp::subsampled_gaussian_rdp(&q, &s, &t, &a, *p)?);
                if let Some(verdict) = b.decide(&v) {
                    let why = bracket_reason(verdict, &b);
                    return Ok((verdict, why, b));
                }
            }
        }
        Cmd::Dpsgd(_) => {
            if let (Some(verdict), cited) = dpsgd_bracket(cmd, Some(&v), &mut b)? {
                let mut why = bracket_reason(verdict, &b);
                if let Some(c) = cited {
                    why += &format!(" (by the RDP bound, which rests on a cited result: {c})");
                }
                return Ok((verdict, why, b));
            }
        }
        _ => {}
    }
    Ok((
        Verdict::Undecided,
        "not separated from the exact value by the certified evaluations tried".into(),
        b,
    ))
}

/// DP-SGD: the RDP bound (an upper end) and the two-sided PLD bracket, halving the PLD grid
/// until `value` is decided (or `PLD_CHECK_REFINEMENTS` runs). With `value = None`, one pass.
fn dpsgd_bracket(
    cmd: &Cmd,
    value: Option<&Rational>,
    b: &mut Bracket,
) -> Result<(Option<Verdict>, Option<&'static str>), Error> {
    let Cmd::Dpsgd(DpsgdArgs {
        rate,
        sigma,
        steps,
        delta,
        method,
        pld: pld_args,
        ..
    }) = cmd
    else {
        return Ok((None, None));
    };
    let (q, s, t) = flagged(sgm_args(rate, sigma, steps))?;
    let d = num("--delta", delta)?;
    validate::open_unit("--delta", &d)?;
    if !["rdp", "pld", "best"].contains(&method.as_str()) {
        return Err(Error::arg(
            "--method",
            format!("`{method}` is not rdp, pld or best"),
        ));
    }
    let mut opts = pld_options(pld_args)?;
    opts.progress = false;
    let decided = |b: &Bracket| value.and_then(|v| b.decide(v));
    // the PLD accountant first: two-sided, both neighbour directions, no cited result
    let rounds = if value.is_some() {
        PLD_CHECK_REFINEMENTS
    } else {
        1
    };
    for i in 0..rounds {
        let r = match pld_accountant::dpsgd_pld_epsilon(&q, &s, &t, &d, &opts) {
            Ok(r) => r,
            // the query asked for the PLD route (or chose its grid): its errors are the answer
            Err(e) if i == 0 && (method == "pld" || opts.grid.is_some() || opts.tail.is_some()) => {
                return Err(flagged::<()>(Err(e)).unwrap_err())
            }
            Err(_) => break,
        };
        b.meet_enclosure(&r.enclosure);
        b.set_kind(Kind::TwoSided);
        if let Some(verdict) = decided(b) {
            return Ok((Some(verdict), None));
        }
        // halving the grid doubles the support: stop before a refinement costs more than
        // seconds (10¹² steps: 9 s and 1 GB for the first run; three halvings took 74 s, 2.5 GB)
        if r.support > PLD_CHECK_MAX_SUPPORT {
            break;
        }
        opts.grid = Some(Rational::from(&r.grid / 2u32));
    }
    // then the RDP bound, which rests on a cited domination result (the reason says so)
    if method != "pld" {
        if let Ok((bound, _)) = rdp::dpsgd_rdp_epsilon(&q, &s, &t, &d, Precision::Auto) {
            b.meet_upper(bound.upper());
            if let Some(verdict) = decided(b) {
                return Ok((Some(verdict), bound.rests_on()));
            }
        }
    }
    Ok((None, None))
}

/// One `check` record's JSON result.
fn check_record(i: usize, rec: &Value) -> (Verdict, Value) {
    let query_json = rec.get("query").cloned().unwrap_or(Value::Null);
    let value_json = match rec.get("value") {
        Some(Value::Number(n)) => json!(n.to_string()),
        Some(v) => v.clone(),
        None => Value::Null,
    };
    let result = |verdict: Verdict, why: String, b: Option<&Bracket>| {
        let (kind, lower, upper) = match b {
            Some(b) => {
                let (l, u) = b.to_decimals();
                (json!(b.kind().name()), json!(l), json!(u))
            }
            None => (Value::Null, Value::Null, Value::Null),
        };
        (
            verdict,
            json!({
                "record": i + 1,
                "query": query_json,
                "value": value_json,
                "verdict": verdict.name(),
                "reason": why,
                "kind": kind,
                "lower": lower,
                "upper": upper,
            }),
        )
    };
    if !rec.is_object() {
        return result(
            Verdict::Invalid,
            "a record must be an object {\"query\": [...], \"value\": ...}".into(),
            None,
        );
    }
    let query: Option<Vec<String>> = rec["query"]
        .as_array()
        .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect());
    let Some(query) = query else {
        return result(
            Verdict::Invalid,
            "`query` must be a list of strings (the arguments one would pass to dpcert)".into(),
            None,
        );
    };
    let value = match Claimed::from_json(&rec["value"]) {
        Ok(v) => v,
        Err(e) => return result(Verdict::Invalid, e, None),
    };
    let cmd = match parse_query(&query) {
        Ok(c) => c,
        Err(e) => return result(Verdict::Invalid, e.to_string(), None),
    };
    match judge(&cmd, &value) {
        Ok((verdict, why, b)) => {
            if let Claimed::Finite(v) = &value {
                debug_assert!(b.agrees(verdict, v), "verdict contradicts the bracket");
            }
            result(verdict, why, Some(&b))
        }
        Err(e @ Error::InvalidArgument { .. }) => result(Verdict::Invalid, e.to_string(), None),
        Err(e) => result(Verdict::Undecided, e.to_string(), None),
    }
}

pub(super) fn run_check(a: &CheckArgs) -> Result<i32, Error> {
    let (file, json_mode) = (a.file.as_path(), a.json);
    use std::io::IsTerminal;
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::arg("FILE", format!("cannot read {}: {e}", file.display())))?;
    // other libraries print NaN / Infinity as bare tokens: quote them so they are judged
    let text = quote_nonfinite_tokens(&text);
    let v: Value = serde_json::from_str(&text).map_err(|e| {
        Error::arg(
            "FILE",
            format!(
                "{}: JSON syntax error at line {}, column {}: {e}",
                file.display(),
                e.line(),
                e.column()
            ),
        )
    })?;
    let list = v.as_array().ok_or_else(|| {
        Error::arg(
            "FILE",
            format!(
                "{}: must hold a JSON list of {{\"query\": [...], \"value\": \"...\"}}",
                file.display()
            ),
        )
    })?;
    if list.len() > MAX_CHECK_RECORDS {
        return Err(Error::arg(
            "FILE",
            format!(
                "{}: {} records; at most {MAX_CHECK_RECORDS} are judged in one run (split the file)",
                file.display(),
                list.len()
            ),
        ));
    }
    let progress = std::io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let mut results = Vec::new();
    let mut counts = [0usize; 4];
    for (i, rec) in list.iter().enumerate() {
        if progress && started.elapsed().as_secs() >= 2 {
            eprint!("\rdpcert check: record {}/{} ", i + 1, list.len());
        }
        let (verdict, r) = check_record(i, rec);
        counts[verdict as usize] += 1;
        results.push(r);
    }
    if progress && started.elapsed().as_secs() >= 2 {
        eprintln!();
    }
    let [sound, unsound, undecided, invalid] = counts;
    if json_mode {
        println!(
            "{}",
            json!({
                "results": results,
                "summary": {"records": results.len(), "sound": sound, "unsound": unsound, "undecided": undecided, "invalid": invalid},
            })
        );
    } else {
        for r in &results {
            let q = match r["query"].as_array() {
                Some(a) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| x.to_string())
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
                None => r["query"].to_string(),
            };
            let value = r["value"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| r["value"].to_string());
            let bracket = match (r["lower"].as_str(), r["upper"].as_str()) {
                (None, None) => String::new(),
                (l, u) => format!(
                    "  smallest valid value ∈ [{}, {}] ({})",
                    l.unwrap_or("?"),
                    u.unwrap_or("?"),
                    r["kind"].as_str().unwrap_or("")
                ),
            };
            println!(
                "{:<9}  #{}  {q}  value={value}{bracket}  — {}",
                r["verdict"].as_str().unwrap_or(""),
                r["record"],
                r["reason"].as_str().unwrap_or("")
            );
        }
        println!(
            "{} records: {sound} sound, {unsound} unsound, {undecided} undecided, {invalid} invalid",
            results.len()
        );
    }
    Ok(if unsound + invalid > 0 { 1 } else { 0 })
}
