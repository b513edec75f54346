//! Conformance harness for dpcert's portable `f64` interval type (`src/num/interval.rs`,
//! `src/num/fast.rs`) against **inari** (IEEE 1788 intervals) and an exact reference.
//!
//! Each operation is checked on the same inputs three ways (see [`Tally::record`]):
//! - **containment**: ours ⊇ the *tightest* `f64` interval around the exact range, computed
//!   independently of both interval libraries (exact rationals for `+ − × ÷` and the set
//!   operations; MPFR at 256 bits with directed rounding for √, exp, ln, expm1, ln1p, pow),
//!   so it holds exactly when ours contains the exact range;
//! - **width vs exact**: how many `f64` steps each of our endpoints lies outside the tightest
//!   one (0 = optimal);
//! - **width vs inari**: how many steps each of our endpoints lies outside inari's (negative:
//!   ours is narrower, which is only acceptable because the containment check passed).
//!
//! The worst cases are printed (`cargo test -- --nocapture`) and asserted against
//! [`BOUNDS`], the documented per-operation widths (README.md of this crate, and the module
//! doc of `src/num/interval.rs`).
use dpcert::num::interval_for_conformance::Interval;
use dpcert::rug::float::Round;
use dpcert::rug::{Float, Rational};
use std::fmt::Write as _;

/// Random cases per operation (seeded: every run draws the same ones).
pub const CASES: u64 = 100_000;

/// Precision of the MPFR reference (≥ 4 × 53 bits).
pub const REF_PREC: u32 = 256;

/// Per-operation width bounds `(operation, steps, why)`: at most `steps` representable `f64`
/// values between each of our endpoints and the tightest (on every operation inari has,
/// inari's) endpoint. Measured by these tests; documented in README.md and
/// `src/num/interval.rs`. pow's depends on its inputs: [`pow_allowed`].
pub const BOUNDS: &[(&str, i64, &str)] = &[
    ("neg", 0, "exact"),
    ("add", 0, "directed rounding by TwoSum"),
    ("sub", 0, "directed rounding by TwoSum"),
    ("mul", 1, "FMA residual; one-ulp widening below 2^-960"),
    ("div", 1, "FMA remainder; one-ulp widening near underflow"),
    ("recip", 1, "as div"),
    ("sqr", 1, "as mul"),
    ("sqrt", 1, "FMA remainder; one-ulp widening below 2^-960"),
    ("exp", 2, "table + Taylor with enclosed remainder"),
    ("ln", 0, "MPFR at 53 bits, directed"),
    ("ln1p", 2, "table + series with enclosed remainder"),
    ("expm1", 0, "MPFR's rounding, bit for bit (expm1_directed)"),
    ("min", 0, "exact"),
    ("max", 0, "exact"),
    ("max0", 0, "exact"),
    ("convex_hull", 0, "exact"),
    ("intersection", 0, "exact"),
    ("from_rational", 0, "MPFR, directed"),
];

/// The documented bound of `op` (panics for an operation without one).
pub fn bound(op: &str) -> i64 {
    BOUNDS
        .iter()
        .find(|b| b.0 == op)
        .unwrap_or_else(|| panic!("no documented bound for {op}"))
        .1
}

/// SplitMix64: a small seeded generator, so every run draws the same cases.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// Edge values: signed zeros, the subnormal and normal extremes, the FMA-safety threshold
/// 2⁻⁹⁶⁰ of `interval.rs`, exp's overflow/underflow thresholds and the ends of its fast range.
pub const EDGES: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    2.225_073_858_507_201e-308, // largest subnormal
    f64::MAX,
    f64::MIN,
    1e300,
    -1e300,
    1e-300,
    f64::EPSILON,
    1.0 + f64::EPSILON,
    1.0 - f64::EPSILON / 2.0,
    f64::from_bits((1023 - 960) << 52), // 2^-960
    709.782_712_893_384,                // ln(MAX)
    -745.133_219_101_941_1,             // ln of the smallest subnormal
    700.0,
    -700.0,
    700.5,
    1.0 / 64.0,
    -1.0 / 64.0,
    std::f64::consts::LN_2,
    std::f64::consts::SQRT_2,
];

