"""dpcert: certified differential-privacy accounting.

Every reported quantity is an enclosure ``[lower, upper]`` of the exact value defined by the
named theorem (T. Steinke, *Composition of Differential Privacy & Privacy Amplification by
Subsampling*, 2022): ``upper`` is a rigorous upper bound, ``lower`` a rigorous lower bound
(``None`` where none is claimed). The numbers come from the Rust crate ``dpcert`` through the
same library entry points as the ``dpcert`` command line, so they are bit-for-bit the CLI's
``--json`` output; this package does no arithmetic of its own.

Inputs are numbers as people write them: ``int``, ``str`` (``"1e-5"``, ``"256/60000"``),
``fractions.Fraction`` and ``decimal.Decimal`` are the exact value written; a ``float`` is the
shortest decimal that prints as it (its ``repr``): ``1e-5`` is 1/100000, ``1.1`` is 11/10, and
``256/60000`` evaluated as a float is 0.004266666666666667 (pass the string ``"256/60000"`` or
``Fraction(256, 60000)`` for the fraction itself). No warning is raised; to account for a
float's exact binary value, pass ``Fraction(x)``.

Bad input raises ``ValueError`` naming the argument; a numerical failure (no finite certified
enclosure) raises :class:`NumericalError`. No function returns NaN.

Long computations release the GIL and can be interrupted with Ctrl-C. Calls that run
longer than a second draw a progress bar where someone watches: on a terminal and in a
Jupyter notebook (``tqdm.auto`` when installed), never into pipes, files or CI logs;
:func:`set_progress` switches it on or off.
"""
from __future__ import annotations

import decimal
import fractions
import json
import math
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _native
from ._native import NumericalError

__all__ = [
    "Bound",
    "Report",
    "Calibration",
    "set_progress",
    "calibrate_dpsgd",
    "calibrate_dpsgd_sigma",
    "calibrate_gaussian_sigma",
    "NumericalError",
    "ExactNumber",
    "gaussian_delta",
    "gaussian_epsilon",
    "gaussian_sigma",
    "zcdp_delta",
    "zcdp_epsilon",
    "compose",
    "compose_pure",
    "compose_approx",
    "rdp",
    "dpsgd_epsilon",
    "dpsgd_delta",
    "dpsgd_delta_profile",
    "PrivacyProfile",
    "gdp_mu",
    "dpsgd_gdp_mu",
    "tradeoff_tpr",
    "dpsgd_tradeoff_tpr",
    "query",
    "audit",
    "from_dp_event",
    "dp_event_json",
    "check",
    "vector_queries",
]

__version__ = _native.version()

ExactNumber = Union[int, str, fractions.Fraction, decimal.Decimal, float]



class FloatInputWarning(UserWarning):
    """Kept for code that filters it; dpcert no longer warns about floats (a float is the
    shortest decimal that prints as it)."""


def _exact(name: str, x: Any) -> str:
    """The exact text of a number argument (no arithmetic: a conversion to a string). A float
    is its shortest round-tripping decimal (``repr``)."""
    if isinstance(x, bool) or x is None:
        raise ValueError(f"invalid {name}: expected a number, got {x!r}")
    if isinstance(x, int):
        return str(x)
    if isinstance(x, str):
        return x
    if isinstance(x, fractions.Fraction):
        return str(x)  # "n/d", or "n" for an integer
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            raise ValueError(f"invalid {name}: {x} is not a finite number")
        return str(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"invalid {name}: {x!r} is not a finite number")
        return repr(float(x))  # the shortest decimal that prints as x (numpy floats too)
    if hasattr(x, "numerator") and hasattr(x, "denominator"):  # numbers.Rational
        return f"{int(x.numerator)}/{int(x.denominator)}"
    if hasattr(x, "item") and callable(x.item):  # a 0-d numpy / torch scalar
        return _exact(name, x.item())
    raise ValueError(
        f"invalid {name}: expected int, str, Fraction, Decimal or float, got {type(x).__name__}"
    )


def _safe_upper_float(upper: decimal.Decimal) -> float:
    """The nearest float ≥ upper (used only when the JSON has no ``upper_f64``)."""
    f = float(upper)
    if decimal.Decimal(f) < upper:
        f = math.nextafter(f, math.inf)
    return f


