"""The number grammar against an independent oracle (tests/grammar.py): parsing, exact comparison, writing.

Every expected value here comes from :mod:`grammar` (a hand-written scanner, Fraction and
integer arithmetic on digits and exponents), from Python's ``fractions.Fraction`` and
``decimal.Decimal``, or from the rules written out by hand -- never from certify. Three
properties, each on an exhaustive enumeration of a small grammar and on hypothesis draws:

(a) ``parse_exact`` accepts exactly the canonical spellings, and reads their exact value;
(b) every exact comparison the kernel and the checker use (``compare``, ``exceeds``,
    ``exact_le`` / ``exact_ge`` with rational bounds and with balls) agrees with exact
    arithmetic, including zeros with huge exponents and the 60-digit exponent extremes;
(c) what certify writes (``format_rational``, ``_bound_text``, ``quantity_to_json``,
    whole certificates of the four theorems) is canonical, and its bounds are valid.
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction

import pytest
from flint import arb, ctx, fmpq, fmpz
from hypothesis import HealthCheck, given, settings, strategies as st

import grammar
from grammar import Num, canonical, canonical_text, compare as oracle_compare, is_canonical, parse_syntax

CANONICAL, SPELLED, NEAR_PAIRS = grammar.strategies()
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def exact_number(text: str):
    """The kernel's ExactNumber with the fields exactly as written (not normalised), from the oracle's scanner."""
    from certify.kernel.exact import ExactNumber

    return ExactNumber(*grammar.raw_syntax(text))


def as_num(number) -> Num:
    """The oracle's value of a kernel ExactNumber (numerator / denominator * 10^exp10)."""
    return Num.make(int(number.numerator), int(number.denominator), int(number.exp10))


def fraction_of_ball(x) -> tuple[Fraction, Fraction]:
    """Exact endpoints of an Arb ball, from man_exp (no Arb comparison involved)."""
    return grammar._ball_fractions(x)


# ---------------------------------------------------------------------------------------------------------
# the oracle itself, against the rules written out by hand and against Fraction / Decimal

RULE_EXAMPLES = [
    # (text, canonical spelling of its value, by the rules of issue 10)
    ("0", "0"), ("-0", "0"), ("0e10001", "0"), ("-0e10001", "0"), ("0e999999999999999999", "0"), ("0.0", "0"),
    ("0/5", "0"), ("100", "100"), ("1e2", "100"), ("12.5", "12.5"), ("0.00125", "0.00125"), ("-3", "-3"),
    ("1.25e-8", "1.25e-8"), ("0.0000000125", "1.25e-8"), ("1e22", "1e22"), ("10000000000000000000000", "1e22"),
    ("1000000000000000000000", "1000000000000000000000"), ("-3.5e40", "-3.5e40"), ("0.0000001", "0.0000001"),
    ("1e-7", "0.0000001"), ("1e-8", "1e-8"), ("-1/3", "-1/3"), ("2/6", "1/3"), ("1/2", "0.5"), ("2/2", "1"),
    ("0.1e1", "1"), ("10e-1", "1"), ("1.50", "1.5"), ("1.0", "1"), ("5e0", "5"), ("1081/4225000", "1081/4225000"),
    ("12179/109850000", "12179/109850000"), ("68995071/84500000", "68995071/84500000"), ("1/8", "0.125"),
    ("-25/10", "-2.5"), ("9.5e54", "9.5e54"), ("95e53", "9.5e54"), ("1e-" + "9" * 60, "1e-" + "9" * 60),
    ("123e" + "9" * 60, "1.23e1" + "0" * 59 + "1"), ("0.247", "0.247"), ("247/1000", "0.247"),
]


@pytest.mark.parametrize("text, expected", RULE_EXAMPLES)
def test_oracle_follows_the_rules(text, expected):
    """The oracle's canonical spelling is the one the rules give, on examples worked by hand."""
    assert canonical(text) == expected


