"""dpcert inside jax_privacy (the real package): its DP-SGD training accountant, given
dpcert's accountant configuration, composes its Poisson-sampled Gaussian steps on dpcert's
certified accountant and reports the same ε as `dpcert dpsgd` for the same (q, σ, T)."""
import pytest

pytest.importorskip("jax_privacy")

from jax_privacy.accounting import analysis  # noqa: E402

import dpcert  # noqa: E402
from dpcert.jax_privacy import CertifiedAccountantConfig  # noqa: E402


def test_dpsgd_training_accountant_reports_the_certified_epsilon(cli):
    acc = analysis.DpsgdTrainingAccountant(dp_accountant_config=CertifiedAccountantConfig())
    params = analysis.DpParams(noise_multipliers=1.1, num_samples=60000, batch_size=256,
                               delta=1e-5)
    eps = acc.compute_epsilon(num_updates=2000, dp_params=params)
    # jax_privacy passes q = 256 / 60000.0 as a float: its shortest decimal
    code, out, err = cli(["dpsgd", "--rate", repr(256 / 60000.0), "--sigma", "1.1", "--steps",
                          "2000", "--delta", "1e-5"])
    assert code == 0, err
    q = out["result"]["value"]
    assert float(dpcert.Bound(q).lower) <= eps <= q["upper_f64"]
    # exactly dpcert's audit of the event jax_privacy composed
    assert eps == dpcert.audit(_event(256 / 60000.0, 1.1, 2000), delta="1e-5").epsilon.upper_float


def test_a_schedule_of_noise_multipliers_is_composed():
    acc = analysis.DpsgdTrainingAccountant(dp_accountant_config=CertifiedAccountantConfig())
    params = analysis.DpParams(noise_multipliers=[(0, 1.5), (500, 1.0)], num_samples=10000,
                               batch_size=100, delta=1e-5)
    eps = acc.compute_epsilon(num_updates=1000, dp_params=params)
    b = dpcert.dpsgd_epsilon(phases=[("0.01", "1.5", 500), ("0.01", "1.0", 500)], delta="1e-5")
    # two certified brackets of the same exact ε (the audit's and the schedule's): the
    # audit's upper end is above the schedule's lower end, and within 0.1 % of its upper end
    assert float(b.lower) <= eps <= float(b.upper) * 1.001


def _event(q, sigma, steps):
    import dp_accounting
    return dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
