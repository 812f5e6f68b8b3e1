"""The theorems the kernel can recompute, by the name a certificate gives them.

One explicit :class:`KernelRecord` per theorem, written out literally: the kernel module, the
names of its entry points, the parameter names in the order of its Parameters class and the
claim ids in the order of the certify/1 schema. No name is built from a pattern, so every
entry point can be found by searching for it. ``kernel_for(name)`` is the checker's entry: it
imports only that theorem's kernel module (python-flint and the standard library only).

``certify.theorems.registry`` (the full theorem records) holds these records; tests/test_registry.py
fails if a record drifts from its kernel module (names, parameter order, claim ids) or from the schema.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class KernelRecord:
    """How to reach one theorem's kernel: a module and the names of its attributes, all literal.

    ``module`` is a dotted module name; ``parameters``, ``require_hypotheses``, ``base_point``,
    ``claims``, ``specs`` and ``paper`` are attribute names in it (``specs``: the tuple of
    :class:`~certify.kernel.claims.ClaimSpec`, what each claim states, in ``claim_ids`` order). ``parameter_names`` are the fields of
    the Parameters class after p, in order; ``claim_ids`` every claim the kernel's ``claims``
    returns, in the order the schema lists them. ``hypotheses_take_precision``: the hypothesis
    check decides an inequality with balls and takes the working precision as its second argument.
    """

    name: str
    module: str
    parameters: str
    require_hypotheses: str
    base_point: str
    claims: str
    parameter_names: tuple[str, ...]
    claim_ids: tuple[str, ...]
    paper: str = "PAPER"
    hypotheses_take_precision: bool = False
    specs: str = "CLAIMS"

    def claim_specs(self) -> tuple:
        """The theorem's :class:`~certify.kernel.claims.ClaimSpec` tuple, in ``claim_ids`` order (imports
        ``module``; ValueError if the module's ids drift from ``claim_ids``)."""
        specs = tuple(getattr(importlib.import_module(self.module), self.specs))
        if tuple(spec.id for spec in specs) != self.claim_ids:
            raise ValueError(f"{self.module}.{self.specs} does not list the claims {self.claim_ids}")
        return specs

    def load(self) -> "TheoremKernel":
        """The resolved entry points (imports ``module``, nothing else)."""
        module = importlib.import_module(self.module)
        make = getattr(module, self.parameters)
        names = self.parameter_names
        check = getattr(module, self.require_hypotheses)
        if self.hypotheses_take_precision:
            def require(params, prec):
                check(params, prec)
        else:
            def require(params, prec):
                check(params)
        return TheoremKernel(
            paper=getattr(module, self.paper),
            parameter_names=names,
            claim_ids=self.claim_ids,
            make_parameters=lambda p, values: make(p, *(values[name] for name in names)),
            require_hypotheses=require,
            base_point=getattr(module, self.base_point),
            claims=getattr(module, self.claims),
            specs=self.claim_specs(),
        )


@dataclass(frozen=True)
class TheoremKernel:
    """What the checker needs to recompute a theorem's certificate from its stored inputs.

    ``make_parameters(p, {name: fmpq})`` builds the parameter object;
    ``require_hypotheses(params, prec)`` raises HypothesisError (an inequality decided with
    balls is decided at ``prec`` bits, the precision the claims are recomputed at);
    ``base_point(params)`` is the construction; ``claims(params, radius, prec)`` recomputes
    every claim, whose ids are ``claim_ids``.
    """

    paper: str
    parameter_names: tuple[str, ...]
    claim_ids: tuple[str, ...]
    make_parameters: Callable
    require_hypotheses: Callable
    base_point: Callable
    claims: Callable
    specs: tuple = ()


DEAD = KernelRecord(
    name="dead", module="certify.kernel.dead", parameters="DeadParameters",
    require_hypotheses="require_dead_hypotheses", base_point="dead_base_point", claims="dead_claims",
    parameter_names=("epsilon", "A", "B", "sigma", "purity_margin"),
    claim_ids=("single_active_gate", "gamma_condition", "hitting_time", "hitting_time_box", "transversality_margin",
               "transversality_margin_box", "terminal_w_displacement_box", "terminal_fourier_fraction",
               "balance_invariant", "purity_gap_box", "terminal_loss", "gaussian_probability", "region_probability",
               "region_purity_probability"))

SLIDE = KernelRecord(
    name="slide", module="certify.kernel.slide", parameters="SlideParameters",
    require_hypotheses="require_slide_hypotheses", base_point="slide_base_point", claims="slide_claims",
    parameter_names=("gamma_star", "X", "sigma"),
    claim_ids=("region_box", "admissibility", "capture_time", "capture_invariants", "kappa", "limit_direction",
               "limit_fourier_fraction", "limit_loss", "gaussian_probability", "region_probability"))

SMOOTH = KernelRecord(
    name="smooth", module="certify.kernel.smooth", parameters="SmoothParameters",
    require_hypotheses="require_smooth_hypotheses", base_point="smooth_base_point", claims="smooth_claims",
    parameter_names=("eps_smooth", "epsilon", "A", "B", "sigma"), hypotheses_take_precision=True,
    claim_ids=("single_active_gate", "dead_zone_integral", "g_condition", "terminal_displacement_box",
               "purity_gap_box", "terminal_fourier_fraction", "gaussian_probability", "region_probability"))

