#!/usr/bin/env python3
"""Float probe (NOT a certificate, NOT used by dpcert): DP-SGD with fixed-size batches under
substitution. Coupling the batch with i (swapped in for a uniform j) with the batch without it
writes one step's output pair as a mixture, with common weights, of conditional pairs
(P_u, P_v), P_w = (1-g)N(0, s^2 I) + g N(w, s^2 I), u = a - c, v = b - c for clipped gradients
a = g(x), b = g(x'), c = g_j of norm <= 1. Question: is every such pair dominated, for every
alpha >= 1 in both directions, by ONE revealed mixture lam*R + (1-lam)*R^-1 of the remove pair
R = (P_2e, P_0) and its reverse (some lam in [0, 1] per pair)? If so, an adaptive (Bellman)
recursion over {R, R^-1} alone (scripts/probe-fixed-size-adaptive.py) would bound the run, since
the value functions are convex f-divergences. Prints, per configuration that breaks it, by how
much the lam-interval is empty. Answer at MNIST's g = 256/60000, s = 1.1 (2026-12-07): NO, e.g.
a = (0, 1), b = (0, -1), c = (-1, 0) (|u| = |v| = sqrt 2 at 90 degrees) by 0.40, so the recursion
over {R, R^-1} is not justified by this route (proofs-notes/dpsgd_fixed_size_pld_epsilon.md,
Tightness). Plane quadrature on a grid; usage: [g] [s] [grid points per axis, 401]; ~5 min."""
import numpy as np, sys
g = float(sys.argv[1]) if len(sys.argv) > 1 else 256/60000
s = float(sys.argv[2]) if len(sys.argv) > 2 else 1.1
N = int(sys.argv[3]) if len(sys.argv) > 3 else 401
x = np.linspace(-9*s - 2, 9*s + 4, N); y = np.linspace(-9*s - 2, 9*s + 2, N)
X, Y = np.meshgrid(x, y, indexing='ij'); dA = (x[1]-x[0])*(y[1]-y[0])
def phi(w):
    return np.exp(-((X-w[0])**2 + (Y-w[1])**2)/(2*s*s))/(2*np.pi*s*s)
base = (1-g)*phi((0.0, 0.0))
alphas = np.concatenate([1 + np.logspace(-4, 0, 25), np.logspace(0.31, 3, 30)])
def curve(p, q):
    return np.array([np.maximum(p - a*q, 0).sum()*dA for a in alphas])
PR, QR = base + g*phi((2.0, 0.0)), base + g*phi((0.0, 0.0))
Rf, Rr = curve(PR, QR), curve(QR, PR)  # H_alpha of R and of R^-1, alpha >= 1
pts = [np.zeros(2)] + [np.array([r*np.cos(t), r*np.sin(t)])
                       for r in (0.5, 1.0) for t in np.linspace(0, 2*np.pi, 9)[:-1]]
seen, worst = set(), 0.0
for c0 in (0.0, 0.5, 1.0):
    c = np.array([-c0, 0.0])
    for a in pts:
        for b in pts:
            u, v = a - c, b - c
            key = (round(float(np.linalg.norm(u)), 6), round(float(np.linalg.norm(v)), 6),
                   round(float(np.dot(u, v)), 6))
            if key in seen:
                continue
            seen.add(key)
            P, Q = base + g*phi(u), base + g*phi(v)
            f, r = curve(P, Q), curve(Q, P)
            # need f <= Rr + lam (Rf - Rr) and r <= Rf - lam (Rf - Rr) at every alpha
            lo, hi = 0.0, 1.0
            for fa, ra, A, B in zip(f, r, Rf, Rr):
                tol, d = 1e-9*max(A, B, 1e-300), A - B
                if d > 0:
                    lo, hi = max(lo, (fa - B - tol)/d), min(hi, (A - ra + tol)/d)
                elif d < 0:
                    lo, hi = max(lo, (A - ra + tol)/d), min(hi, (fa - B - tol)/d)
                elif fa > A + tol or ra > A + tol:
                    lo, hi = 1.0, 0.0
            if lo - hi > worst:
                worst = lo - hi
                print(f"no lambda (by {worst:.3f}): a={a.round(2)} b={b.round(2)} c={c.round(2)}",
                      flush=True)
print("largest gap of the lambda interval:", worst)
