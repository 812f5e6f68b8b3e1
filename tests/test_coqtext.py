"""The test harness's batched coqc (compile_texts of tests/coqtext.py) gives each text the verdict coqc gives it alone
(certify.coq.compile.compile_file, one process per file), whatever it guesses, and names the lemma coqc stopped in."""

import pytest

from certify.coq.export import HEADER
from coqtext import TextResult, compile_texts, failing_lemma

TEXTS = {
    "good": HEADER + "Local Open Scope R_scope.\nDefinition shared := 1.\n"
                     "Lemma good_one :\n  shared + 1 = 2.\nProof.\n  unfold shared. lra.\nQed.\n",
    # the same name as in "good", another value: each text has its own module
    "good_again": HEADER + "Local Open Scope R_scope.\nDefinition shared := 2.\n"
                           "Lemma good_again_one :\n  shared = 2.\nProof.\n  reflexivity.\nQed.\n",
    "bad": HEADER + "Local Open Scope R_scope.\nDefinition bad_x := 3.\n"
                    "Lemma bad_one :\n  bad_x = 3.\nProof.\n  reflexivity.\nQed.\n"
                    "Lemma bad_two :\n  bad_x <= 2.\nProof.\n  unfold bad_x. lra.\nQed.\n"
                    "Lemma bad_three :\n  True.\nProof.\n  exact I.\nQed.\n",
    # a name only another text defines (true of whichever value it has): refused, as alone
    "borrows": HEADER + "Local Open Scope R_scope.\nLemma borrows_one :\n  shared = shared.\nProof.\n  reflexivity.\nQed.\n",
    "prime": HEADER + "Local Open Scope positive_scope.\nLemma p_is_prime : prime 7.\nProof.\n"
                      "  apply (Pocklington_refl (Pock_certif 7 3 ((3, 1) :: (2, 1) :: nil) 1)\n"
                      "    ((Proof_certif 3 prime_3) :: (Proof_certif 2 prime_2) :: nil)).\n"
                      "  exact_no_check (refl_equal true).\nQed.\n",
    "refused_definition": HEADER + "Definition broken : nat := true.\n"
                                   "Lemma after :\n  True.\nProof.\n  exact I.\nQed.\n",
}
ALONE = {"good": True, "good_again": True, "bad": False, "borrows": False, "prime": True, "refused_definition": False}

@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """{name: ok} of coqc on each text alone, one process each (the oracle)."""
    from certify.coq.compile import compile_file

    folder = tmp_path_factory.mktemp("alone")
    verdicts = {}
    for name, text in TEXTS.items():
        (folder / f"{name}.v").write_text(text)
        verdicts[name] = compile_file(folder / f"{name}.v").ok
    return verdicts


def test_the_oracle_gives_the_verdicts_the_texts_were_written_to_have(alone):
    assert alone == ALONE


@pytest.mark.parametrize("likely_ok", [(), tuple(TEXTS)], ids=["guessed-refused", "guessed-ok"])
def test_batched_verdicts_are_each_text_compiled_alone(tmp_path, alone, likely_ok, monkeypatch):
    """Either guess gives coqc's verdicts on each file alone (compile_file): guessed refused, the texts that
    compile each cost a new batch; guessed ok, the refused ones do."""
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw-one-lane")  # one batch holds every text, so a leak would show
    results = compile_texts(tmp_path / "batched", TEXTS, timeout=60, likely_ok=likely_ok)
    assert {name: result.ok for name, result in results.items()} == alone
    assert not any(result.timed_out for result in results.values())
    assert failing_lemma(TEXTS["bad"], results["bad"]) == "bad_two"
    assert failing_lemma(TEXTS["borrows"], results["borrows"]) == "borrows_one"
    assert failing_lemma(TEXTS["refused_definition"], results["refused_definition"]) is None

