"""Coq re-proofs of slide certificates (certify.coq.slide): the committed certificates compile with
coqc, forged ones are rejected at the forged lemma, every claim is covered, no escape hatch.

Requires coqc with CoqInterval, Coquelicot and Coqprime: a missing coqc is a failure, not a skip.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from flint import fmpq

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


# The library files (p = 5 ... 101) are compiled once, by tests/test_coq_library.py.


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
    return None  # the weakened lemma's name depends on its digits: any capture_time_log10_lo_* lemma


def _with_twin(entry: dict, end: str, new: fmpq) -> None:
    """entry[end] = new, and its log10 twin moved with it (log10 of the new end rounded outward at 10^-15,
    mpmath at 60 digits), so that the pair agrees and the forged end's own lemma is what refuses it."""
    import mpmath

    _set(entry, end, new)
    with mpmath.workdps(60):
        scaled = mpmath.log10(mpmath.mpf(int(new.p)) / int(new.q)) * 10**15
        _set(entry, f"log10_{end}", fmpq(int(mpmath.floor(scaled) if end == "lo" else mpmath.ceil(scaled)), 10**15))


def forge_capture_lo_far(d):
    # T is about 1e67 (p = 5): lo past the truth by 10^533, its twin log10_lo left as it was, so the pair rule
    # (capture_time_log10_lo_pair, before any integral) refuses it, as certify check does
    d["claims"]["capture_time"]["lo"] = "1e600"
    return "capture_time_log10_lo_pair"


def forge_capture_lo(d):
    entry = d["claims"]["capture_time"]
    _set(entry, "lo", value(entry["lo"]) * (1 + fmpq(1, 10**10)))  # past the truth by more than 13 digits resolve
    return "capture_time_log10_lo_pair"  # its twin no longer agrees (see forge_capture_consistent for both moved)


def forge_capture_hi(d):
    entry = d["claims"]["capture_time"]
    _set(entry, "hi", value(entry["hi"]) * (1 - fmpq(1, 10**10)))
    return "capture_time_log10_hi_pair"
def forge_capture_consistent(d):
    """lo and log10_lo moved past the truth together: the enclosure itself is false (integral fails)."""
    entry = d["claims"]["capture_time"]
    _with_twin(entry, "lo", value(entry["lo"]) * (1 + fmpq(1, 10**9)))  # only the integral can refuse it
    return "capture_time_ln_enclosure"


def forge_base_point(d):
    """Only the base point's w(0) moved: the parameters (d0 = 2 p gamma_*) and the box disagree."""
    d["base_point"]["w"]["at_0"] = format_rational(value(d["base_point"]["w"]["at_0"]) + fmpq(1, 1000))
    return "base_point_w_at_0"


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


#: Each forged file compiles in about 2 s (coqc stops at the forged lemma); capture_time's pass the
#: enclosure integral first (a few seconds) and fail in interval, except the consistent one, which must
#: exhaust the integral's fuel before it fails (about 20 s).
FORGERIES = [forge_admissibility, forge_admissibility_sign, forge_invariant, forge_kappa, forge_direction,
             forge_direction_elsewhere, forge_fraction, forge_loss, forge_region_sign]
CAPTURE_FORGERIES = [forge_capture_consistent, forge_capture_time, forge_capture_lo_far, forge_capture_lo,
                     forge_capture_hi]


def test_forged_certificates_are_rejected(tmp_path):
    """Each forgery refused in its own lemma; the lemmas it left unchanged are admitted (coqtext.admit_unchanged:
    the library compilation proves them)."""
    from coqtext import admit_unchanged, compile_texts

    texts, lemmas = {}, {}
    honest = {False: coq_file(forged(5)).text, True: coq_file(forged(5, keep_capture_time=True)).text}
    for forge, keep in [(forge, False) for forge in FORGERIES] + [(forge, True) for forge in CAPTURE_FORGERIES]:
        document = forged(5, keep_capture_time=keep)
        lemmas[forge.__name__] = forge(document)
        texts[forge.__name__] = admit_unchanged(coq_file(document).text, honest[keep])
    document = copy.deepcopy(certificate(5))  # the whole certificate, only w(0) moved
    lemmas["forge_base_point"] = forge_base_point(document)
    texts["forge_base_point"] = admit_unchanged(coq_file(document).text, coq_file(certificate(5)).text)
    results = compile_texts(tmp_path, texts, timeout=300)
    for name, lemma in lemmas.items():
        result = results[name]
        assert not result.ok, f"{name}: coqc accepted a forged certificate"
        rejected = failing_lemma(texts[name], result)
        if lemma is None:
            assert rejected.startswith("capture_time_log10_lo_"), (name, rejected, result.message)
        else:
            assert rejected == lemma, (name, rejected, result.message)


