//! The audit's flat view of an [`Event`] tree: a list of entries, each a mechanism the routes
//! know and how many times it ran. Flattening refuses, by name, every event no route
//! certifies (it never skips one).
use crate::dpsgd::Sampling;
use crate::event::Event;
use crate::theorems::gaussian::GaussianMechanism;
use crate::theorems::pld_accountant::{Direction, PldMechanism};
use crate::theorems::rdp::RdpTerm;
use crate::validate::show;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// Why a route does not apply to a ledger (one sentence naming the mechanism in the way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyNot(pub String);

impl std::fmt::Display for WhyNot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Most entries a ledger holds: the audit's work is linear in their number (measured: about
/// 1 s of CPU per distinct DP-SGD entry and 50 ms per Gaussian for the PLD route; 1000
/// Gaussians took 46 s); identical releases are one entry with a count.
pub const MAX_MECHANISMS: usize = 100;

/// One released mechanism, as the routes see it.
#[derive(Clone, Debug, PartialEq)]
pub enum Mechanism {
    /// N(0, σ²) noise on a query of L2 sensitivity Δ.
    Gaussian {
        /// The noise's standard deviation σ > 0.
        sigma: Rational,
        /// The query's L2 sensitivity Δ > 0.
        sensitivity: Rational,
    },
    /// Laplace(b) noise on a query of L1 sensitivity Δ: (Δ/b)-DP.
    Laplace {
        /// The noise's scale b > 0.
        scale: Rational,
        /// The query's L1 sensitivity Δ > 0.
        sensitivity: Rational,
    },
    /// The discrete Laplace mechanism DLap(a) on an integer query of sensitivity Δ: (aΔ)-DP.
    DiscreteLaplace {
        /// The noise parameter a > 0 (P\[Y = y\] ∝ e^{−a|y|}).
        parameter: Rational,
        /// The query's integer sensitivity Δ ≥ 1.
        sensitivity: Integer,
    },
    /// The discrete Gaussian N_ℤ(0, σ²) on an integer query of sensitivity Δ: Δ²/(2σ²)-zCDP.
    DiscreteGaussian {
        /// σ² > 0.
        sigma_squared: Rational,
        /// The query's integer sensitivity Δ ≥ 1.
        sensitivity: Integer,
    },
    /// Randomized response over k ≥ 2 buckets with noise parameter p ∈ (0, 1]: ε-DP with
    /// ε = ln(1 + k(1 − p)/p) (irrational in general; the exact PLD on the PLD route).
    KaryRandomizedResponse {
        /// p ∈ (0, 1].
        noise_parameter: Rational,
        /// k ≥ 2.
        num_buckets: Integer,
    },
    /// A black box that is ε-DP.
    Pure {
        /// ε ≥ 0.
        epsilon: Rational,
    },
    /// A black box that is (ε, δ)-DP, δ > 0.
    Approx {
        /// ε ≥ 0.
        epsilon: Rational,
        /// 0 < δ < 1 (δ = 0 flattens to [`Mechanism::Pure`]).
        delta: Rational,
    },
    /// A black box that is ρ-zCDP.
    Zcdp {
        /// ρ ≥ 0.
        rho: Rational,
    },
    /// A black box that is (ξ, ρ)-zCDP, ξ > 0 (ξ = 0 flattens to [`Mechanism::Zcdp`]).
    ZcdpWithXi {
        /// ξ > 0.
        xi: Rational,
        /// ρ ≥ 0.
        rho: Rational,
    },
    /// ε-randomized response (ε-DP, and its own worst case).
    RandomizedResponse {
        /// ε ≥ 0.
        epsilon: Rational,
    },
    /// A DP-SGD run: `steps` Poisson-subsampled Gaussian steps (noise multiplier σ = noise
    /// standard deviation / sensitivity, rate q). `shuffled` records a deployment that
    /// declared shuffled batches but asked for Poisson accounting (the numbers then assume
    /// Poisson sampling; the audit warns).
    SubsampledGaussian {
        /// The noise multiplier σ/Δ > 0 (noise standard deviation over L2 sensitivity).
        sigma: Rational,
        /// The Poisson sampling rate q ∈ (0, 1].
        rate: Rational,
        /// The number of steps (≥ 1).
        steps: Integer,
        /// Whether the deployment declared shuffled batches (accounted as Poisson).
        shuffled: bool,
    },
    /// A DP-SGD run with shuffled batches, accounted without amplification: each of its
    /// [`Mechanism::passes`] passes over the data is one Gaussian release (noise multiplier σ,
    /// sensitivity 1) per example ([`crate::theorems::shuffle::shuffled_dpsgd_epsilon`]).
    ShuffledGaussian {
        /// The noise multiplier σ/Δ > 0.
        sigma: Rational,
        /// The batch fraction q ∈ (0, 1].
        rate: Rational,
        /// The number of steps (≥ 1).
        steps: Integer,
    },
    /// Repeat-and-select of `event` (run K times, E\[K\] = mean, the best run released),
    /// accounted in Rényi DP only (Papernot & Steinke 2022, Theorem 2).
    RepeatAndSelect {
        /// The event repeated.
        event: Box<Event>,
        /// Its RDP term: the theorem's bound over the event's own RDP curve.
        term: Box<crate::theorems::repeat_select::RepeatSelect>,
    },
    /// A DP-SGD run under substitution neighbours (one example replaced), batches drawn by
    /// `sampling`: audited only alone, by the substitution route
    /// ([`crate::audit::substitution::Substitution`]), which every other route refuses.
    SubstitutionGaussian {
        /// The noise multiplier σ/Δ > 0 (Δ = the clipping norm).
        sigma: Rational,
        /// The sampling rate (Poisson) or batch fraction B/N (fixed-size, shuffled) ∈ (0, 1].
        rate: Rational,
        /// The number of steps (≥ 1).
        steps: Integer,
        /// How batches were drawn.
        sampling: Sampling,
    },
}

