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
    let f = up.to_f64();
    json!({
        "lower": c.lower().map(lower_decimal),
        "upper": up.to_decimal(),
        "kind": c.kind(),
        "upper_f64": if f.is_finite() { json!(f) } else { Value::Null },
        "rests_on": c.rests_on(),
    })
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
