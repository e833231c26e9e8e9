"""Each of the 28 concepts of ../shared/SYLLABUS.md is exercised at least once in the released course:
by a graded assignment task, or by a self-checked lesson exercise (an answer cell whose metadata names it)."""
import glob
import os
import re

import nbformat
import pytest

from autograder import assignments
from autograder.sandbox import REPO

SYLLABUS = os.path.join(REPO, "..", "shared", "SYLLABUS.md")


def concepts():
    text = open(SYLLABUS, encoding="utf-8").read()
    return re.findall(r"^(\d\.\d) ", text, re.M)


def exercised():
    found = {}
    for name in assignments.names():
        for t in assignments.get(name).TASKS:
            for sid in t.syllabus:
                found.setdefault(sid, []).append(f"{name}:{t.name}")
    for path in glob.glob(os.path.join(REPO, "course", "lessons", "*.ipynb")) + \
            glob.glob(os.path.join(REPO, "course", "assignments", "*", "*.ipynb")):
        for c in nbformat.read(path, as_version=4).cells:
            if (c.metadata.get("nbgrader") or {}).get("solution"):
                for sid in c.metadata.get("syllabus") or []:
                    found.setdefault(sid, []).append(os.path.basename(path))
    return found


@pytest.mark.skipif(not os.path.exists(SYLLABUS), reason="../shared/SYLLABUS.md is not beside the checkout")
def test_every_concept_is_exercised():
    ids = concepts()
    assert len(ids) == 28, ids
    found = exercised()
    missing = [sid for sid in ids if sid not in found]
    assert missing == [], f"concepts with no graded task or self-checked exercise: {missing}"
    assert set(found) <= set(ids), f"unknown syllabus ids: {set(found) - set(ids)}"
