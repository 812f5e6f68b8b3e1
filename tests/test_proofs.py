"""The committed proof library: every certificate verifies, and regenerating gives the same bytes."""

import json

import pytest

from certify.certificate import dumps, software_versions
from certify.check import check_file
from certify.proofs import LIBRARY, REFERENCE_PRIMES, THEOREMS, certificate_path, library_primes, reference_command
from certify.render.document import document_for
from conftest import ROOT, run_certify

PROOFS = ROOT / "proofs"


def test_the_library_is_complete():
    for theorem, p in LIBRARY:
        path = certificate_path(PROOFS, theorem, p)
        assert path.exists() and path.with_suffix(".tex").exists(), path
    # nothing else: a file at a prime the library leaves out would never be checked
    listed = {certificate_path(PROOFS, theorem, p) for theorem, p in LIBRARY}
    assert set(PROOFS.glob("*/*.json")) == listed


def test_library_primes_leave_out_only_what_the_record_says():
    for theorem in THEOREMS:
        assert library_primes(theorem)[0] == min(REFERENCE_PRIMES)
    assert library_primes("dead") == REFERENCE_PRIMES
    assert library_primes("twin_plus") == tuple(p for p in REFERENCE_PRIMES if p <= 31)
    assert library_primes("twin_above") == REFERENCE_PRIMES


@pytest.mark.parametrize("theorem", THEOREMS)
def test_every_committed_certificate_verifies(theorem):
    for p in library_primes(theorem):
        verdict = check_file(certificate_path(PROOFS, theorem, p))
        assert verdict.status == "verified", verdict.line()


@pytest.mark.parametrize("theorem, p", [("dead", 13), ("slide", 101), ("smooth", 7), ("gd", 29)])
def test_regenerating_gives_identical_bytes(tmp_path, theorem, p):
    """The library's command, run again, writes the same certificate. Compared byte for byte after
    recording this machine's software versions in the committed one (they are the only field a
    different Python or python-flint patch release may change)."""
    committed = json.loads(certificate_path(PROOFS, theorem, p).read_text())
    out = tmp_path / f"{theorem}-{p}.json"
    result = run_certify(*reference_command(theorem, p, out))
    assert result.returncode == 0, result.stderr
    assert out.read_text() == dumps(dict(committed, software=software_versions()))


@pytest.mark.parametrize("theorem, p", [("dead", 5), ("gd", 101)])
def test_committed_latex_is_the_rendering_of_the_committed_certificate(theorem, p):
    path = certificate_path(PROOFS, theorem, p)
    assert document_for(json.loads(path.read_text())) == path.with_suffix(".tex").read_text()
