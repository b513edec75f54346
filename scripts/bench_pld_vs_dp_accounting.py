#!/usr/bin/env python3
"""Time dpcert's certified PLD accountant against Google's dp_accounting PLD accountant.

For each DP-SGD setting (q, σ, steps, δ) of issue 13 it times, in the same run,
dp_accounting's PLDAccountant(value_discretization_interval=1e-4) computing ε of the
self-composed Poisson-subsampled Gaussian (numpy/scipy single-threaded), and whole
`dpcert dpsgd ... --method pld --json` processes, single-threaded (DPCERT_THREADS=1) and with
the default threads. It reports the minimum wall-clock seconds over the repetitions, the
ratios, the certified bracket's relative width and dpcert's peak RSS, and the load average
before and after (the machine may be shared: only same-run ratios count). Run it through
`scripts/bench-pld-vs-dp-accounting`. A manual tool: not part of the test suite.
"""
import os

# numpy/scipy single-threaded, so that "1 thread" means the same for both accountants
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

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

# (q as dpcert's exact string, sigma, steps, delta): the seven settings of issue 13; the first
# one (MNIST) is the headline
SETTINGS = [
    ("256/60000", "1.1", 14063, "1e-5"),
    ("256/60000", "0.7", 10547, "1e-5"),
    ("0.01", "4", 10000, "1e-5"),
    ("1024/50000", "4", 10000, "1e-5"),
    ("4096/50000", "10", 875, "1e-5"),
    ("5e-3", "0.8", 1000, "1e-6"),
    ("0.2", "1", 10, "1e-5"),
]
# further rows with --extra: tiny δ and hard corners (dp_accounting answers ∞ or nothing there)
EXTRA = [
    ("0.01", "2", 1500, "1e-15"),
    ("0.00033", "4", 10000, "1.1e-18"),
    ("0.00033", "4", 10000, "1e-30"),
    ("1e-4", "0.5", 1000000, "1e-5"),
]


def label(q, sigma, steps, delta):
    return f"q={q} sigma={sigma} T={steps} delta={delta}"


def dp_accounting_epsilon(q, sigma, steps, delta):
    """ε from dp_accounting and the seconds it took (accountant built from scratch)."""
    a, b = (float(x) for x in q.split("/")) if "/" in q else (float(q), 1.0)
    t0 = time.perf_counter()
    event = dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(a / b, dpa.GaussianDpEvent(float(sigma))), steps)
    try:
        eps = PLDAccountant(value_discretization_interval=1e-4).compose(event).get_epsilon(
            float(delta))
    except Exception as e:  # noqa: BLE001 — report, do not stop the table
        eps = float("nan")
        print(f"  dp_accounting failed: {e}", file=sys.stderr)
    return eps, time.perf_counter() - t0


def dpcert_epsilon(dpcert, method, q, sigma, steps, delta, threads=None, extra=()):
    """(parsed JSON or None, seconds, peak RSS in MiB or None, stderr) of one dpcert process.
    `threads=1` sets DPCERT_THREADS=1 (the accountant's jobs run one after another).
    The RSS comes from GNU time (its %M), not from os.wait4 here: a child's ru_maxrss keeps
    the high-water mark of the process it was spawned as, i.e. this Python with numpy."""
    cmd = [dpcert, "dpsgd", "--rate", q, "--sigma", sigma, "--steps", str(steps),
           "--delta", delta, "--method", method, "--json", *extra]
    env = dict(os.environ)
    if threads is not None:
        env["DPCERT_THREADS"] = str(threads)
    with tempfile.NamedTemporaryFile("r") as rss_file:
        if os.path.exists(GNU_TIME):
            cmd = [GNU_TIME, "-f", "%M", "-o", rss_file.name, *cmd]
        t0 = time.perf_counter()  # includes GNU time's own start-up, about a millisecond
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        secs = time.perf_counter() - t0
        lines = rss_file.read().split()  # "Command exited with non-zero status N" first
        rss_mib = int(lines[-1]) / 1024 if lines else None  # %M is in KiB
    if p.returncode != 0:
        return None, secs, rss_mib, f"exit {p.returncode}: {p.stderr.strip()}"
    return json.loads(p.stdout), secs, rss_mib, p.stderr.strip()


def bracket(res):
    """(lower, upper) of dpcert's JSON: the top-level keys, or the first quantity object
    ({lower, upper, ...}) inside a dpcert/1 envelope's result."""
    if isinstance(res, dict):
        if "lower" in res and "upper" in res:
            return res["lower"], res["upper"]
        for v in res.values():
            b = bracket(v)
            if b is not None:
                return b
    elif isinstance(res, list):
        for v in res:
            b = bracket(v)
            if b is not None:
                return b
    return None


