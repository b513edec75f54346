//! Deployment files: what a deployment released, as TOML or JSON — the serialisation of an
//! [`Event`] tree plus budget queries and an optional claim.
//!
//! Every number may be a TOML/JSON number or a string holding an exact decimal or fraction;
//! numbers are read from their source text (never through `f64`). Each `[[mechanism]]` entry
//! is one event: its mechanism (a leaf; `subsampled-gaussian` is a Poisson-subsampled Gaussian
//! run `steps` times, or with `relation = "substitution"` an [`Event::SubstitutionGaussian`]), [`Event::SelfComposed`] `repeat` times, [`Event::Named`] by its `name`;
//! the file is their [`Event::Composed`]. [`Deployment::to_toml`] and [`Deployment::to_json`]
//! write a deployment back. Adding a mechanism type is one local change: its `type` in
//! [`TYPES`] and `entry_event`, a variant of [`Mechanism`] and its arms in the capability
//! methods the audit routes ask for.
pub use crate::audit::Deployment;
use crate::dpsgd::Sampling;
use crate::event::Event;
use crate::num::{parse_exact, parse_positive_integer};
use crate::{validate, Error, Result};
use rug::{Integer, Rational};
use std::path::Path;

/// Longest mechanism `name` accepted (it labels a row of the report).
pub const MAX_NAME_CHARS: usize = 200;

/// A key for an error message: long keys are cut.
fn clip(k: &str) -> String {
    if k.chars().count() <= 40 {
        k.to_string()
    } else {
        format!("{}…", k.chars().take(40).collect::<String>())
    }
}

/// A parsed file value: numbers keep their source text.
#[derive(Clone, Debug)]
pub enum Node {
    /// A number, as its source text (read exactly later).
    Num(String),
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
    /// A table (TOML) or object (JSON): keys and values in file order.
    Table(Vec<(String, Node)>),
    /// An array.
    Array(Vec<Node>),
}

impl Node {
    fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Table(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn keys(&self) -> Vec<&str> {
        match self {
            Node::Table(kv) => kv.iter().map(|(k, _)| k.as_str()).collect(),
            _ => vec![],
        }
    }
}

fn from_toml_value(v: &toml_edit::Value) -> Node {
    use toml_edit::Value as V;
    match v {
        V::Integer(f) => Node::Num(f.display_repr().replace('_', "")),
        V::Float(f) => Node::Num(f.display_repr().replace('_', "")),
        V::String(s) => Node::Str(s.value().clone()),
        V::Boolean(b) => Node::Bool(*b.value()),
        V::Datetime(d) => Node::Str(d.display_repr().to_string()),
        V::Array(a) => Node::Array(a.iter().map(from_toml_value).collect()),
        V::InlineTable(t) => Node::Table(
            t.iter()
                .map(|(k, v)| (k.to_string(), from_toml_value(v)))
                .collect(),
        ),
    }
}

fn from_toml_item(i: &toml_edit::Item) -> Node {
    use toml_edit::Item as I;
    match i {
        I::None => Node::Table(vec![]),
        I::Value(v) => from_toml_value(v),
        I::Table(t) => Node::Table(
            t.iter()
                .map(|(k, v)| (k.to_string(), from_toml_item(v)))
                .collect(),
        ),
        I::ArrayOfTables(a) => Node::Array(
            a.iter()
                .map(|t| {
                    Node::Table(
                        t.iter()
                            .map(|(k, v)| (k.to_string(), from_toml_item(v)))
                            .collect(),
                    )
                })
                .collect(),
        ),
    }
}

fn from_json(v: &serde_json::Value) -> Node {
    use serde_json::Value as V;
    match v {
        V::Null => Node::Str("null".into()),
        V::Bool(b) => Node::Bool(*b),
        V::Number(n) => Node::Num(n.to_string()),
        V::String(s) => Node::Str(s.clone()),
        V::Array(a) => Node::Array(a.iter().map(from_json).collect()),
        V::Object(o) => Node::Table(o.iter().map(|(k, v)| (k.clone(), from_json(v))).collect()),
    }
}

pub use crate::audit::ledger::{Entry, Mechanism, MAX_MECHANISMS};

/// The valid `type` strings.
pub const TYPES: &[&str] = &[
    "gaussian",
    "laplace",
    "discrete-laplace",
    "discrete-gaussian",
    "pure",
    "approx",
    "zcdp",
    "randomized-response",
    "subsampled-gaussian",
];

/// The fields each `type` takes (besides `name`, `type`, `repeat`).
fn fields_of(ty: &str) -> Option<&'static [&'static str]> {
    Some(match ty {
        "gaussian" => &["sigma", "sensitivity"],
        "laplace" => &["scale", "sensitivity"],
        "discrete-laplace" => &["noise_parameter", "sensitivity"],
        "discrete-gaussian" => &["sigma_squared", "sigma", "sensitivity"],
        "pure" => &["epsilon"],
        "randomized-response" => &["epsilon", "noise_parameter", "num_buckets"],
        "approx" => &["epsilon", "delta"],
        "zcdp" => &["rho", "xi"],
        "subsampled-gaussian" => &[
            "sigma",
            "rate",
            "steps",
            "sampling",
            "accounting",
            "relation",
            "phases",
        ],
        _ => return None,
    })
}

