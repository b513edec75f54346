//! Chart axes: ticks at round values (1, 2 or 5 × 10ᵏ apart on a linear axis, powers of ten on a
//! logarithmic one), chosen so that no two labels overlap, and the value → pixel map. The axis
//! ends are ticks themselves, so no label sits against an unlabelled end.

/// Font size of tick labels (px).
pub const FONT: f64 = 12.0;
/// Width of one character as a fraction of the font size: a generous estimate for digits,
/// signs and superscripts in a sans-serif font (Helvetica/DejaVu digits are 0.55–0.64 em).
pub const CHAR_WIDTH: f64 = 0.64;
/// Least gap between two tick labels (px).
pub const LABEL_GAP: f64 = 8.0;

/// The estimated width of `text` at font size `font` (px): characters × font × [`CHAR_WIDTH`].
pub fn text_width(text: &str, font: f64) -> f64 {
    text.chars().count() as f64 * font * CHAR_WIDTH
}

/// One labelled tick.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Where (a data value).
    pub value: f64,
    /// Its label.
    pub label: String,
}

/// One axis: a data range drawn between two pixel positions, linear or logarithmic.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The data values at the two ends (both > 0 on a logarithmic axis).
    pub lo: f64,
    /// The upper end.
    pub hi: f64,
    /// Logarithmic (base 10).
    pub log: bool,
    /// Pixel positions of `lo` and `hi`.
    pub from: f64,
    /// Pixel position of `hi`.
    pub to: f64,
    /// Labelled ticks, in increasing value, the first at `lo` and the last at `hi`.
    pub ticks: Vec<Tick>,
    /// Unlabelled grid positions (every decade of a logarithmic axis).
    pub minor: Vec<f64>,
}

/// Space one label needs along the axis: its width on a horizontal axis, the font height on a
/// vertical one.
fn extent(label: &str, horizontal: bool) -> f64 {
    if horizontal {
        text_width(label, FONT)
    } else {
        FONT
    }
}

/// Whether labels at these pixel positions leave [`LABEL_GAP`] between neighbours.
fn fits(labels: &[(f64, String)], horizontal: bool) -> bool {
    labels.windows(2).all(|w| {
        let room = (w[1].0 - w[0].0).abs();
        room >= (extent(&w[0].1, horizontal) + extent(&w[1].1, horizontal)) / 2.0 + LABEL_GAP
    })
}

/// `v` with `decimals` decimals (no "-0").
fn decimal_label(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_string()
    } else {
        s
    }
}

/// "1" for 10⁰, else "10" with the exponent in superscript digits ("10⁻⁵").
pub fn power_label(k: i32) -> String {
    if k == 0 {
        return "1".into();
    }
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::from("10");
    if k < 0 {
        s.push('⁻');
    }
    for d in k.unsigned_abs().to_string().bytes() {
        s.push(SUP[(d - b'0') as usize]);
    }
    s
}

