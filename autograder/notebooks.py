"""Notebook storage: jupytext percent-format ``.py`` twins are the source of truth.

``sync()`` regenerates every ``.ipynb`` from its ``.py`` twin (outputs are never stored);
``out_of_sync()`` lists pairs that differ, for the test and for CI.
"""
import glob
import hashlib
import os

import jupytext
import nbformat

from .sandbox import REPO

TWIN_DIRS = ("course/lessons", "solutions/*", "course/assignments/*")


def twins(root=REPO):
    for pattern in TWIN_DIRS:
        for py in sorted(glob.glob(os.path.join(root, pattern, "*.py"))):
            yield py, py[:-3] + ".ipynb"


def to_notebook(py_path):
    nb = jupytext.read(py_path)
    nb.metadata.pop("jupytext", None)
    nb.metadata.setdefault("kernelspec", {"display_name": "Python 3 (ipykernel)", "language": "python",
                                          "name": "python3"})
    nb.metadata["language_info"] = {"name": "python"}
    seen = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        # Cell ids from the content (not random), so regenerating an unchanged notebook changes nothing.
        digest = hashlib.sha1(f"{cell.cell_type}\n{cell.source}".encode()).hexdigest()[:10]
        seen[digest] = seen.get(digest, 0) + 1
        cell.id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"
    nbformat.validator.normalize(nb)
    return nb


def cells_key(nb):
    return [(c.cell_type, c.source.strip(), c.metadata.get("nbgrader")) for c in nb.cells]


def write_ipynb(py_path):
    """Write the ``.ipynb`` twin, unless it already holds exactly this notebook."""
    nb, ipynb = to_notebook(py_path), py_path[:-3] + ".ipynb"
    text = nbformat.writes(nb) + "\n"
    if os.path.exists(ipynb):
        with open(ipynb, encoding="utf-8") as f:
            if f.read() == text:
                return
    with open(ipynb, "w", encoding="utf-8") as f:
        f.write(text)


def write_py(nb, py_path):
    nb = nbformat.from_dict(nb)
    nb.metadata["jupytext"] = {"formats": "ipynb,py:percent"}
    jupytext.write(nb, py_path, fmt="py:percent")


def sync(root=REPO):
    for py, ipynb in twins(root):
        write_ipynb(py)


def out_of_sync(root=REPO):
    bad = []
    for py, ipynb in twins(root):
        if not os.path.exists(ipynb):
            bad.append((py, "no .ipynb"))
            continue
        if cells_key(to_notebook(py)) != cells_key(nbformat.read(ipynb, as_version=4)):
            bad.append((py, "cells differ"))
    return bad
