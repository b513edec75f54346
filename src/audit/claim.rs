//! The verdict on a claim (ε_c, δ_c), from the routes' δ at ε_c: verified by the best upper
//! bound, refuted by the largest lower bound of an exact route, else undecided.
use super::route::RouteId;
use crate::exit;
use crate::num::Certified;
use crate::validate::{plain_decimal, show};
pub use crate::verdict::Verdict;
use rug::Rational;

/// The word `audit` prints for the verdict on a deployment's claim: `verified` (it holds),
/// `refuted` (it fails), `undecided`, or `no-claim` (`None`: the deployment makes none).
pub fn verdict_word(verdict: Option<Verdict>) -> &'static str {
    match verdict {
        Some(Verdict::Holds) => "verified",
        Some(Verdict::Fails) => "refuted",
        Some(Verdict::Undecided) => "undecided",
        None => "no-claim",
    }
}

/// The process exit code of `dpcert audit` (see [`crate::exit`]): refuted 1, undecided 4,
/// verified or no claim 0.
pub fn exit_code(verdict: Option<Verdict>) -> i32 {
    verdict.map_or(exit::OK, Verdict::exit_code)
}

/// The claim, its verdict and the evidence.
#[derive(Clone, Debug)]
pub struct ClaimCheck {
    /// The claimed ε, exactly.
    pub epsilon: Rational,
    /// The claimed δ, exactly.
    pub delta: Rational,
    /// Holds (verified), fails (refuted) or undecided.
    pub verdict: Verdict,
    /// The deciding certified δ at the claimed ε (the best upper bound, or the exact route's
    /// bracket that refutes).
    pub delta_at_claim: Option<Certified>,
    /// The route that decided (or gave the best bound).
    pub route: Option<RouteId>,
    /// One sentence giving the deciding bound against the claim (printed by [`Display`]).
    ///
    /// [`Display`]: std::fmt::Display
    pub explanation: String,
}

/// The report's claim line, e.g. "Claim (2, 1e-6)-DP: REFUTED. the exact δ(ε=2) is at least
/// … > claimed δ = 1e-6" (bounds printed outward, in full).
///
/// ```
/// use dpcert::audit::{audit, Verdict};
/// use dpcert::deploy::Deployment;
/// use dpcert::event::Event;
/// let weekly = Event::gaussian("8")?.self_composed(52)?;
/// let claim = audit(&Deployment::new(weekly).with_claim("2", "1e-6")?)?.claim.unwrap();
/// assert_eq!(claim.verdict, Verdict::Fails);
/// let line = claim.to_string();
/// assert!(line.starts_with("Claim (2, 1e-6)-DP: REFUTED. the exact δ(ε=2) is at least "), "{line}");
/// # Ok::<(), dpcert::Error>(())
/// ```
impl std::fmt::Display for ClaimCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Claim ({}, {})-DP: {}. {}",
            show(&self.epsilon),
            show(&self.delta),
            verdict_word(Some(self.verdict)).to_uppercase(),
            self.explanation
        )
    }
}

