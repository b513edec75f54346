"""dpcert inside an Opacus training loop: a certified privacy accountant.

Swap Opacus's accountant for dpcert's with one line::

    engine = PrivacyEngine()
    engine.accountant = dpcert.opacus.CertifiedAccountant()   # before make_private
    model, optimizer, loader = engine.make_private(..., noise_multiplier=1.1, ...)
    ...                                                       # train
    engine.get_epsilon(1e-5)    # the certified upper end of ε (a float rounded up)

or ``PrivacyEngine(accountant="dpcert")`` (importing this module registers the name), and
:func:`make_private_with_epsilon` for a noise multiplier from dpcert's certified calibration.

Every step is one Poisson-subsampled Gaussian step (add/remove neighbours), as Opacus's own
accountants assume; the history keeps runs of equal steps as one entry ``(noise_multiplier,
sample_rate, steps)`` and a mixed schedule is composed exactly by the PLD accountant (the
phases of ``dpcert dpsgd --phase``). Numbers are taken as people write them: a float is the
shortest decimal that prints as it (``dpcert``'s convention), so the history holds exact
decimal strings and survives ``torch.save`` / ``torch.load(weights_only=True)``.
"""
from __future__ import annotations

import fractions
import warnings
from typing import Any, List, Optional, Tuple

from opacus.accountants import IAccountant
from opacus.accountants.registry import register_accountant

import dpcert

__all__ = ["CertifiedAccountant", "make_private_with_epsilon", "MECHANISM"]

MECHANISM = "dpcert"


