"""dpcert.testing.assert_sound and dpcert.check, against the CLI's `check`."""
import json
import subprocess

import pytest

import dpcert
from dpcert.testing import assert_sound

Q = ["gaussian", "epsilon", "--sigma", "1", "--delta", "1e-5"]


def test_assert_sound_passes_above_and_fails_below_with_the_bracket():
    b = dpcert.query(Q)
    assert assert_sound(Q, b.upper_text)["verdict"] == "sound"
    assert_sound(Q, float(b) * 1.01)
    with pytest.raises(AssertionError) as e:
        assert_sound(Q, "1.0")
    msg = str(e.value)
    assert "unsound" in msg and b.lower_text in msg and b.upper_text in msg


def test_assert_sound_fails_on_nan_and_invalid_queries():
    with pytest.raises(AssertionError, match="unsound"):
        assert_sound(Q, float("nan"))
    with pytest.raises(AssertionError, match="invalid"):
        assert_sound(["gaussian", "epsilon", "--sigma", "-1", "--delta", "1e-5"], "3")


def test_check_equals_cli_check(dpcert_bin, tmp_path):
    records = [
        {"query": Q, "value": "4.5"},
        {"query": Q, "value": "4.0"},
        {"query": ["zcdp", "epsilon", "--rho", "0.1", "--delta", "1e-6"], "value": "2.5"},
        {"query": ["compose", "pure", "--epsilon", "0.1", "--count", "10", "--delta", "1e-6"], "value": "1"},
        {"query": ["gaussian", "delta", "--sigma", "1", "--epsilon", "1"], "value": "NaN"},
        {"query": ["gaussian", "bogus"], "value": "1"},
        {"query": Q},
    ]
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    p = subprocess.run([dpcert_bin, "check", str(path), "--json"], capture_output=True, text=True)
    cli = json.loads(p.stdout)["result"]
    assert dpcert.check(records) == cli["records"]
