//! Curve queries on a composed grid measure: certified δ(ε) (`Curve::delta`) and the certified
//! extreme ε(δ) on each side (`epsilon_side`) (`proofs-notes/pld_epsilon.md`, Lemma Query).
use super::enclose::{point, rational};
use super::fixed::{fixed_iv, to_f64, Ctx, GridPld, Side};
use super::Interval;
use crate::num::{F64Interval, Real};
use crate::{Error, Result};
use rug::Rational;

/// Suffix sums S_j = Σ_{i>j} ν_i and D_j = Σ_{i>j} ν_i (1 − e^{−(i−j)h}) for j = −1 … n−1
/// (index shifted by one), by D_j = (1 − e^{−h}) S_j + e^{−h} D_{j+1}: non-negative terms only.
/// `s` and `d` hold this side's bounds only (Upper: ≥ the exact value, Lower: ≤ it and ≥ 0), the
/// only end a side reads; [`Curve::enclosure`] turns one into an interval.
pub(super) struct Curve {
    /// Grid index j sits at loss a_j = shift + j·h (exact).
    pub(super) shift: Rational,
    pub(super) off: i64,
    pub(super) s: Vec<f64>,
    pub(super) d: Vec<f64>,
    pub(super) inf: Interval,
    pub(super) side: Side,
    pub(super) h: Rational,
}

impl Curve {
    pub(super) fn new(p: &GridPld, ctx: &Ctx) -> Curve {
        Curve::above(p, ctx, 0)
    }
    /// The curve of p with its points below the `cut`-th moved up onto it (Upper) or dropped
    /// (Lower): a measure on the side's side of p's, with the same δ(ε) for every ε at or
    /// above that point (Lemma Cut-curve). `cut` 0 (or an overflowing lump): p's own curve.
    fn above(p: &GridPld, ctx: &Ctx, cut: usize) -> Curve {
        let cut = cut.min(p.mass.len().saturating_sub(1));
        let lump = match ctx.side {
            // (an empty measure has no slot `cut`: None, the whole-curve fallback below)
            Side::Upper => p
                .mass
                .get(..=cut)
                .and_then(|m| m.iter().try_fold(0u128, |a, &m| a.checked_add(m))),
            Side::Lower => p.mass.get(cut).copied(),
        };
        let (cut, lump) = match lump {
            Some(l) => (cut, l),
            None => (0, p.mass.first().copied().unwrap_or(0)),
        };
        let mass = &p.mass[cut..];
        let n = mass.len();
        let side = ctx.side;
        // this side's end of an enclosure, and of a round-to-nearest result of non-negative
        // bounds (the exact value lies within half a spacing of it: its neighbour bounds it)
        let end = |x: Interval| match side {
            Side::Upper => x.sup(),
            Side::Lower => x.inf().max(0.0),
        };
        let step = |v: f64| match side {
            Side::Upper => v.next_up(),
            Side::Lower => v.next_down().max(0.0),
        };
        let (r, one_r) = (end((-ctx.hf).exp()), end(-F64Interval(-ctx.hf).expm1().0));
        let (mut s, mut d) = (vec![0.0; n + 1], vec![0.0; n + 1]);
        // S exactly in units of 2^−F (a sum beyond u128 — never: masses are below 4 — saturates
        // upwards, or keeps the smaller partial sum, on the side's side)
        let mut sum = 0u128;
        // slot k ↔ grid index off + cut + k − 1
        for k in (0..n).rev() {
            let m = if k == 0 { lump } else { mass[k] };
            sum = match side {
                Side::Upper => sum.saturating_add(m),
                Side::Lower => sum.checked_add(m).unwrap_or(sum),
            };
            s[k] = end(fixed_iv(sum, ctx.f));
            d[k] = step(step(one_r * s[k]) + step(r * d[k + 1]));
        }
        Curve {
            shift: p.shift.clone(),
            off: p.off + cut as i64,
            s,
            d,
            inf: fixed_iv(p.inf, ctx.f),
            side: ctx.side,
            h: ctx.h.clone(),
        }
    }
    /// An enclosure of the exact value a side bound `v` of `s` or `d` bounds: [0, v] (Upper) or
    /// [v, +∞] (Lower) — the exact value is ≥ 0, and ≤ v or ≥ v.
    fn enclosure(&self, v: f64) -> Interval {
        let (lo, hi) = match self.side {
            Side::Upper => (0.0, v),
            Side::Lower => (v, f64::INFINITY),
        };
        Interval::try_from((lo, hi)).unwrap_or(Interval::ENTIRE)
    }
    /// This side's end of an enclosure of a δ: the sup (Upper) or the inf (Lower; δ ≥ 0, so a
    /// negative inf is raised to 0, still a lower bound). An empty enclosure is an error: its
    /// inf is +∞, which would otherwise become the lower bound 1 after capping.
    pub(super) fn pick(&self, x: Interval) -> Result<f64> {
        if x.is_empty() {
            return Err(Error::Numerical("PLD δ enclosure is empty".into()));
        }
        Ok(match self.side {
            Side::Upper => x.sup(),
            Side::Lower => x.inf().max(0.0),
        })
    }
    /// δ at ε, certified on this side: with a_j ≤ ε < a_{j+1} and c = e^{ε − a_{j+1}},
    /// δ = ν(∞) + (1 − c)·S_j + c·D_{j+1}.
    pub(super) fn delta(&self, eps: &Rational) -> Result<f64> {
        if *eps < 0 {
            return Err(Error::arg("epsilon", "must be ≥ 0"));
        }
        // j = ⌊(ε − shift)/h⌋; a j beyond i64 lies beyond the last grid index (an i64), where δ
        // is exactly the mass at +∞ (i64::MAX, saturating below, stands for that exactly), or
        // below the first, where the slot-0 formula holds (i64::MIN)
        let jr = (Rational::from(eps - &self.shift) / &self.h).floor();
        let j = jr
            .numer()
            .to_i64()
            .unwrap_or(if jr < 0 { i64::MIN } else { i64::MAX });
        let n = self.s.len() as i64 - 1;
        let k = j.saturating_sub(self.off).saturating_add(1); // slot of grid index j
        if k >= n {
            return self.pick(self.inf);
        }
        // k < 0: ε below the first grid point, where the same formula holds with slot 0
        let k = k.max(0) as usize;
        // a_{j+1} with j + 1 = off + k the grid index of slot k + 1 (exact, in rationals)
        let t = Rational::from(eps - &self.shift) - (Rational::from(k) + self.off) * &self.h;
        // t ≤ 0 exactly, so c = e^t ≤ 1 and 1 − c ≥ 0: the min/max below only drop the
        // parts of the enclosures outside the exact values' range
        let c = rational(&t).exp().min(point(1.0));
        let one_c = -F64Interval(rational(&t)).expm1().0;
        let v = self.inf
            + one_c.max(point(0.0)) * self.enclosure(self.s[k])
            + c * self.enclosure(self.d[k + 1]);
        self.pick(v)
    }
    /// δ at grid slot k (grid index off + k − 1), this side.
    pub(super) fn at_slot(&self, k: usize) -> Result<f64> {
        self.pick(self.inf + self.enclosure(self.d[k]))
    }
}

