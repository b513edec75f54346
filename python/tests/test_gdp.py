"""DP-SGD's smallest μ-GDP μ: exactly √T/σ for every rate (no amplification by subsampling at
finite T). The reference is the exact rational T/σ², not dpcert's code."""
from decimal import Decimal
from fractions import Fraction

import pytest

import dpcert


@pytest.mark.parametrize("rate,sigma,steps", [
    ("1", "2", 16), ("0.5", "1", 3), ("256/60000", "1.1", 14063), ("0.01", "4", 10000), ("1e-9", "0.5", 1),
])
def test_dpsgd_gdp_mu_brackets_sqrt_t_over_sigma(rate, sigma, steps):
    b = dpcert.dpsgd_gdp_mu(rate=rate, sigma=sigma, steps=steps)
    assert b.kind == "two-sided"
    lo, up = Fraction(Decimal(b.lower_text)), Fraction(Decimal(b.upper_text))
    a2 = Fraction(steps) / Fraction(sigma) ** 2
    # containment (exact squares) and the documented width (about 2^-40 relative)
    assert 0 <= lo and lo * lo <= a2 <= up * up
    assert (up - lo) / up <= Fraction(1, 10**11)


@pytest.mark.parametrize("kwargs,name", [
    (dict(rate=0, sigma=1, steps=3), "rate"),
    (dict(rate="1.5", sigma=1, steps=3), "rate"),
    (dict(rate="0.1", sigma=0, steps=3), "sigma"),
    (dict(rate="0.1", sigma=-1, steps=3), "sigma"),
    (dict(rate="0.1", sigma="abc", steps=3), "sigma"),
    (dict(rate="0.1", sigma=1, steps=0), "steps"),
    (dict(rate="0.1", sigma=1, steps="2.5"), "steps"),
])
def test_dpsgd_gdp_mu_bad_input_names_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        dpcert.dpsgd_gdp_mu(**kwargs)
