"""Grammar-based fuzzing of ``certify check`` against an oracle that decides truth independently.

Genuine certificates of all four theorems (p = 5 and 13; and p = 10^18 - 11, whose Gaussian
probabilities and capture times have exponents of 20 to 54 digits) are edited one field at a time:
every claim end, exact value, log10 field, component, parameter, radius, base-point level,
p and precision_bits gets numbers from the grammar (tests/grammar.py): other spellings of
the same value, zeros with huge exponents, values just inside and just outside the
recomputed ends, huge and tiny values, junk; fields and components are deleted and added;
twin fields (``lo`` / ``log10_lo``) are set to disagree, or to agree on a weaker bound.

The oracle (:class:`Oracle`) predicts the verdict from the rules of issue 10 as the contract
docs/numbers-and-checking.md states them (twin pairs: one unit of the log10 field's last nonzero
digit, and 2u <= |field|; inputs of more than 100 digits refused for size), without the
checker's comparisons: it recomputes the kernel's claims at the stored inputs (at
precision_bits + 64, like the checker; once per distinct inputs), reads the balls'
endpoints exactly as Fractions (``man_exp``), and decides every stored number with the
grammar's exact integer comparisons and exact log10 comparisons (ends with huge binary
exponents through log10 balls read exactly). A verdict of 0 (verified) the oracle does not
allow is a **soundness** failure when the certificate, spelled canonically, is false, and an
**accepted-malformed** finding when only its spelling or structure is wrong; a rejection of a
certificate the oracle finds true, canonical and exactly implied is a **completeness**
failure; a malformed / rejected mix-up is a **verdict** finding; an exception out of
``check_bytes`` or a message of more than one line is a **crash**. Within a few ulps of an end
(where Arb's history may move the checker's ball) either verdict is allowed, but the verdict is
judged again by the rule itself against a fresh recomputation in the same Arb state (a
**near-end** finding if they differ): a checker comparing with mid instead of mid - rad is caught.

Bounded time: a fixed-seed deterministic part (every edit of the catalogue on every
certificate) and a random part that runs for ``GRAMMAR_FUZZ_SECONDS`` (default 10; its own
budget, so that it does not depend on where or whether the deterministic part ran: pytest-xdist
runs the two in separate processes); ``GRAMMAR_FUZZ_SEED`` picks the random part's seed.
The counts of executions, verdicts and findings are printed in the terminal summary (each test
records its lines, tests/conftest.py prints them, also from pytest-xdist's workers).
The regression tests at the end replay every reproducer of the issue by hand-written
expectations (no oracle involved).
"""

from __future__ import annotations

import copy
import json
import os
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction

import pytest
from flint import arb, fmpq

import grammar
from grammar import Num, canonical_text, compare, is_canonical, parse_syntax

from conftest import SUMMARY_PROPERTY

SECONDS = float(os.environ.get("GRAMMAR_FUZZ_SECONDS", "10"))
SEED = int(os.environ.get("GRAMMAR_FUZZ_SEED", "20261130"))
#: The rules: the checker recomputes at precision_bits + 64.
EXTRA_BITS = 64
#: Inputs whose reduced numerator or denominator has more digits than this are refused for size (verdict 1
#: or 2; docs/numbers-and-checking.md, "Bounded inputs"); smaller inputs must be judged on their truth.
SIZE_REFUSAL_DIGITS = 100

ENDS = ("exact", "lo", "hi", "log10_lo", "log10_hi")
OK, REJECTED, MALFORMED = 0, 1, 2
CLASSES = ("soundness", "accepted-malformed", "completeness", "verdict", "near-end", "crash", "oracle")


# ---------------------------------------------------------------------------------------------------------
# the genuine certificates

#: The largest prime certify takes (10^18 - 11): Gaussian probabilities near 10^-(10^19) and 10^-(10^53),
#: capture times near 10^(10^19), so ends with exponents of 20 and 54 digits.
BIG_P = 999_999_999_999_999_989
SPECS = [("dead", 5, {}), ("dead", 13, {}), ("slide", 5, {}), ("slide", 13, {}), ("smooth", 5, {}),
         ("smooth", 13, {}), ("gd", 5, {"eta": 1}), ("gd", 13, {"eta": 1}), ("gd", 13, {"eta": 1000}),
         ("dead", BIG_P, {}), ("slide", BIG_P, {}), ("smooth", BIG_P, {}), ("gd", BIG_P, {"eta": 1})]


def build(theorem: str, p: int, options: dict) -> dict:
    if theorem == "dead":
        from certify.theorems.dead import certify_dead
        return certify_dead(p).certificate
    if theorem == "slide":
        from certify.theorems.slide import certify_slide
        return certify_slide(p).certificate
    if theorem == "smooth":
        from certify.theorems.smooth import certify_smooth
        return certify_smooth(p).certificate
    from certify.theorems.gd import certify_gd
    return certify_gd(p, fmpq(options["eta"])).certificate


def spec_name(spec) -> str:
    theorem, p, options = spec
    return f"{theorem}-{'bigp' if p == BIG_P else p}" + "".join(f"-{k}{v}" for k, v in options.items())


@pytest.fixture(scope="session")
def genuine():
    """{name: (certificate dict, its canonical JSON text)}, built once per session through the library."""
    out = {}
    for spec in SPECS:
        certificate = build(*spec)
        out[spec_name(spec)] = certificate
    return out


def check(document) -> tuple[int, str]:
    """(exit code, message) of certify.check.check_bytes on the document (a dict, or raw bytes)."""
    from certify.check import check_bytes

    data = document if isinstance(document, bytes) else json.dumps(document, sort_keys=True).encode()
    verdict = check_bytes(data)
    return verdict.exit_code, verdict.message


# ---------------------------------------------------------------------------------------------------------
# the oracle


GREY = "within the last bits of the recomputed end"

#: Dyadic ends with binary exponents beyond this are compared through log10 (never expanded).
HUGE_BITS = 200_000


def compare_dyadic(x: Num, mantissa: int, exponent: int) -> int | None:
    """The sign of x - mantissa 2^exponent, exactly; for huge exponents through log10 balls (None if undecided).

    A decimal with a huge exponent never equals such a dyadic (m 10^e = M 2^E with e < 0 would need
    5^-e to divide M), so rising precision decides unless they agree to 2^-(2^15) relative.
    """
    from flint import ctx

    if mantissa == 0:
        return x.sign
    sign = 1 if mantissa > 0 else -1
    if x.sign != sign:
        return (x.sign > sign) - (x.sign < sign)
    if abs(exponent) <= HUGE_BITS:
        y = Fraction(mantissa) * 2**exponent if exponent >= 0 else Fraction(mantissa, 2**-exponent)
        return compare(x, Num.of(y))
    bits = abs(exponent).bit_length() + abs(x.e).bit_length() + 128
    while bits <= 1 << 15:
        with ctx.workprec(bits):
            log_y = (arb(abs(mantissa)).log() + exponent * arb(2).log()) / arb(10).log()
            log_x = (arb(x.n).log() - arb(x.d).log()) / arb(10).log() + x.e
            lo, hi = grammar._ball_fractions(log_x - log_y)
        if lo > 0:
            return sign
        if hi < 0:
            return -sign
        bits *= 4
    return None


