//! A single-value query — the Gaussian mechanism's δ, ε or σ, a zCDP conversion, a
//! composition, a Rényi-DP curve point, DP-SGD's ε — as a value: [`Query`] holds the exact
//! parameters, [`Query::validate`] checks them against the theorem's domain (naming the
//! argument), and [`Query::evaluate`] returns the certified [`Answer`]. The command line maps
//! its flags to a `Query`; `check` ([`super::judge`]) and `vectors` evaluate the same values.
use crate::dpsgd::{Accountant, Accounting, Delta, Phase, Route, Run};
use crate::num::{Certified, Enclosure, Precision, UpperBound, DEFAULT_PREC};
use crate::reference::check::{Kind, Quantity};
use crate::theorems::{approx, basic, gaussian, optimal, pld, pld_accountant, rdp, zcdp};
use crate::{validate, Error, Result};
use rug::{Integer, Rational};
use serde_json::{json, Value};

/// K compositions of N(0, σ²) noise on a query of L2 sensitivity Δ.
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianShape {
    /// The noise standard deviation σ (> 0), in the query's units.
    pub sigma: Rational,
    /// L2 sensitivity Δ (> 0).
    pub sensitivity: Rational,
    /// Number of compositions K (≥ 1).
    pub compositions: Integer,
}

/// DP-SGD's ε at δ: the run, the target δ and how the accountants run (grid, tail, tight
/// preset; the precision and progress lines come with the evaluation).
#[derive(Clone, Debug, PartialEq)]
pub struct Dpsgd {
    /// The run: rate, σ, steps, sampler, relation, group, method.
    pub run: Run,
    /// Target δ in (0, 1).
    pub delta: Delta,
    /// The PLD accountant's grid, tail and tight preset.
    pub accounting: Accounting,
}

/// A single-value query. Parameters are exact rationals (as the user wrote them).
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    /// Exact δ(ε) of the Gaussian mechanism (Corollaries 8, 10).
    GaussianDelta {
        /// The mechanism: σ, sensitivity Δ and number of compositions K.
        shape: GaussianShape,
        /// The ε ≥ 0 at which δ(ε) is asked.
        epsilon: Rational,
    },
    /// Exact optimal ε at δ of the Gaussian mechanism.
    GaussianEpsilon {
        /// The mechanism: σ, sensitivity Δ and number of compositions K.
        shape: GaussianShape,
        /// Target δ in (0, 1).
        delta: Rational,
    },
    /// Smallest σ giving (ε, δ)-DP.
    GaussianSigma {
        /// Target ε ≥ 0.
        epsilon: Rational,
        /// Target δ in (0, 1).
        delta: Rational,
        /// L2 sensitivity Δ > 0.
        sensitivity: Rational,
        /// Number of compositions K ≥ 1.
        compositions: Integer,
    },
    /// A valid δ at ε for every ρ-zCDP mechanism.
    ZcdpDelta {
        /// The zCDP parameter ρ > 0.
        rho: Rational,
        /// The ε ≥ 0 at which δ is asked.
        epsilon: Rational,
    },
    /// A valid ε at δ for every ρ-zCDP mechanism.
    ZcdpEpsilon {
        /// The zCDP parameter ρ > 0.
        rho: Rational,
        /// Target δ in (0, 1).
        delta: Rational,
    },
    /// ε at δ of `count` mechanisms, each (ε0, δ0)-DP (`delta_each = None`: pure ε0-DP).
    Compose {
        /// Per-mechanism ε0 ≥ 0.
        epsilon: Rational,
        /// Per-mechanism δ0 in [0, 1) (`None`: each mechanism is pure ε0-DP, δ0 = 0).
        delta_each: Option<Rational>,
        /// Number of composed mechanisms (≥ 1).
        count: Integer,
        /// Target overall δ in (0, 1).
        delta: Rational,
    },
    /// RDP ε(α) of T Poisson-subsampled Gaussian steps.
    RdpSubsampledGaussian {
        /// Sampling rate q in (0, 1], exact.
        rate: Rational,
        /// Noise multiplier σ > 0.
        sigma: Rational,
        /// Number of steps T ≥ 1.
        steps: Integer,
        /// Rényi order α in (1, `rdp::MAX_ORDER`].
        order: Rational,
    },
    /// ε at δ of DP-SGD, any sampler, relation and group ([`crate::dpsgd::route()`]).
    Dpsgd(Dpsgd),
    /// The best membership-inference attack's TPR at FPR `fpr` (f-DP, Gaussian tradeoff).
    GaussianTpr {
        /// The mechanism: σ, sensitivity Δ and number of compositions K.
        shape: GaussianShape,
        /// The attack's false-positive rate, in [0, 1].
        fpr: Rational,
    },
    /// The exact μ of μ-GDP of the Gaussian composition.
    GaussianGdp {
        /// The mechanism: σ, sensitivity Δ and number of compositions K.
        shape: GaussianShape,
    },
    /// The smallest μ with DP-SGD μ-GDP (Poisson, add/remove): √T/σ, two-sided.
    DpsgdGdp {
        /// Sampling rate q in (0, 1], exact.
        rate: Rational,
        /// Noise multiplier σ > 0.
        sigma: Rational,
        /// Number of steps T ≥ 1.
        steps: Integer,
    },
    /// ε at δ of DP-SGD in phases (each its own q, σ, T; Poisson, add/remove), by the PLD
    /// accountant.
    DpsgdPhases {
        /// The phases, in order (each q in (0, 1], σ > 0, T ≥ 1); at least one.
        phases: Vec<Phase>,
        /// Target δ in (0, 1).
        delta: Delta,
        /// PLD grid width h (automatic when `None`).
        grid: Option<Rational>,
        /// PLD tail mass per truncation (automatic when `None`).
        tail: Option<Rational>,
    },
    /// δ at ε of DP-SGD (Poisson, add/remove), a single run as one phase or a schedule, by the
    /// PLD accountant (`dpcert dpsgd … --epsilon E`).
    DpsgdDelta {
        /// The phases, in order (each q in (0, 1], σ > 0, T ≥ 1); at least one.
        phases: Vec<Phase>,
        /// The ε ≥ 0 at which δ(ε) is asked.
        epsilon: Rational,
        /// PLD grid width h (automatic when `None`).
        grid: Option<Rational>,
        /// PLD tail mass per truncation (automatic when `None`).
        tail: Option<Rational>,
    },
    /// δ at ε of a DP-SGD run whose route reads its privacy profile both ways (random
    /// allocation, balls-and-bins, truncated Poisson), by [`crate::dpsgd::delta`]; the ε at δ
    /// of such a run is a [`Query::Dpsgd`].
    DpsgdRunDelta {
        /// The run.
        run: Run,
        /// The ε ≥ 0 at which δ(ε) is asked.
        epsilon: Rational,
        /// The accounting settings (as [`Dpsgd::accounting`]).
        accounting: Accounting,
    },
    /// The best membership-inference attack's TPR at FPR `fpr` against DP-SGD (certified PLD).
    DpsgdTpr {
        /// Sampling rate q in (0, 1], exact.
        rate: Rational,
        /// Noise multiplier σ > 0.
        sigma: Rational,
        /// Number of steps T ≥ 1.
        steps: Integer,
        /// The attack's false-positive rate, in [0, 1].
        fpr: Rational,
        /// PLD grid width h (automatic when `None`).
        grid: Option<Rational>,
        /// PLD tail mass per truncation (automatic when `None`).
        tail: Option<Rational>,
    },
}

