//! Grid choice: validation of the terms, the grid width h, the tail τ and the fixed-point
//! fraction bits F (`Setup`). Only widths and costs depend on these choices, never soundness.
use super::discretise::range;
use super::fixed::{new_ctx, Setup, Side, MAX_F};
use super::mechanisms::{atom_unit, profile, validate_term, Profile};
use super::{PldMechanism, PldOptions, PldTerm};
use crate::validate;
use crate::{Error, Result};
use rug::ops::Pow;
use rug::{Integer, Rational};

/// Smallest tail mass per truncation, as a power of two. The fixed point has at most 126
/// fraction bits (`fixed::MAX_F`), so a τ below 2⁻¹²⁶ truncates one unit (`new_ctx`); one unit
/// per copy, and one per product (the carried rounding, Lemma One-carry), still leave
/// δ = 10⁻³⁰ at 10⁴ copies within 2.5·10⁻⁴ of itself. 2⁻¹⁴⁰ admits δ down to about 10⁻³³ at
/// 10⁴ copies (τ = 10⁻⁴·δ/2k; 10⁻³¹ with the tight preset's 10⁻⁶·δ/2k).
pub(super) const MIN_TAIL_BITS: u32 = 140;

/// Points per mechanism table the automatic grid aims to stay under (about half a second).
pub(super) const TABLE_TARGET: usize = 60_000;

/// The automatic grid is also doubled until the composed support estimate is at most this
/// (measured with the spectral power: MNIST with 10⁷ steps reaches 4.4·10⁵ points in 0.9 s;
/// user-chosen grids keep MAX_SUPPORT).
pub(super) const COMPOSED_TARGET: f64 = 800_000.0;

/// Composed support × squarings below which the automatic grid is refined before any run
/// (`finer_while_cheap`).
pub(super) const CHEAP_WORK: f64 = 131_072.0;

/// Largest composed support (memory guard: ~16 bytes per point, plus the packed integers).
pub(super) const MAX_SUPPORT: usize = 20_000_000;

pub(super) fn setup(
    terms: &[PldTerm],
    opts: &PldOptions,
    delta_hint: Option<&Rational>,
) -> Result<Setup> {
    setup_with(terms, opts, delta_hint, opts.tight)
}

