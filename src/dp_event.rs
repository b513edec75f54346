//! dp_accounting's `DpEvent` trees, read onto dpcert's deployment format.
//!
//! A `DpEvent` is given in its named-tuple form as JSON: an object with `"class_name"` (as
//! `DpEvent.to_named_tuple()` has it, e.g. `"GaussianDpEvent"`; `"module_name"` is ignored) and
//! the event's fields, nested events as objects. Numbers are JSON numbers (read from their
//! text, never through `f64`) or strings holding an exact decimal or fraction.
//!
//! | DpEvent | deployment entry |
//! |---|---|
//! | `GaussianDpEvent(noise_multiplier=s)` | `gaussian`, σ = s, Δ₂ = 1 |
//! | `LaplaceDpEvent(noise_multiplier=b)` | `laplace`, scale b, Δ₁ = 1 |
//! | `EpsilonDeltaDpEvent(epsilon, delta)` | `pure` (δ = 0) or `approx` black box |
//! | `ZCDpEvent(rho, xi=0)` | `zcdp` black box |
//! | `PoissonSampledDpEvent(q, GaussianDpEvent(s))` | `subsampled-gaussian`, one step (q = 1: the inner event) |
//! | `SelfComposedDpEvent(event, count)` | the event's entries, `repeat` (DP-SGD: `steps`) × count |
//! | `ComposedDpEvent(events)` | the entries of every event (identical entries merged) |
//! | `NoOpDpEvent` | nothing |
//!
//! Every other event is refused by name with the reason, never skipped: `NonPrivateDpEvent`
//! (no finite guarantee), `RandomizedResponseDpEvent` (its ε = ln(1 + k(1−p)/p) is irrational
//! and dpcert's randomized response takes an exact ε), `SampledWithoutReplacementDpEvent`
//! (no certified fixed-size-sampling mechanism in the audit), `ZCDpEvent` with ξ ≠ 0, Poisson
//! sampling of anything but one Gaussian, and classes dpcert does not know.
//!
//! A `dp-event` file (`dpcert audit FILE --format dp-event`) is one JSON object
//! `{"budget": {...}, "claim": {...}, "event": DpEvent}` with `budget` / `claim` as in a
//! deployment file.
use crate::deploy::Deployment;
use crate::num::{parse_exact, parse_positive_integer};
use crate::{Error, Result};
use rug::{Integer, Rational};
use serde_json::{json, Map, Value};

/// Deepest event nesting read (dp_accounting trees are a few levels deep).
pub const MAX_DEPTH: usize = 64;

/// One flattened release: the deployment entry's fields (without `repeat`), and its count.
struct Release {
    fields: Map<String, Value>,
    count: Integer,
}

/// The DpEvent classes the mapping knows (short names accepted too: `Gaussian`, …).
pub const CLASSES: &[&str] = &[
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "EpsilonDeltaDpEvent",
    "ZCDpEvent",
    "PoissonSampledDpEvent",
    "SelfComposedDpEvent",
    "ComposedDpEvent",
    "NoOpDpEvent",
];

fn class_of<'a>(ev: &'a Value, at: &str) -> Result<&'a str> {
    let name = ev
        .get("class_name")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::arg(at, "is not a DpEvent (an object with a `class_name`)"))?;
    Ok(name)
}

/// A numeric field as its exact text, checked to parse.
fn number(ev: &Value, field: &str, at: &str) -> Result<(String, Rational)> {
    let name = format!("{at}.{field}");
    let text = match ev.get(field) {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => return Err(Error::arg(&name, "is missing")),
        Some(_) => return Err(Error::arg(&name, "must be a number or a string holding one")),
    };
    let value = parse_exact(&text).map_err(|e| Error::arg(&name, e))?;
    Ok((text, value))
}

fn positive(ev: &Value, field: &str, at: &str) -> Result<String> {
    let (text, v) = number(ev, field, at)?;
    if v <= 0 {
        return Err(Error::arg(
            &format!("{at}.{field}"),
            format!("must be > 0, got {text} (no noise: not private)"),
        ));
    }
    Ok(text)
}

fn nested<'a>(ev: &'a Value, field: &str, at: &str) -> Result<&'a Value> {
    ev.get(field)
        .filter(|v| v.is_object())
        .ok_or_else(|| Error::arg(&format!("{at}.{field}"), "is missing or not a DpEvent"))
}

