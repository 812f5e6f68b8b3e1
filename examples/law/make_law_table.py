"""Measure the outcome law for the README and keep the summaries here (run: python examples/law/make_law_table.py).

    python examples/law/make_law_table.py [--jobs J | --scheduler tcp://HOST:8786] [--primes 5,7,...]
                                          [--samples N] [--gd-samples N] [--horizon T] [--runs DIR]
                                          [--summaries DIR] [--table]

Runs `certify law` (sigma = 1, seed 1) with the flow for p = 5, 7, 11, 13, 17, 19, 23, 29, 31 and with gd
(eta = 1) for p = 5 into runs/law/DYNAMICS-P (resumable: an interrupted run goes on where it stopped, and each
run prints its estimated time first when it is over a minute), copies each summary.json to
examples/law/summary-DYNAMICS-P.json, and prints the README's two tables as Markdown from those files:

1. the outcome shares (count, fraction, Wilson 95% interval), the distribution of the staircase size k
   (k = 1 is memorises_one_entry) and the certified floor under the dead fraction, one row per run;
2. the staircases by (n, k): how many, max F at the horizon (mean [min, max]) and the limit formula's value;
   first the k = 2 degenerate twins (regime II of docs/staircase.md) against their own formula (S.19).

The flow runs default to :data:`SAMPLES` samples: the fewest for which every Wilson interval reaches at most
3 points on either side of its fraction, whatever the count (the issue's "+/- 3 points"). `--table` only
prints the tables from the kept summaries; a summary of a version without the staircase outcome is named
on stderr and left out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

FLOW_PRIMES = (5, 7, 11, 13, 17, 19, 23, 29, 31)
#: Samples of each flow run: the smallest n with max(f - ci_low, ci_high - f) <= 0.03 for every count
#: 0..n (tests/test_law_table.py checks it against certify.law.runner.wilson_interval).
SAMPLES = 1068
#: The README's gd row: p = 5, eta = 1, 300 samples.
GD_RUN = (5, 300, "1")

OUTCOMES = ("dead", "memorises_one_entry", "staircase", "multi_gate_other", "single_frequency", "undecided")


def _percent(x: float) -> str:
    return f"{100 * x:.2f}%"


def _three_digits_down(text: str) -> str:
    """A positive decimal text to 3 significant digits, rounded DOWN (it is a proved lower bound)."""
    from decimal import ROUND_DOWN, Decimal

    value = Decimal(text)
    quantum = Decimal(1).scaleb(value.adjusted() - 2)
    return f"{value.quantize(quantum, rounding=ROUND_DOWN):.2E}"


def runs(primes, samples: int, gd_samples: int) -> list[tuple[str, int, int, str | None]]:
    """(dynamics, p, samples, eta) of every run: the flow at each prime, then gd at p = 5 (if gd_samples)."""
    found = [("flow", p, samples, None) for p in primes]
    if gd_samples:
        found.append(("gd", GD_RUN[0], gd_samples, GD_RUN[2]))
    return found


def load_summaries(folder: Path, warn=None) -> list[dict]:
    """The summaries summary-DYNAMICS-P.json in ``folder`` that have the staircase outcome, flow by p then gd;
    each other one is named through ``warn`` and left out."""
    warn = warn or (lambda line: print(line, file=sys.stderr))
    found = []
    for path in sorted(folder.glob("summary-*.json")):
        summary = json.loads(path.read_text())
        if "staircases" not in summary:
            warn(f"note: {path.name} is of a version before the staircase outcome; left out of the table")
            continue
        found.append(summary)
    return sorted(found, key=lambda s: (s["dynamics"] != "flow", s["p"], s.get("eta") or ""))


def _cell(entry: dict) -> str:
    low, high = _percent(entry["ci_low"]), _percent(entry["ci_high"])
    return f"{entry['count']} ({_percent(entry['fraction'])}) [{low}, {high}]"


def table(summaries: list[dict]) -> str:
    """The README's outcome table: one row per summary."""
    lines = ["| dynamics | p | n | " + " | ".join(OUTCOMES) + " | k (share of all samples) "
             "| certified P(dead region \\| active) >= |",
             "|---|---|---|" + "---|" * len(OUTCOMES) + "---|---|"]
    for summary in summaries:
        cells = [_cell(summary["outcomes"][name]) for name in OUTCOMES]
        k = ", ".join(f"{size}: {_percent(entry['fraction'])}" for size, entry in summary["staircases"]["k"].items())
        label = summary["dynamics"] + (f", eta {summary['eta']}" if "eta" in summary else "")
        bound = _three_digits_down(summary["certified"]["dead_region_lower_bound"])
        lines.append(f"| {label} | {summary['p']} | {summary['samples']} | " + " | ".join(cells)
                     + f" | {k or '-'} | {bound} |")
    return "\n".join(lines)


