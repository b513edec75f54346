//! One mechanism on the grid: its material per half-cell (`table`, shared by both sides), then
//! the dominating split (Upper) or the dominated sweep (Lower) into a fixed-point grid measure
//! (`proofs-notes/pld_epsilon.md`, the lemmas Connect-the-dots and Merging-sweep).
use super::enclose::{point, rational};
use super::fixed::{add_mass, floor_index, new_ctx, Ctx, GridPld, Pending, Setup, Side};
use super::mechanisms::{profile, Mix, Profile, Tails};
use super::{Interval, PldMechanism, PldTerm};
use crate::num::{F64Interval, Real};
use crate::{Error, Result};
use rug::Rational;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many grid steps above its target the lower sweep looks for balancing material before
/// it moves a pool down instead (a width choice: a mass accumulating just below a grid point,
/// as the unsampled outputs of a subsampled Gaussian do, would otherwise be merged with
/// everything above it).
pub(super) const SWEEP_WINDOW: usize = 4;

/// Half-grid points from which a table's tails are evaluated on two threads: a
/// tail costs 2–6 µs (two Φ, one ln1p, one expm1 in interval arithmetic), a thread ~30 µs to
/// start, so from ~0.5 ms of work on the split pays (q = 0.01, σ = 4: 1325 points, ~7 ms, which
/// ran on one thread below the former 8192 while the table is the query's critical path).
const TAILS_SPLIT: usize = 256;
/// The points one thread takes at a time in a split table (~0.2 ms of tail evaluations).
const TAILS_CHUNK: usize = 64;

/// Largest |loss| a grid may reach (e^{700} is still a finite f64).
pub(super) const MAX_LOSS: f64 = 700.0;

/// Largest grid a single mechanism may span (memory guard: 16 bytes per point and side).
pub(super) const MAX_POINTS: usize = 2_000_000;

/// Cell masses from tails at its ends: the form subtracting the smaller tails.
pub(super) fn cell(lo: &Tails, hi: &Tails) -> (Interval, Interval) {
    (
        between(lo.p_gt, hi.p_gt, lo.p_le, hi.p_le),
        between(lo.q_gt, hi.q_gt, lo.q_le, hi.q_le),
    )
}

/// The mass between two thresholds from the tails above (`gt`) and at or below (`le`) each:
/// the difference of the smaller pair, clipped at 0.
fn between(gt_lo: Interval, gt_hi: Interval, le_lo: Interval, le_hi: Interval) -> Interval {
    let v = if gt_lo.sup() <= 0.5 {
        gt_lo - gt_hi
    } else {
        le_hi - le_lo
    };
    Interval::try_from((v.inf().max(0.0), v.sup().max(0.0))).unwrap_or(Interval::ENTIRE)
}

/// The offset of this mechanism's grid at width h: `Profile::shift` once h ≥
/// `Profile::shift_from` (a subsampled Gaussian's unsampled bulk then lies strictly inside a
/// cell next to 0 unless a grid point is put on it), else 0. Any value is sound.
pub(super) fn grid_shift(pr: &Profile, h: &Rational) -> Rational {
    if h.to_f64() >= pr.shift_from {
        pr.shift.clone()
    } else {
        Rational::new()
    }
}

/// Grid index range [i_min, i_max] (grid point i at loss shift + i·h) outside which the
/// continuous part has P-mass ≤ τ/4 on each side, and for a mixture-first pair Q-mass ≤ τ/4
/// below (a search: any range is sound, tails are charged to the side's rule). The Q-mass: a
/// mixture-first pair is the DP-SGD remove direction, whose table [`mirror`] turns into the add
/// direction's, that mass becoming its mass at +∞ (q = 1, σ = 0.8, 3 steps, δ = 10⁻³, τ = 10⁻⁸:
/// Q-mass 2.4·10⁻⁶ there, the upper end 3.5·10⁻⁴ too high; for q < 1 the support's end
/// ln(1 − q) usually comes first).
pub(super) fn range(pr: &Profile, ctx: &Ctx, tau: f64) -> Result<(i64, i64)> {
    let hf = ctx.h.to_f64();
    let shift = grid_shift(pr, &ctx.h);
    let (sh, shf) = (rational(&shift), shift.to_f64());
    let mut lo_i = i64::MAX;
    let mut hi_i = i64::MIN;
    for a in &pr.atoms {
        if let Some(z) = &a.loss {
            if !(z.to_f64().abs() <= MAX_LOSS) {
                return Err(far_from_private(z.to_f64().abs()));
            }
            let i = floor_index(&(Rational::from(z - &shift) / &ctx.h), "an atom's loss")?;
            lo_i = lo_i.min(i);
            hi_i = hi_i.max(i.saturating_add(1));
        }
    }
    if let Some(t) = &pr.tails {
        let eval = |i: i64| t(sh + ctx.point(i));
        let mid = |x: Interval| 0.5 * (x.inf() + x.sup());
        // right end: smallest i with P[Z > ih] ≤ τ/4
        let find = |start: f64, dir: f64, ok: &dyn Fn(i64) -> bool| -> i64 {
            let mut i = (start / hf).round() as i64;
            let mut step = 1i64.max((pr.spread / hf) as i64);
            // saturating: a spread far beyond the grid (σ → 0) must not overflow the search;
            // the range check below then refuses the mechanism
            while !ok(i) && ((i as f64) * hf).abs() <= 2.0 * MAX_LOSS {
                i = i.saturating_add((dir as i64).saturating_mul(step));
                step = step.saturating_mul(2);
            }
            // bisect back between i − dir·step/2 … i
            let (mut good, mut bad) = (i, i.saturating_sub((dir as i64) * (step / 2)));
            while good.abs_diff(bad) > 1 {
                let m = good / 2 + bad / 2 + (good % 2 + bad % 2) / 2;
                if ok(m) {
                    good = m
                } else {
                    bad = m
                }
            }
            good
        };
        let start = if pr.support.0.is_finite() {
            pr.support.0
        } else if pr.support.1.is_finite() {
            pr.support.1
        } else {
            0.0
        };
        let r = find(start - shf, 1.0, &|i| mid(eval(i).p_gt) <= tau / 4.0);
        let q_too = pr.mix.as_ref().is_some_and(|m| m.p_is_mix);
        let l = find(start - shf, -1.0, &|i| {
            let t = eval(i);
            mid(t.p_le) <= tau / 4.0 && (!q_too || mid(t.q_le) <= tau / 4.0)
        });
        // (f64 → i64 casts saturate; an index that far out fails the reach check below)
        let r = if pr.support.1.is_finite() {
            r.min((((pr.support.1 - shf) / hf).ceil() as i64).saturating_add(1))
        } else {
            r
        };
        let l = if pr.support.0.is_finite() {
            l.max((((pr.support.0 - shf) / hf).floor() as i64).saturating_sub(1))
        } else {
            l
        };
        lo_i = lo_i.min(l);
        hi_i = hi_i.max(r);
    }
    // e^{a} must stay finite in f64 for the cell formulas
    let reach = (shf + lo_i as f64 * hf)
        .abs()
        .max((shf + hi_i as f64 * hf).abs());
    if !(reach <= MAX_LOSS) {
        return Err(far_from_private(reach));
    }
    Ok((lo_i, hi_i.max(lo_i + 1)))
}

pub(super) fn far_from_private(reach: f64) -> Error {
    Error::arg(
        "terms",
        format!("a mechanism's privacy loss reaches {reach:.0} (the PLD grid covers |loss| ≤ {MAX_LOSS}); such a mechanism is far from private — use the closed-form routes"),
    )
}