/// [`setup`], the default tail taking [`TIGHT_TAIL_SHARE`] of δ when `fine_tail` (the tight
/// preset; the group chain, which reads each hop's +∞ atom at a fraction of δ amplified by
/// e^{ε} of the hops before it).
pub(super) fn setup_with(
    terms: &[PldTerm],
    opts: &PldOptions,
    delta_hint: Option<&Rational>,
    fine_tail: bool,
) -> Result<Setup> {
    validate::nonempty("terms", terms)?;
    for t in terms {
        validate_term(t)?;
    }
    // the terms as composed: the Gaussians merged (exact), so every grid choice below sees the
    // tables that will be built
    let merged = merge_gaussians(terms);
    let profiles: Vec<Profile> = merged.iter().map(|t| profile(&t.mechanism)).collect();
    let h = match &opts.grid {
        Some(g) => {
            validate::positive("grid", g)?;
            g.clone()
        }
        None => auto_grid(&merged, &profiles),
    };
    let continuous = profiles.iter().any(|p| p.tails.is_some());
    let (tau, f) = resolution(terms, opts, delta_hint, fine_tail, continuous)?;
    let finest = finest_detail(&merged, &profiles);
    let mut h = h;
    if opts.grid.is_none() {
        h = finer_while_cheap(&merged, h, &tau, f, &profiles);
        h = fit_tables(h, &tau, f, &profiles, finest)?;
    }
    let var = composed_variance(&merged, &profiles);
    let mut estimate = composed_estimate(var, h.to_f64());
    // automatic grid: also keep the composed support near COMPOSED_TARGET, so that huge counts
    // (10⁹ steps, a Laplace release repeated 10⁹ times) cost seconds and a wider bracket instead
    // of minutes of squarings of a 10⁷-point grid (the grid is a width choice only)
    // — but not once h exceeds a copy's own detail (e.g. |ln(1 − q)| of a subsampled Gaussian,
    // the width of its unsampled bulk): well beyond it the dominated side moves that mass a whole
    // grid step per copy and the lower bound collapses (q = 10⁻⁴, σ = 0.5, 10⁶ steps: 0 at
    // h = 2.4·10⁻⁴, 3.89 at 1.2·10⁻⁴); past 4× the target support it coarsens all the same
    if opts.grid.is_none() {
        while estimate > COMPOSED_TARGET && estimate.is_finite() {
            if h.to_f64() > finest && estimate <= 4.0 * COMPOSED_TARGET {
                break;
            }
            h *= 2u32;
            estimate = composed_estimate(var, h.to_f64());
        }
    }
    // refuse up front what the support guard would refuse after minutes of work
    if !(estimate <= MAX_SUPPORT as f64) {
        return Err(Error::arg(
            "grid",
            if estimate.is_finite() {
                format!("the composition would need about {estimate:.1e} grid points (at most {MAX_SUPPORT}); use a coarser --grid")
            } else {
                format!("the composition would need more than 1e308 grid points (at most {MAX_SUPPORT}); use a coarser --grid")
            },
        ));
    }
    let mut fft_budget = choose_fft_budget(&merged, delta_hint, continuous);
    if opts.tight {
        // the tight preset's brackets are 25× narrower: a fifth of the widening (q = 0.005,
        // σ = 0.8, 1000 steps, δ = 10⁻⁶: the spectral power's widening took 4·10⁻⁵ of width
        // at the default budget on grids near h/3, 1.3·10⁻⁵ at a fifth)
        fft_budget /= 5u32;
    }
    Ok(Setup {
        h,
        tau,
        f,
        fft_budget,
        terms: merged,
        delta: delta_hint.map_or(0.0, Rational::to_f64),
    })
}

/// The tail τ per truncation ([`choose_tail`], its share of δ [`TIGHT_TAIL_SHARE`] when
/// `fine_tail` or for atoms only, else [`TAIL_SHARE`]) and the fixed-point fraction bits F.
fn resolution(
    terms: &[PldTerm],
    opts: &PldOptions,
    delta_hint: Option<&Rational>,
    fine_tail: bool,
    continuous: bool,
) -> Result<(Rational, u32)> {
    // atoms only: no table to shorten, and brackets ~10⁻¹³ wide, so the fine share
    let share = if fine_tail || !continuous {
        TIGHT_TAIL_SHARE
    } else {
        TAIL_SHARE
    };
    let tau = choose_tail(terms, opts, delta_hint, share)?;
    // rounding to 2^−F costs less than 2^−F per measure and per product (Lemma One-carry): far
    // below τ. With a continuous part (brackets ~10⁻⁴ wide) 2^−F ≤ τ/32 and F ≥ 63, which costs no
    // more: the exact products' slots of probability vectors are 2F + 2 ≤ 128 bits, two limbs
    // (`slot_bits`), where F = 64 needs three; atoms only (brackets ~10⁻¹³ wide, few products)
    // keep 24 guard bits and F ≥ 64
    let (guard, least) = if continuous { (5, 63) } else { (24, 64) };
    let f = ((-tau.to_f64().log2()).ceil() as i64 + guard).clamp(least, i64::from(MAX_F)) as u32;
    Ok((tau, f))
}