fn one(fields: Value) -> Vec<Release> {
    let Value::Object(fields) = fields else {
        unreachable!("entries are built as objects")
    };
    vec![Release {
        fields,
        count: Integer::from(1),
    }]
}

fn refuse(class: &str, at: &str, why: &str) -> Error {
    Error::arg(at, format!("{class} is not supported: {why}"))
}

/// Flatten one event into releases (in order).
fn flatten(ev: &Value, at: &str, depth: usize) -> Result<Vec<Release>> {
    if depth > MAX_DEPTH {
        return Err(Error::arg(at, format!("events nested deeper than {MAX_DEPTH} levels")));
    }
    let class = class_of(ev, at)?;
    let short = class.strip_suffix("DpEvent").unwrap_or(class);
    Ok(match short {
        "Gaussian" => one(json!({"type": "gaussian", "sigma": positive(ev, "noise_multiplier", at)?})),
        "Laplace" => one(json!({"type": "laplace", "scale": positive(ev, "noise_multiplier", at)?})),
        "EpsilonDelta" => epsilon_delta(ev, at)?,
        "ZC" | "ZCDp" => zcdp(ev, at)?,
        "PoissonSampled" => poisson(ev, at, depth)?,
        "SelfComposed" => self_composed(ev, at, depth)?,
        "Composed" => composed(ev, at, depth)?,
        "NoOp" => Vec::new(),
        "NonPrivate" => return Err(refuse(class, at, "a non-private operation has no finite (ε, δ) guarantee")),
        "RandomizedResponse" => return Err(refuse(class, at, "its ε = ln(1 + k(1−p)/p) is irrational and dpcert's randomized response takes an exact ε; describe it as EpsilonDeltaDpEvent(epsilon=E, delta=0) with a rational E at least that")),
        "SampledWithoutReplacement" => return Err(refuse(class, at, "the audit has no certified fixed-size-sampling mechanism (`dpcert subsample --scheme without-replacement` certifies it for one (ε, δ) guarantee under substitution)")),
        _ => return Err(refuse(class, at, &format!("dpcert maps {}", CLASSES.join(", ")))),
    })
}

fn epsilon_delta(ev: &Value, at: &str) -> Result<Vec<Release>> {
    let (eps, e) = number(ev, "epsilon", at)?;
    let (delta, d) = number(ev, "delta", at)?;
    if e < 0 {
        return Err(Error::arg(&format!("{at}.epsilon"), format!("must be ≥ 0, got {eps}")));
    }
    if d < 0 || d >= 1 {
        return Err(Error::arg(&format!("{at}.delta"), format!("must lie in [0, 1), got {delta}")));
    }
    Ok(if d == 0 {
        one(json!({"type": "pure", "epsilon": eps}))
    } else {
        one(json!({"type": "approx", "epsilon": eps, "delta": delta}))
    })
}

fn zcdp(ev: &Value, at: &str) -> Result<Vec<Release>> {
    if ev.get("xi").is_some_and(|x| !x.is_null()) {
        let (xi, v) = number(ev, "xi", at)?;
        if v != 0 {
            return Err(refuse("ZCDpEvent", at, &format!("xi = {xi}: dpcert's zCDP black box is ρ-zCDP (ξ = 0)")));
        }
    }
    let (rho, r) = number(ev, "rho", at)?;
    if r < 0 {
        return Err(Error::arg(&format!("{at}.rho"), format!("must be ≥ 0, got {rho}")));
    }
    Ok(one(json!({"type": "zcdp", "rho": rho})))
}

fn poisson(ev: &Value, at: &str, depth: usize) -> Result<Vec<Release>> {
    let (q_text, q) = number(ev, "sampling_probability", at)?;
    if q <= 0 || q > 1 {
        return Err(Error::arg(
            &format!("{at}.sampling_probability"),
            format!("must lie in (0, 1], got {q_text}"),
        ));
    }
    let inner_at = format!("{at}.event");
    let inner = nested(ev, "event", at)?;
    if q == 1 {
        return flatten(inner, &inner_at, depth + 1);
    }
    let class = class_of(inner, &inner_at)?;
    if class.strip_suffix("DpEvent").unwrap_or(class) != "Gaussian" {
        return Err(refuse(
            "PoissonSampledDpEvent",
            at,
            &format!("Poisson sampling of {class}: dpcert certifies Poisson sampling of one GaussianDpEvent (DP-SGD)"),
        ));
    }
    let sigma = positive(inner, "noise_multiplier", &inner_at)?;
    Ok(one(json!({"type": "subsampled-gaussian", "sigma": sigma, "rate": q_text, "steps": "1"})))
}

