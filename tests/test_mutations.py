"""Every single-field mutation that makes a claim false is rejected, naming the claim; moving an end
outward (a weaker but true claim) is accepted. For each theorem at p = 5, 13 and 101.

The recomputed values come from the kernel at the checker's precision, so "inward past the
recomputed value" is exact: a lower end is set just above the top of the recomputed ball, an
upper end just below its bottom, an exact value moved by 1/1000.
"""

import copy
from fractions import Fraction

import pytest
from flint import fmpq

from certify.check import CHECK_EXTRA_BITS
from certify.kernel.balls import lower_decimal, upper_decimal
from certify.kernel.exact import ExactNumber, format_decimal, format_rational, parse_exact, parse_rational, round_decimal
from certify.kernel.registry import kernel_for
from certify.sweep import primes_between
from conftest import verdict

CASES = [(theorem, p) for theorem in ("dead", "slide", "smooth", "gd") for p in (5, 13, 101)]
COUNTS = {"rejected": 0, "accepted": 0}


@pytest.fixture(scope="module")
def certificates():
    from certify.theorems import dead, gd, slide, smooth

    builders = {"dead": dead.certify_dead, "slide": slide.certify_slide, "smooth": smooth.certify_smooth,
                "gd": lambda p: gd.certify_gd(p, fmpq(1))}
    return {(theorem, p): builders[theorem](p).certificate for theorem, p in CASES}


def recomputed(certificate):
    kernel = kernel_for(certificate["theorem"])
    values = {name: parse_rational(certificate["parameters"][name]) for name in kernel.parameter_names}
    params = kernel.make_parameters(certificate["p"], values)
    claims = kernel.claims(params, parse_rational(certificate["radius"]), certificate["precision_bits"] + CHECK_EXTRA_BITS)
    return {claim.id: claim for claim in claims}


def quantities(claim):
    """(path inside the stored claim, Quantity) for the claim's quantity and each component."""
    if claim.quantity is not None:
        yield (), claim.quantity
    for name, part in claim.components.items():
        yield ("components", name), part


def strictly_above(bound) -> str:
    """A short exact decimal above every point of the recomputed bound (an fmpq or a ball)."""
    if isinstance(bound, fmpq):
        number = round_decimal(ExactNumber(int(bound.p), int(bound.q)), 20, upward=True)
    else:
        number = upper_decimal(bound)
    return decimal_text(ExactNumber(number.numerator + 1, 1, number.exp10))


def strictly_below(bound) -> str:
    """A short exact decimal below every point of the recomputed bound."""
    if isinstance(bound, fmpq):
        number = round_decimal(ExactNumber(int(bound.p), int(bound.q)), 20, upward=False)
    else:
        number = lower_decimal(bound)
    return decimal_text(ExactNumber(number.numerator - 1, 1, number.exp10))


def decimal_text(number: ExactNumber) -> str:
    return format_decimal(number.numerator, number.exp10)


def false_mutations(certificate):
    """(description, claim id, mutated certificate) for every end moved inward past the recomputed value."""
    for claim_id, claim in recomputed(certificate).items():
        for path, quantity in quantities(claim):
            where = f"{claim_id}{'/' + '/'.join(path) if path else ''}"
            for key, bound, inward in (("lo", quantity.lower, strictly_above),
                                       ("log10_lo", quantity.log10_lower, strictly_above),
                                       ("hi", quantity.upper, strictly_below),
                                       ("log10_hi", quantity.log10_upper, strictly_below)):
                if bound is not None:
                    yield f"{where}.{key} inward", claim_id, mutated(certificate, (claim_id, *path, key), inward(bound))
            if quantity.exact is not None:
                value = quantity.exact + fmpq(1, 1000)
                yield f"{where}.exact changed", claim_id, \
                    mutated(certificate, (claim_id, *path, "exact"), format_rational(value))


def outward(text: str, down: bool, limit=None) -> str:
    """An exact decimal farther out than ``text`` (down for a lower end), never crossing ``limit``.

    Works on the (mantissa, exponent) form, so 1e-37124 costs nothing: ends move by halving or
    doubling, or halfway towards the limit a strict bound must respect.
    """
    number = parse_exact(text)
    if limit is not None:  # halfway to the limit: still strictly on the right side of it
        middle = (number.fmpq() + fmpq(limit)) / 2 if number.is_expandable() else None
        if middle is not None:
            rounded = round_decimal(ExactNumber(int(middle.p), int(middle.q)), 30, upward=not down)
            return decimal_text(rounded)
    sign = number.sign()
    if sign == 0:
        return "-1" if down else "1"
    shrink = (sign > 0) == down  # a positive lower end moves down by halving, a negative one by doubling
    scaled = ExactNumber(number.numerator, number.denominator * 2, number.exp10) if shrink else \
        ExactNumber(number.numerator * 2, number.denominator, number.exp10)
    return decimal_text(round_decimal(scaled, 30, upward=not down))


