#!/usr/bin/env python3
"""Float probe (NOT a certificate, NOT used by dpcert): one step of the Poisson-subsampled
Gaussian under substitution with clipped gradients u, v in the plane, H_a(mu_u || mu_v) with
mu_w = (1-q)N(0, s^2 I) + qN(w, s^2 I), against the pair u = +e, v = -e, by a midpoint rule on
[-8s, 8s]^2. Prints the largest ratio other/pair over a few (u, v); < 1 everywhere is what
"the +-e pair dominates substitution" (Schuchardt et al. 2024, Theorem 3.8, one insertion and one
deletion) predicts. Evidence only; see proofs-notes/dpsgd_substitution_pld_epsilon.md, step 2(b).
Pure Python, ~1 min."""
import math, itertools
def H(q, s, u, v, a, L=8.0, n=500):
    h = 2*L*s/n; tot = 0.0
    c = 1/(2*math.pi*s*s)
    for i in range(n):
        x = -L*s + (i+0.5)*h
        for j in range(n):
            y = -L*s + (j+0.5)*h
            r0 = x*x+y*y
            f0 = math.exp(-r0/(2*s*s))
            fu = math.exp(-((x-u[0])**2+(y-u[1])**2)/(2*s*s))
            fv = math.exp(-((x-v[0])**2+(y-v[1])**2)/(2*s*s))
            p = (1-q)*f0 + q*fu; qq = (1-q)*f0 + q*fv
            d = p - a*qq
            if d > 0: tot += d
    return tot*c*h*h
cfgs = {"(+e,-e)":((1,0),(-1,0)), "(+e,0)":((1,0),(0,0)), "(0,+e)":((0,0),(1,0)), "(+e,e2)":((1,0),(0,1)),
        "(+e,(-.6,.8))":((1,0),(-0.6,0.8)), "(+e,(-.8,.6))":((1,0),(-0.8,0.6)), "(.5e,-.5e)":((0.5,0),(-0.5,0))}
for q, s in [(0.1, 1.0), (0.5, 0.7)]:
    for eps in [-0.5, 0.0, 0.2, 0.8]:
        a = math.exp(eps)
        vals = {k: H(q, s, u, v, a) for k,(u,v) in cfgs.items()}
        ref = vals["(+e,-e)"]
        worst = max((v,k) for k,v in vals.items() if k != "(+e,-e)")
        print(f"q={q} s={s} eps={eps}: ref {ref:.6e}; max other {worst[0]:.6e} {worst[1]}; ratio {worst[0]/ref if ref>0 else float('nan'):.4f}", flush=True)