/// `x` moved `k` steps up (k > 0) or down.
pub fn step(mut x: f64, k: i32) -> f64 {
    for _ in 0..k.unsigned_abs() {
        x = if k > 0 { x.next_up() } else { x.next_down() };
    }
    x
}

/// A finite `f64`: an edge value, a random bit pattern (every binade alike), a number of
/// moderate size, or a few steps from an edge.
pub fn number(rng: &mut Rng) -> f64 {
    match rng.below(8) {
        0 => rng.pick(EDGES),
        1 | 2 => loop {
            let x = f64::from_bits(rng.next_u64());
            if x.is_finite() {
                return x;
            }
        },
        3 => {
            let e = rng.pick(EDGES);
            Some(step(e, rng.below(7) as i32 - 3))
                .filter(|x| x.is_finite())
                .unwrap_or(e)
        }
        _ => {
            let e = rng.below(121) as i32 - 60;
            let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
            s * rng.unit() * 2f64.powi(e)
        }
    }
}

/// An interval built from numbers drawn by `num`: a point, two draws, a narrow one (a few
/// steps wide), one straddling 0, a half-line, the whole line, or empty.
pub fn interval_from(rng: &mut Rng, num: &mut dyn FnMut(&mut Rng) -> f64) -> Interval {
    let a = num(rng);
    let b = num(rng);
    let (lo, hi) = match rng.below(20) {
        0..=4 => (a, a),
        5..=11 => (a.min(b), a.max(b)),
        12..=14 => (a, step(a, 1 + rng.below(4) as i32)),
        15 | 16 => (-a.abs(), b.abs()),
        17 => {
            if rng.below(2) == 0 {
                (a, f64::INFINITY)
            } else {
                (f64::NEG_INFINITY, a)
            }
        }
        18 => (f64::NEG_INFINITY, f64::INFINITY),
        _ => return Interval::EMPTY,
    };
    ours(lo, hi)
}

/// An interval of [`number`]s.
pub fn interval(rng: &mut Rng) -> Interval {
    interval_from(rng, &mut number)
}

/// `[lo, hi]` of our type (panics on an invalid pair: generators only build valid ones).
pub fn ours(lo: f64, hi: f64) -> Interval {
    Interval::try_from((lo, hi)).unwrap_or_else(|_| panic!("invalid [{lo}, {hi}]"))
}

/// The same set as an inari interval.
pub fn theirs(x: Interval) -> inari::Interval {
    if x.is_empty() {
        inari::Interval::EMPTY
    } else {
        inari::Interval::try_from((x.inf(), x.sup())).expect("valid interval")
    }
}

/// An interval as a pair of endpoints, `None` when empty (inari's and ours, same shape).
pub type Ends = Option<(f64, f64)>;

pub fn ends(x: Interval) -> Ends {
    (!x.is_empty()).then(|| (x.inf(), x.sup()))
}

pub fn inari_ends(x: inari::Interval) -> Ends {
    (!x.is_empty()).then(|| (x.inf(), x.sup()))
}

/// Position of `x` on the line of `f64` values (±0 the same; ±∞ one step beyond ±MAX).
fn key(x: f64) -> i64 {
    let b = x.abs().to_bits() as i64;
    if x < 0.0 {
        -b
    } else {
        b
    }
}

/// How many steps `ours` lies below `other` (a lower endpoint's excess width; negative when
/// ours is above). An infinite endpoint where `other` is finite counts as `i64::MAX`.
pub fn excess_below(ours: f64, other: f64) -> i64 {
    if ours == f64::NEG_INFINITY && other != f64::NEG_INFINITY {
        return i64::MAX;
    }
    key(other) - key(ours)
}

/// How many steps `ours` lies above `other` (an upper endpoint's excess width).
pub fn excess_above(ours: f64, other: f64) -> i64 {
    excess_below(-ours, -other)
}

