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
    ("0.001", "1", 1000000, "1e-5"),
]
# rows with --long: dpcert alone (dp_accounting has no such pair, or would need hours), with the
# extra dpcert arguments that make the question (issue 29's long runs and substitution brackets)
LONG = [
    ("256/60000", "1.1", 14063, "1e-5", ("--relation", "substitution")),
    ("256/60000", "1.1", 14063, "1e-5", ("--relation", "substitution", "--sampling",
                                        "fixed-size", "--method", "best")),
    ("256/60000", "1.1", 1000000000, "1e-5", ()),
    ("0.01", "4", 1000000000, "1e-5", ()),
    ("1e-4", "0.5", 1000000000, "1e-5", ()),
    ("0.001", "1", 1000000000, "1e-5", ()),
]


def label(q, sigma, steps, delta, extra=()):
    return f"q={q} sigma={sigma} T={steps} delta={delta}" + "".join(f" {a}" for a in extra)


def md_number(x):
    """A float in the docs table's style: 8 significant digits, no exponent."""
    return f"{x:.8g}" if 1e-4 <= abs(x) < 1e7 else f"{x:.3g}"


def md_sci(x):
    """2.6·10⁻³ style (the docs' widths)."""
    if x == 0 or x != x:
        return "0" if x == 0 else "—"
    m, e = f"{x:.1e}".split("e")
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{m}·10{str(int(e)).translate(sup)}"


def md_setting(q, sigma, steps, delta, extra=()):
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    d = delta.split("e")
    d = f"{d[0]}·10{str(int(d[1])).translate(sup)}" if d[0] not in ("1", "") else \
        f"10{str(int(d[1])).translate(sup)}"
    t = (f"10{str(len(str(steps)) - 1).translate(sup)}"
         if str(steps).strip("0") == "1" and steps >= 10**6 else steps)
    flag = dict(zip(extra[::2], extra[1::2]))
    what = flag.get("--relation", "add/remove") + (
        f", {flag['--sampling']}" if "--sampling" in flag else ", poisson")
    return f"q = {q}, σ = {sigma}, {t} steps, δ = {d} ({what})"


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


_RSS = {}


def dpcert_epsilon(dpcert, method, q, sigma, steps, delta, threads=None, extra=()):
    """(parsed JSON or None, seconds, peak RSS in MiB or None, stderr) of one dpcert process.
    `threads=1` sets DPCERT_THREADS=1 (the accountant's jobs run one after another).
    The seconds are the process alone; the RSS comes from GNU time (its %M) in one extra,
    untimed run per command (GNU time's own start-up, 3-4 ms, was inside the timings before
    2026-12-07: 15 % of a 20 ms setting), not from os.wait4 here: a child's ru_maxrss keeps
    the high-water mark of the process it was spawned as, i.e. this Python with numpy."""
    cmd = [dpcert, "dpsgd", "--rate", q, "--sigma", sigma, "--steps", str(steps),
           "--delta", delta, "--method", method, "--json", *extra]
    env = dict(os.environ)
    if threads is not None:
        env["DPCERT_THREADS"] = str(threads)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    secs = time.perf_counter() - t0
    key = (tuple(cmd), threads)
    if key not in _RSS:
        _RSS[key] = None
        if os.path.exists(GNU_TIME):
            with tempfile.NamedTemporaryFile("r") as rss_file:
                subprocess.run([GNU_TIME, "-f", "%M", "-o", rss_file.name, *cmd],
                               capture_output=True, text=True, env=env)
                lines = rss_file.read().split()  # "Command exited with non-zero status N" first
                _RSS[key] = int(lines[-1]) / 1024 if lines else None  # %M is in KiB
    rss_mib = _RSS[key]
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