class Bound:
    """A certified quantity: ``lower ≤ exact ≤ upper`` (two-sided) or ``exact ≤ upper``.

    ``lower`` / ``upper`` are :class:`decimal.Decimal`, outward rounded: exactly the CLI's
    decimal strings, which ``lower_text`` / ``upper_text`` keep as printed (``Decimal``'s
    ``str()`` may spell them differently, e.g. ``1e-2`` as ``0.01``); ``lower`` is ``None``
    for an upper bound. ``kind`` is ``"two-sided"`` or ``"upper-bound"``. ``float(b)`` and
    ``b.upper_float`` are the CLI's ``upper_f64``: the nearest float at or above ``upper``
    (the certified upper end rounded up to 20 digits; when that end is itself a float, the
    decimal lies above it, and ``upper_f64`` above both), so both are upper bounds, within
    one ulp of each other. ``theorem`` names the result, ``rests_on`` a
    cited result the number relies on (or ``None``); ``raw`` is the CLI's JSON object
    (a query's ``result``).
    """

    __slots__ = ("lower", "upper", "lower_text", "upper_text", "kind", "upper_float",
                 "theorem", "rests_on", "raw")

    def __init__(self, obj: Mapping[str, Any], theorem: Optional[str] = None,
                 raw: Optional[Mapping[str, Any]] = None):
        lo = obj.get("lower")
        self.lower_text: Optional[str] = lo
        self.upper_text: str = obj["upper"]
        self.lower: Optional[decimal.Decimal] = None if lo is None else decimal.Decimal(lo)
        self.upper: decimal.Decimal = decimal.Decimal(obj["upper"])
        kind = obj.get("kind")
        if kind is None:
            kind = "two-sided" if obj.get("exact") else "upper-bound"
        self.kind: str = kind
        f = obj.get("upper_f64")
        self.upper_float: float = (
            float(f) if isinstance(f, (int, float)) and math.isfinite(float(f))
            else _safe_upper_float(self.upper)
        )
        self.theorem: Optional[str] = theorem if theorem is not None else obj.get("theorem")
        self.rests_on = obj.get("rests_on")
        self.raw = dict(raw if raw is not None else obj)

    @property
    def two_sided(self) -> bool:
        return self.kind == "two-sided"

    def __float__(self) -> float:
        return self.upper_float

    def __contains__(self, x: Any) -> bool:
        """``x in b``: x lies in the certified bracket (for an upper bound: x ≤ upper).
        Compared exactly (as fractions)."""
        v = fractions.Fraction(_exact("x", x))
        lo = None if self.lower is None else fractions.Fraction(self.lower)
        return (lo is None or lo <= v) and v <= fractions.Fraction(self.upper)

    def __repr__(self) -> str:
        if self.lower is None:
            return f"Bound(≤ {self.upper_text}, upper-bound)"
        return f"Bound([{self.lower_text}, {self.upper_text}], {self.kind})"

    __str__ = __repr__

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, Bound)
            and (self.lower, self.upper, self.kind) == (other.lower, other.upper, other.kind)
        )

    def __hash__(self) -> int:
        return hash((self.lower, self.upper, self.kind))


def _result(envelope: Any) -> Any:
    """The ``result`` of a dpcert/1 envelope (or the object itself, for older shapes)."""
    if isinstance(envelope, Mapping) and "schema" in envelope and "result" in envelope:
        return envelope["result"]
    return envelope


def _bound(result: Mapping[str, Any]) -> Bound:
    """A Bound from a query's result: ``{"value": quantity, "theorem", ...}``."""
    q = result.get("value")
    if isinstance(q, Mapping):
        return Bound(q, theorem=result.get("theorem"), raw=result)
    return Bound(result)


def _loads(text: str) -> Any:
    return json.loads(text)


def query(args: Union[Sequence[str], Mapping[str, Any]]) -> Bound:
    """The answer of the single-value query ``dpcert ARGS`` (e.g. ``["gaussian", "delta",
    "--sigma", "1", "--epsilon", "1"]``) as a :class:`Bound`: the CLI's ``--json`` object.
    ``args`` may also be the query as a request, the command line's typed question: a dict
    ``{"command": "gaussian", "subcommand": "delta", "sigma": "1", "epsilon": "1"}`` whose
    keys are the flags' long names with underscores and whose values are their exact texts
    (numbers as for every function here; ``True`` for a switch, a list for a repeatable flag).
    """
    if isinstance(args, Mapping):
        return _ask(_request_texts(args))
    # the argument list becomes its request object (every flag given, its key), asked as any
    return _ask(_loads(_native.request_of_args([str(a) for a in args])))


def _request_texts(request: Mapping[str, Any]) -> dict:
    """A request with every number as its exact text (strings, booleans and None as given)."""
    def text(k: str, v: Any) -> Any:
        if isinstance(v, (str, bool)) or v is None:
            return v
        if isinstance(v, (list, tuple)):
            return [text(f"{k}[{i}]", x) for i, x in enumerate(v)]
        return _exact(k, v)
    return {str(k): text(str(k), v) for k, v in request.items()}


def _ask(request: Mapping[str, Any]) -> Bound:
    """The answer of a single-value query given as a request (the native typed call)."""
    return _bound(_result(_loads(_native.query(json.dumps(request)))))


