//! Balls-and-bins (random allocation of each example to one of the t steps of an epoch) with
//! the Gaussian mechanism: a certified dominating PLD of one epoch, composed over the epochs by
//! the accountant's upper side (`proofs-notes/dpsgd_balls_and_bins_pld_epsilon.md`).
//!
//! One epoch's exact pair (remove direction) is P = (1/t)Σ_i N(e_i, σ²I_t) against
//! Q = N(0, σ²I_t): its likelihood ratio is R = (1/t)Σ_i W_i with W_i = e^{(2x_i − 1)/(2σ²)}
//! i.i.d. under Q (E_Q W = 1). δ(ε) = E_Q[(R − e^ε)_+] (remove) and E_Q[(1 − e^ε R)_+] (add) are
//! expectations of convex functions of R, so a mean-preserving spread of each W_i's law (onto
//! the lattice jd) bounds both from above; the tail W_i > w_max goes to +∞.
use super::discretise::tables;
use super::enclose::{point, rational};
use super::fixed::Side;
use super::grid::setup;
use super::mechanisms::{EpochAtoms, UNIT_BITS};
use super::{side_epsilon, Direction, PldMechanism, PldOptions, PldTerm};
use crate::num::{normal_cdf_pair, Interval};
use crate::validate;
use crate::{Error, Result};
use rug::float::Round;
use rug::integer::Order;
use rug::{Float, Integer, Rational};
use std::sync::Arc;

/// Lowest atom loss kept (lower losses are moved up to it: a domination).
const FLOOR: i64 = -3 << UNIT_BITS;
/// Fixed-point fraction bits of the lattice convolution.
const FRAC: u32 = 64;
/// Lattice points of one W: at least this many may be used (the spacing grows past the cap)…
const MIN_LATTICE_CAP: f64 = 4096.0;
/// …and at most this many…
const MAX_LATTICE: f64 = 65536.0;
/// …the cap being this many points of the t-fold sum divided by t, between the two.
const SUM_TARGET: f64 = 1.0e6;

/// Φ(b) − Φ(a) for a ≤ b (a = None: −∞), enclosed without cancellation against 1 (upper
/// tails when a ≥ 0).
fn mass(a: Option<Interval>, b: Interval) -> Interval {
    let (pb, nb) = normal_cdf_pair(b);
    let v = match a {
        None => pb,
        Some(a) => {
            let (pa, na) = normal_cdf_pair(a);
            if a.inf() >= 0.0 {
                na - nb
            } else {
                pb - pa
            }
        }
    };
    v.max(point(0.0))
}

/// Upper masses of the mean-preserving spread of W's law below w_max = J·d onto {0, d, …, J·d}:
/// the cell [jd, (j+1)d] sends (w_{j+1}m − M)/d to jd and (M − w_j m)/d to (j+1)d, where m is
/// its Q-mass Φ(x_{j+1}/σ) − Φ(x_j/σ) and M = E_Q[W; cell] = Φ((x_{j+1}−1)/σ) − Φ((x_j−1)/σ),
/// x_j = σ² ln(jd) + ½ (W's inverse).
fn lattice(sigma: Interval, d: f64, j_max: usize) -> Vec<Interval> {
    let s2 = sigma * sigma;
    let half = point(0.5);
    let one = point(1.0);
    let x =
        |j: usize| -> Option<Interval> { (j > 0).then(|| s2 * point(j as f64 * d).ln() + half) };
    let mut out = vec![point(0.0); j_max + 1];
    for j in 0..j_max {
        let xb = s2 * point((j + 1) as f64 * d).ln() + half;
        let xa = x(j);
        let m = mass(xa.map(|x| x / sigma), xb / sigma);
        let mm = mass(xa.map(|x| (x - one) / sigma), (xb - one) / sigma);
        let (lo_w, hi_w) = (point(j as f64 * d), point((j + 1) as f64 * d));
        let dd = point(d);
        let at_lo = ((hi_w * m - mm) / dd).max(point(0.0));
        let at_hi = ((mm - lo_w * m) / dd).max(point(0.0));
        out[j] = out[j] + at_lo;
        out[j + 1] = out[j + 1] + at_hi;
    }
    out
}

