//! Convolution of fixed-point grid measures — exact (Kronecker substitution into one GMP
//! product) or by the FFT with every entry widened by its proven error bound in the side's
//! direction —, the directed rescaling to 2^F, tail truncation, and composition by repeated
//! squaring (`proofs-notes/pld_epsilon.md`, the lemmas Exact-convolution and FFT-bound).
use super::discretise::{discretize, Table};
use super::fft;
use super::fixed::Setup;
use super::fixed::{
    add_mass, carry_round, carry_round_units, mass_limit, new_ctx, shr_round, shr_split, to_f64,
    Ctx, GridPld, Side, MASS_BITS,
};
use super::grid::MAX_SUPPORT;
use super::power::{power_compose, POWER_MIN};
use super::reach;
use super::PldTerm;
use crate::{Error, Result};
use rug::integer::Order;
use rug::{Integer, Rational};

pub(super) fn total(m: &[u128]) -> Result<u128> {
    m.iter()
        .try_fold(0u128, |a, &x| a.checked_add(x))
        .ok_or_else(|| Error::Numerical("PLD total mass overflow".into()))
}

/// Shorter measures than this are convolved exactly (GMP is as fast there).
const FFT_MIN_LEN: usize = 256;

/// Longest FFT: 2^FFT_MAX_LOG2 points (memory: two 16-byte complex vectors per product, 128 MiB
/// at this length; longer products use GMP, as compact as before).
const FFT_MAX_LOG2: u32 = 22;

/// An FFT product's masses and what its widening may move.
struct FftMasses {
    mass: Vec<u128>,
    /// A bound on the mass the widening adds or drops in all, and the rounding (units).
    moved: u128,
    /// Upper's mass at and beyond the right cut, moved to +∞ (units; 0 without a cut).
    cut: u128,
    /// Accepted by the reach-weighted budget: truncate the right tail at τ alone.
    weighted: bool,
}

/// The finite masses of a ∗ b from the FFT (Lemma FFT-bound): with x, y the masses as f64 (rounded to
/// nearest: within a factor 1 ± u of the integers), ĉ the FFT estimate of x ∗ y and E its error
/// bound, the exact integer convolution c_k lies in [max(0, ĉ_k − E), ĉ_k + E]·[(1 + u)^−2,
/// (1 − u)^−2]; Upper takes upper end·2^−F, Lower lower end·2^−F (every operation pushed one
/// ulp outward), rounded to integers with one carry (`carry_round_units`). Also returns a bound on the mass the widening adds or drops in all. None
/// (exact products instead) for short measures, huge transforms, or when that mass, with E's
/// prior value, times `copies` would exceed the budget — unless, for a one-term composition,
/// the same mass weighted by how far each entry still reaches δ (`reach.rs`, a choice) stays
/// within it; then Upper cuts the right tail where its exact mass is ≤ τ (Lemma Tail-cut:
/// beyond the true tail the widening would leave E on every entry, which no truncation at τ
/// could move).
fn fft_masses(a: &GridPld, b: &GridPld, ctx: &Ctx, copies: &Integer) -> Result<Option<FftMasses>> {
    let (na, nb) = (a.mass.len(), b.mass.len());
    if ctx.fft_budget == 0 || na.min(nb) < FFT_MIN_LEN || fft::log2_len(na, nb) > FFT_MAX_LOG2 {
        return Ok(None);
    }
    let n = na + nb - 1;
    let same = std::ptr::eq(a, b);
    let load = |m: &[u128]| {
        let mut v = fft::zeros(m.len());
        for (v, &m) in v.iter_mut().zip(m) {
            *v = to_f64(m);
        }
        v
    };
    let x = load(&a.mass);
    let y = (!same).then(|| load(&b.mass));
    let bound = fft::error_bound(&x, y.as_deref());
    // (1 − u)^−2 ≤ 1 + 4u = 1 + 2^−51 and (1 + u)^−2 ≥ 1 − 2u = 1 − 2^−52, both exact in f64;
    // the factor 2^−F is exact too (F ≤ 126)
    let scale = (2f64).powi(-(ctx.f as i32));
    let k_hi = (1.0 + (2f64).powi(-51)) * scale;
    let k_lo = (1.0 - (2f64).powi(-52)) * scale;
    // what the widening by E can move: 2E per entry, and the rounding to integers, one unit in
    // all (`carry_round_units`): a width figure
    let moved = |e: f64| (fft::ulp_up((2.0 * e * k_hi).next_up() * n as f64) + 1.0).ceil();
    let budget = ctx.fft_budget as f64;
    let mut keep = (n, 0);
    let weighted = if moved(bound.prior()) * copies.to_f64() <= budget {
        false
    } else {
        // the weighted route: only entries below the product's τ-tail count (beyond it Upper
        // cuts exactly and Lower's entries, ĉ − E clamped at 0, lose at most their true mass)
        let Some(tails) = ctx.target.and_then(|_| Tails::new(a, b)) else {
            return Ok(None);
        };
        let tau_f = ctx.tau as f64 * (2f64).powi(ctx.f as i32);
        let k = tails.least_below(tau_f / 2.0, n);
        if !(reach_moved(a, b, ctx, bound.prior() * k_hi, k) * copies.to_f64() <= budget) {
            return Ok(None);
        }
        if ctx.side == Side::Upper {
            match tail_cut(&tails, k, n, ctx.tau, ctx.f) {
                Some(cut) => keep = cut,
                None => return Ok(None),
            }
        }
        true
    };
    // E from the computed spectrum: at most the prior one
    let (c, e) = fft::convolve(&x, y.as_deref(), &bound);
    fft::recycle(x);
    if let Some(y) = y {
        fft::recycle(y);
    }
    let moved = moved(e);
    // in place (c's buffer, from the pool, goes back to it)
    let mut ends = c;
    ends.truncate(keep.0);
    for v in ends.iter_mut() {
        if !v.is_finite() {
            return Err(Error::Numerical("PLD FFT estimate not finite".into()));
        }
        *v = match ctx.side {
            Side::Upper => ((*v + e).next_up().max(0.0) * k_hi).next_up(),
            Side::Lower => ((*v - e).next_down().max(0.0) * k_lo).next_down().max(0.0),
        };
    }
    let mass = carry_round_units(&ends, ctx.f, ctx.side)?;
    fft::recycle(ends);
    Ok(Some(FftMasses {
        mass,
        moved: moved as u128,
        cut: keep.1,
        weighted,
    }))
}

