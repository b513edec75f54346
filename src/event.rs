//! What a deployment released, as a tree of events (in the spirit of dp_accounting's
//! `DpEvent`): mechanisms at the leaves, subsampling and composition above them.
//!
//! Every parameter is an exact rational (`"0.1"` is 1/10, `"256/60000"` is that fraction);
//! builders parse and validate, and their errors name the field. An event tree is what the
//! audit ([`crate::audit`]) accepts, and the TOML/JSON deployment file ([`crate::deploy`]) is its
//! serialisation. Events that no route certifies (e.g. Poisson subsampling of a Laplace
//! mechanism) are refused by name when the audit flattens the tree, never skipped.
//!
//! ```
//! use dpcert::event::Event;
//! // DP-SGD on MNIST: noise multiplier 1.1, batch 256 of 60 000 examples, 60 epochs
//! let sgd = Event::gaussian("1.1")?.poisson_sampled("256/60000")?.self_composed(14063)?;
//! // and 12 Gaussian counts of sensitivity 1 with σ = 4
//! let counts = Event::gaussian("4")?.self_composed(12)?;
//! let all = Event::Composed(vec![sgd.named("training"), counts]);
//! assert!(all.validate().is_ok());
//! # Ok::<(), dpcert::Error>(())
//! ```
use crate::num::{parse_exact, parse_positive_integer};
use crate::{validate, Error, Result};
use rug::{Integer, Rational};

pub mod reductions;

