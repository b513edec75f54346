//! Privacy loss distributions: Definition 2, Proposition 3, Theorem 9, Proposition 7.
use crate::num::{certify, Enclosure, F64Interval, MpfrInterval, Precision, Real, Tri};
use crate::validate;
use crate::{Error, Result};
use rug::float::{Constant, Round, Special};
use rug::{Float, Integer, Rational};

/// PrivLoss(P‖Q) = N(ρ, 2ρ): the privacy loss distribution of a Gaussian pair (Definition 2).
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianPld {
    /// ρ > 0, exact.
    pub rho: Rational,
}

/// Proposition 3: N(μ, σ²) against N(μ', σ²) with |μ − μ'| = Δ has PrivLoss = N(ρ, 2ρ),
/// ρ = Δ²/(2σ²) (exact rational).
///
/// # Guarantee
/// Exact. Errors unless σ > 0 and Δ > 0. Note: `proofs-notes/gaussian_pld.md`.
pub fn gaussian_pld(sigma: &Rational, sensitivity: &Rational) -> Result<GaussianPld> {
    validate::positive("sigma", sigma)?;
    validate::positive("sensitivity", sensitivity)?;
    let rho = Rational::from(sensitivity * sensitivity) / Rational::from(sigma * sigma) / 2u32;
    Ok(GaussianPld { rho })
}

/// One independent component of a finite discrete PLD.
#[derive(Clone, Debug, PartialEq)]
pub enum Factor {
    /// `count` independent copies of ε-randomized response: loss ε w.p. e^ε/(1+e^ε), −ε
    /// otherwise; composed, loss ε(k − 2ℓ) with ℓ ~ Bin(k, 1/(1+e^ε)).
    RandomizedResponse {
        /// ε ≥ 0.
        eps: Rational,
        /// Number of copies k ≥ 1.
        count: Integer,
    },
    /// A finite pair (P, Q) with exact rational probabilities; outcomes with Q = 0 carry
    /// infinite loss.
    Pair {
        /// P's probabilities.
        p: Vec<Rational>,
        /// Q's probabilities, outcome by outcome.
        q: Vec<Rational>,
    },
}

/// A finite discrete PLD: the product (Theorem 9) of its factors.
#[derive(Clone, Debug, PartialEq)]
pub struct DiscretePld {
    /// The independent components; the PLD is their composition.
    pub factors: Vec<Factor>,
}

/// Largest number of atoms a discrete PLD may expand to.
pub const MAX_ATOMS: usize = 200_000;

/// One atom: loss `z` (`None` = +∞), P-mass `p`, Q-mass `q` (= p·e^{−z}).
#[derive(Clone, Debug)]
pub struct Atom<R> {
    /// Privacy loss z; `None` is +∞ (an outcome Q cannot produce).
    pub loss: Option<R>,
    /// Mass under P.
    pub p: R,
    /// Mass under Q (= p·e^{−z}).
    pub q: R,
}

impl DiscretePld {
    /// `count` copies of ε-randomized response; errors unless ε ≥ 0 and count ≥ 1.
    pub fn randomized_response(eps: &Rational, count: &Integer) -> Result<DiscretePld> {
        validate::nonnegative("epsilon", eps)?;
        validate::count("count", count)?;
        Ok(DiscretePld {
            factors: vec![Factor::RandomizedResponse {
                eps: eps.clone(),
                count: count.clone(),
            }],
        })
    }
    /// The PLD of a finite pair (P, Q) of exact probability vectors; errors unless both are
    /// probability vectors of the same positive length.
    pub fn from_pair(p: Vec<Rational>, q: Vec<Rational>) -> Result<DiscretePld> {
        if p.len() != q.len() || p.is_empty() {
            return Err(Error::arg(
                "pair",
                "P and Q must list the same, non-zero number of outcomes",
            ));
        }
        for (name, v) in [("P", &p), ("Q", &q)] {
            if v.iter().any(|x| *x < 0) || v.iter().sum::<Rational>() != 1 {
                return Err(Error::arg(name, "must be non-negative and sum to 1"));
            }
        }
        Ok(DiscretePld {
            factors: vec![Factor::Pair { p, q }],
        })
    }