def _query(command: str, subcommand: Optional[str], *fields: Mapping[str, Any]) -> Bound:
    """The answer of ``dpcert COMMAND [SUBCOMMAND]`` for the flags' texts in ``fields``
    (keys: the flags' long names with underscores)."""
    request = {"command": command}
    if subcommand is not None:
        request["subcommand"] = subcommand
    for f in fields:
        request.update(f)
    return _ask(request)


def _precision(precision: Optional[int]) -> dict:
    if precision is None:
        return {}
    if isinstance(precision, bool) or not isinstance(precision, int):
        raise ValueError(f"invalid precision: expected an int bit count, got {precision!r}")
    return {"precision": str(precision)}


def gaussian_delta(sigma: ExactNumber, epsilon: ExactNumber, sensitivity: ExactNumber = None,
                   compositions: ExactNumber = None, precision: Optional[int] = None) -> Bound:
    """Exact δ(ε) of ``compositions`` uses of N(0, σ²) noise on a sensitivity-Δ query
    (Steinke 2022, Corollaries 8 and 10): a two-sided enclosure."""
    return _query("gaussian", "delta", _texts(sigma=sigma, epsilon=epsilon),
                  _opt_texts(sensitivity=sensitivity, compositions=compositions),
                  _precision(precision))


def gaussian_epsilon(sigma: ExactNumber, delta: ExactNumber, sensitivity: ExactNumber = None,
                     compositions: ExactNumber = None, precision: Optional[int] = None) -> Bound:
    """Exact optimal ε at δ of the (composed) Gaussian mechanism: a two-sided enclosure."""
    return _query("gaussian", "epsilon", _texts(sigma=sigma, delta=delta),
                  _opt_texts(sensitivity=sensitivity, compositions=compositions),
                  _precision(precision))


def gaussian_sigma(epsilon: ExactNumber, delta: ExactNumber, sensitivity: ExactNumber = None,
                   compositions: ExactNumber = None, precision: Optional[int] = None) -> Bound:
    """Smallest σ achieving (ε, δ): ``lower`` is certified not to achieve it, ``upper`` is
    certified to achieve it."""
    return _query("gaussian", "sigma", _texts(epsilon=epsilon, delta=delta),
                  _opt_texts(sensitivity=sensitivity, compositions=compositions),
                  _precision(precision))


def zcdp_delta(rho: ExactNumber, epsilon: ExactNumber, precision: Optional[int] = None) -> Bound:
    """A valid δ at ε for every ρ-zCDP mechanism (Proposition 14): an upper bound."""
    return _query("zcdp", "delta", _texts(rho=rho, epsilon=epsilon), _precision(precision))


def zcdp_epsilon(rho: ExactNumber, delta: ExactNumber, precision: Optional[int] = None) -> Bound:
    """A valid ε at δ for every ρ-zCDP mechanism (Proposition 14): an upper bound."""
    return _query("zcdp", "epsilon", _texts(rho=rho, delta=delta), _precision(precision))


def compose_pure(epsilon: ExactNumber, count: ExactNumber, delta: ExactNumber,
                 precision: Optional[int] = None) -> Bound:
    """Optimal ε at δ of ``count`` ε₀-DP mechanisms (optimal composition, two-sided);
    ``raw["routes"]`` has the basic, advanced and zCDP bounds."""
    return _query("compose", "pure", _texts(epsilon=epsilon, count=count, delta=delta),
                  _precision(precision))


def compose_approx(epsilon: ExactNumber, delta_each: ExactNumber, count: ExactNumber,
                   delta: ExactNumber, precision: Optional[int] = None) -> Bound:
    """Optimal ε at δ of ``count`` (ε₀, δ₀)-DP mechanisms (two-sided)."""
    return _query("compose", "approx", _texts(epsilon=epsilon, delta_each=delta_each,
                  count=count, delta=delta), _precision(precision))


def compose(epsilon: ExactNumber, count: ExactNumber, delta: ExactNumber,
            delta_each: ExactNumber = None, precision: Optional[int] = None) -> Bound:
    """Optimal composition: :func:`compose_pure` without ``delta_each``, else
    :func:`compose_approx`."""
    if delta_each is None:
        return compose_pure(epsilon, count, delta, precision)
    return compose_approx(epsilon, delta_each, count, delta, precision)


def rdp(rate: ExactNumber, sigma: ExactNumber, steps: ExactNumber, order: ExactNumber,
        precision: Optional[int] = None) -> Bound:
    """Composed Rényi-DP ε(α) of ``steps`` Poisson-subsampled Gaussian steps (MTZ19):
    two-sided at integer orders, an upper bound between them."""
    return _query("rdp", "subsampled-gaussian", _texts(rate=rate, sigma=sigma, steps=steps,
                  order=order), _precision(precision))


