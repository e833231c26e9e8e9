"""``python -m autograder list | release NAME | check NOTEBOOK | grade --assignment NAME SUBMISSIONS_DIR [--json]``."""
import argparse
import os
import sys
import time


def _assignment_of(notebook, given):
    """The assignment a notebook belongs to: ``--assignment``, else its file name (``A2.ipynb`` -> A2)."""
    from . import assignments
    if given:
        return assignments.get(given).NAME
    stem = os.path.splitext(os.path.basename(notebook))[0].upper()
    if stem in assignments.names():
        return stem
    raise assignments.UnknownAssignment(
        f"cannot tell which assignment {notebook!r} is from its name: add --assignment "
        f"({', '.join(assignments.names())})")


def _check_notebook(path):
    import nbformat
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no notebook at {path!r}")
    try:
        nbformat.read(path, as_version=4)
    except Exception as error:  # noqa: BLE001 - any unreadable file gets one line
        raise ValueError(f"{path!r} is not a readable notebook ({type(error).__name__}: {str(error)[:120]})") from None


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m autograder")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the assignments: name, points, time estimate, what you build")
    r = sub.add_parser("release", help="nbgrader generate_assignment: solutions/ -> course/assignments/ "
                                         "(`release lessons`: solutions/lessons/ -> course/lessons/)")
    r.add_argument("assignment", nargs="?", default="A1")
    r.add_argument("--force", action="store_true", help="replace an earlier, different release in the exchange")
    c = sub.add_parser("check", help="self-check a notebook: per-task report, nothing written to the gradebook")
    c.add_argument("notebook")
    c.add_argument("--assignment", default=None, help="default: from the notebook's file name (A2.ipynb: A2)")
    c.add_argument("--seed", type=int, default=0)
    g = sub.add_parser("grade", help="instructors: nbgrader autograde the new and changed submissions into the "
                                     "gradebook; the CSV and --json cover every student in it")
    g.add_argument("--assignment", default="A1")
    g.add_argument("submissions")
    g.add_argument("--root", default=None, help="grading workspace (default: $COURSE_GRADING_DIR, else grading/)")
    g.add_argument("--json", action="store_true", help="print per-student, per-task scores as JSON")
    g.add_argument("--regrade", action="store_true", help="grade every submission again, changed or not")
    s = sub.add_parser("sync", help="regenerate every .ipynb from its jupytext .py twin")
    s.add_argument("--check", action="store_true")
    a = p.parse_args(argv)
    from . import assignments, sandbox
    try:
        return _command(a)
    except (assignments.UnknownAssignment, FileNotFoundError, ValueError, sandbox.IsolationUnavailable) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def _command(a):
    from . import assignments
    if a.cmd == "list":
        for name in assignments.names():
            spec = assignments.get(name)
            points = sum(t.points for t in spec.TASKS)
            print(f"{name}  {points:>3g} points  {spec.HOURS:>7s}  {spec.TITLE}")
    elif a.cmd == "release" and a.assignment.lower() == "lessons":
        from . import lessons
        for path in lessons.release():
            print(path)
    elif a.cmd == "release":
        from . import release
        print(release.release(assignments.get(a.assignment).NAME, force=a.force))
    elif a.cmd == "check":
        from . import grading
        if a.assignment:
            assignments.get(a.assignment)
        _check_notebook(a.notebook)
        name = _assignment_of(a.notebook, a.assignment)
        t = time.perf_counter()
        # a self-check runs the student's own code for them: where the kernel refuses namespaces it still
        # runs (isolation "basic", said in the report), which grading never does
        res = grading.grade_notebook(a.notebook, a.seed, n=2, item_timeout=5.0, total_timeout=12.0, assignment=name,
                                     require_isolation=False)
        print(grading.report(res, name))
        print(f"(self-check of {name} on a sample of random tests, {time.perf_counter() - t:.1f} s; the real "
              f"grading uses more, and other, random cases)")
    elif a.cmd == "grade":
        from . import batch, grading
        name = assignments.get(a.assignment).NAME
        if not os.path.isdir(a.submissions):
            raise FileNotFoundError(f"no submissions folder at {a.submissions!r}")
        t = time.perf_counter()
        res = batch.grade(name, a.submissions, root=a.root, regrade=a.regrade)
        if a.json:
            print(batch.as_json(res, name))
        else:
            for student, r in sorted(res.items()):
                print(student, grading.total(r, name))
        print(f"graded {len(res.graded)}, unchanged {len(res.unchanged)} ({len(res)} students in the gradebook) "
              f"in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    elif a.cmd == "sync":
        from . import notebooks
        if a.check:
            bad = notebooks.out_of_sync()
            for py, why in bad:
                print(py, why)
            return 1 if bad else 0
        notebooks.sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
