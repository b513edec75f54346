//! The certified PLD accountant: Theorem 9 (composition is convolution of privacy loss
//! distributions) evaluated on a grid, with two certified sides.
//!
//! A *grid PLD* is a measure on the losses {i·h} ∪ {+∞} (P-masses only; the Q-masses are
//! implied by Q = e^{−z}·P). Its hockey-stick curve is δ_ν(ε) = ν(+∞) + Σ ν_i (1 − e^{ε−z_i})₊.
//! We say ν dominates μ when δ_ν(ε) ≥ δ_μ(ε) for every real ε, and is dominated when ≤.
//! Both relations survive convolution (proofs-notes/pld_epsilon.md, Lemma C), so:
//! - the **upper** side discretises each mechanism into a dominating grid PLD
//!   ("connect the dots": every loss is split between its two neighbouring grid points so that
//!   its P- and Q-mass are preserved — a pair of which the true pair is a post-processing),
//!   keeps every mass rounded up, moves truncated right tails to +∞ and left tails up;
//! - the **lower** side discretises into a dominated one (a sweep that merges neighbouring
//!   outcomes into atoms whose loss is *exactly* a grid point — a post-processing of the
//!   true pair), keeps every mass rounded down, drops left tails and moves right tails down.
//! Masses are fixed-point integers (scale 2^F) and convolution is exact integer arithmetic
//! (Kronecker substitution into one GMP product), so the only roundings are the directed
//! re-scalings to 2^F after each product.
use crate::num::{Arithmetic, Enclosure, Fi, Real};
use crate::validate;
use crate::{Error, Result};
use inari::Interval;
use rug::integer::Order;
use rug::ops::Pow;
use rug::{Integer, Rational};
use std::io::Write;

/// Which neighbouring pair of the Poisson-subsampled Gaussian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// ((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²)): a record removed.
    Remove,
    /// (N(0,σ²) ‖ (1−q)N(0,σ²) + qN(1,σ²)): a record added.
    Add,
}

/// A mechanism whose PLD the accountant discretises (all parameters exact).
#[derive(Clone, Debug, PartialEq)]
pub enum PldMechanism {
    /// PrivLoss = N(ρ, 2ρ) (Proposition 3), ρ > 0.
    Gaussian { rho: Rational },
    /// Laplace noise of scale b on sensitivity Δ, ε0 = Δ/b > 0.
    Laplace { eps: Rational },
    /// ε0-randomized response; also the worst case of an ε0-DP black box (Corollary 24, δ = 0).
    RandomizedResponse { eps: Rational },
    /// The worst case of an (ε, δ)-DP black box: (ε, δ)-randomized response (Corollary 24).
    ApproxDp { eps: Rational, delta: Rational },
    /// Poisson-subsampled Gaussian (sensitivity 1, noise σ, rate q), one neighbour direction.
    SubsampledGaussian {
        sigma: Rational,
        rate: Rational,
        direction: Direction,
    },
}

/// `count` independent copies of `mechanism`.
#[derive(Clone, Debug, PartialEq)]
pub struct PldTerm {
    pub mechanism: PldMechanism,
    pub count: Integer,
}

/// Grid and truncation; `None` chooses automatically.
#[derive(Clone, Debug, Default)]
pub struct PldOptions {
    /// Grid width h > 0 (losses i·h).
    pub grid: Option<Rational>,
    /// Tail mass τ ∈ (0, 1e−3] that one truncation may move (to +∞ or a grid end).
    pub tail: Option<Rational>,
    /// Print progress to stderr.
    pub progress: bool,
}

/// A two-sided answer and how it was computed.
#[derive(Clone, Debug)]
pub struct PldReport {
    pub enclosure: Enclosure,
    /// Grid width used.
    pub grid: Rational,
    /// Tail mass per truncation used.
    pub tail: Rational,
    /// Fixed-point fraction bits F.
    pub fixed_bits: u32,
    /// Largest number of grid points held by a composed PLD.
    pub support: usize,
}

/// Smallest tail mass per truncation, as a power of two (fixed point has 124 fraction bits).
const MIN_TAIL_BITS: u32 = 100;

/// Points per mechanism table the automatic grid aims to stay under (about half a second).
const TABLE_TARGET: usize = 60_000;

/// Largest grid a single mechanism may span (memory guard: 16 bytes per point and side).
const MAX_POINTS: usize = 2_000_000;
/// Largest composed support (memory guard: ~16 bytes per point, plus the packed integers).
const MAX_SUPPORT: usize = 20_000_000;
/// How many grid steps above its target the lower sweep looks for balancing material before
/// it moves a pool down instead (a width choice: a mass accumulating just below a grid point,
/// as the unsampled outputs of a subsampled Gaussian do, would otherwise be merged with
/// everything above it).
const SWEEP_WINDOW: usize = 4;
/// Largest |loss| a grid may reach (e^{700} is still a finite f64).
const MAX_LOSS: f64 = 700.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Upper,
    Lower,
}

/// Grid PLD: `mass[i]` is the P-mass at loss (off + i)·h, `inf` at +∞; fixed point, scale 2^F.
#[derive(Clone, Debug)]
struct GridPld {
    off: i64,
    mass: Vec<u128>,
    inf: u128,
}

struct Ctx {
    h: Rational,
    /// Enclosure of h.
    hf: Interval,
    f: u32,
    tau: u128,
    side: Side,
    progress: bool,
    support: usize,
}

fn pt(x: f64) -> Interval {
    Interval::try_from((x, x)).unwrap_or(Interval::ENTIRE)
}

fn fi_rat(r: &Rational) -> Interval {
    Fi::from_rational(r, 53).0
}

impl Ctx {
    /// Fixed-point value of an enclosed non-negative mass, rounded to this side.
    fn fixed(&self, x: Interval) -> Result<u128> {
        let scale = (2f64).powi(self.f as i32);
        if x.is_empty() || x.sup().is_nan() || x.inf().is_nan() {
            return Err(Error::Numerical("PLD mass enclosure is empty".into()));
        }
        match self.side {
            Side::Upper => {
                let v = (x.sup().max(0.0) * scale).ceil();
                if !(v < 2f64.powi(126)) {
                    return Err(Error::Numerical("PLD mass enclosure not finite".into()));
                }
                Ok(v as u128)
            }
            Side::Lower => {
                let v = (x.inf().max(0.0) * scale).floor();
                Ok(if v.is_finite() {
                    v.min(2f64.powi(126)) as u128
                } else {
                    0
                })
            }
        }
    }
    /// Grid point i·h, enclosed.
    fn point(&self, i: i64) -> Interval {
        pt(i as f64) * self.hf
    }
}

