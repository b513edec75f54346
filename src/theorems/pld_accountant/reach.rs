//! Where an FFT product's widening can still reach δ — a float model of the composition used
//! for one *choice* only: whether a squaring may use the FFT (`convolve::fft_masses`). Nothing
//! here enters a certified number: the product is widened by its proven error bound E either
//! way (`proofs-notes/pld_accountant/3-convolve.md`, "Reach-weighted budget").
//!
//! The widening adds up to E at every entry of a product that enters the composition M times.
//! Mass added at loss l changes δ(ε) by at most M·E·Pr[R ≥ ε − l], R the loss of the rest of
//! the composition: mass far below ε stays below it. Summed over the entries this is often
//! 10³–10⁶ times less than the unweighted M·E·n the plain budget charges, which is what keeps
//! the squarings of a 10⁶-step run exact under that budget. The model: R Gaussian with the
//! composition's float mean and variance less the product's own; ε the ε(δ) of the Gaussian
//! pair of the same variance (the CLT value, which sits below the true ε for subsampled
//! Gaussians, whose loss is skewed to the right: T = 10⁶, q = 0.001, σ = 1 5.9 against 6.03).
use super::fixed::{to_f64, GridPld, Target};

/// Upper tail of the standard normal, Pr[N(0, 1) ≥ x], to ~10⁻⁷ relative (the Chebyshev-fitted
/// erfc approximation of Press et al., *Numerical Recipes*, 2nd ed., §6.2, `erfcc`): a float
/// for choices only.
pub(super) fn normal_tail(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = [
        -1.265_512_23,
        1.000_023_68,
        0.374_091_96,
        0.096_784_18,
        -0.186_288_06,
        0.278_868_07,
        -1.135_203_98,
        1.488_515_87,
        -0.822_152_23,
        0.170_872_77,
    ];
    let p = poly.iter().rev().fold(0.0, |acc, &c| c + t * acc);
    let erfc = t * (-z * z + p).exp();
    if x >= 0.0 {
        erfc / 2.0
    } else {
        1.0 - erfc / 2.0
    }
}

