//! Many copies of a grid measure in one step: the m-fold composition x^{∗m} (times a measure a
//! for the remaining copies) by one cyclic convolution on a window of N = 2^t grid points, the
//! spectral power of [`fft::power`] (Lemma Spectral-power of `proofs-notes/pld_epsilon.md`), with the mass
//! the window wraps bounded by Chernoff's inequality (Lemma Window). Repeated squaring transforms
//! at every doubling; this transforms once, at the final length.
use super::enclose::point;
use super::fft::{self, close_sum, ulp_up};
use super::fixed::{carry_round_units, mass_limit, shr_round, to_f64, Ctx, GridPld, Side};
use crate::{Error, Result};
use rug::integer::Order;
use rug::ops::Pow;
use rug::{Integer, Rational};

/// Least number of remaining copies for which [`power_compose`] is tried (`self_compose` hands
/// it 128–255 copies of the 2^L-fold square: the squarings before are short, the error E grows
/// like m — measured: 2⁷ against 2⁵ is 5 % faster at the same widths on q = 0.01 and MNIST).
pub(super) const POWER_MIN: u32 = 128;

/// The masses m·2^−F as f64: fl(m) (within a factor 1 ± u of m) times the exact 2^−F.
fn load(g: &GridPld, f: u32) -> Vec<f64> {
    let s = (2f64).powi(-(f as i32));
    let mut v = fft::zeros(g.mass.len());
    for (v, &m) in v.iter_mut().zip(&g.mass) {
        *v = to_f64(m) * s;
    }
    v
}

/// Float mean and variance of the index under v (a heuristic: it centres the exponentials).
fn moments(v: &[f64]) -> (f64, f64) {
    let (mut s0, mut s1, mut s2) = (0.0, 0.0, 0.0);
    for (j, &x) in v.iter().enumerate() {
        let j = j as f64;
        s0 += x;
        s1 += x * j;
        s2 += x * j * j;
    }
    let mean = s1 / s0;
    (mean, (s2 / s0 - mean * mean).max(0.0))
}

/// The index nearest `mean` within v (the centre c of M(λ) = Σ_j v_j e^{λ(j − c)}; any c is
/// sound).
fn centre(v: &[f64], mean: f64) -> usize {
    if mean.is_finite() {
        (mean.round().max(0.0) as usize).min(v.len() - 1)
    } else {
        0
    }
}

/// Σ_j v_j e^{λ(j − c)}: `up` = false, a float estimate (to choose λ); `up` = true, an upper
/// bound (every factor e^{±λ} from its enclosure's upper end, every product and the sum
/// rounded up). +∞ on overflow.
fn mgf(v: &[f64], c: usize, lam: f64, upper: bool) -> f64 {
    if !upper {
        return mgf_estimate(v, c, lam);
    }
    let (ep, em) = (point(lam).exp().sup(), point(-lam).exp().sup());
    let mut s = v[c];
    let mut w = 1.0;
    for &x in &v[c + 1..] {
        w = ulp_up(w * ep);
        s += ulp_up(x * w);
    }
    w = 1.0;
    for &x in v[..c].iter().rev() {
        w = ulp_up(w * em);
        s += ulp_up(x * w);
    }
    close_sum(s, v.len())
}

/// [`mgf`]'s float estimate (a choice only: it steers the search for λ).
fn mgf_estimate(v: &[f64], c: usize, lam: f64) -> f64 {
    v[c] + geometric(v[c + 1..].iter().copied(), lam.exp())
        + geometric(v[..c].iter().rev().copied(), (-lam).exp())
}

/// Σ_i x_i r^{i+1} in floats, as four interleaved geometric sequences (so that the products do
/// not wait on one another).
fn geometric(xs: impl Iterator<Item = f64>, r: f64) -> f64 {
    let r4 = r * r * r * r;
    let (mut w, mut s) = ([r, r * r, r * r * r, r4], [0.0f64; 4]);
    let mut xs = xs.peekable();
    while xs.peek().is_some() {
        for k in 0..4 {
            if let Some(x) = xs.next() {
                s[k] += x * w[k];
                w[k] *= r4;
            }
        }
    }
    (s[0] + s[1]) + (s[2] + s[3])
}

