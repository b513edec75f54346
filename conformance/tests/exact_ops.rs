//! Operations without rounding — hull, intersection, min, max, max(0, ·), mag, inf, sup,
//! emptiness, the three-valued order — plus the constants and the conversion of exact
//! rationals (`Real::from_rational`): each must equal the exact answer and inari's.
use dpcert::num::interval_for_conformance::{F64Interval, Interval};
use dpcert::num::{parse_exact, Real, Tri};
use dpcert_conformance::*;

fn pairs(seed: u64) -> Vec<(Interval, Interval)> {
    let mut rng = Rng::new(seed);
    (0..CASES)
        .map(|_| (interval(&mut rng), interval(&mut rng)))
        .collect()
}

/// Pointwise min/max and max(0, ·) are monotone in each argument: the exact range is the
/// operation on the lower ends and on the upper ends (no rounding).
#[test]
fn min_max_hull_intersection() {
    let names = ["min", "max", "convex_hull", "intersection", "max0"];
    let mut tallies = names.map(Tally::new);
    for (x, y) in pairs(21) {
        let input = || format!("{:?} {:?}", ends(x), ends(y));
        let both = ends(x).zip(ends(y));
        let min = both.map(|((a, b), (c, d))| (a.min(c), b.min(d)));
        let max = both.map(|((a, b), (c, d))| (a.max(c), b.max(d)));
        let hull = match (ends(x), ends(y)) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (e, None) | (None, e) => e,
        };
        let meet = both
            .map(|((a, b), (c, d))| (a.max(c), b.min(d)))
            .filter(|(l, h)| l <= h);
        let max0 = ends(x).map(|(a, b)| (a.max(0.0), b.max(0.0)));
        let (n, m) = (theirs(x), theirs(y));
        tallies[0].record(&input, ends(x.min(y)), min, None);
        tallies[1].record(&input, ends(x.max(y)), max, None);
        tallies[2].record(
            &input,
            ends(x.convex_hull(y)),
            hull,
            Some(inari_ends(n.convex_hull(m))),
        );
        tallies[3].record(
            &input,
            ends(x.intersection(y)),
            meet,
            Some(inari_ends(n.intersection(m))),
        );
        tallies[4].record(&input, ends(F64Interval(x).max0().0), max0, None);
    }
    tallies.into_iter().for_each(Tally::finish);
}

/// mag, inf, sup, emptiness and the three-valued order agree with inari (and with the
/// definitions: `Less` exactly when every point of x is below every point of y).
#[test]
fn numeric_and_order() {
    for (x, y) in pairs(22) {
        let (n, m) = (theirs(x), theirs(y));
        assert_eq!(x.is_empty(), n.is_empty(), "{x:?}");
        if x.is_empty() {
            assert!(x.mag().is_nan() && n.mag().is_nan());
            continue;
        }
        assert_eq!(
            (x.inf(), x.sup(), x.mag()),
            (n.inf(), n.sup(), n.mag()),
            "{x:?}"
        );
        if y.is_empty() {
            continue;
        }
        let expected = if n.strict_precedes(m) {
            Tri::Less
        } else if m.strict_precedes(n) {
            Tri::Greater
        } else {
            Tri::Undecided
        };
        assert_eq!(
            F64Interval(x).cmp3(&F64Interval(y)),
            expected,
            "{x:?} vs {y:?}"
        );
        assert_eq!(expected == Tri::Less, x.sup() < y.inf());
    }
}

#[test]
fn constants_are_inaris() {
    for (ours, theirs_) in [
        (Interval::FRAC_2_SQRT_PI, inari::Interval::FRAC_2_SQRT_PI),
        (Interval::FRAC_1_SQRT_2, inari::Interval::FRAC_1_SQRT_2),
    ] {
        assert_eq!(ends(ours), inari_ends(theirs_));
    }
}

/// A random decimal `±d.ddd…e±k` with up to 25 significant digits and exponents across the
/// whole `f64` range (subnormal results and overflow included).
fn decimal(rng: &mut Rng) -> String {
    let digits: String = (0..1 + rng.below(25))
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect();
    let sign = if rng.below(2) == 0 { "" } else { "-" };
    let e = rng.below(660) as i64 - 340;
    format!("{sign}{}.{}e{e}", &digits[..1], &digits[1..])
}

/// `Real::from_rational` at 53 bits is the tightest `f64` interval around the exact decimal:
/// the same as inari's parse of the literal `[d]` and as MPFR's directed rounding.
#[test]
fn from_rational_is_tightest() {
    let mut rng = Rng::new(23);
    let mut t = Tally::new("from_rational");
    for i in 0..CASES {
        let s = if i % 10 == 0 {
            format!("{}", rng.pick(EDGES))
        } else {
            decimal(&mut rng)
        };
        let r = parse_exact(&s).expect("a decimal");
        let ours = F64Interval::from_rational(&r, 53).0;
        let n: inari::Interval = format!("[{s}]").parse().expect("inari parses the literal");
        let exact = Some((round_rational(&r, false), round_rational(&r, true)));
        t.record(&|| s.clone(), ends(ours), exact, Some(inari_ends(n)));
    }
    t.finish();
}
