"""certify/render/statements.py: each claim's typeset statement is its spec's relation with its numbers."""

import json
import re

import pytest

from certify.errors import InputError
from certify.kernel.claims import VALUE_NAMES
from certify.kernel.registry import KERNELS
from certify.render.statements import FORMS, quoted_values, statement_latex
from conftest import ROOT


def _specs():
    return [(theorem, spec) for theorem, kernel in KERNELS.items() for spec in kernel.claim_specs()]


@pytest.mark.parametrize("theorem, spec", _specs(), ids=lambda x: getattr(x, "id", x))
def test_every_claim_has_one_latex_form_with_the_specs_parts(theorem, spec):
    form = FORMS[theorem][spec.id]
    assert sorted(form.components) == sorted(component.name for component in spec.components)
    # a closed-form bound is shown exactly where the spec compares one, and nowhere else
    assert bool(form.bound) == (spec.bound is not None)
    for component in spec.components:
        assert bool(form.components[component.name].bound) == (component.bound is not None)
    # the quoted instance values are the plain statement's
    words = " ".join([form.prose, form.note] + [t for c in form.components.values() for t in (c.prose, c.note)])
    quotes = set(re.findall(r"\{(" + "|".join(VALUE_NAMES) + r")\}", words))
    assert quotes == set(re.findall(r"\{(" + "|".join(VALUE_NAMES) + r")\}", spec.template()))
    assert (form.quantity != "") == (spec.relation is not None)


def test_no_form_names_a_claim_the_records_do_not_have():
    for theorem, forms in FORMS.items():
        assert set(forms) == {spec.id for spec in KERNELS[theorem].claim_specs()}, theorem


def _claim(theorem, p, claim_id):
    certificate = json.loads((ROOT / "proofs" / theorem / f"{theorem}-{p}.json").read_text())
    return certificate["claims"][claim_id]


def test_an_upper_bound_reads_as_the_paper_writes_it():
    """The issue's example: the terminal displacement of dead at p = 13."""
    text = statement_latex("dead", "terminal_w_displacement_box", _claim("dead", 13, "terminal_w_displacement_box"))
    assert r"$\|w(T) - w(0)\|_1 \le 1.23507$" in text


def test_a_compared_bound_sits_on_the_checkers_side():
    """gd's w_step_box: hi >= 2 eta (epsilon + 2r)/p^2 in the plain statement; the typeset one says the same
    of the shown end (rounded up, so still >= the formula)."""
    stored = _claim("gd", 13, "w_step_box")
    text = statement_latex("gd", "w_step_box", stored)
    assert re.search(r"\\le ([0-9.]+)\$, where \$\1 \\ge \\frac\{2\\eta\(\\epsilon \+ 2r\)\}\{p\^2\}\$", text), text
    assert "hi >= 2 eta (epsilon + 2r)/p^2" in stored["statement"]


def test_landmarks_and_twins_of_a_probability():
    text = statement_latex("dead", "region_probability", _claim("dead", 13, "region_probability"))
    assert r"\ge 4.53771\times 10^{-8} > 0" in text and r"\ge 10^{-7.35}" in text
    assert r"$\sigma = 1$" in text  # the quoted sigma, from the stored statement


def test_quoted_values_come_from_the_stored_statement_every_digit():
    spec = next(s for s in KERNELS["slide"].claim_specs() if s.id == "region_probability")
    stored = _claim("slide", 13, "region_probability")
    values = quoted_values(spec, stored["statement"])
    assert set(values) == {"sigma", "gamma_star", "X"}
    assert f"sigma = {values['sigma']}," in stored["statement"]
    with pytest.raises(InputError, match="not the claim's"):
        quoted_values(spec, stored["statement"].replace("sigma = ", "sigma is "))


@pytest.mark.parametrize("change", [
    lambda c: c.pop("lo"), lambda c: c.update(hi="2"), lambda c: c.update(lo="x"), lambda c: c.update(statement=1)])
def test_numbers_or_statement_that_are_not_the_claims_raise_one_line(change):
    stored = dict(_claim("dead", 13, "gamma_condition"))
    change(stored)
    with pytest.raises(InputError) as info:
        statement_latex("dead", "gamma_condition", stored)
    assert "\n" not in str(info.value)


def test_an_unknown_claim_raises():
    with pytest.raises(InputError, match="no claim"):
        statement_latex("dead", "no_such_claim", {})
