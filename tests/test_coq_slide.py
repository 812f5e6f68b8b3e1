"""Coq re-proofs of slide certificates (certify.coq.slide): the committed certificates compile with
coqc, forged ones are rejected at the forged lemma, every claim is covered, no escape hatch.

Requires coqc with CoqInterval, Coquelicot and Coqprime: a missing coqc is a failure, not a skip.
"""

from __future__ import annotations

import copy
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from flint import fmpq

from certify.coq.compile import coqc_path, compile_file
from certify.coq.export import coq_file
from certify.coq.lemma import Lemma, NotExported
from certify.coq.slide import slide_obligations
from certify.coq.terms import ESCAPE_HATCHES
from certify.kernel.exact import format_rational, parse_exact

from coqtext import failing_lemma, strip_comments

ROOT = Path(__file__).resolve().parent.parent
TINY = fmpq(1, 10**30)


def certificate(p: int) -> dict:
    return json.loads((ROOT / "proofs" / "slide" / f"slide-{p}.json").read_text(encoding="utf-8"))


def value(text: str) -> fmpq:
    return parse_exact(text).fmpq()


def require_coqc():
    assert coqc_path() is not None, "coqc is not on the PATH: these tests need Coq with CoqInterval and Coqprime"


def compile_text(text: str, folder: Path, name: str):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.v"
    path.write_text(text, encoding="utf-8")
    return compile_file(path, timeout=300)


def test_library_certificates_compile(tmp_path):
    require_coqc()
    documents = {p: certificate(p) for p in (5, 13)}
    with ThreadPoolExecutor(2) as pool:
        results = dict(zip(documents, pool.map(
            lambda p: compile_text(coq_file(documents[p]).text, tmp_path / str(p), f"slide_{p}"), documents)))
    for p, result in results.items():
        assert result.ok, f"p = {p}: {result.message}"


def forged(p: int, keep_capture_time: bool = False) -> dict:
    """A copy of the certificate without gaussian_probability (not this exporter's) and, unless kept,
    without capture_time (its integral is slow: the forgeries below fail before or without it)."""
    document = copy.deepcopy(certificate(p))
    del document["claims"]["gaussian_probability"]
    if not keep_capture_time:
        del document["claims"]["capture_time"]
    return document


def _set(entry: dict, field: str, new: fmpq):
    entry[field] = format_rational(new)


def forge_admissibility(d):
    entry = d["claims"]["admissibility"]
    _set(entry, "hi", value(entry["hi"]) * (1 - TINY))
    return "admissibility_hi"


def forge_admissibility_sign(d):
    _set(d["claims"]["admissibility"], "hi", fmpq(3, 2))  # a true upper bound, but not < 1
    return "admissibility_hi_below_1"


def forge_invariant(d):
    entry = d["claims"]["capture_invariants"]["components"]["after_capture"]
    _set(entry, "exact", value(entry["exact"]) + 1)
    return "capture_invariants_after_capture"


def forge_capture_time(d):
    entry = d["claims"]["capture_time"]
    _set(entry, "log10_lo", value(entry["log10_lo"]) + fmpq(1, 10**9))
    return None  # the weakened lemma's name depends on its digits: any capture_time_log10_* lemma


def forge_kappa(d):
    entry = d["claims"]["kappa"]
    _set(entry, "lo", value(entry["lo"]) * (1 + TINY))
    return "kappa_lo"


def forge_direction(d):
    entry = d["claims"]["limit_direction"]["components"]["w_at_0"]
    _set(entry, "hi", value(entry["hi"]) * (1 - TINY))
    return "limit_direction_w_at_0_hi"


def forge_direction_elsewhere(d):
    entry = d["claims"]["limit_direction"]["components"]["w_elsewhere"]
    _set(entry, "lo", value(entry["lo"]) * (1 - TINY))  # negative: closer to 0, past the truth
    return "limit_direction_w_elsewhere_lo"


def forge_fraction(d):
    _set(d["claims"]["limit_fourier_fraction"], "exact", value(d["claims"]["limit_fourier_fraction"]["exact"]) + TINY)
    return "limit_fourier_fraction_value"


def forge_loss(d):
    entry = d["claims"]["limit_loss"]
    _set(entry, "lo", value(entry["lo"]) * (1 + TINY))
    return "limit_loss_lo"


