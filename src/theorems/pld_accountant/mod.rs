//! The certified PLD accountant: Theorem 9 (composition is convolution of privacy loss
//! distributions) evaluated on a grid, with two certified sides.
//!
//! A *grid PLD* is a measure on the losses {i·h} ∪ {+∞} (P-masses only; the Q-masses are
//! implied by Q = e^{−z}·P). Its hockey-stick curve is δ_ν(ε) = ν(+∞) + Σ ν_i (1 − e^{ε−z_i})₊.
//! We say ν dominates μ when δ_ν(ε) ≥ δ_μ(ε) for every real ε, and is dominated when ≤.
//! Both relations survive convolution (proofs-notes/pld_epsilon.md, Lemma Composition-order), so:
//! - the **upper** side discretises each mechanism into a dominating grid PLD
//!   ("connect the dots": every loss is split between its two neighbouring grid points so that
//!   its P- and Q-mass are preserved — a pair of which the true pair is a post-processing),
//!   keeps every mass rounded up, moves truncated right tails to +∞ and left tails up;
//! - the **lower** side discretises into a dominated one (a sweep that merges neighbouring
//!   outcomes into atoms whose loss is *exactly* a grid point — a post-processing of the
//!   true pair), keeps every mass rounded down, drops left tails and moves right tails down.
//!
//! Masses are fixed-point integers (scale 2^F) and convolution is exact integer arithmetic
//! (Kronecker substitution into one GMP product), so the only roundings are the directed
//! re-scalings to 2^F after each product — or, for the large products of an ε(δ) query, a
//! floating-point FFT whose proven error bound is added to (Upper) or taken from (Lower) every
//! entry before the same directed re-scaling (`fft.rs`, Lemma FFT-bound).
//!
//! # Layout: the data flow, one module per stage
//! ```text
//! terms + options ── grid::setup ──────────► Setup { h, τ, F, terms }     (grid choice)
//!   each term ─ mechanisms::profile ───────► Profile (tails, atoms)        (one file per mechanism)
//!             ─ discretise::table ─────────► Table (half-cell masses)      (shared by both sides)
//!             ─ discretise::discretize ────► GridPld, Upper or Lower       (fixed point, fixed.rs)
//!   all terms ─ convolve::compose_side ────► GridPld of the composition    (GMP products, or FFT ± E;
//!                                                                  the top copies by power.rs:
//!                                                                  one spectral power ± E, ∓ W)
//!             ─ query::Curve ──────────────► δ(ε), and ε(δ) by query::epsilon_of
//! ```
//! `mod.rs` holds the public API only: the mechanism and option types, [`PldReport`], and the
//! entry points [`pld_delta`], [`pld_epsilon`], [`dpsgd_pld_epsilon`]. `fixed.rs` holds the
//! grid measure `GridPld`, the side (`Side::Upper`/`Side::Lower`), the chosen grid `Setup`, the
//! fixed-point context every stage rounds through and the directed re-scalings to 2^F
//! (`shr_round`, `carry_round_units`); `enclose.rs` how a number enters the interval arithmetic (a
//! chosen float as a `point`, an exact rational as the tightest interval, `rational`). No two
//! files import each other, directly or in a loop: `enclose` and `fixed` lie at the bottom, then
//! `mechanisms`, `discretise`, `grid`, the composition (`power`, `convolve`), the queries. The
//! proof is `proofs-notes/pld_epsilon.md`; its lemmas are named for what they say (Dominance,
//! Composition-order, Connect-the-dots, Merging-sweep, Exact-convolution, One-carry, FFT-bound,
//! Spectral-power, Window, Query, Cut-curve, …) and name the code they argue about.
//!
//! # Adding a mechanism
//! A mechanism enters the accountant only through its `mechanisms::Profile`: enclosed
//! tails P\[Z > a\], Q\[Z > a\], P\[Z ≤ a\], Q\[Z ≤ a\] of its continuous part (or none) and its atoms
//! (exact loss, enclosed P-mass; `None` = +∞). To add one:
//! 1. a variant of [`PldMechanism`] with exact (`Rational`) parameters;
//! 2. one file `mechanisms/<name>.rs` with `fn <name>_profile(..) -> Profile` (tails enclosed
//!    by interval arithmetic, monotone in `a`; atoms exact) and its unit test against an
//!    independent reference;
//! 3. one arm in each `match` of `mechanisms/mod.rs`: `profile`, `validate_term` (argument
//!    errors naming the field) and `atom_unit` (the exact loss unit of its atoms, if any, so the
//!    grid can hold them exactly);
//! 4. a paragraph in `proofs-notes/pld_epsilon.md` (Statement, and the tails' derivation under
//!    "Why it is sound"), then re-bless the notes.
//!
//! Nothing else changes: discretisation, convolution and queries are mechanism-blind.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    reason = "`!(x <= bound)` is how the accountant refuses NaN together with out-of-range values"
)]
use crate::num::{Arithmetic, Enclosure};
use crate::validate;
use crate::validated::{Delta, Rate, Sigma, Steps};
use crate::{Error, Result};
use std::sync::Mutex;
// the one interval import of the accountant; submodules reach it as `super::Interval`
use crate::num::Interval;
use rug::{Integer, Rational};