@pytest.mark.parametrize("p", [5, 13, 101])
def test_every_claim_is_covered(p):
    document = certificate(p)
    items = slide_obligations(document)
    covered = {item.claim for item in items if isinstance(item, (Lemma, NotExported))}
    mine = set(document["claims"]) - {"gaussian_probability"}
    # gaussian_probability is certify.coq.gaussian's; region_probability is certify.coq.region_slide's
    assert covered == mine | {"base_point"}
    assert coq_file(document).not_exported == ()
    exported = {item.claim for item in items if isinstance(item, Lemma)}
    assert exported == mine | {"base_point"}  # every claim of slide has lemmas, and the base point its own
    # weakened lemmas: only the capture-time integral's ends and the region bound's (tests/test_coq_region_slide.py),
    # and each name says which end and how many digits
    weak = [item for item in items if isinstance(item, Lemma) and item.digits is not None]
    assert {item.claim for item in weak} == {"capture_time", "region_probability"}
    assert [re.sub(r"_\d+_digits$", "", item.name) for item in weak] == [
        "capture_time_lo", "capture_time_hi", "capture_time_log10_lo", "capture_time_log10_hi",
        "region_probability_lo", "region_probability_log10_lo"]
    for item in weak:
        assert item.name.endswith(f"_{item.digits}_digits") and item.digits >= 13
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
    ends = [re.findall(r"\((\d+) / (\d+)\)", item.statement)[0] for item in items.values()
            if re.fullmatch(r"capture_time_log10_(lo|hi)_\d+_digits", item.name)]
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


def log_form(statement: str) -> fmpq:
    """M 10^E of the first ``ln M + E * ln 10`` of a statement (E possibly written ``(-E)``)."""
    m, e = re.search(r"ln (\d+) \+ \(?(-?\d+)\)? \* ln 10", statement).groups()
    return fmpq(int(m)) * fmpq(10) ** int(e)


@pytest.mark.parametrize("p", [5, 13, 101])
def test_capture_time_ends_are_the_certificates(p):
    """lo and hi are stated (in log form), each the certificate's end moved outward by at most 3e-12 relatively."""
    document = certificate(p)
    items = {item.name: item for item in slide_obligations(document) if isinstance(item, Lemma)}
    claim = document["claims"]["capture_time"]
    lo, hi = value(claim["lo"]), value(claim["hi"])
    lo_stated = log_form(items["capture_time_lo_13_digits"].statement)
    hi_stated = log_form(items["capture_time_hi_13_digits"].statement)
    assert items["capture_time_lo_13_digits"].statement.endswith("<= ln capture_time")
    assert items["capture_time_hi_13_digits"].statement.startswith("ln capture_time <= ")
    assert lo * (1 - fmpq(3, 10**12)) <= lo_stated < lo * (1 - fmpq(1, 10**12))
    assert hi * (1 + fmpq(1, 10**12)) < hi_stated <= hi * (1 + fmpq(3, 10**12))
    # the ends are short: the literal of lo (~log10_lo digits) is never written out
    for name in ("capture_time_lo_13_digits", "capture_time_hi_13_digits"):
        assert max(len(n) for n in re.findall(r"\d+", items[name].statement)) <= 14
    # one fine integral for all four ends (and a coarse one for the sign)
    proofs = [item.proof for item in items.values() if item.claim == "capture_time"]
    assert sum("integral" in proof for proof in proofs) == 2
    assert "integral" in items["capture_time_ln_enclosure"].proof


def test_capture_time_digits_do_not_follow_the_claim():
    """A forged end does not change how many digits the lemmas state: it is rejected, not weakened."""
    def names(document):
        return sorted(item.name for item in slide_obligations(document)
                      if isinstance(item, Lemma) and item.claim == "capture_time")

    honest = forged(13, keep_capture_time=True)
    for forge in (forge_capture_lo_far, forge_capture_lo, forge_capture_hi, forge_capture_time):
        document = forged(13, keep_capture_time=True)
        forge(document)
        assert names(document) == names(honest), forge.__name__


@pytest.mark.parametrize("p", [5, 13, 101])
def test_base_point_is_the_construction(p):
    """base_point_* lemmas state the certificate's base point = the construction of section A.3 in its own
    parameters, before every lemma that uses the base point."""
    document = certificate(p)
    items = [item for item in slide_obligations(document) if isinstance(item, Lemma)]
    names = [item.name for item in items]
    blocks = [f"base_point_{b}_{level}" for b in "uvw" for level in ("at_0", "elsewhere")]
    assert names[:6] == blocks
    statements = {item.name: item.statement for item in items}
    X, g = document["parameters"]["X"], document["parameters"]["gamma_star"]
    assert statements["base_point_w_at_0"].endswith(f"= 2 * {p} * {g}")
    assert statements["base_point_u_elsewhere"].endswith(f"= - 3 * {X}")
    assert statements["base_point_w_at_0"].startswith(f"{document['base_point']['w']['at_0']} = ")
