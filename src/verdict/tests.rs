//! The one [`Verdict`]: its words at the two printing sites map one-to-one, and `audit` and
//! `check` classify the same certified knowledge (lower, upper, claim) the same way.
//!
//! References are independent of [`Verdict::read_off`]: hand-made triples of exact dyadic
//! rationals whose answers are written down (holds iff claim ≥ upper, fails iff claim <
//! lower), and for the live cross-check the Gaussian's exact δ from the closed form
//! Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) evaluated in MPFR at 256 bits here.
use super::Verdict;
use crate::audit::claim::{check_claim, check_claim_by_epsilon};
use crate::audit::route::RouteId;
use crate::audit::{audit, exit_code, verdict_word as audit_word, Deployment};
use crate::event::Event;
use crate::num::{Arithmetic, Certified, Enclosure, Precision, UpperBound};
use crate::reference::check::{
    verdict_word as check_word, Bracket, Claimed, Invalid, Kind, Quantity,
};
use crate::reference::judge::{judge, Summary};
use crate::reference::query::{GaussianShape, Query};
use rug::{Float, Integer, Rational};
use std::collections::BTreeSet;

const ALL: [Verdict; 3] = [Verdict::Holds, Verdict::Fails, Verdict::Undecided];

fn q(s: &str) -> Rational {
    crate::num::parse_exact(s).unwrap()
}

#[test]
fn the_printed_words_map_one_to_one() {
    // audit: verified / refuted / undecided, and no-claim around it
    let audit: Vec<&str> = ALL.iter().map(|v| audit_word(Some(*v))).collect();
    assert_eq!(audit, ["verified", "refuted", "undecided"]);
    assert_eq!(audit_word(None), "no-claim");
    // check: sound / unsound / undecided, and invalid around it
    let check: Vec<&str> = ALL.iter().map(|v| check_word(Ok(*v))).collect();
    assert_eq!(check, ["sound", "unsound", "undecided"]);
    assert_eq!(check_word(Err(Invalid)), "invalid");
    // four distinct words on each face: a word names exactly one outcome
    let distinct = |w: Vec<&str>| w.into_iter().collect::<BTreeSet<_>>().len();
    assert_eq!(
        distinct([audit.clone(), vec![audit_word(None)]].concat()),
        4
    );
    assert_eq!(
        distinct([check.clone(), vec![check_word(Err(Invalid))]].concat()),
        4
    );
    // the exit codes: a verdict exits alike on both faces; no claim is 0, an invalid record 1
    for (v, code) in ALL.iter().zip([0, 1, 4]) {
        assert_eq!(v.exit_code(), code);
        assert_eq!(exit_code(Some(*v)), code);
        let one = match v {
            Verdict::Holds => Summary {
                sound: 1,
                ..Summary::default()
            },
            Verdict::Fails => Summary {
                unsound: 1,
                ..Summary::default()
            },
            Verdict::Undecided => Summary {
                undecided: 1,
                ..Summary::default()
            },
        };
        assert_eq!(one.exit_code(), code, "{v:?}");
    }
    assert_eq!(exit_code(None), crate::exit::OK);
    let invalid = Summary {
        invalid: 1,
        ..Summary::default()
    };
    assert_eq!(invalid.exit_code(), crate::exit::REFUTED);
}

/// (lower, upper, claim) of the smallest valid value t*, exact dyadic rationals (`None`: that
/// end unknown), with the answer by hand: holds iff claim ≥ upper, fails iff claim < lower.
fn triples() -> Vec<(Option<Rational>, Option<Rational>, Rational, Verdict)> {
    use Verdict::*;
    let (l, u) = (Some(q("1/4")), Some(q("3/8")));
    vec![
        (l.clone(), u.clone(), q("1/2"), Holds),
        (l.clone(), u.clone(), q("3/8"), Holds), // at the upper end: t* ≤ claim
        (l.clone(), u.clone(), q("1/3"), Undecided),
        (l.clone(), u.clone(), q("1/4"), Undecided), // at the lower end: t* may equal it
        (l.clone(), u.clone(), q("1/5"), Fails),
        (None, u.clone(), q("1/5"), Undecided), // an upper bound alone never refutes
        (None, u.clone(), q("2/5"), Holds),
        (l.clone(), None, q("1/5"), Fails),
        (l, None, q("1/2"), Undecided),
        (None, None, q("1/5"), Undecided),
    ]
}

/// A route's certified value with the triple's ends: two-sided when the lower end is known
/// (an unknown upper end is +∞), else an upper bound whose formula's lower end (5/16, above
/// the claim 1/5) is no lower bound of t* and must not refute.
fn certified(l: &Option<Rational>, u: &Option<Rational>) -> Option<Certified> {
    let end = |x: &Rational| Float::with_val(64, x);
    let hi = u.as_ref().map_or(Float::with_val(64, f64::INFINITY), end);
    let a = Arithmetic::Mpfr(64);
    match (l, u) {
        (Some(l), _) => Some(Certified::TwoSided(Enclosure::new(end(l), hi, a).unwrap())),
        (None, Some(_)) => {
            let formula = Enclosure::new(Float::with_val(64, 0.3125), hi, a).unwrap();
            Some(Certified::UpperBound(UpperBound::new(formula)))
        }
        (None, None) => None,
    }
}

