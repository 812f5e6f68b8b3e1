"""One record per theorem: everything the command line, sweeps, the proof library, the simulator,
the renderers and the checker need to know about it, in one place.

``THEOREMS: dict[str, Theorem]`` in the fixed order dead, slide, smooth, gd. Importing this module
imports only the standard library and :mod:`certify.kernel.registry` (no python-flint work, no
numpy, scipy, sympy or matplotlib): every function a record names is a ``"module:attribute"``
string, imported the first time it is used (:func:`resolve`).

Fields of :class:`Theorem` (stable: certify.api builds on them):

``name``          the certificate's ``theorem`` and the command's name (``certify dead``)
``paper``         the paper's reference, e.g. ``"Theorem 1.5 / Theorem A.2"``
``title``         one line: the reference and what the theorem says (figure titles)
``help``          the one-line help of ``certify NAME``
``description``   the full help of ``certify NAME`` (statement, hypotheses, defaults)
``hypotheses``    the hypotheses in one line of plain text (the kernel decides them)
``parameters``    tuple of :class:`Parameter`, in the kernel's order
``kernel``        the :class:`certify.kernel.registry.KernelRecord` (entry points, claim ids)
``builder``       ``"module:function"``: ``builder(p, **parameters, radius=None, prec=128)`` -> CertifiedInstance
``summary``       ``"module:function"``: ``summary(certificate) -> list[str]`` (the lines on stderr)
``latex``         :class:`LatexSection`: the document's title, base point and statement
``simulator``     ``"module:function"``: ``simulator(certificate, start) -> dict`` (certify.simulate)
``plot``          ``"module:function"``: ``plot(figure, record)`` draws the panels (certify.render.plots)
``plot_parameters`` ((label, parameter name), ...) shown in the figure title besides p
``clock``         the key of the trajectory record's clock array
``derivations``   names of the symbolic derivations the certificate rests on (certify.symbolic)
``key_numbers``   tuple of :class:`KeyNumber`: the numbers a sweep summary reports
``coq``           ``"module:function"``: ``coq(certificate) -> [Lemma | Definition | NotExported]``, the
                  Coq exporter (certify.coq); None: no claim is exported
``largest_default_prime``  the largest prime at which the builder's defaults are known to certify (None:
                  every prime; twin_plus: 31). The proof library stops there, and a sweep takes the theorem only
                  when asked (:func:`swept_by_default`)
``experiment``    ``"module:function"`` or None: ``experiment(certificate, path, size=None, dpi=None) ->
                  list[str]``, a float experiment beside the certificate that ``certify NAME --plot FILE``
                  (and ``certify plot NAME``, with --size and --dpi) runs and draws (lines for stderr); None:
                  the command has no --plot

and the properties ``claim_ids`` (the kernel record's, in schema order), ``parameter_names``,
``required_parameters``. :meth:`Theorem.build` resolves and calls the builder.

Guarantees checked when a record is made (ValueError otherwise): the parameters are the kernel's,
in its order; every key number names one of the kernel's claim ids. tests/test_registry.py checks
the rest: the kernel modules and builders have the named attributes, the committed schema is the one
:mod:`certify.schema.generate` writes from the kernel records, and a toy theorem registered here is
picked up by the command line, the checker, sweeps and summaries without any other edit.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import NamedTuple

from ..kernel.registry import (DEAD, GD, MEMORISE, SENSITIVITY, SLIDE, SMOOTH, STAIRCASE, TWIN, TWIN_ABOVE, TWIN_PLUS,
                               KernelRecord)

NUMBER_NOTE = "an exact number: integer, p/q or decimal (e.g. 1, 3/2, 0.25, 1e-3)"


def resolve(target: str):
    """The attribute a ``"package.module:attribute"`` string names (imports the module)."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Parameter:
    """One parameter of a theorem.

    ``name``: the certificate's and the kernel's name; ``flag``: the command-line option;
    ``help``: its help text; ``default``: the default rule in words (None: no default, the
    parameter is ``required``); ``symbol``: its LaTeX symbol; ``label``: a few words naming it
    (messages of commands that take it for some theorems only); ``reference``: for a required
    parameter, the exact value (text) sweeps and the proof library use when none is given.
    Values are exact numbers (int, Fraction, fmpq or text of the number grammar).
    """

    name: str
    flag: str
    help: str
    default: str | None
    symbol: str
    label: str = ""
    reference: str | None = None

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class LatexSection:
    """What a theorem's LaTeX document says beside the certificate's numbers (LaTeX source)."""

    title: str
    base_point: str
    statement: str
    #: the box U in words, with {radius} for r (LaTeX); the sup-norm box unless a theorem's box is another
    box: str = r"the sup-norm box of radius $r = {radius}$ around $\theta_*$ in $\mathbb R^{{3p}}$"


class KeyNumber(NamedTuple):
    """A number a sweep summary reports: an end (``key``: lo, hi or log10_lo) of a claim (or of one of
    its ``component``s), and its extreme over the primes (``"min"`` of lower ends, ``"max"`` of upper ends)."""

    claim: str
    component: str | None
    key: str
    extreme: str
    label: str


@dataclass(frozen=True)
class Theorem:
    """Everything certify knows about one theorem (see the module docstring for each field)."""

    name: str
    paper: str
    title: str
    help: str
    description: str
    hypotheses: str
    parameters: tuple[Parameter, ...]
    kernel: KernelRecord
    builder: str
    summary: str
    latex: LatexSection
    simulator: str
    plot: str
    clock: str
    derivations: tuple[str, ...]
    key_numbers: tuple[KeyNumber, ...]
    plot_parameters: tuple[tuple[str, str], ...] = field(default=())
    coq: str | None = None
    experiment: str | None = None
    #: the largest prime at which the builder's defaults are known to certify (None: every prime); the library
    #: (certify.proofs.library_primes) and default sweeps (swept_by_default) stop there
    largest_default_prime: int | None = None

    def __post_init__(self):
        if self.kernel.name != self.name:
            raise ValueError(f"theorem {self.name!r} has the kernel record of {self.kernel.name!r}")
        if self.parameter_names != self.kernel.parameter_names:
            raise ValueError(f"theorem {self.name!r}: parameters {self.parameter_names} are not the kernel's "
                             f"{self.kernel.parameter_names}")
        for number in self.key_numbers:
            if number.claim not in self.kernel.claim_ids or number.extreme not in ("min", "max"):
                raise ValueError(f"theorem {self.name!r}: key number {number.label!r} names no claim of it")
        for _, name in self.plot_parameters:
            if name not in self.parameter_names:
                raise ValueError(f"theorem {self.name!r}: plot parameter {name!r} is not a parameter")

    @property
    def claim_ids(self) -> tuple[str, ...]:
        """Every claim id of a certificate of this theorem, in schema order."""
        return self.kernel.claim_ids

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(parameter.name for parameter in self.parameters)

    @property
    def required_parameters(self) -> tuple[Parameter, ...]:
        return tuple(parameter for parameter in self.parameters if parameter.required)

    def parameter(self, name: str) -> Parameter:
        """The parameter called ``name`` (KeyError if there is none)."""
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        raise KeyError(name)

    def build(self, p, **options):
        """The builder's CertifiedInstance for ``p`` (options: parameters, ``radius``, ``prec``)."""
        return resolve(self.builder)(p, **options)