mod convolve;
mod discretise;
mod enclose;
mod fft;
mod fixed;
mod fixed_size;
mod grid;
mod group;
mod mechanisms;
mod power;
mod query;
mod random_allocation;
mod reach;
mod substitution;
mod tradeoff;
#[allow(
    clippy::approx_constant,
    reason = "MPFR's values written out, not approximations of std's"
)]
mod twiddle_table;
pub use fixed_size::dpsgd_fixed_size_pld_epsilon;
pub use group::{dpsgd_group_pld_epsilon, MAX_GROUP};
pub use mechanisms::EpochAtoms;
pub use random_allocation::{dpsgd_balls_and_bins_pld_delta, dpsgd_balls_and_bins_pld_epsilon};
pub use substitution::dpsgd_substitution_pld_epsilon;
pub use tradeoff::dpsgd_tradeoff_tpr;
#[cfg(test)]
mod test_util;

use convolve::compose_side;
use discretise::{coarsen, mirror_tables, tables, Table};
use fixed::{new_ctx, Ctx, GridPld, Setup, Side};
use grid::setup;
use query::{epsilon_of, Curve};

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
    Gaussian {
        /// ρ > 0.
        rho: Rational,
    },
    /// Laplace noise of scale b on sensitivity Δ, ε0 = Δ/b > 0.
    Laplace {
        /// ε0 = Δ/b > 0.
        eps: Rational,
    },
    /// ε0-randomized response; also the worst case of an ε0-DP black box (Corollary 24, δ = 0).
    RandomizedResponse {
        /// ε0 ≥ 0.
        eps: Rational,
    },
    /// The worst case of an (ε, δ)-DP black box: (ε, δ)-randomized response (Corollary 24).
    ApproxDp {
        /// ε ≥ 0.
        eps: Rational,
        /// δ ∈ [0, 1).
        delta: Rational,
    },
    /// k-ary randomized response with noise parameter p (dp_accounting's
    /// `RandomizedResponseDpEvent`): the true bucket w.p. 1 − p, else a uniform one of the k;
    /// losses ±ln(1 + k(1 − p)/p) (enclosed, irrational in general) and 0.
    KaryRandomizedResponse {
        /// p ∈ (0, 1].
        noise: Rational,
        /// k ≥ 2.
        buckets: Integer,
    },
    /// The discrete Laplace mechanism DLap(a) (P\[Y = y\] ∝ e^{−a|y|}, dp_accounting's
    /// `DiscreteLaplaceDpEvent(noise_parameter = a, sensitivity = Δ)`) on an integer query of
    /// sensitivity Δ: atoms at a(Δ − 2y), y = 0 … Δ.
    DiscreteLaplace {
        /// a > 0.
        parameter: Rational,
        /// Integer sensitivity Δ ≥ 1.
        sensitivity: Integer,
    },
    /// The discrete Gaussian N_ℤ(0, σ²) (Canonne, Kamath & Steinke 2020) on an integer query of
    /// sensitivity Δ: atoms at Δ(Δ − 2y)/(2σ²) over a window of outputs y, the rest bounded.
    DiscreteGaussian {
        /// σ² > 0 (exact: σ itself may be irrational, as in the 2020 Census).
        sigma_squared: Rational,
        /// Integer sensitivity Δ ≥ 1.
        sensitivity: Integer,
    },
    /// Poisson-subsampled Gaussian (sensitivity 1, noise σ, rate q), one neighbour direction.
    SubsampledGaussian {
        /// Noise multiplier σ > 0.
        sigma: Rational,
        /// Sampling rate q ∈ (0, 1].
        rate: Rational,
        /// Which neighbouring pair (add or remove one record).
        direction: Direction,
    },
    /// Poisson-subsampled Gaussian (noise σ, rate q, clipping norm 1), the substitution pair
    /// ((1−q)N(0,σ²) + qN(1,σ²) ‖ (1−q)N(0,σ²) + qN(−1,σ²)): one record's gradient +1
    /// replaced by −1. Symmetric, so one direction covers both orders.
    SubsampledGaussianSubstitution {
        /// Noise multiplier σ > 0.
        sigma: Rational,
        /// Sampling rate q ∈ (0, 1].
        rate: Rational,
    },
    /// One DP-SGD step with a fixed-size batch (B of N without replacement, rate γ = B/N,
    /// noise σ, clipping norm 1) under substitution neighbours: the symmetric dominating pair
    /// whose losses above 0 are those of (γN(2,σ²) + (1−γ)N(0,σ²) ‖ N(0,σ²)) (replacing one
    /// example moves the sum by up to 2), mirrored below 0, with an atom at 0
    /// (`proofs-notes/dpsgd_fixed_size_pld_epsilon.md`). An upper-side term only: the pair
    /// dominates every step but is not itself realised.
    FixedSizeGaussian {
        /// Noise multiplier σ > 0.
        sigma: Rational,
        /// Sampling ratio γ = B/N ∈ (0, 1].
        rate: Rational,
    },
    /// One epoch of balls-and-bins DP-SGD (each example in one uniformly chosen step of the
    /// epoch's t; noise σ, clipping norm 1), one neighbour direction: its certified dominating
    /// atoms (`random_allocation::epoch_atoms`). An upper-side term only: the atoms dominate the
    /// epoch's pair but are not themselves realised.
    BallsAndBinsEpoch(std::sync::Arc<mechanisms::EpochAtoms>),
}