def dpsgd_epsilon(rate: ExactNumber = None, sigma: ExactNumber = None, steps: ExactNumber = None,
                  delta: ExactNumber = None, method: str = "best", grid: ExactNumber = None,
                  tail: ExactNumber = None, precision: Optional[int] = None, *,
                  batch_size: ExactNumber = None, dataset_size: ExactNumber = None,
                  epochs: ExactNumber = None, phases: Optional[Sequence[Sequence[ExactNumber]]] = None,
                  sampling: str = "poisson", relation: str = "add-remove",
                  tight: bool = False) -> Bound:
    """ε at δ of DP-SGD: ``steps`` Poisson-subsampled Gaussian steps, sampling rate
    ``rate`` = batch/N, noise multiplier ``sigma``. ``method``: ``"pld"`` (the certified PLD
    accountant, two-sided), ``"rdp"`` (an upper bound resting on MTZ19's cited add/remove
    domination) or ``"best"`` (PLD when it can run). As ``dpcert dpsgd``: ``batch_size`` with
    ``dataset_size`` instead of ``rate``, ``epochs`` instead of ``steps`` (T = ⌈epochs·N/B⌉),
    ``phases=[(q, σ, T), ...]`` instead of all three (a schedule, composed by the PLD
    accountant), ``sampling="shuffled"`` (an upper bound without amplification) and
    ``relation="substitution"`` (two-sided; with ``sampling="fixed-size"`` — B of N drawn
    without replacement each step — the PLD accountant's bracket: upper from the symmetric
    dominating pair of one step, lower from the realised sensitivity-2 pairs; ``"rdp"``: an
    upper bound by Wang–Balle–Kasiviswanathan 2019 Theorem 9). ``tight=True``: the PLD
    accountant's tight preset (bracket within 2e-5 relative where up to three refinements
    of the automatic grid reach it; about 5–7× the time; Poisson add/remove only, not with
    ``grid``)."""
    if method not in ("pld", "rdp", "best"):
        raise ValueError(f"invalid method: {method!r} is not 'pld', 'rdp' or 'best'")
    fields = _texts(delta=delta)
    fields.update(_opt_texts(rate=rate, sigma=sigma, steps=steps, batch_size=batch_size,
                             dataset_size=dataset_size, epochs=epochs))
    fields["phase"] = [",".join(t) for t in _phase_texts(phases or [])]
    fields.update(method=method, sampling=str(sampling), relation=str(relation), tight=bool(tight))
    fields.update(_opt_texts(grid=grid, tail=tail))
    fields.update(_precision(precision))
    return _dpsgd(fields)


def dpsgd_delta(epsilon: ExactNumber, rate: ExactNumber = None, sigma: ExactNumber = None,
                steps: ExactNumber = None, *, batch_size: ExactNumber = None,
                dataset_size: ExactNumber = None, epochs: ExactNumber = None,
                phases: Optional[Sequence[Sequence[ExactNumber]]] = None,
                grid: ExactNumber = None, tail: ExactNumber = None) -> Bound:
    """δ at ε of DP-SGD — the smallest δ with (ε, δ)-DP — by the certified PLD accountant
    (two-sided; Poisson sampling, add/remove neighbours, both directions): the same run
    arguments as :func:`dpsgd_epsilon` (``rate``/``sigma``/``steps``, the ML vocabulary, or
    ``phases``). The same numbers as ``dpcert dpsgd … --epsilon E``."""
    fields = _texts(epsilon=epsilon)
    fields.update(_opt_texts(rate=rate, sigma=sigma, steps=steps, batch_size=batch_size,
                             dataset_size=dataset_size, epochs=epochs))
    fields["phase"] = [",".join(t) for t in _phase_texts(phases or [])]
    fields.update(_opt_texts(grid=grid, tail=tail))
    return _dpsgd(fields)


def _texts(**kwargs: Any) -> dict:
    """The exact text of each required number argument (None is refused, naming it)."""
    return {name: _exact(name, value) for name, value in kwargs.items()}


def _opt_texts(**kwargs: Any) -> dict:
    """The exact text of each optional number argument that is given."""
    return _texts(**{k: v for k, v in kwargs.items() if v is not None})


def _dpsgd(fields: Mapping[str, Any]) -> Bound:
    """The answer of ``dpcert dpsgd`` for the flags' texts."""
    return _query("dpsgd", None, fields)


def _phase_texts(phases: Sequence[Sequence[ExactNumber]]) -> list:
    out = []
    for n, ph in enumerate(phases):
        if isinstance(ph, (str, bytes)) or len(ph) != 3:
            raise ValueError(f"invalid phases: entry {n} must be (rate, sigma, steps), got {ph!r}")
        out.append(tuple(_exact(f"phases[{n}]", x) for x in ph))
    return out


