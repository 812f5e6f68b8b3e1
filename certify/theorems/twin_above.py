"""Builder for ``certify twin_above`` (Proposition S3.4 of docs/staircase.md, section 11.12: regime II of the (1, 2)
staircase captured from above, the gate (1, 1) active and coming down with D > 0, on a box): choose X, e, t, d, E, h
and the radius; the kernel certifies.

Untrusted by design: whatever this module chooses, :mod:`certify.kernel.twin_above` proves (or refuses), and
``certify check`` recomputes. The defaults come from a search for the largest certified box mass
(examples/staircase/twin_above_search.py, which runs the kernel at 64 bits on a grid; its table is in
docs/staircase.md, section 11.13): X = 5/2 fixed, e and d at 5/2 and 11/5 times a scale r_0 that the radius
then nearly reaches, E a fit in log p, h a share of the base point's largest rate of (S.36), t (searched at 1/2)
as small as the reach of (S.36) allows with room, since the tails below the box are free (section 11.14), and g
(the w(j)'s extra move, Remark S3.7) the best of a few multiples of r_0 by the region bound.
"""

from __future__ import annotations

from flint import fmpq

from ..certificate import build_certificate
from ..errors import HypothesisError, NotCertified
from ..kernel import twin_above as kernel
from ..kernel.balls import ball, working_precision
from ..kernel.primes import require_prime
from ..kernel.staircase import widened_region_log_lower
from .radius import CertifiedInstance, certify_with_radius, largest_certifiable_radius, round_down

DEFAULT_X = fmpq(5, 2)
DEFAULT_SIGMA = fmpq(1)
DEFAULT_PRECISION = 128
#: Bits used while searching for the radius (the final certificate uses the full precision).
SEARCH_PRECISION = 64
#: e = E_SCALE r_0 and d = D_SCALE r_0: the search's best boxes have e = 2.5 r and d = 2.2 r.
E_SCALE = fmpq(5, 2)
D_SCALE = fmpq(11, 5)
#: h = RATE_SHARE h_max (:func:`default_h`): the search's choice.
RATE_SHARE = fmpq(9, 10)
#: t = T_SHARE (e + delta_c0) (:func:`default_t`): a scan of the region bound over T_SHARE (docs/staircase.md 11.14).
T_SHARE = fmpq(3, 2)
#: The candidates k of g = k r_0 (:func:`default_g`), and the bisection steps of the radius search that compares them
#: (the radius to about 3%; the certificate's own search then runs to 2^-16).
G_CANDIDATES = (0, 1, 2, 4, 8, 16)
G_REFINE = (fmpq(3, 4), fmpq(3, 2))
G_SEARCH_STEPS = 5


def default_scale(p: int) -> fmpq:
    """r_0 = 0.06 (p - 2)/p^2, rounded down to 3 digits: the search's best scale, within 0.8 decades of box mass of
    the best on its grid at p = 5 to 31 (docs/staircase.md, section 11.13)."""
    return round_down(fmpq(6 * (p - 2), 100 * p * p))


def default_e(p: int) -> fmpq:
    """The builder's e = z11 at the base point: E_SCALE r_0."""
    return E_SCALE * default_scale(p)


def default_d(p: int) -> fmpq:
    """The builder's d = D at the base point: D_SCALE r_0."""
    return D_SCALE * default_scale(p)


def default_E(p: int) -> fmpq:
    """The builder's E: 1.5 log p, rounded down to 3 digits (the search's fit)."""
    with working_precision(64):
        return round_down((3 * ball(p).log() / 2).lower().mid().fmpq())


def default_h(p: int, X: fmpq, e: fmpq, d: fmpq, E: fmpq, g: fmpq = fmpq(0)) -> fmpq:
    """The builder's h: RATE_SHARE h_max, rounded down to 3 digits, with h_max = 2 g_0 - b0 (E + g) the rate condition
    of (S.36) on the box of radius 0 (the base point with each w(j), j >= 2, within g: Remark S3.7) with delta_c = 0
    and eps = 0 (2 gamma_2 - b0 N_1: gamma_2 >= g_0 = mu_0 - 2(p - 2) g/p, mu_0 = (2E + d)/p, N_1 <= E + g, b0 that
    box's loss excess, the upper end of the kernel's ball at radius 0). HypothesisError if h_max is
    not positive (then no h satisfies (S.36): lower e or d, or raise X)."""
    try:
        params = kernel.TwinAboveParameters(p, X, e, fmpq(1), d, E, fmpq(1), fmpq(1), g)  # b0 reads neither t nor h
        with working_precision(64):
            b0 = kernel.loss_excess_upper(params, 0).upper()
            gamma = ball(params.mu0 - kernel.gamma_spread(params, 0))
            value = (RATE_SHARE * (2 * gamma - b0 * ball(E + g))).lower().mid().fmpq()
    except NotCertified as error:
        raise HypothesisError(f"no default h at p = {p}: {error} (give --h)") from None
    except ValueError:  # a ball that is not finite (inputs too large for 64 bits) has no exact midpoint
        raise HypothesisError(f"no default h at p = {p}: the rate bound 2 g_0 - b0 (E + g) at radius 0 is not a finite "
                              "number at 64 bits for these inputs (give --h)") from None
    if not value > 0:
        raise HypothesisError(f"no default h at p = {p}: the rate bound 2 g_0 - b0 (E + g) at radius 0 is not positive "
                              f"(lower e or d, or give --h)")
    return round_down(value)


