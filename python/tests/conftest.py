"""Shared fixtures: the `dpcert` command the package must agree with bit-for-bit."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _binary():
    env = os.environ.get("DPCERT_BIN")
    if env:
        return env
    for p in (REPO / "target" / "debug" / "dpcert", REPO / "target" / "release" / "dpcert"):
        if p.exists():
            return str(p)
    return shutil.which("dpcert")


@pytest.fixture(scope="session")
def dpcert_bin():
    b = _binary()
    if not b:
        pytest.fail("no dpcert binary: set DPCERT_BIN (scripts/test-python does)")
    return b


@pytest.fixture(scope="session")
def cli(dpcert_bin):
    """Run `dpcert ARGS --json`; returns (exit code, parsed stdout or None, stderr)."""

    def run(args, json_flag=True):
        argv = [dpcert_bin] + list(args) + (["--json"] if json_flag else [])
        p = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        try:
            out = json.loads(p.stdout) if p.stdout.strip() else None
        except json.JSONDecodeError:
            out = None
        return p.returncode, out, p.stderr

    return run


@pytest.fixture(scope="session")
def examples():
    return REPO / "examples"
