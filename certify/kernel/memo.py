"""Memoisation of pure kernel computations, outcomes included.

The checker recomputes every claim of a certificate, and the fuzz tests check thousands of edited
copies of the same few certificates, so the region bounds (tens of milliseconds to seconds each) are
met again and again with the same exact inputs. ``functools.lru_cache`` remembers results only; a
bound that cannot be certified for some input (NotCertified, HypothesisError, InputError) would be
recomputed, at full cost, every time. :func:`memoized` remembers those outcomes too and raises the
same error again. It is sound for pure functions of hashable exact inputs (ints, fmpq): the same inputs
give the same outcome.

Unlike ``functools`` caches, these survive :func:`certify.kernel.state.fresh_state` (it clears what has
a ``cache_clear``; this has ``forget``): a region bound costs up to seconds and every check would pay
it again. That keeps verdicts independent of history because every memoised value is stated on a
coarse grid: :func:`certify.kernel.gaussian.region_probability_claim` rounds the log bound down to 32
bits below the working precision and the purity claim to 40 bits (:func:`certify.kernel.balls.rounded_down`),
far above the last bits that depend on Arb's state.
"""

from __future__ import annotations

import functools
from collections import OrderedDict

from ..errors import HypothesisError, InputError, NotCertified

__all__ = ["memoized"]

_REMEMBERED = (NotCertified, HypothesisError, InputError)


def memoized(function, maxsize: int = 256):
    """``function`` with its results and its NotCertified/HypothesisError/InputError outcomes remembered
    for the last ``maxsize`` distinct argument tuples (positional, hashable). Any other exception is
    not remembered (it is a bug, and is raised as it is)."""
    cache: OrderedDict = OrderedDict()

    @functools.wraps(function)
    def wrapper(*args):
        if args in cache:
            cache.move_to_end(args)
            is_error, outcome = cache[args]
            if is_error:
                raise outcome
            return outcome
        try:
            entry = (False, function(*args))
        except _REMEMBERED as error:
            entry = (True, error)
        cache[args] = entry
        if len(cache) > maxsize:
            cache.popitem(last=False)
        if entry[0]:
            raise entry[1]
        return entry[1]

    wrapper.forget = cache.clear  # not cache_clear: fresh_state must not drop these (module doc)
    return wrapper
