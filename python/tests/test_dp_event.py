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
