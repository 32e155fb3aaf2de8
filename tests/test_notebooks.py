"""The notebooks in ``notebooks/`` run top to bottom on the public API and are stored without outputs.

Each notebook is executed with nbclient on the ``python3`` kernel, with the notebooks
folder as working directory, as a reader opening it in Jupyter would. They explain and
show results (frames, result objects, a diagnosis, pictures) rather than assert: the
checks are here. They import the installed package (``claimgate.Gate``, ``claimgate.Audit``,
``claimgate.pictures``), never ``claimgate.execution``, and never change ``sys.path``.
Running them must not write into the repository: edited copies of the fixtures belong in
temporary folders.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = ("explore_claim_frames.ipynb", "decision_order.ipynb")
CELL_TIMEOUT_SECONDS = 120


def _watched_state() -> tuple[dict[str, str], set[str]]:
    """What a notebook could plausibly write: ``(hashes of watched files, other file paths)``, repo-relative.

    Hashed (created, changed or removed is caught): the fixtures, which the notebooks
    read and edit *copies* of, and the notebooks themselves. Paths only (a new file is
    caught): the repository root, the notebooks folder (the kernel's working directory)
    and ``output/``. Existing files there, ``notebooks/figures/`` and other folders are
    left out: others may be editing them while this test runs.
    """
    hashed = [p for p in (ROOT / "fixtures").rglob("*") if p.is_file()]
    hashed += [NOTEBOOK_DIR / name for name in NOTEBOOKS]
    listed = [p for folder in (ROOT, NOTEBOOK_DIR) for p in folder.iterdir() if p.is_file()]
    if (ROOT / "output").exists():
        listed += [p for p in (ROOT / "output").rglob("*") if p.is_file()]
    hashes = {str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest() for p in hashed}
    return hashes, {str(p.relative_to(ROOT)) for p in listed}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_notebook_has_no_outputs_or_execution_counts(name: str) -> None:
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code_cells, f"{name} has no code cells"
    for index, cell in enumerate(code_cells):
        assert cell.outputs == [], f"{name}: code cell {index} is stored with outputs"
        assert cell.execution_count is None, f"{name}: code cell {index} is stored with an execution count"
    assert notebook.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_code_cell_has_a_markdown_cell_before_it(name: str) -> None:
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    assert notebook.cells[0].cell_type == "markdown", f"{name} does not open with a markdown cell"
    for index, cell in enumerate(notebook.cells[1:], start=1):
        if cell.cell_type == "code":
            assert notebook.cells[index - 1].cell_type == "markdown", f"{name}: cell {index} has no markdown before it"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebooks_use_the_public_api_without_path_changes_or_asserts(name: str) -> None:
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    source = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "sys.path" not in source and "claimgate.execution" not in source
    assert "claimgate.Gate" in source
    tree = ast.parse(source)
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Assert)], "show results; tests assert"


EXECUTED: dict[str, nbformat.NotebookNode] = {}


def _outputs(name: str, kind: str) -> list[str]:
    """Every output of ``kind`` (a MIME type, or ``stream``) of the executed notebook ``name``."""
    notebook = EXECUTED.get(name)
    if notebook is None:
        pytest.skip(f"{name} was not executed in this session")
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if kind == "stream" and output.output_type == "stream":
                found.append(output.text)
            elif kind in output.get("data", {}):
                found.append(output["data"][kind])
    return found


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_top_to_bottom_without_writing_into_the_repo(name: str) -> None:
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    before = _watched_state()
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_SECONDS,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell (asserts included)
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert errors == []
    EXECUTED[name] = notebook
    after = _watched_state()
    written = sorted(path for path in after[0].keys() | before[0].keys() if after[0].get(path) != before[0].get(path))
    written += sorted(after[1] - before[1])
    assert written == [], f"running {name} created, changed or removed files in the repository: {written}"


def test_the_decision_pictures_are_shown_whole_at_the_notebook_width() -> None:
    svgs = _outputs("decision_order.ipynb", "image/svg+xml")
    assert len(svgs) == 4  # the decision chain and three paths
    for svg in svgs:
        opening = re.search(r"<svg[^>]*>", svg).group(0)
        assert 'width="100%"' in opening and "viewBox=" in opening and "height=" not in opening, opening
    assert "the gate&#39;s decision chain" in svgs[0] or "the gate's decision chain" in svgs[0]


def test_the_claim_frames_notebook_shows_frames_and_a_diagnosis() -> None:
    tables = "\n".join(_outputs("explore_claim_frames.ipynb", "text/plain"))
    for shown in ("document_revision", "same-version-conflict", "start_line", "fabricated", "stitched", "insert"):
        assert shown in tables, shown
