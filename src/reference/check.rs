//! Judging one value another library printed for a query (`dpcert check`).
//!
//! Every query asks for the *smallest valid value* `t*` of a quantity: the optimal ε at a δ,
//! the optimal δ at an ε, the smallest sufficient σ, an RDP ε(α). A printed value `v` is
//! **sound** when it is a valid guarantee (`v ≥ t*`), **unsound** when it is not (`v < t*`) or
//! cannot be a value of the quantity at all (NaN, −∞, a negative ε or δ, σ ≤ 0), and
//! **undecided** when the certified evaluations could not separate `v` from `t*`. A record
//! whose query or value is malformed is **invalid**. These are `check`'s words for the one
//! [`Verdict`] `audit` gives too (holds, fails, undecided; [`verdict_word`]), with an
//! [`Invalid`] record as the `Err` around it.
//!
//! The [`Bracket`] is the intersection of every certified statement made while deciding a
//! record: each evaluation can only narrow it, and a verdict is only ever read off it, so the
//! bracket shown never contradicts the verdict (`sound ⇒ v ≥ upper`, `unsound ⇒ v ≤ lower`
//! with `t* > v`, `undecided ⇒ lower ≤ v < upper`).
use crate::num::{parse_exact, Enclosure, Lower, Upper};
use rug::{Float, Rational};
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;

/// A value as another library printed it.
#[derive(Clone, Debug, PartialEq)]
pub enum Claimed {
    /// A finite value, exactly as printed (decimal or fraction).
    Finite(Rational),
    /// +∞ (a vacuous bound).
    PosInf,
    /// −∞.
    NegInf,
    /// Not a number.
    NaN,
}

impl Claimed {
    /// Read a printed value: an exact decimal or fraction, or a spelling of NaN or ±∞
    /// (`NaN`, `nan`, `-nan`, `inf`, `+inf`, `-inf`, `Infinity`, `-Infinity`, `∞`).
    /// `Err` when the text is not a number at all (the record is malformed).
    pub fn parse(text: &str) -> Result<Claimed, String> {
        let t = text.trim();
        let (sign, body) = match t.strip_prefix('-') {
            Some(b) => (-1, b),
            None => (1, t.strip_prefix('+').unwrap_or(t)),
        };
        let lower = body.to_ascii_lowercase();
        if lower == "nan" || lower.starts_with("nan(") {
            return Ok(Claimed::NaN);
        }
        if ["inf", "infinity", "∞"].contains(&lower.as_str()) {
            return Ok(if sign < 0 {
                Claimed::NegInf
            } else {
                Claimed::PosInf
            });
        }
        parse_exact(t).map(Claimed::Finite)
    }

    /// Read a record's `value`: a JSON string, or a JSON number read from its source text.
    pub fn from_json(v: &Value) -> Result<Claimed, String> {
        match v {
            Value::String(s) => Claimed::parse(s).map_err(|e| format!("`value`: {e}")),
            Value::Number(n) => Claimed::parse(&n.to_string()).map_err(|e| format!("`value`: {e}")),
            Value::Null => Err("`value` is missing or null".into()),
            _ => Err("`value` must be a number or a string holding one".into()),
        }
    }
}

/// Python's `json` module (and others) print NaN and infinities as the bare tokens `NaN`,
/// `Infinity`, `-Infinity`, which JSON does not allow. Quote every bare `NaN`, `Infinity`,
/// `-Infinity`, `inf`, `-inf`, `nan` outside strings so that such a file still parses and the
/// values reach [`Claimed::parse`]. Text without such tokens is returned unchanged.
pub fn quote_nonfinite_tokens(text: &str) -> Cow<'_, str> {
    const TOKENS: [&str; 6] = ["-Infinity", "Infinity", "NaN", "-inf", "inf", "nan"];
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let (mut i, mut last, mut in_str, mut esc) = (0usize, 0usize, false, false);
    while i < b.len() {
        let c = b[i];
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        let boundary_before = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let hit = TOKENS.iter().find(|t| {
            b[i..].starts_with(t.as_bytes())
                && b.get(i + t.len())
                    .is_none_or(|n| !n.is_ascii_alphanumeric())
        });
        match hit {
            Some(t) if boundary_before => {
                let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 16));
                o.push_str(&text[last..i]);
                o.push('"');
                o.push_str(t);
                o.push('"');
                i += t.len();
                last = i;
            }
            _ => i += 1,
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[last..]);
            Cow::Owned(o)
        }
    }
}