def test_oracle_agrees_with_fraction_and_decimal():
    """On every expandable string of the small grammar the oracle's value is Fraction(text) and Decimal(text),
    its canonical text has the same value, and canonicalising is idempotent."""
    checked = 0
    for text in grammar.small_grammar():
        number = parse_syntax(text)
        if number is None or not grammar.fraction_is_cheap(text):
            continue
        assert number.fraction() == Fraction(text), text
        canon = canonical_text(number)
        assert Fraction(canon) == Fraction(text), text
        assert len(canon) > grammar.MAX_LENGTH or canonical(canon) == canon, text
        if "/" not in text:  # a decimal: Decimal reads it exactly, independently of Fraction
            assert Fraction(Decimal(text)) == number.fraction() and "/" not in canon, text
        checked += 1
    assert checked > 1500


def test_oracle_refuses_what_is_outside_the_grammar():
    """Whitespace, signs, unicode digits, '+', 'E', 61-digit exponents, more than 200 characters are not numbers."""
    for text in ("1\n", "0.247\n", " 1", "+1", "1E5", "1e+5", "\u0661", "\uff11", "1e" + "1" * 61, "9" * 201,
                 "1/0", "1/-3", "01", "1.", ".5", "", "1_000", "0x10", "1/" + "3" * 199):
        assert parse_syntax(text) is None and canonical(text) is None, repr(text)


def test_oracle_compare_against_fraction():
    """The oracle's exact order agrees with Fraction on every pair of expandable values of the comparison set."""
    values = [(t, parse_syntax(t)) for t in grammar.comparison_set()]
    small = [(t, v, v.fraction()) for t, v in values if v.expandable(400)]
    for ta, va, fa in small:
        for tb, vb, fb in small:
            assert oracle_compare(va, vb) == (fa > fb) - (fa < fb), (ta, tb)


def test_spellings_are_other_spellings_of_the_same_value():
    """grammar.spellings gives non-canonical strings with the value of the canonical one (the fuzz relies on it)."""
    for text in ("0", "0.247", "1e22", "-3.5e40", "1/3", "100", "-33.7448", "1.25e-8", "1e-999999999",
                 "1081/4225000", "9.5e54"):
        others = grammar.spellings(text)
        assert others, text
        for other in others:
            assert not is_canonical(other) and oracle_compare(parse_syntax(other), parse_syntax(text)) == 0, other


# ---------------------------------------------------------------------------------------------------------
# (a) parse_exact accepts exactly the canonical spellings


def _parse_outcome(text):
    from certify.kernel.exact import parse_exact

    try:
        return parse_exact(text)
    except ValueError:
        return None


def _check_parse(text) -> str | None:
    """None if parse_exact treats ``text`` as the rules say, else a description of the difference."""
    result = _parse_outcome(text)
    should = is_canonical(text)
    if (result is not None) != should:
        return f"{text[:80]!r}: parse_exact {'accepts' if result is not None else 'refuses'} it, but it is " \
               f"{'canonical' if should else 'not canonical (canonical: %r)' % (canonical(text) or '')[:60]}"
    if result is None:
        return None
    if oracle_compare(as_num(result), parse_syntax(text)) != 0:
        return f"{text[:80]!r}: parse_exact reads a different value"
    number = parse_syntax(text)
    if grammar.fraction_is_cheap(text) and Fraction(text) != number.fraction():
        return f"{text[:80]!r}: differs from Fraction(text)"
    return None


def test_parse_exact_accepts_exactly_the_canonical_small_grammar():
    """Every string of the small grammar (zero spellings, 60-digit exponents, unreduced fractions, near misses):
    accepted iff canonical by the oracle, and read as the value Fraction gives it."""
    texts = grammar.small_grammar()
    problems = [problem for problem in map(_check_parse, texts) if problem]
    assert not problems, f"{len(problems)} of {len(texts)}: " + "; ".join(problems[:15])


