//! Optimal composition of (ε, δ)-DP mechanisms (Kairouz–Oh–Viswanath 2015, Murtagh–Vadhan
//! 2016), made computable by Corollary 24: every (ε, δ)-DP pair is a post-processing of
//! (ε, δ)-randomized response, so the worst case of a composition is the product of RRs and
//! δ_opt(ε) = 1 − Πⱼ(1 − δⱼ)^{kⱼ}·(1 − δ_RR(ε)), δ_RR the hockey stick of the RR product.
use crate::num::{Enclosure, MpfrInterval, Precision, Real, DEFAULT_PREC};
use crate::validate;
use crate::{Error, Result};
use rug::{Float, Integer, Rational};

/// `count` mechanisms, each (ε, δ)-DP.
#[derive(Clone, Debug, PartialEq)]
pub struct Class {
    /// ε ≥ 0 of each mechanism.
    pub epsilon: Rational,
    /// δ ∈ [0, 1] of each mechanism.
    pub delta: Rational,
    /// Number of mechanisms in the class (≥ 1).
    pub count: Integer,
}

/// Largest number of product atoms evaluated exactly.
pub const MAX_PRODUCT_ATOMS: usize = 400_000;
/// Most bits of exact atom losses held at once (about 256 MiB): exact losses (k − 2ℓ)·ε of an ε
/// with a huge numerator or denominator (10⁻¹⁰⁰⁰⁰⁰ has 332 000 bits) would otherwise exhaust
/// memory; such inputs are refused with this limit named.
pub const MAX_EXACT_LOSS_BITS: u64 = 1 << 31;
/// Smallest tail exponent T: binomial tails beyond 2e^{−T} (Hoeffding) are dropped, with their
/// mass charged to the upper side. Larger T are chosen from the δ scale ([`tail_exp_for`]).
const TAIL_EXP: f64 = 700.0;
/// Dropped mass is kept below e^{−TAIL_MARGIN}·δ, so it cannot widen the enclosure noticeably.
const TAIL_MARGIN: f64 = 80.0;

/// The tail exponent for a δ scale e^{ln_delta} (a search choice: any T gives a certified tail bound).
fn tail_exp_for(ln_delta: f64) -> f64 {
    if ln_delta.is_finite() {
        TAIL_EXP.max(-ln_delta + TAIL_MARGIN)
    } else {
        TAIL_EXP
    }
}

/// An atom of the composed RR privacy loss: exact loss, enclosed P-mass, and (for the search only)
/// the loss and ln of the mass in f64 (masses may be far below the f64 range).
struct Atom {
    loss: Rational,
    mass: MpfrInterval,
    loss_f64: f64,
    ln_mass_f64: f64,
}

/// The composed RR privacy loss: atoms, the dropped P-mass bound τ
/// (δ_RR ∈ [Σ kept, Σ kept + τ]), and Πⱼ(1 − δⱼ)^{kⱼ}.
struct RrProduct {
    atoms: Vec<Atom>,
    dropped: Float,
    /// Σⱼ kⱼεⱼ, the largest loss of the full (untruncated) product.
    max_loss: Rational,
    /// ln Πⱼ(1 − δⱼ)^{kⱼ} ≤ 0
    log_keep: MpfrInterval,
    prec: u32,
}

fn validate_classes(classes: &[Class]) -> Result<()> {
    validate::nonempty("classes", classes)?;
    for c in classes {
        validate::nonnegative("epsilon", &c.epsilon)?;
        validate::unit_from_zero("delta", &c.delta)?;
        validate::count("count", &c.count)?;
    }
    Ok(())
}

fn loss_rational_bits(r: &Rational) -> u64 {
    u64::from(r.numer().significant_bits()) + u64::from(r.denom().significant_bits())
}

/// Bits of a loss (k − 2ℓ)·ε: those of ε plus those of k.
fn loss_bits(eps: &Rational, k: u64) -> u64 {
    loss_rational_bits(eps) + 64 - u64::from(k.leading_zeros())
}