/// What a query asks for; fixes the domain of a meaningful value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// An ε of (ε, δ)-DP: ≥ 0; +∞ is a valid but vacuous guarantee.
    Epsilon,
    /// A δ of (ε, δ)-DP: in [0, 1]; any δ ≥ 1 holds for every mechanism (vacuous).
    Delta,
    /// A noise scale σ: > 0; +∞ is vacuous.
    Sigma,
    /// A Rényi-DP ε(α): ≥ 0; +∞ is vacuous.
    RdpEpsilon,
    /// A membership-inference attack's TPR at a given FPR (f-DP): in [0, 1]; ≥ 1 is vacuous.
    Tpr,
    /// A μ of μ-GDP: ≥ 0; +∞ is vacuous.
    Mu,
}

impl Quantity {
    /// The quantity's JSON key: `epsilon`, `delta`, `sigma` or `rdp_epsilon`.
    pub fn key(self) -> &'static str {
        match self {
            Quantity::Epsilon => "epsilon",
            Quantity::Delta => "delta",
            Quantity::Sigma => "sigma",
            Quantity::RdpEpsilon => "rdp_epsilon",
            Quantity::Tpr => "tpr",
            Quantity::Mu => "mu",
        }
    }
    fn name(self) -> &'static str {
        match self {
            Quantity::Epsilon => "ε",
            Quantity::Delta => "δ",
            Quantity::Sigma => "σ",
            Quantity::RdpEpsilon => "RDP ε(α)",
            Quantity::Tpr => "TPR",
            Quantity::Mu => "μ",
        }
    }
}

pub use crate::verdict::Verdict;

/// A record that could not be judged: its query or value is malformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Invalid;

/// A record's outcome: the verdict on its value, or [`Invalid`].
pub type Outcome = Result<Verdict, Invalid>;

/// The word `check` prints for a record's outcome: `sound` (the value holds), `unsound`
/// (it fails), `undecided`, or `invalid` (the record is malformed).
pub fn verdict_word(outcome: Outcome) -> &'static str {
    match outcome {
        Ok(Verdict::Holds) => "sound",
        Ok(Verdict::Fails) => "unsound",
        Ok(Verdict::Undecided) => "undecided",
        Err(Invalid) => "invalid",
    }
}

/// Whether the bracket encloses the exact optimum (`two-sided`) or dpcert's answer to the
/// query is only a bound on it (`upper-bound`: zCDP conversions, composition bounds, DP-SGD
/// via RDP). In both cases `lower`, when present, is a certified lower bound of `t*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The bracket encloses the exact optimum `t*`.
    TwoSided,
    /// dpcert's answer is only an upper bound on `t*` (its lower end, when present, is still a certified lower bound).
    UpperBound,
}

impl Kind {
    /// The kind's name: `two-sided` or `upper-bound`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::TwoSided => "two-sided",
            Kind::UpperBound => "upper-bound",
        }
    }
}

