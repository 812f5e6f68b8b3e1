"""A derivation: steps (equation, one-line reason) and the paper's equations it must reproduce.

Each derivation in :mod:`certify.symbolic` starts from the paper's definitions (the loss
(1.1), the gate, the softmax, the recentering (1.2), the projections (1.3)), records every
step with its reason, and ends with :class:`Comparison` objects: a derived expression beside
the paper's form. A comparison holds when sympy proves the two equal (their difference
simplifies to 0); a derivation holds when all its comparisons hold. Tests also feed a
deliberately wrong paper form to the same comparison, so that it is seen to fail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp


@dataclass(frozen=True)
class Step:
    """One line of a derivation: ``lhs = rhs`` (or a relation), with the reason it holds."""

    lhs: object
    rhs: object
    reason: str
    relation: str = "="  # "=", "<=", ">=", "<", ">", "->"


@dataclass(frozen=True)
class Comparison:
    """A derived expression beside the paper's form of the same equation, labelled by its number."""

    label: str
    derived: object
    paper: object

    def holds(self) -> bool:
        """True when sympy proves ``derived - paper`` equal to 0 (both sides of Eqs compared)."""
        try:
            return _equal_cached(self.derived, self.paper)
        except TypeError:  # unhashable (a list): decide without the cache
            return expressions_equal(self.derived, self.paper)


@dataclass(eq=False)  # compared and hashed by identity, so renderings can be cached
class Derivation:
    """A named derivation of some of the paper's equations.

    ``name`` is what `certify derive NAME` takes; ``equations`` the paper numbers it
    establishes; ``p`` the prime it was specialised to (None: symbolic p).
    """

    name: str
    title: str
    equations: tuple[str, ...]
    p: int | None = None
    steps: list[Step] = field(default_factory=list)
    comparisons: list[Comparison] = field(default_factory=list)

    def step(self, lhs, rhs, reason: str, relation: str = "=") -> object:
        """Record a step and return ``rhs`` (so derivations read top to bottom)."""
        self.steps.append(Step(lhs, rhs, reason, relation))
        return rhs

    def compare(self, label: str, derived, paper) -> None:
        """Record that ``derived`` must equal the paper's ``paper`` (equation ``label``)."""
        self.comparisons.append(Comparison(label, derived, paper))

    def holds(self) -> bool:
        """True when every comparison holds (and there is at least one)."""
        return bool(self.comparisons) and all(c.holds() for c in self.comparisons)

    def specialised(self, prime: int) -> "Derivation":
        """The same derivation with the symbol p replaced by ``prime`` in every step and comparison."""
        from .definitions import p

        def at(x):
            return x.subs(p, prime) if isinstance(x, sp.Basic) else x

        return Derivation(self.name, f"{self.title} (at p = {prime})", self.equations, prime,
                          [Step(at(st.lhs), at(st.rhs), st.reason, st.relation) for st in self.steps],
                          [Comparison(c.label, at(c.derived), at(c.paper)) for c in self.comparisons])


@lru_cache(maxsize=4096)
def _equal_cached(a, b) -> bool:
    return expressions_equal(a, b)


def expressions_equal(a, b) -> bool:
    """True when sympy proves a == b: tuples entry by entry, Eqs side by side, else simplify(a - b) == 0.

    Uses cancel/together first (rational functions), then simplify, then expansion of
    exponentials and logs; never numerics, so a False means "not proved".
    """
    if isinstance(a, (sp.Tuple, tuple, list)) or isinstance(b, (sp.Tuple, tuple, list)):
        return len(a) == len(b) and all(expressions_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, sp.Equality) and isinstance(b, sp.Equality):
        return expressions_equal(a.lhs, b.lhs) and expressions_equal(a.rhs, b.rhs)
    difference = sp.sympify(a) - sp.sympify(b)
    for transform in (sp.cancel, lambda e: sp.simplify(sp.together(e)),
                      lambda e: sp.simplify(sp.expand(sp.powsimp(sp.expand_log(e, force=True))))):
        try:
            if transform(difference) == 0:
                return True
        except (TypeError, ValueError, NotImplementedError):
            continue
    return False