/// A query's certified answer.
#[derive(Clone, Debug)]
pub struct Answer {
    /// A two-sided enclosure of the asked quantity, or an upper bound on it.
    pub value: Certified,
    /// The theorem (or chain of results) the answer rests on.
    pub theorem: &'static str,
    /// Query-specific facts (route, grid, Rényi order, …), as JSON data.
    pub details: Vec<(&'static str, Value)>,
}

fn answer(value: Certified, theorem: &'static str, details: Vec<(&'static str, Value)>) -> Answer {
    Answer {
        value,
        theorem,
        details,
    }
}

/// ρ = passes·Δ²/(2σ²) of the shuffled run's Gaussian composition (Δ = 1 add/remove, 2
/// substitution), exact.
fn shuffled_rho(
    sigma: &Rational,
    passes: &Integer,
    relation: crate::theorems::sampling::Relation,
) -> Rational {
    let d = match relation {
        crate::theorems::sampling::Relation::AddRemove => 1u32,
        crate::theorems::sampling::Relation::Substitution => 2u32,
    };
    Rational::from(Integer::from(passes * (d * d))) / (Rational::from(sigma * sigma) * 2u32)
}

fn rate_in_unit(q: &Rational) -> Result<()> {
    validate::unit_rate("rate", q)
}

fn validate_sgm(rate: &Rational, sigma: &Rational, steps: &Integer) -> Result<()> {
    rate_in_unit(rate)?;
    validate::positive("sigma", sigma)?;
    validate::count("steps", steps)
}

impl GaussianShape {
    fn validate(&self) -> Result<()> {
        validate::positive("sigma", &self.sigma)?;
        validate::positive("sensitivity", &self.sensitivity)?;
        validate::count("compositions", &self.compositions)
    }
    /// The PLD of the composition (Theorem 9: a Gaussian PLD with ρ = K·Δ²/(2σ²)).
    pub fn pld(&self) -> Result<pld::GaussianPld> {
        self.validate()?;
        gaussian::gaussian_composition(&[gaussian::GaussianMechanism {
            sigma: self.sigma.clone(),
            sensitivity: self.sensitivity.clone(),
            count: self.compositions.clone(),
        }])
    }
}