def approximate_decimal(mantissa: int, exponent: int, digits: int) -> tuple[int, int]:
    """(m, k) with m 10^k within a unit of the last of ``digits`` digits of mantissa 2^exponent (> 0): for probes."""
    from flint import ctx

    with ctx.workprec(abs(exponent).bit_length() + 4 * digits + 64):
        log10 = (arb(mantissa).log() + exponent * arb(2).log()) / arb(10).log()
        whole = grammar._ball_fractions(log10)[0].__floor__()
        scaled = arb(10) ** (log10 - whole + digits - 1)
        value = grammar._ball_fractions(scaled)[0].__floor__()
    return value, whole - digits + 1


class End:
    """A kernel bound read exactly: an fmpq (exact), or a ball mid +/- rad with its precision.

    Arb's results depend on history in their last bits (constants cached at higher precision give
    tighter balls later in a process, commit 7a2311c), so the checker's ball may differ from the one
    the oracle computed. Both contain the same quantity B, which makes two verdicts certain: a stored
    lower end above mid + rad exceeds B (every correct checker rejects it), and one at least
    2 rad + |mid| 2^-(prec + 48) below mid - rad lies below any ball about B of such width (every
    complete checker accepts it). In between is a grey zone where either verdict is allowed; exact
    rational bounds have none. Ends are kept as dyadics (M, E) = M 2^E, so 10^-(10^19) costs nothing.
    """

    def __init__(self, bound, prec: int):
        self.finite, self.exact, self.huge = True, None, False
        if isinstance(bound, fmpq):
            self.exact = Fraction(int(bound.p), int(bound.q))
            return
        if not isinstance(bound, arb):
            raise TypeError(f"unexpected bound {type(bound).__name__}")
        if not bound.is_finite():
            self.finite = False
            return
        mid_m, mid_e = (int(v) for v in bound.mid().man_exp())
        rad_m, rad_e = (int(v) for v in bound.rad().man_exp())
        if mid_m == 0:
            mid_e = rad_e if rad_m else 0
        base = mid_e - prec - 48
        if rad_m and rad_e >= base - 64:
            base = min(base, rad_e)
        mid = mid_m << (mid_e - base)
        rad = 0 if not rad_m else (rad_m << (rad_e - base)) if rad_e >= base else 1  # rounded up: still >= rad
        slack = 2 * rad + (abs(mid_m) << (mid_e - prec - 48 - base))
        self.base = base
        self.huge = abs(base) > HUGE_BITS
        self.lower, self.upper = mid - rad, mid + rad
        self.accept_lower, self.accept_upper = mid - rad - slack, mid + rad + slack
        self.cache = {}

    def point(self, key: str) -> Fraction | None:
        """The exact end a stored ``key`` is measured against (lower end for lo, upper for hi), if not huge."""
        if self.exact is not None:
            return self.exact
        if not self.finite or self.huge:
            return None
        value = self.lower if key in ("lo", "log10_lo") else self.upper
        return Fraction(value) * 2**self.base if self.base >= 0 else Fraction(value, 2**-self.base)

    def near(self, key: str, digits: int) -> list[str]:
        """Canonical decimals just below, at and just above the end, with ``digits`` significant digits."""
        point = self.point(key)
        if point is not None:
            return near(point, digits)
        if not self.finite:
            return []
        value = self.lower if key in ("lo", "log10_lo") else self.upper
        if value == 0:
            return near(Fraction(0), digits)
        m, k = approximate_decimal(abs(value), self.base, digits)
        sign = 1 if value > 0 else -1
        return [canonical_text(Num.make(sign * (m + delta), 1, k)) for delta in (-2, -1, 0, 1, 2)]

    def verdict(self, number: Num, key: str, strict: bool = False) -> str:
        """'implied', 'not implied' or 'grey' for a stored lower (lo, log10_lo) or upper (hi, log10_hi) end.

        ``strict``: no grey zone, the rule itself against this very ball (lo <= mid - rad, hi >= mid + rad).
        """
        if strict:
            if self.exact is not None or not self.finite:
                return self._verdict(number, key)
            lower = key in ("lo", "log10_lo")
            order = compare_dyadic(number, self.lower if lower else self.upper, self.base)
            if order is None:
                return "grey"
            return "implied" if (order <= 0 if lower else order >= 0) else "not implied"
        if self.exact is None and self.finite:
            if (number, key) not in self.cache:
                self.cache[(number, key)] = self._verdict(number, key)
            return self.cache[(number, key)]
        return self._verdict(number, key)

    def _verdict(self, number: Num, key: str) -> str:
        lower = key in ("lo", "log10_lo")
        if not self.finite:
            return "not implied"
        if self.exact is not None:
            order = compare(number, Num.of(self.exact))
            return "implied" if (order <= 0 if lower else order >= 0) else "not implied"
        if lower:
            order = compare_dyadic(number, self.upper, self.base)
            if order is not None and order > 0:
                return "not implied"
            order = compare_dyadic(number, self.accept_lower, self.base)
            return "implied" if order is not None and order <= 0 else "grey"
        order = compare_dyadic(number, self.lower, self.base)
        if order is not None and order < 0:
            return "not implied"
        order = compare_dyadic(number, self.accept_upper, self.base)
        return "implied" if order is not None and order >= 0 else "grey"


@dataclass
class OQuantity:
    """A kernel Quantity as exact numbers (ends as :class:`End`)."""

    keys: frozenset
    exact: Fraction | None
    ends: dict                       # lo / hi / log10_lo / log10_hi -> End
    lower_must_exceed: Fraction | None
    upper_must_be_below: Fraction | None

    @staticmethod
    def of(quantity, prec: int) -> "OQuantity":
        def rational(x):
            return None if x is None else Fraction(int(fmpq(x).p), int(fmpq(x).q))

        parts = {"lo": quantity.lower, "hi": quantity.upper, "log10_lo": quantity.log10_lower,
                 "log10_hi": quantity.log10_upper}
        keys = {"exact"} if quantity.exact is not None else {key for key, part in parts.items() if part is not None}
        ends = {key: End(part, prec) for key, part in parts.items() if part is not None}
        return OQuantity(frozenset(keys), rational(quantity.exact), ends, rational(quantity.lower_must_exceed),
                         rational(quantity.upper_must_be_below))

    def end_for(self, key: str) -> Fraction | None:
        """The exact value a stored ``key`` is measured against, when the oracle can read it."""
        if key == "exact":
            return self.exact
        end = self.ends.get(key)
        return None if end is None else end.point(key)


@dataclass
class OClaim:
    statement: str
    scope: str
    quantity: OQuantity | None
    components: dict


@dataclass
class Recomputed:
    base_point: dict | None = None   # block -> level -> Fraction
    claims: dict | None = None       # id -> OClaim
    refusal: str | None = None       # why the kernel refused these inputs (then the verdict is 1)
    allowed_on_refusal: frozenset = frozenset({REJECTED})