/// A mechanism entry: label, mechanism, repetitions.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The label (the event's name, else `#1`, `#2`, … in order).
    pub name: String,
    /// The mechanism released.
    pub mechanism: Mechanism,
    /// How many times it ran (≥ 1).
    pub repeat: Integer,
}

/// A row of the report's mechanism table: "name  description × repeat".
impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}  {} × {}",
            self.name,
            self.mechanism.describe(),
            self.repeat
        )
    }
}

/// The flat list of released mechanisms the routes account for.
#[derive(Clone, Debug, PartialEq)]
pub struct Ledger {
    /// The entries, in the event tree's order.
    pub entries: Vec<Entry>,
    /// Whether an entry stands in for (dominates) the released mechanism
    /// ([`Event::Dominated`]): the routes' numbers are then upper bounds only.
    pub stand_in: bool,
}

/// One [`Entry`] per line.
impl std::fmt::Display for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for e in &self.entries {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}

impl Ledger {
    /// Flatten an event tree (validated first). Unnamed entries are labelled `#1`, `#2`, … in
    /// order; an event that releases nothing is one 0-DP entry `no-op`. Errors name the
    /// event no route certifies (e.g. a Poisson-subsampled Laplace mechanism).
    pub fn from_event(event: &Event) -> Result<Ledger> {
        event.validate()?;
        let mut out = Vec::new();
        let ctx = Ctx {
            mult: Integer::from(1),
            name: None,
            shuffled: false,
            path: "event".into(),
        };
        flatten(event, &ctx, &mut out)?;
        if out.is_empty() {
            out.push((
                Some("no-op".to_string()),
                Mechanism::Pure {
                    epsilon: Rational::new(),
                },
                Integer::from(1),
            ));
        }
        refuse_mixed_substitution(&out)?;
        if out.len() > MAX_MECHANISMS {
            return Err(Error::arg(
                "event",
                format!(
                    "{} mechanisms; at most {MAX_MECHANISMS} are accepted (use a count / `repeat` for repetitions)",
                    out.len()
                ),
            ));
        }
        let entries = out
            .into_iter()
            .enumerate()
            .map(|(i, (name, mechanism, repeat))| Entry {
                name: name.unwrap_or_else(|| format!("#{}", i + 1)),
                mechanism,
                repeat,
            })
            .collect();
        Ok(Ledger {
            entries,
            stand_in: has_stand_in(event),
        })
    }

    /// The entry audited under substitution neighbours, if any (then it is the only entry).
    pub fn substitution(&self) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| matches!(e.mechanism, Mechanism::SubstitutionGaussian { .. }))
    }

    /// `Ok` unless an entry is audited under substitution neighbours: every route but the
    /// substitution route accounts add/remove neighbours and says so here.
    pub fn add_remove_only(&self) -> std::result::Result<(), WhyNot> {
        match self.substitution() {
            None => Ok(()),
            Some(e) => Err(WhyNot(format!(
                "`{}` is accounted under substitution neighbours (one example replaced); this route accounts add/remove neighbours only",
                e.name
            ))),
        }
    }

    /// Whether any entry is a (Poisson-)subsampled Gaussian.
    pub fn has_subsampled(&self) -> bool {
        self.entries
            .iter()
            .any(|m| matches!(m.mechanism, Mechanism::SubsampledGaussian { .. }))
    }

    /// Whether the routes' lower bounds bound this deployment's privacy: not when an entry
    /// used shuffled batches, whose numbers (the Poisson ones, or the shuffled bound: Gaussian
    /// releases per pass, exact only when the batch assignment is revealed) are upper bounds only.
    pub fn lower_bounds_hold(&self) -> bool {
        !self.stand_in
            && !self.entries.iter().any(|m| {
                matches!(
                    m.mechanism,
                    Mechanism::SubsampledGaussian { shuffled: true, .. }
                        | Mechanism::ShuffledGaussian { .. }
                )
            })
    }

    /// Whether a subsampled Gaussian declared shuffled batches (its numbers assume Poisson).
    pub fn assumes_poisson(&self) -> bool {
        self.entries.iter().any(|m| {
            matches!(
                m.mechanism,
                Mechanism::SubsampledGaussian { shuffled: true, .. }
            )
        })
    }

    /// Σ repeat·ρⱼ if every mechanism is zCDP.
    ///
    /// # Guarantee
    /// Exact rational arithmetic, no rounding: the ledger's total ρ under Theorem 13, with each
    /// ρⱼ from [`Mechanism::zcdp_rho`]. `None` when a mechanism has no zCDP guarantee.
    pub fn total_rho(&self) -> Option<Rational> {
        self.entries.iter().try_fold(Rational::new(), |r, e| {
            e.mechanism
                .zcdp_rho()
                .map(|x| r + x * Rational::from(&e.repeat))
        })
    }

    /// (Σε, Σδ, Σε², all pure) if every mechanism has an (ε, δ) guarantee.
    ///
    /// # Guarantee
    /// Exact rational sums, each term counted `repeat` times, no rounding. `None` when a
    /// mechanism has no (ε, δ) guarantee of its own ([`Mechanism::approx`]).
    pub fn approx_totals(&self) -> Option<(Rational, Rational, Rational, bool)> {
        let init = (Rational::new(), Rational::new(), Rational::new(), true);
        self.entries.iter().try_fold(init, |(se, sd, s2, pure), e| {
            let k = Rational::from(&e.repeat);
            e.mechanism.approx().map(|(ej, dj)| {
                let e2 = Rational::from(&ej * &ej) * &k;
                (se + ej * &k, sd + dj.clone() * &k, s2 + e2, pure && dj == 0)
            })
        })
    }

    /// (Σ repeat·ξⱼ, Σ repeat·ρⱼ) if every mechanism is (ξⱼ, ρⱼ)-zCDP (ξⱼ = 0 for the ρ-zCDP
    /// ones of [`Mechanism::zcdp_rho`]).
    ///
    /// # Guarantee
    /// Exact rational sums: (ξ, ρ)-zCDP composes by adding both (Bun & Steinke 2016, Lemma 2.3).
    /// `None` when a mechanism has no zCDP guarantee.
    pub fn total_xi_rho(&self) -> Option<(Rational, Rational)> {
        self.entries
            .iter()
            .try_fold((Rational::new(), Rational::new()), |(x, r), e| {
                let k = Rational::from(&e.repeat);
                e.mechanism
                    .zcdp_xi_rho()
                    .map(|(xi, rho)| (x + xi * &k, r + rho * &k))
            })
    }

    /// The Gaussian list if every mechanism is Gaussian.
    pub fn gaussians(&self) -> Option<Vec<GaussianMechanism>> {
        self.entries
            .iter()
            .map(|e| e.mechanism.gaussian(&e.repeat))
            .collect()
    }

    /// The first entry for which `has` fails, to name it in a refusal.
    pub fn first_without(&self, has: impl Fn(&Mechanism) -> bool) -> Option<&Entry> {
        self.entries.iter().find(|e| !has(&e.mechanism))
    }
}

