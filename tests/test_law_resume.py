"""certify law on resume trusts nothing: run.json, samples.csv and .lock are read capped and non-blocking, and
every row of samples.csv must be one the runner can write for this run, else it is named on stderr and its
sample is computed again (the summary then has the bytes of an honest run).

Fast: gd at p = 5, eta 0.1, horizon 10 (0.05 s for 8 samples), the flow at horizon 10 where a flow rule is
tested (about 0.3 s a sample)."""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT

from certify.law import runner
from certify.law.runner import LawError, LawParameters, read_samples, run_law

GD = LawParameters(5, horizon="10", dynamics="gd", eta="0.1")
FLOW10 = LawParameters(5, horizon="10")
N = 5  # samples of the honest runs: at GD's parameters indices 1, 2 and 4 end multi_gate_other

#: The shape columns of a row without a shape (dead, single_frequency, undecided).
NO_SHAPE = dict.fromkeys(("k", "rows", "columns", "delta", "labels", "row_lengths", "high_rows", "high_columns",
                          "max_fourier_limit"), "")

#: Address space of a `certify law` subprocess (numpy, scipy and the run need ~0.5 GiB): a reader that grows
#: without a cap (a symlink to /dev/zero) hits it at once instead of filling the machine's memory.
MEMORY_LIMIT = 2 * 2**30


def _table(path):
    """(header, [row dicts]) of a samples.csv, read with the csv module alone (not the code under test)."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames, list(reader)


def _write_table(path, header, rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(buffer.getvalue())


def _without_seconds(path):
    header, rows = _table(path)
    return sorted(tuple(value for name, value in row.items() if name != "seconds") for row in rows)


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    """{dynamics: folder} of honest runs of N samples (gd and the flow), computed once."""
    folders = {}
    for name, run in (("gd", GD), ("flow", FLOW10)):
        folder = tmp_path_factory.mktemp(f"honest-{name}")
        run_law(run, N if name == "gd" else 3, folder)
        folders[name] = folder
    return folders


def _copy(honest, tmp_path, name="gd"):
    folder = tmp_path / "run"
    shutil.copytree(honest[name], folder)
    return folder


def _resume(folder, run=GD, samples=N):
    notes = []
    result = run_law(run, samples, folder, warn=notes.append)
    return result, notes


def _assert_named_and_recomputed(folder, honest_folder, notes, line, index, computed):
    """A note names the rejected row (its line, and its sample where the index could be read), and the
    resumed run has the honest run's summary bytes and rows (the sample computed again)."""
    named = [note for note in notes if re.search(rf"\bline {line}\b", note)]
    assert named, notes
    if index is not None:
        assert any(f"sample {index}" in note for note in named), named
    assert all("\n" not in note for note in notes)
    assert (folder / "summary.json").read_bytes() == (honest_folder / "summary.json").read_bytes()
    assert _without_seconds(folder / "samples.csv") == _without_seconds(honest_folder / "samples.csv")
    assert computed >= 1


# --- rows the classifier cannot produce, non-finite fields, bad indices ----------------------------------

