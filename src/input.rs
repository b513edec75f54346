//! Input files and texts, read the same way everywhere (deployments in TOML or JSON, DpEvent
//! JSON, `check` record lists): at most [`MAX_INPUT_BYTES`] bytes, UTF-8, a leading byte-order
//! mark dropped and CRLF line ends read as LF; JSON objects must not repeat a key (serde_json
//! keeps the last value silently: `"sigma": 1, "sigma": 0.001` would be audited at σ = 0.001).
use crate::{Error, Result};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

/// Largest input file dpcert reads: 16 MiB (a deployment is at most 100 mechanisms; a `check`
/// file at most 10 000 records). Larger files, and endless ones (`/dev/zero`), are refused
/// with their size named, after reading at most one byte past the limit.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// The text of the file at `path`, [`clean`]ed. Errors (bad input, named `FILE`) name the
/// path: unreadable, larger than [`MAX_INPUT_BYTES`], or not UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    let name = path.display();
    let cannot = |e: std::io::Error| Error::arg("FILE", format!("cannot read {name}: {e}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        let size = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => format!("is {} bytes", m.len()),
            _ => "holds more bytes than that".to_string(),
        };
        return Err(Error::arg(
            "FILE",
            format!(
                "{name}: input files are read up to {MAX_INPUT_BYTES} bytes (16 MiB); this one {size}"
            ),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::arg(
            "FILE",
            format!(
                "{name}: not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    Ok(clean(&text).into_owned())
}

/// An error about a file's contents (named `FILE`) with the file's path in front.
pub fn at_path(path: &Path, e: Error) -> Error {
    match e {
        Error::InvalidArgument { name, reason } if name == "FILE" => {
            Error::arg("FILE", format!("{}: {reason}", path.display()))
        }
        other => other,
    }
}

/// `text` without a leading UTF-8 byte-order mark and with CRLF line ends as LF (what Windows
/// editors write); unchanged (borrowed) when it has neither.
pub fn clean(text: &str) -> Cow<'_, str> {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    if t.contains("\r\n") {
        Cow::Owned(t.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(t)
    }
}

/// Parse JSON `text` into a [`Value`], refusing an object that repeats a key. Errors are bad
/// input named `FILE`, with the line and column: a syntax error, or the repeated key and where
/// it sits (`mechanism[0]`).
pub fn json_value(text: &str) -> Result<Value> {
    let v: Value = serde_json::from_str(text).map_err(|e| json_error("JSON syntax error", &e))?;
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_any(Unique {
        path: String::new(),
    })
    .map_err(|e| json_error("JSON object", &e))?;
    Ok(v)
}

/// "what at line L, column C: message" (serde_json's own "at line … column …" suffix dropped).
fn json_error(what: &str, e: &serde_json::Error) -> Error {
    let text = e.to_string();
    let msg = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(m, _)| m);
    Error::arg(
        "FILE",
        format!("{what} at line {}, column {}: {msg}", e.line(), e.column()),
    )
}

/// A visitor that walks a JSON document and fails on the first object repeating a key.
struct Unique {
    /// Where the value sits, e.g. `mechanism[2]` (empty at the top).
    path: String,
}

impl Unique {
    fn below(&self, step: &str) -> Unique {
        let path = if self.path.is_empty() || step.starts_with('[') {
            format!("{}{step}", self.path)
        } else {
            format!("{}.{step}", self.path)
        };
        Unique { path }
    }
}

impl<'de> de::DeserializeSeed<'de> for Unique {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> std::result::Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let mut i = 0usize;
        while seq
            .next_element_seed(self.below(&format!("[{i}]")))?
            .is_some()
        {
            i += 1;
        }
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                let shown: String = key.chars().take(40).collect();
                let place = if self.path.is_empty() {
                    "the top-level object".to_string()
                } else {
                    format!("`{}`", self.path)
                };
                return Err(de::Error::custom(format!(
                    "duplicate key `{shown}` in {place} (a key may appear once per object)"
                )));
            }
            map.next_value_seed(self.below(&key))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_named_with_their_place() {
        let text = "{\"mechanism\": [{\"type\": \"gaussian\",\n \"sigma\": 1, \"sigma\": 0.001}]}";
        let e = json_value(text).unwrap_err().to_string();
        assert!(e.contains("duplicate key `sigma` in `mechanism[0]`"), "{e}");
        assert!(e.contains("line 2"), "{e}");
        // the same key in two objects, and numbers of any length, are fine
        let v = json_value("[{\"a\": 1}, {\"a\": 1.00000000000000000000000001}]").unwrap();
        assert_eq!(v[1]["a"].to_string(), "1.00000000000000000000000001");
    }

    #[test]
    fn bom_and_crlf() {
        assert_eq!(clean("\u{feff}a = 1\r\nb = 2\r\n"), "a = 1\nb = 2\n");
        assert!(matches!(clean("a\n"), Cow::Borrowed(_)));
    }
}