/// Fixed-point integers ⌈m·2^F⌉ of the upper ends.
fn to_fixed(m: &[Interval]) -> Vec<Integer> {
    m.iter()
        .map(|x| {
            let v = Float::with_val(64, x.sup()) << FRAC;
            v.to_integer_round(Round::Up)
                .map(|(i, _)| i)
                .unwrap_or_default()
        })
        .collect()
}

/// `v` packed into one integer, coefficient i at bit i·slot (each < 2^slot), through limbs.
fn pack(v: &[Integer], slot: usize) -> Integer {
    let mut buf = vec![0u64; (v.len() * slot) / 64 + 2];
    for (i, c) in v.iter().enumerate() {
        let (w, sh) = ((i * slot) / 64, (i * slot) % 64);
        for (j, limb) in c.to_digits::<u64>(Order::Lsf).into_iter().enumerate() {
            buf[w + j] |= limb << sh;
            if sh > 0 {
                buf[w + j + 1] |= limb >> (64 - sh);
            }
        }
    }
    Integer::from_digits(&buf, Order::Lsf)
}

/// The first `n` slot-bit coefficients of `p`, each re-scaled to 2^F rounding up.
fn unpack_up(p: &Integer, n: usize, slot: usize) -> Vec<Integer> {
    let limbs = p.to_digits::<u64>(Order::Lsf);
    let mask = (Integer::from(1) << slot as u32) - 1u32;
    let round = (Integer::from(1) << FRAC) - 1u32;
    (0..n)
        .map(|i| {
            let (w, sh) = ((i * slot) / 64, (i * slot) % 64);
            if w >= limbs.len() {
                return Integer::new();
            }
            let end = (w + (sh + slot) / 64 + 1).min(limbs.len());
            let c = (Integer::from_digits(&limbs[w..end], Order::Lsf) >> sh as u32) & &mask;
            // ⌈c / 2^F⌉
            (c + &round) >> FRAC
        })
        .collect()
}

/// The product of two fixed-point measures (exact integer convolution by Kronecker
/// substitution), re-scaled to 2^F rounding up.
fn mul_up(a: &[Integer], b: &[Integer]) -> Vec<Integer> {
    let n = a.len() + b.len() - 1;
    let bits_a = a.iter().map(|x| x.significant_bits()).max().unwrap_or(1);
    let bits_b = b.iter().map(|x| x.significant_bits()).max().unwrap_or(1);
    let slot = (bits_a + bits_b + (usize::BITS - n.leading_zeros()) + 1) as usize;
    let p = pack(a, slot) * pack(b, slot);
    unpack_up(&p, n, slot)
}

/// The t-fold convolution power, by squaring (every product rounded up).
fn power(base: &[Integer], t: u64) -> Vec<Integer> {
    let mut result: Option<Vec<Integer>> = None;
    let mut sq = base.to_vec();
    let mut e = t;
    while e > 0 {
        if e & 1 == 1 {
            result = Some(match result {
                None => sq.clone(),
                Some(r) => mul_up(&r, &sq),
            });
        }
        e >>= 1;
        if e > 0 {
            sq = mul_up(&sq, &sq);
        }
    }
    result.unwrap_or_default()
}