class PrivacyProfile:
    """A DP-SGD run's privacy profile on an ε grid: ``epsilon`` (the grid, as given, floats),
    ``delta_lower`` / ``delta_upper`` (floats, the certified bracket of δ(ε) at each point,
    rounded down / up), ``bounds`` (each point's :class:`Bound`). Plot with
    ``plt.fill_between(p.epsilon, p.delta_lower, p.delta_upper)``; ``zip`` over it gives
    ``(ε, lower, upper)`` rows."""

    def __init__(self, epsilons: Sequence[Any], bounds: Sequence[Bound]):
        self.bounds = list(bounds)
        self.epsilon = [float(e) if not isinstance(e, str) else float(fractions.Fraction(e))
                        for e in epsilons]
        self.delta_lower = [_float_down(b.lower) for b in self.bounds]
        self.delta_upper = [b.upper_float for b in self.bounds]

    def __iter__(self):
        return iter(zip(self.epsilon, self.delta_lower, self.delta_upper))

    def __len__(self) -> int:
        return len(self.bounds)

    def __repr__(self) -> str:
        return f"PrivacyProfile({len(self)} points, epsilon {self.epsilon[:1]}…{self.epsilon[-1:]})"


def _float_down(x: Optional[decimal.Decimal]) -> float:
    """The nearest float ≤ x (0.0 for a missing lower end: δ ≥ 0)."""
    if x is None:
        return 0.0
    f = float(x)
    if decimal.Decimal(f) > x:
        f = math.nextafter(f, -math.inf)
    return f


def dpsgd_delta_profile(epsilons: Iterable[ExactNumber], rate: ExactNumber = None,
                        sigma: ExactNumber = None, steps: ExactNumber = None, *,
                        phases: Optional[Sequence[Sequence[ExactNumber]]] = None,
                        grid: ExactNumber = None, tail: ExactNumber = None) -> PrivacyProfile:
    """The certified privacy profile ε ↦ δ(ε) of DP-SGD (Poisson, add/remove) at every ε of
    ``epsilons``, as arrays for plotting (:class:`PrivacyProfile`). The run is ``rate``,
    ``sigma``, ``steps`` or ``phases=[(q, σ, T), ...]``. Each direction's PLD is composed once
    for the whole grid, so a 50-point profile costs about one :func:`dpsgd_delta` call; each
    point equals that call's bracket."""
    eps = list(epsilons)
    if phases is None:
        if rate is None or sigma is None or steps is None:
            raise ValueError("invalid rate: give rate, sigma and steps, or phases")
        phases = [(rate, sigma, steps)]
    elif rate is not None or sigma is not None or steps is not None:
        raise ValueError("invalid phases: give rate/sigma/steps or phases, not both")
    texts = _phase_texts(phases)
    eps_text = [_exact(f"epsilons[{i}]", e) for i, e in enumerate(eps)]
    out = _loads(_native.dpsgd_delta_profile(texts, eps_text,
                                             None if grid is None else _exact("grid", grid),
                                             None if tail is None else _exact("tail", tail)))
    return PrivacyProfile(eps_text, [Bound(q) for q in out])


def gdp_mu(sigma: ExactNumber, sensitivity: ExactNumber = None, compositions: ExactNumber = None,
           precision: Optional[int] = None) -> Bound:
    """The exact μ = Δ√K/σ of μ-GDP for K compositions of N(0, σ²) noise (two-sided)."""
    return _query("gdp", "gaussian", _texts(sigma=sigma),
                  _opt_texts(sensitivity=sensitivity, compositions=compositions),
                  _precision(precision))


def dpsgd_gdp_mu(rate: ExactNumber, sigma: ExactNumber, steps: ExactNumber,
                 precision: Optional[int] = None) -> Bound:
    """The smallest μ with DP-SGD μ-GDP (Poisson rate q, noise multiplier σ, T steps,
    add/remove): √T/σ for every q (no amplification by subsampling at finite T). Two-sided:
    μ-GDP certified at ``upper``, certified to fail at ``lower`` (a relative 2⁻⁴⁰ apart)."""
    return _query("gdp", "dpsgd", _texts(rate=rate, sigma=sigma, steps=steps),
                  _precision(precision))


def tradeoff_tpr(sigma: ExactNumber, fpr: ExactNumber, sensitivity: ExactNumber = None,
                 compositions: ExactNumber = None, precision: Optional[int] = None) -> Bound:
    """The best membership-inference attack's TPR at FPR ``fpr`` against K compositions of
    N(0, σ²) noise: Φ(Φ⁻¹(A) + Δ√K/σ), two-sided."""
    return _query("tradeoff", "gaussian", _texts(sigma=sigma, fpr=fpr),
                  _opt_texts(sensitivity=sensitivity, compositions=compositions),
                  _precision(precision))