    /// Atoms of one factor, enclosed.
    fn factor_atoms<R: Real>(f: &Factor, prec: u32) -> Result<Vec<Atom<R>>> {
        let r = |x: &Rational| R::from_rational(x, prec);
        match f {
            Factor::RandomizedResponse { eps, count } => {
                let k = count
                    .to_u32()
                    .filter(|&k| (k as usize) < MAX_ATOMS)
                    .ok_or_else(|| {
                        Error::arg(
                            "count",
                            format!("randomized response count above {MAX_ATOMS}"),
                        )
                    })?;
                let e = r(eps);
                // ln(1 + e^ε) = ε + ln1p(e^{−ε})
                let log_norm = e.add(&e.neg().exp().ln1p()).mul(&r(&Rational::from(k)));
                let mut out = Vec::with_capacity(k as usize + 1);
                for l in 0..=k {
                    let binom = Integer::from(Integer::binomial_u(k, l));
                    let lb = r(&Rational::from(binom)).ln();
                    let kl = r(&Rational::from(k - l));
                    let lr = r(&Rational::from(l));
                    let loss = Rational::from(eps * (i64::from(k) - 2 * i64::from(l)));
                    out.push(Atom {
                        loss: Some(r(&loss)),
                        p: lb.add(&kl.mul(&e)).sub(&log_norm).exp(),
                        q: lb.add(&lr.mul(&e)).sub(&log_norm).exp(),
                    });
                }
                Ok(out)
            }
            Factor::Pair { p, q } => Ok(p
                .iter()
                .zip(q)
                .filter(|(pi, _)| **pi > 0)
                .map(|(pi, qi)| Atom {
                    loss: if *qi == 0 {
                        None
                    } else {
                        Some(r(&Rational::from(pi / qi)).ln())
                    },
                    p: r(pi),
                    q: r(qi),
                })
                .collect()),
        }
    }

    /// Number of atoms [`DiscretePld::atoms`] would produce; errors beyond [`MAX_ATOMS`].
    pub fn atom_count(&self) -> Result<usize> {
        let mut n: usize = 1;
        for f in &self.factors {
            let k = match f {
                Factor::RandomizedResponse { count, .. } => {
                    count.to_usize().and_then(|c| c.checked_add(1))
                }
                Factor::Pair { p, .. } => Some(p.iter().filter(|x| **x > 0).count()),
            };
            n = k
                .and_then(|k| n.checked_mul(k))
                .filter(|&n| n <= MAX_ATOMS)
                .ok_or_else(|| Error::arg("pld", format!("more than {MAX_ATOMS} atoms")))?;
        }
        Ok(n)
    }

    /// All atoms of the product distribution (Theorem 9: losses add, masses multiply).
    pub fn atoms<R: Real>(&self, prec: u32) -> Result<Vec<Atom<R>>> {
        let mut acc: Vec<Atom<R>> = vec![Atom {
            loss: Some(R::from_int(0, prec)),
            p: R::from_int(1, prec),
            q: R::from_int(1, prec),
        }];
        for f in &self.factors {
            let fa = Self::factor_atoms::<R>(f, prec)?;
            if acc.len().saturating_mul(fa.len()) > MAX_ATOMS {
                return Err(Error::arg("pld", format!("more than {MAX_ATOMS} atoms")));
            }
            let mut next = Vec::with_capacity(acc.len() * fa.len());
            for a in &acc {
                for b in &fa {
                    let loss = match (&a.loss, &b.loss) {
                        (Some(x), Some(y)) => Some(x.add(y)),
                        _ => None,
                    };
                    next.push(Atom {
                        loss,
                        p: a.p.mul(&b.p),
                        q: a.q.mul(&b.q),
                    });
                }
            }
            acc = next;
        }
        Ok(acc)
    }
}

/// A PLD the crate represents exactly.
#[derive(Clone, Debug, PartialEq)]
pub enum Pld {
    /// Gaussian: PrivLoss = N(ρ, 2ρ).
    Gaussian(GaussianPld),
    /// Finite discrete.
    Discrete(DiscretePld),
}

