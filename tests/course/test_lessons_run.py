"""Each lesson runs top to bottom in a fresh kernel, in under 60 s."""
import glob
import os
import time

import nbformat
import pytest

from autograder.sandbox import REPO

nbclient = pytest.importorskip("nbclient")
LESSONS = sorted(glob.glob(os.path.join(REPO, "course", "lessons", "*.ipynb")))


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(p) for p in LESSONS])
def test_lesson_runs(path):
    nb = nbformat.read(path, as_version=4)
    t = time.perf_counter()
    nbclient.NotebookClient(nb, timeout=60, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    assert time.perf_counter() - t < 60
    outs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "exercises OK" in outs
