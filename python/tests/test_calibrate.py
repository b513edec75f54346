"""Calibration through the package equals `dpcert calibrate … --json` bit for bit, and the
answer is on the safe side of the target: its certified ε upper bound is ≤ the target, and
the certified-infeasible value's ε lower bound exceeds it (checked here from the numbers,
not from the verdict the code prints)."""
import decimal
from fractions import Fraction

import pytest

import dpcert

D = decimal.Decimal


def test_sigma_equals_cli_and_brackets_the_target(cli):
    run = dict(rate="1/100", steps=300)
    c = dpcert.calibrate_dpsgd_sigma(target_epsilon=2, delta="1e-5", **run)
    code, out, err = cli(["calibrate", "dpsgd", "--target-epsilon", "2", "--delta", "1e-5",
                          "--rate", "1/100", "--steps", "300"])
    assert code == 0, err
    assert c.raw == out["result"]
    assert c.parameter == "sigma"
    assert c.epsilon.upper <= 2 < c.infeasible_epsilon.lower
    assert D(c.infeasible) < D(c.value)
    assert (D(c.value) - D(c.infeasible)) / D(c.value) <= D("1e-3")
    # the returned σ, re-evaluated independently of the search: still feasible
    again = dpcert.dpsgd_epsilon(rate="1/100", sigma=c.value, steps=300, delta="1e-5", method="pld")
    assert again.upper <= 2


def test_steps_from_epochs_and_gaussian(cli):
    c = dpcert.calibrate_dpsgd(target_epsilon=1, delta="1e-5", sigma=2, batch_size=100,
                               dataset_size=10000)
    assert c.parameter == "steps" and c.epsilon.upper <= 1
    g = dpcert.calibrate_gaussian_sigma(target_epsilon=1, delta="1e-5", compositions=10)
    code, out, err = cli(["calibrate", "gaussian", "--target-epsilon", "1", "--delta", "1e-5",
                          "--compositions", "10"])
    assert code == 0, err
    assert (g.lower_text, g.upper_text) == (out["result"]["value"]["lower"], out["result"]["value"]["upper"])
    # σ_upper achieves (1, 1e-5) over 10 compositions; σ_lower does not (exact Gaussian δ)
    assert dpcert.gaussian_delta(sigma=g.upper_text, epsilon=1, compositions=10).upper <= D("1e-5")
    assert dpcert.gaussian_delta(sigma=g.lower_text, epsilon=1, compositions=10).lower > D("1e-5")


@pytest.mark.parametrize("kwargs, name", [
    (dict(target_epsilon=0, delta="1e-5", rate="0.01", steps=10), "target_epsilon"),
    (dict(target_epsilon=1, delta="2", rate="0.01", steps=10), "delta"),
    (dict(target_epsilon=1, delta="1e-5", rate="0.01", batch_size=10, dataset_size=100, steps=10), "rate"),
    (dict(target_epsilon=1, delta="1e-5", batch_size=1000, dataset_size=100, steps=10), "batch_size"),
])
def test_bad_input_raises(kwargs, name):
    with pytest.raises(ValueError, match=name):
        dpcert.calibrate_dpsgd_sigma(**kwargs)


def test_sigma_is_refused_by_the_sigma_solver():
    with pytest.raises(ValueError, match="sigma"):
        dpcert.calibrate_dpsgd_sigma(target_epsilon=1, delta="1e-5", rate=Fraction(1, 100),
                                     steps=10, sigma=1)


def _same(b, out):
    v = out["result"]["value"]
    assert (b.lower_text, b.upper_text, b.kind) == (v["lower"], v["upper"], v["kind"])


def test_dpsgd_ml_vocabulary_phases_and_samplers_equal_cli(cli):
    b = dpcert.dpsgd_epsilon(batch_size=100, dataset_size=10000, epochs=2, sigma=1, delta="1e-5",
                             method="pld")
    code, out, err = cli(["dpsgd", "--batch-size", "100", "--dataset-size", "10000", "--epochs", "2",
                          "--sigma", "1", "--delta", "1e-5", "--method", "pld"])
    assert code == 0, err
    _same(b, out)
    # a run split into two equal phases: the same bracket as the whole run (T = 200)
    whole = dpcert.dpsgd_epsilon(rate="1/100", sigma=1, steps=200, delta="1e-5", method="pld")
    split = dpcert.dpsgd_epsilon(phases=[("1/100", 1, 120), ("1/100", 1, 80)], delta="1e-5")
    assert (split.lower, split.upper) == (whole.lower, whole.upper) == (b.lower, b.upper)
    # shuffled: an upper bound only, above the Poisson bracket's upper end
    sh = dpcert.dpsgd_epsilon(rate="1/100", sigma=1, steps=200, delta="1e-5", sampling="shuffled")
    assert sh.kind == "upper-bound" and sh.lower is None and sh.upper > whole.upper
    # substitution: two-sided, certainly above add/remove (its lower end above add/remove's upper)
    sub = dpcert.dpsgd_epsilon(rate="1/100", sigma=1, steps=200, delta="1e-5", relation="substitution")
    assert sub.kind == "two-sided" and sub.lower > whole.upper
    with pytest.raises(ValueError, match="phases"):
        dpcert.dpsgd_epsilon(phases=[("1/100", 1)], delta="1e-5")
    # tight=: the CLI's --tight, bit for bit, and refused where it would be ignored
    t = dpcert.dpsgd_epsilon(rate=1, sigma=20, steps=1000, delta="1e-5", tight=True)
    code, out, err = cli(["dpsgd", "--rate", "1", "--sigma", "20", "--steps", "1000",
                          "--delta", "1e-5", "--tight"])
    assert code == 0, err
    _same(t, out)
    with pytest.raises(ValueError, match="tight"):
        dpcert.dpsgd_epsilon(rate="1/100", sigma=1, steps=10, delta="1e-5", grid="1e-3", tight=True)