_EPSILON = Parameter("epsilon", "--epsilon", f"s0 = u(0)+v(0) at the base point (default 1); {NUMBER_NOTE}", "1",
                     r"\varepsilon")
_A = Parameter("A", "--A", "-w(0) at the base point (default 2)", "2", "A")
_B = Parameter("B", "--B", "-u(j) = -v(j) at the base point (default 1)", "1", "B")
_SIGMA = Parameter("sigma", "--sigma",
                   "the initialisation scale sigma > 0 of the probability claims: theta(0) ~ N(0, sigma^2 I_3p) "
                   f"(default 1); {NUMBER_NOTE}", "1", r"\sigma", label="the initialisation scale")
_PROBABILITY = KeyNumber("gaussian_probability", None, "log10_lo", "min", "log10 P")
_REGION = KeyNumber("region_probability", None, "log10_lo", "min", "log10 P(region | active)")

DEAD_THEOREM = Theorem(
    name="dead",
    paper="Theorem 1.5 / Theorem A.2",
    title="Theorem 1.5 / A.2: the neuron dies in finite time (ReLU'(0) = 0)",
    help="certify Theorem 1.5 / A.2 (the neuron dies) for a prime p",
    description="""\
Certify Theorem 1.5 / Theorem A.2 (the neuron dies in finite time and its
terminal state is not single-frequency) for the prime p: the base point (2.1)
u(0)=v(0)=epsilon/2, u(j)=v(j)=-B, w(0)=-A, w(j)=0 and the sup-norm box of
radius R around it. The certificate (JSON, format certify/1) goes to stdout or
--out; a short summary goes to stderr.

Hypotheses (checked exactly): epsilon, A, B > 0; B > epsilon/2; and (A.58)
((p-1)A/p)^2 > epsilon^2/2. The defaults epsilon=1, A=2, B=1 satisfy them for
every prime p >= 5. Without --radius the radius is chosen to maximise the
certified Gaussian probability: the probability grows with R, so certify takes
99% of the largest radius the kernel can certify, rounded down to 3 digits.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, and of the whole region R_dead of section A.6 conditioned on initial
activity (region_probability, the same for every sigma); and of dying with
max_zeta F_zeta <= 1 - delta (region_purity_probability, --purity-margin delta,
default 1/100; docs/purity-tube.md).""",
    hypotheses="epsilon, A, B, sigma > 0; 0 < purity_margin < 1; B > epsilon/2; (A.58) ((p-1)A/p)^2 > epsilon^2/2",
    parameters=(_EPSILON, _A, _B, _SIGMA,
                Parameter("purity_margin", "--purity-margin",
                          "delta of the region purity claim P(dies and max F_zeta <= 1 - delta | active), "
                          f"0 < delta < 1 (default 1/100); {NUMBER_NOTE}", "1/100", r"\delta",
                          label="the purity margin")),
    coq="certify.coq.dead:dead_obligations",
    kernel=DEAD,
    builder="certify.theorems.dead:certify_dead",
    summary="certify.render.summary:dead_summary",
    latex=LatexSection(
        title="Theorem 1.5 with Theorem A.2: the neuron dies",
        base_point=r"u(0)=v(0)=\varepsilon/2,\ u(j)=v(j)=-B,\ w(0)=-A,\ w(j)=0 \quad (2.1)",
        statement=(r"every initial point of the box is initially active (only the gate $(0,0)$ is positive); "
                   r"every Clarke trajectory from it reaches a completely inactive state at a finite time $T$, "
                   r"transversally, and is constant afterwards; and every terminal state satisfies "
                   r"$\max_{\zeta\ne0}F_\zeta\le1-\delta_p$ with $\delta_p>0$ as certified below, so the "
                   r"limiting direction is not supported on one real Fourier class.")),
    simulator="certify.simulate:_dead",
    plot="certify.render.plots:_dead",
    clock="t",
    derivations=("flow", "flow-full", "conserved", "transversality", "hitting-time", "fourier", "fourier-exact",
                 "balance", "convexity"),
    key_numbers=(KeyNumber("single_active_gate", None, "lo", "min", "gate margin"),
                 KeyNumber("transversality_margin_box", None, "lo", "min", "transversality margin"),
                 KeyNumber("purity_gap_box", None, "lo", "min", "purity gap delta_p"),
                 _PROBABILITY, _REGION),
)

SLIDE_THEOREM = Theorem(
    name="slide",
    paper="Theorem A.1",
    title="Theorem A.1: the persistent sliding Clarke trajectory",
    help="certify Theorem A.1 (the sliding trajectory) for a prime p",
    description="""\
Certify Theorem A.1 (a persistent sliding trajectory: the neuron stays active,
memorises one table entry, and its direction converges to a limit whose Fourier
energy is 2/(p-1) in every class) for the prime p: the base point of section
A.3 u(0)=v(0)=X, u(j)=v(j)=-3X, w(0)=2p gamma_*, w(j)=0 and the sup-norm box of
radius R around it, inside the region U_slide of (A.15)-(A.17).

Hypotheses: gamma_* > 0 and (A.14) X > (p-1)/(e gamma_*), decided with balls
(e is irrational). Defaults: gamma_* = 1, X = (p-1)/(2 gamma_*). Without
--radius the radius is 99% of the largest box inside U_slide, rounded down to
3 digits (it maximises the certified Gaussian probability). The capture time is
astronomically large (about 10^561 for p = 13); it is enclosed as it is and
reported by its exponent.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, and of the whole sliding region conditioned on initial activity
(region_probability: one active gate, x min_j gamma_j > (p-1)/e).""",
    hypotheses="gamma_*, sigma > 0; (A.14) X > (p-1)/(e gamma_*)",
    parameters=(
        Parameter("gamma_star", "--gamma-star", f"gamma_* of (A.14)-(A.17) (default 1); {NUMBER_NOTE}", "1",
                  r"\gamma_*"),
        Parameter("X", "--X", "X of (A.14)-(A.15) (default (p-1)/(2 gamma_*))", "(p-1)/(2 gamma_*)", "X"),
        _SIGMA,
    ),
    coq="certify.coq.slide:slide_obligations",
    kernel=SLIDE,
    builder="certify.theorems.slide:certify_slide",
    summary="certify.render.summary:slide_summary",
    latex=LatexSection(
        title="Theorem A.1: the persistent sliding trajectory",
        base_point=r"u(0)=v(0)=X,\ u(j)=v(j)=-3X,\ w(0)=2p\gamma_*,\ w(j)=0 \quad (\S A.3)",
        statement=(r"the box lies in $U_{\mathrm{slide}}$ of (A.15)--(A.17); from every point of it the Clarke "
                   r"trajectory is unique, the gate $(0,0)$ stays active, all $2(p-1)$ cross gates are captured "
                   r"on their kinks, $\theta/\|\theta\|$ converges and $F_\zeta\to 2/(p-1)$ for every "
                   r"$\zeta\ne0$.")),
    simulator="certify.simulate:_slide",
    plot="certify.render.plots:_slide",
    clock="x",
    derivations=("sliding-relations", "sliding-selection", "sliding-limits", "fourier", "fourier-exact", "balance"),
    key_numbers=(KeyNumber("region_box", "gamma_minus_gamma_star", "lo", "min", "gamma_j - gamma_* margin"),
                 KeyNumber("admissibility", None, "hi", "max", "kink coefficient bound"),
                 _PROBABILITY, _REGION),
)