def staircase_table(summaries: list[dict]) -> str:
    """The README's staircase table: per run and (n, k), the count, max F at the horizon and the formula."""
    lines = ["| dynamics | p | (n, k) | staircases | max F at the horizon, mean [min, max] | limit formula |",
             "|---|---|---|---|---|---|"]
    for summary in summaries:
        label = summary["dynamics"] + (f", eta {summary['eta']}" if "eta" in summary else "")
        stairs = summary["staircases"]
        if stairs.get("k2_twin_max_fourier"):  # regime II (docs/staircase.md section 6), against (S.19)
            stats = stairs["k2_twin_max_fourier"]
            lines.append(f"| {label} | {summary['p']} | (1, 2) twin, regime II | {stairs['k2_degenerate_twin']} | "
                         f"{stats['mean']:.4f} [{stats['min']:.4f}, {stats['max']:.4f}] | "
                         f"{stairs['k2_twin_max_fourier_limit']:.4f} (S.19) |")
        for key, entry in stairs["n_k"].items():
            stats, limit = entry["max_fourier"], entry["max_fourier_limit"]
            lines.append(f"| {label} | {summary['p']} | ({key.replace(',', ', ')}) | {entry['count']} | "
                         f"{stats['mean']:.4f} [{stats['min']:.4f}, {stats['max']:.4f}] | "
                         f"{'-' if limit is None else f'{limit:.4f}'} |")
    return "\n".join(lines)


def _primes(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of primes, got {text!r}") from None


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", action="store_true", help="only print the tables from the kept summaries")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--jobs", default="2", help="worker processes of a local Dask cluster (default 2)")
    where.add_argument("--scheduler", default=None, help="a Dask scheduler's address instead")
    parser.add_argument("--primes", type=_primes, default=list(FLOW_PRIMES))
    parser.add_argument("--samples", type=int, default=SAMPLES, help=f"flow samples per prime (default {SAMPLES})")
    parser.add_argument("--gd-samples", type=int, default=GD_RUN[1], help="gd samples at p = 5 (0: no gd run)")
    parser.add_argument("--horizon", default="1e8")
    parser.add_argument("--runs", type=Path, default=ROOT / "runs" / "law", help="the runs' folders (resumable)")
    parser.add_argument("--summaries", type=Path, default=HERE, help="where the summaries are kept")
    args = parser.parse_args(argv)
    if not args.table:
        where = ["--scheduler", args.scheduler] if args.scheduler else ["--jobs", args.jobs]
        args.summaries.mkdir(parents=True, exist_ok=True)
        for dynamics, p, samples, eta in runs(args.primes, args.samples, args.gd_samples):
            out = args.runs / f"{dynamics}-{p}"
            command = [sys.executable, "-m", "certify", "law", "--p", str(p), "--samples", str(samples), *where,
                       "--horizon", args.horizon, "--dynamics", dynamics, "--out", str(out)]
            command += ["--eta", eta] if eta else []
            print("certify " + " ".join(command[3:]), flush=True)
            status = subprocess.run(command).returncode
            if status:
                print(f"certify law exited with status {status} (its message is above); run this again to resume",
                      file=sys.stderr)
                return status
            shutil.copyfile(out / "summary.json", args.summaries / f"summary-{dynamics}-{p}.json")
    summaries = load_summaries(args.summaries)
    print(table(summaries))
    print()
    print(staircase_table(summaries))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
