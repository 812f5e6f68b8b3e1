"""The ``certify`` command line: parse arguments, call the library, print. No mathematics here.

Exit codes: 0 success / verified, 1 a certificate was rejected, 2 bad input,
usage or a malformed certificate. Every expected failure is one line on stderr.
``certify`` without arguments prints the help on stdout and exits 2, as a usage error (git prints
its usage and exits 1, which here means "rejected"): nothing was done, so a script must not go on.
Options are never abbreviated (``--eps`` is not ``--epsilon``); an argument no option takes is named,
with the nearest option (``unknown option --prime (did you mean --p?)``).

One module per command group: :mod:`.theorems` (``certify THEOREM``, one subcommand per record of
:data:`certify.theorems.registry.THEOREMS`), :mod:`.check`, :mod:`.documents` (derive, latex,
proofs), :mod:`.coq` (coq), :mod:`.simulate` (simulate, plot, sweep) and :mod:`.law` (law, plot law);
:mod:`.common` holds what they share.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from ..errors import CertifyError, NotCertified
from ..theorems.registry import THEOREMS
from . import check, coq, documents, law, simulate, theorems
from .common import EXIT_OK, EXIT_REJECTED, EXIT_USAGE, MAX_PRECISION, _out_error, _Parser

__all__ = ["EXIT_OK", "EXIT_REJECTED", "EXIT_USAGE", "MAX_PRECISION", "build_parser", "main"]

DESCRIPTION = """\
Rigorous, machine-checked instances of the theorems of "A Counterexample to
Fourier Alignment in Single-Neuron Modular Addition" for a prime p you name.
Every bound in a certificate is an exact number obtained with Arb ball
arithmetic; `certify check` recomputes every claim independently.

`certify` alone prints this help and exits 2 (a usage error: nothing was done).
An output file that exists is replaced (atomically, never by one that failed
to verify) and `replaced FILE` is said on stderr."""


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command; the theorem subcommands are made from the registry when this runs."""
    parser = _Parser(prog="certify", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"certify {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    theorems.add_parsers(commands)
    check.add_parsers(commands)
    simulate.add_parsers(commands)
    law.add_parsers(commands)
    documents.add_parsers(commands)
    coq.add_parsers(commands)
    return parser


def _commands() -> dict:
    return {**{name: theorems.run_theorem for name in THEOREMS}, "check": check.run_check,
            "derive": documents.run_derive, "latex": documents.run_latex, "proofs": documents.run_proofs,
            "sweep": simulate.run_sweep, "simulate": simulate.run_simulate, "plot": simulate.run_plot,
            "coq": coq.run_coq, "law": law.run_law}


def main(argv=None) -> int:
    """Entry point of the ``certify`` console script; returns the exit code (no arguments: the help, exit 2)."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        parser.print_help(sys.stdout)
        return EXIT_USAGE
    args = parser.parse_args(argv)
    try:
        return _commands()[args.command](args)
    except NotCertified as exc:
        print(f"certify {args.command}: not certified: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CertifyError as exc:
        print(f"certify {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `certify derive --list | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:  # an output that cannot be written (a missing folder, a file as a folder, read-only)
        print(f"certify {args.command}: error: {_out_error(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("certify: interrupted", file=sys.stderr)
        return 130
