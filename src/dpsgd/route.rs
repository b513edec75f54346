//! The one dispatch from a run to the theorem that accounts it: [`route`] reads the sampler,
//! the relation, the group and the method once, and refuses what no theorem covers (naming
//! the argument); [`epsilon`] evaluates the route's theorem for ε at δ.
use super::{Accounting, Delta, Method, Phase, Relation, Run, Sampling, Sigma, UserSampling};
use crate::num::{Certified, Enclosure, UpperBound};
use crate::theorems::pld_accountant::{self, PldReport, MAX_GROUP};
use crate::theorems::{fixed_size, random_allocation, rdp, schedule, shuffle};
use crate::{validate, Error, Result};
use rug::{Integer, Rational};

/// The theorem that accounts a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Poisson sampling, add/remove neighbours: the PLD accountant or RDP, as the method says.
    /// Users Poisson-sampled with all K of their examples are the run at σ/K (sensitivity K).
    Poisson,
    /// Poisson sampling of single examples, K > 1 examples per user: group privacy over K
    /// add/remove hops of the PLD accountant (`dpsgd_group_pld_epsilon`).
    GroupExamples,
    /// Poisson sampling, substitution neighbours (`dpsgd_substitution_pld_epsilon`), users as
    /// in [`Route::Poisson`] (σ/K).
    PoissonSubstitution,
    /// Fixed-size batches, substitution neighbours: `dpsgd_fixed_size_pld_epsilon`, or
    /// `dpsgd_fixed_size_rdp_epsilon` with the RDP method.
    FixedSize,
    /// Shuffled batches without amplification: the exact Gaussian composition of the passes
    /// (`shuffled_dpsgd_epsilon`), an upper bound.
    Shuffled,
    /// Random allocation with K = 1 of t > 1 steps per epoch (balls-and-bins): two-sided,
    /// `random_allocation_epsilon` / `random_allocation_delta` (dominating PLD of one epoch).
    BallsAndBins,
    /// Random allocation otherwise (K > 1, or t = 1): two-sided, the same theorem functions
    /// (upper without amplification).
    RandomAllocation,
    /// Truncated Poisson batches: two-sided, `truncated_poisson_epsilon` /
    /// `truncated_poisson_delta`.
    TruncatedPoisson,
}

/// Which accountant answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accountant {
    /// The certified PLD accountant.
    Pld,
    /// Rényi DP converted to (ε, δ).
    Rdp,
    /// The Gaussian mechanism's exact (ε, δ) curve.
    Gaussian,
}

/// A run's certified ε at δ, as its route's theorem gives it.
#[derive(Clone, Debug)]
pub struct Epsilon {
    /// The route that answered.
    pub route: Route,
    /// The accountant that answered.
    pub accountant: Accountant,
    /// Two-sided or an upper bound, as the theorem certifies it.
    pub value: Certified,
    /// The PLD accountant's report (grid, tail, fixed-point bits, support), when it answered.
    pub pld: Option<PldReport>,
    /// The Rényi order of the RDP routes, as printed.
    pub order: Option<String>,
    /// The noise multiplier the accountant ran at (σ/K for users sampled with K examples).
    pub sigma: Rational,
    /// Shuffled runs: the passes over the data one example takes part in.
    pub passes: Option<Integer>,
}

/// Fixed-size batches under add/remove neighbours: no route.
const FIXED_SIZE_ADD_REMOVE: &str = "fixed-size batches are certified for --relation substitution only (under add/remove the dataset size N, hence B/N, changes between neighbours and no certified route exists in dpcert); use --relation substitution, or --sampling poisson";