/// A released event. Parameters are exact rationals; [`Event::validate`] checks a tree built
/// from struct literals, the builders check as they go.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// N(0, σ²) noise on a query of L2 sensitivity Δ (σ > 0, Δ > 0).
    Gaussian {
        /// The noise's standard deviation σ > 0.
        sigma: Rational,
        /// The query's L2 sensitivity Δ > 0.
        sensitivity: Rational,
    },
    /// Laplace(b) noise on a query of L1 sensitivity Δ: (Δ/b)-DP (b > 0, Δ > 0).
    Laplace {
        /// The noise's scale b > 0.
        scale: Rational,
        /// The query's L1 sensitivity Δ > 0.
        sensitivity: Rational,
    },
    /// The discrete Laplace (two-sided geometric) mechanism on an integer query of integer L1
    /// sensitivity Δ: noise Y with P\[Y = y\] ∝ e^{−a|y|} (dp_accounting's
    /// `DiscreteLaplaceDpEvent(noise_parameter = a, sensitivity = Δ)`); (aΔ)-DP.
    DiscreteLaplace {
        /// The noise parameter a > 0.
        parameter: Rational,
        /// The query's integer sensitivity Δ ≥ 1.
        sensitivity: Integer,
    },
    /// The discrete Gaussian mechanism (Canonne, Kamath & Steinke 2020) on an integer query of
    /// integer sensitivity Δ: noise Y with P\[Y = y\] ∝ e^{−y²/(2σ²)}; Δ²/(2σ²)-zCDP. Given by
    /// σ² (exact), as the 2020 Census gives it (σ itself is then often irrational).
    DiscreteGaussian {
        /// σ² > 0.
        sigma_squared: Rational,
        /// The query's integer sensitivity Δ ≥ 1.
        sensitivity: Integer,
    },
    /// Randomized response over k ≥ 2 buckets with noise parameter p ∈ (0, 1]: the true bucket
    /// with probability 1 − p, else a uniform one (dp_accounting's `RandomizedResponseDpEvent`);
    /// ε = ln(1 + k(1 − p)/p), enclosed.
    KaryRandomizedResponse {
        /// p ∈ (0, 1].
        noise_parameter: Rational,
        /// k ≥ 2.
        num_buckets: Integer,
    },
    /// ε-randomized response (ε ≥ 0): ε-DP, and the worst case of its class.
    RandomizedResponse {
        /// ε ≥ 0.
        epsilon: Rational,
    },
    /// A black box that is (ε, δ)-DP (ε ≥ 0, 0 ≤ δ < 1); δ = 0 is pure ε-DP.
    EpsilonDelta {
        /// ε ≥ 0.
        epsilon: Rational,
        /// 0 ≤ δ < 1.
        delta: Rational,
    },
    /// A black box that is ρ-zCDP (ρ ≥ 0).
    Zcdp {
        /// ρ ≥ 0.
        rho: Rational,
    },
    /// A black box that is (ξ, ρ)-zCDP (Bun & Steinke 2016, Definition 1.1: D_α ≤ ξ + ρα for
    /// every α > 1; ξ, ρ ≥ 0), dp_accounting's `ZCDpEvent(rho, xi)` with ξ ≠ 0.
    ZcdpWithXi {
        /// ξ ≥ 0.
        xi: Rational,
        /// ρ ≥ 0.
        rho: Rational,
    },
    /// `event` run on a Poisson subsample: each record in with probability `rate` ∈ (0, 1].
    PoissonSampled {
        /// The sampling rate q ∈ (0, 1] (e.g. batch size / dataset size).
        rate: Rational,
        /// The event run on the subsample.
        event: Box<Event>,
    },
    /// `event` run on a uniformly random subset of `sample_size` of the `population_size`
    /// records. The audit reads a Gaussian here (run once, or `SelfComposed`) as
    /// [`Event::SubstitutionGaussian`] with fixed-size sampling (fixed-size sampling keeps N, so
    /// it is accounted for substitution neighbours, as dp_accounting does), which must be the
    /// whole deployment; anything else under it is refused by name.
    FixedSizeSampled {
        /// Records in the subset (1 ≤ `sample_size` ≤ `population_size`).
        sample_size: Integer,
        /// Records in the dataset.
        population_size: Integer,
        /// The event run on the subset.
        event: Box<Event>,
    },
    /// `event` run `count` ≥ 1 times (adaptively).
    SelfComposed {
        /// The event repeated.
        event: Box<Event>,
        /// How many times it runs (≥ 1).
        count: Integer,
    },
    /// Every event of the list, composed (adaptively).
    Composed(Vec<Event>),
    /// `event`, labelled for the report (a deployment file's `name`).
    Named {
        /// The label.
        name: String,
        /// The labelled event.
        event: Box<Event>,
    },
    /// Batches were shuffled but the deployment asks for Poisson accounting: the numbers of
    /// the inner (Poisson-subsampled) event assume Poisson sampling, which was not used; they
    /// are reported with a warning and never refute a claim.
    ShuffledAccountedAsPoisson(Box<Event>),
    /// DP-SGD with shuffled batches: `steps` steps, each on the next batch (a fraction `rate`)
    /// of a shuffled dataset, with noise multiplier `sigma` (sensitivity 1, add/remove of one
    /// example). Accounted without amplification: each pass over the data is one Gaussian
    /// release per example, ⌈steps/⌊1/rate⌋⌉ passes (`shuffled_dpsgd_epsilon`, as
    /// `dpcert dpsgd --sampling shuffled`).
    ShuffledGaussian {
        /// The noise multiplier σ > 0 (noise standard deviation / clipping norm).
        sigma: Rational,
        /// The batch fraction q = B/N ∈ (0, 1].
        rate: Rational,
        /// The number of steps (≥ 1).
        steps: Integer,
    },
    /// DP-SGD under substitution neighbours (one example replaced by another; clipped
    /// gradients may then differ by 2): `steps` steps with noise multiplier `sigma`, batches
    /// drawn by `sampling` at rate (batch fraction) `rate`. The neighbouring relation is a
    /// property of the whole privacy claim, so the audit accepts this event only alone (see
    /// `dpcert dpsgd --relation substitution`).
    SubstitutionGaussian {
        /// The noise multiplier σ > 0 (noise standard deviation / clipping norm).
        sigma: Rational,
        /// The sampling rate (Poisson) or batch fraction B/N (fixed-size, shuffled) ∈ (0, 1].
        rate: Rational,
        /// The number of steps (≥ 1).
        steps: Integer,
        /// How batches were drawn.
        sampling: crate::dpsgd::Sampling,
    },
    /// `event` run K times, K random with mean `mean` and shape `shape` (truncated negative
    /// binomial: shape 1 geometric, 0 logarithmic; `None`: shape ∞, Poisson), only the best
    /// run released
    /// (dp_accounting's `RepeatAndSelectDpEvent`; Papernot & Steinke 2022). Accounted in Rényi
    /// DP ([`crate::theorems::repeat_select`]): `event` must have an RDP curve.
    RepeatAndSelect {
        /// The event repeated.
        event: Box<Event>,
        /// E\[K\] ≥ 1.
        mean: Rational,
        /// The shape η ≥ 0; `None` for a Poisson number of runs (shape ∞).
        shape: Option<Rational>,
    },
    /// A stand-in for the released event that dominates it (e.g. the Poisson-subsampled
    /// Gaussian standing in for a mixture of Gaussians with unequal sensitivities,
    /// [`crate::event::reductions::mixture_of_gaussians_domination`]): every number the
    /// routes certify for `0` is an upper bound for the release, and no lower bound is claimed.
    Dominated(Box<Event>),
    /// Releases nothing (0-DP).
    NoOp,
}

