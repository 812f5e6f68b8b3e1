"""What a theorem's Coq exporter returns: lemmas, definitions, and claims it does not export.

An exporter is a function ``obligations(document) -> list[Lemma | Definition | NotExported]``
(``document``: a parsed certificate, already checked unless ``--no-check``). Each claim id of the
certificate must be covered by at least one :class:`Lemma` or one :class:`NotExported`
(:func:`certify.coq.export.coq_file` enforces it).
"""

from __future__ import annotations

from dataclasses import dataclass

from .terms import check_term


@dataclass(frozen=True)
class Lemma:
    """One Coq lemma ``name : statement`` proved by ``proof`` (tactics, without Proof./Qed.).

    ``claim``: the claim id it proves (part of); ``paper``: which lemma of the paper turns the
    numerical fact into the claim (the comment above it); ``digits``: None if the statement uses the
    certificate's numbers exactly, else the number of significant digits its ends were rounded
    outward to (a weaker statement: the name must say so, e.g. ``hitting_time_lo_12_digits``);
    ``fields``: the claim's fields it states (``"lo"``, ``"u_at_0.hi"``), when its name does not say
    so by the rule of :func:`certify.coq.export.unstated_fields`.
    """

    name: str
    claim: str
    statement: str
    proof: str
    paper: str
    digits: int | None = None
    fields: tuple[str, ...] = ()

    def __post_init__(self):
        check_term(self.statement)
        check_term(self.proof)
        if self.digits is not None and f"{self.digits}_digits" not in self.name:
            raise ValueError(f"lemma {self.name}: a weakened lemma's name must say '{self.digits}_digits'")

    def text(self) -> str:
        from .terms import comment

        weaker = ("" if self.digits is None else
                  f" WEAKER than the certificate: its ends rounded outward to {self.digits} significant digits.")
        return (f"{comment(f'claim {self.claim}: {self.paper}.{weaker}')}\n"
                f"Lemma {self.name} :\n  {self.statement}.\nProof.\n  {self.proof}\nQed.\n")


@dataclass(frozen=True)
class Definition:
    """``Definition name : R := body.``: an abbreviation used by later lemmas (e.g. Gamma); with
    ``keyword="Fixpoint"`` and ``binders`` (``"(n : nat)"``) a recursive function."""

    name: str
    body: str
    type: str = "R"
    note: str = ""
    keyword: str = "Definition"
    binders: str = ""
    #: the claim whose lemmas it serves, when it must travel with them (a region claim's, placed after the box
    #: mass it builds on: certify.coq.export.obligations); empty for a file-wide abbreviation
    claim: str = ""

    def __post_init__(self):
        check_term(self.body)
        check_term(self.binders)
        if self.keyword not in ("Definition", "Fixpoint"):
            raise ValueError(f"definition {self.name}: unknown keyword {self.keyword}")

    def text(self) -> str:
        from .terms import comment

        head = f"{comment(self.note)}\n" if self.note else ""
        binders = f" {self.binders}" if self.binders else ""
        return f"{head}{self.keyword} {self.name}{binders} : {self.type} := {self.body}.\n"


@dataclass(frozen=True)
class NotExported:
    """A claim (or one component of it) that the file does not prove, and why."""

    claim: str
    reason: str
