"""dpcert.dp_accounting.CertifiedAccountant against the real dp_accounting package: it is a
PrivacyAccountant, composes every DpEvent dpcert certifies (the audit's numbers), refuses the
rest with dp_accounting's own UnsupportedEventError, answers ε and δ, follows the
neighbouring relation, and drops into dp_accounting's own calibration as the accountant."""
import math
from decimal import Decimal

import pytest

dp_accounting = pytest.importorskip("dp_accounting")

import dpcert  # noqa: E402
from dpcert.dp_accounting import CertifiedAccountant  # noqa: E402

NR = dp_accounting.NeighboringRelation
DPSGD = dp_accounting.SelfComposedDpEvent(
    dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)), 500)


def test_it_is_a_privacy_accountant_with_the_audit_numbers(cli):
    acc = CertifiedAccountant()
    assert isinstance(acc, dp_accounting.PrivacyAccountant)
    assert acc.neighboring_relation is NR.ADD_OR_REMOVE_ONE
    assert acc.get_epsilon(1e-5) == 0.0  # nothing composed: (0, 0)-DP
    assert acc.supports(DPSGD)
    acc.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)), 500)
    b = acc.get_epsilon(1e-5, bracket=True)
    # the same bracket as `dpcert dpsgd` for the same (q, σ, T)
    code, out, err = cli(["dpsgd", "--rate", "0.01", "--sigma", "1.0", "--steps", "500",
                          "--delta", "1e-5"])
    assert code == 0, err
    q = out["result"]["value"]
    assert b.two_sided
    assert Decimal(q["lower"]) <= b.upper and b.lower <= Decimal(q["upper"])  # both certified
    assert acc.get_epsilon(1e-5) == b.upper_float
    # δ at ε: the certified δ(ε) at the ε's upper end is at most 1e-5 (from below) and the
    # dpsgd_delta bracket overlaps the accountant's
    d = acc.get_delta(float(b.upper), bracket=True)
    assert d.lower <= Decimal("1e-5")
    direct = dpcert.dpsgd_delta(str(b.upper), rate="0.01", sigma="1.0", steps=500)
    assert d.lower <= direct.upper and direct.lower <= d.upper
    # dp_accounting's own PLD accountant (a float estimate) lies within 1 % of the bracket
    ref = dp_accounting.pld.PLDAccountant().compose(DPSGD).get_epsilon(1e-5)
    assert float(b.lower) * 0.99 <= ref <= float(b.upper) * 1.01


def test_compose_chains_and_mixes_events():
    acc = CertifiedAccountant()
    got = acc.compose(dp_accounting.GaussianDpEvent(2.0), 3).compose(
        dp_accounting.LaplaceDpEvent(10.0)).compose(dp_accounting.ZCDpEvent(0.01))
    assert got is acc
    eps = acc.get_epsilon(1e-5)
    report = dpcert.audit(acc.ledger, delta="1e-5")
    assert eps == report.epsilon.upper_float
    assert math.isfinite(acc.get_delta(1.0)) and 0 < acc.get_delta(1.0) < 1


@pytest.mark.parametrize("event", [
    dp_accounting.NonPrivateDpEvent(),
    dp_accounting.RandomizedResponseDpEvent(0.5, 4),  # replace-one only, as dp_accounting says
    dp_accounting.SampledWithReplacementDpEvent(1000, 10, dp_accounting.GaussianDpEvent(1.0)),
    dp_accounting.UnsupportedDpEvent(),
    dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.LaplaceDpEvent(1.0)),
    dp_accounting.SampledWithoutReplacementDpEvent(1000, 10, dp_accounting.GaussianDpEvent(1.0)),
])
def test_unsupported_events_raise_dp_accountings_error(event):
    acc = CertifiedAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(1.0))
    assert not acc.supports(event)
    with pytest.raises(dp_accounting.UnsupportedEventError):
        acc.compose(event)
    # the ledger is unchanged
    assert acc.ledger == dp_accounting.GaussianDpEvent(1.0)


def test_randomized_response_is_certified_under_replace_one():
    # k-ary randomized response (ε = ln(1 + k(1−p)/p) enclosed, not refused), under the relation
    # dp_accounting defines it for; its own PLD accountant (floats) must lie in our bracket's
    # reach: at most our certified upper end plus its discretisation slack, and three pure
    # ln 5 releases are at most 3 ln 5 (basic composition, an independent upper bound)
    relation = dp_accounting.NeighboringRelation.REPLACE_ONE
    acc = CertifiedAccountant(relation)
    event = dp_accounting.RandomizedResponseDpEvent(0.5, 4)
    assert acc.supports(event)
    acc.compose(event, 3)
    eps = acc.get_epsilon(1e-6)
    # composed one event at a time: dp-accounting 0.6's PLDAccountant.compose(event, 3) ignores
    # the count for this class (it answers ln 5 ≈ 1.6095, the unsafe side); step by step it is
    # 4.8284959, a pessimistic discretisation of the same composition
    theirs = dp_accounting.pld.PLDAccountant(relation)
    for _ in range(3):
        theirs.compose(event)
    theirs = theirs.get_epsilon(1e-6)
    assert eps <= 3 * math.log(5) * (1 + 1e-12)
    assert abs(eps - theirs) <= 1e-3 * eps, (eps, theirs)


def test_replace_one_follows_the_relation():
    acc = CertifiedAccountant(NR.REPLACE_ONE)
    swr = dp_accounting.SelfComposedDpEvent(dp_accounting.SampledWithoutReplacementDpEvent(
        1000, 10, dp_accounting.GaussianDpEvent(1.0)), 100)
    assert acc.supports(swr)
    assert not acc.supports(DPSGD)  # Poisson sampling is read under add/remove
    with pytest.raises(dp_accounting.UnsupportedEventError, match="PoissonSampled"):
        acc.compose(DPSGD)
    acc.compose(swr)
    assert 0 < acc.get_epsilon(1e-5) < 10
    with pytest.raises(ValueError, match="neighboring_relation"):
        CertifiedAccountant(NR.REPLACE_SPECIAL)


def test_bad_numbers_are_value_errors():
    acc = CertifiedAccountant()
    with pytest.raises(ValueError):
        acc.compose(dp_accounting.GaussianDpEvent(float("nan")))
    assert isinstance(acc.ledger, dp_accounting.NoOpDpEvent)
    with pytest.raises(dp_accounting.UnsupportedEventError):
        acc.compose(dp_accounting.GaussianDpEvent(-1.0))
    acc.compose(dp_accounting.GaussianDpEvent(1.0))
    with pytest.raises(ValueError, match="delta"):
        acc.get_epsilon(1.5)
    with pytest.raises(ValueError, match="delta"):
        acc.get_epsilon(float("nan"))


def test_dp_accountings_own_calibration_runs_on_it():
    # mechanism_calibration.calibrate_dp_mechanism takes an accountant factory: the one-line
    # swap is make_fresh_accountant=CertifiedAccountant
    sigma = dp_accounting.calibrate_dp_mechanism(
        make_fresh_accountant=CertifiedAccountant,
        make_event_from_param=lambda s: dp_accounting.GaussianDpEvent(s),
        target_epsilon=1.0, target_delta=1e-5,
        bracket_interval=dp_accounting.ExplicitBracketInterval(0.5, 10.0))
    exact = dpcert.gaussian_sigma(epsilon=1, delta="1e-5")
    # the float search lands on a σ whose certified ε is ≤ 1: at or above the exact minimum
    assert Decimal(sigma) >= exact.lower
    assert dpcert.gaussian_epsilon(sigma=sigma, delta="1e-5").upper <= 1
