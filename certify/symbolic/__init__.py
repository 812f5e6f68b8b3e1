"""Symbolic derivations (sympy) of the paper's equations from its definitions.

``DERIVATIONS`` lists every derivation `certify derive` knows, with the equation numbers it
establishes; :func:`derivation` builds one (cached: sympy work is done once per process).
Importing this package imports sympy; `certify dead` and the checker never do.
Derivations marked ``per_prime`` need a concrete prime (they work with the full 3p-variable
loss or exact arithmetic in Q(e^{2 pi i/p})); the others are for symbolic p and may be
specialised to a prime for display.  Their cost grows quickly with p, so each declares the
largest prime it builds in practical time (``Entry.largest_prime``) and is refused above it
(:class:`PrimeTooLarge`, an InputError: one line, exit 2 on the command line).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from ..errors import InputError
from ..theorems.registry import RegistryView
from . import balance, convexity, flow, fourier, gd, sliding, staircase
from .core import Derivation


class PrimeTooLarge(InputError):
    """A per-prime derivation asked for at a prime above its ``largest_prime``."""


@dataclass(frozen=True)
class Entry:
    """A derivation as `certify derive` lists it."""

    name: str
    equations: tuple[str, ...]
    summary: str
    build: Callable
    per_prime: bool = False
    default_prime: int = 5
    #: per-prime only: the largest p it builds (derivation, sympy's proof of every comparison and
    #: the text rendering) in a few seconds -- measured on the project's 2-core machine, one process
    #: per p, at most ~4 s; the next prime took 5.6-88 s (times beside each entry below).
    largest_prime: int | None = None

    def __post_init__(self):
        if self.per_prime and not (self.largest_prime and 5 <= self.default_prime <= self.largest_prime):
            raise ValueError(f"per-prime derivation {self.name!r} needs 5 <= default_prime <= largest_prime")


_TABLE = [
    Entry("flow", ("(2.2)", "(2.3)", "(2.4)", "(2.5)"),
          "the ODEs of the symmetric family from the reduced loss, symbolic p", flow.symmetric_flow),
    # flow-full: p = 5 0.8 s, 7 2.1 s, 11 8.3 s, 13 15.8 s, 101 many minutes
    Entry("flow-full", ("(2.2)", "(2.3)", "(2.4)", "(2.5)"),
          "the same ODEs from the full 3p-variable loss (1.1) and the ansatz (2.1)", flow.full_loss_flow,
          per_prime=True, largest_prime=7),
    Entry("conserved", ("(2.6)",), "the conserved quantity g^2 - p s^2/(2(p-1))", flow.conserved_quantity),
    Entry("transversality", ("(2.7)",), "the limit of ds/dt at the hitting time", flow.transversality),
    Entry("hitting-time", ("T", "T bound"), "the hitting-time integral and T <= p^3 eps/(2(p-1) sqrt(Gamma))",
          flow.hitting_time),
    Entry("fourier", ("(A.46)", "section 2.1"), "||Pi_zeta q||^2/||q||^2 = 2/(p-1) by character sums, symbolic p",
          fourier.fourier_fraction_symbolic),
    # fourier-exact: p = 101 0.1 s, 199 0.6 s, 307 2.0 s, 353 3.1 s, 401 4.3 s, 1009 88 s
    Entry("fourier-exact", ("(A.46)", "(A.60)"), "the same fraction exactly in Q(e^(2 pi i/p)) for a given p",
          fourier.fourier_fraction_exact, per_prime=True, default_prime=13, largest_prime=353),
    # balance: p = 5 1.5 s, 7 3.9 s, 11 16.3 s
    Entry("balance", ("(A.10)",), "the balance invariant example by example (Lemma A.8)",
          balance.balance_invariant, per_prime=True, largest_prime=7),
    # convexity: p = 7 1.0 s, 11 3.4 s, 13 5.6 s
    Entry("convexity", ("(A.53)", "(A.54)", "(A.55)", "(A.56)", "(A.57)"),
          "convexity of the log-partition function, d gamma/ds <= s/(2 gamma), (A.57)",
          convexity.log_partition_convexity, per_prime=True, largest_prime=11),
    # sliding-relations: p = 11 1.6 s, 13 2.7 s, 17 6.6 s
    Entry("sliding-relations", ("(A.19)", "(A.20)", "(A.21)", "(A.22)", "(A.23)", "(A.24)", "(A.25)"),
          "the central example's flow of w, mu, gamma_j, d_j", sliding.sliding_relations, per_prime=True,
          largest_prime=13),
    Entry("sliding-selection", ("(A.26)", "(A.27)", "(A.28)", "(A.29)", "(A.30)"),
          "the selected kink coefficients and the sliding velocities (Lemma A.9)", sliding.sliding_selection),
    Entry("sliding-limits", ("(A.33)", "(A.37)", "(A.38)", "(A.39)", "(A.40)", "(A.45)"),
          "kappa_p, the norm limit sqrt(p) and the limit loss", sliding.sliding_limits),
    # gd-one-step: p = 7 1.0 s, 11 3.8 s, 13 6.4 s
    Entry("gd-one-step", ("(A.70)", "(A.71)"), "one full-batch gradient-descent step from the base point",
          gd.one_step, per_prime=True, largest_prime=11),
    # staircase-face: `certify derive` p = 5 1.8 s, 7 3.4 s; build and check alone p = 11 9.4 s, 13 14.6 s
    Entry("staircase-face", ("(S.1)", "(S.2)", "(S.3)", "(S.4)", "(S.5)", "(S.6)"),
          "the (1, 2) staircase's face ODE from the loss (1.1) (docs/staircase.md)", staircase.face_flow,
          per_prime=True, largest_prime=7),
    Entry("staircase-steps", ("(S.3)", "(S.5)", "(S.6)", "(S.7)", "(S.8)", "(S.9)", "(S.10)"),
          "Theorem S: the identities and inequality chains of its proof", staircase.theorem_steps),
    Entry("staircase-purity", ("(S.11)", "(S.12)", "(S.13)", "(S.14)", "(S.15)"),
          "the purity margin delta of Theorem S, the supremum F_0 = 2(1 + cos(2 pi/p))/(p - 2)",
          staircase.purity_margin),
    Entry("staircase-one-gate", ("(S1.1)", "Lemma S1.6", "F_1", "(S1.2)", "(S.20)"),
          "Theorem S1 (one active gate): its budget, force bound and purity margin; Lemma S.7's D'",
          staircase.one_gate_steps),
    Entry("staircase-limits", ("(S.16)", "(S.17)", "(S.18)", "(S.19)"),
          "the staircase's limit directions, their F_zeta and limit losses (regimes I and II)",
          staircase.staircase_limits),
]
DERIVATIONS = {entry.name: entry for entry in _TABLE}

#: The derivations each theorem's certificate rests on (per-prime ones are built at the certificate's p,
#: ``flow-full`` only for small p where the full symbolic loss is quick).
#: A live view of the records' ``derivations`` (certify.theorems.registry).
FOR_THEOREM = RegistryView(lambda theorem: theorem.derivations)
#: Per-prime derivations cost grows with p; above this p the documents use their default prime instead
#: (a document builds several, so its budget is below each derivation's own largest_prime).
LARGEST_PRIME = {"flow-full": 7, "balance": 7, "convexity": 7, "sliding-relations": 7, "gd-one-step": 7, "staircase-face": 7,
                 "fourier-exact": 101}


def require_practical_prime(name: str, prime: int | None) -> None:
    """Raise PrimeTooLarge if ``name`` is per prime and ``prime`` is above its largest_prime."""
    entry = DERIVATIONS[name]
    if entry.per_prime and prime is not None and prime > entry.largest_prime:
        raise PrimeTooLarge(
            f"derivation {name!r} at p = {prime}: the largest p it builds in a few seconds is "
            f"{entry.largest_prime} (its sympy work grows steeply with p); use --p {entry.largest_prime} or smaller")


@lru_cache(maxsize=None)
def derivation(name: str, prime: int | None = None) -> Derivation:
    """Build the derivation ``name`` (KeyError if unknown), at ``prime`` when given.

    Per-prime derivations use ``prime`` (or their default) and refuse a prime above their
    largest_prime (PrimeTooLarge); symbolic ones are specialised to ``prime`` when it is given.
    """
    entry = DERIVATIONS[name]
    require_practical_prime(name, prime)
    if entry.per_prime:
        return entry.build(prime or entry.default_prime)
    built = entry.build()
    return built if prime is None else built.specialised(prime)


def derivations_for(theorem: str, prime: int) -> list[Derivation]:
    """The derivations a certificate of ``theorem`` at ``prime`` rests on (see FOR_THEOREM)."""
    out = []
    for name in FOR_THEOREM[theorem]:
        entry = DERIVATIONS[name]
        if entry.per_prime:
            at = prime if prime <= LARGEST_PRIME.get(name, prime) else entry.default_prime
            out.append(derivation(name, at))
        else:
            out.append(derivation(name))
    return out
