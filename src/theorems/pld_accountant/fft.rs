//! Floating-point FFT convolution of non-negative vectors with a proven bound on the error of
//! every output entry (`proofs-notes/pld_epsilon.md`, Lemma FFT-bound). Round-to-nearest `f64` computes
//! an *estimate* ĉ; the certified statement is |ĉ_k − c_k| ≤ E for the exact convolution c of the
//! f64 inputs, with E from the norms of the inputs (`error_bound`). The caller widens every entry
//! by E (and by the inputs' conversion error) in its side's direction.
use rug::float::Constant;
use rug::Float;
use std::cell::RefCell;
use std::sync::OnceLock;

/// Unit roundoff of f64, 2^−53.
const U: f64 = 1.0 / 9_007_199_254_740_992.0;

/// A complex number in f64 (an FFT value; rounding bounded in the error lemmas, not here).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Complex {
    pub(super) re: f64,
    pub(super) im: f64,
}

impl Complex {
    fn mul(self, o: Complex) -> Complex {
        Complex {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
}

/// e^{−2πik/2^t} rounded to nearest f64 from MPFR at 128 bits: the angle −2πk/2^t is π at
/// 128 bits times the exact dyadic 2k/2^t (error < 2^−124), so each part is within u.
fn mpfr_twiddle(k: usize, t: u32) -> Complex {
    let mut a = Float::with_val(128, Constant::Pi);
    a *= 2u32;
    a *= k as u64;
    a >>= t;
    let (s, c) = a.sin_cos(Float::new(128));
    Complex {
        re: c.to_f64(),
        im: -s.to_f64(),
    }
}

/// The two-level tables of [`twiddles`] for length 2^t: k = hi·L + lo with L = 2^⌈t/2⌉, the
/// low table e^{−2πik/2^t} for k < L and the high one for k = jL (each [`mpfr_twiddle`]). For
/// t = 16 (the length every transform up to 2^16 uses) they are read from
/// `twiddle_table.rs`, which `tests::twiddle_table_is_mpfr` checks against [`mpfr_twiddle`].
fn twiddle_levels(t: u32) -> (Vec<Complex>, Vec<Complex>) {
    let half = (1usize << t) / 2;
    let l = 1usize << t.div_ceil(2);
    let (n_lo, n_hi) = (l.min(half.max(1)), half.div_ceil(l).max(1));
    if t == 16 {
        let c = |&(re, im): &(f64, f64)| Complex { re, im };
        return (
            super::twiddle_table::LO16.iter().map(c).collect(),
            super::twiddle_table::HI16.iter().map(c).collect(),
        );
    }
    (
        (0..n_lo).map(|k| mpfr_twiddle(k, t)).collect(),
        (0..n_hi).map(|j| mpfr_twiddle(j * l, t)).collect(),
    )
}

/// e^{−2πi·k/n} for n = 2^t, k < n/2, each within µ = 5u of the exact value (two-level: the
/// products of two MPFR-derived tables, [`twiddle_levels`]), written to `re` and `im`.
fn twiddles_into(t: u32, re: &mut [f64], im: &mut [f64]) {
    // k = hi·L + lo; each table entry within u (MPFR at 128 bits, rounded to nearest f64)
    let l_bits = t.div_ceil(2);
    let l = 1usize << l_bits;
    let (lo, hi) = twiddle_levels(t);
    for (k, (r, i)) in re.iter_mut().zip(im.iter_mut()).enumerate() {
        let (kh, kl) = (k >> l_bits, k & (l - 1));
        let w = if kh == 0 {
            lo[kl]
        } else if kl == 0 {
            hi[kh]
        } else {
            hi[kh].mul(lo[kl])
        };
        (*r, *i) = (w.re, w.im);
    }
}

/// The twiddles of every stage of a transform of length 2^t, contiguous per stage: the stage
/// of half-length h (butterflies x_k, x_{k+h}) uses e^{−2πik/(2h)} = w_{k·2^{T−1}/h}, k < h,
/// stored at offset h − 1 (real and imaginary parts apart), where w_j (j < 2^{T−1}) are the
/// twiddles of length 2^T ([`twiddles_into`], the top stage's own entries) and T = max(t, 16) —
/// a stage's twiddles depend on h only, so the table for T = 16 serves every t ≤ 16 (its prefix).
/// Copies of the table's values (so within µ of the exact ones). Built once per T (a thread
/// asking while another builds it waits: both used to build it, ~0.4 ms and 1.5 MiB of fresh
/// pages each); T is a function of t alone, so every transform of a given length uses the same
/// values whatever ran before (a result never depends on the process's history). 2^T·16 bytes each.
fn stage_twiddles(t: u32) -> &'static (Vec<f64>, Vec<f64>) {
    static CACHE: [OnceLock<(Vec<f64>, Vec<f64>)>; 64] = [const { OnceLock::new() }; 64];
    let big = t.max(16);
    CACHE[big as usize].get_or_init(|| {
        let n = 1usize << big;
        let (mut wr, mut wi) = (vec![0.0; n], vec![0.0; n]);
        let top = n / 2 - 1;
        {
            let (tr, ti) = (&mut wr[top..n - 1], &mut wi[top..n - 1]);
            twiddles_into(big, tr, ti);
        }
        let mut h = 1;
        while h < n / 2 {
            let stride = n / 2 / h;
            for k in 0..h {
                wr[h - 1 + k] = wr[top + k * stride];
                wi[h - 1 + k] = wi[top + k * stride];
            }
            h <<= 1;
        }
        (wr, wi)
    })
}

/// The stages of a radix-2 transform of length 2^t in place, of half-lengths `hs` in order:
/// each block of 2h splits into halves x, y and `fly` combines them with the stage's twiddles
/// e^{−2πik/(2h)}, k < h ([`stage_twiddles`]); at h = 1 the twiddle is 1 and the butterfly is
/// the plain (x + y, x − y) for both directions.
fn stages(
    re: &mut [f64],
    im: &mut [f64],
    t: u32,
    hs: impl Iterator<Item = usize>,
    fly: impl Fn(&mut [f64], &mut [f64], &mut [f64], &mut [f64], &[f64], &[f64]),
) {
    let n = re.len();
    debug_assert!(n == 1usize << t && im.len() == n);
    let w = stage_twiddles(t);
    for h in hs {
        let (wr, wi) = (&w.0[h - 1..2 * h - 1], &w.1[h - 1..2 * h - 1]);
        for (br, bi) in re.chunks_exact_mut(2 * h).zip(im.chunks_exact_mut(2 * h)) {
            let (xr, yr) = br.split_at_mut(h);
            let (xi, yi) = bi.split_at_mut(h);
            if h == 1 {
                let (ar, ai, cr, ci) = (xr[0], xi[0], yr[0], yi[0]);
                xr[0] = ar + cr;
                xi[0] = ai + ci;
                yr[0] = ar - cr;
                yi[0] = ai - ci;
            } else {
                fly(xr, xi, yr, yi, wr, wi);
            }
        }
    }
}

/// Forward transform of length 2^t in place, radix-2 decimation in frequency: natural order
/// in, X_k = Σ_j x_j e^{−2πi jk/n} out at the bit-reversed index of k. Stages of half-length
/// h = n/2, …, 1; a butterfly (a, b) ↦ (a + b, (a − b)·w) in round-to-nearest f64 (real and
/// imaginary parts held apart so the butterflies vectorise; the complex product rounded as
/// (p_r w_r − p_i w_i, p_r w_i + p_i w_r); w = 1 at h = 1: plain differences).
fn forward(re: &mut [f64], im: &mut [f64], t: u32) {
    stages(
        re,
        im,
        t,
        (0..t).rev().map(|s| 1usize << s),
        dif_butterflies,
    );
}

/// x, y ← x + y, (x − y)·w elementwise (all slices of one length).
#[inline(always)]
fn dif_butterflies(
    xr: &mut [f64],
    xi: &mut [f64],
    yr: &mut [f64],
    yi: &mut [f64],
    wr: &[f64],
    wi: &[f64],
) {
    let h = xr.len();
    let (xi, yr, yi, wr, wi) = (&mut xi[..h], &mut yr[..h], &mut yi[..h], &wr[..h], &wi[..h]);
    for k in 0..h {
        let (ar, ai, br, bi) = (xr[k], xi[k], yr[k], yi[k]);
        xr[k] = ar + br;
        xi[k] = ai + bi;
        let (pr, pi) = (ar - br, ai - bi);
        let (cr, ci) = (wr[k], wi[k]);
        yr[k] = pr * cr - pi * ci;
        yi[k] = pr * ci + pi * cr;
    }
}

/// Unnormalised inverse transform of length 2^t in place, radix-2 decimation in time, taking
/// its input in the bit-reversed order [`forward`] leaves (so neither transform permutes):
/// out_j = Σ_k V_k e^{+2πi jk/n} in natural order. Stages of half-length h = 1, …, n/2; a
/// butterfly (a, b) ↦ (a + b·w̄, a − b·w̄), the product rounded as in [`forward`] (conjugate
/// twiddles: negating a part is exact; w = 1 at h = 1: plain sums).
fn inverse(re: &mut [f64], im: &mut [f64], t: u32) {
    stages(re, im, t, (0..t).map(|s| 1usize << s), dit_butterflies);
}

/// x, y ← x + w̄·y, x − w̄·y elementwise (all slices of one length).
#[inline(always)]
fn dit_butterflies(
    xr: &mut [f64],
    xi: &mut [f64],
    yr: &mut [f64],
    yi: &mut [f64],
    wr: &[f64],
    wi: &[f64],
) {
    let h = xr.len();
    let (xi, yr, yi, wr, wi) = (&mut xi[..h], &mut yr[..h], &mut yi[..h], &wr[..h], &wi[..h]);
    for k in 0..h {
        let (br, bi) = (yr[k], yi[k]);
        let (cr, ci) = (wr[k], -wi[k]);
        let vr = br * cr - bi * ci;
        let vi = br * ci + bi * cr;
        let (ar, ai) = (xr[k], xi[k]);
        xr[k] = ar + vr;
        xi[k] = ai + vi;
        yr[k] = ar - vr;
        yi[k] = ai - vi;
    }
}

thread_local! {
    /// Transform buffers kept for the next transform on this thread (fresh ones of this size
    /// come from the kernel zeroed page by page: a seventh of a small run's time was page faults).
    static POOL: RefCell<Vec<Vec<f64>>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of n zeros, from [`POOL`] when one is there.
pub(super) fn zeros(n: usize) -> Vec<f64> {
    let mut v = POOL.with(|p| p.borrow_mut().pop()).unwrap_or_default();
    v.clear();
    v.resize(n, 0.0);
    v
}

/// Return a buffer to [`POOL`] (at most four per thread, each at most 2^21 entries: 16 MiB).
pub(super) fn recycle(v: Vec<f64>) {
    if v.capacity() <= 1 << 21 {
        POOL.with(|p| {
            let mut p = p.borrow_mut();
            if p.len() < 4 {
                p.push(v);
            }
        });
    }
}

/// v zero-padded to 2^t and transformed by [`forward`] (bit-reversed order, real and imaginary
/// parts apart, buffers from the pool).
fn spectrum(v: &[f64], t: u32) -> (Vec<f64>, Vec<f64>) {
    let n = 1usize << t;
    let mut re = zeros(n);
    re[..v.len()].copy_from_slice(v);
    let mut im = zeros(n);
    forward(&mut re, &mut im, t);
    (re, im)
}

/// Rounded-to-nearest result pushed one ulp up: ≥ the exact result of the operation.
pub(super) fn ulp_up(v: f64) -> f64 {
    v.next_up()
}

/// Upper bound on Σ x (x ≥ 0, finite): recursive summation of n non-negative terms is within
/// γ_{n−1} ≤ 2nu of the sum (Higham, Lemma 3.1), so the sum is ≤ ŝ/(1 − γ_{n−1}) ≤ ŝ(1 + 4nu).
fn sum_up(xs: impl Iterator<Item = f64>, n: usize) -> f64 {
    let s: f64 = xs.sum();
    ulp_up(s * ulp_up(1.0 + 4.0 * (n as f64 + 2.0) * U))
}

/// Norms of a non-negative f64 vector, rounded up: (‖x‖₁, ‖x‖₂).
fn norms(x: &[f64]) -> (f64, f64) {
    let n = x.len();
    let s1 = sum_up(x.iter().copied(), n);
    // a square rounded to nearest is ≥ (1 − u)x², so x² ≤ fl(x²)(1 + 2u)
    let s2 = ulp_up(sum_up(x.iter().map(|v| v * v), n) * ulp_up(1.0 + 2.0 * U));
    (s1, ulp_up(s2.sqrt()))
}

/// γ₂ = 2u/(1 − 2u), rounded up.
fn gamma2() -> f64 {
    ulp_up(2.0 * U / (1.0 - 2.0 * U))
}

/// β ≥ α + u(1 + α), α = µ + √2γ₂(1 + µ), µ = 5u (twiddle error; √2 < 1.4143): one butterfly
/// output's error relative to |p| + |v| of its inputs.
fn beta() -> f64 {
    let mu = 5.0 * U;
    let alpha = ulp_up(mu + ulp_up(ulp_up(1.4143 * gamma2()) * ulp_up(1.0 + mu)));
    ulp_up(alpha + ulp_up(U * ulp_up(1.0 + alpha)))
}

/// An upper bound on g^t − 1 (g > 1).
fn pow_minus_one(g: f64, t: u32) -> f64 {
    let mut p = 1.0f64;
    for _ in 0..t {
        p = ulp_up(p * g);
    }
    ulp_up(p - 1.0)
}

/// ρ_t ≥ (1 + √2·β)^t − 1, the relative 2-norm error of one transform of length 2^t.
fn rho(t: u32) -> f64 {
    pow_minus_one(ulp_up(1.0 + ulp_up(1.4143 * beta())), t)
}

/// ρ′_t ≥ (1 + β)^t − 1: every output of one transform of length 2^t is within ρ′_t·‖input‖₁
/// of the exact one (the componentwise bound of Lemma FFT-bound).
fn rho_inf(t: u32) -> f64 {
    pow_minus_one(ulp_up(1.0 + beta()), t)
}

/// The transform length exponent t for a linear convolution of lengths na, nb.
pub(super) fn log2_len(na: usize, nb: usize) -> u32 {
    (na + nb - 1).next_power_of_two().trailing_zeros()
}

/// The parts of Lemma FFT-bound's bound fixed before the transform (x, y ≥ 0, finite, transform length
/// at most 2^30): with ρ, ρ′ the 2-norm and componentwise relative errors of one transform and
/// n = ‖·‖₂, `fwd` ≥ n_x·n_y·[√2γ₂(1 + ρ)² + ρ(2 + ρ)] (the forward transforms' and the product's
/// error, after the inverse), `inv` ≥ ρ′(1 + √2γ₂)(1 + ρ)²·n_x·n_y (the inverse transform's own
/// error, before the spectrum is known).
#[derive(Clone, Copy, Debug)]
pub(super) struct Bound {
    t: u32,
    fwd: f64,
    inv: f64,
}

impl Bound {
    /// E with |ĉ_k − c_k| ≤ E for every k, from the norms alone (2^−1000 covers underflow).
    pub(super) fn prior(&self) -> f64 {
        ulp_up(ulp_up(self.fwd + self.inv) + 2f64.powi(-1000))
    }
}

/// [`Bound`] of x ∗ y (y = None: x ∗ x). Lemma FFT-bound of the note.
pub(super) fn error_bound(x: &[f64], y: Option<&[f64]>) -> Bound {
    let t = log2_len(x.len(), y.map_or(x.len(), <[f64]>::len));
    let nx = norms(x).1;
    let ny = y.map_or(nx, |y| norms(y).1);
    let rho = rho(t);
    let g2 = ulp_up(1.4143 * gamma2());
    let nn = ulp_up(nx * ny);
    let grow = ulp_up(ulp_up(1.0 + rho) * ulp_up(1.0 + rho)); // ≥ (1 + ρ)²
    let fwd = ulp_up(nn * ulp_up(ulp_up(g2 * grow) + ulp_up(rho * ulp_up(2.0 + rho))));
    let inv = ulp_up(ulp_up(rho_inf(t) * ulp_up(ulp_up(1.0 + g2) * grow)) * nn);
    Bound { t, fwd, inv }
}

/// ĉ ≈ x ∗ y (y = None: x ∗ x), length |x| + |y| − 1, by one forward transform per input, a
/// pointwise product and one inverse transform, in round-to-nearest f64; and E with
/// |ĉ_k − c_k| ≤ E for every k (`bound` = [`error_bound`]`(x, y)`): the inverse transform's
/// part from the computed spectrum Ẑ, ρ′·Σ_j(|Re Ẑ_j| + |Im Ẑ_j|)/N, when below its prior.
pub(super) fn convolve(x: &[f64], y: Option<&[f64]>, bound: &Bound) -> (Vec<f64>, f64) {
    let nb = y.map_or(x.len(), <[f64]>::len);
    let m = x.len() + nb - 1;
    let t = bound.t;
    debug_assert_eq!(t, log2_len(x.len(), nb));
    let n = 1usize << t;
    let (mut re, mut im) = spectrum(x, t);
    // Ẑ = X̂·Ŷ, the complex product rounded as in `Complex::mul`
    match y {
        None => {
            for (r, i) in re.iter_mut().zip(im.iter_mut()) {
                let (a, b) = (*r, *i);
                *r = a * a - b * b;
                *i = a * b + b * a;
            }
        }
        Some(y) => {
            let (yr, yi) = spectrum(y, t);
            for (((r, i), &c), &d) in re.iter_mut().zip(im.iter_mut()).zip(&yr).zip(&yi) {
                let (a, b) = (*r, *i);
                *r = a * c - b * d;
                *i = a * d + b * c;
            }
            recycle(yr);
            recycle(yi);
        }
    }
    // ‖Ẑ‖₁ ≤ Σ (|Re| + |Im|), each term rounded up, the sum by `sum_up`; 2^−t is exact
    let s = sum_up(
        re.iter().zip(&im).map(|(r, i)| ulp_up(r.abs() + i.abs())),
        n,
    );
    let scale = (2f64).powi(-(t as i32));
    let inv = ulp_up(ulp_up(rho_inf(t) * s) * scale).min(bound.inv);
    let e = ulp_up(ulp_up(bound.fwd + inv) + 2f64.powi(-1000));
    inverse(&mut re, &mut im, t);
    recycle(im);
    re.truncate(m);
    for r in &mut re {
        *r *= scale;
    }
    (re, e)
}

/// Upper bound on |z| (each operation rounded to nearest, then one ulp up: ≥ its exact value
/// on the bounded inputs, since every step is monotone).
fn modulus_up(re: f64, im: f64) -> f64 {
    ulp_up(ulp_up(ulp_up(re * re) + ulp_up(im * im)).sqrt())
}

/// Upper bound on r^k (r ≥ 0) by binary powering, every product pushed one ulp up.
pub(super) fn pow_up(r: f64, k: u32) -> f64 {
    let (mut p, mut b, mut k) = (1.0f64, r, k);
    while k > 0 {
        if k & 1 == 1 {
            p = ulp_up(p * b);
        }
        k >>= 1;
        if k > 0 {
            b = ulp_up(b * b);
        }
    }
    p
}

/// z^m (m ≥ 1) by left-to-right binary powering in round-to-nearest f64, and the count S of
/// the chain's rounding factors: the result is z^m·Π(1 + η_i)^{e_i}, Σ e_i = S, every
/// |η_i| ≤ √2γ₂ (a squaring doubles the count and adds one, a product by z adds one).
fn cpow(z: Complex, m: u32) -> (Complex, u32) {
    let (mut p, mut s) = (z, 0u32);
    for bit in (0..31 - m.leading_zeros()).rev() {
        p = p.mul(p);
        s = 2 * s + 1;
        if (m >> bit) & 1 == 1 {
            p = p.mul(z);
            s += 1;
        }
    }
    (p, s)
}

/// Σ of n non-negative f64 terms each already an upper bound, summed in order: the exact sum
/// is ≤ the computed one times 1 + 4(n + 2)u (as in [`sum_up`]).
pub(super) fn close_sum(s: f64, n: usize) -> f64 {
    ulp_up(s * ulp_up(1.0 + 4.0 * (n as f64 + 2.0) * U))
}

/// Largest `r^m` [`power`] accepts for any spectrum entry (the masses total about 1, so
/// |X_k| ≤ ‖x‖₁ ≈ 1; a larger power would amplify every error, and underflow's, beyond the
/// 2^−1000 allowance).
const POWER_GROWTH: f64 = 1024.0;

/// The partner of position p in the bit-reversed order [`forward`] leaves: the position of
/// X_{−k mod N} when p holds X_k (p itself for p < 2; else, in the block [2^s, 2^{s+1}) that
/// holds p, the mirror 3·2^s − 1 − p).
fn mirror(p: usize) -> usize {
    if p < 2 {
        p
    } else {
        let b = 1usize << (usize::BITS - 1 - p.leading_zeros());
        3 * b - 1 - p
    }
}

/// What [`packed_spectrum`] returns.
struct Packed {
    zr: Vec<f64>,
    zi: Vec<f64>,
    hx: f64,
    ha: Option<f64>,
    dx: f64,
    da: f64,
}

/// [`power`]'s one forward transform and its read-off error (Lemma Spectral-power, step 2): the
/// spectrum Ẑ of c_x·x + i·c_a·a (bit-reversed order, `zr`, `zi`), the read-off factors
/// `hx` = 1/(2c_x) and `ha` = 1/(2c_a) (None without a), and `dx`, `da` ≥ ‖X̂ − X‖₂, ‖Â − A‖₂;
/// (nx, na) = (‖x‖₂, ‖a‖₂) rounded up.
fn packed_spectrum(x: &[f64], a: Option<&[f64]>, (nx, na): (f64, f64), m: u32, t: u32) -> Packed {
    let n = 1usize << t;
    // one input is scaled up by a power of two (exact: the masses are ≤ 4, |k| ≤ 200) so that
    // the read-offs' errors, d/c_x and d/c_a with d ∝ ‖z‖₂, weigh least in E: X̂'s error enters it
    // about m times as heavily as Â's, and c_x/c_a = (m‖a‖₂²/‖x‖₂²)^{1/3} minimises
    // m·√(‖x‖² + ‖a‖²c_a²/c_x²) + √(‖x‖²c_x²/c_a² + ‖a‖²) (a choice only: E holds for every k)
    let k = if a.is_some() && nx > 0.0 && na > 0.0 {
        (((f64::from(m).log2() + 2.0 * (na / nx).log2()) / 3.0).round() as i32).clamp(-200, 200)
    } else {
        0
    };
    let (cx, ca) = ((2f64).powi(k.max(0)), (2f64).powi((-k).max(0)));
    let mut zr = zeros(n);
    for (z, &v) in zr.iter_mut().zip(x) {
        *z = v * cx;
    }
    let mut zi = zeros(n);
    if let Some(a) = a {
        for (z, &v) in zi.iter_mut().zip(a) {
            *z = v * ca;
        }
    }
    forward(&mut zr, &mut zi, t);
    // ‖Ẑ − Z‖₂ ≤ ρ√N‖z‖₂ (Lemma FFT-bound step 2); √N rounded up
    let sqrt_n = ulp_up((n as f64).sqrt());
    // the read-offs within (ρ + u(1 + ρ))√N‖z‖₂/c + 2⁻¹⁰⁴⁰ of X and A (Lemma Spectral-power,
    // step 2); ‖z‖₂² = c_x²‖x‖₂² + c_a²‖a‖₂², the factors exact
    let nz2 = ulp_up(
        ulp_up(ulp_up(nx * cx) * ulp_up(nx * cx)) + ulp_up(ulp_up(na * ca) * ulp_up(na * ca)),
    );
    let r = rho(t);
    let c = ulp_up(r + ulp_up(U * ulp_up(1.0 + r)));
    let d = ulp_up(ulp_up(c * sqrt_n) * ulp_up(nz2.sqrt()));
    let tiny = (2f64).powi(-1040);
    Packed {
        zr,
        zi,
        hx: 0.5 / cx,
        ha: a.map(|_| 0.5 / ca),
        dx: ulp_up(d / cx + tiny),
        da: if a.is_some() {
            ulp_up(d / ca + tiny)
        } else {
            0.0
        },
    }
}

/// The cyclic convolution x^{⊛m} ⊛ a (a = None: the unit) of length N = 2^t by one forward
/// transform, the pointwise power X̂^m·Â and one inverse transform (Lemma Spectral-power of
/// `proofs-notes/pld_accountant/4-power.md`): with a, the two real inputs share one transform of
/// z = x + i·a, X̂ and Â read off it as (Ẑ_k + conj Ẑ_{−k})/2 and (Ẑ_k − conj Ẑ_{−k})/(2i).
/// Returns ĉ (length N) and E with |ĉ_k − c′_k| ≤ E for the exact cyclic convolution c′ of the
/// f64 inputs, every k; None when some |X̂_k|'s bound raised to m exceeds [`POWER_GROWTH`].
/// x, a: non-negative, finite, at most N long, m ≥ 2.
pub(super) fn power(x: &[f64], m: u32, a: Option<&[f64]>, t: u32) -> Option<(Vec<f64>, f64)> {
    let n = 1usize << t;
    debug_assert!(m >= 2 && x.len() <= n && a.is_none_or(|a| a.len() <= n));
    let nx = norms(x).1;
    let (a_l1, na) = a.map_or((1.0, 0.0), norms);
    let Packed {
        mut zr,
        mut zi,
        hx,
        ha,
        dx,
        da,
    } = packed_spectrum(x, a, (nx, na), m, t);
    // the chain's rounding factors, the product by Â one more
    let s = cpow(Complex { re: 1.0, im: 0.0 }, m).1 + u32::from(a.is_some());
    let g = pow_minus_one(ulp_up(1.0 + ulp_up(1.4143 * gamma2())), s);
    // entries with |X̂_k| ≤ 1/4 (certified by fl(|X̂_k|²) ≤ 0.0624: the sum of two squares errs by
    // at most 2u relatively, or underflows) get Ẑ_k = 0, an error ≤ (1/4 + dx)^m·‖a‖₁ each
    // (only where that is below 2^−60: m ≥ 31)
    let small = pow_up(ulp_up(0.25 + dx), m);
    let cut = if small <= (2f64).powi(-60) {
        0.0624
    } else {
        -1.0
    };
    let Some(PowerSums {
        s1,
        s2,
        s3,
        zs,
        zeroed,
    }) = raise(&mut zr, &mut zi, hx, ha, m, dx, cut)
    else {
        recycle(zr);
        recycle(zi);
        return None;
    };
    let (s1, s2, s3, zs) = (
        close_sum(s1, n),
        close_sum(s2, n),
        close_sum(s3, n),
        close_sum(zs, n),
    );
    // ‖Ẑ − X^m⊙A‖₁ ≤ g·Σ R^m|Â| + ‖(m R^{m−1}|Â|)‖₂·‖ΔX‖₂ + ‖R^m‖₂·‖ΔA‖₂; the inverse's own
    // error ρ′‖Ẑ‖₁; both divided by N (exact)
    let dz = ulp_up(
        ulp_up(ulp_up(g * s1) + ulp_up(ulp_up(s2.sqrt()) * dx)) + ulp_up(ulp_up(s3.sqrt()) * da),
    );
    let dz = ulp_up(dz + ulp_up(ulp_up(zeroed as f64 * small) * a_l1));
    let scale = (2f64).powi(-(t as i32));
    let e = ulp_up(ulp_up(ulp_up(dz + ulp_up(rho_inf(t) * zs)) * scale) + 2f64.powi(-1000));
    inverse(&mut zr, &mut zi, t);
    recycle(zi);
    for r in &mut zr {
        *r *= scale;
    }
    Some((zr, e))
}

/// The sums [`power`]'s error bound needs (each term rounded up, summed in order) and how many
/// entries were zeroed.
struct PowerSums {
    s1: f64,
    s2: f64,
    s3: f64,
    zs: f64,
    zeroed: usize,
}

/// Ẑ_k = X̂_k^m·Â_k in place, the spectrum being that of c_x·x + i·c_a·a (of c_x·x, Â ≡ 1, when
/// `ha` is None), X̂ and Â read off per mirror pair k, −k with the factors `hx` = 1/(2c_x) and
/// `ha` = 1/(2c_a), and Ẑ_{−k} = conj Ẑ_k; entries with fl(|X̂_k|²) ≤ `cut` set to 0; the sums
/// of R_k^m|Â_k|, (m R_k^{m−1}|Â_k|)², R_k^{2m} and |Ẑ_k|₁ over all k with R_k = |X̂_k| + dx
/// rounded up; None when some R_k^m exceeds [`POWER_GROWTH`].
fn raise(
    zr: &mut [f64],
    zi: &mut [f64],
    hx: f64,
    ha: Option<f64>,
    m: u32,
    dx: f64,
    cut: f64,
) -> Option<PowerSums> {
    let mut sums = PowerSums {
        s1: 0.0,
        s2: 0.0,
        s3: 0.0,
        zs: 0.0,
        zeroed: 0,
    };
    let mf = f64::from(m);
    for p in 0..zr.len() {
        let q = mirror(p);
        if q < p {
            continue; // done with its partner
        }
        // how many entries this value stands for (a mirror pair counts twice; doubling is exact)
        let (count, w) = if q == p { (1, 1.0) } else { (2, 2.0) };
        // X̂_k = (Ẑ_k + conj Ẑ_{−k})/(2c_x), Â_k = (Ẑ_k − conj Ẑ_{−k})/(2ic_a): one rounding
        // each (the sum; the factors are powers of two), and exactly conjugate at −k
        let (zp, zq) = (
            Complex {
                re: zr[p],
                im: zi[p],
            },
            Complex {
                re: zr[q],
                im: zi[q],
            },
        );
        let xk = Complex {
            re: (zp.re + zq.re) * hx,
            im: (zp.im - zq.im) * hx,
        };
        let ak = ha.map(|ha| Complex {
            re: (zp.im + zq.im) * ha,
            im: (zq.re - zp.re) * ha,
        });
        if xk.re * xk.re + xk.im * xk.im <= cut {
            sums.zeroed += count;
            for k in [p, q] {
                zr[k] = 0.0;
                zi[k] = 0.0;
            }
            continue;
        }
        // R_k ≥ max(|X̂_k|, |X_k|), as |X_k − X̂_k| ≤ ‖X̂ − X‖₂
        let r = ulp_up(modulus_up(xk.re, xk.im) + dx);
        let pm1 = pow_up(r, m - 1);
        let pm = ulp_up(pm1 * r);
        if !(pm <= POWER_GROWTH) {
            return None;
        }
        let (mut z, _) = cpow(xk, m);
        let mut ab = 1.0;
        if let Some(ak) = ak {
            ab = modulus_up(ak.re, ak.im);
            z = z.mul(ak);
        }
        let t1 = ulp_up(pm * ab);
        let t2 = ulp_up(ulp_up(mf * pm1) * ab);
        sums.s1 += w * t1;
        sums.s2 += w * ulp_up(t2 * t2);
        sums.s3 += w * ulp_up(pm * pm);
        sums.zs += w * ulp_up(z.re.abs() + z.im.abs());
        // the pair's second entry is the conjugate (X̂_{−k} = conj X̂_k, Â likewise, and the
        // rounded products commute with conjugation); q = p: z is written last
        zr[q] = z.re;
        zi[q] = -z.im;
        zr[p] = z.re;
        zi[p] = z.im;
    }
    Some(sums)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::test_util::{power_by_squaring, Rng};
    use rug::{Integer, Rational};

    /// `twiddle_table.rs` holds exactly [`mpfr_twiddle`]'s values for t = 16 (low table k < 256,
    /// high table k = 256j, j < 128). With DPCERT_BLESS_TWIDDLE_TABLE=1 the file is written.
    #[test]
    fn twiddle_table_is_mpfr() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/theorems/pld_accountant/twiddle_table.rs"
        );
        let row = |z: Complex| format!("    ({:e}, {:e}),\n", z.re, z.im);
        let lo: String = (0..256).map(|k| row(mpfr_twiddle(k, 16))).collect();
        let hi: String = (0..128).map(|j| row(mpfr_twiddle(j * 256, 16))).collect();
        let want = format!(
            "//! The two-level twiddle tables of `fft.rs` for transforms of length 2^16:\n\
             //! e^(−2πik/65536) from MPFR at 128 bits rounded to nearest (generated and checked by\n\
             //! `fft::tests::twiddle_table_is_mpfr`).\n\
             /// k = 0 … 255.\n\
             pub(super) const LO16: [(f64, f64); 256] = [\n{lo}];\n\
             /// k = 256·j, j = 0 … 127.\n\
             pub(super) const HI16: [(f64, f64); 128] = [\n{hi}];\n"
        );
        if std::env::var("DPCERT_BLESS_TWIDDLE_TABLE").is_ok() {
            std::fs::write(path, want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(path).unwrap();
        assert!(
            have == want,
            "twiddle_table.rs differs from MPFR (DPCERT_BLESS_TWIDDLE_TABLE=1 rewrites it)"
        );
    }

    #[test]
    fn twiddles_are_within_mu_of_mpfr() {
        for t in [1u32, 2, 5, 10, 13, 16] {
            let half = (1usize << t) / 2;
            let (mut re, mut im) = (vec![0.0; half], vec![0.0; half]);
            twiddles_into(t, &mut re, &mut im);
            for (k, z) in re
                .iter()
                .zip(&im)
                .map(|(&re, &im)| Complex { re, im })
                .enumerate()
            {
                let mut a = Float::with_val(256, Constant::Pi);
                a *= 2u32 * k as u32;
                a >>= t;
                let (s, c) = a.sin_cos(Float::new(256));
                let dr = Float::with_val(256, z.re - &c);
                let di = Float::with_val(256, z.im + &s);
                let err = Float::with_val(256, dr.hypot(&di));
                assert!(err <= 5.0 * U, "t = {t}, k = {k}: twiddle error {err}");
            }
        }
    }

    /// A transform's result does not depend on what ran before: the same convolution before and
    /// after a longer one (which builds a longer twiddle table) is bitwise the same (a prefix of
    /// the longer table would differ in the last bits: the Python package and the CLI once
    /// disagreed that way).
    #[test]
    fn results_do_not_depend_on_earlier_transforms() {
        let mut rng = Rng(0x0005_EED0_FF17);
        let x = draw(&mut rng, 3000, 1);
        let b = error_bound(&x, None);
        let first = convolve(&x, None, &b);
        let long = draw(&mut rng, 70_000, 0);
        let _ = convolve(&long, None, &error_bound(&long, None));
        let again = convolve(&x, None, &b);
        assert!(
            first
                .0
                .iter()
                .zip(&again.0)
                .all(|(a, b)| a.to_bits() == b.to_bits())
                && first.1 == again.1,
            "the same convolution changed after a longer one"
        );
    }

    /// Integer-valued test vectors (exact in f64 and in `Integer`): flat, geometric tails over
    /// 60 binades (the shape of a PLD), a few huge spikes among tiny entries.
    fn draw(rng: &mut Rng, n: usize, kind: u32) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let v = match kind {
                    0 => rng.below(1 << 40),
                    1 => {
                        let d = (i as i64 - n as i64 / 2).unsigned_abs() as u32;
                        (rng.below(1 << 20) + 1) << (60 - (60 * d / n as u32).min(60))
                    }
                    _ => {
                        if rng.below(50) == 0 {
                            rng.below(1 << 60)
                        } else {
                            rng.below(4)
                        }
                    }
                };
                v as f64
            })
            .collect()
    }

    /// [`mirror`] against bit reversal: in the order [`forward`] leaves (position p holds
    /// X_{rev(p)}), the partner of p holds X_{(N − rev(p)) mod N}, for every length up to 2^16.
    #[test]
    fn mirror_is_the_negated_frequency_in_bit_reversed_order() {
        for t in 1u32..=16 {
            let n = 1usize << t;
            let rev = |p: usize| p.reverse_bits() >> (usize::BITS - t);
            for p in 0..n {
                assert_eq!(rev(mirror(p)), (n - rev(p)) % n, "t = {t}, p = {p}");
            }
        }
    }

    /// Lemma Spectral-power against exact arithmetic: the cyclic convolution x^{⊛m} ⊛ a of dyadic
    /// probability-like vectors (x_j = k_j·2⁻¹², exact in f64) computed in integers (schoolbook
    /// cyclic products, powering by squaring); every |ĉ_k − c_k| ≤ E. The vectors are bells of
    /// width 2–20 points, so most of the spectrum takes the zeroed branch and some does not; E stays
    /// within 10⁴ times the worst actual error (a bound that forgot its 1/N would not).
    #[test]
    fn power_contains_the_exact_cyclic_power() {
        let mut rng = Rng(0xABCD_EF01_2345_6789);
        let cyc = |p: &[Integer], q: &[Integer]| -> Vec<Integer> {
            let n = p.len();
            let mut c = vec![Integer::new(); n];
            for (i, x) in p.iter().enumerate() {
                if *x == 0 {
                    continue;
                }
                for (j, y) in q.iter().enumerate() {
                    c[(i + j) % n] += Integer::from(x * y);
                }
            }
            c
        };
        for (t, w, m, with_a) in [
            (6u32, 2.0, 32u32, false),
            (8, 6.0, 45, true),
            (8, 20.0, 63, false),
            (9, 4.0, 33, true),
        ] {
            let n = 1usize << t;
            let bell = |rng: &mut Rng, len: usize, w: f64| -> Vec<Integer> {
                let raw: Vec<f64> = (0..len)
                    .map(|j| {
                        (-((j as f64 - len as f64 / 2.0) / w).powi(2) / 2.0).exp()
                            * (1.0 + rng.below(50) as f64 / 100.0)
                    })
                    .collect();
                let tot: f64 = raw.iter().sum();
                raw.iter()
                    .map(|v| Integer::from((v / tot * 4000.0) as u64))
                    .collect()
            };
            let xi = bell(&mut rng, (8.0 * w) as usize, w);
            let ai = if with_a {
                bell(&mut rng, 9, 1.5)
            } else {
                vec![Integer::from(4096)]
            };
            let pad = |v: &[Integer]| {
                let mut p = vec![Integer::new(); n];
                p[..v.len()].clone_from_slice(v);
                p
            };
            let (xp, ap) = (pad(&xi), pad(&ai));
            let exact = power_by_squaring(ap, xp, m, |u, v| cyc(u, v));
            let to_f =
                |v: &[Integer]| -> Vec<f64> { v.iter().map(|k| k.to_f64() / 4096.0).collect() };
            let (x, a) = (to_f(&xi), to_f(&ai));
            let (c, err) = power(&x, m, with_a.then_some(a.as_slice()), t).expect("|X̂| ≲ 1");
            assert_eq!(c.len(), n);
            let den = Integer::from(1) << (12 * (m + 1));
            let mut worst = 0.0f64;
            for (k, &ck) in c.iter().enumerate() {
                let d = (Rational::from_f64(ck).unwrap()
                    - Rational::from((exact[k].clone(), den.clone())))
                .abs();
                assert!(
                    d <= Rational::from_f64(err).unwrap(),
                    "N = {n}, m = {m}, k = {k}: error {} > E = {err}",
                    d.to_f64()
                );
                worst = worst.max(d.to_f64());
            }
            eprintln!(
                "N = {n}, m = {m}: worst error / E = {:.2e} (E = {err:.2e})",
                worst / err
            );
            // documented (Lemma Spectral-power): a worst case, at most 10⁴ times the actual error here
            // (measured 600–1900 times)
            assert!(
                worst * 1e4 >= err,
                "N = {n}, m = {m}: E = {err:.2e} is {:.0} times the error",
                err / worst
            );
        }
    }

    /// Lemma FFT-bound against the exact integer convolution: every |ĉ_k − c_k| ≤ E (the returned,
    /// spectrum-based E); the estimate errs on both sides (so an E dropped on either side is
    /// caught at the fixed-point level, see convolve.rs); E ≤ its prior, which stays within its
    /// documented size 4(ρ + u)‖x‖₂‖y‖₂.
    #[test]
    fn error_bound_contains_the_exact_convolution() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let (mut above, mut below) = (0, 0);
        for (na, nb, kind, square) in [
            (1usize, 1usize, 0u32, true),
            (3, 1, 0, false),
            (300, 300, 1, true),
            (1000, 37, 0, false),
            (2000, 2000, 1, false),
            (4097, 4097, 1, true),
            (999, 1500, 2, false),
            (3000, 3000, 2, true),
        ] {
            let x = draw(&mut rng, na, kind);
            let y = if square {
                x.clone()
            } else {
                draw(&mut rng, nb, kind)
            };
            let yo = (!square).then_some(y.as_slice());
            let prior = error_bound(&x, yo);
            let (c, e) = convolve(&x, yo, &prior);
            assert!(e <= prior.prior(), "{na}·{nb}: E = {e} above its prior");
            let ex = Rational::from_f64(e).unwrap();
            assert_eq!(c.len(), na + nb - 1);
            let mut worst = Rational::new();
            for (k, &ck) in c.iter().enumerate() {
                let mut exact = Integer::new();
                for i in k.saturating_sub(nb - 1)..=k.min(na - 1) {
                    exact +=
                        Integer::from_f64(x[i]).unwrap() * Integer::from_f64(y[k - i]).unwrap();
                }
                let d = Rational::from_f64(ck).unwrap() - Rational::from(exact);
                if d > 0 {
                    above += 1
                } else if d < 0 {
                    below += 1
                }
                let d = d.abs();
                assert!(
                    d <= ex,
                    "{na}·{nb} kind {kind}, k = {k}: error {d} > E = {e}"
                );
                worst = worst.max(d);
            }
            let (nx, ny) = (norms(&x).1, norms(&y).1);
            let t = log2_len(na, nb);
            let size = 4.0 * (rho(t) + U) * nx * ny + 1e-300;
            assert!(
                prior.prior() <= size,
                "{na}·{nb}: E = {} above its documented size {size}",
                prior.prior()
            );
            eprintln!(
                "{na}·{nb} kind {kind}: worst error / E = {:.2e} (E / prior {:.2e})",
                worst.to_f64() / e,
                e / prior.prior()
            );
        }
        assert!(
            above > 100 && below > 100,
            "estimates above {above}, below {below}"
        );
    }
}