/// Enclosure of a fixed-point mass m·2^−F.
fn fixed_iv(m: u128, f: u32) -> Interval {
    let x = m as f64;
    let back = if x >= 2f64.powi(128) {
        u128::MAX
    } else {
        x as u128
    };
    let (lo, hi) = if back == m {
        (x, x)
    } else if back > m {
        (x.next_down(), x)
    } else {
        (x, x.next_up())
    };
    let s = pt((2f64).powi(-(f as i32)));
    Interval::try_from((lo, hi)).unwrap_or(Interval::ENTIRE) * s
}

// ---------------------------------------------------------------------------------------
// Exact convolution (Kronecker substitution) and truncation.

/// ⌊v / 2^f⌋ (Lower) or ⌈v / 2^f⌉ (Upper) for v given by little-endian limbs; None if the
/// quotient does not fit in 126 bits.
fn shr_round(limbs: &[u64], f: u32, side: Side) -> Option<u128> {
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
    if spill || limbs.iter().skip(high).any(|&l| l != 0) || q >= 1u128 << 126 {
        return None;
    }
    let rem = limbs.iter().take(w).any(|&l| l != 0) || (s > 0 && get(w) & ((1u64 << s) - 1) != 0);
    Some(if side == Side::Upper && rem { q + 1 } else { q })
}

fn total(m: &[u128]) -> Result<u128> {
    m.iter()
        .try_fold(0u128, |a, &x| a.checked_add(x))
        .ok_or_else(|| Error::Numerical("PLD total mass overflow".into()))
}

/// (a ∗ b) with masses rescaled to 2^F in the side's direction; +∞ mass
/// P[A = ∞]·P[B any] + P[A finite]·P[B = ∞], all terms non-negative.
fn convolve(a: &GridPld, b: &GridPld, ctx: &Ctx) -> Result<GridPld> {
    let f = ctx.f;
    // every mass below 4 (value < 2^{F+2}) keeps each slot of the packed product below
    // 2^{2F+4+log₂ n}: the slot width below then rules out carries between slots
    let limit = 1u128 << (f + 2);
    if a.mass
        .iter()
        .chain(&b.mass)
        .chain([&a.inf, &b.inf])
        .any(|&m| m >= limit)
    {
        return Err(Error::Numerical(
            "PLD mass above 4 (fixed-point range)".into(),
        ));
    }
    let shorter = a.mass.len().min(b.mass.len()) as u64;
    let bits = 2 * f + 4 + (64 - shorter.leading_zeros()) + 1;
    let l = bits.div_ceil(64) as usize;
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
    let mut mass = Vec::with_capacity(n);
    for k in 0..n {
        let lo = (k * l).min(digits.len());
        let hi = ((k + 1) * l).min(digits.len());
        mass.push(
            shr_round(&digits[lo..hi], f, ctx.side)
                .ok_or_else(|| Error::Numerical("PLD convolution overflow".into()))?,
        );
    }
    let (ta, tb) = (total(&a.mass)?, total(&b.mass)?);
    let inf_exact = Integer::from(a.inf) * (Integer::from(tb) + b.inf) + Integer::from(ta) * b.inf;
    let inf = shr_round(&inf_exact.to_digits::<u64>(Order::Lsf), f, ctx.side)
        .ok_or_else(|| Error::Numerical("PLD convolution overflow".into()))?;
    Ok(GridPld {
        off: a.off + b.off,
        mass,
        inf,
    })
}

/// Cut tails of mass ≤ τ: Upper moves the left tail up to the first kept point and the right
/// tail to +∞; Lower drops the left tail and moves the right tail down to the last kept point.
fn truncate(p: &mut GridPld, ctx: &Ctx) {
    let m = &p.mass;
    let (mut lo, mut left) = (0usize, 0u128);
    while lo + 1 < m.len() && left + m[lo] <= ctx.tau {
        left += m[lo];
        lo += 1;
    }
    let (mut hi, mut right) = (m.len() - 1, 0u128);
    while hi > lo && right + m[hi] <= ctx.tau {
        right += m[hi];
        hi -= 1;
    }
    let mut kept = m[lo..=hi].to_vec();
    match ctx.side {
        Side::Upper => {
            kept[0] += left;
            p.inf += right;
        }
        Side::Lower => {
            let last = kept.len() - 1;
            kept[last] += right;
        }
    }
    p.off += lo as i64;
    p.mass = kept;
}

fn compose_pair(a: &GridPld, b: &GridPld, ctx: &mut Ctx) -> Result<GridPld> {
    if a.mass.len() + b.mass.len() > MAX_SUPPORT {
        return Err(Error::arg(
            "grid",
            format!("a composed PLD would exceed {MAX_SUPPORT} grid points; use a coarser --grid"),
        ));
    }
    let mut c = convolve(a, b, ctx)?;
    truncate(&mut c, ctx);
    ctx.support = ctx.support.max(c.mass.len());
    Ok(c)
}

/// `k`-fold self-composition by repeated squaring.
fn self_compose(base: GridPld, k: &Integer, ctx: &mut Ctx, label: &str) -> Result<GridPld> {
    let bits = k.significant_bits();
    let mut acc: Option<GridPld> = None;
    let mut sq = base;
    for i in 0..bits {
        if ctx.progress {
            eprint!("\r[pld] {label}: {}/{bits} squarings", i + 1);
            let _ = std::io::stderr().flush();
        }
        if k.get_bit(i) {
            acc = Some(match acc {
                None => sq.clone(),
                Some(a) => compose_pair(&a, &sq, ctx)?,
            });
        }
        if i + 1 < bits {
            sq = compose_pair(&sq, &sq, ctx)?;
        }
    }
    if ctx.progress {
        eprintln!();
    }
    acc.ok_or_else(|| Error::arg("count", "must be a positive integer"))
}

