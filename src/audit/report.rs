//! The audit report as data (JSON), as a table, and as a short text with a verdict sentence.
use super::{verdict_word, Answer, Report, RouteResult, Verdict};
use crate::json::{lower_decimal, quantity};
use crate::validate::{plain_decimal, show};
use rug::Rational;
use serde_json::{json, Map, Value};
use std::fmt::{self, Write};

/// Significant digits of the human-readable output unless asked otherwise.
pub const DEFAULT_DIGITS: usize = 8;

fn legacy_json(a: &Answer) -> Value {
    json!({
        "lower": a.lower().map(|l| l.to_decimal()),
        "upper": a.upper().to_decimal(),
        "exact": a.is_two_sided(),
        "kind": a.kind(),
        "rests_on": a.rests_on(),
        "precision_bits": a.formula().precision_bits(),
        "arithmetic": a.formula().arithmetic().name(),
    })
}

/// `lower` and `upper` of an answer at `digits` significant digits, rounded outward.
fn bracket(a: &Answer, digits: usize) -> String {
    match a.lower() {
        Some(l) => format!(
            "[{}, {}]",
            plain_decimal(l.to_decimal_digits(digits)),
            plain_decimal(a.upper().to_decimal_digits(digits))
        ),
        None => format!("≤ {}", plain_decimal(a.upper().to_decimal_digits(digits))),
    }
}

impl Report {
    /// The verdict on the claim (`None` when the deployment makes none).
    pub fn verdict(&self) -> Option<Verdict> {
        self.claim.as_ref().map(|c| c.verdict)
    }

    /// The route that gave the best ε (`None` when no route certified a finite ε).
    pub fn epsilon_route(&self) -> Option<&RouteResult> {
        self.best_epsilon.as_ref().map(|(i, _)| &self.routes[*i])
    }

    /// The route that gave the best δ (`None` when no route certified δ < 1).
    pub fn delta_route(&self) -> Option<&RouteResult> {
        self.best_delta.as_ref().map(|(i, _)| &self.routes[*i])
    }

    /// The mechanisms as data: name, type, exact parameters, count.
    fn mechanisms_json(&self) -> Value {
        let list = self.ledger.entries.iter().map(|m| {
            let mut o = Map::new();
            o.insert("name".into(), json!(m.name));
            o.insert("type".into(), json!(m.mechanism.type_name()));
            for (k, v) in m.mechanism.parameters() {
                o.insert(k.into(), json!(v));
            }
            o.insert("count".into(), json!(m.repeat.to_string()));
            Value::Object(o)
        });
        Value::Array(list.collect())
    }

    /// The `result` object of the `dpcert/1` envelope for `audit`: every key always present
    /// (`null` or `[]` when empty), every certified number a [`crate::json::quantity`],
    /// parameters as exact strings.
    ///
    /// # Guarantee
    /// Every quantity is printed outward in full (see [`crate::json::quantity`]).
    pub fn result_json(&self) -> Value {
        let d = &self.deployment;
        let exact = |x: &Option<Rational>| x.as_ref().map(crate::audit::ledger::exact_text);
        let routes: Vec<Value> = self
            .routes
            .iter()
            .map(|r| {
                json!({
                    "id": r.id.key(),
                    "name": r.name,
                    "steps": r.steps.iter().map(|s| json!({"theorem": s.theorem, "value": s.value})).collect::<Vec<_>>(),
                    "epsilon": r.epsilon.as_ref().map(quantity),
                    "delta": r.delta.as_ref().map(quantity),
                    "note": r.note,
                })
            })
            .collect();
        let not_applicable: Vec<Value> = self
            .not_applicable
            .iter()
            .map(|(id, why)| json!({"id": id.key(), "name": id.name(), "why_not": why.0}))
            .collect();
        let claim = self.claim.as_ref().map(|c| {
            json!({
                "epsilon": crate::audit::ledger::exact_text(&c.epsilon),
                "delta": crate::audit::ledger::exact_text(&c.delta),
                "verdict": verdict_word(Some(c.verdict)),
                "delta_at_claimed_epsilon": c.delta_at_claim.as_ref().map(quantity),
                "route": c.route.map(|r| r.key()),
                "explanation": c.explanation,
            })
        });
        json!({
            "mechanisms": self.mechanisms_json(),
            "budget": {"delta": exact(&d.budget_delta), "epsilon": exact(&d.budget_epsilon)},
            "epsilon": self.best_epsilon.as_ref().map(|(_, a)| quantity(a)),
            "epsilon_route": self.epsilon_route().map(|r| r.id.key()),
            "delta": self.best_delta.as_ref().map(|(_, a)| quantity(a)),
            "delta_route": self.delta_route().map(|r| r.id.key()),
            "routes": routes,
            "not_applicable": not_applicable,
            "claim": claim,
            "verdict": verdict_word(self.verdict()),
            "summary": self.summary(DEFAULT_DIGITS),
            "notes": self.notes,
        })
    }

