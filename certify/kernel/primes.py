"""The prime p of a theorem instance: validated once, with a reason a person can act on."""

from __future__ import annotations

from flint import fmpz

from ..errors import InputError

#: Largest p accepted. The work does not grow with p; the bound keeps the
#: primality proof and the printed numbers (10^-(about 6p) probabilities) sane.
MAX_P = 10**18


def require_prime(p) -> int:
    """Return ``p`` as an int if it is a prime with 5 <= p <= MAX_P, else raise InputError.

    Primality is proved (FLINT's ``fmpz_is_prime``), not guessed. The message
    for p < 5 explains Remark 1.6: for p = 2 and 3 the centred functions on
    Z/pZ form a single real Fourier class, so purity holds automatically and
    there is no counterexample to certify.
    """
    if isinstance(p, bool) or not isinstance(p, int):
        raise InputError(f"p must be an integer, got {p!r}")
    if p < 5:
        if p in (2, 3):
            raise InputError(
                f"p = {p}: the theorems need a prime p >= 5; for p = 2, 3 every centred vector lies in "
                "one real Fourier class, so single-frequency purity is automatic (Remark 1.6)")
        raise InputError(
            f"p = {p} is not a prime >= 5 (Remark 1.6: p = 2, 3 are trivially pure; p = 5 is the first "
            "multifrequency case)")
    if p > MAX_P:
        raise InputError(f"p = {p} is larger than the supported maximum 10^18")
    if not fmpz(p).is_prime():
        factor = _smallest_factor(p)
        detail = f" ({factor} x {p // factor})" if factor else ""
        raise InputError(f"p = {p} is not prime{detail}")
    return p


def _smallest_factor(n: int, limit: int = 10**6) -> int | None:
    """The smallest prime factor of ``n`` if it is below ``limit``, for the error message."""
    for d in range(2, min(limit, n)):
        if d * d > n:
            return None
        if n % d == 0:
            return d
    return None