impl Query {
    /// The command that asks this query (`"gaussian delta"`, `"dpsgd"`, …).
    pub fn command(&self) -> &'static str {
        match self {
            Query::GaussianDelta { .. } => "gaussian delta",
            Query::GaussianEpsilon { .. } => "gaussian epsilon",
            Query::GaussianSigma { .. } => "gaussian sigma",
            Query::ZcdpDelta { .. } => "zcdp delta",
            Query::ZcdpEpsilon { .. } => "zcdp epsilon",
            Query::Compose {
                delta_each: None, ..
            } => "compose pure",
            Query::Compose { .. } => "compose approx",
            Query::RdpSubsampledGaussian { .. } => "rdp subsampled-gaussian",
            Query::Dpsgd(_) => "dpsgd",
            Query::GaussianTpr { .. } => "tradeoff gaussian",
            Query::GaussianGdp { .. } => "gdp gaussian",
            Query::DpsgdGdp { .. } => "gdp dpsgd",
            Query::DpsgdTpr { .. } => "tradeoff dpsgd",
            Query::DpsgdPhases { .. } => "dpsgd",
            Query::DpsgdDelta { .. } => "dpsgd",
            Query::DpsgdRunDelta { .. } => "dpsgd",
        }
    }

    /// The quantity asked for, and whether dpcert's answer to it is two-sided.
    pub fn quantity(&self) -> (Quantity, Kind) {
        match self {
            Query::GaussianDelta { .. } => (Quantity::Delta, Kind::TwoSided),
            Query::GaussianEpsilon { .. } => (Quantity::Epsilon, Kind::TwoSided),
            Query::GaussianSigma { .. } => (Quantity::Sigma, Kind::TwoSided),
            Query::ZcdpDelta { .. } => (Quantity::Delta, Kind::UpperBound),
            Query::ZcdpEpsilon { .. } => (Quantity::Epsilon, Kind::UpperBound),
            Query::Compose { .. } => (Quantity::Epsilon, Kind::TwoSided),
            Query::RdpSubsampledGaussian { .. } => (Quantity::RdpEpsilon, Kind::TwoSided),
            // two-sided where only the PLD accountant answers; else an upper bound (RDP)
            // until a two-sided PLD bracket is met
            Query::Dpsgd(d) => match crate::dpsgd::route(&d.run, &d.accounting) {
                Ok(Route::PoissonSubstitution | Route::GroupExamples) => {
                    (Quantity::Epsilon, Kind::TwoSided)
                }
                Ok(r) if r.is_allocated() => (Quantity::Epsilon, Kind::TwoSided),
                _ => (Quantity::Epsilon, Kind::UpperBound),
            },
            Query::GaussianTpr { .. } => (Quantity::Tpr, Kind::TwoSided),
            Query::GaussianGdp { .. } | Query::DpsgdGdp { .. } => (Quantity::Mu, Kind::TwoSided),
            Query::DpsgdTpr { .. } => (Quantity::Tpr, Kind::TwoSided),
            Query::DpsgdPhases { .. } => (Quantity::Epsilon, Kind::TwoSided),
            Query::DpsgdDelta { .. } => (Quantity::Delta, Kind::TwoSided),
            Query::DpsgdRunDelta { .. } => (Quantity::Delta, Kind::TwoSided),
        }
    }

    /// Check every parameter against the theorem's domain; the error names the argument.
    pub fn validate(&self) -> Result<()> {
        match self {
            Query::GaussianDelta { shape, epsilon } => {
                shape.validate()?;
                validate::nonnegative("epsilon", epsilon)
            }
            Query::GaussianEpsilon { shape, delta } => {
                shape.validate()?;
                validate::open_unit("delta", delta)
            }
            Query::GaussianSigma {
                epsilon,
                delta,
                sensitivity,
                compositions,
            } => {
                validate::nonnegative("epsilon", epsilon)?;
                validate::open_unit("delta", delta)?;
                validate::positive("sensitivity", sensitivity)?;
                validate::count("compositions", compositions)
            }
            Query::ZcdpDelta { rho, epsilon } => {
                validate::positive("rho", rho)?;
                validate::nonnegative("epsilon", epsilon)
            }
            Query::ZcdpEpsilon { rho, delta } => {
                validate::positive("rho", rho)?;
                validate::open_unit("delta", delta)
            }
            Query::Compose { .. } => self.compose_classes().map(|_| ()),
            Query::RdpSubsampledGaussian {
                rate,
                sigma,
                steps,
                order,
            } => {
                validate_sgm(rate, sigma, steps)?;
                validate_order(order)
            }
            Query::Dpsgd(d) => crate::dpsgd::route(&d.run, &d.accounting).map(|_| ()),
            Query::GaussianTpr { shape, fpr } => {
                shape.validate()?;
                crate::theorems::tradeoff::check_rate("fpr", fpr)
            }
            Query::GaussianGdp { shape } => shape.validate(),
            Query::DpsgdGdp { rate, sigma, steps } => validate_sgm(rate, sigma, steps),
            Query::DpsgdTpr {
                rate,
                sigma,
                steps,
                fpr,
                ..
            } => {
                validate_sgm(rate, sigma, steps)?;
                crate::theorems::tradeoff::check_rate("fpr", fpr)
            }
            Query::DpsgdPhases { phases, .. } => validate_phases(phases),
            Query::DpsgdDelta {
                phases, epsilon, ..
            } => {
                validate_phases(phases)?;
                validate::nonnegative("epsilon", epsilon)
            }
            Query::DpsgdRunDelta {
                run,
                epsilon,
                accounting,
            } => {
                crate::dpsgd::route(run, accounting)?;
                validate::nonnegative("epsilon", epsilon)
            }
        }
    }

    /// The certified answer at precision `p` (`progress`: the PLD accountant may print
    /// progress on stderr). Validates first; an answer whose upper end overflowed is an error.
    pub fn evaluate(&self, p: Precision, progress: bool) -> Result<Answer> {
        self.validate()?;
        let a = match self {
            Query::GaussianDelta { shape, epsilon } => gaussian_delta(shape, epsilon, p)?,
            Query::GaussianEpsilon { shape, delta } => gaussian_epsilon(shape, delta, p)?,
            Query::GaussianSigma {
                epsilon,
                delta,
                sensitivity,
                compositions,
            } => gaussian_sigma(epsilon, delta, sensitivity, compositions, p)?,
            Query::ZcdpDelta { rho, epsilon } => zcdp_delta(rho, epsilon, p)?,
            Query::ZcdpEpsilon { rho, delta } => zcdp_epsilon(rho, delta, p)?,
            Query::Compose { .. } => {
                let (classes, d) = self.compose_classes()?;
                compose(&classes, &d, p)?
            }
            Query::RdpSubsampledGaussian {
                rate,
                sigma,
                steps,
                order,
            } => rdp_point(rate, sigma, steps, order, p)?,
            Query::Dpsgd(d) => dpsgd(d, p, progress)?,
            Query::GaussianTpr { shape, fpr } => answer(
                Certified::TwoSided(crate::theorems::tradeoff::gaussian_tradeoff_tpr(
                    &shape.pld()?,
                    fpr,
                    p,
                )?),
                "Dong–Roth–Su 2022 Theorem 2.7 / Corollary 3.3: TPR = Φ(Φ⁻¹(FPR) + μ)",
                vec![],
            ),
            Query::GaussianGdp { shape } => answer(
                Certified::TwoSided(crate::theorems::gdp::gaussian_gdp(&shape.pld()?, p)?),
                "Dong–Roth–Su 2022 Theorem 2.7 / Corollary 3.3: μ = Δ√K/σ",
                vec![],
            ),
            Query::DpsgdGdp { rate, sigma, steps } => dpsgd_gdp(rate, sigma, steps, p)?,
            Query::DpsgdTpr {
                rate,
                sigma,
                steps,
                fpr,
                grid,
                tail,
            } => dpsgd_tpr(rate, sigma, steps, fpr, (grid, tail), progress)?,
            Query::DpsgdPhases {
                phases,
                delta,
                grid,
                tail,
            } => {
                let acc = schedule_accounting(grid, tail, progress);
                pld_answer(&crate::dpsgd::schedule_epsilon(phases, delta, &acc)?)
            }
            Query::DpsgdDelta {
                phases,
                epsilon,
                grid,
                tail,
            } => {
                let acc = schedule_accounting(grid, tail, progress);
                pld_answer(&crate::dpsgd::schedule_delta(phases, epsilon, &acc)?)
            }
            Query::DpsgdRunDelta {
                run,
                epsilon,
                accounting,
            } => run_delta(run, epsilon, accounting, p, progress)?,
        };
        require_finite_upper(a.value.upper(), self.command())?;
        Ok(a)
    }

    /// The query itself when it is DP-SGD's plain run (Poisson, add/remove, example level):
    /// the one `check` judges by refining the PLD grid and trying RDP.
    pub fn plain_dpsgd(&self) -> Option<&Dpsgd> {
        match self {
            Query::Dpsgd(d) if d.run.is_plain() => Some(d),
            _ => None,
        }
    }

    /// The one class of a composition query, and the target δ (validated).
    pub fn compose_classes(&self) -> Result<(Vec<optimal::Class>, Rational)> {
        let Query::Compose {
            epsilon,
            delta_each,
            count,
            delta,
        } = self
        else {
            return Err(Error::arg("query", "not a composition query"));
        };
        validate::nonnegative("epsilon", epsilon)?;
        if let Some(d0) = delta_each {
            validate::unit_from_zero("delta-each", d0)?;
        }
        validate::count("count", count)?;
        validate::open_unit("delta", delta)?;
        let class = optimal::Class {
            epsilon: epsilon.clone(),
            delta: delta_each.clone().unwrap_or_default(),
            count: count.clone(),
        };
        Ok((vec![class], delta.clone()))
    }
}

