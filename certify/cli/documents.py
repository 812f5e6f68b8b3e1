"""``certify derive``, ``certify latex`` and ``certify proofs``: derivations, documents, the proof library."""

from __future__ import annotations

import sys

from ..errors import InputError
from ..theorems.registry import THEOREMS, names_text
from .common import _path_arg, EXIT_OK, EXIT_REJECTED, RAW, add_p_option, read_verified_certificate
from .theorems import add_instance_options, certificate_for

DERIVE_HELP = """\
Show how the paper's equations follow from its definitions (the loss (1.1),
the gate, the softmax, the recentering (1.2), the projections (1.3)): each
step with its one-line reason, then each derived equation beside the paper's
printed form, checked by sympy. Some derivations are for symbolic p (--p then
specialises them), some need a prime (the full 3p-variable loss, exact
arithmetic in Q(e^(2 pi i/p))); those default to a small prime and refuse a
prime above the largest they build in a few seconds (--list shows it)."""

LATEX_HELP = """\
Write a standalone LaTeX document for a theorem instance: the statement for
this p, every claim of the certificate with its certified digits and equation
references, and the derivations it rests on; compile it to PDF when pdflatex is
installed. Either name a theorem and a prime (the certificate is computed now
with the default parameters) or give --certificate FILE."""

PROOFS_HELP = """\
Regenerate the proof library: for the reference primes 5, 7, 11, 13, 17, 19,
23, 29, 31, 97, 101, the certificate of every theorem (gd at eta = 1; twin_plus
up to p = 31, where its defaults hold), checked before it is written, its LaTeX document and its Coq re-proof THEOREM_P.v (see
certify coq --help), under DIR/THEOREM/. --coqc also compiles every Coq file."""


def add_parsers(commands) -> None:
    derive = commands.add_parser("derive", help="show a symbolic derivation of the paper's equations",
                                 description=DERIVE_HELP, formatter_class=RAW)
    derive.add_argument("name", nargs="?", metavar="NAME", help="a derivation (see --list)")
    derive.add_argument("--list", action="store_true", help="list every derivation with its equation numbers")
    add_p_option(derive, help="the prime: the setting of a per-prime derivation (at most its limit, see --list), "
                 "a specialisation otherwise")
    derive.add_argument("--latex", action="store_true", help="print LaTeX instead of text (a fragment)")
    derive.add_argument("--standalone", action="store_true",
                        help="with --latex: a standalone LaTeX document that pdflatex compiles")

    latex = commands.add_parser("latex", help="write a theorem instance as a LaTeX document (and PDF)",
                                description=LATEX_HELP, formatter_class=RAW)
    latex.add_argument("theorem", nargs="?", choices=sorted(THEOREMS), metavar="THEOREM",
                       help=f"{names_text()} (certified now, default parameters)")
    add_p_option(latex, help="the prime (with THEOREM)")
    add_instance_options(latex, "with")
    latex.add_argument("--certificate", metavar="FILE", help="render this certificate instead (it is checked first)")
    latex.add_argument("--out", required=True, type=_path_arg, metavar="DIR", help="folder for THEOREM-P.tex and .pdf")
    latex.add_argument("--no-pdf", action="store_true", help="do not run pdflatex even if it is installed")

    proofs = commands.add_parser("proofs", help="regenerate the proof library (proofs/)",
                                 description=PROOFS_HELP, formatter_class=RAW)
    proofs.add_argument("--out", default="proofs", type=_path_arg, metavar="DIR", help="the library's folder (default proofs)")
    proofs.add_argument("--pdf", action="store_true", help="also compile every document with pdflatex")
    proofs.add_argument("--coqc", action="store_true", help="also compile every Coq file with coqc (reports times)")


def run_derive(args) -> int:
    from ..symbolic import DERIVATIONS, derivation

    if args.standalone and not args.latex:
        raise InputError("--standalone needs --latex")
    if args.list:
        width = max(len(name) for name in DERIVATIONS)
        for name, entry in DERIVATIONS.items():
            scope = (f"per prime (default {entry.default_prime}, p <= {entry.largest_prime})" if entry.per_prime
                     else "symbolic p")
            print(f"{name:<{width}}  {', '.join(entry.equations):<40}  {scope}: {entry.summary}")
        return EXIT_OK
    if args.name is None:
        raise InputError("name a derivation or use --list")
    if args.name not in DERIVATIONS:
        raise InputError(f"unknown derivation {args.name!r}; 'certify derive --list' lists them")
    if args.p is not None:
        from ..kernel.primes import require_prime
        from ..symbolic import require_practical_prime

        require_practical_prime(args.name, args.p)  # before building anything, and before proving p prime
        require_prime(args.p)
    built = derivation(args.name, args.p)
    from ..render.derivations import derivation_document, derivation_latex, derivation_text

    if args.standalone:
        sys.stdout.write(derivation_document(built))
    else:
        sys.stdout.write(derivation_latex(built) if args.latex else derivation_text(built))
    return EXIT_OK if built.holds() else EXIT_REJECTED


def run_latex(args) -> int:
    """Render a theorem instance computed now, or a certificate file: that file is read once (regular
    files only, capped), those bytes are checked, and the same bytes are parsed and rendered. Says
    ``replaced FILE`` on stderr for a .tex or .pdf that was there (and which older PDF was removed)."""
    from pathlib import Path

    from ..render.document import document_name, write_document

    if (args.theorem is None) == (args.certificate is None):
        raise InputError("give either THEOREM (with -p/--p) or --certificate FILE")
    if args.certificate is not None:
        certificate = read_verified_certificate(args.certificate, "render")
    else:
        if args.p is None:
            raise InputError("-p/--p is required with THEOREM")
        certificate = certificate_for(args)
    tex = Path(args.out) / f"{document_name(certificate)}.tex"
    there = {path for path in (tex, tex.with_suffix(".pdf")) if path.is_file()}
    before = _identity(tex)
    try:
        written = write_document(certificate, args.out, pdf=not args.no_pdf)
    except InputError:
        # pdflatex failed after the .tex was written and the older PDF removed: say so before the error
        if tex in there and _identity(tex) != before:
            print(f"replaced {tex}", file=sys.stderr)
        if tex.with_suffix(".pdf") in there and not tex.with_suffix(".pdf").exists():
            print(f"removed {tex.with_suffix('.pdf')} (it showed the replaced .tex)", file=sys.stderr)
        raise
    for path in written:
        if path in there:
            print(f"replaced {path}", file=sys.stderr)
        print(path)
    for path in there - set(written):
        print(f"removed {path} (it showed the replaced .tex)", file=sys.stderr)
    return EXIT_OK


def _identity(path) -> tuple | None:
    """(inode, modification time) of the file at ``path``, None if there is none: an atomic replacement
    changes the inode, so a file that was replaced is told from one left alone."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns


def run_proofs(args) -> int:
    from ..proofs import build_proofs

    written = build_proofs(args.out, pdf=args.pdf, coqc=args.coqc, progress=lambda line: print(line, file=sys.stderr))
    print(f"wrote {len(written)} files under {args.out}")
    return EXIT_OK
