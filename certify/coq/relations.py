"""Each stored field of a claim as the Coq proposition its relation states (certify.kernel.claims).

The kernel declares, for every claim (and component), what its stored fields mean: ``lo`` a lower end
(``lo <= Q``), ``hi`` an upper end (``Q <= hi``), ``exact`` the value (``Q = exact``), log10 twins of a
log10 Q, and strict landmarks (``lo > 0``, ``hi < 1``). The exporters state every field through
:func:`stated` and :func:`landmark_lemmas`, so the direction of each lemma is the relation's, the same
record the checker and the statement text come from, never the exporter's own reading of a claim; a
field the relation does not store raises KeyError, so a forged extra field is never stated.
"""

from __future__ import annotations

from flint import fmpq

from ..kernel.claims import Relation
from ..kernel.registry import relation_of
from .lemma import Lemma
from .terms import ident, number, real, round_down, round_up


def relation(document: dict, claim: str, component: str | None = None) -> Relation:
    """The relation of ``claim`` (or of its ``component``) of the certificate's theorem (KeyError if none)."""
    return relation_of(document["theorem"], claim, component)


def stored(document: dict, claim: str, key: str, component: str | None = None):
    """The exact value (fmpq) of the stored field ``key`` of ``claim`` (``component``); KeyError if absent."""
    node = document["claims"][claim]
    if component is not None:
        node = node["components"][component]
    where = ".".join(part for part in (claim, component, key) if part)
    return number(node[key], where)


def stated(document: dict, claim: str, key: str, quantity: str, component: str | None = None,
           digits: int | None = None, value=None) -> str:
    """The Coq proposition the stored ``key`` states about the Coq term ``quantity`` (for log10 keys, a
    term of log10 Q): ``lo <= quantity``, ``quantity <= hi`` or ``quantity = exact``, in the direction of
    the claim's relation. ``digits``: state the end rounded outward (down for a lower end, up for an upper
    end) to that many significant digits, a weaker proposition (the lemma's name must say so); ``value``:
    state this exact number instead of the stored one (an end the exporter weakened itself, on the stored
    end's side). KeyError if the relation does not store ``key``.
    """
    direction = relation(document, claim, component).direction(key)
    value = stored(document, claim, key, component) if value is None else value
    if digits is not None:
        if direction == "equal":
            raise ValueError("an exact value is never rounded")
        value = round_down(value, digits) if direction == "below" else round_up(value, digits)
    term = real(value)
    return {"below": f"{term} <= {quantity}", "above": f"{quantity} <= {term}",
            "equal": f"{quantity} = {term}"}[direction]


def landmark_lemmas(document: dict, claim: str, key: str, component: str | None = None,
                    paper: str = "") -> list[Lemma]:
    """The strict landmark the relation asserts of the stored ``key`` (``lo > 0`` as ``0 < lo``, ``hi < 1``),
    proved by lra with the stored number (against 0: its numerator, which has its sign); [] when the
    relation asserts none for ``key``. Names:
    ``CLAIM[_COMPONENT]_lo_positive``, ``..._hi_negative``, ``..._hi_below_K``."""
    from ..kernel.exact import parse_exact

    rel = relation(document, claim, component)
    node = document["claims"][claim] if component is None else document["claims"][claim]["components"][component]
    if key not in node:
        raise KeyError(f"{claim}: no stored {key}")
    exact = parse_exact(node[key])

    def value(mark) -> str:
        """The stored number as a Coq term; against 0 an end too long to write out (1e-977168779) by its
        numerator, which has its sign (n/d 10^k with d > 0), so 10^k is never expanded."""
        try:
            return real(stored(document, claim, key, component))
        except ValueError:
            if mark != 0:
                raise
            return real(fmpq(exact.numerator))
    if key == "lo" and rel.lo_above is not None:
        mark = rel.lo_above
        suffix = "positive" if mark == 0 else f"above_{mark}"
        proposition = f"{mark} < {value(mark)}"
    elif key == "hi" and rel.hi_below is not None:
        mark = rel.hi_below
        suffix = "negative" if mark == 0 else f"below_{mark}"
        proposition = f"{value(mark)} < {mark}"
    else:
        return []
    why = paper or f"the claim states {key} {'>' if key == 'lo' else '<'} {mark}"
    return [Lemma(ident(claim, component or "", key, suffix), claim, proposition, "lra.", why)]


