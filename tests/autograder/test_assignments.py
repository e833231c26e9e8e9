"""Every assignment, through one framework: full marks for the solution, zero for the blank release,
each plausible wrong implementation loses its own task's points (and only those), the spec matches its
notebook, and the mechanism under test is absent from the sandbox's engine.

Wrong implementations are fixtures in ``tests/autograder/wrong/<name>.py``:
``WRONG = {"what is wrong": ("task", {grade_id: source or callable(source)})}``, at least three per task.
"""
import importlib
import os
import subprocess
import sys
import zlib

import pytest

from autograder import absence, assignments, grading
from autograder.sandbox import REPO

import assignment_kit as kit

NAMES = assignments.names()
SYLLABUS = open(os.path.join(REPO, "..", "shared", "SYLLABUS.md"), encoding="utf-8").read() \
    if os.path.exists(os.path.join(REPO, "..", "shared", "SYLLABUS.md")) else None


def wrong_fixtures(name):
    try:
        return importlib.import_module(f"wrong.{name.lower()}").WRONG
    except ModuleNotFoundError:
        return {}


@pytest.fixture(scope="session")
def pools():
    """One warm sandbox per assignment, made when first needed, shared by the tests of this file."""
    made = {}

    def get(name):
        if name not in made:
            made[name] = kit.pool(name).__enter__()
        return made[name]
    yield get
    for pool in made.values():
        pool.close()


@pytest.fixture(scope="module", params=NAMES)
def graded(request, pools, tmp_path_factory):
    """(name, pool, solution results)."""
    name = request.param
    pool = pools(name)
    path = kit.submission(name, str(tmp_path_factory.mktemp(name) / f"{name}.ipynb"))
    return name, pool, kit.grade(name, path, seed=7, pool=pool)


def test_solution_full_marks(graded):
    name, pool, res = graded
    spec = assignments.get(name)
    assert kit.scores(res, name) == {t.name: t.points for t in spec.TASKS}, grading.report(res, name)
    assert res["_notes"] == [], res["_notes"]


def test_blank_release_gets_zero(graded, tmp_path):
    name, pool, _ = graded
    res = kit.grade(name, kit.submission(name, str(tmp_path / f"{name}.ipynb"), blank=True), pool=pool)
    assert grading.total(res, name) == 0, grading.report(res, name)


def test_three_wrong_implementations_per_task(graded):
    name, _, _ = graded
    spec = assignments.get(name)
    fixtures = wrong_fixtures(name)
    per_task = {t.name: sum(1 for task, _ in fixtures.values() if task == t.name) for t in spec.TASKS}
    assert all(n >= 3 for n in per_task.values()), per_task


def _fixture_ids():
    return [(name, key) for name in NAMES for key in wrong_fixtures(name)]


@pytest.mark.parametrize("name,key", _fixture_ids(), ids=[f"{n}:{k}" for n, k in _fixture_ids()])
def test_wrong_implementation_loses_its_task(name, key, tmp_path, pools):
    spec = assignments.get(name)
    task, replace = wrong_fixtures(name)[key]
    seed = zlib.crc32(key.encode())      # a student seed per fixture: the fixed core must catch it for anyone
    path = kit.submission(name, str(tmp_path / f"{name}.ipynb"), replace=replace)
    res = kit.grade(name, path, seed=seed, pool=pools(name))
    got = kit.scores(res, name)
    full = {t.name: t.points for t in spec.TASKS}
    assert got[task] < full[task], f"{key!r} kept full marks on {task!r}:\n" + grading.report(res, name)
    others = {k: v for k, v in got.items() if k != task}
    assert others == {k: v for k, v in full.items() if k != task}, \
        f"{key!r} cost points outside {task!r}:\n" + grading.report(res, name)


@pytest.mark.parametrize("name", NAMES)
def test_spec_matches_its_notebook(name):
    spec = assignments.get(name)
    rel = grading.release_notebook(name)
    meta = {(c.metadata.get("nbgrader") or {}).get("grade_id"): c.metadata.get("nbgrader") for c in rel.cells}
    for t in spec.TASKS:
        assert meta.get(t.cell, {}).get("solution"), f"{name}: {t.cell!r} is not an answer cell"
        assert meta.get(t.test_cell, {}).get("grade"), f"{name}: {t.test_cell!r} is not a test cell"
        assert meta[t.test_cell]["points"] == t.points, f"{name}: points of {t.test_cell!r}"
        assert t.syllabus, f"{name}: task {t.name!r} names no syllabus id"
        if SYLLABUS:
            for sid in t.syllabus:
                assert f"\n{sid} " in SYLLABUS, f"{name}: unknown syllabus id {sid!r}"
    cells = grading.source_cells(name)
    order = [t.name for t in spec.TASKS]
    for task, injected in spec.INJECT.items():
        assert task in order
        assert all(c in cells for c in injected), injected
        # only the answers of tasks graded *before* this one: the sandbox gets them once those are graded
        earlier = {t.cell for t in spec.TASKS[:order.index(task)]}
        answer_cells = {t.cell for t in spec.TASKS}
        assert all(c in earlier or c not in answer_cells for c in injected), (task, injected)
    if spec.SEAM is not None:
        from engine import seams
        assert spec.SEAM in seams.seams()
    plan = spec.make_plan(3, n=1)
    assert [t["name"] for t in plan["tasks"]] == [t.name for t in spec.TASKS]


@pytest.mark.parametrize("name", [n for n in NAMES if assignments.get(n).ABSENT])
def test_mechanism_is_absent_from_the_sandbox_engine(name, tmp_path):
    """The engine copy the sandbox runs imports, and each removed definition raises NotImplementedError."""
    import shutil
    spec = assignments.get(name)
    root = tmp_path / "copy"
    shutil.copytree(os.path.join(REPO, "engine"), root / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    absence.apply(str(root / "engine"), spec.ABSENT, name)
    probes = []
    for path, names in spec.ABSENT.items():
        if isinstance(names, dict):   # name -> replacement source, or None for a stub
            names = [n for n, replacement in names.items() if replacement is None]
        module = path[:-3].replace("/", ".")
        for n in names:
            owner, _, member = n.rpartition(".")
            probes.append((module, owner, member))
    code = ("import importlib, sys\nimport engine\nbad = []\n"
            f"for module, owner, member in {probes!r}:\n"
            "    m = importlib.import_module(module)\n"
            "    obj = getattr(getattr(m, owner), member) if owner else getattr(m, member)\n"
            "    try:\n"
            "        obj() if not owner else obj(None)\n"
            "        bad.append(member)\n"
            "    except NotImplementedError as e:\n"
            f"        assert 'absent' in str(e) and {name!r} in str(e)\n"
            "    except TypeError:\n"
            "        bad.append(member)\n"
            "print('BAD', bad)\n")
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=root, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": f"{root}{os.pathsep}{os.path.dirname(os.path.dirname(__import__('numpy').__file__))}",
                              "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert "BAD []" in out.stdout, out.stdout