/// Screen a value against the quantity's domain. `Ok(v)`: a finite value in the domain, to be
/// judged against `t*`. `Err((verdict, reason))`: decided without evaluation — impossible
/// values are unsound, vacuous ones (+∞; δ ≥ 1) sound.
pub fn screen(q: Quantity, v: &Claimed) -> Result<Rational, (Verdict, String)> {
    let name = q.name();
    match v {
        Claimed::NaN => Err((Verdict::Fails, format!("impossible: {name} is NaN"))),
        Claimed::NegInf => Err((Verdict::Fails, format!("impossible: {name} is −∞"))),
        Claimed::PosInf if q == Quantity::Tpr => Err((
            Verdict::Holds,
            "vacuous: TPR = +∞ ≥ 1 bounds every attack (but is not a probability)".into(),
        )),
        Claimed::PosInf if q == Quantity::Delta => Err((
            Verdict::Holds,
            "vacuous: δ = +∞ ≥ 1 holds for every mechanism (but is not a probability)".into(),
        )),
        Claimed::PosInf => Err((
            Verdict::Holds,
            format!("vacuous: {name} = +∞ is a valid but empty guarantee"),
        )),
        Claimed::Finite(x) => match q {
            Quantity::Sigma if *x <= 0 => Err((
                Verdict::Fails,
                format!("impossible: σ must be > 0, got {}", crate::validate::show(x)),
            )),
            _ if *x < 0 => Err((
                Verdict::Fails,
                format!(
                    "impossible: {name} must be ≥ 0, got {}",
                    crate::validate::show(x)
                ),
            )),
            Quantity::Delta if *x > 1 => Err((
                Verdict::Holds,
                format!(
                    "vacuous: δ ≥ 1 holds for every mechanism (and δ = {} > 1 is not a probability)",
                    crate::validate::show(x)
                ),
            )),
            Quantity::Tpr if *x >= 1 => Err((
                Verdict::Holds,
                "vacuous: TPR ≥ 1 bounds every attack".into(),
            )),
            Quantity::Delta if *x == 1 => Err((
                Verdict::Holds,
                "vacuous: δ = 1 holds for every mechanism".into(),
            )),
            _ => Ok(x.clone()),
        },
    }
}

/// One end of a bracket: a certified float bound, or an exact value (a claimed value that a
/// certified evaluation placed on one side of `t*`).
#[derive(Clone, Debug)]
enum End {
    Bound(Float),
    Exact(Rational),
}

/// An end against a claimed value (a NaN bound compares with nothing).
impl PartialEq<Rational> for End {
    fn eq(&self, v: &Rational) -> bool {
        self.partial_cmp(v) == Some(Ordering::Equal)
    }
}

impl PartialOrd<Rational> for End {
    fn partial_cmp(&self, v: &Rational) -> Option<Ordering> {
        match self {
            End::Bound(f) => f.partial_cmp(v),
            End::Exact(q) => Some(q.cmp(v)),
        }
    }
}

impl End {
    fn cmp_end(&self, other: &End) -> Option<Ordering> {
        match (self, other) {
            (End::Bound(a), End::Bound(b)) => a.partial_cmp(b),
            (End::Bound(a), End::Exact(b)) => a.partial_cmp(b),
            (End::Exact(a), End::Bound(b)) => b.partial_cmp(a).map(Ordering::reverse),
            (End::Exact(a), End::Exact(b)) => Some(a.cmp(b)),
        }
    }
}

/// Certified knowledge about `t*`, the smallest valid value: `lower ≤ t* ≤ upper` (an end
/// is absent where nothing is known). Only ever narrowed: each `meet_*` keeps the tighter end.
#[derive(Clone, Debug)]
pub struct Bracket {
    lower: Option<End>,
    upper: Option<End>,
    kind: Kind,
}