// ---------------------------------------------------------------------------------------
// Mechanisms: enclosed tails of the continuous part, and exact atoms.

/// P[Z > a], Q[Z > a] of the continuous part, and P[Z ≤ a], Q[Z ≤ a] (each computed
/// without cancellation against 1).
#[derive(Clone, Copy, Debug)]
struct Tails {
    p_gt: Interval,
    q_gt: Interval,
    p_le: Interval,
    q_le: Interval,
}

/// (Φ(x), Φ(−x)), enclosed, from one evaluation.
fn phi2(x: Interval) -> (Interval, Interval) {
    crate::num::normal_cdf_pair(x)
}

/// An atom: exact loss (None = +∞) and enclosed P-mass.
struct Atom {
    loss: Option<Rational>,
    p: Interval,
}

struct Profile {
    tails: Option<Box<dyn Fn(Interval) -> Tails + Sync>>,
    atoms: Vec<Atom>,
    /// Loss interval outside which the continuous part has no mass (may be infinite).
    support: (f64, f64),
    /// Rough standard deviation of one copy's loss (grid heuristic only).
    spread: f64,
    /// The finest loss scale the grid should resolve (grid heuristic only): the spread, or for
    /// subsampled Gaussians also the distance |ln(1 − q)| from the accumulation point of the
    /// unsampled outputs to 0.
    detail: f64,
}

fn profile(m: &PldMechanism) -> Profile {
    let one = pt(1.0);
    match m {
        PldMechanism::Gaussian { rho } => {
            let r = fi_rat(rho);
            let s = (pt(2.0) * r).sqrt();
            Profile {
                tails: Some(Box::new(move |a| {
                    let (vp, vq) = ((r - a) / s, (-r - a) / s);
                    let (p_gt, p_le) = phi2(vp);
                    let (q_gt, q_le) = phi2(vq);
                    Tails {
                        p_gt,
                        q_gt,
                        p_le,
                        q_le,
                    }
                })),
                atoms: vec![],
                support: (f64::NEG_INFINITY, f64::INFINITY),
                spread: (2.0 * rho.to_f64()).sqrt(),
                detail: (2.0 * rho.to_f64()).sqrt(),
            }
        }
        PldMechanism::Laplace { eps } => {
            let e = fi_rat(eps);
            let half = pt(0.5);
            let em = (-e).exp();
            let ef = eps.to_f64();
            Profile {
                // continuous part: outputs between the two centres, loss (Δ − 2x)/b ∈ (−ε0, ε0)
                tails: Some(Box::new(move |a| {
                    let a = a.max(-e).min(e);
                    Tails {
                        p_gt: half * (one - ((a - e) * half).exp()),
                        q_gt: half * ((-(e + a) * half).exp() - em),
                        p_le: half * (((a - e) * half).exp() - em),
                        q_le: half * (one - (-(e + a) * half).exp()),
                    }
                })),
                atoms: vec![
                    Atom {
                        loss: Some(eps.clone()),
                        p: half,
                    },
                    Atom {
                        loss: Some(Rational::from(-eps)),
                        p: half * em,
                    },
                ],
                support: (-ef, ef),
                spread: ef,
                detail: ef,
            }
        }
        PldMechanism::RandomizedResponse { eps } => approx_atoms(eps, &Rational::new()),
        PldMechanism::ApproxDp { eps, delta } => approx_atoms(eps, delta),
        PldMechanism::SubsampledGaussian {
            sigma,
            rate,
            direction,
        } => {
            let (s, q) = (fi_rat(sigma), fi_rat(rate));
            let keep = one - q;
            let half = pt(0.5);
            let s2 = s.sqr();
            let (sf, qf) = (sigma.to_f64(), rate.to_f64());
            let spread = qf * ((1.0 / (sf * sf)).exp() - 1.0).max(0.0).sqrt();
            // the loss is monotone in the output x: threshold x(a) where it crosses a
            // e^{±a} − (1 − q) = expm1(±a) + q: with `m` = expm1(±a) the threshold is
            // σ² ln1p(m/q) + ½, free of the cancellation in e^{±a} − (1 − q) (a factor 1/q)
            let thr = move |m: Interval| s2 * Fi(m / q).ln1p().0 + half;
            // expm1 (MPFR) only where it matters; for |b| > ½ the plain form has no cancellation
            let em1 = |b: Interval| {
                if b.mag() > 0.5 {
                    b.exp() - pt(1.0)
                } else {
                    Fi(b).expm1().0
                }
            };
            let ln_keep = (1.0 - qf).ln();
            match direction {
                Direction::Remove => Profile {
                    // Z > a ⟺ x > x(e^a)
                    tails: Some(Box::new(move |a| {
                        let m = em1(a);
                        if (m + q).sup() <= 0.0 {
                            let (o, z) = (pt(1.0), pt(0.0));
                            return Tails {
                                p_gt: o,
                                q_gt: o,
                                p_le: z,
                                q_le: z,
                            };
                        }
                        let x = thr(m);
                        let (u0, u1) = (x / s, (x - one) / s);
                        let ((l0, g0), (l1, g1)) = (phi2(u0), phi2(u1));
                        Tails {
                            p_gt: keep * g0 + q * g1,
                            q_gt: g0,
                            p_le: keep * l0 + q * l1,
                            q_le: l0,
                        }
                    })),
                    atoms: vec![],
                    support: (ln_keep, f64::INFINITY),
                    spread,
                    detail: spread.min(-ln_keep),
                },
                Direction::Add => Profile {
                    // Z > a ⟺ x < x(e^{−a})
                    tails: Some(Box::new(move |a| {
                        let m = em1(-a);
                        if (m + q).sup() <= 0.0 {
                            let (o, z) = (pt(1.0), pt(0.0));
                            return Tails {
                                p_gt: z,
                                q_gt: z,
                                p_le: o,
                                q_le: o,
                            };
                        }
                        let x = thr(m);
                        let (u0, u1) = (x / s, (x - one) / s);
                        let ((g0, l0), (g1, l1)) = (phi2(u0), phi2(u1));
                        Tails {
                            p_gt: g0,
                            q_gt: keep * g0 + q * g1,
                            p_le: l0,
                            q_le: keep * l0 + q * l1,
                        }
                    })),
                    atoms: vec![],
                    support: (f64::NEG_INFINITY, -ln_keep),
                    spread,
                    detail: spread.min(-ln_keep),
                },
            }
        }
    }
}

