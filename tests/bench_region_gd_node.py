"""Measurement: coqc's time for one node of the gd region route (docs/coq.md, 'What is still missing'; not built).

Run: python tests/bench_region_gd_node.py [DEGREE ...]   (default 6 8 12 18; needs coqc and CoqInterval)

At p = 5, eta = 1 and the first node of six (u_1 = 7 (1/6)^1.5, t = u_1/k), it writes a Coq file whose one lemma
bounds below, by CoqInterval's ``integral`` (i_prec 40, i_degree 6), the integral over [-4, 4 - t] of

    (1 - P(x) - e)^(p-1) phi(x) phi(x + t/2) ((P(x) + P(x + t))/2 - e)^(p-1),   P(x) = 1/2 - x Q(x^2),

with Q the Chebyshev fit (mpmath.chebyfit) of degree DEGREE of G(sqrt y)/sqrt y on [0, 16] and e twice P's
largest error on a grid (printed), the lower end 10^-3 below mpmath's value. It prints coqc's time. The file is
a cost probe: nothing in it is a claim (P's error bound is not proved here).
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


def node_file(degree: int) -> tuple[str, mp.mpf]:
    mp.mp.dps = 30

    def g_over_root(y):
        if y == 0:
            return 1 / mp.sqrt(2 * mp.pi)
        x = mp.sqrt(y)
        return (mp.ncdf(x) - mp.mpf(1) / 2) / x

    poly = mp.chebyfit(g_over_root, [0, A * A], degree + 1)
    coefficients = [Fraction(mp.nstr(v, 25)) for v in reversed(poly)]

    def P(x):
        return mp.mpf(1) / 2 - x * sum(mp.mpf(q.numerator) / q.denominator * x ** (2 * i)
                                       for i, q in enumerate(coefficients))

    error = max(abs(P(x) - mp.ncdf(-x)) for x in mp.linspace(-A, A, 2001))
    k = mp.mpf(P_) ** 2 / 2 / mp.sqrt(mp.mpf(P_ - 1) / P_)
    t = Fraction(mp.nstr(7 * (mp.mpf(1) / 6) ** 1.5 / k, 15))
    e = Fraction(mp.nstr(2 * error, 5))
    tm, em = mp.mpf(t.numerator) / t.denominator, mp.mpf(e.numerator) / e.denominator

    def integrand(x):
        return ((1 - P(x) - em) ** (P_ - 1) * mp.npdf(x) * mp.npdf(x + tm / 2)
                * ((P(x) + P(x + tm)) / 2 - em) ** (P_ - 1))

    lower = Fraction(mp.nstr(mp.quad(integrand, [-A, -1, 0, 1, A - tm]) * (1 - mp.mpf("1e-3")), 20))
    horner = "0"
    for q in reversed(coefficients):
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
    return text, error


def main(argv: list[str]) -> int:
    degrees = [int(a) for a in argv] or [6, 8, 12, 18]
    print(f"{'degree':>6} {'P error':>10} {'coqc s':>7} ok")
    for degree in degrees:
        text, error = node_file(degree)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "gd_node.v"
            path.write_text(text)
            start = time.perf_counter()
            done = subprocess.run(["coqc", "-q", path.name], cwd=folder, capture_output=True, text=True)
            seconds = time.perf_counter() - start
        print(f"{degree:>6} {mp.nstr(error, 3):>10} {seconds:7.1f} {done.returncode == 0}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
