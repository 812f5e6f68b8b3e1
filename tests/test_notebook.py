"""examples/tutorial.ipynb runs from top to bottom without an error (nbclient, in-process, the venv's
kernel) and shows what it says: the certificate's table, a verified check, the figure, the derivation."""

import time

import nbclient  # the test extra installs nbclient, nbformat and ipykernel (the notebook's kernel)
import nbformat

from conftest import ROOT

NOTEBOOK = ROOT / "examples" / "tutorial.ipynb"
#: The notebook should stay quick: it runs in a few seconds on the project's 2-core machine.
BUDGET_SECONDS = 120


def _outputs(cell, kind):
    return [output for output in cell.get("outputs", []) if kind in output.get("data", {})]


def test_tutorial_notebook_executes_and_shows_each_step():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), \
        "commit the notebook without outputs"
    client = nbclient.NotebookClient(notebook, timeout=BUDGET_SECONDS, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})  # imports this checkout
    started = time.monotonic()
    client.execute()  # CellExecutionError if any cell raises
    assert time.monotonic() - started < BUDGET_SECONDS
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    errors = [output for cell in code for output in cell.outputs if output.output_type == "error"]
    assert errors == []
    table = next(cell for cell in code if _outputs(cell, "text/markdown"))
    markdown = _outputs(table, "text/markdown")[0]["data"]["text/markdown"]
    assert "| `hitting_time` | base_point |" in markdown
    printed = "".join(output.get("text", "") for cell in code for output in cell.outputs
                      if output.output_type == "stream")
    assert "True verified - dead, p = 7, 14 claims verified" in printed
    assert "simulated T = " in printed
    assert any(_outputs(cell, "image/png") for cell in code), "the figure is not shown"
    latex = [output["data"]["text/latex"] for cell in code for output in _outputs(cell, "text/latex")]
    assert any(r"\begin{aligned}" in text and r"\checkmark" in text for text in latex)
