"""Sweeps: a hyper-parameter search or a test matrix maps dpcert over many settings.

The results must pickle (to cross process and machine boundaries), and a thread pool and a
dask.distributed cluster must return exactly the sequential results, digit for digit.
(That long calls release the GIL is tested in test_interrupt.py.)
"""
import concurrent.futures
import pickle

import dpcert

# cheap DP-SGD settings (each well under a second), varied in every run parameter
RATES = ["256/60000", "0.01", "0.02", "1/128"]
SIGMAS = ["0.9", "1", "1.3", "2"]
STEPS = [1000, 300, 500, 200]
DELTA = "1e-5"


def _same(a, b):
    """Bit-for-bit the same answer: the printed decimal ends and the kind."""
    return (a.lower_text, a.upper_text, a.kind) == (b.lower_text, b.upper_text, b.kind)


def _sequential():
    return [dpcert.dpsgd_epsilon(q, s, t, delta=DELTA) for q, s, t in zip(RATES, SIGMAS, STEPS)]


def test_results_pickle_to_equal_values():
    b = dpcert.dpsgd_epsilon(RATES[0], SIGMAS[0], STEPS[0], delta=DELTA)
    c = pickle.loads(pickle.dumps(b))
    assert _same(b, c) and c == b and float(c) == float(b) and c.raw == b.raw
    cal = dpcert.calibrate_gaussian_sigma(target_epsilon=1, delta=DELTA)
    cal2 = pickle.loads(pickle.dumps(cal))
    assert repr(cal2) == repr(cal)
    report = dpcert.audit({"mechanism": [{"type": "gaussian", "sigma": 8, "repeat": 52}],
                           "claim": {"epsilon": 2, "delta": "1e-6"}})
    report2 = pickle.loads(pickle.dumps(report))
    assert report2.verdict == report.verdict and _same(report2.epsilon, report.epsilon)


def test_thread_pool_equals_sequential():
    seq = _sequential()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        par = list(pool.map(lambda a: dpcert.dpsgd_epsilon(*a, delta=DELTA),
                            zip(RATES, SIGMAS, STEPS)))
    assert len(par) == len(seq) and all(_same(a, b) for a, b in zip(par, seq))


def test_dask_local_cluster_equals_sequential():
    # the real dask.distributed (installed by scripts/test-python): two worker processes on
    # this machine, every address on the loopback interface
    from dask.distributed import Client, LocalCluster

    seq = _sequential()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        futures = client.map(dpcert.dpsgd_epsilon, RATES, SIGMAS, STEPS, delta=DELTA,
                             pure=False)
        par = client.gather(futures)
    assert len(par) == len(seq) and all(_same(a, b) for a, b in zip(par, seq))
