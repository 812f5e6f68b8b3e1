"""Input handling of the Python API and the command line: exact values in, certify's own errors out.

The API raises only certify's error classes for bad input (certify.errors: InputError, HypothesisError,
NotCertified, MalformedCertificate), never a bare ValueError, TypeError or OverflowError. A float is taken
exactly when it is the decimal it shows (0.5 is exactly 1/2); otherwise (0.1 is 3602879701896397/2^55) the
message says what the float is and asks for "1/10" or Fraction(1, 10). NaN and infinities are refused.
Strings, in the API and on the command line, may be any spelling fractions.Fraction reads (".5", "+1/2",
"1_0", "1E-3"), in ASCII, within the 100-digit input bound; "nan", "inf" and "1e999999" are refused.
"""

from __future__ import annotations

import contextlib
import io
import math
import random
from decimal import Decimal
from fractions import Fraction

import pytest
from flint import fmpq

import certify
from certify.api import exact_input
from certify.errors import CertifyError, InputError

import grammar

BARE = (ValueError, TypeError, OverflowError, ArithmeticError, KeyError, AttributeError)


def _raises_certify_error(call) -> CertifyError:
    """Run ``call``; it must raise a CertifyError (one line), and nothing else."""
    try:
        call()
    except CertifyError as exc:
        assert "\n" not in str(exc), str(exc)
        return exc
    except BARE as exc:  # the bug this test is about
        pytest.fail(f"bare {type(exc).__name__} for bad input: {exc}")
    pytest.fail("no error for bad input")


# --- floats -------------------------------------------------------------------------------------------------

def test_a_float_that_is_its_decimal_is_taken_exactly():
    """0.5 is exactly 1/2 in binary, so dead(5, epsilon=0.5) is dead(5, epsilon="1/2"), byte for byte."""
    assert certify.dead(5, epsilon=0.5) == certify.dead(5, epsilon="1/2")
    for value, exact in ((0.5, Fraction(1, 2)), (0.25, Fraction(1, 4)), (3.0, Fraction(3)), (-2.5, Fraction(-5, 2)),
                         (1e22, Fraction(10**22)), (-0.0, Fraction(0)), (0.375, Fraction(3, 8))):
        assert exact_input(value) == fmpq(exact.numerator, exact.denominator), value


def test_a_float_that_is_not_its_decimal_is_refused_with_its_exact_value():
    """0.1 is not 1/10: the message gives the float's exact value (Decimal(0.1) spells a float exactly) and asks
    for '1/10' or Fraction(1, 10)."""
    exc = _raises_certify_error(lambda: certify.dead(13, epsilon=0.1))
    message = str(exc)
    assert isinstance(exc, InputError) and message.startswith("epsilon: ")
    assert str(Decimal(0.1)) in message  # 0.1000000000000000055511151231257827021181583404541015625
    assert "3602879701896397/2^55" in message and Fraction(3602879701896397, 2**55) == Fraction(0.1)
    assert "'1/10'" in message and "Fraction(1, 10)" in message
    for value, shown in ((1e-3, "'1/1000'"), (1 / 3, "Fraction(3333333333333333, 10000000000000000)"),
                         (1e23, "'1e23'"), (1e300, "'1e300'"), (5e-324, "2^1074")):
        assert shown in str(_raises_certify_error(lambda: exact_input(value, "x"))), value


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, Decimal("nan"), Decimal("inf"), Decimal("-inf"),
                                   Decimal("snan")])
def test_nan_and_infinities_are_input_errors(value):
    exc = _raises_certify_error(lambda: certify.dead(13, epsilon=value))
    assert isinstance(exc, InputError) and "not a number" in str(exc)