/// Refuse a product whose exact losses would exceed [`MAX_EXACT_LOSS_BITS`].
fn check_loss_bits(atoms: u64, bits_each: u64) -> Result<()> {
    let total = atoms.saturating_mul(bits_each.max(1));
    if total > MAX_EXACT_LOSS_BITS {
        return Err(Error::arg(
            "classes",
            format!(
                "the exact losses would take about {} MiB ({atoms} atoms of {bits_each} bits; at most {} MiB): ε has too many digits for the exact optimal composition",
                total / 8 / (1 << 20),
                MAX_EXACT_LOSS_BITS / 8 / (1 << 20)
            ),
        ));
    }
    Ok(())
}

/// Atoms of ℓ ~ Bin(k, 1/(1+e^ε)) (loss ε(k − 2ℓ)) over a window holding all but a certified
/// tail mass; returns (atoms, dropped-mass upper bound).
fn class_atoms(c: &Class, prec: u32, tail_exp: f64) -> Result<(Vec<Atom>, Float)> {
    let k = c
        .count
        .to_u64()
        .filter(|&k| k <= 1 << 40)
        .ok_or_else(|| Error::arg("count", "above 2^40"))?;
    if c.epsilon == 0 {
        return Ok((vec![unit_atom(prec)], Float::with_val(prec, 0)));
    }
    let e = MpfrInterval::from_rational(&c.epsilon, prec);
    // ln(1 + e^ε) = ε + ln1p(e^{−ε})
    let log_norm = e.add(&e.neg().exp().ln1p());
    let kf = k as f64;
    let q = 1.0 / (1.0 + c.epsilon.to_f64().exp());
    // Hoeffding: P[|ℓ − kq| ≥ t] ≤ 2e^{−2t²/k}; window chosen in f64, tail bound certified
    let t = (kf * tail_exp / 2.0).sqrt().ceil() + 1.0;
    let lo = ((kf * q - t).floor().max(0.0)) as u64;
    let hi = ((kf * q + t).ceil().min(kf)) as u64;
    if (hi - lo) as usize >= MAX_PRODUCT_ATOMS {
        return Err(Error::arg(
            "count",
            format!("the binomial window has more than {MAX_PRODUCT_ATOMS} atoms"),
        ));
    }
    check_loss_bits(hi - lo + 1, loss_bits(&c.epsilon, k))?;
    let mut dropped = Float::with_val(prec, 0);
    for (cut, side) in [
        (lo > 0, (kf * q - lo as f64)),
        (hi < k, (hi as f64 - kf * q)),
    ] {
        if cut {
            // e^{−2s²/k} with s ≤ the true distance, rounded up
            let s = Rational::from_f64(side.max(0.0)).expect("finite");
            let b = MpfrInterval::from_rational(
                &(Rational::from(&s * &s) * 2u32 / Rational::from(k)),
                prec,
            )
            .neg()
            .exp();
            dropped = Float::with_val_round(prec, &dropped + b.hi(), rug::float::Round::Up).0;
        }
    }
    let kk = Integer::from(k);
    let mut ln_c = MpfrInterval::ln_gamma_int(&Integer::from(k + 1), prec)
        .sub(&MpfrInterval::ln_gamma_int(&Integer::from(lo + 1), prec))
        .sub(&MpfrInterval::ln_gamma_int(
            &Integer::from(k - lo + 1),
            prec,
        ));
    let ln_norm_k = log_norm.mul(&MpfrInterval::from_int(k as i64, prec));
    let mut out = Vec::with_capacity((hi - lo + 1) as usize);
    for l in lo..=hi {
        if l > lo {
            // ln C(k, l) = ln C(k, l−1) + ln(k − l + 1) − ln(l)
            ln_c = ln_c
                .add(&MpfrInterval::from_rational(&Rational::from(k - l + 1), prec).ln())
                .sub(&MpfrInterval::from_rational(&Rational::from(l), prec).ln());
        }
        let kl = Rational::from(&c.epsilon * (k - l));
        let lp = ln_c
            .add(&MpfrInterval::from_rational(&kl, prec))
            .sub(&ln_norm_k);
        let loss = Rational::from(&c.epsilon * (Integer::from(&kk - 2 * l)));
        out.push(Atom {
            loss_f64: loss.to_f64(),
            ln_mass_f64: lp.hi().to_f64(),
            mass: lp.exp(),
            loss,
        });
    }
    Ok((out, dropped))
}

