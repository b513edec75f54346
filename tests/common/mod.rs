//! Independent high-precision references (plain MPFR at 1024 bits, round-to-nearest, straight
//! from the formulas — no interval code from the crate) and proptest strategies.
#![allow(dead_code)]
use dpcert::theorems::pld_accountant::PldReport;
use proptest::prelude::*;
use rug::float::Round;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};

pub const REF: u32 = 1024;

pub fn rational(s: &str) -> Rational {
    dpcert::num::parse_exact(s).unwrap()
}
pub fn f(r: &Rational) -> Float {
    Float::with_val(REF, r)
}
/// Φ(x) = erfc(−x/√2)/2.
pub fn phi(x: &Float) -> Float {
    let two = Float::with_val(REF, 2);
    let u = Float::with_val(REF, -x.clone()) / two.sqrt();
    u.erfc() / 2
}
/// Corollary 8: Φ(ρ−ε)/√(2ρ)) − e^ε Φ((−ρ−ε)/√(2ρ)).
pub fn gaussian_delta(rho: &Rational, eps: &Rational) -> Float {
    gaussian_delta_at(rho, &f(eps))
}
/// Corollary 8 at a real ε (a 1024-bit `Float`).
pub fn gaussian_delta_at(rho: &Rational, eps: &Float) -> Float {
    let r = f(rho);
    let s = Float::with_val(REF, &r * 2u32).sqrt();
    let a = Float::with_val(REF, &r - eps) / &s;
    let b = Float::with_val(REF, -r.clone() - eps) / &s;
    phi(&a) - Float::with_val(REF, eps.exp_ref()) * phi(&b)
}
/// ε*(δ) of the Gaussian with zCDP parameter ρ: Corollary 8's δ(ε) is decreasing in ε, so
/// bisection at 1024 bits (0 when δ(0) ≤ δ; else the upper end doubled until δ(b) ≤ δ); returns
/// the upper end, within 2⁻²⁰⁰·b of ε*.
pub fn gaussian_epsilon_star(rho: &Rational, delta: &Rational) -> Float {
    let d = f(delta);
    let (mut a, mut b) = (Float::with_val(REF, 0), Float::with_val(REF, 1));
    if gaussian_delta_at(rho, &a) <= d {
        return a;
    }
    while gaussian_delta_at(rho, &b) > d {
        b *= 2u32;
    }
    for _ in 0..200 {
        let m = Float::with_val(REF, &a + &b) / 2u32;
        if gaussian_delta_at(rho, &m) > d {
            a = m;
        } else {
            b = m;
        }
    }
    b
}
/// Proposition 14 at t: exp(t(t+1)ρ − εt)·tᵗ/(t+1)^{t+1}.
pub fn zcdp_delta_at(rho: &Rational, eps: &Rational, t: &Rational) -> Float {
    let (r, e, t) = (f(rho), f(eps), f(t));
    let t1 = Float::with_val(REF, &t + 1u32);
    let x = Float::with_val(REF, &t * &t1) * r - e * &t;
    let tt = t.clone().pow(&t);
    let t1p = t1.clone().pow(&t1);
    x.exp() * tt / t1p
}
pub fn ln_inv(d: &Rational) -> Float {
    -f(d).ln()
}
/// The enclosure a result carries: of the exact value (two-sided results) or of the bound's
/// formula (upper/lower bounds).
pub trait Formula {
    fn enclosure(&self) -> &dpcert::Enclosure;
}
impl Formula for dpcert::Enclosure {
    fn enclosure(&self) -> &dpcert::Enclosure {
        self
    }
}
impl Formula for dpcert::UpperBound {
    fn enclosure(&self) -> &dpcert::Enclosure {
        self.formula()
    }
}
impl Formula for dpcert::LowerBound {
    fn enclosure(&self) -> &dpcert::Enclosure {
        self.formula()
    }
}