/// Split P-mass `p` at loss z (enclosed) onto the unit grid's neighbours kU ≤ z ≤ (k+1)U,
/// preserving P- and Q-mass (connect the dots: a pair the atom is a post-processing of), both
/// parts rounded up; when z's enclosure straddles a grid point, all of p moves up to the next.
fn split(z: Interval, p: Interval, out: &mut std::collections::BTreeMap<i64, Interval>) {
    let u = (UNIT_BITS as i32)
        .checked_neg()
        .map_or(1.0, |e| 2f64.powi(e));
    let k = (z.inf() / u).floor();
    if !k.is_finite() {
        return;
    }
    let ki = (k as i64).max(FLOOR);
    let (lo, hi) = (ki as f64 * u, (ki + 1) as f64 * u);
    if ki == FLOOR && z.sup() <= lo {
        let e = out.entry(FLOOR).or_insert(point(0.0));
        *e = *e + p;
        return;
    }
    if z.sup() > hi {
        let k2 = ((z.sup() / u).ceil() as i64).max(ki + 1);
        let e = out.entry(k2).or_insert(point(0.0));
        *e = *e + p;
        return;
    }
    let (el, eh, ez) = (point(-lo).exp(), point(-hi).exp(), (-z).exp());
    let den = el - eh;
    let p_hi = (p * (el - ez) / den).max(point(0.0));
    let p_lo = (p * (ez - eh) / den).max(point(0.0));
    for (kk, m) in [(ki, p_lo), (ki + 1, p_hi)] {
        let e = out.entry(kk).or_insert(point(0.0));
        *e = *e + point(m.sup());
    }
}

/// One epoch's dominating atoms in `direction`; `tail` bounds the mass the lattice may send to
/// +∞ (the cut w_max is chosen so that the P-tail is below it).
pub(super) fn epoch_atoms(
    sigma: &Rational,
    steps: &Integer,
    direction: Direction,
    tail: f64,
) -> Result<EpochAtoms> {
    let t = steps.to_u64().filter(|&t| t >= 2).ok_or_else(|| {
        Error::arg(
            "steps-per-epoch",
            "must be an integer ≥ 2 for the balls-and-bins PLD",
        )
    })?;
    let sg = rational(sigma);
    let s = sigma.to_f64();
    // cut: x_max = 1 + zσ with Φ(−z) ≲ tail/t (float choice; the charged tail is certified)
    let mut z = 1.0;
    while crate::num::normal_cdf_f64(-z) * t as f64 > tail && z < 40.0 {
        z += 0.05;
    }
    let x_max = 1.0 + z * s;
    let w_max = ((2.0 * x_max - 1.0) / (2.0 * s * s)).exp();
    let sd = ((1.0 / (s * s)).exp() - 1.0).sqrt();
    // spacing: a power of two near sd/10, coarser when the lattice would pass its caps
    let mut d = 2f64.powi((sd / 10.0).log2().floor() as i32);
    let cap = (SUM_TARGET / t as f64).clamp(MIN_LATTICE_CAP, MAX_LATTICE);
    while w_max / d > cap {
        d *= 2.0;
    }
    let j_max = (w_max / d).ceil() as usize;
    let w_cut = j_max as f64 * d;
    let base = lattice(sg, d, j_max);
    let sum = power(&to_fixed(&base), t);
    // the tail: W_i > w_cut for some i, i.e. x_i > x_cut = σ² ln w_cut + ½
    let x_cut = sg * sg * point(w_cut).ln() + point(0.5);
    let (_, q_tail) = normal_cdf_pair(x_cut / sg);
    let (_, p_tail) = normal_cdf_pair((x_cut - point(1.0)) / sg);
    let tf = point(t as f64);
    let inf_mass = match direction {
        Direction::Remove => p_tail + (tf - point(1.0)) * q_tail,
        Direction::Add => tf * q_tail,
    };
    let scale = Float::with_val(64, 1) >> FRAC;
    let mut bins = std::collections::BTreeMap::new();
    let mut infinite = inf_mass;
    for (i, c) in sum.iter().enumerate() {
        if *c == 0 {
            continue;
        }
        let pi = Float::with_val_round(64, c, Round::Up).0 * &scale;
        let pi = point(pi.to_f64_round(Round::Up));
        if i == 0 {
            if direction == Direction::Add {
                infinite = infinite + pi;
            }
            continue;
        }
        let r = point(i as f64 * d) / tf;
        match direction {
            Direction::Remove => split(r.ln(), r * pi, &mut bins),
            Direction::Add => split(-r.ln(), pi, &mut bins),
        }
    }
    let mut atoms: Vec<(Option<i64>, f64)> =
        bins.into_iter().map(|(k, m)| (Some(k), m.sup())).collect();
    atoms.push((None, infinite.sup()));
    let u = 2f64.powi(-(UNIT_BITS as i32));
    let (m1, m2) = atoms
        .iter()
        .filter_map(|(k, m)| k.map(|k| (k as f64 * u, *m)))
        .fold((0.0, 0.0), |(a, b), (z, m)| (a + z * m, b + z * z * m));
    let spread = (m2 - m1 * m1).max(1e-12).sqrt();
    Ok(EpochAtoms { atoms, spread })
}