fn unit_atom(prec: u32) -> Atom {
    Atom {
        loss: Rational::new(),
        mass: MpfrInterval::from_int(1, prec),
        loss_f64: 0.0,
        ln_mass_f64: 0.0,
    }
}

fn build(
    classes: &[(Rational, Integer)],
    deltas: &[(Rational, Integer)],
    prec: u32,
    tail_exp: f64,
) -> Result<RrProduct> {
    let mut atoms = vec![unit_atom(prec)];
    let mut dropped = Float::with_val(prec, 0);
    for (e, k) in classes {
        let (ca, d) = class_atoms(
            &Class {
                epsilon: e.clone(),
                delta: Rational::new(),
                count: k.clone(),
            },
            prec,
            tail_exp,
        )?;
        dropped = Float::with_val_round(prec, &dropped + &d, rug::float::Round::Up).0;
        if atoms.len().saturating_mul(ca.len()) > MAX_PRODUCT_ATOMS {
            return Err(Error::arg(
                "classes",
                format!("the exact product has more than {MAX_PRODUCT_ATOMS} atoms"),
            ));
        }
        let bits = atoms
            .iter()
            .map(|a| loss_rational_bits(&a.loss))
            .max()
            .unwrap_or(0)
            + ca.iter()
                .map(|a| loss_rational_bits(&a.loss))
                .max()
                .unwrap_or(0);
        check_loss_bits((atoms.len() * ca.len()) as u64, bits)?;
        let mut next = Vec::with_capacity(atoms.len() * ca.len());
        for a1 in &atoms {
            for a2 in &ca {
                let loss = Rational::from(&a1.loss + &a2.loss);
                next.push(Atom {
                    loss_f64: loss.to_f64(),
                    ln_mass_f64: a1.ln_mass_f64 + a2.ln_mass_f64,
                    mass: a1.mass.mul(&a2.mass),
                    loss,
                });
            }
        }
        atoms = next;
    }
    // Π(1 − δⱼ)^{kⱼ} = exp(Σ kⱼ·ln1p(−δⱼ))
    let mut lk = MpfrInterval::from_int(0, prec);
    for (d, k) in deltas {
        lk = lk.add(
            &MpfrInterval::from_rational(&Rational::from(-d), prec)
                .ln1p()
                .mul(&MpfrInterval::from_rational(&Rational::from(k), prec)),
        );
    }
    let max_loss = classes.iter().map(|(e, k)| Rational::from(e * k)).sum();
    Ok(RrProduct {
        atoms,
        dropped,
        max_loss,
        log_keep: lk,
        prec,
    })
}

