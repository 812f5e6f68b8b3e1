"""The committed Coq files of the proof library: each is the exporter's output for the committed
certificate, byte for byte; coqc accepts every one; no escape hatch; every claim is proved or listed."""

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

from certify.coq.compile import compile_file
from certify.coq.export import coq_file, module_name
from certify.certificate import parse_certificate
from certify.proofs import (LIBRARY as _LIBRARY, REFERENCE_PRIMES, TESTED_COQ_PRIMES, THEOREMS, certificate_path,
                            coq_compiled_primes)
from conftest import ROOT
from coqtext import escape_hatches, lemma_names, not_exported, strip_comments

PROOFS = ROOT / "proofs"
LIBRARY = list(_LIBRARY)

#: The library files a test run compiles with coqc: each theorem at certify.proofs.coq_compiled_primes (every file
#: of the library is still checked here to be the export of its committed certificate, byte for byte, and to have
#: no escape hatch). Compiling all 97 files costs well over 2200 s of coqc (2200 s measured for the 88 files of
#: eight theorems, before twin_plus), more than a CI run's 30 minutes allow beside the rest of the suite on two
#: cores (docs/coq.md, 'Times'); ``CERTIFY_COQ_LIBRARY=all`` compiles every
#: file, and so do ``certify proofs --coqc`` and tests/bench_coq.py.
COMPILED = LIBRARY if os.environ.get("CERTIFY_COQ_LIBRARY") == "all" else \
    [(theorem, p) for theorem, p in LIBRARY if p in coq_compiled_primes(theorem)]


def _coq_path(theorem, p):
    path = certificate_path(PROOFS, theorem, p)
    return path.parent / f"{module_name(json.loads(path.read_text()))}.v"


@pytest.mark.parametrize("theorem, p", LIBRARY)
def test_committed_coq_file_is_the_export_of_the_committed_certificate(theorem, p):
    data = certificate_path(PROOFS, theorem, p).read_bytes()
    path = _coq_path(theorem, p)
    assert path.exists(), f"{path} is missing: run certify proofs"
    assert coq_file(parse_certificate(data), data).text == path.read_text()


@pytest.mark.parametrize("theorem, p", LIBRARY)
def test_no_escape_hatch_and_every_claim_proved_or_listed(theorem, p):
    text = _coq_path(theorem, p).read_text()
    assert escape_hatches(text) == []
    names, listed = lemma_names(text), not_exported(text)
    assert "p_is_prime" in names
    for claim in json.loads(certificate_path(PROOFS, theorem, p).read_text())["claims"]:
        assert any(name == claim or name.startswith(claim + "_") for name in names) or f"{claim}:" in listed, claim


#: The library file of each theorem whose lemmas' axioms are printed (test_coqc_accepts_the_library_file).
PROBED_PRIME = 31

#: Where the axioms behind a lemma may come from: Coq's classical reals (Reals rests on these) and the
#: specifications of the primitive integers and floats that CoqInterval computes with. Nothing of ours.
ALLOWED_AXIOM_MODULES = ("ClassicalDedekindReals", "Classical_Prop", "FunctionalExtensionality",
                         "FloatAxioms", "PrimFloat", "PrimInt63", "Uint63")


def _probe_text(text: str) -> str:
    """The file's text followed by ``Print Assumptions`` of all its lemmas (one tuple, so that the library is
    traversed once: ~5 s instead of ~5 s per lemma). It compiles iff the file does, the file being its prefix."""
    return text + f"Definition every_lemma := ({', '.join(lemma_names(text))}).\nPrint Assumptions every_lemma.\n"


def library_compilation_input(key, folder):
    """(path, lines): what coqc compiles for the library file of ``key`` = (theorem, p), the file itself, or
    for the p = PROBED_PRIME files their axiom probe (:func:`_probe_text`, written into ``folder``) with all
    of coqc's output kept, so that one compilation serves both checks of
    :func:`test_coqc_accepts_the_library_file`."""
    theorem, p = key
    path = _coq_path(theorem, p)
    if p != PROBED_PRIME:
        return path, 12
    probe = Path(folder) / f"{theorem}_assumptions.v"
    probe.write_text(_probe_text(path.read_text()))
    return probe, 100000


