"""certify.kernel.primes: a proved prime p >= 5, or a reason."""

import pytest

from certify.errors import InputError
from certify.kernel.primes import MAX_P, require_prime


@pytest.mark.parametrize("p", [5, 7, 13, 101, 1000003, 999999999999999989])
def test_accepts_primes(p):
    assert require_prime(p) == p


@pytest.mark.parametrize("p, words", [
    (2, "Remark 1.6"), (3, "Remark 1.6"), (4, "not a prime >= 5"), (1, "not a prime >= 5"),
    (0, "not a prime >= 5"), (-7, "not a prime >= 5"), (9, "not prime (3 x 3)"), (91, "7 x 13"),
    (1000001, "101 x 9901"), (10**30, "maximum"), (MAX_P + 1, "maximum"),
])
def test_rejects_with_a_reason(p, words):
    with pytest.raises(InputError, match=None) as info:
        require_prime(p)
    assert words in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("bad", ["13", 13.0, True, None])
def test_rejects_non_integers(bad):
    with pytest.raises(InputError):
        require_prime(bad)


def test_large_composite_without_small_factor():
    with pytest.raises(InputError, match="not prime"):
        require_prime(1000003 * 1000033)
