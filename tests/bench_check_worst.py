"""Benchmark: the slowest `certify check` we can construct from inputs the schema admits.

Issue "No false acceptance", bounded work: every check of any admissible input finishes
in under 2 s on the 2-core machine. Before inputs were bounded, dead with
p = 999999999999999989, epsilon = A = B = 1e9999, radius 1e-10000 at 512 bits took
18-26 s. Now exact inputs have at most MAX_INPUT_DIGITS digits in numerator and
denominator; this script tries the extremes (largest prime, 512 bits, the largest,
the smallest and the longest inputs, tiny and large radii) for every theorem, with the
base point set to the construction so that the checker recomputes every claim, and
prints each time and the worst. Run: .venv/bin/python tests/bench_check_worst.py
"""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

from certify.certificate import block_to_json
from certify.check import check_bytes
from certify.kernel.exact import MAX_INPUT_DIGITS, ExactNumber, canonical_text, parse_rational
from certify.kernel.registry import kernel_for

LARGEST_PRIME = 999999999999999989


def extremes() -> dict[str, str]:
    """Canonical inputs at the edges of what parse_rational admits (each at most 200 characters)."""
    digits = MAX_INPUT_DIGITS
    return {
        "huge": canonical_text(ExactNumber(10 ** digits - 1)),
        "tiny": canonical_text(ExactNumber(1, 10 ** digits - 3)),
        "long": canonical_text(ExactNumber(10 ** 97 + 7, 10 ** 98 - 3)),
        "one": "1",
    }


def genuine(theorem: str) -> dict:
    from certify.theorems import dead, gd, slide, smooth
    from flint import fmpq

    builders = {"dead": dead.certify_dead, "slide": slide.certify_slide, "smooth": smooth.certify_smooth,
                "gd": lambda p: gd.certify_gd(p, fmpq(1))}
    return builders[theorem](13).certificate


def timed_check(certificate: dict, p: int, radius: str, values: dict) -> tuple[float, str]:
    document = json.loads(json.dumps(certificate))
    document.update(p=p, precision_bits=512, radius=radius)
    document["parameters"].update(values)
    kernel = kernel_for(document["theorem"])
    try:
        params = kernel.make_parameters(p, {name: parse_rational(document["parameters"][name])
                                            for name in kernel.parameter_names})
        document["base_point"] = {name: block_to_json(block)
                                  for name, block in kernel.base_point(params).blocks().items()}
    except Exception:  # hypotheses the construction needs may fail: the checker still gets the input
        pass
    data = json.dumps(document).encode()
    start = time.perf_counter()
    verdict = check_bytes(data)
    return time.perf_counter() - start, verdict.line()


def main() -> None:
    values = extremes()
    worst = (0.0, "")
    for theorem in ("dead", "smooth", "gd", "slide"):
        certificate = genuine(theorem)
        names = list(certificate["parameters"])
        for choice in itertools.product(("huge", "tiny", "long", "one"), repeat=len(names)):
            if len(set(choice)) > 2:  # keep the product small: at most two distinct kinds per case
                continue
            for radius in (values["tiny"], values["long"], "0.1"):
                seconds, line = timed_check(certificate, LARGEST_PRIME, radius,
                                            {name: values[kind] for name, kind in zip(names, choice)})
                label = f"{theorem} {dict(zip(names, choice))} radius={radius[:12]}"
                if seconds > worst[0]:
                    worst = (seconds, f"{label}: {line[:120]}")
                if seconds > 0.5:
                    print(f"{seconds:6.2f} s  {label}: {line[:100]}", flush=True)
    print(f"worst check: {worst[0]:.2f} s  ({worst[1]})")
    print("target: under 2 s")


if __name__ == "__main__":
    main()