/// The Rényi order α must lie in (1, MAX_ORDER].
fn validate_order(a: &Rational) -> Result<()> {
    if *a <= 1 || *a > rdp::MAX_ORDER {
        return Err(Error::arg(
            "order",
            format!(
                "must lie in (1, {}], got {}",
                rdp::MAX_ORDER,
                validate::show(a)
            ),
        ));
    }
    Ok(())
}

pub use crate::validate::require_finite_upper;

/// A bound route's certified statement, as a quantity object.
fn bound_json(b: &UpperBound) -> Value {
    crate::json::quantity(&Certified::UpperBound(b.clone()))
}

/// The smallest σ for (ε, δ) over K compositions (Corollaries 8 and 10, inverted in σ).
fn gaussian_sigma(
    epsilon: &Rational,
    delta: &Rational,
    sensitivity: &Rational,
    compositions: &Integer,
    p: Precision,
) -> Result<Answer> {
    Ok(answer(
        Certified::TwoSided(gaussian::gaussian_sigma(
            epsilon,
            delta,
            sensitivity,
            compositions,
            p,
        )?),
        "Steinke 2022 Corollary 8 / Corollary 10, inverted in σ by certified bisection",
        vec![],
    ))
}

fn gaussian_delta(shape: &GaussianShape, e: &Rational, p: Precision) -> Result<Answer> {
    let pld = shape.pld()?;
    let enc = gaussian::gaussian_delta(&pld, e, p)?;
    Ok(answer(
        Certified::TwoSided(enc),
        "Steinke 2022 Corollary 8 / Corollary 10 (Theorem 9 for compositions)",
        vec![("rho", json!(validate::echo(&pld.rho)))],
    ))
}

