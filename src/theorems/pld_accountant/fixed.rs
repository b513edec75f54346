//! Fixed-point grid measures: the side being computed, the grid PLD (`GridPld`, masses as
//! integers at scale 2^F), the context (`Ctx`) through which an enclosed mass is rounded to its
//! side, and the carried rounding of a whole measure (`Pending`, `carry_round`). The only place
//! an interval becomes an integer mass.
use super::enclose::{point, rational};
use super::{Interval, PldTerm};
use crate::{Error, Result};
use rug::Rational;

/// The grid the accountant chose (`grid::setup`): width h, tail mass τ per truncation,
/// fixed-point fraction bits F, the FFT's widening budget and the terms as composed.
pub(super) struct Setup {
    pub(super) h: Rational,
    pub(super) tau: Rational,
    pub(super) f: u32,
    /// Mass one convolution's floating-point rounding may add (Upper) or drop (Lower) when it
    /// uses the FFT (`fft.rs`); 0: exact integer products only.
    pub(super) fft_budget: Rational,
    /// The terms as composed (Gaussians merged).
    pub(super) terms: Vec<PldTerm>,
    /// The δ of an ε(δ) query (0: none), for choices only (`reach.rs`).
    pub(super) delta: f64,
}

/// A float model of a one-term composition — loss mean and variance, and the ε its FFT
/// widenings are weighed at (`reach.rs`): a choice only, never part of a certified number.
#[derive(Clone, Copy, Debug)]
pub(super) struct Target {
    pub(super) eps: f64,
    pub(super) mean: f64,
    pub(super) var: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    Upper,
    Lower,
}

/// Grid PLD: `mass[i]` is the P-mass at loss shift + (off + i)·h, `inf` at +∞; fixed point,
/// scale 2^F. `shift` is exact: a mechanism's grid offset, summed under convolution.
#[derive(Clone, Debug)]
pub(super) struct GridPld {
    pub(super) shift: Rational,
    pub(super) off: i64,
    pub(super) mass: Vec<u128>,
    pub(super) inf: u128,
}

pub(super) struct Ctx {
    pub(super) h: Rational,
    /// Enclosure of h.
    pub(super) hf: Interval,
    pub(super) f: u32,
    pub(super) tau: u128,
    /// τ itself as an f64, at least [`RANGE_TAIL_FLOOR`], for the tables' range search
    /// (`range`: a choice only). Not `tau` over 2^F: with 5 guard bits that floor moves with F
    /// by up to 3 %, and the range — and with it the lower side's sweep pattern — moved with it
    /// (one step of the substitution pair at q = 0.01, σ = 1: δ's lower end 10⁻⁷ lower at F = 70
    /// and 75 than at 73 or 94).
    pub(super) tau_f: f64,
    /// `Setup::fft_budget` at scale 2^F, rounded down (0: exact products only).
    pub(super) fft_budget: u128,
    pub(super) side: Side,
    pub(super) progress: bool,
    pub(super) support: usize,
    /// How many convolutions went through the FFT (a record for tests and reports).
    pub(super) fft_products: usize,
    /// `Setup::delta` (0: none).
    pub(super) delta: f64,
    /// The composition's float model, when it has one term (`reach.rs`; choices only).
    pub(super) target: Option<Target>,
}

/// Largest fixed-point fraction count F. Masses are u128 integers below 2^[`MASS_BITS`] units,
/// so at F = 126 a mass is below 2 — room for a probability measure's masses and their upward
/// rounding (a measure's total is 1 up to its widths and roundings, far below 2) — and
/// F + 2 ≤ 128. It was 124 (masses below 4) until 2026-12-07: each product's and truncation's
/// unit, copied about T times through a composition, set a floor on the upper end at
/// δ = 10⁻³⁰ (`pld_epsilon.md`, Tightness).
pub(super) const MAX_F: u32 = 126;

/// The smallest tail the tables' range search aims at (`Ctx::tau_f`): 2^−124, one unit of the
/// former largest F, and no longer tied to F. With F = 126 and that floor at one unit, 2^−126, the
/// range of q = 0.001, σ = 1 (add) reached 629 grid points further left, and the lower sweep —
/// which pools material upwards from the range's left end (Lemma Merging-sweep) — then emitted
/// the step's bulk, six grid points below −ln(1 − q), one point lower: after 20 000 steps at
/// δ = 10⁻³⁰ the lower end fell from 1.883 to 1.235 (`reach.rs`' test). A choice only.
pub(super) const RANGE_TAIL_FLOOR: f64 = f64::from_bits((1023 - 124) << 52);