def default_g(p: int, X: fmpq, e: fmpq, d: fmpq, E: fmpq, sigma: fmpq) -> fmpq:
    """The builder's g (each w(j), j >= 2, moves within r + g on the box): of g = k r_0, k in G_CANDIDATES and then
    the best k times each of G_REFINE, the one whose box (with the default h and t at that g, and its largest
    certified radius at SEARCH_PRECISION) has the largest region bound, the mass of its widened box and its translates
    (docs/staircase.md 11.13-11.15); 0 when none certifies (the
    builder then reports what fails at g = 0). The kernel decides each candidate; this only chooses among them.
    The best k grows with p where the purity margin (S.37) allows (at p = 5 it needs rho_+ < 1.07)."""
    best, best_log = fmpq(0), None

    def consider(k) -> None:
        nonlocal best, best_log
        g = k * default_scale(p)
        try:
            h = default_h(p, X, e, d, E, g)
            t = default_t(p, X, e, d, E, h, g)
            params = kernel.TwinAboveParameters(p, X, e, t, d, E, h, sigma, g)
            kernel.require_twin_above_hypotheses(params)
            radius = largest_certifiable_radius(lambda r: kernel.twin_above_box_bounds(params, r, SEARCH_PRECISION),
                                                _radius_ceiling(params), steps=G_SEARCH_STEPS)
            with working_precision(SEARCH_PRECISION):
                log_mass = widened_region_log_lower(params, radius, kernel.twin_above_copies, g).mid()
        except (HypothesisError, NotCertified):
            return
        if best_log is None or log_mass > best_log:
            best, best_log = g, log_mass

    for k in G_CANDIDATES:
        consider(k)
    coarse = best / default_scale(p)
    if coarse:  # then the best's neighbours on a finer grid
        for factor in G_REFINE:
            consider(coarse * factor)
    return best


def _radius_ceiling(params: kernel.TwinAboveParameters) -> fmpq:
    """Half the least of e, d, s, t and (X - e)/2: beyond it a pattern margin fails (the radius search's start)."""
    return min(params.e, params.d, params.s, params.t, (params.X - params.e) / 2) / 2


def default_t(p: int, X: fmpq, e: fmpq, d: fmpq, E: fmpq, h: fmpq, g: fmpq = fmpq(0)) -> fmpq:
    """The builder's t (the boundary gates' depth at the base point): T_SHARE (e + delta_c0), rounded down to 3 digits,
    with delta_c0 = sqrt(2 b0 e/h) the movement bound of (S.36) at the base point (b0 its loss excess, the upper end
    of the kernel's ball at radius 0). The reach margin of (S.36) on a box of radius r is min(s, t) - 2r - delta_c,
    and 2r < e on every certified box (the gate (1, 1) margin e - 2r), so t = T_SHARE (e + delta_c0) leaves room for
    the box while keeping the tails u(i), v(i) = -X/2 - t near 0, where the widened box of docs/staircase.md section
    11.14 is heavy. HypothesisError if the ball is not finite."""
    try:
        params = kernel.TwinAboveParameters(p, X, e, fmpq(1), d, E, h, fmpq(1), g)
        with working_precision(64):
            b0 = kernel.loss_excess_upper(params, 0).upper()
            value = (T_SHARE * (ball(e) + (2 * b0 * ball(e) / ball(h)).sqrt())).lower().mid().fmpq()
    except NotCertified as error:
        raise HypothesisError(f"no default t at p = {p}: {error} (give --t)") from None
    except ValueError:
        raise HypothesisError(f"no default t at p = {p}: the base point's movement bound is not a finite number at "
                              "64 bits for these inputs (give --t)") from None
    return round_down(value)


def certify_twin_above(p, X=None, e=None, t=None, d=None, E=None, h=None, sigma=None, g=None, radius=None,
                       prec=DEFAULT_PRECISION) -> CertifiedInstance:
    """Certificate of Proposition S3.4 (regime II of the (1, 2) staircase, captured from above with D > 0 and kept)
    on a box for the prime p (InputError, HypothesisError or NotCertified otherwise)."""
    p = require_prime(p)
    X = DEFAULT_X if X is None else fmpq(X)
    e = default_e(p) if e is None else fmpq(e)
    d = default_d(p) if d is None else fmpq(d)
    E = default_E(p) if E is None else fmpq(E)
    sigma = DEFAULT_SIGMA if sigma is None else fmpq(sigma)
    # g is searched with the default h and t; with a given h or t the box is the sup-norm one unless g is given
    g = fmpq(g) if g is not None else default_g(p, X, e, d, E, sigma) if h is None and t is None else fmpq(0)
    # the default h and t are formulas in the other inputs: check them first (with stand-ins t = h = 1)
    kernel.require_twin_above_inputs(kernel.TwinAboveParameters(
        p, X, e, fmpq(1) if t is None else fmpq(t), d, E, fmpq(1) if h is None else fmpq(h), sigma, g))
    h = default_h(p, X, e, d, E, g) if h is None else fmpq(h)
    t = default_t(p, X, e, d, E, h, g) if t is None else fmpq(t)
    params = kernel.TwinAboveParameters(p, X, e, t, d, E, fmpq(h), sigma, g)
    kernel.require_twin_above_hypotheses(params)

    def box(radius):
        kernel.twin_above_box_bounds(params, radius, SEARCH_PRECISION)

    radius, claims = certify_with_radius(lambda r: kernel.twin_above_claims(params, r, prec), radius,
                                         lambda: largest_certifiable_radius(box, _radius_ceiling(params)))
    certificate = build_certificate(
        theorem="twin_above", paper=kernel.PAPER, p=p,
        parameters={"X": params.X, "e": params.e, "t": params.t, "d": params.d, "E": params.E, "h": params.h,
                    "sigma": params.sigma, "g": params.g},
        base_point=kernel.twin_above_base_point(params), radius=radius, precision_bits=prec, claims=claims)
    return CertifiedInstance(certificate, params, radius)