def run_setting(args, setting, extra, with_dpa):
    """One row's measurements (a dict), or None when dpcert failed."""
    q, sigma, steps, delta = setting
    row = {"setting": md_setting(q, sigma, steps, delta, extra),
           "name": label(q, sigma, steps, delta, extra)}
    if with_dpa:
        dpa_runs = [dp_accounting_epsilon(q, sigma, steps, delta) for _ in range(args.reps)]
        row["dpa_eps"], row["dpa_s"] = dpa_runs[-1][0], min(t for _, t in dpa_runs)
    dargs = [*args.dpcert_args.split(), *extra]
    # the method is part of some questions (fixed-size: best only)
    method = "best" if "--method" in extra else args.dpcert_method
    if "--method" in extra:
        i = dargs.index("--method")
        del dargs[i:i + 2]
    reps = args.reps if with_dpa else 1
    one = timed_runs(reps, lambda: dpcert_epsilon(
        args.dpcert, method, *setting, threads=1, extra=dargs)) if with_dpa else None
    many = timed_runs(reps, lambda: dpcert_epsilon(args.dpcert, method, *setting, extra=dargs))
    if many[0] is None or (one is not None and one[0] is None):
        err = many[1] if many[0] is None else one[1]
        print(f"  dpcert failed on {row['name']}: {err}")
        return None
    row["lo"], row["up"] = (float(x) for x in bracket(many[0]))
    row["width"] = (row["up"] - row["lo"]) / row["up"] if row["up"] > 0 else float("nan")
    row["many_s"] = many[1]
    if one is not None:
        row["one_s"] = one[1]
    rss = [r for r in (many[2], one[2] if one else None) if r is not None]
    row["rss"] = max(rss) if rss else None
    if args.tight_check and with_dpa:
        tight = timed_runs(args.reps, lambda: dpcert_epsilon(
            args.dpcert, method, *setting, extra=[*dargs, "--tight"]))
        if tight[0] is None:
            print(f"  dpcert --tight failed on {row['name']}: {tight[1]}")
        else:
            tlo, tup = (float(x) for x in bracket(tight[0]))
            # the tight run's lower end is ≤ the true ε: this bounds upper − ε* from above
            row["above"] = (row["up"] - tlo) / row["up"]
            row["tight_w"] = (tup - tlo) / tup
            row["tight_s"] = tight[1]
    return row


def console_line(r):
    if "lo" not in r:
        return f"{r['name']:<42}{'failed':>14}"
    out = f"{r['name']:<42}"
    if "dpa_s" in r:
        out += f"{r['dpa_eps']:>12.8g}{r['dpa_s']:>9.3f}"
    else:
        out += f"{'-':>12}{'-':>9}"
    out += f"{r['lo']:>14.8g}{r['up']:>14.8g}{r['width']:>9.1e}"
    if "one_s" in r:
        out += f"{r['one_s']:>9.3f}{r['one_s'] / r['dpa_s']:>7.2f}"
        out += f"{r['many_s']:>9.3f}{r['many_s'] / r['dpa_s']:>7.2f}"
    else:
        out += f"{'-':>9}{'-':>7}{r['many_s']:>9.3f}{'-':>7}"
    out += f"{r['rss']:>8.0f}" if r.get("rss") is not None else f"{'-':>8}"
    if "tight_s" in r:
        out += (f"{r['above']:>10.1e}{r['tight_w']:>9.1e}{r['tight_s']:>9.3f}"
                f"{r['tight_s'] / r['many_s']:>7.1f}")
    return out


