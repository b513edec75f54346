"""The progress bar of long calls (the PLD accountant's repeated squarings).

The native layer calls :func:`update` when a call has run for a second and its progress
changes, and :func:`close` when it ends. With ``tqdm`` installed, ``tqdm.auto`` draws the bar
(a widget in a notebook, a text bar in a terminal); otherwise one line on ``sys.stderr`` is
rewritten. :func:`dpcert.set_progress` turns it off. Display only: no number comes from here.
"""
import sys

enabled = True
_bar = None


def update(done: int, total: int) -> None:
    global _bar
    if not enabled:
        return
    if _bar is None:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            _bar = _Line()
        else:
            _bar = tqdm(total=total, desc="dpcert", unit="squaring", leave=False)
    if _bar.total != total:
        _bar.total = total
    _bar.n = done
    _bar.refresh()


def close() -> None:
    global _bar
    if _bar is not None:
        _bar.close()
        _bar = None


class _Line:
    """A one-line text bar on stderr (no tqdm)."""

    def __init__(self) -> None:
        self.total = 0
        self.n = 0

    def refresh(self) -> None:
        width = 30
        filled = width * self.n // self.total if self.total else 0
        sys.stderr.write(f"\rdpcert [{'#' * filled}{'.' * (width - filled)}] {self.n}/{self.total} squarings")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()
