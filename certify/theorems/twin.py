"""Builder for ``certify twin`` (Proposition S2.2 of docs/staircase.md, section 11.9: regime II of the (1, 2)
staircase on a box): choose X, s, t, d, E, s2_max and the radius; the kernel certifies.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.twin` proves (or refuses), and
``certify check`` recomputes. The defaults come from a float search for a large certified box mass at
p = 5, 7, 13 and 31 (docs/staircase.md, section 11.9).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from flint import arb, fmpq

from ..certificate import build_certificate
from ..errors import HypothesisError
from ..kernel.exact import format_rational
from ..kernel import twin as kernel
from ..kernel.balls import ball, certainly_lt, working_precision
from ..kernel.primes import require_prime
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down

DEFAULT_X = fmpq(2)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128
#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64
#: The target of zeta0 = z11/D at the base point, and s2_max in units of s1(0)^2 = (2X)^2 (the search's optimum).
ZETA_TARGET = fmpq(3, 100)
S2_FACTOR = 2
#: The share of the budget b_II(p, 1) that the base point's loss excess takes (the search's optimum).
BUDGET_SHARE = fmpq(2, 5)


#: How far below log(p/4)/2 the search for b_II(p, 1) goes (b_II falls like 2 log(p/4)^2/p^2: 2^-200 reaches
#: p ~ 10^28, above the largest p accepted, 10^18).
MAX_HALVINGS = 200


@lru_cache(maxsize=64)
def force_budget(p: int) -> fmpq:
    """b_II(p, 1) of docs/staircase.md, section 11.5, rounded down to 3 digits (a choice for the defaults only):
    the largest b found with Phi(b; p, 1) < 2 and b < log(p/4)/2 proved in balls. Phi increases in b, so the
    search halves log(p/4)/2 until a b is proved, then bisects 40 times between it and its double (a relative
    step, as b_II(p, 1) falls like 2 log(p/4)^2/p^2). HypothesisError when no b above 2^-MAX_HALVINGS log(p/4)/2
    is proved: then give s, d and E (the only defaults that need it)."""
    with working_precision(64 + 3 * p.bit_length()):  # acosh(e^b) near b ~ 1/p^2 needs 1 + b resolved
        lo = hi = fmpq(1, 2) * (ball(p) / 4).log().lower().mid().fmpq()

        def proved(b: fmpq) -> bool:
            return certainly_lt(kernel.force_ratio(ball(b), p, arb(1)), arb(2))

        for _ in range(MAX_HALVINGS):
            hi, lo = lo, lo / 2
            if proved(lo):
                break
        else:
            raise HypothesisError(f"no default loss budget b_II(p, 1) is found at p = {p} (none above 2^-"
                                  f"{MAX_HALVINGS} log(p/4)/2 is proved): give --s, --d and --E")
        for _ in range(40):
            mid = (lo + hi) / 2
            if proved(mid):
                lo = mid
            else:
                hi = mid
    return round_down(lo)


@lru_cache(maxsize=256)
def default_parameters(p: int, X: fmpq) -> Mapping[str, fmpq]:
    """d, s, t, E and s2_max for the prime p and the scale X (docs/staircase.md, section 11.9), each rounded
    down to 3 digits (s to its own, see below):

    * d with (3/4) X^2 d^2/4 ~ BUDGET_SHARE b_II(p, 1): the base point's b is about (X^2 + 2 s^2) d^2/8;
    * z11 = 2s - X = -e, e = ZETA_TARGET min(d, X)/2, so zeta0 = ZETA_TARGET/2 (at the defaults, d < X) and the
      box can reach ZETA_TARGET; min(d, X) keeps s > 0 at every X > 0;
    * t = X/20 (the boundary gates need only be < 0);
    * E = 1.01 log(6 (p - 2)/b_II)/s, so 2 (p - 2) e^{-s E} < b_II/3: the tails take under a third of the budget;
    * s2_max = S2_FACTOR (2X)^2.

    Cached (read-only): the builder and each ``default_NAME`` of the naming rule ask for the same p and X.
    """
    budget = force_budget(p)
    with working_precision(64):
        d = round_down((8 * ball(BUDGET_SHARE * budget) / (3 * X * X / 2)).sqrt().lower().mid().fmpq())
        eps = round_down(ZETA_TARGET * min(d, X) / 2)
        s = X / 2 - eps / 2
        E = round_down(((6 * ball(p - 2) / ball(budget)).log() / ball(s)).upper().mid().fmpq() * fmpq(101, 100))
    return MappingProxyType({"s": s, "d": d, "E": E, **scale_defaults(X)})


def scale_defaults(X: fmpq) -> dict[str, fmpq]:
    """The defaults that depend on X alone (no b_II(p, 1)): t = X/20 and s2_max = S2_FACTOR (2X)^2."""
    return {"t": X / 20, "s2_max": S2_FACTOR * (2 * X) ** 2}


def default_s(p: int, X: fmpq) -> fmpq:
    """The builder's s at the prime p and scale X (:func:`default_parameters`)."""
    return default_parameters(p, X)["s"]


def default_t(p: int, X: fmpq) -> fmpq:
    """The builder's t: X/20 (:func:`scale_defaults`: no b_II(p, 1) needed)."""
    return scale_defaults(X)["t"]


def default_d(p: int, X: fmpq) -> fmpq:
    """The builder's d at the prime p and scale X (:func:`default_parameters`)."""
    return default_parameters(p, X)["d"]


def default_E(p: int, X: fmpq) -> fmpq:
    """The builder's E at the prime p and scale X, from the default s (:func:`default_parameters`)."""
    return default_parameters(p, X)["E"]


def default_s2_max(p: int, X: fmpq) -> fmpq:
    """The builder's s2_max: 2 (2X)^2 (:func:`scale_defaults`: no b_II(p, 1) needed)."""
    return scale_defaults(X)["s2_max"]


def certify_twin(p, X=None, s=None, t=None, d=None, E=None, s2_max=None, sigma=None, radius=None,
                 prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Proposition S2.2 (regime II of the (1, 2) staircase, captured and kept) on a box for the
    prime p (InputError, HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    X = DEFAULT_X if X is None else fmpq(X)
    if not X > 0:  # the defaults divide by X
        raise HypothesisError(f"X > 0 fails: X = {format_rational(X)}")
    given = {"s": s, "t": t, "d": d, "E": E, "s2_max": s2_max}
    # b_II(p, 1) only when a default needs it (s, d or E missing): at a prime where it is not found, give them
    defaults = default_parameters(p, X) if None in (s, d, E) else scale_defaults(X)
    chosen = {name: defaults[name] if value is None else fmpq(value) for name, value in given.items()}
    params = kernel.TwinParameters(p, X, chosen["s"], chosen["t"], chosen["d"], chosen["E"], chosen["s2_max"],
                                   DEFAULT_SIGMA if sigma is None else fmpq(sigma))
    kernel.require_twin_hypotheses(params)

    def box(radius):
        kernel.twin_box_bounds(params, radius, SEARCH_PRECISION)

    upper = min(params.X - 2 * params.s, params.d, params.t) / 2
    radius, claims = certify_with_radius(lambda r: kernel.twin_claims(params, r, prec), radius,
                                         lambda: largest_certifiable_radius(box, upper))
    certificate = build_certificate(
        theorem="twin", paper=kernel.PAPER, p=p,
        parameters={"X": params.X, "s": params.s, "t": params.t, "d": params.d, "E": params.E,
                    "s2_max": params.s2_max, "sigma": params.sigma},
        base_point=kernel.twin_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
