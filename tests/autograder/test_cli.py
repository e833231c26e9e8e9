"""``python -m autograder``: every command by assignment name, and one-line errors for bad input."""
import json
import os
import subprocess
import sys

from autograder import assignments
from autograder.sandbox import REPO


def cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_list_names_every_assignment_with_its_points():
    out = cli("list")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert [ln.split()[0] for ln in lines] == assignments.names()
    for ln, name in zip(lines, assignments.names()):
        points = sum(t.points for t in assignments.get(name).TASKS)
        assert f"{points:g} points" in ln


def test_unknown_assignment_is_one_line():
    for args in (("release", "A99"), ("grade", "--assignment", "B7", "."), ("check", "x.ipynb", "--assignment", "Z")):
        out = cli(*args)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "no assignment named" in out.stderr, out.stderr


def test_missing_and_corrupt_notebooks_are_one_line(tmp_path):
    out = cli("check", str(tmp_path / "nowhere" / "A1.ipynb"))
    assert out.returncode == 2 and out.stderr.strip().startswith("error: no notebook at"), out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    out = cli("check", str(tmp_path))  # a folder, not a notebook
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "no notebook at" in out.stderr
    bad = tmp_path / "A1.ipynb"
    bad.write_text("{ this is not json")
    out = cli("check", str(bad))
    assert out.returncode == 2 and "is not a readable notebook" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    odd = tmp_path / "homework.ipynb"
    odd.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    out = cli("check", str(odd))
    assert out.returncode == 2 and "--assignment" in out.stderr, out.stderr
    out = cli("grade", "--assignment", "A1", str(tmp_path / "no-such-dir"))
    assert out.returncode == 2 and "no submissions folder" in out.stderr, out.stderr


def test_check_infers_the_assignment_from_the_file_name():
    out = cli("check", os.path.join("course", "assignments", "A1", "A1.ipynb"))
    assert out.returncode == 0, out.stderr
    assert "self-check of A1" in out.stdout and "total" in out.stdout


def test_release_is_idempotent_and_refuses_to_replace_a_different_handout(tmp_path):
    env = dict(os.environ, COURSE_GRADING_DIR=str(tmp_path / "grading"))
    run = lambda *a: subprocess.run([sys.executable, "-m", "autograder", *a], cwd=REPO, capture_output=True,  # noqa
                                    text=True, timeout=300, env=env)
    released = os.path.join(REPO, "course", "assignments", "A1", "A1.ipynb")
    before = open(released).read()
    first, again = run("release", "A1"), run("release", "A1")
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    from nbgrader.api import Gradebook  # registered in the course gradebook, for the formgrader's Autograde
    with Gradebook("sqlite:///" + str(tmp_path / "grading" / "gradebook.db")) as gb:
        assert len(gb.find_notebook("A1", "A1").grade_cells) == len(assignments.get("A1").TASKS)
    handed = tmp_path / "grading" / "exchange" / "tf-internals" / "outbound" / "A1" / "A1.ipynb"
    nb = json.loads(handed.read_text())
    nb["cells"][0]["source"] = "an older release"
    handed.write_text(json.dumps(nb))
    refused = run("release", "A1")
    assert refused.returncode == 2 and "--force" in refused.stderr and "Traceback" not in refused.stderr
    assert open(released).read() == before
    forced = run("release", "A1", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "an older release" not in handed.read_text()
