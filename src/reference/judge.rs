//! Judging a value another library printed for a [`Query`], and a whole `check` file of
//! records. The verdict is read off a [`Bracket`] that every certified evaluation narrows, so
//! the bracket shown never contradicts the verdict.
use super::check::{screen, verdict_word, Bracket, Claimed, Invalid, Kind, Outcome, Verdict};
use super::query::{Dpsgd, GaussianShape, Query};
use crate::dpsgd::Method;
use crate::num::{Certified, Precision};
use crate::theorems::{gaussian, optimal, pld, pld_accountant, rdp, zcdp};
use crate::{Error, Result};
use rug::{Integer, Rational};
use serde_json::{json, Value};

/// Grid halvings `check` tries on a DP-SGD PLD query before calling it undecided (each about
/// doubles the time: 0.2 s … 1.6 s on the MNIST setting).
pub const PLD_CHECK_REFINEMENTS: usize = 4;

/// `check` halves the PLD grid only while the support is at most this many points.
pub const PLD_CHECK_MAX_SUPPORT: usize = 150_000;

/// Most records one `check` run judges (each may take a second or more: the work is linear).
pub const MAX_CHECK_RECORDS: usize = 10_000;

/// Precisions `check` climbs through when a value is not yet separated from the exact one.
pub const CHECK_PRECISIONS: [Precision; 4] = [
    Precision::Auto,
    Precision::Bits(256),
    Precision::Bits(1024),
    Precision::Bits(4096),
];

/// A verdict with its reason and the bracket of the smallest valid value it was read off.
#[derive(Clone, Debug)]
pub struct Judgement {
    /// The verdict on the record.
    pub verdict: Verdict,
    /// Why: the certified comparison (or the screening rule) the verdict was read off.
    pub reason: String,
    /// The bracket of the smallest valid value `t*`; never contradicts the verdict.
    pub bracket: Bracket,
}

type Judged = Result<Judgement>;

fn judged(verdict: Verdict, reason: String, bracket: &Bracket) -> Judged {
    Ok(Judgement {
        verdict,
        reason,
        bracket: bracket.clone(),
    })
}

/// The reason given for a verdict read off the bracket.
fn bracket_reason(v: Verdict, b: &Bracket) -> String {
    let (l, u) = b.to_decimals();
    match v {
        Verdict::Holds => format!(
            "at or above the certified upper end {} of the smallest valid value",
            u.unwrap_or_default()
        ),
        _ => format!(
            "below the certified lower end {} of the smallest valid value",
            l.unwrap_or_default()
        ),
    }
}

/// The verdict read off the bracket, if decided.
fn read_off(b: &Bracket, v: &Rational) -> Option<Judged> {
    b.decide(v)
        .map(|verdict| judged(verdict, bracket_reason(verdict, b), b))
}

/// `value` is certified valid: the smallest valid value is ≤ it.
fn sound_at(b: &mut Bracket, v: &Rational, why: &str) -> Judged {
    b.meet_upper_exact(v);
    judged(Verdict::Holds, why.into(), b)
}

/// `value` is certified invalid: the smallest valid value is > it.
fn unsound_at(b: &mut Bracket, v: &Rational, why: &str) -> Judged {
    b.meet_lower_exact(v);
    judged(Verdict::Fails, why.into(), b)
}

