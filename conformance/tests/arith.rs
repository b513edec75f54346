//! `+ − × ÷`, negation, square and reciprocal on random and edge intervals: ours against the
//! tightest enclosure of the exact range (exact rationals, independent of both interval
//! libraries) and against inari.
use dpcert::num::interval_for_conformance::Interval;
use dpcert::rug::Rational;
use dpcert_conformance::*;

/// Exact extended-real product with the hull convention 0·(±∞) = 0 (a corner at infinity is
/// the limit along the edge, and a zero factor makes the whole edge 0).
fn mul(a: &Ext, b: &Ext) -> Ext {
    let zero = Ext::Fin(Rational::new());
    if *a == zero || *b == zero {
        return zero;
    }
    match (a, b) {
        (Ext::Fin(x), Ext::Fin(y)) => Ext::Fin(Rational::from(x * y)),
        _ if (*a > zero) == (*b > zero) => Ext::PosInf,
        _ => Ext::NegInf,
    }
}

/// Exact quotient a/b for b ≠ 0 (a finite over an infinite b is 0, ∞/∞ has no corner value).
fn div(a: &Ext, b: &Ext) -> Option<Ext> {
    let zero = Ext::Fin(Rational::new());
    match (a, b) {
        (Ext::Fin(x), Ext::Fin(y)) => Some(Ext::Fin(Rational::from(x / y))),
        (Ext::Fin(_), _) => Some(zero),
        (_, Ext::Fin(_)) => Some(if (*a > zero) == (*b > zero) {
            Ext::PosInf
        } else {
            Ext::NegInf
        }),
        _ => None,
    }
}

fn add(a: &Ext, b: &Ext) -> Ext {
    match (a, b) {
        (Ext::Fin(x), Ext::Fin(y)) => Ext::Fin(Rational::from(x + y)),
        (Ext::Fin(_), inf) | (inf, _) => inf.clone(),
    }
}

fn ext_ends(x: Interval) -> Option<(Ext, Ext)> {
    ends(x).map(|(a, b)| (Ext::of(a), Ext::of(b)))
}

/// The hull of `values` (the exact range when the extremes are among them).
fn hull(values: Vec<Ext>) -> Option<(Ext, Ext)> {
    let lo = values
        .iter()
        .min_by(|a, b| a.partial_cmp(b).unwrap())?
        .clone();
    let hi = values
        .iter()
        .max_by(|a, b| a.partial_cmp(b).unwrap())?
        .clone();
    Some((lo, hi))
}

fn exact_add(x: Interval, y: Interval) -> Ends {
    let ((a, b), (c, d)) = (ext_ends(x)?, ext_ends(y)?);
    tightest(Some((add(&a, &c), add(&b, &d))))
}

fn exact_mul(x: Interval, y: Interval) -> Ends {
    let ((a, b), (c, d)) = (ext_ends(x)?, ext_ends(y)?);
    tightest(hull(vec![
        mul(&a, &c),
        mul(&a, &d),
        mul(&b, &c),
        mul(&b, &d),
    ]))
}

/// The exact range of x/y over y ∈ Y \ {0} (IEEE 1788 division).
fn exact_div(x: Interval, y: Interval) -> Ends {
    let ((a, b), (c, d)) = (ext_ends(x)?, ext_ends(y)?);
    let zero = Ext::Fin(Rational::new());
    if c == zero && d == zero {
        return None;
    }
    if a == zero && b == zero {
        return Some((0.0, 0.0));
    }
    if c < zero && d > zero {
        return Some((f64::NEG_INFINITY, f64::INFINITY));
    }
    if c == zero || d == zero {
        // y → 0 from one side: x/y is unbounded on the side of each sign x takes; the other
        // end is the quotient by the far end of y (0 when x reaches 0)
        let q = |p: &Ext, far: &Ext| div(p, far).expect("finite numerator");
        return tightest(Some(if d > zero {
            (
                if a < zero { Ext::NegInf } else { q(&a, &d) },
                if b > zero { Ext::PosInf } else { q(&b, &d) },
            )
        } else {
            (
                if b > zero { Ext::NegInf } else { q(&b, &c) },
                if a < zero { Ext::PosInf } else { q(&a, &c) },
            )
        }));
    }
    let corners = [(&a, &c), (&a, &d), (&b, &c), (&b, &d)];
    tightest(hull(
        corners.iter().filter_map(|(p, q)| div(p, q)).collect(),
    ))
}

