"""Helpers for other libraries' test suites: dpcert as the golden reference.

    from dpcert.testing import assert_sound
    assert_sound(["gaussian", "epsilon", "--sigma", "1", "--delta", "1e-5"], my_epsilon)

``assert_sound`` passes when the value is a valid guarantee (``dpcert check`` says *sound*),
and raises ``AssertionError`` with dpcert's certified bracket of the smallest valid value
otherwise (*unsound*, *undecided* or *invalid*; ``allow_undecided=True`` lets undecided
values pass).
"""
from __future__ import annotations

from typing import Any, Sequence

from . import check

__all__ = ["assert_sound"]


def assert_sound(query: Sequence[str], value: Any, allow_undecided: bool = False) -> dict:
    """Assert that ``value`` is a valid answer to ``query`` (the arguments one would pass to
    ``dpcert``, e.g. ``["dpsgd", "--rate", "0.01", "--sigma", "1", "--steps", "1000",
    "--delta", "1e-5"]``): at least the smallest valid value t*. Returns the check record."""
    (r,) = check([{"query": [str(a) for a in query], "value": value}])
    verdict = r["verdict"]
    if verdict == "sound" or (allow_undecided and verdict == "undecided"):
        return r
    b = r.get("bracket")
    bracket = (
        f"certified smallest valid value ∈ [{b.get('lower')}, {b.get('upper')}] ({b.get('kind')})"
        if b
        else "no bracket"
    )
    raise AssertionError(
        f"dpcert: value {r['value']} for `dpcert {' '.join(query)}` is {verdict}: "
        f"{bracket}; {r['reason']}"
    )