impl RrProduct {
    /// δ_opt(ε) = 1 − keep·(1 − δ_RR(ε)), δ_RR ∈ [Σ kept terms, Σ kept terms + τ].
    fn delta(&self, eps: &Rational) -> MpfrInterval {
        let p = self.prec;
        let e = MpfrInterval::from_rational(eps, p);
        let mut sum = MpfrInterval::from_int(0, p);
        for a in &self.atoms {
            if a.loss > *eps {
                sum = sum.add(
                    &a.mass.mul(
                        &e.sub(&MpfrInterval::from_rational(&a.loss, p))
                            .expm1()
                            .neg(),
                    ),
                );
            }
        }
        let one = MpfrInterval::from_int(1, p);
        // dropped atoms contribute [0, τ]; none when ε ≥ Σkⱼεⱼ (every atom's loss is ≤ ε then)
        let tail = if *eps >= self.max_loss {
            Float::with_val(p, 0)
        } else {
            self.dropped.clone()
        };
        let rr = sum
            .add(&MpfrInterval::from_endpoints(Float::with_val(p, 0), tail))
            .max0()
            .min(&one);
        // 1 − keep·(1 − rr) = (1 − keep) + keep·rr, with 1 − keep = −expm1(ln keep): no cancellation
        self.log_keep
            .expm1()
            .neg()
            .add(&self.log_keep.exp().mul(&rr))
            .max0()
            .min(&one)
    }
    /// ln δ_opt(ε) in plain f64 (log-sum-exp over the atoms, so δ below the f64 range is fine):
    /// for the search only.
    fn ln_delta_f64(&self, eps: f64) -> f64 {
        let terms: Vec<f64> = self
            .atoms
            .iter()
            .filter(|a| a.loss_f64 > eps)
            .map(|a| a.ln_mass_f64 + (-(eps - a.loss_f64).exp_m1()).ln())
            .collect();
        let lk = self.log_keep.hi().to_f64();
        let floor = (-lk.exp_m1()).ln(); // ln(1 − keep), −∞ when keep = 1
        log_add(floor, lk + log_sum_exp(&terms))
    }
}

fn log_add(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + ((a - m).exp() + (b - m).exp()).ln()
}

