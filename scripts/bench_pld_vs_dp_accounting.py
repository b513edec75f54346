#!/usr/bin/env python3
"""Time dpcert's certified PLD accountant against Google's dp_accounting PLD accountant.

For each DP-SGD setting (q, σ, steps, δ) it times, in the same run, dp_accounting's
PLDAccountant(value_discretization_interval=1e-4) computing ε of the self-composed
Poisson-subsampled Gaussian, and a whole `dpcert dpsgd ... --method pld --json` process,
and reports the median wall-clock seconds, the ratio and dpcert's peak RSS. Run it through
`scripts/bench-pld-vs-dp-accounting`. A manual tool: not part of the test suite.
"""
import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from importlib import metadata

import dp_accounting as dpa
from dp_accounting.pld import PLDAccountant

warnings.filterwarnings("ignore")
logging.getLogger("absl").setLevel(logging.ERROR)

GNU_TIME = "/usr/bin/time"  # for dpcert's peak RSS; without it the RSS column shows "-"

# (q as dpcert's exact string, sigma, steps, delta); the first one is the headline
SETTINGS = [
    ("256/60000", "1.1", 14063, "1e-5"),
    ("0.01", "4", 10000, "1e-5"),
    ("256/60000", "0.7", 10547, "1e-5"),
    ("0.01", "2", 1500, "1e-15"),
    ("0.01", "2", 4500, "1e-15"),
]


def label(q, sigma, steps, delta):
    return f"q={q} sigma={sigma} T={steps} delta={delta}"


def dp_accounting_epsilon(q, sigma, steps, delta):
    """ε from dp_accounting and the seconds it took (accountant built from scratch)."""
    a, b = (float(x) for x in q.split("/")) if "/" in q else (float(q), 1.0)
    event = dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(a / b, dpa.GaussianDpEvent(float(sigma))), steps)
    t0 = time.perf_counter()
    eps = PLDAccountant(value_discretization_interval=1e-4).compose(event).get_epsilon(
        float(delta))
    return eps, time.perf_counter() - t0


def dpcert_epsilon(dpcert, method, q, sigma, steps, delta):
    """(parsed JSON or None, seconds, peak RSS in MiB or None, stderr) of one dpcert process.
    The RSS comes from GNU time (its %M), not from os.wait4 here: a child's ru_maxrss keeps
    the high-water mark of the process it was spawned as, i.e. this Python with numpy."""
    cmd = [dpcert, "dpsgd", "--rate", q, "--sigma", sigma, "--steps", str(steps),
           "--delta", delta, "--method", method, "--json"]
    with tempfile.NamedTemporaryFile("r") as rss_file:
        if os.path.exists(GNU_TIME):
            cmd = [GNU_TIME, "-f", "%M", "-o", rss_file.name, *cmd]
        t0 = time.perf_counter()  # includes GNU time's own start-up, about a millisecond
        p = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.perf_counter() - t0
        lines = rss_file.read().split()  # "Command exited with non-zero status N" first
        rss_mib = int(lines[-1]) / 1024 if lines else None  # %M is in KiB
    if p.returncode != 0:
        return None, secs, rss_mib, f"exit {p.returncode}: {p.stderr.strip()}"
    return json.loads(p.stdout), secs, rss_mib, p.stderr.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpcert", default="target/release/dpcert")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per setting (median)")
    ap.add_argument("--only", help="substring filter on the setting label")
    ap.add_argument("--dpcert-method", default="pld", help=argparse.SUPPRESS)  # testing aid
    args = ap.parse_args()
    version = subprocess.run([args.dpcert, "--version"], capture_output=True, text=True)
    print(f"{version.stdout.strip()} (--method {args.dpcert_method}); dp-accounting "
          f"{metadata.version('dp-accounting')}, numpy {metadata.version('numpy')}; "
          f"{args.reps} reps, median seconds; {os.cpu_count()} CPUs")

    head = (f"{'setting':<44}{'dp_acc eps':>12}{'dp_acc s':>10}{'dpcert lower':>14}"
            f"{'dpcert upper':>14}{'dpcert s':>10}{'ratio':>9}{'RSS MiB':>9}")
    rows, ratios = [], {}
    for setting in SETTINGS:
        name = label(*setting)
        if args.only and args.only not in name:
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        dpa_runs = [dp_accounting_epsilon(*setting) for _ in range(args.reps)]
        dpa_eps, dpa_s = dpa_runs[-1][0], statistics.median(t for _, t in dpa_runs)
        cert_runs = []
        for _ in range(args.reps):
            res, secs, rss, err = dpcert_epsilon(args.dpcert, args.dpcert_method, *setting)
            if res is None:
                print(f"  dpcert failed on {name}: {err}")
                break
            cert_runs.append((res, secs, rss))
        row = f"{name:<44}{dpa_eps:>12.8g}{dpa_s:>10.3f}"
        if cert_runs:
            res = cert_runs[-1][0]
            cert_s = statistics.median(s for _, s, _ in cert_runs)
            rss = max((r for _, _, r in cert_runs if r is not None), default=None)
            ratios[setting] = cert_s / dpa_s
            lower = f"{float(res['lower']):.8g}" if res.get("lower") is not None else "-"
            upper = f"{float(res['upper']):.8g}" if res.get("upper") is not None else "-"
            rss = f"{rss:.1f}" if rss is not None else "-"
            row += f"{lower:>14}{upper:>14}{cert_s:>10.3f}{ratios[setting]:>9.2f}{rss:>9}"
        else:
            row += f"{'failed':>14}{'-':>14}{'-':>10}{'-':>9}{'-':>9}"
        rows.append(row)

    print("\n" + head + "\n" + "\n".join(rows))
    print("(ratio = dpcert seconds / dp_accounting seconds; RSS = dpcert's peak, max over reps)")
    headline = ratios.get(SETTINGS[0])
    print(f"headline ratio: {headline:.2f}" if headline is not None
          else "headline ratio: n/a (headline setting not run or dpcert failed)")


if __name__ == "__main__":
    main()