# (row index to edit, {column: new text}); row 1 is multi_gate_other (Young, row lengths 5 3 3 3 3), row 0
# undecided (see N)
IMPOSSIBLE = {
    "nan max_fourier": (1, {"max_fourier": "nan"}),
    "inf loss": (1, {"loss": "inf"}),
    "-inf loss of an undecided row": (0, {"loss": "-inf"}),
    "nan balance_drift": (1, {"balance_drift": "nan"}),
    "nan seconds": (1, {"seconds": "nan"}),
    "inf death_time": (0, {"death_time": "inf"}),
    "dead with active gates": (1, {"outcome": "dead", "death_time": "5.0"}),
    "dead without a death time": (1, {"outcome": "dead", "pattern": "-" * 25}),
    "undecided without a reason": (1, {"outcome": "undecided"}),
    "decided with a reason": (1, {"reason": "because"}),
    "unknown outcome": (1, {"outcome": "alive"}),
    "memorises with many active gates": (1, {"outcome": "memorises_one_entry"}),
    "memorises with a kink off its row and column": (1, {"outcome": "memorises_one_entry",
                                                         "pattern": "+0000" + "0-0--" + "0----" * 3}),
    "single_frequency below 0.99": (1, {"outcome": "single_frequency"}),
    "multi_gate at 0.995": (1, {"max_fourier": "0.995"}),
    "multi_gate with one active gate": (1, {"pattern": "+" + "-" * 24}),
    "a death time on a live outcome": (1, {"death_time": "5.0"}),
    "death after the horizon": (1, {"outcome": "dead", "pattern": "-" * 25, "death_time": "10.2"}),
    "a float in another spelling": (1, {"loss": "1.6e0"}),
    "pattern of another p": (1, {"pattern": "+-" * 12}),
    "pattern of other characters": (1, {"pattern": "+x" + "-" * 23}),
    "negative max_fourier": (0, {"max_fourier": "-0.5"}),
    "in_dead_region flipped": (1, {"in_dead_region": "1"}),
    "rejected draws changed": (1, {"rejected": "3"}),
    "initially active gates changed": (1, {"initially_active_gates": "7"}),
    "gd with mode switches": (1, {"switches": "3"}),
    "index spelt with a zero": (1, {"index": "01"}),
    "index out of range": (1, {"index": "1000000"}),
    "index far out of range": (1, {"index": "9" * 30}),
    "a reason on two spellings": (0, {"reason": "the  active set changed over the last decade"}),
    # the shape columns: read off the pattern, so an edit is seen
    "a multi_gate_other row called a staircase": (1, {"outcome": "staircase"}),
    "row lengths edited": (1, {"row_lengths": "5 5 3 3 3"}),
    "rows edited": (1, {"rows": "0 1 2 3 4"}),
    "columns in another spelling": (1, {"columns": "0  2 3 1 4"}),
    "labels edited": (1, {"labels": "0 1 2 3"}),
    "a k on a multi_gate_other row": (1, {"k": "3"}),
    "a delta on a multi_gate_other row": (1, {"delta": "1"}),
    "high_rows beyond the active rows": (1, {"high_rows": "5"}),
    "high_rows zero": (1, {"high_rows": "0"}),
    "high_columns missing": (1, {"high_columns": ""}),
    "a limit on a multi_gate_other row": (1, {"max_fourier_limit": "0.5"}),
    "shape columns on an undecided row": (0, {"row_lengths": "5 3 3 3 3"}),
    "high_rows on an undecided row": (0, {"high_rows": "1"}),
}


@pytest.mark.parametrize("case", sorted(IMPOSSIBLE))
def test_a_row_the_classifier_cannot_produce_is_named_and_recomputed(honest, tmp_path, case):
    position, edits = IMPOSSIBLE[case]
    folder = _copy(honest, tmp_path)
    header, rows = _table(folder / "samples.csv")
    rows.sort(key=lambda row: int(row["index"]))
    index = rows[position]["index"]
    rows[position].update(edits)
    _write_table(folder / "samples.csv", header, rows)
    result, notes = _resume(folder)
    named_index = None if case.startswith("index") else index
    _assert_named_and_recomputed(folder, honest["gd"], notes, position + 2, named_index, result.computed)


@pytest.mark.parametrize("case, edits", [
    ("loss rises counted in a flow row", {"loss_rises": "2"}),
    ("a flow balance drift over the classifier's tolerance", {"balance_drift": "0.001"}),
])
def test_flow_rows_follow_the_flow_rules(honest, tmp_path, case, edits):
    folder = _copy(honest, tmp_path, "flow")
    header, rows = _table(folder / "samples.csv")
    rows.sort(key=lambda row: int(row["index"]))
    decided = next(k for k, row in enumerate(rows) if row["outcome"] in ("staircase", "multi_gate_other"))
    rows[decided].update(edits)
    _write_table(folder / "samples.csv", header, rows)
    result, notes = _resume(folder, FLOW10, 3)
    _assert_named_and_recomputed(folder, honest["flow"], notes, decided + 2, rows[decided]["index"], result.computed)