/// Decide the claim (ε_c, δ_c) from every route's δ at ε_c and the best of them.
pub(crate) fn check_claim(
    at_claim: &[(RouteId, Option<Certified>)],
    best: Option<(usize, Certified)>,
    ce: &Rational,
    cd: &Rational,
) -> ClaimCheck {
    // the exact route with the largest lower bound
    let exact = at_claim
        .iter()
        .filter_map(|(id, a)| a.as_ref().filter(|a| a.is_two_sided()).map(|a| (*id, a)))
        .fold(None, |m: Option<(RouteId, &Certified)>, x| match m {
            Some(m) if m.1.formula().lower().0 >= x.1.formula().lower().0 => Some(m),
            _ => Some(x),
        });
    let best = best.map(|(i, a)| (at_claim[i].0, a));
    // t* = the exact δ(ε_c): the best upper bound and the exact route's lower bound of it
    let verdict = Verdict::read_off(
        exact.map(|(_, a)| &a.formula().lower().0),
        best.as_ref().map(|(_, a)| &a.upper().0),
        cd,
    );
    let (route, evidence, explanation) = match (verdict, &best, exact) {
        (Verdict::Holds, Some((id, a)), _) => (
            Some(*id),
            Some(a.clone()),
            format!(
                "certified δ(ε={}) ≤ {} ≤ claimed δ = {}",
                show(ce),
                plain_decimal(a.upper().to_decimal()),
                show(cd)
            ),
        ),
        (Verdict::Fails, _, Some((id, a))) => (
            Some(id),
            Some(a.clone()),
            format!(
                "the exact δ(ε={}) is at least {} > claimed δ = {}",
                show(ce),
                plain_decimal(a.formula().lower().to_decimal()),
                show(cd)
            ),
        ),
        (_, Some((id, a)), _) => (
            Some(*id),
            Some(a.clone()),
            format!(
                "best certified δ(ε={}) ∈ [{}, {}] does not separate from claimed δ = {}",
                show(ce),
                a.lower()
                    .map_or_else(|| "unknown".into(), |l| plain_decimal(l.to_decimal())),
                plain_decimal(a.upper().to_decimal()),
                show(cd)
            ),
        ),
        (_, None, _) => (
            None,
            None,
            format!("no route certifies any δ < 1 at ε = {}", show(ce)),
        ),
    };
    ClaimCheck {
        epsilon: ce.clone(),
        delta: cd.clone(),
        verdict,
        delta_at_claim: evidence,
        route,
        explanation,
    }
}

/// Decide the claim (ε_c, δ_c) from a route's certified ε at δ_c (for routes without δ(ε)):
/// verified when its upper end is at most ε_c (the run is (upper, δ_c)-DP, hence (ε_c, δ_c)),
/// refuted when it is two-sided and its lower end exceeds ε_c (the exact ε(δ_c) > ε_c, so
/// δ(ε_c) > δ_c), else undecided. `delta_at_claim` is `None`: the evidence is in ε.
pub(crate) fn check_claim_by_epsilon(
    eps: Option<Certified>,
    id: RouteId,
    ce: &Rational,
    cd: &Rational,
) -> ClaimCheck {
    // t* = the exact ε(δ_c): the route's upper bound, and its lower bound when two-sided
    let verdict = Verdict::read_off(
        eps.as_ref()
            .filter(|a| a.is_two_sided())
            .map(|a| &a.formula().lower().0),
        eps.as_ref().map(|a| &a.upper().0),
        ce,
    );
    let (route, explanation) = match (verdict, &eps) {
        (Verdict::Holds, Some(a)) => (
            Some(id),
            format!(
                "certified ε(δ={}) ≤ {} ≤ claimed ε = {}",
                show(cd),
                plain_decimal(a.upper().to_decimal()),
                show(ce)
            ),
        ),
        (Verdict::Fails, Some(a)) => (
            Some(id),
            format!(
                "the exact ε(δ={}) is at least {} > claimed ε = {}",
                show(cd),
                plain_decimal(a.formula().lower().to_decimal()),
                show(ce)
            ),
        ),
        (_, Some(a)) => (
            Some(id),
            format!(
                "certified ε(δ={}) ∈ [{}, {}] does not separate from claimed ε = {}",
                show(cd),
                a.lower()
                    .map_or_else(|| "unknown".into(), |l| plain_decimal(l.to_decimal())),
                plain_decimal(a.upper().to_decimal()),
                show(ce)
            ),
        ),
        (_, None) => (
            None,
            format!(
                "no route certifies a finite ε at the claimed δ = {}",
                show(cd)
            ),
        ),
    };
    ClaimCheck {
        epsilon: ce.clone(),
        delta: cd.clone(),
        verdict,
        delta_at_claim: None,
        route,
        explanation,
    }
}