/// `count` independent copies of `mechanism`.
#[derive(Clone, Debug, PartialEq)]
pub struct PldTerm {
    /// The mechanism.
    pub mechanism: PldMechanism,
    /// How many independent copies (≥ 1).
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
    /// The tight preset (`dpsgd_pld_epsilon` with the automatic grid): a first run on twice the
    /// automatic grid h (a probe, `TIGHT_PROBE`), then refine the grid — first to 2h/k, k from
    /// the probe's width (`tight_divisor`), then halving —, at most three times, until the
    /// bracket is within 2·10⁻⁵ relative or the next run's work (support × squarings) would
    /// pass 2²⁴ (the default halves, stopping at 5·10⁻⁴ or 2²²), at a fifth of the default FFT
    /// widening budget; never ending on a grid coarser than h. Only the width and the time
    /// change.
    pub tight: bool,
}

/// A two-sided answer and how it was computed.
#[derive(Clone, Debug)]
pub struct PldReport {
    /// `lower ≤ exact ≤ upper` for the queried ε or δ (see the returning function's `# Guarantee`).
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

/// The enclosure, rounded outward (`{:.N}`: N significant digits), and the grid it came from.
impl std::fmt::Display for PldReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.enclosure, f)?;
        let grid = crate::num::Enclosure::rational(&self.grid, 64);
        write!(
            f,
            " (PLD grid h ≈ {}, {} points)",
            grid.upper().to_decimal_digits(6),
            self.support
        )
    }
}

/// How much coarser the grid of the add direction's first run is (`dpsgd_once`, and the audit's
/// PLD route).
pub(crate) const ADD_COARSE: u32 = 4;

/// A DP-SGD bracket wider than this (relative) is refined when the run was cheap.
const REFINE_WIDTH: f64 = 5e-4;
/// Most work (composed support × squarings, see [`run_work`]) a refinement may aim at: the
/// run before it at most half (MNIST's first run: 1.7·10⁴ points × 14; σ = 0.3, q = 0.1,
/// 1000 steps: 4·10⁴ × 10, refined three times, 1.4 % → 0.17 % in 1.3 s; MNIST with 10⁶ steps:
/// 7·10⁴ × 20, refined once, 1.4 % → 0.29 %; q = 10⁻⁴, σ = 0.5, 10⁶ steps: 2.7 s — twice the budget
/// refined it once more, 2.6·10⁻³ → 2.2·10⁻³ in 7 s).
const REFINE_WORK: f64 = 4_194_304.0;
/// The same two limits under [`PldOptions::tight`], which also stops after three refinements
/// (the probe at 2h, then 2h/k, then halvings; see [`tight_divisor`]).
pub(crate) const TIGHT_WIDTH: f64 = 2e-5;
const TIGHT_WORK: f64 = 16_777_216.0;
const TIGHT_HALVINGS: u32 = 3;
/// How much coarser than the automatic grid the tight preset's first run (the probe) is: it
/// only chooses the refinement's grid (`tight_divisor`), at about half the automatic grid's cost.
const TIGHT_PROBE: u32 = 2;
/// A bracket wider than this (relative) is refined while the next run's work stays within
/// RESCUE_WORK (3·2²⁵), whatever the preset: with 10⁹ steps the automatic grid is coarse (it
/// keeps the composed support near COMPOSED_TARGET) and the lower end fell to 0 (q = 0.01,
/// σ = 4; q = 10⁻⁴, σ = 0.5) or to 0.65 of the upper (MNIST). Measured on 2 cores: MNIST
/// with 10⁹ steps [10260, 15805] in 0.5 s → [12223, 12323] in 7.4 s; q = 0.01, σ = 4:
/// [0, 4740] → [3521, 3638] in 3.2 s; q = 10⁻⁴, σ = 0.5: [0, 355] → [349.9, 353.0] in 15 s;
/// q = 0.001, σ = 1: [869, 1287] → [1022.9, 1037.5] in 8.2 s. 10¹⁰ MNIST steps stop after one
/// refinement (the next would need ~2.5 GB). Settings with narrower brackets are unaffected.
const RESCUE_WIDTH: f64 = 0.05;
const RESCUE_WORK: f64 = 100_663_296.0;

