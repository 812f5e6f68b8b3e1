"""The table of docs/staircase.md, section 11.15: for each (1, 2) record of the proof library, the region bound
its certificate states ((S.40): the widened box B_r^+ of Lemma S.18 and its translates along the two invariant
lines, Proposition S.21), the widened box's copies alone (section 11.14's bound) and the box copies alone.

    python examples/staircase/widened_gain.py [--proofs DIR]

Read from the certificates (decimal texts): region_probability.log10_lo is (S.40)'s bound; minus log10 of the
translates' factor pi sigma^2/(2 sqrt(2) p r^2) (floats from the certificate's radius and sigma: good to 1e-13 here,
far below the 0.01 shown) it is the widened copies'; gaussian_probability.log10_lo + log10(p^2 (p - 1)) is the box
copies'. All rounded down to 2 digits, as the table prints them.
"""

from __future__ import annotations

import argparse
import json
import math
from decimal import ROUND_FLOOR, Decimal
from fractions import Fraction
from pathlib import Path

RECORDS = ("staircase", "twin", "twin_plus", "twin_above")


def down(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_FLOOR))


def bounds(path: Path) -> tuple[Decimal, Decimal, Decimal]:
    """(box copies, widened copies, (S.40)) log10 bounds of one certificate."""
    document = json.loads(path.read_text())
    p, claims = int(document["p"]), document["claims"]
    copies = Decimal(claims["gaussian_probability"]["log10_lo"]) + Decimal(math.log10(p * p * (p - 1)))
    r, sigma = (float(Fraction(text)) for text in (document["radius"], document["parameters"]["sigma"]))
    factor = Decimal(math.log10(math.pi * sigma**2 / (2 * math.sqrt(2) * p * r**2)))
    region = Decimal(claims["region_probability"]["log10_lo"])
    return copies, region - factor, region


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proofs", type=Path, default=Path(__file__).resolve().parents[2] / "proofs")
    args = parser.parse_args()
    primes = sorted({int(path.stem.split("-")[1]) for record in RECORDS
                     for path in (args.proofs / record).glob(f"{record}-*.json")})
    print("| p | " + " | ".join(f"`{record}`: (S.40) (B+; box)" for record in RECORDS) + " |")
    print("| --- |" + " --- |" * len(RECORDS))
    for p in primes:
        cells = []
        for record in RECORDS:
            path = args.proofs / record / f"{record}-{p}.json"
            if path.exists():
                copies, widened, region = bounds(path)
                cells.append(f"{down(region)} ({down(widened)}; {down(copies)})")
            else:
                cells.append("")
        print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
