//! Shared helpers of the accountant's unit tests: exact measures, 256-bit MPFR hockey-stick
//! sums of exact atoms and of grid measures, a fixed pseudo-random stream. None of them uses
//! the kernels' own arithmetic.
use super::discretise::{discretize, table};
use super::enclose::{self, point};
use super::fixed::{Ctx, GridPld, Side};
use super::mechanisms::{Atom, Profile};
use rug::{Float, Rational};

pub(super) const P: u32 = 256;
pub(super) fn ctx(h: &str, f: u32, tau: u128, side: Side) -> Ctx {
    let h = crate::num::parse_exact(h).unwrap();
    Ctx {
        hf: enclose::rational(&h),
        h,
        f,
        tau,
        tau_f: tau as f64 / (2f64).powi(f as i32),
        fft_budget: 0,
        side,
        progress: false,
        support: 0,
        fft_products: 0,
        delta: 0.0,
        target: None,
    }
}
/// xorshift64*: a fixed pseudo-random stream (no dependence on the code under test).
pub(super) struct Rng(pub(super) u64);
impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(super) fn below(&mut self, bound: u128) -> u128 {
        let v = (self.next() as u128) << 64 | self.next() as u128;
        v % bound
    }
}
/// An exact measure: atoms (loss, P-mass), None = +∞; P-masses dyadic (exact in f64).
pub(super) type Atoms = Vec<(Option<Rational>, f64)>;

pub(super) fn atoms_profile(atoms: &Atoms) -> Profile {
    Profile {
        tails: None,
        atoms: atoms
            .iter()
            .map(|(z, p)| Atom {
                loss: z.clone(),
                p: point(*p),
            })
            .collect(),
        support: (0.0, 0.0),
        shift: Rational::new(),
        shift_from: f64::INFINITY,
        spread: 1.0,
        detail: 1.0,
        mix: None,
    }
}
/// δ_μ(ε) = Σ p (1 − e^{ε − z})₊ of exact atoms at 256 bits.
pub(super) fn atoms_delta(atoms: &Atoms, eps: &Rational) -> Float {
    let mut s = Float::with_val(P, 0);
    for (z, p) in atoms {
        match z {
            None => s += *p,
            Some(z) if z > eps => {
                let t = Float::with_val(P, Rational::from(eps - z));
                s += Float::with_val(P, 1 - t.exp()) * *p;
            }
            _ => {}
        }
    }
    s
}
/// δ of a grid measure (masses m·2^−F at (off + i)h), at 256 bits from the exact integers.
pub(super) fn grid_delta(g: &GridPld, c: &Ctx, eps: &Rational) -> Float {
    let scale = Float::with_val(P, 1) >> c.f;
    let mut s = Float::with_val(P, g.inf) * &scale;
    for (i, &m) in g.mass.iter().enumerate() {
        if m == 0 {
            continue;
        }
        let a = &g.shift + Rational::from(g.off + i as i64) * &c.h;
        if a > *eps {
            let t = Float::with_val(P, Rational::from(eps - &a));
            s += Float::with_val(P, 1 - t.exp()) * Float::with_val(P, m) * &scale;
        }
    }
    s
}
pub(super) fn disc(pr: &Profile, h: &str, side: Side) -> (GridPld, Ctx) {
    let c = ctx(h, 100, 1 << 20, side);
    let tb = table(pr, &c, None).unwrap();
    (discretize(&tb, &c).unwrap(), c)
}
/// The ε at which to compare: every grid point, every midpoint, each atom's loss ± 10⁻¹².
pub(super) fn probes(g: &GridPld, c: &Ctx, atoms: &Atoms) -> Vec<Rational> {
    let mut v = vec![Rational::new()];
    let stride = (g.mass.len() / 100).max(1);
    for i in (-2..g.mass.len() as i64 + 2).step_by(stride) {
        let a = Rational::from(g.off + i) * &c.h;
        v.push(a.clone());
        v.push(a + Rational::from(&c.h / 2u32));
    }
    let tiny = Rational::from((1, 1_000_000_000_000u64));
    for (z, _) in atoms.iter() {
        if let Some(z) = z {
            v.push(z.clone());
            v.push(Rational::from(z - &tiny));
            v.push(Rational::from(z + &tiny));
        }
    }
    v.retain(|e| *e >= 0);
    v
}
/// Upper dominates, Lower is dominated, at every probe; both within `width` of the truth.
pub(super) fn check_domination(atoms: &Atoms, h: &str, width: f64) -> (GridPld, GridPld) {
    let pr = atoms_profile(atoms);
    let (up, cu) = disc(&pr, h, Side::Upper);
    let (lo, cl) = disc(&pr, h, Side::Lower);
    for e in probes(&up, &cu, atoms)
        .iter()
        .chain(&probes(&lo, &cl, atoms))
    {
        let exact = atoms_delta(atoms, e);
        let (u, l) = (grid_delta(&up, &cu, e), grid_delta(&lo, &cl, e));
        assert!(
            l <= exact && exact <= u,
            "h = {h}, ε = {e}: {l} ≤ {exact} ≤ {u} fails"
        );
        assert!(
            Float::with_val(P, &u - &l) <= width,
            "h = {h}, ε = {e}: [{l}, {u}] wider than {width}"
        );
    }
    (up, lo)
}
pub(super) fn rational(s: &str) -> Rational {
    crate::num::parse_exact(s).unwrap()
}

/// `one` times base^m under `mul`, by binary powering (the exact references of the spectral
/// power's tests: cyclic or linear integer convolution).
pub(super) fn power_by_squaring<T: Clone>(one: T, base: T, m: u32, mul: impl Fn(&T, &T) -> T) -> T {
    let (mut acc, mut p, mut e) = (one, base, m);
    while e > 0 {
        if e & 1 == 1 {
            acc = mul(&acc, &p);
        }
        e >>= 1;
        if e > 0 {
            p = mul(&p, &p);
        }
    }
    acc
}