/// Every fixed-point mass (a point's, a +∞ mass, a slot's quotient) is below 2^MASS_BITS units:
/// the sum of two still fits u128, and a remainder plus a carry (each below 2^F) too.
pub(super) const MASS_BITS: u32 = 127;

/// The largest-plus-one mass a convolution accepts: 2^{F+2} units (masses below 4, which keeps
/// every slot of a packed product below 2^{2F+4+log₂ n}, `slot_bits`), capped at 2^[`MASS_BITS`]
/// (masses below 2 at F = 126).
pub(super) fn mass_limit(f: u32) -> u128 {
    1u128 << (f + 2).min(MASS_BITS)
}

/// `a += b` on fixed-point masses, refusing an overflow (masses stay below 2^127, so this
/// never fires on a valid run; a wrapped sum would drop mass from the upper side).
pub(super) fn add_mass(a: &mut u128, b: u128) -> Result<()> {
    *a = a
        .checked_add(b)
        .ok_or_else(|| Error::Numerical("PLD fixed-point mass overflow".into()))?;
    Ok(())
}

/// Masses q_k + r_k·2^−F in units of 2^−F (r_k < 2^F) rounded to integers with one running
/// carry (`pld_epsilon.md`, Lemma One-carry): Upper visits the points by increasing loss, keeps the
/// integer part and carries the remainder to the next point (mass moved to a larger loss), and
/// rounds the last remainder up into the last point; Lower does the same by decreasing loss
/// and drops the last remainder (mass moved down, then dropped). The whole measure is rounded by
/// less than one unit, where rounding each point on its own cost up to one unit per point.
pub(super) fn carry_round(parts: &[(u128, u128)], f: u32, side: Side) -> Result<Vec<u128>> {
    carry_round_with(parts.len(), |k| Ok(parts[k]), f, side)
}

/// [`carry_round`] of the parts `part(k)`, k < n, made as the carry visits them.
fn carry_round_with(
    n: usize,
    part: impl Fn(usize) -> Result<(u128, u128)>,
    f: u32,
    side: Side,
) -> Result<Vec<u128>> {
    let mask = (1u128 << f) - 1; // F ≤ 126
    let mut out = vec![0u128; n];
    let mut carry = 0u128;
    for j in 0..n {
        let k = if side == Side::Upper { j } else { n - 1 - j };
        let (q, r) = part(k)?;
        // r, carry < 2^F ≤ 2^126: no overflow
        let s = r + carry;
        out[k] = q;
        add_mass(&mut out[k], s >> f)?;
        carry = s & mask;
    }
    if side == Side::Upper && carry > 0 {
        if let Some(last) = out.last_mut() {
            add_mass(last, 1)?;
        }
    }
    Ok(out)
}

/// One grid measure's masses before their rounding to the fixed point: at each point the sum of
/// this side's ends of the enclosures added there (the sup on the upper side, the inf raised to
/// 0 on the lower), in units of 2^−F, kept as an exact integer part and an f64 fraction (sums of
/// fractions rounded to the side). [`Pending::round`] turns them into integers by
/// [`carry_round`].
pub(super) struct Pending {
    v: Vec<(u128, f64)>,
    side: Side,
    f: u32,
    /// 2^F (exact).
    scale: f64,
}

impl Pending {
    pub(super) fn new(n: usize, ctx: &Ctx) -> Pending {
        Pending {
            v: vec![(0, 0.0); n],
            side: ctx.side,
            f: ctx.f,
            scale: (2f64).powi(ctx.f as i32),
        }
    }
    /// Add the enclosed mass `x` at point i. As [`Ctx::fixed`]: an empty or NaN enclosure, or
    /// an end at or above 2^127 units, is an error; scaling by 2^F is exact, and so is the split
    /// of the scaled end e into ⌊e⌋ and e − ⌊e⌋.
    pub(super) fn add(&mut self, i: usize, x: Interval) -> Result<()> {
        let e = side_scaled(x, self.side, self.scale)?;
        if !(e < 2f64.powi(MASS_BITS as i32)) {
            return Err(Error::Numerical(
                "PLD mass enclosure not finite or above the fixed-point range".into(),
            ));
        }
        let whole = e.floor();
        let (q, fr) = &mut self.v[i];
        // e < 2^127: the cast is exact
        add_mass(q, to_u128(whole))?;
        *fr = side_end(point(*fr) + point(e - whole), self.side);
        Ok(())
    }
    /// The integer masses: each point's fraction (< the number of additions) split again into
    /// its integer part and its remainder at scale 2^F (exact: x − ⌊x⌋ is an f64, and so is its
    /// product by 2^F; that product is rounded to an integer on the side), then [`carry_round`].
    pub(super) fn round(self) -> Result<Vec<u128>> {
        let (f, side) = (self.f, self.side);
        let v = &self.v;
        carry_round_with(v.len(), |k| split_units(v[k].0, v[k].1, f, side), f, side)
    }
}