/// Every PLD is re-validated before use (the fields are public): Gaussian ρ > 0; discrete
/// factors as at construction, and the atom count within [`MAX_ATOMS`].
fn validate_pld(pld: &Pld) -> Result<()> {
    match pld {
        Pld::Gaussian(g) => validate::positive("rho", &g.rho),
        Pld::Discrete(d) => {
            for f in &d.factors {
                match f {
                    Factor::RandomizedResponse { eps, count } => {
                        DiscretePld::randomized_response(eps, count)?;
                    }
                    Factor::Pair { p, q } => {
                        DiscretePld::from_pair(p.clone(), q.clone())?;
                    }
                }
            }
            d.atom_count().map(|_| ())
        }
    }
}

/// Theorem 9: the PLD of an independent composition is the convolution of the PLDs.
/// Gaussians compose to the Gaussian with ρ = Σρⱼ; discrete PLDs to the product of factors.
///
/// # Guarantee
/// Exact. A Gaussian composed with a discrete PLD is not representable exactly: error.
/// Note: `proofs-notes/compose_plds.md`.
pub fn compose_plds(plds: &[Pld]) -> Result<Pld> {
    validate::nonempty("plds", plds)?;
    for p in plds {
        validate_pld(p)?;
    }
    let mut it = plds.iter().cloned();
    let mut acc = it.next().expect("non-empty");
    for x in it {
        acc = match (acc, x) {
            (Pld::Gaussian(a), Pld::Gaussian(b)) => {
                Pld::Gaussian(GaussianPld { rho: a.rho + b.rho })
            }
            (Pld::Discrete(mut a), Pld::Discrete(b)) => {
                a.factors.extend(b.factors);
                Pld::Discrete(a)
            }
            _ => {
                return Err(Error::arg(
                    "plds",
                    "a Gaussian and a discrete PLD have no exact convolution here",
                ))
            }
        };
    }
    Ok(acc)
}

/// The Gaussian hockey stick in the form of Corollary 8:
/// Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = √(2ρ), clamped to [0, 1].
///
/// This direct form loses about log₂ ε bits to the enclosure of e^ε and overflows MPFR's
/// exponent range for ε ≳ 7.4·10⁸; [`gaussian_tails_iv`] routes large ε and ρ to the Mills
/// form instead.
pub(crate) fn gaussian_tails<R: Real>(rho: &Rational, eps: &Rational, prec: u32) -> R {
    let mu = R::from_rational(&Rational::from(rho * 2u32), prec).sqrt();
    let e = R::from_rational(eps, prec);
    let half_mu = mu.div(&R::from_int(2, prec));
    let r = e.div(&mu);
    let a = half_mu.sub(&r).normal_cdf();
    let b = half_mu.neg().sub(&r).normal_cdf();
    a.sub(&e.exp().mul(&b)).max0().min(&R::from_int(1, prec))
}

/// ε or ρ at or above this (2²⁰) use the Mills form of the Gaussian hockey stick.
const MILLS_FORM_FROM: u32 = 1 << 20;
/// ρ at or below this (2⁻¹⁶) with ε = 0 use δ(0) = erf(√ρ/2).
const ERF_FORM_BELOW_LOG2: u32 = 16;
/// Mills' ratio at points t ≤ this is evaluated as Q(t)·e^{t²/2}·√(2π); above, by its
/// continued fraction.
const MILLS_DIRECT_LIMIT: u32 = 1024;