/// An exact rational parameter: a `Rational`, an integer, or text such as `"0.1"`,
/// `"1e-5"`, `"256/60000"` (read exactly, never through `f64`).
pub trait Exact {
    /// The exact value; the error says why the text is not a number.
    fn exact(&self) -> std::result::Result<Rational, String>;
}

impl Exact for &str {
    fn exact(&self) -> std::result::Result<Rational, String> {
        parse_exact(self)
    }
}
impl Exact for String {
    fn exact(&self) -> std::result::Result<Rational, String> {
        parse_exact(self)
    }
}
impl Exact for Rational {
    fn exact(&self) -> std::result::Result<Rational, String> {
        Ok(self.clone())
    }
}
impl Exact for &Rational {
    fn exact(&self) -> std::result::Result<Rational, String> {
        Ok((*self).clone())
    }
}
impl Exact for i64 {
    fn exact(&self) -> std::result::Result<Rational, String> {
        Ok(Rational::from(*self))
    }
}
impl Exact for u64 {
    fn exact(&self) -> std::result::Result<Rational, String> {
        Ok(Rational::from(*self))
    }
}
impl Exact for i32 {
    fn exact(&self) -> std::result::Result<Rational, String> {
        Ok(Rational::from(*self))
    }
}

/// A count (positive integer): an integer type, an `Integer`, or text such as `"1e4"`.
pub trait Count {
    /// The exact count (not yet checked to be ≥ 1).
    fn count(&self) -> std::result::Result<Integer, String>;
}
impl Count for &str {
    fn count(&self) -> std::result::Result<Integer, String> {
        parse_positive_integer(self)
    }
}
impl Count for Integer {
    fn count(&self) -> std::result::Result<Integer, String> {
        Ok(self.clone())
    }
}
impl Count for u64 {
    fn count(&self) -> std::result::Result<Integer, String> {
        Ok(Integer::from(*self))
    }
}
impl Count for i64 {
    fn count(&self) -> std::result::Result<Integer, String> {
        Ok(Integer::from(*self))
    }
}
impl Count for i32 {
    fn count(&self) -> std::result::Result<Integer, String> {
        Ok(Integer::from(*self))
    }
}
impl Count for u32 {
    fn count(&self) -> std::result::Result<Integer, String> {
        Ok(Integer::from(*self))
    }
}

/// Read an exact parameter and check it, the error naming `field`.
fn field(field: &str, x: impl Exact, check: fn(&str, &Rational) -> Result<()>) -> Result<Rational> {
    let v = x.exact().map_err(|e| Error::arg(field, e))?;
    check(field, &v)?;
    Ok(v)
}

/// A sampling rate in (0, 1].
pub(crate) fn rate_in_unit(name: &str, q: &Rational) -> Result<()> {
    validate::unit_rate(name, q)
}