/// `m as f64` (round to nearest). Below 2⁶⁴ as the exact f64 sum of its two 32-bit halves,
/// (m >> 32)·2³² + (m mod 2³²), rounded once by the addition: the same value, without the
/// 128-bit library call (masses at F ≤ 63 are below 2⁶⁴). (A `u64` cast on that branch, the
/// form before, was folded by LLVM into the 128-bit conversion it was meant to avoid: 7 % of
/// q = 0.01, σ = 4, 10⁴ steps.)
#[inline]
pub(super) fn to_f64(m: u128) -> f64 {
    if m >> 64 == 0 {
        let v = m as u64;
        ((v >> 32) as u32 as f64) * 4_294_967_296.0 + (v as u32 as f64)
    } else {
        m as f64
    }
}

/// `x as u128` (⌊x⌋ for 0 ≤ x < 2¹²⁸; 0 for NaN and x < 0), through `i64` when x < 2⁶³ — the
/// same value, by the hardware conversion.
#[inline]
pub(super) fn to_u128(x: f64) -> u128 {
    if x < 9_223_372_036_854_775_808.0 {
        (x.max(0.0) as i64) as u128
    } else {
        x as u128
    }
}

/// q + x units of 2^−F (x ≥ 0 an f64 below 2^127) as (integer part, remainder at scale 2^F):
/// for 0 ≤ x < 2^127 `x as u128` is ⌊x⌋, an f64, so x − ⌊x⌋ is exact, and so is its product r
/// by 2^F (F ≤ 126: built from its exponent bits, exact); r is rounded to an integer on the side
/// by the same cast and an exact comparison (no libm call: portable builds have no rounding
/// instruction). x ≥ 2^127 or NaN is an overflow error.
fn split_units(q: u128, x: f64, f: u32, side: Side) -> Result<(u128, u128)> {
    let scale = f64::from_bits(u64::from(1023 + f) << 52);
    if !(x < (2f64).powi(MASS_BITS as i32)) {
        return Err(Error::Numerical("PLD convolution overflow".into()));
    }
    let x = x.max(0.0);
    let whole = to_u128(x);
    let r = (x - to_f64(whole)) * scale;
    // r < 2^F ≤ 2^126: the cast is ⌊r⌋
    let mut rest = to_u128(r);
    if side == Side::Upper && to_f64(rest) < r {
        rest += 1;
    }
    let mut q = q;
    add_mass(&mut q, whole)?;
    // a remainder rounded up to 2^F is one unit
    Ok(if rest == 1u128 << f {
        add_mass(&mut q, 1)?;
        (q, 0)
    } else {
        (q, rest)
    })
}