/// The share of δ the default truncations may cost: [`TAIL_SHARE`], or [`TIGHT_TAIL_SHARE`]
/// with [`PldOptions::tight`], for atoms-only compositions and for the group chain.
///
/// Why 10⁻⁴: a table reaches out to the loss where its tail falls below τ, and a subsampled
/// Gaussian's right tail is long (q = 0.001, σ = 1: loss 2.5 at τ = 10⁻¹⁸, 1.1 at 10⁻¹⁶, the
/// bulk within 10⁻² of 0), so each factor of 100 in τ cuts the table and the early products by
/// about half: T = 10⁶ steps 0.49–0.56 → 0.37–0.41 s, q = 10⁻⁴, σ = 0.5 at 10⁶ steps 1.83 →
/// 1.21 s, MNIST 0.129 → 0.109 s (2 threads, min of 3, against 10⁻⁶), while the upper ends rose
/// by ≤ 6·10⁻⁶ relative (q = 4096/50000, σ = 10; 5·10⁻⁷ at T = 10⁶), ≤ 2 % of the brackets'
/// widths. The tight preset, whose brackets are 25× narrower, keeps 10⁻⁶, and so do compositions
/// of atoms only (no table to shorten; brackets ~10⁻¹³ wide: 50 steps of 0.1-randomized response
/// at δ = 10⁻³ were 3·10⁻⁹ wide at 10⁻⁴) and the group chain (`group.rs`).
pub(super) const TAIL_SHARE: f64 = 1e-4;

/// [`TAIL_SHARE`] of the tight preset.
pub(super) const TIGHT_TAIL_SHARE: f64 = 1e-6;

/// The tail mass τ per truncation: the user's (in (0, 10⁻³]) or, for ε(δ), a `share` of δ
/// ([`TAIL_SHARE`] or [`TIGHT_TAIL_SHARE`]) over 2Σk truncations; for δ(ε) an absolute 10⁻²⁰
/// (rounded down to a power of ten). At least 2^−MIN_TAIL_BITS.
fn choose_tail(
    terms: &[PldTerm],
    opts: &PldOptions,
    delta_hint: Option<&Rational>,
    share: f64,
) -> Result<Rational> {
    let k_total: f64 = terms.iter().map(|t| t.count.to_f64()).sum();
    let tau = match &opts.tail {
        Some(t) => {
            validate::positive("tail", t)?;
            if *t > Rational::from((1, 1000)) {
                return Err(Error::arg("tail", "must be at most 1/1000"));
            }
            t.clone()
        }
        // ε(δ): truncations may cost a TAIL_SHARE of δ; δ(ε): an absolute 10⁻²⁰
        None => {
            let budget = delta_hint.map(|d| d.to_f64() * share).unwrap_or(1e-20);
            let t = budget / (2.0 * k_total);
            let m = (-t.log10()).ceil().clamp(3.0, 300.0) as u32;
            Rational::from((1, Integer::from(10u32).pow(m)))
        }
    };
    if tau < Rational::from((1, Integer::from(1u32) << MIN_TAIL_BITS)) {
        return Err(Error::arg(
            if opts.tail.is_some() { "tail" } else { "delta" },
            "below the PLD accountant's resolution (tail mass ≥ 2^-140 per truncation); use --method rdp",
        ));
    }
    Ok(tau)
}

/// What one convolution's FFT widening may cost, times the copies of its result in the
/// composition (`Setup::fft_budget`): for ε(δ), a 10⁻³ fraction of δ over the convolutions one
/// side makes (≤ 2·bits(k) + 1 per term; measured: the upper ends move by ≤ 5·10⁻⁶ relative);
/// for δ(ε), 0 (exact products: no δ to measure the cost against); 0 too when no term has a
/// continuous part (atoms only: the grid then holds them exactly, and exact products keep such
/// compositions within ~10⁻¹¹ of the truth, far below that fraction).
fn choose_fft_budget(
    terms: &[PldTerm],
    delta_hint: Option<&Rational>,
    continuous: bool,
) -> Rational {
    let Some(d) = delta_hint.filter(|_| continuous) else {
        return Rational::new();
    };
    let convs: u64 = terms
        .iter()
        .map(|t| 2 * u64::from(t.count.significant_bits()) + 1)
        .sum();
    Rational::from(d / 1000u32) / convs.max(1)
}

/// Automatic grid: doubled until no single mechanism's table exceeds TABLE_TARGET points (a
/// long-tailed copy with a narrow bulk, e.g. q = 10⁻⁴ and σ = 0.5, would otherwise ask for
/// millions).
fn fit_tables(
    mut h: Rational,
    tau: &Rational,
    f: u32,
    profiles: &[Profile],
    finest: f64,
) -> Result<Rational> {
    while h < Rational::from((1, 20)) {
        let widest = widest_table(&h, tau, f, profiles)?;
        // not once h exceeds the copies' own detail (see `setup`), up to 4× the target
        if widest <= TABLE_TARGET || (h.to_f64() > finest && widest <= 4 * TABLE_TARGET) {
            break;
        }
        h *= 2u32;
    }
    Ok(h)
}

