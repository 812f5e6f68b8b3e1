"""One display rule (issue 21, section 4): every place that shows a certified number shows it the same way,
and shows nothing the stored numbers do not imply.

The expected displays below were worked out by hand from the stored texts (quoted beside them), never by
calling the display code; statements are read back with the independent oracle of tests/render_oracle.py.
The tests go through the public entry points (the command summaries, the LaTeX document, the notebook
reprs, simulate's report, the checker's rejection message, the README), so they also ran against the code
before the rule, where each of them failed.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

from conftest import ROOT
from render_oracle import implied_text, text_to_latex, value

PROOFS = ROOT / "proofs"


def committed(theorem: str, p: int) -> dict:
    return json.loads((PROOFS / theorem / f"{theorem}-{p}.json").read_text())


def summary_text(certificate: dict) -> str:
    from certify.render.summary import summary

    return "\n".join(summary(certificate))


def document_text(certificate: dict) -> str:
    from certify.render.latex import certificate_document

    return certificate_document(certificate, []).replace(r"\allowbreak ", "")


def markdown_cells(certificate: dict) -> dict:
    """claim id -> its 'certified' cell (Markdown escapes removed)."""
    import certify

    rows = [line for line in certify.load(json.dumps(certificate))._repr_markdown_().splitlines()
            if line.startswith("| `")]
    return {row.split("`")[1]: re.sub(r"\\(.)", r"\1", row.split(" | ")[2]) for row in rows}


# ---------------------------------------------------------------- no rounded value that reads as another number

@pytest.fixture(scope="module")
def slide_at_the_largest_prime() -> dict:
    import certify

    return certify.slide(p=999999999999999989).document


def test_the_largest_prime_reads_its_parameters_and_exponents(slide_at_the_largest_prime):
    """`certify slide --p 999999999999999989` printed X = ~499000000000000000 for X = 499999999999999994 and
    log10s with 37 significant digits."""
    lines = summary_text(slide_at_the_largest_prime).splitlines()
    assert ", X = 499999999999999994, " in lines[0]  # 18 characters: every digit
    # capture_time log10 in [3.685110878228252479234237978378188502e36, 3.68511087822825247923423797837818851e36]:
    # the first 12 shared digits 3.68511087822
    assert "capture time from the base point = 10^(3.68511087822...e36)" in lines[1]
    # gaussian_probability log10_lo = -9.77162584282316577370725195500661252e53, six digits, rounded down
    assert "P(theta(0) in box) >= 10^(-9.77163e53)" in lines[4]
    assert "~" not in "\n".join(lines)
    assert max(len(run) for run in re.findall(r"[0-9]+", "\n".join(lines))) <= 18  # no 37-digit numbers


def test_a_long_exact_parameter_is_its_leading_digits_marked_so():
    from certify.render.summary import parameters_text

    # 1/3000000000000000000000000000000 = 3.333...e-31: twelve digits and the ellipsis
    text = parameters_text({"parameters": {"eta": "1/3000000000000000000000000000000", "A": "2"}})
    assert text == "eta = 3.33333333333...e-31, A = 2"


# ---------------------------------------------------------------- opposite numbers look opposite

def test_opposite_numbers_are_shown_with_the_same_digits():
    """`certify sensitivity --p 13` printed grad T = (49.759, 25.9664, -25.9665): each lower end rounded down."""
    certificate = committed("sensitivity", 13)
    lines = summary_text(certificate).splitlines()
    # a in [25.966464650137364160057535071476541087205157, 25.966464650137364160057535071476541095078687],
    # b = -a, s in [49.7590771524744433127257056370738520474257573, ...505275003]
    assert "grad T = (dT/ds0, dT/da0, dT/db0) = (49.7590771524..., 25.9664646501..., -25.9664646501...)" in lines[1]
    # J_reg's s row: s_a = 0.52750603709124051274484294841041208..., s_b = -s_a
    s_row = lines[3].split()
    assert s_row[0] == "s:" and s_row[2] == "0.527506037091..." and s_row[3] == "-0.527506037091..."
    document = document_text(certificate)
    assert r"0.527506037091\ldots & -0.527506037091\ldots" in document  # the LaTeX matrix too
    cells = markdown_cells(certificate)
    assert "a: = 25.9664646501..." in cells["hitting_time_gradient"]
    assert "b: = -25.9664646501..." in cells["hitting_time_gradient"]


# ---------------------------------------------------------------- a rejection shows why

def _forged_rejection(claim_id: str, key: str, forged: str) -> str:
    import certify
    from certify.check import check_bytes

    document = certify.dead(p=13).document
    document["claims"][claim_id][key] = forged
    verdict = check_bytes(json.dumps(document).encode(), "forged")
    assert verdict.status == "rejected", verdict.line()
    return verdict.message


def _significant(text: str) -> int:
    return len(text.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))


def _ceil_digits(x: Fraction, digits: int) -> Fraction:
    """x > 0 rounded up to ``digits`` significant digits (an independent route: Fraction arithmetic)."""
    exponent = len(str(x.numerator)) - len(str(x.denominator))
    while Fraction(10) ** exponent > x:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= x:
        exponent += 1
    unit = Fraction(10) ** (exponent - digits + 1)
    return -(-x // unit) * unit


def test_a_rejected_end_is_shown_beside_the_recomputed_ends_with_the_digits_that_part_them():
    """A rejection printed the ball as [45.9932965048 +/- 8.91e-12]: nothing a 37-digit end could be compared
    with. Now the ball's two ends, rounded outward, with as many digits as it takes to tell them apart from
    the stored end."""
    import certify

    stored = certify.dead(p=13).document["claims"]["hitting_time"]
    # a hi below the true T: the stored lo cut to 36 significant digits (<= lo <= T)
    forged = stored["lo"][:37]
    message = _forged_rejection("hitting_time", "hi", forged)
    match = re.search(rf"hitting_time: hi = {re.escape(forged)} is not above the recomputed enclosure "
                      r"\[([0-9.]+), ([0-9.]+)\]$", message)
    assert match, message
    low, high = (Fraction(x) for x in match.groups())
    # the shown ends enclose the kernel's ball, which holds T, and T lies in the certificate's [lo, hi]
    assert low <= Fraction(stored["hi"]) and high >= Fraction(stored["lo"]) and low < high
    # the upper end is visibly above the forged hi, and at the digits shown the two differ
    digits = _significant(match.group(2))
    assert high > Fraction(forged) and _ceil_digits(Fraction(forged), digits) != high
    assert 12 < digits <= 60


def test_a_short_rejected_end_is_parted_at_its_own_digits():
    message = _forged_rejection("hitting_time", "lo", "45.99329650481")
    match = re.search(r"hitting_time: lo = 45.99329650481 is not below the recomputed enclosure "
                      r"\[([0-9.]+), ([0-9.]+)\]$", message)
    assert match, message
    low = Fraction(match.group(1))
    assert low < Fraction("45.99329650481") and _significant(match.group(1)) <= 16


# ---------------------------------------------------------------- one number, one display, everywhere

def test_the_same_number_is_shown_the_same_way_everywhere():
    """The dead box hitting time was [17.1439, 139.71] in the CLI, [17.14, 139.8] in simulate and
    [17.1, 140] in LaTeX; the dead region probability at p = 13 10^-7.35 in the CLI and 10^-7.3431633
    in LaTeX."""
    from certify.simulate import simulate_instance, summary_lines

    certificate = committed("dead", 13)
    # hitting_time_box in [42757/2494 = 17.1439..., 139.7097...]: width ~123 (m = 1), so three digits, outward
    # hitting_time in [45.993296504808900519644880784605173562701488, ...574758464]: 12 shared digits
    # region_probability log10_lo = -7.34316320069772453345713809105289873: two places, down
    summary = summary_text(certificate)
    assert "T = 45.9932965048... from the base point (2.1); T in [17.1, 140] on the box" in summary
    assert "P(theta(0) in R_dead | active) >= 10^-7.35 under" in summary
    document = document_text(certificate)
    for shown in (r"T \in [17.1, 140]", r"T = 45.9932965048\ldots > 0",
                  r"\mid \theta(0) \text{ initially active}\bigr) \ge 10^{-7.35}"):
        assert shown in document, shown
    cells = markdown_cells(certificate)
    assert cells["hitting_time_box"] == "`in [17.1, 140]`"
    assert cells["hitting_time"] == "`= 45.9932965048...`"
    assert cells["region_probability"] == "`>= 4.53771e-8, >= 10^-7.35`"
    report = "\n".join(summary_lines(simulate_instance(certificate, "base")))
    assert "lies in the certified [17.1, 140] (hitting_time_box)" in report
    assert "from the certified 45.9932965048... (hitting_time)" in report


def test_the_readme_quotes_what_the_rule_prints():
    """Numbers the README quotes, each beside the certificate field it comes from (the rule itself is pinned
    by the hand-worked cases in tests/test_render_numbers.py)."""
    from certify.render.numbers import display_parts

    def body(stored: dict) -> str:
        (_, shown), = display_parts(stored)
        return shown

    def log10_lo(claim: dict) -> str:
        return body({"log10_lo": claim["log10_lo"]})

    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text())
    dead = {p: committed("dead", p)["claims"] for p in (5, 13, 101)}
    slide, gd = committed("slide", 13)["claims"], committed("gd", 13)["claims"]
    sensitivity = committed("sensitivity", 13)["claims"]
    grad = sensitivity["hitting_time_gradient"]["components"]
    s_row = sensitivity["regional_derivative"]["components"]
    quoted = [
        f"the dead box has {log10_lo(dead[13]['gaussian_probability'])} and the dead region "
        f"{log10_lo(dead[13]['region_probability'])}.",
        f"({log10_lo(dead[13]['gaussian_probability'])} at p = 13); the region probability",
        f"{log10_lo(dead[5]['region_probability'])} at p = 5, {log10_lo(dead[13]['region_probability'])} at p = 13, "
        f"{log10_lo(dead[101]['region_probability'])} at p = 101",
        f">= {log10_lo(dead[5]['region_purity_probability']['components']['purity_margin'])} at p = 5 and "
        f"{log10_lo(dead[13]['region_purity_probability']['components']['purity_margin'])} at p = 13",
        f"({log10_lo(slide['region_probability'])} at p = 13, against the box's "
        f"{log10_lo(slide['gaussian_probability'])})",
        f"{log10_lo(gd['region_probability'])} at p = 13, eta = 1",
        f"grad T = ({body(grad['s'])}, {body(grad['a'])}, {body(grad['b'])}), "
        f"ds/dt(T-) = {body(sensitivity['event_speed'])}, gap {body(sensitivity['sensitivity_gap'])};",
        f"(its s row is ({body(s_row['s_s'])}, {body(s_row['s_a'])}, {body(s_row['s_b'])}) at p = 13)",
        f"matrix of norm {body(sensitivity['sensitivity_gap'])} that",
        f"lies in the certified {body({key: dead[13]['hitting_time_box'][key] for key in ('lo', 'hi')})}`",
    ]
    for text in quoted:
        assert text in readme, text
    assert "10^-7.34" not in readme  # rounded to nearest, it said more than the certificate


# ---------------------------------------------------------------- simulate's report says only what is certified

def _report_statements(theorem: str, p: int, source: str):
    """(claim id, statement) for every certified number of the report, the statement as the oracle reads it."""
    from certify.simulate import simulate_instance, summary_lines

    certificate = committed(theorem, p)
    for line in summary_lines(simulate_instance(certificate, source))[1:]:
        claim = re.search(r"\(([a-z_0-9]+)\)$", line).group(1)
        match = re.search(r"the certified (?:(upper|lower) bound |exact value )?(.*) \([a-z_0-9]+\)$", line)
        assert match, line
        kind, shown = match.groups()
        relation = {"upper": "<= ", "lower": ">= "}.get(kind, "= " if "exact value" in line or "[" not in shown
                                                             else "in ")
        yield certificate["claims"][claim], line, relation + shown


@pytest.mark.parametrize("theorem, p, source", [("dead", 7, "base"), ("dead", 5, "box"), ("slide", 7, "base"),
                                                ("smooth", 5, "box"), ("gd", 5, "base")])
def test_every_certified_number_of_the_report_is_implied_by_its_claim(theorem, p, source):
    checked = 0
    for stored, line, statement in _report_statements(theorem, p, source):
        ends = {key: value(stored[key]) if key in stored else None for key in ("lo", "hi")}
        if "exact" in stored:
            ends["lo"] = ends["hi"] = value(stored["exact"])
        if "log10 of the full-capture time" in line:
            ends = {"lo": value(stored["log10_lo"]), "hi": value(stored["log10_hi"])}
        elif "max other gate" in line and "at the start" in line:  # other gates <= -lo
            ends = {"lo": None, "hi": (-value(stored["lo"])[0], value(stored["lo"])[1])}
        elif "max other gate along the path" in line:  # no other gate turns on: <= 0
            ends = {"lo": None, "hi": (Fraction(0), 0)}
        elif "max_zeta F_zeta" in line and "purity_gap_box" in line:  # max F <= 1 - lo
            ends = {"lo": None, "hi": (1 - Fraction(stored["lo"]), 0)}
        elif "min of g along the path" in line:  # g >= sqrt(g(0)^2 - J(s0)) >= sqrt(lo)
            shown = Fraction(statement[3:])
            assert shown >= 0 and shown * shown <= Fraction(stored["lo"]), line
            checked += 1
            continue
        elif "one_step_death_box" in line:
            component = {"central gate": "central_gate", "max cross gate": "cross_gates",
                         "max off-cross gate": "off_cross_gates"}[re.search(r"simulated (.*?) after", line).group(1)]
            ends = {"lo": None, "hi": value(stored["components"][component]["hi"])}
        assert implied_text(statement, ends["lo"], ends["hi"]), (line, text_to_latex(statement))
        checked += 1
    assert checked >= 5


def test_the_report_refuses_a_record_without_the_certified_texts():
    from certify.simulate import simulate_instance, summary_lines

    record = simulate_instance(committed("gd", 5), "base")
    del record["w_step_box_hi_text"]
    with pytest.raises(ValueError, match="no certified text for w_step_box_hi"):
        summary_lines(record)
