"""Sweeps: certificates for every prime in a range, in parallel processes, resumable, with a summary.

Processes, not threads: python-flint's precision is one process-wide setting. Each worker
certifies a chunk of primes for one theorem and writes each certificate atomically as
``OUT/THEOREM/THEOREM-P.json``; a failure at one prime is recorded and the sweep goes on.
Running the same sweep again skips every prime whose certificate is already there (so an
interrupted sweep resumes), and rewrites the summary (``OUT/summary.json``, ``OUT/summary.csv``)
from the certificates and failures on disk.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

THEOREMS = ("dead", "slide", "smooth", "gd")
CHUNK = 48
CERTIFICATE_NAME = re.compile(r"^(dead|slide|smooth|gd)-(\d+)\.json$")

#: The numbers a summary reports per theorem: (claim, component or None, key, "min" or "max", label).
KEY_NUMBERS = {
    "dead": [("single_active_gate", None, "lo", "min", "gate margin"),
             ("transversality_margin_box", None, "lo", "min", "transversality margin"),
             ("purity_gap_box", None, "lo", "min", "purity gap delta_p"),
             ("gaussian_probability", None, "log10_lo", "min", "log10 P")],
    "slide": [("region_box", "gamma_minus_gamma_star", "lo", "min", "gamma_j - gamma_* margin"),
              ("admissibility", None, "hi", "max", "kink coefficient bound"),
              ("gaussian_probability", None, "log10_lo", "min", "log10 P")],
    "smooth": [("g_condition", None, "lo", "min", "(A.67) margin"),
               ("purity_gap_box", None, "lo", "min", "purity gap"),
               ("gaussian_probability", None, "log10_lo", "min", "log10 P")],
    "gd": [("one_step_death_box", "central_gate", "hi", "max", "central gate after the step"),
           ("purity_gap_box", None, "lo", "min", "purity gap"),
           ("gaussian_probability", None, "log10_lo", "min", "log10 P")],
}


def primes_between(low: int, high: int) -> list[int]:
    """The primes p with max(low, 5) <= p <= high (sieve of Eratosthenes; high <= 10^8)."""
    if high > 10**8:
        raise ValueError("a sweep ends at 10^8 at most")
    if high < 5 or high < low:
        return []
    sieve = bytearray([1]) * (high + 1)
    sieve[0:2] = b"\x00\x00"
    for k in range(2, int(high**0.5) + 1):
        if sieve[k]:
            sieve[k * k::k] = bytearray(len(range(k * k, high + 1, k)))
    return [n for n in range(max(low, 5), high + 1) if sieve[n]]


def parse_prime_range(text: str) -> tuple[int, int]:
    """'A..B' -> (A, B); ValueError with a one-line reason otherwise."""
    match = re.fullmatch(r"(\d+)\.\.(\d+)", text.strip())
    if not match:
        raise ValueError(f"expected a range like 5..1000, got {text!r}")
    low, high = int(match.group(1)), int(match.group(2))
    if low > high:
        raise ValueError(f"empty range {text!r}")
    return low, high


def certificate_file(out, theorem: str, p: int) -> Path:
    return Path(out) / theorem / f"{theorem}-{p}.json"


def _already_certified(path: Path) -> bool:
    """A resumed sweep keeps certificates that are there and are well-formed certify/1."""
    from .certificate import parse_certificate
    from .errors import MalformedCertificate

    try:
        parse_certificate(path.read_bytes())
        return True
    except (OSError, MalformedCertificate):
        return False


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".json.tmp{os.getpid()}")
    temporary.write_text(text, encoding="ascii")
    os.replace(temporary, path)


def certify_chunk(theorem: str, primes: list[int], out: str, eta: str) -> list[tuple[int, str]]:
    """Worker: certify ``theorem`` at each prime, writing certificates; returns [(p, failure message or "")]."""
    from .certificate import dumps
    from .errors import CertifyError
    from .kernel.exact import parse_rational
    from .theorems import dead, gd, slide, smooth

    builders = {"dead": dead.certify_dead, "slide": slide.certify_slide, "smooth": smooth.certify_smooth,
                "gd": lambda p: gd.certify_gd(p, parse_rational(eta))}
    results = []
    for p in primes:
        path = certificate_file(out, theorem, p)
        try:
            certificate = builders[theorem](p).certificate
            _write_atomically(path, dumps(certificate))
            results.append((p, ""))
        except CertifyError as exc:
            results.append((p, str(exc)))
    return results


@dataclass
class SweepReport:
    """What a sweep did: per theorem the primes certified now, skipped (already there) and failed."""

    certified: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    failed: dict[str, dict[int, str]] = field(default_factory=dict)
    seconds: float = 0.0


def run_sweep(primes, theorems, jobs: int, out, eta: str = "1", progress=None) -> SweepReport:
    """Certify every (theorem, prime) not yet on disk, in ``jobs`` processes; write the summary."""
    out = Path(out)
    report = SweepReport()
    work = []
    for theorem in theorems:
        (out / theorem).mkdir(parents=True, exist_ok=True)
        todo = [p for p in primes if not _already_certified(certificate_file(out, theorem, p))]
        report.skipped[theorem] = len(primes) - len(todo)
        report.certified[theorem] = 0
        report.failed[theorem] = {}
        work += [(theorem, todo[i:i + CHUNK]) for i in range(0, len(todo), CHUNK)]
    total, done = sum(len(chunk) for _, chunk in work), 0
    start = time.perf_counter()
    failures = _load_failures(out)
    if work:
        with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = {pool.submit(certify_chunk, theorem, chunk, str(out), eta): theorem for theorem, chunk in work}
            for future in as_completed(futures):
                theorem = futures[future]
                for p, message in future.result():
                    done += 1
                    key = f"{theorem}-{p}"
                    if message:
                        report.failed[theorem][p] = message
                        failures[key] = message
                    else:
                        report.certified[theorem] += 1
                        failures.pop(key, None)
                if progress:
                    progress(done, total, time.perf_counter() - start)
    report.seconds = time.perf_counter() - start
    _write_atomically(out / "failures.json", json.dumps(failures, indent=2, sort_keys=True) + "\n")
    write_summary(out, theorems, primes)
    return report


def _load_failures(out: Path) -> dict:
    try:
        return json.loads((out / "failures.json").read_text())
    except (OSError, ValueError):
        return {}


def summarize(out, theorems, primes) -> dict:
    """Per theorem: primes certified, failures, and each key number's extreme with the prime attaining it."""
    out = Path(out)
    failures = _load_failures(out)
    summary = {}
    for theorem in theorems:
        extremes, certified = {}, 0
        for p in primes:
            path = certificate_file(out, theorem, p)
            if not path.exists():
                continue
            certificate = json.loads(path.read_text())
            certified += 1
            for claim_id, component, key, extreme, label in KEY_NUMBERS[theorem]:
                stored = certificate["claims"][claim_id]
                text = (stored["components"][component] if component else stored)[key]
                value = Fraction(text)
                best = extremes.get(label)
                if best is None or (value < best[0] if extreme == "min" else value > best[0]):
                    extremes[label] = (value, text, p, extreme)
        summary[theorem] = {
            "primes": len(primes),
            "certified": certified,
            "failed": sorted((int(key.split("-")[1]), message) for key, message in failures.items()
                             if key.startswith(theorem + "-") and int(key.split("-")[1]) in set(primes)),
            "extremes": {label: {"extreme": extreme, "value": text, "p": p}
                         for label, (_, text, p, extreme) in extremes.items()},
        }
    return summary