/// Judge one claimed value for a query (`precision`: the query's own, for dpcert's first
/// answer). `Err` only for an invalid query (bad input) or a numerical failure; the bracket
/// is the intersection of every certified evaluation made here, and the verdict agrees with it.
pub fn judge(query: &Query, precision: Precision, value: &Claimed) -> Judged {
    let (qty, kind) = query.quantity();
    let mut b = Bracket::new(qty, kind);
    // dpcert's own answer to the query (this also validates every argument of the query)
    match query {
        Query::Dpsgd(d) if d.run.is_plain() => query.validate()?,
        _ => match query.evaluate(precision, false)?.value {
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
            if let Some(d) = query.plain_dpsgd() {
                dpsgd_bracket(d, None, &mut b)?;
            }
            return judged(verdict, why, &b);
        }
    };
    if query.plain_dpsgd().is_none() {
        if let Some(j) = read_off(&b, &v) {
            return j;
        }
    }
    let decided = match query {
        Query::GaussianDelta { shape, epsilon } => gaussian_delta(shape, epsilon, &v, &mut b)?,
        Query::GaussianEpsilon { shape, delta } => gaussian_epsilon(shape, delta, &v, &mut b)?,
        Query::GaussianSigma {
            epsilon,
            delta,
            sensitivity,
            compositions,
        } => gaussian_sigma(epsilon, delta, sensitivity, compositions, &v, &mut b)?,
        Query::ZcdpDelta { rho, epsilon } => zcdp_delta(rho, epsilon, &v, &mut b)?,
        Query::ZcdpEpsilon { rho, delta } => zcdp_epsilon(rho, delta, &v, &mut b)?,
        Query::Compose { .. } => compose(query, &v, &mut b)?,
        Query::RdpSubsampledGaussian {
            rate,
            sigma,
            steps,
            order,
        } => rdp_point(rate, sigma, steps, order, &v, &mut b)?,
        Query::Dpsgd(d) if d.run.is_plain() => dpsgd(d, &v, &mut b)?,
        Query::GaussianTpr { .. } | Query::GaussianGdp { .. } | Query::DpsgdGdp { .. } => {
            by_higher_precision(query, &v, &mut b)?
        }
        // the PLD bracket does not depend on the precision: nothing more to try
        // (shuffled: an upper bound only, so a value below it cannot be called unsound)
        Query::DpsgdTpr { .. }
        | Query::Dpsgd(_)
        | Query::DpsgdPhases { .. }
        | Query::DpsgdRunDelta { .. }
        | Query::DpsgdDelta { .. } => None,
    };
    match decided {
        Some(j) => Ok(j),
        None => judged(
            Verdict::Undecided,
            "not separated from the exact value by the certified evaluations tried".into(),
            &b,
        ),
    }
}

/// `None`: not decided by this route; `Some(judgement)` otherwise.
type Step = Result<Option<Judgement>>;

fn gaussian_delta(shape: &GaussianShape, e: &Rational, v: &Rational, b: &mut Bracket) -> Step {
    let pld = shape.pld()?;
    for p in &CHECK_PRECISIONS[1..] {
        b.meet_enclosure(&gaussian::gaussian_delta(&pld, e, *p)?);
        if let Some(j) = read_off(b, v) {
            return j.map(Some);
        }
    }
    Ok(None)
}

/// A two-sided query re-evaluated at the higher check precisions until `value` is separated.
fn by_higher_precision(query: &Query, v: &Rational, b: &mut Bracket) -> Step {
    for p in &CHECK_PRECISIONS[1..] {
        if let Certified::TwoSided(e) = query.evaluate(*p, false)?.value {
            b.meet_enclosure(&e);
        }
        if let Some(j) = read_off(b, v) {
            return j.map(Some);
        }
    }
    Ok(None)
}

/// Decide `value` by the certified δ at it: sound iff δ(value) ≤ target.
fn by_delta_at(
    b: &mut Bracket,
    v: &Rational,
    target: &Rational,
    at: impl Fn(Precision) -> Result<crate::Enclosure>,
    (sound, unsound): (&str, &str),
) -> Step {
    for p in CHECK_PRECISIONS {
        let at = at(p)?;
        if *at.upper().as_float() <= *target {
            return sound_at(b, v, sound).map(Some);
        }
        if *at.lower().as_float() > *target {
            return unsound_at(b, v, unsound).map(Some);
        }
    }
    Ok(None)
}

