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
use crate::num::Interval;
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
/// The automatic grid is also doubled until the composed support estimate is at most this
/// (measured: 1e7 DP-SGD steps reach 3·10⁵ points and 6 s; user-chosen grids keep MAX_SUPPORT).
const COMPOSED_TARGET: f64 = 400_000.0;
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

/// The point interval [x, x]. A NaN gives ENTIRE: a widening, so every use stays an enclosure
/// (a mass enclosed by ENTIRE is then refused by `Ctx::fixed` on the upper side and counted as 0,
/// a sub-measure, on the lower side).
fn pt(x: f64) -> Interval {
    Interval::try_from((x, x)).unwrap_or(Interval::ENTIRE)
}

/// `a += b` on fixed-point masses, refusing an overflow (masses stay far below 2^126, so this
/// never fires on a valid run; a wrapped sum would drop mass from the upper side).
fn add_mass(a: &mut u128, b: u128) -> Result<()> {
    *a = a
        .checked_add(b)
        .ok_or_else(|| Error::Numerical("PLD fixed-point mass overflow".into()))?;
    Ok(())
}

/// ⌊r⌋ as an i64 grid index; an index beyond i64 is refused (the grid would have to be absurdly
/// fine or the loss absurdly large), never replaced by another index.
fn floor_index(r: &Rational, what: &str) -> Result<i64> {
    r.clone().floor().numer().to_i64().ok_or_else(|| {
        Error::arg(
            "grid",
            format!("{what} lies beyond 2^63 grid steps; use a coarser --grid"),
        )
    })
}

fn fi_rat(r: &Rational) -> Interval {
    Fi::from_rational(r, 53).0
}

impl Ctx {
    /// Fixed-point value of an enclosed non-negative mass, rounded to this side: ⌈sup·2^F⌉
    /// (Upper) or ⌊inf·2^F⌋ (Lower). The exact mass is ≥ 0, so a negative end is replaced by 0
    /// (still a bound on the right side). Scaling by 2^F is exact in f64 and the result is an
    /// integer below 2^126 before the cast, so the cast is exact. An empty or unbounded
    /// enclosure, or one at or above 2^126·2^−F, is an error on both sides.
    fn fixed(&self, x: Interval) -> Result<u128> {
        let scale = (2f64).powi(self.f as i32);
        if x.is_empty() || x.sup().is_nan() || x.inf().is_nan() {
            return Err(Error::Numerical("PLD mass enclosure is empty".into()));
        }
        let v = match self.side {
            Side::Upper => (x.sup().max(0.0) * scale).ceil(),
            Side::Lower => (x.inf().max(0.0) * scale).floor(),
        };
        if !(v < 2f64.powi(126)) {
            return Err(Error::Numerical(
                "PLD mass enclosure not finite or above the fixed-point range".into(),
            ));
        }
        Ok(v as u128)
    }
    /// Grid point i·h, enclosed. (`i as f64` is exact for |i| ≤ 2^53, which every table
    /// respects by far; beyond that the enclosure comes from the exact rational i·h instead of
    /// a rounded index.)
    fn point(&self, i: i64) -> Interval {
        let x = i as f64;
        if x.abs() <= 2f64.powi(53) {
            pt(x) * self.hf
        } else {
            fi_rat(&(Rational::from(i) * &self.h))
        }
    }
}

/// Enclosure of a fixed-point mass m·2^−F. (`lo ≤ hi` by construction, so the ENTIRE
/// fallback below is unreachable; it would be a widening anyway.)
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
    if a.mass.is_empty() || b.mass.is_empty() {
        return Err(Error::Numerical(
            "PLD grid measure with no grid points".into(),
        ));
    }
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
        // slots past the product's top limb are zero (GMP strips high zero limbs)
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
        off: a
            .off
            .checked_add(b.off)
            .ok_or_else(|| Error::Numerical("PLD grid offset overflow".into()))?,
        mass,
        inf,
    })
}