/// One mechanism's material on the grid, shared by both sides: half-cell masses
/// (continuous part plus off-grid atoms), atoms on grid points and at +∞, and the
/// continuous mass beyond each end.
#[derive(Clone)]
pub(super) struct Table {
    /// The mechanism's grid offset: grid point i at loss shift + i·h.
    pub(super) shift: Rational,
    pub(super) i0: i64,
    pub(super) n: usize,
    /// e^{a_i} at the grid points, enclosed.
    pub(super) y: Vec<Interval>,
    pub(super) half_cells: Vec<(Interval, Interval)>,
    pub(super) on_grid: Vec<(usize, Interval)>,
    pub(super) at_inf: Vec<Interval>,
    pub(super) below: Interval,
    pub(super) above: Interval,
    /// The Q-mass of the continuous part below the first and above the last grid point.
    pub(super) below_q: Interval,
    pub(super) above_q: Interval,
    /// No atoms: the material is the continuous part's alone (what [`mirror`] needs).
    pub(super) atom_free: bool,
    /// The grid width h.
    pub(super) h: Rational,
    /// The continuous part's tails at the half-grid points (empty for tables read off another
    /// table): what a table on the grid h/m (m ≥ 2 an integer) may reuse ([`table`]).
    pub(super) tails: Vec<Tails>,
    /// The mechanism, when [`tables`] made the table (a table is reused only for the same one).
    pub(super) mechanism: Option<PldMechanism>,
    /// An atom-free [`Mix`] pair's structure and its component R's mass per half-cell (what
    /// [`split_up`] uses instead of subtracting the P- and Q-masses).
    pub(super) mix: Option<(Mix, Vec<Interval>)>,
}

/// `i` as an index into a table of `len` slots; anything else is refused (an atom moved to
/// another slot would move its mass to another loss, possibly the unsafe way).
pub(super) fn slot(i: Option<i64>, len: usize) -> Result<usize> {
    match i {
        Some(i) if i >= 0 && (i as u64) < len as u64 => Ok(i as usize),
        _ => Err(Error::Numerical(
            "PLD atom outside its mechanism's grid range".into(),
        )),
    }
}

/// e^{a_i} at the grid points a_i = shift + i·h, i = i0 … i0 + n − 1, enclosed (h from `ctx`).
fn grid_exp(shift: &Rational, i0: i64, n: usize, ctx: &Ctx) -> Vec<Interval> {
    let sh = rational(shift);
    (0..n)
        .map(|i| (sh + ctx.point(i0 + i as i64)).exp())
        .collect()
}

/// The table of one mechanism on the grid of `ctx`. `prev`: a table of the same mechanism on the
/// grid m·h (m ≥ 2 an integer) with the same offset, whose tails at its half-grid points (every
/// m-th half-grid point here) are taken instead of evaluated again (they enclose the tails at the
/// same exact points); a table on any other grid is not read.
pub(super) fn table(pr: &Profile, ctx: &Ctx, prev: Option<&Table>) -> Result<Table> {
    let (i0, i1) = range(pr, ctx, ctx.tau_f)?;
    let shift = grid_shift(pr, &ctx.h);
    // i0 < i1 (from `range`); the width in i128 cannot overflow and is range-checked before the cast
    let width = i1 as i128 - i0 as i128 + 1;
    if width > MAX_POINTS as i128 {
        return Err(Error::arg("grid", format!("one mechanism would need {width} grid points (at most {MAX_POINTS}); use a coarser --grid")));
    }
    let n = width as usize;
    let atoms = place_atoms(pr, ctx, &shift, i0, n)?;
    let tails = half_grid_tails(pr, ctx, &shift, i0, n, prev)?;
    let nb = tails.len();
    // material of half-cell j (continuous part + off-grid atoms in it)
    let mut half_cells: Vec<(Interval, Interval)> = (0..nb - 1)
        .map(|j| cell(&tails[j], &tails[j + 1]))
        .collect();
    for (j, p, q) in atoms.in_cells {
        let c = &mut half_cells[j];
        c.0 = c.0 + p;
        c.1 = c.1 + q;
    }
    let below = tails[0].p_le;
    let above = tails[nb - 1].p_gt;
    let (below_q, above_q) = (tails[0].q_le, tails[nb - 1].q_gt);
    let y = grid_exp(&shift, i0, n, ctx);
    let mix = pr
        .mix
        .filter(|_| pr.atoms.is_empty() && pr.tails.is_some())
        .map(|m| {
            let r = tails
                .windows(2)
                .map(|t| between(t[0].r_gt, t[1].r_gt, t[0].r_le, t[1].r_le))
                .collect();
            (m, r)
        });
    Ok(Table {
        shift,
        i0,
        n,
        y,
        half_cells,
        on_grid: atoms.on_grid,
        at_inf: atoms.at_inf,
        below,
        above,
        below_q,
        above_q,
        atom_free: pr.atoms.is_empty(),
        h: ctx.h.clone(),
        tails: if pr.tails.is_some() { tails } else { vec![] },
        mechanism: None,
        mix,
    })
}

/// Where a profile's atoms go on the grid of `ctx` (offset `shift`, points i0 … i0 + n − 1).
struct PlacedAtoms {
    /// (point index, P-mass): atoms exactly on a grid point.
    on_grid: Vec<(usize, Interval)>,
    /// P-masses at +∞.
    at_inf: Vec<Interval>,
    /// (half-cell index, P-mass, Q-mass): atoms strictly inside a half-cell, folded into it.
    in_cells: Vec<(usize, Interval, Interval)>,
}

/// Atoms: on the grid exactly, at +∞, or folded into the half-cell holding them (with their
/// Q-mass e^{−z}·P enclosed).
fn place_atoms(
    pr: &Profile,
    ctx: &Ctx,
    shift: &Rational,
    i0: i64,
    n: usize,
) -> Result<PlacedAtoms> {
    let mut placed = PlacedAtoms {
        on_grid: Vec::new(),
        at_inf: Vec::new(),
        in_cells: Vec::new(),
    };
    let half_h = Rational::from(&ctx.h / 2u32);
    for a in &pr.atoms {
        match &a.loss {
            None => placed.at_inf.push(a.p),
            Some(z) => {
                let t = Rational::from(z - shift) / &ctx.h;
                if t.is_integer() {
                    let i = floor_index(&t, "an atom's loss")?;
                    placed.on_grid.push((slot(i.checked_sub(i0), n)?, a.p));
                } else {
                    // half-cell j = (b_j, b_{j+1}] with b_j = shift + i0·h + j·h/2
                    let u = (Rational::from(z - shift) - Rational::from(i0) * &ctx.h) / &half_h;
                    let j = floor_index(&(-u), "an atom's loss")?;
                    let q = a.p * (-rational(z)).exp();
                    // j = ⌈u⌉ − 1 = −⌊−u⌋ − 1 must name one of the 2(n − 1) half-cells
                    placed.in_cells.push((
                        slot(j.checked_neg().and_then(|x| x.checked_sub(1)), 2 * (n - 1))?,
                        a.p,
                        q,
                    ));
                }
            }
        }
    }
    Ok(placed)
}