/// The widening's mass `e_units` per entry of a ∗ b weighted by how far each entry still
/// reaches δ (`reach::reach_weight`), times 2 (either side), plus one unit of rounding; +∞
/// (no weighted route) without a one-term model. A choice only.
fn reach_moved(a: &GridPld, b: &GridPld, ctx: &Ctx, e_units: f64, n: usize) -> f64 {
    let Some(t) = ctx.target else {
        return f64::INFINITY;
    };
    let h = ctx.h.to_f64();
    let first = |g: &GridPld| g.shift.to_f64() + g.off as f64 * h;
    let (ma, va) = reach::loss_moments(a, first(a), h);
    // a squaring's two operands are one measure: its moments once
    let (mb, vb) = if std::ptr::eq(a, b) {
        (ma, va)
    } else {
        reach::loss_moments(b, first(b), h)
    };
    let w = reach::reach_weight(&t, first(a) + first(b), h, n, ma + mb, va + vb);
    2.0 * e_units * w + 1.0
}

/// Σ_{k ≥ K} (a ∗ b)_k = Σ_i a_i·S_b(K − i), S_b the suffix sums of b: in floats ([`Tails::float`],
/// to choose K) and exactly ([`Tails::exact`], units of 2^−2F, u128 with every operation
/// checked; None on overflow).
struct Tails<'a> {
    a: &'a [u128],
    af: Vec<f64>,
    suf: Vec<u128>,
    suf_f: Vec<f64>,
}

