use dpcert::num::*;
#[test]
fn fastphi(){
  for x in [-1.75f64, -2.25, -2.6, -5.0, -0.3, 0.0, 1.0, 3.0, -30.0, -38.0] {
    let f = Fi(inari::Interval::try_from((x,x)).unwrap()).normal_cdf();
    let e = Enclosure::from_real(&f).unwrap();
    let m = Enclosure::from_real(&Iv::from_rational(&rug::Rational::from_f64(x).unwrap(),128).normal_cdf()).unwrap();
    println!("{x}: rel {:e} [{} {}] mpfr [{} {}]", e.rel_width(), e.lower.to_decimal(), e.upper.to_decimal(), m.lower.to_decimal(), m.upper.to_decimal());
  }
}