/// The Gaussian hockey stick δ(ε) of N(ρ, 2ρ) in MPFR intervals, by the route that keeps it
/// tight (every route encloses the same exact value; the choice affects width only):
/// - ε ≥ 2²⁰ or ρ ≥ 2²⁰: the Mills form [`gaussian_tails_mills`], free of e^ε;
/// - ε = 0 and ρ ≤ 2⁻¹⁶: δ(0) = Φ(μ/2) − Φ(−μ/2) = erf(√ρ/2), free of cancellation;
/// - 0 < ρ ≤ ε ≤ 2⁻¹⁶: Corollary 8 as written intersected with [`gaussian_tails_small`];
/// - otherwise Corollary 8 as written ([`gaussian_tails`]).
pub(crate) fn gaussian_tails_iv(rho: &Rational, eps: &Rational, prec: u32) -> MpfrInterval {
    let tiny = |x: &Rational| Rational::from(x << ERF_FORM_BELOW_LOG2) <= 1;
    if *eps >= MILLS_FORM_FROM || *rho >= MILLS_FORM_FROM {
        gaussian_tails_mills(rho, eps, prec)
    } else if *eps == 0 && tiny(rho) {
        gaussian_delta_at_zero(rho, prec)
    } else if tiny(rho) && tiny(eps) && *rho <= *eps {
        gaussian_tails::<MpfrInterval>(rho, eps, prec)
            .intersect(&gaussian_tails_small(rho, eps, prec))
    } else {
        gaussian_tails::<MpfrInterval>(rho, eps, prec)
    }
}

/// 0 < ρ ≤ ε (checked by the caller): with u = ε/μ and h = μ/2 ≤ u,
///   δ = ∫₀ʰ 2φ(u − s)(1 − u·M(u + s)) ds,
/// whose integrand is positive and increasing on [0, h], so δ ∈ [h·g(0), h·g(h)]. Free of the
/// cancellation Φ(a) − e^ε Φ(b) (which costs about log₂(1/μ) + log₂(ε/ρ) bits); its relative
/// width is about ε, so it is intersected with the direct form and decides tiny-ε cases at
/// low precision.
fn gaussian_tails_small(rho: &Rational, eps: &Rational, prec: u32) -> MpfrInterval {
    let mu = MpfrInterval::from_rational(&Rational::from(rho * 2u32), prec).sqrt();
    let u = MpfrInterval::from_rational(eps, prec).div(&mu);
    let two = MpfrInterval::from_int(2, prec);
    let h = mu.div(&two);
    let root = sqrt_2pi(prec);
    let g = |s: &MpfrInterval| {
        let density = u.sub(s).sqr().div(&two).neg().exp().div(&root);
        let rest = MpfrInterval::from_int(1, prec).sub(&u.mul(&mills(&u.add(s), prec)));
        two.mul(&density).mul(&rest)
    };
    let low = h.mul(&g(&MpfrInterval::from_int(0, prec)));
    let high = h.mul(&g(&h));
    low.span(&high).max0()
}

/// δ(0) = Φ(μ/2) − Φ(−μ/2) = erf(μ/(2√2)) = erf(√ρ/2), erf increasing.
fn gaussian_delta_at_zero(rho: &Rational, prec: u32) -> MpfrInterval {
    let x = MpfrInterval::from_rational(rho, prec)
        .sqrt()
        .div(&MpfrInterval::from_int(2, prec));
    let (mut lo, mut hi) = (x.lo().clone(), x.hi().clone());
    lo.erf_round(Round::Down);
    hi.erf_round(Round::Up);
    MpfrInterval::from_endpoints(lo, hi)
}

/// √(2π), enclosed.
fn sqrt_2pi(prec: u32) -> MpfrInterval {
    let pi_lo = Float::with_val_round(prec, Constant::Pi, Round::Down).0;
    let pi_hi = Float::with_val_round(prec, Constant::Pi, Round::Up).0;
    MpfrInterval::from_endpoints(pi_lo, pi_hi)
        .mul(&MpfrInterval::from_int(2, prec))
        .sqrt()
}

/// Continued-fraction depth for Mills' ratio at t > [`MILLS_DIRECT_LIMIT`]: each level n
/// shrinks the enclosure by about n/t², so stop once Σ log₂(t²/n) exceeds prec + 16. A width
/// heuristic only: the enclosure is valid for every depth.
fn mills_depth(t: &Float, prec: u32) -> u32 {
    let l2 = 2.0 * t.clone().log2().to_f64();
    let (mut gained, mut k) = (0.0, 0u32);
    while gained < f64::from(prec) + 16.0 && k < 100_000 {
        k += 1;
        gained += l2 - f64::from(k).log2();
        if l2 - f64::from(k).log2() < 1.0 {
            break;
        }
    }
    k + 1
}

