"""Bad input raises ValueError naming the argument; numerical failure raises NumericalError;
never a number, never NaN, never a panic across the boundary."""
import math
from decimal import Decimal

import pytest

import dpcert


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: dpcert.gaussian_delta(sigma=-1, epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=0, epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=1, epsilon=-0.5), "epsilon"),
        (lambda: dpcert.gaussian_delta(sigma=float("nan"), epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=math.inf, epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=Decimal("NaN"), epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma="abc", epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=True, epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=None, epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=[1], epsilon=1), "sigma"),
        (lambda: dpcert.gaussian_delta(sigma=1, epsilon=1, compositions=0), "compositions"),
        (lambda: dpcert.gaussian_delta(sigma=1, epsilon=1, compositions="2.5"), "compositions"),
        (lambda: dpcert.gaussian_epsilon(sigma=1, delta=1), "delta"),
        (lambda: dpcert.gaussian_epsilon(sigma=1, delta="1e-100001"), "delta"),
        (lambda: dpcert.zcdp_epsilon(rho=-1, delta="1e-5"), "rho"),
        (lambda: dpcert.compose_approx(epsilon=1, delta_each=2, count=3, delta="1e-5"), "delta_each"),
        (lambda: dpcert.dpsgd_epsilon(rate=2, sigma=1, steps=10, delta="1e-5"), "rate"),
        (lambda: dpcert.dpsgd_epsilon(rate="0.1", sigma=1, steps=10, delta="1e-5", method="magic"), "method"),
        (lambda: dpcert.gaussian_delta(sigma=1, epsilon=1, precision=3), "precision"),
        (lambda: dpcert.gaussian_delta(sigma=1, epsilon=1, precision="64"), "precision"),
        (lambda: dpcert.query(["gaussian", "nope"]), "query"),
        (lambda: dpcert.audit({"budget": {"delta": "1e-6"}, "mechanism": [{"type": "gaussian", "sigma": -1}]}), "sigma"),
        (lambda: dpcert.audit({"budget": {"delta": "1e-6"}, "mechanism": [{"type": "warp", "sigma": 1}]}), "type"),
        (lambda: dpcert.audit({"mechanism": [{"type": "gaussian", "sigma": 1}]}), "budget"),
        (lambda: dpcert.audit(42), "deployment"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError) as e:
        call()
    assert name in str(e.value)


def test_numerical_failure_raises_numerical_error(cli):
    # the PLD upper bound cannot meet δ when one truncation may move more mass than δ
    args = ["dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--delta", "1e-5",
            "--method", "pld", "--tail", "1e-3"]
    code, _, err = cli(args, json_flag=False)
    assert code == 3, err
    with pytest.raises(dpcert.NumericalError) as e:
        dpcert.query(args)
    assert "numerical failure" in str(e.value)
    assert issubclass(dpcert.NumericalError, ArithmeticError)
    assert not issubclass(dpcert.NumericalError, ValueError)