GD = KernelRecord(
    name="gd", module="certify.kernel.gd", parameters="GDParameters",
    require_hypotheses="require_gd_hypotheses", base_point="gd_base_point", claims="gd_claims",
    parameter_names=("eta", "epsilon", "A", "B", "sigma"),
    claim_ids=("single_active_gate", "one_step_death_box", "w_step_box", "purity_gap_box",
               "terminal_fourier_fraction", "gaussian_probability", "region_probability"))

SENSITIVITY = KernelRecord(
    name="sensitivity", module="certify.kernel.sensitivity", parameters="SensitivityParameters",
    require_hypotheses="require_sensitivity_hypotheses", base_point="sensitivity_base_point",
    claims="sensitivity_claims", parameter_names=("epsilon", "A", "B"),
    claim_ids=("hitting_time_gradient", "event_speed", "regional_derivative", "terminal_map_derivative",
               "saltation_matrix", "sensitivity_gap", "gap_rank"))

STAIRCASE = KernelRecord(
    name="staircase", module="certify.kernel.staircase", parameters="StaircaseParameters",
    require_hypotheses="require_staircase_hypotheses", base_point="staircase_base_point",
    claims="staircase_claims", parameter_names=("k", "X", "s", "D", "E", "sigma"), hypotheses_take_precision=True,
    claim_ids=("pattern_box", "loss_margin_box", "purity_margin_box", "gaussian_probability", "region_probability",
               "whole_region_probability"))

MEMORISE = KernelRecord(
    name="memorise", module="certify.kernel.staircase", parameters="MemoriseParameters",
    require_hypotheses="require_memorise_hypotheses", base_point="memorise_base_point",
    claims="memorise_claims", parameter_names=("X", "s", "E", "sigma"), hypotheses_take_precision=True,
    claim_ids=("pattern_box", "loss_margin_box", "purity_margin_box", "gaussian_probability", "region_probability",
               "whole_region_probability"),
    paper="MEMORISE_PAPER", specs="MEMORISE_CLAIMS")

TWIN = KernelRecord(
    name="twin", module="certify.kernel.twin", parameters="TwinParameters",
    require_hypotheses="require_twin_hypotheses", base_point="twin_base_point",
    claims="twin_claims", parameter_names=("X", "s", "t", "d", "E", "s2_max", "sigma"), hypotheses_take_precision=True,
    claim_ids=("pattern_box", "loss_excess_box", "window_box", "capture_box", "capture_time_box", "purity_margin_box",
               "gaussian_probability", "region_probability"))

TWIN_PLUS = KernelRecord(
    name="twin_plus", module="certify.kernel.twin_plus", parameters="TwinPlusParameters",
    require_hypotheses="require_twin_plus_hypotheses", base_point="twin_plus_base_point",
    claims="twin_plus_claims", parameter_names=("X", "e", "t", "d", "E", "h", "sigma"), hypotheses_take_precision=True,
    claim_ids=("pattern_box", "loss_excess_box", "window_box", "capture_box", "capture_time_box", "purity_margin_box",
               "gaussian_probability", "region_probability"))

TWIN_ABOVE = KernelRecord(
    name="twin_above", module="certify.kernel.twin_above", parameters="TwinAboveParameters",
    require_hypotheses="require_twin_above_hypotheses", base_point="twin_above_base_point",
    claims="twin_above_claims", parameter_names=("X", "e", "t", "d", "E", "h", "sigma", "g"),
    hypotheses_take_precision=True,
    claim_ids=("pattern_box", "loss_excess_box", "window_box", "capture_box", "capture_time_box", "purity_margin_box",
               "gaussian_probability", "region_probability"))

#: Every kernel, by theorem name, in the fixed order dead, slide, smooth, gd, sensitivity, staircase, memorise, twin,
#: twin_plus, twin_above.
KERNELS: dict[str, KernelRecord] = {record.name: record for record in (DEAD, SLIDE, SMOOTH, GD, SENSITIVITY,
                                                                       STAIRCASE, MEMORISE, TWIN, TWIN_PLUS,
                                                                       TWIN_ABOVE)}


def claim_spec(theorem: str, claim_id: str):
    """The :class:`~certify.kernel.claims.ClaimSpec` of claim ``claim_id`` of ``theorem``; KeyError for an
    unknown theorem or claim."""
    for spec in KERNELS[theorem].claim_specs():
        if spec.id == claim_id:
            return spec
    raise KeyError(f"{theorem} has no claim {claim_id!r}")


def relation_of(theorem: str, claim_id: str, component: str | None = None):
    """The :class:`~certify.kernel.claims.Relation` that claim ``claim_id`` of ``theorem`` (or one of its
    components) states: what each of its stored fields means. KeyError for an unknown theorem, claim or
    component. The Coq exporters state each field from it (certify/coq/relations.py)."""
    return claim_spec(theorem, claim_id).relation_of(component)


def kernel_for(theorem: str) -> TheoremKernel:
    """The kernel of ``theorem`` (KeyError if unknown); only that theorem's module is imported."""
    return KERNELS[theorem].load()
