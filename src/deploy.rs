//! Deployment files: what a deployment released, as TOML or JSON.
//!
//! Every number may be a TOML/JSON number or a string holding an exact decimal or fraction;
//! numbers are read from their source text (never through `f64`). Adding a mechanism type is
//! one local change: a variant of [`Mechanism`], its arm in [`Mechanism::parse`], and its
//! arms in the capability methods the audit routes ask for.
use crate::num::{parse_exact, parse_positive_integer};
use crate::theorems::gaussian::GaussianMechanism;
use crate::theorems::pld_accountant::{Direction, PldMechanism};
use crate::{validate, Error, Result};
use rug::{Integer, Rational};
use std::path::Path;

/// Longest mechanism `name` accepted (it labels a row of the report).
pub const MAX_NAME_CHARS: usize = 200;
/// Most `[[mechanism]]` entries accepted: the audit's work is linear in their number (measured:
/// about 1 s of CPU per distinct DP-SGD entry and 50 ms per Gaussian for the PLD route; 1000
/// Gaussians took 46 s); identical releases are one entry with `repeat`.
pub const MAX_MECHANISMS: usize = 100;

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
    Num(String),
    Str(String),
    Bool(bool),
    Table(Vec<(String, Node)>),
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

/// One released mechanism type.
#[derive(Clone, Debug, PartialEq)]
pub enum Mechanism {
    /// N(0, σ²) noise on a query of L2 sensitivity Δ.
    Gaussian {
        sigma: Rational,
        sensitivity: Rational,
    },
    /// Laplace(b) noise on a query of L1 sensitivity Δ: (Δ/b)-DP.
    Laplace {
        scale: Rational,
        sensitivity: Rational,
    },
    /// A black box that is ε-DP.
    Pure { epsilon: Rational },
    /// A black box that is (ε, δ)-DP.
    Approx { epsilon: Rational, delta: Rational },
    /// A black box that is ρ-zCDP.
    Zcdp { rho: Rational },
    /// ε-randomized response (ε-DP, and its own worst case).
    RandomizedResponse { epsilon: Rational },
    /// A DP-SGD run: `steps` Poisson-subsampled Gaussian steps (noise multiplier σ, rate q).
    /// `shuffled` records a deployment that declared shuffled batches but asked for Poisson
    /// accounting (the numbers then assume Poisson sampling; the audit warns).
    SubsampledGaussian {
        sigma: Rational,
        rate: Rational,
        steps: Integer,
        shuffled: bool,
    },
}

/// The valid `type` strings.
pub const TYPES: &[&str] = &[
    "gaussian",
    "laplace",
    "pure",
    "approx",
    "zcdp",
    "randomized-response",
];

