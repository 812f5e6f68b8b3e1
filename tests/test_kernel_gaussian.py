"""certify.kernel.gaussian: box mass against mpmath quadrature of the density (50 digits)."""

from fractions import Fraction

import mpmath
import pytest
from flint import fmpq

from certify.errors import NotCertified
from certify.kernel.balls import working_precision
from certify.kernel.gaussian import box_log_mass, coordinate_log_mass, coordinate_mass
from oracles import gaussian_coordinate_mass

CASES = [(0, Fraction(1, 4)), (Fraction(1, 2), Fraction(1, 4)), (-1, Fraction(3, 10)), (Fraction(1, 5), 1),
         (-2, Fraction(1, 100)), (40, 1), (-37, Fraction(1, 2)), (Fraction(1, 3), Fraction(1, 3)),
         (12, Fraction(1, 1000))]


def as_fmpq(value) -> fmpq:
    value = Fraction(value)
    return fmpq(value.numerator, value.denominator)


def contains(x, value) -> bool:
    # The ball's midpoint printed to 60 digits and its radius to 10 (so the radius is read to
    # ~1e-9 relative: 1e-8 of it allowed), and the reference, mpmath quadrature at 50 + 10 digits,
    # trusted to 45 digits relative.
    mid = mpmath.mpf(x.mid().str(60, radius=False, more=True))
    rad = mpmath.mpf(x.rad().str(10, radius=False, more=True))
    return abs(mid - value) <= rad * (1 + mpmath.mpf(10) ** -8) + abs(value) * mpmath.mpf(10) ** -45


@pytest.mark.parametrize("m, r", CASES)
def test_coordinate_mass_contains_quadrature(m, r):
    with working_precision(192):
        x = coordinate_mass(as_fmpq(m), as_fmpq(r))
    with mpmath.workdps(60):
        expected = gaussian_coordinate_mass(Fraction(m), Fraction(r))
        assert expected > 0
        assert contains(x, expected)
        assert x.rel_accuracy_bits() > 100  # far tails keep relative accuracy (erfc form)


@pytest.mark.parametrize("m, r", [(500001, Fraction(1, 10)), (-1500003, Fraction(3, 10)), (Fraction(10**7, 3), 2)])
def test_log_mass_far_beyond_erfc(m, r):
    """Centres like X = 500001 (slide, p = 10^6): Arb's erfc of an inexact argument that large
    returns [+/- ...]; the log-mass through U(1/2, 1/2, z) keeps full relative accuracy."""
    with working_precision(128):
        x = coordinate_log_mass(as_fmpq(m), as_fmpq(r))
    assert x.rel_accuracy_bits() > 100
    with mpmath.workdps(60):
        assert contains(x, mpmath.log(gaussian_coordinate_mass(Fraction(m), Fraction(r))))


def test_box_log_mass_is_the_sum_of_logs():
    centres = [(fmpq(1, 2), 2), (fmpq(-1), 24), (fmpq(-2), 1), (fmpq(0), 12)]
    r = fmpq(6, 25)
    with working_precision(192):
        total = box_log_mass(centres, r)
    with mpmath.workdps(60):
        expected = sum(k * mpmath.log(gaussian_coordinate_mass(Fraction(int(m.p), int(m.q)), Fraction(6, 25)))
                       for m, k in centres)
        assert contains(total, expected)


def test_box_log_mass_far_tail_for_huge_multiplicity():
    """A million coordinates in the tail: log-mass stays finite and accurate (O(1) work)."""
    with working_precision(128):
        total = box_log_mass([(fmpq(-1), 2 * 10**6), (fmpq(30), 1)], fmpq(1, 1000))
    assert total.is_finite() and total.rel_accuracy_bits() > 90 and total < -10**6


def test_radius_must_be_positive():
    with pytest.raises(NotCertified):
        coordinate_mass(fmpq(0), fmpq(0))


@pytest.mark.parametrize("m, r", [(1, Fraction(1, 10**30)), (Fraction(1, 2), Fraction(1, 10**40)), (0, Fraction(1, 10**35))])
def test_tiny_boxes_keep_their_accuracy(m, r):
    """For r = 1e-30 the difference erfc(a) - erfc(b) cancels completely at 128 bits; the mean-value
    enclosure 2r phi([m - r, m + r]) keeps the mass to the last bits (gd at p near 10^18 needs it)."""
    with working_precision(128):
        total = box_log_mass([(as_fmpq(m), 1)], as_fmpq(r))
    assert total.rel_accuracy_bits() > 100
    with mpmath.workdps(60):  # the oracle needs ~40 digits just to see an interval 1e-40 wide
        assert contains(total, mpmath.log(gaussian_coordinate_mass(Fraction(m), Fraction(r), dps=120)))


def test_astronomical_log_mass_keeps_absolute_accuracy():
    """slide at p near 10^18: log P ~ -2e54; its absolute error must stay below 1 so exp(log P) is usable."""
    with working_precision(128):
        total = box_log_mass([(fmpq(-3 * 5 * 10**17), 2 * 10**18), (fmpq(10**19), 1)], fmpq(1, 2))
    assert total.rad() < 1 and total.is_finite()


@pytest.mark.parametrize("sigma", [Fraction(1, 3), Fraction(5, 2), 7])
def test_box_log_mass_under_a_scale_sigma(sigma):
    """Under N(0, sigma^2 I) the box mass is the integral of the N(0, sigma^2) density over [m - r, m + r]:
    the oracle integrates that density directly (mpmath, 50 digits), without standardising."""
    centres = [(fmpq(1, 2), 2), (fmpq(-1), 3), (fmpq(0), 1)]
    r = fmpq(3, 10)
    with working_precision(192):
        total = box_log_mass(centres, r, as_fmpq(sigma))
    with mpmath.workdps(60):
        s = mpmath.mpf(Fraction(sigma).numerator) / Fraction(sigma).denominator
        density = lambda t: mpmath.exp(-t * t / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))
        half_width = mpmath.mpf(3) / 10
        expected = sum(k * mpmath.log(mpmath.quad(density, mpmath.linspace(mpmath.mpf(int(m.p)) / int(m.q) - half_width,
                                                                             mpmath.mpf(int(m.p)) / int(m.q) + half_width,
                                                                             33)))
                       for m, k in centres)
        assert contains(total, expected)


def test_sigma_must_be_positive():
    from certify.errors import HypothesisError
    from certify.kernel.gaussian import require_positive_sigma

    for sigma in (fmpq(0), fmpq(-1, 2)):
        with pytest.raises(HypothesisError, match="sigma > 0"):
            require_positive_sigma(sigma)
        with pytest.raises(NotCertified):
            box_log_mass([(fmpq(0), 1)], fmpq(1, 4), sigma)
    require_positive_sigma(fmpq(1, 10**30))