/// Upper bound on e^{m·ln M_x + ln M_a − |λ|·d}: Chernoff's bound on the mass of x^{∗m} ∗ a at
/// distance ≥ d from the centre, on the side of λ's sign (M from [`mgf`] with `upper`).
fn tail_up(mx: f64, ma: f64, m: u32, lam: f64, d: f64) -> f64 {
    let l = point(f64::from(m)) * point(mx).ln() + point(ma).ln() - point(lam.abs()) * point(d);
    let b = l.exp().sup();
    if b.is_nan() {
        f64::INFINITY
    } else {
        b
    }
}

/// The distance from the centre beyond which Chernoff's bound at λ puts mass ≤ w, and its
/// float minimiser over λ of λ's sign (golden section on ln|λ| around the Gaussian guess
/// √(2 ln(1/w))/σ): a choice only, certified by [`tail_up`] afterwards.
fn reach(x: (&[f64], usize), a: (&[f64], usize), m: u32, w: f64, sd: f64, sign: f64) -> (f64, f64) {
    let d = |lam: f64| -> f64 {
        let k = f64::from(m) * mgf(x.0, x.1, lam, false).ln() + mgf(a.0, a.1, lam, false).ln();
        let d = (k - w.ln()) / lam.abs();
        if d.is_finite() {
            d
        } else {
            f64::INFINITY
        }
    };
    let guess = (2.0 * (1.0 / w).ln()).sqrt() / sd.max(1e-3);
    let (mut lo, mut hi) = ((guess / 16.0).ln(), (guess * 4.0).ln());
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let f = |l: f64| d(sign * l.exp());
    let (mut c, mut e) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
    let (mut fc, mut fe) = (f(c), f(e));
    for _ in 0..16 {
        if fc <= fe {
            hi = e;
            e = c;
            fe = fc;
            c = hi - phi * (hi - lo);
            fc = f(c);
        } else {
            lo = c;
            c = e;
            fc = fe;
            e = lo + phi * (hi - lo);
            fe = f(e);
        }
    }
    let l = (lo + hi) / 2.0;
    (sign * l.exp(), f(l))
}

/// The window of `power_compose` (Lemma Window): length 2^t, first linear index s, the λ of each
/// side's Chernoff bound and the certified tails W_L, W_R beyond its ends (0 where the window
/// reaches that end of the support).
struct Window {
    t: u32,
    s: u64,
    lr: f64,
    ll: f64,
    wl: f64,
    wr: f64,
}

/// The window for x^{∗m} ∗ a (f64 masses `xv`, `av`): each tail beyond it at most
/// w = budget·λ/8 at the float-minimising λ (λ taken from a Gaussian of the same spread), so the
/// folded mass the lower side subtracts, about (W_L + W_R)/λ in all, stays within budget/4;
/// N = 2^t covers it and both inputs. The choice is in floats; W_L, W_R are certified
/// ([`tail_up`]). None beyond 2²² points or when a tail exceeds the budget.
fn window(xv: &[f64], av: &[f64], m: u32, budget: f64) -> Option<Window> {
    let ((mx, vx), (ma, va)) = (moments(xv), moments(av));
    let (cx, ca) = (centre(xv, mx), centre(av, ma));
    let cs = f64::from(m) * cx as f64 + ca as f64;
    // the linear support: indices 0 ..= m(n_x − 1) + n_a − 1
    let lin = u64::from(m) * (xv.len() as u64 - 1) + av.len() as u64;
    let sd = (f64::from(m) * vx + va).sqrt();
    let floor = xv.len().max(av.len()) as u64;
    let side_reach = |sign: f64| {
        // λ of a Gaussian of spread σ whose tail at distance d is budget/(8σ): √(2 ln(8σ/budget))/σ
        let l0 = (2.0 * (8.0 * sd.max(1.0) / budget).ln()).sqrt() / sd.max(1.0);
        reach((xv, cx), (av, ca), m, budget * l0.min(1.0) / 8.0, sd, sign)
    };
    let ((lr, dr), (ll, dl)) = (side_reach(1.0), side_reach(-1.0));
    let span = (dr + dl).ceil() + 3.0;
    let want = if dr.is_finite() && dl.is_finite() && span < lin as f64 {
        span as u64
    } else {
        lin
    };
    let t = want.max(floor).next_power_of_two().trailing_zeros();
    if t > 22 {
        return None;
    }
    let n = 1u64 << t;
    if n >= lin {
        // the whole support fits: nothing wraps
        return Some(Window {
            t,
            s: 0,
            lr,
            ll,
            wl: 0.0,
            wr: 0.0,
        });
    }
    let lo = (cs - dl).floor() - ((n as f64 - span) / 2.0).floor();
    let s = (lo.max(0.0) as u64).min(lin - n);
    // certified tails of the f64 inputs' linear convolution beyond each window end
    let wl = if s == 0 {
        0.0
    } else {
        let d = cs - (s as f64 - 1.0);
        tail_up(mgf(xv, cx, ll, true), mgf(av, ca, ll, true), m, ll, d)
    };
    let wr = if s + n >= lin {
        0.0
    } else {
        let d = (s + n) as f64 - cs;
        tail_up(mgf(xv, cx, lr, true), mgf(av, ca, lr, true), m, lr, d)
    };
    (wl <= budget && wr <= budget).then_some(Window {
        t,
        s,
        lr,
        ll,
        wl,
        wr,
    })
}