/// Whether independent jobs (the two sides, the two directions) may run on threads of their
/// own: yes unless the environment variable `DPCERT_THREADS` is `1` (a benchmarking knob; the
/// results are the same either way, only the schedule changes).
fn threaded() -> bool {
    std::env::var("DPCERT_THREADS").map_or(true, |v| v.trim() != "1")
}

/// Run two independent jobs, `b` on a second thread when [`threaded`], and return both results.
fn join<A: Send, B: Send>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> Result<(A, B)> {
    if !threaded() {
        let ra = a();
        return Ok((ra, b()));
    }
    std::thread::scope(|sc| {
        let hb = sc.spawn(b);
        let ra = a();
        let rb = hb
            .join()
            .map_err(|_| Error::Numerical("PLD worker failed".into()))?;
        Ok((ra, rb))
    })
}

/// Run three independent jobs on this thread and, when [`threaded`], one more: each thread takes
/// the next job not yet taken, in the order a, b, c, until none is left, and all three results
/// are returned. (A new thread can wait milliseconds on its parent's CPU on a small VM; with a
/// thread per job the idle CPU then waited too — here this thread goes on with the next job.)
fn join3<A: Send, B: Send, C: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
    c: impl FnOnce() -> C + Send,
) -> Result<(A, B, C)> {
    if !threaded() {
        let (ra, rb) = (a(), b());
        return Ok((ra, rb, c()));
    }
    let (ja, jb, jc) = (
        Mutex::new(Some(a)),
        Mutex::new(Some(b)),
        Mutex::new(Some(c)),
    );
    let (ra, rb, rc) = (Mutex::new(None), Mutex::new(None), Mutex::new(None));
    fn take<F>(j: &Mutex<Option<F>>) -> Option<F> {
        j.lock().ok().and_then(|mut g| g.take())
    }
    fn put<T>(r: &Mutex<Option<T>>, v: T) {
        if let Ok(mut g) = r.lock() {
            *g = Some(v);
        }
    }
    let work = || {
        if let Some(f) = take(&ja) {
            put(&ra, f());
        }
        if let Some(f) = take(&jb) {
            put(&rb, f());
        }
        if let Some(f) = take(&jc) {
            put(&rc, f());
        }
    };
    std::thread::scope(|sc| {
        let h = sc.spawn(work);
        work();
        h.join()
    })
    .map_err(|_| Error::Numerical("PLD worker failed".into()))?;
    fn get<T>(r: Mutex<Option<T>>) -> Result<T> {
        r.into_inner()
            .ok()
            .flatten()
            .ok_or_else(|| Error::Numerical("PLD worker failed".into()))
    }
    Ok((get(ra)?, get(rb)?, get(rc)?))
}

/// Both sides of one query; `f` maps a side's curve to its answer. Also the tables (`prev`: the
/// same terms' tables on the grid 2h, whose tails are reused).
fn both_sides<T: Send>(
    s: &Setup,
    progress: bool,
    f: impl Fn(&GridPld, &Ctx) -> Result<T> + Sync,
    prev: Option<&[Table]>,
) -> Result<(T, T, usize, Vec<Table>)> {
    let terms = &s.terms;
    let tabs = tables(terms, s, prev)?;
    let run = |side| -> Result<(T, usize)> {
        let (p, ctx) = compose_side(terms, &tabs, s, side, progress)?;
        Ok((f(&p, &ctx)?, ctx.support))
    };
    let (hi, lo) = join(|| run(Side::Upper), || run(Side::Lower))?;
    let (lo, s1) = lo?;
    let (hi, s2) = hi?;
    Ok((lo, hi, s1.max(s2), tabs))
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
    let mut points = pld_delta_curve(terms, std::slice::from_ref(eps), opts)?;
    points
        .pop()
        .ok_or_else(|| Error::Numerical("PLD δ: no point".into()))
}

