"""The typed path: a query given as a request (the command line's own typed question, no
argument vector) answers exactly what `dpcert ARGS --json` prints, and a bad request raises
ValueError naming its key."""
from fractions import Fraction

import pytest

import dpcert


def result_of(envelope):
    return envelope["result"]


REQUESTS = [
    ({"command": "gaussian", "subcommand": "delta", "sigma": "1", "epsilon": "0.5"},
     ["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"]),
    ({"command": "compose", "subcommand": "approx", "epsilon": "0.1", "delta_each": "1e-8",
      "count": 10, "delta": "1e-6"},
     ["compose", "approx", "--epsilon", "0.1", "--delta-each", "1e-8", "--count", "10",
      "--delta", "1e-6"]),
    ({"command": "rdp", "subcommand": "subsampled-gaussian", "rate": Fraction(1, 100),
      "noise_multiplier": "1", "steps": "100", "order": "7.5"},
     ["rdp", "subsampled-gaussian", "--rate", "1/100", "--sigma", "1", "--steps", "100",
      "--order", "7.5"]),
    ({"command": "dpsgd", "phase": ["0.01,1,50", "0.02,2,50"], "delta": "1e-5"},
     ["dpsgd", "--phase", "0.01,1,50", "--phase", "0.02,2,50", "--delta", "1e-5"]),
    ({"command": "tradeoff", "subcommand": "dpsgd", "rate": "0.01", "sigma": "1",
      "steps": "100", "fpr": "0.05"},
     ["tradeoff", "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--fpr", "0.05"]),
]


@pytest.mark.parametrize("request_,args", REQUESTS, ids=[" ".join(a[:2]) for _, a in REQUESTS])
def test_a_request_answers_what_the_cli_prints(cli, request_, args):
    code, out, err = cli(args)
    assert code == 0, err
    assert dpcert.query(request_).raw == result_of(out)
    # and the argument list gives the same object
    assert dpcert.query(args).raw == result_of(out)


def test_typed_functions_equal_the_cli(cli):
    pairs = [
        (dpcert.dpsgd_epsilon(rate="0.01", sigma=1, steps=100, delta="1e-5", sampling="shuffled"),
         ["dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--delta", "1e-5",
          "--sampling", "shuffled"]),
        (dpcert.dpsgd_delta(epsilon=2, phases=[("0.01", 1, 50)]),
         ["dpsgd", "--phase", "0.01,1,50", "--epsilon", "2"]),
        (dpcert.calibrate_gaussian_sigma(target_epsilon=1, delta="1e-5", compositions=3),
         ["calibrate", "gaussian", "--target-epsilon", "1", "--delta", "1e-5",
          "--compositions", "3"]),
    ]
    for b, args in pairs:
        code, out, err = cli(args)
        assert code == 0, err
        assert b.raw == result_of(out), args
    c = dpcert.calibrate_dpsgd(target_epsilon=2, delta="1e-5", rate="0.01", steps=100,
                               method="rdp")
    args = ["calibrate", "dpsgd", "--target-epsilon", "2", "--delta", "1e-5", "--rate", "0.01",
            "--steps", "100", "--method", "rdp"]
    code, out, err = cli(args)
    assert code == 0, err
    assert c.raw == result_of(out)


@pytest.mark.parametrize(
    "request_,name",
    [
        ({"command": "gaussian", "subcommand": "delta", "sigma": "1", "epsilon": "1",
          "sigmaa": "1"}, "sigmaa"),
        ({"command": "gaussian", "subcommand": "delta", "sigma": "abc", "epsilon": "1"}, "sigma"),
        ({"command": "gaussian", "subcommand": "delta", "sigma": "1"}, "epsilon"),
        ({"command": "gaussian", "subcommand": "nope"}, "subcommand"),
        ({"command": "dpsgd", "rate": "0.01", "sigma": 1, "steps": 10, "delta": "1e-5",
          "tight": "yes"}, "tight"),
        ({"command": "compose", "subcommand": "approx", "epsilon": 1, "delta_each": 2,
          "count": 3, "delta": "1e-5"}, "delta_each"),
    ],
)
def test_a_bad_request_names_its_key(request_, name):
    with pytest.raises(ValueError) as e:
        dpcert.query(request_)
    assert f"invalid {name}:" in str(e.value)