/// Points of the widest mechanism table on the grid h (a probe: a profile whose range fails
/// here fails again, with its error, when `tables` builds it).
fn widest_table(h: &Rational, tau: &Rational, f: u32, profiles: &[Profile]) -> Result<usize> {
    let probe = new_ctx(
        &Setup {
            h: h.clone(),
            tau: tau.clone(),
            f,
            fft_budget: Rational::new(),
            terms: vec![],
            delta: 0.0,
        },
        Side::Upper,
        false,
    )?;
    Ok(profiles
        .iter()
        .filter_map(|p| range(p, &probe, probe.tau_f).ok())
        .map(|(a, b)| (b - a) as usize)
        .max()
        .unwrap_or(0))
}

/// The automatic grid divided by the largest integer k ≥ 2 for which the run on h/k stays cheap:
/// composed support estimate × squarings of the longest count at most [`CHEAP_WORK`], and the
/// widest table (k times its points on h) within [`TABLE_TARGET`]: one step, a few Gaussians, a
/// few hundred steps get a narrower bracket for at most a few tenths of a second. An integer
/// divisor keeps atoms that lie on h on the grid. (Halving while cheap, the rule before, left the
/// work anywhere in a factor 2 below the limit, so a finer h₀ could end on a coarser grid: q = 1,
/// σ = 5, 100 steps went from 9·2⁻¹² to 7·2⁻¹¹ when h₀ moved from /24 to /32.) The terms are the
/// merged ones (`setup`). A width choice only.
fn finer_while_cheap(
    terms: &[PldTerm],
    h: Rational,
    tau: &Rational,
    f: u32,
    profiles: &[Profile],
) -> Rational {
    let var = composed_variance(terms, profiles);
    let work = composed_estimate(var, h.to_f64()) * f64::from(squarings(terms));
    // the divisors the work and the finest grid allow (a NaN work allows none)
    let by_work = (CHEAP_WORK / work).min(h.to_f64() / 2e-7).min(1024.0);
    if !(by_work >= 2.0) {
        return h;
    }
    // (a probe that fails only stops the refinement)
    let Ok(w) = widest_table(&h, tau, f, profiles) else {
        return h;
    };
    let by_tables = TABLE_TARGET as f64 / (w.max(1) as f64);
    let k = by_work.min(by_tables).floor();
    if k >= 2.0 {
        h / (k as u32)
    } else {
        h
    }
}

/// The composed loss variance V = Σ count·spread² of the terms (`Profile::spread`; a grid
/// heuristic only).
fn composed_variance(terms: &[PldTerm], profiles: &[Profile]) -> f64 {
    terms
        .iter()
        .zip(profiles)
        .map(|(t, p)| t.count.to_f64() * p.spread * p.spread)
        .sum()
}

/// The significant bits of the longest count (≥ 1): the squarings of its self-composition, a
/// work figure.
pub(super) fn squarings(terms: &[PldTerm]) -> u32 {
    terms
        .iter()
        .map(|t| t.count.significant_bits())
        .max()
        .unwrap_or(1)
        .max(1)
}

/// The composed support estimate: 20 spreads √V of the composition over h.
fn composed_estimate(var: f64, h: f64) -> f64 {
    20.0 * var.sqrt() / h
}

/// Rational gcd of the atoms' losses (so a grid dividing it holds them exactly).
pub(super) fn atom_gcd(terms: &[PldTerm]) -> Option<Rational> {
    let mut g: Option<Rational> = None;
    for t in terms {
        let Some(e) = atom_unit(&t.mechanism) else {
            continue;
        };
        if e == 0 {
            continue;
        }
        g = Some(match g {
            None => e,
            Some(g) => {
                let a = Integer::from(g.numer() * e.denom());
                let b = Integer::from(e.numer() * g.denom());
                Rational::from((a.gcd(&b), Integer::from(g.denom() * e.denom())))
            }
        });
    }
    g
}