    /// The machine-readable report of the command line before the `dpcert/1` envelope
    /// (kept until the command line prints [`Report::result_json`] in the envelope).
    ///
    /// # Guarantee
    /// Bounds printed outward in full (upper rounded up, lower down).
    pub fn to_json(&self) -> Value {
        let d = &self.deployment;
        let mut o = Map::new();
        let mechanisms = self.ledger.entries.iter().map(|m| {
            json!({"name": m.name, "mechanism": m.mechanism.describe(), "repeat": m.repeat.to_string()})
        });
        o.insert("mechanisms".into(), Value::Array(mechanisms.collect()));
        if let Some(dl) = &d.budget_delta {
            o.insert("budget_delta".into(), json!(show(dl)));
            // no route certified a finite ε: null, never "inf" (the notes say why)
            let e = self.best_epsilon.as_ref().map(|(_, a)| legacy_json(a));
            o.insert("epsilon".into(), e.unwrap_or(Value::Null));
        }
        if let Some(e) = &d.budget_epsilon {
            o.insert("budget_epsilon".into(), json!(show(e)));
            let x = self.best_delta.as_ref().map(|(_, a)| legacy_json(a));
            o.insert("delta".into(), x.unwrap_or(Value::Null));
        }
        let winner = self.epsilon_route().or(self.delta_route()).map(|r| r.name);
        o.insert("route".into(), json!(winner));
        if let Some(r) = self.epsilon_route() {
            o.insert("epsilon_route".into(), json!(r.name));
        }
        if let Some(r) = self.delta_route() {
            o.insert("delta_route".into(), json!(r.name));
        }
        let routes = self.routes.iter().map(|r| {
            json!({
                "name": r.name,
                "theorems": r.steps.iter().map(|s| s.theorem.clone()).collect::<Vec<_>>(),
                "steps": r.steps.iter().map(|s| json!({"theorem": s.theorem, "value": s.value})).collect::<Vec<_>>(),
                "epsilon": r.epsilon.as_ref().map(legacy_json),
                "delta": r.delta.as_ref().map(legacy_json),
                "note": r.note,
            })
        });
        o.insert("routes".into(), Value::Array(routes.collect()));
        if let Some(c) = &self.claim {
            let claim = json!({
                "epsilon": show(&c.epsilon),
                "delta": show(&c.delta),
                "verdict": verdict_word(Some(c.verdict)),
                "delta_at_claimed_epsilon": c.delta_at_claim.as_ref().map(legacy_json),
                "route": c.route.map(|r| r.name()),
                "explanation": c.explanation,
            });
            o.insert("claim".into(), claim);
        }
        o.insert("notes".into(), json!(self.notes));
        Value::Object(o)
    }