@dataclass(frozen=True)
class Prediction:
    """The verdicts the rules allow, why, and whether the certificate (respelled canonically) is false."""

    allowed: frozenset
    reason: str
    false: bool = False


def _allow(*codes, reason="", false=False):
    return Prediction(frozenset(codes), reason, false)


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin (the first 13 prime bases are exact below 3.3e24; p <= 10^18 here)."""
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    if n in bases:
        return True
    if any(n % b == 0 for b in bases):
        return False
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _digits_of_input(number: Num) -> int:
    """Digits of the larger of numerator and denominator of the value as a reduced fraction (0 for zero)."""
    if number.is_zero():
        return 0
    if abs(number.e) > 500:  # then one of them has more than 300 digits: no need to be exact
        return abs(number.e)
    value = number.fraction()
    return max(len(str(abs(value.numerator))), len(str(value.denominator)))


class Oracle:
    """Predicts check_bytes' verdict on a certificate from the rules, with exact arithmetic of its own."""

    def __init__(self, strict: bool = False):
        self.cache: dict = {}
        self.log_cache: dict = {}
        self.recomputations = 0
        #: strict: the rule against this oracle's own balls, recomputed afresh for every certificate (so in the
        #: same Arb state as the check just made); used to judge verdicts in the grey zone
        self.strict = strict

    # -- the kernel's construction and claims at given inputs, once per inputs -----------------------------
    def recompute(self, theorem: str, p: int, values: dict, radius: Fraction | None, prec: int | None) -> Recomputed:
        """The base point of the parameters (radius None), or also the claims at radius and precision."""
        key = (theorem, p, tuple(sorted(values.items())), radius, prec)
        if self.strict and radius is not None:
            return self._recompute(theorem, p, values, radius, prec)
        if key not in self.cache:
            self.cache[key] = self._recompute(theorem, p, values, radius, prec)
        return self.cache[key]

    def _recompute(self, theorem, p, values, radius, prec) -> Recomputed:
        from certify.errors import CertifyError, HypothesisError, NotCertified
        from certify.kernel.primes import require_prime
        from certify.kernel.registry import kernel_for

        kernel = kernel_for(theorem)
        try:
            require_prime(p)
        except CertifyError as exc:
            return Recomputed(refusal=f"p: {exc}")
        try:
            params = kernel.make_parameters(p, {name: fmpq(v.numerator, v.denominator) for name, v in values.items()})
            if radius is None:
                _require_hypotheses(kernel, params, prec + EXTRA_BITS)
                construction = kernel.base_point(params).blocks()
                return Recomputed(base_point={
                    name: {"at_0": Fraction(int(block.at_0.p), int(block.at_0.q)),
                           "elsewhere": Fraction(int(block.elsewhere.p), int(block.elsewhere.q))}
                    for name, block in construction.items()})
            self.recomputations += 1
            claims = kernel.claims(params, fmpq(radius.numerator, radius.denominator), prec + EXTRA_BITS)
        except (HypothesisError, NotCertified) as exc:
            return Recomputed(refusal=f"{type(exc).__name__}: {exc}")
        except CertifyError as exc:  # another refusal of the inputs: rejected or malformed, never verified
            return Recomputed(refusal=f"{type(exc).__name__}: {exc}", allowed_on_refusal=frozenset({1, 2}))
        except Exception as exc:  # noqa: BLE001 - the kernel cannot evaluate these inputs at all
            return Recomputed(refusal=f"kernel raised {type(exc).__name__}: {str(exc)[:80]}",
                              allowed_on_refusal=frozenset({1, 2}))
        out = {}
        for claim in claims:
            out[claim.id] = OClaim(claim.statement, claim.scope,
                                   None if claim.quantity is None else OQuantity.of(claim.quantity, prec),
                                   {name: OQuantity.of(q, prec) for name, q in claim.components.items()})
        return Recomputed(claims=out)

    def genuine_recomputation(self, document) -> Recomputed:
        values = {n: parse_syntax(t).fraction() for n, t in document["parameters"].items()}
        return self.recompute(document["theorem"], document["p"], values, parse_syntax(document["radius"]).fraction(),
                              document["precision_bits"])

    # -- the prediction ------------------------------------------------------------------------------------
    def predict(self, document) -> Prediction:
        try:
            return self._predict(document)
        except _Structure as exc:
            return _allow(REJECTED, MALFORMED, reason=f"structure: {exc}")
        except (KeyError, TypeError, AttributeError) as exc:  # a field missing or of another type: never verified
            return _allow(REJECTED, MALFORMED, reason=f"structure: {type(exc).__name__} {exc}")

    def _predict(self, document) -> Prediction:
        if not isinstance(document, dict):
            raise _Structure("not an object")
        # 1. every number: a string, canonical (log10 fields: decimals)
        for path, text, is_log10 in _number_fields(document):
            if not isinstance(text, str):
                return _allow(MALFORMED, reason=f"{'/'.join(path)} is not a string")
            if not is_canonical(text):
                respelled = grammar.canonical(text)
                truth = None
                if respelled is not None and len(respelled) <= grammar.MAX_LENGTH:
                    truth = self.predict(Edit("respelled", path, respelled).apply(document))
                return _allow(MALFORMED, reason=f"{'/'.join(path)} = {text[:50]!r} is not canonical",
                              false=truth is not None and truth.false)
            if is_log10 and "/" in text:
                return _allow(REJECTED, MALFORMED,
                              reason=f"{'/'.join(path)} = {text[:50]!r}: log10 fields are decimals")
        theorem, p, prec = document.get("theorem"), document.get("p"), document.get("precision_bits")
        if theorem not in ("dead", "slide", "smooth", "gd"):
            raise _Structure("theorem")
        if isinstance(p, bool) or not isinstance(p, int) or not 2 <= p <= 10**18:
            return _allow(MALFORMED, reason="p outside the schema")
        if isinstance(prec, bool) or not isinstance(prec, int) or not 64 <= prec <= 512:
            return _allow(MALFORMED, reason="precision_bits outside the schema")
        from certify.kernel.registry import kernel_for

        names = kernel_for(theorem).parameter_names
        parameters = document.get("parameters")
        if not isinstance(parameters, dict) or set(parameters) != set(names):
            raise _Structure("parameter names")
        # 2. the inputs: exact, of a size the oracle recomputes
        inputs = {f"parameters/{n}": parse_syntax(parameters[n]) for n in names}
        inputs["radius"] = parse_syntax(document["radius"])
        base_point = document["base_point"]
        for block in ("u", "v", "w"):
            for level in ("at_0", "elsewhere"):
                inputs[f"base_point/{block}/{level}"] = parse_syntax(base_point[block][level])
        size = max(_digits_of_input(v) for v in inputs.values())
        if size > SIZE_REFUSAL_DIGITS:
            return _allow(REJECTED, MALFORMED, reason=f"an input of {size} digits (refused for size)")
        if not _is_prime(p):
            return _allow(REJECTED, reason=f"p = {p} is not prime", false=True)
        values = {n: inputs[f"parameters/{n}"].fraction() for n in names}
        construction = self.recompute(theorem, p, values, None, prec)  # the checker's order: hypotheses, base point
        if construction.refusal is not None:
            return Prediction(construction.allowed_on_refusal,
                              f"kernel refuses: {construction.refusal[:100]}", True)
        for block, levels in construction.base_point.items():
            for level, expected in levels.items():
                if inputs[f"base_point/{block}/{level}"].fraction() != expected:
                    return _allow(REJECTED, reason=f"base_point/{block}/{level} is not the construction",
                                  false=True)
        rec = self.recompute(theorem, p, values, inputs["radius"].fraction(), prec)
        if rec.refusal is not None:
            return Prediction(rec.allowed_on_refusal, f"kernel refuses: {rec.refusal[:100]}", True)
        # 3. the claims
        stored = document["claims"]
        if not isinstance(stored, dict) or set(stored) != set(rec.claims):
            raise _Structure("claim ids")
        undecided = None
        for claim_id, claim in rec.claims.items():
            part = stored[claim_id]
            if not isinstance(part, dict):
                raise _Structure(f"{claim_id} is not an object")
            if part.get("statement") != claim.statement or part.get("scope") != claim.scope:
                raise _Structure(f"{claim_id}: statement or scope")
            top = {k: v for k, v in part.items() if k not in ("statement", "scope", "components")}
            if claim.quantity is None:
                if top:
                    raise _Structure(f"{claim_id} states {sorted(top)}")
            else:
                outcome = self._quantity(top, claim.quantity, claim_id)
                if outcome is not None and outcome.allowed != frozenset({OK, REJECTED}):
                    return outcome
                undecided = undecided or outcome
            if claim.components:
                components = part.get("components")
                if not isinstance(components, dict) or set(components) != set(claim.components):
                    raise _Structure(f"{claim_id}: component names")
                for name, quantity in claim.components.items():
                    if not isinstance(components[name], dict):
                        raise _Structure(f"{claim_id}/{name}")
                    outcome = self._quantity(components[name], quantity, f"{claim_id}/{name}")
                    if outcome is not None and outcome.allowed != frozenset({OK, REJECTED}):
                        return outcome
                    undecided = undecided or outcome
            elif "components" in part:
                raise _Structure(f"{claim_id} has components, the kernel none")
        if undecided is not None:
            return undecided
        return _allow(OK, reason="true, canonical and exactly implied")

    def _quantity(self, stored: dict, quantity: OQuantity, where: str) -> Prediction | None:
        """None if every stored number is implied; a rejection (or an undecided pair) otherwise."""
        if set(stored) != quantity.keys:
            raise _Structure(f"{where}: keys {sorted(stored)} should be {sorted(quantity.keys)}")
        numbers = {key: parse_syntax(text) for key, text in stored.items()}
        if quantity.exact is not None:
            if compare(numbers["exact"], Num.of(quantity.exact)) != 0:
                return _allow(REJECTED, reason=f"{where}: exact differs", false=True)
            return None
        grey = None
        for key in ("lo", "log10_lo", "hi", "log10_hi"):
            if key not in numbers:
                continue
            verdict = quantity.ends[key].verdict(numbers[key], key, self.strict)
            if verdict == "not implied":
                return _allow(REJECTED, reason=f"{where}: {key} is not implied by the recomputed end", false=True)
            if verdict == "grey":
                grey = _allow(OK, REJECTED, reason=f"{where}: {key} {GREY}")
        if quantity.lower_must_exceed is not None and compare(numbers["lo"], Num.of(quantity.lower_must_exceed)) <= 0:
            return _allow(REJECTED, reason=f"{where}: lo does not exceed the strict margin", false=True)
        if quantity.upper_must_be_below is not None and \
                compare(numbers["hi"], Num.of(quantity.upper_must_be_below)) >= 0:
            return _allow(REJECTED, reason=f"{where}: hi is not below the strict bound", false=True)
        for end_key, log_key, upper in (("lo", "log10_lo", False), ("hi", "log10_hi", True)):
            if log_key not in stored or end_key not in stored:
                continue
            agrees = self.twin_agrees(stored[end_key], stored[log_key], upper)
            if agrees is None:
                return _allow(OK, REJECTED, reason=f"{where}: the oracle cannot decide {end_key}/{log_key}")
            if not agrees:
                return _allow(REJECTED, reason=f"{where}: {end_key} and {log_key} state different numbers", false=True)
        return grey

    def twin_agrees(self, end_text: str, log_text: str, upper: bool) -> bool | None:
        """The pair rule (grammar.twin_agrees), cached by texts."""
        key = (end_text, log_text, upper)
        if key not in self.log_cache:
            self.log_cache[key] = grammar.twin_agrees(parse_syntax(end_text), log_text, upper)
        return self.log_cache[key]