/// The finest detail any non-Gaussian copy asks the grid to resolve (`Profile::detail`).
fn finest_detail(terms: &[PldTerm], profiles: &[Profile]) -> f64 {
    terms
        .iter()
        .zip(profiles)
        .filter(|(t, _)| !matches!(t.mechanism, PldMechanism::Gaussian { .. }))
        .map(|(_, p)| p.detail)
        .fold(f64::INFINITY, f64::min)
}

/// Composed support (estimate) up to which the automatic grid aims at 2·10⁻⁴ relative width
/// (h₀ = √(V/n)/32) instead of 3·10⁻⁴ (√(V/n)/24): every setting of the seven (≤ 5·10⁴ points)
/// but not the 10⁶-step runs, whose time is the composition's length (q = 0.001, σ = 1:
/// 2.8·10⁵ → 3.9·10⁵ points, 0.28 → 0.33 s).
const NARROW_SUPPORT: f64 = 131_072.0;

/// How far above h₀ the automatic grid may lie (it is the largest dyadic m·2^e, 8 ≤ m ≤ 15, at
/// most GRID_SLACK·h₀: between 0.96 and 1.1 times h₀).
const GRID_SLACK: f64 = 1.1;

/// Automatic grid: the largest four-bit dyadic m·2^e (8 ≤ m ≤ 15) at most 1.1·h₀, h₀ = √(V/n)/32
/// (√(V/n)/24 where the composed support would exceed [`NARROW_SUPPORT`]), V the composed loss
/// variance and n the number of discretised copies (the Gaussian terms count once: they are
/// merged, see [`merge_gaussians`]); where a quarter of the finest non-Gaussian
/// detail is smaller than √(V/n)/24, the power of two nearest that quarter; refined to divide
/// the atoms' gcd when there are atoms.
///
/// Why √(V/n): rounding one copy's loss to a grid of width h adds about h²/4 to the variance
/// of the composed loss, so the bracket's relative width grows like n·h²/V; measured on the
/// seven DP-SGD settings of `scripts/bench-pld-vs-dp-accounting` it is 0.07–0.18·n·h²/V at
/// h₀ = √(V/n)/24 (3.2–3.5·10⁻⁴), so /32 aims below the 2·10⁻⁴ of issue 29 (measured
/// 0.7·10⁻⁶–1.8·10⁻⁴ on the seven; refinement, see `refined`, catches the rest). The nearest
/// power of two (the rule before the dyadic) was up to √2 off h₀, twice the width. A grid
/// heuristic only.
pub(super) fn auto_grid(terms: &[PldTerm], profiles: &[Profile]) -> Rational {
    let var = composed_variance(terms, profiles);
    // discretised copies: every non-Gaussian copy, and the Gaussians' one merged term
    let (mut n, mut gauss) = (0.0, false);
    for t in terms {
        if matches!(t.mechanism, PldMechanism::Gaussian { .. }) {
            gauss = true;
        } else {
            n += t.count.to_f64();
        }
    }
    let n = (n + f64::from(u8::from(gauss))).max(1.0);
    // the 3·10⁻⁴ aim, and the 2·10⁻⁴ one where its composed support stays small
    let wide = (var / n).sqrt() / 24.0;
    let narrow = wide * 0.75;
    let h0 = if composed_estimate(var, narrow) <= NARROW_SUPPORT {
        narrow
    } else {
        wide
    };
    // each copy's own detail too (a copy much narrower than the grid is smeared over two grid
    // points, an error that then grows with the count; Gaussian copies are merged instead)
    let finest = finest_detail(terms, profiles);
    let target = h0.min(finest / 4.0).clamp(1e-7, 0.05);
    // a dyadic with four significant bits at most GRID_SLACK·target: within 1/8 of it, where
    // the nearest power of two was up to √2 off (the width goes like h²); where a copy's detail
    // sets the grid — the unsampled bulk of a subsampled Gaussian at ln(1 − q) — the nearest
    // power of two: there the bracket depends on where the grid points fall relative to that
    // bulk, and that choice is the measured one
    let dyadic = if wide <= finest / 4.0 {
        let t = target * GRID_SLACK;
        let e = t.log2().floor() as i32;
        let m = (t * (2f64).powi(3 - e)).floor().clamp(8.0, 15.0);
        Rational::from_f64(m * (2f64).powi(e - 3)).unwrap()
    } else {
        let quarter = (finest / 4.0).clamp(1e-7, 0.05);
        Rational::from_f64((2f64).powi(quarter.log2().round() as i32)).unwrap()
    };
    match atom_gcd(terms) {
        // atoms on the grid when that costs at most 8× the points; else they are split/merged
        Some(g) if g.to_f64() >= target / 8.0 => {
            let m = (g.to_f64() / target).ceil().max(1.0);
            Rational::from((g.numer().clone(), g.denom() * Integer::from(m as u64)))
        }
        _ => dyadic,
    }
}