/// Cut tails of mass ≤ τ: Upper moves the left tail up to the first kept point and the right
/// tail to +∞; Lower drops the left tail and moves the right tail down to the last kept point.
fn truncate(p: &mut GridPld, ctx: &Ctx) -> Result<()> {
    let m = &p.mass;
    if m.is_empty() {
        return Err(Error::Numerical(
            "PLD grid measure with no grid points".into(),
        ));
    }
    // tail sums stay ≤ τ; the tests saturate, so a huge mass is never taken for a small one
    let (mut lo, mut left) = (0usize, 0u128);
    while lo + 1 < m.len() && left.saturating_add(m[lo]) <= ctx.tau {
        left += m[lo];
        lo += 1;
    }
    let (mut hi, mut right) = (m.len() - 1, 0u128);
    while hi > lo && right.saturating_add(m[hi]) <= ctx.tau {
        right += m[hi];
        hi -= 1;
    }
    let mut kept = m[lo..=hi].to_vec();
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

fn compose_pair(a: &GridPld, b: &GridPld, ctx: &mut Ctx) -> Result<GridPld> {
    if a.mass.len() + b.mass.len() > MAX_SUPPORT {
        return Err(Error::arg(
            "grid",
            format!("a composed PLD would exceed {MAX_SUPPORT} grid points; use a coarser --grid"),
        ));
    }
    let mut c = convolve(a, b, ctx)?;
    truncate(&mut c, ctx)?;
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
            if !(z.to_f64().abs() <= MAX_LOSS) {
                return Err(far_from_private(z.to_f64().abs()));
            }
            let i = floor_index(&Rational::from(z / &ctx.h), "an atom's loss")?;
            lo_i = lo_i.min(i);
            hi_i = hi_i.max(i.saturating_add(1));
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
        // (f64 → i64 casts saturate; an index that far out fails the reach check below)
        let r = if pr.support.1.is_finite() {
            r.min(((pr.support.1 / hf).ceil() as i64).saturating_add(1))
        } else {
            r
        };
        let l = if pr.support.0.is_finite() {
            l.max(((pr.support.0 / hf).floor() as i64).saturating_sub(1))
        } else {
            l
        };
        lo_i = lo_i.min(l);
        hi_i = hi_i.max(r);
    }
    // e^{a} must stay finite in f64 for the cell formulas
    let reach = (lo_i as f64).abs().max(hi_i as f64) * hf;
    if !(reach <= MAX_LOSS) {
        return Err(far_from_private(reach));
    }
    Ok((lo_i, hi_i.max(lo_i + 1)))
}

