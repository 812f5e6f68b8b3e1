"""Assemble the Coq file of one certificate: header, primality of p, every exported claim's lemmas,
and the list of claims not exported with their reasons.

:func:`coq_file` is the one entry point; ``certify coq`` and ``certify proofs`` call it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .. import __version__
from ..theorems.registry import THEOREMS, resolve
from .lemma import Definition, Lemma, NotExported
from .primes import primality_lemma
from .terms import comment, ident

HEADER = """\
Set Warnings "-ambiguous-paths".
From Coq Require Import Reals Lra Lia ZArith Znumtheory List.
From Coquelicot Require Import Coquelicot.
From Interval Require Import Tactic.
From Coqprime Require Import PocklingtonCertificat.
"""


@dataclass(frozen=True)
class CoqFile:
    """The text of a .v file and what it holds.

    ``name``: the module name (file name without .v, a Coq identifier); ``lemmas``: every lemma
    (primality excluded); ``not_exported``: claims or components the file does not prove, with why.
    """

    name: str
    text: str
    lemmas: tuple[Lemma, ...]
    not_exported: tuple[NotExported, ...]

    @property
    def weakened(self) -> tuple[Lemma, ...]:
        return tuple(lemma for lemma in self.lemmas if lemma.digits is not None)

    def summary(self) -> str:
        """One line: lemma counts, weakened lemmas and claims not exported."""
        parts = [f"{len(self.lemmas) + 1} lemmas (primality of p included)"]
        if self.weakened:
            parts.append("weaker than the certificate: " + ", ".join(
                f"{lemma.name} (proved to {lemma.digits} digits)" for lemma in self.weakened))
        if self.not_exported:
            parts.append("not exported: " + "; ".join(f"{item.claim} ({item.reason})" for item in self.not_exported))
        return "; ".join(parts)


def module_name(document: dict) -> str:
    """The certificate's Coq module name (its file is NAME.v), a Coq identifier:
    :func:`certify.theorems.naming.instance_name` joined by ``_`` (gd's eta always named): ``dead_13``,
    ``gd_13_eta_1``, ``gd_13_eta_1o3``, ``gd_13_eta_1p3``, ``dead_13_epsilon_1em3_prec_192``,
    ``dead_5_r_0p1``. Distinct (theorem, p, parameters, precision, radius) give distinct names."""
    from ..theorems.naming import instance_name

    return ident(instance_name(document, "_"))


def radius_lemma(document: dict) -> Lemma:
    """``radius_positive : 0 < r``: every box lemma quantifies over |x - c| <= r, vacuous for r < 0; for a
    certificate about its base point only (radius 0, e.g. sensitivity) ``radius_zero : r = 0`` instead."""
    from .terms import number, real

    r = number(document["radius"], "radius")
    if r == 0:
        return Lemma("radius_zero", "radius", f"{real(r)} = 0", "lra.",
                     "the certificate is about the trajectory of its base point only: no box")
    return Lemma("radius_positive", "radius", f"0 < {real(r)}", "lra.",
                 "the box is the sup-norm ball of radius r > 0 around the base point: a nonempty open set")


#: Why a region claim without its own exporter is not exported (docs/coq.md): the region_probability of dead and
#: smooth (certify.coq.region; smooth through R_dead in R_smooth), of slide (certify.coq.region_slide), of gd
#: (certify.coq.region_gd) and of the staircase (the box mass times its relabelled copies) have theirs, and dead's
#: region_purity_probability has certify.coq.region_purity's (which lists it, with its own reason, when its route falls
#: short of the kernel's bound); this reason is for a theorem whose exporter states no region claim.
REGION_NOT_EXPORTED = ("its bound adds to the law of the middle spacing S of 2p normals the purity tube's "
                       "chi-square, Beta and spacing-tail integrals, whose integrands contain the normal "
                       "distribution function Phi, itself an integral (integral takes no integral inside its "
                       "integrand); this theorem's exporter has no route of Phi's bounds to this bound (docs/coq.md, "
                       "'Theorem by theorem')")

#: The region claims (every theorem's region_probability, dead's region_purity_probability), listed as not
#: exported for the reason above when the theorem's exporter states neither lemmas nor a reason of its own.
REGION_CLAIMS = ("region_probability", "region_purity_probability")

#: The claims every theorem shares, exported here (an exporter never covers them itself).
SHARED_CLAIMS = ("gaussian_probability", *REGION_CLAIMS)


def obligations(document: dict) -> list:
    """The lemmas, definitions and non-exported claims of a certificate (see certify.coq.lemma): the
    theorem's exporter's, :func:`certify.coq.gaussian.gaussian_lemmas` for the ``gaussian_probability``
    claim every theorem shares, and the region claims: the exporter's own lemmas of them (the staircase's,
    after the box mass), else listed as not exported (:data:`REGION_NOT_EXPORTED`)."""
    record = THEOREMS[document["theorem"]]
    shared = [] if "gaussian_probability" not in document["claims"] else list(_gaussian(document))
    if record.coq is None:
        shared += [NotExported(claim, REGION_NOT_EXPORTED) for claim in REGION_CLAIMS if claim in document["claims"]]
        return [NotExported(claim, "no Coq exporter for this theorem yet") for claim in document["claims"]
                if claim not in SHARED_CLAIMS] + shared
    own = list(resolve(record.coq)(document))
    # a region claim the theorem's exporter states itself comes after the box mass its lemmas build on, and
    # is listed instead when the box mass is not exported (its lemmas would name missing ones)
    region = [item for item in own if getattr(item, "claim", None) in REGION_CLAIMS]
    if any(isinstance(item, NotExported) and item.claim == "gaussian_probability" for item in shared):
        resting = dict.fromkeys(item.claim for item in region if _rests_on_gaussian(item))
        region = [item for item in region if item.claim not in resting] + [
            NotExported(claim, "it rests on the gaussian_probability lemmas, which are not exported") for claim in resting]
    covered = {item.claim for item in region}
    shared += region + [NotExported(claim, REGION_NOT_EXPORTED) for claim in REGION_CLAIMS
                        if claim in document["claims"] and claim not in covered]
    return [item for item in own if getattr(item, "claim", None) not in REGION_CLAIMS] + shared


def _rests_on_gaussian(item) -> bool:
    """Whether a lemma or definition names one of certify.coq.gaussian's (the staircase's region bound is
    the box mass times its copies; the dead region's bound names none)."""
    text = " ".join(str(getattr(item, field, "")) for field in ("statement", "proof", "body"))
    return "gaussian_probability_" in text