_FAMILY_BASE_POINT = r"u(0)=v(0)=s_0/2,\ u(j)=v(j)=-B,\ w(0)=-A,\ w(j)=0 \quad (A.48)\text{--}(A.49)"

SMOOTH_THEOREM = Theorem(
    name="smooth",
    paper="Theorem A.3",
    title="Theorem A.3: smooth dead-zone activation",
    help="certify Theorem A.3 (smooth dead-zone activation) for a prime p",
    description="""\
Certify Theorem A.3 (with the smooth dead-zone activation sigma_eps(z) =
z psi(z/eps), psi(t) = f(t)/(f(t)+f(1-t)), f(t) = exp(-1/t) for t > 0, the
gradient flow converges to a limit that is not single-frequency) for the prime
p: the base point (A.48)-(A.49) u(0)=v(0)=epsilon/2, u(j)=v(j)=-B, w(0)=-A,
w(j)=0 and the sup-norm box of radius R around it.

Hypotheses: eps, epsilon, A, B > 0, B > epsilon/2 and (A.67)
g(0)^2 > J(s0) with J(s0) = int_0^s0 sigma/sigma' enclosed rigorously (one
acb.integral plus proved tail bounds). Defaults: eps = 2, epsilon = 1, A = 2,
B = 1. Without --radius the radius maximises the certified Gaussian
probability (99% of the largest certifiable radius, 3 digits).

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, and of the whole region (one active gate and (A.67) at a general point)
conditioned on initial activity (region_probability).""",
    hypotheses="eps, epsilon, A, B, sigma > 0; B > epsilon/2; (A.67) g(0)^2 > J(s0) (decided with balls)",
    parameters=(
        Parameter("eps_smooth", "--eps-smooth", f"eps of sigma_eps (default 2); {NUMBER_NOTE}", "2", r"\epsilon"),
        Parameter("epsilon", "--epsilon", "s0 = u(0)+v(0) at the base point (default 1)", "1", r"s_0"),
        _A, _B, _SIGMA,
    ),
    coq="certify.coq.smooth:smooth_obligations",
    kernel=SMOOTH,
    builder="certify.theorems.smooth:certify_smooth",
    summary="certify.render.summary:smooth_summary",
    latex=LatexSection(
        title=r"Theorem A.3: a smooth dead-zone activation",
        base_point=_FAMILY_BASE_POINT,
        statement=(r"with $\sigma_\epsilon(z)=z\,\psi(z/\epsilon)$, $\psi(t)=f(t)/(f(t)+f(1-t))$, "
                   r"$f(t)=e^{-1/t}$ for $t>0$ and $0$ otherwise, the gradient flow from every point of the box "
                   r"converges to a finite limit $\theta_\infty$ with $\max_{\zeta\ne0}F_\zeta(\theta_\infty)"
                   r"\le1-\delta$, $\delta>0$ as certified below.")),
    simulator="certify.simulate:_smooth",
    plot="certify.render.plots:_smooth",
    plot_parameters=(("eps", "eps_smooth"),),
    clock="s",
    derivations=("convexity", "fourier", "fourier-exact"),
    key_numbers=(KeyNumber("g_condition", None, "lo", "min", "(A.67) margin"),
                 KeyNumber("purity_gap_box", None, "lo", "min", "purity gap"),
                 _PROBABILITY, _REGION),
)

GD_THEOREM = Theorem(
    name="gd",
    paper="Theorem A.4",
    title="Theorem A.4: one-step death under full-batch gradient descent",
    help="certify Theorem A.4 (one gradient-descent step kills the neuron) for a prime p",
    description="""\
Certify Theorem A.4 (one full-batch gradient-descent step with step size eta
and ReLU'(0) = 0 makes every gate strictly negative, so the iterates freeze at
a state that is not single-frequency) for the prime p: the base point (2.1)
u(0)=v(0)=epsilon/2, u(j)=v(j)=-B, w(0)=-A, w(j)=0 and the sup-norm box of
radius R around it.

Hypotheses: eta, epsilon, A, B > 0, B > epsilon/2 and (A.71)
epsilon < 2 eta (p-1)A/p^3. The defaults adapt to eta: A = 2, B = 1 and
epsilon = min(1, half the (A.71) threshold), so the command works for any
eta > 0 (a small eta needs a small s0 = epsilon). Without --radius the radius
maximises the certified Gaussian probability.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, and of the whole region (one active gate and (A.71) at a general point, a
cone: the same for every sigma) conditioned on initial activity
(region_probability).""",
    hypotheses="eta, epsilon, A, B, sigma > 0; B > epsilon/2; (A.71) epsilon < 2 eta (p-1)A/p^3",
    parameters=(
        Parameter("eta", "--eta", f"the step size eta > 0; {NUMBER_NOTE}", None, r"\eta", label="the step size",
                  reference="1"),
        Parameter("epsilon", "--epsilon",
                  f"s0 = u(0)+v(0) at the base point (default: adapts to eta); {NUMBER_NOTE}",
                  "min(1, half the (A.71) threshold 2 eta (p-1)A/p^3)", r"s_0"),
        _A, _B, _SIGMA,
    ),
    coq="certify.coq.gd:gd_obligations",
    kernel=GD,
    builder="certify.theorems.gd:certify_gd",
    summary="certify.render.summary:gd_summary",
    latex=LatexSection(
        title="Theorem A.4: one step of gradient descent",
        base_point=_FAMILY_BASE_POINT,
        statement=(r"one full-batch gradient-descent step $\theta_1=\theta_0-\eta\nabla\mathcal L(\theta_0)$ "
                   r"with $\mathrm{ReLU}'(0)=0$ makes every gate strictly negative, so "
                   r"$\theta_n=\theta_1$ for all $n\ge1$, and $\max_{\zeta\ne0}F_\zeta(\theta_1)\le1-\delta$ "
                   r"with $\delta>0$ as certified below.")),
    simulator="certify.simulate:_gd",
    plot="certify.render.plots:_gd",
    plot_parameters=(("eta", "eta"),),
    clock="n",
    derivations=("gd-one-step", "convexity", "fourier", "fourier-exact"),
    key_numbers=(KeyNumber("one_step_death_box", "central_gate", "hi", "max", "central gate after the step"),
                 KeyNumber("purity_gap_box", None, "lo", "min", "purity gap"),
                 _PROBABILITY, _REGION),
)