impl Mechanism {
    fn parse(ty: &str, m: &Node, label: &str) -> Result<Mechanism> {
        let num = |field: &str| -> Result<Rational> {
            let bad = |why: String| Error::arg(&format!("mechanism {label}: field `{field}`"), why);
            match m.get(field) {
                None => Err(bad("is missing".into())),
                Some(Node::Num(s)) | Some(Node::Str(s)) => parse_exact(s).map_err(bad),
                Some(_) => Err(bad("must be a number or a string holding one".into())),
            }
        };
        let named = |field: &str, check: fn(&str, &Rational) -> Result<()>| -> Result<Rational> {
            let v = num(field)?;
            check(&format!("mechanism {label}: field `{field}`"), &v)?;
            Ok(v)
        };
        let allowed: &[&str] = match ty {
            "gaussian" => &["sigma", "sensitivity"],
            "laplace" => &["scale", "sensitivity"],
            "pure" | "randomized-response" => &["epsilon"],
            "approx" => &["epsilon", "delta"],
            "zcdp" => &["rho"],
            "subsampled-gaussian" => &["sigma", "rate", "steps", "sampling", "accounting"],
            _ => {
                return Err(Error::arg(
                    &format!("mechanism {label}: field `type`"),
                    format!("unknown type `{}`; valid types: {}", clip(ty), TYPES.join(", ")),
                ))
            }
        };
        for k in m.keys() {
            if !["name", "type", "repeat"].contains(&k) && !allowed.contains(&k) {
                return Err(Error::arg(
                    &format!("mechanism {label}: field `{}`", clip(k)),
                    format!(
                        "is not a field of type `{ty}` (expected: {})",
                        allowed.join(", ")
                    ),
                ));
            }
        }
        let sens = || -> Result<Rational> {
            match m.get("sensitivity") {
                None => Ok(Rational::from(1)),
                Some(_) => named("sensitivity", validate::positive),
            }
        };
        Ok(match ty {
            "gaussian" => Mechanism::Gaussian {
                sigma: named("sigma", validate::positive)?,
                sensitivity: sens()?,
            },
            "laplace" => Mechanism::Laplace {
                scale: named("scale", validate::positive)?,
                sensitivity: sens()?,
            },
            "pure" => Mechanism::Pure {
                epsilon: named("epsilon", validate::nonnegative)?,
            },
            "randomized-response" => Mechanism::RandomizedResponse {
                epsilon: named("epsilon", validate::nonnegative)?,
            },
            "approx" => Mechanism::Approx {
                epsilon: named("epsilon", validate::nonnegative)?,
                delta: named("delta", validate::unit_from_zero)?,
            },
            "subsampled-gaussian" => {
                let text = |f: &str| match m.get(f) {
                    Some(Node::Str(s)) => Some(s.clone()),
                    _ => None,
                };
                let field = |f: &str| format!("mechanism {label}: field `{f}`");
                let sampling = text("sampling").unwrap_or_else(|| "poisson".into());
                let shuffled = match (sampling.as_str(), text("accounting").as_deref()) {
                    ("poisson", None | Some("poisson")) => false,
                    ("shuffled", Some("poisson")) => true,
                    ("shuffled", _) => {
                        return Err(Error::arg(
                            &field("sampling"),
                            "no theorem here covers shuffled batches; set accounting = \"poisson\" to get the Poisson-sampling numbers (the audit then warns that they assume Poisson sampling)",
                        ))
                    }
                    (s, _) => return Err(Error::arg(&field("sampling"), format!("`{s}` is not \"poisson\" or \"shuffled\""))),
                };
                let rate = num("rate")?;
                if rate <= 0 || rate > 1 {
                    return Err(Error::arg(
                        &field("rate"),
                        format!("must lie in (0, 1], got {}", validate::show(&rate)),
                    ));
                }
                let steps = match m.get("steps") {
                    Some(Node::Num(t)) | Some(Node::Str(t)) => {
                        parse_positive_integer(t).map_err(|e| Error::arg(&field("steps"), e))?
                    }
                    _ => {
                        return Err(Error::arg(
                            &field("steps"),
                            "is missing or not a positive integer",
                        ))
                    }
                };
                Mechanism::SubsampledGaussian {
                    sigma: named("sigma", validate::positive)?,
                    rate,
                    steps,
                    shuffled,
                }
            }
            _ => Mechanism::Zcdp {
                rho: named("rho", validate::nonnegative)?,
            },
        })
    }

