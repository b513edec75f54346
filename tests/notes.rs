//! Proof notes stay in step with the code they argue about.
//!
//! - Every public theorem function (and `ZcdpLedger`, and the `normal_cdf` kernel) has
//!   `proofs-notes/<name>.md`, and every note has its item.
//! - Each note carries a fingerprint block listing the items it relies on — its function, the
//!   same-module helpers that function reaches, and any kernels elsewhere the note cites — each
//!   with a hash of that item's normalised source (doc comment included):
//!   ```text
//!   <!-- fingerprint
//!   src/theorems/gaussian.rs fn gaussian_delta 153403fac1a1b294
//!   src/theorems/pld.rs fn gaussian_tails 0123456789abcdef
//!   -->
//!   ```
//!   A change to any listed item fails this test, naming the note and the item. A same-module
//!   helper the function reaches but the note does not list fails it too.
//! - Re-blessing is note by note, after re-reading the note:
//!   `DPCERT_BLESS_NOTES=gaussian_delta,zcdp_delta cargo test --test notes` refreshes those
//!   notes' hashes and adds missing same-module helpers to their lists.
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One item of a source file: kind (`fn`, `struct`, `impl`, …), name, byte span (doc comment
/// and attributes included), and whether it is top level or an `impl`/`trait` member.
#[derive(Debug, Clone)]
struct Item {
    kind: String,
    name: String,
    span: (usize, usize),
}

/// Blank out comments, string and char literals (same length, newlines kept), so that brace
/// matching and identifier search see only code.
fn code_only(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in out.iter_mut().take(to).skip(from) {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let end = src[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let start = i + 2 + hashes;
            let end = src[start..]
                .find(&close)
                .map_or(b.len(), |p| start + p + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // char literal ('x', '\n', '\u{..}') or lifetime ('a)
            let lit_end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p + 1)
            } else {
                let ch = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch) == Some(&b'\'')).then_some(i + 1 + ch + 1)
            };
            match lit_end {
                Some(e) => {
                    blank(&mut out, i, e);
                    i = e;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Items at depth 0, and members of `impl`/`trait` blocks at depth 1.
fn items(src: &str) -> Vec<Item> {
    let code = code_only(src);
    let mut out = Vec::new();
    let mut depth = 0usize;
    // for each open brace: was it an impl/trait block at depth 0?
    let mut stack: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < code.len() {
        match code[i] {
            b'{' => {
                stack.push(false);
                depth += 1;
            }
            b'}' => {
                stack.pop();
                depth = depth.saturating_sub(1);
            }
            c if is_ident(c) && (i == 0 || !is_ident(code[i - 1])) => {
                let end = i + code[i..].iter().take_while(|&&c| is_ident(c)).count();
                let word = &src[i..end];
                let member = depth == 1 && stack.last() == Some(&true);
                if ["fn", "struct", "enum", "impl", "trait", "const"].contains(&word)
                    && (depth == 0 || member)
                {
                    if let Some(item) = item_at(src, &code, i, word) {
                        let block = word == "impl" || word == "trait";
                        if block {
                            // its members are scanned by the main loop: stop at its `{`
                            let open = i + code[i..].iter().position(|&c| c == b'{').unwrap_or(0);
                            out.push(item);
                            stack.push(true);
                            depth += 1;
                            i = open + 1;
                            continue;
                        }
                        i = item.span.1;
                        out.push(item);
                        continue;
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The item whose keyword starts at `at`: its name and span (from its doc comment/attributes to
/// its closing brace or semicolon).
fn item_at(src: &str, code: &[u8], at: usize, kw: &str) -> Option<Item> {
    let after = at + kw.len();
    let rest = &src[after..];
    let name: String = if kw == "impl" {
        // `impl<..> Trait for Type` or `impl Type`: the name is the text up to `{`, normalised
        let upto = rest.find('{')?;
        rest[..upto]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("_")
    } else {
        let t = rest.trim_start();
        t.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    if name.is_empty() || (kw == "const" && name == "fn") {
        return None;
    }
    // end: matching brace of the first `{` at paren depth 0, or a `;` before any `{`
    let mut paren = 0i32;
    let mut j = after;
    let mut end = None;
    while j < code.len() {
        match code[j] {
            b'(' | b'[' => paren += 1,
            b')' | b']' => paren -= 1,
            b';' if paren == 0 => {
                end = Some(j + 1);
                break;
            }
            b'{' if paren == 0 => {
                let mut d = 0i32;
                let mut k = j;
                while k < code.len() {
                    match code[k] {
                        b'{' => d += 1,
                        b'}' => {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    k += 1;
                }
                end = Some(k + 1);
                break;
            }
            _ => {}
        }
        j += 1;
    }
    let end = end?;
    // start: beginning of the line, extended upwards over doc comments and attributes
    let mut start = src[..at].rfind('\n').map_or(0, |p| p + 1);
    loop {
        let prev_end = start.saturating_sub(1);
        if start == 0 {
            break;
        }
        let prev_start = src[..prev_end].rfind('\n').map_or(0, |p| p + 1);
        let line = src[prev_start..prev_end].trim_start();
        if line.starts_with("///") || line.starts_with("#[") {
            start = prev_start;
        } else {
            break;
        }
    }
    Some(Item {
        kind: kw.to_string(),
        name,
        span: (start, end.min(src.len())),
    })
}

fn fnv1a(s: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes().filter(|b| !b.is_ascii_whitespace()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every source file of the crate, by path relative to the repository root.
fn sources() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    rs_files(Path::new("src"), &mut files);
    files
        .into_iter()
        .map(|p| {
            let key = p.to_string_lossy().replace('\\', "/");
            let text = fs::read_to_string(&p).unwrap();
            (key, text)
        })
        .collect()
}

/// Hash of all items `kind name` of a file (several when a name repeats, e.g. in two impls).
fn item_hash(src: &str, kind: &str, name: &str) -> Option<String> {
    let parts: Vec<&str> = items(src)
        .into_iter()
        .filter(|it| it.kind == kind && it.name == name)
        .map(|it| &src[it.span.0..it.span.1])
        .collect();
    (!parts.is_empty()).then(|| fnv1a(&parts.concat()))
}

/// Does `code` use the function `name`: a call `name(` / `name::<` (a method call `.name(` too
/// when `methods`), or the function passed by path (`::name` followed by `)` or `,`, as in
/// `.map(super::pld::probability)`) or by name (`map(name)`)?
fn uses(code: &str, name: &str, methods: bool) -> bool {
    uses_in(code, name, methods, None)
}

/// [`uses`], where a path `Type::name` counts only if `Type` is one of `types` (the types the
/// defining file declares), so that `UpperBound::new(` is not a use of another type's `new`.
fn uses_in(code: &str, name: &str, methods: bool, types: Option<&BTreeSet<String>>) -> bool {
    uses_from(code, name, methods, types, None)
}

/// [`uses_in`], where a path `module::name` counts only if `module` is `module_name` (the
/// defining file's stem), or `super`/`crate`/`self`.
fn uses_from(
    code: &str,
    name: &str,
    methods: bool,
    types: Option<&BTreeSet<String>>,
    module_name: Option<&str>,
) -> bool {
    let b = code.as_bytes();
    let at = |pat: &str, ok: &dyn Fn(usize, usize) -> bool| {
        code.match_indices(pat).any(|(p, m)| ok(p, p + m.len()))
    };
    let type_ok = |p: usize| {
        let Some(head) = code[..p].strip_suffix("::") else {
            return true;
        };
        let seg: String = head
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let capital = seg.chars().next().is_some_and(char::is_uppercase);
        if capital {
            seg == "Self" || types.is_none_or(|t| t.contains(&seg))
        } else {
            ["super", "crate", "self"].contains(&seg.as_str())
                || module_name.is_none_or(|m| m == seg)
        }
    };
    // not a definition `fn name(`
    let before_ok = |p: usize| {
        (p == 0 || !is_ident(b[p - 1]) && (methods || b[p - 1] != b'.'))
            && type_ok(p)
            && !code[..p].trim_end().ends_with("fn")
    };
    let call = |p: usize, _| before_ok(p);
    let value = |p: usize, e: usize| {
        let after = b.get(e).copied();
        let tail_ok = matches!(after, Some(b')') | Some(b','));
        let head_ok = (code[..p].ends_with("::") && type_ok(p)) || code[..p].ends_with("map(");
        tail_ok && head_ok
    };
    at(&format!("{name}("), &call) || at(&format!("{name}::<"), &call) || at(name, &value)
}

/// Same-file functions reached from `name` (transitively), by call `name(`, `name::<`, `.name(`.
fn same_file_callees(src: &str, name: &str) -> BTreeSet<String> {
    let all = items(src);
    let fns: BTreeSet<&str> = all
        .iter()
        .filter(|i| i.kind == "fn")
        .map(|i| i.name.as_str())
        .collect();
    let code = code_only(src);
    let types: BTreeSet<String> = all
        .iter()
        .filter(|i| ["struct", "enum", "trait"].contains(&i.kind.as_str()))
        .map(|i| i.name.clone())
        .collect();
    let body_of = |n: &str| -> Vec<(usize, usize)> {
        all.iter()
            .filter(|i| i.kind == "fn" && i.name == n)
            .map(|i| i.span)
            .collect()
    };
    let mut seen = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(f) = todo.pop() {
        for (a, b) in body_of(&f) {
            let text = String::from_utf8_lossy(&code[a..b]).to_string();
            for g in &fns {
                if *g == f || *g == name || seen.contains(*g) {
                    continue;
                }
                let called = uses_in(&text, g, true, Some(&types));
                // skip the definition line of a nested helper with the same name
                if called
                    && !text.contains(&format!("fn {g}("))
                    && !text.contains(&format!("fn {g}<"))
                {
                    seen.insert(g.to_string());
                    todo.push(g.to_string());
                }
            }
        }
    }
    seen
}

/// Kernels in other files (certified driver, searches, other theorem modules) that the bodies
/// of `names` in `file` call, with what each reaches in its own file: added when a note is
/// blessed, not required.
fn cross_file_callees(
    srcs: &BTreeMap<String, String>,
    file: &str,
    names: &BTreeSet<String>,
) -> Vec<(String, String)> {
    let src = &srcs[file];
    let code = code_only(src);
    let bodies: String = items(src)
        .iter()
        .filter(|i| i.kind == "fn" && names.contains(&i.name))
        .map(|i| String::from_utf8_lossy(&code[i.span.0..i.span.1]).to_string())
        .collect();
    let mut out = Vec::new();
    for (path, other) in srcs {
        let kernel_file = path == "src/num/mod.rs"
            || path == "src/search.rs"
            || (path.starts_with("src/theorems/") && !path.ends_with("mod.rs"));
        if path == file || !kernel_file {
            continue;
        }
        let mut seen = BTreeSet::new();
        let other_items = items(other);
        let other_types: BTreeSet<String> = other_items
            .iter()
            .filter(|i| ["struct", "enum", "trait"].contains(&i.kind.as_str()))
            .map(|i| i.name.clone())
            .collect();
        for it in other_items.into_iter().filter(|i| i.kind == "fn") {
            let stem = Path::new(path)
                .file_stem()
                .map(|x| x.to_string_lossy().to_string());
            let stem = if stem.as_deref() == Some("mod") {
                Path::new(path)
                    .parent()
                    .and_then(|d| d.file_name())
                    .map(|x| x.to_string_lossy().to_string())
            } else {
                stem
            };
            if uses_from(
                &bodies,
                &it.name,
                false,
                Some(&other_types),
                stem.as_deref(),
            ) && seen.insert(it.name.clone())
            {
                out.push((path.clone(), it.name.clone()));
                // and what that kernel reaches in its own file
                for g in same_file_callees(other, &it.name) {
                    if seen.insert(g.clone()) {
                        out.push((path.clone(), g));
                    }
                }
            }
        }
    }
    out
}

/// Public theorem items needing a note: name → (file, kind). They live in `src/theorems/`, and
/// in `src/event/` the reductions that turn a dp_accounting event into the events the audit
/// certifies (each a theorem that returns an `Event`).
fn theorem_items(srcs: &BTreeMap<String, String>) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    let theorem_file = |p: &str| p.starts_with("src/theorems/") || p.starts_with("src/event/");
    for (path, src) in srcs.iter().filter(|(p, _)| theorem_file(p)) {
        for it in items(src) {
            let line_start = src[..it.span.1].get(it.span.0..).unwrap_or("");
            let head = line_start
                .lines()
                .find(|l| !l.trim_start().starts_with("///") && !l.trim_start().starts_with("#["))
                .unwrap_or("");
            if it.kind == "fn" && head.starts_with("pub fn ") {
                out.insert(it.name.clone(), (path.clone(), "fn".to_string()));
            }
        }
    }
    out.insert(
        "ZcdpLedger".into(),
        ("src/theorems/zcdp.rs".into(), "struct".into()),
    );
    out.insert("normal_cdf".into(), ("src/num/fast.rs".into(), "fn".into()));
    out
}

const OPEN: &str = "<!-- fingerprint";

/// The note's fingerprint lines: (file, kind, name, hash).
fn fingerprint(note: &str) -> Option<Vec<(String, String, String, String)>> {
    let i = note.find(OPEN)?;
    let rest = &note[i + OPEN.len()..];
    let block = &rest[..rest.find("-->")?];
    Some(
        block
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                assert!(w.len() == 4, "malformed fingerprint line `{l}`");
                (w[0].into(), w[1].into(), w[2].into(), w[3].into())
            })
            .collect(),
    )
}

fn write_fingerprint(note: &str, lines: &[(String, String, String, String)]) -> String {
    let block: String = lines
        .iter()
        .map(|(f, k, n, h)| format!("{f} {k} {n} {h}\n"))
        .collect();
    let new = format!("{OPEN}\n{block}-->");
    if let Some(i) = note.find(OPEN) {
        let j = i + note[i..].find("-->").unwrap() + 3;
        format!("{}{}{}", &note[..i], new, &note[j..])
    } else if let Some(i) = note.find("<!-- source-hash:") {
        let j = i + note[i..].find("-->").unwrap() + 3;
        format!("{}{}{}", &note[..i], new, &note[j..])
    } else {
        let nl = note.find('\n').map_or(note.len(), |p| p + 1);
        format!("{}{}\n{}", &note[..nl], new, &note[nl..])
    }
}

#[test]
fn every_theorem_has_a_note_and_every_note_is_current() {
    let srcs = sources();
    let theorems = theorem_items(&srcs);
    assert!(
        theorems.len() >= 30,
        "scanner found only {} items",
        theorems.len()
    );
    let bless: BTreeSet<String> = std::env::var("DPCERT_BLESS_NOTES")
        .unwrap_or_default()
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let mut problems = Vec::new();
    let mut notes = BTreeSet::new();
    for e in fs::read_dir("proofs-notes").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            notes.insert(p.file_stem().unwrap().to_string_lossy().to_string());
        }
    }
    for n in &notes {
        if !theorems.contains_key(n) {
            problems.push(format!(
                "proofs-notes/{n}.md has no public theorem item `{n}`"
            ));
        }
    }
    for (name, (file, kind)) in &theorems {
        let path = format!("proofs-notes/{name}.md");
        let Ok(note) = fs::read_to_string(&path) else {
            problems.push(format!("`{name}` ({file}) has no note {path}"));
            continue;
        };
        let mut lines = fingerprint(&note).unwrap_or_default();
        if !lines
            .iter()
            .any(|(f, k, n, _)| f == file && k == kind && n == name)
        {
            lines.insert(0, (file.clone(), kind.clone(), name.clone(), String::new()));
        }
        // same-module helpers the function reaches must be listed
        let src = &srcs[file];
        let mut missing = Vec::new();
        let reach = if kind == "fn" {
            same_file_callees(src, name)
        } else {
            // a type: its impl blocks' helpers
            BTreeSet::new()
        };
        for g in reach {
            if !lines
                .iter()
                .any(|(f, k, n, _)| f == file && k == "fn" && *n == g)
            {
                missing.push(g.clone());
                if bless.contains(name) {
                    lines.push((file.clone(), "fn".into(), g, String::new()));
                }
            }
        }
        if bless.contains(name) && kind == "fn" {
            let mut closure = same_file_callees(src, name);
            closure.insert(name.clone());
            for (f, g) in cross_file_callees(&srcs, file, &closure) {
                if !lines
                    .iter()
                    .any(|(lf, k, n, _)| *lf == f && k == "fn" && *n == g)
                {
                    lines.push((f, "fn".into(), g, String::new()));
                }
            }
        }
        if kind == "struct"
            && !lines
                .iter()
                .any(|(f, k, n, _)| f == file && k == "impl" && n == name)
        {
            lines.push((file.clone(), "impl".into(), name.clone(), String::new()));
        }
        let mut changed = Vec::new();
        for l in lines.iter_mut() {
            let Some(text) = srcs.get(&l.0) else {
                problems.push(format!("{path}: listed file {} does not exist", l.0));
                continue;
            };
            match item_hash(text, &l.1, &l.2) {
                None => problems.push(format!(
                    "{path}: listed item `{} {}` not found in {}",
                    l.1, l.2, l.0
                )),
                Some(h) if h != l.3 => {
                    changed.push(format!("{} {}", l.1, l.2));
                    if bless.contains(name) {
                        l.3 = h;
                    }
                }
                Some(_) => {}
            }
        }
        if bless.contains(name) {
            let new = write_fingerprint(&note, &lines);
            if new != note {
                fs::write(&path, new).unwrap();
            }
        } else {
            if !missing.is_empty() {
                problems.push(format!(
                    "{path}: `{name}` reaches same-module helpers the note does not list: {}",
                    missing.join(", ")
                ));
            }
            if !changed.is_empty() {
                problems.push(format!(
                    "{path}: changed since the note was read: {} — re-read the note, then `DPCERT_BLESS_NOTES={name} cargo test --test notes`",
                    changed.join(", ")
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The scanner itself: spans, members, nested helpers, strings with braces.
#[test]
fn scanner_finds_items_and_their_spans() {
    let src = "/// doc\npub fn a(x: u32) -> u32 {\n    fn inner() {}\n    let s = \"}{\";\n    let c = '}';\n    x\n}\n\nstruct S;\nimpl S {\n    fn m(&self) -> &'static str { \"{\" }\n}\nfn b() { a(1); }\n";
    let it = items(src);
    let names: Vec<(String, String)> = it
        .iter()
        .map(|i| (i.kind.clone(), i.name.clone()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("fn".into(), "a".into()),
            ("struct".into(), "S".into()),
            ("impl".into(), "S".into()),
            ("fn".into(), "m".into()),
            ("fn".into(), "b".into())
        ]
    );
    let a = &it[0];
    assert!(src[a.span.0..a.span.1].starts_with("/// doc\npub fn a"));
    assert!(src[a.span.0..a.span.1].ends_with("    x\n}"));
    assert_eq!(
        same_file_callees(src, "b"),
        BTreeSet::from(["a".to_string()])
    );
    assert!(uses("x.map(super::m::clamp)", "clamp", false));
    assert!(uses("x.map(clamp);", "clamp", false) && !uses("let clamped = 1;", "clamp", false));
    assert!(!uses("v.clamp(1)", "clamp", false) && uses("v.clamp(1)", "clamp", true));
    let mine = BTreeSet::from(["Ledger".to_string()]);
    assert!(uses_in("Ledger::new()", "new", false, Some(&mine)));
    assert!(!uses_in(
        "x.map(UpperBound::new)",
        "new",
        false,
        Some(&mine)
    ));
    assert!(!uses_in("UpperBound::new(e)", "new", false, Some(&mine)));
    assert!(!uses("fn delta(&self) {}", "delta", false));
    assert!(uses_from(
        "crate::search::point(1.0)",
        "point",
        false,
        None,
        Some("search")
    ));
    assert!(!uses_from(
        "crate::search::point(1.0)",
        "point",
        false,
        None,
        Some("pld_accountant")
    ));
    assert!(same_file_callees(src, "a").is_empty());
    // a change inside `a` changes its hash, not `b`'s
    let changed = src.replace("    x\n}", "    x + 1\n}");
    assert_ne!(item_hash(src, "fn", "a"), item_hash(&changed, "fn", "a"));
    assert_eq!(item_hash(src, "fn", "b"), item_hash(&changed, "fn", "b"));
}
