"""Grammar-drawn inputs through every command's *generation* path: never a traceback, and what is written checks.

For every theorem record of :data:`certify.theorems.registry.THEOREMS` and every option it takes (each
parameter, ``--radius``, ``--prec``), values are drawn from the documented input range
(docs/numbers-and-checking.md, 'Bounded inputs': exact numbers of at most 100 digits in numerator and
denominator) and just outside it: tiny and huge exponents (1e-99 .. 1e99), 100-digit numerators and
denominators, zero in several spellings, negatives, fractions, long decimals, the lenient spellings
``fractions.Fraction`` reads (``.5``, ``+1/2``, ``1_0``, ``1E-3``), its refusals (``nan``, ``inf``,
``1/0``) and strings of the certify/1 grammar (tests/grammar.py: junk, 60-digit exponents, near misses).
Each command runs in-process through :func:`certify.cli.main` with stdout and stderr captured; a few run
as real processes. A run fails the test when

* anything escapes ``main`` (in a process: a traceback), or it exits with a code other than 0 or 2;
* it exits 2 with anything but exactly one line ``certify NAME: error: ...`` or ``certify NAME: not
  certified: ...`` on stderr;
* it exits 0 and the certificate it wrote is not verified by the independent checker
  (:func:`certify.check.check_bytes`), or it exits 0 without writing one.

Deterministic: a seeded ``random.Random`` draws a fixed number of examples per option (``GENERATION_SEED``
picks another draw for exploring; the default is what CI runs), about a minute of CPU on the 2-core
machine. Before the fixes of issue 21 this found: ``dead --sigma 1e-90``, ``--A 1e50`` and ``smooth
--B 4e39`` (a Gaussian probability below 10^-(10^60), written with an exponent of 80 digits: ValueError),
``gd --A 2483960306202786838738069/14230411442694`` and ``dead --epsilon 1e-50`` (an exact rational bound of
more than 200 characters: ValueError), ``smooth --epsilon 1e-99`` (a chosen radius, 4.94e-100, that the
checker refuses as an input of 102 digits: a certificate that does not check), ``slide --sigma 3.4e72`` (a
statement quoting long inputs, over the schema's 1000 characters), and ``--epsilon .5`` refused.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import traceback

import pytest

import grammar
from conftest import run_certify

SEED = int(os.environ.get("GENERATION_SEED", "20210321"))
#: Examples drawn per option of each theorem, and with two options at once (a count, not a time budget).
PER_OPTION = 9
PAIRS = 8
#: Primes drawn for the in-process runs (10^18 - 11 costs seconds per certificate: it runs as a process below).
PRIMES = ("5", "5", "7", "13", "13", "101")
BIG_P = "999999999999999989"


# --- values -------------------------------------------------------------------------------------------------

def _digits(rng: random.Random, count: int) -> str:
    return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(count - 1))


def _edge_count(rng: random.Random) -> int:
    """A digit count, often at the input bound (100) or just over it (101)."""
    return rng.choice((1, 2, 3, rng.randint(1, 100), 99, 100, 100, 101))


def input_value(rng: random.Random) -> str:
    """One value as a person would type it: inside the documented input range, at its edges, or outside."""
    sign = "-" if rng.random() < 0.15 else ""
    kind = rng.random()
    if kind < 0.22:  # tiny and huge: an exponent of up to 100 digits' worth, at the bound and just past it
        exponent = rng.choice((rng.randint(-100, 100), rng.randint(-100, -40), rng.randint(40, 100),
                               -99, 99, -100, 100, -101, 101))
        return f"{sign}{_digits(rng, rng.choice((1, 1, 2, 5, rng.randint(1, 99))))}e{exponent}"
    if kind < 0.38:  # 100-digit numerators and denominators
        numerator, denominator = _digits(rng, _edge_count(rng)), _digits(rng, _edge_count(rng))
        return f"{sign}{numerator}" if rng.random() < 0.3 else f"{sign}{numerator}/{denominator}"
    if kind < 0.46:  # long decimals, positional
        return f"{sign}{rng.choice(('0', _digits(rng, rng.randint(1, 40))))}.{'0' * rng.randint(0, 90)}" \
               f"{_digits(rng, rng.randint(1, 30))}"
    if kind < 0.64:  # ordinary values, the ones that certify (and so are checked)
        return sign + rng.choice(("1/2", "3/2", "2", "1", "1/10", "0.25", "7", "1e-3", "100", "3", "1/3", "5/4"))
    if kind < 0.72:  # zero in several spellings
        return rng.choice(("0", "-0", "0.0", "0/7", "0e50", "-0e-99"))
    if kind < 0.84:  # what fractions.Fraction reads besides the grammar, and what it refuses
        return rng.choice((".5", "5.", "+1/2", " 2 ", "1_0", "1E-3", "+.25e+1", "1/0", "nan", "inf", "-inf",
                           "1e999999", "0x10", "\u0661", "1/-2", "1.5/2", "", " "))
    return grammar.random_spelling(rng)  # the certify/1 grammar: junk, 60-digit exponents, near misses


def option_value(rng: random.Random, option: str) -> str:
    if option == "--prec":
        return rng.choice(("64", "512", "96", str(rng.randint(64, 512)), "63", "513", "0x40", "1e2", "-64", "abc"))
    return input_value(rng)


def options_of(record) -> list[str]:
    return [parameter.flag for parameter in record.parameters] + ["--radius", "--prec"]


def draws(record, seed: int) -> list[list[str]]:
    """The argument lists for one theorem: each option alone PER_OPTION times, then PAIRS pairs of options."""
    rng = random.Random(f"{seed}:{record.name}")
    options = options_of(record)
    chosen = [[option] for option in options for _ in range(PER_OPTION)] + \
             [rng.sample(options, 2) for _ in range(PAIRS)]
    runs = []
    for group in chosen:
        argv = [record.name, "--p", rng.choice(PRIMES)]
        for option in group:
            value = option_value(rng, option)
            # --flag=value hands the value to certify even when argparse would take it for an option ("-1/2")
            argv += [f"{option}={value}"] if rng.random() < 0.5 else [option, value]
        for parameter in record.required_parameters:
            if parameter.flag not in group:
                argv += [parameter.flag, parameter.reference or "1"]
        runs.append(argv)
    return runs


# --- running ------------------------------------------------------------------------------------------------

def run_in_process(argv: list[str]) -> tuple[object, str, str | None]:
    """(exit code, stderr, traceback text or None) of ``certify ARGV`` through certify.cli.main."""
    from certify.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code
        except BaseException:  # noqa: BLE001 - what a process would print as a traceback
            return None, err.getvalue(), traceback.format_exc()
    return code, err.getvalue(), None


def problem_of(name: str, code, stderr: str, crash: str | None, written: bytes | None) -> str | None:
    """What is wrong with one run, or None."""
    from certify.check import check_bytes

    if crash is not None or "Traceback" in stderr:
        return "escaped: " + (crash or stderr).strip().splitlines()[-1][:300]
    if code not in (0, 2):
        return f"exit code {code!r}"
    if code == 2:
        lines = stderr.strip().splitlines()
        prefixes = (f"certify {name}: error: ", f"certify {name}: not certified: ")
        if len(lines) != 1 or not lines[0].startswith(prefixes):
            return f"exit 2 without one line 'certify {name}: error/not certified: ...': {stderr[:300]!r}"
        return None
    if written is None:
        return "exit 0 but no certificate was written"
    verdict = check_bytes(written, "generated")
    return None if verdict else f"the certificate it wrote is {verdict.status}: {verdict.message[:300]}"


@pytest.mark.parametrize("name", ["dead", "slide", "smooth", "gd", "sensitivity", "staircase", "memorise", "twin",
                                  "twin_plus", "twin_above"])
def test_generation_never_escapes_and_writes_what_checks(name, tmp_path):
    from certify.theorems.registry import THEOREMS

    assert list(THEOREMS) == ["dead", "slide", "smooth", "gd", "sensitivity", "staircase",
                              "memorise", "twin", "twin_plus", "twin_above"]  # a new record: add it above
    record = THEOREMS[name]
    out = tmp_path / "certificate.json"
    problems, outcomes = [], {0: 0, 2: 0}
    for argv in draws(record, SEED):
        if out.exists():
            out.unlink()
        code, stderr, crash = run_in_process(argv + ["--out", str(out)])
        written = out.read_bytes() if code == 0 and out.exists() else None
        problem = problem_of(name, code, stderr, crash, written)
        if problem:
            problems.append(f"certify {' '.join(repr(a) if ' ' in a or not a else a for a in argv)}: {problem}")
        elif code in outcomes:
            outcomes[code] += 1
    assert not problems, f"{len(problems)} runs failed:\n" + "\n".join(problems)
    # the draw reaches both outcomes: some inputs certify (and are checked), others are refused in one line
    assert outcomes[0] >= 5 and outcomes[2] >= 20, outcomes


# --- the reported cases, as processes ----------------------------------------------------------------------

#: (arguments, the exit code the mathematics calls for): 0 when every claim holds with a bound certify/1 can
#: write (an exact bound too long to write is rounded outward: weaker, still true), 2 when a claim needs a
#: number no certificate can state (a positive lower bound of a probability below 10^-(10^60), a radius of
#: more than 100 digits, a statement over 1000 characters).
REPORTED = [
    (["dead", "--p", "13", "--sigma", "1e-90"], 2),      # P(box) ~ 10^-(3.65e180): no positive lower bound writable
    (["dead", "--p", "13", "--A", "1e50"], 2),           # P(box) ~ 10^-(2.2e99)
    (["dead", "--p", BIG_P, "--sigma", "1e-90"], 2),     # the largest prime: an exponent of about 10^198
    (["dead", "--p", "13", "--epsilon", "1e-50"], 0),    # gamma_condition's exact bound has 217 characters
    (["dead", "--p", "13", "--epsilon", ".5"], 0),       # a spelling fractions.Fraction reads
    (["gd", "--p", "5", "--eta", "1", "--A", "2483960306202786838738069/14230411442694"], 0),  # an exact bound
    (["smooth", "--p", "13", "--epsilon", "1e-99"], 2),  # the chosen radius would be 4.94e-100: 102 digits
    (["slide", "--p", "5", "--gamma-star", "2/65",       # the region statement quotes 600-digit numbers
      "--sigma", "3.44697925511056432197839806058713154969195439860252473501827310005630003e72"], 2),
]


@pytest.mark.parametrize("args, expected", REPORTED)
def test_reported_cases_as_processes(args, expected, tmp_path):
    """Each reported command as a real process: exit 0 with a certificate certify check verifies, or exit 2
    with one line; never a traceback; and the exit code the mathematics calls for."""
    out = tmp_path / "certificate.json"
    result = run_certify(*args, "--out", out, timeout=300)
    written = out.read_bytes() if result.returncode == 0 and out.exists() else None
    problem = problem_of(args[0], result.returncode, result.stderr, None, written)
    assert problem is None, problem
    assert result.returncode == expected, result.stderr
    if expected == 0:
        assert run_certify("check", out).returncode == 0
        assert json.loads(written)["theorem"] == args[0]
    else:
        assert not out.exists()


def test_the_written_rounding_is_outward_and_checks():
    """dead --epsilon 1e-50: gamma_condition's exact lower bound (217 characters) is written rounded down to
    80 significant digits, below the exact value by less than a unit of its last digit, and positive (its
    claim says lo > 0). The exact value is gmin^2 - smax^2/2, gmin = (p-1)(A - 2r)/p, smax = epsilon + 2r at
    the stored radius, recomputed here with Fractions (docs/mathematics.md, section 'Box bounds of section A.6')."""
    from fractions import Fraction

    import certify

    c = certify.dead(13, epsilon="1e-50")
    lo_text = c.claims["gamma_condition"].lo_text
    assert len(lo_text) <= 200 and bool(c.check())
    r, epsilon, p, A = c.radius, Fraction(1, 10**50), 13, Fraction(2)
    exact = (Fraction(p - 1, p) * (A - 2 * r)) ** 2 - (epsilon + 2 * r) ** 2 / 2
    lo = Fraction(lo_text)
    digits = len(lo_text.replace(".", "").lstrip("0"))
    assert 0 < lo <= exact and exact - lo < Fraction(10) ** (1 - digits), (lo_text, float(exact))


# --- --plot without the plot extra --------------------------------------------------------------------------

def test_plot_without_matplotlib_is_one_line_and_writes_nothing(tmp_path):
    """certify sensitivity --p 13 --plot FILE with matplotlib unimportable (a package of that name first on the
    path that raises ModuleNotFoundError, as a missing one does): exit 2, one line naming the extra, and
    neither the certificate nor the figure is written (--help says so), because the check comes first."""
    import subprocess
    import sys

    from conftest import ROOT

    fake = tmp_path / "hide" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'matplotlib'\")\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake.parent), str(ROOT)]))
    out, figure = tmp_path / "sensitivity-13.json", tmp_path / "gap.png"
    result = subprocess.run([sys.executable, "-m", "certify", "sensitivity", "--p", "13", "--plot", str(figure),
                             "--out", str(out)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("certify sensitivity: error: ") and "pip install 'certify[plot]'" in lines[0]
    assert not out.exists() and not figure.exists()
    helped = subprocess.run([sys.executable, "-m", "certify", "sensitivity", "--help"], capture_output=True,
                            text=True, env=env, cwd=ROOT, timeout=60)
    assert "writes nothing" in " ".join(helped.stdout.split()), helped.stdout


# --- the writer at certify/1's limits -----------------------------------------------------------------------

def test_the_writer_writes_only_what_the_reader_reads():
    """quantity_to_json at the limits of certify/1 (200 characters, 60-digit exponents): every number it writes
    is read back by parse_exact and bounds its end on the outer side; where no such number exists (a positive
    lower bound of a quantity below 10^-(10^60 - 1), an upper bound of one above 10^(10^60), an exact value of
    more than 200 characters) it raises NotCertified naming the claim, in one line."""
    from fractions import Fraction

    from flint import arb, fmpq

    from certify.certificate import quantity_to_json
    from certify.errors import NotCertified
    from certify.kernel.claims import Quantity
    from certify.kernel.exact import parse_exact

    long_rational = fmpq(10**150 + 1, 3**200)  # 151 + 96 digits: 248 characters as a fraction
    out = quantity_to_json(Quantity(lower=long_rational, upper=long_rational, lower_must_exceed=fmpq(0)), "c")
    lo, hi = (Fraction(str(parse_exact(out[key]).fmpq())) for key in ("lo", "hi"))
    value = Fraction(10**150 + 1, 3**200)
    assert lo <= value <= hi and hi - lo <= value / 10**78 and all(len(text) <= 200 for text in out.values())

    tiny = arb("1e-1000000000000000000000000000000000000000000000000000000000000000000000000000000")  # 10^-(10^78)
    log10_tiny = arb(-10**78)
    out = quantity_to_json(Quantity(lower=tiny, upper=tiny), "c")  # no strict bound: 0 and 10^-(10^60 - 1)
    assert out == {"lo": "0", "hi": "1e-" + "9" * 60}
    failures = [
        lambda: quantity_to_json(Quantity(lower=tiny, lower_must_exceed=fmpq(0), log10_lower=log10_tiny), "p/x"),
        lambda: quantity_to_json(Quantity(upper=1 / tiny), "big"),
        lambda: quantity_to_json(Quantity(exact=fmpq(1, 3**500)), "exact"),
    ]
    for failure, claim_id, words in zip(failures, ("p", "big", "exact"), ("60 digits", "10^(10^60)", "200 char")):
        with pytest.raises(NotCertified) as caught:
            failure()
        assert caught.value.claim_id == claim_id and words in str(caught.value) and "\n" not in str(caught.value)


def test_an_input_a_certificate_cannot_state_is_an_input_error():
    """A base-point level derived from the inputs (slide's -3X with a 100-digit X has 101 digits) is refused
    when the certificate is assembled (InputError, one line), never written for the checker to refuse."""
    from types import SimpleNamespace

    from flint import fmpq

    from certify.certificate import block_to_json
    from certify.errors import InputError

    X = fmpq(10**100 - 3)
    written = block_to_json(SimpleNamespace(at_0=X, elsewhere=-X), "u")  # spelled as the oracle spells them
    assert written == {"at_0": grammar.canonical_text(grammar.Num.of(10**100 - 3)),
                       "elsewhere": grammar.canonical_text(grammar.Num.of(-(10**100 - 3)))}
    with pytest.raises(InputError, match="the base point's u.elsewhere") as caught:
        block_to_json(SimpleNamespace(at_0=X, elsewhere=-3 * X), "u")
    assert "\n" not in str(caught.value)
