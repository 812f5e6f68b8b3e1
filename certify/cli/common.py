"""What every command group shares: exit codes, the one-line argparse, argument types, writing output."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2

#: The largest --prec: certify/1 allows 512 bits, so that checking a certificate stays quick (the checker
#: recomputes at the stated precision plus 64 bits, and nobody can make it integrate at 8192 bits).
MAX_PRECISION = 512

RAW = argparse.RawDescriptionHelpFormatter


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line and exits 2."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _exact_arg(text: str):
    from ..kernel.exact import parse_rational

    try:  # a person may type any spelling (1/2, 0.50); certificates are written canonically
        return parse_rational(text, "the value", canonical=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _prime_arg(text: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"p must be an integer, got {text!r}") from None


def _jobs_arg(text: str) -> int:
    try:
        jobs = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"jobs must be a whole number, got {text!r}") from None
    if not 1 <= jobs <= 256:
        raise argparse.ArgumentTypeError(f"jobs must be between 1 and 256, got {jobs}")
    return jobs


def _precision_arg(text: str) -> int:
    try:
        bits = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"precision must be an integer number of bits, got {text!r}") from None
    if not 64 <= bits <= MAX_PRECISION:
        raise argparse.ArgumentTypeError(f"precision must be between 64 and {MAX_PRECISION} bits, got {bits}")
    return bits


def _write(text: str, out: str | None) -> None:
    """Write ``text`` to the file ``out``; None or ``-`` is standard output. InputError if it cannot."""
    if out is None or out == "-":
        sys.stdout.write(text)
        return
    try:
        with open(out, "w", encoding="ascii", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise InputError(f"cannot write {out}: {exc.strerror or exc}") from None


def _out_error(exc: OSError) -> str:
    """One line for an output that could not be written (a missing folder, a file as a folder, no permission)."""
    where = exc.filename if exc.filename is not None else "the output"
    return f"cannot write {where}: {exc.strerror or exc}"


def add_p_option(command, **kwargs) -> None:
    """The prime option, ``-p`` or ``--p``."""
    command.add_argument("-p", "--p", dest="p", type=_prime_arg, metavar="P", **kwargs)
