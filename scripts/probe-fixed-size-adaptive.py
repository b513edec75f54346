#!/usr/bin/env python3
"""Float probe (NOT a certificate, NOT used by dpcert): DP-SGD with fixed-size batches under
substitution, MNIST-sized (B/N = 256/60000, sigma = 1.1). The worst case over an ADAPTIVE
per-step choice between the two realised one-step pairs R = (gN(2,s^2)+(1-g)N(0,s^2) || N(0,s^2))
and its reverse (the adversary may pick, before each step, which of x, x' carries the +e
gradient, as a function of the iterates so far), by the Bellman recursion on the privacy-loss
line W_t(y) = max_k E[W_{t+1}(y + Z_k)], W_T(y) = (1 - e^{-y})_+, delta(eps) = W_0(-eps)
(translation invariance: one backward pass gives every eps). Losses on a grid h with a
mean-preserving split. Prints eps(1e-5) of the pure remove run, the pure add run and the
adaptive worst case. See proofs-notes/dpsgd_fixed_size_pld_epsilon.md (Tightness).
Usage: probe-fixed-size-adaptive.py [T=14063] [h=0.01]; needs numpy, scipy; ~2 min at T=14063."""
import numpy as np, sys
from scipy.stats import norm
g = 256/60000; sig = 1.1; T = int(sys.argv[1]) if len(sys.argv) > 1 else 14063
h = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
s = sig/2
x = np.linspace(-14*s, 1+14*s, 4_000_001); dx = x[1]-x[0]
L = np.log1p(g*np.expm1((2*x-1)/(2*s*s)))          # loss of R at x
pP = ((1-g)*norm.pdf(x, 0, s) + g*norm.pdf(x, 1, s))*dx  # R's P
pQ = norm.pdf(x, 0, s)*dx                              # R's Q = R_rev's P
def pmf(loss, w):
    # mean-preserving split of each mass between its two neighbouring grid points
    u = loss/h; j = np.floor(u).astype(np.int64); f = u - j; lo = j.min()
    p = np.bincount(j-lo, weights=w*(1-f), minlength=j.max()-lo+2)
    p += np.bincount(j+1-lo, weights=w*f, minlength=j.max()-lo+2)
    return lo, p/p.sum()
loR, pR = pmf(L, pP); loV, pV = pmf(-L, pQ)
ylo, yhi = -90.0, 70.0
n = int(round((yhi-ylo)/h))+1; y = ylo + h*np.arange(n)
W = np.maximum(1-np.exp(-y), 0)
def step(W, lo, p):
    # Wn[i] = sum_j p[j] W[i + lo + j]; pad W outside the domain (0 left, 1 right)
    m = len(p); pad_l = max(0, -lo); pad_r = max(0, lo+m)
    Wp = np.concatenate([np.zeros(pad_l), W, np.ones(pad_r)])
    N = 1 << int(np.ceil(np.log2(len(Wp)+m)))
    c = np.fft.irfft(np.fft.rfft(Wp, N)*np.conj(np.fft.rfft(p, N)), N)  # correlation
    start = pad_l + lo
    return c[start:start+len(W)]
Wr = W.copy(); Wa = W.copy(); Wv = W.copy()
for t in range(T):
    a = step(Wa, loR, pR); b = step(Wa, loV, pV)
    Wa = np.maximum(a, b)
    Wr = step(Wr, loR, pR); Wv = step(Wv, loV, pV)
def eps_at(Wx, d=1e-5):
    # delta(eps) = W(-eps), decreasing in eps: smallest eps with W(-eps) <= d
    e = -y[::-1]; dl = Wx[::-1]
    i = np.argmax(dl <= d); return e[i]
print("T", T, "h", h, "eps(1e-5): remove", eps_at(Wr), "add", eps_at(Wv), "adaptive", eps_at(Wa))
