"""How long grading a class takes: 20 submissions of each assignment through ``python -m autograder grade``.

The issue's budget is 30 s per assignment for 20 submissions on 2 cores, everything included:
nbgrader's autograde into a fresh gradebook, the sandbox (one warm worker, a fresh child per
submission), the expected values computed with the reference engine, feedback and the CSV.
The 20 submissions cycle through a full solution, a blank release and solutions with one
answer cell left blank, so graded work and failing work are both in the mix. A second figure
for A1 grades 20 honest, complete solutions against the sandbox's own budget of 20 s (issue 14:
isolation by construction must not make grading a class slow).

    .venv/bin/python -m bench.grading            # every assignment
    .venv/bin/python -m bench.grading A2 A5      # some
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

BUDGET_S = 30.0
HONEST_BUDGET_S = 20.0
STUDENTS = 20


def grade_class(name, students=STUDENTS, honest=False):
    """Seconds to grade ``students`` sample submissions of ``name``, and the totals they got
    (``honest``: every one a complete solution)."""
    from autograder import assignments, batch, samples
    spec = assignments.get(name)
    work = tempfile.mkdtemp(prefix=f"bench-grading-{name}-")
    try:
        subs = os.path.join(work, "submitted")
        for k in range(students):
            kind = 0 if honest else k % 4
            blank_one = {spec.TASKS[k % len(spec.TASKS)].cell: lambda s: "raise NotImplementedError()\n"} \
                if kind == 2 else None
            samples.write_submission(name, os.path.join(subs, f"s{k:02d}", f"{name}.ipynb"), blank=(kind == 1),
                                     replace=blank_one)
        t = time.perf_counter()
        res = batch.grade(name, subs, root=os.path.join(work, "grading"), progress=False)
        elapsed = time.perf_counter() - t
        from autograder import grading
        return elapsed, {s: grading.total(r, name) for s, r in res.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    from autograder import assignments
    p = argparse.ArgumentParser(prog="python -m bench.grading", description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="assignments (default: all)")
    a = p.parse_args(argv)
    names = [assignments.get(n).NAME for n in a.names] or assignments.names()
    print(f"Grading {STUDENTS} submissions per assignment ({os.cpu_count()} CPUs; budget {BUDGET_S:g} s each)")
    worst = 0.0
    for name in names:
        elapsed, totals = grade_class(name)
        full = sum(t.points for t in assignments.get(name).TASKS)
        right = sum(1 for s, v in totals.items() if int(s[1:]) % 4 in (0, 3) and v == full)
        worst = max(worst, elapsed)
        print(f"  {name}: {elapsed:5.1f} s  ({elapsed / STUDENTS:.2f} s per submission; "
              f"{right}/{sum(1 for s in totals if int(s[1:]) % 4 in (0, 3))} full solutions got full marks)  "
              f"{'within' if elapsed <= BUDGET_S else 'OVER'} budget")
    honest_ok = True
    if "A1" in names:
        elapsed, totals = grade_class("A1", honest=True)
        honest_ok = elapsed <= HONEST_BUDGET_S and all(v == 20 for v in totals.values())
        print(f"  A1, {STUDENTS} honest solutions: {elapsed:5.1f} s, {sum(v == 20 for v in totals.values())}/"
              f"{STUDENTS} full marks  {'within' if elapsed <= HONEST_BUDGET_S else 'OVER'} "
              f"its {HONEST_BUDGET_S:g} s budget")
    return 0 if worst <= BUDGET_S and honest_ok else 1


if __name__ == "__main__":
    sys.exit(main())