fn gaussian_epsilon(shape: &GaussianShape, d: &Rational, p: Precision) -> Result<Answer> {
    let pld = shape.pld()?;
    let enc = gaussian::gaussian_epsilon(&pld, d, p)?;
    Ok(answer(
        Certified::TwoSided(enc),
        "Steinke 2022 Corollary 8 / Corollary 10, inverted by certified bisection",
        vec![("rho", json!(validate::echo(&pld.rho)))],
    ))
}

fn zcdp_delta(r: &Rational, e: &Rational, p: Precision) -> Result<Answer> {
    let opt = zcdp::zcdp_delta(r, e, p)?;
    let closed = if e >= r {
        Some(zcdp::zcdp_delta_closed_form(r, e, p)?)
    } else {
        None
    };
    let (best, theorem) = match &closed {
        Some(c) if c.upper().as_float() < opt.upper().as_float() => (
            c.clone(),
            "Steinke 2022 Proposition 14 (closed form, Remark 15)",
        ),
        _ => (
            opt.clone(),
            "Steinke 2022 Proposition 14 (optimised over t)",
        ),
    };
    let details = vec![
        ("optimised", bound_json(&opt)),
        (
            "closed_form",
            closed.as_ref().map_or(Value::Null, bound_json),
        ),
    ];
    Ok(answer(Certified::UpperBound(best), theorem, details))
}

fn zcdp_epsilon(r: &Rational, d: &Rational, p: Precision) -> Result<Answer> {
    let opt = zcdp::zcdp_epsilon(r, d, p)?;
    let closed = zcdp::zcdp_epsilon_closed_form(r, d, p)?;
    let (best, theorem) = if closed.upper().as_float() < opt.upper().as_float() {
        (
            closed.clone(),
            "Steinke 2022 Remark 15 (ρ + 2√(ρ log(1/δ)))",
        )
    } else {
        (
            opt.clone(),
            "Steinke 2022 Proposition 14 (optimised over t)",
        )
    };
    let details = vec![
        ("optimised", bound_json(&opt)),
        ("closed_form", bound_json(&closed)),
    ];
    Ok(answer(Certified::UpperBound(best), theorem, details))
}

/// A bound route of a composition query: name, theorem, bound.
type BoundRoute = (&'static str, &'static str, UpperBound);