def _checked_step(noise_multiplier: Any, sample_rate: Any, steps: Any = 1) -> Tuple[str, str, int]:
    """(σ, q, T) as exact strings and an int, or ValueError naming the bad one: σ > 0,
    q ∈ (0, 1], T ≥ 1, all finite (NaN and ±∞ refused)."""
    sigma = dpcert._exact("noise_multiplier", noise_multiplier)
    rate = dpcert._exact("sample_rate", sample_rate)
    try:
        s, q = fractions.Fraction(sigma), fractions.Fraction(rate)
    except (ValueError, ZeroDivisionError) as e:
        raise ValueError(f"invalid noise_multiplier or sample_rate: {e}") from None
    if s <= 0:
        raise ValueError(f"invalid noise_multiplier: must be > 0, got {noise_multiplier!r}")
    if not 0 < q <= 1:
        raise ValueError(f"invalid sample_rate: must be in (0, 1], got {sample_rate!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"invalid steps: must be an integer ≥ 1, got {steps!r}")
    return sigma, rate, steps


class CertifiedAccountant(IAccountant):
    """An Opacus accountant whose ε is dpcert's certified PLD accountant (two-sided; the
    float returned is the upper end rounded up).

    ``history`` is a list of ``(noise_multiplier, sample_rate, steps)`` — exact decimal
    strings and an int, one entry per run of equal consecutive steps, so 14 063 equal steps
    are one entry. Opacus code that assigns ``history`` directly (e.g. its noise search) may
    use floats; they are read as their shortest decimal.
    """

    def __init__(self) -> None:
        self.history: List[Tuple[Any, Any, int]] = []
        self._cache: dict = {}
        self._last: Optional[tuple] = None  # (raw inputs, the entry they wrote)

    # --- IAccountant -------------------------------------------------------------------
    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Count one optimizer step. Bad input (σ ≤ 0, q ∉ (0, 1], NaN, ±∞) raises
        ``ValueError`` and counts nothing."""
        raw = (type(noise_multiplier), noise_multiplier, type(sample_rate), sample_rate)
        last = self.history[-1] if self.history else None
        if last is not None and self._last is not None and self._last[0] == raw and self._last[1] is last:
            # the same values (and types) as the step that wrote the last entry, already
            # checked: one more of it (a history assigned from outside never matches)
            self._append_to_last(raw, (last[0], last[1], last[2] + 1))
            return
        sigma, rate, _ = _checked_step(noise_multiplier, sample_rate)
        if last is not None and (last[0], last[1]) == (sigma, rate):
            self._append_to_last(raw, (sigma, rate, int(last[2]) + 1))
        else:
            self.history.append((sigma, rate, 1))
            self._last = (raw, self.history[-1])

    def _append_to_last(self, raw: tuple, entry: Tuple[str, str, int]) -> None:
        self.history[-1] = entry
        self._last = (raw, entry)

    def get_epsilon(self, delta: float, *, bracket: bool = False, **kwargs: Any):
        """The certified ε at ``delta`` of every step counted so far: the upper end as a
        float rounded up (so the true ε is at most this), or with ``bracket=True`` the
        :class:`dpcert.Bound` ``[lower, upper]``. One phase is ``dpcert dpsgd --rate q
        --sigma σ --steps T --delta δ`` (the same bracket); a mixed schedule is its
        ``--phase`` form. No step yet: 0."""
        if kwargs:
            raise ValueError(f"invalid argument: {', '.join(kwargs)} (dpcert takes delta and bracket)")
        bound = self._epsilon_bound(delta)
        return bound if bracket else bound.upper_float

    def __len__(self) -> int:
        """The number of steps counted (the sum over the history's runs)."""
        return sum(int(steps) for _, _, steps in self.history)

    @classmethod
    def mechanism(cls) -> str:
        return MECHANISM

    def load_state_dict(self, state_dict: Any) -> None:
        """Opacus's checks (keys, mechanism), then every history entry is validated (a
        corrupt checkpoint raises ``ValueError``, it is not half-loaded)."""
        super().load_state_dict(state_dict)
        self.history = self._phases()
        self._cache, self._last = {}, None

    # --- dpcert -------------------------------------------------------------------------
    def phases(self) -> List[Tuple[str, str, int]]:
        """The history as validated ``(rate, noise_multiplier, steps)`` phases (the order of
        ``dpcert.dpsgd_epsilon(phases=...)`` and ``dpcert dpsgd --phase Q,S,T``)."""
        return [(q, s, t) for s, q, t in self._phases()]

    def _phases(self) -> List[Tuple[str, str, int]]:
        out: List[Tuple[str, str, int]] = []
        for n, entry in enumerate(self.history):
            try:
                sigma, rate, steps = entry
            except (TypeError, ValueError):
                raise ValueError(f"invalid history[{n}]: expected (noise_multiplier, sample_rate, steps), got {entry!r}") from None
            out.append(_checked_step(sigma, rate, int(steps) if _integral(steps) else steps))
        return out

    def _epsilon_bound(self, delta: Any) -> "dpcert.Bound":
        phases = self._phases()
        key = (tuple(phases), dpcert._exact("delta", delta))
        if key in self._cache:
            return self._cache[key]
        if not phases:
            bound = dpcert.Bound({"lower": "0", "upper": "0", "kind": "two-sided", "upper_f64": 0.0})
        elif len({(s, q) for s, q, _ in phases}) == 1:
            s, q, _ = phases[0]
            bound = dpcert.dpsgd_epsilon(rate=q, sigma=s, steps=sum(t for _, _, t in phases), delta=key[1])
        else:
            bound = dpcert.dpsgd_epsilon(phases=[(q, s, t) for s, q, t in phases], delta=key[1])
        self._cache = {key: bound}  # the last answer (training asks the same δ each epoch)
        return bound


def _integral(x: Any) -> bool:
    """An int, or a float / numpy scalar holding an integer (Opacus's noise search stores
    ``int(epochs / sample_rate)``, other code may store floats)."""
    try:
        return not isinstance(x, bool) and float(x) == int(x)
    except (TypeError, ValueError, OverflowError):
        return False


register_accountant(MECHANISM, CertifiedAccountant, force=True)


def make_private_with_epsilon(engine: Any, *, module: Any, optimizer: Any, data_loader: Any,
                              target_epsilon: Any, target_delta: Any, epochs: int,
                              max_grad_norm: Any, **kwargs: Any):
    """Opacus's ``PrivacyEngine.make_private_with_epsilon`` contract, with σ from dpcert's
    certified calibration: the smallest noise multiplier whose certified ε after ``epochs``
    epochs (T = epochs · len(data_loader) steps at Poisson rate q = 1/len(data_loader), the
    float Opacus's step hook passes, read as its shortest decimal) is at most ``target_epsilon`` — certified feasible, and a σ 0.1 %
    smaller certified infeasible, so it is within 1 % (in fact 0.1 %) of the certified
    minimum. The engine's accountant becomes a :class:`CertifiedAccountant` (kept if it
    already is one). Other keyword arguments go to ``engine.make_private``. Returns what
    ``make_private`` returns; the calibration is ``engine.dpcert_calibration``."""
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise ValueError(f"invalid epochs: must be an integer ≥ 1, got {epochs!r}")
    batches = len(data_loader)
    if batches < 1:
        raise ValueError("invalid data_loader: it has no batches")
    if not isinstance(engine.accountant, CertifiedAccountant):
        engine.accountant = CertifiedAccountant()
    elif len(engine.accountant) > 0:
        warnings.warn(
            "make_private_with_epsilon: the accountant has already counted steps; the noise "
            "multiplier is calibrated for a fresh run, so the total ε will be higher",
            stacklevel=2,
        )
    # the rate as the accountant will count it: Opacus's hook passes 1/len(data_loader) as a
    # float, which dpcert reads as its shortest decimal; the calibration uses the same number
    cal = dpcert.calibrate_dpsgd_sigma(target_epsilon, target_delta, rate=1 / batches,
                                       steps=epochs * batches)
    engine.dpcert_calibration = cal
    return engine.make_private(module=module, optimizer=optimizer, data_loader=data_loader,
                               noise_multiplier=_float_up(cal.value),
                               max_grad_norm=max_grad_norm, **kwargs)


def _float_up(text: str) -> float:
    """The nearest float ≥ the exact decimal ``text`` (more noise is never less private)."""
    import decimal
    import math

    d = decimal.Decimal(text)
    f = float(d)
    if decimal.Decimal(f) < d:
        f = math.nextafter(f, math.inf)
    return f