fn gaussian_epsilon(shape: &GaussianShape, d: &Rational, v: &Rational, b: &mut Bracket) -> Step {
    let pld = shape.pld()?;
    by_delta_at(
        b,
        v,
        d,
        |p| gaussian::gaussian_delta(&pld, v, p),
        (
            "δ(ε = value) ≤ δ, certified: (value, δ)-DP holds",
            "δ(ε = value) > δ, certified: (value, δ)-DP fails for this mechanism",
        ),
    )
}

fn gaussian_sigma(
    e: &Rational,
    d: &Rational,
    sensitivity: &Rational,
    k: &Integer,
    v: &Rational,
    b: &mut Bracket,
) -> Step {
    let pld = gaussian::gaussian_composition(&[gaussian::GaussianMechanism {
        sigma: v.clone(),
        sensitivity: sensitivity.clone(),
        count: k.clone(),
    }])?;
    by_delta_at(
        b,
        v,
        d,
        |p| gaussian::gaussian_delta(&pld, e, p),
        (
            "with σ = value, δ(ε) ≤ δ, certified: (ε, δ)-DP holds",
            "with σ = value, δ(ε) > δ, certified: (ε, δ)-DP fails",
        ),
    )
}

fn zcdp_delta(r: &Rational, e: &Rational, v: &Rational, b: &mut Bracket) -> Step {
    // the Gaussian with this ρ is ρ-zCDP: a valid δ for the class is ≥ its exact δ
    let g = pld::GaussianPld { rho: r.clone() };
    for p in CHECK_PRECISIONS {
        b.meet_lower(gaussian::gaussian_delta(&g, e, p)?.lower());
        if p != Precision::Auto {
            b.meet_upper(zcdp::zcdp_delta(r, e, p)?.upper());
        }
        if let Some(verdict) = b.decide(v) {
            let why = match verdict {
                Verdict::Fails => format!(
                    "below the exact δ of the Gaussian mechanism with this ρ (≥ {}), which is ρ-zCDP",
                    b.to_decimals().0.unwrap_or_default()
                ),
                _ => bracket_reason(verdict, b),
            };
            return judged(verdict, why, b).map(Some);
        }
    }
    Ok(None)
}

fn zcdp_epsilon(r: &Rational, d: &Rational, v: &Rational, b: &mut Bracket) -> Step {
    let g = pld::GaussianPld { rho: r.clone() };
    b.meet_lower(gaussian::gaussian_epsilon(&g, d, Precision::Auto)?.lower());
    if let Some(j) = read_off(b, v) {
        return j.map(Some);
    }
    for p in CHECK_PRECISIONS {
        if *zcdp::zcdp_delta(r, v, p)?.upper().as_float() <= *d {
            return sound_at(
                b,
                v,
                "Proposition 14 gives δ(ε = value) ≤ δ for every ρ-zCDP mechanism, certified",
            )
            .map(Some);
        }
        if *gaussian::gaussian_delta(&g, v, p)?.lower().as_float() > *d {
            return unsound_at(b, v, "the Gaussian mechanism with this ρ (which is ρ-zCDP) has δ(ε = value) > δ, certified").map(Some);
        }
    }
    Ok(None)
}

