"""Every number of README.md from what makes it (run: python examples/readme_numbers.py [--check]).

    python examples/readme_numbers.py [--check] [--slow | --all] [--only RUN,...] [--readme PATH] [--kept FILE]

Without ``--check`` it writes what it generates into the README (numbers only: the words around each number
are the anchor that finds it) and says what changed; with ``--check`` it changes nothing and lists every
README number that differs from what it generated, every anchor it could not find and every numeric token of
the README that no generator covers and the allow-list does not excuse. Exit 0: everything agrees; 1: some
number differs, an anchor is missing or a number is uncovered; 2: a usage error or an unreadable input.

Where the numbers come from (each README number is linked to its generator by :data:`ANCHORS`: the README text
around it, with ``{key}`` where the number stands; an anchor must occur exactly once):

* **certified values**: certificates built in-process by certify's API at the README's parameters
  (:data:`INSTANCES`), each checked by certify's checker before any number is read, and shown by the one
  display rule, :func:`certify.render.numbers.display_parts` (its body, e.g. ``10^-7.35``; the README's
  words carry the relation). These must agree exactly. So must the output line of ``certify simulate`` the
  README quotes, the proof library's primes and size, and the sweep's estimate from the kept cost table.
* **the outcome law**: the two tables exactly as ``examples/law/make_law_table.py --table`` prints them from
  the summaries kept in examples/law/, and the prose's counts and shares from the same summaries and from the
  gd run's samples kept beside them (examples/law/samples-gd-5.csv).
* **benchmark figures**: the measurements kept in examples/readme_benchmarks.json (each run's command,
  machine load and output). Without ``--slow`` a README figure must be the kept value rounded to the digits
  the README shows. ``--slow`` measures them again (the bench scripts of tests/ and a few timings here,
  :data:`MEASURERS`: 15 minutes on the 2-core machine at load 2, most of it the sweep and coqc; ``--only``
  picks runs), and ``--slow --check`` compares the README's figures with the new measurement within the
  noise band of :data:`BANDS`; ``--slow`` alone keeps the new measurement and writes it into the README.
  ``--all`` also runs the outcome law again (make_law_table.py: about a day). Two kept runs are not measured
  again by --slow: the law's seconds per sample (--all) and the figures from before the region claims.

Numbers the README shows rounded (shares, timings) are compared after rounding the generated value to the
significant digits the README shows (half to even on the exact value), so the README chooses how many digits
to show and the check says whether they are right. Numeric tokens that are not such numbers (equation
numbers, parameters, formulas, limits of the code, quotations) are excused one by one in :data:`ALLOWED`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
README = ROOT / "README.md"
KEPT_BENCHMARKS = HERE / "readme_benchmarks.json"
LAW = HERE / "law"
GD_SAMPLES = LAW / "samples-gd-5.csv"
#: Largest README, kept-measurement file and samples file read (each read capped, regular files only).
READ_LIMIT = 4 * 1024 * 1024
LARGEST_PRIME = 999_999_999_999_999_989  # 10^18 - 11, the largest prime certify takes
#: The theorems of the README's sweeps (--theorems dead,slide,smooth,gd; tests/bench_sweep.py's too).
SWEEP_THEOREMS = ("dead", "slide", "smooth", "gd")


class Failure(Exception):
    """A one-line reason the script cannot go on (exit 2)."""


# ------------------------------------------------------------------------------------------------ values

@dataclass(frozen=True)
class Shown:
    """A number the README shows exactly as generated (certified digits, counts, tables, command output)."""

    text: str
    source: str


@dataclass(frozen=True)
class Measured:
    """A measured number: the README shows it rounded to the digits it chooses. ``band`` names the noise band
    (:data:`BANDS`) a re-measurement must stay within; None for a condition of the measurement (the machine's
    load), which is reported, not reproduced."""

    value: Fraction
    source: str
    band: str | None = None


#: Noise bands for ``--slow --check``: (factor, why). A re-measured figure m agrees with the README's r when
#: max(m/r, r/m) <= factor. Counts and certified values have no band: they agree exactly.
BANDS = {
    "wall": (Fraction(3), "wall time on the shared 2-core machine: a process gets a whole core at load <= 2 and "
                  "a third of one at load 6, and the figures are measured at loads from 0 to 6.4 (bench_sweep's sweep: "
                  "219 s at load 6.4, 123 s at load 1.9)"),
    "cpu": (Fraction(3, 2), "CPU seconds do not count waiting for a core; what the load still changes (shared caches, "
                 "clock) moved bench_sweep's sweep from 107 s of CPU at load 1.9 to 127 s at load 6.4 (1.19x)"),
    "ratio": (Fraction(3, 2), "a ratio of two wall times measured interleaved, so that the load hits both alike"),
    "law": (Fraction(3, 2), "seconds per law sample: one worker's wall time while another ran beside it"),
}


def shown_rounded(value: Fraction, like: str) -> str:
    """``value`` with as many significant digits as the README text ``like`` shows (but every digit before the
    point), rounded half to even on the exact value: 0.1873 like '0.19' -> '0.19', 0.0307 like '0.3' -> '0.03',
    219.3 like '65' -> '219'. A zero ``like`` counts as one digit. ValueError if ``like`` is not a plain
    decimal number."""
    if not re.fullmatch(r"-?[0-9]+(?:\.[0-9]+)?", like):
        raise ValueError(f"{like!r} is not a plain decimal number")
    significant = max(1, len(like.lstrip("-").replace(".", "").lstrip("0")))
    if value == 0:
        return "0" if "." not in like else "0." + "0" * len(like.partition(".")[2])
    leading = len(str(abs(value.numerator) // abs(value.denominator))) - 1 if abs(value) >= 1 else \
        -next(k for k in range(1, 10**6) if abs(value) * 10**k >= 1)
    decimals = max(0, significant - 1 - leading)
    scaled = round(value * 10 ** decimals)
    digits = str(abs(scaled)).rjust(decimals + 1, "0")
    sign = "-" if scaled < 0 else ""
    return sign + (digits[:-decimals] + "." + digits[-decimals:] if decimals else digits)


def agrees(value, readme_text: str, remeasured: bool) -> bool:
    """Whether the README's text for a number agrees with the generated ``value``: a Shown exactly (spaces
    aside); a Measured rounded to the README's decimals, or, re-measured (``remeasured``), within its band."""
    text = " ".join(readme_text.split())
    if isinstance(value, Shown):
        return text == " ".join(value.text.split())
    if remeasured and value.band is None:
        return True  # a condition of the measurement (the load): reported, not reproduced
    try:
        if not remeasured:
            return shown_rounded(value.value, text) == text
        factor, _ = BANDS[value.band]
        shown = Fraction(text)
    except ValueError:
        return False
    if shown == 0 or value.value == 0:
        return shown == value.value
    return max(shown / value.value, value.value / shown) <= factor


def regenerated(value, readme_text: str) -> str:
    """What the README should show: a Shown's text; a Measured rounded like the README's text (2 decimals
    when the README's is not a number)."""
    if isinstance(value, Shown):
        return value.text
    text = " ".join(readme_text.split())
    try:
        return shown_rounded(value.value, text)
    except ValueError:
        return shown_rounded(value.value, "0.00")


def _fraction(value) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


# ------------------------------------------------------------------------------------- certified values

#: The certificates the README quotes: name -> (theorem, p, parameters), each the README's command's defaults.
INSTANCES = {
    "dead-5": ("dead", 5, {}),
    "dead-13": ("dead", 13, {}),
    "dead-101": ("dead", 101, {}),
    "dead-1e18": ("dead", LARGEST_PRIME, {}),
    "slide-5": ("slide", 5, {}),
    "slide-13": ("slide", 13, {}),
    "gd-13": ("gd", 13, {"eta": 1}),
    "sensitivity-13": ("sensitivity", 13, {}),
    "staircase-5": ("staircase", 5, {}),
    "staircase-7": ("staircase", 7, {}),
    "staircase-13": ("staircase", 13, {}),
    "memorise-5": ("memorise", 5, {}),
    "memorise-7": ("memorise", 7, {}),
    "memorise-13": ("memorise", 13, {}),
    "twin-5": ("twin", 5, {}),
    "twin-13": ("twin", 13, {}),
    "twin_plus-5": ("twin_plus", 5, {}),
    "twin_plus-7": ("twin_plus", 7, {}),
    "twin_above-5": ("twin_above", 5, {}),
    "twin_above-13": ("twin_above", 13, {}),
    "twin_above-31": ("twin_above", 31, {}),
}