/// The route that accounts `run` under `acc`, or an error naming the argument no theorem
/// covers (the sampler, the relation, the group, the method or `--tight`).
pub fn route(run: &Run, acc: &Accounting) -> Result<Route> {
    validate::count("group-size", &run.group)?;
    let examples = run.group != 1 && run.user_sampling == UserSampling::Examples;
    let route = match (run.sampling, run.relation) {
        (Sampling::Poisson, Relation::AddRemove) if examples => Route::GroupExamples,
        (Sampling::Poisson, Relation::AddRemove) => Route::Poisson,
        (Sampling::Poisson, Relation::Substitution) => Route::PoissonSubstitution,
        (Sampling::FixedSize, Relation::Substitution) => Route::FixedSize,
        (Sampling::FixedSize, Relation::AddRemove) => {
            return Err(Error::arg("relation", FIXED_SIZE_ADD_REMOVE))
        }
        (Sampling::Shuffled, _) => Route::Shuffled,
        (
            Sampling::BallsAndBins | Sampling::RandomAllocation | Sampling::TruncatedPoisson,
            Relation::Substitution,
        ) => {
            return Err(Error::arg(
                "relation",
                format!(
                    "--sampling {} is accounted for add/remove neighbours only",
                    run.sampling.name()
                ),
            ))
        }
        (Sampling::BallsAndBins | Sampling::RandomAllocation, Relation::AddRemove) => {
            let one = run.uses_per_epoch.as_ref().is_none_or(|k| *k == 1);
            match &run.steps_per_epoch {
                Some(t) if one && *t > 1 => Route::BallsAndBins,
                _ => Route::RandomAllocation,
            }
        }
        (Sampling::TruncatedPoisson, Relation::AddRemove) => Route::TruncatedPoisson,
    };
    if route.is_allocated() {
        Route::admits_allocated(run, acc)?;
        return Ok(route);
    }
    if examples && route != Route::GroupExamples {
        return Err(Error::arg(
            "user-sampling",
            "examples is available for --sampling poisson --relation add-remove only",
        ));
    }
    route.admits(run, acc)?;
    Ok(route)
}

impl Route {
    /// Is this the route of random allocation or truncated Poisson sampling?
    pub fn is_allocated(self) -> bool {
        matches!(
            self,
            Route::BallsAndBins | Route::RandomAllocation | Route::TruncatedPoisson
        )
    }

    /// Random allocation and truncated Poisson: example level, their accountants' own grid,
    /// no RDP route.
    fn admits_allocated(run: &Run, acc: &Accounting) -> Result<()> {
        let kind = run.sampling.name();
        if run.group != 1 {
            return Err(Error::arg(
                "group-size",
                format!("--sampling {kind} is accounted at example level only (group size 1)"),
            ));
        }
        let flag = match (acc.tight, &acc.grid, &acc.tail) {
            (true, ..) => Some("--tight"),
            (_, Some(_), _) => Some("--grid"),
            (_, _, Some(_)) => Some("--tail"),
            _ => None,
        };
        if let Some(flag) = flag {
            return Err(Error::arg(flag, format!("is not available with --sampling {kind} (its accountant runs choose their own grid)")));
        }
        if run.method == Method::Rdp {
            return Err(Error::arg(
                "method",
                format!("--sampling {kind} has no RDP route; use pld or best"),
            ));
        }
        Ok(())
    }

    /// The method, the group and the tight preset this route can honour.
    fn admits(self, run: &Run, acc: &Accounting) -> Result<()> {
        let pld_only = |what: &str| {
            Err(Error::arg(
                "method",
                format!("{what} is certified by the PLD accountant only; use --method pld"),
            ))
        };
        if acc.tight && self != Route::Poisson {
            return Err(Error::arg("--tight", match self {
                Route::Shuffled => "refines the PLD accountant; a shuffled run is accounted by the Gaussian closed form",
                _ => "is implemented for the Poisson add/remove run (example level, or users sampled with all of their examples) only",
            }));
        }
        let rdp = run.method == Method::Rdp;
        match self {
            Route::Poisson if acc.tight && rdp => Err(Error::arg(
                "--tight",
                "refines the PLD accountant; use --method pld or best",
            )),
            Route::Poisson if acc.tight && acc.grid.is_some() => Err(Error::arg(
                "--tight",
                "chooses the grid itself; drop --grid",
            )),
            Route::GroupExamples if run.group > MAX_GROUP => Err(Error::arg(
                "group-size",
                format!("must be an integer in [1, {MAX_GROUP}] with --user-sampling examples"),
            )),
            Route::GroupExamples if rdp => pld_only("--user-sampling examples"),
            Route::PoissonSubstitution if rdp => pld_only("substitution with Poisson sampling"),
            Route::FixedSize if run.group != 1 => Err(Error::arg(
                "group-size",
                "fixed-size batches are accounted at example level only (group size 1)",
            )),
            Route::FixedSize if rdp && (acc.grid.is_some() || acc.tail.is_some()) => {
                Err(Error::arg(
                    "method",
                    "--grid and --tail set the PLD accountant; --method rdp does not use it",
                ))
            }
            _ => Ok(()),
        }
    }
}

