//! Every public theorem function has `proofs-notes/<name>.md`, every note has its function,
//! and each note records a hash of its function's normalised source: changing a function
//! fails this test until its note is re-read and the hash refreshed with
//! `DPCERT_BLESS_NOTES=1 cargo test --test notes`.
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// Top-level items of `src` starting at a line with `start`, up to the closing `}` in column 0.
fn item_source(src: &str, start: &str) -> Option<String> {
    let i = src.find(start)?;
    let rest = &src[i..];
    let end = rest.find("\n}\n")? + 3;
    Some(rest[..end].to_string())
}

fn fnv1a(s: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes().filter(|b| !b.is_ascii_whitespace()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

/// name → normalised-source hash, for every public theorem item.
fn theorem_items() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir("src/theorems").unwrap() {
        let path = entry.unwrap().path();
        let src = fs::read_to_string(&path).unwrap();
        for line in src.lines().filter(|l| l.starts_with("pub fn ")) {
            let name = line["pub fn ".len()..]
                .split(['(', '<'])
                .next()
                .unwrap()
                .to_string();
            // the function and the private helpers it rests on: hash the whole module, so a
            // change anywhere in it asks for a re-read of the module's notes
            let _ = item_source(&src, &format!("pub fn {name}")).unwrap();
            out.insert(name, fnv1a(&src));
        }
        if item_source(&src, "pub struct ZcdpLedger").is_some() {
            out.insert("ZcdpLedger".into(), fnv1a(&src));
        }
    }
    // numerical kernels with their own notes
    out.insert(
        "normal_cdf".into(),
        fnv1a(&fs::read_to_string("src/num/normal.rs").unwrap()),
    );
    out
}

#[test]
fn every_theorem_has_a_note_and_every_note_a_theorem() {
    let items = theorem_items();
    assert!(
        items.len() >= 25,
        "scanner found only {} items",
        items.len()
    );
    let bless = std::env::var("DPCERT_BLESS_NOTES").is_ok();
    let mut problems = vec![];
    for (name, hash) in &items {
        let p = format!("proofs-notes/{name}.md");
        let Ok(text) = fs::read_to_string(&p) else {
            problems.push(format!("missing note {p}"));
            continue;
        };
        for heading in [
            "## Statement",
            "## Preconditions",
            "## Why it is sound",
            "## Rounding table",
            "## Tightness",
            "## References",
        ] {
            if !text.contains(heading) {
                problems.push(format!("{p} lacks `{heading}`"));
            }
        }
        let want = format!("<!-- source-hash: {hash} -->");
        if !text.contains(&want) {
            if bless {
                let line = text
                    .lines()
                    .find(|l| l.starts_with("<!-- source-hash:"))
                    .map(str::to_string);
                let new = match line {
                    Some(l) => text.replacen(&l, &want, 1),
                    None => text.replacen('\n', &format!("\n{want}\n"), 1),
                };
                fs::write(&p, new).unwrap();
            } else {
                problems.push(format!(
                    "{p}: function changed since the note was last checked (expected `{want}`)"
                ));
            }
        }
    }
    for entry in fs::read_dir("proofs-notes").unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.extension().is_some_and(|e| e == "md")
            && stem != "README"
            && !items.contains_key(&stem)
        {
            problems.push(format!("note {} has no function", path.display()));
        }
    }
    assert!(Path::new("proofs-notes").is_dir());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