/// (ε, δ)-randomized response: +∞ w.p. δ, ±ε w.p. (1−δ)·e^{±ε}/(1+e^ε) under P.
fn approx_atoms(eps: &Rational, delta: &Rational) -> Profile {
    let e = fi_rat(eps);
    let d = fi_rat(delta);
    let rest = pt(1.0) - d;
    let up = rest / (pt(1.0) + (-e).exp());
    let down = rest / (pt(1.0) + e.exp());
    let mut atoms = vec![
        Atom {
            loss: Some(eps.clone()),
            p: up,
        },
        Atom {
            loss: Some(Rational::from(-eps)),
            p: down,
        },
    ];
    if *delta > 0 {
        atoms.push(Atom { loss: None, p: d });
    }
    Profile {
        tails: None,
        atoms,
        support: (0.0, 0.0),
        spread: eps.to_f64().max(1e-6),
        detail: eps.to_f64().max(1e-6),
    }
}

// ---------------------------------------------------------------------------------------
// Discretisation.

/// Cell masses from tails at its ends: the form subtracting the smaller tails.
fn cell(lo: &Tails, hi: &Tails) -> (Interval, Interval) {
    let d = |gt_lo: Interval, gt_hi: Interval, le_lo: Interval, le_hi: Interval| {
        let v = if gt_lo.sup() <= 0.5 {
            gt_lo - gt_hi
        } else {
            le_hi - le_lo
        };
        Interval::try_from((v.inf().max(0.0), v.sup().max(0.0))).unwrap_or(Interval::ENTIRE)
    };
    (
        d(lo.p_gt, hi.p_gt, lo.p_le, hi.p_le),
        d(lo.q_gt, hi.q_gt, lo.q_le, hi.q_le),
    )
}

/// Grid index range [i_min, i_max] outside which the continuous part has P-mass ≤ τ/4 on
/// each side (a search: any range is sound, tails are charged to the side's rule).
fn range(pr: &Profile, ctx: &Ctx, tau: f64) -> Result<(i64, i64)> {
    let hf = ctx.h.to_f64();
    let mut lo_i = i64::MAX;
    let mut hi_i = i64::MIN;
    for a in &pr.atoms {
        if let Some(z) = &a.loss {
            let i = Rational::from(z / &ctx.h)
                .floor()
                .numer()
                .to_i64()
                .unwrap_or(0);
            lo_i = lo_i.min(i);
            hi_i = hi_i.max(i + 1);
        }
    }
    if let Some(t) = &pr.tails {
        let eval = |i: i64| t(ctx.point(i));
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
        let r = find(start, 1.0, &|i| mid(eval(i).p_gt) <= tau / 4.0);
        let l = find(start, -1.0, &|i| mid(eval(i).p_le) <= tau / 4.0);
        let r = if pr.support.1.is_finite() {
            r.min((pr.support.1 / hf).ceil() as i64 + 1)
        } else {
            r
        };
        let l = if pr.support.0.is_finite() {
            l.max((pr.support.0 / hf).floor() as i64 - 1)
        } else {
            l
        };
        lo_i = lo_i.min(l);
        hi_i = hi_i.max(r);
    }
    // e^{a} must stay finite in f64 for the cell formulas
    let reach = (lo_i as f64).abs().max(hi_i as f64) * hf;
    if !(reach <= MAX_LOSS) {
        return Err(Error::arg(
            "terms",
            format!("a mechanism's privacy loss reaches {reach:.0} (the PLD grid covers |loss| ≤ {MAX_LOSS}); such a mechanism is far from private — use the closed-form routes"),
        ));
    }
    Ok((lo_i, hi_i.max(lo_i + 1)))
}

/// One mechanism's material on the grid, shared by both sides: half-cell masses
/// (continuous part plus off-grid atoms), atoms on grid points and at +∞, and the
/// continuous mass beyond each end.
#[derive(Clone)]
struct Table {
    i0: i64,
    n: usize,
    /// e^{a_i} at the grid points, enclosed.
    y: Vec<Interval>,
    half_cells: Vec<(Interval, Interval)>,
    on_grid: Vec<(usize, Interval)>,
    at_inf: Vec<Interval>,
    below: Interval,
    above: Interval,
}

fn table(pr: &Profile, ctx: &Ctx) -> Result<Table> {
    let tau_f = ctx.tau as f64 / (2f64).powi(ctx.f as i32);
    let (i0, i1) = range(pr, ctx, tau_f)?;
    let n = (i1 - i0 + 1) as usize;
    if n > MAX_POINTS {
        return Err(Error::arg("grid", format!("one mechanism would need {n} grid points (at most {MAX_POINTS}); use a coarser --grid")));
    }
    let mut on_grid = Vec::new();
    let mut at_inf = Vec::new();
    // atoms: on the grid exactly, at +∞, or folded into the cell (half-cell) holding them
    let half_h = Rational::from(&ctx.h / 2u32);
    let mut cells_extra: Vec<(usize, Interval, Interval)> = Vec::new(); // (half-cell index, P, Q)
    for a in &pr.atoms {
        match &a.loss {
            None => at_inf.push(a.p),
            Some(z) => {
                let t = Rational::from(z / &ctx.h);
                if t.is_integer() {
                    let i = t.numer().to_i64().unwrap_or(0);
                    on_grid.push(((i - i0) as usize, a.p));
                } else {
                    // half-cell j = (b_j, b_{j+1}] with b_j = i0·h + j·h/2
                    let u = Rational::from((z - Rational::from(i0) * &ctx.h) / &half_h);
                    let j = u.ceil().numer().to_i64().unwrap_or(1) - 1;
                    let q = a.p * (-fi_rat(z)).exp();
                    cells_extra.push((j as usize, a.p, q));
                }
            }
        }
    }
    let zero = Tails {
        p_gt: pt(0.0),
        q_gt: pt(0.0),
        p_le: pt(0.0),
        q_le: pt(0.0),
    };
    // tails at the half-grid points b_j, j = 0 … 2(n−1)
    let half = pt(0.5) * ctx.hf;
    let nb = 2 * (n - 1) + 1;
    let tails: Vec<Tails> = match &pr.tails {
        None => vec![zero; nb],
        Some(t) => (0..nb)
            .map(|j| {
                let b = ctx.point(i0) + pt(j as f64) * half;
                t(b)
            })
            .collect(),
    };
    // material of half-cell j (continuous part + off-grid atoms in it)
    let mut half_cells: Vec<(Interval, Interval)> = (0..nb - 1)
        .map(|j| cell(&tails[j], &tails[j + 1]))
        .collect();
    for (j, p, q) in cells_extra {
        let c = &mut half_cells[j.min(nb - 2)];
        c.0 = c.0 + p;
        c.1 = c.1 + q;
    }
    let below = tails[0].p_le;
    let above = tails[nb - 1].p_gt;
    let y = (0..n).map(|i| ctx.point(i0 + i as i64).exp()).collect();
    Ok(Table {
        i0,
        n,
        y,
        half_cells,
        on_grid,
        at_inf,
        below,
        above,
    })
}