/// The certified ε at δ of a run, by its [`route`].
///
/// # Guarantee
/// The returned value is that of the theorem function the route names, at the run's exact
/// parameters: two-sided for the PLD routes, an upper bound for RDP and shuffled runs. The
/// method decides the accountant of the Poisson and fixed-size routes: `pld` runs the PLD
/// accountant (its errors are the answer), `rdp` the RDP bound, `best` the PLD accountant and,
/// on automatic settings only, the RDP bound where the PLD accountant fails.
pub fn epsilon(run: &Run, delta: &Delta, acc: &Accounting) -> Result<Epsilon> {
    let route = route(run, acc)?;
    let (q, s, t) = (&run.rate, &run.sigma, &run.steps);
    let d: &Rational = delta;
    let p = acc.precision;
    let opts = acc.pld_options();
    let sigma = Rational::from(&*run.sigma / &run.group);
    // σ/K > 0: σ > 0 and K ≥ 1 (the check cannot fail)
    let user_sigma = Sigma::new("sigma", sigma.clone())?;
    let pld = |r: PldReport, sigma: Rational| Epsilon {
        route,
        accountant: Accountant::Pld,
        value: Certified::TwoSided(r.enclosure.clone()),
        pld: Some(r),
        order: None,
        sigma,
        passes: None,
    };
    let upper = |accountant, value, order, passes| Epsilon {
        route,
        accountant,
        value: Certified::UpperBound(value),
        pld: None,
        order,
        sigma: Rational::from(&*run.sigma),
        passes,
    };
    Ok(match route {
        Route::Poisson => {
            let r = pld_unless_rdp(run.method, acc, || {
                pld_accountant::dpsgd_pld_epsilon(q, &user_sigma, t, delta, &opts)
            })?;
            if let Some(r) = r {
                return Ok(pld(r, sigma));
            }
            let (b, alpha) = rdp::dpsgd_rdp_epsilon(q, &user_sigma, t, delta, p)?;
            Epsilon {
                sigma,
                ..upper(Accountant::Rdp, b, Some(validate::show(&alpha)), None)
            }
        }
        Route::GroupExamples => {
            let k = run
                .group
                .to_u32()
                .ok_or_else(|| Error::arg("group-size", "too large"))?;
            let r = pld_accountant::dpsgd_group_pld_epsilon(q, &run.sigma, t, k, d, &opts)?;
            pld(r, Rational::from(&*run.sigma))
        }
        Route::PoissonSubstitution => {
            let r =
                pld_accountant::dpsgd_substitution_pld_epsilon(q, &user_sigma, t, delta, &opts)?;
            pld(r, sigma)
        }
        Route::FixedSize => {
            let r = pld_unless_rdp(run.method, acc, || {
                pld_accountant::dpsgd_fixed_size_pld_epsilon(q, s, t, delta, &opts)
            })?;
            if let Some(r) = r {
                return Ok(pld(r, Rational::from(&*run.sigma)));
            }
            let (e, alpha) = fixed_size::dpsgd_fixed_size_rdp_epsilon(q, s, t, delta, p)?;
            upper(
                Accountant::Rdp,
                UpperBound::new(e),
                Some(alpha.to_string()),
                None,
            )
        }
        Route::Shuffled => {
            let k = run.passes()?;
            let g = &run.group;
            let e = shuffle::shuffled_dpsgd_epsilon(s, &k, run.relation, g, delta, p)?;
            upper(Accountant::Gaussian, e, None, Some(k))
        }
        Route::BallsAndBins | Route::RandomAllocation | Route::TruncatedPoisson => {
            allocated_epsilon(run, route, d, acc)?
        }
    })
}

/// ε at δ of a random-allocation or truncated-Poisson run: two-sided, by the sampler's
/// theorem function.
fn allocated_epsilon(run: &Run, route: Route, d: &Rational, acc: &Accounting) -> Result<Epsilon> {
    Ok(Epsilon {
        route,
        accountant: Accountant::Pld,
        value: Certified::TwoSided(allocated(run, route, At::Delta(d), acc)?),
        pld: None,
        order: None,
        sigma: Rational::from(&*run.sigma),
        passes: None,
    })
}

