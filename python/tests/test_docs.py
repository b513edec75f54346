"""The Python examples of README.md and docs/*.md, run as doctests.

Every ```python block in those files is a doctest session (``>>>`` lines and the output they
print); the blocks of one file share one namespace, in order, as a reader typing them into one
interpreter would. A ```python block without ``>>>`` fails the test: an example that is not run
could drift. Files are run from the repository root, so relative paths such as
``examples/dpsgd-mnist.toml`` resolve as in the docs.
"""
from __future__ import annotations

import doctest
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(path: pathlib.Path):
    """(line number, text) of each ```python block of `path`."""
    text = path.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        yield text.count("\n", 0, m.start(1)) + 1, m.group(1)


def test_every_python_block_is_a_doctest():
    plain = [f"{p.relative_to(ROOT)}:{line}" for p in FILES for line, b in blocks(p)
             if ">>>" not in b]
    assert not plain, f"python blocks that would not run (write them as >>> sessions): {plain}"


@pytest.mark.parametrize("path", [p for p in FILES if any(True for _ in blocks(p))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict = {"__name__": "__docs__"}
    failures: list = []
    for line, text in blocks(path):
        name = f"{path.relative_to(ROOT)}:{line}"
        test = parser.get_doctest(text, globs, name, str(path), line - 1)
        runner.run(test, out=failures.append, clear_globs=False)
        globs = test.globs  # a DocTest copies its globals: carry them to the next block
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0
    assert failed == 0, "".join(failures)