/// Non-negative f64 masses in units of 2^−F, each already this side's end of its enclosure,
/// rounded to integers with one carry through the measure (Lemma One-carry, via
/// [`split_units`] and [`carry_round`]): less than one unit in all, where rounding each point
/// on its own cost up to one unit per point.
pub(super) fn carry_round_units(xs: &[f64], f: u32, side: Side) -> Result<Vec<u128>> {
    if f > 63 {
        return carry_round_with(xs.len(), |k| split_units(0, xs[k], f, side), f, side);
    }
    // F ≤ 63: the same computation in u64 (a remainder and the carry are below 2^F ≤ 2^63, so
    // their sum fits; an entry below 2^63 has its integer part there too; larger entries take
    // `split_units`); a zero entry leaves the carry and its point (0) as they are (q = r = 0)
    let n = xs.len();
    let scale = f64::from_bits(u64::from(1023 + f) << 52);
    let (one, mask) = (1u64 << f, (1u64 << f) - 1);
    // malloc and explicit zeros rather than `vec![0; n]` (calloc): with calloc this vector's
    // pages came fresh from the kernel on every call here — 1657 → 2080 page faults at
    // q = 0.01, σ = 4 (one thread) — where malloc reuses freed memory
    #[allow(
        clippy::slow_vector_initialization,
        reason = "calloc is the slow one here (see above)"
    )]
    let mut out = Vec::with_capacity(n);
    out.resize(n, 0u128);
    let mut carry = 0u64;
    for j in 0..n {
        let k = if side == Side::Upper { j } else { n - 1 - j };
        let x = xs[k];
        let (q, rest) = if x > 0.0 && x < 9_223_372_036_854_775_808.0 {
            // ⌊x⌋ of an f64 below 2^63 is an f64 and an i64: both casts exact (through i64:
            // one instruction each), so r = (x − ⌊x⌋)·2^F is exact, and ⌊r⌋ likewise
            let whole = x as i64;
            let r = (x - whole as f64) * scale;
            let mut rest = r as i64 as u64;
            if side == Side::Upper && ((rest as i64) as f64) < r {
                rest += 1;
            }
            // a remainder rounded up to 2^F is one unit
            if rest == one {
                (whole as u64 + 1, 0)
            } else {
                (whole as u64, rest)
            }
        } else if x == 0.0 {
            continue;
        } else {
            // ≥ 2^63, negative (0 there), NaN or ≥ 2^127 (errors): the general split
            let (q, r) = split_units(0, x, f, side)?;
            out[k] = q;
            (0, r as u64)
        };
        let s = rest + carry;
        add_mass(&mut out[k], u128::from(q + (s >> f)))?;
        carry = s & mask;
    }
    if side == Side::Upper && carry > 0 {
        if let Some(last) = out.last_mut() {
            add_mass(last, 1)?;
        }
    }
    Ok(out)
}

/// This side's end of a mass enclosure: the sup (Upper) or the inf (Lower), a negative end
/// raised to 0 (the exact mass is ≥ 0).
fn side_end(x: Interval, side: Side) -> f64 {
    match side {
        Side::Upper => x.sup().max(0.0),
        Side::Lower => x.inf().max(0.0),
    }
}

/// [`side_end`] of a mass enclosure times `scale` (a power of two: exact); an empty or NaN
/// enclosure is an error (its inf is +∞, which the lower side would take for a huge mass).
fn side_scaled(x: Interval, side: Side, scale: f64) -> Result<f64> {
    if x.is_empty() || x.sup().is_nan() || x.inf().is_nan() {
        return Err(Error::Numerical("PLD mass enclosure is empty".into()));
    }
    Ok(side_end(x, side) * scale)
}

/// ⌊r⌋ as an i64 grid index; an index beyond i64 is refused (the grid would have to be absurdly
/// fine or the loss absurdly large), never replaced by another index.
pub(super) fn floor_index(r: &Rational, what: &str) -> Result<i64> {
    r.clone().floor().numer().to_i64().ok_or_else(|| {
        Error::arg(
            "grid",
            format!("{what} lies beyond 2^63 grid steps; use a coarser --grid"),
        )
    })
}

impl Ctx {
    /// Fixed-point value of an enclosed non-negative mass, rounded to this side: ⌈sup·2^F⌉
    /// (Upper) or ⌊inf·2^F⌋ (Lower). The exact mass is ≥ 0, so a negative end is replaced by 0
    /// (still a bound on the right side). Scaling by 2^F is exact in f64 and the result is an
    /// integer below 2^127 before the cast, so the cast is exact. An empty or unbounded
    /// enclosure, or one at or above 2^127·2^−F, is an error on both sides.
    pub(super) fn fixed(&self, x: Interval) -> Result<u128> {
        let e = side_scaled(x, self.side, (2f64).powi(self.f as i32))?;
        let v = match self.side {
            Side::Upper => e.ceil(),
            Side::Lower => e.floor(),
        };
        if !(v < 2f64.powi(MASS_BITS as i32)) {
            return Err(Error::Numerical(
                "PLD mass enclosure not finite or above the fixed-point range".into(),
            ));
        }
        Ok(to_u128(v))
    }
    /// Grid point i·h, enclosed. (`i as f64` is exact for |i| ≤ 2^53, which every table
    /// respects by far; beyond that the enclosure comes from the exact rational i·h instead of
    /// a rounded index.)
    pub(super) fn point(&self, i: i64) -> Interval {
        let x = i as f64;
        if x.abs() <= 2f64.powi(53) {
            point(x) * self.hf
        } else {
            rational(&(Rational::from(i) * &self.h))
        }
    }
}