fn self_composed(ev: &Value, at: &str, depth: usize) -> Result<Vec<Release>> {
    let (count_text, count) = number(ev, "count", at)?;
    if count == 0 {
        return Ok(Vec::new());
    }
    let count = parse_positive_integer(&count_text)
        .map_err(|e| Error::arg(&format!("{at}.count"), e))?;
    let mut inner = flatten(nested(ev, "event", at)?, &format!("{at}.event"), depth + 1)?;
    for r in &mut inner {
        r.count *= &count;
    }
    Ok(inner)
}

fn composed(ev: &Value, at: &str, depth: usize) -> Result<Vec<Release>> {
    let events = ev
        .get("events")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::arg(&format!("{at}.events"), "is missing or not a list"))?;
    let mut out = Vec::new();
    for (i, e) in events.iter().enumerate() {
        out.extend(flatten(e, &format!("{at}.events[{i}]"), depth + 1)?);
    }
    Ok(out)
}

/// Merge identical releases (composition is commutative) and write deployment entries.
fn entries(releases: Vec<Release>) -> Vec<Value> {
    let mut merged: Vec<Release> = Vec::new();
    for r in releases {
        match merged.iter_mut().find(|m| m.fields == r.fields) {
            Some(m) => m.count += r.count,
            None => merged.push(r),
        }
    }
    if merged.is_empty() {
        // only NoOp events: nothing private was released, which is (0, 0)-DP exactly
        return vec![json!({"name": "NoOpDpEvent", "type": "pure", "epsilon": "0"})];
    }
    merged
        .into_iter()
        .map(|r| {
            let mut f = r.fields;
            let name = match f["type"].as_str() {
                Some("subsampled-gaussian") => "PoissonSampledDpEvent(GaussianDpEvent)",
                Some("gaussian") => "GaussianDpEvent",
                Some("laplace") => "LaplaceDpEvent",
                Some("zcdp") => "ZCDpEvent",
                _ => "EpsilonDeltaDpEvent",
            };
            f.insert("name".into(), json!(name));
            if f["type"] == "subsampled-gaussian" {
                f.insert("steps".into(), json!(r.count.to_string()));
            } else {
                f.insert("repeat".into(), json!(r.count.to_string()));
            }
            Value::Object(f)
        })
        .collect()
}

/// The deployment entries (`[[mechanism]]`, as JSON objects) a DpEvent tree releases.
///
/// Errors name the event's place in the tree (`event.events[2].event`) and the refused class.
pub fn mechanisms(event: &Value) -> Result<Vec<Value>> {
    Ok(entries(flatten(event, "event", 0)?))
}

/// A deployment (JSON, the file schema) for a DpEvent tree and the `budget` / `claim` objects.
pub fn deployment_json(event: &Value, budget: &Value, claim: &Value) -> Result<Value> {
    let mut d = Map::new();
    if !budget.is_null() {
        d.insert("budget".into(), budget.clone());
    }
    if !claim.is_null() {
        d.insert("claim".into(), claim.clone());
    }
    d.insert("mechanism".into(), Value::Array(mechanisms(event)?));
    Ok(Value::Object(d))
}

/// Parse a `dp-event` file: `{"budget": {...}, "claim": {...}, "event": DpEvent}`.
pub fn parse(text: &str) -> Result<Deployment> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        Error::arg(
            "FILE",
            format!("JSON syntax error at line {}, column {}: {e}", e.line(), e.column()),
        )
    })?;
    let obj = v
        .as_object()
        .ok_or_else(|| Error::arg("FILE", "must hold a JSON object {\"budget\", \"claim\", \"event\"}"))?;
    if let Some(k) = obj.keys().find(|k| !["budget", "claim", "event"].contains(&k.as_str())) {
        return Err(Error::arg(
            "FILE",
            format!("unknown key `{k}` (expected budget, claim, event)"),
        ));
    }
    let event = obj.get("event").ok_or_else(|| Error::arg("event", "is missing"))?;
    let null = Value::Null;
    let d = deployment_json(
        event,
        obj.get("budget").unwrap_or(&null),
        obj.get("claim").unwrap_or(&null),
    )?;
    Deployment::parse(&d.to_string(), true)
}

/// Read a `dp-event` file.
pub fn load(path: &std::path::Path) -> Result<Deployment> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::arg("FILE", format!("cannot read {}: {e}", path.display())))?;
    parse(&text)
}
