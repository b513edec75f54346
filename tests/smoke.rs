use dpcert::num::Precision;
use dpcert::theorems::gaussian::*;
use dpcert::theorems::pld::*;
use rug::{Rational, Integer};
fn r(s:&str)->Rational{dpcert::num::parse_exact(s).unwrap()}
#[test]
fn smoke(){
  for (d,s,e) in [("1","1","0.5"),("1","2","1"),("2","1","3"),("1","0.1","200"),("1","100","1e-3"), ("1","1e-3","5")] {
    let pld=gaussian_pld(&r(s),&r(d)).unwrap();
    for p in [Precision::Auto, Precision::Bits(128), Precision::Bits(512)] {
      let en=gaussian_delta(&pld,&r(e),p).unwrap();
      println!("d={d} s={s} e={e} {:?}: [{}, {}] {:?}", p, en.lower.to_decimal(), en.upper.to_decimal(), en.arithmetic);
    }
    let a=hockey_stick_expectation(&Pld::Gaussian(pld.clone()),&r(e),Precision::Auto).unwrap();
    println!("  expectation [{}, {}]", a.lower.to_decimal(), a.upper.to_decimal());
    if s != "1e-3" { let c=hockey_stick_integral(&Pld::Gaussian(pld.clone()),&r(e),2000,128).unwrap();
    println!("  integral [{}, {}]", c.lower.to_decimal(), c.upper.to_decimal()); }
  }
  let pld=gaussian_pld(&r("1"),&r("1")).unwrap();
  let en=gaussian_epsilon(&pld,&r("1e-5"),Precision::Auto).unwrap();
  println!("eps [{}, {}]", en.lower.to_decimal(), en.upper.to_decimal());
  let en=gaussian_sigma(&r("1"),&r("1e-5"),&r("1"),&Integer::from(1),Precision::Auto).unwrap();
  println!("sigma [{}, {}]", en.lower.to_decimal(), en.upper.to_decimal());
  let rr=Pld::Discrete(DiscretePld::randomized_response(&r("0.5"),&Integer::from(10)).unwrap());
  for f in [hockey_stick_expectation, hockey_stick_tails] { let x=f(&rr,&r("1"),Precision::Auto).unwrap(); println!("rr [{}, {}] {:?}", x.lower.to_decimal(), x.upper.to_decimal(), x.arithmetic);}
  let x=hockey_stick_integral(&rr,&r("1"),1,128).unwrap(); println!("rr int [{}, {}]", x.lower.to_decimal(), x.upper.to_decimal());
}
