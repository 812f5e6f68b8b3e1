"""Measurement for a Coq route to gd's region_probability (docs/coq.md, 'The gd region in Coq': the chords and the bracket measured
with the exact Phi).

Run: python tests/bench_region_gd_route.py [P:N ...]   (default 5:6 5:8 13:5 31:4 101:3; a few minutes)

P(R_gd | active) = E[Phibar(k S)] / (C(2p, p) - 1), k = p^2/(2 eta tau_p), eta = 1. The route: F_S is concave,
so E[Phibar(k S)] = int_0^inf phi(u) F_S(u/k) du >= sum_j alpha_j F_S(u_j/k) (chords at u_j = 7 (j/n)^1.5,
alpha_j the integrals of phi times the hat functions, the last one constant beyond u_n), and each F_S(t) is
bounded below by the Hermite-Hadamard bracket

    F_S(t) >= C(2p, p) p^2 t (1 - t^2/24) int Phi^(p-1)(x) phi(x) phi(x + t/2) M(x)^(p-1) dx,
    M = (Phibar(x) + Phibar(x + t))/2.

Prints, per (p, n): the route (exact Phi inside, mpmath) over the kernel's certified bound; the chords with
the exact F_S over the exact E[Phibar(k S)]; the bracket's route over the chords (its loss); the kernel's
bound over the exact value. Floats of mpmath at 20 digits and its quadrature: a measurement that chooses a
route, never a bound. The x-integrals are split at 61 points of [-3, 3] so that the quadrature resolves the
peak of width 1/sqrt(p) (with three pieces its error reached 5% at p = 101).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mpmath as mp  # noqa: E402

from certify.errors import CertifyError  # noqa: E402
from certify.kernel.primes import require_prime  # noqa: E402
from certify.kernel.region import gd_region_log_probability_lower  # noqa: E402

SPLIT = [-mp.inf, -3] + [mp.mpf(i) / 10 for i in range(-30, 31)] + [mp.inf]


def measure(p: int, n: int, power=1.5, umax=7) -> dict:
    mp.mp.dps = 20
    k = mp.mpf(p) ** 2 / 2 / mp.sqrt(mp.mpf(p - 1) / p)
    C = mp.binomial(2 * p, p)
    Phi, phibar, phi = mp.ncdf, (lambda x: mp.ncdf(-x)), mp.npdf

    def F_exact(t):
        return C * p * mp.quad(lambda x: Phi(x) ** (p - 1) * phi(x) * (phibar(x) ** p - phibar(x + t) ** p), SPLIT)

    def F_bracket(t):
        def g(x):
            M = (phibar(x) + phibar(x + t)) / 2
            return Phi(x) ** (p - 1) * phi(x) * phi(x + t / 2) * M ** (p - 1)
        return C * p * p * t * (1 - t ** 2 / 24) * mp.quad(g, SPLIT)

    us = [umax * (mp.mpf(j) / n) ** power for j in range(n + 1)]

    def alpha(j):
        a = mp.mpf(0)
        if j >= 1:
            left, right = us[j - 1], us[j]
            a += mp.quad(lambda u: phi(u) * (u - left) / (right - left), [left, right])
        if j < n:
            left, right = us[j], us[j + 1]
            a += mp.quad(lambda u: phi(u) * (right - u) / (right - left), [left, right])
        else:
            a += phibar(us[n])
        return a

    weights = [alpha(j) for j in range(1, n + 1)]
    route = sum(w * F_bracket(u / k) for w, u in zip(weights, us[1:]))
    chords = sum(w * F_exact(u / k) for w, u in zip(weights, us[1:]))
    exact = mp.quad(lambda u: phi(u) * F_exact(u / k), [0, 2, 8])
    kernel = mp.e ** mp.mpf(gd_region_log_probability_lower(p, 1, 128).mid().str(25, radius=False)) * (C - 1)
    return {"route / kernel": route / kernel, "chords / exact": chords / exact, "bracket / chords": route / chords,
            "kernel / exact": kernel / exact}


def main(argv: list[str]) -> int:
    try:
        cases = [(int(p), int(n)) for p, n in (arg.split(":") for arg in argv)] or \
            [(5, 6), (5, 8), (13, 5), (31, 4), (101, 3)]
        if any(n < 1 for _, n in cases):
            raise ValueError
        for p, _ in cases:
            require_prime(p)
    except (ValueError, CertifyError):
        print("bench_region_gd_route.py: each argument is P:N, a prime P >= 5 and N >= 1 nodes (e.g. 5:6)",
              file=sys.stderr)
        return 2
    print(f"{'p':>4} {'n':>3}  {'route / kernel':>15} {'chords / exact':>15} {'bracket / chords':>17} {'kernel / exact':>15}")
    for p, n in cases:
        row = measure(p, n)
        print(f"{p:>4} {n:>3}  " + " ".join(f"{mp.nstr(v, 6):>{len(name)}}" for name, v in row.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
