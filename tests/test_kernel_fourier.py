"""certify.kernel.fourier: the exact two-level fraction 2/(p-1) and the purity-gap lemma."""

import random
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq

from certify.errors import NotCertified
from certify.kernel.balls import ball, lower_endpoint, upper_endpoint, working_precision
from certify.kernel.fourier import PerturbedBlock, purity_gap_lower, two_level_fourier_fraction
from oracles import centred, class_energy_cyclotomic
from tolerances import fourier_fraction_tolerance, relative_rounding


@pytest.mark.parametrize("p", [5, 7, 13, 101])
def test_two_level_fraction_is_two_over_p_minus_one(p):
    assert two_level_fourier_fraction(p, [fmpq(1), fmpq(4), fmpq(7, 3)]) == fmpq(2, p - 1)


@pytest.mark.parametrize("p", [5, 7, 13, 31])
def test_point_mass_class_energy_exactly_two_over_p(p):
    """Second route, exact: ||Pi_zeta q||^2 = 2/p and ||q||^2 = (p-1)/p in Q(exp(2 pi i/p))."""
    q = centred([1] + [0] * (p - 1))
    assert sum(v * v for v in q) == Fraction(p - 1, p)
    for zeta in range(1, (p - 1) // 2 + 1):
        energy = class_energy_cyclotomic(q, p, zeta)
        assert energy[0] == Fraction(2, p) and not any(energy[1:])


def test_cyclotomic_oracle_can_see_irrational_energy():
    """The oracle is not constant: a non-two-level vector has an irrational class energy."""
    energy = class_energy_cyclotomic(centred([1, 2, 0, 0, 0]), 5, 1)
    assert any(energy[1:])


def test_two_level_fraction_needs_energy():
    with pytest.raises(NotCertified):
        two_level_fourier_fraction(5, [fmpq(0), fmpq(0), fmpq(0)])


def fractions_numpy(blocks):
    p = len(blocks[0])
    energies = np.zeros((p - 1) // 2)
    total = 0.0
    for x in blocks:
        x0 = x - x.mean()
        spectrum = np.abs(np.fft.fft(x0)) ** 2 / p
        energies += spectrum[1:(p - 1) // 2 + 1] + spectrum[p - 1:(p - 1) // 2:-1]
        total += x0 @ x0
    return energies / total


@pytest.mark.parametrize("p", [5, 7, 13])
def test_purity_gap_holds_for_random_perturbations(p):
    rng = random.Random(p)
    checked = 0
    for _ in range(300):
        blocks, described = [], []
        for _ in range(3):
            beta, c = rng.uniform(-3, 3), rng.choice([-1, 1]) * rng.uniform(0.2, 3)
            e = np.array([rng.uniform(-1, 1) for _ in range(p)])
            e *= rng.uniform(0, 0.6) * abs(c) / np.linalg.norm(e)
            x = beta + e
            x[0] += c
            blocks.append(x)
            E = Fraction(float(np.linalg.norm(e))) * Fraction(1001, 1000)  # a valid upper bound on ||e||_2
            c_abs = Fraction(abs(c))
            described.append(PerturbedBlock(ball(fmpq(c_abs.numerator, c_abs.denominator)),
                                            ball(fmpq(c_abs.numerator, c_abs.denominator)),
                                            ball(fmpq(E.numerator, E.denominator))))
        with working_precision(64):
            bound = float(lower_endpoint(purity_gap_lower(p, described)))
        actual = 1 - fractions_numpy(blocks).max()
        # the float fractions' rounding (the same FFT route as certify.numeric.fourier), the
        # subtraction from 1, and the certified bound's rounding to a double
        tol = fourier_fraction_tolerance(*blocks) + relative_rounding(2)
        assert bound <= actual + tol
        checked += bound > 0
    assert checked > 50  # the bound is informative, not vacuous, on most draws


def test_purity_gap_at_exact_two_level_point():
    """No perturbation: the bound is exactly 1 - 2/(p-1) = (p-3)/(p-1)."""
    for p in (5, 7, 13):
        block = PerturbedBlock(ball(1), ball(1), ball(0))
        with working_precision(128):
            gap = purity_gap_lower(p, [block, block, block])
        assert lower_endpoint(gap) <= fmpq(p - 3, p - 1) <= upper_endpoint(gap)


def test_purity_gap_is_zero_for_p_three():
    """Remark 1.6: for p = 3 one class holds everything; the lemma gives no gap."""
    block = PerturbedBlock(ball(1), ball(1), ball(0))
    assert purity_gap_lower(3, [block]).is_zero()