/// x^{∗m} ∗ a (a = None: x^{∗m}) in one spectral power, rounded to ctx's side (the lemmas Spectral-power and Window):
/// the result and the mass its widening may have moved, or None when the budget or the error
/// bound rules the route out (the caller then squares on).
pub(super) fn power_compose(
    x: &GridPld,
    m: u32,
    a: Option<&GridPld>,
    ctx: &Ctx,
    share: u32,
) -> Result<Option<(GridPld, u128)>> {
    let f = ctx.f;
    let limit = mass_limit(f);
    if m < 2
        || ctx.fft_budget == 0
        || x.mass.is_empty()
        || a.is_some_and(|a| a.mass.is_empty())
        || x.mass
            .iter()
            .chain(a.map_or(&[][..], |a| &a.mass))
            .any(|&v| v >= limit)
    {
        return Ok(None);
    }
    let xv = load(x, f);
    let av = a.map_or_else(|| vec![1.0], |a| load(a, f));
    // the budget of the `share` convolutions this one replaces
    let budget_fixed = ctx.fft_budget.saturating_mul(u128::from(share));
    let budget = budget_fixed as f64 * (2f64).powi(-(f as i32));
    let spectral = window(&xv, &av, m, budget)
        .and_then(|w| fft::power(&xv, m, a.map(|_| av.as_slice()), w.t).map(|r| (w, r)));
    fft::recycle(xv);
    if a.is_some() {
        fft::recycle(av); // (without a, av is the one-entry unit, not a pool buffer)
    }
    let Some((w, (c, e))) = spectral else {
        return Ok(None);
    };
    let k = factor_bounds(m + u32::from(a.is_some()));
    let scale = (2f64).powi(f as i32);
    let n = 1usize << w.t;
    let (mass, folded) = window_masses(&c, e, &w, k, ctx)?;
    fft::recycle(c);
    // what the widening may move: 2E per entry, the folded mass (Lower) or the right tail
    // (Upper), the rounding to integers (a width figure for `truncate`)
    let folded = match ctx.side {
        Side::Upper => w.wr,
        Side::Lower => close_sum(folded, n),
    };
    let moved = ulp_up(ulp_up(ulp_up(ulp_up(2.0 * e) * n as f64) + folded) * k.0) * scale + 1.0;
    if !(moved <= budget_fixed as f64) {
        return Ok(None);
    }
    let Some(inf) = infinite_mass(x, m, a, ctx, w.wr, k.0)? else {
        return Ok(None);
    };
    let off = i64::from(m)
        .checked_mul(x.off)
        .and_then(|o| o.checked_add(a.map_or(0, |a| a.off)))
        .and_then(|o| o.checked_add(w.s as i64))
        .ok_or_else(|| Error::Numerical("PLD grid offset overflow".into()))?;
    let mut shift = Rational::from(&x.shift * m);
    if let Some(a) = a {
        shift += &a.shift;
    }
    Ok(Some((
        GridPld {
            shift,
            off,
            mass,
            inf,
        },
        moved.ceil() as u128,
    )))
}

/// (K_hi, K_lo) with (1 − u)^−k ≤ K_hi and (1 + u)^−k ≥ K_lo: the integers' convolution of k
/// factors lies within c′·[K_lo, K_hi] of the convolution c′ of their f64 values
/// ((1 − u)^−1 ≤ 1 + 2u and (1 + u)^−1 ≥ 1 − u, powers rounded outward).
fn factor_bounds(k: u32) -> (f64, f64) {
    let u = (2f64).powi(-53);
    let (mut k_hi, mut k_lo) = (1.0f64, 1.0f64);
    for _ in 0..k {
        k_hi = (k_hi * (1.0 + 2.0 * u)).next_up();
        k_lo = (k_lo * (1.0 - u)).next_down();
    }
    (k_hi, k_lo)
}

