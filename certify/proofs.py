"""The committed proof library: certificates and LaTeX for the reference primes.

`certify proofs --out proofs` regenerates it; tests re-check every committed certificate and
regenerate some of them byte for byte.
"""

from __future__ import annotations

from pathlib import Path

from flint import fmpq

from .theorems.registry import THEOREMS as _RECORDS

REFERENCE_PRIMES = (5, 7, 11, 13, 17, 19, 23, 29, 31, 97, 101)
#: The primes at which a test run compiles every theorem's library Coq file (tests/test_coq_library.py; docs/coq.md,
#: 'Times'): the smallest (the routes below p = 50 of the region and purity lemmas), 31 (the largest prime of the
#: outcome law, and the probe of axioms) and 101 (the routes above p = 50). gd is compiled at 13 as well
#: (:func:`coq_compiled_primes`). ``certify proofs --coqc`` compiles all.
TESTED_COQ_PRIMES = (5, 31, 101)
#: The one theorem whose exporter's route changes between those primes: gd's region lemmas start from six chord
#: nodes at p <= 7, five at p <= 13, four at p <= 31 and three above (certify.coq.region_gd.first_node_count).
_NODE_ROUTE_PRIMES = {"gd": (13,)}
#: Every theorem of the registry, in its order.
THEOREMS = tuple(_RECORDS)


def library_primes(theorem: str) -> tuple[int, ...]:
    """The reference primes at which the library holds ``theorem``'s certificate: every one, or those up to the
    record's ``largest_default_prime`` (twin_plus: its defaults are not in U_II^+ from p = 37 on; twin_above:
    not in U_II^above from 179 on)."""
    largest = _RECORDS[theorem].largest_default_prime
    return tuple(p for p in REFERENCE_PRIMES if largest is None or p <= largest)


def coq_compiled_primes(theorem: str) -> tuple[int, ...]:
    """The library primes of ``theorem`` whose Coq file every test run compiles: those of
    :data:`TESTED_COQ_PRIMES`, and for gd also 13, so that each of its chord-node routes is compiled once."""
    wanted = set(TESTED_COQ_PRIMES) | set(_NODE_ROUTE_PRIMES.get(theorem, ()))
    return tuple(p for p in library_primes(theorem) if p in wanted)


#: Every (theorem, p) of the library, theorems in the registry's order.
LIBRARY = tuple((theorem, p) for theorem in THEOREMS for p in library_primes(theorem))
#: Theorem A.4 holds for every eta > 0; the library instantiates it at eta = 1 (the record's reference).
REFERENCE_ETA = fmpq(_RECORDS["gd"].parameter("eta").reference)


def reference_command(theorem: str, p: int, out) -> list[str]:
    """The `certify` command (arguments) that writes the library's certificate of ``theorem`` at ``p``:
    default parameters, and each parameter the theorem requires at its record's reference value."""
    extra = [word for parameter in _RECORDS[theorem].required_parameters
             for word in (parameter.flag, parameter.reference)]
    return [theorem, "--p", str(p), *extra, "--out", str(out)]


def certificate_path(root, theorem: str, p: int) -> Path:
    return Path(root) / theorem / f"{theorem}-{p}.json"


def build_proofs(root, primes=REFERENCE_PRIMES, theorems=None, pdf: bool = False, coqc: bool = False,
                 progress=None) -> list[Path]:
    """Write every certificate of the library among ``primes`` (:func:`library_primes`), its .tex and its Coq
    file (THEOREM_P.v, :mod:`certify.coq`) under ``root``/THEOREM/; each certificate is checked first, and the
    document and the Coq file are made from the bytes that were checked (one read of the file). With ``coqc`` each
    Coq file is compiled (NotCertified if coqc rejects one) and the progress line reports coqc's time.

    Each certificate is made by its own `certify THEOREM --p P` process: Arb caches constants
    (pi, logarithms, quadrature nodes) across calls, so balls computed late in a long process can
    differ in their last bits from a fresh run, and the library must be what the single command gives.
    """
    import subprocess
    import sys

    from .certificate import parse_certificate
    from .check import check_bytes, read_certificate_file
    from .coq.compile import compile_file
    from .coq.export import write_coq_file
    from .errors import NotCertified
    from .render.document import write_document

    written = []
    for theorem in tuple(_RECORDS) if theorems is None else theorems:
        held = library_primes(theorem)
        for p in (p for p in primes if p in held):
            path = certificate_path(root, theorem, p)
            path.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([sys.executable, "-m", "certify", *reference_command(theorem, p, path)], check=True,
                           capture_output=True)
            data = read_certificate_file(path)  # read once: the bytes checked are the bytes rendered
            verdict = check_bytes(data, str(path))
            if verdict.status != "verified":
                raise NotCertified(f"the fresh certificate did not verify: {verdict.line()}")
            written.append(path)
            document = parse_certificate(data)
            written.extend(write_document(document, path.parent, pdf=pdf))
            coq_path, coq = write_coq_file(document, data, path.parent)
            written.append(coq_path)
            line = f"{theorem} p = {p}: {verdict.message}; Coq: {coq.summary()}"
            if coqc:
                result = compile_file(coq_path)
                if not result.ok:
                    raise NotCertified(f"coqc rejected {coq_path}: {result.message}")
                line += f"; coqc {result.seconds:.1f} s"
            if progress:
                progress(line)
    return written