/// This side's δ at ε, capped at 1, as an exact rational: δ ≤ 1 always, so capping either side
/// at 1 keeps it a bound; a non-finite value (impossible: `pick` refuses empty enclosures, and
/// the min caps +∞) is an error, never replaced by 1 (on the lower side that would claim δ ≥ 1).
fn capped_delta(c: &Curve, eps: &Rational) -> Result<Rational> {
    let v = c.delta(eps)?.min(1.0);
    Rational::from_f64(v).ok_or_else(|| Error::Numerical("PLD δ bound is not finite".into()))
}

/// [`pld_delta`] at every ε of `eps`, from one composition per side: the same grid, tail and
/// composed measures as `pld_delta` (whose answer at each ε this equals), read at many points.
/// The privacy-profile plot draws the accountant's whole δ(ε) curve with it.
///
/// # Guarantee
/// For each i, `lower ≤ δ(eps[i]) ≤ upper` for the composition of the exact PLDs, for any grid
/// and tail (they set only the width). Errors on invalid terms, an ε < 0, or a grid/tail out of
/// range. Note: `proofs-notes/pld_delta_curve.md`.
pub fn pld_delta_curve(
    terms: &[PldTerm],
    eps: &[Rational],
    opts: &PldOptions,
) -> Result<Vec<PldReport>> {
    for e in eps {
        validate::nonnegative("epsilon", e)?;
    }
    let s = setup(terms, opts, None)?;
    let (lo, hi, support, _) = both_sides(
        &s,
        opts.progress,
        |p, ctx| {
            let c = Curve::new(p, ctx);
            eps.iter()
                .map(|e| capped_delta(&c, e))
                .collect::<Result<Vec<_>>>()
        },
        None,
    )?;
    // pure DP throughout: δ(ε) = 0 from Σ count·ε0 on (Lemma Pure-cap)
    let cap = pure_cap(terms);
    lo.into_iter()
        .zip(hi)
        .zip(eps)
        .map(|((l, h), e)| match &cap {
            Some(c) if e >= c => report(l, Rational::new(), &s, support),
            _ => report(l, h, &s, support),
        })
        .collect()
}

/// Two-sided certified ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ δ} of the composition of `terms`. With the
/// automatic grid a cheap, wide run is refined as in [`dpsgd_pld_epsilon`].
///
/// # Guarantee
/// `lower ≤ ε(δ) ≤ upper` for the exact composition, for any grid and tail. Errors on
/// invalid terms, δ ∉ (0, 1), or when the tail charged to +∞ alone exceeds δ.
/// Note: `proofs-notes/pld_epsilon.md`.
pub fn pld_epsilon(terms: &[PldTerm], delta: &Rational, opts: &PldOptions) -> Result<PldReport> {
    validate::open_unit("delta", delta)?;
    let once = |o: &PldOptions, prev: Option<&[Table]>| -> Result<(Run, Vec<Table>)> {
        let s = setup(terms, o, Some(delta))?;
        let (lo, hi, support, tabs) =
            both_sides(&s, o.progress, |p, c| epsilon_of(p, c, delta), prev)?;
        Ok(((lo, hi, s, support), tabs))
    };
    let (lo, hi, s, support) = refined(opts, None, once)?;
    // pure DP throughout: ε(δ) ≤ Σ count·ε0 for every δ (Lemma Pure-cap)
    let hi = match pure_cap(terms) {
        Some(cap) => hi.min(cap),
        None => hi,
    };
    report(lo, hi, &s, support)
}

/// Σ count·ε0 when every term is ε0-DP at δ = 0 (`mechanisms::pure_epsilon`), else `None`: by
/// basic composition the composition is then (Σ count·ε0, 0)-DP, so δ(ε) = 0 from there on and
/// ε(δ) ≤ Σ count·ε0 for every δ > 0 (`pld_epsilon.md`, Lemma Pure-cap). It closes what the grid
/// leaves above a bounded loss (two Laplace steps at δ = 10⁻²⁰: 2ε0 − 3·10⁻¹³ ≤ ε, the grid's
/// upper end a grid step above 2ε0).
fn pure_cap(terms: &[PldTerm]) -> Option<Rational> {
    terms.iter().try_fold(Rational::new(), |sum, t| {
        mechanisms::pure_epsilon(&t.mechanism).map(|e| sum + e * &t.count)
    })
}