def forge_region(d):
    entry = d["claims"]["region_box"]["components"]["x_minus_X"]
    _set(entry, "lo", value(entry["lo"]) + TINY)
    return "region_box_x_minus_X_lo"


def forge_region_sign(d):
    entry = d["claims"]["region_box"]["components"]["gamma_minus_gamma_star"]
    _set(entry, "lo", -value(entry["lo"]))  # a true lower bound, but not > 0
    return "region_box_gamma_minus_gamma_star_lo_positive"


#: Each forged file compiles in about 2 s (coqc stops at the forged lemma); capture_time's, which must
#: exhaust the integral's fuel before it fails, takes about 20 s and is run once.
FORGERIES = [forge_admissibility, forge_admissibility_sign, forge_invariant, forge_kappa, forge_direction,
             forge_direction_elsewhere, forge_fraction, forge_loss, forge_region_sign]


def test_forged_certificates_are_rejected(tmp_path):
    require_coqc()
    jobs = []
    for forge in FORGERIES:
        document = forged(5)
        jobs.append((forge.__name__, forge(document), coq_file(document).text))
    document = forged(5, keep_capture_time=True)
    jobs.append(("forge_capture_time", forge_capture_time(document), coq_file(document).text))

    def run(job):
        name, _, text = job
        return compile_text(text, tmp_path / name, "forged")

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, jobs[::-1]))[::-1]  # the slow one first
    for (name, lemma, text), result in zip(jobs, results):
        assert not result.ok, f"{name}: coqc accepted a forged certificate"
        rejected = failing_lemma(text, result.message)
        if lemma is None:
            assert rejected.startswith("capture_time_log10_"), (name, rejected, result.message)
        else:
            assert rejected == lemma, (name, rejected, result.message)


@pytest.mark.parametrize("p", [5, 13, 101])
def test_every_claim_is_covered(p):
    document = certificate(p)
    items = slide_obligations(document)
    covered = {item.claim for item in items if isinstance(item, (Lemma, NotExported))}
    mine = set(document["claims"]) - {"gaussian_probability"}
    assert covered == mine  # gaussian_probability is certify.coq.gaussian's
    exported = {item.claim for item in items if isinstance(item, Lemma)}
    assert exported == mine  # every claim of slide has lemmas
    # weakened lemmas: only the capture-time integral, and its name says how many digits
    weak = [item for item in items if isinstance(item, Lemma) and item.digits is not None]
    assert [item.claim for item in weak] == ["capture_time"]
    assert f"_{weak[0].digits}_digits" in weak[0].name and weak[0].digits >= 14
    names = {item.name for item in items if isinstance(item, Lemma)}
    for required in ("admissibility_hi_below_1", "admissibility_below_1", "capture_time_positive", "kappa_positive",
                     "kappa_lo_positive", "region_box_x_minus_X_lo_positive", "region_box_cross_gates_lo_positive",
                     "region_box_off_cross_gates_lo_positive", "region_box_gamma_minus_gamma_star_lo_positive"):
        assert required in names, required  # every sign and margin of the claims, in full


def test_statements_use_the_certificates_numbers():
    document = certificate(13)
    items = {item.name: item for item in slide_obligations(document) if isinstance(item, Lemma)}
    # kappa's lo, written as the exact rational of the certificate's text
    lo = value(document["claims"]["kappa"]["lo"])
    assert items["kappa_lo"].statement.startswith(f"({int(lo.p)} / {int(lo.q)}) <= ")
    assert "598" in items["capture_invariants_before_capture"].statement
    assert items["capture_invariants_after_capture"].statement.endswith("= (-7826)")
    # the weakened log10 ends lie outside the certificate's, by at least the slack
    weak = next(item for item in items.values() if item.name.startswith("capture_time_log10_"))
    ends = re.findall(r"\((\d+) / (\d+)\)", weak.statement)
    low, high = (fmpq(int(n), int(d)) for n, d in ends)
    claim = document["claims"]["capture_time"]
    assert low < value(claim["log10_lo"]) - fmpq(1, 10**13) and high > value(claim["log10_hi"]) + fmpq(1, 10**13)
    assert high - low < fmpq(1, 10**10)


@pytest.mark.parametrize("p", [5, 101])
def test_no_escape_hatches(p):
    text = strip_comments(coq_file(certificate(p)).text)
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", text))
    assert not words & set(ESCAPE_HATCHES)
    assert "Admitted" not in text and "admit" not in text.split()
