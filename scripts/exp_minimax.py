#!/usr/bin/env python3
"""The coefficients of engine/src/kernels/simd/fast_exp.h's ExpNonPositive, derived here.

exp(r) ≈ 1 + r·p(r) on r ∈ [−ln2/2, ln2/2], p of degree 4, minimising the largest relative error
|1 + r·p(r) − e^r| / e^r: Lawson's algorithm (iteratively reweighted least squares, which converges
to the minimax fit on a grid) on 1500 points, in 40-digit arithmetic (mpmath, which Debian's
python3-sympy / python3-torch bring). Prints the relative error of the fit and the coefficients
rounded to float, as fast_exp.h holds them.   python3 scripts/exp_minimax.py
"""
import struct

import mpmath as mp

mp.mp.dps = 40
LO, HI = -mp.log(2) / 2, mp.log(2) / 2
POINTS, DEGREE, ROUNDS = 1500, 4, 60
xs = [LO + (HI - LO) * mp.mpf(i) / (POINTS - 1) for i in range(POINTS)]
xs = [x for x in xs if abs(x) > mp.mpf('1e-12')]


def fit(weights):
    rows, rhs = [], []
    for x, w in zip(xs, weights):
        e, s = mp.e ** x, mp.sqrt(w)
        rows.append([s * x ** (j + 1) / e for j in range(DEGREE + 1)])
        rhs.append(s * (e - 1) / e)
    a, y = mp.matrix(rows), mp.matrix(rhs)
    return mp.lu_solve(a.T * a, a.T * y)


weights = [mp.mpf(1)] * len(xs)
for _ in range(ROUNDS):
    c = fit(weights)
    errors = [(1 + x * sum(c[j] * x ** j for j in range(DEGREE + 1)) - mp.e ** x) / mp.e ** x for x in xs]
    worst = max(abs(e) for e in errors)
    weights = [w * abs(e) for w, e in zip(weights, errors)]
    total = sum(weights)
    weights = [w / total for w in weights]

print(f'largest relative error of the fit: {mp.nstr(worst, 4)} ({mp.nstr(worst * 2 ** 24, 3)} × 2^-24)')
for j in range(DEGREE + 1):
    f = struct.unpack('f', struct.pack('f', float(c[j])))[0]
    print(f'c{j + 1} = {f.hex()}  ({f!r})')
