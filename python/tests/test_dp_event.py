"""DpEvent interop with the real dp_accounting package: a DP-SGD event audits to the same
bracket as `dpcert dpsgd --method pld` and as the equivalent TOML; other events map onto the
deployment entries they describe; events dpcert cannot certify are refused by name."""
import json
from fractions import Fraction

import pytest

import dpcert

dp_event = pytest.importorskip("dp_accounting").dp_event


def frac(x):
    """The exact text of a number as dpcert reads it: a float is its shortest decimal (its
    repr), anything else its exact fraction."""
    if isinstance(x, float):
        return repr(x)
    f = Fraction(x)
    return f"{f.numerator}/{f.denominator}"


def dpsgd_event(q, sigma, steps):
    return dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), steps
    )


def result_of(out):
    return out["result"] if isinstance(out, dict) and "schema" in out else out


@pytest.mark.parametrize(
    "q,sigma,steps",
    [(256 / 60000, 1.1, 14063), (Fraction(1, 64), Fraction(5, 4), 300)],
)
def test_dpsgd_event_audits_like_dpsgd_pld_and_toml(cli, tmp_path, q, sigma, steps):
    ev = dpsgd_event(q, sigma, steps)
    report = dpcert.audit(ev, delta="1e-5")
    # the CLI's PLD accountant on the same exact numbers (a float is its shortest decimal)
    args = ["dpsgd", "--rate", frac(q), "--sigma", frac(sigma), "--steps", str(steps),
            "--delta", "1e-5", "--method", "pld"]
    code, out, err = cli(args)
    assert code == 0, err
    pld = result_of(out)["value"]
    assert report.route.lower() == "pld"
    assert (report.epsilon.lower_text, report.epsilon.upper_text) == (pld["lower"], pld["upper"])
    assert report.epsilon.kind == "two-sided"
    # the equivalent TOML, audited by the CLI
    toml = tmp_path / "dpsgd.toml"
    toml.write_text(
        '[budget]\ndelta = "1e-5"\n\n[[mechanism]]\ntype = "subsampled-gaussian"\n'
        f'sigma = "{frac(sigma)}"\nrate = "{frac(q)}"\nsteps = {steps}\n'
    )
    code, out, err = cli(["audit", str(toml)])
    assert code == 0, err
    assert result_of(out)["epsilon"]["lower"] == pld["lower"]
    assert result_of(out)["epsilon"]["upper"] == pld["upper"]
    # and the same TOML through the package (file path)
    assert dpcert.audit(str(toml)).epsilon == report.epsilon


def test_named_tuple_and_json_forms_audit_alike():
    ev = dpsgd_event(Fraction(1, 100), Fraction(3, 2), 10)
    a = dpcert.audit(ev, delta="1e-6")
    b = dpcert.audit(ev.to_named_tuple(), delta="1e-6")
    c = dpcert.audit(json.loads(json.dumps(dpcert.dp_event_json(ev))), delta="1e-6")
    assert a.epsilon == b.epsilon == c.epsilon


def epsilon_delta(eps, delta):
    """EpsilonDeltaDpEvent (older dp_accounting releases lack it: its dict form then)."""
    cls = getattr(dp_event, "EpsilonDeltaDpEvent", None)
    if cls is not None:
        return cls(eps, delta)
    return {"class_name": "EpsilonDeltaDpEvent", "epsilon": eps, "delta": delta}


def test_mixed_tree_maps_to_the_deployment_it_describes(cli, tmp_path):
    ev = dp_event.ComposedDpEvent([
        dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(Fraction(8)), 52),
        dp_event.LaplaceDpEvent(Fraction(10)),
        dp_event.NoOpDpEvent(),
        epsilon_delta(Fraction(1, 10), 0),
        epsilon_delta(Fraction(1, 2), Fraction(1, 10**7)),
        dp_event.ZCDpEvent(Fraction(1, 100)),
        dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(Fraction(8)), 52),
    ])
    mechs = dpcert.from_dp_event(ev)
    assert mechs == [
        {"name": "#1", "type": "gaussian", "sigma": "8", "sensitivity": "1", "repeat": "104"},
        {"name": "#2", "type": "laplace", "scale": "10", "sensitivity": "1"},
        {"name": "#3", "type": "pure", "epsilon": "0.1"},
        {"name": "#4", "type": "approx", "epsilon": "0.5", "delta": "1e-7"},
        {"name": "#5", "type": "zcdp", "rho": "0.01"},
    ]
    deployment = {"budget": {"delta": "1e-6", "epsilon": "2"}, "claim": {"epsilon": "3", "delta": "1e-6"},
                  "mechanism": mechs}
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(deployment))
    code, out, err = cli(["audit", str(path)])
    assert code in (0, 1, 4), err
    via_event = dpcert.audit(ev, delta="1e-6", epsilon="2", claim=("3", "1e-6"))
    assert via_event.raw == result_of(out)
    assert via_event.verdict in ("verified", "refuted", "undecided")


