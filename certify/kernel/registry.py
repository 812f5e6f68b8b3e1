"""The theorems the kernel can recompute, by the name a certificate gives them."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

#: theorem -> (kernel module, parameter names in the order of its Parameters class).
THEOREMS = {
    "dead": ("dead", "DeadParameters", ("epsilon", "A", "B")),
    "slide": ("slide", "SlideParameters", ("gamma_star", "X")),
    "smooth": ("smooth", "SmoothParameters", ("eps_smooth", "epsilon", "A", "B")),
    "gd": ("gd", "GDParameters", ("eta", "epsilon", "A", "B")),
}


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


def kernel_for(theorem: str) -> TheoremKernel:
    """The kernel of ``theorem`` (KeyError if unknown); only that theorem's module is imported."""
    module_name, parameters_class, names = THEOREMS[theorem]
    module = importlib.import_module(f"{__package__}.{module_name}")
    make = getattr(module, parameters_class)
    return TheoremKernel(
        paper=module.PAPER,
        parameter_names=names,
        make_parameters=lambda p, values: make(p, *(values[name] for name in names)),
        require_hypotheses=getattr(module, f"require_{module_name}_hypotheses"),
        base_point=getattr(module, f"{module_name}_base_point"),
        claims=getattr(module, f"{module_name}_claims"),
    )