/// ε at which the μ-GDP pair (N(0, 1), N(μ, 1)) has δ(ε) = δ, by bisection on
/// δ(ε) = Φ̄(ε/μ − μ/2) − e^ε·Φ̄(ε/μ + μ/2) (decreasing in ε); 0 when δ(0) ≤ δ.
pub(super) fn gdp_epsilon(mu: f64, delta: f64) -> f64 {
    let d = |e: f64| normal_tail(e / mu - mu / 2.0) - e.exp() * normal_tail(e / mu + mu / 2.0);
    if !(mu > 0.0) || d(0.0) <= delta {
        return 0.0;
    }
    let (mut lo, mut hi) = (0.0, mu * mu + 40.0 * mu);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if d(mid) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Float mean and variance of the loss under `g`'s finite masses (loss of index i:
/// `first` + i·h), in loss units.
pub(super) fn loss_moments(g: &GridPld, first: f64, h: f64) -> (f64, f64) {
    let (m, v, _) = loss_cumulants(g, first, h);
    (m, v)
}

/// Float mean, variance and third central moment (the first three cumulants) of the loss under
/// `g`'s finite masses, in loss units.
fn loss_cumulants(g: &GridPld, first: f64, h: f64) -> (f64, f64, f64) {
    let (mut s0, mut s1) = (0.0, 0.0);
    for (i, &m) in g.mass.iter().enumerate() {
        let w = to_f64(m);
        s0 += w;
        s1 += w * i as f64;
    }
    if !(s0 > 0.0) {
        return (first, 0.0, 0.0);
    }
    let mi = s1 / s0;
    let (mut s2, mut s3) = (0.0, 0.0);
    for (i, &m) in g.mass.iter().enumerate() {
        let (w, x) = (to_f64(m), i as f64 - mi);
        s2 += w * x * x;
        s3 += w * x * x * x;
    }
    (first + mi * h, s2 / s0 * h * h, s3 / s0 * h * h * h)
}

/// The composition's model from its one term: `count` copies of `base` (first loss `first`),
/// and the ε(δ) the weights are taken at: the CLT value, lowered by the first Cornish–Fisher
/// term where the loss is skewed to the left (never raised). The weights under-state the reach
/// only where this ε lies above the true one, and a left skew (add/remove's Add direction: the
/// loss bounded above, a long left tail) puts the CLT value above it — for two q = 0.2, σ = 1
/// steps at δ = 10⁻³⁰ far above the true 0.446, so the last product's entries near 0.446 were
/// weighted ≈ 0 and the bracket came out 2·10⁻³ wide. None (no model) where the value lies in
/// the upper half of the way from the mean to the composition's largest finite loss: there the
/// bound on the loss, not a normal tail, shapes δ (64 Laplace steps, ε0 = 0.1, δ = 10⁻²⁰: the
/// CLT value beyond the largest loss 6.4, the bracket 9.5·10⁻² wide against 1.2·10⁻⁵).
pub(super) fn target(base: &GridPld, first: f64, h: f64, count: f64, delta: f64) -> Option<Target> {
    let (m, v, k3) = loss_cumulants(base, first, h);
    // cumulants add under composition
    let (mean, var, k3) = (count * m, count * v, count * k3);
    let mut eps = gdp_epsilon(var.sqrt(), delta);
    if var > 0.0 && k3 < 0.0 {
        let sd = var.sqrt();
        let z = (eps - mean) / sd;
        eps += sd * (z * z - 1.0).max(0.0) * (k3 / (var * sd)) / 6.0;
    }
    let top = base.mass.iter().rposition(|&m| m > 0)?;
    let largest = count * (first + top as f64 * h);
    (eps <= mean + (largest - mean) / 2.0).then_some(Target { eps, mean, var })
}

/// Σ_k Pr[R ≥ ε − l_k] over the n entries l_k = `first` + k·h of a product with loss moments
/// (`mean`, `var`), R the rest of the composition; an over-estimate by blocks of 16 (each block
/// counted at its largest loss, the weight growing with l).
pub(super) fn reach_weight(t: &Target, first: f64, h: f64, n: usize, mean: f64, var: f64) -> f64 {
    let rest_mean = t.mean - mean;
    // the rest's spread, never below a hundredth of the whole's (the last products are nearly
    // the whole composition: their weight is then a step at ε, smoothed)
    let sd = (t.var - var).max(t.var * 1e-4).sqrt();
    if !(sd > 0.0) || !t.eps.is_finite() {
        return n as f64;
    }
    const B: usize = 16;
    let mut w = 0.0;
    let mut k = 0;
    while k < n {
        let top = (k + B).min(n) - 1;
        let l = first + top as f64 * h;
        w += (top + 1 - k) as f64 * normal_tail((t.eps - l - rest_mean) / sd);
        k = top + 1;
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::{
        both_sides, fixed::Setup, grid::setup, query::epsilon_of, Direction, PldMechanism,
        PldOptions, PldTerm,
    };
    use rug::{Float, Integer};

    /// The weights are a float model; where it is wrong (its ε above the true one) they
    /// under-state the reach and the bracket widens (the CI of b48e993: two Add steps at
    /// δ = 10⁻³⁰, 2·10⁻³ wide instead of 4·10⁻⁴). The same run (grid, tail, F) with and without
    /// the model (`Setup::delta` = 0: the plain budget alone) — subsampled Gaussians in both
    /// directions, 2 to 20 000 steps, δ down to 10⁻³⁰, and Laplace, randomized response and
    /// Gaussian terms: the weighted bracket is at most 10⁻⁵ relative wider. Without the
    /// Cornish–Fisher lowering the two-step Add case fails (6.56·10⁻³ against 5.74·10⁻³ on
    /// this first grid).
    #[test]
    fn weights_never_widen_the_bracket_beyond_the_plain_budget() {
        let r = |s: &str| crate::num::parse_exact(s).unwrap();
        let sgm = |q: &str, sigma: &str, direction| PldMechanism::SubsampledGaussian {
            sigma: r(sigma),
            rate: r(q),
            direction,
        };
        let (rm, add) = (Direction::Remove, Direction::Add);
        let cases = [
            (sgm("0.2", "1", rm), 2u32, "1e-30"),
            (sgm("0.2", "1", add), 2, "1e-30"),
            (sgm("0.2", "1", rm), 3, "1e-10"),
            (sgm("0.2", "1", add), 3, "1e-10"),
            (sgm("0.5", "2", rm), 50, "1e-20"),
            (sgm("0.5", "2", add), 50, "1e-20"),
            (sgm("0.05", "0.8", rm), 100, "1e-12"),
            (sgm("0.05", "0.8", add), 100, "1e-12"),
            (sgm("0.01", "1", rm), 1000, "1e-5"),
            (sgm("0.01", "1", add), 1000, "1e-5"),
            (sgm("0.001", "1", rm), 20000, "1e-30"),
            (sgm("0.001", "1", add), 20000, "1e-30"),
            (PldMechanism::Laplace { eps: r("1") }, 2, "1e-30"),
            (PldMechanism::Laplace { eps: r("0.1") }, 64, "1e-12"),
            (PldMechanism::Laplace { eps: r("0.1") }, 64, "1e-20"),
            (PldMechanism::Laplace { eps: r("0.1") }, 1000, "1e-12"),
            (PldMechanism::Laplace { eps: r("1") }, 4000, "1e-12"),
            (
                PldMechanism::RandomizedResponse { eps: r("0.5") },
                2000,
                "1e-12",
            ),
            (sgm("0.2", "1", add), 1000, "1e-12"),
            (sgm("0.05", "2", add), 5000, "1e-10"),
            (PldMechanism::Laplace { eps: r("0.1") }, 300, "1e-12"),
            (
                PldMechanism::RandomizedResponse { eps: r("0.5") },
                16,
                "1e-30",
            ),
            (PldMechanism::Gaussian { rho: r("0.01") }, 1000, "1e-30"),
        ];
        for (mechanism, t, delta) in cases {
            let what = format!("{mechanism:?}, T = {t}, δ = {delta}");
            let terms = [PldTerm {
                mechanism,
                count: Integer::from(t),
            }];
            let d = r(delta);
            let mut s = setup(&terms, &PldOptions::default(), Some(&d)).unwrap();
            let width = |s: &Setup| {
                let (lo, hi, _, _) =
                    both_sides(s, false, |p, c| epsilon_of(p, c, &d), None).unwrap();
                (Float::with_val(64, rug::Rational::from(&hi - &lo)) / Float::with_val(64, &hi))
                    .to_f64()
            };
            let weighted = width(&s);
            s.delta = 0.0;
            let plain = width(&s);
            eprintln!("{what}: width {weighted:e}, plain {plain:e}");
            assert!(
                weighted <= plain + 1e-5,
                "{what}: width {weighted:e}, plain {plain:e}"
            );
        }
    }

    /// The normal tail against MPFR's erfc at 128 bits (a float choice: 10⁻⁶ relative suffices).
    #[test]
    fn normal_tail_matches_mpfr() {
        for x in [-3.0, -0.5, 0.0, 0.7, 2.0, 4.5, 8.0, 12.0] {
            let exact = rug::Float::with_val(128, x / std::f64::consts::SQRT_2).erfc() / 2u32;
            let rel = (normal_tail(x) / exact.to_f64() - 1.0).abs();
            assert!(rel < 1e-6, "x = {x}: relative error {rel}");
        }
    }

    /// ε of μ-GDP at δ against the closed form's defining equation evaluated by MPFR:
    /// δ(ε ± 10⁻⁶) bracket δ.
    #[test]
    fn gdp_epsilon_solves_the_gdp_profile() {
        let delta_at = |mu: f64, e: f64| {
            let tail =
                |x: f64| rug::Float::with_val(128, x / std::f64::consts::SQRT_2).erfc() / 2u32;
            let a = tail(e / mu - mu / 2.0);
            let b = tail(e / mu + mu / 2.0) * rug::Float::with_val(128, e).exp();
            (a - b).to_f64()
        };
        for (mu, delta) in [(1.0, 1e-5), (1.31, 1e-5), (0.5, 1e-10), (3.0, 1e-6)] {
            let e = gdp_epsilon(mu, delta);
            assert!(
                delta_at(mu, e - 1e-6) > delta && delta_at(mu, e + 1e-6) < delta,
                "μ = {mu}"
            );
        }
    }
}
