"""Memoisation of pure kernel computations, outcomes included.

The checker recomputes every claim of a certificate, a sweep certifies four theorems at each prime, and
the fuzz tests check thousands of edited copies of the same few certificates, so the region bounds (ms to
tenths of seconds each), the spacing integral E[S] they share and smooth's dead-zone integral J are met
again and again with the same exact inputs. ``functools.lru_cache`` remembers results only; a bound that
cannot be certified for some input (NotCertified, HypothesisError, InputError) would be recomputed, at
full cost, every time. :func:`memoized` remembers those outcomes too and raises the same error again. It
is sound for pure functions of hashable exact inputs (ints, fmpq): the same inputs give the same outcome.
Every entry is a value the kernel itself proved, in this process, for exactly the inputs it is keyed by;
nothing is read from a file or from another process.

Unlike ``functools`` caches, these survive :func:`certify.kernel.state.fresh_state` (it clears what has
a ``cache_clear``; this has ``forget``): a region bound costs up to seconds and every check would pay
it again. That keeps verdicts and certificates independent of history because every memoised value is
stated on a grid far coarser than the bits that depend on Arb's state: the region claims are computed at
a fixed precision and their log bounds rounded down to a multiple of 2^-40
(:func:`certify.kernel.region.stated_log_lower`), the purity claim to 40 significant bits
(:func:`certify.kernel.balls.rounded_down`), E[S] rounded up to the precision asked for
(:func:`certify.kernel.region.expected_spacing_upper_point`) and J's ends rounded outward to 24 bits below it
(:func:`certify.kernel.smooth.dead_zone_integral`).
"""

from __future__ import annotations

import functools
from collections import OrderedDict

from ..errors import HypothesisError, InputError, NotCertified

__all__ = ["memoized"]

_REMEMBERED = (NotCertified, HypothesisError, InputError)


def memoized(function=None, maxsize: int = 256):
    """``function`` with its results and its NotCertified/HypothesisError/InputError outcomes remembered
    for the last ``maxsize`` distinct argument tuples (positional, hashable). Any other exception is
    not remembered (it is a bug, and is raised as it is). Use as ``memoized(f)``, ``@memoized`` or
    ``@memoized(maxsize=N)``."""
    if function is None:
        return functools.partial(memoized, maxsize=maxsize)
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