/// What the enclosing nodes of a leaf say: repetitions, label, sampling declaration, path.
struct Ctx {
    mult: Integer,
    name: Option<String>,
    shuffled: bool,
    path: String,
}

impl Ctx {
    fn below(&self, step: &str) -> Ctx {
        Ctx {
            mult: self.mult.clone(),
            name: self.name.clone(),
            shuffled: self.shuffled,
            path: format!("{}.{step}", self.path),
        }
    }
}

type Flat = (Option<String>, Mechanism, Integer);

/// The neighbouring relation is a property of the whole claim: a substitution entry is
/// audited only alone (composing it with add/remove mechanisms is not supported yet).
fn refuse_mixed_substitution(out: &[Flat]) -> Result<()> {
    if out.len() < 2 {
        return Ok(());
    }
    let Some(i) = out
        .iter()
        .position(|f| matches!(f.1, Mechanism::SubstitutionGaussian { .. }))
    else {
        return Ok(());
    };
    let label = out[i].0.clone().unwrap_or_else(|| format!("#{}", i + 1));
    Err(Error::arg(
        &format!("mechanism `{label}`"),
        format!(
            "is audited under substitution neighbours (relation = \"substitution\", or fixed-size sampling) and cannot be composed with the deployment's {} other mechanism(s), which are accounted under add/remove neighbours: composing a substitution run with add/remove mechanisms is not supported yet; audit it in a deployment of its own",
            out.len() - 1
        ),
    ))
}

/// A fixed-size-subsampled Gaussian run `steps` times, as a substitution entry (fixed-size
/// sampling keeps N fixed: dp_accounting's `SampledWithoutReplacementDpEvent` is accounted for
/// replace-one neighbours); anything else is refused by name.
fn fixed_size(event: &Event, steps: &Integer, ctx: &Ctx, out: &mut Vec<Flat>) -> Result<()> {
    let Event::FixedSizeSampled {
        sample_size,
        population_size,
        event: inner,
    } = event
    else {
        return Err(Error::Numerical(
            "fixed_size called on another event".into(),
        ));
    };
    match inner.as_ref() {
        Event::Gaussian { sigma, sensitivity } => {
            out.push((
                ctx.name.clone(),
                Mechanism::SubstitutionGaussian {
                    sigma: Rational::from(sigma / sensitivity),
                    rate: Rational::from((sample_size.clone(), population_size.clone())),
                    steps: steps.clone(),
                    sampling: Sampling::FixedSize,
                },
                ctx.mult.clone(),
            ));
            Ok(())
        }
        other => Err(Error::arg(
            &format!("{}.fixed_size_sampled", ctx.path),
            format!(
                "fixed-size subsampling of a {} event is not certified by any route here; only fixed-size subsampling of a Gaussian is (under substitution neighbours)",
                other.kind()
            ),
        )),
    }
}

/// Walk an event tree, pushing each mechanism it releases with its name and multiplicity;
/// refuses, by name, every event no route certifies.
fn flatten(event: &Event, ctx: &Ctx, out: &mut Vec<Flat>) -> Result<()> {
    let leaf =
        |m: Mechanism, out: &mut Vec<Flat>| out.push((ctx.name.clone(), m, ctx.mult.clone()));
    if let Some(m) = leaf_mechanism(event) {
        leaf(m, out);
        return Ok(());
    }
    match event {
        Event::PoissonSampled { .. } => sampled(event, &Integer::from(1), ctx, out)?,
        Event::FixedSizeSampled { .. } => fixed_size(event, &Integer::from(1), ctx, out)?,
        Event::SelfComposed {
            event: inner,
            count,
        } => self_composed(inner, count, ctx, out)?,
        Event::Composed(list) => {
            for (i, e) in list.iter().enumerate() {
                flatten(e, &ctx.below(&format!("composed[{i}]")), out)?;
            }
        }
        Event::Named { name, event: inner } => {
            let mut c = ctx.below("named");
            c.name = Some(name.clone());
            flatten(inner, &c, out)?;
        }
        Event::Dominated(inner) => flatten(inner, &ctx.below("dominated"), out)?,
        Event::RepeatAndSelect {
            event: inner, mean, ..
        } if *mean == 1 => {
            // K = 1 always: the event itself
            flatten(inner, &ctx.below("repeat_and_select"), out)?
        }
        Event::RepeatAndSelect {
            event: inner,
            mean,
            shape,
        } => leaf(repeat_and_select(inner, mean, shape, &ctx.path)?, out),
        Event::ShuffledAccountedAsPoisson(inner) => {
            let mut c = ctx.below("shuffled_accounted_as_poisson");
            c.shuffled = true;
            flatten(inner, &c, out)?;
        }
        // `NoOp` releases nothing; every other event is a leaf, pushed above
        _ => {}
    }
    Ok(())
}