#: interval's bits beyond the digits of the twin pair: log10 of the end is irrational (not a power of ten),
#: and the writer chooses the twin's unit with margin, so 40 bits past its digits separate them.
TWIN_MARGIN_BITS = 40


def twin_lemmas(document: dict, claim: str, component: str | None = None, paper: str = "") -> list[Lemma]:
    """For each end the relation gives a log10 twin, the pair rule it states, with the stored numbers:
    ``2u <= |log10_lo|`` and ``log10_lo <= log10 lo < log10_lo + u`` (``log10_hi - u < log10 hi <= log10_hi``),
    u one unit of the last nonzero digit of the twin (certify.kernel.log10.twin_unit_form, the checker's;
    docs/numbers-and-checking.md, 'Twin fields'). log10 of the end, n/d 10^k, is written
    ``ln n / ln 10 - ln d / ln 10 + k`` (never expanded); for a power of ten it is k, decided by lra.
    An end <= 0 has no log10: the lemma then states ``0 < end`` (as ``0 < n``) first, which coqc refuses."""
    from ..kernel.exact import parse_exact
    from ..kernel.log10 import exact_log10, twin_unit_form

    rel = relation(document, claim, component)
    if not rel.log10:
        return []
    node = document["claims"][claim] if component is None else document["claims"][claim]["components"][component]
    lemmas = []
    for end in ("lo", "hi") if rel.kind == "enclosure" else (("lo",) if rel.kind == "lower" else ("hi",)):
        twin_key = f"log10_{end}"
        value, twin = parse_exact(node[end]), parse_exact(node[twin_key])
        if twin.denominator != 1:
            raise ValueError(f"{claim}.{twin_key} is not a decimal")
        form = twin_unit_form(twin)  # u = 10^k, k the exponent of the last nonzero digit: the checker's unit
        unit = fmpq(1, 10 ** -form.exp10) if form.exp10 < 0 else fmpq(10 ** form.exp10)
        field = real(twin.fmpq())
        upper_twin = f"({field} + {real(unit)})" if end == "lo" else field
        lower_twin = field if end == "lo" else f"({field} - {real(unit)})"
        n, d, k = value.numerator, value.denominator, value.exp10
        power = exact_log10(value)  # a power of ten: its log10 is this integer, decided exactly (as the checker)
        if power is not None:
            log10_end, proof = real(fmpq(power)), "unfold Rabs; destruct (Rcase_abs _); repeat split; lra."
        else:
            digits = len(str(abs(twin.numerator))) + len(str(abs(k))) + len(str(abs(n))) + len(str(d))
            log10_end = f"(ln {real(fmpq(n))} / ln 10 - ln {d} / ln 10 + {real(fmpq(k))})"
            proof = (f"split; [unfold Rabs; destruct (Rcase_abs _); lra | split; [lra | "
                     f"split; interval with (i_prec {int(3.33 * digits) + TWIN_MARGIN_BITS})]].")
        statement = (f"2 * {real(unit)} <= Rabs {field} /\\ 0 < {real(fmpq(n))} /\\ "
                     f"{lower_twin} {'<=' if end == 'lo' else '<'} {log10_end} /\\ "
                     f"{log10_end} {'<' if end == 'lo' else '<='} {upper_twin}")
        lemmas.append(Lemma(ident(claim, component or "", twin_key, "pair"), claim, statement, proof,
                            paper or f"the twin {twin_key} is log10 {end} rounded {'down' if end == 'lo' else 'up'} "
                                     "at the unit of its last nonzero digit", fields=(twin_key,)))
    return lemmas
