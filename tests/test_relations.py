"""Every word of a claim is what is checked: statements come from the claims' relations, the checker
and the relations agree on every weakened field, and coqc agrees with the checker on weakened files.

The oracle of what a weakened certificate states is written here from the relation semantics of
docs/numbers-and-checking.md (a lower end may be lowered, an upper end raised; landmarks lo > c, hi < c;
the log10 twin is its end's log10 rounded at its last digit), with mpmath at 60 digits for the twins --
not by calling the checker's own comparison functions.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.certificate import dumps
from certify.check import check_bytes
from certify.kernel.claims import ClaimSpec, Component, LOWER, POSITIVE_LOWER, UPPER, Relation
from certify.kernel.exact import format_rational
from certify.kernel.registry import KERNELS, relation_of
from certify.theorems.registry import THEOREMS

#: The parameters a theorem's build needs here: the library's (gd's eta = 1, certify.proofs.REFERENCE_ETA), so that
#: the slow honest lemmas the Coq tests admit are word for word a committed library file's (coqtext.with_admitted;
#: the gd region route depends on eta)
REFERENCE = {"gd": {"eta": "1"}}


def _fmpq(text: str) -> fmpq:
    value = Fraction(text)
    return fmpq(value.numerator, value.denominator)


@pytest.fixture(scope="module")
def small_certificates():
    """{theorem: certificate at p = 5} for every registered theorem (default parameters)."""
    return {name: record.build(5, **REFERENCE.get(name, {})).certificate for name, record in THEOREMS.items()}


# --- the class fix: statements are generated, and cannot tie a field to a formula ------------------------

def test_every_stored_statement_is_the_spec_statement_of_its_relations(small_certificates):
    for name, document in small_certificates.items():
        specs = {spec.id: spec for spec in KERNELS[name].claim_specs()}
        assert list(specs) == list(KERNELS[name].claim_ids)
        for claim_id, stored in document["claims"].items():
            spec = specs[claim_id]
            values = {key: _fmpq(document["parameters"][key]) for key in ("sigma",) if key in document["parameters"]}
            if claim_id == "region_purity_probability":
                values["delta"] = _fmpq(document["parameters"]["purity_margin"])
            if claim_id != "region_probability" or name != "slide":  # slide's region quotes its own gamma_*, X
                assert stored["statement"] == spec.statement(**values)
            if spec.relation is not None:
                assert set(stored) - {"statement", "scope"} == set(spec.relation.keys())
            else:
                assert set(stored["components"]) == {part.name for part in spec.components}
                for part in spec.components:
                    assert set(stored["components"][part.name]) == set(part.relation.keys())


@pytest.mark.parametrize("text", ["the step's ||w_1 - w_0||_1 <= hi = 2 eta (epsilon + 2r)/p^2",
                                  "lo = 10^log10_lo", "a value in [lo, hi]", "exact value"])
def test_a_subject_naming_a_field_is_refused(text):
    with pytest.raises(ValueError, match="names the stored field"):
        ClaimSpec("forged", "box", text, UPPER)
    with pytest.raises(ValueError, match="names the stored field"):
        ClaimSpec("forged", "box", "a quantity", UPPER, note=text)
    with pytest.raises(ValueError, match="names the stored field"):
        Component("forged", text, LOWER)


def test_a_one_sided_field_reads_as_a_bound_with_its_closed_form():
    spec = ClaimSpec("w_step_box", "box", "the step's ||w_1 - w_0||_1", UPPER, bound="2 eta (epsilon + 2r)/p^2")
    assert spec.statement() == "the step's ||w_1 - w_0||_1 <= hi, hi >= 2 eta (epsilon + 2r)/p^2"
    positive = ClaimSpec("margin", "box", "the margin", POSITIVE_LOWER, bound="A - 2r")
    assert positive.statement() == "the margin >= lo, lo > 0, lo <= A - 2r"
    with pytest.raises(ValueError, match="one-sided"):
        ClaimSpec("enclosed", "box", "T", Relation("enclosure"), bound="p^2")


def test_gd_w_step_box_states_a_bound_not_an_equation(small_certificates):
    statement = small_certificates["gd"]["claims"]["w_step_box"]["statement"]
    assert "hi >= 2 eta (epsilon + 2r)/p^2" in statement and "hi =" not in statement


def test_relation_of_every_claim_and_component():
    assert relation_of("gd", "w_step_box").keys() == ("hi",)
    assert relation_of("dead", "hitting_time").keys() == ("lo", "hi")
    assert relation_of("dead", "gaussian_probability").keys() == ("lo", "log10_lo")
    assert relation_of("slide", "capture_time").keys() == ("lo", "hi", "log10_lo", "log10_hi")
    assert relation_of("gd", "one_step_death_box", "central_gate").hi_below == 0
    assert relation_of("sensitivity", "terminal_map_derivative", "s_a").kind == "exact"
    for bad in (("gd", "nothing", None), ("gd", "one_step_death_box", None), ("gd", "w_step_box", "x")):
        with pytest.raises(KeyError):
            relation_of(*bad)


# --- weakening every one-sided field: the checker does what the relation says ---------------------------

def _weaker(text: str, direction: str) -> str:
    """A number on the weak side of ``text``: lower for an end below Q, higher for one above it."""
    value = Fraction(text)
    if direction == "below":
        value = value / 10 if value > 0 else (value * 10 if value < 0 else Fraction(-1))
    else:
        value = value * 10 if value > 0 else (value / 10 if value < 0 else Fraction(1))
    return format_rational(fmpq(value.numerator, value.denominator))


def _weaker_log10(text: str, direction: str) -> str:
    """A log10 field one unit of its leading digit weaker (still a canonical decimal)."""
    value = Fraction(text)
    step = Fraction(10) ** (len(str(abs(value.numerator) // value.denominator or 1)) - 1)
    return format_rational(fmpq(*(lambda v: (v.numerator, v.denominator))(value - step if direction == "below"
                                                                            else value + step)))


def _twin_holds(end: str, twin: str, upper: bool) -> bool:
    """log10_lo <= log10 lo < log10_lo + u (upper: log10_hi - u < log10 hi <= log10_hi), u the unit of the
    twin's last written digit, and 2u <= |twin|; decided with mpmath at 60 digits (the tests' margins are
    far wider than 10^-50)."""
    mantissa = twin.split("e")[0].lstrip("-")
    exponent = int(twin.split("e")[1]) if "e" in twin else 0
    places = len(mantissa.split(".")[1]) if "." in mantissa else -len(mantissa) + len(mantissa.rstrip("0"))
    unit = Fraction(10) ** (exponent - places)
    field = Fraction(twin)
    if 2 * unit > abs(field) or Fraction(end) <= 0:
        return False
    with mpmath.workdps(60):
        log = mpmath.log10(mpmath.mpf(Fraction(end).numerator) / Fraction(end).denominator)
        f, u = mpmath.mpf(field.numerator) / field.denominator, mpmath.mpf(unit.numerator) / unit.denominator
        return (f - u < log <= f) if upper else (f <= log < f + u)


def _predicted(node: dict, relation: Relation, key: str, value: str) -> bool:
    """Whether ``node`` with ``key`` set to the weaker ``value`` still states what its relation asks:
    the weaker end is still true; the landmarks and the twin pair must still hold."""
    trial = dict(node, **{key: value})
    if relation.lo_above is not None and not Fraction(trial["lo"]) > relation.lo_above:
        return False
    if relation.hi_below is not None and not Fraction(trial["hi"]) < relation.hi_below:
        return False
    for end, upper in (("lo", False), ("hi", True)):
        if f"log10_{end}" in trial and not _twin_holds(trial[end], trial[f"log10_{end}"], upper):
            return False
    return True


def _weakenings(document: dict):
    """(claim, component, key, weaker value, predicted verdict) for every one-sided field of every claim."""
    for claim_id, stored in document["claims"].items():
        parts = [(None, stored)] + list(stored.get("components", {}).items())
        for component, node in parts:
            if component is None and "components" in stored:
                continue
            relation = relation_of(document["theorem"], claim_id, component)
            for key in relation.keys():
                direction = relation.direction(key)
                if direction == "equal":
                    continue
                weaker = (_weaker_log10 if key.startswith("log10") else _weaker)(node[key], direction)
                yield claim_id, component, key, weaker, _predicted(node, relation, key, weaker)


def _with(document: dict, claim_id: str, component, key: str, value: str) -> dict:
    changed = json.loads(json.dumps(document))
    node = changed["claims"][claim_id]
    if component is not None:
        node = node["components"][component]
    node[key] = value
    return changed


@pytest.mark.parametrize("theorem", list(THEOREMS))
def test_the_checker_accepts_exactly_the_weakenings_the_relation_allows(small_certificates, theorem):
    document = small_certificates[theorem]
    seen = {True: 0, False: 0}
    for claim_id, component, key, weaker, predicted in _weakenings(document):
        verdict = check_bytes(dumps(_with(document, claim_id, component, key, weaker)).encode())
        where = f"{claim_id}/{component or '-'}/{key} = {weaker}"
        assert verdict.status in ("verified", "rejected"), f"{where}: {verdict.line()}"
        assert bool(verdict) == predicted, f"{where}: the relation says {predicted}, check says {verdict.line()}"
        seen[predicted] += 1
    assert seen[True] > 0  # every theorem has one-sided fields that may be weakened


def test_weakening_shows_both_verdicts_somewhere(small_certificates):
    """The walk is not vacuous: somewhere a weaker end is refused (a broken twin or landmark)."""
    outcomes = {predicted for document in small_certificates.values() for *_, predicted in _weakenings(document)}
    assert outcomes == {True, False}


# --- coqc agrees with the checker on the same weakened files --------------------------------------------

COQ_THEOREMS = [name for name, record in THEOREMS.items() if record.coq is not None]


def _coq_items(document: dict):
    from certify.coq.export import obligations, radius_lemma

    return [radius_lemma(document), *obligations(document)]


def _coq_text(items, honest=None) -> str:
    """The file of ``items``; with ``honest`` (the unchanged certificate's items), every lemma the change left
    unchanged admitted (coqtext.admit_unchanged: word for word a committed library file's with the definitions it
    names, and naming no changed definition), so that coqc spends its time on what the change touched."""
    from certify.coq.export import HEADER
    from certify.coq.lemma import Definition, Lemma
    from coqtext import admit_unchanged

    def text(chosen):
        return HEADER + "Local Open Scope R_scope.\n\n" + "\n".join(
            item.text() for item in chosen if isinstance(item, (Lemma, Definition)))

    if honest is None:
        return text(items)
    return admit_unchanged(text(items), text(honest))


def _claim_items(items, claims) -> list:
    """The definitions, the lemmas of ``claims`` and every lemma their proofs use (by name, transitively:
    smooth's J enclosure and its helpers, sensitivity's enclosure of I), in the file's order, so that a
    claim's lemmas compile alone and a refusal is their own, never a missing reference."""
    import re

    from certify.coq.lemma import Definition, Lemma

    lemmas = {item.name: item for item in items if isinstance(item, Lemma)}
    wanted = {name for name, item in lemmas.items() if item.claim in claims}
    todo = list(wanted)
    while todo:
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_']*", lemmas[todo.pop()].proof):
            if word in lemmas and word not in wanted:
                wanted.add(word)
                todo.append(word)
    return [item for item in items if isinstance(item, Definition) or (isinstance(item, Lemma) and item.name in wanted)]


def _exported(document: dict) -> set:
    from certify.coq.lemma import Lemma, NotExported

    items = _coq_items(document)
    not_exported = {item.claim for item in items if isinstance(item, NotExported)}
    return {item.claim for item in items if isinstance(item, Lemma)} - not_exported


def test_coqc_and_the_checker_agree_on_weakened_certificates(small_certificates, tmp_path):
    """For each theorem with a Coq exporter (p = 5): every weakening the relation allows, applied at once,
    gives a file the checker verifies and coqc compiles (the weakened claims' lemmas); each weakening it refuses (a broken twin, a
    crossed landmark), of an exported claim, gives a file the checker rejects and coqc refuses (the
    claim's own lemmas and the definitions, compiled alone, so the refusal is its own)."""
    from coqtext import compile_texts

    texts, expected = {}, {}
    for theorem in COQ_THEOREMS:
        document = small_certificates[theorem]
        exported = _exported(document)
        honest = _coq_items(document)
        weakened, touched = document, {"radius", "base_point"}
        for claim_id, component, key, weaker, predicted in _weakenings(document):
            if claim_id not in exported:
                continue
            if predicted:
                weakened = _with(weakened, claim_id, component, key, weaker)
                touched.add(claim_id)
                continue
            refused = _with(document, claim_id, component, key, weaker)
            assert not check_bytes(dumps(refused).encode()), f"{theorem} {claim_id}/{key}"
            name = f"{theorem}_{claim_id}_{component or ''}_{key}_refused"
            texts[name] = _coq_text(_claim_items(_coq_items(refused), {claim_id}), honest)
            expected[name] = False
        assert weakened is not document, f"{theorem}: nothing to weaken"
        assert check_bytes(dumps(weakened).encode()), f"{theorem}: the weakened certificate is not verified"
        # the claims weakened (their lemmas as exported, definitions included); the others compile as in
        # the library, which tests/test_coq_library.py compiles (so does J's admitted proof: coqtext.with_admitted)
        texts[f"{theorem}_weakened"] = _coq_text(_claim_items(_coq_items(weakened), touched), honest)
        expected[f"{theorem}_weakened"] = True
    assert False in expected.values()
    results = compile_texts(tmp_path, texts, timeout=600, likely_ok={name for name, ok in expected.items() if ok})
    disagree = {name: result.message[-300:] for name, result in results.items() if result.ok != expected[name]}
    assert not disagree, f"coqc and certify check disagree: {disagree}"


def _forged(text: str, direction: str) -> str:
    """A number far past ``text`` on the strong side: an end below Q doubled (halved if negative), an end
    above Q halved (doubled if negative), an exact value plus one; 0 becomes 1 or -1 against its side."""
    value = Fraction(text)
    if direction == "equal":
        value += 1
    elif value == 0:
        value = Fraction(1 if direction == "below" else -1)
    elif (direction == "below") == (value > 0):
        value *= 2
    else:
        value /= 2
    return format_rational(fmpq(value.numerator, value.denominator))


def _forged_log10(text: str, direction: str) -> str:
    value = Fraction(text) + (1 if direction == "below" else -1)
    return format_rational(fmpq(value.numerator, value.denominator))


def test_coqc_and_the_checker_agree_on_forged_certificates(small_certificates, tmp_path):
    """For each theorem with a Coq exporter (p = 5) and each exported claim: one field of it (its first)
    moved far past the truth (a lower end doubled, a log10 field by one, an exact value by one) is
    rejected by the checker and refused by coqc (the claim's lemmas and the definitions compiled alone,
    with the lemmas their proofs use: smooth's J enclosure, sensitivity's enclosure of I; J's slow honest proof
    admitted, coqtext.with_admitted, since the library compilation proves it)."""
    from coqtext import compile_texts

    texts = {}
    for theorem in COQ_THEOREMS:
        document = small_certificates[theorem]
        honest = _coq_items(document)
        for claim_id in sorted(_exported(document) & set(document["claims"])):
            stored = document["claims"][claim_id]
            component, node = (None, stored) if "components" not in stored else next(iter(stored["components"].items()))
            relation = relation_of(theorem, claim_id, component)
            key = relation.keys()[0]
            forge = _forged_log10 if key.startswith("log10") else _forged
            changed = _with(document, claim_id, component, key, forge(node[key], relation.direction(key)))
            verdict = check_bytes(dumps(changed).encode())
            assert verdict.status == "rejected", f"{theorem} {claim_id}: {verdict.line()}"
            texts[f"{theorem}_{claim_id}_forged"] = _coq_text(_claim_items(_coq_items(changed), {claim_id}), honest)
    results = compile_texts(tmp_path, texts, timeout=600)
    accepted = sorted(name for name, result in results.items() if result.ok)
    assert not accepted, f"coqc accepted forged certificates that certify check rejects: {accepted}"


def test_the_twin_rule_is_one_rule_in_the_checker_the_statement_and_coq(tmp_path):
    """The review's pairs: lo = 3.16e-36 beside log10_lo = -40 (u = 10, the unit of its last nonzero digit:
    -40 <= -35.5 < -30, a true weak pair) and lo = 5e-100 beside log10_lo = -100 (u = 100 > |-100|/2:
    refused). The checker verified the first while the statement's words ('rounded down at the last digit',
    u = 1) made it false and coqc refused it; and refused the second while coqc proved it."""
    from certify.coq.relations import twin_lemmas
    from coqtext import compile_texts

    document = THEOREMS["dead"].build(13).certificate
    statement = document["claims"]["gaussian_probability"]["statement"]
    assert "u the unit of the last nonzero digit of the log10 field, |log10 field| >= 2u" in statement
    weak = _with(_with(document, "gaussian_probability", None, "lo", "3.16e-36"),
                 "gaussian_probability", None, "log10_lo", "-40")
    wide = _with(_with(document, "gaussian_probability", None, "lo", "5e-100"),
                 "gaussian_probability", None, "log10_lo", "-100")
    assert _twin_holds("3.16e-36", "-40", upper=False) and not _twin_holds("5e-100", "-100", upper=False)
    assert check_bytes(dumps(weak).encode())
    assert check_bytes(dumps(wide).encode()).status == "rejected"
    texts = {name: _coq_text(twin_lemmas(changed, "gaussian_probability"))
             for name, changed in (("weak", weak), ("wide", wide))}
    assert "2 * 10 <= Rabs (-40)" in texts["weak"] and "< ((-40) + 10)" in texts["weak"]  # u = 10, the checker's
    results = compile_texts(tmp_path, texts, likely_ok={"weak"})
    assert results["weak"].ok, results["weak"].message
    assert not results["wide"].ok
