"""Reading Coq source in tests: comments stripped (Coq comments nest), lemma names, escape hatches."""

import functools
import os
import re
from dataclasses import dataclass

from certify.certificate import parse_certificate
from certify.coq.region_gd import MAX_NODES
from certify.coq.region_purity import FINE_POINTS

ESCAPE_HATCHES = ("Admitted", "admit", "Axiom", "Axioms", "Parameter", "Parameters", "Hypothesis", "Hypotheses",
                  "Conjecture", "Variable", "Variables", "Context", "Abort")


def strip_comments(text: str) -> str:
    """The text without its (nested) comments; strings are not special in what certify writes. A ``*)`` outside
    every comment is text."""
    out, depth, kept = [], 0, 0
    for token in re.finditer(r"\(\*|\*\)", text):
        if token.group() == "(*":
            if not depth:
                out.append(text[kept:token.start()])
            depth += 1
        elif depth:
            depth -= 1
            kept = token.end()
    assert depth == 0, "unbalanced comment"
    out.append(text[kept:])
    return "".join(out)


def escape_hatches(text: str) -> list[str]:
    """Every escape-hatch word in the code (comments excluded)."""
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_']*", strip_comments(text))
    return [word for word in words if word in ESCAPE_HATCHES]


def lemma_names(text: str) -> list[str]:
    return re.findall(r"^Lemma ([A-Za-z0-9_']+) :", strip_comments(text), flags=re.M)


def not_exported(text: str) -> str:
    """The file's closing comment listing the claims it does not prove ('' if none)."""
    match = re.search(r"\(\* Not exported \(claims this file does not prove\): (.*?) \*\)\s*$", text, flags=re.S)
    return match.group(1) if match else ""


def failing_lemma(text: str, result) -> str | None:
    """The lemma of ``text`` in which coqc stopped, from ``result``:

    * a :class:`TextResult` (:func:`compile_texts`): the first item of ``text`` (a Lemma, Definition or Fixpoint,
      in the order coqc runs them) that its ``Load Verbose`` lines (``name is defined`` / ``declared``) do not
      report done; its name if it is a Lemma, else None (a Definition refused, every item done, or the text
      timed out: then nothing was refused);
    * a ``certify.coq.compile.CompileResult`` (one coqc per file): the lemma holding the line coqc's error message
      points at (None if it names no line)."""
    if isinstance(result, TextResult):
        if result.timed_out:
            return None  # stopped by the clock: no lemma was refused
        done = set(re.findall(r"^([A-Za-z0-9_']+) is (?:recursively )?(?:defined|declared)", result.message,
                              flags=re.M))
        for kind, name in re.findall(r"^(Lemma|Definition|Fixpoint) ([A-Za-z0-9_']+)\b", strip_comments(text),
                                     flags=re.M):
            if name not in done:
                return name if kind == "Lemma" else None
        return None
    match = re.search(r'File "[^"]*", line (\d+)', result.message) or re.search(r"line (\d+)", result.message)
    if match is None:
        return None
    names = [m.group(1) for line in text.splitlines()[:int(match.group(1))]
             if (m := re.match(r"Lemma ([A-Za-z0-9_']+) :", line))]
    return names[-1] if names else None


@dataclass(frozen=True)
class TextResult:
    """One text's verdict in a batch: ``ok`` (every command of the text ran), ``message`` (coqc's output for
    this text: the ``Load Verbose`` lines, then the error that stopped it), ``timed_out`` (stopped by coqc's
    ``Timeout``: then ``ok`` is False and the text has no verdict)."""

    ok: bool
    message: str
    timed_out: bool = False


#: The batch file's first lines: certify's header, so that coqc loads the libraries once for every text.
BATCH_HEADER_LINES = 8


#: Commands whose effect a batch could change (an unclosed Section or Module is accepted by ``Load`` and refused
#: by coqc alone; a Require or a global setting outlives its module): a batched text has none beyond the header.
_UNBATCHABLE = re.compile(r"^\s*(?:Local\s+)?(Section|Module|End|Require|From|Import|Export|Global|#\[|Set|Unset|Declare|Load|"
                          r"Redirect|Add|Remove)\b", flags=re.M)


