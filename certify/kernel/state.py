"""A fresh numerical state for each check, so that a verdict depends only on the certificate's bytes.

Arb caches constants (pi, log 2, quadrature nodes) across calls, and the
kernel caches some enclosures (smooth's J); a ball's last bits therefore depend
on what the process computed before. Every such ball is still a rigorous
enclosure, so nothing false can be accepted either way, but a checker whose
verdict on an end within a few ulps of the recomputation depended on the files
checked before it would not be reproducible. :func:`fresh_state` drops both
kinds of cache before each check.
"""

from __future__ import annotations

import sys

from flint import ctx


def fresh_state() -> None:
    """Free python-flint's cached constants and clear every ``functools`` cache of the loaded kernel modules.

    Guarantee: after the call, no value computed earlier in the process is reused by the kernel, except
    the region bounds of :mod:`certify.kernel.memo`, which are stated on a grid far coarser than the
    bits this state affects (see there); the working precision is unchanged.
    """
    prec = ctx.prec
    ctx.cleanup()
    ctx.prec = prec
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(__package__ + "."):
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and getattr(value, "__module__", None) == name:
                clear()