    /// ε if the mechanism is ε-DP (pure), exactly.
    pub fn pure_epsilon(&self) -> Option<Rational> {
        match self {
            Mechanism::Laplace { scale, sensitivity } => Some(Rational::from(sensitivity / scale)),
            Mechanism::Pure { epsilon } | Mechanism::RandomizedResponse { epsilon } => {
                Some(epsilon.clone())
            }
            _ => None,
        }
    }
    /// (ε, δ) if the mechanism has an approximate-DP guarantee of its own.
    pub fn approx(&self) -> Option<(Rational, Rational)> {
        match self {
            Mechanism::Approx { epsilon, delta } => Some((epsilon.clone(), delta.clone())),
            _ => self.pure_epsilon().map(|e| (e, Rational::new())),
        }
    }
    /// ρ if the mechanism is ρ-zCDP (Lemma 12, Proposition 16, or declared).
    pub fn zcdp_rho(&self) -> Option<Rational> {
        match self {
            Mechanism::Gaussian { sigma, sensitivity } => Some(
                Rational::from(sensitivity * sensitivity) / Rational::from(sigma * sigma) / 2u32,
            ),
            Mechanism::Zcdp { rho } => Some(rho.clone()),
            Mechanism::Approx { .. } => None,
            _ => self.pure_epsilon().map(|e| Rational::from(&e * &e) / 2u32),
        }
    }
    /// The Gaussian mechanism, if this is one (the exact route of Corollary 10).
    pub fn gaussian(&self, repeat: &Integer) -> Option<GaussianMechanism> {
        match self {
            Mechanism::Gaussian { sigma, sensitivity } => Some(GaussianMechanism {
                sigma: sigma.clone(),
                sensitivity: sensitivity.clone(),
                count: repeat.clone(),
            }),
            _ => None,
        }
    }
    /// The mechanism's RDP curve term and its multiplicity per repetition.
    pub fn rdp_term(&self) -> Option<(crate::theorems::rdp::RdpTerm, Integer)> {
        use crate::theorems::rdp::RdpTerm;
        match self {
            Mechanism::SubsampledGaussian {
                sigma, rate, steps, ..
            } => Some((
                RdpTerm::SubsampledGaussian {
                    rate: rate.clone(),
                    sigma: sigma.clone(),
                },
                steps.clone(),
            )),
            Mechanism::Gaussian { .. } | Mechanism::Zcdp { .. } => self
                .zcdp_rho()
                .map(|rho| (RdpTerm::Zcdp { rho }, Integer::from(1))),
            Mechanism::Approx { .. } => None,
            _ => self
                .pure_epsilon()
                .map(|epsilon| (RdpTerm::Pure { epsilon }, Integer::from(1))),
        }
    }
    /// The mechanism's privacy loss distribution for the PLD accountant and its multiplicity
    /// per repetition: exact for Gaussian and randomized response, for Laplace the
    /// one-dimensional pair (the worst case under ℓ1 sensitivity, cited from Zhu–Dong–Wang
    /// 2022), the worst case
    /// (ε, δ)-randomized response for ε-DP and (ε, δ)-DP black boxes (Corollary 24), and for
    /// subsampled Gaussians the PLD of the given neighbour `direction`. `None` for zCDP black
    /// boxes, which have no PLD.
    pub fn pld_term(&self, direction: Direction) -> Option<(PldMechanism, Integer)> {
        let once = |m| Some((m, Integer::from(1)));
        match self {
            Mechanism::Gaussian { .. } => once(PldMechanism::Gaussian {
                rho: self.zcdp_rho()?,
            }),
            Mechanism::Laplace { .. } => once(PldMechanism::Laplace {
                eps: self.pure_epsilon()?,
            }),
            Mechanism::Pure { epsilon } | Mechanism::RandomizedResponse { epsilon } => {
                once(PldMechanism::RandomizedResponse {
                    eps: epsilon.clone(),
                })
            }
            Mechanism::Approx { epsilon, delta } => once(PldMechanism::ApproxDp {
                eps: epsilon.clone(),
                delta: delta.clone(),
            }),
            Mechanism::SubsampledGaussian {
                sigma, rate, steps, ..
            } => Some((
                PldMechanism::SubsampledGaussian {
                    sigma: sigma.clone(),
                    rate: rate.clone(),
                    direction,
                },
                steps.clone(),
            )),
            Mechanism::Zcdp { .. } => None,
        }
    }
    /// A one-line description.
    pub fn describe(&self) -> String {
        use crate::validate::show as s;
        match self {
            Mechanism::Gaussian { sigma, sensitivity } => {
                format!("gaussian σ={} Δ₂={}", s(sigma), s(sensitivity))
            }
            Mechanism::Laplace { scale, sensitivity } => {
                format!("laplace b={} Δ₁={}", s(scale), s(sensitivity))
            }
            Mechanism::Pure { epsilon } => format!("pure ε={}", s(epsilon)),
            Mechanism::Approx { epsilon, delta } => {
                format!("approx ε={} δ={}", s(epsilon), s(delta))
            }
            Mechanism::Zcdp { rho } => format!("zcdp ρ={}", s(rho)),
            Mechanism::RandomizedResponse { epsilon } => {
                format!("randomized-response ε={}", s(epsilon))
            }
            Mechanism::SubsampledGaussian {
                sigma, rate, steps, ..
            } => {
                format!(
                    "subsampled-gaussian σ={} q={} steps={}",
                    s(sigma),
                    s(rate),
                    steps
                )
            }
        }
    }
}

