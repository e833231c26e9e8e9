"""Each assignment's solution notebook runs top to bottom in a fresh kernel: its visible tests pass on the
reference solution (and the released notebook, left blank, fails its first test cell, as it should)."""
import os
import time

import nbformat
import pytest

from autograder import assignments
from autograder.sandbox import REPO

nbclient = pytest.importorskip("nbclient")


@pytest.mark.parametrize("name", assignments.names())
def test_solution_notebook_runs(name):
    path = os.path.join(REPO, "solutions", name, f"{name}.ipynb")
    nb = nbformat.read(path, as_version=4)
    t = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    assert time.perf_counter() - t < 60
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert errors == []