SENSITIVITY_THEOREM = Theorem(
    name="sensitivity",
    paper="Section 2 / Theorem 1.5 (the death event's sensitivity)",
    title="The death event's sensitivity: the rank-one gap between J_reg and the terminal-map derivative",
    help="certify the death event's sensitivity (the rank-one gap of the second paper) for a prime p",
    description="""\
Certify the sensitivity of Theorem 1.5's death event for the prime p, in
section 2's reduced coordinates y = (s, a, b) = (u(0)+v(0), w(0), w(j)) at the
base point (2.1) u(0)=v(0)=epsilon/2, u(j)=v(j)=-B, w(0)=-A, w(j)=0: the
gradient of the hitting time T (hitting_time_gradient), the event speed
ds/dt(T-) < 0 (2.7), the regional propagator J_reg = dy(T*)/dy(0) at the fixed
base hitting time with the smooth field continued across s = 0, the derivative
Psi' of the terminal map Psi(y0) = y(T(y0)) (its s row exactly 0), the exact
saltation matrix S = I - f n^T/(n^T f) with S J_reg = Psi', and the gap
|Psi' - J_reg|_F > 0, of rank exactly 1 (arXiv:2608.30960: automatic
differentiation of hard-ReLU gradient descent converges to J_reg as the step
goes to 0, the flow's derivative is Psi'). The claims are about this one
trajectory: the radius is 0 and there are no probability claims.

Hypotheses (checked exactly): epsilon, A, B > 0; B > epsilon/2; Gamma =
A^2 - p epsilon^2/(2(p-1)) > 0. Defaults epsilon=1, A=2, B=1.
--plot FILE runs the float experiment (gradient descent on the full network at
eta = 1e-1, 1e-2, 1e-3, its exact forward-mode derivative against J_reg and
Psi'; tests/bench_sensitivity.py adds 1e-4).""",
    hypotheses="epsilon, A, B > 0; B > epsilon/2; Gamma = A^2 - p epsilon^2/(2(p-1)) > 0",
    parameters=(_EPSILON, _A, _B),
    coq="certify.coq.sensitivity:sensitivity_obligations",
    kernel=SENSITIVITY,
    builder="certify.theorems.sensitivity:certify_sensitivity",
    summary="certify.render.summary:sensitivity_summary",
    latex=LatexSection(
        title="The death event's sensitivity",
        base_point=r"u(0)=v(0)=\varepsilon/2,\ u(j)=v(j)=-B,\ w(0)=-A,\ w(j)=0 \quad (2.1)",
        statement=(r"in the reduced coordinates $y=(s,a,b)=(u(0)+v(0),w(0),w(j))$ the central gate reaches $s=0$ "
                   r"at $T(y_0)$ with speed $\dot s(T^-)<0$; the regional propagator $J_{\mathrm{reg}}$ (the flow "
                   r"map's derivative at the fixed time $T^*$, the smooth field continued across $s=0$) and the "
                   r"terminal map's derivative $\Psi'=SJ_{\mathrm{reg}}$, $S=I-fn^{\mathsf T}/(n^{\mathsf T}f)$, "
                   r"differ by the rank-one matrix $f\,\nabla T^{\mathsf T}$, of Frobenius norm as certified below.")),
    simulator="",
    plot="",
    experiment="certify.numeric.sensitivity:experiment",
    clock="t",
    derivations=("flow", "conserved", "transversality", "hitting-time"),
    key_numbers=(KeyNumber("sensitivity_gap", None, "lo", "min", "sensitivity gap"),
                 KeyNumber("event_speed", None, "hi", "max", "event speed ds/dt(T-)")),
)

