//! dp_accounting's `DpEvent` trees, read onto dpcert's deployment format.
//!
//! A `DpEvent` is given in its named-tuple form as JSON: an object with `"class_name"` (as
//! `DpEvent.to_named_tuple()` has it, e.g. `"GaussianDpEvent"`; `"module_name"` is ignored) and
//! the event's fields, nested events as objects. Numbers are JSON numbers (read from their
//! text, never through `f64`) or strings holding an exact decimal or fraction.
//!
//! | DpEvent | [`Event`] |
//! |---|---|
//! | `GaussianDpEvent(noise_multiplier=s)` | `Gaussian`, σ = s, Δ₂ = 1 |
//! | `LaplaceDpEvent(noise_multiplier=b)` | `Laplace`, scale b, Δ₁ = 1 |
//! | `EpsilonDeltaDpEvent(epsilon, delta)` | `EpsilonDelta` black box (δ = 0: pure) |
//! | `ZCDpEvent(rho, xi)` | `Zcdp` black box (ξ = 0), else `ZcdpWithXi` ((ξ, ρ)-zCDP: the zCDP route, ε shifted by Σξ) |
//! | `DiscreteLaplaceDpEvent(noise_parameter=a, sensitivity=Δ)` | `DiscreteLaplace` (P\[Y = y\] ∝ e^{−a\|y\|}, integer Δ) |
//! | `DiscreteGaussianDpEvent(sigma, sensitivity, dimension)` | `DiscreteGaussian` (σ² = sigma², exact PLD) when dimension = 1 and Δ is an integer; else the `Zcdp` black box ρ = Δ²/(2σ²) |
//! | `RandomizedResponseDpEvent(noise_parameter=p, num_buckets=k)` | `KaryRandomizedResponse` (ε = ln(1 + k(1−p)/p) enclosed; k = 1: `NoOp`) |
//! | `PoissonSampledDpEvent(q, event)` | `PoissonSampled` (the audit certifies it for a Gaussian) |
//! | `SampledWithoutReplacementDpEvent(n, m, event)` | `FixedSizeSampled`: of a Gaussian (alone, under `SelfComposed`), the fixed-size substitution run audited by the substitution route (replace-one, as dp_accounting accounts it); of anything else refused by name |
//! | `SelfComposedDpEvent(event, count)` | `SelfComposed` (count 0: `NoOp`) |
//! | `ComposedDpEvent(events)` | `Composed`, identical events merged into `SelfComposed` |
//! | `NoOpDpEvent` | `NoOp` |
//! | `ExponentialMechanismDpEvent(epsilon)`, `PermuteAndFlipDpEvent(epsilon)` | the ε-DP black box (`EpsilonDelta`, δ = 0) |
//! | `SingleEpochTreeAggregationDpEvent(noise_multiplier=σ, step_counts)` | `SelfComposed(Gaussian(σ), ⌈log₂(max T + 1)⌉)` ([`crate::event::reductions::tree_aggregation_gaussian`]) |
//! | `MixtureOfGaussiansDpEvent(standard_deviation, sensitivities, sampling_probs)` | the dominating `PoissonSampled(Gaussian)` ([`crate::event::reductions::mixture_of_gaussians_domination`]); wrapped in `Dominated` (upper bounds only) unless the positive sensitivities are equal |
//! | `RepeatAndSelectDpEvent(event, mean, shape)` | `RepeatAndSelect` (Papernot & Steinke 2022, Theorem 2, or Theorem 6 for shape = ∞ (`"inf"`, a Poisson number of runs), in Rényi DP; mean 1: the event itself) |
//!
//! Refused here by name with the reason, never skipped: `NonPrivateDpEvent` (no finite
//! guarantee), `RandomizedResponseDpEvent` with p = 0 (it releases the input),
//! `UnsupportedDpEvent` (no DP description), `SampledWithReplacementDpEvent` (no theorem
//! implemented; dp_accounting's accountants refuse it too), and classes dpcert does not know. The audit then refuses, by name, what no route certifies (Poisson or
//! fixed-size sampling of anything but a Gaussian, a fixed-size run composed with others).
//!
//! A `dp-event` file (`dpcert audit FILE --format dp-event`) is one JSON object
//! `{"budget": {...}, "claim": {...}, "event": DpEvent}` with `budget` / `claim` as in a
//! deployment file.
use crate::deploy::Deployment;
use crate::event::Event;
use crate::num::{parse_exact, parse_positive_integer};
use crate::{Error, Result};
use rug::{Integer, Rational};
use serde_json::Value;

