"""dpcert inside jax_privacy: an accountant configuration whose accountant is dpcert's.

jax_privacy's training accountants (``jax_privacy.accounting.DpsgdTrainingAccountant``)
take a ``DpAccountantConfig`` and call its ``create_accountant()`` for a fresh
``dp_accounting.PrivacyAccountant``, on which they compose their ``PoissonSampledDpEvent``
steps and ask ``get_epsilon``. Swap the configuration with one line::

    accountant = DpsgdTrainingAccountant(
        dp_accountant_config=dpcert.jax_privacy.CertifiedAccountantConfig())  # was PldAccountantConfig()

and ``compute_epsilon`` (and jax_privacy's calibration, which calls it) reports dpcert's certified
upper end. jax_privacy's user-level accountant (``DpsgdTrainingUserLevelAccountant``) and its
truncated-batch mode accept only ``PldAccountantConfig`` / ``dp_accounting.pld.PLDAccountant``
(an ``isinstance`` check on jax_privacy's side), so dpcert cannot stand in there; dpcert's own
user-level DP-SGD is ``dpcert.dpsgd_epsilon(..)`` with ``dpcert dpsgd --group-size``.
"""
from __future__ import annotations

import dataclasses

from jax_privacy.accounting import accountants as _accountants

from dpcert.dp_accounting import CertifiedAccountant

__all__ = ["CertifiedAccountantConfig"]


@dataclasses.dataclass(kw_only=True, slots=True)
class CertifiedAccountantConfig(_accountants.DpAccountantConfig):
    """A jax_privacy ``DpAccountantConfig`` creating :class:`dpcert.dp_accounting.CertifiedAccountant`
    (add/remove neighbours, as jax_privacy's Poisson DP-SGD analysis assumes)."""

    def create_accountant(self) -> CertifiedAccountant:
        return CertifiedAccountant()