def test_a_repeated_index_rejects_every_row_of_it(honest, tmp_path):
    folder = _copy(honest, tmp_path)
    header, rows = _table(folder / "samples.csv")
    rows.sort(key=lambda row: int(row["index"]))
    other = dict(rows[1], outcome="undecided", reason="a second opinion", **NO_SHAPE)  # a valid row of its own
    _write_table(folder / "samples.csv", header, [*rows, other])  # the repeat is line N + 2
    result, notes = _resume(folder)
    assert any(re.search(r"\bline 3\b", note) for note in notes), notes  # the first row of index 1 too
    _assert_named_and_recomputed(folder, honest["gd"], notes, N + 2, rows[1]["index"], result.computed)


@pytest.mark.parametrize("other", [
    LawParameters(5, seed=2, horizon="10", dynamics="gd", eta="0.1"),
    LawParameters(5, sigma="2", horizon="10", dynamics="gd", eta="0.1"),
    LawParameters(5, horizon="100", dynamics="gd", eta="0.1"),
    LawParameters(5, horizon="10", dynamics="gd", eta="0.2"),
    LawParameters(7, horizon="10", dynamics="gd", eta="0.1"),
], ids=["seed", "sigma", "horizon", "eta", "p"])
def test_a_row_of_another_run_is_named_and_recomputed(honest, tmp_path, other):
    foreign = tmp_path / "foreign"
    run_law(other, 2, foreign)
    _, foreign_rows = _table(foreign / "samples.csv")
    stranger = next(row for row in foreign_rows if row["index"] == "1")
    folder = _copy(honest, tmp_path)
    header, rows = _table(folder / "samples.csv")
    rows = [stranger if row["index"] == "1" else row for row in sorted(rows, key=lambda row: int(row["index"]))]
    _write_table(folder / "samples.csv", header, rows)
    result, notes = _resume(folder)
    _assert_named_and_recomputed(folder, honest["gd"], notes, 3, "1", result.computed)


def test_the_summary_counts_valid_rows_only(honest, tmp_path):
    """An edited row changes nothing in the summary: the counts come from the valid (recomputed) rows."""
    folder = _copy(honest, tmp_path)
    header, rows = _table(folder / "samples.csv")
    for row in rows:
        row.update(outcome="dead", reason="", death_time="1.0")  # every row claims a death
    _write_table(folder / "samples.csv", header, rows)
    result, notes = _resume(folder)
    assert result.computed == N and len([note for note in notes if re.search(r"\bline \d+ ", note)]) == N
    assert result.summary["outcomes"]["dead"]["count"] == 0
    assert (folder / "summary.json").read_bytes() == (honest["gd"] / "summary.json").read_bytes()


def test_a_simulator_exception_writes_no_nan_and_resumes_without_recomputing(tmp_path, monkeypatch):
    import certify.law.flow as flow

    def broken(theta, p, horizon):
        raise FloatingPointError("synthetic")

    monkeypatch.setattr(flow, "simulate_flow", broken)
    first = run_law(FLOW10, 2, tmp_path)
    assert first.summary["outcomes"]["undecided"]["count"] == 2
    text = (tmp_path / "samples.csv").read_text().lower()
    assert "nan" not in text and "inf" not in text
    again, notes = _resume(tmp_path, FLOW10, 2)
    assert again.computed == 0 and notes == []


def test_a_row_that_fails_its_own_check_is_written_undecided(tmp_path, monkeypatch):
    """A classifier bug (an outcome contradicting its fields) cannot reach the summary, and cannot make every
    resume recompute the sample: the runner writes it as undecided, with the reason."""
    import certify.law.classify as classify_module
    from certify.law.classify import Outcome

    monkeypatch.setattr(classify_module, "classify", lambda trajectory: Outcome("dead", "", 0.5, 1.0, "+" * 25))
    result = run_law(GD, 2, tmp_path)
    assert result.summary["outcomes"]["dead"]["count"] == 0
    assert result.summary["outcomes"]["undecided"]["count"] == 2
    assert all("failed its check" in reason for reason in result.summary["undecided_reasons"])
    again, notes = _resume(tmp_path, GD, 2)
    assert again.computed == 0 and notes == []


# --- the files themselves -----------------------------------------------------------------------------

