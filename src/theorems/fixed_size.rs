//! DP-SGD with fixed-size batches (each step draws B of N without replacement) under
//! substitution (replace-one) neighbours, by Rényi DP: Wang–Balle–Kasiviswanathan 2019
//! (Theorem 9, subsampled RDP without replacement) converted to (ε, δ), an upper bound. The
//! two-sided PLD route is `pld_accountant::dpsgd_fixed_size_pld_epsilon`.
use super::rdp::{eps_from_k, eps_from_k_f64, ln1p_exp, ln_expm1, MAX_ORDER};
use crate::num::{Enclosure, MpfrInterval, Precision, Real};
use crate::validate;
use crate::validated::{Delta, Rate, Sigma, Steps};
use crate::{Error, Result};
use rug::{Float, Integer, Rational};

/// The replace-one L2 sensitivity of the clipped-gradient sum (clipping norm 1: one gradient
/// +g replaced by −g changes the sum by up to 2).
const SENSITIVITY: u32 = 2;

/// Wang–Balle–Kasiviswanathan 2019, Theorem 9, for the Gaussian sum of clipped gradients
/// (replace-one sensitivity 2, so ε(j) = 2j/σ², ε(∞) = ∞) sampled without replacement at
/// γ = B/N, composed `steps` times: ε'(α) at integer order α ≥ 2, an upper bound, also capped
/// by the unsampled Gaussian's 2α/σ² (joint convexity; exact at γ = 1).
///
/// # Guarantee
/// `upper` bounds the RDP of order α of `steps` fixed-size DP-SGD steps under substitution;
/// the enclosure encloses `steps`·min(Theorem 9's bound, 2α/σ²). γ ∈ (0, 1], σ > 0,
/// steps ≥ 1, α ∈ [2, 20000] an integer; errors otherwise.
/// Note: `proofs-notes/fixed_size_gaussian_rdp.md`.
pub fn fixed_size_gaussian_rdp(
    gamma: &Rational,
    sigma: &Rational,
    steps: &Integer,
    alpha: u32,
    prec: Precision,
) -> Result<Enclosure> {
    check(gamma, sigma)?;
    validate::count("steps", steps)?;
    if !(2..=MAX_ORDER).contains(&alpha) {
        return Err(Error::arg(
            "order",
            format!("must be an integer in [2, {MAX_ORDER}], got {alpha}"),
        ));
    }
    let p = prec.fixed_bits()?;
    let k = wor_k::<MpfrInterval>(gamma, sigma, alpha, p);
    let a1 = MpfrInterval::from_int(i64::from(alpha - 1), p);
    Enclosure::from_real(
        &k.div(&a1)
            .mul(&MpfrInterval::from_rational(&Rational::from(steps), p)),
    )
}

fn check(gamma: &Rational, sigma: &Rational) -> Result<()> {
    if *gamma <= 0 || *gamma > 1 {
        return Err(Error::arg(
            "rate",
            format!(
                "the fixed-size sampling ratio B/N must lie in (0, 1], got {}",
                validate::show(gamma)
            ),
        ));
    }
    validate::positive("sigma", sigma)
}