@pytest.mark.parametrize(
    "event,needle",
    [
        (dp_event.NonPrivateDpEvent(), "NonPrivateDpEvent"),
        (dp_event.RandomizedResponseDpEvent(0.0, 2), "RandomizedResponseDpEvent"),
        (dp_event.SampledWithoutReplacementDpEvent(1000, 10, dp_event.LaplaceDpEvent(1.0)),
         "fixed-size subsampling"),
        (dp_event.UnsupportedDpEvent(), "UnsupportedDpEvent"),
        (dp_event.DiscreteLaplaceDpEvent(0.0, 1), "noise_parameter"),
        (dp_event.PoissonSampledDpEvent(0.1, dp_event.LaplaceDpEvent(1.0)), "Poisson subsampling of a laplace"),
        (dp_event.ComposedDpEvent([dp_event.GaussianDpEvent(1.0), dp_event.NonPrivateDpEvent()]),
         "event.events[1]"),
        (dp_event.GaussianDpEvent(0.0), "noise_multiplier"),
    ],
)
def test_events_dpcert_cannot_certify_are_refused_by_name(event, needle):
    with pytest.raises(ValueError) as e:
        dpcert.audit(event, delta="1e-6")
    assert needle in str(e.value)
    with pytest.raises(ValueError):
        dpcert.from_dp_event(event)  # the deployment entries cannot be written either


def test_noop_only_is_zero_privacy_loss():
    r = dpcert.audit(dp_event.NoOpDpEvent(), epsilon="0")
    assert r.delta is not None and r.delta.upper == 0


# ---- every DpEvent class against dp_accounting's own value -------------------------------
# dp_accounting's accountants are floats: its PLD accountant (value_discretization_interval
# 1e-4, pessimistic) over-estimates ε by at most about the interval times the number of
# compositions' discretisation steps; its RDP accountant evaluates a fixed grid of orders. The
# tolerances below are those, stated per test.

def _da():
    import dp_accounting as da
    return da


def _rdp_eps(ev, delta, relation=None):
    da = _da()
    rel = relation or da.NeighboringRelation.ADD_OR_REMOVE_ONE
    acc = da.rdp.RdpAccountant(neighboring_relation=rel)
    acc.compose(ev)
    return acc.get_epsilon(delta)


def _pld_eps(ev, delta):
    acc = _da().pld.PLDAccountant()
    acc.compose(ev)
    return acc.get_epsilon(delta)


def test_tree_aggregation_is_the_gaussian_dp_accounting_accounts():
    """dp_accounting's RDP for a tree over [100, 30] steps (σ = 4) is α·7/(2·16): the Gaussian
    with ρ = 7/32. dpcert's exact Gaussian bracket lies below it (RDP conversion is loose) and
    contains dp_accounting's PLD value of that Gaussian within its discretisation (1e-4)."""
    ev = dp_event.SingleEpochTreeAggregationDpEvent(4.0, [100, 30])
    theirs_rdp = _rdp_eps(ev, 1e-5, _da().NeighboringRelation.REPLACE_SPECIAL)
    theirs_pld = _pld_eps(dp_event.GaussianDpEvent(4.0 / 7 ** 0.5), 1e-5)
    r = dpcert.audit(ev, delta="1e-5")
    assert r.epsilon.kind == "two-sided"
    lo, up = float(r.epsilon.lower), r.epsilon.upper_float
    assert up < theirs_rdp
    assert lo - 1e-4 <= theirs_pld <= up + 1e-4
    # dpcert's zCDP route is dp_accounting's RDP figure, certified (same curve αρ)
    zcdp = [x for x in r.routes if x["id"] == "zcdp"][0]
    assert abs(zcdp["epsilon"].upper_float - theirs_rdp) <= 1e-4 * theirs_rdp