def _require_hypotheses(kernel, params, prec: int) -> None:
    """The kernel's hypothesis check, at the recomputation's precision where it takes one (as the checker does)."""
    import inspect

    if len(inspect.signature(kernel.require_hypotheses).parameters) >= 2:
        kernel.require_hypotheses(params, prec)
    else:
        kernel.require_hypotheses(params)


class _Structure(Exception):
    """A key set that differs from the kernel's: rejected or malformed, never verified."""


def _number_fields(document):
    """(path tuple, value, is_log10) of every number field, wherever the document has one."""
    parameters = document.get("parameters")
    if isinstance(parameters, dict):
        for name, text in parameters.items():
            yield ("parameters", name), text, False
    if "radius" in document:
        yield ("radius",), document["radius"], False
    base_point = document.get("base_point")
    if not isinstance(base_point, dict):
        raise _Structure("base_point")
    for block in ("u", "v", "w"):
        levels = base_point.get(block)
        if not isinstance(levels, dict) or set(levels) != {"at_0", "elsewhere"}:
            raise _Structure(f"base_point/{block}")
        for level, text in levels.items():
            yield ("base_point", block, level), text, False
    claims = document.get("claims")
    if not isinstance(claims, dict):
        raise _Structure("claims")
    for claim_id, claim in claims.items():
        if not isinstance(claim, dict):
            raise _Structure(claim_id)
        parts = [(("claims", claim_id), claim)]
        components = claim.get("components", {})
        if isinstance(components, dict):
            parts += [(("claims", claim_id, "components", n), c) for n, c in components.items() if isinstance(c, dict)]
        for where, part in parts:
            for key in ENDS:
                if key in part:
                    yield where + (key,), part[key], key.startswith("log10")


# ---------------------------------------------------------------------------------------------------------
# edits

DELETE = object()


@dataclass(frozen=True)
class Edit:
    """One change to a genuine certificate: set ``path`` to ``value`` (or delete it, or add it)."""

    label: str
    path: tuple
    value: object

    def apply(self, document: dict) -> dict:
        out = copy.deepcopy(document)
        node = out
        for key in self.path[:-1]:
            node = node[key]
        if self.value is DELETE:
            del node[self.path[-1]]
        else:
            node[self.path[-1]] = self.value
        return out

    def describe(self) -> str:
        shown = "<deleted>" if self.value is DELETE else json.dumps(self.value)[:120]
        return f"{'/'.join(map(str, self.path))} = {shown} ({self.label})"


