import nbformat  # noqa: F401 - (fixtures' callers edit notebooks)
import pytest

from autograder import samples


@pytest.fixture(scope="session")
def make_submission():
    """make_submission(path, replace={grade_id: source or callable(source)}, extra_cells=[...], blank=False, edit=f)
    writes an A1 submission (``samples.write_submission``); ``edit(nb)`` changes the notebook before it is saved."""
    def make(path, replace=None, extra_cells=(), blank=False, edit=None):
        samples.write_submission("A1", path, replace=replace, blank=blank, extra_cells=extra_cells)
        if edit:
            nb = nbformat.read(path, as_version=4)
            edit(nb)
            nbformat.write(nb, path)
        return path
    return make