@SETTINGS
@given(SPELLED)
def test_parse_exact_accepts_exactly_the_canonical_drawn(text):
    """Hypothesis draws from the productions (any size): the same property."""
    assert _check_parse(text) is None


@SETTINGS
@given(CANONICAL)
def test_parse_exact_accepts_every_canonical_number(text):
    """Canonical numbers of every size and exponent are accepted and every other spelling of them refused."""
    assert _check_parse(text) is None
    for other in grammar.spellings(text) if len(text) < 100 else []:
        assert _check_parse(other) is None


def test_parse_exact_refuses_random_productions():
    """A fixed-seed sample of 5000 random productions (with near misses): the same property."""
    rng = random.Random(1010)
    texts = [grammar.random_spelling(rng) for _ in range(5000)]
    problems = [problem for problem in map(_check_parse, texts) if problem]
    assert not problems, f"{len(problems)} of {len(texts)}: " + "; ".join(problems[:15])


def test_parse_exact_refuses_non_strings():
    """Numbers that are not strings are refused with ValueError (one line), never read."""
    from certify.kernel.exact import parse_exact

    for bad in (1, 0.5, None, [1], {"a": 1}, True, b"1"):
        with pytest.raises(ValueError):
            parse_exact(bad)


# ---------------------------------------------------------------------------------------------------------
# (b) exact comparisons


def _operands():
    """(text, oracle value, kernel ExactNumber written as is) for the comparison set, when constructible."""
    out = []
    for text in grammar.comparison_set():
        try:
            out.append((text, parse_syntax(text), exact_number(text)))
        except ValueError:
            pass  # an ExactNumber that refuses a form cannot mis-compare it
    return out


def test_compare_agrees_on_all_pairs_of_the_small_grammar():
    """certify.kernel.exact.compare on every pair of the comparison set (zeros with huge exponents, -0, 2/6,
    ties across spellings, 60-digit exponents of both signs) equals the oracle's exact order; exceeds too."""
    from certify.kernel.exact import compare, exceeds

    operands = _operands()
    assert len(operands) > 400
    problems = []
    for ta, va, ea in operands:
        for tb, vb, eb in operands:
            expected = oracle_compare(va, vb)
            got = compare(ea, eb)
            if got != expected:
                problems.append(f"compare({ta}, {tb}) = {got}, exact {expected}")
            elif exceeds(ea, eb) != (expected > 0):
                problems.append(f"exceeds({ta}, {tb}) = {not expected > 0}")
    assert not problems, f"{len(problems)}: " + "; ".join(problems[:10])


def test_compare_with_rationals():
    """compare(ExactNumber, fmpq / Fraction / int) and the reverse: exact, for every expandable kernel-sized bound."""
    from certify.kernel.exact import compare

    operands = _operands()
    bounds = [(t, v) for t, v, _ in operands if v.expandable(400)]
    problems = []
    for ta, va, ea in operands:
        for tb, vb in bounds:
            f = vb.fraction()
            expected = oracle_compare(va, vb)
            for bound in (fmpq(f.numerator, f.denominator), f) + ((f.numerator,) if f.denominator == 1 else ()):
                if compare(ea, bound) != expected or compare(bound, ea) != -expected:
                    problems.append(f"compare({ta}, {type(bound).__name__} {tb}) wrong")
    assert not problems, f"{len(problems)}: " + "; ".join(problems[:10])


@SETTINGS
@given(CANONICAL, CANONICAL)
def test_compare_drawn_pairs(a, b):
    """Hypothesis pairs of canonical numbers of every magnitude: compare is the exact order."""
    from certify.kernel.exact import compare

    assert compare(exact_number(a), exact_number(b)) == oracle_compare(parse_syntax(a), parse_syntax(b))


