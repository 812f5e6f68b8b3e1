"""The Python API (certify.api through `import certify`): expected values come from the certificate's own
text (read by json and fractions.Fraction, not by certify), from mpmath, or from the command line."""

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from flint import fmpq

import certify
from certify.check import Verdict
from certify.errors import HypothesisError, InputError, MalformedCertificate
from certify.kernel.exact import ExactNumber, compare
from conftest import ROOT

NUMBER_KEYS = ("exact", "lo", "hi", "log10_lo", "log10_hi")


@pytest.fixture(scope="module")
def four():
    """One certificate of each theorem at p = 5 (gd at eta = 1)."""
    return {"dead": certify.dead(p=5), "slide": certify.slide(p=5), "smooth": certify.smooth(p=5),
            "gd": certify.gd(p=5, eta=1)}


@pytest.fixture(scope="module")
def dead13():
    return certify.dead(p=13, epsilon=Fraction(1, 2))


# --- theorem functions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", [Fraction(1, 2), "1/2", "0.50", "5e-1", " 0.5 ", fmpq(1, 2), "2/4"])
def test_dead_accepts_every_spelling_of_a_parameter(spelling, dead13):
    c = certify.dead(p=13, epsilon=spelling)
    assert c.parameters["epsilon"] == Fraction(1, 2)
    assert c.to_json() == dead13.to_json()


def test_parameters_are_fractions_equal_to_the_stored_text(four):
    for c in four.values():
        stored = json.loads(c.to_json())["parameters"]
        assert c.parameters == {name: Fraction(text) for name, text in stored.items()}
        assert all(type(value) is Fraction for value in c.parameters.values())
        assert c.radius == Fraction(json.loads(c.to_json())["radius"])


def test_gd_needs_eta_and_takes_it_exactly():
    with pytest.raises(TypeError):
        certify.gd(p=5)
    assert certify.gd(p=5, eta="1e-3").parameters["eta"] == Fraction(1, 1000)


@pytest.mark.parametrize("call, message", [
    (lambda: certify.dead(p=13, epsilon=0.1), "is not 1/10"),
    (lambda: certify.dead(p=13, epsilon=True), "expected a number"),
    (lambda: certify.dead(p=13, epsilon="half"), "not an exact number"),
    (lambda: certify.dead(p=13, epsilon=[1]), "expected an int"),
    (lambda: certify.dead(p=15), "not prime"),
    (lambda: certify.dead(p=3), "p >= 5"),
    (lambda: certify.certify_theorem("dead", 13, eta=1), "no parameter eta"),
    (lambda: certify.certify_theorem("alive", 13), "unknown theorem"),
    (lambda: certify.dead(p=13, prec=8), "prec"),
    (lambda: certify.dead(p=13, epsilon="1e-999"), "too many digits"),
])
def test_bad_input_is_one_line_input_error(call, message):
    with pytest.raises(InputError) as caught:
        call()
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_broken_hypothesis_names_it():
    with pytest.raises(HypothesisError, match="B"):
        certify.dead(p=13, epsilon=4, B=1)


def test_p_may_be_an_integer_string(dead13):
    assert certify.dead(p="13", epsilon="1/2") == dead13


def test_to_json_is_the_bytes_the_command_line_writes(tmp_path, dead13):
    from certify.cli import main

    out = tmp_path / "dead-13.json"
    assert main(["dead", "--p", "13", "--epsilon", "0.5", "--out", str(out)]) == 0
    assert out.read_bytes() == dead13.to_json().encode("ascii")


# --- claims ------------------------------------------------------------------------------------------------

def test_every_number_of_every_claim_is_the_fraction_of_its_text(four):
    seen = set()
    for c in four.values():
        stored = json.loads(c.to_json())["claims"]
        assert set(c.claims) == set(stored)
        for claim_id, claim in c.claims.items():
            assert claim.statement == stored[claim_id]["statement"]
            assert claim.scope == stored[claim_id]["scope"] in ("box", "base_point", "region")
            parts = stored[claim_id].get("components", {})
            assert set(claim.components) == set(parts)
            for view, raw in [(claim, stored[claim_id])] + [(claim.components[n], parts[n]) for n in parts]:
                for key in NUMBER_KEYS:
                    value = getattr(view, key)
                    if key in raw:
                        assert type(value) is Fraction and value == Fraction(raw[key])
                        assert getattr(view, f"{key}_text") == raw[key]
                        seen.add(key)
                    else:
                        assert value is None and getattr(view, f"{key}_text") is None
    assert seen == set(NUMBER_KEYS)  # the four theorems exercise every field


