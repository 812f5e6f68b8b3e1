"""The theorems the kernel can recompute, by the name a certificate gives them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import dead, gd, slide, smooth


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
    "slide": TheoremKernel(
        paper=slide.PAPER,
        parameter_names=("gamma_star", "X"),
        make_parameters=lambda p, values: slide.SlideParameters(p, values["gamma_star"], values["X"]),
        require_hypotheses=slide.require_slide_hypotheses,
        base_point=slide.slide_base_point,
        claims=slide.slide_claims,
    ),
    "smooth": TheoremKernel(
        paper=smooth.PAPER,
        parameter_names=("eps_smooth", "epsilon", "A", "B"),
        make_parameters=lambda p, values: smooth.SmoothParameters(
            p, values["eps_smooth"], values["epsilon"], values["A"], values["B"]),
        require_hypotheses=smooth.require_smooth_hypotheses,
        base_point=smooth.smooth_base_point,
        claims=smooth.smooth_claims,
    ),
    "gd": TheoremKernel(
        paper=gd.PAPER,
        parameter_names=("eta", "epsilon", "A", "B"),
        make_parameters=lambda p, values: gd.GDParameters(p, values["eta"], values["epsilon"], values["A"], values["B"]),
        require_hypotheses=gd.require_gd_hypotheses,
        base_point=gd.gd_base_point,
        claims=gd.gd_claims,
    ),
}