/// Mills' ratio M(t) = Q(t)/φ(t) = e^{t²/2}∫_t^∞ e^{−s²/2} ds at an exact point t ≥ 0 (a
/// `Float`, taken exactly), enclosed. For t ≤ 1024 it is Q(t)·e^{t²/2}·√(2π), with Q by MPFR's
/// erfc and e^{t²/2} ≤ e^{2¹⁹} in range. Above, the continued fraction
/// M(t) = 1/(t + 1/(t + 2/(t + 3/(t + …)))): every partial denominator is ≥ t > 0, so the
/// rest of the fraction after the partial numerator k, (k+1)/(t + …), lies in (0, (k+1)/t];
/// entering it as [0, (k+1)/t] and evaluating backwards in interval arithmetic encloses M(t)
/// for every k (Laplace; Cuyt et al., *Handbook of Continued Fractions*, 2008, §13.2).
fn mills_point(t: &Float, prec: u32) -> MpfrInterval {
    let p = prec.max(t.prec());
    if t.is_infinite() {
        // an endpoint that overflowed stands for some real t′ above the largest finite float F;
        // 0 < M(t′) < 1/t′ < 1/F (Gordon: M(t) < 1/t), so [0, 1/F rounded up] encloses it
        let mut big = Float::with_val(p, Special::Infinity);
        big.next_down();
        let one = Float::with_val(p, 1);
        let hi = Float::with_val_round(p, &one / &big, Round::Up).0;
        return MpfrInterval::from_endpoints(Float::with_val(p, 0), hi);
    }
    let ti = MpfrInterval::point(Float::with_val(p, t));
    if *t <= MILLS_DIRECT_LIMIT {
        let half_sq = ti.sqr().div(&MpfrInterval::from_int(2, p));
        return ti.normal_sf().mul(&half_sq.exp()).mul(&sqrt_2pi(p));
    }
    let k = mills_depth(t, p);
    // (k+1)/t rounded up: the quotient is formed by MPFR in the requested direction
    let numerator = Float::with_val(p, k + 1);
    let rest_hi = Float::with_val_round(p, &numerator / t, Round::Up).0;
    let mut v = ti.add(&MpfrInterval::from_endpoints(
        Float::with_val(p, 0),
        rest_hi,
    ));
    for n in (1..=k).rev() {
        v = ti.add(&MpfrInterval::from_int(i64::from(n), p).div(&v));
    }
    MpfrInterval::from_int(1, p).div(&v)
}

/// Mills' ratio over an interval [t₁, t₂] ⊂ [0, ∞]: M is decreasing, so
/// M([t₁, t₂]) ⊆ [M̲(t₂), M̄(t₁)].
fn mills(t: &MpfrInterval, prec: u32) -> MpfrInterval {
    let lo_t = if *t.lo() < 0 {
        Float::with_val(prec, 0)
    } else {
        t.lo().clone()
    };
    let upper = mills_point(&lo_t, prec);
    let lower = mills_point(t.hi(), prec);
    lower.span(&upper)
}

/// Corollary 8 without e^ε (Mills form). With a = (ρ − ε)/μ, v = (ρ + ε)/μ = μ/2 + ε/μ ≥ 0
/// and φ the standard normal density, v² − a² = 2ε gives e^ε φ(v) = φ(a), hence
/// e^ε Φ(−v) = e^ε φ(v) M(v) = φ(a)·M(v) and
///   δ(ε) = Φ(a) − φ(a)·M(v),   φ(a) = e^{−a²/2}/√(2π).
/// a and v are quotients of the exact rationals ρ ∓ ε by μ (no cancellation); no intermediate
/// exceeds max(1, M(0)) in magnitude, so nothing overflows for any ρ, ε in MPFR's range.
pub(crate) fn gaussian_tails_mills(rho: &Rational, eps: &Rational, prec: u32) -> MpfrInterval {
    let mu = MpfrInterval::from_rational(&Rational::from(rho * 2u32), prec).sqrt();
    let a = MpfrInterval::from_rational(&Rational::from(rho - eps), prec).div(&mu);
    let v = MpfrInterval::from_rational(&Rational::from(rho + eps), prec).div(&mu);
    let density = a
        .sqr()
        .div(&MpfrInterval::from_int(2, prec))
        .neg()
        .exp()
        .div(&sqrt_2pi(prec));
    a.normal_cdf()
        .sub(&density.mul(&mills(&v, prec)))
        .max0()
        .min(&MpfrInterval::from_int(1, prec))
}