/// [`epsilon_side`] of p, on the curve above the point where a float estimate of this side's
/// δ first exceeds 4δ (scanning down from the top; 16 points lower still): the answer lies
/// above it, where that curve is p's own (Lemma Cut-curve), and only that part is enclosed. A wrong
/// estimate costs width, never soundness.
pub(super) fn epsilon_of(p: &GridPld, ctx: &Ctx, delta: &Rational) -> Result<Rational> {
    let (scale, h) = ((2f64).powi(-(ctx.f as i32)), ctx.h.to_f64());
    let (r, one_r) = ((-h).exp(), -(-h).exp_m1());
    let target = 4.0 * delta.to_f64() - p.inf as f64 * scale;
    let (mut s, mut d, mut cut) = (0.0, 0.0, 0);
    for k in (0..p.mass.len()).rev() {
        s += to_f64(p.mass[k]) * scale;
        d = one_r * s + r * d;
        if d > target {
            cut = k.saturating_sub(16);
            break;
        }
    }
    epsilon_side(&Curve::above(p, ctx, cut), delta)
}

/// The certified extreme ε on this side: Upper → the least ε found with δ_upper(ε) ≤ δ;
/// Lower → the largest ε found with δ_lower(ε) > δ (0 if none). The search is in floats;
/// every returned value is re-checked by [`Curve::delta`].
pub(super) fn epsilon_side(c: &Curve, delta: &Rational) -> Result<Rational> {
    let df = delta.to_f64();
    // the certified test: the side's δ at e, compared exactly with the rational δ (an f64 is a
    // rational; an infinite one never passes, which is the safe answer on both sides)
    let holds = |e: &Rational| -> Result<bool> {
        let v = Rational::from_f64(c.delta(e)?);
        Ok(match c.side {
            Side::Upper => v.is_some_and(|v| v <= *delta),
            Side::Lower => v.is_some_and(|v| v > *delta),
        })
    };
    let zero = Rational::new();
    if c.side == Side::Upper && c.pick(c.inf)? > df {
        return Err(Error::Numerical(
            "the PLD upper bound puts more mass at +∞ than δ; lower --tail".into(),
        ));
    }
    // slot-wise search for the first grid slot whose δ is ≤ δ
    // (the float search below only proposes candidates: the fallbacks `unwrap_or(n)`,
    // `unwrap_or_default()` and the clamp change which candidates are tried, never what is
    // returned, since every return passes `holds` or is the trivial lower bound 0)
    let n = c.s.len() - 1;
    let mut first = n;
    for k in 0..=n {
        if c.at_slot(k)? <= df {
            first = k;
            break;
        }
    }
    if first == 0 {
        // δ(a_{off−1}) ≤ δ already below the support: Upper takes that point (or 0),
        // Lower the trivial bound 0
        let a = &c.shift + (Rational::from(c.off) - 1u32) * &c.h;
        return match c.side {
            Side::Upper if holds(&zero)? => Ok(zero),
            Side::Upper if a > 0 && holds(&a)? => Ok(a),
            Side::Upper => Err(Error::Numerical("PLD ε search failed to certify".into())),
            Side::Lower => Ok(zero),
        };
    }
    within_cell(c, first, df, &holds)
}

