#!/usr/bin/env python3
"""Cross-check float DP accountants against dpcert's certified enclosures.

Asks Google's `dp_accounting` and `autodp` the questions of `dpcert vectors --json`, then
lets `dpcert check` judge every float answer: sound (a valid bound), unsound (provably
wrong) or undecided. Run it through `scripts/crosscheck-float-accountants`, which makes a
throw-away venv with both libraries. A manual tool: not part of the test suite.
"""
import argparse
import contextlib
import io
import json
import logging
import math
import resource
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from fractions import Fraction
from importlib import metadata

import dp_accounting as dpa
from dp_accounting.pld import PLDAccountant
from dp_accounting.rdp import RdpAccountant
from autodp import calibrator_zoo, dp_bank, mechanism_zoo, transformer_zoo

warnings.filterwarnings("ignore")
logging.getLogger("absl").setLevel(logging.ERROR)
REPLACE_ONE = dpa.NeighboringRelation.REPLACE_ONE
MATERIAL = 1e-9  # an unsound answer off by more than this relative amount is not rounding
PLD_MAX_POINTS = 2e7  # larger Gaussian PLDs take minutes and tens of GB: skipped


class Skip(Exception):
    pass


class Q:
    """One vector's question, numbers parsed exactly, then handed to the libraries as floats."""

    def __init__(self, query):
        self.query = query
        self.kind = "dpsgd" if query[0] == "dpsgd" else f"{query[0]} {query[1]}"
        if query[0] == "dpsgd":
            # `dpcert check` judges by the vector's method: the PLD bracket is two-sided
            self.kind += " " + query[query.index("--method") + 1]
        # options start after the subcommand words (one word for `dpsgd`, two otherwise);
        # non-numeric option values (e.g. `--method rdp`) are not needed here
        toks = query[1:] if query[0] == "dpsgd" else query[2:]
        opts = {}
        for k, v in zip(toks[::2], toks[1::2]):
            try:
                opts[k.lstrip("-")] = Fraction(v)
            except ValueError:
                pass
        self.opts = opts
        self.K = int(opts.get("compositions", 1))
        sens = opts.get("sensitivity", Fraction(1))
        if "sigma" in opts:
            self.nm = float(opts["sigma"] / sens)  # noise multiplier σ/Δ
            self.nm_eff = self.nm / math.sqrt(self.K)  # K-fold Gaussian = one with σ/√K
        self.sens = float(sens)

    def f(self, name):
        return float(self.opts[name])


# (library, method, query kind) -> function of Q giving the library's float answer
METHODS = {}


def method(library, name, *kinds):
    def register(fn):
        for kind in kinds:
            METHODS[(library, name, kind)] = fn
        return fn

    return register


def answer(q, get_delta, get_epsilon):
    """δ at the query's ε, or ε at its δ, as the query asks."""
    return get_delta(q.f("epsilon")) if q.kind.endswith("delta") else get_epsilon(q.f("delta"))


# ---- Google dp_accounting ---------------------------------------------------------------
def gauss_event(q, nm=None):
    return dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(noise_multiplier=nm or q.nm), q.K)


def rr_event(q):
    # binary randomized response that is exactly ε0-DP, the worst ε0-DP mechanism
    p = 2.0 / (1.0 + math.exp(q.f("epsilon")))
    rr = dpa.RandomizedResponseDpEvent(noise_parameter=p, num_buckets=2)
    return dpa.SelfComposedDpEvent(rr, int(q.opts["count"]))


def check_pld_size(nm_eff):
    # dp_accounting's Gaussian PLD spans about 1/σ² + 20/σ of privacy loss (tails cut at
    # log mass -50) on a grid of 1e-4; much more than 2e7 points takes minutes and many GB
    points = (1 / nm_eff**2 + 20 / nm_eff) / 1e-4
    if points > PLD_MAX_POINTS:
        raise Skip(f"skipped: the Gaussian PLD would have over {PLD_MAX_POINTS:.0e} points")


@method("dp_accounting", "pld", "gaussian delta", "gaussian epsilon")
def dpa_pld(q):
    check_pld_size(q.nm_eff)
    acct = PLDAccountant().compose(gauss_event(q))
    return answer(q, acct.get_delta, acct.get_epsilon)


