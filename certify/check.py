"""The checker behind ``certify check``: parse, validate, recompute with the kernel, compare.

No search and no floats: the stored inputs (p, parameters, radius, precision)
are re-validated, the base point is confirmed to be the construction of the
stated parameters, every claim is recomputed by :mod:`certify.kernel`, and a
claim is accepted only if the recomputed enclosure lies inside the stored
interval (for a bound: the recomputed bound is at least as strong). A
comparison that balls cannot decide is a rejection.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from flint import fmpq

from .certificate import parse_certificate
from .errors import HypothesisError, InputError, MalformedCertificate, NotCertified, Rejected
from .kernel.balls import exact_ge, exact_le
from .kernel.claims import Claim, Quantity
from .kernel.exact import compare, exceeds, parse_exact, parse_rational, show_number
from .kernel.log10 import pair_agrees
from .kernel.primes import require_prime
from .kernel.registry import kernel_for
from .kernel.state import fresh_state

EXIT_VERIFIED, EXIT_REJECTED, EXIT_MALFORMED = 0, 1, 2

#: Extra precision of the recomputation over the certificate's precision_bits.
CHECK_EXTRA_BITS = 64


@dataclass(frozen=True)
class Verdict:
    """The outcome for one certificate: ``status`` is verified, rejected, malformed or error.

    Exit codes: 0 verified, 1 rejected, 2 malformed (or unreadable) and 2 for an
    internal error (a crash is never a rejection and never an acceptance).
    """

    source: str
    status: str
    message: str
    #: How many claims the checker verified: all of the certificate's when verified, 0 otherwise; None when
    #: not recorded (a verdict rebuilt from its three fields). Not compared: it follows from status.
    claims_verified: int | None = field(default=None, compare=False)

    @property
    def exit_code(self) -> int:
        return {"verified": EXIT_VERIFIED, "rejected": EXIT_REJECTED, "malformed": EXIT_MALFORMED,
                "error": EXIT_MALFORMED}[self.status]

    def __bool__(self) -> bool:
        """True exactly when ``status == "verified"`` (so ``if certificate.check():`` reads as it should)."""
        return self.status == "verified"

    def __repr__(self) -> str:
        """What was checked and what came of it: the status, the file (or source), the number of claims
        verified, and for any other status the checker's reason (its first: it stops at the first failure).

        >>> Verdict("dead-5.json", "rejected", "hitting_time: lo is above the enclosure", 0)
        <Verdict rejected: dead-5.json: no claim verified; first reason: hitting_time: lo is above the enclosure>
        """
        if self.status == "verified":  # the checker's message: theorem, p, "N claims verified", radius, bits
            return f"<Verdict verified: {self.source}: {self.message}>"
        return f"<Verdict {self.status}: {self.source}: no claim verified; first reason: {self.message}>"

    def line(self) -> str:
        return f"{self.source}: {self.status}: {self.message}" if self.status != "verified" \
            else f"{self.source}: verified: {self.message}"


def _rational(text: str, where: str):
    """An exact input of the certificate: canonical and of bounded size, else MalformedCertificate."""
    try:
        return parse_rational(text, where)
    except ValueError as exc:  # the message names the place already
        raise MalformedCertificate(str(exc)) from None


def verify_document(document: dict) -> str:
    """Verify a schema-valid certificate; return a one-line summary or raise Rejected/MalformedCertificate.

    Starts from a fresh numerical state (:func:`~certify.kernel.state.fresh_state`), so the verdict
    depends on the certificate alone, not on what the process checked before.
    """
    kernel = kernel_for(document["theorem"])
    fresh_state()
    try:
        p = require_prime(document["p"])
    except InputError as exc:
        raise Rejected("p", str(exc)) from None
    if document["paper"] != kernel.paper:
        raise Rejected("paper", "does not match the kernel's statement of the theorem instantiated")
    values = {name: _rational(document["parameters"][name], f"parameters/{name}") for name in kernel.parameter_names}
    params = kernel.make_parameters(p, values)
    prec = document["precision_bits"]
    try:  # a hypothesis decided with balls is decided at the precision the claims are recomputed at
        kernel.require_hypotheses(params, prec + CHECK_EXTRA_BITS)
    except HypothesisError as exc:
        raise Rejected("parameters", str(exc)) from None
    _verify_base_point(document["base_point"], kernel.base_point(params))
    radius = _rational(document["radius"], "radius")
    try:
        # Recompute with more bits than the certificate was made with: the stored ends lie at least one
        # unit of their last digit outside the generator's balls, so tighter balls fall inside them even
        # if a later version of the kernel or of Arb rounds differently. Still an enclosure: still rigorous.
        claims = kernel.claims(params, radius, prec + CHECK_EXTRA_BITS)
    except NotCertified as exc:
        raise Rejected(exc.claim_id or "radius", str(exc)) from None
    stored = document["claims"]
    expected = {claim.id for claim in claims}
    for claim_id in sorted(set(stored) - expected):
        raise Rejected(claim_id, "not a claim of this theorem")
    for claim in claims:
        if claim.id not in stored:
            raise Rejected(claim.id, "missing from the certificate")
        verify_claim(stored[claim.id], claim)
    return (f"{document['theorem']}, p = {p}, {len(claims)} claims verified "
            f"(radius {document['radius']}, {prec} bits)")


def _verify_base_point(stored: dict, construction) -> None:
    """Every stored level of every block is the construction's, and the stored levels are exactly the
    construction's (the schema allows at_1 for every theorem; only the staircase's blocks have it)."""
    for name, block in construction.blocks().items():
        levels = block.levels()
        for level in sorted(set(stored[name]) ^ set(levels)):
            state = "has no" if level in levels else "has a level"
            raise Rejected("base_point", f"{name} {state} {level}, but the construction of the stated parameters "
                                         f"has the levels {', '.join(levels)}")
        for level, expected in levels.items():
            value = _rational(stored[name][level], f"base_point/{name}/{level}")
            if value != expected:
                raise Rejected("base_point", f"{name}.{level} is {show_number(value)} but the construction "
                                             f"of the stated parameters gives {show_number(expected)}")


def _number(stored: dict, key: str, where: str):
    try:
        return parse_exact(stored[key])
    except ValueError as exc:
        raise MalformedCertificate(f"claims/{where}/{key}: {exc}") from None


def verify_claim(stored: dict, claim: Claim) -> None:
    """Raise Rejected unless the stored claim is implied by the recomputed ``claim``."""
    cid = claim.id
    if stored["statement"] != claim.statement:
        raise Rejected(cid, "statement differs from the kernel's statement of this claim")
    if stored["scope"] != claim.scope:
        raise Rejected(cid, f"scope {stored['scope']!r} should be {claim.scope!r}")
    top = {key: value for key, value in stored.items() if key not in ("statement", "scope", "components")}
    if claim.quantity is None and top:
        raise Rejected(cid, f"states {', '.join(sorted(top))}, which this claim does not prove")
    if claim.quantity is not None:
        verify_quantity(top, claim.quantity, cid)
    if "components" in stored and not claim.components:
        raise Rejected(cid, "states components, but this claim has none")
    components = stored.get("components", {})
    if set(components) != set(claim.components):
        missing, extra = set(claim.components) - set(components), set(components) - set(claim.components)
        raise Rejected(cid, f"components differ: missing {sorted(missing)}, unknown {sorted(extra)}")
    for name, part in claim.components.items():
        verify_quantity(components[name], part, cid, name)


def verify_quantity(stored: dict, quantity: Quantity, claim_id: str, component: str | None = None) -> None:
    """Raise Rejected (for ``claim_id``) unless the stored numbers of the claim (or of its ``component``) are implied
    by ``quantity``. Rejected names the claim; the reason names the component, if any."""
    allowed, present = quantity.keys(), set(stored)
    where = claim_id if component is None else f"{claim_id}/components/{component}"  # the numbers' path under claims/
    subject, label = ("it", "") if component is None else (component, f"{component}: ")
    if present - allowed:
        raise Rejected(claim_id, f"{subject} states {', '.join(sorted(present - allowed))}, which it does not prove")
    if allowed - present:
        raise Rejected(claim_id, f"{subject} is missing {', '.join(sorted(allowed - present))}")
    if quantity.exact is not None:
        value = _number(stored, "exact", where)
        if compare(value, quantity.exact) != 0:
            raise Rejected(claim_id, f"{label}exact value {stored['exact']} but the kernel computes "
                                     f"{show_number(quantity.exact)}")
        return
    for key, bound, below in (("lo", quantity.lower, True), ("hi", quantity.upper, False),
                              ("log10_lo", quantity.log10_lower, True), ("log10_hi", quantity.log10_upper, False)):
        if bound is None:
            continue
        number = _number(stored, key, where)
        holds = exact_le(number, bound) if below else exact_ge(number, bound)
        if not holds:
            side = "below" if below else "above"
            raise Rejected(claim_id, f"{label}{key} = {stored[key]} is not {side} the recomputed "
                                     f"enclosure {_show(bound, stored[key])}")
    for end_key, log_key, upper in (("lo", "log10_lo", False), ("hi", "log10_hi", True)):
        if end_key in stored and log_key in stored:
            end, log10_field = _number(stored, end_key, where), _number(stored, log_key, where)
            if not pair_agrees(end, log10_field, upper):
                raise Rejected(claim_id, f"{label}{end_key} = {stored[end_key]} and {log_key} = {stored[log_key]} "
                                         f"do not state the same number to the written digits of {log_key}")
    if quantity.lower_must_exceed is not None and not exceeds(_number(stored, "lo", where),
                                                              quantity.lower_must_exceed):
        raise Rejected(claim_id, f"{label}lo = {stored['lo']} must exceed {show_number(quantity.lower_must_exceed)}")
    if quantity.upper_must_be_below is not None and \
            not exceeds(-_number(stored, "hi", where), -quantity.upper_must_be_below):
        raise Rejected(claim_id, f"{label}hi = {stored['hi']} must be below "
                                 f"{show_number(quantity.upper_must_be_below)}")


def _show(bound, against: str) -> str:
    """The recomputed ``bound`` (an exact fmpq or a ball) as :func:`certify.render.numbers.display` shows it
    beside the stored number ``against``: an exact value as it is (or by its leading digits), a ball by its
    two ends rounded outward, each with as many digits as it takes to tell it apart from ``against`` (at
    most SEPARATING_DIGITS), so that a rejection shows where the stored end and the recomputation part.
    (certify.render.numbers imports nothing but the standard library.)"""
    from flint import arb, ctx

    from .kernel.exact import canonical_text
    from .render.numbers import MAX_TEXT_LENGTH, SEPARATING_DIGITS, display_parts

    if isinstance(bound, fmpq):
        text = canonical_text(bound)
        if len(text) <= MAX_TEXT_LENGTH:
            (_, body), = display_parts({"exact": text}, "text", against=against)
            return body
        bound = arb(bound)  # a fraction too long to print: its ball, to the precision in force
    if not bound.is_finite():
        return bound.str(12)
    ends = []
    # the exact ends mid -/+ rad (rounded outward to more bits than SEPARATING_DIGITS need) as decimal balls
    with ctx.workprec(max(ctx.prec, 4 * SEPARATING_DIGITS + 64)):
        for end, upward in ((bound.lower(), False), (bound.upper(), True)):
            mid, rad, exp10 = end.mid_rad_10exp(SEPARATING_DIGITS + 10)
            ends.append(f"{int(mid + rad if upward else mid - rad)}e{int(exp10)}")
    (_, body), = display_parts({"lo": ends[0], "hi": ends[1]}, "text", against=against)
    return body


def check_bytes(data: bytes, source: str = "<input>") -> Verdict:
    """Check one certificate given as bytes; never raises for bad input."""
    try:
        document = parse_certificate(data)
        # verify_document accepts only a certificate whose every claim is one of the kernel's, each verified
        return Verdict(source, "verified", verify_document(document), len(document["claims"]))
    except Rejected as exc:
        return Verdict(source, "rejected", str(exc), 0)
    except MalformedCertificate as exc:
        return Verdict(source, "malformed", str(exc))
    except RecursionError:
        return Verdict(source, "malformed", "nested too deeply to check")
    except MemoryError:
        return Verdict(source, "error", "out of memory while checking (exit 2)")
    except Exception as exc:  # a bug of ours, never the certificate's acceptance: one line, exit 2
        return Verdict(source, "error", f"internal error while checking: {type(exc).__name__}: "
                                        f"{str(exc).splitlines()[0][:200] if str(exc) else ''}")


def read_certificate_file(path) -> bytes:
    """The bytes of the certificate file at ``path``: :func:`read_regular_file` capped at MAX_CERTIFICATE_BYTES.

    Read the file once with this and pass the bytes on: a second read could see other bytes.
    """
    from .certificate import MAX_CERTIFICATE_BYTES

    return read_regular_file(path, MAX_CERTIFICATE_BYTES, what="a certificate")


def read_certificate_stream(stream) -> bytes:
    """The bytes of a certificate read from the binary ``stream`` (standard input for ``certify check -``) to its
    end, if there are at most MAX_CERTIFICATE_BYTES of them (at most one more is read).

    Raises MalformedCertificate (one line) for a stream over the cap or one that cannot be read.
    """
    from .certificate import MAX_CERTIFICATE_BYTES

    try:
        data = _read_at_most(stream.read, MAX_CERTIFICATE_BYTES + 1)
    except (OSError, ValueError) as exc:  # ValueError: a closed stream
        raise MalformedCertificate(f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if len(data) > MAX_CERTIFICATE_BYTES:
        raise MalformedCertificate(f"the input is over {MAX_CERTIFICATE_BYTES} bytes; a certificate is at most that")
    return data


def _read_at_most(read, count: int) -> bytes:
    """The bytes ``read(n)`` gives until it gives none or ``count`` have come, never asking for more than count in
    all (the one capped loop behind a file and a stream)."""
    chunks, size = [], 0
    while size < count:
        chunk = read(count - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def check_stream(stream, source: str = "<stdin>") -> Verdict:
    """Check the certificate read from the binary ``stream`` (read once, capped; see
    :func:`read_certificate_stream`)."""
    try:
        data = read_certificate_stream(stream)
    except MalformedCertificate as exc:
        return Verdict(source, "malformed", str(exc))
    return check_bytes(data, source)


def read_regular_file(path, limit: int, what: str = "this file") -> bytes:
    """The bytes of the regular file at ``path``, if it has at most ``limit`` of them.

    Raises MalformedCertificate (one line) for anything that is not a regular file
    (folders, FIFOs, devices, sockets are refused from ``stat``, before any open),
    for unreadable files and for files over ``limit`` bytes (at most limit + 1 are
    read). The file is opened non-blocking and checked again with ``fstat``, so a
    FIFO swapped in after the ``stat`` is refused too, never read.
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise MalformedCertificate(f"not a regular file ({_file_kind(info.st_mode)})")
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                raise MalformedCertificate(f"not a regular file ({_file_kind(info.st_mode)})")
            data = _read_at_most(lambda n: os.read(descriptor, n), limit + 1)
        finally:
            os.close(descriptor)
    except OSError as exc:
        raise MalformedCertificate(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise MalformedCertificate(f"file is over {limit} bytes; {what} is at most that")
    return data


def _file_kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def check_file(path) -> Verdict:
    """Check the certificate in the file at ``path`` (read once, capped; see :func:`read_certificate_file`)."""
    source = str(path)
    try:
        data = read_certificate_file(path)
    except MalformedCertificate as exc:
        return Verdict(source, "malformed", str(exc))
    return check_bytes(data, source)