/// The window's fixed-point masses from the spectral power's values `c` (error ≤ `e` each), the
/// window starting at index `w.s`, rounded to the side with one carry (`carry_round_units`), and
/// (Lower) the folded mass taken off.
/// The mass folded onto window point j: from the right, ≤ W_R·e^{−λ_r·j}; from the left,
/// ≤ W_L·e^{−|λ_l|·(N − 1 − j)} (Chernoff at the same λ, from further out); both bounds by
/// recurrences with every product rounded up.
fn window_masses(
    c: &[f64],
    e: f64,
    w: &Window,
    (k_hi, k_lo): (f64, f64),
    ctx: &Ctx,
) -> Result<(Vec<u128>, f64)> {
    let scale = (2f64).powi(ctx.f as i32);
    let n = 1usize << w.t;
    let (rr, rl_inv) = (
        point(-w.lr.abs()).exp().sup(),
        point(w.ll.abs()).exp().sup(),
    );
    let (mut fr, mut fl) = (
        w.wr,
        ulp_up(w.wl * fft::pow_up(point(-w.ll.abs()).exp().sup(), n as u32 - 1)),
    );
    let mut folded = 0.0f64;
    // a pooled buffer (fresh pages cost a fault each: ~1.5 µs here)
    let mut ends = fft::zeros(n);
    // n = 2^t: the cyclic index (s + i) mod n is a mask
    let (s0, mask) = (w.s as usize, n - 1);
    for i in 0..n {
        let v = c[(s0.wrapping_add(i)) & mask];
        if !v.is_finite() {
            return Err(Error::Numerical("PLD FFT estimate not finite".into()));
        }
        let y = match ctx.side {
            Side::Upper => (((v + e).next_up().max(0.0) * k_hi).next_up() * scale).next_up(),
            Side::Lower => {
                let sub = ulp_up(fr + fl);
                folded += sub;
                fr = ulp_up(fr * rr);
                fl = ulp_up(fl * rl_inv);
                let z = ((v - e).next_down() - sub).next_down().max(0.0);
                // z = 0 gives 0 either way; skipping the products keeps a subnormal (the
                // next_down of 0) out of a multiplication, which costs a microcode assist on
                // x86 — most of the window's far entries are 0 here
                if z == 0.0 {
                    0.0
                } else {
                    ((z * k_lo).next_down() * scale).next_down().max(0.0)
                }
            }
        };
        ends[i] = y;
    }
    let mass = carry_round_units(&ends, ctx.f, ctx.side)?;
    fft::recycle(ends);
    Ok((mass, folded))
}

