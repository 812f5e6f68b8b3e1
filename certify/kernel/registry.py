"""The theorems the kernel can recompute, by the name a certificate gives them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import dead


@dataclass(frozen=True)
class TheoremKernel:
    """What the checker needs to recompute a theorem's certificate from its stored inputs.

    ``make_parameters(p, {name: fmpq})`` builds the parameter object;
    ``require_hypotheses(params)`` raises HypothesisError; ``base_point(params)``
    is the construction; ``claims(params, radius, prec)`` recomputes every claim.
    """

    paper: str
    parameter_names: tuple[str, ...]
    make_parameters: Callable
    require_hypotheses: Callable
    base_point: Callable
    claims: Callable


KERNELS = {
    "dead": TheoremKernel(
        paper=dead.PAPER,
        parameter_names=("epsilon", "A", "B"),
        make_parameters=lambda p, values: dead.DeadParameters(p, values["epsilon"], values["A"], values["B"]),
        require_hypotheses=dead.require_dead_hypotheses,
        base_point=dead.dead_base_point,
        claims=dead.dead_claims,
    ),
}
