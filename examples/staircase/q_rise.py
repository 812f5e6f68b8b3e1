"""Q rises next to the twin's face: the float trajectory of docs/staircase.md section 11.3.

    python examples/staircase/q_rise.py [--D D] [--horizon T]

From section 11.3's state at p = 5 (w = (3 + D, 3, -5, -5, -5), u(0) = v(0) = 21/4, u(1) = v(1) = -1/4,
u(j) = v(j) = -10 for j >= 2), this integrates the gradient flow p^2 theta' = -grad Lambda of the open (1, 2)
pattern (Lemma S.8: the flow while X, r, c > 0 and every other gate is < 0; u(j), v(j) for j >= 2 do not move
then) with scipy's LSODA, and prints z11, D, Lambda - 3 log 2 and Q - 3 log 2 at log-spaced times. It checks at
every printed time that the pattern still holds (else the reduced field is not the flow) and says so.

Floats, rtol 1e-11: evidence of where the trajectory goes, not a bound.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy.integrate import solve_ivp

P = 5
FAR = -100.0  # u(j) = v(j) for j >= 2: constant while their gates are < 0


def field(_t, y):
    """-grad Lambda / p^2 in (u(0), v(0), u(1), v(1), w) (Lemma S.8's entries)."""
    u0, v0, u1, v1 = y[:4]
    w = y[4:]
    X, r, c = u0 + v0, u0 + v1, u1 + v0

    def q(z):
        a = z * w
        e = np.exp(a - a.max())
        return e / e.sum()
    qX, qr, qc = q(X), q(r), q(c)
    g0, gr, gc = qX @ w - w[0], qr @ w - w[1], qc @ w - w[1]
    e = np.eye(P)
    dw = X * (qX - e[0]) + r * (qr - e[1]) + c * (qc - e[1])
    return -np.concatenate([[g0 + gr, g0 + gc, gc, gr], dw]) / P**2


def loss3(y) -> float:
    """Lambda = ell_0(X) + ell_1(r) + ell_1(c) ((A.2))."""
    u0, v0, u1, v1 = y[:4]
    w = y[4:]

    def ell(z, k):
        a = z * (w - w[k])
        return a.max() + math.log(np.exp(a - a.max()).sum())
    return ell(u0 + v0, 0) + ell(u0 + v1, 1) + ell(u1 + v0, 1)


def pattern_holds(y) -> bool:
    """X, r, c > 0 and every other gate < 0, with u(j) = v(j) = FAR for j >= 2."""
    u0, v0, u1, v1 = y[:4]
    return min(u0 + v0, u0 + v1, u1 + v0) > 0 and max(u1 + v1, u0 + FAR, v0 + FAR, u1 + FAR, v1 + FAR) < 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--D", type=float, default=1e-3, help="w(0) - w(1) at the start (default 1e-3)")
    parser.add_argument("--horizon", type=float, default=1e6, help="last time (default 1e6)")
    args = parser.parse_args(argv)
    if not (args.D > 0 and args.horizon > 1e-2):
        parser.error("--D must be > 0 and --horizon > 0.01")
    X, r, c = 10.5, 5.0, 5.0
    y0 = np.array([X / 2, X / 2, c - X / 2, r - X / 2, 3 + args.D, 3] + [-5.0] * (P - 2))
    times = np.concatenate([[0], np.geomspace(1e-2, args.horizon, 81)])
    solution = solve_ivp(field, (0, times[-1]), y0, t_eval=times, rtol=1e-11, atol=1e-13, method="LSODA")
    if not solution.success:
        print(f"q_rise: the integration failed: {solution.message}")
        return 1
    for t, y in zip(times[::4], solution.y.T[::4]):
        z11, D = y[2] + y[3], y[4] - y[5]
        lam = loss3(y)
        q = lam - D * min(z11, 0.0) / 2
        print(f"t = {t:9.3g}: z11 = {z11:+.4g}, D = {D:+.4g}, Lambda - 3 log 2 = {lam - 3 * math.log(2):+.4g}, "
              f"Q - 3 log 2 = {q - 3 * math.log(2):+.4g}")
    kept = all(pattern_holds(y) for y in solution.y.T)
    print("the pattern holds at every output time" if kept else "the pattern FAILS at some output time: the "
          "reduced field is not the flow there")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