/// The Gaussian expectation form, completing the square explicitly:
/// E[max(0, 1 − e^{ε−Z})] = Q(u) − e^{ε−ρ+ρ}·Q(u + s), s = √(2ρ), u = (ε − ρ)/s.
fn gaussian_expectation<R: Real>(rho: &Rational, eps: &Rational, prec: u32) -> R {
    let s = R::from_rational(&Rational::from(rho * 2u32), prec).sqrt();
    let u = R::from_rational(&Rational::from(eps - rho), prec).div(&s);
    let tilt = R::from_rational(&Rational::from(eps - rho), prec)
        .add(&R::from_rational(rho, prec))
        .exp();
    u.normal_sf()
        .sub(&tilt.mul(&u.add(&s).normal_sf()))
        .max0()
        .min(&R::from_int(1, prec))
}

/// The expectation form in MPFR: as [`gaussian_expectation`] for ε, ρ < 2²⁰; above, e^ε would
/// overflow, so the tilted tail e^ε·Q(u + s) is evaluated as exp(ε − (u + s)²/2)·M(u + s)/√(2π)
/// (Q(t) = φ(t)·M(t)), the exponent formed directly (its cancellation costs about log₂ ε bits).
fn gaussian_expectation_iv(rho: &Rational, eps: &Rational, prec: u32) -> MpfrInterval {
    if *eps < MILLS_FORM_FROM && *rho < MILLS_FORM_FROM {
        return gaussian_expectation::<MpfrInterval>(rho, eps, prec);
    }
    let s = MpfrInterval::from_rational(&Rational::from(rho * 2u32), prec).sqrt();
    let u = MpfrInterval::from_rational(&Rational::from(eps - rho), prec).div(&s);
    let t = u.add(&s);
    let exponent =
        MpfrInterval::from_rational(eps, prec).sub(&t.sqr().div(&MpfrInterval::from_int(2, prec)));
    let tilted = exponent.exp().mul(&mills(&t, prec)).div(&sqrt_2pi(prec));
    u.normal_sf()
        .sub(&tilted)
        .max0()
        .min(&MpfrInterval::from_int(1, prec))
}

fn discrete_expectation<R: Real>(d: &DiscretePld, eps: &Rational, prec: u32) -> Result<R> {
    let e = R::from_rational(eps, prec);
    let mut sum = R::from_int(0, prec);
    for a in d.atoms::<R>(prec)? {
        let term = match &a.loss {
            None => a.p.clone(),
            Some(z) => a.p.mul(&e.sub(z).expm1().neg().max0()),
        };
        sum = sum.add(&term);
    }
    Ok(sum)
}

/// Is loss `z` above ε? `Tri::Undecided` when the enclosure of `z` contains ε.
fn above<R: Real>(z: &Option<R>, e: &R) -> Tri {
    match z {
        None => Tri::Greater,
        Some(z) => z.cmp3(e),
    }
}

fn discrete_tails<R: Real>(d: &DiscretePld, eps: &Rational, prec: u32) -> Result<R> {
    let e = R::from_rational(eps, prec);
    let zero = R::from_int(0, prec);
    let (mut p_tail, mut q_tail, mut slack) = (zero.clone(), zero.clone(), zero.clone());
    for a in d.atoms::<R>(prec)? {
        match above(&a.loss, &e) {
            Tri::Greater => {
                p_tail = p_tail.add(&a.p);
                q_tail = q_tail.add(&a.q);
            }
            Tri::Less => {}
            // undecided side: the atom's exact contribution max(0, p − e^ε q) is 0 or positive,
            // and p − e^ε q is enclosed; the hull with 0 contains either case
            Tri::Undecided => slack = slack.add(&a.p.sub(&e.exp().mul(&a.q)).hull(&zero)),
        }
    }
    Ok(p_tail.sub(&e.exp().mul(&q_tail)).add(&slack).max0())
}

