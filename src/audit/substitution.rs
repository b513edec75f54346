//! The substitution route: a deployment that is one DP-SGD run under substitution neighbours
//! (one example replaced by another), audited by the theorem function `dpcert dpsgd
//! --relation substitution` uses for its sampling — two-sided for Poisson
//! (`dpsgd_substitution_pld_epsilon`: both sides of the dominating pair, which is realised) and
//! fixed-size batches (`dpsgd_fixed_size_pld_epsilon`: realised pairs lower, dominating pair
//! upper; `--method rdp`: WBK19 upper only), an upper
//! bound for shuffled batches (one Gaussian release of sensitivity 2 per pass). Only ε at δ:
//! dpcert has no δ(ε) function for these, so the route says it cannot answer δ(ε).
use super::ledger::{Entry, Ledger, Mechanism};
use super::route::{Outcome, Route, RouteId, Step, WhyNot};
use crate::dpsgd::{self, Accounting, Delta, Relation, Sampling};
use crate::validate::show;
use crate::Result;
use rug::{Integer, Rational};

/// The substitution route.
///
/// # Guarantee
/// Exactly the answer of the equivalent `dpcert dpsgd --relation substitution [--sampling …]`
/// query (the same theorem function, default grid and precision): two-sided for Poisson and
/// fixed-size batches, an upper bound for shuffled batches. Applies only when the ledger is
/// one substitution entry; its steps are `steps × repeat`.
pub struct Substitution;

/// The one substitution entry's (σ, q, steps·repeat, sampling), or why the route does not apply.
fn run(l: &Ledger) -> std::result::Result<(&Entry, Rational, Rational, Integer, Sampling), WhyNot> {
    match &l.entries[..] {
        [e] => match &e.mechanism {
            Mechanism::SubstitutionGaussian { sigma, rate, steps, sampling } => Ok((
                e,
                sigma.clone(),
                rate.clone(),
                Integer::from(steps * &e.repeat),
                *sampling,
            )),
            _ => Err(WhyNot("no entry is accounted under substitution neighbours (relation = \"substitution\"); the other routes account add/remove neighbours".into())),
        },
        _ => Err(WhyNot("it audits a deployment of exactly one substitution entry".into())),
    }
}

/// The run `dpcert dpsgd --relation substitution` would account (default grid, method
/// best); a shuffled run counts its passes as the ledger does.
fn dpsgd_run(l: &Ledger) -> std::result::Result<dpsgd::Run, WhyNot> {
    let (e, sigma, rate, steps, sampling) = run(l)?;
    let invalid = |err: crate::Error| WhyNot(format!("failed: {err}"));
    let mut run = dpsgd::Run::checked(rate, sigma, steps).map_err(invalid)?;
    run.sampling = sampling;
    run.relation = Relation::Substitution;
    run.method = dpsgd::Method::Best;
    if sampling == Sampling::Shuffled {
        run.epochs = Some(Rational::from(e.mechanism.passes() * &e.repeat));
    }
    Ok(run)
}

/// The theorem chain for a sampling, as the route's first step names it.
fn theorem(sampling: Sampling) -> &'static str {
    match sampling {
        Sampling::Poisson => "Poisson sampling, substitution neighbours (`dpsgd_substitution_pld_epsilon`): certified PLD, both sides, of the pair (1−q)N(0,σ²)+qN(1,σ²) ‖ (1−q)N(0,σ²)+qN(−1,σ²), which dominates every step (Schuchardt et al. 2024, Theorem 3.8) and which datasets realise",
        Sampling::FixedSize => dpsgd::route::FIXED_SIZE_THEOREM,
        Sampling::Shuffled => "shuffled batches, substitution neighbours (`shuffled_dpsgd_epsilon`): each pass over the data is one Gaussian release of sensitivity 2 per example, composed exactly (Corollary 10); an upper bound (amplification by shuffling neither claimed nor excluded)",
        // a ledger names no other sampler (`dpsgd::route` refuses the others with substitution)
        _ => "no substitution route for this sampler: `dpsgd::route` refuses it",
    }
}

impl Route for Substitution {
    fn id(&self) -> RouteId {
        RouteId::Substitution
    }
    fn applies(&self, l: &Ledger) -> std::result::Result<(), WhyNot> {
        run(l).map(|_| ())
    }
    fn steps(&self, l: &Ledger) -> Result<Vec<Step>> {
        let Ok((e, sigma, rate, steps, sampling)) = run(l) else {
            return Ok(vec![]);
        };
        Ok(vec![Step::new(
            theorem(sampling),
            format!(
                "`{}`: σ = {}, q = {}, {} steps, {} sampling",
                e.name,
                show(&sigma),
                show(&rate),
                steps,
                sampling.name()
            ),
        )])
    }
    fn epsilon_at(&self, l: &Ledger, delta: &Rational) -> Result<Outcome> {
        let run = match dpsgd_run(l) {
            Ok(run) => run,
            Err(why) => return Ok(Outcome::none(why.0)),
        };
        let acc = Accounting {
            progress: crate::progress::stderr_lines(),
            ..Accounting::default()
        };
        let answer = Delta::new("delta", delta.clone())
            .and_then(|d| dpsgd::epsilon(&run, &d, &acc))
            .and_then(|e| {
                crate::validate::require_finite_upper(e.value.upper(), "dpsgd")?;
                Ok(e.value)
            });
        Ok(match answer {
            Ok(value) => Outcome::of(Some(value)),
            Err(e) => Outcome::none(format!("failed: ε at δ = {}: {e}", show(delta))),
        })
    }
    fn delta_at(&self, _: &Ledger, epsilon: &Rational) -> Result<Outcome> {
        Ok(Outcome::none(format!(
            "this route cannot answer δ at ε = {}: dpcert has no δ(ε) function for DP-SGD under substitution neighbours (ask for ε at a budget δ)",
            show(epsilon)
        )))
    }
}