/// `v` rounded to `f64` toward −∞ (`up = false`) or +∞; exact when `v` is representable.
pub fn round_rational(v: &Rational, up: bool) -> f64 {
    let rnd = if up { Round::Up } else { Round::Down };
    Float::with_val_round(REF_PREC, v, rnd).0.to_f64_round(rnd)
}

/// An exact extended real: a rational, or ±∞.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum Ext {
    NegInf,
    Fin(Rational),
    PosInf,
}

impl Ext {
    pub fn of(x: f64) -> Ext {
        match Rational::from_f64(x) {
            Some(r) => Ext::Fin(r),
            None if x > 0.0 => Ext::PosInf,
            None => Ext::NegInf,
        }
    }
    /// Rounded outward on the requested side.
    pub fn round(&self, up: bool) -> f64 {
        match self {
            Ext::NegInf => f64::NEG_INFINITY,
            Ext::PosInf => f64::INFINITY,
            Ext::Fin(r) => round_rational(r, up),
        }
    }
    pub fn neg(&self) -> Ext {
        match self {
            Ext::NegInf => Ext::PosInf,
            Ext::PosInf => Ext::NegInf,
            Ext::Fin(r) => Ext::Fin(Rational::from(-r)),
        }
    }
}

/// The tightest `f64` interval around the exact range `[lo, hi]` (`None`: empty).
pub fn tightest(range: Option<(Ext, Ext)>) -> Ends {
    range.map(|(lo, hi)| (lo.round(false), hi.round(true)))
}

/// One endpoint of f(x) by MPFR at [`REF_PREC`] bits, rounded in the given direction twice
/// (at `REF_PREC` bits, then to `f64`): the `f64` rounding of the exact value in that direction.
pub fn mpfr_end(x: f64, up: bool, f: fn(&mut Float, Round) -> std::cmp::Ordering) -> f64 {
    let rnd = if up { Round::Up } else { Round::Down };
    let mut v = Float::with_val(REF_PREC, x);
    f(&mut v, rnd);
    v.to_f64_round(rnd)
}

/// Worst cases of one operation.
pub struct Tally {
    pub op: &'static str,
    pub cases: u64,
    /// worst excess of an endpoint over the tightest enclosure, and its input
    pub worst_exact: (i64, String),
    /// worst excess over inari's endpoint (`None`: inari has no such operation)
    pub worst_inari: Option<(i64, String)>,
    /// how often one of our endpoints was strictly inside inari's
    pub narrower: u64,
    pub failures: Vec<String>,
}

impl Tally {
    pub fn new(op: &'static str) -> Tally {
        Tally {
            op,
            cases: 0,
            worst_exact: (i64::MIN, String::new()),
            worst_inari: None,
            narrower: 0,
            failures: Vec::new(),
        }
    }

    /// Record one case: `ours` must contain `exact` (the tightest enclosure of the exact
    /// range) and lie within the documented bound of it; `inari` (when the operation exists
    /// there) must contain `exact` too — a check of the oracle — and ours is measured
    /// against it.
    pub fn record(
        &mut self,
        input: &dyn Fn() -> String,
        ours: Ends,
        exact: Ends,
        inari: Option<Ends>,
    ) {
        self.record_within(bound(self.op), input, ours, exact, inari)
    }

    /// [`Tally::record`] with the bound given by the caller (pow's depends on its inputs).
    pub fn record_within(
        &mut self,
        allowed: i64,
        input: &dyn Fn() -> String,
        ours: Ends,
        exact: Ends,
        inari: Option<Ends>,
    ) {
        self.cases += 1;
        match judge(ours, exact, allowed) {
            Ok(e) if e > self.worst_exact.0 => self.worst_exact = (e, input()),
            Ok(_) => {}
            Err(what) => self.fail(format!(
                "{} {}: {what}: ours {ours:?}, tightest {exact:?}",
                self.op,
                input()
            )),
        }
        let Some(n) = inari else { return };
        if !is_contained(exact, n) {
            self.fail(format!(
                "{} {}: inari {n:?} misses the tightest {exact:?}",
                self.op,
                input()
            ));
        }
        if let (Some((l, h)), Some((nl, nh))) = (ours, n) {
            let (below, above) = (excess_below(l, nl), excess_above(h, nh));
            if below < 0 || above < 0 {
                self.narrower += 1;
            }
            let worst = self.worst_inari.get_or_insert((i64::MIN, String::new()));
            if below.max(above) > worst.0 {
                *worst = (below.max(above), input());
            }
        }
    }