/// The continuous part's tails at the half-grid points b_j = shift + i0·h + j·h/2,
/// j = 0 … 2(n − 1) (zeros when there is none), taking `prev`'s where it has them.
fn half_grid_tails(
    pr: &Profile,
    ctx: &Ctx,
    shift: &Rational,
    i0: i64,
    n: usize,
    prev: Option<&Table>,
) -> Result<Vec<Tails>> {
    let nb = 2 * (n - 1) + 1;
    let Some(t) = &pr.tails else {
        let zero = Tails::plain(point(0.0), point(0.0), point(0.0), point(0.0));
        return Ok(vec![zero; nb]);
    };
    let half = point(0.5) * ctx.hf;
    let sh = rational(shift);
    // a previous table on a grid m times as coarse (m ≥ 2 an integer): its half-grid point k
    // lies at loss shift + (2·i0_prev + k)·m·h/2, this table's half-grid point j at
    // shift + (2·i0 + j)·h/2, so they coincide when 2·i0 + j = m·(2·i0_prev + k)
    let reuse = prev.and_then(|p| {
        let m = Rational::from(&p.h / &ctx.h);
        let m = (!p.tails.is_empty() && p.shift == *shift && m.denom() == &1u32 && m >= 2)
            .then(|| m.numer().to_i64())??;
        Some((p, m))
    });
    let known = |j: usize| -> Option<Tails> {
        let (p, m) = reuse?;
        let at = i0.checked_mul(2)?.checked_add(i64::try_from(j).ok()?)?;
        if at.rem_euclid(m) != 0 {
            return None;
        }
        let k = at.div_euclid(m).checked_sub(p.i0.checked_mul(2)?)?;
        usize::try_from(k)
            .ok()
            .and_then(|k| p.tails.get(k).copied())
    };
    let eval = |js: std::ops::Range<usize>| -> Vec<Tails> {
        js.map(|j| known(j).unwrap_or_else(|| t(sh + ctx.point(i0) + point(j as f64) * half)))
            .collect()
    };
    // a table of at least TAILS_SPLIT points on two threads (`join`), each taking the next
    // TAILS_CHUNK points until none are left — a thread that starts late (a new thread can wait
    // milliseconds on its parent's CPU here: the table once ran serially for that) takes fewer;
    // the same evaluations, so the same enclosures, put back in order
    if nb >= TAILS_SPLIT {
        let next = AtomicUsize::new(0);
        let work = || {
            let mut done = Vec::new();
            loop {
                let start = next.fetch_add(TAILS_CHUNK, Ordering::Relaxed);
                if start >= nb {
                    return done;
                }
                done.push((start, eval(start..(start + TAILS_CHUNK).min(nb))));
            }
        };
        let (mut a, b) = super::join(work, work)?;
        a.extend(b);
        a.sort_unstable_by_key(|c| c.0);
        Ok(a.into_iter().flat_map(|c| c.1).collect())
    } else {
        Ok(eval(0..nb))
    }
}

/// The table of the reversed pair (Q, P) — loss −Z — read off the table of (P, Q), without
/// evaluating a tail: grid offset −shift, points a′_i = −a_{n−1−i}, half-cell j of the reversed
/// pair = half-cell 2(n−1)−1−j of this one with its P- and Q-mass swapped, the masses beyond the
/// ends exchanged likewise (Lemma Reversed-pair of `pld_epsilon.md`: P′[Z′ ∈ (b′_j, b′_{j+1}]] =
/// Q[Z ∈ [b_{m−1−j}, b_{m−j})], equal to the half-open cell's mass when P and Q have no atoms —
/// refused otherwise). The DP-SGD add direction is the remove direction reversed.
pub(super) fn mirror(tb: &Table, ctx: &Ctx) -> Result<Table> {
    if !tb.atom_free || !tb.on_grid.is_empty() || !tb.at_inf.is_empty() {
        return Err(Error::Numerical(
            "PLD table with atoms cannot be mirrored".into(),
        ));
    }
    let n = tb.n;
    // i0 ≥ −2^62 and n ≤ MAX_POINTS in every table; checked anyway
    let i0 = tb
        .i0
        .checked_add(n as i64 - 1)
        .and_then(i64::checked_neg)
        .ok_or_else(|| Error::Numerical("PLD grid offset overflow".into()))?;
    let shift = Rational::from(-&tb.shift);
    let y = grid_exp(&shift, i0, n, ctx);
    let half_cells = tb.half_cells.iter().rev().map(|&(p, q)| (q, p)).collect();
    // the reversed pair (Q, P) of P = (1 − r)Q + rR has Q′ = (1 − r)P′ + rR, and vice versa
    let mix = tb.mix.as_ref().map(|(m, r)| {
        let m = Mix {
            rate: m.rate,
            p_is_mix: !m.p_is_mix,
        };
        (m, r.iter().rev().copied().collect())
    });
    Ok(Table {
        shift,
        i0,
        n,
        y,
        half_cells,
        on_grid: vec![],
        at_inf: vec![],
        below: tb.above_q,
        above: tb.below_q,
        below_q: tb.above,
        above_q: tb.below,
        atom_free: true,
        h: tb.h.clone(),
        tails: vec![],
        mechanism: None,
        mix,
    })
}

/// The table on the grid `factor` times coarser (`factor` even; `ctx` on that grid), read off
/// this one without evaluating a tail: the same offset, coarse points a′_I = shift + I·F·h for
/// I from ⌈i0/F⌉ to ⌈(i0 + n − 1)/F⌉, each coarse half-cell the union of F consecutive
/// half-cells (their enclosures summed; none beyond this table's last point, whose mass is in
/// `above` already), the half-cells below the first coarse point added to `below` (Lemma Coarser-grid of
/// `pld_epsilon.md`). Refused for tables with atoms.
pub(super) fn coarsen(tb: &Table, factor: u32, ctx: &Ctx) -> Result<Table> {
    let overflow = || Error::Numerical("PLD grid offset overflow".into());
    if !tb.atom_free
        || !tb.on_grid.is_empty()
        || !tb.at_inf.is_empty()
        || factor < 2
        || !factor.is_multiple_of(2)
    {
        return Err(Error::Numerical(
            "PLD table with atoms (or an odd factor) cannot be coarsened".into(),
        ));
    }
    let f = i64::from(factor);
    // i0 ≥ −2^62 and n ≤ MAX_POINTS in every table; checked anyway
    let last = tb.i0.checked_add(tb.n as i64 - 1).ok_or_else(overflow)?;
    let i0c = tb.i0.checked_add(f - 1).ok_or_else(overflow)?.div_euclid(f);
    let i1c = last
        .checked_add(f - 1)
        .ok_or_else(overflow)?
        .div_euclid(f)
        .max(i0c + 1);
    let n = (i1c - i0c + 1) as usize;
    // fine half-grid index of the first coarse point: 2(F·I0 − i0) ≥ 0
    let j0 = 2 * (i0c * f - tb.i0) as usize;
    let len = tb.half_cells.len();
    let step = factor as usize;
    // fine half-cells a ≤ j < b, clipped to the table (none beyond its last point); coarse
    // half-cell k is span(j0 + k·F, j0 + (k + 1)·F)
    let span = |a: usize, b: usize| a.min(len)..b.min(len);
    let coarse = |k: usize| span(j0 + k * step, j0 + (k + 1) * step);
    let sum = |r: std::ops::Range<usize>| {
        tb.half_cells[r]
            .iter()
            .fold((point(0.0), point(0.0)), |(p, q), &(a, b)| (p + a, q + b))
    };
    let (lp, lq) = sum(span(0, j0));
    let half_cells = (0..2 * (n - 1)).map(|k| sum(coarse(k))).collect();
    let mix = tb.mix.as_ref().map(|(m, r)| {
        let sum_r = |k: usize| r[coarse(k)].iter().fold(point(0.0), |s, &x| s + x);
        (*m, (0..2 * (n - 1)).map(sum_r).collect())
    });
    Ok(Table {
        shift: tb.shift.clone(),
        i0: i0c,
        n,
        y: grid_exp(&tb.shift, i0c, n, ctx),
        half_cells,
        on_grid: vec![],
        at_inf: vec![],
        below: tb.below + lp,
        above: tb.above,
        below_q: tb.below_q + lq,
        above_q: tb.above_q,
        atom_free: true,
        h: ctx.h.clone(),
        tails: vec![],
        mechanism: None,
        mix,
    })
}

/// The table of each term on the grid of `s`; `prev`: the same terms' tables on a grid m·h (m ≥ 2
/// an integer), if any (their tails are reused, see [`table`]).
pub(super) fn tables(terms: &[PldTerm], s: &Setup, prev: Option<&[Table]>) -> Result<Vec<Table>> {
    let ctx = new_ctx(s, Side::Upper, false)?;
    terms
        .iter()
        .enumerate()
        .map(|(n, t)| {
            let same = prev
                .and_then(|p| p.get(n))
                .filter(|p| p.mechanism.as_ref() == Some(&t.mechanism));
            let mut tb = table(&profile(&t.mechanism), &ctx, same)?;
            tb.mechanism = Some(t.mechanism.clone());
            Ok(tb)
        })
        .collect()
}