def _quantities(claim_id: str, stored: dict):
    """(key suffix, stored quantity) of a claim and of each of its components."""
    yield claim_id, stored
    for name, component in stored.get("components", {}).items():
        yield f"{claim_id}.{name}", component


def certified_numbers() -> dict:
    """Every certified number of :data:`INSTANCES` as the display rule shows it, keyed
    ``INSTANCE/CLAIM[.COMPONENT]`` (the value's statement) and ``.../log10`` (its log10's), plus
    ``INSTANCE/claims`` (how many claims the checker verified). Each certificate is checked first."""
    import certify
    from certify.render.numbers import display_parts

    numbers = {}
    for name, (theorem, p, parameters) in INSTANCES.items():
        certificate = certify.certify_theorem(theorem, p, **parameters)
        verdict = certificate.check()
        if not verdict:
            raise Failure(f"{name}: the checker did not verify the certificate: {verdict.message}")
        numbers[f"{name}/claims"] = Shown(str(verdict.claims_verified), f"{name}: claims the checker verified")
        for claim_id, stored in certificate.document["claims"].items():
            for key, quantity in _quantities(claim_id, stored):
                # display_parts states the value first (exact, or lo/hi), then its log10 (log10_lo/log10_hi)
                names = [key] * any(field in quantity for field in ("exact", "lo", "hi")) + \
                    [f"{key}/log10"] * any(field in quantity for field in ("log10_lo", "log10_hi"))
                for name_of_part, (_, body) in zip(names, display_parts(quantity)):
                    numbers[f"{name}/{name_of_part}"] = Shown(body, f"{name} ({theorem}, p = {p}), {key}, checked")
    return numbers


def command_numbers() -> dict:
    """The line of ``certify simulate dead --p 13`` the README quotes (hitting_time_box's), the proof library's
    primes and size, and the sweep's estimate note from the kept cost table (certify/sweep_costs.json)."""
    from certify.proofs import LIBRARY, REFERENCE_PRIMES, TESTED_COQ_PRIMES, coq_compiled_primes
    from certify.sweep import _duration, estimate_sweep, load_sweep_costs, primes_between

    numbers = {}
    result = subprocess.run([sys.executable, "-m", "certify", "simulate", "dead", "--p", "13"], capture_output=True,
                            text=True, cwd=ROOT, timeout=300)
    if result.returncode:
        raise Failure(f"certify simulate dead --p 13: exit {result.returncode}: {result.stderr.strip()[-200:]}")
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip().endswith("(hitting_time_box)")
             and "lies in" in line]
    if len(lines) != 1:
        raise Failure("certify simulate dead --p 13 printed no single 'lies in ... (hitting_time_box)' line")
    numbers["simulate/dead-13/hitting_time_box"] = Shown(lines[0].removesuffix("(hitting_time_box)").strip(),
                                                         "certify simulate dead --p 13")
    numbers["proofs/primes"] = Shown(", ".join(map(str, REFERENCE_PRIMES)), "certify.proofs.REFERENCE_PRIMES")
    numbers["proofs/files"] = Shown(str(len(LIBRARY)), "certify.proofs.LIBRARY: one per theorem and library prime")
    compiled = TESTED_COQ_PRIMES
    numbers["proofs/compiled-primes"] = Shown(", ".join(map(str, compiled[:-1])) + f" and {compiled[-1]}",
                                              "certify.proofs.TESTED_COQ_PRIMES")
    numbers["proofs/gd-route-primes"] = Shown(", ".join(str(p) for p in coq_compiled_primes("gd") if p not in compiled),
                                              "certify.proofs.coq_compiled_primes('gd') beyond TESTED_COQ_PRIMES")
    numbers["proofs/compiled-files"] = Shown(str(sum(p in coq_compiled_primes(theorem) for theorem, p in LIBRARY)),
                                             "tests/test_coq_library.py: every library file at a compiled prime")

    costs = load_sweep_costs()
    if costs is None:
        raise Failure("certify/sweep_costs.json is missing or not a cost table")
    below = primes_between(5, 10**5)
    estimate = estimate_sweep({theorem: below for theorem in SWEEP_THEOREMS}, 2, costs)
    source = "certify/sweep_costs.json through certify.sweep.estimate_sweep"
    numbers["sweep-estimate/certificates"] = Shown(str(len(below) * len(SWEEP_THEOREMS)), source)
    numbers["sweep-estimate/duration"] = Shown(_duration(estimate.seconds), source)
    numbers["sweep-count/1e4"] = Shown(str(len(primes_between(5, 10**4)) * len(SWEEP_THEOREMS)), "primes 5..10^4, x 4")
    numbers["sweep-count/1e5"] = Shown(f"{len(below) * len(SWEEP_THEOREMS):,}", "primes below 10^5, x 4")
    per_certificate = [seconds for by_p in costs["seconds_per_certificate"].values() for seconds in by_p.values()]
    numbers["sweep-costs/min-ms"] = Measured(1000 * _fraction(min(per_certificate)), "certify/sweep_costs.json")
    numbers["sweep-costs/max-ms"] = Measured(1000 * _fraction(max(per_certificate)), "certify/sweep_costs.json")
    numbers["sweep-costs/task-ms"] = Measured(1000 * _fraction(costs["task_seconds"]), "certify/sweep_costs.json")
    return numbers


# ---------------------------------------------------------------------------------------- the outcome law

def _law_table_module():
    sys.path.insert(0, str(LAW))
    try:
        import make_law_table
    finally:
        sys.path.remove(str(LAW))
    return make_law_table


def _read_text(path: Path, what: str) -> str:
    from certify.check import read_regular_file
    from certify.errors import MalformedCertificate

    try:
        return read_regular_file(path, READ_LIMIT, what=what).decode("utf-8")
    except MalformedCertificate as error:
        raise Failure(f"{path}: {error}") from None
    except UnicodeDecodeError:
        raise Failure(f"{path}: not UTF-8 text") from None


#: The README reads the gd run's samples in blocks of this many, in index order (a new user's first 40).
BLOCK = 40


def gd_samples(samples_csv: str) -> dict:
    """From the gd run's samples.csv text: ``outcomes`` (a count by outcome), ``blocks`` (multi-gate states,
    staircase or multi_gate_other, per BLOCK samples in index order), ``first_staircases`` (the staircases of
    the first block), ``samples`` and ``rises`` (every sample's loss_rises: the steps on which the loss rose)."""
    rows = sorted(csv.DictReader(io.StringIO(samples_csv)), key=lambda row: int(row["index"]))
    multi = [row["outcome"] in ("staircase", "multi_gate_other") for row in rows]
    outcomes = {}
    for row in rows:
        outcomes[row["outcome"]] = outcomes.get(row["outcome"], 0) + 1
    return {"outcomes": outcomes, "blocks": [sum(multi[i:i + BLOCK]) for i in range(0, len(rows), BLOCK)],
            "first_staircases": sum(row["outcome"] == "staircase" for row in rows[:BLOCK]), "samples": len(rows),
            "rises": [int(row["loss_rises"]) for row in rows if row["loss_rises"]]}


def hypergeometric_tail(at_least: int, drawn: int, marked: int, total: int) -> Fraction:
    """P(X >= at_least) for X the marked items among ``drawn`` drawn without replacement from ``total``, exact."""
    ways = sum(math.comb(marked, k) * math.comb(total - marked, drawn - k) for k in range(at_least, drawn + 1))
    return Fraction(ways, math.comb(total, drawn))


