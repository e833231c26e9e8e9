"""The .py twins are the source of truth: every .ipynb must match its twin, and the release must match solutions/."""
import os
import tempfile

import nbformat
import pytest

from autograder import assignments, notebooks, release
from autograder.sandbox import REPO


def test_every_ipynb_matches_its_py_twin():
    assert list(notebooks.twins()), "no notebooks found"
    assert notebooks.out_of_sync() == []


@pytest.mark.parametrize("name", assignments.names())
def test_release_is_in_sync_with_its_source(name):
    with tempfile.TemporaryDirectory() as d:
        release.generate(name, d)
        fresh = nbformat.read(os.path.join(d, f"{name}.ipynb"), as_version=4)
    committed = nbformat.read(os.path.join(REPO, "course", "assignments", name, f"{name}.ipynb"), as_version=4)
    assert notebooks.cells_key(fresh) == notebooks.cells_key(committed), f"run: python -m autograder release {name}"
    text = "".join(c.source for c in committed.cells)
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text and "raise NotImplementedError" in text


def test_released_lessons_are_in_sync_with_their_source():
    from autograder import lessons
    with tempfile.TemporaryDirectory() as d:
        fresh = lessons.release(d)
        import glob
        committed_names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(REPO, "course", "lessons", "*.py")))
        assert sorted(os.path.basename(p) for p in fresh) == committed_names, "run: python -m autograder release lessons"
        for path in fresh:
            committed = os.path.join(REPO, "course", "lessons", os.path.basename(path))
            assert os.path.exists(committed), f"run: python -m autograder release lessons ({committed})"
            assert notebooks.cells_key(notebooks.to_notebook(path)) == \
                notebooks.cells_key(notebooks.to_notebook(committed)), "run: python -m autograder release lessons"
            text = open(committed).read()
            assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