def write_summary(out, theorems, primes) -> dict:
    """Write OUT/summary.json and OUT/summary.csv; return the summary."""
    summary = summarize(out, theorems, primes)
    _write_atomically(Path(out) / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["theorem", "primes", "certified", "failed", "quantity", "extreme", "value", "p"])
    for theorem, entry in summary.items():
        rows = entry["extremes"].items() or [("", {"extreme": "", "value": "", "p": ""})]
        for label, data in rows:
            writer.writerow([theorem, entry["primes"], entry["certified"], len(entry["failed"]), label,
                             data["extreme"], data["value"], data["p"]])
    (Path(out) / "summary.csv").write_text(buffer.getvalue(), encoding="ascii")
    return summary


def progress_bar(stream=sys.stderr):
    """A progress callback drawing a bar on a terminal (nothing when the stream is not a terminal)."""
    if not stream.isatty():
        return None

    def draw(done: int, total: int, seconds: float) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        rate = done / seconds if seconds > 0 else 0.0
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:.0f}/s)")
        if done == total:
            stream.write("\n")
        stream.flush()

    return draw


def certificate_files(paths) -> list[Path]:
    """Expand folders into the certificate files below them (named THEOREM-P.json); keep files as given."""
    files = []
    for path in map(Path, paths):
        if path.is_dir():
            files += sorted((f for f in path.rglob("*.json") if CERTIFICATE_NAME.match(f.name)),
                            key=lambda f: (f.parent.name, int(CERTIFICATE_NAME.match(f.name).group(2))))
        else:
            files.append(path)
    return files


def _check_many(paths: list[str]) -> list[tuple[str, str, str]]:
    from .check import check_file

    return [(v.source, v.status, v.message) for v in map(check_file, paths)]


def check_files(paths, jobs: int) -> list:
    """Verdicts for many certificate files, checked in ``jobs`` processes (in the order given)."""
    from .check import Verdict, check_file

    paths = [str(p) for p in paths]
    if jobs <= 1 or len(paths) < 2 * CHUNK:
        return [check_file(p) for p in paths]
    chunks = [paths[i:i + CHUNK] for i in range(0, len(paths), CHUNK)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(_check_many, chunks))
    return [Verdict(*row) for chunk in results for row in chunk]


