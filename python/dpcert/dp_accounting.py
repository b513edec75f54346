"""dpcert as a ``dp_accounting.PrivacyAccountant``: compose ``DpEvent``s, ask ε or δ.

Swap dp_accounting's accountant for dpcert's with one line::

    accountant = dpcert.dp_accounting.CertifiedAccountant()   # was pld.PLDAccountant()
    accountant.compose(event, count)
    accountant.get_epsilon(1e-5)    # the certified upper end (a float rounded up)
    accountant.get_delta(2.0)

Every event is certified by dpcert's audit (the same numbers as ``dpcert.audit`` and
``dpcert audit --format dp-event``): the PLD accountant where it applies, else the best
certified route. ``supports`` and ``compose`` refuse, with dp_accounting's own
``UnsupportedEventError``, what dpcert cannot certify under the accountant's neighbouring
relation — nothing is skipped or approximated.

Neighbouring relations (``dp_accounting.NeighboringRelation``): ``ADD_OR_REMOVE_ONE`` (the
default; Poisson sampling is add/remove) and ``REPLACE_ONE`` (``SampledWithoutReplacementDpEvent``
runs are replace-one; ``PoissonSampledDpEvent`` and ``LaplaceDpEvent`` are refused under it,
as dp_accounting's own accountants refuse them). ``GaussianDpEvent``, ``EpsilonDeltaDpEvent``
and ``ZCDpEvent`` state their guarantee for whichever relation is in use. ``REPLACE_SPECIAL``
is refused at construction.
"""
from __future__ import annotations

import json
from typing import Any, Optional

import dp_accounting
from dp_accounting import dp_event as _dp_event
from dp_accounting.privacy_accountant import NeighboringRelation, UnsupportedEventError

import dpcert
from dpcert import _native

__all__ = ["CertifiedAccountant", "UnsupportedEventError", "NeighboringRelation"]

# classes dpcert reads with a relation of their own, refused under the other one
_REFUSED = {
    NeighboringRelation.ADD_OR_REMOVE_ONE: {
        "RandomizedResponseDpEvent": "randomized response's guarantee is for replacing one "
        "person's value (dp_accounting defines it under REPLACE_ONE); use "
        "CertifiedAccountant(REPLACE_ONE)",
        "SampledWithoutReplacementDpEvent": "dpcert accounts fixed-size sampling without "
        "replacement under REPLACE_ONE (substitution); use CertifiedAccountant(REPLACE_ONE)",
    },
    NeighboringRelation.REPLACE_ONE: {
        "PoissonSampledDpEvent": "dpcert accounts Poisson sampling in a DpEvent under "
        "ADD_OR_REMOVE_ONE (for replace-one Poisson DP-SGD use dpcert.dpsgd_epsilon("
        "relation='substitution'))",
        "LaplaceDpEvent": "dpcert's Laplace mechanism has sensitivity 1 under "
        "ADD_OR_REMOVE_ONE",
    },
}


class CertifiedAccountant(dp_accounting.PrivacyAccountant):
    """A ``dp_accounting.PrivacyAccountant`` whose answers are dpcert's certified bounds.

    ``get_epsilon(δ)`` / ``get_delta(ε)`` return the certified upper end as a float rounded up
    (the exact value is at most this); ``bracket=True`` returns the :class:`dpcert.Bound`
    (two-sided where the route is). An empty ledger is (0, 0)-DP."""

    def __init__(self, neighboring_relation: NeighboringRelation = NeighboringRelation.ADD_OR_REMOVE_ONE):
        if neighboring_relation not in _REFUSED:
            raise ValueError(
                f"invalid neighboring_relation: {neighboring_relation!r}; dpcert certifies "
                "ADD_OR_REMOVE_ONE and REPLACE_ONE")
        super().__init__(neighboring_relation)
        self._answers: dict = {}

    def _maybe_compose(self, event: _dp_event.DpEvent, count: int,
                       do_compose: bool) -> Optional[dp_accounting.PrivacyAccountant.CompositionErrorDetails]:
        why = self._why_not(event, count)
        if why is not None:
            return self.CompositionErrorDetails(invalid_event=event, error_message=why)
        if do_compose:
            self._answers = {}  # the ledger (kept by the base class) has changed
        return None

    def _why_not(self, event: _dp_event.DpEvent, count: int) -> Optional[str]:
        """Why dpcert cannot certify the ledger composed with ``count`` × ``event`` under this
        relation, or ``None``."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            return f"count must be an integer ≥ 0, got {count!r}"
        try:
            refused = _refused_class(event, _REFUSED[self.neighboring_relation])
        except ValueError as e:
            return str(e)
        if refused is not None:
            return refused
        combined = _dp_event.ComposedDpEvent(
            [self.ledger, _dp_event.SelfComposedDpEvent(event, max(count, 1))])
        # a number that is not one (NaN, ±∞) raises ValueError here: bad input, not an event
        doc = json.dumps(dpcert.dp_event_json(combined))
        return _native.dp_event_unsupported(doc)

    def get_epsilon(self, target_delta: float, *, bracket: bool = False):
        """The certified ε at ``target_delta`` of everything composed so far."""
        return self._answer("delta", target_delta, bracket)

    def get_delta(self, target_epsilon: float, *, bracket: bool = False):
        """The certified δ at ``target_epsilon`` of everything composed so far."""
        return self._answer("epsilon", target_epsilon, bracket)

    def _answer(self, given: str, value: Any, bracket: bool):
        key = (given, dpcert._exact(f"target_{given}", value))
        if key not in self._answers:
            self._answers[key] = self._certify(given, key[1])
        bound = self._answers[key]
        return bound if bracket else bound.upper_float

    def _certify(self, given: str, value: str) -> "dpcert.Bound":
        ledger = self.ledger
        if isinstance(ledger, _dp_event.NoOpDpEvent):
            return dpcert.Bound({"lower": "0", "upper": "0", "kind": "two-sided", "upper_f64": 0.0})
        report = dpcert.audit(ledger, **{given: value})
        bound = report.epsilon if given == "delta" else report.delta
        if bound is None:
            asked = "ε at δ" if given == "delta" else "δ at ε"
            raise NotImplementedError(
                f"dpcert has no certified {asked} for this ledger ({'; '.join(report.notes)})")
        return bound


def _refused_class(event: Any, refused: dict) -> Optional[str]:
    """The reason for the first class in the event tree that ``refused`` names, or None."""
    name, fields = dpcert._event_fields(event)
    if name in refused:
        return f"{name}: {refused[name]}"
    for value in fields.values():
        children = value if isinstance(value, (list, tuple)) else [value]
        for child in children:
            if dpcert._is_event(child):
                why = _refused_class(child, refused)
                if why is not None:
                    return why
    return None