/// Discretise one copy of the mechanism onto the grid, dominating (Upper) or dominated (Lower).
fn discretize(tb: &Table, ctx: &Ctx) -> Result<GridPld> {
    let (i0, n, half_cells) = (tb.i0, tb.n, &tb.half_cells);
    let (below, above) = (tb.below, tb.above);
    let mut mass = vec![0u128; n];
    let mut inf = 0u128;
    for &(i, p) in &tb.on_grid {
        mass[i] += ctx.fixed(p)?;
    }
    for &p in &tb.at_inf {
        inf += ctx.fixed(p)?;
    }
    let y = |i: usize| tb.y[i];
    match ctx.side {
        Side::Upper => {
            mass[0] += ctx.fixed(below)?;
            inf += ctx.fixed(above)?;
            let eh = ctx.hf.exp();
            let ehm1 = Fi(ctx.hf).expm1().0;
            for c in 0..n - 1 {
                let (p, q) = (
                    half_cells[2 * c].0 + half_cells[2 * c + 1].0,
                    half_cells[2 * c].1 + half_cells[2 * c + 1].1,
                );
                if p.sup() <= 0.0 {
                    continue;
                }
                let y1q = y(c + 1) * q;
                mass[c] += ctx.fixed((y1q - p) / ehm1)?;
                mass[c + 1] += ctx.fixed((eh * p - y1q) / ehm1)?;
            }
        }
        Side::Lower => {
            // sweep: a pool of material at or below its target grid point t is balanced with
            // material above t until its loss is at least a_t, then emitted at a_t; a pool not
            // balanced within SWEEP_WINDOW grid steps above a_t is emitted at the highest grid
            // point at or below its loss ("flushed")
            let flush = |pool: (usize, Interval, Interval), mass: &mut Vec<u128>| -> Result<()> {
                let (t, pp, pq) = pool;
                // emitting at s is valid whenever pp − y(s)·pq ≥ 0 (certified); that predicate
                // falls as s rises (y increases, pq ≥ 0), so bisect for the highest such s ≤ t
                // (a linear scan made repeated flushes quadratic: 29 s at σ = 1e29); every s
                // the bisection keeps satisfies the predicate, monotone or not
                let ok = |s: usize| (pp - y(s) * pq).inf() >= 0.0;
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
                    mass[s] += ctx.fixed(pp)?;
                }
                Ok(())
            };
            let mut pool: Option<(usize, Interval, Interval)> = None;
            for (j, &(p, q)) in half_cells.iter().enumerate() {
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
                    flush((t, pp, pq), &mut mass)?;
                    pool = Some((tj, p, q));
                    continue;
                }
                let yt = y(t);
                let ep = pp - yt * pq;
                let av = p - yt * q;
                let need = (-ep.inf()).max(0.0);
                if av.inf() > 0.0 && need <= av.inf() {
                    let beta = (need / av.inf() * (1.0 + 1e-12)).min(1.0);
                    let b = pt(beta);
                    if (ep + b * av).inf() >= 0.0 {
                        mass[t] += ctx.fixed(pp + b * p)?;
                        let rest = pt(1.0) - b;
                        pool = Some((tj, rest * p, rest * q));
                        continue;
                    }
                }
                // not enough: absorb the whole half-cell and keep the target
                pool = Some((t, pp + p, pq + q));
            }
            if let Some(pl) = pool {
                flush(pl, &mut mass)?;
            }
        }
    }
    Ok(GridPld { off: i0, mass, inf })
}

// ---------------------------------------------------------------------------------------
// The composed curve: δ(ε) and ε(δ).

/// Suffix sums S_j = Σ_{i>j} ν_i and D_j = Σ_{i>j} ν_i (1 − e^{−(i−j)h}) for j = −1 … n−1
/// (index shifted by one), by D_j = (1 − e^{−h}) S_j + e^{−h} D_{j+1}: non-negative terms only.
struct Curve {
    off: i64,
    s: Vec<Interval>,
    d: Vec<Interval>,
    inf: Interval,
    side: Side,
    h: Rational,
}

