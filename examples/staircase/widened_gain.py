"""The table of docs/staircase.md, section 11.14: for each (1, 2) record of the proof library, the region bound
its certificate states (the widened box B_r^+, Lemma S.18) beside the bound of the box copies alone.

    python examples/staircase/widened_gain.py [--proofs DIR]

Both columns are read from the certificates (decimal texts, not recomputed): region_probability.log10_lo is the
widened bound, and gaussian_probability.log10_lo + log10(p^2 (p - 1)) the box copies' (rounded down to 2 digits
here, as the table prints them; the exact box-copies bound is a proved bound of the same probability).
"""

from __future__ import annotations

import argparse
import json
import math
from decimal import ROUND_FLOOR, Decimal
from pathlib import Path

RECORDS = ("staircase", "twin", "twin_plus", "twin_above")


def down(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_FLOOR))


def bounds(path: Path) -> tuple[Decimal, Decimal]:
    """(box copies, widened) log10 bounds of one certificate."""
    document = json.loads(path.read_text())
    p, claims = int(document["p"]), document["claims"]
    copies = Decimal(claims["gaussian_probability"]["log10_lo"]) + Decimal(math.log10(p * p * (p - 1)))
    return copies, Decimal(claims["region_probability"]["log10_lo"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proofs", type=Path, default=Path(__file__).resolve().parents[2] / "proofs")
    args = parser.parse_args()
    primes = sorted({int(path.stem.split("-")[1]) for record in RECORDS
                     for path in (args.proofs / record).glob(f"{record}-*.json")})
    print("| p | " + " | ".join(f"`{record}`: B+ (box copies)" for record in RECORDS) + " |")
    print("| --- |" + " --- |" * len(RECORDS))
    for p in primes:
        cells = []
        for record in RECORDS:
            path = args.proofs / record / f"{record}-{p}.json"
            if path.exists():
                copies, widened = bounds(path)
                cells.append(f"{down(widened)} ({down(copies)})")
            else:
                cells.append("")
        print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
