"""The search behind `certify twin_above`'s defaults (docs/staircase.md, section 11.13).

    python examples/staircase/twin_above_search.py [--p P ...] [--scales C,...]

For each p, with X = 5/2 and t = 1/2 fixed and e = 2.5 r_0, d = 2.2 r_0 (the shape of every best box of section
11.12's grid), it tries E = 1.5 log p + dE (dE in -0.5..0.5), r_0 = c/p (c in --scales, thousandths) and
h = f 2 mu_0 (f in 0.45, 0.6, 0.75), finds each box's largest radius the kernel certifies at 64 bits
(certify.theorems.radius.largest_certifiable_radius, the builder's own search) and prints the best four by
log10 of the box's N(0, I) mass times its p^2 (p - 1) relabelled copies, and the defaults' own value.

The kernel decides every box, so each printed mass is that of a certifiable box (at 64 bits; the certificate
itself is made at 128); the choice among them is a heuristic, and the defaults are a fit to it:
r_0 = 0.06 (p - 2)/p^2, E = 1.5 log p, f = 0.6. (The builder's h and t came later: h = 0.9 h_max, and t = 1.5 (e +
delta_c0) once the region bound measured the box widened in its tails, docs/staircase.md sections 11.13-11.14; the
"defaults' own value" printed here is at t = 1/2.)
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys

from flint import fmpq

from certify.errors import NotCertified
from certify.kernel.balls import working_precision
from certify.kernel.gaussian import box_log_mass
from certify.kernel.staircase import staircase_gaussian_centres
from certify.kernel.twin_above import TwinAboveParameters, twin_above_box_bounds
from certify.theorems.radius import largest_certifiable_radius, round_down
from certify.theorems.twin_above import certify_twin_above


def log10_mass_with_copies(params: TwinAboveParameters, radius: fmpq) -> float:
    """log10 of the box's N(0, I) mass times p^2 (p - 1) (a float of the kernel's ball, for ranking)."""
    with working_precision(64):
        log_mass = box_log_mass(staircase_gaussian_centres(params), radius, 1)
    return float(log_mass.mid()) / math.log(10) + math.log10(params.p ** 2 * (params.p - 1))


def best_boxes(p: int, scales) -> list[tuple]:
    """(log10 mass with copies, dE, c, f, radius) of every certifiable candidate, best first."""
    found = []
    for dE, c, f in itertools.product((-0.5, -0.25, 0, 0.25, 0.5), scales, (45, 60, 75)):
        X, E = fmpq(5, 2), round_down(fmpq(round((1.5 * math.log(p) + dE) * 1000), 1000))
        r0 = round_down(fmpq(c, 1000 * p))
        e, d, t = r0 * fmpq(5, 2), r0 * fmpq(11, 5), fmpq(1, 2)
        h = round_down(fmpq(f, 100) * 2 * (2 * E + d) / p)
        params = TwinAboveParameters(p, X, e, t, d, E, h)
        try:
            radius = largest_certifiable_radius(lambda r: twin_above_box_bounds(params, r, 64), min(e, d) / 2)
        except NotCertified:
            continue
        found.append((round(log10_mass_with_copies(params, radius), 2), dE, c, f, float(radius)))
    return sorted(found, reverse=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--p", type=int, nargs="+", default=[5, 7, 13, 31])
    parser.add_argument("--scales", default="35,40,45,50,55,60",
                        help="the c of r_0 = c/p, in thousandths, comma-separated")
    args = parser.parse_args(argv)
    scales = [int(c) for c in args.scales.split(",")]
    for p in args.p:
        best = best_boxes(p, scales)
        made = certify_twin_above(p, t=fmpq(1, 2), prec=64)  # the search's t; the box's own copies, not widened
        print(f"p = {p}: best (log10 mass with copies, dE, c, f, radius): {best[:4]}; the defaults at t = 1/2: "
              f"{log10_mass_with_copies(made.params, made.radius):.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