    /// One sentence on the claim, e.g. "ε at δ = 1e-6 is at most 6.457, 3.2× the claimed 2 —
    /// refuted": in terms of ε when the budget δ is the claimed δ and the ε answer decides the
    /// same way, else in terms of δ at the claimed ε. `None` without a claim.
    ///
    /// # Guarantee
    /// Printing only rounds outward: every upper end is printed rounded up, every lower end
    /// rounded down, so each printed bound is still a bound of what the report certifies.
    /// The "N× the claimed" ratio is a display (2 digits), not a bound.
    pub fn summary(&self, digits: usize) -> Option<String> {
        let c = self.claim.as_ref()?;
        let verdict = verdict_word(Some(c.verdict));
        let eps = self.best_epsilon.as_ref().map(|(_, a)| a);
        let by_epsilon = self.deployment.budget_delta.as_ref() == Some(&c.delta)
            && eps.is_some_and(|a| match c.verdict {
                Verdict::Holds => a.upper().0 <= c.epsilon,
                Verdict::Fails => a.lower().is_some_and(|l| l.0 > c.epsilon),
                _ => true,
            });
        let ratio = |x: f64, of: &Rational| {
            let r = x / of.to_f64();
            if of.is_zero() || !r.is_finite() {
                String::new()
            } else {
                format!(", {}× the claimed {}", sig(r, 2), show(of))
            }
        };
        Some(if let (true, Some(a)) = (by_epsilon, eps) {
            let (what, x) = match (c.verdict, a.lower()) {
                (Verdict::Fails, Some(l)) => {
                    ("at least", plain_decimal(l.to_decimal_digits(digits)))
                }
                _ => (
                    "at most",
                    plain_decimal(a.upper().to_decimal_digits(digits)),
                ),
            };
            let shown = x.parse::<f64>().unwrap_or(f64::NAN);
            format!(
                "ε at δ = {} is {what} {x}{} — {verdict}",
                show(&c.delta),
                ratio(shown, &c.epsilon)
            )
        } else {
            match &c.delta_at_claim {
                // decided from ε at the claimed δ (a route without δ(ε)): its explanation
                None if c.route == Some(super::RouteId::Substitution) => {
                    format!("{} — {verdict}", c.explanation)
                }
                Some(a) => format!(
                    "δ at ε = {} is within {}, against the claimed {} — {verdict}",
                    show(&c.epsilon),
                    bracket(a, digits),
                    show(&c.delta)
                ),
                None => format!(
                    "no route certifies δ < 1 at the claimed ε = {} — {verdict}",
                    show(&c.epsilon)
                ),
            }
        })
    }

    /// The human-readable table, numbers at 8 significant digits (see [`Report::text`]).
    ///
    /// # Guarantee
    /// Printing only rounds outward: every upper end is printed rounded up, every lower end
    /// rounded down, so each printed bound is still a bound of what the report certifies.
    pub fn to_table(&self) -> String {
        self.text(DEFAULT_DIGITS)
    }

    /// The human-readable report, bounds printed outward at `digits` significant digits
    /// (the certified lines in full).
    ///
    /// # Guarantee
    /// Printing only rounds outward: every upper end is printed rounded up, every lower end
    /// rounded down, so each printed bound is still a bound of what the report certifies.
    pub fn text(&self, digits: usize) -> String {
        let mut s = self.mechanisms_table();
        s += &self.routes_table(digits);
        s += &self.certified_lines(digits);
        s
    }

    fn mechanisms_table(&self) -> String {
        let l = &self.ledger;
        let mut s = String::from("Mechanisms\n");
        let w = l
            .entries
            .iter()
            .map(|m| m.name.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, 60); // a width above u16::MAX panics in `format!`
        for m in &l.entries {
            let _ = writeln!(
                s,
                "  {:<w$}  {:<34} × {}",
                m.name,
                m.mechanism.describe(),
                m.repeat
            );
        }
        s.push('\n');
        s
    }