def dpsgd_tradeoff_tpr(rate: ExactNumber, sigma: ExactNumber, steps: ExactNumber,
                       fpr: ExactNumber, grid: ExactNumber = None, tail: ExactNumber = None,
                       precision: Optional[int] = None) -> Bound:
    """Certified bracket of the best attack's TPR at FPR ``fpr`` against DP-SGD (both sides
    of the certified PLD accountant)."""
    return _query("tradeoff", "dpsgd", _texts(rate=rate, sigma=sigma, steps=steps, fpr=fpr),
                  _opt_texts(grid=grid, tail=tail), _precision(precision))


def set_progress(enabled: Optional[bool], delay: Optional[float] = None) -> None:
    """Progress bars of long calls (``tqdm.auto`` when installed, else one line on stderr):
    ``None`` (the default) draws them where someone watches — stderr is a terminal, or the
    code runs in a Jupyter kernel — and never into pipes, files or CI logs; ``True`` always;
    ``False`` never. ``delay`` (seconds, tqdm's name; 1 unless set, kept when omitted): how
    long a call runs before its bar may appear."""
    from . import _progress
    if enabled is not None and not isinstance(enabled, bool):
        raise ValueError(f"invalid enabled: expected True, False or None, got {enabled!r}")
    if delay is not None:
        if isinstance(delay, bool) or not isinstance(delay, (int, float)) \
                or not math.isfinite(delay) or delay < 0:
            raise ValueError(f"invalid delay: expected a finite number of seconds ≥ 0, got {delay!r}")
        _progress.delay = float(delay)
    _progress.enabled = enabled


# --- calibration ---------------------------------------------------------------------------

class Calibration:
    """A certified calibration (``dpcert calibrate dpsgd --json``): ``parameter`` (``"sigma"``,
    ``"steps"`` or ``"rate"``), ``value`` (the exact answer as a string, e.g. ``"0.968908"``:
    certified feasible, its ε upper bound ≤ the target), ``epsilon`` (the :class:`Bound` of ε
    at ``value``), ``infeasible`` (the value just beyond, certified to exceed the target, or
    ``None`` when the route is an upper bound only), ``infeasible_epsilon``, ``relative_gap``
    (between the two, a string), ``route``, ``grid``, ``evaluations``, ``comparison`` (the
    Poisson figure of a shuffled run, a :class:`Bound`, or ``None``) and ``raw``."""

    def __init__(self, obj: Mapping[str, Any]):
        obj = _result(obj)
        self.raw = dict(obj)
        self.parameter = obj["parameter"]
        self.value = obj["value"]
        f = obj["feasible"]
        self.epsilon = Bound(f["epsilon"])
        self.route = f["route"]
        self.grid = f["grid"]
        inf = obj.get("infeasible")
        self.infeasible = inf[self.parameter] if inf else None
        self.infeasible_epsilon = Bound(inf["epsilon"]) if inf else None
        self.relative_gap = obj.get("relative_gap")
        self.evaluations = obj["evaluations"]
        cmp = obj.get("comparison")
        self.comparison = Bound(cmp["epsilon"]) if cmp else None

    def __repr__(self) -> str:
        return (f"Calibration({self.parameter}={self.value}, epsilon={self.epsilon!r}, "
                f"infeasible={self.infeasible!r}, route={self.route!r})")


def calibrate_dpsgd(target_epsilon: ExactNumber, delta: ExactNumber, rate: ExactNumber = None,
                    sigma: ExactNumber = None, steps: ExactNumber = None,
                    batch_size: ExactNumber = None, dataset_size: ExactNumber = None,
                    epochs: ExactNumber = None, sampling: str = "poisson",
                    relation: str = "add-remove", method: str = "pld",
                    group_size: ExactNumber = None) -> Calibration:
    """Certified DP-SGD calibration: give two of σ (noise multiplier), steps (or epochs with
    batch_size and dataset_size) and rate (or batch_size with dataset_size); the third is
    solved for so that the certified ε at ``delta`` is ≤ ``target_epsilon``. The answer is
    certified feasible; with the two-sided PLD route a value 10⁻³ beyond it is certified
    infeasible. Same numbers as ``dpcert calibrate dpsgd``."""
    request = {"command": "calibrate", "subcommand": "dpsgd"}
    request.update(_texts(target_epsilon=target_epsilon, delta=delta))
    request.update(_opt_texts(rate=rate, sigma=sigma, steps=steps, batch_size=batch_size,
                              dataset_size=dataset_size, epochs=epochs, group_size=group_size))
    request.update(sampling=str(sampling), relation=str(relation), method=str(method))
    return Calibration(_loads(_native.calibrate(json.dumps(request))))