impl Axis {
    /// The pixel position of `v` (a logarithmic axis puts values ≤ 0 at its low end).
    pub fn px(&self, v: f64) -> f64 {
        let t = if self.log {
            if v <= 0.0 {
                0.0
            } else {
                (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
            }
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.from + (self.to - self.from) * t
    }

    /// `v` clamped into the axis range, and whether it lay below the low end.
    pub fn clamp(&self, v: f64) -> (f64, bool) {
        if v < self.lo || v.is_nan() {
            (self.lo, true)
        } else {
            (v.min(self.hi), false)
        }
    }

    /// A linear axis covering [lo, hi] (lo < hi), its ends moved out to the nearest multiples
    /// of the tick step: the smallest step 1, 2 or 5 × 10ᵏ whose labels do not overlap and that
    /// gives at most 11 ticks.
    pub fn linear(lo: f64, hi: f64, from: f64, to: f64, horizontal: bool) -> Axis {
        let span = (hi - lo).max(f64::MIN_POSITIVE);
        let mut k = (span / 20.0).log10().floor() as i32;
        loop {
            for m in [1.0, 2.0, 5.0] {
                let step = m * 10f64.powi(k);
                let first = (lo / step).floor() as i64;
                let last = ((hi / step).ceil() as i64).max(first + 1);
                if last - first > 10 {
                    continue;
                }
                let decimals = (-k).max(0) as usize;
                let (a, b) = (first as f64 * step, last as f64 * step);
                let labels: Vec<(f64, String)> = (first..=last)
                    .map(|i| {
                        let v = i as f64 * step;
                        let pos = from + (to - from) * (v - a) / (b - a);
                        (pos, decimal_label(v, decimals))
                    })
                    .collect();
                if fits(&labels, horizontal) {
                    let ticks = (first..=last)
                        .zip(labels)
                        .map(|(i, (_, label))| Tick {
                            value: i as f64 * step,
                            label,
                        })
                        .collect();
                    return Axis {
                        lo: a,
                        hi: b,
                        log: false,
                        from,
                        to,
                        ticks,
                        minor: Vec::new(),
                    };
                }
            }
            k += 1;
        }
    }

    /// A logarithmic axis from 10^lo_exp to 10^hi_exp (lo_exp < hi_exp): a labelled tick every
    /// `stride` decades (1, 2, 5, 10, …: the least whose labels do not overlap), the ends
    /// moved out to multiples of the stride; a grid line at every decade.
    pub fn log(lo_exp: i32, hi_exp: i32, from: f64, to: f64, horizontal: bool) -> Axis {
        let hi_exp = hi_exp.max(lo_exp + 1);
        for stride in [1, 2, 5, 10, 20, 50, 100] {
            let first = lo_exp.div_euclid(stride) * stride;
            let last = -((-hi_exp).div_euclid(stride) * stride);
            let span = f64::from(last - first);
            let labels: Vec<(f64, String)> = (first..=last)
                .step_by(stride as usize)
                .map(|k| {
                    let pos = from + (to - from) * f64::from(k - first) / span;
                    (pos, power_label(k))
                })
                .collect();
            if fits(&labels, horizontal) || stride == 100 {
                let ticks = (first..=last)
                    .step_by(stride as usize)
                    .zip(labels)
                    .map(|(k, (_, label))| Tick {
                        value: 10f64.powi(k),
                        label,
                    })
                    .collect();
                return Axis {
                    lo: 10f64.powi(first),
                    hi: 10f64.powi(last),
                    log: true,
                    from,
                    to,
                    ticks,
                    minor: (first..=last).map(|k| 10f64.powi(k)).collect(),
                };
            }
        }
        unreachable!("the last stride is always taken")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tick value is round: m × 10ᵏ for an integer m whose leading digit times the step's
    /// mantissa is one of 1, 2, 5 steps (checked on the step: consecutive ticks differ by
    /// 1, 2 or 5 × 10ᵏ, and every tick is an integer multiple of the step).
    fn assert_round_linear(a: &Axis) {
        let step = a.ticks[1].value - a.ticks[0].value;
        let k = step.log10().floor();
        let m = step / 10f64.powf(k);
        assert!(
            [1.0, 2.0, 5.0, 10.0].iter().any(|r| (m - r).abs() < 1e-9),
            "step {step} is not 1, 2 or 5 × 10^k"
        );
        for t in &a.ticks {
            let r = t.value / step;
            assert!(
                (r - r.round()).abs() < 1e-9,
                "{} is not a multiple of {step}",
                t.value
            );
            // the label says the value
            let parsed: f64 = t.label.parse().unwrap();
            assert!(
                (parsed - t.value).abs() <= step * 1e-9,
                "{} vs {}",
                t.label,
                t.value
            );
        }
    }

    fn assert_no_overlap(a: &Axis, horizontal: bool) {
        for w in a.ticks.windows(2) {
            let (p, q) = (a.px(w[0].value), a.px(w[1].value));
            let need = (extent(&w[0].label, horizontal) + extent(&w[1].label, horizontal)) / 2.0;
            assert!(
                (q - p).abs() >= need,
                "labels {:?} and {:?} overlap",
                w[0],
                w[1]
            );
        }
    }

    #[test]
    fn linear_ticks_are_round_cover_the_range_and_do_not_overlap() {
        let ranges = [
            (0.0, 1.0),
            (0.0, 6.13),
            (0.0, 0.0137),
            (0.0, 13.7),
            (0.0, 997.0),
            (0.0, 123456.0),
            (0.3, 0.31),
            (2.5, 7.25),
        ];
        for (lo, hi) in ranges {
            for (len, horizontal) in [(600.0, true), (150.0, true), (360.0, false), (80.0, false)] {
                let a = Axis::linear(lo, hi, 70.0, 70.0 + len, horizontal);
                assert!(a.ticks.len() >= 2, "{lo}..{hi}: {:?}", a.ticks);
                assert!(
                    a.lo <= lo && a.hi >= hi,
                    "{lo}..{hi} not covered by {}..{}",
                    a.lo,
                    a.hi
                );
                assert_eq!(a.ticks.first().unwrap().value, a.lo);
                assert_eq!(a.ticks.last().unwrap().value, a.hi);
                assert_round_linear(&a);
                assert_no_overlap(&a, horizontal);
                // not needlessly coarse: the range covers at least a third of the axis
                assert!(
                    (hi - lo) / (a.hi - a.lo) > 0.3,
                    "{lo}..{hi} on {}..{}",
                    a.lo,
                    a.hi
                );
            }
        }
    }

    #[test]
    fn log_ticks_are_powers_of_ten_cover_the_range_and_do_not_overlap() {
        for (lo, hi) in [(-16, 0), (-5, 0), (-1, 0), (-30, 0), (-7, -2), (-100, 0)] {
            for (len, horizontal) in [(500.0, true), (120.0, true), (380.0, false), (60.0, false)] {
                let a = Axis::log(lo, hi, 400.0, 400.0 - len, horizontal);
                assert!(a.lo <= 10f64.powi(lo) && a.hi >= 10f64.powi(hi));
                for t in &a.ticks {
                    let k = t.value.log10().round() as i32;
                    assert_eq!(t.value, 10f64.powi(k));
                    assert_eq!(t.label, power_label(k));
                }
                assert_no_overlap(&a, horizontal);
            }
        }
        assert_eq!(power_label(-16), "10⁻¹⁶");
        assert_eq!(power_label(3), "10³");
    }

    #[test]
    fn the_pixel_map_is_affine_in_the_value_or_its_log() {
        let a = Axis::linear(0.0, 10.0, 100.0, 600.0, true);
        assert_eq!(a.px(a.lo), 100.0);
        assert_eq!(a.px(a.hi), 600.0);
        let l = Axis::log(-4, 0, 400.0, 0.0, false);
        assert!((l.px(1e-2) - 200.0).abs() < 1e-9);
        assert_eq!(l.px(0.0), 400.0);
        assert_eq!(l.clamp(1e-9), (1e-4, true));
    }
}