/// Deepest event nesting read (dp_accounting trees are a few levels deep).
pub const MAX_DEPTH: usize = 64;

/// The DpEvent classes the mapping knows (the suffix `DpEvent` may be left out).
pub const CLASSES: &[&str] = &[
    "GaussianDpEvent",
    "LaplaceDpEvent",
    "EpsilonDeltaDpEvent",
    "ZCDpEvent",
    "DiscreteLaplaceDpEvent",
    "DiscreteGaussianDpEvent",
    "RandomizedResponseDpEvent",
    "PoissonSampledDpEvent",
    "SampledWithoutReplacementDpEvent",
    "SelfComposedDpEvent",
    "ComposedDpEvent",
    "NoOpDpEvent",
    "ExponentialMechanismDpEvent",
    "PermuteAndFlipDpEvent",
    "SingleEpochTreeAggregationDpEvent",
    "MixtureOfGaussiansDpEvent",
    "RepeatAndSelectDpEvent",
];

fn class_of<'a>(ev: &'a Value, at: &str) -> Result<&'a str> {
    ev.get("class_name")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::arg(at, "is not a DpEvent (an object with a `class_name`)"))
}

/// A numeric field, exactly (JSON numbers are read from their text).
fn number(ev: &Value, field: &str, at: &str) -> Result<Rational> {
    let name = format!("{at}.{field}");
    let text = match ev.get(field) {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => return Err(Error::arg(&name, "is missing")),
        Some(_) => {
            return Err(Error::arg(
                &name,
                "must be a number or a string holding one",
            ))
        }
    };
    parse_exact(&text).map_err(|e| Error::arg(&name, e))
}

fn positive(ev: &Value, field: &str, at: &str) -> Result<Rational> {
    let v = number(ev, field, at)?;
    if v <= 0 {
        return Err(Error::arg(
            &format!("{at}.{field}"),
            "must be > 0 (no noise is not private)",
        ));
    }
    Ok(v)
}

fn count(ev: &Value, field: &str, at: &str) -> Result<Integer> {
    let name = format!("{at}.{field}");
    let v = number(ev, field, at)?;
    parse_positive_integer(&v.to_string()).map_err(|e| Error::arg(&name, e))
}

fn nested(ev: &Value, field: &str, at: &str, depth: usize) -> Result<Event> {
    let inner = ev
        .get(field)
        .filter(|v| v.is_object())
        .ok_or_else(|| Error::arg(&format!("{at}.{field}"), "is missing or not a DpEvent"))?;
    to_event_at(inner, &format!("{at}.{field}"), depth + 1)
}

fn refuse(class: &str, at: &str, why: &str) -> Error {
    Error::arg(at, format!("{class} is not supported: {why}"))
}

/// The [`Event`] a DpEvent (named-tuple JSON form) describes. Errors name the event's place
/// in the tree (`event.events[2].event`) and, for refused classes, the class.
pub fn to_event(event: &Value) -> Result<Event> {
    to_event_at(event, "event", 0)
}