    fn routes_table(&self, digits: usize) -> String {
        let d = &self.deployment;
        let head_e = d
            .budget_delta
            .as_ref()
            .map(|x| format!("ε at δ={}", show(x)));
        let head_d = d
            .budget_epsilon
            .as_ref()
            .map(|x| format!("δ at ε={}", show(x)));
        let mut header = format!("{:<29}", "Routes");
        if let Some(h) = &head_e {
            header += &format!("  {h:<26}");
        }
        if let Some(h) = &head_d {
            header += &format!("  {h}");
        }
        let mut s = format!("{}\n", header.trim_end());
        let cell = |a: &Option<Answer>| match a {
            Some(a) if a.lower().is_none() && a.rests_on().is_some() => {
                format!("{} (cited)", bracket(a, digits))
            }
            Some(a) => bracket(a, digits),
            None => "—".to_string(),
        };
        for r in &self.routes {
            let mut line = format!("  {:<27}", r.name);
            if head_e.is_some() {
                let _ = write!(line, "  {:<26}", cell(&r.epsilon));
            }
            if head_d.is_some() {
                let _ = write!(line, "  {}", cell(&r.delta));
            }
            if let Some(n) = &r.note {
                let _ = write!(line, "   ({n})");
            }
            let _ = writeln!(s, "{}", line.trim_end());
        }
        // the footnote sits under the table whose rows it qualifies, not under the result
        let cited = self
            .routes
            .iter()
            .flat_map(|r| [&r.epsilon, &r.delta])
            .find_map(|a| a.as_ref().and_then(|a| a.rests_on()));
        if let Some(c) = cited {
            let _ = writeln!(s, "  (cited) rests on {c}");
        }
        s.push('\n');
        s
    }

    fn certified_lines(&self, digits: usize) -> String {
        let d = &self.deployment;
        let mut s = String::new();
        if let Some(dl) = &d.budget_delta {
            match (&self.best_epsilon, self.epsilon_route()) {
                (Some((_, a)), Some(r)) => {
                    let _ = writeln!(
                        s,
                        "Certified: ({}, {})-DP   [{}{}]",
                        plain_decimal(a.upper().to_decimal()),
                        show(dl),
                        r.name,
                        cited_mark(a)
                    );
                    if let Some(l) = a.lower().filter(|l| l.0 > 0) {
                        let _ = writeln!(
                            s,
                            "  exact: no ε below {} holds at this δ",
                            plain_decimal(lower_decimal(l))
                        );
                    }
                }
                _ => {
                    let _ = writeln!(s, "Certified: no finite ε at δ = {}", show(dl));
                }
            }
        }
        if let Some(e) = &d.budget_epsilon {
            match (&self.best_delta, self.delta_route()) {
                (Some((_, a)), Some(r)) => {
                    let _ = writeln!(
                        s,
                        "Certified: ({}, {})-DP   [{}{}]",
                        show(e),
                        plain_decimal(a.upper().to_decimal()),
                        r.name,
                        cited_mark(a)
                    );
                }
                _ => {
                    let _ = writeln!(s, "Certified: no δ < 1 at ε = {}", show(e));
                }
            }
        }
        if let Some(c) = &self.claim {
            let _ = writeln!(
                s,
                "Claim ({}, {})-DP: {}. {}",
                show(&c.epsilon),
                show(&c.delta),
                verdict_word(Some(c.verdict)).to_uppercase(),
                c.explanation
            );
            if let Some(sentence) = self.summary(digits) {
                let _ = writeln!(s, "In short: {sentence}.");
            }
        }
        for n in &self.notes {
            let _ = writeln!(s, "Note: {n}");
        }
        s
    }
}

/// " (cited)" for an answer resting on a cited result (the footnote under the routes says which).
fn cited_mark(a: &Answer) -> &'static str {
    if a.lower().is_none() && a.rests_on().is_some() {
        " (cited)"
    } else {
        ""
    }
}

/// `x` at `n` significant digits (a display of a ratio, not a bound).
fn sig(x: f64, n: usize) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (n as i32 - 1 - mag).max(0) as usize;
    format!("{x:.decimals$}")
}

/// The report as text; `{:.N}` prints N significant digits (8 by default).
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(f.precision().unwrap_or(DEFAULT_DIGITS)))
    }
}
