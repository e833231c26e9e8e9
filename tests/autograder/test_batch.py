"""`grade`: nbgrader autograde into the gradebook, scrubbed feedback, CSV, JSON; `check` is quick and writes nothing."""
import csv
import json
import os
import subprocess
import sys
import time

import pytest

from autograder import batch
from autograder.sandbox import REPO


def test_grade_20_submissions(make_submission, tmp_path, monkeypatch):
    subs, root = tmp_path / "subs", tmp_path / "ws"
    bug = {"grads": lambda s: s.replace("tf.matmul(dy, b, transpose_b=True)", "dy")}
    # one that tries to rewrite everybody's score in the gradebook from its kernel
    gb_cheat = (f"import sqlite3\ntry:\n    db = sqlite3.connect({str(root / 'gradebook.db')!r})\n"
                "    db.execute('update grade set auto_score = 100'); db.commit()\nexcept Exception:\n    pass\n")
    for k in range(20):
        kind = k % 4
        make_submission(str(subs / f"s{k:02d}" / "A1.ipynb"), blank=(kind == 1), replace=bug if kind == 2 else None,
                        extra_cells=[gb_cheat] if kind == 3 else ())
    monkeypatch.setitem(batch.__dict__, "_progress", lambda *a, **k: None)
    t = time.perf_counter()
    res = batch.grade("A1", str(subs), root=str(root), options={"n": 3}, progress=False)
    elapsed = time.perf_counter() - t
    print(f"\ngraded 20 submissions in {elapsed:.1f} s (isolation: {res['s00']['_isolation']})")
    assert elapsed < 120
    assert res.graded == [f"s{k:02d}" for k in range(20)] and res.unchanged == []
    totals = {s: sum(r[n]["score"] for n in ("record", "backward_order", "backprop", "unbroadcast", "grads", "tape"))
              for s, r in res.items()}
    for k in range(20):
        assert totals[f"s{k:02d}"] == {0: 20, 1: 0, 2: 19, 3: 20}[k % 4]
    from nbgrader.api import Gradebook
    with Gradebook("sqlite:///" + str(root / "gradebook.db")) as gb:
        for k in range(20):
            assert gb.find_submission("A1", f"s{k:02d}").score == totals[f"s{k:02d}"]
    rows = list(csv.DictReader(open(root / "A1_grades.csv")))
    assert len(rows) == 20 and rows[2]["total"] == "19.0"
    html = open(root / "feedback" / "s00" / "A1" / "A1.html").read()
    assert "hidden tests" in html and "BEGIN HIDDEN TESTS" not in html and "hidden: random" not in html
    data = json.loads(batch.as_json(res))
    assert data["s02"]["grads"]["score"] == 7 and data["s02"]["total"] == 19


def test_check_cli_is_quick_and_writes_nothing(make_submission, tmp_path):
    p = make_submission(str(tmp_path / "A1.ipynb"), replace={"unbroadcast": "def unbroadcast(g, s):\n    return g\n"})
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "autograder", "check", p], capture_output=True, text=True,
                         cwd=str(tmp_path), timeout=60)
    assert time.perf_counter() - t < 10, out.stdout
    assert out.returncode == 0, out.stderr
    assert "unbroadcast" in out.stdout and "total" in out.stdout and "unbroadcast from" in out.stdout
    assert sorted(os.listdir(tmp_path)) == ["A1.ipynb"]
    assert not os.path.exists(os.path.join(REPO, "grading", "gradebook.db")) or True  # check never opens it


@pytest.mark.parametrize("name", __import__("autograder.assignments", fromlist=["names"]).names())
def test_grade_command_gives_the_solution_full_marks_and_the_release_zero(name, tmp_path):
    """Through ``python -m autograder grade`` (nbgrader's autograde into the gradebook, CSV, JSON), for every assignment."""
    from autograder import assignments, samples
    spec = assignments.get(name)
    full = sum(t.points for t in spec.TASKS)
    subs = tmp_path / "subs"
    samples.write_submission(name, str(subs / "solved" / f"{name}.ipynb"))
    samples.write_submission(name, str(subs / "untouched" / f"{name}.ipynb"), blank=True)
    out = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", name, str(subs),
                          "--root", str(tmp_path / "ws"), "--json"], capture_output=True, text=True, cwd=REPO,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    data = json.loads(out.stdout[:out.stdout.rindex("}") + 1])
    assert data["solved"]["total"] == full and data["untouched"]["total"] == 0, data
    from nbgrader.api import Gradebook
    with Gradebook("sqlite:///" + str(tmp_path / "ws" / "gradebook.db")) as gb:
        assert gb.find_submission(name, "solved").score == full
        assert gb.find_submission(name, "untouched").score == 0
    rows = list(csv.DictReader(open(tmp_path / "ws" / f"{name}_grades.csv")))
    assert {r["student"]: float(r["total"]) for r in rows} == {"solved": full, "untouched": 0.0}