/// [`mirror`] of each table, on the grid of `s`.
pub(super) fn mirror_tables(tabs: &[Table], s: &Setup) -> Result<Vec<Table>> {
    let ctx = new_ctx(s, Side::Upper, false)?;
    tabs.iter().map(|t| mirror(t, &ctx)).collect()
}

/// Discretise one copy of the mechanism onto the grid, dominating (Upper) or dominated (Lower).
pub(super) fn discretize(tb: &Table, ctx: &Ctx) -> Result<GridPld> {
    let mut mass = Pending::new(tb.n, ctx);
    let mut inf = 0u128;
    for &(i, p) in &tb.on_grid {
        mass.add(i, p)?;
    }
    for &p in &tb.at_inf {
        add_mass(&mut inf, ctx.fixed(p)?)?;
    }
    match ctx.side {
        Side::Upper => {
            mass.add(0, tb.below)?;
            add_mass(&mut inf, ctx.fixed(tb.above)?)?;
            split_up(tb, ctx, &mut mass)?;
        }
        Side::Lower => sweep_down(tb, &mut mass)?,
    }
    Ok(GridPld {
        shift: tb.shift.clone(),
        off: tb.i0,
        mass: mass.round()?,
        inf,
    })
}

/// Upper (connect the dots, Lemma Connect-the-dots): each cell's P- and Q-mass (p, q) split between its two
/// end points a_c, a_{c+1} so that both masses are kept: α = (e^{a_{c+1}}q − p)/(e^h − 1) at a_c and
/// the rest p − α at a_{c+1}. Emitted: a lower end ℓ of α (≥ 0) at a_c and p's upper end − ℓ at
/// a_{c+1} — the exact split with α − ℓ moved up by h and p's enclosure width added on top, so
/// the cell adds no mass beyond that width (rounding α up at a_c and p − α up at a_{c+1}, the rule
/// before, added both quotients' widths, ~u/h per cell, which compounded over the copies: the
/// substitution pair at σ = 700 and h = 3.6·10⁻⁷, 10⁻³ per copy, 4·10⁷ after 14063). For a
/// [`Mix`] pair α's numerator is also enclosed through the component's mass (Lemma
/// Mixture-split) and the intersection is kept.
fn split_up(tb: &Table, ctx: &Ctx, mass: &mut Pending) -> Result<()> {
    let half_cells = &tb.half_cells;
    let ehm1 = F64Interval(ctx.hf).expm1().0;
    for c in 0..tb.n - 1 {
        let (p, q) = (
            half_cells[2 * c].0 + half_cells[2 * c + 1].0,
            half_cells[2 * c].1 + half_cells[2 * c + 1].1,
        );
        if p.sup() <= 0.0 {
            continue;
        }
        let y1 = tb.y[c + 1];
        let mut low = y1 * q - p;
        if let Some((m, r)) = &tb.mix {
            low = low.intersection(mix_numerator(m, y1, p, q, r[2 * c] + r[2 * c + 1]));
        }
        let alpha = low / ehm1;
        if alpha.is_empty() {
            return Err(Error::Numerical("PLD cell split enclosure is empty".into()));
        }
        let least = point(alpha.inf().max(0.0));
        mass.add(c, least)?;
        mass.add(c + 1, p - least)?;
    }
    Ok(())
}

/// Lemma Mixture-split: e^{a₁}q − p (y_k = e^{a_k}, k = 0, 1) for a [`Mix`] pair, from the
/// cell's component mass `rc` and the one law that is not the mixture. P = (1 − r)Q + rR:
/// (e^{a₁} − 1 + r)q − r·rc; Q = (1 − r)P + rR: ((1 − r)(e^{a₁} − 1) − r)p + e^{a₁}r·rc. Near
/// the bulk the coefficients of the cell masses are of the order of r and of the loss itself, not
/// 1, so the masses' enclosure errors enter scaled down by as much.
fn mix_numerator(m: &Mix, y1: Interval, p: Interval, q: Interval, rc: Interval) -> Interval {
    let (one, r) = (point(1.0), m.rate);
    if m.p_is_mix {
        (y1 - one + r) * q - r * rc
    } else {
        ((one - r) * (y1 - one) - r) * p + y1 * r * rc
    }
}

/// A pool of material (target grid slot t, P-mass, Q-mass) awaiting emission at a_t.
type Pool = (usize, Interval, Interval);

/// Lower (the sweep, Lemma Merging-sweep): a pool of material at or below its target grid point t is
/// balanced with material above t until its loss is at least a_t, then emitted at a_t; a pool
/// not balanced within SWEEP_WINDOW grid steps above a_t is emitted at the highest grid point
/// at or below its loss ("flushed").
fn sweep_down(tb: &Table, mass: &mut Pending) -> Result<()> {
    let y = |i: usize| tb.y[i];
    let mut pool: Option<Pool> = None;
    for (j, &(p, q)) in tb.half_cells.iter().enumerate() {
        if p.sup() <= 0.0 {
            continue;
        }
        let tj = (j + 2) / 2; // smallest grid point ≥ b_{j+1}
        let Some((t, pp, pq)) = pool else {
            pool = Some((tj, p, q));
            continue;
        };
        if tj == t {
            pool = Some((t, pp + p, pq + q));
            continue;
        }
        if j >= 2 * (t + SWEEP_WINDOW) {
            // no balance within the window above a_t: flush, start afresh
            flush(tb, (t, pp, pq), mass)?;
            pool = Some((tj, p, q));
            continue;
        }
        let yt = y(t);
        let ep = pp - yt * pq;
        let av = p - yt * q;
        let need = (-ep.inf()).max(0.0);
        if av.inf() > 0.0 && need <= av.inf() {
            let beta = (need / av.inf() * (1.0 + 1e-12)).min(1.0);
            let b = point(beta);
            if (ep + b * av).inf() >= 0.0 {
                mass.add(t, pp + b * p)?;
                let rest = point(1.0) - b;
                pool = Some((tj, rest * p, rest * q));
                continue;
            }
        }
        // not enough: absorb the whole half-cell and keep the target
        pool = Some((t, pp + p, pq + q));
    }
    if let Some(pl) = pool {
        flush(tb, pl, mass)?;
    }
    Ok(())
}