/// `count` runs of `inner`: a sampled event takes the count into its steps, any other event
/// into the multiplicity.
fn self_composed(inner: &Event, count: &Integer, ctx: &Ctx, out: &mut Vec<Flat>) -> Result<()> {
    if let Event::PoissonSampled { .. } = inner {
        sampled(inner, count, &ctx.below("self_composed"), out)
    } else if let Event::FixedSizeSampled { .. } = inner {
        fixed_size(inner, count, &ctx.below("self_composed"), out)
    } else {
        let mut c = ctx.below("self_composed");
        c.mult *= count;
        flatten(inner, &c, out)
    }
}

/// The mechanism a leaf event releases as the routes see it (a pure ε-DP or a ξ = 0 event is
/// recognised here); `None` for the events `flatten` walks into, and `NoOp` (a new compound
/// event is added to `flatten` as well as here).
fn leaf_mechanism(event: &Event) -> Option<Mechanism> {
    Some(match event {
        Event::Gaussian { sigma, sensitivity } => Mechanism::Gaussian {
            sigma: sigma.clone(),
            sensitivity: sensitivity.clone(),
        },
        Event::Laplace { scale, sensitivity } => Mechanism::Laplace {
            scale: scale.clone(),
            sensitivity: sensitivity.clone(),
        },
        Event::DiscreteLaplace {
            parameter,
            sensitivity,
        } => Mechanism::DiscreteLaplace {
            parameter: parameter.clone(),
            sensitivity: sensitivity.clone(),
        },
        Event::DiscreteGaussian {
            sigma_squared,
            sensitivity,
        } => Mechanism::DiscreteGaussian {
            sigma_squared: sigma_squared.clone(),
            sensitivity: sensitivity.clone(),
        },
        Event::KaryRandomizedResponse {
            noise_parameter,
            num_buckets,
        } => Mechanism::KaryRandomizedResponse {
            noise_parameter: noise_parameter.clone(),
            num_buckets: num_buckets.clone(),
        },
        Event::RandomizedResponse { epsilon } => Mechanism::RandomizedResponse {
            epsilon: epsilon.clone(),
        },
        Event::EpsilonDelta { epsilon, delta } if *delta == 0 => Mechanism::Pure {
            epsilon: epsilon.clone(),
        },
        Event::EpsilonDelta { epsilon, delta } => Mechanism::Approx {
            epsilon: epsilon.clone(),
            delta: delta.clone(),
        },
        Event::Zcdp { rho } => Mechanism::Zcdp { rho: rho.clone() },
        Event::ZcdpWithXi { xi, rho } if *xi == 0 => Mechanism::Zcdp { rho: rho.clone() },
        Event::ZcdpWithXi { xi, rho } => Mechanism::ZcdpWithXi {
            xi: xi.clone(),
            rho: rho.clone(),
        },
        Event::ShuffledGaussian { sigma, rate, steps } => Mechanism::ShuffledGaussian {
            sigma: sigma.clone(),
            rate: rate.clone(),
            steps: steps.clone(),
        },
        Event::SubstitutionGaussian {
            sigma,
            rate,
            steps,
            sampling,
        } => Mechanism::SubstitutionGaussian {
            sigma: sigma.clone(),
            rate: rate.clone(),
            steps: steps.clone(),
            sampling: *sampling,
        },
        Event::PoissonSampled { .. }
        | Event::FixedSizeSampled { .. }
        | Event::SelfComposed { .. }
        | Event::Composed(_)
        | Event::Named { .. }
        | Event::Dominated(_)
        | Event::RepeatAndSelect { .. }
        | Event::ShuffledAccountedAsPoisson(_)
        | Event::NoOp => return None,
    })
}

/// A (Poisson-)subsampled Gaussian's parameters as [`Mechanism::parameters`] lists them
/// (`shuffled`: shuffled batches accounted as Poisson).
fn subsampled_parameters(
    sigma: &Rational,
    rate: &Rational,
    steps: &Integer,
    shuffled: bool,
) -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("sigma", exact_text(sigma)),
        ("rate", exact_text(rate)),
        ("steps", steps.to_string()),
    ];
    if shuffled {
        v.push(("sampling", "shuffled".into()));
        v.push(("accounting", "poisson".into()));
    } else {
        v.push(("sampling", "poisson".into()));
    }
    v
}

/// Repeat-and-select as an RDP term over the repeated event's own curve; refused by name when
/// a mechanism of the event has no RDP curve.
fn repeat_and_select(
    inner: &Event,
    mean: &Rational,
    shape: &Option<Rational>,
    path: &str,
) -> Result<Mechanism> {
    let at = format!("{path}.repeat_and_select");
    let sub = Ledger::from_event(inner)?;
    let mut curve = crate::theorems::rdp::RdpCurve::new();
    for e in &sub.entries {
        let Some((t, k)) = e.mechanism.rdp_term() else {
            return Err(Error::arg(
                &at,
                format!(
                    "repeat-and-select is certified in Rényi DP only (Papernot & Steinke 2022, Theorem 2), and the repeated `{}` ({}) has no Rényi-DP curve here",
                    e.name,
                    e.mechanism.type_name()
                ),
            ));
        };
        curve.push(t, k * &e.repeat)?;
    }
    let term = crate::theorems::repeat_select::RepeatSelect::new(curve, mean, shape).map_err(
        |e| match e {
            Error::InvalidArgument { name, reason } => Error::arg(&format!("{at}.{name}"), reason),
            other => other,
        },
    )?;
    Ok(Mechanism::RepeatAndSelect {
        event: Box::new(inner.clone()),
        term: Box::new(term),
    })
}

