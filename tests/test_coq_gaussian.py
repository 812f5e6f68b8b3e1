"""Coq lemmas of the ``gaussian_probability`` claim (certify/coq/gaussian.py).

Files are built from the Gaussian lemmas alone (export.HEADER, R scope, the items) and compiled with
coqc, which these tests require (they fail, never skip, without it: CI installs it). Expected
values come from the certificates' text and the paper's construction, never from the code under test.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from flint import fmpq

from certify.coq.export import HEADER
from certify.coq.gaussian import CLAIM, box_coordinates, gaussian_lemmas
from certify.coq.lemma import Definition, Lemma, NotExported
from certify.coq.terms import ESCAPE_HATCHES

from coqtext import compile_texts, strip_comments

ROOT = Path(__file__).resolve().parent.parent
THEOREMS = ("dead", "slide", "smooth", "gd")
PRIMES = (5, 13, 101)
#: The tampered files are dead p = 5 (compiled here); the honest lemmas of every (theorem, p) are those of the
#: committed library file, which tests/test_coq_library.py compiles (slide's far tails, mass about e^-11175 per
#: coordinate at p = 101, gd's tiny box, r = 0.000096, and the family's moderate masses among them).

def load(theorem: str, p: int) -> dict:
    return json.loads((ROOT / "proofs" / theorem / f"{theorem}-{p}.json").read_text())


def coq_text(items) -> str:
    return HEADER + "Local Open Scope R_scope.\n\n" + "\n".join(
        item.text() for item in items if isinstance(item, (Lemma, Definition)))


def lemma(items, name: str) -> Lemma:
    """The one lemma called ``name`` or ``name_K_digits``."""
    found = [item for item in items if isinstance(item, Lemma) and re.fullmatch(rf"{name}(_\d+_digits)?", item.name)]
    assert len(found) == 1, (name, [item.name for item in items])
    return found[0]


def decimal(text: str) -> Fraction:
    return Fraction(text)  # the certificates' canonical decimals are valid Python Fraction literals


@pytest.fixture(scope="module")
def exported():
    return {(theorem, p): gaussian_lemmas(load(theorem, p)) for theorem in THEOREMS for p in PRIMES}


def tampered_texts(items) -> dict[str, str]:
    """Files of dead p = 5 with a statement moved past the truth or a proof parameter L raised."""
    text = coq_text(items)
    texts = {}
    # an integral's lower bound L raised by a relative 10^-8 (statement, proof and log bound)
    coordinate = lemma(items, "gaussian_probability_u_elsewhere_mass_lower")
    n, d = map(int, re.search(r"\* \((\d+) / (\d+)\) <=", coordinate.statement).groups())
    raised = Fraction(n, d) * (1 + Fraction(1, 10 ** 8))
    texts["raised_L"] = text.replace(f"({n} / {d})", f"({raised.numerator} / {raised.denominator})")
    # lo raised by a relative 10^-3
    lo = lemma(items, "gaussian_probability_lo")
    leading, exponent = re.match(r"(\d+) / 10 \^ (\d+)", lo.statement).groups()
    texts["raised_lo"] = text.replace(f"{leading} / 10 ^ {exponent}",
                                      f"{int(leading) * 1001 // 1000} / 10 ^ {exponent}")
    # log10_lo raised by 10^-6
    twin = lemma(items, "gaussian_probability_log10_lo")
    n, d = map(int, re.match(r"\(- \((\d+) / (\d+)\)\)", twin.statement).groups())
    moved = -Fraction(n, d) + Fraction(1, 10 ** 6)
    texts["raised_log10_lo"] = text.replace(f"(- ({n} / {d}))", f"(- ({-moved.numerator} / {moved.denominator}))")
    # the rescaling identity made false
    texts["false_rescale"] = text.replace("RInt gaussian_probability_phi a b = exp (- c ^ 2 / 2) *",
                                          "RInt gaussian_probability_phi a b = exp (- c ^ 2 / 3) *", 1)
    for name, changed in texts.items():
        assert changed != text, name
    return texts



@pytest.fixture(scope="module")
def compiled(exported, tmp_path_factory):
    """coqc's results on the tampered files."""
    tampered = {f"tampered_{name}": text for name, text in tampered_texts(exported["dead", 5]).items()}
    return compile_texts(tmp_path_factory.mktemp("coq"), tampered)


