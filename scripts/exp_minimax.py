#!/usr/bin/env python3
"""The coefficients of engine/src/kernels/simd/fast_exp.h's ExpNonPositive and Exp2NonPositive, derived here.

base^r ≈ 1 + r·p(r), p of degree 4, minimising the largest relative error |1 + r·p(r) − base^r| / base^r
over the reduced argument's range: r ∈ [−ln2/2, ln2/2] for e (ExpNonPositive), r ∈ [−1/2, 1/2] for 2
(Exp2NonPositive). Lawson's algorithm (iteratively reweighted least squares, which converges to the
minimax fit on a grid) on 1500 points, in 40-digit arithmetic (mpmath, which Debian's python3-sympy /
python3-torch bring). Prints the relative error of the fit and the coefficients rounded to float, as
fast_exp.h holds them.   python3 scripts/exp_minimax.py [e|2]   (e by default)
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 40
BASE = sys.argv[1] if len(sys.argv) > 1 else 'e'
if BASE not in ('e', '2'):
    sys.exit('usage: exp_minimax.py [e|2]')
LOG_BASE = mp.mpf(1) if BASE == 'e' else mp.log(2)  # base^r = e^(r·ln base)
HALF_RANGE = mp.log(2) / 2 if BASE == 'e' else mp.mpf(1) / 2
LO, HI = -HALF_RANGE, HALF_RANGE
POINTS, DEGREE, ROUNDS = 1500, 4, 60
xs = [LO + (HI - LO) * mp.mpf(i) / (POINTS - 1) for i in range(POINTS)]
xs = [x for x in xs if abs(x) > mp.mpf('1e-12')]


def power(x):
    return mp.e ** (x * LOG_BASE)


def fit(weights):
    rows, rhs = [], []
    for x, w in zip(xs, weights):
        e, s = power(x), mp.sqrt(w)
        rows.append([s * x ** (j + 1) / e for j in range(DEGREE + 1)])
        rhs.append(s * (e - 1) / e)
    a, y = mp.matrix(rows), mp.matrix(rhs)
    return mp.lu_solve(a.T * a, a.T * y)


weights = [mp.mpf(1)] * len(xs)
for _ in range(ROUNDS):
    c = fit(weights)
    errors = [(1 + x * sum(c[j] * x ** j for j in range(DEGREE + 1)) - power(x)) / power(x) for x in xs]
    worst = max(abs(e) for e in errors)
    weights = [w * abs(e) for w, e in zip(weights, errors)]
    total = sum(weights)
    weights = [w / total for w in weights]

print(f'base {BASE}: largest relative error of the fit: {mp.nstr(worst, 4)} ({mp.nstr(worst * 2 ** 24, 3)} × 2^-24)')
for j in range(DEGREE + 1):
    f = struct.unpack('f', struct.pack('f', float(c[j])))[0]
    print(f'c{j + 1} = {f.hex()}  ({f!r})')