/// Whether the tree holds a dominating stand-in ([`Event::Dominated`]).
fn has_stand_in(event: &Event) -> bool {
    match event {
        Event::Dominated(_) => true,
        Event::PoissonSampled { event, .. }
        | Event::FixedSizeSampled { event, .. }
        | Event::SelfComposed { event, .. }
        | Event::Named { event, .. }
        | Event::ShuffledAccountedAsPoisson(event) => has_stand_in(event),
        Event::Composed(list) => list.iter().any(has_stand_in),
        Event::RepeatAndSelect { event, .. } => has_stand_in(event),
        _ => false,
    }
}

/// A Poisson-subsampled event run `steps` times: a subsampled Gaussian (noise multiplier
/// σ/Δ), or at rate 1 the event itself; anything else is refused by name.
fn sampled(event: &Event, steps: &Integer, ctx: &Ctx, out: &mut Vec<Flat>) -> Result<()> {
    let Event::PoissonSampled { rate, event: inner } = event else {
        unreachable!("called on PoissonSampled only")
    };
    match inner.as_ref() {
        Event::Gaussian { sigma, sensitivity } => {
            out.push((
                ctx.name.clone(),
                Mechanism::SubsampledGaussian {
                    sigma: Rational::from(sigma / sensitivity),
                    rate: rate.clone(),
                    steps: steps.clone(),
                    shuffled: ctx.shuffled,
                },
                ctx.mult.clone(),
            ));
            Ok(())
        }
        // sampling every record is no sampling
        other if *rate == 1 => {
            let mut c = ctx.below("poisson_sampled");
            c.mult *= steps;
            flatten(other, &c, out)
        }
        other => Err(Error::arg(
            &format!("{}.poisson_sampled", ctx.path),
            format!(
                "Poisson subsampling of a {} event is not certified by any route here; only Poisson subsampling of a Gaussian is",
                other.kind()
            ),
        )),
    }
}