def test_claims_follow_the_schema_order_and_are_read_only(dead13):
    schema = json.loads((ROOT / "certify" / "schema" / "certify-1.schema.json").read_text())
    assert list(dead13.claims) == schema["$defs"]["dead_claims"]["required"]
    with pytest.raises(TypeError):
        dead13.claims["hitting_time"] = None


def test_dead_ends_enclose_independent_mpmath_values(dead13):
    """T (2.2)/(2.6), the transversality margin (2.7) and log p, by mpmath at 60 digits."""
    mpmath.mp.dps = 60
    p, eps, A = 13, mpmath.mpf(1) / 2, mpmath.mpf(2)
    gamma = A**2 - p * eps**2 / (2 * (p - 1))

    def g(s):
        return mpmath.sqrt(gamma + p * s**2 / (2 * (p - 1)))

    values = {
        "hitting_time": p**2 / 2 * mpmath.quad(lambda s: (1 + mpmath.exp(-s * g(s)) / (p - 1)) / g(s), [0, eps]),
        "transversality_margin": 2 * (p - 1) * mpmath.sqrt(gamma) / p**3,
        "terminal_loss": mpmath.log(p),
    }
    for claim_id, value in values.items():
        claim = dead13.claims[claim_id]
        lo, hi = (mpmath.mpf(x.numerator) / x.denominator for x in (claim.lo, claim.hi))
        assert lo < value < hi, claim_id  # the ends are ~1e-44 apart; mpmath's error is ~1e-58
    assert dead13.claims["terminal_fourier_fraction"].exact == Fraction(2, 13 - 1)


def test_slide_capture_time_is_a_big_fraction_beside_its_log10(four):
    t = four["slide"].claims["capture_time"]
    assert t.lo < t.hi and Fraction(10) ** 60 < t.lo  # about 10^68 at p = 5
    mpmath.mp.dps = 50

    def mpf(x):
        return mpmath.mpf(x.numerator) / x.denominator

    assert mpf(t.log10_lo) <= mpmath.log10(mpf(t.lo)) and mpmath.log10(mpf(t.hi)) <= mpf(t.log10_hi)


def test_a_huge_exponent_is_refused_as_a_fraction_and_given_as_text_and_exact_number():
    """At p = 10^18 - 11 the box probability is about 10^-(2.7e19): no Fraction holds it."""
    c = certify.dead(p=10**18 - 11)
    g = c.claims["gaussian_probability"]
    raw = json.loads(c.to_json())["claims"]["gaussian_probability"]
    with pytest.raises(certify.NumberTooLarge, match="lo_text") as caught:
        g.lo
    assert isinstance(caught.value, ValueError) and "\n" not in str(caught.value)
    assert g.lo_text == raw["lo"]
    mantissa, exponent = raw["lo"].split("e")
    digits = mantissa.replace(".", "")
    assert compare(g.number("lo"), ExactNumber(int(digits), 1, int(exponent) - (len(digits) - 1))) == 0
    assert g.log10_lo == Fraction(raw["log10_lo"])  # the log10 field is small: a Fraction
    assert int(exponent) - 1 < g.log10_lo < int(exponent) + 1
    assert c.check()


# --- checking, saving, loading ---------------------------------------------------------------------------

def test_verdict_is_truthy_exactly_when_verified():
    for status, truth in (("verified", True), ("rejected", False), ("malformed", False), ("error", False)):
        assert bool(Verdict("x", status, "m")) is truth


def test_check_verifies_a_genuine_certificate_and_rejects_a_doctored_one(dead13):
    verdict = dead13.check()
    assert verdict and verdict.status == "verified" and "14 claims verified" in verdict.message
    document = dead13.document
    hi = Fraction(document["claims"]["hitting_time"]["hi"])
    document["claims"]["hitting_time"]["lo"] = format(float(hi), ".17g")  # lo just at hi, not implied
    doctored = certify.Certificate(document)
    verdict = doctored.check()
    assert not verdict and verdict.status in ("rejected", "malformed") and "hitting_time" in verdict.message
    assert dead13.check()  # the original is untouched: .document is a copy


def test_load_reads_paths_text_and_bytes(tmp_path, dead13):
    path = tmp_path / "dead-13.json"
    path.write_text(dead13.to_json())
    for source in (path, str(path), dead13.to_json(), dead13.to_json().encode()):
        loaded = certify.load(source)
        assert loaded == dead13 and loaded.to_json() == dead13.to_json()
    assert certify.load(path).source == str(path)