fn discrete_integral<R: Real>(d: &DiscretePld, eps: &Rational, prec: u32) -> Result<R> {
    let e = R::from_rational(eps, prec);
    let zero = R::from_int(0, prec);
    let mut above_atoms = Vec::new();
    let mut slack = zero.clone();
    for a in d.atoms::<R>(prec)? {
        match above(&a.loss, &e) {
            Tri::Greater => above_atoms.push(a),
            Tri::Less => {}
            Tri::Undecided => {
                let z = a.loss.as_ref().expect("finite when undecided");
                slack = slack.add(&a.p.mul(&e.sub(z).expm1().neg().max0()));
            }
        }
    }
    // sort by loss (search order only: the Abel sum below is an identity for any order)
    let key = |a: &Atom<R>| {
        a.loss
            .as_ref()
            .and_then(|z| z.endpoints())
            .map(|(l, _)| l.to_f64())
            .unwrap_or(f64::INFINITY)
    };
    above_atoms.sort_by(|a, b| key(a).total_cmp(&key(b)));
    // ∫_ε^∞ e^{ε−z} P[Z > z] dz = Σ_k (e^{ε−b_{k−1}} − e^{ε−b_k})·P[Z ≥ b_k], b_0 = ε
    let mut survival: Vec<R> = vec![zero.clone(); above_atoms.len() + 1];
    for k in (0..above_atoms.len()).rev() {
        survival[k] = survival[k + 1].add(&above_atoms[k].p);
    }
    let mut prev = R::from_int(1, prec); // e^{ε − b_0}
    let mut sum = zero.clone();
    for (k, a) in above_atoms.iter().enumerate() {
        let cur = match &a.loss {
            None => zero.clone(),
            Some(z) => e.sub(z).exp(),
        };
        sum = sum.add(&prev.sub(&cur).mul(&survival[k]));
        prev = cur;
    }
    Ok(sum.add(&slack).max0())
}

/// A hockey-stick divergence lies in [0, 1]: clamping an enclosure's ends there keeps it an
/// enclosure (and never prints a negative lower bound of δ).
pub(crate) fn probability(e: Enclosure) -> Enclosure {
    e.clamp_to(Some(0), Some(1))
}

/// Proposition 7, first expression: δ(ε) = E_{Z←PLD}[max(0, 1 − e^{ε−Z})].
///
/// # Guarantee
/// Encloses the hockey-stick divergence sup_S P(S) − e^ε Q(S) of the pair behind `pld`, for
/// ε ≥ 0; errors otherwise. Note: `proofs-notes/hockey_stick_expectation.md`.
pub fn hockey_stick_expectation(pld: &Pld, eps: &Rational, prec: Precision) -> Result<Enclosure> {
    validate::nonnegative("epsilon", eps)?;
    validate_pld(pld)?;
    let delta = match pld {
        Pld::Gaussian(g) => certify(
            prec,
            || gaussian_expectation::<F64Interval>(&g.rho, eps, 53),
            |p| gaussian_expectation_iv(&g.rho, eps, p),
        ),
        Pld::Discrete(d) => {
            // validate_pld checked the atom count, the only error `atoms` can return
            certify(
                prec,
                || discrete_expectation::<F64Interval>(d, eps, 53).expect("checked"),
                |p| discrete_expectation::<MpfrInterval>(d, eps, p).expect("checked"),
            )
        }
    };
    delta.map(probability)
}

/// Proposition 7, second expression: δ(ε) = P\[Z > ε\] − e^ε P\[−Z' > ε\], Z' ← PrivLoss(Q‖P).
///
/// # Guarantee
/// Encloses the same hockey-stick divergence as [`hockey_stick_expectation`], for ε ≥ 0.
/// Note: `proofs-notes/hockey_stick_tails.md`.
pub fn hockey_stick_tails(pld: &Pld, eps: &Rational, prec: Precision) -> Result<Enclosure> {
    validate::nonnegative("epsilon", eps)?;
    validate_pld(pld)?;
    let delta = match pld {
        Pld::Gaussian(g) => certify(
            prec,
            || gaussian_tails::<F64Interval>(&g.rho, eps, 53),
            |p| gaussian_tails_iv(&g.rho, eps, p),
        ),
        Pld::Discrete(d) => certify(
            prec,
            || discrete_tails::<F64Interval>(d, eps, 53).expect("checked"),
            |p| discrete_tails::<MpfrInterval>(d, eps, p).expect("checked"),
        ),
    };
    delta.map(probability)
}

