"""certify.coq.primes: Pocklington certificates that Coqprime checks. The oracle is Coq itself: every
certificate written is compiled, and tampered ones (a composite N, a witness that is no primitive
root, a missing factor) must be rejected by coqc, not by our code."""

import pytest
from flint import fmpz

from certify.coq.compile import compile_file
from certify.coq.primes import primality_lemma

HEADER = ("From Coq Require Import ZArith Znumtheory List.\nFrom Coqprime Require Import PocklingtonCertificat.\n"
          "Local Open Scope positive_scope.\n")
PRIMES = (3, 5, 7, 11, 13, 97, 101, 65537, 1000003, 2**61 - 1, 10**18 + 3)


def _compile(tmp_path, body, name="primes"):
    path = tmp_path / f"{name}.v"
    path.write_text(HEADER + body)
    return compile_file(path, timeout=300)


def test_every_certificate_is_accepted_by_coq(tmp_path):
    body = "".join(primality_lemma(p, f"prime_{i}") for i, p in enumerate(PRIMES))
    result = _compile(tmp_path, body)
    assert result.ok, result.message


def test_the_lemma_states_primality_of_exactly_p():
    for p in PRIMES:
        assert f"Lemma p_is_prime : prime {p}.\n" in primality_lemma(p)


@pytest.mark.parametrize("n", [0, 1, 2, 4, 9, 91, 561, 2**61 + 1, 10**18 + 1])
def test_non_primes_and_two_are_refused(n):
    assert n == 2 or not fmpz(n).is_prime()
    with pytest.raises(ValueError):
        primality_lemma(n)


def test_coq_rejects_tampered_certificates(tmp_path):
    honest = primality_lemma(13)
    assert "Pock_certif 13 2 ((3, 1) :: (2, 2) :: nil) 1" in honest  # 2 is a primitive root mod 13
    tampered = {
        # 15 = 3 * 5 with the chain of 13: Coq must find the certificate false
        "composite": honest.replace("prime 13", "prime 15").replace("Pock_certif 13", "Pock_certif 15"),
        # 3 has order 3 mod 13: 3^((13-1)/3) = 1, so it is no Pocklington witness
        "witness": honest.replace("Pock_certif 13 2", "Pock_certif 13 3"),
        # 12 = 3 * 2^2 claimed as 3 * 2: the product of the stated factors is no longer 13 - 1
        "factor": honest.replace("((3, 1) :: (2, 2) :: nil)", "((3, 1) :: (2, 1) :: nil)"),
    }
    for name, text in tampered.items():
        assert text != honest, name
        result = _compile(tmp_path, text, f"tampered_{name}")
        assert not result.ok, name