/// The bound routes of one class, for comparison; Theorem 1 on the k copies (refuses
/// k·δ0 ≥ 1).
fn compose_routes(c: &optimal::Class, d: &Rational, p: Precision) -> Result<Vec<BoundRoute>> {
    let kr = Rational::from(&c.count);
    let mut routes: Vec<BoundRoute> = Vec::new();
    let basic_sums = basic::basic_composition(&[(
        Rational::from(&c.epsilon * &kr),
        Rational::from(&c.delta * &kr),
    )])
    .ok();
    if let Some((sum_e, _)) = basic_sums.as_ref().filter(|(_, sd)| sd <= d) {
        routes.push((
            "basic composition",
            "Steinke 2022 Theorem 1",
            UpperBound::new(Enclosure::rational(sum_e, DEFAULT_PREC)),
        ));
    }
    if c.delta == 0 {
        routes.push((
            "advanced composition",
            "Steinke 2022 Theorem 18",
            zcdp::advanced_composition(&[(c.epsilon.clone(), c.count.clone())], d, p)?,
        ));
        let rho = zcdp::pure_to_zcdp(&c.epsilon)? * &kr;
        if rho > 0 {
            routes.push((
                "zCDP",
                "Steinke 2022 Proposition 16, Theorem 13, Proposition 14 (optimised)",
                zcdp::zcdp_epsilon(&rho, d, p)?,
            ));
        }
    } else if basic_sums.as_ref().is_some_and(|(_, sd)| d > sd) {
        routes.push((
            "advanced composition",
            "Steinke 2022 Theorem 22",
            approx::approx_advanced_composition(
                &[(c.epsilon.clone(), c.delta.clone(), c.count.clone())],
                d,
                p,
            )?,
        ));
    }
    Ok(routes)
}

fn compose(classes: &[optimal::Class], d: &Rational, p: Precision) -> Result<Answer> {
    let routes = compose_routes(&classes[0], d, p)?;
    let routes_json: Vec<Value> = routes
        .iter()
        .map(|(n, t, e)| json!({"route": n, "theorem": t, "epsilon": bound_json(e)}))
        .collect();
    let opt_theorem = "optimal composition: Kairouz–Oh–Viswanath 2015 Thm 3.3 / Murtagh–Vadhan 2016, via Steinke 2022 Corollary 24";
    match optimal::optimal_composition_epsilon(classes, d, p) {
        Ok(enc) => Ok(answer(
            Certified::TwoSided(enc),
            opt_theorem,
            vec![
                ("route", json!("optimal composition")),
                ("routes", Value::Array(routes_json)),
            ],
        )),
        Err(Error::InvalidArgument { .. }) if !routes.is_empty() => {
            // too many atoms for the exact computation: best bound route, one-sided
            let best = routes
                .iter()
                .min_by(|a, b| {
                    a.2.upper()
                        .as_float()
                        .partial_cmp(b.2.upper().as_float())
                        .expect("finite")
                })
                .expect("routes")
                .clone();
            Ok(answer(
                Certified::UpperBound(best.2),
                best.1,
                vec![
                    ("route", json!(best.0)),
                    ("routes", Value::Array(routes_json)),
                ],
            ))
        }
        Err(e) => Err(e),
    }
}

/// μ-GDP of the Poisson add/remove run, with the lower end's witness test.
fn dpsgd_gdp(rate: &Rational, sigma: &Rational, steps: &Integer, p: Precision) -> Result<Answer> {
    let r = crate::theorems::gdp::dpsgd_gdp(rate, sigma, steps, p)?;
    let witness = r
        .witness
        .as_ref()
        .map_or(Value::Null, |w| Value::String(validate::show(&w.z)));
    Ok(answer(
        Certified::TwoSided(r.mu),
        "μ* = √T/σ: each step is (1/σ)-GDP, composed by Dong–Roth–Su 2022 Corollary 3.3 (upper); the test Σx > z·σ√T with TPR ≥ q^T·Φ̄(z − √T/σ) > 1 − G_μ(FPR), by Gordon's Mills-ratio bounds (lower)",
        vec![("witness_z", witness)],
    ))
}

fn rdp_point(
    q: &Rational,
    s: &Rational,
    t: &Integer,
    a: &Rational,
    p: Precision,
) -> Result<Answer> {
    let enc = rdp::subsampled_gaussian_rdp(q, s, t, a, p)?;
    // two-sided at every order: the exact sum at integers, a series with certified remainder between
    let theorem = if *a.denom() == 1 {
        "Mironov–Talwar–Zhang 2019 (exact binomial sum at integer orders), composed additively (Mironov 2017)"
    } else {
        "Mironov–Talwar–Zhang 2019 fractional-order series with a certified remainder (capped by the convexity chord)"
    };
    Ok(answer(Certified::TwoSided(enc), theorem, vec![]))
}

/// The PLD accountant's settings for a schedule of phases.
fn schedule_accounting(
    grid: &Option<Rational>,
    tail: &Option<Rational>,
    progress: bool,
) -> Accounting {
    Accounting {
        grid: grid.clone(),
        tail: tail.clone(),
        progress,
        ..Accounting::default()
    }
}

