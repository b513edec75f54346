//! The certified PLD accountant (Theorem 9 evaluated on a grid with dominating and dominated
//! discretisations): Gaussian, Laplace, randomized response and Poisson-subsampled Gaussians
//! exactly, ε-DP and (ε, δ)-DP black boxes as their worst case (ε, δ)-RR (Corollary 24); two
//! sided. The accountant's errors (e.g. a budget δ below its resolution) become the query's
//! note, not the audit's error.
use super::ledger::Ledger;
use super::route::{answer, below_one, Outcome, Route, RouteId, Step, WhyNot};
use crate::num::{Certified, Enclosure};
use crate::theorems::pld_accountant::{
    pld_delta, pld_delta_curve, pld_epsilon, Direction, PldOptions, PldReport, PldTerm, ADD_COARSE,
};
use crate::validate::show;
use crate::{Error, Result};
use rug::Rational;

/// The PLD-accountant route.
///
/// # Guarantee
/// Two-sided ([`crate::Certified::TwoSided`]): the certified PLD accountant's bracket of the
/// exact ε at δ (δ at ε) of the composition (for subsampled Gaussians, the larger of the add
/// and remove directions: upper = max of the uppers, lower = max of the lowers). When a
/// deployment declared shuffled batches (accounted as Poisson, or by the shuffled bound), an
/// upper bound only (it may verify, never refute). The accountant's errors become the query's note.
pub struct Pld;

/// The ledger's PLD terms for one neighbour direction (identical mechanisms merged by adding
/// their counts).
fn terms(l: &Ledger, direction: Direction) -> Vec<PldTerm> {
    let mut terms: Vec<PldTerm> = Vec::new();
    for m in &l.entries {
        let (mechanism, k) = m.mechanism.pld_term(direction).expect("checked by applies");
        let count = k * &m.repeat;
        match terms.iter_mut().find(|t| t.mechanism == mechanism) {
            Some(t) => t.count += count,
            None => terms.push(PldTerm { mechanism, count }),
        }
    }
    terms
}

/// The neighbour directions to compute: only subsampled Gaussians' PLDs depend on them (the
/// others are symmetric, and one composition serves both).
fn directions(l: &Ledger) -> Vec<(&'static str, Vec<PldTerm>)> {
    if l.has_subsampled() {
        vec![
            ("remove", terms(l, Direction::Remove)),
            ("add", terms(l, Direction::Add)),
        ]
    } else {
        vec![("either", terms(l, Direction::Remove))]
    }
}

/// What [`on_each_direction`] needs of a direction's run: its grid, and whether its upper ends
/// stay at or below another run's (then the maximum's upper ends are the other's).
trait DirectionRun: Send {
    fn grid(&self) -> &Rational;
    fn uppers_within(&self, other: &Self) -> bool;
}

impl DirectionRun for PldReport {
    fn grid(&self) -> &Rational {
        &self.grid
    }
    fn uppers_within(&self, other: &Self) -> bool {
        self.enclosure.upper().0 <= other.enclosure.upper().0
    }
}

/// How far (relative) a coarse second direction's curve may lie above the first's and still
/// settle it ([`DirectionRun::uppers_within`] for curves; a width heuristic, compared in
/// floats: whichever run is kept, the maximum's upper end is a certified bound).
const CURVE_SLACK: f64 = 1.01;

/// A δ(ε) curve: one report per ε (never empty; all on one grid).
impl DirectionRun for Vec<PldReport> {
    fn grid(&self) -> &Rational {
        &self[0].grid
    }
    /// Within 1 % (relative) at every point: a curve is a picture, and the maximum over the
    /// directions takes the larger upper end anyway (sound either way); a fine run of the
    /// second direction for a few points near ε = 0 would double the plot's time (DP-SGD on
    /// MNIST: the coarse add direction is 0.24 % above remove at ε = 0, 0.02 % at the next
    /// point, below it everywhere else).
    fn uppers_within(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.iter().zip(other).all(|(a, b)| {
                a.uppers_within(b)
                    || a.enclosure.upper().to_f64() <= CURVE_SLACK * b.enclosure.upper().to_f64()
            })
    }
}

