"""The committed Coq files of the proof library: each is the exporter's output for the committed
certificate, byte for byte; coqc accepts every one; no escape hatch; every claim is proved or listed."""

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from certify.coq.compile import compile_file
from certify.coq.export import coq_file, module_name
from certify.certificate import parse_certificate
from certify.proofs import REFERENCE_PRIMES, THEOREMS, certificate_path
from conftest import ROOT
from coqtext import escape_hatches, lemma_names, not_exported

PROOFS = ROOT / "proofs"
LIBRARY = [(theorem, p) for theorem in THEOREMS for p in REFERENCE_PRIMES]


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


def test_coqc_accepts_every_library_file():
    """Compiled two at a time (the machines have two cores); times are reported by tests/bench_coq.py."""
    paths = [_coq_path(theorem, p) for theorem, p in LIBRARY]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda path: compile_file(path, timeout=600), paths))
    rejected = [f"{result.path.name}: {result.message}" for result in results if not result.ok]
    assert rejected == []


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
    probe.write_text("Axiom cheat : 1 = 2.\nLemma l : 1 = 2.\nProof. exact cheat. Qed.\nPrint Assumptions l.\n")
    result = compile_file(probe, lines=1000)
    assert result.ok and printed_axioms(result.message) == {"cheat"}


#: Where the axioms behind a lemma may come from: Coq's classical reals (Reals rests on these) and the
#: specifications of the primitive integers and floats that CoqInterval computes with. Nothing of ours.
ALLOWED_AXIOM_MODULES = ("ClassicalDedekindReals", "Classical_Prop", "FunctionalExtensionality",
                         "FloatAxioms", "PrimFloat", "PrimInt63", "Uint63")


@pytest.mark.parametrize("theorem", THEOREMS)
def test_lemmas_rest_only_on_the_standard_axioms(tmp_path, theorem):
    """Print Assumptions of all the lemmas of the p = 13 file (one tuple, so that the library is traversed
    once: ~5 s instead of ~5 s per lemma): only the standard library's axioms appear."""
    text = _coq_path(theorem, 13).read_text()
    names = lemma_names(text)
    probe = tmp_path / f"{theorem}_assumptions.v"
    probe.write_text(text + f"Definition every_lemma := ({', '.join(names)}).\nPrint Assumptions every_lemma.\n")
    result = compile_file(probe, timeout=600, lines=100000)
    assert result.ok, result.message
    axioms = printed_axioms(result.message)
    assert axioms, "Print Assumptions printed no axiom at all: the probe is broken"
    modules = {axiom.split(".")[0] if "." in axiom else axiom for axiom in axioms}
    assert modules <= set(ALLOWED_AXIOM_MODULES), sorted(axiom for axiom in axioms
                                                         if axiom.split(".")[0] not in ALLOWED_AXIOM_MODULES)