fn log_sum_exp(t: &[f64]) -> f64 {
    let m = t.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + t.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

/// The validated classes' RR product at the working precision.
fn product(classes: &[Class], prec: Precision, tail_exp: f64) -> Result<RrProduct> {
    validate_classes(classes)?;
    let (pure, deltas) = split(classes);
    build(&pure, &deltas, prec.fixed_bits()?, tail_exp)
}

/// (value, count) pairs: an εⱼ or a δⱼ with the number kⱼ of mechanisms that share it.
type Counted = Vec<(Rational, Integer)>;

/// The classes' (εⱼ, kⱼ) and, for δⱼ > 0, their (δⱼ, kⱼ).
fn split(classes: &[Class]) -> (Counted, Counted) {
    let pure = classes
        .iter()
        .map(|c| (c.epsilon.clone(), c.count.clone()))
        .collect();
    let deltas = classes
        .iter()
        .filter(|c| c.delta > 0)
        .map(|c| (c.delta.clone(), c.count.clone()))
        .collect();
    (pure, deltas)
}

/// Optimal composition (KOV15 Thm 3.3 / MV16, via Corollary 24): the exact smallest δ such that
/// every composition of the given classes of (εⱼ, δⱼ)-DP mechanisms — even adaptive — is (ε, δ)-DP.
///
/// # Guarantee
/// Two-sided enclosure of δ_opt(ε) = 1 − Π(1−δⱼ)^{kⱼ}(1 − δ_RR(ε)), valid for εⱼ ≥ 0,
/// δⱼ ∈ [0, 1), kⱼ ≥ 1, ε ≥ 0, as long as the RR product has ≤ [`MAX_PRODUCT_ATOMS`] atoms
/// after certified tail truncation (error otherwise: use [`grouped_composition_delta`]).
/// Note: `proofs-notes/optimal_composition_delta.md`.
pub fn optimal_composition_delta(
    classes: &[Class],
    eps: &Rational,
    prec: Precision,
) -> Result<Enclosure> {
    validate::nonnegative("epsilon", eps)?;
    // The window's tail bound τ must be small against δ_opt(ε) itself, which is not known in
    // advance: start at T = 700 and widen from the certified lower bound until τ ≤ e^{−80}·lower
    // (or nothing is dropped). Every pass is a valid enclosure; later passes are only tighter.
    let mut tail = TAIL_EXP;
    let first = product(classes, prec, tail)?;
    let mut best = first.delta(eps);
    let mut dropped = first.dropped;
    for _ in 0..8 {
        let lo = best.lo();
        if dropped.is_zero() || *eps >= first.max_loss {
            break;
        }
        let ln_lo = if lo.is_sign_positive() && !lo.is_zero() {
            Float::with_val(64, lo).ln().to_f64()
        } else {
            f64::NEG_INFINITY
        };
        let ln_tau = Float::with_val(64, &dropped).ln().to_f64();
        if ln_lo.is_finite() && ln_tau <= ln_lo - TAIL_MARGIN + 1.0 {
            break;
        }
        let next = if ln_lo.is_finite() {
            tail_exp_for(ln_lo).max(tail * 1.5)
        } else {
            tail * 2.0
        };
        match product(classes, prec, next) {
            Ok(prod) => {
                best = prod.delta(eps).intersect(&best);
                dropped = prod.dropped.clone();
                tail = next;
            }
            Err(_) => break, // window beyond the atom limit: keep the valid, wider enclosure
        }
    }
    Enclosure::from_real(&best).map(super::pld::probability)
}

/// Inverse of [`optimal_composition_delta`]: the exact smallest ε with δ_opt(ε) ≤ δ.
///
/// # Guarantee
/// `upper` is an ε certified to satisfy δ_opt(ε) ≤ δ; `lower` one certified not to (or 0 when
/// δ_opt(0) ≤ δ, then [0, 0]; when δ equals the floor 1 − Π(1−δⱼ)^{kⱼ} exactly, the exact
/// Σkⱼεⱼ rounded outward); the optimum lies in (lower, upper], typically within 1e-9
/// relative — tested for k ≤ 1e5 and δ down to 1e-400 — (the bracket is valid whatever its
/// width; it is wider when the working precision — 128 bits under `Auto` — cannot decide closer
/// points or the f64 guess was poor). Same preconditions, δ ∈ (0, 1). Note: `proofs-notes/optimal_composition_epsilon.md`.
pub fn optimal_composition_epsilon(
    classes: &[Class],
    delta: &Rational,
    prec: Precision,
) -> Result<Enclosure> {
    validate::open_unit("delta", delta)?;
    // the window's dropped mass stays below e^{−80}·δ (T from δ: any T is certified)
    let prod = product(classes, prec, tail_exp_for(crate::search::ln_f64(delta)))?;
    // δ_opt(ε) decreases to the floor 1 − Π(1−δⱼ)^{kⱼ}, reached at ε = Σkⱼεⱼ (the largest loss):
    // below the floor no ε exists, at it ε* = Σkⱼεⱼ exactly
    let floor = prod.log_keep.expm1().neg();
    if *floor.hi() >= *delta && *floor.lo() < *delta {
        return match exact_floor_cmp(classes, delta) {
            Some(std::cmp::Ordering::Equal) => {
                let top: Rational = classes
                    .iter()
                    .map(|c| Rational::from(&c.epsilon * &c.count))
                    .sum();
                Ok(Enclosure::rational(&top, prod.prec))
            }
            Some(std::cmp::Ordering::Greater) => Err(no_finite(&floor)),
            Some(std::cmp::Ordering::Less) => invert(&prod, delta),
            None => Err(Error::Numerical(
                "δ equals the composed δ floor to working precision".into(),
            )),
        };
    }
    if *floor.lo() >= *delta {
        return Err(no_finite(&floor));
    }
    invert(&prod, delta)
}

fn no_finite(floor: &MpfrInterval) -> Error {
    Error::arg(
        "delta",
        format!(
            "no finite ε: the mechanisms' own δⱼ compose to 1 − Π(1−δⱼ)^kⱼ ≈ {:.6e} > δ",
            floor.hi().to_f64()
        ),
    )
}

/// Exact comparison of the floor 1 − Πⱼ(1 − δⱼ)^{kⱼ} with δ in rationals, when the exact
/// product is small enough to form (at most 2²⁰ bits); `None` otherwise.
fn exact_floor_cmp(classes: &[Class], delta: &Rational) -> Option<std::cmp::Ordering> {
    let mut bits: u64 = 0;
    let mut keep = Rational::from(1);
    for c in classes.iter().filter(|c| c.delta > 0) {
        let one_d: Rational = 1 - c.delta.clone();
        let k = c.count.to_u32()?;
        let b = u64::from(one_d.numer().significant_bits() + one_d.denom().significant_bits());
        bits = bits.saturating_add(b.saturating_mul(u64::from(k)));
        if bits > 1 << 20 {
            return None;
        }
        keep *= rug::ops::Pow::pow(one_d, k);
    }
    let floor: Rational = 1 - keep;
    Some(floor.cmp(delta))
}

/// Certified bracket of inf{ε ≥ 0 : δ(ε) ≤ δ}: f64 bisection on the f64 model locates ε*, then
/// two certified evaluations at points around it (widened until they decide).
fn invert(prod: &RrProduct, delta: &Rational) -> Result<Enclosure> {
    let feasible = |e: f64| -> Option<bool> {
        let r = Rational::from_f64(e)?;
        let v = prod.delta(&r);
        if *v.hi() <= *delta {
            Some(true)
        } else if *v.lo() > *delta {
            Some(false)
        } else {
            None
        }
    };
    let exact = |lo: f64, hi: f64| {
        Enclosure::new(
            Float::with_val(53, lo),
            Float::with_val(53, hi),
            crate::num::Arithmetic::Mpfr(prod.prec),
        )
    };
    if feasible(0.0) == Some(true) {
        return exact(0.0, 0.0);
    }
    // the search works with ln δ (δ may be far below the f64 range)
    let target = crate::search::ln_f64(delta);
    let top = prod.atoms.iter().map(|a| a.loss_f64).fold(0.0, f64::max);
    let (mut a, mut b) = (0.0f64, top.max(1e-300));
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        if prod.ln_delta_f64(m) <= target {
            b = m;
        } else {
            a = m;
        }
    }
    let guess = 0.5 * (a + b);
    let mut rel = 1e-13;
    while rel < 1.0 {
        let hi = guess * (1.0 + rel);
        let lo = guess * (1.0 - rel);
        let up_ok = feasible(hi) == Some(true) || hi >= top && feasible(top) == Some(true);
        let lo_ok = feasible(lo) == Some(false);
        if up_ok && lo_ok {
            return exact(lo, hi);
        }
        rel *= 10.0;
    }
    Err(Error::Numerical("could not bracket the optimal ε".into()))
}

