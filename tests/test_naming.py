"""certify.theorems.naming: distinct instances get distinct Coq module names and LaTeX document names."""

import pytest

from certify.coq.export import module_name
from certify.render.document import document_name
from certify.theorems.registry import THEOREMS


@pytest.fixture(scope="module")
def instances():
    build = lambda theorem, **options: THEOREMS[theorem].build(5, **options).certificate  # noqa: E731
    return {
        "default": build("dead"),
        "radius": build("dead", radius="1/10"),
        "sigma": build("dead", sigma=2),
        "prec": build("dead", prec=192),
        "epsilon": build("dead", epsilon="1/3"),
        "epsilon_other": build("dead", epsilon="13/10"),
        "gd_reference": build("gd", eta=1),
        "gd_third": build("gd", eta="1/3"),
        "gd_decimal": build("gd", eta="13/10"),
    }


def test_names_are_injective(instances):
    for name in (module_name, document_name):
        names = {key: name(document) for key, document in instances.items()}
        assert len(set(names.values())) == len(names), names


def test_the_library_keeps_its_names(instances):
    """The reference instances keep the proof library's names (dead_5.v, dead-5.tex, gd_5_eta_1.v, gd-5.tex)."""
    assert module_name(instances["default"]) == "dead_5" and document_name(instances["default"]) == "dead-5"
    assert module_name(instances["gd_reference"]) == "gd_5_eta_1" and document_name(instances["gd_reference"]) == "gd-5"


def test_the_radius_sigma_and_precision_are_named(instances):
    """Hand-written: the review found dead at the default radius and at --radius 0.1 writing one dead_5.v."""
    assert module_name(instances["radius"]) == "dead_5_r_0p1"
    assert document_name(instances["radius"]) == "dead-5-r-0p1"
    assert module_name(instances["sigma"]) == "dead_5_sigma_2"
    assert module_name(instances["prec"]).startswith("dead_5_prec_192")
    assert module_name(instances["gd_third"]) == "gd_5_eta_1o3" and module_name(instances["gd_decimal"]) == "gd_5_eta_1p3"