HUGE_AND_TINY = ("1e10001", "-1e10001", "1e-10001", "-1e-10001", "1e-999999999", "-1e-999999999",
                 "1e999999999", "9.99e" + "9" * 60, "-9.99e" + "9" * 60, "1e-" + "9" * 60, "-1e-" + "9" * 60,
                 "1e22", "-1e22", "1/3", "-1/3", "1/" + "3" * 198, "9." + "9" * 130 + "e" + "9" * 60, "0")
JUNK_FORMS = (lambda t: t + "\n", lambda t: " " + t, lambda t: "+" + t, lambda t: t.replace("e", "E") + "E0",
              lambda t: t.replace("1", "\u0661"), lambda t: t + "\r\n", lambda t: t + "\u0000")


def slots(document: dict):
    """(path, kind) of every number field: kind is 'end', 'log10', 'input'."""
    for name in document["parameters"]:
        yield ("parameters", name), "input"
    yield ("radius",), "input"
    for block, levels in document["base_point"].items():
        for level in levels:
            yield ("base_point", block, level), "input"
    for claim_id, claim in document["claims"].items():
        for key in ENDS:
            if key in claim:
                yield ("claims", claim_id, key), "log10" if key.startswith("log10") else "end"
        for name, part in claim.get("components", {}).items():
            for key in ENDS:
                if key in part:
                    yield ("claims", claim_id, "components", name, key), "log10" if key.startswith("log10") else "end"


def get(document, path):
    node = document
    for key in path:
        node = node[key]
    return node


def recomputed_quantity(rec: Recomputed, path: tuple) -> OQuantity | None:
    claim = rec.claims.get(path[1])
    if claim is None:
        return None
    return claim.components.get(path[3]) if path[2] == "components" else claim.quantity


def near(end: Fraction, digits: int) -> list[str]:
    """Canonical decimals at ``digits`` significant digits just below, at and just above ``end``."""
    number = Num.of(end)
    if number.is_zero():
        return ["0", "1e-" + "9" * 60, "-1e-" + "9" * 60, "1e-30", "-1e-30"]
    k = number.magnitude()
    scaled = end * Fraction(10) ** (digits - k)
    down, up = scaled.__floor__(), scaled.__ceil__()
    return [canonical_text(Num.make(m, 1, k - digits)) for m in (down - 1, down, up, up + 1)]


def near_end(quantity: OQuantity, key: str, digits: int) -> list[str]:
    """Probes around the recomputed end a stored ``key`` is measured against (exact value, rational or ball)."""
    if key == "exact":
        return near(quantity.exact, digits)
    end = quantity.ends.get(key)
    return [] if end is None else end.near(key, digits)


def near_fractions(end: Fraction) -> list[str]:
    """Reduced non-terminating fractions n/d just below and above ``end`` (d = 3^j, 7^j, 3^j 7): the checker
    compares numbers with denominators too."""
    out = []
    for d in (3, 7**30, 3**90, 3 * 7**60):
        for n in ((end * d).__floor__() - 1, (end * d).__floor__(), (end * d).__ceil__(), (end * d).__ceil__() + 1):
            text = canonical_text(Num.make(n, d))
            if len(text) <= grammar.MAX_LENGTH:
                out.append(text)
    return out


def exact_spelling(end: Fraction) -> list[str]:
    """The end itself, if its canonical spelling fits in 200 characters."""
    number = Num.of(end)
    if not number.terminating() and abs(end.numerator) > 10**200:
        return []
    text = canonical_text(number)
    return [text] if len(text) <= grammar.MAX_LENGTH else []


def end_edits(document, path, quantity: OQuantity | None) -> list[Edit]:
    """Grammar numbers for one claim end: other spellings, zeros, huge/tiny, near the recomputed end, junk."""
    text = get(document, path)
    key = path[-1]
    out = [Edit("same value, other spelling", path, t) for t in grammar.spellings(text)]
    out += [Edit("zero spelling", path, t) for t in grammar.ZERO_SPELLINGS]
    out += [Edit("huge or tiny", path, t) for t in HUGE_AND_TINY]
    out += [Edit("junk", path, form(text)) for form in JUNK_FORMS]
    out.append(Edit("JSON integer", path, 0))
    if quantity is not None:
        for digits in (3, 12, 45, 70):
            out += [Edit(f"near the recomputed end ({digits} digits)", path, t) for t in near_end(quantity, key, digits)]
        end = quantity.end_for(key)
        if end is not None:
            out += [Edit("the recomputed end exactly", path, t) for t in exact_spelling(end)]
            out += [Edit("near the recomputed end, as a fraction", path, t) for t in near_fractions(end)]
        for threshold in (quantity.lower_must_exceed, quantity.upper_must_be_below):
            if threshold is not None:
                out += [Edit("the strict margin exactly", path, t) for t in exact_spelling(threshold)]
                out += [Edit("near the strict margin", path, t) for t in near(threshold, 20)]
        other = {"lo": "hi", "hi": "lo", "log10_lo": "log10_hi", "log10_hi": "log10_lo"}.get(key)
        if other and other in quantity.ends:
            out += [Edit("the other end", path, t) for t in near_end(quantity, other, 45)[1:3]]
    number = parse_syntax(text)
    if number is not None and number.d == 1 and not number.is_zero():  # a unit of the last digit, and of the next
        for delta in (-1, 1):
            for place in (0, -1):
                moved = canonical_text(grammar.add(number, Num.make(delta, 1, number.e + place)))
                if len(moved) <= grammar.MAX_LENGTH:
                    out.append(Edit(f"one unit at 10^{place} of the last digit", path, moved))
    return out


def input_edits(document, path) -> list[Edit]:
    """Other spellings, zeros, nearby values (recomputed by the oracle), huge and tiny values of one input."""
    text = get(document, path)
    value = parse_syntax(text).fraction()
    out = [Edit("same value, other spelling", path, t) for t in grammar.spellings(text)]
    out += [Edit("zero spelling", path, t) for t in ("0", "-0", "0e10001", "0e999999999999999999", "0.0")]
    out += [Edit("junk", path, form(text)) for form in JUNK_FORMS[:3]]
    nearby = [value * (1 + Fraction(1, 10**3)), value * (1 - Fraction(1, 10**3)), value * (1 + Fraction(1, 10**30)),
              value * (1 - Fraction(1, 10**30)), value + 1, -value, 2 * value, value / 2, value * Fraction(1, 3),
              value + Fraction(1, 10**70)]
    out += [Edit("nearby value", path, canonical_text(Num.of(v))) for v in nearby
            if len(canonical_text(Num.of(v))) <= grammar.MAX_LENGTH]
    out += [Edit("huge or tiny input", path, t) for t in ("1e10001", "-1e5000", "1e5000", "1e-10001",
                                                           "1e-999999999", "9." + "9" * 149 + "e10149",
                                                           "1" + "0" * 70 + "1", "1/" + "7" * 80)]
    return out