def test_the_compiled_primes_hold_the_probe_both_ends_and_every_route():
    """Every theorem is compiled at the probe's prime and at both ends of its library primes, and gd at a prime of
    each of its chord-node routes (certify.coq.region_gd.first_node_count: 6, 5, 4, 3 nodes)."""
    from certify.coq.region_gd import first_node_count
    from certify.proofs import library_primes

    assert set(TESTED_COQ_PRIMES) <= set(REFERENCE_PRIMES)
    for theorem in THEOREMS:
        compiled = coq_compiled_primes(theorem)
        assert PROBED_PRIME in compiled
        assert min(library_primes(theorem)) in compiled and max(library_primes(theorem)) in compiled
    assert {first_node_count(p) for p in coq_compiled_primes("gd")} == {first_node_count(p) for p in REFERENCE_PRIMES}
    assert {theorem for theorem, _ in COMPILED} == set(THEOREMS)


@pytest.mark.parametrize("theorem, p", COMPILED)
def test_coqc_accepts_the_library_file(theorem, p, tmp_path):
    """coqc compiles the committed file (one test a file, so that pytest-xdist spreads the library's coqc, most
    of a test run's CPU, over the cores; tests/conftest.py runs these first). At p = PROBED_PRIME the file is
    compiled with ``Print Assumptions`` of all its lemmas appended, and only the standard library's axioms
    may appear (:data:`ALLOWED_AXIOM_MODULES`)."""
    path, lines = library_compilation_input((theorem, p), tmp_path)
    result = compile_file(path, timeout=900, lines=lines)
    assert result.ok, f"{theorem} p = {p}: {result.message[-500:]}"
    if p == PROBED_PRIME:
        axioms = printed_axioms(result.message)
        assert axioms, "Print Assumptions printed no axiom at all: the probe is broken"
        modules = {axiom.split(".")[0] if "." in axiom else axiom for axiom in axioms}
        assert modules <= set(ALLOWED_AXIOM_MODULES), sorted(axiom for axiom in axioms
                                                             if axiom.split(".")[0] not in ALLOWED_AXIOM_MODULES)


def printed_axioms(output: str) -> set[str]:
    """The axiom names a ``Print Assumptions`` printed (the unindented lines after ``Axioms:``)."""
    import re

    axioms, inside = set(), False
    for line in output.splitlines():
        if line == "Axioms:":
            inside = True
        elif line.startswith("Closed under the global context"):
            inside = False
        elif inside and not line[0].isspace():
            name = re.match(r"([A-Za-z_][A-Za-z0-9_'.]*)", line)
            assert name, line
            axioms.add(name.group(1))
    return axioms


def test_the_axiom_probe_sees_an_added_axiom(tmp_path):
    """The probe is not vacuous: an axiom of the file itself is reported (without a module prefix)."""
    probe = tmp_path / "cheat.v"
    probe.write_text(_probe_text("Axiom cheat : 1 = 2.\nLemma l : 1 = 2.\nProof. exact cheat. Qed.\n"))
    result = compile_file(probe, lines=1000)
    assert result.ok and printed_axioms(result.message) == {"cheat"}


def test_a_compilation_stopped_at_its_timeout_says_so(tmp_path):
    """compile_file marks a coqc stopped at the timeout (no verdict), apart from a refusal (a verdict)."""
    good, bad = tmp_path / "good.v", tmp_path / "bad.v"
    good.write_text("Lemma l : 1 = 1.\nProof. reflexivity. Qed.\n")
    bad.write_text("Lemma l : 1 = 2.\nProof. reflexivity. Qed.\n")
    stopped = compile_file(good, timeout=0.001)  # coqc cannot even start in a millisecond
    assert stopped.timed_out and not stopped.ok
    refused = compile_file(bad)
    assert not refused.ok and not refused.timed_out
    assert compile_file(good).timed_out is False


