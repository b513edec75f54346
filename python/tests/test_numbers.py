"""Python numbers as people write them: a float is the shortest decimal that prints as it
(``repr``), str / int / Fraction / Decimal are exact — checked against the string forms through
the CLI's own parser (the query text the package sends), without any warning."""
import decimal
import warnings
from fractions import Fraction

import pytest

import dpcert


@pytest.mark.parametrize("value,text", [
    (1e-5, "1e-05"),            # 1/100000
    (256 / 60000, "0.004266666666666667"),
    (1.1, "1.1"),
    (0.1, "0.1"),
    (2.0, "2.0"),
    (1e22, "1e+22"),
    (5e-324, "5e-324"),
    (Fraction(256, 60000), "16/3750"),
    (decimal.Decimal("0.00001"), "0.00001"),
    (7, "7"),
    ("256/60000", "256/60000"),
])
def test_each_form_is_sent_as_its_exact_text(value, text):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = dpcert._exact("x", value)
    # the same rational as the expected text (Fraction parses both exactly)
    assert Fraction(got) == Fraction(text)


def test_a_float_gives_the_same_bound_as_its_string_form():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = dpcert.dpsgd_epsilon(rate=256 / 60000, sigma=1.1, steps=1000, delta=1e-5, method="pld")
    s = dpcert.dpsgd_epsilon(rate="0.004266666666666667", sigma="1.1", steps="1000",
                             delta="1e-5", method="pld")
    assert f == s


def test_numpy_and_torch_scalars_are_read_as_their_value():
    np = pytest.importorskip("numpy")
    assert dpcert._exact("x", np.float64(1e-5)) == "1e-05"
    assert dpcert._exact("x", np.float32(0.5)) == "0.5"
    assert Fraction(dpcert._exact("x", np.int64(7))) == 7