/// One accountant run: (lower, upper, its setup, composed support).
type Run = (Rational, Rational, Setup, usize);

/// A run's work estimate (a refinement heuristic only): its composed support times the
/// squarings of its longest self-composition (the products add at most as many again), plus
/// TABLE_WORK per point of its tables (two certified tail evaluations each, ~17 µs, against
/// ~0.7 µs per unit of the first term: a 69 000-point table, q = 10⁻⁴, σ = 0.5, once made a
/// 10⁶-step run refine for 6 s).
/// Returned as its two parts, (composition, tables), which a refinement scales differently
/// ([`finer_work`]).
fn run_work(s: &Setup, support: usize, tabs: &[Table]) -> (f64, f64) {
    let points: usize = tabs.iter().map(|t| t.n).sum();
    (
        support as f64 * f64::from(grid::squarings(&s.terms)),
        TABLE_WORK * points as f64,
    )
}

/// The work of a run on a grid k times finer than one with these parts: k times the
/// composition, and the tables' new points, k − 1 times the tables (the finer run reuses the
/// tails at the shared points, every k-th one).
fn finer_work((composition, tables): (f64, f64), k: u32) -> f64 {
    composition * f64::from(k) + tables * f64::from(k - 1)
}

/// [`run_work`]'s weight of one table point.
const TABLE_WORK: f64 = 24.0;

/// `once` on the options' grid; with the automatic grid, a run whose finer run is cheap
/// ([`finer_work`] ≤ 2²²; 2²⁴ and at most three times with [`PldOptions::tight`]) and whose bracket is wider
/// than 5·10⁻⁴ relative (2·10⁻⁵) is repeated on a grid twice as fine, and the brackets are
/// intersected (each is certified, so their intersection is too).
///
/// `probe`: the first run's grid instead of the automatic one (the tight preset's probe, which
/// costs about half the automatic grid's run and only chooses the refinement — its bracket is
/// intersected too); if that run fails, the first run is the automatic grid's, and if no finer
/// run follows a probe whose bracket is wider than the target (the budget refused it, or the
/// guards), the automatic grid runs too: the preset never ends coarser than the default.
fn refined(
    opts: &PldOptions,
    probe: Option<Rational>,
    once: impl Fn(&PldOptions, Option<&[Table]>) -> Result<(Run, Vec<Table>)>,
) -> Result<Run> {
    let (first, probed) = match probe.filter(|_| opts.grid.is_none()) {
        Some(g) => {
            let o = PldOptions {
                grid: Some(g),
                ..opts.clone()
            };
            match once(&o, None) {
                Ok(r) => (Ok(r), true),
                Err(_) => (once(opts, None), false),
            }
        }
        None => (once(opts, None), false),
    };
    let ((mut lo, mut hi, mut s, mut support), mut tabs) = first?;
    let mut finer_runs = 0;
    let mut work = run_work(&s, support, &tabs);
    let (width, budget, halvings) = if opts.tight {
        (TIGHT_WIDTH, TIGHT_WORK, TIGHT_HALVINGS)
    } else {
        (REFINE_WIDTH, REFINE_WORK, u32::MAX)
    };
    if opts.grid.is_none() {
        for step in 0..halvings {
            let w = rel_width(&lo, &hi);
            // the tight preset's first refinement jumps straight to the grid its width asks
            // for (`tight_divisor`); every other one halves the grid
            let k = if opts.tight && step == 0 {
                tight_divisor(w)
            } else {
                2
            };
            // a bracket too wide to act on (huge counts, where the automatic grid trades
            // width for support) may be refined at up to RESCUE_WORK
            let budget = if w > RESCUE_WIDTH {
                budget.max(RESCUE_WORK)
            } else {
                budget
            };
            if w <= width || finer_work(work, k) > budget {
                break;
            }
            let finer = PldOptions {
                grid: Some(Rational::from(&s.h / k)),
                ..opts.clone()
            };
            // a finer grid the guards refuse (points, support) ends the refinement; the finer
            // run reuses this run's tails (its every other half-grid point)
            let Ok(((l, h, fs, sp), ft)) = once(&finer, Some(&tabs)) else {
                break;
            };
            work = run_work(&fs, sp, &ft);
            (lo, hi, s, support, tabs) = (lo.max(l), hi.min(h), fs, support.max(sp), ft);
            finer_runs += 1;
        }
    }
    // a probe alone is coarser than the default run (q = 0.001, σ = 1, 10⁶ steps: 1.9·10⁻³ wide
    // where the default is 3.8·10⁻⁴, and the budget refused the jump): the automatic grid too
    if probed && finer_runs == 0 && rel_width(&lo, &hi) > width {
        if let Ok(((l, h, fs, sp), _)) = once(opts, Some(&tabs)) {
            (lo, hi, s, support) = (lo.max(l), hi.min(h), fs, support.max(sp));
        }
    }
    Ok((lo, hi, s, support))
}