def test_mixture_of_gaussians_brackets_dp_accounting():
    """Sensitivities {0, 1}: the Poisson-subsampled Gaussian, whose exact ε dpcert brackets;
    dp_accounting's PLD value (pessimistic, interval 1e-4, 20 compositions) lies in the bracket
    or above it by at most 2e-3. Unequal sensitivities: dpcert's dominating bound is an upper
    bound, at or above dp_accounting's value."""
    exact = dp_event.SelfComposedDpEvent(
        dp_event.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.9, 0.1]), 20)
    theirs = _pld_eps(exact, 1e-5)
    r = dpcert.audit(exact, delta="1e-5")
    assert r.epsilon.kind == "two-sided"
    assert float(r.epsilon.lower) - 1e-4 <= theirs <= r.epsilon.upper_float + 2e-3
    general = dp_event.SelfComposedDpEvent(
        dp_event.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0, 2.0], [0.81, 0.18, 0.01]), 20)
    theirs = _pld_eps(general, 1e-5)
    r = dpcert.audit(general, delta="1e-5")
    assert r.epsilon.kind == "upper-bound"
    assert r.epsilon.upper_float >= theirs


def test_repeat_and_select_matches_dp_accounting_rdp():
    """Papernot & Steinke 2022 Theorem 2, in both: dpcert searches real orders, dp_accounting a
    grid, so the two ε agree to 1 % (either may be lower)."""
    sgd = dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)), 1000)
    for inner, mean, shape in [(sgd, 10, 1), (dp_event.GaussianDpEvent(2.0), 10, 0),
                               (dp_event.GaussianDpEvent(2.0), 5, 2.5)]:
        ev = dp_event.RepeatAndSelectDpEvent(inner, mean, shape)
        theirs = _rdp_eps(ev, 1e-5)
        r = dpcert.audit(ev, delta="1e-5")
        assert r.epsilon.kind == "upper-bound"
        assert abs(r.epsilon.upper_float - theirs) <= 0.01 * theirs, (mean, shape, theirs)
    # shape ∞: a Poisson number of runs (Theorem 6)
    ev = dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(2.0), 5, float("inf"))
    theirs = _rdp_eps(ev, 1e-5)
    r = dpcert.audit(ev, delta="1e-5")
    assert abs(r.epsilon.upper_float - theirs) <= 0.01 * theirs, theirs


def _pure_pld_eps(pld, delta):
    return pld.self_compose(10).get_epsilon_for_delta(delta)


def test_exponential_and_permute_and_flip_against_dp_accounting():
    """dp_accounting's PLD accountant takes the exponential mechanism as the worst-case ε-DP
    PLD (from_privacy_parameters(ε, 0)) — dpcert's ε-DP black box, so the values agree within
    the discretisation — and permute-and-flip as the Laplace PLD with parameter 1/ε, below
    dpcert's ε-DP bound (McKenna & Sheldon prove ε-DP; the Laplace PLD is dp_accounting's own
    reading). Older releases lack the classes: their dict form, and the PLDs they build."""
    from dp_accounting.pld import common, privacy_loss_distribution as P
    worst = P.from_privacy_parameters(common.DifferentialPrivacyParameters(0.3, 0),
                                      value_discretization_interval=1e-4)
    laplace = P.from_laplace_mechanism(1 / 0.3, value_discretization_interval=1e-4)
    for cls, theirs in [("ExponentialMechanismDpEvent", _pure_pld_eps(worst, 1e-5)),
                        ("PermuteAndFlipDpEvent", _pure_pld_eps(laplace, 1e-5))]:
        one = getattr(dp_event, cls, None)
        one = one(0.3) if one is not None else {"class_name": cls, "epsilon": 0.3}
        ev = dp_event.SelfComposedDpEvent(one, 10)
        r = dpcert.audit(ev, delta="1e-5")
        assert r.epsilon.upper_float >= theirs - 1e-3, cls
        if cls == "ExponentialMechanismDpEvent":
            assert float(r.epsilon.lower) - 1e-3 <= theirs <= r.epsilon.upper_float + 1e-3


def test_sampling_with_replacement_is_refused_as_by_dp_accounting():
    ev = dp_event.SampledWithReplacementDpEvent(100, 10, dp_event.GaussianDpEvent(1.0))
    for acc in (_da().rdp.RdpAccountant(), _da().pld.PLDAccountant()):
        assert not acc.supports(ev)
    with pytest.raises(ValueError, match="sampling with replacement"):
        dpcert.audit(ev, delta="1e-5")


def test_zcdp_with_xi_matches_dp_accounting_rdp():
    """(ξ, ρ)-zCDP: RDP ξ + ρα in both; dpcert's conversion (real orders) within 1 % of
    dp_accounting's (order grid), and not above it by more than that."""
    ev = dp_event.SelfComposedDpEvent(dp_event.ZCDpEvent(0.05, 0.01), 4)
    theirs = _rdp_eps(ev, 1e-6)
    r = dpcert.audit(ev, delta="1e-6")
    assert abs(r.epsilon.upper_float - theirs) <= 0.01 * theirs
