#!/usr/bin/env python3
"""Fuzz the dpcert command line, deployment files and `check` files.

Generates command lines for every subcommand (valid ones and mutated ones: huge counts, giant
numbers, extreme exponents, NaN/inf spellings, empty strings, binary junk, missing and repeated
flags), deployment files (TOML and JSON, mutated from examples/: wrong types, huge repeats,
deep nesting, truncation, binary junk) and `check` files (valid, impossible and malformed
records; files that are not JSON or not a list), runs the binary on each with a wall-clock
timeout and an address-space limit (`ulimit -v`), one process at a time, and records:

* inputs tried (per class), exit-code histogram;
* panics: exit 101, or "panicked" / "internal error" on stderr (must be 0);
* crashes: death by a signal other than our timeout kill (e.g. abort on allocation failure);
* hangs: runs killed at the timeout;
* max RSS and the slowest runs;
* NaN in stdout or in a written SVG, "inf"/"infinity" printed as a number, negative printed
  lower bounds of a δ, a number printed on stdout together with a non-zero exit.

Standard library only; not part of the test suite. Run it through `scripts/fuzz-cli`.
"""
import argparse
import json
import os
import random
import re
import resource
import signal
import string
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict

HOSTILE_NUMBERS = [
    "0", "-0", "1", "-1", "0.5", "1/3", "2/0", "0/0", "1e-300", "1e300", "1e-5000", "1e5000",
    "1e100000", "1e-100000", "1e100001", "1e9999999", "1e-9999999", "1e99999999999",
    "-1e-300", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "+inf", "", " ", "1e", "e5",
    "0x10", "1_000", "1.2.3", "--1", "1//2", "½", "١", "4294967296", "18446744073709551617",
    "99999999999999999999999999999", "1e12", "1e18", "1e30", "65536", "65537", "16777216",
    "4294967295", "0.999999999999999999999999", "1.0000000000000000000001",
    "5e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "-5", "+1", "1e+5",
    "123456789/987654321", "1e-17", "1e-400", "0.0000000000000000001", "1/1e1000",
]