/// DP-SGD (add/remove neighbours): ε(δ) of `steps` Poisson-subsampled Gaussian steps, the
/// larger of the two directions. Upper: both directions' upper bounds; lower: the lower
/// bound of the direction whose upper bound is larger (any one direction's lower bound is a
/// lower bound on the maximum).
///
/// With the automatic grid, a run whose finer run is cheap (support × squarings plus table
/// points, see `finer_work`, ≤ 2²²; 2²⁴ and at most three times with [`PldOptions::tight`]) and
/// whose bracket is wider than 5·10⁻⁴ relative (2·10⁻⁵) is
/// repeated on a grid twice as fine, and the brackets are intersected (each is certified, so their
/// intersection is too).
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact add/remove DP-SGD privacy curve; q ∈ (0, 1], σ > 0,
/// steps ≥ 1, δ ∈ (0, 1) by their types. Note: `proofs-notes/dpsgd_pld_epsilon.md`.
pub fn dpsgd_pld_epsilon(
    rate: &Rate,
    sigma: &Sigma,
    steps: &Steps,
    delta: &Delta,
    opts: &PldOptions,
) -> Result<PldReport> {
    // q ∈ (0, 1], σ > 0, T ≥ 1 and δ ∈ (0, 1) by their types (`setup` checks the term again,
    // as for every mechanism)
    dpsgd_refined(rate, sigma, steps, delta, opts)
}

