"""``python -m autograder release``: nbgrader generate_assignment, from solutions/ into course/assignments/,
then nbgrader release_assignment into the exchange, where JupyterLab's assignment list finds it, and the
assignment's notebooks and cells into the course gradebook, where the formgrader's Autograde needs them."""
import os
import shutil
import tempfile

import nbformat

from . import notebooks
from .sandbox import REPO


def _generate_in(work, assignment, gradebook=None):
    """nbgrader's generate_assignment on ``solutions/<assignment>`` in a scratch course at ``work``.

    With ``gradebook`` (a db url), its SaveCells step also records the assignment, its notebooks
    and its grade, solution and locked cells there (what Autograde checks submissions against);
    it only updates what is there when the cells are the same (nbgrader refuses to add or remove
    cells of a notebook that has submissions). Returns the release folder."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config
    from .batch import CODE_STUB, COURSE_ID, alembic_on_path, quiet_gradebook
    src = os.path.join(work, "source", assignment)
    os.makedirs(src)
    for py, _ in notebooks.twins():
        if os.path.dirname(py) == os.path.join(REPO, "solutions", assignment):
            nbformat.write(notebooks.to_notebook(py), os.path.join(src, os.path.basename(py)[:-3] + ".ipynb"))
    cfg = Config()
    cfg.CourseDirectory.root = work
    cfg.CourseDirectory.course_id = COURSE_ID
    if gradebook:
        alembic_on_path()
        cfg.CourseDirectory.db_url = gradebook
    else:
        cfg.GenerateAssignment.no_database = True
        cfg.SaveCells.enabled = False
    cfg.BaseConverter.force = True
    cfg.ClearSolutions.code_stub = CODE_STUB
    api = NbGraderAPI(CourseDirectory(config=cfg), config=cfg)
    with quiet_gradebook():
        result = api.generate_assignment(assignment, force=True, create=bool(gradebook))
    if not result["success"]:
        raise RuntimeError(f"nbgrader generate_assignment failed:\n{result['log']}\n{result.get('error')}")
    return os.path.join(work, "release", assignment)


def register(assignment="A1"):
    """Record ``assignment`` in the course gradebook (``nbgrader_config.py``'s), so that the formgrader can
    autograde it before any command-line ``grade``. Idempotent.

    A release that adds or removes graded, answer or locked cells, once there are submissions,
    is refused by nbgrader (``ValueError``, one line), before the exchange changes."""
    gradebook = course_api().coursedir.db_url
    if gradebook.startswith("sqlite:///"):
        os.makedirs(os.path.dirname(gradebook[len("sqlite:///"):]), exist_ok=True)
    work = tempfile.mkdtemp(prefix="register-")
    try:
        _generate_in(work, assignment, gradebook)
    except RuntimeError as error:
        lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
        why = next((ln for ln in reversed(lines) if "Cannot" in ln), lines[-1] if lines else "")
        why = why.removeprefix("RuntimeError: ")
        raise ValueError(f"the gradebook {gradebook} refuses this release of {assignment}: {why}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return gradebook


def generate(assignment, out_dir):
    """Run nbgrader's generate_assignment on ``solutions/<assignment>`` into ``out_dir`` (no gradebook)."""
    work = tempfile.mkdtemp(prefix="release-")
    try:
        rel = _generate_in(work, assignment)
        os.makedirs(out_dir, exist_ok=True)
        for name in sorted(os.listdir(rel)):
            if name.endswith(".ipynb"):
                nb = nbformat.read(os.path.join(rel, name), as_version=4)
                py = os.path.join(out_dir, name[:-6] + ".py")
                notebooks.write_py(nb, py)
                # the .ipynb as `sync` makes it from its twin (content-derived cell ids): syncing changes nothing
                nbformat.write(notebooks.to_notebook(py), os.path.join(out_dir, name))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def course_api():
    """An NbGraderAPI configured by the repository's ``nbgrader_config.py`` (as the formgrader is)."""
    from nbgrader.apps import NbGrader, NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    app = NbGrader()
    app.config_file = os.path.join(REPO, "nbgrader_config")
    app.load_config_file()
    return NbGraderAPI(CourseDirectory(config=app.config), config=app.config)


def _same_notebooks(a, b):
    """Do folders ``a`` and ``b`` hold the same notebooks (cell by cell)?"""
    names = lambda d: sorted(n for n in os.listdir(d) if n.endswith(".ipynb"))  # noqa: E731
    if not os.path.isdir(a) or not os.path.isdir(b) or names(a) != names(b):
        return False
    return all(notebooks.cells_key(nbformat.read(os.path.join(a, n), as_version=4)) ==
               notebooks.cells_key(nbformat.read(os.path.join(b, n), as_version=4)) for n in names(a))


def publish(assignment="A1", force=False):
    """Copy the released ``course/assignments/<assignment>`` into the exchange (nbgrader release_assignment).

    Publishing the same notebooks again changes nothing; publishing *different* ones over an
    earlier release (students may have fetched it) needs ``force``. Either way the assignment is
    (re)registered in the course gradebook (:func:`register`)."""
    outbound = exchange_copy(assignment)
    same = os.path.isdir(outbound) and _same_notebooks(outbound, os.path.join(REPO, "course", "assignments",
                                                                              assignment))
    if os.path.isdir(outbound) and not same and not force:
        raise ValueError(f"{assignment} was already handed out (in {outbound}) and the new release differs; "
                         f"run `python -m autograder release {assignment} --force` to replace it")
    register(assignment)
    if same:
        return outbound
    if os.path.isdir(outbound):
        shutil.rmtree(outbound)
    api = course_api()
    os.makedirs(api.config.Exchange.root, exist_ok=True)
    result = api.release_assignment(assignment)
    if not result["success"]:
        raise RuntimeError(f"nbgrader release_assignment failed:\n{result['log']}\n{result.get('error')}")
    return outbound


def exchange_copy(assignment):
    """Where the exchange holds the handed-out ``assignment``."""
    api = course_api()
    return os.path.join(api.config.Exchange.root, api.coursedir.course_id, "outbound", assignment)


def release(assignment="A1", force=False):
    """``solutions/<assignment>`` -> ``course/assignments/<assignment>`` -> the exchange.

    Idempotent: releasing unchanged sources changes nothing. A release that differs from the one
    already handed out is refused, before anything is written, unless ``force``."""
    out = os.path.join(REPO, "course", "assignments", assignment)
    with tempfile.TemporaryDirectory() as fresh:
        generate(assignment, fresh)
        outbound = exchange_copy(assignment)
        if os.path.isdir(outbound) and not force and not _same_notebooks(outbound, fresh):
            raise ValueError(f"{assignment} was already handed out (in {outbound}) and the new release differs; "
                             f"run `python -m autograder release {assignment} --force` to replace it")
        register(assignment)  # may refuse too (cells changed under submissions): before anything is copied
        os.makedirs(out, exist_ok=True)
        for name in os.listdir(fresh):
            shutil.copy(os.path.join(fresh, name), os.path.join(out, name))
    publish(assignment, force=force)
    return out