def calibrate_dpsgd_sigma(target_epsilon: ExactNumber, delta: ExactNumber, **run: Any) -> Calibration:
    """The smallest certified-feasible noise multiplier σ: :func:`calibrate_dpsgd` without
    ``sigma`` (give ``rate`` or ``batch_size``/``dataset_size``, and ``steps`` or ``epochs``)."""
    if run.get("sigma") is not None:
        raise ValueError("invalid sigma: calibrate_dpsgd_sigma solves for sigma; leave it out")
    return calibrate_dpsgd(target_epsilon, delta, **run)


def calibrate_gaussian_sigma(target_epsilon: ExactNumber, delta: ExactNumber,
                             sensitivity: ExactNumber = None,
                             compositions: ExactNumber = None) -> Bound:
    """Smallest σ of the (composed) Gaussian mechanism meeting (ε, δ): ``upper`` is certified
    feasible, ``lower`` certified infeasible (as ``dpcert calibrate gaussian``)."""
    request = {"command": "calibrate", "subcommand": "gaussian"}
    request.update(_texts(target_epsilon=target_epsilon, delta=delta))
    request.update(_opt_texts(sensitivity=sensitivity, compositions=compositions))
    return _bound(_result(_loads(_native.calibrate(json.dumps(request)))))


# --- audits ------------------------------------------------------------------------------

class Report:
    """An audit report: ``epsilon`` (a :class:`Bound` at the budget's δ, or ``None``),
    ``delta`` (at the budget's ε), ``verdict`` of the claim (``"verified"``, ``"refuted"``,
    ``"undecided"``, or ``None`` without a claim), ``routes`` (dicts, each route's numbers
    as :class:`Bound`), ``route`` (the winning route's id), ``notes``, ``raw`` (the CLI's
    ``result`` object of ``dpcert audit --json``)."""

    def __init__(self, obj: Mapping[str, Any]):
        obj = _result(obj)
        self.raw = dict(obj)
        self.epsilon = Bound(obj["epsilon"]) if obj.get("epsilon") else None
        self.delta = Bound(obj["delta"]) if obj.get("delta") else None
        # the winning route's id (`epsilon_route`, else `delta_route`; `route` in older reports)
        self.route = obj.get("epsilon_route") or obj.get("delta_route") or obj.get("route")
        claim = obj.get("claim")
        self.claim = dict(claim) if claim else None
        self.verdict = claim.get("verdict") if claim else None
        self.routes = []
        for r in obj.get("routes", []):
            r = dict(r)
            for k in ("epsilon", "delta"):
                if r.get(k):
                    r[k] = Bound(r[k])
            self.routes.append(r)
        self.notes = list(obj.get("notes", []))

    def __repr__(self) -> str:
        parts = []
        if self.epsilon is not None:
            parts.append(f"epsilon={self.epsilon!r}")
        if self.delta is not None:
            parts.append(f"delta={self.delta!r}")
        if self.verdict is not None:
            parts.append(f"verdict={self.verdict!r}")
        return f"Report({', '.join(parts)}, route={self.route!r})"


def _event_fields(event: Any) -> tuple:
    """(class name, {field: value}) of a DpEvent object, its named tuple, or a dict."""
    if isinstance(event, Mapping):
        d = dict(event)
        name = d.pop("class_name", None)
        d.pop("module_name", None)
        return name, d
    if hasattr(event, "_fields") and hasattr(event, "class_name"):  # to_named_tuple() form
        d = {f: getattr(event, f) for f in event._fields if f not in ("module_name", "class_name")}
        name = event.class_name
        return (name.decode() if isinstance(name, bytes) else name), d
    attrs = getattr(type(event), "__attrs_attrs__", None)
    if attrs is not None:  # an attrs class, as dp_accounting's events are
        return type(event).__name__, {a.name: getattr(event, a.name) for a in attrs}
    raise ValueError(
        f"invalid event: {type(event).__name__} is not a DpEvent (an attrs class, its "
        "to_named_tuple() form, or a dict with 'class_name')"
    )


def dp_event_json(event: Any, _path: str = "event") -> dict:
    """The JSON form dpcert reads of a ``dp_accounting`` DpEvent (duck-typed: no import of
    dp_accounting): ``{"class_name": ..., fields...}``, numbers as exact strings."""
    name, fields = _event_fields(event)
    out: dict = {"class_name": name}
    for k, v in fields.items():
        at = f"{_path}.{k}"
        if _is_event(v):
            out[k] = dp_event_json(v, at)
        elif isinstance(v, (list, tuple)):
            out[k] = [
                dp_event_json(e, f"{at}[{i}]") if _is_event(e) else _exact(f"{at}[{i}]", e)
                for i, e in enumerate(v)
            ]
        elif isinstance(v, float) and math.isinf(v) and v > 0:
            out[k] = "inf"  # e.g. RepeatAndSelectDpEvent's Poisson shape: refused by name
        elif v is None:
            out[k] = None
        elif isinstance(v, (int, float, str, fractions.Fraction, decimal.Decimal)):
            out[k] = _exact(at, v)
        else:
            out[k] = dp_event_json(v, at)
    return out