def timed_runs(reps, fn):
    """Run fn() `reps` times; (last result, minimum seconds) or (None, error) on a failure."""
    best, last = None, None
    for _ in range(reps):
        res, secs, rss, err = fn()
        if res is None:
            return None, err, rss
        last = res
        best = secs if best is None else min(best, secs)
    return last, best, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpcert", default="target/release/dpcert")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per setting (minimum)")
    ap.add_argument("--only", help="substring filter on the setting label")
    ap.add_argument("--extra", action="store_true", help="also the tiny-δ and corner rows")
    ap.add_argument("--tight-check", action="store_true",
                    help="also run dpcert --tight per setting (timed like the default): its width and "
                         "time against the default's, and its certified lower end bounds how far "
                         "the default upper end lies above the true ε")
    ap.add_argument("--dpcert-args", default="", help="extra dpcert arguments, e.g. \"--grid 1/8192\"")
    ap.add_argument("--dpcert-method", default="pld", help=argparse.SUPPRESS)  # testing aid
    args = ap.parse_args()
    version = subprocess.run([args.dpcert, "--version"], capture_output=True, text=True)
    print(f"{version.stdout.strip()} (--method {args.dpcert_method} {args.dpcert_args}); "
          f"dp-accounting {metadata.version('dp-accounting')}, numpy "
          f"{metadata.version('numpy')}; {args.reps} reps, minimum seconds; "
          f"{os.cpu_count()} CPUs; load average before: {os.getloadavg()[0]:.1f}")
    extra_args = args.dpcert_args.split()

    head = (f"{'setting':<42}{'dp_acc eps':>12}{'dp_acc s':>9}{'dpcert lower':>14}"
            f"{'dpcert upper':>14}{'width':>9}{'1 thr s':>9}{'ratio':>7}{'N thr s':>9}"
            f"{'ratio':>7}{'RSS MiB':>8}"
            + (f"{'up−ε* ≤':>10}{'tight w':>9}{'tight s':>9}{'×dflt':>7}" if args.tight_check else ""))
    rows = []
    for setting in SETTINGS + (EXTRA if args.extra else []):
        name = label(*setting)
        if args.only and args.only not in name:
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        dpa_runs = [dp_accounting_epsilon(*setting) for _ in range(args.reps)]
        dpa_eps, dpa_s = dpa_runs[-1][0], min(t for _, t in dpa_runs)
        row = f"{name:<42}{dpa_eps:>12.8g}{dpa_s:>9.3f}"
        one = timed_runs(args.reps, lambda: dpcert_epsilon(
            args.dpcert, args.dpcert_method, *setting, threads=1, extra=extra_args))
        many = timed_runs(args.reps, lambda: dpcert_epsilon(
            args.dpcert, args.dpcert_method, *setting, extra=extra_args))
        if one[0] is None or many[0] is None:
            err = one[1] if one[0] is None else many[1]
            print(f"  dpcert failed on {name}: {err}")
            row += f"{'failed':>14}"
            rows.append(row)
            continue
        lo, up = (float(x) for x in bracket(many[0]))
        width = (up - lo) / up if up > 0 else float("nan")
        rss = max((r for r in (one[2], many[2]) if r is not None), default=None)
        rss = f"{rss:.0f}" if rss is not None else "-"
        row += (f"{lo:>14.8g}{up:>14.8g}{width:>9.1e}{one[1]:>9.3f}{one[1] / dpa_s:>7.2f}"
                f"{many[1]:>9.3f}{many[1] / dpa_s:>7.2f}{rss:>8}")
        if args.tight_check:
            tight = timed_runs(args.reps, lambda: dpcert_epsilon(
                args.dpcert, args.dpcert_method, *setting, extra=["--tight"]))
            if tight[0] is None:
                row += f"{'failed':>10}"
                print(f"  dpcert --tight failed on {name}: {tight[1]}")
            else:
                # the tight run's lower end is ≤ the true ε, so this bounds upper − ε* from above
                tlo, tup = (float(x) for x in bracket(tight[0]))
                row += (f"{(up - tlo) / up:>10.1e}{(tup - tlo) / tup:>9.1e}{tight[1]:>9.3f}"
                        f"{tight[1] / many[1]:>7.1f}")
        rows.append(row)

    print("\n" + head + "\n" + "\n".join(rows))
    print("(width = (upper − lower)/upper, a certified bound on the upper side's relative distance "
          "to the true ε; ratio = dpcert seconds / dp_accounting seconds, same run; 1 thr = "
          "DPCERT_THREADS=1; RSS = dpcert's peak; up−ε* ≤ = (upper − the --tight run's lower end)/upper, "
          "a certified bound on the default upper end's relative distance above the true ε; tight w, "
          "tight s = the --tight run's width and seconds (default threads, minimum of the reps), "
          "×dflt = tight s / N thr s)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
