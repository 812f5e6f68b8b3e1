"""Measure the outcome law for the README and keep the summaries here (run: python examples/law/make_law_table.py).

Runs `certify law` (the flow, sigma = 1, seed 1, horizon 10^6, 2 worker processes) for p = 5, 7, 11, 13 and
gd (eta = 1) for p = 5 into runs/law/ (resumable: an interrupted run goes on where it stopped), copies each
summary.json to examples/law/summary-DYNAMICS-P.json, and prints the README's table as Markdown from those
files. `--table` only prints the table from the kept summaries.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

#: (dynamics, p, samples, eta)
RUNS = (("flow", 5, 1000, None), ("flow", 7, 500, None), ("flow", 11, 300, None), ("flow", 13, 200, None),
        ("gd", 5, 300, "1"))

OUTCOMES = ("dead", "memorises_one_entry", "single_frequency", "multi_gate_not_aligned", "undecided")


def _percent(x: float) -> str:
    return f"{100 * x:.2f}%"


def _three_digits_down(text: str) -> str:
    """A positive decimal text to 3 significant digits, rounded DOWN (it is a proved lower bound)."""
    from decimal import ROUND_DOWN, Decimal

    value = Decimal(text)
    quantum = Decimal(1).scaleb(value.adjusted() - 2)
    return f"{value.quantize(quantum, rounding=ROUND_DOWN):.2E}"


def table() -> str:
    lines = ["| dynamics | p | n | " + " | ".join(OUTCOMES) + " | certified P(dead region \\| active) >= |",
             "|---|---|---|" + "---|" * len(OUTCOMES) + "---|"]
    for dynamics, p, _, eta in RUNS:
        path = HERE / f"summary-{dynamics}-{p}.json"
        if not path.exists():
            continue
        summary = json.loads(path.read_text())
        cells = []
        for name in OUTCOMES:
            o = summary["outcomes"][name]
            cells.append(f"{o['count']} ({_percent(o['fraction'])}) [{_percent(o['ci_low'])}, {_percent(o['ci_high'])}]")
        label = dynamics + (f", eta {eta}" if eta else "")
        bound = _three_digits_down(summary["certified"]["dead_region_lower_bound"])
        lines.append(f"| {label} | {p} | {summary['samples']} | " + " | ".join(cells) + f" | {bound} |")
    return "\n".join(lines)


def main(argv) -> int:
    if "--table" not in argv:
        certify = shutil.which("certify") or str(Path(sys.executable).with_name("certify"))
        for dynamics, p, samples, eta in RUNS:
            out = ROOT / "runs" / "law" / f"{dynamics}-{p}"
            command = [certify, "law", "--p", str(p), "--samples", str(samples), "--jobs", "2",
                       "--dynamics", dynamics, "--out", str(out)] + (["--eta", eta] if eta else [])
            print(" ".join(command[1:]), flush=True)
            subprocess.run(command, check=True)
            shutil.copyfile(out / "summary.json", HERE / f"summary-{dynamics}-{p}.json")
    print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