def law_numbers() -> dict:
    """The two law tables exactly as make_law_table.py --table prints them from the kept summaries, and the
    prose's counts and shares from the same summaries and the kept gd samples."""
    law_table = _law_table_module()
    notes = []
    summaries = law_table.load_summaries(LAW, warn=notes.append)
    if notes:
        raise Failure(notes[0])
    source = "examples/law/summary-*.json through make_law_table.py"
    numbers = {"law/outcome-table": Shown(law_table.table(summaries), source),
               "law/staircase-table": Shown(law_table.staircase_table(summaries), source)}
    by_run = {(s["dynamics"], s["p"]): s for s in summaries}
    for (dynamics, p), summary in by_run.items():
        run = f"law/{dynamics}-{p}"
        where = f"examples/law/summary-{dynamics}-{p}.json"
        samples = summary["samples"]
        numbers[f"{run}/samples"] = Shown(str(samples), where)
        for outcome, entry in summary["outcomes"].items():
            numbers[f"{run}/{outcome}"] = Shown(str(entry["count"]), where)
            numbers[f"{run}/{outcome}%"] = Measured(Fraction(100 * entry["count"], samples), where)
        stairs = summary["staircases"]
        # summaries from before the active-set rule name this reason (docs/outcome-law.md section 4)
        numbers[f"{run}/undecided-pattern-changed"] = Shown(str(summary.get("undecided_reasons", {}).get(
            "the active/kink pattern changed over the last decade", 0)), where)
        numbers[f"{run}/multi-gate"] = Shown(str(summary["outcomes"]["staircase"]["count"]
                                                 + summary["outcomes"]["multi_gate_other"]["count"]), where)
        numbers[f"{run}/k2-twins"] = Shown(str(stairs["k2_degenerate_twin"]), where)
        numbers[f"{run}/k2"] = Shown(str(stairs["k"].get("2", {}).get("count", 0)), where)
        if stairs.get("k2_twin_max_fourier"):
            numbers[f"{run}/k2-twin-mean"] = Shown(f"{stairs['k2_twin_max_fourier']['mean']:.4f}", where)
            numbers[f"{run}/k2-twin-limit"] = Shown(f"{stairs['k2_twin_max_fourier_limit']:.4f}", where)
        rows = summary["multi_gate_other"]["row_lengths"]
        if len(rows) == 1 and not summary["multi_gate_other"]["row_lengths_not_listed"]:
            numbers[f"{run}/multi-gate-other-gates"] = Shown(str(sum(map(int, next(iter(rows)).split()))), where)
    numbers["law/samples-default"] = Shown(str(law_table.SAMPLES), "make_law_table.SAMPLES")

    gd = by_run[("gd", law_table.GD_RUN[0])]
    kept = gd_samples(_read_text(GD_SAMPLES, "a samples file"))
    counts = {name: entry["count"] for name, entry in gd["outcomes"].items() if entry["count"]}
    if kept["outcomes"] != counts:  # the samples must be the run the summary summarises
        raise Failure(f"{GD_SAMPLES.name} counts {kept['outcomes']}, its summary {counts}")
    where = GD_SAMPLES.relative_to(ROOT).as_posix()
    blocks, count = kept["blocks"], kept["samples"]
    numbers["law/gd-5/blocks"] = Shown(", ".join(map(str, blocks[:-1])), where)
    numbers["law/gd-5/last-block"] = Shown(str(blocks[-1]), where)
    numbers["law/gd-5/last-block-size"] = Shown(str(count - BLOCK * (len(blocks) - 1)), where)
    numbers["law/gd-5/first-block"] = Shown(str(blocks[0]), where)
    numbers["law/gd-5/first-block-staircases"] = Shown(str(kept["first_staircases"]), where)
    numbers["law/gd-5/first-block-tail"] = Measured(hypergeometric_tail(blocks[0], BLOCK, sum(blocks), count), where)
    steps = int(float(gd["horizon"]))  # gd's horizon is its number of steps
    numbers["law/gd-5/rises-min%"] = Measured(Fraction(100 * min(kept["rises"]), steps), where)
    numbers["law/gd-5/rises-max%"] = Measured(Fraction(100 * max(kept["rises"]), steps), where)
    return numbers


# --------------------------------------------------------------------------------------- benchmark figures

def _python(*args, env=None, timeout=7200) -> str:
    """stdout of ``python ARGS`` run from the repository (one line on failure)."""
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=timeout)
    if result.returncode:
        raise Failure(f"python {' '.join(args)}: exit {result.returncode}: {result.stderr.strip()[-300:]}")
    return result.stdout


def _search(pattern: str, text: str, what: str) -> re.Match:
    match = re.search(pattern, text, re.M)
    if not match:
        raise Failure(f"{what}: its output has no line matching {pattern!r} (did the bench script change?)")
    return match


def measure_sweep() -> tuple[str, dict]:
    """tests/bench_sweep.py: the sweep 5..10^4 of four theorems on 2 jobs, the check of its folder."""
    output = _python("tests/bench_sweep.py")
    sweep = _search(r"^sweep 5\.\.10000.*\| ([0-9.]+) s: ([0-9]+) certificates.*CPU ([0-9.]+) s.*\(load ([0-9.]+)",
                    output, "bench_sweep")
    check = _search(r"^check of that folder.*\| ([0-9.]+) s .*CPU ([0-9.]+) s", output, "bench_sweep")
    return output, {"wall-seconds": sweep[1], "certificates": sweep[2], "cpu-seconds": sweep[3], "load": sweep[4],
                    "check-wall-seconds": check[1], "check-cpu-seconds": check[2]}


def measure_coq() -> tuple[str, dict]:
    """tests/bench_coq.py: coqc's time for every Coq file of the proof library, one at a time."""
    output = _python("tests/bench_coq.py")
    times = [float(m[1]) for m in re.finditer(r"^\S+\.v\s+([0-9.]+)\s", output, re.M)]
    total = _search(r"^total ([0-9.]+) s, .*, ([0-9]+) rejected", output, "bench_coq")
    if not times or total[2] != "0":
        raise Failure("bench_coq: no file timed, or coqc rejected a file")
    return output, {"files": str(len(times)), "min-seconds": str(min(times)), "max-seconds": str(max(times)),
                    "total-seconds": total[1]}


def measure_region() -> tuple[str, dict]:
    """tests/bench_region_table.py: the region claim's time by theorem over p = 5 ... 1000003, the purity
    bound's at p = 13."""
    output = _python("tests/bench_region_table.py")
    figures = {}
    for theorem in ("dead", "slide", "smooth", "gd"):
        ms = [float(m[1]) for m in re.finditer(rf"^\s*{theorem}\s+[0-9]+\s+\S+\s+\S+\s+([0-9.]+)$", output, re.M)]
        if not ms:
            raise Failure(f"bench_region_table: no region time of {theorem}")
        figures[f"{theorem}-min-ms"], figures[f"{theorem}-max-ms"] = str(min(ms)), str(max(ms))
    figures["purity-13-ms"] = _search(r"^\s*13\s+\S+\s+([0-9.]+)$", output, "bench_region_table")[1]
    return output, figures


def measure_purity() -> tuple[str, dict]:
    """The purity bound of dead's region (delta = 1/100, memos emptied first: tests/bench_region_table.py's
    forget_region_bounds) at every prime <= 47, at 53, 101, 1009, 1000003 and at 10^18 - 11, one call each."""
    script = (
        "import sys, time; sys.path.insert(0, 'tests')\n"
        "from bench_region_table import forget_region_bounds\n"
        "from flint import fmpq\n"
        "from certify.kernel.region_purity import dead_region_purity_log10_probability_lower as bound\n"
        "from certify.sweep import primes_between\n"
        f"for p in primes_between(5, 47) + [53, 101, 1009, 1000003, {LARGEST_PRIME}]:\n"
        "    forget_region_bounds(); start = time.perf_counter(); bound(p, fmpq(1, 100), 64)\n"
        "    print(f'purity p = {p}: {time.perf_counter() - start:.4f} s')\n")
    output = _python("-c", script)
    seconds = {int(m[1]): float(m[2]) for m in re.finditer(r"^purity p = ([0-9]+): ([0-9.]+) s$", output, re.M)}
    small = [s for p, s in seconds.items() if p <= 47]
    above = [s for p, s in seconds.items() if 47 < p < LARGEST_PRIME]
    return output, {"small-max-seconds": str(max(small)), "above-min-seconds": str(min(above)),
                    "above-max-seconds": str(max(above)), "largest-seconds": str(seconds[LARGEST_PRIME])}


#: Runs ``certify dead --p 13`` from a copy of the package that has no bytecode: the editable install's finder
#: (which would import the checkout's package, whose bytecode is cached) is taken off sys.meta_path first.
_COLD_DEAD = ("import runpy, sys\n"
              "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]\n"
              "sys.argv = ['certify', 'dead', '--p', '13']\n"
              "runpy.run_module('certify', run_name='__main__', alter_sys=True)\n")


