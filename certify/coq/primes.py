"""A Pocklington certificate of p's primality, checked by Coqprime by computation.

For a prime N > 2 with N - 1 = prod q_i^k_i fully factored and a primitive root a mod N,
Coqprime's ``Pock_certif N a [(q_i, k_i)] 1`` is accepted by ``test_pock`` (F1 = N - 1, R1 = 1,
so its square-root test is vacuous) provided each q_i is itself certified later in the list;
``Pocklington_refl`` turns ``test_Certif (c :: lc) = true``, decided by ``vm_compute``, into
``prime N`` (Znumtheory's ``prime``). 2 is certified by Znumtheory's ``prime_2``.
The search below is untrusted: Coq re-checks every certificate it writes.
"""

from __future__ import annotations

from functools import lru_cache

from flint import fmpz


def _factor(n: int) -> list[tuple[int, int]]:
    """The prime factorisation of n >= 1 (FLINT's), primes in decreasing order."""
    return sorted(((int(q), int(k)) for q, k in fmpz(n).factor()), reverse=True)


def _primitive_root(n: int, factors) -> int:
    for a in range(2, n):
        if all(pow(a, (n - 1) // q, n) != 1 for q, _ in factors):
            return a
    raise ValueError(f"{n} has no primitive root: not prime")


@lru_cache(maxsize=None)
def _chain(n: int) -> tuple[str, ...]:
    """Certificates of n and of every prime its certificate needs, each before those it needs."""
    if n == 2:
        return ("Proof_certif 2 Znumtheory.prime_2",)
    factors = _factor(n - 1)
    a = _primitive_root(n, factors)
    decomposition = "".join(f"({q}, {k}) :: " for q, k in factors) + "nil"
    needed: list[str] = []
    for q in sorted({q for q, _ in factors}, reverse=True):
        for line in _chain(q):
            if line not in needed:
                needed.append(line)
    # each certificate's factors must appear after it: decreasing primes does that (q | N - 1 => q < N)
    needed.sort(key=lambda line: -int(line.split()[1]))
    return (f"Pock_certif {n} {a} ({decomposition}) 1", *needed)


def primality_lemma(p: int, name: str = "p_is_prime") -> str:
    """The Coq text of ``Lemma name : prime p`` with its Pocklington proof (requires p prime, p > 2)."""
    if p < 3 or not fmpz(p).is_prime():
        raise ValueError(f"{p} is not an odd prime")
    head, *rest = _chain(p)
    tail = "".join(f"\n     ({line}) ::" for line in rest)
    return (f"Lemma {name} : prime {p}.\nProof.\n"
            f"  apply (Pocklington_refl\n    ({head})\n    ({tail.lstrip()} nil)).\n"
            "  vm_cast_no_check (eq_refl true).\nQed.\n")