fn to_event_at(ev: &Value, at: &str, depth: usize) -> Result<Event> {
    if depth > MAX_DEPTH {
        return Err(Error::arg(
            at,
            format!("events nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    let class = class_of(ev, at)?;
    let one = Rational::from(1);
    Ok(match class.strip_suffix("DpEvent").unwrap_or(class) {
        "Gaussian" => Event::Gaussian {
            sigma: positive(ev, "noise_multiplier", at)?,
            sensitivity: one,
        },
        "Laplace" => Event::Laplace {
            scale: positive(ev, "noise_multiplier", at)?,
            sensitivity: one,
        },
        "EpsilonDelta" => Event::EpsilonDelta {
            epsilon: number(ev, "epsilon", at)?,
            delta: number(ev, "delta", at)?,
        },
        "ZC" | "ZCDp" => zcdp(ev, at)?,
        "PoissonSampled" => Event::PoissonSampled {
            rate: number(ev, "sampling_probability", at)?,
            event: Box::new(nested(ev, "event", at, depth)?),
        },
        "SampledWithoutReplacement" => Event::FixedSizeSampled {
            sample_size: count(ev, "sample_size", at)?,
            population_size: count(ev, "source_dataset_size", at)?,
            event: Box::new(nested(ev, "event", at, depth)?),
        },
        "SelfComposed" => self_composed(ev, at, depth)?,
        "Composed" => composed(ev, at, depth)?,
        "NoOp" => Event::NoOp,
        "DiscreteLaplace" => Event::DiscreteLaplace {
            parameter: positive(ev, "noise_parameter", at)?,
            sensitivity: match ev.get("sensitivity") {
                None | Some(Value::Null) => Integer::from(1),
                Some(_) => count(ev, "sensitivity", at)?,
            },
        },
        "DiscreteGaussian" => discrete_gaussian(ev, at)?,
        "RandomizedResponse" => randomized_response(ev, at)?,
        "TruncatedSubsampledGaussian" => return Err(truncated_subsampled_gaussian(ev, at)),
        // ε-DP (McSherry & Talwar 2007; McKenna & Sheldon 2020, Theorem 1): the ε-DP black
        // box, whose worst case (ε-randomized response) dominates either mechanism
        "ExponentialMechanism" | "PermuteAndFlip" => Event::EpsilonDelta {
            epsilon: nonnegative(ev, "epsilon", at)?,
            delta: Rational::new(),
        },
        "SingleEpochTreeAggregation" => tree_aggregation(ev, at)?,
        "MixtureOfGaussians" => mixture_of_gaussians(ev, at)?,
        "RepeatAndSelect" => repeat_and_select(ev, at, depth)?,
        // refused by name, or not a class dpcert maps
        _ => return Err(refused(class, at)),
    })
}

/// The error for a class no theorem here certifies (named with the reason), or one dpcert does
/// not map.
fn refused(class: &str, at: &str) -> Error {
    match class.strip_suffix("DpEvent").unwrap_or(class) {
        "NonPrivate" => refuse(
            class,
            at,
            "a non-private operation has no finite (ε, δ) guarantee",
        ),
        "Unsupported" => refuse(
            class,
            at,
            "it declares an operation with no DP description, so no theorem can certify it (dp_accounting's accountants refuse it too)",
        ),
        "SampledWithReplacement" => refuse(
            class,
            at,
            "no theorem implemented here certifies sampling with replacement: a record may enter the batch several times (Binomial(m, 1/n) copies), so the batch's sensitivity is unbounded in m, and the published amplification bounds (Balle, Barthe & Gaboardi 2018, Theorem 10) are for ε-DP mechanisms under substitution neighbours; dp_accounting's RDP and PLD accountants refuse this event as well",
        ),
        _ => refuse(class, at, &format!("dpcert maps {}", CLASSES.join(", "))),
    }
}

/// dp_accounting's `TruncatedSubsampledGaussianDpEvent` (Poisson batches cut at a maximum size):
/// its fields read and checked, then refused inside an event tree with the command that certifies
/// it — `theorems::random_allocation::truncated_poisson_epsilon` charges the truncation
/// probability as η(1 + e^ε), which depends on ε and so is not a mechanism of the tree.
fn truncated_subsampled_gaussian(ev: &Value, at: &str) -> Error {
    let fields = (|| -> Result<String> {
        let n = count(ev, "dataset_size", at)?;
        let q = positive(ev, "sampling_probability", at)?;
        let b = count(ev, "truncated_batch_size", at)?;
        let s = positive(ev, "noise_multiplier", at)?;
        let show = crate::validate::show;
        Ok(format!(
            "dpcert dpsgd --sampling truncated-poisson --rate {} --sigma {} --dataset-size {n} --max-batch-size {b} --steps <T>",
            show(&q),
            show(&s)
        ))
    })();
    match fields {
        Err(e) => e,
        Ok(cmd) => refuse(
            "TruncatedSubsampledGaussianDpEvent",
            at,
            &format!("its certified bound adds the truncation probability as η(1 + e^ε), which depends on ε, so it is not a mechanism of an event tree; it is certified for a whole run by `{cmd}`"),
        ),
    }
}

fn nonnegative(ev: &Value, field: &str, at: &str) -> Result<Rational> {
    let v = number(ev, field, at)?;
    crate::validate::nonnegative(&format!("{at}.{field}"), &v)?;
    Ok(v)
}

/// A field holding a number or a list of numbers, as exact rationals.
fn numbers(ev: &Value, field: &str, at: &str) -> Result<Vec<Rational>> {
    let name = format!("{at}.{field}");
    match ev.get(field) {
        Some(Value::Array(xs)) => xs
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let wrap = serde_json::json!({ "x": x });
                number(&wrap, "x", &format!("{name}[{i}]")).map_err(|e| match e {
                    Error::InvalidArgument { reason, .. } => {
                        Error::arg(&format!("{name}[{i}]"), reason)
                    }
                    other => other,
                })
            })
            .collect(),
        _ => Ok(vec![number(ev, field, at)?]),
    }
}

/// A theorem's error, its argument renamed to the field's place in the tree.
fn at_field(at: &str) -> impl Fn(Error) -> Error + '_ {
    move |e| match e {
        Error::InvalidArgument { name, reason } => Error::arg(&format!("{at}.{name}"), reason),
        other => other,
    }
}

/// `SingleEpochTreeAggregationDpEvent(noise_multiplier, step_counts)`: a composition of
/// Gaussians, one per level of the tallest tree
/// ([`crate::event::reductions::tree_aggregation_gaussian`]).
fn tree_aggregation(ev: &Value, at: &str) -> Result<Event> {
    let sigma = number(ev, "noise_multiplier", at)?;
    let steps = numbers(ev, "step_counts", at)?;
    let mut counts = Vec::with_capacity(steps.len());
    for (i, t) in steps.iter().enumerate() {
        if !t.is_integer() {
            return Err(Error::arg(
                &format!("{at}.step_counts[{i}]"),
                format!("must be an integer, got {}", crate::validate::show(t)),
            ));
        }
        counts.push(t.numer().clone());
    }
    if counts.len() == 1 && counts[0] == 0 {
        return Err(Error::arg(
            &format!("{at}.step_counts"),
            "must be a non-zero scalar or a non-empty list (as dp_accounting requires)",
        ));
    }
    crate::event::reductions::tree_aggregation_gaussian(&sigma, &counts).map_err(at_field(at))
}

/// `MixtureOfGaussiansDpEvent(standard_deviation, sensitivities, sampling_probs)`: the
/// Poisson-subsampled Gaussian that dominates it, exact when the non-zero sensitivities are
/// equal, else marked [`Event::Dominated`] (upper bounds only).
fn mixture_of_gaussians(ev: &Value, at: &str) -> Result<Event> {
    let sigma = number(ev, "standard_deviation", at)?;
    let c = numbers(ev, "sensitivities", at)?;
    let p = numbers(ev, "sampling_probs", at)?;
    let (event, exact) = crate::event::reductions::mixture_of_gaussians_domination(&sigma, &c, &p)
        .map_err(at_field(at))?;
    Ok(if exact {
        event
    } else {
        Event::Dominated(Box::new(event))
    })
}

/// `RepeatAndSelectDpEvent(event, mean, shape)`: accounted in Rényi DP by Papernot & Steinke
/// 2022, Theorem 2 (truncated negative binomial K, shape η ≥ 0) or Theorem 6 (a Poisson K,
/// shape = ∞, given as `"inf"`).
fn repeat_and_select(ev: &Value, at: &str, depth: usize) -> Result<Event> {
    let infinite = |v: &Value| {
        v.as_str().is_some_and(|s| {
            matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "inf" | "+inf" | "infinity" | "+infinity"
            )
        })
    };
    let shape = match ev.get("shape") {
        Some(v) if infinite(v) => None,
        _ => Some(nonnegative(ev, "shape", at)?),
    };
    let mean = number(ev, "mean", at)?;
    if mean < 1 {
        return Err(Error::arg(
            &format!("{at}.mean"),
            format!(
                "must be ≥ 1 (the mean number of runs), got {}",
                crate::validate::show(&mean)
            ),
        ));
    }
    Ok(Event::RepeatAndSelect {
        event: Box::new(nested(ev, "event", at, depth)?),
        mean,
        shape,
    })
}

