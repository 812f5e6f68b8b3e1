"""Measurement: coqc's time for one node of the gd region route (docs/coq.md, 'What is still missing'; not built).

Run: python tests/bench_region_gd_node.py [DEGREE ...]   (default 8 10 12; needs coqc and CoqInterval)

At p = 5, eta = 1 and the first node of six (u_1 = 7 (1/6)^1.5, t = u_1/k), it writes a Coq file whose one lemma
bounds below, by CoqInterval's ``integral`` (i_prec 40, i_degree 6), the integral over [-4, 4 - t] of

    (1 - P(x) - e)^(p-1) phi(x) phi(x + t/2) ((P(x) + P(x + t))/2 - e)^(p-1),   P(x) = 1/2 - int_0^x E(s^2) ds,

with E the Chebyshev fit (mpmath.chebyfit) of degree DEGREE of phi(sqrt y) on y in [0, 16], so that
|Phibar - P| <= eta |x| on [-4, 4] with eta = max |phi - E| (P' = -E, Phibar' = -phi, Phibar(0) = P(0) = 1/2), and
e = 4 eta (eta measured on a grid of 4001 points here, printed; the route would prove it with ``interval``); the
lower end 10^-3 below mpmath's value. The two bases must be nonnegative on the domain for the powers p - 1 (even) to
keep the inequality: the script prints their least value on the grid. It prints coqc's time. The file is a cost
probe: nothing in it is a claim.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import mpmath as mp

P_, A = 5, 4


def node_file(degree: int) -> tuple[str, mp.mpf, mp.mpf]:
    mp.mp.dps = 30

    poly = mp.chebyfit(lambda y: mp.exp(-y / 2) / mp.sqrt(2 * mp.pi), [0, A * A], degree + 1)
    coefficients = [Fraction(mp.nstr(v, 25)) for v in reversed(poly)]  # E(y) = sum c_i y^i
    # P(x) = 1/2 - x Q(x^2) with Q(y) = sum c_i y^i / (2i + 1): the integral of E(s^2) from 0 to x
    q_coefficients = [c / (2 * i + 1) for i, c in enumerate(coefficients)]

    def P(x):
        return mp.mpf(1) / 2 - x * sum(mp.mpf(q.numerator) / q.denominator * x ** (2 * i)
                                       for i, q in enumerate(q_coefficients))

    grid = mp.linspace(-A, A, 4001)
    eta = max(abs(mp.npdf(x) - sum(mp.mpf(c.numerator) / c.denominator * x ** (2 * i)
                                   for i, c in enumerate(coefficients))) for x in grid)
    k = mp.mpf(P_) ** 2 / 2 / mp.sqrt(mp.mpf(P_ - 1) / P_)
    t = Fraction(mp.nstr(7 * (mp.mpf(1) / 6) ** 1.5 / k, 15))
    e = Fraction(mp.nstr(A * eta * (1 + mp.mpf("1e-3")), 5))
    tm, em = mp.mpf(t.numerator) / t.denominator, mp.mpf(e.numerator) / e.denominator

    def integrand(x):
        return ((1 - P(x) - em) ** (P_ - 1) * mp.npdf(x) * mp.npdf(x + tm / 2)
                * ((P(x) + P(x + tm)) / 2 - em) ** (P_ - 1))

    lower = Fraction(mp.nstr(mp.quad(integrand, [-A, -1, 0, 1, A - tm]) * (1 - mp.mpf("1e-3")), 20))
    least_base = min(min(1 - P(x) - em, (P(x) + P(x + tm)) / 2 - em) for x in grid if x <= A - tm)
    horner = "0"
    for q in reversed(q_coefficients):
        horner = f"({q.numerator} / {q.denominator} + y * {horner})"
    text = f"""From Coq Require Import Reals.
From Coquelicot Require Import Coquelicot.
From Interval Require Import Tactic.
Open Scope R_scope.
Definition phi := fun x => exp (- x ^ 2 / 2) / sqrt (2 * PI).
Definition Q : R -> R := fun y => {horner}.
Definition P := fun x => 1 / 2 - x * Q (x ^ 2).
Lemma node : ({lower.numerator} / {lower.denominator}) <= RInt (fun x => (1 - P x - ({e.numerator} / {e.denominator})) ^ {P_ - 1} * phi x * phi (x + {t / 2}) * ((P x + P (x + {t})) / 2 - ({e.numerator} / {e.denominator})) ^ {P_ - 1}) (-{A}) ({A - t}).
Proof. unfold P, Q, phi. integral with (i_prec 40, i_degree 6, i_fuel 400). Qed.
"""
    return text, eta, least_base


def main(argv: list[str]) -> int:
    try:
        degrees = [int(a) for a in argv] or [8, 10, 12]
        if any(degree < 1 for degree in degrees):
            raise ValueError
    except ValueError:
        print("bench_region_gd_node.py: each argument is a degree >= 1 (e.g. 10)", file=sys.stderr)
        return 2
    print(f"{'degree':>6} {'eta':>10} {'least base':>11} {'coqc s':>7} ok")
    for degree in degrees:
        text, eta, least_base = node_file(degree)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "gd_node.v"
            path.write_text(text)
            start = time.perf_counter()
            done = subprocess.run(["coqc", "-q", path.name], cwd=folder, capture_output=True, text=True)
            seconds = time.perf_counter() - start
        print(f"{degree:>6} {mp.nstr(eta, 3):>10} {mp.nstr(least_base, 3):>11} {seconds:7.1f} {done.returncode == 0}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