/// One `[[mechanism]]` entry's fields, read with errors that name the entry and the field.
struct Fields<'a> {
    m: &'a Node,
    label: &'a str,
}

impl Fields<'_> {
    /// Where an error points: `mechanism <label>: field `<field>``.
    fn at(&self, field: &str) -> String {
        format!("mechanism {}: field `{field}`", self.label)
    }
    /// An exact number (a TOML/JSON number or a string holding one).
    fn num(&self, field: &str) -> Result<Rational> {
        let bad = |why: String| Error::arg(&self.at(field), why);
        match self.m.get(field) {
            None => Err(bad("is missing".into())),
            Some(Node::Num(s)) | Some(Node::Str(s)) => parse_exact(s).map_err(bad),
            Some(_) => Err(bad("must be a number or a string holding one".into())),
        }
    }
    /// An exact number checked by `check` (the error naming the field).
    fn named(&self, field: &str, check: fn(&str, &Rational) -> Result<()>) -> Result<Rational> {
        let v = self.num(field)?;
        check(&self.at(field), &v)?;
        Ok(v)
    }
    /// `sensitivity` > 0, 1 when absent.
    fn sensitivity(&self) -> Result<Rational> {
        match self.m.get("sensitivity") {
            None => Ok(Rational::from(1)),
            Some(_) => self.named("sensitivity", validate::positive),
        }
    }
    /// Refuse an unknown type, and a field the type does not have.
    fn check_names(&self, ty: &str) -> Result<()> {
        let allowed = fields_of(ty).ok_or_else(|| {
            Error::arg(
                &self.at("type"),
                format!(
                    "unknown type `{}`; valid types: {}",
                    clip(ty),
                    TYPES.join(", ")
                ),
            )
        })?;
        if let Some(k) = self
            .m
            .keys()
            .into_iter()
            .find(|k| !["name", "type", "repeat"].contains(k) && !allowed.contains(k))
        {
            return Err(Error::arg(
                &self.at(&clip(k)),
                format!(
                    "is not a field of type `{ty}` (expected: {})",
                    allowed.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

/// One `[[mechanism]]` entry's event (without its `repeat` and `name`).
fn entry_event(ty: &str, m: &Node, label: &str) -> Result<Event> {
    let f = Fields { m, label };
    f.check_names(ty)?;
    Ok(match ty {
        "gaussian" => Event::Gaussian {
            sigma: f.named("sigma", validate::positive)?,
            sensitivity: f.sensitivity()?,
        },
        "laplace" => Event::Laplace {
            scale: f.named("scale", validate::positive)?,
            sensitivity: f.sensitivity()?,
        },
        "discrete-laplace" => Event::DiscreteLaplace {
            parameter: f.named("noise_parameter", validate::positive)?,
            sensitivity: integer_sensitivity(m, label)?,
        },
        "discrete-gaussian" => Event::DiscreteGaussian {
            sigma_squared: discrete_gaussian_variance(&f)?,
            sensitivity: integer_sensitivity(m, label)?,
        },
        "pure" => Event::EpsilonDelta {
            epsilon: f.named("epsilon", validate::nonnegative)?,
            delta: Rational::new(),
        },
        "randomized-response" if m.get("epsilon").is_none() => kary_randomized_response(&f)?,
        "randomized-response" => {
            if let Some(field) = ["noise_parameter", "num_buckets"]
                .iter()
                .find(|field| m.get(field).is_some())
            {
                return Err(Error::arg(
                    &f.at(field),
                    "give either `epsilon` or `noise_parameter` and `num_buckets`, not both",
                ));
            }
            Event::RandomizedResponse {
                epsilon: f.named("epsilon", validate::nonnegative)?,
            }
        }
        "approx" => Event::EpsilonDelta {
            epsilon: f.named("epsilon", validate::nonnegative)?,
            delta: f.named("delta", validate::unit_from_zero)?,
        },
        "subsampled-gaussian" => subsampled_event(m, label)?,
        _ if m.get("xi").is_some() => Event::ZcdpWithXi {
            xi: f.named("xi", validate::nonnegative)?,
            rho: f.named("rho", validate::nonnegative)?,
        },
        _ => Event::Zcdp {
            rho: f.named("rho", validate::nonnegative)?,
        },
    })
}

/// A discrete Gaussian's σ²: `sigma_squared` (exact) or `sigma` (squared here), exactly one.
fn discrete_gaussian_variance(f: &Fields) -> Result<Rational> {
    match (f.m.get("sigma_squared"), f.m.get("sigma")) {
        (Some(_), None) => f.named("sigma_squared", validate::positive),
        (None, Some(_)) => {
            let s = f.named("sigma", validate::positive)?;
            Ok(Rational::from(&s * &s))
        }
        _ => Err(Error::arg(
            &f.at("sigma_squared"),
            "give exactly one of `sigma_squared` (σ², exact) and `sigma` (σ)",
        )),
    }
}

/// k-ary randomized response from `noise_parameter` and `num_buckets`.
fn kary_randomized_response(f: &Fields) -> Result<Event> {
    let k = match f.m.get("num_buckets") {
        Some(Node::Num(s)) | Some(Node::Str(s)) => {
            parse_positive_integer(s).map_err(|e| Error::arg(&f.at("num_buckets"), e))?
        }
        _ => {
            return Err(Error::arg(
                &f.at("num_buckets"),
                "is missing or not an integer (randomized response is given by `epsilon`, or by `noise_parameter` and `num_buckets`)",
            ))
        }
    };
    let p = f.num("noise_parameter")?;
    crate::theorems::randomized_response::check_rr(&p, &k)
        .map_err(|e| Error::arg(&f.at("noise_parameter"), e.to_string()))?;
    Ok(Event::KaryRandomizedResponse {
        noise_parameter: p,
        num_buckets: k,
    })
}

/// A discrete mechanism's `sensitivity`: an integer ≥ 1 (default 1).
fn integer_sensitivity(m: &Node, label: &str) -> Result<Integer> {
    let at = format!("mechanism {label}: field `sensitivity`");
    match m.get("sensitivity") {
        None => Ok(Integer::from(1)),
        Some(Node::Num(s)) | Some(Node::Str(s)) => parse_positive_integer(s)
            .map_err(|e| Error::arg(&at, format!("{e} (an integer query's sensitivity)"))),
        Some(_) => Err(Error::arg(&at, "must be an integer")),
    }
}

/// How a `subsampled-gaussian` entry's batches were drawn and are to be accounted.
#[derive(Clone, Copy, PartialEq)]
enum Batches {
    Poisson,
    /// Shuffled, accounted without amplification (one Gaussian release per pass).
    Shuffled,
    /// Shuffled, but the deployment asks for the Poisson numbers (with a warning).
    ShuffledAsPoisson,
    /// B of the N examples without replacement each step (substitution neighbours only).
    FixedSize,
}

const SAMPLINGS: &str = "\"poisson\", \"shuffled\" or \"fixed-size\"";

/// The entry's `sampling`, `accounting` and `relation` fields (whether it is a substitution
/// entry).
fn batches(m: &Node, label: &str) -> Result<(Batches, bool)> {
    let field = |f: &str| format!("mechanism {label}: field `{f}`");
    let text = |f: &str, what: &str| match m.get(f) {
        None => Ok(None),
        Some(Node::Str(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::arg(&field(f), format!("must be a string ({what})"))),
    };
    let sampling = text("sampling", SAMPLINGS)?.unwrap_or_else(|| "poisson".into());
    let accounting = text("accounting", "\"poisson\" or \"shuffled\"")?;
    let substitution = match text("relation", "\"add-remove\" or \"substitution\"")?.as_deref() {
        None | Some("add-remove") => false,
        Some("substitution") => true,
        Some(r) => {
            return Err(Error::arg(
                &field("relation"),
                format!("`{}` is not \"add-remove\" or \"substitution\"", clip(r)),
            ))
        }
    };
    let how = match (sampling.as_str(), accounting.as_deref()) {
        ("poisson", None | Some("poisson")) => Batches::Poisson,
        ("shuffled", None | Some("shuffled")) => Batches::Shuffled,
        ("shuffled", Some("poisson")) => Batches::ShuffledAsPoisson,
        ("fixed-size", None) => Batches::FixedSize,
        ("fixed-size", Some(_)) => {
            return Err(Error::arg(
                &field("accounting"),
                "applies to shuffled batches only (leave it out for sampling = \"fixed-size\")",
            ))
        }
        ("poisson", Some("shuffled")) => {
            return Err(Error::arg(
                &field("accounting"),
                "\"shuffled\" accounting needs sampling = \"shuffled\"",
            ))
        }
        ("poisson" | "shuffled", Some(a)) => {
            return Err(Error::arg(
                &field("accounting"),
                format!("`{}` is not \"poisson\" or \"shuffled\"", clip(a)),
            ))
        }
        // samplers accounted by `dpsgd` alone: the reason `Sampling::parse` gives
        (s @ ("truncated-poisson" | "truncated" | "random-allocation" | "balls-and-bins"), _) => {
            let why = match Sampling::parse(s) {
                Err(Error::InvalidArgument { reason, .. }) => reason,
                _ => format!("`{s}` is not {SAMPLINGS}"),
            };
            return Err(Error::arg(&field("sampling"), why));
        }
        (s, _) => {
            return Err(Error::arg(
                &field("sampling"),
                format!("`{}` is not {SAMPLINGS}", clip(s)),
            ))
        }
    };
    match (how, substitution) {
        (Batches::FixedSize, false) => Err(Error::arg(&field("relation"), "sampling = \"fixed-size\" is certified for relation = \"substitution\" only (under add/remove the dataset size N, hence B/N, changes between neighbours and no certified route exists in dpcert); set relation = \"substitution\", or sampling = \"poisson\"")),
        (Batches::ShuffledAsPoisson, true) => Err(Error::arg(&field("accounting"), "Poisson accounting of shuffled batches is for relation = \"add-remove\" only")),
        _ => Ok((how, substitution)),
    }
}

/// One run's (σ, q, T) from a table holding `sigma`, `rate`, `steps`; `at(f)` names field f.
fn sgm_fields(t: &Node, at: &dyn Fn(&str) -> String) -> Result<(Rational, Rational, Integer)> {
    let num = |f: &str| -> Result<Rational> {
        match t.get(f) {
            None => Err(Error::arg(&at(f), "is missing")),
            Some(Node::Num(s)) | Some(Node::Str(s)) => {
                parse_exact(s).map_err(|e| Error::arg(&at(f), e))
            }
            Some(_) => Err(Error::arg(
                &at(f),
                "must be a number or a string holding one",
            )),
        }
    };
    let rate = num("rate")?;
    crate::event::rate_in_unit(&at("rate"), &rate)?;
    let steps = match t.get("steps") {
        Some(Node::Num(s)) | Some(Node::Str(s)) => {
            parse_positive_integer(s).map_err(|e| Error::arg(&at("steps"), e))?
        }
        _ => {
            return Err(Error::arg(
                &at("steps"),
                "is missing or not a positive integer",
            ))
        }
    };
    let sigma = num("sigma")?;
    validate::positive(&at("sigma"), &sigma)?;
    Ok((sigma, rate, steps))
}

/// `steps` Poisson-subsampled Gaussian steps at rate q, noise multiplier σ.
fn poisson_run(sigma: Rational, rate: Rational, steps: Integer) -> Event {
    Event::SelfComposed {
        event: Box::new(Event::PoissonSampled {
            rate,
            event: Box::new(Event::Gaussian {
                sigma,
                sensitivity: Rational::from(1),
            }),
        }),
        count: steps,
    }
}

/// The `phases = [{rate, sigma, steps}, …]` of an entry: their Poisson runs, composed.
fn phases_event(list: &Node, label: &str) -> Result<Event> {
    let name = format!("mechanism {label}: field `phases`");
    let Node::Array(items) = list else {
        return Err(Error::arg(
            &name,
            "must be a list of {rate, sigma, steps} tables",
        ));
    };
    if items.is_empty() || items.len() > MAX_MECHANISMS {
        return Err(Error::arg(
            &name,
            format!(
                "must hold 1 to {MAX_MECHANISMS} phases, got {}",
                items.len()
            ),
        ));
    }
    let mut runs = Vec::new();
    for (i, p) in items.iter().enumerate() {
        let at = |f: &str| format!("mechanism {label}: field `phases[{i}].{f}`");
        if !matches!(p, Node::Table(_)) {
            return Err(Error::arg(
                &format!("{name}[{i}]"),
                "must be a table {rate, sigma, steps}",
            ));
        }
        if let Some(k) = p
            .keys()
            .into_iter()
            .find(|k| !["rate", "sigma", "steps"].contains(k))
        {
            return Err(Error::arg(
                &at(&clip(k)),
                "is not a field of a phase (expected: rate, sigma, steps)",
            ));
        }
        let (sigma, rate, steps) = sgm_fields(p, &at)?;
        runs.push(poisson_run(sigma, rate, steps));
    }
    Ok(Event::Composed(runs))
}

/// A `subsampled-gaussian` entry: `steps` Poisson-subsampled Gaussian steps (or its `phases`,
/// composed); with `relation = "substitution"` an [`Event::SubstitutionGaussian`] of its
/// sampling (poisson, fixed-size or shuffled); otherwise wrapped in [`Event::ShuffledAccountedAsPoisson`] when it declares shuffled
/// batches with Poisson accounting; shuffled batches otherwise are [`Event::ShuffledGaussian`].
fn subsampled_event(m: &Node, label: &str) -> Result<Event> {
    let field = |f: &str| format!("mechanism {label}: field `{f}`");
    let (how, substitution) = batches(m, label)?;
    if let Some(list) = m.get("phases") {
        if substitution {
            return Err(Error::arg(
                &field("relation"),
                "phases are accounted for add/remove neighbours only (relation = \"add-remove\")",
            ));
        }
        if let Some(k) = ["rate", "sigma", "steps"]
            .into_iter()
            .find(|k| m.get(k).is_some())
        {
            return Err(Error::arg(
                &field(k),
                "conflicts with `phases`: give rate, sigma, steps in each phase",
            ));
        }
        if how != Batches::Poisson {
            return Err(Error::arg(
                &field("phases"),
                "phases are accounted with Poisson sampling only (sampling = \"poisson\")",
            ));
        }
        return phases_event(list, label);
    }
    let (sigma, rate, steps) = sgm_fields(m, &field)?;
    if substitution {
        let sampling = match how {
            Batches::FixedSize => Sampling::FixedSize,
            Batches::Shuffled | Batches::ShuffledAsPoisson => Sampling::Shuffled,
            Batches::Poisson => Sampling::Poisson,
        };
        return Ok(Event::SubstitutionGaussian {
            sigma,
            rate,
            steps,
            sampling,
        });
    }
    Ok(match how {
        Batches::Poisson => poisson_run(sigma, rate, steps),
        Batches::ShuffledAsPoisson => {
            Event::ShuffledAccountedAsPoisson(Box::new(poisson_run(sigma, rate, steps)))
        }
        Batches::Shuffled => Event::ShuffledGaussian { sigma, rate, steps },
        // refused by `batches` (fixed-size batches need substitution neighbours)
        Batches::FixedSize => {
            return Err(Error::arg(
                &field("relation"),
                "sampling = \"fixed-size\" needs relation = \"substitution\"",
            ))
        }
    })
}

fn section_num(
    root: &Node,
    section: &str,
    field: &str,
    check: fn(&str, &Rational) -> Result<()>,
) -> Result<Option<Rational>> {
    let name = format!("[{section}] {field}");
    match root.get(section).and_then(|s| s.get(field)) {
        None => Ok(None),
        Some(Node::Num(t)) | Some(Node::Str(t)) => {
            let v = parse_exact(t).map_err(|e| Error::arg(&name, e))?;
            check(&name, &v)?;
            Ok(Some(v))
        }
        Some(_) => Err(Error::arg(
            &name,
            "must be a number or a string holding one",
        )),
    }
}

fn parse_json(text: &str) -> Result<Node> {
    let v: serde_json::Value = crate::input::json_value(text)?;
    Ok(from_json(&v))
}

fn parse_toml(text: &str) -> Result<Node> {
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
            .unwrap_or(0);
        let msg = e
            .message()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        Error::arg("FILE", format!("TOML syntax error at line {line}: {msg}"))
    })?;
    Ok(from_toml_item(doc.as_item()))
}

/// The top level is a table of the known sections, `[budget]` and `[claim]` of known fields.
fn check_sections(root: &Node) -> Result<()> {
    if !matches!(root, Node::Table(_)) {
        return Err(Error::arg("FILE", "the top level must be a table/object"));
    }
    if let Some(k) = root
        .keys()
        .into_iter()
        .find(|k| !["budget", "claim", "mechanism"].contains(k))
    {
        return Err(Error::arg(
            "FILE",
            format!(
                "unknown section `{}` (expected budget, claim, mechanism)",
                clip(k)
            ),
        ));
    }
    for (section, fields) in [
        ("budget", ["delta", "epsilon"]),
        ("claim", ["epsilon", "delta"]),
    ] {
        match root.get(section) {
            None => {}
            Some(t @ Node::Table(_)) => {
                if let Some(k) = t.keys().into_iter().find(|k| !fields.contains(k)) {
                    return Err(Error::arg(
                        &format!("[{section}] {}", clip(k)),
                        format!(
                            "is not a field of [{section}] (expected: {})",
                            fields.join(", ")
                        ),
                    ));
                }
            }
            Some(_) => {
                return Err(Error::arg(
                    &format!("[{section}]"),
                    "must be a table/object",
                ))
            }
        }
    }
    Ok(())
}

/// The `i`-th `[[mechanism]]` entry as an event: its mechanism, run `repeat` times, labelled
/// with its `name` when it has one.
fn entry(i: usize, m: &Node) -> Result<Event> {
    let name = match m.get("name") {
        Some(Node::Str(s)) if s.chars().count() > MAX_NAME_CHARS => {
            return Err(Error::arg(
                &format!("mechanism #{}: field `name`", i + 1),
                format!(
                    "has {} characters; at most {MAX_NAME_CHARS} are accepted",
                    s.chars().count()
                ),
            ))
        }
        Some(Node::Str(s)) => Some(s.clone()),
        _ => None,
    };
    let label = format!(
        "`{}`",
        name.clone().unwrap_or_else(|| format!("#{}", i + 1))
    );
    let ty = match m.get("type") {
        Some(Node::Str(s)) => s.clone(),
        _ => {
            return Err(Error::arg(
                &format!("mechanism {label}: field `type`"),
                format!("is missing; valid types: {}", TYPES.join(", ")),
            ))
        }
    };
    let leaf = entry_event(&ty, m, &label)?;
    let repeat = match m.get("repeat") {
        None => Integer::from(1),
        Some(Node::Num(t)) | Some(Node::Str(t)) => parse_positive_integer(t)
            .map_err(|e| Error::arg(&format!("mechanism {label}: field `repeat`"), e))?,
        Some(_) => {
            return Err(Error::arg(
                &format!("mechanism {label}: field `repeat`"),
                "must be a positive integer",
            ))
        }
    };
    let run = if repeat == 1 {
        leaf
    } else {
        Event::SelfComposed {
            event: Box::new(leaf),
            count: repeat,
        }
    };
    Ok(match name {
        Some(n) => run.named(n),
        None => run,
    })
}

/// A deployment file's reading and writing (the type and its builders are the audit's
/// question, [`crate::audit::Deployment`]).
impl Deployment {
    /// Read a deployment from a `.toml` or `.json` file (by extension; otherwise TOML).
    pub fn load(path: &Path) -> Result<Deployment> {
        let text = crate::input::read_text(path)?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        Self::parse(&text, is_json).map_err(|e| crate::input::at_path(path, e))
    }

    /// Parse deployment text.
    pub fn parse(text: &str, json: bool) -> Result<Deployment> {
        let text = &crate::input::clean(text);
        let root = if json {
            parse_json(text)?
        } else {
            parse_toml(text)?
        };
        check_sections(&root)?;
        let budget_delta = section_num(&root, "budget", "delta", validate::open_unit)?;
        let budget_epsilon = section_num(&root, "budget", "epsilon", validate::nonnegative)?;
        if budget_delta.is_none() && budget_epsilon.is_none() && root.get("claim").is_none() {
            return Err(Error::arg(
                "[budget]",
                "set `delta` (to get a certified ε) and/or `epsilon` (to get a certified δ), or a [claim] to check",
            ));
        }
        let claim = match root.get("claim") {
            None => None,
            Some(_) => {
                let e = section_num(&root, "claim", "epsilon", validate::nonnegative)?
                    .ok_or_else(|| Error::arg("[claim] epsilon", "is missing"))?;
                let d = section_num(&root, "claim", "delta", validate::unit_from_zero)?
                    .ok_or_else(|| Error::arg("[claim] delta", "is missing"))?;
                Some((e, d))
            }
        };
        let list = match root.get("mechanism") {
            Some(Node::Array(a)) if !a.is_empty() => a,
            _ => {
                return Err(Error::arg(
                    "[[mechanism]]",
                    "at least one mechanism is required",
                ))
            }
        };
        if list.len() > MAX_MECHANISMS {
            return Err(Error::arg(
                "[[mechanism]]",
                format!(
                    "{} entries; at most {MAX_MECHANISMS} are accepted (use `repeat` for repetitions)",
                    list.len()
                ),
            ));
        }
        let events = list
            .iter()
            .enumerate()
            .map(|(i, m)| entry(i, m))
            .collect::<Result<Vec<_>>>()?;
        Ok(Deployment {
            budget_delta,
            budget_epsilon,
            claim,
            event: Event::Composed(events),
        }
        .with_default_budget())
    }

    /// The deployment file as JSON (`budget`, `claim`, one `mechanism` entry per ledger entry;
    /// numbers as exact strings). Parsing it back gives the same audit.
    pub fn to_json(&self) -> Result<serde_json::Value> {
        use serde_json::{json, Map, Value};
        let ledger = crate::audit::ledger::Ledger::from_event(&self.event)?;
        if ledger.stand_in {
            return Err(Error::arg(
                "event",
                "holds a dominating stand-in (a mixture of Gaussians with unequal sensitivities): a deployment file would describe the stand-in as the release itself",
            ));
        }
        if let Some(m) = ledger.entries.iter().find(|m| {
            matches!(
                m.mechanism,
                crate::audit::ledger::Mechanism::RepeatAndSelect { .. }
            )
        }) {
            return Err(Error::arg(
                &format!("mechanism `{}`", m.name),
                "repeat-and-select has no deployment-file form (audit the DpEvent itself)",
            ));
        }
        let x = crate::audit::ledger::exact_text;
        let mut root = Map::new();
        let mut budget = Map::new();
        if let Some(d) = &self.budget_delta {
            budget.insert("delta".into(), json!(x(d)));
        }
        if let Some(e) = &self.budget_epsilon {
            budget.insert("epsilon".into(), json!(x(e)));
        }
        root.insert("budget".into(), Value::Object(budget));
        if let Some((e, d)) = &self.claim {
            root.insert("claim".into(), json!({"epsilon": x(e), "delta": x(d)}));
        }
        let list = ledger.entries.iter().map(|m| {
            let mut o = Map::new();
            o.insert("name".into(), json!(m.name));
            o.insert("type".into(), json!(m.mechanism.type_name()));
            for (k, v) in m.mechanism.parameters() {
                o.insert(k.into(), json!(v));
            }
            if m.repeat != 1 {
                o.insert("repeat".into(), json!(m.repeat.to_string()));
            }
            Value::Object(o)
        });
        root.insert("mechanism".into(), Value::Array(list.collect()));
        Ok(Value::Object(root))
    }

    /// The deployment file as TOML (see [`Deployment::to_json`]).
    pub fn to_toml(&self) -> Result<String> {
        let quote = |s: &str| serde_json::Value::from(s).to_string();
        let j = self.to_json()?;
        let mut out = String::from("[budget]\n");
        for (k, v) in j["budget"].as_object().into_iter().flatten() {
            out += &format!("{k} = {}\n", quote(v.as_str().unwrap_or_default()));
        }
        if let Some(c) = j["claim"].as_object() {
            out += "\n[claim]\n";
            for (k, v) in c {
                out += &format!("{k} = {}\n", quote(v.as_str().unwrap_or_default()));
            }
        }
        for m in j["mechanism"].as_array().into_iter().flatten() {
            out += "\n[[mechanism]]\n";
            for (k, v) in m.as_object().into_iter().flatten() {
                out += &format!("{k} = {}\n", quote(v.as_str().unwrap_or_default()));
            }
        }
        Ok(out)
    }
}