def test_samples_over_the_cap_are_refused(honest, tmp_path, monkeypatch):
    """The cap is MAX_SAMPLES rows of at most ROW_BYTES + p^2 + 4 p (digits(p) + 1) bytes after the header: at
    the cap the file is read, one byte over it is refused before parsing."""
    monkeypatch.setattr(runner, "MAX_SAMPLES", 3)
    folder = _copy(honest, tmp_path)
    header = (folder / "samples.csv").read_text().splitlines(keepends=True)[0]
    cap = len(header) + 3 * (runner.ROW_BYTES + 25 + 4 * 5 * 2)
    (folder / "samples.csv").write_text(header + "x" * (cap - len(header) - 1) + "\n")
    _, notes = _resume(folder, GD, 3)  # read: one unreadable line, named, and all three samples computed
    assert any(re.search(r"\bline 2\b", note) for note in notes)
    (folder / "samples.csv").write_text(header + "x" * (cap - len(header)) + "\n")
    with pytest.raises(LawError, match="over"):
        _resume(folder, GD, 3)
    with pytest.raises(LawError, match="at most 3"):
        _resume(folder, GD, 4)


def _cap_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _law(folder, timeout=60):
    """`certify law` (GD, 3 samples) on ``folder`` in a subprocess capped at MEMORY_LIMIT: (result, seconds)."""
    start = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-m", "certify", "law", "--p", "5", "--samples", "3", "--horizon", "10",
                             "--dynamics", "gd", "--eta", "0.1", "--jobs", "1", "--out", str(folder)],
                            capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT, preexec_fn=_cap_memory)
    return result, time.perf_counter() - start


def _assert_one_line(result, *words):
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


# (.lock is opened for appending and never read: a symlink to /dev/zero there is harmless, and refused anyway)
@pytest.mark.parametrize("name, kind", [(name, kind) for name in ("run.json", "samples.csv", ".lock")
                                        for kind in ("fifo", "dev-zero", "folder")])
def test_a_file_of_the_run_that_is_not_a_regular_file_is_one_line(honest, tmp_path, name, kind):
    folder = _copy(honest, tmp_path)
    target = folder / name
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        target.mkdir()
    # the run takes ~2 s (imports, GD); a read that blocks (FIFO) or grows (/dev/zero) never ends within 60 s
    result, seconds = _law(folder)
    _assert_one_line(result, name)
    assert seconds < 60


def test_a_run_record_that_is_not_one_is_one_line(honest, tmp_path):
    folder = _copy(honest, tmp_path)
    (folder / "run.json").write_text(json.dumps({"p": 5}) + "\n")
    _assert_one_line(_law(folder)[0], "run.json", "not the record")
    (folder / "run.json").write_bytes(b"[" * 100_000)  # deeper than the JSON parser's recursion
    _assert_one_line(_law(folder)[0], "run.json")
    (folder / "run.json").write_bytes(b" " * (runner.RUN_RECORD_BYTES + 1))
    _assert_one_line(_law(folder)[0], "run.json", "over")


def test_read_samples_is_the_validator_on_every_line(honest):
    """What read_samples keeps is what the one row check accepts, line by line."""
    rows, rejected = read_samples(honest["gd"] / "samples.csv", GD)
    assert sorted(rows) == list(range(N)) and rejected == []
    for row in rows.values():
        assert runner.check_row([row[name] for name in runner.SAMPLE_FIELDS], GD) == row


#: A memorised gate (0, 0), label 0, as the writer records it.
ONE = {"k": "1", "rows": "0", "columns": "0", "delta": "", "labels": "0", "row_lengths": "1", "high_rows": "1",
       "high_columns": "1", "max_fourier_limit": ""}
#: The staircase k = 3, step 2, rows 1, 3, 0 and columns 0, 2, 4: gates (1, 0), (1, 2), (1, 4), (3, 0), (3, 2),
#: (0, 0) with labels 1 (m = 0), 3 (m = 1), 0 (m = 2); its limit formula for (p, n, k) = (5, 2, 3) is phi^2 / 3
#: (tests/test_law_classify.py works it out by hand).
STAIR = "+----" + "+-+-+" + "-----" + "+-+--" + "-----"
PHI2_3 = ((1 + 5 ** 0.5) / 2) ** 2 / 3
STAIRCASE = {"outcome": "staircase", "pattern": STAIR, "k": "3", "rows": "1 3 0", "columns": "0 2 4", "delta": "2",
             "labels": "1 3 0", "row_lengths": "3 2 1", "high_rows": "2", "high_columns": "2",
             "max_fourier_limit": repr(PHI2_3)}
