#!/usr/bin/env python3
# math-coeffs.py: fits the polynomial of erf's GPU sequence (src/mathfn.c, erfc_log2_poly and erfc_1)
# with mpmath and prints them as C. Not run by the build; run it again to check or change the fit.
#
# For |x| >= 1 the GPU computes erf(x) = 1 - erfc_1 * 2^P(t), t = |x| - 1 in [0, 2.92] (beyond 3.92,
# erf rounds to 1), erfc_1 = erfc(1) rounded to f32, so P(t) approximates log2(erfc(1 + t) / erfc_1).
# An error d in P moves the result by erfc(1 + t) * ln2 * d, measured in ulps of the result (2^-24 for
# results in [0.5, 1)): that is the weight of the fit, which is a weighted minimax fit by Lawson's
# iteration (weighted least squares whose weights grow where the error is largest) on Chebyshev
# nodes. The coefficients are rounded to f32 one at a time, highest degree first, and the lower ones
# fitted again after each rounding. The printed figure is the rounded polynomial's largest weighted
# error (ulps of the result) on 2001 points of [0, 2.92], evaluated exactly.
#
# Usage: python3 tools/math-coeffs.py [DEGREE]      (default 7, the degree src/mathfn.c uses)
import struct
import sys

import mpmath as mp

mp.mp.dps = 30
TOP = mp.mpf('3.92') - 1  # t's range is [0, TOP]
NODES = 150
ITERATIONS = 30


def f32(v):
    return struct.unpack('f', struct.pack('f', float(v)))[0]


ERFC_1 = f32(mp.erfc(1))


def target(t):
    return mp.log(mp.erfc(1 + t) / ERFC_1, 2)


def weight(t):
    return mp.erfc(1 + t) * mp.log(2) * 2**24


def fit(degree, fixed):
    """P of the given degree whose highest coefficients are fixed; returns all, highest first, and the error."""
    xs = [TOP * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / NODES)) / 2 for i in range(NODES)]
    free = degree + 1 - len(fixed)
    rows = []
    for x in xs:
        rest = target(x) - sum(c * x ** (degree - i) for i, c in enumerate(fixed))
        rows.append(([x**k for k in range(free)], rest, weight(x)))
    lam = [mp.mpf(1) / NODES] * NODES
    for _ in range(ITERATIONS):
        m = mp.matrix(free, free)
        v = mp.matrix(free, 1)
        for (basis, rest, w), l in zip(rows, lam):
            wl = w * w * l
            for p in range(free):
                v[p] += wl * basis[p] * rest
                for q in range(free):
                    m[p, q] += wl * basis[p] * basis[q]
        c = mp.lu_solve(m, v)
        errs = [abs(w * (sum(c[k] * basis[k] for k in range(free)) - rest)) for basis, rest, w in rows]
        total = sum(l * e for l, e in zip(lam, errs))
        lam = [l * e / total for l, e in zip(lam, errs)]
    return list(fixed) + [c[k] for k in reversed(range(free))], max(errs)


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    fixed = []
    for i in range(degree + 1):
        coeffs, err = fit(degree, fixed)
        fixed.append(mp.mpf(f32(coeffs[i])))
    ts = [TOP * i / 2000 for i in range(2001)]
    err = max(abs(weight(t) * (mp.polyval(fixed, t) - target(t))) for t in ts)
    print('/* largest weighted error: %s ulps */' % mp.nstr(err, 3))
    print('static const float erfc_1 = %rf;' % ERFC_1)
    print('static const float erfc_log2_poly[] = {%s};' % ', '.join('%rf' % f32(c) for c in fixed))


main()