/// One PLD query on each neighbour direction's terms, on a worker thread (a failure or panic of
/// the accountant comes back as an error). The first direction (remove) runs with `opts`; a
/// second one (add) first on a grid [`ADD_COARSE`] times coarser, which settles it whenever its
/// upper end stays at or below the first's (for a curve: at every point): the maximum's upper
/// end is then the first's, and its own lower end still bounds its value, hence the maximum,
/// from below. Otherwise it runs again with `opts`. Any grid is sound (only widths and time
/// change); DP-SGD's add direction is settled this way (MNIST: its upper end 0.5 below
/// remove's; `dpsgd_pld_epsilon` does the same).
fn on_each_direction<R: DirectionRun>(
    sets: &[(&'static str, Vec<PldTerm>)],
    opts: &PldOptions,
    query: impl Fn(&[PldTerm], &PldOptions) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let run = || -> Result<Vec<R>> {
        let mut out = vec![query(&sets[0].1, opts)?];
        for (_, terms) in &sets[1..] {
            let first = &out[0];
            let coarse = PldOptions {
                grid: Some(Rational::from(first.grid() * ADD_COARSE)),
                ..opts.clone()
            };
            let r = match query(terms, &coarse) {
                Ok(r) if r.uppers_within(first) => r,
                _ => query(terms, opts)?,
            };
            out.push(r);
        }
        Ok(out)
    };
    std::thread::scope(|sc| {
        sc.spawn(run)
            .join()
            .map_err(|_| Error::Numerical("PLD accountant panicked".into()))?
    })
}

/// The accountant's options for the audit's queries: automatic grid and tail; long runs draw
/// a progress line on a terminal (stderr only).
fn audit_options() -> PldOptions {
    PldOptions {
        // long accountant runs draw a progress line on a terminal (stderr only), unless a
        // front end that draws its own bar turned the library's lines off
        progress: crate::progress::stderr_lines(),
        ..PldOptions::default()
    }
}

/// The larger of the directions' values: upper = max of the uppers, lower = max of the lowers
/// (each direction's lower bound is below its own value, hence below the maximum).
fn max_over_directions(reports: &[PldReport]) -> Result<Enclosure> {
    let mut lo = reports[0].enclosure.lower().0.clone();
    let mut hi = reports[0].enclosure.upper().0.clone();
    for r in &reports[1..] {
        lo = lo.max(&r.enclosure.lower().0);
        hi = hi.max(&r.enclosure.upper().0);
    }
    reports[0].enclosure.with_endpoints(lo, hi)
}

fn grid(r: &PldReport) -> String {
    format!(
        "h = {}, τ = {}, {} fraction bits, {} points",
        show(&r.grid),
        show(&r.tail),
        r.fixed_bits,
        r.support
    )
}

/// Run one query (`what` at `given` = `at`) on every direction and report it.
fn query(
    l: &Ledger,
    (what, given, at): (&str, &str, &Rational),
    run: impl Fn(&[PldTerm], &PldOptions) -> Result<PldReport> + Sync,
) -> Outcome {
    let sets = directions(l);
    let reports = match on_each_direction(&sets, &audit_options(), &run) {
        Ok(r) => r,
        Err(e) => return Outcome::none(format!("failed: {what} at {given}: {e}")),
    };
    let named = |f: &dyn Fn(&PldReport) -> String| {
        sets.iter()
            .zip(&reports)
            .map(|((name, _), r)| format!("{name}: {}", f(r)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let grids = if reports.iter().all(|r| grid(r) == grid(&reports[0])) {
        grid(&reports[0])
    } else {
        named(&grid)
    };
    let mut steps = vec![Step::new(
        "Theorem 9 on a grid (certified PLD accountant: dominating and dominated discretisations, integer convolution — exact, or by FFT with a proven error bound on each side)",
        format!("{what} at {given}: {grids}"),
    )];
    if sets.len() > 1 {
        steps.push(Step::new(
            "Neighbour directions (upper = max of the uppers, lower = max of the lowers)",
            named(&|r| {
                format!(
                    "{what}({given}={}) ∈ [{}, {}]",
                    show(at),
                    r.enclosure.lower().to_decimal(),
                    r.enclosure.upper().to_decimal()
                )
            }),
        ));
    }
    // shuffled batches accounted as Poisson: the Poisson numbers bound nothing from below,
    // so they may verify (with the warning) but never refute
    let value = max_over_directions(&reports)
        .ok()
        .map(|e| answer(e, l.lower_bounds_hold()));
    Outcome {
        value,
        steps,
        note: None,
    }
}

impl Route for Pld {
    fn id(&self) -> RouteId {
        RouteId::Pld
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        l.add_remove_only()?;
        match l.first_without(|m| m.pld_term(Direction::Remove).is_some()) {
            None => Ok(()),
            Some(e) => Err(WhyNot(format!(
                "`{}` ({}) has no privacy loss distribution",
                e.name,
                e.mechanism.type_name()
            ))),
        }
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let sets = directions(l);
        Ok(vec![
            Step::new(
                "Proposition 3 / Corollary 24 (each mechanism's PLD: Gaussian N(ρⱼ, 2ρⱼ), ε-RR and Poisson-subsampled Gaussians exactly; Laplace as the one-dimensional pair (Lap(0,b), Lap(Δ,b)), exact in one dimension and the worst case for ℓ1 sensitivity Δ (Zhu–Dong–Wang 2022, cited); ε-DP and (ε, δ)-DP black boxes as (ε, δ)-RR, their worst case)",
                format!("{} distinct terms", sets[0].1.len()),
            ),
            if sets.len() > 1 {
                Step::new("Neighbour directions: only the subsampled Gaussians' PLDs depend on them (the others are symmetric), so the composition is computed for remove and for add; the exact value is the larger, hence upper = max of the uppers, lower = max of the lowers", "")
            } else {
                Step::new("Neighbour directions: every PLD here is symmetric, so one composition serves both", "")
            },
        ])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        Ok(query(l, ("ε", "δ", delta), |t, o| {
            pld_epsilon(t, delta, o)
        }))
    }
    fn delta_at(&self, l: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        let mut o = query(l, ("δ", "ε", epsilon), |t, o| pld_delta(t, epsilon, o));
        o.value = below_one(o.value);
        Ok(o)
    }
    /// One composition per side and direction ([`pld_delta_curve`]): the same grid and values
    /// as [`Route::delta_at`] at each ε. A failed accountant run gives no values (as
    /// `delta_at` gives none).
    fn delta_curve(&self, l: &Ledger, epsilons: &[Rational]) -> Result<Vec<Option<Certified>>> {
        if epsilons.is_empty() {
            return Ok(Vec::new());
        }
        let sets = directions(l);
        let Ok(runs) = on_each_direction(&sets, &audit_options(), |t, o| {
            pld_delta_curve(t, epsilons, o)
        }) else {
            return Ok(vec![None; epsilons.len()]);
        };
        Ok((0..epsilons.len())
            .map(|i| {
                let at: Vec<PldReport> = runs.iter().map(|r| r[i].clone()).collect();
                let value = max_over_directions(&at)
                    .ok()
                    .map(|e| answer(e, l.lower_bounds_hold()));
                below_one(value)
            })
            .collect())
    }
}