#: Rows 0, 1, 4 and columns 0, 4, 1: a staircase (three labels 0, 1, 4) without one common step: no delta, no
#: limit formula (derived for a common step).
NOT_ONE_STEP = {"outcome": "staircase", "pattern": "++--+" + "+---+" + "-----" * 2 + "+----", "k": "3",
                "rows": "0 1 4", "columns": "0 4 1", "delta": "", "labels": "0 1 4", "row_lengths": "3 2 1",
                "high_rows": "1", "high_columns": "1", "max_fourier_limit": ""}

# (the row's fields, edited; accepted?) for row 1 of the honest gd run (multi_gate_other, no death time):
# what the classifier can produce is accepted, whatever the sample really did (only a re-simulation could tell)
POSSIBLE = [
    ({"outcome": "memorises_one_entry", "pattern": "+0000" + "0----" * 4, **ONE}, True),  # kinks: cross gates
    ({"outcome": "memorises_one_entry", "pattern": "-----" + "--+--" + "-----" * 3,
      **ONE, "rows": "1", "columns": "2", "labels": "3"}, True),
    ({"outcome": "memorises_one_entry", "pattern": "+0000" + "00---" + "0----" * 3, **ONE}, False),  # (1, 1) off them
    ({"outcome": "memorises_one_entry", "pattern": "+0000" + "0----" * 4, **NO_SHAPE}, False),  # no shape columns
    ({"outcome": "memorises_one_entry", "pattern": "+0000" + "0----" * 4, **ONE, "delta": "1"}, False),
    ({"outcome": "dead", "pattern": "-0---" * 5, "death_time": "3.5", **NO_SHAPE}, True),
    ({"outcome": "dead", "pattern": "-0---" * 5, "death_time": "10.1", **NO_SHAPE}, True),  # K eta, K = 101
    ({"outcome": "dead", "pattern": "-0---" * 5, "death_time": "0.0", **NO_SHAPE}, False),
    ({"outcome": "dead", "pattern": "-0---" * 5, "death_time": "3.5", "max_fourier": "", **NO_SHAPE}, True),
    ({"outcome": "dead", "pattern": "-0---" * 5, "death_time": "3.5"}, False),  # with row 1's shape columns
    ({"outcome": "single_frequency", "max_fourier": "0.995", **NO_SHAPE}, True),
    ({"outcome": "single_frequency", "max_fourier": "0.99", **NO_SHAPE}, True),
    ({"outcome": "multi_gate_other", "max_fourier": "0.99"}, False),
    ({"outcome": "undecided", "reason": "any reason", "pattern": "", "death_time": "2.0", "loss": "", **NO_SHAPE},
     True),
    ({"outcome": "undecided", "reason": "a reason, with a comma", "max_fourier": "", "balance_drift": "",
      **NO_SHAPE}, True),
    ({"outcome": "multi_gate_other", "balance_drift": ""}, False),
    ({"outcome": "multi_gate_other", "loss": ""}, False),
    ({"outcome": "multi_gate_other", "max_fourier": ""}, False),
    ({"outcome": "multi_gate_other", "pattern": ""}, False),
    ({"outcome": "multi_gate_other", "high_rows": "4"}, True),  # 1 .. 4 of the five active rows
    ({"outcome": "multi_gate_other", "high_rows": "4", "high_columns": "4"}, True),
    # staircases: every shape column is the pattern's, the limit the formula's for (p, high_rows, k)
    (STAIRCASE, True),
    ({**STAIRCASE, "max_fourier_limit": repr(PHI2_3 * (1 + 1e-14))}, True),   # within LIMIT_RTOL: another libm
    ({**STAIRCASE, "max_fourier_limit": repr(PHI2_3 * (1 + 1e-9))}, False),
    ({**STAIRCASE, "max_fourier_limit": ""}, False),
    ({**STAIRCASE, "high_rows": "1"}, False),  # the limit is then the formula's for n = 1
    ({**STAIRCASE, "high_rows": "3"}, False),  # n <= k - 1
    ({**STAIRCASE, "high_columns": "1"}, True),  # measured, not recomputed (the summary counts n_u != n_v)
    ({**STAIRCASE, "delta": "3"}, False),
    ({**STAIRCASE, "labels": "1 3"}, False),
    ({**STAIRCASE, "rows": "3 1 0"}, False),
    ({**STAIRCASE, "k": "2"}, False),
    ({**STAIRCASE, "max_fourier": "0.99"}, False),
    ({**STAIRCASE, "outcome": "multi_gate_other"}, False),
    ({**STAIRCASE, "pattern": "+++--" + "++---" + "+----" + "-----" * 2}, False),  # rows 0, 1, 2, columns 0, 1, 2:
    # a staircase with step 1, but the shape columns are another's
    (NOT_ONE_STEP, True),
    ({**NOT_ONE_STEP, "delta": "1", "max_fourier_limit": repr(PHI2_3)}, False),  # a step it does not have
    ({**NOT_ONE_STEP, "max_fourier_limit": repr(PHI2_3)}, False),  # the formula without a common step
    ({**NOT_ONE_STEP, "outcome": "multi_gate_other", "k": ""}, False),  # a staircase is not multi_gate_other
]