/// Where a sampler's privacy profile is read: ε at a δ or δ at an ε.
#[derive(Clone, Copy)]
enum At<'a> {
    Delta(&'a Rational),
    Epsilon(&'a Rational),
}

/// The two-sided ε at δ or δ at ε of a random-allocation or truncated-Poisson run.
fn allocated(run: &Run, route: Route, at: At, acc: &Accounting) -> Result<Enclosure> {
    let (opts, p) = (acc.pld_options(), acc.precision);
    match (route, at) {
        (Route::TruncatedPoisson, At::Delta(d)) => {
            random_allocation::truncated_poisson_epsilon(&run.as_truncated()?, d, &opts)
        }
        (Route::TruncatedPoisson, At::Epsilon(e)) => {
            random_allocation::truncated_poisson_delta(&run.as_truncated()?, e, &opts)
        }
        (_, At::Delta(d)) => {
            random_allocation::random_allocation_epsilon(&run.as_allocation()?, d, p, &opts)
        }
        (_, At::Epsilon(e)) => {
            random_allocation::random_allocation_delta(&run.as_allocation()?, e, p, &opts)
        }
    }
}

/// The certified δ at ε of a run whose route reads its profile both ways (random allocation,
/// truncated Poisson), two-sided; other runs' δ at ε is [`schedule_delta`]'s (an error here).
pub fn delta(run: &Run, epsilon: &Rational, acc: &Accounting) -> Result<(Route, Enclosure)> {
    let route = route(run, acc)?;
    if !route.is_allocated() {
        return Err(Error::arg(
            "epsilon",
            "δ at ε of this run is accounted as a schedule (schedule_delta)",
        ));
    }
    validate::nonnegative("epsilon", epsilon)?;
    Ok((route, allocated(run, route, At::Epsilon(epsilon), acc)?))
}

/// The PLD accountant's answer, or None where the RDP route is to answer: `rdp` never runs
/// it; `pld`, or `best` with a grid, tail or tight preset the user chose, returns its errors
/// (they are the answer); `best` on automatic settings turns a PLD failure (e.g. δ below its
/// resolution) into None.
fn pld_unless_rdp<T>(
    method: Method,
    acc: &Accounting,
    run: impl FnOnce() -> Result<T>,
) -> Result<Option<T>> {
    Ok(match method {
        Method::Rdp => None,
        Method::Best if !acc.chose_pld_settings() => run().ok(),
        Method::Pld | Method::Best => Some(run()?),
    })
}

/// ε at δ of a schedule of phases (Poisson sampling, add/remove), by the PLD accountant.
pub fn schedule_epsilon(phases: &[Phase], delta: &Delta, acc: &Accounting) -> Result<PldReport> {
    schedule::dpsgd_phases_pld_epsilon(phases, delta, &acc.pld_options())
}

/// δ at ε of a schedule of phases (a single run is one phase), by the PLD accountant.
pub fn schedule_delta(phases: &[Phase], epsilon: &Rational, acc: &Accounting) -> Result<PldReport> {
    let eps = std::slice::from_ref(epsilon);
    let mut r = schedule::dpsgd_pld_delta(phases, eps, &acc.pld_options())?;
    Ok(r.swap_remove(0))
}

/// The PLD accountant's theorem, as printed.
pub const PLD_THEOREM: &str = "Theorem 9 (composition = convolution of PLDs) on a certified grid: dominating and dominated discretisations, integer convolution (exact, or by FFT with a proven error bound added on each side); add and remove neighbours";
/// The RDP route's theorem for DP-SGD, as printed.
pub const DPSGD_RDP_THEOREM: &str = "RDP of the Poisson-subsampled Gaussian (Mironov–Talwar–Zhang 2019), Proposition 14 general form / Canonne–Kamath–Steinke 2020 conversion";
/// The substitution route's theorem, as printed.
pub const PLD_SUBSTITUTION_THEOREM: &str = "Poisson sampling, substitution neighbours: certified PLD (both sides) of the pair ((1−q)N(0,σ²)+qN(1,σ²) ‖ (1−q)N(0,σ²)+qN(−1,σ²)), which dominates every step (Schuchardt–Stoian–Kosmala–Günnemann 2024, Theorem 3.8, one insertion and one deletion; composed by Zhu–Dong–Wang 2022, Theorem 10) and which datasets realise (gradient +1 replaced by −1)";
/// The route behind `dpsgd --group-size K --user-sampling examples`.
pub const GROUP_EXAMPLES_THEOREM: &str = "user-level DP-SGD, examples Poisson-sampled, up to K examples per user: upper = group privacy over K add/remove hops D₀ ⊃ … ⊃ D_K of the whole run, P₀(E) ≤ e^{Σε_j}P_K(E) + Σ_j e^{ε₁+…+ε_{j−1}}δ_j (Dwork–Roth Thm 2.2 in (ε, δ) form), each hop on the certified add/remove PLD (remove curve for (D₀, D_K), add curve for (D_K, D₀)); lower = the one-example add/remove run's certified lower end (loose)";
/// The route behind `dpsgd --group-size K --user-sampling users`.
pub const GROUP_USERS_THEOREM: &str = "user-level DP-SGD, users Poisson-sampled with all of their up to K examples: the user's summed clipped gradients have sensitivity K, so the run is the add/remove DP-SGD run at noise multiplier σ/K (exact)";
/// The theorem chain behind `dpsgd --sampling fixed-size --relation substitution` (PLD).
pub const FIXED_SIZE_THEOREM: &str = "fixed-size batches (B of N without replacement, γ = B/N), substitution neighbours: upper = certified PLD of the symmetric dominating pair of one step (losses above 0 those of (γN(2,σ²)+(1−γ)N(0,σ²) ‖ N(0,σ²)): Balle–Barthe–Gaboardi 2018 Theorem 10 with the Gaussian's replace-one sensitivity 2, cf. google/differential-privacy issue #378; mirrored below 0), composed by Dong–Roth–Su 2022 (f-DP composition); lower = certified PLD of that pair and its reverse, which datasets realise (the Poisson add/remove accountant at σ/2)";
/// The theorem chain behind `dpsgd --sampling fixed-size --method rdp` (upper only).
pub const FIXED_SIZE_RDP_THEOREM: &str = "fixed-size batches (B of N without replacement, γ = B/N), substitution neighbours: Wang–Balle–Kasiviswanathan 2019 Theorem 9 (subsampled RDP without replacement) for the Gaussian with replace-one sensitivity 2 (ε(j) = 2j/σ²; cf. google/differential-privacy issue #378), composed over T steps and converted to (ε, δ) (Canonne–Kamath–Steinke 2020 Prop 12) at one integer order";
/// The theorem behind shuffled runs, as printed.
pub const SHUFFLED_THEOREM: &str = "shuffled epochs without amplification: an upper bound by the exact Gaussian composition of the passes (Corollaries 8 and 10), exact only with the batch assignment revealed";

/// Balls-and-bins, ε at δ, as printed.
pub const BALLS_AND_BINS_THEOREM: &str = "random allocation, k = 1 (balls-and-bins): upper = certified dominating PLD of one epoch (mean-preserving spread of the likelihood ratio's summands) composed over the epochs, capped by the Gaussian composition without amplification; lower = the event {at least n epochs have a step output above τ} of the realisable pair";
/// Random allocation (K > 1 or t = 1), ε at δ, as printed.
pub const RANDOM_ALLOCATION_THEOREM: &str = "random allocation, k of t: upper = the Gaussian composition of the k·epochs releases without amplification; lower = the event {at least n epochs have a step output above τ} of the realisable pair";
/// Balls-and-bins, δ at ε, as printed.
pub const BALLS_AND_BINS_DELTA_THEOREM: &str = "random allocation, k = 1 (balls-and-bins): upper = certified dominating PLD of one epoch composed over the epochs, read at ε, capped by the Gaussian composition without amplification; lower = the event {at least n epochs have a step output above τ} of the realisable pair";
/// Random allocation (K > 1 or t = 1), δ at ε, as printed.
pub const RANDOM_ALLOCATION_DELTA_THEOREM: &str = "random allocation, k of t: upper = exact δ(ε) of the Gaussian composition of the k·epochs releases without amplification; lower = the event {at least n epochs have a step output above τ} of the realisable pair";
/// Truncated Poisson, either way, as printed.
pub const TRUNCATED_POISSON_THEOREM: &str = "truncated Poisson: the certified Poisson accountant with δ moved by η(1 + e^ε), η ≥ P[some batch is truncated] (Chernoff–Hoeffding) — a coupling of the truncated and the untruncated run";

impl Route {
    /// The sampler's facts an answer of a random-allocation or truncated-Poisson route
    /// reports: the allocation (t, k, epochs), or the truncation probability η (rounded up)
    /// and the maximum batch size; none for the other routes.
    pub fn facts(self, run: &Run) -> Result<Vec<(&'static str, String)>> {
        Ok(match self {
            Route::TruncatedPoisson => {
                let t = run.as_truncated()?;
                let eta = random_allocation::truncation_probability(&t)?;
                vec![
                    (
                        "truncation_probability",
                        random_allocation::show_up(&eta, 16),
                    ),
                    ("max_batch_size", t.max_batch.to_string()),
                ]
            }
            Route::BallsAndBins | Route::RandomAllocation => {
                let a = run.as_allocation()?;
                vec![
                    ("steps_per_epoch", a.steps.to_string()),
                    ("selected", a.selected.to_string()),
                    ("epochs", a.epochs.to_string()),
                ]
            }
            _ => vec![],
        })
    }

    /// The theorem a δ-at-ε answer of this route rests on, as printed.
    pub fn delta_theorem(self) -> &'static str {
        match self {
            Route::BallsAndBins => BALLS_AND_BINS_DELTA_THEOREM,
            Route::RandomAllocation => RANDOM_ALLOCATION_DELTA_THEOREM,
            Route::TruncatedPoisson => TRUNCATED_POISSON_THEOREM,
            _ => PLD_THEOREM,
        }
    }
}

