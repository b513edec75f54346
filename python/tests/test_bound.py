"""The Bound type: exact inputs, the float policy, the safe-side float, and containment of an
independent reference (Corollary 8 in mpmath at 60 digits, not dpcert's code)."""
import decimal
import math
import warnings
from fractions import Fraction

import mpmath
import pytest

import dpcert


def corollary8_delta(sigma, eps, sens=1, k=1):
    """δ(ε) of k compositions of N(0, σ²) on a sensitivity-Δ query, Steinke 2022 Cor. 8/10."""
    with mpmath.workdps(60):
        mu = mpmath.sqrt(k) * mpmath.mpf(sens) / mpmath.mpf(sigma)
        e = mpmath.mpf(eps)
        return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)


@pytest.mark.parametrize("sigma,eps,k", [("1", "1", 1), ("0.7", "0.25", 3), ("4", "0.1", 50), ("1.5", "3", 1)])
def test_gaussian_delta_contains_corollary8(sigma, eps, k):
    b = dpcert.gaussian_delta(sigma=sigma, epsilon=eps, compositions=k)
    assert b.kind == "two-sided"
    with mpmath.workdps(60):
        s, e = Fraction(sigma), Fraction(eps)
        ref = corollary8_delta(mpmath.mpf(s.numerator) / s.denominator,
                               mpmath.mpf(e.numerator) / e.denominator, 1, k)
        lo, up = mpmath.mpf(b.lower_text), mpmath.mpf(b.upper_text)
        # containment and the documented width (2^-43 relative) in one assertion
        assert lo <= ref <= up <= ref * (1 + mpmath.mpf(2) ** -43)


def test_float_of_bound_is_the_nearest_float_above_the_upper_end():
    for b in (dpcert.gaussian_delta(sigma=1, epsilon=1), dpcert.zcdp_epsilon(rho="0.1", delta="1e-6"),
              dpcert.gaussian_sigma(epsilon=1, delta="1e-5")):
        f = float(b)
        assert f == b.upper_float == b.raw["value"]["upper_f64"]
        # the decimal upper and the float are both roundings up of the same binary end:
        # the float just below is below the decimal, the float just above is above it
        assert decimal.Decimal(math.nextafter(f, -math.inf)) < b.upper < decimal.Decimal(math.nextafter(f, math.inf))
        assert b.lower is None or decimal.Decimal(f) >= b.lower


def test_repr_shows_the_bracket():
    b = dpcert.gaussian_delta(sigma=1, epsilon=1)
    assert repr(b) == f"Bound([{b.lower_text}, {b.upper_text}], two-sided)"
    u = dpcert.zcdp_delta(rho="0.1", epsilon=1)
    assert u.lower is None and u.kind == "upper-bound" and repr(u) == f"Bound(≤ {u.upper_text}, upper-bound)"
    assert b.theorem and "Corollary" in b.theorem


def test_float_input_is_the_shortest_decimal_that_prints_as_it_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        got = dpcert.gaussian_delta(sigma=1.1, epsilon=1, precision=200)
        # 1.1 is 11/10 (the decimal written), not the binary double just above it
        assert got == dpcert.gaussian_delta(sigma="1.1", epsilon=1, precision=200)
        assert got == dpcert.gaussian_delta(sigma=Fraction(11, 10), epsilon=1, precision=200)
        binary = dpcert.gaussian_delta(sigma=Fraction(1.1), epsilon=1, precision=200)
        # the binary 1.1 is above 11/10, so its δ is strictly below the decimal's (seen at 200 bits)
        assert binary.upper < got.lower
        assert dpcert.gaussian_delta(sigma=1.25, epsilon=0.5) == dpcert.gaussian_delta(sigma="1.25", epsilon="0.5")


def test_contains():
    b = dpcert.gaussian_delta(sigma=1, epsilon=1)
    assert b.lower in b and b.upper in b
    assert (b.upper * 2) not in b and "0" not in b