@SETTINGS
@given(NEAR_PAIRS)
def test_compare_near_pairs(pair):
    """Pairs in the same decade differing in their last digits (written with different lengths): exact order."""
    from certify.kernel.exact import compare

    a, b = pair
    assert compare(exact_number(a), exact_number(b)) == oracle_compare(parse_syntax(a), parse_syntax(b))
    assert compare(exact_number(b), exact_number(a)) == oracle_compare(parse_syntax(b), parse_syntax(a))


def test_exact_le_ge_with_rational_bounds():
    """exact_le / exact_ge(number, fmpq) are number <= bound / number >= bound exactly, on all pairs."""
    from certify.kernel.balls import exact_ge, exact_le

    operands = _operands()
    bounds = [(t, v, fmpq(v.fraction().numerator, v.fraction().denominator)) for t, v, _ in operands
              if v.expandable(400)]
    problems = []
    for ta, va, ea in operands:
        for tb, vb, fb in bounds:
            expected = oracle_compare(va, vb)
            if exact_le(ea, fb) != (expected <= 0):
                problems.append(f"exact_le({ta}, {tb})")
            if exact_ge(ea, fb) != (expected >= 0):
                problems.append(f"exact_ge({ta}, {tb})")
    assert not problems, f"{len(problems)}: " + "; ".join(problems[:10])


def _balls():
    """Balls of every magnitude, exact and wide, straddling zero, with short dyadic endpoints and long ones."""
    out = []
    with ctx.workprec(200):
        for mid, rad in ((fmpq(3, 8), fmpq(1, 8)), (fmpq(-3, 8), fmpq(1, 8)), (fmpq(0), fmpq(1, 4)), (fmpq(5), 0),
                         (fmpq(-5), 0), (fmpq(0), 0), (fmpq(1, 1024), fmpq(1, 2048)), (fmpq(10**22), fmpq(2**20))):
            out.append(arb(mid, rad))
        for exponent in (-3000, -340, -34, -8, 0, 3, 22, 561, 3000):
            for sign in (1, -1):
                x = sign * arb(10) ** exponent * arb(fmpq(179932090977, 10**11))
                out.append(x)
                out.append(arb(x.mid(), 0))
                out.append(arb(x.mid(), abs(x.mid()) / 2**100))
        out.append(arb(2) ** fmpz(40000))     # a binary exponent of 40000 bits: endpoints still affordable
        out.append(-(arb(2) ** fmpz(-40000)))
        out.append(arb(10) ** fmpz(10001) * 3)
        out.append(arb(10) ** fmpz(-10001) / 3)
    return out


def _probes(x):
    """Numbers at, just inside and just outside both endpoints of the ball x, plus the comparison set."""
    lo, hi = fraction_of_ball(x)
    out = []
    for end in (lo, hi):
        number = Num.of(end)
        if number.is_zero():
            out += ["0", "1e-" + "9" * 60, "-1e-" + "9" * 60, "1e-10001", "-1e-10001"]
            continue
        k = number.magnitude()
        for digits in (3, 20, 45, 70):
            scaled = end * Fraction(10) ** (digits - k)  # the end in units of its digits-th significant digit
            down, up = scaled.__floor__(), scaled.__ceil__()
            for m in (down - 1, down, up, up + 1):
                out.append(canonical_text(Num.make(m, 1, k - digits)))
        exact = canonical_text(number) if number.terminating() else None
        if exact is not None and len(exact) <= 200:
            out.append(exact)
    return out


def _check_ball(text, x, lo, hi, funcs):
    exact_le_ball, ball_le_exact, exact_lt_ball, ball_lt_exact = funcs
    number = exact_number(text)
    value = parse_syntax(text)
    below = oracle_compare(value, Num.of(lo))
    above = oracle_compare(value, Num.of(hi))
    problems = []
    if exact_le_ball(number, x) != (below <= 0):
        problems.append(f"exact_le({text}, ball [{float(lo):.6g}, {float(hi):.6g}]) should be {below <= 0}")
    if ball_le_exact(x, number) != (above >= 0):
        problems.append(f"exact_ge({text}, ball [{float(lo):.6g}, {float(hi):.6g}]) should be {above >= 0}")
    if exact_lt_ball is not None and exact_lt_ball(number, x) != (below < 0):
        problems.append(f"exact_lt_ball({text}, ball) should be {below < 0}")
    if ball_lt_exact is not None and ball_lt_exact(x, number) != (above > 0):
        problems.append(f"ball_lt_exact(ball, {text}) should be {above > 0}")
    return problems