fn compose(query: &Query, v: &Rational, b: &mut Bracket) -> Step {
    let (classes, d) = query.compose_classes()?;
    for p in CHECK_PRECISIONS {
        // exact optimum when computable: sound iff δ_opt(value) ≤ δ
        match optimal::optimal_composition_delta(&classes, v, p) {
            Ok(at) if *at.upper().as_float() <= d => {
                return sound_at(
                    b,
                    v,
                    "the optimal composition has δ(ε = value) ≤ δ, certified",
                )
                .map(Some)
            }
            Ok(at) if *at.lower().as_float() > d => {
                return unsound_at(b, v, "the optimal composition has δ(ε = value) > δ, certified (k-fold randomized response attains it)").map(Some)
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(None)
}

fn rdp_point(
    q: &Rational,
    s: &Rational,
    t: &Integer,
    a: &Rational,
    v: &Rational,
    b: &mut Bracket,
) -> Step {
    for p in &CHECK_PRECISIONS[1..] {
        b.meet_enclosure(&rdp::subsampled_gaussian_rdp(q, s, t, a, *p)?);
        if let Some(j) = read_off(b, v) {
            return j.map(Some);
        }
    }
    Ok(None)
}

fn dpsgd(d: &Dpsgd, v: &Rational, b: &mut Bracket) -> Step {
    if let (Some(verdict), cited) = dpsgd_bracket(d, Some(v), b)? {
        let mut why = bracket_reason(verdict, b);
        if let Some(c) = cited {
            why += &format!(" (by the RDP bound, which rests on a cited result: {c})");
        }
        return judged(verdict, why, b).map(Some);
    }
    Ok(None)
}

/// DP-SGD: the RDP bound (an upper end) and the two-sided PLD bracket, halving the PLD grid
/// until `value` is decided (or `PLD_CHECK_REFINEMENTS` runs). With `value = None`, one pass.
/// Returns the verdict, if any, and the cited result it rests on, if any.
pub fn dpsgd_bracket(
    d: &Dpsgd,
    value: Option<&Rational>,
    b: &mut Bracket,
) -> Result<(Option<Verdict>, Option<&'static str>)> {
    let mut opts = d.accounting.pld_options();
    let decided = |b: &Bracket| value.and_then(|v| b.decide(v));
    let (q, s, t, delta) = (&d.run.rate, &d.run.sigma, &d.run.steps, &d.delta);
    let acc = &d.accounting;
    let user_chose = d.run.method == Method::Pld || acc.grid.is_some() || acc.tail.is_some();
    // the PLD accountant first: two-sided, both neighbour directions, no cited result
    let rounds = if value.is_some() {
        PLD_CHECK_REFINEMENTS
    } else {
        1
    };
    for i in 0..rounds {
        let r = match pld_accountant::dpsgd_pld_epsilon(q, s, t, delta, &opts) {
            Ok(r) => r,
            // the query asked for the PLD route (or chose its grid): its errors are the answer
            Err(e) if i == 0 && user_chose => return Err(e),
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
    if d.run.method != Method::Pld {
        if let Ok((bound, _)) = rdp::dpsgd_rdp_epsilon(q, s, t, delta, Precision::Auto) {
            b.meet_upper(bound.upper());
            if let Some(verdict) = decided(b) {
                return Ok((Some(verdict), bound.rests_on()));
            }
        }
    }
    Ok((None, None))
}

/// A record's query as written: the argument list one would pass to `dpcert`, or the request
/// object a binding sends (`{"command": "gaussian", "subcommand": "delta", "sigma": "1", ...}`).
#[derive(Clone, Copy, Debug)]
pub enum QueryForm<'a> {
    /// `["gaussian", "delta", "--sigma", "1", ...]`.
    Args(&'a [String]),
    /// `{"command": "gaussian", "subcommand": "delta", "sigma": "1", ...}`.
    Request(&'a Value),
}

/// Parses a record's query (either [`QueryForm`]) into a query and the precision it asks for.
/// The command line supplies its own parser; both forms reach the same typed [`Query`].
pub type QueryParser<'a> = &'a dyn Fn(QueryForm) -> Result<(Query, Precision)>;

/// One `check` record's result, as JSON data (`record`, `query`, `value`, `verdict`,
/// `reason`, `bracket`).
pub fn check_record(i: usize, rec: &Value, parse: QueryParser) -> (Outcome, Value) {
    let query_json = rec.get("query").cloned().unwrap_or(Value::Null);
    let value_json = match rec.get("value") {
        Some(Value::Number(n)) => json!(n.to_string()),
        Some(v) => v.clone(),
        None => Value::Null,
    };
    let result = |verdict: Outcome, why: String, b: Option<&Bracket>| {
        (
            verdict,
            json!({
                "record": i + 1,
                "query": query_json,
                "value": value_json,
                "verdict": verdict_word(verdict),
                "reason": why,
                "bracket": b.map_or(Value::Null, Bracket::to_json),
            }),
        )
    };
    let (query, precision, value) = match read_record(rec, parse) {
        Ok(r) => r,
        Err(why) => return result(Err(Invalid), why, None),
    };
    match judge(&query, precision, &value) {
        Ok(j) => {
            if let Claimed::Finite(v) = &value {
                debug_assert!(
                    j.bracket.agrees(j.verdict, v),
                    "verdict contradicts the bracket"
                );
            }
            result(Ok(j.verdict), j.reason, Some(&j.bracket))
        }
        Err(e @ Error::InvalidArgument { .. }) => result(Err(Invalid), e.to_string(), None),
        Err(e) => result(Ok(Verdict::Undecided), e.to_string(), None),
    }
}

/// A record's query and value, or why the record is invalid.
fn read_record(
    rec: &Value,
    parse: QueryParser,
) -> std::result::Result<(Query, Precision, Claimed), String> {
    if !rec.is_object() {
        return Err("a record must be an object {\"query\": [...], \"value\": ...}".into());
    }
    let args: Option<Vec<String>> = rec["query"]
        .as_array()
        .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect());
    let form = match (&args, &rec["query"]) {
        (Some(a), _) => QueryForm::Args(a),
        (None, r @ Value::Object(_)) => QueryForm::Request(r),
        _ => {
            return Err(
                "`query` must be a list of strings (the arguments one would pass to \
                 dpcert) or a request object ({\"command\": ..., the flags' long names with \
                 underscores: their texts})"
                    .into(),
            )
        }
    };
    let value = Claimed::from_json(&rec["value"])?;
    let (q, p) = parse(form).map_err(|e| e.to_string())?;
    Ok((q, p, value))
}

/// The verdict counts of a `check` run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of records judged sound.
    pub sound: usize,
    /// Number of records judged unsound.
    pub unsound: usize,
    /// Number of records left undecided.
    pub undecided: usize,
    /// Number of malformed (invalid) records.
    pub invalid: usize,
}

impl Summary {
    fn add(&mut self, v: Outcome) {
        match v {
            Ok(Verdict::Holds) => self.sound += 1,
            Ok(Verdict::Fails) => self.unsound += 1,
            Ok(Verdict::Undecided) => self.undecided += 1,
            Err(Invalid) => self.invalid += 1,
        }
    }
    /// The exit code of the run (see [`crate::exit`]): 1 if any record is unsound or
    /// invalid, else 4 if any is undecided, else 0.
    pub fn exit_code(&self) -> i32 {
        if self.unsound + self.invalid > 0 {
            crate::exit::REFUTED
        } else if self.undecided > 0 {
            crate::exit::UNDECIDED
        } else {
            crate::exit::OK
        }
    }
    /// The summary as a JSON object: `records` (the given total) and the four verdict counts.
    pub fn to_json(&self, records: usize) -> Value {
        json!({"records": records, "sound": self.sound, "unsound": self.unsound,
               "undecided": self.undecided, "invalid": self.invalid})
    }
}

/// Read a `check` file's text: a JSON list of `{"query": [...], "value": ...}` (bare NaN /
/// Infinity tokens accepted). `Err` (bad input, naming `FILE`) when it is not such a list.
pub fn parse_records(text: &str, file: &str) -> Result<Vec<Value>> {
    let text = crate::input::clean(text);
    let text = super::check::quote_nonfinite_tokens(&text);
    let v: Value = crate::input::json_value(&text).map_err(|e| match e {
        Error::InvalidArgument { name, reason } => Error::arg(&name, format!("{file}: {reason}")),
        other => other,
    })?;
    let Value::Array(list) = v else {
        return Err(Error::arg(
            "FILE",
            format!("{file}: must hold a JSON list of {{\"query\": [...], \"value\": \"...\"}}"),
        ));
    };
    if list.len() > MAX_CHECK_RECORDS {
        return Err(Error::arg(
            "FILE",
            format!(
                "{file}: {} records; at most {MAX_CHECK_RECORDS} are judged in one run (split the file)",
                list.len()
            ),
        ));
    }
    Ok(list)
}

/// Judge every record (`progress(i)` is called before record `i`): the per-record results and
/// the counts.
pub fn check_records(
    list: &[Value],
    parse: QueryParser,
    mut progress: impl FnMut(usize),
) -> (Vec<Value>, Summary) {
    let mut summary = Summary::default();
    let mut results = Vec::with_capacity(list.len());
    for (i, rec) in list.iter().enumerate() {
        progress(i);
        let (verdict, r) = check_record(i, rec, parse);
        summary.add(verdict);
        results.push(r);
    }
    (results, summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_exact;
    fn rational(s: &str) -> Rational {
        parse_exact(s).unwrap()
    }

    /// Independent reference: with Δ = σ the Gaussian's exact δ(0) is
    /// erf(1/(2√2)) = 0.38292492254802620727…; values just below / above are decided, and
    /// the bracket agrees with each verdict.
    #[test]
    fn gaussian_delta_values_are_judged_against_erf() {
        let query = Query::GaussianDelta {
            shape: GaussianShape {
                sigma: rational("1"),
                sensitivity: rational("1"),
                compositions: Integer::from(1),
            },
            epsilon: rational("0"),
        };
        let exact = rug::Float::with_val(256, 8).sqrt().recip().erf();
        let below = exact.to_rational().unwrap() - rational("1e-15");
        let above = exact.to_rational().unwrap() + rational("1e-15");
        for (v, want) in [
            (below, Verdict::Fails),
            (above, Verdict::Holds),
            (rational("-1e-30"), Verdict::Fails),
            (rational("1"), Verdict::Holds),
        ] {
            let j = judge(&query, Precision::Auto, &Claimed::Finite(v.clone())).unwrap();
            assert_eq!(j.verdict, want, "{v}: {}", j.reason);
            assert!(j.bracket.agrees(j.verdict, &v));
        }
        let nan = judge(&query, Precision::Auto, &Claimed::NaN).unwrap();
        assert_eq!(nan.verdict, Verdict::Fails);
    }

    #[test]
    fn records_and_exit_codes() {
        let parse = |f: QueryForm| -> Result<(Query, Precision)> {
            let QueryForm::Args(a) = f else {
                return Err(Error::arg("query", "not a list"));
            };
            match a.first().map(String::as_str) {
                Some("zcdp") => Ok((
                    Query::ZcdpEpsilon {
                        rho: rational("1/8"),
                        delta: rational("1e-5"),
                    },
                    Precision::Auto,
                )),
                _ => Err(Error::arg("query", "unknown")),
            }
        };
        // ρ = 1/8, δ = 1e-5: Remark 15's ρ + 2√(ρ ln 1e5) ≈ 2.524 is valid, so 3 is; the
        // Gaussian with σ = 2 (ρ = 1/8) needs ε > 1 at δ = 1e-5 (δ(1) ≈ 0.13), so 0.5 is not
        let list = parse_records(
            r#"[{"query": ["zcdp"], "value": "3"}, {"query": ["zcdp"], "value": 0.5},
                {"query": ["x"], "value": 1}, 7, {"query": ["zcdp"], "value": NaN}]"#,
            "t.json",
        )
        .unwrap();
        let (results, s) = check_records(&list, &parse, |_| {});
        let verdicts: Vec<&str> = results
            .iter()
            .map(|r| r["verdict"].as_str().unwrap())
            .collect();
        assert_eq!(
            verdicts,
            ["sound", "unsound", "invalid", "invalid", "unsound"]
        );
        assert_eq!(s.exit_code(), crate::exit::REFUTED);
        assert_eq!(
            Summary {
                undecided: 1,
                sound: 3,
                ..Summary::default()
            }
            .exit_code(),
            crate::exit::UNDECIDED
        );
        assert_eq!(Summary::default().exit_code(), crate::exit::OK);
        assert!(parse_records("{}", "f").is_err());
        assert!(parse_records("[1,", "f").is_err());
    }
}
