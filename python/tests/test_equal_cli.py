"""The package's numbers are the CLI's, bit for bit: every `dpcert vectors` query and a few
hundred more queries across every single-value command, compared as whole `--json` objects
(and as decimal strings through the `Bound` type)."""
import decimal
import itertools
import json

import pytest

import dpcert


def result_of(cli_json):
    """The CLI's result object (a dpcert/1 envelope's `result`, or the bare object)."""
    if isinstance(cli_json, dict) and "result" in cli_json and "schema" in cli_json:
        return cli_json["result"]
    return cli_json


def test_vectors_equal_cli(cli, dpcert_bin):
    import subprocess

    p = subprocess.run([dpcert_bin, "vectors", "--json"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    doc = result_of(json.loads(p.stdout))
    vectors = doc["vectors"]
    assert len(vectors) >= 200
    assert [v["query"] for v in vectors] == dpcert.vector_queries()
    for v in vectors:
        b = dpcert.query(v["query"])
        # the same decimal strings, and the same numbers through Bound
        q = v["value"]
        assert (b.lower_text, b.upper_text) == (q["lower"], q["upper"]), v["query"]
        assert b.upper == decimal.Decimal(q["upper"]), v["query"]
        assert b.lower == (None if q["lower"] is None else decimal.Decimal(q["lower"])), v["query"]
        assert b.raw["value"] == q
        assert b.theorem == v["theorem"]


def _queries():
    qs = []
    for s, e, k in itertools.product(["0.5", "1", "3.7", "20"], ["0", "0.1", "1", "5"], ["1", "7"]):
        qs.append(["gaussian", "delta", "--sigma", s, "--epsilon", e, "--compositions", k])
    for s, d, dd in itertools.product(["0.8", "2", "11"], ["1e-5", "1e-9", "0.3"], ["1", "1/3"]):
        qs.append(["gaussian", "epsilon", "--sigma", s, "--delta", d, "--sensitivity", dd])
    for e, d, k in itertools.product(["0.5", "2"], ["1e-6", "1e-3"], ["1", "40"]):
        qs.append(["gaussian", "sigma", "--epsilon", e, "--delta", d, "--compositions", k])
    for r, e in itertools.product(["1e-4", "0.02", "0.5", "3"], ["0", "0.3", "4"]):
        qs.append(["zcdp", "delta", "--rho", r, "--epsilon", e])
    for r, d in itertools.product(["1e-4", "0.02", "0.5", "3"], ["1e-5", "1e-12"]):
        qs.append(["zcdp", "epsilon", "--rho", r, "--delta", d])
    for e, k, d in itertools.product(["0.01", "0.5"], ["1", "10", "300"], ["1e-6", "1e-2"]):
        qs.append(["compose", "pure", "--epsilon", e, "--count", k, "--delta", d])
    for e, k in itertools.product(["0.1", "1"], ["5", "50"]):
        qs.append(["compose", "approx", "--epsilon", e, "--delta-each", "1e-7", "--count", k, "--delta", "1e-5"])
    for q, s, a in itertools.product(["0.01", "256/60000"], ["0.9", "2"], ["2", "7.5", "32"]):
        qs.append(["rdp", "subsampled-gaussian", "--rate", q, "--sigma", s, "--steps", "1000", "--order", a])
    for q, s, m in itertools.product(["0.01", "1/64"], ["1", "2.5"], ["pld", "rdp"]):
        qs.append(["dpsgd", "--rate", q, "--sigma", s, "--steps", "200", "--delta", "1e-5", "--method", m])
    for s, k in itertools.product(["0.5", "3"], ["1", "9"]):
        qs.append(["gdp", "gaussian", "--sigma", s, "--compositions", k])
        qs.append(["tradeoff", "gaussian", "--sigma", s, "--fpr", "0.01", "--compositions", k])
    qs.append(["tradeoff", "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--fpr", "0.05"])
    qs.append(["gaussian", "delta", "--sigma", "1", "--epsilon", "1", "--precision", "200"])
    qs.append(["zcdp", "epsilon", "--rho", "0.1", "--delta", "1e-5", "--precision", "64"])
    return qs


QUERIES = _queries()


def test_query_count():
    assert len(QUERIES) + len(dpcert.vector_queries()) >= 300


@pytest.mark.parametrize("args", QUERIES, ids=[" ".join(q) for q in QUERIES])
def test_query_json_equals_cli(cli, args):
    code, out, err = cli(args)
    assert code == 0, err
    b = dpcert.query(args)
    # the whole object: same keys, same strings (bit-for-bit decimals), same floats
    assert b.raw == result_of(out)
    assert b.upper == decimal.Decimal(result_of(out)["value"]["upper"])


def test_keyword_functions_build_the_cli_queries(cli):
    pairs = [
        (dpcert.gaussian_delta(sigma=1, epsilon=1), ["gaussian", "delta", "--sigma", "1", "--epsilon", "1"]),
        (dpcert.gaussian_epsilon(sigma="1.1", delta="1e-5", compositions=3),
         ["gaussian", "epsilon", "--sigma", "1.1", "--delta", "1e-5", "--compositions", "3"]),
        (dpcert.gaussian_sigma(epsilon=1, delta="1e-6", sensitivity=2),
         ["gaussian", "sigma", "--epsilon", "1", "--delta", "1e-6", "--sensitivity", "2"]),
        (dpcert.zcdp_delta(rho="0.1", epsilon=1), ["zcdp", "delta", "--rho", "0.1", "--epsilon", "1"]),
        (dpcert.zcdp_epsilon(rho="0.1", delta="1e-6"), ["zcdp", "epsilon", "--rho", "0.1", "--delta", "1e-6"]),
        (dpcert.compose(epsilon="0.1", count=100, delta="1e-6"),
         ["compose", "pure", "--epsilon", "0.1", "--count", "100", "--delta", "1e-6"]),
        (dpcert.compose(epsilon="0.1", count=10, delta="1e-6", delta_each="1e-8"),
         ["compose", "approx", "--epsilon", "0.1", "--delta-each", "1e-8", "--count", "10", "--delta", "1e-6"]),
        (dpcert.rdp(rate="0.01", sigma=1, steps=100, order=8),
         ["rdp", "subsampled-gaussian", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--order", "8"]),
        (dpcert.gdp_mu(sigma=2, compositions=4), ["gdp", "gaussian", "--sigma", "2", "--compositions", "4"]),
        (dpcert.dpsgd_gdp_mu(rate="256/60000", sigma="1.1", steps=14063),
         ["gdp", "dpsgd", "--rate", "256/60000", "--sigma", "1.1", "--steps", "14063"]),
        (dpcert.tradeoff_tpr(sigma=2, fpr="0.05"), ["tradeoff", "gaussian", "--sigma", "2", "--fpr", "0.05"]),
        (dpcert.dpsgd_tradeoff_tpr(rate="0.01", sigma=1, steps=100, fpr="0.05"),
         ["tradeoff", "dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "100", "--fpr", "0.05"]),
        (dpcert.dpsgd_epsilon(rate="256/60000", sigma="1.1", steps=14063, delta="1e-5", method="pld"),
         ["dpsgd", "--rate", "256/60000", "--sigma", "1.1", "--steps", "14063", "--delta", "1e-5", "--method", "pld"]),
    ]
    for b, args in pairs:
        code, out, err = cli(args)
        assert code == 0, err
        assert b.raw == result_of(out), args


def test_exact_inputs_are_the_same_number():
    from fractions import Fraction
    from decimal import Decimal

    ref = dpcert.gaussian_delta(sigma="1.1", epsilon="0.5")
    for s in (Fraction(11, 10), Decimal("1.1"), "11/10", "1.10", "0.011e2"):
        assert dpcert.gaussian_delta(sigma=s, epsilon=Fraction(1, 2)) == ref