/// `audit`'s claim (ε_c = 1, δ_c = claim) from routes whose δ(ε_c) is the triple, and its
/// claim decided from ε at δ_c (ε_c = claim) by one route whose ε(δ_c) is the triple.
fn audit_verdicts(l: &Option<Rational>, u: &Option<Rational>, c: &Rational) -> [Verdict; 3] {
    let one = Rational::from(1);
    let route = certified(l, u);
    let at_claim = [(RouteId::Pld, route.clone())];
    let best = route.clone().map(|a| (0, a));
    let alone = check_claim(&at_claim, best, &one, c).verdict;
    // the same knowledge from two routes: the exact one's lower end, another's upper end
    let split = match (l, u) {
        (Some(_), Some(_)) => {
            let exact = certified(l, &None);
            let upper = certified(&None, u);
            let at_claim = [(RouteId::Pld, exact), (RouteId::Zcdp, upper.clone())];
            check_claim(&at_claim, upper.map(|a| (1, a)), &one, c).verdict
        }
        _ => alone,
    };
    let by_epsilon = check_claim_by_epsilon(route, RouteId::Substitution, c, &one).verdict;
    [alone, split, by_epsilon]
}

/// `check`'s bracket of t* (an ε: the domain's lower end 0 is below every claim here) met with
/// the triple's ends exactly, and as a certified float enclosure.
fn check_verdicts(l: &Option<Rational>, u: &Option<Rational>, c: &Rational) -> [Verdict; 2] {
    let read = |b: &Bracket| b.decide(c).unwrap_or(Verdict::Undecided);
    let mut exact = Bracket::new(Quantity::Epsilon, Kind::TwoSided);
    let mut floats = exact.clone();
    if let Some(l) = l {
        exact.meet_lower_exact(l);
        floats.meet_lower_float(&Float::with_val(64, l));
    }
    if let Some(u) = u {
        exact.meet_upper_exact(u);
        floats.meet_upper_float(&Float::with_val(64, u));
    }
    [read(&exact), read(&floats)]
}

#[test]
fn audit_and_check_classify_the_same_triple_alike() {
    for (l, u, c, want) in triples() {
        let shown = format!("lower {l:?}, upper {u:?}, claim {c}");
        let ends = (l.as_ref(), u.as_ref());
        assert_eq!(Verdict::read_off(ends.0, ends.1, &c), want, "{shown}");
        for got in audit_verdicts(&l, &u, &c) {
            assert_eq!(got, want, "audit: {shown}");
        }
        for got in check_verdicts(&l, &u, &c) {
            assert_eq!(got, want, "check: {shown}");
        }
        // and the bracket `check` shows agrees with the verdict
        let mut b = Bracket::new(Quantity::Epsilon, Kind::TwoSided);
        l.iter().for_each(|l| b.meet_lower_exact(l));
        u.iter().for_each(|u| b.meet_upper_exact(u));
        assert!(b.agrees(want, &c), "{shown}");
    }
}

/// Φ(x) = erfc(−x/√2)/2 at 256 bits.
fn phi(x: Float) -> Float {
    let s = Float::with_val(256, 2).sqrt();
    (-x / s).erfc() / 2u32
}

/// The same question asked both ways: a Gaussian (σ = 1) deployment claiming (1, δ_c)-DP, and
/// another library's value δ_c for `gaussian delta --sigma 1 --epsilon 1`, a relative 1e-9
/// above and below the exact δ(1) (closed form at 256 bits): verified ⇔ sound, refuted ⇔
/// unsound.
#[test]
fn a_claim_and_a_printed_value_of_the_same_delta_get_the_same_verdict() {
    let half = Float::with_val(256, 0.5);
    let exact = phi(half.clone() - 1u32) - phi(-half - 1u32) * Float::with_val(256, 1).exp();
    let exact = exact.to_rational().unwrap();
    let query = Query::GaussianDelta {
        shape: GaussianShape {
            sigma: q("1"),
            sensitivity: q("1"),
            compositions: Integer::from(1),
        },
        epsilon: q("1"),
    };
    for (factor, want) in [
        ("1000000001/1000000000", Verdict::Holds),
        ("999999999/1000000000", Verdict::Fails),
    ] {
        let c = exact.clone() * q(factor);
        let d = Deployment::new(Event::gaussian("1").unwrap())
            .with_claim("1", c.clone())
            .unwrap();
        let a = audit(&d).unwrap().verdict();
        let j = judge(&query, Precision::Auto, &Claimed::Finite(c)).unwrap();
        assert_eq!(a, Some(want));
        assert_eq!(j.verdict, want);
    }
}