/// Gaussian terms compose exactly (Proposition 3 and Theorem 9: ρ adds up), so all of them are
/// merged into one Gaussian term, which the grid then resolves (discretising each copy and
/// composing them would only add error).
pub(super) fn merge_gaussians(terms: &[PldTerm]) -> Vec<PldTerm> {
    let mut rho = Rational::new();
    let mut out = Vec::new();
    for t in terms {
        match &t.mechanism {
            PldMechanism::Gaussian { rho: r } => {
                rho += Rational::from(r * &t.count);
            }
            _ => out.push(t.clone()),
        }
    }
    if rho > 0 {
        out.push(PldTerm {
            mechanism: PldMechanism::Gaussian { rho },
            count: Integer::from(1),
        });
    }
    out
}

// Expected values are exact rationals worked out by hand from the rules in the doc comments.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::test_util::rational;
    use crate::theorems::pld_accountant::Direction;

    fn term(mechanism: PldMechanism, count: u32) -> PldTerm {
        PldTerm {
            mechanism,
            count: Integer::from(count),
        }
    }
    fn arg_name(e: Error) -> String {
        match e {
            Error::InvalidArgument { name, .. } => name,
            other => panic!("expected an argument error, got {other}"),
        }
    }

    #[test]
    fn atom_gcd_is_the_exact_rational_gcd_of_the_atom_losses() {
        let terms = [
            term(
                PldMechanism::RandomizedResponse {
                    eps: rational("1/2"),
                },
                3,
            ),
            term(
                PldMechanism::Gaussian {
                    rho: rational("1/3"),
                },
                1,
            ),
            term(
                PldMechanism::Laplace {
                    eps: rational("3/4"),
                },
                2,
            ),
            term(
                PldMechanism::ApproxDp {
                    eps: rational("5/6"),
                    delta: rational("1e-9"),
                },
                1,
            ),
            term(PldMechanism::RandomizedResponse { eps: rational("0") }, 1),
        ];
        // 1/2 = 6/12, 3/4 = 9/12, 5/6 = 10/12: gcd(6, 9, 10) = 1; ε = 0 and the Gaussian add nothing
        assert_eq!(atom_gcd(&terms), Some(rational("1/12")));
        assert_eq!(atom_gcd(&terms[1..2]), None);
    }

    /// The rule by hand: one subsampled-Gaussian term has V = T·s², n = T, so h₀ = s/32 while the
    /// support estimate 20·√V/h₀ = 640·√T is ≤ 2¹⁷ (T ≤ 41 943), s/24 beyond, with
    /// s = q·√(e^{1/σ²} − 1) (q = 0.01, σ = 4: s = 2.54·10⁻³; T = 10², 10⁴: h₀ = 7.93·10⁻⁵, 1.1·h₀ =
    /// 11.43·2⁻¹⁷ → 11·2⁻¹⁷; T = 10⁶: h₀ = 1.057·10⁻⁴, 1.1·h₀ = 15.24·2⁻¹⁷ → 15·2⁻¹⁷; the nearest
    /// power of two gave 2⁻¹³, the rule √V/1500 2⁻¹² at T = 10⁴ and 2⁻¹⁵ at 10²); Gaussians count
    /// once (100 copies of ρ = 1/200 merge into ρ = 1/2, loss N(ρ, 2ρ), spread 1: V = 1, n = 1,
    /// h₀ = 1/32, 1.1·h₀ = 8.8·2⁻⁸ → 8/256); mixed with 10 Laplace copies of ε = 1/10 (spread
    /// 1/10): n = 11, V = 1.1, h₀ = √0.1/32 = 0.00988.
    #[test]
    fn auto_grid_resolves_the_spread_per_copy() {
        let sg = |count| {
            term(
                PldMechanism::SubsampledGaussian {
                    sigma: rational("4"),
                    rate: rational("1/100"),
                    direction: Direction::Remove,
                },
                count,
            )
        };
        let grid = |terms: &[PldTerm]| {
            let profiles: Vec<Profile> = terms.iter().map(|t| profile(&t.mechanism)).collect();
            auto_grid(terms, &profiles)
        };
        for (count, h) in [
            (100, "11/131072"),
            (10_000, "11/131072"),
            (1_000_000, "15/131072"),
        ] {
            assert_eq!(grid(&[sg(count)]), rational(h), "{count} steps");
        }
        let g = term(
            PldMechanism::Gaussian {
                rho: rational("1/200"),
            },
            100,
        );
        assert_eq!(grid(std::slice::from_ref(&g)), rational("1/32"));
        let lap = term(
            PldMechanism::Laplace {
                eps: rational("1/10"),
            },
            10,
        );
        // the Laplace atoms at ±1/10 have gcd 1/10 ≥ h₀/8: the grid is 1/(10m), m = ⌈0.1/h₀⌉ = 11
        assert_eq!(grid(&[g, lap]), rational("1/110"));
    }

    #[test]
    fn gaussians_merge_into_one_exact_term() {
        let terms = [
            term(
                PldMechanism::Gaussian {
                    rho: rational("1e-6"),
                },
                1000,
            ),
            term(PldMechanism::Gaussian { rho: rational("1") }, 3),
            term(PldMechanism::RandomizedResponse { eps: rational("1") }, 2),
            term(
                PldMechanism::Gaussian {
                    rho: rational("2e-7"),
                },
                5,
            ),
        ];
        assert_eq!(
            merge_gaussians(&terms),
            vec![
                terms[2].clone(),
                // ρ = 1000·10⁻⁶ + 3·1 + 5·2·10⁻⁷, exactly
                term(
                    PldMechanism::Gaussian {
                        rho: rational("3001001/1000000")
                    },
                    1
                ),
            ]
        );
    }

    #[test]
    fn default_tail_follows_delta_and_refuses_below_the_resolution() {
        let sg = |count| {
            term(
                PldMechanism::SubsampledGaussian {
                    sigma: rational("1"),
                    rate: rational("1/100"),
                    direction: Direction::Remove,
                },
                count,
            )
        };
        let opts = PldOptions::default();
        // δ·10⁻⁴/(2·1000) = 5·10⁻¹³ → 10⁻¹³ (tight: δ·10⁻⁶/2000 → 10⁻¹⁵); δ(ε) queries:
        // 10⁻²⁰/2000 = 5·10⁻²⁴ → 10⁻²⁴
        assert_eq!(
            choose_tail(&[sg(1000)], &opts, Some(&rational("1e-5")), TAIL_SHARE).unwrap(),
            rational("1e-13")
        );
        let tight = PldOptions {
            tight: true,
            ..Default::default()
        };
        let d = rational("1e-5");
        assert_eq!(
            setup(&[sg(1000)], &opts, Some(&d)).unwrap().tau,
            rational("1e-13")
        );
        assert_eq!(
            setup(&[sg(1000)], &tight, Some(&d)).unwrap().tau,
            rational("1e-15")
        );
        assert_eq!(
            setup_with(&[sg(1000)], &opts, Some(&d), true).unwrap().tau,
            rational("1e-15")
        );
        // atoms only (50 steps of randomized response): the fine share, 10⁻³·10⁻⁶/100 → 10⁻¹¹
        let rr = term(
            PldMechanism::RandomizedResponse {
                eps: rational("1/10"),
            },
            50,
        );
        assert_eq!(
            setup(&[rr], &opts, Some(&rational("1e-3"))).unwrap().tau,
            rational("1e-11")
        );
        assert_eq!(
            choose_tail(&[sg(1000)], &opts, None, TAIL_SHARE).unwrap(),
            rational("1e-24")
        );
        // 10⁻³⁰·10⁻⁴/(2·10⁴) = 5·10⁻³⁹ → 10⁻³⁹ ≥ 2⁻¹⁴⁰ (7·10⁻⁴³): taken (issue 13: δ down to
        // 10⁻³⁰); 10⁻³⁰·10⁻⁴/(2·10⁸) < 2⁻¹⁴⁰: refused, naming δ (the default tail) or the
        // user's tail
        assert_eq!(
            choose_tail(&[sg(10_000)], &opts, Some(&rational("1e-30")), TAIL_SHARE).unwrap(),
            rational("1e-39")
        );
        let e = choose_tail(
            &[sg(100_000_000)],
            &opts,
            Some(&rational("1e-30")),
            TAIL_SHARE,
        )
        .unwrap_err();
        assert_eq!(arg_name(e), "delta");
        for bad in ["1e-43", "2/1000", "0", "-1"] {
            let opts = PldOptions {
                tail: Some(rational(bad)),
                ..Default::default()
            };
            let e = choose_tail(&[sg(1)], &opts, Some(&rational("1e-5")), TAIL_SHARE).unwrap_err();
            assert_eq!(arg_name(e), "tail", "tail {bad}");
        }
    }

    #[test]
    fn a_user_grid_is_kept_and_an_oversized_composition_refused_up_front() {
        let g = |count| {
            term(
                PldMechanism::Gaussian {
                    rho: rational("1/2"),
                },
                count,
            )
        };
        let opts = PldOptions {
            grid: Some(rational("1/8")),
            ..Default::default()
        };
        let s = setup(&[g(10)], &opts, Some(&rational("1e-5"))).unwrap();
        assert_eq!(s.h, rational("1/8"));
        // the ten copies merged into one Gaussian, ρ = 10·½ exactly
        assert_eq!(
            s.terms,
            vec![term(PldMechanism::Gaussian { rho: rational("5") }, 1)]
        );
        // 20·√(10⁶·1)/10⁻⁶ ≈ 2·10¹⁰ grid points: refused before any work, naming the grid
        let opts = PldOptions {
            grid: Some(rational("1e-6")),
            ..Default::default()
        };
        let Err(e) = setup(&[g(1_000_000)], &opts, Some(&rational("1e-5"))) else {
            panic!("an oversized composition was accepted")
        };
        assert_eq!(arg_name(e), "grid");
        // the automatic grid is a four-bit dyadic, which a cheap run divides by an integer
        // (`finer_while_cheap`), and divides the atoms' gcd when there are atoms
        let merged = merge_gaussians(&[g(10)]);
        let profiles: Vec<Profile> = merged.iter().map(|t| profile(&t.mechanism)).collect();
        let a = auto_grid(&merged, &profiles);
        assert!(a.denom().is_power_of_two() && *a.numer() <= 15, "h = {a}");
        let s = setup(&[g(10)], &PldOptions::default(), Some(&rational("1e-5"))).unwrap();
        let k = Rational::from(&a / &s.h);
        assert!(k.is_integer() && k >= 2, "h = {} from {a}", s.h);
        let rr = term(
            PldMechanism::RandomizedResponse {
                eps: rational("1/2"),
            },
            100,
        );
        let s = setup(&[rr], &PldOptions::default(), Some(&rational("1e-5"))).unwrap();
        assert!((rational("1/2") / &s.h).is_integer(), "h = {}", s.h);
    }
}
