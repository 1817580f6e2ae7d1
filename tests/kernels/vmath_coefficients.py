#!/usr/bin/env python3
"""Derives the float32 polynomial coefficients of include/staticpy/kernels/vmath.hpp.

Plain Python (no numpy): a Remez exchange on the weighted error w(x) * (Q(x) - q(x)), where q is
the part of each function the polynomial Q approximates and w scales Q's error to the error of
the final result relative to that result (so the fit spends its accuracy where float32 needs it).
tanh's rational function has its own exchange (rational_remez), with the coefficients rounded to
float32 one at a time and the others refitted around each, so that the rounding costs little.
Reference values come from Python's math module in double precision, far more accurate than the
float32 results they are fitted for. Each fit prints its coefficients (rounded to float32, highest
power last) and the weighted error it reaches, in units of 2^-24 (the float32 ulp of 1).

    python3 tests/kernels/vmath_coefficients.py
"""

import math
import struct

ULP1 = 2.0 ** -24


def f32(v):
    """v rounded to the nearest float32."""
    return struct.unpack("f", struct.pack("f", v))[0]


def solve(a, b):
    """Gaussian elimination with partial pivoting (the systems are small)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            k = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= k * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def horner(c, t):
    s = 0.0
    for v in reversed(c):
        s = s * t + v
    return s


def alternating_extrema(err, count):
    """The indices of one extremum of err per run of equal sign, trimmed to `count` alternating
    points (the exchange step of both Remez fits), or None when there are fewer."""
    ext = []
    for i, e in enumerate(err):
        if e == 0:
            continue
        if ext and (e > 0) == (err[ext[-1]] > 0):
            if abs(e) > abs(err[ext[-1]]):
                ext[-1] = i
        else:
            ext.append(i)
    while len(ext) > count:
        if abs(err[ext[0]]) < abs(err[ext[-1]]):
            ext.pop(0)
        else:
            ext.pop()
    return ext if len(ext) == count else None


def remez(q, w, lo, hi, degree, iterations=30, grid=20000):
    """Coefficients c[0..degree] minimising max |w(t) (sum c_j t^j - q(t))| on [lo, hi]."""
    n = degree + 2
    # Chebyshev nodes, interior, so that no start point sits where w vanishes
    ref = [lo + (hi - lo) * (1 - math.cos(math.pi * (i + 0.5) / n)) / 2 for i in range(n)]
    ts = [lo + (hi - lo) * i / grid for i in range(grid + 1)]
    for _ in range(iterations):
        # sum c_j t^j + (-1)^i E / w(t_i) = q(t_i) at the reference points
        rows = [[t ** j for j in range(degree + 1)] + [(-1) ** i / w(t)] for i, t in enumerate(ref)]
        sol = solve(rows, [q(t) for t in ref])
        c = sol[:-1]
        err = [w(t) * (horner(c, t) - q(t)) for t in ts]
        ext = alternating_extrema(err, n)
        if ext is None:
            break
        ref = [ts[i] for i in ext]
    c32 = [f32(v) for v in c]
    worst = max(abs(w(t) * (horner(c32, t) - q(t))) for t in ts)
    return c32, worst


def rational_remez(f, w, x_hi, m, n, fixed_p=None, fixed_q=None, iterations=40, grid=8000):
    """P(y) = 1 + p_1 y + ... + p_m y^m and Q(y) = 1 + q_1 y + ... + q_n y^n minimising
    max |w(y) (P(y) / (Q(y) f(y)) - 1)| over y = x^2, 0 < x <= x_hi; fixed_p and fixed_q map an
    index to a coefficient that stays as given. Returns the coefficient lists and that maximum.

    Each step solves P(y_i) - f(y_i) Q(y_i) = (-1)^i E f(y_i) Q_prev(y_i) / w(y_i) at the
    reference points, linear once the previous step's Q stands in on the right, then moves the
    references to the extrema of the error (as remez() does)."""
    fixed_p, fixed_q = dict(fixed_p or {}), dict(fixed_q or {})
    free_p = [j for j in range(1, m + 1) if j not in fixed_p]
    free_q = [j for j in range(1, n + 1) if j not in fixed_q]
    k = len(free_p) + len(free_q) + 1
    ref = [(x_hi * (i + 1) / (k + 0.3)) ** 2 for i in range(k)]
    ys = [(x_hi * i / grid) ** 2 for i in range(1, grid + 1)]
    fs = [f(y) for y in ys]
    ws = [w(y) for y in ys]
    p = [1.0] + [fixed_p.get(j, 0.0) for j in range(1, m + 1)]
    q = [1.0] + [fixed_q.get(j, 0.0) for j in range(1, n + 1)]
    err = []
    for _ in range(iterations):
        rows, rhs = [], []
        for i, y in enumerate(ref):
            fy = f(y)
            row = [y ** j for j in free_p] + [-fy * y ** j for j in free_q]
            row.append(-(-1) ** i * fy * horner(q, y) / w(y))
            known = 1 + sum(fixed_p[j] * y ** j for j in fixed_p)
            known -= fy * (1 + sum(fixed_q[j] * y ** j for j in fixed_q))
            rows.append(row)
            rhs.append(-known)
        # columns scaled to 1: y^j spans many decades at the top of the range
        scale = [max(abs(r[c]) for r in rows) or 1.0 for c in range(k)]
        sol = solve([[r[c] / scale[c] for c in range(k)] for r in rows], rhs)
        sol = [s / c for s, c in zip(sol, scale)]
        for a, j in enumerate(free_p):
            p[j] = sol[a]
        for a, j in enumerate(free_q):
            q[j] = sol[len(free_p) + a]
        err = [wy * (horner(p, y) / (horner(q, y) * fy) - 1) for y, fy, wy in zip(ys, fs, ws)]
        ext = alternating_extrema(err, k)
        if ext is None:
            break
        ref = [ys[i] for i in ext]
    return p, q, max(abs(e) for e in err)


def rational_float32(f, w, x_hi, m, n):
    """rational_remez's fit with every coefficient rounded to float32: p_1, q_1, p_2, q_2, ... are
    rounded in turn, the ones not yet rounded refitted after each (rounding them all at once
    costs several times the fit's own error)."""
    fixed_p, fixed_q = {}, {}
    p, q, _ = rational_remez(f, w, x_hi, m, n)
    order = [(c, j) for j in range(1, max(m, n) + 1) for c in "pq" if j <= (m if c == "p" else n)]
    for c, j in order:
        if c == "p":
            fixed_p[j] = f32(p[j])
        else:
            fixed_q[j] = f32(q[j])
        if len(fixed_p) + len(fixed_q) < m + n:
            p, q, _ = rational_remez(f, w, x_hi, m, n, fixed_p, fixed_q)
    p = [1.0] + [fixed_p[j] for j in range(1, m + 1)]
    q = [1.0] + [fixed_q[j] for j in range(1, n + 1)]
    ys = [(x_hi * i / 40000) ** 2 for i in range(1, 40001)]
    worst = max(abs(w(y) * (horner(p, y) / (horner(q, y) * f(y)) - 1)) for y in ys)
    return p, q, worst


def show(name, c, worst):
    print(f"{name}: max weighted error {worst / ULP1:.4f} x 2^-24")
    for j, v in enumerate(c):
        print(f"    c{j} = {v!r:}f  ({v.hex()})")


def main():
    ln2h = math.log(2) / 2

    # exp and expm1: e^r = 1 + r + r^2 Q(r), |r| <= ln2/2. Q's error reaches expm1(r) ~ r scaled
    # by r^2, and e^r ~ 1 by r^2 as well, so w = r^2 / max(|expm1 r|, 1)... r^2 / |expm1(r)|
    # (the stricter of the two, as expm1(r) < 1 here) serves both functions.
    def q_exp(r):
        if abs(r) < 1e-4:
            return 0.5 + r / 6 + r * r / 24 + r ** 3 / 120
        return (math.expm1(r) - r) / (r * r)
    c, e = remez(q_exp, lambda r: r * r / abs(math.expm1(r)) if r else 0.0, -ln2h, ln2h, 5)
    show("exp/expm1 Q(r), e^r = 1 + r + r^2 Q(r)", c, e)

    # log: log(1 + f) = f - f^2/2 + f^3 Q(f), f in [sqrt(1/2) - 1, sqrt(2) - 1].
    lo, hi = math.sqrt(0.5) - 1, math.sqrt(2) - 1
    def q_log(f):
        if abs(f) < 1e-3:
            return 1 / 3 - f / 4 + f * f / 5 - f ** 3 / 6 + f ** 4 / 7
        return (math.log1p(f) - f + f * f / 2) / f ** 3
    c, e = remez(q_log, lambda f: abs(f ** 3 / math.log1p(f)) if f else 0.0, lo, hi, 7)
    show("log Q(f), log(1+f) = f - f^2/2 + f^3 Q(f)", c, e)

    # tanh(x) = 2t / (1 + t^2), t = tanh(x/2) ~ (x/2) P(y) / Q(y), y = x^2, |x| <= 9.02 (tanh
    # rounds to 1 from 9.0109). An error d in t, relative, is one of (1 - t^2)/(1 + t^2) d =
    # d / cosh(x) in tanh(x): w = sech(x), and the fit of t may be loose where tanh nears 1.
    def t_over_half_x(y):
        if y < 1e-6:
            return 1 - y / 12 + y * y / 120
        x = math.sqrt(y)
        return math.tanh(x / 2) / (x / 2)
    p, q, e = rational_float32(t_over_half_x, lambda y: 1 / math.cosh(math.sqrt(y)), 9.02, 2, 3)
    print("tanh: tanh(x/2) = (x/2) P(x^2) / Q(x^2), |x| <= 9.02, error weighted by sech(x)")
    show("tanh P(y) = 1 + y (c0 + c1 y)", p[1:], e)
    show("tanh Q(y) = 1 + y (c0 + c1 y + c2 y^2)", q[1:], e)

    # erf for |x| < E: erf(x) = x P(x^2), y = x^2, relative error.
    E = 0.875
    def p_erf(y):
        if y == 0:
            return 2 / math.sqrt(math.pi)
        x = math.sqrt(y)
        return math.erf(x) / x
    # P(0) = 2/sqrt(pi) is off by 0.9 x 2^-24 once rounded to float32, an error no fit of the
    # other coefficients can absorb at x -> 0: it is kept as hi + lo (x * hi exact in an FMA), and
    # the rest, R(y) = (P(y) - 2/sqrt(pi)) / y, is fitted on its own.
    two_rsqrt_pi = 2 / math.sqrt(math.pi)
    hi = f32(two_rsqrt_pi)
    lo = f32(two_rsqrt_pi - hi)
    print(f"erf 2/sqrt(pi) = {hi!r}f + {lo!r}f")
    def p_rest(y):
        if y < 1e-6:
            return (-1 / 3 + y / 10 - y * y / 42) * two_rsqrt_pi
        return (p_erf(y) - two_rsqrt_pi) / y
    c, e = remez(p_rest, lambda y: y / p_erf(y), 0.0, E * E, 6)
    e = max(abs((hi + lo + y * horner(c, y)) / p_erf(y) - 1)
            for y in [E * E * i / 20000 for i in range(20001)])
    show(f"erf R(y), erf(x) = x (2/sqrt(pi) + x^2 R(x^2)), |x| < {E}", c, e)

    # erf for E <= x <= 4: erf(x) = 1 - exp(-x^2) G(x - 2.4375), G ~ erfc(x) e^(x^2); the error
    # reaches erf ~ 1 scaled by exp(-x^2).
    def g_erf(t):
        x = t + 2.4375
        return math.erfc(x) * math.exp(x * x)
    c, e = remez(g_erf, lambda t: math.exp(-(t + 2.4375) ** 2), E - 2.4375, 4 - 2.4375, 9)
    show(f"erfc G(t), erf(x) = 1 - exp(-x^2) G(x - 2.4375), {E} <= x <= 4", c, e)


if __name__ == "__main__":
    main()
