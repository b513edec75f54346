//! The certification step: two certified evaluations a relative gap apart, around the crossing.
use super::*;

/// Is the certified ε at most the target (exact comparison of the certified upper bound)?
fn meets(e: &Certified, target: &Rational) -> bool {
    *e.upper().as_float() <= *target
}

/// Is the certified ε lower bound above the target (exact comparison)?
fn exceeds(e: &Certified, target: &Rational) -> bool {
    e.lower().is_some_and(|l| *l.as_float() > *target)
}

impl<'a> Bracketing<'a> {
    fn unreachable(&self) -> Error {
        let t = validate::show(self.target);
        Error::arg(
            "target-epsilon",
            match self.p {
                Parameter::Sigma => format!("ε ≤ {t} is out of reach: at σ = 10⁶ (the end of the search range) the accountant's ε is above it"),
                Parameter::Steps => format!("ε ≤ {t} is out of reach: at one step the accountant's ε is above it"),
                Parameter::Rate => format!("ε ≤ {t} is out of reach: at rate 10⁻¹² (or batch size 1) the accountant's ε is above it"),
            },
        )
    }

    fn calibration(&self, f: Evaluation, i: Option<Evaluation>) -> Calibration {
        let two_sided = f.epsilon.is_two_sided();
        let (infeasible, bound_exceeds) = match i {
            Some(e) if two_sided => (Some(e), None),
            other => (None, other),
        };
        Calibration {
            parameter: self.p,
            target: self.target.clone(),
            delta: self.delta.clone(),
            feasible: f,
            infeasible,
            bound_exceeds,
            evaluations: self.evals,
        }
    }

    /// Search, then certify.
    pub(in crate::calibrate) fn run(&mut self) -> Result<Calibration> {
        let c = self.coarse()?;
        if c.unreachable {
            return Err(self.unreachable());
        }
        if c.open_end_feasible {
            return match self.p {
                Parameter::Rate => self.at_rate_one(),
                Parameter::Sigma => Err(Error::arg(
                    "target-epsilon",
                    "is met by every σ ≥ 10⁻³ (the search range); no calibration needed",
                )),
                Parameter::Steps => Err(Error::arg(
                    "target-epsilon",
                    "is met by more than 10¹² steps (the search range)",
                )),
            };
        }
        self.certify(c)
    }

    /// q = 1 meets the target: certify it (no larger rate exists).
    fn at_rate_one(&mut self) -> Result<Calibration> {
        let one = Rational::from(1);
        let ev = self.eval(&one, None)?;
        if !meets(&ev.epsilon, self.target) {
            return Err(Error::Numerical(
                "the rate search saw q = 1 meet the target but could not certify it".into(),
            ));
        }
        Ok(self.calibration(ev, None))
    }

    /// Place the feasible point so that, with the estimated slope and half widths, both
    /// certificates hold with equal slack; refine the PLD grid while the half widths leave no
    /// slack; re-centre from each certified evaluation's midpoint.
    fn certify(&mut self, c: Coarse) -> Result<Calibration> {
        let two_sided = c.grid.is_some() || self.run.sampling == Sampling::Shuffled;
        let mut grid = c.grid.clone().map(|g| g / 2u32);
        let mut refinements = 1u32;
        let (mut u_star, mut w) = (
            c.u,
            if c.grid.is_some() {
                c.width / 2.0
            } else {
                c.width
            },
        );
        let sep = self.slope.abs() * gap().to_f64();
        let mut best: Option<Evaluation> = None;
        for _ in 0..ATTEMPTS {
            let slack = 0.5 * (sep - 2.0 * w);
            if two_sided && grid.is_some() && slack < 0.15 * sep && refinements < MAX_REFINE {
                grid = grid.map(|g| g / 2u32);
                refinements += 1;
                w /= 2.0;
                continue;
            }
            let uf = u_star - (1.1 * w + slack.max(0.05 * sep)) / self.slope;
            let xf = self.snap(uf).ok_or_else(|| self.unreachable())?;
            let ef = match self.eval(&xf, grid.as_ref()) {
                // a refined grid beyond the accountant's size guard: back to the last grid
                Err(Error::InvalidArgument { name, .. }) if name == "grid" && refinements > 1 => {
                    grid = grid.map(|g| g * 2u32);
                    (refinements, w) = (MAX_REFINE, w * 2.0);
                    continue;
                }
                r => r?,
            };
            let (mf, wf) = ln_mid(&ef.epsilon);
            u_star = crate::search::ln_f64(&xf) - (mf - self.ln_target) / self.slope;
            w = w.max(wf);
            if !meets(&ef.epsilon, self.target) {
                // move at least a gap towards privacy from the refused point
                u_star = self.towards(u_star, crate::search::ln_f64(&xf), false);
                continue;
            }
            let better = best.as_ref().is_none_or(|b| self.closer(&ef, b));
            if better {
                best = Some(ef.clone());
            }
            let Some(xi) = self.beyond(&xf) else {
                return Ok(self.calibration(ef, None));
            };
            let ei = self.eval(&xi, grid.as_ref())?;
            let (mi, wi) = ln_mid(&ei.epsilon);
            if std::env::var_os("DPCERT_CAL_DEBUG").is_some() {
                eprintln!(
                    "[calibrate] x_f = {} {}, x_i = {} {}",
                    xf.to_f64(),
                    ef.epsilon,
                    xi.to_f64(),
                    ei.epsilon
                );
            }
            self.learn_slope(&xf, mf, &xi, mi);
            let certified = if two_sided {
                exceeds(&ei.epsilon, self.target)
            } else {
                !meets(&ei.epsilon, self.target)
            };
            if certified {
                return Ok(self.calibration(ef, Some(ei)));
            }
            w = w.max(wi);
            u_star = crate::search::ln_f64(&xi) - (mi - self.ln_target) / self.slope;
            if meets(&ei.epsilon, self.target) {
                // the candidate beyond was feasible itself: move at least a gap past it
                u_star = self.towards(u_star, crate::search::ln_f64(&xi), true);
            }
        }
        best.map(|b| self.calibration(b, None)).ok_or_else(|| {
            Error::Numerical("calibration could not certify a feasible value".into())
        })
    }