STAIRCASE_THEOREM = Theorem(
    name="staircase",
    paper="Theorem S (docs/staircase.md): the (1, 2) staircase",
    title="Theorem S: the (1, 2) staircase persists and never aligns",
    help="certify Theorem S (the (1, 2) staircase persists, never aligned) for a prime p",
    description="""\
Certify Theorem S of docs/staircase.md for the prime p: the staircase with
k = 2 steps (three active gates (0,0), (0,1), (1,0), labels 0, 1, 1) persists
for all time and never aligns. The base point u = v = (X/2, s - X/2,
-X/2 - s, ...), w = (E + D, E, 0, ...) - mu_0 (mean 0) and the sup-norm box of
radius R around it: every point of the box is in U_stair of (S.10), so every
Clarke trajectory from it is unique, keeps the pattern for all t >= 0, and
satisfies max_zeta F_zeta(theta(t)) <= 1 - delta for all t (Proposition S.6,
delta certified).

Hypotheses: k = 2 (--k 1 makes the certificate of Theorem S1, the one-gate
staircase, as certify memorise does; k >= 3 has no proof yet,
docs/staircase.md section 7); X, s, D, E, sigma > 0; X > 2s; and the base
point in S_stair (S.10), decided with balls. Defaults: for p < 55, when none
of X, s, D, E is given, the builder starts from the box with the largest
region bound its search found: a grid X = a p, s = b ln(p)/p, E = c p and D
(a in {1/2, 7/10, 9/10}, b in {6/5, 3/2, 9/5}, c in {5/4, 8/5, 2}, D in
{3/10, 2/5, 1/2}), then a pattern search on 3-digit values, at the sigma
given (the kernel decides each box; docs/staircase.md section 11.15);
otherwise X = p, D = 1/4, s = ln(p)/p and E = 5p/2 for p < 55, s = 4/p and
E = 5p ln(p)/8 beyond (3 digits, rounded down): valid at every p. Without
--radius the radius is 99% of the largest the kernel certifies, rounded down
to 3 digits.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, and of the relabelled copies of the box widened in its tails u(i), v(i),
i >= 2, and of its translates along the two lines U_stair is invariant along
(region_probability, a lower bound of P(U_stair relabelled | active); Lemmas
S.18-S.19, Proposition S.21). U_stair lies far from the origin: both are
tiny (10^-55.66 and 10^-43.03 at p = 5), far below the measured share of
(1, 2) staircases (docs/staircase.md, sections 9, 11.14 and 11.15). At p = 5
and 7 and sigma = 1, whole_region_probability bounds the whole of U_stair
instead (Proposition S.25 with Lemma S.26, section 11.16: 10^-31.29 at p = 5,
within a factor 10 of the region's estimated mass), in about 0.4 s more at p = 5
and 0.5 s more at p = 7 for the certificate and as much for its check;
elsewhere it states region_probability's bound.""",
    hypotheses="k = 2; X, s, D, E, sigma > 0; X > 2s; (S.10) at the base point (decided with balls)",
    parameters=(
        Parameter("k", "--k", "the staircase size k (default 2, Theorem S; 1 gives Theorem S1's memorise "
                  "certificate, with its own defaults; k >= 3 has no proof)", "2", "k", label="the staircase size"),
        Parameter("X", "--X", f"the gate z00 = u(0)+v(0) at the base point (default p; searched for p < 55, see above); "
                  f"{NUMBER_NOTE}", "p (searched for p < 55)", "X"),
        Parameter("s", "--s", "the gates z01 = z10 at the base point (default min(ln p, 4)/p, 3 digits; searched for "
                  "p < 55)", "min(ln p, 4)/p (searched for p < 55)", "s"),
        Parameter("D", "--D", "D = w(0) - w(1) at the base point (default 1/4, searched for p < 55; k = 2 only)",
                  "1/4 (searched for p < 55)", "D"),
        Parameter("E", "--E", "E = w(1) - w(j), j >= 2, at the base point (default 5p/2, searched for p < 55; "
                  "5p ln(p)/8 from p = 55)", "5p/2 (searched for p < 55; 5p ln(p)/8 from p = 55)", "E"),
        _SIGMA,
    ),
    coq="certify.coq.staircase:staircase_obligations",
    kernel=STAIRCASE,
    builder="certify.theorems.staircase:certify_staircase",
    summary="certify.render.summary:staircase_summary",
    latex=LatexSection(
        title="Theorem S: the (1, 2) staircase persists and never aligns",
        base_point=(r"u=v=(X/2,\ s-X/2,\ -X/2-s,\dots),\ w=(E+D,\ E,\ 0,\dots)-\mu_0,\ "
                    r"\mu_0=(2E+D)/p \quad (\S 9.1)"),
        statement=(r"the box lies in $U_{\mathrm{stair}}$ of (S.10); from every point of it the Clarke trajectory "
                   r"is unique, the gates $(0,0)$, $(0,1)$, $(1,0)$ stay active, the boundary gates stay "
                   r"inactive or slide, every other gate stays inactive, for all $t\ge0$, and "
                   r"$\max_{\zeta\ne0}F_\zeta(\theta(t))\le1-\delta$ for all $t\ge0$ with $\delta>0$ as certified "
                   r"below.")),
    simulator="",
    plot="",
    experiment="certify.numeric.staircase:experiment",
    clock="t",
    derivations=("staircase-face", "staircase-steps", "staircase-purity"),
    key_numbers=(KeyNumber("loss_margin_box", None, "lo", "min", "(S.10) margin"),
                 KeyNumber("purity_margin_box", None, "lo", "min", "purity margin delta"),
                 _PROBABILITY, _REGION),
)

MEMORISE_THEOREM = Theorem(
    name="memorise",
    paper="Theorem S1 (docs/staircase.md, section 10): the one-gate staircase, by the loss",
    title="Theorem S1: one active gate persists and never aligns",
    help="certify Theorem S1 (one active gate persists, never aligned; staircase k = 1) for a prime p",
    description="""\
Certify Theorem S1 of docs/staircase.md (section 10) for the prime p: the
staircase with k = 1 step, one active gate (0, 0), by the loss argument of
Theorem S. The base point u = v = (X/2, -X/2 - s, ...), w = (E, 0, ...) - mu_0
(mean 0) and the sup-norm box of radius R around it: every point of the box is
in U_1 of (S1.1), so every Clarke trajectory from it is unique, keeps (0, 0)
as its only active gate for all t >= 0 (it memorises one table entry), and
satisfies max_zeta F_zeta(theta(t)) <= 1 - delta_1 for all t (Proposition
S1.7, delta_1 certified). `certify staircase --k 1` makes the same certificate.

Beside Theorem A.1 (certify slide): fewer conclusions (no capture, no limit
direction) but a margin at every time and a region that contains A.1's:
(S1.1) holds once X gamma_min > ln(p (p - 1) rho/2)/p; A.1 asks (p - 1)/e.

Hypotheses: X, s, E, sigma > 0 and the base point in S_1 (S1.1), decided
with balls. Defaults: X = 1, s = 1/4, E = 3 ln p (3 digits, rounded down):
valid at every p. Without --radius the radius is 99% of the largest the kernel
certifies, rounded down to 3 digits.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, of its p^2 translated copies (region_probability, a lower bound of
P(U_1 relabelled | active)), and the same probability bounded over the whole
of U_1 (whole_region_probability, Proposition S1.8: 10^-7.93 at p = 5, within
a factor 2.7 of its Monte Carlo value there, 4.2 at p = 7; not in Coq).""",
    hypotheses="X, s, E, sigma > 0; (S1.1) at the base point (decided with balls)",
    parameters=(
        Parameter("X", "--X", f"the gate z00 = u(0)+v(0) at the base point (default 1); {NUMBER_NOTE}", "1", "X"),
        Parameter("s", "--s", "minus every boundary gate z0j = zj0 at the base point (default 1/4)", "1/4", "s"),
        Parameter("E", "--E", "E = w(0) - w(j), j >= 1, at the base point (default 3 ln p, 3 digits)", "3 ln p",
                  "E"),
        _SIGMA,
    ),
    coq="certify.coq.staircase:memorise_obligations",
    kernel=MEMORISE,
    builder="certify.theorems.memorise:certify_memorise",
    summary="certify.render.summary:memorise_summary",
    latex=LatexSection(
        title="Theorem S1: one active gate persists and never aligns",
        base_point=(r"u=v=(X/2,\ -X/2-s,\dots),\ w=(E,\ 0,\dots)-\mu_0,\ \mu_0=E/p \quad (\S 10.6)"),
        statement=(r"the box lies in $U_1$ of (S1.1); from every point of it the Clarke trajectory is unique, the "
                   r"gate $(0,0)$ stays its only active gate, the boundary gates stay inactive or slide, for all "
                   r"$t\ge0$, and $\max_{\zeta\ne0}F_\zeta(\theta(t))\le1-\delta_1$ for all $t\ge0$ with "
                   r"$\delta_1>0$ as certified below.")),
    simulator="",
    plot="",
    experiment="certify.numeric.staircase:experiment",
    clock="t",
    derivations=("staircase-one-gate",),
    key_numbers=(KeyNumber("loss_margin_box", None, "lo", "min", "(S1.1) margin"),
                 KeyNumber("purity_margin_box", None, "lo", "min", "purity margin delta_1"),
                 _PROBABILITY, _REGION),
)

