//! √, exp, ln, ln1p, expm1 and pow: ours against the tightest enclosure of the exact range
//! (MPFR at 256 bits, rounded in each endpoint's direction) and, where inari has the
//! operation, against inari.
use dpcert::num::interval_for_conformance::{F64Interval, Interval};
use dpcert::num::Real;
use dpcert::rug::float::Round;
use dpcert::rug::ops::PowAssignRound;
use dpcert::rug::Float;
use dpcert_conformance::*;

type MpfrFn = fn(&mut Float, Round) -> std::cmp::Ordering;

/// The tightest enclosure of { f(x) : x ∈ X ∩ (edge, ∞) } for an increasing f whose limit at
/// `edge` is `at_edge` (−∞ for ln at 0 and ln1p at −1; `edge` = −∞ for functions on the line).
fn increasing(x: Interval, f: MpfrFn, edge: f64, at_edge: f64) -> Ends {
    let (a, b) = ends(x)?;
    if b <= edge {
        return None;
    }
    let lo = if a <= edge {
        at_edge
    } else {
        mpfr_end(a, false, f)
    };
    Some((lo, mpfr_end(b, true, f)))
}

/// A draw for exp-like functions: mostly where the result is a normal number, sometimes
/// anywhere.
fn exp_arg(rng: &mut Rng) -> f64 {
    match rng.below(4) {
        0 => number(rng),
        1 => (rng.unit() - 0.5) * 1500.0,
        _ => (rng.unit() - 0.5) * 2f64.powi(rng.below(12) as i32 - 4),
    }
}

/// A draw for logarithms: positive numbers of every magnitude, near 1, and sometimes ≤ 0.
fn log_arg(rng: &mut Rng) -> f64 {
    match rng.below(6) {
        0 => number(rng),
        1 => 1.0 + (rng.unit() - 0.5) * 2f64.powi(-(rng.below(50) as i32)),
        _ => number(rng).abs(),
    }
}

/// A draw for ln1p: around 0 at every scale, near −1, large, and sometimes ≤ −1.
fn ln1p_arg(rng: &mut Rng) -> f64 {
    match rng.below(6) {
        0 => number(rng),
        1 => -1.0 + rng.unit() * 2f64.powi(-(rng.below(60) as i32)),
        2 => number(rng).abs(),
        _ => (rng.unit() * 2.0 - 1.0) * 2f64.powi(-(rng.below(70) as i32)),
    }
}

/// `CASES` random intervals from `arg` plus intervals between edge values and ±∞.
fn inputs(seed: u64, arg: fn(&mut Rng) -> f64) -> Vec<Interval> {
    let mut rng = Rng::new(seed);
    let mut xs: Vec<Interval> = (0..CASES)
        .map(|_| interval_from(&mut rng, &mut |r| arg(r)))
        .collect();
    let mut v = EDGES.to_vec();
    v.extend([f64::INFINITY, f64::NEG_INFINITY]);
    for a in &v {
        for b in &v {
            if let Ok(x) = Interval::try_from((*a, *b)) {
                xs.push(x);
            }
        }
    }
    xs.push(Interval::EMPTY);
    xs
}

fn unary(
    op: &'static str,
    xs: &[Interval],
    ours: fn(Interval) -> Interval,
    inari: Option<fn(inari::Interval) -> inari::Interval>,
    exact: &dyn Fn(Interval) -> Ends,
) {
    let mut t = Tally::new(op);
    for &x in xs {
        let input = || format!("{:?}", ends(x));
        t.record(
            &input,
            ends(ours(x)),
            exact(x),
            inari.map(|g| inari_ends(g(theirs(x)))),
        );
    }
    t.finish();
}

#[test]
fn sqrt() {
    let xs = inputs(11, number);
    let exact = |x: Interval| {
        let (a, b) = ends(x)?;
        (b >= 0.0).then(|| {
            (
                mpfr_end(a.max(0.0), false, Float::sqrt_round),
                mpfr_end(b, true, Float::sqrt_round),
            )
        })
    };
    unary(
        "sqrt",
        &xs,
        Interval::sqrt,
        Some(inari::Interval::sqrt),
        &exact,
    );
}

