"""Benchmark: coqc's time per Coq file of the proof library (issue "Coq re-proves every certificate":
target under 60 s per certificate for p <= 101), with each file's lemma count, weakened lemmas and
claims not exported. Compiles one file at a time so that the times are not shared between cores.

Run: .venv/bin/python tests/bench_coq.py [THEOREM...] [--primes 5,13,101]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from certify.certificate import parse_certificate
from certify.coq.compile import compile_file
from certify.coq.export import coq_file, module_name
from certify.proofs import REFERENCE_PRIMES, THEOREMS, certificate_path, library_primes

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    primes = REFERENCE_PRIMES
    if "--primes" in argv:
        i = argv.index("--primes")
        primes = tuple(int(p) for p in argv[i + 1].split(","))
        del argv[i:i + 2]
    theorems = tuple(argv) or THEOREMS
    total, worst, failures = 0.0, (0.0, ""), 0
    print(f"{'file':<22} {'coqc s':>7} {'lemmas':>6}  weakened / not exported")
    for theorem in theorems:
        for p in (p for p in primes if p in library_primes(theorem)):
            data = certificate_path(ROOT / "proofs", theorem, p).read_bytes()
            document = parse_certificate(data)
            start = time.perf_counter()
            coq = coq_file(document, data)
            export_seconds = time.perf_counter() - start
            path = certificate_path(ROOT / "proofs", theorem, p).parent / f"{module_name(document)}.v"
            result = compile_file(path)
            total += result.seconds
            worst = max(worst, (result.seconds, path.name))
            failures += not result.ok
            notes = [f"{lemma.name}" for lemma in coq.weakened] + [f"not: {item.claim}" for item in coq.not_exported]
            status = "" if result.ok else "  REJECTED"
            print(f"{path.name:<22} {result.seconds:7.1f} {len(coq.lemmas) + 1:6d}  "
                  f"{', '.join(notes) or '-'}{status}  (export {export_seconds * 1000:.0f} ms)")
    print(f"total {total:.0f} s, worst {worst[0]:.1f} s ({worst[1]}), {failures} rejected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
