"""Certified differential-privacy accounting. Every quantity is an enclosure [lower, upper] of
the exact value of the named theorem (Steinke 2022): upper is a rigorous upper bound, lower a
rigorous lower bound (None where none is claimed)."""
import decimal
import fractions
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from ._native import NumericalError as NumericalError

__version__: str

ExactNumber = Union[int, str, fractions.Fraction, decimal.Decimal, float]
"""int, str ("1e-5", "256/60000"), Fraction, Decimal: exact as written; float: the shortest
decimal that prints as it (its repr; 1e-5 is 1/100000), no warning."""

class FloatInputWarning(UserWarning):
    """No longer emitted: a float is the shortest decimal that prints as it."""

class Bound:
    """lower ≤ exact ≤ upper (kind "two-sided") or exact ≤ upper (kind "upper-bound")."""
    lower: Optional[decimal.Decimal]
    """A rigorous lower bound, rounded down; None for an upper bound."""
    upper: decimal.Decimal
    """A rigorous upper bound, rounded up (the CLI's decimal string)."""
    lower_text: Optional[str]
    """lower as the CLI prints it."""
    upper_text: str
    """upper as the CLI prints it."""
    kind: str
    upper_float: float
    """The CLI's upper_f64: the nearest float at or above the certified upper end."""
    theorem: Optional[str]
    rests_on: Any
    raw: dict
    def __init__(self, obj: Mapping[str, Any], theorem: Optional[str] = ..., raw: Optional[Mapping[str, Any]] = ...) -> None: ...
    @property
    def two_sided(self) -> bool: ...
    def __float__(self) -> float: ...
    def __contains__(self, x: ExactNumber) -> bool: ...

class Report:
    epsilon: Optional[Bound]
    delta: Optional[Bound]
    verdict: Optional[str]
    """"verified" | "refuted" | "undecided", or None without a claim."""
    route: Optional[str]
    routes: List[dict]
    claim: Optional[dict]
    notes: List[str]
    raw: dict
    def __init__(self, obj: Mapping[str, Any]) -> None: ...

def query(args: Union[Sequence[str], Mapping[str, Any]]) -> Bound: ...
def gaussian_delta(sigma: ExactNumber, epsilon: ExactNumber, sensitivity: Optional[ExactNumber] = ..., compositions: Optional[ExactNumber] = ..., precision: Optional[int] = ...) -> Bound:
    """Exact δ(ε) of the (composed) Gaussian mechanism (Corollaries 8, 10): two-sided."""
def gaussian_epsilon(sigma: ExactNumber, delta: ExactNumber, sensitivity: Optional[ExactNumber] = ..., compositions: Optional[ExactNumber] = ..., precision: Optional[int] = ...) -> Bound:
    """Exact optimal ε at δ of the (composed) Gaussian mechanism: two-sided."""
def gaussian_sigma(epsilon: ExactNumber, delta: ExactNumber, sensitivity: Optional[ExactNumber] = ..., compositions: Optional[ExactNumber] = ..., precision: Optional[int] = ...) -> Bound:
    """Smallest σ for (ε, δ): lower certified infeasible, upper certified feasible."""
def zcdp_delta(rho: ExactNumber, epsilon: ExactNumber, precision: Optional[int] = ...) -> Bound:
    """A valid δ at ε for every ρ-zCDP mechanism (Proposition 14): an upper bound."""
def zcdp_epsilon(rho: ExactNumber, delta: ExactNumber, precision: Optional[int] = ...) -> Bound:
    """A valid ε at δ for every ρ-zCDP mechanism (Proposition 14): an upper bound."""
def compose_pure(epsilon: ExactNumber, count: ExactNumber, delta: ExactNumber, precision: Optional[int] = ...) -> Bound:
    """Optimal composition of count ε₀-DP mechanisms: two-sided ε at δ."""
def compose_approx(epsilon: ExactNumber, delta_each: ExactNumber, count: ExactNumber, delta: ExactNumber, precision: Optional[int] = ...) -> Bound:
    """Optimal composition of count (ε₀, δ₀)-DP mechanisms: two-sided ε at δ."""
def compose(epsilon: ExactNumber, count: ExactNumber, delta: ExactNumber, delta_each: Optional[ExactNumber] = ..., precision: Optional[int] = ...) -> Bound: ...
def rdp(rate: ExactNumber, sigma: ExactNumber, steps: ExactNumber, order: ExactNumber, precision: Optional[int] = ...) -> Bound:
    """RDP ε(α) of steps Poisson-subsampled Gaussian steps: two-sided at integer orders."""
def dpsgd_epsilon(rate: Optional[ExactNumber] = ..., sigma: Optional[ExactNumber] = ..., steps: Optional[ExactNumber] = ..., delta: Optional[ExactNumber] = ..., method: str = ..., grid: Optional[ExactNumber] = ..., tail: Optional[ExactNumber] = ..., precision: Optional[int] = ..., *, batch_size: Optional[ExactNumber] = ..., dataset_size: Optional[ExactNumber] = ..., epochs: Optional[ExactNumber] = ..., phases: Optional[Sequence[Sequence[ExactNumber]]] = ..., sampling: str = ..., relation: str = ..., tight: bool = ...) -> Bound:
    """DP-SGD ε at δ: method "pld" (two-sided), "rdp" (upper bound, cited), "best"; ML vocabulary, phases, samplers and tight= (--tight) as the CLI."""
