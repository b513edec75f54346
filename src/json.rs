//! The one JSON contract, `"schema": "dpcert/1"` (file: `schema/dpcert-1.schema.json`).
//!
//! Every command's `--json` output is one [`envelope`]: `schema`, `dpcert_version`, `command`,
//! `input` (the parameters as data, exact decimal strings as written), `result` (`null` on
//! error) and `error` (`null` on success, else `{code, kind, message}`). Every certified
//! quantity inside `result` is a [`quantity`] object: `{lower, upper, kind, upper_f64}` with
//! decimal strings rounded outward (`lower` is `null` when no lower bound is claimed). Keys are
//! always present; empty values are `null` or `[]`, never omitted.
use crate::num::{Certified, Enclosure, Lower};
use crate::{exit, Error};
use serde_json::{json, Value};

/// The schema identifier every JSON output carries.
pub const SCHEMA: &str = "dpcert/1";

/// A lower end for printing: every quantity dpcert prints is ≥ 0, so a certified lower end
/// below 0 (interval cancellation at tiny values) prints as 0, which is still a lower bound.
///
/// # Guarantee
/// The decimal is at most the lower end (rounded down in decimal), so it is still a lower
/// bound of the exact quantity.
pub fn lower_decimal(l: &Lower) -> String {
    if *l.as_float() < 0 {
        "0".to_string()
    } else {
        l.to_decimal()
    }
}

/// A certified quantity: `{lower, upper, kind, upper_f64, rests_on}`. `upper_f64` is the
/// nearest `f64` on the safe side (≥ the decimal `upper`), or `null` if it is not finite.
///
/// # Guarantee
/// Printing only rounds outward: `upper` (and `upper_f64`) ≥ the certified upper end, `lower`
/// ≤ the certified lower end (see [`lower_decimal`]), so whatever `c` certifies the JSON
/// certifies too. `kind` says which: `lower` is `null` for an upper bound.
pub fn quantity(c: &Certified) -> Value {
    let up = c.upper();
    let text = up.to_decimal();
    // the smallest f64 at or above the decimal `upper` (itself ≥ the certified end): when that
    // end is an f64, its own value lies below the decimal rounded up to 20 digits
    let f = f64_at_or_above(&text).unwrap_or_else(|| up.to_f64());
    json!({
        "lower": c.lower().map(lower_decimal),
        "upper": text,
        "kind": c.kind(),
        "upper_f64": if f.is_finite() { json!(f) } else { Value::Null },
        "rests_on": c.rests_on(),
    })
}

/// The smallest `f64` ≥ the decimal `text` (parsed at 256 bits rounded up, then rounded up to
/// `f64`: each step only rounds up); `None` if it does not parse.
fn f64_at_or_above(text: &str) -> Option<f64> {
    let parsed = rug::Float::parse(text).ok()?;
    let (v, _) = rug::Float::with_val_round(256, parsed, rug::float::Round::Up);
    Some(v.to_f64_round(rug::float::Round::Up))
}

/// A two-sided enclosure as a quantity.
///
/// # Guarantee
/// As [`quantity`]: both ends printed outward.
pub fn enclosure(e: &Enclosure) -> Value {
    quantity(&Certified::TwoSided(e.clone()))
}

/// The envelope of a successful command.
pub fn envelope(command: &str, input: Value, result: Value) -> Value {
    json!({
        "schema": SCHEMA,
        "dpcert_version": env!("CARGO_PKG_VERSION"),
        "command": command,
        "input": input,
        "result": result,
        "error": null,
    })
}

/// The envelope of a failed command (printed on stdout with `--json`, as well as the message
/// on stderr). `code` is the process exit code (see [`crate::exit`]).
pub fn error_envelope(command: &str, input: Value, e: &Error) -> Value {
    let (code, kind) = match e {
        Error::InvalidArgument { .. } => (exit::BAD_INPUT, "bad-input"),
        Error::Numerical(_) => (exit::NUMERICAL, "numerical"),
    };
    json!({
        "schema": SCHEMA,
        "dpcert_version": env!("CARGO_PKG_VERSION"),
        "command": command,
        "input": input,
        "result": null,
        "error": {"code": code, "kind": kind, "message": e.to_string()},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::float::Round;
    use rug::{Float, Rational};

    /// `upper_f64` is the smallest f64 at or above the printed decimal: checked in exact
    /// rationals, on decimals printed (20 digits, rounded up) from f64 values themselves — where
    /// the certified end's own f64 lies below the decimal (a dpcert run printed 3.9193568604775594900
    /// with upper_f64 = 3.9193568604775595 < it) — and from values between floats.
    #[test]
    fn upper_f64_is_the_least_float_at_or_above_the_decimal() {
        let exact = |t: &str| crate::num::parse_exact(t).unwrap();
        let mut checked = 0;
        for x in [3.9193568604775595f64, 1.0, 0.1, 2.5e-300, 1e300, 123456.789] {
            for v in [
                Float::with_val(53, x),
                Float::with_val(200, x) + Float::with_val(200, x) * 1e-18,
            ] {
                let text = v.to_string_radix_round(10, Some(20), Round::Up);
                let f = f64_at_or_above(&text).unwrap();
                let d = exact(&text);
                assert!(Rational::from_f64(f).unwrap() >= d, "{text}: {f:e}");
                assert!(
                    Rational::from_f64(f.next_down()).unwrap() < d,
                    "{text}: {f:e} not the least"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 12);
        // the case that broke the old rule (the f64 end itself, below its rounded-up decimal)
        let end = 3.9193568604775595f64;
        assert!(f64_at_or_above("3.9193568604775594900").unwrap() > end);
        assert!(f64_at_or_above("not a number").is_none());
    }
}