def from_dp_event(event: Any) -> list:
    """The deployment entries (``[[mechanism]]`` tables of the TOML/JSON schema, as dicts)
    a DpEvent tree releases. Events dpcert cannot certify raise ``ValueError`` naming the
    class and its place in the tree; none is skipped."""
    return _loads(_native.dp_event_mechanisms(json.dumps(dp_event_json(event))))


def _section(**kwargs: Any) -> Optional[dict]:
    out = {k: _exact(k, v) for k, v in kwargs.items() if v is not None}
    return out or None


def _is_event(x: Any) -> bool:
    return (
        hasattr(type(x), "__attrs_attrs__")
        or (hasattr(x, "_fields") and hasattr(x, "class_name"))
        or (isinstance(x, Mapping) and "class_name" in x)
    )


def audit(deployment: Any, delta: ExactNumber = None, epsilon: ExactNumber = None,
          claim: Optional[Sequence[ExactNumber]] = None) -> Report:
    """Audit a deployment: a dict of the TOML/JSON schema, a path to a ``.toml`` / ``.json``
    file, or a DpEvent (a ``dp_accounting`` event object, its ``to_named_tuple()`` form, or
    its JSON dict). ``delta=`` / ``epsilon=`` set ``[budget]``, ``claim=(ε, δ)`` sets
    ``[claim]`` (overriding the file's sections)."""
    budget = _section(delta=delta, epsilon=epsilon)
    claim_d = None
    if claim is not None:
        if isinstance(claim, Mapping):
            claim_d = _section(epsilon=claim.get("epsilon"), delta=claim.get("delta"))
        else:
            if len(claim) != 2:
                raise ValueError("invalid claim: expected (epsilon, delta)")
            claim_d = _section(epsilon=claim[0], delta=claim[1])
    if isinstance(deployment, (str, os.PathLike)) and not _is_event(deployment):
        path = os.fspath(deployment)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if budget is None and claim_d is None:
            return Report(_loads(_native.audit(text, "json" if path.endswith(".json") else "toml")))
        raise ValueError(
            "invalid deployment: a file's [budget]/[claim] cannot be overridden here; "
            "load it into a dict or edit the file"
        )
    if _is_event(deployment):
        doc = {"event": dp_event_json(deployment)}
        if budget:
            doc["budget"] = budget
        if claim_d:
            doc["claim"] = claim_d
        return Report(_loads(_native.audit(json.dumps(doc), "dp-event")))
    if isinstance(deployment, Mapping):
        doc = _plain(dict(deployment), "deployment")
        if budget:
            doc["budget"] = budget
        if claim_d:
            doc["claim"] = claim_d
        return Report(_loads(_native.audit(json.dumps(doc), "json")))
    raise ValueError(
        f"invalid deployment: expected a dict, a file path or a DpEvent, got {type(deployment).__name__}"
    )


def _plain(x: Any, at: str) -> Any:
    """A deployment dict with every number as its exact string."""
    if isinstance(x, Mapping):
        return {k: _plain(v, f"{at}.{k}") for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v, f"{at}[{i}]") for i, v in enumerate(x)]
    if isinstance(x, (str, bool)) or x is None:
        return x
    return _exact(at, x)


# --- golden reference --------------------------------------------------------------------

def _claimed(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (int, float, fractions.Fraction, decimal.Decimal)) and not isinstance(value, bool):
        if isinstance(value, decimal.Decimal) and not value.is_finite():
            return str(value)
        return _exact("value", value)
    return value


def check(records: Iterable[Mapping[str, Any]]) -> list:
    """Judge other libraries' values, record by record, as ``dpcert check`` does: each
    record ``{"query": [args...], "value": v}`` (or with ``query`` a request dict, as
    ``query(...)`` takes: ``{"command": "gaussian", "subcommand": "delta", "sigma": "1",
    ...}``) gets the CLI's result (``{"record", "query",
    "value", "verdict", "reason", "bracket"}``, ``bracket`` = ``{"kind", "lower", "upper"}``
    of the smallest valid value or ``None``) with ``verdict`` one of ``sound``,
    ``unsound``, ``undecided``, ``invalid``. A float value is judged at its exact binary
    value."""
    recs = []
    for r in records:
        r = dict(r) if isinstance(r, Mapping) else r
        if isinstance(r, dict) and "value" in r:
            r["value"] = _claimed(r["value"])
        recs.append(r)
    return _loads(_native.check(json.dumps(recs)))  # one result per record, as the CLI


def vector_queries() -> list:
    """The argument lists of ``dpcert vectors`` (the golden-reference queries)."""
    return _native.vector_queries()