TWIN_THEOREM = Theorem(
    name="twin",
    paper="Proposition S2.2 (docs/staircase.md, section 11.7): regime II of the (1, 2) staircase, the twin",
    title="Proposition S2.2: the twin of the (1, 2) staircase is captured, persists and never aligns",
    help="certify Proposition S2.2 (regime II, the usual (1, 2) outcome: captured, kept, never aligned) for a prime p",
    description="""\
Certify Proposition S2.2 of docs/staircase.md (sections 11.7 and 11.9) for the
prime p: regime II of the (1, 2) staircase, the twin, where the gate (1, 1)
sits on its kink; the usual three-gate outcome of a random neuron. The base
point u = v = (X/2, s - X/2, -X/2 - t, ...), w = (E - d, E, 0, ...) - mu_0
(mean 0, so D = w(0) - w(1) = -d < 0 and z11 = 2s - X < 0) and the sup-norm
box of radius R around it: every point of the box is in U_II of (S.29), so
every Clarke trajectory from it is unique, keeps the (1, 2) pattern for all
t >= 0, brings the gate (1, 1) onto its kink with D <= 0 by the certified
capture time and keeps it sliding there for ever (Theorem S2), and satisfies
max_zeta F_zeta(theta(t)) <= 1 - delta for all t (delta certified).

Hypotheses: X, s, t, d, E, s2_max, sigma > 0; X > 2s; and the base point in
U_II (every margin of (S.29) positive there), decided with balls. Defaults:
X = 2, t = X/20, d from the budget b_II(p, 1) of (S.27), s with
zeta0 = z11/D = 3/200, E so that the tails take under a third of the budget,
s2_max = 2 (2X)^2 (3 digits, rounded down; a float search's choice, the kernel
decides). Without --radius the radius is 99% of the largest the kernel
certifies, rounded down to 3 digits.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, and of p^2 (p - 1) relabelled copies of the box widened in its tails
u(i), v(i), i >= 2, and of its translates along the two lines U_II is
invariant along (region_probability, a lower bound of P(U_II relabelled |
active); Lemmas S.18-S.19, Proposition S.21); U_II lies at scale O(log p),
so from p = 7 on they are far larger than Theorem S's (10^-59.54 against
10^-96.46 at p = 7, 10^-96.01 against 10^-365.50 at p = 13; at p = 5 Theorem
S's searched box gives 10^-43.03 against 10^-51.29) and still far below the
measured share of regime II (docs/staircase.md, sections 11.9, 11.14 and
11.15).""",
    hypotheses="X, s, t, d, E, s2_max, sigma > 0; X > 2s; (S.29) at the base point (decided with balls)",
    parameters=(
        Parameter("X", "--X", f"the gate z00 = u(0)+v(0) at the base point (default 2); {NUMBER_NOTE}", "2", "X"),
        Parameter("s", "--s", "the gates z01 = z10 at the base point, below X/2 (default X/2 - e/2, e = 3d/200 to 3 "
                  "digits)", "X/2 - e/2", "s"),
        Parameter("t", "--t", "minus every boundary gate z0j = zj0 at the base point (default X/20)", "X/20", "t"),
        Parameter("d", "--d", "-D = w(1) - w(0) at the base point (default from b_II(p, 1), 3 digits)",
                  "sqrt(0.4 b_II(p, 1) 16/3)/X", "d"),
        Parameter("E", "--E", "E = w(1) - w(j), j >= 2, at the base point (default 1.01 log(6 (p - 2)/b_II(p, 1))/s, 3 "
                  "digits)", "1.01 log(6 (p - 2)/b_II)/s", "E"),
        Parameter("s2_max", "--s2-max", "the bound sigma of (S.29) on X^2 + r^2 + c^2 during the capture "
                  "(default 2 (2X)^2)", "8 X^2", r"s_{2,\max}"),
        _SIGMA,
    ),
    coq="certify.coq.staircase:twin_obligations",
    kernel=TWIN,
    builder="certify.theorems.twin:certify_twin",
    summary="certify.render.summary:twin_summary",
    latex=LatexSection(
        title="Proposition S2.2: the twin of the (1, 2) staircase is captured, persists and never aligns",
        base_point=(r"u=v=(X/2,\ s-X/2,\ -X/2-t,\dots),\ w=(E-d,\ E,\ 0,\dots)-\mu_0,\ "
                    r"\mu_0=(2E-d)/p \quad (\S 11.9)"),
        statement=(r"the box lies in $U_{\mathrm{II}}$ of (S.29); from every point of it the Clarke trajectory is "
                   r"unique, keeps the gates $(0,0)$, $(0,1)$, $(1,0)$ active and every other gate inactive or "
                   r"sliding for all $t\ge0$, brings the gate $(1,1)$ onto its kink with $D\le0$ by the certified "
                   r"capture time and keeps it sliding there, and $\max_{\zeta\ne0}F_\zeta(\theta(t))\le1-\delta$ "
                   r"for all $t\ge0$ with $\delta>0$ as certified below.")),
    simulator="",
    plot="",
    experiment="certify.numeric.staircase:twin_experiment",
    clock="t",
    derivations=("staircase-face",),
    key_numbers=(KeyNumber("window_box", "force_budget", "lo", "min", "2 - Phi (S.27)"),
                 KeyNumber("capture_box", "cone", "lo", "min", "kappa (S.29)"),
                 KeyNumber("capture_time_box", None, "hi", "max", "capture time"),
                 KeyNumber("purity_margin_box", None, "lo", "min", "purity margin delta"),
                 _PROBABILITY, _REGION),
)