/// The +∞ mass of x^{∗m} ∗ a: every outcome with some copy at +∞, exact at scale 2^{F(k)},
/// rounded to the side; Upper also moves the right tail `wr` beyond the window there (Lemma Window).
/// None when that tail is too large to add.
fn infinite_mass(
    x: &GridPld,
    m: u32,
    a: Option<&GridPld>,
    ctx: &Ctx,
    wr: f64,
    k_hi: f64,
) -> Result<Option<u128>> {
    let f = ctx.f;
    let tot = |g: &GridPld| -> Integer { g.mass.iter().map(|&v| Integer::from(v)).sum() };
    let (tx, ix) = (tot(x), Integer::from(x.inf));
    let (ta, ia) = match a {
        Some(a) => (tot(a), Integer::from(a.inf)),
        None => (Integer::from(1) << f, Integer::new()),
    };
    let all = Integer::from(&tx + &ix).pow(m) * Integer::from(&ta + &ia);
    let finite = tx.pow(m) * ta;
    let exact = (all - finite).to_digits::<u64>(Order::Lsf);
    let mut inf = shr_round(&exact, f * m, ctx.side)
        .ok_or_else(|| Error::Numerical("PLD convolution overflow".into()))?;
    if ctx.side == Side::Upper && wr > 0.0 {
        let scale = (2f64).powi(f as i32);
        let extra = ((wr * k_hi).next_up() * scale).next_up().ceil();
        if !(extra < (2f64).powi(120)) {
            return Ok(None);
        }
        inf += extra as u128;
    }
    Ok(Some(inf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::test_util::*;

    /// Exact linear convolution of integer vectors (schoolbook: the reference shares no code
    /// with the transforms).
    fn conv(a: &[Integer], b: &[Integer]) -> Vec<Integer> {
        let mut c = vec![Integer::new(); a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            if *x == 0 {
                continue;
            }
            for (j, y) in b.iter().enumerate() {
                c[i + j] += Integer::from(x * y);
            }
        }
        c
    }

    /// A bell of width `w` over n points with masses summing to at most 2^F (tails down to
    /// single units: the shape whose window wraps).
    fn bell(rng: &mut Rng, n: usize, w: f64, f: u32) -> Vec<u128> {
        let c = n as f64 / 2.0;
        let raw: Vec<f64> = (0..n)
            .map(|j| {
                (-((j as f64 - c) / w).powi(2) / 2.0).exp() * (1.0 + rng.below(100) as f64 / 1000.0)
            })
            .collect();
        let tot: f64 = raw.iter().sum();
        raw.iter()
            .map(|v| ((v / tot * 0.999 * (2f64).powi(f as i32)) as u128).max(1))
            .collect()
    }

    /// the lemmas Spectral-power and Window against exact integer arithmetic: x^{∗m} ∗ a computed exactly (at scale
    /// 2^{F(m+1)}), on windows that wrap (the linear support is several times N) and that do
    /// not. Upper's mass at or above every window point is ≥ the exact one, its +∞ mass ≥ the
    /// exact +∞ mass plus everything right of the window; Lower's are ≤ above every point and
    /// at +∞. Each side's excess over the exact measure stays within the mass it reports as moved
    /// (plus its own carried rounding, two units per entry) — so a widening taken on the wrong side, a
    /// dropped E or W, or a window that loses mass is caught.
    #[test]
    fn power_compose_brackets_the_exact_composition() {
        let mut rng = Rng(0xC0FF_EE00_1234_5678);
        let f = 100u32;
        let mut wrapped = 0;
        for (nx, w, m, na) in [
            (41usize, 3.0, 40u32, 0usize),
            (61, 5.0, 33, 17),
            (25, 1.5, 63, 9),
            (120, 15.0, 32, 0),
        ] {
            let x = GridPld {
                shift: rational("1/3"),
                off: -20,
                mass: bell(&mut rng, nx, w, f),
                inf: 1u128 << 60,
            };
            let a = (na > 0).then(|| GridPld {
                shift: rational("1/7"),
                off: 5,
                mass: bell(&mut rng, na, 2.0, f),
                inf: 3,
            });
            let exact = exact_power(&x, m, a.as_ref(), f);
            for side in [Side::Upper, Side::Lower] {
                if check_power_side(&x, m, a.as_ref(), f, &exact, side) {
                    wrapped += 1;
                }
            }
        }
        assert!(wrapped >= 4, "only {wrapped} runs wrapped the window");
    }

    /// The exact reference for one case of `power_compose_brackets_the_exact_composition`.
    struct ExactPower {
        /// x^{∗m} ∗ a (a absent: x^{∗m}) in exact integers at scale 2^{F·k}; index 0 ↔ grid
        /// index m·off_x + off_a.
        mass: Vec<Integer>,
        /// The number of factors convolved: m + [a].
        k: u32,
        /// The exact +∞ mass, at scale 2^{F(m+1)} with or without a (a absent: the unit 2^F
        /// with no +∞ mass of its own).
        inf: Integer,
    }

    /// Computes x^{∗m} ∗ a and its +∞ mass exactly (schoolbook products of the integer
    /// masses at scale 2^F): the reference shares no code with `power_compose`.
    fn exact_power(x: &GridPld, m: u32, a: Option<&GridPld>, f: u32) -> ExactPower {
        let xi: Vec<Integer> = x.mass.iter().map(|&v| Integer::from(v)).collect();
        let mut exact = power_by_squaring(vec![Integer::from(1)], xi.clone(), m, |u, v| conv(u, v));
        let mut k = m;
        if let Some(a) = a {
            exact = conv(
                &exact,
                &a.mass.iter().map(|&v| Integer::from(v)).collect::<Vec<_>>(),
            );
            k += 1;
        }
        let tx: Integer = xi.iter().sum();
        let (ta, ia) = a.map_or((Integer::from(1) << f, Integer::new()), |a| {
            (
                a.mass.iter().map(|&v| Integer::from(v)).sum(),
                Integer::from(a.inf),
            )
        });
        let inf = Integer::from(&tx + x.inf).pow(m) * Integer::from(&ta + &ia) - tx.pow(m) * &ta;
        ExactPower {
            mass: exact,
            k,
            inf,
        }
    }

    /// Checks one side of `power_compose(x, m, a)` against the exact masses: the shift is
    /// m·shift_x + shift_a; the mass at or above every window point is on `side`'s side of
    /// the exact one; the +∞
    /// mass is too (Upper's at least the exact +∞ mass plus everything right of the window);
    /// and the summed excess over the exact measure (for Lower, plus the mass lost outside
    /// the window) is within the reported `moved`, one unit of rounding per entry and the
    /// conversion factor (1 ± u)^k. Returns whether the window wrapped (is shorter than the
    /// linear support).
    fn check_power_side(
        x: &GridPld,
        m: u32,
        a: Option<&GridPld>,
        f: u32,
        reference: &ExactPower,
        side: Side,
    ) -> bool {
        let (exact, k, inf_exact) = (&reference.mass, reference.k, &reference.inf);
        let scale = Integer::from(1) << (f * (k - 1));
        let base_off = i64::from(m) * x.off + a.map_or(0, |a| a.off);
        let mut c = ctx("1/64", f, 0, side);
        c.fft_budget = 1u128 << (f - 20);
        let (g, moved) = power_compose(x, m, a, &c, 1)
            .unwrap()
            .expect("within the budget");
        assert_eq!(
            g.shift,
            Rational::from(&x.shift * m) + a.map_or(Rational::new(), |a| a.shift.clone())
        );
        let s = (g.off - base_off) as usize;
        let n = g.mass.len();
        let outside: Integer = exact
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < s || *i >= s + n)
            .map(|(_, v)| v.clone())
            .sum();
        let right: Integer = exact.iter().skip(s + n).sum();
        // every suffix of the window (the mass at or above a loss) on the side's side of the
        // exact one: the widening is pointwise, the carried rounding moves mass only to larger
        // losses (Upper) or smaller ones (Lower)
        let (mut excess, mut suffix) = (Rational::new(), Rational::new());
        for (i, &gm) in g.mass.iter().enumerate().rev() {
            let ex = Rational::from((exact[s + i].clone(), scale.clone()));
            let d = Rational::from(gm) - &ex;
            suffix += &d;
            match side {
                Side::Upper => assert!(suffix >= 0, "m = {m}: the mass above point {i} is low"),
                Side::Lower => assert!(suffix <= 0, "m = {m}: the mass above point {i} is high"),
            }
            excess += d.abs();
        }
        // the +∞ mass is at scale 2^{F(m+1)} with or without a (a = None: the unit 2^F)
        let inf_ex = Rational::from((inf_exact.clone(), Integer::from(1) << (f * m)));
        let gi = Rational::from(g.inf);
        match side {
            Side::Upper => {
                assert!(
                    gi >= inf_ex.clone() + Rational::from((right.clone(), scale.clone())),
                    "m = {m}: +∞ mass too low"
                )
            }
            Side::Lower => assert!(gi <= inf_ex, "m = {m}: +∞ mass too high"),
        }
        // Lower also lost the mass outside the window; both sides within `moved`
        if side == Side::Lower {
            excess += Rational::from((outside.clone(), scale.clone()));
        }
        // the reported widening, two units per entry (the carry in and out), and the conversion
        // factor (1 ± u)^k on the masses themselves (k·2u relatively, at most)
        let total = Rational::from((exact.iter().sum::<Integer>(), scale.clone()));
        let allowance = Rational::from(moved)
            + 2 * n as u64
            + total * Rational::from((4 * (k + 1), Integer::from(1) << 53));
        assert!(
            excess <= allowance,
            "m = {m}, {side:?}: moved {} against the reported {moved}",
            excess.to_f64()
        );
        eprintln!(
            "m = {m} {side:?}: N = {n}, linear {}, excess {:.3e} of allowance {:.3e} (units 2^-F)",
            exact.len(),
            excess.to_f64(),
            allowance.to_f64()
        );
        n < exact.len()
    }

    /// The route declines what it cannot certify cheaply: no budget, fewer than two copies.
    #[test]
    fn power_compose_declines_without_budget() {
        let mut rng = Rng(7);
        let x = GridPld {
            shift: Rational::new(),
            off: 0,
            mass: bell(&mut rng, 41, 3.0, 100),
            inf: 0,
        };
        let mut c = ctx("1/64", 100, 0, Side::Upper);
        assert!(power_compose(&x, 40, None, &c, 1).unwrap().is_none());
        c.fft_budget = 1u128 << 80;
        assert!(power_compose(&x, 1, None, &c, 1).unwrap().is_none());
        assert!(power_compose(&x, 40, None, &c, 1).unwrap().is_some());
    }
}