/// Is `x` within [lo, hi] of the enclosure, and is the enclosure relatively tight?
pub fn check(e: &impl Formula, reference: &Float, rel: f64, what: &str) {
    let e = e.enclosure();
    assert!(
        e.lower().as_float() <= reference && reference <= e.upper().as_float(),
        "{what}: reference {} outside [{}, {}]",
        reference.to_string_radix(10, Some(25)),
        e.lower().to_decimal(),
        e.upper().to_decimal()
    );
    let slack = Float::with_val(REF, reference.clone().abs() * rel);
    assert!(
        Float::with_val(REF, e.upper().as_float() - reference) <= slack
            && Float::with_val(REF, reference - e.lower().as_float()) <= slack,
        "{what}: not tight: [{}, {}] vs {}",
        e.lower().to_decimal(),
        e.upper().to_decimal(),
        reference.to_string_radix(10, Some(25))
    );
}
pub fn to_f64_nearest(x: &Float) -> f64 {
    x.to_f64_round(Round::Nearest)
}

/// A random exact rational num/den in [lo, hi], written with few digits (as users do).
pub fn rational_in(lo: f64, hi: f64) -> impl Strategy<Value = Rational> {
    (lo..hi, 1u32..6).prop_map(|(x, digits)| {
        let s = format!("{:.*}", digits as usize, x);
        dpcert::num::parse_exact(&s).unwrap()
    })
}
/// δ = m·10^-k, exact.
pub fn small_delta() -> impl Strategy<Value = Rational> {
    (1u32..10, 1u32..300).prop_map(|(m, k)| dpcert::num::parse_exact(&format!("{m}e-{k}")).unwrap())
}

/// Run the `dpcert` binary: (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    // `option_env!`: this module is also compiled into the library's unit tests, where Cargo
    // sets no binary path; only integration tests call `run`.
    let Some(bin) = option_env!("CARGO_BIN_EXE_dpcert") else {
        panic!("run: the dpcert binary path is set for integration tests only")
    };
    let o = std::process::Command::new(bin).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// `dpcert check FILE --json` on `records` (JSON text, written to a temporary file named after