impl Event {
    /// A Gaussian mechanism N(0, σ²) of sensitivity 1 (see [`Event::with_sensitivity`]).
    pub fn gaussian(sigma: impl Exact) -> Result<Event> {
        Ok(Event::Gaussian {
            sigma: field("sigma", sigma, validate::positive)?,
            sensitivity: Rational::from(1),
        })
    }
    /// A Laplace mechanism of scale b and sensitivity 1 (see [`Event::with_sensitivity`]).
    pub fn laplace(scale: impl Exact) -> Result<Event> {
        Ok(Event::Laplace {
            scale: field("scale", scale, validate::positive)?,
            sensitivity: Rational::from(1),
        })
    }
    /// The discrete Laplace mechanism DLap(a) on an integer query of sensitivity Δ.
    pub fn discrete_laplace(parameter: impl Exact, sensitivity: impl Count) -> Result<Event> {
        Ok(Event::DiscreteLaplace {
            parameter: field("noise_parameter", parameter, validate::positive)?,
            sensitivity: count_field("sensitivity", sensitivity)?,
        })
    }
    /// The discrete Gaussian N_ℤ(0, σ²), given by σ², on an integer query of sensitivity Δ.
    pub fn discrete_gaussian(sigma_squared: impl Exact, sensitivity: impl Count) -> Result<Event> {
        Ok(Event::DiscreteGaussian {
            sigma_squared: field("sigma_squared", sigma_squared, validate::positive)?,
            sensitivity: count_field("sensitivity", sensitivity)?,
        })
    }
    /// Randomized response over k buckets with noise parameter p (dp_accounting's).
    pub fn kary_randomized_response(
        noise_parameter: impl Exact,
        num_buckets: impl Count,
    ) -> Result<Event> {
        let e = Event::KaryRandomizedResponse {
            noise_parameter: noise_parameter
                .exact()
                .map_err(|e| Error::arg("noise_parameter", e))?,
            num_buckets: num_buckets
                .count()
                .map_err(|e| Error::arg("num_buckets", e))?,
        };
        if let Event::KaryRandomizedResponse {
            noise_parameter,
            num_buckets,
        } = &e
        {
            crate::theorems::randomized_response::check_rr(noise_parameter, num_buckets)?;
        }
        Ok(e)
    }
    /// ε-randomized response.
    pub fn randomized_response(epsilon: impl Exact) -> Result<Event> {
        Ok(Event::RandomizedResponse {
            epsilon: field("epsilon", epsilon, validate::nonnegative)?,
        })
    }
    /// An (ε, δ)-DP black box.
    pub fn epsilon_delta(epsilon: impl Exact, delta: impl Exact) -> Result<Event> {
        Ok(Event::EpsilonDelta {
            epsilon: field("epsilon", epsilon, validate::nonnegative)?,
            delta: field("delta", delta, validate::unit_from_zero)?,
        })
    }
    /// An ε-DP black box (δ = 0).
    pub fn pure(epsilon: impl Exact) -> Result<Event> {
        Event::epsilon_delta(epsilon, 0i64)
    }
    /// A ρ-zCDP black box.
    pub fn zcdp(rho: impl Exact) -> Result<Event> {
        Ok(Event::Zcdp {
            rho: field("rho", rho, validate::nonnegative)?,
        })
    }
    /// This Gaussian or Laplace mechanism with sensitivity Δ > 0 instead.
    pub fn with_sensitivity(self, sensitivity: impl Exact) -> Result<Event> {
        let s = field("sensitivity", sensitivity, validate::positive)?;
        match self {
            Event::Gaussian { sigma, .. } => Ok(Event::Gaussian {
                sigma,
                sensitivity: s,
            }),
            Event::Laplace { scale, .. } => Ok(Event::Laplace {
                scale,
                sensitivity: s,
            }),
            other => Err(Error::arg(
                "sensitivity",
                format!(
                    "only a Gaussian or Laplace mechanism has one, not {}",
                    other.kind()
                ),
            )),
        }
    }
    /// This event on a Poisson subsample of the given rate q ∈ (0, 1] (e.g. `"256/60000"`).
    pub fn poisson_sampled(self, rate: impl Exact) -> Result<Event> {
        Ok(Event::PoissonSampled {
            rate: field("rate", rate, rate_in_unit)?,
            event: Box::new(self),
        })
    }
    /// This event on a uniformly random subset of `sample_size` of `population_size` records.
    pub fn fixed_size_sampled(
        self,
        sample_size: impl Count,
        population_size: impl Count,
    ) -> Result<Event> {
        let (m, n) = (
            count_field("sample_size", sample_size)?,
            count_field("population_size", population_size)?,
        );
        if m > n {
            return Err(Error::arg(
                "sample_size",
                format!("{m} exceeds population_size {n}"),
            ));
        }
        Ok(Event::FixedSizeSampled {
            sample_size: m,
            population_size: n,
            event: Box::new(self),
        })
    }
    /// This event run `count` ≥ 1 times.
    pub fn self_composed(self, count: impl Count) -> Result<Event> {
        Ok(Event::SelfComposed {
            event: Box::new(self),
            count: count_field("count", count)?,
        })
    }
    /// This event with a label for the report.
    pub fn named(self, name: impl Into<String>) -> Event {
        Event::Named {
            name: name.into(),
            event: Box::new(self),
        }
    }