def test_the_honest_lemmas_are_the_compiled_library_files_own(exported):
    """Every Gaussian definition and lemma, verbatim, in its committed library file: the library compilation
    (tests/test_coq_library.py) proves them there, so compiling them alone again here would prove nothing new."""
    from certify.coq.export import module_name

    for (theorem, p), items in exported.items():
        assert not [item for item in items if isinstance(item, NotExported)]
        library = ROOT / "proofs" / theorem / f"{module_name(load(theorem, p))}.v"
        text = library.read_text()
        missing = [item.name for item in items if isinstance(item, (Lemma, Definition)) and item.text() not in text]
        assert not missing, (theorem, p, missing)


def test_tampered_proofs_are_rejected(compiled):
    """A statement moved past the truth, or a proof parameter L raised, makes coqc fail."""
    tampered = {name: result for name, result in compiled.items() if name.startswith("tampered_")}
    assert len(tampered) == 4
    assert not [name for name, result in tampered.items() if result.ok]


def test_statements_use_the_certificates_numbers(exported):
    for (theorem, p), items in exported.items():
        document = load(theorem, p)
        assert all(item.claim == CLAIM for item in items if isinstance(item, Lemma))
        names = [item.name for item in items if isinstance(item, (Lemma, Definition))]
        assert len(names) == len(set(names))
        positive = lemma(items, "gaussian_probability_positive")
        assert positive.digits is None and positive.statement == "0 < gaussian_probability_box_mass"
        # the box mass: the six blocks of the base point, counts 1 and p - 1, radius as written
        box = next(item for item in items if isinstance(item, Definition) and item.name == "gaussian_probability_box_mass")
        radius = decimal(document["radius"])
        for block in "uvw":
            for part, count in (("at_0", 1), ("elsewhere", p - 1)):
                value = decimal(document["base_point"][block][part])
                written = str(value.numerator) if value.denominator == 1 else f"{abs(value.numerator)} / {value.denominator}"
                assert written in box.body and f"^ {count}" in box.body
        assert f"{radius.numerator} / {radius.denominator}" in box.body
        assert box.body.count("gaussian_probability_mass") == 6
        # lo: the certificate's leading digits, rounded down (a prefix of its mantissa)
        lo = lemma(items, "gaussian_probability_lo")
        mantissa_text, exponent_text = document["claims"][CLAIM]["lo"].split("e")
        digits = mantissa_text.replace(".", "")
        assert lo.digits is not None and lo.name == f"gaussian_probability_lo_{lo.digits}_digits"
        assert lo.digits >= 9
        short = re.fullmatch(r"(\d+) / 10 \^ (\d+) <= gaussian_probability_box_mass", lo.statement)
        long = re.fullmatch(r"ln (\d+) - (\d+) \* ln 10 <= ln gaussian_probability_box_mass", lo.statement)
        assert (short is not None) == (lo.digits - 1 - int(exponent_text) <= 2000) and (short or long)
        leading, exponent = (short or long).groups()
        # the certificate's lo lowered by what the integrals lose (a relative ~3p 10^-13) and rounded down
        # to lo.digits significant digits: below lo, within a relative 10^(2 - digits) of it
        assert len(leading) <= lo.digits and int(exponent) >= 0
        ratio = Fraction(int(leading)) / Fraction(int(digits)) * Fraction(10) ** (
            len(digits) - 1 - int(exponent_text) - int(exponent))  # lo' / lo, exactly
        assert 1 - Fraction(1, 10 ** (lo.digits - 2)) < ratio < 1
        # log10_lo: at most the certificate's, within 10^-8 of it
        twin = lemma(items, "gaussian_probability_log10_lo")
        assert twin.digits is not None and twin.name.endswith(f"_{twin.digits}_digits")
        match = re.fullmatch(r"\(- \((\d+) / (\d+)\)\) <= ln gaussian_probability_box_mass / ln 10", twin.statement)
        stated = -Fraction(int(match.group(1)), int(match.group(2)))
        certificate = decimal(document["claims"][CLAIM]["log10_lo"])
        assert certificate - Fraction(1, 10 ** 8) < stated <= certificate