def _gaussian(document: dict):
    from .gaussian import gaussian_lemmas

    return gaussian_lemmas(document)


#: The fields of a claim (or of a component) that hold numbers a lemma must state.
STATED_FIELDS = ("lo", "hi", "exact", "log10_lo", "log10_hi")


def unstated_fields(document: dict, lemmas) -> list[NotExported]:
    """A NotExported for every number of the certificate that no lemma states, so that a field or
    component the exporter does not know (a forged ``hi`` on a lower-bound claim, an extra component)
    is listed, never dropped in silence. Field ``f`` of claim ``c`` (component ``k``) is stated by a
    lemma of ``c`` that lists it in ``fields`` or whose name is ``c[_k]_f`` or begins with
    ``c[_k]_f_`` (for ``exact``: whose name is ``c[_k]`` or begins with ``c[_k]_``)."""
    by_claim: dict[str, list[Lemma]] = {}
    for lemma in lemmas:
        by_claim.setdefault(lemma.claim, []).append(lemma)
    missing = []
    for claim, body in document["claims"].items():
        parts = [(None, body)] + [(component, fields) for component, fields in body.get("components", {}).items()]
        for component, fields in parts:
            for field in STATED_FIELDS:
                if field not in fields:
                    continue
                path = f"{component}.{field}" if component else field
                prefix = ident(claim, component or "", "" if field == "exact" else field)
                if not any(path in lemma.fields or lemma.name == prefix or lemma.name.startswith(prefix + "_")
                           for lemma in by_claim.get(claim, ())):
                    missing.append(NotExported(claim, f"{path} is stated by no lemma (not a field the exporter "
                                                      "knows for this claim)"))
    return missing


def coq_file(document: dict, source: bytes | None = None) -> CoqFile:
    """The .v file of a parsed certificate ``document`` (``source``: its bytes, whose SHA-256 the
    header records). Raises ValueError if the exporter leaves a claim uncovered or repeats a name."""
    items = [radius_lemma(document), *obligations(document)]
    lemmas = tuple(item for item in items if isinstance(item, Lemma))
    not_exported = tuple(item for item in items if isinstance(item, NotExported))
    covered = {item.claim for item in lemmas} | {item.claim for item in not_exported}
    missing = [claim for claim in document["claims"] if claim not in covered]
    if missing:
        raise ValueError(f"the Coq exporter of {document['theorem']} covers no lemma of claim {missing[0]}")
    # a claim the exporter lists as not exported needs no field-by-field listing
    listed = {item.claim for item in not_exported}
    not_exported += tuple(item for item in unstated_fields(document, lemmas) if item.claim not in listed)
    names = [item.name for item in items if isinstance(item, (Lemma, Definition))]
    if len(names) != len(set(names)) or "p_is_prime" in names:
        raise ValueError(f"the Coq exporter of {document['theorem']} repeats a name")
    p = int(document["p"])
    digest = hashlib.sha256(source).hexdigest() if source is not None else "not recorded"
    parts = [
        comment(f"Generated by certify {__version__} (certify coq) from the certificate of theorem "
                f"{document['theorem']} at p = {p}, sha256 {digest}. Each lemma states the numerical content "
                "of one claim with the certificate's own exact numbers; the comment above it names the "
                "paper's lemma that turns it into the claim. Those implications are not formalised here."),
        HEADER,
        comment("p is prime: a Pocklington certificate, checked by computation (Coqprime)."),
        "Local Open Scope positive_scope.",
        primality_lemma(p),
        "Local Close Scope positive_scope.",
        "Local Open Scope R_scope.\n",
    ]
    for item in items:
        if isinstance(item, (Lemma, Definition)):
            parts.append(item.text())
    if not_exported:
        parts.append(comment("Not exported (claims this file does not prove): " + "; ".join(
            f"{item.claim}: {item.reason}" for item in not_exported)))
    text = "\n".join(parts).rstrip("\n") + "\n"
    return CoqFile(module_name(document), text, lemmas, not_exported)


def write_coq_file(document: dict, source: bytes | None, out_dir) -> tuple:
    """Write ``out_dir/NAME.v`` (NAME = :func:`module_name`); returns (path, CoqFile)."""
    from pathlib import Path

    from ..files import write_text_output

    coq = coq_file(document, source)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{coq.name}.v"
    write_text_output(path, coq.text)  # atomic: a failure leaves an older file whole
    return path, coq