    /// The variant's name, as the deployment file and error messages spell it.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Gaussian { .. } => "gaussian",
            Event::Laplace { .. } => "laplace",
            Event::DiscreteLaplace { .. } => "discrete_laplace",
            Event::KaryRandomizedResponse { .. } => "kary_randomized_response",
            Event::DiscreteGaussian { .. } => "discrete_gaussian",
            Event::RandomizedResponse { .. } => "randomized_response",
            Event::EpsilonDelta { .. } => "epsilon_delta",
            Event::Zcdp { .. } => "zcdp",
            Event::ZcdpWithXi { .. } => "zcdp_with_xi",
            Event::PoissonSampled { .. } => "poisson_sampled",
            Event::FixedSizeSampled { .. } => "fixed_size_sampled",
            Event::SelfComposed { .. } => "self_composed",
            Event::Composed(_) => "composed",
            Event::Named { .. } => "named",
            Event::ShuffledAccountedAsPoisson(_) => "shuffled_accounted_as_poisson",
            Event::ShuffledGaussian { .. } => "shuffled_gaussian",
            Event::SubstitutionGaussian { .. } => "substitution_gaussian",
            Event::Dominated(_) => "dominated",
            Event::RepeatAndSelect { .. } => "repeat_and_select",
            Event::NoOp => "no_op",
        }
    }

    /// Check every parameter of the tree (for trees built from struct literals); the error
    /// names the field by its path, e.g. `event.composed[1].self_composed.count`.
    pub fn validate(&self) -> Result<()> {
        self.validate_at("event")
    }

    fn validate_at(&self, path: &str) -> Result<()> {
        let at = |f: &str| format!("{path}.{}.{f}", self.kind());
        let below = || format!("{path}.{}", self.kind());
        match self {
            Event::PoissonSampled { rate, event } => {
                rate_in_unit(&at("rate"), rate)?;
                event.validate_at(&below())
            }
            Event::FixedSizeSampled {
                sample_size,
                population_size,
                event,
            } => {
                validate::count(&at("sample_size"), sample_size)?;
                validate::count(&at("population_size"), population_size)?;
                if sample_size > population_size {
                    return Err(Error::arg(
                        &at("sample_size"),
                        format!("{sample_size} exceeds population_size {population_size}"),
                    ));
                }
                event.validate_at(&below())
            }
            Event::SelfComposed { event, count } => {
                validate::count(&at("count"), count)?;
                event.validate_at(&below())
            }
            Event::Composed(list) => list
                .iter()
                .enumerate()
                .try_for_each(|(i, e)| e.validate_at(&format!("{path}.composed[{i}]"))),
            Event::Named { event, .. }
            | Event::ShuffledAccountedAsPoisson(event)
            | Event::Dominated(event) => event.validate_at(&below()),
            Event::RepeatAndSelect { event, mean, shape } => {
                if *mean < 1 {
                    return Err(Error::arg(
                        &at("mean"),
                        format!("must be ≥ 1, got {}", validate::show(mean)),
                    ));
                }
                if let Some(shape) = shape {
                    validate::nonnegative(&at("shape"), shape)?;
                }
                event.validate_at(&below())
            }
            leaf => leaf.validate_leaf(at),
        }
    }

    /// Check a mechanism's own parameters, `at(field)` naming the field; the compound events
    /// (checked by `validate_at`) and `NoOp` have none here.
    fn validate_leaf(&self, at: impl Fn(&str) -> String) -> Result<()> {
        match self {
            Event::Gaussian { sigma, sensitivity } => {
                validate::positive(&at("sigma"), sigma)?;
                validate::positive(&at("sensitivity"), sensitivity)
            }
            Event::Laplace { scale, sensitivity } => {
                validate::positive(&at("scale"), scale)?;
                validate::positive(&at("sensitivity"), sensitivity)
            }
            Event::DiscreteLaplace {
                parameter,
                sensitivity,
            } => {
                validate::positive(&at("noise_parameter"), parameter)?;
                validate::count(&at("sensitivity"), sensitivity)
            }
            Event::DiscreteGaussian {
                sigma_squared,
                sensitivity,
            } => {
                validate::positive(&at("sigma_squared"), sigma_squared)?;
                validate::count(&at("sensitivity"), sensitivity)
            }
            Event::KaryRandomizedResponse {
                noise_parameter,
                num_buckets,
            } => crate::theorems::randomized_response::check_rr(noise_parameter, num_buckets)
                .map_err(|e| match e {
                    Error::InvalidArgument { name, reason } => Error::arg(&at(&name), reason),
                    other => other,
                }),
            Event::RandomizedResponse { epsilon } => validate::nonnegative(&at("epsilon"), epsilon),
            Event::EpsilonDelta { epsilon, delta } => {
                validate::nonnegative(&at("epsilon"), epsilon)?;
                validate::unit_from_zero(&at("delta"), delta)
            }
            Event::Zcdp { rho } => validate::nonnegative(&at("rho"), rho),
            Event::ZcdpWithXi { xi, rho } => {
                validate::nonnegative(&at("xi"), xi)?;
                validate::nonnegative(&at("rho"), rho)
            }
            Event::ShuffledGaussian { sigma, rate, steps }
            | Event::SubstitutionGaussian {
                sigma, rate, steps, ..
            } => {
                validate::positive(&at("sigma"), sigma)?;
                rate_in_unit(&at("rate"), rate)?;
                validate::count(&at("steps"), steps)
            }
            Event::PoissonSampled { .. }
            | Event::FixedSizeSampled { .. }
            | Event::SelfComposed { .. }
            | Event::Composed(_)
            | Event::Named { .. }
            | Event::ShuffledAccountedAsPoisson(_)
            | Event::Dominated(_)
            | Event::RepeatAndSelect { .. }
            | Event::NoOp => Ok(()),
        }
    }
}