fn zcdp(ev: &Value, at: &str) -> Result<Event> {
    let rho = number(ev, "rho", at)?;
    if ev.get("xi").is_some_and(|x| !x.is_null()) {
        let xi = number(ev, "xi", at)?;
        if xi != 0 {
            return Ok(Event::ZcdpWithXi { xi, rho });
        }
    }
    Ok(Event::Zcdp { rho })
}

/// `DiscreteGaussianDpEvent(sigma, sensitivity, dimension)`: the univariate discrete Gaussian
/// (dimension 1, integer sensitivity) with its exact PLD; otherwise (dimension unknown or > 1,
/// or a non-integer ℓ2 sensitivity) the ρ-zCDP black box ρ = Δ²/(2σ²) (CKS 2020, Theorem 14),
/// as dp_accounting accounts every discrete Gaussian.
fn discrete_gaussian(ev: &Value, at: &str) -> Result<Event> {
    let sigma = positive(ev, "sigma", at)?;
    let sensitivity = match ev.get("sensitivity") {
        None | Some(Value::Null) => Rational::from(1),
        Some(_) => positive(ev, "sensitivity", at)?,
    };
    let sigma_squared = Rational::from(&sigma * &sigma);
    let univariate = match ev.get("dimension") {
        None | Some(Value::Null) => false,
        Some(_) => number(ev, "dimension", at)? == 1,
    };
    if univariate && sensitivity.is_integer() {
        return Ok(Event::DiscreteGaussian {
            sigma_squared,
            sensitivity: sensitivity.numer().clone(),
        });
    }
    Ok(Event::Zcdp {
        rho: Rational::from(&sensitivity * &sensitivity) / (sigma_squared * 2u32),
    })
}