pub use crate::dpsgd::route::{
    DPSGD_RDP_THEOREM, FIXED_SIZE_RDP_THEOREM, FIXED_SIZE_THEOREM, GROUP_EXAMPLES_THEOREM,
    GROUP_USERS_THEOREM, PLD_SUBSTITUTION_THEOREM, PLD_THEOREM,
};

/// Every phase of a schedule in the accountant's domain (at least one; the error names the
/// argument).
fn validate_phases(phases: &[Phase]) -> Result<()> {
    validate::nonempty("phases", phases)?;
    for p in phases {
        validate_sgm(&p.rate, &p.sigma, &p.steps)?;
    }
    Ok(())
}

fn pld_answer(r: &pld_accountant::PldReport) -> Answer {
    answer(
        Certified::TwoSided(r.enclosure.clone()),
        PLD_THEOREM,
        vec![
            ("method", json!("pld")),
            ("grid", json!(validate::show(&r.grid))),
            ("tail", json!(validate::show(&r.tail))),
            ("fixed_point_bits", json!(r.fixed_bits)),
            ("support", json!(r.support)),
            ("order", Value::Null),
        ],
    )
}

/// The TPR bracket of `tradeoff dpsgd` (the PLD accountant's grid facts as details).
fn dpsgd_tpr(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    fpr: &Rational,
    (grid, tail): (&Option<Rational>, &Option<Rational>),
    progress: bool,
) -> Result<Answer> {
    #[allow(
        clippy::needless_update,
        reason = "PldOptions may gain fields; a new one takes its default here"
    )]
    let opts = pld_accountant::PldOptions {
        tight: false,
        grid: grid.clone(),
        tail: tail.clone(),
        progress,
        ..Default::default()
    };
    let fprs = std::slice::from_ref(fpr);
    let r = pld_accountant::dpsgd_tradeoff_tpr(rate, sigma, steps, fprs, &opts)?;
    let mut a = pld_answer(&r[0]);
    a.theorem = "Neyman–Pearson duality TPR = inf_ε e^ε·FPR + δ(ε) on the certified PLD (both sides, both neighbour directions)";
    Ok(a)
}

/// The answer of a DP-SGD query: [`crate::dpsgd::epsilon`] at the query's run, δ and
/// accounting, with the route's facts as details.
fn dpsgd(d: &Dpsgd, p: Precision, progress: bool) -> Result<Answer> {
    let acc = Accounting {
        precision: p,
        progress,
        ..d.accounting.clone()
    };
    let e = crate::dpsgd::epsilon(&d.run, &d.delta, &acc)?;
    if e.route.is_allocated() {
        let details = sampler_details(&d.run, e.route)?;
        return Ok(answer(e.value.clone(), e.theorem(), details));
    }
    let mut a = match (&e.pld, e.accountant) {
        (Some(r), _) => pld_answer(r),
        (None, Accountant::Rdp) => answer(
            e.value.clone(),
            "",
            vec![
                ("method", json!("rdp")),
                ("grid", Value::Null),
                ("tail", Value::Null),
                ("fixed_point_bits", Value::Null),
                ("support", Value::Null),
                ("order", json!(e.order.clone().unwrap_or_default())),
            ],
        ),
        (None, _) => {
            let passes = e.passes.clone().unwrap_or_default();
            let rho = shuffled_rho(&d.run.sigma, &passes, d.run.relation);
            answer(
                e.value.clone(),
                "",
                vec![
                    ("rho", Value::String(validate::show(&rho))),
                    ("passes", Value::String(passes.to_string())),
                    ("relation", Value::String(d.run.relation.name().into())),
                ],
            )
        }
    };
    a.theorem = e.theorem();
    a.details.extend(route_details(d, &e));
    Ok(a)
}

/// The details a route adds: the sampler, the pair, the group reduction.
fn route_details(d: &Dpsgd, e: &crate::dpsgd::Epsilon) -> Vec<(&'static str, Value)> {
    let k = &d.run.group;
    let mut details = match e.route {
        Route::PoissonSubstitution => vec![
            ("relation", json!("substitution")),
            ("pair", json!("(1−q)N(0,σ²)+qN(1,σ²) ‖ (1−q)N(0,σ²)+qN(−1,σ²) (dominating and realised: both sides)")),
        ],
        Route::FixedSize => vec![
            ("relation", json!("substitution")),
            ("sampling", json!("fixed-size")),
        ],
        Route::GroupExamples => vec![("group_route", json!(format!("examples: group privacy over {k} add/remove hops (upper); one example's lower end")))],
        // the theorem stays the answering route's (PLD or RDP); the reduction is named here
        Route::Poisson if *k != 1 => vec![(
            "group_route",
            json!(format!("{GROUP_USERS_THEOREM}; σ/K = {}", validate::show(&e.sigma))),
        )],
        Route::Poisson | Route::Shuffled => vec![],
        // answered with `sampler_details`
        Route::BallsAndBins | Route::RandomAllocation | Route::TruncatedPoisson => vec![],
    };
    if *k != 1 {
        details.push(("group_size", json!(k.to_string())));
        details.push(("user_sampling", json!(d.run.user_sampling.name())));
    }
    details
}