/// (α − 1)·ε'(α) for one step, enclosed: min of
/// ln(1 + γ²C(α,2)·min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + Σ_{j=3}^{α} 2γ^j C(α,j) e^{(j−1)ε(j)})
/// (each term entered in log space, summed by log-sum-exp around a shift m from the largest
/// upper endpoint, exact in MPFR) and the Gaussian's (α − 1)·2α/σ², with ε(j) = 2j/σ².
fn wor_k<R: Real>(gamma: &Rational, sigma: &Rational, alpha: u32, p: u32) -> R {
    let s2 = Rational::from(sigma * sigma);
    let sens2 = Rational::from(SENSITIVITY * SENSITIVITY);
    // (j − 1)·ε(j) = (j − 1)·j·Δ²/(2σ²), exact
    let cgf =
        |j: u32| Rational::from(Integer::from(j) * (j - 1)) * &sens2 / (Rational::from(&s2 * 2u32));
    let gauss = R::from_rational(&cgf(alpha), p);
    if *gamma == 1 {
        return gauss;
    }
    let lg = R::from_rational(gamma, p).ln();
    let ln2 = R::from_int(2, p).ln();
    let e2 = Rational::from(&sens2 / &s2); // ε(2) = 2·Δ²/(2σ²)
    let first = R::from_int(4, p)
        .ln()
        .add(&ln_expm1::<R>(&e2, p))
        .min(&ln2.add(&R::from_rational(&e2, p)));
    let mut binom = Integer::from(alpha); // C(α, 1)
    let mut ells: Vec<R> = Vec::with_capacity(alpha as usize);
    for j in 2..=alpha {
        binom = binom * (alpha - j + 1) / j;
        let base = R::from_rational(&Rational::from(binom.clone()), p)
            .ln()
            .add(&lg.mul(&R::from_int(i64::from(j), p)));
        ells.push(if j == 2 {
            base.add(&first)
        } else {
            base.add(&ln2).add(&R::from_rational(&cgf(j), p))
        });
    }
    let m = ells
        .iter()
        .filter_map(|e| e.endpoints().map(|(_, h)| h))
        .filter(|v| v.is_finite())
        .fold(None::<Float>, |acc, v| match acc {
            Some(a) if a >= v => Some(a),
            _ => Some(v),
        })
        .and_then(|v| v.to_rational())
        .unwrap_or_default();
    let mr = R::from_rational(&m, p);
    let mut sum = R::from_int(0, p);
    for e in &ells {
        sum = sum.add(&e.sub(&mr).exp());
    }
    let k = ln1p_exp(&mr.add(&sum.ln()), m > 0);
    k.min(&gauss)
}

/// f64 model of [`wor_k`] (search only).
fn wor_k_f64(gamma: f64, sigma: f64, alpha: u32) -> f64 {
    let d2 = f64::from(SENSITIVITY * SENSITIVITY);
    let cgf = |j: u32| f64::from(j) * f64::from(j - 1) * d2 / (2.0 * sigma * sigma);
    let gauss = cgf(alpha);
    if gamma >= 1.0 {
        return gauss;
    }
    let lg = gamma.ln();
    let ln2 = std::f64::consts::LN_2;
    let e2 = d2 / (sigma * sigma);
    let first = (4f64.ln() + e2.exp_m1().ln()).min(ln2 + e2);
    let mut lb = f64::from(alpha).ln();
    let mut ells = Vec::with_capacity(alpha as usize);
    for j in 2..=alpha {
        lb += f64::from(alpha - j + 1).ln() - f64::from(j).ln();
        let base = lb + f64::from(j) * lg;
        ells.push(if j == 2 {
            base + first
        } else {
            base + ln2 + cgf(j)
        });
    }
    let m = ells.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let l = m + ells.iter().map(|t| (t - m).exp()).sum::<f64>().ln();
    let k = if l > 0.0 {
        l + (-l).exp().ln_1p()
    } else {
        l.exp().ln_1p()
    };
    k.min(gauss)
}