    fn fail(&mut self, msg: String) {
        if self.failures.len() < 20 {
            self.failures.push(msg);
        }
    }

    /// One line for the summary.
    pub fn summary(&self) -> String {
        let show = |w: i64| {
            if w == i64::MIN {
                "-".to_string()
            } else {
                w.to_string()
            }
        };
        let mut s = format!(
            "{:<14} {:>7} cases  worst vs exact {:>3} ulps",
            self.op,
            self.cases,
            show(self.worst_exact.0)
        );
        match &self.worst_inari {
            Some((w, at)) => {
                let _ = write!(
                    s,
                    "  vs inari {:>3} ulps (narrower in {})  at {at}",
                    show(*w),
                    self.narrower
                );
            }
            None => {
                let _ = write!(s, "  (no inari op)  at {}", self.worst_exact.1);
            }
        }
        s
    }

    /// Print the summary, then panic listing the failures, if any.
    pub fn finish(self) {
        eprintln!("{}", self.summary());
        assert!(
            self.failures.is_empty(),
            "{}:\n{}",
            self.op,
            self.failures.join("\n")
        );
    }
}

/// Our result against the tightest enclosure of the exact range: `Ok(worst endpoint excess)`
/// (`i64::MIN` when both are empty), or what is wrong.
pub fn judge(ours: Ends, exact: Ends, allowed: i64) -> Result<i64, &'static str> {
    match (ours, exact) {
        (None, None) => Ok(i64::MIN),
        (Some(_), None) => Err("not empty where the exact range is empty"),
        (None, Some(_)) => Err("NOT CONTAINED (ours is empty)"),
        (Some((l, h)), Some((rl, rh))) => {
            let e = excess_below(l, rl).max(excess_above(h, rh));
            if !(l <= rl && rh <= h) {
                Err("NOT CONTAINED")
            } else if e > allowed {
                Err("too wide")
            } else {
                Ok(e)
            }
        }
    }
}

/// Whether `inner` ⊆ `outer` (the empty set is in everything).
pub fn is_contained(inner: Ends, outer: Ends) -> bool {
    match (inner, outer) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some((a, b)), Some((c, d))) => c <= a && b <= d,
    }
}

/// pow's width bound: `POW_ULPS_PER_UNIT`·|y·ln x| + `POW_ULPS_BASE` steps per endpoint, with
/// |y·ln x| the largest over the corners. `Real::pow` is exp(y·ln x): ln x's directed rounding
/// (relative error ≤ 2⁻⁵²) and the product's (another ≤ 2⁻⁵²) put an absolute error of up to
/// 2·|y·ln x|·2⁻⁵² into the exponent, which exp turns into a relative error of that size — up to
/// 4·|y·ln x| steps of the result, a step being 2⁻⁵³ to 2⁻⁵² of it — on top of exp's own 2.
pub const POW_ULPS_PER_UNIT: f64 = 4.0;
/// See [`POW_ULPS_PER_UNIT`].
pub const POW_ULPS_BASE: i64 = 2;

/// The number of steps pow's endpoints may lie outside the tightest ones for these inputs
/// (`i64::MAX` when a corner is infinite: only containment is then checked).
pub fn pow_allowed(x: Ends, y: Ends) -> i64 {
    let (Some((a, b)), Some((c, d))) = (x, y) else {
        return 0;
    };
    let scale = [(a, c), (a, d), (b, c), (b, d)]
        .iter()
        .map(|&(p, q)| (q * p.ln()).abs())
        .fold(0.0, f64::max);
    if scale.is_finite() {
        ((POW_ULPS_PER_UNIT * scale).ceil() as i64).saturating_add(POW_ULPS_BASE)
    } else {
        i64::MAX
    }
}
