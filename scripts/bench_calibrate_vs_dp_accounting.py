#!/usr/bin/env python3
"""Time dpcert's certified calibration against dp_accounting's calibrate_dp_mechanism.

For each DP-SGD setting (q, steps, delta, target epsilon) it times, in the same run:
- dp_accounting: calibrate_dp_mechanism(PLDAccountant(value_discretization_interval=1e-4),
  Poisson-sampled Gaussian event, noise multiplier searched in [0.1, 100], tol 1e-3);
- `dpcert calibrate dpsgd ... --json` (a whole process): sigma certified feasible, and a
  certificate that sigma(1 - 1e-3) is infeasible;
- one `dpcert dpsgd --method pld` evaluation at dpcert's sigma (the unit "accountant
  evaluations' time" is measured in);
and prints medians, the number of evaluations dpcert used, and both sigmas. It also checks
that dp_accounting's sigma is not below dpcert's certified-infeasible sigma (a float search
returning an infeasible sigma would show up here). Run it through
`scripts/bench-calibrate-vs-dp-accounting`. A manual tool, not part of the test suite.
"""
import argparse
import json
import statistics
import subprocess
import time
import warnings
from fractions import Fraction

import dp_accounting as dpa
from dp_accounting.pld import PLDAccountant

warnings.filterwarnings("ignore")

SETTINGS = [  # (q exact, steps, delta, target)
    ("256/60000", 14063, "1e-5", "3"),   # MNIST, 60 epochs
    ("256/60000", 14063, "1e-5", "1"),
    ("0.01", 10000, "1e-5", "2"),
]


def timed(f, reps):
    out, ts = None, []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return out, statistics.median(ts)


def dpa_sigma(q, steps, delta, target):
    make_event = lambda s: dpa.SelfComposedDpEvent(
        dpa.PoissonSampledDpEvent(float(Fraction(q)), dpa.GaussianDpEvent(s)), steps)
    return dpa.calibrate_dp_mechanism(
        lambda: PLDAccountant(value_discretization_interval=1e-4), make_event,
        float(target), float(delta), bracket_interval=dpa.LowerEndpointAndGuess(0.1, 1.0),
        tol=1e-3)


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["result"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dpcert", required=True)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    print(f"{'setting':34} {'dp_acc s':>9} {'dp_acc σ':>10} {'dpcert s':>9} {'evals':>5} "
          f"{'one eval s':>10} {'ratio':>6}  dpcert σ (feasible / infeasible)")
    for q, steps, delta, target in SETTINGS:
        s_dpa, t_dpa = timed(lambda: dpa_sigma(q, steps, delta, target), a.reps)
        cal = [a.dpcert, "calibrate", "dpsgd", "--rate", q, "--steps", str(steps),
               "--delta", delta, "--target-epsilon", target, "--json"]
        r, t_cal = timed(lambda: run_json(cal), a.reps)
        sf = r["value"]
        si = r["infeasible"]["sigma"] if r["infeasible"] else None
        one = [a.dpcert, "dpsgd", "--rate", q, "--steps", str(steps), "--delta", delta,
               "--sigma", sf, "--method", "pld", "--json"]
        _, t_one = timed(lambda: run_json(one), a.reps)
        ok = si is None or Fraction(s_dpa) > Fraction(si)
        label = f"q={q} T={steps} δ={delta} ε≤{target}"
        print(f"{label:34} {t_dpa:9.2f} {s_dpa:10.5f} {t_cal:9.2f} {r['evaluations']:5d} "
              f"{t_one:10.2f} {t_cal / t_one:6.1f}  {sf} / {si}"
              + ("" if ok else "  <-- dp_accounting's σ is certified INFEASIBLE"))


if __name__ == "__main__":
    main()