@method("dp_accounting", "rdp", "gaussian delta", "gaussian epsilon")
def dpa_rdp(q):
    acct = RdpAccountant().compose(gauss_event(q))
    return answer(q, acct.get_delta, acct.get_epsilon)


@method("dp_accounting", "analytic", "gaussian epsilon")
def dpa_analytic_epsilon(q):
    return dpa.get_epsilon_gaussian(q.nm_eff, q.f("delta"))


@method("dp_accounting", "analytic", "gaussian sigma")
def dpa_analytic_sigma(q):
    return dpa.get_sigma_gaussian(q.f("epsilon"), q.f("delta")) * math.sqrt(q.K) * q.sens


@method("dp_accounting", "pld-calibrate", "gaussian sigma")
def dpa_pld_sigma(q):
    e, d = q.f("epsilon"), q.f("delta")
    guess = dpa.get_sigma_gaussian(e, d) * math.sqrt(q.K)  # bracket around the analytic σ
    check_pld_size(guess / 2 / math.sqrt(q.K))
    bracket = dpa.ExplicitBracketInterval(guess / 2, guess * 2)
    s = dpa.calibrate_dp_mechanism(PLDAccountant, lambda x: gauss_event(q, nm=x), e, d, bracket)
    return s * q.sens


@method("dp_accounting", "rdp", "zcdp delta", "zcdp epsilon")
def dpa_zcdp(q):
    acct = RdpAccountant().compose(dpa.ZCDpEvent(rho=q.f("rho")))
    return answer(q, acct.get_delta, acct.get_epsilon)


@method("dp_accounting", "pld-rr", "compose pure")
def dpa_pld_pure(q):
    return PLDAccountant(REPLACE_ONE).compose(rr_event(q)).get_epsilon(q.f("delta"))


@method("dp_accounting", "rdp-rr", "compose pure")
def dpa_rdp_pure(q):
    acct = RdpAccountant(neighboring_relation=REPLACE_ONE).compose(rr_event(q))
    return acct.get_epsilon(q.f("delta"))


def dpsgd_event(q):
    sampled = dpa.PoissonSampledDpEvent(q.f("rate"), dpa.GaussianDpEvent(q.f("sigma")))
    return dpa.SelfComposedDpEvent(sampled, int(q.opts["steps"]))


@method("dp_accounting", "pld", "dpsgd pld")
def dpa_dpsgd_pld(q):
    acct = PLDAccountant(value_discretization_interval=1e-4).compose(dpsgd_event(q))
    return acct.get_epsilon(q.f("delta"))


@method("dp_accounting", "rdp", "dpsgd rdp")
def dpa_dpsgd_rdp(q):
    return RdpAccountant().compose(dpsgd_event(q)).get_epsilon(q.f("delta"))


# ---- autodp ------------------------------------------------------------------------------
@method("autodp", "analytic", "gaussian delta", "gaussian epsilon")
def ad_analytic(q):
    if q.kind == "gaussian delta":
        return math.exp(dp_bank.get_logdelta_ana_gaussian(q.nm_eff, q.f("epsilon")))
    mech = mechanism_zoo.ExactGaussianMechanism(sigma=q.nm)
    return transformer_zoo.ComposeGaussian()([mech], [q.K]).get_approxDP(q.f("delta"))


def ad_sigma_analytic(e, d):
    cal = calibrator_zoo.ana_gaussian_calibrator()
    return cal(mechanism_zoo.ExactGaussianMechanism, e, d).params["sigma"]


@method("autodp", "analytic", "gaussian sigma")
def ad_analytic_sigma(q):
    return ad_sigma_analytic(q.f("epsilon"), q.f("delta")) * math.sqrt(q.K) * q.sens


@method("autodp", "rdp", "gaussian delta", "gaussian epsilon")
def ad_rdp(q):
    mech = mechanism_zoo.GaussianMechanism(sigma=q.nm)
    composed = transformer_zoo.Composition()([mech], [q.K])
    return answer(q, composed.get_approx_delta, composed.get_approxDP)