def measure_process() -> tuple[str, dict]:
    """``certify dead --p 13`` as a whole process, with certify's bytecode cached and without (a copy of the
    package with none, first on PYTHONPATH, written nowhere), against the floor (python importing
    python-flint): medians of 15 interleaved runs, and the load while they ran."""
    import shutil

    times = {"floor": [], "cached": [], "cold": []}
    loads = []
    with tempfile.TemporaryDirectory() as copy:
        shutil.copytree(ROOT / "certify", Path(copy) / "certify", ignore=shutil.ignore_patterns("__pycache__"))
        cold = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=copy)
        runs = {"floor": (["-c", "import flint"], None), "cached": (["-m", "certify", "dead", "--p", "13"], None),
                "cold": (["-c", _COLD_DEAD], cold)}
        imported = subprocess.run([sys.executable, "-c", _COLD_DEAD.replace("runpy.run_module", "print(__import__"
                                   "('certify').__file__) or runpy.run_module")], capture_output=True, text=True,
                                  env=cold, cwd=copy).stdout
        if not imported.startswith(copy):
            raise Failure(f"the cold run imported certify from {imported.splitlines()[:1]}, not the copy")
        for _ in range(15):
            loads.append(os.getloadavg()[0])
            for name, (args, env) in runs.items():
                start = time.perf_counter()
                subprocess.run([sys.executable, *args], capture_output=True, check=True, cwd=ROOT, env=env)
                times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(record) for name, record in times.items()}
    output = "\n".join(f"{name}: median {medians[name]:.4f} s of {len(record)}" for name, record in times.items())
    output += f"\nload (1 min) from {min(loads):.1f} to {max(loads):.1f}"
    return output, {"floor-seconds": f"{medians['floor']:.4f}", "cold-seconds": f"{medians['cold']:.4f}",
                    "cached-seconds": f"{medians['cached']:.4f}", "load-min": f"{min(loads):.1f}",
                    "load-max": f"{max(loads):.1f}"}


def measure_check_cost() -> tuple[str, dict]:
    """What a command pays to check the certificate it just built: one ``check_bytes`` right after building
    dead and smooth at p = 13 in a fresh process (the kernel's memos as the command leaves them); medians of 7
    processes."""
    script = ("import sys, time, certify\n"
              "from certify.check import check_bytes\n"
              "data = getattr(certify, sys.argv[1])(p=13).to_json().encode()\n"
              "start = time.perf_counter(); verdict = check_bytes(data)\n"
              "assert verdict.exit_code == 0, verdict.line()\n"
              "print(f'{time.perf_counter() - start:.5f}')\n")
    figures, lines = {}, []
    for name in ("dead", "smooth"):
        seconds = [float(_python("-c", script, name)) for _ in range(7)]
        figures[f"{name}-seconds"] = f"{statistics.median(seconds):.5f}"
        lines.append(f"{name}-13 check after building it: " + ", ".join(f"{s:.5f}" for s in seconds) + " s")
    return "\n".join(lines), figures


def measure_check_worst() -> tuple[str, dict]:
    """tests/bench_check_worst.py: the slowest check of any admissible input we could construct."""
    output = _python("tests/bench_check_worst.py")
    return output, {"seconds": _search(r"^worst check: ([0-9.]+) s", output, "bench_check_worst")[1]}


