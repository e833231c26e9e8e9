"""``python -m autograder release | check NOTEBOOK | grade --assignment A1 SUBMISSIONS_DIR [--json]``."""
import argparse
import sys
import time


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m autograder")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("release", help="nbgrader generate_assignment: solutions/ -> course/assignments/")
    r.add_argument("assignment", nargs="?", default="A1")
    c = sub.add_parser("check", help="self-check a notebook: per-task report, nothing written to the gradebook")
    c.add_argument("notebook")
    c.add_argument("--seed", type=int, default=0)
    g = sub.add_parser("grade", help="instructors: nbgrader autograde every submission into the gradebook")
    g.add_argument("--assignment", default="A1")
    g.add_argument("submissions")
    g.add_argument("--root", default=None, help="grading workspace (default: grading/)")
    g.add_argument("--json", action="store_true", help="print per-student, per-task scores as JSON")
    s = sub.add_parser("sync", help="regenerate every .ipynb from its jupytext .py twin")
    s.add_argument("--check", action="store_true")
    a = p.parse_args(argv)
    if a.cmd == "release":
        from . import release
        print(release.release(a.assignment))
    elif a.cmd == "check":
        from . import grading
        t = time.perf_counter()
        res = grading.grade_notebook(a.notebook, a.seed, n=2, item_timeout=5.0, total_timeout=9.0)
        print(grading.report(res))
        print(f"(self-check on a sample of random tests, {time.perf_counter() - t:.1f} s; the real grading "
              f"uses more, and other, random programs)")
    elif a.cmd == "grade":
        from . import batch
        t = time.perf_counter()
        res = batch.grade(a.assignment, a.submissions, root=a.root)
        if a.json:
            print(batch.as_json(res))
        else:
            for s, r in sorted(res.items()):
                print(s, round(sum(r[n]["score"] for n, *_ in __import__("autograder.a1").a1.TASKS), 2))
        print(f"graded {len(res)} submissions in {time.perf_counter() - t:.1f} s", file=sys.stderr)
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