def test_a_text_past_its_timeout_has_no_verdict(tmp_path):
    """A proof that never ends is stopped by coqc's Timeout: not ok, timed out, and the next text still runs."""
    texts = {"loops": HEADER + "Lemma loops :\n  True.\nProof.\n  repeat (assert True by exact I).\n  exact I.\nQed.\n",
             "next": HEADER + "Lemma next_one :\n  True.\nProof.\n  exact I.\nQed.\n"}
    for likely_ok in ((), ("loops", "next")):
        results = compile_texts(tmp_path / f"guess-{len(likely_ok)}", texts, timeout=2, likely_ok=likely_ok)
        assert not results["loops"].ok and results["loops"].timed_out
        assert failing_lemma(texts["loops"], results["loops"]) is None  # stopped by the clock, not refused
        assert results["next"].ok and not results["next"].timed_out

@pytest.mark.parametrize("name, text", [
    ("open section", HEADER + "Section S.\nLemma s_one :\n  True.\nProof.\n  exact I.\nQed.\n"),
    ("open module", HEADER + "Module M.\nLemma m_one :\n  True.\nProof.\n  exact I.\nQed.\n"),
    ("no header", "From Coq Require Import Reals Lra.\nLemma c_one :\n  (1 + 1 = 2)%R.\nProof.\n  lra.\nQed.\n"),
    ("a further Require", HEADER + "From Coq Require Import Multiset.\nDefinition a_x := 1.\n"),
    ("a global setting", HEADER + "#[global] Opaque Rplus.\n"),
])
def test_a_text_a_batch_could_misjudge_is_refused_before_coqc(tmp_path, name, text):
    """Load accepts an unclosed Section or Module that coqc alone refuses, the batch's Requires would stand in for
    a missing header, and a Require or a global setting outlives its module: such texts are not batched."""
    with pytest.raises(AssertionError, match="not batched|no certify header"):
        compile_texts(tmp_path, {name: text})


def test_failing_lemma_reads_the_load_verbose_lines():
    text = ("Definition a := 1.\nLemma first :\n  True.\nProof. exact I. Qed.\n(* Lemma hidden : *)\n"
            "Lemma second :\n  True.\n")
    def stopped(message):
        return failing_lemma(text, TextResult(False, message))

    assert stopped("a is defined\nfirst is defined\nError: no.") == "second"
    assert stopped("a is defined\nError: no.") == "first"
    assert stopped("Error: no.") is None  # the Definition itself
    assert stopped("a is defined\nfirst is declared\nsecond is defined") is None
    # one coqc per file (certify.coq.compile.compile_file): the line its message names
    from pathlib import Path

    from certify.coq.compile import CompileResult

    def at_line(line):
        return failing_lemma(text, CompileResult(Path("x.v"), False, 0.0, f'File "./x.v", line {line}, characters 0-1:'))

    assert at_line(4) == "first" and at_line(1) is None


def _strip_comments_by_characters(text: str) -> str:
    """An independent reading: one character at a time, a depth counter (the harness's first version)."""
    out, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith("(*", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("*)", i) and depth:
            depth, i = depth - 1, i + 2
        else:
            if not depth:
                out.append(text[i])
            i += 1
    assert depth == 0, "unbalanced comment"
    return "".join(out)


def test_strip_comments_agrees_with_a_reading_by_characters():
    """Every string of 0-11 characters over (, *, ), x and space (a random 20000), and the library's p = 5 files."""
    import random
    from pathlib import Path

    from coqtext import strip_comments

    def either(function, text):
        try:
            return function(text)
        except AssertionError:
            return "unbalanced"

    rng = random.Random(5)
    samples = ["".join(rng.choice("(*)x ") for _ in range(rng.randrange(12))) for _ in range(20000)]
    samples += [path.read_text() for path in sorted((Path(__file__).resolve().parents[1] / "proofs").glob("*/*_5.v"))]
    for text in samples:
        assert either(strip_comments, text) == either(_strip_comments_by_characters, text), text[:60]