impl Curve {
    fn new(p: &GridPld, ctx: &Ctx) -> Curve {
        let n = p.mass.len();
        let r = (-ctx.hf).exp();
        let one_r = -Fi(-ctx.hf).expm1().0;
        let mut s = vec![pt(0.0); n + 1];
        let mut d = vec![pt(0.0); n + 1];
        // slot k ↔ grid index off + k − 1
        for k in (0..n).rev() {
            s[k] = s[k + 1] + fixed_iv(p.mass[k], ctx.f);
            d[k] = one_r * s[k] + r * d[k + 1];
        }
        Curve {
            off: p.off,
            s,
            d,
            inf: fixed_iv(p.inf, ctx.f),
            side: ctx.side,
            h: ctx.h.clone(),
        }
    }
    fn pick(&self, x: Interval) -> f64 {
        match self.side {
            Side::Upper => x.sup(),
            Side::Lower => x.inf().max(0.0),
        }
    }
    /// δ at ε, certified on this side: with a_j ≤ ε < a_{j+1} and c = e^{ε − a_{j+1}},
    /// δ = ν(∞) + (1 − c)·S_j + c·D_{j+1}.
    fn delta(&self, eps: &Rational) -> f64 {
        let j = Rational::from(eps / &self.h)
            .floor()
            .numer()
            .to_i64()
            .unwrap_or(i64::MAX);
        let n = self.s.len() as i64 - 1;
        let k = j.saturating_sub(self.off).saturating_add(1); // slot of grid index j
        if k >= n {
            return self.pick(self.inf);
        }
        let k = k.max(0) as usize;
        let jj = (k as i64) + self.off - 1; // grid index of slot k
        let t = Rational::from(eps - Rational::from(jj + 1) * &self.h);
        let c = fi_rat(&t).exp().min(pt(1.0));
        let one_c = -Fi(fi_rat(&t)).expm1().0;
        let v = self.inf + one_c.max(pt(0.0)) * self.s[k] + c * self.d[k + 1];
        self.pick(v)
    }
    /// δ at grid slot k (grid index off + k − 1), this side.
    fn at_slot(&self, k: usize) -> f64 {
        self.pick(self.inf + self.d[k])
    }
}

/// The certified extreme ε on this side: Upper → the least ε found with δ_upper(ε) ≤ δ;
/// Lower → the largest ε found with δ_lower(ε) > δ (0 if none). The search is in floats;
/// every returned value is re-checked by [`Curve::delta`].
fn epsilon_side(c: &Curve, delta: &Rational) -> Result<Rational> {
    let df = delta.to_f64();
    let holds = |e: &Rational| match c.side {
        Side::Upper => Rational::from_f64(c.delta(e)).is_some_and(|v| v <= *delta),
        Side::Lower => Rational::from_f64(c.delta(e)).is_some_and(|v| v > *delta),
    };
    let zero = Rational::new();
    if c.side == Side::Upper && c.pick(c.inf) > df {
        return Err(Error::Numerical(
            "the PLD upper bound puts more mass at +∞ than δ; lower --tail".into(),
        ));
    }
    // slot-wise search for the first grid slot whose δ is ≤ δ
    let n = c.s.len() - 1;
    let first = (0..=n).find(|&k| c.at_slot(k) <= df).unwrap_or(n);
    if first == 0 {
        // δ(a_{off−1}) ≤ δ already below the support: Upper takes that point (or 0),
        // Lower the trivial bound 0
        let a = Rational::from(c.off - 1) * &c.h;
        return match c.side {
            Side::Upper if holds(&zero) => Ok(zero),
            Side::Upper if a > 0 && holds(&a) => Ok(a),
            Side::Upper => Err(Error::Numerical("PLD ε search failed to certify".into())),
            Side::Lower => Ok(zero),
        };
    }
    // within cell (a_{j}, a_{j+1}] with j+1 the grid index of slot `first`
    let j1 = first as i64 + c.off - 1;
    let a1 = Rational::from(j1) * &c.h;
    let s = c.pick(c.s[first - 1]);
    let dv = c.pick(c.d[first]);
    let cc = if s > dv {
        ((s + c.pick(c.inf) - df) / (s - dv)).clamp(1e-300, 1.0)
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
        if holds(&cand) {
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
        Side::Upper if holds(&a1) => Ok(a1),
        Side::Lower => {
            let a0 = Rational::from(j1 - 1) * &c.h;
            Ok(if a0 > 0 && holds(&a0) { a0 } else { zero })
        }
        _ => Err(Error::Numerical("PLD ε search failed to certify".into())),
    }
}

// ---------------------------------------------------------------------------------------
// Driver.

fn validate_term(t: &PldTerm) -> Result<()> {
    validate::count("count", &t.count)?;
    match &t.mechanism {
        PldMechanism::Gaussian { rho } => validate::positive("rho", rho),
        PldMechanism::Laplace { eps } => validate::positive("epsilon", eps),
        PldMechanism::RandomizedResponse { eps } => validate::nonnegative("epsilon", eps),
        PldMechanism::ApproxDp { eps, delta } => {
            validate::nonnegative("epsilon", eps)?;
            validate::unit_from_zero("delta", delta)
        }
        PldMechanism::SubsampledGaussian { sigma, rate, .. } => {
            validate::positive("sigma", sigma)?;
            validate::positive("rate", rate)?;
            if *rate > 1 {
                return Err(Error::arg(
                    "rate",
                    format!("must be at most 1, got {}", validate::show(rate)),
                ));
            }
            Ok(())
        }
    }
}

/// Rational gcd of the atoms' losses (so a grid dividing it holds them exactly).
fn atom_gcd(terms: &[PldTerm]) -> Option<Rational> {
    let mut g: Option<Rational> = None;
    for t in terms {
        let e = match &t.mechanism {
            PldMechanism::Laplace { eps }
            | PldMechanism::RandomizedResponse { eps }
            | PldMechanism::ApproxDp { eps, .. } => eps.clone(),
            _ => continue,
        };
        if e == 0 {
            continue;
        }
        g = Some(match g {
            None => e,
            Some(g) => {
                let a = Integer::from(g.numer() * e.denom());
                let b = Integer::from(e.numer() * g.denom());
                Rational::from((a.gcd(&b), Integer::from(g.denom() * e.denom())))
            }
        });
    }
    g
}

/// Automatic grid: about 1/1500 of the composed loss spread (dyadic), refined to divide the
/// atoms' gcd when there are atoms.
fn auto_grid(terms: &[PldTerm], profiles: &[Profile]) -> Rational {
    let var: f64 = terms
        .iter()
        .zip(profiles)
        .map(|(t, p)| t.count.to_f64() * p.spread * p.spread)
        .sum();
    // resolve the composed spread, and each copy's own spread (a copy much narrower than the
    // grid is smeared over two grid points, an error that then grows with the count)
    // (Gaussian copies are exempt: narrow ones are merged instead, see below)
    let finest = terms
        .iter()
        .zip(profiles)
        .filter(|(t, _)| !matches!(t.mechanism, PldMechanism::Gaussian { .. }))
        .map(|(_, p)| p.detail)
        .fold(f64::INFINITY, f64::min);
    let target = (var.sqrt() / 1500.0).min(finest / 4.0).clamp(1e-7, 0.05);
    let dyadic = Rational::from_f64((2f64).powi(target.log2().round() as i32)).unwrap();
    match atom_gcd(terms) {
        // atoms on the grid when that costs at most 8× the points; else they are split/merged
        Some(g) if g.to_f64() >= target / 8.0 => {
            let m = (g.to_f64() / target).ceil().max(1.0);
            Rational::from((
                g.numer().clone(),
                Integer::from(g.denom() * Integer::from(m as u64)),
            ))
        }
        _ => dyadic,
    }
}

/// Gaussian terms compose exactly (Theorem 9: ρ adds up); copies narrower than a few grid
/// widths are merged into one Gaussian term, which the grid then resolves.
fn merge_narrow_gaussians(terms: &[PldTerm], h: &Rational) -> Vec<PldTerm> {
    let hf = h.to_f64();
    let mut rho = Rational::new();
    let mut out = Vec::new();
    for t in terms {
        match &t.mechanism {
            PldMechanism::Gaussian { rho: r } if (2.0 * r.to_f64()).sqrt() < 4.0 * hf => {
                rho += Rational::from(r * &t.count);
            }
            _ => out.push(t.clone()),
        }
    }
    if rho > 0 {
        out.push(PldTerm {
            mechanism: PldMechanism::Gaussian { rho },
            count: Integer::from(1),
        });
    }
    out
}

fn new_ctx(s: &Setup, side: Side, progress: bool) -> Ctx {
    // one progress line: the upper side reports, the lower side (on another thread) is silent
    let progress = progress && side == Side::Upper;
    Ctx {
        h: s.h.clone(),
        hf: fi_rat(&s.h),
        f: s.f,
        tau: Rational::from(&s.tau << s.f)
            .floor()
            .numer()
            .to_u128()
            .unwrap_or(u128::MAX),
        side,
        progress,
        support: 0,
    }
}

fn tables(terms: &[PldTerm], s: &Setup) -> Result<Vec<Table>> {
    let ctx = new_ctx(s, Side::Upper, false);
    terms
        .iter()
        .map(|t| table(&profile(&t.mechanism), &ctx))
        .collect()
}

/// Compose all terms on one side: discretise each, self-compose by its count, convolve.
fn compose_side(
    terms: &[PldTerm],
    tabs: &[Table],
    s: &Setup,
    side: Side,
    progress: bool,
) -> Result<(GridPld, Ctx)> {
    let mut ctx = new_ctx(s, side, progress);
    let mut acc: Option<GridPld> = None;
    for (n, (t, tb)) in terms.iter().zip(tabs).enumerate() {
        let base = discretize(tb, &ctx)?;
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
            Some(a) => compose_pair(&a, &c, &mut ctx)?,
        });
    }
    let p = acc.ok_or_else(|| Error::arg("terms", "must not be empty"))?;
    Ok((p, ctx))
}