def test_exact_le_ge_with_balls():
    """exact_le / exact_ge(number, ball) are number <= mid - rad / number >= mid + rad exactly (the checker is
    complete for exactly implied ends), for balls of every magnitude and numbers at, inside and outside the ends;
    the strict versions (exact_lt_ball, ball_lt_exact) likewise."""
    import certify.kernel.balls as balls

    funcs = (lambda n, x: balls.exact_le(n, x), lambda x, n: balls.exact_ge(n, x),
             getattr(balls, "exact_lt_ball", None), getattr(balls, "ball_lt_exact", None))
    operands = [t for t, _, _ in _operands()]
    problems, count = [], 0
    for x in _balls():
        lo, hi = fraction_of_ball(x)
        for text in _probes(x) + operands:
            if not parse_syntax(text):
                continue
            problems += _check_ball(text, x, lo, hi, funcs)
            count += 1
    assert count > 10000
    assert not problems, f"{len(problems)} of {count}: " + "; ".join(problems[:10])


@SETTINGS
@given(CANONICAL, st.integers(-400, 400), st.integers(0, 200), st.integers(-2000, 2000))
def test_exact_le_ge_with_drawn_balls(text, mid_exp, rad_bits, scale):
    """Random balls (dyadic mid and radius at any scale) against random canonical numbers and their ends."""
    import certify.kernel.balls as balls

    with ctx.workprec(300):
        x = arb(fmpq(scale) * fmpq(2) ** mid_exp, fmpq(2) ** (mid_exp - rad_bits))
    lo, hi = fraction_of_ball(x)
    funcs = (lambda n, y: balls.exact_le(n, y), lambda y, n: balls.exact_ge(n, y),
             getattr(balls, "exact_lt_ball", None), getattr(balls, "ball_lt_exact", None))
    problems = []
    for probe in [text] + _probes(x)[:12]:
        problems += _check_ball(probe, x, lo, hi, funcs)
    assert not problems, problems[:5]


# ---------------------------------------------------------------------------------------------------------
# (c) what certify writes is canonical

SPECIAL_RATIONALS = [Fraction(0), Fraction(1), Fraction(-1), Fraction(10**21), Fraction(10**22), Fraction(-10**22),
                     Fraction(10**5000), Fraction(-10**5000), Fraction(1, 10**7), Fraction(1, 10**8),
                     Fraction(1, 2**300), Fraction(1, 2**1000), Fraction(1, 3), Fraction(-22, 7), Fraction(5, 2),
                     Fraction(1081, 4225000), Fraction(2**64), Fraction(3**200, 2**50), Fraction(7, 10**40),
                     Fraction(123456789, 10**30), Fraction(10**40 + 1, 10**20), Fraction(1, 10**5000)]


@pytest.mark.parametrize("value", SPECIAL_RATIONALS, ids=lambda f: canonical_text(Num.of(f))[:30])
def test_format_rational_is_canonical_special(value):
    """format_rational of integers beyond 10^21 (scientific: "1e22"), of 10^5000 (no 4300-digit crash), of
    terminating fractions (decimals) and of others (reduced n/d) is the oracle's canonical spelling."""
    from certify.kernel.exact import format_rational

    assert format_rational(fmpq(value.numerator, value.denominator)) == canonical_text(Num.of(value))


