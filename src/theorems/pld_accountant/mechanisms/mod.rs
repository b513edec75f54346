//! The mechanisms the accountant discretises, each described by a [`Profile`]: enclosed tails
//! of its continuous part and its exact atoms. One file per mechanism; this file dispatches on
//! [`PldMechanism`] (see the parent module's docs, "Adding a mechanism").
use super::{Interval, PldMechanism, PldTerm};
use crate::validate;
use crate::{Error, Result};
use rug::Rational;

mod balls_and_bins;
mod discrete_gaussian;
mod discrete_laplace;
mod fixed_size_gaussian;
mod gaussian;
mod kary_randomized_response;
mod laplace;
mod randomized_response;
mod subsampled_gaussian;
mod substitution_gaussian;

pub use balls_and_bins::EpochAtoms;
pub(super) use balls_and_bins::UNIT_BITS;
use discrete_gaussian::discrete_gaussian_profile;
use discrete_laplace::{discrete_laplace_profile, MAX_DISCRETE_LAPLACE_SENSITIVITY};
use fixed_size_gaussian::fixed_size_gaussian_profile;
use gaussian::gaussian_profile;
use kary_randomized_response::kary_randomized_response_profile;
use laplace::laplace_profile;
use randomized_response::approx_atoms;
use subsampled_gaussian::subsampled_gaussian_profile;
use substitution_gaussian::substitution_gaussian_profile;

/// P[Z > a], Q[Z > a] of the continuous part, and P[Z ≤ a], Q[Z ≤ a] (each computed
/// without cancellation against 1); R[Z > a], R[Z ≤ a] of a [`Mix`]'s component R (zero for a
/// pair that is not one).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tails {
    pub(super) p_gt: Interval,
    pub(super) q_gt: Interval,
    pub(super) p_le: Interval,
    pub(super) q_le: Interval,
    pub(super) r_gt: Interval,
    pub(super) r_le: Interval,
}

impl Tails {
    /// The tails of a pair without a mixture component.
    pub(super) fn plain(p_gt: Interval, q_gt: Interval, p_le: Interval, q_le: Interval) -> Tails {
        let zero = Interval::try_from((0.0, 0.0)).unwrap_or(Interval::ENTIRE);
        Tails {
            p_gt,
            q_gt,
            p_le,
            q_le,
            r_gt: zero,
            r_le: zero,
        }
    }
}

/// A pair one of whose laws is a mixture of the other and a component R (the tails' `r_gt`,
/// `r_le`): P = (1 − r)Q + rR when `p_is_mix` (a subsampled mechanism's remove direction), else
/// Q = (1 − r)P + rR (its add direction). The upper split then needs no difference of two
/// nearly equal cell masses (`pld_epsilon.md`, Lemma Mixture-split).
#[derive(Clone, Copy, Debug)]
pub(super) struct Mix {
    /// The rate r, enclosed.
    pub(super) rate: Interval,
    pub(super) p_is_mix: bool,
}

/// (Φ(x), Φ(−x)), enclosed, from one evaluation.
pub(super) fn phi2(x: Interval) -> (Interval, Interval) {
    crate::num::normal_cdf_pair(x)
}

/// An atom: exact loss (None = +∞) and enclosed P-mass.
pub(super) struct Atom {
    pub(super) loss: Option<Rational>,
    pub(super) p: Interval,
}

/// What the accountant needs of one copy of a mechanism: the law of its privacy loss Z under P
/// (and, through the tails, under Q) as a continuous part plus atoms.
pub(super) struct Profile {
    pub(super) tails: Option<Box<dyn Fn(Interval) -> Tails + Sync>>,
    pub(super) atoms: Vec<Atom>,
    /// Loss interval outside which the continuous part has no mass (may be infinite).
    pub(super) support: (f64, f64),
    /// Where this mechanism's grid sits once h ≥ `shift_from`: its points are then
    /// shift + i·h, else i·h (any exact offset is valid; a subsampled Gaussian puts one on the
    /// loss of its unsampled bulk when the grid is too coarse to hold it near a point, so the
    /// dominated side need not move that mass a whole grid step per copy).
    pub(super) shift: Rational,
    /// The grid width from which `shift` applies (+∞: never).
    pub(super) shift_from: f64,
    /// Rough standard deviation of one copy's loss (grid heuristic only).
    pub(super) spread: f64,
    /// The finest loss scale the grid should resolve (grid heuristic only): the spread, or for
    /// subsampled Gaussians also the distance |ln(1 − q)| from the accumulation point of the
    /// unsampled outputs to 0.
    pub(super) detail: f64,
    /// The pair's mixture structure, if it declares one (its tails then carry R's).
    pub(super) mix: Option<Mix>,
}