def dpsgd_delta(epsilon: ExactNumber, rate: Optional[ExactNumber] = ..., sigma: Optional[ExactNumber] = ..., steps: Optional[ExactNumber] = ..., *, batch_size: Optional[ExactNumber] = ..., dataset_size: Optional[ExactNumber] = ..., epochs: Optional[ExactNumber] = ..., phases: Optional[Sequence[Sequence[ExactNumber]]] = ..., grid: Optional[ExactNumber] = ..., tail: Optional[ExactNumber] = ...) -> Bound:
    """DP-SGD δ at ε (Poisson, add/remove): the certified PLD bracket, as `dpcert dpsgd … --epsilon E`."""
class PrivacyProfile:
    """ε grid → certified δ bracket: epsilon, delta_lower, delta_upper (floats, outward), bounds."""
    epsilon: List[float]
    delta_lower: List[float]
    delta_upper: List[float]
    bounds: List[Bound]
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Tuple[float, float, float]]: ...
def dpsgd_delta_profile(epsilons: Iterable[ExactNumber], rate: Optional[ExactNumber] = ..., sigma: Optional[ExactNumber] = ..., steps: Optional[ExactNumber] = ..., *, phases: Optional[Sequence[Sequence[ExactNumber]]] = ..., grid: Optional[ExactNumber] = ..., tail: Optional[ExactNumber] = ...) -> PrivacyProfile:
    """The certified privacy profile ε ↦ δ(ε) of DP-SGD on a grid (one composition for all points)."""
def gdp_mu(sigma: ExactNumber, sensitivity: Optional[ExactNumber] = ..., compositions: Optional[ExactNumber] = ..., precision: Optional[int] = ...) -> Bound:
    """Exact μ of μ-GDP for the (composed) Gaussian mechanism: two-sided."""
def dpsgd_gdp_mu(rate: ExactNumber, sigma: ExactNumber, steps: ExactNumber, precision: Optional[int] = ...) -> Bound:
    """Smallest μ with DP-SGD μ-GDP: √T/σ, two-sided (no amplification by subsampling)."""
def tradeoff_tpr(sigma: ExactNumber, fpr: ExactNumber, sensitivity: Optional[ExactNumber] = ..., compositions: Optional[ExactNumber] = ..., precision: Optional[int] = ...) -> Bound:
    """Best attack's TPR at the FPR against the (composed) Gaussian mechanism: two-sided."""
def dpsgd_tradeoff_tpr(rate: ExactNumber, sigma: ExactNumber, steps: ExactNumber, fpr: ExactNumber, grid: Optional[ExactNumber] = ..., tail: Optional[ExactNumber] = ..., precision: Optional[int] = ...) -> Bound:
    """Certified bracket of the best attack's TPR at the FPR against DP-SGD."""
def set_progress(enabled: Optional[bool], delay: Optional[float] = ...) -> None:
    """Progress bars: None (default) where someone watches (a terminal, a notebook), True always, False never; delay: seconds before a bar may appear (1)."""

class Calibration:
    parameter: str
    value: str
    epsilon: Bound
    route: str
    grid: Optional[str]
    infeasible: Optional[str]
    infeasible_epsilon: Optional[Bound]
    relative_gap: Optional[str]
    evaluations: int
    comparison: Optional[Bound]
    raw: dict
    def __init__(self, obj: Mapping[str, Any]) -> None: ...

def calibrate_dpsgd(target_epsilon: ExactNumber, delta: ExactNumber, rate: Optional[ExactNumber] = ..., sigma: Optional[ExactNumber] = ..., steps: Optional[ExactNumber] = ..., batch_size: Optional[ExactNumber] = ..., dataset_size: Optional[ExactNumber] = ..., epochs: Optional[ExactNumber] = ..., sampling: str = ..., relation: str = ..., method: str = ..., group_size: Optional[ExactNumber] = ...) -> Calibration:
    """Certified DP-SGD calibration (σ, steps or rate): certified feasible answer."""
def calibrate_dpsgd_sigma(target_epsilon: ExactNumber, delta: ExactNumber, **run: Any) -> Calibration:
    """The smallest certified-feasible noise multiplier."""
def calibrate_gaussian_sigma(target_epsilon: ExactNumber, delta: ExactNumber, sensitivity: Optional[ExactNumber] = ..., compositions: Optional[ExactNumber] = ...) -> Bound:
    """Smallest Gaussian σ for (ε, δ): upper feasible, lower infeasible."""
def audit(deployment: Any, delta: Optional[ExactNumber] = ..., epsilon: Optional[ExactNumber] = ..., claim: Optional[Sequence[ExactNumber]] = ...) -> Report:
    """Audit a deployment dict, a .toml/.json path, or a DpEvent (duck-typed)."""
def dp_event_json(event: Any, _path: str = ...) -> dict: ...
def from_dp_event(event: Any) -> List[dict]:
    """The deployment entries a DpEvent releases; unsupported events raise ValueError."""
def check(records: Iterable[Mapping[str, Any]]) -> List[dict]:
    """dpcert check's result per record: {"record", "query", "value", "verdict", "reason",
    "bracket"}; verdict sound | unsound | undecided | invalid."""
def vector_queries() -> List[List[str]]: ...