/// `name`): (exit code, each record's verdict, stdout, stderr).
pub fn check_verdicts(name: &str, records: &str) -> (i32, Vec<String>, String, String) {
    // (std::env::temp_dir: this module is also compiled into the library's unit tests, where
    // CARGO_TARGET_TMPDIR is not set; the file is removed below)
    let path = std::env::temp_dir().join(format!("dpcert-{name}-{}.json", std::process::id()));
    std::fs::write(&path, records).unwrap();
    let (code, out, err) = run(&["check", path.to_str().unwrap(), "--json"]);
    let _ = std::fs::remove_file(&path);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let verdicts = v["result"]["records"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| r["verdict"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default();
    (code, verdicts, out, err)
}

/// δ_opt(ε) = 1 − (1−δ0)^k (1 − Σ_ℓ C(k,ℓ) max(0, e^{(k−ℓ)ε0} − e^{ε+ℓε0})/(1+e^{ε0})^k), at 1024 bits.
pub fn rr_delta(e0: &Rational, d0: &Rational, k: u32, eps: &Rational) -> Float {
    let (e0f, e) = (f(e0), f(eps));
    let mut s = Float::with_val(REF, 0);
    for l in 0..=k {
        let t = Float::with_val(REF, &e0f * (k - l)).exp()
            - Float::with_val(REF, &e + Float::with_val(REF, &e0f * l)).exp();
        if t > 0 {
            s += Float::with_val(REF, Integer::from(Integer::binomial_u(k, l))) * t;
        }
    }
    let rr = s / Float::with_val(REF, e0f.exp() + 1u32).pow(k);
    let keep = Float::with_val(REF, 1 - f(d0)).pow(k);
    1 - keep * (1 - rr)
}

/// Bits to add to a reference's precision so that a sum of terms of magnitude up to `x`
/// keeps 1024 bits after cancellation: the binary exponent of x (0 for |x| < 1).
pub fn extra_bits(x: &Float) -> u32 {
    x.get_exp().map(|e| e.max(0) as u32).unwrap_or(0)
}

/// ln Q(v), Q(v) = P[N(0,1) > v], for v ≥ 0 at `prec` bits (round-to-nearest), by a route
/// other than the crate's: MPFR's erfc while Q(v) is far inside MPFR's range (v ≤ 30 000),
/// else the asymptotic series Q(v) = φ(v)/v·Σₙ (−1)ⁿ(2n−1)!!/v²ⁿ, summed while the terms
/// decrease and stopped below 2^−(prec+16) relative (an alternating series of decreasing
/// terms there: error ≤ the first omitted term).
pub fn ln_q(v: &Float, prec: u32) -> Float {
    assert!(*v >= 0);
    if *v <= 30_000 {
        let two = Float::with_val(prec, 2);
        let e = Float::with_val(prec, v / two.sqrt()).erfc() / 2u32;
        return e.ln();
    }
    let v2 = Float::with_val(prec, v.square_ref());
    let mut term = Float::with_val(prec, 1);
    let mut sum = Float::with_val(prec, 1);
    let stop = Float::with_val(prec, 1) >> (prec as i32 + 16);
    let mut n = 1u32;
    loop {
        let next = Float::with_val(prec, &term * (2 * n - 1)) / &v2;
        if next >= term || next < stop {
            break;
        }
        term = next;
        if n % 2 == 1 {
            sum -= &term;
        } else {
            sum += &term;
        }
        n += 1;
    }
    let two_pi = Float::with_val(prec, rug::float::Constant::Pi) * 2u32;
    -Float::with_val(prec, &v2 / 2u32) - Float::with_val(prec, v * two_pi.sqrt()).ln() + sum.ln()
}

/// Corollary 8 at any magnitude (plain MPFR, round-to-nearest): δ = Φ(a) − exp(ε + ln Q(v)),
/// a = (ρ − ε)/μ, v = (ρ + ε)/μ, μ = √(2ρ); the exponent ε + ln Q(v) is formed as written
/// (no Mills identity). Accurate to about 400 bits: see [`gaussian_delta_wide_bits`].
pub fn gaussian_delta_wide(rho: &Rational, eps: &Rational) -> Float {
    gaussian_delta_wide_bits(rho, eps, 400)
}

/// [`gaussian_delta_wide`] with at least `bits` correct bits: precision starts at `bits` + 112
/// plus what the exponent's cancellation can cost and doubles until the subtraction
/// Φ(a) − … (which cancels almost all bits when ρ is tiny) leaves `bits`:
/// exponent(Φ(a)) − exponent(δ) ≤ prec − bits. Containment checks of enclosures computed at
/// p bits ask for p + 64. An underflowing δ (Φ(a) itself 0 in MPFR's range) comes out as 0.
pub fn gaussian_delta_wide_bits(rho: &Rational, eps: &Rational, bits: u32) -> Float {
    let p0 = 64;
    let (r0, e0) = (Float::with_val(p0, rho), Float::with_val(p0, eps));
    let v0 = Float::with_val(p0, &r0 + &e0) / Float::with_val(p0, &r0 * 2u32).sqrt();
    let mut prec = bits + 112 + extra_bits(&e0).max(2 * extra_bits(&v0)) + 64;
    loop {
        let (d, big_phi) = gaussian_delta_wide_at(rho, eps, prec);
        if big_phi.is_zero() {
            return d;
        }
        let lost = match (big_phi.get_exp(), d.get_exp()) {
            (Some(a), Some(b)) if d > 0 => i64::from(a) - i64::from(b),
            _ => i64::MAX,
        };
        if lost.saturating_add(i64::from(bits)) <= i64::from(prec) {
            return d;
        }
        assert!(prec < 1 << 18, "reference needs more than 2^18 bits");
        prec *= 2;
    }
}

/// (δ, Φ(a)) at `prec` bits.
fn gaussian_delta_wide_at(rho: &Rational, eps: &Rational, prec: u32) -> (Float, Float) {
    let r = Float::with_val(prec, rho);
    let mu = Float::with_val(prec, &r * 2u32).sqrt();
    let a = Float::with_val(prec, Rational::from(rho - eps)) / &mu;
    let v = Float::with_val(prec, Rational::from(rho + eps)) / &mu;
    let big_phi = if a < 0 {
        ln_q(&Float::with_val(prec, -a.clone()), prec).exp()
    } else {
        1 - ln_q(&a, prec).exp()
    };
    let expo = Float::with_val(prec, eps) + ln_q(&v, prec);
    (Float::with_val(prec, &big_phi - expo.exp()), big_phi)
}

/// 2^−(2^29): far below any δ the crate reports as positive (MPFR's least positive number is
/// 2^−(2^30)); a true value below it may be enclosed as [0, tiny].
pub fn tiny() -> Float {
    Float::with_val(64, 1) >> (1i32 << 29)
}

/// m·10^e as an exact rational (e may be far outside the f64 range).
pub fn pow10(m: u32, e: i32) -> Rational {
    dpcert::num::parse_exact(&format!("{m}e{e}")).unwrap()
}

/// A strategy for m·10^e, m ∈ 1..10, e ∈ [lo, hi] (exact; never an f64 literal).
pub fn log_uniform(lo: i32, hi: i32) -> impl Strategy<Value = Rational> {
    (1u32..10, lo..=hi).prop_map(|(m, e)| pow10(m, e))
}

/// ln A_n = ln Σ_k C(n,k)(1−q)^{n−k} q^k exp((k²−k)/(2σ²)) for the Poisson-subsampled Gaussian
/// at an integer order n: exact rational weights, exp at 1024 bits.
pub fn sgm_log_a(qr: &Rational, sigma: &Rational, n: u32) -> Float {
    let mut s = Float::with_val(REF, 0);
    let one_minus_q: Rational = 1 - qr.clone();
    for k in 0..=n {
        let c = Rational::from(Integer::from(Integer::binomial_u(n, k)))
            * one_minus_q.clone().pow(n - k)
            * qr.clone().pow(k);
        let e = Rational::from((Integer::from(k) * k - k, Integer::from(1)))
            / (Rational::from(sigma * sigma) * 2u32);
        s += f(&c) * f(&e).exp();
    }
    s.ln()
}

/// ln A_α at a real order: E_{z~N(0,σ²)}[((1−q) + q·e^{(2z−1)/(2σ²)})^α] by the trapezoidal
/// rule on ±60σ at 1024 bits (exponentially convergent for this smooth Gaussian-decaying
/// integrand).
pub fn sgm_log_a_frac(qr: &Rational, sigma: &Rational, alpha: &Rational) -> Float {
    let (qf, s, a) = (f(qr), f(sigma), f(alpha));
    let h = Float::with_val(REF, &s / 64u32);
    let two_pi = Float::with_val(REF, rug::float::Constant::Pi) * 2u32;
    let norm = Float::with_val(REF, &s * two_pi.sqrt());
    let mut sum = Float::with_val(REF, 0);
    let n = 64 * 60;
    for i in -n..=n {
        let z = Float::with_val(REF, &h * i);
        let dens =
            (-Float::with_val(REF, &z * &z) / (Float::with_val(REF, &s * &s) * 2u32)).exp() / &norm;
        let l = ((Float::with_val(REF, &z * 2u32) - 1u32) / (Float::with_val(REF, &s * &s) * 2u32))
            .exp();
        let x = Float::with_val(REF, 1 - qf.clone()) + Float::with_val(REF, &qf * &l);
        sum += dens * (x.ln() * &a).exp();
    }
    (sum * h).ln()
}

/// An enclosure `[lo, hi]` of the root x* of a non-increasing g with g(x*) = target, checked
/// with the reference g at its endpoints: g(lo) ≥ target ≥ g(hi), and hi − lo ≤ rel·hi.
pub fn check_root_bracket(
    lo: &Float,
    hi: &Float,
    g: impl Fn(&Rational) -> Float,
    target: &Rational,
    rel: f64,
    what: &str,
) {
    let (l, h) = (lo.to_rational().unwrap(), hi.to_rational().unwrap());
    assert!(
        g(&l) >= *target,
        "{what}: reference at the lower end {} is below the target",
        lo
    );
    assert!(
        g(&h) <= *target,
        "{what}: reference at the upper end {} is above the target",
        hi
    );
    let w = Float::with_val(REF, hi - lo);
    assert!(
        w <= Float::with_val(REF, hi * rel),
        "{what}: width {w} above {rel} relative"
    );
}

/// min over u ∈ [a, b] of a unimodal g, by golden-section search at 1024 bits.
pub fn golden_min(g: impl Fn(&Float) -> Float, a: f64, b: f64) -> Float {
    golden_argmin(g, a, b).1
}

/// ln A_α at a real order by the trapezoidal rule at `prec` bits, on [−60σ, α + 60σ] (the
/// integrand's mass sits near z = α when σ is small), step σ/64. Independent of the crate's
/// series and moment expansions.
pub fn sgm_log_a_frac_wide(qr: &Rational, sigma: &Rational, alpha: &Rational, prec: u32) -> Float {
    let fp = |r: &Rational| Float::with_val(prec, r);
    let (qf, s, a) = (fp(qr), fp(sigma), fp(alpha));
    let h = Float::with_val(prec, &s / 64u32);
    let two_pi = Float::with_val(prec, rug::float::Constant::Pi) * 2u32;
    let norm = Float::with_val(prec, &s * two_pi.sqrt());
    let two_s2 = Float::with_val(prec, &s * &s) * 2u32;
    let mut sum = Float::with_val(prec, 0);
    let n = 64 * 60;
    let top = n + (Float::with_val(prec, &a * 64u32) / &s).to_f64().ceil() as i64;
    for i in -n..=top {
        let z = Float::with_val(prec, &h * i);
        let dens = (-Float::with_val(prec, &z * &z) / &two_s2).exp() / &norm;
        let l = ((Float::with_val(prec, &z * 2u32) - 1u32) / &two_s2).exp();
        let x = Float::with_val(prec, 1 - qf.clone()) + Float::with_val(prec, &qf * &l);
        sum += dens * (x.ln() * &a).exp();
    }
    (sum * h).ln()
}

/// ln A_n at an integer order by log-sum-exp of the plain binomial terms (ln C(n,k) from
/// lgamma, at 1024 bits): finite where e^{(k²−k)/(2σ²)} overflows MPFR.
pub fn sgm_log_a_lse(qr: &Rational, sigma: &Rational, n: u32) -> Float {
    let two_s2 = Rational::from(sigma * sigma) * 2u32;
    let (lq, l1q) = (f(qr).ln(), Float::with_val(REF, -f(qr)).ln_1p());
    // lgamma at 256 bits is accurate far beyond the tests' 1e-25 and much faster than at 1024
    let lg = |m: u32| Float::with_val(REF, Float::with_val(256, m + 1).ln_gamma());
    let terms: Vec<Float> = (0..=n)
        .map(|k| {
            let e = f(&(Rational::from((Integer::from(k) * k - k, Integer::from(1))) / &two_s2));
            let mut t = lg(n) - lg(k) - lg(n - k) + e;
            if k > 0 {
                t += Float::with_val(REF, &lq * k);
            }
            if k < n {
                t += Float::with_val(REF, &l1q * (n - k));
            }
            t
        })
        .collect();
    log_sum_exp(&terms)
}

/// ln δ_opt(ε) of k-fold pure ε0-DP composition, at 1024 bits:
/// ln Σ_{ℓ: ε0(k−2ℓ) > ε} C(k,ℓ)(e^{(k−ℓ)ε0} − e^{ε+ℓε0})/(1+e^{ε0})^k, ln C(k,ℓ) from lgamma
/// (usable at k = 10⁵ and δ far below the f64 range). Summed from the atom nearest above ε
/// downwards while the terms matter; the rest is bounded by a geometric series (the ratio
/// ℓ/(k−ℓ+1)·e^{ε0} of consecutive undamped terms is increasing in ℓ) and asserted below
/// 1e-60 of the sum.
pub fn ln_pure_delta(e0: &Rational, k: u32, eps: &Rational) -> Float {
    let (e0f, e) = (f(e0), f(eps));
    let lg = |m: u32| Float::with_val(REF, m + 1).ln_gamma();
    let ln_norm = Float::with_val(REF, e0f.clone().exp() + 1u32).ln() * k;
    // largest ℓ with ε0(k − 2ℓ) > ε
    let edge = (Rational::from(k) - Rational::from(eps / e0)) / 2u32;
    let mut top = edge.clone().ceil().numer().to_i64().unwrap() - 1;
    if top > i64::from(k) {
        top = i64::from(k);
    }
    if top < 0 {
        return Float::with_val(REF, rug::float::Special::NegInfinity);
    }
    let top = top as u32;
    let undamped =
        |l: u32| lg(k) - lg(l) - lg(k - l) + Float::with_val(REF, &e0f * (k - l)) - &ln_norm;
    let mut terms = Vec::new();
    let mut l = top;
    loop {
        let z = Float::with_val(REF, &e0f * (i64::from(k) - 2 * i64::from(l)));
        assert!(z > e);
        let gap = Float::with_val(REF, &e - &z);
        let u = undamped(l);
        terms.push(Float::with_val(
            REF,
            &u + Float::with_val(REF, -gap.exp_m1()).ln(),
        ));
        let best = terms
            .iter()
            .max_by(|a, b| a.partial_cmp(b).unwrap())
            .unwrap();
        if l == 0 || top - l >= 20_000 || (top - l > 10 && u < Float::with_val(REF, best - 160u32))
        {
            break;
        }
        l -= 1;
    }
    let total = log_sum_exp(&terms);
    if l > 0 {
        // remainder Σ_{j<l} ≤ u(l)·ρ/(1−ρ), ρ = l/(k−l+1)·e^{ε0}
        let rho = Float::with_val(REF, l) / (k - l + 1) * e0f.clone().exp();
        assert!(rho < 1, "reference: geometric tail bound needs ρ < 1");
        let rem = undamped(l) + (Float::with_val(REF, &rho / (1 - rho.clone()))).ln();
        assert!(
            rem < Float::with_val(REF, &total - 140u32),
            "reference: tail not negligible"
        );
    }
    total
}

/// ln of Proposition 14's δ_t at a real t (1024 bits): t(t+1)ρ − εt − t·ln(1+1/t) − ln(1+t).
pub fn zcdp_ln_delta_t(rho: &Rational, eps: &Rational, t: &Float) -> Float {
    let t1 = Float::with_val(REF, t + 1u32);
    Float::with_val(REF, t * &t1) * f(rho)
        - Float::with_val(REF, t * f(eps))
        - Float::with_val(REF, t * Float::with_val(REF, t.recip_ref()).ln_1p())
        - t1.ln()
}

/// Proposition 14's ε_t(δ) at a real t (1024 bits), unclamped:
/// (t+1)ρ + (ln(1/δ) − t·ln(1+1/t) − ln(1+t))/t.
pub fn zcdp_eps_t(rho: &Rational, delta: &Rational, t: &Float) -> Float {
    let t1 = Float::with_val(REF, t + 1u32);
    let num = ln_inv(delta)
        - Float::with_val(REF, t * Float::with_val(REF, t.recip_ref()).ln_1p())
        - t1.clone().ln();
    Float::with_val(REF, &t1 * f(rho)) + num / t
}

/// min over u ∈ [a, b] of a unimodal g by golden-section at 1024 bits, returning (argmin, min).
pub fn golden_argmin(g: impl Fn(&Float) -> Float, a: f64, b: f64) -> (Float, Float) {
    let r = (Float::with_val(REF, 5).sqrt() - 1u32) / 2u32;
    let (mut a, mut b) = (Float::with_val(REF, a), Float::with_val(REF, b));
    for _ in 0..400 {
        let d = Float::with_val(REF, &b - &a) * &r;
        let (x1, x2) = (Float::with_val(REF, &b - &d), Float::with_val(REF, &a + &d));
        if g(&x1) < g(&x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    let x = Float::with_val(REF, (a + b) / 2u32);
    let v = g(&x);
    (x, v)
}

/// ln Σ e^{tᵢ} at 1024 bits, shifted by the largest term (non-empty input).
pub fn log_sum_exp(terms: &[Float]) -> Float {
    let m = terms
        .iter()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap()
        .clone();
    let mut s = Float::with_val(REF, 0);
    for t in terms {
        s += Float::with_val(REF, t - &m).exp();
    }
    m + s.ln()
}

/// 12 significant digits, for assertion messages.
pub fn show12(x: &Float) -> String {
    x.to_string_radix(10, Some(12))
}

/// ∫_a^b f by the tanh-sinh rule with step 2^−level (Takahasi–Mori), endpoints approached as
/// b − r(1 − tanh u) with 1 − tanh u = 2/(e^{2u} + 1), so nothing cancels near the ends.
pub fn tanh_sinh(f: &dyn Fn(&Float) -> Float, a: &Float, b: &Float, level: u32) -> Float {
    let p = a.prec();
    let h = Float::with_val(p, 1u32) >> level;
    let r = Float::with_val(p, b - a) / 2u32;
    let c = Float::with_val(p, a + b) / 2u32;
    let hp = Float::with_val(p, rug::float::Constant::Pi) / 2u32;
    let tiny = Float::with_val(p, 1u32) >> (p + 16);
    let mut sum = Float::with_val(p, &hp * f(&c));
    for k in 1u32.. {
        let t = Float::with_val(p, &h * k);
        let u = Float::with_val(p, &hp * t.clone().sinh());
        let w = Float::with_val(p, &hp * t.cosh()) / Float::with_val(p, u.clone().cosh()).square();
        if w < tiny {
            break;
        }
        let d = Float::with_val(p, 2u32) / (Float::with_val(p, u * 2u32).exp() + 1u32);
        let rd = Float::with_val(p, &r * &d);
        let (xl, xr) = (Float::with_val(p, a + &rd), Float::with_val(p, b - &rd));
        sum += w * (f(&xl) + f(&xr));
    }
    sum * h * r
}

/// ∫ over [breaks[0], breaks[last]] in pieces at the breakpoints, each cut into parts no
/// wider than `width`.
pub fn integrate(f: &dyn Fn(&Float) -> Float, breaks: &[Float], width: f64, level: u32) -> Float {
    let p = breaks[0].prec();
    let mut total = Float::with_val(p, 0);
    for w in breaks.windows(2) {
        let len = Float::with_val(p, &w[1] - &w[0]).to_f64();
        if len <= 0.0 {
            continue;
        }
        let parts = (len / width).ceil().max(1.0) as u32;
        for i in 0..parts {
            let a = Float::with_val(p, &w[0] + Float::with_val(p, &w[1] - &w[0]) * i / parts);
            let b = Float::with_val(
                p,
                &w[0] + Float::with_val(p, &w[1] - &w[0]) * (i + 1) / parts,
            );
            total += tanh_sinh(f, &a, &b, level);
        }
    }
    total
}

/// The value at step 2⁻⁶ and at 2⁻⁵; asserts they agree to `tol` (the rule converges
/// double-exponentially: halving the step roughly squares the error, so the difference bounds
/// the error of the finer one generously).
pub fn quad(
    f: &dyn Fn(&Float) -> Float,
    breaks: &[Float],
    width: f64,
    tol: f64,
    what: &str,
) -> Float {
    let (a, b) = (
        integrate(f, breaks, width, 5),
        integrate(f, breaks, width, 6),
    );
    let diff = Float::with_val(a.prec(), &a - &b).abs();
    assert!(
        diff < tol,
        "{what}: quadrature not converged, steps 2⁻⁵/2⁻⁶ differ by {}",
        show12(&diff)
    );
    b
}

/// lower ≤ reference ≤ upper and upper − lower ≤ rel·reference + abs, in one place.
pub fn contains(r: &PldReport, reference: &Float, rel: f64, abs: f64, what: &str) {
    let (l, h) = (
        r.enclosure.lower().as_float(),
        r.enclosure.upper().as_float(),
    );
    assert!(
        l <= reference && reference <= h,
        "{what}: reference {} outside [{}, {}]",
        show12(reference),
        show12(l),
        show12(h)
    );
    let w = Float::with_val(REF, h - l);
    assert!(
        w <= Float::with_val(REF, reference * rel) + abs,
        "{what}: bracket [{}, {}] wider than {rel:e}·{} + {abs:e}",
        show12(l),
        show12(h),
        show12(reference)
    );
}

/// The shipped JSON schema `schema/dpcert-1.schema.json`, checked to be a valid draft 2020-12
/// schema, as a validator.
pub fn schema_validator() -> jsonschema::Validator {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/dpcert-1.schema.json");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        jsonschema::meta::is_valid(&s),
        "the schema is not a valid draft 2020-12 schema"
    );
    jsonschema::draft202012::new(&s).unwrap()
}

/// Every way `x` breaks the schema, with where (empty when it validates).
pub fn schema_errors(v: &jsonschema::Validator, x: &serde_json::Value) -> Vec<String> {
    v.iter_errors(x)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// The typed values the DP-SGD theorem functions take (`dpcert::validated`), from exact values;
/// panics outside their domains (the tests pass valid values).
pub mod typed {
    use dpcert::validated::{Delta, Rate, Sigma, Steps};
    use rug::{Integer, Rational};

    pub fn rate(q: &Rational) -> Rate {
        Rate::new("rate", q.clone()).unwrap()
    }
    pub fn sigma(s: &Rational) -> Sigma {
        Sigma::new("sigma", s.clone()).unwrap()
    }
    pub fn steps(t: &Integer) -> Steps {
        Steps::new("steps", t.clone()).unwrap()
    }
    pub fn delta(d: &Rational) -> Delta {
        Delta::new("delta", d.clone()).unwrap()
    }
}