TWIN_PLUS_THEOREM = Theorem(
    name="twin_plus",
    paper="Proposition S3.2 (docs/staircase.md, section 11.10): regime II of the (1, 2) staircase, captured with D >= 0",
    title="Proposition S3.2: the twin of the (1, 2) staircase is captured from D > 0, persists and never aligns",
    help="certify Proposition S3.2 (regime II captured from D > 0: kept, never aligned) for a prime p",
    description="""\
Certify Proposition S3.2 of docs/staircase.md (sections 11.10 and 11.11) for
the prime p: regime II of the (1, 2) staircase, the gate (1, 1) captured onto
its kink from the side D = w(0) - w(1) > 0. The base point
u = v = (X/2, s - X/2, -X/2 - t, ...), s = (X - e)/2,
w = (E + d, E, 0, ...) - mu_0 (mean 0, so D = d > 0 and z11 = -e < 0) and the
sup-norm box of radius R around it: every point of the box is in U_II^+ of
(S.34) with the parameter h, so every Clarke trajectory from it is unique,
keeps the (1, 2) pattern for all t >= 0, brings the gate (1, 1) onto its kink
with D >= 0 by the certified capture time and keeps it sliding there for ever
with D decaying exponentially (Theorem S3), and satisfies
max_zeta F_zeta(theta(t)) <= 1 - delta for all t (delta certified).

Hypotheses: X, e, t, d, E, h, sigma > 0; e < X; and the base point in U_II^+
(the window and the four margins of (S.34) positive there), decided with
balls. Defaults (a float search's choice, the kernel decides): X = 2, t = 1/2,
e = d = 0.06/p^2, E = 1.5 log p + 1 and h = 0.15 times the base point's
largest rate (2/p)((p - 2) mu_0 e^(-s (E + d)) - d) (3 digits, rounded down);
they are certified from p = 5 to 31, not at p >= 37 (give parameters there, or
use certify twin). Without --radius the radius is 99% of the largest the kernel
certifies, rounded down to 3 digits.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
box, and of p^2 (p - 1) relabelled copies of the box widened in its tails
u(i), v(i), i >= 2, and of its translates along the two lines U_II^+ is
invariant along (region_probability, a lower bound of P(U_II^+ relabelled |
active); Lemmas S.18-S.19, Proposition S.21). U_II^+ needs no budget
b_II(p, rho), so at p = 5 and 7 its box is far heavier than the twin's of
certify twin (docs/staircase.md, section 11.11).""",
    hypotheses="X, e, t, d, E, h, sigma > 0; e < X; (S.34) at the base point (decided with balls)",
    parameters=(
        Parameter("X", "--X", f"the gate z00 = u(0)+v(0) at the base point (default 2); {NUMBER_NOTE}", "2", "X"),
        Parameter("e", "--e", "-z11 at the base point, below X (default 0.06/p^2)", "0.06/p^2", "e"),
        Parameter("t", "--t", "minus every boundary gate z0j = zj0 at the base point (default 1/2)", "1/2", "t"),
        Parameter("d", "--d", "D = w(0) - w(1) at the base point (default 0.06/p^2)", "0.06/p^2", "d"),
        Parameter("E", "--E", "E = w(1) - w(j), j >= 2, at the base point (default 1.5 log p + 1, 3 digits)",
                  "1.5 log p + 1", "E"),
        Parameter("h", "--h", "the rate parameter h of (S.34) (default 0.15 (2/p)((p - 2) mu_0 e^(-s (E + d)) - d), "
                  "3 digits)", "0.15 h_max", "h"),
        _SIGMA,
    ),
    coq="certify.coq.staircase:twin_plus_obligations",
    kernel=TWIN_PLUS,
    builder="certify.theorems.twin_plus:certify_twin_plus",
    summary="certify.render.summary:twin_plus_summary",
    latex=LatexSection(
        title="Proposition S3.2: the twin of the (1, 2) staircase is captured from D > 0, persists and never aligns",
        base_point=(r"u=v=(\tfrac X2,\ s-\tfrac X2,\ -\tfrac X2-t,\dots),\ w=(E+d,\ E,\ 0,\dots)-\tfrac{2E+d}p,\ "
                    r"s=\tfrac{X-e}2 \quad (\S 11.11)"),
        statement=(r"the box lies in $U_{\mathrm{II}}^+$ of (S.34); from every point of it the Clarke trajectory is "
                   r"unique, keeps the gates $(0,0)$, $(0,1)$, $(1,0)$ active and every other gate inactive or "
                   r"sliding for all $t\ge0$, brings the gate $(1,1)$ onto its kink with $D\ge0$ by the certified "
                   r"capture time and keeps it sliding there, and $\max_{\zeta\ne0}F_\zeta(\theta(t))\le1-\delta$ "
                   r"for all $t\ge0$ with $\delta>0$ as certified below.")),
    simulator="",
    plot="",
    experiment="certify.numeric.staircase:twin_experiment",
    largest_default_prime=31,
    clock="t",
    derivations=("staircase-face",),
    key_numbers=(KeyNumber("window_box", None, "lo", "min", "beta - b"),
                 KeyNumber("capture_box", "race", "lo", "min", "race (S.34)"),
                 KeyNumber("capture_time_box", None, "hi", "max", "capture time"),
                 KeyNumber("purity_margin_box", None, "lo", "min", "purity margin delta"),
                 _PROBABILITY, _REGION),
)

