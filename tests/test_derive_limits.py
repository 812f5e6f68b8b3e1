"""`certify derive` on large p: every per-prime derivation declares the largest p it builds in
practical time, is refused above it (one line naming the limit, exit 2, before any derivation
work is started), and does build at the limit itself."""

import time

import pytest

from certify.errors import InputError
from certify.kernel.primes import require_prime
from certify.symbolic import DERIVATIONS, LARGEST_PRIME, PrimeTooLarge, derivation
from conftest import run_certify

PER_PRIME = sorted(name for name, entry in DERIVATIONS.items() if entry.per_prime)
SYMBOLIC = sorted(name for name, entry in DERIVATIONS.items() if not entry.per_prime)


def next_prime(n: int) -> int:
    n += 1
    while True:
        try:
            return require_prime(n)
        except InputError:
            n += 1


def test_every_per_prime_derivation_declares_a_prime_limit():
    assert PER_PRIME and SYMBOLIC  # both kinds exist, so the tests below are about something
    for name in PER_PRIME:
        entry = DERIVATIONS[name]
        assert require_prime(entry.largest_prime) == entry.largest_prime, name
        assert 5 <= entry.default_prime <= entry.largest_prime, name
        # the documents' own (smaller) budget never asks for more than the derivation allows
        assert LARGEST_PRIME.get(name, entry.largest_prime) <= entry.largest_prime, name
    assert all(DERIVATIONS[name].largest_prime is None for name in SYMBOLIC)


@pytest.mark.parametrize("name", PER_PRIME)
def test_above_the_limit_is_one_line_exit_2_at_once(name):
    limit = DERIVATIONS[name].largest_prime
    for p in (next_prime(limit), 101 if limit < 101 else 1009, 10**30 + 57):
        started = time.monotonic()
        result = run_certify("derive", name, "--p", p, timeout=60)
        elapsed = time.monotonic() - started
        assert result.returncode == 2, (name, p, result.stderr)
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
        assert f"p = {p}" in lines[0] and f"is {limit}" in lines[0] and f"--p {limit}" in lines[0], lines[0]
        # refused before the derivation is built: the time of starting the interpreter and importing sympy
        assert elapsed < 10, (name, p, elapsed)


def test_the_library_refuses_too():
    for name in PER_PRIME:
        entry = DERIVATIONS[name]
        with pytest.raises(PrimeTooLarge, match=f"is {entry.largest_prime}"):
            derivation(name, next_prime(entry.largest_prime))
        assert issubclass(PrimeTooLarge, InputError)


def test_the_list_shows_each_limit():
    result = run_certify("derive", "--list")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()}
    for name in PER_PRIME:
        assert f"p <= {DERIVATIONS[name].largest_prime})" in rows[name], rows[name]
    for name in SYMBOLIC:
        assert "symbolic p" in rows[name] and "p <=" not in rows[name]


def test_below_the_limit_a_non_prime_is_still_refused_as_not_prime():
    result = run_certify("derive", "flow-full", "--p", 6)
    assert result.returncode == 2 and "not prime" in result.stderr and len(result.stderr.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", PER_PRIME)
def test_at_the_limit_the_derivation_builds_and_holds(name):
    """The declared limit is usable: at p = largest_prime the command prints the derivation and
    every comparison holds (exit 0).  Measured at most ~4 s each on the 2-core machine; the
    bound here only catches a limit raised to where it takes minutes."""
    limit = DERIVATIONS[name].largest_prime
    started = time.monotonic()
    result = run_certify("derive", name, "--p", limit, timeout=300)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert f"p = {limit}" in result.stdout
    assert elapsed < 60, (name, elapsed)


@pytest.mark.parametrize("name", ["sliding-limits", "hitting-time"])
def test_symbolic_derivations_take_any_prime(name):
    # specialising a symbolic-p derivation is cheap at any p the kernel accepts
    result = run_certify("derive", name, "--p", 999999999999999989, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "999999999999999989" in result.stdout