/// δ at ε of a run whose route reads both ways ([`crate::dpsgd::delta`]), two-sided, with the
/// sampler's facts as details.
fn run_delta(
    run: &Run,
    epsilon: &Rational,
    accounting: &Accounting,
    p: Precision,
    progress: bool,
) -> Result<Answer> {
    let acc = Accounting {
        precision: p,
        progress,
        ..accounting.clone()
    };
    let (route, value) = crate::dpsgd::delta(run, epsilon, &acc)?;
    let details = sampler_details(run, route)?;
    Ok(answer(
        Certified::TwoSided(value),
        route.delta_theorem(),
        details,
    ))
}

/// The sampler's facts of a random-allocation or truncated-Poisson answer
/// ([`crate::dpsgd::Route::facts`]), as JSON strings.
fn sampler_details(run: &Run, route: Route) -> Result<Vec<(&'static str, Value)>> {
    Ok(route
        .facts(run)?
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_exact;
    fn rational(s: &str) -> Rational {
        parse_exact(s).unwrap()
    }

    #[test]
    fn validation_names_the_argument() {
        let bad = [
            (
                Query::ZcdpDelta {
                    rho: rational("0"),
                    epsilon: rational("1"),
                },
                "rho",
            ),
            (
                Query::GaussianEpsilon {
                    shape: GaussianShape {
                        sigma: rational("1"),
                        sensitivity: rational("-1"),
                        compositions: Integer::from(1),
                    },
                    delta: rational("1e-5"),
                },
                "sensitivity",
            ),
            (
                Query::Compose {
                    epsilon: rational("1"),
                    delta_each: Some(rational("1")),
                    count: Integer::from(3),
                    delta: rational("1e-5"),
                },
                "delta-each",
            ),
            (
                Query::RdpSubsampledGaussian {
                    rate: rational("1/100"),
                    sigma: rational("1"),
                    steps: Integer::from(10),
                    order: rational("1"),
                },
                "order",
            ),
            (
                Query::Dpsgd(Dpsgd {
                    run: crate::dpsgd::Run {
                        relation: crate::dpsgd::Relation::Substitution,
                        method: crate::dpsgd::Method::Rdp,
                        ..Run::checked(rational("1/100"), rational("1"), Integer::from(10)).unwrap()
                    },
                    delta: Delta::new("delta", rational("1e-5")).unwrap(),
                    accounting: Accounting::default(),
                }),
                "method",
            ),
        ];
        for (query, name) in bad {
            match query.evaluate(Precision::Auto, false) {
                Err(Error::InvalidArgument { name: n, .. }) => assert_eq!(n, name, "{query:?}"),
                other => panic!("{query:?}: {other:?}"),
            }
        }
        assert!(crate::dpsgd::Method::parse("exact").is_err());
        // a DP-SGD run's numbers are checked where the run is made: a rate of 3/2 is no run
        match Run::checked(rational("3/2"), rational("1"), Integer::from(10)) {
            Err(Error::InvalidArgument { name, .. }) => assert_eq!(name, "rate"),
            other => panic!("{other:?}"),
        }
    }

    /// Independent reference: at ε = 0 the Gaussian δ is 2Φ(Δ/(2σ)) − 1 = erf(Δ/(2√2 σ)),
    /// evaluated here by MPFR's erf at 256 bits (the code under test goes through its own
    /// Φ-difference kernel); the answer must enclose it and be tight to 1e-12 relative.
    #[test]
    fn gaussian_delta_at_zero_encloses_erf() {
        let query = Query::GaussianDelta {
            shape: GaussianShape {
                sigma: rational("3/2"),
                sensitivity: rational("1"),
                compositions: Integer::from(1),
            },
            epsilon: rational("0"),
        };
        let a = query.evaluate(Precision::Auto, false).unwrap();
        let den = rug::Float::with_val(256, rug::Float::with_val(256, 8).sqrt() * 1.5);
        let exact = rug::Float::with_val(256, 1.0 / &den).erf();
        let (lo, up) = (
            a.value.lower().unwrap().as_float(),
            a.value.upper().as_float(),
        );
        assert!(*lo <= exact && exact <= *up, "[{lo}, {up}] misses {exact}");
        let width = rug::Float::with_val(256, up - lo) / &exact;
        assert!(width < 1e-12, "relative width {width}");
        assert_eq!(query.command(), "gaussian delta");
    }
}
