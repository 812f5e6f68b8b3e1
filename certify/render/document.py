"""Writing a certificate's LaTeX document (and its PDF when pdflatex is on the PATH)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..errors import InputError
from .latex import THEOREMS, RenderError, certificate_document

#: Seconds pdflatex may take for one document.
PDFLATEX_TIMEOUT = 120


def document_for(certificate: dict) -> str:
    """The LaTeX source for a certificate, with the derivations its theorem rests on (imports sympy).

    RenderError (one line) for a certificate that names no known theorem or no integer p."""
    from ..symbolic import derivations_for

    if not isinstance(certificate, dict) or certificate.get("theorem") not in THEOREMS \
            or type(certificate.get("p")) is not int:
        raise RenderError("the certificate names no theorem this renderer knows, or no integer p")

    return certificate_document(certificate, derivations_for(certificate["theorem"], certificate["p"]))


#: Longest eta spelling put into a file name as it is; a longer one is named by a digest of it.
MAX_ETA_NAME = 60


def document_name(certificate: dict) -> str:
    """The file stem of a certificate's document: ``THEOREM-P``, and for gd ``gd-P-eta-ETA`` unless eta is 1.

    The proof library (certify.proofs) instantiates gd at its reference step size
    REFERENCE_ETA = 1 and keeps ``gd/gd-P.tex`` beside ``gd-P.json``; that instance keeps
    that name, so ``write_document`` regenerates the library's files.  Any other eta is
    part of the name, so that two step sizes never overwrite each other's document: its
    certificate spelling (canonical: ``0.1``, ``1/3``, ``1e-30``) with ``/`` written ``_``
    (``gd-13-eta-0.1``, ``gd-13-eta-1_3``); a spelling longer than MAX_ETA_NAME
    characters, or with a character other than digits, ``.``, ``e``, ``-``, ``+`` and
    ``/``, is replaced by ``h`` and 16 hex digits of its SHA-256, distinct etas keeping
    distinct names.  RenderError for a gd certificate without a readable eta.
    """
    import hashlib
    import re
    from fractions import Fraction

    stem = f"{certificate['theorem']}-{certificate['p']}"
    if certificate["theorem"] != "gd":
        return stem
    from ..proofs import REFERENCE_ETA

    eta = (certificate.get("parameters") or {}).get("eta")
    try:
        value = Fraction(eta)
    except (TypeError, ValueError, ZeroDivisionError):
        raise RenderError("the gd certificate has no readable parameter eta") from None
    if value == Fraction(int(REFERENCE_ETA.p), int(REFERENCE_ETA.q)):
        return stem
    if len(eta) <= MAX_ETA_NAME and re.fullmatch(r"[0-9.eE+/-]+", eta):
        return f"{stem}-eta-{eta.replace('/', '_')}"
    return f"{stem}-eta-h{hashlib.sha256(eta.encode()).hexdigest()[:16]}"


def write_document(certificate: dict, out_dir, pdf: bool = True) -> list[Path]:
    """Write ``NAME.tex`` (and ``NAME.pdf`` when asked and pdflatex exists) into ``out_dir``; return the paths.

    NAME is ``document_name(certificate)`` (gd at eta != 1 has eta in it).  A ``NAME.pdf``
    already there is removed once the new .tex is written and before any compilation, so a
    PDF beside the .tex is always compiled from it: with ``pdf=False`` (``--no-pdf``),
    without pdflatex, or when pdflatex fails, no PDF is left at all.  InputError (one
    line) if the document cannot be rendered or written, or the old PDF cannot be removed."""
    from ..files import write_text_output

    source = document_for(certificate)  # RenderError before anything is written
    folder = Path(out_dir)
    tex = folder / f"{document_name(certificate)}.tex"
    stale = tex.with_suffix(".pdf")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text_output(tex, source)  # atomic: a failure leaves an older .tex whole
    except OSError as exc:
        raise InputError(f"cannot write {tex}: {exc.strerror or exc}") from None
    try:
        stale.unlink(missing_ok=True)  # an older document's PDF: it does not show this .tex
    except OSError as exc:
        raise InputError(f"cannot remove the stale {stale}: {exc.strerror or exc}") from None
    written = [tex]
    if pdf and shutil.which("pdflatex"):
        written.append(compile_pdf(tex))
    return written


def compile_pdf(tex: Path) -> Path:
    """Run pdflatex on ``tex`` (in its folder); InputError with the first LaTeX error line if it fails."""
    command = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name]
    try:
        result = subprocess.run(command, cwd=tex.parent, capture_output=True, text=True, timeout=PDFLATEX_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise InputError(f"pdflatex took longer than {PDFLATEX_TIMEOUT} s on {tex}") from None
    if result.returncode != 0:
        errors = [line for line in result.stdout.splitlines() if line.startswith("!")]
        raise InputError(f"pdflatex failed on {tex}: {errors[0] if errors else 'exit code ' + str(result.returncode)}")
    for suffix in (".aux", ".log"):
        tex.with_suffix(suffix).unlink(missing_ok=True)
    return tex.with_suffix(".pdf")
