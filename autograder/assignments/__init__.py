"""The assignments, one declarative spec each (``a1.py`` ... ``a6.py``): what is graded, and how.

An assignment has its nbgrader source in ``solutions/<NAME>/<NAME>.py`` (a jupytext twin),
is released into ``course/assignments/<NAME>/``, and is graded by one framework
(``grading.py``, ``batch.py``, ``sandbox.py``). Its spec module holds, in the grader process:

``NAME``, ``TITLE``, ``HOURS``
    ``"A2"``, what the student builds, a time estimate for the course README.
``SEAM``
    the engine seam (``engine.seams``) the student's code fills, or None.
``ABSENT``
    what is *removed* from the sandbox's engine copy while this assignment is graded:
    ``{"engine/<path>.py": ["Name", "Class.method", ...]}`` (each definition is replaced by
    a stub that raises ``NotImplementedError``) or ``{path: {name: "replacement source"}}``.
    A submission cannot call what is not there, so there are no name checks
    (``absence.py``).
``TASKS``
    a list of :class:`Task`: name, the answer cell and the test cell (nbgrader grade ids),
    points, syllabus ids.
``INJECT``
    ``{task: [answer cells]}``: the reference versions of other tasks' answer cells, run
    before that task is graded, so that a task's score never depends on another task.
``HARNESS``
    the module name of its sandbox side in ``autograder/harness/`` (usually ``NAME.lower()``).
``LIMITS`` (optional)
    sandbox limits for the plan (``{"processes": 32}`` for a harness that runs threads).
``make_plan(seed, n)``
    the generated inputs: ``{"tasks": [{"name": task, "cases": [...]}, ...]}``, JSON-able,
    one entry per task in ``TASKS`` order. Each task's cases are a *fixed core* (the edge
    cases every student gets: every mistake the visible test catches) plus ``n`` random
    cases from the per-student ``seed``.
``expected(task)``
    the expected output per case, computed here with the pristine reference engine.
``check_case(task_name, case, expected, got)``
    None if ``got`` is right, else a message naming what was tried and what differed.
``score(task_name, cases, expected, outputs, points)`` (optional)
    ``(score, messages)``; by default the fraction of right cases times the points, with
    the first three messages.
"""
import hashlib
import importlib
import os
import re
from typing import NamedTuple, Tuple

__all__ = ["Task", "get", "names", "student_seed", "default_score", "UnknownAssignment"]


class Task(NamedTuple):
    """One graded task: its name, answer cell, test cell (nbgrader grade ids), points and syllabus ids."""
    name: str
    cell: str
    test_cell: str
    points: float
    syllabus: Tuple[str, ...] = ()


class UnknownAssignment(ValueError):
    """A name that is not one of the course's assignments."""


_HERE = os.path.dirname(os.path.abspath(__file__))


def names():
    """The assignments that have a spec here, in order: ``["A1", "A2", ...]``."""
    found = [f[:-3].upper() for f in os.listdir(_HERE) if re.fullmatch(r"a\d+\.py", f)]
    return sorted(found, key=lambda n: int(n[1:]))


def get(name):
    """The spec module of assignment ``name`` (``"A2"`` or ``"a2"``); ``UnknownAssignment`` otherwise."""
    key = str(name).strip().upper()
    if key not in names():
        raise UnknownAssignment(f"no assignment named {name!r}; the assignments are: {', '.join(names())}")
    return importlib.import_module(f"{__name__}.{key.lower()}")


def student_seed(student, assignment="A1", salt="tf-internals"):
    """Deterministic per-student seed: the same submission always gets the same tests."""
    return int.from_bytes(hashlib.sha256(f"{salt}:{assignment}:{student}".encode()).digest()[:8], "little")


def default_score(spec, task_name, cases, expected, outputs, points):
    """Points times the fraction of right cases; the first three messages, numbered by case."""
    fails = [spec.check_case(task_name, c, e, g) for c, e, g in zip(cases, expected, outputs)]
    score = points * sum(m is None for m in fails) / max(len(fails), 1)
    return score, [f"case {k + 1}: {m}" for k, m in enumerate(fails) if m][:3]


def error_message(got):
    """The message for an output that is a harness-caught exception (``"error:Type: text"``), else None."""
    if isinstance(got, str) and got.startswith("error:"):
        return f"your code raised {got[6:]}"
    return None