/// `RandomizedResponseDpEvent(noise_parameter, num_buckets)`: k-ary randomized response
/// (one bucket: no-op, as dp_accounting; p = 0 releases the input and is refused).
fn randomized_response(ev: &Value, at: &str) -> Result<Event> {
    let p = number(ev, "noise_parameter", at)?;
    let k = count(ev, "num_buckets", at)?;
    if k == 1 {
        return Ok(Event::NoOp);
    }
    if p == 0 {
        return Err(refuse(
            "RandomizedResponseDpEvent",
            at,
            "noise_parameter = 0 releases the input bucket: no finite ε",
        ));
    }
    crate::theorems::randomized_response::check_rr(&p, &k).map_err(|e| match e {
        Error::InvalidArgument { name, reason } => Error::arg(&format!("{at}.{name}"), reason),
        other => other,
    })?;
    Ok(Event::KaryRandomizedResponse {
        noise_parameter: p,
        num_buckets: k,
    })
}

fn self_composed(ev: &Value, at: &str, depth: usize) -> Result<Event> {
    if number(ev, "count", at)? == 0 {
        return Ok(Event::NoOp);
    }
    Ok(Event::SelfComposed {
        count: count(ev, "count", at)?,
        event: Box::new(nested(ev, "event", at, depth)?),
    })
}