def measure_sensitivity_plot() -> tuple[str, dict]:
    """``certify sensitivity --p 13 --plot FILE`` as a whole process (the float GD experiment), once."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        _python("-m", "certify", "sensitivity", "--p", "13", "--out", f"{folder}/s.json", "--plot", f"{folder}/s.png")
        seconds = time.perf_counter() - start
    return f"certify sensitivity --p 13 --plot: {seconds:.1f} s", {"seconds": f"{seconds:.2f}"}


def measure_tests() -> tuple[str, dict]:
    """How many tests pytest collects (the suite's size beside its time)."""
    output = _python("-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
    return output.strip().splitlines()[-1], {"count": _search(r"^([0-9]+) tests? collected", output, "pytest")[1]}


def law_seconds(runs: Path) -> tuple[str, dict]:
    """Seconds per sample of the flow runs in ``runs`` (make_law_table.py's runs/law/flow-P/samples.csv):
    mean and median by p, and the largest of all."""
    figures, largest, lines = {}, 0.0, []
    for folder in sorted(runs.glob("flow-*"), key=lambda f: int(f.name.split("-")[1])):
        rows = csv.DictReader(io.StringIO(_read_text(folder / "samples.csv", "a samples file")))
        seconds = [float(row["seconds"]) for row in rows if row.get("seconds")]
        p = folder.name.split("-")[1]
        figures[f"{p}-mean"], figures[f"{p}-median"] = f"{statistics.mean(seconds):.4f}", \
            f"{statistics.median(seconds):.4f}"
        largest = max(largest, *seconds)
        lines.append(f"p = {p}: {len(seconds)} samples, mean {figures[f'{p}-mean']} s, "
                     f"median {figures[f'{p}-median']} s")
    figures["max"] = f"{largest:.4f}"
    return "\n".join(lines), figures


def measure_law() -> tuple[str, dict]:
    """Run the outcome law again (make_law_table.py: every run, resumable; about a day) and time its samples."""
    _python(str(LAW / "make_law_table.py"), "--jobs", "2", timeout=7 * 24 * 3600)
    return law_seconds(ROOT / "runs" / "law")


#: How each kept run is measured again: name -> (function, with --all only).
MEASURERS = {
    "sweep": (measure_sweep, False),
    "coq": (measure_coq, False),
    "region": (measure_region, False),
    "purity": (measure_purity, False),
    "process": (measure_process, False),
    "check-cost": (measure_check_cost, False),
    "check-worst": (measure_check_worst, False),
    "sensitivity-plot": (measure_sensitivity_plot, False),
    "tests": (measure_tests, False),
    "law-seconds": (measure_law, True),
}


def read_kept(path: Path = KEPT_BENCHMARKS) -> dict:
    """The kept measurements: {"runs": {name: {"command", "measured", "load", "output", "figures": {...}}}}."""
    try:
        kept = json.loads(_read_text(path, "a kept measurement file"))
        runs = kept["runs"]
        ok = isinstance(runs, dict) and all(isinstance(run.get("figures"), dict) for run in runs.values())
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        ok = False
    if not ok:
        raise Failure(f"{path}: not a kept measurement file (runs, each with its figures)")
    return kept


def remeasure(kept: dict, runs: list, say) -> dict:
    """``kept`` with the named runs of :data:`MEASURERS` measured again now."""
    from certify import __version__

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    kept_runs = dict(kept["runs"])
    for name in runs:
        measure = MEASURERS[name][0]
        say(f"measuring {name} ({(measure.__doc__ or '').splitlines()[0]})")
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        output, figures = measure()
        kept_runs[name] = {"command": (measure.__doc__ or "").splitlines()[0], "measured": time.strftime("%Y-%m-%d"),
                           "commit": commit.stdout.strip(), "certify": __version__, "load before": load,
                           "output": output.splitlines(),
                           "figures": {key: str(value) for key, value in figures.items()}}
    return {**kept, "runs": kept_runs}


def benchmark_numbers(kept: dict) -> dict:
    """The README's benchmark figures from the kept (or just re-measured) runs, keyed ``bench/RUN/FIGURE``,
    with what is derived from them (rates, estimates)."""
    numbers = {}

    def figure(run: str, name: str) -> Fraction:
        try:
            return Fraction(kept["runs"][run]["figures"][name])
        except (KeyError, ValueError, TypeError):
            raise Failure(f"the kept measurements: run {run!r} has no figure {name!r}") from None

    def add(key: str, value: Fraction, band: str | None, run: str) -> None:
        numbers[f"bench/{key}"] = Measured(value, f"{KEPT_BENCHMARKS.name}, run {run}", band)

    for run, names in (("sweep", ("wall-seconds", "cpu-seconds", "check-wall-seconds", "check-cpu-seconds")),
                       ("coq", ("min-seconds", "max-seconds", "total-seconds")),
                       ("purity", ("small-max-seconds", "above-min-seconds", "above-max-seconds", "largest-seconds")),
                       ("check-worst", ("seconds",)), ("sensitivity-plot", ("seconds",)),
                       ("process", ("floor-seconds", "cold-seconds", "cached-seconds"))):
        for name in names:
            add(f"{run}/{name}", figure(run, name), "wall", run)
    for theorem in ("dead", "slide", "smooth", "gd"):
        for end in ("min", "max"):
            add(f"region/{theorem}-{end}-ms", figure("region", f"{theorem}-{end}-ms"), "wall", "region")
    add("region/purity-13-ms", figure("region", "purity-13-ms"), "wall", "region")
    add("sweep/load", figure("sweep", "load"), None, "sweep")
    add("process/load-min", figure("process", "load-min"), None, "process")
    add("process/load-max", figure("process", "load-max"), None, "process")
    add("process/cold-ratio", figure("process", "cold-seconds") / figure("process", "floor-seconds"), "ratio",
        "process")
    add("process/cached-ratio", figure("process", "cached-seconds") / figure("process", "floor-seconds"), "ratio",
        "process")
    add("check-cost/dead-ms", 1000 * figure("check-cost", "dead-seconds"), "wall", "check-cost")
    add("check-cost/smooth-seconds", figure("check-cost", "smooth-seconds"), "wall", "check-cost")
    for band, (factor, why) in BANDS.items():
        numbers[f"bands/{band}"] = Shown(f"{float(factor):g}", f"BANDS[{band!r}]: {why}")
    numbers["bench/coq/files"] = Shown(str(figure("coq", "files")), f"{KEPT_BENCHMARKS.name}, run coq")
    numbers["bench/tests/count"] = Shown(str(figure("tests", "count")), f"{KEPT_BENCHMARKS.name}, run tests")

    # the sweep's rate: CPU seconds a certificate, and what it gives on two free cores (the CPU shared by two)
    from certify.sweep import primes_between

    per_certificate = figure("sweep", "cpu-seconds") / figure("sweep", "certificates")
    add("sweep/cpu-ms-per-certificate", 1000 * per_certificate, "cpu", "sweep")
    add("sweep/free-cores-seconds-1e4", figure("sweep", "cpu-seconds") / 2, "cpu", "sweep")
    below = len(SWEEP_THEOREMS) * len(primes_between(5, 10**5))
    add("sweep/free-cores-minutes-1e5", per_certificate * below / 2 / 60, "cpu", "sweep")

    # the law's seconds per sample (one worker) and what they give on two workers
    for p in _law_table_module().FLOW_PRIMES:
        for statistic in ("mean", "median"):
            add(f"law-seconds/{p}-{statistic}", figure("law-seconds", f"{p}-{statistic}"), "law", "law-seconds")
    add("law-seconds/max", figure("law-seconds", "max"), "law", "law-seconds")
    add("law-seconds/13-200-minutes", figure("law-seconds", "13-mean") * 200 / 2 / 60, "law", "law-seconds")
    add("law-seconds/31-100-minutes", figure("law-seconds", "31-mean") * 100 / 2 / 60, "law", "law-seconds")
    # the README's +/- 3 points (make_law_table.SAMPLES samples) at p = 31 on a 32-worker cluster, and the whole
    # table (every flow prime) on the 2-core machine, from the same means
    samples = _law_table_module().SAMPLES
    add("law-seconds/31-table-32-minutes", figure("law-seconds", "31-mean") * samples / 32 / 60, "law", "law-seconds")
    table_seconds = sum(figure("law-seconds", f"{p}-mean") for p in _law_table_module().FLOW_PRIMES) * samples
    add("law-seconds/table-2-hours", table_seconds / 2 / 3600, "law", "law-seconds")

    # kept from before the region claims (the code of that time; not measured again)
    for name in ("largest-min-seconds", "largest-max-seconds", "below-1e5-seconds"):
        add(f"before-region/{name}", figure("before-region", name), "wall", "before-region")
    return numbers


# ------------------------------------------------------------------------------------ where they stand

#: The README text around each generated number, ``{key}`` where it stands (whitespace matches any
#: whitespace, so line breaks do not matter). Each anchor must occur exactly once in the README.
ANCHORS = (
    # certified values (the display rule's body; the words say which relation)
    "At p = 13: (S.10) margin >= {staircase-13/loss_margin_box}, 1 - max_zeta F_zeta(theta(t)) >= "
    "{staircase-13/purity_margin_box} for all t,\nP(region | active) >= {staircase-13/region_probability/log10} (docs",
    "the staircase box's region bound is {staircase-5/region_probability/log10} at p = 5, where",
    "`whole_region_probability`: the whole region's probability is at least "
    "{staircase-5/whole_region_probability/log10} at p = 5 and "
    "{staircase-7/whole_region_probability/log10} at p = 7, within a factor 10",
    "margins, the loss excess b <= {twin-13/loss_excess_box} and the window 2 - Phi >= "
    "{twin-13/window_box.force_budget} of (S.27), the cone",
    "by the certified capture time ({twin-13/capture_time_box} at p = 13) and slides there for ever, with 1 - "
    "max_zeta F_zeta(theta(t)) >=\n{twin-13/purity_margin_box} for all t; P(region | active) >= "
    "{twin-13/region_probability/log10} at p = 13 (Theorem S's box gives {staircase-13/region_probability/log10} "
    "there; {twin-5/region_probability/log10}\nagainst {staircase-5/region_probability/log10} at p = 5),",
    "window beta - b >=\n{twin_plus-5/window_box} and the four margins of (S.34)",
    "before the certified capture time ({twin_plus-5/capture_time_box} at p = 5) and slides there for ever, with\n"
    "1 - max_zeta F_zeta(theta(t)) >= {twin_plus-5/purity_margin_box} for all t; P(region | active) >= "
    "{twin_plus-5/region_probability/log10} at p = 5, where `certify twin`\ngives "
    "{twin-5/region_probability/log10}, and {twin_plus-7/region_probability/log10} at p = 7;",
    "the loss excess b0 <= {twin_above-5/loss_excess_box}\nand the six margins of (S.36)",
    "before the certified capture time ({twin_above-5/capture_time_box} at p = 5) and slides there for ever, with\n"
    "1 - max_zeta F_zeta(theta(t)) >= {twin_above-5/purity_margin_box} for all t; P(region | active) >=\n"
    "{twin_above-5/region_probability/log10} at p = 5, {twin_above-13/region_probability/log10} at p = 13 and\n"
    "{twin_above-31/region_probability/log10} at p = 31,",
    "(S1.1) margin >= {memorise-13/loss_margin_box}, 1 - max_zeta F_zeta(theta(t)) >= "
    "{memorise-13/purity_margin_box} for all t, P(region | active) >=\n{memorise-13/region_probability/log10}, "
    "where `certify slide`'s bound of its whole region is {slide-13/region_probability/log10}: for",
    "P(region | active) >= {memorise-5/whole_region_probability/log10} at p = 5 and "
    "{memorise-7/whole_region_probability/log10} at p = 7, within",
    "region_s1_whole.py 5 7`), and {memorise-13/whole_region_probability/log10} at p = 13, where its box gives\n"
    "{memorise-13/region_probability/log10}. This claim",
    "The capture time is astronomically large ({slide-13/capture_time/log10} for p = 13)",
    "at p = 13 the dead box has {dead-13/gaussian_probability/log10} and the dead region "
    "{dead-13/region_probability/log10}. `certify dead` also bounds",
    "p = 13, {dead-13/claims} claims verified (...)>",
    "(a probability like `{dead-1e18/gaussian_probability}` at p near 10^18)",
    "(`{simulate/dead-13/hitting_time_box}`); on a terminal",
    "(at the slide base point the captures come at t = {slide-5/capture_time/log10} at p = 5, while",
    "neighbourhood of the paper's point ({dead-13/gaussian_probability/log10} at p = 13); the region probability is "
    "what a randomly initialised neuron does: {dead-5/region_probability/log10} at p = 5, "
    "{dead-13/region_probability/log10} at p = 13, {dead-101/region_probability/log10} at p = 101 (a Jensen",
    "P(R_dead and max_zeta F_zeta <= 0.99 | active) >= {dead-5/region_purity_probability.purity_margin/log10} at "
    "p = 5 and {dead-13/region_purity_probability.purity_margin/log10} at p = 13 (docs/purity-tube.md",
    "over (A.14) ({slide-13/region_probability/log10} at p = 13, against the box's "
    "{slide-13/gaussian_probability/log10}) |",
    "(a cone: the same for every sigma; {gd-13/region_probability/log10} at p = 13, eta = 1) |",
    "At p = 13: grad T = ({sensitivity-13/hitting_time_gradient.s}, {sensitivity-13/hitting_time_gradient.a}, "
    "{sensitivity-13/hitting_time_gradient.b}), ds/dt(T-) = {sensitivity-13/event_speed}, gap "
    "{sensitivity-13/sensitivity_gap}; `--plot`",
    "(its s row is ({sensitivity-13/regional_derivative.s_s}, {sensitivity-13/regional_derivative.s_a}, "
    "{sensitivity-13/regional_derivative.s_b}) at p = 13)",
    "is a certified rank-one matrix of norm {sensitivity-13/sensitivity_gap} that no step size removes",
    # the proof library, the sweep's cost table and its estimate
    "`proofs/` holds, for p in {proofs/primes}, the certificate of every theorem",
    "regenerate every Coq file byte for byte and compile the {proofs/compiled-files} of the primes "
    "{proofs/compiled-primes} with coqc (every theorem at each of its library primes among them, and gd at "
    "{proofs/gd-route-primes} too, so that each route of its region lemmas is compiled; all {proofs/files} with",
    "(`note: {sweep-estimate/certificates} certificates to make or compare on 2 worker(s): about "
    "{sweep-estimate/duration} (...)` for all primes below 10^5)",
    "(certify/sweep_costs.json: {sweep-costs/min-ms}-{sweep-costs/max-ms} ms a certificate by theorem and p, "
    "{sweep-costs/task-ms} ms a Dask task)",
    # benchmark figures (kept in examples/readme_benchmarks.json)
    "--jobs 2 --out sweep   # ~{bench/sweep/free-cores-seconds-1e4} s on 2 free cores (below)",
    "the check costs {bench/check-cost/dead-ms} ms for dead at p = 13, {bench/check-cost/smooth-seconds} s for smooth)",
    "Measured (`python tests/bench_sweep.py`, the 2-core machine at load {bench/sweep/load}): the sweep of 5..10^4 "
    "above, {sweep-count/1e4} certificates, {bench/sweep/wall-seconds} s of wall time and {bench/sweep/cpu-seconds} "
    "s of CPU ({bench/sweep/cpu-ms-per-certificate} ms a certificate, so about {bench/sweep/free-cores-seconds-1e4} "
    "s on two free cores); `certify check sweep --jobs 2` {bench/sweep/check-wall-seconds} s and "
    "{bench/sweep/check-cpu-seconds} s of CPU; all primes below 10^5 ({sweep-count/1e5} certificates) about "
    "{bench/sweep/free-cores-minutes-1e5} minutes on two free cores (estimated, not run).",
    "# also the float GD experiment (about {bench/sensitivity-plot/seconds} s)",
    "coqc takes {bench/coq/min-seconds}-{bench/coq/max-seconds} s per file (p <= 101) and "
    "{bench/coq/total-seconds} s for the {bench/coq/files} files of the library, one at a time.",
    "the slowest we could construct (`python tests/bench_check_worst.py`) takes {bench/check-worst/seconds} s.",
    "(nineteen to twenty-four minutes on two cores, {bench/tests/count} tests:",
    "2-core machine: `certify dead --p 13` {bench/process/cold-seconds} s as a whole process at load "
    "{bench/process/load-min}-{bench/process/load-max} ({bench/process/cold-ratio} times python importing "
    "python-flint, {bench/process/floor-seconds} s; {bench/process/cached-seconds} s, {bench/process/cached-ratio} "
    "times, with bytecode cached; the purity tube {bench/region/purity-13-ms} ms); the region claims "
    "{bench/region/dead-min-ms}-{bench/region/dead-max-ms} ms (dead), {bench/region/slide-min-ms}-"
    "{bench/region/slide-max-ms} ms (slide), {bench/region/gd-min-ms}-{bench/region/gd-max-ms} ms (gd) and "
    "{bench/region/smooth-min-ms}-{bench/region/smooth-max-ms} ms (smooth, with J(eps)) for p = 5 ... 1000003; "
    "the purity bound {bench/purity/small-max-seconds} s for p <= 47, {bench/purity/above-min-seconds}-"
    "{bench/purity/above-max-seconds} s above, {bench/purity/largest-seconds} s at p = 10^18 - 11. (Before the "
    "region claims: every theorem at p = 10^18 - 11 in {bench/before-region/largest-min-seconds}-"
    "{bench/before-region/largest-max-seconds} s, and all primes below 10^5 for all four theorems, "
    "{sweep-count/1e5} certificates, in {bench/before-region/below-1e5-seconds} s; with them "
    "{bench/sweep/cpu-ms-per-certificate} ms of CPU a certificate, about {bench/sweep/free-cores-minutes-1e5} "
    "minutes on two free cores.)",
    # the noise bands of --slow --check (BANDS)
    "with `--check` a figure agrees within a factor of {bands/wall} for wall times and {bands/cpu} for CPU seconds "
    "and ratios",
    # the outcome law (examples/law/)
    "The flow has {law/flow-13/samples} samples at p <= 13",
    "Undecided: {law/flow-5/undecided%}%, {law/flow-7/undecided%}%, {law/flow-11/undecided%}% and "
    "{law/flow-13/undecided%}% at p = 5, 7, 11 and 13, and {law/flow-17/undecided%}%, {law/flow-19/undecided%}%, "
    "{law/flow-23/undecided%}%, {law/flow-29/undecided%}% and {law/flow-31/undecided%}% at p = 17, 19, 23, 29 "
    "and 31.",
    "samples of the kind \"the active/kink pattern changed\" ({law/flow-5/undecided-pattern-changed}, "
    "{law/flow-7/undecided-pattern-changed}, {law/flow-11/undecided-pattern-changed} and "
    "{law/flow-13/undecided-pattern-changed} at p = 5, 7, 11 and 13)",
    "seconds below): {law/flow-19/samples} at p = 19, {law/flow-23/samples} at p = 23, {law/flow-29/samples} at "
    "p = 29 and {law/flow-31/samples} at p = 31.",
    "staircases are {law/flow-5/staircase%}% at p = 5 and {law/flow-7/staircase%}% at p = 7,",
    "memorises far more often than the flow ({law/gd-5/memorises_one_entry%}% against "
    "{law/flow-5/memorises_one_entry%}%).",
    "Seconds per sample (a core per sample, loaded machine; mean / median): p = 5: {bench/law-seconds/5-mean} / "
    "{bench/law-seconds/5-median}, 7: {bench/law-seconds/7-mean} / {bench/law-seconds/7-median}, 11: "
    "{bench/law-seconds/11-mean} / {bench/law-seconds/11-median}, 13: {bench/law-seconds/13-mean} / "
    "{bench/law-seconds/13-median}, 17: {bench/law-seconds/17-mean} / {bench/law-seconds/17-median}, 19: "
    "{bench/law-seconds/19-mean} / {bench/law-seconds/19-median}, 23: {bench/law-seconds/23-mean} / "
    "{bench/law-seconds/23-median}, 29: {bench/law-seconds/29-mean} / {bench/law-seconds/29-median}, 31: "
    "{bench/law-seconds/31-mean} / {bench/law-seconds/31-median}. The",
    "(up to {bench/law-seconds/max} s). So p = 13 with 200 samples takes about "
    "{bench/law-seconds/13-200-minutes} minutes on two workers, and p = 31 with 100 samples takes about "
    "{bench/law-seconds/31-100-minutes} minutes ({bench/law-seconds/31-mean} s a sample on each of two workers).",
    "section 6) against (S.19), at {law/flow-5/k2-twin-mean} against {law/flow-5/k2-twin-limit} at p = 5. "
    "The twins are {law/flow-5/k2-twins} "
    "of the {law/flow-5/k2} (1, 2) staircases at p = 5.",
    "chattering on its kink ({law/gd-5/k2-twins} twins)",
    "the clean run gives the same counts ({law/gd-5/dead} dead, {law/gd-5/memorises_one_entry} memorised, "
    "{law/gd-5/undecided} undecided, {law/gd-5/multi-gate} multi-gate) and splits the multi-gate states into "
    "{law/gd-5/staircase} staircases and one `multi_gate_other` (all {law/gd-5/multi-gate-other-gates} gates active).",
    "is these same samples 0-39 ({law/gd-5/first-block-staircases} staircases here too). The blocks of 40 samples "
    "hold {law/gd-5/blocks} and "
    "(the last {law/gd-5/last-block-size}) {law/gd-5/last-block} multi-gate states, so the first block is a "
    "fluctuation of the sample (P({law/gd-5/first-block} or more of the first 40 | {law/gd-5/multi-gate} of "
    "{law/gd-5/samples}) = {law/gd-5/first-block-tail}),",
    "(at eta = 1 its loss rises on {law/gd-5/rises-min%}-{law/gd-5/rises-max%}% of steps;",
    "copies the summaries here; {law/samples-default} samples at every prime would take about "
    "{bench/law-seconds/table-2-hours} hours of this machine (two workers), and at p = 31 about "
    "{bench/law-seconds/31-table-32-minutes} minutes on a 32-worker Dask cluster",
    "(regime II: the fourth gate on its kink; {law/flow-5/k2-twins} of {law/flow-5/k2} at p = 5)",
)

#: Whole blocks the README prints from a generator: key -> the first characters of the block's first line.
#: The block is that line and every following line that starts the same way ("|": a Markdown table).
BLOCKS = {
    "law/outcome-table": "| dynamics | p | n | dead |",
    "law/staircase-table": "| dynamics | p | (n, k) |",
}

_PLACEHOLDER = re.compile(r"\{([a-z0-9][a-z0-9_./%-]*)\}")


def anchor_pattern(anchor: str) -> re.Pattern:
    """The regular expression of an anchor: its words literally (any whitespace for whitespace), each
    ``{key}`` a group that takes the shortest text (up to 400 characters, no blank line) that lets the
    words after it match."""
    pattern, position = [], 0
    for match in _PLACEHOLDER.finditer(anchor):
        pattern.append(_literal(anchor[position:match.start()]))
        pattern.append(r"(\S(?:(?!\n\s*\n)[\s\S]){0,400}?)")
        position = match.end()
    pattern.append(_literal(anchor[position:]))
    return re.compile("".join(pattern))


def _literal(text: str) -> str:
    return r"\s+".join(re.escape(word) for word in re.split(r"\s+", text)) if text.strip() else (
        r"\s+" if text else "")


# -------------------------------------------------------------------------------------- what is allowed

#: Numeric tokens of the README that are neither certified values, benchmark figures nor law-table entries,
#: by why: (why, regular expression). A digit inside a match is covered. Anything else that looks like a
#: number and no anchor covers is listed by --check. Numbers inside an anchor's own words are not covered by
#: the anchor: they must be allowed here too.
ALLOWED = (
    ("the Monte Carlo comparison of Proposition S1.8's bound: measured by examples/staircase/region_s1_whole.py "
     "(seed 1, 2 10^7 and 2 10^8 draws) and tabled with its standard errors in docs/staircase.md section 10.7",
     r"within a factor 2\.7 and 4\.2 of its Monte Carlo"),
    ("the importance-sampling estimates of U_stair's mass beside the certified whole-region bound: printed by "
     "examples/staircase/region_stair_mc.py and tabled in docs/staircase.md sections 11.15-11.16 (estimates, not "
     "certified values); the factor is the issue's target; the seconds are measured in docs/staircase.md section "
     "11.16's table",
     r"within a factor 10|\(about 10\^-30\.53 and 10\^-77\.42, by importance sampling\)|"
     r"about 0\.7 to 0\.8 s at p = 5 and 0\.8 s at p = 7"),
    ("code: commands, inputs and formulas in code spans and indented code (a fenced block's # comments are prose "
     "and are checked, but a string argument in them is code; see allowed_spans)",
     r"`[^`\n]+`|^    .*$|(?<==)\"[^\"\s]+\""),
    ("identifiers and file names (dead-13.json, log10_lo, I_3p, certify/1, tcp://host:8786)",
     r"(?<!\w)[A-Za-z_]\w*(?:[-./:']\w+)*"),
    ("command-line options and their values (--p 13, --samples N, --jobs 1)",
     r"(?<!\w)--?[a-z][\w-]*(?: [0-9][^\s,;)]*)?"),
    ("equations, sections and results of the papers ((A.58), (2.2)-(2.4), section A.6, Theorem 1.5, 1.5's)",
     r"\((?:[AS]\.)?[0-9]+(?:\.[0-9]+)?\)|\b[AS]\.[0-9]+\b"
     r"|\b(?:[Ss]ections?|Theorem|Lemma|Remark|Proposition|section) [AS]?\.?[0-9]+(?:\.[0-9]+)?(?:'s)?"
     r"|\b(?:Theorem|section) [0-9](?:\.[0-9])?'s"),
    ("the primes and parameters of an example (p = 13, p <= 101, p = 5, 7 and 13, p = 10^18 - 11, eta = 1)",
     r"\b(?:p|n|eta|sigma|delta|horizon|T|t)\s*(?:=|<=|>=)\s*(?:10\^[0-9]+(?: [-+] [0-9]+)?|[0-9][0-9./]*)"
     r"(?:(?:, | and |\.\.| \.\.\. |, \.\.\. )(?:10\^[0-9]+|[0-9]+))*|seed 1\b|prime >= 5|p = 17\.\.31"),
    ("formulas of the papers (2/(p-1), (p-1)/2, k(k+1)/2, p^3, gamma_y^2, C(2p,p) - 1, 1 - lo, u(0), "
     "N(0, sigma^2 I_3p)); an arithmetic expression counts only if it has a variable or a parenthesis",
     r"[0-9]*\(?[0-9]*[A-Za-z_]?\(?[A-Za-z_0-9]*\s?[-+*/^]\s?\(?[0-9A-Za-z_]+\)*(?:\s?[-+*/^]\s?\(?[0-9A-Za-z_]+\)*)*",
     r"[A-Za-z_(]"),
    ("small constants in formulas and relations (lo > 0, hi < 1, s = 0, (0,0), 2 log 2, 3p) and powers of ten "
     "that set a scale (below 10^5, 10^8)",
     r"(?<=[\w'])\([0-9]+[,)]|\([0-9], ?[0-9]\)|[0-9] log 2|10\^(?:log10_lo|[3-8]|18)\b"
     r"|(?:=|<=|>=|<|>|!=)\s*-?[0-9](?![0-9]|\.[0-9])|reaches 0\b|\b[0-9] - (?:lo|delta)\b|C\(2p,p\) - 1"
     r"|[0-9]p\b|[0-9]p-\w+|2/\(\(p - 1\) rho\)|sqrt\(2 \(1 \+ cos\(2 pi/p\)\)/\(p - 2\)\)"),
    ("staircase shapes (n, k) of the law's classification", r"\([0-9]+, [0-9]+\)"),
    ("exit codes", r"\*\*[0-2]\*\*|[Ee]xit [0-2]\b|\b[0-2],? (?:rejected|malformed|verified)\b|exit code is 1"
                   r"|\b2\s+malformed"),
    ("limits, defaults and constants of the code, not measurements (at most 100 digits, 64..512, 99% of the "
     "largest radius, 1 MiB, Wilson 95% intervals, at 50 digits, default 5 s, the widened box's TAIL_DEPTH)",
     r"at most (?:100|200|60)\s+(?:digits|characters)|64\.\.512|[0-9]+ bits|99% of the largest|1 [MG]iB"
     r"|Wilson 95%|95% intervals|at 50 digits|default 5 s|default 1/100|default 1\b|\(defaults 1, 2, 1\)"
     r"|radius 0\b|exactly [01]\b|the difference is 0|the gradient is 0|on 32 workers|2 free cores"
     r"|wider than 1 pt|with (?:200|100)\s+samples|of 5\.\.10\^4|and 1\.3(?=\s+`gd_P_eta_1p3)"
     r"|4 sigma below the box"),
    ("version numbers", r"Coq 8\.16|CoqInterval 4\.6"),
    ("a property of binary floats (0.1 is not 1/10)",
     r"3602879701896397/2\^55 =\s+0\.1000000000000000055511151231257827021181583404541015625|float 0\.1"
     r"|is 1/2 \(0\.5 is a"),
    ("quoted from outside the project: another user's count and an independent simulation",
     r"\"31 multi-gate of the first 40\"|n = 436\) found dead 0\.92%\s+\[0\.36%, 2\.3%\], one entry "
     r"memorised 0\.92%, single-frequency 0 \[0, 0\.87%\], the rest multi-gate\s+states with max F between 0\.58 "
     r"and 0\.88 unchanged from t = 10\^4 to 10\^6"),
    ("observations of docs/outcome-law.md and docs/staircase.md from runs not kept here (python "
     "examples/staircase/entrance.py LAW_DIR on a p = 5 flow folder; the horizon study of docs/outcome-law.md)",
     r"after 3\.2 10\^6 up to p = 31|frozen to 16 digits|between 10\^7 and 10\^8|\(18 of 18 at\s+p = 5, by t = "
     r"3\.2 10\^3|tested to\s+p = 10\^6 \+ 3|within 0\.7% of the exact value|matches \(S\.17\) to 4 digits"),
    ("an example of the staircase definition (docs/outcome-law.md section 4)",
     r"rows 0, 1, 4 and columns 0, 4, 1 carry exactly the labels 0, 1,\s+4"),
    ("the README's examples of inputs the checker refuses", r"log10_lo = -33\.74"),
    ("the margin 1 - delta for the default delta = 1/100", r"F_zeta <= 0\.99"),
    ("the GD experiment's step sizes (a choice of the experiment)", r"eta = 1e-1, 1e-2, 1e-3"),
    ("the number of samples the law's default gives, in words beside the table", r"\+/- 3 points"),
    ("the precision of a 128-bit certificate's ends", r"~45 digits"),
    ("sizes the README's own statements choose (blocks of 40 samples, GD's 10^6 steps, samples 0-39)",
     r"blocks of 40|first 40|10\^6 steps|samples 0-39|horizon 10\^8"),
    ("labels of a list by p (p = 5: ..., 7: ..., 11: ...)", r"(?<![\w.])[0-9]+:(?= )"),
)


def allowed_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) spans of ``text`` that :data:`ALLOWED` excuses, and every fenced code block's code
    (a line up to its `` #`` comment, which is prose and checked)."""
    spans = []
    for _, pattern, *must in ALLOWED:  # an entry's third item, if any, is what each match must contain
        spans.extend(match.span() for match in re.finditer(pattern, text, re.M)
                     if not must or re.search(must[0], match.group(0)))
    # a fenced code block is code, except its comments
    for block in re.finditer(r"^```.*?^```", text, re.M | re.S):
        for line in re.finditer(r"^.*$", block.group(0), re.M):
            comment = line.group(0).find(" #")
            end = line.end() if comment < 0 else line.start() + comment
            spans.append((block.start() + line.start(), block.start() + end))
    return spans


# ------------------------------------------------------------------------------------------------ the run

@dataclass
class Finding:
    """One README number: where it is, what the README says, what was generated, whether they agree."""

    line: int
    key: str
    readme: str
    generated: str
    source: str
    agree: bool
    span: tuple[int, int]


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def find_numbers(text: str, numbers: dict, remeasured: frozenset = frozenset()) -> tuple[list, list, list]:
    """(a Finding for every README number an anchor or block locates, the anchors and blocks not found once
    or naming no generator, the uncovered (line, token)). A benchmark figure of a run in ``remeasured`` is
    compared within its noise band; every other number exactly (a Measured after rounding to the README's
    digits)."""
    covered = bytearray(len(text))
    findings, missing = [], []

    def consider(key: str, start: int, end: int) -> None:
        value = numbers.get(key)
        if value is None:
            missing.append(f"{{{key}}}: no generator makes it")
            return
        readme = text[start:end]
        covered[start:end] = b"\1" * (end - start)
        run = key.split("/")[1] if key.startswith("bench/") else ""
        findings.append(Finding(_line(text, start), key, readme, regenerated(value, readme), value.source,
                                agrees(value, readme, run in remeasured), (start, end)))

    for anchor in ANCHORS:
        matches = list(anchor_pattern(anchor).finditer(text))
        if len(matches) != 1:
            missing.append(f"{'not found' if not matches else f'found {len(matches)} times'}: {anchor[:90]!r}")
            continue
        for index, key in enumerate(_PLACEHOLDER.findall(anchor), start=1):
            consider(key, matches[0].start(index), matches[0].end(index))
    for key, first in BLOCKS.items():
        starts = [match.start() for match in re.finditer("^" + re.escape(first), text, re.M)]
        if len(starts) != 1:
            missing.append(f"{key}: its first line {first!r} found {len(starts)} times")
            continue
        block = re.compile(r"(?:^\|.*(?:\n|$))+", re.M).match(text, starts[0]).group(0).removesuffix("\n")
        consider(key, starts[0], starts[0] + len(block))

    for start, end in allowed_spans(text):
        covered[start:end] = b"\1" * (end - start)
    uncovered = [(_line(text, word.start()), word.group(0)) for word in re.finditer(r"\S*[0-9]\S*", text)
                 if any(text[i].isdigit() and not covered[i] for i in range(word.start(), word.end()))]
    return findings, missing, uncovered


def _changed(finding: Finding) -> bool:
    """Whether regenerating changes the README's number (a line break inside a number is not a change)."""
    return finding.readme.split() != finding.generated.split()


def rewritten(text: str, findings: list) -> str:
    """``text`` with every number that changed replaced by what was generated for it (the others as they are)."""
    pieces, position = [], 0
    for finding in sorted(filter(_changed, findings), key=lambda f: f.span):
        pieces.extend([text[position:finding.span[0]], finding.generated])
        position = finding.span[1]
    return "".join(pieces) + text[position:]


def _first_difference(finding: Finding) -> tuple[int, str, str]:
    """(line, README's, generated) of a multi-line number (a table): its first line that differs."""
    old, new = finding.readme.splitlines(), finding.generated.splitlines()
    for offset in range(max(len(old), len(new))):
        a, b = (old[offset] if offset < len(old) else ""), (new[offset] if offset < len(new) else "")
        if a != b:
            return finding.line + offset, a, b
    return finding.line, "", ""


def generate(kept: dict, say) -> dict:
    numbers = {}
    say("certifying the README's instances in-process and checking each")
    numbers.update(certified_numbers())
    numbers.update(command_numbers())
    numbers.update(law_numbers())
    numbers.update(benchmark_numbers(kept))
    return numbers


def _write(path: Path, text: str) -> None:
    from certify.files import write_text_output

    try:
        write_text_output(path, text)
    except OSError as error:
        raise Failure(f"cannot write {path}: {error.strerror or error}") from None


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints the usage too)
        print(f"readme_numbers: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv=None) -> int:
    parser = _Parser(prog="python examples/readme_numbers.py", description=__doc__.split("\n\n")[0],
                     allow_abbrev=False)
    parser.add_argument("--check", action="store_true", help="change nothing; list what differs or is uncovered")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--slow", action="store_true", help="measure the benchmark figures again (about 15 minutes)")
    how.add_argument("--all", action="store_true", help="also run the outcome law again (about a day)")
    parser.add_argument("--only", default=None, help=f"with --slow: only these runs, comma-separated "
                                                     f"({', '.join(MEASURERS)})")
    parser.add_argument("--readme", type=Path, default=README, help="the README to read (default README.md)")
    parser.add_argument("--kept", type=Path, default=KEPT_BENCHMARKS,
                        help="the kept benchmark measurements (default examples/readme_benchmarks.json)")
    args = parser.parse_args(argv)
    only = None if args.only is None else [name.strip() for name in args.only.split(",") if name.strip()]
    if only is not None and (not (args.slow or args.all) or not set(only) <= set(MEASURERS) or not only):
        parser.error(f"--only takes runs of {', '.join(MEASURERS)} and goes with --slow or --all")

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        text = _read_text(args.readme, "a README")
        kept = read_kept(args.kept)
        remeasured = frozenset()
        if args.slow or args.all:
            runs = [name for name, (_, law_only) in MEASURERS.items()
                    if (only is None or name in only) and (args.all or not law_only)]
            kept = remeasure(kept, runs, say)
            remeasured = frozenset(runs)
            if not args.check:
                _write(args.kept, json.dumps(kept, indent=1, sort_keys=True) + "\n")
        findings, missing, uncovered = find_numbers(text, generate(kept, say), remeasured if args.check else
                                                    frozenset())
    except Failure as failure:
        print(f"readme_numbers: {failure}", file=sys.stderr)
        return 2
    name = args.readme.name
    changed = [finding for finding in findings if _changed(finding)]
    for finding in (findings if args.check else changed):
        if args.check and finding.agree:
            continue
        line, old, new = _first_difference(finding) if "\n" in finding.readme + finding.generated else (
            finding.line, finding.readme, finding.generated)
        print(f"{name}:{line}: {finding.key}: the README says {' '.join(old.split())!r}, generated {new!r} "
              f"({finding.source})")
    for line in missing:
        print(f"{name}: anchor {line}")
    for line, token in uncovered:
        print(f"{name}:{line}: {token!r} is not covered by any generator nor allowed")
    differing = [finding for finding in findings if not finding.agree]
    if not args.check and changed:
        try:
            _write(args.readme, rewritten(text, findings))
        except Failure as failure:
            print(f"readme_numbers: {failure}", file=sys.stderr)
            return 2
    verb = "differ" if args.check else "rewritten"
    print(f"{name}: {len(findings)} numbers, {len(differing if args.check else changed)} {verb}, {len(missing)} "
          f"anchors missing, {len(uncovered)} tokens uncovered", file=sys.stderr)
    return 1 if missing or uncovered or (args.check and differing) else 0


if __name__ == "__main__":
    raise SystemExit(main())