/// DP-SGD with balls-and-bins batches (each example in exactly one of the t steps of each epoch,
/// uniformly, independently across epochs), noise multiplier σ, clipping norm 1, add/remove
/// neighbours: a certified upper bound on ε(δ) after `epochs` epochs, the larger of the two
/// directions' upper sides, each the accountant's upper side of `epochs` copies of one epoch's
/// dominating atoms (`epoch_atoms`).
///
/// # Guarantee
/// `ε(δ) ≤` the returned value for the exact run. σ > 0, t ≥ 2, epochs ≥ 1, δ ∈ (0, 1);
/// errors otherwise, or (Numerical) when the tail charged to +∞ exceeds δ. Note:
/// `proofs-notes/dpsgd_balls_and_bins_pld_epsilon.md`.
pub fn dpsgd_balls_and_bins_pld_epsilon(
    sigma: &Rational,
    steps: &Integer,
    epochs: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<Rational> {
    validate::positive("sigma", sigma)?;
    validate::count("epochs", epochs)?;
    validate::open_unit("delta", delta)?;
    let tail = delta.to_f64() * 1e-4 / epochs.to_f64().max(1.0);
    let one = |direction| -> Result<Rational> {
        let atoms = epoch_atoms(sigma, steps, direction, tail)?;
        let term = PldTerm {
            mechanism: PldMechanism::BallsAndBinsEpoch(Arc::new(atoms)),
            count: epochs.clone(),
        };
        let t = [term];
        let s = setup(&t, opts, Some(delta))?;
        Ok(side_epsilon(
            &t,
            &tables(&t, &s, None)?,
            &s,
            Side::Upper,
            delta,
            opts.progress,
        )?
        .0)
    };
    let (rem, add) = super::join(|| one(Direction::Remove), || one(Direction::Add))?;
    Ok(rem?.max(add?))
}

/// DP-SGD with balls-and-bins batches (as [`dpsgd_balls_and_bins_pld_epsilon`]): a certified
/// upper bound on δ(ε), the larger of the two directions' upper sides of `epochs` copies of one
/// epoch's dominating atoms, read at ε (capped at 1).
///
/// # Guarantee
/// `δ(ε) ≤` the returned value for the exact run. σ > 0, t ≥ 2, epochs ≥ 1, ε ≥ 0; errors
/// otherwise. Note: `proofs-notes/dpsgd_balls_and_bins_pld_delta.md`.
pub fn dpsgd_balls_and_bins_pld_delta(
    sigma: &Rational,
    steps: &Integer,
    epochs: &Integer,
    epsilon: &Rational,
    opts: &PldOptions,
) -> Result<Rational> {
    validate::positive("sigma", sigma)?;
    validate::count("epochs", epochs)?;
    validate::nonnegative("epsilon", epsilon)?;
    // the lattice cut charges at most about this much to +∞ (δ itself is not known here)
    let tail = 1e-10 / epochs.to_f64().max(1.0);
    let one = |direction| -> Result<Rational> {
        let atoms = epoch_atoms(sigma, steps, direction, tail)?;
        let t = [PldTerm {
            mechanism: PldMechanism::BallsAndBinsEpoch(Arc::new(atoms)),
            count: epochs.clone(),
        }];
        let s = setup(&t, opts, None)?;
        let tabs = tables(&t, &s, None)?;
        let (p, ctx) = super::compose_side(&t, &tabs, &s, Side::Upper, opts.progress)?;
        super::capped_delta(&super::Curve::new(&p, &ctx), epsilon)
    };
    let (rem, add) = super::join(|| one(Direction::Remove), || one(Direction::Add))?;
    Ok(rem?.max(add?))
}