fn exact_sqr(x: Interval) -> Ends {
    let (a, b) = ext_ends(x)?;
    let (sa, sb) = (mul(&a, &a), mul(&b, &b));
    let zero = Ext::Fin(Rational::new());
    let (small, big) = if sa <= sb { (sa, sb) } else { (sb, sa) };
    tightest(Some((
        if a <= zero && b >= zero { zero } else { small },
        big,
    )))
}

/// Run a binary operation on `CASES` random pairs plus every pair of edge intervals.
fn binary(
    op: &'static str,
    seed: u64,
    f: fn(Interval, Interval) -> Interval,
    g: fn(inari::Interval, inari::Interval) -> inari::Interval,
    exact: fn(Interval, Interval) -> Ends,
) {
    let mut t = Tally::new(op);
    let mut rng = Rng::new(seed);
    let mut pairs: Vec<(Interval, Interval)> = (0..CASES)
        .map(|_| (interval(&mut rng), interval(&mut rng)))
        .collect();
    let edges = edge_intervals();
    for x in &edges {
        for y in &edges {
            pairs.push((*x, *y));
        }
    }
    for (x, y) in pairs {
        let input = || format!("{:?} {:?}", ends(x), ends(y));
        t.record(
            &input,
            ends(f(x, y)),
            exact(x, y),
            Some(inari_ends(g(theirs(x), theirs(y)))),
        );
    }
    t.finish();
}

/// Intervals between edge values (both ends from [`EDGES`] and ±∞), and empty.
fn edge_intervals() -> Vec<Interval> {
    let mut v: Vec<f64> = EDGES.to_vec();
    v.extend([f64::INFINITY, f64::NEG_INFINITY]);
    let mut out = vec![Interval::EMPTY];
    for (i, a) in v.iter().enumerate() {
        for b in v.iter().skip(i % 3).step_by(3) {
            if let Ok(x) = Interval::try_from((a.min(*b), a.max(*b))) {
                out.push(x);
            }
        }
    }
    out
}

#[test]
fn add_sub() {
    binary("add", 1, |x, y| x + y, |x, y| x + y, exact_add);
    binary(
        "sub",
        2,
        |x, y| x - y,
        |x, y| x - y,
        |x, y| exact_add(x, -y),
    );
}

#[test]
fn mul_() {
    binary("mul", 3, |x, y| x * y, |x, y| x * y, exact_mul);
}

#[test]
fn div_() {
    binary("div", 4, |x, y| x / y, |x, y| x / y, exact_div);
}

#[test]
fn unary() {
    let mut rng = Rng::new(5);
    let xs: Vec<Interval> = (0..CASES)
        .map(|_| interval(&mut rng))
        .chain(edge_intervals())
        .collect();
    let one = ours(1.0, 1.0);
    let (mut neg, mut sqr, mut recip) = (Tally::new("neg"), Tally::new("sqr"), Tally::new("recip"));
    for x in xs {
        let input = || format!("{:?}", ends(x));
        let n = theirs(x);
        neg.record(
            &input,
            ends(-x),
            ext_ends(x).map(|(a, b)| (b.neg().round(false), a.neg().round(true))),
            Some(inari_ends(-n)),
        );
        sqr.record(
            &input,
            ends(x.sqr()),
            exact_sqr(x),
            Some(inari_ends(n.sqr())),
        );
        recip.record(
            &input,
            ends(one / x),
            exact_div(one, x),
            Some(inari_ends(n.recip())),
        );
    }
    neg.finish();
    sqr.finish();
    recip.finish();
}