def giant_digits(rng):
    n = rng.choice([1000, 10000, 100000, 120000])
    kind = rng.randrange(4)
    if kind == 0:
        return "1" + "0" * n
    if kind == 1:
        return "0." + "0" * n + "1"
    if kind == 2:
        return "".join(rng.choice(string.digits) for _ in range(n))
    return "1" + "0" * (n // 2) + "/" + "3" * (n // 2)


def junk(rng, n=None):
    n = n or rng.choice([1, 5, 40, 300])
    # argv cannot hold NUL bytes; everything else goes
    return "".join(chr(rng.choice([rng.randrange(1, 128), rng.randrange(128, 0x3000)])) for _ in range(n))


def hostile_value(rng):
    r = rng.random()
    if r < 0.70:
        return rng.choice(HOSTILE_NUMBERS)
    if r < 0.80:
        return giant_digits(rng)
    if r < 0.90:
        return junk(rng)
    # a random decimal with a random exponent
    return f"{rng.randrange(1, 1000)}e{rng.choice(['', '-'])}{rng.randrange(0, 10 ** rng.randrange(1, 9))}"


# valid templates: (argv words, {flag: valid choices})
TEMPLATES = [
    (["gaussian", "delta"], {"--sigma": ["1", "0.5", "3", "100"], "--epsilon": ["0", "0.5", "2", "50"],
                             "--compositions": ["1", "10", "1000"], "--sensitivity": ["1", "0.1", "2"]}),
    (["gaussian", "epsilon"], {"--sigma": ["1", "0.5", "3"], "--delta": ["1e-5", "0.5", "1e-100"],
                               "--compositions": ["1", "100"], "--sensitivity": ["1", "2"]}),
    (["gaussian", "sigma"], {"--epsilon": ["1", "0.1", "5"], "--delta": ["1e-5", "1e-10"],
                             "--compositions": ["1", "100"], "--sensitivity": ["1"]}),
    (["zcdp", "delta"], {"--rho": ["0.5", "0.01", "3"], "--epsilon": ["0", "1", "10"]}),
    (["zcdp", "epsilon"], {"--rho": ["0.5", "0.01"], "--delta": ["1e-5", "1e-50"]}),
    (["compose", "pure"], {"--epsilon": ["0.1", "1"], "--count": ["10", "1000"], "--delta": ["1e-6"]}),
    (["compose", "approx"], {"--epsilon": ["0.1", "1"], "--delta-each": ["1e-8", "0"],
                             "--count": ["10", "100"], "--delta": ["1e-5"]}),
    (["rdp", "subsampled-gaussian"], {"--rate": ["0.01", "256/60000"], "--sigma": ["1.1", "2"],
                                      "--steps": ["100", "14063"], "--order": ["2", "32.5"]}),
    (["dpsgd"], {"--rate": ["0.01", "256/60000"], "--sigma": ["1.1", "2"], "--steps": ["100", "1000"],
                 "--delta": ["1e-5"], "--method": ["rdp", "pld", "best"], "--grid": ["1/1024"],
                 "--tail": ["1e-12"]}),
    (["subsample"], {"--epsilon": ["1", "0.1"], "--delta": ["0", "1e-6"], "--rate": ["0.01", "1/2"],
                     "--scheme": ["poisson", "without-replacement"],
                     "--relation": ["add-remove", "substitution"]}),
]
OPTIONAL = {"--compositions", "--sensitivity", "--method", "--grid", "--tail", "--relation"}
BOOL_FLAGS = ["--json"]


def gen_cli(rng):
    words, flags = rng.choice(TEMPLATES)
    argv = list(words)
    mutate = rng.random() < 0.85
    chosen = {}
    for f, vals in flags.items():
        if f in OPTIONAL and rng.random() < 0.5:
            continue
        chosen[f] = rng.choice(vals)
    if mutate:
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            r = rng.random()
            keys = list(chosen)
            if r < 0.65 and keys:
                chosen[rng.choice(keys)] = hostile_value(rng)
            elif r < 0.72 and keys:
                del chosen[rng.choice(keys)]
            elif r < 0.78:
                chosen[rng.choice(["--bogus", "--precision", "--json", "-x", "--"])] = hostile_value(rng)
            elif r < 0.9:
                chosen["--precision"] = rng.choice(["16", "53", "1024", "65536", "65537", "16777216",
                                                    "4294967295", "0", "-1", "x", "1e3", "100000"])
            else:
                # huge counts where the work could be linear in them
                for f in ("--compositions", "--count", "--steps"):
                    if f in flags:
                        chosen[f] = rng.choice(["1e6", "1e9", "1e12", "1e30", "1e100", "12345678901234567890"])
    for f, v in chosen.items():
        argv += [f, v] if v is not None else [f]
    if rng.random() < 0.5:
        argv.append("--json")
    if mutate and rng.random() < 0.05:
        argv.insert(rng.randrange(len(argv) + 1), junk(rng, 8))
    if mutate and rng.random() < 0.05:
        # repeated flag
        f = rng.choice(list(flags))
        argv += [f, rng.choice(flags[f])]
    return argv


def load_examples(root):
    ex = []
    d = os.path.join(root, "examples")
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if name.endswith(".toml"):
            with open(p, "rb") as fh:
                ex.append(tomllib.load(fh))
        elif name.endswith(".json"):
            with open(p) as fh:
                ex.append(json.load(fh))
    return ex


def toml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_scalar(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


def to_toml(doc):
    out = []
    for k, v in doc.items():
        if not isinstance(v, (dict, list)) or (isinstance(v, list) and not all(isinstance(x, dict) for x in v)):
            out.append(f"{json.dumps(k)} = {toml_scalar(v)}")
    for k, v in doc.items():
        if isinstance(v, dict):
            out.append(f"[{json.dumps(k)}]")
            for kk, vv in v.items():
                out.append(f"{json.dumps(kk)} = {toml_scalar(vv)}")
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for m in v:
                out.append(f"[[{json.dumps(k)}]]")
                for kk, vv in m.items():
                    out.append(f"{json.dumps(kk)} = {toml_scalar(vv)}")
    return "\n".join(out) + "\n"


def hostile_node(rng):
    r = rng.random()
    if r < 0.55:
        return hostile_value(rng)
    if r < 0.65:
        return rng.choice([0, -1, 1e308, 10 ** 30, 3.5, True, False])
    if r < 0.72:
        return [hostile_value(rng)]
    if r < 0.78:
        return {"x": 1}
    if r < 0.86:
        return "x" * rng.choice([70000, 200000])
    return rng.choice(["gaussian", "laplace", "pure", "approx", "zcdp", "randomized-response",
                       "subsampled-gaussian", "shuffled", "poisson", "bogus"])


FIELDS = ["sigma", "sensitivity", "scale", "epsilon", "delta", "rho", "rate", "steps", "repeat",
          "name", "type", "sampling", "accounting", "bogus"]


def mutate_deployment(rng, doc):
    doc = json.loads(json.dumps(doc))
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        r = rng.random()
        mechs = doc.get("mechanism") if isinstance(doc.get("mechanism"), list) else []
        if r < 0.45 and mechs:
            i = rng.randrange(len(mechs))
            if isinstance(mechs[i], dict):
                # a copy: the list may hold one dict many times
                m = mechs[i] = dict(mechs[i])
                m[rng.choice(FIELDS + list(m))] = hostile_node(rng)
        elif r < 0.55 and mechs:
            i = rng.randrange(len(mechs))
            if isinstance(mechs[i], dict) and mechs[i]:
                m = mechs[i] = dict(mechs[i])
                del m[rng.choice(list(m))]
        elif r < 0.65:
            sec = rng.choice(["budget", "claim"])
            if isinstance(doc.get(sec), dict):
                doc[sec][rng.choice(["epsilon", "delta", "bogus"])] = hostile_node(rng)
            else:
                doc[sec] = hostile_node(rng)
        elif r < 0.72 and mechs:
            # many mechanisms / huge repeats: work linear in counts
            m = rng.choice(mechs)
            mechs.extend([m] * rng.choice([10, 100, 1000, 5000]))
        elif r < 0.8 and mechs:
            i = rng.randrange(len(mechs))
            if isinstance(mechs[i], dict):
                m = mechs[i] = dict(mechs[i])
                m[rng.choice(["repeat", "steps"])] = rng.choice(
                    [10 ** 6, 10 ** 9, 10 ** 12, "1e30", "1e100", "1e100000", 2 ** 64 + 1])
        elif r < 0.85:
            doc[rng.choice(["budget", "claim", "mechanism", "bogus"])] = hostile_node(rng)
        elif r < 0.9:
            doc.pop(rng.choice(["budget", "claim", "mechanism"]), None)
        else:
            # a fresh mechanism of a random type with random fields
            m = {"type": rng.choice(["gaussian", "laplace", "pure", "approx", "zcdp",
                                     "randomized-response", "subsampled-gaussian"])}
            for f in rng.sample(FIELDS, 4):
                m[f] = rng.choice(["1", "0.5", "1e-6", "100", hostile_value(rng)])
            if isinstance(doc.get("mechanism"), list):
                doc["mechanism"].append(m)
    return doc


def deep_nesting(rng, json_mode):
    n = rng.choice([100, 1000, 100000])
    if json_mode:
        return '{"budget": {"delta": "1e-5"}, "mechanism": ' + "[" * n + "]" * n + "}"
    return '[budget]\ndelta = "1e-5"\nmechanism = ' + "[" * n + "]" * n + "\n"


def gen_deployment(rng, examples, json_mode):
    r = rng.random()
    if r < 0.05:
        return deep_nesting(rng, json_mode)
    if r < 0.10:
        return "".join(chr(rng.randrange(1, 256)) for _ in range(rng.choice([10, 1000])))
    doc = rng.choice(examples)
    if r > 0.12:
        doc = mutate_deployment(rng, doc)
    text = json.dumps(doc) if json_mode else to_toml(doc)
    if rng.random() < 0.05:
        text = text[: rng.randrange(len(text) + 1)]
    return text


CHECK_QUERIES = [
    (["gaussian", "delta", "--sigma", "1", "--epsilon", "0.5"], "0.238421708134876628"),
    (["gaussian", "epsilon", "--sigma", "2", "--delta", "1e-5"], "1.7"),
    (["gaussian", "sigma", "--epsilon", "1", "--delta", "1e-5"], "4.2"),
    (["zcdp", "delta", "--rho", "0.5", "--epsilon", "2"], "0.2"),
    (["zcdp", "epsilon", "--rho", "0.5", "--delta", "1e-5"], "4"),
    (["compose", "pure", "--epsilon", "1", "--count", "10", "--delta", "1e-6"], "6"),
    (["compose", "approx", "--epsilon", "0.1", "--delta-each", "1e-8", "--count", "100", "--delta", "1e-5"], "3"),
    (["rdp", "subsampled-gaussian", "--rate", "0.01", "--sigma", "2", "--steps", "100", "--order", "8"], "0.05"),
    (["dpsgd", "--rate", "0.01", "--sigma", "2", "--steps", "100", "--delta", "1e-5"], "0.5"),
    (["dpsgd", "--rate", "0.01", "--sigma", "2", "--steps", "100", "--delta", "1e-5", "--method", "rdp"], "0.5"),
]


def gen_check(rng):
    r = rng.random()
    if r < 0.04:
        return "".join(chr(rng.randrange(1, 256)) for _ in range(rng.choice([10, 1000])))
    if r < 0.08:
        n = rng.choice([100, 1000, 100000])
        return "[" * n + "]" * n
    if r < 0.10:
        return rng.choice(['{"query": []}', '"x"', "1", "null", "[", "[1, 2]"])
    recs = []
    for _ in range(rng.choice([1, 2, 5, 20])):
        q, v = rng.choice(CHECK_QUERIES)
        q = list(q)
        value = v
        rr = rng.random()
        if rr < 0.35:
            value = rng.choice(["-0.0048", "-1e-38", "nan", "NaN", "inf", "-inf", "Infinity", "1.5",
                                "2", "0", "-0", "1e-300", "1e300", "1e100000", hostile_value(rng)])
        elif rr < 0.45:
            value = rng.choice([-0.0048, 0, 1, 1e308, 2.5, 10 ** 30, True, None, [], {}])
        elif rr < 0.6:
            i = rng.randrange(2, len(q))
            q[i] = hostile_value(rng)
        elif rr < 0.65:
            q = rng.choice([[], ["gaussian"], ["audit", "x.toml"], ["vectors"], ["check", "f"],
                            ["plot", "a", "-o", "/dev/null"], [junk(rng, 5)]])
        elif rr < 0.7:
            q = rng.choice([None, "gaussian delta", 1, [1, 2], {"a": 1}])
        rec = {"query": q, "value": value}
        if rng.random() < 0.05:
            rec = rng.choice([{}, {"query": q}, {"value": value}, [q, value], "x", 1])
        recs.append(rec)
    text = json.dumps(recs)
    if rng.random() < 0.03:
        text = text[: rng.randrange(len(text) + 1)]
    return text


NUMBER_RE = re.compile(r"(?<![A-Za-z_])(nan|inf|infinity)(?![A-Za-z_])", re.I)


def scan_output(stdout, findings, label, cls=None):
    if cls == "check":
        # records echo the claimed value (NaN, Infinity, …): look at dpcert's own numbers only
        try:
            recs = json.loads(stdout)["result"]["records"]
        except (ValueError, KeyError, TypeError):
            recs = []
        brackets = [r.get("bracket") or {} for r in recs if isinstance(r, dict)]
        stdout = " ".join(f"{b.get('lower')} {b.get('upper')}" for b in brackets)
    # the input echo holds the user's text (NaN, inf, …): look at dpcert's own output only
    try:
        env = json.loads(stdout)
        if isinstance(env, dict) and env.get("schema") == "dpcert/1":
            env["input"] = None
            if env.get("error"):
                env["error"]["message"] = ""
            stdout = json.dumps(env)
    except ValueError:
        pass
    if re.search(r"(?<![A-Za-z_])nan(?![A-Za-z_])", stdout, re.I):
        findings["nan_output"].append(label)
    if re.search(r"(?<![A-Za-z_\-])(inf|infinity)(?![A-Za-z_])", stdout, re.I):
        findings["inf_output"].append(label)
    # negative lower bounds of a δ, in any JSON object printed
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        for path, lo in walk_lowers(obj, ()):
            if "delta" in " ".join(path) and isinstance(lo, str) and lo.startswith("-"):
                findings["negative_delta_lower"].append(f"{label} {'/'.join(path)}={lo}")


def walk_lowers(obj, path):
    if isinstance(obj, dict):
        ctx = path
        if obj.get("quantity") == "delta":
            ctx = path + ("delta",)
        for k, v in obj.items():
            if k == "lower":
                yield ctx, v
            else:
                yield from walk_lowers(v, ctx + (str(k),))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk_lowers(v, path + (str(i),))


def run_one(binary, argv, timeout, mem_mb, cwd):
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()

    def limits():
        os.setsid()
        lim = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            limits()
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            os.chdir(cwd)
            os.execv(binary, [binary] + argv)
        finally:
            os._exit(127)
    timed_out = False
    delay = 0.001
    while True:
        wpid, status, ru = os.wait4(pid, os.WNOHANG)
        if wpid == pid:
            break
        if time.monotonic() - t0 > timeout:
            timed_out = True
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            wpid, status, ru = os.wait4(pid, 0)
            break
        time.sleep(delay)
        delay = min(delay * 1.5, 0.02)
    elapsed = time.monotonic() - t0
    out.seek(0)
    err.seek(0)
    so = out.read().decode("utf-8", "replace")
    se = err.read().decode("utf-8", "replace")
    out.close()
    err.close()
    code = os.waitstatus_to_exitcode(status)
    return code, so, se, elapsed, ru.ru_maxrss, timed_out


def is_error_envelope(text):
    """The one dpcert/1 error envelope `--json` prints on stdout for exits 2 and 3."""
    try:
        v = json.loads(text)
    except ValueError:
        return False
    return isinstance(v, dict) and v.get("result") is None and isinstance(v.get("error"), dict)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dpcert", required=True)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--mem-mb", type=int, default=4096, help="address-space limit (ulimit -v)")
    ap.add_argument("--budget", type=float, default=900.0, help="total wall seconds")
    ap.add_argument("--weights", default="cli=6,toml=2,json=1,check=2,plot=0.3,vectors=0.01")
    ap.add_argument("--max-inputs", type=int, default=1000000)
    ap.add_argument("--report", default=None, help="write the findings as JSON here")
    ap.add_argument("--keep", default=None, help="directory to copy failing inputs into")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    examples = load_examples(args.root)
    weights = {k: float(v) for k, v in (x.split("=") for x in args.weights.split(","))}
    classes = list(weights)
    work = tempfile.mkdtemp(prefix="dpcert-fuzz-")
    stats = {c: Counter() for c in classes}
    maxrss = Counter()
    maxrss_input = {}
    slow = []
    findings = defaultdict(list)
    t_start = time.monotonic()
    n = 0
    while time.monotonic() - t_start < args.budget and n < args.max_inputs:
        cls = rng.choices(classes, [weights[c] for c in classes])[0]
        n += 1
        svg = None
        if cls == "cli":
            argv = gen_cli(rng)
            label = "cli " + " ".join(a if len(a) < 60 else a[:20] + f"…({len(a)} chars)" for a in argv)
        elif cls in ("toml", "json", "plot"):
            json_mode = cls == "json" or (cls == "plot" and rng.random() < 0.3)
            ext = "json" if json_mode else "toml"
            path = os.path.join(work, f"d{n}.{ext}")
            with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
                fh.write(gen_deployment(rng, examples, json_mode))
            if cls == "plot":
                svg = os.path.join(work, f"p{n}.svg")
                argv = ["plot", path, "-o", svg]
            else:
                argv = ["audit", path] + (["--json"] if rng.random() < 0.5 else [])
            label = f"{cls} {path}"
        elif cls == "check":
            path = os.path.join(work, f"c{n}.json")
            with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
                fh.write(gen_check(rng))
            argv = ["check", path] + (["--json"] if rng.random() < 0.8 else [])
            label = f"check {path}"
        else:
            argv = ["vectors"] + (["--json"] if rng.random() < 0.5 else [])
            label = "vectors"
        keep_big = False
        code, so, se, el, rss, to = run_one(args.dpcert, argv, args.timeout, args.mem_mb, args.root)
        st = stats[cls]
        st["tried"] += 1
        st[f"exit {code}"] += 1
        if rss > maxrss[cls]:
            maxrss[cls] = rss
            maxrss_input[cls] = label
            if args.keep and rss > 1024 * 1024:  # over 1 GiB: keep the input
                keep_big = True
        slow.append((el, label))
        slow.sort(reverse=True)
        del slow[10:]
        keep = keep_big
        if to:
            st["hangs"] += 1
            findings["hangs"].append(f"{label} ({el:.1f} s)")
            keep = True
        elif code == 101 or "panicked" in se or "internal error" in se:
            st["panics"] += 1
            findings["panics"].append(f"{label}: {se.strip()[:300]}")
            keep = True
        elif code < 0:
            st["crashes"] += 1
            findings["crashes"].append(f"{label}: signal {-code}: {se.strip()[:200]}")
            keep = True
        # exits 0 (answered), 1 (refuted / unsound) and 4 (undecided) print their report; 2 and
        # 3 print nothing, or with --json only the dpcert/1 error envelope (result null)
        if code not in (0, 1, 4) and not to and so.strip() and cls != "check" and not is_error_envelope(so):
            findings["number_with_error"].append(f"{label}: exit {code}: {so.strip()[:120]}")
        if el > 5 and not to:
            st["over 5 s"] += 1
        before = sum(len(v) for v in findings.values())
        scan_output(so, findings, label, cls)
        keep = keep or sum(len(v) for v in findings.values()) > before
        if svg and os.path.exists(svg):
            with open(svg, errors="replace") as fh:
                if "NaN" in fh.read():
                    findings["nan_svg"].append(label)
                    keep = True
            os.unlink(svg)
        if keep and args.keep:
            os.makedirs(args.keep, exist_ok=True)
            with open(os.path.join(args.keep, f"{n}.argv.json"), "w") as fh:
                json.dump(argv, fh)
            for a in argv:
                if a.startswith(work) and os.path.exists(a):
                    with open(a, "rb") as src, open(os.path.join(args.keep, os.path.basename(a)), "wb") as dst:
                        dst.write(src.read())
        for a in argv:
            if a.startswith(work) and os.path.exists(a):
                os.unlink(a)
        if n % 200 == 0:
            print(f"[{time.monotonic() - t_start:6.0f} s] {n} inputs, "
                  f"{sum(s['panics'] for s in stats.values())} panics, "
                  f"{sum(s['hangs'] for s in stats.values())} hangs", file=sys.stderr, flush=True)

    total = Counter()
    for s in stats.values():
        total.update(s)
    report = {
        "seed": args.seed,
        "timeout_s": args.timeout,
        "mem_limit_mb": args.mem_mb,
        "wall_s": round(time.monotonic() - t_start, 1),
        "inputs": n,
        "per_class": {c: dict(stats[c], max_rss_mib=round(maxrss[c] / 1024, 1),
                              max_rss_input=maxrss_input.get(c, "")[:200]) for c in classes},
        "total": dict(total),
        "max_rss_mib": round(max(maxrss.values(), default=0) / 1024, 1),
        "slowest": [(round(t, 2), l[:200]) for t, l in slow],
        "findings": {k: {"count": len(v), "examples": v[:8]} for k, v in findings.items()},
    }
    text = json.dumps(report, indent=1, ensure_ascii=False)
    print(text)
    if args.report:
        with open(args.report, "w") as fh:
            fh.write(text)
    bad = total["panics"] + total["crashes"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