impl Mechanism {
    /// How many Gaussian releases per example a shuffled run is: ⌈steps/⌊1/q⌋⌉ passes
    /// ([`crate::dpsgd::Run::passes`]); 1 for every other mechanism.
    pub fn passes(&self) -> Integer {
        match self {
            Mechanism::ShuffledGaussian { sigma, rate, steps }
            | Mechanism::SubstitutionGaussian {
                sigma,
                rate,
                steps,
                sampling: Sampling::Shuffled,
            } => {
                // q > 0 is checked when the event is validated
                crate::dpsgd::Run::checked(rate.clone(), sigma.clone(), steps.clone())
                    .and_then(|run| run.passes())
                    .unwrap_or_else(|_| steps.clone())
            }
            _ => Integer::from(1),
        }
    }
    /// ε if the mechanism is ε-DP (pure), exactly.
    ///
    /// # Guarantee
    /// Exact: Δ/b for Laplace, aΔ for the discrete Laplace, the stated ε for randomized
    /// response and ε-DP black boxes; for k-ary randomized response, whose ε is irrational, an
    /// exact rational ≥ ε (the upper end of its 128-bit enclosure: a valid pure-DP parameter, so
    /// the routes built on it stay upper bounds, and the optimal route does not claim a lower
    /// one); `None` for every other mechanism.
    pub fn pure_epsilon(&self) -> Option<Rational> {
        match self {
            Mechanism::Laplace { scale, sensitivity } => Some(Rational::from(sensitivity / scale)),
            Mechanism::DiscreteLaplace {
                parameter,
                sensitivity,
            } => Some(Rational::from(parameter * sensitivity)),
            Mechanism::KaryRandomizedResponse {
                noise_parameter,
                num_buckets,
            } => crate::theorems::randomized_response::epsilon_upper(noise_parameter, num_buckets),
            Mechanism::Pure { epsilon } | Mechanism::RandomizedResponse { epsilon } => {
                Some(epsilon.clone())
            }
            _ => None,
        }
    }
    /// (ε, δ) if the mechanism has an approximate-DP guarantee of its own.
    pub fn approx(&self) -> Option<(Rational, Rational)> {
        match self {
            Mechanism::Approx { epsilon, delta } => Some((epsilon.clone(), delta.clone())),
            _ => self.pure_epsilon().map(|e| (e, Rational::new())),
        }
    }
    /// ρ if the mechanism is ρ-zCDP (Lemma 12, Proposition 16, or declared).
    ///
    /// # Guarantee
    /// Exact rationals: Δ²/(2σ²) for a Gaussian (Lemma 12) and a discrete Gaussian (Canonne,
    /// Kamath & Steinke 2020, Theorem 4), ε²/2 for an ε-DP mechanism (Proposition 16), the
    /// declared ρ for a zCDP black box; `None` for (ε, δ) black boxes with δ > 0 and for
    /// subsampled Gaussians.
    pub fn zcdp_rho(&self) -> Option<Rational> {
        match self {
            Mechanism::DiscreteGaussian {
                sigma_squared,
                sensitivity,
            } => Some(
                Rational::from(sensitivity * sensitivity) / Rational::from(sigma_squared * 2u32),
            ),
            Mechanism::Gaussian { sigma, sensitivity } => Some(
                Rational::from(sensitivity * sensitivity) / Rational::from(sigma * sigma) / 2u32,
            ),
            Mechanism::Zcdp { rho } => Some(rho.clone()),
            Mechanism::ShuffledGaussian { sigma, .. } => {
                Some(Rational::from(self.passes()) / Rational::from(sigma * sigma) / 2u32)
            }
            Mechanism::Approx { .. } => None,
            _ => self.pure_epsilon().map(|e| Rational::from(&e * &e) / 2u32),
        }
    }
    /// (ξ, ρ) if the mechanism is (ξ, ρ)-zCDP: (0, [`Mechanism::zcdp_rho`]) for the ρ-zCDP
    /// ones, the declared pair for a (ξ, ρ)-zCDP black box.
    pub fn zcdp_xi_rho(&self) -> Option<(Rational, Rational)> {
        match self {
            Mechanism::ZcdpWithXi { xi, rho } => Some((xi.clone(), rho.clone())),
            _ => self.zcdp_rho().map(|r| (Rational::new(), r)),
        }
    }
    /// The Gaussian mechanism, if this is one (the exact route of Corollary 10).
    pub fn gaussian(&self, repeat: &Integer) -> Option<GaussianMechanism> {
        match self {
            Mechanism::Gaussian { sigma, sensitivity } => Some(GaussianMechanism {
                sigma: sigma.clone(),
                sensitivity: sensitivity.clone(),
                count: repeat.clone(),
            }),
            Mechanism::ShuffledGaussian { sigma, .. } => Some(GaussianMechanism {
                sigma: sigma.clone(),
                sensitivity: Rational::from(1),
                count: repeat * self.passes(),
            }),
            _ => None,
        }
    }
    /// The mechanism's RDP curve term and its multiplicity per repetition.
    pub fn rdp_term(&self) -> Option<(RdpTerm, Integer)> {
        match self {
            Mechanism::SubsampledGaussian {
                sigma, rate, steps, ..
            } => Some((
                RdpTerm::SubsampledGaussian {
                    rate: rate.clone(),
                    sigma: sigma.clone(),
                },
                steps.clone(),
            )),
            Mechanism::RepeatAndSelect { term, .. } => {
                Some((RdpTerm::RepeatAndSelect(term.clone()), Integer::from(1)))
            }
            Mechanism::Gaussian { .. }
            | Mechanism::DiscreteGaussian { .. }
            | Mechanism::Zcdp { .. }
            | Mechanism::ShuffledGaussian { .. } => self
                .zcdp_rho()
                .map(|rho| (RdpTerm::Zcdp { rho }, Integer::from(1))),
            Mechanism::Approx { .. } => None,
            _ => self
                .pure_epsilon()
                .map(|epsilon| (RdpTerm::Pure { epsilon }, Integer::from(1))),
        }
    }
    /// The mechanism's privacy loss distribution for the PLD accountant and its multiplicity
    /// per repetition: exact for Gaussian and randomized response, for Laplace the
    /// one-dimensional pair (the worst case under ℓ1 sensitivity, cited from Zhu–Dong–Wang
    /// 2022), the worst case (ε, δ)-randomized response for ε-DP and (ε, δ)-DP black boxes
    /// (Corollary 24), and for subsampled Gaussians the PLD of the given neighbour
    /// `direction`. `None` for zCDP black boxes, which have no PLD.
    pub fn pld_term(&self, direction: Direction) -> Option<(PldMechanism, Integer)> {
        let once = |m| Some((m, Integer::from(1)));
        match self {
            Mechanism::Gaussian { .. } => once(PldMechanism::Gaussian {
                rho: self.zcdp_rho()?,
            }),
            Mechanism::Laplace { .. } => once(PldMechanism::Laplace {
                eps: self.pure_epsilon()?,
            }),
            Mechanism::KaryRandomizedResponse {
                noise_parameter,
                num_buckets,
            } => once(PldMechanism::KaryRandomizedResponse {
                noise: noise_parameter.clone(),
                buckets: num_buckets.clone(),
            }),
            Mechanism::DiscreteLaplace {
                parameter,
                sensitivity,
            } => once(PldMechanism::DiscreteLaplace {
                parameter: parameter.clone(),
                sensitivity: sensitivity.clone(),
            }),
            Mechanism::DiscreteGaussian {
                sigma_squared,
                sensitivity,
            } => once(PldMechanism::DiscreteGaussian {
                sigma_squared: sigma_squared.clone(),
                sensitivity: sensitivity.clone(),
            }),
            Mechanism::Pure { epsilon } | Mechanism::RandomizedResponse { epsilon } => {
                once(PldMechanism::RandomizedResponse {
                    eps: epsilon.clone(),
                })
            }
            Mechanism::Approx { epsilon, delta } => once(PldMechanism::ApproxDp {
                eps: epsilon.clone(),
                delta: delta.clone(),
            }),
            Mechanism::SubsampledGaussian {
                sigma, rate, steps, ..
            } => Some((
                PldMechanism::SubsampledGaussian {
                    sigma: sigma.clone(),
                    rate: rate.clone(),
                    direction,
                },
                steps.clone(),
            )),
            Mechanism::ShuffledGaussian { sigma, .. } => Some((
                PldMechanism::Gaussian {
                    rho: Rational::from(sigma * sigma).recip() / 2u32,
                },
                self.passes(),
            )),
            Mechanism::Zcdp { .. }
            | Mechanism::ZcdpWithXi { .. }
            | Mechanism::RepeatAndSelect { .. }
            | Mechanism::SubstitutionGaussian { .. } => None,
        }
    }
    /// The deployment file's `type` of this mechanism.
    pub fn type_name(&self) -> &'static str {
        match self {
            Mechanism::Gaussian { .. } => "gaussian",
            Mechanism::Laplace { .. } => "laplace",
            Mechanism::DiscreteLaplace { .. } => "discrete-laplace",
            Mechanism::KaryRandomizedResponse { .. } => "randomized-response",
            Mechanism::DiscreteGaussian { .. } => "discrete-gaussian",
            Mechanism::Pure { .. } => "pure",
            Mechanism::Approx { .. } => "approx",
            Mechanism::Zcdp { .. } | Mechanism::ZcdpWithXi { .. } => "zcdp",
            Mechanism::RandomizedResponse { .. } => "randomized-response",
            Mechanism::SubsampledGaussian { .. }
            | Mechanism::ShuffledGaussian { .. }
            | Mechanism::SubstitutionGaussian { .. } => "subsampled-gaussian",
            Mechanism::RepeatAndSelect { .. } => "repeat-and-select",
        }
    }
    /// The parameters as (field, exact value) pairs, in the deployment file's spelling.
    pub fn parameters(&self) -> Vec<(&'static str, String)> {
        let x = exact_text;
        match self {
            Mechanism::Gaussian { sigma, sensitivity } => {
                vec![("sigma", x(sigma)), ("sensitivity", x(sensitivity))]
            }
            Mechanism::Laplace { scale, sensitivity } => {
                vec![("scale", x(scale)), ("sensitivity", x(sensitivity))]
            }
            Mechanism::KaryRandomizedResponse {
                noise_parameter,
                num_buckets,
            } => vec![
                ("noise_parameter", x(noise_parameter)),
                ("num_buckets", num_buckets.to_string()),
            ],
            Mechanism::DiscreteLaplace {
                parameter,
                sensitivity,
            } => vec![
                ("noise_parameter", x(parameter)),
                ("sensitivity", sensitivity.to_string()),
            ],
            Mechanism::DiscreteGaussian {
                sigma_squared,
                sensitivity,
            } => vec![
                ("sigma_squared", x(sigma_squared)),
                ("sensitivity", sensitivity.to_string()),
            ],
            Mechanism::Pure { epsilon } | Mechanism::RandomizedResponse { epsilon } => {
                vec![("epsilon", x(epsilon))]
            }
            Mechanism::Approx { epsilon, delta } => {
                vec![("epsilon", x(epsilon)), ("delta", x(delta))]
            }
            Mechanism::Zcdp { rho } => vec![("rho", x(rho))],
            Mechanism::ZcdpWithXi { xi, rho } => vec![("xi", x(xi)), ("rho", x(rho))],
            Mechanism::RepeatAndSelect { event, term } => vec![
                ("mean", x(&term.mean)),
                ("shape", term.shape.as_ref().map_or("inf".into(), x)),
                ("of", repeated(event)),
            ],
            Mechanism::SubsampledGaussian {
                sigma,
                rate,
                steps,
                shuffled,
            } => subsampled_parameters(sigma, rate, steps, *shuffled),
            Mechanism::ShuffledGaussian { sigma, rate, steps } => vec![
                ("sigma", x(sigma)),
                ("rate", x(rate)),
                ("steps", steps.to_string()),
                ("sampling", "shuffled".into()),
            ],
            Mechanism::SubstitutionGaussian {
                sigma,
                rate,
                steps,
                sampling,
            } => vec![
                ("sigma", x(sigma)),
                ("rate", x(rate)),
                ("steps", steps.to_string()),
                ("sampling", sampling.name().into()),
                ("relation", "substitution".into()),
            ],
        }
    }
    /// A one-line description.
    pub fn describe(&self) -> String {
        use crate::validate::show as s;
        match self {
            Mechanism::Gaussian { sigma, sensitivity } => {
                format!("gaussian σ={} Δ₂={}", s(sigma), s(sensitivity))
            }
            Mechanism::Laplace { scale, sensitivity } => {
                format!("laplace b={} Δ₁={}", s(scale), s(sensitivity))
            }
            Mechanism::DiscreteLaplace {
                parameter,
                sensitivity,
            } => format!("discrete-laplace a={} Δ₁={sensitivity}", s(parameter)),
            Mechanism::KaryRandomizedResponse {
                noise_parameter,
                num_buckets,
            } => format!(
                "randomized-response p={} k={num_buckets} (ε = ln(1 + k(1−p)/p))",
                s(noise_parameter)
            ),
            Mechanism::DiscreteGaussian {
                sigma_squared,
                sensitivity,
            } => format!("discrete-gaussian σ²={} Δ={sensitivity}", s(sigma_squared)),
            Mechanism::Pure { epsilon } => format!("pure ε={}", s(epsilon)),
            Mechanism::Approx { epsilon, delta } => {
                format!("approx ε={} δ={}", s(epsilon), s(delta))
            }
            Mechanism::Zcdp { rho } => format!("zcdp ρ={}", s(rho)),
            Mechanism::ZcdpWithXi { xi, rho } => format!("zcdp ξ={} ρ={}", s(xi), s(rho)),
            Mechanism::RepeatAndSelect { event, term } => format!(
                "repeat-and-select mean={} shape={} of [{}]",
                s(&term.mean),
                term.shape.as_ref().map_or("∞ (Poisson)".into(), s),
                repeated(event)
            ),
            Mechanism::RandomizedResponse { epsilon } => {
                format!("randomized-response ε={}", s(epsilon))
            }
            Mechanism::SubsampledGaussian {
                sigma, rate, steps, ..
            } => format!(
                "subsampled-gaussian σ={} q={} steps={}",
                s(sigma),
                s(rate),
                steps
            ),
            Mechanism::ShuffledGaussian { sigma, rate, steps } => format!(
                "subsampled-gaussian σ={} q={} steps={} shuffled ({} passes, each one Gaussian release)",
                s(sigma),
                s(rate),
                steps,
                self.passes()
            ),
            Mechanism::SubstitutionGaussian { sigma, rate, steps, sampling } => format!(
                "subsampled-gaussian σ={} q={} steps={} {} sampling, substitution neighbours",
                s(sigma),
                s(rate),
                steps,
                sampling.name()
            ),
        }
    }
    /// Back to an event (the inverse of flattening, up to labels and repetitions).
    pub fn to_event(&self) -> Event {
        match self.clone() {
            Mechanism::Gaussian { sigma, sensitivity } => Event::Gaussian { sigma, sensitivity },
            Mechanism::Laplace { scale, sensitivity } => Event::Laplace { scale, sensitivity },
            Mechanism::KaryRandomizedResponse {
                noise_parameter,
                num_buckets,
            } => Event::KaryRandomizedResponse {
                noise_parameter,
                num_buckets,
            },
            Mechanism::DiscreteLaplace {
                parameter,
                sensitivity,
            } => Event::DiscreteLaplace {
                parameter,
                sensitivity,
            },
            Mechanism::DiscreteGaussian {
                sigma_squared,
                sensitivity,
            } => Event::DiscreteGaussian {
                sigma_squared,
                sensitivity,
            },
            Mechanism::Pure { epsilon } => Event::EpsilonDelta {
                epsilon,
                delta: Rational::new(),
            },
            Mechanism::Approx { epsilon, delta } => Event::EpsilonDelta { epsilon, delta },
            Mechanism::Zcdp { rho } => Event::Zcdp { rho },
            Mechanism::ZcdpWithXi { xi, rho } => Event::ZcdpWithXi { xi, rho },
            Mechanism::RepeatAndSelect { event, term } => Event::RepeatAndSelect {
                event,
                mean: term.mean,
                shape: term.shape.clone(),
            },
            Mechanism::RandomizedResponse { epsilon } => Event::RandomizedResponse { epsilon },
            Mechanism::SubsampledGaussian {
                sigma,
                rate,
                steps,
                shuffled,
            } => {
                let e = Event::SelfComposed {
                    event: Box::new(Event::PoissonSampled {
                        rate,
                        event: Box::new(Event::Gaussian {
                            sigma,
                            sensitivity: Rational::from(1),
                        }),
                    }),
                    count: steps,
                };
                if shuffled {
                    Event::ShuffledAccountedAsPoisson(Box::new(e))
                } else {
                    e
                }
            }
            Mechanism::ShuffledGaussian { sigma, rate, steps } => {
                Event::ShuffledGaussian { sigma, rate, steps }
            }
            Mechanism::SubstitutionGaussian {
                sigma,
                rate,
                steps,
                sampling,
            } => Event::SubstitutionGaussian {
                sigma,
                rate,
                steps,
                sampling,
            },
        }
    }
}