/// Composition is commutative: identical events of the list become one `SelfComposed`
/// (so a list of 1000 equal DpEvents is one ledger entry, not 1000).
fn composed(ev: &Value, at: &str, depth: usize) -> Result<Event> {
    let events = ev
        .get("events")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::arg(&format!("{at}.events"), "is missing or not a list"))?;
    let mut groups: Vec<(Event, Integer)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let e = to_event_at(e, &format!("{at}.events[{i}]"), depth + 1)?;
        match groups.iter_mut().find(|(g, _)| *g == e) {
            Some((_, k)) => *k += 1,
            None => groups.push((e, Integer::from(1))),
        }
    }
    let list = groups
        .into_iter()
        .filter(|(e, _)| *e != Event::NoOp)
        .map(|(e, k)| match (e, k) {
            (e, k) if k == 1 => e,
            (Event::SelfComposed { event, count }, k) => Event::SelfComposed {
                event,
                count: count * k,
            },
            (e, k) => Event::SelfComposed {
                event: Box::new(e),
                count: k,
            },
        })
        .collect();
    Ok(Event::Composed(list))
}

/// The budget / claim section of a dp-event file into the deployment.
fn sections(mut d: Deployment, obj: &serde_json::Map<String, Value>) -> Result<Deployment> {
    let text = |v: &Value, name: &str| -> Result<String> {
        match v {
            Value::Number(n) => Ok(n.to_string()),
            Value::String(s) => Ok(s.clone()),
            _ => Err(Error::arg(name, "must be a number or a string holding one")),
        }
    };
    if let Some(b) = obj.get("budget") {
        let b = b
            .as_object()
            .ok_or_else(|| Error::arg("[budget]", "must be an object"))?;
        for (k, v) in b {
            d = match k.as_str() {
                "delta" => d.at_delta(text(v, "[budget] delta")?)?,
                "epsilon" => d.at_epsilon(text(v, "[budget] epsilon")?)?,
                _ => {
                    return Err(Error::arg(
                        &format!("[budget] {k}"),
                        "is not a field of [budget] (expected: delta, epsilon)",
                    ))
                }
            };
        }
    }
    if d.budget_delta.is_none() && d.budget_epsilon.is_none() {
        return Err(Error::arg(
            "[budget]",
            "set `delta` (to get a certified ε) and/or `epsilon` (to get a certified δ)",
        ));
    }
    if let Some(c) = obj.get("claim") {
        let c = c
            .as_object()
            .ok_or_else(|| Error::arg("[claim]", "must be an object"))?;
        if let Some(k) = c
            .keys()
            .find(|k| !["epsilon", "delta"].contains(&k.as_str()))
        {
            return Err(Error::arg(
                &format!("[claim] {k}"),
                "is not a field of [claim] (expected: epsilon, delta)",
            ));
        }
        let get = |f: &str| {
            c.get(f)
                .ok_or_else(|| Error::arg(&format!("[claim] {f}"), "is missing"))
        };
        d = d.with_claim(
            text(get("epsilon")?, "[claim] epsilon")?,
            text(get("delta")?, "[claim] delta")?,
        )?;
    }
    Ok(d)
}

/// Parse a `dp-event` file: `{"budget": {...}, "claim": {...}, "event": DpEvent}`.
pub fn parse(text: &str) -> Result<Deployment> {
    let v: Value = crate::input::json_value(&crate::input::clean(text))?;
    let obj = v.as_object().ok_or_else(|| {
        Error::arg(
            "FILE",
            "must hold a JSON object {\"budget\", \"claim\", \"event\"}",
        )
    })?;
    if let Some(k) = obj
        .keys()
        .find(|k| !["budget", "claim", "event"].contains(&k.as_str()))
    {
        return Err(Error::arg(
            "FILE",
            format!("unknown key `{k}` (expected budget, claim, event)"),
        ));
    }
    let event = obj
        .get("event")
        .ok_or_else(|| Error::arg("event", "is missing"))?;
    sections(Deployment::new(to_event(event)?), obj)
}

/// Read a `dp-event` file.
pub fn load(path: &std::path::Path) -> Result<Deployment> {
    parse(&crate::input::read_text(path)?).map_err(|e| crate::input::at_path(path, e))
}
