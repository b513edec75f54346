//! The calibration's bracket: a feasible and an infeasible certified evaluation around the
//! crossing of ε with the target. Where to evaluate: an `f64` secant search on the midpoints of
//! coarse certified evaluations, then two certified evaluations placed around the crossing (a
//! finer PLD grid when the bracket is too wide to separate them). Nothing here decides a
//! reported number: the checks `upper ≤ target` and `lower > target` are exact comparisons of
//! certified values. The searches the theorems use (minimisers, the certified inversion
//! `invert_nonincreasing`, `ln_f64`) are in `crate::search`, the crate's one search module;
//! this one runs the accountant (`dpsgd`), so it lives with calibration, above it.
use super::*;

/// Bounds of the search in each parameter (values beyond are refused as unreachable targets).
const SIGMA_RANGE: (f64, f64) = (1e-3, 1e6);
const STEPS_RANGE: (f64, f64) = (1.0, 1e12);
const RATE_RANGE: (f64, f64) = (1e-12, 1.0);
/// Coarse secant steps at most.
const COARSE_STEPS: usize = 16;
/// Certification attempts at most.
const ATTEMPTS: usize = 8;
/// The finest PLD grid the certification may ask for, relative to the automatic one.
const MAX_REFINE: u32 = 6;

/// The coarse search's result: u* ≈ the crossing, the automatic grid and the half width (ln)
/// near it, and whether an end of the range decided the answer.
struct Coarse {
    u: f64,
    grid: Option<Rational>,
    width: f64,
    /// The most private end of the range was evaluated and missed the target.
    unreachable: bool,
    /// The least private end of the range was evaluated and met the target.
    open_end_feasible: bool,
}

/// One coarse point: u = ln x, F = ln(mid ε) − ln target (+∞ where the accountant refused).
#[derive(Clone, Copy, Debug)]
struct CoarsePoint {
    u: f64,
    f: f64,
}

pub(super) struct Bracketing<'a> {
    run: &'a Run,
    p: Parameter,
    target: &'a Rational,
    delta: &'a Rational,
    ln_target: f64,
    evals: usize,
    /// d ln ε / d ln x, estimated.
    slope: f64,
}

/// ln of the midpoint of a certified ε (the upper bound on one-sided routes), and the distance
/// ln(upper) − ln(mid) (0 one-sided).
fn ln_mid(e: &Certified) -> (f64, f64) {
    let up = e.upper().to_f64();
    match e.lower() {
        Some(lo) => {
            let lo = lo.to_f64().max(0.0);
            let mid = 0.5 * (lo + up);
            (mid.ln(), (up.ln() - mid.ln()).max(0.0))
        }
        None => (up.ln(), 0.0),
    }
}

/// x > 0 rounded up (`up`) or down to 6 significant decimal digits, as an exact rational.
fn six_digits(x: f64, up: bool) -> Rational {
    let e = x.log10().floor() as i32 - 5;
    let scaled = x / 10f64.powi(e);
    let m = if up { scaled.ceil() } else { scaled.floor() }.max(1.0) as u64;
    let p = if e >= 0 {
        Rational::from(Integer::u_pow_u(10, e as u32))
    } else {
        Rational::from((1, Integer::from(Integer::u_pow_u(10, (-e) as u32))))
    };
    Rational::from(m) * p
}