def test_every_float_is_taken_exactly_or_refused_in_one_line():
    """3000 floats of every magnitude (random bits: subnormals, 1e308, dyadics, integers): exact_input gives
    Fraction(x) exactly when repr(x) spells that value and the input bound admits it, else InputError."""
    import struct

    rng = random.Random(5)
    accepted = 0
    for index in range(3000):
        if index % 3 == 0:
            value = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        elif index % 3 == 1:
            value = rng.randint(-2**60, 2**60) / 2 ** rng.randint(0, 80)
        else:
            value = float(rng.choice(("0.5", "0.1", "1e22", "1e-300", "2.5e-3", "7", "1e308", "6.103515625e-05")))
        try:
            got = exact_input(value, "x")
        except InputError:
            finite = not (math.isnan(value) or math.isinf(value))
            assert not finite or Fraction(repr(value)) != Fraction(value) or \
                max(len(str(Fraction(value).numerator)), len(str(Fraction(value).denominator))) > 100, value
            continue
        assert Fraction(repr(value)) == Fraction(value) == Fraction(int(got.p), int(got.q)), value
        accepted += 1
    assert 500 < accepted < 2900, accepted


# --- strings and other types --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [".5", "5.", "+1/2", " 1_0 ", "1E-3", "+.25e+1", "0.50", "1/2", "-0", "7e0",
                                  "\t3/4\n", "1_000e-3"])
def test_every_spelling_fraction_reads_is_taken(text):
    assert exact_input(text) == fmpq(Fraction(text).numerator, Fraction(text).denominator)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "infinity", "1e999999", "1e-999", "0x10", "1/0", "1/-2",
                                  "\u0661", "1 / 2", "1__0", "_1", "1.5/2", "", " ", "e5", ".", "1e", "--1",
                                  "9" * 101, "1/" + "3" * 101, "1e" + "1" * 61])
def test_strings_fraction_refuses_or_too_large_are_input_errors(text):
    exc = _raises_certify_error(lambda: exact_input(text, "epsilon"))
    assert isinstance(exc, InputError)


def test_inputs_a_certificate_cannot_state_are_refused():
    """1/2^332 has a 100-digit denominator but is written as a 232-digit decimal: over the 200 characters of a
    certify/1 number, so no certificate could state it (the checker reads inputs as they are written)."""
    assert len(str(2**332)) == 100
    for value in (Fraction(1, 2**332), "1/" + str(2**332)):
        assert "characters" in str(_raises_certify_error(lambda: exact_input(value, "epsilon")))


def test_grammar_strings_are_taken_exactly_or_refused():
    """2000 strings of the certify/1 grammar's productions (tests/grammar.py): an InputError, or exactly the
    value Fraction reads (when Fraction can read it cheaply)."""
    rng = random.Random(11)
    taken = 0
    for _ in range(2000):
        text = grammar.random_spelling(rng)
        try:
            got = exact_input(text, "x")
        except InputError:
            continue
        taken += 1
        if grammar.fraction_is_cheap(text):
            assert Fraction(text) == Fraction(int(got.p), int(got.q)), text
    assert taken > 300, taken


@pytest.mark.parametrize("value", [True, None, [1], {"a": 1}, 1j, object(), b"1/2", bytearray(b"1")])
def test_other_types_are_input_errors(value):
    assert isinstance(_raises_certify_error(lambda: exact_input(value, "epsilon")), InputError)


def test_other_exact_types_are_taken():
    import numpy as np

    assert exact_input(Decimal("0.125")) == fmpq(1, 8)
    assert exact_input(np.int64(7)) == fmpq(7)
    assert exact_input(fmpq(2, 3)) == fmpq(2, 3)


# --- every entry point --------------------------------------------------------------------------------------

