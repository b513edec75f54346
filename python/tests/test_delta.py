"""δ at ε of DP-SGD and the privacy profile as arrays: the CLI's numbers (`dpcert dpsgd …
--epsilon E`), a profile's points equal to the single calls, and the ε(δ) ↔ δ(ε) consistency
(a bracket on the wrong side of either would break it)."""
import decimal
import math
from fractions import Fraction

import pytest

import dpcert

RUN = dict(rate="0.01", sigma="1", steps=500)


def test_dpsgd_delta_is_the_cli_bit_for_bit(cli):
    code, out, err = cli(["dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "500",
                          "--epsilon", "1.5"])
    assert code == 0, err
    b = dpcert.dpsgd_delta(1.5, **RUN)
    q = out["result"]["value"]
    assert (b.lower_text, b.upper_text) == (q["lower"], q["upper"])
    assert b.two_sided and 0 < b.lower <= b.upper < 1


def test_phases_and_ml_vocabulary(cli):
    ph = [("0.01", "1", 200), ("0.02", "1.5", 100)]
    b = dpcert.dpsgd_delta("1", phases=ph)
    code, out, err = cli(["dpsgd", "--phase", "0.01,1,200", "--phase", "0.02,1.5,100",
                          "--epsilon", "1"])
    assert code == 0, err
    assert b.upper_text == out["result"]["value"]["upper"]
    ml = dpcert.dpsgd_delta(2, batch_size=600, dataset_size=60000, epochs=5, sigma="1")
    assert ml == dpcert.dpsgd_delta(2, rate="600/60000", sigma="1", steps=500)


def test_profile_points_are_the_single_calls_and_delta_falls():
    grid = ["0.5", "1", "1.5", "2", "3"]
    p = dpcert.dpsgd_delta_profile(grid, **RUN)
    assert len(p) == 5 and p.epsilon == [0.5, 1.0, 1.5, 2.0, 3.0]
    for e, b in zip(grid, p.bounds):
        assert b == dpcert.dpsgd_delta(e, **RUN)
    for (e, lo, hi), b in zip(p, p.bounds):
        # the lower float is the decimal rounded down; the upper is the CLI's upper_f64 (the
        # binary certified end rounded up)
        assert decimal.Decimal(lo) <= b.lower < decimal.Decimal(math.nextafter(lo, 1))
        assert hi == b.upper_float
    # δ(ε) decreases: each upper end is below the previous point's lower end here
    for a, b in zip(p.bounds, p.bounds[1:]):
        assert b.upper < a.lower


def test_delta_and_epsilon_are_consistent():
    e = dpcert.dpsgd_epsilon(delta="1e-5", method="pld", **RUN)
    p = dpcert.dpsgd_delta_profile([e.lower, e.upper], **RUN)
    at_lower, at_upper = p.bounds
    # the exact δ(ε) is decreasing and δ(ε*) = 1e-5 with ε* ∈ [lower, upper]
    assert at_upper.lower <= decimal.Decimal("1e-5") <= at_lower.upper


def test_profile_accepts_floats_and_refuses_bad_input():
    p = dpcert.dpsgd_delta_profile([0.5, 1.0], rate=0.01, sigma=1.0, steps=500)
    assert p.bounds[0] == dpcert.dpsgd_delta("0.5", **RUN)
    with pytest.raises(ValueError, match="epsilon"):
        dpcert.dpsgd_delta_profile(["-1"], **RUN)
    with pytest.raises(ValueError, match="rate"):
        dpcert.dpsgd_delta_profile(["1"], rate="1.5", sigma="1", steps=10)
    with pytest.raises(ValueError, match="sigma|noise"):
        dpcert.dpsgd_delta_profile(["1"], rate="0.1", sigma="-1", steps=10)
    with pytest.raises(ValueError, match="epsilon"):
        dpcert.dpsgd_delta_profile([float("nan")], **RUN)
    with pytest.raises(ValueError, match="phases"):
        dpcert.dpsgd_delta_profile(["1"], phases=[("0.1", "1")])


def test_cli_refuses_epsilon_where_it_is_not_certified(cli):
    base = ["dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "50", "--epsilon", "1"]
    for extra, flag in [(["--method", "rdp"], "--method"),
                        (["--sampling", "shuffled"], "--sampling"),
                        (["--relation", "substitution"], "--sampling"),
                        (["--group-size", "2"], "--group-size"),
                        (["--tight"], "--tight"),
                        (["--delta", "1e-5"], "delta")]:
        code, out, err = cli(base + extra)
        assert code == 2, (extra, err)
        assert flag in (err + str(out)), (extra, err)