impl Profile {
    /// A mechanism given by its atoms alone (no continuous part), on the unshifted grid.
    pub(super) fn atoms_only(atoms: Vec<Atom>, spread: f64, detail: f64) -> Profile {
        Profile {
            tails: None,
            atoms,
            support: (0.0, 0.0),
            shift: Rational::new(),
            shift_from: f64::INFINITY,
            spread: spread.max(1e-6),
            detail: detail.max(1e-6),
            mix: None,
        }
    }
}

/// The profile of one copy of `m` (its exact parameters enclosed once, outward).
pub(super) fn profile(m: &PldMechanism) -> Profile {
    match m {
        PldMechanism::Gaussian { rho } => gaussian_profile(rho),
        PldMechanism::Laplace { eps } => laplace_profile(eps),
        PldMechanism::RandomizedResponse { eps } => approx_atoms(eps, &Rational::new()),
        PldMechanism::ApproxDp { eps, delta } => approx_atoms(eps, delta),
        PldMechanism::DiscreteLaplace {
            parameter,
            sensitivity,
        } => discrete_laplace_profile(parameter, sensitivity),
        PldMechanism::KaryRandomizedResponse { noise, buckets } => {
            kary_randomized_response_profile(noise, buckets)
        }
        PldMechanism::DiscreteGaussian {
            sigma_squared,
            sensitivity,
        } => discrete_gaussian_profile(sigma_squared, sensitivity),
        PldMechanism::SubsampledGaussian {
            sigma,
            rate,
            direction,
        } => subsampled_gaussian_profile(sigma, rate, *direction),
        PldMechanism::SubsampledGaussianSubstitution { sigma, rate } => {
            substitution_gaussian_profile(sigma, rate)
        }
        PldMechanism::FixedSizeGaussian { sigma, rate } => fixed_size_gaussian_profile(sigma, rate),
        PldMechanism::BallsAndBinsEpoch(e) => balls_and_bins::balls_and_bins_profile(e),
    }
}

/// ε0 with `m` ε0-DP at δ = 0 (its loss lies in [−ε0, ε0], no mass at +∞), exactly, where the
/// mechanism is pure DP with a rational ε0: Laplace (ε0), randomized response and an ε-DP black
/// box (ε0), the discrete Laplace (its largest loss aΔ). `None` otherwise (unbounded losses, mass
/// at +∞, or an irrational ε0 as k-ary randomized response's).
pub(super) fn pure_epsilon(m: &PldMechanism) -> Option<Rational> {
    match m {
        PldMechanism::Laplace { eps } | PldMechanism::RandomizedResponse { eps } => {
            Some(eps.clone())
        }
        PldMechanism::ApproxDp { eps, delta } if *delta == 0 => Some(eps.clone()),
        PldMechanism::DiscreteLaplace {
            parameter,
            sensitivity,
        } => Some(Rational::from(parameter * sensitivity)),
        _ => None,
    }
}

/// The exact loss unit of `m`'s atoms when every atom's finite loss is an integer multiple of
/// it (the grid choice then tries to hold them exactly); `None` for mechanisms without atoms.
pub(super) fn atom_unit(m: &PldMechanism) -> Option<Rational> {
    match m {
        PldMechanism::Laplace { eps }
        | PldMechanism::RandomizedResponse { eps }
        | PldMechanism::ApproxDp { eps, .. } => Some(eps.clone()),
        PldMechanism::DiscreteLaplace { parameter, .. } => Some(parameter.clone()),
        // Δ(Δ − 2y)/(2σ²) is an integer multiple of Δ/(2σ²)
        PldMechanism::DiscreteGaussian {
            sigma_squared,
            sensitivity,
        } => Some(Rational::from(sensitivity) / Rational::from(sigma_squared * 2u32)),
        PldMechanism::BallsAndBinsEpoch(_) => Some(balls_and_bins::balls_and_bins_unit()),
        PldMechanism::Gaussian { .. }
        | PldMechanism::KaryRandomizedResponse { .. }
        | PldMechanism::SubsampledGaussian { .. }
        | PldMechanism::SubsampledGaussianSubstitution { .. }
        | PldMechanism::FixedSizeGaussian { .. } => None,
    }
}

