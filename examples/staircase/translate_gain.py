"""The tightness table of docs/staircase.md, section 11.15: for certificates of the proof library, the gain of the
translates of the widened box B_r^+ along d_uv and d_w, summed term by term with mpmath, beside Lemma S.20's
closed form (S.39), sqrt(2 pi/N) sigma/(2r).

    python examples/staircase/translate_gain.py [--record twin_above] [--p 5 31 101] [--proofs DIR]

Independent of the kernel: B_r^+ is rebuilt from the certificate's base point, radius, sigma and g (the tails
u(i), v(i), i >= 2, reach 4 sigma below the box, section 11.14), and each translate's mass is a product of mpmath
normal masses at 40 digits. The sum runs over k = 0, +-1, ... until a term falls below 10^-12 of the sum: a lower
bound of the whole sum, so each "sum" column must be at least its (S.39) column (evidence for Lemma S.20 at these
boxes; the lemma itself is proved in section 11.15).
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from pathlib import Path

from mpmath import mp, mpf, ncdf, log10, sqrt, pi

TAIL_DEPTH = 4


def intervals(document: dict) -> dict[str, list[tuple[mpf, mpf, int]]]:
    """{"u": [...], "v": [...], "w": [...]}: B_r^+'s intervals (lo, hi, count) in units of sigma."""
    p, point = int(document["p"]), document["base_point"]
    sigma = Fraction(document["parameters"]["sigma"])
    r = Fraction(document["radius"])
    g = Fraction(document["parameters"].get("g", "0"))
    out = {}
    for block in "uvw":
        levels = point[block]
        rows = []
        for part, count in (("at_0", 1), ("at_1", 1), ("elsewhere", p - 2)):
            m = Fraction(levels[part])
            lo, hi = m - r, m + r
            if part == "elsewhere" and block in "uv":
                lo -= TAIL_DEPTH * sigma
            if part == "elsewhere" and block == "w":
                lo, hi = lo - g, hi + g
            rows.append((mpf(lo.numerator) / lo.denominator / (mpf(sigma.numerator) / sigma.denominator),
                         mpf(hi.numerator) / hi.denominator / (mpf(sigma.numerator) / sigma.denominator), count))
        out[block] = rows
    return out


def log_mass(rows, shift) -> mpf:
    return sum(count * mp.log(ncdf(hi + shift) - ncdf(lo + shift)) for lo, hi, count in rows)


def translate_sum(moves, h) -> mpf:
    """sum over k of P(translate k)/P(box), ``moves`` a list of (rows, sign)."""
    base = sum(log_mass(rows, 0) for rows, _ in moves)
    total = mpf(1)
    for sign in (1, -1):
        k = 1
        while True:
            term = mp.exp(sum(log_mass(rows, s * sign * k * h) for rows, s in moves) - base)
            total += term
            if term < mpf(10) ** -12 * total:
                break
            k += 1
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", default="twin_above")
    parser.add_argument("--p", type=int, nargs="+", default=[5, 31, 101])
    parser.add_argument("--proofs", type=Path, default=Path(__file__).resolve().parents[2] / "proofs")
    args = parser.parse_args()
    mp.dps = 40
    print("| p | r | d_uv: sum | (S.39) | d_w: sum | (S.39) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for p in args.p:
        document = json.loads((args.proofs / args.record / f"{args.record}-{p}.json").read_text())
        rows = intervals(document)
        sigma = Fraction(document["parameters"]["sigma"])
        h = 2 * mpf(Fraction(document["radius"]).numerator) / Fraction(document["radius"]).denominator
        h /= mpf(sigma.numerator) / sigma.denominator
        uv = translate_sum([(rows["u"], 1), (rows["v"], -1)], h)
        w = translate_sum([(rows["w"], 1)], h)
        closed_uv, closed_w = sqrt(2 * pi / (2 * p)) / h, sqrt(2 * pi / p) / h
        print(f"| {p} | {document['radius']} | {mp.nstr(log10(uv), 7)} | {mp.nstr(log10(closed_uv), 7)} | "
              f"{mp.nstr(log10(w), 7)} | {mp.nstr(log10(closed_w), 7)} |")


if __name__ == "__main__":
    main()
