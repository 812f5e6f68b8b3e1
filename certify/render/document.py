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


def document_name(certificate: dict) -> str:
    """The file stem of a certificate's document: :func:`certify.theorems.naming.instance_name` joined by
    ``-``, a required parameter at its record's reference value left out (so the proof library's
    ``gd/gd-P.tex`` at eta = 1 keeps its name): ``dead-13``, ``gd-13-eta-1o3``, ``dead-5-r-0p1``,
    ``dead-13-sigma-2``. Distinct instances get distinct names. RenderError for a certificate without
    readable parameters."""
    from ..theorems.naming import instance_name

    try:
        return instance_name(certificate, "-", omit_references=True)
    except (KeyError, TypeError, ValueError) as exc:
        raise RenderError(f"the certificate has no readable instance to name ({exc})") from None


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