/// Proposition 7, third expression: δ(ε) = ∫_ε^∞ e^{ε−z} P\[Z > z\] dz.
///
/// Gaussian PLDs: certified quadrature with `panels` panels. On a panel [a, b] the survival
/// function S is non-increasing, so the panel integral lies in [S(b), S(a)]·(e^{ε−a} − e^{ε−b});
/// the tail beyond the last node is at most S(z_N)·e^{ε−z_N}. The enclosure is valid for any
/// `panels`; its width shrinks like 1/panels down to a floor set by the tail cut (nodes span
/// at most 60 above ε, so the tail term is ≤ e^{−60}·S(ε + 60)). Discrete PLDs: the integral of the step
/// function, summed exactly (Abel summation); `panels` is unused.
///
/// MPFR runs at one precision, no `f64` pass: `Precision::Bits(b)`, or `DEFAULT_PREC` under
/// `Precision::Auto` (as for every computation that does not climb).
///
/// # Guarantee
/// Encloses the same hockey-stick divergence, for ε ≥ 0, panels ≥ 1, 16 ≤ bits ≤ 8192 and a
/// valid PLD (Gaussian ρ > 0); errors otherwise. Note: `proofs-notes/hockey_stick_integral.md`.
pub fn hockey_stick_integral(
    pld: &Pld,
    eps: &Rational,
    panels: u32,
    precision: Precision,
) -> Result<Enclosure> {
    validate::nonnegative("epsilon", eps)?;
    validate_pld(pld)?;
    if panels == 0 {
        return Err(Error::arg("panels", "must be at least 1"));
    }
    let prec = precision.fixed_bits()?;
    let delta = match pld {
        Pld::Discrete(d) => Enclosure::from_real(&discrete_integral::<MpfrInterval>(d, eps, prec)?),
        Pld::Gaussian(g) => {
            let s_f = (2.0 * g.rho.to_f64()).sqrt();
            // node placement is a search choice (any nodes give a valid enclosure): cover the
            // region where both e^{ε−z} and S(z) are non-negligible
            let width = ((g.rho.to_f64() - eps.to_f64()).max(0.0) + 40.0 * s_f + 1.0).min(60.0);
            let h = width / panels as f64;
            if !h.is_finite() || h <= 0.0 {
                return Err(Error::arg("pld", "ρ and ε out of range for quadrature"));
            }
            let s = MpfrInterval::from_rational(&Rational::from(&g.rho * 2u32), prec).sqrt();
            let rho = MpfrInterval::from_rational(&g.rho, prec);
            let e = MpfrInterval::from_rational(eps, prec);
            // nodes: exact dyadic offsets from ε
            let node = |i: u32| {
                e.add(&MpfrInterval::from_rational(
                    &Rational::from_f64(h * i as f64).unwrap_or_default(),
                    prec,
                ))
            };
            let surv = |z: &MpfrInterval| z.sub(&rho).div(&s).normal_sf();
            let (mut lo, mut hi) = (
                MpfrInterval::from_int(0, prec),
                MpfrInterval::from_int(0, prec),
            );
            let mut a = node(0);
            let mut s_a = surv(&a);
            for i in 1..=panels {
                let b = node(i);
                let s_b = surv(&b);
                let w = e.sub(&a).exp().sub(&e.sub(&b).exp());
                lo = lo.add(&s_b.mul(&w));
                hi = hi.add(&s_a.mul(&w));
                a = b;
                s_a = s_b;
            }
            hi = hi.add(&s_a.mul(&e.sub(&a).exp()));
            Enclosure::from_real(&MpfrInterval::from_endpoints(
                lo.lo().clone(),
                hi.hi().clone(),
            ))
        }
    };
    delta.map(probability)
}