@SETTINGS
@given(st.integers(-10**60, 10**60), st.integers(0, 120), st.integers(0, 120), st.sampled_from([1, 1, 3, 7, 9, 21]))
def test_format_rational_is_canonical_drawn(numerator, twos, fives, other):
    """Random rationals n / (2^a 5^b c): terminating ones as decimals, the others as reduced fractions."""
    from certify.kernel.exact import format_rational

    value = Fraction(numerator, 2**twos * 5**fives * other)
    assert format_rational(fmpq(value.numerator, value.denominator)) == canonical_text(Num.of(value))


def _drawn_ball(rng):
    with ctx.workprec(rng.choice((64, 128, 192, 300))):
        x = arb(fmpq(rng.randint(1, 10**30), rng.randint(1, 10**30))) * arb(10) ** rng.choice(
            (0, 1, -1, 7, -7, 21, 22, -8, 40, -40, 561, -1792, 3000, -3000, rng.randint(-20000, 20000)))
        if rng.random() < 0.3:
            x = -x
        if rng.random() < 0.3:
            x = arb(x.mid(), abs(x.mid()) * fmpq(1, 10 ** rng.randint(1, 40)))
        if rng.random() < 0.1:
            x = arb(x.mid(), 0)
    return x


def test_bound_text_is_canonical_and_outward():
    """_bound_text of 400 random balls (every magnitude, exact and wide) is canonical by the oracle and lies
    outside the ball (lower end <= mid - rad, upper end >= mid + rad); of rationals, their canonical spelling."""
    from certify.certificate import _bound_text

    rng = random.Random(77)
    problems = []
    for _ in range(400):
        x = _drawn_ball(rng)
        lo, hi = fraction_of_ball(x)
        for upward in (False, True):
            text = _bound_text(x, upward)
            if not is_canonical(text):
                problems.append(f"{text!r} is not canonical ({canonical(text)!r})")
                continue
            end = Num.of(hi if upward else lo)
            order = oracle_compare(parse_syntax(text), end)
            if (order < 0) if upward else (order > 0):
                problems.append(f"{text!r} is inside the ball it bounds")
    for value in SPECIAL_RATIONALS:
        for upward in (False, True):
            text, canon = _bound_text(fmpq(value.numerator, value.denominator), upward), canonical_text(Num.of(value))
            if len(canon) <= grammar.MAX_LENGTH:  # written as it is
                if text != canon:
                    problems.append(f"_bound_text({value}) not canonical")
                continue
            # too long for certify/1 (1/2^300 is a 210-digit decimal): rounded outward to a canonical number
            # of at most 200 characters, within a unit of its 80th significant digit
            if not is_canonical(text) or len(text) > grammar.MAX_LENGTH:
                problems.append(f"_bound_text({value}) = {text!r} is not a canonical certify/1 number")
                continue
            written = parse_syntax(text).fraction()
            if (written < value) if upward else (written > value):
                problems.append(f"_bound_text({value}, upward={upward}) = {text} is not outward")
            if abs(written - value) > abs(value) / 10**79:
                problems.append(f"_bound_text({value}) = {text} is not within 80 digits of the value")
    assert not problems, problems[:10]