/// Optimal composition for many distinct classes, bracketed: classes are merged into at most
/// `groups` groups (adjacent in ε); rounding each group's ε up gives a composition that contains
/// the original one (an upper bound), rounding down one that is contained in it (a lower bound).
///
/// # Guarantee
/// `[lower, upper]` contains δ_opt(ε) of the original classes. Same preconditions, groups ≥ 1.
/// Note: `proofs-notes/grouped_composition_delta.md`.
pub fn grouped_composition_delta(
    classes: &[Class],
    eps: &Rational,
    groups: usize,
) -> Result<Enclosure> {
    validate_classes(classes)?;
    validate::nonnegative("epsilon", eps)?;
    if groups == 0 {
        return Err(Error::arg("groups", "must be at least 1"));
    }
    let mut sorted: Vec<&Class> = classes.iter().collect();
    sorted.sort_by(|a, b| a.epsilon.cmp(&b.epsilon));
    let per = sorted.len().div_ceil(groups);
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for g in sorted.chunks(per) {
        let k: Integer = g.iter().map(|c| c.count.clone()).sum();
        up.push((g.last().expect("non-empty").epsilon.clone(), k.clone()));
        down.push((g[0].epsilon.clone(), k));
    }
    let (_, deltas) = split(classes);
    let hi = build(&up, &deltas, DEFAULT_PREC, TAIL_EXP)?.delta(eps);
    let lo = build(&down, &deltas, DEFAULT_PREC, TAIL_EXP)?.delta(eps);
    Enclosure::from_real(&MpfrInterval::from_endpoints(
        lo.lo().clone(),
        hi.hi().clone(),
    ))
}