/// ⌊v / 2^f⌋ (Lower) or ⌈v / 2^f⌉ (Upper) for v given by little-endian limbs, any f (the +∞
/// masses divide by 2^{F·m}); None if the quotient is not below 2^[`MASS_BITS`].
pub(super) fn shr_round(limbs: &[u64], f: u32, side: Side) -> Option<u128> {
    let q = shr_floor(limbs, f)?;
    let (w, s) = ((f / 64) as usize, f % 64);
    let rem = limbs.iter().take(w).any(|&l| l != 0)
        || (s > 0 && limbs.get(w).copied().unwrap_or(0) & ((1u64 << s) - 1) != 0);
    Some(if side == Side::Upper && rem { q + 1 } else { q })
}

/// (⌊v / 2^f⌋, v mod 2^f) for v given by little-endian limbs, f ≤ [`MAX_F`] (the fixed point's
/// F); None if the quotient is not below 2^[`MASS_BITS`], or for a larger f.
pub(super) fn shr_split(limbs: &[u64], f: u32) -> Option<(u128, u128)> {
    if f > MAX_F {
        return None;
    }
    let q = shr_floor(limbs, f)?;
    let get = |i: usize| limbs.get(i).copied().unwrap_or(0);
    let r = (get(0) as u128 | (get(1) as u128) << 64) & ((1u128 << f) - 1);
    Some((q, r))
}

/// ⌊v / 2^f⌋ for v given by little-endian limbs; None if it is not below 2^[`MASS_BITS`].
fn shr_floor(limbs: &[u64], f: u32) -> Option<u128> {
    // limbs past the end of the slice are the value's zero high limbs (GMP strips them)
    let get = |i: usize| limbs.get(i).copied().unwrap_or(0);
    let w = (f / 64) as usize;
    let s = f % 64;
    let q = if s == 0 {
        get(w) as u128 | (get(w + 1) as u128) << 64
    } else {
        (get(w) >> s) as u128 | (get(w + 1) as u128) << (64 - s) | (get(w + 2) as u128) << (128 - s)
    };
    let high = if s == 0 { w + 2 } else { w + 3 };
    let spill = s != 0 && get(w + 2) >> s != 0;
    if spill || limbs.iter().skip(high).any(|&l| l != 0) || q >= 1u128 << MASS_BITS {
        return None;
    }
    Some(q)
}

/// Enclosure of a fixed-point mass m·2^−F. (`lo ≤ hi` by construction, so the ENTIRE
/// fallback below is unreachable; it would be a widening anyway.)
pub(super) fn fixed_iv(m: u128, f: u32) -> Interval {
    let x = to_f64(m);
    let back = if x >= 2f64.powi(128) {
        u128::MAX
    } else {
        to_u128(x)
    };
    let (lo, hi) = if back == m {
        (x, x)
    } else if back > m {
        (x.next_down(), x)
    } else {
        (x, x.next_up())
    };
    let s = point((2f64).powi(-(f as i32)));
    Interval::try_from((lo, hi)).unwrap_or(Interval::ENTIRE) * s
}