/// A mechanism entry: label, type and parameters, repetitions.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub name: String,
    pub mechanism: Mechanism,
    pub repeat: Integer,
}

/// A deployment: budget queries, optional claim, released mechanisms.
#[derive(Clone, Debug, PartialEq)]
pub struct Deployment {
    pub budget_delta: Option<Rational>,
    pub budget_epsilon: Option<Rational>,
    pub claim: Option<(Rational, Rational)>,
    pub mechanisms: Vec<Entry>,
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

impl Deployment {
    /// Read a deployment from a `.toml` or `.json` file (by extension; otherwise TOML).
    pub fn load(path: &Path) -> Result<Deployment> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::arg("FILE", format!("cannot read {}: {e}", path.display())))?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        Self::parse(&text, is_json).map_err(|e| match e {
            Error::InvalidArgument { name, reason } if name == "FILE" => {
                Error::arg("FILE", format!("{}: {reason}", path.display()))
            }
            other => other,
        })
    }

    /// Parse deployment text.
    pub fn parse(text: &str, json: bool) -> Result<Deployment> {
        let root = if json {
            let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
                Error::arg(
                    "FILE",
                    format!(
                        "JSON syntax error at line {}, column {}: {e}",
                        e.line(),
                        e.column()
                    ),
                )
            })?;
            from_json(&v)
        } else {
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
            from_toml_item(doc.as_item())
        };
        if !matches!(root, Node::Table(_)) {
            return Err(Error::arg("FILE", "the top level must be a table/object"));
        }
        for k in root.keys() {
            if !["budget", "claim", "mechanism"].contains(&k) {
                return Err(Error::arg(
                    "FILE",
                    format!("unknown section `{}` (expected budget, claim, mechanism)", clip(k)),
                ));
            }
        }
        for (section, fields) in [("budget", ["delta", "epsilon"]), ("claim", ["epsilon", "delta"])] {
            match root.get(section) {
                None => {}
                Some(t @ Node::Table(_)) => {
                    if let Some(k) = t.keys().into_iter().find(|k| !fields.contains(k)) {
                        return Err(Error::arg(
                            &format!("[{section}] {}", clip(k)),
                            format!("is not a field of [{section}] (expected: {})", fields.join(", ")),
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
        let budget_delta = section_num(&root, "budget", "delta", validate::open_unit)?;
        let budget_epsilon = section_num(&root, "budget", "epsilon", validate::nonnegative)?;
        if budget_delta.is_none() && budget_epsilon.is_none() {
            return Err(Error::arg(
                "[budget]",
                "set `delta` (to get a certified ε) and/or `epsilon` (to get a certified δ)",
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
        let mut mechanisms = Vec::new();
        for (i, m) in list.iter().enumerate() {
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
                Some(Node::Str(s)) => s.clone(),
                _ => format!("#{}", i + 1),
            };
            let label = format!("`{name}`");
            let ty = match m.get("type") {
                Some(Node::Str(s)) => s.clone(),
                _ => {
                    return Err(Error::arg(
                        &format!("mechanism {label}: field `type`"),
                        format!("is missing; valid types: {}", TYPES.join(", ")),
                    ))
                }
            };
            let mechanism = Mechanism::parse(&ty, m, &label)?;
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
            mechanisms.push(Entry {
                name,
                mechanism,
                repeat,
            });
        }
        Ok(Deployment {
            budget_delta,
            budget_epsilon,
            claim,
            mechanisms,
        })
    }
}