impl Bracket {
    /// Nothing known yet but the quantity's domain: `t* ≥ 0`, and `t* ≤ 1` for a δ.
    pub fn new(q: Quantity, kind: Kind) -> Bracket {
        Bracket {
            lower: Some(End::Exact(Rational::new())),
            upper: (q == Quantity::Delta || q == Quantity::Tpr)
                .then(|| End::Exact(Rational::from(1))),
            kind,
        }
    }
    /// Whether the bracket is two-sided or only an upper bound on `t*`.
    pub fn kind(&self) -> Kind {
        self.kind
    }
    /// Set whether the bracket is two-sided or only an upper bound on `t*`.
    pub fn set_kind(&mut self, kind: Kind) {
        self.kind = kind;
    }
    fn meet_lower_end(&mut self, x: End) {
        let tighter = match &self.lower {
            None => true,
            Some(l) => x.cmp_end(l) == Some(Ordering::Greater),
        };
        if tighter {
            self.lower = Some(x);
        }
    }
    fn meet_upper_end(&mut self, x: End) {
        let tighter = match &self.upper {
            None => true,
            Some(u) => x.cmp_end(u) == Some(Ordering::Less),
        };
        if tighter {
            self.upper = Some(x);
        }
    }
    /// `t* ≥ x` (NaN and −∞ say nothing and are ignored).
    pub fn meet_lower_float(&mut self, x: &Float) {
        if x.is_finite() {
            self.meet_lower_end(End::Bound(x.clone()));
        }
    }
    /// `t* ≤ x` (NaN and +∞ say nothing and are ignored).
    pub fn meet_upper_float(&mut self, x: &Float) {
        if x.is_finite() {
            self.meet_upper_end(End::Bound(x.clone()));
        }
    }
    /// `t* ≥ lower`.
    pub fn meet_lower(&mut self, l: &Lower) {
        self.meet_lower_float(&l.0)
    }
    /// `t* ≤ upper`.
    pub fn meet_upper(&mut self, u: &Upper) {
        self.meet_upper_float(&u.0)
    }
    /// `e` encloses `t*`.
    pub fn meet_enclosure(&mut self, e: &Enclosure) {
        self.meet_lower(e.lower());
        self.meet_upper(e.upper());
    }
    /// `t* ≥ x` for an exact rational (kept exactly).
    pub fn meet_lower_exact(&mut self, x: &Rational) {
        self.meet_lower_end(End::Exact(x.clone()))
    }
    /// `t* ≤ x` for an exact rational (kept exactly).
    pub fn meet_upper_exact(&mut self, x: &Rational) {
        self.meet_upper_end(End::Exact(x.clone()))
    }
    /// Read a verdict off the bracket ([`Verdict::read_off`]): holds (sound) if
    /// `v ≥ upper`, fails (unsound) if `v < lower`; `None` while undecided.
    pub fn decide(&self, v: &Rational) -> Option<Verdict> {
        Verdict::read_off(self.lower.as_ref(), self.upper.as_ref(), v).decided()
    }
    /// Whether `verdict` on `v` agrees with the bracket shown: holds ⇒ `v ≥ upper`,
    /// fails ⇒ `v ≤ lower`, undecided ⇒ `lower ≤ v < upper`. Every verdict keeps it.
    pub fn agrees(&self, verdict: Verdict, v: &Rational) -> bool {
        let ge_upper = self.upper.as_ref().is_some_and(|u| u <= v);
        let le_lower = self.lower.as_ref().is_some_and(|l| l >= v);
        let gt_lower = self.lower.as_ref().is_some_and(|l| l > v);
        match verdict {
            Verdict::Holds => ge_upper,
            Verdict::Fails => le_lower,
            Verdict::Undecided => !ge_upper && !gt_lower,
        }
    }
    /// Decimal endpoints: float bounds outward (lower rounded down, upper up), exact ends
    /// exactly; `None` where unknown.
    pub fn to_decimals(&self) -> (Option<String>, Option<String>) {
        let show = |e: &End, is_lower: bool| match e {
            End::Exact(q) => crate::validate::show(q),
            End::Bound(f) if is_lower => Lower(f.clone()).to_decimal(),
            End::Bound(f) => Upper(f.clone()).to_decimal(),
        };
        (
            self.lower.as_ref().map(|l| show(l, true)),
            self.upper.as_ref().map(|u| show(u, false)),
        )
    }
    /// JSON fields `kind`, `lower`, `upper`.
    pub fn to_json(&self) -> Value {
        let (l, u) = self.to_decimals();
        serde_json::json!({"kind": self.kind.name(), "lower": l, "upper": u})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn rational(s: &str) -> Rational {
        parse_exact(s).unwrap()
    }

    #[test]
    fn claimed_spellings() {
        for (t, want) in [
            ("NaN", Claimed::NaN),
            ("nan", Claimed::NaN),
            ("-nan", Claimed::NaN),
            ("inf", Claimed::PosInf),
            ("+inf", Claimed::PosInf),
            ("Infinity", Claimed::PosInf),
            ("-Infinity", Claimed::NegInf),
            ("-inf", Claimed::NegInf),
            ("∞", Claimed::PosInf),
            ("-0.0048", Claimed::Finite(rational("-0.0048"))),
            ("-0", Claimed::Finite(rational("0"))),
            (" 1e-5 ", Claimed::Finite(rational("1e-5"))),
        ] {
            assert_eq!(Claimed::parse(t).unwrap(), want, "{t}");
        }
        for bad in ["", "x", "1.2.3", "infinite", "nanx", "1e999999999"] {
            assert!(Claimed::parse(bad).is_err(), "{bad}");
        }
        assert!(Claimed::from_json(&Value::Bool(true)).is_err());
        assert!(Claimed::from_json(&Value::Null).is_err());
        assert!(Claimed::from_json(&serde_json::json!([1])).is_err());
    }

    #[test]
    fn bare_nonfinite_tokens_are_quoted() {
        let t = r#"[{"query": ["a", "NaN inside"], "value": NaN}, {"value": -Infinity}, {"value":Infinity}, {"value": 1e5}, {"v": "say \"NaN\""}]"#;
        let v: Value = serde_json::from_str(&quote_nonfinite_tokens(t)).unwrap();
        assert_eq!(v[0]["value"], "NaN");
        assert_eq!(v[0]["query"][1], "NaN inside");
        assert_eq!(v[1]["value"], "-Infinity");
        assert_eq!(v[2]["value"], "Infinity");
        assert_eq!(
            Claimed::from_json(&v[3]["value"]).unwrap(),
            Claimed::Finite(rational("100000"))
        );
        assert_eq!(v[4]["v"], "say \"NaN\"");
        assert!(matches!(quote_nonfinite_tokens("[1, 2]"), Cow::Borrowed(_)));
    }

    #[test]
    fn screening() {
        use Quantity::*;
        let v = |s: &str| Claimed::parse(s).unwrap();
        let verdict = |qq, s: &str| screen(qq, &v(s)).err().map(|(x, _)| x);
        assert_eq!(verdict(Epsilon, "-0.0048"), Some(Verdict::Fails));
        assert_eq!(verdict(Delta, "-9.3e-38"), Some(Verdict::Fails));
        assert_eq!(verdict(Delta, "NaN"), Some(Verdict::Fails));
        assert_eq!(verdict(Epsilon, "-inf"), Some(Verdict::Fails));
        assert_eq!(verdict(Sigma, "0"), Some(Verdict::Fails));
        assert_eq!(verdict(Epsilon, "inf"), Some(Verdict::Holds));
        assert_eq!(verdict(Delta, "1.5"), Some(Verdict::Holds));
        assert_eq!(verdict(Delta, "1"), Some(Verdict::Holds));
        assert_eq!(verdict(Delta, "Infinity"), Some(Verdict::Holds));
        assert_eq!(verdict(Epsilon, "0"), None);
        assert_eq!(verdict(Delta, "0.999"), None);
        assert_eq!(verdict(RdpEpsilon, "3"), None);
    }

    #[test]
    fn bracket_only_narrows_and_agrees() {
        let mut b = Bracket::new(Quantity::Delta, Kind::TwoSided);
        // the domain: t* ∈ [0, 1]
        assert_eq!(b.decide(&rational("1")), Some(Verdict::Holds));
        assert_eq!(b.decide(&rational("-1/1000")), Some(Verdict::Fails));
        assert_eq!(b.decide(&rational("0.5")), None);
        b.meet_upper_exact(&rational("0.3"));
        b.meet_lower_exact(&rational("0.1"));
        // a wider statement later changes nothing
        b.meet_upper_exact(&rational("0.4"));
        b.meet_lower_exact(&rational("0.05"));
        assert_eq!(b.decide(&rational("0.3")), Some(Verdict::Holds));
        assert_eq!(b.decide(&rational("0.2999")), None);
        assert_eq!(b.decide(&rational("0.0999")), Some(Verdict::Fails));
        assert!(b.agrees(Verdict::Undecided, &rational("0.2")));
        assert!(!b.agrees(Verdict::Holds, &rational("0.2")));
        assert!(!b.agrees(Verdict::Fails, &rational("0.2")));
        assert_eq!(b.to_decimals(), (Some("0.1".into()), Some("0.3".into())));
        // a certified float end is printed outward
        b.meet_upper_float(&Float::with_val(8, 0.25));
        assert_eq!(b.to_decimals().1.unwrap(), "2.5000000000000000000e-1");
        assert!(b.agrees(Verdict::Holds, &rational("0.25")));
        assert!(b.agrees(Verdict::Fails, &rational("0.1")));
    }
}