def structural_edits(document) -> list[Edit]:
    """Deleted and added fields, claims and components; empty components; statements; p and precision."""
    out = []
    for claim_id, claim in document["claims"].items():
        out.append(Edit("claim deleted", ("claims", claim_id), DELETE))
        out.append(Edit("statement changed", ("claims", claim_id, "statement"), claim["statement"] + " "))
        out.append(Edit("scope changed", ("claims", claim_id, "scope"),
                        "box" if claim["scope"] == "base_point" else "base_point"))
        out.append(Edit("unknown key", ("claims", claim_id, "note"), "1"))
        for key in ENDS:
            if key in claim:
                out.append(Edit("field deleted", ("claims", claim_id, key), DELETE))
            else:
                out.append(Edit("field added", ("claims", claim_id, key), "1e-999999999" if "lo" in key else
                                "1e999999999" if "hi" in key else "1"))
        if "components" in claim:
            out.append(Edit("components emptied", ("claims", claim_id, "components"), {}))
            out.append(Edit("component added", ("claims", claim_id, "components", "extra"), {"lo": "0"}))
            for name, part in claim["components"].items():
                out.append(Edit("component deleted", ("claims", claim_id, "components", name), DELETE))
                out.append(Edit("component emptied", ("claims", claim_id, "components", name), {}))
                for key in part:
                    out.append(Edit("component field deleted", ("claims", claim_id, "components", name, key), DELETE))
                out.append(Edit("component field added", ("claims", claim_id, "components", name, "exact"), "0"))
        else:
            out.append(Edit("empty components", ("claims", claim_id, "components"), {}))
            out.append(Edit("components added", ("claims", claim_id, "components"), {"x": {"lo": "0"}}))
    p = document["p"]
    for q in (p - 2, p + 2, p + 4, 2, 3, 4, 7, 11, 15, 17, 1, 0, -5, 10**18 + 3):
        out.append(Edit("p changed", ("p",), q))
    out.append(Edit("p as a string", ("p",), str(p)))
    for bits in (64, 65, 127, 192, 512, 63, 513, 0):
        out.append(Edit("precision_bits changed", ("precision_bits",), bits))
    for name in document["parameters"]:
        out.append(Edit("parameter deleted", ("parameters", name), DELETE))
    out.append(Edit("parameter added", ("parameters", "extra"), "1"))
    return out


def twin_edits(document, rec: Recomputed) -> list[Edit]:
    """lo/log10_lo (and hi/log10_hi) pairs that disagree, and weaker pairs that agree (must be accepted)."""
    out = []
    for claim_id, claim in document["claims"].items():
        for end_key, log_key, upper in (("lo", "log10_lo", False), ("hi", "log10_hi", True)):
            if log_key not in claim:
                continue
            out.append(Edit("twin: end far weaker than its log10", ("claims", claim_id, end_key),
                            "1e999999999" if upper else "1e-999999999"))
            out.append(Edit("twin: end at 60-digit exponent", ("claims", claim_id, end_key),
                            "1e" + "9" * 60 if upper else "1e-" + "9" * 60))
            t = parse_syntax(claim[log_key])
            for digits in (1, 2, 3, 4, 6, 12, 30):  # log10 truncated outward: a coarser, weaker twin
                for shift in (0, 1, 2, 3):
                    k = t.magnitude()
                    step = Fraction(10) ** (k - digits + 1)
                    f = t.fraction() / step
                    m = (f.__ceil__() + shift) if upper else (f.__floor__() - shift)
                    text = canonical_text(Num.of(m * step))
                    out.append(Edit(f"twin: log10 at {digits} digits, {shift} units out", ("claims", claim_id, log_key),
                                    text))
                    weaker = _end_for_log10(text, upper)
                    if weaker is not None:  # both fields moved to the weaker, agreeing pair
                        out.append(Edit(f"twin: agreeing weaker pair at {digits} digits, {shift} out",
                                        ("claims", claim_id), {**claim, log_key: text, end_key: weaker}))
            out.append(Edit("twin: log10 as a fraction", ("claims", claim_id, log_key),
                            canonical_text(Num.of(t.fraction() - Fraction(1, 3)))))
    return out


def _end_for_log10(log_text: str, upper: bool) -> str | None:
    """A canonical decimal x with log10 x within the twin window of ``log_text`` (45 digits, rounded inward)."""
    from flint import ctx

    t = parse_syntax(log_text)
    if not t.expandable(1000) or abs(t.fraction()) > 10**6:
        return None
    with ctx.workprec(400):
        lo, hi = grammar._ball_fractions(arb(10) ** arb(fmpq(t.fraction().numerator, t.fraction().denominator)))
    # lower pair: x just above 10^t; upper pair: x just below 10^t
    target = Num.of(hi if not upper else lo)
    k = target.magnitude()
    scaled = (hi if not upper else lo) * Fraction(10) ** (45 - k)
    m = scaled.__ceil__() if not upper else scaled.__floor__()
    return canonical_text(Num.make(m, 1, k - 45))


#: Claims whose ends have exponents of 20 to 54 digits at the largest p (the rest is covered at p = 5, 13).
HUGE_CLAIMS = ("gaussian_probability", "capture_time")


def catalogue(document, rec: Recomputed) -> list[Edit]:
    """Every deterministic edit of one genuine certificate (at the largest p: the claims with huge exponents)."""
    edits = [Edit("genuine", ("format",), document["format"])]
    full = document["p"] != BIG_P
    for path, kind in slots(document):
        if kind == "input":
            if full:
                edits += input_edits(document, path)
        elif full or path[1] in HUGE_CLAIMS:
            edits += end_edits(document, path, recomputed_quantity(rec, path))
    if full:
        edits += structural_edits(document)
    edits += twin_edits(document, rec)
    return edits


def random_edit(rng: random.Random, document, rec: Recomputed) -> Edit:
    """One random edit: a random grammar string, a random value near a recomputed end, an input or a twin."""
    all_slots = list(slots(document))
    kind = rng.random()
    if kind < 0.15:
        return rng.choice(structural_edits(document))
    if kind < 0.3:
        twins = twin_edits(document, rec)
        if twins:
            return rng.choice(twins)
    path, slot_kind = rng.choice(all_slots)
    if kind < 0.45 and slot_kind != "input":
        quantity = recomputed_quantity(rec, path)
        probes = near_end(quantity, path[-1], rng.randint(1, 80)) if quantity else []
        end = quantity.end_for(path[-1]) if quantity else None
        if end is not None and rng.random() < 0.2:
            probes = near_fractions(end)
        if probes:
            return Edit("random near the recomputed end", path, rng.choice(probes))
    if kind < 0.55:
        text = get(document, path)
        number = parse_syntax(text)
        if number is not None and not number.is_zero() and number.expandable(1000):
            factor = 1 + rng.choice((1, -1)) * Fraction(rng.randint(1, 999), 10 ** rng.randint(1, 60))
            moved = canonical_text(Num.of(number.fraction() * factor))
            if len(moved) <= grammar.MAX_LENGTH:
                return Edit("random relative move", path, moved)
    return Edit("random grammar string", path, grammar.random_spelling(rng))