/// The privacy-loss distribution of an RR product in plain `f64`, for searches only (where to
/// evaluate, e.g. the Gaussian-split route's ε_g): it never yields a reported number. Atoms are
/// sorted by loss with suffix sums, so δ_RR(x) = Σ_{Lᵢ > x} mᵢ(1 − e^{x − Lᵢ}) costs one binary
/// search, and adding one more (ε_g, δ_g) class of one mechanism costs nothing: its RR shifts
/// the product by ±ε_g.
pub(crate) struct SearchModel {
    /// Losses, increasing.
    loss: Vec<f64>,
    /// ln Σ_{j ≥ i} mⱼ and ln Σ_{j ≥ i} mⱼe^{−Lⱼ} (one more entry, −∞, at the end).
    ln_mass: Vec<f64>,
    ln_mass_exp: Vec<f64>,
    /// ln Πⱼ(1 − δⱼ)^{kⱼ}.
    ln_keep: f64,
}

impl SearchModel {
    /// The model of `classes` (`None` when their product has too many atoms).
    pub(crate) fn new(classes: &[Class]) -> Option<SearchModel> {
        let mut atoms: Vec<(f64, f64)> = vec![(0.0, 0.0)];
        let mut ln_keep = 0.0;
        for c in classes {
            let ca = search_atoms(c)?;
            if atoms.len().saturating_mul(ca.len()) > MAX_PRODUCT_ATOMS {
                return None;
            }
            atoms = atoms
                .iter()
                .flat_map(|a| ca.iter().map(move |b| (a.0 + b.0, a.1 + b.1)))
                .collect();
            ln_keep += c.count.to_f64() * (-c.delta.to_f64()).ln_1p();
        }
        atoms.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = atoms.len();
        let (mut ln_mass, mut ln_mass_exp) = (
            vec![f64::NEG_INFINITY; n + 1],
            vec![f64::NEG_INFINITY; n + 1],
        );
        for i in (0..n).rev() {
            ln_mass[i] = log_add(ln_mass[i + 1], atoms[i].1);
            ln_mass_exp[i] = log_add(ln_mass_exp[i + 1], atoms[i].1 - atoms[i].0);
        }
        Some(SearchModel {
            loss: atoms.into_iter().map(|a| a.0).collect(),
            ln_mass,
            ln_mass_exp,
            ln_keep,
        })
    }

    /// ln δ_RR(x) of the product alone.
    fn ln_rr(&self, x: f64) -> f64 {
        let i = self.loss.partition_point(|&l| l <= x);
        let (s1, s2) = (self.ln_mass[i], self.ln_mass_exp[i]);
        if s1 == f64::NEG_INFINITY {
            return s1;
        }
        // S1 − e^x·S2 = S1·(1 − e^{x + ln S2 − ln S1})
        s1 + (-(x + s2 - s1).min(0.0).exp_m1()).ln()
    }

    /// ln δ_opt(ε) of the classes and one more mechanism, (ε_g, δ_g)-DP.
    pub(crate) fn ln_delta_with(&self, eg: f64, dg: f64, eps: f64) -> f64 {
        // RR(ε_g) puts mass e^{ε_g}/(1 + e^{ε_g}) at +ε_g and 1/(1 + e^{ε_g}) at −ε_g
        let ln_norm = eg + (-eg).exp().ln_1p();
        let rr = log_add(
            self.ln_rr(eps - eg) + eg - ln_norm,
            self.ln_rr(eps + eg) - ln_norm,
        );
        let lk = self.ln_keep + (-dg).ln_1p();
        log_add((-lk.exp_m1()).ln(), lk + rr)
    }

