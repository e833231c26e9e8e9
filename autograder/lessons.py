"""Lessons: their source (with the exercises' answers) is ``solutions/lessons/``; the student's copy,
``course/lessons/``, is generated from it with the answers cleared.

``python -m autograder release lessons`` regenerates every lesson: nbgrader's ClearSolutions
replaces each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` block of an answer cell with
``raise NotImplementedError()`` (a markdown answer with "YOUR ANSWER HERE"), everything else is
copied as it is. The tests run the solved versions (every exercise right: "exercises OK") and
the released ones (they run through, each self-check saying "not done yet").
"""
import glob
import os

import nbformat

from . import notebooks
from .sandbox import REPO

SOURCE = os.path.join(REPO, "solutions", "lessons")
RELEASED = os.path.join(REPO, "course", "lessons")
TEXT_STUB = "YOUR ANSWER HERE"


def sources():
    return sorted(glob.glob(os.path.join(SOURCE, "[0-9]*.py")))


def released_notebook(source_py):
    """The student's version of the lesson at ``source_py``: answers cleared, metadata kept."""
    from nbgrader.preprocessors import ClearSolutions
    from .batch import CODE_STUB   # the assignments' stub, the same for the lessons
    nb = notebooks.to_notebook(source_py)
    clear = ClearSolutions(code_stub=CODE_STUB, text_stub=TEXT_STUB)
    nb, _ = clear.preprocess(nb, {"language": "python"})
    return nb


def release(out_dir=RELEASED):
    """Write every released lesson (``.py`` twin, then its ``.ipynb`` as ``sync`` makes it) into ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for py in sources():
        target = os.path.join(out_dir, os.path.basename(py))
        notebooks.write_py(released_notebook(py), target)
        notebooks.write_ipynb(target)
        written.append(target)
    return written


def exercise_cells(nb):
    """The answer cells of a notebook (nbgrader ``solution: true``), with their syllabus ids."""
    return [(c, list(c.metadata.get("syllabus") or [])) for c in nb.cells
            if (c.metadata.get("nbgrader") or {}).get("solution")]


def read(path):
    return nbformat.read(path, as_version=4)