/// Every parameter of the term in its domain; errors name the argument.
pub(super) fn validate_term(t: &PldTerm) -> Result<()> {
    validate::count("count", &t.count)?;
    match &t.mechanism {
        PldMechanism::Gaussian { rho } => validate::positive("rho", rho),
        PldMechanism::Laplace { eps } => validate::positive("epsilon", eps),
        PldMechanism::RandomizedResponse { eps } => validate::nonnegative("epsilon", eps),
        PldMechanism::ApproxDp { eps, delta } => {
            validate::nonnegative("epsilon", eps)?;
            validate::unit_from_zero("delta", delta)
        }
        PldMechanism::DiscreteLaplace {
            parameter,
            sensitivity,
        } => {
            validate::positive("noise_parameter", parameter)?;
            validate::count("sensitivity", sensitivity)?;
            if *sensitivity > MAX_DISCRETE_LAPLACE_SENSITIVITY {
                return Err(Error::arg(
                    "sensitivity",
                    format!("{sensitivity} exceeds {MAX_DISCRETE_LAPLACE_SENSITIVITY} (one atom per output between the two centres)"),
                ));
            }
            Ok(())
        }
        PldMechanism::KaryRandomizedResponse { noise, buckets } => {
            crate::theorems::randomized_response::check_rr(noise, buckets)
        }
        PldMechanism::DiscreteGaussian {
            sigma_squared,
            sensitivity,
        } => {
            crate::theorems::discrete::check_sigma_squared(sigma_squared)?;
            validate::count("sensitivity", sensitivity)
        }
        PldMechanism::SubsampledGaussian { sigma, rate, .. }
        | PldMechanism::SubsampledGaussianSubstitution { sigma, rate }
        | PldMechanism::FixedSizeGaussian { sigma, rate } => {
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
        // built by `epoch_atoms`, which checked its parameters
        PldMechanism::BallsAndBinsEpoch(_) => Ok(()),
    }
}

// Each tail against its closed form evaluated in MPFR at 256 bits by another route (erfc for Φ,
// the plain threshold ln((e^a − 1 + q)/q) instead of ln1p/expm1, e^x for the Laplace masses):
// the enclosure must contain the reference and be at most `rel` wide relative to it.
#[cfg(test)]
mod tests {
    use super::super::enclose::point;
    use super::super::test_util::{rational, P};
    use super::*;
    use crate::theorems::pld_accountant::Direction;
    use rug::Float;

    fn f<T>(x: T) -> Float
    where
        Float: rug::Assign<T>,
    {
        Float::with_val(P, x)
    }
    fn fl(r: &Rational) -> Float {
        Float::with_val(P, r)
    }
    /// Φ(x) = erfc(−x/√2)/2.
    fn phi(x: Float) -> Float {
        let s2 = Float::with_val(P, 2u32).sqrt();
        Float::with_val(P, -x / s2).erfc() / 2u32
    }
    fn encloses(iv: Interval, want: &Float, rel: f64, what: &str) {
        let (lo, hi) = (Float::with_val(P, iv.inf()), Float::with_val(P, iv.sup()));
        assert!(
            lo <= *want && *want <= hi,
            "{what}: [{lo}, {hi}] misses {want}"
        );
        let tol = Float::with_val(P, want * rel) + 1e-300;
        assert!(
            Float::with_val(P, &hi - &lo) <= tol,
            "{what}: [{lo}, {hi}] wider than {rel} relative"
        );
    }
    fn tails(pr: &Profile, a: f64) -> Tails {
        (pr.tails.as_ref().unwrap())(point(a))
    }

    #[test]
    fn gaussian_tails_match_erfc() {
        let rho = rational("3/8");
        let pr = profile(&PldMechanism::Gaussian { rho: rho.clone() });
        let s = f(Float::with_val(P, fl(&rho) * 2u32).sqrt());
        for a in [-3.0, -0.5, 0.0, 0.375, 1.25, 4.0] {
            let t = tails(&pr, a);
            let (pa, mr) = (fl(&rho) - a, -fl(&rho) - a);
            let what = format!("ρ = 3/8, a = {a}");
            encloses(t.p_gt, &phi(f(&pa / &s)), 1e-12, &what);
            encloses(t.p_le, &phi(f(-pa / &s)), 1e-12, &what);
            encloses(t.q_gt, &phi(f(&mr / &s)), 1e-12, &what);
            encloses(t.q_le, &phi(f(-mr / &s)), 1e-12, &what);
        }
    }

    #[test]
    fn subsampled_gaussian_tails_match_the_plain_threshold() {
        let (sigma, q) = (rational("0.8"), rational("1/100"));
        let (sg, qf) = (fl(&sigma), fl(&q));
        // x(b) = σ² ln((e^b − 1 + q)/q) + ½ where e^b > 1 − q
        let x_of = |b: f64| {
            let inner = f(f(Float::with_val(P, b).exp() - 1u32) + &qf) / &qf;
            f(f(&sg * &sg) * inner.ln()) + 0.5
        };
        let mix = |x: &Float, upper: bool| {
            // (1 − q)Φ(∓x/σ) + qΦ(∓(x − 1)/σ): the mixture's mass above (upper) or below x
            let sgn = if upper { -1 } else { 1 };
            let a = phi(f(x * sgn) / &sg);
            let b = phi(f(f(x - 1u32) * sgn) / &sg);
            f(f(f(1u32 - &qf) * a) + f(&qf * b))
        };
        let one = |x: &Float, upper: bool| phi(if upper { f(-x) } else { f(x) } / &sg);
        for direction in [Direction::Remove, Direction::Add] {
            let pr = profile(&PldMechanism::SubsampledGaussian {
                sigma: sigma.clone(),
                rate: q.clone(),
                direction,
            });
            for a in [-0.3, -0.004, 0.0, 0.003, 0.02, 0.3, 1.5] {
                let t = tails(&pr, a);
                let what = format!("{direction:?}, a = {a}");
                match direction {
                    // Z > a ⟺ x > x(a); P is the mixture, Q = N(0, σ²)
                    Direction::Remove if a > (0.99f64).ln() => {
                        let x = x_of(a);
                        encloses(t.p_gt, &mix(&x, true), 1e-11, &what);
                        encloses(t.p_le, &mix(&x, false), 1e-11, &what);
                        encloses(t.q_gt, &one(&x, true), 1e-11, &what);
                        encloses(t.q_le, &one(&x, false), 1e-11, &what);
                    }
                    // Z > a ⟺ x < x(−a); P = N(0, σ²), Q is the mixture
                    Direction::Add if -a > (0.99f64).ln() => {
                        let x = x_of(-a);
                        encloses(t.p_gt, &one(&x, false), 1e-11, &what);
                        encloses(t.p_le, &one(&x, true), 1e-11, &what);
                        encloses(t.q_gt, &mix(&x, false), 1e-11, &what);
                        encloses(t.q_le, &mix(&x, true), 1e-11, &what);
                    }
                    // beyond the support end ∓ln(1 − q): every output (remove) or none (add)
                    _ => {
                        let (gt, le) = match direction {
                            Direction::Remove => (f(1u32), f(0u32)),
                            Direction::Add => (f(0u32), f(1u32)),
                        };
                        for (iv, want) in
                            [(t.p_gt, &gt), (t.q_gt, &gt), (t.p_le, &le), (t.q_le, &le)]
                        {
                            encloses(iv, want, 0.0, &what);
                        }
                    }
                }
            }
        }
    }

    // the threshold from the plain root (k·m + √(k²m² + 4c²e^a))/(2c), m = e^a − 1, in MPFR at
    // 256 bits (the code takes σ²·ln1p(y − 1) with y − 1 from the shifted quadratic, or
    // 2c·e^a/(r − km) where y < ½); tails as Φ mixtures via erfc. At σ = 700 (a copy's losses
    // within ±10⁻⁴) each tail within 10⁻¹³ relative: through ln y they were 10⁻¹²–4·10⁻¹², which the
    // upper split divides by e^h − 1 (`substitution_split_dominates_the_exact_split_at_large_sigma`)
    #[test]
    fn substitution_tails_match_the_plain_root() {
        let coarse = [-3.0, -0.3, -0.004, 0.0, 0.003, 0.02, 0.3, 1.5, 6.0];
        let fine = [-3e-5, -1e-5, 0.0, 1e-6, 1e-5, 3e-5];
        for (sigma, q, losses, rel) in [
            (rational("0.8"), rational("1/100"), &coarse[..], 1e-11),
            (rational("2"), rational("1/2"), &coarse[..], 1e-11),
            (rational("1.5"), rational("1"), &coarse[..], 1e-11),
            (rational("700"), rational("256/60000"), &fine[..], 1e-13),
        ] {
            let (sg, qf) = (fl(&sigma), fl(&q));
            let k = f(1u32 - &qf);
            let c = f(&qf * f(f(-1i32) / f(f(&sg * &sg) * 2u32)).exp());
            let x_of = |a: f64| {
                let ea = f(Float::with_val(P, a).exp());
                let m = f(&ea - 1u32);
                let km = f(&k * &m);
                let root = f(f(&km * &km) + f(f(&c * &c) * 4u32) * &ea).sqrt();
                let y = f(f(&km + root) / f(&c * 2u32));
                f(f(&sg * &sg) * y.ln())
            };
            let pr = profile(&PldMechanism::SubsampledGaussianSubstitution {
                sigma: sigma.clone(),
                rate: q.clone(),
            });
            for &a in losses {
                let t = tails(&pr, a);
                let x = x_of(a);
                // (mass above x, mass below x) of (1 − q)N(0) + qN(±1)
                let mix = |sh: i32, above: bool| {
                    let sgn = if above { -1 } else { 1 };
                    let n0 = phi(f(&x * sgn) / &sg);
                    let n1 = phi(f(f(&x - sh) * sgn) / &sg);
                    f(f(&k * n0) + f(&qf * n1))
                };
                let what = format!("σ = {sigma}, q = {q}, a = {a}");
                encloses(t.p_gt, &mix(1, true), rel, &what);
                encloses(t.q_gt, &mix(-1, true), rel, &what);
                encloses(t.p_le, &mix(1, false), rel, &what);
                encloses(t.q_le, &mix(-1, false), rel, &what);
            }
        }
    }

    // the remove pair at s = σ/2 from the plain threshold x(b) = s²·ln((e^b − 1 + q)/q) + ½
    // (b ≥ 0) in MPFR at 256 bits: S's tails are its tails at |a|, mirrored below 0 with P and Q
    // exchanged, and the atom at 0 carries what is left of mass 1
    #[test]
    fn fixed_size_tails_are_the_remove_pair_mirrored() {
        for (sigma, q) in [("1.1", "1/100"), ("2", "1/2"), ("3", "1")] {
            let (sigma, q) = (rational(sigma), rational(q));
            let (s, qf) = (f(fl(&sigma) / 2u32), fl(&q));
            let above = |b: f64| {
                let inner = f(f(f(Float::with_val(P, b).exp() - 1u32) + &qf) / &qf);
                let x = f(f(f(&s * &s) * inner.ln()) + 0.5);
                let g0 = phi(f(-x.clone()) / &s);
                let g1 = phi(f(1u32 - x) / &s);
                // (P[Z > b], Q[Z > b]) of (q·N(1, s²) + (1 − q)N(0, s²) ‖ N(0, s²))
                (f(f(f(1u32 - &qf) * &g0) + f(&qf * g1)), g0)
            };
            let pr = profile(&PldMechanism::FixedSizeGaussian {
                sigma: sigma.clone(),
                rate: q.clone(),
            });
            let (p0, q0) = above(0.0);
            let atom = f(f(1u32 - &p0) - &q0);
            assert_eq!(pr.atoms.len(), 1);
            assert_eq!(pr.atoms[0].loss, Some(Rational::new()));
            let (lo, hi) = (
                Float::with_val(P, pr.atoms[0].p.inf()),
                Float::with_val(P, pr.atoms[0].p.sup()),
            );
            assert!(
                lo <= atom && atom <= hi && f(&hi - &lo) < 1e-14,
                "atom [{lo}, {hi}] vs {atom}"
            );
            let rest = f(1u32 - &atom);
            for a in [-2.0, -0.3, -0.004, 0.0, 0.003, 0.3, 2.0] {
                let t = tails(&pr, a);
                let (pg, qg) = above(a.abs());
                let what = format!("σ = {sigma}, q = {q}, a = {a}");
                let (p_gt, q_gt, p_le, q_le) = if a >= 0.0 {
                    (pg.clone(), qg.clone(), f(&rest - &pg), f(&rest - &qg))
                } else {
                    (f(&rest - &qg), f(&rest - &pg), qg, pg)
                };
                encloses(t.p_gt, &p_gt, 1e-11, &what);
                encloses(t.q_gt, &q_gt, 1e-11, &what);
                encloses(t.p_le, &p_le, 1e-11, &what);
                encloses(t.q_le, &q_le, 1e-11, &what);
            }
        }
    }

    #[test]
    fn laplace_masses_add_up_and_match_the_density() {
        let eps = rational("0.7");
        let pr = profile(&PldMechanism::Laplace { eps: eps.clone() });
        let e = fl(&eps);
        // outputs x ∈ (0, ε0) (b = 1): Z = ε0 − 2x > a ⟺ x < (ε0 − a)/2, P-density ½e^{−x}
        for a in [-0.6, -0.1, 0.0, 0.35, 0.69] {
            let t = tails(&pr, a);
            let top = f(f(&e - a) / 2u32);
            let p_gt = f(1u32 - f(-top.clone()).exp()) / 2u32;
            let p_le = f(f(-top.clone()).exp() - f(-e.clone()).exp()) / 2u32;
            // Q = Laplace centred at ε0: density ½e^{−(ε0 − x)} on (0, ε0)
            let q_gt = f(f(top.clone() - &e).exp() - f(-e.clone()).exp()) / 2u32;
            let q_le = f(1u32 - f(top - &e).exp()) / 2u32;
            let what = format!("a = {a}");
            encloses(t.p_gt, &p_gt, 1e-12, &what);
            encloses(t.p_le, &p_le, 1e-12, &what);
            encloses(t.q_gt, &q_gt, 1e-12, &what);
            encloses(t.q_le, &q_le, 1e-12, &what);
        }
        // atoms: ½ at ε0 (outputs below 0), ½e^{−ε0} at −ε0 (outputs above ε0)
        assert_eq!(pr.atoms[0].loss, Some(eps.clone()));
        encloses(pr.atoms[0].p, &f(Float::with_val(P, 0.5)), 0.0, "atom ε0");
        encloses(pr.atoms[1].p, &f(f(-e).exp() / 2u32), 1e-15, "atom −ε0");
    }

    #[test]
    fn randomized_response_atoms_are_the_corollary_24_pair() {
        for (eps, delta) in [("1.5", "0"), ("0.25", "1e-6")] {
            let (e, d) = (rational(eps), rational(delta));
            let pr = profile(&if d == 0 {
                PldMechanism::RandomizedResponse { eps: e.clone() }
            } else {
                PldMechanism::ApproxDp {
                    eps: e.clone(),
                    delta: d.clone(),
                }
            });
            assert!(pr.tails.is_none());
            let (ef, df) = (fl(&e), fl(&d));
            let ee = f(ef.clone().exp());
            let up = f(f(1u32 - &df) * &ee) / f(&ee + 1u32);
            let down = f(1u32 - &df) / f(&ee + 1u32);
            encloses(pr.atoms[0].p, &up, 1e-15, eps);
            encloses(pr.atoms[1].p, &down, 1e-15, eps);
            assert_eq!(pr.atoms[0].loss, Some(e.clone()));
            assert_eq!(pr.atoms[1].loss, Some(Rational::from(-&e)));
            assert_eq!(pr.atoms.len(), if d == 0 { 2 } else { 3 });
            if d > 0 {
                assert_eq!(pr.atoms[2].loss, None);
                encloses(pr.atoms[2].p, &df, 1e-15, "δ atom");
            }
        }
    }

    #[test]
    fn invalid_parameters_are_refused_by_name() {
        let t = |mechanism, count: i32| PldTerm {
            mechanism,
            count: rug::Integer::from(count),
        };
        let sg = |sigma: &str, rate: &str| PldMechanism::SubsampledGaussian {
            sigma: rational(sigma),
            rate: rational(rate),
            direction: Direction::Add,
        };
        for (term, name) in [
            (t(PldMechanism::Gaussian { rho: rational("0") }, 1), "rho"),
            (
                t(PldMechanism::Laplace { eps: rational("0") }, 1),
                "epsilon",
            ),
            (
                t(
                    PldMechanism::RandomizedResponse {
                        eps: rational("-1"),
                    },
                    1,
                ),
                "epsilon",
            ),
            (
                t(
                    PldMechanism::ApproxDp {
                        eps: rational("1"),
                        delta: rational("1"),
                    },
                    1,
                ),
                "delta",
            ),
            (t(sg("0", "1/2"), 1), "sigma"),
            (t(sg("1", "0"), 1), "rate"),
            (t(sg("1", "3/2"), 1), "rate"),
            (t(sg("1", "1/2"), 0), "count"),
        ] {
            match validate_term(&term) {
                Err(Error::InvalidArgument { name: n, .. }) => assert_eq!(n, name, "{term:?}"),
                other => panic!("{term:?}: {other:?}"),
            }
        }
        assert!(validate_term(&t(sg("1", "1"), 3)).is_ok());
    }
}