def _check_batchable(name: str, text: str) -> None:
    """A batch gives ``text`` coqc's verdict on it alone when the text holds certify's header (its Requires) and,
    beyond it, no command of :data:`_UNBATCHABLE`: the module and ``Fail`` then undo everything it did (names,
    scopes), and nothing of it reaches the next text. Raises AssertionError otherwise."""
    from certify.coq.export import HEADER

    assert HEADER in text, f"{name}: no certify header, so the batch's Requires would stand in for its own"
    rest = strip_comments(text.replace(HEADER, "", 1))
    extra = _UNBATCHABLE.search(rest)
    assert extra is None, f"{name}: {extra.group(0).strip()!r} beyond the header: not batched (coqtext.compile_texts)"


def _batch(folder, names: list, texts: dict, guess_ok: dict, timeout: float) -> tuple[dict, int]:
    """Run ``texts[names[i]]``, i = 0, 1, ..., in one coqc process, each in its own module (its names cannot
    reach another text) as ``Load Verbose`` of its own file: a text guessed to compile is loaded plainly, a
    text guessed refused inside ``Fail`` (coqc rolls its state back and goes on). Every load is under coqc's
    ``Timeout``. Returns the verdicts of the texts run before the first wrong guess, that text's verdict
    (the opposite of its guess) and the number of texts decided."""
    import subprocess
    from pathlib import Path

    from certify.coq.compile import coqc_path
    from certify.coq.export import HEADER

    folder = Path(folder)
    header = HEADER.rstrip("\n").split("\n")
    assert len(header) < BATCH_HEADER_LINES
    lines = header + [""] * (BATCH_HEADER_LINES - len(header))
    for i, name in enumerate(names):
        (folder / f"t{i}.v").write_text(texts[name])
        (folder / f"t{i}.out").unlink(missing_ok=True)
        load = f'Timeout {max(1, round(timeout))} Load Verbose "t{i}.v".'
        lines.append(f'Module T{i}. Redirect "t{i}" {load if guess_ok[name] else "Fail " + load} End T{i}.')
    (folder / "batch.v").write_text("\n".join(lines) + "\n")
    try:
        done = subprocess.run([coqc_path(), "-q", "-test-mode", "batch.v"], cwd=folder, capture_output=True,
                              text=True, timeout=timeout * len(names) + 120, env={**os.environ, "LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        raise AssertionError(f"coqc ran past every text's timeout together ({len(names)} texts)") from None

    def output(i):
        path = folder / f"t{i}.out"
        return path.read_text() if path.exists() else ""

    def verdict(i, ok, error=""):
        message = re.sub(r'^File "\./batch\.v", line \d+, characters [\d-]+:\n', "", output(i) + error, flags=re.M)
        timed_out = not ok and message.rstrip().endswith("Timeout!")
        return TextResult(ok, message.strip(), timed_out)

    if done.returncode == 0:
        return {name: verdict(i, guess_ok[name]) for i, name in enumerate(names)}, len(names)
    error = done.stdout + done.stderr
    where = re.search(r'File "\./batch\.v", line (\d+)', error)
    assert where, f"coqc stopped outside the batch's texts: {error[-500:]}"
    stopped = int(where.group(1)) - BATCH_HEADER_LINES - 1
    assert 0 <= stopped < len(names), f"coqc stopped outside the batch's texts: {error[-500:]}"
    name = names[stopped]
    if guess_ok[name]:
        assert "The command has not failed!" not in error
        wrong = verdict(stopped, False, error[where.start():])
    else:
        assert "The command has not failed!" in error, f"coqc stopped in {name} for no verdict: {error[-500:]}"
        wrong = verdict(stopped, True)
    results = {n: verdict(i, guess_ok[n]) for i, n in enumerate(names[:stopped])}
    return {**results, name: wrong}, stopped + 1


def compile_texts(folder, texts: dict, timeout: float = 180, likely_ok=()) -> dict:
    """{name: TextResult} of each Coq text compiled by coqc, with a ``timeout`` per text. The texts run in
    batches (:func:`_batch`: coqc loads Reals, Coquelicot, Interval and Coqprime once, about 1.5 s, instead of
    once per text); a wrong guess of a text's verdict (refused, unless its name is in ``likely_ok``) costs one
    more coqc process, never a wrong verdict, for the texts :func:`_check_batchable` admits (the others raise
    AssertionError). Two batches at a time (the machines have two cores), or one in a
    pytest-xdist worker (the other workers use the other cores). Fails (never skips) without coqc: CI
    installs it."""
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from certify.coq.compile import coqc_path

    assert coqc_path() is not None, "coqc is not on the PATH (CI installs coq, libcoq-interval, libcoq-coqprime)"
    for name, text in texts.items():
        _check_batchable(name, text)
    guess_ok = {name: name in likely_ok for name in texts}
    lanes = 1 if os.environ.get("PYTEST_XDIST_WORKER") else 2
    chunks = [list(texts)[lane::lanes] for lane in range(lanes)]

    def run(lane):
        results, todo, round_ = {}, chunks[lane], 0
        while todo:
            batch = Path(folder) / f"batch-{lane}-{round_}"
            batch.mkdir(parents=True)
            decided, count = _batch(batch, todo, texts, guess_ok, timeout)
            results.update(decided)
            todo, round_ = todo[count:], round_ + 1
        return results

    with ThreadPoolExecutor(max_workers=lanes) as pool:
        merged = {}
        for part in pool.map(run, range(lanes)):
            merged.update(part)
    return {name: merged[name] for name in texts}


#: Honest lemmas whose proofs are slow (one ``integral`` of about 27 s: smooth's J to 15 digits; the dead region's
#: Mills residual, Lo >= 0, integral, tail and C(2p, p), about 20 s together, certify.coq.region; the slide region's
#: residual, anchor, L >= 0, window integral and gamma integrals, about 12 s, certify.coq.region_slide; the gd region's
#: fit, bases, node integrals and weights, 10-20 s, certify.coq.region_gd; the purity claim's Phibar integral and
#: tube sums, certify.coq.region_purity). A forgery test
#: may admit them (:func:`with_admitted`): the library compilation (tests/test_coq_library.py) proves them, and a
#: forgery's verdict must come from the forged claim's own lemma, which uses their statements only.
SLOW_HONEST_LEMMAS = ("smooth_J_enclosure", "region_mills_residual", "region_Lo_nonnegative", "region_bound_integral",
                      "region_tail_factor", "region_central_binomial_value", "region_slide_mills_residual",
                      "region_slide_anchor", "region_slide_L_nonnegative", "region_slide_closed_integral",
                      "region_slide_spread", "region_slide_gamma_tail", "region_gd_fit_error", "region_gd_bases",
                      *(f"region_gd_node_{j}_closed" for j in range(1, MAX_NODES + 1)),
                      *(f"region_gd_weight_{j}_lower" for j in range(1, MAX_NODES + 1)),
                      "region_purity_phibar_lower", *(f"region_purity_tube_{i}" for i in range(FINE_POINTS)),
                      "region_purity_fit_error", "region_purity_bases", "region_purity_outside_upper",
                      *(f"region_purity_radius_{i}_integral" for i in range(FINE_POINTS)))


def region_only(path, claim: str = "region_probability") -> dict:
    """The certificate at ``path`` with only its ``claim`` (what a region route's tests export)."""
    document = parse_certificate(path.read_bytes())
    document["claims"] = {claim: document["claims"][claim]}
    return document


def _lemma_block(text: str, name: str) -> str | None:
    match = re.search(rf"^Lemma {re.escape(name)} :\n.*?^Qed\.\n", text, flags=re.M | re.S)
    return match.group(0) if match else None


@functools.lru_cache(maxsize=256)  # read again for every lemma of the text (_proved_in_the_library)
def _definitions(text: str) -> dict:
    """{name: the whole item} of every Definition and Fixpoint of ``text`` (comments removed), up to the period
    that ends a line, so that a definition written over several lines is compared whole."""
    return {m.group(1): m.group(0) for m in re.finditer(r"^(?:Definition|Fixpoint) ([A-Za-z0-9_']+)\b.*?\.$",
                                                      strip_comments(text), flags=re.M | re.S)}


def _identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_']*", text))


def _named_definitions(block: str, definitions: dict) -> tuple:
    """The definitions ``block`` names, directly or through the definitions it names, as sorted items."""
    named, todo = set(), _identifiers(block) & set(definitions)
    while todo:
        name = todo.pop()
        named.add(name)
        todo |= (_identifiers(definitions[name]) & set(definitions)) - named
    return tuple(sorted(definitions[name] for name in named))


@functools.lru_cache(maxsize=None)
def _library_blocks() -> dict:
    """{lemma name: {(its block, the definitions it names)}} over the committed library files (proofs/*/*.v):
    every test run compiles those at certify.proofs.coq_compiled_primes (tests/test_coq_library.py),
    ``CERTIFY_COQ_LIBRARY=all`` and ``certify proofs --coqc`` all of them."""
    from pathlib import Path

    blocks = {}
    for path in sorted((Path(__file__).resolve().parents[1] / "proofs").glob("*/*.v")):
        text = path.read_text()
        definitions = _definitions(text)
        for match in re.finditer(r"^Lemma ([A-Za-z0-9_']+) :\n.*?^Qed\.\n", text, flags=re.M | re.S):
            blocks.setdefault(match.group(1), set()).add((match.group(0), _named_definitions(match.group(0),
                                                                                              definitions)))
    return blocks


def _proved_in_the_library(name: str, text: str) -> bool:
    """Lemma ``name`` of ``text`` is, word for word, a committed library file's, with every definition it names
    (directly or not) as that same file has it: the library compilation proves it there, about the same terms."""
    block = _lemma_block(text, name)
    return block is not None and (block, _named_definitions(block, _definitions(text))) in \
        _library_blocks().get(name, set())


def unchanged_lemmas(text: str, honest: str) -> tuple[str, ...]:
    """The lemmas of ``text`` that a forgery or weakening of ``honest`` (the unchanged certificate's file) left
    unchanged, so that the library compilation proves them: the lemma's block (statement and proof) is honest's,
    names no definition that differs from honest's (a definition differs when its item does, or when it names
    one that differs), and is a committed library file's with the same definitions (:func:`_proved_in_the_library`).
    What a test compiles of ``text`` beyond them is what the change touched."""
    mine, theirs = _definitions(text), _definitions(honest)
    changed = {name for name, item in mine.items() if theirs.get(name) != item}
    while grown := {name for name, item in mine.items() if name not in changed and _identifiers(item) & changed}:
        changed |= grown
    return tuple(name for name in lemma_names(text)
                 if (block := _lemma_block(text, name)) is not None and block == _lemma_block(honest, name)
                 and not _identifiers(block) & changed and _proved_in_the_library(name, text))


def with_admitted(text: str, honest: str, names=SLOW_HONEST_LEMMAS) -> str:
    """``text`` with the proof of each lemma of ``names`` it holds replaced by ``Admitted``, after checking that
    the lemma (statement and proof) is the one of ``honest`` (the unforged certificate's file), which the library
    compilation proves, word for word in a committed library file (tests/test_coq_library.py compiles them): the
    forged text cannot have changed what is admitted. A forged claim whose lemma used an admitted lemma's proof
    rather than its statement would then compile, and its test would fail: admitting can only make a forgery
    test stricter, never hide a refusal. In a test that expects a file to compile (a weakening), the admitted
    proof is the committed one, compiled by the library test."""
    for name in names:
        block = _lemma_block(text, name)
        if block is None:
            continue
        assert block == _lemma_block(honest, name), f"{name} differs from the honest file's: not admitted"
        assert _proved_in_the_library(name, text), f"{name} is not a committed library file's: not admitted"
        statement = block.split("\nProof.\n")[0]
        text = text.replace(block, statement + "\nProof.\nAdmitted.\n")
    return text


def admit_unchanged(text: str, honest: str) -> str:
    """``text`` (a forged or weakened export) with every lemma :func:`unchanged_lemmas` finds admitted: the library
    compilation proves them, so coqc spends a test's time on the lemmas the change touched, and a refusal can only
    come from one of those."""
    return with_admitted(text, honest, unchanged_lemmas(text, honest))


def with_forged_twin_admitted(text: str, names) -> str:
    """``text`` with the proof of each lemma of ``names`` replaced by ``Admitted``, no questions asked: for a forgery
    test that moves one field of a claim (log10_lo) and must see coqc refuse that field's own lemma, not the twin
    lemma tying it to the other field (log10_lo <= log10 lo), which the forgery breaks first. Admitting can only
    let more of a file compile: the test still needs a refusal, in a lemma it did not admit."""
    for name in names:
        block = _lemma_block(text, name)
        assert block is not None, f"{name} is not in the file"
        head = block[:block.index("Proof.")]
        text = text.replace(block, head + "Admitted.\n")
    return text


def decimal_above(x, places: int):
    """The decimal with ``places`` digits after the point just above the Fraction x (a certificate's spelling is
    decimal)."""
    from fractions import Fraction

    scale = 10**places
    return Fraction(-((-x * scale) // 1), scale)


def compiled_region_forgeries(folder, document: dict, lo_above, log10_above, claim: str = "region_probability",
                               component: str | None = None) -> dict:
    """{field: (text, TextResult)}: ``document`` (a certificate whose claims are ``claim`` only) exported to Coq
    twice, each time with one field of ``claim`` (of its ``component``) forged and compiled: ``lo`` set to the
    60-place decimal above ``lo_above``, its log10_lo replaced by the proved twin of the forged lo (so that the pair
    lemma holds and coqc reaches the lo lemma); ``log10_lo`` set to the 30-place decimal above ``log10_above``, the
    twin lemma admitted (:func:`with_forged_twin_admitted`: the forgery breaks it first). The slow honest lemmas are
    admitted against the unforged document's file (:func:`with_admitted`). The caller chooses the two thresholds
    past the truth."""
    import copy

    from certify.coq.export import coq_file
    from certify.coq.terms import ident
    from certify.kernel.exact import canonical_text, parse_exact
    from certify.kernel.log10 import log10_enclosure, log10_lower_twin

    honest = coq_file(document).text
    texts = {}
    for field in ("lo", "log10_lo"):
        forged = copy.deepcopy(document)
        node = forged["claims"][claim]
        node = node if component is None else node["components"][component]
        if field == "lo":
            node["lo"] = canonical_text(decimal_above(lo_above, 60))
            lo = parse_exact(node["lo"])
            node["log10_lo"] = canonical_text(log10_lower_twin(lo, log10_enclosure(lo, 200), 200))
        else:
            node["log10_lo"] = canonical_text(decimal_above(log10_above, 30))
        texts[field] = admit_unchanged(coq_file(forged).text, honest)
        if field == "log10_lo":
            texts[field] = with_forged_twin_admitted(texts[field], [ident(claim, component or "", "log10_lo", "pair")])
    results = compile_texts(folder, texts, timeout=300)
    return {field: (texts[field], results[field]) for field in texts}


def region_forgeries_past(folder, document: dict, truth, claim: str = "region_probability",
                          component: str | None = None) -> dict:
    """:func:`compiled_region_forgeries` with lo moved a relative 10^-10 past ``truth`` (an mpmath number at 40 or
    more digits: the exact right-hand side of the claim lemmas, or a number above it, computed by the caller's
    independent route) and log10_lo 10^-10 past log10 of it: far beyond every rounding of the route (at most 10^-14
    of the statement's), far below the route's margin over the kernel's bound."""
    from fractions import Fraction

    import mpmath

    with mpmath.workdps(40):
        truth_q = Fraction(mpmath.nstr(truth, 35, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
        log10_q = Fraction(mpmath.nstr(mpmath.log10(truth), 35, min_fixed=-mpmath.inf, max_fixed=mpmath.inf))
    return compiled_region_forgeries(folder, document, truth_q * (1 + Fraction(1, 10**10)), log10_q + Fraction(1, 10**10),
                                     claim, component)