/// [`epsilon_side`] past the first slot: the side's certified ε within cell (a_j, a_{j+1}],
/// j + 1 the grid index of slot `first` (≥ 1), from a float guess stepped until `holds`, else a
/// grid point (Upper: a_{j+1}, which the slot search certified; Lower: a_j or 0).
fn within_cell(
    c: &Curve,
    first: usize,
    df: f64,
    holds: &dyn Fn(&Rational) -> Result<bool>,
) -> Result<Rational> {
    let zero = Rational::new();
    // j + 1 = off + first − 1, in rationals (no i64 overflow)
    let j1 = Rational::from(first) + c.off - 1u32;
    let a1 = &c.shift + Rational::from(&j1 * &c.h);
    let (s, dv) = (c.s[first - 1], c.d[first]);
    let cc = if s > dv {
        ((s + c.pick(c.inf)? - df) / (s - dv)).clamp(1e-300, 1.0)
    } else {
        1.0
    };
    let guess = a1.to_f64() + cc.ln();
    let mut cand = Rational::from_f64(guess).unwrap_or_default();
    let step = Rational::from_f64((guess.abs() + 1.0) * 1e-13).unwrap_or_default();
    for _ in 0..60 {
        if cand < 0 {
            cand = zero.clone();
        }
        if holds(&cand)? {
            return Ok(cand);
        }
        match c.side {
            Side::Upper => cand += &step,
            Side::Lower => {
                if cand == 0 {
                    return Ok(zero);
                }
                cand -= &step;
            }
        }
    }
    // fall back to grid points: a_{j+1} (Upper) satisfies δ ≤ δ by the slot search
    match c.side {
        Side::Upper if holds(&a1)? => Ok(a1),
        Side::Lower => {
            let a0 = &c.shift + (j1 - 1u32) * &c.h;
            Ok(if a0 > 0 && holds(&a0)? { a0 } else { zero })
        }
        _ => Err(Error::Numerical("PLD ε search failed to certify".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::test_util::rational;
    use crate::theorems::pld_accountant::test_util::*;
    use rug::Float;

    #[test]
    fn curve_delta_encloses_the_exact_grid_sum() {
        let mut rng = Rng(42);
        let f = 100;
        let mass: Vec<u128> = (0..50).map(|_| rng.below(1u128 << 95)).collect();
        // grid offsets: none, a fraction of h below 0 (a subsampled Gaussian's bulk), several h
        for (shift, side) in ["0", "-13/1000", "5/3"]
            .into_iter()
            .flat_map(|s| [(s, Side::Upper), (s, Side::Lower)])
        {
            let g = GridPld {
                shift: rational(shift),
                off: -7,
                mass: mass.clone(),
                inf: 12345,
            };
            let c = ctx("3/64", f, 0, side);
            let cv = Curve::new(&g, &c);
            let mut probes: Vec<Rational> = (0..200).map(|k| Rational::from((k, 97))).collect();
            probes.extend([
                rational("0"),
                rational("3/64"),
                rational("129/64"),
                rational("1e30"),
            ]);
            for e in probes {
                let exact = grid_delta(&g, &c, &e);
                let got = Float::with_val(P, cv.delta(&e).unwrap());
                let tol = Float::with_val(P, &exact * 1e-13) + 1e-300;
                match side {
                    Side::Upper => assert!(
                        got >= exact && Float::with_val(P, &got - &exact) <= tol,
                        "ε = {e}: {got} vs {exact}"
                    ),
                    Side::Lower => assert!(
                        got <= exact && Float::with_val(P, &exact - &got) <= tol,
                        "ε = {e}: {got} vs {exact}"
                    ),
                }
            }
        }
    }

    #[test]
    fn epsilon_side_is_certified_against_the_exact_grid_sum() {
        let g = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: vec![1u128 << 98, 1u128 << 97, 1u128 << 96, 1u128 << 95],
            inf: 1u128 << 80,
        };
        for d in ["0.1", "0.01", "1e-3", "1e-5"] {
            let delta = rational(d);
            let (cu, cl) = (
                ctx("1/2", 100, 0, Side::Upper),
                ctx("1/2", 100, 0, Side::Lower),
            );
            let (eu, el) = (
                epsilon_side(&Curve::new(&g, &cu), &delta).unwrap(),
                epsilon_side(&Curve::new(&g, &cl), &delta).unwrap(),
            );
            let dd = Float::with_val(P, &delta);
            assert!(
                grid_delta(&g, &cu, &eu) <= dd,
                "δ = {d}: upper ε {eu} not certified"
            );
            assert!(
                el == 0 || grid_delta(&g, &cl, &el) > dd,
                "δ = {d}: lower ε {el} not certified"
            );
            assert!(Rational::from(&eu - &el) <= 1e-9, "δ = {d}: [{el}, {eu}]");
        }
        // more mass at +∞ than δ: the upper side has no finite answer and says so
        let c = ctx("1/2", 100, 0, Side::Upper);
        assert!(epsilon_side(&Curve::new(&g, &c), &rational("1e-30")).is_err());
    }

    /// Lemma Cut-curve: the curve above a cut point has p's own δ(ε) at every ε at or above that point
    /// (against the exact grid sum), and stays on its side below it; an empty measure gives a
    /// curve (δ = the +∞ mass), not a panic.
    #[test]
    fn a_curve_above_a_cut_keeps_delta_above_it() {
        let mut rng = Rng(77);
        let g = GridPld {
            shift: rational("-1/50"),
            off: -4,
            mass: (0..60).map(|_| rng.below(1u128 << 94)).collect(),
            inf: 999,
        };
        for side in [Side::Upper, Side::Lower] {
            let c = ctx("1/32", 100, 0, side);
            let cut = 23usize;
            let cv = Curve::above(&g, &c, cut);
            // the cut point's loss: shift + (off + cut)·h
            let a_cut = &g.shift + Rational::from(g.off + cut as i64) * &c.h;
            for k in 0..120 {
                let e = Rational::from((k, 40)) + &a_cut - Rational::from((1, 1));
                if e < 0 {
                    continue;
                }
                let exact = grid_delta(&g, &c, &e);
                let got = Float::with_val(P, cv.delta(&e).unwrap());
                let tol = Float::with_val(P, &exact * 1e-13) + 1e-300;
                match side {
                    Side::Upper => assert!(got >= exact, "ε = {e}: {got} below {exact}"),
                    Side::Lower => assert!(got <= exact, "ε = {e}: {got} above {exact}"),
                }
                if e >= a_cut {
                    assert!(
                        Float::with_val(P, &got - &exact).abs() <= tol,
                        "ε = {e} above the cut: {got} vs {exact}"
                    );
                }
            }
            let empty = GridPld {
                shift: Rational::new(),
                off: 0,
                mass: vec![],
                inf: 5,
            };
            assert!(Curve::above(&empty, &c, 3).delta(&rational("1")).unwrap() > 0.0);
        }
    }

    #[test]
    fn an_empty_delta_enclosure_is_an_error_not_a_lower_bound_of_one() {
        let g = GridPld {
            shift: Rational::new(),
            off: 5,
            mass: vec![1u128 << 99],
            inf: 0,
        };
        for side in [Side::Upper, Side::Lower] {
            let mut cv = Curve::new(&g, &ctx("1", 100, 0, side));
            assert!(cv.delta(&rational("0")).unwrap() > 0.0);
            cv.inf = Interval::EMPTY;
            assert!(cv.delta(&rational("0")).is_err()); // through the formula below the support
            assert!(cv.delta(&rational("10")).is_err()); // beyond the support: the +∞ mass alone
            assert!(epsilon_side(&cv, &rational("0.1")).is_err());
        }
    }
}