# ---------------------------------------------------------------------------------------------------------
# running and reporting

@dataclass
class Stats:
    executions: int = 0
    verdicts: dict = field(default_factory=lambda: {0: 0, 1: 0, 2: 0})
    predicted: dict = field(default_factory=dict)
    findings: dict = field(default_factory=lambda: {name: [] for name in CLASSES})
    slowest: tuple = (0.0, "")
    seconds: float = 0.0
    by_label: dict = field(default_factory=dict)    # (class, edit label) -> count
    grey: int = 0                                    # verdicts judged again by a fresh, strict recomputation

    def lines(self, title: str) -> list[str]:
        counts = ", ".join(f"{name} {len(items)}" for name, items in self.findings.items())
        out = [f"{title}: {self.executions} executions in {self.seconds:.1f} s; verdicts 0/1/2 = "
               f"{self.verdicts[0]}/{self.verdicts[1]}/{self.verdicts[2]}; findings: {counts}; "
               f"slowest check {self.slowest[0] * 1000:.0f} ms ({self.slowest[1][:100]})",
               "  oracle allowed: " + ", ".join(f"{list(key)} x {count}" for key, count in sorted(self.predicted.items()))
               + f"; {self.grey} near an end judged again against a fresh recomputation"]
        for (name, label), count in sorted(self.by_label.items()):
            out.append(f"  {name} x {count}: {label}")
        for name, items in self.findings.items():
            for item in items[:6]:
                out.append(f"  {name}: {item}")
        return out

    def add(self, name: str, edit: "Edit", text: str) -> None:
        self.findings[name].append(text)
        self.by_label[(name, edit.label)] = self.by_label.get((name, edit.label), 0) + 1


STRICT = Oracle(strict=True)


def run_one(stats: Stats, oracle: Oracle, name: str, document: dict, edit: Edit) -> None:
    edited = edit.apply(document)
    try:
        prediction = oracle.predict(edited)
    except Exception as exc:  # noqa: BLE001 - a defect of the oracle, not of certify: reported, not hidden
        stats.add("oracle", edit, f"{name}: {edit.describe()}: {type(exc).__name__}: {str(exc)[:200]}")
        return
    start = time.perf_counter()
    try:
        code, message = check(edited)
    except Exception as exc:  # noqa: BLE001 - any escape is a finding
        stats.executions += 1
        stats.add("crash", edit, f"{name}: {edit.describe()}: {type(exc).__name__}: {str(exc)[:200]}")
        return
    elapsed = time.perf_counter() - start
    stats.executions += 1
    if elapsed > stats.slowest[0]:
        stats.slowest = (elapsed, f"{name}: {edit.describe()}")
    stats.verdicts[code] = stats.verdicts.get(code, 0) + 1
    label = tuple(sorted(prediction.allowed))
    stats.predicted[label] = stats.predicted.get(label, 0) + 1
    where = f"{name}: {edit.describe()}: got {code} ({message[:160]}), oracle allows {sorted(prediction.allowed)} " \
            f"({prediction.reason[:160]})"
    if "\n" in message or code not in (0, 1, 2):
        stats.add("crash", edit, f"{name}: {edit.describe()}: bad message {message[:200]!r}")
    elif code == OK and OK not in prediction.allowed:
        stats.add("soundness" if prediction.false else "accepted-malformed", edit, where)
    elif code != OK and prediction.allowed == frozenset({OK}):
        stats.add("completeness", edit, where)
    elif code not in prediction.allowed:
        stats.add("verdict", edit, where)
    elif GREY in prediction.reason:  # allowed either way; the rule against a fresh ball of the same state decides
        stats.grey += 1
        strict = STRICT.predict(edited)
        if code not in strict.allowed and GREY not in strict.reason:
            stats.add("near-end", edit, f"{where}; against a fresh recomputation: {sorted(strict.allowed)} "
                                        f"({strict.reason[:120]})")


@pytest.fixture(scope="module")
def oracle():
    return Oracle()


def _assert_clean(stats: Stats, title: str):
    print("\n".join(stats.lines(title)))
    bad = {name: items for name, items in stats.findings.items() if items}
    assert not bad, "\n".join(stats.lines(title))


def test_oracle_accepts_the_genuine_certificates(genuine, oracle):
    """The oracle (and the checker) find every genuine certificate true: the baseline of every edit below."""
    for name, document in genuine.items():
        prediction = oracle.predict(document)
        assert prediction.allowed == frozenset({OK}), (name, prediction)
        assert check(document)[0] == OK, name


def test_fuzz_deterministic(genuine, oracle, record_property):
    """Every edit of the catalogue (about 19,000) on the thirteen genuine certificates (four theorems at p = 5, 13,
    gd also at eta = 1000, and the claims with huge exponents at p = 10^18 - 11): the checker's verdict is one
    the oracle allows. Fails with the findings and prints the counts either way."""
    stats = Stats()
    start = time.perf_counter()
    for name, document in genuine.items():
        rec = oracle.genuine_recomputation(document)
        for edit in catalogue(document, rec):
            run_one(stats, oracle, name, document, edit)
    stats.seconds = time.perf_counter() - start
    record_property(SUMMARY_PROPERTY, stats.lines("deterministic catalogue"))
    assert stats.executions > 5000
    assert stats.verdicts[OK] and stats.verdicts[REJECTED] and stats.verdicts[MALFORMED]
    _assert_clean(stats, "deterministic catalogue")


def test_fuzz_random(genuine, oracle, record_property):
    """Random grammar edits for GRAMMAR_FUZZ_SECONDS (default 10): the checker's verdict is one the oracle
    allows."""
    stats = Stats()
    rng = random.Random(SEED)
    names = sorted(genuine)
    recs = {name: oracle.genuine_recomputation(genuine[name]) for name in names}
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        name = rng.choice(names)
        run_one(stats, oracle, name, genuine[name], random_edit(rng, genuine[name], recs[name]))
    stats.seconds = time.perf_counter() - start
    record_property(SUMMARY_PROPERTY, stats.lines(f"random (seed {SEED}, {SECONDS:.0f} s)"))
    assert stats.executions > 100
    _assert_clean(stats, f"random (seed {SEED})")


# ---------------------------------------------------------------------------------------------------------
# regression tests: the reproducers of issue 10, with hand-written expectations


def edited(document, path, value):
    return Edit("regression", tuple(path), value).apply(document)


@pytest.mark.parametrize("hi", ["0e10001", "-0e10001", "0e999999999999999999", "0.0", "-0", "0/5"])
def test_issue_zero_with_huge_exponent_is_malformed(genuine, hi):
    """gd p = 13, eta = 1: w_step_box.hi = 0 spelled with an exponent (the attack) is malformed, never verified."""
    code, message = check(edited(genuine["gd-13-eta1"], ("claims", "w_step_box", "hi"), hi))
    assert code == MALFORMED, message