#[test]
fn exp() {
    let xs = inputs(12, exp_arg);
    let exact = |x| increasing(x, Float::exp_round, f64::NEG_INFINITY, 0.0);
    unary(
        "exp",
        &xs,
        Interval::exp,
        Some(inari::Interval::exp),
        &exact,
    );
}

#[test]
fn expm1() {
    let xs = inputs(13, exp_arg);
    let exact = |x| increasing(x, Float::exp_m1_round, f64::NEG_INFINITY, -1.0);
    unary("expm1", &xs, |x| F64Interval(x).expm1().0, None, &exact);
}

#[test]
fn ln() {
    let xs = inputs(14, log_arg);
    let exact = |x| increasing(x, Float::ln_round, 0.0, f64::NEG_INFINITY);
    unary("ln", &xs, Interval::ln, Some(inari::Interval::ln), &exact);
}

#[test]
fn ln1p() {
    let xs = inputs(15, ln1p_arg);
    let exact = |x| increasing(x, Float::ln_1p_round, -1.0, f64::NEG_INFINITY);
    unary("ln1p", &xs, Interval::ln1p, None, &exact);
}

/// x^y rounded in one direction by MPFR at 256 bits (then to `f64`).
fn pow_end(x: f64, y: f64, up: bool) -> f64 {
    let rnd = if up { Round::Up } else { Round::Down };
    let mut v = Float::with_val(REF_PREC, x);
    v.pow_assign_round(&Float::with_val(REF_PREC, y), rnd);
    v.to_f64_round(rnd)
}

/// pow (`Real::pow` = exp(y·ln x)) for X ⊂ (0, ∞) and finite Y: x^y = e^{y ln x} with y·ln x
/// bilinear in (y, ln x), so the range's ends are at corners. The documented bound grows with
/// |y·ln x| (the exp of a rounded exponent): see `POW_ULPS_PER_UNIT`.
#[test]
fn pow() {
    let mut rng = Rng::new(16);
    let mut t = Tally::new("pow");
    let mut worst_used = (0.0f64, String::new());
    for _ in 0..CASES {
        let x = interval_from(&mut rng, &mut |r| {
            let v = log_arg(r).abs();
            if v == 0.0 || !v.is_finite() {
                1.0
            } else {
                v
            }
        });
        let y = interval_from(&mut rng, &mut |r| exp_arg(r) / 8.0);
        let (Some((a, b)), Some((c, d))) = (ends(x), ends(y)) else {
            continue;
        };
        if !(a > 0.0 && b.is_finite() && c.is_finite() && d.is_finite()) {
            continue;
        }
        let corners = [(a, c), (a, d), (b, c), (b, d)];
        let lo = corners
            .iter()
            .map(|&(p, q)| pow_end(p, q, false))
            .fold(f64::INFINITY, f64::min);
        let hi = corners
            .iter()
            .map(|&(p, q)| pow_end(p, q, true))
            .fold(f64::NEG_INFINITY, f64::max);
        let ours = F64Interval(x).pow(&F64Interval(y)).0;
        let n = theirs(x).pow(theirs(y));
        let input = || format!("{:?}^{:?}", ends(x), ends(y));
        let allowed = pow_allowed(ends(x), ends(y));
        if let Some((l, h)) = ends(ours) {
            let used = excess_below(l, lo).max(excess_above(h, hi)) as f64 / allowed as f64;
            if used > worst_used.0 {
                worst_used = (used, input());
            }
        }
        t.record_within(
            allowed,
            &input,
            ends(ours),
            Some((lo, hi)),
            Some(inari_ends(n)),
        );
    }
    eprintln!(
        "pow: worst excess / bound = {:.2} at {}",
        worst_used.0, worst_used.1
    );
    t.finish();
}