#: Digits every weakened lemma must state of its claim's end (issue 25, 'Digits').
LEAST_DIGITS = 12


def _stated_numbers(statement: str) -> list[Fraction]:
    """Every rational literal a statement writes: ``(n / d)``, ``(- (n / d))``, ``M / 10 ^ E`` and
    ``ln M + E * ln 10`` (the number M 10^E)."""
    import re

    numbers = [Fraction(int(n), int(d)) for n, d in re.findall(r"\((\d+) / (\d+)\)", statement)]
    numbers += [-Fraction(int(n), int(d)) for n, d in re.findall(r"\(- \((\d+) / (\d+)\)\)", statement)]
    numbers += [Fraction(int(m), 10 ** int(e)) for m, e in re.findall(r"(\d+) / 10 \^ (\d+)", statement)]
    # a literal too long to write, in logarithms: ln M + E * ln 10 (or - E) for M 10^(+-E)
    numbers += [Fraction(int(m)) * Fraction(10) ** (int(e) if sign == "+" else -int(e))
                for m, sign, e in re.findall(r"ln (\d+) ([+-]) (\d+) \* ln 10", statement)]
    return numbers


def _weakened_lemmas(text: str) -> list[tuple[str, int, str]]:
    """(name, digits, statement) of every lemma whose name says ``_K_digits``."""
    import re

    code = strip_comments(text)
    return [(name, int(digits), statement) for name, digits, statement in
            re.findall(r"^Lemma (\w+?_(\d+)_digits) :\n  (.*?)\.\nProof\.", code, flags=re.M | re.S)]


def _ends(document: dict, stem: str) -> list[Fraction]:
    """The certificate's numbers a weakened lemma ``stem`` (its name without ``_K_digits``) states: the
    field its name ends with (``lo``, ``hi``, ``log10_lo``...) of the claim, or of the component, it names
    (``hitting_time_gradient_s_lo``), or every end of the claim it names (``dead_zone_integral``)."""
    claim = max((claim for claim in document["claims"] if stem == claim or stem.startswith(claim + "_")), key=len)
    fields = document["claims"][claim]
    for field in ("log10_lo", "log10_hi", "lo", "hi"):
        if stem.endswith("_" + field):
            component = stem[len(claim) + 1: -len(field) - 1]
            return [Fraction((fields["components"][component] if component else fields)[field])]
    return [Fraction(fields[field]) for field in ("lo", "hi") if field in fields]


@pytest.mark.parametrize("theorem, p", LIBRARY)
def test_every_weakened_lemma_states_12_digits(theorem, p):
    """Issue 25: each lemma of a committed library file that states a claim's end rounded outward (its name
    says ``_K_digits``) has K >= 12 and states a number within 2 10^-11 (relatively) of the certificate's
    end, i.e. 12 significant digits of it (rounded outward, moved by what the proof loses)."""
    path = _coq_path(theorem, p)
    document = json.loads(certificate_path(PROOFS, theorem, p).read_text())
    weakened = _weakened_lemmas(path.read_text())
    assert weakened, f"{path.name}: no weakened lemma found (every file has the Gaussian mass's at least)"
    short = []
    for name, digits, statement in weakened:
        stem = name[: -len(f"_{digits}_digits")]
        if digits < LEAST_DIGITS:
            short.append(name)
        numbers = _stated_numbers(statement)
        for end in _ends(document, stem):
            distance = min(abs(number - end) for number in numbers) / abs(end)
            assert distance <= 2 * Fraction(1, 10 ** (LEAST_DIGITS - 1)), (name, float(distance))
    assert short == [], f"{path.name}: lemmas with fewer than {LEAST_DIGITS} digits: {short}"
