"""The trusted kernel: exact numbers, balls, and the theorems' obligations.

Imports only python-flint and the standard library (no numpy, scipy or sympy),
so that the checker built on it stays small and quick to start.
"""

from .balls import ball, certainly_le, certainly_lt, certainly_negative, certainly_positive, working_precision
from .claims import Claim
from .exact import ExactNumber, format_decimal, format_rational, parse_exact, parse_rational
from .primes import require_prime

__all__ = [
    "ball", "certainly_le", "certainly_lt", "certainly_negative", "certainly_positive", "working_precision",
    "Claim", "ExactNumber", "format_decimal", "format_rational", "parse_exact", "parse_rational",
    "require_prime",
]
