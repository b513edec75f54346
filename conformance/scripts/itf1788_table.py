#!/usr/bin/env python3
"""Extract the ITF1788 test vectors that dpcert's f64 interval type can answer into the table
`tests/data/itf1788.tsv` (run by hand; the table is committed).

Usage: itf1788_table.py ITL_DIR > tests/data/itf1788.tsv

ITL_DIR holds the `.itl` files of ITF1788 (https://github.com/oheim/ITF1788, Apache-2.0). Only
bare (undecorated) interval vectors of the operations listed in OPS are kept. Every number is
turned into the f64 nearest it (as the C++ and Octave code generated from ITF1788 reads its
literals: the expected results are the tightest intervals for those f64 inputs) and printed as
the shortest decimal that reads back to that f64, so the Rust side needs no hex-float parser.
"""
import math
import re
import sys
from fractions import Fraction
from pathlib import Path

# ITL name -> (our name, argument kinds, result kind); "i" interval, "n" integer, "x" number,
# "b" boolean
OPS = {
    "neg": ("neg", "i", "i"),
    "add": ("add", "ii", "i"),
    "sub": ("sub", "ii", "i"),
    "mul": ("mul", "ii", "i"),
    "div": ("div", "ii", "i"),
    "recip": ("recip", "i", "i"),
    "sqr": ("sqr", "i", "i"),
    "pown": ("pown", "in", "i"),
    "sqrt": ("sqrt", "i", "i"),
    "exp": ("exp", "i", "i"),
    "expm1": ("expm1", "i", "i"),
    "log": ("ln", "i", "i"),
    "pow": ("pow", "ii", "i"),
    "min": ("min", "ii", "i"),
    "max": ("max", "ii", "i"),
    "intersection": ("intersection", "ii", "i"),
    "convexHull": ("convex_hull", "ii", "i"),
    "mag": ("mag", "i", "x"),
    "inf": ("inf", "i", "x"),
    "sup": ("sup", "i", "x"),
    "isEmpty": ("is_empty", "i", "b"),
}

HEX = re.compile(r"([+-]?)0x([0-9a-f]*)(?:\.([0-9a-f]*))?p([+-]?\d+)$", re.I)


def exact(tok):
    """The exact value of an ITL number (decimal or hexadecimal), or ±inf as a float."""
    t = tok.strip().lower()
    if t in ("infinity", "+infinity", "inf", "+inf"):
        return math.inf
    if t in ("-infinity", "-inf"):
        return -math.inf
    m = HEX.match(t)
    if m:
        sign, whole, frac, e = m.groups()
        frac = frac or ""
        v = Fraction(int((whole or "0") + frac, 16), 16 ** len(frac)) * Fraction(2) ** int(e)
        return -v if sign == "-" else v
    return Fraction(t)


def to_f64(v):
    """v rounded to the nearest f64, as the test generators' host languages read a number
    literal (C++'s and Octave's `-7451.145` is the double nearest it, not an interval)."""
    if isinstance(v, float):
        return v
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def zero_sign(tok, f):
    return -0.0 if f == 0 and tok.strip().startswith("-") else f


def interval(lit):
    """An ITL bare interval literal -> 'lo hi' or 'empty'."""
    body = lit.strip()[1:-1].strip().lower()
    if body == "empty":
        return "empty"
    if body == "entire":
        return "-inf inf"
    parts = [p.strip() for p in body.split(",")]
    if len(parts) == 1:
        parts = parts * 2
    lo = zero_sign(parts[0], to_f64(exact(parts[0])))
    hi = zero_sign(parts[1], to_f64(exact(parts[1])))
    return f"{lo!r} {hi!r}"


TOKEN = re.compile(r"\[[^\]]*\]|[^\s\[\]]+")


def vector(line):
    """One ITL line -> (our op, args, result) or None when it is not one we keep."""
    m = re.match(r"\s*([A-Za-z0-9]+)\s+(.*?)=(.*?)(?:signal.*)?;\s*$", line)
    if not m or m.group(1) not in OPS or re.search(r"\]_[a-z]|nai", line, re.I):
        return None
    name, kinds, result_kind = OPS[m.group(1)]
    toks = TOKEN.findall(m.group(2))
    if len(toks) != len(kinds):
        return None
    args = [interval(t) if k == "i" else str(int(t)) for t, k in zip(toks, kinds)]
    res = m.group(3).strip()
    if result_kind == "i":
        res = interval(res)
    elif result_kind == "x":
        if res.lower() == "nan":
            res = "nan"
        else:
            v = exact(res)
            res = repr(zero_sign(res, to_f64(v)))
    return name, args, res


def main(itl_dir):
    print("# ITF1788 test vectors (https://github.com/oheim/ITF1788, commit b6ee1e2) that dpcert's")
    print("# f64 interval type answers, extracted by scripts/itf1788_table.py. ITF1788: Copyright")
    print("# 2014-2017 Marco Nehmeier, Maximilian Kiesner, Oliver Heimlich and the authors of the")
    print("# suites it converts (libieeep1788, FI_LIB, MPFI, C-XSC); Apache License 2.0.")
    print("# op <TAB> arguments (';'-separated) <TAB> expected result <TAB> file:line")
    print("# an interval is 'lo hi' (exact f64 endpoints) or 'empty'")
    for path in sorted(Path(itl_dir).glob("*.itl")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            v = vector(line)
            if v:
                name, args, res = v
                print(f"{name}\t{';'.join(args)}\t{res}\t{path.name}:{n}")


if __name__ == "__main__":
    main(sys.argv[1])