/// The integer order an f64 search picks (any α ≥ 2 gives a valid bound): every order up to
/// 64, then a geometric ladder (ratio 1.05) to [`MAX_ORDER`], then every integer between the
/// best rung's neighbours.
fn best_wor_order(gamma: f64, sigma: f64, steps: f64, ln_delta: f64) -> u32 {
    let f = |a: u32| {
        let v = eps_from_k_f64(steps * wor_k_f64(gamma, sigma, a), f64::from(a), ln_delta);
        if v.is_nan() {
            f64::INFINITY
        } else {
            v
        }
    };
    let mut ladder: Vec<u32> = (2..=64).collect();
    let mut a = 64f64;
    while a < f64::from(MAX_ORDER) {
        a = (a * 1.05).ceil();
        ladder.push((a as u32).min(MAX_ORDER));
    }
    ladder.dedup();
    let vals: Vec<f64> = ladder.iter().map(|&a| f(a)).collect();
    let i = (0..ladder.len())
        .min_by(|&x, &y| vals[x].total_cmp(&vals[y]))
        .unwrap_or(0);
    let (lo, hi) = (
        ladder[i.saturating_sub(1)],
        ladder[(i + 1).min(ladder.len() - 1)],
    );
    (lo..=hi)
        .min_by(|&x, &y| f(x).total_cmp(&f(y)))
        .unwrap_or(ladder[i])
}

/// DP-SGD with fixed-size batches (B of N drawn without replacement each step, γ = B/N),
/// substitution neighbours, clipping norm 1: an upper bound on ε(δ) by Rényi DP —
/// [`fixed_size_gaussian_rdp`] (WBK19 Theorem 9, sensitivity 2) composed over the steps and
/// converted with Proposition 14's general form at the integer order an f64 search picks (any
/// order is valid). The PLD accountant's two-sided route
/// (`pld_accountant::dpsgd_fixed_size_pld_epsilon`) is much tighter; this one also answers
/// where the PLD accountant cannot run (δ below its resolution).
///
/// # Guarantee
/// The upper end of the returned enclosure is a valid ε at δ; returns it and the order α.
/// γ ∈ (0, 1], σ > 0, steps ≥ 1, δ ∈ (0, 1) by their types.
/// Note: `proofs-notes/dpsgd_fixed_size_rdp_epsilon.md`.
pub fn dpsgd_fixed_size_rdp_epsilon(
    gamma: &Rate,
    sigma: &Sigma,
    steps: &Steps,
    delta: &Delta,
    prec: Precision,
) -> Result<(Enclosure, u32)> {
    // γ ∈ (0, 1], σ > 0, T ≥ 1 and δ ∈ (0, 1) by their types
    let (gamma, sigma, steps, delta): (&Rational, &Rational, &Integer, &Rational) =
        (gamma, sigma, steps, delta);
    let p = prec.fixed_bits()?;
    let ld = crate::search::ln_f64(delta);
    let alpha = best_wor_order(gamma.to_f64(), sigma.to_f64(), steps.to_f64(), ld);
    let k = wor_k::<MpfrInterval>(gamma, sigma, alpha, p)
        .mul(&MpfrInterval::from_rational(&Rational::from(steps), p));
    let up = Enclosure::from_real(&eps_from_k::<MpfrInterval>(
        &k,
        &Rational::from(alpha),
        delta,
        p,
    ))?;
    Ok((up, alpha))
}

/// The float model the order search uses, pinned to the certified formula it copies.
#[cfg(test)]
mod float_model_tests {
    use super::*;
    use crate::num::assert_model_near;

    #[test]
    fn wor_k_f64_matches_wor_k() {
        let rational = |s: &str| crate::num::parse_exact(s).unwrap();
        // rates from one record in a million to the whole dataset; σ from below 1 (the
        // Gaussian's cap binds) to large; orders over the search's ladder
        for (g, s) in [
            ("1e-6", "0.6"),
            ("0.001", "1"),
            ("0.01", "1.1"),
            ("0.25", "4"),
            ("0.9", "0.8"),
            ("1", "2"),
            ("0.01", "300"),
        ] {
            for a in [2u32, 3, 10, 64, 500, 5000] {
                let (gr, sr) = (rational(g), rational(s));
                let cert = wor_k::<MpfrInterval>(&gr, &sr, a, 256);
                let model = wor_k_f64(gr.to_f64(), sr.to_f64(), a);
                let what = format!("K γ={g} σ={s} α={a}");
                assert_model_near(&what, model, &cert, 1e-9, 0.0);
            }
        }
    }
}