impl<'a> Tails<'a> {
    fn new(a: &'a GridPld, b: &GridPld) -> Option<Tails<'a>> {
        let nb = b.mass.len();
        let mut suf = vec![0u128; nb + 1];
        for j in (0..nb).rev() {
            suf[j] = suf[j + 1].checked_add(b.mass[j])?;
        }
        Some(Tails {
            a: &a.mass,
            af: a.mass.iter().map(|&v| to_f64(v)).collect(),
            suf_f: suf.iter().map(|&v| to_f64(v)).collect(),
            suf,
        })
    }
    /// S_b's index for k − i (clamped to 0 ..= n_b, where S_b is the total and 0).
    fn at(&self, k: usize, i: usize) -> usize {
        k.saturating_sub(i).min(self.suf.len() - 1)
    }
    /// The first a-index that reaches k: i ≥ k − (n_b − 1).
    fn from(&self, k: usize) -> usize {
        (k + 2).saturating_sub(self.suf.len())
    }
    fn float(&self, k: usize) -> f64 {
        (self.from(k)..self.a.len())
            .map(|i| self.af[i] * self.suf_f[self.at(k, i)])
            .sum()
    }
    fn exact(&self, k: usize) -> Integer {
        let terms = self.from(k)..self.a.len();
        // u128 where no product or sum overflows, else in `Integer`
        terms
            .clone()
            .try_fold(0u128, |acc, i| {
                acc.checked_add(self.a[i].checked_mul(self.suf[self.at(k, i)])?)
            })
            .map_or_else(
                || {
                    terms
                        .map(|i| Integer::from(self.a[i]) * self.suf[self.at(k, i)])
                        .sum()
                },
                Integer::from,
            )
    }
    /// The least K whose float tail is at most `thr` (the tail falls with K), ≤ n.
    fn least_below(&self, thr: f64, n: usize) -> usize {
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.float(mid) <= thr {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }
}

/// Upper's right cut of a ∗ b (Lemma Tail-cut): from the float guess `k`, the first of a few
/// candidates whose exact tail T(K) is ≤ τ·2^F, and ⌈T(K)/2^F⌉ units, the mass moved to +∞.
/// None when no candidate verifies or a sum overflows (then exact products).
fn tail_cut(t: &Tails, k: usize, n: usize, tau: u128, f: u32) -> Option<(usize, u128)> {
    let thr = Integer::from(tau) << f;
    let mut k = k;
    for _ in 0..4 {
        let tail = t.exact(k);
        if tail <= thr {
            // ⌈T/2^F⌉ ≤ τ
            let units = -((-tail) >> f);
            return units.to_u128().map(|u| (k, u));
        }
        k += (n - k).div_ceil(8);
    }
    None
}

#[cfg(test)]
/// (a ∗ b) with masses rescaled to 2^F in the side's direction — exact, or by [`fft_masses`] —
/// and the mass the FFT's widening may have moved (0 if exact); +∞ mass
/// P[A = ∞]·P[B any] + P[A finite]·P[B = ∞], all terms non-negative.
pub(super) fn convolve(
    a: &GridPld,
    b: &GridPld,
    ctx: &Ctx,
    copies: &Integer,
) -> Result<(GridPld, u128)> {
    convolve_flagged(a, b, ctx, copies).map(|(c, moved, _)| (c, moved))
}

/// [`convolve`], and whether the reach-weighted budget admitted its FFT (then the right tail
/// is truncated at τ alone: see [`compose_pair`]).
fn convolve_flagged(
    a: &GridPld,
    b: &GridPld,
    ctx: &Ctx,
    copies: &Integer,
) -> Result<(GridPld, u128, bool)> {
    let f = ctx.f;
    if a.mass.is_empty() || b.mass.is_empty() {
        return Err(Error::Numerical(
            "PLD grid measure with no grid points".into(),
        ));
    }
    // every mass below 4 (value < 2^{F+2}; below 2 at F = 126, `mass_limit`) keeps each slot
    // of the packed product below 2^{2F+4+log₂ n}: the slot width below then rules out carries
    // between slots
    let limit = mass_limit(f);
    if a.mass
        .iter()
        .chain(&b.mass)
        .chain([&a.inf, &b.inf])
        .any(|&m| m >= limit)
    {
        return Err(Error::Numerical(
            "PLD mass above the fixed-point range (4, or 2 at 126 fraction bits)".into(),
        ));
    }
    let (mass, moved, cut, weighted) = match fft_masses(a, b, ctx, copies)? {
        Some(r) => (r.mass, r.moved, r.cut, r.weighted),
        None => (exact_masses(a, b, ctx)?, 0, 0, false),
    };
    let (ta, tb) = (total(&a.mass)?, total(&b.mass)?);
    let inf_exact = Integer::from(a.inf) * (Integer::from(tb) + b.inf) + Integer::from(ta) * b.inf;
    let mut inf = shr_round(&inf_exact.to_digits::<u64>(Order::Lsf), f, ctx.side)
        .ok_or_else(|| Error::Numerical("PLD convolution overflow".into()))?;
    add_mass(&mut inf, cut)?;
    let c = GridPld {
        shift: Rational::from(&a.shift + &b.shift),
        off: a
            .off
            .checked_add(b.off)
            .ok_or_else(|| Error::Numerical("PLD grid offset overflow".into()))?,
        mass,
        inf,
    };
    Ok((c, moved, weighted))
}

/// The finite masses of a ∗ b exactly: one GMP product of the packed masses (slots wide enough
/// that no carry crosses them), each slot rescaled by `shr_round`.
fn exact_masses(a: &GridPld, b: &GridPld, ctx: &Ctx) -> Result<Vec<u128>> {
    let f = ctx.f;
    // at least two limbs: `pack` writes each mass's two halves
    let l = (slot_bits(&a.mass, &b.mass, f).div_ceil(64) as usize).max(2);
    let pack = |m: &[u128]| {
        let mut d = vec![0u64; m.len() * l];
        for (i, &v) in m.iter().enumerate() {
            d[i * l] = v as u64;
            d[i * l + 1] = (v >> 64) as u64;
        }
        Integer::from_digits(&d, Order::Lsf)
    };
    let ia = pack(&a.mass);
    let prod = if std::ptr::eq(a, b) {
        ia.square()
    } else {
        ia * pack(&b.mass)
    };
    let digits = prod.to_digits::<u64>(Order::Lsf);
    let n = a.mass.len() + b.mass.len() - 1;
    let mut parts = Vec::with_capacity(n);
    for k in 0..n {
        // slots past the product's top limb are zero (GMP strips high zero limbs)
        let lo = (k * l).min(digits.len());
        let hi = ((k + 1) * l).min(digits.len());
        parts.push(
            shr_split(&digits[lo..hi], f)
                .ok_or_else(|| Error::Numerical("PLD convolution overflow".into()))?,
        );
    }
    // one carry through the product (Lemma One-carry): less than one unit of rounding in all
    let mass = carry_round(&parts, f, ctx.side)?;
    if mass.iter().any(|&m| m >= 1u128 << MASS_BITS) {
        return Err(Error::Numerical("PLD convolution overflow".into()));
    }
    Ok(mass)
}

/// Bits of one slot of [`exact_masses`]' packed product: every slot Σ_{i+j=k} a_i·b_j must stay
/// below 2^bits, so that no carry crosses into the next. Each mass is < 2^{F+2} (`convolve`
/// checks `mass_limit`), so a slot sums at most min(n_a, n_b) products < 2^{2F+4}; a slot is
/// also at most max(a)·Σb and Σa·max(b) — with measures of total mass about 1 (2^F units) that
/// is 2F + 2 bits, so F ≤ 63 packs two limbs per slot, where the count bound asks for three.
fn slot_bits(a: &[u128], b: &[u128], f: u32) -> u32 {
    let shorter = a.len().min(b.len()) as u64;
    let by_count = 2 * f + 4 + (64 - shorter.leading_zeros()) + 1;
    let bits = |v: u128| 128 - v.leading_zeros();
    // Σ as u128: None on overflow (then the count bound stands)
    let sum = |m: &[u128]| m.iter().try_fold(0u128, |s, &v| s.checked_add(v));
    let max = |m: &[u128]| m.iter().copied().max().unwrap_or(0);
    let by_mass = |x: &[u128], y: &[u128]| sum(y).map(|s| bits(max(x)) + bits(s));
    [by_mass(a, b), by_mass(b, a)]
        .into_iter()
        .flatten()
        .fold(by_count, u32::min)
}

/// Cut tails of mass ≤ tau: Upper moves the left tail up to the first kept point and the right
/// tail to +∞; Lower drops the left tail and moves the right tail down to the last kept point.
/// (Any tau is sound; it is τ, plus what an FFT's widening moved.)
pub(super) fn truncate(p: &mut GridPld, ctx: &Ctx, tau: u128) -> Result<()> {
    truncate_sides(p, ctx, tau, tau)
}

/// [`truncate`] with its own allowance for each tail.
fn truncate_sides(p: &mut GridPld, ctx: &Ctx, tau_left: u128, tau_right: u128) -> Result<()> {
    let m = &p.mass;
    if m.is_empty() {
        return Err(Error::Numerical(
            "PLD grid measure with no grid points".into(),
        ));
    }
    // tail sums stay ≤ τ; the tests saturate, so a huge mass is never taken for a small one
    let (mut lo, mut left) = (0usize, 0u128);
    while lo + 1 < m.len() && left.saturating_add(m[lo]) <= tau_left {
        left += m[lo];
        lo += 1;
    }
    let (mut hi, mut right) = (m.len() - 1, 0u128);
    while hi > lo && right.saturating_add(m[hi]) <= tau_right {
        right += m[hi];
        hi -= 1;
    }
    let mut kept = std::mem::take(&mut p.mass);
    kept.truncate(hi + 1);
    kept.drain(..lo);
    match ctx.side {
        Side::Upper => {
            add_mass(&mut kept[0], left)?;
            add_mass(&mut p.inf, right)?;
        }
        Side::Lower => {
            let last = kept.len() - 1;
            add_mass(&mut kept[last], right)?;
        }
    }
    // lo < len ≤ MAX_SUPPORT: the cast is exact
    p.off = p
        .off
        .checked_add(lo as i64)
        .ok_or_else(|| Error::Numerical("PLD grid offset overflow".into()))?;
    p.mass = kept;
    Ok(())
}

/// a ∗ b, truncated. `copies`: how many times the result enters the final composition (an
/// FFT's widening, like any added mass, is replicated that often: the FFT is used only when the
/// widening times `copies` stays within the budget).
pub(super) fn compose_pair(
    a: &GridPld,
    b: &GridPld,
    ctx: &mut Ctx,
    copies: &Integer,
) -> Result<GridPld> {
    if a.mass.len() + b.mass.len() > MAX_SUPPORT {
        return Err(Error::arg(
            "grid",
            format!("a composed PLD would exceed {MAX_SUPPORT} grid points; use a coarser --grid"),
        ));
    }
    let (mut c, moved, weighted) = convolve_flagged(a, b, ctx, copies)?;
    // a product the reach-weighted budget admitted carries E on entries far beyond its true
    // support: those on the left may move up (Upper) or be dropped (Lower) at little cost in
    // δ, those on the right were cut exactly (Upper) or are 0 (Lower), so τ alone there
    let left = ctx.tau.saturating_add(moved);
    truncate_sides(&mut c, ctx, left, if weighted { ctx.tau } else { left })?;
    ctx.support = ctx.support.max(c.mass.len());
    if moved > 0 {
        ctx.fft_products += 1;
    }
    Ok(c)
}

/// `k`-fold self-composition by repeated squaring.
pub(super) fn self_compose(
    base: GridPld,
    k: &Integer,
    ctx: &mut Ctx,
    label: &str,
) -> Result<GridPld> {
    let bits = k.significant_bits();
    let mut acc: Option<GridPld> = None;
    let mut sq = base;
    // the top POWER_MIN..2·POWER_MIN copies' worth of squarings in one spectral power
    let power_at = bits.checked_sub(POWER_MIN.trailing_zeros() + 1);
    for i in 0..bits {
        if power_at == Some(i) {
            let m = Integer::from(k >> i)
                .to_u32()
                .ok_or_else(|| Error::arg("count", "too large"))?;
            // it replaces bits − i − 1 squarings and up to bits − i products: their budgets
            let share = 2 * (bits - i);
            if let Some((mut c, moved)) = power_compose(&sq, m, acc.as_ref(), ctx, share)? {
                truncate(&mut c, ctx, ctx.tau.saturating_add(moved))?;
                ctx.support = ctx.support.max(c.mass.len());
                ctx.fft_products += 1;
                acc = Some(c);
                break;
            }
        }
        if ctx.side == Side::Upper {
            crate::progress::note(u64::from(i), u64::from(bits));
        }
        if ctx.progress {
            crate::progress::show(&format!("\r[pld] {label}: {}/{bits} squarings", i + 1));
        }
        if k.get_bit(i) {
            acc = Some(match acc {
                None => sq.clone(),
                Some(a) => compose_pair(&a, &sq, ctx, Integer::ONE)?,
            });
        }
        if i + 1 < bits {
            // the square (2^{i+1} copies) enters the result ⌊k / 2^{i+1}⌋ times
            sq = compose_pair(&sq, &sq, ctx, &Integer::from(k >> (i + 1)))?;
        }
    }
    if ctx.side == Side::Upper {
        crate::progress::note(u64::from(bits), u64::from(bits));
    }
    if ctx.progress {
        crate::progress::show("\n");
    }
    acc.ok_or_else(|| Error::arg("count", "must be a positive integer"))
}

/// Compose all terms on one side: discretise each, self-compose by its count, convolve.
pub(super) fn compose_side(
    terms: &[PldTerm],
    tabs: &[Table],
    s: &Setup,
    side: Side,
    progress: bool,
) -> Result<(GridPld, Ctx)> {
    let mut ctx = new_ctx(s, side, progress)?;
    let mut acc: Option<GridPld> = None;
    for (n, (t, tb)) in terms.iter().zip(tabs).enumerate() {
        let base = discretize(tb, &ctx)?;
        // a one-term ε(δ) composition has a float model: the FFT may then weigh its widening
        // by where it still reaches δ (`reach.rs`; a choice only)
        if terms.len() == 1 && ctx.delta > 0.0 && ctx.fft_budget > 0 {
            let h = ctx.h.to_f64();
            let first = base.shift.to_f64() + base.off as f64 * h;
            ctx.target = reach::target(&base, first, h, t.count.to_f64(), ctx.delta);
        }
        let label = format!(
            "{} side, term {}/{}",
            if side == Side::Upper {
                "upper"
            } else {
                "lower"
            },
            n + 1,
            terms.len()
        );
        let c = self_compose(base, &t.count, &mut ctx, &label)?;
        acc = Some(match acc {
            None => c,
            Some(a) => compose_pair(&a, &c, &mut ctx, Integer::ONE)?,
        });
    }
    let p = acc.ok_or_else(|| Error::arg("terms", "must not be empty"))?;
    Ok((p, ctx))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::fixed::{Target, MAX_F};
    use crate::theorems::pld_accountant::test_util::*;

    /// ⌊v/2^f⌋ or ⌈v/2^f⌉ of an exact integer.
    fn div_pow2(v: &Integer, f: u32, side: Side) -> Integer {
        let d = Integer::from(1) << f;
        match side {
            Side::Lower => <(Integer, Integer)>::from(v.div_rem_floor_ref(&d)).0,
            Side::Upper => <(Integer, Integer)>::from(v.div_rem_ceil_ref(&d)).0,
        }
    }

    #[test]
    fn shr_round_divides_exactly_and_refuses_overflow() {
        // F ≤ MAX_F for masses; the +∞ mass of a spectral power divides by 2^{F·m}
        for f in [64u32, 100, 124, MAX_F, 200, 1000] {
            for (v, lo, hi) in [
                (Integer::from(0), 0u128, 0u128),
                (Integer::from(1), 0, 1),
                (Integer::from(1) << f, 1, 1),
                ((Integer::from(5) << f) + 1u32, 5, 6),
                ((Integer::from(7) << f) - 1u32, 6, 7),
                // a remainder only above bit 127 (a remainder read from two limbs misses it)
                (
                    (Integer::from(5) << f) + (Integer::from(1) << (f - 10)),
                    5,
                    6,
                ),
                (
                    (Integer::from(1) << (f + 125)) + 3u32,
                    1 << 125,
                    (1 << 125) + 1,
                ),
                // the largest quotients (masses below 2^127 units)
                (
                    (Integer::from(3) << (f + 125)) + 3u32,
                    3 << 125,
                    (3 << 125) + 1,
                ),
            ] {
                let d = v.to_digits::<u64>(Order::Lsf);
                assert_eq!(shr_round(&d, f, Side::Lower), Some(lo), "{v} >> {f} down");
                assert_eq!(shr_round(&d, f, Side::Upper), Some(hi), "{v} >> {f} up");
                // quotient and remainder, exactly; only for a fixed point's F
                let rem = &v - (Integer::from(lo) << f);
                let want = (f <= MAX_F).then(|| (lo, rem.to_u128().unwrap()));
                assert_eq!(shr_split(&d, f), want, "{v} split at {f}");
            }
            // quotients ≥ 2^127 are refused, also when the excess sits in a higher limb
            for v in [
                Integer::from(1) << (f + MASS_BITS),
                (Integer::from(1) << (f + MASS_BITS)) - 1u32 + (Integer::from(1) << f),
                Integer::from(1) << (f + 200),
            ] {
                let d = v.to_digits::<u64>(Order::Lsf);
                assert_eq!(shr_round(&d, f, Side::Lower), None);
                assert_eq!(shr_round(&d, f, Side::Upper), None);
            }
        }
    }

    /// The packed product against the naive O(n·m) exact convolution, masses up to just below 4
    /// (the largest the slot width admits; 2 at F = 126), vectors of length 1 (single atoms) to
    /// 300, rounded
    /// by the carry (checked against its own definition in `fixed.rs`) in the prefix-sum form.
    #[test]
    fn convolution_equals_naive_exact_convolution() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        // 48 and 63: the two-limb slots of probability vectors (`slot_bits`)
        for f in [48u32, 63, 64, 100, 124, MAX_F] {
            let mut returned = 0;
            // kind 0: masses just below 4 (the largest the slot width admits); 1: any below 4;
            // 2: probability vectors (total ≤ 1), as in every real run
            for (na, nb, kind) in [
                (1usize, 1usize, 0),
                (1, 7, 1),
                (5, 3, 0),
                (300, 41, 1),
                (64, 64, 0),
                (1, 1, 2),
                (300, 41, 2),
                (1000, 1000, 2),
            ] {
                let (ma, mb) = (
                    draw_masses(&mut rng, na, kind, f),
                    draw_masses(&mut rng, nb, kind, f),
                );
                let (ia, ib) = (
                    draw_masses(&mut rng, 1, kind, f)[0],
                    draw_masses(&mut rng, 1, kind, f)[0],
                );
                let a = GridPld {
                    shift: Rational::new(),
                    off: -3,
                    mass: ma,
                    inf: ia,
                };
                let b = GridPld {
                    shift: Rational::new(),
                    off: 11,
                    mass: mb,
                    inf: ib,
                };
                for side in [Side::Upper, Side::Lower] {
                    let c = ctx("1/64", f, 0, side);
                    let want = carried_exact_convolution(&a, &b, f, side);
                    // a result mass ≥ 2^127 (possible only for total masses far above 1) is refused
                    let fits = want.iter().all(|w| *w < Integer::from(1) << MASS_BITS);
                    match convolve(&a, &b, &c, Integer::ONE) {
                        Ok((got, moved)) => {
                            assert_eq!(moved, 0, "exact products move nothing");
                            returned += 1;
                            assert!(fits, "F = {f}: an unrepresentable result was returned");
                            assert_eq!(got.off, 8);
                            let mut all: Vec<Integer> =
                                got.mass.iter().map(|&m| Integer::from(m)).collect();
                            all.push(Integer::from(got.inf));
                            assert_eq!(all, want, "F = {f}, lengths {na}·{nb}");
                        }
                        Err(e) => {
                            assert!(!fits && matches!(e, Error::Numerical(_)), "F = {f}: {e}")
                        }
                    }
                }
            }
            assert!(
                returned >= 6,
                "F = {f}: only {returned} convolutions were representable"
            );
        }
    }

    /// `n` random fixed-point masses at scale 2^f of one kind: 0, just below 4 (the largest
    /// the slot width admits; 2 at F = 126); 1, any below that; 2, each below 1/n (a
    /// probability vector).
    fn draw_masses(rng: &mut Rng, n: usize, kind: u32, f: u32) -> Vec<u128> {
        let limit = mass_limit(f);
        (0..n)
            .map(|_| match kind {
                0 => limit - 1 - rng.below(3),
                1 => rng.below(limit),
                _ => rng.below((1u128 << f) / n as u128),
            })
            .collect()
    }

    /// The naive O(n·m) exact convolution of two mass vectors, in integers at scale 2^{2F}.
    fn naive_exact_convolution(a: &[u128], b: &[u128]) -> Vec<Integer> {
        let (na, nb) = (a.len(), b.len());
        (0..na + nb - 1)
            .map(|k| {
                let mut s = Integer::new();
                for i in 0..na {
                    if k >= i && k - i < nb {
                        s += Integer::from(a[i]) * b[k - i];
                    }
                }
                s
            })
            .collect()
    }

    /// The exact convolution at scale 2^{2F} by one GMP product with 8 limbs (512 bits) per
    /// slot — room for any masses < 2^127 and any length — independent of `slot_bits`.
    fn packed_exact_convolution(a: &[u128], b: &[u128]) -> Vec<Integer> {
        let pack = |m: &[u128]| {
            let mut d = vec![0u64; m.len() * 8];
            for (i, &v) in m.iter().enumerate() {
                d[i * 8] = v as u64;
                d[i * 8 + 1] = (v >> 64) as u64;
            }
            Integer::from_digits(&d, Order::Lsf)
        };
        let digits = (pack(a) * pack(b)).to_digits::<u64>(Order::Lsf);
        (0..a.len() + b.len() - 1)
            .map(|k| {
                let lo = (k * 8).min(digits.len());
                let hi = (k * 8 + 8).min(digits.len());
                Integer::from_digits(&digits[lo..hi], Order::Lsf)
            })
            .collect()
    }

    /// The expected result of `convolve(a, b)` on `side`: the naive exact convolution rounded
    /// to scale 2^F by the carry in its prefix-sum form, followed by the exact +∞ mass
    /// a_∞·(T_b + b_∞) + T_a·b_∞ rounded to `side`.
    fn carried_exact_convolution(a: &GridPld, b: &GridPld, f: u32, side: Side) -> Vec<Integer> {
        let exact = naive_exact_convolution(&a.mass, &b.mass);
        // the carried rounding (Lemma One-carry) in its prefix-sum form: Upper,
        // ⌊C_k/2^F⌋ − ⌊C_{k−1}/2^F⌋ with C the prefix sums, and the last point
        // rounded up; Lower, the same with the suffix sums from the top
        let n = exact.len();
        let mut want = vec![Integer::new(); n];
        let (mut acc, mut prev) = (Integer::new(), Integer::new());
        for j in 0..n {
            let k = if side == Side::Upper { j } else { n - 1 - j };
            acc += &exact[k];
            let fl = Integer::from(&acc >> f);
            want[k] = Integer::from(&fl - &prev);
            prev = fl;
        }
        if side == Side::Upper && div_pow2(&acc, f, side) > prev {
            want[n - 1] += 1;
        }
        let ta: Integer = a.mass.iter().map(|&m| Integer::from(m)).sum();
        let tb: Integer = b.mass.iter().map(|&m| Integer::from(m)).sum();
        let inf = Integer::from(a.inf) * (tb + b.inf) + ta * b.inf;
        want.push(div_pow2(&inf, f, side));
        want
    }

    #[test]
    fn convolution_refuses_masses_outside_the_fixed_point_range() {
        let c = ctx("1/64", 64, 0, Side::Upper);
        let ok = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: vec![1, 2],
            inf: 0,
        };
        let big = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: vec![1u128 << 66],
            inf: 0,
        };
        let big_inf = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: vec![1],
            inf: 1u128 << 66,
        };
        let empty = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: vec![],
            inf: 0,
        };
        for bad in [&big, &big_inf, &empty] {
            assert!(matches!(
                convolve(&ok, bad, &c, Integer::ONE),
                Err(Error::Numerical(_))
            ));
            assert!(matches!(
                convolve(bad, &ok, &c, Integer::ONE),
                Err(Error::Numerical(_))
            ));
        }
        let far = GridPld {
            shift: Rational::new(),
            off: i64::MAX,
            mass: vec![1],
            inf: 0,
        };
        let far2 = GridPld {
            shift: Rational::new(),
            off: 1,
            mass: vec![1],
            inf: 0,
        };
        assert!(matches!(
            convolve(&far, &far2, &c, Integer::ONE),
            Err(Error::Numerical(_))
        ));
    }

    #[test]
    fn truncation_moves_tails_by_hand() {
        let p = GridPld {
            shift: Rational::new(),
            off: 10,
            mass: vec![1, 2, 3, 100, 4, 1],
            inf: 7,
        };
        // τ = 3: left tail {1, 2} (sum 3), right tail {1} (1 + 4 > 3)
        let mut up = p.clone();
        truncate(&mut up, &ctx("1", 64, 3, Side::Upper), 3).unwrap();
        assert_eq!((up.off, up.mass.clone(), up.inf), (12, vec![6, 100, 4], 8));
        let mut lo = p.clone();
        truncate(&mut lo, &ctx("1", 64, 3, Side::Lower), 3).unwrap();
        assert_eq!((lo.off, lo.mass.clone(), lo.inf), (12, vec![3, 100, 5], 7));
        // a single atom is kept whatever τ
        let mut one = GridPld {
            shift: Rational::new(),
            off: -5,
            mass: vec![2],
            inf: 0,
        };
        truncate(&mut one, &ctx("1", 64, 1000, Side::Upper), 1000).unwrap();
        assert_eq!((one.off, one.mass), (-5, vec![2]));
        // τ above everything: Upper keeps one point holding the left tail, sends the rest to +∞
        let mut all = p.clone();
        truncate(&mut all, &ctx("1", 64, 1000, Side::Upper), 1000).unwrap();
        assert_eq!((all.off, all.mass, all.inf), (15, vec![111], 7));
        let mut empty = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: vec![],
            inf: 0,
        };
        assert!(truncate(&mut empty, &ctx("1", 64, 3, Side::Upper), 3).is_err());
        // an overflowing move is an error, not a wrapped mass
        let mut over = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: vec![2, u128::MAX - 1],
            inf: 0,
        };
        assert!(truncate(&mut over, &ctx("1", 64, 3, Side::Upper), 3).is_err());
    }

    /// Masses shaped like a composed PLD: a bulk of total ≈ 1 and geometric tails over 60
    /// binades, at scale 2^F.
    fn pld_like(rng: &mut Rng, n: usize, f: u32) -> Vec<u128> {
        (0..n)
            .map(|i| {
                let d = (i as i64 - n as i64 / 3).unsigned_abs() as u32;
                let bits = f.saturating_sub(8 + 60 * d / n as u32);
                (rng.below(1u128 << bits.min(64)) << bits.saturating_sub(64)) / n as u128
            })
            .collect()
    }

    /// A [`pld_like`] grid PLD at loss 0, without +∞ mass.
    fn pld_grid(rng: &mut Rng, n: usize, f: u32) -> GridPld {
        GridPld {
            shift: Rational::new(),
            off: 0,
            mass: pld_like(rng, n, f),
            inf: 0,
        }
    }

    /// Lemma FFT-bound at the fixed-point level: against the unrounded exact product, the FFT's
    /// Upper mass at or above every point is never lower and its Lower mass never higher, each
    /// point within the per-entry widening it reports and the carry; on both sides most entries
    /// differ from the exact products' (the widening is in use).
    #[test]
    fn fft_masses_bracket_the_exact_masses() {
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        for f in [64u32, 100, 124, MAX_F] {
            for (na, nb, same) in [
                (300usize, 300usize, true),
                (2000, 700, false),
                (5000, 5000, true),
            ] {
                let a = pld_grid(&mut rng, na, f);
                let b = pld_grid(&mut rng, nb, f);
                let bref = if same { &a } else { &b };
                let wide = packed_exact_convolution(&a.mass, &bref.mass);
                for side in [Side::Upper, Side::Lower] {
                    let mut c = ctx("1/64", f, 0, side);
                    c.fft_budget = 1u128 << (f - 10);
                    let exact = exact_masses(&a, bref, &c).unwrap();
                    let r = fft_masses(&a, bref, &c, Integer::ONE)
                        .unwrap()
                        .expect("within the budget");
                    assert!(!r.weighted && r.cut == 0);
                    let (got, moved) = (r.mass, r.moved);
                    let per = moved / got.len() as u128;
                    eprintln!("F={f} {na} {side:?} per={per}");
                    // against the unrounded exact product S (scale 2^{2F}): each point within
                    // the widening per point, the conversion factor and two units (the carry
                    // moves at most one unit into and one out of a point), and every suffix
                    // (the mass at or above a loss) on the side's side of S's — the carried
                    // rounding moves mass to larger losses (Upper) or smaller ones (Lower),
                    // never the other way
                    let unit = Integer::from(1) << f;
                    let (mut sg, mut se) = (Integer::new(), Integer::new());
                    for (k, (&g, s)) in got.iter().zip(&wide).enumerate().rev() {
                        let slack = per + (Integer::from(s >> (f + 48))).to_u128().unwrap() + 2;
                        let d = Integer::from(g) * &unit - s;
                        assert!(
                            d.clone().abs() <= Integer::from(slack) * &unit,
                            "F = {f}, {na}·{nb} {side:?}, k = {k}: {g} vs exact {}",
                            Rational::from((s.clone(), unit.clone())).to_f64()
                        );
                        sg += Integer::from(g) * &unit;
                        se += s;
                        match side {
                            Side::Upper => assert!(sg >= se, "F = {f}, {na}·{nb} up, suffix {k}"),
                            Side::Lower => assert!(sg <= se, "F = {f}, {na}·{nb} down, suffix {k}"),
                        }
                    }
                    let inside = got.iter().zip(&exact).filter(|(g, e)| g != e).count();
                    // at F = 64 one unit 2^−64 exceeds E: the widening is then mostly invisible
                    assert!(
                        f == 64 || inside > got.len() / 2,
                        "F = {f}: the widening changed only {inside} entries"
                    );
                }
            }
        }
    }

    /// Lemma Tail-cut's sums: `Tails::exact(K)` is the exact product's mass at and above K
    /// (suffix sums of the naive convolution in `Integer`), for every K, on squares and on
    /// products of different lengths; `Tails::float` within 10⁻¹² of it relative.
    #[test]
    fn tail_sums_are_the_exact_suffix_sums() {
        let mut rng = Rng(0x7A11_5EED_0000_0001);
        // F = 124, 126: products overflow u128, so `exact` sums in `Integer`
        for (f, na, nb, same) in [
            (64, 40usize, 40usize, true),
            (64, 57, 23, false),
            (124, 9, 64, false),
            (124, 30, 30, true),
            (MAX_F, 30, 30, true),
        ] {
            let a = pld_grid(&mut rng, na, f);
            let b = if same {
                a.clone()
            } else {
                pld_grid(&mut rng, nb, f)
            };
            let naive = naive_exact_convolution(&a.mass, &b.mass);
            let t = Tails::new(&a, &b).unwrap();
            let mut suffix = Integer::new();
            for k in (0..=naive.len()).rev() {
                if k < naive.len() {
                    suffix += &naive[k];
                }
                assert_eq!(t.exact(k), suffix, "{na}·{nb}, K = {k}");
                let rel = (t.float(k) - suffix.to_f64()).abs() / suffix.to_f64().max(1.0);
                assert!(rel < 1e-12, "{na}·{nb}, K = {k}: float tail off by {rel}");
            }
        }
    }

    /// The reach-weighted route (Lemma Tail-cut with Lemma FFT-bound): with a budget the plain
    /// rule refuses and a model that puts ε far above the product, the FFT is used; Upper's
    /// kept masses plus its cut at +∞ have at least the exact mass at or above every point,
    /// the cut holds at least the exact mass beyond the kept points and at most τ; Lower's
    /// masses at or above every point are at most the exact ones. A cut that dropped or
    /// under-counted the tail, or a Lower that kept E, fails.
    #[test]
    fn weighted_fft_cuts_the_upper_tail_exactly() {
        let mut rng = Rng(0x0BAD_CAFE_1234_5678);
        for f in [64u32, 100] {
            for (na, nb, same) in [(600usize, 600usize, true), (3000, 900, false)] {
                let a = pld_grid(&mut rng, na, f);
                let b = (!same).then(|| pld_grid(&mut rng, nb, f));
                let bref = b.as_ref().unwrap_or(&a);
                let wide = packed_exact_convolution(&a.mass, &bref.mass);
                let unit = Integer::from(1) << f;
                for side in [Side::Upper, Side::Lower] {
                    let tau = 1u128 << (f - 56);
                    let mut c = ctx("1/64", f, tau, side);
                    c.fft_budget = 1;
                    c.target = Some(Target {
                        eps: 1e6,
                        mean: 0.0,
                        var: 1.0,
                    });
                    let r = fft_masses(&a, bref, &c, Integer::ONE)
                        .unwrap()
                        .expect("the weighted route");
                    assert!(r.weighted);
                    let kept = r.mass.len();
                    // the exact mass beyond the kept points (scale 2^{2F})
                    let beyond: Integer = wide[kept..].iter().sum();
                    match side {
                        Side::Upper => {
                            assert!(kept < wide.len(), "F = {f}, {na}·{nb}: no cut");
                            assert!(Integer::from(r.cut) * &unit >= beyond, "cut below the tail");
                            assert!(r.cut <= tau, "cut {} above τ = {tau}", r.cut);
                        }
                        Side::Lower => assert_eq!((kept, r.cut), (wide.len(), 0)),
                    }
                    let (mut sg, mut se) = (Integer::from(r.cut) * &unit, beyond);
                    for k in (0..kept).rev() {
                        sg += Integer::from(r.mass[k]) * &unit;
                        se += &wide[k];
                        match side {
                            Side::Upper => assert!(sg >= se, "F = {f}, {na}·{nb} up, suffix {k}"),
                            Side::Lower => assert!(sg <= se, "F = {f}, {na}·{nb} down, suffix {k}"),
                        }
                    }
                }
            }
        }
    }

    /// δ(ε) of a ρ-Gaussian composed k times: the Gaussian with ρk (Corollary 8's closed form,
    /// MPFR's erfc at 256 bits): Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), μ = √(2ρk).
    fn gaussian_delta(rho_k: f64, eps: f64) -> rug::Float {
        use rug::Float;
        let p = 256;
        let mu = Float::with_val(p, 2.0 * rho_k).sqrt();
        let e = Float::with_val(p, eps);
        let phi = |x: Float| Float::with_val(p, -x / Float::with_val(p, 2u32).sqrt()).erfc() / 2u32;
        let a = phi(-Float::with_val(p, &e / &mu) + Float::with_val(p, &mu / 2u32));
        let b = phi(-Float::with_val(p, &e / &mu) - Float::with_val(p, &mu / 2u32));
        a - Float::with_val(p, e.exp_ref()) * b
    }

    /// Composition with the FFT in use (Lemma FFT-bound) against Corollary 8: 1000 Gaussians of
    /// ρ = 1/800 on the grid 1/2048; both sides contain the exact δ, and the bracket is at most
    /// 4·10⁻⁸ wider than with exact products only (the budget's cost, 2·budget per convolution).
    #[test]
    fn fft_composition_brackets_corollary_8() {
        use super::super::discretise::table;
        use super::super::mechanisms::profile;
        use super::super::PldMechanism;
        let pr = profile(&PldMechanism::Gaussian {
            rho: rational("1/800"),
        });
        let k = Integer::from(1000);
        let run = |side: Side, budget: f64| {
            let mut c = ctx("1/2048", 100, 1 << 40, side);
            c.fft_budget = (budget * 2f64.powi(100)) as u128;
            let tb = table(&pr, &c, None).unwrap();
            let p = self_compose(discretize(&tb, &c).unwrap(), &k, &mut c, "").unwrap();
            (p, c)
        };
        let (up, cu) = run(Side::Upper, 1e-9);
        let (lo, cl) = run(Side::Lower, 1e-9);
        let (up0, cu0) = run(Side::Upper, 0.0);
        let (lo0, cl0) = run(Side::Lower, 0.0);
        assert!(
            cu.fft_products >= 2 && cl.fft_products >= 2,
            "the FFT was not used"
        );
        assert_eq!(cu0.fft_products + cl0.fft_products, 0);
        for eps in ["1/2", "1", "2", "3", "4", "5"] {
            let e = rational(eps);
            let exact = gaussian_delta(1.25, e.to_f64());
            let (u, l) = (grid_delta(&up, &cu, &e), grid_delta(&lo, &cl, &e));
            let (u0, l0) = (grid_delta(&up0, &cu0, &e), grid_delta(&lo0, &cl0, &e));
            assert!(
                l <= exact && exact <= u,
                "ε = {eps}: {l} ≤ {exact} ≤ {u} fails"
            );
            let extra = (rug::Float::with_val(256, &u - &l) - (u0 - l0)).to_f64();
            assert!(
                extra <= 4e-8,
                "ε = {eps}: the FFT widened the bracket by {extra}"
            );
        }
    }
}