@pytest.mark.parametrize("source, message", [
    ("{", "invalid JSON"),
    (b"\xff{}", "not UTF-8"),
    ('{"format": "certify/1"}', "schema"),
    (b'{"p": 1.5}', "float"),
])
def test_load_refuses_malformed_text_in_one_line(source, message):
    with pytest.raises(MalformedCertificate, match=message) as caught:
        certify.load(source)
    assert "\n" not in str(caught.value)


def test_load_refuses_bad_files_naming_them(tmp_path, dead13):
    missing = tmp_path / "missing.json"
    with pytest.raises(MalformedCertificate, match="cannot read") as caught:
        certify.load(missing)
    assert str(caught.value).startswith(str(missing))
    with pytest.raises(MalformedCertificate, match="folder"):
        certify.load(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text(dead13.to_json().replace('"p": 13', '"p": "13"'))
    with pytest.raises(MalformedCertificate, match="schema"):
        certify.load(broken)
    with pytest.raises(InputError, match="path, JSON text or bytes"):
        certify.load(13)


def test_save_writes_to_json(tmp_path, dead13):
    path = tmp_path / "c.json"
    assert dead13.save(path) == str(path)
    assert path.read_bytes() == dead13.to_json().encode("ascii")


# --- display -----------------------------------------------------------------------------------------------

def _unescape_markdown(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def test_markdown_table_has_one_row_per_claim_with_statement_and_implied_numbers(dead13):
    lines = dead13._repr_markdown_().splitlines()
    rows = [line for line in lines if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == list(dead13.claims)
    by_id = {row.split("`")[1]: row for row in rows}
    for claim_id, claim in dead13.claims.items():
        cells = by_id[claim_id].split(" | ")
        assert cells[1] == claim.scope
        assert _unescape_markdown(cells[3].rstrip(" |")) == claim.statement
    # certified digits: a prefix shared by both stored ends
    digits = by_id["hitting_time"].split(" | ")[2].strip("`")
    assert digits.startswith("= ") and digits.endswith("...")
    shown = digits[2:-3]
    assert len(shown) >= 10 and dead13.claims["hitting_time"].lo_text.startswith(shown)
    assert dead13.claims["hitting_time"].hi_text.startswith(shown)
    # an interval's printed ends lie outside the stored ends (rounded outward)
    cell = by_id["hitting_time_box"].split(" | ")[2].strip("`")
    low, high = (Fraction(x) for x in re.fullmatch(r"in \[(\S+), (\S+)\]", cell).groups())
    box = dead13.claims["hitting_time_box"]
    assert low <= box.lo and box.hi <= high
    assert by_id["terminal_fourier_fraction"].split(" | ")[2] == "`= 1/6`"
    lower = by_id["single_active_gate"].split(" | ")[2].strip("`")
    assert lower.startswith(">= ") and Fraction(lower[3:]) <= dead13.claims["single_active_gate"].lo


def test_markdown_escapes_what_markdown_reads():
    assert certify.api._md("||u||_1 <b>*x*</b> [a](b)") == r"\|\|u\|\|\_1 \<b\>\*x\*\</b\> \[a\]\(b\)"


def test_latex_repr_is_display_math_with_every_claim(four):
    for c in four.values():
        latex = c._repr_latex_()
        assert latex.startswith("$$") and latex.endswith("$$") and latex.count("$") == 4
        assert latex.count(r"\\") == len(c.claims) - 1  # one row per claim
        assert latex.count("{") == latex.count("}")
    assert r"x = 0.5" in four["dead"]._repr_latex_()  # 2/(p-1) at p = 5
    assert r"x = \frac{1}{6}" in certify.dead(p=13)._repr_latex_()


# --- derivations, simulations, plots -----------------------------------------------------------------------

def test_derivation_is_a_derivation_with_display_math():
    from certify.symbolic.core import Derivation

    d = certify.derivation("conserved")
    assert isinstance(d, Derivation) and d.p is None and d.equations == ("(2.6)",) and d.holds()
    latex = d._repr_latex_()
    assert latex.startswith(r"$$\begin{aligned}") and latex.endswith(r"\end{aligned}$$")
    assert latex.count(r"\checkmark") == len(d.comparisons) == 2
    assert r"\text{because chain rule with (2.2) and (2.5)}" in latex
    assert latex.count("{") == latex.count("}")
    assert certify.derivation("conserved", p=7).p == 7


@pytest.mark.parametrize("name, p, message", [("no-such", None, "unknown derivation"),
                                              ("balance", 101, "largest p"), ("flow", 9, "not prime")])
def test_derivation_refuses_in_one_line(name, p, message):
    with pytest.raises(InputError, match=message):
        certify.derivation(name, p=p)


def test_math_text_sets_special_characters_as_math():
    assert certify.api._math_text("s > 0, a_b {x} \\ 100% é") == (
        r"\text{s }>\text{ 0, a}\_\text{b }\{\text{x}\}\text{ }\backslash \text{ 100}\%\text{ ?}")


def test_simulate_returns_the_record_with_arrays_and_the_certified_bounds():
    import numpy as np

    record = certify.simulate("dead", p=7, start="box", seed=1)
    again = certify.simulate("dead", p=7, start="box", seed=1)
    base = certify.simulate("dead", p=7)
    assert record["theorem"] == "dead" and record["p"] == 7 and record["source"] == "box" and record["seed"] == 1
    assert isinstance(record["t"], np.ndarray) and record["t"].shape == record["s"].shape
    assert np.array_equal(record["u0"], again["u0"]) and not np.array_equal(record["u0"], base["u0"])
    box = certify.dead(p=7).claims["hitting_time_box"]
    assert record["hitting_time_box_lo"] == pytest.approx(float(box.lo), rel=1e-15)
    assert float(box.lo) <= record["t_death"] <= float(box.hi)  # the simulation lands inside the certified T


def test_simulate_and_plot_refuse_mismatches():
    c = certify.dead(p=7)
    with pytest.raises(InputError, match="theorem"):
        certify.simulate("slide", certificate=c)
    with pytest.raises(InputError, match="p = 11"):
        certify.simulate("dead", p=11, certificate=c)
    with pytest.raises(InputError, match="source"):
        certify.simulate("dead", p=7, start="corner")
    with pytest.raises(InputError, match="name a theorem"):
        certify.simulate()


def test_plot_returns_a_figure_of_the_three_panels(tmp_path):
    from matplotlib.figure import Figure

    c = certify.dead(p=7)
    fig = certify.plot("dead", p=7)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    assert "p = 7" in fig._suptitle.get_text() and "base point" in fig._suptitle.get_text()
    box = certify.plot(certificate=c, start="box", seed=2)
    assert "seed 2" in box._suptitle.get_text()
    fig.savefig(tmp_path / "dead-7.png")
    assert (tmp_path / "dead-7.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    gd = certify.plot("gd", p=5, eta="1/2")
    assert "eta = 0.5" in gd._suptitle.get_text()


# --- the package ---------------------------------------------------------------------------------------------

def test_import_certify_imports_nothing_heavy():
    script = ("import sys, certify\n"
              "c = certify.dead(p=5)\nassert c.check() and c.claims['hitting_time'].lo > 0\n"
              "certify.load(c.to_json())\nc._repr_markdown_()\n"
              "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in "
              "('numpy', 'scipy', 'sympy', 'matplotlib'))))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == ""


def test_the_package_exports_the_api():
    for name in ("Certificate", "dead", "slide", "smooth", "gd", "load", "derivation", "plot", "simulate"):
        assert name in dir(certify) and callable(getattr(certify, name))
    with pytest.raises(AttributeError):
        certify.no_such_name


def test_the_readme_python_api_example_runs():
    block = re.search(r"## Python API\n\n```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    namespace = {}
    exec(compile(block, "README.md (Python API)", "exec"), namespace)
    assert namespace["c"].check() and namespace["record"]["theorem"] == "dead"
    assert type(namespace["fig"]).__name__ == "Figure"


def test_theorems_is_the_registry_and_the_functions_take_its_parameters():
    import inspect

    from certify.theorems import registry

    assert certify.THEOREMS is registry.THEOREMS and list(certify.THEOREMS) == ["dead", "slide", "smooth", "gd", "sensitivity",
                                                                                   "staircase", "memorise", "twin",
                                                                                   "twin_plus", "twin_above"]
    for name, record in certify.THEOREMS.items():
        keywords = [parameter for parameter in inspect.signature(getattr(certify, name)).parameters
                    if parameter not in ("p", "radius", "prec")]
        assert keywords == list(record.parameter_names), name
    with pytest.raises(InputError, match="gd needs eta"):
        certify.certify_theorem("gd", 5)


def test_a_theorem_added_to_the_registry_gets_a_function(monkeypatch):
    from certify.theorems import registry

    monkeypatch.setitem(registry.THEOREMS, "dead_again", registry.THEOREMS["dead"])
    made = certify.dead_again(5, epsilon="1/2")  # not written in certify.api: made from the record
    assert made == certify.dead(p=5, epsilon=Fraction(1, 2))
    assert "dead_again" not in certify.api.__dict__