    /// `u` moved to at least a gap (in ln) beyond `from`: towards less privacy (`outward`:
    /// smaller σ, more steps, larger rate) or towards more.
    fn towards(&self, u: f64, from: f64, outward: bool) -> f64 {
        let g = 1.5 * gap().to_f64();
        if outward == self.p.increasing() {
            u.max(from + g)
        } else {
            u.min(from - g)
        }
    }

    /// Is `a` nearer the optimum than `b` (smaller σ, more steps, larger rate)?
    fn closer(&self, a: &Evaluation, b: &Evaluation) -> bool {
        let (x, y) = (value(&a.run, self.p), value(&b.run, self.p));
        if self.p.increasing() {
            x > y
        } else {
            x < y
        }
    }

    /// The slope d ln ε / d ln x from two certified midpoints, when it has the expected sign
    /// and the points are distinct.
    fn learn_slope(&mut self, xf: &Rational, mf: f64, xi: &Rational, mi: f64) {
        let du = crate::search::ln_f64(xi) - crate::search::ln_f64(xf);
        let s = (mi - mf) / du;
        if du != 0.0 && s.is_finite() && s * self.slope > 0.0 {
            self.slope = s;
        }
    }

    /// Shuffled runs: σ from Corollary 8/10 inverted exactly (`gaussian_sigma`, relative width
    /// 10⁻¹²), then the certified ε at both ends of its bracket.
    pub(in crate::calibrate) fn shuffled_sigma(&mut self) -> Result<Calibration> {
        let k = self.run.passes()?;
        let per = match self.run.relation {
            dpsgd::Relation::AddRemove => 1u32,
            dpsgd::Relation::Substitution => 2u32,
        };
        let sens = Rational::from(&self.run.group * Integer::from(per));
        let b = gaussian_sigma(self.target, self.delta, &sens, &k, Precision::Auto)?;
        // 6-digit decimals just outside the bracket (each re-certified below)
        let hi = six_digits(b.upper().to_f64() * (1.0 + 1e-9), true);
        let lo = Some(six_digits(b.lower().to_f64() * (1.0 - 1e-9), false)).filter(|l| *l > 0);
        let ef = self.eval(&hi, None)?;
        let ei = match lo {
            Some(l) => Some(self.eval(&l, None)?),
            None => None,
        };
        // the route is an upper bound: below the bracket its bound exceeds the target
        // (`bound_exceeds`), which certifies nothing about the shuffled run itself
        let over = |e: &Evaluation| *e.epsilon.upper().as_float() > *self.target;
        if !meets(&ef.epsilon, self.target) || ei.as_ref().is_some_and(|e| !over(e)) {
            return Err(Error::Numerical(
                "shuffled calibration: the Gaussian bracket did not re-certify".into(),
            ));
        }
        Ok(self.calibration(ef, ei))
    }
}