/// The repeated event of a repeat-and-select entry, as its mechanisms' descriptions.
fn repeated(event: &Event) -> String {
    match Ledger::from_event(event) {
        Ok(l) => l
            .entries
            .iter()
            .map(|e| format!("{} × {}", e.mechanism.describe(), e.repeat))
            .collect::<Vec<_>>()
            .join("; "),
        Err(_) => event.kind().to_string(),
    }
}

/// An exact rational as text that reads back to the same value: its exact decimal when that
/// is short, else `p/q` (never an approximation).
pub fn exact_text(x: &Rational) -> String {
    let s = show(x);
    if s.starts_with('≈') || s.contains('/') {
        x.to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattening_counts_and_refuses_by_name() {
        let e = Event::Composed(vec![
            Event::gaussian("1.1")
                .unwrap()
                .with_sensitivity(2)
                .unwrap()
                .poisson_sampled("1/100")
                .unwrap()
                .self_composed(50)
                .unwrap()
                .self_composed(3)
                .unwrap()
                .named("sgd"),
            Event::pure("0.5").unwrap().self_composed(4).unwrap(),
            Event::NoOp,
            Event::laplace(2).unwrap().poisson_sampled(1).unwrap(),
        ]);
        let l = Ledger::from_event(&e).unwrap();
        assert_eq!(l.entries.len(), 3);
        assert_eq!(l.entries[0].name, "sgd");
        assert_eq!(
            l.entries[0].mechanism,
            Mechanism::SubsampledGaussian {
                sigma: Rational::from((11, 20)),
                rate: Rational::from((1, 100)),
                steps: 50.into(),
                shuffled: false
            }
        );
        assert_eq!(l.entries[0].repeat, 3);
        assert_eq!(l.entries[1].name, "#2");
        assert_eq!(l.entries[1].repeat, 4);
        assert!(matches!(l.entries[2].mechanism, Mechanism::Laplace { .. }));
        let refuse = |e: Event, path: &str, needle: &str| match Ledger::from_event(&e) {
            Err(Error::InvalidArgument { name, reason }) => {
                assert_eq!(name, path);
                assert!(reason.contains(needle), "{reason}");
            }
            other => panic!("{other:?}"),
        };
        refuse(
            Event::Composed(vec![Event::laplace(1)
                .unwrap()
                .poisson_sampled("0.1")
                .unwrap()]),
            "event.composed[0].poisson_sampled",
            "laplace",
        );
        refuse(
            Event::pure(1).unwrap().fixed_size_sampled(10, 100).unwrap(),
            "event.fixed_size_sampled",
            "fixed-size",
        );
        let nothing = Ledger::from_event(&Event::NoOp).unwrap();
        assert_eq!(
            nothing.entries[0].mechanism.approx(),
            Some((Rational::new(), Rational::new()))
        );
    }
}
