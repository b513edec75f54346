//! The IEEE 1788 test vectors of ITF1788 that our operations answer (`tests/data/itf1788.tsv`,
//! extracted by `scripts/itf1788_table.py`): each expected result is the tightest `f64`
//! interval, so ours must contain it and lie within the operation's documented bound of it;
//! exact operations (set operations, mag, inf, sup, emptiness) must match exactly.
use dpcert::num::interval_for_conformance::{F64Interval, Interval};
use dpcert::num::Real;
use dpcert_conformance::*;
use std::collections::BTreeMap;

const TABLE: &str = include_str!("data/itf1788.tsv");

fn parse_interval(s: &str) -> Interval {
    if s == "empty" {
        return Interval::EMPTY;
    }
    let (a, b) = s.split_once(' ').expect("'lo hi'");
    ours(a.parse().expect("lo"), b.parse().expect("hi"))
}

/// Our answer to one vector, or why it does not apply to our type.
enum Answer {
    Interval(Interval),
    Number(f64),
    Bool(bool),
    Skip(&'static str),
}

fn answer(op: &str, args: &[&str]) -> Answer {
    let x = || parse_interval(args[0]);
    let y = || parse_interval(args[1]);
    let iv = Answer::Interval;
    match op {
        "neg" => iv(-x()),
        "add" => iv(x() + y()),
        "sub" => iv(x() - y()),
        "mul" => iv(x() * y()),
        "div" => iv(x() / y()),
        "recip" => iv(ours(1.0, 1.0) / x()),
        "sqr" => iv(x().sqr()),
        "pown" if args[1] == "2" => iv(x().sqr()),
        "pown" => Answer::Skip("pown with n ≠ 2 (we have only sqr)"),
        "sqrt" => iv(x().sqrt()),
        "exp" => iv(x().exp()),
        "expm1" => iv(F64Interval(x()).expm1().0),
        "ln" => iv(x().ln()),
        "pow" if x().is_empty() || x().inf() > 0.0 => iv(F64Interval(x()).pow(&F64Interval(y())).0),
        "pow" => Answer::Skip("pow with a base reaching 0 or below (ours is for x > 0)"),
        "min" => iv(x().min(y())),
        "max" => iv(x().max(y())),
        "intersection" => iv(x().intersection(y())),
        "convex_hull" => iv(x().convex_hull(y())),
        "mag" => Answer::Number(x().mag()),
        "inf" => Answer::Number(x().inf()),
        "sup" => Answer::Number(x().sup()),
        "is_empty" => Answer::Bool(x().is_empty()),
        _ => panic!("unknown operation {op} in the table"),
    }
}

/// The bound a vector is held to: the operation's, or pow's (which depends on its inputs).
fn allowed(op: &str, args: &[&str]) -> i64 {
    match op {
        "pown" => bound("sqr"),
        "pow" => pow_allowed(ends(parse_interval(args[0])), ends(parse_interval(args[1]))),
        _ => bound(op),
    }
}

#[test]
fn itf1788_vectors() {
    let (mut ran, mut skipped) = (BTreeMap::<&str, u32>::new(), BTreeMap::<&str, u32>::new());
    let mut failures = Vec::new();
    for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let (op, args, expected) = (f[0], f[1].split(';').collect::<Vec<_>>(), f[2]);
        let ok = match answer(op, &args) {
            Answer::Skip(why) => {
                *skipped.entry(why).or_default() += 1;
                continue;
            }
            Answer::Interval(r) => {
                judge(ends(r), ends(parse_interval(expected)), allowed(op, &args)).is_ok()
            }
            Answer::Number(v) => {
                let e: f64 = expected.parse().expect("a number");
                v == e || (v.is_nan() && e.is_nan())
            }
            Answer::Bool(b) => b.to_string() == expected,
        };
        *ran.entry(op).or_default() += 1;
        if !ok {
            failures.push(format!("{line}  → ours {:?}", answer_text(op, &args)));
        }
    }
    eprintln!("ITF1788 vectors run: {ran:?}\nskipped: {skipped:?}");
    assert!(ran.values().sum::<u32>() > 1500, "the table was not read");
    assert!(
        failures.is_empty(),
        "{} vectors failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn answer_text(op: &str, args: &[&str]) -> String {
    match answer(op, args) {
        Answer::Interval(r) => format!("{:?}", ends(r)),
        Answer::Number(v) => v.to_string(),
        Answer::Bool(b) => b.to_string(),
        Answer::Skip(why) => why.to_string(),
    }
}
