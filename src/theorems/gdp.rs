//! Gaussian differential privacy (Dong, Roth & Su 2022, Definition 2.6): a mechanism is μ-GDP
//! when every pair of neighbouring outputs is at least as hard to distinguish as N(0, 1) from
//! N(μ, 1), i.e. its tradeoff function is ≥ G_μ(α) = Φ(Φ⁻¹(1 − α) − μ).
use super::pld::GaussianPld;
use crate::num::{
    certify, Arithmetic, Enclosure, F64Interval, MpfrInterval, Precision, Real, DEFAULT_PREC,
};
use crate::validate;
use crate::{Error, Result};
use rug::float::Round;
use rug::{Float, Integer, Rational};

/// The exact μ of a Gaussian mechanism or composition: μ = √(2ρ) = √(Σⱼ Kⱼ·Δⱼ²/σⱼ²)
/// (for one mechanism, Δ√K/σ), with ρ from [`super::gaussian::gaussian_composition`].
///
/// # Guarantee
/// Encloses μ two-sided: the composition is μ-GDP and, for no μ′ < μ, μ′-GDP (Dong–Roth–Su
/// 2022, Theorem 2.7 and Corollary 3.3). Errors unless ρ > 0. Note: `proofs-notes/gaussian_gdp.md`.
pub fn gaussian_gdp(pld: &GaussianPld, prec: Precision) -> Result<Enclosure> {
    validate::positive("rho", &pld.rho)?;
    let two_rho = Rational::from(&pld.rho * 2u32);
    certify(
        prec,
        || F64Interval::from_rational(&two_rho, 53).sqrt(),
        |p| MpfrInterval::from_rational(&two_rho, p).sqrt(),
    )
}

/// Relative gap 2⁻ᵍ between [`dpsgd_gdp`]'s two ends under `Precision::Auto` (under `Bits(p)`
/// it is 2^−(p − 8), at least 2⁻⁸).
pub const DPSGD_GDP_GAP_BITS: u32 = 40;

/// Largest working precision [`DpsgdGdp::with_gap`] uses to verify its lower end's witness;
/// beyond it (T·ln(1/q) above about 2^65000) the lower end falls back to 0.
const MAX_WITNESS_PREC: u32 = 1 << 16;

/// DP-SGD's μ-GDP bracket ([`dpsgd_gdp`]) with the witness of its lower end.
#[derive(Clone, Debug)]
pub struct DpsgdGdp {
    /// `lower ≤ μ* ≤ upper`, μ* = inf{μ : DP-SGD is μ-GDP}.
    pub mu: Enclosure,
    /// The test certifying the lower end (q < 1): `None` when q = 1 (the lower end is then the
    /// lower end of √T/σ itself) or when no witness was verified (the lower end is then 0).
    pub witness: Option<GdpWitness>,
}

/// A certificate that DP-SGD is not μ-GDP: the test "reject when Σₜ xₜ > z·σ√T" of the
/// T-step worst-case pair has q^T·Φ̄(z − √T/σ) > Φ̄(z − μ) (a TPR above 1 − G_μ(FPR)).
#[derive(Clone, Debug)]
pub struct GdpWitness {
    /// The μ refuted, exactly (equal to the enclosure's lower end).
    pub mu: Rational,
    /// The threshold z, in standard deviations of Σₜ xₜ under the null (FPR = Φ̄(z)).
    pub z: Rational,
}

/// μ* = inf{μ : DP-SGD is μ-GDP} for DP-SGD with Poisson rate q, noise multiplier σ,
/// sensitivity 1, `steps` = T steps, add/remove neighbours: μ* = √T/σ exactly (subsampling
/// gives no GDP amplification at finite T).
///
/// # Guarantee
/// `mu` is two-sided: DP-SGD is `upper`-GDP (each step is (1/σ)-GDP, Dong–Roth–Su 2022
/// Corollary 3.3 composes), and for q < 1 it is not μ-GDP for μ = `lower` (so for no μ ≤
/// `lower`), by the verified `witness`; for q = 1 the bracket is √T/σ's own enclosure. The
/// two ends are a relative 2⁻⁴⁰ apart under `Auto` (2^−(p−8) under `Bits(p)`). Errors unless
/// q ∈ (0, 1] (`"rate"`), σ > 0 (`"sigma"`), T ≥ 1 (`"steps"`). Note: `proofs-notes/dpsgd_gdp.md`.
pub fn dpsgd_gdp(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    prec: Precision,
) -> Result<DpsgdGdp> {
    let bits = match prec {
        Precision::Auto => DPSGD_GDP_GAP_BITS,
        Precision::Bits(p) => p.saturating_sub(8).max(8),
    };
    DpsgdGdp::with_gap(rate, sigma, steps, &(Rational::from(1) >> bits), prec)
}