/// Both sides of one query, the lower on a second thread; `f` maps a side's curve to its answer.
fn both_sides<T: Send>(
    s: &Setup,
    progress: bool,
    f: impl Fn(&Curve) -> Result<T> + Sync,
) -> Result<(T, T, usize)> {
    let terms = &s.terms;
    let tabs = tables(terms, s)?;
    let run = |side| -> Result<(T, usize)> {
        let (p, ctx) = compose_side(terms, &tabs, s, side, progress)?;
        Ok((f(&Curve::new(&p, &ctx))?, ctx.support))
    };
    let (lo, hi) = std::thread::scope(|sc| {
        let lo = sc.spawn(|| run(Side::Lower));
        let hi = run(Side::Upper);
        (lo.join(), hi)
    });
    let (lo, s1) = lo.map_err(|_| Error::Numerical("PLD worker failed".into()))??;
    let (hi, s2) = hi?;
    Ok((lo, hi, s1.max(s2)))
}

struct Setup {
    h: Rational,
    tau: Rational,
    f: u32,
    /// The terms as composed (narrow Gaussians merged).
    terms: Vec<PldTerm>,
}

fn setup(terms: &[PldTerm], opts: &PldOptions, delta_hint: Option<&Rational>) -> Result<Setup> {
    validate::nonempty("terms", terms)?;
    for t in terms {
        validate_term(t)?;
    }
    let profiles: Vec<Profile> = terms.iter().map(|t| profile(&t.mechanism)).collect();
    let h = match &opts.grid {
        Some(g) => {
            validate::positive("grid", g)?;
            g.clone()
        }
        None => auto_grid(terms, &profiles),
    };
    let k_total: f64 = terms.iter().map(|t| t.count.to_f64()).sum();
    let tau = match &opts.tail {
        Some(t) => {
            validate::positive("tail", t)?;
            if *t > Rational::from((1, 1000)) {
                return Err(Error::arg("tail", "must be at most 1/1000"));
            }
            t.clone()
        }
        // ε(δ): truncations may cost a 10⁻⁶ fraction of δ; δ(ε): an absolute 10⁻²⁰
        None => {
            let budget = delta_hint.map(|d| d.to_f64() * 1e-6).unwrap_or(1e-20);
            let t = budget / (2.0 * k_total);
            let m = (-t.log10()).ceil().clamp(3.0, 300.0) as u32;
            Rational::from((1, Integer::from(10u32).pow(m)))
        }
    };
    if tau < Rational::from((1, Integer::from(1u32) << MIN_TAIL_BITS)) {
        return Err(Error::arg(
            if opts.tail.is_some() { "tail" } else { "delta" },
            "below the PLD accountant's resolution (tail mass ≥ 2^-100 per truncation); use --method rdp",
        ));
    }
    // rounding to 2^−F costs at most 2^−F per point per product: far below τ
    let f = ((-tau.to_f64().log2()).ceil() as i64 + 24).clamp(64, 124) as u32;
    // automatic grid: no single mechanism's table above TABLE_TARGET points (a long-tailed copy
    // with a narrow bulk, e.g. q = 10⁻⁴ and σ = 0.5, would otherwise ask for millions)
    let mut h = h;
    if opts.grid.is_none() {
        while h < Rational::from((1, 20)) {
            let probe = new_ctx(
                &Setup {
                    h: h.clone(),
                    tau: tau.clone(),
                    f,
                    terms: vec![],
                },
                Side::Upper,
                false,
            );
            let tau_f = probe.tau as f64 / (2f64).powi(f as i32);
            let widest = profiles
                .iter()
                .filter_map(|p| range(p, &probe, tau_f).ok())
                .map(|(a, b)| (b - a) as usize)
                .max()
                .unwrap_or(0);
            if widest <= TABLE_TARGET {
                break;
            }
            h *= 2u32;
        }
    }
    let terms = merge_narrow_gaussians(terms, &h);
    // refuse up front what the support guard would refuse after minutes of work
    let spread: f64 = terms
        .iter()
        .map(|t| t.count.to_f64() * profile(&t.mechanism).spread.powi(2))
        .sum::<f64>()
        .sqrt();
    let estimate = 20.0 * spread / h.to_f64();
    if !(estimate <= MAX_SUPPORT as f64) {
        return Err(Error::arg(
            "grid",
            format!("the composition would need about {estimate:.1e} grid points (at most {MAX_SUPPORT}); use a coarser --grid"),
        ));
    }
    Ok(Setup { h, tau, f, terms })
}