TWIN_ABOVE_THEOREM = Theorem(
    name="twin_above",
    paper="Proposition S3.4 (docs/staircase.md, section 11.12): regime II of the (1, 2) staircase, captured from above",
    title="Proposition S3.4: the twin of the (1, 2) staircase is captured from above, persists and never aligns",
    help="certify Proposition S3.4 (regime II captured from above with D > 0: kept, never aligned) for a prime p",
    description="""\
Certify Proposition S3.4 of docs/staircase.md (sections 11.12 and 11.13) for
the prime p: regime II of the (1, 2) staircase, the gate (1, 1) active
(z11 > 0) and coming down onto its kink with D = w(0) - w(1) > 0. The base
point u = v = (X/2, s - X/2, -X/2 - t, ...), s = (X + e)/2,
w = (E + d, E, 0, ...) - mu_0 (mean 0, so D = d > 0 and z11 = +e) and the
box B_{r,g} around it (u, v, w(0), w(1) within r = R of the base point, each
w(j), j >= 2, within r + g): every point of the box is in U_II^above of
(S.36) at Remark S3.6 (i)'s rho_+ with the parameter h, so every Clarke
trajectory from it is unique,
brings the gate (1, 1) down onto its kink with D > 0 by the certified capture
time, then keeps the (1, 2) pattern with the gate (1, 1) sliding for ever
(Theorem S3), and satisfies max_zeta F_zeta(theta(t)) <= 1 - delta for all
t >= 0 (delta of (S.37), certified).

The box: u, v, w(0), w(1) within the radius r of the base point, each w(j),
j >= 2, within r + g (Remark S3.7; --g, g = 0 the sup-norm box).

Hypotheses: X, e, t, d, E, h, sigma > 0; g >= 0; e < X; and the base point in
U_II^above (the window and the six margins of (S.36) positive at radius 0,
where the w(j) still move within g), decided with balls. Defaults (a search's
choice, the kernel decides): X = 5/2, e = 2.5 r_0, d = 2.2 r_0 with
r_0 = 0.06 (p - 2)/p^2, E = 1.5 log p; g the best of k r_0, k in 0, 1, 2, 4,
8, 16 and then 3/4 and 3/2 of the best, by the region bound (0 when --h or --t
is given); h = 0.9 h_max,
h_max = 2 g_0 - b0 (E + g) the largest rate of (S.36) at radius 0
(g_0 = (2E + d)/p - 2(p - 2) g/p, b0 the loss excess there),
t = 1.5 (e + sqrt(2 b0 e/h)) (the tails shallow, the reach of (S.36) kept;
3 digits, rounded down); they are certified at every prime from 5 to 173
(from 179 on the base point fails the race of (S.36)). Without --radius the
radius is 99% of the largest the kernel certifies, rounded down to 3 digits.

Probabilities, under theta(0) ~ N(0, sigma^2 I_3p) (--sigma, default 1): of the
sup-norm box of radius r inside the box, and of p^2 (p - 1) relabelled copies
of the box widened in its tails u(i), v(i), i >= 2, and of its translates
along the two lines U_II^above is invariant along (region_probability, a
lower bound of P(U_II^above relabelled | active); Lemmas S.18-S.19,
Proposition S.21). The capture from above is fast
(the gate's own example pushes it down), so its box is far wider than those
of certify twin_plus and certify twin (docs/staircase.md, section 11.13).""",
    hypotheses="X, e, t, d, E, h, sigma > 0; g >= 0; e < X; (S.36) at radius 0 (decided with balls)",
    parameters=(
        Parameter("X", "--X", f"the gate z00 = u(0)+v(0) at the base point (default 5/2); {NUMBER_NOTE}", "5/2", "X"),
        Parameter("e", "--e", "z11 at the base point, below X (default 2.5 r_0, r_0 = 0.06 (p - 2)/p^2)", "2.5 r_0",
                  "e"),
        Parameter("t", "--t", "minus every boundary gate z0j = zj0 at the base point (default 1.5 (e + sqrt(2 b0 "
                  "e/h)), above the movement bound of (S.36) at the base point, 3 digits)", "1.5 (e + delta_c0)", "t"),
        Parameter("d", "--d", "D = w(0) - w(1) at the base point (default 2.2 r_0, r_0 = 0.06 (p - 2)/p^2)",
                  "2.2 r_0", "d"),
        Parameter("E", "--E", "E = w(1) - w(j), j >= 2, at the base point (default 1.5 log p, 3 digits)",
                  "1.5 log p", "E"),
        Parameter("h", "--h", "the rate parameter h of (S.36) (default 0.9 (2 g_0 - b0 (E + g)), the base point's "
                  "rate bound, g_0 its least gamma_j, 3 digits)", "0.9 h_max", "h"),
        _SIGMA,
        Parameter("g", "--g", "how much farther than the radius each w(j), j >= 2, may move on the box: within r + g "
                  "(default: the best of g = k r_0, k in 0, 1, 2, 4, 8, 16, then 3/4 and 3/2 of the best, by the region "
                  "bound; 0 when --h or --t is given)", "search", "g"),
    ),
    coq="certify.coq.staircase:twin_above_obligations",
    kernel=TWIN_ABOVE,
    builder="certify.theorems.twin_above:certify_twin_above",
    summary="certify.render.summary:twin_above_summary",
    latex=LatexSection(
        title="Proposition S3.4: the twin of the (1, 2) staircase is captured from above, persists and never aligns",
        base_point=(r"u=v=(\tfrac X2,\ s-\tfrac X2,\ -\tfrac X2-t,\dots),\ w=(E+d,\ E,\ 0,\dots)-\tfrac{2E+d}p,\ "
                    r"s=\tfrac{X+e}2 \quad (\S 11.12)"),
        statement=(r"the box lies in $U_{\mathrm{II}}^{\mathrm{above}}$ of (S.36) at Remark S3.6 (i)'s $\rho_+$; from "
                   r"every point of it the Clarke "
                   r"trajectory is unique, brings the gate $(1,1)$ down onto its kink with $D>0$ by the certified "
                   r"capture time, keeps the gates $(0,0)$, $(0,1)$, $(1,0)$ active and every other gate inactive or "
                   r"sliding for all later $t$, with the gate $(1,1)$ sliding, and "
                   r"$\max_{\zeta\ne0}F_\zeta(\theta(t))\le1-\delta$ for all $t\ge0$ with $\delta>0$ as "
                   r"certified below."),
        box=(r"the box around $\theta_*$ in which $u$, $v$, $w(0)$ and $w(1)$ move by at most $r = {radius}$ and "
             r"each $w(j)$, $j \ge 2$, by at most $r_w = r + g$ (Remark S3.7)")),
    simulator="",
    plot="",
    experiment="certify.numeric.staircase:twin_experiment",
    largest_default_prime=173,
    clock="t",
    derivations=("staircase-face",),
    key_numbers=(KeyNumber("window_box", None, "lo", "min", "beta - b"),
                 KeyNumber("capture_box", "race", "lo", "min", "race (S.36)"),
                 KeyNumber("capture_time_box", None, "hi", "max", "capture time"),
                 KeyNumber("purity_margin_box", None, "lo", "min", "purity margin delta"),
                 _PROBABILITY, _REGION),
)

#: Every theorem, by name, in the fixed order dead, slide, smooth, gd, sensitivity, staircase, memorise, twin,
#: twin_plus, twin_above. Consumers read
#: it when they run (not when they are imported), so a record added here is seen everywhere.
THEOREMS: dict[str, Theorem] = {theorem.name: theorem for theorem in
                                (DEAD_THEOREM, SLIDE_THEOREM, SMOOTH_THEOREM, GD_THEOREM, SENSITIVITY_THEOREM,
                                 STAIRCASE_THEOREM, MEMORISE_THEOREM, TWIN_THEOREM, TWIN_PLUS_THEOREM,
                                 TWIN_ABOVE_THEOREM)}


class RegistryView(Mapping):
    """A live read-only mapping name -> ``value(record)`` over the records of :data:`THEOREMS` for which
    ``where(record)`` holds: consumers keep their tables' shape (``name in table``, ``table[name]``) while
    the registry stays the one list (a record added to THEOREMS is in every view at once)."""

    def __init__(self, value, where=None):
        self._value, self._where = value, where or (lambda record: True)

    def _names(self):
        return [name for name, record in THEOREMS.items() if self._where(record)]

    def __contains__(self, name):
        return isinstance(name, str) and name in THEOREMS and self._where(THEOREMS[name])

    def __getitem__(self, name):
        if name not in self:
            raise KeyError(name)
        return self._value(THEOREMS[name])

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())


def swept_by_default() -> tuple[str, ...]:
    """The theorems a sweep certifies when none are named: those whose defaults hold at every prime (every record
    with no ``largest_default_prime``; twin_plus is swept when asked, and fails beyond its prime, one line each)."""
    return tuple(name for name, record in THEOREMS.items() if record.largest_default_prime is None)


def theorem(name: str) -> Theorem:
    """The record of ``name`` (KeyError if there is none)."""
    return THEOREMS[name]


def names_text(names=None) -> str:
    """'dead, slide, smooth or gd': the theorem names (default: all, in order) for help texts."""
    names = list(THEOREMS if names is None else names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