def test_coordinates_are_the_kernels_centres():
    from certify.kernel.family import family_gaussian_centres
    from certify.kernel.slide import SlideParameters, slide_gaussian_centres

    for theorem in THEOREMS:
        for p in PRIMES:
            document = load(theorem, p)
            q = {name: fmpq(Fraction(value).numerator, Fraction(value).denominator)
                 for name, value in document["parameters"].items()}
            if theorem == "slide":
                kernel = slide_gaussian_centres(SlideParameters(p, q["gamma_star"], q["X"]))
            else:
                kernel = family_gaussian_centres(p, q["epsilon"], q["A"], q["B"])
            ours = Counter()
            for _, value, count in box_coordinates(document):
                ours[Fraction(int(value.p), int(value.q))] += count
            theirs = Counter()
            for value, count in kernel:
                theirs[Fraction(int(value.p), int(value.q))] += count
            assert ours == theirs and sum(ours.values()) == 3 * p


def test_no_escape_hatches(exported):
    for items in exported.values():
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", strip_comments(coq_text(items))))
        assert not words & set(ESCAPE_HATCHES)


def forged(document: dict, **changes) -> dict:
    forged = copy.deepcopy(document)
    forged["claims"][CLAIM].update(changes.get("claim", {}))
    if "radius" in changes:
        forged["radius"] = changes["radius"]
    return forged


def test_forged_certificates_are_refused_by_coq(tmp_path):
    """lo ten times the truth, log10_lo one more than the truth, the box halved, and lo a relative 10^-8
    above the truth: the digits stated depend only on what the integrals lose, never on the forged end,
    so each forged file states a false bound and coqc refuses it (in the lo or log10_lo lemma)."""
    from coqtext import compile_texts, failing_lemma

    document = load("dead", 13)
    honest = lemma(gaussian_lemmas(document), "gaussian_probability_lo").digits
    changes = {"lo_times_10": {"claim": {"lo": "1.79932090977349313326311672434873302927010754e-33"}},
               "log10_plus_1": {"claim": {"log10_lo": "-32.7448913731109342982514193900374421"}},
               "box_halved": {"radius": "0.1235"},
               "lo_plus_1e_8": {"claim": {"lo": "1.79932092777e-34"}}}
    texts = {}
    for name, change in changes.items():
        items = gaussian_lemmas(forged(document, **change))
        assert not [item for item in items if isinstance(item, NotExported)], name
        assert lemma(items, "gaussian_probability_lo").digits == honest, name
        texts[name] = coq_text(items)
    results = compile_texts(tmp_path, texts, timeout=300)
    for name, result in results.items():
        assert not result.ok, f"coqc accepted the forgery {name}"
        assert failing_lemma(texts[name], result).startswith(("gaussian_probability_lo",
                                                                      "gaussian_probability_log10_lo")), name


def test_no_claim_no_lemmas():
    document = load("dead", 5)
    del document["claims"][CLAIM]
    assert gaussian_lemmas(document) == []


def test_a_scale_sigma_is_stated_in_units_of_sigma_and_a_forged_sigma_is_refused(tmp_path):
    """Under --sigma 5/2 the masses are those of the box in units of sigma (centres m/sigma, radius
    r/sigma): the honest file compiles; the same certificate claiming sigma = 4 (a wider law, so a
    smaller true mass than the stated lo) states a false bound, and coqc refuses it."""
    import certify

    document = certify.dead(p=5, sigma="5/2").document
    items = gaussian_lemmas(document)
    assert not [item for item in items if isinstance(item, NotExported)]
    point = document["base_point"]
    ours = {name: Fraction(int(value.p), int(value.q)) for name, value, _ in box_coordinates(document)}
    assert ours["w_at_0"] == Fraction(point["w"]["at_0"]) / Fraction(5, 2)
    assert f"{CLAIM}_mass" in coq_text(items)
    radius = Fraction(document["radius"]) / Fraction(5, 2)
    assert f"({radius.numerator} / {radius.denominator})" in coq_text(items)
    wider = copy.deepcopy(document)
    wider["parameters"]["sigma"] = "4"
    results = compile_texts(tmp_path, {"honest": coq_text(items), "wider": coq_text(gaussian_lemmas(wider))},
                            timeout=300)
    assert results["honest"].ok, results["honest"].message
    assert not results["wider"].ok