ENTRY_POINTS = {
    'certify.dead(13, epsilon=math.nan)': lambda: certify.dead(13, epsilon=math.nan),
    'certify.dead(13, sigma=math.inf)': lambda: certify.dead(13, sigma=math.inf),
    'certify.dead(13, radius=0.1)': lambda: certify.dead(13, radius=0.1),
    'certify.dead(13, radius="nan")': lambda: certify.dead(13, radius="nan"),
    'certify.dead(13, epsilon="1e999999")': lambda: certify.dead(13, epsilon="1e999999"),
    'certify.dead(13, prec=64.0)': lambda: certify.dead(13, prec=64.0),
    'certify.dead(13, prec="128")': lambda: certify.dead(13, prec="128"),
    'certify.dead(13.0)': lambda: certify.dead(13.0),
    'certify.dead(math.nan)': lambda: certify.dead(math.nan),
    'certify.dead("x")': lambda: certify.dead("x"),
    'certify.dead(None)': lambda: certify.dead(None),
    'certify.dead(10**40)': lambda: certify.dead(10**40),
    'certify.slide(5, X=math.inf)': lambda: certify.slide(5, X=math.inf),
    'certify.gd(5, eta=math.nan)': lambda: certify.gd(5, eta=math.nan),
    'certify.gd(5, eta="0")': lambda: certify.gd(5, eta="0"),
    'certify.smooth(5, eps_smooth=-math.inf)': lambda: certify.smooth(5, eps_smooth=-math.inf),
    'certify.sensitivity(5, radius=1)': lambda: certify.sensitivity(5, radius=1),
    'certify.certify_theorem([], 13)': lambda: certify.certify_theorem([], 13),
    'certify.certify_theorem(None, 13)': lambda: certify.certify_theorem(None, 13),
    'certify.certify_theorem("dead", 13, foo=1)': lambda: certify.certify_theorem("dead", 13, foo=1),
    'certify.load(13)': lambda: certify.load(13),
    'certify.load(None)': lambda: certify.load(None),
    'certify.load("/nonexistent/certificate.json")': lambda: certify.load("/nonexistent/certificate.json"),
    'certify.load("{not json")': lambda: certify.load("{not json"),
    'certify.Certificate(5)': lambda: certify.Certificate(5),
    'certify.derivation(5)': lambda: certify.derivation(5),
    'certify.derivation("conserved", p="x")': lambda: certify.derivation("conserved", p="x"),
    'certify.derivation("conserved", p=5.0)': lambda: certify.derivation("conserved", p=5.0),
    'certify.simulate("dead", p=5, seed="x")': lambda: certify.simulate("dead", p=5, seed="x"),
    'certify.simulate("dead", p=5, seed=1.5)': lambda: certify.simulate("dead", p=5, seed=1.5),
    'certify.simulate("dead", p=5, seed=-1)': lambda: certify.simulate("dead", p=5, seed=-1),
    'certify.simulate("dead", p=5, start="nowhere")': lambda: certify.simulate("dead", p=5, start="nowhere"),
    'certify.simulate(certificate=5)': lambda: certify.simulate(certificate=5),
    'certify.simulate()': lambda: certify.simulate(),
}


@pytest.mark.parametrize("call", ENTRY_POINTS.values(), ids=ENTRY_POINTS.keys())
def test_bad_input_to_any_entry_point_is_a_certify_error(call):
    _raises_certify_error(call)


def test_a_huge_sigma_or_tiny_probability_is_not_certified_in_one_line():
    """dead(13, sigma="1e-90"): the box's probability is about 10^-(3.65e180), below every positive number
    certify/1 can write (exponents of at most 60 digits): NotCertified naming the claim, not a ValueError."""
    from certify.errors import NotCertified

    exc = _raises_certify_error(lambda: certify.dead(13, sigma="1e-90"))
    assert isinstance(exc, NotCertified) and "gaussian_probability" in str(exc) and "60 digits" in str(exc)


# --- the command line ---------------------------------------------------------------------------------------

def _main(*argv) -> tuple[int, str, str]:
    from certify.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_takes_the_spellings_fraction_reads():
    """--epsilon .5, +1/2, 5e-1, 0.50 and 1/2 all write the same certificate (certificates are canonical)."""
    outputs = set()
    for spelling in (".5", "+1/2", "5e-1", "0.50", "1/2", "5_0e-2", " .5"):
        code, out, err = _main("dead", "--p", 5, f"--epsilon={spelling}")
        assert code == 0, err
        outputs.add(out)
    assert len(outputs) == 1 and '"epsilon": "0.5"' in outputs.pop()


@pytest.mark.parametrize("spelling", ["nan", "inf", "-inf", "1e999999", "0x10", "1/0", "\u0661", "1e-101",
                                      "1" * 101])
def test_the_command_line_refuses_what_is_not_an_exact_bounded_number(spelling):
    code, out, err = _main("dead", "--p", 5, f"--epsilon={spelling}")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--epsilon" in err, err