def markdown_table(rows):
    head = ("| DP-SGD setting | certified ε ∈ | width | above ε* ≤ | dp_accounting ε | dp_acc. s "
            "| dpcert s, 1 thread | ratio | dpcert s, 2 threads | ratio | tight width | tight time "
            "| peak MiB |\n|" + "---|" * 13)
    lines = [head]
    for r in rows:
        if "lo" not in r:
            lines.append(f"| {r['setting']} | failed |" + " |" * 11)
            continue
        dpa = r.get("dpa_s")
        eps = ("∞" if r["dpa_eps"] == float("inf") else md_number(r["dpa_eps"])) if dpa else "—"
        comparable = dpa is not None and r["dpa_eps"] != float("inf")
        ratio = lambda t: f"**{t / dpa:.2f}**" if comparable else "—"  # noqa: E731
        cells = [
            r["setting"], f"[{md_number(r['lo'])}, {md_number(r['up'])}]", md_sci(r["width"]),
            md_sci(r["above"]) if "above" in r else "—", eps,
            f"{dpa:.3g}" if dpa else "—",
            f"{r['one_s']:.3g}" if "one_s" in r else "—", ratio(r["one_s"]) if "one_s" in r else "—",
            f"{r['many_s']:.3g}", ratio(r["many_s"]),
            md_sci(r["tight_w"]) if "tight_w" in r else "—",
            f"{r['tight_s'] / r['many_s']:.1f}×" if "tight_s" in r else "—",
            f"{r['rss']:.0f}" if r.get("rss") is not None else "—",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


MARK_START = "<!-- bench-pld-vs-dp-accounting: start (generated by scripts/bench-pld-vs-dp-accounting --markdown) -->"
MARK_END = "<!-- bench-pld-vs-dp-accounting: end -->"


def write_markdown(path, header, rows):
    """Replace the text between the markers in `path` by the header line and the table."""
    text = open(path, encoding="utf-8").read()
    if MARK_START not in text or MARK_END not in text:
        sys.exit(f"{path}: no '{MARK_START}' … '{MARK_END}' markers")
    a = text.index(MARK_START) + len(MARK_START)
    b = text.index(MARK_END)
    body = f"\n{header}\n\n{markdown_table(rows)}\n"
    open(path, "w", encoding="utf-8").write(text[:a] + body + text[b:])
    print(f"wrote the table into {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpcert", default="target/release/dpcert")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per setting (minimum)")
    ap.add_argument("--only", help="substring filter on the setting label")
    ap.add_argument("--extra", action="store_true", help="also the tiny-δ and corner rows")
    ap.add_argument("--long", action="store_true",
                    help="also dpcert-only rows: substitution and fixed-size MNIST, 10⁹ steps "
                         "(one run each)")
    ap.add_argument("--tight-check", action="store_true",
                    help="also run dpcert --tight per setting (timed like the default): its width and "
                         "time against the default's, and its certified lower end bounds how far "
                         "the default upper end lies above the true ε")
    ap.add_argument("--dpcert-args", default="", help="extra dpcert arguments, e.g. \"--grid 1/8192\"")
    ap.add_argument("--markdown", metavar="FILE",
                    help="also write the results as a Markdown table between the bench markers "
                         "of FILE (docs/pld-accountant.md)")
    ap.add_argument("--dpcert-method", default="pld", help=argparse.SUPPRESS)  # testing aid
    args = ap.parse_args()
    version = subprocess.run([args.dpcert, "--version"], capture_output=True, text=True)
    load_before = os.getloadavg()[0]
    header = (f"{version.stdout.strip()} (--method {args.dpcert_method} {args.dpcert_args}); "
              f"dp-accounting {metadata.version('dp-accounting')}, numpy "
              f"{metadata.version('numpy')}; {args.reps} reps, minimum seconds; "
              f"{os.cpu_count()} CPUs; load average before: {load_before:.1f}")
    print(header)
    plan = [(s, (), True) for s in SETTINGS + (EXTRA if args.extra else [])]
    plan += [(s[:4], tuple(s[4]), False) for s in (LONG if args.long else [])]
    rows = []
    for setting, extra, with_dpa in plan:
        name = label(*setting, extra)
        if args.only and args.only not in name:
            continue
        print(f"running {name} ...", file=sys.stderr, flush=True)
        r = run_setting(args, setting, extra, with_dpa)
        rows.append(r if r is not None else {"name": name, "setting": md_setting(*setting, extra)})

    head = (f"{'setting':<42}{'dp_acc eps':>12}{'dp_acc s':>9}{'dpcert lower':>14}"
            f"{'dpcert upper':>14}{'width':>9}{'1 thr s':>9}{'ratio':>7}{'N thr s':>9}"
            f"{'ratio':>7}{'RSS MiB':>8}"
            + (f"{'up−ε* ≤':>10}{'tight w':>9}{'tight s':>9}{'×dflt':>7}" if args.tight_check else ""))
    print("\n" + head + "\n" + "\n".join(console_line(r) for r in rows))
    print("(width = (upper − lower)/upper, a certified bound on the upper side's relative distance "
          "to the true ε; ratio = dpcert seconds / dp_accounting seconds, same run; 1 thr = "
          "DPCERT_THREADS=1; RSS = dpcert's peak; up−ε* ≤ = (upper − the --tight run's lower end)/upper, "
          "a certified bound on the default upper end's relative distance above the true ε; tight w, "
          "tight s = the --tight run's width and seconds (default threads, minimum of the reps), "
          "×dflt = tight s / N thr s)")
    load_after = os.getloadavg()[0]
    print(f"load average after: {load_after:.1f}")
    if args.markdown:
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        write_markdown(args.markdown, f"Measured {stamp}: {header}; load average after: "
                                      f"{load_after:.1f}.", rows)


if __name__ == "__main__":
    main()