fn far_from_private(reach: f64) -> Error {
    Error::arg(
        "terms",
        format!("a mechanism's privacy loss reaches {reach:.0} (the PLD grid covers |loss| ≤ {MAX_LOSS}); such a mechanism is far from private — use the closed-form routes"),
    )
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

/// `i` as an index into a table of `len` slots; anything else is refused (an atom moved to
/// another slot would move its mass to another loss, possibly the unsafe way).
fn slot(i: Option<i64>, len: usize) -> Result<usize> {
    match i {
        Some(i) if i >= 0 && (i as u64) < len as u64 => Ok(i as usize),
        _ => Err(Error::Numerical(
            "PLD atom outside its mechanism's grid range".into(),
        )),
    }
}

fn table(pr: &Profile, ctx: &Ctx) -> Result<Table> {
    let tau_f = ctx.tau as f64 / (2f64).powi(ctx.f as i32);
    let (i0, i1) = range(pr, ctx, tau_f)?;
    // i0 < i1 (from `range`); the width in i128 cannot overflow and is range-checked before the cast
    let width = i1 as i128 - i0 as i128 + 1;
    if width > MAX_POINTS as i128 {
        return Err(Error::arg("grid", format!("one mechanism would need {width} grid points (at most {MAX_POINTS}); use a coarser --grid")));
    }
    let n = width as usize;
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
                    let i = floor_index(&t, "an atom's loss")?;
                    on_grid.push((slot(i.checked_sub(i0), n)?, a.p));
                } else {
                    // half-cell j = (b_j, b_{j+1}] with b_j = i0·h + j·h/2
                    let u = Rational::from((z - Rational::from(i0) * &ctx.h) / &half_h);
                    let j = floor_index(&Rational::from(-u), "an atom's loss")?;
                    let q = a.p * (-fi_rat(z)).exp();
                    // j = ⌈u⌉ − 1 = −⌊−u⌋ − 1 must name one of the 2(n − 1) half-cells
                    cells_extra.push((
                        slot(j.checked_neg().and_then(|x| x.checked_sub(1)), 2 * (n - 1))?,
                        a.p,
                        q,
                    ));
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
        let c = &mut half_cells[j];
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
        add_mass(&mut mass[i], ctx.fixed(p)?)?;
    }
    for &p in &tb.at_inf {
        add_mass(&mut inf, ctx.fixed(p)?)?;
    }
    let y = |i: usize| tb.y[i];
    match ctx.side {
        Side::Upper => {
            add_mass(&mut mass[0], ctx.fixed(below)?)?;
            add_mass(&mut inf, ctx.fixed(above)?)?;
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
                add_mass(&mut mass[c], ctx.fixed((y1q - p) / ehm1)?)?;
                add_mass(&mut mass[c + 1], ctx.fixed((eh * p - y1q) / ehm1)?)?;
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
                    add_mass(&mut mass[s], ctx.fixed(pp)?)?;
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
                        add_mass(&mut mass[t], ctx.fixed(pp + b * p)?)?;
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
    /// This side's end of an enclosure of a δ: the sup (Upper) or the inf (Lower; δ ≥ 0, so a
    /// negative inf is raised to 0, still a lower bound). An empty enclosure is an error: its
    /// inf is +∞, which would otherwise become the lower bound 1 after capping.
    fn pick(&self, x: Interval) -> Result<f64> {
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
    fn delta(&self, eps: &Rational) -> Result<f64> {
        if *eps < 0 {
            return Err(Error::arg("epsilon", "must be ≥ 0"));
        }
        // ε ≥ 0, so j ≥ 0; a j beyond i64 lies beyond the last grid index (an i64), where δ is
        // exactly the mass at +∞: i64::MAX (saturating below) stands for that exactly
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
        // k < 0: ε below the first grid point, where the same formula holds with slot 0
        let k = k.max(0) as usize;
        // a_{j+1} with j + 1 = off + k the grid index of slot k + 1 (exact, in rationals)
        let t = Rational::from(eps - (Rational::from(k) + self.off) * &self.h);
        // t ≤ 0 exactly, so c = e^t ≤ 1 and 1 − c ≥ 0: the min/max below only drop the
        // parts of the enclosures outside the exact values' range
        let c = fi_rat(&t).exp().min(pt(1.0));
        let one_c = -Fi(fi_rat(&t)).expm1().0;
        let v = self.inf + one_c.max(pt(0.0)) * self.s[k] + c * self.d[k + 1];
        self.pick(v)
    }
    /// δ at grid slot k (grid index off + k − 1), this side.
    fn at_slot(&self, k: usize) -> Result<f64> {
        self.pick(self.inf + self.d[k])
    }
}

/// The certified extreme ε on this side: Upper → the least ε found with δ_upper(ε) ≤ δ;
/// Lower → the largest ε found with δ_lower(ε) > δ (0 if none). The search is in floats;
/// every returned value is re-checked by [`Curve::delta`].
fn epsilon_side(c: &Curve, delta: &Rational) -> Result<Rational> {
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
        let a = (Rational::from(c.off) - 1u32) * &c.h;
        return match c.side {
            Side::Upper if holds(&zero)? => Ok(zero),
            Side::Upper if a > 0 && holds(&a)? => Ok(a),
            Side::Upper => Err(Error::Numerical("PLD ε search failed to certify".into())),
            Side::Lower => Ok(zero),
        };
    }
    // within cell (a_{j}, a_{j+1}] with j+1 the grid index of slot `first`
    // j + 1 = off + first − 1, in rationals (no i64 overflow)
    let j1 = Rational::from(first) + c.off - 1u32;
    let a1 = Rational::from(&j1 * &c.h);
    let s = c.pick(c.s[first - 1])?;
    let dv = c.pick(c.d[first])?;
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
            let a0 = (j1 - 1u32) * &c.h;
            Ok(if a0 > 0 && holds(&a0)? { a0 } else { zero })
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

fn new_ctx(s: &Setup, side: Side, progress: bool) -> Result<Ctx> {
    // one progress line: the upper side reports, the lower side (on another thread) is silent
    let progress = progress && side == Side::Upper;
    // τ ≤ 10⁻³ and F ≤ 124, so ⌊τ·2^F⌋ < 2^115 fits; a τ that did not would be refused, not
    // replaced (a huge τ would truncate whole measures)
    let tau = Rational::from(&s.tau << s.f)
        .floor()
        .numer()
        .to_u128()
        .filter(|&t| t < 1u128 << 124)
        .ok_or_else(|| Error::arg("tail", "above the fixed-point range"))?;
    Ok(Ctx {
        h: s.h.clone(),
        hf: fi_rat(&s.h),
        f: s.f,
        tau,
        side,
        progress,
        support: 0,
    })
}

fn tables(terms: &[PldTerm], s: &Setup) -> Result<Vec<Table>> {
    let ctx = new_ctx(s, Side::Upper, false)?;
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
    let mut ctx = new_ctx(s, side, progress)?;
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
            )?;
            let tau_f = probe.tau as f64 / (2f64).powi(f as i32);
            let widest = profiles
                .iter()
                .filter_map(|p| range(p, &probe, tau_f).ok())
                .map(|(a, b)| (b - a) as usize)
                .max()
                // (a probe only chooses h: a profile whose range fails here fails again,
                // with its error, when `tables` builds it)
                .unwrap_or(0);
            if widest <= TABLE_TARGET {
                break;
            }
            h *= 2u32;
        }
    }
    // the composed support estimate: 20 spreads of the sum over the grid width
    let estimate_at = |h: &Rational| -> (Vec<PldTerm>, f64) {
        let terms = merge_narrow_gaussians(terms, h);
        let spread: f64 = terms
            .iter()
            .map(|t| t.count.to_f64() * profile(&t.mechanism).spread.powi(2))
            .sum::<f64>()
            .sqrt();
        let estimate = 20.0 * spread / h.to_f64();
        (terms, estimate)
    };
    let (mut terms, mut estimate) = estimate_at(&h);
    // automatic grid: also keep the composed support near COMPOSED_TARGET, so that huge counts
    // (10⁹ steps, a Laplace release repeated 10⁹ times) cost seconds and a wider bracket instead
    // of minutes of squarings of a 10⁷-point grid (the grid is a width choice only)
    if opts.grid.is_none() {
        while estimate > COMPOSED_TARGET && estimate.is_finite() {
            h *= 2u32;
            (terms, estimate) = estimate_at(&h);
        }
    }
    // refuse up front what the support guard would refuse after minutes of work
    if !(estimate <= MAX_SUPPORT as f64) {
        return Err(Error::arg(
            "grid",
            if estimate.is_finite() {
                format!("the composition would need about {estimate:.1e} grid points (at most {MAX_SUPPORT}); use a coarser --grid")
            } else {
                format!("the composition would need more than 1e308 grid points (at most {MAX_SUPPORT}); use a coarser --grid")
            },
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
        // δ ≤ 1 always, so capping either side at 1 keeps it a bound; a non-finite value
        // (impossible: `pick` refuses empty enclosures, and the min caps +∞) is an error,
        // never replaced by 1 (on the lower side that would claim δ ≥ 1)
        let v = c.delta(eps)?.min(1.0);
        Rational::from_f64(v).ok_or_else(|| Error::Numerical("PLD δ bound is not finite".into()))
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

// ---------------------------------------------------------------------------------------
// Unit tests of the exact kernels, bypassing `setup`: expected values are exact integers
// (naive big-integer convolution, hand-computed truncations and placements) or 256-bit MPFR
// hockey-stick sums of the exact measures, never the kernels' own arithmetic.
#[cfg(test)]
mod tests {
    use super::*;
    use rug::Float;

    const P: u32 = 256;

    fn ctx(h: &str, f: u32, tau: u128, side: Side) -> Ctx {
        let h = crate::num::parse_exact(h).unwrap();
        Ctx {
            hf: fi_rat(&h),
            h,
            f,
            tau,
            side,
            progress: false,
            support: 0,
        }
    }
    /// xorshift64*: a fixed pseudo-random stream (no dependence on the code under test).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, bound: u128) -> u128 {
            let v = (self.next() as u128) << 64 | self.next() as u128;
            v % bound
        }
    }
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
        for f in [64u32, 100, 124] {
            for (v, lo, hi) in [
                (Integer::from(0), 0u128, 0u128),
                (Integer::from(1), 0, 1),
                (Integer::from(1) << f, 1, 1),
                ((Integer::from(5) << f) + 1u32, 5, 6),
                ((Integer::from(7) << f) - 1u32, 6, 7),
                (
                    (Integer::from(1) << (f + 125)) + 3u32,
                    1 << 125,
                    (1 << 125) + 1,
                ),
            ] {
                let d = v.to_digits::<u64>(Order::Lsf);
                assert_eq!(shr_round(&d, f, Side::Lower), Some(lo), "{v} >> {f} down");
                assert_eq!(shr_round(&d, f, Side::Upper), Some(hi), "{v} >> {f} up");
            }
            // quotients ≥ 2^126 are refused, also when the excess sits in a higher limb
            for v in [Integer::from(1) << (f + 126), Integer::from(1) << (f + 200)] {
                let d = v.to_digits::<u64>(Order::Lsf);
                assert_eq!(shr_round(&d, f, Side::Lower), None);
                assert_eq!(shr_round(&d, f, Side::Upper), None);
            }
        }
    }

    /// The packed product against the naive O(n·m) exact convolution, masses up to just below 4
    /// (the largest the slot width admits), vectors of length 1 (single atoms) to 300.
    #[test]
    fn convolution_equals_naive_exact_convolution() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for f in [64u32, 100, 124] {
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
                let limit = 1u128 << (f + 2);
                let mut draw = |n: usize| -> Vec<u128> {
                    (0..n)
                        .map(|_| match kind {
                            0 => limit - 1 - rng.below(3),
                            1 => rng.below(limit),
                            _ => rng.below((1u128 << f) / n as u128),
                        })
                        .collect()
                };
                let (ma, mb) = (draw(na), draw(nb));
                let (ia, ib) = (draw(1)[0], draw(1)[0]);
                let a = GridPld {
                    off: -3,
                    mass: ma,
                    inf: ia,
                };
                let b = GridPld {
                    off: 11,
                    mass: mb,
                    inf: ib,
                };
                for side in [Side::Upper, Side::Lower] {
                    let c = ctx("1/64", f, 0, side);
                    let mut want: Vec<Integer> = (0..na + nb - 1)
                        .map(|k| {
                            let mut s = Integer::new();
                            for i in 0..na {
                                if k >= i && k - i < nb {
                                    s += Integer::from(a.mass[i]) * b.mass[k - i];
                                }
                            }
                            div_pow2(&s, f, side)
                        })
                        .collect();
                    let ta: Integer = a.mass.iter().map(|&m| Integer::from(m)).sum();
                    let tb: Integer = b.mass.iter().map(|&m| Integer::from(m)).sum();
                    let inf = Integer::from(a.inf) * (tb + b.inf) + ta * b.inf;
                    want.push(div_pow2(&inf, f, side));
                    // a result mass ≥ 2^126 (possible only for total masses far above 1) is refused
                    let fits = want.iter().all(|w| *w < Integer::from(1) << 126);
                    match convolve(&a, &b, &c) {
                        Ok(got) => {
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

    #[test]
    fn convolution_refuses_masses_outside_the_fixed_point_range() {
        let c = ctx("1/64", 64, 0, Side::Upper);
        let ok = GridPld {
            off: 0,
            mass: vec![1, 2],
            inf: 0,
        };
        let big = GridPld {
            off: 0,
            mass: vec![1u128 << 66],
            inf: 0,
        };
        let big_inf = GridPld {
            off: 0,
            mass: vec![1],
            inf: 1u128 << 66,
        };
        let empty = GridPld {
            off: 0,
            mass: vec![],
            inf: 0,
        };
        for bad in [&big, &big_inf, &empty] {
            assert!(matches!(convolve(&ok, bad, &c), Err(Error::Numerical(_))));
            assert!(matches!(convolve(bad, &ok, &c), Err(Error::Numerical(_))));
        }
        let far = GridPld {
            off: i64::MAX,
            mass: vec![1],
            inf: 0,
        };
        let far2 = GridPld {
            off: 1,
            mass: vec![1],
            inf: 0,
        };
        assert!(matches!(
            convolve(&far, &far2, &c),
            Err(Error::Numerical(_))
        ));
    }

    #[test]
    fn truncation_moves_tails_by_hand() {
        let p = GridPld {
            off: 10,
            mass: vec![1, 2, 3, 100, 4, 1],
            inf: 7,
        };
        // τ = 3: left tail {1, 2} (sum 3), right tail {1} (1 + 4 > 3)
        let mut up = p.clone();
        truncate(&mut up, &ctx("1", 64, 3, Side::Upper)).unwrap();
        assert_eq!((up.off, up.mass.clone(), up.inf), (12, vec![6, 100, 4], 8));
        let mut lo = p.clone();
        truncate(&mut lo, &ctx("1", 64, 3, Side::Lower)).unwrap();
        assert_eq!((lo.off, lo.mass.clone(), lo.inf), (12, vec![3, 100, 5], 7));
        // a single atom is kept whatever τ
        let mut one = GridPld {
            off: -5,
            mass: vec![2],
            inf: 0,
        };
        truncate(&mut one, &ctx("1", 64, 1000, Side::Upper)).unwrap();
        assert_eq!((one.off, one.mass), (-5, vec![2]));
        // τ above everything: Upper keeps one point holding the left tail, sends the rest to +∞
        let mut all = p.clone();
        truncate(&mut all, &ctx("1", 64, 1000, Side::Upper)).unwrap();
        assert_eq!((all.off, all.mass, all.inf), (15, vec![111], 7));
        let mut empty = GridPld {
            off: 0,
            mass: vec![],
            inf: 0,
        };
        assert!(truncate(&mut empty, &ctx("1", 64, 3, Side::Upper)).is_err());
        // an overflowing move is an error, not a wrapped mass
        let mut over = GridPld {
            off: 0,
            mass: vec![2, u128::MAX - 1],
            inf: 0,
        };
        assert!(truncate(&mut over, &ctx("1", 64, 3, Side::Upper)).is_err());
    }

    // --- discretisation: domination against exact measures -------------------------------

    /// An exact measure: atoms (loss, P-mass), None = +∞; P-masses dyadic (exact in f64).
    type Atoms = Vec<(Option<Rational>, f64)>;

    fn atoms_profile(atoms: &Atoms) -> Profile {
        Profile {
            tails: None,
            atoms: atoms
                .iter()
                .map(|(z, p)| Atom {
                    loss: z.clone(),
                    p: pt(*p),
                })
                .collect(),
            support: (0.0, 0.0),
            spread: 1.0,
            detail: 1.0,
        }
    }
    /// δ_μ(ε) = Σ p (1 − e^{ε − z})₊ of exact atoms at 256 bits.
    fn atoms_delta(atoms: &Atoms, eps: &Rational) -> Float {
        let mut s = Float::with_val(P, 0);
        for (z, p) in atoms {
            match z {
                None => s += *p,
                Some(z) if z > eps => {
                    let t = Float::with_val(P, Rational::from(eps - z));
                    s += Float::with_val(P, 1 - t.exp()) * *p;
                }
                _ => {}
            }
        }
        s
    }
    /// δ of a grid measure (masses m·2^−F at (off + i)h), at 256 bits from the exact integers.
    fn grid_delta(g: &GridPld, c: &Ctx, eps: &Rational) -> Float {
        let scale = Float::with_val(P, 1) >> c.f;
        let mut s = Float::with_val(P, g.inf) * &scale;
        for (i, &m) in g.mass.iter().enumerate() {
            if m == 0 {
                continue;
            }
            let a = Rational::from(g.off + i as i64) * &c.h;
            if a > *eps {
                let t = Float::with_val(P, Rational::from(eps - &a));
                s += Float::with_val(P, 1 - t.exp()) * Float::with_val(P, m) * &scale;
            }
        }
        s
    }
    fn disc(pr: &Profile, h: &str, side: Side) -> (GridPld, Ctx) {
        let c = ctx(h, 100, 1 << 20, side);
        let tb = table(pr, &c).unwrap();
        (discretize(&tb, &c).unwrap(), c)
    }
    /// The ε at which to compare: every grid point, every midpoint, each atom's loss ± 10⁻¹².
    fn probes(g: &GridPld, c: &Ctx, atoms: &Atoms) -> Vec<Rational> {
        let mut v = vec![Rational::new()];
        let stride = (g.mass.len() / 100).max(1);
        for i in (-2..g.mass.len() as i64 + 2).step_by(stride) {
            let a = Rational::from(g.off + i) * &c.h;
            v.push(a.clone());
            v.push(a + Rational::from(&c.h / 2u32));
        }
        let tiny = Rational::from((1, 1_000_000_000_000u64));
        for (z, _) in atoms.iter() {
            if let Some(z) = z {
                v.push(z.clone());
                v.push(Rational::from(z - &tiny));
                v.push(Rational::from(z + &tiny));
            }
        }
        v.retain(|e| *e >= 0);
        v
    }
    /// Upper dominates, Lower is dominated, at every probe; both within `width` of the truth.
    fn check_domination(atoms: &Atoms, h: &str, width: f64) -> (GridPld, GridPld) {
        let pr = atoms_profile(atoms);
        let (up, cu) = disc(&pr, h, Side::Upper);
        let (lo, cl) = disc(&pr, h, Side::Lower);
        for e in probes(&up, &cu, atoms)
            .iter()
            .chain(&probes(&lo, &cl, atoms))
        {
            let exact = atoms_delta(atoms, e);
            let (u, l) = (grid_delta(&up, &cu, e), grid_delta(&lo, &cl, e));
            assert!(
                l <= exact && exact <= u,
                "h = {h}, ε = {e}: {l} ≤ {exact} ≤ {u} fails"
            );
            assert!(
                Float::with_val(P, &u - &l) <= width,
                "h = {h}, ε = {e}: [{l}, {u}] wider than {width}"
            );
        }
        (up, lo)
    }
    fn r(s: &str) -> Rational {
        crate::num::parse_exact(s).unwrap()
    }

    #[test]
    fn an_atom_on_a_grid_point_is_placed_exactly_on_both_sides() {
        let atoms: Atoms = vec![
            (Some(r("3/4")), 0.5),
            (Some(r("-1/4")), 0.25),
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
        let atoms: Atoms = vec![(Some(r("0.3")), 0.5)];
        let (up, lo) = check_domination(&atoms, "1/4", 0.5);
        // Lower: the whole atom at a_1 (merge is impossible, so the pool is moved down)
        let at = |g: &GridPld, i: i64| g.mass.get((i - g.off) as usize).copied().unwrap_or(0);
        assert_eq!(
            (at(&lo, 1), lo.mass.iter().sum::<u128>()),
            (1u128 << 99, 1u128 << 99)
        );
        // Upper: p_a = p(e^{−z} − e^{−b})/(e^{−a} − e^{−b}) at a, the rest at b (MPFR reference);
        // the kernel's values are rounded up, by at most 10⁻¹⁴ relative (f64 intervals)
        let (z, a, b) = (
            Float::with_val(P, &r("0.3")),
            Float::with_val(P, 0.25),
            Float::with_val(P, 0.5),
        );
        let em = |x: &Float| Float::with_val(P, -x.clone()).exp();
        let pa = Float::with_val(P, 0.5) * (em(&z) - em(&b)) / (em(&a) - em(&b));
        let pb = Float::with_val(P, 0.5) - pa.clone();
        let scale = Float::with_val(P, 1) >> 100u32;
        for (got, want) in [(at(&up, 1), pa), (at(&up, 2), pb)] {
            let g = Float::with_val(P, got) * &scale;
            assert!(
                g >= want && Float::with_val(P, &g - &want) <= Float::with_val(P, &want * 1e-14),
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
        far.push((Some(r("3.6")), 0.125)); // 10.4 grid steps above a_4
        let (_, lo) = check_domination(&far, "1/4", 0.7);
        // beyond the window the pool is flushed down to a_3 whole, never merged with the far atom
        let at = |g: &GridPld, i: i64| g.mass.get((i - g.off) as usize).copied().unwrap_or(0);
        assert_eq!(at(&lo, 3), 5u128 << 97);
        assert_eq!(at(&lo, 14), 1u128 << 97);
        let mut near = below.clone();
        near.push((Some(r("1.6")), 0.125)); // 2.4 steps above a_4: balances the pool
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
            (Some(r("0.3")), 0.25),
            (Some(r("-0.3")), 0.125),
            (Some(r("1.7")), 0.0625),
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
        let rho = r("1/2");
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

    // --- curve queries ------------------------------------------------------------------

    #[test]
    fn curve_delta_encloses_the_exact_grid_sum() {
        let mut rng = Rng(42);
        let f = 100;
        let g = GridPld {
            off: -7,
            mass: (0..50).map(|_| rng.below(1u128 << 95)).collect(),
            inf: 12345,
        };
        for side in [Side::Upper, Side::Lower] {
            let c = ctx("3/64", f, 0, side);
            let cv = Curve::new(&g, &c);
            let mut probes: Vec<Rational> = (0..200).map(|k| Rational::from((k, 97))).collect();
            probes.extend([r("0"), r("3/64"), r("129/64"), r("1e30")]);
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
            off: 0,
            mass: vec![1u128 << 98, 1u128 << 97, 1u128 << 96, 1u128 << 95],
            inf: 1u128 << 80,
        };
        for d in ["0.1", "0.01", "1e-3", "1e-5"] {
            let delta = r(d);
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
        assert!(epsilon_side(&Curve::new(&g, &c), &r("1e-30")).is_err());
    }

    // --- error paths that were silent fallbacks -----------------------------------------

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
            assert!(c.fixed(pt(2f64.powi(30))).is_err());
            assert_eq!(c.fixed(pt(0.5)).unwrap(), 1u128 << 99);
            assert_eq!(c.fixed(pt(-0.5)).unwrap(), 0);
            // masses between fixed-point steps round to this side: 2^−101 and 3·2^−101 at F = 100
            let (a, b) = (
                c.fixed(pt(2f64.powi(-101))).unwrap(),
                c.fixed(pt(3.0 * 2f64.powi(-101))).unwrap(),
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

    #[test]
    fn indices_out_of_range_are_refused() {
        assert!(floor_index(&r("1e30"), "x").is_err());
        assert_eq!(floor_index(&r("-2.5"), "x").unwrap(), -3);
        assert!(slot(Some(-1), 4).is_err());
        assert!(slot(Some(4), 4).is_err());
        assert!(slot(None, 4).is_err());
        assert_eq!(slot(Some(3), 4).unwrap(), 3);
        // an atom far outside the grid range: refused, not folded into the last cell
        let c = ctx("1/4", 100, 0, Side::Lower);
        let pr = atoms_profile(&vec![(Some(r("800")), 0.5)]);
        assert!(matches!(table(&pr, &c), Err(Error::InvalidArgument { .. })));
        // a grid so fine that the atom's index leaves i64
        let c = ctx("1e-20", 100, 0, Side::Lower);
        let pr = atoms_profile(&vec![(Some(r("1")), 0.5)]);
        assert!(table(&pr, &c).is_err());
    }

    #[test]
    fn an_empty_delta_enclosure_is_an_error_not_a_lower_bound_of_one() {
        let g = GridPld {
            off: 5,
            mass: vec![1u128 << 99],
            inf: 0,
        };
        for side in [Side::Upper, Side::Lower] {
            let mut cv = Curve::new(&g, &ctx("1", 100, 0, side));
            assert!(cv.delta(&r("0")).unwrap() > 0.0);
            cv.inf = Interval::EMPTY;
            assert!(cv.delta(&r("0")).is_err()); // through the formula below the support
            assert!(cv.delta(&r("10")).is_err()); // beyond the support: the +∞ mass alone
            assert!(epsilon_side(&cv, &r("0.1")).is_err());
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
            h: r("1"),
            tau: r("1"),
            f: 124,
            terms: vec![],
        };
        assert!(new_ctx(&s, Side::Upper, false).is_err());
        let s = Setup {
            h: r("1"),
            tau: r("1/1000"),
            f: 124,
            terms: vec![],
        };
        assert!(new_ctx(&s, Side::Upper, false).is_ok());
    }
}