/// [`dpsgd_pld_epsilon`] for the callers that hold exact values not typed (a schedule's
/// merged phase, a group of one, the truncated-Poisson run, the audit's comparison): δ is
/// checked here, q, σ, T by `setup`'s check of the term, with the messages they always had.
pub(crate) fn dpsgd_pld_epsilon_checked(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<PldReport> {
    validate::open_unit("delta", delta)?;
    dpsgd_refined(rate, sigma, steps, delta, opts)
}

/// The DP-SGD accountant with the automatic grid's refinement ([`refined`]).
fn dpsgd_refined(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<PldReport> {
    // the tight preset's first run: a probe on TIGHT_PROBE times the automatic grid
    let probe = if opts.tight && opts.grid.is_none() {
        let s = setup(
            &[dpsgd_term(rate, sigma, steps, Direction::Remove)],
            opts,
            Some(delta),
        )?;
        Some(Rational::from(&s.h * TIGHT_PROBE))
    } else {
        None
    };
    let (lo, hi, s, support) = refined(opts, probe, |o, prev| {
        dpsgd_once(rate, sigma, steps, delta, o, prev)
    })?;
    report(lo, hi, &s, support)
}

/// The divisor k of the tight preset's first refinement (grid h → h/k), from the first run's
/// relative width w: on the DP-SGD benchmark settings the bracket narrows like h^1.9 (h → h/4:
/// 3.4·10⁻⁴ → 2.0·10⁻⁵ on MNIST, 3.3·10⁻⁴ → 2.4·10⁻⁵ on q = 0.01, 3.5·10⁻⁴ → 2.5·10⁻⁵ at
/// σ = 0.7), so k = ⌈(w/(0.85·2·10⁻⁵))^{1/1.9}⌉, between 2 and 16. The first run is the probe on
/// twice the automatic grid ([`TIGHT_PROBE`]), so k counts in halves of the automatic grid
/// (q = 0.00033, σ = 4, δ = 10⁻³⁰: 7, the grid h/3.5 where h/4 followed a run at h). One run at
/// h/k instead of runs at h/2, h/4, h/8: about 1 + k times the probe's time, not 15. An integer
/// k keeps on the grid the atoms h holds, and the tails the probe evaluated. A width heuristic
/// only; any grid is sound.
fn tight_divisor(w: f64) -> u32 {
    let k = (w / (0.85 * TIGHT_WIDTH)).powf(1.0 / 1.9).ceil();
    if k.is_finite() {
        k.clamp(2.0, 16.0) as u32
    } else {
        16
    }
}

/// (upper − lower)/upper in floats (a refinement heuristic only; ∞ when upper ≤ 0).
fn rel_width(lo: &Rational, hi: &Rational) -> f64 {
    let (l, h) = (lo.to_f64(), hi.to_f64());
    if h > 0.0 {
        (h - l) / h
    } else {
        f64::INFINITY
    }
}

/// `steps` copies of the Poisson-subsampled Gaussian (rate q, noise σ) in one neighbour
/// direction: the term every DP-SGD entry point composes.
fn dpsgd_term(rate: &Rational, sigma: &Rational, steps: &Integer, direction: Direction) -> PldTerm {
    PldTerm {
        mechanism: PldMechanism::SubsampledGaussian {
            sigma: sigma.clone(),
            rate: rate.clone(),
            direction,
        },
        count: steps.clone(),
    }
}

/// One run of the DP-SGD accountant on the grid `setup` chooses: (lower, upper, setup, support).
/// ε(δ) on one side of the composition of `terms` (their tables `tabs`, on the grid of `s`),
/// certified by `epsilon_side`; with the composed support.
fn side_epsilon(
    terms: &[PldTerm],
    tabs: &[Table],
    s: &Setup,
    side: Side,
    delta: &Rational,
    progress: bool,
) -> Result<(Rational, usize)> {
    let (p, ctx) = compose_side(terms, tabs, s, side, progress)?;
    Ok((epsilon_of(&p, &ctx, delta)?, ctx.support))
}

fn dpsgd_once(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
    prev: Option<&[Table]>,
) -> Result<(Run, Vec<Table>)> {
    let term = |direction| dpsgd_term(rate, sigma, steps, direction);
    let s = setup(&[term(Direction::Remove)], opts, Some(delta))?;
    // one progress line: the remove direction's upper side (the longest job) reports
    let run = |d: Direction, tabs: &[Table], side: Side| -> Result<(Rational, usize)> {
        let progress = opts.progress && d == Direction::Remove;
        side_epsilon(&[term(d)], tabs, &s, side, delta, progress)
    };
    // the remove direction's table, then independent jobs (on threads of their own unless
    // DPCERT_THREADS=1): the remove direction's upper and lower sides; the add direction's table,
    // the remove table's mirror (the reversed pair), and its upper side
    let rem = tables(&[term(Direction::Remove)], &s, prev)?;
    // the add direction's upper side first on a grid ADD_COARSE times coarser (its table read
    // off the fine one): enough whenever it stays below the remove direction's upper bound
    // (any upper bound of the smaller direction will do); otherwise on the fine grid
    let coarse = Setup {
        h: Rational::from(&s.h * ADD_COARSE),
        tau: s.tau.clone(),
        f: s.f,
        fft_budget: s.fft_budget.clone(),
        terms: s.terms.clone(),
        delta: s.delta,
    };
    let add_job = || -> Result<_> {
        let add = mirror_tables(&rem, &s)?;
        let cctx = new_ctx(&coarse, Side::Upper, false)?;
        let coarse_add: Vec<Table> = add
            .iter()
            .map(|t| coarsen(t, ADD_COARSE, &cctx))
            .collect::<Result<_>>()?;
        let r = side_epsilon(
            &[term(Direction::Add)],
            &coarse_add,
            &coarse,
            Side::Upper,
            delta,
            false,
        );
        Ok((add, r))
    };
    // the longest job first: the remove direction's upper side
    let (up_rem, lo_rem, add_r) = join3(
        || run(Direction::Remove, &rem, Side::Upper),
        || run(Direction::Remove, &rem, Side::Lower),
        add_job,
    )?;
    // the add table's errors first (they came before the remove sides' when it was read first)
    let (add, add_r) = add_r?;
    let (up_rem, lo_rem) = (up_rem?, lo_rem?);
    // the fine run when the coarse one is not below the remove direction's bound — or failed
    // (a coarse grid's +∞ mass can exceed δ where the fine one's does not)
    let up_add = match add_r {
        Ok(r) if r.0 <= up_rem.0 => r,
        _ => run(Direction::Add, &add, Side::Upper)?,
    };
    let mut support = lo_rem.1.max(up_rem.1).max(up_add.1);
    let lo = if up_add.0 > up_rem.0 {
        let (l, sp) = run(Direction::Add, &add, Side::Lower)?;
        support = support.max(sp);
        l.max(lo_rem.0)
    } else {
        lo_rem.0
    };
    let hi = up_add.0.max(up_rem.0);
    Ok(((lo, hi, s, support), rem))
}