impl Epsilon {
    /// The theorem the answer rests on, as a query's answer prints it.
    pub fn theorem(&self) -> &'static str {
        match (self.route, self.accountant) {
            (Route::Poisson, Accountant::Rdp) => DPSGD_RDP_THEOREM,
            (Route::Poisson, _) => PLD_THEOREM,
            (Route::GroupExamples, _) => GROUP_EXAMPLES_THEOREM,
            (Route::PoissonSubstitution, _) => PLD_SUBSTITUTION_THEOREM,
            (Route::FixedSize, Accountant::Rdp) => FIXED_SIZE_RDP_THEOREM,
            (Route::FixedSize, _) => FIXED_SIZE_THEOREM,
            (Route::Shuffled, _) => SHUFFLED_THEOREM,
            (Route::BallsAndBins, _) => BALLS_AND_BINS_THEOREM,
            (Route::RandomAllocation, _) => RANDOM_ALLOCATION_THEOREM,
            (Route::TruncatedPoisson, _) => TRUNCATED_POISSON_THEOREM,
        }
    }

    /// The route in one line, as a calibration prints it.
    pub fn summary(&self) -> &'static str {
        match (self.route, self.accountant) {
            (Route::Poisson, Accountant::Rdp) => "RDP (Mironov–Talwar–Zhang 2019) → (ε, δ), Poisson, add/remove",
            (Route::Poisson, _) => "PLD accountant (Theorem 9 on a certified grid), Poisson, add/remove",
            (Route::GroupExamples, _) => "user-level, examples Poisson-sampled: upper bound by group privacy over K add/remove hops on the PLD accountant (dpsgd_group_pld_epsilon); one-sided",
            (Route::PoissonSubstitution, _) => "Poisson, substitution: PLD accountant, both sides, on the dominating and realised pair ((1−q)N(0,σ²)+qN(1,σ²) ‖ (1−q)N(0,σ²)+qN(−1,σ²))",
            (Route::FixedSize, Accountant::Rdp) => "fixed-size batches, substitution: RDP upper bound (Wang–Balle–Kasiviswanathan 2019 Theorem 9, sensitivity 2) → (ε, δ)",
            (Route::FixedSize, _) => "fixed-size batches, substitution: PLD accountant, upper = symmetric dominating pair of one step (sensitivity 2), lower = the realised Poisson add/remove pairs at σ/2",
            (Route::Shuffled, _) => "shuffled epochs without amplification: an upper bound by exact Gaussian composition (Corollaries 8 and 10)",
            (Route::BallsAndBins, _) => "balls-and-bins, add/remove: upper from a certified dominating PLD of one epoch composed over the epochs, lower from a distinguishing event",
            (Route::RandomAllocation, _) => "random allocation, add/remove: upper without amplification, lower from a distinguishing event",
            (Route::TruncatedPoisson, _) => "truncated Poisson, add/remove: the certified Poisson accountant with δ moved by η(1 + e^ε)",
        }
    }
}