def test_issue_zero_spelled_canonically_is_rejected(genuine):
    """gd p = 13, eta = 1: w_step_box.hi = "0" is canonical and false (the step moves w), so rejected."""
    code, message = check(edited(genuine["gd-13-eta1"], ("claims", "w_step_box", "hi"), "0"))
    assert code == REJECTED, message


def test_issue_huge_eta_is_not_accepted(genuine):
    """gd p = 13: eta = 9.99...9e10149 (150 nines) with w_step_box.hi = 1e10001, while the true
    2 eta (epsilon + 2r)/p^2 exceeds 1e10148: refused for size or rejected, never verified (nor with hi =
    1e10148, also false, nor with true ends: an input of 10150 digits is refused); the issue's spelling of
    eta (150 nines then e10000) is not canonical, so malformed."""
    base = genuine["gd-13-eta1"]
    for eta, allowed in (("9." + "9" * 149 + "e10149", {REJECTED, MALFORMED}), ("9" * 150 + "e10000", {MALFORMED})):
        document = edited(edited(base, ("parameters", "eta"), eta), ("claims", "w_step_box", "hi"), "1e10001")
        code, message = check(document)
        assert code in allowed, (eta[:20], code, message)
        for hi in ("1e10148", "1e10151", "1e" + "9" * 60):  # false, then true ends: eta is refused for size either way
            code, message = check(edited(document, ("claims", "w_step_box", "hi"), hi))
            assert code in allowed, (eta[:20], hi, code, message)


@pytest.mark.parametrize("name", ["dead-13", "slide-13", "smooth-13", "gd-13-eta1"])
def test_issue_gaussian_lo_disagrees_with_its_log10(genuine, name):
    """gaussian_probability.lo = 1e-999999999 beside the genuine log10_lo: each is a valid lower bound, but the
    pair states two different numbers (lo = 10^log10_lo is false), so the certificate is rejected."""
    code, message = check(edited(genuine[name], ("claims", "gaussian_probability", "lo"), "1e-999999999"))
    assert code == REJECTED, message


def test_issue_capture_time_twins_disagree(genuine):
    """slide p = 13: capture_time's lo = 1e-999999999 or hi = 1e999999999 beside the genuine log10 fields (each a
    valid bound alone, the pair false) is rejected."""
    for key, value in (("lo", "1e-999999999"), ("hi", "1e999999999"), ("lo", "1"), ("hi", "1e" + "9" * 60)):
        code, message = check(edited(genuine["slide-13"], ("claims", "capture_time", key), value))
        assert code == REJECTED, (key, value, message)


def test_issue_coarser_agreeing_twins_are_accepted(genuine):
    """Completeness and the pair rule, worked by hand: dead p = 13 has lo = 1.799...e-34, log10 lo = -33.7449.
    log10_lo = "-34" ([-34, -33) holds it), "-33.8" ([-33.8, -33.7)) and "-40" (u = 10: [-40, -30)) are weaker,
    true and agreeing, so verified; "-35" and "-36" (windows below it), "-50" ([-50, -40)), "-1e22" (a lone
    leading 1: 2u > |field|), "-2e22" ([-2e22, -1e22)) disagree, and "-33.7" exceeds log10 P: rejected."""
    document = genuine["dead-13"]
    assert document["claims"]["gaussian_probability"]["lo"].startswith("1.7993209097734931")
    for log10_lo, expected in (("-34", OK), ("-33.8", OK), ("-40", OK), ("-33.75", OK), ("-35", REJECTED),
                               ("-36", REJECTED), ("-50", REJECTED), ("-1e22", REJECTED), ("-2e22", REJECTED),
                               ("-33.7", REJECTED), ("-33.74", REJECTED), ("-20", REJECTED)):
        code, message = check(edited(document, ("claims", "gaussian_probability", "log10_lo"), log10_lo))
        assert code == expected, (log10_lo, message)
    # both fields weaker and agreeing: lo = 1e-40 beside log10_lo = -40 (u = 10) is verified
    weaker = edited(edited(document, ("claims", "gaussian_probability", "lo"), "1e-40"),
                    ("claims", "gaussian_probability", "log10_lo"), "-40")
    assert check(weaker)[0] == OK


@pytest.mark.parametrize("name", ["dead-13", "slide-13", "smooth-13", "gd-13-eta1"])
def test_issue_empty_components(genuine, name):
    """"components": {} on a claim whose kernel claim has no components is never verified."""
    document = genuine[name]
    for claim_id, claim in document["claims"].items():
        if "components" not in claim:
            code, message = check(edited(document, ("claims", claim_id, "components"), {}))
            assert code in (REJECTED, MALFORMED), (claim_id, message)


def test_issue_trailing_newline(genuine):
    """A number with a trailing newline ("0.247\\n": the schema's $ let it through) is malformed, wherever it is."""
    document = genuine["dead-13"]
    assert document["radius"] == "0.247"
    for path in (("radius",), ("parameters", "epsilon"), ("base_point", "u", "at_0"),
                 ("claims", "single_active_gate", "lo"), ("claims", "gaussian_probability", "log10_lo"),
                 ("claims", "terminal_fourier_fraction", "exact")):
        code, message = check(edited(document, path, get(document, path) + "\n"))
        assert code == MALFORMED, (path, message)


def test_issue_huge_inputs_never_crash(genuine):
    """base_point.u.elsewhere = -1e5000 and epsilon = 1e5000 (Python's 4300-digit limit in messages) give a
    one-line verdict, rejected or malformed, and no exception."""
    document = genuine["dead-13"]
    for path, value in ((("base_point", "u", "elsewhere"), "-1e5000"), (("parameters", "epsilon"), "1e5000"),
                        (("parameters", "A"), "1e-5000"), (("radius",), "1e-5000")):
        code, message = check(edited(document, path, value))
        assert code in (REJECTED, MALFORMED) and "\n" not in message, (path, message)


def test_issue_deep_nesting_never_crashes(genuine):
    """"p" nested 985 deep (RecursionError in the schema message) is malformed, with a one-line message."""
    text = json.dumps(genuine["dead-13"], sort_keys=True)
    deep = "[" * 985 + "13" + "]" * 985
    code, message = check(text.replace('"p": 13', f'"p": {deep}').encode())
    assert code == MALFORMED and "\n" not in message, message


def test_issue_strict_margin_end_at_zero_is_rejected(genuine):
    """single_active_gate.lo = "0" states lo > 0 with lo = 0: false (a strict margin), so rejected; the exact
    rational bound hitting_time_box.lo = 42757/2494 (the kernel's own value) is exactly implied, so verified."""
    document = genuine["dead-13"]
    assert check(edited(document, ("claims", "single_active_gate", "lo"), "0"))[0] == REJECTED
    assert document["claims"]["hitting_time_box"]["lo"] == "42757/2494"
    assert check(edited(document, ("claims", "hitting_time_box", "lo"), "42757/2494"))[0] == OK
    assert check(edited(document, ("claims", "hitting_time_box", "lo"), "42758/2494"))[0] != OK