impl<'a> Bracketing<'a> {
    pub(super) fn new(
        run: &'a Run,
        p: Parameter,
        target: &'a Rational,
        delta: &'a Rational,
    ) -> Bracketing<'a> {
        let slope = match p {
            Parameter::Sigma => -1.5,
            Parameter::Steps => 0.6,
            Parameter::Rate => 1.2,
        };
        Bracketing {
            run,
            p,
            target,
            delta,
            ln_target: crate::search::ln_f64(target),
            evals: 0,
            slope,
        }
    }

    fn range(&self) -> (f64, f64) {
        match self.p {
            Parameter::Sigma => SIGMA_RANGE,
            Parameter::Steps => STEPS_RANGE,
            Parameter::Rate => RATE_RANGE,
        }
    }

    /// Is u = ln x at the most private end of the range (`private`), or at the other end?
    fn at_end(&self, u: f64, private: bool) -> bool {
        let (lo, hi) = self.range();
        let end = if private != self.p.increasing() {
            hi
        } else {
            lo
        };
        (u - end.ln()).abs() < 1e-12
    }

    /// The run with the calibrated parameter set to `x` (steps: an integer, rate ≤ 1).
    fn with(&self, x: &Rational) -> Result<Run> {
        let mut r = self.run.clone();
        match self.p {
            Parameter::Sigma => r.sigma = dpsgd::Sigma::new("sigma", x.clone())?,
            Parameter::Steps => {
                r.steps = dpsgd::Steps::new("steps", x.clone().ceil().numer().clone())?
            }
            Parameter::Rate => r.rate = dpsgd::Rate::new("rate", x.clone())?,
        }
        Ok(r)
    }

    fn eval(&mut self, x: &Rational, grid: Option<&Rational>) -> Result<Evaluation> {
        self.evals += 1;
        evaluate(&self.with(x)?, self.delta, grid)
    }

    /// A coarse evaluation at u = ln x (automatic grid): F and the grid used. Refusals of a
    /// mechanism too far from private to grid count as F = +∞ (move towards privacy).
    fn coarse_at(&mut self, u: f64) -> Result<(CoarsePoint, Option<Rational>, f64)> {
        let x = Rational::from_f64(u.exp())
            .ok_or_else(|| Error::Numerical("search left the finite range".into()))?;
        let (x, u) = if self.p == Parameter::Steps {
            let t = x.ceil();
            let u = crate::search::ln_f64(&t);
            (t, u)
        } else {
            (x, u)
        };
        match self.eval(&x, None) {
            Ok(ev) => {
                let (m, w) = ln_mid(&ev.epsilon);
                Ok((
                    CoarsePoint {
                        u,
                        f: m - self.ln_target,
                    },
                    ev.grid,
                    w,
                ))
            }
            Err(Error::InvalidArgument { name, .. }) if name == "terms" || name == "grid" => Ok((
                CoarsePoint {
                    u,
                    f: f64::INFINITY,
                },
                None,
                0.0,
            )),
            Err(Error::Numerical(_)) => Ok((
                CoarsePoint {
                    u,
                    f: f64::INFINITY,
                },
                None,
                0.0,
            )),
            Err(e) => Err(e),
        }
    }

    /// Starting point from the central-limit (μ-GDP) approximation of Poisson DP-SGD,
    /// μ = q·√(T(e^{1/σ²} − 1)) (Bu–Dong–Long–Su 2020); placement only.
    fn start(&self) -> f64 {
        let mu = gdp_mu(self.target.to_f64(), self.delta.to_f64()).max(1e-9);
        let (q, s, t) = (
            self.run.rate.to_f64(),
            self.run.sigma.to_f64() / self.run.group.to_f64(),
            self.run.steps.to_f64(),
        );
        let g = self.run.group.to_f64();
        let x = match self.p {
            Parameter::Sigma => g / (1.0 + mu * mu / (q * q * t)).ln().sqrt(),
            Parameter::Steps => mu * mu / (q * q * (1.0 / (s * s)).exp_m1()),
            Parameter::Rate => mu / (t * (1.0 / (s * s)).exp_m1()).sqrt(),
        };
        let (lo, hi) = self.range();
        if x.is_finite() && x > 0.0 {
            x.clamp(lo, hi)
        } else {
            (lo * hi).sqrt()
        }
    }

    /// The next u: false position with the Illinois rule inside a sign bracket, else a secant
    /// (or the slope guess) step of at most e^{±3}, clamped to the range.
    fn next_u(
        &self,
        pts: &[CoarsePoint],
        lo: &mut Option<CoarsePoint>,
        hi: &mut Option<CoarsePoint>,
    ) -> f64 {
        let last = *pts.last().expect("a point");
        let (ul, uh) = {
            let r = self.range();
            (r.0.ln(), r.1.ln())
        };
        if let (Some(a), Some(b)) = (*lo, *hi) {
            if a.f.is_finite() && b.f.is_finite() {
                return a.u - a.f * (b.u - a.u) / (b.f - a.f);
            }
            return 0.5 * (a.u + b.u);
        }
        let slope = match pts.len() {
            n if n >= 2
                && pts[n - 2].f.is_finite()
                && last.f.is_finite()
                && pts[n - 2].u != last.u =>
            {
                let s = (last.f - pts[n - 2].f) / (last.u - pts[n - 2].u);
                if s * self.slope > 0.0 {
                    s
                } else {
                    self.slope
                }
            }
            _ => self.slope,
        };
        let step = if last.f.is_finite() {
            (-last.f / slope).clamp(-3.0, 3.0)
        } else if self.p.increasing() {
            -1.0
        } else {
            1.0
        };
        (last.u + step).clamp(ul, uh)
    }

    /// The coarse search: u* with F(u*) ≈ 0, the automatic grid there, and the half width.
    fn coarse(&mut self) -> Result<Coarse> {
        let (mut lo, mut hi): (Option<CoarsePoint>, Option<CoarsePoint>) = (None, None);
        let mut pts: Vec<CoarsePoint> = Vec::new();
        let (mut grid, mut width) = (None, 0.0);
        let mut last_side: Option<bool> = None;
        let mut u = self.start().ln();
        for _ in 0..COARSE_STEPS {
            let (pt, g, w) = self.coarse_at(u)?;
            if std::env::var_os("DPCERT_CAL_DEBUG").is_some() {
                eprintln!("[calibrate] coarse x = {:.6e}: F = {:.6e}", u.exp(), pt.f);
            }
            if g.is_some() || pt.f.is_finite() {
                (grid, width) = (g.or(grid), w);
            }
            // feasible side: F < 0; Illinois: when a side is replaced twice in a row, the
            // other (retained) end of the bracket loses half its weight
            let feasible = pt.f < 0.0;
            if last_side == Some(feasible) {
                let other = if feasible { &mut hi } else { &mut lo };
                if let Some(o) = other.as_mut() {
                    o.f *= 0.5;
                }
            }
            last_side = Some(feasible);
            *(if feasible { &mut lo } else { &mut hi }) = Some(pt);
            pts.push(pt);
            if self.integers_adjacent(lo, hi) {
                u = lo.map_or(u, |p| p.u);
                break;
            }
            let next = self.next_u(&pts, &mut lo, &mut hi);
            if pts.len() >= 2
                && pts[pts.len() - 2].f.is_finite()
                && pt.f.is_finite()
                && pt.u != pts[pts.len() - 2].u
            {
                let s = (pt.f - pts[pts.len() - 2].f) / (pt.u - pts[pts.len() - 2].u);
                if s * self.slope > 0.0 {
                    self.slope = s;
                }
            }
            if (next - u).abs() < 1e-4 || next == u {
                u = next;
                break;
            }
            u = next;
        }
        Ok(Coarse {
            u,
            grid,
            width,
            unreachable: pts.iter().any(|p| p.f > 0.0 && self.at_end(p.u, true)),
            open_end_feasible: pts.iter().any(|p| p.f < 0.0 && self.at_end(p.u, false)),
        })
    }

    /// Steps: the bracket holds no integer between its ends beyond the gap (nothing left to
    /// search at coarse resolution).
    fn integers_adjacent(&self, lo: Option<CoarsePoint>, hi: Option<CoarsePoint>) -> bool {
        match (self.p, lo, hi) {
            (Parameter::Steps, Some(a), Some(b)) => {
                let (a, b) = (a.u.exp().round(), b.u.exp().round());
                (b - a).abs() <= (gap().to_f64() * a).max(1.0)
            }
            _ => false,
        }
    }

    /// The feasible candidate near e^u, on the admissible set: σ up to 6 digits, steps down to
    /// an integer, rate down to 6 digits (or to B/N).
    fn snap(&self, u: f64) -> Option<Rational> {
        let x = u.exp();
        let (lo, hi) = self.range();
        match self.p {
            Parameter::Sigma => Some(six_digits(x.clamp(lo, hi), true)),
            Parameter::Steps => Rational::from_f64(x.min(hi))
                .filter(|_| x >= 1.0)
                .map(|r| r.floor()),
            Parameter::Rate => match &self.run.dataset {
                Some(n) => {
                    let b = (x.min(1.0) * n.to_f64()).floor();
                    (b >= 1.0).then(|| Rational::from((Integer::from(b as u64), n.clone())))
                }
                None => Some(six_digits(x.clamp(lo, hi), false)),
            },
        }
    }

    /// The infeasible candidate a relative gap beyond the feasible one (None at the end of
    /// the range: q = 1).
    fn beyond(&self, xf: &Rational) -> Option<Rational> {
        let g = gap();
        match self.p {
            Parameter::Sigma => Some(xf * (1 - g)),
            Parameter::Steps => {
                let t = xf.numer().clone();
                let scaled: Rational = xf * (1 + g);
                let far = scaled.floor().numer().clone();
                Some(Rational::from(far.max(t + 1)))
            }
            Parameter::Rate => {
                if *xf >= 1 {
                    return None;
                }
                match &self.run.dataset {
                    Some(n) => {
                        let b = Rational::from(xf * n).numer().clone();
                        let scaled: Rational = &b * (1 + g);
                        let far = scaled.floor().numer().clone();
                        Some(Rational::from((far.max(b + 1).min(n.clone()), n.clone())))
                    }
                    None => {
                        let scaled: Rational = xf * (1 + g);
                        Some(scaled.min(Rational::from(1)))
                    }
                }
            }
        }
    }
}

mod certify;