    /// The smallest ε with ln δ_opt(ε) ≤ `ln_delta`, for the classes and one more mechanism
    /// (ε_g, δ_g)-DP, by bisection (+∞ when none).
    pub(crate) fn epsilon_with(&self, eg: f64, dg: f64, ln_delta: f64) -> f64 {
        let top = self.loss.last().copied().unwrap_or(0.0).max(0.0) + eg;
        if self.ln_delta_with(eg, dg, top) > ln_delta {
            return f64::INFINITY;
        }
        let (mut a, mut b) = (0.0f64, top);
        for _ in 0..100 {
            let m = 0.5 * (a + b);
            if m <= a || m >= b {
                break;
            }
            if self.ln_delta_with(eg, dg, m) <= ln_delta {
                b = m;
            } else {
                a = m;
            }
        }
        b
    }
}

/// A class's atoms (loss, ln mass) in `f64` over its binomial window (as [`class_atoms`]).
fn search_atoms(c: &Class) -> Option<Vec<(f64, f64)>> {
    let k = c.count.to_u64().filter(|&k| k <= 1 << 40)?;
    let e = c.epsilon.to_f64();
    if e == 0.0 {
        return Some(vec![(0.0, 0.0)]);
    }
    let kf = k as f64;
    let q = 1.0 / (1.0 + e.exp());
    let t = (kf * TAIL_EXP / 2.0).sqrt().ceil() + 1.0;
    let lo = (kf * q - t).floor().max(0.0) as u64;
    let hi = (kf * q + t).ceil().min(kf) as u64;
    if (hi - lo) as usize >= MAX_PRODUCT_ATOMS {
        return None;
    }
    let ln_gamma = |n: u64| {
        MpfrInterval::ln_gamma_int(&Integer::from(n), 64)
            .hi()
            .to_f64()
    };
    let log_norm = e + (-e).exp().ln_1p();
    let mut ln_c = ln_gamma(k + 1) - ln_gamma(lo + 1) - ln_gamma(k - lo + 1);
    let mut out = Vec::with_capacity((hi - lo + 1) as usize);
    for l in lo..=hi {
        if l > lo {
            ln_c += ((k - l + 1) as f64).ln() - (l as f64).ln();
        }
        let loss = e * (kf - 2.0 * l as f64);
        out.push((loss, ln_c + e * (k - l) as f64 - kf * log_norm));
    }
    Some(out)
}

/// The float model the ε search uses, pinned to the certified δ it copies.
#[cfg(test)]
mod float_model_tests {
    use super::*;
    use crate::num::assert_model_near;

    #[test]
    fn ln_delta_f64_matches_delta() {
        let rational = |s: &str| crate::num::parse_exact(s).unwrap();
        let class = |e: &str, d: &str, k: u32| Class {
            epsilon: rational(e),
            delta: rational(d),
            count: Integer::from(k),
        };
        // pure and approximate classes, one and many mechanisms, mixed ε
        let cases = [
            vec![class("0.1", "0", 10)],
            vec![class("1", "1e-6", 3)],
            vec![class("0.01", "0", 2000)],
            vec![class("0.5", "1e-9", 20), class("0.05", "0", 100)],
        ];
        for classes in &cases {
            let wide = product(classes, Precision::Bits(256), 4.0 * TAIL_EXP).unwrap();
            let most = wide.max_loss.to_f64();
            for frac in [0.0, 0.05, 0.2, 0.5, 0.8, 0.9, 0.99] {
                let eps = Rational::from_f64(most * frac).unwrap();
                // the window wide enough that its dropped tail is negligible against δ (as
                // `optimal_composition_delta` widens it)
                let tail = tail_exp_for(wide.ln_delta_f64(eps.to_f64()));
                let prod = product(classes, Precision::Bits(256), tail).unwrap();
                let cert = prod.delta(&eps);
                let what = format!("ln δ {classes:?} ε={}", eps.to_f64());
                assert_model_near(
                    &what,
                    prod.ln_delta_f64(eps.to_f64()),
                    &cert.ln(),
                    1e-9,
                    1e-12,
                );
            }
        }
    }
}