impl DpsgdGdp {
    /// [`dpsgd_gdp`] with the lower end aimed at a relative `gap` ∈ (0, 1) below √T/σ's lower
    /// end (for tests that re-check a witness at a moderate z).
    #[doc(hidden)]
    pub fn with_gap(
        rate: &Rational,
        sigma: &Rational,
        steps: &Integer,
        gap: &Rational,
        prec: Precision,
    ) -> Result<DpsgdGdp> {
        validate::unit_rate("rate", rate)?;
        validate::positive("sigma", sigma)?;
        validate::count("steps", steps)?;
        if *gap <= 0 || *gap >= 1 {
            return Err(Error::arg(
                "gap",
                format!("must lie in (0, 1), got {}", validate::show(gap)),
            ));
        }
        // a = √T/σ, both ends
        let a2 = Rational::from(steps) / Rational::from(sigma * sigma);
        let a = certify(
            prec,
            || F64Interval::from_rational(&a2, 53).sqrt(),
            |p| MpfrInterval::from_rational(&a2, p).sqrt(),
        )?;
        if *rate == 1 {
            // T Gaussian steps: exactly a-GDP and no less (gaussian_gdp.md)
            return Ok(DpsgdGdp {
                mu: a,
                witness: None,
            });
        }
        let a_lo = a.lower().to_float();
        let a_lo_q = a_lo
            .to_rational()
            .ok_or_else(|| Error::Numerical("√T/σ overflowed the arithmetic's range".into()))?;
        let mut g = gap.clone();
        for _ in 0..5 {
            if g >= 1 {
                break;
            }
            if let Some((mu, z, wp)) = refute_below(&a_lo_q, &g, rate, steps, a_lo.prec()) {
                // exact: μ_L is a float of this precision
                let lo = Float::with_val_round(a_lo.prec() + 64, &mu, Round::Down).0;
                let hi = a.upper().to_float();
                return Ok(DpsgdGdp {
                    mu: Enclosure::new(lo, hi, Arithmetic::Mpfr(wp))?,
                    witness: Some(GdpWitness { mu, z }),
                });
            }
            g *= 2u32;
        }
        // no witness verified (not expected): the trivial lower end μ* ≥ 0
        Ok(DpsgdGdp {
            mu: a.with_endpoints(Float::with_val(53, 0), a.upper().to_float())?,
            witness: None,
        })
    }
}

/// A μ_L ≈ a_lo·(1 − g) (a `Float` of `a_prec` + 64 bits, rounded down, returned exactly) and
/// a threshold z with q^T·Φ̄(z − a) > Φ̄(z − μ_L) for every a ≥ a_lo, verified by Gordon's
/// Mills-ratio bounds in MPFR intervals (`None` if the check fails). Also the working precision.
fn refute_below(
    a_lo: &Rational,
    g: &Rational,
    rate: &Rational,
    steps: &Integer,
    a_prec: u32,
) -> Option<(Rational, Rational, u32)> {
    let mu_prec = a_prec + 64;
    let mu = Float::with_val_round(mu_prec, a_lo * Rational::from(1 - g), Round::Down)
        .0
        .to_rational()?;
    let eta = Rational::from(a_lo - &mu);
    if eta <= 0 {
        return None;
    }
    // where to evaluate (a float choice; only the check below is certified):
    // w ≈ (T·ln(1/q) + 1)/η + 1 makes η·w exceed T·ln(1/q) by about 1
    // (computed with log₂ L + 64 bits, so that w's rounding moves η·w by far less than 1)
    let l_at = |p: u32| -Float::with_val(p, rate).ln() * Float::with_val(p, steps);
    // T·ln q and η·w cancel to O(1): carry log₂(T·ln(1/q)) more bits than the base
    let extra = u32::try_from(l_at(64).get_exp().unwrap_or(0).max(0)).ok()?;
    let cp = extra.checked_add(64)?;
    let w = ((l_at(cp) + 1u32) / Float::with_val(cp, &eta) + 1u32).to_rational()?;
    let w = w.max(Rational::from(1));
    let wp = a_prec
        .max(DEFAULT_PREC)
        .checked_add(extra)?
        .checked_add(64)?;
    if wp > MAX_WITNESS_PREC {
        return None;
    }
    // S = T·ln q + η·w + η²/2 + ln(1 + (η·w − 1)/(w² + 1)) > 0
    //   ⇔ q^T·(w/(w²+1))·φ(w) > φ(w + η)/(w + η)  (Gordon: ⇒ q^T·Φ̄(w) > Φ̄(w + η))
    let ew = Rational::from(&eta * &w);
    let exact = &ew + Rational::from(&eta * &eta) / 2u32;
    let x = Rational::from(&ew - 1u32) / (Rational::from(&w * &w) + 1u32);
    let s = MpfrInterval::from_rational(&Rational::from(steps), wp)
        .mul(&MpfrInterval::from_rational(rate, wp).ln())
        .add(&MpfrInterval::from_rational(&exact, wp))
        .add(&MpfrInterval::from_rational(&x, wp).ln1p());
    if *s.lo() > 0 {
        Some((mu, Rational::from(a_lo + &w), wp))
    } else {
        None
    }
}