@pytest.mark.parametrize("edits, accepted", POSSIBLE)
def test_check_row_accepts_exactly_what_the_classifier_can_produce(honest, edits, accepted):
    rows, _ = read_samples(honest["gd"] / "samples.csv", GD)
    assert rows[1]["outcome"] == "multi_gate_other"
    fields = [dict(rows[1], **edits)[name] for name in runner.SAMPLE_FIELDS]
    if accepted:
        assert runner.check_row(fields, GD) == dict(zip(runner.SAMPLE_FIELDS, fields))
    else:
        with pytest.raises(runner.InvalidRow):
            runner.check_row(fields, GD)


@pytest.mark.parametrize("p", [5, 31, 101])
def test_row_bytes_holds_the_longest_row_the_check_can_accept(p):
    """Every column at the longest spelling check_row lets through: the csv line fits in row_bytes(p)."""
    longest_float = repr(-2.2250738585072014e-308)  # 24 characters: the longest repr of a finite float
    assert len(longest_float) == 24
    numbers = " ".join([str(p)] * p)  # p numbers of digits(p) characters (at most p each)
    row = dict.fromkeys(runner.SAMPLE_FIELDS, "9" * 20)
    row.update(index="999999", in_dead_region="1", outcome="memorises_one_entry", reason="r" * 300 + "...",
               pattern="+" * (p * p), rows=numbers, columns=numbers, labels=numbers, row_lengths=numbers,
               sample_digest="f" * 16, seconds="99999999999.0000")
    for name in ("death_time", "max_fourier", "loss", "max_fourier_limit", "balance_drift"):
        row[name] = longest_float
    row["reason"] = "a, b " + "r" * 295 + "..."  # a comma: the csv quotes it
    assert len(runner._csv_line(row)) <= runner.row_bytes(p)


def test_a_resume_recomputes_kept_rows_and_refuses_an_edited_folder(tmp_path):
    """The review edited a multi-gate row into a dead one whose fields agree with each other: check_row
    cannot see it; the spot check recomputes kept rows and compares every field but the time."""
    from certify.errors import CertifyError
    from certify.law.runner import SAMPLE_FIELDS, _spot_check, compute_samples

    parameters = {"p": 5, "sigma": "1", "seed": 1, "horizon": "10", "dynamics": "flow", "eta": None}
    rows = {int(row["index"]): row for row in compute_samples(parameters, [0, 1])}
    _spot_check(rows, [0, 1], parameters, tmp_path / "samples.csv")  # honest rows reproduce
    edited = {index: dict(row, loss=row["loss"] + "1") for index, row in rows.items()}
    with pytest.raises(CertifyError, match="does not reproduce"):
        _spot_check(edited, [0, 1], parameters, tmp_path / "samples.csv")
    assert "seconds" in SAMPLE_FIELDS  # the one field a recomputation may change