fn report(lo: Rational, hi: Rational, s: &Setup, support: usize) -> Result<PldReport> {
    Ok(PldReport {
        enclosure: Enclosure::from_rationals(&lo, &hi, 128, Arithmetic::F64Interval)?,
        grid: s.h.clone(),
        tail: s.tau.clone(),
        fixed_bits: s.f,
        support,
    })
}

/// Two-sided certified δ(ε) of the composition of `terms` (Theorem 9 on a grid).
///
/// # Guarantee
/// `lower ≤ δ(ε) ≤ upper` for the composition of the exact PLDs, for any grid and tail
/// (they set only the width). Errors on invalid terms, ε < 0, or a grid/tail out of range.
/// Note: `proofs-notes/pld_delta.md`.
pub fn pld_delta(terms: &[PldTerm], eps: &Rational, opts: &PldOptions) -> Result<PldReport> {
    validate::nonnegative("epsilon", eps)?;
    let s = setup(terms, opts, None)?;
    let (lo, hi, support) = both_sides(&s, opts.progress, |c| {
        let v = c.delta(eps).min(1.0);
        Ok(Rational::from_f64(v).unwrap_or_else(|| Rational::from(1)))
    })?;
    report(lo, hi, &s, support)
}

/// Two-sided certified ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ δ} of the composition of `terms`.
///
/// # Guarantee
/// `lower ≤ ε(δ) ≤ upper` for the exact composition, for any grid and tail. Errors on
/// invalid terms, δ ∉ (0, 1), or when the tail charged to +∞ alone exceeds δ.
/// Note: `proofs-notes/pld_epsilon.md`.
pub fn pld_epsilon(terms: &[PldTerm], delta: &Rational, opts: &PldOptions) -> Result<PldReport> {
    validate::open_unit("delta", delta)?;
    let s = setup(terms, opts, Some(delta))?;
    let (lo, hi, support) = both_sides(&s, opts.progress, |c| epsilon_side(c, delta))?;
    report(lo, hi, &s, support)
}

/// DP-SGD (add/remove neighbours): ε(δ) of `steps` Poisson-subsampled Gaussian steps, the
/// larger of the two directions. Upper: both directions' upper bounds; lower: the lower
/// bound of the direction whose upper bound is larger (any one direction's lower bound is a
/// lower bound on the maximum).
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact add/remove DP-SGD privacy curve. Note:
/// `proofs-notes/dpsgd_pld_epsilon.md`.
pub fn dpsgd_pld_epsilon(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<PldReport> {
    validate::open_unit("delta", delta)?;
    let term = |direction| PldTerm {
        mechanism: PldMechanism::SubsampledGaussian {
            sigma: sigma.clone(),
            rate: rate.clone(),
            direction,
        },
        count: steps.clone(),
    };
    let s = setup(&[term(Direction::Remove)], opts, Some(delta))?;
    // one progress line: the remove direction's upper side (the longest job) reports
    let run = |d: Direction, tabs: &[Table], side: Side| -> Result<(Rational, usize)> {
        let progress = opts.progress && d == Direction::Remove;
        let (p, ctx) = compose_side(&[term(d)], tabs, &s, side, progress)?;
        Ok((epsilon_side(&Curve::new(&p, &ctx), delta)?, ctx.support))
    };
    // four independent jobs on as many threads (the OS shares the cores): the add direction's
    // table and upper side; the remove direction's table, then its lower and upper sides
    let (add_job, lo_rem, up_rem) = std::thread::scope(|sc| {
        let add_job = sc.spawn(|| -> Result<_> {
            let add = tables(&[term(Direction::Add)], &s)?;
            let up = run(Direction::Add, &add, Side::Upper)?;
            Ok((add, up))
        });
        let rem = match tables(&[term(Direction::Remove)], &s) {
            Ok(r) => r,
            Err(e) => return (add_job.join(), Err(e), Err(Error::Numerical(String::new()))),
        };
        let rem_copy = rem.clone();
        let lo = sc.spawn(move || run(Direction::Remove, &rem_copy, Side::Lower));
        let up = run(Direction::Remove, &rem, Side::Upper);
        let lo = lo
            .join()
            .unwrap_or_else(|_| Err(Error::Numerical("PLD worker failed".into())));
        (add_job.join(), lo, up)
    });
    let (add, up_add) = add_job.map_err(|_| Error::Numerical("PLD worker failed".into()))??;
    let lo_rem = lo_rem?;
    let up_rem = up_rem?;
    let mut support = lo_rem.1.max(up_rem.1).max(up_add.1);
    let lo = if up_add.0 > up_rem.0 {
        let (l, sp) = run(Direction::Add, &add, Side::Lower)?;
        support = support.max(sp);
        l.max(lo_rem.0)
    } else {
        lo_rem.0
    };
    let hi = up_add.0.max(up_rem.0);
    report(lo, hi, &s, support)
}