def true_mutations(certificate):
    """(description, mutated certificate) for every end moved outward, staying on the right side of its bound.

    An end with a log10 twin moves together with it (the pair must state one number): both go to a
    power of ten beyond them. A log10 field alone is rounded outward to ten fewer digits, which keeps
    the pair's agreement at the coarser last digit.
    """
    for claim_id, claim in recomputed(certificate).items():
        for path, quantity in quantities(claim):
            stored = certificate["claims"][claim_id]
            for part in path:
                stored = stored[part]
            for key, down, limit, twin in (("lo", True, quantity.lower_must_exceed, "log10_lo"),
                                           ("log10_lo", True, None, "lo"),
                                           ("hi", False, quantity.upper_must_be_below, "log10_hi"),
                                           ("log10_hi", False, None, "hi")):
                if key not in stored:
                    continue
                if twin not in stored:
                    yield f"{claim_id}.{key} outward", \
                        mutated(certificate, (claim_id, *path, key), outward(stored[key], down, limit))
                elif key.startswith("log10"):
                    yield f"{claim_id}.{key} rounded outward", \
                        mutated(certificate, (claim_id, *path, key), coarser(stored[key], down))
                else:
                    exponent = integer_beyond(stored[twin], down)
                    document = mutated(certificate, (claim_id, *path, key), format_decimal(1, exponent))
                    yield f"{claim_id}.{key} and {twin} outward to 10^{exponent}", \
                        mutated(document, (claim_id, *path, twin), str(exponent))


def integer_beyond(text: str, down: bool) -> int:
    """An integer strictly below (above, if not ``down``) the decimal ``text``, by integer arithmetic,
    with a significant digit besides a leading 1 (so not +-10^j: the pair rule wants 2u <= |field|)."""
    number = parse_exact(text)
    scale = 10 ** max(0, -number.exp10)
    whole = number.numerator * 10 ** max(0, number.exp10)
    exponent = (whole // scale) - 1 if down else -((-whole) // scale) + 1
    while str(abs(exponent)).rstrip("0") in ("", "1"):
        exponent += -1 if down else 1
    return exponent


def coarser(text: str, down: bool) -> str:
    """The decimal ``text`` rounded outward to ten fewer significant digits.

    The pair stays true: log10 of the end lies within one unit u of ``text``, and rounding ``text`` and
    log10 of the end outward at the coarser unit U = 10^10 u lands both on the same multiple unless a
    multiple of U lies within u of ``text`` (asserted not to happen here, so the mutation is true).
    """
    number = parse_exact(text)
    digits = max(1, len(str(abs(number.numerator))) - 10)
    rounded = round_decimal(number, digits, upward=not down)
    # one unit of the original last digit towards the end's log10 rounds to the same coarser value
    beyond = ExactNumber(number.numerator + (1 if down else -1), 1, number.exp10)
    assert round_decimal(beyond, digits, upward=not down) == rounded, text
    return decimal_text(rounded)


def mutated(certificate, path, value):
    document = copy.deepcopy(certificate)
    node = document["claims"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return document


def structural_mutations(certificate):
    """(description, mutated certificate, words the verdict must contain) for inputs and structure."""
    for name, value in certificate["parameters"].items():
        for factor in (Fraction(11, 10), Fraction(9, 10)):
            document = copy.deepcopy(certificate)
            document["parameters"][name] = format_rational(parse_rational(value) * fmpq(factor.numerator,
                                                                                          factor.denominator))
            yield f"parameter {name} x{factor}", document, ""
    for block in ("u", "v", "w"):
        for level in ("at_0", "elsewhere"):
            document = copy.deepcopy(certificate)
            document["base_point"][block][level] = format_rational(parse_rational(document["base_point"][block][level])
                                                                   + fmpq(1, 7))
            yield f"base point {block}.{level}", document, "base_point"
    p = certificate["p"]
    for other in (primes_between(p + 1, 2 * p + 10)[0], primes_between(5, p - 1)[-1] if p > 5 else 7):
        document = copy.deepcopy(certificate)
        document["p"] = other
        yield f"p -> {other}", document, ""
    document = copy.deepcopy(certificate)
    document["radius"] = format_rational(parse_rational(certificate["radius"]) * fmpq(21, 20))
    yield "radius x1.05 (past the certifiable supremum)", document, ""
    for claim_id in certificate["claims"]:
        document = copy.deepcopy(certificate)
        del document["claims"][claim_id]
        yield f"claim {claim_id} removed", document, claim_id
    document = copy.deepcopy(certificate)
    document["claims"][next(iter(document["claims"]))]["note"] = "trust me"
    yield "unknown key in a claim", document, "note"
    document = copy.deepcopy(certificate)
    document["comment"] = "x"
    yield "unknown top-level key", document, "comment"


@pytest.mark.parametrize("theorem, p", CASES)
def test_every_false_mutation_is_rejected_naming_the_claim(certificates, theorem, p):
    certificate = certificates[(theorem, p)]
    count = 0
    for description, claim_id, document in false_mutations(certificate):
        result = verdict(document)
        assert result.status == "rejected", (description, result.message)
        assert result.message.startswith(claim_id + ":"), (description, result.message)
        count += 1
    for description, document, words in structural_mutations(certificate):
        result = verdict(document)
        assert result.status in ("rejected", "malformed"), (description, result.message)
        assert words in result.message, (description, result.message)
        count += 1
    COUNTS["rejected"] += count
    print(f"{theorem} p = {p}: {count} false mutations rejected")


@pytest.mark.parametrize("theorem, p", CASES)
def test_every_outward_mutation_is_accepted(certificates, theorem, p):
    count = 0
    for description, document in true_mutations(certificates[(theorem, p)]):
        result = verdict(document)
        assert result.status == "verified", (description, result.message)
        count += 1
    COUNTS["accepted"] += count
    print(f"{theorem} p = {p}: {count} outward mutations accepted")


def test_counts_are_reported():
    """Printed with -s; also a guard that the two tests above ran over a real number of mutations."""
    print(f"mutations: {COUNTS['rejected']} rejected, {COUNTS['accepted']} accepted")
    assert COUNTS["rejected"] > 500 and COUNTS["accepted"] > 150
