"""The progress bar of long calls (the PLD accountant's repeated squarings).

The native layer calls :func:`update` when a call has run :data:`delay` seconds (1 by
default; tqdm's ``delay``) and its progress changes, and :func:`close` when it ends. Where it draws follows tqdm's conventions: by default
(``enabled = None``) only where someone watches — ``sys.stderr`` is a terminal, or the code runs
in a Jupyter kernel (a notebook widget via ``tqdm.auto``) — and never into a pipe, a file or a
CI log. :func:`dpcert.set_progress` forces it on (``True``) or off (``False``). With ``tqdm``
installed, ``tqdm.auto`` draws the bar; otherwise one line on ``sys.stderr`` is rewritten.
Display only: no number comes from here.
"""
import sys

enabled = None  # None: auto (a terminal or a notebook); True: always; False: never
delay = 1.0  # seconds a call runs before its bar may appear (read by the native layer)
_bar = None


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython's ZMQ shell), where output is watched."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:
        return False
    return shell is not None and hasattr(shell, "kernel")


def watched() -> bool:
    """Whether a bar would be seen now: :data:`enabled`, or in auto mode a terminal or a
    notebook."""
    if enabled is not None:
        return enabled
    if _in_notebook():
        return True
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stderr
        return False


def update(done: int, total: int) -> None:
    global _bar
    if _bar is None:
        if not watched():
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            _bar = _Line()
        else:
            # disable=False: whether to draw was decided above (tqdm's own default would hide a
            # bar forced on into a pipe)
            _bar = tqdm(total=total, desc="dpcert", unit="squaring", leave=False, disable=False)
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