def test_quantity_to_json_is_canonical_and_twins_agree():
    """quantity_to_json of random positive enclosures with log10 twins: every field canonical, ends outward,
    log10 fields outside the log10 ball, and each pair agrees by the twin rule (docs/numbers-and-checking.md:
    log10_lo <= log10(lo) < log10_lo + u, u the unit of the field's last nonzero digit, 2u <= |field|)."""
    from certify.certificate import quantity_to_json
    from certify.kernel.claims import Quantity

    rng = random.Random(78)
    problems = []
    for index in range(150):
        x = abs(_drawn_ball(rng))
        if not (fraction_of_ball(x)[0] > 0):
            continue
        with ctx.workprec(256):
            log10x = x.log() / arb(10).log()
        kind = index % 3
        quantity = (Quantity(lower=x, log10_lower=log10x) if kind == 0 else
                    Quantity(lower=x, upper=x, log10_lower=log10x, log10_upper=log10x) if kind == 1 else
                    Quantity(lower=x, upper=x))
        out = quantity_to_json(quantity, f"q{index}")
        for key, text in out.items():
            if not is_canonical(text):
                problems.append(f"{key} = {text!r} not canonical")
        if problems:
            continue
        problems += _twin_problems(out)
        lo, hi = fraction_of_ball(x)
        if oracle_compare(parse_syntax(out["lo"]), Num.of(lo)) > 0:
            problems.append(f"lo {out['lo']} inside the ball")
        if "hi" in out and oracle_compare(parse_syntax(out["hi"]), Num.of(hi)) < 0:
            problems.append(f"hi {out['hi']} inside the ball")
        llo, lhi = fraction_of_ball(log10x)
        if "log10_lo" in out and oracle_compare(parse_syntax(out["log10_lo"]), Num.of(llo)) > 0:
            problems.append(f"log10_lo {out['log10_lo']} inside the log10 ball")
        if "log10_hi" in out and oracle_compare(parse_syntax(out["log10_hi"]), Num.of(lhi)) < 0:
            problems.append(f"log10_hi {out['log10_hi']} inside the log10 ball")
    assert not problems, problems[:10]


def _twin_problems(fields: dict) -> list[str]:
    """The twin rule (docs/numbers-and-checking.md), decided by the oracle's exact log10 comparisons."""
    problems = []
    for end_key, log_key, upper in (("lo", "log10_lo", False), ("hi", "log10_hi", True)):
        if log_key not in fields or end_key not in fields:
            continue
        end = parse_syntax(fields[end_key])
        if end is None or not grammar.twin_agrees(end, fields[log_key], upper):
            problems.append(f"{end_key} = {fields[end_key][:40]} and {log_key} = {fields[log_key][:40]} disagree")
    return problems


BUILDS = {
    "dead": lambda p: __import__("certify.theorems.dead", fromlist=["x"]).certify_dead(p),
    "slide": lambda p: __import__("certify.theorems.slide", fromlist=["x"]).certify_slide(p),
    "smooth": lambda p: __import__("certify.theorems.smooth", fromlist=["x"]).certify_smooth(p),
    "gd": lambda p: __import__("certify.theorems.gd", fromlist=["x"]).certify_gd(p, fmpq(1)),
}


def number_fields(certificate: dict):
    """(path, text, is_log10) of every number-valued string field of a certificate."""
    for name, text in certificate["parameters"].items():
        yield f"parameters/{name}", text, False
    yield "radius", certificate["radius"], False
    for block, levels in certificate["base_point"].items():
        for level, text in levels.items():
            yield f"base_point/{block}/{level}", text, False
    for claim_id, claim in certificate["claims"].items():
        parts = [(claim_id, claim)] + [(f"{claim_id}/{n}", c) for n, c in claim.get("components", {}).items()]
        for where, part in parts:
            for key in ("exact", "lo", "hi", "log10_lo", "log10_hi"):
                if key in part:
                    yield f"claims/{where}/{key}", part[key], key.startswith("log10")


@pytest.mark.parametrize("theorem", sorted(BUILDS))
@pytest.mark.parametrize("p", [5, 13])
def test_certificates_write_only_canonical_numbers(theorem, p):
    """Every number-valued string field of the certificates certify writes (four theorems, p = 5, 13) is the
    oracle's canonical spelling of its value, log10 fields are decimals, and twin pairs agree by the oracle."""
    certificate = BUILDS[theorem](p).certificate
    problems, count = [], 0
    for path, text, is_log10 in number_fields(certificate):
        count += 1
        if not is_canonical(text):
            problems.append(f"{path} = {text!r} is not canonical ({canonical(text)!r})")
        elif is_log10 and "/" in text:
            problems.append(f"{path} = {text!r} is a fraction")
    for claim_id, claim in certificate["claims"].items():
        problems += [f"{claim_id}: {problem}" for problem in _twin_problems(claim)]
    assert count >= 12
    assert not problems, problems