/// Read a count and check it is ≥ 1, the error naming `name`.
fn count_field(name: &str, k: impl Count) -> Result<Integer> {
    let k = k.count().map_err(|e| Error::arg(name, e))?;
    validate::count(name, &k)?;
    Ok(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builders_read_exactly_and_name_bad_fields() {
        let e = Event::gaussian("1.1")
            .unwrap()
            .poisson_sampled("256/60000")
            .unwrap()
            .self_composed(14063)
            .unwrap();
        let Event::SelfComposed { event, count } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(*count, 14063);
        let Event::PoissonSampled { rate, .. } = event.as_ref() else {
            panic!()
        };
        assert_eq!(*rate, Rational::from((256, 60000)));
        for (r, name) in [
            (Event::gaussian("-1"), "sigma"),
            (Event::gaussian("nan"), "sigma"),
            (Event::laplace("0"), "scale"),
            (Event::epsilon_delta("1", "1"), "delta"),
            (Event::zcdp("-0.1"), "rho"),
            (
                Event::pure("1").and_then(|e| e.poisson_sampled("1.5")),
                "rate",
            ),
            (Event::pure("1").and_then(|e| e.self_composed(0)), "count"),
            (
                Event::pure("1").and_then(|e| e.with_sensitivity(2)),
                "sensitivity",
            ),
            (
                Event::pure("1").and_then(|e| e.fixed_size_sampled(11, 10)),
                "sample_size",
            ),
        ] {
            match r {
                Err(Error::InvalidArgument { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
        }
        let bad = Event::Composed(vec![
            Event::NoOp,
            Event::SelfComposed {
                event: Box::new(Event::NoOp),
                count: Integer::new(),
            },
        ]);
        match bad.validate() {
            Err(Error::InvalidArgument { name, .. }) => {
                assert_eq!(name, "event.composed[1].self_composed.count")
            }
            other => panic!("{other:?}"),
        }
    }
}