pub(super) fn new_ctx(s: &Setup, side: Side, progress: bool) -> Result<Ctx> {
    // one progress line: the upper side reports, the lower side (on another thread) is silent
    let progress = progress && side == Side::Upper;
    // τ ≤ 10⁻³ and F ≤ 126, so ⌊τ·2^F⌋ < 2^117 fits; a τ that did not would be refused, not
    // replaced (a huge τ would truncate whole measures); a τ below one unit truncates one unit
    // (any τ is sound; zero would keep every far tail a product's rounding leaves)
    let tau = Rational::from(&s.tau << s.f)
        .floor()
        .numer()
        .to_u128()
        .filter(|&t| t < 1u128 << 124)
        .ok_or_else(|| Error::arg("tail", "above the fixed-point range"))?
        .max(1);
    // a budget beyond the fixed-point range is capped (any budget is sound: it only decides
    // which convolutions may use the FFT)
    let fft_budget = Rational::from(&s.fft_budget << s.f)
        .floor()
        .numer()
        .to_u128()
        .unwrap_or(0)
        .min(1u128 << 120);
    Ok(Ctx {
        h: s.h.clone(),
        hf: rational(&s.h),
        f: s.f,
        tau,
        // at least one unit, as `tau` (a τ below 2^−F truncates one unit)
        tau_f: s.tau.to_f64().max(RANGE_TAIL_FLOOR),
        fft_budget,
        side,
        progress,
        support: 0,
        fft_products: 0,
        delta: s.delta,
        target: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::fixed::Setup;
    use crate::theorems::pld_accountant::test_util::rational;
    use crate::theorems::pld_accountant::test_util::*;
    use rug::{Float, Integer};

    /// `carry_round_units` (its u64 path for F ≤ 63, `split_units` beyond) against the carry in
    /// exact integers: each entry x·2^F rounded to an integer on the side (⌈⌉ Upper, ⌊⌋ Lower; a
    /// negative entry counts 0), then one running carry of the part below 2^F in the side's order
    /// and, on the upper side, a last remainder rounded up into the last point. Entries of every
    /// scale — zeros, −1, subnormals, around 2^63 (the fast path's end), up to 2^100 — at F from 0
    /// to 126 ([`MAX_F`]). A path that dropped a remainder, rounded it the wrong way or skipped the carry over
    /// a zero differs here.
    #[test]
    fn carry_round_units_is_the_exact_carry() {
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
        for case in 0..440 {
            let f = [0u32, 1, 30, 52, 62, 63, 64, 100, 124, 125, MAX_F][case % 11];
            let n = 1 + (rng.next() % 300) as usize;
            let xs: Vec<f64> = (0..n)
                .map(|_| {
                    let mant = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                    match rng.next() % 8 {
                        0 => 0.0,
                        1 => -1.0,
                        2 => 5e-324 * (1 + rng.next() % 1000) as f64,
                        3 => (1.0 + mant) * (2f64).powi(62 + (rng.next() % 3) as i32 - 1),
                        4 => mant * (2f64).powi((rng.next() % 101) as i32),
                        _ => mant * (2f64).powi(f.min(60) as i32),
                    }
                })
                .collect();
            // keep entries below 2^127 (larger ones are an overflow error)
            for side in [Side::Upper, Side::Lower] {
                let got = carry_round_units(&xs, f, side).unwrap();
                let mut want = vec![Integer::new(); n];
                let mut carry = Integer::new();
                let order: Vec<usize> = match side {
                    Side::Upper => (0..n).collect(),
                    Side::Lower => (0..n).rev().collect(),
                };
                for k in order {
                    let v = Rational::from_f64(xs[k].max(0.0)).unwrap() << f;
                    let units = match side {
                        Side::Upper => v.ceil().numer().clone(),
                        Side::Lower => v.floor().numer().clone(),
                    };
                    let s = units + &carry;
                    want[k] = Integer::from(&s >> f);
                    carry = s - (Integer::from(&want[k]) << f);
                }
                if side == Side::Upper && carry > 0 {
                    want[n - 1] += 1;
                }
                for k in 0..n {
                    assert_eq!(
                        Integer::from(got[k]),
                        want[k],
                        "case {case}, F = {f}, {side:?}, entry {k} of {n}: x = {:e}",
                        xs[k]
                    );
                }
            }
        }
    }

    /// `to_f64` and `to_u128` against MPFR's correctly rounded conversions (53 bits, nearest;
    /// floor): around 2³², 2⁵³, 2⁶³, 2⁶⁴ (the fast paths' ends), ties to even, and pseudo-random
    /// values of every width. A fast path that rounded twice, or truncated, fails.
    #[test]
    fn conversions_are_the_correctly_rounded_ones() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut ms: Vec<u128> = vec![0, 1, (1 << 53) + 1, (1 << 53) + 3, (1 << 64) - 1, 1 << 64];
        for e in [32u32, 53, 54, 63, 64, 65, 100, 127] {
            for d in 0..4u128 {
                ms.push((1u128 << e) - d);
                ms.push((1u128 << e) + d);
            }
        }
        for _ in 0..20_000 {
            let w = rng.next() % 128;
            let m = ((u128::from(rng.next()) << 64) | u128::from(rng.next())) >> (127 - w);
            ms.push(m);
        }
        for m in ms {
            let want = Float::with_val(53, m).to_f64();
            assert_eq!(to_f64(m).to_bits(), want.to_bits(), "to_f64({m})");
            let x = to_f64(m);
            let floor = Float::with_val(128, x).floor().to_integer().unwrap();
            assert_eq!(Integer::from(to_u128(x)), floor, "to_u128({x:e})");
            // a fraction below: ⌊x − ¼⌋ where x − ¼ is exact (x < 2⁵¹)
            if x < 2f64.powi(51) && x >= 1.0 {
                assert_eq!(to_u128(x - 0.25), to_u128(x) - 1, "to_u128({x} − ¼)");
            }
        }
        assert_eq!((to_u128(-3.5), to_u128(f64::NAN)), (0, 0));
    }

    #[test]
    fn fixed_point_conversion_refuses_what_it_cannot_represent() {
        for side in [Side::Upper, Side::Lower] {
            let c = ctx("1", 100, 0, side);
            assert!(c.fixed(Interval::EMPTY).is_err());
            // ENTIRE: no upper bound exists (error); 0 is a lower bound of any mass
            match side {
                Side::Upper => assert!(c.fixed(Interval::ENTIRE).is_err()),
                Side::Lower => assert_eq!(c.fixed(Interval::ENTIRE).unwrap(), 0),
            }
            // a mass of 2^30 at F = 100 would need 130 bits: both sides refuse (the lower side
            // once clamped it to 2^126 silently)
            assert!(c.fixed(point(2f64.powi(30))).is_err());
            // at F = 126 masses are below 2 (2^127 units): 1.5 is kept, 2 refused
            let c126 = ctx("1", MAX_F, 0, side);
            assert_eq!(c126.fixed(point(1.5)).unwrap(), 3u128 << 125);
            assert!(c126.fixed(point(2.0)).is_err());
            assert_eq!(c.fixed(point(0.5)).unwrap(), 1u128 << 99);
            assert_eq!(c.fixed(point(-0.5)).unwrap(), 0);
            // masses between fixed-point steps round to this side: 2^−101 and 3·2^−101 at F = 100
            let (a, b) = (
                c.fixed(point(2f64.powi(-101))).unwrap(),
                c.fixed(point(3.0 * 2f64.powi(-101))).unwrap(),
            );
            match side {
                Side::Upper => assert_eq!((a, b), (1, 2)),
                Side::Lower => assert_eq!((a, b), (0, 1)),
            }
            // an enclosure [lo, hi] rounds from hi up, or from lo down
            let iv = Interval::try_from((0.25, 0.75)).unwrap();
            assert_eq!(
                c.fixed(iv).unwrap(),
                if side == Side::Upper {
                    3u128 << 98
                } else {
                    1u128 << 98
                }
            );
        }
        let mut m = u128::MAX - 1;
        assert!(add_mass(&mut m, 2).is_err());
        assert!(add_mass(&mut m, 1).is_ok());
    }

    /// Lemma One-carry: the carried rounding against the definition of the order it must keep. Upper:
    /// every tail sum Σ_{j≥k} of the result is at least the exact one (mass only moved up or
    /// added: ≽), and the total is less than one unit above the exact total; Lower: every tail
    /// sum at most the exact one (moved down or dropped: ≼), the total less than one unit below.
    /// Exact integers at scale 2^{2F}; a carry in the wrong direction, or a dropped final
    /// remainder on the upper side, fails. Also the prefix-sum form: Upper gives
    /// ⌊C_k/2^F⌋ − ⌊C_{k−1}/2^F⌋ (C the prefix sums) plus one at the end when C_{n−1} is not a
    /// multiple of 2^F.
    #[test]
    fn carried_rounding_keeps_the_order_within_one_unit() {
        use rug::Integer;
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for f in [64u32, 100, 124, MAX_F] {
            for n in [1usize, 2, 7, 300] {
                let parts: Vec<(u128, u128)> = (0..n)
                    .map(|i| {
                        // mostly sub-unit masses (a far tail), some whole units
                        let q = if i % 5 == 0 { rng.below(1000) } else { 0 };
                        (q, rng.below(1u128 << f))
                    })
                    .collect();
                let exact: Vec<Integer> = parts
                    .iter()
                    .map(|&(q, r)| (Integer::from(q) << f) + r)
                    .collect();
                let unit = Integer::from(1) << f;
                for side in [Side::Upper, Side::Lower] {
                    let out = carry_round(&parts, f, side).unwrap();
                    let (mut got_tail, mut want_tail) = (Integer::new(), Integer::new());
                    for k in (0..n).rev() {
                        got_tail += Integer::from(out[k]) << f;
                        want_tail += &exact[k];
                        match side {
                            Side::Upper => {
                                assert!(got_tail >= want_tail, "F = {f}, n = {n}: tail {k}")
                            }
                            Side::Lower => {
                                assert!(got_tail <= want_tail, "F = {f}, n = {n}: tail {k}")
                            }
                        }
                    }
                    let gap = Integer::from(&got_tail - &want_tail).abs();
                    assert!(gap < unit, "F = {f}, n = {n}, {side:?}: total off by {gap}");
                    if side == Side::Upper {
                        let mut c = Integer::new();
                        let mut prev = Integer::new();
                        for k in 0..n {
                            c += &exact[k];
                            let fl = Integer::from(&c >> f);
                            let mut want = Integer::from(&fl - &prev);
                            if k == n - 1 && Integer::from(&c % &unit) != 0 {
                                want += 1;
                            }
                            assert_eq!(Integer::from(out[k]), want, "F = {f}, n = {n}: point {k}");
                            prev = fl;
                        }
                    }
                }
            }
        }
        // a quotient that overflows is refused
        assert!(carry_round(
            &[(0, 1u128 << 63), (u128::MAX, 1u128 << 63)],
            64,
            Side::Upper
        )
        .is_err());
    }

    /// `Pending`: enclosures added per point, rounded with the carry. Dyadic masses (so that
    /// every f64 sum is exact) at F = 100: the result is the carried rounding of the exact
    /// per-point sums of the side's ends (sup, or inf raised to 0), and an empty enclosure is
    /// refused.
    #[test]
    fn pending_masses_are_the_carried_rounding_of_the_side_ends() {
        let f = 100u32;
        for side in [Side::Upper, Side::Lower] {
            let c = ctx("1", f, 0, side);
            let mut p = Pending::new(4, &c);
            let iv = |a: f64, b: f64| Interval::try_from((a, b)).unwrap();
            let u = 2f64.powi(-(f as i32));
            p.add(0, iv(0.25 * u, 0.75 * u)).unwrap();
            p.add(1, iv(-u, 0.5 * u)).unwrap();
            p.add(1, iv(2.0 * u, 2.25 * u)).unwrap();
            p.add(3, iv(0.125 * u, 0.375 * u)).unwrap();
            let out = p.round().unwrap();
            match side {
                // sups 0.75 | 2.75 | 0 | 0.375 units, upward: 0 (carry 0.75), 3 (carry 0.5),
                // 0 (carry 0.5), 0 with 0.875 left, rounded up into the last point
                Side::Upper => assert_eq!(out, vec![0, 3, 0, 1]),
                // infs 0.25 | 2 | 0 | 0.125 units (−u raised to 0), downward: 0.125 carried to
                // point 1 (2), its 0.125 to point 0, 0.375 left there and dropped
                Side::Lower => assert_eq!(out, vec![0, 2, 0, 0]),
            }
            let mut p = Pending::new(1, &c);
            assert!(p.add(0, Interval::EMPTY).is_err());
        }
    }

    #[test]
    fn grid_points_beyond_two_to_the_53_are_still_enclosed() {
        // (2^60 + 1)·2^−60 = 1 + 2^−60: `i as f64` would round the index to 2^60, i.e. to 1
        let c = ctx("1/1152921504606846976", 100, 0, Side::Upper);
        let i = (1i64 << 60) + 1;
        let exact = Float::with_val(P, Rational::from(i) * &c.h);
        let p = c.point(i);
        assert!(Float::with_val(P, p.inf()) <= exact && exact <= Float::with_val(P, p.sup()));
        assert!(p.inf() < p.sup());
        let q = c.point(-i);
        assert!(
            Float::with_val(P, q.inf()) <= -exact.clone() && -exact <= Float::with_val(P, q.sup())
        );
    }

    #[test]
    fn a_tail_beyond_the_fixed_point_range_is_refused() {
        let s = Setup {
            h: rational("1"),
            tau: rational("1"),
            f: 124,
            fft_budget: Rational::new(),
            terms: vec![],
            delta: 0.0,
        };
        assert!(new_ctx(&s, Side::Upper, false).is_err());
        let s = Setup {
            h: rational("1"),
            tau: rational("1/1000"),
            f: 124,
            fft_budget: Rational::new(),
            terms: vec![],
            delta: 0.0,
        };
        assert!(new_ctx(&s, Side::Upper, false).is_ok());
    }
}