/// Emit a pool at the highest grid slot s ≤ t where its loss is at least a_s, i.e. where
/// pp − e^{a_s}·pq ≥ 0 is certified; a pool with no such slot is dropped (a sub-measure).
fn flush(tb: &Table, pool: Pool, mass: &mut Pending) -> Result<()> {
    let (t, pp, pq) = pool;
    // emitting at s is valid whenever pp − y(s)·pq ≥ 0 (certified); that predicate
    // falls as s rises (y increases, pq ≥ 0), so bisect for the highest such s ≤ t
    // (a linear scan made repeated flushes quadratic: 29 s at σ = 1e29); every s
    // the bisection keeps satisfies the predicate, monotone or not
    let ok = |s: usize| (pp - tb.y[s] * pq).inf() >= 0.0;
    let s = if ok(t) {
        Some(t)
    } else if ok(0) {
        let (mut good, mut bad) = (0usize, t);
        while bad - good > 1 {
            let m = good + (bad - good) / 2;
            if ok(m) {
                good = m
            } else {
                bad = m
            }
        }
        Some(good)
    } else {
        None
    };
    if let Some(s) = s {
        mass.add(s, pp)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::test_util::rational;
    use crate::theorems::pld_accountant::test_util::*;
    use crate::theorems::pld_accountant::PldMechanism;
    use rug::Float;

    /// The split table (two threads taking 64 points at a time) holds, at every half-grid point
    /// and in order, exactly the tails evaluated there one by one: a chunk put back in the wrong
    /// place, lost or evaluated twice fails here (599 points: ten chunks).
    #[test]
    fn split_table_tails_are_the_pointwise_tails_in_order() {
        let pr = profile(&PldMechanism::SubsampledGaussian {
            sigma: rational("4"),
            rate: rational("1/100"),
            direction: crate::theorems::pld_accountant::Direction::Remove,
        });
        let c = ctx("1/4096", 63, 1 << 20, Side::Upper);
        let (shift, i0, n) = (rational("-3/1000"), -50i64, 300usize);
        let got = half_grid_tails(&pr, &c, &shift, i0, n, None).unwrap();
        let t = pr.tails.as_ref().unwrap();
        let half = point(0.5) * c.hf;
        assert_eq!(got.len(), 2 * n - 1);
        let bits = |x: Interval| (x.inf().to_bits(), x.sup().to_bits());
        for (j, g) in got.iter().enumerate() {
            let w = t(super::rational(&shift) + c.point(i0) + point(j as f64) * half);
            for (a, b) in [
                (g.p_gt, w.p_gt),
                (g.q_gt, w.q_gt),
                (g.p_le, w.p_le),
                (g.q_le, w.q_le),
                (g.r_gt, w.r_gt),
                (g.r_le, w.r_le),
            ] {
                assert_eq!(bits(a), bits(b), "half-grid point {j}");
            }
        }
    }

    /// Two enclosures of the same exact value overlap, and `a` is at most `slack` times as wide as
    /// `b` (a table read off another against the one evaluated directly).
    fn same_value(a: Interval, b: Interval, slack: f64, what: &str) {
        assert!(
            a.inf() <= b.sup() && b.inf() <= a.sup(),
            "{what}: {a:?} and {b:?} are disjoint"
        );
        let (wa, wb) = (a.sup() - a.inf(), b.sup() - b.inf());
        assert!(wa <= slack * wb + 1e-300, "{what}: {a:?} looser than {b:?}");
    }

    /// The mirrored remove table against the add direction's own table (its tails evaluated
    /// directly): on every half-cell both share, the P- and the Q-mass enclosures overlap (both
    /// contain the exact mass) and the mirror's is no looser; likewise e^{a_i}. A mirror that forgot to swap P
    /// and Q, or to reverse, fails. Tables with atoms are refused.
    #[test]
    fn mirrored_remove_table_is_the_add_table() {
        use super::super::Direction;
        use crate::theorems::pld_accountant::mechanisms::profile;
        for (q, sg, h) in [
            ("1/100", "4/5", "1/1024"),
            ("3/10", "2", "1/512"),
            ("1/1000", "1", "1/8192"),
        ] {
            let c = ctx(h, 100, 1 << 40, Side::Upper);
            let mech = |direction| PldMechanism::SubsampledGaussian {
                sigma: rational(sg),
                rate: rational(q),
                direction,
            };
            let rem = table(&profile(&mech(Direction::Remove)), &c, None).unwrap();
            let add = table(&profile(&mech(Direction::Add)), &c, None).unwrap();
            let mir = mirror(&rem, &c).unwrap();
            assert_eq!(mir.shift, add.shift, "q = {q}: the offsets differ");
            // the mirror (a) is no looser than the direct evaluation (b)
            let close = |a: Interval, b: Interval, what: &str| {
                same_value(a, b, 4.0, &format!("q = {q}, σ = {sg}: {what}"))
            };
            let mut shared = 0;
            for (jm, &(pm, qm)) in mir.half_cells.iter().enumerate() {
                let jd = jm as i64 + 2 * (mir.i0 - add.i0);
                if jd < 0 || jd as usize >= add.half_cells.len() {
                    continue;
                }
                let (pd, qd) = add.half_cells[jd as usize];
                if pd.sup() < 1e-200 {
                    continue;
                }
                close(pm, pd, &format!("P of half-cell {jd}"));
                close(qm, qd, &format!("Q of half-cell {jd}"));
                // the mixture component's mass, reversed with the cells; Q is now the mixture
                let (Some((mm, rm)), Some((md, rd))) = (&mir.mix, &add.mix) else {
                    panic!("q = {q}: the mixture structure was lost");
                };
                assert!(
                    !mm.p_is_mix && !md.p_is_mix,
                    "q = {q}: the add pair's Q is the mixture"
                );
                close(rm[jm], rd[jd as usize], &format!("R of half-cell {jd}"));
                shared += 1;
            }
            assert!(shared > 100, "q = {q}: only {shared} half-cells compared");
            for (im, &ym) in mir.y.iter().enumerate() {
                let id = im as i64 + mir.i0 - add.i0;
                if id >= 0 && (id as usize) < add.n {
                    close(ym, add.y[id as usize], "e^a");
                }
            }
        }
        let atoms: Atoms = vec![(Some(rational("1/4")), 0.5), (None, 0.5)];
        let c = ctx("1/4", 100, 0, Side::Upper);
        let tb = table(&atoms_profile(&atoms), &c, None).unwrap();
        assert!(mirror(&tb, &c).is_err());
    }

    /// The coarsened table against the table evaluated directly on the grid 4× coarser (same
    /// offset): on every shared half-cell the P- and Q-mass enclosures overlap (both contain
    /// the exact mass) and the coarsened one is at most 16× as wide; e^{a_I} likewise; the
    /// coarsened material still sums to an enclosure of 1 (P and Q). A coarse cell assembled
    /// from the wrong fine half-cells (one off) fails. Tables with atoms are refused.
    #[test]
    fn coarsened_table_is_the_coarse_grid_table() {
        use super::super::Direction;
        use crate::theorems::pld_accountant::mechanisms::profile;
        for (q, sg, h, h4, dir) in [
            ("1/100", "4/5", "1/1024", "1/256", Direction::Remove),
            ("1/100", "4/5", "1/1024", "1/256", Direction::Add),
            ("3/10", "2", "1/512", "1/128", Direction::Add),
            ("1/1000", "1", "1/8192", "1/2048", Direction::Remove),
        ] {
            let (c, c4) = (
                ctx(h, 100, 1 << 40, Side::Upper),
                ctx(h4, 100, 1 << 40, Side::Upper),
            );
            let pr = profile(&PldMechanism::SubsampledGaussian {
                sigma: rational(sg),
                rate: rational(q),
                direction: dir,
            });
            let fine = table(&pr, &c, None).unwrap();
            let direct = table(&pr, &c4, None).unwrap();
            let co = coarsen(&fine, 4, &c4).unwrap();
            assert_eq!(co.shift, direct.shift, "q = {q}: the offsets differ");
            let close = |a: Interval, b: Interval, what: &str| {
                same_value(a, b, 16.0, &format!("q = {q}, σ = {sg}: {what}"))
            };
            let mut shared = 0;
            for (jc, &(pc, qc)) in co.half_cells.iter().enumerate() {
                let jd = jc as i64 + 2 * (co.i0 - direct.i0);
                if jd < 0 || jd as usize >= direct.half_cells.len() {
                    continue;
                }
                let (pd, qd) = direct.half_cells[jd as usize];
                // coarse cells reaching past the fine table's last point hold only part of
                // their material (the rest is in `above`)
                let end = 2 * (co.i0 * 4 - fine.i0) as usize + (jc + 1) * 4;
                if pd.sup() < 1e-200 || end > fine.half_cells.len() {
                    continue;
                }
                close(pc, pd, &format!("P of half-cell {jd}"));
                close(qc, qd, &format!("Q of half-cell {jd}"));
                // the mixture component's mass (Lemma Mixture-split), summed alike
                let (Some((mc, rc)), Some((md, rd))) = (&co.mix, &direct.mix) else {
                    panic!("q = {q}: the mixture structure was lost");
                };
                assert_eq!(mc.p_is_mix, md.p_is_mix);
                close(rc[jc], rd[jd as usize], &format!("R of half-cell {jd}"));
                shared += 1;
            }
            assert!(shared > 50, "q = {q}: only {shared} half-cells compared");
            for (ic, &yc) in co.y.iter().enumerate() {
                let id = ic as i64 + co.i0 - direct.i0;
                if id >= 0 && (id as usize) < direct.n {
                    close(yc, direct.y[id as usize], "e^a");
                }
            }
            let (tp, tq) = co.half_cells.iter().fold(
                (co.below + co.above, co.below_q + co.above_q),
                |(p, q), &(a, b)| (p + a, q + b),
            );
            assert!(tp.inf() <= 1.0 && 1.0 <= tp.sup() + 1e-12, "P total {tp:?}");
            assert!(tq.inf() <= 1.0 && 1.0 <= tq.sup() + 1e-12, "Q total {tq:?}");
        }
        let atoms: Atoms = vec![(Some(rational("1/4")), 0.5), (None, 0.5)];
        let c = ctx("1/4", 100, 0, Side::Upper);
        let tb = table(&atoms_profile(&atoms), &c, None).unwrap();
        assert!(coarsen(&tb, 4, &ctx("1", 100, 0, Side::Upper)).is_err());
    }

    /// A table on the grid h/m (m = 2, 3, 4) that reuses the h table's tails against one
    /// evaluated afresh: at least 1/(m + 1) of its tails are the h table's (bitwise), and every
    /// half-cell's P- and Q-mass enclosures overlap the fresh ones and are no wider than twice
    /// theirs. Reusing the tails of a shifted point (k one off) fails; a table of the same grid,
    /// or of a grid 3/2 times as coarse, is not read (the result is the fresh one).
    #[test]
    fn a_finer_table_reuses_the_coarser_tails() {
        use super::super::Direction;
        use crate::theorems::pld_accountant::mechanisms::profile;
        for (q, sg, h, h2, m, dir) in [
            ("1/100", "4/5", "1/1024", "1/2048", 2, Direction::Remove),
            ("3/10", "2", "1/512", "1/1024", 2, Direction::Add),
            ("1/100", "4/5", "1/1024", "1/4096", 4, Direction::Remove),
            ("3/10", "2", "1/512", "1/1536", 3, Direction::Add),
        ] {
            let (c, c2) = (
                ctx(h, 100, 1 << 40, Side::Upper),
                ctx(h2, 100, 1 << 40, Side::Upper),
            );
            let pr = profile(&PldMechanism::SubsampledGaussian {
                sigma: rational(sg),
                rate: rational(q),
                direction: dir,
            });
            let coarse = table(&pr, &c, None).unwrap();
            let fresh = table(&pr, &c2, None).unwrap();
            let reused = table(&pr, &c2, Some(&coarse)).unwrap();
            assert_eq!((reused.i0, reused.n), (fresh.i0, fresh.n));
            let same = reused
                .tails
                .iter()
                .filter(|t| {
                    coarse
                        .tails
                        .iter()
                        .any(|u| u.p_gt == t.p_gt && u.q_le == t.q_le)
                })
                .count();
            assert!(
                (m + 1) * same >= reused.tails.len(),
                "h/{m}: only {same} tails reused"
            );
            for (j, (&(pr_, qr), &(pf, qf))) in
                reused.half_cells.iter().zip(&fresh.half_cells).enumerate()
            {
                for (a, b) in [(pr_, pf), (qr, qf)] {
                    same_value(a, b, 2.0, &format!("q = {q}: half-cell {j}"));
                }
            }
            // a table of the same grid is not reused (only h/m reuses h)
            let again = table(&pr, &c, Some(&coarse)).unwrap();
            assert_eq!(again.half_cells.len(), coarse.half_cells.len());
            // nor on a grid 2h/3: a non-integer ratio reads nothing (the fresh table, bitwise)
            let c23 = ctx(
                &format!("{}", rational(h) * Rational::from((2, 3))),
                100,
                1 << 40,
                Side::Upper,
            );
            let (f23, r23) = (
                table(&pr, &c23, None).unwrap(),
                table(&pr, &c23, Some(&coarse)).unwrap(),
            );
            assert!(f23
                .half_cells
                .iter()
                .zip(&r23.half_cells)
                .all(|(a, b)| a.0 == b.0 && a.1 == b.1));
        }
    }

    #[test]
    fn an_atom_on_a_grid_point_is_placed_exactly_on_both_sides() {
        let atoms: Atoms = vec![
            (Some(rational("3/4")), 0.5),
            (Some(rational("-1/4")), 0.25),
            (None, 0.125),
        ];
        let (up, lo) = check_domination(&atoms, "1/4", 1e-25);
        for g in [&up, &lo] {
            let at = |z: i64| g.mass[(z - g.off) as usize];
            assert_eq!(
                (at(3), at(-1), g.inf),
                (1u128 << 99, 1u128 << 98, 1u128 << 97)
            );
            assert_eq!(g.mass.iter().sum::<u128>(), 3u128 << 98);
        }
    }

    #[test]
    fn a_single_atom_off_the_grid_is_split_up_and_merged_down() {
        // loss z = 0.3 between a_1 = 0.25 and a_2 = 0.5 (h = 1/4); P-mass ½
        let atoms: Atoms = vec![(Some(rational("0.3")), 0.5)];
        let (up, lo) = check_domination(&atoms, "1/4", 0.5);
        // Lower: the whole atom at a_1 (merge is impossible, so the pool is moved down)
        let at = |g: &GridPld, i: i64| g.mass.get((i - g.off) as usize).copied().unwrap_or(0);
        assert_eq!(
            (at(&lo, 1), lo.mass.iter().sum::<u128>()),
            (1u128 << 99, 1u128 << 99)
        );
        // Upper: p_a = p(e^{−z} − e^{−b})/(e^{−a} − e^{−b}) at a, the rest at b (MPFR reference);
        // the kernel emits a lower end of p_a at a and the rest of p's upper end at b, so a is at
        // most p_a and b at least p − p_a, each within 10⁻¹⁴ relative (f64 intervals)
        let (z, a, b) = (
            Float::with_val(P, &rational("0.3")),
            Float::with_val(P, 0.25),
            Float::with_val(P, 0.5),
        );
        let em = |x: &Float| Float::with_val(P, -x.clone()).exp();
        let pa = Float::with_val(P, 0.5) * (em(&z) - em(&b)) / (em(&a) - em(&b));
        let pb = Float::with_val(P, 0.5) - pa.clone();
        let scale = Float::with_val(P, 1) >> 100u32;
        for (got, want, up_side) in [(at(&up, 1), pa, false), (at(&up, 2), pb, true)] {
            let g = Float::with_val(P, got) * &scale;
            let gap = Float::with_val(P, &g - &want).abs();
            assert!(
                (if up_side { g >= want } else { g <= want })
                    && gap <= Float::with_val(P, &want * 1e-14),
                "{g} vs {want}"
            );
        }
    }

    #[test]
    fn masses_accumulating_below_a_grid_point() {
        // five atoms just below a_4 = 1 (h = 1/4), as the unsampled outputs of a subsampled
        // Gaussian sit just below 0; plus a balancing atom beyond the sweep window (far) or
        // within it (near)
        let below: Vec<(Option<Rational>, f64)> = (1..=5)
            .map(|k| {
                (
                    Some(Rational::from(1) - Rational::from((k, 1_000_000_000u64))),
                    0.125,
                )
            })
            .collect();
        let mut far = below.clone();
        far.push((Some(rational("3.6")), 0.125)); // 10.4 grid steps above a_4
        let (_, lo) = check_domination(&far, "1/4", 0.7);
        // beyond the window the pool is flushed down to a_3 whole, never merged with the far atom
        let at = |g: &GridPld, i: i64| g.mass.get((i - g.off) as usize).copied().unwrap_or(0);
        assert_eq!(at(&lo, 3), 5u128 << 97);
        assert_eq!(at(&lo, 14), 1u128 << 97);
        let mut near = below.clone();
        near.push((Some(rational("1.6")), 0.125)); // 2.4 steps above a_4: balances the pool
        let (_, lo) = check_domination(&near, "1/4", 0.7);
        // a fraction β of the near atom lifts the pool to a_4 exactly: mass at a_4 ≥ ⅝
        assert!(
            at(&lo, 4) >= 5u128 << 97 && at(&lo, 3) == 0,
            "{:?}",
            lo.mass
        );
    }

    #[test]
    fn huge_and_tiny_grid_steps_still_dominate() {
        let atoms: Atoms = vec![
            (Some(rational("0.3")), 0.25),
            (Some(rational("-0.3")), 0.125),
            (Some(rational("1.7")), 0.0625),
            (None, 0.0625),
        ];
        // h = 8 puts every atom in one cell around 0; h = 10⁻⁵ resolves them
        check_domination(&atoms, "8", 1.0);
        check_domination(&atoms, "1/65536", 2e-5);
    }

    /// A continuous mechanism (Gaussian PLD, ρ = 1/2) discretised on a coarse and a fine grid,
    /// against Corollary 8 at 256 bits: domination at grid points and midpoints.
    #[test]
    fn gaussian_discretisation_dominates_corollary_8() {
        let rho = rational("1/2");
        let pr = profile(&PldMechanism::Gaussian { rho: rho.clone() });
        let gauss = |e: &Rational| {
            let (rr, ee) = (Float::with_val(P, &rho), Float::with_val(P, e));
            let s = Float::with_val(P, &rr * 2u32).sqrt();
            let phi =
                |x: Float| Float::with_val(P, -x / Float::with_val(P, 2u32).sqrt()).erfc() / 2u32;
            phi(Float::with_val(P, &rr - &ee) / &s)
                - Float::with_val(P, ee.exp_ref()) * phi(Float::with_val(P, -rr.clone() - &ee) / &s)
        };
        for (h, width) in [("1/2", 0.2), ("1/1024", 1e-5)] {
            let (up, cu) = disc(&pr, h, Side::Upper);
            let (lo, cl) = disc(&pr, h, Side::Lower);
            for k in 0..20 {
                let e = Rational::from((k, 4));
                let exact = gauss(&e);
                let (u, l) = (grid_delta(&up, &cu, &e), grid_delta(&lo, &cl, &e));
                assert!(
                    l <= exact && exact <= u,
                    "h = {h}, ε = {e}: {l} ≤ {exact} ≤ {u} fails"
                );
                assert!(
                    Float::with_val(P, &u - &l) <= width,
                    "h = {h}, ε = {e}: width"
                );
            }
        }
    }

    /// Lemmas Connect-the-dots and Mixture-split: the upper discretisation of a subsampled
    /// Gaussian (remove, add, and add read off the remove table by `mirror`) against the exact
    /// split of the exact cell masses (256-bit MPFR straight from Φ at the thresholds). At every
    /// bulk point the upper measure's mass at and above it is at least the exact split's (a split
    /// that moves mass down fails: α's upper end emitted at a_c instead of its lower end falls
    /// short by 3·10⁻¹⁴). Tight: the total mass exceeds 1 by at most 10⁻¹¹ (measured 3·10⁻¹³;
    /// rounding both quotients up, the rule before, added 1.9·10⁻¹⁰ over the bulk alone), the
    /// excess at a point is at most 2·10⁻¹² (4·10⁻¹³) and the mean shift Σ excess·h at most
    /// 3·10⁻¹⁴ (0.9–1.5·10⁻¹⁴); the plain split of the same table (`mix` dropped) must shift at
    /// least 20× more (measured 36–59×), so the test fails if the mixture form stops paying.
    #[test]
    fn mixture_split_dominates_the_exact_split_and_is_tight() {
        use super::super::Direction;
        use crate::theorems::pld_accountant::mechanisms::profile;
        let (q, sg, h) = (rational("256/60000"), rational("11/10"), "1/16384");
        let c = ctx(h, 100, 1 << 40, Side::Upper);
        let exact = ExactPair {
            qf: Float::with_val(P, &q),
            sf: Float::with_val(P, &sg),
            kind: Kind::Remove,
        };
        let mech = |direction| PldMechanism::SubsampledGaussian {
            sigma: sg.clone(),
            rate: q.clone(),
            direction,
        };
        let rem = table(&profile(&mech(Direction::Remove)), &c, None).unwrap();
        let add = table(&profile(&mech(Direction::Add)), &c, None).unwrap();
        let mir = mirror(&rem, &c).unwrap();
        // the bulk: losses within 0.05 of ln(1 − q) (remove) or −ln(1 − q) (add)
        let edge = (1.0 - q.to_f64()).ln();
        for (tb, kind, bulk, what) in [
            (&rem, Kind::Remove, (edge, edge + 0.05), "remove"),
            (&add, Kind::Add, (-edge - 0.05, -edge), "add"),
            (&mir, Kind::Add, (-edge - 0.05, -edge), "mirror"),
        ] {
            let ex = ExactPair {
                kind,
                ..exact.clone()
            };
            let (total, excess, shift) = dominance(tb, &c, &ex, bulk, what);
            let mut plain = tb.clone();
            plain.mix = None;
            let (_, _, shift_plain) = dominance(&plain, &c, &ex, bulk, what);
            assert!(total <= 1e-11, "{what}: total mass exceeds 1 by {total:e}");
            assert!(excess <= 2e-12, "{what}: excess {excess:e}");
            assert!(shift <= 3e-14, "{what}: shift {shift:e}");
            assert!(
                shift_plain >= 20.0 * shift,
                "{what}: plain {shift_plain:e} vs mixture {shift:e}"
            );
        }
    }

    /// Lemma Connect-the-dots on the substitution pair at σ = 700 (MNIST's q), h = 3·2⁻²³, where a
    /// copy's loss spreads over ±3·10⁻⁵: the upper measure dominates the exact split at every
    /// point of the bulk (|loss| ≤ 4·10⁻⁵; α's upper end at a_c falls short by 1.6·10⁻¹⁰), its
    /// total mass exceeds 1 by at most 10⁻¹¹ (measured 1.7·10⁻¹³), a point's excess is at most
    /// 3·10⁻⁸ (8.7·10⁻⁹: α's width, moved up by h) and the mean shift at most 10⁻¹² (3.4·10⁻¹³).
    /// Before, each copy carried 1.25·10⁻³ of excess mass (the threshold through ln y 10⁻⁹ wide,
    /// and both quotients rounded up; with the threshold mended, 1.4·10⁻⁶ at h = 7·2⁻²⁴), which
    /// 14063 copies made 4·10⁷: "PLD upper bound puts more mass at +∞ than δ".
    #[test]
    fn substitution_split_dominates_the_exact_split_at_large_sigma() {
        use crate::theorems::pld_accountant::mechanisms::profile;
        let (q, sg, h) = (rational("256/60000"), rational("700"), "3/8388608");
        let c = ctx(h, 100, 1 << 40, Side::Upper);
        let tb = table(
            &profile(&PldMechanism::SubsampledGaussianSubstitution {
                sigma: sg.clone(),
                rate: q.clone(),
            }),
            &c,
            None,
        )
        .unwrap();
        let ex = ExactPair {
            qf: Float::with_val(P, &q),
            sf: Float::with_val(P, &sg),
            kind: Kind::Substitution,
        };
        let (total, excess, shift) = dominance(&tb, &c, &ex, (-4e-5, 4e-5), "substitution");
        assert!(total <= 1e-11, "total mass exceeds 1 by {total:e}");
        assert!(excess <= 3e-8, "excess {excess:e}");
        assert!(shift <= 1e-12, "shift {shift:e}");
    }

    /// A 256-bit MPFR value of anything MPFR takes.
    fn fv<T>(x: T) -> Float
    where
        Float: rug::Assign<T>,
    {
        Float::with_val(P, x)
    }

    /// Which exact pair [`ExactPair`] describes.
    #[derive(Clone, Copy)]
    enum Kind {
        /// The subsampled Gaussian's remove direction: P = (1 − q)N(0) + qN(1), Q = N(0).
        Remove,
        /// Its add direction: P = N(0), Q = (1 − q)N(0) + qN(1).
        Add,
        /// The substitution pair: P = (1 − q)N(0) + qN(1), Q = (1 − q)N(0) + qN(−1).
        Substitution,
    }

    /// The exact reference for the split tests: a pair's P- and Q-mass at or below a loss,
    /// straight from Φ at the threshold, in 256-bit MPFR (round-to-nearest: a reference, not a
    /// bound); the thresholds by another route than the code's (the plain forms).
    #[derive(Clone)]
    struct ExactPair {
        /// The sampling rate q.
        qf: Float,
        /// The noise σ.
        sf: Float,
        kind: Kind,
    }

    impl ExactPair {
        /// The standard normal CDF, Φ(x) = erfc(−x/√2)/2.
        fn phi(x: &Float) -> Float {
            Float::with_val(P, -x.clone() / Float::with_val(P, 2u32).sqrt()).erfc() / 2u32
        }

        /// N(μ, σ²)'s mass below x (None: −∞).
        fn below(&self, x: &Option<Float>, mu: i32) -> Float {
            x.as_ref().map_or(Float::with_val(P, 0), |x| {
                Self::phi(&(Float::with_val(P, x - mu) / &self.sf))
            })
        }

        /// The subsampled Gaussian's threshold x(b) = σ² ln((e^b − 1 + q)/q) + ½, or −∞
        /// (None) where e^b ≤ 1 − q.
        fn thr(&self, b: &Float) -> Option<Float> {
            let t = Float::with_val(P, b.exp_m1_ref()) + &self.qf;
            (t > 0).then(|| {
                Float::with_val(P, t / &self.qf).ln() * Float::with_val(P, self.sf.square_ref())
                    + 0.5f64
            })
        }

        /// (P[Z ≤ b], Q[Z ≤ b]).
        fn le(&self, b: &Float) -> (Float, Float) {
            let (q, k) = (&self.qf, fv(1 - self.qf.clone()));
            let mix = |x: &Option<Float>, mu: i32| {
                fv(fv(&k * self.below(x, 0)) + fv(q * self.below(x, mu)))
            };
            match self.kind {
                Kind::Remove => {
                    let x = self.thr(b);
                    (mix(&x, 1), self.below(&x, 0))
                }
                Kind::Add => {
                    // Z > b ⟺ x < x(−b): Z ≤ b ⟺ x ≥ x(−b)
                    let x = self.thr(&fv(-b.clone()));
                    let one = fv(Float::with_val(P, 1));
                    (fv(&one - self.below(&x, 0)), fv(&one - mix(&x, 1)))
                }
                Kind::Substitution => {
                    // x(b) = σ² ln y, y the plain positive root of c·y² − km·y − c·e^b
                    let s2 = fv(self.sf.square_ref());
                    let c = fv(q * fv(fv(-1i32) / fv(&s2 * 2u32)).exp());
                    let eb = fv(b.exp_ref());
                    let km = fv(&k * fv(&eb - 1u32));
                    let r = fv(fv(km.square_ref()) + fv(fv(c.square_ref()) * 4u32) * &eb).sqrt();
                    let x = Some(fv(&s2 * fv(fv(&km + r) / fv(&c * 2u32)).ln()));
                    (mix(&x, 1), mix(&x, -1))
                }
            }
        }

        /// The exact split of the cell (a0, a1] (width h, `eh` = e^h): its masses at a0 and a1,
        /// (e^{a₁}Q_c − P_c)/(e^h − 1) and (e^h P_c − e^{a₁}Q_c)/(e^h − 1).
        fn split(&self, a0: &Float, a1: &Float, eh: &Float) -> (Float, Float) {
            let ((p0, q0), (p1, q1)) = (self.le(a0), self.le(a1));
            let (pc, qc) = (fv(p1 - p0), fv(q1 - q0));
            let y1q = fv(fv(a1.exp_ref()) * &qc);
            let d = fv(eh.clone() - 1u32);
            (fv(fv(&y1q - &pc) / &d), fv(fv(fv(eh * &pc) - &y1q) / &d))
        }
    }

    /// Checks one table's upper discretisation against the exact split over the bulk (losses
    /// in `bulk`, more than 100 points): at every bulk point a_i the measure's mass at and above
    /// a_i (+∞ included) is at least the exact split's, P[Z > a_i] plus the part of the cell
    /// below a_i sent up to it (less one fixed-point unit: the carried rounding's allowance).
    /// Returns the measure's total mass less 1 (the excess that compounds over the copies), the
    /// largest excess at a bulk point and the mean shift Σ excess·h over the bulk.
    fn dominance(
        tb: &Table,
        c: &Ctx,
        ex: &ExactPair,
        bulk: (f64, f64),
        what: &str,
    ) -> (f64, f64, f64) {
        let g = discretize(tb, c).unwrap();
        let a = |i: i64| {
            fv(Float::with_val(
                P,
                &(&g.shift + Rational::from(g.off + i) * &c.h),
            ))
        };
        let eh = fv(Float::with_val(P, &c.h).exp());
        let (hf, shf) = (c.h.to_f64(), g.shift.to_f64());
        let first = (((bulk.0 - shf) / hf).floor() as i64 - g.off).max(1);
        let last = (((bulk.1 - shf) / hf).ceil() as i64 - g.off).min(g.mass.len() as i64 - 1);
        assert!(
            last - first > 100,
            "{what}: bulk of {} points",
            last - first
        );
        let unit = fv(Float::with_val(P, 1) >> c.f);
        let mut above = fv(Float::with_val(P, g.inf) >> c.f);
        for m in &g.mass[(last + 1) as usize..] {
            above += fv(Float::with_val(P, *m) >> c.f);
        }
        let (mut worst, mut shift) = (0f64, 0f64);
        for i in (first..=last).rev() {
            above += fv(Float::with_val(P, g.mass[i as usize]) >> c.f);
            let ai = a(i);
            let gt = fv(1 - ex.le(&ai).0);
            let exact = fv(gt + ex.split(&a(i - 1), &ai, &eh).1);
            let d = fv(&above - &exact);
            assert!(
                d >= fv(-unit.clone()),
                "{what}: mass at and above point {i} short of the exact split by {}",
                fv(-d)
            );
            worst = worst.max(d.to_f64());
            shift += d.to_f64().max(0.0) * hf;
        }
        let total = g
            .mass
            .iter()
            .fold(fv(Float::with_val(P, g.inf) >> c.f), |t, m| {
                fv(t + fv(Float::with_val(P, *m) >> c.f))
            });
        (fv(total - 1u32).to_f64(), worst, shift)
    }

    #[test]
    fn indices_out_of_range_are_refused() {
        assert!(floor_index(&rational("1e30"), "x").is_err());
        assert_eq!(floor_index(&rational("-2.5"), "x").unwrap(), -3);
        assert!(slot(Some(-1), 4).is_err());
        assert!(slot(Some(4), 4).is_err());
        assert!(slot(None, 4).is_err());
        assert_eq!(slot(Some(3), 4).unwrap(), 3);
        // an atom far outside the grid range: refused, not folded into the last cell
        let c = ctx("1/4", 100, 0, Side::Lower);
        let pr = atoms_profile(&vec![(Some(rational("800")), 0.5)]);
        assert!(matches!(
            table(&pr, &c, None),
            Err(Error::InvalidArgument { .. })
        ));
        // a grid so fine that the atom's index leaves i64
        let c = ctx("1e-20", 100, 0, Side::Lower);
        let pr = atoms_profile(&vec![(Some(rational("1")), 0.5)]);
        assert!(table(&pr, &c, None).is_err());
    }
}