@method("autodp", "rdp-calibrate", "gaussian sigma")
def ad_rdp_sigma(q):
    def mech(s):
        return mechanism_zoo.ComposedGaussianMechanism({"sigma": s, "coeff": q.K})

    # RDP needs more noise than the exact Gaussian: search above autodp's analytic σ
    e, d = q.f("epsilon"), q.f("delta")
    ana = ad_sigma_analytic(e, d) * math.sqrt(q.K)
    m = calibrator_zoo.eps_delta_calibrator()(mech, e, d, [ana, 10 * ana])
    return m.params["sigma"] * q.sens


@method("autodp", "rdp", "zcdp delta", "zcdp epsilon")
def ad_zcdp(q):
    mech = mechanism_zoo.zCDP_Mechanism(rho=q.f("rho"))
    return answer(q, mech.get_approx_delta, mech.get_approxDP)


@method("autodp", "rdp+basic", "compose pure")
def ad_pure(q):
    mech = mechanism_zoo.PureDP_Mechanism(eps=q.f("epsilon"))
    composed = transformer_zoo.Composition()([mech], [int(q.opts["count"])])
    return composed.get_eps(q.f("delta"))  # min(basic composition, RDP conversion)


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def ask(fn, q, timeout):
    """Returns (status, float or message, what the library printed); status is one of
    "ok", "inf/nan", "error", "skipped"."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    printed = io.StringIO()  # autodp prints e.g. "not found" when it falls back to δ = 1
    try:
        with contextlib.redirect_stdout(printed):
            v = float(fn(q))
    except Skip as e:
        return "skipped", str(e), printed.getvalue()
    except Timeout:
        return "error", f"timeout after {timeout}s", printed.getvalue()
    except Exception as e:  # noqa: BLE001 -- every library failure is data here
        return "error", f"{type(e).__name__}: {e}"[:300], printed.getvalue()
    finally:
        signal.alarm(0)
    if not math.isfinite(v):
        return "inf/nan", repr(v), printed.getvalue()
    return "ok", v, printed.getvalue()


def run_dpcert(dpcert, args):
    return subprocess.run([dpcert, *args], capture_output=True, text=True)


def rel_dev(rec):
    """(value - upper)/upper: negative = the library's number is that fraction too small
    (for zcdp / compose, `upper` is dpcert's bound, not the exact optimum)."""
    up = Fraction(rec["upper"])
    return float((Fraction(rec["value"]) - up) / up) if up != 0 else None


def is_material(rec):
    return rec["relative_deviation"] is None or abs(rec["relative_deviation"]) > MATERIAL


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpcert", default="target/release/dpcert")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per library call")
    ap.add_argument("--only", help="substring filter on 'library method kind'")
    ap.add_argument("--max-memory-gb", type=float, default=8,
                    help="address-space limit for this process (a MemoryError counts as error)")
    args = ap.parse_args()
    limit = int(args.max_memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    out = run_dpcert(args.dpcert, ["vectors", "--json"])
    if out.returncode != 0:
        sys.exit(f"dpcert vectors failed ({out.returncode}): {out.stderr}")
    vectors = json.loads(out.stdout)["vectors"]
    versions = {p: metadata.version(p) for p in ("dp-accounting", "autodp", "numpy", "scipy")}
    print(f"{len(vectors)} vectors; " + ", ".join(f"{k} {v}" for k, v in versions.items()))

    stats = defaultdict(lambda: defaultdict(int))
    records, notes = [], defaultdict(lambda: defaultdict(list))  # notes: key -> msg -> queries
    t0 = time.time()
    for vec in vectors:
        q = Q(vec["query"])
        for (lib, meth, kind), fn in METHODS.items():
            label = f"{lib} {meth} {kind}"
            if kind != q.kind or (args.only and args.only not in label):
                continue
            key = (lib, meth, kind)
            stats[key]["asked"] += 1
            status, v, printed = ask(fn, q, args.timeout)
            rec = {"library": lib, "method": meth, "kind": kind, "query": q.query,
                   "status": status, "printed": printed.strip() or None}
            records.append(rec)
            if printed.strip():
                notes[key][f"printed {printed.strip()!r}"].append(q.query)
            if status == "ok" and (v < 0 and kind != "gaussian delta"
                                   or v <= 0 and kind == "gaussian sigma"):
                status = rec["status"] = "invalid"  # dpcert rejects (exit 2) ε < 0 and σ <= 0
                v = f"invalid answer {v!r}"
            if status != "ok":
                stats[key][status] += 1
                rec["message"] = v
                notes[key][v].append(q.query)
                continue
            rec["value"] = repr(v)
    checked = [r for r in records if r["status"] == "ok"]
    print(f"asked the libraries in {time.time() - t0:.1f}s; {len(checked)} answers to check")

    workdir = tempfile.mkdtemp(prefix="dpcert-crosscheck-", dir="/tmp")
    check_path = f"{workdir}/check.json"
    with open(check_path, "w") as fh:
        json.dump([{"query": r["query"], "value": r["value"]} for r in checked], fh, indent=1)
    t0 = time.time()
    out = run_dpcert(args.dpcert, ["check", check_path, "--json"])
    if out.returncode not in (0, 1):
        sys.exit(f"dpcert check failed ({out.returncode}) on {check_path}:\n{out.stderr}")
    results = json.loads(out.stdout)["results"]
    print(f"dpcert check took {time.time() - t0:.1f}s (exit {out.returncode})")
    assert len(results) == len(checked)
    for rec, res in zip(checked, results):
        assert res["query"] == rec["query"] and res["value"] == rec["value"]
        rec.update(verdict=res["verdict"], lower=res["lower"], upper=res["upper"])
        key = (rec["library"], rec["method"], rec["kind"])
        stats[key][res["verdict"]] += 1
        if res["verdict"] == "unsound":
            rec["relative_deviation"] = rel_dev(rec)
            stats[key]["uns>1e-9"] += is_material(rec)

    cols = ["asked", "sound", "unsound", "uns>1e-9", "undecided", "error", "inf/nan",
            "invalid", "skipped"]
    print(f"\n{'library':<14}{'method':<15}{'query kind':<17}" + "".join(f"{c:>10}" for c in cols))
    for key in sorted(stats):
        print(f"{key[0]:<14}{key[1]:<15}{key[2]:<17}"
              + "".join(f"{stats[key][c]:>10}" for c in cols))
    totals = {c: sum(s[c] for s in stats.values()) for c in cols}
    print(f"{'total':<46}" + "".join(f"{totals[c]:>10}" for c in cols))
    print(f"(uns>1e-9: unsound by more than {MATERIAL:g} relative, i.e. beyond float rounding)")

    unsound = sorted((r for r in checked if r["verdict"] == "unsound"),
                     key=lambda r: (r["relative_deviation"] or -math.inf))
    print(f"\n{len(unsound)} unsound answers, worst first; rel.dev = (value - upper)/upper:")
    for r in unsound:
        dev = r["relative_deviation"]
        dev_s = f"{dev:.3g}" if dev is not None else "?"
        lo = r["lower"] if r["lower"] is not None else "-"
        tiny = " (exact value below the f64 range)" if r["lower"] and float(r["lower"]) == 0 else ""
        print(f"  {r['library']} {r['method']}: {' '.join(r['query'])}\n"
              f"      value={r['value']}  dpcert=[{lo}, {r['upper']}]  rel.dev={dev_s}{tiny}")

    if notes:
        print("\nerrors, skips, invalid answers and library printouts (distinct messages):")
        for key in sorted(notes):
            for msg, queries in sorted(notes[key].items()):
                print(f"  {' '.join(key)}: {msg}\n      x{len(queries)}, "
                      f"e.g. {' '.join(queries[0])}")

    result_path = f"{workdir}/results.json"
    with open(result_path, "w") as fh:
        json.dump({"versions": versions, "records": records,
                   "stats": {" | ".join(k): dict(v) for k, v in sorted(stats.items())}},
                  fh, indent=1)
    print(f"\ncheck file: {check_path}\nfull results: {result_path}")


if __name__ == "__main__":
    main()
